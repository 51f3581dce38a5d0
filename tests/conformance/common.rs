//! Shared plumbing of the conformance runner: where the suites are, and how results are reported.

use std::path::PathBuf;

/// The directory holding the suites: `OFFLUX_CONFORMANCE_DIR`, or `conformance/` of the shared
/// test data.
fn suites() -> PathBuf {
    std::env::var_os("OFFLUX_CONFORMANCE_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| crate::test_data::root().join("conformance"))
}

/// Whether `suite` is there to run; when it is not, says that it was skipped (or fails the test
/// where the data is required, see `test_data`). Every test starts with it.
pub fn suite_present(suite: &str) -> bool {
    crate::test_data::located(
        suites().join(suite),
        &format!("conformance suite `{suite}`"),
    )
    .is_some()
}

/// The directory of `suite` (present: see `suite_present`), canonical so that paths shown in
/// error messages do not carry the `..` of the default.
pub fn suite_dir(suite: &str) -> PathBuf {
    let dir = suites().join(suite);
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
