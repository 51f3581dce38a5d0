//! `values.schema.json` validation (Helm's `ValidateAgainstSchema`): each chart's schema checks
//! the values at its level, subcharts the table under their name. Drafts 4, 6, 7, 2019-09 and
//! 2020-12 are chosen by `$schema` (2020-12 when absent). No `$ref` is ever fetched: remote and
//! file references fail to resolve.
//!
//! Messages are those of Helm's validator (santhosh-tekuri/jsonschema v6): per chart a
//! `NAME:` line, then one `- at 'JSON-POINTER': MESSAGE` line per violation; `anyOf`/`oneOf`
//! failures list their subschemas' violations indented below. Where the `jsonschema` crate
//! reports less than Helm's validator (the items a failed `contains` rejected, the nesting of
//! `allOf` and `$ref`), the lines are flat.

use std::panic::{catch_unwind, AssertUnwindSafe};

use jsonschema::error::{TypeKind, ValidationErrorKind};
use jsonschema::{Draft, Retrieve, Uri, ValidationError};
use serde_json::Value as Json;

use super::Map;
use crate::helm::{Chart, Error};
use crate::template::{sprint, sprintf, Value};

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
        if let Err(message) = validate_single(values, schema) {
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

/// `ValidateAgainstSingleSchema`: the message (ending in a newline for violations) when the
/// values do not pass.
fn validate_single(values: &Map, schema: &[u8]) -> Result<(), String> {
    let schema: Json = serde_json::from_slice(schema).map_err(|e| e.to_string())?;
    let instance = map_to_json(values);
    // The validator is a third-party crate: should it panic on a strange schema, report that
    // as Helm reports a recovered panic instead of stopping the run.
    catch_unwind(AssertUnwindSafe(|| check(&schema, &instance)))
        .unwrap_or_else(|_| Err("unable to validate schema: the validator panicked".into()))
}

fn check(schema: &Json, instance: &Json) -> Result<(), String> {
    let draft = draft_of(schema);
    let validator = jsonschema::options()
        .with_draft(draft)
        .with_retriever(NoFetch)
        .build(schema)
        .map_err(|e| compile_error(&e, draft))?;
    let mut errors: Vec<ValidationError> = validator.iter_errors(instance).collect();
    if errors.is_empty() {
        return Ok(());
    }
    // Helm's validator lists violations of the instance root first; keep the crate's order
    // otherwise.
    errors.sort_by(|a, b| a.instance_path().as_str().cmp(b.instance_path().as_str()));
    let mut out = String::new();
    write_errors(&errors, 0, &mut out);
    Err(out)
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

/// A schema the metaschema rejects, worded as Helm's compiler words it.
fn compile_error(error: &ValidationError, draft: Draft) -> String {
    if let ValidationErrorKind::Referencing(e) = error.kind() {
        return format!("jsonschema: {e}");
    }
    format!(
        "\"file:///values.schema.json#\" is not valid against metaschema: jsonschema validation \
         failed with '{}#'\n- at '{}': {}",
        metaschema_url(draft),
        error.instance_path().as_str(),
        message(error)
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

/// Writes one `- at` line per error (required properties of one object on one line), and the
/// subschema errors of `anyOf`/`oneOf` indented below.
fn write_errors(errors: &[ValidationError], depth: usize, out: &mut String) {
    let indent = "  ".repeat(depth);
    let mut i = 0;
    while let Some(error) = errors.get(i) {
        let path = error.instance_path().as_str();
        if let ValidationErrorKind::Required { .. } = error.kind() {
            // Helm's validator reports all missing properties of an object at once.
            let mut names = Vec::new();
            while let Some(next) = errors.get(i) {
                match next.kind() {
                    ValidationErrorKind::Required { property }
                        if next.instance_path().as_str() == path =>
                    {
                        names.push(
                            property
                                .as_str()
                                .map_or_else(|| property.to_string(), str::to_string),
                        );
                        i += 1;
                    }
                    _ => break,
                }
            }
            let text = match names.as_slice() {
                [one] => format!("missing property {}", quote(one)),
                many => format!("missing properties {}", join_quoted(many)),
            };
            out.push_str(&format!("{indent}- at '{path}': {text}\n"));
            continue;
        }
        out.push_str(&format!("{indent}- at '{path}': {}\n", message(error)));
        match error.kind() {
            ValidationErrorKind::AnyOf { context }
            | ValidationErrorKind::OneOfNotValid { context } => {
                for branch in context {
                    write_errors(branch, depth + 1, out);
                }
            }
            _ => {}
        }
        i += 1;
    }
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
        ValidationErrorKind::AnyOf { .. } => "anyOf failed".into(),
        ValidationErrorKind::OneOfNotValid { .. } => "oneOf failed, none matched".into(),
        ValidationErrorKind::OneOfMultipleValid { context } => {
            let matched: Vec<usize> = context
                .iter()
                .enumerate()
                .filter(|(_, errors)| errors.is_empty())
                .map(|(i, _)| i)
                .take(2)
                .collect();
            match matched.as_slice() {
                [a, b] => format!("oneOf failed, subschemas {a}, {b} matched"),
                _ => "oneOf failed".into(),
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
        ValidationErrorKind::Not { .. } => "not failed".into(),
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
