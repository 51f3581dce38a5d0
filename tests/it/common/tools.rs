//! Programs some tests drive (a registry, a browser), found on PATH. Without one a test says it
//! skipped and returns, unless `OFFLUX_REQUIRE_TEST_DATA` is set (CI installs them), where its
//! absence fails the test.

#![allow(
    clippy::disallowed_methods,
    reason = "a tool is looked for on the PATH the tests were started with"
)]

use std::path::PathBuf;

/// `binary` on PATH, or `None` after saying that `what` was skipped and how to install it.
pub fn on_path(binary: &str, what: &str, install: &str) -> Option<PathBuf> {
    let found = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|p| p.join(binary))
            .find(|p| p.is_file())
    });
    if found.is_none() {
        let required =
            std::env::var_os("OFFLUX_REQUIRE_TEST_DATA").is_some_and(|v| !v.is_empty() && v != "0");
        assert!(!required, "{what} need `{binary}` on PATH ({install})");
        super::test_data::skipped(&format!(
            "{what}: no `{binary}` on PATH (install it with `{install}` to run them)"
        ));
    }
    found
}
