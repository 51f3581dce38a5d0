//! Controllers: Flux's reconcile logic on top of the engines. They gate on dependencies, call an
//! engine, and publish what it produced. Flux notions live here and nowhere below.

pub(crate) mod bootstrap_templates;
pub mod cluster;
pub(crate) mod cluster_held;
pub mod depend;
pub(crate) mod dry_run;
pub mod engine;
pub(crate) mod external_artifact;
pub mod flux_instance;
pub mod generate;
pub mod helmrelease;
pub mod postbuild;
pub mod runtime;
pub mod source;
pub mod source_map;
