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

#![deny(unreachable_pub)]

// The README's example runs as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeExample;

mod capabilities;
pub mod chart;
mod chart_cache;
mod error;
mod files;
mod helmignore;
mod kube_version;
mod load;
mod render;
mod render_key;
pub mod repo;
mod sort;
pub mod values;
mod values_usage;

pub use chart::{Chart, ChartFile, Dependency, Metadata};
pub use chart_cache::{CompiledSchema, ParsedTemplates};
pub use error::{Error, LoadError, TemplateSite};
pub use helmignore::RuleError;
pub use kube_version::{KubeVersion, KubeVersionError};
pub use load::{load_archive, load_dir, ChargeLoad, LoadOptions};
pub use render::{
    render_chart, show_only, template, Manifest, Release, RenderOptions, Rendered, FIXED_NOW,
};
pub use render_key::{
    chart_digest, render_key, render_key_of, rendered_from_json, rendered_to_json,
};
pub use sort::{split_manifests, INSTALL_ORDER};
pub use values_usage::{unread_keys, ValuesPath, ValuesUsage};
