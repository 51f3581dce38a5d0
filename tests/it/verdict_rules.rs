//! Flux's verdict on what a repository holds, row by row (issue 34, items 4 to 8): `.sourceignore`
//! as source-controller's archive applies it, sources the run produces found by every consumer,
//! what only the cluster holds assumed with a note instead of failing its producer. Each fixture
//! is the minimal form of a repro in `../shared/repros` (named at each test).

use std::collections::BTreeMap;
use std::path::Path;

use assert_cmd::Command;

pub(crate) fn write(root: &Path, file: &str, text: &str) {
    let path = root.join(file);
    std::fs::create_dir_all(path.parent().unwrap_or(root)).expect("mkdir");
    std::fs::write(path, text).expect("write");
}

/// `offlux ARGS --root .` in `root`; a run that hangs fails after a minute.
pub(crate) fn offlux(root: &Path, args: &[&str]) -> std::process::Output {
    Command::cargo_bin("offlux")
        .expect("binary")
        .env("NO_COLOR", "1")
        .current_dir(root)
        .args(args)
        .args(["--root", "."])
        .timeout(std::time::Duration::from_secs(60))
        .output()
        .expect("runs")
}

/// `offlux test -o json` at `path`: each row's `Kind/namespace/name` with its result and message.
pub(crate) fn test_rows(
    root: &Path,
    path: &str,
    extra: &[&str],
) -> BTreeMap<String, (String, String)> {
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
    rows.as_array()
        .expect("a list of rows")
        .iter()
        .map(|row| {
            let text = |key: &str| row[key].as_str().unwrap_or_default().to_owned();
            (
                format!("{}/{}/{}", text("kind"), text("namespace"), text("name")),
                (text("result"), text("message")),
            )
        })
        .collect()
}

/// The bootstrap GitRepository, as a file of its own or the first document of one.
pub(crate) const BOOTSTRAP_SOURCE: &str =
    "apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\n\
     metadata: {name: flux-system, namespace: flux-system}\n\
     spec: {interval: 1h, url: 'https://example.com/x.git', ref: {branch: main}}\n";

const ROOT_KS: &str = r#"apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: apps, namespace: flux-system}
spec:
  interval: 10m
  path: ./kubernetes/apps
  prune: true
  sourceRef: {kind: GitRepository, name: flux-system}
  postBuild:
    substituteFrom:
      - {kind: ConfigMap, name: cluster-config}
"#;

/// Repro c11: a file re-included inside an excluded directory is in the artifact (go-git's
/// matcher, last pattern wins, as `storage.Archive` walks into excluded directories); git's
/// rule (nothing comes back from under an excluded directory) would lose it.
#[test]
fn a_sourceignore_reinclusion_inside_an_excluded_directory_is_in_the_artifact() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    write(
        root,
        ".sourceignore",
        "/*\n!/kubernetes\n/kubernetes/clusters/**/secrets/\n\
         !/kubernetes/clusters/**/secrets/cluster-config.yaml\n",
    );
    write(root, "kubernetes/clusters/a/ks.yaml", ROOT_KS);
    write(
        root,
        "kubernetes/clusters/a/secrets/cluster-config.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cluster-config, namespace: flux-system}\n\
         data: {DOMAIN: example.com}\n",
    );
    // Excluded and not re-included: the walk must not see it (it would be a second definition).
    write(
        root,
        "kubernetes/clusters/a/secrets/other.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cluster-config, namespace: flux-system}\n\
         data: {DOMAIN: wrong.example}\n",
    );
    // Outside `kubernetes/`: excluded by `/*`.
    write(
        root,
        "docs/ks.yaml",
        &ROOT_KS.replace("name: apps", "name: docs"),
    );
    write(
        root,
        "kubernetes/apps/web.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: web, namespace: default}\n\
         data: {host: 'web.${DOMAIN}'}\n",
    );
    let rows = test_rows(root, "kubernetes/clusters/a", &[]);
    assert_eq!(
        rows.get("Kustomization/flux-system/apps")
            .map(|r| r.0.as_str()),
        Some("PASS"),
        "{rows:#?}"
    );
    assert_eq!(rows.len(), 1, "{rows:#?}");
    let output = offlux(
        root,
        &[
            "build",
            "ks",
            "apps",
            "-n",
            "flux-system",
            "--path",
            "kubernetes/clusters/a",
        ],
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("host: web.example.com"), "{stdout}");
}

