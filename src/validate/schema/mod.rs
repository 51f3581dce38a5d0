//! Which schema an object answers to, and whether it does: Kubernetes' own kinds from the
//! embedded tables (one Kubernetes minor version), custom resources from the CRDs that are
//! rendered alongside them, and Flux's own kinds from their embedded CRDs when the repository
//! does not carry them.

mod cel_rules;
mod kubernetes;
mod openapi;

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

use jsonschema::error::ValidationErrorKind;
use jsonschema::{Draft, Validator};
use serde_json::Value;

pub use kubernetes::supported_minors;
use kubernetes::KubernetesSchemas;

/// At most this many violations are reported per object: past that, the object is most likely
/// of another version of its kind than the one it claims.
const MAX_VIOLATIONS: usize = 8;

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct GroupVersionKind {
    pub group: String,
    pub version: String,
    pub kind: String,
}

impl GroupVersionKind {
    pub fn new(group: &str, version: &str, kind: &str) -> Self {
        GroupVersionKind {
            group: group.to_string(),
            version: version.to_string(),
            kind: kind.to_string(),
        }
    }

    /// From an object's `apiVersion` (`group/version`, or `version` for the core group) and kind.
    pub(crate) fn from_api_version(api_version: &str, kind: &str) -> Self {
        let (group, version) = api_version.rsplit_once('/').unwrap_or(("", api_version));
        GroupVersionKind::new(group, version, kind)
    }

    pub fn api_version(&self) -> String {
        if self.group.is_empty() {
            self.version.clone()
        } else {
            format!("{}/{}", self.group, self.version)
        }
    }
}

/// One way an object breaks its schema.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    /// A JSON path into the object (`$.spec.template.spec.containers[0].image`).
    pub path: String,
    pub message: String,
    /// A field the schema does not declare (rather than a wrong value).
    pub undeclared_field: bool,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    Valid,
    Invalid(Vec<Violation>),
    /// No schema is known for the kind; the text says why.
    Unknown(String),
}

/// A custom resource's schema, translated when first needed (CRDs can be megabytes).
struct CustomSchema<'a> {
    /// The version's `openAPIV3Schema`; none accepts anything.
    openapi: Option<&'a Value>,
    /// `CustomResourceDefinition <name>`.
    origin: String,
}

pub struct Schemas<'a> {
    kubernetes: KubernetesSchemas,
    custom: BTreeMap<GroupVersionKind, CustomSchema<'a>>,
    /// Groups some CRD defines, with the versions it serves (to tell "unknown version" apart).
    custom_groups: BTreeMap<(String, String), Vec<String>>,
    compiled: HashMap<GroupVersionKind, Result<Arc<Validator>, String>>,
}

impl<'a> Schemas<'a> {
    /// The schemas of Kubernetes 1.`minor` and of the CRDs given (objects of kind
    /// `CustomResourceDefinition`, as JSON; earlier ones win over later ones of the same kind).
    pub fn new(minor: u64, crds: impl IntoIterator<Item = &'a Value>) -> Self {
        let mut schemas = Schemas {
            kubernetes: KubernetesSchemas::for_minor(minor),
            custom: BTreeMap::new(),
            custom_groups: BTreeMap::new(),
            compiled: HashMap::new(),
        };
        for crd in crds {
            schemas.add_crd(crd);
        }
        schemas
    }

