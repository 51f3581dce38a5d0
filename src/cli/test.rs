//! `offlux test`: one row per Flux object — PASS, FAIL, SKIPPED or BLOCKED with its root cause —
//! and a closing summary; human, JSON, JUnit XML or GitHub workflow annotations.

use super::exit::{CliError, ExitStatus};
use super::run_args::RunArgs;
use super::stdout::Output;
use super::{exit, report, Context};
use crate::controllers::runtime::RunReport;
use crate::reporting::named;
use crate::reporting::verdicts::{self, finding_rows, github, junit, rows, Row, Verdict};
use crate::selection::scope::Target;

#[derive(clap::Args, Debug)]
pub struct TestArgs {
    /// Which objects to report.
    #[arg(value_enum, default_value_t = TestKind::All)]
    pub what: TestKind,
    /// Only the object with this name: only what it depends on is reconciled.
    pub name: Option<String>,
    /// Only objects in this namespace.
    #[arg(short = 'n', long)]
    pub namespace: Option<String>,
    /// With a NAME, reconcile the whole repository, not only what NAME depends on (the rows are
    /// the same; this is slower, for comparing).
    #[arg(long)]
    pub no_scope: bool,
    #[command(flatten)]
    pub run: RunArgs,
    #[command(flatten)]
    pub changed: super::run_args::ChangedArgs,
    /// Also check every rendered object as `offlux validate` does: each error is a FAIL row for
    /// its object; warnings are counted on stderr.
    #[arg(long)]
    pub validate: bool,
    /// With `--validate`: where schemas come from and how strict to be without one.
    #[command(flatten)]
    pub schemas: super::validate::SchemaArgs,
    /// With `--validate`: how the orphan checks run.
    #[command(flatten)]
    pub orphans: super::orphans::OrphanArgs,
    /// Output format.
    #[arg(short = 'o', long, value_enum, default_value_t = TestFormat::Human)]
    pub output: TestFormat,
    /// List only the objects that FAIL or are BLOCKED (the summary still counts every object).
    #[arg(short = 'q', long)]
    pub failures_only: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum TestKind {
    #[value(alias = "kustomizations")]
    Ks,
    #[value(alias = "helmreleases")]
    Hr,
    All,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum TestFormat {
    Human,
    Json,
    Junit,
    Github,
}

/// Prints an `error:` line on stderr for each Flux object that failed or is blocked, and says
/// whether there was one: commands that print objects or findings must not pass a repository
/// whose producers broke (their output is missing, not empty).
/// Each line names `cluster` when given (a path holding several clusters).
pub(crate) fn print_failed_producers_of(
    cluster: Option<&str>,
    report: &RunReport,
    context: &Context,
) -> bool {
    let all = rows(report);
    let in_cluster = |text: String| match cluster {
        Some(cluster) => named(cluster, &text),
        None => text,
    };
    // Each FAIL on its own, then what one cause blocks said once (`report::grouped_errors`).
    let failures: Vec<(String, String)> = all
        .iter()
        .filter(|r| r.result == Verdict::Fail)
        .chain(all.iter().filter(|r| r.result == Verdict::Blocked))
        .map(|row| {
            (
                in_cluster(format!("{}/{}/{}", row.kind, row.namespace, row.name)),
                row.message.clone(),
            )
        })
        .collect();
    let errors = report::grouped_errors(&failures);
    report::eprint(context, &errors);
    !errors.is_empty()
}

pub(super) fn run(
    args: &TestArgs,
    context: &Context,
    out: &mut Output,
) -> Result<ExitStatus, CliError> {
    use super::validate::SchemaSources;
    let schemas = if args.validate {
        SchemaSources::load(&args.schemas).map(Some)
    } else {
        SchemaSources::refuse_without_validation(&args.schemas).map(|()| None)
    };
    let schemas = match schemas {
        Ok(schemas) => schemas,
        Err(message) => return Err(CliError::usage(message, None)),
    };
    // Validation looks at everything rendered together (duplicates, references), so only a
    // plain test of one object is scoped.
    let scope = match &args.name {
        Some(name) if !args.no_scope && schemas.is_none() => {
            let kinds: &[&str] = match args.what {
                TestKind::Ks => &["Kustomization"],
                TestKind::Hr => &["HelmRelease"],
                TestKind::All => &["Kustomization", "HelmRelease"],
            };
            vec![Target {
                kinds: kinds.iter().map(|k| (*k).to_owned()).collect(),
                name: Some(name.clone()),
                namespace: args.namespace.clone(),
            }]
        }
        _ => Vec::new(),
    };
    // Each cluster the path holds is reconciled on its own; its rows name it when there are
    // several.
    let runs = match args.run.run_each(&args.changed, scope) {
        Ok(runs) => runs,
        Err(message) => return Err(CliError::usage(message, None)),
    };
    for run in &runs {
        super::repo_args::require_flux_objects(&run.repository, &args.run.repo.path)?;
    }
    let mut all_rows = Vec::new();
    for run in &runs {
        if let Some(left_out) = &run.left_out {
            super::run_args::print_left_out(left_out, context);
        }
        report::print_diagnostics(&run.diagnostics(), &run.repository.root, context);
        let mut cluster_rows = rows(&run.report);
        if let Some(schemas) = &schemas {
            let checked = super::validate::kube_version(&args.run).and_then(|kube| {
                super::validate::check(
                    &run.repository,
                    &run.report,
                    &kube,
                    schemas,
                    Some(&args.run),
                    &args.orphans,
                )
            });
            match checked {
                Ok((findings, _)) => {
                    let warnings = findings
                        .iter()
                        .filter(|f| f.severity == crate::validate::Severity::Warning)
                        .count();
                    if warnings > 0 {
                        let text = format!(
                            "validate: {warnings} warning{} (`offlux validate` lists {})",
                            if warnings == 1 { "" } else { "s" },
                            if warnings == 1 { "it" } else { "them" }
                        );
                        let text = match &run.cluster {
                            Some(cluster) => named(cluster, &text),
                            None => text,
                        };
                        report::eprint(context, &format!("{text}\n"));
                    }
                    cluster_rows.extend(finding_rows(&findings));
                }
                Err(message) => return Err(CliError::usage(message, None)),
            }
        }
        if let Some(cluster) = &run.cluster {
            for row in &mut cluster_rows {
                row.cluster = Some(cluster.clone());
            }
        }
        all_rows.extend(cluster_rows);
    }
    let several = runs.iter().any(|r| r.cluster.is_some());
    let left_out: Vec<&super::run_args::LeftOut> =
        runs.iter().filter_map(|r| r.left_out.as_ref()).collect();
    let rows: Vec<Row> = all_rows
        .into_iter()
        .filter(|r| match args.what {
            TestKind::Ks => r.kind == "Kustomization",
            TestKind::Hr => r.kind == "HelmRelease",
            TestKind::All => true,
        })
        .filter(|r| args.name.as_deref().is_none_or(|n| r.name == n))
        .filter(|r| args.namespace.as_deref().is_none_or(|ns| r.namespace == ns))
        .collect();
    let shown: Vec<&Row> = rows
        .iter()
        .filter(|r| !args.failures_only || matches!(r.result, Verdict::Fail | Verdict::Blocked))
        .collect();
    let output = match args.output {
        TestFormat::Human => {
            let color = context.color && std::io::IsTerminal::is_terminal(&std::io::stdout());
            context.human(verdicts::human(&rows, &shown, several, color))
        }
        TestFormat::Json => {
            let mut text = match left_out.as_slice() {
                [] => serde_json::to_string_pretty(&shown),
                [left_out] if !several => serde_json::to_string_pretty(
                    &serde_json::json!({"changedOnly": left_out, "rows": shown}),
                ),
                // One per cluster, in the rows' order of clusters.
                several_left_out => serde_json::to_string_pretty(
                    &serde_json::json!({"changedOnly": several_left_out, "rows": shown}),
                ),
            }
            .unwrap_or_default();
            text.push('\n');
            text
        }
        TestFormat::Junit => junit(&rows),
        TestFormat::Github => github(&rows, several),
    };
    out.write(&output)?;
    let failed = rows
        .iter()
        .any(|r| matches!(r.result, Verdict::Fail | Verdict::Blocked))
        || runs.iter().any(|r| r.report.cancelled);
    exit::leave_to_exit(runs);
    Ok(ExitStatus::failures_if(failed))
}
