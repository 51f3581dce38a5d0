//! Commands about some objects (issues 23 and 26): `build hr NAME`, `build ks NAME` and `test ...
//! NAME` reconcile only what NAME depends on, and print exactly what the whole repository's run
//! prints for it; `build ks` without a NAME builds every Kustomization of a namespace; a
//! HelmRelease without a namespace is in `default`; objects applied through `spec.kubeConfig`
//! belong to that cluster.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use assert_cmd::Command;
use offlux::controllers::engine::{HelmEngine, KustomizeEngine};
use offlux::controllers::helmrelease::{
    HelmRenderError, HelmRenderRequest, HelmRenderer, RenderedRelease,
};
use offlux::controllers::runtime::{run, RunOptions, RunReport};
use offlux::discovery::{discover, Options, Repository};
use offlux::selection::scope::Target;
use offlux::store::Status;

use crate::common::test_data;

fn offlux() -> Command {
    let mut command = Command::cargo_bin("offlux").expect("binary is built");
    command.env("NO_COLOR", "1");
    command
}

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/scoped")
}

fn example() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/example")
}

/// Runs offlux on `root` (discovery from `path` under it) with `args`.
fn on(root: &Path, path: &str, args: &[&str]) -> std::process::Output {
    offlux()
        .args(args)
        .arg("--path")
        .arg(root.join(path))
        .arg("--root")
        .arg(root)
        .output()
        .expect("runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The engine, recording which releases it was asked to render.
struct Counting {
    engine: HelmEngine,
    rendered: Mutex<Vec<String>>,
}

impl HelmRenderer for Counting {
    fn render(&self, request: &HelmRenderRequest) -> Result<RenderedRelease, HelmRenderError> {
        if let Ok(mut rendered) = self.rendered.lock() {
            rendered.push(format!("{}/{}", request.namespace, request.release_name));
        }
        self.engine.render(request)
    }
}

fn reconcile(repository: &Repository, scope: Vec<Target>) -> (RunReport, Vec<String>) {
    let helm = Counting {
        engine: HelmEngine::default(),
        rendered: Mutex::new(Vec::new()),
    };
    let report = run(
        repository,
        &KustomizeEngine::for_repository(repository),
        &helm,
        &RunOptions {
            scope,
            ..Default::default()
        },
    );
    let mut rendered = helm.rendered.into_inner().unwrap_or_default();
    rendered.sort();
    (report, rendered)
}

/// Writes `text` to `file` under `root`, making its directories.
fn write_file(root: &Path, file: &str, text: &str) {
    let path = root.join(file);
    std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
    std::fs::write(path, text).expect("write");
}

/// The repository at `root`, discovered from `clusters/main`.
fn discovered(root: &Path) -> Repository {
    let mut options = Options::new(root.join("clusters/main"));
    options.root = Some(root.to_path_buf());
    discover(&options).expect("discovery")
}

fn release(name: &str) -> Target {
    Target {
        kinds: vec!["HelmRelease".to_owned()],
        name: Some(name.to_owned()),
        namespace: None,
    }
}

/// What the run says about `kind/name`: its status and what it rendered, as text.
fn outcome(report: &RunReport, kind: &str, name: &str) -> (String, String) {
    let (id, record) = report
        .statuses
        .iter()
        .find(|(id, _)| id.kind == kind && id.name == name)
        .unwrap_or_else(|| panic!("{kind} {name} is in the report"));
    let objects: Vec<String> = report
        .rendered
        .get(id)
        .into_iter()
        .flatten()
        .map(|o| offlux::yaml::emit_canonical_kyaml(&o.node))
        .collect();
    (format!("{:?}", record.status), objects.join("---\n"))
}

#[test]
fn a_scoped_run_renders_only_the_releases_its_target_needs() {
    let root = fixture();
    let repository = discovered(&root);

    let (full, all_rendered) = reconcile(&repository, Vec::new());
    assert_eq!(
        all_rendered,
        ["apps/broken", "apps/db", "apps/other", "apps/web"],
        "the whole repository renders every release"
    );

    let (scoped, rendered) = reconcile(&repository, vec![release("web")]);
    assert_eq!(
        rendered,
        ["apps/db", "apps/web"],
        "`web` needs itself and its dependency `db`, not `broken` nor `other`"
    );
    let web = outcome(&scoped, "HelmRelease", "web");
    assert_eq!(web, outcome(&full, "HelmRelease", "web"));
    assert!(web.0.contains("Ready"), "{web:?}");
    assert!(
        web.1.contains("hello from the config Kustomization"),
        "web's values come from the ConfigMap the `config` Kustomization publishes: {}",
        web.1
    );
    for name in ["flux-system", "infra", "config", "apps"] {
        assert_eq!(
            outcome(&scoped, "Kustomization", name),
            outcome(&full, "Kustomization", name),
            "Kustomization {name}"
        );
    }
    // What was not needed is left unreconciled, never failed.
    let broken = scoped
        .statuses
        .iter()
        .find(|(id, _)| id.name == "broken")
        .map(|(_, record)| record.status.clone());
    assert!(matches!(broken, None | Some(Status::Pending)), "{broken:?}");

    // A release nothing needs, failing on its own.
    let (scoped, rendered) = reconcile(&repository, vec![release("broken")]);
    assert_eq!(rendered, ["apps/broken"]);
    assert_eq!(
        outcome(&scoped, "HelmRelease", "broken"),
        outcome(&full, "HelmRelease", "broken")
    );
}

#[test]
fn a_release_no_file_defines_is_built_by_a_full_run() {
    let root = fixture();
    let repository = discovered(&root);
    let (_, rendered) = reconcile(&repository, vec![release("nowhere")]);
    assert_eq!(rendered.len(), 4, "{rendered:?}");
}

/// Every HelmRelease and Kustomization of the run at `path` in `root`: (kind word, namespace, name).
fn objects_of(root: &Path, path: &str, extra: &[&str]) -> Vec<(String, String, String)> {
    let mut args = vec!["test", "-o", "json"];
    args.extend_from_slice(extra);
    let output = on(root, path, &args);
    let rows: Vec<serde_json::Value> =
        serde_json::from_slice(&output.stdout).expect("test -o json prints JSON");
    rows.iter()
        .filter_map(|row| {
            let verb = match row["kind"].as_str()? {
                "HelmRelease" => "hr",
                "Kustomization" => "ks",
                _ => return None,
            };
            Some((
                verb.to_owned(),
                row["namespace"].as_str()?.to_owned(),
                row["name"].as_str()?.to_owned(),
            ))
        })
        .collect()
}

/// `build` and `test` of each object, scoped, against the same commands over the whole repository.
fn scoped_equals_full(root: &Path, path: &str, extra: &[&str]) -> usize {
    let objects = objects_of(root, path, extra);
    assert!(!objects.is_empty());
    for (verb, namespace, name) in &objects {
        for command in [
            vec![
                "build",
                verb.as_str(),
                name.as_str(),
                "-n",
                namespace.as_str(),
            ],
            vec![
                "test",
                verb.as_str(),
                name.as_str(),
                "-n",
                namespace.as_str(),
                "-o",
                "json",
            ],
        ] {
            let mut scoped_args = command.clone();
            scoped_args.extend_from_slice(extra);
            let mut full_args = scoped_args.clone();
            full_args.push("--no-scope");
            let scoped = on(root, path, &scoped_args);
            let full = on(root, path, &full_args);
            assert_eq!(
                (scoped.status.code(), text(&scoped.stdout)),
                (full.status.code(), text(&full.stdout)),
                "`offlux {}` differs from the whole repository's run",
                command.join(" ")
            );
        }
    }
    objects.len()
}

#[test]
fn scoped_commands_print_what_the_whole_run_prints() {
    assert_eq!(scoped_equals_full(&fixture(), "clusters/main", &[]), 8);
    assert_eq!(scoped_equals_full(&example(), "clusters/dev", &[]), 4);
}

#[test]
fn build_ks_without_a_name_builds_every_kustomization_of_the_namespace() {
    let root = fixture();
    let every = on(&root, "clusters/main", &["build", "ks"]);
    assert_eq!(every.status.code(), Some(0), "{}", text(&every.stderr));
    let all = on(&root, "clusters/main", &["build", "all"]);
    assert_eq!(
        text(&every.stdout),
        text(&all.stdout),
        "every Kustomization of the fixture is in flux-system"
    );
    assert!(text(&every.stdout).contains("name: web-values"));
    let across = on(&root, "clusters/main", &["build", "ks", "-A"]);
    assert_eq!(text(&across.stdout), text(&all.stdout));
    let elsewhere = on(&root, "clusters/main", &["build", "ks", "-n", "nowhere"]);
    assert_eq!(elsewhere.status.code(), Some(2));
    assert!(
        text(&elsewhere.stderr).contains("no Kustomization matches in namespace `nowhere`"),
        "{}",
        text(&elsewhere.stderr)
    );
    // HelmReleases the same way: those of `apps`.
    let releases = on(&root, "clusters/main", &["build", "hr", "-n", "apps"]);
    assert_eq!(releases.status.code(), Some(1), "`broken` fails");
    let stdout = text(&releases.stdout);
    for name in ["web-greeting", "db-greeting", "other-greeting"] {
        assert!(stdout.contains(&format!("name: {name}")), "{stdout}");
    }
    assert!(text(&releases.stderr).contains("error: HelmRelease/apps/broken:"));
}

#[test]
fn build_all_and_render_print_what_rendered_when_a_producer_fails() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    std::fs::create_dir_all(root.join("entry")).expect("mkdir");
    std::fs::create_dir_all(root.join("good")).expect("mkdir");
    std::fs::write(
        root.join("entry/ks.yaml"),
        "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: good\n  namespace: flux-system\nspec:\n  path: ./good\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n---\napiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: bad\n  namespace: flux-system\nspec:\n  path: ./missing\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n",
    )
    .expect("write");
    std::fs::write(
        root.join("good/cm.yaml"),
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: fine\n  namespace: default\ndata:\n  a: b\n",
    )
    .expect("write");
    for args in [&["build", "all"][..], &["build", "ks"], &["render"]] {
        let output = on(root, "entry", args);
        assert_eq!(output.status.code(), Some(1), "{args:?}");
        assert!(
            text(&output.stdout).contains("name: fine"),
            "{args:?}: {}",
            text(&output.stdout)
        );
        assert!(
            text(&output.stderr).contains("error: Kustomization/flux-system/bad:"),
            "{args:?}: {}",
            text(&output.stderr)
        );
    }
}

#[test]
fn a_helm_release_without_a_namespace_is_in_default() {
    let root = fixture();
    let built = on(&root, "loose", &["build", "hr", "loose"]);
    assert_eq!(built.status.code(), Some(0), "{}", text(&built.stderr));
    let stdout = text(&built.stdout);
    assert!(stdout.contains("  namespace: default\n"), "{stdout}");
    assert!(
        stdout.contains("helm.toolkit.fluxcd.io/namespace: default"),
        "{stdout}"
    );
    assert!(
        stdout.contains("  greeting: loose\n  message: none\n  namespace: default\n"),
        "the release namespace is `default`: {stdout}"
    );
    assert!(!stdout.contains("namespace: \"\""), "{stdout}");
    let by_namespace = on(&root, "loose", &["build", "hr", "loose", "-n", "default"]);
    assert_eq!(text(&by_namespace.stdout), stdout);
    let roster = on(&root, "loose", &["test"]);
    assert!(
        text(&roster.stdout).contains("PASS    HelmRelease  default/loose"),
        "{}",
        text(&roster.stdout)
    );
    let out = tempfile::tempdir().expect("tempdir");
    let rendered = offlux()
        .args(["render", "--out"])
        .arg(out.path().join("tree"))
        .arg("--path")
        .arg(root.join("loose"))
        .arg("--root")
        .arg(&root)
        .output()
        .expect("runs");
    assert_eq!(
        rendered.status.code(),
        Some(0),
        "{}",
        text(&rendered.stderr)
    );
    assert!(out
        .path()
        .join("tree/HelmRelease/default/loose.yaml")
        .is_file());
    assert!(!out.path().join("tree/HelmRelease/_cluster").exists());
}

/// Two Kustomizations applying the same directory, each to the cluster of its namespace's
/// kubeconfig Secret when `kube_config` (as fluxcd/flux2-hub-spoke-example's hub does).
fn hub(kube_config: bool) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    std::fs::create_dir_all(root.join("hub")).expect("mkdir");
    std::fs::create_dir_all(root.join("tenants")).expect("mkdir");
    let mut hub = String::new();
    for cluster in ["staging", "production"] {
        hub.push_str(&format!(
            "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: tenants\n  namespace: {cluster}\nspec:\n  path: ./tenants\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n    namespace: flux-system\n{}  postBuild:\n    substitute:\n      CLUSTER_NAME: {cluster}\n---\n",
            if kube_config {
                "  kubeConfig:\n    secretRef:\n      name: cluster-kubeconfig\n"
            } else {
                ""
            }
        ));
    }
    std::fs::write(root.join("hub/clusters.yaml"), hub).expect("write");
    std::fs::write(
        root.join("tenants/rbac.yaml"),
        "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata:\n  name: flux-cluster-admin\n  labels:\n    cluster: ${CLUSTER_NAME}\nroleRef:\n  apiGroup: rbac.authorization.k8s.io\n  kind: ClusterRole\n  name: cluster-admin\nsubjects:\n  - kind: ServiceAccount\n    name: flux\n    namespace: flux-system\n",
    )
    .expect("write");
    dir
}

