//! The engines behind the reconcile loop's interfaces: the kustomize engine with Flux's settings
//! (`LoadRestrictionsNone` inside the source root, input order kept, no legacy kind sort), and the
//! native Helm engine rendering a chart as helm-controller installs it.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use offlux_sync::MutexExt as _;

use super::helmrelease::{
    ChartLocation, HelmRenderError, HelmRenderRequest, HelmRenderer, RenderedRelease,
    RepositoryChart,
};
use super::runtime::{BuildError, BuiltObject, KustomizationBuilder};
use crate::diagnostic::{Diagnostic, Location};
use crate::discovery::secure_join;
use crate::helm;
use crate::kustomize;
use crate::yaml::Node;

/// The kustomize engine; files discovery already parsed are taken from `parsed_files`.
#[derive(Clone, Debug, Default)]
pub struct KustomizeEngine {
    pub parsed_files: Option<Arc<crate::yaml::ParsedFiles>>,
    /// Shared by every build of the run.
    pub fs_facts: Arc<kustomize::FsFacts>,
    /// Shared by every build of the run.
    pub patch_texts: Arc<kustomize::PatchTexts>,
    /// Values for env files' bare keys (`--env-from-process`); `None`: such keys are left out.
    pub process_env: Option<Arc<std::collections::BTreeMap<String, String>>>,
    /// The run's budget, for the files a build reads itself (discovery charged the rest).
    pub budget: Option<Arc<crate::budget::RunBudget>>,
}

impl KustomizeEngine {
    /// An engine that reads the files discovery parsed from memory.
    pub fn for_repository(repository: &crate::discovery::Repository) -> Self {
        KustomizeEngine {
            parsed_files: Some(repository.parsed_files.clone()),
            fs_facts: repository.fs_facts.clone(),
            patch_texts: Arc::default(),
            process_env: None,
            budget: repository.budget.clone(),
        }
    }
}

impl KustomizationBuilder for KustomizeEngine {
    fn build(
        &self,
        root: &Path,
        dir: &Path,
        kustomization: &Node,
    ) -> Result<Vec<BuiltObject>, String> {
        self.build_with_warnings(root, dir, kustomization)
            .map(|(built, _)| built)
            .map_err(|error| match error {
                BuildError::Failed(message) => message,
                BuildError::Remote { url, .. } => {
                    format!("remote resource `{url}` is not available offline")
                }
            })
    }

    fn build_with_warnings(
        &self,
        root: &Path,
        dir: &Path,
        kustomization: &Node,
    ) -> Result<(Vec<BuiltObject>, Vec<Diagnostic>), BuildError> {
        let options = kustomize::Options {
            load_restrictor: kustomize::LoadRestrictor::None,
            reorder: kustomize::Reorder::None,
            display_root: Some(root.to_path_buf()),
            fs_root: Some(root.to_path_buf()),
            kustomization_override: Some((dir.to_path_buf(), kustomization.clone())),
            parsed_files: self.parsed_files.clone(),
            fs_facts: self.fs_facts.clone(),
            patch_texts: self.patch_texts.clone(),
            process_env: self.process_env.clone(),
            budget: self.budget.clone(),
            ..kustomize::Options::default()
        };
        let build = kustomize::build(dir, &options).map_err(|e| match e {
            kustomize::Error::Remote {
                kustomization, url, ..
            } => BuildError::Remote { kustomization, url },
            other => BuildError::Failed(other.to_string()),
        })?;
        // Deprecation warnings are kustomize's CLI's, which Flux does not show; a key left out is
        // a difference from Flux, which the user should see.
        let warnings = build
            .env_keys_left_out
            .iter()
            .map(|left_out| env_key_left_out(left_out, root))
            .collect();
        let origins = build.origins.into_iter().chain(std::iter::repeat(None));
        let objects = build
            .objects
            .into_iter()
            .zip(origins)
            .map(|(node, file)| BuiltObject { node, file })
            .collect();
        Ok((objects, warnings))
    }
}

