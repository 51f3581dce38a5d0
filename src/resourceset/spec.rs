//! The ResourceSet and ResourceSetInputProvider specs as the engine reads them (from the JSON of
//! `spec`), the rules the API server's schema and CEL apply to them at admission, the operator's
//! own `ValidateResourceSetSpec`, and label selectors.

use std::collections::BTreeMap;

use serde_json::{Map, Value as Json};

use super::build::Templates;
use super::inputs::{InputSet, InputStrategy};
use super::Error;

/// A label selector (`matchLabels` and `matchExpressions`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LabelSelector {
    pub match_labels: BTreeMap<String, String>,
    pub match_expressions: Vec<(String, String, Vec<String>)>,
}

impl LabelSelector {
    fn from_json(value: &Json) -> LabelSelector {
        let mut selector = LabelSelector::default();
        if let Some(Json::Object(labels)) = value.get("matchLabels") {
            for (key, value) in labels {
                selector
                    .match_labels
                    .insert(key.clone(), value.as_str().unwrap_or_default().to_owned());
            }
        }
        if let Some(Json::Array(expressions)) = value.get("matchExpressions") {
            for expression in expressions {
                let field = |k: &str| {
                    expression
                        .get(k)
                        .and_then(Json::as_str)
                        .unwrap_or_default()
                        .to_owned()
                };
                let values = match expression.get("values") {
                    Some(Json::Array(values)) => values
                        .iter()
                        .filter_map(|v| v.as_str().map(str::to_owned))
                        .collect(),
                    _ => Vec::new(),
                };
                selector
                    .match_expressions
                    .push((field("key"), field("operator"), values));
            }
        }
        selector
    }

    /// Whether `labels` satisfy the selector (Kubernetes' rules; an empty selector matches all).
    pub fn matches(&self, labels: &BTreeMap<String, String>) -> bool {
        let labels_match = self
            .match_labels
            .iter()
            .all(|(k, v)| labels.get(k) == Some(v));
        labels_match
            && self
                .match_expressions
                .iter()
                .all(|(key, operator, values)| {
                    let value = labels.get(key);
                    match operator.as_str() {
                        "In" => value.is_some_and(|v| values.contains(v)),
                        "NotIn" => value.is_none_or(|v| !values.contains(v)),
                        "Exists" => value.is_some(),
                        "DoesNotExist" => value.is_none(),
                        _ => false,
                    }
                })
    }
}

/// One `spec.inputsFrom` entry: exactly one of a name and a selector.
#[derive(Clone, Debug, PartialEq)]
pub enum ProviderReference {
    Name(String),
    Selector(LabelSelector),
}

/// A ResourceSet's spec, as far as rendering goes.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ResourceSetSpec {
    pub inputs: Vec<InputSet>,
    pub inputs_from: Vec<ProviderReference>,
    pub input_strategy: InputStrategy,
    pub templates: Templates,
    /// `spec.steps`: name and templates, in order.
    pub steps: Vec<(String, Templates)>,
    pub common_labels: BTreeMap<String, String>,
    pub common_annotations: BTreeMap<String, String>,
}

