//! FluxInstance `spec.sync` end to end through discovery and the runtime, on repositories written
//! at run time: the instance generates the root source and Kustomization as the Flux Operator
//! does (names, namespace, patches, labels), the synced source is the working tree when its path
//! is in it, and a HelmRelease of the `flux-instance` chart stands for the instance a bootstrap
//! installs from its values (inline or from a generated ConfigMap).

use std::path::Path;

use offlux::controllers::runtime::RunReport;
use offlux::orchestrator::{Config, Orchestrator};
use offlux::store::{Ready, Status};
use offlux::yaml::Node;

// Only the fixture YAML is used here.
use crate::common::fleet;

fn write(root: &Path, file: &str, text: &str) {
    let path = root.join(file);
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(path, text).expect("write");
}

fn reconcile(root: &Path, entry: &str) -> RunReport {
    let offlux = Orchestrator::new(Config {
        root: Some(root.to_path_buf()),
        offline: true,
        concurrency: Some(2),
        allow_missing_sources: true,
        ..Config::new(root.join(entry))
    });
    offlux.run(Vec::new()).expect("a repository").1
}

fn status<'a>(report: &'a RunReport, kind: &str, namespace: &str, name: &str) -> &'a Status {
    report
        .statuses
        .iter()
        .find(|(id, _)| id.kind == kind && id.namespace == namespace && id.name == name)
        .map(|(_, record)| &record.status)
        .unwrap_or_else(|| {
            panic!(
                "{kind}/{namespace}/{name} was not reconciled: {:#?}",
                report.statuses
            )
        })
}

fn generated<'a>(report: &'a RunReport, kind: &str, name: &str) -> &'a Node {
    report
        .rendered
        .iter()
        .filter(|(producer, _)| producer.kind == "FluxInstance")
        .flat_map(|(_, objects)| objects)
        .find(|o| o.id.kind == kind && o.id.name == name)
        .map(|o| &*o.node)
        .unwrap_or_else(|| panic!("no FluxInstance generated {kind}/{name}"))
}

fn text<'a>(node: &'a Node, path: &[&str]) -> Option<&'a str> {
    node.get_path(path).and_then(Node::as_str)
}

fn no_failure_or_block(report: &RunReport) {
    for (id, record) in &report.statuses {
        assert!(
            matches!(record.status, Status::Ready(_)),
            "{id}: {} (blocked by {:?})",
            record.status,
            record.blocked_by
        );
    }
}

const INSTANCE: &str = r#"apiVersion: fluxcd.controlplane.io/v1
kind: FluxInstance
metadata:
  name: flux
  namespace: flux-system
spec:
  distribution:
    version: 2.3.0
    registry: ghcr.io/fluxcd
  commonMetadata:
    labels:
      team: platform
  sync:
    kind: GitRepository
    url: https://example.com/someone/fleet.git
    ref: refs/heads/main
    path: clusters/prod
    pullSecret: flux-system
  kustomize:
    patches:
      - target:
          kind: Kustomization
          name: flux-system
        patch: |
          - op: add
            path: /spec/serviceAccountName
            value: kustomize-controller
"#;

const CONFIG_MAP: &str = r#"apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  namespace: default
data:
  a: b
"#;

