//! The reconcile loop: the Store of objects and statuses, the fixpoint scheduler, and a body per
//! Flux kind. Objects found at the entry seed the run; everything else arrives as the children a
//! Kustomization's build publishes (data first, so their lookups see it), and every arrival wakes
//! what waits on it.
//!
//! The kustomize build itself is behind [`KustomizationBuilder`] and chart rendering behind
//! [`HelmRenderer`], so this module is testable with fakes and knows no engine internals.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use offlux_sync::MutexExt as _;

use super::cluster_held;
use super::depend::{self, DependencyState, Gate, GateOptions};
use super::external_artifact::{self, ArtifactRoot};
use super::helmrelease::{self};
pub use super::helmrelease::{
    ChartLocation, HelmRenderer, RenderedRelease, RepositoryChart, RepositoryKind, UnreadKey,
    UnreadValues,
};
use super::postbuild::{self};
use super::source::{self, SourceResolution};
use super::source_map::{self, SourceMapping};
use crate::diagnostic::{Diagnostic, Location};
use crate::discovery::Repository;
use crate::model::{CrossRef, DataRef, FluxKind, FluxObject, Kustomization, Object, ResourceId};
use crate::schedule::{self, Dispatcher, DrainLevel, Final, Outcome, Scheduler};
use crate::selection::scope::{Scope, ScopeKind, Target};
use crate::store::{Event, Ready, Status, StatusRecord, Store};
use crate::yaml::Node;
use helmrelease::set_metadata;

// The bodies, one module per Flux kind (the source kinds share one); `body_of` is their table.
mod flux_instance;
mod health;
mod helm_release;
mod kustomization;
mod resource_set;
mod sources;
pub use resource_set::SuppliedInputs;

/// A Flux kind's reconcile body, run over the run's context (`Runtime`: the Store, gating on
/// dependencies, source resolution, publishing and withdrawing output). It returns what the
/// scheduler needs: terminal, blocked on ids, or decided by ids.
trait Reconcile: Sync {
    fn reconcile(
        &self,
        run: &Runtime<'_>,
        flux: &FluxObject,
        drain: DrainLevel,
    ) -> Outcome<ResourceId>;
}

/// The body of each Flux kind. No wildcard arm: a new kind does not compile until it has one.
fn body_of(kind: FluxKind) -> &'static dyn Reconcile {
    match kind {
        FluxKind::Kustomization => &kustomization::Body,
        FluxKind::HelmRelease => &helm_release::Body,
        FluxKind::GitRepository
        | FluxKind::OCIRepository
        | FluxKind::Bucket
        | FluxKind::ExternalArtifact => &sources::ArtifactSourceBody,
        FluxKind::HelmRepository | FluxKind::HelmChart => &sources::ChartSourceBody,
        FluxKind::ArtifactGenerator => &sources::GeneratorBody,
        FluxKind::ResourceSet => &resource_set::ResourceSetBody,
        FluxKind::ResourceSetInputProvider => &resource_set::InputProviderBody,
        FluxKind::FluxInstance => &flux_instance::Body,
    }
}

/// Builds a kustomization directory with `kustomization` standing in for its kustomization file.
pub trait KustomizationBuilder: Sync {
    fn build(
        &self,
        root: &Path,
        dir: &Path,
        kustomization: &Node,
    ) -> Result<Vec<BuiltObject>, String>;

    /// [`KustomizationBuilder::build`], with the warnings the build gives (located in the
    /// repository, not yet naming the Kustomization).
    fn build_with_warnings(
        &self,
        root: &Path,
        dir: &Path,
        kustomization: &Node,
    ) -> Result<(Vec<BuiltObject>, Vec<Diagnostic>), BuildError> {
        self.build(root, dir, kustomization)
            .map(|built| (built, Vec::new()))
            .map_err(BuildError::Failed)
    }
}

/// Why a kustomize build did not finish.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BuildError {
    /// It needs a remote resource, which is not fetched: `url`, listed in the kustomization file
    /// `kustomization` (absolute). Like a source that cannot be fetched, this is offline's limit,
    /// not the repository's fault.
    Remote { kustomization: PathBuf, url: String },
    /// Anything else, in the engine's words.
    Failed(String),
}

/// One object of a kustomize build.
pub struct BuiltObject {
    pub node: Node,
    /// The file it was read from (or whose generator made it), where known: findings on the
    /// object point there rather than at the Kustomization's path.
    pub file: Option<PathBuf>,
}

#[derive(Clone, Default)]
pub struct RunOptions {
    pub concurrency: Option<usize>,
    /// A source that cannot be had offline makes its consumers Ready "skipped" instead of Failed.
    pub allow_missing_sources: bool,
    pub strict_substitutions: bool,
    /// Variables only the live cluster holds (`--substitute K=V`); the repository's values win.
    pub user_values: BTreeMap<String, String>,
    /// Every value that came from a Secret (a `substituteFrom` or `valuesFrom` Secret, in the
    /// repository or `--substitute-from`) is replaced by `substitute::REDACTED` where it lands
    /// (`--redact-secret-values`).
    pub redact_secret_values: bool,
    pub cancel: CancelToken,
    /// The run's budget: limits for the whole run and the flag that stops work in flight. The
    /// Helm engine holds the same one (`HelmEngine::budget`).
    pub budget: Arc<crate::budget::RunBudget>,
    /// Sources read from local directories instead (`--sources`, and the sources fetched).
    pub source_dirs: Vec<SourceMapping>,
    /// What fetching each remote source came to, for its row and its consumers.
    pub fetched: BTreeMap<ResourceId, source::SourceFetch>,
    /// Told `(finished, known)` Flux objects as the run advances, for a progress display.
    pub progress: Option<Arc<dyn Fn(usize, usize) + Send + Sync>>,
    /// ConfigMaps and Secrets only the live cluster holds (`--substitute-from FILE`), available to
    /// `substituteFrom` unless the repository provides the same object.
    pub extra_objects: Vec<Object>,
    /// The Kubernetes version charts are rendered for (`--kube-version`); Helm's default if unset.
    pub kube_version: Option<String>,
    /// A local chart cache or mirror (`--chart-cache`), for the Helm renderer.
    pub chart_cache: Option<PathBuf>,
    /// Never fetch charts over the network (`--offline`), for the Helm renderer.
    pub offline: bool,
    /// Kinds whose objects produce a Secret of their own name in the cluster (besides
    /// `ExternalSecret` and `SealedSecret`): a HelmRelease's `valuesFrom` such a Secret is left out
    /// with a note instead of failing.
    pub secret_producer_kinds: Vec<String>,
    /// Inputs of ResourceSetInputProviders that cannot be queried offline, by `namespace/name`
    /// or `name` (`--resourceset-inputs`).
    pub resourceset_inputs: SuppliedInputs,
    /// The objects the command is about, when it is about some (`build hr NAME`): HelmReleases
    /// none of them needs are not rendered (see `scope`). Empty: the whole repository.
    pub scope: Vec<Target>,
    /// What the targets of `scope` are: named by the command, or what a change reaches.
    pub scope_kind: ScopeKind,
}

/// Stops a run from another thread (Ctrl-C): bodies in flight finish, nothing new starts.
#[derive(Clone, Default)]
pub struct CancelToken(Arc<Mutex<CancelState>>);

#[derive(Default)]
struct CancelState {
    cancelled: bool,
    handle: Option<schedule::Handle<ResourceId>>,
}

impl CancelToken {
    pub fn cancel(&self) {
        {
            let mut state = self.0.locked();
            state.cancelled = true;
            if let Some(handle) = &state.handle {
                handle.cancel();
            }
        }
    }

