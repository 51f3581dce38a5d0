//! The scheduler's state, kept under one lock: nodes, who is parked on what, and the event sequence
//! that prevents lost wake-ups.

use std::collections::VecDeque;

// Ids are hashed on every event; SipHash's resistance is not needed for them and costs more.
use foldhash::{HashMap, HashMapExt};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use super::order::{leaves_first, shortest_cycle};
use super::{DrainLevel, Final, NodeId, Options, Outcome};

#[derive(Clone, Debug, PartialEq, Eq)]
enum State<Id> {
    /// Runnable: in the ready queue, or waiting for its turn in a drain round.
    Queued,
    Running,
    Parked,
    Done(Final<Id>),
}

struct Node<Id> {
    id: Id,
    state: State<Id>,
    /// What it waits on while parked, sorted.
    waits: Vec<Id>,
    /// Bumped on every park, so that stale entries in `waiters` lists are recognised and skipped.
    park_generation: u32,
    /// An event about the node itself arrived while it ran: run it again once it finishes.
    rerun: bool,
    changes: u32,
    runs: u32,
}

/// A job handed to a worker.
pub(crate) struct Job<Id> {
    pub node: usize,
    pub id: Id,
    pub drain: DrainLevel,
}

pub(crate) struct Core<Id> {
    nodes: Vec<Node<Id>>,
    index: HashMap<Id, usize>,
    /// Parked nodes by the id they wait on, with the park generation they were parked in.
    waiters: HashMap<Id, Vec<(usize, u32)>>,
    /// The sequence number of the last event about each id.
    last_event: HashMap<Id, u64>,
    /// The sequence number of the last arrival or status change of each id (not a node merely
    /// finishing), which is what wakes a Decided node.
    last_change: HashMap<Id, u64>,
    /// The number of the last event. Written under the lock, read without it by workers just before a
    /// body starts: an id the body waits on whose last event is newer may have changed after the body
    /// looked, so the node is not parked but run again. (Events are reported after the Store write
    /// they announce, so a write the body missed has a number above what the worker read.)
    sequence: Arc<AtomicU64>,
    ready: VecDeque<usize>,
    /// Bumped whenever a node becomes runnable or ends: a drain round that leaves it unchanged made no
    /// progress.
    pub progress: u64,
    pub dispatches: u64,
    /// Outcomes the scheduler decided itself, for `Dispatcher::settle`.
    pub settled: Vec<(Id, Final<Id>)>,
    options: Options,
}

impl<Id: NodeId> Core<Id> {
    pub(super) fn new(options: Options) -> Self {
        Core {
            options,
            nodes: Vec::new(),
            index: HashMap::new(),
            waiters: HashMap::new(),
            last_event: HashMap::new(),
            last_change: HashMap::new(),
            sequence: Arc::new(AtomicU64::new(0)),
            ready: VecDeque::new(),
            progress: 0,
            dispatches: 0,
            settled: Vec::new(),
        }
    }

    /// Records an event about `id` and wakes whatever is parked on it, and with `wake_watchers`
    /// the finished nodes watching it. A node's own finish does not wake watchers: only a status
    /// that changed (reported through the Handle) does, so Decided nodes watching each other settle.
    fn event(&mut self, id: &Id, wake_watchers: bool) {
        let sequence = self.sequence.load(Ordering::Relaxed) + 1;
        self.sequence.store(sequence, Ordering::Release);
        match self.last_event.get_mut(id) {
            Some(last) => *last = sequence,
            None => {
                self.last_event.insert(id.clone(), sequence);
            }
        }
        if wake_watchers {
            self.last_change.insert(id.clone(), sequence);
        }
        let Some(listeners) = self.waiters.remove(id) else {
            return;
        };
        let mut still_watching = Vec::new();
        for (node, generation) in listeners {
            let Some(entry) = self.nodes.get(node) else {
                continue;
            };
            if entry.park_generation != generation {
                continue;
            }
            match entry.state {
                State::Parked => self.requeue(node),
                State::Done(Final::Terminal) if wake_watchers => self.requeue(node),
                State::Done(Final::Terminal) => still_watching.push((node, generation)),
                _ => {}
            }
        }
        if !still_watching.is_empty() {
            self.waiters
                .entry(id.clone())
                .or_default()
                .extend(still_watching);
        }
    }

