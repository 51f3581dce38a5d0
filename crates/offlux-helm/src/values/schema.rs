//! `values.schema.json` validation (Helm's `ValidateAgainstSchema`): each chart's schema checks
//! the values at its level, subcharts the table under their name. Drafts 4, 6, 7, 2019-09 and
//! 2020-12 are chosen by `$schema` (2020-12 when absent). No `$ref` is ever fetched: remote and
//! file references fail to resolve (Helm would fetch them).
//!
//! Reports are those of Helm's validator (santhosh-tekuri/jsonschema v6.0.2): per chart a
//! `NAME:` line, then `- at 'JSON-POINTER': MESSAGE` lines as a tree: a value failing more than
//! once is a "validation failed" group, `allOf`/`anyOf`/`oneOf` list their branches below, a
//! failed `contains` the items it rejected. The `jsonschema` crate reports flat errors; they are
//! regrouped by their evaluation paths. Known differences: Helm orders the failures of
//! different properties by Go's map iteration (at random), ours follow the crate and Helm's
//! keyword order; `format` failures lack the checker's reason (`: missing @`); a schema that
//! cannot be compiled for another reason than the metaschema words it differently.

use std::panic::{catch_unwind, AssertUnwindSafe};

use jsonschema::error::{TypeKind, ValidationErrorKind};
use jsonschema::{Draft, Retrieve, Uri, ValidationError};
use serde_json::Value as Json;

use super::Map;
use crate::chart_cache::{Compiled, CompiledSchema};
use crate::{Chart, Error};
use offlux_template::{sprint, sprintf, Value};

pub(super) fn validate(chart: &Chart, values: &Value) -> Result<(), Error> {
    let empty = Map::new();
    let values = match values {
        Value::Map(map) => map,
        _ => &empty,
    };
    let mut report = String::new();
    validate_chart(chart, values, &mut report);
    if report.is_empty() {
        Ok(())
    } else {
        Err(Error::Schema(report))
    }
}

/// Appends this chart's violations, then its subcharts', to `report`.
fn validate_chart(chart: &Chart, values: &Map, report: &mut String) {
    if let Some(schema) = &chart.schema {
        if let Err(message) = validate_against(&chart.compiled_schema, values, schema) {
            report.push_str(chart.name());
            report.push_str(":\n");
            report.push_str(&message);
        }
    }
    for subchart in &chart.dependencies {
        match values.get(subchart.name()) {
            None | Some(Value::Nil) => {}
            Some(Value::Map(sub_values)) => validate_chart(subchart, sub_values, report),
            Some(other) => {
                report.push_str(&format!(
                    "{}:\ninvalid type for values: expected object (map), got {}\n",
                    subchart.name(),
                    sprintf("%T", std::slice::from_ref(other))
                ));
            }
        }
    }
}

/// `ValidateAgainstSingleSchema`: the message (ending in a newline for violations) when `values`
/// do not pass `schema`, compiled once per chart through its cache.
fn validate_against(cache: &CompiledSchema, values: &Map, schema: &[u8]) -> Result<(), String> {
    let compiled = cache.get_or_compile(schema, compile)?;
    let instance = map_to_json(values);
    // The validator is a third-party crate: should it panic on a strange schema, report that
    // as Helm reports a recovered panic instead of stopping the run.
    catch_unwind(AssertUnwindSafe(|| check(&compiled, &instance)))
        .unwrap_or_else(|_| Err("unable to validate schema: the validator panicked".into()))
}

fn compile(schema: &[u8]) -> Result<Compiled, String> {
    let schema: Json = serde_json::from_slice(schema).map_err(|e| e.to_string())?;
    let draft = draft_of(&schema);
    let built = catch_unwind(AssertUnwindSafe(|| {
        jsonschema::options()
            .with_draft(draft)
            .with_retriever(NoFetch)
            .build(&schema)
            .map_err(|e| compile_error(&e, draft, &schema))
    }))
    .unwrap_or_else(|_| Err("unable to validate schema: the validator panicked".into()));
    Ok(Compiled {
        validator: built?,
        schema,
        draft,
    })
}

