//! Differential tests: inputs no person wrote, generated from a seed, run through offlux's engines
//! and through the reference tools in `../shared/oracle/`, compared byte for byte.
//!
//! - `kustomize`: random kustomization trees against `kustomize-build` (kustomize v5.5.0).
//! - `template`: random Go template, Sprig and Helm function expressions against `helm-template`
//!   (Helm v4), many expressions per chart.
//! - `helm`: every corpus chart with generated values (paths of its own `values.yaml` toggled),
//!   kube and API versions, against `helm-template`'s library, many renders per process.
//! - `envsubst`: generated `${...}` forms and documents against upstream's envsubst semantics.
//!
//! CI runs a bounded number of cases with a fixed seed. A long campaign sets
//! `OFFLUX_DIFF_CASES=N` (cases per area) and `OFFLUX_DIFF_SEED=S`, and `OFFLUX_DIFF_KEEP=DIR` to
//! keep each disagreeing input; see `docs/fidelity.md`.
//!
//! Run with `cargo test --release --test it differential:: -- --nocapture`.

#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    clippy::disallowed_methods,
    reason = "tests print what they checked and read their settings from the environment"
)]

mod envsubst;
mod gen;
mod helm;
mod kustomize;
mod template;