/// Repro c1: a HelmRelease's `chartRef` to an ExternalArtifact an ArtifactGenerator produces in
/// the same run renders the chart the artifact holds (helm-controller v1.4+), as a
/// Kustomization's `sourceRef` to the same artifact builds.
#[test]
fn a_chart_ref_to_a_generated_external_artifact_renders() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    write(
        root,
        "charts/foo/Chart.yaml",
        "apiVersion: v2\nname: foo\nversion: 0.1.0\n",
    );
    write(
        root,
        "charts/foo/templates/cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\ndata:\n  a: b\n",
    );
    write(
        root,
        "clusters/hub/gen.yaml",
        "apiVersion: source.extensions.fluxcd.io/v1beta1\nkind: ArtifactGenerator\n\
         metadata: {name: foo-chart, namespace: flux-system}\nspec:\n  sources:\n\
         \x20   - {alias: repo, kind: GitRepository, name: flux-system}\n  artifacts:\n\
         \x20   - name: foo-chart\n      originRevision: '@repo'\n      copy:\n\
         \x20       - {from: '@repo/charts/foo/**', to: '@artifact/'}\n---\n\
         apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\n\
         metadata: {name: foo, namespace: flux-system}\nspec:\n  interval: 1h\n\
         \x20 chartRef: {kind: ExternalArtifact, name: foo-chart}\n",
    );
    let rows = test_rows(root, "clusters/hub", &["--offline"]);
    assert_eq!(
        rows.get("HelmRelease/flux-system/foo")
            .map(|r| r.0.as_str()),
        Some("PASS"),
        "{rows:#?}"
    );
    let output = offlux(
        root,
        &[
            "build",
            "hr",
            "foo",
            "-n",
            "flux-system",
            "--path",
            "clusters/hub",
            "--offline",
        ],
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains("kind: ConfigMap") && stdout.contains("name: foo"),
        "{stdout}"
    );
    // An ExternalArtifact no generator produces is not found: the release does not pass.
    write(
        root,
        "clusters/hub/gen.yaml",
        "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\n\
         metadata: {name: foo, namespace: flux-system}\nspec:\n  interval: 1h\n\
         \x20 chartRef: {kind: ExternalArtifact, name: nowhere}\n",
    );
    let rows = test_rows(root, "clusters/hub", &["--offline"]);
    let (result, message) = &rows["HelmRelease/flux-system/foo"];
    assert_ne!(result, "PASS", "{message}");
    assert!(
        message.contains("no ArtifactGenerator produces it"),
        "{message}"
    );
}

const TENANTS: &str = r#"apiVersion: fluxcd.controlplane.io/v1
kind: ResourceSet
metadata: {name: tenants, namespace: flux-system}
spec:
  inputs:
    - tenant: team-a
  resources:
    - apiVersion: v1
      kind: Namespace
      metadata: {name: << inputs.tenant >>}
    - apiVersion: v1
      kind: Secret
      metadata:
        name: registry-auth
        namespace: << inputs.tenant >>
        annotations:
          fluxcd.controlplane.io/copyFrom: flux-system/registry-auth
      type: kubernetes.io/dockerconfigjson
    - apiVersion: kustomize.toolkit.fluxcd.io/v1
      kind: Kustomization
      metadata: {name: apps, namespace: << inputs.tenant >>}
      spec:
        interval: 10m
        path: ./tenants/<< inputs.tenant >>
        prune: true
        sourceRef: {kind: GitRepository, name: flux-system, namespace: flux-system}
"#;

/// Repro c13: a ResourceSet `copyFrom` a Secret created when the cluster was provisioned, in no
/// repository file, is assumed held by the cluster: the set passes with a note saying so and what
/// it generates is reconciled.
#[test]
fn a_copy_from_what_only_the_cluster_holds_is_assumed_with_a_note() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    write(root, "clusters/dev/tenants.yaml", TENANTS);
    write(
        root,
        "tenants/team-a/cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: team-a}\n",
    );
    let rows = test_rows(root, "clusters/dev", &[]);
    let (result, message) = &rows["ResourceSet/flux-system/tenants"];
    assert_eq!(result, "PASS", "{message}");
    assert!(
        message.contains("Secret/flux-system/registry-auth to copy from is in no repository file")
            && message.contains("assumed held by the cluster"),
        "{message}"
    );
    assert_eq!(rows["Kustomization/team-a/apps"].0, "PASS", "{rows:#?}");
    // Defined in a repository file: copied from there, nothing assumed.
    write(
        root,
        "clusters/dev/registry.yaml",
        "apiVersion: v1\nkind: Secret\nmetadata: {name: registry-auth, namespace: flux-system}\n\
         stringData: {token: x}\n",
    );
    let rows = test_rows(root, "clusters/dev", &[]);
    let (result, message) = &rows["ResourceSet/flux-system/tenants"];
    assert_eq!((result.as_str(), message.as_str()), ("PASS", ""));
}

fn substitute_fixture(root: &Path, producer: &str) {
    write(
        root,
        "clusters/prod/ks.yaml",
        "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\n\
         metadata: {name: secrets, namespace: flux-system}\nspec:\n  interval: 1h\n  path: ./secrets\n\
         \x20 sourceRef: {kind: GitRepository, name: flux-system}\n---\n\
         apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\n\
         metadata: {name: app, namespace: flux-system}\nspec:\n  interval: 1h\n  path: ./app\n\
         \x20 targetNamespace: web\n  dependsOn: [{name: secrets}]\n\
         \x20 sourceRef: {kind: GitRepository, name: flux-system}\n  postBuild:\n    substituteFrom:\n\
         \x20     - {kind: Secret, name: cluster-secrets}\n",
    );
    write(root, "secrets/producer.yaml", producer);
    write(
        root,
        "app/cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: app}\ndata: {domain: '${SECRET_DOMAIN:=none}'}\n",
    );
}