#[test]
fn objects_applied_through_a_kube_config_belong_to_that_cluster() {
    // One cluster: the two copies fight.
    let one = hub(false);
    let validated = on(one.path(), "hub", &["validate", "-o", "json"]);
    assert!(
        text(&validated.stdout).contains("OFX101"),
        "{}",
        text(&validated.stdout)
    );
    assert_eq!(validated.status.code(), Some(1));

    // Two clusters: each has its own.
    let spokes = hub(true);
    let validated = on(spokes.path(), "hub", &["validate", "-o", "json"]);
    assert!(
        !text(&validated.stdout).contains("OFX101"),
        "{}",
        text(&validated.stdout)
    );
    assert_eq!(
        validated.status.code(),
        Some(0),
        "{}",
        text(&validated.stderr)
    );

    let roster = on(spokes.path(), "hub", &["test", "-o", "json"]);
    let rows: Vec<serde_json::Value> = serde_json::from_slice(&roster.stdout).expect("JSON rows");
    let clusters: BTreeMap<String, String> = rows
        .iter()
        .filter_map(|row| {
            Some((
                format!("{}/{}", row["namespace"].as_str()?, row["name"].as_str()?),
                row["cluster"].as_str()?.to_owned(),
            ))
        })
        .collect();
    assert_eq!(
        clusters,
        BTreeMap::from([
            (
                "production/tenants".to_owned(),
                "Secret/production/cluster-kubeconfig".to_owned()
            ),
            (
                "staging/tenants".to_owned(),
                "Secret/staging/cluster-kubeconfig".to_owned()
            ),
        ])
    );
    let human = text(&on(spokes.path(), "hub", &["test"]).stdout);
    assert!(
        human.lines().any(|line| line.contains("staging/tenants")
            && line.ends_with("applies to cluster Secret/staging/cluster-kubeconfig")),
        "{human}"
    );
    let junit = text(&on(spokes.path(), "hub", &["test", "-o", "junit"]).stdout);
    assert!(
        junit.contains("<property name=\"cluster\" value=\"Secret/staging/cluster-kubeconfig\"/>"),
        "{junit}"
    );
}

