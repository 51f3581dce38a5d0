//! Rendering: `spec.resources` items (each printed as YAML, run as a template, read back as one
//! object), `spec.resourcesTemplate` (run as a template, read back as a multi-document stream),
//! deduplication by group/kind/namespace/name, exclusion by `reconcile: disabled`, and steps.

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

use serde_json::{Map, Number, Value as Json};

use super::inputs::InputSet;
use super::Error;
use crate::budget::RunBudget;
use crate::template::funcs::{FuncEnv, FuncError, Function};
use crate::template::{ExecOptions, MissingKey, Set, Value};
use crate::yaml::{self, Node, Resolved};

/// The annotation that drops a generated object (`disabled`) at build time.
pub const RECONCILE_ANNOTATION: &str = "fluxcd.controlplane.io/reconcile";

/// What one template source renders: items of `resources` and a `resourcesTemplate`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Templates {
    pub resources: Vec<Json>,
    pub resources_template: Option<String>,
}

/// One named step and the objects it rendered.
#[derive(Clone, Debug, PartialEq)]
pub struct BuiltStep {
    pub name: String,
    pub objects: Vec<Map<String, Json>>,
}

/// The operator's `BuildResourceSet`: objects in order, `resources` first (each item for each
/// input set), then `resourcesTemplate` (all documents of each input set).
pub fn build(
    templates: &Templates,
    inputs: &[InputSet],
    run: &Arc<RunBudget>,
) -> Result<Vec<Map<String, Json>>, Error> {
    let mut objects: Vec<Map<String, Json>> = Vec::new();
    let mut seen: BTreeSet<String> = BTreeSet::new();
    let keep = |object: Map<String, Json>,
                objects: &mut Vec<Map<String, Json>>,
                seen: &mut BTreeSet<String>| {
        if is_excluded(&object) {
            return;
        }
        if seen.insert(object_key(&object)) {
            objects.push(object);
        }
    };
    if inputs.is_empty() {
        // Without inputs the items are rendered once each and kept as they are (upstream neither
        // deduplicates nor excludes them).
        let empty = InputSet::new();
        for (index, item) in templates.resources.iter().enumerate() {
            let object = render_resource(index, item, &empty, run)?;
            seen.insert(object_key(&object));
            objects.push(object);
        }
        if let Some(text) = &templates.resources_template {
            for object in render_template(text, &empty, run, objects.len())? {
                keep(object, &mut objects, &mut seen);
            }
        }
        return Ok(objects);
    }
    for (index, item) in templates.resources.iter().enumerate() {
        let text = item_text(item);
        let set = parse(&text)?;
        for input in inputs {
            let rendered = execute(&set, input, run)
                .map_err(|e| Error::Build(format!("failed to build resources[{index}]: {e}")))?;
            let object = read_object(&rendered, run)
                .map_err(|e| Error::Build(format!("failed to build resources[{index}]: {e}")))?;
            keep(object, &mut objects, &mut seen);
        }
    }
    if let Some(text) = &templates.resources_template {
        let set = parse(text)?;
        for input in inputs {
            let rendered = execute(&set, input, run).map_err(|e| {
                Error::Build(format!("failed to build resources from template: {e}"))
            })?;
            within_budget(run, objects.len(), documents(&rendered))?;
            for object in read_objects(&rendered, run)? {
                keep(object, &mut objects, &mut seen);
            }
        }
    }
    Ok(objects)
}

/// The operator's `BuildResourceSetSteps`: each step built like a step-less ResourceSet; an
/// object that two steps render is an error.
pub fn build_steps(
    steps: &[(String, Templates)],
    inputs: &[InputSet],
    run: &Arc<RunBudget>,
) -> Result<Vec<BuiltStep>, Error> {
    for (name, templates) in steps {
        if templates.resources.is_empty() && templates.resources_template.is_none() {
            return Err(Error::Spec(format!(
                "step \"{name}\": at least one of resources or resourcesTemplate must be set"
            )));
        }
    }
    let mut owners: HashMap<String, String> = HashMap::new();
    let mut out = Vec::with_capacity(steps.len());
    for (name, templates) in steps {
        let objects = build(templates, inputs, run)?;
        for object in &objects {
            let key = object_key(object);
            match owners.get(&key) {
                Some(earlier) if earlier != name => {
                    return Err(Error::Build(format!(
                        "duplicate resource {} in step \"{name}\", already defined in step \"{earlier}\"",
                        object_label(object)
                    )))
                }
                _ => {
                    owners.insert(key, name.clone());
                }
            }
        }
        out.push(BuiltStep {
            name: name.clone(),
            objects,
        });
    }
    Ok(out)
}