/// A `substituteFrom` Secret that a ClusterExternalSecret (in every namespace it selects), an
/// ExternalSecret or 1Password's OnePasswordItem makes in the cluster is assumed, with a note
/// naming the producer; one nothing makes, or made in another namespace, still fails.
#[test]
fn a_substitute_from_secret_a_known_operator_makes_is_assumed_with_a_note() {
    let cases = [
        (
            "apiVersion: external-secrets.io/v1\nkind: ClusterExternalSecret\nmetadata: {name: cluster-secrets}\n\
             spec:\n  externalSecretName: cluster-secrets\n  namespaceSelectors: [{}]\n",
            Some("ClusterExternalSecret//cluster-secrets"),
        ),
        (
            "apiVersion: external-secrets.io/v1\nkind: ClusterExternalSecret\nmetadata: {name: cluster-secrets}\n\
             spec:\n  externalSecretName: cluster-secrets\n  namespaces: [other]\n",
            None,
        ),
        (
            "apiVersion: external-secrets.io/v1\nkind: ExternalSecret\nmetadata: {name: es, namespace: flux-system}\n\
             spec: {target: {name: cluster-secrets}}\n",
            Some("ExternalSecret/flux-system/es"),
        ),
        (
            "apiVersion: external-secrets.io/v1\nkind: ExternalSecret\nmetadata: {name: es, namespace: other}\n\
             spec: {target: {name: cluster-secrets}}\n",
            None,
        ),
        (
            "apiVersion: onepassword.com/v1\nkind: OnePasswordItem\n\
             metadata: {name: cluster-secrets, namespace: flux-system}\nspec: {itemPath: vaults/x/items/y}\n",
            Some("OnePasswordItem/flux-system/cluster-secrets"),
        ),
        (
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cluster-secrets, namespace: flux-system}\n",
            None,
        ),
    ];
    for (producer, expected) in cases {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path();
        substitute_fixture(root, producer);
        let rows = test_rows(root, "clusters/prod", &[]);
        let (result, message) = &rows["Kustomization/flux-system/app"];
        match expected {
            Some(producer) => {
                assert_eq!(result, "PASS", "{producer}: {message}");
                assert!(
                    message.contains(&format!(
                        "substitute from 'Secret/cluster-secrets': {producer} makes it in the cluster"
                    )),
                    "{message}"
                );
            }
            None => {
                assert_eq!(result, "FAIL", "{producer}: {message}");
                assert!(
                    message.contains("secret \"cluster-secrets\" not found"),
                    "{message}"
                );
            }
        }
    }
}

/// kustomize-controller joins `spec.path` as the object holds it (`reconcile`:
/// `securejoin.SecureJoin(tmpDir, obj.Spec.Path)`, then "kustomization path not found"): a
/// `${VAR:=default}` there is resolved only by the post-build of the Kustomization that applied
/// it (fluxcd/pkg's `SubstituteVariables`, which runs only when it has variables). Without one,
/// the child fails; with one, it builds the substituted path.
#[test]
fn a_variable_in_spec_path_is_resolved_only_by_the_parents_post_build() {
    let child = r#"apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: child, namespace: flux-system}
spec:
  interval: 10m
  path: ./apps/${ENV:=dev}
  prune: true
  sourceRef: {kind: GitRepository, name: flux-system}
"#;
    let parent = |post_build: &str| {
        format!(
            "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {{name: parent, namespace: flux-system}}\nspec:\n  interval: 10m\n  path: ./cluster\n  prune: true\n  sourceRef: {{kind: GitRepository, name: flux-system}}\n{post_build}"
        )
    };
    let config_map =
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x, namespace: default}\ndata: {a: b}\n";
    for (post_build, expected) in [
        ("", "FAIL"),
        // fluxcd/pkg's `SubstituteVariables` substitutes only when there are variables
        // (`if len(vars) > 0`): an empty map leaves the default unapplied.
        ("  postBuild:\n    substitute: {}\n", "FAIL"),
        ("  postBuild:\n    substitute: {ENV: dev}\n", "PASS"),
        // Variables from a ConfigMap nothing here writes (the cluster may hold it): offline
        // cannot tell, so the default is built, with a note.
        (
            "  postBuild:\n    substituteFrom:\n      - {kind: ConfigMap, name: settings, optional: true}\n",
            "PASS",
        ),
    ] {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path();
        write(root, "entry/parent.yaml", &parent(post_build));
        write(root, "cluster/child.yaml", child);
        write(root, "apps/dev/cm.yaml", config_map);
        let rows = test_rows(root, "entry", &[]);
        let (result, message) = rows
            .get("Kustomization/flux-system/child")
            .unwrap_or_else(|| panic!("{rows:?}"));
        assert_eq!(result, expected, "{post_build:?}: {message}");
        if expected == "FAIL" {
            assert!(
                message.contains("kustomization path not found"),
                "{message}"
            );
        }
        if post_build.contains("substituteFrom") {
            assert!(
                message.contains("no post-build substituted here") && message.contains("`./apps/dev`"),
                "{message}"
            );
        }
    }
}

