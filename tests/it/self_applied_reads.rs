//! What a Kustomization reads that it (or one it applies) applies itself, where a source's path
//! lies, and which namespace a namespace-less object is known by (issue 34, requirements 1-3;
//! repros c2, c3, c4 and c12).
//!
//! kustomize-controller reads a Kustomization's source and its `substituteFrom` objects from the
//! cluster (`KustomizationReconciler.reconcile` gets the source, `SubstituteVariables` loads the
//! variables after the build), where the bootstrap or the previous apply left them: reading what
//! it applies itself is no dependency cycle. Only `dependsOn` makes one.

use std::path::Path;

use assert_cmd::Command;
use serde_json::Value;

fn write(root: &Path, file: &str, text: &str) {
    let path = root.join(file);
    std::fs::create_dir_all(path.parent().unwrap_or(root)).expect("mkdir");
    std::fs::write(path, text).expect("write");
}

/// `offlux test -o json` from `path`, as `(rows "Kind ns/name RESULT message", stderr)`.
fn test_rows(root: &Path, path: &str, extra: &[&str]) -> (Vec<String>, String) {
    let output = Command::cargo_bin("offlux")
        .expect("binary")
        .env("NO_COLOR", "1")
        .args(["test", "-o", "json", "--offline", "--path"])
        .arg(root.join(path))
        .arg("--root")
        .arg(root)
        .args(extra)
        .output()
        .expect("runs");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    let rows: Value =
        serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout}\n{stderr}"));
    let rows = rows
        .as_array()
        .expect("a list of rows")
        .iter()
        .map(|row| {
            format!(
                "{} {}/{} {} {}",
                row["kind"].as_str().unwrap_or(""),
                row["namespace"].as_str().unwrap_or(""),
                row["name"].as_str().unwrap_or(""),
                row["result"].as_str().unwrap_or(""),
                row["message"].as_str().unwrap_or(""),
            )
        })
        .collect();
    (rows, stderr)
}

fn kustomization(name: &str, path: &str, source: &str, extra: &str) -> String {
    format!(
        "---\napiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: {name}\n  namespace: flux-system\nspec:\n  interval: 1h\n  path: {path}\n  prune: true\n  sourceRef:\n    kind: GitRepository\n    name: {source}\n{extra}"
    )
}

fn substitute_from(kind: &str, name: &str, optional: bool) -> String {
    format!(
        "  postBuild:\n    substituteFrom:\n      - kind: {kind}\n        name: {name}\n        optional: {optional}\n"
    )
}

/// `flux/ks.yaml` applies `apps/`, which holds the object it substitutes from (`settings`, a
/// namespace-less ConfigMap or Secret put in `flux-system` by the kustomization's `namespace:`)
/// and a ConfigMap using `${DOMAIN}`.
fn self_substitution(root: &Path, kind: &str, optional: bool) {
    write(
        root,
        "flux/ks.yaml",
        &kustomization(
            "cluster-apps",
            "./apps",
            "flux-system",
            &substitute_from(kind, "cluster-settings", optional),
        ),
    );
    write(
        root,
        "apps/kustomization.yaml",
        "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nnamespace: flux-system\nresources: [settings.yaml, demo.yaml]\n",
    );
    let data = if kind == "Secret" {
        "stringData: {DOMAIN: example.com}"
    } else {
        "data: {DOMAIN: example.com}"
    };
    write(
        root,
        "apps/settings.yaml",
        &format!("apiVersion: v1\nkind: {kind}\nmetadata: {{name: cluster-settings}}\n{data}\n"),
    );
    write(
        root,
        "apps/demo.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: demo}\ndata: {host: 'app.${DOMAIN}'}\n",
    );
}