#[test]
fn the_hub_and_spoke_example_has_no_false_duplicates() {
    let Some(incoming) = test_data::dir("corpus/incoming", "the hub-and-spoke example") else {
        return;
    };
    let root = incoming.join("fluxcd__flux2-hub-spoke-example");
    let validated = on(&root, "hub", &["validate", "-o", "json"]);
    let findings: Vec<serde_json::Value> =
        serde_json::from_slice(&validated.stdout).expect("JSON findings");
    let duplicates: Vec<&serde_json::Value> =
        findings.iter().filter(|f| f["code"] == "OFX101").collect();
    assert!(duplicates.is_empty(), "{duplicates:#?}");
    for format in ["human", "json", "junit", "github", "sarif"] {
        let output = text(&on(&root, "hub", &["validate", "-o", format]).stdout);
        assert!(
            output.contains("on cluster Secret/staging/cluster-kubeconfig"),
            "{format}: {output}"
        );
    }
}

#[test]
fn scoped_builds_of_a_corpus_repository_match_its_whole_render() {
    let Some(corpus) = test_data::dir("corpus", "scoped builds of a corpus repository") else {
        return;
    };
    let root = corpus.join("repos/onedr0p__home-ops__2025-06-23");
    let charts = corpus.join("charts");
    let charts = charts.to_string_lossy().into_owned();
    let flags = [
        "--chart-cache",
        charts.as_str(),
        "--offline",
        "--allow-missing-sources",
    ];
    let out = tempfile::tempdir().expect("tempdir");
    let tree = out.path().join("tree");
    let mut render = vec!["render", "--out", tree.to_str().expect("UTF-8 path")];
    render.extend_from_slice(&flags);
    on(&root, "kubernetes/flux/cluster", &render);
    let objects = objects_of(&root, "kubernetes/flux/cluster", &flags);
    let mut compared = 0;
    for (verb, namespace, name) in &objects {
        let kind = if verb == "hr" {
            "HelmRelease"
        } else {
            "Kustomization"
        };
        let Ok(expected) =
            std::fs::read_to_string(tree.join(format!("{kind}/{namespace}/{name}.yaml")))
        else {
            continue;
        };
        let mut args = vec![
            "build",
            verb.as_str(),
            name.as_str(),
            "-n",
            namespace.as_str(),
        ];
        args.extend_from_slice(&flags);
        let built = on(&root, "kubernetes/flux/cluster", &args);
        assert_eq!(
            text(&built.stdout),
            expected,
            "`offlux build {verb} {name} -n {namespace}` differs from the whole render"
        );
        compared += 1;
    }
    println!(
        "scoped builds: {compared} of {} objects compared",
        objects.len()
    );
    assert!(compared > 100, "{compared}");
}

