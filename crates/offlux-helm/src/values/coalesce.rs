//! Helm's values coalescing (`CoalesceValues`, `MergeValues`, `CoalesceTables`, `MergeTables`).
//!
//! "Coalesce" and "merge" differ only in nulls: coalescing lets a null delete the key it meets
//! (and drops nulls from chart defaults), merging keeps nulls as values. The higher layer
//! (user values over chart defaults, a parent over its subchart) always wins; maps merge, lists
//! and scalars are replaced.

use std::sync::Arc;

use super::Map;
use crate::{Chart, Error};
use offlux_template::{sprintf, Value};

/// The key whose table is copied from every chart into its subcharts.
const GLOBAL_KEY: &str = "global";

/// `CoalesceValues` (`merge == false`) or `MergeValues` (`merge == true`): a copy of `user`
/// with the chart's and its subcharts' defaults filled in. On error, the values coalesced so far
/// come with it.
pub(super) fn coalesce_values(chart: &Chart, user: &Value) -> Result<Value, (Value, Error)> {
    run(chart, user, false)
}

/// `MergeValues`: as [`coalesce_values`], keeping nulls.
pub(super) fn merge_values(chart: &Chart, user: &Value) -> Result<Value, (Value, Error)> {
    run(chart, user, true)
}

fn run(chart: &Chart, user: &Value, merge: bool) -> Result<Value, (Value, Error)> {
    let mut dest = match user {
        Value::Map(map) => Map::clone(map),
        _ => Map::new(),
    };
    match coalesce(chart, &mut dest, merge) {
        Ok(()) => Ok(Value::map(dest)),
        Err(error) => Err((Value::map(dest), error)),
    }
}

fn coalesce(chart: &Chart, dest: &mut Map, merge: bool) -> Result<(), Error> {
    coalesce_chart_values(chart, dest, merge);
    coalesce_dependencies(chart, dest, merge)
}

/// `coalesceDeps`: each subchart's table in `dest` gets the parent's globals, then the
/// subchart's own defaults.
fn coalesce_dependencies(chart: &Chart, dest: &mut Map, merge: bool) -> Result<(), Error> {
    for subchart in &chart.dependencies {
        let name = subchart.name();
        let mut table = match dest.remove(name) {
            None => Map::new(),
            Some(Value::Map(table)) => Arc::unwrap_or_clone(table),
            Some(other) => {
                let message = format!(
                    "type mismatch on {name}: {}",
                    sprintf("%t", std::slice::from_ref(&other))
                );
                dest.insert(name.to_string(), other);
                return Err(Error::Values(message));
            }
        };
        coalesce_globals(&mut table, dest);
        let result = coalesce(subchart, &mut table, merge);
        dest.insert(name.to_string(), Value::map(table));
        result?;
    }
    Ok(())
}

/// `coalesceGlobals`: copies the parent's `global` table (`parent`) into a subchart's table
/// (`dest`). The parent's globals win; tables present on both sides are merged.
fn coalesce_globals(dest: &mut Map, parent: &Map) {
    let mut dest_globals = match dest.get(GLOBAL_KEY) {
        None => Map::new(),
        Some(Value::Map(globals)) => Map::clone(globals),
        // Helm warns "skipping globals because destination global is not a table."
        Some(_) => return,
    };
    let parent_globals = match parent.get(GLOBAL_KEY) {
        None => return finish_globals(dest, dest_globals),
        Some(Value::Map(globals)) => globals,
        // Helm warns "skipping globals because source global is not a table."
        Some(_) => return,
    };
    for (key, value) in parent_globals.iter() {
        match value {
            Value::Map(table) => {
                let mut merged = Map::clone(table);
                match dest_globals.get(key) {
                    None => {}
                    Some(Value::Map(existing)) => {
                        // Always a merge here: the result is coalesced again, nulls go then.
                        coalesce_tables(&mut merged, Map::clone(existing), true);
                    }
                    // Helm warns "Conflict: cannot merge map onto non-map" and keeps the non-map.
                    Some(_) => continue,
                }
                dest_globals.insert(key.clone(), Value::map(merged));
            }
            // Helm warns "key is table. Skipping" and keeps the subchart's table.
            _ if matches!(dest_globals.get(key), Some(Value::Map(_))) => {}
            _ => {
                dest_globals.insert(key.clone(), value.clone());
            }
        }
    }
    finish_globals(dest, dest_globals);
}