fn rendered_demo(root: &Path, extra: &[&str]) -> String {
    let output = Command::cargo_bin("offlux")
        .expect("binary")
        .args([
            "build",
            "ks",
            "cluster-apps",
            "-n",
            "flux-system",
            "--offline",
            "--path",
        ])
        .arg(root.join("flux"))
        .arg("--root")
        .arg(root)
        .args(extra)
        .output()
        .expect("runs");
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn substitute_from_an_object_the_kustomization_applies_itself_is_no_cycle() {
    for kind in ["ConfigMap", "Secret"] {
        for optional in [false, true] {
            for extra in [&[][..], &["--substitute", "OTHER=x"][..]] {
                let dir = tempfile::tempdir().expect("tempdir");
                self_substitution(dir.path(), kind, optional);
                let (rows, stderr) = test_rows(dir.path(), "flux", extra);
                let case = format!("{kind} optional={optional} {extra:?}");
                assert_eq!(rows.len(), 1, "{case}: {rows:?}\n{stderr}");
                assert!(
                    rows[0]
                        .starts_with("Kustomization flux-system/cluster-apps PASS substituteFrom")
                        && rows[0].contains(&format!(
                            "{kind}/flux-system/cluster-settings is applied by this Kustomization"
                        ))
                        && rows[0].contains("as the repository defines it in `apps/settings.yaml`"),
                    "{case}: {rows:?}\n{stderr}"
                );
                assert!(!stderr.contains("cycle"), "{case}: {stderr}");
                assert!(
                    rendered_demo(dir.path(), extra).contains("host: app.example.com"),
                    "{case}: the variables are the repository's"
                );
            }
        }
    }
}

#[test]
fn substitute_from_file_supplies_a_self_applied_object_and_says_so() {
    let dir = tempfile::tempdir().expect("tempdir");
    self_substitution(dir.path(), "ConfigMap", false);
    let supplied = dir.path().join("supplied.yaml");
    std::fs::write(
        &supplied,
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cluster-settings}\ndata: {DOMAIN: supplied.org}\n",
    )
    .expect("write");
    let supplied = supplied.to_string_lossy().into_owned();
    let extra = ["--substitute-from", supplied.as_str()];
    let (rows, stderr) = test_rows(dir.path(), "flux", &extra);
    assert!(
        rows.len() == 1
            && rows[0].contains("PASS")
            && rows[0].contains("as `--substitute-from` supplies it"),
        "{rows:?}\n{stderr}"
    );
    assert!(rendered_demo(dir.path(), &extra).contains("host: app.supplied.org"));
}

#[test]
fn an_ancestor_ring_applying_the_substitute_from_object_is_no_cycle() {
    // flux-system applies `clusters/prod` (its own file and `cluster`), `cluster` applies
    // `clusters/prod/config`, which holds the settings flux-system substitutes from.
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    write(
        root,
        "clusters/prod/flux-system.yaml",
        &kustomization(
            "flux-system",
            "./clusters/prod",
            "flux-system",
            &substitute_from("ConfigMap", "cluster-settings", false),
        ),
    );
    write(
        root,
        "clusters/prod/kustomization.yaml",
        "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [flux-system.yaml, cluster.yaml]\n",
    );
    write(
        root,
        "clusters/prod/cluster.yaml",
        &kustomization("cluster", "./clusters/prod/config", "flux-system", ""),
    );
    write(
        root,
        "clusters/prod/config/settings.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cluster-settings, namespace: flux-system}\ndata: {DOMAIN: example.com}\n",
    );
    let (rows, stderr) = test_rows(root, "clusters/prod", &[]);
    assert!(!stderr.contains("cycle"), "{rows:?}\n{stderr}");
    assert!(
        rows.iter().all(|r| r.contains(" PASS")),
        "{rows:?}\n{stderr}"
    );
    assert!(
        rows.iter().any(|r| r.starts_with("Kustomization flux-system/flux-system PASS substituteFrom ConfigMap/flux-system/cluster-settings is applied by this Kustomization (or one it applies)")),
        "{rows:?}"
    );
}

#[test]
fn depends_on_still_makes_a_cycle() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    write(
        root,
        "flux/ks.yaml",
        &(kustomization("a", "./a", "flux-system", "  dependsOn: [{name: b}]\n")
            + &kustomization("b", "./b", "flux-system", "  dependsOn: [{name: a}]\n")),
    );
    write(
        root,
        "a/cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: default}\n",
    );
    write(
        root,
        "b/cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: b, namespace: default}\n",
    );
    let (rows, _) = test_rows(root, "flux", &[]);
    assert!(
        rows.iter().all(|r| r.contains(" FAIL dependency cycle")),
        "{rows:?}"
    );
}

