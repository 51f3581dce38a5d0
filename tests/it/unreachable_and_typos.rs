//! Issue 34, requirement 7: what cannot be had offline is SKIPPED with its cause and its
//! dependants go on; what the repository gets wrong (a source defined nowhere, an apiVersion the
//! Flux CRDs do not serve, a `--path` with no Flux object) is a failure, whatever the flags.
//! The fixtures are the minimal forms of `../shared/repros/c8-remote-resource-offline`.

use std::collections::BTreeMap;
use std::path::Path;

use assert_cmd::Command;

fn write(root: &Path, file: &str, text: &str) {
    let path = root.join(file);
    std::fs::create_dir_all(path.parent().unwrap_or(root)).expect("mkdir");
    std::fs::write(path, text).expect("write");
}

fn offlux(root: &Path, args: &[&str]) -> std::process::Output {
    Command::cargo_bin("offlux")
        .expect("binary")
        .env("NO_COLOR", "1")
        .current_dir(root)
        .args(args)
        .args(["--root", "."])
        .output()
        .expect("runs")
}

/// `offlux test -o json` at `path`: each row's `Kind/namespace/name` with its result and message,
/// and the exit code.
fn test_rows(
    root: &Path,
    path: &str,
    extra: &[&str],
) -> (BTreeMap<String, (String, String)>, Option<i32>) {
    let mut args = vec!["test", "--path", path, "-o", "json"];
    args.extend_from_slice(extra);
    let output = offlux(root, &args);
    let rows: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "{e}: {}\n{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    });
    let rows = rows
        .as_array()
        .expect("a list of rows")
        .iter()
        .map(|row| {
            let text = |key: &str| row[key].as_str().unwrap_or_default().to_owned();
            (
                format!("{}/{}/{}", text("kind"), text("namespace"), text("name")),
                (text("result"), text("message")),
            )
        })
        .collect();
    (rows, output.status.code())
}

fn row<'a>(rows: &'a BTreeMap<String, (String, String)>, key: &str) -> &'a (String, String) {
    rows.get(key)
        .unwrap_or_else(|| panic!("no row {key} in {rows:#?}"))
}

const REMOTE_URL: &str = "https://raw.githubusercontent.com/prometheus-operator/prometheus-operator/v0.77.1/example/prometheus-operator-crd/monitoring.coreos.com_alertmanagerconfigs.yaml";

/// Repro c8: `crds` builds a kustomization listing a remote resource (through a nested
/// kustomization, so the file named is the one that lists it); `after-crds` dependsOn it and
/// applies an object of the kind the remote CRD would define.
fn remote_fixture(root: &Path) {
    write(
        root,
        "flux/ks.yaml",
        r#"apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: crds, namespace: flux-system}
spec:
  interval: 1h
  path: ./crds
  prune: true
  sourceRef: {kind: GitRepository, name: flux-system}
---
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: after-crds, namespace: flux-system}
spec:
  dependsOn:
    - name: crds
  interval: 1h
  path: ./after
  prune: true
  sourceRef: {kind: GitRepository, name: flux-system}
"#,
    );
    write(
        root,
        "crds/kustomization.yaml",
        "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - ./upstream\n",
    );
    write(
        root,
        "crds/upstream/kustomization.yaml",
        &format!(
            "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - {REMOTE_URL}\n"
        ),
    );
    write(
        root,
        "after/config.yaml",
        r#"apiVersion: monitoring.coreos.com/v1alpha1
kind: AlertmanagerConfig
metadata: {name: config, namespace: default}
spec:
  route: {receiver: none}
  receivers: [{name: none}]
"#,
    );
}

/// kustomize-controller fetches a remote base over the network; offline it is an unavailable
/// input like an unfetchable source: SKIPPED with --allow-missing-sources, naming the URL and the
/// kustomization file, and the dependant proceeds with a note (and no FAIL for the kind the
/// remote CRD would have defined).
#[test]
fn a_remote_kustomize_resource_is_skipped_and_its_dependants_go_on() {
    let dir = tempfile::tempdir().expect("tempdir");
    remote_fixture(dir.path());
    let (rows, code) = test_rows(
        dir.path(),
        "flux",
        &["--offline", "--allow-missing-sources"],
    );
    let (result, message) = row(&rows, "Kustomization/flux-system/crds");
    assert_eq!(result, "SKIPPED", "{message}");
    assert!(message.contains(REMOTE_URL), "{message}");
    assert!(
        message.contains("`crds/upstream/kustomization.yaml`"),
        "{message}"
    );
    assert!(message.contains("is not available offline"), "{message}");
    let (result, message) = row(&rows, "Kustomization/flux-system/after-crds");
    assert_eq!(result, "PASS", "{message}");
    assert!(
        message.contains("dependency Kustomization/flux-system/crds was assumed ready offline"),
        "{message}"
    );
    assert_eq!(code, Some(0), "{rows:#?}");
}