fn render_resource(
    index: usize,
    item: &Json,
    input: &InputSet,
    run: &Arc<RunBudget>,
) -> Result<Map<String, Json>, Error> {
    let wrap = |e: String| Error::Build(format!("failed to build resources[{index}]: {e}"));
    let set = parse(&item_text(item))?;
    let rendered = execute(&set, input, run).map_err(wrap)?;
    read_object(&rendered, run).map_err(wrap)
}

fn render_template(
    text: &str,
    input: &InputSet,
    run: &Arc<RunBudget>,
    held: usize,
) -> Result<Vec<Map<String, Json>>, Error> {
    let set = parse(text)?;
    let rendered = execute(&set, input, run)
        .map_err(|e| Error::Build(format!("failed to build resources from template: {e}")))?;
    within_budget(run, held, documents(&rendered))?;
    read_objects(&rendered, run)
}

/// At most how many documents `text` holds (a line starting `---` begins one), counted before
/// parsing: parsing is what costs the memory.
fn documents(text: &str) -> usize {
    text.matches("\n---").count() + 1
}

/// Whether `more` objects, on top of the `held` this ResourceSet built already, still fit in the
/// run's budget of objects held (`Runtime::publish` charges them once the set is built).
fn within_budget(run: &RunBudget, held: usize, more: usize) -> Result<(), Error> {
    let resource = crate::budget::Resource::RenderedObjects;
    let wanted = run
        .used(resource)
        .saturating_add(held as u64)
        .saturating_add(more as u64);
    if wanted > resource.limit(run.limits()) {
        let exceeded = crate::budget::Exceeded::new(resource, run.limits());
        return Err(Error::Build(format!(
            "failed to build resources from template: {exceeded}"
        )));
    }
    Ok(())
}

/// An item of `spec.resources` as the YAML text its template runs on (`JSONToYAML`: sorted
/// keys, go-yaml's quoting).
fn item_text(item: &Json) -> String {
    yaml::emit(&yaml::from_json(item))
}

/// `group/kind/namespace/name`: the API version is no part of an object's identity.
pub fn object_key(object: &Map<String, Json>) -> String {
    let api_version = str_at(object, &["apiVersion"]);
    let group = api_version.rsplit_once('/').map_or("", |(g, _)| g);
    format!(
        "{group}/{}/{}/{}",
        str_at(object, &["kind"]),
        str_at(object, &["metadata", "namespace"]),
        str_at(object, &["metadata", "name"])
    )
}

/// `Kind/namespace/name`, as the operator names an object in its messages.
pub(crate) fn object_label(object: &Map<String, Json>) -> String {
    format!(
        "{}/{}/{}",
        str_at(object, &["kind"]),
        str_at(object, &["metadata", "namespace"]),
        str_at(object, &["metadata", "name"])
    )
}

pub(crate) fn str_at<'a>(object: &'a Map<String, Json>, path: &[&str]) -> &'a str {
    let mut current = object;
    let Some((last, parents)) = path.split_last() else {
        return "";
    };
    for key in parents {
        match current.get(*key) {
            Some(Json::Object(inner)) => current = inner,
            _ => return "",
        }
    }
    current.get(*last).and_then(Json::as_str).unwrap_or("")
}

fn is_excluded(object: &Map<String, Json>) -> bool {
    str_at(object, &["metadata", "annotations", RECONCILE_ANNOTATION]) == "disabled"
}

/// Parses a template with the operator's delimiters and functions.
fn parse(text: &str) -> Result<Set, Error> {
    let mut set = Set::new("resourceset", functions());
    set.delims("<<", ">>");
    set.bind("inputs", Value::Map(Default::default()));
    set.add("resourceset", text)
        .map_err(|e| Error::Build(format!("failed to parse template: {e}")))?;
    Ok(set)
}

fn execute(set: &Set, input: &InputSet, run: &Arc<RunBudget>) -> Result<String, String> {
    let mut set = set.clone();
    set.bind("inputs", json_to_value(&Json::Object(input.clone())));
    let options = ExecOptions {
        missing_key: MissingKey::Error,
        max_steps: run.limits().template_steps,
        run: Some(run.clone()),
        ..Default::default()
    };
    let mut env = FuncEnv {
        rng_state: 0,
        now_unix: 0,
        lookups: 0,
        run: None,
    };
    let text = set
        .execute("resourceset", &Value::Nil, &options, &mut env)
        .map_err(|e| format!("failed to execute template: {e}"))?;
    // The run's budget of rendered bytes: each execution is capped on its own, many add up.
    run.charge(crate::budget::Resource::RenderedBytes, text.len() as u64)
        .map_err(|e| e.to_string())?;
    Ok(text)
}

