//! The scheduler's outcomes do not depend on timing (issue 22): dependency cycles end with their
//! path, dependants are blocked by the member they reach first, objects skipped offline let their
//! dependants go on with a note, and random dependency graphs give one roster at every concurrency.
//!
//! The property test is CI-sized; a longer run: `OFFLUX_GRAPH_CASES=500 OFFLUX_GRAPH_REPEATS=20
//! cargo test --release --test it schedule_outcomes::random_graphs`.

#![allow(
    clippy::print_stderr,
    clippy::disallowed_methods,
    reason = "tests print what they checked and read their settings from the environment"
)]

use crate::common::canned_build;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use assert_cmd::Command;
use offlux::controllers::helmrelease::{
    ChartLocation, HelmRenderError, HelmRenderRequest, HelmRenderer, RenderedRelease,
};
use offlux::controllers::runtime::{run, BuiltObject, KustomizationBuilder, RunOptions, RunReport};
use offlux::discovery::{discover, Options, Repository};
use offlux::yaml::{parse_stream, Node, ParseOptions};
use proptest::prelude::*;

/// Returns the YAML text written for each directory (relative to the root), as if kustomize had
/// built it.
struct Canned(BTreeMap<String, String>);

impl KustomizationBuilder for Canned {
    fn build(&self, root: &Path, dir: &Path, _: &Node) -> Result<Vec<BuiltObject>, String> {
        let relative = dir.strip_prefix(root).map_err(|e| e.to_string())?;
        let text = self
            .0
            .get(relative.to_string_lossy().as_ref())
            .cloned()
            .unwrap_or_default();
        canned_build::built_objects(&text)
    }
}

/// Renders a ConfigMap named after the release for local charts; repository charts are not
/// available offline.
struct FakeHelm;

impl HelmRenderer for FakeHelm {
    fn render(&self, request: &HelmRenderRequest) -> Result<RenderedRelease, HelmRenderError> {
        if let ChartLocation::Repository(chart) = &request.chart {
            return Err(HelmRenderError::Unavailable(format!(
                "chart {} is not available offline",
                chart.chart
            )));
        }
        let text = format!(
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {}\n  namespace: {}\n",
            request.release_name, request.namespace
        );
        let objects = parse_stream(&text, &ParseOptions::default())
            .map_err(|e| HelmRenderError::Failed(e.to_string()))?
            .into_iter()
            .map(|d| d.into_root())
            .collect();
        Ok(RenderedRelease {
            objects,
            ..RenderedRelease::default()
        })
    }
}

fn write(root: &Path, file: &str, text: &str) {
    let path = root.join(file);
    std::fs::create_dir_all(path.parent().unwrap_or(root)).expect("mkdir");
    std::fs::write(path, text).expect("write");
}

/// A Kustomization of the working tree building `./d/shared` (an empty build).
fn ks(name: &str, extra: &str) -> String {
    ks_at(name, "./d/shared", extra)
}

fn ks_at(name: &str, path: &str, extra: &str) -> String {
    format!("---\napiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: {name}\n  namespace: flux-system\nspec:\n  path: {path}\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n{extra}")
}

fn hr(name: &str, extra: &str) -> String {
    format!("---\napiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: {name}\n  namespace: flux-system\nspec:\n  chart:\n    spec:\n      chart: ./charts/x\n      sourceRef: {{kind: GitRepository, name: flux-system}}\n{extra}")
}

fn depends_on(entries: &[&str]) -> String {
    let mut text = "  dependsOn:\n".to_owned();
    for entry in entries {
        text.push_str(&format!("    - {entry}\n"));
    }
    text
}

fn discover_at(root: &Path) -> Repository {
    write(root, "d/shared/keep.yaml", "a: 1\n");
    let mut options = Options::new(root.join("entry"));
    options.root = Some(root.to_path_buf());
    discover(&options).expect("discovery")
}

