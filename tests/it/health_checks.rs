//! A Kustomization's health checks, as kustomize-controller's `checkHealth` runs them after the
//! apply: with `wait: true` (every object applied) or `healthChecks` (the objects named), a
//! HelmRelease that fails makes the Kustomization fail, and what `dependsOn` it is blocked;
//! without them it passes. A release blocked by one that fails fails them too; one that fails on
//! what offline cannot have, or that the run never has, leaves them undecided, with a note; a
//! Kustomization waiting on a child that waits on it ends instead of hanging.

use std::collections::BTreeMap;
use std::path::Path;

use crate::verdict_rules::{offlux, test_rows, write};

/// `offlux test` from `clusters/c1`, offline, with `extra` flags: each row's `Kind/name` (every
/// object here has one name) with its result and message.
fn rows(root: &Path, extra: &[&str]) -> BTreeMap<String, (String, String)> {
    let mut flags = vec!["--offline"];
    flags.extend_from_slice(extra);
    test_rows(root, "clusters/c1", &flags)
        .into_iter()
        .map(|(key, row)| {
            let (kind, rest) = key.split_once('/').unwrap_or((&key, ""));
            let name = rest.rsplit_once('/').map_or(rest, |(_, name)| name);
            (format!("{kind}/{name}"), row)
        })
        .collect()
}

fn kustomization(name: &str, path: &str, extra: &str) -> String {
    format!(
        "---\napiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\n\
         metadata: {{name: {name}, namespace: flux-system}}\nspec:\n  interval: 1h\n  \
         path: {path}\n  prune: true\n  sourceRef: {{kind: GitRepository, name: flux-system}}\n{extra}"
    )
}

fn release(name: &str, chart: &str, extra: &str) -> String {
    format!(
        "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\n\
         metadata: {{name: {name}, namespace: default}}\nspec:\n  interval: 1h\n{extra}  chart:\n    \
         spec:\n      chart: ./charts/{chart}\n      \
         sourceRef: {{kind: GitRepository, name: flux-system, namespace: flux-system}}\n"
    )
}