fn check(compiled: &Compiled, instance: &Json) -> Result<(), String> {
    let errors: Vec<ValidationError> = compiled.validator.iter_errors(instance).collect();
    if errors.is_empty() {
        return Ok(());
    }
    let context = Context {
        root: &compiled.schema,
        draft: compiled.draft,
    };
    let flat = errors.iter().map(|e| Flat::new(e, &[])).collect();
    Err(report(context.level(flat, 0)))
}

/// The report's lines. When everything comes down to one value's group of failures, Helm's
/// validator lists the group's members at the top level.
fn report(mut nodes: Vec<Node>) -> String {
    while nodes.len() == 1 && nodes.first().is_some_and(|n| n.group) {
        nodes = nodes.pop().map(|n| n.children).unwrap_or_default();
    }
    let mut out = String::new();
    for node in &nodes {
        node.write(0, &mut out);
    }
    out
}

/// The draft `$schema` names; 2020-12 (Helm's validator's default) otherwise.
fn draft_of(schema: &Json) -> Draft {
    let uri = schema
        .get("$schema")
        .and_then(Json::as_str)
        .unwrap_or_default();
    let uri = uri.trim_end_matches('#');
    let uri = uri
        .strip_prefix("https://")
        .or_else(|| uri.strip_prefix("http://"))
        .unwrap_or(uri);
    match uri {
        "json-schema.org/draft-04/schema" => Draft::Draft4,
        "json-schema.org/draft-06/schema" => Draft::Draft6,
        "json-schema.org/draft-07/schema" => Draft::Draft7,
        "json-schema.org/draft/2019-09/schema" => Draft::Draft201909,
        _ => Draft::Draft202012,
    }
}

fn metaschema_url(draft: Draft) -> &'static str {
    match draft {
        Draft::Draft4 => "http://json-schema.org/draft-04/schema",
        Draft::Draft6 => "http://json-schema.org/draft-06/schema",
        Draft::Draft7 => "http://json-schema.org/draft-07/schema",
        Draft::Draft201909 => "https://json-schema.org/draft/2019-09/schema",
        _ => "https://json-schema.org/draft/2020-12/schema",
    }
}

/// A schema the metaschema rejects, worded as Helm's compiler words it (without the final
/// newline, as Helm prints it).
fn compile_error(error: &ValidationError, draft: Draft, schema: &Json) -> String {
    if let ValidationErrorKind::Referencing(e) = error.kind() {
        return format!("jsonschema: {e}");
    }
    let meta = match draft {
        Draft::Draft4 => jsonschema::draft4::meta::validator(),
        Draft::Draft6 => jsonschema::draft6::meta::validator(),
        Draft::Draft7 => jsonschema::draft7::meta::validator(),
        Draft::Draft201909 => jsonschema::draft201909::meta::validator(),
        _ => jsonschema::draft202012::meta::validator(),
    };
    let errors: Vec<ValidationError> = meta.iter_errors(schema).collect();
    let lines = if errors.is_empty() {
        format!(
            "- at '{}': {}\n",
            error.instance_path().as_str(),
            message(error)
        )
    } else {
        let context = Context {
            root: &Json::Null,
            draft,
        };
        let flat = errors.iter().map(|e| Flat::new(e, &[])).collect();
        report(context.level(flat, 0))
    };
    format!(
        "\"file:///values.schema.json#\" is not valid against metaschema: jsonschema validation \
         failed with '{}#'\n{}",
        metaschema_url(draft),
        lines.trim_end_matches('\n')
    )
}

/// Refuses every external reference: a render never reads the network or the file system for
/// a schema.
struct NoFetch;

impl Retrieve for NoFetch {
    fn retrieve(
        &self,
        uri: &Uri<String>,
    ) -> Result<Json, Box<dyn std::error::Error + Send + Sync>> {
        Err(format!(
            "not fetching {}: remote schema references are not supported offline",
            uri.as_str()
        )
        .into())
    }
}

