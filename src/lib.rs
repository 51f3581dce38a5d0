//! offlux: render and validate a Flux GitOps repository fully offline.
//!
//! See ARCHITECTURE.md for the map of modules and the invariants between them.

// Items neither the binary nor the integration tests use are `pub(crate)`; a `pub` item a private
// module hides must say `pub(crate)` too, so what `pub` means stays true.
#![deny(unreachable_pub)]

pub mod allocator;
pub mod artifact;
pub mod cel_cost;
pub mod cli;
pub mod config_file;
pub mod controllers;
pub mod diagnostic;
pub mod diff;
pub mod discovery;
pub mod escape;
pub mod fetch;
pub mod gitrev;
pub mod graph;
pub mod model;
pub mod orchestrator;
pub mod parallel;
pub mod reporting;
pub mod resourceset;
pub mod selection;
pub mod store;
pub mod substitute;
pub mod validate;

// The engines, crates of the workspace (`crates/`), under the names the Flux layer gives them.
pub use offlux_budget as budget;
pub use offlux_fs as fsio;
pub use offlux_fs::archive;
pub use offlux_fs::facts as fs_facts;
pub use offlux_go as golang;
pub use offlux_helm as helm;
pub use offlux_kustomize as kustomize;
pub use offlux_kustomize::labels;
pub use offlux_platform as platform;
pub use offlux_schedule as schedule;
pub use offlux_template as template;
pub use offlux_yaml as yaml;
