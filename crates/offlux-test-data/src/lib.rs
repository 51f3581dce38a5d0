//! Where the shared test data lives (the corpus, the peers' conformance suites, the reference
//! tools): `../shared` beside the project, or the directory `OFFLUX_TEST_DATA` names. Unit tests
//! of every crate and the integration tests ask here (a dev-dependency), so a fresh clone with nothing
//! beside it still passes `cargo test`: a test whose data is absent prints one line saying what
//! it skipped and returns. CI sets `OFFLUX_REQUIRE_TEST_DATA`, and there an absent directory fails
//! the test instead: a run that has the data never passes by finding nothing.

#![deny(unreachable_pub)]

use std::path::{Path, PathBuf};

/// The root of the shared test data, whether or not it exists.
#[allow(
    clippy::disallowed_methods,
    reason = "tests are told where their data is by the environment"
)]
pub fn root() -> PathBuf {
    match std::env::var_os("OFFLUX_TEST_DATA") {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        // This crate sits at `crates/offlux-test-data` in the project.
        _ => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared"),
    }
}

/// Whether a missing directory must fail the test rather than skip it.
#[allow(
    clippy::disallowed_methods,
    reason = "CI tells the tests that their data must be there"
)]
pub fn required() -> bool {
    std::env::var_os("OFFLUX_REQUIRE_TEST_DATA").is_some_and(|v| !v.is_empty() && v != "0")
}

/// `sub` under the shared test data (`corpus/repos`, `conformance/kustomize`, ...), canonical,
/// or `None` after printing that `what` was skipped. Panics when the data is required.
pub fn dir(sub: &str, what: &str) -> Option<PathBuf> {
    located(root().join(sub), what)
}

/// `path` if it is a directory, canonical; otherwise as `dir` says.
pub fn located(path: PathBuf, what: &str) -> Option<PathBuf> {
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
pub fn skipped(why: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "skipped {why}");
}

/// Every YAML file (`.yaml`, `.yml`) under `sub` of the shared test data with its text, in path
/// order, symbolic links not followed; `None` (after saying so) when the data is absent.
pub fn yaml_texts_under(sub: &str, what: &str) -> Option<Vec<(PathBuf, String)>> {
    fn walk(dir: &Path, out: &mut Vec<(PathBuf, String)>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        let mut entries: Vec<_> = entries.flatten().collect();
        entries.sort_by_key(|entry| entry.file_name());
        for entry in entries {
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            let path = entry.path();
            if kind.is_dir() {
                walk(&path, out);
            } else if kind.is_file()
                && matches!(
                    path.extension().and_then(|e| e.to_str()),
                    Some("yaml" | "yml")
                )
            {
                if let Ok(text) = std::fs::read_to_string(&path) {
                    out.push((path, text));
                }
            }
        }
    }
    let root = dir(sub, what)?;
    let mut texts = Vec::new();
    walk(&root, &mut texts);
    Some(texts)
}