/// The root Kustomization applies the GitRepository it reads, under a name other than
/// `flux-system`, pointing at this repository (its git remote).
#[test]
fn a_root_kustomization_applying_its_own_source_is_no_cycle() {
    for name in ["home-ops", "flux-system"] {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path();
        write(
            root,
            ".git/config",
            "[remote \"origin\"]\n\turl = https://github.com/example/home-ops\n",
        );
        let source = format!(
            "---\napiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata:\n  name: {name}\n  namespace: flux-system\nspec:\n  interval: 1h\n  url: ssh://git@github.com/example/home-ops.git\n  ref: {{branch: main}}\n"
        );
        write(
            root,
            "kubernetes/cluster/sync.yaml",
            &(source + &kustomization("cluster", "./kubernetes/cluster", name, "")),
        );
        write(
            root,
            "kubernetes/cluster/apps.yaml",
            &kustomization("apps", "./kubernetes/apps", name, ""),
        );
        write(
            root,
            "kubernetes/apps/cm.yaml",
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: hello, namespace: default}\n",
        );
        let (rows, stderr) = test_rows(root, "kubernetes/cluster", &[]);
        assert!(!stderr.contains("cycle"), "{name}: {rows:?}\n{stderr}");
        assert_eq!(
            rows.iter().filter(|r| r.contains(" PASS")).count(),
            3,
            "{name}: {rows:?}\n{stderr}"
        );
        if name != "flux-system" {
            assert!(
                rows.iter().any(|r| r.starts_with(&format!("Kustomization flux-system/cluster PASS GitRepository/flux-system/{name} is applied by this Kustomization"))),
                "{name}: {rows:?}"
            );
        } else {
            // The standard bootstrap reads its own source from this working tree: saying so on
            // every repository's row would only be noise.
            assert!(
                rows.iter()
                    .all(|r| !r.contains("is applied by this Kustomization")),
                "{name}: {rows:?}"
            );
        }
    }
}

/// The same self-managing layout in a copy without `.git` (an archive, a CI cache): nothing says
/// the GitRepository is this repository, so it is not read from here; the row says how to say it,
/// and with `--sources NAME` the tree reconciles as from a checkout.
#[test]
fn a_self_managing_source_without_a_remote_says_how_to_map_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    let source = "---\napiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata:\n  name: home-ops\n  namespace: flux-system\nspec:\n  interval: 1h\n  url: https://github.com/example/home-ops\n  ref: {branch: main}\n";
    write(
        root,
        "kubernetes/cluster/sync.yaml",
        &(source.to_owned() + &kustomization("cluster", "./kubernetes/cluster", "home-ops", "")),
    );
    write(
        root,
        "kubernetes/apps/cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: hello, namespace: default}\n",
    );
    let (rows, stderr) = test_rows(root, "kubernetes/cluster", &["--allow-missing-sources"]);
    assert!(
        rows.iter().any(
            |r| r.starts_with("Kustomization flux-system/cluster SKIPPED")
                && r.contains("`--sources home-ops` reads it from the working tree")
        ),
        "{rows:?}\n{stderr}"
    );
    let (rows, stderr) = test_rows(root, "kubernetes/cluster", &["--sources", "home-ops"]);
    assert!(
        rows.iter()
            .any(|r| r.starts_with("Kustomization flux-system/cluster PASS")),
        "{rows:?}\n{stderr}"
    );
}

/// Repro c4: a Kustomization of another repository's GitRepository, without `spec.path`, reads
/// that repository's root, never this working tree: it is SKIPPED offline, and another
/// cluster's Kustomization in this tree is not attributed to it.
#[test]
fn a_source_path_belongs_to_that_source() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    write(
        root,
        "clusters/a/ks.yaml",
        &kustomization("only-in-cluster-a", "./nowhere", "flux-system", ""),
    );
    let upstream = "---\napiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata:\n  name: upstream-crds\n  namespace: flux-system\nspec:\n  interval: 12h\n  url: https://github.com/example/operator.git\n  ref: {tag: v1.0.0}\n---\napiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: upstream-crds\n  namespace: flux-system\nspec:\n  interval: 1h\n  prune: true\n  sourceRef: {kind: GitRepository, name: upstream-crds}\n";
    write(root, "clusters/b/ks.yaml", upstream);
    let (rows, stderr) = test_rows(root, "clusters/b", &["--allow-missing-sources"]);
    assert_eq!(
        rows.iter()
            .map(|r| r.split(' ').take(3).collect::<Vec<_>>().join(" "))
            .collect::<Vec<_>>(),
        [
            "GitRepository flux-system/upstream-crds SKIPPED",
            "Kustomization flux-system/upstream-crds SKIPPED",
        ],
        "{stderr}"
    );
    assert!(!stderr.contains("does not exist"), "{stderr}");
    // The same with a `spec.path`: it is that repository's path, not looked for here.
    write(
        root,
        "clusters/b/ks.yaml",
        &upstream.replace("  prune: true\n", "  prune: true\n  path: ./config/crd\n"),
    );
    let (rows, stderr) = test_rows(root, "clusters/b", &["--allow-missing-sources"]);
    assert_eq!(rows.len(), 2, "{rows:?}");
    assert!(!stderr.contains("does not exist"), "{stderr}");
    // Mapped to a directory of this tree (`--sources`), its path is followed there.
    write(
        root,
        "vendor/operator/config/crd/cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: from-upstream, namespace: default}\n",
    );
    let mapping = format!("upstream-crds={}", root.join("vendor/operator").display());
    let (rows, stderr) = test_rows(root, "clusters/b", &["--sources", &mapping]);
    assert!(
        rows.iter()
            .any(|r| r.starts_with("Kustomization flux-system/upstream-crds PASS")),
        "{rows:?}\n{stderr}"
    );
}

