//! `offlux get ks|hr|sources|all [NAME]`: the Flux objects `offlux test` reconciles, where. The
//! repository is reconciled as `test` does (each cluster the path holds on its own, the same run
//! flags), so the list is the roster's: objects as their producer applied them (namespace given by
//! `targetNamespace` or a kustomization's `namespace:`), none from a directory nothing applies.

use serde::Serialize;
use std::collections::BTreeMap;

use super::exit::{CliError, ExitStatus};
use super::run_args::RunArgs;
use super::stdout::Output;
use super::{report, Context};
use crate::controllers::runtime::RunReport;
use crate::diagnostic::Severity;
use crate::discovery::{self, BootstrapSource, Repository};
use crate::model::{ChartSource, CrossRef, FluxKind, FluxObject, FluxSpec, Object, ResourceId};
use crate::reporting::table;

#[derive(clap::Args, Debug)]
pub struct GetArgs {
    /// What to list.
    #[arg(value_enum)]
    pub what: GetKind,
    /// Only the object with this name.
    pub name: Option<String>,
    /// How the repository is reconciled: `get` lists what `test` reconciles.
    #[command(flatten)]
    pub run: RunArgs,
    /// Only objects in this namespace.
    #[arg(short = 'n', long)]
    pub namespace: Option<String>,
    /// Objects in every namespace (the default when no namespace is given).
    #[arg(short = 'A', long, conflicts_with = "namespace")]
    pub all_namespaces: bool,
    /// Only objects whose labels match: `key=value`, `key!=value` or `key`, comma-separated.
    #[arg(short = 'l', long = "selector")]
    pub selector: Option<String>,
    /// Output format.
    #[arg(short = 'o', long, value_enum, default_value_t = Format::Table)]
    pub output: Format,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum GetKind {
    /// Kustomizations.
    #[value(alias = "kustomizations", alias = "kustomization")]
    Ks,
    /// HelmReleases.
    #[value(alias = "helmreleases", alias = "helmrelease")]
    Hr,
    /// GitRepositories, OCIRepositories, HelmRepositories, HelmCharts, Buckets, ExternalArtifacts.
    #[value(alias = "source")]
    Sources,
    /// Every Flux object.
    All,
    /// The clusters the path holds: each entry point of the apply graph, with its name.
    #[value(alias = "cluster")]
    Clusters,
    /// Every container image the render applies, by producer (`-n` keeps one namespace's
    /// workloads, NAME one producer's).
    #[value(alias = "image")]
    Images,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Table,
    Yaml,
    Json,
}

/// One listed object, in the shape `-o json|yaml` prints.
#[derive(Serialize)]
struct Record {
    kind: String,
    #[serde(rename = "apiVersion")]
    api_version: String,
    namespace: String,
    name: String,
    file: String,
    line: u32,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    spec: BTreeMap<&'static str, serde_json::Value>,
    /// The cluster it belongs to, when the path holds several.
    #[serde(skip_serializing_if = "Option::is_none")]
    cluster: Option<String>,
    /// The cluster it applies to when not offlux's own (`spec.kubeConfig`, its own or a
    /// producer's), as `test` names it.
    #[serde(rename = "appliesTo", skip_serializing_if = "Option::is_none")]
    applies_to: Option<String>,
}

pub(super) fn run(
    args: &GetArgs,
    context: &Context,
    out: &mut Output,
) -> Result<ExitStatus, CliError> {
    let selector = match args
        .selector
        .as_deref()
        .map(crate::labels::Selector::parse)
        .transpose()
    {
        Ok(selector) => selector,
        Err(message) => {
            return Err(CliError::usage(
                message,
                Some("write selectors as `key=value`, `key!=value`, `key`, `!key`, `key in (a,b)` or `key notin (a,b)`"),
            ))
        }
    };
    if args.what == GetKind::Clusters {
        return list_clusters(&args.run.repo, args.output, context, out);
    }
    // What `test` reconciles, as it reconciles it: each cluster the path holds on its own, every
    // Flux object a run reaches (as its producer applied it: `targetNamespace`, a kustomization's
    // `namespace:`, patches), none that no entry point applies.
    let runs = match args
        .run
        .run_each(&super::run_args::ChangedArgs::default(), Vec::new())
    {
        Ok(runs) => runs,
        Err(message) => return Err(CliError::usage(message, None)),
    };
    for run in &runs {
        super::repo_args::require_flux_objects(&run.repository, &args.run.repo.path)?;
    }
    let mut failed = false;
    for run in &runs {
        let diagnostics = run.diagnostics();
        failed |= diagnostics.iter().any(|d| d.severity == Severity::Error);
        report::print_diagnostics(&diagnostics, &run.repository.root, context);
    }
    if args.what == GetKind::Images {
        let images = crate::reporting::images::records(
            &runs,
            args.namespace.as_deref(),
            args.name.as_deref(),
        );
        let several = runs.iter().any(|r| r.cluster.is_some());
        let output = match args.output {
            Format::Json => serde_json::to_string_pretty(&images).unwrap_or_default() + "\n",
            Format::Yaml => match serde_json::to_value(&images) {
                Ok(value) => crate::yaml::emit(&crate::yaml::from_json(&value)),
                Err(_) => String::new(),
            },
            Format::Table => context.human(crate::reporting::images::table(&images, several)),
        };
        out.write(&output)?;
        super::exit::leave_to_exit(runs);
        return Ok(ExitStatus::failures_if(failed));
    }
    let filter = Filter {
        what: args.what,
        name: args.name.as_deref(),
        namespace: args.namespace.as_deref(),
        selector: selector.as_ref(),
    };
    let records = records(&runs, &filter);
    let several = runs.iter().any(|r| r.cluster.is_some());

    let output = match args.output {
        Format::Json => {
            let mut text = serde_json::to_string_pretty(&records).unwrap_or_default();
            text.push('\n');
            text
        }
        Format::Yaml => match serde_json::to_value(&records) {
            Ok(value) => crate::yaml::emit(&crate::yaml::from_json(&value)),
            Err(_) => String::new(),
        },
        Format::Table => context.human(table_output(args.what, &records, several)),
    };
    out.write(&output)?;
    if records.is_empty() && args.output == Format::Table {
        report::eprint(
            context,
            &format!(
                "No matching objects found under `{}`.\n",
                args.run.repo.path.display()
            ),
        );
    }
    super::exit::leave_to_exit(runs);
    Ok(ExitStatus::failures_if(failed))
}

/// Which records `get` prints.
struct Filter<'a> {
    what: GetKind,
    name: Option<&'a str>,
    namespace: Option<&'a str>,
    selector: Option<&'a crate::labels::Selector>,
}

