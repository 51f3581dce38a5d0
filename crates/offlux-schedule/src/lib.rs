//! The fixpoint scheduler: a bounded worker pool running node bodies until nothing can change. Depends on no other crate of offlux.
//!
//! A node (a Kustomization, a HelmRelease, a source...) is an id; its reconcile body runs through a
//! [`Dispatcher`] and returns [`Outcome::Terminal`] or [`Outcome::Blocked`] with the ids it waits on.
//! A blocked node is *parked* on those ids and runs again when any of them arrives
//! ([`Handle::on_arrival`]) or turns terminal ([`Handle::on_status`], or a node finishing). Bodies
//! report what they emit through a [`Handle`] before they return, which is what makes termination
//! structural: when nothing is in flight and nothing is runnable, nothing new can appear. Then the
//! scheduler ends what is left, in this order, going back to ordinary running after any step that
//! changed something:
//!
//! 1. **Cycles.** The parked nodes and what they wait on form a graph (an id that is not a node
//!    leads to the parked nodes [`Dispatcher::producers`] names for it). Every strongly connected
//!    component with a cycle ends at once, each member [`Final::Cycle`] with the same path: the
//!    shortest cycle through the component's smallest id, starting there. Its dependants wake and
//!    see the members' failure.
//! 2. [`DrainLevel::Cascade`]: parked nodes run one at a time, leaves first; bodies fail what waits
//!    on an absent dependency and pass a failed dependency's message up.
//! 3. [`DrainLevel::Force`], only after a Cascade round that changed nothing: bodies fail with
//!    "not ready". With cycles ended first, this only ends nodes whose bodies wait on something the
//!    graph does not show (a status nobody will write).
//! 4. If even Force changes nothing, the scheduler records [`Final::NotReady`] for what is left, so no
//!    node ends non-terminal.
//!
//! When the scheduler itself ends a node, [`Dispatcher::settle`] lets the caller record a status.
//! No timers anywhere.
//!
//! What bodies must do for termination and determinism (final outcomes identical at every
//! concurrency level):
//! - write their status and report every emission (objects through [`Handle::on_arrival`], data
//!   statuses through [`Handle::on_status`]) *before* returning, and report an event only after the
//!   write it announces;
//! - be deterministic functions of what they read, and list in `Blocked` every id they wait on;
//! - return [`Outcome::Decided`] with the ids whose terminal statuses decided the outcome (a
//!   dependency's failure passed up), so a later change of one of them runs the node again; pass such
//!   messages up verbatim, so that nodes deciding from each other settle;
//! - at `None`, wait (return `Blocked`) rather than fail on an absent dependency: only the drain
//!   knows that nothing else will arrive. (A failed dependency is terminal, so passing its message up
//!   at once or at `Cascade` gives the same outcome.)
//!
//! ```
//! use std::collections::BTreeSet;
//! use std::sync::Mutex;
//! use offlux_schedule::{Dispatcher, DrainLevel, Final, Handle, Options, Outcome, Scheduler};
//!
//! // `apps` waits on `infra`; `infra` emits `apps` when it reconciles.
//! struct Bodies {
//!     ready: Mutex<BTreeSet<&'static str>>,
//!     handle: Handle<&'static str>,
//! }
//!
//! impl Dispatcher<&'static str> for Bodies {
//!     fn dispatch(&self, id: &&'static str, _: DrainLevel) -> Outcome<&'static str> {
//!         if *id == "apps" && !self.ready.lock().unwrap().contains("infra") {
//!             return Outcome::Blocked(vec!["infra"]);
//!         }
//!         self.ready.lock().unwrap().insert(*id);
//!         if *id == "infra" {
//!             self.handle.on_arrival("apps", true);
//!         }
//!         Outcome::Terminal
//!     }
//! }
//!
//! let scheduler = Scheduler::new(Options::default());
//! let bodies = Bodies { ready: Mutex::default(), handle: scheduler.handle() };
//! scheduler.handle().seed(["infra"]);
//! let report = scheduler.run(&bodies);
//! assert_eq!(report.nodes, vec![("apps", Final::Terminal), ("infra", Final::Terminal)]);
//! ```
//!
//! Not for: knowing what a node is, storing objects or statuses (the caller's Store does), or
//! naming a cycle's members in messages (the caller formats [`Final::Cycle`]'s path).

#![deny(unreachable_pub)]

mod core;
mod order;
mod run;

pub use run::{Handle, Scheduler};

use std::fmt::Debug;
use std::hash::Hash;
use std::sync::Arc;

/// The bounds a node id needs: cloned into queues, ordered for deterministic reports, hashed for
/// lookups, shared between threads.
pub trait NodeId: Clone + Ord + Hash + Send + Sync + Debug + 'static {}

impl<T: Clone + Ord + Hash + Send + Sync + Debug + 'static> NodeId for T {}