#[test]
fn a_flux_instance_sync_creates_the_root_source_and_kustomization() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    write(
        root,
        "clusters/prod/flux-system/flux-instance.yaml",
        INSTANCE,
    );
    write(root, "clusters/prod/apps.yaml", fleet::APPS);
    write(root, "apps/settings.yaml", CONFIG_MAP);
    let report = reconcile(root, "clusters/prod");
    no_failure_or_block(&report);
    assert_eq!(
        status(&report, "FluxInstance", "flux-system", "flux"),
        &Status::Ready(Ready::Reconciled)
    );
    // The synced repository is the working tree: its path is here, whatever its URL.
    assert_eq!(
        status(&report, "GitRepository", "flux-system", "flux-system"),
        &Status::Ready(Ready::Reconciled)
    );
    assert_eq!(
        status(&report, "Kustomization", "flux-system", "flux-system"),
        &Status::Ready(Ready::Reconciled)
    );
    assert_eq!(
        status(&report, "Kustomization", "flux-system", "apps"),
        &Status::Ready(Ready::Reconciled)
    );

    let source = generated(&report, "GitRepository", "flux-system");
    assert_eq!(
        text(source, &["spec", "ref", "name"]),
        Some("refs/heads/main")
    );
    assert_eq!(text(source, &["spec", "interval"]), Some("1m0s"));
    assert_eq!(
        text(source, &["spec", "secretRef", "name"]),
        Some("flux-system")
    );
    let kustomization = generated(&report, "Kustomization", "flux-system");
    assert_eq!(
        text(kustomization, &["spec", "path"]),
        Some("clusters/prod")
    );
    assert_eq!(text(kustomization, &["spec", "interval"]), Some("10m0s"));
    assert_eq!(text(kustomization, &["spec", "prune"]), Some("true"));
    assert_eq!(
        text(kustomization, &["spec", "sourceRef", "kind"]),
        Some("GitRepository")
    );
    assert_eq!(
        text(kustomization, &["spec", "serviceAccountName"]),
        Some("kustomize-controller"),
        "spec.kustomize.patches apply to the generated objects"
    );
    for object in [source, kustomization] {
        let label = |key: &str| text(object, &["metadata", "labels", key]);
        assert_eq!(label("app.kubernetes.io/managed-by"), Some("flux-operator"));
        assert_eq!(label("app.kubernetes.io/version"), Some("v2.3.0"));
        assert_eq!(label("fluxcd.controlplane.io/name"), Some("flux"));
        assert_eq!(label("team"), Some("platform"));
        assert_eq!(
            text(
                object,
                &["metadata", "annotations", "kustomize.toolkit.fluxcd.io/ssa"]
            ),
            Some("Ignore")
        );
    }
    // Generated objects point at the instance; the Kustomization's children are applied by it.
    let origin = report
        .origins
        .iter()
        .find(|(id, _)| id.kind == "Kustomization" && id.name == "flux-system")
        .map(|(_, location)| location)
        .expect("origin");
    assert!(
        origin
            .file
            .ends_with("clusters/prod/flux-system/flux-instance.yaml"),
        "{origin:?}"
    );
    assert_eq!(origin.pos.map(|p| p.line), Some(1));
    let applied = report
        .rendered
        .iter()
        .find(|(producer, _)| producer.kind == "Kustomization" && producer.name == "apps")
        .map(|(_, objects)| objects.len());
    assert_eq!(applied, Some(1), "apps applies the ConfigMap");
}

#[test]
fn an_oci_sync_with_its_own_name_is_the_working_tree_when_its_path_is_here() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    write(
        root,
        "clusters/edge/instance.yaml",
        r#"apiVersion: fluxcd.controlplane.io/v1
kind: FluxInstance
metadata:
  name: flux
  namespace: flux
spec:
  distribution:
    version: 2.5.x
    registry: ghcr.io/fluxcd
  sync:
    kind: OCIRepository
    name: fleet
    url: oci://registry.example.com/fleet
    ref: latest
    path: ./clusters/edge
    interval: 5m
"#,
    );
    write(
        root,
        "clusters/edge/apps.yaml",
        r#"apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: apps
  namespace: flux
spec:
  interval: 10m
  path: ./apps
  prune: true
  sourceRef:
    kind: OCIRepository
    name: fleet
"#,
    );
    write(root, "apps/settings.yaml", CONFIG_MAP);
    let report = reconcile(root, "clusters/edge");
    no_failure_or_block(&report);
    for (kind, name) in [
        ("OCIRepository", "fleet"),
        ("Kustomization", "fleet"),
        ("Kustomization", "apps"),
    ] {
        assert_eq!(
            status(&report, kind, "flux", name),
            &Status::Ready(Ready::Reconciled),
            "{kind}/{name}"
        );
    }
    let source = generated(&report, "OCIRepository", "fleet");
    assert_eq!(
        text(source, &["apiVersion"]),
        Some("source.toolkit.fluxcd.io/v1beta2"),
        "below Flux 2.6 an OCIRepository is v1beta2"
    );
    assert_eq!(text(source, &["spec", "ref", "tag"]), Some("latest"));
    assert_eq!(text(source, &["spec", "interval"]), Some("5m0s"));
    assert_eq!(text(source, &["metadata", "namespace"]), Some("flux"));
}

