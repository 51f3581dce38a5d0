//! `offlux validate`: reconcile offline, then check every rendered object (see `crate::validate`
//! for the codes) and report the findings as text, JSON, JUnit XML, GitHub annotations or SARIF.
//! Severities can be changed, or codes turned off, in `.offlux.yaml` at the repository root:
//!
//! ```yaml
//! validate:
//!   severities:
//!     OFX106: off
//!     OFX103: error
//!   orphans:            # see `cli::orphans`
//!     ignore: [examples/**]
//! ```

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;
use std::path::{Path, PathBuf};

use super::exit::{CliError, ExitStatus};
use super::orphans::{OrphanArgs, OrphanConfig};
use super::run_args::RunArgs;
use super::stdout::Output;
use super::{exit, report, Context};
use crate::controllers::runtime::RunReport;
use crate::escape;
use crate::helm::KubeVersion;
use crate::reporting::verdicts::Verdict;
use crate::validate::{self, Code, Finding, Produced, Severity};
use crate::yaml::Node;

#[derive(clap::Args, Debug)]
pub struct ValidateArgs {
    #[command(flatten)]
    pub run: RunArgs,
    /// Output format.
    #[arg(short = 'o', long, value_enum, default_value_t = ValidateFormat::Human)]
    pub output: ValidateFormat,
    /// Also write the SARIF report (code scanning) to FILE, from the same check.
    #[arg(long, value_name = "FILE")]
    pub report_sarif: Option<std::path::PathBuf>,
    /// Also write the JSON report to FILE, from the same check.
    #[arg(long, value_name = "FILE")]
    pub report_json: Option<std::path::PathBuf>,
    /// Also write the JUnit report to FILE, from the same check.
    #[arg(long, value_name = "FILE")]
    pub report_junit: Option<std::path::PathBuf>,
    /// Also write the plain-text report to FILE, from the same check.
    #[arg(long, value_name = "FILE")]
    pub report_human: Option<std::path::PathBuf>,
    #[command(flatten)]
    pub schemas: SchemaArgs,
    #[command(flatten)]
    pub orphans: OrphanArgs,
    #[command(flatten)]
    pub changed: super::run_args::ChangedArgs,
}

/// Where schemas come from besides the repository, and how strict to be without one.
#[derive(clap::Args, Debug, Default)]
pub struct SchemaArgs {
    /// An object of a kind whose schema is nowhere (no built-in kind, no CRD) is an error
    /// (OFX108), not a warning.
    #[arg(long)]
    pub strict_schemas: bool,
    /// CustomResourceDefinitions for kinds the repository uses but does not install (a file, or
    /// a directory of YAML or JSON files, read recursively). CRDs the repository renders win.
    #[arg(long = "crds", value_name = "PATH")]
    pub crds: Vec<std::path::PathBuf>,
}

impl SchemaArgs {
    fn is_set(&self) -> bool {
        self.strict_schemas || !self.crds.is_empty()
    }
}

/// Schemas gathered before reconciling: a bad `--crds` is a usage error, found at once.
pub(crate) struct SchemaSources {
    strict: bool,
    crds: Vec<serde_json::Value>,
}

impl SchemaSources {
    pub(super) fn load(args: &SchemaArgs) -> Result<SchemaSources, String> {
        let mut crds = Vec::new();
        for path in &args.crds {
            let mut files = Vec::new();
            collect_files(path, &mut files)
                .map_err(|e| format!("`--crds {}`: {e}", path.display()))?;
            for file in files {
                crds.extend(read_crds(&file)?);
            }
        }
        Ok(SchemaSources {
            strict: args.strict_schemas,
            crds,
        })
    }

    /// `--strict-schemas` and `--crds` belong to validation: refused where nothing validates.
    pub(crate) fn refuse_without_validation(args: &SchemaArgs) -> Result<(), String> {
        if args.is_set() {
            return Err("`--strict-schemas` and `--crds` need `--validate`".into());
        }
        Ok(())
    }
}

