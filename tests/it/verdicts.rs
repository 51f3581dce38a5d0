//! The verdict ratchet: every row `offlux test` does not PASS, on every corpus and incoming
//! repository, is accounted for in `tests/verdicts/known.tsv` with a category and one line of why.
//!
//! Each repository runs as its own CI runs it (the entry point and `--sources` of
//! `corpus/incoming/README.md`; the corpus repositories from their root, as the pre-commit hooks
//! do), offline, with the corpus's charts. A SKIPPED row whose cause is that something cannot be
//! had offline (a source not fetched, a chart not in the cache) is explained by that cause and
//! not listed. Every other FAIL, BLOCKED and SKIPPED row must be listed, under one category:
//!
//! - `input`: Flux would fail too (the repository is wrong, or needs what only its cluster holds);
//! - `offline`: the verdict needs what offline cannot have;
//! - `defect`: offlux is wrong; a known defect, listed so it cannot grow unnoticed.
//!
//! A row not listed, or a listed row that no longer appears (it now passes, or its result
//! changed), fails the test. With `OFFLUX_BLESS_VERDICTS=1` the test rewrites the file instead:
//! listed rows keep their category and why, new rows are written with the category `?`, which
//! the next run refuses until a person has classified them.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use assert_cmd::Command;

use crate::common::test_data;

pub(crate) mod runs;
use runs::{runs, Run};

/// Causes of a SKIPPED row that offline explains by itself: the row's message says what could
/// not be had without the network.
const OFFLINE_CAUSES: &[&str] = &[
    "is not available offline",
    "is not in the chart cache and the network is off",
    // A render that failed without values only the cluster holds.
    "so the result depends on the cluster",
];

const CATEGORIES: &[&str] = &["input", "offline", "defect"];

/// A row's key: its repository, result and object (with its cluster when it names one).
type Key = (String, String, String);

/// The rows of `offlux test -o json` that the ratchet accounts for, with their messages.
fn unexplained_rows(run: &Run, charts: &Path) -> BTreeMap<Key, String> {
    let output = Command::cargo_bin("offlux")
        .expect("binary is built")
        .env("NO_COLOR", "1")
        .arg("test")
        .arg("--path")
        .arg(&run.path)
        .arg("--root")
        .arg(&run.root)
        .args(["--offline", "--allow-missing-sources", "-o", "json"])
        .arg("--chart-cache")
        .arg(charts)
        .args(&run.args)
        .output()
        .expect("offlux runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let rows: serde_json::Value = serde_json::from_str(&stdout).unwrap_or_else(|e| {
        panic!(
            "{}: `offlux test -o json` printed no JSON ({e}); exit {:?}, stderr:\n{}",
            run.label,
            output.status.code(),
            String::from_utf8_lossy(&output.stderr)
        )
    });
    let mut found = BTreeMap::new();
    for row in rows.as_array().expect("a list of rows") {
        let field = |name: &str| row[name].as_str().unwrap_or_default();
        let result = field("result");
        let message = field("message");
        if result == "PASS"
            || (result == "SKIPPED" && OFFLINE_CAUSES.iter().any(|c| message.contains(c)))
        {
            continue;
        }
        let mut object = format!("{}/{}/{}", field("kind"), field("namespace"), field("name"));
        if !field("cluster").is_empty() {
            object = format!("{} {object}", field("cluster"));
        }
        found.insert(
            (run.label.clone(), result.to_owned(), object),
            message.to_owned(),
        );
    }
    found
}

/// A listed row's category and why.
struct Entry {
    category: String,
    why: String,
}

fn known_file() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/verdicts/known.tsv")
}

fn read_known(path: &Path) -> BTreeMap<Key, Entry> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let mut known = BTreeMap::new();
    for (index, line) in text.lines().enumerate() {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let fields: Vec<&str> = line.split('\t').collect();
        let [repository, result, object, category, why] = fields[..] else {
            panic!(
                "{}:{}: expected five tab-separated fields (repository, result, object, category, why)",
                path.display(),
                index + 1
            );
        };
        known.insert(
            (repository.to_owned(), result.to_owned(), object.to_owned()),
            Entry {
                category: category.to_owned(),
                why: why.to_owned(),
            },
        );
    }
    known
}

fn write_known(path: &Path, rows: &BTreeMap<Key, Entry>) {
    let mut text = String::from(
        "# Every row `offlux test` does not PASS on the corpus, and why (tests/it/verdicts.rs).\n\
         # repository\tresult\tobject\tcategory (input|offline|defect)\twhy\n",
    );
    for ((repository, result, object), entry) in rows {
        let _ = writeln!(
            text,
            "{repository}\t{result}\t{object}\t{}\t{}",
            entry.category, entry.why
        );
    }
    std::fs::write(path, text).expect("write the verdict list");
}

#[allow(
    clippy::disallowed_methods,
    reason = "the person running the test asks for the list to be rewritten"
)]
fn blessing() -> bool {
    std::env::var_os("OFFLUX_BLESS_VERDICTS").is_some_and(|v| v == "1")
}

#[test]
fn every_row_that_does_not_pass_is_accounted_for() {
    let Some(shared) = test_data::dir("", "the verdict ratchet over the corpus") else {
        return;
    };
    let Some(_) = test_data::located(
        shared.join("corpus/incoming"),
        "the verdict ratchet over the corpus",
    ) else {
        return;
    };
    let charts = shared.join("corpus/charts");
    let mut found = BTreeMap::new();
    for run in runs(&shared) {
        found.extend(unexplained_rows(&run, &charts));
    }
    let path = known_file();
    let known = read_known(&path);

    if blessing() {
        let mut rows = BTreeMap::new();
        for (key, message) in &found {
            let entry = match known.get(key) {
                Some(entry) => Entry {
                    category: entry.category.clone(),
                    why: entry.why.clone(),
                },
                None => Entry {
                    category: "?".to_owned(),
                    why: message.replace(['\t', '\n'], " "),
                },
            };
            rows.insert(key.clone(), entry);
        }
        write_known(&path, &rows);
        return;
    }

    let mut problems = Vec::new();
    for (key, message) in &found {
        if !known.contains_key(key) {
            problems.push(format!(
                "new row: {}\t{}\t{}\t?\t{}",
                key.0, key.1, key.2, message
            ));
        }
    }
    for (key, entry) in &known {
        if !found.contains_key(key) {
            problems.push(format!(
                "listed row no longer appears (it passes now, or its result changed): {}\t{}\t{}",
                key.0, key.1, key.2
            ));
        }
        if !CATEGORIES.contains(&entry.category.as_str()) {
            problems.push(format!(
                "{} {} {}: category `{}` is not one of {CATEGORIES:?}",
                key.0, key.1, key.2, entry.category
            ));
        }
        if entry.why.trim().is_empty() {
            problems.push(format!("{} {} {}: no why", key.0, key.1, key.2));
        }
    }
    let mut by_category: BTreeMap<&str, usize> = BTreeMap::new();
    for entry in known.values() {
        *by_category.entry(entry.category.as_str()).or_default() += 1;
    }
    println!("{} rows accounted for: {by_category:?}", known.len());
    assert!(
        problems.is_empty(),
        "the verdicts differ from tests/verdicts/known.tsv (rewrite it with \
         OFFLUX_BLESS_VERDICTS=1, then classify every `?`):\n{}",
        problems.join("\n")
    );
}
