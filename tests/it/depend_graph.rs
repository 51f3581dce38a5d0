//! Dependency gating, readyExpr, cycle detection and the graph, on objects written by each test.

use std::path::Path;

use offlux::controllers::depend::{self, DependencyState, Gate, GateOptions};
use offlux::discovery::{discover, Options, Repository};
use offlux::model::{FluxObject, ResourceId};

fn write(root: &Path, file: &str, text: &str) {
    let path = root.join(file);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).expect("mkdir");
    }
    std::fs::write(path, text).expect("write");
}

fn repository(files: &[(&str, &str)]) -> (tempfile::TempDir, Repository) {
    let dir = tempfile::tempdir().expect("tempdir");
    for (file, text) in files {
        write(dir.path(), file, text);
    }
    let repo = discover(&Options::new(dir.path())).expect("discovery succeeds");
    (dir, repo)
}

fn ks(name: &str, depends_on: &[&str]) -> String {
    let mut text = format!(
        "---\napiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: {name}\n  namespace: flux-system\nspec:\n  path: ./{name}\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n"
    );
    if !depends_on.is_empty() {
        text.push_str("  dependsOn:\n");
        for entry in depends_on {
            text.push_str(&format!("    - {entry}\n"));
        }
    }
    text
}

fn find<'a>(repo: &'a Repository, name: &str) -> &'a FluxObject {
    repo.flux_objects
        .iter()
        .find(|f| f.name() == name)
        .expect("object exists")
}

#[test]
fn depends_on_defaults_namespace_kind_and_variable_defaults() {
    let (_dir, repo) = repository(&[(
        "a.yaml",
        &ks(
            "a",
            &[
                "name: b",
                "{name: c, namespace: other}",
                "{name: \"${DEP:=d}\"}",
                "{name: e, kind: HelmRelease}",
            ],
        ),
    )]);
    let deps: Vec<String> = depend::dependencies(find(&repo, "a"))
        .iter()
        .map(|d| {
            format!(
                "{} {}/{}/{}",
                d.id.group, d.id.kind, d.id.namespace, d.id.name
            )
        })
        .collect();
    assert_eq!(
        deps,
        [
            "kustomize.toolkit.fluxcd.io Kustomization/flux-system/b",
            "kustomize.toolkit.fluxcd.io Kustomization/other/c",
            "kustomize.toolkit.fluxcd.io Kustomization/flux-system/d",
            "helm.toolkit.fluxcd.io HelmRelease/flux-system/e",
        ]
    );
}

#[test]
fn cycles_are_reported_with_their_path_and_diamonds_are_not_cycles() {
    let mut text = String::new();
    for (name, deps) in [
        ("a", vec!["name: b"]),
        ("b", vec!["name: c"]),
        ("c", vec!["name: a"]),
        ("self", vec!["name: self"]),
    ] {
        text.push_str(&ks(name, &deps));
    }
    for (name, deps) in [
        ("top", vec!["name: left", "name: right"]),
        ("left", vec!["name: bottom"]),
        ("right", vec!["name: bottom"]),
        ("bottom", vec![]),
    ] {
        text.push_str(&ks(name, &deps));
    }
    let (_dir, repo) = repository(&[("all.yaml", &text)]);
    let cycles: Vec<String> = depend::find_cycles(&repo.flux_objects)
        .iter()
        .map(|c| c.to_string())
        .collect();
    assert_eq!(
        cycles,
        [
            "dependency cycle: Kustomization/flux-system/a → Kustomization/flux-system/b → Kustomization/flux-system/c → Kustomization/flux-system/a",
            "dependency cycle: Kustomization/flux-system/self → Kustomization/flux-system/self",
        ]
    );
}

#[test]
fn cycles_across_kinds_are_found() {
    let hr = "---\napiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: db\n  namespace: flux-system\nspec:\n  chart:\n    spec:\n      chart: db\n      sourceRef: {kind: HelmRepository, name: charts}\n  dependsOn:\n    - {name: app, kind: Kustomization}\n";
    let text = format!("{}{hr}", ks("app", &["{name: db, kind: HelmRelease}"]));
    let (_dir, repo) = repository(&[("x.yaml", &text)]);
    let cycles: Vec<String> = depend::find_cycles(&repo.flux_objects)
        .iter()
        .map(|c| c.to_string())
        .collect();
    assert_eq!(
        cycles,
        ["dependency cycle: HelmRelease/flux-system/db → Kustomization/flux-system/app → HelmRelease/flux-system/db"]
    );
}