    fn make_ready(&mut self, node: usize) {
        if let Some(entry) = self.nodes.get_mut(node) {
            entry.state = State::Queued;
            entry.waits.clear();
            // What it waited on or watched before no longer wakes it.
            entry.park_generation = entry.park_generation.wrapping_add(1);
            self.ready.push_back(node);
            self.progress += 1;
        }
    }

    /// Makes a node that has run before runnable again, unless the re-run guard stops it.
    fn requeue(&mut self, node: usize) {
        match self
            .nodes
            .get(node)
            .and_then(|entry| guard(entry, &self.options))
        {
            Some(stop) => self.finish(node, stop),
            None => self.make_ready(node),
        }
    }

    fn finish(&mut self, node: usize, outcome: Final<Id>) {
        let Some(entry) = self.nodes.get_mut(node) else {
            return;
        };
        let id = entry.id.clone();
        if outcome != Final::Terminal {
            self.settled.push((id.clone(), outcome.clone()));
        }
        entry.state = State::Done(outcome);
        entry.waits.clear();
        // Entries of what it waited on no longer wake it; only `watch` may add new ones.
        entry.park_generation = entry.park_generation.wrapping_add(1);
        self.progress += 1;
        self.event(&id, false);
    }

    /// The object `id` was added or changed; `schedulable` says whether it is a node to run.
    pub(crate) fn arrival(&mut self, id: Id, schedulable: bool) {
        self.event(&id, true);
        if !schedulable {
            return;
        }
        let Some(&node) = self.index.get(&id) else {
            let node = self.nodes.len();
            self.nodes.push(Node {
                id: id.clone(),
                state: State::Queued,
                waits: Vec::new(),
                park_generation: 0,
                rerun: false,
                changes: 0,
                runs: 0,
            });
            self.index.insert(id, node);
            self.ready.push_back(node);
            self.progress += 1;
            return;
        };
        let Some(entry) = self.nodes.get_mut(node) else {
            return;
        };
        // A change before the first run is just a newer version to run.
        if entry.runs > 0 {
            entry.changes += 1;
        }
        match entry.state {
            State::Queued => {}
            State::Running => entry.rerun = true,
            State::Parked | State::Done(_) => self.requeue(node),
        }
    }

    pub(crate) fn is_node(&self, id: &Id) -> bool {
        self.index.contains_key(id)
    }

    /// `id` turned terminal (`terminal`), or left a terminal status (nothing to wake).
    pub(super) fn status(&mut self, id: &Id, terminal: bool) {
        if terminal {
            self.event(id, true);
        }
    }

    /// The next node of the ready queue, marked running.
    pub(crate) fn next_ready(&mut self, drain: DrainLevel) -> Option<Job<Id>> {
        while let Some(node) = self.ready.pop_front() {
            // Entries of nodes finished meanwhile (stopped by the guard) are skipped.
            if self
                .nodes
                .get(node)
                .is_some_and(|entry| entry.state == State::Queued)
            {
                return self.start(node, drain);
            }
        }
        None
    }

    /// The event counter, for workers to read when a body starts.
    pub(super) fn sequence(&self) -> Arc<AtomicU64> {
        Arc::clone(&self.sequence)
    }

    pub(crate) fn has_ready(&self) -> bool {
        !self.ready.is_empty()
    }