/// One line of the report and the lines indented below it (Helm's validator prints its errors
/// as a tree).
struct Node {
    at: String,
    text: String,
    children: Vec<Node>,
    /// Where the keyword that produced it comes in Helm's validator's evaluation order.
    rank: u8,
    /// A "validation failed" group of one value's failures (not a `$ref`'s): when it is all
    /// there is to report, its members are reported instead.
    group: bool,
}

impl Node {
    fn write(&self, depth: usize, out: &mut String) {
        out.push_str(&format!(
            "{}- at '{}': {}\n",
            "  ".repeat(depth),
            self.at,
            self.text
        ));
        for child in &self.children {
            child.write(depth + 1, out);
        }
    }

    /// A subschema's result as Helm's validator reports it: one error as itself, several as a
    /// "validation failed" group at the subschema's instance.
    fn one_or_group(mut nodes: Vec<Node>, at: String, rank: u8, group: bool) -> Node {
        if nodes.len() == 1 {
            if let Some(mut node) = nodes.pop() {
                node.rank = rank;
                return node;
            }
        }
        Node {
            at,
            text: "validation failed".into(),
            children: nodes,
            rank,
            group,
        }
    }
}

/// An error with its keyword path (evaluation path, `$ref`s included) and instance path split
/// into segments.
struct Flat<'a> {
    error: &'a ValidationError<'a>,
    keywords: Vec<String>,
    instance: Vec<String>,
}

impl<'a> Flat<'a> {
    /// `prefix` is dropped from the keyword path (the path of the `anyOf` branch an error
    /// comes from, say).
    fn new(error: &'a ValidationError<'a>, prefix: &[String]) -> Self {
        let mut keywords = pointer_segments(error.evaluation_path().as_str());
        if keywords.starts_with(prefix) {
            keywords.drain(..prefix.len());
        }
        Flat {
            error,
            keywords,
            instance: pointer_segments(error.instance_path().as_str()),
        }
    }
}

struct Context<'a> {
    root: &'a Json,
    draft: Draft,
}

/// How an applicator keyword's subschema errors appear in Helm's validator's report.
#[derive(Clone, Copy, PartialEq)]
enum Shape {
    /// One node per evaluated value (a property's, an item's), a group when the subschema
    /// failed more than once.
    Group,
    /// The subschema's errors listed as if they were the parent's.
    Splice,
    /// `allOf`: one "'allOf' failed" node over its branches.
    AllOf,
}