    fn attach(&self, handle: schedule::Handle<ResourceId>) {
        {
            let mut state = self.0.locked();
            if state.cancelled {
                handle.cancel();
            }
            state.handle = Some(handle);
        }
    }
}

/// What a run produced: each object's final status and, per Kustomization, what it rendered.
#[derive(Debug, Default)]
pub struct RunReport {
    pub statuses: Vec<(ResourceId, StatusRecord<ResourceId>)>,
    /// The statuses a narrowed report leaves out (`--changed-only`): no rows, but what blocked a
    /// row is named from them as a whole report names it (the root cause, not the nearest
    /// object left out).
    pub left_out: Vec<(ResourceId, StatusRecord<ResourceId>)>,
    pub rendered: BTreeMap<ResourceId, Vec<Object>>,
    /// Per producer that failed because the API server refuses part of its output (an
    /// unserved Flux `apiVersion`), what it built: applied nowhere, checked by `validate`.
    pub refused: BTreeMap<ResourceId, Vec<Object>>,
    /// Where each reconciled object is defined (file and line), for reports.
    pub origins: BTreeMap<ResourceId, Location>,
    pub diagnostics: Vec<Diagnostic>,
    pub cancelled: bool,
    /// Per rendered HelmRelease, the keys of its values that no template of its chart reads.
    pub unread_values: BTreeMap<ResourceId, UnreadValues>,
    /// Per HelmRelease whose chart, a directory of the repository, failed in one of its
    /// templates: that template's file (relative to the root) and line.
    pub failure_sites: BTreeMap<ResourceId, Location>,
    /// Per object, notes for its row in the roster: a dependency it went on past was only assumed
    /// Ready offline.
    pub notes: BTreeMap<ResourceId, Vec<String>>,
    /// Per Flux object that applies to another cluster than offlux's own (`spec.kubeConfig`, its
    /// own or a producer's), that cluster (see `cluster`).
    pub clusters: BTreeMap<ResourceId, String>,
    /// Per source fetched for the run, the artifact's revision as Flux spells it.
    pub revisions: BTreeMap<ResourceId, String>,
    /// The run's own tables as it ended, kept with the report: freeing them object by object is
    /// work a command that is about to exit leaves to the operating system.
    pub tables: RunTables,
}

/// Every object the run published and every claim on one, and what the engines loaded (charts,
/// their parsed templates): held, not read.
#[derive(Default)]
pub struct RunTables {
    _store: Store<ResourceId, Object>,
    _claims: BTreeMap<ResourceId, BTreeMap<ResourceId, Object>>,
    _held: Vec<Box<dyn std::any::Any + Send + Sync>>,
}

impl RunTables {
    /// Keeps `value` with the report, to be freed (or left to the operating system) with it.
    pub fn hold(&mut self, value: impl std::any::Any + Send + Sync) {
        self._held.push(Box::new(value));
    }
}

impl std::fmt::Debug for RunTables {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunTables")
            .field("claims", &self._claims.len())
            .finish_non_exhaustive()
    }
}

/// A dependency as the Store holds it at the moment its dependant decides.
struct KnownDependency {
    id: ResourceId,
    object: Option<Arc<Object>>,
    status: Option<StatusRecord<ResourceId>>,
}

const OWNER_NAME: &str = "kustomize.toolkit.fluxcd.io/name";
const OWNER_NAMESPACE: &str = "kustomize.toolkit.fluxcd.io/namespace";

struct Runtime<'a> {
    repository: &'a Repository,
    builder: &'a dyn KustomizationBuilder,
    helm: &'a dyn HelmRenderer,
    options: &'a RunOptions,
    git_remote: Option<String>,
    store: Store<ResourceId, Object>,
    /// Who published what: object id → producer → that producer's version. Held while publishing.
    claims: Mutex<BTreeMap<ResourceId, BTreeMap<ResourceId, Object>>>,
    rendered: Mutex<BTreeMap<ResourceId, Vec<Object>>>,
    /// What a producer built and the API server refused to apply (see `dry_run`), kept for
    /// validation only.
    refused: Mutex<BTreeMap<ResourceId, Vec<Object>>>,
    diagnostics: Mutex<BTreeSet<Diagnostic>>,
    unread_values: Mutex<BTreeMap<ResourceId, UnreadValues>>,
    failure_sites: Mutex<BTreeMap<ResourceId, Location>>,
    /// Who would publish each object written in the repository, for dependencies that never came.
    producers: depend::Producers,
    /// Per object that went on past a dependency only assumed Ready offline, what the roster says.
    notes: Mutex<BTreeMap<ResourceId, Vec<String>>>,
    /// The last cycle's path and message: every member of a cycle shares both.
    last_cycle: Mutex<Option<(Arc<[ResourceId]>, String)>>,
    /// ExternalArtifacts assembled so far, by id.
    artifacts: Mutex<BTreeMap<ResourceId, Result<Arc<ArtifactRoot>, String>>>,
    /// Sources a FluxInstance generated, and where their files come from.
    synced: Mutex<BTreeMap<ResourceId, SourceResolution>>,
    /// The ConfigMaps and Secrets the repository's bootstrap templates define, read when first
    /// needed (see `bootstrap_templates`).
    bootstrap_templates: std::sync::OnceLock<Vec<super::bootstrap_templates::TemplateObject>>,
    /// What a scoped run needs, and the releases it has put aside.
    scope: Option<Scope>,
    /// Consumers whose source is defined nowhere ([`Runtime::settle_not_found`]).
    not_found: Mutex<BTreeSet<ResourceId>>,
    /// Kustomizations that applied their objects and run their health checks (`health`).
    health: Mutex<BTreeMap<ResourceId, health::HealthWait>>,
    /// Objects that failed only on what offline cannot have ([`Runtime::unavailable_for`]).
    offline_unknown: Mutex<BTreeSet<ResourceId>>,
    /// Kustomizations of a scoped run whose outcome nothing read, decided with health checks
    /// not made: woken to make them when something needs their outcome after all.
    health_not_made: Mutex<BTreeSet<ResourceId>>,
}

/// The claimant of objects seeded from the repository's files: its kind sorts after every real
/// producer's, so it always ranks last.
fn written_in_repository() -> ResourceId {
    ResourceId {
        kind: "~written".into(),
        ..ResourceId::default()
    }
}

fn is_reconcilable(id: &ResourceId) -> bool {
    FluxKind::from_group_kind(&id.group, &id.kind).is_some()
}

fn is_data(id: &ResourceId) -> bool {
    id.group.is_empty() && matches!(id.kind.as_str(), "ConfigMap" | "Secret")
}

