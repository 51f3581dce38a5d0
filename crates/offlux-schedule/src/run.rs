//! The worker pool and the coordinator loop: hands jobs to workers, applies their outcomes, and
//! escalates the drain when the run goes quiet.

use std::collections::VecDeque;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use crossbeam_channel::{Receiver, Sender};
use offlux_sync::MutexExt as _;

use super::core::{Core, Job};
use super::{Dispatcher, DrainLevel, Final, NodeId, Options, Outcome, Report, Stats};

enum Message<Id> {
    Done {
        node: usize,
        start: u64,
        result: Result<Outcome<Id>, String>,
    },
    /// A worker saw the run cancelled and handed the job back unrun.
    Unrun { node: usize },
    /// A Handle call made a node runnable while the coordinator waited.
    Nudge,
}

struct Shared<Id> {
    core: Mutex<Core<Id>>,
    cancelled: AtomicBool,
    /// Set while a Nudge sits in the channel, so a burst of arrivals sends one.
    nudge_pending: AtomicBool,
    outbox: Sender<Message<Id>>,
}

impl<Id: NodeId> Shared<Id> {
    fn lock(&self) -> MutexGuard<'_, Core<Id>> {
        // Bodies never run under this lock and the core's updates do not panic midway, so a poisoned
        // lock still guards consistent state.
        self.core.locked()
    }

    fn nudge_if(&self, runnable: bool) {
        if runnable && !self.nudge_pending.swap(true, Ordering::AcqRel) {
            // The receiver lives as long as the Scheduler, which owns this Shared's other half.
            let _ = self.outbox.send(Message::Nudge);
        }
    }
}

/// Reports events to a scheduler, from a body or from the code that sets up a run. Cheap to clone;
/// a Dispatcher usually holds one. Calls from outside a body while `run` is in progress are not
/// supported: termination relies on every emission happening inside a body.
pub struct Handle<Id> {
    shared: Arc<Shared<Id>>,
}

impl<Id> Clone for Handle<Id> {
    fn clone(&self) -> Self {
        Handle {
            shared: Arc::clone(&self.shared),
        }
    }
}

impl<Id: NodeId> Handle<Id> {
    /// Registers nodes to run, in sorted order; duplicates and known nodes are ignored.
    pub fn seed(&self, ids: impl IntoIterator<Item = Id>) {
        let mut ids: Vec<Id> = ids.into_iter().collect();
        ids.sort();
        ids.dedup();
        let mut core = self.shared.lock();
        for id in ids {
            if !core.is_node(&id) {
                core.arrival(id, true);
            }
        }
        let runnable = core.has_ready();
        drop(core);
        self.shared.nudge_if(runnable);
    }

    /// The object `id` was added or changed. With `schedulable`, it is a node: a new one is
    /// registered and runs; a known one runs again (once its current run ends, if running). Either
    /// way, whatever is parked on `id` wakes.
    pub fn on_arrival(&self, id: Id, schedulable: bool) {
        let mut core = self.shared.lock();
        core.arrival(id, schedulable);
        let runnable = core.has_ready();
        drop(core);
        self.shared.nudge_if(runnable);
    }

    /// The status of `id` (a data object, or a node) changed; if it turned `terminal`, whatever is
    /// parked on it wakes. A node's own terminal outcome wakes its dependants without this call.
    pub fn on_status(&self, id: &Id, terminal: bool) {
        let mut core = self.shared.lock();
        core.status(id, terminal);
        let runnable = core.has_ready();
        drop(core);
        self.shared.nudge_if(runnable);
    }

    /// Stops the run (e.g. on Ctrl-C): bodies in flight finish, nothing new starts, `run` returns a
    /// report with `cancelled` set. Safe to call from any thread; it only sets a flag and nudges.
    /// Final: later runs of this scheduler return at once, cancelled.
    pub fn cancel(&self) {
        self.shared.cancelled.store(true, Ordering::Release);
        self.shared.nudge_if(true);
    }

    pub fn is_cancelled(&self) -> bool {
        self.shared.cancelled.load(Ordering::Acquire)
    }
}

/// A re-entrant structural-fixpoint scheduler over nodes identified by `Id`.
pub struct Scheduler<Id> {
    handle: Handle<Id>,
    inbox: Receiver<Message<Id>>,
    options: Options,
}

/// A drain round in progress: parked nodes run one at a time, in `queue` order.
struct Round {
    level: DrainLevel,
    queue: VecDeque<usize>,
    progress_at_start: u64,
}