fn fixture(root: &Path) {
    std::fs::create_dir_all(root.join(".git")).expect("mkdir");
    write(
        root,
        "charts/bad/Chart.yaml",
        "apiVersion: v2\nname: bad\nversion: 0.1.0\n",
    );
    write(
        root,
        "charts/bad/templates/cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: bad}\ndata:\n  a: {{ required \"foo is required\" .Values.foo }}\n",
    );
    write(
        root,
        "charts/good/Chart.yaml",
        "apiVersion: v2\nname: good\nversion: 0.1.0\n",
    );
    write(
        root,
        "charts/good/templates/cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: {{ .Release.Name }}}\n",
    );
    write(root, "apps/failing/hr.yaml", &release("failing", "bad", ""));
    write(
        root,
        "apps/unwaited/hr.yaml",
        &release("unwaited", "bad", ""),
    );
    write(
        root,
        "apps/healthy/hr.yaml",
        &release("healthy", "good", ""),
    );
    write(root, "apps/noted/hr.yaml", &release("noted", "good", ""));
    write(
        root,
        "apps/unreachable/hr.yaml",
        "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\n\
         metadata: {name: unreachable, namespace: default}\nspec:\n  interval: 1h\n  \
         chartRef: {kind: OCIRepository, name: charts, namespace: flux-system}\n",
    );
    write(
        root,
        "apps/behind/hr.yaml",
        &release("behind", "good", "  dependsOn:\n    - name: failing\n"),
    );
    write(
        root,
        "apps/config/cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: config, namespace: default}\n",
    );
    write(
        root,
        "apps/loop/ks.yaml",
        &kustomization(
            "loop-child",
            "./apps/config",
            "  dependsOn:\n    - name: loop\n",
        ),
    );
    let mut cluster = String::from(crate::verdict_rules::BOOTSTRAP_SOURCE);
    cluster += &kustomization("waits", "./apps/failing", "  wait: true\n");
    cluster += &kustomization(
        "after-waits",
        "./apps/config",
        "  dependsOn:\n    - name: waits\n",
    );
    cluster += &kustomization(
        "names-it",
        "./apps/config",
        "  healthChecks:\n    - {apiVersion: helm.toolkit.fluxcd.io/v2, kind: HelmRelease, name: failing, namespace: default}\n",
    );
    cluster += &kustomization("does-not-wait", "./apps/unwaited", "");
    cluster += &kustomization("waits-healthy", "./apps/healthy", "  wait: true\n");
    cluster += &kustomization("waits-behind", "./apps/behind", "  wait: true\n");
    cluster += &kustomization("loop", "./apps/loop", "  wait: true\n");
    cluster += &kustomization(
        "names-absent",
        "./apps/config",
        "  healthChecks:\n    - {apiVersion: helm.toolkit.fluxcd.io/v2, kind: HelmRelease, name: nowhere, namespace: default}\n",
    );
    // As `ReferenceToObjMetadataSet` reads them: no namespace is defaulted, `apps/v1` is.
    cluster += &kustomization(
        "names-no-namespace",
        "./apps/config",
        "  healthChecks:\n    - {apiVersion: helm.toolkit.fluxcd.io/v2, kind: HelmRelease, name: healthy}\n",
    );
    cluster += &kustomization(
        "names-no-api-version",
        "./apps/config",
        "  healthChecks:\n    - {kind: HelmRelease, name: healthy, namespace: default}\n",
    );
    cluster += &kustomization(
        "names-unserved",
        "./apps/config",
        "  healthChecks:\n    - {apiVersion: kustomize.toolkit.fluxcd.io/v1, kind: HelmRelease, name: healthy, namespace: default}\n",
    );
    cluster += &kustomization(
        "names-bad-api-version",
        "./apps/config",
        "  healthChecks:\n    - {apiVersion: helm.toolkit.fluxcd.io/v2/x, kind: HelmRelease, name: healthy, namespace: default}\n",
    );
    cluster += &kustomization(
        "names-defaults-that-serve",
        "./apps/config",
        "  healthChecks:\n    - {kind: Deployment, name: app, namespace: default}\n    \
         - {apiVersion: v1, kind: Namespace, name: default}\n",
    );
    // A source offline cannot have: what depends on it goes on with a note, which the health
    // checks keep.
    cluster += "---\napiVersion: source.toolkit.fluxcd.io/v1\nkind: OCIRepository\n\
                metadata: {name: remote, namespace: flux-system}\n\
                spec: {interval: 1h, url: 'oci://example.com/x', ref: {tag: v1}}\n";
    cluster += "---\napiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\n\
                metadata: {name: remote, namespace: flux-system}\n\
                spec: {interval: 1h, path: ./, prune: true, sourceRef: {kind: OCIRepository, name: remote}}\n";
    cluster += "---\napiVersion: source.toolkit.fluxcd.io/v1\nkind: OCIRepository\n\
                metadata: {name: charts, namespace: flux-system}\n\
                spec: {interval: 1h, url: 'oci://example.com/charts/x', ref: {tag: 1.0.0}}\n";
    cluster += &kustomization("waits-offline", "./apps/unreachable", "  wait: true\n");
    cluster += &kustomization(
        "waits-noted",
        "./apps/noted",
        "  wait: true\n  dependsOn:\n    - name: remote\n",
    );
    write(root, "clusters/c1/flux.yaml", &cluster);
}