/// A corpus repository run as its CI runs it: the repository, its entry point and extra flags.
struct CorpusRun {
    repository: &'static str,
    entry: &'static str,
    extra: &'static [&'static str],
}

/// Chosen for variety (entry points and `--sources` from the corpus READMEs): a FluxInstance with
/// ResourceSets and remote sources (d1-fleet), an ArtifactGenerator whose artifact is a chart
/// (cluster-api example), in-repository charts with dev/stg/prod overlays and failing releases
/// (artazar), a large home-ops tree with a mapped source and cluster-held data (kashalls), and
/// Flux's own example.
const SCOPE_RUNS: &[CorpusRun] = &[
    CorpusRun {
        repository: "incoming/controlplaneio-fluxcd__d1-fleet",
        entry: "clusters/staging",
        extra: &[],
    },
    CorpusRun {
        repository: "incoming/matheuscscp__flux-operator-cluster-api-example",
        entry: "clusters/hub",
        extra: &[],
    },
    CorpusRun {
        repository: "incoming/artazar__flux2-general",
        entry: "clusters/demo-000",
        extra: &[],
    },
    CorpusRun {
        repository: "incoming/kashalls__home-cluster",
        entry: "kubernetes/flux/cluster",
        extra: &["--sources", "home-kubernetes"],
    },
    CorpusRun {
        repository: "repos/fluxcd__flux2-kustomize-helm-example",
        entry: "clusters/production",
        extra: &[],
    },
];

