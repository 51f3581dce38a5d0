//! Conformance: the `kustomize` suite (filled in by the kustomize engine work).
