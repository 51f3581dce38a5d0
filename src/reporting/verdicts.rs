//! Verdict rows: what `offlux test` says of each Flux object (PASS, FAIL, SKIPPED or BLOCKED with
//! its root cause), built from a run's report, and the row formats (a summary, the failures for a
//! person, JUnit XML, GitHub workflow commands). Other verbs read the same rows (`diff` compares
//! them, `validate` counts them), so every output calls an object's outcome the same.

use std::collections::BTreeMap;
use std::fmt::Write;

use super::named;
use super::paint;
use crate::controllers::depend::label;
use crate::controllers::runtime::RunReport;
use crate::diagnostic::Location;
use crate::escape;
use crate::model::ResourceId;
use crate::store::{Ready, Status, StatusRecord};

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Verdict {
    Pass,
    Fail,
    Skipped,
    Blocked,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
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
pub struct Row {
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
pub fn shown_namespace(id: &ResourceId) -> &str {
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

/// The object `record` waits on directly, when the chain that blocks it is longer than its root
/// cause: the member of `blocked_by` whose own chain holds the rest of it (a Kustomization blocked by
/// the HelmRelease it depends on, which its chart's OCIRepository blocks, is blocked via the
/// HelmRelease; the row names both, so the `dependsOn` entry a reader looks for is there).
fn nearest_blocker(
    record: &StatusRecord<ResourceId>,
    statuses: &BTreeMap<&ResourceId, &StatusRecord<ResourceId>>,
) -> Option<ResourceId> {
    let chain = &record.blocked_by;
    if chain.len() < 2 {
        return None;
    }
    // A chain passed up keeps its nearest dependency and the root causes below it (in no set
    // order): the nearest is the member whose own chain holds every other member.
    chain
        .iter()
        .find(|candidate| {
            statuses.get(candidate).is_some_and(|own| {
                !own.blocked_by.is_empty()
                    && chain
                        .iter()
                        .filter(|id| id != candidate)
                        .all(|id| own.blocked_by.contains(id))
            })
        })
        .cloned()
}

pub fn rows(report: &RunReport) -> Vec<Row> {
    // What blocked a row is named from every status of the run, reported or not.
    let statuses: BTreeMap<&ResourceId, &StatusRecord<ResourceId>> = (report.statuses.iter())
        .chain(&report.left_out)
        .map(|(id, r)| (id, r))
        .collect();
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
                    let via =
                        nearest_blocker(record, &statuses).filter(|d| Some(d) != cause.as_ref());
                    let text = match (&cause, &via) {
                        (Some(cause), Some(via)) => format!(
                            "blocked by {} (via {}): {message}",
                            label(cause),
                            label(via)
                        ),
                        (Some(cause), None) => format!("blocked by {}: {message}", label(cause)),
                        (None, _) => message.clone(),
                    };
                    (Verdict::Blocked, text, cause.map(|c| label(&c)))
                }
                // What the run assumed stays beside the failure it may explain.
                Status::Failed(message) => match report.notes.get(id) {
                    Some(notes) if !notes.is_empty() => (
                        Verdict::Fail,
                        format!("{message} ({})", notes.join("; ")),
                        None,
                    ),
                    _ => (Verdict::Fail, message.clone(), None),
                },
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
pub fn finding_rows(findings: &[crate::validate::Finding]) -> Vec<Row> {
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

pub fn summary(rows: &[Row]) -> String {
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
pub fn failures(rows: &[Row], several: bool, color: bool) -> String {
    let line = escape::terminal_line;
    let heading = |code: &str, text: &str| {
        if color {
            format!("{code}{text}{}", paint::RESET)
        } else {
            text.to_owned()
        }
    };
    let in_cluster = |row: &Row, text: String| match (&row.cluster, several) {
        (Some(cluster), true) => named(cluster, &text),
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
        let _ = writeln!(out, "{}", heading(paint::RED, "failed:"));
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
                    Some(cluster) => named(&cluster, &text),
                    None => text,
                };
                (text, count)
            })
            .collect();
        causes.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        let _ = writeln!(out, "{}", heading(paint::YELLOW, "blocked, by cause:"));
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

pub fn junit(rows: &[Row]) -> String {
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
pub fn github(rows: &[Row], several: bool) -> String {
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

/// The rows `shown` as a table for a person (the verdict coloured on a terminal), then the summary
/// of all `rows` and what failed; `several` clusters add a column naming each row's.
pub fn human(rows: &[Row], shown: &[&Row], several: bool, color: bool) -> String {
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
            "PASS" => Some(paint::GREEN),
            "FAIL" => Some(paint::RED),
            "BLOCKED" => Some(paint::YELLOW),
            "SKIPPED" => Some(paint::DIM),
            _ => None,
        }
    };
    let mut text = if table_rows.is_empty() {
        String::new()
    } else {
        super::table::render_styled(headers, &table_rows, style)
    };
    text.push_str(&summary(rows));
    text.push('\n');
    text.push_str(&failures(rows, several, color));
    text
}
