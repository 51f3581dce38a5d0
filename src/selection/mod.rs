//! Which producers a run reconciles, when it need not reconcile them all: `scope` (a command about
//! named objects renders only the HelmReleases they need) and `changed` (`--changed-only`: the
//! producers a set of changed files touches, and what depends on them, handed to `scope` as its
//! targets). Both narrow the run; neither changes what a reconciled producer gives.

pub mod changed;
pub mod scope;