impl<Id: NodeId> Scheduler<Id> {
    pub fn new(options: Options) -> Self {
        let (outbox, inbox) = crossbeam_channel::unbounded();
        let shared = Shared {
            core: Mutex::new(Core::new(options.clone())),
            cancelled: AtomicBool::new(false),
            nudge_pending: AtomicBool::new(false),
            outbox,
        };
        Scheduler {
            handle: Handle {
                shared: Arc::new(shared),
            },
            inbox,
            options,
        }
    }

    /// A handle for bodies (and setup code) to report arrivals and statuses through.
    pub fn handle(&self) -> Handle<Id> {
        self.handle.clone()
    }

    /// Runs bodies until the fixpoint, escalating the drain as needed, and reports every node's end.
    /// May be called again after more arrivals: finished nodes stay finished unless they re-arrive.
    /// Not from inside a body (the inner run would take the outer run's messages).
    pub fn run<D: Dispatcher<Id>>(&self, dispatcher: &D) -> Report<Id> {
        let concurrency = self.options.concurrency.max(1);
        // A nudge left from setup calls is moot: the run starts by looking at the queue.
        while self.inbox.try_recv().is_ok() {}
        self.handle
            .shared
            .nudge_pending
            .store(false, Ordering::Release);
        let (dispatches_before, sequence) = {
            let mut core = self.handle.shared.lock();
            core.begin_run();
            (core.dispatches, core.sequence())
        };

        let mut stats = Stats::default();
        let (job_sender, job_receiver) = crossbeam_channel::unbounded::<Job<Id>>();
        let cancelled = std::thread::scope(|scope| {
            let shared = &self.handle.shared;
            let sequence = &sequence;
            // A worker's body; `on_start` first, when given.
            let worker_body = |on_start: Option<fn()>| {
                let jobs = job_receiver.clone();
                let outbox = shared.outbox.clone();
                move || {
                    if let Some(on_start) = on_start {
                        on_start();
                    }
                    for job in jobs.iter() {
                        let message = if shared.cancelled.load(Ordering::Acquire) {
                            Message::Unrun { node: job.node }
                        } else {
                            let start = sequence.load(Ordering::Acquire);
                            let result = catch_unwind(AssertUnwindSafe(|| {
                                dispatcher.dispatch(&job.id, job.drain)
                            }))
                            .map_err(|payload| panic_message(payload.as_ref()));
                            Message::Done {
                                node: job.node,
                                start,
                                result,
                            }
                        };
                        // The coordinator outlives the workers, so the send cannot fail.
                        let _ = outbox.send(message);
                    }
                }
            };
            for _ in 0..concurrency {
                let sized = self.options.worker_stack_size.and_then(|size| {
                    std::thread::Builder::new()
                        .stack_size(size)
                        .spawn_scoped(scope, worker_body(self.options.on_worker_start))
                        .ok()
                });
                // Without the stack asked for (none asked, or the system refused it), a worker of
                // the default size, without `on_worker_start`'s promise.
                if sized.is_none() {
                    scope.spawn(worker_body(None));
                }
            }
            drop(job_receiver);
            let cancelled = self.coordinate(dispatcher, &job_sender, concurrency, &mut stats);
            // Closing the job channel ends the workers; the scope joins them.
            drop(job_sender);
            cancelled
        });

        let core = self.handle.shared.lock();
        stats.dispatches = core.dispatches - dispatches_before;
        Report {
            cancelled,
            nodes: core.report(cancelled),
            stats,
        }
    }