impl ResourceSetSpec {
    /// Reads `spec`, failing where the operator's `ValidateResourceSetSpec` would. The rules
    /// the API server applies before (its schema and CEL) are [`admit_resource_set`]'s.
    pub fn from_json(spec: &Json) -> Result<ResourceSetSpec, Error> {
        let empty = Map::new();
        let spec = spec.as_object().unwrap_or(&empty);
        validate(spec)?;
        let inputs = match spec.get("inputs") {
            Some(Json::Array(items)) => items
                .iter()
                .map(|item| match item {
                    Json::Object(map) => Ok(map.clone()),
                    _ => Err(Error::Spec("spec.inputs: each input must be a map".into())),
                })
                .collect::<Result<Vec<_>, _>>()?,
            _ => Vec::new(),
        };
        let mut inputs_from = Vec::new();
        if let Some(Json::Array(entries)) = spec.get("inputsFrom") {
            for entry in entries {
                match (
                    entry.get("name").and_then(Json::as_str),
                    entry.get("selector"),
                ) {
                    (Some(name), None) => inputs_from.push(ProviderReference::Name(name.into())),
                    (None, Some(selector)) => inputs_from.push(ProviderReference::Selector(
                        LabelSelector::from_json(selector),
                    )),
                    _ => {}
                }
            }
        }
        let input_strategy = match spec.get("inputStrategy") {
            Some(strategy) => InputStrategy {
                name: strategy
                    .get("name")
                    .and_then(Json::as_str)
                    .unwrap_or_default()
                    .to_owned(),
                include_empty_providers: strategy
                    .get("includeEmptyProviders")
                    .and_then(Json::as_bool)
                    .unwrap_or(false),
            },
            None => InputStrategy::default(),
        };
        let steps = match spec.get("steps") {
            Some(Json::Array(steps)) => steps
                .iter()
                .map(|step| {
                    let name = step
                        .get("name")
                        .and_then(Json::as_str)
                        .unwrap_or_default()
                        .to_owned();
                    (name, templates_of(step.as_object().unwrap_or(&empty)))
                })
                .collect(),
            _ => Vec::new(),
        };
        let common = |key: &str| -> BTreeMap<String, String> {
            spec.get("commonMetadata")
                .and_then(|c| c.get(key))
                .and_then(Json::as_object)
                .map(|m| {
                    m.iter()
                        .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_owned()))
                        .collect()
                })
                .unwrap_or_default()
        };
        Ok(ResourceSetSpec {
            inputs,
            inputs_from,
            input_strategy,
            templates: templates_of(spec),
            steps,
            common_labels: common("labels"),
            common_annotations: common("annotations"),
        })
    }
}

fn templates_of(map: &Map<String, Json>) -> Templates {
    Templates {
        resources: match map.get("resources") {
            Some(Json::Array(items)) => items.clone(),
            _ => Vec::new(),
        },
        resources_template: map
            .get("resourcesTemplate")
            .and_then(Json::as_str)
            .map(str::to_owned),
    }
}

/// The ResourceSet CRD's schema and CEL rules, which the API server applies when the object is
/// created: a repository holding an object that breaks them could never have been applied.
pub fn admit_resource_set(spec: &Json) -> Result<(), Error> {
    let empty = Map::new();
    let spec = spec.as_object().unwrap_or(&empty);
    let refuse = |message: String| Err(Error::Spec(message));
    if let Some(Json::Array(entries)) = spec.get("inputsFrom") {
        for entry in entries {
            let has_name = entry.get("name").is_some_and(|n| !n.is_null());
            let has_selector = entry.get("selector").is_some_and(|s| !s.is_null());
            if has_name && has_selector {
                return refuse(
                    "spec.inputsFrom: cannot set both name and selector for input provider references"
                        .into(),
                );
            }
            if !has_name && !has_selector {
                return refuse("spec.inputsFrom: at least one of name or selector must be set for input provider references".into());
            }
        }
    }
    if let Some(strategy) = spec.get("inputStrategy") {
        let permute = strategy.get("name").and_then(Json::as_str) == Some("Permute");
        let include_empty = strategy
            .get("includeEmptyProviders")
            .and_then(Json::as_bool)
            .unwrap_or(false);
        if include_empty && !permute {
            return refuse(
                "spec.inputStrategy: includeEmptyProviders only applies when name is Permute"
                    .into(),
            );
        }
    }
    let Some(Json::Array(steps)) = spec.get("steps") else {
        return Ok(());
    };
    if steps.len() > 20 {
        return refuse(format!(
            "spec.steps: Too many: {}: must have at most 20 items",
            steps.len()
        ));
    }
    let mut names = std::collections::BTreeSet::new();
    for (index, step) in steps.iter().enumerate() {
        let name = step.get("name").and_then(Json::as_str).unwrap_or_default();
        if !is_dns_label(name) {
            return refuse(format!(
                "spec.steps[{index}].name: Invalid value: \"{name}\": spec.steps[{index}].name in body should match '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$'"
            ));
        }
        if !names.insert(name) {
            return refuse(
                "spec.steps: Invalid value: \"array\": step names must be unique".into(),
            );
        }
        if let Some(timeout) = step.get("timeout").and_then(Json::as_str) {
            if !is_duration(timeout) {
                return refuse(format!(
                    "spec.steps[{index}].timeout: Invalid value: \"{timeout}\": spec.steps[{index}].timeout in body should match '^([0-9]+(\\.[0-9]+)?(ms|s|m|h))+$'"
                ));
            }
        }
        if !has_templates(step) {
            return refuse(format!(
                "spec.steps[{index}]: Invalid value: \"object\": at least one of resources or resourcesTemplate must be set"
            ));
        }
    }
    if !steps.is_empty() && has_templates(&Json::Object(spec.clone())) {
        return refuse(
            "spec: Invalid value: \"object\": steps is mutually exclusive with resources and resourcesTemplate"
                .into(),
        );
    }
    Ok(())
}