fn finish_globals(dest: &mut Map, globals: Map) {
    dest.insert(GLOBAL_KEY.to_string(), Value::map(globals));
}

/// `coalesceValues`: the chart's own defaults under the values in `values` (which win).
fn coalesce_chart_values(chart: &Chart, values: &mut Map, merge: bool) {
    let defaults = match &chart.values {
        Value::Map(defaults) => Map::clone(defaults),
        _ => Map::new(),
    };
    // Coalescing, nulls in chart defaults are dropped so that they neither shadow globals nor
    // print as `%!s(<nil>)`. (Helm after v4.2 keeps the top chart's own nulls, helm#32530;
    // v4.2.3, our reference, drops them at every level.)
    let clean_defaults = !merge;
    for (key, default) in defaults {
        match values.get_mut(&key) {
            Some(Value::Nil) if !merge => {
                values.remove(&key);
            }
            Some(Value::Map(dest)) => {
                // A non-table default under a table is skipped (Helm warns unless it is null).
                if let Value::Map(src) = default {
                    let mut src = Arc::unwrap_or_clone(src);
                    let merge = merge || is_subchart(chart, &key);
                    if !merge {
                        clean_nils(&mut src);
                    }
                    coalesce_tables(Arc::make_mut(dest), src, merge);
                }
            }
            Some(_) => {}
            None => {
                let default = match default {
                    Value::Nil if clean_defaults => continue,
                    Value::Map(mut table) if clean_defaults => {
                        clean_nils(Arc::make_mut(&mut table));
                        Value::Map(table)
                    }
                    other => other,
                };
                values.insert(key, default);
            }
        }
    }
}

/// `childChartMergeTrue`: a key named after a subchart is merged, never coalesced, here; the
/// subchart's own pass decides about its nulls.
fn is_subchart(chart: &Chart, key: &str) -> bool {
    chart.dependencies.iter().any(|sub| sub.name() == key)
}

/// `coalesceTablesFullKey`: `src` merged under `dst` (which wins). Coalescing, a null in `dst`
/// deletes a non-null `src` value; merging keeps the null.
pub(super) fn coalesce_tables(dst: &mut Map, mut src: Map, merge: bool) {
    let src_non_nil: Vec<String> = src
        .iter()
        .filter(|(_, value)| !matches!(value, Value::Nil))
        .map(|(key, _)| key.clone())
        .collect();
    for (key, value) in dst.iter() {
        if matches!(value, Value::Nil) {
            src.insert(key.clone(), Value::Nil);
        }
    }
    for (key, value) in src {
        match dst.get_mut(&key) {
            Some(Value::Nil) if !merge && src_non_nil.binary_search(&key).is_ok() => {
                dst.remove(&key);
            }
            None => {
                dst.insert(key, value);
            }
            Some(existing) => {
                if let (Value::Map(existing), Value::Map(value)) = (existing, value) {
                    coalesce_tables(Arc::make_mut(existing), Arc::unwrap_or_clone(value), merge);
                }
                // Otherwise dst wins; Helm warns when only one side is a table.
            }
        }
    }
}

/// `cleanNilValues`: removes nulls from a table, recursively through tables (not lists).
fn clean_nils(table: &mut Map) {
    table.retain(|_, value| !matches!(value, Value::Nil));
    for value in table.values_mut() {
        if let Value::Map(inner) = value {
            clean_nils(Arc::make_mut(inner));
        }
    }
}
