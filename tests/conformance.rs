//! The conformance runner: the peers' own suites, read as data from `OFFLUX_CONFORMANCE_DIR`
//! (default `../shared/conformance`). One test per suite; each prints
//! `conformance <suite>: N passed, M failed (K known), S skipped` and its failures. The suites are
//! ratchets: a failure not in `tests/conformance/known_failures/<suite>.txt` fails the test, and so
//! does a case listed there that passes now (remove it from the list).
//!
//! Run with `cargo test --release --test conformance -- --nocapture`.

#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    clippy::disallowed_methods,
    reason = "tests print what they checked and read their settings from the environment"
)]

#[path = "conformance/artifactgenerator.rs"]
mod artifactgenerator;
#[path = "conformance/common.rs"]
mod common;
#[path = "conformance/envsubst.rs"]
mod envsubst;
#[path = "conformance/gotemplate.rs"]
mod gotemplate;
#[path = "conformance/helmfuncs.rs"]
mod helmfuncs;
#[path = "conformance/kustomize.rs"]
mod kustomize;
#[path = "conformance/resourceset.rs"]
mod resourceset;
#[path = "conformance/sprig.rs"]
mod sprig;
#[path = "../src/test_data.rs"]
mod test_data;
#[path = "conformance/yaml_roundtrip.rs"]
mod yaml_roundtrip;
