//! Helm's dependency processing (`ProcessDependencies`): aliases, `tags` and `condition`
//! enabling or dropping subcharts, then `import-values` from children into parents.

use std::collections::BTreeSet;

use super::coalesce::{self, coalesce_tables};
use super::Map;
use crate::{Chart, Dependency, Error};
use offlux_template::funcs::semver_api::{parse_version, satisfies};
use offlux_template::{sprint, Value};

pub(super) fn process(chart: &mut Chart, user: &Value) -> Result<(), Error> {
    let user = match user {
        Value::Map(map) => Value::Map(map.clone()),
        _ => Value::map(Map::new()),
    };
    process_enabled(chart, &user, "")?;
    process_import_values(chart)
}

/// `IsCompatibleRange`: the version parses and satisfies the constraint (an empty or invalid
/// constraint matches nothing).
fn is_compatible_range(constraint: &str, version: &str) -> bool {
    // Masterminds rejects an empty constraint, so a dependency without a version matches no
    // subchart (and an alias without a version is not applied).
    if constraint.trim().is_empty() {
        return false;
    }
    let Ok(version) = parse_version(version) else {
        return false;
    };
    satisfies(constraint, &version).unwrap_or(false)
}

/// `getAliasDependency`: a copy of the subchart that `dependency` names (by name and version
/// range), renamed to the alias when there is one.
fn alias_dependency(charts: &[Chart], dependency: &Dependency) -> Option<Chart> {
    let found = charts.iter().find(|chart| {
        chart.name() == dependency.name
            && is_compatible_range(&dependency.version, &chart.metadata.version)
    })?;
    let mut copy = found.clone();
    if !dependency.alias.is_empty() {
        copy.metadata.name = dependency.alias.clone();
    }
    Some(copy)
}

/// `processDependencyEnabled`: resolves aliases, evaluates tags and conditions on the values
/// coalesced at this level, drops disabled subcharts and recurses into the rest. `path` is the
/// prefix (`parent.child.`) under which this chart's conditions are looked up.
fn process_enabled(chart: &mut Chart, values: &Value, path: &str) -> Result<(), Error> {
    // Helm tests for a nil list: a chart without declared dependencies is left alone, its
    // subcharts' own conditions included.
    if chart.metadata.dependencies.is_empty() {
        return Ok(());
    }
    let existing = std::mem::take(&mut chart.dependencies);
    // Subcharts that no declared dependency matches stay, always enabled.
    let mut subcharts: Vec<Chart> = existing
        .iter()
        .filter(|sub| {
            !chart.metadata.dependencies.iter().any(|dep| {
                sub.name() == dep.name && is_compatible_range(&dep.version, &sub.metadata.version)
            })
        })
        .cloned()
        .collect();
    for dependency in &mut chart.metadata.dependencies {
        if let Some(sub) = alias_dependency(&existing, dependency) {
            subcharts.push(sub);
        }
        if !dependency.alias.is_empty() {
            dependency.name = dependency.alias.clone();
        }
    }
    chart.dependencies = subcharts;

    for dependency in &mut chart.metadata.dependencies {
        dependency.enabled = true;
    }
    let coalesced = coalesce::coalesce_values(chart, values).map_err(|(_, error)| error)?;
    let empty = Map::new();
    let coalesced_map = match &coalesced {
        Value::Map(map) => map,
        _ => &empty,
    };
    apply_tags(&mut chart.metadata.dependencies, coalesced_map);
    apply_conditions(&mut chart.metadata.dependencies, coalesced_map, path);

    let disabled: BTreeSet<String> = chart
        .metadata
        .dependencies
        .iter()
        .filter(|dep| !dep.enabled)
        .map(|dep| dep.name.clone())
        .collect();
    chart
        .dependencies
        .retain(|sub| !disabled.contains(sub.name()));
    chart
        .metadata
        .dependencies
        .retain(|dep| !disabled.contains(&dep.name));

    for sub in &mut chart.dependencies {
        let sub_path = format!("{path}{}.", sub.name());
        process_enabled(sub, &coalesced, &sub_path)?;
    }
    Ok(())
}

/// `processDependencyTags`: a dependency with only false tags is disabled; any true tag, or no
/// tag set at all, enables it.
fn apply_tags(dependencies: &mut [Dependency], values: &Map) {
    let Some(Value::Map(tags)) = values.get("tags") else {
        return;
    };
    for dependency in dependencies {
        let mut has_true = false;
        let mut has_false = false;
        for tag in &dependency.tags {
            // A non-boolean tag is ignored (Helm warns).
            match tags.get(tag) {
                Some(Value::Bool(true)) => has_true = true,
                Some(Value::Bool(false)) => has_false = true,
                _ => {}
            }
        }
        dependency.enabled = has_true || !has_false;
    }
}

