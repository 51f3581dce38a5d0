//! The scheduler against a fake world: nodes with dependencies, data objects, emissions, latencies.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

use proptest::prelude::*;

use super::*;

/// What a fake node does when its dependencies are all there and Ready.
#[derive(Clone, Debug, Default)]
struct Spec {
    deps: Vec<String>,
    /// Nodes and data objects it emits when it reconciles: (id, is a node).
    emits: Vec<(String, bool)>,
    /// 0: none, 1: yield, 2: 20 µs, 3: 200 µs.
    latency: u8,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Status {
    Pending,
    Ready,
    Failed(String),
}

/// Replaces a body's behaviour when it returns `Some`.
type Hook = Box<dyn Fn(&World, &str, DrainLevel) -> Option<Outcome<String>> + Send + Sync>;

/// A tiny stand-in for the Store and the controllers.
struct World {
    specs: BTreeMap<String, Spec>,
    /// Ids present: seeded or emitted nodes and emitted data.
    present: Mutex<BTreeSet<String>>,
    statuses: Mutex<BTreeMap<String, Status>>,
    runs: Mutex<BTreeMap<String, usize>>,
    /// Who emitted each object. An object's content is the set of its emitters, so that, as in the
    /// Store, a re-add by the same emitter is silent and one by another is a change (at most one).
    emitters: Mutex<BTreeMap<String, BTreeSet<String>>>,
    handle: OnceLock<Handle<String>>,
    /// Hooks for single tests, run at the start of a body.
    hook: Option<Hook>,
}

impl World {
    fn new<S: Into<String>>(specs: impl IntoIterator<Item = (S, Spec)>) -> Self {
        World {
            specs: specs
                .into_iter()
                .map(|(id, spec)| (id.into(), spec))
                .collect(),
            present: Mutex::new(BTreeSet::new()),
            statuses: Mutex::new(BTreeMap::new()),
            runs: Mutex::new(BTreeMap::new()),
            emitters: Mutex::new(BTreeMap::new()),
            handle: OnceLock::new(),
            hook: None,
        }
    }

    fn handle(&self) -> &Handle<String> {
        self.handle
            .get()
            .expect("the test attaches a handle before running")
    }

    fn status(&self, id: &str) -> Status {
        self.statuses
            .lock()
            .unwrap()
            .get(id)
            .cloned()
            .unwrap_or(Status::Pending)
    }

    fn failure(&self, id: &str) -> String {
        match self.status(id) {
            Status::Failed(message) => message,
            other => format!("not failed: {other:?}"),
        }
    }

    fn runs_of(&self, id: &str) -> usize {
        self.runs.lock().unwrap().get(id).copied().unwrap_or(0)
    }

    fn emit_from(&self, parent: &str, id: &str, node: bool) {
        let changed = self
            .emitters
            .lock()
            .unwrap()
            .entry(id.to_owned())
            .or_default()
            .insert(parent.to_owned());
        if changed {
            self.emit(id, node);
        }
    }

    fn emit(&self, id: &str, node: bool) {
        self.present.lock().unwrap().insert(id.to_owned());
        if !node {
            self.statuses
                .lock()
                .unwrap()
                .insert(id.to_owned(), Status::Ready);
        }
        self.handle().on_arrival(id.to_owned(), node);
    }