fn rows(report: &RunReport) -> BTreeMap<String, String> {
    report
        .statuses
        .iter()
        .map(|(id, record)| {
            let blocked: Vec<String> = record.blocked_by.iter().map(|b| b.to_string()).collect();
            let notes = report.notes.get(id).cloned().unwrap_or_default();
            (
                id.to_string(),
                format!("{} {blocked:?} {notes:?}", record.status),
            )
        })
        .collect()
}

fn run_at(repository: &Repository, builder: &Canned, concurrency: usize) -> RunReport {
    let options = RunOptions {
        concurrency: Some(concurrency),
        ..RunOptions::default()
    };
    run(repository, builder, &FakeHelm, &options)
}

/// Everything a run shows: statuses with their causes and notes, what each producer rendered,
/// diagnostics.
fn outcome(report: &RunReport) -> String {
    let rendered: Vec<(String, Vec<String>)> = report
        .rendered
        .iter()
        .map(|(id, objects)| {
            (
                id.to_string(),
                objects.iter().map(|o| o.id.to_string()).collect(),
            )
        })
        .collect();
    let diagnostics: Vec<String> = report
        .diagnostics
        .iter()
        .map(|d| format!("{d:?}"))
        .collect();
    format!("{:#?}\n{rendered:#?}\n{diagnostics:#?}", rows(report))
}

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/cycle")
}

fn offlux_test(format: &str, concurrency: usize) -> std::process::Output {
    let root = fixture();
    Command::cargo_bin("offlux")
        .expect("binary is built")
        .env("NO_COLOR", "1")
        .args(["test", "-o", format, "--concurrency"])
        .arg(concurrency.to_string())
        .arg("--path")
        .arg(&root)
        .arg("--root")
        .arg(&root)
        .output()
        .expect("runs")
}

const CYCLE: &str = "dependency cycle: Kustomization/flux-system/cycle-a → Kustomization/flux-system/cycle-b → Kustomization/flux-system/cycle-c → Kustomization/flux-system/cycle-a";

#[test]
fn the_cycle_fixture_gives_one_roster_in_fifty_runs_at_concurrency_1_and_8() {
    let mut rosters = std::collections::BTreeSet::new();
    for concurrency in [1, 8] {
        for _ in 0..50 {
            let output = offlux_test("json", concurrency);
            assert_eq!(output.status.code(), Some(1));
            rosters.insert(output.stdout);
        }
    }
    assert_eq!(rosters.len(), 1, "{} distinct rosters", rosters.len());
    let roster: serde_json::Value =
        serde_json::from_slice(rosters.first().map_or(&[][..], |r| &r[..])).expect("json");
    let members: Vec<(&str, &str, &str)> = roster
        .as_array()
        .into_iter()
        .flatten()
        .filter(|row| row["kind"] == "Kustomization")
        .map(|row| {
            (
                row["name"].as_str().unwrap_or_default(),
                row["result"].as_str().unwrap_or_default(),
                row["message"].as_str().unwrap_or_default(),
            )
        })
        .collect();
    assert_eq!(
        members,
        [
            ("cycle-a", "FAIL", CYCLE),
            ("cycle-b", "FAIL", CYCLE),
            ("cycle-c", "FAIL", CYCLE)
        ]
    );
}

#[test]
fn junit_and_github_outputs_name_the_cycle() {
    let junit = String::from_utf8_lossy(&offlux_test("junit", 2).stdout).into_owned();
    assert_eq!(junit.matches(CYCLE).count(), 3, "{junit}");
    let github = String::from_utf8_lossy(&offlux_test("github", 2).stdout).into_owned();
    assert_eq!(
        github
            .matches("dependency cycle: Kustomization/flux-system/cycle-a")
            .count(),
        3,
        "{github}"
    );
}

