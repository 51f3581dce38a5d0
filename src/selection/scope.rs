//! Scoped runs: a command about some objects (`build hr NAME`, `build ks`, `test hr NAME`,
//! `--changed-only`) renders only the HelmReleases and builds only the Kustomizations those
//! objects need, not every producer of the repository.
//!
//! A HelmRelease, or a Kustomization written in a file of the repository, that no needed object
//! waits on is *deferred*: its body does not run and it stays Pending. It is released (run, then
//! reconciled like any other) as soon as a needed object waits on it, on something its static
//! producers make, or, once the run is quiet, on something absent that no file of the repository
//! defines (a chart might render it) or, while a Kustomization is deferred, on anything absent (a
//! deferred build might apply it from a file it reaches through its kustomization): then every
//! deferred producer runs (and none is deferred again: the run has become a whole one) and the
//! drain is put off until they have, so a target ends as it would in a full run.
//!
//! A Kustomization is deferred only while it reads what its file says it reads (a parent that
//! substituted or patched its path, components or source, a path with a variable, or a source
//! other than a GitRepository would let it read what no static reading sees), and a
//! Kustomization no file writes (made by a FluxInstance, a ResourceSet, a chart) never is. The
//! static producers can still miss what a deferred build applies: one parent per object (the
//! Kustomization whose path holds its file most narrowly), none through what a chart renders. So
//! the run is made again building every Kustomization ([`Scope::missed_a_target`], the runtime's
//! `missed_a_target`) when it ends without a target, or when a deferred Kustomization's tree, as
//! written, writes or generates an object of the kind and name of one whose version matters (one
//! a producer that ran applied, one the run needed or a needed producer reads): the whole run
//! would have had both copies, kept the smaller claimant's, and reported the two.
//!
//! What is *needed*: the targets, the Kustomizations whose paths hold them (up to the root; for an
//! object the run starts from as written, which no static producer applies, the Kustomizations
//! whose kustomization trees read its file), and whatever a needed object waits on or was decided
//! by, with their producers. Names are compared by kind and name, not namespace: a file's object
//! gets its namespace from the build that applies it, so an over-approximation is the safe side.
//!
//! Blind spots: a deferred release's chart is not looked into, so an object only a chart renders
//! that a needed object reads as `optional` (it does not wait for it), or one a chart and a
//! Kustomization both publish (the release's copy would win), is not what a full run has; nor is
//! an object a deferred Kustomization would make under a name its files do not write (a
//! `namePrefix`, a substituted name) that another producer also applies.
//!
//! Not for: deciding what a command prints; it only decides what need not be rendered.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, OnceLock};

use offlux_sync::MutexExt as _;

use super::reading::KustomizationTrees;
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

/// A kind and a name: what "needed" is decided on.
type KindName = (String, String);

fn kind_name(id: &ResourceId) -> KindName {
    (id.kind.to_string(), id.name.to_string())
}

fn is_release(id: &ResourceId) -> bool {
    id.kind == "HelmRelease" && id.group == "helm.toolkit.fluxcd.io"
}

fn is_kustomization(id: &ResourceId) -> bool {
    id.kind == "Kustomization" && id.group == "kustomize.toolkit.fluxcd.io"
}

/// The state of a scoped run, shared by the bodies.
pub(crate) struct Scope {
    targets: Vec<Target>,
    /// The files the targets are written in, by kind, with the targets' names: an object of that
    /// kind a build renders from one of them under a target's name (in another namespace), or
    /// under a name no file writes (`namePrefix`, a substituted name), is a target too.
    target_files: BTreeMap<(String, PathBuf), BTreeSet<String>>,
    /// Every Flux object's kind and name as the repository's files write them.
    written_names: BTreeSet<KindName>,
    needed: Mutex<BTreeSet<KindName>>,
    deferred: Mutex<BTreeSet<ResourceId>>,
    /// Set when the quiet run's drain found an absence a deferred release might fill: until
    /// ordinary running resumes, needed bodies run as if nothing were final yet.
    put_off: AtomicBool,
    /// Set once every deferred producer was released: from then on none is deferred again (a
    /// released producer is still not needed, and deferring it anew would leave the absence it
    /// might fill unexplained, so the drain would never decide).
    released_all: AtomicBool,
    /// Whether Kustomizations written in the repository may be deferred (unset for the run
    /// made again after one that missed a target).
    defers_kustomizations: bool,
    /// Set when a Kustomization was deferred.
    deferred_a_kustomization: AtomicBool,
    /// The files of the objects the run starts from as written (nothing statically applies
    /// them), by kind and name.
    seed_files: BTreeMap<KindName, Vec<PathBuf>>,
    /// The written Kustomizations' trees (where Kustomizations may be deferred): those that read
    /// a seed's file stand in for its producers, so a needed seed's are built and apply their
    /// version of it; what each writes tells whether a deferred one's output would have met the
    /// run's.
    trees: Option<KustomizationTrees>,
    handle: OnceLock<Handle<ResourceId>>,
}