impl Context<'_> {
    /// The nodes for errors of one schema evaluation; `depth` keyword segments are consumed.
    fn level(&self, errors: Vec<Flat>, depth: usize) -> Vec<Node> {
        // Groups of errors from one subschema evaluation, in order of first appearance.
        struct Group<'e> {
            key: (String, String, String),
            shape: Shape,
            consumed: usize,
            at: String,
            errors: Vec<Flat<'e>>,
        }
        let mut nodes: Vec<Node> = Vec::new();
        let mut groups: Vec<Group> = Vec::new();
        for flat in errors {
            let rest = flat.keywords.get(depth..).unwrap_or_default().to_vec();
            let (keyword, argument) = match rest.as_slice() {
                [keyword, argument, _, ..] => (keyword.as_str(), Some(argument.as_str())),
                [keyword, _] => (keyword.as_str(), None),
                _ => {
                    self.leaf(flat, rest.first().map_or("", String::as_str), &mut nodes);
                    continue;
                }
            };
            let numeric = argument.is_some_and(|a| a.parse::<usize>().is_ok());
            // What the keyword applies its subschema to: the same value, or a child of it.
            let (shape, consumed, child) = match keyword {
                "properties" => (Shape::Group, 2, true),
                "patternProperties" => (Shape::Group, 2, true),
                "additionalProperties" | "unevaluatedProperties" => (Shape::Group, 1, true),
                "dependentSchemas" | "dependencies" => (Shape::Group, 2, false),
                "$ref" | "$dynamicRef" | "$recursiveRef" => (Shape::Group, 1, false),
                "items" if numeric => (Shape::Group, 2, true),
                "prefixItems" => (Shape::Group, 2, true),
                "items" | "additionalItems" | "unevaluatedItems" | "contains" => {
                    (Shape::Group, 1, true)
                }
                "if" | "then" | "else" => (Shape::Splice, 1, false),
                "allOf" => (Shape::AllOf, 1, false),
                _ => {
                    self.leaf(flat, keyword, &mut nodes);
                    continue;
                }
            };
            let base = flat.instance.len().min(self.base_len(&flat, depth));
            let instance_len = if child { base + 1 } else { base };
            let at = pointer(flat.instance.get(..instance_len).unwrap_or(&flat.instance));
            let argument = if consumed == 2 {
                argument.unwrap_or_default()
            } else {
                ""
            };
            let key = (keyword.to_string(), argument.to_string(), at.clone());
            match groups.iter_mut().find(|g| g.key == key) {
                Some(group) => group.errors.push(flat),
                None => groups.push(Group {
                    key,
                    shape,
                    consumed,
                    at,
                    errors: vec![flat],
                }),
            }
        }
        for group in groups {
            let rank = keyword_rank(&group.key.0);
            match group.shape {
                Shape::Group => {
                    let children = self.level(group.errors, depth + group.consumed);
                    let is_ref = group.key.0.starts_with('$');
                    if !children.is_empty() {
                        nodes.push(Node::one_or_group(children, group.at, rank, !is_ref));
                    }
                }
                Shape::Splice => {
                    for mut child in self.level(group.errors, depth + group.consumed) {
                        child.rank = rank;
                        nodes.push(child);
                    }
                }
                Shape::AllOf => {
                    // One branch after the other, each a group of its own.
                    let mut branches: Vec<(String, Vec<Flat>)> = Vec::new();
                    for flat in group.errors {
                        let index = flat.keywords.get(depth + 1).cloned().unwrap_or_default();
                        match branches.iter_mut().find(|(i, _)| *i == index) {
                            Some((_, errors)) => errors.push(flat),
                            None => branches.push((index, vec![flat])),
                        }
                    }
                    let children = branches
                        .into_iter()
                        .map(|(_, errors)| {
                            Node::one_or_group(
                                self.level(errors, depth + 2),
                                group.at.clone(),
                                0,
                                true,
                            )
                        })
                        .collect();
                    nodes.push(Node {
                        at: group.at,
                        text: "'allOf' failed".into(),
                        children,
                        rank,
                        group: false,
                    });
                }
            }
        }
        nodes.sort_by_key(|node| node.rank);
        merge_required(nodes)
    }

    /// How many instance segments belong to the value evaluated at keyword depth `depth`: the
    /// instance segments minus those the remaining keywords descend into.
    fn base_len(&self, flat: &Flat, depth: usize) -> usize {
        let rest = flat.keywords.get(depth..).unwrap_or_default();
        // The last segment is the failing keyword itself, which descends nowhere.
        let rest = rest.split_last().map_or(rest, |(_, init)| init);
        let mut descend = 0;
        let mut i = 0;
        while let Some(keyword) = rest.get(i) {
            let next_numeric = rest.get(i + 1).is_some_and(|a| a.parse::<usize>().is_ok());
            match keyword.as_str() {
                "properties" | "patternProperties" | "prefixItems" => {
                    descend += 1;
                    i += 2;
                }
                "items" if next_numeric => {
                    descend += 1;
                    i += 2;
                }
                "additionalProperties"
                | "unevaluatedProperties"
                | "items"
                | "additionalItems"
                | "unevaluatedItems"
                | "contains" => {
                    descend += 1;
                    i += 1;
                }
                "dependentSchemas" | "dependencies" | "allOf" | "anyOf" | "oneOf" | "$defs"
                | "definitions" => i += 2,
                _ => i += 1,
            }
        }
        flat.instance.len().saturating_sub(descend)
    }

    /// A keyword's own error, with what Helm's validator nests below it.
    fn leaf(&self, flat: Flat, keyword: &str, nodes: &mut Vec<Node>) {
        let error = flat.error;
        let at = error.instance_path().as_str().to_string();
        let mut children = Vec::new();
        match error.kind() {
            ValidationErrorKind::AnyOf { context }
            | ValidationErrorKind::OneOfNotValid { context } => {
                let prefix = pointer_segments(error.evaluation_path().as_str());
                for (index, branch) in context.iter().enumerate() {
                    let mut prefix = prefix.clone();
                    prefix.push(index.to_string());
                    let flat = branch.iter().map(|e| Flat::new(e, &prefix)).collect();
                    let branch_nodes = self.level(flat, 0);
                    if !branch_nodes.is_empty() {
                        children.push(Node::one_or_group(branch_nodes, at.clone(), 0, true));
                    }
                }
            }
            ValidationErrorKind::PropertyNames { error: inner } => children.push(Node {
                at: at.clone(),
                text: message(inner),
                children: Vec::new(),
                rank: 0,
                group: false,
            }),
            ValidationErrorKind::Contains => children = self.contains_causes(error, &at),
            _ => {}
        }
        let text = match (error.kind(), keyword) {
            // Draft 7's `dependencies` and 2019-09's `dependentRequired` name the property
            // whose presence required the missing one.
            (ValidationErrorKind::Required { property }, "dependentRequired" | "dependencies") => {
                let property = property.as_str().unwrap_or_default();
                let trigger = self
                    .root
                    .pointer(error.schema_path().as_str())
                    .and_then(Json::as_object)
                    .and_then(|rules| {
                        rules.iter().find_map(|(trigger, required)| {
                            let present = error.instance().get(trigger).is_some();
                            let requires = required
                                .as_array()
                                .is_some_and(|r| r.iter().any(|p| p.as_str() == Some(property)));
                            (present && requires).then_some(trigger.as_str())
                        })
                    })
                    .unwrap_or_default();
                format!(
                    "properties {} required, if {} exists",
                    quote(property),
                    quote(trigger)
                )
            }
            _ => message(error),
        };
        nodes.push(Node {
            at,
            text,
            children,
            rank: keyword_rank(keyword),
            group: false,
        });
    }

    /// Why each item failed `contains`: Helm's validator lists them, the crate does not, so
    /// the items are checked against the `contains` subschema again. Nothing when that
    /// subschema cannot be compiled on its own (a `$ref` into the root, say).
    fn contains_causes(&self, error: &ValidationError, at: &str) -> Vec<Node> {
        let Some(subschema) = self.root.pointer(error.schema_path().as_str()) else {
            return Vec::new();
        };
        let Ok(validator) = jsonschema::options()
            .with_draft(self.draft)
            .with_retriever(NoFetch)
            .build(subschema)
        else {
            return Vec::new();
        };
        let Some(items) = error.instance().as_array() else {
            return Vec::new();
        };
        let sub = Context {
            root: subschema,
            draft: self.draft,
        };
        let mut nodes = Vec::new();
        for (index, item) in items.iter().enumerate() {
            let errors: Vec<ValidationError> = validator.iter_errors(item).collect();
            let flat = errors.iter().map(|e| Flat::new(e, &[])).collect();
            let item_at = format!("{at}/{index}");
            let mut item_nodes = sub.level(flat, 0);
            for node in &mut item_nodes {
                node.prefix(&item_at);
            }
            if !item_nodes.is_empty() {
                nodes.push(Node::one_or_group(item_nodes, item_at, 0, true));
            }
        }
        nodes
    }
}

