//! Helm's own template functions (pkg/engine/funcs.go): YAML, JSON and TOML conversion with Helm's
//! error conventions (errors go into an `Error` key or element rather than failing the render),
//! an offline `lookup` (always an empty map, as `helm template` gives),
//! `getHostByName` without DNS (empty, as Helm does unless DNS is enabled), and the Helm v4
//! duration helpers.
//!
//! Not for: `include`, `tpl` and `required`, which the executor provides (`Set::with_helm_builtins`).

use std::collections::BTreeMap;

use super::super::value::Value;
use super::args::{self, exact, Result};
use super::dates::{format_duration, parse_duration, NANOS_PER_SEC};
use super::gofmt::{self, JsonStyle};
use super::{toml, FuncEnv, FuncError, Function};
use offlux_yaml as yaml;

pub(crate) const FUNCTIONS: &[(&str, Function)] = &[
    ("toYaml", to_yaml),
    ("toYamlPretty", to_yaml_pretty),
    ("mustToYaml", must_to_yaml),
    ("fromYaml", from_yaml),
    ("fromYamlArray", from_yaml_array),
    ("toJson", to_json),
    ("mustToJson", must_to_json),
    ("fromJson", from_json),
    ("fromJsonArray", from_json_array),
    ("toToml", to_toml),
    ("mustToToml", must_to_toml),
    ("fromToml", from_toml),
    ("lookup", lookup),
    ("getHostByName", get_host_by_name),
    ("mustToDuration", must_to_duration),
    ("durationSeconds", duration_seconds),
    ("durationMilliseconds", duration_milliseconds),
    ("durationMicroseconds", duration_microseconds),
    ("durationNanoseconds", duration_nanoseconds),
    ("durationMinutes", duration_minutes),
    ("durationHours", duration_hours),
    ("durationDays", duration_days),
    ("durationWeeks", duration_weeks),
    ("durationRoundTo", duration_round_to),
    ("durationTruncateTo", duration_truncate_to),
];

/// `toYaml` and `mustToYaml`: `sigs.k8s.io/yaml.Marshal`, which goes through JSON (integral
/// floats become integers; NaN, infinities and complex numbers are errors) and prints with
/// go-yaml v2.
fn marshal_v2(v: &Value) -> std::result::Result<String, String> {
    let data = gofmt::to_serde(v).map_err(|e| format!("error marshaling into JSON: {e}"))?;
    let options = yaml::EmitOptions {
        dialect: yaml::Dialect::HelmToYaml,
        ..yaml::EmitOptions::default()
    };
    Ok(trim_newline(yaml::emit_with(
        &yaml::from_json(&data),
        &options,
    )))
}

/// `toYamlPretty`: go-yaml v3 with an indent of 2 on the Go values themselves (a float stays a
/// float: `1.2345678e+07`).
fn marshal_v3(v: &Value) -> String {
    let options = yaml::EmitOptions {
        sort_keys: true,
        dialect: yaml::Dialect::HelmToYamlPretty,
        ..yaml::EmitOptions::default()
    };
    trim_newline(yaml::emit_with(&yaml_node(v), &options))
}

fn trim_newline(mut text: String) -> String {
    if text.ends_with('\n') {
        text.pop();
    }
    text
}

/// A value as the tree go-yaml v3 encodes it from: strings stay strings whatever they look like,
/// numbers and booleans are spelled as go-yaml v3 spells them.
fn yaml_node(v: &Value) -> yaml::Node {
    let plain = |text: String| yaml::Node::Scalar(yaml::Scalar::plain(text));
    match v {
        Value::Nil => yaml::Node::null(),
        Value::Bool(b) => plain(b.to_string()),
        Value::Int(i) => plain(i.to_string()),
        Value::Float(f) if f.is_nan() => plain(".nan".into()),
        Value::Float(f) if f.is_infinite() => plain(if *f > 0.0 { ".inf" } else { "-.inf" }.into()),
        Value::Float(f) => plain(gofmt::format_float_g(*f)),
        Value::Complex(..) => plain(v.to_string()),
        Value::String(s) => yaml::Node::string(s.as_str()),
        Value::List(items) => yaml::Node::Sequence(yaml::Sequence {
            items: items.iter().map(yaml_node).collect(),
            ..yaml::Sequence::default()
        }),
        Value::Map(m) => {
            let mut mapping = yaml::Mapping::new();
            for (k, item) in m.iter() {
                mapping.entries.push(yaml::Entry {
                    key: yaml::Scalar::string(k.as_str()),
                    value: yaml_node(item),
                });
            }
            yaml::Node::Mapping(mapping)
        }
    }
}