/// `path` itself, or every `.yaml`, `.yml` and `.json` file below it, in name order.
fn collect_files(path: &Path, files: &mut Vec<std::path::PathBuf>) -> std::io::Result<()> {
    if !path.is_dir() {
        std::fs::metadata(path)?;
        files.push(path.to_path_buf());
        return Ok(());
    }
    let mut entries: Vec<_> = std::fs::read_dir(path)?
        .map(|entry| entry.map(|e| e.path()))
        .collect::<Result<_, _>>()?;
    entries.sort();
    for entry in entries {
        if entry.is_dir() {
            collect_files(&entry, files)?;
        } else if entry
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| matches!(e, "yaml" | "yml" | "json"))
        {
            files.push(entry);
        }
    }
    Ok(())
}

/// The CustomResourceDefinitions of one file, as JSON; other documents are passed over.
fn read_crds(file: &Path) -> Result<Vec<serde_json::Value>, String> {
    let shown = file.display();
    let facts = crate::fsio::FsFacts::default();
    let text = crate::fsio::read_to_string(&facts, file, crate::fsio::Confine::anywhere())
        .map_err(|e| e.to_string())?;
    let documents = crate::yaml::parse_stream(&text, &crate::yaml::ParseOptions::default())
        .map_err(|e| format!("{shown}:{e}"))?;
    Ok(documents
        .iter()
        .filter(|d| d.root.get("kind").and_then(Node::as_str) == Some("CustomResourceDefinition"))
        .map(|d| crate::yaml::to_json_kyaml(&d.root))
        .collect())
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ValidateFormat {
    Human,
    Json,
    Junit,
    Github,
    Sarif,
}

impl ValidateArgs {
    /// The reports to write besides stdout, with their files.
    fn reports(&self) -> impl Iterator<Item = (ValidateFormat, &std::path::Path)> {
        [
            (ValidateFormat::Human, &self.report_human),
            (ValidateFormat::Json, &self.report_json),
            (ValidateFormat::Junit, &self.report_junit),
            (ValidateFormat::Sarif, &self.report_sarif),
        ]
        .into_iter()
        .filter_map(|(format, path)| Some((format, path.as_deref()?)))
    }
}

use crate::config_file::FILE as CONFIG_FILE;

pub(super) fn run(
    args: &ValidateArgs,
    context: &Context,
    out: &mut Output,
) -> Result<ExitStatus, CliError> {
    let kube = match kube_version(&args.run) {
        Ok(kube) => kube,
        Err(message) => return Err(CliError::usage(message, None)),
    };
    let schemas = match SchemaSources::load(&args.schemas) {
        Ok(schemas) => schemas,
        Err(message) => return Err(CliError::usage(message, None)),
    };
    // Each cluster the path holds is reconciled and checked on its own; with several, each
    // finding names its cluster (`[NAME]` before the message; in JSON, a `cluster` field).
    let runs = match args.run.run_each(&args.changed, Vec::new()) {
        Ok(runs) => runs,
        Err(message) => return Err(CliError::usage(message, None)),
    };
    for run in &runs {
        super::repo_args::require_flux_objects(&run.repository, &args.run.repo.path)?;
    }
    let mut findings = Vec::new();
    let mut finding_clusters: Vec<Option<String>> = Vec::new();
    let mut objects = 0;
    let mut producers_failed = false;
    let mut not_checked = 0;
    let mut skipped = 0;
    for run in &runs {
        let (repository, run_report, left_out) = (&run.repository, &run.report, &run.left_out);
        if let Some(left_out) = left_out {
            super::run_args::print_left_out(left_out, context);
        }
        report::print_diagnostics(&run.diagnostics(), &repository.root, context);
        let failed_here =
            super::test::print_failed_producers_of(run.cluster.as_deref(), run_report, context);
        producers_failed |= failed_here;
        let rows = crate::reporting::verdicts::rows(run_report);
        not_checked += rows
            .iter()
            .filter(|row| matches!(row.result, Verdict::Fail | Verdict::Blocked))
            .count();
        skipped += rows
            .iter()
            .filter(|row| row.result == Verdict::Skipped)
            .count();
        if failed_here {
            report::eprint(
                context,
                "hint: what the failed or blocked objects above would apply was not checked\n",
            );
        }
        let (mut found, checked) = match check(
            repository,
            run_report,
            &kube,
            &schemas,
            Some(&args.run),
            &args.orphans,
        ) {
            Ok(result) => result,
            // A `.offlux.yaml` offlux cannot use is an input error, as in `offlux test --validate`.
            Err(message) => return Err(CliError::usage(message, None)),
        };
        if left_out.is_some() {
            // Orphans are judged against everything a run reaches, which a narrowed run is not.
            use crate::validate::Code;
            found.retain(|f| {
                !matches!(
                    f.code,
                    Code::OrphanManifest
                        | Code::ForgottenProducer
                        | Code::UnusedSource
                        | Code::UnreadValues
                )
            });
        }
        // Every format carries them as findings (a `--report-FORMAT FILE` too); the human one
        // has listed them on stderr already and counts them without a line each.
        found.splice(0..0, producer_findings(run_report));
        // JSON names it in the `cluster` field instead.
        if let (Some(cluster), false) = (&run.cluster, args.output == ValidateFormat::Json) {
            for finding in &mut found {
                finding.message = crate::reporting::named(cluster, &finding.message);
            }
        }
        finding_clusters.extend(found.iter().map(|_| run.cluster.clone()));
        findings.extend(found);
        objects += checked;
    }
    let several = runs.iter().any(|r| r.cluster.is_some());
    let left_out: Vec<&super::run_args::LeftOut> =
        runs.iter().filter_map(|r| r.left_out.as_ref()).collect();
    let formatted = |format: ValidateFormat| match format {
        ValidateFormat::Human => human(&findings, objects, not_checked, skipped),
        ValidateFormat::Json => {
            let listed = if several {
                with_clusters(&findings, &finding_clusters)
            } else {
                serde_json::to_value(&findings).unwrap_or_default()
            };
            match left_out.as_slice() {
                [] => serde_json::to_string_pretty(&listed),
                [left_out] if !several => serde_json::to_string_pretty(
                    &serde_json::json!({"changedOnly": left_out, "findings": listed}),
                ),
                several_left_out => serde_json::to_string_pretty(
                    &serde_json::json!({"changedOnly": several_left_out, "findings": listed}),
                ),
            }
            .unwrap_or_default()
                + "\n"
        }
        ValidateFormat::Junit => junit(&findings),
        ValidateFormat::Github => github(&findings, objects),
        ValidateFormat::Sarif => sarif(&findings),
    };
    let text = match args.output {
        ValidateFormat::Human => context.human(formatted(ValidateFormat::Human)),
        format => formatted(format),
    };
    // Every report asked for comes from this one check (`--report-sarif FILE`...).
    for (format, path) in args.reports() {
        crate::fsio::write_atomically(path, formatted(format).as_bytes()).map_err(|e| {
            CliError::usage(
                format!("cannot write the report `{}`: {e}", path.display()),
                None,
            )
        })?;
    }
    out.write(&text)?;
    let failed = producers_failed || findings.iter().any(|f| f.severity == Severity::Error);
    exit::leave_to_exit((runs, findings));
    Ok(ExitStatus::failures_if(failed))
}

/// `findings` as JSON, each with the `cluster` it was found in.
fn with_clusters(findings: &[Finding], clusters: &[Option<String>]) -> serde_json::Value {
    let listed = findings
        .iter()
        .zip(clusters)
        .map(|(finding, cluster)| {
            let mut value = serde_json::to_value(finding).unwrap_or_default();
            if let (serde_json::Value::Object(fields), Some(cluster)) = (&mut value, cluster) {
                fields.insert("cluster".to_owned(), cluster.clone().into());
            }
            value
        })
        .collect();
    serde_json::Value::Array(listed)
}

/// `--kube-version`, or Helm's default.
pub(super) fn kube_version(run: &RunArgs) -> Result<KubeVersion, String> {
    match &run.kube_version {
        Some(text) => KubeVersion::parse(text).map_err(|e| e.to_string()),
        None => Ok(KubeVersion::default()),
    }
}

/// The findings on everything the run rendered, with the repository's configured severities,
/// and the number of objects checked. `Err` names a bad configuration file.
/// `run` (when given) reconciles the other entry points the orphan checks are asked to judge.
pub(super) fn check(
    repository: &crate::discovery::Repository,
    run_report: &RunReport,
    kube: &KubeVersion,
    schemas: &SchemaSources,
    run: Option<&RunArgs>,
    orphan_args: &OrphanArgs,
) -> Result<(Vec<Finding>, usize), String> {
    let root = &repository.root;
    let in_config = |message: String| format!("{}: {message}", root.join(CONFIG_FILE).display());
    let config = crate::config_file::read(root)?;
    let severities = severities(config.as_ref()).map_err(in_config)?;
    let orphan_config = OrphanConfig::read(config.as_ref()).map_err(in_config)?;
    let labels = producer_labels(run_report);
    // Objects by the cluster their producer applies them to ("" for offlux's own).
    let mut by_cluster: BTreeMap<&str, Vec<Produced<'_>>> = BTreeMap::new();
    // What the API server refused to apply is checked too: its findings say why.
    for (producer, objects) in run_report.rendered.iter().chain(&run_report.refused) {
        let from_chart = producer.kind == "HelmRelease";
        let namespace_known = !producer.namespace.is_empty();
        let cluster = run_report.clusters.get(producer).map_or("", String::as_str);
        let label = labels.get(producer).map_or("", String::as_str);
        by_cluster
            .entry(cluster)
            .or_default()
            .extend(objects.iter().map(|object| Produced {
                producer: label,
                object,
                from_chart,
                namespace_known,
            }));
    }
    let checked = by_cluster.values().map(Vec::len).sum();
    let options = validate::Options {
        kube_minor: kube.minor.trim_end_matches('+').parse().unwrap_or(0),
        severities,
        strict_schemas: schemas.strict,
        // The user's CRDs before Flux's embedded ones: a newer Flux's CRDs replace them.
        fallback_crds: schemas
            .crds
            .iter()
            .chain(crate::model::flux_crds())
            .cloned()
            .collect(),
    };
    // Findings made elsewhere go with the objects of their producer's cluster.
    let cluster_of_label: BTreeMap<&str, &str> = labels
        .iter()
        .map(|(id, label)| {
            let cluster = run_report.clusters.get(id).map_or("", String::as_str);
            (label.as_str(), cluster)
        })
        .collect();
    let mut made: BTreeMap<&str, Vec<Finding>> = BTreeMap::new();
    for finding in unused_values_keys(run_report, &labels) {
        let cluster = cluster_of_label
            .get(finding.producer.as_str())
            .copied()
            .unwrap_or("");
        made.entry(cluster).or_default().push(finding);
    }
    // What the repository holds and nothing applies goes with offlux's own cluster.
    made.entry("").or_default().extend(super::orphans::findings(
        repository,
        run_report,
        run,
        orphan_args,
        &orphan_config,
    )?);
    // The bootstrap applies the entry point's own files to offlux's own cluster.
    let mut held = bootstrap_namespaces(repository);
    by_cluster.entry("").or_default();
    let mut groups = Vec::new();
    for (cluster, objects) in by_cluster {
        groups.push(validate::Group {
            objects,
            made: made.remove(cluster).unwrap_or_default(),
            held: if cluster.is_empty() {
                std::mem::take(&mut held)
            } else {
                Default::default()
            },
        });
    }
    groups.extend(made.into_values().map(|findings| validate::Group {
        made: findings,
        ..Default::default()
    }));
    let mut findings = validate::validate_groups(groups, &options);
    validate::refine_lines(&mut findings, |file| read_in_repository(root, file));
    Ok((findings, checked))
}

/// The namespaces the bootstrap creates in offlux's own cluster: `v1` Namespaces written in the
/// entry point's files that no Kustomization of the repository applies. The run reconciles the
/// Flux objects of those files as written (`runtime::entry_points`) and renders nothing else of
/// them, but the bootstrap (`flux bootstrap --path`, or a `flux-system` Kustomization the
/// repository does not hold) applies the whole directory: its kustomization file's inputs, or,
/// without one, every YAML file as kustomize-controller's generator
/// (`generator.Generate`/`WriteFile` in fluxcd/pkg kustomize) includes them — the same files
/// `cli::orphans::run_facts` takes as roots.
fn bootstrap_namespaces(repository: &crate::discovery::Repository) -> BTreeSet<String> {
    let root = &repository.root;
    let entry = &repository.entry;
    let files: Vec<(&Path, &[crate::yaml::Document])> = repository
        .yaml_files
        .iter()
        .filter_map(|path| {
            let documents = repository.parsed_files.get(path)?;
            let relative = crate::fs_facts::strip_root(path, root).unwrap_or(path);
            Some((relative, &documents[..]))
        })
        .collect();
    let layout = validate::Layout::new(&files);
    let applied_by_a_kustomization: BTreeSet<&Path> = repository
        .parents
        .keys()
        .map(|(file, _)| file.as_path())
        .collect();
    let mut namespaces = BTreeSet::new();
    for (file, documents) in &files {
        if !file.starts_with(entry)
            || applied_by_a_kustomization.contains(file)
            || !(layout.is_input(file) || layout.generated_by(entry, file))
        {
            continue;
        }
        for document in documents.iter() {
            let node = &document.root;
            let field = |name: &str| node.get(name).and_then(Node::as_str);
            if field("apiVersion") == Some("v1") && field("kind") == Some("Namespace") {
                if let Some(name) = node.get_path(&["metadata", "name"]).and_then(Node::as_str) {
                    namespaces.insert(name.to_owned());
                }
            }
        }
    }
    namespaces
}

/// How findings name each producer: `Kind/namespace/name`, and the cluster it applies to when
/// that is not offlux's own (`spec.kubeConfig`).
fn producer_labels(run_report: &RunReport) -> BTreeMap<crate::model::ResourceId, String> {
    run_report
        .rendered
        .keys()
        .chain(run_report.refused.keys())
        .map(|id| {
            let mut label = format!("{}/{}/{}", id.kind, id.namespace, id.name);
            if let Some(cluster) = run_report.clusters.get(id) {
                label.push_str(" on cluster ");
                label.push_str(cluster);
            }
            (id.clone(), label)
        })
        .collect()
}

/// A file of the repository, by its path relative to `root`; nothing for a path that leaves the
/// root (through `..` or a symbolic link) or a file over the discovery size limit.
fn read_in_repository(root: &Path, file: &Path) -> Option<String> {
    const MAX_SIZE: u64 = 16 * 1024 * 1024;
    let path = crate::discovery::secure_join(root, &file.to_string_lossy());
    let confine = crate::fsio::Confine {
        root: Some(root),
        max_bytes: MAX_SIZE,
    };
    crate::fsio::read_to_string(&crate::fsio::FsFacts::default(), &path, confine).ok()
}

/// OFX110: each HelmRelease values key its chart never reads. The producer is what rendered the
/// HelmRelease (its Kustomization), or the HelmRelease itself when it is written in the
/// repository and nothing applies it.
fn unused_values_keys(
    run_report: &RunReport,
    labels: &BTreeMap<crate::model::ResourceId, String>,
) -> Vec<Finding> {
    let mut findings = Vec::new();
    for (id, unread) in &run_report.unread_values {
        let object = format!("{}/{}/{}", id.kind, id.namespace, id.name);
        let producer = run_report
            .rendered
            .iter()
            .find(|(_, objects)| objects.iter().any(|o| &o.id == id))
            .and_then(|(producer, _)| labels.get(producer))
            .cloned()
            .unwrap_or_else(|| object.clone());
        for key in &unread.keys {
            let dotted = key.path.join(".");
            let (path, source) = if key.inline {
                (Some(format!("$.spec.values.{dotted}")), "")
            } else {
                (None, " (from valuesFrom)")
            };
            findings.push(Finding {
                code: Code::UnusedValuesKey,
                severity: Code::UnusedValuesKey.default_severity(),
                object: object.clone(),
                producer: producer.clone(),
                file: key.location.file.clone(),
                line: key.location.pos.map_or(0, |p| p.line),
                path,
                message: format!(
                    "values key `{dotted}`{source} is read by no template of chart {} (Helm ignores it)",
                    unread.chart
                ),
            });
        }
    }
    findings
}

/// The `validate.severities` of `.offlux.yaml`: `error`, `warning` or `off` per code.
fn severities(config: Option<&Node>) -> Result<BTreeMap<Code, Option<Severity>>, String> {
    let mut out = BTreeMap::new();
    let Some(entries) = config
        .and_then(|c| c.get_path(&["validate", "severities"]))
        .and_then(Node::as_mapping)
    else {
        return Ok(out);
    };
    for (key, value) in entries.iter() {
        let code = Code::parse(key).ok_or_else(|| format!("unknown code `{key}`"))?;
        if code == Code::ProducerFailed {
            return Err(format!(
                "`{key}` cannot be configured: a producer that fails is always an error"
            ));
        }
        let severity = match value.as_str() {
            Some("error") => Some(Severity::Error),
            Some("warning") => Some(Severity::Warning),
            Some("off") => None,
            other => {
                return Err(format!(
                    "`{key}`: expected error, warning or off, found {}",
                    other.unwrap_or("a non-string value")
                ))
            }
        };
        out.insert(code, severity);
    }
    Ok(out)
}

/// An OFX100 finding for each producer that failed or was blocked, at the producer's file and
/// line; for a HelmRelease whose chart, a directory of the repository, failed in a template, at
/// that template's line.
fn producer_findings(run_report: &RunReport) -> Vec<Finding> {
    let sites: BTreeMap<String, &crate::diagnostic::Location> = (run_report.failure_sites.iter())
        .map(|(id, at)| (format!("{}/{}/{}", id.kind, id.namespace, id.name), at))
        .collect();
    crate::reporting::verdicts::rows(run_report)
        .into_iter()
        .filter(|row| matches!(row.result, Verdict::Fail | Verdict::Blocked))
        .map(|row| {
            let object = format!("{}/{}/{}", row.kind, row.namespace, row.name);
            let (file, line) = match sites.get(&object) {
                Some(at) => (at.file.clone(), at.pos.map_or(0, |pos| pos.line)),
                None => (
                    row.file.map(PathBuf::from).unwrap_or_default(),
                    row.line.unwrap_or(0),
                ),
            };
            Finding {
                code: Code::ProducerFailed,
                severity: Severity::Error,
                producer: object.clone(),
                object,
                file,
                line,
                path: None,
                message: row.message,
            }
        })
        .collect()
}

fn counts(findings: &[Finding]) -> (usize, usize) {
    let errors = findings
        .iter()
        .filter(|f| f.severity == Severity::Error)
        .count();
    (errors, findings.len() - errors)
}

/// `N objects checked: E errors, W warnings`, `also_errors` counted among the errors (the failed
/// Flux objects when the findings leave them out).
fn summary(findings: &[Finding], objects: usize, also_errors: usize) -> String {
    let (errors, warnings) = counts(findings);
    format!(
        "{} checked: {}, {}",
        counted(objects, "object"),
        counted(errors + also_errors, "error"),
        counted(warnings, "warning")
    )
}

/// `1 error`, `2 errors`.
fn counted(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

fn location(finding: &Finding) -> String {
    match finding.line {
        0 => finding.file.display().to_string(),
        line => format!("{}:{line}", finding.file.display()),
    }
}

/// One line per finding, its repository-supplied parts shown on one line each; the summary also
/// counts the Flux objects that failed or are blocked (`not_checked`, listed on stderr) and those
/// SKIPPED (`skipped`: what needs the network, offline), whose output no finding can speak for.
fn human(findings: &[Finding], objects: usize, not_checked: usize, skipped: usize) -> String {
    let line = escape::terminal_line;
    let mut out = String::new();
    // The failed Flux objects are on stderr already: counted below, not listed again.
    let findings: Vec<Finding> = findings
        .iter()
        .filter(|f| f.code != Code::ProducerFailed)
        .cloned()
        .collect();
    for f in &findings {
        let _ = writeln!(
            out,
            "{} {} {} ({}) at {}{}: {}",
            f.severity.as_str(),
            f.code.as_str(),
            line(&f.object),
            line(&f.producer),
            line(&location(f)),
            f.path
                .as_deref()
                .map(|p| format!(" {}", line(p)))
                .unwrap_or_default(),
            line(&f.message)
        );
    }
    // A Flux object that failed is an error (OFX100), as every other format counts it, though
    // this one lists it on stderr.
    let _ = write!(out, "{}", summary(&findings, objects, not_checked));
    match not_checked {
        0 => {}
        1 => out.push_str(
            "; 1 Flux object failed or is blocked (listed above): what it applies was not checked",
        ),
        n => {
            let _ = write!(
                out,
                "; {n} Flux objects failed or are blocked (listed above): what they apply was not checked"
            );
        }
    }
    match skipped {
        0 => {}
        1 => out.push_str(
            "; 1 Flux object SKIPPED (`offlux test` says why): what it applies was not checked",
        ),
        n => {
            let _ = write!(
                out,
                "; {n} Flux objects SKIPPED (`offlux test` says why): what they apply was not checked"
            );
        }
    }
    out.push('\n');
    out
}

fn junit(findings: &[Finding]) -> String {
    let (errors, _) = counts(findings);
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        out,
        "<testsuite name=\"offlux validate\" tests=\"{}\" failures=\"{errors}\">",
        findings.len()
    );
    for f in findings {
        let _ = writeln!(
            out,
            "  <testcase classname=\"{}\" name=\"{} {}\" file=\"{}\">",
            f.code.as_str(),
            escape::xml(&f.object),
            f.code.name(),
            escape::xml(&f.file.display().to_string())
        );
        let tag = match f.severity {
            Severity::Error => "failure",
            Severity::Warning => "system-out",
        };
        // The producer, as the other formats name it (with the cluster it applies to).
        let message = format!("{} (from {})", f.message, f.producer);
        match f.severity {
            Severity::Error => {
                let _ = writeln!(
                    out,
                    "    <{tag} type=\"{}\" message=\"{}\"/>",
                    f.code.as_str(),
                    escape::xml(&message)
                );
            }
            Severity::Warning => {
                let _ = writeln!(out, "    <{tag}>{}</{tag}>", escape::xml(&message));
            }
        }
        out.push_str("  </testcase>\n");
    }
    out.push_str("</testsuite>\n");
    out
}

/// GitHub workflow commands escape `%`, CR and LF in messages, and also `:` and `,` in properties.
fn github(findings: &[Finding], objects: usize) -> String {
    let data = escape::github_data;
    let property = escape::github_property;
    let mut out = String::new();
    for f in findings {
        let command = match f.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        let line = match f.line {
            0 => String::new(),
            line => format!(",line={line}"),
        };
        let _ = writeln!(
            out,
            "::{command} file={}{line},title={}::{}",
            property(&f.file.display().to_string()),
            property(&format!("{} {}", f.code.as_str(), f.object)),
            data(&format!("{} (from {})", f.message, f.producer))
        );
    }
    let _ = writeln!(
        out,
        "::notice title=offlux validate::{}",
        data(&summary(findings, objects, 0))
    );
    out
}

/// SARIF 2.1.0, for code-scanning upload.
fn sarif(findings: &[Finding]) -> String {
    let rules: Vec<serde_json::Value> = Code::ALL
        .iter()
        .map(|code| {
            serde_json::json!({
                "id": code.as_str(),
                "name": code.name(),
                "defaultConfiguration": {"level": code.default_severity().as_str()},
            })
        })
        .collect();
    let results: Vec<serde_json::Value> = findings
        .iter()
        .map(|f| {
            serde_json::json!({
                "ruleId": f.code.as_str(),
                "level": f.severity.as_str(),
                "message": {"text": escape::plain_text(&format!("{}: {} (from {})", f.object, f.message, f.producer))},
                "locations": [{
                    "physicalLocation": {
                        "artifactLocation": {"uri": escape::plain_text(&f.file.display().to_string().replace('\\', "/"))},
                        "region": {"startLine": f.line.max(1)},
                    },
                    "logicalLocations": [{"fullyQualifiedName": escape::plain_text(&f.object), "kind": "resource"}],
                }],
            })
        })
        .collect();
    let log = serde_json::json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "offlux",
                "version": env!("CARGO_PKG_VERSION"),
                "informationUri": "https://github.com/offlux/offlux",
                "rules": rules,
            }},
            "results": results,
        }],
    });
    serde_json::to_string_pretty(&log).unwrap_or_default() + "\n"
}