/// Runs every Flux object reachable from the repository's entry to a terminal status.
pub fn run(
    repository: &Repository,
    builder: &dyn KustomizationBuilder,
    helm: &dyn HelmRenderer,
    options: &RunOptions,
) -> RunReport {
    let producers = depend::Producers::new(
        repository
            .parents
            .iter()
            .map(|((_, id), parent)| (id, parent)),
    );
    let scope = if options.scope.is_empty() {
        None
    } else {
        Scope::new(&options.scope, options.scope_kind, repository, &producers)
    };
    let runtime = Runtime {
        repository,
        builder,
        helm,
        options,
        git_remote: source::git_remote(&repository.root),
        store: Store::new(),
        claims: Mutex::new(BTreeMap::new()),
        rendered: Mutex::new(BTreeMap::new()),
        refused: Mutex::new(BTreeMap::new()),
        diagnostics: Mutex::new(BTreeSet::new()),
        unread_values: Mutex::new(BTreeMap::new()),
        failure_sites: Mutex::new(BTreeMap::new()),
        producers,
        notes: Mutex::new(BTreeMap::new()),
        last_cycle: Mutex::new(None),
        artifacts: Mutex::new(BTreeMap::new()),
        synced: Mutex::new(BTreeMap::new()),
        bootstrap_templates: std::sync::OnceLock::new(),
        scope,
        not_found: Mutex::new(BTreeSet::new()),
        health: Mutex::new(BTreeMap::new()),
        offline_unknown: Mutex::new(BTreeSet::new()),
        health_not_made: Mutex::new(BTreeSet::new()),
    };
    let mut scheduler_options = schedule::Options {
        // Templates run on the workers themselves, not on a thread started per chart.
        worker_stack_size: Some(offlux_template::BIG_STACK_SIZE),
        on_worker_start: Some(offlux_template::declare_big_stack),
        ..schedule::Options::default()
    };
    if let Some(concurrency) = options.concurrency {
        scheduler_options.concurrency = concurrency.max(1);
    }
    let scheduler = Scheduler::new(scheduler_options);
    let handle = scheduler.handle();
    options.cancel.attach(handle.clone());
    if let Some(scope) = &runtime.scope {
        scope.attach(handle.clone());
    }
    let forward = handle.clone();
    let progress = options.progress.clone();
    let counts = Arc::new(Mutex::new((0usize, 0usize)));
    let subscription = runtime.store.subscribe(move |event| {
        let reconcilable = match event {
            Event::Added(id) | Event::Changed(id) | Event::Terminal(id) | Event::Removed(id) => {
                is_reconcilable(id)
            }
        };
        match event {
            Event::Added(id) | Event::Changed(id) => {
                forward.on_arrival(id.clone(), is_reconcilable(id))
            }
            Event::Terminal(id) => forward.on_status(id, true),
            Event::Removed(_) => {}
        }
        if let (Some(progress), true) = (&progress, reconcilable) {
            {
                let mut counts = counts.locked();
                match event {
                    Event::Added(_) => counts.1 += 1,
                    Event::Terminal(_) => counts.0 += 1,
                    _ => {}
                }
                progress(counts.0.min(counts.1), counts.1);
            }
        }
    });
    // Seeds: what no Kustomization in the repository applies. The rest arrives through builds.
    let mut seeds = Vec::new();
    let entry_points = entry_points(repository);
    let seeded = repository
        .flux_objects
        .iter()
        .map(|f| &f.object)
        .chain(&repository.data_objects)
        .chain(&repository.invalid_flux)
        .filter(|o| entry_points.contains(&(o.file.as_path(), &o.id)));
    for object in seeded {
        if runtime.store.contains(&object.id) {
            runtime.note_duplicate(object);
            continue;
        }
        // A seed is claimed by "the repository as written", which ranks below every Kustomization:
        // once a build publishes the same object, its version wins, and withdrawing that build's
        // claim brings the written one back rather than deleting it.
        {
            let mut claims = runtime.claims.locked();
            claims
                .entry(object.id.clone())
                .or_default()
                .insert(written_in_repository(), object.clone());
        }
        runtime.store.insert(object.id.clone(), object.clone());
        if is_reconcilable(&object.id) {
            seeds.push(object.id.clone());
        }
    }
    for object in &options.extra_objects {
        if is_data(&object.id) && !runtime.store.contains(&object.id) {
            runtime.store.insert(object.id.clone(), object.clone());
        }
    }
    handle.seed(seeds);
    let report = scheduler.run(&runtime);
    runtime.store.unsubscribe(subscription);
    runtime.settle_not_found();

    // Objects withdrawn by a re-render are gone, and so are their statuses.
    let origins = origins(repository, &runtime.store);
    let statuses = runtime
        .store
        .statuses_where(|id| is_reconcilable(id) && origins.contains_key(id));
    let mut unread_values = runtime.unread_values.into_recovered();
    let mut failure_sites = runtime.failure_sites.into_recovered();
    // A release that failed in one run of its body and rendered in a later one has no site.
    failure_sites.retain(|id, _| {
        runtime
            .store
            .status(id)
            .is_some_and(|record| matches!(record.status, Status::Failed(_)))
    });
    unread_values.retain(|id, _| runtime.store.contains(id));
    let mut notes = runtime.notes.into_recovered();
    if let Some(implied) = &repository.implied_bootstrap {
        notes.entry(implied.clone()).or_default().insert(
            0,
            crate::discovery::implied_bootstrap_note(&repository.entry),
        );
    }
    notes.retain(|id, _| origins.contains_key(id));
    let rendered = runtime.rendered.into_recovered();
    let mut refused = runtime.refused.into_recovered();
    refused.retain(|id, _| runtime.store.contains(id) && !rendered.contains_key(id));
    let clusters =
        super::cluster::target_clusters(statuses.iter().map(|(id, _)| id), &rendered, &|id| {
            runtime.store.get(id)
        });
    let claims = runtime.claims.into_recovered();
    let across = super::cluster::claimed_in_several_clusters(&claims, &rendered, &|id| {
        runtime.store.get(id)
    });
    let mut diagnostics: Vec<Diagnostic> =
        runtime.diagnostics.into_recovered().into_iter().collect();
    diagnostics.extend(across);
    let revisions = (options.fetched.iter())
        .filter(|(id, _)| origins.contains_key(*id))
        .filter_map(|(id, fetched)| match fetched {
            source::SourceFetch::Fetched { revision, .. } => Some((id.clone(), revision.clone())),
            _ => None,
        })
        .collect();
    RunReport {
        statuses,
        left_out: Vec::new(),
        rendered,
        refused,
        clusters,
        revisions,
        origins,
        diagnostics,
        cancelled: report.cancelled,
        unread_values,
        failure_sites,
        notes,
        tables: RunTables {
            _store: runtime.store,
            _claims: claims,
            _held: Vec::new(),
        },
    }
}

/// Where each reconcilable object in `store` is defined: its file in the repository when discovery
/// saw it there, otherwise the directory of the Kustomization that rendered it.
fn origins(
    repository: &Repository,
    store: &Store<ResourceId, Object>,
) -> BTreeMap<ResourceId, Location> {
    let mut origins = BTreeMap::new();
    for (id, object) in store.objects_where(is_reconcilable) {
        // Discovery sorts its objects by id (then file), so the first with this id is found by
        // bisection.
        let first = repository
            .flux_objects
            .partition_point(|f| f.object.id < id);
        // Of several definitions, the one the build read.
        let mut definitions =
            (repository.flux_objects[first..].iter()).take_while(|f| f.object.id == id);
        let written = definitions
            .clone()
            .find(|f| f.object.file == object.file)
            .or_else(|| definitions.next());
        origins.insert(
            id,
            written.map_or_else(|| object.location(), |f| f.object.location()),
        );
    }
    origins
}