    /// Marks a queued `node` running and makes its job.
    pub(super) fn start(&mut self, node: usize, drain: DrainLevel) -> Option<Job<Id>> {
        let entry = self
            .nodes
            .get_mut(node)
            .filter(|entry| entry.state == State::Queued)?;
        entry.state = State::Running;
        entry.runs += 1;
        self.dispatches += 1;
        Some(Job {
            node,
            id: entry.id.clone(),
            drain,
        })
    }

    /// Applies what a body returned (`Err`: its panic message).
    pub(super) fn complete(
        &mut self,
        node: usize,
        start: u64,
        result: Result<Outcome<Id>, String>,
    ) {
        let Some(entry) = self.nodes.get_mut(node) else {
            return;
        };
        let rerun = std::mem::take(&mut entry.rerun);
        match result {
            Err(message) => self.finish(node, Final::Panicked(message)),
            Ok(Outcome::Terminal) => {
                // Dependants may look at the terminal status now; the re-run may change it later.
                self.finish(node, Final::Terminal);
                if rerun {
                    self.requeue(node);
                }
            }
            Ok(Outcome::Decided(watches)) => {
                let changed_since_start = watches
                    .iter()
                    .any(|watched| self.last_change.get(watched).is_some_and(|&at| at > start));
                self.finish(node, Final::Terminal);
                if rerun || changed_since_start {
                    self.requeue(node);
                } else {
                    self.watch(node, watches);
                }
            }
            Ok(Outcome::Blocked(_)) if rerun => self.requeue(node),
            Ok(Outcome::Blocked(mut waits)) => {
                waits.sort();
                waits.dedup();
                let changed_since_start = waits
                    .iter()
                    .any(|wait| self.last_event.get(wait).is_some_and(|&at| at > start));
                if changed_since_start {
                    self.requeue(node);
                } else {
                    self.park(node, waits);
                }
            }
        }
    }

    /// Keeps a finished `node` listening to `watches`: an event about one of them runs it again.
    fn watch(&mut self, node: usize, mut watches: Vec<Id>) {
        watches.sort();
        watches.dedup();
        let Some(entry) = self.nodes.get_mut(node) else {
            return;
        };
        entry.park_generation = entry.park_generation.wrapping_add(1);
        let generation = entry.park_generation;
        for watched in watches {
            self.waiters
                .entry(watched)
                .or_default()
                .push((node, generation));
        }
    }

    fn park(&mut self, node: usize, waits: Vec<Id>) {
        let Some(entry) = self.nodes.get_mut(node) else {
            return;
        };
        entry.park_generation = entry.park_generation.wrapping_add(1);
        let generation = entry.park_generation;
        entry.state = State::Parked;
        for wait in &waits {
            match self.waiters.get_mut(wait) {
                Some(list) => list.push((node, generation)),
                None => {
                    self.waiters.insert(wait.clone(), vec![(node, generation)]);
                }
            }
        }
        entry.waits = waits;
    }

    /// A job that a worker returned unrun (the run was cancelled): the node is runnable again.
    pub(crate) fn unrun(&mut self, node: usize) {
        if let Some(entry) = self.nodes.get_mut(node) {
            entry.state = State::Queued;
            entry.runs = entry.runs.saturating_sub(1);
            self.dispatches = self.dispatches.saturating_sub(1);
            self.ready.push_front(node);
        }
    }

