//! `offlux diff`: what a change does to the cluster. The flags become a `DiffRequest`; the
//! library reconciles both sides (`Orchestrator::diff`), compares them (`reporting::diff::compare`)
//! and writes the comparison in each format asked for (`reporting::diff::Compared`); this module
//! prints it, writes the report files and the rendered trees, and picks the exit status.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};

use super::exit::{CliError, ExitStatus};
use super::run_args::RunArgs;
use super::stdout::Output;
use super::{exit, out_dir, report, Context};
use crate::model::Object;
use crate::orchestrator::diff::{BaseSide, ClusterSides, DiffError, DiffRequest, Reconciled};
use crate::reporting::diff::{self as reporting, ClusterReport, Compared, Format};
use crate::selection::scope::Target;

#[derive(clap::Args, Debug)]
pub struct DiffArgs {
    /// What to compare: every rendered object (the default); `images`: the container images
    /// added, removed or changed; `ks NAME` / `hr NAME`: what one Kustomization or HelmRelease
    /// applies (only what it depends on is reconciled).
    #[arg(value_enum)]
    pub what: Option<DiffWhat>,
    /// With `ks` or `hr`: the object's name.
    #[arg(add = super::completions::object_names())]
    pub name: Option<String>,
    /// With `ks` or `hr`: the object's namespace [default: any].
    #[arg(short = 'n', long)]
    pub namespace: Option<String>,
    /// With `ks` or `hr`: only the objects whose labels match (`key=value`, `key!=value`, `key`,
    /// `!key`, `key in (a,b)`, comma-separated), on either side; NAME may then be left out.
    #[arg(short = 'l', long = "selector", value_name = "SELECTOR")]
    pub selector: Option<String>,
    #[command(flatten)]
    pub run: RunArgs,
    /// The revision compared against [default: the merge base of HEAD with the default branch:
    /// `origin/HEAD`, else `main` or `master`].
    #[arg(long, value_name = "REF")]
    pub base: Option<String>,
    /// Compare against this directory instead of a revision: another checkout of the repository
    /// (its layout the same as the working tree's, `--path` and `--root` taken relative to it).
    #[arg(long, value_name = "DIR", conflicts_with_all = ["base", "changed_only"])]
    pub base_dir: Option<PathBuf>,
    /// The revision to compare [default: the working tree, uncommitted changes included].
    #[arg(long, value_name = "REF")]
    pub head: Option<String>,
    /// Output format.
    #[arg(short = 'o', long, value_enum, default_value_t = DiffFormat::Human)]
    pub output: DiffFormat,
    /// Unchanged lines shown around each change.
    #[arg(short = 'U', long = "context", default_value_t = 3, value_name = "N")]
    pub context: usize,
    /// In the human and markdown reports, each changed object field by field (`path: before →
    /// after`, list items by their merge keys, moved items) instead of its unified diff.
    #[arg(long)]
    pub fields: bool,
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
    /// With `-o markdown`: where the whole comparison can be read (the HTML report's artifact, a
    /// CI job's page), linked from the note of a report cut to `--max-size`.
    #[arg(long, value_name = "URL", value_parser = reporting::full_report_url)]
    pub full_report_url: Option<String>,
    /// Reconcile and compare only the producers the change can affect (their files, components,
    /// values, charts and the data they read changed), what depends on them and what creates
    /// them; the others are left out of both sides, with a note.
    #[arg(long)]
    pub changed_only: bool,
    /// A label or annotation key left out of the comparison wherever a `metadata` holds it (a
    /// glob: `checksum/*`; repeatable), besides the default set.
    #[arg(long = "strip-attr", value_name = "KEY")]
    pub strip_attr: Vec<String>,
    /// Compare the labels and annotations a chart bump changes on every object, which are left
    /// out by default: `helm.sh/chart`, `chart`, `app.kubernetes.io/version`, `checksum/*`.
    #[arg(long)]
    pub no_default_strip: bool,
    /// Also write the markdown report to FILE, from the same comparison (with `-o`, one run
    /// gives the PR comment, the annotations and the JSON).
    #[arg(long, value_name = "FILE")]
    pub report_markdown: Option<PathBuf>,
    /// Also write the JSON report to FILE, from the same comparison.
    #[arg(long, value_name = "FILE")]
    pub report_json: Option<PathBuf>,
    /// Also write the GitHub annotations to FILE, from the same comparison.
    #[arg(long, value_name = "FILE")]
    pub report_github: Option<PathBuf>,
    /// Also write the plain-text report to FILE, from the same comparison.
    #[arg(long, value_name = "FILE")]
    pub report_human: Option<PathBuf>,
    /// Also write the HTML report to FILE (one self-contained page), from the same comparison.
    #[arg(long, value_name = "FILE")]
    pub report_html: Option<PathBuf>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum DiffWhat {
    /// The container images of the workloads each side renders.
    #[value(alias = "image")]
    Images,
    /// What one Kustomization applies.
    #[value(alias = "kustomization")]
    Ks,
    /// What one HelmRelease renders.
    #[value(alias = "helmrelease")]
    Hr,
}

/// What a chart bump changes on every object it renders without changing what runs.
const DEFAULT_STRIP: &[&str] = &[
    "helm.sh/chart",
    "chart",
    "app.kubernetes.io/version",
    "checksum/*",
];

impl DiffArgs {
    /// With `ks NAME` / `hr NAME`: the one producer compared, as a scope target.
    fn scope(&self) -> Result<Option<Target>, String> {
        let kind = match self.what {
            Some(DiffWhat::Ks) => "Kustomization",
            Some(DiffWhat::Hr) => "HelmRelease",
            _ => {
                if self.name.is_some() || self.namespace.is_some() || self.selector.is_some() {
                    return Err("a NAME, `-n` and `-l` go with `diff ks` or `diff hr`".into());
                }
                return Ok(None);
            }
        };
        if self.selector.is_some() {
            return Ok(Some(Target {
                kinds: vec![kind.to_owned()],
                name: self.name.clone(),
                namespace: self.namespace.clone(),
            }));
        }
        let Some(name) = &self.name else {
            return Err(format!(
                "`diff {}` needs the {kind}'s name",
                if kind == "Kustomization" { "ks" } else { "hr" }
            ));
        };
        Ok(Some(Target {
            kinds: vec![kind.to_owned()],
            name: Some(name.clone()),
            namespace: self.namespace.clone(),
        }))
    }