fn to_yaml(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("toYaml", a, 1)?;
    Ok(Value::String(marshal_v2(&a[0]).unwrap_or_default()))
}

fn to_yaml_pretty(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("toYamlPretty", a, 1)?;
    Ok(Value::String(marshal_v3(&a[0])))
}

fn must_to_yaml(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("mustToYaml", a, 1)?;
    marshal_v2(&a[0]).map(Value::String).map_err(FuncError)
}

/// `sigs.k8s.io/yaml.Unmarshal` into `interface{}`: the first document, typed as go-yaml v2
/// (YAML 1.1) types it, then JSON's view of it (numbers are float64; keys are strings).
///
/// The aliases it expands are charged to the run's budget (`env.run`): past it, the call fails
/// (and the template with it), rather than giving the `Error` value a YAML error gives, since
/// the budget is the run's, not the text's.
fn unmarshal(env: &FuncEnv, text: &str) -> Result<std::result::Result<Value, String>> {
    let documents = match parse_first_document(text, env.run.clone()) {
        Ok(documents) => documents,
        Err(e) if e.kind == yaml::ErrorKind::Budget => {
            return Err(FuncError(format!(
                "yaml: line {}: {}",
                e.pos.line, e.message
            )))
        }
        Err(e) => {
            return Ok(Err(format!(
                "error converting YAML to JSON: yaml: line {}: {}",
                e.pos.line, e.message
            )))
        }
    };
    let Some(document) = documents.first() else {
        return Ok(Ok(Value::Nil));
    };
    if let Some(f) = non_finite_float(&document.root) {
        return Ok(Err(format!(
            "error converting YAML to JSON: json: unsupported value: {}",
            gofmt::format_float_g(f)
        )));
    }
    Ok(Ok(gofmt::from_serde(yaml::to_json_helm(&document.root))))
}

/// The documents of `text`, read as far as go-yaml reads for the first one: a syntax error in a
/// later document is not seen. Alias expansion is charged to `run`, when there is one.
fn parse_first_document(
    text: &str,
    run: Option<std::sync::Arc<offlux_budget::RunBudget>>,
) -> std::result::Result<Vec<yaml::Document>, yaml::Error> {
    let options = yaml::ParseOptions {
        last_key_wins: true,
        run,
        ..yaml::ParseOptions::default()
    };
    let error = match yaml::parse_stream(text, &options) {
        Ok(documents) => return Ok(documents),
        Err(e) => e,
    };
    // The text up to the second document's `---`, when the error lies beyond it.
    let mut offset = 0;
    let mut content = false;
    for (number, line) in text.split_inclusive('\n').enumerate() {
        if number + 1 >= error.pos.line as usize {
            break;
        }
        let is_start = line.starts_with("---") && line[3..].starts_with([' ', '\t', '\r', '\n'])
            || line.trim_end() == "---";
        if is_start && content {
            return yaml::parse_stream(&text[..offset], &options).map_err(|_| error);
        }
        let trimmed = line.trim();
        content |= !trimmed.is_empty() && !trimmed.starts_with('#') && !is_start;
        offset += line.len();
    }
    Err(error)
}

