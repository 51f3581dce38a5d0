//! Repositories with several clusters (issue 34, item 9): at a path holding several clusters'
//! entry points, each cluster is reconciled on its own and every row and finding names it;
//! nothing is merged across clusters, and two clusters defining the same object is no "defined
//! more than once". Files no entry point applies are not reconciled.

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

/// A `flux bootstrap` layout with two clusters. Each defines `flux-system/apps` (with its own
/// path) and its own `cluster-settings`, whose `CLUSTER` the shared base substitutes. With
/// `broken_staging`, staging's `apps` points at a directory that does not exist. `orphan/` holds a
/// HelmRelease no cluster applies.
fn fixture(root: &Path, broken_staging: bool) {
    for cluster in ["prod", "staging"] {
        write(
            root,
            &format!("clusters/{cluster}/flux-system/gotk-sync.yaml"),
            &format!(
                "apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata: {{name: flux-system, namespace: flux-system}}\nspec:\n  interval: 1m\n  url: https://example.com/fleet\n  ref: {{branch: main}}\n---\napiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {{name: flux-system, namespace: flux-system}}\nspec:\n  interval: 10m\n  path: ./clusters/{cluster}\n  prune: true\n  sourceRef: {{kind: GitRepository, name: flux-system}}\n"
            ),
        );
        let path = if broken_staging && cluster == "staging" {
            "./apps/missing".to_owned()
        } else {
            format!("./apps/{cluster}")
        };
        write(
            root,
            &format!("clusters/{cluster}/apps.yaml"),
            &format!(
                "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {{name: apps, namespace: flux-system}}\nspec:\n  interval: 10m\n  path: {path}\n  prune: true\n  sourceRef: {{kind: GitRepository, name: flux-system}}\n  postBuild:\n    substituteFrom:\n      - {{kind: ConfigMap, name: cluster-settings}}\n"
            ),
        );
        write(
            root,
            &format!("clusters/{cluster}/settings.yaml"),
            &format!(
                "apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: cluster-settings, namespace: flux-system}}\ndata: {{CLUSTER: {cluster}}}\n"
            ),
        );
        write(
            root,
            &format!("apps/{cluster}/kustomization.yaml"),
            "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [../base]\n",
        );
    }
    write(
        root,
        "apps/base/kustomization.yaml",
        "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [cm.yaml]\n",
    );
    write(
        root,
        "apps/base/cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: app, namespace: default}\ndata: {cluster: '${CLUSTER}'}\n",
    );
    write(
        root,
        "orphan/hr.yaml",
        "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {name: forgotten, namespace: default}\nspec:\n  interval: 1h\n  chart:\n    spec:\n      chart: nothing\n      sourceRef: {kind: HelmRepository, name: nowhere}\n",
    );
}

fn offlux(args: &[&str], path: &Path) -> std::process::Output {
    Command::cargo_bin("offlux")
        .expect("binary")
        .env("NO_COLOR", "1")
        .args(args)
        .arg("--path")
        .arg(path)
        .arg("--root")
        .arg(path_root(path))
        .output()
        .expect("offlux runs")
}

/// The fixture's root: the paths given are the root or a directory two levels below it.
fn path_root(path: &Path) -> &Path {
    if path.ends_with("clusters/prod") {
        path.parent()
            .and_then(Path::parent)
            .expect("a directory under the root")
    } else {
        path
    }
}

fn json(output: &std::process::Output) -> serde_json::Value {
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "no JSON ({e}); stderr:\n{}",
            String::from_utf8_lossy(&output.stderr)
        )
    })
}

#[test]
fn get_clusters_lists_each_entry_point() {
    let dir = tempfile::tempdir().expect("tempdir");
    fixture(dir.path(), false);
    let output = offlux(&["get", "clusters", "-o", "json"], dir.path());
    assert!(output.status.success(), "{output:?}");
    assert_eq!(
        json(&output),
        serde_json::json!([
            {"name": "prod", "path": "clusters/prod", "fluxObjects": 3},
            {"name": "staging", "path": "clusters/staging", "fluxObjects": 3},
        ])
    );
    let table = offlux(&["get", "clusters"], dir.path());
    let text = String::from_utf8_lossy(&table.stdout);
    assert!(
        text.contains("NAME") && text.contains("clusters/staging"),
        "{text}"
    );
}