/// The records of the Flux objects `runs` reconciled (each cluster's, naming it when there are
/// several) that `filter` wants, sorted; with the working tree as the assumed bootstrap source
/// when a single run assumed it.
fn records(runs: &[crate::orchestrator::clusters::ClusterRun], filter: &Filter<'_>) -> Vec<Record> {
    let mut records: Vec<Record> = Vec::new();
    for run in runs {
        records.extend(
            reconciled(&run.repository, &run.report)
                .into_iter()
                .filter(|r| wanted_kind(filter.what, r.flux_kind))
                .filter(|r| filter.name.is_none_or(|n| r.record.name == n))
                .filter(|r| filter.namespace.is_none_or(|ns| r.record.namespace == ns))
                .filter(|r| {
                    filter
                        .selector
                        .is_none_or(|s| s.matches(|k| r.labels.get(k).map(String::as_str)))
                })
                .map(|r| Record {
                    cluster: run.cluster.clone(),
                    ..r.record
                }),
        );
    }
    let several = runs.iter().any(|r| r.cluster.is_some());
    if let (Some(run), false) = (runs.first(), several) {
        let repository = &run.repository;
        if matches!(filter.what, GetKind::Sources | GetKind::All)
            && repository.bootstrap == BootstrapSource::Assumed
            && filter.name.is_none_or(|n| n == discovery::BOOTSTRAP_NAME)
            && filter
                .namespace
                .is_none_or(|ns| ns == discovery::BOOTSTRAP_NAMESPACE)
            && filter.selector.is_none()
            && !records.iter().any(|r| {
                r.kind == FluxKind::GitRepository.as_str()
                    && r.namespace == discovery::BOOTSTRAP_NAMESPACE
                    && r.name == discovery::BOOTSTRAP_NAME
            })
        {
            records.push(bootstrap_record(repository));
        }
    }
    records.sort_by(|a, b| {
        (&a.cluster, &a.kind, &a.namespace, &a.name, &a.file).cmp(&(
            &b.cluster,
            &b.kind,
            &b.namespace,
            &b.name,
            &b.file,
        ))
    });
    records
}

