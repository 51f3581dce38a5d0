//! The reconcile loop end to end with a stand-in for kustomize: statuses, dependency messages,
//! substitution, owner labels, children arriving from builds, and determinism across concurrency.

use crate::common::canned_build;

use std::collections::BTreeMap;
use std::path::Path;

use offlux::controllers::helmrelease::{
    ChartLocation, HelmRenderError, HelmRenderRequest, HelmRenderer, RenderedRelease,
};
use offlux::controllers::runtime::{run, BuiltObject, KustomizationBuilder, RunOptions, RunReport};
use offlux::discovery::{discover, Options};
use offlux::store::Status;
use offlux::yaml::{emit, parse_stream, Node, ParseOptions};

/// Returns canned YAML per directory (relative to the root), as if kustomize had built it.
struct Canned(BTreeMap<&'static str, String>);

impl KustomizationBuilder for Canned {
    fn build(
        &self,
        root: &Path,
        dir: &Path,
        _kustomization: &Node,
    ) -> Result<Vec<BuiltObject>, String> {
        let relative = dir.strip_prefix(root).map_err(|e| e.to_string())?;
        let key = relative.to_string_lossy().into_owned();
        let text = self
            .0
            .get(key.as_str())
            .ok_or_else(|| format!("no canned output for `{key}`"))?;
        if text.starts_with("ERROR") {
            return Err(text.clone());
        }
        canned_build::built_objects(text)
    }
}

/// Renders every chart as a ConfigMap named after the release that records what it was asked
/// (values, namespace, flags), a Deployment without a namespace, a hook and, when CRDs are
/// included, a CRD. A chart whose path holds `broken` fails as a template error would; charts
/// from repositories are not available.
struct FakeHelm;

impl HelmRenderer for FakeHelm {
    fn render(&self, request: &HelmRenderRequest) -> Result<RenderedRelease, HelmRenderError> {
        let path = match &request.chart {
            ChartLocation::Local { path, .. } => path.clone(),
            ChartLocation::Repository(chart) => {
                return Err(HelmRenderError::Unavailable(format!(
                    "chart {} version {} from {} is not available offline",
                    chart.chart, chart.version, chart.url
                )))
            }
        };
        if path.contains("broken") {
            return Err(HelmRenderError::Failed(
                "template: broken/templates/cm.yaml:3:5: executing \"broken/templates/cm.yaml\" at <.Values.x.y>: nil pointer evaluating interface {}.y".into(),
            ));
        }
        let text = format!(
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n  namespace: {ns}\ndata:\n  chart: {path:?}\n  values: {values:?}\n  hooks: {hooks:?}\n  kube: {kube:?}\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {name}\nspec:\n  template:\n    spec:\n      containers:\n      - name: app\n        image: nginx:1.0\n{hook}",
            name = request.release_name,
            ns = request.namespace,
            values = format!("{:?}", request.values),
            hooks = (!request.disable_hooks).to_string(),
            kube = request.kube_version.clone().unwrap_or_default(),
            hook = if request.disable_hooks {
                String::new()
            } else {
                format!("---\napiVersion: batch/v1\nkind: Job\nmetadata:\n  name: {}-hook\n  annotations:\n    helm.sh/hook: pre-install\n", request.release_name)
            },
        );
        let parse = |text: &str| -> Vec<Node> {
            parse_stream(text, &ParseOptions::default())
                .expect("canned chart output")
                .into_iter()
                .map(|d| d.into_root())
                .collect()
        };
        let crds = if request.include_crds {
            parse("apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: widgets.example.com\n")
        } else {
            Vec::new()
        };
        Ok(RenderedRelease {
            crds,
            objects: parse(&text),
            ..RenderedRelease::default()
        })
    }
}

fn write(root: &Path, file: &str, text: &str) {
    let path = root.join(file);
    std::fs::create_dir_all(path.parent().unwrap_or(root)).expect("mkdir");
    std::fs::write(path, text).expect("write");
}

fn ks(name: &str, path: &str, extra: &str) -> String {
    format!("---\napiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: {name}\n  namespace: flux-system\nspec:\n  path: {path}\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n{extra}")
}

fn status_lines(report: &RunReport) -> Vec<String> {
    report
        .statuses
        .iter()
        .map(|(id, record)| {
            let blocked: Vec<String> = record
                .blocked_by
                .iter()
                .map(|b| b.name.to_string())
                .collect();
            format!("{id}: {} {blocked:?}", record.status)
        })
        .collect()
}

fn example_setup() -> (tempfile::TempDir, Canned) {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    let entry = format!(
        "{}{}{}",
        ks("flux-system", "./clusters/dev", ""),
        ks("infra", "./infra", "  postBuild:\n    substitute:\n      LOG_LEVEL: info\n"),
        ks("apps", "./apps", "  dependsOn:\n    - name: infra\n  postBuild:\n    substituteFrom:\n      - kind: ConfigMap\n        name: vars\n")
    );
    write(root, "clusters/dev/flux.yaml", &entry);
    write(root, "infra/x.yaml", "a: 1\n");
    write(root, "apps/x.yaml", "a: 1\n");
    write(root, "broken/x.yaml", "a: 1\n");
    let mut canned = BTreeMap::new();
    canned.insert(
        "clusters/dev",
        format!(
            "{entry}---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: vars\n  namespace: flux-system\ndata:\n  CLUSTER: dev\n{}{}",
            ks("broken", "./broken", ""),
            ks("waits", "./apps", "  dependsOn:\n    - name: broken\n")
        ),
    );
    canned.insert(
        "infra",
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: ingress\n  namespace: ingress\nspec:\n  template:\n    spec:\n      containers:\n      - name: c\n        args: [\"--log-level=${LOG_LEVEL}\"]\n".to_owned(),
    );
    canned.insert(
        "apps",
        "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: hello\n  namespace: hello\nspec:\n  chart:\n    spec:\n      chart: ./charts/hello\n      sourceRef: {kind: GitRepository, name: flux-system, namespace: flux-system}\n  values:\n    cluster: ${CLUSTER}\n".to_owned(),
    );
    canned.insert(
        "broken",
        "ERROR: accumulating resources: missing.yaml".to_owned(),
    );
    (dir, Canned(canned))
}

#[test]
fn children_arrive_substituted_labelled_and_gated() {
    let (dir, builder) = example_setup();
    let mut options = Options::new(dir.path().join("clusters/dev"));
    options.root = Some(dir.path().to_path_buf());
    let repository = discover(&options).expect("discovery");
    let report = run(&repository, &builder, &FakeHelm, &RunOptions::default());
    assert_eq!(
        status_lines(&report),
        [
            "HelmRelease/hello/hello: ready []",
            "Kustomization/flux-system/apps: ready []",
            "Kustomization/flux-system/broken: failed: kustomize build failed: ERROR: accumulating resources: missing.yaml []",
            "Kustomization/flux-system/flux-system: ready []",
            "Kustomization/flux-system/infra: ready []",
            "Kustomization/flux-system/waits: failed: kustomize build failed: ERROR: accumulating resources: missing.yaml [\"broken\"]",
        ]
    );
    let infra: Vec<String> = report
        .rendered
        .iter()
        .filter(|(id, _)| id.name == "infra")
        .flat_map(|(_, objects)| objects.iter().map(|o| emit(&o.node)))
        .collect();
    assert_eq!(infra.len(), 1);
    assert!(infra[0].contains("--log-level=info"), "{}", infra[0]);
    assert!(
        infra[0].contains("kustomize.toolkit.fluxcd.io/name: infra"),
        "{}",
        infra[0]
    );
    assert!(
        infra[0].contains("kustomize.toolkit.fluxcd.io/namespace: flux-system"),
        "{}",
        infra[0]
    );
    let apps: Vec<String> = report
        .rendered
        .iter()
        .filter(|(id, _)| id.name == "apps")
        .flat_map(|(_, objects)| objects.iter().map(|o| emit(&o.node)))
        .collect();
    assert!(apps[0].contains("cluster: dev"), "{}", apps[0]);
}

#[test]
fn statuses_are_identical_at_every_concurrency() {
    let (dir, builder) = example_setup();
    let mut options = Options::new(dir.path().join("clusters/dev"));
    options.root = Some(dir.path().to_path_buf());
    let repository = discover(&options).expect("discovery");
    let baseline = status_lines(&run(
        &repository,
        &builder,
        &FakeHelm,
        &RunOptions {
            concurrency: Some(1),
            ..Default::default()
        },
    ));
    assert_eq!(baseline.len(), 6, "{baseline:?}");
    for concurrency in [2, 8, 32] {
        for _ in 0..3 {
            let report = run(
                &repository,
                &builder,
                &FakeHelm,
                &RunOptions {
                    concurrency: Some(concurrency),
                    ..Default::default()
                },
            );
            assert_eq!(status_lines(&report), baseline, "concurrency {concurrency}");
        }
    }
}

#[test]
fn missing_dependencies_fail_leaf_first_and_pass_their_message_up() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    let text = format!(
        "{}{}{}",
        ks("top", "./x", "  dependsOn:\n    - name: middle\n"),
        ks("middle", "./x", "  dependsOn:\n    - name: ghost\n"),
        ks("suspended", "./x", "  suspend: true\n")
    );
    write(root, "entry/all.yaml", &text);
    write(root, "x/a.yaml", "a: 1\n");
    let mut options = Options::new(root.join("entry"));
    options.root = Some(root.to_path_buf());
    let repository = discover(&options).expect("discovery");
    let builder = Canned(BTreeMap::from([("x", String::new())]));
    let report = run(&repository, &builder, &FakeHelm, &RunOptions::default());
    assert_eq!(
        status_lines(&report),
        [
            "Kustomization/flux-system/middle: failed: dependency 'flux-system/ghost' not found [\"ghost\"]",
            "Kustomization/flux-system/suspended: suspended []",
            "Kustomization/flux-system/top: failed: dependency 'flux-system/ghost' not found [\"ghost\", \"middle\"]",
        ]
    );
    assert!(report
        .statuses
        .iter()
        .all(|(_, r)| r.status != Status::Pending));
}

#[test]
fn unavailable_sources_fail_or_skip() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    let text = "---\napiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata: {name: remote, namespace: flux-system}\nspec:\n  url: https://example.com/other.git\n---\napiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: uses-remote, namespace: flux-system}\nspec:\n  path: ./x\n  sourceRef: {kind: GitRepository, name: remote}\n";
    write(root, "all.yaml", text);
    let repository = discover(&Options::new(root)).expect("discovery");
    let builder = Canned(BTreeMap::new());
    let failed = run(&repository, &builder, &FakeHelm, &RunOptions::default());
    let message = "GitRepository/flux-system/remote (`https://example.com/other.git`) is not available offline";
    assert!(
        status_lines(&failed).contains(&format!(
            "Kustomization/flux-system/uses-remote: failed: {message} [\"remote\"]"
        )),
        "{:?}",
        status_lines(&failed)
    );
    let skipped = run(
        &repository,
        &builder,
        &FakeHelm,
        &RunOptions {
            allow_missing_sources: true,
            ..Default::default()
        },
    );
    assert!(
        status_lines(&skipped).contains(&format!(
            "Kustomization/flux-system/uses-remote: skipped: {message} [\"remote\"]"
        )),
        "{:?}",
        status_lines(&skipped)
    );
}

