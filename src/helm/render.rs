//! Helm's engine and `helm template`'s assembly: every template of the chart tree parsed into one
//! set (deepest charts first, so a parent's `define` wins), each non-partial template run with its
//! chart's scope of the values, then the output split, sorted and printed with `# Source:` lines.

use std::collections::BTreeMap;

pub use super::sort::Manifest;
use super::{Chart, Error, KubeVersion};
use crate::template::Value;

/// The release a chart is rendered as (`.Release`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Release {
    pub name: String,
    pub namespace: String,
    pub is_upgrade: bool,
    pub revision: i64,
}

/// What `helm template` is asked to do.
#[derive(Clone, Debug)]
pub struct RenderOptions {
    pub release: Release,
    pub kube_version: KubeVersion,
    /// Extra API versions for `.Capabilities.APIVersions` (`--api-versions`).
    pub api_versions: Vec<String>,
    pub include_crds: bool,
    pub skip_tests: bool,
    pub no_hooks: bool,
    /// Validate values against `values.schema.json` (Helm does unless told not to).
    pub validate_schema: bool,
}

/// A rendered chart: CRDs from `crds/`, manifests in install order, hooks, and the root chart's notes.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Rendered {
    pub crds: Vec<Manifest>,
    pub manifests: Vec<Manifest>,
    pub hooks: Vec<Manifest>,
    pub notes: Option<String>,
}

/// Helm's `engine.Render`: each template file of the chart tree to its output, by full path
/// (`chart/templates/x.yaml`, `chart/charts/sub/templates/y.yaml`). `values` are the coalesced
/// top-level values.
pub fn render_chart(
    _chart: &Chart,
    _values: &Value,
    _options: &RenderOptions,
) -> Result<BTreeMap<String, String>, Error> {
    Err(Error::Template("not implemented".into()))
}

/// `helm template` on a loaded chart: dependencies processed, `user_values` coalesced over the
/// defaults, the schema and `kubeVersion` checked, the chart rendered and its output sorted.
pub fn template(
    _chart: Chart,
    _user_values: &Value,
    _options: &RenderOptions,
) -> Result<Rendered, Error> {
    Err(Error::Template("not implemented".into()))
}
