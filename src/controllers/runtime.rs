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

use super::cluster_held;
use super::depend::{self, DependencyState, Gate, GateOptions};
use super::external_artifact::{self, ArtifactRoot};
use super::generate;
use super::helmrelease::{self, ComposedValues, HelmRenderError, HelmRenderRequest};
pub use super::helmrelease::{
    ChartLocation, HelmRenderer, RenderedRelease, RepositoryChart, RepositoryKind, UnreadKey,
    UnreadValues,
};
use super::postbuild::{self, Variables};
use super::scope::{Scope, Target};
use super::source::{self, SourceResolution};
use super::source_map::{self, SourceMapping};
use crate::diagnostic::{Diagnostic, Location};
use crate::discovery::{apply_variable_defaults, secure_join, Repository};
use crate::model::{
    ChartSource, CrdPolicy, CrossRef, DataRef, FluxKind, FluxObject, HelmChartTemplate,
    HelmRelease, Kustomization, Object, ResourceId,
};
use crate::schedule::{self, Dispatcher, DrainLevel, Final, Outcome, Scheduler};
use crate::store::{Event, Ready, Status, StatusRecord, Store};
use crate::template::Value;
use crate::yaml::Node;
use helmrelease::set_metadata;

// The ResourceSet and ResourceSetInputProvider bodies, kept in their own file.
#[path = "resourceset.rs"]
mod resourceset;
pub use resourceset::SuppliedInputs;

