//! Helm's values: reading values files, coalescing user values over chart defaults (subchart
//! scoping, `global`, nulls deleting keys), dependency processing (`condition`, `tags`, `alias`,
//! `import-values`), `--set`/`--set-string` expressions and `values.schema.json` validation.
//!
//! Behaviour follows Helm v4.2.3, the oracle's version (`pkg/chart/common/util/coalesce.go`,
//! `pkg/chart/v2/util/dependencies.go`, `pkg/strvals/parser.go`,
//! `pkg/chart/common/util/jsonschema.go`); the tests hold results taken from it. Differences:
//! - Helm's warnings (a table meeting a scalar, a non-boolean condition) are not printed; the
//!   merge just does what Helm does after warning.
//! - Go maps are references, so Helm's coalescing can leak a subchart's globals into its parent's
//!   tables three or more levels deep; here values are owned and nothing leaks.
//! - Condition expressions (`(a && !b)`, newer than Helm v4.2) are not supported: a condition is a
//!   comma-separated list of paths, the first that resolves to a boolean decides.
//! - `--set-json` and `--set-file` are not supported.
//! - Schemas are checked with the `jsonschema` crate; remote `$ref`s are never fetched, and
//!   messages are rewritten into the wording of Helm's validator (santhosh-tekuri/jsonschema v6).
//!
//! A render does what Helm's install does: user values are the values files read with
//! [`from_yaml`] and merged in order with [`merge_maps`], then each `--set` applied in order with
//! [`apply_set`]; then [`process_dependencies`] on the chart with those values,
//! [`try_coalesce_values`] for `.Values`, and [`validate_schema`] on the result (Helm's
//! `ToRenderValuesWithSchemaValidation`).
//!
//! Not for: reading values from Flux objects (`valuesFrom` belongs to `controllers`).

mod coalesce;
mod dependencies;
mod schema;

mod strvals;

use std::collections::BTreeMap;
use std::sync::Arc;

use super::{Chart, Error};
use offlux_template::Value;

/// A values table (Go's `map[string]interface{}`).
type Map = BTreeMap<String, Value>;

/// Parses a values document (a values file, a ConfigMap key) as Helm reads it: YAML 1.1 typing,
/// numbers as float64, an empty document as an empty map. `name` is what errors call it.
///
/// Like Helm (`sigs.k8s.io/yaml`), only the first document of a stream is read.
pub fn from_yaml(text: &str, name: &str) -> Result<Value, Error> {
    let documents = offlux_yaml::parse_stream(text, &offlux_yaml::ParseOptions::default())
        .map_err(|e| {
            Error::Values(format!(
                "failed to parse {name}: error converting YAML to JSON: yaml: line {}: {}",
                e.pos.line, e.message
            ))
        })?;
    let Some(document) = documents.first() else {
        return Ok(Value::map(Map::new()));
    };
    match offlux_template::from_serde(offlux_yaml::to_json_helm(&document.root)) {
        Value::Nil => Ok(Value::map(Map::new())),
        map @ Value::Map(_) => Ok(map),
        other => Err(Error::Values(format!(
            "failed to parse {name}: error unmarshaling JSON: while decoding JSON: json: cannot \
             unmarshal {} into Go value of type map[string]interface {{}}",
            offlux_template::json_kind(&other)
        ))),
    }
}

/// Helm's `mergeMaps` for successive `-f` files and `--set` layers: `over` wins, maps merge
/// recursively, everything else (lists included) is replaced. A `base` that is not a map counts
/// as empty; an `over` that is not a map leaves `base` as it is.
pub fn merge_maps(base: Value, over: Value) -> Value {
    match (base, over) {
        (Value::Map(base), Value::Map(over)) => Value::map(merge_tables(
            Arc::unwrap_or_clone(base),
            Arc::unwrap_or_clone(over),
        )),
        (_, over @ Value::Map(_)) => over,
        (base, _) => base,
    }
}

fn merge_tables(mut out: Map, over: Map) -> Map {
    for (key, value) in over {
        let value = match (out.remove(&key), value) {
            (Some(Value::Map(base)), Value::Map(over)) => Value::map(merge_tables(
                Arc::unwrap_or_clone(base),
                Arc::unwrap_or_clone(over),
            )),
            (_, value) => value,
        };
        out.insert(key, value);
    }
    out
}

/// Helm's `ProcessDependencies`: applies aliases, drops subcharts disabled by
/// `condition`/`tags` (evaluated on `user` over the chart's defaults), then imports values
/// (`import-values`, merged so that the parent's own values win over imported ones).
///
/// Afterwards `chart.dependencies` and `chart.metadata.dependencies` hold only enabled subcharts,
/// aliased subcharts are renamed copies, and each chart's `values` include what it imported.
pub(crate) fn process_dependencies(chart: &mut Chart, user: &Value) -> Result<(), Error> {
    dependencies::process(chart, user)
}

/// Helm's `CoalesceValues`: `user` over the chart's defaults, recursively into subcharts, with
/// `global` copied down. A null in `user` deletes the chart's default.
///
/// A subchart's key holding something other than a map is an error in Helm; here the values
/// coalesced so far are returned. Use [`try_coalesce_values`] to see the error.
pub fn coalesce_values(chart: &Chart, user: &Value) -> Value {
    match coalesce::coalesce_values(chart, user) {
        Ok(values) => values,
        Err((partial, _)) => partial,
    }
}

/// [`coalesce_values`], failing as Helm does when a subchart's key holds something other than a
/// map (`type mismatch on NAME: ...`).
pub(crate) fn try_coalesce_values(chart: &Chart, user: &Value) -> Result<Value, Error> {
    coalesce::coalesce_values(chart, user).map_err(|(_, error)| error)
}

/// Applies one `--set` (or, with `as_string`, `--set-string`) expression to `values`.
///
/// `values` should be a map (a `Nil` is replaced by one). On error `values` may hold part of the
/// expression's assignments, as in Helm; callers stop there.
pub fn apply_set(expression: &str, values: &mut Value, as_string: bool) -> Result<(), Error> {
    let flag = if as_string { "--set-string" } else { "--set" };
    if matches!(values, Value::Nil) {
        *values = Value::map(Map::new());
    }
    let Value::Map(map) = values else {
        return Err(Error::Values(format!(
            "failed parsing {flag} data: values are a {}, not a map",
            values.go_type_name()
        )));
    };
    strvals::parse_into(expression, Arc::make_mut(map), as_string)
        .map_err(|message| Error::Values(format!("failed parsing {flag} data: {message}")))
}

/// Validates coalesced values against `values.schema.json` of the chart and its subcharts.
pub fn validate_schema(chart: &Chart, values: &Value) -> Result<(), Error> {
    schema::validate(chart, values)
}

#[cfg(test)]
mod tests;