impl Node {
    fn prefix(&mut self, at: &str) {
        self.at = format!("{at}{}", self.at);
        for child in &mut self.children {
            child.prefix(at);
        }
    }
}

/// Helm's validator reports all missing properties of an object in one line.
fn merge_required(nodes: Vec<Node>) -> Vec<Node> {
    let mut out: Vec<Node> = Vec::new();
    for node in nodes {
        if let Some(name) = node.text.strip_prefix("missing property ") {
            if let Some(previous) = out.iter_mut().find(|n| {
                n.at == node.at
                    && (n.text.starts_with("missing property ")
                        || n.text.starts_with("missing properties "))
            }) {
                let names = previous
                    .text
                    .trim_start_matches("missing properties ")
                    .trim_start_matches("missing property ")
                    .to_string();
                previous.text = format!("missing properties {names}, {name}");
                continue;
            }
        }
        out.push(node);
    }
    out
}

/// Where a keyword's errors come in Helm's validator's report (its evaluation order).
fn keyword_rank(keyword: &str) -> u8 {
    const ORDER: &[&str] = &[
        "type",
        "enum",
        "const",
        "format",
        "minProperties",
        "maxProperties",
        "required",
        "dependentRequired",
        "dependencies",
        "properties",
        "patternProperties",
        "additionalProperties",
        "propertyNames",
        "dependentSchemas",
        "minItems",
        "maxItems",
        "uniqueItems",
        "prefixItems",
        "items",
        "additionalItems",
        "contains",
        "minContains",
        "maxContains",
        "minLength",
        "maxLength",
        "pattern",
        "contentEncoding",
        "contentMediaType",
        "contentSchema",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
        "$ref",
        "$dynamicRef",
        "$recursiveRef",
        "not",
        "allOf",
        "anyOf",
        "oneOf",
        "if",
        "then",
        "else",
        "unevaluatedProperties",
        "unevaluatedItems",
    ];
    let position = ORDER
        .iter()
        .position(|k| *k == keyword)
        .unwrap_or(ORDER.len());
    u8::try_from(position).unwrap_or(u8::MAX)
}

