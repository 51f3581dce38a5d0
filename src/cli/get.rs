//! `offlux get ks|hr|sources|all [NAME]`: what Flux objects a repository holds, where.

use serde::Serialize;
use std::collections::BTreeMap;

use super::exit::{CliError, ExitStatus};
use super::repo_args::RepoArgs;
use super::stdout::Output;
use super::{report, table, Context};
use crate::diagnostic::Severity;
use crate::discovery::{self, BootstrapSource, Repository};
use crate::model::{ChartSource, CrossRef, FluxKind, FluxObject, FluxSpec};

#[derive(clap::Args, Debug)]
pub struct GetArgs {
    /// What to list.
    #[arg(value_enum)]
    pub what: GetKind,
    /// Only the object with this name.
    pub name: Option<String>,
    #[command(flatten)]
    pub repo: RepoArgs,
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
}

pub(super) fn run(
    args: &GetArgs,
    context: &Context,
    out: &mut Output,
) -> Result<ExitStatus, CliError> {
    let selector = match args.selector.as_deref().map(parse_selector).transpose() {
        Ok(selector) => selector,
        Err(message) => {
            return Err(CliError::usage(
                message,
                Some("write selectors as `key=value`, `key!=value` or `key`"),
            ))
        }
    };
    if args.what == GetKind::Clusters {
        return super::clusters::get(&args.repo, args.output, context, out);
    }
    let repository = match args.repo.discover() {
        Ok(repository) => repository,
        Err(error) => return Err(CliError::usage(error.to_string(), None)),
    };
    super::repo_args::require_flux_objects(&repository, &args.repo.path)?;
    report::print_diagnostics(&repository.diagnostics, &repository.root, context);

    let mut records: Vec<Record> = repository
        .flux_objects
        .iter()
        .filter(|f| wanted_kind(args.what, f.kind))
        .filter(|f| args.name.as_deref().is_none_or(|n| f.name() == n))
        .filter(|f| {
            args.namespace
                .as_deref()
                .is_none_or(|ns| f.namespace() == ns)
        })
        .filter(|f| {
            selector
                .as_ref()
                .is_none_or(|s| s.iter().all(|r| r.matches(&f.object.labels())))
        })
        .map(record)
        .collect();
    if matches!(args.what, GetKind::Sources | GetKind::All)
        && repository.bootstrap == BootstrapSource::Assumed
        && args
            .name
            .as_deref()
            .is_none_or(|n| n == discovery::BOOTSTRAP_NAME)
        && args
            .namespace
            .as_deref()
            .is_none_or(|ns| ns == discovery::BOOTSTRAP_NAMESPACE)
        && selector.is_none()
    {
        records.push(bootstrap_record(&repository));
        records.sort_by(|a, b| {
            (&a.kind, &a.namespace, &a.name, &a.file).cmp(&(
                &b.kind,
                &b.namespace,
                &b.name,
                &b.file,
            ))
        });
    }

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
        Format::Table => context.human(table_output(args.what, &records)),
    };
    out.write(&output)?;
    if records.is_empty() && args.output == Format::Table {
        report::eprint(
            context,
            &format!(
                "No matching objects found under `{}`.\n",
                args.repo.path.display()
            ),
        );
    }
    let failed = repository
        .diagnostics
        .iter()
        .any(|d| d.severity == Severity::Error);
    Ok(ExitStatus::failures_if(failed))
}

fn wanted_kind(what: GetKind, kind: FluxKind) -> bool {
    match what {
        GetKind::Ks => kind == FluxKind::Kustomization,
        GetKind::Hr => kind == FluxKind::HelmRelease,
        GetKind::Sources => kind.is_source(),
        GetKind::All => true,
        // Listed by `clusters::get`, never here.
        GetKind::Clusters => false,
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
        file: "(assumed)".to_owned(),
        line: 0,
        spec,
    }
}

fn table_output(what: GetKind, records: &[Record]) -> String {
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
            vec!["KIND", "NAMESPACE", "NAME", "URL", "REF", "FILE"],
            records
                .iter()
                .map(|r| {
                    vec![
                        r.kind.clone(),
                        r.namespace.clone(),
                        r.name.clone(),
                        field(r, "url"),
                        field(r, "ref"),
                        place(r),
                    ]
                })
                .collect(),
        ),
        GetKind::All | GetKind::Clusters => (
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
    table::render(&headers, &rows)
}

/// One label requirement of `-l`.
#[derive(Debug, PartialEq)]
enum LabelRequirement {
    Equals(String, String),
    NotEquals(String, String),
    Exists(String),
}

impl LabelRequirement {
    fn matches(&self, labels: &BTreeMap<String, String>) -> bool {
        match self {
            LabelRequirement::Equals(k, v) => labels.get(k) == Some(v),
            LabelRequirement::NotEquals(k, v) => labels.get(k) != Some(v),
            LabelRequirement::Exists(k) => labels.contains_key(k),
        }
    }
}

fn parse_selector(text: &str) -> Result<Vec<LabelRequirement>, String> {
    text.split(',')
        .map(str::trim)
        .filter(|part| !part.is_empty())
        .map(|part| {
            let requirement = if let Some((k, v)) = part.split_once("!=") {
                LabelRequirement::NotEquals(k.trim().to_owned(), v.trim().to_owned())
            } else if let Some((k, v)) = part.split_once("==").or_else(|| part.split_once('=')) {
                LabelRequirement::Equals(k.trim().to_owned(), v.trim().to_owned())
            } else {
                LabelRequirement::Exists(part.to_owned())
            };
            match &requirement {
                LabelRequirement::Equals(k, _)
                | LabelRequirement::NotEquals(k, _)
                | LabelRequirement::Exists(k)
                    if k.is_empty() =>
                {
                    Err(format!("invalid label selector `{text}`: empty key"))
                }
                _ => Ok(requirement),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selectors() {
        assert_eq!(
            parse_selector("app=web, tier!=db,team").unwrap_or_default(),
            vec![
                LabelRequirement::Equals("app".into(), "web".into()),
                LabelRequirement::NotEquals("tier".into(), "db".into()),
                LabelRequirement::Exists("team".into()),
            ]
        );
        assert!(parse_selector("=x").is_err());
        let labels = BTreeMap::from([("app".to_owned(), "web".to_owned())]);
        assert!(LabelRequirement::Equals("app".into(), "web".into()).matches(&labels));
        assert!(!LabelRequirement::Exists("team".into()).matches(&labels));
        assert!(LabelRequirement::NotEquals("team".into(), "x".into()).matches(&labels));
    }
}
