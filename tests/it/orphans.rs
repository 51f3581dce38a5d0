//! Orphans (issue 29): files nothing applies (OFX111), forgotten apps (OFX112), sources nothing
//! uses (OFX113) and generated values nothing reads (OFX114), on a two-cluster repository built
//! at run time; and each way of silencing them.

use std::path::Path;

use assert_cmd::Command;

fn write(root: &Path, file: &str, text: &str) {
    let path = root.join(file);
    std::fs::create_dir_all(path.parent().unwrap_or(root)).expect("mkdir");
    std::fs::write(path, text).expect("write");
}

const KS: &str = "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\n";
const LIST: &str = "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n";

/// `clusters/prod` (bootstrapped: flux-system applies the directory) applies `apps/`, whose
/// kustomization.yaml lists podinfo's `ks.yaml` but not web's; `clusters/staging` applies
/// `apps-staging/`.
fn fixture(root: &Path) {
    for cluster in ["prod", "staging"] {
        write(
            root,
            &format!("clusters/{cluster}/flux-system/gotk-sync.yaml"),
            &format!(
                "apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata: {{name: flux-system, namespace: flux-system}}\nspec: {{url: https://example.com/repo, interval: 1m}}\n---\n{KS}metadata: {{name: flux-system, namespace: flux-system}}\nspec:\n  path: ./clusters/{cluster}\n  interval: 1m\n  prune: true\n  sourceRef: {{kind: GitRepository, name: flux-system}}\n"
            ),
        );
        write(
            root,
            &format!("clusters/{cluster}/flux-system/kustomization.yaml"),
            &format!("{LIST}resources: [gotk-sync.yaml]\n"),
        );
    }
    write(
        root,
        "clusters/prod/kustomization.yaml",
        &format!("{LIST}resources: [flux-system, apps.yaml]\n"),
    );
    write(
        root,
        "clusters/prod/apps.yaml",
        &format!("{KS}metadata: {{name: apps, namespace: flux-system}}\nspec:\n  path: ./apps\n  interval: 1m\n  prune: true\n  sourceRef: {{kind: GitRepository, name: flux-system}}\n  postBuild:\n    substituteFrom:\n      - {{kind: ConfigMap, name: cluster-settings}}\n"),
    );
    // Held by the cluster: the bootstrap applied it, `apps` reads it.
    write(
        root,
        "clusters/prod/secrets/cluster-settings.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cluster-settings, namespace: flux-system}\ndata: {CLUSTER: prod}\n",
    );
    write(
        root,
        "apps/kustomization.yaml",
        &format!("{LIST}resources: [podinfo/ks.yaml]\n"),
    );
    write(
        root,
        "apps/podinfo/ks.yaml",
        &format!("{KS}metadata: {{name: podinfo, namespace: flux-system}}\nspec:\n  path: ./apps/podinfo/app\n  interval: 1m\n  prune: true\n  targetNamespace: default\n  sourceRef: {{kind: GitRepository, name: flux-system}}\n"),
    );
    write(
        root,
        "apps/podinfo/app/kustomization.yaml",
        &format!("{LIST}resources: [helmrelease.yaml, repositories.yaml, deployment.yaml]\npatches:\n  - path: patch.yaml\nconfigMapGenerator:\n  - name: podinfo-values\n    files: [values.yaml]\n  - name: old-values\n    files: [values.yaml]\n  - name: app-config\n    literals: [A=b]\ngeneratorOptions:\n  disableNameSuffixHash: true\n"),
    );
    write(root, "apps/podinfo/app/values.yaml", "replicaCount: 2\n");
    write(
        root,
        "apps/podinfo/app/helmrelease.yaml",
        "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {name: podinfo}\nspec:\n  interval: 1m\n  chart:\n    spec:\n      chart: podinfo\n      version: 6.5.0\n      sourceRef: {kind: HelmRepository, name: podinfo}\n  valuesFrom:\n    - {kind: ConfigMap, name: podinfo-values}\n",
    );
    write(
        root,
        "apps/podinfo/app/repositories.yaml",
        "apiVersion: source.toolkit.fluxcd.io/v1\nkind: HelmRepository\nmetadata: {name: podinfo}\nspec: {url: https://stefanprodan.github.io/podinfo, interval: 1h}\n---\napiVersion: source.toolkit.fluxcd.io/v1\nkind: HelmRepository\nmetadata: {name: bitnami}\nspec: {url: https://charts.bitnami.com/bitnami, interval: 1h}\n",
    );
    // An ordinary app ConfigMap, generated and mounted: no orphan.
    write(
        root,
        "apps/podinfo/app/deployment.yaml",
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec:\n      containers: [{name: web, image: nginx, envFrom: [{configMapRef: {name: app-config}}]}]\n",
    );
    // A patch holding a whole object is a kustomize input, no orphan.
    write(
        root,
        "apps/podinfo/app/patch.yaml",
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec: {replicas: 2}\n",
    );
    write(
        root,
        "apps/podinfo/app/stray.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: stray}\ndata: {a: b}\n",
    );
    // The forgotten app: its ks.yaml is missing from apps/kustomization.yaml.
    write(
        root,
        "apps/web/ks.yaml",
        &format!("{KS}metadata: {{name: web, namespace: flux-system}}\nspec:\n  path: ./apps/web/app\n  interval: 1m\n  prune: true\n  sourceRef: {{kind: GitRepository, name: flux-system}}\n"),
    );
    write(
        root,
        "apps/web/app/kustomization.yaml",
        &format!("{LIST}resources: [service.yaml]\n"),
    );
    write(
        root,
        "apps/web/app/service.yaml",
        "apiVersion: v1\nkind: Service\nmetadata: {name: web, namespace: default}\nspec: {ports: [{port: 80}]}\n",
    );
    // What only staging applies.
    write(
        root,
        "clusters/staging/apps.yaml",
        &format!("{KS}metadata: {{name: apps, namespace: flux-system}}\nspec:\n  path: ./apps-staging\n  interval: 1m\n  prune: true\n  sourceRef: {{kind: GitRepository, name: flux-system}}\n"),
    );
    write(
        root,
        "apps-staging/cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: staging, namespace: default}\ndata: {a: b}\n",
    );
    // Applied by no cluster at all.
    write(
        root,
        "archive/old.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: old, namespace: default}\ndata: {a: b}\n",
    );
    // A chart's files are no manifests of the repository.
    write(
        root,
        "charts/mychart/Chart.yaml",
        "apiVersion: v2\nname: mychart\nversion: 1.0.0\n",
    );
    write(
        root,
        "charts/mychart/crds/crd.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: from-chart}\n",
    );
}