/// `offlux get all` and `offlux test` on one reconcile of the repository that `args` (run
/// arguments as on the command line: `--path`, `--root`, `--offline`...) names: the objects `get`
/// lists and the rows `test` reports, each as `[cluster] Kind/namespace/name`, sorted. `get`'s
/// assumed bootstrap source (`file: (assumed)`), which `test` has no row for, is left out. For
/// tests that the two commands agree; `Err` says why the run could not be made.
#[doc(hidden)]
pub fn listed_and_tested(args: &[String]) -> Result<(Vec<String>, Vec<String>), String> {
    #[derive(clap::Parser)]
    struct Parsed {
        #[command(flatten)]
        run: RunArgs,
    }
    let parsed = <Parsed as clap::Parser>::try_parse_from(
        std::iter::once("offlux").chain(args.iter().map(String::as_str)),
    )
    .map_err(|e| e.to_string())?;
    let runs = parsed
        .run
        .run_each(&super::run_args::ChangedArgs::default(), Vec::new())?;
    let filter = Filter {
        what: GetKind::All,
        name: None,
        namespace: None,
        selector: None,
    };
    let named = |cluster: &Option<String>, kind: &str, namespace: &str, name: &str| {
        let text = format!("{kind}/{namespace}/{name}");
        match cluster {
            Some(cluster) => crate::reporting::named(cluster, &text),
            None => text,
        }
    };
    let mut listed: Vec<String> = records(&runs, &filter)
        .iter()
        .filter(|r| r.file != ASSUMED)
        .map(|r| named(&r.cluster, &r.kind, &r.namespace, &r.name))
        .collect();
    let mut tested: Vec<String> = runs
        .iter()
        .flat_map(|run| {
            crate::reporting::verdicts::rows(&run.report)
                .into_iter()
                .map(|row| named(&run.cluster, &row.kind, &row.namespace, &row.name))
        })
        .collect();
    listed.sort();
    tested.sort();
    super::exit::leave_to_exit(runs);
    Ok((listed, tested))
}

/// The file of the working tree's record when it is the assumed bootstrap source.
const ASSUMED: &str = "(assumed)";

/// A Flux object a run reconciled, with what the filters need.
struct Reconciled {
    record: Record,
    flux_kind: FluxKind,
    labels: BTreeMap<String, String>,
}

