//! `offlux kustomize build DIR`: a drop-in for `kustomize build` on local directories.

use std::path::PathBuf;

use super::exit::{CliError, ExitStatus};
use super::stdout::Output;
use super::{report, Context};
use crate::diagnostic::Diagnostic;
use crate::kustomize;

#[derive(clap::Args, Debug)]
pub struct KustomizeArgs {
    #[command(subcommand)]
    pub command: KustomizeCommand,
}

#[derive(clap::Subcommand, Debug)]
pub enum KustomizeCommand {
    /// Build a kustomization directory and print the result, as `kustomize build` does.
    Build(KustomizeBuildArgs),
}

#[derive(clap::Args, Debug)]
pub struct KustomizeBuildArgs {
    /// The directory holding the kustomization.
    #[arg(default_value = ".")]
    pub dir: PathBuf,
    /// Whether files outside the kustomization's directory may be read.
    #[arg(long, value_enum, default_value_t = LoadRestrictorArg::LoadRestrictionsRootOnly)]
    pub load_restrictor: LoadRestrictorArg,
    /// `legacy` sorts by kind as the kustomize CLI does; `none` keeps input order (as Flux does).
    #[arg(long, value_enum, default_value_t = ReorderArg::Legacy)]
    pub reorder: ReorderArg,
    /// Write the output to this file instead of stdout.
    #[arg(short = 'o', long)]
    pub output: Option<PathBuf>,
    /// Refused: offlux never runs Helm as a kustomize plugin.
    #[arg(long, hide = true)]
    pub enable_helm: bool,
    /// Refused: offlux never runs exec or KRM function plugins.
    #[arg(long, hide = true)]
    pub enable_alpha_plugins: bool,
    /// Refused, as `--enable-alpha-plugins`.
    #[arg(long, hide = true)]
    pub enable_exec: bool,
    /// Fill an env file's bare keys (a line `KEY` without `=`) from offlux's own environment, as
    /// kustomize does. Off by default: such keys are left out with a warning.
    #[arg(long)]
    pub env_from_process: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
#[allow(clippy::enum_variant_names)]
pub enum LoadRestrictorArg {
    #[value(name = "LoadRestrictionsRootOnly")]
    LoadRestrictionsRootOnly,
    #[value(name = "LoadRestrictionsNone")]
    LoadRestrictionsNone,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ReorderArg {
    Legacy,
    None,
}

pub(super) fn run(
    args: &KustomizeArgs,
    context: &Context,
    out: &mut Output,
) -> Result<ExitStatus, CliError> {
    let KustomizeCommand::Build(args) = &args.command;
    if args.enable_helm {
        return Err(CliError::usage(
            "`--enable-helm` is not supported: offlux does not run Helm inside kustomize",
            Some("render charts through a Flux HelmRelease instead"),
        ));
    }
    if args.enable_alpha_plugins || args.enable_exec {
        return Err(CliError::usage(
            "exec and KRM function plugins are never run by offlux",
            None,
        ));
    }
    if !args.dir.exists() {
        return Err(CliError::usage(
            format!(
                "kustomization directory `{}` does not exist",
                args.dir.display()
            ),
            Some("give the directory that holds the `kustomization.yaml`"),
        ));
    }
    let options = kustomize::Options {
        load_restrictor: match args.load_restrictor {
            LoadRestrictorArg::LoadRestrictionsRootOnly => kustomize::LoadRestrictor::RootOnly,
            LoadRestrictorArg::LoadRestrictionsNone => kustomize::LoadRestrictor::None,
        },
        reorder: match args.reorder {
            ReorderArg::Legacy => kustomize::Reorder::Legacy,
            ReorderArg::None => kustomize::Reorder::None,
        },
        process_env: args
            .env_from_process
            .then(super::run_args::process_environment),
        ..kustomize::Options::default()
    };
    let build =
        kustomize::build(&args.dir, &options).map_err(|e| CliError::failed(e.to_string()))?;
    let diagnostics: Vec<Diagnostic> = build
        .diagnostics
        .iter()
        .map(|message| Diagnostic::warning(message.as_str()))
        .chain(
            build
                .env_keys_left_out
                .iter()
                .map(|left_out| crate::controllers::engine::env_key_left_out(left_out, &args.dir)),
        )
        .collect();
    report::print_diagnostics(&diagnostics, &args.dir, context);
    let text = kustomize::to_yaml(&build);
    match &args.output {
        None => {
            out.write(&text)?;
            Ok(ExitStatus::Success)
        }
        Some(file) => {
            // Written beside the target and renamed, so a failure never leaves half a file.
            let dir = file
                .parent()
                .filter(|p| !p.as_os_str().is_empty())
                .unwrap_or(std::path::Path::new("."));
            let written = tempfile::NamedTempFile::new_in(dir).and_then(|mut temp| {
                std::io::Write::write_all(&mut temp, text.as_bytes())?;
                temp.persist(file).map_err(|e| e.error)
            });
            written
                .map(|_| ExitStatus::Success)
                .map_err(|error| CliError::failed(format!("writing `{}`: {error}", file.display())))
        }
    }
}