/// A Kustomization in a file no Flux build reads (beside the entry, its kustomization file not
/// listing it: sulibot's `apps-old.yaml`) draws no warning about its `spec.path`; one listed does.
#[test]
fn a_file_no_build_reads_draws_no_spec_path_warning() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    let kustomization = |name: &str, path: &str| {
        format!(
            "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {{name: {name}, namespace: flux-system}}\nspec:\n  interval: 10m\n  path: {path}\n  prune: true\n  sourceRef: {{kind: GitRepository, name: flux-system}}\n"
        )
    };
    write(
        root,
        "clusters/prod/flux.yaml",
        &format!("{BOOTSTRAP_SOURCE}---\n{}", kustomization("apps", "./apps")),
    );
    write(
        root,
        "clusters/prod/apps-old.yaml",
        &kustomization("apps", "./manifests/gone"),
    );
    write(
        root,
        "clusters/prod/kustomization.yaml",
        "resources: [flux.yaml]\n",
    );
    write(
        root,
        "apps/cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: default}\n",
    );
    let output = offlux(root, &["test", "--path", "clusters/prod"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(!stderr.contains("manifests/gone"), "{stderr}");
    write(
        root,
        "clusters/prod/kustomization.yaml",
        "resources: [flux.yaml, apps-old.yaml]\n",
    );
    let output = offlux(root, &["test", "--path", "clusters/prod"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("`spec.path` `./manifests/gone` does not exist"),
        "{stderr}"
    );
}

/// A child that opts out of substitution (`kustomize.toolkit.fluxcd.io/substitute: disabled`)
/// keeps `${VAR:=default}` in its path even when its parent substitutes: fluxcd/pkg's
/// `SubstituteVariables` returns it untouched, and `reconcile` finds no such path.
#[test]
fn a_child_that_opts_out_of_substitution_keeps_the_variable_in_its_path() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    write(
        root,
        "entry/parent.yaml",
        "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: parent, namespace: flux-system}\nspec:\n  interval: 10m\n  path: ./cluster\n  prune: true\n  sourceRef: {kind: GitRepository, name: flux-system}\n  postBuild:\n    substitute: {OTHER: x}\n",
    );
    write(
        root,
        "cluster/child.yaml",
        "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: child\n  namespace: flux-system\n  annotations: {kustomize.toolkit.fluxcd.io/substitute: disabled}\nspec:\n  interval: 10m\n  path: ./apps/${ENV:=dev}\n  prune: true\n  sourceRef: {kind: GitRepository, name: flux-system}\n",
    );
    write(
        root,
        "apps/dev/cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x, namespace: default}\ndata: {a: b}\n",
    );
    let rows = test_rows(root, "entry", &[]);
    let (result, message) = rows
        .get("Kustomization/flux-system/child")
        .unwrap_or_else(|| panic!("{rows:?}"));
    assert_eq!(result, "FAIL", "{message}");
    assert!(
        message.contains("kustomization path not found: ./apps/${ENV:=dev}"),
        "{message}"
    );
}

/// The post-build that decides a `${VAR:=default}` in `spec.path` is that of the producer that
/// applied the Kustomization in the run. A Kustomization whose `spec.path` covers the child's
/// file but that nothing applies (its own file listed by no kustomization, as sulibot's
/// `tier-1-infrastructure/ks.yaml`) substitutes nothing: the child, applied by a parent without
/// `postBuild`, keeps the variable in its path and fails as kustomize-controller's `reconcile`
/// does.
#[test]
fn a_kustomization_nothing_applies_substitutes_nothing() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    let kustomization = |name: &str, path: &str, extra: &str| {
        format!(
            "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {{name: {name}, namespace: flux-system}}\nspec:\n  interval: 10m\n  path: {path}\n  prune: true\n  sourceRef: {{kind: GitRepository, name: flux-system}}\n{extra}"
        )
    };
    write(
        root,
        "clusters/prod/flux.yaml",
        &format!(
            "{BOOTSTRAP_SOURCE}---\n{}",
            kustomization("apps", "./apps", "")
        ),
    );
    write(root, "apps/kustomization.yaml", "resources: [./tier1]\n");
    write(
        root,
        "apps/tier1/ks.yaml",
        &kustomization(
            "tier1",
            "./apps/tier1",
            "  postBuild:\n    substitute: {MODE: \"false\"}\n",
        ),
    );
    write(
        root,
        "apps/tier1/kustomization.yaml",
        "resources: [child.yaml]\n",
    );
    write(
        root,
        "apps/tier1/child.yaml",
        &kustomization("child", "./apps/tier1/app-${MODE:=false}", ""),
    );
    write(
        root,
        "apps/tier1/app-false/cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm, namespace: default}\ndata: {a: b}\n",
    );
    let rows = test_rows(root, "clusters/prod", &[]);
    let (result, message) = rows
        .get("Kustomization/flux-system/child")
        .unwrap_or_else(|| panic!("{rows:?}"));
    assert_eq!(result, "FAIL", "{message}");
    assert!(
        message.contains("kustomization path not found: ./apps/tier1/app-${MODE:=false}"),
        "{message}"
    );
    assert!(
        !rows.contains_key("Kustomization/flux-system/tier1"),
        "{rows:?}"
    );

    // Listed, tier1 applies the child with its variables: the substituted path builds.
    write(
        root,
        "apps/tier1/kustomization.yaml",
        "resources: [ks.yaml]\n",
    );
    write(
        root,
        "apps/tier1/ks.yaml",
        &kustomization(
            "tier1",
            "./apps/tier1/inner",
            "  postBuild:\n    substitute: {MODE: \"false\"}\n",
        ),
    );
    std::fs::remove_file(root.join("apps/tier1/child.yaml")).expect("rm");
    write(
        root,
        "apps/tier1/inner/child.yaml",
        &kustomization("child", "./apps/tier1/app-${MODE:=false}", ""),
    );
    let rows = test_rows(root, "clusters/prod", &[]);
    let (result, message) = rows
        .get("Kustomization/flux-system/child")
        .unwrap_or_else(|| panic!("{rows:?}"));
    assert_eq!(result, "PASS", "{message}");
    assert!(!message.contains("no post-build substituted"), "{message}");
}

