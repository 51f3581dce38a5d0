//! Where the shared test data lives (the corpus, the peers' conformance suites, the reference
//! tools): `../shared` beside the project, or the directory `OFFLUX_TEST_DATA` names. Unit tests
//! and integration tests (which include this file by path) ask here, so a fresh clone with nothing
//! beside it still passes `cargo test`: a test whose data is absent prints one line saying what
//! it skipped and returns. CI sets `OFFLUX_REQUIRE_TEST_DATA`, and there an absent directory fails
//! the test instead: a run that has the data never passes by finding nothing.

#![allow(dead_code)]

use std::path::PathBuf;

/// The root of the shared test data, whether or not it exists.
#[allow(
    clippy::disallowed_methods,
    reason = "tests are told where their data is by the environment"
)]
pub(crate) fn root() -> PathBuf {
    match std::env::var_os("OFFLUX_TEST_DATA") {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared"),
    }
}

/// Whether a missing directory must fail the test rather than skip it.
#[allow(
    clippy::disallowed_methods,
    reason = "CI tells the tests that their data must be there"
)]
pub(crate) fn required() -> bool {
    std::env::var_os("OFFLUX_REQUIRE_TEST_DATA").is_some_and(|v| !v.is_empty() && v != "0")
}

/// `sub` under the shared test data (`corpus/repos`, `conformance/kustomize`, ...), canonical,
/// or `None` after printing that `what` was skipped. Panics when the data is required.
pub(crate) fn dir(sub: &str, what: &str) -> Option<PathBuf> {
    located(root().join(sub), what)
}

/// `path` if it is a directory, canonical; otherwise as `dir` says.
pub(crate) fn located(path: PathBuf, what: &str) -> Option<PathBuf> {
    if path.is_dir() {
        return Some(path.canonicalize().unwrap_or(path));
    }
    assert!(
        !required(),
        "{what}: `{}` is missing and OFFLUX_REQUIRE_TEST_DATA is set",
        path.display()
    );
    skipped(&format!(
        "{what}: `{}` not found (place shared/ beside the project, or set OFFLUX_TEST_DATA=DIR, to run it)",
        path.display()
    ));
    None
}

/// Says on the terminal that a test skipped, and why. Written to stderr directly, not through
/// `eprintln!`, which the test harness captures and shows only for failing tests.
pub(crate) fn skipped(why: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "skipped {why}");
}