#[test]
fn each_cluster_is_reconciled_on_its_own_and_named() {
    let dir = tempfile::tempdir().expect("tempdir");
    fixture(dir.path(), false);
    let output = offlux(&["test", "-o", "json"], dir.path());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(!stderr.contains("defined more than once"), "{stderr}");
    let rows = json(&output);
    let rows = rows.as_array().expect("rows");
    let named: Vec<String> = rows
        .iter()
        .map(|r| {
            format!(
                "{} {} {}/{}/{}",
                r["cluster"].as_str().unwrap_or("?"),
                r["result"].as_str().unwrap_or("?"),
                r["kind"].as_str().unwrap_or("?"),
                r["namespace"].as_str().unwrap_or("?"),
                r["name"].as_str().unwrap_or("?"),
            )
        })
        .collect();
    for cluster in ["prod", "staging"] {
        for object in [
            "Kustomization/flux-system/apps",
            "Kustomization/flux-system/flux-system",
            "GitRepository/flux-system/flux-system",
        ] {
            let row = format!("{cluster} PASS {object}");
            assert!(named.contains(&row), "no `{row}` in {named:#?}");
        }
    }
    // Ordered by cluster, and the orphan is no row.
    let clusters: Vec<&str> = rows.iter().filter_map(|r| r["cluster"].as_str()).collect();
    assert!(clusters.windows(2).all(|w| w[0] <= w[1]), "{clusters:?}");
    assert!(!named.iter().any(|r| r.contains("forgotten")), "{named:#?}");

    let human = offlux(&["test"], dir.path());
    let text = String::from_utf8_lossy(&human.stdout);
    assert!(text.starts_with("CLUSTER"), "{text}");
    assert!(text.contains("prod") && text.contains("staging"), "{text}");
}

#[test]
fn each_cluster_substitutes_its_own_settings() {
    let dir = tempfile::tempdir().expect("tempdir");
    fixture(dir.path(), false);
    let output = offlux(&["render"], dir.path());
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{output:?}");
    let prod = text.find("# cluster: prod").expect("prod's objects");
    let staging = text.find("# cluster: staging").expect("staging's objects");
    assert!(prod < staging, "{text}");
    assert!(text[prod..staging].contains("cluster: prod"), "{text}");
    assert!(!text[prod..staging].contains("cluster: staging"), "{text}");
    assert!(text[staging..].contains("cluster: staging"), "{text}");

    let out = tempfile::tempdir().expect("tempdir");
    let written = offlux(
        &["render", "--out", &out.path().display().to_string()],
        dir.path(),
    );
    assert!(written.status.success(), "{written:?}");
    assert!(out.path().join("prod").is_dir() && out.path().join("staging").is_dir());
}

#[test]
fn the_worst_cluster_decides_the_exit_status() {
    let dir = tempfile::tempdir().expect("tempdir");
    fixture(dir.path(), true);
    let output = offlux(&["test", "-o", "json"], dir.path());
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let rows = json(&output);
    let failed: Vec<&serde_json::Value> = rows
        .as_array()
        .expect("rows")
        .iter()
        .filter(|r| r["result"] != "PASS")
        .collect();
    assert!(!failed.is_empty());
    assert!(
        failed.iter().all(|r| r["cluster"] == "staging"),
        "{failed:#?}"
    );
}

#[test]
fn a_single_cluster_names_none() {
    let dir = tempfile::tempdir().expect("tempdir");
    fixture(dir.path(), false);
    let output = offlux(&["test", "-o", "json"], &dir.path().join("clusters/prod"));
    assert!(output.status.success(), "{output:?}");
    let rows = json(&output);
    let rows = rows.as_array().expect("rows");
    assert!(!rows.is_empty());
    assert!(rows.iter().all(|r| r.get("cluster").is_none()), "{rows:#?}");
    let human = offlux(&["test"], &dir.path().join("clusters/prod"));
    assert!(String::from_utf8_lossy(&human.stdout).starts_with("RESULT"));
}