/// A HelmRelease blocked through the release it depends on names both: the root cause to fix,
/// and the dependency it waits on (`via`), which is what its `dependsOn` names.
#[test]
fn a_dependant_blocked_through_a_dependency_names_both() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    write(
        root,
        "cluster/kustomization.yaml",
        "resources: [releases.yaml]\n",
    );
    write(
        root,
        "cluster/releases.yaml",
        r#"apiVersion: source.toolkit.fluxcd.io/v1
kind: OCIRepository
metadata: {name: storage, namespace: system}
spec:
  interval: 1h
  url: oci://registry.example.com/charts/storage
  ref: {tag: 1.0.0}
---
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata: {name: storage, namespace: system}
spec:
  interval: 1h
  chartRef: {kind: OCIRepository, name: storage}
---
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata: {name: app, namespace: system}
spec:
  interval: 1h
  dependsOn: [{name: storage}]
  chartRef: {kind: OCIRepository, name: storage}
"#,
    );
    let rows = test_rows(root, "cluster", &["--offline"]);
    let (result, message) = &rows["HelmRelease/system/app"];
    assert_eq!(result, "BLOCKED", "{rows:?}");
    assert!(
        message.starts_with(
            "blocked by OCIRepository/system/storage (via HelmRelease/system/storage): "
        ),
        "{message}"
    );
    let (result, message) = &rows["HelmRelease/system/storage"];
    assert_eq!(result, "BLOCKED", "{rows:?}");
    assert!(
        message.starts_with("blocked by OCIRepository/system/storage: "),
        "no `via` when the dependency is the root cause: {message}"
    );
}

/// kustomize-controller's `checkDependencies` wants a dependency of the same source to have applied
/// the source's current revision; a suspended one never applies a new one, so what `dependsOn` it
/// is held ("revision is not up to date"). One of another source is only checked for Ready.
#[test]
fn a_dependency_that_is_suspended_holds_its_dependants_of_the_same_source() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    std::fs::create_dir_all(root.join(".git")).expect("mkdir");
    let kustomization = |name: &str, source: &str, extra: &str| {
        format!(
            "---\napiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\n\
             metadata: {{name: {name}, namespace: flux-system}}\nspec:\n  interval: 1h\n  \
             path: ./apps\n  prune: true\n  sourceRef: {{kind: GitRepository, name: {source}}}\n{extra}"
        )
    };
    let mut cluster = String::from(BOOTSTRAP_SOURCE);
    cluster += &kustomization("paused", "flux-system", "  suspend: true\n");
    cluster += &kustomization("held", "flux-system", "  dependsOn:\n    - name: paused\n");
    cluster += &kustomization(
        "other-source",
        "other",
        "  dependsOn:\n    - name: paused\n",
    );
    // A `readyExpr` alone decides (`checkDependencies` skips the other checks).
    cluster += &kustomization(
        "with-expression",
        "flux-system",
        "  dependsOn:\n    - name: paused\n      readyExpr: 'true'\n",
    );
    cluster += "---\napiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\n\
                metadata: {name: other, namespace: flux-system}\n\
                spec: {interval: 1h, url: 'https://example.com/x.git', ref: {branch: main}}\n";
    write(root, "clusters/c1/flux.yaml", &cluster);
    write(
        root,
        "apps/cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: app, namespace: default}\n",
    );
    let rows = test_rows(
        root,
        "clusters/c1",
        &["--offline", "--allow-missing-sources"],
    );
    let row = |key: &str| {
        rows.get(key)
            .cloned()
            .unwrap_or_else(|| panic!("{key}: {rows:#?}"))
    };
    assert_eq!(row("Kustomization/flux-system/paused").0, "SKIPPED");
    let (result, message) = row("Kustomization/flux-system/held");
    assert_eq!(result, "BLOCKED", "{message}");
    assert!(
        message.contains("dependency 'flux-system/paused' revision is not up to date"),
        "{message}"
    );
    for name in ["other-source", "with-expression"] {
        let (result, message) = row(&format!("Kustomization/flux-system/{name}"));
        assert_ne!(result, "BLOCKED", "{name}: {message}");
        assert!(!message.contains("not up to date"), "{name}: {message}");
    }
}