/// Every Flux object `report` holds a status for (the rows of `offlux test`), as the run has it:
/// the object its smallest producer applied (as the run's Store keeps it), or the repository's
/// definition for one nothing applies (the first, as the run seeds it).
fn reconciled(repository: &Repository, report: &RunReport) -> Vec<Reconciled> {
    let mut applied: BTreeMap<&ResourceId, &Object> = BTreeMap::new();
    for objects in report.rendered.values() {
        for object in objects {
            applied.entry(&object.id).or_insert(object);
        }
    }
    let written = |id: &ResourceId| -> Option<&Object> {
        let first = repository
            .flux_objects
            .partition_point(|f| f.object.id < *id);
        repository
            .flux_objects
            .get(first)
            .map(|f| &f.object)
            .filter(|o| o.id == *id)
            .or_else(|| repository.invalid_flux.iter().find(|o| o.id == *id))
    };
    report
        .statuses
        .iter()
        .filter_map(|(id, _)| {
            let flux_kind = FluxKind::from_group_kind(&id.group, &id.kind)?;
            let object = applied.get(id).copied().or_else(|| written(id));
            let parsed = object.and_then(|o| FluxObject::from_object(o).ok().flatten());
            let mut record = match &parsed {
                Some(flux) => record(flux),
                None => Record {
                    kind: id.kind.to_string(),
                    api_version: id.api_version(),
                    namespace: String::new(),
                    name: id.name.to_string(),
                    file: String::new(),
                    line: 0,
                    spec: BTreeMap::new(),
                    cluster: None,
                    applies_to: None,
                },
            };
            // Where the row says it is: a namespace-less object lands in `default`.
            record.namespace = crate::reporting::verdicts::shown_namespace(id).to_owned();
            if let Some(location) = report.origins.get(id) {
                record.file = location.file.display().to_string();
                record.line = location.pos.map_or(0, |p| p.line);
            } else if let Some(object) = object {
                record.file = object.file.display().to_string();
                record.line = object.pos.line;
            }
            record.applies_to = report.clusters.get(id).cloned();
            if let Some(revision) = report.revisions.get(id) {
                record
                    .spec
                    .insert("revision", serde_json::Value::String(revision.clone()));
            }
            Some(Reconciled {
                record,
                flux_kind,
                labels: object.map(Object::labels).unwrap_or_default(),
            })
        })
        .collect()
}

fn wanted_kind(what: GetKind, kind: FluxKind) -> bool {
    match what {
        GetKind::Ks => kind == FluxKind::Kustomization,
        GetKind::Hr => kind == FluxKind::HelmRelease,
        GetKind::Sources => kind.is_source(),
        GetKind::All => true,
        // Listed by `list_clusters` and `images::records`, never here.
        GetKind::Clusters | GetKind::Images => false,
    }
}

fn cross_ref_text(r: &CrossRef) -> String {
    if r.namespace.is_empty() {
        format!("{}/{}", r.kind, r.name)
    } else {
        format!("{}/{}/{}", r.kind, r.namespace, r.name)
    }
}

fn record(flux: &FluxObject) -> Record {
    let mut spec = BTreeMap::new();
    let text = |s: &str| serde_json::Value::String(s.to_owned());
    match &flux.spec {
        FluxSpec::Kustomization(k) => {
            spec.insert("path", text(&k.path));
            spec.insert("sourceRef", text(&cross_ref_text(&k.source_ref)));
            if k.suspend {
                spec.insert("suspend", serde_json::Value::Bool(true));
            }
        }
        FluxSpec::HelmRelease(h) => match &h.chart {
            ChartSource::Template(t) => {
                spec.insert("chart", text(&t.chart));
                if let Some(version) = &t.version {
                    spec.insert("version", text(version));
                }
                spec.insert("sourceRef", text(&cross_ref_text(&t.source_ref)));
            }
            ChartSource::Ref(r) => {
                spec.insert("chartRef", text(&cross_ref_text(r)));
            }
        },
        FluxSpec::Source(s) => {
            if let Some(url) = &s.url {
                spec.insert("url", text(url));
            }
            if let Some(reference) = &s.reference {
                spec.insert("ref", text(reference));
            }
            if let Some(chart) = &s.chart {
                spec.insert("chart", text(&chart.chart));
            }
        }
        FluxSpec::ResourceSet(_)
        | FluxSpec::ResourceSetInputProvider
        | FluxSpec::FluxInstance(_) => {}
        FluxSpec::ArtifactGenerator(generator) => {
            let names: Vec<&str> = generator
                .artifacts
                .iter()
                .map(|a| a.name.as_str())
                .collect();
            spec.insert("artifacts", text(&names.join(",")));
        }
    }
    let depends_on: Vec<serde_json::Value> = flux
        .depends_on()
        .iter()
        .map(|d| {
            let namespace = if d.namespace.is_empty() {
                flux.namespace()
            } else {
                &d.namespace
            };
            text(&format!("{namespace}/{}", d.name))
        })
        .collect();
    if !depends_on.is_empty() {
        spec.insert("dependsOn", serde_json::Value::Array(depends_on));
    }
    Record {
        kind: flux.kind.as_str().to_owned(),
        api_version: flux.object.id.api_version(),
        namespace: flux.namespace().to_owned(),
        name: flux.name().to_owned(),
        file: flux.object.file.display().to_string(),
        line: flux.object.pos.line,
        spec,
        cluster: None,
        applies_to: None,
    }
}