#[test]
fn a_failing_release_fails_the_kustomizations_that_check_its_health() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    fixture(root);
    let rows = rows(root, &["--allow-missing-sources"]);
    let row = |name: &str| {
        rows.get(name)
            .cloned()
            .unwrap_or_else(|| panic!("{name}: {rows:#?}"))
    };

    assert_eq!(row("HelmRelease/failing").0, "FAIL");
    let (result, message) = row("Kustomization/waits");
    assert_eq!(result, "FAIL", "{message}");
    assert!(
        message.starts_with("health check failed: HelmRelease/default/failing is not ready: "),
        "{message}"
    );
    let (result, message) = row("Kustomization/after-waits");
    assert_eq!(result, "BLOCKED", "{message}");
    assert!(
        message.contains("Kustomization/flux-system/waits"),
        "{message}"
    );
    let (result, message) = row("Kustomization/names-it");
    assert_eq!(result, "FAIL", "{message}");
    assert!(message.contains("HelmRelease/default/failing"), "{message}");

    // Without `wait` or `healthChecks` the apply is all that decides.
    assert_eq!(row("HelmRelease/unwaited").0, "FAIL");
    assert_eq!(
        row("Kustomization/does-not-wait"),
        ("PASS".to_owned(), String::new())
    );
    assert_eq!(
        row("Kustomization/waits-healthy"),
        ("PASS".to_owned(), String::new())
    );

    // A release blocked by one that fails never becomes ready: the checks fail.
    assert_eq!(row("HelmRelease/behind").0, "BLOCKED");
    let (result, message) = row("Kustomization/waits-behind");
    assert_eq!(result, "FAIL", "{message}");
    assert!(
        message.starts_with("health check failed: HelmRelease/default/behind is not ready: "),
        "{message}"
    );

    // Named so that kustomize-controller never finds it: the checks time out.
    let (result, message) = row("Kustomization/names-no-namespace");
    assert_eq!(result, "FAIL", "{message}");
    assert!(
        message.contains("no namespace is written, and kustomize-controller does not default one"),
        "{message}"
    );
    let (result, message) = row("Kustomization/names-no-api-version");
    assert_eq!(result, "FAIL", "{message}");
    assert!(
        message.contains("there is no kind `HelmRelease` in `apps`, the group kustomize-controller takes when no apiVersion is written"),
        "{message}"
    );
    let (result, message) = row("Kustomization/names-unserved");
    assert_eq!(result, "FAIL", "{message}");
    assert!(
        message.contains("there is no kind `HelmRelease` in `kustomize.toolkit.fluxcd.io`"),
        "{message}"
    );
    let (result, message) = row("Kustomization/names-bad-api-version");
    assert_eq!(result, "FAIL", "{message}");
    assert!(message.contains("is no apiVersion"), "{message}");
    assert_eq!(
        row("Kustomization/names-defaults-that-serve"),
        ("PASS".to_owned(), String::new())
    );

    // An object the run never has: the cluster may hold it.
    let (result, message) = row("Kustomization/names-absent");
    assert_eq!(result, "PASS", "{message}");
    assert!(
        message.contains("health check of HelmRelease/default/nowhere: not in this run"),
        "{message}"
    );
    // The health checks keep what the gate and the build said on the row.
    let (result, message) = row("Kustomization/waits-noted");
    assert_eq!(result, "PASS", "{message}");
    assert!(message.contains("was assumed ready offline"), "{message}");

    // `loop` waits for `loop-child`, which waits for `loop`: both end, as the deadlock they are.
    for name in ["Kustomization/loop", "Kustomization/loop-child"] {
        let (result, message) = row(name);
        assert_eq!(result, "FAIL", "{name}: {message}");
        assert!(
            message.starts_with("dependency cycle: "),
            "{name}: {message}"
        );
    }
    // What the Kustomization applied stays applied when its checks fail.
    let output = offlux(
        root,
        &["build", "ks", "loop", "--path", "clusters/c1", "--offline"],
    );
    let built = String::from_utf8_lossy(&output.stdout);
    assert!(built.contains("name: loop-child"), "{built}");
}

/// Without `--allow-missing-sources` a release whose chart offline cannot have fails, but on
/// what offline cannot have: the checks are undecided, not failed, and what depends on them goes
/// on.
#[test]
fn a_release_failing_on_what_offline_cannot_have_leaves_the_checks_undecided() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    fixture(root);
    let rows = rows(root, &[]);
    let (result, message) = rows["HelmRelease/unreachable"].clone();
    assert_ne!(result, "PASS", "{message}");
    let (result, message) = rows["Kustomization/waits-offline"].clone();
    assert_eq!(result, "PASS", "{message}");
    assert!(
        message.contains("health check of HelmRelease/default/unreachable not known offline"),
        "{message}"
    );
}

#[test]
fn health_check_verdicts_are_the_same_at_every_concurrency() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    fixture(root);
    let run = |concurrency: &str| {
        let args = ["test", "--path", "clusters/c1", "--offline", "-o", "json"];
        offlux(root, &[&args[..], &["--concurrency", concurrency]].concat()).stdout
    };
    let one = run("1");
    for concurrency in ["2", "8"] {
        assert_eq!(one, run(concurrency), "--concurrency {concurrency}");
    }
}
