//! The conformance runner: the peers' own suites, read as data from `OFFLUX_CONFORMANCE_DIR`
//! (default `../shared/conformance`). One test per suite; each prints
//! `conformance <suite>: N passed, M failed (K known), S skipped` and its failures. The suites are
//! ratchets: a failure not in `tests/conformance/known_failures/<suite>.txt` fails the test, and so
//! does a case listed there that passes now (remove it from the list).
//!
//! Run with `cargo test --release --test it conformance:: -- --nocapture`.

#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    clippy::disallowed_methods,
    reason = "tests print what they checked and read their settings from the environment"
)]

mod artifactgenerator;
mod common;
mod envsubst;
mod gotemplate;
mod helmfuncs;
mod kustomize;
mod resourceset;
mod sprig;
mod yaml_roundtrip;