    fn set(&self, id: &str, status: Status) -> Outcome<String> {
        self.statuses.lock().unwrap().insert(id.to_owned(), status);
        Outcome::Terminal
    }
}

impl Dispatcher<String> for World {
    fn dispatch(&self, id: &String, drain: DrainLevel) -> Outcome<String> {
        *self.runs.lock().unwrap().entry(id.clone()).or_default() += 1;
        if let Some(hook) = &self.hook {
            if let Some(outcome) = hook(self, id, drain) {
                return outcome;
            }
        }
        let spec = self.specs.get(id).cloned().unwrap_or_default();
        match spec.latency {
            1 => std::thread::yield_now(),
            2 => std::thread::sleep(Duration::from_micros(20)),
            3 => std::thread::sleep(Duration::from_micros(200)),
            _ => {}
        }
        let mut absent = Vec::new();
        let mut failed = Vec::new();
        let mut pending = Vec::new();
        for dep in &spec.deps {
            if !self.present.lock().unwrap().contains(dep) {
                absent.push(dep.clone());
                continue;
            }
            match self.status(dep) {
                Status::Ready => {}
                Status::Failed(message) => failed.push((dep.clone(), message)),
                Status::Pending => pending.push(dep.clone()),
            }
        }
        if absent.is_empty() && failed.is_empty() && pending.is_empty() {
            for (child, node) in &spec.emits {
                self.emit_from(id, child, *node);
            }
            return self.set(id, Status::Ready);
        }
        if drain >= DrainLevel::Cascade {
            if let Some(dep) = absent.first() {
                return self.set(id, Status::Failed(format!("dependency '{dep}' not found")));
            }
            if let Some((dep, message)) = failed.first() {
                return self.set(
                    id,
                    Status::Failed(format!("dependency '{dep}' failed: {message}")),
                );
            }
        }
        if drain == DrainLevel::Force {
            return self.set(id, Status::Failed("not ready".to_owned()));
        }
        Outcome::Blocked(
            absent
                .into_iter()
                .chain(failed.into_iter().map(|(dep, _)| dep))
                .chain(pending)
                .collect(),
        )
    }

    fn settle(&self, id: &String, outcome: &Final<String>) {
        let message = match outcome {
            // Long paths are summed up, so that a long cycle costs its members no more than a chain.
            Final::Cycle { path } if path.len() > 8 => {
                let first = path.first().map_or("", String::as_str);
                format!("cycle of {} from {first}", path.len() - 1)
            }
            Final::Cycle { path } => format!("cycle {}", path.join(" → ")),
            _ => outcome
                .message()
                .unwrap_or("settled without a message")
                .to_owned(),
        };
        self.set(id, Status::Failed(message));
    }