/// `offlux validate -o json` from `clusters/prod` (and `extra`): the orphan findings as
/// `(code, file, object)`, and the exit code.
fn orphans(root: &Path, extra: &[&str]) -> (Vec<(String, String, String)>, Option<i32>) {
    let output = Command::cargo_bin("offlux")
        .expect("binary")
        .env("NO_COLOR", "1")
        .args([
            "validate",
            "-o",
            "json",
            "--offline",
            "--allow-missing-sources",
        ])
        .arg("--path")
        .arg(root.join("clusters/prod"))
        .arg("--root")
        .arg(root)
        .args(extra)
        .output()
        .expect("runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let findings: serde_json::Value = serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("{e}: {stdout}\n{}", String::from_utf8_lossy(&output.stderr)));
    let mut out: Vec<(String, String, String)> = findings
        .as_array()
        .expect("a list")
        .iter()
        .filter(|f| {
            matches!(
                f["code"].as_str(),
                Some("OFX111" | "OFX112" | "OFX113" | "OFX114")
            )
        })
        .map(|f| {
            (
                f["code"].as_str().unwrap_or("").to_string(),
                format!("{}:{}", f["file"].as_str().unwrap_or(""), f["line"]),
                f["object"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    out.sort();
    (out, output.status.code())
}

fn finding(code: &str, file: &str, object: &str) -> (String, String, String) {
    (code.into(), file.into(), object.into())
}

/// What `clusters/prod` alone reports: the stray file, the forgotten app, the unused
/// repository and the generated values nothing reads; nothing of staging, the archive, the
/// chart, the patch, the held ConfigMap or the mounted one.
fn prod_findings() -> Vec<(String, String, String)> {
    vec![
        finding(
            "OFX111",
            "apps/podinfo/app/stray.yaml:1",
            "ConfigMap//stray",
        ),
        finding(
            "OFX112",
            "apps/web/ks.yaml:1",
            "Kustomization/flux-system/web",
        ),
        finding(
            "OFX113",
            "apps/podinfo/app/repositories.yaml:6",
            "HelmRepository/default/bitnami",
        ),
        finding(
            "OFX114",
            "apps/podinfo/app/kustomization.yaml:9",
            "ConfigMap/default/old-values",
        ),
    ]
}

#[test]
fn each_kind_of_orphan_is_found_from_one_entry_point() {
    let dir = tempfile::tempdir().expect("tempdir");
    fixture(dir.path());
    let (found, code) = orphans(dir.path(), &[]);
    assert_eq!(found, prod_findings());
    // Warnings by default.
    assert_eq!(code, Some(0));
}

#[test]
fn every_entry_point_judges_every_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    fixture(dir.path());
    let (found, _) = orphans(dir.path(), &["--all-entry-points"]);
    let mut expected = prod_findings();
    expected.push(finding(
        "OFX111",
        "archive/old.yaml:1",
        "ConfigMap/default/old",
    ));
    expected.sort();
    assert_eq!(found, expected);
    // Listed in `.offlux.yaml`, staging's files are applied and the archive is judged too.
    write(
        dir.path(),
        ".offlux.yaml",
        "validate:\n  orphans:\n    entry-points: [clusters/staging]\n",
    );
    let (found, _) = orphans(dir.path(), &[]);
    assert_eq!(found, expected);
    // Without staging, its files are orphans of the repository.
    write(
        dir.path(),
        ".offlux.yaml",
        "validate:\n  orphans:\n    entry-points: [clusters/prod]\n",
    );
    let (found, _) = orphans(dir.path(), &[]);
    for (code, file) in [
        ("OFX111", "apps-staging/cm.yaml:1"),
        ("OFX112", "clusters/staging/apps.yaml:1"),
    ] {
        assert!(
            found.iter().any(|f| f.0 == code && f.1 == file),
            "{code} {file}: {found:?}"
        );
    }
}

#[test]
fn orphans_are_silenced_by_annotation_path_and_severity() {
    let dir = tempfile::tempdir().expect("tempdir");
    fixture(dir.path());
    write(
        dir.path(),
        "apps/podinfo/app/stray.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: stray\n  annotations: {offlux.io/ignore: OFX111}\ndata: {a: b}\n",
    );
    write(
        dir.path(),
        "apps/podinfo/app/repositories.yaml",
        "apiVersion: source.toolkit.fluxcd.io/v1\nkind: HelmRepository\nmetadata: {name: podinfo}\nspec: {url: https://stefanprodan.github.io/podinfo, interval: 1h}\n---\napiVersion: source.toolkit.fluxcd.io/v1\nkind: HelmRepository\nmetadata:\n  name: bitnami\n  annotations: {offlux.io/ignore: OFX113}\nspec: {url: https://charts.bitnami.com/bitnami, interval: 1h}\n",
    );
    write(
        dir.path(),
        ".offlux.yaml",
        "validate:\n  severities:\n    OFX114: off\n    OFX112: error\n  orphans:\n    ignore: [archive]\n",
    );
    let (found, code) = orphans(dir.path(), &["--all-entry-points"]);
    assert_eq!(
        found,
        vec![finding(
            "OFX112",
            "apps/web/ks.yaml:1",
            "Kustomization/flux-system/web"
        )]
    );
    assert_eq!(code, Some(1), "OFX112 is an error here");
    write(
        dir.path(),
        ".offlux.yaml",
        "validate:\n  orphans:\n    ignore: ['apps/web/*.yaml', archive/**]\n  severities: {OFX114: off}\n",
    );
    let (found, code) = orphans(dir.path(), &["--all-entry-points"]);
    assert_eq!(found, vec![]);
    assert_eq!(code, Some(0));
}

/// Flux applies an entry directory without a kustomization file as it generates one: every
/// YAML file, but those of directories with their own kustomization file (which list theirs).
#[test]
fn an_entry_without_a_kustomization_applies_every_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    write(
        root,
        "update-policies/policy.yaml",
        "apiVersion: image.toolkit.fluxcd.io/v1\nkind: ImageRepository\nmetadata: {name: app, namespace: default}\nspec: {image: ghcr.io/x/app, interval: 1h}\n",
    );
    write(
        root,
        "components/app/kustomization.yaml",
        &format!("{LIST}resources: [cm.yaml]\n"),
    );
    write(
        root,
        "components/app/cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: app, namespace: default}\n",
    );
    write(
        root,
        "components/app/unlisted.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: unlisted, namespace: default}\n",
    );
    // A path holding no Flux object at all is a usage error; the entry's Kustomization applies
    // the component.
    write(
        root,
        "apps.yaml",
        "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: apps, namespace: flux-system}\nspec: {interval: 10m, path: ./components/app, prune: true, sourceRef: {kind: GitRepository, name: flux-system}}\n",
    );
    let output = Command::cargo_bin("offlux")
        .expect("binary")
        .env("NO_COLOR", "1")
        .args(["validate", "-o", "json", "--offline", "--path"])
        .arg(root)
        .arg("--root")
        .arg(root)
        .output()
        .expect("runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let found: Vec<&str> = stdout.lines().filter(|l| l.contains("\"file\"")).collect();
    assert!(
        stdout.contains("\"OFX111\"") && stdout.contains("components/app/unlisted.yaml"),
        "{stdout}"
    );
    assert!(!stdout.contains("update-policies"), "{found:?}");
}

#[test]
fn a_bad_orphans_section_is_named() {
    let dir = tempfile::tempdir().expect("tempdir");
    fixture(dir.path());
    write(
        dir.path(),
        ".offlux.yaml",
        "validate:\n  orphans:\n    ignore: archive\n",
    );
    let output = Command::cargo_bin("offlux")
        .expect("binary")
        .env("NO_COLOR", "1")
        .args(["validate", "--offline", "--allow-missing-sources", "--path"])
        .arg(dir.path())
        .output()
        .expect("runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_ne!(output.status.code(), Some(0));
    assert!(
        stderr.contains("`validate.orphans.ignore` must be a list of paths"),
        "{stderr}"
    );
}