fn bootstrap_record(repository: &Repository) -> Record {
    let mut spec = BTreeMap::new();
    spec.insert(
        "url",
        serde_json::Value::String(format!("(working tree) {}", repository.root.display())),
    );
    Record {
        kind: FluxKind::GitRepository.as_str().to_owned(),
        api_version: "source.toolkit.fluxcd.io/v1".to_owned(),
        namespace: discovery::BOOTSTRAP_NAMESPACE.to_owned(),
        name: discovery::BOOTSTRAP_NAME.to_owned(),
        file: ASSUMED.to_owned(),
        line: 0,
        spec,
        cluster: None,
        applies_to: None,
    }
}

/// The records as a table; a `CLUSTER` column first when the path holds `several` clusters.
fn table_output(what: GetKind, records: &[Record], several: bool) -> String {
    let field = |r: &Record, key: &str| match r.spec.get(key) {
        Some(serde_json::Value::String(s)) => s.clone(),
        Some(serde_json::Value::Array(items)) => items
            .iter()
            .filter_map(|i| i.as_str())
            .collect::<Vec<_>>()
            .join(","),
        Some(other) => other.to_string(),
        None => String::new(),
    };
    let place = |r: &Record| {
        if r.line == 0 {
            r.file.clone()
        } else {
            format!("{}:{}", r.file, r.line)
        }
    };
    let (headers, rows): (Vec<&str>, Vec<Vec<String>>) = match what {
        GetKind::Ks => (
            vec!["NAMESPACE", "NAME", "PATH", "SOURCE", "DEPENDS ON", "FILE"],
            records
                .iter()
                .map(|r| {
                    vec![
                        r.namespace.clone(),
                        r.name.clone(),
                        field(r, "path"),
                        field(r, "sourceRef"),
                        field(r, "dependsOn"),
                        place(r),
                    ]
                })
                .collect(),
        ),
        GetKind::Hr => (
            vec!["NAMESPACE", "NAME", "CHART", "VERSION", "SOURCE", "FILE"],
            records
                .iter()
                .map(|r| {
                    let chart = if r.spec.contains_key("chartRef") {
                        String::new()
                    } else {
                        field(r, "chart")
                    };
                    let source = if r.spec.contains_key("chartRef") {
                        field(r, "chartRef")
                    } else {
                        field(r, "sourceRef")
                    };
                    vec![
                        r.namespace.clone(),
                        r.name.clone(),
                        chart,
                        field(r, "version"),
                        source,
                        place(r),
                    ]
                })
                .collect(),
        ),
        GetKind::Sources => (
            vec![
                "KIND",
                "NAMESPACE",
                "NAME",
                "URL",
                "REF",
                "REVISION",
                "FILE",
            ],
            records
                .iter()
                .map(|r| {
                    vec![
                        r.kind.clone(),
                        r.namespace.clone(),
                        r.name.clone(),
                        field(r, "url"),
                        field(r, "ref"),
                        field(r, "revision"),
                        place(r),
                    ]
                })
                .collect(),
        ),
        GetKind::All | GetKind::Clusters | GetKind::Images => (
            vec!["KIND", "NAMESPACE", "NAME", "FILE"],
            records
                .iter()
                .map(|r| {
                    vec![
                        r.kind.clone(),
                        r.namespace.clone(),
                        r.name.clone(),
                        place(r),
                    ]
                })
                .collect(),
        ),
    };
    if rows.is_empty() {
        return String::new();
    }
    if several {
        let headers: Vec<&str> = std::iter::once("CLUSTER").chain(headers).collect();
        let rows: Vec<Vec<String>> = rows
            .into_iter()
            .zip(records)
            .map(|(row, r)| {
                std::iter::once(r.cluster.clone().unwrap_or_default())
                    .chain(row)
                    .collect()
            })
            .collect();
        return table::render(&headers, &rows);
    }
    table::render(&headers, &rows)
}