#[test]
fn dependants_of_a_cycle_are_blocked_by_the_member_they_reach_first() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    let text = [
        ks("a", &depends_on(&["name: b"])),
        ks("b", &depends_on(&["name: c"])),
        ks("c", &depends_on(&["name: a"])),
        ks("x", &depends_on(&["name: c", "name: a"])),
        ks("y", &depends_on(&["name: x"])),
    ]
    .concat();
    write(root, "entry/all.yaml", &text);
    let repository = discover_at(root);
    let builder = Canned(BTreeMap::new());
    let report = run_at(&repository, &builder, 4);
    let rows = rows(&report);
    let cycle = "dependency cycle: Kustomization/flux-system/a → Kustomization/flux-system/b → Kustomization/flux-system/c → Kustomization/flux-system/a";
    for member in ["a", "b", "c"] {
        assert_eq!(
            rows.get(&format!("Kustomization/flux-system/{member}")),
            Some(&format!("failed: {cycle} [] []")),
            "{rows:#?}"
        );
    }
    assert_eq!(
        rows.get("Kustomization/flux-system/x"),
        Some(&format!(
            "failed: {cycle} [\"Kustomization/flux-system/c\"] []"
        ))
    );
    assert_eq!(
        rows.get("Kustomization/flux-system/y"),
        Some(&format!(
            "failed: {cycle} [\"Kustomization/flux-system/c\", \"Kustomization/flux-system/x\"] []"
        ))
    );
    let errors: Vec<&str> = report
        .diagnostics
        .iter()
        .map(|d| d.message.as_str())
        .collect();
    assert_eq!(errors, [cycle], "one diagnostic per cycle");
}

#[test]
fn cross_kind_cycles_and_cycles_through_a_produced_source_end_the_same_way() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    // Kustomization/app → HelmRelease/db → Kustomization/app; Kustomization/gen → Kustomization/user, whose source only gen's build publishes.
    let user = "---\napiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: user\n  namespace: flux-system\nspec:\n  path: ./d/user\n  sourceRef:\n    kind: GitRepository\n    name: made\n";
    let made = "---\napiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata:\n  name: made\n  namespace: flux-system\nspec:\n  url: https://example.com/made.git\n";
    let text = [
        ks("app", &depends_on(&["name: db\n      kind: HelmRelease"])),
        hr("db", &depends_on(&["name: app\n      kind: Kustomization"])),
        ks_at("gen", "./d/gen", &depends_on(&["name: user"])),
        user.to_owned(),
    ]
    .concat();
    write(root, "entry/all.yaml", &text);
    write(root, "d/gen/made.yaml", made);
    let repository = discover_at(root);
    let builder = Canned(BTreeMap::from([("d/gen".to_owned(), made.to_owned())]));
    let mut seen = std::collections::BTreeSet::new();
    for concurrency in [1, 2, 8] {
        seen.insert(outcome(&run_at(&repository, &builder, concurrency)));
    }
    assert_eq!(seen.len(), 1, "{seen:#?}");
    let report = run_at(&repository, &builder, 2);
    let rows = rows(&report);
    let across = "dependency cycle: HelmRelease/flux-system/db → Kustomization/flux-system/app → HelmRelease/flux-system/db";
    assert_eq!(
        rows.get("HelmRelease/flux-system/db"),
        Some(&format!("failed: {across} [] []")),
        "{rows:#?}"
    );
    assert_eq!(
        rows.get("Kustomization/flux-system/app"),
        Some(&format!("failed: {across} [] []"))
    );
    let through = "dependency cycle: GitRepository/flux-system/made → Kustomization/flux-system/gen → Kustomization/flux-system/user → GitRepository/flux-system/made";
    for member in ["gen", "user"] {
        assert_eq!(
            rows.get(&format!("Kustomization/flux-system/{member}")),
            Some(&format!("failed: {through} [] []")),
            "{rows:#?}"
        );
    }
}

