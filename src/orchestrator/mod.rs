//! The library's entry point: a [`Config`] in, the runs a command asks for out. An
//! [`Orchestrator`] discovers a repository, reconciles it (whole, scoped to named objects, or
//! narrowed to what changed since a revision) with the engines wired as Flux wires its
//! controllers, and returns typed results. The command line parses its flags into a `Config`,
//! calls an `Orchestrator` and prints what it returns; tests call it the same way.
//!
//! ```no_run
//! use offlux::orchestrator::{Config, Orchestrator};
//!
//! let offlux = Orchestrator::new(Config {
//!     chart_cache: Some("charts".into()),
//!     offline: true,
//!     ..Config::new("path/to/repository")
//! });
//! let (repository, report) = offlux.run(Vec::new()).expect("a repository");
//! for (id, record) in &report.statuses {
//!     println!("{id}: {}", record.status);
//! }
//! # let _ = repository;
//! ```

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::budget::{Limits, RunBudget};
use crate::controllers::engine::{HelmEngine, KustomizeEngine};
use crate::controllers::runtime::{self, CancelToken, RunOptions, RunReport, SuppliedInputs};
use crate::controllers::source_map::SourceMapping;
use crate::diagnostic::Diagnostic;
use crate::discovery::{DiscoveryError, Repository};
use crate::selection::changed::{self, Selection};
use crate::selection::scope::{ScopeKind, Target};

/// Rounds of fetching the sources a run made, then running again.
const MAX_FETCH_ROUNDS: usize = 3;

/// Told `(finished, known)` Flux objects as a reconcile advances.
pub type Progress = Arc<dyn Fn(usize, usize) + Send + Sync>;

/// Called as each reconcile starts, with its cancel token and its budget: the command line
/// cancels both when a signal arrives.
pub type OnStart = Arc<dyn Fn(&CancelToken, &Arc<RunBudget>) + Send + Sync>;

/// Everything a run is told: what the command line's run flags and `.offlux.yaml` say, as values.
/// Nothing here is read from the environment; the caller passes what it chose to.
#[derive(Clone)]
pub struct Config {
    /// Where discovery starts: the repository, or a directory in it.
    pub path: PathBuf,
    /// The repository root, when not the enclosing git work tree (or `path`).
    pub root: Option<PathBuf>,
    /// Objects reconciled at once; the number of cores when unset.
    pub concurrency: Option<usize>,
    /// Consumers of sources that cannot be had offline are SKIPPED instead of failed.
    pub allow_missing_sources: bool,
    /// An unset `${VAR}` without a default fails its Kustomization (Flux's strict mode).
    pub strict_substitutions: bool,
    /// Post-build variables only the cluster holds (`--substitute NAME=VALUE`).
    pub substitutions: BTreeMap<String, String>,
    /// Files of ConfigMaps and Secrets only the cluster holds (`--substitute-from`).
    pub substitute_from: Vec<PathBuf>,
    /// Every value that came from a Secret replaced by `offlux-redacted` wherever it lands.
    pub redact_secret_values: bool,
    /// The Kubernetes version charts are rendered for; Helm's default when unset.
    pub kube_version: Option<String>,
    /// A directory of charts used before any repository.
    pub chart_cache: Option<PathBuf>,
    /// Where downloaded charts are kept across runs; not kept when unset.
    pub download_cache: Option<PathBuf>,
    /// No chart is fetched over the network.
    pub offline: bool,
    /// Chart fetches may reach loopback, link-local and private addresses.
    pub allow_private_network: bool,
    /// The proxy every fetch goes through; none when unset (never one from the environment).
    pub proxy: Option<String>,
    /// A docker configuration file whose `auths` give OCI sources without a Secret their
    /// credentials; none when unset (the user's own is never read unasked).
    pub registry_config: Option<PathBuf>,
    /// OpenSSH's `ssh` for `ssh://` Git URLs, as the command line found it on `PATH`, and the
    /// variables it needs from offlux's environment (none on Unix); SSH URLs are SKIPPED when
    /// it is unset.
    pub ssh: Option<crate::fetch::SshProgram>,
    /// Rendered releases are kept in and read from the download cache (`renders/`), keyed with
    /// this build identity; none kept when unset.
    pub render_cache_build: Option<String>,
    /// Seconds a fetch may wait for its next bytes; the engine's default when unset.
    pub network_idle_timeout_secs: Option<u64>,
    /// Seconds the whole run may spend on the network; the engine's default when unset.
    pub network_deadline_secs: Option<u64>,
    /// The run's budget.
    pub limits: Limits,
    /// Kinds whose objects create a Secret of their own name in the cluster.
    pub secret_producer_kinds: Vec<String>,
    /// The values an env file's bare keys take (`--env-from-process`); left out when unset.
    pub process_env: Option<Arc<BTreeMap<String, String>>>,
    /// Inputs of ResourceSetInputProviders that cannot be queried offline, as
    /// `[NAMESPACE/]NAME=FILE` (a YAML list of input maps).
    pub resourceset_inputs: Vec<String>,
    /// Sources read from local directories, as `NAME[=DIR][,...]` lists (`--sources`), before
    /// the `sources:` of the repository's `.offlux.yaml`.
    pub sources: Vec<String>,
    /// Told how far each reconcile is.
    pub progress: Option<Progress>,
    /// Told when each reconcile starts.
    pub on_start: Option<OnStart>,
}