fn has_templates(map: &Json) -> bool {
    map.get("resources")
        .and_then(Json::as_array)
        .is_some_and(|r| !r.is_empty())
        || map
            .get("resourcesTemplate")
            .and_then(Json::as_str)
            .is_some_and(|t| !t.is_empty())
}

/// The operator's `ValidateResourceSetSpec`.
fn validate(spec: &Map<String, Json>) -> Result<(), Error> {
    let Some(Json::Array(steps)) = spec.get("steps") else {
        return Ok(());
    };
    if !steps.is_empty() && has_templates(&Json::Object(spec.clone())) {
        return Err(Error::Spec(
            "spec.steps is mutually exclusive with spec.resources and spec.resourcesTemplate"
                .into(),
        ));
    }
    for step in steps {
        if !has_templates(step) {
            let name = step.get("name").and_then(Json::as_str).unwrap_or_default();
            return Err(Error::Spec(format!(
                "step \"{name}\": at least one of resources or resourcesTemplate must be set"
            )));
        }
    }
    Ok(())
}

fn is_dns_label(name: &str) -> bool {
    let bytes = name.as_bytes();
    let edge = |b: &u8| b.is_ascii_lowercase() || b.is_ascii_digit();
    !bytes.is_empty()
        && bytes.len() <= 63
        && bytes.first().is_some_and(edge)
        && bytes.last().is_some_and(edge)
        && bytes.iter().all(|b| edge(b) || *b == b'-')
}

/// `^([0-9]+(\.[0-9]+)?(ms|s|m|h))+$`
fn is_duration(text: &str) -> bool {
    let mut rest = text;
    if rest.is_empty() {
        return false;
    }
    while !rest.is_empty() {
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 {
            return false;
        }
        rest = &rest[digits..];
        if let Some(after) = rest.strip_prefix('.') {
            let fraction = after.bytes().take_while(u8::is_ascii_digit).count();
            if fraction == 0 {
                return false;
            }
            rest = &after[fraction..];
        }
        rest = if let Some(r) = rest.strip_prefix("ms") {
            r
        } else if let Some(r) = rest.strip_prefix('s') {
            r
        } else if let Some(r) = rest.strip_prefix('m') {
            r
        } else if let Some(r) = rest.strip_prefix('h') {
            r
        } else {
            return false;
        };
    }
    true
}

/// A ResourceSetInputProvider's spec.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ProviderSpec {
    /// `spec.type`: `Static`, `GitHubBranch`, `OCIArtifactTag`, ...
    pub provider_type: String,
    pub url: Option<String>,
    pub default_values: Option<InputSet>,
    /// `spec.selectors` of an `ExternalArtifact` provider.
    pub selectors: Vec<ArtifactSelector>,
    /// `spec.filter.limit` (default 100).
    pub limit: usize,
}

