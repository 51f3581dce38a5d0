//! Command-line interface: clap commands, one file per verb, and output formats. The only module
//! that prints, reads the environment or exits.
//!
//! stdout carries rendered data only, through the one writer `main` hands each verb
//! (`stdout::Output`); diagnostics, hints, summaries and errors go to stderr through `report`.
//! Each verb returns `Result<ExitStatus, CliError>`, and `main` turns it into the exit code
//! (`exit::code`).

#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    clippy::exit,
    clippy::disallowed_methods,
    reason = "`cli` is the one module that prints, reads the environment and ends the process"
)]

mod build;
mod cache;
mod completions;
mod config;
mod diff;
pub mod exit;
mod explain;
mod get;
mod graph;
mod helm;
mod init;
mod interrupt;
mod kustomize;
mod objects;
mod orphans;
mod out_dir;
mod render;
mod repo_args;
mod report;
mod run_args;
mod stdout;
mod test;
mod validate;

use std::io::IsTerminal;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};

use exit::{CliError, ExitStatus};
use stdout::Output;

pub use completions::write_all_completions;
#[doc(hidden)]
pub use get::listed_and_tested;

#[derive(Parser, Debug)]
#[command(
    name = "offlux",
    version,
    about = "Render and validate a Flux GitOps repository without a cluster",
    propagate_version = true
)]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalOptions,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(clap::Args, Debug, Clone)]
pub struct GlobalOptions {
    /// Disable colour in diagnostics (also set by the NO_COLOR environment variable).
    #[arg(long, global = true)]
    pub no_color: bool,
    /// Which diagnostics to show: `error` only errors, `warn` adds warnings, `info` adds notes.
    #[arg(long, global = true, value_enum, default_value_t = LogLevel::Warn)]
    pub log_level: LogLevel,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, ValueEnum)]
pub enum LogLevel {
    Error,
    Warn,
    Info,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// List the Flux objects of a repository: Kustomizations, HelmReleases, sources.
    Get(get::GetArgs),
    /// Reconcile the repository as Flux would, without a cluster, and report each Flux object:
    /// PASS, FAIL, SKIPPED, BLOCKED.
    Test(test::TestArgs),
    /// Check every rendered object: Kubernetes and CRD schemas, duplicates, missing namespaces,
    /// unsubstituted variables, removed and deprecated API versions, references nothing
    /// provides, values keys no template reads, orphans (codes OFX101-OFX114); a producer that
    /// failed is OFX100.
    Validate(validate::ValidateArgs),
    /// Print the objects one Kustomization or HelmRelease (or every Kustomization) would apply.
    Build(build::BuildArgs),
    /// Render everything that would be applied, to stdout or one file per producer (`--out DIR`).
    Render(render::RenderArgs),
    /// Native kustomize: `offlux kustomize build DIR`.
    Kustomize(kustomize::KustomizeArgs),
    /// Native Helm: `offlux helm template CHART [RELEASE]`.
    Helm(helm::HelmArgs),
    /// What a change does to the cluster: reconcile a base revision (by default the merge base
    /// with the default branch) and the working tree, and compare them object by object.
    Diff(Box<diff::DiffArgs>),
    /// Show the dependency graph: dependsOn, sources, data, and what applies what.
    Graph(graph::GraphArgs),
    /// Explain a finding code (OFX100...): what it means, why it matters, how to fix or silence it.
    Explain(explain::ExplainArgs),
    /// Print a shell completion script.
    Completions(completions::CompletionsArgs),
    /// The charts and sources offlux downloaded and keeps across runs: `list`, `gc`, `clear`.
    Cache(cache::CacheArgs),
    /// Write a first `.offlux.yaml` for the clusters found here (and, on request, a GitHub
    /// workflow and a pre-commit configuration).
    Init(init::InitArgs),
    /// The repository's `.offlux.yaml`: the settings a run takes and where each came from
    /// (`show`), or the file's JSON Schema (`schema`).
    Config(config::ConfigArgs),
}

/// The whole command line: `Cli` with every long flag also read from `OFFLUX_<FLAG>`.
pub fn command() -> clap::Command {
    with_environment(<Cli as clap::CommandFactory>::command())
}

/// The environment variable a long flag is also read from: `--log-level` is `OFFLUX_LOG_LEVEL`.
pub fn flag_environment_name(long: &str) -> String {
    format!("OFFLUX_{}", long.to_ascii_uppercase().replace('-', "_"))
}

/// Gives every long flag of `command` and its subcommands an environment variable, so a CI job
/// can set options once for every step. Positional arguments keep none: an unset `OFFLUX_PATH`
/// must not be confused with a path given on the command line.
fn with_environment(command: clap::Command) -> clap::Command {
    let command = command.mut_args(|arg| {
        if arg.get_env().is_some() || arg.is_positional() {
            return arg;
        }
        match arg.get_long().map(flag_environment_name) {
            Some(name) => arg.env(name),
            None => arg,
        }
    });
    let names: Vec<String> = command
        .get_subcommands()
        .map(|sub| sub.get_name().to_string())
        .collect();
    names.iter().fold(command, |command, name| {
        command.mut_subcommand(name, with_environment)
    })
}