impl Config {
    /// The defaults for a repository at `path`: no flags given.
    pub fn new(path: impl Into<PathBuf>) -> Config {
        Config {
            path: path.into(),
            root: None,
            concurrency: None,
            allow_missing_sources: false,
            strict_substitutions: false,
            substitutions: BTreeMap::new(),
            substitute_from: Vec::new(),
            redact_secret_values: false,
            kube_version: None,
            chart_cache: None,
            download_cache: None,
            offline: false,
            allow_private_network: false,
            proxy: None,
            registry_config: None,
            ssh: None,
            render_cache_build: None,
            network_idle_timeout_secs: None,
            network_deadline_secs: None,
            limits: Limits::default(),
            secret_producer_kinds: Vec::new(),
            process_env: None,
            resourceset_inputs: Vec::new(),
            sources: Vec::new(),
            progress: None,
            on_start: None,
        }
    }
}

/// Why a run could not be made: the invocation's fault, not the repository's verdict.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The path is not a repository offlux can read.
    #[error(transparent)]
    Discovery(#[from] DiscoveryError),
    /// A setting or a file it names is wrong (the message names which).
    #[error("{0}")]
    Setting(String),
    /// The revisions a `--changed-only` run compares could not be read.
    #[error("{0}")]
    Changes(String),
}

/// What a run narrowed to what changed left out, for the outputs that say so.
#[derive(Clone, Debug, serde::Serialize)]
pub struct LeftOut {
    /// Flux objects not reconciled or not reported.
    #[serde(rename = "leftOut")]
    pub count: usize,
    /// The revision compared against.
    pub base: String,
    /// Why the run was whole, when it was.
    #[serde(rename = "fullRun", skip_serializing_if = "Option::is_none")]
    pub full: Option<String>,
    /// Files changed under the repository root.
    #[serde(rename = "changedFiles")]
    pub changed: usize,
    /// Of those, files no producer reads.
    #[serde(rename = "unreadFiles")]
    pub unread: usize,
    /// Flux objects reconciled and reported.
    pub reconciled: usize,
}

impl LeftOut {
    /// What was left out, in one sentence.
    pub fn sentence(&self) -> String {
        let unread = if self.unread > 0 {
            format!(" ({} read by no producer)", self.unread)
        } else {
            String::new()
        };
        match &self.full {
            Some(reason) => format!(
                "--changed-only: {} files changed since {}; {reason}, so everything was reconciled",
                self.changed, self.base
            ),
            None => format!(
                "--changed-only: {} files changed since {}{unread}; {} Flux objects reconciled, {} left out",
                self.changed, self.base, self.reconciled, self.count
            ),
        }
    }
}

pub mod clusters;
pub mod diff;

