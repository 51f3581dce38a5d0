//! Objects applied through `spec.kubeConfig` (issue 34): an object is identified by the cluster it
//! is applied to as well as by its kind, namespace and name, so two Kustomizations applying
//! same-named objects to two remote clusters (fluxcd/flux2-hub-spoke-example's layout) are
//! compared, checked and listed each in its own cluster; and a namespace is judged in the cluster
//! where the object using it is applied (the hub's own Namespaces, which the bootstrap applies
//! from the entry point's files, count for the Flux objects living in the hub).

#![allow(clippy::print_stderr, reason = "tests say why they skipped")]

use std::path::Path;

use assert_cmd::Command;

use crate::common::git as git_helper;
use git_helper::git;

fn write(root: &Path, file: &str, text: &str) {
    let path = root.join(file);
    std::fs::create_dir_all(path.parent().unwrap_or(root)).expect("mkdir");
    std::fs::write(path, text).expect("write");
}

/// A hub whose entry point (`hub/`, as `flux bootstrap --path=hub` applies it) creates the
/// `staging` and `production` namespaces and, in each, a Kustomization `apps` applying
/// `apps/<cluster>` (a ConfigMap `default/app` in both) to the cluster of the namespace's
/// `cluster-kubeconfig` Secret, and a Kustomization `sources` applying a HelmRepository into the
/// hub's namespace of that name.
fn fixture(root: &Path) {
    let mut hub = String::new();
    for cluster in ["staging", "production"] {
        hub.push_str(&format!(
            "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: {cluster}\n---\n\
             apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: apps\n  namespace: {cluster}\nspec:\n  interval: 1h\n  path: ./apps/{cluster}\n  prune: true\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n    namespace: flux-system\n  kubeConfig:\n    secretRef:\n      name: cluster-kubeconfig\n---\n\
             apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: sources\n  namespace: {cluster}\nspec:\n  interval: 1h\n  path: ./sources\n  prune: true\n  targetNamespace: {cluster}\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n    namespace: flux-system\n---\n"
        ));
        write(
            root,
            &format!("apps/{cluster}/app.yaml"),
            &format!(
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\n  namespace: default\ndata:\n  cluster: {cluster}\n  replicas: \"1\"\n"
            ),
        );
    }
    write(root, "hub/clusters.yaml", &hub);
    write(
        root,
        "sources/podinfo.yaml",
        "apiVersion: source.toolkit.fluxcd.io/v1\nkind: HelmRepository\nmetadata:\n  name: podinfo\nspec:\n  interval: 12h\n  url: https://stefanprodan.github.io/podinfo\n",
    );
}

fn offlux(root: &Path, args: &[&str]) -> std::process::Output {
    Command::cargo_bin("offlux")
        .expect("binary")
        .current_dir(root)
        .env("NO_COLOR", "1")
        .args(args)
        .args(["--path", "hub", "--root", "."])
        .output()
        .expect("offlux runs")
}

fn json(output: &std::process::Output) -> serde_json::Value {
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "no JSON ({e}); stdout:\n{}\nstderr:\n{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    })
}

/// `producer change object (kubeConfig cluster)` of each JSON diff entry.
fn diff_entries(entries: &serde_json::Value) -> Vec<String> {
    let text = |v: &serde_json::Value| v.as_str().unwrap_or("-").to_owned();
    entries["changes"]
        .as_array()
        .or_else(|| entries.as_array())
        .expect("entries")
        .iter()
        .map(|e| {
            format!(
                "{}/{}/{} {} {}/{}/{} ({})",
                text(&e["producer"]["kind"]),
                text(&e["producer"]["namespace"]),
                text(&e["producer"]["name"]),
                text(&e["change"]),
                text(&e["object"]["kind"]),
                text(&e["object"]["namespace"]),
                text(&e["object"]["name"]),
                text(&e["object"]["kubeConfigCluster"]),
            )
        })
        .collect()
}

