//! Options of the commands that reconcile a repository (`test`, `build`, `render`...): the flags,
//! turned into the library's `orchestrator::Config`, and the runs they ask for (with a progress
//! display and the process's signals watched).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use super::repo_args::RepoArgs;
use crate::controllers::runtime::RunReport;
use crate::discovery::Repository;
use crate::orchestrator::{Config, Orchestrator, RunError};
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
    /// Never fetch charts or sources over the network; what the caches lack is reported missing.
    #[arg(long)]
    pub offline: bool,
    /// Let fetches (charts, sources) reach loopback, link-local and private addresses (refused by default: a
    /// repository under review must not make this machine call its internal services).
    #[arg(long)]
    pub allow_private_network: bool,
    /// Send every fetch through this proxy (`http://host:port`, `socks5://host:port`). No proxy is
    /// ever taken from `HTTP_PROXY` and the like; the egress check then applies to the proxy's
    /// address and to targets named by an address (a host name is the proxy's to resolve).
    #[arg(long, value_name = "URL", env = "OFFLUX_PROXY")]
    pub proxy: Option<String>,
    /// A docker configuration file (`{"auths": {...}}`, as `docker login` writes it) whose
    /// credentials OCI sources without a `secretRef` use. Your own `~/.docker/config.json` is
    /// never read unless named here: a repository under review would otherwise choose what your
    /// credentials fetch.
    #[arg(long, value_name = "FILE", env = "OFFLUX_REGISTRY_CONFIG")]
    pub registry_config: Option<PathBuf>,
    /// Render every HelmRelease afresh: neither read nor keep rendered releases in the cache
    /// (kept by default, keyed by everything a render reads and by this build of offlux).
    #[arg(long, env = "OFFLUX_NO_CACHE")]
    pub no_cache: bool,
    /// Seconds a fetch may wait for its next bytes before it fails [default: 15].
    #[arg(long, value_name = "SECS", value_parser = clap::value_parser!(u64).range(1..))]
    pub network_idle_timeout: Option<u64>,
    /// Seconds the whole run may spend on the network: a fetch after that fails, naming
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

pub(crate) use crate::orchestrator::LeftOut;

/// Says on stderr what a run narrowed to what changed left out.
pub(crate) fn print_left_out(left_out: &LeftOut, context: &super::Context) {
    super::report::eprint(context, &format!("note: {}\n", left_out.sentence()));
}

impl RunArgs {
    /// The run these flags ask for, as the library's configuration. Nothing is read yet.
    pub(crate) fn config(&self) -> Result<Config, String> {
        let mut substitutions = BTreeMap::new();
        for pair in &self.substitute {
            let (name, value) = pair
                .split_once('=')
                .ok_or_else(|| format!("`--substitute {pair}` must be NAME=VALUE"))?;
            substitutions.insert(name.to_owned(), value.to_owned());
        }
        Ok(Config {
            path: self.repo.path.clone(),
            root: self.repo.root.clone(),
            concurrency: self.concurrency.map(usize::from),
            allow_missing_sources: self.allow_missing_sources,
            strict_substitutions: self.strict_substitutions,
            substitutions,
            substitute_from: self.substitute_from.clone(),
            redact_secret_values: self.redact_secret_values,
            kube_version: self.kube_version.clone(),
            chart_cache: self.chart_cache.clone(),
            download_cache: download_cache(),
            offline: self.offline,
            allow_private_network: self.allow_private_network,
            proxy: self.proxy.clone(),
            registry_config: self.registry_config.clone(),
            ssh: ssh_program(),
            render_cache_build: (!self.no_cache).then(build_identity),
            network_idle_timeout_secs: self.network_idle_timeout,
            network_deadline_secs: self.network_deadline,
            limits: self.budget.limits(),
            secret_producer_kinds: self.secret_producers.clone(),
            process_env: self.env_from_process.then(process_environment),
            resourceset_inputs: self.resourceset_inputs.clone(),
            sources: self.sources.clone(),
            progress: None,
            // The scheduler starts nothing new once cancelled; engines in the middle of work
            // (a template in a loop) see the budget's flag and stop.
            on_start: Some(Arc::new(|cancel, budget| {
                super::interrupt::watch(cancel);
                super::interrupt::watch_budget(budget);
            })),
        })
    }