/// Repro c3: a namespace-less FluxInstance applied by a Kustomization with `targetNamespace` is
/// one row, in that namespace (here also the instance that syncs the cluster: a ring).
#[test]
fn a_namespace_less_object_is_one_row_in_its_real_namespace() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    write(
        root,
        "clusters/b/flux/sync.yaml",
        &(kustomization("apps", "./clusters/b/apps", "flux-system", "")
            + &kustomization(
                "flux-instance",
                "./clusters/b/apps/fi",
                "flux-system",
                "  targetNamespace: flux-system\n",
            )),
    );
    write(
        root,
        "clusters/b/apps/kustomization.yaml",
        "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [app/cm.yaml]\n",
    );
    write(
        root,
        "clusters/b/apps/app/cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: only-in-b, namespace: default}\n",
    );
    write(
        root,
        "clusters/b/apps/fi/kustomization.yaml",
        "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [instance.yaml, release.yaml]\n",
    );
    write(
        root,
        "clusters/b/apps/fi/instance.yaml",
        "apiVersion: fluxcd.controlplane.io/v1\nkind: FluxInstance\nmetadata:\n  name: flux\nspec:\n  distribution: {version: 2.7.x, registry: ghcr.io/fluxcd}\n  sync: {kind: GitRepository, url: 'https://example.com/repo.git', ref: refs/heads/main, path: ./clusters/b/flux}\n",
    );
    write(
        root,
        "clusters/b/apps/fi/release.yaml",
        "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: podinfo\nspec:\n  interval: 1h\n  chart:\n    spec: {chart: podinfo, sourceRef: {kind: HelmRepository, name: podinfo}}\n",
    );
    let (rows, stderr) = test_rows(root, "clusters/b/flux", &["--allow-missing-sources"]);
    let named: Vec<&str> = rows
        .iter()
        .filter_map(|r| r.split(' ').nth(1))
        .filter(|n| n.ends_with("/flux") || n.ends_with("/podinfo"))
        .collect();
    assert_eq!(
        named,
        ["flux-system/flux", "flux-system/podinfo"],
        "{rows:?}\n{stderr}"
    );
}

/// A root Kustomization that `dependsOn` one it applies itself (carpenike's `cluster` waits for
/// `flux`, whose file lies under `cluster`'s path): in the cluster `flux` exists from the
/// bootstrap, so this is no cycle; the dependency's own row gives its verdict.
#[test]
fn depends_on_a_kustomization_it_applies_itself_is_no_cycle() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    write(
        root,
        "cluster/cluster.yaml",
        &kustomization(
            "cluster",
            "./cluster",
            "flux-system",
            "  dependsOn: [{name: flux}]\n",
        ),
    );
    write(
        root,
        "cluster/flux.yaml",
        &kustomization("flux", "./flux-manifests", "flux-system", ""),
    );
    write(
        root,
        "flux-manifests/cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: manifests, namespace: flux-system}\n",
    );
    let (rows, stderr) = test_rows(root, "cluster", &[]);
    assert!(!stderr.contains("cycle"), "{rows:?}\n{stderr}");
    assert_eq!(
        rows,
        [
            "Kustomization flux-system/cluster PASS dependency Kustomization/flux-system/flux is applied by this Kustomization (or one it applies); it is assumed ready as the previous apply left it",
            "Kustomization flux-system/flux PASS ",
        ],
        "{stderr}"
    );
}
