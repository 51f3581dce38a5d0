//! Scoped runs: a command about some objects (`build hr NAME`, `build ks`, `test hr NAME`) renders
//! only the HelmReleases those objects need, not every release of the repository.
//!
//! Every other kind reconciles as in a full run (Kustomization builds are cheap next to chart
//! renders, and they are what brings the targets and their inputs into the Store). A HelmRelease
//! that no needed object waits on is *deferred*: its body does not run and it stays Pending. It is
//! released (run, then reconciled like any other) as soon as a needed object waits on it, on
//! something its static producers make, or, once the run is quiet, on something absent that no
//! file of the repository defines (a chart might render it): then every deferred release runs
//! (and none is deferred again: the run has become a whole one) and the drain is put off until
//! they have, so a target ends as it would in a full run.
//!
//! What is *needed*: the targets, the Kustomizations whose paths hold them (up to the root), and
//! whatever a needed object waits on or was decided by, with their producers. Names are compared
//! by kind and name, not namespace: a file's object gets its namespace from the build that applies
//! it, so an over-approximation is the safe side.
//!
//! A needed Kustomization's outcome is needed only when a needed object waits on it or was
//! decided by it, or it is a target the command names: one needed because it creates a target
//! (an ancestor up to the root) runs its health checks (`wait`, `healthChecks`) without making
//! what they check needed, and at the end names the checks it did not make; it is woken to make
//! them as soon as something reads its outcome. In a change's scope ([`ScopeKind::Change`]) the
//! targets are reported, but their outcome is not read by that alone: a reported Kustomization
//! whose outcome nothing reads names, on its row, the checks the change did not reach.
//!
//! Blind spot: a deferred release's chart is not looked into, so an object only a chart renders
//! that a needed object reads as `optional` (it does not wait for it), or one a chart and a
//! Kustomization both publish (the release's copy would win), is not what a full run has.
//!
//! Not for: deciding what a command prints; it only decides what need not be rendered.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, OnceLock};

use offlux_sync::MutexExt as _;

use crate::controllers::depend::Producers;
use crate::discovery::Repository;
use crate::model::ResourceId;
use crate::schedule::{DrainLevel, Handle, Outcome};

/// Objects a command is about: of any of these kinds, and of a name and namespace when given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Target {
    pub kinds: Vec<String>,
    pub name: Option<String>,
    pub namespace: Option<String>,
}

impl Target {
    pub fn matches(&self, id: &ResourceId) -> bool {
        self.matches_parts(&id.kind, &id.namespace, &id.name)
    }

    /// [`Target::matches`] on an object named by its parts (an object without a namespace
    /// matches any namespace asked for: it takes its Kustomization's).
    pub fn matches_parts(&self, kind: &str, namespace: &str, name: &str) -> bool {
        self.kinds.iter().any(|k| k == kind)
            && self.name.as_deref().is_none_or(|n| n == name)
            && self
                .namespace
                .as_deref()
                .is_none_or(|ns| ns == namespace || namespace.is_empty())
    }
}

/// What a scoped run's targets are.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ScopeKind {
    /// The objects a command names (`build hr NAME`, `test ks NAME`): each ends as in a full run.
    #[default]
    Named,
    /// The producers a change can affect (`--changed-only`): each ends as in a full run, but for
    /// a Kustomization's health checks of objects the change does not reach (the same on both
    /// sides of it), which are left out with a note.
    Change,
}

/// A kind and a name: what "needed" is decided on.
type KindName = (String, String);

fn kind_name(id: &ResourceId) -> KindName {
    (id.kind.to_string(), id.name.to_string())
}

fn is_deferrable(id: &ResourceId) -> bool {
    id.kind == "HelmRelease" && id.group == "helm.toolkit.fluxcd.io"
}

/// The state of a scoped run, shared by the bodies.
pub(crate) struct Scope {
    targets: Vec<Target>,
    kind: ScopeKind,
    /// The files the targets are written in, by kind, with the targets' names: an object of that
    /// kind a build renders from one of them under a target's name (in another namespace), or
    /// under a name no file writes (`namePrefix`, a substituted name), is a target too.
    target_files: BTreeMap<(String, PathBuf), BTreeSet<String>>,
    /// Every Flux object's kind and name as the repository's files write them.
    written_names: BTreeSet<KindName>,
    needed: Mutex<BTreeSet<KindName>>,
    /// Of the needed, those a needed object waited on or was decided by: their outcome, not
    /// only their output, is read (the targets are too).
    outcome_needed: Mutex<BTreeSet<KindName>>,
    deferred: Mutex<BTreeSet<ResourceId>>,
    /// Set when the quiet run's drain found an absence a deferred release might fill: until
    /// ordinary running resumes, needed bodies run as if nothing were final yet.
    put_off: AtomicBool,
    /// Set once every deferred release was released: from then on none is deferred again (a
    /// released release is still not needed, and deferring it anew would leave the absence it
    /// might fill unexplained, so the drain would never decide).
    released_all: AtomicBool,
    handle: OnceLock<Handle<ResourceId>>,
}