    /// Calls `run` on the orchestrator these flags ask for, with a progress display on a
    /// terminal, cleared when it returns.
    fn orchestrate<T>(
        &self,
        run: impl FnOnce(&Orchestrator) -> Result<T, RunError>,
    ) -> Result<T, String> {
        self.orchestrate_with(run)?.map_err(|e| e.to_string())
    }

    /// [`RunArgs::orchestrate`] for a call that returns what it likes; the error is the flags'.
    pub(crate) fn orchestrate_with<T>(
        &self,
        run: impl FnOnce(&Orchestrator) -> T,
    ) -> Result<T, String> {
        // Listening from the start: fetching sources runs `ssh`, which a signal must not orphan.
        super::interrupt::listen();
        let mut config = self.config()?;
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
        config.progress = bar.clone().map(|bar| {
            Arc::new(move |done: usize, known: usize| {
                bar.set_length(known as u64);
                bar.set_position(done as u64);
            }) as crate::orchestrator::Progress
        });
        let result = run(&Orchestrator::new(config));
        if let Some(bar) = bar {
            bar.finish_and_clear();
        }
        Ok(result)
    }

    /// Discovers and reconciles. Errors are about the invocation (exit code 2).
    pub fn run(&self) -> Result<(Repository, RunReport), String> {
        self.run_scoped(Vec::new())
    }

    /// [`RunArgs::run`] for a command about `scope` only (all of the repository when empty).
    pub(crate) fn run_scoped(&self, scope: Vec<Target>) -> Result<(Repository, RunReport), String> {
        self.orchestrate(|offlux| offlux.run(scope))
    }

    /// Reconciles each cluster the path holds (`Orchestrator::run_each`), for a command about
    /// `scope` only; with `--changed-only`, only the producers a change since the base revision
    /// can affect (see `selection::changed`). (The caller prints the note a narrowed run ends
    /// with: `print_left_out`.)
    pub(crate) fn run_each(
        &self,
        changed: &ChangedArgs,
        scope: Vec<Target>,
    ) -> Result<Vec<crate::orchestrator::clusters::ClusterRun>, String> {
        let changed_since = changed.changed_only.then_some(changed.base.as_deref());
        self.orchestrate(|offlux| offlux.run_each(changed_since, scope))
    }
}

/// OpenSSH's `ssh` on `PATH` (`ssh.exe` on Windows, with the `SystemRoot` its sockets need), for
/// `ssh://` Git URLs; `None` when there is none.
fn ssh_program() -> Option<crate::fetch::SshProgram> {
    let names: &[&str] = if cfg!(windows) {
        &["ssh.exe", "ssh"]
    } else {
        &["ssh"]
    };
    // A relative entry would be looked up from the current directory, which may be the
    // repository under review: only absolute ones are taken.
    let path = std::env::split_paths(&std::env::var_os("PATH")?)
        .filter(|dir| dir.is_absolute())
        .flat_map(|dir| names.iter().map(move |name| dir.join(name)))
        .find(|candidate| candidate.is_file())?;
    let environment = if cfg!(windows) {
        std::env::var_os("SystemRoot")
            .map(|root| vec![("SystemRoot".into(), root)])
            .unwrap_or_default()
    } else {
        Vec::new()
    };
    Some(crate::fetch::SshProgram { path, environment })
}

/// offlux's own environment (its UTF-8 variables), for `--env-from-process`.
pub(crate) fn process_environment() -> std::sync::Arc<BTreeMap<String, String>> {
    std::sync::Arc::new(
        std::env::vars_os()
            .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
            .collect(),
    )
}

/// What tells this build of offlux from any other, for the render cache's keys: the version, the
/// commit, and the binary's own size and modification time (a rebuild of uncommitted changes is a
/// different build).
fn build_identity() -> String {
    let binary = std::env::current_exe()
        .and_then(std::fs::metadata)
        .map(|m| format!("{} {:?}", m.len(), m.modified().ok()))
        .unwrap_or_default();
    format!(
        "{} {} {binary}",
        env!("CARGO_PKG_VERSION"),
        env!("OFFLUX_COMMIT")
    )
}

/// Where downloaded charts are kept across runs: `$XDG_CACHE_HOME/offlux/charts`, else
/// `~/.cache/offlux/charts` (on Windows `%LOCALAPPDATA%\\offlux\\charts`). Only absolute
/// directories count (an empty or relative `HOME` would put the cache in the working directory,
/// perhaps the repository); with none, downloads are not kept and nothing else changes.
pub(crate) fn download_cache() -> Option<PathBuf> {
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