#[test]
fn a_cancelled_run_starts_nothing_and_says_so() {
    let (dir, builder) = example_setup();
    let mut options = Options::new(dir.path().join("clusters/dev"));
    options.root = Some(dir.path().to_path_buf());
    let repository = discover(&options).expect("discovery");
    let run_options = RunOptions::default();
    run_options.cancel.cancel();
    let report = run(&repository, &builder, &FakeHelm, &run_options);
    assert!(report.cancelled);
    assert!(
        report.rendered.is_empty(),
        "no build ran after cancellation"
    );
}

#[test]
fn dependency_cycles_are_reported_with_their_path_and_fail_every_member() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    let text = format!(
        "{}{}",
        ks("a", "./x", "  dependsOn:\n    - name: b\n"),
        ks("b", "./x", "  dependsOn:\n    - name: a\n")
    );
    write(root, "entry/all.yaml", &text);
    write(root, "x/a.yaml", "a: 1\n");
    let mut options = Options::new(root.join("entry"));
    options.root = Some(root.to_path_buf());
    let repository = discover(&options).expect("discovery");
    let report = run(
        &repository,
        &Canned(BTreeMap::from([("x", String::new())])),
        &FakeHelm,
        &RunOptions::default(),
    );
    assert!(report
        .diagnostics
        .iter()
        .any(|d| d.message
            == "dependency cycle: Kustomization/flux-system/a → Kustomization/flux-system/b → Kustomization/flux-system/a"));
    assert!(
        report
            .statuses
            .iter()
            .all(|(_, r)| matches!(r.status, Status::Failed(_))),
        "{:?}",
        status_lines(&report)
    );
}

