//! Conformance: the `yaml_roundtrip` suite. Every `expected.yaml` of the kustomize suite is what
//! `kustomize build` printed; parsing it and printing it again with our canonical emitter must give
//! the same bytes.

use crate::conformance::common::{suite_dir, suite_present, Tally};
use offlux::yaml::{emit_stream, emit_stream_with, parse_stream, EmitOptions, ParseOptions};

#[test]
fn yaml_roundtrip() {
    if !suite_present("kustomize") {
        return;
    }
    roundtrip("yaml-roundtrip", &|roots| emit_stream(roots));
}

/// The same suite printed in kyaml's style-preserving form. kustomize build output goes through
/// JSON, so this form is expected to match only where the source already was canonical or where
/// the case's output comes from a kyaml filter (the `filters-replacement` cases).
#[test]
fn yaml_roundtrip_preserving_style() {
    if !suite_present("kustomize") {
        return;
    }
    let options = EmitOptions {
        preserve_style: true,
        ..EmitOptions::default()
    };
    roundtrip("yaml-roundtrip-preserve", &|roots| {
        emit_stream_with(roots, &options)
    });
}

fn roundtrip(suite: &str, print: &dyn Fn(&[offlux::yaml::Node]) -> String) {
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
                tally.fail(name, format!("parse error at {e}"));
                continue;
            }
        };
        let roots: Vec<_> = docs.into_iter().map(|d| d.into_root()).collect();
        let actual = print(&roots);
        if actual == expected {
            tally.pass();
        } else {
            let line = first_difference(&expected, &actual);
            tally.fail(name, format!("first difference at line {line}"));
        }
    }
    tally.finish(suite);
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
