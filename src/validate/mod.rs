//! Checks over rendered objects: what the API server or Flux would reject, or what is likely a
//! mistake, before anything is applied. Each finding has a stable code, a severity, the object,
//! its producer and where it was written. The checks know nothing of Flux or the command line:
//! they see objects, each with the name of what produced it.
//!
//! | code | severity | finding |
//! |---|---|---|
//! | OFX101 | error | the same object (group, kind, namespace, name) rendered by two producers |
//! | OFX102 | error | a namespaced object with no namespace after every transform |
//! | OFX103 | warning | a `${VAR}` left unsubstituted in a one-line value of the output |
//! | OFX104 | error | an API version the target Kubernetes no longer serves, or that no Flux release's CRD serves |
//! | OFX105 | warning | an API version the target Kubernetes has deprecated, or Flux's CRD deprecates or no longer serves |
//! | OFX106 | warning | a namespace used that no rendered object creates |
//! | OFX107 | error | an object that breaks the schema of its kind (built-in, or its CRD's) |
//! | OFX108 | warning | an object of a kind whose schema is nowhere (error with strict schemas) |
//! | OFX109 | warning | a ConfigMap, Secret, ServiceAccount or PersistentVolumeClaim a pod spec needs that nothing provides |
//! | OFX110 | warning | a HelmRelease values key that no template of the chart reads |
//! | OFX111 | warning | a file of Kubernetes objects that nothing reached from the entry point applies |
//! | OFX112 | warning | a Flux Kustomization, HelmRelease, ResourceSet or source in such a file (a forgotten app) |
//! | OFX113 | warning | a source that no object refers to |
//! | OFX114 | warning | a generated values or variables ConfigMap/Secret that nothing reads |
//!
//! An object opts out of codes with the annotation `offlux.io/ignore: OFX103,OFX106`.

mod api_versions;
mod explain;
mod locate;
mod orphans;
mod references;
pub(crate) use references::{containers, made_in_cluster_by};
mod schema;
mod scope;
pub(crate) use scope::builtin_is_namespaced;

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use crate::model::{no_kind_match, served_version, Object, Served};
use crate::parallel;
use crate::yaml::Node;

pub use api_versions::{retired, RetiredApi};
pub use explain::Explanation;
pub use locate::refine_lines;
pub use orphans::{find as find_orphans, lexical_join, Applied, Layout, OrphanInput};
pub use schema::{supported_minors, GroupVersionKind, Schemas, Verdict, Violation};

/// The annotation listing the codes an object opts out of.
pub(crate) const IGNORE_ANNOTATION: &str = "offlux.io/ignore";

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Warning,
    Error,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
pub enum Code {
    /// Not a check of an object: a producer that failed or was blocked, so what it would apply
    /// was never checked. Always an error; listed with the findings so every output format
    /// carries it.
    #[serde(rename = "OFX100")]
    ProducerFailed,
    #[serde(rename = "OFX101")]
    DuplicateObject,
    #[serde(rename = "OFX102")]
    MissingNamespace,
    #[serde(rename = "OFX103")]
    UnsubstitutedVariable,
    #[serde(rename = "OFX104")]
    RemovedApiVersion,
    #[serde(rename = "OFX105")]
    DeprecatedApiVersion,
    #[serde(rename = "OFX106")]
    NamespaceNotCreated,
    #[serde(rename = "OFX107")]
    SchemaViolation,
    #[serde(rename = "OFX108")]
    SchemaUnknown,
    #[serde(rename = "OFX109")]
    MissingReference,
    #[serde(rename = "OFX110")]
    UnusedValuesKey,
    #[serde(rename = "OFX111")]
    OrphanManifest,
    #[serde(rename = "OFX112")]
    ForgottenProducer,
    #[serde(rename = "OFX113")]
    UnusedSource,
    #[serde(rename = "OFX114")]
    UnreadValues,
}

