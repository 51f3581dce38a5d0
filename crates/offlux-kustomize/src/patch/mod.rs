//! Patching engines on YAML trees: strategic merge patch (driven by the Kubernetes OpenAPI patch
//! metadata), JSON 6902 patches, and kyaml field paths. Pure functions; no resource selection.
//!
//! Not for: deciding which objects a patch targets, reading patch files, or anything Flux.

// The kustomize engine (built in parallel) calls the strategic merge; JSON 6902 and field paths
// wait for it to call in, and until then non-test builds see them as unused.

mod fieldpath;
mod json6902;
mod meta;
mod smp;

#[cfg(test)]
pub(crate) use fieldpath::field_path_set;
pub(crate) use fieldpath::{field_path_get, field_path_update, FieldPath, SetOptions};
pub(crate) use json6902::apply_json6902;
#[cfg(test)]
pub(crate) use meta::PatchMetaFor;
pub(crate) use meta::{patch_meta, PatchSchema};
pub(crate) use smp::{strategic_merge, MergeOutcome};

/// Why a patch could not be applied. Paths are dotted field paths inside the patched object.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub(crate) enum PatchError {
    #[error("strategic merge patch{}: {message}", at(path))]
    Merge { path: String, message: String },
    #[error("JSON patch operation {index} (`{op}` at `{path}`): {message}")]
    Json6902 {
        index: usize,
        op: String,
        path: String,
        message: String,
    },
    #[error("field path `{path}`: {message}")]
    FieldPath { path: String, message: String },
    #[error("OpenAPI schema: {message}")]
    Schema { message: String },
}

fn at(path: &str) -> String {
    if path.is_empty() {
        String::new()
    } else {
        format!(" at `{path}`")
    }
}

#[cfg(test)]
mod tests;