/// One line of `offlux get clusters`.
#[derive(Serialize)]
struct ClusterRecord {
    name: String,
    /// The entry directory, relative to the repository root (`.` for the root).
    path: String,
    /// Flux objects discovery finds from the entry point.
    #[serde(rename = "fluxObjects")]
    flux_objects: usize,
}

/// `offlux get clusters`: each cluster the path holds, with its entry point and how many Flux
/// objects it reaches.
fn list_clusters(
    repo: &super::repo_args::RepoArgs,
    format: Format,
    context: &Context,
    out: &mut Output,
) -> Result<ExitStatus, CliError> {
    let repository = repo
        .discover()
        .map_err(|e| CliError::usage(e.to_string(), None))?;
    let (clusters, as_is) = crate::orchestrator::clusters::clusters_of(&repository);
    let mut records = Vec::with_capacity(clusters.len());
    for cluster in &clusters {
        let flux_objects = if as_is {
            repository.flux_objects.len()
        } else {
            let mut options = discovery::Options::new(repository.root.join(&cluster.entry));
            options.root = Some(repository.root.clone());
            discovery::discover(&options)
                .map_err(|e| CliError::usage(e.to_string(), None))?
                .flux_objects
                .len()
        };
        records.push(ClusterRecord {
            name: cluster.name.clone(),
            path: shown_path(&cluster.entry),
            flux_objects,
        });
    }
    let table = format == Format::Table;
    let text = if format == Format::Json {
        let mut text = serde_json::to_string_pretty(&records).unwrap_or_default();
        text.push('\n');
        text
    } else if !table {
        match serde_json::to_value(&records) {
            Ok(value) => crate::yaml::emit(&crate::yaml::from_json(&value)),
            Err(_) => String::new(),
        }
    } else if records.is_empty() {
        String::new()
    } else {
        let rows: Vec<Vec<String>> = records
            .iter()
            .map(|r| vec![r.name.clone(), r.path.clone(), r.flux_objects.to_string()])
            .collect();
        context.human(table::render(&["NAME", "PATH", "FLUX OBJECTS"], &rows))
    };
    out.write(&text)?;
    if records.is_empty() && table {
        report::eprint(
            context,
            &format!(
                "No cluster entry point found under `{}`: no Flux Kustomization or FluxInstance there applies a path in the repository.\n",
                repo.path.display()
            ),
        );
    }
    Ok(ExitStatus::failures_if(false))
}

fn shown_path(entry: &std::path::Path) -> String {
    if entry == std::path::PathBuf::new() {
        ".".to_owned()
    } else {
        entry.display().to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selectors_read_the_labels_of_a_record() {
        let selector =
            crate::labels::Selector::parse("app=web, tier!=db,!team").unwrap_or_default();
        let labels = BTreeMap::from([("app".to_owned(), "web".to_owned())]);
        assert!(selector.matches(|k| labels.get(k).map(String::as_str)));
    }
}