#[test]
fn dependants_of_objects_skipped_offline_go_on_with_a_note_or_are_blocked_by_the_cause() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    // `offline` needs a source offlux cannot fetch; `infra` depends on it and would publish HelmRelease/db;
    // HelmRelease/chart's chart is in a repository, not available offline. `app` depends on db and chart.
    let sources = "---\napiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata:\n  name: remote\n  namespace: flux-system\nspec:\n  url: https://example.com/remote.git\n---\napiVersion: source.toolkit.fluxcd.io/v1\nkind: HelmRepository\nmetadata:\n  name: charts\n  namespace: flux-system\nspec:\n  url: https://charts.example.com\n";
    let offline = "---\napiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: offline\n  namespace: flux-system\nspec:\n  path: ./deploy\n  sourceRef:\n    kind: GitRepository\n    name: remote\n";
    let chart = "---\napiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: chart\n  namespace: flux-system\nspec:\n  chart:\n    spec:\n      chart: podinfo\n      sourceRef: {kind: HelmRepository, name: charts}\n";
    let text = [
        sources.to_owned(),
        offline.to_owned(),
        chart.to_owned(),
        ks_at("infra", "./d/infra", &depends_on(&["name: offline"])),
        ks(
            "app",
            &depends_on(&[
                "name: db\n      kind: HelmRelease",
                "name: chart\n      kind: HelmRelease",
            ]),
        ),
    ]
    .concat();
    write(root, "entry/all.yaml", &text);
    write(root, "d/infra/db.yaml", &hr("db", ""));
    let repository = discover_at(root);
    let builder = Canned(BTreeMap::from([("d/infra".to_owned(), hr("db", ""))]));

    let allowed = run(
        &repository,
        &builder,
        &FakeHelm,
        &RunOptions {
            allow_missing_sources: true,
            ..RunOptions::default()
        },
    );
    let rows_allowed = rows(&allowed);
    let offline_reason = "GitRepository/flux-system/remote (`https://example.com/remote.git`) is not available offline";
    assert_eq!(
        rows_allowed.get("Kustomization/flux-system/infra"),
        Some(&format!("ready [] [\"dependency Kustomization/flux-system/offline was assumed ready offline ({offline_reason})\"]")),
        "{rows_allowed:#?}"
    );
    assert_eq!(
        rows_allowed.get("HelmRelease/flux-system/db"),
        Some(&"ready [] []".to_owned())
    );
    assert_eq!(
        rows_allowed.get("Kustomization/flux-system/app"),
        Some(&"ready [] [\"dependency HelmRelease/flux-system/chart was assumed ready offline (chart podinfo is not available offline)\"]".to_owned()),
        "{rows_allowed:#?}"
    );

    let strict = run_at(&repository, &builder, 2);
    let rows_strict = rows(&strict);
    assert_eq!(
        rows_strict.get("Kustomization/flux-system/app"),
        Some(&format!("failed: {offline_reason} [\"GitRepository/flux-system/remote\", \"HelmRelease/flux-system/db\"] []")),
        "blocked through db's producer with the offline cause, not 'not found': {rows_strict:#?}"
    );
}

#[test]
fn cluster_scoped_dependencies_have_no_namespace_and_ready_expr_reads_status() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    let ready = "readyExpr: \"status.conditions.filter(e, e.type == 'Ready').all(e, e.status == 'True') && dep.status.observedGeneration == 1\"";
    write(root, "d/infra/keep.yaml", "a: 1\n");
    let text = [
        ks_at("infra", "./d/infra", ""),
        ks(
            "apps",
            &depends_on(&[&format!("name: infra\n      {ready}"), "name: widgets.example.com\n      kind: CustomResourceDefinition\n      apiVersion: apiextensions.k8s.io/v1"]),
        ),
    ]
    .concat();
    write(root, "entry/all.yaml", &text);
    let repository = discover_at(root);
    let builder = Canned(BTreeMap::new());
    let report = run_at(&repository, &builder, 2);
    let rows = rows(&report);
    assert_eq!(
        rows.get("Kustomization/flux-system/apps"),
        Some(&"failed: dependency 'CustomResourceDefinition/widgets.example.com' not found [\"CustomResourceDefinition/widgets.example.com\"] []".to_owned()),
        "readyExpr evaluated, and the CRD is named without a namespace: {rows:#?}"
    );
    // Once a build renders the CRD, the dependency is there.
    let crd = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: widgets.example.com\n";
    let builder = Canned(BTreeMap::from([("d/infra".to_owned(), crd.to_owned())]));
    let report = run_at(&repository, &builder, 2);
    assert_eq!(
        rows_of(&report, "Kustomization/flux-system/apps"),
        "ready [] []"
    );
}