/// The warning for an env file's bare key left out, at its file (relative to `root` when under
/// it) and line.
pub(crate) fn env_key_left_out(left_out: &kustomize::EnvKeyLeftOut, root: &Path) -> Diagnostic {
    let file = crate::fs_facts::strip_root(&left_out.file, root)
        .unwrap_or(&left_out.file)
        .to_path_buf();
    let line = u32::try_from(left_out.line).unwrap_or(u32::MAX);
    Diagnostic::warning(format!(
        "env file key `{}` has no value and is left out: offlux does not read its own environment",
        left_out.key
    ))
    .at(Location::at(file, crate::yaml::Pos { line, column: 1 }))
    .hint("`--env-from-process` fills such keys from offlux's own environment, as kustomize does")
}

/// The native Helm engine: charts from the working tree now; charts from repositories through
/// [`repository_chart`].
#[derive(Clone, Debug, Default)]
pub struct HelmEngine {
    /// A local chart cache or mirror (`<chart>-<version>/` or `.tgz`).
    pub chart_cache: Option<PathBuf>,
    /// Never fetch over the network.
    pub offline: bool,
    /// Fetch from loopback, link-local and private addresses too (`--allow-private-network`).
    pub allow_private_network: bool,
    /// Where downloaded charts are kept, by digest, across runs.
    pub download_cache: Option<PathBuf>,
    /// Seconds a fetch may wait for its next bytes (`--network-idle-timeout`); `None`: the
    /// default.
    pub network_idle_timeout_secs: Option<u64>,
    /// When the run's network time ends (`--network-deadline`); `None`: no run-wide end.
    pub network_deadline: Option<crate::helm::repo::NetworkDeadline>,
    /// The proxy fetches go through (`--proxy`).
    pub proxy: Option<String>,
    /// Where rendered releases are kept across runs, by the digest of all they were made from.
    pub render_cache: Option<RenderCache>,
    /// Charts loaded (or found missing) in this run, by location: a chart many releases share
    /// is read, fetched and checked once.
    pub loaded: LoadedCharts,
    /// What each loaded chart's templates read of `.Values`, by location, worked out once.
    pub values_usage: ValuesUsages,
    /// The run's budget (the same as `RunOptions::budget`).
    pub budget: Arc<crate::budget::RunBudget>,
    /// `chart_cache`'s entries, listed at the first question whether it holds a chart.
    pub chart_cache_listing: Arc<std::sync::OnceLock<Option<crate::helm::repo::ChartCacheListing>>>,
}

/// [`helm::ValuesUsage`] by chart location, shared by the engine's clones.
pub(crate) type ValuesUsages = Arc<Mutex<HashMap<String, Arc<helm::ValuesUsage>>>>;

/// Charts by location, shared by the engine's clones.
pub(crate) type LoadedCharts = Arc<Mutex<ChartCache>>;

/// The charts loaded in this run (or found missing), by location, oldest first. A chart many
/// releases share is read, fetched and checked once while it stays; the bytes of the charts
/// held (here, by renders in flight and by the load in progress) are charged to the run's budget
/// of loaded charts, and a chart no render holds is let go, oldest first, when that budget runs
/// short. A chart let go is loaded again by the next release that needs it.
#[derive(Debug, Default)]
pub struct ChartCache {
    entries: std::collections::VecDeque<(String, Result<Arc<HeldChart>, HelmRenderError>)>,
    /// Whether a load is charging the budget: one at a time has the turn ([`ChartLoad`]).
    turn_taken: bool,
}

impl ChartCache {
    fn get(&self, key: &str) -> Option<Result<Arc<HeldChart>, HelmRenderError>> {
        self.entries
            .iter()
            .find(|(known, _)| known == key)
            .map(|(_, entry)| entry.clone())
    }

    /// Lets go of the oldest chart no render holds; whether there was one.
    fn evict_one(&mut self) -> bool {
        let unused = self
            .entries
            .iter()
            .position(|(_, entry)| entry.as_ref().is_ok_and(|c| Arc::strong_count(c) == 1));
        unused.and_then(|at| self.entries.remove(at)).is_some()
    }
}

/// A loaded chart whose bytes stay charged to the run's budget of loaded charts until the last
/// holder (the cache, a render) drops it.
#[derive(Debug)]
pub struct HeldChart {
    chart: helm::Chart,
    bytes: u64,
    budget: Arc<crate::budget::RunBudget>,
    /// `helm::chart_digest` of the chart, for the render cache's keys: hashed once however many
    /// releases render it.
    digest: std::sync::OnceLock<String>,
}