#[test]
fn validate_names_each_findings_cluster_and_finds_no_duplicate_across_clusters() {
    let dir = tempfile::tempdir().expect("tempdir");
    fixture(dir.path(), false);
    let output = offlux(&["validate", "-o", "json"], dir.path());
    assert!(output.status.success(), "{output:?}");
    let findings = json(&output);
    let findings = findings.as_array().expect("findings");
    for finding in findings {
        let cluster = finding["cluster"].as_str().unwrap_or_default();
        assert!(matches!(cluster, "prod" | "staging"), "{finding:#}");
        let message = finding["message"].as_str().unwrap_or_default();
        assert!(!message.contains("more than once"), "{finding:#}");
        assert!(
            !message.starts_with('['),
            "JSON names the cluster once: {finding:#}"
        );
    }
    let human = offlux(&["validate"], dir.path());
    let stderr = String::from_utf8_lossy(&human.stderr);
    assert!(!stderr.contains("defined more than once"), "{stderr}");
}

/// The fixture committed on `main`; `None` without git.
fn committed() -> Option<tempfile::TempDir> {
    let dir = tempfile::tempdir().expect("tempdir");
    fixture(dir.path(), false);
    git(dir.path(), &["init", "-q"])?;
    git(dir.path(), &["add", "-A"])?;
    git(dir.path(), &["commit", "-q", "-m", "base"])?;
    Some(dir)
}