pub fn main() -> ExitCode {
    match completions::answer_dynamic_request() {
        Ok(true) => return ExitCode::from(exit::SUCCESS),
        Ok(false) => {}
        Err(error) => {
            let _ = error.print();
            return ExitCode::from(exit::USAGE);
        }
    }
    let mut command = command();
    // What the binary embeds is said by `--version` only: listing it decompresses Flux's CRDs.
    if std::env::args_os().any(|a| a == "--version") {
        command = command.long_version(long_version());
    }
    let parsed = command.try_get_matches().and_then(|matches| {
        <Cli as clap::FromArgMatches>::from_arg_matches(&matches).map(|cli| (cli, matches))
    });
    let (cli, matches) = match parsed {
        Ok(parsed) => parsed,
        Err(error) => {
            let _ = error.print();
            return ExitCode::from(if error.use_stderr() {
                exit::USAGE
            } else {
                exit::SUCCESS
            });
        }
    };
    let github_log = writes_github_commands(&cli.command)
        || std::env::var_os("GITHUB_ACTIONS").is_some_and(|v| v == "true");
    let color = !cli.global.no_color
        && !github_log
        && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
        && std::io::stderr().is_terminal();
    let context = Context {
        color,
        log_level: cli.global.log_level,
        github_log,
    };
    let mut out = Output::lock();
    let result = run(cli.command, &matches, &context, &mut out);
    // What was written before an error still goes out.
    let result = match (result, out.flush()) {
        (Ok(_), Err(error)) => Err(error),
        (result, _) => result,
    };
    if let Err(error) = &result {
        report::print_error(error, &context);
    }
    ExitCode::from(exit::code(&result))
}

/// Runs one verb, its run settings completed from the repository's `.offlux.yaml` first.
fn run(
    mut command: Command,
    matches: &clap::ArgMatches,
    context: &Context,
    out: &mut Output,
) -> Result<ExitStatus, CliError> {
    let settings = config::apply_to(&mut command, matches).map_err(|m| CliError::usage(m, None))?;
    match command {
        Command::Config(args) => config::run(&args, &settings, out),
        Command::Init(args) => init::run(&args, out),
        Command::Get(args) => get::run(&args, context, out),
        Command::Test(args) => test::run(&args, context, out),
        Command::Validate(args) => validate::run(&args, context, out),
        Command::Build(args) => build::run(&args, context, out),
        Command::Render(args) => render::run(&args, context, out),
        Command::Diff(args) => diff::run(&args, context, out),
        Command::Graph(args) => graph::run(&args, context, out),
        Command::Kustomize(args) => kustomize::run(&args, context, out),
        Command::Helm(args) => helm::run(&args, out),
        Command::Explain(args) => explain::run(&args, out),
        Command::Completions(args) => completions::run(&args, out),
        Command::Cache(args) => cache::run(&args, context, out),
    }
}

/// The version, and the schemas the binary embeds: Kubernetes minors and Flux's CRD versions.
fn long_version() -> String {
    let minors = crate::validate::supported_minors();
    let kubernetes = match (minors.first(), minors.last()) {
        (Some(first), Some(last)) => format!("v1.{first}-v1.{last} ({} versions)", minors.len()),
        _ => "none".to_string(),
    };
    let mut flux: Vec<String> = crate::model::flux_crds()
        .iter()
        .filter_map(|crd| {
            let kind = crd.pointer("/spec/names/kind")?.as_str()?;
            let group = crd.pointer("/spec/group")?.as_str()?;
            let versions: Vec<&str> = crd
                .pointer("/spec/versions")?
                .as_array()?
                .iter()
                .filter_map(|v| v.get("name")?.as_str())
                .collect();
            Some(format!("{kind}.{group} {}", versions.join(",")))
        })
        .collect();
    flux.sort();
    format!(
        "{} (commit {}, built {})\nKubernetes schemas: {kubernetes}\nFlux CRDs:\n  {}",
        env!("CARGO_PKG_VERSION"),
        env!("OFFLUX_COMMIT"),
        env!("OFFLUX_BUILD_DATE"),
        flux.join("\n  ")
    )
}

/// What every command needs to know about how to talk to the user.
pub(crate) struct Context {
    pub color: bool,
    pub log_level: LogLevel,
    /// A GitHub Actions runner reads what offlux prints (`-o github`, or `GITHUB_ACTIONS=true`):
    /// no line of stderr or of human output may read as a workflow command
    /// (`crate::escape::github_log`).
    pub github_log: bool,
}

impl Context {
    /// Human output for stdout, whose repository-supplied parts are already escaped for a
    /// terminal (`table::render`, `escape::terminal_line`), made inert for a GitHub log too.
    pub(crate) fn human(&self, text: String) -> String {
        if self.github_log {
            crate::escape::github_log(&text)
        } else {
            text
        }
    }
}

/// Whether the command prints GitHub workflow commands on stdout.
fn writes_github_commands(command: &Command) -> bool {
    match command {
        Command::Test(args) => args.output == test::TestFormat::Github,
        Command::Validate(args) => args.output == validate::ValidateFormat::Github,
        Command::Diff(args) => args.output == diff::DiffFormat::Github,
        _ => false,
    }
}