/// Repro from tyriis__home-ops's `devenv/oci`: the FluxInstance, written without a namespace,
/// is applied by a Kustomization whose source is the OCIRepository that same instance's sync
/// generates (its path is in the working tree, so the run reads it from here). Discovery follows
/// that Kustomization as the run does, so the instance is known as applied by it, in its
/// `targetNamespace`, and is not also taken for an entry point of its own in `default`.
#[test]
fn a_kustomization_of_an_instances_oci_sync_is_followed_with_no_phantom_instance() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    let kustomization = |name: &str, path: &str, extra: &str| {
        format!(
            "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {{name: {name}, namespace: flux-system}}\nspec:\n  interval: 10m\n  path: {path}\n  prune: true\n  sourceRef: {{kind: OCIRepository, name: flux-system}}\n{extra}"
        )
    };
    write(
        root,
        "c/flux/sync.yaml",
        &kustomization("apps", "./c/apps", ""),
    );
    write(
        root,
        "c/flux/kustomization.yaml",
        "resources: [sync.yaml]\n",
    );
    write(
        root,
        "c/apps/kustomization.yaml",
        "resources: [fi/ks.yaml]\n",
    );
    write(
        root,
        "c/apps/fi/ks.yaml",
        &kustomization(
            "flux-instance",
            "./c/apps/fi/app",
            "  targetNamespace: flux-system\n",
        ),
    );
    write(
        root,
        "c/apps/fi/app/kustomization.yaml",
        "resources: [fi.yaml]\n",
    );
    write(
        root,
        "c/apps/fi/app/fi.yaml",
        "apiVersion: fluxcd.controlplane.io/v1\nkind: FluxInstance\nmetadata: {name: flux}\nspec:\n  distribution: {version: 2.x, registry: ghcr.io/fluxcd}\n  sync: {kind: OCIRepository, url: 'oci://registry.example/repo', ref: local, path: ./c/flux}\n",
    );
    let report = reconcile(root, "c");
    no_failure_or_block(&report);
    let instances: Vec<String> = (report.statuses.iter())
        .filter(|(id, _)| id.kind == "FluxInstance")
        .map(|(id, _)| format!("{}/{}", id.namespace, id.name))
        .collect();
    assert_eq!(instances, ["flux-system/flux"]);
    for name in ["flux-system", "apps", "flux-instance"] {
        assert_eq!(
            status(&report, "Kustomization", "flux-system", name),
            &Status::Ready(Ready::Reconciled),
            "{name}"
        );
    }
}

#[test]
fn a_sync_from_another_repository_is_not_fetched_and_an_invalid_one_fails() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    write(
        root,
        "clusters/prod/instance.yaml",
        &INSTANCE.replace("path: clusters/prod", "path: clusters/elsewhere"),
    );
    let report = reconcile(root, "clusters/prod");
    assert!(
        matches!(
            status(&report, "GitRepository", "flux-system", "flux-system"),
            Status::Ready(Ready::Skipped(why)) if why.contains("not available offline")
        ),
        "{:?}",
        report.statuses
    );
    assert!(matches!(
        status(&report, "Kustomization", "flux-system", "flux-system"),
        Status::Ready(Ready::Skipped(_))
    ));

    write(
        root,
        "clusters/prod/instance.yaml",
        &INSTANCE.replace("pullSecret: flux-system", "provider: gcp"),
    );
    let report = reconcile(root, "clusters/prod");
    match status(&report, "FluxInstance", "flux-system", "flux") {
        Status::Failed(message) => assert!(
            message.contains("sync.provider 'gcp' is only supported for OCIRepository and Bucket"),
            "{message}"
        ),
        other => panic!("expected a failure, got {other:?}"),
    }
}

const CHART_SOURCE: &str = r#"apiVersion: source.toolkit.fluxcd.io/v1
kind: OCIRepository
metadata:
  name: flux-instance
spec:
  interval: 15m
  url: oci://ghcr.io/controlplaneio-fluxcd/charts/flux-instance
  ref:
    tag: 0.58.1
"#;

const APP_KS: &str = r#"apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: NAME
spec:
  interval: 10m
  targetNamespace: NAMESPACE
  path: ./apps/NAMESPACE/NAME/app
  prune: true
  sourceRef:
    kind: GitRepository
    name: flux-system
    namespace: flux-system
DEPENDS
"#;

