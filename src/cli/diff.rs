//! `offlux diff`: what a change does to the cluster. The base revision (by default the merge base
//! of HEAD with the default branch) is read from git and mounted in memory behind `fsio`
//! (`gitrev::mount`: nothing is written to disk), the head is the working tree or another revision; both are reconciled with the same options and compared
//! (`crate::diff`), and the differences printed for a person, a pull request comment (markdown),
//! a program (JSON) or GitHub's workflow annotations.

use std::collections::BTreeMap;
use std::fmt::Write;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};

use super::exit::{CliError, ExitStatus};
use super::run_args::{LeftOut, RunArgs};
use super::stdout::Output;
use super::test::{rows, Verdict};
use super::{exit, out_dir, report, Context};
use crate::controllers::changed;
use crate::controllers::runtime::RunReport;
use crate::diff::{self, Change, ObjectChange, Outcome, ProducerKey, Report, Side};
use crate::escape;
use crate::gitrev;
use crate::model::Object;

#[derive(clap::Args, Debug)]
pub struct DiffArgs {
    #[command(flatten)]
    pub run: RunArgs,
    /// The revision compared against [default: the merge base of HEAD with the default branch:
    /// `origin/HEAD`, else `main` or `master`].
    #[arg(long, value_name = "REF")]
    pub base: Option<String>,
    /// The revision to compare [default: the working tree, uncommitted changes included].
    #[arg(long, value_name = "REF")]
    pub head: Option<String>,
    /// Output format.
    #[arg(short = 'o', long, value_enum, default_value_t = DiffFormat::Human)]
    pub output: DiffFormat,
    /// Unchanged lines shown around each change.
    #[arg(short = 'U', long = "context", default_value_t = 3, value_name = "N")]
    pub context: usize,
    /// Also write both rendered trees, as `render --out` would, under `DIR/base` and `DIR/head`
    /// (Secrets left out).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Exit with 0 when there are differences (failures to run are still 2).
    #[arg(long)]
    pub exit_zero: bool,
    /// Leave Secrets out (by default they are compared with their values hidden).
    #[arg(long)]
    pub skip_secrets: bool,
    /// Leave CustomResourceDefinitions out of the comparison.
    #[arg(long, default_value_t = true, action = clap::ArgAction::Set, value_name = "BOOL")]
    pub skip_crds: bool,
    /// Leave these kinds out (comma-separated).
    #[arg(long, value_delimiter = ',')]
    pub skip_kinds: Vec<String>,
    /// With `-o markdown`: the most bytes printed (GitHub's comments hold 65 536 characters);
    /// diffs that do not fit are left out with a note.
    #[arg(long, default_value_t = 60_000, value_name = "BYTES")]
    pub max_size: usize,
    /// Reconcile and compare only the producers the change can affect (their files, components,
    /// values, charts and the data they read changed), what depends on them and what creates
    /// them; the others are left out of both sides, with a note.
    #[arg(long)]
    pub changed_only: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum DiffFormat {
    Human,
    Markdown,
    Json,
    Github,
}

/// A reconciled side and what it was read from.
struct Reconciled {
    /// `base (abc1234)`, `working tree`...
    name: String,
    report: RunReport,
    /// The root the side was read under, to take out of messages.
    root: PathBuf,
    /// Where a revision is mounted in memory, unmounted when this is dropped.
    dir: Option<crate::fsio::Mount>,
}

pub(super) fn run(
    args: &DiffArgs,
    context: &Context,
    out: &mut Output,
) -> Result<ExitStatus, CliError> {
    // From here on a signal cancels both sides' runs, whenever each starts, and the command
    // ends with the signal's status: never with a comparison of what was cut short.
    super::interrupt::listen();
    let start = args.run.repo.root.as_ref().unwrap_or(&args.run.repo.path);
    // The revisions' objects, read by both sides, share one budget of bytes inflated.
    let git_budget = std::sync::Arc::new(crate::budget::RunBudget::new(args.run.budget.limits()));
    let repository = match gitrev::Repository::discover(start) {
        Ok(repository) => std::sync::Arc::new(repository.charge_to(git_budget.clone())),
        Err(error) => {
            return Err(CliError::usage(
                error.to_string(),
                Some("`offlux diff` compares revisions of a git repository; run it inside one"),
            ))
        }
    };
    let (path, root) = match relative_paths(&args.run, &repository.work_tree) {
        Ok(paths) => paths,
        Err(message) => return Err(CliError::usage(message, None)),
    };
    let base = match &args.base {
        Some(name) => repository.resolve(name).map(|id| (id, name.clone())),
        None => repository.default_base(),
    };
    let (base_id, base_name) = match base {
        Ok(base) => base,
        Err(error) => {
            return Err(CliError::usage(
                format!("base: {error}"),
                Some("name the revision to compare against with `--base REF`"),
            ))
        }
    };
    let paths = (path.as_path(), root.as_path());
    let base_ref = base_name;
    let base_name = format!("base `{base_ref}` ({})", short(base_id));
    let sides = if args.changed_only {
        changed_sides(
            &repository,
            (base_id, &base_ref, &base_name),
            paths,
            args,
            context,
        )
        .map(|(base, head, left_out)| (base, head, Some(left_out)))
    } else {
        whole_sides(&repository, base_id, &base_name, paths, args, context)
            .map(|(b, h)| (b, h, None))
    };
    if let Some(interrupted) = super::interrupt::error() {
        return Err(interrupted);
    }
    let (base, head, left_out) = match sides {
        Ok(sides) => sides,
        Err(message) => return Err(CliError::usage(message, None)),
    };
    if base.report.cancelled || head.report.cancelled {
        return Err(super::interrupt::error().unwrap_or_else(|| CliError::failed("interrupted")));
    }
    // A revision read short of its files is no revision to compare: a file the budget cut
    // off would show as removed or added.
    let extracted = crate::budget::Resource::ExtractedBytes;
    if git_budget.used(extracted) > extracted.limit(git_budget.limits()) {
        let exceeded = crate::budget::Exceeded::new(extracted, git_budget.limits());
        return Err(CliError::failed(format!(
            "reading the revisions from git: {exceeded}"
        )));
    }
    for side in [&base, &head] {
        for row in rows(&side.report) {
            if matches!(row.result, Verdict::Fail | Verdict::Blocked) {
                report::eprint(
                    context,
                    &format!(
                        "warning: {}: {}/{}/{} failed: {}\n",
                        side.name,
                        row.kind,
                        row.namespace,
                        row.name,
                        scrub(&row.message, &side.root)
                    ),
                );
            }
        }
    }
    let keeps = |object: &Object| {
        let kind = object.id.kind.as_str();
        !(args.skip_secrets && kind == "Secret"
            || args.skip_crds && kind == "CustomResourceDefinition"
            || args.skip_kinds.iter().any(|k| k == kind))
    };
    let base_side = side(&base, &keeps);
    let head_side = side(&head, &keeps);
    let report = diff::compare(
        &base_side,
        &head_side,
        &diff::Options {
            context: args.context,
        },
    );
    let files = producer_files(&[&head, &base]);
    let labels = (base.name.as_str(), head.name.as_str());
    let color = context.color && std::io::stdout().is_terminal();
    let text = match args.output {
        DiffFormat::Human => context.human(human(&report, labels, color)),
        DiffFormat::Markdown => {
            let mut text = markdown(&report, labels, args.max_size);
            if let Some(left_out) = &left_out {
                let _ = writeln!(text, "\n_{}_", left_out.sentence());
            }
            text
        }
        DiffFormat::Json => json(&report, left_out.as_ref()),
        DiffFormat::Github => github(&report, &files),
    };
    // A signal that came while the sides were compared still ends the command unprinted.
    if let Some(interrupted) = super::interrupt::error() {
        return Err(interrupted);
    }
    out.write(&text)?;
    if let Some(dir) = &args.out {
        write_trees(dir, &repository.work_tree, [&base, &head], context)?;
    }
    let counts = report.counts();
    if report.is_empty() {
        report::eprint(
            context,
            &format!("No differences between {} and {}.\n", labels.0, labels.1),
        );
    } else {
        let objects: usize = counts.values().sum();
        let text = format!(
            "{objects} objects differ ({}), {} status changes, in {} producers.\n",
            counts
                .iter()
                .map(|(change, n)| format!("{n} {}", change.as_str()))
                .collect::<Vec<_>>()
                .join(", "),
            report.status_changes(),
            report.producers.len()
        );
        report::eprint(context, &text);
    }
    let differs = !report.is_empty();
    // The revisions are unmounted; the reports are left to the process's exit.
    for side in [base, head] {
        drop(side.dir);
        exit::leave_to_exit(side.report);
    }
    Ok(ExitStatus::failures_if(differs && !args.exit_zero))
}

/// Both sides reconciled whole.
fn whole_sides(
    repository: &std::sync::Arc<gitrev::Repository>,
    base_id: gitrev::ObjectId,
    base_name: &str,
    paths: (&Path, &Path),
    args: &DiffArgs,
    context: &Context,
) -> Result<(Reconciled, Reconciled), String> {
    // The base's tree objects are read while the head reconciles.
    let (base_dir, head) = std::thread::scope(|scope| {
        let writer = scope.spawn(|| mount_revision(repository, base_id, base_name, context));
        let head = match &args.head {
            Some(name) => repository
                .resolve(name)
                .map_err(|error| format!("head: {error}"))
                .and_then(|id| {
                    let name = format!("head `{name}` ({})", short(id));
                    let dir = mount_revision(repository, id, &name, context)?;
                    reconcile_dir(dir, &name, paths, &args.run)
                }),
            None => args
                .run
                .run()
                .map(|(repository, report)| {
                    let root = repository.root.clone();
                    exit::leave_to_exit(repository);
                    Reconciled {
                        name: "working tree".to_owned(),
                        root,
                        report,
                        dir: None,
                    }
                })
                .map_err(|message| format!("working tree: {message}")),
        };
        let base_dir = writer
            .join()
            .unwrap_or_else(|_| Err(format!("{base_name}: reading the revision failed")));
        (base_dir, head)
    });
    let head = head?;
    let base = base_dir.and_then(|dir| reconcile_dir(dir, base_name, paths, &args.run))?;
    Ok((base, head))
}

/// `--changed-only`: both sides discovered, the producers the change can affect on either
/// side selected (`controllers::changed`), and both reconciled narrowed to them.
fn changed_sides(
    repository: &std::sync::Arc<gitrev::Repository>,
    (base_id, base_ref, base_name): (gitrev::ObjectId, &str, &str),
    (path, root): (&Path, &Path),
    args: &DiffArgs,
    context: &Context,
) -> Result<(Reconciled, Reconciled, LeftOut), String> {
    let head_id = match &args.head {
        Some(name) => Some((
            repository
                .resolve(name)
                .map_err(|error| format!("head: {error}"))?,
            name,
        )),
        None => None,
    };
    let changes = changed::Changes::between(repository, base_id, base_ref, head_id.map(|h| h.0))?;
    let files = changed::under_root(&changes.files, root);
    let base_dir = mount_revision(repository, base_id, base_name, context)?;
    let head_dir = match head_id {
        Some((id, name)) => {
            let label = format!("head `{name}` ({})", short(id));
            Some((mount_revision(repository, id, &label, context)?, label))
        }
        None => None,
    };
    let discover = |dir: Option<&crate::fsio::Mount>, name: &str| {
        let mut run = args.run.clone();
        if let Some(dir) = dir {
            run.repo.path = dir.path().join(path);
            run.repo.root = Some(dir.path().join(root));
        }
        let found = run.discover().map_err(|e| format!("{name}: {e}"))?;
        Ok::<_, String>((run, found))
    };
    let head_name = head_dir
        .as_ref()
        .map_or_else(|| "working tree".to_owned(), |(_, label)| label.clone());
    let (head_run, head_found) = discover(head_dir.as_ref().map(|(d, _)| d), &head_name)?;
    let (base_run, base_found) = discover(Some(&base_dir), base_name)?;
    let selection =
        changed::select(&head_found, &files).union(changed::select(&base_found, &files));
    let side = |run: &RunArgs, found, name: &str, dir: Option<crate::fsio::Mount>| {
        let (found, report, left_out) = run
            .run_selection(found, &selection, &changes.base_label)
            .map_err(|e| format!("{name}: {e}"))?;
        let root = found.root.clone();
        exit::leave_to_exit(found);
        Ok::<_, String>((
            Reconciled {
                name: name.to_owned(),
                report,
                root,
                dir,
            },
            left_out,
        ))
    };
    let (head, left_out) = side(&head_run, head_found, &head_name, head_dir.map(|(d, _)| d))?;
    let (base, _) = side(&base_run, base_found, base_name, Some(base_dir))?;
    left_out.print(context);
    Ok((base, head, left_out))
}

fn short(id: gitrev::ObjectId) -> String {
    id.to_hex().chars().take(12).collect()
}

/// `--path` and `--root` relative to the working tree, so the same places can be found in a
/// revision mounted elsewhere.
fn relative_paths(run: &RunArgs, work_tree: &Path) -> Result<(PathBuf, PathBuf), String> {
    let relative = |path: &Path| -> Result<PathBuf, String> {
        let real = path
            .canonicalize()
            .map_err(|e| format!("`{}`: {e}", path.display()))?;
        real.strip_prefix(work_tree)
            .map(Path::to_path_buf)
            .map_err(|_| {
                format!(
                    "`{}` is not inside the git working tree `{}`",
                    path.display(),
                    work_tree.display()
                )
            })
    };
    let path = relative(&run.repo.path)?;
    let root = match &run.repo.root {
        Some(root) => relative(root)?,
        None => PathBuf::new(),
    };
    Ok((path, root))
}

/// Mounts a revision in memory behind `fsio` (`gitrev::mount`), at a path under the standard
/// temporary directory that is never created: nothing of the revision is written.
fn mount_revision(
    repository: &std::sync::Arc<gitrev::Repository>,
    commit: gitrev::ObjectId,
    name: &str,
    context: &Context,
) -> Result<crate::fsio::Mount, String> {
    let parent = crate::fsio::absolute(&std::env::temp_dir());
    let (mount, notes) = gitrev::mount(repository.clone(), commit, &parent, &short(commit))
        .map_err(|e| format!("{name}: {e}"))?;
    for note in &notes {
        report::eprint(context, &format!("note: {name}: {note}\n"));
    }
    Ok(mount)
}

/// Reconciles a revision mounted by `mount_revision`, at the same `--path` and `--root`.
fn reconcile_dir(
    dir: crate::fsio::Mount,
    name: &str,
    (path, root): (&Path, &Path),
    run: &RunArgs,
) -> Result<Reconciled, String> {
    let mut args = run.clone();
    args.repo.path = dir.path().join(path);
    args.repo.root = Some(dir.path().join(root));
    let (repository, report) = args.run().map_err(|e| format!("{name}: {e}"))?;
    let root = repository.root.clone();
    exit::leave_to_exit(repository);
    Ok(Reconciled {
        name: name.to_owned(),
        root,
        report,
        dir: Some(dir),
    })
}

/// A message without the mount point a revision was read under.
fn scrub(message: &str, root: &Path) -> String {
    let root = root.display().to_string();
    message.replace(&format!("{root}/"), "").replace(&root, ".")
}

fn producer_key(id: &crate::model::ResourceId) -> ProducerKey {
    ProducerKey {
        kind: id.kind.to_string(),
        namespace: id.namespace.to_string(),
        name: id.name.to_string(),
    }
}

fn side<'a>(reconciled: &'a Reconciled, keeps: &dyn Fn(&Object) -> bool) -> Side<'a> {
    let statuses = rows(&reconciled.report)
        .into_iter()
        .map(|row| {
            let failed = matches!(row.result, Verdict::Fail | Verdict::Blocked);
            let text = match row.result {
                Verdict::Pass => "PASS".to_owned(),
                Verdict::Fail => format!("FAIL: {}", scrub(&row.message, &reconciled.root)),
                Verdict::Blocked => format!("BLOCKED: {}", scrub(&row.message, &reconciled.root)),
                Verdict::Skipped => format!("SKIPPED: {}", scrub(&row.message, &reconciled.root)),
            };
            (
                ProducerKey {
                    kind: row.kind,
                    namespace: row.namespace,
                    name: row.name,
                },
                Outcome { failed, text },
            )
        })
        .collect();
    Side {
        rendered: reconciled
            .report
            .rendered
            .iter()
            .map(|(id, objects)| {
                (
                    producer_key(id),
                    objects.iter().filter(|o| keeps(o)).collect(),
                )
            })
            .collect(),
        statuses,
    }
}