#[test]
fn progress_reaches_every_known_object() {
    let (dir, builder) = example_setup();
    let mut options = Options::new(dir.path().join("clusters/dev"));
    options.root = Some(dir.path().to_path_buf());
    let repository = discover(&options).expect("discovery");
    let last = std::sync::Arc::new(std::sync::Mutex::new((0, 0)));
    let seen = last.clone();
    let run_options = RunOptions {
        progress: Some(std::sync::Arc::new(move |done, known| {
            if let Ok(mut last) = seen.lock() {
                *last = (done, known);
            }
        })),
        ..Default::default()
    };
    let report = run(&repository, &builder, &FakeHelm, &run_options);
    let (done, known) = *last.lock().expect("lock");
    assert_eq!(known, report.statuses.len());
    assert_eq!(done, known);
}

#[test]
fn external_artifacts_of_an_artifact_generator_map_to_the_working_tree() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    let text = "---\napiVersion: source.extensions.fluxcd.io/v1beta1\nkind: ArtifactGenerator\nmetadata: {name: gen, namespace: flux-system}\nspec:\n  sources:\n    - {alias: repo, kind: GitRepository, name: flux-system}\n  artifacts:\n    - name: apps\n      copy:\n        - {from: \"@repo/apps/**\", to: \"@artifact/\"}\n---\napiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: apps, namespace: flux-system}\nspec:\n  path: ./prod\n  sourceRef: {kind: ExternalArtifact, name: apps}\n---\napiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: missing, namespace: flux-system}\nspec:\n  path: ./prod\n  sourceRef: {kind: ExternalArtifact, name: nope}\n";
    write(root, "entry/all.yaml", text);
    write(root, "apps/prod/x.yaml", "a: 1\n");
    let mut options = Options::new(root.join("entry"));
    options.root = Some(root.to_path_buf());
    let repository = discover(&options).expect("discovery");
    // The artifact is `apps/` of the working tree as it stands, so the build reads it there, with
    // the artifact's root as the build's root.
    let builder = Canned(BTreeMap::from([(
        "prod",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: x}\n".to_owned(),
    )]));
    let lines = status_lines(&run(
        &repository,
        &builder,
        &FakeHelm,
        &RunOptions::default(),
    ));
    assert!(
        lines.contains(&"Kustomization/flux-system/apps: ready []".to_owned()),
        "{lines:?}"
    );
    assert!(
        lines.iter().any(|l| l.starts_with("Kustomization/flux-system/missing: failed: source ExternalArtifact/flux-system/nope not found")),
        "{lines:?}"
    );
}

