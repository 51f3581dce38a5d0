//! `offlux build ks|all [NAME]`: the objects a Kustomization (or every one) would apply, on stdout.

use super::objects::{format, ObjectFormat, SkipArgs};
use super::run_args::RunArgs;
use super::{exit, report, usage_error, Context};
use crate::model::Object;
use crate::store::Status;

#[derive(clap::Args, Debug)]
pub struct BuildArgs {
    /// `ks` for one Kustomization (by NAME), `all` for every one.
    #[arg(value_enum)]
    pub what: BuildKind,
    /// The Kustomization's name (required with `ks`).
    pub name: Option<String>,
    /// The Kustomization's namespace.
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
    All,
}

pub fn run(args: &BuildArgs, context: &Context) -> u8 {
    if args.what == BuildKind::Ks && args.name.is_none() {
        return usage_error(
            "`offlux build ks` needs the Kustomization's name",
            Some("use `offlux build all` for every Kustomization"),
        );
    }
    let (repository, report) = match args.run.run() {
        Ok(result) => result,
        Err(message) => return usage_error(&message, None),
    };
    let selected = |id: &crate::model::ResourceId| {
        id.kind == "Kustomization"
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
                "no Kustomization matches `{}`",
                args.name.as_deref().unwrap_or("*")
            ),
            Some("`offlux get ks` lists the Kustomizations offlux found"),
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
    print!("{}", format(&objects, args.output));
    if failed {
        exit::FAILURES
    } else {
        exit::SUCCESS
    }
}