    fn producers(&self, id: &String) -> Vec<String> {
        self.specs
            .iter()
            .filter(|(_, spec)| spec.emits.iter().any(|(emitted, _)| emitted == id))
            .map(|(producer, _)| producer.clone())
            .collect()
    }
}

fn spec(deps: &[&str]) -> Spec {
    Spec {
        deps: deps.iter().map(|dep| (*dep).to_owned()).collect(),
        ..Spec::default()
    }
}

fn emitting(deps: &[&str], emits: &[(&str, bool)]) -> Spec {
    Spec {
        emits: emits
            .iter()
            .map(|(id, node)| ((*id).to_owned(), *node))
            .collect(),
        ..spec(deps)
    }
}

fn options(concurrency: usize) -> Options {
    Options {
        concurrency,
        ..Options::default()
    }
}

/// Seeds `seeds` (present nodes) and runs to the fixpoint.
fn run(world: &World, seeds: &[&str], concurrency: usize) -> Report<String> {
    let scheduler = Scheduler::new(options(concurrency));
    assert!(
        world.handle.set(scheduler.handle()).is_ok(),
        "one run per world"
    );
    world
        .present
        .lock()
        .unwrap()
        .extend(seeds.iter().map(|seed| (*seed).to_owned()));
    scheduler
        .handle()
        .seed(seeds.iter().map(|seed| (*seed).to_owned()));
    scheduler.run(world)
}

/// Every node ended by its body or as a cycle's member.
fn all_terminal(report: &Report<String>) -> bool {
    !report.cancelled
        && report
            .nodes
            .iter()
            .all(|(_, outcome)| matches!(outcome, Final::Terminal | Final::Cycle { .. }))
}

#[test]
fn chain_with_missing_leaf_fails_every_level_leaf_first() {
    for concurrency in [1, 4] {
        let world = World::new([
            ("a", spec(&["b"])),
            ("b", spec(&["c"])),
            ("c", spec(&["d"])),
        ]);
        let report = run(&world, &["a", "b", "c"], concurrency);
        assert!(all_terminal(&report), "{report:?}");
        assert_eq!(world.failure("c"), "dependency 'd' not found");
        assert_eq!(
            world.failure("b"),
            "dependency 'c' failed: dependency 'd' not found"
        );
        assert_eq!(
            world.failure("a"),
            "dependency 'b' failed: dependency 'c' failed: dependency 'd' not found"
        );
        // Leaves first: the whole chain resolves in one round, without forcing.
        assert_eq!(
            (report.stats.cascade_rounds, report.stats.force_rounds),
            (1, 0)
        );
    }
}

#[test]
fn diamond_settles_ready_and_passes_a_shared_failure_up() {
    let shape = |leaf_deps: &[&str]| {
        World::new([
            ("a", spec(&["b", "c"])),
            ("b", spec(&["d"])),
            ("c", spec(&["d"])),
            ("d", spec(leaf_deps)),
        ])
    };
    let world = shape(&[]);
    let report = run(&world, &["a", "b", "c", "d"], 2);
    assert!(all_terminal(&report));
    for id in ["a", "b", "c", "d"] {
        assert_eq!(world.status(id), Status::Ready, "{id}");
    }
    assert_eq!(report.stats.cascade_rounds, 0);

    let world = shape(&["cm"]);
    let report = run(&world, &["a", "b", "c", "d"], 2);
    assert!(all_terminal(&report));
    assert_eq!(world.failure("d"), "dependency 'cm' not found");
    assert_eq!(
        world.failure("c"),
        "dependency 'd' failed: dependency 'cm' not found"
    );
    assert_eq!(
        world.failure("a"),
        "dependency 'b' failed: dependency 'd' failed: dependency 'cm' not found"
    );
}

#[test]
fn nodes_discovered_mid_run_are_scheduled() {
    let world = World::new([
        ("root", emitting(&[], &[("apps", true), ("infra", true)])),
        (
            "apps",
            emitting(&["infra"], &[("app-1", true), ("app-2", true)]),
        ),
        ("infra", spec(&[])),
        ("app-1", spec(&["app-2"])),
        ("app-2", spec(&[])),
    ]);
    let report = run(&world, &["root"], 3);
    assert!(all_terminal(&report));
    let ids: Vec<&str> = report.nodes.iter().map(|(id, _)| id.as_str()).collect();
    assert_eq!(ids, ["app-1", "app-2", "apps", "infra", "root"]);
    for id in ids {
        assert_eq!(world.status(id), Status::Ready, "{id}");
    }
    assert_eq!(report.stats.cascade_rounds, 0);
}

#[test]
fn data_arrival_wakes_a_parked_node() {
    // At concurrency 1, `a-consumer` runs first and finds `cm` absent; only `b-producer` brings it.
    let world = World::new([
        ("a-consumer", spec(&["cm"])),
        ("b-producer", emitting(&[], &[("cm", false)])),
    ]);
    let report = run(&world, &["a-consumer", "b-producer"], 1);
    assert!(all_terminal(&report));
    assert_eq!(world.status("a-consumer"), Status::Ready);
    assert_eq!(world.runs_of("a-consumer"), 2);
    assert_eq!(
        report.stats.cascade_rounds, 0,
        "woken by the arrival, not by a drain"
    );
}

#[test]
fn status_report_wakes_a_parked_node() {
    // `ext` is no node: its status turns terminal when the hook of `b` says so.
    let mut world = World::new([("a", spec(&["ext"])), ("b", spec(&[]))]);
    world.hook = Some(Box::new(|world, id, _| {
        if id == "b" {
            world.present.lock().unwrap().insert("ext".to_owned());
            world
                .statuses
                .lock()
                .unwrap()
                .insert("ext".to_owned(), Status::Ready);
            world.handle().on_status(&"ext".to_owned(), true);
        }
        None
    }));
    let report = run(&world, &["a", "b"], 1);
    assert!(all_terminal(&report));
    assert_eq!(world.status("a"), Status::Ready);
    assert_eq!(report.stats.cascade_rounds, 0);
}

#[test]
fn a_decided_node_runs_again_when_what_it_decided_from_changes() {
    // `dep` fails one way, then (once `late` arrives) another; `user` passed the first failure up
    // and must end with the second, at every concurrency.
    for concurrency in [1, 4] {
        let mut world = World::new([("producer", emitting(&[], &[("late", false)]))]);
        world.hook = Some(Box::new(|world, id, _| match id {
            "dep" => {
                let reason = if world.present.lock().unwrap().contains("late") {
                    "second"
                } else {
                    "first"
                };
                let changed = world.status("dep") != Status::Failed(reason.to_owned());
                world.set("dep", Status::Failed(reason.to_owned()));
                // As the Store does: an event when a terminal status changes.
                if changed {
                    world.handle().on_status(&"dep".to_owned(), true);
                }
                Some(Outcome::Decided(vec!["late".to_owned()]))
            }
            "user" => match world.status("dep") {
                Status::Failed(message) => {
                    world.set("user", Status::Failed(format!("dep failed: {message}")));
                    Some(Outcome::Decided(vec!["dep".to_owned()]))
                }
                _ => Some(Outcome::Blocked(vec!["dep".to_owned()])),
            },
            _ => None,
        }));
        let report = run(&world, &["dep", "user", "producer"], concurrency);
        assert!(all_terminal(&report), "{report:?}");
        assert_eq!(world.failure("dep"), "second");
        assert_eq!(world.failure("user"), "dep failed: second");
    }
}

#[test]
fn arrival_while_deciding_to_park_is_not_lost() {
    // The body looks, finds `cm` absent, and before it returns `cm` arrives (here from the body itself,
    // standing in for another worker). Parking would wait for a drain; the node must run again now.
    let mut world = World::new([("a", spec(&["cm"]))]);
    world.hook = Some(Box::new(|world, id, _| {
        if id == "a" && world.runs_of("a") == 1 {
            world.emit("cm", false);
            return Some(Outcome::Blocked(vec!["cm".to_owned()]));
        }
        None
    }));
    let report = run(&world, &["a"], 2);
    assert!(all_terminal(&report));
    assert_eq!(world.status("a"), Status::Ready);
    assert_eq!(world.runs_of("a"), 2);
    assert_eq!(report.stats.cascade_rounds, 0);
}

#[test]
fn cycle_members_end_with_one_path_and_dependants_see_it() {
    for concurrency in [1, 4] {
        let world = World::new([
            ("c", spec(&["a"])),
            ("a", spec(&["b"])),
            ("b", spec(&["c"])),
            ("d", spec(&["b"])),
            ("e", spec(&["d"])),
        ]);
        let report = run(&world, &["a", "b", "c", "d", "e"], concurrency);
        assert!(all_terminal(&report), "{report:?}");
        assert_eq!(
            (report.stats.cycles, report.stats.force_rounds),
            (1, 0),
            "no Force round: the cycle ends first"
        );
        for member in ["a", "b", "c"] {
            assert_eq!(world.failure(member), "cycle a → b → c → a");
        }
        assert_eq!(
            world.failure("d"),
            "dependency 'b' failed: cycle a → b → c → a"
        );
        assert_eq!(
            world.failure("e"),
            "dependency 'd' failed: dependency 'b' failed: cycle a → b → c → a"
        );
        // Each member ran once, parked, and was ended without running again.
        for member in ["a", "b", "c"] {
            assert_eq!(world.runs_of(member), 1, "{member}");
        }
    }
}

#[test]
fn the_shortest_cycle_through_the_smallest_member_names_a_component() {
    // One component with two cycles through `a`: a → b → a and a → c → d → a.
    let world = World::new([
        ("a", spec(&["c", "b"])),
        ("b", spec(&["a"])),
        ("c", spec(&["d"])),
        ("d", spec(&["a"])),
        ("s", spec(&["s"])),
    ]);
    let report = run(&world, &["a", "b", "c", "d", "s"], 2);
    assert!(all_terminal(&report));
    for member in ["a", "b", "c", "d"] {
        assert_eq!(world.failure(member), "cycle a → b → a", "{member}");
    }
    assert_eq!(world.failure("s"), "cycle s → s", "a self-loop is a cycle");
    assert_eq!(report.stats.cycles, 2);
}

#[test]
fn a_cycle_through_an_object_a_member_would_emit_is_found() {
    // `a` waits on `b`; `b` waits on `cm`, which only `a` emits.
    let world = World::new([
        ("a", emitting(&["b"], &[("cm", false)])),
        ("b", spec(&["cm"])),
    ]);
    let report = run(&world, &["a", "b"], 2);
    assert!(all_terminal(&report));
    assert_eq!(world.failure("a"), "cycle a → b → cm → a");
    assert_eq!(world.failure("b"), "cycle a → b → cm → a");
}

#[test]
fn final_sweep_ends_nodes_that_block_even_when_forced() {
    let mut world = World::new([("a", spec(&["ghost"])), ("b", spec(&["a"]))]);
    world.hook = Some(Box::new(|_, id, _| {
        Some(Outcome::Blocked(vec![if id == "a" {
            "ghost"
        } else {
            "a"
        }
        .to_owned()]))
    }));
    let report = run(&world, &["a", "b"], 2);
    assert!(!report.cancelled);
    assert_eq!(
        report.final_of(&"a".to_owned()),
        Some(&Final::NotReady {
            waiting_on: vec!["ghost".to_owned()]
        })
    );
    assert_eq!(
        report.final_of(&"b".to_owned()).and_then(Final::message),
        Some("not ready")
    );
    assert_eq!(world.failure("a"), "not ready", "settled by the sweep");
    assert_eq!(
        (report.stats.cascade_rounds, report.stats.force_rounds),
        (1, 1)
    );
}

#[test]
fn the_run_guard_says_it_is_a_bug() {
    let mut world = World::new([("a", spec(&[]))]);
    world.hook = Some(Box::new(|world, id, _| {
        // A body that reports its own status changed on every run: a broken wake-up.
        world.handle().on_status(&id.to_owned(), true);
        Some(Outcome::Decided(vec![id.to_owned()]))
    }));
    let report = run(&world, &["a"], 1);
    let message = report
        .final_of(&"a".to_owned())
        .and_then(Final::message)
        .unwrap_or_default()
        .to_owned();
    assert!(
        message.contains("bug in offlux's wake-up logic"),
        "{message}"
    );
}

/// A ring of `count` nodes, or a chain when `ring` is false, run to its end; the time it took.
fn ring_or_chain(count: usize, ring: bool) -> (Duration, Report<String>) {
    let name = |n: usize| format!("n{n:06}");
    let world = World::new((0..count).map(|n| {
        let next = if n + 1 < count {
            vec![name(n + 1)]
        } else if ring {
            vec![name(0)]
        } else {
            Vec::new()
        };
        (
            name(n),
            Spec {
                deps: next,
                ..Spec::default()
            },
        )
    }));
    let seeds: Vec<String> = (0..count).map(name).collect();
    let seed_refs: Vec<&str> = seeds.iter().map(String::as_str).collect();
    let start = std::time::Instant::now();
    let report = run(&world, &seed_refs, 2);
    (start.elapsed(), report)
}

#[test]
fn a_long_cycle_ends_in_about_the_time_of_a_chain() {
    let count = 20_000;
    let (chain, chain_report) = ring_or_chain(count, false);
    let (ring, ring_report) = ring_or_chain(count, true);
    assert!(all_terminal(&chain_report) && all_terminal(&ring_report));
    assert_eq!(ring_report.stats.cycles, 1);
    assert_eq!(
        ring_report.stats.dispatches, count as u64,
        "each member runs once"
    );
    // Generous: the machine is shared; a quadratic drain would be hundreds of times slower.
    assert!(
        ring < chain * 4 + Duration::from_millis(200),
        "ring {ring:?} vs chain {chain:?}"
    );
}

#[test]
fn a_node_that_keeps_changing_is_stopped() {
    let mut world = World::new([("flapping", spec(&[])), ("after", spec(&["flapping"]))]);
    world.hook = Some(Box::new(|world, id, _| {
        if id == "flapping" {
            // Each run rewrites its own object, as a Kustomization emitting itself with new content.
            world.handle().on_arrival("flapping".to_owned(), true);
        }
        None
    }));
    let report = run(&world, &["after", "flapping"], 2);
    let outcome = report.final_of(&"flapping".to_owned()).cloned();
    assert!(
        matches!(&outcome, Some(Final::Stopped(message)) if message.contains("kept changing")),
        "{outcome:?}"
    );
    assert_eq!(
        world.runs_of("flapping"),
        Options::default().max_reruns as usize + 1
    );
    assert_eq!(report.final_of(&"after".to_owned()), Some(&Final::Terminal));
}

#[test]
fn a_change_while_running_reruns_once_after() {
    let mut world = World::new([("k", spec(&[]))]);
    world.hook = Some(Box::new(|world, id, _| {
        if id == "k" && world.runs_of("k") == 1 {
            world.handle().on_arrival("k".to_owned(), true);
        }
        None
    }));
    let report = run(&world, &["k"], 2);
    assert!(all_terminal(&report));
    assert_eq!(world.runs_of("k"), 2);
}

#[test]
fn a_panicking_body_fails_only_its_node() {
    let mut world = World::new([
        ("a", spec(&["boom"])),
        ("boom", spec(&[])),
        ("c", spec(&[])),
    ]);
    world.hook = Some(Box::new(|_, id, _| {
        if id == "boom" {
            panic!("exploded");
        }
        None
    }));
    let report = run(&world, &["a", "boom", "c"], 2);
    let boom = report
        .final_of(&"boom".to_owned())
        .and_then(Final::message)
        .unwrap_or_default();
    assert!(boom.contains("exploded"), "{boom}");
    assert_eq!(world.status("c"), Status::Ready);
    // Settled as failed by the scheduler, so the dependant passes the panic up.
    assert_eq!(
        world.failure("a"),
        format!("dependency 'boom' failed: {boom}")
    );
    assert_eq!(world.failure("boom"), boom);
}

#[test]
fn cancellation_lets_bodies_finish_and_starts_nothing_new() {
    let seeds: Vec<String> = (0..200).map(|n| format!("n{n:03}")).collect();
    let mut world = World::new::<&str>([]);
    let started = std::sync::Arc::new(AtomicUsize::new(0));
    let counter = std::sync::Arc::clone(&started);
    world.hook = Some(Box::new(move |world, _, _| {
        if counter.fetch_add(1, Ordering::SeqCst) == 0 {
            world.handle().cancel();
        }
        None
    }));
    let scheduler = Scheduler::new(options(2));
    assert!(world.handle.set(scheduler.handle()).is_ok());
    scheduler.handle().seed(seeds.clone());
    let report = scheduler.run(&world);
    assert!(report.cancelled);
    let ran = started.load(Ordering::SeqCst);
    // The cancelling body was the first; only a body that another worker had begun by then may run.
    assert!(ran <= 2, "{ran} bodies ran, cancelled by the first");
    let cancelled = report
        .nodes
        .iter()
        .filter(|(_, outcome)| *outcome == Final::Cancelled)
        .count();
    assert_eq!(cancelled, 200 - ran);
    assert!(scheduler.handle().is_cancelled());
}

#[test]
fn a_second_run_picks_up_later_arrivals() {
    let world = World::new([("a", spec(&["cm"])), ("b", spec(&["a"]))]);
    let scheduler = Scheduler::new(options(2));
    assert!(world.handle.set(scheduler.handle()).is_ok());
    world
        .present
        .lock()
        .unwrap()
        .extend(["a".to_owned(), "b".to_owned()]);
    scheduler.handle().seed(["a", "b"].map(str::to_owned));
    let first = scheduler.run(&world);
    assert!(all_terminal(&first));
    assert_eq!(world.failure("a"), "dependency 'cm' not found");

    // The data shows up and `a` is re-added (changed); `b` is not, so it keeps its outcome.
    world.emit("cm", false);
    scheduler.handle().on_arrival("a".to_owned(), true);
    let second = scheduler.run(&world);
    assert!(all_terminal(&second));
    assert_eq!(world.status("a"), Status::Ready);
    assert_eq!(second.stats.dispatches, 1);
    assert_eq!(
        world.failure("b"),
        "dependency 'a' failed: dependency 'cm' not found"
    );
}

#[test]
fn wake_ups_are_not_lost_under_contention() {
    // Each consumer waits on data that its producer emits while consumers are deciding to park. A
    // lost wake-up would leave a consumer parked until the drain: no drain round may be needed.
    for _ in 0..5 {
        let mut specs = Vec::new();
        for n in 0..300 {
            let data = format!("cm{n:03}");
            specs.push((
                format!("n{n:03}-a-consumer"),
                Spec {
                    latency: 1,
                    ..spec(&[&data])
                },
            ));
            let producer = Spec {
                latency: (n % 3) as u8,
                ..emitting(&[], &[(&data, false)])
            };
            specs.push((format!("n{n:03}-b-producer"), producer));
        }
        let seeds: Vec<String> = specs.iter().map(|(id, _)| id.clone()).collect();
        let seeds: Vec<&str> = seeds.iter().map(String::as_str).collect();
        let world = World::new(specs);
        let report = run(&world, &seeds, 8);
        assert!(all_terminal(&report));
        assert_eq!(report.stats.cascade_rounds, 0);
        assert!(report
            .nodes
            .iter()
            .all(|(id, _)| world.status(id) == Status::Ready));
    }
}

#[test]
fn absent_objects_that_only_emit_each_other_are_no_cycle() {
    // `x` and `y` never arrive; each would be emitted by the other and by a node stuck on a ghost.
    // The ids form a loop with no parked node in it: nothing for the cycle step to end (it once
    // found that loop again on every pass and never returned); the drain ends the waiters.
    let world = World::new([
        ("a", spec(&["x"])),
        ("b", spec(&["y"])),
        ("p", emitting(&["ghost"], &[("x", true)])),
        ("q", emitting(&["ghost"], &[("y", true)])),
        ("x", emitting(&[], &[("y", true)])),
        ("y", emitting(&[], &[("x", true)])),
    ]);
    let report = run(&world, &["a", "b", "p", "q"], 2);
    assert!(all_terminal(&report));
    assert_eq!(report.stats.cycles, 0);
    assert_eq!(world.failure("a"), "dependency 'x' not found");
    assert_eq!(world.failure("b"), "dependency 'y' not found");
    assert_eq!(world.failure("p"), "dependency 'ghost' not found");
    assert_eq!(world.failure("q"), "dependency 'ghost' not found");
}

#[test]
fn seeds_are_sorted_and_deduplicated() {
    let world = World::new::<&str>([]);
    let scheduler = Scheduler::new(options(1));
    assert!(world.handle.set(scheduler.handle()).is_ok());
    scheduler
        .handle()
        .seed(["c", "a", "b", "a"].map(str::to_owned));
    let order = std::sync::Arc::new(Mutex::new(Vec::new()));
    struct Recorder(std::sync::Arc<Mutex<Vec<String>>>);
    impl Dispatcher<String> for Recorder {
        fn dispatch(&self, id: &String, _: DrainLevel) -> Outcome<String> {
            self.0.lock().unwrap().push(id.clone());
            Outcome::Terminal
        }
    }
    let report = scheduler.run(&Recorder(std::sync::Arc::clone(&order)));
    assert_eq!(*order.lock().unwrap(), ["a", "b", "c"]);
    assert_eq!(report.nodes.len(), 3);
    assert_eq!(report.stats.dispatches, 3);
}

/// A random world: node `nN` depends on up to three ids (other nodes, nodes that never appear, data
/// objects), is seeded, emitted by one or two other nodes, or never appears; data objects are
/// emitted by a node or never.
fn arbitrary_world() -> impl Strategy<Value = (Vec<Spec>, Vec<String>)> {
    // `ghosts` 0 makes worlds without absent nodes, where cycles survive the cascade to be forced.
    (2usize..40, 0usize..6, 0u32..3).prop_flat_map(|(nodes, data, ghosts)| {
        let dep = prop_oneof![
            12 => (0..nodes).prop_map(|n| format!("n{n:02}")),
            ghosts => (0..3usize).prop_map(|n| format!("ghost{n}")),
            ghosts => (0..data.max(1)).prop_map(|n| format!("cm{n}")),
        ];
        let node = (
            proptest::collection::vec(dep, 0..=3),
            0u8..4,
            0usize..10,
            0..nodes,
        );
        let datum = (0usize..4, 0..nodes);
        (
            proptest::collection::vec(node, nodes),
            proptest::collection::vec(datum, data),
        )
            .prop_map(|(node_choices, data_choices)| {
                let count = node_choices.len();
                let mut specs: Vec<Spec> = node_choices
                    .iter()
                    .enumerate()
                    .map(|(at, (deps, latency, _, _))| Spec {
                        deps: deps
                            .iter()
                            .filter(|dep| **dep != format!("n{at:02}"))
                            .cloned()
                            .collect(),
                        emits: Vec::new(),
                        latency: *latency,
                    })
                    .collect();
                let mut seeds = Vec::new();
                for (at, (_, _, origin, parent)) in node_choices.iter().enumerate() {
                    let id = format!("n{at:02}");
                    match origin {
                        0..=5 => seeds.push(id),
                        6..=8 if *parent != at => {
                            // Origin 8: a second parent emits it too, so it arrives again (possibly
                            // after it ran, or while it runs) and runs again.
                            let second = (*parent * 7 + 3) % count;
                            if *origin == 8 && second != at && second != *parent {
                                if let Some(second) = specs.get_mut(second) {
                                    second.emits.push((id.clone(), true));
                                }
                            }
                            if let Some(parent) = specs.get_mut(*parent % count) {
                                parent.emits.push((id, true));
                            }
                        }
                        _ => {}
                    }
                }
                for (at, (origin, parent)) in data_choices.iter().enumerate() {
                    if *origin > 0 {
                        if let Some(parent) = specs.get_mut(*parent % count) {
                            parent.emits.push((format!("cm{at}"), false));
                        }
                    }
                }
                (specs, seeds)
            })
    })
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 48,
        ..ProptestConfig::default()
    })]

    #[test]
    fn random_worlds_settle_identically_at_every_concurrency((specs, seeds) in arbitrary_world()) {
        let mut results = Vec::new();
        for concurrency in [1, 2, 8, 32] {
            let world = World {
                specs: specs
                    .iter()
                    .enumerate()
                    .map(|(at, spec)| (format!("n{at:02}"), spec.clone()))
                    .collect(),
                ..World::new::<&str>([])
            };
            let seed_refs: Vec<&str> = seeds.iter().map(String::as_str).collect();
            let report = run(&world, &seed_refs, concurrency);
            prop_assert!(all_terminal(&report), "{:?}", report);
            let statuses = world.statuses.lock().unwrap().clone();
            for (id, _) in &report.nodes {
                prop_assert!(
                    matches!(statuses.get(id), Some(Status::Ready | Status::Failed(_))),
                    "{} ended without a terminal status", id
                );
            }
            results.push((report.nodes, statuses));
        }
        for pair in results.windows(2) {
            prop_assert_eq!(&pair[0], &pair[1]);
        }
    }
}