fn rows_of(report: &RunReport, id: &str) -> String {
    rows(report).get(id).cloned().unwrap_or_default()
}

/// Writes `count` Kustomizations in a ring (or a chain) and runs them; the time the run took.
fn ring_or_chain(count: usize, ring: bool) -> (Duration, RunReport) {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    let name = |n: usize| format!("k{n:05}");
    let mut text = String::new();
    for n in 0..count {
        let next = if n + 1 < count {
            depends_on(&[&format!("name: {}", name(n + 1))])
        } else if ring {
            depends_on(&[&format!("name: {}", name(0))])
        } else {
            String::new()
        };
        text.push_str(&ks(&name(n), &next));
    }
    write(root, "entry/all.yaml", &text);
    let repository = discover_at(root);
    let builder = Canned(BTreeMap::new());
    let start = Instant::now();
    let report = run_at(&repository, &builder, 2);
    (start.elapsed(), report)
}

#[test]
fn a_5000_node_cycle_ends_within_twice_the_time_of_a_5000_node_chain() {
    let (chain, chain_report) = ring_or_chain(5000, false);
    let (ring, ring_report) = ring_or_chain(5000, true);
    eprintln!("5000-node chain: {chain:?}; 5000-node cycle: {ring:?}");
    assert_eq!(chain_report.statuses.len(), 5000);
    assert!(ring_report
        .statuses
        .iter()
        .all(|(_, r)| r.status.to_string().starts_with(
            "failed: dependency cycle: Kustomization/flux-system/k00000 → Kustomization/flux-system/k00001"
        )));
    // Twice the chain, plus slack for a machine shared with other builds.
    assert!(
        ring <= chain * 2 + Duration::from_millis(500),
        "cycle {ring:?} vs chain {chain:?}"
    );
}

/// One random repository: Kustomizations and HelmReleases with dependencies among them (across
/// kinds, on themselves, on objects that never exist, with a readyExpr that is never true), some
/// published late by another Kustomization's build, and a ring of 2 to 50 Kustomizations that one
/// of them may depend on.
#[derive(Clone, Debug)]
struct Graph {
    nodes: Vec<GraphNode>,
    ring: usize,
    into_ring: Option<usize>,
}

/// Whether it is a HelmRelease; its dependencies (target, flavour 0: a readyExpr never true;
/// targets past the last node never exist); the Kustomization that publishes it, if any.
type GraphNode = (bool, Vec<(usize, u8)>, Option<usize>);

fn node_name(at: usize, graph: &Graph) -> (String, &'static str) {
    let is_hr = graph.nodes.get(at).is_some_and(|n| n.0);
    let kind = if is_hr {
        "HelmRelease"
    } else {
        "Kustomization"
    };
    (format!("n{at:02}"), kind)
}

fn arbitrary_graph() -> impl Strategy<Value = Graph> {
    (2usize..12, 2usize..51).prop_flat_map(|(count, ring)| {
        let edge = (0..count + 2, 0u8..6);
        let node = (
            proptest::bool::weighted(0.3),
            proptest::collection::vec(edge, 0..4),
            proptest::option::weighted(0.3, 0..count),
        );
        (
            proptest::collection::vec(node, count),
            Just(ring),
            proptest::option::of(0..count),
        )
            .prop_map(|(nodes, ring, into_ring)| Graph {
                nodes,
                ring,
                into_ring,
            })
    })
}