/// Functions the operator leaves out of Sprig: clocks, randomness, the environment and DNS, and
/// the Masterminds-only helpers slim-sprig does not have.
const EXCLUDED: &[&str] = &[
    "date",
    "date_in_zone",
    "date_modify",
    "now",
    "htmlDate",
    "htmlDateInZone",
    "dateInZone",
    "dateModify",
    "mustDateModify",
    "randAlphaNum",
    "randAlpha",
    "randAscii",
    "randNumeric",
    "randBytes",
    "randInt",
    "uuidv4",
    "env",
    "expandenv",
    "getHostByName",
    "genPrivateKey",
    "derivePassword",
    "buildCustomCert",
    "genCA",
    "genCAWithKey",
    "genSelfSignedCert",
    "genSelfSignedCertWithKey",
    "genSignedCert",
    "genSignedCertWithKey",
    "encryptAES",
    "decryptAES",
    "bcrypt",
    "htpasswd",
    "semver",
    "semverCompare",
];

fn functions() -> HashMap<String, Function> {
    let mut map: HashMap<String, Function> = crate::template::funcs::sprig_functions()
        .into_iter()
        .filter(|(name, _)| !EXCLUDED.contains(name))
        .map(|(name, f)| (name.to_owned(), f))
        .collect();
    map.insert("slugify".into(), slugify_fn);
    map.insert("toYaml".into(), to_yaml_fn);
    map.insert("mustToYaml".into(), must_to_yaml_fn);
    map
}

fn slugify_fn(_: &mut FuncEnv, args: &[Value]) -> Result<Value, FuncError> {
    let [text] = args else {
        return Err(FuncError(format!(
            "wrong number of args for slugify: want 1 got {}",
            args.len()
        )));
    };
    let text = match text {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    Ok(Value::String(super::slug::make(&text)))
}

fn to_yaml_fn(_: &mut FuncEnv, args: &[Value]) -> Result<Value, FuncError> {
    let [value] = args else {
        return Err(FuncError(format!(
            "wrong number of args for toYaml: want 1 got {}",
            args.len()
        )));
    };
    Ok(Value::String(to_yaml(value).unwrap_or_default()))
}

fn must_to_yaml_fn(_: &mut FuncEnv, args: &[Value]) -> Result<Value, FuncError> {
    let [value] = args else {
        return Err(FuncError(format!(
            "wrong number of args for mustToYaml: want 1 got {}",
            args.len()
        )));
    };
    to_yaml(value)
        .map(Value::String)
        .map_err(|e| FuncError(e.to_string()))
}

/// sigs.k8s.io/yaml `Marshal`: through JSON, keys sorted, the trailing newline kept.
fn to_yaml(value: &Value) -> Result<String, JsonError> {
    let json = value_to_json(value)?;
    Ok(yaml::emit(&yaml::from_json(&json)))
}

/// A template value JSON cannot hold, in encoding/json's words.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub(crate) enum JsonError {
    #[error("json: unsupported value: {0}")]
    UnsupportedFloat(f64),
    #[error("json: unsupported type: complex128")]
    Complex,
}

pub(crate) fn value_to_json(value: &Value) -> Result<Json, JsonError> {
    Ok(match value {
        Value::Nil => Json::Null,
        Value::Bool(b) => Json::Bool(*b),
        Value::Int(i) => Json::Number(Number::from(*i)),
        Value::Float(f) => Number::from_f64(*f)
            .map(Json::Number)
            .ok_or(JsonError::UnsupportedFloat(*f))?,
        Value::String(s) => Json::String(s.clone()),
        Value::List(items) => Json::Array(
            items
                .iter()
                .map(value_to_json)
                .collect::<Result<Vec<_>, _>>()?,
        ),
        Value::Map(map) => Json::Object(
            map.iter()
                .map(|(k, v)| Ok((k.clone(), value_to_json(v)?)))
                .collect::<Result<Map<_, _>, JsonError>>()?,
        ),
        Value::Complex(..) => return Err(JsonError::Complex),
    })
}