impl Code {
    pub const ALL: [Code; 15] = [
        Code::ProducerFailed,
        Code::DuplicateObject,
        Code::MissingNamespace,
        Code::UnsubstitutedVariable,
        Code::RemovedApiVersion,
        Code::DeprecatedApiVersion,
        Code::NamespaceNotCreated,
        Code::SchemaViolation,
        Code::SchemaUnknown,
        Code::MissingReference,
        Code::UnusedValuesKey,
        Code::OrphanManifest,
        Code::ForgottenProducer,
        Code::UnusedSource,
        Code::UnreadValues,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Code::ProducerFailed => "OFX100",
            Code::DuplicateObject => "OFX101",
            Code::MissingNamespace => "OFX102",
            Code::UnsubstitutedVariable => "OFX103",
            Code::RemovedApiVersion => "OFX104",
            Code::DeprecatedApiVersion => "OFX105",
            Code::NamespaceNotCreated => "OFX106",
            Code::SchemaViolation => "OFX107",
            Code::SchemaUnknown => "OFX108",
            Code::MissingReference => "OFX109",
            Code::UnusedValuesKey => "OFX110",
            Code::OrphanManifest => "OFX111",
            Code::ForgottenProducer => "OFX112",
            Code::UnusedSource => "OFX113",
            Code::UnreadValues => "OFX114",
        }
    }

    /// A short name for reports (SARIF rule names, titles).
    pub fn name(self) -> &'static str {
        match self {
            Code::ProducerFailed => "producer-failed",
            Code::DuplicateObject => "duplicate-object",
            Code::MissingNamespace => "missing-namespace",
            Code::UnsubstitutedVariable => "unsubstituted-variable",
            Code::RemovedApiVersion => "removed-api-version",
            Code::DeprecatedApiVersion => "deprecated-api-version",
            Code::NamespaceNotCreated => "namespace-not-created",
            Code::SchemaViolation => "schema-violation",
            Code::SchemaUnknown => "schema-unknown",
            Code::MissingReference => "missing-reference",
            Code::UnusedValuesKey => "unused-values-key",
            Code::OrphanManifest => "orphan-manifest",
            Code::ForgottenProducer => "forgotten-producer",
            Code::UnusedSource => "unused-source",
            Code::UnreadValues => "unread-values",
        }
    }

    pub(crate) fn default_severity(self) -> Severity {
        match self {
            Code::ProducerFailed
            | Code::DuplicateObject
            | Code::MissingNamespace
            | Code::RemovedApiVersion
            | Code::SchemaViolation => Severity::Error,
            Code::UnsubstitutedVariable
            | Code::DeprecatedApiVersion
            | Code::NamespaceNotCreated
            | Code::SchemaUnknown
            | Code::MissingReference
            | Code::UnusedValuesKey
            | Code::OrphanManifest
            | Code::ForgottenProducer
            | Code::UnusedSource
            | Code::UnreadValues => Severity::Warning,
        }
    }

    pub fn parse(text: &str) -> Option<Code> {
        let text = text.trim();
        Code::ALL
            .into_iter()
            .find(|c| c.as_str().eq_ignore_ascii_case(text) || c.name() == text)
    }
}

/// One rendered object and what produced it (a label such as `Kustomization/flux-system/apps`).
pub struct Produced<'a> {
    pub producer: &'a str,
    pub object: &'a Object,
    /// Rendered by a chart, whose templates may pick API versions from `.Capabilities`: offline
    /// those are a default set, not the cluster's, so a retired version is only a warning.
    pub from_chart: bool,
    /// Whether the producer's own namespace is known. A producer read from a loose file without
    /// one gets it from wherever it is applied, so its objects' namespaces are not judged.
    pub namespace_known: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
pub struct Finding {
    pub code: Code,
    pub severity: Severity,
    /// `Kind/namespace/name` of the object concerned.
    pub object: String,
    pub producer: String,
    /// The file the object (or its producer) was written in, relative to the repository root.
    pub file: PathBuf,
    pub line: u32,
    /// Where in the object, as a JSON path (`$.spec.template`), when it is one field.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    pub message: String,
}

#[derive(Clone, Debug, Default)]
pub struct Options {
    /// The Kubernetes minor version (of 1.x) the objects are checked against.
    pub kube_minor: u64,
    /// Severities that differ from the defaults; `None` turns a code off.
    pub severities: BTreeMap<Code, Option<Severity>>,
    /// An object whose schema is nowhere is an error, not a warning.
    pub strict_schemas: bool,
    /// CRDs used for kinds no rendered CRD defines (the controllers' own, say).
    pub fallback_crds: Vec<serde_json::Value>,
}