#[test]
fn a_change_in_one_kube_config_cluster_is_reported_under_its_target() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    fixture(root);
    let Some(()) = git(root, &["init", "-q"]) else {
        return;
    };
    git(root, &["add", "-A"]);
    git(root, &["commit", "-q", "-m", "base"]);
    for (changed, unchanged) in [("staging", "production"), ("production", "staging")] {
        let file = root.join(format!("apps/{changed}/app.yaml"));
        let text = std::fs::read_to_string(&file).expect("read");
        std::fs::write(&file, text.replace("replicas: \"1\"", "replicas: \"3\"")).expect("write");
        let output = offlux(root, &["diff", "--base", "main", "-o", "json"]);
        assert_eq!(
            diff_entries(&json(&output)),
            vec![format!(
                "Kustomization/{changed}/apps changed ConfigMap/default/app (Secret/{changed}/cluster-kubeconfig)"
            )],
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        let human =
            String::from_utf8_lossy(&offlux(root, &["diff", "--base", "main"]).stdout).into_owned();
        assert!(
            human.contains(&format!(
                "ConfigMap default/app on cluster Secret/{changed}/cluster-kubeconfig changed"
            )) && !human.contains(&format!("Secret/{unchanged}/")),
            "{human}"
        );
        git(root, &["checkout", "-q", "--", "."]);
    }
}

#[test]
fn namespaces_are_judged_in_the_cluster_the_object_is_applied_to() {
    let dir = tempfile::tempdir().expect("tempdir");
    fixture(dir.path());
    let output = offlux(dir.path(), &["validate", "-o", "json"]);
    let findings = json(&output);
    let codes: Vec<String> = findings
        .as_array()
        .expect("findings")
        .iter()
        .filter(|f| matches!(f["code"].as_str(), Some("OFX101" | "OFX106")))
        .map(|f| format!("{} {}", f["code"], f["message"]))
        .collect();
    // The hub's `staging`/`production` namespaces come from the bootstrap's own file; `default`
    // is in every cluster; the two `default/app` ConfigMaps are in two clusters.
    assert!(codes.is_empty(), "{codes:#?}");
    assert_eq!(output.status.code(), Some(0));

    // Without the hub's Namespace, its HelmRepository's namespace is created nowhere.
    let hub = dir.path().join("hub/clusters.yaml");
    let text = std::fs::read_to_string(&hub).expect("read");
    std::fs::write(
        &hub,
        text.replace(
            "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: production\n---\n",
            "",
        ),
    )
    .expect("write");
    let findings = json(&offlux(dir.path(), &["validate", "-o", "json"]));
    let missing: Vec<&str> = findings
        .as_array()
        .expect("findings")
        .iter()
        .filter(|f| f["code"] == "OFX106")
        .filter_map(|f| f["object"].as_str())
        .collect();
    assert_eq!(missing, vec!["HelmRepository/production/podinfo"]);
}

#[test]
fn a_flux_object_applied_to_two_clusters_under_one_name_is_warned_about() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    fixture(root);
    for cluster in ["staging", "production"] {
        write(
            root,
            &format!("apps/{cluster}/inner.yaml"),
            &format!(
                "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: inner\n  namespace: flux-system\nspec:\n  interval: 1h\n  path: ./inner/{cluster}\n  prune: true\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n"
            ),
        );
        write(
            root,
            &format!("inner/{cluster}/cm.yaml"),
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: inner\n  namespace: default\n",
        );
    }
    let output = offlux(root, &["test"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    let warnings: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains("applied to several clusters"))
        .collect();
    assert_eq!(warnings.len(), 1, "{stderr}");
    assert!(
        warnings[0].contains("Kustomization/flux-system/inner"),
        "{stderr}"
    );
    // Same-named ConfigMaps in two clusters are no finding: only a Flux object loses a row.
    assert!(
        !stderr.contains("ConfigMap/default/app: applied"),
        "{stderr}"
    );
}