/// Writes `graph` under `root`; the builder that publishes each producer's children.
fn write_graph(root: &Path, graph: &Graph) -> Canned {
    let count = graph.nodes.len();
    let mut entry = String::new();
    let mut children: BTreeMap<String, String> = BTreeMap::new();
    for (at, (is_hr, edges, producer)) in graph.nodes.iter().enumerate() {
        let (name, _) = node_name(at, graph);
        let mut entries = Vec::new();
        for (target, flavour) in edges {
            let entry = if *target >= count {
                format!("name: ghost{target}\n      kind: Kustomization")
            } else {
                let (target_name, kind) = node_name(*target, graph);
                let mut entry = format!("name: {target_name}\n      kind: {kind}");
                if *flavour == 0 {
                    entry.push_str("\n      readyExpr: \"false\"");
                }
                entry
            };
            entries.push(entry);
        }
        if graph.into_ring == Some(at) {
            entries.push("name: r00\n      kind: Kustomization".to_owned());
        }
        let refs: Vec<&str> = entries.iter().map(String::as_str).collect();
        let deps = if refs.is_empty() {
            String::new()
        } else {
            depends_on(&refs)
        };
        let text = if *is_hr {
            hr(&name, &deps)
        } else {
            write(root, &format!("d/{name}/keep.yaml"), "a: 1\n");
            ks_at(&name, &format!("./d/{name}"), &deps)
        };
        // A producer must be a Kustomization with a smaller index, so that no object produces itself.
        let producer = producer
            .filter(|p| *p < at)
            .filter(|p| graph.nodes.get(*p).is_some_and(|n| !n.0));
        match producer {
            Some(p) => {
                let dir = format!("d/n{p:02}");
                write(root, &format!("{dir}/{name}.yaml"), &text);
                children.entry(dir).or_default().push_str(&text);
            }
            None => entry.push_str(&text),
        }
    }
    for r in 0..graph.ring {
        let next = (r + 1) % graph.ring;
        entry.push_str(&ks(
            &format!("r{r:02}"),
            &depends_on(&[&format!("name: r{next:02}")]),
        ));
    }
    write(root, "entry/all.yaml", &entry);
    Canned(children)
}

fn graph_cases() -> u32 {
    std::env::var("OFFLUX_GRAPH_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(12)
}

fn graph_repeats() -> usize {
    std::env::var("OFFLUX_GRAPH_REPEATS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: graph_cases(), ..ProptestConfig::default() })]

    #[test]
    fn random_graphs_give_one_outcome_at_every_concurrency(graph in arbitrary_graph()) {
        let dir = tempfile::tempdir().expect("tempdir");
        let builder = write_graph(dir.path(), &graph);
        let repository = discover_at(dir.path());
        let mut outcomes = std::collections::BTreeSet::new();
        for concurrency in [1, 2, 4, 8] {
            for _ in 0..graph_repeats() {
                let report = run_at(&repository, &builder, concurrency);
                for (id, record) in &report.statuses {
                    let text = record.status.to_string();
                    prop_assert!(!text.contains("stopped after"), "{}: {}", id, text);
                    prop_assert!(text != "pending", "{} ended pending", id);
                    if id.name.starts_with('r') {
                        prop_assert!(text.starts_with("failed: dependency cycle: Kustomization/flux-system/r00 → "), "{}: {}", id, text);
                    }
                }
                outcomes.insert(outcome(&report));
            }
        }
        prop_assert_eq!(outcomes.len(), 1, "{:#?}", outcomes);
    }
}

#[test]
fn a_failure_passed_up_a_long_chain_keeps_its_nearest_dependency_and_root_cause_only() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    let name = |n: usize| format!("k{n:05}");
    let count = 2000;
    let mut text = String::new();
    for n in 0..count {
        let next = if n + 1 < count {
            name(n + 1)
        } else {
            "ghost".to_owned()
        };
        text.push_str(&ks(&name(n), &depends_on(&[&format!("name: {next}")])));
    }
    write(root, "entry/all.yaml", &text);
    let repository = discover_at(root);
    let report = run_at(&repository, &Canned(BTreeMap::new()), 2);
    assert_eq!(report.statuses.len(), count);
    for (id, record) in &report.statuses {
        assert!(
            record.blocked_by.len() <= 2,
            "{id}: {:?}",
            record.blocked_by
        );
        assert_eq!(
            record.status.to_string(),
            "failed: dependency 'flux-system/ghost' not found"
        );
    }
}