/// The entry directory's kustomization file decides what a bootstrap applies (the Kustomization
/// `flux bootstrap` makes for it builds that file, and kustomize reads only what it lists): a
/// file beside it that it does not list is not applied, and an object defined in both places is
/// the listed one.
#[test]
fn what_the_entrys_kustomization_does_not_list_is_not_applied() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    std::fs::create_dir_all(root.join(".git")).expect("mkdir");
    let kustomization = |name: &str, path: &str| {
        format!(
            "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\n\
             metadata: {{name: {name}, namespace: flux-system}}\nspec:\n  interval: 1h\n  \
             path: {path}\n  prune: true\n  sourceRef: {{kind: GitRepository, name: flux-system}}\n"
        )
    };
    write(root, "clusters/prod/repo.yaml", BOOTSTRAP_SOURCE);
    write(
        root,
        "clusters/prod/apps.yaml",
        &kustomization("apps", "./apps"),
    );
    write(
        root,
        "clusters/prod/a-stale-apps.yaml",
        &kustomization("apps", "./old-apps"),
    );
    write(
        root,
        "clusters/prod/core.yaml",
        &kustomization("core", "./core"),
    );
    write(
        root,
        "clusters/prod/kustomization.yaml",
        "resources:\n  - repo.yaml\n  - apps.yaml\n",
    );
    write(
        root,
        "apps/cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: app, namespace: default}\n",
    );
    let output = offlux(root, &["test", "--path", "clusters/prod", "-o", "json"]);
    let rows: serde_json::Value = serde_json::from_slice(&output.stdout).expect("JSON rows");
    let rows = rows.as_array().expect("rows");
    let names: Vec<String> = rows
        .iter()
        .map(|row| {
            format!(
                "{}/{}",
                row["kind"].as_str().unwrap_or(""),
                row["name"].as_str().unwrap_or("")
            )
        })
        .collect();
    // The bootstrap's own Kustomization, not written here, is the one that builds the entry.
    assert_eq!(
        names,
        [
            "GitRepository/flux-system",
            "Kustomization/apps",
            "Kustomization/flux-system"
        ],
        "{rows:#?}"
    );
    let apps = &rows[1];
    assert_eq!(apps["result"], "PASS", "{apps:#?}");
    assert_eq!(apps["file"], "clusters/prod/apps.yaml", "{apps:#?}");
    assert_eq!(apps["line"], 1, "{apps:#?}");
    let bootstrap = &rows[2];
    assert_eq!(bootstrap["result"], "PASS", "{bootstrap:#?}");
    assert_eq!(
        bootstrap["file"], "clusters/prod/kustomization.yaml",
        "{bootstrap:#?}"
    );
    assert!(
        (bootstrap["message"].as_str().unwrap_or_default()).starts_with(
            "not in the repository: the Kustomization a bootstrap makes for `clusters/prod`"
        ),
        "{bootstrap:#?}"
    );
}