/// Runs repositories as one [`Config`] says.
#[derive(Clone)]
pub struct Orchestrator {
    config: Config,
    /// Files parsed by an earlier discovery of this call (`run_each`'s clusters, `diff`'s
    /// sides), so the same text is parsed once.
    parse_cache: Option<Arc<crate::discovery::ParseCache>>,
    /// The remote sources this call fetched, shared by its discoveries and runs.
    fetched: Arc<crate::fetch::Memo>,
}

impl Orchestrator {
    pub fn new(config: Config) -> Orchestrator {
        Orchestrator {
            config,
            parse_cache: None,
            fetched: Arc::default(),
        }
    }

    /// This orchestrator with a parse cache of its own for the discoveries of one call (kept
    /// when it has one already).
    fn sharing_parses(&self) -> Orchestrator {
        Orchestrator {
            config: self.config.clone(),
            parse_cache: Some(self.parse_cache.clone().unwrap_or_default()),
            fetched: self.fetched.clone(),
        }
    }

    /// [`Orchestrator::sharing_parses`], the parses also kept by git blob id, for a command that
    /// reads revisions mounted in memory beside the working tree (`ParseCache::by_content`).
    pub(super) fn sharing_parses_by_content(&self) -> Orchestrator {
        Orchestrator {
            config: self.config.clone(),
            parse_cache: Some(
                self.parse_cache
                    .clone()
                    .unwrap_or_else(|| Arc::new(crate::discovery::ParseCache::by_content())),
            ),
            fetched: self.fetched.clone(),
        }
    }

    /// `config` run the way this orchestrator runs (sharing its parses).
    fn with_config(&self, config: Config) -> Orchestrator {
        Orchestrator {
            config,
            parse_cache: self.parse_cache.clone(),
            fetched: self.fetched.clone(),
        }
    }

    pub fn config(&self) -> &Config {
        &self.config
    }

    /// Discovers and reconciles, for a command about `scope` only (all of the repository when
    /// empty).
    pub fn run(&self, scope: Vec<Target>) -> Result<(Repository, RunReport), RunError> {
        let repository = self.discover()?;
        self.reconcile(repository, scope)
    }

    /// Discovers the repository with the source mappings (`sources`, `.offlux.yaml`), so that a
    /// Kustomization of a mapped source has its `spec.path` followed there. The run's budget
    /// starts here: discovery's reading of the files counts.
    pub fn discover(&self) -> Result<Repository, RunError> {
        let mut options = crate::discovery::Options::new(&self.config.path);
        options.budget = Some(Arc::new(RunBudget::new(self.config.limits)));
        options.parse_cache = self.parse_cache.clone();
        options.root = self.config.root.clone();
        let root = crate::discovery::repository_root(&options)?;
        options.sources = self.source_mappings(&root)?;
        let repository = crate::discovery::discover(&options)?;
        // Remote sources are fetched and mapped, then the repository is read again with them,
        // so what their Kustomizations apply is discovered as a mapped source's is.
        let fetched = self.fetch_sources(&repository, &options.sources);
        if fetched.mappings.is_empty() {
            return Ok(repository);
        }
        options.sources.extend(fetched.mappings);
        options.budget = Some(Arc::new(RunBudget::new(self.config.limits)));
        Ok(crate::discovery::discover(&options)?)
    }

    /// The remote sources of `repository` that `mapped` does not cover, fetched once per call.
    fn fetch_sources(
        &self,
        repository: &Repository,
        mapped: &[SourceMapping],
    ) -> crate::fetch::FetchedSources {
        let settings = self.fetch_settings();
        crate::fetch::fetch_sources(repository, mapped, &settings, &self.fetched)
    }

    fn fetch_settings(&self) -> crate::fetch::FetchSettings {
        // Read when named; a file that cannot be read gives no credentials (the fetch then
        // fails as anonymous, naming the status), checked up front by the command line.
        let registry_config = self.config.registry_config.as_ref().and_then(|file| {
            crate::fsio::read_to_string(
                &crate::fsio::FsFacts::default(),
                file,
                crate::fsio::Confine::anywhere(),
            )
            .ok()
            .map(Arc::new)
        });
        crate::fetch::FetchSettings {
            registry_config,
            offline: self.config.offline,
            allow_private_network: self.config.allow_private_network,
            download_cache: self.config.download_cache.clone(),
            proxy: self.config.proxy.clone(),
            ssh: self.config.ssh.clone(),
            idle_timeout_secs: self.config.network_idle_timeout_secs,
            deadline: Some(crate::helm::repo::NetworkDeadline::after(
                self.config
                    .network_deadline_secs
                    .unwrap_or(crate::helm::repo::DEFAULT_NETWORK_DEADLINE_SECS),
            )),
        }
    }

