//! Options of the commands that reconcile a repository (`test`, `build`, `render`), and running it.

use std::collections::BTreeMap;
use std::path::PathBuf;

use super::repo_args::RepoArgs;
use crate::controllers::engine::{HelmEngine, KustomizeEngine};
use crate::controllers::runtime::{self, RunOptions, RunReport};
use crate::controllers::source_map::SourceMapping;
use crate::diagnostic::Diagnostic;
use crate::discovery::Repository;
use crate::selection::scope::Target;

/// The most workers a run may ask for: each is a thread, and more than the cores only queue.
const MAX_CONCURRENCY: i64 = 128;

/// The run's budget (`crate::budget::Limits`), each limit with its flag.
#[derive(clap::Args, Debug, Clone)]
#[command(next_help_heading = "Run budget")]
pub struct BudgetArgs {
    /// Steps one template execution may take (actions, loop iterations, function calls; key
    /// generation and password hashing count as many) [default: 20000000].
    #[arg(long, value_name = "N")]
    pub max_template_steps: Option<u64>,
    /// Objects the run's producers may hold at once, over the whole run [default: 50000].
    #[arg(long, value_name = "N")]
    pub max_rendered_objects: Option<u64>,
    /// Bytes chart and ResourceSet templates may render, over the whole run
    /// [default: 268435456].
    #[arg(long, value_name = "BYTES")]
    pub max_rendered_bytes: Option<u64>,
    /// YAML nodes aliases and merge keys may expand to, over the whole run (every file and
    /// document together) [default: 2000000].
    #[arg(long, value_name = "N")]
    pub max_alias_nodes: Option<u64>,
    /// Bytes of files extracted from archives (charts, artifacts) and inflated from git objects,
    /// over the whole run [default: 1073741824].
    #[arg(long, value_name = "BYTES")]
    pub max_extracted_bytes: Option<u64>,
    /// Bytes of loaded charts (their files, subcharts included) held at once; charts no
    /// release is rendering are let go first, then renders in flight are waited for
    /// [default: 536870912].
    #[arg(long, value_name = "BYTES")]
    pub max_loaded_chart_bytes: Option<u64>,
}

impl BudgetArgs {
    /// The limits these flags ask for, the defaults elsewhere.
    pub(crate) fn limits(&self) -> crate::budget::Limits {
        let default = crate::budget::Limits::default();
        crate::budget::Limits {
            template_steps: self.max_template_steps.unwrap_or(default.template_steps),
            rendered_objects: self
                .max_rendered_objects
                .unwrap_or(default.rendered_objects),
            rendered_bytes: self.max_rendered_bytes.unwrap_or(default.rendered_bytes),
            alias_nodes: self.max_alias_nodes.unwrap_or(default.alias_nodes),
            extracted_bytes: self.max_extracted_bytes.unwrap_or(default.extracted_bytes),
            loaded_chart_bytes: self
                .max_loaded_chart_bytes
                .unwrap_or(default.loaded_chart_bytes),
        }
    }
}