    fn add_crd(&mut self, crd: &'a Value) {
        let text = |pointer: &str| crd.pointer(pointer).and_then(Value::as_str);
        let (Some(group), Some(kind)) = (text("/spec/group"), text("/spec/names/kind")) else {
            return;
        };
        let name = text("/metadata/name").unwrap_or(kind);
        // apiextensions.k8s.io/v1beta1 had one schema for every version.
        let shared_schema = crd.pointer("/spec/validation/openAPIV3Schema");
        let versions: Vec<(&str, Option<&'a Value>)> =
            match crd.pointer("/spec/versions").and_then(Value::as_array) {
                Some(versions) => versions
                    .iter()
                    .filter(|v| v.get("served").and_then(Value::as_bool) != Some(false))
                    .filter_map(|v| {
                        let name = v.get("name")?.as_str()?;
                        Some((name, v.pointer("/schema/openAPIV3Schema")))
                    })
                    .collect(),
                None => text("/spec/version")
                    .map(|v| (v, None))
                    .into_iter()
                    .collect(),
            };
        for (version_name, own_schema) in versions {
            let served = self
                .custom_groups
                .entry((group.to_string(), kind.to_string()))
                .or_default();
            if !served.iter().any(|v| v == version_name) {
                served.push(version_name.to_string());
            }
            let openapi = own_schema.or(shared_schema);
            self.custom
                .entry(GroupVersionKind::new(group, version_name, kind))
                .or_insert_with(|| CustomSchema {
                    openapi,
                    origin: format!("CustomResourceDefinition {name}"),
                });
        }
    }

    /// Compiles the schemas of `kinds` ahead of `check`, in parallel.
    pub fn prepare(&mut self, kinds: &BTreeSet<GroupVersionKind>) {
        let pending: Vec<&GroupVersionKind> = kinds
            .iter()
            .filter(|gvk| !self.compiled.contains_key(*gvk))
            .collect();
        // One kind at a time: compiling a large CRD takes as long as dozens of small kinds.
        let compiled = crate::parallel::map_chunked(&pending, 1, |gvk| self.compile(gvk));
        self.compiled
            .extend(pending.into_iter().cloned().zip(compiled));
    }

    /// Whether `gvk` was prepared and has a schema (without one, `check` does not read the object).
    pub(crate) fn has_schema(&self, gvk: &GroupVersionKind) -> bool {
        self.compiled.get(gvk).is_some_and(Result::is_ok)
    }

    /// Checks `object` (as JSON) against the schema of its kind (compiled now unless prepared).
    pub fn check(&self, gvk: &GroupVersionKind, object: &Value) -> Verdict {
        let validator = match self.compiled.get(gvk) {
            Some(compiled) => compiled.clone(),
            None => self.compile(gvk),
        };
        let validator = match validator {
            Ok(validator) => validator,
            Err(reason) => return Verdict::Unknown(reason),
        };
        let found = catch_unwind(AssertUnwindSafe(|| {
            validator
                .iter_errors(object)
                // A string still holding `${…}` stands for a value postBuild substitution takes
                // from what only the cluster holds (OFX103 reports it): its pattern, format or
                // type is the value's, unknown here, not the placeholder's.
                .filter(|error| !is_unsubstituted(error.instance()))
                .take(MAX_VIOLATIONS)
                .map(|error| violation(&error))
                .collect::<Vec<_>>()
        }));
        match found {
            Ok(violations) if violations.is_empty() => Verdict::Valid,
            Ok(mut violations) => {
                violations.sort_by(|a, b| a.path.cmp(&b.path));
                violations.dedup();
                Verdict::Invalid(violations)
            }
            Err(_) => Verdict::Unknown(format!(
                "the schema of {} {} could not be applied",
                gvk.api_version(),
                gvk.kind
            )),
        }
    }

    fn compile(&self, gvk: &GroupVersionKind) -> Result<Arc<Validator>, String> {
        if let Some(schema) = self.kubernetes.schema_of(gvk) {
            return build(&schema).map_err(|e| {
                format!(
                    "the schema of {} {} does not compile: {e}",
                    gvk.api_version(),
                    gvk.kind
                )
            });
        }
        if let Some(custom) = self.custom.get(gvk) {
            let schema = custom
                .openapi
                .map(openapi::custom_resource_schema)
                // A CRD without a schema accepts anything.
                .unwrap_or_else(|| serde_json::json!({}));
            // Go's regular expressions and this validator's differ at the edges: a CRD whose
            // patterns do not compile here is still checked for everything else.
            return build(&schema)
                .or_else(|_| build(&without_patterns(&schema)))
                .map_err(|e| format!("the schema from {} does not compile: {e}", custom.origin));
        }
        Err(self.why_unknown(gvk))
    }

    fn why_unknown(&self, gvk: &GroupVersionKind) -> String {
        let api_version = gvk.api_version();
        if let Some(served) = self
            .custom_groups
            .get(&(gvk.group.clone(), gvk.kind.clone()))
        {
            return format!(
                "{api_version} {} is not served by its CustomResourceDefinition (versions: {})",
                gvk.kind,
                served.join(", ")
            );
        }
        if self.kubernetes.serves_group(&gvk.group) {
            return format!(
                "Kubernetes 1.{} has no {api_version} {}",
                self.kubernetes.minor, gvk.kind
            );
        }
        // Flux's own kinds whose CRDs are not embedded (`scripts/gen-flux-crds` says why).
        if gvk.group.ends_with(".toolkit.fluxcd.io") {
            return format!(
                "no CustomResourceDefinition for {api_version} {} is rendered, and offlux does not \
                 carry this one of Flux's (Alert's differs between a `flux install` cluster and one \
                 the Flux Operator installs; the image automation APIs are not carried); \
                 `--crds` can supply it",
                gvk.kind
            );
        }
        format!(
            "no CustomResourceDefinition for {api_version} {} is rendered (the cluster may have it; `--crds` can supply it)",
            gvk.kind
        )
    }
}

fn build(schema: &Value) -> Result<Arc<Validator>, String> {
    catch_unwind(AssertUnwindSafe(|| {
        jsonschema::options()
            .with_draft(Draft::Draft202012)
            .with_keyword(cel_rules::KEYWORD, cel_rules::factory)
            .build(schema)
            .map(Arc::new)
            .map_err(|e| e.to_string())
    }))
    .unwrap_or_else(|_| Err("the validator panicked".into()))
}

fn without_patterns(schema: &Value) -> Value {
    match schema {
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(key, value)| !(key.as_str() == "pattern" && value.is_string()))
                .map(|(key, value)| (key.clone(), without_patterns(value)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(without_patterns).collect()),
        other => other.clone(),
    }
}

/// A string with a `${` left in it by postBuild substitution.
fn is_unsubstituted(instance: &Value) -> bool {
    instance.as_str().is_some_and(|text| text.contains("${"))
}

fn violation(error: &jsonschema::ValidationError<'_>) -> Violation {
    let mut pointer = error.instance_path().as_str().to_string();
    let undeclared_field = matches!(
        error.kind(),
        ValidationErrorKind::AdditionalProperties { .. }
    );
    let message = match error.kind() {
        ValidationErrorKind::AdditionalProperties { unexpected } if unexpected.len() == 1 => {
            pointer.push('/');
            pointer.push_str(&unexpected[0].replace('~', "~0").replace('/', "~1"));
            format!("field `{}` is not declared in the schema", unexpected[0])
        }
        ValidationErrorKind::AdditionalProperties { unexpected } => {
            let fields: Vec<String> = unexpected.iter().map(|f| format!("`{f}`")).collect();
            format!(
                "fields {} are not declared in the schema",
                fields.join(", ")
            )
        }
        ValidationErrorKind::Custom { message, .. } => message.clone(),
        _ => error.to_string(),
    };
    Violation {
        path: json_path(&pointer),
        message,
        undeclared_field,
    }
}

/// A JSON pointer (`/spec/containers/0/name`) as a JSON path (`$.spec.containers[0].name`).
/// Every all-digit segment is an index: Kubernetes field names never are.
fn json_path(pointer: &str) -> String {
    let mut path = String::from("$");
    for segment in pointer.split('/').skip(1) {
        let segment = segment.replace("~1", "/").replace("~0", "~");
        if !segment.is_empty() && segment.bytes().all(|b| b.is_ascii_digit()) {
            path.push_str(&format!("[{segment}]"));
        } else if segment
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        {
            path.push('.');
            path.push_str(&segment);
        } else {
            path.push_str(&format!("[{segment:?}]"));
        }
    }
    path
}

#[cfg(test)]
mod tests;