/// `test -o json` rows of a run, keyed by (kind, namespace, name), with (result, message).
fn rows_of(output: &std::process::Output) -> BTreeMap<(String, String, String), (String, String)> {
    let rows: Vec<serde_json::Value> = serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "{e}: `test -o json` printed no JSON:\n{}",
            text(&output.stderr)
        )
    });
    rows.iter()
        .map(|row| {
            let field = |key: &str| row[key].as_str().unwrap_or_default().to_owned();
            (
                (field("kind"), field("namespace"), field("name")),
                (field("result"), field("message")),
            )
        })
        .collect()
}

/// Issue 34.8: on corpus repositories, every HelmRelease and Kustomization of the whole run has,
/// scoped (`test hr|ks NAME -n NS`), the row the whole run gives it, and `build hr|ks NAME`
/// prints what the whole `render` wrote for it (or nothing, with a failure, when the whole run
/// rendered nothing for it).
#[test]
fn scoped_rows_and_builds_of_corpus_repositories_match_the_whole_run() {
    let Some(corpus) = test_data::dir("corpus", "scoped rows of corpus repositories") else {
        return;
    };
    let charts = corpus.join("charts");
    let charts = charts.to_string_lossy().into_owned();
    let mut compared = 0;
    let mut disagreements = Vec::new();
    for run in SCOPE_RUNS {
        let root = corpus.join(run.repository);
        let mut flags = vec![
            "--chart-cache",
            charts.as_str(),
            "--offline",
            "--allow-missing-sources",
        ];
        flags.extend_from_slice(run.extra);
        let mut args = vec!["test", "-o", "json"];
        args.extend_from_slice(&flags);
        let whole = rows_of(&on(&root, run.entry, &args));
        let out = tempfile::tempdir().expect("tempdir");
        let tree = out.path().join("tree");
        let mut render = vec!["render", "--out", tree.to_str().expect("UTF-8 path")];
        render.extend_from_slice(&flags);
        on(&root, run.entry, &render);
        for ((kind, namespace, name), row) in &whole {
            let verb = match kind.as_str() {
                "HelmRelease" => "hr",
                "Kustomization" => "ks",
                _ => continue,
            };
            let mut args = vec!["test", verb, name, "-n", namespace, "-o", "json"];
            args.extend_from_slice(&flags);
            let scoped = rows_of(&on(&root, run.entry, &args));
            let key = (kind.clone(), namespace.clone(), name.clone());
            if scoped.get(&key) != Some(row) {
                disagreements.push(format!(
                    "{}: `test {verb} {name} -n {namespace}`: whole {row:?}, scoped {:?}",
                    run.repository,
                    scoped.get(&key)
                ));
            }
            let mut args = vec!["build", verb, name, "-n", namespace];
            args.extend_from_slice(&flags);
            let built = on(&root, run.entry, &args);
            let expected =
                std::fs::read_to_string(tree.join(format!("{kind}/{namespace}/{name}.yaml")));
            let agrees = match &expected {
                Ok(expected) => built.status.success() && text(&built.stdout) == *expected,
                Err(_) => !built.status.success() && built.stdout.is_empty(),
            };
            if !agrees {
                disagreements.push(format!(
                    "{}: `build {verb} {name} -n {namespace}` (exit {:?}) differs from the whole render ({})",
                    run.repository,
                    built.status.code(),
                    if expected.is_ok() { "rendered" } else { "nothing rendered" }
                ));
            }
            compared += 1;
        }
    }
    println!("scoped against whole: {compared} objects compared");
    assert!(
        disagreements.is_empty(),
        "{} disagreements:\n{}",
        disagreements.len(),
        disagreements.join("\n")
    );
    assert!(compared > 150, "{compared}");
}