/// The first NaN or infinity go-yaml v2 reads in `node`, which JSON cannot hold.
fn non_finite_float(node: &yaml::Node) -> Option<f64> {
    match node {
        yaml::Node::Scalar(s) => match yaml::resolve_helm(s) {
            yaml::Resolved::Float(f) if !f.is_finite() => Some(f),
            _ => None,
        },
        yaml::Node::Sequence(seq) => seq.items.iter().find_map(non_finite_float),
        yaml::Node::Mapping(m) => m.entries.iter().find_map(|e| non_finite_float(&e.value)),
    }
}

fn error_map(msg: String) -> Value {
    Value::map(BTreeMap::from([("Error".to_string(), Value::String(msg))]))
}

/// `json: cannot unmarshal X into Go value of type T` for a decoded value of the wrong shape.
fn unmarshal_type_error(v: &Value, go_type: &str) -> String {
    format!(
        "json: cannot unmarshal {} into Go value of type {go_type}",
        gofmt::json_kind(v)
    )
}

/// A decoded document as a map, or Helm's error map.
fn as_map(decoded: std::result::Result<Value, String>, prefix: &str) -> Value {
    match decoded {
        Ok(Value::Map(m)) => Value::Map(m),
        Ok(Value::Nil) => Value::map(BTreeMap::new()),
        Ok(other) => error_map(format!(
            "{prefix}{}",
            unmarshal_type_error(&other, "map[string]interface {}")
        )),
        Err(e) => error_map(e),
    }
}

fn as_list(decoded: std::result::Result<Value, String>, prefix: &str) -> Value {
    match decoded {
        Ok(Value::List(l)) => Value::List(l),
        Ok(Value::Nil) => Value::List(Vec::new()),
        Ok(other) => Value::List(vec![Value::String(format!(
            "{prefix}{}",
            unmarshal_type_error(&other, "[]interface {}")
        ))]),
        Err(e) => Value::List(vec![Value::String(e)]),
    }
}

const YAML_JSON_PREFIX: &str = "error unmarshaling JSON: while decoding JSON: ";

fn from_yaml(env: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("fromYaml", a, 1)?;
    Ok(as_map(
        unmarshal(env, args::string(&a[0])?)?,
        YAML_JSON_PREFIX,
    ))
}

fn from_yaml_array(env: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("fromYamlArray", a, 1)?;
    Ok(as_list(
        unmarshal(env, args::string(&a[0])?)?,
        YAML_JSON_PREFIX,
    ))
}

const JSON: JsonStyle = JsonStyle {
    escape_html: true,
    pretty: false,
};

fn to_json(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("toJson", a, 1)?;
    Ok(Value::String(
        gofmt::to_json(&a[0], JSON).unwrap_or_default(),
    ))
}

fn must_to_json(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("mustToJson", a, 1)?;
    gofmt::to_json(&a[0], JSON)
        .map(Value::String)
        .map_err(FuncError)
}

fn from_json(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("fromJson", a, 1)?;
    Ok(as_map(gofmt::from_json(args::string(&a[0])?), ""))
}

fn from_json_array(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("fromJsonArray", a, 1)?;
    Ok(as_list(gofmt::from_json(args::string(&a[0])?), ""))
}

fn to_toml(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("toToml", a, 1)?;
    Ok(Value::String(toml::to_toml(&a[0]).unwrap_or_else(|e| e)))
}

fn must_to_toml(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("mustToToml", a, 1)?;
    toml::to_toml(&a[0]).map(Value::String).map_err(FuncError)
}

fn from_toml(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("fromToml", a, 1)?;
    Ok(match toml::from_toml(args::string(&a[0])?) {
        Ok(v) => v,
        Err(e) => error_map(e),
    })
}

fn lookup(env: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("lookup", a, 4)?;
    for v in a {
        args::string(v)?;
    }
    env.lookups = env.lookups.saturating_add(1);
    Ok(Value::map(BTreeMap::new()))
}

fn get_host_by_name(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("getHostByName", a, 1)?;
    args::string(&a[0])?;
    Ok(Value::String(String::new()))
}