/// A JSON pointer's segments, unescaped (`~1` is `/`, `~0` is `~`).
fn pointer_segments(pointer: &str) -> Vec<String> {
    if pointer.is_empty() {
        return Vec::new();
    }
    pointer
        .split('/')
        .skip(1)
        .map(|s| s.replace("~1", "/").replace("~0", "~"))
        .collect()
}

/// Segments joined back into a JSON pointer.
fn pointer(segments: &[String]) -> String {
    segments
        .iter()
        .map(|s| format!("/{}", s.replace('~', "~0").replace('/', "~1")))
        .collect()
}

/// One violation in the words of santhosh-tekuri/jsonschema v6.
fn message(error: &ValidationError) -> String {
    let instance: &Json = error.instance();
    match error.kind() {
        ValidationErrorKind::AdditionalItems { limit } => {
            let count = instance.as_array().map_or(0, Vec::len);
            format!(
                "last {} additionalItem(s) not allowed",
                count.saturating_sub(*limit)
            )
        }
        ValidationErrorKind::AdditionalProperties { unexpected }
        | ValidationErrorKind::UnevaluatedProperties { unexpected } => {
            format!(
                "additional properties {} not allowed",
                join_quoted(unexpected)
            )
        }
        ValidationErrorKind::UnevaluatedItems { unexpected } => {
            format!("unevaluated items {} not allowed", unexpected.join(", "))
        }
        ValidationErrorKind::AnyOf { .. } => "'anyOf' failed".into(),
        ValidationErrorKind::OneOfNotValid { .. } => "'oneOf' failed, none matched".into(),
        ValidationErrorKind::OneOfMultipleValid { context } => {
            let matched: Vec<usize> = context
                .iter()
                .enumerate()
                .filter(|(_, errors)| errors.is_empty())
                .map(|(i, _)| i)
                .take(2)
                .collect();
            match matched.as_slice() {
                [a, b] => format!("'oneOf' failed, subschemas {a}, {b} matched"),
                _ => "'oneOf' failed".into(),
            }
        }
        ValidationErrorKind::Constant { expected_value } => match expected_value.as_ref() {
            Json::Array(_) | Json::Object(_) => "const failed".into(),
            want => format!("value must be {}", display(want)),
        },
        ValidationErrorKind::Enum { options } => {
            let options = options.as_array().cloned().unwrap_or_default();
            if options
                .iter()
                .any(|o| matches!(o, Json::Array(_) | Json::Object(_)))
            {
                "enum failed".into()
            } else if let [one] = options.as_slice() {
                format!("value must be {}", display(one))
            } else {
                let shown: Vec<String> = options.iter().map(display).collect();
                format!("value must be one of {}", shown.join(", "))
            }
        }
        ValidationErrorKind::Contains => "no items match contains schema".into(),
        ValidationErrorKind::ContentEncoding { content_encoding } => {
            format!("value is not {} encoded", quote(content_encoding))
        }
        ValidationErrorKind::FromUtf8 { .. } => "value is not 'base64' encoded".into(),
        ValidationErrorKind::ContentMediaType { content_media_type } => {
            format!("value if not of mediatype {}", quote(content_media_type))
        }
        ValidationErrorKind::Custom { message, .. } => message.clone(),
        ValidationErrorKind::FalseSchema => "false schema".into(),
        ValidationErrorKind::Format { format } => {
            format!("{} is not valid {format}", display(instance))
        }
        ValidationErrorKind::Maximum { limit } => limit_message("maximum", instance, limit),
        ValidationErrorKind::Minimum { limit } => limit_message("minimum", instance, limit),
        ValidationErrorKind::ExclusiveMaximum { limit } => {
            limit_message("exclusiveMaximum", instance, limit)
        }
        ValidationErrorKind::ExclusiveMinimum { limit } => {
            limit_message("exclusiveMinimum", instance, limit)
        }
        ValidationErrorKind::MultipleOf { multiple_of } => format!(
            "multipleOf: got {}, want {}",
            go_number(instance),
            go_float(*multiple_of)
        ),
        ValidationErrorKind::MaxItems { limit } => {
            count_message("maxItems", instance.as_array().map_or(0, Vec::len), *limit)
        }
        ValidationErrorKind::MinItems { limit } => {
            count_message("minItems", instance.as_array().map_or(0, Vec::len), *limit)
        }
        ValidationErrorKind::MaxLength { limit } => {
            count_message("maxLength", char_count(instance), *limit)
        }
        ValidationErrorKind::MinLength { limit } => {
            count_message("minLength", char_count(instance), *limit)
        }
        ValidationErrorKind::MaxProperties { limit } => count_message(
            "maxProperties",
            instance.as_object().map_or(0, serde_json::Map::len),
            *limit,
        ),
        ValidationErrorKind::MinProperties { limit } => count_message(
            "minProperties",
            instance.as_object().map_or(0, serde_json::Map::len),
            *limit,
        ),
        ValidationErrorKind::Not { .. } => "'not' failed".into(),
        ValidationErrorKind::Pattern { pattern } => format!(
            "{} does not match pattern {}",
            quote(instance.as_str().unwrap_or_default()),
            quote(pattern)
        ),
        ValidationErrorKind::PropertyNames { error } => {
            let name = error.instance();
            format!(
                "invalid propertyName {}",
                quote(name.as_str().unwrap_or_default())
            )
        }
        ValidationErrorKind::Required { property } => format!(
            "missing property {}",
            quote(
                &property
                    .as_str()
                    .map_or_else(|| property.to_string(), str::to_string)
            )
        ),
        ValidationErrorKind::Type { kind } => {
            let want = match kind {
                TypeKind::Single(one) => vec![one.as_str()],
                TypeKind::Multiple(set) => {
                    let named: Vec<&str> = set.iter().map(|t| t.as_str()).collect();
                    // Helm's validator lists types in this order.
                    [
                        "null", "boolean", "number", "integer", "string", "array", "object",
                    ]
                    .into_iter()
                    .filter(|t| named.contains(t))
                    .collect()
                }
            };
            format!("got {}, want {}", json_type(instance), want.join(" or "))
        }
        ValidationErrorKind::UniqueItems => {
            let items = instance.as_array().cloned().unwrap_or_default();
            let pair = items.iter().enumerate().find_map(|(i, a)| {
                items
                    .iter()
                    .enumerate()
                    .skip(i + 1)
                    .find(|(_, b)| json_equal(a, b))
                    .map(|(j, _)| (i, j))
            });
            match pair {
                Some((i, j)) => format!("items at {i} and {j} are equal"),
                None => "items are not unique".into(),
            }
        }
        ValidationErrorKind::Referencing(e) => e.to_string(),
        ValidationErrorKind::BacktrackLimitExceeded { error } => error.to_string(),
        ValidationErrorKind::RegexEngineFailure { message } => message.clone(),
    }
}

