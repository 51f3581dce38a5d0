//! `offlux graph`: the dependency graph of a repository.

use super::exit::{CliError, ExitStatus};
use super::repo_args::RepoArgs;
use super::stdout::Output;
use super::{report, Context};
use crate::diagnostic::{Diagnostic, Severity};

#[derive(clap::Args, Debug)]
pub struct GraphArgs {
    #[command(flatten)]
    pub repo: RepoArgs,
    /// Output format.
    #[arg(short = 'o', long, value_enum, default_value_t = GraphFormat::Dot)]
    pub output: GraphFormat,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum GraphFormat {
    Dot,
    Mermaid,
    Json,
}

pub(super) fn run(
    args: &GraphArgs,
    context: &Context,
    out: &mut Output,
) -> Result<ExitStatus, CliError> {
    let repository = match args.repo.discover() {
        Ok(repository) => repository,
        Err(error) => return Err(CliError::usage(error.to_string(), None)),
    };
    super::repo_args::require_flux_objects(&repository, &args.repo.path)?;
    let graph = crate::graph::build(&repository);
    let mut diagnostics = repository.diagnostics.clone();
    diagnostics.extend(
        graph
            .cycles
            .iter()
            .map(|cycle| Diagnostic::error(cycle.to_string())),
    );
    report::print_diagnostics(&diagnostics, &repository.root, context);
    let text = match args.output {
        GraphFormat::Dot => crate::graph::to_dot(&graph),
        GraphFormat::Mermaid => crate::graph::to_mermaid(&graph),
        GraphFormat::Json => {
            let mut text =
                serde_json::to_string_pretty(&crate::graph::to_json(&graph)).unwrap_or_default();
            text.push('\n');
            text
        }
    };
    out.write(&text)?;
    Ok(ExitStatus::failures_if(
        diagnostics.iter().any(|d| d.severity == Severity::Error),
    ))
}