impl HeldChart {
    fn digest(&self) -> &str {
        self.digest.get_or_init(|| helm::chart_digest(&self.chart))
    }
}

impl Drop for HeldChart {
    fn drop(&mut self) {
        let held = crate::budget::Resource::LoadedChartBytes;
        self.budget.release(held, self.bytes);
    }
}

/// A chart load in progress, charged to the run's budget of loaded charts as it reads
/// (`helm::LoadOptions::hold`): each file twice (loaded, and copied into `.Files` by the render
/// that holds it), before an archive member is inflated. What it charged is given back if the
/// load fails, or passes to the [`HeldChart`] it becomes.
///
/// One load at a time charges (it takes the cache's turn at its first charge and keeps it to the
/// end): two loads each holding part of the budget would otherwise wait for each other. While
/// a charge does not fit, charts no render holds are let go, then renders in flight are waited
/// for (they end and let go of theirs); a load fails only when its chart alone is over the
/// limit, so whether a release fails never depends on which others render at the same time.
#[derive(Debug)]
struct ChartLoad {
    budget: Arc<crate::budget::RunBudget>,
    loaded: LoadedCharts,
    has_turn: std::sync::atomic::AtomicBool,
    charged: std::sync::atomic::AtomicU64,
}

impl ChartLoad {
    fn new(engine: &HelmEngine) -> Self {
        ChartLoad {
            budget: engine.budget.clone(),
            loaded: engine.loaded.clone(),
            has_turn: Default::default(),
            charged: Default::default(),
        }
    }