/// Issue 34.8, found by the corpus comparison: a target waiting on an object no file defines (here
/// the `kube-root-ca.crt` ConfigMap Kubernetes puts in every namespace) makes the quiet run
/// release every deferred release; those must run, not be deferred anew, or the absence is never
/// decided and the target ends BLOCKED ("not ready") where the whole run passes it.
#[test]
fn a_target_waiting_on_what_no_file_defines_ends_as_in_the_whole_run() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    let write = |file: &str, text: &str| write_file(root, file, text);
    write(
        "clusters/main/apps.yaml",
        "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: apps, namespace: flux-system}\nspec:\n  interval: 1h\n  path: ./apps\n  prune: true\n  targetNamespace: apps\n  sourceRef: {kind: GitRepository, name: flux-system}\n",
    );
    let manifest = |name: &str, extra: &str| {
        format!("apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {{name: {name}}}\nspec:\n  interval: 1h\n  chart:\n    spec:\n      chart: ./charts/app\n      sourceRef: {{kind: GitRepository, name: flux-system, namespace: flux-system}}\n{extra}")
    };
    write(
        "apps/releases.yaml",
        &[
            manifest(
                "needy",
                "  valuesFrom:\n    - {kind: ConfigMap, name: kube-root-ca.crt, valuesKey: ca.crt, targetPath: ca}\n",
            ),
            manifest("bystander", ""),
        ]
        .join("---\n"),
    );
    write(
        "charts/app/Chart.yaml",
        "apiVersion: v2\nname: app\nversion: 0.1.0\n",
    );
    write(
        "charts/app/templates/cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: '{{ .Release.Name }}'}\n",
    );
    let repository = discovered(root);
    let (full, _) = reconcile(&repository, Vec::new());
    let (scoped, _) = reconcile(&repository, vec![release("needy")]);
    let needy = outcome(&scoped, "HelmRelease", "needy");
    assert_eq!(needy, outcome(&full, "HelmRelease", "needy"));
    assert!(needy.0.contains("Ready"), "{needy:?}");
}