/// Where each Flux object is defined, the head's definition first.
fn producer_files(sides: &[&Reconciled]) -> BTreeMap<ProducerKey, (String, u32)> {
    let mut files = BTreeMap::new();
    for side in sides {
        for row in rows(&side.report) {
            if let Some(file) = row.file {
                files
                    .entry(ProducerKey {
                        kind: row.kind,
                        namespace: row.namespace,
                        name: row.name,
                    })
                    .or_insert((scrub(&file, &side.root), row.line.unwrap_or(0)));
            }
        }
    }
    files
}

fn outcome_text(outcome: &Option<Outcome>) -> &str {
    match outcome {
        Some(outcome) => &outcome.text,
        None => "absent",
    }
}

fn secret_note(change: &ObjectChange) -> Option<String> {
    let keys = change.secret_keys.as_ref().filter(|k| !k.is_empty())?;
    let mut parts = Vec::new();
    for (words, list) in [
        ("values changed", &keys.changed),
        ("added", &keys.added),
        ("removed", &keys.removed),
    ] {
        if !list.is_empty() {
            parts.push(format!("{words}: {}", list.join(", ")));
        }
    }
    Some(format!("keys {}", parts.join("; ")))
}

fn change_line(change: &ObjectChange) -> String {
    let mut line = format!("{} {}", change.object, change.change.as_str());
    if let Some(from) = &change.from {
        let _ = write!(line, " from {from}");
    }
    if let Some(note) = secret_note(change) {
        let _ = write!(line, " ({note})");
    }
    line
}

