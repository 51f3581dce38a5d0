//! `offlux build ks|hr|all [NAME]`: the objects a Kustomization or HelmRelease (those of a
//! namespace, or every Kustomization) would apply, on stdout. With a NAME, only what NAME depends
//! on is reconciled (`controllers::scope`).

use super::exit::{CliError, ExitStatus};
use super::objects::{self, ObjectFormat, SkipArgs};
use super::run_args::RunArgs;
use super::stdout::Output;
use super::{exit, report, Context};
use crate::model::Object;
use crate::reporting::verdicts::shown_namespace;
use crate::selection::scope::Target;
use crate::store::{Ready, Status};

#[derive(clap::Args, Debug)]
pub struct BuildArgs {
    /// `ks` for Kustomizations, `hr` for HelmReleases, `all` for every Kustomization.
    #[arg(value_enum)]
    pub what: BuildKind,
    /// The Kustomization's or HelmRelease's name; without one, every object of that kind in the
    /// namespace (`-n`, default `flux-system`), or in all of them with `-A`.
    #[arg(add = super::completions::object_names())]
    pub name: Option<String>,
    /// The object's namespace.
    #[arg(short = 'n', long)]
    pub namespace: Option<String>,
    /// Every namespace (for `ks` and `hr` without a NAME).
    #[arg(short = 'A', long, conflicts_with = "namespace")]
    pub all_namespaces: bool,
    /// With a NAME, reconcile the whole repository, not only what NAME depends on (the output is
    /// the same; this is slower, for comparing).
    #[arg(long)]
    pub no_scope: bool,
    #[command(flatten)]
    pub run: RunArgs,
    #[command(flatten)]
    pub skip: SkipArgs,
    /// Output format.
    #[arg(short = 'o', long, value_enum, default_value_t = ObjectFormat::Yaml)]
    pub output: ObjectFormat,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum BuildKind {
    #[value(alias = "kustomization")]
    Ks,
    #[value(alias = "helmrelease")]
    Hr,
    All,
}

/// The namespace `build ks`/`build hr` without a NAME looks in, as flux-local's.
const DEFAULT_NAMESPACE: &str = "flux-system";

pub(super) fn run(
    args: &BuildArgs,
    context: &Context,
    out: &mut Output,
) -> Result<ExitStatus, CliError> {
    let (kind, verb) = match args.what {
        BuildKind::Hr => ("HelmRelease", "hr"),
        _ => ("Kustomization", "ks"),
    };
    let namespace = match (&args.namespace, args.name.as_deref(), args.what) {
        (Some(namespace), _, _) => Some(namespace.as_str()),
        (None, None, BuildKind::Ks | BuildKind::Hr) if !args.all_namespaces => {
            Some(DEFAULT_NAMESPACE)
        }
        _ => None,
    };
    let scope = match &args.name {
        Some(name) if !args.no_scope => vec![Target {
            kinds: vec![kind.to_owned()],
            name: Some(name.clone()),
            namespace: namespace.map(str::to_owned),
        }],
        _ => Vec::new(),
    };
    // Each cluster the path holds runs on its own, as `test` runs them: one run from a path
    // above several would merge what they apply.
    let runs = match args
        .run
        .run_each(&super::run_args::ChangedArgs::default(), scope)
    {
        Ok(runs) => runs,
        Err(message) => return Err(CliError::usage(message, None)),
    };
    for run in &runs {
        super::repo_args::require_flux_objects(&run.repository, &args.run.repo.path)?;
    }
    let selected = |id: &crate::model::ResourceId| {
        id.kind == kind
            && args.name.as_deref().is_none_or(|n| id.name == n)
            && namespace.is_none_or(|ns| shown_namespace(id) == ns)
    };
    let what = match (args.name.as_deref(), namespace) {
        (Some(name), Some(namespace)) => format!("`{namespace}/{name}`"),
        (Some(name), None) => format!("`{name}`"),
        (None, Some(namespace)) => format!("in namespace `{namespace}`"),
        (None, None) => "anywhere".to_owned(),
    };
    let holding: Vec<_> = (runs.iter())
        .filter(|run| run.report.statuses.iter().any(|(id, _)| selected(id)))
        .collect();
    let report = match holding.as_slice() {
        [] => {
            for run in &runs {
                report::print_diagnostics(&run.diagnostics(), &run.repository.root, context);
            }
            return Err(CliError::usage(
                format!("no {kind} matches {what}"),
                Some(&format!(
                    "`offlux get {verb} -A` lists the {kind}s offlux found"
                )),
            ));
        }
        [run] => &run.report,
        several => {
            let names: Vec<String> = (several.iter())
                .map(|run| run.cluster.clone().unwrap_or_default())
                .collect();
            let entry = |run: &crate::orchestrator::clusters::ClusterRun| {
                let entry = &run.repository.entry;
                let relative = entry.strip_prefix(&run.repository.root).unwrap_or(entry);
                relative.display().to_string()
            };
            return Err(CliError::usage(
                format!(
                    "{kind} {what} is in {} clusters here ({}): each applies its own",
                    several.len(),
                    names.join(", ")
                ),
                Some(&format!(
                    "build it from one cluster's directory: `--path {}`",
                    entry(several[0])
                )),
            ));
        }
    };
    let chosen: Vec<_> = report
        .statuses
        .iter()
        .filter(|(id, _)| selected(id))
        .collect();
    // Every object that rendered is printed, whatever failed elsewhere: the failures go to
    // stderr and the exit code.
    let mut failures: Vec<(String, String)> = Vec::new();
    let mut objects: Vec<&Object> = Vec::new();
    for (id, record) in &chosen {
        let object = format!("{}/{}/{}", id.kind, shown_namespace(id), id.name);
        if let Status::Failed(message) = &record.status {
            failures.push((object.clone(), message.clone()));
        }
        let rendered = report.rendered.get(id);
        if let Some(rendered) = rendered {
            objects.extend(rendered.iter().filter(|o| args.skip.keeps(o)));
        }
        // A release skipped offline or suspended rendered nothing: say why, and do not end as
        // if an empty output were its rendering (issue 34.8).
        let why = match &record.status {
            Status::Ready(Ready::Skipped(reason)) => Some(format!("skipped: {reason}")),
            Status::Ready(Ready::Suspended) => Some("suspended (`spec.suspend: true`)".to_owned()),
            _ => None,
        };
        if let (Some(why), true) = (why, rendered.is_none_or(|r| r.is_empty())) {
            failures.push((object, format!("not rendered: {why}")));
        }
    }
    // One line per cause, however many objects it stops.
    report::eprint(context, &report::grouped_errors(&failures));
    let failed = !failures.is_empty();
    objects::print(&objects, args.output, out)?;
    exit::leave_to_exit(runs);
    Ok(ExitStatus::failures_if(failed))
}