/// The Kustomization a bootstrap makes for the entry directory builds its kustomization file
/// (kustomize-controller's `build` of the bootstrap's `spec.path`): a file it lists that is not
/// there fails the whole cluster, and its patches shape the Kustomizations it applies. A
/// kustomization file above the cluster's Kustomizations that lists them is that entry.
#[test]
fn the_entrys_kustomization_file_is_built_by_the_bootstraps_kustomization() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    std::fs::create_dir_all(root.join(".git")).expect("mkdir");
    write(
        root,
        "clusters/prod/flux/apps.yaml",
        "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\n\
         metadata: {name: apps, namespace: flux-system}\nspec:\n  interval: 1h\n  \
         path: ./apps\n  prune: true\n  sourceRef: {kind: GitRepository, name: flux-system}\n",
    );
    write(
        root,
        "apps/cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: app, namespace: default}\n",
    );
    let listing = "resources:\n  - flux/apps.yaml\n";
    let suspending = "patches:\n  - target: {kind: Kustomization, name: apps}\n    \
                      patch: '[{\"op\": \"add\", \"path\": \"/spec/suspend\", \"value\": true}]'\n";
    // Listed through the entry's kustomization file, above the Kustomization's own directory.
    write(
        root,
        "clusters/prod/kustomization.yaml",
        &format!("{listing}  - missing.yaml\n"),
    );
    for path in [".", "clusters/prod"] {
        let rows = test_rows(root, path, &[]);
        assert_eq!(rows.len(), 1, "{path}: {rows:#?}");
        let (result, message) = &rows["Kustomization/flux-system/flux-system"];
        assert_eq!(result, "FAIL", "{path}: {rows:#?}");
        assert!(message.contains("missing.yaml"), "{message}");
        assert!(
            message.contains("not in the repository: the Kustomization a bootstrap makes"),
            "{message}"
        );
    }
    write(
        root,
        "clusters/prod/kustomization.yaml",
        &format!("{listing}{suspending}"),
    );
    let rows = test_rows(root, ".", &[]);
    assert_eq!(
        rows["Kustomization/flux-system/flux-system"].0, "PASS",
        "{rows:#?}"
    );
    assert_eq!(
        rows["Kustomization/flux-system/apps"],
        ("SKIPPED".to_owned(), "suspended".to_owned()),
        "{rows:#?}"
    );
    // A directory of releases is some Kustomization's path, not a bootstrap's: run from it,
    // nothing is implied.
    write(
        root,
        "releases/kustomization.yaml",
        "resources: [release.yaml]\n",
    );
    write(
        root,
        "releases/release.yaml",
        "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\n\
         metadata: {name: app, namespace: default}\nspec:\n  interval: 1h\n  \
         chart: {spec: {chart: ./charts/app, sourceRef: {kind: GitRepository, name: flux-system, namespace: flux-system}}}\n",
    );
    let rows = test_rows(root, "releases", &["--allow-missing-sources"]);
    assert!(
        !rows.contains_key("Kustomization/flux-system/flux-system"),
        "{rows:#?}"
    );
    assert!(rows.contains_key("HelmRelease/default/app"), "{rows:#?}");
}

/// Without `.git` the root is a guess (the entry itself): a `spec.path` written from the
/// checkout's top is then not found, and a warning says why and names `--root`.
#[test]
fn a_guessed_root_is_named_when_a_spec_path_is_not_found() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    write(
        root,
        "clusters/prod/flux.yaml",
        "apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\n\
         metadata: {name: flux-system, namespace: flux-system}\n\
         spec: {interval: 1h, url: 'https://example.com/x.git', ref: {branch: main}}\n---\n\
         apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\n\
         metadata: {name: apps, namespace: flux-system}\n\
         spec: {interval: 1h, path: ./apps, prune: true, sourceRef: {kind: GitRepository, name: flux-system}}\n",
    );
    write(
        root,
        "apps/cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: app, namespace: default}\n",
    );
    let run = |extra: &[&str]| {
        let output = Command::cargo_bin("offlux")
            .expect("binary")
            .env("NO_COLOR", "1")
            .current_dir(root)
            .args(["test", "--path", "clusters/prod", "--offline"])
            .args(extra)
            .output()
            .expect("runs");
        String::from_utf8_lossy(&output.stderr).into_owned()
    };
    let guessed = run(&[]);
    assert!(
        guessed.contains("no `.git` was found at or above")
            && guessed.contains("pass `--root` with the checkout's top"),
        "{guessed}"
    );
    let given = run(&["--root", "."]);
    assert!(!given.contains("no `.git`"), "{given}");
}