fn limit_message(keyword: &str, instance: &Json, limit: &Json) -> String {
    format!(
        "{keyword}: got {}, want {}",
        go_number(instance),
        go_number(limit)
    )
}

fn count_message(keyword: &str, got: usize, want: u64) -> String {
    format!("{keyword}: got {got}, want {want}")
}

fn char_count(instance: &Json) -> usize {
    instance.as_str().map_or(0, |s| s.chars().count())
}

/// A JSON number as Go's `%v` prints it after conversion to float64.
fn go_number(value: &Json) -> String {
    value.as_f64().map_or_else(|| value.to_string(), go_float)
}

fn go_float(f: f64) -> String {
    sprint(&[Value::Float(f)])
}

/// The JSON type name Helm's validator reports for an instance.
fn json_type(value: &Json) -> &'static str {
    match value {
        Json::Null => "null",
        Json::Bool(_) => "boolean",
        Json::Number(_) => "number",
        Json::String(_) => "string",
        Json::Array(_) => "array",
        Json::Object(_) => "object",
    }
}

/// JSON Schema equality: numbers compare by value (`1` equals `1.0`).
fn json_equal(a: &Json, b: &Json) -> bool {
    match (a, b) {
        (Json::Number(x), Json::Number(y)) => x.as_f64() == y.as_f64(),
        (Json::Array(x), Json::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| json_equal(a, b))
        }
        (Json::Object(x), Json::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| json_equal(v, w)))
        }
        _ => a == b,
    }
}