    /// Parked nodes in drain-round order: every node after the parked nodes it waits on, a cycle's
    /// members by id. All are marked queued, so wake-ups during the round leave them to the round.
    pub(crate) fn take_parked(&mut self) -> Vec<usize> {
        let mut parked: Vec<usize> = (0..self.nodes.len())
            .filter(|&node| {
                self.nodes
                    .get(node)
                    .is_some_and(|entry| entry.state == State::Parked)
            })
            .collect();
        parked.sort_by(|&a, &b| self.id_of(a).cmp(&self.id_of(b)));
        let position: HashMap<usize, usize> = parked
            .iter()
            .enumerate()
            .map(|(position, &node)| (node, position))
            .collect();
        let edges: Vec<Vec<usize>> = parked
            .iter()
            .map(|&node| {
                let waits = self
                    .nodes
                    .get(node)
                    .map_or(&[][..], |entry| &entry.waits[..]);
                waits
                    .iter()
                    .filter_map(|wait| self.index.get(wait))
                    .filter_map(|target| position.get(target).copied())
                    .collect()
            })
            .collect();
        let mut order = Vec::with_capacity(parked.len());
        for component in leaves_first(&edges) {
            let mut members: Vec<usize> = component
                .into_iter()
                .filter_map(|at| parked.get(at).copied())
                .collect();
            members.sort_by(|&a, &b| self.id_of(a).cmp(&self.id_of(b)));
            order.extend(members);
        }
        for &node in &order {
            if let Some(entry) = self.nodes.get_mut(node) {
                entry.state = State::Queued;
            }
        }
        order
    }

    /// The ids parked nodes wait on that are not nodes, sorted: the caller is asked who would
    /// produce them before [`Core::end_cycles`].
    pub(crate) fn absent_waits(&self) -> Vec<Id> {
        let mut absent: Vec<Id> = self
            .nodes
            .iter()
            .filter(|entry| entry.state == State::Parked)
            .flat_map(|entry| entry.waits.iter())
            .filter(|wait| !self.index.contains_key(*wait))
            .cloned()
            .collect();
        absent.sort();
        absent.dedup();
        absent
    }

    /// Ends every parked node that waits in a cycle, each component's members with one shared
    /// path; `producers` maps an absent id to the nodes that would publish it. Returns the number
    /// of cycles ended. Linear in the parked nodes and their waits.
    pub(crate) fn end_cycles(&mut self, producers: &[(Id, Vec<Id>)]) -> u32 {
        let producers: HashMap<&Id, &[Id]> = producers
            .iter()
            .map(|(id, by)| (id, by.as_slice()))
            .collect();
        // Vertices: parked nodes, and absent ids that a parked node would produce; in id order, so
        // that neighbour lists, and so the chosen paths, do not depend on arrival order.
        let parked = |core: &Self, id: &Id| {
            core.index
                .get(id)
                .and_then(|&node| core.nodes.get(node))
                .is_some_and(|entry| entry.state == State::Parked)
        };
        let mut vertices: Vec<Id> = self
            .nodes
            .iter()
            .filter(|entry| entry.state == State::Parked)
            .map(|entry| entry.id.clone())
            .collect();
        for (&absent, by) in &producers {
            if by.iter().any(|producer| parked(self, producer)) {
                vertices.push(absent.clone());
            }
        }
        vertices.sort();
        vertices.dedup();
        let position: HashMap<&Id, usize> = vertices
            .iter()
            .enumerate()
            .map(|(at, id)| (id, at))
            .collect();
        let edges: Vec<Vec<usize>> = vertices
            .iter()
            .map(|id| {
                let targets: &[Id] = match self.index.get(id).and_then(|&n| self.nodes.get(n)) {
                    Some(entry) => &entry.waits,
                    None => producers.get(id).copied().unwrap_or_default(),
                };
                let mut targets: Vec<usize> = targets
                    .iter()
                    .filter_map(|target| position.get(target).copied())
                    .collect();
                targets.sort_unstable();
                targets.dedup();
                targets
            })
            .collect();
        let mut component_of = vec![usize::MAX; vertices.len()];
        let mut cycles: Vec<(Vec<usize>, Arc<[Id]>)> = Vec::new();
        for (number, component) in leaves_first(&edges).into_iter().enumerate() {
            let cyclic = match component.as_slice() {
                [single] => edges.get(*single).is_some_and(|out| out.contains(single)),
                _ => true,
            };
            // Absent ids that only each other would produce (each emitted by the other's body) form
            // a cycle with nothing parked in it: no node to end there, and counting it would make
            // the coordinator look for cycles again forever. Their waiters go to the drain.
            let holds_a_node = component
                .iter()
                .filter_map(|&at| vertices.get(at))
                .any(|id| self.index.contains_key(id));
            if !cyclic || !holds_a_node {
                continue;
            }
            for &member in &component {
                if let Some(slot) = component_of.get_mut(member) {
                    *slot = number;
                }
            }
            let Some(&start) = component.iter().min() else {
                continue;
            };
            let Some(path) =
                shortest_cycle(&edges, start, |v| component_of.get(v) == Some(&number))
            else {
                continue;
            };
            let path: Arc<[Id]> = path
                .into_iter()
                .filter_map(|at| vertices.get(at).cloned())
                .collect();
            cycles.push((component, path));
        }
        // Every member ends before any event: an event about one member must not wake another.
        let mut ended = Vec::new();
        for (component, path) in &cycles {
            for id in component.iter().filter_map(|&at| vertices.get(at)) {
                let Some(&node) = self.index.get(id) else {
                    continue;
                };
                let Some(entry) = self.nodes.get_mut(node) else {
                    continue;
                };
                let outcome = Final::Cycle {
                    path: Arc::clone(path),
                };
                entry.state = State::Done(outcome.clone());
                entry.waits.clear();
                entry.park_generation = entry.park_generation.wrapping_add(1);
                self.settled.push((id.clone(), outcome));
                self.progress += 1;
                ended.push(id.clone());
            }
        }
        for id in &ended {
            self.event(id, false);
        }
        u32::try_from(cycles.len()).unwrap_or(u32::MAX)
    }