    /// The reports to write besides stdout, with their files.
    fn reports(&self) -> impl Iterator<Item = (DiffFormat, &Path)> {
        [
            (DiffFormat::Human, &self.report_human),
            (DiffFormat::Markdown, &self.report_markdown),
            (DiffFormat::Json, &self.report_json),
            (DiffFormat::Github, &self.report_github),
            (DiffFormat::Html, &self.report_html),
        ]
        .into_iter()
        .filter_map(|(format, path)| Some((format, path.as_deref()?)))
    }

    /// The label and annotation keys left out of the comparison.
    fn strip_set(&self) -> Vec<String> {
        let defaults = DEFAULT_STRIP
            .iter()
            .filter(|_| !self.no_default_strip)
            .map(|k| (*k).to_owned());
        defaults.chain(self.strip_attr.iter().cloned()).collect()
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum DiffFormat {
    Human,
    Markdown,
    Json,
    Github,
    /// One self-contained page: a tree to navigate, a filter, unified and side-by-side views.
    Html,
}

pub(super) fn run(
    args: &DiffArgs,
    context: &Context,
    out: &mut Output,
) -> Result<ExitStatus, CliError> {
    if args.what == Some(DiffWhat::Images) {
        let other_format = !matches!(args.output, DiffFormat::Human | DiffFormat::Json);
        if other_format || args.reports().next().is_some() || args.out.is_some() {
            return Err(CliError::usage(
                "`diff images` prints a table, or a list with `-o json`".to_owned(),
                Some("`-o markdown|github|html`, `--report-FORMAT FILE` and `--out DIR` go with the objects' comparison (`offlux diff`)"),
            ));
        }
    }
    let scope = args
        .scope()
        .map_err(|message| CliError::usage(message, None))?;
    let selector = (args.selector.as_deref())
        .map(crate::labels::Selector::parse)
        .transpose()
        .map_err(|message| {
            CliError::usage(
                format!("`-l`: {message}"),
                Some("write selectors as `key=value`, `key!=value`, `key`, `!key`, `key in (a,b)` or `key notin (a,b)`"),
            )
        })?;
    let request = DiffRequest {
        base: match &args.base_dir {
            Some(dir) => BaseSide::Directory(dir.clone()),
            None => BaseSide::Revision(args.base.clone()),
        },
        head: args.head.clone(),
        changed_only: args.changed_only,
        // With `-l` and no name, every producer of the kind may be one compared: both sides run
        // whole, and the comparison keeps the ones whose labels match.
        scope: scope.clone().filter(|target| target.name.is_some()),
    };
    // From here on a signal cancels both sides' runs, whenever each starts, and the command
    // ends with the signal's status: never with a comparison of what was cut short.
    super::interrupt::listen_to_the_end();
    let sides = args.run.orchestrate_with(|offlux| offlux.diff(&request));
    if let Some(interrupted) = super::interrupt::error() {
        return Err(interrupted);
    }
    let sides = sides.map_err(|message| CliError::usage(message, None))?;
    let sides = sides.map_err(|error| match &error {
        DiffError::NotGit {
            base_is_directory, ..
        } => CliError::usage(
            error.to_string(),
            Some(if *base_is_directory {
                "`--head` and `--changed-only` read revisions from git: leave them out to compare two directories"
            } else {
                "`offlux diff` compares revisions of a git repository; run it inside one (or compare two directories with `--base-dir`)"
            }),
        ),
        DiffError::Base { branches, .. } if !branches.is_empty() => CliError::usage(
            error.to_string(),
            Some(&format!(
                "name the revision to compare against with `--base REF`; branches here: {}",
                branches.join(", ")
            )),
        ),
        DiffError::Base { .. } => CliError::usage(
            error.to_string(),
            Some("name the revision to compare against with `--base REF`"),
        ),
        DiffError::NotFound(_) => CliError::usage(
            error.to_string(),
            Some("`offlux get ks -A` / `offlux get hr -A` list them"),
        ),
        DiffError::Cancelled => CliError::failed("interrupted"),
        DiffError::OverBudget(_) => CliError::failed(error.to_string()),
        DiffError::Setting(_) => CliError::usage(error.to_string(), None),
    })?;
    for note in &sides.notes {
        report::eprint(context, &format!("note: {note}\n"));
    }
    let compare = reporting::CompareOptions {
        diff: crate::diff::Options {
            context: args.context,
            strip: args.strip_set(),
        },
        skip_secrets: args.skip_secrets,
        skip_crds: args.skip_crds,
        skip_kinds: args.skip_kinds.clone(),
        scope,
        selector,
    };
    let clusters = &sides.clusters;
    if let (Some(selector), Some(target)) = (&compare.selector, &compare.scope) {
        let any = clusters
            .iter()
            .any(|c| !reporting::labelled_producers(c, &target.kinds, selector).is_empty());
        if !any {
            return Err(CliError::usage(
                format!(
                    "no {} whose labels match `{}` on either side",
                    target.kinds.join("/"),
                    args.selector.as_deref().unwrap_or_default()
                ),
                Some("`offlux get ks -A -l SELECTOR` / `offlux get hr -A -l SELECTOR` list the ones that match"),
            ));
        }
    }
    let reports = reporting::compare(clusters, &compare);
    if args.what == Some(DiffWhat::Images) {
        return diff_images(clusters, &reports, args, context, out);
    }
    for warning in reporting::warnings(clusters, &reports, &compare) {
        report::eprint(context, &format!("warning: {warning}\n"));
    }
    let labels = (sides.base_name.as_str(), sides.head_name.as_str());
    let color = context.color && std::io::stdout().is_terminal();
    let empty = reports.iter().all(ClusterReport::is_empty);
    // The strip set is named wherever differences are shown, so nobody takes it for all there is.
    let stripped = (!empty)
        .then(|| args.strip_set())
        .filter(|set| !set.is_empty());
    let compared = Compared {
        reports: &reports,
        labels,
        stripped: stripped.as_deref(),
        clusters,
        max_size: args.max_size,
        full_report: args.full_report_url.as_deref(),
        fields: args.fields,
    };
    let text = match args.output {
        DiffFormat::Human => context.human(compared.formatted(Format::Human, color)),
        format => compared.formatted(format.into(), false),
    };
    // Every report asked for comes from this one comparison (`--report-markdown FILE`...).
    for (format, path) in args.reports() {
        let text = compared.formatted(format.into(), false);
        crate::fsio::write_atomically(path, text.as_bytes()).map_err(|e| {
            CliError::usage(
                format!("cannot write the report `{}`: {e}", path.display()),
                None,
            )
        })?;
    }
    // A signal that came while the sides were compared still ends the command unprinted.
    if let Some(interrupted) = super::interrupt::error() {
        return Err(interrupted);
    }
    out.write(&text)?;
    if let Some(dir) = &args.out {
        write_trees(dir, &sides.work_tree, clusters, context)?;
    }
    report::eprint(
        context,
        &reporting::stderr_summary(&reports, labels, &args.strip_set()),
    );
    // The revisions are unmounted; the reports are left to the process's exit.
    drop(reports);
    exit::leave_to_exit(sides);
    Ok(ExitStatus::failures_if(!empty && !args.exit_zero))
}

impl From<DiffFormat> for Format {
    fn from(format: DiffFormat) -> Format {
        match format {
            DiffFormat::Human => Format::Human,
            DiffFormat::Markdown => Format::Markdown,
            DiffFormat::Json => Format::Json,
            DiffFormat::Github => Format::Github,
            DiffFormat::Html => Format::Html,
        }
    }
}

/// `--out DIR`: both rendered trees, one file per producer, Secrets left out; with several
/// clusters, each side's under `DIR/base/<cluster>/` and `DIR/head/<cluster>/`.
fn write_trees(
    dir: &Path,
    repository_root: &Path,
    clusters: &[ClusterSides],
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
    for cluster in clusters {
        for (name, side) in ["base", "head"]
            .into_iter()
            .zip([&cluster.base, &cluster.head])
        {
            let Some(side) = side else { continue };
            let target = match &cluster.cluster {
                Some(cluster) => dir.join(name).join(cluster),
                None => dir.join(name),
            };
            write_tree(&target, side, context)?;
        }
    }
    Ok(())
}

/// One side's rendered tree under `target`.
fn write_tree(target: &Path, side: &Reconciled, context: &Context) -> Result<(), CliError> {
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
    match out_dir::write_tree(target, &files, &Default::default()) {
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
    Ok(())
}

/// `offlux diff images`: the containers whose image the change adds, removes or changes, per
/// cluster, producer and workload (a table, or `-o json` for the list).
fn diff_images(
    clusters: &[ClusterSides],
    reports: &[ClusterReport],
    args: &DiffArgs,
    context: &Context,
    out: &mut Output,
) -> Result<ExitStatus, CliError> {
    let several = clusters.iter().any(|c| c.cluster.is_some());
    let changes = reporting::image_changes(clusters);
    let text = match args.output {
        DiffFormat::Json => serde_json::to_string_pretty(&changes).unwrap_or_default() + "\n",
        _ if changes.is_empty() => String::new(),
        _ => context.human(crate::reporting::images::changes_table(&changes, several)),
    };
    out.write(&text)?;
    // The images of a producer that did not render on a side are unknown there: said, never
    // left out silently.
    if let Some(note) = reporting::unknown_images(reports) {
        report::eprint(context, &format!("note: {note}\n"));
    }
    if changes.is_empty() && args.output != DiffFormat::Json {
        report::eprint(context, "No image changes.\n");
    }
    Ok(ExitStatus::failures_if(
        !changes.is_empty() && !args.exit_zero,
    ))
}