    /// Reconciles `repository` (already discovered), for a command about `scope` only.
    pub fn reconcile(
        &self,
        repository: Repository,
        scope: Vec<Target>,
    ) -> Result<(Repository, RunReport), RunError> {
        self.reconcile_scoped(repository, scope, ScopeKind::Named)
    }

    /// [`Orchestrator::reconcile`], with `scope` of the kind `scope_kind`.
    fn reconcile_scoped(
        &self,
        mut repository: Repository,
        scope: Vec<Target>,
        scope_kind: ScopeKind,
    ) -> Result<(Repository, RunReport), RunError> {
        let config = &self.config;
        let (extra_objects, diagnostics) = read_substitute_from(&config.substitute_from)?;
        let resourceset_inputs = read_resourceset_inputs(&config.resourceset_inputs)?;
        if let Some(version) = &config.kube_version {
            crate::helm::KubeVersion::parse(version)
                .map_err(|e| RunError::Setting(format!("`--kube-version {version}`: {e}")))?;
        }
        // The command line's mappings come first, so they win over the file's.
        let mapped = self.source_mappings(&repository.root)?;
        let mut fetched = self.fetch_sources(&repository, &mapped);
        repository.diagnostics.extend(diagnostics);
        let budget =
            (repository.budget.clone()).unwrap_or_else(|| Arc::new(RunBudget::new(config.limits)));
        let run_with = |fetched: &crate::fetch::FetchedSources, budget: Arc<RunBudget>| {
            let mut source_dirs = mapped.clone();
            source_dirs.extend(fetched.mappings.iter().cloned());
            self.run_once(
                &repository,
                RunOptions {
                    extra_objects: extra_objects.clone(),
                    resourceset_inputs: resourceset_inputs.clone(),
                    source_dirs,
                    fetched: fetched.records.clone(),
                    scope: scope.clone(),
                    scope_kind,
                    ..RunOptions::default()
                },
                budget,
            )
        };
        let mut report = run_with(&fetched, budget);
        // Sources the run made (a ResourceSet's, a Kustomization's output) are fetched in turn
        // and the run is made again with them, a few rounds at most: a fetched source may hold
        // what makes the next.
        for _ in 0..MAX_FETCH_ROUNDS {
            if report.cancelled {
                break;
            }
            let more = self.fetch_generated_sources(&repository, &report, &mapped, &fetched);
            if more.records.is_empty() {
                break;
            }
            fetched.records.extend(more.records);
            fetched.mappings.extend(more.mappings);
            report = run_with(&fetched, Arc::new(RunBudget::new(config.limits)));
        }
        Ok((repository, report))
    }