fn id(name: &str) -> ResourceId {
    ResourceId::new(
        "kustomize.toolkit.fluxcd.io/v1",
        "Kustomization",
        "flux-system",
        name,
    )
}

#[test]
fn gate_waits_then_fails_on_absent_and_passes_failures_up() {
    let (_dir, repo) = repository(&[("x.yaml", &ks("app", &["name: infra"]))]);
    let app = find(&repo, "app");
    let deps = depend::dependencies(app);
    let absent = |_: &ResourceId| DependencyState::Absent;
    assert_eq!(
        depend::gate(&app.object, &deps, absent, GateOptions::default()),
        Gate::Wait(vec![id("infra")])
    );
    assert_eq!(
        depend::gate(
            &app.object,
            &deps,
            absent,
            GateOptions {
                absent_is_final: true,
                pending_is_final: false
            }
        ),
        Gate::Closed {
            message: "dependency 'flux-system/infra' not found".into(),
            blocked_by: vec![id("infra")]
        }
    );
    let pending = |_: &ResourceId| DependencyState::Pending;
    assert_eq!(
        depend::gate(
            &app.object,
            &deps,
            pending,
            GateOptions {
                absent_is_final: true,
                pending_is_final: true
            }
        ),
        Gate::Closed {
            message: "dependency 'flux-system/infra' is not ready".into(),
            blocked_by: vec![id("infra")]
        }
    );
    let failed = |_: &ResourceId| DependencyState::Failed {
        message: "dependency 'flux-system/base' not found".into(),
        blocked_by: vec![id("base")],
    };
    assert_eq!(
        depend::gate(&app.object, &deps, failed, GateOptions::default()),
        Gate::Closed {
            message: "dependency 'flux-system/base' not found".into(),
            blocked_by: vec![id("infra"), id("base")]
        }
    );
}

#[test]
fn ready_expr_sees_spec_metadata_and_status() {
    let (_dir, repo) = repository(&[(
        "x.yaml",
        &format!(
            "{}{}",
            ks("app", &["{name: infra, readyExpr: \"dep.spec.path == './infra' && self.metadata.name == 'app' && dep.status.conditions.exists(c, c.type == 'Ready' && c.status == 'True')\"}"]),
            ks("infra", &[])
        ),
    )]);
    let app = find(&repo, "app");
    let infra = find(&repo, "infra");
    let deps = depend::dependencies(app);
    let ready = |_: &ResourceId| DependencyState::Ready {
        object: &infra.object,
        offline: None,
        suspended: false,
    };
    assert_eq!(
        depend::gate(&app.object, &deps, ready, GateOptions::default()),
        Gate::Open { notes: vec![] }
    );
    // Flux Operator's form: the dependency's own fields, without `dep.`.
    assert_eq!(
        depend::evaluate_ready_expr(
            "status.conditions.filter(e, e.type == 'Ready').all(e, e.status == 'True') && status.observedGeneration == 1 && metadata.name == 'infra'",
            &app.object,
            &infra.object
        ),
        Ok(true)
    );
    assert_eq!(
        depend::evaluate_ready_expr("dep.spec.path == './other'", &app.object, &infra.object),
        Ok(false)
    );
    let error = depend::evaluate_ready_expr("dep.spec.missing == 1", &app.object, &infra.object)
        .expect_err("missing key");
    assert!(error.contains("evaluating"), "{error}");
    let error = depend::evaluate_ready_expr("dep.spec.path", &app.object, &infra.object)
        .expect_err("not a bool");
    assert!(error.contains("must yield a boolean"), "{error}");
    assert!(depend::evaluate_ready_expr("((", &app.object, &infra.object).is_err());
    // Nested comprehensions that would run for hours are refused before they run (`cel_cost`).
    let list = format!("[{}]", vec!["1"; 300].join(","));
    let costly = format!("{list}.all(a, {list}.all(b, {list}.all(c, {list}.all(d, a == b))))");
    let started = std::time::Instant::now();
    let error =
        depend::evaluate_ready_expr(&costly, &app.object, &infra.object).expect_err("too costly");
    assert!(error.contains("estimated cost"), "{error}");
    assert!(started.elapsed() < std::time::Duration::from_secs(5));
}