#[derive(clap::Args, Debug, Clone)]
pub struct RunArgs {
    #[command(flatten)]
    pub repo: RepoArgs,
    /// Objects reconciled at once, 1 to 128 [default: the number of cores].
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..=MAX_CONCURRENCY))]
    pub concurrency: Option<u16>,
    /// Report consumers of sources that cannot be had offline as SKIPPED instead of failed.
    #[arg(long)]
    pub allow_missing_sources: bool,
    /// An unset `${VAR}` without a default fails the Kustomization (Flux's strict mode).
    #[arg(long)]
    pub strict_substitutions: bool,
    /// A post-build variable only the cluster holds, as `NAME=VALUE` (repeatable).
    #[arg(long = "substitute", value_name = "NAME=VALUE")]
    pub substitute: Vec<String>,
    /// A file of ConfigMaps/Secrets only the cluster holds, for `substituteFrom` (repeatable).
    #[arg(long = "substitute-from", value_name = "FILE")]
    pub substitute_from: Vec<PathBuf>,
    /// Replace every value that came from a Secret (`substituteFrom` and `valuesFrom` Secrets, in
    /// the repository or `--substitute-from`) by `offlux-redacted` wherever it lands, string
    /// operators (`${TOKEN:0:6}`, `${TOKEN^^}`) included. Flux itself applies the values; use
    /// this where output goes to a CI log or a pull request.
    #[arg(long)]
    pub redact_secret_values: bool,
    /// The Kubernetes version charts are rendered for (`.Capabilities.KubeVersion`).
    #[arg(long, value_name = "VERSION")]
    pub kube_version: Option<String>,
    /// A directory of charts (`<chart>-<version>/` or `<chart>-<version>.tgz`) used before any
    /// repository.
    #[arg(long, value_name = "DIR", env = "OFFLUX_CHART_CACHE")]
    pub chart_cache: Option<PathBuf>,
    /// Never fetch charts over the network; what the cache lacks is reported missing.
    #[arg(long)]
    pub offline: bool,
    /// Let chart fetches reach loopback, link-local and private addresses (refused by default: a
    /// repository under review must not make this machine call its internal services).
    #[arg(long)]
    pub allow_private_network: bool,
    /// Seconds a chart fetch may wait for its next bytes before it fails [default: 15].
    #[arg(long, value_name = "SECS", value_parser = clap::value_parser!(u64).range(1..))]
    pub network_idle_timeout: Option<u64>,
    /// Seconds the whole run may spend on the network: a chart fetch after that fails, naming
    /// its URL, and one in flight is cut [default: 300].
    #[arg(long, value_name = "SECS", value_parser = clap::value_parser!(u64).range(1..))]
    pub network_deadline: Option<u64>,
    #[command(flatten)]
    pub budget: BudgetArgs,
    /// A kind whose objects create a Secret of their own name in the cluster, so a HelmRelease's
    /// `valuesFrom` that Secret is left out with a note (repeatable; ExternalSecret and
    /// SealedSecret are always known).
    #[arg(long = "secret-producer", value_name = "KIND")]
    pub secret_producers: Vec<String>,
    /// Fill an env file's bare keys (a line `KEY` without `=`) from offlux's own environment, as
    /// kustomize does. Off by default: a repository under review must not read CI secrets.
    #[arg(long)]
    pub env_from_process: bool,
    /// The inputs of a ResourceSetInputProvider that cannot be queried offline (GitHub, GitLab,
    /// OCI...), as `[NAMESPACE/]NAME=FILE`: a YAML list of input maps (repeatable).
    #[arg(long = "resourceset-inputs", value_name = "PROVIDER=FILE")]
    pub resourceset_inputs: Vec<String>,
    /// Read a source from a local directory, as the working tree is read: `NAME=DIR` maps every
    /// GitRepository, OCIRepository, Bucket or ExternalArtifact of that name, `KIND/NAMESPACE/NAME=DIR`
    /// one; a `NAME` alone is the repository itself, as in flux-local (comma-separated or
    /// repeated; also `sources:` in `.offlux.yaml`).
    #[arg(long = "sources", value_name = "NAME[=DIR][,...]")]
    pub sources: Vec<String>,
}

/// `--changed-only` and the revision it compares against.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct ChangedArgs {
    /// Reconcile and report only the producers a change since the base revision can affect
    /// (their files, components, values, charts and the data they read changed), what depends on
    /// them and what creates them; the working tree is compared with the base in git.
    #[arg(long)]
    pub changed_only: bool,
    /// With `--changed-only`: the revision compared against [default: the merge base of HEAD
    /// with `origin/HEAD`, else `main` or `master`].
    #[arg(long, value_name = "REF", requires = "changed_only")]
    pub base: Option<String>,
}

/// What `--changed-only` left out, for the outputs that say so.
#[derive(Clone, Debug, serde::Serialize)]
pub(crate) struct LeftOut {
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
    /// The note on stderr.
    pub(crate) fn print(&self, context: &super::Context) {
        super::report::eprint(context, &format!("note: {}\n", self.sentence()));
    }