const RED: &str = "\x1b[31m";
const GREEN: &str = "\x1b[32m";
const CYAN: &str = "\x1b[36m";
const BOLD: &str = "\x1b[1m";
const RESET: &str = "\x1b[0m";

/// The report for a terminal: every repository-supplied part escaped (`escape::terminal_line`)
/// before offlux's own colours are added.
fn human(report: &Report, (base, head): (&str, &str), color: bool) -> String {
    let line = escape::terminal_line;
    let paint = |code: &str, text: &str| {
        if color {
            format!("{code}{text}{RESET}")
        } else {
            text.to_owned()
        }
    };
    let mut out = String::new();
    if report.is_empty() {
        return out;
    }
    let _ = writeln!(
        out,
        "{}",
        paint(
            BOLD,
            &format!("offlux diff: {} → {}", line(base), line(head))
        )
    );
    for (producer, changes) in &report.producers {
        let _ = writeln!(out, "\n{}", paint(BOLD, &line(&producer.to_string())));
        if let Some(status) = &changes.status {
            let _ = writeln!(
                out,
                "  status: {} → {}",
                line(outcome_text(&status.before)),
                line(outcome_text(&status.after))
            );
        }
        if changes.unknown > 0 {
            let _ = writeln!(
                out,
                "  {} objects not compared: this producer, or the one that applies it, failed on one side",
                changes.unknown
            );
        }
        for change in &changes.objects {
            let (mark, code) = match change.change {
                Change::Added => ("+", GREEN),
                Change::Removed => ("-", RED),
                Change::Changed => ("~", CYAN),
                Change::Moved => (">", CYAN),
            };
            let _ = writeln!(
                out,
                "  {} {}",
                paint(code, mark),
                line(&change_line(change))
            );
            if change.change == Change::Added || change.change == Change::Removed {
                continue;
            }
            for diff_line in change.diff.lines() {
                let line = line(diff_line);
                let code = if line.starts_with("+++") || line.starts_with("---") {
                    BOLD
                } else if line.starts_with('+') {
                    GREEN
                } else if line.starts_with('-') {
                    RED
                } else if line.starts_with("@@") {
                    CYAN
                } else {
                    ""
                };
                let line = if code.is_empty() {
                    line.into_owned()
                } else {
                    paint(code, &line)
                };
                let _ = writeln!(out, "    {line}");
            }
        }
    }
    out
}

