//! Helm's values: reading values files, coalescing user values over chart defaults (subchart
//! scoping, `global`, nulls deleting keys), dependency processing (`condition`, `tags`, `alias`,
//! `import-values`), `--set`/`--set-string` expressions and `values.schema.json` validation.

use super::{Chart, Error};
use crate::template::Value;

/// Parses a values document (a values file, a ConfigMap key) as Helm reads it: YAML 1.1 typing,
/// numbers as float64, an empty document as an empty map. `name` is what errors call it.
pub fn from_yaml(_text: &str, _name: &str) -> Result<Value, Error> {
    Err(Error::Values("not implemented".into()))
}

/// Helm's `MergeTables`-style deep merge used for successive `-f` files: `over` wins, maps merge.
pub fn merge_maps(base: Value, _over: Value) -> Value {
    base
}

/// Helm's `ProcessDependenciesWithMerge`: applies aliases, drops subcharts disabled by
/// `condition`/`tags` (evaluated on `user` over the chart's defaults), then imports values.
pub fn process_dependencies(_chart: &mut Chart, _user: &Value) -> Result<(), Error> {
    Ok(())
}

/// Helm's `CoalesceValues`: `user` over the chart's defaults, recursively into subcharts, with
/// `global` copied down. A null in `user` deletes the chart's default.
pub fn coalesce_values(_chart: &Chart, user: &Value) -> Value {
    user.clone()
}

/// Applies one `--set` (or, with `as_string`, `--set-string`) expression to `values`.
pub fn apply_set(_expression: &str, _values: &mut Value, _as_string: bool) -> Result<(), Error> {
    Err(Error::Values("not implemented".into()))
}

/// Validates coalesced values against `values.schema.json` of the chart and its subcharts.
pub fn validate_schema(_chart: &Chart, _values: &Value) -> Result<(), Error> {
    Ok(())
}
