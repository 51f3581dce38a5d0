//! `offlux test`: one row per Flux object — PASS, FAIL, SKIPPED or BLOCKED with its root cause —
//! and a closing summary; human, JSON, JUnit XML or GitHub workflow annotations.

use std::collections::BTreeMap;
use std::fmt::Write;

use super::exit::{CliError, ExitStatus};
use super::run_args::RunArgs;
use super::stdout::Output;
use super::{exit, report, table, Context};
use crate::controllers::depend::label;
use crate::controllers::runtime::RunReport;
use crate::diagnostic::Location;
use crate::escape;
use crate::model::ResourceId;
use crate::selection::scope::Target;
use crate::store::{Ready, Status, StatusRecord};

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

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "UPPERCASE")]
pub(super) enum Verdict {
    Pass,
    Fail,
    Skipped,
    Blocked,
}

impl Verdict {
    fn as_str(self) -> &'static str {
        match self {
            Verdict::Pass => "PASS",
            Verdict::Fail => "FAIL",
            Verdict::Skipped => "SKIPPED",
            Verdict::Blocked => "BLOCKED",
        }
    }
}

/// One reported object.
#[derive(Clone, Debug, serde::Serialize)]
pub(crate) struct Row {
    pub kind: String,
    pub namespace: String,
    pub name: String,
    pub result: Verdict,
    pub message: String,
    #[serde(rename = "blockedBy", skip_serializing_if = "Option::is_none")]
    pub blocked_by: Option<String>,
    /// For a BLOCKED row, its root cause's own message (what `message` says after `blocked by X: `).
    #[serde(skip)]
    pub root_message: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    /// The cluster it applies to, when not offlux's own (`spec.kubeConfig`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cluster: Option<String>,
}

/// The namespace a Flux object is shown in: one applied without a namespace lands in the
/// cluster's `default` namespace.
pub(crate) fn shown_namespace(id: &ResourceId) -> &str {
    if id.namespace.is_empty() {
        "default"
    } else {
        id.namespace.as_str()
    }
}