/// The scoped fixture copied to a temporary directory, the `apps` Kustomization waiting for the
/// health of all it applies (`wait: true`, so it fails on `broken`), and with `late`, a
/// Kustomization `late` that `dependsOn` it and applies one release, `late-web`.
pub(crate) fn waiting_fixture(late: bool) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    crate::common::copy_dir(&fixture(), dir.path());
    let apps = dir.path().join("clusters/main/apps.yaml");
    let text = std::fs::read_to_string(&apps).expect("read");
    let text = text.replace("  path: ./apps\n", "  path: ./apps\n  wait: true\n");
    let late_kustomization = "---\napiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: late, namespace: flux-system}\nspec:\n  interval: 1h\n  dependsOn: [{name: apps}]\n  path: ./late\n  prune: true\n  targetNamespace: apps\n  sourceRef: {kind: GitRepository, name: flux-system}\n";
    if !late {
        std::fs::write(&apps, text).expect("write");
        return dir;
    }
    std::fs::write(&apps, format!("{text}{late_kustomization}")).expect("write");
    let release = std::fs::read_to_string(dir.path().join("apps/other/release.yaml"))
        .expect("read")
        .replace("name: other", "name: late-web");
    std::fs::create_dir_all(dir.path().join("late")).expect("mkdir");
    std::fs::write(dir.path().join("late/release.yaml"), release).expect("write");
    dir
}

