//! Shared plumbing of the conformance runner: where the suites are, and how results are reported.

use std::path::PathBuf;

/// The directory holding the suites. A missing directory fails the test with a message saying so:
/// a conformance run never passes by finding nothing.
pub fn suite_dir(suite: &str) -> PathBuf {
    let base = std::env::var_os("OFFLUX_CONFORMANCE_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/conformance"));
    let dir = base.join(suite);
    assert!(
        dir.is_dir(),
        "conformance suite `{suite}` not found at `{}`: set OFFLUX_CONFORMANCE_DIR or place `shared/` beside the project",
        dir.display()
    );
    // Canonical, so that paths shown in error messages do not carry the `..` of the default.
    dir.canonicalize().unwrap_or(dir)
}

/// The outcome of one suite.
#[derive(Default)]
pub struct Tally {
    pub passed: usize,
    pub failures: Vec<String>,
}

impl Tally {
    pub fn pass(&mut self) {
        self.passed += 1;
    }

    pub fn fail(&mut self, case: impl Into<String>) {
        self.failures.push(case.into());
    }

    pub fn total(&self) -> usize {
        self.passed + self.failures.len()
    }

    /// Prints the summary line and the failures, then fails the test when fewer than `min_rate` of
    /// the cases passed (or when there were no cases at all).
    pub fn finish(&self, suite: &str, min_rate: f64) {
        for failure in &self.failures {
            eprintln!("  FAIL {suite}: {failure}");
        }
        println!(
            "conformance {suite}: {} passed, {} failed",
            self.passed,
            self.failures.len()
        );
        assert!(self.total() > 0, "conformance {suite}: no cases were found");
        let rate = self.passed as f64 / self.total() as f64;
        assert!(
            rate >= min_rate,
            "conformance {suite}: pass rate {:.1}% is below the target {:.1}%",
            rate * 100.0,
            min_rate * 100.0
        );
    }
}