    /// One run of the runtime over `repository` with `options` (the run's own settings are filled
    /// in from the configuration).
    fn run_once(
        &self,
        repository: &Repository,
        options: RunOptions,
        budget: Arc<RunBudget>,
    ) -> RunReport {
        let config = &self.config;
        let cancel = CancelToken::default();
        if let Some(on_start) = &config.on_start {
            on_start(&cancel, &budget);
        }
        let options = RunOptions {
            progress: config.progress.clone(),
            cancel,
            budget: budget.clone(),
            concurrency: config.concurrency,
            allow_missing_sources: config.allow_missing_sources,
            strict_substitutions: config.strict_substitutions,
            user_values: config.substitutions.clone(),
            redact_secret_values: config.redact_secret_values,
            kube_version: config.kube_version.clone(),
            chart_cache: config.chart_cache.clone(),
            offline: config.offline,
            secret_producer_kinds: config.secret_producer_kinds.clone(),
            ..options
        };
        let helm = HelmEngine {
            chart_cache: options.chart_cache.clone(),
            offline: options.offline,
            allow_private_network: config.allow_private_network,
            network_idle_timeout_secs: config.network_idle_timeout_secs,
            network_deadline: Some(crate::helm::repo::NetworkDeadline::after(
                config
                    .network_deadline_secs
                    .unwrap_or(crate::helm::repo::DEFAULT_NETWORK_DEADLINE_SECS),
            )),
            download_cache: config.download_cache.clone(),
            proxy: config.proxy.clone(),
            render_cache: config
                .download_cache
                .as_ref()
                .zip(config.render_cache_build.as_ref())
                .map(|(dir, build)| crate::controllers::engine::RenderCache {
                    dir: dir.join("renders"),
                    build: build.clone(),
                }),
            budget,
            ..HelmEngine::default()
        };
        let kustomize = KustomizeEngine {
            process_env: config.process_env.clone(),
            budget: Some(options.budget.clone()),
            ..KustomizeEngine::for_repository(repository)
        };
        let mut report = runtime::run(repository, &kustomize, &helm, &options);
        // The loaded charts go with the report: a command leaves them to the exit.
        report.tables.hold(helm.loaded.clone());
        report.tables.hold(helm.values_usage.clone());
        report
    }

    /// The remote sources `report`'s producers made that nothing maps or fetched yet, fetched.
    fn fetch_generated_sources(
        &self,
        repository: &Repository,
        report: &RunReport,
        mapped: &[SourceMapping],
        fetched: &crate::fetch::FetchedSources,
    ) -> crate::fetch::FetchedSources {
        // Only a source the run could not have: one that passed (the working tree, a FluxInstance's
        // own sync) needs nothing fetched.
        let unavailable: std::collections::BTreeSet<&crate::model::ResourceId> = report
            .statuses
            .iter()
            .filter(|(_, record)| {
                !matches!(
                    record.status,
                    crate::store::Status::Ready(crate::store::Ready::Reconciled)
                )
            })
            .map(|(id, _)| id)
            .collect();
        let made: Vec<crate::model::Object> = report
            .rendered
            .values()
            .flatten()
            .filter(|o| unavailable.contains(&o.id) && !fetched.records.contains_key(&o.id))
            .cloned()
            .collect();
        let mut covered = mapped.to_vec();
        covered.extend(fetched.mappings.iter().cloned());
        crate::fetch::fetch_made_sources(
            repository,
            &made,
            &covered,
            &self.fetch_settings(),
            &self.fetched,
        )
    }

    /// Runs `repository` as `selection` asks: whole when it says so, not at all when it selects
    /// nothing, else narrowed to it; the report keeps only the selected producers.
    pub fn run_selection(
        &self,
        repository: Repository,
        selection: &Selection,
        base_label: &str,
    ) -> Result<(Repository, RunReport, LeftOut), RunError> {
        let mapped = !self.config.sources.is_empty()
            || !configured_sources(&repository.root)
                .map_err(RunError::Setting)?
                .is_empty();
        let full = selection.full.clone().or_else(|| {
            mapped.then(|| "sources are read from other directories (`--sources`)".to_owned())
        });
        if let Some(reason) = &full {
            let (repository, report) = self.reconcile(repository, Vec::new())?;
            let left_out = LeftOut {
                count: 0,
                base: base_label.to_owned(),
                full: Some(reason.clone()),
                changed: selection.changed,
                unread: selection.unread,
                reconciled: report.statuses.len(),
            };
            return Ok((repository, report, left_out));
        }
        let (repository, mut report) = match selection.targets(&repository) {
            Some(targets) => self.reconcile_scoped(repository, targets, ScopeKind::Change)?,
            None => (repository, RunReport::default()),
        };
        let count = changed::retain(&mut report, selection, &repository);
        let left_out = LeftOut {
            count,
            base: base_label.to_owned(),
            full: None,
            changed: selection.changed,
            unread: selection.unread,
            reconciled: report.statuses.len(),
        };
        Ok((repository, report, left_out))
    }