/// One `spec.selectors` entry of an `ExternalArtifact` provider: a name or a label selector, in
/// a namespace (the provider's by default, `*` for all).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ArtifactSelector {
    pub name: Option<String>,
    pub namespace: Option<String>,
    pub labels: LabelSelector,
}

/// An ExternalArtifact as a provider sees it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ArtifactFacts {
    pub name: String,
    pub namespace: String,
    pub labels: BTreeMap<String, String>,
    /// `status.artifact.revision`, unknown offline unless supplied.
    pub revision: Option<String>,
}

/// What an `ExternalArtifact` provider exports: the matching artifacts, each once, sorted by
/// namespace and name, at most `limit`; each input is the artifact's labels with `id`, `name`,
/// `namespace` and (when known) `revision` over them.
pub fn external_artifact_inputs(
    spec: &ProviderSpec,
    provider_namespace: &str,
    artifacts: &[ArtifactFacts],
) -> Vec<InputSet> {
    let mut matched: Vec<&ArtifactFacts> = artifacts
        .iter()
        .filter(|artifact| {
            spec.selectors.iter().any(|selector| {
                let namespace = selector.namespace.as_deref().unwrap_or(provider_namespace);
                (namespace == "*" || namespace == artifact.namespace)
                    && selector.name.as_ref().is_none_or(|n| *n == artifact.name)
                    && selector.labels.matches(&artifact.labels)
            })
        })
        .collect();
    matched.sort_by(|a, b| (&a.namespace, &a.name).cmp(&(&b.namespace, &b.name)));
    matched.dedup_by(|a, b| (&a.namespace, &a.name) == (&b.namespace, &b.name));
    matched
        .into_iter()
        .take(spec.limit)
        .map(|artifact| {
            let mut set: InputSet = artifact
                .labels
                .iter()
                .map(|(k, v)| (k.clone(), Json::String(v.clone())))
                .collect();
            let key = format!("{}/{}", artifact.namespace, artifact.name);
            set.insert("id".into(), Json::String(super::inputs::id(&key)));
            set.insert("name".into(), Json::String(artifact.name.clone()));
            set.insert("namespace".into(), Json::String(artifact.namespace.clone()));
            if let Some(revision) = artifact.revision.as_ref().filter(|r| !r.is_empty()) {
                set.insert("revision".into(), Json::String(revision.clone()));
            }
            set
        })
        .collect()
}

impl ProviderSpec {
    pub fn from_json(spec: &Json) -> Result<ProviderSpec, Error> {
        let provider_type = spec
            .get("type")
            .and_then(Json::as_str)
            .unwrap_or_default()
            .to_owned();
        let url = spec
            .get("url")
            .and_then(Json::as_str)
            .filter(|u| !u.is_empty())
            .map(str::to_owned);
        if provider_type == "Static" && url.is_some() {
            return Err(Error::Spec(
                "spec.url must be empty when spec.type is 'Static'".into(),
            ));
        }
        let needs_no_url = matches!(
            provider_type.as_str(),
            "Static" | "ExternalArtifact" | "ExternalService"
        );
        if !needs_no_url && url.is_none() {
            return Err(Error::Spec(
                "spec.url must not be empty when spec.type is not 'Static'".into(),
            ));
        }
        let selectors = match spec.get("selectors") {
            Some(Json::Array(entries)) => entries
                .iter()
                .map(|entry| ArtifactSelector {
                    name: entry.get("name").and_then(Json::as_str).map(str::to_owned),
                    namespace: entry
                        .get("namespace")
                        .and_then(Json::as_str)
                        .filter(|n| !n.is_empty())
                        .map(str::to_owned),
                    labels: LabelSelector::from_json(entry),
                })
                .collect(),
            _ => Vec::new(),
        };
        let limit = spec
            .get("filter")
            .and_then(|f| f.get("limit"))
            .and_then(Json::as_u64)
            .map_or(100, |l| l as usize);
        Ok(ProviderSpec {
            provider_type,
            url,
            default_values: spec.get("defaultValues").and_then(Json::as_object).cloned(),
            selectors,
            limit,
        })
    }
}