impl Scope {
    /// The scope of `targets` in `repository`, or `None` when a full run is the only faithful
    /// one: a target that no file defines may come from a chart's output, and a target without a
    /// name may match objects that do. With `defers_kustomizations` unset, every Kustomization
    /// is built as in a full run.
    pub(crate) fn new(
        targets: &[Target],
        repository: &Repository,
        producers: &Producers,
        defers_kustomizations: bool,
        seeds: &[(&std::path::Path, &ResourceId)],
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
            target_files,
            written_names,
            needed: Mutex::new(BTreeSet::new()),
            deferred: Mutex::new(BTreeSet::new()),
            put_off: AtomicBool::new(false),
            released_all: AtomicBool::new(false),
            defers_kustomizations,
            deferred_a_kustomization: AtomicBool::new(false),
            seed_files: seeds.iter().fold(BTreeMap::new(), |mut files, (file, id)| {
                files
                    .entry(kind_name(id))
                    .or_insert_with(Vec::new)
                    .push(file.to_path_buf());
                files
            }),
            trees: defers_kustomizations.then(|| {
                let files = seeds.iter().map(|(file, _)| file.to_path_buf()).collect();
                KustomizationTrees::of(repository, &files)
            }),
            handle: OnceLock::new(),
        };
        for id in written {
            scope.need(id, producers, &|_| false);
        }
        Some(scope)
    }

    pub(crate) fn attach(&self, handle: Handle<ResourceId>) {
        let _ = self.handle.set(handle);
    }

    /// Whether `id`'s body may be put off while nothing needs it; `as_written` says whether a
    /// Kustomization reads what its file says (see [`Scope::dispatch`]).
    fn is_deferrable(&self, id: &ResourceId, as_written: &dyn Fn(&ResourceId) -> bool) -> bool {
        is_release(id)
            || (self.defers_kustomizations
                && is_kustomization(id)
                && self.written_names.contains(&kind_name(id))
                && as_written(id))
    }

    /// Whether a Kustomization was deferred and a target is not among `present` (the ids the
    /// Store holds when the run ends): the static producers did not lead to it, and only a run
    /// that builds every Kustomization tells what applies it.
    pub(crate) fn missed_a_target(&self, present: &[ResourceId]) -> bool {
        self.deferred_a_kustomization.load(Ordering::Acquire)
            && (self.targets.iter()).any(|target| !present.iter().any(|id| target.matches(id)))
    }

    /// Whether the run needs `id`: a target, or what a needed object waited on or applies it.
    pub(crate) fn needs(&self, id: &ResourceId) -> bool {
        self.is_needed(id)
    }

    /// Whether a Kustomization still deferred writes or generates, by its kustomization tree as
    /// written, an object of one of `names` (kinds and names the run holds): its build would have
    /// applied its own version of it, which the whole run may keep.
    pub(crate) fn a_deferred_kustomization_writes_any(&self, names: &BTreeSet<KindName>) -> bool {
        let Some(trees) = &self.trees else {
            return false;
        };
        let deferred: Vec<KindName> = (self.deferred.locked().iter())
            .filter(|id| is_kustomization(id))
            .map(kind_name)
            .collect();
        deferred.iter().any(|k| trees.writes_any(k, names))
    }

    /// The written Kustomizations whose trees read the file of the seed `id` (none for an object
    /// that is not one, or where Kustomizations are not deferred), but `id` itself.
    fn seed_readers(&self, id: &ResourceId) -> Vec<ResourceId> {
        let key = kind_name(id);
        let (Some(trees), Some(files)) = (&self.trees, self.seed_files.get(&key)) else {
            return Vec::new();
        };
        let mut readers: Vec<ResourceId> = (files.iter())
            .flat_map(|file| trees.readers_of(file))
            .filter(|reader| kind_name(reader) != key)
            .cloned()
            .collect();
        readers.sort();
        readers.dedup();
        readers
    }

    /// Whether the deferred producers include a Kustomization.
    fn defers_a_kustomization_now(&self) -> bool {
        self.deferred.locked().iter().any(is_kustomization)
    }

    fn is_needed(&self, id: &ResourceId) -> bool {
        self.targets.iter().any(|t| t.matches(id)) || self.needed.locked().contains(&kind_name(id))
    }

    /// Marks `id` and its producers, up to the root, needed; releases the deferred releases among
    /// them and wakes the pending others, so they say in turn what they wait on.
    fn need(&self, id: &ResourceId, producers: &Producers, pending: &dyn Fn(&ResourceId) -> bool) {
        let mut work = vec![id.clone()];
        let mut woken = BTreeSet::new();
        let mut waiting = Vec::new();
        while let Some(id) = work.pop() {
            let fresh = self.needed.locked().insert(kind_name(&id));
            if !fresh {
                continue;
            }
            woken.insert(kind_name(&id));
            let by = producers.of(&id);
            if by.is_empty() {
                work.extend(self.seed_readers(&id));
            }
            work.extend(by);
            if pending(&id) {
                waiting.push(id);
            }
        }
        if woken.is_empty() {
            return;
        }
        let mut released: Vec<ResourceId> = {
            let mut deferred = self.deferred.locked();
            let (released, kept): (BTreeSet<ResourceId>, BTreeSet<ResourceId>) =
                std::mem::take(&mut *deferred)
                    .into_iter()
                    .partition(|d| woken.contains(&kind_name(d)));
            *deferred = kept;
            released.into_iter().collect()
        };
        released.extend(waiting);
        self.wake(released);
    }

    /// Runs every deferred producer: the run can no longer tell which of them it needs.
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

    /// Runs `id`'s body (`body`) as the scope allows. `absent` says whether an id a body waits on
    /// is not in the Store; `kustomization_as_written` whether a Kustomization, as the Store holds
    /// it, reads what a file of the repository defines it to (its path, components and source,
    /// a GitRepository), so that the static producers know what it applies; `pending` whether an id
    /// is an object of the Store that has not reached a terminal status (a parked body to wake
    /// once it is needed); `read_from` the file the Store's object was read from.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn dispatch(
        &self,
        id: &ResourceId,
        drain: DrainLevel,
        producers: &Producers,
        absent: &dyn Fn(&ResourceId) -> bool,
        kustomization_as_written: &dyn Fn(&ResourceId) -> bool,
        pending: &dyn Fn(&ResourceId) -> bool,
        read_from: &dyn Fn(&ResourceId) -> Option<PathBuf>,
        body: &dyn Fn(DrainLevel) -> Outcome<ResourceId>,
    ) -> Outcome<ResourceId> {
        if drain == DrainLevel::None {
            self.put_off.store(false, Ordering::Release);
        }
        if !self.is_needed(id) && !self.renders_a_target(id, read_from(id)) {
            // Decided under the lock `release_all` takes, so none is deferred after it.
            let deferred_now = self.is_deferrable(id, kustomization_as_written) && {
                let mut deferred = self.deferred.locked();
                let open = !self.released_all.load(Ordering::Acquire);
                if open {
                    deferred.insert(id.clone());
                    if is_kustomization(id) {
                        self.deferred_a_kustomization.store(true, Ordering::Release);
                    }
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
            // decides nothing, so running it at the ordinary level first changes no outcome. An
            // absence a deferred producer may fill: one no file defines (a chart may render it),
            // or any while a Kustomization is deferred (its build may reach a file its path does
            // not hold).
            let unexplained = |waited: &ResourceId| {
                absent(waited)
                    && (producers.of(waited).is_empty() || self.defers_a_kustomization_now())
            };
            match body(DrainLevel::None) {
                Outcome::Blocked(waits) if waits.iter().any(unexplained) => {
                    self.release_all();
                    Outcome::Blocked(waits)
                }
                Outcome::Blocked(_) => body(drain),
                decided => decided,
            }
        } else {
            body(drain)
        };
        if let Outcome::Blocked(ids) | Outcome::Decided(ids) = &outcome {
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