/// A chart whose copy in the chart cache lacks a dependency it declares from a repository (a
/// checkout of the chart's sources, not the package the repository serves) takes it from the
/// chart cache, as source-controller's dependency manager fetches it; one the cache lacks too
/// is unavailable offline (SKIPPED with `--allow-missing-sources`), naming it; one without a
/// repository must be vendored, and Helm's check fails the release.
#[test]
fn a_cached_charts_missing_dependencies_come_from_the_chart_cache() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    std::fs::create_dir_all(root.join(".git")).expect("mkdir");
    let charts = root.join("charts-cache");
    let chart = |name: &str, dependencies: &str| {
        write(
            &charts,
            &format!("{name}-1.0.0/Chart.yaml"),
            &format!("apiVersion: v2\nname: {name}\nversion: 1.0.0\n{dependencies}"),
        );
        write(
            &charts,
            &format!("{name}-1.0.0/templates/cm.yaml"),
            &format!(
                "apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: {name}-{{{{ .Release.Name }}}}}}\n"
            ),
        );
    };
    chart("lib", "");
    let from_repository = |name: &str| {
        format!(
            "  - name: {name}\n    version: 1.0.0\n    repository: https://example.com/charts\n"
        )
    };
    chart(
        "whole",
        &format!("dependencies:\n{}", from_repository("lib")),
    );
    chart(
        "lacking",
        &format!("dependencies:\n{}", from_repository("gone")),
    );
    chart(
        "unvendored",
        "dependencies:\n  - name: local\n    version: 1.0.0\n",
    );
    let release = |name: &str| {
        format!(
            "---\napiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\n\
             metadata: {{name: {name}, namespace: default}}\nspec:\n  interval: 1h\n  chart:\n    \
             spec:\n      chart: {name}\n      version: 1.0.0\n      \
             sourceRef: {{kind: HelmRepository, name: charts, namespace: flux-system}}\n"
        )
    };
    let mut cluster = String::from(
        "apiVersion: source.toolkit.fluxcd.io/v1\nkind: HelmRepository\n\
         metadata: {name: charts, namespace: flux-system}\n\
         spec: {interval: 1h, url: 'https://example.com/charts'}\n",
    );
    for name in ["whole", "lacking", "unvendored"] {
        cluster += &release(name);
    }
    write(root, "clusters/c1/releases.yaml", &cluster);
    let cache = charts.to_str().expect("utf-8");
    let flags = [
        "--offline",
        "--allow-missing-sources",
        "--chart-cache",
        cache,
    ];
    let rows = test_rows(root, "clusters/c1", &flags);
    let row = |key: &str| {
        rows.get(key)
            .cloned()
            .unwrap_or_else(|| panic!("{key}: {rows:#?}"))
    };
    assert_eq!(row("HelmRelease/default/whole").0, "PASS");
    // Offline the repository itself is never read: its row says so.
    assert_eq!(
        row("HelmRepository/flux-system/charts"),
        (
            "PASS".to_owned(),
            "not fetched offline: its releases take their charts from the chart cache (their rows say what came of it)".to_owned()
        )
    );
    let (result, message) = row("HelmRelease/default/lacking");
    assert_eq!(result, "SKIPPED", "{message}");
    assert!(
        message.contains("its dependency gone 1.0.0 from https://example.com/charts is not in its `charts/` directory"),
        "{message}"
    );
    // The source gave the chart: the dependency's repository, no object of the run, is missing.
    let output = offlux(
        root,
        &[&["test", "--path", "clusters/c1", "-o", "json"][..], &flags].concat(),
    );
    let listed: serde_json::Value = serde_json::from_slice(&output.stdout).expect("JSON rows");
    let lacking = (listed.as_array().expect("rows").iter())
        .find(|row| row["name"] == "lacking")
        .expect("a row for lacking");
    assert!(lacking.get("blockedBy").is_none(), "{lacking:#?}");
    let (result, message) = row("HelmRelease/default/unvendored");
    assert_eq!(result, "FAIL", "{message}");
    assert!(
        message.contains("missing in charts/ directory: local"),
        "{message}"
    );
    // The dependency's objects are rendered with the chart's.
    let output = offlux(
        root,
        &[
            "build",
            "hr",
            "whole",
            "--path",
            "clusters/c1",
            "--offline",
            "--chart-cache",
            cache,
        ],
    );
    let built = String::from_utf8_lossy(&output.stdout);
    assert!(
        built.contains("name: lib-whole") && built.contains("name: whole-whole"),
        "{built}"
    );
}

/// A failure passed up a chain of any length names the root cause and the dependency the row's
/// own `dependsOn` names (Flux's message: "dependency '…' is not ready").
#[test]
fn a_dependant_at_the_end_of_a_long_chain_names_its_own_dependency() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    std::fs::create_dir_all(root.join(".git")).expect("mkdir");
    write(
        root,
        "charts/bad/Chart.yaml",
        "apiVersion: v2\nname: bad\nversion: 0.1.0\n",
    );
    write(root, "charts/bad/templates/x.yaml", "{{ fail \"boom\" }}\n");
    let release = |name: &str, after: Option<&str>| {
        let depends =
            after.map_or_else(String::new, |a| format!("  dependsOn:\n    - name: {a}\n"));
        format!(
            "---\napiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\n\
             metadata: {{name: {name}, namespace: flux-system}}\nspec:\n  interval: 1h\n{depends}  \
             chart:\n    spec:\n      chart: ./charts/bad\n      \
             sourceRef: {{kind: GitRepository, name: flux-system}}\n"
        )
    };
    let mut cluster = String::from(BOOTSTRAP_SOURCE);
    cluster += &release("first", None);
    cluster += &release("second", Some("first"));
    cluster += &release("third", Some("second"));
    cluster += &release("fourth", Some("third"));
    write(root, "clusters/c1/flux.yaml", &cluster);
    let rows = test_rows(root, "clusters/c1", &["--offline"]);
    for (name, via) in [("third", "second"), ("fourth", "third")] {
        let (result, message) = rows[&format!("HelmRelease/flux-system/{name}")].clone();
        assert_eq!(result, "BLOCKED", "{message}");
        assert!(
            message.starts_with(&format!(
                "blocked by HelmRelease/flux-system/first (via HelmRelease/flux-system/{via}): "
            )),
            "{name}: {message}"
        );
    }
}