    /// What was left out, in one sentence.
    pub(crate) fn sentence(&self) -> String {
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

/// The `sources:` map of `.offlux.yaml` (`NAME` or `KIND/NAMESPACE/NAME` to a directory relative
/// to the repository root).
fn configured_sources(root: &std::path::Path) -> Result<Vec<SourceMapping>, String> {
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
            SourceMapping::new(key, root.join(dir))
                .map_err(|e| format!("`{}`: sources: {e}", path.display()))
        })
        .collect()
}

impl RunArgs {
    /// Discovers and reconciles. Errors are about the invocation (exit code 2).
    pub fn run(&self) -> Result<(Repository, RunReport), String> {
        self.run_scoped(Vec::new())
    }

    /// [`RunArgs::run`] for a command about `scope` only (all of the repository when empty).
    pub(crate) fn run_scoped(&self, scope: Vec<Target>) -> Result<(Repository, RunReport), String> {
        let repository = self.discover()?;
        self.run_discovered(repository, scope)
    }

    /// [`RunArgs::run_scoped`] on a repository already discovered, with `--changed-only`: only
    /// the producers a change since the base revision can affect are reconciled and reported
    /// (see `controllers::changed`); what was left out is said on stderr. (The caller prints the
    /// note a narrowed run ends with: `LeftOut::print`.)
    pub(crate) fn run_changed_discovered(
        &self,
        changed: &ChangedArgs,
        scope: Vec<Target>,
        repository: Repository,
    ) -> Result<(Repository, RunReport, Option<LeftOut>), String> {
        if !changed.changed_only {
            let (repository, report) = self.run_discovered(repository, scope)?;
            return Ok((repository, report, None));
        }
        let start = self.repo.root.as_ref().unwrap_or(&self.repo.path);
        // The base revision's objects are charged to the run's budget (bytes extracted).
        let changes = crate::selection::changed::Changes::working_tree(
            start,
            changed.base.as_deref(),
            repository.budget.clone(),
        )?;
        let files = changes.under(&repository.root);
        let selection = crate::selection::changed::select(
            &repository,
            &files,
            crate::selection::changed::SelectOptions::default(),
        );
        let (repository, report, left_out) =
            self.run_selection(repository, &selection, &changes.base_label)?;
        Ok((repository, report, Some(left_out)))
    }