/// Records the chart of every request it is given, and renders nothing.
struct RecordingHelm(std::sync::Mutex<Vec<ChartLocation>>);

impl HelmRenderer for RecordingHelm {
    fn render(&self, request: &HelmRenderRequest) -> Result<RenderedRelease, HelmRenderError> {
        if let Ok(mut seen) = self.0.lock() {
            seen.push(request.chart.clone());
        }
        Ok(RenderedRelease::default())
    }
}

#[test]
fn repository_credentials_come_from_the_secret_ref() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    let entry = format!(
        "{}---
apiVersion: source.toolkit.fluxcd.io/v1
kind: HelmRepository
metadata:
  name: private
  namespace: flux-system
spec:
  url: https://charts.example.com
  secretRef:
    name: creds
---
apiVersion: v1
kind: Secret
metadata:
  name: creds
  namespace: flux-system
stringData:
  username: bob
  password: s3cret
---
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: app
  namespace: flux-system
spec:
  chart:
    spec:
      chart: app
      version: 1.0.0
      sourceRef: {{kind: HelmRepository, name: private}}
",
        ks("flux-system", "./clusters/dev", "")
    );
    write(root, "clusters/dev/flux.yaml", &entry);
    let canned = Canned(BTreeMap::from([("clusters/dev", entry.clone())]));
    let repository = discover(&Options::new(root)).expect("discovery");
    let helm = RecordingHelm(std::sync::Mutex::new(Vec::new()));
    let report = run(&repository, &canned, &helm, &RunOptions::default());
    assert!(
        status_lines(&report)
            .iter()
            .any(|l| l == "HelmRelease/flux-system/app: ready []"),
        "{:?}",
        status_lines(&report)
    );
    let seen = helm.0.lock().expect("requests");
    let Some(ChartLocation::Repository(chart)) = seen.last() else {
        panic!("no repository chart requested: {seen:?}");
    };
    let auth = chart.auth.as_ref().expect("credentials from the Secret");
    assert_eq!(
        (auth.username.as_str(), auth.password.as_str()),
        ("bob", "s3cret")
    );
    // The password never shows in debug output (reports, logs).
    assert!(!format!("{chart:?}").contains("s3cret"));
}