/// Helm's duration argument: a Go duration string, or a number of seconds.
fn to_duration(v: &Value) -> std::result::Result<i64, String> {
    match v {
        Value::String(s) => {
            let t = s.trim();
            if t.is_empty() {
                return Err(format!("invalid duration {}", gofmt::quote(s)));
            }
            // Helm's asDuration: a Go duration first, then a number of seconds ("2.5").
            parse_duration(t).or_else(|duration_error| match args::parse_go_float(t) {
                Some(f) => float_seconds(f),
                None => Err(duration_error),
            })
        }
        Value::Int(i) => i
            .checked_mul(NANOS_PER_SEC)
            .ok_or_else(|| format!("duration {i}s overflows")),
        Value::Float(f) => float_seconds(*f),
        Value::Nil => Err("invalid duration <nil>".into()),
        other => Err(format!(
            "cannot convert {} to a duration",
            gofmt::type_name(other)
        )),
    }
}

/// A float number of seconds as nanoseconds, refused where `time.Duration` would overflow.
fn float_seconds(f: f64) -> std::result::Result<i64, String> {
    let n = f * NANOS_PER_SEC as f64;
    if !n.is_finite() || n.abs() >= 9.223_372_036_854_776e18 {
        return Err(format!("duration {}s overflows", gofmt::format_float_g(f)));
    }
    Ok(n.round() as i64)
}

fn lenient(v: &Value) -> i64 {
    to_duration(v).unwrap_or(0)
}

fn must_to_duration(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("mustToDuration", a, 1)?;
    to_duration(&a[0])
        .map(|d| Value::String(format_duration(d)))
        .map_err(FuncError)
}

/// `d / unit` as Go's `Duration.Seconds()`-style methods compute it (whole part plus fraction).
fn ratio(d: i64, unit: i64) -> f64 {
    (d / unit) as f64 + (d % unit) as f64 / unit as f64
}

fn duration_seconds(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("durationSeconds", a, 1)?;
    Ok(Value::Float(ratio(lenient(&a[0]), NANOS_PER_SEC)))
}

fn duration_milliseconds(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("durationMilliseconds", a, 1)?;
    Ok(Value::Int(lenient(&a[0]) / 1_000_000))
}

fn duration_microseconds(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("durationMicroseconds", a, 1)?;
    Ok(Value::Int(lenient(&a[0]) / 1_000))
}

fn duration_nanoseconds(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("durationNanoseconds", a, 1)?;
    Ok(Value::Int(lenient(&a[0])))
}

const MINUTE: i64 = 60 * NANOS_PER_SEC;
const HOUR: i64 = 60 * MINUTE;

fn duration_minutes(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("durationMinutes", a, 1)?;
    Ok(Value::Float(ratio(lenient(&a[0]), MINUTE)))
}

fn duration_hours(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("durationHours", a, 1)?;
    Ok(Value::Float(ratio(lenient(&a[0]), HOUR)))
}

fn duration_days(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("durationDays", a, 1)?;
    Ok(Value::Float(ratio(lenient(&a[0]), HOUR) / 24.0))
}

fn duration_weeks(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("durationWeeks", a, 1)?;
    Ok(Value::Float(ratio(lenient(&a[0]), HOUR) / 168.0))
}

/// `time.Duration.Round`.
fn round_to(d: i64, m: i64) -> i64 {
    if m <= 0 {
        return d;
    }
    let r = d % m;
    if d < 0 {
        let r = -r;
        if r + r < m {
            return d + r;
        }
        return d.checked_sub(m - r).unwrap_or(i64::MIN);
    }
    if r + r < m {
        return d - r;
    }
    d.checked_add(m - r).unwrap_or(i64::MAX)
}

fn duration_round_to(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("durationRoundTo", a, 2)?;
    let d = lenient(&a[0]);
    let m = to_duration(&a[1]).unwrap_or(0);
    Ok(Value::String(format_duration(round_to(d, m))))
}

fn duration_truncate_to(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("durationTruncateTo", a, 2)?;
    let d = lenient(&a[0]);
    let m = to_duration(&a[1]).unwrap_or(0);
    let t = if m <= 0 { d } else { d - d % m };
    Ok(Value::String(format_duration(t)))
}
