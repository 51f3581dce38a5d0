//! `offlux build ks|hr|all [NAME]`: the objects a Kustomization or HelmRelease (or every
//! Kustomization) would apply, on stdout.

use super::objects::{self, ObjectFormat, SkipArgs};
use super::run_args::RunArgs;
use super::{exit, report, usage_error, Context};
use crate::model::Object;
use crate::store::Status;

#[derive(clap::Args, Debug)]
pub struct BuildArgs {
    /// `ks` for one Kustomization, `hr` for one HelmRelease (by NAME), `all` for every
    /// Kustomization.
    #[arg(value_enum)]
    pub what: BuildKind,
    /// The Kustomization's or HelmRelease's name (required with `ks` and `hr`).
    pub name: Option<String>,
    /// The object's namespace.
    #[arg(short = 'n', long)]
    pub namespace: Option<String>,
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

pub fn run(args: &BuildArgs, context: &Context) -> u8 {
    let (kind, verb) = match args.what {
        BuildKind::Hr => ("HelmRelease", "hr"),
        _ => ("Kustomization", "ks"),
    };
    if args.what != BuildKind::All && args.name.is_none() {
        return usage_error(
            &format!("`offlux build {verb}` needs the {kind}'s name"),
            Some("use `offlux build all` for every Kustomization"),
        );
    }
    let (repository, report) = match args.run.run() {
        Ok(result) => result,
        Err(message) => return usage_error(&message, None),
    };
    let selected = |id: &crate::model::ResourceId| {
        id.kind == kind
            && args.name.as_deref().is_none_or(|n| id.name == n)
            && args
                .namespace
                .as_deref()
                .is_none_or(|ns| id.namespace == ns)
    };
    let chosen: Vec<_> = report
        .statuses
        .iter()
        .filter(|(id, _)| selected(id))
        .collect();
    if chosen.is_empty() {
        report::print_diagnostics(&repository.diagnostics, &repository.root, context);
        return usage_error(
            &format!(
                "no {kind} matches `{}`",
                args.name.as_deref().unwrap_or("*")
            ),
            Some(&format!(
                "`offlux get {verb}` lists the {kind}s offlux found"
            )),
        );
    }
    let mut failed = false;
    let mut objects: Vec<&Object> = Vec::new();
    for (id, record) in &chosen {
        if let Status::Failed(message) = &record.status {
            eprintln!("error: {id}: {message}");
            failed = true;
        }
        if let Some(rendered) = report.rendered.get(id) {
            objects.extend(rendered.iter().filter(|o| args.skip.keeps(o)));
        }
    }
    objects::print(&objects, args.output);
    exit::leave_to_exit((repository, report));
    if failed {
        exit::FAILURES
    } else {
        exit::SUCCESS
    }
}
