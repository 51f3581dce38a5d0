//! Conformance: the `yaml_roundtrip` suite. Every `expected.yaml` of the kustomize suite is what
//! `kustomize build` printed; parsing it and printing it again with our canonical emitter must give
//! the same bytes.

use crate::common::{suite_dir, Tally};
use offlux::yaml::{emit_stream, parse_stream, ParseOptions};

#[test]
fn yaml_roundtrip() {
    let dir = suite_dir("kustomize");
    let mut cases: Vec<_> = std::fs::read_dir(&dir)
        .map(|entries| entries.filter_map(Result::ok).map(|e| e.path()).collect())
        .unwrap_or_default();
    cases.sort();
    let mut tally = Tally::default();
    for case in cases {
        let expected_path = case.join("expected.yaml");
        let Ok(expected) = std::fs::read_to_string(&expected_path) else {
            continue;
        };
        let name = case
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let docs = match parse_stream(&expected, &ParseOptions::default()) {
            Ok(docs) => docs,
            Err(e) => {
                tally.fail(format!("{name}: parse error at {e}"));
                continue;
            }
        };
        let roots: Vec<_> = docs.into_iter().map(|d| d.root).collect();
        let actual = emit_stream(&roots);
        if actual == expected {
            tally.pass();
        } else {
            let line = first_difference(&expected, &actual);
            tally.fail(format!("{name}: first difference at line {line}"));
        }
    }
    tally.finish("yaml-roundtrip", 0.95);
}

fn first_difference(expected: &str, actual: &str) -> usize {
    let mut e = expected.lines();
    let mut a = actual.lines();
    let mut line = 1;
    loop {
        match (e.next(), a.next()) {
            (None, None) => return line,
            (x, y) if x != y => return line,
            _ => line += 1,
        }
    }
}