    /// The coordinator loop; returns whether the run was cancelled.
    fn coordinate<D: Dispatcher<Id>>(
        &self,
        dispatcher: &D,
        jobs: &Sender<Job<Id>>,
        concurrency: usize,
        stats: &mut Stats,
    ) -> bool {
        let shared = &self.handle.shared;
        // Several jobs queued per worker: a worker that finishes takes its next body without waiting
        // for the coordinator to wake up, and the coordinator handles outcomes in batches. (A
        // window of only twice the pool cost several times more in context switches per node.)
        // Queued jobs do not start after a cancel: workers check the flag before each body.
        let window = concurrency * 16;
        let mut in_flight = 0usize;
        let mut round: Option<Round> = None;
        let mut last_round: Option<(DrainLevel, bool)> = None;
        loop {
            let mut core = shared.lock();
            while let Ok(message) = self.inbox.try_recv() {
                apply(shared, &mut core, message, &mut in_flight);
            }
            if !core.settled.is_empty() {
                let settled = std::mem::take(&mut core.settled);
                drop(core);
                settle(dispatcher, &settled);
                let mut core = shared.lock();
                // Wakes dependants again, now that the caller has recorded the status they look for.
                for (id, _) in &settled {
                    core.status(id, true);
                }
                continue;
            }
            if shared.cancelled.load(Ordering::Acquire) {
                if in_flight == 0 {
                    return true;
                }
            } else if let Some(current) = round.as_mut() {
                if in_flight == 0 {
                    match current.queue.pop_front() {
                        Some(node) => {
                            if let Some(job) = core.start(node, current.level) {
                                in_flight += 1;
                                send(jobs, job);
                            }
                        }
                        None => {
                            last_round =
                                Some((current.level, core.progress != current.progress_at_start));
                            round = None;
                        }
                    }
                    continue;
                }
            } else {
                while in_flight < window {
                    let Some(job) = core.next_ready(DrainLevel::None) else {
                        break;
                    };
                    in_flight += 1;
                    send(jobs, job);
                }
                if in_flight == 0 {
                    // Quiet: nothing runs and nothing can run, so nothing new can arrive.
                    if !core.any_parked() {
                        return false;
                    }
                    // Cycles first: what waits in one can only be ended by the scheduler.
                    let absent = core.absent_waits();
                    drop(core);
                    let producers = producers_of(dispatcher, absent);
                    let mut core = shared.lock();
                    let cycles = core.end_cycles(&producers);
                    if cycles > 0 {
                        stats.cycles += cycles;
                        last_round = None;
                        continue;
                    }
                    let level = match last_round {
                        None | Some((_, true)) => DrainLevel::Cascade,
                        Some((DrainLevel::Cascade, false)) => DrainLevel::Force,
                        Some((_, false)) => {
                            core.sweep();
                            let settled = std::mem::take(&mut core.settled);
                            drop(core);
                            settle(dispatcher, &settled);
                            return false;
                        }
                    };
                    match level {
                        DrainLevel::Force => stats.force_rounds += 1,
                        _ => stats.cascade_rounds += 1,
                    }
                    let queue = core.take_parked().into();
                    round = Some(Round {
                        level,
                        queue,
                        progress_at_start: core.progress,
                    });
                    continue;
                }
            }
            drop(core);
            // Something is in flight, so a message will come.
            match self.inbox.recv() {
                Ok(message) => apply(shared, &mut shared.lock(), message, &mut in_flight),
                Err(_) => return shared.cancelled.load(Ordering::Acquire),
            }
        }
    }
}

fn apply<Id: NodeId>(
    shared: &Shared<Id>,
    core: &mut Core<Id>,
    message: Message<Id>,
    in_flight: &mut usize,
) {
    match message {
        Message::Done {
            node,
            start,
            result,
        } => {
            *in_flight = in_flight.saturating_sub(1);
            core.complete(node, start, result);
        }
        Message::Unrun { node } => {
            *in_flight = in_flight.saturating_sub(1);
            core.unrun(node);
        }
        Message::Nudge => shared.nudge_pending.store(false, Ordering::Release),
    }
}

fn settle<Id, D: Dispatcher<Id>>(dispatcher: &D, settled: &[(Id, Final<Id>)]) {
    for (id, outcome) in settled {
        // A panicking hook must not take the coordinator down with it.
        let _ = catch_unwind(AssertUnwindSafe(|| dispatcher.settle(id, outcome)));
    }
}

/// The producers the dispatcher names for each absent id, leaving out ids it names none for.
fn producers_of<Id, D: Dispatcher<Id>>(dispatcher: &D, absent: Vec<Id>) -> Vec<(Id, Vec<Id>)> {
    absent
        .into_iter()
        .filter_map(|id| {
            // A panicking hook must not take the coordinator down with it.
            let by = catch_unwind(AssertUnwindSafe(|| dispatcher.producers(&id))).ok()?;
            (!by.is_empty()).then_some((id, by))
        })
        .collect()
}

fn send<Id>(jobs: &Sender<Job<Id>>, job: Job<Id>) {
    // Workers hold the receiver until the coordinator drops the sender, so this cannot fail.
    let _ = jobs.send(job);
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    let detail = payload
        .downcast_ref::<&str>()
        .map(|text| (*text).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "no message".to_owned());
    format!("internal error: the reconcile body panicked: {detail}")
}