/// santhosh-tekuri's `display`: strings quoted, other primitives as Go's `%v`.
fn display(value: &Json) -> String {
    match value {
        Json::String(s) => quote(s),
        Json::Array(_) | Json::Object(_) => "value".into(),
        Json::Number(_) => go_number(value),
        Json::Null => "<nil>".into(),
        Json::Bool(b) => b.to_string(),
    }
}

/// santhosh-tekuri's `quote`: Go's `%q` with single quotes outside.
fn quote(text: &str) -> String {
    let quoted = sprintf("%q", &[Value::String(text.to_string())]);
    let inner = quoted
        .strip_prefix('"')
        .and_then(|q| q.strip_suffix('"'))
        .unwrap_or(&quoted);
    let inner = inner.replace("\\\"", "\"").replace('\'', "\\'");
    format!("'{inner}'")
}

fn join_quoted(items: &[String]) -> String {
    items
        .iter()
        .map(|item| quote(item))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Values as the JSON the validator sees. Integral floats become integers so that
/// `"type": "integer"` accepts `3` read from YAML as it does in Helm.
fn map_to_json(map: &Map) -> Json {
    Json::Object(
        map.iter()
            .map(|(key, value)| (key.clone(), to_json(value)))
            .collect(),
    )
}

fn to_json(value: &Value) -> Json {
    match value {
        Value::Nil | Value::Complex(..) => Json::Null,
        Value::Bool(b) => Json::Bool(*b),
        Value::Int(i) => Json::from(*i),
        Value::Float(f) => {
            const EXACT: f64 = 9_007_199_254_740_992.0; // 2^53
            if f.fract() == 0.0 && f.abs() <= EXACT {
                // Exact: integral and within f64's integer range.
                Json::from(*f as i64)
            } else {
                serde_json::Number::from_f64(*f).map_or(Json::Null, Json::Number)
            }
        }
        Value::String(s) => Json::String(s.clone()),
        Value::List(items) => Json::Array(items.iter().map(to_json).collect()),
        Value::Map(map) => map_to_json(map),
    }
}