/// How hard the scheduler pushes a parked node towards a terminal outcome.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum DrainLevel {
    /// Ordinary running: wait for what is missing.
    None,
    /// Nothing else can arrive: fail on an absent dependency ("dependency not found"), pass a failed
    /// dependency's message up; keep waiting on a dependency that is merely pending.
    Cascade,
    /// Cascade changed nothing and no cycle is left, yet nodes still wait: fail ("not ready").
    Force,
}

/// What a body decided.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome<Id> {
    /// The node reached Ready or Failed (the body wrote that status itself).
    Terminal,
    /// The node waits on these ids: nodes, or any other id the caller reports through the Handle.
    Blocked(Vec<Id>),
    /// The node reached Ready or Failed from the terminal statuses of these ids (a dependency's
    /// failure passed up): run it again if any of them changes later, so the outcome never keeps a
    /// status that was overtaken.
    Decided(Vec<Id>),
}

/// Runs a node's body. Called from worker threads, several nodes at a time, never the same node twice
/// at once. A body may call the [`Handle`] (to report what it emitted) before returning.
pub trait Dispatcher<Id>: Sync {
    fn dispatch(&self, id: &Id, drain: DrainLevel) -> Outcome<Id>;

    /// The scheduler, not a body, ended `id` (the body panicked, the re-run guard stopped it, or the
    /// final sweep found it not ready): the place to record a Failed status with
    /// `outcome.message()`. Its dependants are woken after this returns, so they see that status.
    fn settle(&self, id: &Id, outcome: &Final<Id>) {
        let _ = (id, outcome);
    }

    /// The nodes that would publish `id` when they reconcile, for an id that parked nodes wait on
    /// and that is not a node: waiting on it then waits on them, which is how a cycle through an
    /// object a dependant produces is found. Called only when the run is quiet.
    fn producers(&self, id: &Id) -> Vec<Id> {
        let _ = id;
        Vec::new()
    }
}

/// How a node ended, as the scheduler saw it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Final<Id> {
    /// The body returned Terminal; its status is wherever the body wrote it.
    Terminal,
    /// The re-run guard stopped a node that kept changing or kept being woken.
    Stopped(String),
    /// Still blocked after a Force round changed nothing; sorted ids it was waiting on.
    NotReady { waiting_on: Vec<Id> },
    /// A member of a wait cycle: `path` is the cycle from its smallest id back to it (the first id
    /// repeated at the end), the same for every member of the component. Shared, so that a long
    /// cycle costs one path, not one per member.
    Cycle { path: Arc<[Id]> },
    /// The body panicked; the panic message.
    Panicked(String),
    /// The run was cancelled before this node ended.
    Cancelled,
}

impl<Id> Final<Id> {
    /// The failure message the scheduler decided, or `None` when the body decided (Terminal).
    pub fn message(&self) -> Option<&str> {
        match self {
            Final::Terminal => None,
            Final::Stopped(message) | Final::Panicked(message) => Some(message),
            Final::NotReady { .. } => Some("not ready"),
            Final::Cycle { .. } => Some("dependency cycle"),
            Final::Cancelled => Some("cancelled"),
        }
    }
}

/// Scheduler settings.
#[derive(Clone, Debug)]
pub struct Options {
    /// Bodies running at once.
    pub concurrency: usize,
    /// Re-runs allowed because the node's own object changed after it had run.
    pub max_reruns: u32,
    /// Runs of one node in one `run`, whatever woke it. Cycles end structurally, so reaching this
    /// bound is a bug in the wake-up logic, and the message says so.
    pub max_runs: u32,
    /// The workers' stack size; the platform's default for a thread when unset.
    pub worker_stack_size: Option<usize>,
    /// Called first on each worker thread (to tell an engine the thread has `worker_stack_size`).
    pub on_worker_start: Option<fn()>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            concurrency: std::thread::available_parallelism().map_or(1, usize::from),
            max_reruns: 8,
            max_runs: 1000,
            worker_stack_size: None,
            on_worker_start: None,
        }
    }
}

/// What a run did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Report<Id> {
    /// Ctrl-C (or another canceller) stopped the run: nodes not yet ended are `Final::Cancelled`.
    pub cancelled: bool,
    /// Every node ever registered, sorted by id.
    pub nodes: Vec<(Id, Final<Id>)>,
    pub stats: Stats,
}

impl<Id: Ord> Report<Id> {
    /// How `id` ended, if it is a node.
    pub fn final_of(&self, id: &Id) -> Option<&Final<Id>> {
        let position = self.nodes.binary_search_by(|(node, _)| node.cmp(id)).ok()?;
        self.nodes.get(position).map(|(_, outcome)| outcome)
    }
}

/// Counters for progress output and benchmarks; unlike outcomes, they vary with concurrency.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    pub dispatches: u64,
    pub cascade_rounds: u32,
    pub force_rounds: u32,
    /// Wait cycles ended (components, not members).
    pub cycles: u32,
}

#[cfg(test)]
mod tests;
