//! Shared plumbing of the conformance runner: where the suites are, and how results are judged.
//! Each suite is a ratchet: the cases known to fail are listed, with their cause, in
//! `tests/conformance/known_failures/<suite>.txt`; a failure not listed fails the test, and so does
//! a listed case that now passes (so the list only ever shrinks).

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

/// The directory holding the suites: `OFFLUX_CONFORMANCE_DIR`, or `conformance/` of the shared
/// test data.
fn suites() -> PathBuf {
    std::env::var_os("OFFLUX_CONFORMANCE_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| crate::common::test_data::root().join("conformance"))
}

/// Whether `suite` is there to run; when it is not, says that it was skipped (or fails the test
/// where the data is required, see `test_data`). Every test starts with it.
pub fn suite_present(suite: &str) -> bool {
    crate::common::test_data::located(
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

/// The file listing the known failures of `suite` (`/` in a suite name becomes `-`).
pub fn known_failures_path(suite: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/conformance/known_failures")
        .join(format!("{}.txt", suite.replace('/', "-")))
}

/// The known failures of `suite`: case id to cause. One case a line, `ID  # cause`; blank lines
/// and lines starting with `#` are comments. An entry without a cause is refused: every listed
/// failure says why it fails.
pub fn known_failures(suite: &str) -> BTreeMap<String, String> {
    let path = known_failures_path(suite);
    let Ok(text) = std::fs::read_to_string(&path) else {
        return BTreeMap::new();
    };
    let mut known = BTreeMap::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (id, cause) = line.split_once(" #").unwrap_or((line, ""));
        assert!(
            !cause.trim().is_empty(),
            "{}:{}: `{id}` is listed without a cause (`ID  # cause`)",
            path.display(),
            n + 1
        );
        known.insert(id.trim().to_string(), cause.trim().to_string());
    }
    known
}

/// The outcome of one suite: the cases that passed, those that failed (id and why), and how many
/// were skipped.
#[derive(Default)]
pub struct Tally {
    pub passed: usize,
    pub failures: Vec<(String, String)>,
    pub skipped: usize,
}

impl Tally {
    pub fn pass(&mut self) {
        self.passed += 1;
    }

    /// Records that case `id` failed, and why (the id is what the known-failure list names).
    pub fn fail(&mut self, id: impl Into<String>, why: impl Into<String>) {
        self.failures.push((id.into(), why.into()));
    }

    pub fn total(&self) -> usize {
        self.passed + self.failures.len()
    }

    /// Prints the summary line and the failures, then fails the test on a failure that is not in
    /// the suite's known-failure list, on a listed case that did not fail (it now passes: remove
    /// it from the list), or when there were no cases at all.
    pub fn finish(&self, suite: &str) {
        if let Err(problem) = self.check(suite) {
            panic!("{problem}");
        }
    }

    /// `finish` without failing: prints, and returns what would fail the test.
    pub fn check(&self, suite: &str) -> Result<(), String> {
        let known = known_failures(suite);
        let failed: BTreeSet<&str> = self.failures.iter().map(|(id, _)| id.as_str()).collect();
        let mut new = Vec::new();
        for (id, why) in &self.failures {
            match known.get(id) {
                Some(cause) => eprintln!("  known {suite}: {id}: {why} (cause: {cause})"),
                None => {
                    eprintln!("  FAIL {suite}: {id}: {why}");
                    new.push(id.as_str());
                }
            }
        }
        let fixed: Vec<&str> = known
            .keys()
            .map(String::as_str)
            .filter(|id| !failed.contains(id))
            .collect();
        println!(
            "conformance {suite}: {} passed, {} failed ({} known), {} skipped",
            self.passed,
            self.failures.len(),
            self.failures.len() - new.len(),
            self.skipped
        );
        let list = known_failures_path(suite);
        if self.total() == 0 {
            Err(format!("conformance {suite}: no cases were found"))
        } else if !new.is_empty() {
            Err(format!(
                "conformance {suite}: {} new failure(s), not in `{}`: {}",
                new.len(),
                list.display(),
                new.join(", ")
            ))
        } else if !fixed.is_empty() {
            Err(format!(
                "conformance {suite}: listed as known failures but passed now, remove them from `{}`: {}",
                list.display(),
                fixed.join(", ")
            ))
        } else {
            Ok(())
        }
    }
}
