//! Which producers a run reconciles, when it need not reconcile them all: `scope` (a command about
//! named objects renders only the HelmReleases and builds only the Kustomizations they need) and
//! `changed` (`--changed-only`: the producers a set of changed files touches, and what depends on
//! them, handed to `scope` as its targets), both on `reading` (which files a producer reads, from
//! the files as written). They narrow the run; none changes what a reconciled producer gives.

pub mod changed;
pub(crate) mod reading;
pub mod scope;