// The FluxInstance body, kept in its own file.
#[path = "flux_instance_run.rs"]
mod flux_instance_run;

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
    /// Sources read from local directories instead (`--sources`).
    pub source_dirs: Vec<SourceMapping>,
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
        if let Ok(mut state) = self.0.lock() {
            state.cancelled = true;
            if let Some(handle) = &state.handle {
                handle.cancel();
            }
        }
    }

    fn attach(&self, handle: schedule::Handle<ResourceId>) {
        if let Ok(mut state) = self.0.lock() {
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
    /// Per object, notes for its row in the roster: a dependency it went on past was only assumed
    /// Ready offline.
    pub notes: BTreeMap<ResourceId, Vec<String>>,
    /// Per Flux object that applies to another cluster than offlux's own (`spec.kubeConfig`, its
    /// own or a producer's), that cluster (see `cluster`).
    pub clusters: BTreeMap<ResourceId, String>,
    /// The run's own tables as it ended, kept with the report: freeing them object by object is
    /// work a command that is about to exit leaves to the operating system.
    pub tables: RunTables,
}

/// Every object the run published and every claim on one: held, not read.
#[derive(Default)]
pub struct RunTables {
    _store: Store<ResourceId, Object>,
    _claims: BTreeMap<ResourceId, BTreeMap<ResourceId, Object>>,
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
        Scope::new(&options.scope, repository, &producers)
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
        producers,
        notes: Mutex::new(BTreeMap::new()),
        last_cycle: Mutex::new(None),
        artifacts: Mutex::new(BTreeMap::new()),
        synced: Mutex::new(BTreeMap::new()),
        bootstrap_templates: std::sync::OnceLock::new(),
        scope,
        not_found: Mutex::new(BTreeSet::new()),
    };
    let mut scheduler_options = schedule::Options::default();
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
            if let Ok(mut counts) = counts.lock() {
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
        if let Ok(mut claims) = runtime.claims.lock() {
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
    let mut unread_values = runtime.unread_values.into_inner().unwrap_or_default();
    unread_values.retain(|id, _| runtime.store.contains(id));
    let mut notes = runtime.notes.into_inner().unwrap_or_default();
    notes.retain(|id, _| origins.contains_key(id));
    let rendered = runtime.rendered.into_inner().unwrap_or_default();
    let mut refused = runtime.refused.into_inner().unwrap_or_default();
    refused.retain(|id, _| runtime.store.contains(id) && !rendered.contains_key(id));
    let clusters =
        super::cluster::target_clusters(statuses.iter().map(|(id, _)| id), &rendered, &|id| {
            runtime.store.get(id)
        });
    let claims = runtime.claims.into_inner().unwrap_or_default();
    let across = super::cluster::claimed_in_several_clusters(&claims, &rendered, &|id| {
        runtime.store.get(id)
    });
    let mut diagnostics: Vec<Diagnostic> = runtime
        .diagnostics
        .into_inner()
        .unwrap_or_default()
        .into_iter()
        .collect();
    diagnostics.extend(across);
    RunReport {
        statuses,
        rendered,
        refused,
        clusters,
        origins,
        diagnostics,
        cancelled: report.cancelled,
        unread_values,
        notes,
        tables: RunTables {
            _store: runtime.store,
            _claims: claims,
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
        let written = repository
            .flux_objects
            .get(first)
            .filter(|f| f.object.id == id);
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
    for object in 0..objects.len() {
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
                && self
                    .store
                    .status(id)
                    .is_none_or(|record| !record.status.is_terminal())
        };
        scope.dispatch(
            id,
            drain,
            &self.producers,
            &absent_unexplained,
            &pending,
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
        match flux.kind {
            FluxKind::Kustomization => self.reconcile_kustomization(&flux, drain),
            FluxKind::HelmRelease => self.reconcile_helm_release(&flux, drain),
            _ if source_map::mapped(&self.options.source_dirs, id).is_some() => {
                let status = match self.mapped_source(id) {
                    Some(Err(message)) => Status::failed(message),
                    _ => Status::ready(),
                };
                self.store.set(id.clone(), status);
                Outcome::Terminal
            }
            FluxKind::GitRepository | FluxKind::OCIRepository => {
                let status = match self.resolve_defined(id, &flux) {
                    SourceResolution::WorkingTree { .. } => Status::ready(),
                    // An OCIRepository whose artifact (a chart) the chart cache holds is at hand
                    // offline, as source-controller would have fetched it.
                    SourceResolution::Unavailable(_) if self.artifact_in_chart_cache(&flux) => {
                        Status::ready()
                    }
                    // A remote source is no failure by itself: what needs its files fails (or is
                    // skipped) with the reason; the source is reported as not fetched.
                    SourceResolution::Unavailable(message)
                    | SourceResolution::NotFound(message) => {
                        Status::Ready(Ready::Skipped(format!("not fetched: {message}")))
                    }
                };
                self.store.set(id.clone(), status);
                Outcome::Terminal
            }
            FluxKind::ArtifactGenerator => {
                self.store.set(id.clone(), Status::ready());
                Outcome::Terminal
            }
            FluxKind::ResourceSet => self.reconcile_resource_set(&flux, drain),
            FluxKind::ResourceSetInputProvider => self.reconcile_input_provider(&flux),
            FluxKind::FluxInstance => self.reconcile_flux_instance(&flux),
            // Chart sources are read by the HelmReleases that use them, through the renderer.
            FluxKind::HelmRepository | FluxKind::HelmChart => {
                self.store.set(id.clone(), Status::ready());
                Outcome::Terminal
            }
            _ => {
                let status = match self.resolve_defined(id, &flux) {
                    SourceResolution::WorkingTree { .. } => Status::ready(),
                    SourceResolution::Unavailable(message)
                    | SourceResolution::NotFound(message) => {
                        Status::Ready(Ready::Skipped(format!("not fetched: {message}")))
                    }
                };
                self.store.set(id.clone(), status);
                Outcome::Terminal
            }
        }
    }

    fn settle_outcome(&self, id: &ResourceId, outcome: &Final<ResourceId>) {
        if let Final::Cycle { path } = outcome {
            let message = self.cycle_message(path);
            self.withdraw_output(id);
            self.store.set(id.clone(), Status::failed(message));
            return;
        }
        if let Some(message) = outcome.message() {
            self.withdraw_output(id);
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
        let Ok(mut last) = self.last_cycle.lock() else {
            return depend::cycle_message(path);
        };
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
        if let Ok(mut diagnostics) = self.diagnostics.lock() {
            diagnostics.insert(diagnostic);
        }
        *last = Some((Arc::clone(path), message.clone()));
        message
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
        if let Ok(mut not_found) = self.not_found.lock() {
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
        let not_found = match self.not_found.lock() {
            Ok(mut not_found) => std::mem::take(&mut *not_found),
            Err(_) => return,
        };
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

    /// Whether `flux` is an OCIRepository whose artifact, a chart, the chart cache holds (at the
    /// tag or semver range of its `ref`); the row then says where its artifact came from.
    fn artifact_in_chart_cache(&self, flux: &FluxObject) -> bool {
        if flux.kind != FluxKind::OCIRepository {
            return false;
        }
        let Some(spec) = flux.as_source() else {
            return false;
        };
        let chart = oci_artifact_chart(spec, None);
        if !self.helm.holds(&chart) {
            return false;
        }
        self.note_row(
            &flux.object.id,
            format!(
                "not fetched offline: the chart cache holds its artifact (chart {} {})",
                chart.chart, chart.version
            ),
        );
        true
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
        if let Some(known) = self.artifacts.lock().ok().and_then(|a| a.get(id).cloned()) {
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
        if let Ok(mut artifacts) = self.artifacts.lock() {
            artifacts.insert(id.clone(), assembled.clone());
        }
        Some(assembled)
    }

    /// The directory the user mapped source `id` to, with its files; `None` when it is not mapped.
    fn mapped_source(&self, id: &ResourceId) -> Option<Result<Arc<ArtifactRoot>, String>> {
        let mapping = source_map::mapped(&self.options.source_dirs, id)?;
        if let Some(known) = self.artifacts.lock().ok().and_then(|a| a.get(id).cloned()) {
            return Some(known);
        }
        let label = format!("{}/{}/{}", id.kind, id.namespace, id.name);
        let ignore = self
            .spec_ignore(id)
            .map(|text| crate::discovery::SpecIgnore::parse(&text));
        let root = external_artifact::DirTree::new(&mapping.dir, self.repository.fs_facts.clone())
            .map(|tree| {
                let mut artifact = external_artifact::whole_directory(&tree);
                // source-controller archives without what the GitRepository's `spec.ignore`
                // excludes (`reconcileArtifact`, `SourceIgnoreFilter`).
                if let Some(ignore) = &ignore {
                    let root = artifact.root.clone();
                    artifact.files.retain(|file| {
                        !file
                            .strip_prefix(&root)
                            .is_ok_and(|relative| ignore.excludes(relative))
                    });
                }
                Arc::new(artifact)
            })
            .ok_or_else(|| {
                format!(
                    "{label} is mapped to `{}`, which is not a directory",
                    mapping.dir.display()
                )
            });
        if let Ok(mut artifacts) = self.artifacts.lock() {
            artifacts.insert(id.clone(), root.clone());
        }
        Some(root)
    }

    /// The working tree as the artifact of a GitRepository with `spec.ignore` holds it (its
    /// patterns judged after `.sourceignore`'s, as source-controller's `reconcileArtifact` does);
    /// `None` for a source without one, whose artifact is the working tree as discovery listed it.
    fn working_tree_ignoring(&self, source: &ResourceId) -> Option<Arc<ArtifactRoot>> {
        let ignore = self.spec_ignore(source)?;
        if let Some(Ok(known)) = self
            .artifacts
            .lock()
            .ok()
            .and_then(|a| a.get(source).cloned())
        {
            return Some(known);
        }
        let files = crate::discovery::yaml_files_ignoring(
            &self.repository.root,
            &self.repository.fs_facts,
            &ignore,
        );
        let root = Arc::new(ArtifactRoot {
            root: self.repository.root.clone(),
            files,
            origins: BTreeMap::new(),
            _mount: None,
        });
        if let Ok(mut artifacts) = self.artifacts.lock() {
            artifacts.insert(source.clone(), Ok(root.clone()));
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
        if let Ok(mut diagnostics) = self.diagnostics.lock() {
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
        if let Ok(mut notes) = self.notes.lock() {
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
            let rendered = self.rendered.lock().ok().and_then(|rendered| {
                rendered
                    .values()
                    .flatten()
                    .find(|o| &o.id == id)
                    .map(|o| Arc::new(o.clone()))
            });
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

    /// The post-build variables of a Kustomization from the ConfigMaps and Secrets `find` gives
    /// (`postbuild::collect`), a Secret an in-repository producer makes assumed with a note on the
    /// row; or the outcome when one is still awaited or missing.
    fn post_build_variables<'a>(
        &self,
        flux: &FluxObject,
        post_build: &crate::model::PostBuild,
        find: impl Fn(&ResourceId) -> Option<&'a Object>,
        absent_is_final: bool,
    ) -> Result<postbuild::Collected, Outcome<ResourceId>> {
        let declared = |wanted: &ResourceId| self.cluster_producer(wanted);
        let mut notes = Vec::new();
        match postbuild::collect(
            flux.namespace(),
            post_build,
            &self.options.user_values,
            postbuild::Lookups { find, declared },
            absent_is_final,
            &mut notes,
        ) {
            Variables::Ready(variables) => {
                self.assumed(flux, notes);
                Ok(variables)
            }
            Variables::Wait(ids) => Err(Outcome::Blocked(ids)),
            // fluxcd/pkg `kustomize.LoadVariables` gets each non-optional object from the
            // cluster and fails when it is not there. Nothing in the repository accounts for this
            // one; whether the cluster holds it (made by hand, or by something the repository
            // does not show) is unknowable offline: with `--allow-missing-sources` the row says
            // so instead of failing.
            Variables::NotFound(message) if self.options.allow_missing_sources => Err(self
                .depends_on_cluster(
                    &flux.object.id,
                    format!(
                        "{message}; nothing in the repository makes it, so whether the cluster \
                         holds it cannot be told offline"
                    ),
                )),
            Variables::NotFound(message) => Err(self.fail(&flux.object.id, message)),
        }
    }

    /// Ends a producer whose outcome depends on what only the cluster holds: SKIPPED with
    /// `--allow-missing-sources` (else failed), with no dependency to blame.
    fn depends_on_cluster(&self, id: &ResourceId, message: String) -> Outcome<ResourceId> {
        self.withdraw_output(id);
        self.store.set_status(
            id.clone(),
            StatusRecord::new(self.unavailable(message), Vec::new()),
        );
        Outcome::Terminal
    }

    /// `spec.path` as kustomize-controller reads it: as the object holds it (`reconcile`:
    /// `securejoin.SecureJoin(tmpDir, obj.Spec.Path)`, then "kustomization path not found").
    /// A `${VAR:=default}` there is resolved only by the post-build of the Kustomization that
    /// applied this one, which the object already reflects where it ran. When that one has no
    /// variables to substitute (no `postBuild`, an empty one, or no Kustomization), the text is
    /// read as it is. When its variables come from objects offlux could not read (what only the
    /// cluster holds), or nothing in the repository applies this one, offline cannot tell: the
    /// default is taken, with a note saying so.
    fn spec_path(&self, flux: &FluxObject, written: &str) -> String {
        if !written.contains('$') {
            return written.to_owned();
        }
        let key = (flux.object.file.clone(), flux.object.id.clone());
        let parent_substitutes = self.repository.parents.get(&key).and_then(|parent| {
            let parent = self
                .repository
                .flux_objects
                .iter()
                .find(|f| f.object.id == *parent)?;
            // fluxcd/pkg's `SubstituteVariables` substitutes only when it has variables.
            Some(parent.as_kustomization().is_some_and(|k| {
                k.post_build
                    .as_ref()
                    .is_some_and(|p| !p.substitute.is_empty() || !p.substitute_from.is_empty())
            }))
        });
        if parent_substitutes == Some(false) {
            return written.to_owned();
        }
        match apply_variable_defaults(written) {
            Ok(resolved) if resolved != written => {
                self.note_row(
                    &flux.object.id,
                    format!(
                        "`spec.path` `{written}` holds a variable no post-build substituted here \
                         (its values may come from the cluster); built `{resolved}`, its default"
                    ),
                );
                resolved
            }
            _ => written.to_owned(),
        }
    }

    fn fail(&self, id: &ResourceId, message: impl Into<String>) -> Outcome<ResourceId> {
        self.withdraw_output(id);
        self.store.set(id.clone(), Status::failed(message));
        Outcome::Terminal
    }

    fn reconcile_kustomization(&self, flux: &FluxObject, drain: DrainLevel) -> Outcome<ResourceId> {
        let id = &flux.object.id;
        let Some(spec) = flux.as_kustomization() else {
            return Outcome::Terminal;
        };
        if let Some(outcome) = self.suspend_or_gate(flux, spec.suspend, drain) {
            return outcome;
        }
        let namespace = flux.namespace();
        let source_id = {
            let r = &spec.source_ref;
            let ns = if r.namespace.is_empty() {
                namespace
            } else {
                &r.namespace
            };
            let group = FluxKind::from_kind(&r.kind).map_or("", |k| k.group());
            ResourceId::new(&format!("{group}/v1"), &r.kind, ns, &r.name)
        };
        let path = self.spec_path(flux, &spec.path);
        let mut artifact = None;
        if let Some(mapped) = self.mapped_source(&source_id) {
            match mapped {
                Ok(root) => artifact = Some(root),
                Err(message) => return self.fail(id, message),
            }
        } else if source_id.kind == FluxKind::ExternalArtifact.as_str() {
            match self.external_artifact(&source_id, drain) {
                None => return Outcome::Blocked(vec![source_id]),
                Some(Ok(root)) => artifact = Some(root),
                Some(Err(message)) => {
                    self.withdraw_output(id);
                    self.store.set_status(
                        id.clone(),
                        StatusRecord::new(self.unavailable(message), vec![source_id]),
                    );
                    return Outcome::Terminal;
                }
            }
        } else {
            // A source this Kustomization applies itself (the self-managing bootstrap: the root
            // Kustomization applies the GitRepository it reads) is in the cluster from the
            // bootstrap or the previous apply: kustomize-controller reads it there
            // (`KustomizationReconciler.reconcile` gets the source object before building), so
            // it is no gate; offline it is read as the repository defines it.
            let resolution = if self.applies(id, &source_id) {
                let resolution = match self.store.get(&source_id) {
                    Some(_) => self.resolve_source(&source_id, drain).unwrap_or_else(|| {
                        source::resolve(&source_id, self.repository, self.git_remote.as_deref())
                    }),
                    None => {
                        source::resolve(&source_id, self.repository, self.git_remote.as_deref())
                    }
                };
                // The standard bootstrap (the bootstrap source, read from this working tree,
                // applied by the Kustomization that reads it, as `flux bootstrap` lays it out)
                // is what every repository does: said on every row it would only be noise. The
                // note stays where it explains something: another source mapped here, or one
                // read from elsewhere.
                let standard = resolution == SourceResolution::WorkingTree { note: None };
                if !standard {
                    self.note_row(
                        id,
                        format!(
                            "{} is applied by this Kustomization (or one it applies); the cluster holds it from the bootstrap or the previous apply, so it is read as the repository defines it",
                            label_of(&source_id)
                        ),
                    );
                }
                Some(resolution)
            } else {
                self.resolve_source(&source_id, drain)
            };
            // A self-managing Kustomization reads its GitRepository from the repository that
            // defines both; offline, that is this one when the checkout's remote says so.
            // Without a remote (an archive, a copy) the user can say it.
            let resolution = match resolution {
                Some(SourceResolution::Unavailable(message))
                    if self.defines_itself_under_its_path(flux, &source_id, &path) =>
                {
                    Some(SourceResolution::Unavailable(format!(
                        "{message}; this Kustomization and its GitRepository are defined under its own path here (a self-managing bootstrap): if that GitRepository is this repository, `--sources {}` reads it from the working tree",
                        source_id.name
                    )))
                }
                other => other,
            };
            // A source defined nowhere fails its consumer itself; one that exists blocks it.
            let (message, blockers) = match resolution {
                None => return Outcome::Blocked(vec![source_id]),
                Some(SourceResolution::WorkingTree { .. }) => {
                    artifact = self.working_tree_ignoring(&source_id);
                    (None, Vec::new())
                }
                Some(SourceResolution::Unavailable(message)) => (Some(message), vec![source_id]),
                Some(SourceResolution::NotFound(message)) => {
                    self.withdraw_output(id);
                    self.store
                        .set(id.clone(), self.source_not_found(id, message));
                    return Outcome::Terminal;
                }
            };
            if let Some(message) = message {
                self.withdraw_output(id);
                self.store.set_status(
                    id.clone(),
                    StatusRecord::new(self.unavailable(message), blockers),
                );
                return Outcome::Terminal;
            }
        }
        // `substituteFrom` objects this Kustomization applies itself are read from the cluster by
        // kustomize-controller (`SubstituteVariables` loads them when the build is done), where
        // the previous apply left them: they are no gate. Offline they are read as the repository
        // defines them, or, when only the build makes them (a generator), from this build.
        let mut data = Vec::new();
        let mut from_build = Vec::new();
        let variables = match &spec.post_build {
            None => None,
            Some(post_build) => {
                (data, from_build) =
                    self.substitution_data(flux, &post_build.substitute_from, drain);
                // Stands for what the build will render, so that only the others gate.
                let empty = Object {
                    id: ResourceId::new("v1", "ConfigMap", namespace, ""),
                    node: Arc::new(Node::Mapping(crate::yaml::Mapping::new())),
                    file: PathBuf::new(),
                    pos: Default::default(),
                };
                let lookup = |wanted: &ResourceId| {
                    data.iter()
                        .find(|o| &o.id == wanted)
                        .map(|o| o.as_ref())
                        .or_else(|| from_build.contains(wanted).then_some(&empty))
                };
                match self.post_build_variables(flux, post_build, lookup, drain != DrainLevel::None)
                {
                    Ok(variables) => Some(variables),
                    Err(outcome) => return outcome,
                }
            }
        };
        let (root, visible) = match &artifact {
            Some(artifact) => (artifact.root.as_path(), &artifact.files),
            None => (self.repository.root.as_path(), &self.repository.yaml_files),
        };
        let dir = secure_join(root, &path);
        if !self.repository.fs_facts.is_dir(&dir) {
            return self.fail(id, format!("kustomization path not found: {path}"));
        }
        if let Err(e) = crate::fsio::locate(&self.repository.fs_facts, &dir, Some(root)) {
            return self.fail(id, format!("kustomization path `{path}`: {}", e.kind));
        }
        let kustomization = match self.kustomization_for(root, &dir, spec, visible) {
            Ok(kustomization) => kustomization,
            Err(message) => return self.fail(id, message),
        };
        let built = match self.builder.build_with_warnings(root, &dir, &kustomization) {
            Ok((built, warnings)) => {
                if let (false, Ok(mut diagnostics)) = (warnings.is_empty(), self.diagnostics.lock())
                {
                    for warning in warnings {
                        diagnostics.insert(warning.object(id.to_string()));
                    }
                }
                built
            }
            Err(BuildError::Failed(message)) => {
                return self.fail(id, format!("kustomize build failed: {message}"))
            }
            // kustomize-controller builds with kustomize's default file system and fetches
            // remote bases over the network (`KustomizationReconciler.build` →
            // `generator.Build`); offline that is an unavailable input, as an unfetchable source
            // is: SKIPPED with --allow-missing-sources, else failed, and dependants go on with
            // a note through the gate.
            Err(BuildError::Remote { kustomization, url }) => {
                let file = crate::fs_facts::strip_root(&kustomization, root)
                    .unwrap_or(&kustomization)
                    .display()
                    .to_string();
                let message = format!(
                    "kustomize build needs the remote resource `{url}` (listed in `{file}`), which is not available offline"
                );
                self.withdraw_output(id);
                self.store.set_status(
                    id.clone(),
                    StatusRecord::new(self.unavailable(message), Vec::new()),
                );
                return Outcome::Terminal;
            }
        };
        let variables = match (&spec.post_build, from_build.is_empty()) {
            (Some(post_build), false) => {
                let built_data = self.built_data(id, &built, &from_build);
                let lookup = |wanted: &ResourceId| {
                    data.iter()
                        .chain(&built_data)
                        .find(|o| &o.id == wanted)
                        .map(|o| o.as_ref())
                };
                match self.post_build_variables(flux, post_build, lookup, true) {
                    Ok(variables) => Some(variables),
                    Err(outcome) => return outcome,
                }
            }
            _ => variables,
        };
        let mut children = Vec::with_capacity(built.len());
        for mut object in built {
            // A written artifact's file stands for the source file it was copied from.
            if let Some(artifact) = &artifact {
                object.file = object
                    .file
                    .and_then(|file| artifact.origins.get(&file).cloned().or(Some(file)));
            }
            match self.post_process(flux, spec, object, variables.as_ref(), &path) {
                Ok(object) => children.push(object),
                Err(message) => return self.fail(id, message),
            }
        }
        self.apply_server_side(&flux.object, children)
    }

    /// Applies what a producer built as fluxcd/pkg's `ssa` `ApplyAll` does: a dry-run of every
    /// object first, and a refusal fails the producer with nothing applied (see `dry_run`).
    /// The refused build is kept for validation.
    fn apply_server_side(&self, started: &Object, children: Vec<Object>) -> Outcome<ResourceId> {
        let id = &started.id;
        if let Some(message) = super::dry_run::refusal(&children) {
            let outcome = self.fail(id, message);
            if let Ok(mut refused) = self.refused.lock() {
                refused.insert(id.clone(), children);
            }
            return outcome;
        }
        if let Ok(mut refused) = self.refused.lock() {
            refused.remove(id);
        }
        if self.publish(id, started, &children) {
            self.store.set(id.clone(), Status::ready());
        }
        Outcome::Terminal
    }

    fn reconcile_helm_release(&self, flux: &FluxObject, drain: DrainLevel) -> Outcome<ResourceId> {
        let id = &flux.object.id;
        let Some(spec) = flux.as_helm_release() else {
            return Outcome::Terminal;
        };
        if let Some(outcome) = self.suspend_or_gate(flux, spec.suspend, drain) {
            return outcome;
        }
        let chart = match self.chart_of(flux, spec, drain) {
            Ok(chart) => chart,
            Err(outcome) => return outcome,
        };
        let (values, left_out) = match self.values_of(flux, spec, drain) {
            Ok(composed) => composed,
            Err(outcome) => return outcome,
        };
        let request = HelmRenderRequest {
            chart: chart.location,
            values_files: chart.values_files,
            ignore_missing_values_files: chart.ignore_missing_values_files,
            release_name: helmrelease::release_name(flux.name(), spec),
            namespace: helmrelease::release_namespace(flux.namespace(), spec).to_owned(),
            values,
            include_crds: spec.install_crds != CrdPolicy::Skip,
            disable_hooks: spec.disable_hooks,
            disable_schema_validation: spec.disable_schema_validation,
            kube_version: self.options.kube_version.clone(),
        };
        let rendered = match self.helm.render(&request) {
            Ok(rendered) => rendered,
            Err(HelmRenderError::Unavailable(message)) => {
                self.withdraw_output(id);
                self.store.set_status(
                    id.clone(),
                    StatusRecord::new(self.unavailable(message), chart.source),
                );
                return Outcome::Terminal;
            }
            // helm-controller's render asks the cluster for what `lookup` names; offline the
            // answer is empty, and a failure after it cannot be judged here.
            Err(HelmRenderError::NeedsCluster(message)) => {
                return self.depends_on_cluster(
                    id,
                    format!(
                        "the chart looks objects up in the cluster (`lookup`), which offline \
                         returns nothing, and then fails, so the result depends on the \
                         cluster: {message}"
                    ),
                );
            }
            // helm-controller renders with every `valuesFrom` resolved from the cluster. When
            // some were left out offline, a failed render may be the want of them: what Flux
            // would do is unknowable here, so the row says so instead of failing.
            Err(HelmRenderError::Failed(message)) if !left_out.is_empty() => {
                return self.depends_on_cluster(
                    id,
                    format!(
                        "{}; without them the render fails, so the result depends on the \
                         cluster: {message}",
                        left_out.join("; ")
                    ),
                );
            }
            Err(HelmRenderError::Failed(message)) => return self.fail(id, message),
        };
        let unread = (!rendered.unread_values.is_empty()).then(|| {
            let written = self.written(&flux.object).unwrap_or(&flux.object);
            helmrelease::locate_unread(
                &rendered.chart,
                &rendered.unread_values,
                written,
                flux.helm_values(),
            )
        });
        let nodes = match helmrelease::post_process(rendered, spec, flux.name(), flux.namespace()) {
            Ok(nodes) => nodes,
            Err(message) => return self.fail(id, format!("post-rendering failed: {message}")),
        };
        let mut children = Vec::with_capacity(nodes.len());
        for node in nodes {
            match Object::from_node(node, flux.object.file.clone(), Default::default()) {
                Ok(Some(object)) if !object.id.name.is_empty() => children.push(object),
                _ => {
                    return self.fail(
                        id,
                        "failed to decode Kubernetes apiVersion, kind and name from a rendered manifest",
                    )
                }
            }
        }
        if self.publish(id, &flux.object, &children) {
            if let Ok(mut all) = self.unread_values.lock() {
                match unread {
                    Some(unread) => all.insert(id.clone(), unread),
                    None => all.remove(id),
                };
            }
            self.store.set(id.clone(), Status::ready());
        }
        Outcome::Terminal
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

    /// Where a HelmRelease's chart comes from. `Err` holds the outcome when the release waits for
    /// its source or ends without one.
    fn chart_of(
        &self,
        flux: &FluxObject,
        spec: &HelmRelease,
        drain: DrainLevel,
    ) -> Result<ResolvedChart, Outcome<ResourceId>> {
        match &spec.chart {
            ChartSource::Template(template) => {
                self.chart_from_template(flux, template, flux.namespace(), drain)
            }
            ChartSource::Ref(reference) => {
                let ref_id = reference_id(reference, flux.namespace());
                if ref_id.kind == FluxKind::ExternalArtifact.as_str() {
                    return self.chart_from_external_artifact(flux, ref_id, drain);
                }
                let Some(object) = self.store.get(&ref_id) else {
                    return Err(self.source_missing(flux, ref_id, drain));
                };
                let source = match FluxObject::from_object(&object) {
                    Ok(Some(source)) => source,
                    _ => {
                        return Err(self.fail(
                            &flux.object.id,
                            format!("chartRef {} is not a valid source", label_of(&ref_id)),
                        ))
                    }
                };
                let Some(source_spec) = source.as_source() else {
                    return Err(self.fail(&flux.object.id, "chartRef is not a source"));
                };
                match source.kind {
                    FluxKind::HelmChart => match &source_spec.chart {
                        Some(template) => {
                            self.chart_from_template(flux, template, source.namespace(), drain)
                        }
                        None => Err(self.fail(&flux.object.id, "HelmChart has no chart")),
                    },
                    FluxKind::OCIRepository => {
                        let auth = self.credentials(Some(source_spec), &ref_id, drain)?;
                        Ok(ResolvedChart {
                            location: ChartLocation::Repository(oci_artifact_chart(
                                source_spec,
                                auth,
                            )),
                            values_files: Vec::new(),
                            ignore_missing_values_files: false,
                            source: vec![ref_id],
                        })
                    }
                    other => Err(self.fail(
                        &flux.object.id,
                        format!(
                            "chartRef kind {} is not supported: use OCIRepository or HelmChart",
                            other.as_str()
                        ),
                    )),
                }
            }
        }
    }

    /// The credentials of a chart repository from its `secretRef` Secret (`username` and
    /// `password`), waiting for the Secret while it may still be published. A Secret that is
    /// nowhere in the repository, or whose values are SOPS-encrypted, gives none: anonymous
    /// access, whose failure names the repository.
    fn credentials(
        &self,
        source: Option<&crate::model::SourceSpec>,
        source_id: &ResourceId,
        drain: DrainLevel,
    ) -> Result<Option<crate::helm::repo::BasicAuth>, Outcome<ResourceId>> {
        let Some(name) = source.and_then(|s| s.secret_ref.as_deref()) else {
            return Ok(None);
        };
        let secret_id = ResourceId::new("v1", "Secret", &source_id.namespace, name);
        let Some(secret) = self.store.get(&secret_id) else {
            return match drain {
                DrainLevel::None => Err(Outcome::Blocked(vec![secret_id])),
                _ => Ok(None),
            };
        };
        let data = postbuild::data_of(&secret);
        let field = |key: &str| {
            data.get(key)
                .filter(|v| v.as_str() != postbuild::SOPS_PLACEHOLDER)
                .cloned()
        };
        Ok(match (field("username"), field("password")) {
            (Some(username), Some(password)) => {
                Some(crate::helm::repo::BasicAuth { username, password })
            }
            _ => None,
        })
    }

    fn chart_from_template(
        &self,
        flux: &FluxObject,
        template: &HelmChartTemplate,
        namespace: &str,
        drain: DrainLevel,
    ) -> Result<ResolvedChart, Outcome<ResourceId>> {
        let source_id = reference_id(&template.source_ref, namespace);
        let resolved = |location| ResolvedChart {
            location,
            values_files: template.values_files.clone(),
            ignore_missing_values_files: template.ignore_missing_values_files,
            source: vec![source_id.clone()],
        };
        if source_id.kind == FluxKind::HelmRepository.as_str() {
            let Some(object) = self.store.get(&source_id) else {
                return Err(self.source_missing(flux, source_id, drain));
            };
            let source = FluxObject::from_object(&object).ok().flatten();
            let source_spec = source.as_ref().and_then(FluxObject::as_source);
            let url = source_spec.and_then(|s| s.url.clone()).unwrap_or_default();
            let oci = source_spec.and_then(|s| s.repository_type.as_deref()) == Some("oci")
                || url.starts_with("oci://");
            let auth = self.credentials(source_spec, &source_id, drain)?;
            return Ok(resolved(ChartLocation::Repository(RepositoryChart {
                auth,
                kind: if oci {
                    RepositoryKind::Oci
                } else {
                    RepositoryKind::Http
                },
                url,
                chart: template.chart.clone(),
                version: template
                    .version
                    .clone()
                    .filter(|v| !v.is_empty())
                    .unwrap_or_else(|| "*".to_owned()),
            })));
        }
        match self.resolve_source(&source_id, drain) {
            None => Err(Outcome::Blocked(vec![source_id])),
            Some(SourceResolution::Unavailable(message)) => {
                self.withdraw_output(&flux.object.id);
                self.store.set_status(
                    flux.object.id.clone(),
                    StatusRecord::new(self.unavailable(message), vec![source_id]),
                );
                Err(Outcome::Terminal)
            }
            Some(SourceResolution::NotFound(message)) => {
                self.withdraw_output(&flux.object.id);
                self.store.set(
                    flux.object.id.clone(),
                    self.source_not_found(&flux.object.id, message),
                );
                Err(Outcome::Terminal)
            }
            Some(SourceResolution::WorkingTree { .. }) => Ok(resolved(ChartLocation::Local {
                root: self.repository.root.clone(),
                path: template.chart.clone(),
            })),
        }
    }

    /// A `chartRef` to an ExternalArtifact (helm-controller v1.4+, `getSource` /
    /// `HelmReleaseReconciler.reconcileRelease`): the artifact an ArtifactGenerator assembles is
    /// the chart, its `Chart.yaml` at the artifact's root, found as a Kustomization's
    /// `sourceRef` to the same artifact finds it.
    fn chart_from_external_artifact(
        &self,
        flux: &FluxObject,
        ref_id: ResourceId,
        drain: DrainLevel,
    ) -> Result<ResolvedChart, Outcome<ResourceId>> {
        match self.external_artifact(&ref_id, drain) {
            None => Err(Outcome::Blocked(vec![ref_id])),
            Some(Ok(artifact)) => Ok(ResolvedChart {
                location: ChartLocation::Local {
                    root: artifact.root.clone(),
                    path: chart_dir_in_artifact(&artifact),
                },
                values_files: Vec::new(),
                ignore_missing_values_files: false,
                source: vec![ref_id],
            }),
            Some(Err(message)) => {
                self.withdraw_output(&flux.object.id);
                self.store.set_status(
                    flux.object.id.clone(),
                    StatusRecord::new(self.unavailable(message), vec![ref_id]),
                );
                Err(Outcome::Terminal)
            }
        }
    }

    /// A chart source that has not arrived: wait while it may, then fail (or skip) naming it.
    fn source_missing(
        &self,
        flux: &FluxObject,
        source_id: ResourceId,
        drain: DrainLevel,
    ) -> Outcome<ResourceId> {
        if drain == DrainLevel::None {
            return Outcome::Blocked(vec![source_id]);
        }
        let message = format!("source {} not found", label_of(&source_id));
        self.withdraw_output(&flux.object.id);
        // One the repository writes under a producer that did not render (failed, skipped,
        // blocked) may exist: it is unavailable, not a typo. One written where nothing in this
        // run applies it (a file its kustomization leaves out, another cluster's tree) is not
        // found, as in the cluster.
        let defined = source::resolve(&source_id, self.repository, None);
        let withheld = self.producers.of(&source_id).iter().any(|producer| {
            self.store.status(producer).is_none_or(|record| {
                !matches!(
                    record.status,
                    Status::Ready(Ready::Reconciled | Ready::Suspended)
                )
            })
        });
        let status = if matches!(defined, SourceResolution::NotFound(_)) || !withheld {
            StatusRecord::new(self.source_not_found(&flux.object.id, message), Vec::new())
        } else {
            StatusRecord::new(self.unavailable(message), vec![source_id])
        };
        self.store.set_status(flux.object.id.clone(), status);
        Outcome::Terminal
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

    /// Whether `flux` (a Kustomization) and its GitRepository `source` are both written in this
    /// working tree under `path`, the directory it applies from that source: the layout of a
    /// self-managing bootstrap, whose source is, in all likelihood, this repository.
    fn defines_itself_under_its_path(
        &self,
        flux: &FluxObject,
        source: &ResourceId,
        path: &str,
    ) -> bool {
        // A checkout's remote says which repository this is (and it is not this source's, or
        // the source would have been read from here); a path at the root holds everything.
        let relative = path.trim_start_matches("./").trim_matches('/');
        if source.kind != FluxKind::GitRepository.as_str()
            || self.git_remote.is_some()
            || relative.is_empty()
            || relative == "."
        {
            return false;
        }
        let root = &self.repository.root;
        let dir = root.join(relative);
        let under = |file: &Path| {
            let file = if file.is_absolute() {
                file.to_path_buf()
            } else {
                root.join(file)
            };
            file.starts_with(&dir)
        };
        under(&flux.object.file)
            && self
                .repository
                .flux_objects
                .iter()
                .any(|f| f.object.id == *source && under(&f.object.file))
    }

    /// Adds `note` to the row of `id`, once.
    fn note_row(&self, id: &ResourceId, note: String) {
        if let Ok(mut notes) = self.notes.lock() {
            let notes = notes.entry(id.clone()).or_default();
            if !notes.contains(&note) {
                notes.push(note);
            }
        }
    }

    /// The `substituteFrom` objects of `flux`: those it applies itself (see [`Runtime::applies`])
    /// as `--substitute-from` supplies them or the repository defines them, each with a note;
    /// the rest as the Store holds them now ([`Runtime::data_objects`]). The second list holds
    /// the ids it applies itself that no file defines: they come from its own build.
    fn substitution_data(
        &self,
        flux: &FluxObject,
        references: &[DataRef],
        drain: DrainLevel,
    ) -> (Vec<Arc<Object>>, Vec<ResourceId>) {
        let id = &flux.object.id;
        let namespace = flux.namespace();
        let (own, others): (Vec<DataRef>, Vec<DataRef>) =
            references.iter().cloned().partition(|r| {
                matches!(r.kind.as_str(), "ConfigMap" | "Secret")
                    && self.applies(id, &ResourceId::new("v1", &r.kind, namespace, &r.name))
            });
        let mut data = self.data_objects(flux, &others, drain);
        let mut from_build = Vec::new();
        for reference in own {
            let wanted = ResourceId::new("v1", &reference.kind, namespace, &reference.name);
            let supplied = self
                .options
                .extra_objects
                .iter()
                .find(|o| {
                    o.id.kind == wanted.kind
                        && o.id.name == wanted.name
                        && (o.id.namespace.is_empty() || o.id.namespace == wanted.namespace)
                })
                .map(|o| {
                    let mut object = o.clone();
                    object.id.namespace = wanted.namespace.clone();
                    (object, "as `--substitute-from` supplies it".to_owned())
                });
            let written = || {
                let first = self
                    .repository
                    .data_objects
                    .partition_point(|o| o.id < wanted);
                self.repository
                    .data_objects
                    .get(first)
                    .filter(|o| o.id == wanted)
                    .map(|o| {
                        (
                            o.clone(),
                            format!("as the repository defines it in `{}`", o.file.display()),
                        )
                    })
            };
            let how = match supplied.or_else(written) {
                Some((object, how)) => {
                    data.push(Arc::new(object));
                    how
                }
                None => {
                    from_build.push(wanted.clone());
                    "as this build renders it".to_owned()
                }
            };
            self.note_row(
                id,
                format!(
                    "substituteFrom {} is applied by this Kustomization (or one it applies); the cluster holds it from the previous apply, so it is read {how}",
                    label_of(&wanted)
                ),
            );
        }
        (data, from_build)
    }

    /// The objects among `built` that stand for the `substituteFrom` ids in `wanted`, as they are
    /// before substitution; an object the build leaves without a namespace is in the reader's.
    fn built_data(
        &self,
        reader: &ResourceId,
        built: &[BuiltObject],
        wanted: &[ResourceId],
    ) -> Vec<Arc<Object>> {
        let mut found = Vec::new();
        for object in built {
            let Ok(Some(mut object)) = Object::from_node(
                object.node.clone(),
                object.file.clone().unwrap_or_default(),
                Default::default(),
            ) else {
                continue;
            };
            if object.id.namespace.is_empty() {
                object.id.namespace = reader.namespace.clone();
            }
            if wanted.iter().any(|w| {
                w.kind == object.id.kind
                    && w.name == object.id.name
                    && w.namespace == object.id.namespace
                    && object.id.group.is_empty()
            }) {
                found.push(Arc::new(object));
            }
        }
        found
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
        if let Ok(mut diagnostics) = self.diagnostics.lock() {
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

    /// The composed values of a HelmRelease, with what was left out of them (values only the
    /// cluster holds: a Secret an in-repository producer makes, SOPS-encrypted data), or the
    /// outcome when it waits or fails.
    fn values_of(
        &self,
        flux: &FluxObject,
        spec: &HelmRelease,
        drain: DrainLevel,
    ) -> Result<(Value, Vec<String>), Outcome<ResourceId>> {
        let namespace = flux.namespace();
        let data = self.data_objects(flux, &spec.values_from, drain);
        let lookup =
            |wanted: &ResourceId| data.iter().find(|o| &o.id == wanted).map(|o| o.as_ref());
        let declared = |wanted: &ResourceId| self.cluster_producer(wanted);
        match helmrelease::compose_values(
            namespace,
            spec,
            flux.helm_values(),
            lookup,
            declared,
            helmrelease::Composing {
                absent_is_final: drain != DrainLevel::None,
                redact_secret_values: self.options.redact_secret_values,
            },
        ) {
            ComposedValues::Ready { values, notes } => {
                self.assumed(flux, notes.clone());
                Ok((values, notes))
            }
            ComposedValues::Wait(ids) => Err(Outcome::Blocked(ids)),
            ComposedValues::Failed(message) => Err(self.fail(&flux.object.id, message)),
        }
    }

    /// What `flux` went on with that only the cluster holds: a note on its row in the roster and
    /// a diagnostic at its file and line.
    fn assumed(&self, flux: &FluxObject, notes: Vec<String>) {
        if notes.is_empty() {
            return;
        }
        if let Ok(mut rows) = self.notes.lock() {
            let row = rows.entry(flux.object.id.clone()).or_default();
            for note in &notes {
                if !row.contains(note) {
                    row.push(note.clone());
                }
            }
        }
        if let Ok(mut diagnostics) = self.diagnostics.lock() {
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
        let made = self.rendered.lock().ok().and_then(|rendered| {
            let objects: Vec<&Object> = rendered.values().flatten().collect();
            cluster_held::cluster_producer(wanted, &objects, &self.options.secret_producer_kinds)
        });
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

    fn kustomization_for(
        &self,
        root: &Path,
        dir: &Path,
        spec: &Kustomization,
        visible: &[PathBuf],
    ) -> Result<Node, String> {
        match generate::existing_kustomization_file(dir, &self.repository.fs_facts) {
            Some(file) => {
                let existing = match self.repository.parsed_files.get(&file) {
                    Some(documents) => documents.first().map(|d| Node::clone(&d.root)),
                    None => {
                        let text = crate::fsio::read_to_string(
                            &self.repository.fs_facts,
                            &file,
                            crate::fsio::Confine::within(root),
                        )
                        .map_err(|e| format!("reading {e}"))?;
                        let options = crate::yaml::ParseOptions {
                            run: Some(self.options.budget.clone()),
                            ..crate::yaml::ParseOptions::default()
                        };
                        let documents = crate::yaml::parse_stream(&text, &options)
                            .map_err(|e| format!("{}:{e}", file.display()))?;
                        documents.into_iter().next().map(|d| d.into_root())
                    }
                };
                generate::merge(existing, Vec::new(), spec)
            }
            None => generate::merge(
                None,
                generate::generated_resources(dir, visible, &self.repository.fs_facts),
                spec,
            ),
        }
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
        if let Ok(mut unread) = self.unread_values.lock() {
            unread.remove(producer);
        }
        let Ok(mut claims) = self.claims.lock() else {
            return;
        };
        let previous = match self.rendered.lock() {
            Ok(mut rendered) => rendered.remove(producer),
            Err(_) => None,
        };
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
        let held = self
            .rendered
            .lock()
            .ok()
            .and_then(|rendered| rendered.get(producer).map(Vec::len))
            .unwrap_or(0);
        budget.release(objects, held as u64);
        if let Err(exceeded) = budget.charge(objects, children.len() as u64) {
            budget.release(objects, children.len() as u64);
            budget.charge(objects, held as u64).ok();
            self.fail(producer, exceeded.to_string());
            return false;
        }
        let Ok(mut claims) = self.claims.lock() else {
            return false;
        };
        if self.store.get(producer).as_deref() != Some(started) {
            return false;
        }
        let previous = match self.rendered.lock() {
            Ok(mut rendered) => rendered.insert(producer.clone(), children.to_vec()),
            Err(_) => None,
        };
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
                let orphans = match self.rendered.lock() {
                    Ok(mut rendered) => rendered.remove(id),
                    Err(_) => None,
                };
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

/// A resolved chart: where it is, its values files, and the source objects it came through.
struct ResolvedChart {
    location: ChartLocation,
    values_files: Vec<String>,
    ignore_missing_values_files: bool,
    source: Vec<ResourceId>,
}

/// The chart an OCIRepository's artifact is: `url` itself, named by its last path segment, at
/// the `ref`'s tag or semver range (`@sha256:…` for a digest, `latest` without a ref).
fn oci_artifact_chart(
    spec: &crate::model::SourceSpec,
    auth: Option<crate::helm::repo::BasicAuth>,
) -> RepositoryChart {
    let url = spec.url.clone().unwrap_or_default();
    let chart = url
        .trim_end_matches('/')
        .rsplit('/')
        .next()
        .unwrap_or_default()
        .to_owned();
    let version = match spec.reference.as_deref().and_then(|r| r.split_once(' ')) {
        Some(("digest", digest)) => format!("@{digest}"),
        Some((_, version)) => version.to_owned(),
        None => "latest".to_owned(),
    };
    RepositoryChart {
        auth,
        kind: RepositoryKind::OciArtifact,
        url,
        chart,
        version,
    }
}

/// Where the chart lies in an artifact: its root when `Chart.yaml` is there, else the one
/// top-level directory holding a `Chart.yaml` (a copy of `@repo/charts/app` to `@artifact/`
/// keeps the directory, and Helm's archive loader takes the top directory as the chart).
fn chart_dir_in_artifact(artifact: &ArtifactRoot) -> String {
    let relative: Vec<&Path> = artifact
        .files
        .iter()
        .filter_map(|f| f.strip_prefix(&artifact.root).ok())
        .collect();
    if relative.iter().any(|f| *f == Path::new("Chart.yaml")) {
        return ".".to_owned();
    }
    let mut dirs = relative.iter().filter_map(|f| {
        let mut parts = f.components();
        let top = parts.next()?;
        (parts.as_path() == Path::new("Chart.yaml")).then(|| top.as_os_str().to_string_lossy())
    });
    match (dirs.next(), dirs.next()) {
        (Some(dir), None) => dir.into_owned(),
        _ => ".".to_owned(),
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