/// The objects a run starts from: those nothing in the repository applies, and, where
/// Kustomizations apply each other in a ring (flux-system applies `cluster`, whose path holds
/// flux-system's own file), the ring's bootstrap Kustomization or else its smallest member. Each
/// is named by its file and id.
fn entry_points(repository: &Repository) -> foldhash::HashSet<(&Path, &ResourceId)> {
    let objects: Vec<&Object> = repository
        .flux_objects
        .iter()
        .map(|f| &f.object)
        .chain(&repository.data_objects)
        .chain(&repository.invalid_flux)
        .collect();
    // A parent is a Flux object; where an id is defined more than once, its last definition (by
    // file) stands for it. Discovery sorts Flux objects by id, then file.
    let flux_position = |id: &ResourceId| {
        let after = repository
            .flux_objects
            .partition_point(|f| f.object.id <= *id);
        after
            .checked_sub(1)
            .filter(|&i| repository.flux_objects[i].object.id == *id)
    };
    let parent_ids: foldhash::HashMap<(&Path, &ResourceId), &ResourceId> = repository
        .parents
        .iter()
        .map(|((file, id), parent)| ((file.as_path(), id), parent))
        .collect();
    let parent: Vec<Option<usize>> = objects
        .iter()
        .map(|o| {
            parent_ids
                .get(&(o.file.as_path(), &o.id))
                .and_then(|id| flux_position(id))
        })
        .collect();
    let key = |i: usize| (objects[i].file.as_path(), &objects[i].id);
    let mut entries = foldhash::HashSet::default();
    let mut seen: Vec<usize> = Vec::new();
    // What the entry's kustomization file does not list is not applied, but for the bootstrap
    // Kustomization and source, which `flux bootstrap` applies itself.
    let bootstrap = |id: &ResourceId| {
        id.name == crate::discovery::BOOTSTRAP_NAME
            && id.namespace == crate::discovery::BOOTSTRAP_NAMESPACE
            && matches!(id.kind.as_str(), "Kustomization" | "GitRepository")
    };
    for object in 0..objects.len() {
        if repository.unlisted_at_entry.contains(&objects[object].file)
            && !bootstrap(&objects[object].id)
        {
            continue;
        }
        // Walk up the parents: a walk that ends at once marks an entry point; a walk that comes
        // back to an object it has passed has found a ring.
        seen.clear();
        seen.push(object);
        let mut current = object;
        loop {
            let Some(up) = parent[current] else {
                if current == object {
                    entries.insert(key(object));
                }
                break;
            };
            if let Some(start) = seen.iter().position(|&o| o == up) {
                let ring = &seen[start..];
                let bootstrap = ring.iter().copied().find(|&o| {
                    let id = &objects[o].id;
                    id.kind == "Kustomization"
                        && id.name == crate::discovery::BOOTSTRAP_NAME
                        && id.namespace == crate::discovery::BOOTSTRAP_NAMESPACE
                });
                let chosen = bootstrap.or_else(|| {
                    ring.iter().copied().min_by(|&a, &b| {
                        (&objects[a].id, &objects[a].file).cmp(&(&objects[b].id, &objects[b].file))
                    })
                });
                if let Some(chosen) = chosen {
                    entries.insert(key(chosen));
                }
                break;
            }
            seen.push(up);
            current = up;
        }
    }
    entries
}

impl Dispatcher<ResourceId> for Runtime<'_> {
    fn dispatch(&self, id: &ResourceId, drain: DrainLevel) -> Outcome<ResourceId> {
        let Some(scope) = &self.scope else {
            return self.reconcile(id, drain);
        };
        let absent_unexplained =
            |id: &ResourceId| !self.store.contains(id) && self.producers.of(id).is_empty();
        let pending = |id: &ResourceId| {
            is_reconcilable(id)
                && self.store.contains(id)
                && (self
                    .store
                    .status(id)
                    .is_none_or(|record| !record.status.is_terminal())
                    || self.health_not_made.locked().contains(id))
        };
        let read_from = |id: &ResourceId| self.store.get(id).map(|object| object.file.clone());
        scope.dispatch(
            id,
            drain,
            &self.producers,
            &absent_unexplained,
            &pending,
            &read_from,
            &|id| self.in_health_checks(id),
            &|drain| self.reconcile(id, drain),
        )
    }

    fn settle(&self, id: &ResourceId, outcome: &Final<ResourceId>) {
        self.settle_outcome(id, outcome);
    }

    fn producers(&self, id: &ResourceId) -> Vec<ResourceId> {
        self.producers.of(id)
    }
}