/// The report as a pull request comment (GitHub markdown). Every repository-supplied string is
/// in code (`escape::markdown_code`, `markdown_cell`, `html_code`, `markdown_block`): nothing in a
/// name, namespace, message or diff can mention, link, embed, head or break a table.
fn markdown(report: &Report, (base, head): (&str, &str), max: usize) -> String {
    let code = escape::markdown_code;
    let mut out = String::new();
    let _ = writeln!(out, "### offlux diff: {} → {}\n", code(base), code(head));
    if report.is_empty() {
        out.push_str("No differences.\n");
        return out;
    }
    let counts = report.counts();
    let _ = writeln!(
        out,
        "{} objects differ ({}) in {} producers; {} status changes.\n",
        counts.values().sum::<usize>(),
        counts
            .iter()
            .map(|(change, n)| format!("{n} {}", change.as_str()))
            .collect::<Vec<_>>()
            .join(", "),
        report.producers.len(),
        report.status_changes()
    );
    let mut left_out_diffs = 0;
    let mut left_out_producers = 0;
    // Room kept for the closing note.
    let budget = max.saturating_sub(400);
    for (producer, changes) in &report.producers {
        let mut section = String::new();
        let _ = writeln!(section, "#### {}\n", code(&producer.to_string()));
        if let Some(status) = &changes.status {
            let _ = writeln!(
                section,
                "Status: {} → **{}**\n",
                code(outcome_text(&status.before)),
                code(outcome_text(&status.after))
            );
        }
        if changes.unknown > 0 {
            let _ = writeln!(
                section,
                "{} objects not compared: this producer, or the one that applies it, failed on one side.\n",
                changes.unknown
            );
        }
        if !changes.objects.is_empty() {
            section
                .push_str("| Change | Kind | Namespace | Name | Note |\n|---|---|---|---|---|\n");
            let cell = escape::markdown_cell;
            for change in &changes.objects {
                let note = match (&change.from, secret_note(change)) {
                    (Some(from), _) => format!("from {}", cell(&from.to_string())),
                    (None, Some(note)) => cell(&note),
                    (None, None) => String::new(),
                };
                let _ = writeln!(
                    section,
                    "| {} | {} | {} | {} | {} |",
                    change.change.as_str(),
                    cell(&change.object.kind),
                    cell(&change.object.namespace),
                    cell(&change.object.name),
                    note
                );
            }
            section.push('\n');
        }
        if out.len() + section.len() > budget {
            left_out_producers += 1;
            left_out_diffs += changes
                .objects
                .iter()
                .filter(|c| !c.diff.is_empty())
                .count();
            continue;
        }
        out.push_str(&section);
        for change in changes.objects.iter().filter(|c| !c.diff.is_empty()) {
            let block = format!(
                "<details><summary>{} {}</summary>\n\n{}\n</details>\n\n",
                change.change.as_str(),
                escape::html_code(&change.object.to_string()),
                escape::markdown_block("diff", &change.diff)
            );
            if out.len() + block.len() > budget {
                left_out_diffs += 1;
                continue;
            }
            out.push_str(&block);
        }
    }
    if left_out_diffs > 0 || left_out_producers > 0 {
        let _ = writeln!(
            out,
            "_Cut to stay under {max} bytes: {left_out_diffs} diffs and {left_out_producers} producers' tables not shown; \
             run `offlux diff` (or `offlux diff --out DIR`) to see everything._"
        );
    }
    out
}

