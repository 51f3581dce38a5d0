//! A native `kustomize build` (kustomize v5 semantics) as a library: takes a directory of a file
//! tree and options, returns the built objects and diagnostics. Knows nothing of Flux.
//!
//! Not for: remote bases, exec/KRM function plugins or Helm chart inflation (refused with errors).

#![deny(unreachable_pub)]

// The README's example runs as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeExample;

mod error;
mod fieldspec;
mod generate;
mod kustomization;
pub mod labels;
mod loader;
mod nameref;
mod options;
mod patch;
mod patch_texts;
mod patch_wiring;
mod replacement;
mod resmap;
mod resource;
mod target;
mod transform;

use std::path::Path;

pub use error::Error;
pub use offlux_fs::facts::{FileKind, FsFacts};
pub use options::{
    Build, EnvKeyLeftOut, LoadRestrictor, Options, Reorder, KUSTOMIZATION_FILE_NAMES, MAX_DEPTH,
};
pub use patch_texts::PatchTexts;

use offlux_yaml::{canonical_kyaml, emit_stream, Node};

/// Builds the kustomization in `dir` (a directory holding `kustomization.yaml`, `.yml` or
/// `Kustomization`).
pub fn build(dir: &Path, options: &Options) -> Result<Build, Error> {
    let mut build = target::build(dir, options)?;
    // kustomize's objects have been through go-yaml v3, which rewrites folded scalars
    build
        .objects
        .iter_mut()
        .for_each(offlux_yaml::reread_folded);
    Ok(build)
}

/// What `kustomize build` prints for the build.
pub fn to_yaml(build: &Build) -> String {
    let nodes: Vec<Node> = build.objects.iter().map(canonical_kyaml).collect();
    emit_stream(&nodes)
}

#[cfg(test)]
mod tests;