/// A Kustomization needed only because it applies the target (an ancestor) runs its health
/// checks without making what they check needed: `wait: true` on `apps` does not make `build hr
/// web` render every release of it. Whatever waits on the ancestor's outcome (a `dependsOn`, or
/// the ancestor as the target) has its checks made in full, and ends as in the whole run.
#[test]
fn an_ancestors_health_checks_need_their_objects_only_when_its_outcome_is_read() {
    let dir = waiting_fixture(true);
    let root = dir.path();
    let repository = discovered(root);
    let (full, all_rendered) = reconcile(&repository, Vec::new());
    assert_eq!(
        all_rendered,
        ["apps/broken", "apps/db", "apps/other", "apps/web"],
        "`late` waits for `apps`, which fails its health checks on `broken`"
    );
    let apps = outcome(&full, "Kustomization", "apps");
    assert!(apps.0.contains("health check failed"), "{apps:?}");
    assert!(outcome(&full, "Kustomization", "late").0.contains("Failed"));

    let (scoped, rendered) = reconcile(&repository, vec![release("web")]);
    assert_eq!(
        rendered,
        ["apps/db", "apps/web"],
        "`apps` waits, nothing reads it"
    );
    assert_eq!(
        outcome(&scoped, "HelmRelease", "web"),
        outcome(&full, "HelmRelease", "web")
    );

    // `late-web` needs `late`, which waits for `apps`: its checks are made, so `late` is
    // blocked and `late-web` never applied, as in the whole run; with `web` beside it, `apps` is
    // needed first as an ancestor, then for its outcome.
    for targets in [
        vec![release("late-web")],
        vec![release("web"), release("late-web")],
    ] {
        let (scoped, rendered) = reconcile(&repository, targets.clone());
        assert!(rendered.contains(&"apps/broken".to_owned()), "{rendered:?}");
        for (kind, name) in [("Kustomization", "apps"), ("Kustomization", "late")] {
            assert_eq!(
                outcome(&scoped, kind, name),
                outcome(&full, kind, name),
                "{targets:?}: {kind} {name}"
            );
        }
        let has_late_web =
            |report: &RunReport| report.statuses.iter().any(|(id, _)| id.name == "late-web");
        assert!(!has_late_web(&full), "late-web is never applied");
        assert!(
            !has_late_web(&scoped),
            "{targets:?}: late-web is not applied"
        );
    }

    // The ancestor as the target: its outcome is the whole run's.
    let apps_target = Target {
        kinds: vec!["Kustomization".to_owned()],
        name: Some("apps".to_owned()),
        namespace: None,
    };
    let (scoped, mut rendered) = reconcile(&repository, vec![apps_target]);
    // Released once needed, a release may render again when `config`, needed later, applies.
    rendered.dedup();
    assert_eq!(rendered, all_rendered);
    assert_eq!(outcome(&scoped, "Kustomization", "apps"), apps);

    // The commands print the whole run's rows for their targets.
    let row = |args: &[&str], name: &str| {
        let output = on(root, "clusters/main", args);
        let rows: serde_json::Value = serde_json::from_slice(&output.stdout)
            .unwrap_or_else(|e| panic!("{args:?}: {e}: {}", text(&output.stderr)));
        (rows.as_array().expect("rows").iter())
            .find(|r| r["kind"] == "HelmRelease" && r["name"] == name)
            .cloned()
    };
    assert!(row(&["test", "-o", "json"], "web").is_some());
    for name in ["web", "late-web"] {
        assert_eq!(
            row(&["test", "hr", name, "-o", "json"], name),
            row(&["test", "-o", "json"], name),
            "test hr {name}"
        );
    }
}

/// `build` runs each cluster the path holds on its own, as `test` does: from a path above one
/// cluster it builds what that cluster's run applies (the entry's kustomization file, built by
/// the bootstrap's Kustomization, patches what it lists), and a name several clusters hold is
/// refused with the clusters named.
#[test]
fn build_runs_each_cluster_of_the_path() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    let write = |file: &str, text: &str| write_file(root, file, text);
    std::fs::create_dir_all(root.join(".git")).expect("mkdir");
    for cluster in ["prod", "stage"] {
        write(
            &format!("clusters/{cluster}/flux/apps.yaml"),
            "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: apps, namespace: flux-system}\nspec:\n  interval: 1h\n  path: ./apps\n  prune: true\n  sourceRef: {kind: GitRepository, name: flux-system}\n",
        );
        write(
            &format!("clusters/{cluster}/kustomization.yaml"),
            &format!("resources:\n  - flux/apps.yaml\npatches:\n  - target: {{kind: Kustomization, name: apps}}\n    patch: |-\n      - {{op: add, path: /spec/targetNamespace, value: {cluster}}}\n"),
        );
    }
    write(
        "apps/cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: app, namespace: default}\n",
    );
    // `build ks apps` from `path` builds prod's `apps`, patched by prod's entry.
    let builds_prod = |path: &str| {
        let built = on(root, path, &["build", "ks", "apps"]);
        assert!(built.status.success(), "{path}: {}", text(&built.stderr));
        let objects = text(&built.stdout);
        assert!(objects.contains("namespace: prod"), "{path}: {objects}");
    };
    builds_prod("clusters/prod");
    let both = on(root, ".", &["build", "ks", "apps"]);
    assert_eq!(both.status.code(), Some(2), "{}", text(&both.stdout));
    let error = text(&both.stderr);
    assert!(
        error.contains("is in 2 clusters here (prod, stage)")
            && error.contains("--path clusters/prod"),
        "{error}"
    );
    std::fs::remove_dir_all(root.join("clusters/stage")).expect("remove");
    builds_prod(".");
}