/// A home-ops layout without a root Kustomization in any file: `apps/<namespace>/` directories
/// whose kustomization.yaml sets the namespace of the Kustomizations it lists.
fn home_ops(root: &Path, release: &str) {
    let app = |namespace: &str, name: &str, depends: &str| {
        write(
            root,
            &format!("apps/{namespace}/{name}/ks.yaml"),
            &APP_KS
                .replace("NAMESPACE", namespace)
                .replace("NAME", name)
                .replace("DEPENDS", depends),
        );
        write(
            root,
            &format!("apps/{namespace}/{name}/app/kustomization.yaml"),
            "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [settings.yaml]\n",
        );
        write(
            root,
            &format!("apps/{namespace}/{name}/app/settings.yaml"),
            &CONFIG_MAP.replace("  namespace: default\n", ""),
        );
    };
    app("network", "certs", "");
    app(
        "media",
        "player",
        "  dependsOn:\n    - name: certs\n      namespace: network\n",
    );
    for (namespace, names) in [("network", "certs"), ("media", "player")] {
        write(
            root,
            &format!("apps/{namespace}/kustomization.yaml"),
            &format!(
                "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nnamespace: {namespace}\nresources:\n  - ./{names}/ks.yaml\n"
            ),
        );
    }
    write(
        root,
        "apps/flux-system/kustomization.yaml",
        "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nnamespace: flux-system\nresources:\n  - ./flux-instance/ks.yaml\n",
    );
    write(
        root,
        "apps/flux-system/flux-instance/ks.yaml",
        &APP_KS
            .replace("NAMESPACE", "flux-system")
            .replace("NAME", "flux-instance")
            .replace("DEPENDS", ""),
    );
    write(
        root,
        "apps/flux-system/flux-instance/app/helm-release.yaml",
        release,
    );
    write(
        root,
        "apps/flux-system/flux-instance/app/oci-repository.yaml",
        CHART_SOURCE,
    );
}

const RELEASE_HEAD: &str = r#"apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: flux-instance
spec:
  interval: 30m
  chartRef:
    kind: OCIRepository
    name: flux-instance
"#;

const INSTANCE_VALUES: &str = r#"instance:
  distribution:
    version: 2.x
    registry: ghcr.io/fluxcd
  sync:
    kind: GitRepository
    url: https://example.com/someone/home-ops.git
    ref: refs/heads/main
    path: apps/
    interval: 5m
"#;

fn assert_home_ops(report: &RunReport) {
    no_failure_or_block(report);
    assert_eq!(
        status(report, "FluxInstance", "flux-system", "flux"),
        &Status::Ready(Ready::Reconciled)
    );
    // Built by the instance's root Kustomization, the apps keep their directories' namespaces.
    for (namespace, name) in [
        ("flux-system", "flux-system"),
        ("network", "certs"),
        ("media", "player"),
        ("flux-system", "flux-instance"),
    ] {
        assert_eq!(
            status(report, "Kustomization", namespace, name),
            &Status::Ready(Ready::Reconciled),
            "{namespace}/{name}"
        );
    }
    assert!(
        !report
            .statuses
            .iter()
            .any(|(id, _)| id.kind == "Kustomization" && id.namespace.is_empty()),
        "no Kustomization is reconciled without its namespace: {:?}",
        report.statuses
    );
    let origin = report
        .origins
        .iter()
        .find(|(id, _)| id.kind == "FluxInstance")
        .map(|(_, location)| location)
        .expect("origin");
    assert!(
        origin
            .file
            .ends_with("apps/flux-system/flux-instance/app/helm-release.yaml"),
        "{origin:?}"
    );
}

#[test]
fn a_flux_instance_chart_release_stands_for_the_instance_a_bootstrap_installs() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    let values: String = INSTANCE_VALUES
        .lines()
        .map(|line| format!("    {line}\n"))
        .collect();
    home_ops(root, &format!("{RELEASE_HEAD}  values:\n{values}"));
    assert_home_ops(&reconcile(root, "apps"));
}

#[test]
fn the_bootstrap_instance_reads_values_from_a_generated_config_map() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    home_ops(
        root,
        &format!(
            "{RELEASE_HEAD}  valuesFrom:\n    - kind: ConfigMap\n      name: flux-instance-values\n"
        ),
    );
    write(
        root,
        "apps/flux-system/flux-instance/app/kustomization.yaml",
        "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [helm-release.yaml, oci-repository.yaml]\ngeneratorOptions:\n  disableNameSuffixHash: true\nconfigMapGenerator:\n  - name: flux-instance-values\n    files:\n      - values.yaml=./helm-values.yaml\n",
    );
    write(
        root,
        "apps/flux-system/flux-instance/app/helm-values.yaml",
        INSTANCE_VALUES,
    );
    assert_home_ops(&reconcile(root, "apps"));
}
