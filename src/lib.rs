//! offlux: render and validate a Flux GitOps repository fully offline.
//!
//! See ARCHITECTURE.md for the map of modules and the invariants between them.

// Items neither the binary nor the integration tests use are `pub(crate)`; a `pub` item a private
// module hides must say `pub(crate)` too, so what `pub` means stays true.
#![deny(unreachable_pub)]

pub mod allocator;
pub(crate) mod archive;
pub mod artifact;
pub mod budget;
pub mod cli;
pub mod controllers;
pub mod diagnostic;
pub mod diff;
pub mod discovery;
pub mod escape;
pub mod fs_facts;
pub mod fsio;
pub mod gitrev;
pub(crate) mod golang;
pub mod graph;
pub mod helm;
pub mod kustomize;
pub mod labels;
pub mod model;
pub mod parallel;
pub mod platform;
pub mod resourceset;
pub mod schedule;
pub mod store;
pub mod substitute;
pub mod template;
#[cfg(test)]
mod test_data;
pub mod validate;
pub mod yaml;
