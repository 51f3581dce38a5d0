//! A native `kustomize build` (kustomize v5 semantics) as a library: takes a directory of a file
//! tree and options, returns the built objects and diagnostics. Knows nothing of Flux.
//!
//! Not for: remote bases, exec/KRM function plugins or Helm chart inflation (refused with errors).

mod patch;