thread_local! {
    /// Set by `started` on the thread it runs on.
    static STARTED_HERE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

fn started() {
    STARTED_HERE.set(true);
}

/// Workers start with the stack asked for and call `on_worker_start` first: every body runs on a
/// thread that called it (an engine relies on this to run deep work in place).
#[test]
fn every_body_runs_on_a_worker_that_was_started_as_asked() {
    let mut world = World::new([("a", spec(&["b"])), ("b", spec(&[])), ("c", spec(&[]))]);
    let unmarked = std::sync::Arc::new(AtomicUsize::new(0));
    let seen = unmarked.clone();
    world.hook = Some(Box::new(move |_, _, _| {
        if !STARTED_HERE.get() {
            seen.fetch_add(1, Ordering::Relaxed);
        }
        None
    }));
    let scheduler = Scheduler::new(Options {
        worker_stack_size: Some(64 << 20),
        on_worker_start: Some(started),
        ..options(2)
    });
    assert!(world.handle.set(scheduler.handle()).is_ok());
    world
        .present
        .lock()
        .unwrap()
        .extend(["a", "b", "c"].map(str::to_owned));
    scheduler.handle().seed(["a", "b", "c"].map(str::to_owned));
    let report = scheduler.run(&world);
    assert!(all_terminal(&report), "{report:?}");
    assert_eq!(unmarked.load(Ordering::Relaxed), 0);
    assert!(
        !STARTED_HERE.get(),
        "the coordinator's thread is not a worker"
    );
}