/// Without --allow-missing-sources a remote resource fails as an unavailable source does, and
/// blocks its dependants; the message still names the URL, not a build error.
#[test]
fn a_remote_kustomize_resource_fails_without_allow_missing_sources() {
    let dir = tempfile::tempdir().expect("tempdir");
    remote_fixture(dir.path());
    let (rows, code) = test_rows(dir.path(), "flux", &["--offline"]);
    let (result, message) = row(&rows, "Kustomization/flux-system/crds");
    assert_eq!(result, "FAIL", "{message}");
    assert!(message.contains(REMOTE_URL), "{message}");
    assert!(!message.contains("kustomize build failed"), "{message}");
    let (result, _) = row(&rows, "Kustomization/flux-system/after-crds");
    assert_eq!(result, "BLOCKED");
    assert_eq!(code, Some(1));
}

/// A Flux verb at a `--path` with no Flux object (only plain manifests) is a usage error naming
/// the path, not "0 objects" and success; `diff` is not such a verb, and neither are the engine
/// verbs (`kustomize build` of the same directory works).
#[test]
fn a_path_without_flux_objects_is_a_usage_error() {
    let dir = tempfile::tempdir().expect("tempdir");
    write(
        dir.path(),
        "plain/cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x, namespace: default}\n",
    );
    write(
        dir.path(),
        "plain/kustomization.yaml",
        "resources: [cm.yaml]\n",
    );
    for verb in [
        &["test"][..],
        &["validate"],
        &["render"],
        &["graph"],
        &["get", "ks"],
        &["build", "ks", "x"],
    ] {
        let mut args = verb.to_vec();
        args.extend(["--path", "plain"]);
        let output = offlux(dir.path(), &args);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{verb:?}: {stderr}");
        assert!(
            stderr.contains("no Flux object under `plain`") && stderr.contains("Kustomization"),
            "{verb:?}: {stderr}"
        );
        assert!(output.stdout.is_empty(), "{verb:?}");
    }
    let output = Command::cargo_bin("offlux")
        .expect("binary")
        .current_dir(dir.path())
        .args(["kustomize", "build", "plain"])
        .output()
        .expect("runs");
    assert!(output.status.success(), "{output:?}");

    // A Flux object in a file that does not read (a key given twice) is named as the cause.
    write(
        dir.path(),
        "broken/app.yaml",
        "apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata: {name: a, namespace: flux-system}\nspec:\n  url: https://example.com/a.git\n  url: https://example.com/b.git\n",
    );
    let output = offlux(dir.path(), &["test", "--path", "broken"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("what did not read there") && stderr.contains("app.yaml"),
        "{stderr}"
    );
}

/// A `sourceRef` to a source defined nowhere fails even with --allow-missing-sources
/// (kustomize-controller `KustomizationReconciler.Reconcile`: "Source '…' not found"). While some
/// producer was skipped (its source cannot be fetched), what it would apply is unknown and may
/// define that source, so the consumer stays SKIPPED rather than risk a false FAIL.
#[test]
fn a_source_defined_nowhere_fails_even_with_allow_missing_sources() {
    let dir = tempfile::tempdir().expect("tempdir");
    let typo = r#"apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: typo, namespace: flux-system}
spec:
  interval: 1h
  path: ./apps
  prune: true
  sourceRef: {kind: GitRepository, name: flux-sytem}
"#;
    let remote = r#"apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: remote, namespace: flux-system}
spec:
  interval: 1h
  path: ./apps
  prune: true
  sourceRef: {kind: GitRepository, name: other}
---
apiVersion: source.toolkit.fluxcd.io/v1
kind: GitRepository
metadata: {name: other, namespace: flux-system}
spec:
  interval: 1h
  url: https://example.com/other.git
  ref: {branch: main}
"#;
    write(dir.path(), "alone/ks.yaml", typo);
    write(dir.path(), "both/ks.yaml", &format!("{typo}---\n{remote}"));
    write(
        dir.path(),
        "apps/cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x, namespace: default}\n",
    );
    let flags = ["--offline", "--allow-missing-sources"];
    let (rows, code) = test_rows(dir.path(), "alone", &flags);
    let (result, message) = row(&rows, "Kustomization/flux-system/typo");
    assert_eq!(result, "FAIL", "{message}");
    assert!(
        message.contains("flux-sytem") && message.contains("not found"),
        "{message}"
    );
    assert_eq!(code, Some(1));
    let (rows, code) = test_rows(dir.path(), "both", &flags);
    let (result, message) = row(&rows, "Kustomization/flux-system/remote");
    assert_eq!(result, "SKIPPED", "{message}");
    let (result, message) = row(&rows, "Kustomization/flux-system/typo");
    assert_eq!(result, "SKIPPED", "{message}");
    assert_eq!(code, Some(0));
}

/// `build ks NAME` of a Kustomization skipped offline says why on stderr and exits 1; it never
/// prints nothing with exit 0 (issue 34.8).
#[test]
fn building_a_skipped_object_says_why_and_fails() {
    let dir = tempfile::tempdir().expect("tempdir");
    remote_fixture(dir.path());
    let output = offlux(
        dir.path(),
        &[
            "build",
            "ks",
            "crds",
            "-n",
            "flux-system",
            "--path",
            "flux",
            "--offline",
            "--allow-missing-sources",
        ],
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("Kustomization/flux-system/crds: not rendered: skipped:")
            && stderr.contains(REMOTE_URL),
        "{stderr}"
    );
    assert!(output.stdout.is_empty());
}

/// A HelmRelease in a version no Flux release served (`v2beta9`), one in a version only older
/// releases serve (`v2beta2`), a root Kustomization with a typo in its version, and an Alert in
/// a version Flux's CRD still serves, deprecated.
fn versions_fixture(root: &Path) {
    write(
        root,
        "flux/ks.yaml",
        r#"apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: apps, namespace: flux-system}
spec:
  interval: 1h
  path: ./apps
  prune: true
  sourceRef: {kind: GitRepository, name: flux-system}
---
apiVersion: kustomize.toolkit.fluxcd.io/v1betta2
kind: Kustomization
metadata: {name: typo, namespace: flux-system}
spec:
  interval: 1h
  path: ./apps
  prune: true
  sourceRef: {kind: GitRepository, name: flux-system}
"#,
    );
    let release = |api_version: &str, name: &str, extra: &str| {
        format!(
            "apiVersion: {api_version}\nkind: HelmRelease\nmetadata: {{name: {name}, namespace: apps}}\nspec:\n  interval: 1h\n{extra}  chart:\n    spec:\n      chart: ./charts/app\n      sourceRef: {{kind: GitRepository, name: flux-system, namespace: flux-system}}\n"
        )
    };
    write(
        root,
        "apps/releases.yaml",
        &[
            release("helm.toolkit.fluxcd.io/v2beta9", "unserved", ""),
            release(
                "helm.toolkit.fluxcd.io/v2",
                "dependant",
                "  dependsOn: [{name: unserved}]\n",
            ),
            release("helm.toolkit.fluxcd.io/v2beta2", "retired", ""),
        ]
        .join("---\n"),
    );
    write(
        root,
        "apps/alert.yaml",
        "apiVersion: notification.toolkit.fluxcd.io/v1beta2\nkind: Alert\nmetadata: {name: alert, namespace: apps}\nspec:\n  providerRef: {name: slack}\n  eventSources: [{kind: Kustomization, name: '*'}]\n",
    );
    write(
        root,
        "apps/namespace.yaml",
        "apiVersion: v1\nkind: Namespace\nmetadata: {name: apps}\n",
    );
    write(
        root,
        "charts/app/Chart.yaml",
        "apiVersion: v2\nname: app\nversion: 0.1.0\n",
    );
    write(
        root,
        "charts/app/templates/cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: '{{ .Release.Name }}'}\n",
    );
}

/// The API server refuses an object whose version its CRD does not serve, before any controller
/// sees it (`meta.NoKindMatchError`). Applied by a Kustomization, the refusal is the server-side
/// dry-run's (fluxcd/pkg `ssa` `ApplyAll` → `DryRunErr`): the Kustomization FAILs naming the object
/// and nothing of its build is applied, so none of its HelmReleases has a row. Applied directly
/// (the objects are the entry point), the object's own row FAILs with that message and what
/// depends on it is blocked; a version only older Flux releases serve is no failure (the cluster
/// may run one).
#[test]
fn a_flux_object_in_a_version_its_crd_does_not_serve_fails() {
    let dir = tempfile::tempdir().expect("tempdir");
    versions_fixture(dir.path());
    let (rows, code) = test_rows(dir.path(), "flux", &["--offline"]);
    let (result, message) = row(&rows, "Kustomization/flux-system/apps");
    assert_eq!(result, "FAIL", "{message}");
    assert!(
        message.starts_with(
            r#"HelmRelease/apps/unserved dry-run failed: no matches for kind "HelmRelease" in version "helm.toolkit.fluxcd.io/v2beta9""#
        ) && message.contains("written at apps/releases.yaml:1")
            && message.contains("nothing of the stage is applied"),
        "{message}"
    );
    for never_applied in ["unserved", "dependant", "retired"] {
        let key = format!("HelmRelease/apps/{never_applied}");
        assert!(!rows.contains_key(&key), "{key} has a row: {rows:?}");
    }
    let (result, message) = row(&rows, "Kustomization/flux-system/typo");
    assert_eq!(result, "FAIL", "{message}");
    assert!(
        message.contains(r#"in version "kustomize.toolkit.fluxcd.io/v1betta2""#),
        "{message}"
    );
    assert_eq!(code, Some(1));

    let (rows, code) = test_rows(dir.path(), "apps", &["--offline"]);
    let (result, message) = row(&rows, "HelmRelease/apps/unserved");
    assert_eq!(result, "FAIL", "{message}");
    assert!(
        message.contains(
            r#"no matches for kind "HelmRelease" in version "helm.toolkit.fluxcd.io/v2beta9""#
        ) && message.contains("apps/releases.yaml:1"),
        "{message}"
    );
    let (result, message) = row(&rows, "HelmRelease/apps/dependant");
    assert_eq!(result, "BLOCKED", "{message}");
    assert!(message.contains("HelmRelease/apps/unserved"), "{message}");
    let (result, message) = row(&rows, "HelmRelease/apps/retired");
    assert_eq!(result, "PASS", "{message}");
    assert_eq!(code, Some(1));
}

/// `validate`: an unserved version is OFX104 (error) at the object's file and line; a deprecated
/// one, or one the current Flux release no longer serves, is OFX105 (warning) naming the
/// replacement.
#[test]
fn validate_reports_flux_api_versions_by_file_and_line() {
    let dir = tempfile::tempdir().expect("tempdir");
    versions_fixture(dir.path());
    let output = offlux(dir.path(), &["validate", "--path", "flux", "--offline"]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    let line = |needle: &str| {
        stdout
            .lines()
            .find(|l| l.contains(needle))
            .unwrap_or_else(|| panic!("no finding for {needle} in\n{stdout}"))
            .to_owned()
    };
    let unserved = line("HelmRelease/apps/unserved");
    assert!(
        unserved.starts_with("error OFX104")
            && unserved.contains("at apps/releases.yaml:1 $.apiVersion")
            && unserved.contains("Flux's CRD serves helm.toolkit.fluxcd.io/v2"),
        "{unserved}"
    );
    let retired = line("HelmRelease/apps/retired");
    assert!(
        retired.starts_with("warning OFX105")
            && retired.contains("apps/releases.yaml:22")
            && retired.contains("not served since Flux v2.8")
            && retired.contains("use helm.toolkit.fluxcd.io/v2"),
        "{retired}"
    );
    let alert = line("Alert/apps/alert");
    assert!(
        alert.starts_with("warning OFX105")
            && alert
                .contains("deprecated by Flux's CRD; use notification.toolkit.fluxcd.io/v1beta3"),
        "{alert}"
    );
    // The version has its finding; no "schema unknown" beside it.
    assert!(
        !stdout
            .lines()
            .any(|l| l.contains("OFX108") && l.contains("HelmRelease")),
        "{stdout}"
    );
    assert_eq!(output.status.code(), Some(1), "{stdout}");
}

/// kustomize's loader fetches a generator's `files`/`envs` source that is an http(s) URL
/// (`fileLoader.Load`, `IsRemoteFile`), as kustomize-controller does in the cluster: offline it is
/// the same unavailable input as a remote resource, SKIPPED with the URL and the file listing it.
#[test]
fn a_generator_file_fetched_over_http_is_skipped_as_a_remote_resource() {
    let dir = tempfile::tempdir().expect("tempdir");
    let url = "https://raw.githubusercontent.com/fluxcd/flux2/v0.31.4/manifests/monitoring/monitoring-config/dashboards/cluster.json";
    write(
        dir.path(),
        "flux/ks.yaml",
        r#"apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: dashboards, namespace: flux-system}
spec:
  interval: 1h
  path: ./dashboards
  prune: true
  sourceRef: {kind: GitRepository, name: flux-system}
"#,
    );
    write(
        dir.path(),
        "dashboards/kustomization.yaml",
        &format!(
            "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nconfigMapGenerator:\n  - name: dashboard\n    files:\n      - cluster.json={url}\n"
        ),
    );
    let (rows, code) = test_rows(
        dir.path(),
        "flux",
        &["--offline", "--allow-missing-sources"],
    );
    let (result, message) = row(&rows, "Kustomization/flux-system/dashboards");
    assert_eq!(result, "SKIPPED", "{message}");
    assert!(message.contains(url), "{message}");
    assert!(
        message.contains("`dashboards/kustomization.yaml`"),
        "{message}"
    );
    assert_eq!(code, Some(0), "{rows:#?}");
    let (rows, code) = test_rows(dir.path(), "flux", &["--offline"]);
    assert_eq!(rows["Kustomization/flux-system/dashboards"].0, "FAIL");
    assert_eq!(code, Some(1));
}

/// The Flux Operator applies a ResourceSet's output the same way (`ApplyAllStaged`): a generated
/// object in an unserved version fails the ResourceSet and applies none of its output.
#[test]
fn a_resource_set_generating_an_unserved_version_fails_and_applies_nothing() {
    let dir = tempfile::tempdir().expect("tempdir");
    write(
        dir.path(),
        "flux/set.yaml",
        r#"apiVersion: fluxcd.controlplane.io/v1
kind: ResourceSet
metadata: {name: apps, namespace: flux-system}
spec:
  inputs:
    - name: web
  resources:
    - apiVersion: v1
      kind: ConfigMap
      metadata: {name: << inputs.name >>, namespace: flux-system}
    - apiVersion: source.toolkit.fluxcd.io/v1beta9
      kind: OCIRepository
      metadata: {name: << inputs.name >>, namespace: flux-system}
      spec: {interval: 1h, url: "oci://ghcr.io/example/web"}
"#,
    );
    let (rows, code) = test_rows(dir.path(), "flux", &["--offline"]);
    let (result, message) = row(&rows, "ResourceSet/flux-system/apps");
    assert_eq!(result, "FAIL", "{message}");
    assert!(
        message.starts_with(
            r#"OCIRepository/flux-system/web dry-run failed: no matches for kind "OCIRepository" in version "source.toolkit.fluxcd.io/v1beta9""#
        ),
        "{message}"
    );
    assert!(
        !rows.contains_key("OCIRepository/flux-system/web"),
        "{rows:?}"
    );
    assert_eq!(code, Some(1));
}

/// An OCIRepository is not fetched offline; when the chart cache holds its artifact (the chart at
/// its `ref`), the artifact is at hand: it passes with a note saying so, whichever of its
/// consumers a run reconciles. One whose chart is not cached stays SKIPPED, and so does its
/// release.
#[test]
fn an_oci_repository_whose_chart_came_from_the_cache_passes_with_a_note() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().join("repo");
    let cache = dir.path().join("cache");
    let oci = |name: &str| {
        format!(
            "apiVersion: source.toolkit.fluxcd.io/v1\nkind: OCIRepository\nmetadata: {{name: {name}, namespace: apps}}\nspec:\n  interval: 1h\n  url: oci://registry.example.com/charts/{name}\n  ref: {{tag: 1.0.0}}\n---\napiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {{name: {name}, namespace: apps}}\nspec:\n  interval: 1h\n  chartRef: {{kind: OCIRepository, name: {name}}}\n"
        )
    };
    write(&root, "apps/cached.yaml", &oci("cached"));
    write(&root, "apps/absent.yaml", &oci("absent"));
    write(
        &cache,
        "cached-1.0.0/Chart.yaml",
        "apiVersion: v2\nname: cached\nversion: 1.0.0\n",
    );
    write(
        &cache,
        "cached-1.0.0/templates/cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: '{{ .Release.Name }}'}\n",
    );
    let cache_arg = cache.display().to_string();
    let (rows, _) = test_rows(
        &root,
        "apps",
        &[
            "--offline",
            "--allow-missing-sources",
            "--chart-cache",
            &cache_arg,
        ],
    );
    assert_eq!(row(&rows, "HelmRelease/apps/cached").0, "PASS");
    let (result, message) = row(&rows, "OCIRepository/apps/cached");
    assert_eq!(result, "PASS", "{message}");
    assert_eq!(
        message,
        "not fetched offline: the chart cache holds its artifact (chart cached 1.0.0)"
    );
    assert_eq!(row(&rows, "HelmRelease/apps/absent").0, "SKIPPED");
    let (result, message) = row(&rows, "OCIRepository/apps/absent");
    assert_eq!(result, "SKIPPED", "{message}");
    assert!(message.starts_with("not fetched"), "{message}");
}

/// A source written in a file that nothing in the run applies (its kustomization leaves the file
/// out) does not exist in the cluster: its consumer FAILs "not found", with or without
/// `--allow-missing-sources`, as it does for a source defined nowhere. (Written under a producer
/// that did not render, it would be unavailable instead.)
#[test]
fn a_source_written_where_nothing_applies_it_is_not_found() {
    let dir = tempfile::tempdir().expect("tempdir");
    write(
        dir.path(),
        "flux/ks.yaml",
        "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: apps, namespace: flux-system}\nspec:\n  interval: 1h\n  path: ./apps\n  prune: true\n  sourceRef: {kind: GitRepository, name: flux-system}\n",
    );
    write(
        dir.path(),
        "apps/kustomization.yaml",
        "resources: [release.yaml]\n# - source.yaml\n",
    );
    write(
        dir.path(),
        "apps/source.yaml",
        "apiVersion: source.toolkit.fluxcd.io/v1\nkind: OCIRepository\nmetadata: {name: app, namespace: apps}\nspec:\n  interval: 1h\n  url: oci://registry.example.com/charts/app\n  ref: {tag: 1.0.0}\n",
    );
    write(
        dir.path(),
        "apps/release.yaml",
        "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {name: app, namespace: apps}\nspec:\n  interval: 1h\n  chartRef: {kind: OCIRepository, name: app}\n",
    );
    for flags in [
        &["--offline"][..],
        &["--offline", "--allow-missing-sources"],
    ] {
        let (rows, code) = test_rows(dir.path(), "flux", flags);
        let (result, message) = row(&rows, "HelmRelease/apps/app");
        assert_eq!(result, "FAIL", "{flags:?}: {message}");
        assert!(
            message.starts_with("source OCIRepository/apps/app not found"),
            "{message}"
        );
        assert_eq!(row(&rows, "Kustomization/flux-system/apps").0, "PASS");
        assert_eq!(code, Some(1));
    }
}

/// With `--allow-missing-sources`, while a producer that could not render offline might still
/// apply the missing source (a chart not in the cache may define one), its consumer is SKIPPED,
/// and the row names that producer.
#[test]
fn a_missing_source_another_unrendered_producer_might_apply_is_skipped_naming_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    write(
        dir.path(),
        "flux/ks.yaml",
        "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: apps, namespace: flux-system}\nspec:\n  interval: 1h\n  path: ./apps\n  prune: true\n  sourceRef: {kind: GitRepository, name: flux-system}\n",
    );
    write(
        dir.path(),
        "apps/release.yaml",
        "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {name: app, namespace: apps}\nspec:\n  interval: 1h\n  chartRef: {kind: OCIRepository, name: app}\n---\napiVersion: source.toolkit.fluxcd.io/v1\nkind: HelmRepository\nmetadata: {name: charts, namespace: apps}\nspec:\n  interval: 1h\n  url: https://charts.example.com\n---\napiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {name: uncached, namespace: apps}\nspec:\n  interval: 1h\n  chart:\n    spec:\n      chart: uncached\n      version: 1.0.0\n      sourceRef: {kind: HelmRepository, name: charts}\n",
    );
    let (rows, _) = test_rows(
        dir.path(),
        "flux",
        &["--offline", "--allow-missing-sources"],
    );
    assert_eq!(row(&rows, "HelmRelease/apps/uncached").0, "SKIPPED");
    let (result, message) = row(&rows, "HelmRelease/apps/app");
    assert_eq!(result, "SKIPPED", "{message}");
    assert!(
        message.starts_with("source OCIRepository/apps/app not found")
            && message.contains("skipped rather than failed: HelmRelease/apps/uncached"),
        "{message}"
    );
}