/// Every finding on `objects`, sorted (by file, line, code, object) and without duplicates.
pub fn validate(objects: &[Produced<'_>], options: &Options) -> Vec<Finding> {
    validate_with(objects, Vec::new(), &BTreeSet::new(), options)
}

/// [`validate`], with `made` (findings made elsewhere, such as OFX110 from a run's HelmReleases)
/// opted out, re-graded and sorted with the rest.
/// `held` are namespaces the cluster has from outside the run (the bootstrap's own objects).
pub(crate) fn validate_with(
    objects: &[Produced<'_>],
    made: Vec<Finding>,
    held: &BTreeSet<String>,
    options: &Options,
) -> Vec<Finding> {
    let scopes = scope::Scopes::from_objects(objects.iter().map(|p| p.object));
    let mut findings = made;
    duplicates(objects, &mut findings);
    references::missing_references(objects, &mut findings);
    let created: BTreeSet<&str> = objects
        .iter()
        .filter(|p| p.object.id.group.is_empty() && p.object.id.kind == "Namespace")
        .map(|p| p.object.id.name.as_str())
        .chain(held.iter().map(String::as_str))
        .collect();
    let mut namespaces_reported = BTreeSet::new();
    check_schemas(objects, options, &mut findings);
    let variables = parallel::map(objects, |p| {
        first_variable(&p.object.node, &mut vec!["$".to_string()])
    });
    for (produced, variable) in objects.iter().zip(variables) {
        let object = produced.object;
        let id = &object.id;
        let namespaced = scopes.is_namespaced(&id.group, &id.kind);
        if namespaced == Some(true) && id.namespace.is_empty() && produced.namespace_known {
            findings.push(finding(
                produced,
                Code::MissingNamespace,
                Some("$.metadata.namespace".into()),
                format!(
                    "{} {} is namespaced but has no namespace after every transform (set it in the manifest, or the Kustomization's targetNamespace)",
                    id.kind, id.name
                ),
            ));
        }
        if !id.namespace.is_empty()
            && !created.contains(id.namespace.as_str())
            && !is_builtin_namespace(&id.namespace)
            && namespaces_reported.insert(id.namespace.clone())
        {
            findings.push(finding(
                produced,
                Code::NamespaceNotCreated,
                Some("$.metadata.namespace".into()),
                format!(
                    "namespace {} is used but no rendered object creates it (the cluster may hold it)",
                    id.namespace
                ),
            ));
        }
        let api_version = api_version_of(object);
        if let Some(retired) = retired(&api_version, &id.kind) {
            if options.kube_minor >= retired.removed_in {
                let mut found = finding(
                    produced,
                    Code::RemovedApiVersion,
                    Some("$.apiVersion".into()),
                    format!(
                        "{api_version} {} is not served since Kubernetes 1.{} (target 1.{}); use {}",
                        id.kind, retired.removed_in, options.kube_minor, retired.replacement
                    ),
                );
                if produced.from_chart {
                    found.severity = Severity::Warning;
                    found.message.push_str(
                        " (the chart may have chosen it from the offline .Capabilities, not the cluster's)",
                    );
                }
                findings.push(found);
            } else if options.kube_minor >= retired.deprecated_in {
                findings.push(finding(
                    produced,
                    Code::DeprecatedApiVersion,
                    Some("$.apiVersion".into()),
                    format!(
                        "{api_version} {} is deprecated since Kubernetes 1.{} and removed in 1.{}; use {}",
                        id.kind, retired.deprecated_in, retired.removed_in, retired.replacement
                    ),
                ));
            }
        }
        flux_api_version(produced, &api_version, &mut findings);
        if let Some((path, variable)) = variable {
            findings.push(finding(
                produced,
                Code::UnsubstitutedVariable,
                Some(path),
                format!("`{variable}` is left unsubstituted in the output"),
            ));
        }
    }
    let opted_out = opted_out(objects);
    let mut findings: Vec<Finding> = findings
        .into_iter()
        .filter(|f| {
            opted_out
                .get(&(f.object.clone(), f.producer.clone()))
                .is_none_or(|codes| !codes.contains(&f.code))
        })
        .filter_map(|mut f| match options.severities.get(&f.code) {
            Some(None) => None,
            Some(Some(severity)) => {
                f.severity = *severity;
                Some(f)
            }
            None => Some(f),
        })
        .collect();
    sort_findings(&mut findings);
    findings.dedup();
    findings
}

/// What one cluster is checked on (see [`validate_groups`]).
#[derive(Default)]
pub struct Group<'a> {
    /// The objects the run applies to it.
    pub objects: Vec<Produced<'a>>,
    /// Findings made elsewhere about them.
    pub made: Vec<Finding>,
    /// Namespaces it has from outside the run: those the bootstrap applies from the entry
    /// point's own files, which no Kustomization of the run renders.
    pub held: BTreeSet<String>,
}

/// [`validate_with`] for objects applied to several clusters: each group (its objects, and the
/// findings made elsewhere about them) is checked on its own, as a cluster sees only what is
/// applied to it (duplicates, namespaces, references and CRDs do not cross clusters); the
/// findings are sorted together.
pub fn validate_groups(groups: Vec<Group<'_>>, options: &Options) -> Vec<Finding> {
    let mut findings: Vec<Finding> = groups
        .into_iter()
        .flat_map(|group| validate_with(&group.objects, group.made, &group.held, options))
        .collect();
    sort_findings(&mut findings);
    findings.dedup();
    findings
}

/// The order of every report: by file, line, code, object and producer.
fn sort_findings(findings: &mut [Finding]) {
    findings.sort_by(|a, b| {
        (&a.file, a.line, a.code, &a.object, &a.producer).cmp(&(
            &b.file,
            b.line,
            b.code,
            &b.object,
            &b.producer,
        ))
    });
}

/// OFX107 and OFX108: each object against the schema of its kind. A kind without a schema is
/// reported once, on its first object, with the number of objects concerned.
fn check_schemas(objects: &[Produced<'_>], options: &Options, findings: &mut Vec<Finding>) {
    let is_crd = |p: &Produced<'_>| {
        p.object.id.kind == "CustomResourceDefinition"
            && p.object.id.group == "apiextensions.k8s.io"
    };
    let crd_indices: Vec<usize> = (0..objects.len())
        .filter(|i| is_crd(&objects[*i]))
        .collect();
    // The built-in schemas' table is unpacked while the CRDs are turned into JSON.
    let crds: BTreeMap<usize, serde_json::Value> = std::thread::scope(|scope| {
        // Should no thread be had, the table is unpacked when first needed instead.
        let _ = std::thread::Builder::new().spawn_scoped(scope, supported_minors);
        crd_indices
            .iter()
            .copied()
            .zip(parallel::map(&crd_indices, |i| {
                crate::yaml::to_json_kyaml(&objects[*i].object.node)
            }))
            .collect()
    });
    let mut schemas = Schemas::new(
        options.kube_minor,
        crds.values().chain(&options.fallback_crds),
    );
    let kinds: Vec<GroupVersionKind> = objects
        .iter()
        .map(|p| GroupVersionKind::from_api_version(&api_version_of(p.object), &p.object.id.kind))
        .collect();
    schemas.prepare(&kinds.iter().cloned().collect());
    let indices: Vec<usize> = (0..objects.len()).collect();
    // Objects are turned into JSON only when their kind has a schema to check them against.
    let verdicts = parallel::map(&indices, |i| {
        let gvk = &kinds[*i];
        if !schemas.has_schema(gvk) {
            return schemas.check(gvk, &serde_json::Value::Null);
        }
        match crds.get(i) {
            Some(json) => schemas.check(gvk, json),
            None => schemas.check(gvk, &crate::yaml::to_json_kyaml(&objects[*i].object.node)),
        }
    });
    let mut unknown: BTreeMap<GroupVersionKind, (usize, String, usize)> = BTreeMap::new();
    for (index, (produced, verdict)) in objects.iter().zip(verdicts).enumerate() {
        let gvk = kinds[index].clone();
        match verdict {
            Verdict::Valid => {}
            Verdict::Invalid(violations) => {
                for violation in violations {
                    findings.push(schema_violation(produced, &gvk, violation));
                }
            }
            // Retired API versions have their own finding.
            Verdict::Unknown(_) if retired(&gvk.api_version(), &gvk.kind).is_some() => {}
            Verdict::Unknown(_) if flux_version_reported(&gvk.group, &gvk.kind, &gvk.version) => {}
            // The finding stands for every object of the kind: those that opt out are not counted.
            Verdict::Unknown(_) if ignored_codes(produced).contains(&Code::SchemaUnknown) => {}
            Verdict::Unknown(reason) => {
                unknown.entry(gvk).or_insert((index, reason, 0)).2 += 1;
            }
        }
    }
    for (index, reason, count) in unknown.into_values() {
        let mut message = format!("schema unknown: {reason}");
        if count > 1 {
            message.push_str(&format!("; {count} objects of this kind are not checked"));
        }
        let mut found = finding(&objects[index], Code::SchemaUnknown, None, message);
        if options.strict_schemas {
            found.severity = Severity::Error;
        }
        findings.push(found);
    }
}

fn schema_violation(
    produced: &Produced<'_>,
    gvk: &GroupVersionKind,
    violation: Violation,
) -> Finding {
    let mut found = finding(
        produced,
        Code::SchemaViolation,
        Some(violation.path),
        format!("{} {}: {}", gvk.api_version(), gvk.kind, violation.message),
    );
    // Helm applies client-side: the API server drops an undeclared field with a warning where
    // server-side apply (Kustomizations) refuses the object.
    if produced.from_chart && violation.undeclared_field {
        found.severity = Severity::Warning;
        found
            .message
            .push_str(" (Helm's apply drops it with a warning)");
    }
    found
}

fn finding(produced: &Produced<'_>, code: Code, path: Option<String>, message: String) -> Finding {
    let object = produced.object;
    Finding {
        code,
        severity: code.default_severity(),
        object: label(object),
        producer: produced.producer.to_string(),
        file: object.file.clone(),
        line: object.pos.line,
        path,
        message,
    }
}

fn label(object: &Object) -> String {
    format!(
        "{}/{}/{}",
        object.id.kind, object.id.namespace, object.id.name
    )
}

/// OFX104 and OFX105 for Flux's own kinds, from the versions their CRDs serve
/// (`model::served_version`): a version no Flux release served fails the apply as the API server
/// refuses it; a deprecated one, or one only older Flux releases serve, is a warning.
fn flux_api_version(produced: &Produced<'_>, api_version: &str, findings: &mut Vec<Finding>) {
    let id = &produced.object.id;
    let Some(served) = served_version(&id.group, &id.kind, &id.version) else {
        return;
    };
    let spelled = |versions: &[&str]| {
        versions
            .iter()
            .map(|v| format!("{}/{v}", id.group))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let (code, message) = match served {
        Served::Current => return,
        Served::Unknown { served } => (
            Code::RemovedApiVersion,
            format!(
                "{}: Flux's CRD serves {}",
                no_kind_match(&id.kind, &id.group, &id.version),
                spelled(served)
            ),
        ),
        Served::Deprecated { replacement } => (
            Code::DeprecatedApiVersion,
            format!(
                "{api_version} {} is deprecated by Flux's CRD; use {}/{replacement}",
                id.kind, id.group
            ),
        ),
        Served::Retired { since, replacement } => (
            Code::DeprecatedApiVersion,
            format!(
                "{api_version} {} is not served since Flux {since} (older releases serve it, deprecated); use {}/{replacement}",
                id.kind, id.group
            ),
        ),
    };
    findings.push(finding(
        produced,
        code,
        Some("$.apiVersion".into()),
        message,
    ));
}

/// Whether a Flux kind's version has its own finding (OFX104/OFX105), so a missing schema for it
/// is not reported again.
fn flux_version_reported(group: &str, kind: &str, version: &str) -> bool {
    matches!(
        served_version(group, kind, version),
        Some(Served::Unknown { .. } | Served::Retired { .. })
    )
}

fn api_version_of(object: &Object) -> String {
    object
        .node
        .get_path(&["apiVersion"])
        .and_then(Node::as_str)
        .unwrap_or_default()
        .to_string()
}

/// Namespaces every cluster has.
fn is_builtin_namespace(namespace: &str) -> bool {
    matches!(
        namespace,
        "default" | "kube-system" | "kube-public" | "kube-node-lease"
    )
}

/// OFX101: the same object from more than one producer (Flux would have them fight over it).
fn duplicates(objects: &[Produced<'_>], findings: &mut Vec<Finding>) {
    let mut by_id: BTreeMap<(&str, &str, &str, &str), Vec<&Produced<'_>>> = BTreeMap::new();
    for produced in objects {
        let id = &produced.object.id;
        by_id
            .entry((&id.group, &id.kind, &id.namespace, &id.name))
            .or_default()
            .push(produced);
    }
    for producers in by_id.values() {
        let names: BTreeSet<&str> = producers.iter().map(|p| p.producer).collect();
        if names.len() < 2 {
            continue;
        }
        let all = names.iter().copied().collect::<Vec<_>>().join(", ");
        // Identical copies (apart from who owns them) are applied alike; only differing ones make
        // the producers undo each other.
        let contents: BTreeSet<String> = producers
            .iter()
            .map(|p| without_owner_labels(&p.object.node))
            .collect();
        let differ = contents.len() > 1;
        for produced in producers {
            let mut found = finding(
                produced,
                Code::DuplicateObject,
                None,
                if differ {
                    format!(
                        "rendered differently by {} producers ({all}): each apply undoes the other",
                        names.len()
                    )
                } else {
                    format!(
                        "rendered identically by {} producers ({all}): whichever is pruned first deletes it for both",
                        names.len()
                    )
                },
            );
            if !differ {
                found.severity = Severity::Warning;
            }
            findings.push(found);
        }
    }
}

/// An object's content as JSON text, without the labels that name its owner.
fn without_owner_labels(node: &Node) -> String {
    let mut json = crate::yaml::to_json_kyaml(node);
    if let Some(metadata) = json
        .pointer_mut("/metadata")
        .and_then(serde_json::Value::as_object_mut)
    {
        let Some(labels) = metadata
            .get_mut("labels")
            .and_then(serde_json::Value::as_object_mut)
        else {
            return json.to_string();
        };
        labels.retain(|key, _| {
            !key.ends_with(".toolkit.fluxcd.io/name")
                && !key.ends_with(".toolkit.fluxcd.io/namespace")
        });
        if labels.is_empty() {
            metadata.remove("labels");
        }
    }
    json.to_string()
}

/// The first `${NAME}` (Flux's post-build syntax) in a string value, with its JSON path.
fn first_variable(node: &Node, path: &mut Vec<String>) -> Option<(String, String)> {
    match node {
        // A multi-line value is a script or a config file, whose `${...}` are its own syntax.
        Node::Scalar(scalar) if scalar.value.trim_end().contains('\n') => None,
        Node::Scalar(scalar) => find_variable(&scalar.value).map(|v| (path.concat(), v)),
        Node::Sequence(sequence) => sequence.items.iter().enumerate().find_map(|(i, item)| {
            path.push(format!("[{i}]"));
            let found = first_variable(item, path);
            path.pop();
            found
        }),
        Node::Mapping(mapping) => mapping.iter().find_map(|(key, value)| {
            path.push(format!(".{key}"));
            let found = first_variable(value, path);
            path.pop();
            found
        }),
    }
}

/// `${NAME}` or `${NAME:=default}` with a name Flux would substitute (letters, digits, `_`,
/// not starting with a digit). `$${X}` is an escape and no variable.
fn find_variable(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut i = 0;
    while let Some(at) = text[i..].find("${").map(|p| p + i) {
        let escaped = at > 0 && bytes[at - 1] == b'$';
        let rest = &text[at + 2..];
        let name_len = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        let name = &rest[..name_len];
        let closes = rest[name_len..].starts_with('}') || rest[name_len..].starts_with(':');
        if !escaped && closes && !name.is_empty() && !name.starts_with(|c: char| c.is_ascii_digit())
        {
            let end = rest.find('}').map_or(rest.len(), |e| e + 1);
            return Some(format!("${{{}", &rest[..end]));
        }
        i = at + 2;
    }
    None
}

/// The codes each object (by label and producer) opts out of with the ignore annotation.
fn opted_out(objects: &[Produced<'_>]) -> BTreeMap<(String, String), BTreeSet<Code>> {
    let mut out: BTreeMap<(String, String), BTreeSet<Code>> = BTreeMap::new();
    for produced in objects {
        let codes = ignored_codes(produced);
        if !codes.is_empty() {
            out.entry((label(produced.object), produced.producer.to_string()))
                .or_default()
                .extend(codes);
        }
    }
    out
}

/// The codes one object's ignore annotation lists.
fn ignored_codes(produced: &Produced<'_>) -> Vec<Code> {
    produced
        .object
        .node
        .get_path(&["metadata", "annotations", IGNORE_ANNOTATION])
        .and_then(Node::as_str)
        .map(|codes| codes.split(',').filter_map(Code::parse).collect())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests;