    /// The `sources` lists (first, so they win) and the `sources:` of `.offlux.yaml` at `root`.
    fn source_mappings(&self, root: &Path) -> Result<Vec<SourceMapping>, RunError> {
        let mut source_dirs = Vec::new();
        for list in &self.config.sources {
            source_dirs.extend(
                SourceMapping::parse_list(list, root)
                    .map_err(|e| RunError::Setting(format!("`--sources`: {e}")))?,
            );
        }
        source_dirs.extend(configured_sources(root).map_err(RunError::Setting)?);
        Ok(source_dirs)
    }
}

/// The `sources:` map of `.offlux.yaml` (`NAME` or `KIND/NAMESPACE/NAME` to a directory relative
/// to the repository root).
fn configured_sources(root: &Path) -> Result<Vec<SourceMapping>, String> {
    let path = root.join(crate::config_file::FILE);
    let Some(entries) =
        crate::config_file::read(root)?.and_then(|config| config.get_path(&["sources"]).cloned())
    else {
        return Ok(Vec::new());
    };
    let Some(entries) = entries.as_mapping() else {
        return Ok(Vec::new());
    };
    entries
        .iter()
        .map(|(key, value)| {
            let dir = value.as_str().ok_or_else(|| {
                format!("`{}`: `sources.{key}` must be a directory", path.display())
            })?;
            let dir = crate::config_file::path_inside(root, dir)
                .map_err(|refused| format!("`{}`: `sources.{key}` {refused}", path.display()))?;
            SourceMapping::new(key, dir).map_err(|e| format!("`{}`: sources: {e}", path.display()))
        })
        .collect()
}

/// The ConfigMaps and Secrets of `--substitute-from` files, and a warning for anything else.
fn read_substitute_from(
    files: &[PathBuf],
) -> Result<(Vec<crate::model::Object>, Vec<Diagnostic>), RunError> {
    let mut objects = Vec::new();
    let mut diagnostics = Vec::new();
    for file in files {
        let facts = crate::fsio::FsFacts::default();
        let text = crate::fsio::read_to_string(&facts, file, crate::fsio::Confine::anywhere())
            .map_err(|e| RunError::Setting(format!("cannot read {e}")))?;
        let read = crate::model::parse_objects(&text, file)
            .map_err(|e| RunError::Setting(e.to_string()))?;
        for object in read {
            if matches!(object.id.kind.as_str(), "ConfigMap" | "Secret") {
                objects.push(object);
            } else {
                diagnostics.push(
                    Diagnostic::warning(
                        "only ConfigMaps and Secrets are read from --substitute-from files",
                    )
                    .at(object.location())
                    .object(object.id.to_string()),
                );
            }
        }
    }
    Ok((objects, diagnostics))
}

/// Reads `PROVIDER=FILE` pairs: each file a YAML list of input maps (or one map).
fn read_resourceset_inputs(pairs: &[String]) -> Result<SuppliedInputs, RunError> {
    let mut supplied = SuppliedInputs::new();
    for pair in pairs {
        let (provider, file) = pair.split_once('=').ok_or_else(|| {
            RunError::Setting(format!(
                "`--resourceset-inputs {pair}` must be PROVIDER=FILE"
            ))
        })?;
        let text = crate::fsio::read_to_string(
            &crate::fsio::FsFacts::default(),
            Path::new(file),
            crate::fsio::Confine::anywhere(),
        )
        .map_err(|e| RunError::Setting(format!("cannot read {e}")))?;
        let documents = crate::yaml::parse_stream(&text, &crate::yaml::ParseOptions::default())
            .map_err(|e| RunError::Setting(format!("`{file}`: {e}")))?;
        let mut sets = Vec::new();
        for document in &documents {
            match crate::resourceset::yaml_to_json(&document.root) {
                serde_json::Value::Array(items) => {
                    for item in items {
                        match item {
                            serde_json::Value::Object(set) => sets.push(set),
                            _ => {
                                return Err(RunError::Setting(format!(
                                    "`{file}`: each input must be a map"
                                )))
                            }
                        }
                    }
                }
                serde_json::Value::Object(set) => sets.push(set),
                serde_json::Value::Null => {}
                _ => {
                    return Err(RunError::Setting(format!(
                        "`{file}`: expected a list of input maps"
                    )))
                }
            }
        }
        supplied.insert(provider.to_owned(), sets);
    }
    Ok(supplied)
}