    /// Runs `repository` as `selection` asks: whole when it says so, not at all when it selects
    /// nothing, else narrowed to it; the report keeps only the selected producers.
    pub(crate) fn run_selection(
        &self,
        repository: Repository,
        selection: &crate::selection::changed::Selection,
        base_label: &str,
    ) -> Result<(Repository, RunReport, LeftOut), String> {
        let mapped = !self.sources.is_empty() || !configured_sources(&repository.root)?.is_empty();
        let full = selection.full.clone().or_else(|| {
            mapped.then(|| "sources are read from other directories (`--sources`)".to_owned())
        });
        if let Some(reason) = &full {
            let (repository, report) = self.run_discovered(repository, Vec::new())?;
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
            Some(targets) => self.run_discovered(repository, targets)?,
            None => (repository, RunReport::default()),
        };
        let count = crate::selection::changed::retain(&mut report, selection, &repository);
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

    /// Discovers the repository with the source mappings (`--sources`, `.offlux.yaml`), so that a
    /// Kustomization of a mapped source has its `spec.path` followed there.
    pub(crate) fn discover(&self) -> Result<Repository, String> {
        let mut options = crate::discovery::Options::new(&self.repo.path);
        // One budget for the run, discovery's reading of the files included.
        options.budget = Some(std::sync::Arc::new(crate::budget::RunBudget::new(
            self.budget.limits(),
        )));
        options.root = self.repo.root.clone();
        let root = crate::discovery::repository_root(&options).map_err(|e| e.to_string())?;
        options.sources = self.source_mappings(&root)?;
        crate::discovery::discover(&options).map_err(|e| e.to_string())
    }

    /// `--sources` (first, so they win) and the `sources:` of `.offlux.yaml`.
    fn source_mappings(&self, root: &std::path::Path) -> Result<Vec<SourceMapping>, String> {
        let mut source_dirs = Vec::new();
        for list in &self.sources {
            source_dirs.extend(
                SourceMapping::parse_list(list, root).map_err(|e| format!("`--sources`: {e}"))?,
            );
        }
        source_dirs.extend(configured_sources(root)?);
        Ok(source_dirs)
    }

    /// Reconciles a repository already discovered, for a command about `scope` only.
    pub(crate) fn run_discovered(
        &self,
        mut repository: Repository,
        scope: Vec<Target>,
    ) -> Result<(Repository, RunReport), String> {
        let mut user_values = BTreeMap::new();
        for pair in &self.substitute {
            let (name, value) = pair
                .split_once('=')
                .ok_or_else(|| format!("`--substitute {pair}` must be NAME=VALUE"))?;
            user_values.insert(name.to_owned(), value.to_owned());
        }
        let mut extra_objects = Vec::new();
        let mut diagnostics = Vec::new();
        for file in &self.substitute_from {
            let facts = crate::fsio::FsFacts::default();
            let text = crate::fsio::read_to_string(&facts, file, crate::fsio::Confine::anywhere())
                .map_err(|e| format!("cannot read {e}"))?;
            let objects = crate::model::parse_objects(&text, file).map_err(|e| e.to_string())?;
            for object in objects {
                if matches!(object.id.kind.as_str(), "ConfigMap" | "Secret") {
                    extra_objects.push(object);
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
        let resourceset_inputs = read_resourceset_inputs(&self.resourceset_inputs)?;
        if let Some(version) = &self.kube_version {
            crate::helm::KubeVersion::parse(version)
                .map_err(|e| format!("`--kube-version {version}`: {e}"))?;
        }
        // The command line's mappings come first, so they win over the file's.
        let source_dirs = self.source_mappings(&repository.root)?;
        repository.diagnostics.extend(diagnostics);
        let cancel = crate::controllers::runtime::CancelToken::default();
        let budget = repository.budget.clone().unwrap_or_else(|| {
            std::sync::Arc::new(crate::budget::RunBudget::new(self.budget.limits()))
        });
        // The scheduler starts nothing new once cancelled; engines in the middle of work (a
        // template in a loop) see the budget's flag and stop.
        super::interrupt::watch(&cancel);
        super::interrupt::watch_budget(&budget);
        let bar = std::io::IsTerminal::is_terminal(&std::io::stderr()).then(|| {
            let bar = indicatif::ProgressBar::new(0);
            bar.set_style(
                indicatif::ProgressStyle::with_template(
                    "{spinner} reconciling {pos}/{len} Flux objects",
                )
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
            );
            bar
        });
        let progress = bar.clone().map(|bar| {
            std::sync::Arc::new(move |done: usize, known: usize| {
                bar.set_length(known as u64);
                bar.set_position(done as u64);
            }) as std::sync::Arc<dyn Fn(usize, usize) + Send + Sync>
        });
        let options = RunOptions {
            progress,
            cancel,
            budget: budget.clone(),
            concurrency: self.concurrency.map(usize::from),
            allow_missing_sources: self.allow_missing_sources,
            strict_substitutions: self.strict_substitutions,
            user_values,
            redact_secret_values: self.redact_secret_values,
            extra_objects,
            kube_version: self.kube_version.clone(),
            chart_cache: self.chart_cache.clone(),
            offline: self.offline,
            secret_producer_kinds: self.secret_producers.clone(),
            resourceset_inputs,
            source_dirs,
            scope,
        };
        let helm = HelmEngine {
            chart_cache: options.chart_cache.clone(),
            offline: options.offline,
            allow_private_network: self.allow_private_network,
            network_idle_timeout_secs: self.network_idle_timeout,
            network_deadline: Some(crate::helm::repo::NetworkDeadline::after(
                self.network_deadline
                    .unwrap_or(crate::helm::repo::DEFAULT_NETWORK_DEADLINE_SECS),
            )),
            download_cache: download_cache(),
            budget,
            ..HelmEngine::default()
        };
        let kustomize = KustomizeEngine {
            process_env: self.env_from_process.then(process_environment),
            budget: Some(options.budget.clone()),
            ..KustomizeEngine::for_repository(&repository)
        };
        let report = runtime::run(&repository, &kustomize, &helm, &options);
        if let Some(bar) = bar {
            bar.finish_and_clear();
        }
        Ok((repository, report))
    }
}

/// offlux's own environment (its UTF-8 variables), for `--env-from-process`.
pub(crate) fn process_environment() -> std::sync::Arc<BTreeMap<String, String>> {
    std::sync::Arc::new(
        std::env::vars_os()
            .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
            .collect(),
    )
}

/// Reads `--resourceset-inputs PROVIDER=FILE` pairs: each file a YAML list of input maps (or
/// one map).
fn read_resourceset_inputs(pairs: &[String]) -> Result<runtime::SuppliedInputs, String> {
    let mut supplied = runtime::SuppliedInputs::new();
    for pair in pairs {
        let (provider, file) = pair
            .split_once('=')
            .ok_or_else(|| format!("`--resourceset-inputs {pair}` must be PROVIDER=FILE"))?;
        let text = crate::fsio::read_to_string(
            &crate::fsio::FsFacts::default(),
            std::path::Path::new(file),
            crate::fsio::Confine::anywhere(),
        )
        .map_err(|e| format!("cannot read {e}"))?;
        let documents = crate::yaml::parse_stream(&text, &crate::yaml::ParseOptions::default())
            .map_err(|e| format!("`{file}`: {e}"))?;
        let mut sets = Vec::new();
        for document in &documents {
            match crate::resourceset::yaml_to_json(&document.root) {
                serde_json::Value::Array(items) => {
                    for item in items {
                        match item {
                            serde_json::Value::Object(set) => sets.push(set),
                            _ => return Err(format!("`{file}`: each input must be a map")),
                        }
                    }
                }
                serde_json::Value::Object(set) => sets.push(set),
                serde_json::Value::Null => {}
                _ => return Err(format!("`{file}`: expected a list of input maps")),
            }
        }
        supplied.insert(provider.to_owned(), sets);
    }
    Ok(supplied)
}

/// Where downloaded charts are kept across runs: `$XDG_CACHE_HOME/offlux/charts`, else
/// `~/.cache/offlux/charts` (on Windows `%LOCALAPPDATA%\\offlux\\charts`). Only absolute
/// directories count (an empty or relative `HOME` would put the cache in the working directory,
/// perhaps the repository); with none, downloads are not kept and nothing else changes.
fn download_cache() -> Option<PathBuf> {
    download_cache_from(&|name| std::env::var_os(name))
}

fn download_cache_from(var: &dyn Fn(&str) -> Option<std::ffi::OsString>) -> Option<PathBuf> {
    let absolute = |name: &str| var(name).map(PathBuf::from).filter(|p| p.is_absolute());
    let base = absolute("XDG_CACHE_HOME")
        .or_else(|| absolute("HOME").map(|home| home.join(".cache")))
        .or_else(|| cfg!(windows).then(|| absolute("LOCALAPPDATA")).flatten())?;
    Some(base.join("offlux").join("charts"))
}

#[cfg(test)]
mod tests {
    use super::*;

    // Absolute paths in the Unix form.
    #[cfg(unix)]
    #[test]
    fn the_download_cache_needs_no_home() {
        let with = |pairs: &'static [(&'static str, &'static str)]| {
            download_cache_from(&move |name| {
                pairs
                    .iter()
                    .find(|(k, _)| *k == name)
                    .map(|(_, v)| std::ffi::OsString::from(*v))
            })
        };
        assert_eq!(with(&[]), None);
        assert_eq!(with(&[("HOME", "")]), None);
        assert_eq!(with(&[("HOME", "relative")]), None);
        assert_eq!(
            with(&[("HOME", "/home/u")]),
            Some(PathBuf::from("/home/u/.cache/offlux/charts"))
        );
        assert_eq!(
            with(&[("HOME", "/home/u"), ("XDG_CACHE_HOME", "/c")]),
            Some(PathBuf::from("/c/offlux/charts"))
        );
        assert_eq!(
            with(&[("HOME", "/home/u"), ("XDG_CACHE_HOME", "rel")]),
            Some(PathBuf::from("/home/u/.cache/offlux/charts"))
        );
    }
}