/// The root cause among `blocked_by`: a reported object that nothing further blocks (a cycle's
/// member, a failed or skipped object), else one that was never found, else the first.
fn root_cause(
    record: &StatusRecord<ResourceId>,
    statuses: &BTreeMap<&ResourceId, &StatusRecord<ResourceId>>,
) -> Option<ResourceId> {
    let blocked_by = &record.blocked_by;
    blocked_by
        .iter()
        .find(|id| statuses.get(id).is_some_and(|r| r.blocked_by.is_empty()))
        .or_else(|| blocked_by.iter().find(|id| !statuses.contains_key(id)))
        .or_else(|| blocked_by.first())
        .cloned()
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
        Some(cluster) => super::clusters::named(cluster, &text),
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

pub(super) fn rows(report: &RunReport) -> Vec<Row> {
    let statuses: BTreeMap<&ResourceId, &StatusRecord<ResourceId>> =
        report.statuses.iter().map(|(id, r)| (id, r)).collect();
    report
        .statuses
        .iter()
        .map(|(id, record)| {
            let root_message = match &record.status {
                Status::Failed(message) if !record.blocked_by.is_empty() => Some(message.clone()),
                _ => None,
            };
            let (result, message, blocked_by) = match &record.status {
                Status::Ready(Ready::Reconciled) => (
                    Verdict::Pass,
                    report
                        .notes
                        .get(id)
                        .map(|n| n.join("; "))
                        .unwrap_or_default(),
                    None,
                ),
                Status::Ready(Ready::Suspended) => (Verdict::Skipped, "suspended".to_owned(), None),
                Status::Ready(Ready::Skipped(reason)) => (Verdict::Skipped, reason.clone(), None),
                Status::Failed(message) if !record.blocked_by.is_empty() => {
                    let cause = root_cause(record, &statuses);
                    let text = match &cause {
                        Some(cause) => format!("blocked by {}: {message}", label(cause)),
                        None => message.clone(),
                    };
                    (Verdict::Blocked, text, cause.map(|c| label(&c)))
                }
                Status::Failed(message) => (Verdict::Fail, message.clone(), None),
                Status::Pending => (Verdict::Blocked, "not reconciled".to_owned(), None),
            };
            let location: Option<&Location> = report.origins.get(id);
            let cluster = report.clusters.get(id).cloned();
            let message = match &cluster {
                Some(cluster) if message.is_empty() => format!("applies to cluster {cluster}"),
                Some(cluster) => format!("{message} (applies to cluster {cluster})"),
                None => message,
            };
            Row {
                kind: id.kind.to_string(),
                namespace: shown_namespace(id).to_owned(),
                name: id.name.to_string(),
                result,
                message,
                blocked_by,
                root_message,
                file: location.map(|l| l.file.display().to_string()),
                line: location
                    .and_then(|l| l.pos)
                    .map(|p| p.line)
                    .filter(|l| *l > 0),
                cluster,
            }
        })
        .collect()
}

/// A FAIL row for each error finding, on the object it concerns.
fn finding_rows(findings: &[crate::validate::Finding]) -> Vec<Row> {
    findings
        .iter()
        .filter(|f| f.severity == crate::validate::Severity::Error)
        .map(|f| {
            let mut parts = f.object.splitn(3, '/');
            let (kind, namespace, name) = (
                parts.next().unwrap_or_default(),
                parts.next().unwrap_or_default(),
                parts.next().unwrap_or_default(),
            );
            Row {
                kind: kind.to_owned(),
                namespace: namespace.to_owned(),
                name: name.to_owned(),
                result: Verdict::Fail,
                message: format!("{} {} (from {})", f.code.as_str(), f.message, f.producer),
                blocked_by: None,
                root_message: None,
                file: Some(f.file.display().to_string()),
                line: Some(f.line).filter(|l| *l > 0),
                cluster: None,
            }
        })
        .collect()
}

fn summary(rows: &[Row]) -> String {
    let count = |v: Verdict| rows.iter().filter(|r| r.result == v).count();
    format!(
        "{} objects: {} passed, {} failed, {} blocked, {} skipped",
        rows.len(),
        count(Verdict::Pass),
        count(Verdict::Fail),
        count(Verdict::Blocked),
        count(Verdict::Skipped)
    )
}

/// How many lines of each kind [`failures`] lists before it says how many more there are.
const LISTED: usize = 10;

/// What failed, for a person reading the end of the output: each FAIL row with where it is
/// written and its cause, then the BLOCKED rows counted by cause (one line for the 63 releases
/// one missing chart blocks, not 63). Empty when nothing failed. Every part is shown on one line
/// (`escape::terminal_line`); `several` clusters name theirs.
fn failures(rows: &[Row], several: bool, color: bool) -> String {
    let line = escape::terminal_line;
    let heading = |code: &str, text: &str| {
        if color {
            format!("{code}{text}{}", super::paint::RESET)
        } else {
            text.to_owned()
        }
    };
    let in_cluster = |row: &Row, text: String| match (&row.cluster, several) {
        (Some(cluster), true) => super::clusters::named(cluster, &text),
        _ => text,
    };
    let mut out = String::new();
    let object = |row: &Row| {
        let at = match (&row.file, row.line) {
            (Some(file), Some(n)) => format!(" ({file}:{n})"),
            (Some(file), None) => format!(" ({file})"),
            _ => String::new(),
        };
        in_cluster(
            row,
            format!("{}/{}/{}{at}", row.kind, row.namespace, row.name),
        )
    };
    // FAIL rows by message: a cause many objects share (a component they all include) is one line.
    let mut failed: Vec<(&str, Vec<&Row>)> = Vec::new();
    for row in rows.iter().filter(|r| r.result == Verdict::Fail) {
        match failed.iter_mut().find(|(m, _)| *m == row.message) {
            Some((_, members)) => members.push(row),
            None => failed.push((&row.message, vec![row])),
        }
    }
    if !failed.is_empty() {
        let _ = writeln!(out, "{}", heading(super::paint::RED, "failed:"));
        for (message, members) in failed.iter().take(LISTED) {
            let text = match members.as_slice() {
                [row] => format!("{}: {message}", object(row)),
                _ => {
                    let mut names: Vec<String> =
                        members.iter().take(3).map(|row| object(row)).collect();
                    if members.len() > 3 {
                        names.push(format!("and {} more", members.len() - 3));
                    }
                    format!(
                        "{} objects: {message} ({})",
                        members.len(),
                        names.join(", ")
                    )
                }
            };
            let _ = writeln!(out, "  {}", line(&text));
        }
        if failed.len() > LISTED {
            let _ = writeln!(out, "  … and {} more causes", failed.len() - LISTED);
        }
    }
    // BLOCKED rows by their root cause's message: several objects that failed alike (each
    // blocking its own dependants) are one cause, named with how many objects it failed.
    type Roots = (usize, std::collections::BTreeSet<String>);
    let mut causes: BTreeMap<(Option<String>, String), Roots> = BTreeMap::new();
    for row in rows.iter().filter(|r| r.result == Verdict::Blocked) {
        let cluster = row.cluster.clone().filter(|_| several);
        let message = row
            .root_message
            .clone()
            .unwrap_or_else(|| row.message.clone());
        let entry = causes.entry((cluster, message)).or_default();
        entry.0 += 1;
        entry.1.extend(row.blocked_by.clone());
    }
    if !causes.is_empty() {
        let mut causes: Vec<(String, usize)> = causes
            .into_iter()
            .map(|((cluster, message), (count, roots))| {
                let roots: Vec<String> = roots.into_iter().collect();
                let text = match roots.as_slice() {
                    [] => message,
                    [root] => format!("blocked by {root}: {message}"),
                    [first, ..] => format!(
                        "blocked by {} objects with this cause ({first} and {} more): {message}",
                        roots.len(),
                        roots.len() - 1
                    ),
                };
                let text = match cluster {
                    Some(cluster) => super::clusters::named(&cluster, &text),
                    None => text,
                };
                (text, count)
            })
            .collect();
        causes.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        let _ = writeln!(
            out,
            "{}",
            heading(super::paint::YELLOW, "blocked, by cause:")
        );
        let width = causes.first().map_or(1, |(_, n)| n.to_string().len());
        for (cause, count) in causes.iter().take(LISTED) {
            let _ = writeln!(out, "  {count:>width$}  {}", line(cause));
        }
        if causes.len() > LISTED {
            let _ = writeln!(
                out,
                "  … and {} more causes (`-o json` lists every row)",
                causes.len() - LISTED
            );
        }
    }
    out
}

fn junit(rows: &[Row]) -> String {
    let failures = rows
        .iter()
        .filter(|r| matches!(r.result, Verdict::Fail | Verdict::Blocked))
        .count();
    let skipped = rows.iter().filter(|r| r.result == Verdict::Skipped).count();
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        out,
        "<testsuites name=\"offlux\" tests=\"{}\" failures=\"{failures}\" skipped=\"{skipped}\">",
        rows.len()
    );
    let _ = writeln!(
        out,
        "  <testsuite name=\"offlux\" tests=\"{}\" failures=\"{failures}\" skipped=\"{skipped}\">",
        rows.len()
    );
    for row in rows {
        let file = row
            .file
            .as_deref()
            .map(|f| format!(" file=\"{}\"", escape::xml(f)))
            .unwrap_or_default();
        let _ = write!(
            out,
            "    <testcase classname=\"{}\" name=\"{}/{}\"{file}",
            escape::xml(&row.kind),
            escape::xml(&row.namespace),
            escape::xml(&row.name)
        );
        if let Some(cluster) = &row.cluster {
            let _ = write!(
                out,
                ">\n      <properties><property name=\"cluster\" value=\"{}\"/></properties>",
                escape::xml(cluster)
            );
            match row.result {
                Verdict::Pass => out.push_str("\n    </testcase>\n"),
                Verdict::Skipped => {
                    let _ = write!(
                        out,
                        "\n      <skipped message=\"{}\"/>\n    </testcase>\n",
                        escape::xml(&row.message)
                    );
                }
                Verdict::Fail | Verdict::Blocked => {
                    let _ = write!(
                        out,
                        "\n      <failure type=\"{}\" message=\"{}\"/>\n    </testcase>\n",
                        row.result.as_str(),
                        escape::xml(&row.message)
                    );
                }
            }
            continue;
        }
        match row.result {
            Verdict::Pass => out.push_str("/>\n"),
            Verdict::Skipped => {
                let _ = write!(
                    out,
                    ">\n      <skipped message=\"{}\"/>\n    </testcase>\n",
                    escape::xml(&row.message)
                );
            }
            Verdict::Fail | Verdict::Blocked => {
                let _ = write!(
                    out,
                    ">\n      <failure type=\"{}\" message=\"{}\"/>\n    </testcase>\n",
                    row.result.as_str(),
                    escape::xml(&row.message)
                );
            }
        }
    }
    out.push_str("  </testsuite>\n</testsuites>\n");
    out
}

