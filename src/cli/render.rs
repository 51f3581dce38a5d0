//! `offlux render`: everything that would be applied, on stdout or as a tree of files, one per
//! producer (`DIR/<Kind>/<namespace>/<name>.yaml`, see `out_dir` for what offlux owns there).

use std::path::PathBuf;

use super::exit::{CliError, ExitStatus};
use super::objects::{self, documents, join, ObjectFormat, SkipArgs};
use super::run_args::RunArgs;
use super::stdout::Output;
use super::{exit, out_dir, report, test, Context};
use crate::model::{Object, ResourceId};
use crate::store::Status;

#[derive(clap::Args, Debug)]
pub struct RenderArgs {
    #[command(flatten)]
    pub run: RunArgs,
    #[command(flatten)]
    pub skip: SkipArgs,
    #[command(flatten)]
    pub changed: super::run_args::ChangedArgs,
    /// Write one file per producer under this directory instead of printing.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Allow `--out DIR` inside the repository being rendered. Off by default: the repository
    /// (a stranger's pull request) controls what is already there, and the next run would read
    /// the files written as part of the repository.
    #[arg(long, requires = "out")]
    pub out_inside_repo: bool,
    /// Output format.
    #[arg(short = 'o', long, value_enum, default_value_t = ObjectFormat::Yaml)]
    pub output: ObjectFormat,
}

pub(super) fn run(
    args: &RenderArgs,
    context: &Context,
    out: &mut Output,
) -> Result<ExitStatus, CliError> {
    // Each cluster the path holds is rendered on its own; with several, each is written under
    // `DIR/<cluster>/`, or printed after a `# cluster: NAME` line (`-o json`: an object by name).
    let runs = match args.run.run_each(&args.changed, Vec::new()) {
        Ok(runs) => runs,
        Err(message) => return Err(CliError::usage(message, None)),
    };
    for run in &runs {
        super::repo_args::require_flux_objects(&run.repository, &args.run.repo.path)?;
    }
    for run in &runs {
        if let Some(left_out) = &run.left_out {
            super::run_args::print_left_out(left_out, context);
        }
    }
    if runs.iter().any(|r| r.report.cancelled) {
        return Err(super::interrupt::error()
            .unwrap_or_else(|| CliError::failed("interrupted; nothing was written")));
    }
    let several = runs.iter().any(|r| r.cluster.is_some());
    let mut failed = false;
    let mut json_by_cluster = serde_json::Map::new();
    for (index, run) in runs.iter().enumerate() {
        let dir = match (&args.out, &run.cluster) {
            (Some(dir), Some(cluster)) => Some(dir.join(cluster)),
            (dir, _) => dir.clone(),
        };
        if let (None, Some(cluster)) = (&args.out, &run.cluster) {
            if args.output == ObjectFormat::Yaml {
                let separator = if index > 0 { "---\n" } else { "" };
                out.write(&format!("{separator}# cluster: {cluster}\n"))?;
            }
        }
        let printed = render_cluster(args, context, out, run, dir.as_ref(), several)?;
        failed |= printed.failed;
        if let (Some(cluster), Some(json)) = (&run.cluster, printed.json) {
            json_by_cluster.insert(cluster.clone(), json);
        }
    }
    if several && args.out.is_none() && args.output == ObjectFormat::Json {
        let mut text = serde_json::to_string_pretty(&serde_json::Value::Object(json_by_cluster))
            .unwrap_or_default();
        text.push('\n');
        out.write(&text)?;
    }
    exit::leave_to_exit(runs);
    Ok(ExitStatus::failures_if(failed))
}

/// What rendering one cluster gave: whether a producer failed, and, for several clusters printed
/// as JSON, its objects (printed together once every cluster is done).
struct Rendered {
    failed: bool,
    json: Option<serde_json::Value>,
}

/// Renders one cluster's run to stdout or under `dir`.
fn render_cluster(
    args: &RenderArgs,
    context: &Context,
    out: &mut Output,
    run: &crate::orchestrator::clusters::ClusterRun,
    dir: Option<&PathBuf>,
    several: bool,
) -> Result<Rendered, CliError> {
    let (repository, report) = (&run.repository, &run.report);
    report::print_diagnostics(&run.diagnostics(), &repository.root, context);
    let failed = test::print_failed_producers_of(run.cluster.as_deref(), report, context);
    let producers: Vec<(&ResourceId, Vec<&Object>)> = report
        .rendered
        .iter()
        .map(|(id, objects)| (id, objects.iter().filter(|o| args.skip.keeps(o)).collect()))
        .collect();
    let all: Vec<&Object> = producers
        .iter()
        .flat_map(|(_, objects)| objects.iter().copied())
        .collect();
    let mut json = None;
    match dir {
        None if several && args.output == ObjectFormat::Json => {
            json = Some(
                serde_json::from_str(&objects::format(&all, args.output))
                    .unwrap_or(serde_json::Value::Null),
            );
        }
        None => {
            objects::print(&all, args.output, out)?;
        }
        Some(dir) => {
            let inside = match out_dir::check_location(dir, &repository.root) {
                Ok(inside) => inside,
                Err(error) => return Err(CliError::usage(error.to_string(), None)),
            };
            if inside && !args.out_inside_repo {
                return Err(CliError::usage(
                    format!(
                        "`{}` is inside the repository being rendered",
                        dir.display()
                    ),
                    Some("write outside the repository, or pass `--out-inside-repo` to allow it"),
                ));
            }
            if inside {
                report::eprint(
                    context,
                    &format!(
                        "warning: `{}` is inside the repository: the next run reads the files written there as part of it\n\
                         hint: write outside the repository, or list the directory in `.sourceignore`\n",
                        dir.display()
                    ),
                );
            }
            let extension = match args.output {
                ObjectFormat::Yaml => "yaml",
                ObjectFormat::Json => "json",
            };
            // Formatted as one run over all objects, so the cores share the work evenly.
            let mut documents = documents(&all, args.output).into_iter();
            let files: Vec<(out_dir::LayoutPath, String)> = producers
                .iter()
                .map(|(id, objects)| {
                    let own: Vec<String> = documents.by_ref().take(objects.len()).collect();
                    (
                        out_dir::producer_file(id, extension),
                        join(&own, args.output),
                    )
                })
                .collect();
            // A producer that failed keeps its last good file: its objects are unknown, not gone.
            let keep = report
                .statuses
                .iter()
                .filter(|(_, record)| matches!(record.status, Status::Failed(_)))
                .map(|(id, _)| out_dir::producer_file(id, extension))
                .collect();
            match out_dir::write_tree(dir, &files, &keep) {
                Ok(done) => {
                    let mut text =
                        format!("Wrote {} files under `{}`", done.written, dir.display());
                    if done.removed > 0 {
                        text.push_str(&format!(", removed {} no longer produced", done.removed));
                    }
                    if done.kept > 0 {
                        text.push_str(&format!(
                            ", kept {} of failed producers from the last run",
                            done.kept
                        ));
                    }
                    text.push_str(".\n");
                    report::eprint(context, &text);
                }
                Err(error) if error.is_refusal() => {
                    return Err(CliError::usage(
                        error.to_string(),
                        Some("choose an empty directory, or one offlux wrote before"),
                    ));
                }
                Err(error) => {
                    return Err(CliError::failed(format!(
                        "writing `{}`: {error}",
                        dir.display()
                    )));
                }
            }
        }
    }
    Ok(Rendered { failed, json })
}