fn json(report: &Report, left_out: Option<&LeftOut>) -> String {
    let mut items = Vec::new();
    for (producer, changes) in &report.producers {
        let producer_json = serde_json::json!({
            "kind": producer.kind,
            "namespace": producer.namespace,
            "name": producer.name,
        });
        if let Some(status) = &changes.status {
            items.push(serde_json::json!({
                "producer": producer_json,
                "object": null,
                "change": "status",
                "before": status.before.as_ref().map(|o| &o.text),
                "after": status.after.as_ref().map(|o| &o.text),
                "unknown": changes.unknown,
            }));
        }
        for change in &changes.objects {
            let mut item = serde_json::json!({
                "producer": producer_json,
                "object": {
                    "apiVersion": change.api_version,
                    "kind": change.object.kind,
                    "namespace": change.object.namespace,
                    "name": change.object.name,
                },
                "change": change.change.as_str(),
                "diff": change.diff,
            });
            if let Some(from) = &change.from {
                item["from"] = serde_json::json!({
                    "kind": from.kind, "namespace": from.namespace, "name": from.name,
                });
            }
            if let Some(keys) = &change.secret_keys {
                item["secretKeys"] = serde_json::json!({
                    "changed": keys.changed, "added": keys.added, "removed": keys.removed,
                });
            }
            if let Some((file, line)) = &change.file {
                item["file"] = serde_json::json!(file.display().to_string());
                if *line > 0 {
                    item["line"] = serde_json::json!(line);
                }
            }
            items.push(item);
        }
    }
    let mut text = match left_out {
        Some(left_out) => serde_json::to_string_pretty(
            &serde_json::json!({"changedOnly": left_out, "changes": items}),
        ),
        None => serde_json::to_string_pretty(&items),
    }
    .unwrap_or_default();
    text.push('\n');
    text
}