/// GitHub workflow commands escape `%`, CR and LF in messages, and also `:` and `,` in properties.
/// With `several` clusters, each title starts with its row's cluster.
fn github(rows: &[Row], several: bool) -> String {
    let data = escape::github_data;
    let property = escape::github_property;
    let mut out = String::new();
    for row in rows
        .iter()
        .filter(|r| matches!(r.result, Verdict::Fail | Verdict::Blocked))
    {
        let mut properties = Vec::new();
        if let Some(file) = &row.file {
            properties.push(format!("file={}", property(file)));
        }
        if let Some(line) = row.line {
            properties.push(format!("line={line}"));
        }
        properties.push(format!(
            "title={}",
            property(&format!(
                "{}{} {} {}/{}",
                row.cluster
                    .as_deref()
                    .filter(|_| several)
                    .map(|c| format!("[{c}] "))
                    .unwrap_or_default(),
                row.result.as_str(),
                row.kind,
                row.namespace,
                row.name
            ))
        ));
        let _ = writeln!(
            out,
            "::error {}::{}",
            properties.join(","),
            data(&row.message)
        );
    }
    let _ = writeln!(out, "::notice title=offlux::{}", data(&summary(rows)));
    out
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
    let runs = match super::clusters::run_each(&args.run, &args.changed, scope) {
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
                            Some(cluster) => super::clusters::named(cluster, &text),
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
            let table_rows: Vec<Vec<String>> = shown
                .iter()
                .map(|r| {
                    let mut cells = vec![
                        r.result.as_str().to_owned(),
                        r.kind.clone(),
                        format!("{}/{}", r.namespace, r.name),
                        r.message.clone(),
                    ];
                    if several {
                        cells.insert(0, r.cluster.clone().unwrap_or_default());
                    }
                    cells
                })
                .collect();
            let headers: &[&str] = if several {
                &["CLUSTER", "RESULT", "KIND", "NAME", "MESSAGE"]
            } else {
                &["RESULT", "KIND", "NAME", "MESSAGE"]
            };
            let verdict_column = usize::from(several);
            let style = |column: usize, cell: &str| {
                if !color || column != verdict_column {
                    return None;
                }
                match cell {
                    "PASS" => Some(super::paint::GREEN),
                    "FAIL" => Some(super::paint::RED),
                    "BLOCKED" => Some(super::paint::YELLOW),
                    "SKIPPED" => Some(super::paint::DIM),
                    _ => None,
                }
            };
            let mut text = if table_rows.is_empty() {
                String::new()
            } else {
                table::render_styled(headers, &table_rows, style)
            };
            text.push_str(&summary(&rows));
            text.push('\n');
            text.push_str(&failures(&rows, several, color));
            context.human(text)
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