    /// Waits for the turn to charge, unless this load has it (or the run is cancelled).
    fn take_turn(&self) {
        use std::sync::atomic::Ordering;
        if self.has_turn.load(Ordering::Relaxed) {
            return;
        }
        while !self.budget.is_cancelled() {
            let mut loaded = self.loaded.locked();
            if !loaded.turn_taken {
                loaded.turn_taken = true;
                self.has_turn.store(true, Ordering::Relaxed);
                return;
            }
            drop(loaded);
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
    }

    /// Charges `amount` bytes, waiting for room as the type's documentation says.
    fn charge_bytes(&self, amount: u64) -> Result<(), crate::budget::Exceeded> {
        use std::sync::atomic::Ordering;
        let held = crate::budget::Resource::LoadedChartBytes;
        let limit = held.limit(self.budget.limits());
        loop {
            let exceeded = match self.budget.charge(held, amount) {
                Ok(()) => {
                    self.charged.fetch_add(amount, Ordering::Relaxed);
                    return Ok(());
                }
                Err(exceeded) => exceeded,
            };
            self.budget.release(held, amount);
            let evicted = self.loaded.locked().evict_one();
            if evicted {
                continue;
            }
            let alone = self.charged.load(Ordering::Relaxed).saturating_add(amount);
            if alone > limit || self.budget.is_cancelled() {
                return Err(exceeded);
            }
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
    }

    /// The loaded chart, held: its bytes (twice) stay charged, what the load charged beyond
    /// them (files the chart does not keep, such as `Chart.yaml`) is given back.
    fn into_held(self, chart: helm::Chart) -> Result<Arc<HeldChart>, HelmRenderError> {
        use std::sync::atomic::Ordering;
        let held = crate::budget::Resource::LoadedChartBytes;
        let bytes = chart.bytes().saturating_mul(2);
        let charged = self.charged.load(Ordering::Relaxed);
        if bytes > charged {
            self.charge_bytes(bytes - charged).map_err(|exceeded| {
                HelmRenderError::Failed(format!(
                    "chart {} {} ({} bytes with its subcharts, held twice while rendered): {exceeded}",
                    chart.name(),
                    chart.metadata.version,
                    bytes / 2
                ))
            })?;
        } else {
            self.budget.release(held, charged - bytes);
        }
        self.charged.store(0, Ordering::Relaxed);
        Ok(Arc::new(HeldChart {
            chart,
            digest: std::sync::OnceLock::new(),
            bytes,
            budget: self.budget.clone(),
        }))
    }
}

impl helm::ChargeLoad for ChartLoad {
    fn charge(&self, bytes: u64) -> Result<(), crate::budget::Exceeded> {
        self.take_turn();
        self.charge_bytes(bytes.saturating_mul(2))
    }
}

impl Drop for ChartLoad {
    fn drop(&mut self) {
        use std::sync::atomic::Ordering;
        let held = crate::budget::Resource::LoadedChartBytes;
        self.budget
            .release(held, self.charged.load(Ordering::Relaxed));
        if self.has_turn.load(Ordering::Relaxed) {
            {
                let mut loaded = self.loaded.locked();
                loaded.turn_taken = false;
            }
        }
    }
}

impl HelmEngine {
    /// The chart at `location`, held (and charged to the run's budget) as long as the returned
    /// handle lives.
    fn chart(&self, location: &ChartLocation) -> Result<Arc<HeldChart>, HelmRenderError> {
        // Debug output redacts credentials; the rest names the chart exactly.
        let key = format!("{location:?}");
        let known = self.loaded.locked().get(&key);
        if let Some(known) = known {
            return known;
        }
        let load = Arc::new(ChartLoad::new(self));
        let load_options = helm::LoadOptions {
            run: Some(self.budget.clone()),
            hold: Some(load.clone()),
            ..helm::LoadOptions::default()
        };
        let result = match location {
            ChartLocation::Local { root, path } => load_local(root, path, &load_options),
            ChartLocation::Repository(chart) => repository_chart(chart, self, &load_options),
        }
        .and_then(|mut chart| {
            let packaged = matches!(location, ChartLocation::Repository(_));
            self.complete_dependencies(&mut chart, &load_options, packaged, 0)?;
            Ok(chart)
        });
        drop(load_options);
        let result = result.and_then(|chart| match Arc::try_unwrap(load) {
            Ok(load) => load.into_held(chart),
            Err(_) => Err(HelmRenderError::Failed(
                "the chart's load is still referenced".to_owned(),
            )),
        });
        {
            let mut loaded = self.loaded.locked();
            loaded.entries.push_back((key, result.clone()));
        }
        result
    }
}

/// Dependencies are fetched for dependencies this deep at most.
const MAX_DEPENDENCY_DEPTH: usize = 8;

impl HelmEngine {
    /// Fetches the dependencies `chart` declares from a repository but does not hold in `charts/`:
    /// from the chart cache, or the network unless offline. source-controller builds a chart so
    /// (`chart.NewLocalBuilder` with its `DependencyManager`, for a chart from a source's files),
    /// and a chart a repository serves was packaged with them: an unpacked copy in the chart
    /// cache (a checkout of the chart's sources) stands for that package only with them. One
    /// that cannot be had is unavailable, not a failure of the chart; a dependency without a
    /// repository (or a `file://` one) must be in `charts/`, and Helm's check says so.
    fn complete_dependencies(
        &self,
        chart: &mut helm::Chart,
        options: &helm::LoadOptions,
        packaged: bool,
        depth: usize,
    ) -> Result<(), HelmRenderError> {
        let missing: Vec<helm::chart::Dependency> = (chart.metadata.dependencies.iter())
            .filter(|wanted| {
                !chart
                    .dependencies
                    .iter()
                    .any(|had| had.name() == wanted.name)
            })
            .filter(|wanted| {
                !wanted.repository.is_empty() && !wanted.repository.starts_with("file://")
            })
            .cloned()
            .collect();
        if missing.is_empty() {
            return Ok(());
        }
        if depth >= MAX_DEPENDENCY_DEPTH {
            return Err(HelmRenderError::Failed(format!(
                "chart {}: dependencies nest more than {MAX_DEPENDENCY_DEPTH} deep",
                chart.name()
            )));
        }
        for dependency in missing {
            let oci = dependency.repository.starts_with("oci://");
            let request = RepositoryChart {
                kind: if oci {
                    super::helmrelease::RepositoryKind::Oci
                } else {
                    super::helmrelease::RepositoryKind::Http
                },
                url: dependency.repository.clone(),
                chart: dependency.name.clone(),
                version: dependency.version.clone(),
                auth: None,
                insecure: false,
            };
            let carried = if packaged {
                " (the package a repository serves carries it)"
            } else {
                ""
            };
            let unavailable = |why: String| {
                HelmRenderError::DependencyUnavailable(format!(
                    "chart {} {}: its dependency {} {} from {} is not in its `charts/` directory{carried}, and {why}",
                    chart.name(),
                    chart.metadata.version,
                    dependency.name,
                    dependency.version,
                    dependency.repository
                ))
            };
            let mut loaded = match repository_chart(&request, self, options) {
                Ok(loaded) => loaded,
                Err(
                    HelmRenderError::Unavailable(why) | HelmRenderError::DependencyUnavailable(why),
                ) => return Err(unavailable(why)),
                Err(other) => return Err(other),
            };
            self.complete_dependencies(&mut loaded, options, true, depth + 1)?;
            chart.dependencies.push(loaded);
        }
        chart.dependencies.sort_by(|a, b| a.name().cmp(b.name()));
        Ok(())
    }
}

impl HelmEngine {
    /// The values paths the chart at `location` reads, analysed on first use.
    fn values_usage(
        &self,
        location: &ChartLocation,
        chart: &helm::Chart,
    ) -> Arc<helm::ValuesUsage> {
        let key = format!("{location:?}");
        let known = self.values_usage.locked().get(&key).cloned();
        if let Some(known) = known {
            return known;
        }
        let usage = Arc::new(helm::ValuesUsage::of(chart));
        {
            let mut usages = self.values_usage.locked();
            usages.insert(key, usage.clone());
        }
        usage
    }
}

impl HelmRenderer for HelmEngine {
    fn holds(&self, chart: &RepositoryChart) -> bool {
        self.chart_cache.as_deref().is_some_and(|dir| {
            let listing = self
                .chart_cache_listing
                .get_or_init(|| crate::helm::repo::ChartCacheListing::read(dir).ok());
            listing.as_ref().is_some_and(|listing| {
                matches!(listing.locate(&chart.chart, &chart.version), Ok(Some(_)))
            })
        })
    }

    fn render(&self, request: &HelmRenderRequest) -> Result<RenderedRelease, HelmRenderError> {
        // Held until the render ends: its bytes stay charged meanwhile.
        let held = self.chart(&request.chart)?;
        let mut chart = held.chart.clone();
        if !request.values_files.is_empty() {
            chart.values = values_files(request, &chart)?;
        }
        // The values keys the chart never reads: kept with a render in the cache, and worked out
        // (reading every template of the chart) only for a render that is not.
        let unread_values = || {
            self.values_usage(&request.chart, &chart)
                .unread_keys(&chart, &request.values)
        };
        let chart_label = format!("{} {}", chart.metadata.name, chart.metadata.version);
        let mut options = helm::RenderOptions::new(&request.release_name, &request.namespace);
        if let Some(version) = &request.kube_version {
            options.kube_version = helm::KubeVersion::parse(version)
                .map_err(|e| HelmRenderError::Failed(e.to_string()))?;
        }
        options.include_crds = request.include_crds;
        options.no_hooks = request.disable_hooks;
        options.skip_tests = true;
        options.validate_schema = !request.disable_schema_validation;
        options.run = self.budget.clone();
        let described = format!(
            "Helm install failed for release {}/{} with chart {}@{}",
            request.namespace, request.release_name, chart.metadata.name, chart.metadata.version
        );
        // A chart directory in the source: a template's failure is shown at its file.
        let chart_dir = match &request.chart {
            ChartLocation::Local { root, path } => Some(secure_join(root, path)),
            ChartLocation::Repository(_) => None,
        };
        let cached = self.render_cache.as_ref().map(|cache| {
            let key = helm::render_key_of(held.digest(), &chart, &request.values, &options);
            let key = cache.key(&key);
            (cache, key)
        });
        // A render read back charges the run's budget what rendering it charged, so what a run
        // decides does not depend on what the cache holds; one the budget cannot take is
        // rendered afresh, and stops where a run without the cache would.
        let hit = (cached.as_ref())
            .and_then(|(cache, key)| cache.get(key))
            .filter(|entry| self.budget.can_take(&entry.needed))
            // Another render may have taken the room since: then this one is rendered afresh.
            .filter(|entry| self.budget.charge_all(&entry.charged));
        let (rendered, unread_values) = match hit {
            Some(entry) => (Ok(entry.rendered), entry.unread_values),
            None => {
                let unread_values = unread_values();
                let tally = cached.as_ref().map(|_| {
                    let tally = Arc::new(crate::budget::RunBudget::tally_of(self.budget.clone()));
                    options.run = tally.clone();
                    tally
                });
                let rendered =
                    helm::template(chart, &request.values, &options).inspect(|rendered| {
                        if let Some(((cache, key), tally)) = cached.as_ref().zip(tally) {
                            cache.put(key, rendered, &tally, &unread_values);
                        }
                    });
                (rendered, unread_values)
            }
        };
        let rendered = rendered.map_err(|e| {
            let message = format!("{described}: {e}");
            if let helm::Error::TemplateAfterLookup(_) = e {
                return HelmRenderError::NeedsCluster(message);
            }
            let at = chart_dir
                .as_deref()
                .zip(e.template_site())
                .and_then(|(dir, site)| Some((template_file(dir, &site.template)?, site.line)));
            match at {
                Some((file, line)) => HelmRenderError::FailedAt {
                    message,
                    file,
                    line: u32::try_from(line).unwrap_or(u32::MAX),
                },
                None => HelmRenderError::Failed(message),
            }
        })?;
        // A template can print aliases too: their expansion is charged to the run's budget.
        let parse_options = crate::yaml::ParseOptions {
            run: Some(self.budget.clone()),
            ..crate::yaml::ParseOptions::default()
        };
        let parse = |manifests: &[&helm::Manifest]| -> Result<Vec<Node>, HelmRenderError> {
            let mut nodes = Vec::new();
            for manifest in manifests {
                // Helm joins the trimmed manifests each followed by a newline (a release's
                // manifest, `helm template`): a block scalar ending a manifest keeps its newline
                let documents =
                    crate::yaml::parse_stream(&format!("{}\n", manifest.content), &parse_options)
                        .map_err(|e| {
                        HelmRenderError::Failed(format!(
                            "{described}: YAML parse error on {}: {e}",
                            manifest.source
                        ))
                    })?;
                nodes.extend(
                    documents
                        .into_iter()
                        .map(|d| d.into_root())
                        .filter(|n| !n.is_null()),
                );
            }
            Ok(nodes)
        };
        let crds: Vec<&helm::Manifest> = if options.include_crds {
            rendered.crds.iter().collect()
        } else {
            Vec::new()
        };
        let objects: Vec<&helm::Manifest> = rendered
            .applied(&options)
            .into_iter()
            .filter(|m| !rendered.crds.iter().any(|c| std::ptr::eq(c, *m)))
            .collect();
        Ok(RenderedRelease {
            crds: parse(&crds)?,
            objects: parse(&objects)?,
            chart: chart_label,
            unread_values,
        })
    }
}

/// Rendered releases kept across runs (`<download cache>/renders/<key>`), keyed by the SHA-256 of
/// the program's build and everything the render read (`helm::render_key`): an entry is only
/// ever read back for the same inputs by the same build. An entry also holds what its render
/// charged the run's budget, charged again when it is read back, so that what a run decides does
/// not depend on what the cache holds. An entry that does not read is a miss; one that cannot be
/// written is not kept.
#[derive(Clone, Debug)]
pub struct RenderCache {
    pub dir: PathBuf,
    /// What tells this program's builds apart (version, commit, the binary's size and time).
    pub build: String,
}

impl RenderCache {
    /// Entries larger than this are neither written nor read.
    const MAX_ENTRY_BYTES: u64 = 256 << 20;

    fn key(&self, render_key: &str) -> String {
        use sha2::Digest as _;
        let mut hasher = sha2::Sha256::new();
        hasher.update(self.build.as_bytes());
        hasher.update(b"\0");
        hasher.update(render_key.as_bytes());
        hex::encode(hasher.finalize())
    }

    fn get(&self, key: &str) -> Option<CachedRender> {
        let confine = crate::fsio::Confine {
            root: Some(&self.dir),
            max_bytes: Self::MAX_ENTRY_BYTES,
        };
        let text = crate::fsio::read_to_string(
            &crate::fsio::FsFacts::default(),
            &self.dir.join(key),
            confine,
        )
        .ok()?;
        // The first line says what the render charged the run's budget and the most it checked
        // there was room for (by flag), the second the values keys the chart does not read, the
        // rest is the render.
        let (budget, rest) = text.split_once('\n')?;
        let (unread_values, rendered) = rest.split_once('\n')?;
        let budget: std::collections::BTreeMap<String, [u64; 2]> =
            serde_json::from_str(budget).ok()?;
        let mut entry = CachedRender {
            charged: Vec::new(),
            needed: Vec::new(),
            unread_values: serde_json::from_str(unread_values).ok()?,
            rendered: helm::rendered_from_json(rendered)?,
        };
        for (flag, [charged, checked]) in budget {
            let resource = (crate::budget::Resource::ALL.into_iter()).find(|r| r.flag() == flag)?;
            entry.charged.push((resource, charged));
            entry.needed.push((resource, charged.max(checked)));
        }
        Some(entry)
    }

    fn put(
        &self,
        key: &str,
        rendered: &helm::Rendered,
        tally: &crate::budget::RunBudget,
        unread_values: &[Vec<String>],
    ) {
        let budget: std::collections::BTreeMap<&str, [u64; 2]> = (crate::budget::Resource::ALL
            .into_iter())
        .map(|r| (r.flag(), [tally.used(r), tally.checked(r)]))
        .filter(|(_, amounts)| amounts.iter().any(|&a| a > 0))
        .collect();
        let (Ok(budget), Ok(unread_values)) = (
            serde_json::to_string(&budget),
            serde_json::to_string(unread_values),
        ) else {
            return;
        };
        let text = format!(
            "{budget}\n{unread_values}\n{}",
            helm::rendered_to_json(rendered)
        );
        if text.len() as u64 <= Self::MAX_ENTRY_BYTES {
            let _ = crate::fsio::write_atomically(&self.dir.join(key), text.as_bytes());
        }
    }
}

/// A render read back from the [`RenderCache`], with what rendering it charged the run's budget
/// and what the run's budget had to have room for (the most of what it charged and checked).
struct CachedRender {
    charged: Vec<(crate::budget::Resource, u64)>,
    needed: Vec<(crate::budget::Resource, u64)>,
    /// The values keys the chart does not read (`helm::ValuesUsage::unread_keys`): like the
    /// render, a function of what the key holds.
    unread_values: Vec<Vec<String>>,
    rendered: helm::Rendered,
}

/// The file in the chart directory `dir` of a template Helm names `chart/templates/x.yaml` (a
/// vendored subchart's `chart/charts/sub/templates/x.yaml`), when it is a file there.
fn template_file(dir: &Path, template: &str) -> Option<PathBuf> {
    let (_, inside) = template.split_once('/')?;
    let file = secure_join(dir, inside);
    crate::fsio::FsFacts::default()
        .is_file(&file)
        .then_some(file)
}

/// A chart directory or `.tgz` inside the working tree.
fn load_local(
    root: &Path,
    path: &str,
    options: &helm::LoadOptions,
) -> Result<helm::Chart, HelmRenderError> {
    let location = secure_join(root, path);
    let facts = crate::fsio::FsFacts::default();
    let Ok(real) = crate::fsio::locate(&facts, &location, Some(root)) else {
        return Err(HelmRenderError::Failed(format!(
            "chart path `{path}` not found in the source"
        )));
    };
    if facts.is_dir(&real) {
        return helm::load_dir(&location, options)
            .map_err(|e| HelmRenderError::Failed(e.to_string()));
    }
    let confine = crate::fsio::Confine {
        root: Some(root),
        max_bytes: options.max_archive_bytes,
    };
    let bytes = crate::fsio::read(&facts, &location, confine)
        .map_err(|e| HelmRenderError::Failed(format!("reading chart {e}")))?;
    helm::load_archive(path, &bytes, options).map_err(|e| HelmRenderError::Failed(e.to_string()))
}

/// `valuesFiles` merged in order, in place of the chart's `values.yaml`: relative to the source
/// root for a chart from the working tree, inside the chart for a repository chart.
fn values_files(
    request: &HelmRenderRequest,
    chart: &helm::Chart,
) -> Result<crate::template::Value, HelmRenderError> {
    let mut merged = crate::template::Value::Map(Default::default());
    for file in &request.values_files {
        let text = match &request.chart {
            ChartLocation::Local { root, .. } => {
                let path = secure_join(root, file);
                let facts = crate::fsio::FsFacts::default();
                match crate::fsio::read_to_string(&facts, &path, crate::fsio::Confine::within(root))
                {
                    Ok(text) => Some(text),
                    Err(crate::fsio::ReadError {
                        kind: crate::fsio::ReadErrorKind::NotFound,
                        ..
                    }) => None,
                    Err(e) => {
                        return Err(HelmRenderError::Failed(format!(
                            "values files merge error: values file {e}"
                        )))
                    }
                }
            }
            ChartLocation::Repository(_) => {
                let wanted = file.trim_start_matches("./");
                if wanted == "values.yaml" {
                    // The chart's own values are already parsed; they are not among its files.
                    merged = crate::helm::values::merge_maps(merged, chart.values.clone());
                    continue;
                }
                chart
                    .files
                    .iter()
                    .find(|f| f.name == wanted)
                    .and_then(|f| String::from_utf8(f.data.to_vec()).ok())
            }
        };
        let Some(text) = text else {
            if request.ignore_missing_values_files {
                continue;
            }
            return Err(HelmRenderError::Failed(format!(
                "values files merge error: no values file found at path '{file}'"
            )));
        };
        let values = helm::values::from_yaml(&text, file)
            .map_err(|e| HelmRenderError::Failed(format!("values files merge error: {e}")))?;
        merged = crate::helm::values::merge_maps(merged, values);
    }
    Ok(merged)
}

/// A chart from a Helm repository or an OCI registry: from the chart cache, or fetched (and kept
/// in the download cache by digest) unless offline.
pub(crate) fn repository_chart(
    chart: &RepositoryChart,
    engine: &HelmEngine,
    load_options: &helm::LoadOptions,
) -> Result<helm::Chart, HelmRenderError> {
    let loaded = match fetch_repository_chart(chart, engine)? {
        helm::repo::FetchedChart::Directory { path, .. } => helm::load_dir(&path, load_options),
        helm::repo::FetchedChart::Archive { name, bytes, .. } => {
            helm::load_archive(&name, &bytes, load_options)
        }
    };
    loaded.map_err(|e| HelmRenderError::Failed(e.to_string()))
}

/// Finds (or downloads) a repository chart without loading it: a directory of the chart cache or
/// an archive's bytes.
pub fn fetch_repository_chart(
    chart: &RepositoryChart,
    engine: &HelmEngine,
) -> Result<helm::repo::FetchedChart, HelmRenderError> {
    use super::helmrelease::RepositoryKind;
    use crate::helm::repo::{self, ChartRequest, FetchOptions, Repository};
    let oci = |url: &str| Repository::Oci {
        url: url.to_owned(),
        auth: chart.auth.clone(),
        insecure_http: chart.insecure,
    };
    let (repository, name) = match chart.kind {
        RepositoryKind::Http => (
            Repository::Http {
                url: chart.url.clone(),
                auth: chart.auth.clone(),
            },
            chart.chart.clone(),
        ),
        RepositoryKind::Oci => (oci(&chart.url), chart.chart.clone()),
        // The artifact URL names the chart itself.
        RepositoryKind::OciArtifact => (oci(&chart.url), String::new()),
    };
    let request = ChartRequest {
        repository,
        chart: name,
        version: chart.version.trim_start_matches('@').to_string(),
    };
    let options = FetchOptions {
        chart_cache: engine.chart_cache.clone(),
        download_cache: engine.download_cache.clone(),
        offline: engine.offline,
        allow_private_network: engine.allow_private_network,
        idle_timeout_secs: engine
            .network_idle_timeout_secs
            .unwrap_or(repo::DEFAULT_IDLE_TIMEOUT_SECS),
        deadline: engine.network_deadline,
        proxy: engine.proxy.clone(),
        ..FetchOptions::default()
    };
    repo::fetch(&request, &options).map_err(|e| {
        // A repository this machine cannot reach says nothing of the chart: say what works here.
        let hint = if e.kind().is_unreachable() && !engine.offline {
            " (this machine cannot reach it: give the chart with `--chart-cache DIR`, and `--offline` to make no request)"
        } else {
            ""
        };
        HelmRenderError::Unavailable(format!("{e}{hint}"))
    })
}