/// One workflow command: `::level file=F,line=L,title=T::message`.
fn workflow_command(
    level: &str,
    file: Option<(String, u32)>,
    title: &str,
    message: &str,
) -> String {
    let mut properties = Vec::new();
    if let Some((file, line)) = file {
        properties.push(format!("file={}", escape::github_property(&file)));
        if line > 0 {
            properties.push(format!("line={line}"));
        }
    }
    properties.push(format!("title={}", escape::github_property(title)));
    format!(
        "::{level} {}::{}\n",
        properties.join(","),
        escape::github_data(message)
    )
}

fn github(report: &Report, files: &BTreeMap<ProducerKey, (String, u32)>) -> String {
    let mut out = String::new();
    for (producer, changes) in &report.producers {
        let producer_file = files.get(producer).cloned();
        let title = format!("offlux diff: {producer}");
        if let Some(status) = &changes.status {
            let level = if status.after.as_ref().is_some_and(|o| o.failed) {
                "error"
            } else {
                "notice"
            };
            let message = format!(
                "status {} → {}",
                outcome_text(&status.before),
                outcome_text(&status.after)
            );
            out.push_str(&workflow_command(
                level,
                producer_file.clone(),
                &title,
                &message,
            ));
        }
        for change in &changes.objects {
            let file = change
                .file
                .as_ref()
                .map(|(f, l)| (f.display().to_string(), *l))
                .or_else(|| producer_file.clone());
            let mut message = change_line(change);
            if !change.diff.is_empty() && change.change != Change::Added {
                message.push('\n');
                message.push_str(&change.diff);
            }
            out.push_str(&workflow_command("notice", file, &title, &message));
        }
    }
    out
}