    /// Whether any node is parked.
    pub(crate) fn any_parked(&self) -> bool {
        self.nodes.iter().any(|entry| entry.state == State::Parked)
    }

    /// Ends every parked node as not ready, without waking anything: this is the last step of a run.
    pub(crate) fn sweep(&mut self) {
        for entry in &mut self.nodes {
            if entry.state == State::Parked {
                let waiting_on = std::mem::take(&mut entry.waits);
                let outcome = Final::NotReady { waiting_on };
                self.settled.push((entry.id.clone(), outcome.clone()));
                entry.state = State::Done(outcome);
            }
        }
        self.waiters.clear();
    }

    /// Every node's outcome, sorted by id.
    pub(super) fn report(&self, cancelled: bool) -> Vec<(Id, Final<Id>)> {
        let mut nodes: Vec<(Id, Final<Id>)> = self
            .nodes
            .iter()
            .map(|entry| {
                let outcome = match &entry.state {
                    State::Done(outcome) => outcome.clone(),
                    // Only a cancelled run leaves nodes unfinished.
                    _ if cancelled => Final::Cancelled,
                    _ => Final::NotReady {
                        waiting_on: entry.waits.clone(),
                    },
                };
                (entry.id.clone(), outcome)
            })
            .collect();
        nodes.sort_by(|a, b| a.0.cmp(&b.0));
        nodes
    }

    /// Resets the re-run guard's counters: each run gets a fresh budget.
    pub(crate) fn begin_run(&mut self) {
        for entry in &mut self.nodes {
            entry.runs = 0;
            entry.changes = 0;
        }
    }

    fn id_of(&self, node: usize) -> Option<&Id> {
        self.nodes.get(node).map(|entry| &entry.id)
    }
}

/// The re-run guard: the final outcome for a node over its budget.
fn guard<Id>(entry: &Node<Id>, options: &Options) -> Option<Final<Id>> {
    if entry.changes > options.max_reruns {
        return Some(Final::Stopped(format!(
            "stopped after {} re-runs: its object kept changing",
            options.max_reruns
        )));
    }
    if entry.runs >= options.max_runs {
        return Some(Final::Stopped(format!(
            "internal error: stopped after {} runs, woken again and again without settling; \
             this is a bug in offlux's wake-up logic, please report it",
            entry.runs
        )));
    }
    None
}
