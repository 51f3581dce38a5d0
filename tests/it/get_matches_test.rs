//! `offlux get` lists what `offlux test` reconciles (issue 34): on every corpus and incoming
//! repository, run as `tests/it/verdicts.rs` runs it, the Flux objects `get all` lists are the rows
//! `test` reports, in the same namespaces (the one a `targetNamespace` or a kustomization's
//! `namespace:` gives), and nothing a Kustomization never applies. One reconcile per repository
//! serves both (`offlux::cli::listed_and_tested`, the path both commands take); the commands
//! themselves are compared on a small repository built here.

#![allow(clippy::print_stderr, reason = "tests say why they skipped")]

use std::path::Path;

use assert_cmd::Command;

use crate::common::test_data;

use crate::verdicts::runs;

#[test]
fn get_lists_the_rows_test_reports_on_every_corpus_repository() {
    let Some(shared) = test_data::dir("", "get against test over the corpus") else {
        return;
    };
    let Some(_) = test_data::located(
        shared.join("corpus/incoming"),
        "get against test over the corpus",
    ) else {
        return;
    };
    let charts = shared.join("corpus/charts");
    let mut differences = Vec::new();
    let mut compared = 0;
    for run in runs::runs(&shared) {
        let mut args: Vec<String> = vec![
            "--path".into(),
            run.path.display().to_string(),
            "--root".into(),
            run.root.display().to_string(),
            "--offline".into(),
            "--allow-missing-sources".into(),
            "--chart-cache".into(),
            charts.display().to_string(),
        ];
        args.extend(run.args.iter().cloned());
        let (listed, tested) = offlux::cli::listed_and_tested(&args)
            .unwrap_or_else(|e| panic!("{}: the run could not be made: {e}", run.label));
        assert!(!tested.is_empty(), "{}: no rows", run.label);
        compared += tested.len();
        let only_listed: Vec<&String> = listed.iter().filter(|l| !tested.contains(l)).collect();
        let only_tested: Vec<&String> = tested.iter().filter(|t| !listed.contains(t)).collect();
        if !only_listed.is_empty() || !only_tested.is_empty() || listed.len() != tested.len() {
            differences.push(format!(
                "{}: get {} objects, test {} rows; only in get: {only_listed:?}; only in test: {only_tested:?}",
                run.label,
                listed.len(),
                tested.len()
            ));
        }
    }
    eprintln!("compared {compared} rows");
    assert!(differences.is_empty(), "{}", differences.join("\n"));
}

fn write(root: &Path, file: &str, text: &str) {
    let path = root.join(file);
    std::fs::create_dir_all(path.parent().unwrap_or(root)).expect("mkdir");
    std::fs::write(path, text).expect("write");
}

/// `kind namespace/name` of each object `args` lists or reports as JSON.
fn objects(root: &Path, args: &[&str]) -> Vec<String> {
    let output = Command::cargo_bin("offlux")
        .expect("binary")
        .current_dir(root)
        .env("NO_COLOR", "1")
        .args(args)
        .args(["--path", "clusters/prod", "--root", ".", "-o", "json"])
        .output()
        .expect("offlux runs");
    let value: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "{args:?}: no JSON ({e}): {}",
            String::from_utf8_lossy(&output.stderr)
        )
    });
    let mut objects: Vec<String> = value
        .as_array()
        .expect("a list")
        .iter()
        .filter(|o| o["file"] != "(assumed)")
        .map(|o| {
            let field = |name: &str| o[name].as_str().unwrap_or_default().to_owned();
            format!("{} {}/{}", field("kind"), field("namespace"), field("name"))
        })
        .collect();
    objects.sort();
    objects
}

#[test]
fn get_lists_objects_as_applied_and_only_those_applied() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    write(
        root,
        "clusters/prod/apps.yaml",
        "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: apps, namespace: flux-system}\nspec:\n  interval: 1h\n  path: ./apps\n  prune: true\n  targetNamespace: web\n  sourceRef: {kind: GitRepository, name: flux-system}\n",
    );
    // Written without a namespace: applied into `web` by the Kustomization's targetNamespace.
    write(
        root,
        "apps/release.yaml",
        "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {name: site}\nspec:\n  interval: 1h\n  suspend: true\n  chart:\n    spec:\n      chart: site\n      sourceRef: {kind: HelmRepository, name: charts}\n",
    );
    // In no directory a Kustomization applies.
    write(
        root,
        "attic/old.yaml",
        "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {name: old, namespace: kube-system}\nspec:\n  interval: 1h\n  chart:\n    spec:\n      chart: old\n      sourceRef: {kind: HelmRepository, name: charts}\n",
    );
    let listed = objects(root, &["get", "all"]);
    assert_eq!(
        listed,
        vec![
            "HelmRelease web/site".to_owned(),
            "Kustomization flux-system/apps".to_owned(),
        ]
    );
    assert_eq!(listed, objects(root, &["test"]));
}