/// `--out DIR`: both rendered trees, one file per producer, Secrets left out.
fn write_trees(
    dir: &Path,
    repository_root: &Path,
    sides: [&Reconciled; 2],
    context: &Context,
) -> Result<(), CliError> {
    match out_dir::check_location(dir, repository_root) {
        Ok(false) => {}
        Ok(true) => {
            return Err(CliError::usage(
                format!("`{}` is inside the repository", dir.display()),
                Some("write the trees outside the repository"),
            ))
        }
        Err(error) => return Err(CliError::usage(error.to_string(), None)),
    }
    for (name, side) in ["base", "head"].into_iter().zip(sides) {
        let files: Vec<(out_dir::LayoutPath, String)> = side
            .report
            .rendered
            .iter()
            .map(|(id, objects)| {
                let kept: Vec<&Object> = objects.iter().filter(|o| o.id.kind != "Secret").collect();
                (
                    out_dir::producer_file(id, "yaml"),
                    super::objects::format(&kept, super::objects::ObjectFormat::Yaml),
                )
            })
            .collect();
        let target = dir.join(name);
        match out_dir::write_tree(&target, &files, &Default::default()) {
            Ok(done) => report::eprint(
                context,
                &format!(
                    "Wrote {} files under `{}`.\n",
                    done.written,
                    target.display()
                ),
            ),
            Err(error) if error.is_refusal() => {
                return Err(CliError::usage(
                    error.to_string(),
                    Some("choose an empty directory, or one offlux wrote before"),
                ))
            }
            Err(error) => {
                return Err(CliError::failed(format!(
                    "writing `{}`: {error}",
                    target.display()
                )));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markdown_names_are_code() {
        let mut report = Report::default();
        report.producers.insert(
            ProducerKey {
                kind: "Kustomization".into(),
                namespace: "ns".into(),
                name: "# @team [x](http://e) <b>|".into(),
            },
            crate::diff::ProducerReport {
                status: Some(crate::diff::StatusChange {
                    before: None,
                    after: Some(Outcome {
                        failed: true,
                        text: "FAIL: ![i](http://e/x.png) @x".into(),
                    }),
                }),
                ..Default::default()
            },
        );
        let text = markdown(&report, ("base", "head"), 60_000);
        assert!(
            text.contains("Status: `absent` → **`FAIL: ![i](http://e/x.png) @x`**"),
            "{text}"
        );
        assert!(
            text.contains("#### `Kustomization ns/# @team [x](http://e) <b>|`"),
            "{text}"
        );
    }
}