/// `processDependencyConditions`: the first path of the comma-separated condition that holds a
/// boolean decides; paths are looked up under `path`, this chart's place in the values.
fn apply_conditions(dependencies: &mut [Dependency], values: &Map, path: &str) {
    for dependency in dependencies {
        let condition = dependency.condition.trim().to_string();
        for item in condition.split(',') {
            if item.is_empty() {
                continue;
            }
            // A missing path or a non-boolean value is skipped (Helm warns on the latter).
            if let Some(Value::Bool(enabled)) = path_value(values, &format!("{path}{item}")) {
                dependency.enabled = *enabled;
                break;
            }
        }
    }
}

/// `Values.PathValue`: the non-table value at a dotted path.
fn path_value<'a>(values: &'a Map, path: &str) -> Option<&'a Value> {
    let (table_path, key) = match path.rsplit_once('.') {
        Some((table_path, key)) => (Some(table_path), key),
        None => (None, path),
    };
    let table = match table_path {
        Some(table_path) => table(values, table_path)?,
        None => values,
    };
    table
        .get(key)
        .filter(|value| !matches!(value, Value::Map(_)))
}

/// `Values.Table`: the table at a dotted path.
fn table<'a>(values: &'a Map, path: &str) -> Option<&'a Map> {
    let mut current = values;
    for segment in path.split('.') {
        match current.get(segment) {
            Some(Value::Map(inner)) => current = inner,
            _ => return None,
        }
    }
    Some(current)
}

/// `processDependencyImportValues`: children first, then this chart.
fn process_import_values(chart: &mut Chart) -> Result<(), Error> {
    for sub in &mut chart.dependencies {
        process_import_values(sub)?;
    }
    import_values(chart)
}

/// `processImportValues` in merge mode: each dependency's `import-values` (a string `X` meaning
/// `{child: exports.X, parent: .}`, or a `{child, parent}` map) copies a child table into the
/// parent. The first import of a key wins over later ones, and the parent's own values win over
/// all imports. The chart's values become its merged values with the imports, and each
/// dependency's `import_values` its normalised `{child, parent}` form.
fn import_values(chart: &mut Chart) -> Result<(), Error> {
    if chart.metadata.dependencies.is_empty() {
        return Ok(());
    }
    let merged =
        coalesce::merge_values(chart, &Value::map(Map::new())).map_err(|(_, error)| error)?;
    let mut merged = match merged {
        Value::Map(map) => std::sync::Arc::unwrap_or_clone(map),
        _ => Map::new(),
    };
    let mut imported = Map::new();
    for dependency in &mut chart.metadata.dependencies {
        let mut normalised = Vec::new();
        for entry in &dependency.import_values {
            let (child, parent) = match entry {
                Value::Map(map) => (go_string(map.get("child")), go_string(map.get("parent"))),
                Value::String(name) => (format!("exports.{name}"), ".".to_string()),
                // Helm ignores other shapes silently.
                _ => continue,
            };
            normalised.push(Value::map(Map::from([
                ("child".to_string(), Value::String(child.clone())),
                ("parent".to_string(), Value::String(parent.clone())),
            ])));
            // A missing child table is skipped (Helm warns).
            let Some(source) = table(&merged, &format!("{}.{child}", dependency.name)) else {
                continue;
            };
            let source = if parent == "." {
                source.clone()
            } else {
                path_to_map(&parent, source.clone())
            };
            coalesce_tables(&mut imported, source, true);
        }
        dependency.import_values = normalised;
    }
    coalesce_tables(&mut merged, imported, true);
    chart.values = Value::map(merged);
    Ok(())
}

/// Go's `fmt.Sprintf("%v", v)` for an `import-values` field (`<nil>` when absent).
fn go_string(value: Option<&Value>) -> String {
    match value {
        None | Some(Value::Nil) => "<nil>".to_string(),
        Some(value) => sprint(std::slice::from_ref(value)),
    }
}

/// `pathToMap`: `data` nested under the dotted `path`.
fn path_to_map(path: &str, data: Map) -> Map {
    let mut current = data;
    for segment in path.rsplit('.') {
        current = Map::from([(segment.to_string(), Value::map(current))]);
    }
    current
}