#[test]
fn graph_of_the_example_has_every_kind_of_edge() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/example");
    let mut options = Options::new(&root);
    options.root = Some(root.clone());
    let repo = discover(&options).expect("discovery");
    let graph = offlux::graph::build(&repo);
    let edges: Vec<String> = graph
        .edges
        .iter()
        .map(|e| {
            format!(
                "{} -{:?}-> {}",
                depend::label(&e.from),
                e.kind,
                depend::label(&e.to)
            )
        })
        .collect();
    assert_eq!(
        edges,
        [
            "HelmRelease/hello/hello -Source-> GitRepository/flux-system/flux-system",
            "Kustomization/flux-system/apps -SubstituteFrom-> ConfigMap/flux-system/cluster-vars",
            "Kustomization/flux-system/apps -Source-> GitRepository/flux-system/flux-system",
            "Kustomization/flux-system/apps -Applies-> HelmRelease/hello/hello",
            "Kustomization/flux-system/apps -DependsOn-> Kustomization/flux-system/infrastructure",
            "Kustomization/flux-system/flux-system -Source-> GitRepository/flux-system/flux-system",
            "Kustomization/flux-system/flux-system -Applies-> GitRepository/flux-system/flux-system",
            "Kustomization/flux-system/flux-system -Applies-> Kustomization/flux-system/apps",
            "Kustomization/flux-system/flux-system -Applies-> Kustomization/flux-system/infrastructure",
            "Kustomization/flux-system/infrastructure -Source-> GitRepository/flux-system/flux-system",
        ]
    );
    assert!(graph.cycles.is_empty());
    let dot = offlux::graph::to_dot(&graph);
    assert!(
        dot.contains(
            "\"Kustomization/flux-system/apps\" -> \"Kustomization/flux-system/infrastructure\" [label=\"dependsOn\"];"
        ),
        "{dot}"
    );
    let mermaid = offlux::graph::to_mermaid(&graph);
    assert!(mermaid.starts_with("flowchart LR\n"));
}

#[test]
fn graph_highlights_cycles_and_missing_nodes() {
    let text = format!(
        "{}{}",
        ks("a", &["name: b"]),
        ks("b", &["name: a", "name: ghost"])
    );
    let (_dir, repo) = repository(&[("x.yaml", &text)]);
    let graph = offlux::graph::build(&repo);
    let json = offlux::graph::to_json(&graph);
    assert_eq!(
        json["cycles"][0],
        "dependency cycle: Kustomization/flux-system/a → Kustomization/flux-system/b → Kustomization/flux-system/a"
    );
    let cycle_edges = json["edges"]
        .as_array()
        .expect("edges")
        .iter()
        .filter(|e| e["inCycle"] == true)
        .count();
    assert_eq!(cycle_edges, 2);
    let ghost = json["nodes"]
        .as_array()
        .expect("nodes")
        .iter()
        .find(|n| n["name"] == "ghost")
        .expect("ghost node");
    assert!(ghost["definedAt"].is_null());
    assert!(offlux::graph::to_dot(&graph).contains("color=red"));
    assert!(offlux::graph::to_mermaid(&graph).contains("linkStyle"));
}

#[test]
fn sources_resolve_to_the_working_tree_or_say_what_is_missing() {
    use offlux::controllers::source::{resolve, SourceResolution};
    let git = |name: &str, url: &str| {
        format!("---\napiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata: {{name: {name}, namespace: flux-system}}\nspec:\n  url: {url}\n")
    };
    let text = format!(
        "{}{}",
        git("mirror", "ssh://git@github.com/org/repo.git"),
        git("other", "https://example.com/x.git")
    );
    let (_dir, repo) = repository(&[("sources.yaml", &text)]);
    let source = |kind: &str, name: &str| {
        ResourceId::new("source.toolkit.fluxcd.io/v1", kind, "flux-system", name)
    };
    let remote = Some("https://github.com/org/repo");
    assert_eq!(
        resolve(&source("GitRepository", "flux-system"), &repo, remote),
        SourceResolution::WorkingTree { note: None }
    );
    assert!(
        matches!(resolve(&source("GitRepository", "mirror"), &repo, remote), SourceResolution::WorkingTree { note: Some(n) } if n.contains("points at this repository"))
    );
    // A source defined nowhere is not found (issue 21), no longer taken to be the working tree.
    assert_eq!(
        resolve(&source("OCIRepository", "undefined"), &repo, remote),
        SourceResolution::NotFound("source OCIRepository/flux-system/undefined not found".into())
    );
    assert_eq!(
        resolve(&source("GitRepository", "other"), &repo, remote),
        SourceResolution::Unavailable("GitRepository/flux-system/other (`https://example.com/x.git`) is not available offline".into())
    );
    assert!(matches!(
        resolve(&source("GitRepository", "mirror"), &repo, None),
        SourceResolution::Unavailable(_)
    ));
}
