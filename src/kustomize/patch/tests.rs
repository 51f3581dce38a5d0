//! Cases checked against `kubectl kustomize` v5.5.0 (the oracle) or taken from kustomize's own tests.

use super::*;
use crate::yaml::{emit_with, parse_stream, sort_keys, EmitOptions, Node};

fn yaml(text: &str) -> Node {
    let docs = parse_stream(text, &Default::default()).expect("test yaml parses");
    docs.into_iter().next().expect("one document").root
}

fn show(node: &Node) -> String {
    let mut node = node.clone();
    sort_keys(&mut node);
    emit_with(&node, &EmitOptions::default())
}

fn smp(target: &str, patch: &str) -> String {
    let target = yaml(target);
    let group_version = target
        .get("apiVersion")
        .and_then(Node::as_str)
        .unwrap_or("");
    let (group, version) = group_version
        .rsplit_once('/')
        .unwrap_or(("", group_version));
    let kind = target.get("kind").and_then(Node::as_str).unwrap_or("");
    let meta = patch_meta(None, group, version, kind);
    match strategic_merge(&target, &yaml(patch), meta).expect("merge succeeds") {
        MergeOutcome::Merged(node) => show(&node),
        MergeOutcome::Deleted => "DELETED".to_owned(),
    }
}

/// Each directory of `testdata/smp` holds `target.yaml`, `patch.yaml` and the oracle's
/// `expected.yaml` (`DELETED` when the patch deletes the object).
#[test]
fn strategic_merge_matches_kustomize() {
    let root =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/kustomize/patch/testdata/smp");
    let mut dirs: Vec<_> = std::fs::read_dir(&root)
        .expect("testdata exists")
        .map(|e| e.expect("dir entry").path())
        .collect();
    dirs.sort();
    let mut failures = Vec::new();
    for dir in &dirs {
        let read = |f: &str| std::fs::read_to_string(dir.join(f)).expect("case file");
        let got = smp(&read("target.yaml"), &read("patch.yaml"));
        let want = read("expected.yaml");
        if got.trim_end() != want.trim_end() {
            failures.push(format!(
                "{}:\n--- want\n{want}\n--- got\n{got}",
                dir.display()
            ));
        }
    }
    assert!(dirs.len() >= 4);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