impl Scope {
    /// The scope of `targets` in `repository`, or `None` when a full run is the only faithful
    /// one: a target that no file defines may come from a chart's output, and a target without a
    /// name may match objects that do.
    pub(crate) fn new(
        targets: &[Target],
        kind: ScopeKind,
        repository: &Repository,
        producers: &Producers,
    ) -> Option<Scope> {
        let written: Vec<&crate::model::Object> = repository
            .flux_objects
            .iter()
            .map(|f| &f.object)
            .filter(|object| targets.iter().any(|t| t.matches(&object.id)))
            .collect();
        let mut target_files: BTreeMap<(String, PathBuf), BTreeSet<String>> = BTreeMap::new();
        for object in &written {
            target_files
                .entry((object.id.kind.to_string(), object.file.clone()))
                .or_default()
                .insert(object.id.name.to_string());
        }
        let written_names = (repository.flux_objects.iter())
            .map(|f| kind_name(&f.object.id))
            .collect();
        let written: Vec<&ResourceId> = written.iter().map(|object| &object.id).collect();
        let unwritten = targets
            .iter()
            .any(|t| t.name.is_none() || !written.iter().any(|id| t.matches(id)));
        if unwritten {
            return None;
        }
        let scope = Scope {
            targets: targets.to_vec(),
            kind,
            target_files,
            written_names,
            needed: Mutex::new(BTreeSet::new()),
            outcome_needed: Mutex::new(BTreeSet::new()),
            deferred: Mutex::new(BTreeSet::new()),
            put_off: AtomicBool::new(false),
            released_all: AtomicBool::new(false),
            handle: OnceLock::new(),
        };
        for id in written {
            scope.need_as(id, producers, &|_| false, kind == ScopeKind::Named);
        }
        Some(scope)
    }

    pub(crate) fn attach(&self, handle: Handle<ResourceId>) {
        let _ = self.handle.set(handle);
    }

    fn is_needed(&self, id: &ResourceId) -> bool {
        self.targets.iter().any(|t| t.matches(id)) || self.needed.locked().contains(&kind_name(id))
    }

    /// Marks `id` and its producers, up to the root, needed, and `id`'s outcome too; releases
    /// the deferred releases among them and wakes the pending others, so they say in turn what
    /// they wait on.
    fn need(&self, id: &ResourceId, producers: &Producers, pending: &dyn Fn(&ResourceId) -> bool) {
        self.need_as(id, producers, pending, true);
    }

    /// [`Scope::need`], marking `id`'s outcome needed only with `outcome`.
    fn need_as(
        &self,
        id: &ResourceId,
        producers: &Producers,
        pending: &dyn Fn(&ResourceId) -> bool,
        outcome: bool,
    ) {
        let outcome_fresh = outcome && self.outcome_needed.locked().insert(kind_name(id));
        let mut work = vec![id.clone()];
        let mut woken = BTreeSet::new();
        let mut waiting = Vec::new();
        while let Some(id) = work.pop() {
            let fresh = self.needed.locked().insert(kind_name(&id));
            if !fresh {
                continue;
            }
            woken.insert(kind_name(&id));
            work.extend(producers.of(&id));
            if pending(&id) {
                waiting.push(id);
            }
        }
        // Needed before only to create a target, it may wait on health checks it did not make
        // needed: woken, it makes them needed now.
        if outcome_fresh && !woken.contains(&kind_name(id)) && pending(id) {
            waiting.push(id.clone());
        }
        if woken.is_empty() && waiting.is_empty() {
            return;
        }
        // A deferred release is pending too: woken once.
        let mut released: BTreeSet<ResourceId> = {
            let mut deferred = self.deferred.locked();
            let (released, kept): (BTreeSet<ResourceId>, BTreeSet<ResourceId>) =
                std::mem::take(&mut *deferred)
                    .into_iter()
                    .partition(|d| woken.contains(&kind_name(d)));
            *deferred = kept;
            released
        };
        released.extend(waiting);
        self.wake(released.into_iter().collect());
    }

    /// Whether `id`, read from `file`, is a target (under its written name or one a build gave
    /// it).
    fn is_target(&self, id: &ResourceId, file: Option<PathBuf>) -> bool {
        self.targets.iter().any(|t| t.matches(id)) || self.renders_a_target(id, file)
    }