/// Data as the Kubernetes JSON decoder gives it to a template: integral numbers are `int64`,
/// others `float64`.
pub(crate) fn json_to_value(json: &Json) -> Value {
    match json {
        Json::Null => Value::Nil,
        Json::Bool(b) => Value::Bool(*b),
        Json::Number(n) => match n.as_i64() {
            Some(i) => Value::Int(i),
            None => Value::Float(n.as_f64().unwrap_or_default()),
        },
        Json::String(s) => Value::String(s.clone()),
        Json::Array(items) => Value::List(items.iter().map(json_to_value).collect()),
        Json::Object(map) => Value::map(
            map.iter()
                .map(|(k, v)| (k.clone(), json_to_value(v)))
                .collect(),
        ),
    }
}

/// The JSON sigs.k8s.io/yaml makes of a YAML node (go-yaml v2 typing), as the Kubernetes decoder
/// then reads it: integral numbers become integers.
pub fn yaml_to_json(node: &Node) -> Json {
    match node {
        Node::Scalar(s) => match yaml::resolve_helm(s) {
            Resolved::Null => Json::Null,
            Resolved::Bool(b) => Json::Bool(b),
            Resolved::Int(i) => Json::Number(Number::from(i)),
            Resolved::Uint(u) => Json::Number(Number::from(u)),
            Resolved::Float(f) if f.fract() == 0.0 && f.abs() < 1e15 => {
                Json::Number(Number::from(f as i64))
            }
            Resolved::Float(f) => Number::from_f64(f).map_or(Json::Null, Json::Number),
            Resolved::Str => Json::String(s.value.to_string()),
        },
        Node::Sequence(seq) => Json::Array(seq.items.iter().map(yaml_to_json).collect()),
        Node::Mapping(m) => Json::Object(
            m.iter()
                .map(|(k, v)| (k.to_owned(), yaml_to_json(v)))
                .collect(),
        ),
    }
}

/// The documents of rendered `text`; the aliases they expand are charged to `run`'s budget, as
/// every other YAML a run reads.
fn parse_documents(text: &str, run: &Arc<RunBudget>) -> Result<Vec<Json>, String> {
    let options = yaml::ParseOptions {
        run: Some(run.clone()),
        ..yaml::ParseOptions::default()
    };
    let documents = yaml::parse_stream(text, &options).map_err(|e| {
        format!(
            "error converting YAML to JSON: yaml: line {}: {}",
            e.pos.line, e.message
        )
    })?;
    Ok(documents.iter().map(|d| yaml_to_json(&d.root)).collect())
}

/// `ReadObject`: the first document, which must be an object.
fn read_object(text: &str, run: &Arc<RunBudget>) -> Result<Map<String, Json>, String> {
    let documents =
        parse_documents(text, run).map_err(|e| format!("failed to read object: {e}"))?;
    match documents.into_iter().find(|d| !d.is_null()) {
        Some(Json::Object(object)) => Ok(object),
        Some(_) => Err("failed to read object: the document is not a mapping".into()),
        None => Err("failed to read object: empty document".into()),
    }
}

/// `ReadObjects`: documents without apiVersion, kind or name are dropped, and so are kustomize
/// Kustomizations; `*List` kinds are expanded into their items.
fn read_objects(text: &str, run: &Arc<RunBudget>) -> Result<Vec<Map<String, Json>>, Error> {
    let documents = parse_documents(text, run)
        .map_err(|e| Error::Build(format!("failed to read objects: {e}")))?;
    let mut out = Vec::new();
    for document in documents {
        let Json::Object(object) = document else {
            continue;
        };
        let kind = str_at(&object, &["kind"]);
        if kind.ends_with("List") {
            if let Some(Json::Array(items)) = object.get("items") {
                for item in items {
                    if let Json::Object(item) = item {
                        if is_complete(item) {
                            out.push(item.clone());
                        }
                    }
                }
            }
            continue;
        }
        let kustomize = kind == "Kustomization"
            && str_at(&object, &["apiVersion"]).starts_with("kustomize.config.k8s.io/");
        if kustomize || !is_complete(&object) {
            continue;
        }
        out.push(object);
    }
    Ok(out)
}

fn is_complete(object: &Map<String, Json>) -> bool {
    !str_at(object, &["apiVersion"]).is_empty()
        && !str_at(object, &["kind"]).is_empty()
        && !str_at(object, &["metadata", "name"]).is_empty()
}

/// An object as sigs.k8s.io/yaml prints it (keys sorted, trailing newline).
pub fn to_yaml_text(object: &Map<String, Json>) -> String {
    yaml::emit(&yaml::from_json(&Json::Object(object.clone())))
}
