//! Native Helm: loads charts, coalesces values and renders templates as `helm template` does,
//! with no helm binary. Knows nothing of Flux, the Store or the CLI: a chart and values go in,
//! manifests (and hooks, CRDs, notes) come out.
//!
//! - [`chart`]: the chart model (`Chart.yaml`, values, templates, files, subcharts).
//! - `load`: the chart's loaders from a directory or a `.tgz` held in memory (`.helmignore`,
//!   checked entry names, size and entry caps); archives are never unpacked to disk.
//! - [`values`]: Helm's values coalescing (chart defaults, subchart scoping, `global`, nulls
//!   deleting keys), dependency processing (`condition`, `tags`, `alias`, `import-values`),
//!   `--set` parsing and `values.schema.json` validation.
//! - `render`: the template engine run over a chart tree, with Helm's render context
//!   (`.Values`, `.Release`, `.Chart`, `.Capabilities`, `.Template`, `.Files`, `.Subcharts`).
//! - `sort`: Helm's manifest splitting, hook detection and install order.
//! - `values_usage`: which `.Values` paths a chart's templates read (a static reading), and the
//!   keys of a user's values that none reads.
//!
//! Not for: fetching charts (see `repo`), Flux's HelmRelease semantics (see `controllers`).

mod capabilities;
pub mod chart;
mod files;
mod glob;
mod helmignore;
mod kube_version;
mod load;
mod render;
pub mod repo;
mod sort;
pub mod values;
mod values_usage;

pub use chart::{Chart, ChartFile, Dependency, Metadata};
pub use kube_version::KubeVersion;
pub use load::{load_archive, load_dir, LoadOptions};
pub use render::{
    render_chart, show_only, template, Manifest, Release, RenderOptions, Rendered, FIXED_NOW,
};
pub use sort::{split_manifests, INSTALL_ORDER};
pub use values_usage::{unread_keys, ValuesPath, ValuesUsage};

use std::fmt;

/// Why a chart could not be loaded or rendered. Messages follow Helm's wording where users know it.
#[derive(Clone, Debug, PartialEq)]
pub enum Error {
    /// The chart (or one of its subcharts) could not be loaded: what and where.
    Load { chart: String, message: String },
    /// Values could not be read, parsed or merged (a `--set` expression, a values file).
    Values(String),
    /// `values.schema.json` rejected the values; one line per violation.
    Schema(String),
    /// The chart's `kubeVersion` constraint excludes the target Kubernetes version.
    KubeVersion { required: String, actual: String },
    /// A template failed to parse or execute (Go's message, which names the template and line).
    Template(String),
    /// The chart cannot be installed on its own (a library chart).
    NotInstallable { chart: String, chart_type: String },
    /// A rendered manifest is not valid YAML.
    Manifest { template: String, message: String },
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Load { chart, message } => write!(f, "loading chart {chart}: {message}"),
            Error::Values(message) => write!(f, "values: {message}"),
            Error::Schema(message) => write!(
                f,
                "values don't meet the specifications of the schema(s) in the following chart(s):\n{message}"
            ),
            Error::KubeVersion { required, actual } => write!(
                f,
                "chart requires kubeVersion: {required} which is incompatible with Kubernetes {actual}"
            ),
            Error::Template(message) => f.write_str(message),
            Error::NotInstallable { chart, chart_type } => {
                write!(f, "{chart}: {chart_type} charts are not installable")
            }
            Error::Manifest { template, message } => {
                write!(f, "YAML parse error on {template}: {message}")
            }
        }
    }
}

impl std::error::Error for Error {}