    /// Whether `id`'s outcome (read from `file`) is read: a needed object waited on it or was
    /// decided by it, or it is a target the command names. (A change's targets are reported,
    /// but only their outcome as far as the change reaches: see [`ScopeKind::Change`].)
    pub(crate) fn outcome_is_needed(&self, id: &ResourceId, file: Option<PathBuf>) -> bool {
        self.outcome_needed.locked().contains(&kind_name(id))
            || (self.kind == ScopeKind::Named && self.is_target(id, file))
    }

    pub(crate) fn kind(&self) -> ScopeKind {
        self.kind
    }

    /// Runs every deferred release: the run can no longer tell which of them it needs.
    fn release_all(&self) {
        let released: Vec<ResourceId> = {
            let mut deferred = self.deferred.locked();
            self.released_all.store(true, Ordering::Release);
            std::mem::take(&mut *deferred).into_iter().collect()
        };
        if !released.is_empty() {
            self.put_off.store(true, Ordering::Release);
        }
        self.wake(released);
    }

    fn wake(&self, ids: Vec<ResourceId>) {
        if let Some(handle) = self.handle.get() {
            for id in ids {
                handle.on_arrival(id, true);
            }
        }
    }

    fn has_deferred(&self) -> bool {
        !self.deferred.locked().is_empty()
    }

    /// Whether `id`, read from `file` (relative to the repository root), is a target under the
    /// name a build gave it.
    fn renders_a_target(&self, id: &ResourceId, file: Option<PathBuf>) -> bool {
        let Some(names) = file.and_then(|file| self.target_files.get(&(id.kind.to_string(), file)))
        else {
            return false;
        };
        names.contains(id.name.as_str()) || !self.written_names.contains(&kind_name(id))
    }

    /// Runs `id`'s body (`body`) as the scope allows. `absent_unexplained` says whether an id a
    /// body waits on is absent and written in no file of the repository; `pending` whether an id
    /// is an object of the Store that has not reached a terminal status, or a Kustomization
    /// decided with health checks not made (a body to wake once it is needed); `read_from` the file the Store's object was read from;
    /// `waits_for_health` whether an id is a Kustomization past its apply, in its health checks.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn dispatch(
        &self,
        id: &ResourceId,
        drain: DrainLevel,
        producers: &Producers,
        absent_unexplained: &dyn Fn(&ResourceId) -> bool,
        pending: &dyn Fn(&ResourceId) -> bool,
        read_from: &dyn Fn(&ResourceId) -> Option<PathBuf>,
        waits_for_health: &dyn Fn(&ResourceId) -> bool,
        body: &dyn Fn(DrainLevel) -> Outcome<ResourceId>,
    ) -> Outcome<ResourceId> {
        if drain == DrainLevel::None {
            self.put_off.store(false, Ordering::Release);
        }
        if !self.is_needed(id) && !self.renders_a_target(id, read_from(id)) {
            // Decided under the lock `release_all` takes, so none is deferred after it.
            let deferred_now = is_deferrable(id) && {
                let mut deferred = self.deferred.locked();
                let open = !self.released_all.load(Ordering::Acquire);
                if open {
                    deferred.insert(id.clone());
                }
                open
            };
            if deferred_now {
                // Needed meanwhile (between the check and the insert): run it after all.
                if self.is_needed(id) {
                    self.need_again(id);
                }
                return Outcome::Terminal;
            }
            return body(drain);
        }
        let drain = if self.put_off.load(Ordering::Acquire) {
            DrainLevel::None
        } else {
            drain
        };
        let outcome = if drain != DrainLevel::None && self.has_deferred() {
            // What it still waits on, before the drain decides anything: a body that waits
            // decides nothing, so running it at the ordinary level first changes no outcome.
            match body(DrainLevel::None) {
                Outcome::Blocked(waits) if waits.iter().any(absent_unexplained) => {
                    self.release_all();
                    Outcome::Blocked(waits)
                }
                Outcome::Blocked(_) => body(drain),
                decided => decided,
            }
        } else {
            body(drain)
        };
        // What the health checks of a Kustomization whose outcome nothing reads wait on is not
        // needed for them (it is needed for them once its outcome is: see `need`).
        let checks_unread = || waits_for_health(id) && !self.outcome_is_needed(id, read_from(id));
        if let Outcome::Blocked(ids) | Outcome::Decided(ids) = &outcome {
            if checks_unread() {
                return outcome;
            }
            for waited in ids {
                self.need(waited, producers, pending);
            }
        }
        outcome
    }

    /// Releases `id` from the deferred set if it is there.
    fn need_again(&self, id: &ResourceId) {
        let released = self.deferred.locked().remove(id);
        if released {
            self.wake(vec![id.clone()]);
        }
    }
}