/// `offlux diff --base main` at the fixture's root, as pre-commit runs it.
fn diff(root: &Path, args: &[&str]) -> (Option<i32>, String, String) {
    let output = Command::cargo_bin("offlux")
        .expect("binary")
        .current_dir(root)
        .env("NO_COLOR", "1")
        .args(["diff", "--base", "main", "--path", "."])
        .args(args)
        .output()
        .expect("offlux runs");
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// `cluster change producer-kind/name object-kind/namespace/name` of each JSON entry.
fn diff_entries(entries: &serde_json::Value) -> Vec<String> {
    let text = |v: &serde_json::Value| v.as_str().unwrap_or("-").to_owned();
    entries
        .as_array()
        .expect("entries")
        .iter()
        .map(|e| {
            format!(
                "{} {} {}/{} {}/{}/{}",
                text(&e["cluster"]),
                text(&e["change"]),
                text(&e["producer"]["kind"]),
                text(&e["producer"]["name"]),
                text(&e["object"]["kind"]),
                text(&e["object"]["namespace"]),
                text(&e["object"]["name"]),
            )
        })
        .collect()
}

fn replace(root: &Path, file: &str, from: &str, to: &str) {
    let path = root.join(file);
    let text = std::fs::read_to_string(&path).expect("read");
    assert!(text.contains(from), "{file} lacks {from:?}");
    std::fs::write(path, text.replacen(from, to, 1)).expect("write");
}

#[test]
fn diff_compares_cluster_by_cluster() {
    let Some(dir) = committed() else { return };
    let root = dir.path();
    // Both clusters define `flux-system/apps` and `default/app`, with different content: none of
    // it is a difference, and nothing is "defined more than once".
    let (code, stdout, stderr) = diff(root, &[]);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(stdout, "");
    assert!(stderr.contains("No differences"), "{stderr}");

    replace(
        root,
        "clusters/staging/settings.yaml",
        "CLUSTER: staging",
        "CLUSTER: staging-2",
    );
    let (code, stdout, stderr) = diff(root, &["-o", "json"]);
    assert_eq!(code, Some(1), "{stderr}");
    for text in [&stdout, &stderr] {
        assert!(!text.contains("more than once"), "{text}");
    }
    let entries: serde_json::Value = serde_json::from_str(&stdout).expect("json");
    assert_eq!(
        diff_entries(&entries),
        [
            "staging changed Kustomization/apps ConfigMap/default/app",
            "staging changed Kustomization/flux-system ConfigMap/flux-system/cluster-settings",
        ],
        "{stdout}"
    );
    let diff_text = entries[0]["diff"].as_str().unwrap_or_default();
    assert!(
        diff_text.contains("-  cluster: staging\n")
            && diff_text.contains("+  cluster: staging-2\n"),
        "{diff_text}"
    );

    let (_, human, _) = diff(root, &[]);
    assert!(
        human.contains("\n[staging] Kustomization flux-system/apps\n"),
        "{human}"
    );
    assert!(!human.contains("prod"), "{human}");
    let (_, markdown, _) = diff(root, &["-o", "markdown"]);
    assert!(
        markdown.contains("in 2 producers of 1 of 2 clusters")
            && markdown
                .contains("#### Cluster `staging`\n\n##### `Kustomization flux-system/apps`"),
        "{markdown}"
    );
    assert!(!markdown.contains("`prod`"), "{markdown}");
    let (_, github, _) = diff(root, &["-o", "github"]);
    let lines: Vec<&str> = github.lines().filter(|l| l.starts_with("::")).collect();
    assert_eq!(lines.len(), 2, "{github}");
    assert!(
        lines
            .iter()
            .all(|l| l.contains("title=[staging] offlux diff%3A ")),
        "{github}"
    );

    // A change to what both clusters build shows in each, under its name.
    replace(
        root,
        "apps/base/cm.yaml",
        "'${CLUSTER}'}",
        "'${CLUSTER}', tier: web}",
    );
    let (_, stdout, stderr) = diff(root, &["-o", "json"]);
    let entries: serde_json::Value = serde_json::from_str(&stdout).expect("json");
    let apps: Vec<String> = diff_entries(&entries)
        .into_iter()
        .filter(|e| e.contains("ConfigMap/default/app"))
        .collect();
    assert_eq!(
        apps,
        [
            "prod changed Kustomization/apps ConfigMap/default/app",
            "staging changed Kustomization/apps ConfigMap/default/app",
        ],
        "{stderr}"
    );
}

#[test]
fn diff_names_a_cluster_added_in_head() {
    let Some(dir) = committed() else { return };
    let root = dir.path();
    for file in ["flux-system/gotk-sync.yaml", "apps.yaml", "settings.yaml"] {
        let text = std::fs::read_to_string(root.join("clusters/staging").join(file))
            .expect("read")
            .replace("staging", "dev");
        write(root, &format!("clusters/dev/{file}"), &text);
    }
    write(
        root,
        "apps/dev/kustomization.yaml",
        "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [../base]\n",
    );
    let (code, stdout, stderr) = diff(root, &["-o", "json"]);
    assert_eq!(code, Some(1), "{stderr}");
    let entries: serde_json::Value = serde_json::from_str(&stdout).expect("json");
    let entries = diff_entries(&entries);
    assert_eq!(
        entries.first().map(String::as_str),
        Some("dev clusterAdded -/- -/-/-"),
        "{entries:#?}"
    );
    assert!(
        entries.contains(&"dev added Kustomization/apps ConfigMap/default/app".to_owned()),
        "{entries:#?}"
    );
    // The clusters both sides hold keep their names, and show no change.
    assert!(
        entries.iter().all(|e| e.starts_with("dev ")),
        "{entries:#?}"
    );
    let (_, human, _) = diff(root, &[]);
    assert!(
        human.contains("\n[dev] cluster added: only the head holds it"),
        "{human}"
    );
    let (_, markdown, _) = diff(root, &["-o", "markdown"]);
    assert!(
        markdown.contains("#### Cluster `dev`\n\n_cluster added: only the head holds it"),
        "{markdown}"
    );
    // Each side's trees under its cluster's name; the base has no `dev`.
    let out = tempfile::tempdir().expect("tempdir");
    let (code, _, stderr) = diff(root, &["--out", &out.path().display().to_string()]);
    assert_eq!(code, Some(1), "{stderr}");
    for (side, cluster, present) in [
        ("base", "prod", true),
        ("base", "staging", true),
        ("base", "dev", false),
        ("head", "dev", true),
        ("head", "prod", true),
    ] {
        assert_eq!(
            out.path().join(side).join(cluster).is_dir(),
            present,
            "{side}/{cluster}: {stderr}"
        );
    }
}

#[test]
fn diff_changed_only_selects_within_each_cluster() {
    let Some(dir) = committed() else { return };
    let root = dir.path();
    replace(
        root,
        "clusters/staging/settings.yaml",
        "CLUSTER: staging",
        "CLUSTER: staging-2",
    );
    let (whole_code, whole, _) = diff(root, &["-o", "json"]);
    let (code, stdout, stderr) = diff(root, &["-o", "json", "--changed-only"]);
    assert_eq!((code, whole_code), (Some(1), Some(1)), "{stderr}");
    let value: serde_json::Value = serde_json::from_str(&stdout).expect("json");
    let whole: serde_json::Value = serde_json::from_str(&whole).expect("json");
    assert_eq!(diff_entries(&value["changes"]), diff_entries(&whole));
    let left_out = value["changedOnly"].as_array().expect("one per cluster");
    let by_cluster: Vec<(String, u64)> = left_out
        .iter()
        .map(|l| {
            (
                l["cluster"].as_str().unwrap_or_default().to_owned(),
                l["reconciled"].as_u64().unwrap_or(0),
            )
        })
        .collect();
    // Nothing of prod reads the changed file.
    assert_eq!(by_cluster.len(), 2, "{left_out:#?}");
    assert_eq!(by_cluster[0], ("prod".to_owned(), 0), "{left_out:#?}");
    assert_eq!(by_cluster[1].0, "staging");
    assert!(by_cluster[1].1 > 0, "{left_out:#?}");
    assert!(stderr.contains("note: [prod] --changed-only"), "{stderr}");
}

/// A new user's `--path` at a namespace's directory (szinn's `kubernetes/main/apps/network`):
/// its kustomization file lists each app's Kustomization and a component that writes the
/// OCIRepository the apps' releases use. The directory is one entry, built through that file as
/// the Kustomization applying it would, so the component's source is there; splitting it into
/// one "cluster" per app left the source out and failed the release ("not found").
#[test]
fn a_namespace_directory_is_one_entry_with_what_its_kustomization_adds() {
    use crate::verdict_rules::{test_rows, write};
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    let app_ks = |app: &str| {
        format!(
            "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {{name: {app}}}\nspec:\n  interval: 30m\n  targetNamespace: net\n  path: ./apps/net/{app}/app\n  prune: true\n  sourceRef: {{kind: GitRepository, name: flux-system, namespace: flux-system}}\n"
        )
    };
    write(
        root,
        "apps/net/kustomization.yaml",
        "namespace: net\ncomponents: [../../components/chart]\nresources: [echo/ks.yaml, two/ks.yaml]\n",
    );
    write(root, "apps/net/echo/ks.yaml", &app_ks("echo"));
    write(
        root,
        "apps/net/echo/app/kustomization.yaml",
        "resources: [release.yaml]\n",
    );
    write(
        root,
        "apps/net/echo/app/release.yaml",
        "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {name: echo}\nspec:\n  interval: 1h\n  chartRef: {kind: OCIRepository, name: app-template}\n",
    );
    write(root, "apps/net/two/ks.yaml", &app_ks("two"));
    write(
        root,
        "apps/net/two/app/cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: two}\ndata: {a: b}\n",
    );
    write(
        root,
        "components/chart/kustomization.yaml",
        "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\nresources: [source.yaml]\n",
    );
    write(
        root,
        "components/chart/source.yaml",
        "apiVersion: source.toolkit.fluxcd.io/v1\nkind: OCIRepository\nmetadata: {name: app-template}\nspec:\n  interval: 1h\n  url: oci://ghcr.io/example/app-template\n  ref: {tag: 1.0.0}\n",
    );
    let rows = test_rows(root, "apps/net", &["--offline", "--allow-missing-sources"]);
    let (result, message) = rows
        .get("HelmRelease/net/echo")
        .unwrap_or_else(|| panic!("{rows:?}"));
    assert_eq!(result, "SKIPPED", "{message}");
    assert!(!message.contains("not found"), "{message}");
    assert!(
        rows.contains_key("OCIRepository/net/app-template"),
        "{rows:?}"
    );
    let output = crate::verdict_rules::offlux(
        root,
        &["get", "clusters", "--path", "apps/net", "-o", "json"],
    );
    let clusters: serde_json::Value = serde_json::from_slice(&output.stdout).expect("json");
    assert_eq!(clusters.as_array().map(Vec::len), Some(1), "{clusters}");
}