impl Runtime<'_> {
    /// The body of `id`'s kind.
    fn reconcile(&self, id: &ResourceId, drain: DrainLevel) -> Outcome<ResourceId> {
        let Some(object) = self.store.get(id) else {
            return Outcome::Terminal;
        };
        let flux = match FluxObject::from_object(&object) {
            Ok(Some(flux)) => flux,
            Ok(None) => return Outcome::Terminal,
            Err(error) => {
                self.store
                    .set(id.clone(), Status::failed(error.to_string()));
                return Outcome::Terminal;
            }
        };
        body_of(flux.kind).reconcile(self, &flux, drain)
    }

    fn settle_outcome(&self, id: &ResourceId, outcome: &Final<ResourceId>) {
        // A Kustomization in its health checks applied its objects: a failed check leaves them.
        let applied = self.in_health_checks(id);
        if let Final::Cycle { path } = outcome {
            let message = self.cycle_message(path);
            if !applied {
                self.withdraw_output(id);
            }
            self.store.set(id.clone(), Status::failed(message));
            return;
        }
        if let Some(message) = outcome.message() {
            if !applied {
                self.withdraw_output(id);
            }
            let blocked_by = match outcome {
                Final::NotReady { waiting_on } => waiting_on.clone(),
                _ => Vec::new(),
            };
            self.store.set_status(
                id.clone(),
                StatusRecord::new(Status::failed(message), blocked_by),
            );
        }
    }

    /// The failure of a cycle's members, made once per cycle, with one error diagnostic at the
    /// first of its ids written in the repository.
    fn cycle_message(&self, path: &Arc<[ResourceId]>) -> String {
        let mut last = self.last_cycle.locked();
        if let Some((last_path, message)) = last.as_ref() {
            if Arc::ptr_eq(last_path, path) {
                return message.clone();
            }
        }
        let message = depend::cycle_message(path);
        let mut diagnostic = Diagnostic::error(message.clone());
        if let Some(first) = path.iter().find_map(|id| self.written_by_id(id)) {
            diagnostic = diagnostic.at(first.location()).object(first.id.to_string());
        }
        {
            let mut diagnostics = self.diagnostics.locked();
            diagnostics.insert(diagnostic);
        }
        *last = Some((Arc::clone(path), message.clone()));
        message
    }

    /// [`Runtime::unavailable`] for `id`, which is recorded as failing (when it does) on what
    /// offline cannot have rather than on its own: a Kustomization's health checks leave such a
    /// failure undecided.
    fn unavailable_for(&self, id: &ResourceId, message: String) -> Status {
        let status = self.unavailable(message);
        if !status.is_ready() {
            self.offline_unknown.locked().insert(id.clone());
        }
        status
    }

    fn unavailable(&self, message: String) -> Status {
        if self.options.allow_missing_sources {
            Status::Ready(Ready::Skipped(message))
        } else {
            Status::failed(message)
        }
    }

    /// The status of `consumer`, whose source is defined nowhere: kustomize-controller
    /// (`KustomizationReconciler.Reconcile`: `getSource` fails with NotFound, Ready=False
    /// `ArtifactFailedReason`, "Source '…' not found") and helm-controller (`getSource` in
    /// `HelmReleaseReconciler.reconcileRelease`) never get past it. It fails even with
    /// `--allow-missing-sources`, which is for sources that exist and cannot be fetched; but only
    /// once the run is over can it be told that nothing skipped or failed could have defined it
    /// ([`Runtime::settle_not_found`]), so until then it is unavailable.
    fn source_not_found(&self, consumer: &ResourceId, message: String) -> Status {
        {
            let mut not_found = self.not_found.locked();
            not_found.insert(consumer.clone());
        }
        self.unavailable(message)
    }

    /// After the run, with `--allow-missing-sources`: the consumers of a source defined nowhere
    /// fail, unless some producer's output is unknown. A Kustomization, HelmRelease, ResourceSet
    /// or FluxInstance that was skipped, failed or never ran (other than those consumers) might
    /// have applied the source (a chart or a remote base can define a GitRepository), so then
    /// they stay skipped, as an unfetchable source's consumers are.
    fn settle_not_found(&self) {
        let not_found = std::mem::take(&mut *self.not_found.locked());
        if not_found.is_empty() || !self.options.allow_missing_sources {
            return;
        }
        let producer = |id: &ResourceId| {
            matches!(
                FluxKind::from_group_kind(&id.group, &id.kind),
                Some(
                    FluxKind::Kustomization
                        | FluxKind::HelmRelease
                        | FluxKind::ResourceSet
                        | FluxKind::FluxInstance
                )
            )
        };
        let unknown: Vec<ResourceId> = self
            .store
            .objects_where(producer)
            .into_iter()
            .map(|(id, _)| id)
            .filter(|id| {
                !not_found.contains(id)
                    && self.store.status(id).is_none_or(|record| {
                        !matches!(
                            record.status,
                            Status::Ready(Ready::Reconciled | Ready::Suspended)
                        )
                    })
            })
            .collect();
        if let Some(first) = unknown.first() {
            // The row says why it is not a failure: what might still have applied the source.
            let others = match unknown.len() - 1 {
                0 => String::new(),
                1 => " and 1 other".to_owned(),
                n => format!(" and {n} others"),
            };
            let why = format!(
                " (skipped rather than failed: {}{others}, not rendered offline, might apply it)",
                label_of(first)
            );
            for id in not_found {
                if let Some(Status::Ready(Ready::Skipped(message))) =
                    self.store.status(&id).map(|record| record.status)
                {
                    self.store
                        .set(id, Status::Ready(Ready::Skipped(format!("{message}{why}"))));
                }
            }
            return;
        }
        for id in not_found {
            if let Some(Status::Ready(Ready::Skipped(message))) =
                self.store.status(&id).map(|record| record.status)
            {
                self.store.set(id, Status::failed(message));
            }
        }
    }

    /// How a consumer's source resolves: from its definition in the Store when it has arrived;
    /// `None` (wait) while it may still be published; once nothing more can arrive, from what the
    /// repository says (a source defined nowhere is not found).
    fn resolve_source(&self, id: &ResourceId, drain: DrainLevel) -> Option<SourceResolution> {
        let remote = self.git_remote.as_deref();
        let stored = self
            .store
            .get(id)
            .and_then(|o| FluxObject::from_object(&o).ok().flatten());
        if let Some(flux) = stored {
            return Some(self.resolve_defined(id, &flux));
        }
        let bootstrap =
            source::resolve_with(id, None, remote) == SourceResolution::WorkingTree { note: None };
        if bootstrap || drain != DrainLevel::None {
            Some(source::resolve(id, self.repository, remote))
        } else {
            None
        }
    }

    /// How the source `id`, defined by `flux`, resolves: as the FluxInstance that generated it
    /// decided, else by what it says.
    fn resolve_defined(&self, id: &ResourceId, flux: &FluxObject) -> SourceResolution {
        // A FluxInstance's own sync source is the working tree where the instance says so,
        // whatever a fetch of its URL came to.
        if let Some(synced @ SourceResolution::WorkingTree { .. }) = self.synced_source(id) {
            return synced;
        }
        match self.options.fetched.get(id) {
            Some(source::SourceFetch::Failed(message) | source::SourceFetch::Skipped(message)) => {
                return SourceResolution::Unavailable(format!(
                    "{}/{}/{}: {message}",
                    id.kind, id.namespace, id.name
                ))
            }
            Some(source::SourceFetch::Fetched { .. }) | None => {}
        }
        self.synced_source(id)
            .unwrap_or_else(|| source::resolve_with(id, Some(flux), self.git_remote.as_deref()))
    }

    /// The ExternalArtifact `id` as a directory: assembled from the ArtifactGenerator that
    /// produces it (in the Store, or else written in the repository) once its sources resolve.
    /// `None` while the generator or a source may still arrive.
    fn external_artifact(
        &self,
        id: &ResourceId,
        drain: DrainLevel,
    ) -> Option<Result<Arc<ArtifactRoot>, String>> {
        // The guard goes before the body, which may take the lock again.
        let known = self.artifacts.locked().get(id).cloned();
        if let Some(known) = known {
            return Some(known);
        }
        let stored: Vec<FluxObject> = self
            .store
            .objects_where(|o| o.kind == FluxKind::ArtifactGenerator.as_str())
            .into_iter()
            .filter_map(|(_, o)| FluxObject::from_object(&o).ok().flatten())
            .collect();
        let found = external_artifact::generator_of(id, &stored)
            .or_else(|| external_artifact::generator_of(id, &self.repository.flux_objects));
        let Some((flux, generator, index)) = found else {
            if drain == DrainLevel::None {
                return None;
            }
            return Some(Err(format!(
                "source ExternalArtifact/{}/{} not found (no ArtifactGenerator produces it)",
                id.namespace, id.name
            )));
        };
        let mut dirs = BTreeMap::new();
        for (_, source) in &generator.sources {
            let source_id = external_artifact::source_id(flux, source);
            if let Some(mapped) = self.mapped_source(&source_id) {
                dirs.insert(source_id, mapped.map(|m| m.root.clone()));
                continue;
            }
            let dir = match self.resolve_source(&source_id, drain)? {
                SourceResolution::WorkingTree { .. } => Ok(self.repository.root.clone()),
                SourceResolution::Unavailable(message) | SourceResolution::NotFound(message) => {
                    Err(message)
                }
            };
            dirs.insert(source_id, dir);
        }
        let source_dir = |source: &ResourceId| {
            dirs.get(source)
                .cloned()
                .unwrap_or_else(|| Err("not resolved".into()))
        };
        // Where an assembled artifact is mounted in memory: a path under the standard temporary
        // directory (as a `diff` mounts a revision) that is never created.
        let mount_parent = crate::fsio::absolute(&tempfile::env::temp_dir());
        let assembled = external_artifact::assemble(
            flux,
            generator,
            index,
            &source_dir,
            &mount_parent,
            &self.repository.fs_facts,
            &self.options.budget,
        )
        .map(Arc::new);
        {
            let mut artifacts = self.artifacts.locked();
            artifacts.insert(id.clone(), assembled.clone());
        }
        Some(assembled)
    }

    /// The directory the user mapped source `id` to, with its files; `None` when it is not mapped.
    fn mapped_source(&self, id: &ResourceId) -> Option<Result<Arc<ArtifactRoot>, String>> {
        let mapping = source_map::mapped(&self.options.source_dirs, id)?;
        // A fetched copy gives way to the working tree where a FluxInstance syncs from it.
        if self.options.fetched.contains_key(id)
            && matches!(
                self.synced_source(id),
                Some(SourceResolution::WorkingTree { .. })
            )
        {
            return None;
        }
        // The guard goes before the body, which may take the lock again.
        let known = self.artifacts.locked().get(id).cloned();
        if let Some(known) = known {
            return Some(known);
        }
        let label = format!("{}/{}/{}", id.kind, id.namespace, id.name);
        let is_git = id.kind == FluxKind::GitRepository.as_str();
        let ignore = self.spec_ignore(id);
        let root = external_artifact::DirTree::new(&mapping.dir, self.repository.fs_facts.clone())
            .map(|tree| {
                if !is_git {
                    return Arc::new(external_artifact::whole_directory(&tree));
                }
                // A GitRepository's artifact is archived without what its `.sourceignore` files
                // (or, without any, Flux's default exclusions) and then its `spec.ignore` exclude
                // (source-controller `reconcileArtifact`, `SourceIgnoreFilter`): listed as the
                // working tree is, its YAML files.
                let mut files = crate::discovery::yaml_files_ignoring(
                    tree.root(),
                    &self.repository.fs_facts,
                    ignore.as_deref().unwrap_or(""),
                );
                files.sort();
                Arc::new(external_artifact::ArtifactRoot {
                    root: tree.root().to_path_buf(),
                    files,
                    origins: BTreeMap::new(),
                    _mount: None,
                })
            })
            .ok_or_else(|| {
                format!(
                    "{label} is mapped to `{}`, which is not a directory",
                    mapping.dir.display()
                )
            });
        {
            let mut artifacts = self.artifacts.locked();
            artifacts.insert(id.clone(), root.clone());
        }
        Some(root)
    }

    /// A GitRepository's `spec.ignore`, as the run has it (else as the repository writes it).
    fn spec_ignore(&self, source: &ResourceId) -> Option<String> {
        if source.kind != FluxKind::GitRepository.as_str() {
            return None;
        }
        let object = self.store.get(source).or_else(|| {
            self.repository
                .flux_objects
                .iter()
                .find(|f| f.object.id == *source)
                .map(|f| Arc::new(f.object.clone()))
        })?;
        object
            .node
            .get_path(&["spec", "ignore"])
            .and_then(Node::as_str)
            .map(str::to_owned)
    }

    fn note_duplicate(&self, object: &Object) {
        {
            let mut diagnostics = self.diagnostics.locked();
            diagnostics.insert(
                Diagnostic::warning("defined more than once; the first definition is used")
                    .at(object.location())
                    .object(object.id.to_string()),
            );
        }
    }

    /// A suspended object is Ready (suspended) and renders nothing; otherwise the dependency gate.
    /// `None` when the body goes on.
    fn suspend_or_gate(
        &self,
        flux: &FluxObject,
        suspend: bool,
        drain: DrainLevel,
    ) -> Option<Outcome<ResourceId>> {
        if suspend {
            self.withdraw_output(&flux.object.id);
            self.store
                .set(flux.object.id.clone(), Status::Ready(Ready::Suspended));
            return Some(Outcome::Terminal);
        }
        self.gate(flux, drain)
    }

    /// `None` when the dependencies allow the body to go on. A dependency `flux` applies itself
    /// (a root Kustomization that `dependsOn` one whose file lies under its own path) is in the
    /// cluster from the bootstrap or the previous apply: it is no gate, and no cycle; its own row
    /// gives its verdict.
    fn gate(&self, flux: &FluxObject, drain: DrainLevel) -> Option<Outcome<ResourceId>> {
        let id = &flux.object.id;
        let (own, others): (Vec<depend::Dependency>, Vec<depend::Dependency>) =
            depend::dependencies(flux)
                .into_iter()
                .partition(|d| self.applies(id, &d.id));
        let outcome = self.gate_on(flux, others, drain);
        if outcome.is_none() {
            for dependency in own {
                self.note_row(
                    id,
                    format!(
                        "dependency {} is applied by this Kustomization (or one it applies); it is assumed ready as the previous apply left it",
                        depend::label(&dependency.id)
                    ),
                );
            }
        }
        outcome
    }

    /// [`Runtime::gate`] on a chosen list of dependencies.
    fn gate_on(
        &self,
        flux: &FluxObject,
        dependencies: Vec<depend::Dependency>,
        drain: DrainLevel,
    ) -> Option<Outcome<ResourceId>> {
        let absent_is_final = drain != DrainLevel::None;
        let known: Vec<KnownDependency> = dependencies
            .iter()
            .map(|d| self.known_dependency(&d.id, absent_is_final))
            .collect();
        let lookup = |id: &ResourceId| {
            let Some(known) = known.iter().find(|k| &k.id == id) else {
                return DependencyState::Absent;
            };
            let status = known.status.as_ref();
            match (&known.object, status.map(|s| &s.status)) {
                (None, _) => DependencyState::Absent,
                (Some(object), Some(Status::Ready(ready))) => DependencyState::Ready {
                    object,
                    offline: match ready {
                        Ready::Skipped(reason) => Some(reason.clone()),
                        _ => None,
                    },
                    suspended: matches!(ready, Ready::Suspended),
                },
                (Some(_), Some(Status::Failed(message))) => DependencyState::Failed {
                    message: message.clone(),
                    blocked_by: status
                        .map(|s| self.root_causes(&s.blocked_by))
                        .unwrap_or_default(),
                },
                (Some(_), _) => DependencyState::Pending,
            }
        };
        let options = GateOptions {
            absent_is_final,
            pending_is_final: drain == DrainLevel::Force,
        };
        let gate = depend::gate(&flux.object, &dependencies, lookup, options);
        {
            let mut notes = self.notes.locked();
            match &gate {
                Gate::Open { notes: new } if !new.is_empty() => {
                    notes.insert(flux.object.id.clone(), new.clone());
                }
                _ => {
                    notes.remove(&flux.object.id);
                }
            }
        }
        match gate {
            Gate::Open { .. } => None,
            Gate::Wait(ids) => Some(Outcome::Blocked(ids)),
            Gate::Closed {
                message,
                blocked_by,
            } => {
                self.withdraw_output(&flux.object.id);
                self.store.set_status(
                    flux.object.id.clone(),
                    StatusRecord::new(Status::failed(message), blocked_by),
                );
                // A dependency's failure may be overtaken by a later run of it.
                Some(Outcome::Decided(
                    dependencies.iter().map(|d| d.id.clone()).collect(),
                ))
            }
        }
    }

    /// A dependency as the Store holds it. One the Store does not hold may be a rendered object of
    /// a kind the Store does not keep (a CustomResourceDefinition), seen as Ready; or, once nothing
    /// more can arrive (`absent_is_final`), an object whose producers could not publish it: one
    /// skipped offline makes it Ready as written, with the reason; one that failed passes its
    /// failure on.
    fn known_dependency(&self, id: &ResourceId, absent_is_final: bool) -> KnownDependency {
        let stored = KnownDependency {
            id: id.clone(),
            object: self.store.get(id),
            status: self.store.status(id),
        };
        if stored.object.is_some() {
            return stored;
        }
        if !is_data(id) && !is_reconcilable(id) {
            let rendered = (self.rendered.locked().values().flatten())
                .find(|o| &o.id == id)
                .map(|o| Arc::new(o.clone()));
            if let Some(object) = rendered {
                return KnownDependency {
                    id: id.clone(),
                    object: Some(object),
                    status: Some(StatusRecord::new(Status::ready(), Vec::new())),
                };
            }
        }
        if !absent_is_final {
            return stored;
        }
        for producer in self.producers.of(id) {
            let Some(record) = self.store.status(&producer) else {
                continue;
            };
            let written = self.written_by_id(id);
            match (&record.status, written) {
                (Status::Ready(Ready::Skipped(reason)), Some(object)) => {
                    return KnownDependency {
                        id: id.clone(),
                        object: Some(Arc::new(object.clone())),
                        status: Some(StatusRecord::new(
                            Status::Ready(Ready::Skipped(format!(
                                "{} was skipped: {reason}",
                                depend::label(&producer)
                            ))),
                            Vec::new(),
                        )),
                    };
                }
                (Status::Failed(message), Some(object)) => {
                    let mut blocked_by = vec![producer.clone()];
                    blocked_by.extend(self.root_causes(&record.blocked_by));
                    return KnownDependency {
                        id: id.clone(),
                        object: Some(Arc::new(object.clone())),
                        status: Some(StatusRecord::new(Status::failed(message), blocked_by)),
                    };
                }
                _ => {}
            }
        }
        stored
    }

    /// The root causes among `blocked_by`: ids nothing further blocks (failed or skipped on their
    /// own, or never found). A failure passed up a chain keeps its nearest dependency and these,
    /// not the whole chain, so a long chain costs each member a few ids.
    fn root_causes(&self, blocked_by: &[ResourceId]) -> Vec<ResourceId> {
        blocked_by
            .iter()
            .filter(|id| {
                self.store
                    .status(id)
                    .is_none_or(|record| record.blocked_by.is_empty())
            })
            .cloned()
            .collect()
    }

    /// The object of `id` as written in the repository's files, or the one with its group, kind
    /// and name written without a namespace.
    fn written_by_id(&self, id: &ResourceId) -> Option<&Object> {
        let objects = &self.repository.flux_objects;
        let find = |wanted: &ResourceId| {
            let first = objects.partition_point(|f| f.object.id < *wanted);
            objects
                .get(first)
                .filter(|f| f.object.id == *wanted)
                .map(|f| &f.object)
        };
        find(id).or_else(|| {
            find(&ResourceId {
                namespace: Default::default(),
                ..id.clone()
            })
        })
    }

    /// Ends a producer whose outcome depends on what only the cluster holds: SKIPPED with
    /// `--allow-missing-sources` (else failed), with no dependency to blame.
    fn depends_on_cluster(&self, id: &ResourceId, message: String) -> Outcome<ResourceId> {
        self.withdraw_output(id);
        self.store.set_status(
            id.clone(),
            StatusRecord::new(self.unavailable_for(id, message), Vec::new()),
        );
        Outcome::Terminal
    }

    fn fail(&self, id: &ResourceId, message: impl Into<String>) -> Outcome<ResourceId> {
        self.withdraw_output(id);
        self.store.set(id.clone(), Status::failed(message));
        Outcome::Terminal
    }

    /// Applies what a producer built as fluxcd/pkg's `ssa` `ApplyAll` does: a dry-run of every
    /// object first, and a refusal fails the producer with nothing applied (see `dry_run`).
    /// The refused build is kept for validation.
    fn apply_server_side(&self, started: &Object, children: Vec<Object>) -> Outcome<ResourceId> {
        match self.apply_objects(started, children) {
            Err(refused) => refused,
            Ok(published) => {
                if published {
                    self.store.set(started.id.clone(), Status::ready());
                }
                Outcome::Terminal
            }
        }
    }

    /// [`Runtime::apply_server_side`] without the producer's status: whether the objects were
    /// published, or the producer's failure when the dry-run refused them.
    fn apply_objects(
        &self,
        started: &Object,
        children: Vec<Object>,
    ) -> Result<bool, Outcome<ResourceId>> {
        let id = &started.id;
        if let Some(message) = super::dry_run::refusal(&children) {
            let outcome = self.fail(id, message);
            {
                let mut refused = self.refused.locked();
                refused.insert(id.clone(), children);
            }
            return Err(outcome);
        }
        {
            let mut refused = self.refused.locked();
            refused.remove(id);
        }
        Ok(self.publish(id, started, &children))
    }

    /// `object` as written in the repository's files, with the positions of its nodes: the one of
    /// that id, or, for an object a Kustomization build put a namespace on, the one of that kind
    /// and name without a namespace under the directory it was built from.
    fn written(&self, object: &Object) -> Option<&Object> {
        let id = &object.id;
        let candidates = self.repository.flux_objects.iter().map(|f| &f.object);
        if let Some(exact) = candidates.clone().find(|o| &o.id == id) {
            return Some(exact);
        }
        let mut loose = candidates.filter(|o| {
            o.id.namespace.is_empty()
                && o.id.group == id.group
                && o.id.kind == id.kind
                && o.id.name == id.name
                && o.file.starts_with(&object.file)
        });
        let first = loose.next()?;
        // Two candidates: which one was built cannot be told.
        loose.next().is_none().then_some(first)
    }

    /// Whether `reader` applies `id`, itself or through what it applies: `reader` is among the
    /// static producers of `id`, or of one of them, up the chain.
    fn applies(&self, reader: &ResourceId, id: &ResourceId) -> bool {
        let mut seen: BTreeSet<ResourceId> = BTreeSet::new();
        let mut queue = self.producers.of(id);
        while let Some(producer) = queue.pop() {
            if &producer == reader {
                return true;
            }
            if seen.insert(producer.clone()) {
                queue.extend(self.producers.of(&producer));
            }
        }
        false
    }

    /// Adds `note` to the row of `id`, once.
    fn note_row(&self, id: &ResourceId, note: String) {
        {
            let mut notes = self.notes.locked();
            let notes = notes.entry(id.clone()).or_default();
            if !notes.contains(&note) {
                notes.push(note);
            }
        }
    }

    /// The ConfigMaps and Secrets of `references` (in `namespace`) the Store holds now.
    fn data_objects(
        &self,
        flux: &FluxObject,
        references: &[DataRef],
        drain: DrainLevel,
    ) -> Vec<Arc<Object>> {
        let namespace = flux.namespace();
        references
            .iter()
            .filter_map(|r| {
                let id = ResourceId::new("v1", &r.kind, namespace, &r.name);
                match self.store.get(&id) {
                    Some(object) => Some(object),
                    // Only once nothing more can arrive: a Kustomization may still publish it.
                    None if drain != DrainLevel::None => self.held_outside_the_run(flux, &id),
                    None => None,
                }
            })
            .collect()
    }

    /// A ConfigMap or Secret that no Kustomization produced: one of `--substitute-from` without a
    /// namespace (it matches any), or else the only object of that kind, namespace and name in a
    /// repository file, which the bootstrap (or whoever set up the cluster) applies. The latter is
    /// said in a note naming the file.
    fn held_outside_the_run(&self, flux: &FluxObject, id: &ResourceId) -> Option<Arc<Object>> {
        let same = |o: &&Object| o.id.kind == id.kind && o.id.name == id.name;
        if let Some(supplied) = self
            .options
            .extra_objects
            .iter()
            .filter(same)
            .find(|o| o.id.namespace.is_empty())
        {
            let mut object = supplied.clone();
            object.id.namespace = id.namespace.clone();
            return Some(Arc::new(object));
        }
        let like_id = |o: &&Object| same(o) && o.id.namespace == id.namespace;
        // What the run's own files define first; else what files no cluster applies define.
        let mut written: Vec<&Object> = self
            .repository
            .data_objects
            .iter()
            .filter(like_id)
            .collect();
        if written.is_empty() {
            written = self.repository.held_data.iter().filter(like_id).collect();
        }
        let [object] = written.as_slice() else {
            return None;
        };
        {
            let mut diagnostics = self.diagnostics.locked();
            diagnostics.insert(
                Diagnostic::note(format!(
                    "{}/{}/{} is produced by no Kustomization; using its definition in `{}`, which the bootstrap or the cluster applies",
                    id.kind,
                    id.namespace,
                    id.name,
                    object.file.display()
                ))
                .at(flux.object.location())
                .object(flux.object.id.to_string()),
            );
        }
        Some(Arc::new((*object).clone()))
    }

    /// What `flux` went on with that only the cluster holds: a note on its row in the roster and
    /// a diagnostic at its file and line.
    fn assumed(&self, flux: &FluxObject, notes: Vec<String>) {
        if notes.is_empty() {
            return;
        }
        {
            let mut rows = self.notes.locked();
            let row = rows.entry(flux.object.id.clone()).or_default();
            for note in &notes {
                if !row.contains(note) {
                    row.push(note.clone());
                }
            }
        }
        {
            let mut diagnostics = self.diagnostics.locked();
            for note in notes {
                diagnostics.insert(
                    Diagnostic::note(note)
                        .at(flux.object.location())
                        .object(flux.object.id.to_string()),
                );
            }
        }
    }

    /// What makes the ConfigMap or Secret `wanted` in the cluster, if anything the repository
    /// shows does: a rendered object of a known operator (see `cluster_held`), or a bootstrap
    /// template (see `bootstrap_templates`).
    fn cluster_producer(&self, wanted: &ResourceId) -> Option<String> {
        let made = {
            let rendered = self.rendered.locked();
            let objects: Vec<&Object> = rendered.values().flatten().collect();
            cluster_held::cluster_producer(wanted, &objects, &self.options.secret_producer_kinds)
        };
        made.or_else(|| {
            let templates = self.bootstrap_templates.get_or_init(|| {
                super::bootstrap_templates::scan(&self.repository.root, &self.repository.fs_facts)
            });
            super::bootstrap_templates::defining(templates, wanted).map(|file| {
                format!(
                    "the bootstrap template `{}` (applied before Flux, its values filled in then)",
                    file.display()
                )
            })
        })
    }

    /// Flux's post-processing of one built object: identity check, substitution, owner labels,
    /// commonMetadata.
    fn post_process(
        &self,
        flux: &FluxObject,
        spec: &Kustomization,
        built: BuiltObject,
        variables: Option<&postbuild::Collected>,
        path: &str,
    ) -> Result<Object, String> {
        let root = &self.repository.root;
        let origin = built
            .file
            .as_deref()
            .and_then(|file| crate::fs_facts::strip_root(file, root))
            .map(Path::to_path_buf);
        // The document's line in its file, read before substitution rebuilds the node.
        let pos = match &origin {
            Some(_) => crate::yaml::Pos {
                line: built.node.pos().line,
                ..Default::default()
            },
            None => Default::default(),
        };
        let file = origin.unwrap_or_else(|| PathBuf::from(path.trim_start_matches("./")));
        let node = built.node;
        let mut node = match variables {
            Some(variables) => {
                let options = crate::substitute::Options {
                    strict: self.options.strict_substitutions,
                    redacted: if self.options.redact_secret_values {
                        variables.from_secrets.clone()
                    } else {
                        Default::default()
                    },
                    run: Some(self.options.budget.clone()),
                    ..Default::default()
                };
                let name = node
                    .get_path(&["metadata", "name"])
                    .and_then(Node::as_str)
                    .unwrap_or("")
                    .to_owned();
                crate::substitute::substitute_document(node, &variables.values, &options)
                    .map_err(|e| format!("post build failed for '{name}': {e}"))?
            }
            None => node,
        };
        postbuild::mask_sops(&mut node);
        set_metadata(&mut node, "labels", OWNER_NAME, flux.name());
        set_metadata(&mut node, "labels", OWNER_NAMESPACE, flux.namespace());
        if let Some(common) = &spec.common_metadata {
            for (key, value) in &common.labels {
                set_metadata(&mut node, "labels", key, value);
            }
            for (key, value) in &common.annotations {
                set_metadata(&mut node, "annotations", key, value);
            }
        }
        match Object::from_node(node, file, pos) {
            Ok(Some(object)) if !object.id.name.is_empty() => Ok(object),
            _ => Err(
                "failed to decode Kubernetes apiVersion, kind and name from a built resource"
                    .into(),
            ),
        }
    }

    /// Withdraws everything `producer` published: a Kustomization that ends failed, blocked or
    /// suspended applies nothing, whatever an earlier run of it (on other inputs) rendered.
    fn withdraw_output(&self, producer: &ResourceId) {
        {
            let mut unread = self.unread_values.locked();
            unread.remove(producer);
        }
        let mut claims = self.claims.locked();
        let previous = self.rendered.locked().remove(producer);
        if let Some(previous) = &previous {
            let held = previous.len() as u64;
            (self.options.budget).release(crate::budget::Resource::RenderedObjects, held);
        }
        for child in previous.iter().flatten() {
            let unclaimed = claims
                .get_mut(&child.id)
                .is_some_and(|by| by.remove(producer).is_some());
            if unclaimed {
                self.settle_claim(&mut claims, &child.id);
            }
        }
    }

    /// Publishes what `producer` rendered from the object it started with. Every object may be
    /// claimed by several producers; the smallest producer's version is the one in the Store, so the
    /// outcome never depends on which build finished first. A re-render that no longer produces an
    /// object withdraws its claim, and an object nobody claims any more is withdrawn with everything
    /// it rendered. A run whose object changed or vanished meanwhile publishes nothing (it is re-run
    /// or was pruned). Returns whether the output was published.
    fn publish(&self, producer: &ResourceId, started: &Object, children: &[Object]) -> bool {
        if self.store.get(producer).as_deref() != Some(started) {
            return false;
        }
        // The run's budget of objects held: this producer's new output replaces its old.
        let budget = &self.options.budget;
        let objects = crate::budget::Resource::RenderedObjects;
        let held = self.rendered.locked().get(producer).map_or(0, Vec::len);
        budget.release(objects, held as u64);
        if let Err(exceeded) = budget.charge(objects, children.len() as u64) {
            budget.release(objects, children.len() as u64);
            budget.charge(objects, held as u64).ok();
            self.fail(producer, exceeded.to_string());
            return false;
        }
        let mut claims = self.claims.locked();
        if self.store.get(producer).as_deref() != Some(started) {
            return false;
        }
        let previous = self
            .rendered
            .locked()
            .insert(producer.clone(), children.to_vec());
        let mut touched: BTreeSet<ResourceId> = BTreeSet::new();
        for gone in previous.iter().flatten() {
            if !children.iter().any(|c| c.id == gone.id) {
                if let Some(by) = claims.get_mut(&gone.id) {
                    by.remove(producer);
                    touched.insert(gone.id.clone());
                }
            }
        }
        for child in children
            .iter()
            .filter(|c| is_data(&c.id) || is_reconcilable(&c.id))
        {
            claims
                .entry(child.id.clone())
                .or_default()
                .insert(producer.clone(), child.clone());
            touched.insert(child.id.clone());
        }
        // Data first, so the lookups of the Kustomizations and HelmReleases it wakes see it.
        let (data, rest): (Vec<ResourceId>, Vec<ResourceId>) =
            touched.into_iter().partition(is_data);
        for id in data.into_iter().chain(rest) {
            self.settle_claim(&mut claims, &id);
        }
        true
    }

    /// The producer whose version of `id` the run holds (the winning claim); `None` for an
    /// object written in the repository that nothing in the run applies (an entry point).
    fn applier_of(&self, id: &ResourceId) -> Option<ResourceId> {
        let claims = self.claims.locked();
        let producer = claims.get(id)?.keys().next()?;
        (*producer != written_in_repository()).then(|| producer.clone())
    }

    /// Puts the winning claim of `id` in the Store, or withdraws `id` when nobody claims it.
    fn settle_claim(
        &self,
        claims: &mut BTreeMap<ResourceId, BTreeMap<ResourceId, Object>>,
        id: &ResourceId,
    ) {
        let winner = claims.get(id).and_then(|by| by.values().next().cloned());
        match winner {
            Some(object) => {
                self.store.insert(id.clone(), object);
            }
            None => {
                claims.remove(id);
                self.store.remove(id);
                let orphans = self.rendered.locked().remove(id);
                for orphan in orphans.iter().flatten() {
                    let unclaimed = claims
                        .get_mut(&orphan.id)
                        .is_some_and(|by| by.remove(id).is_some());
                    if unclaimed {
                        self.settle_claim(claims, &orphan.id);
                    }
                }
            }
        }
    }
}

/// The id of a `sourceRef`/`chartRef`, its namespace defaulting to the referrer's.
fn reference_id(reference: &CrossRef, namespace: &str) -> ResourceId {
    let ns = if reference.namespace.is_empty() {
        namespace
    } else {
        &reference.namespace
    };
    let group = FluxKind::from_kind(&reference.kind).map_or("", |k| k.group());
    ResourceId::new(&format!("{group}/v1"), &reference.kind, ns, &reference.name)
}

fn label_of(id: &ResourceId) -> String {
    id.to_string()
}
