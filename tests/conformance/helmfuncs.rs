//! Conformance: the `helmfuncs` suite, Helm's funcs_test.go cases (run with `helm_functions()`)
//! and engine_test.go cases (literal charts rendered by a small harness over the executor).

use std::collections::{BTreeMap, HashMap};
use std::fs;

use offlux::template::funcs::{helm_functions, FuncEnv, FuncError};
use offlux::template::{ExecOptions, MissingKey, Set, Value};
use serde_json::Value as Json;

use super::common::{suite_dir, Tally};
use super::sprig::{check_case, to_value};

fn cases() -> Vec<Json> {
    let dir = suite_dir("helmfuncs");
    let text = fs::read_to_string(dir.join("cases.jsonl")).expect("read helmfuncs cases");
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("case is JSON"))
        .collect()
}

fn funcs() -> HashMap<String, offlux::template::funcs::Function> {
    helm_functions()
        .into_iter()
        .map(|(n, f)| (n.to_string(), f))
        .collect()
}

#[test]
fn helmfuncs_functions() {
    let funcs = funcs();
    let mut tally = Tally::default();
    for case in cases().iter().filter(|c| c["kind"] == "funcs") {
        let id = case["id"].as_str().unwrap_or("?").to_string();
        match check_case(&funcs, true, case) {
            Ok(()) => tally.pass(),
            Err(why) => tally.fail(format!(
                "{id}: {}: {why}",
                case["template"].as_str().unwrap_or_default()
            )),
        }
    }
    tally.finish("helmfuncs/funcs", 0.95);
}

/// Helm's `required` in lint mode: a missing value is reported (by Helm, as a log line) and
/// renders as an empty string instead of failing.
fn required_lint(_: &mut FuncEnv, a: &[Value]) -> Result<Value, FuncError> {
    match a {
        [_, Value::Nil] => Ok(Value::String(String::new())),
        [_, Value::String(s)] if s.is_empty() => Ok(Value::String(String::new())),
        [_, v] => Ok(v.clone()),
        _ => Err(FuncError(format!(
            "wrong number of args for required: want 2 got {}",
            a.len()
        ))),
    }
}

/// One chart of a case, flattened: its templates under their full names, and where it sits.
struct Flat<'a> {
    chart: &'a Json,
    /// `parent/charts/child` for a subchart.
    path: String,
    /// The keys leading to the chart's values from the top (`["child"]` for a subchart).
    scope: Vec<String>,
}

fn flatten<'a>(chart: &'a Json, path: String, scope: Vec<String>, out: &mut Vec<Flat<'a>>) {
    for dep in chart["dependencies"].as_array().into_iter().flatten() {
        let name = dep["name"].as_str().unwrap_or_default().to_string();
        let mut sub_scope = scope.clone();
        sub_scope.push(name.clone());
        flatten(dep, format!("{path}/charts/{name}"), sub_scope, out);
    }
    out.push(Flat { chart, path, scope });
}

/// Renders a chart as Helm's engine does: one template set holding every template of the chart
/// and its subcharts, each rendered with its own chart's `.Chart`, `.Values` scope and `.Template`.
fn render(case: &Json) -> Result<BTreeMap<String, String>, String> {
    let mut flat = Vec::new();
    let root = &case["chart"];
    flatten(
        root,
        root["name"].as_str().unwrap_or_default().to_string(),
        Vec::new(),
        &mut flat,
    );
    let mut funcs = funcs();
    if case["lint_mode"].as_bool().unwrap_or(false) {
        funcs.insert("required".into(), required_lint);
    }
    let mut set = Set::new("gotpl", funcs).with_helm_builtins();
    let mut names = Vec::new();
    for f in &flat {
        let mut templates: Vec<(&String, &Json)> = f.chart["templates"]
            .as_object()
            .into_iter()
            .flatten()
            .collect();
        templates.sort_by(|a, b| a.0.cmp(b.0));
        for (name, text) in templates {
            let full = format!("{}/{name}", f.path);
            set.add(&full, text.as_str().unwrap_or_default())
                .map_err(|e| e.to_string())?;
            names.push((full, f));
        }
    }
    let top = to_value(&case["values"]);
    let opts = ExecOptions {
        missing_key: if case["strict"].as_bool().unwrap_or(false) {
            MissingKey::Error
        } else {
            MissingKey::Zero
        },
        ..ExecOptions::default()
    };
    let mut out = BTreeMap::new();
    for (name, f) in &names {
        let base = name.rsplit('/').next().unwrap_or_default();
        if base.starts_with('_') {
            continue;
        }
        let mut ctx = match &top {
            Value::Map(m) => m.clone(),
            _ => BTreeMap::new(),
        };
        let mut values = ctx.get("Values").cloned().unwrap_or(Value::Nil);
        for key in &f.scope {
            values = match values {
                Value::Map(m) => m.get(key).cloned().unwrap_or(Value::Map(BTreeMap::new())),
                _ => Value::Map(BTreeMap::new()),
            };
        }
        ctx.insert("Values".into(), values);
        let mut chart = match to_value(&f.chart["metadata"]) {
            Value::Map(m) => m,
            _ => BTreeMap::new(),
        };
        chart.insert("IsRoot".into(), Value::Bool(f.scope.is_empty()));
        ctx.insert("Chart".into(), Value::Map(chart));
        let base_path = match name.rfind('/') {
            Some(i) => name[..i].to_string(),
            None => String::new(),
        };
        ctx.insert(
            "Template".into(),
            Value::Map(BTreeMap::from([
                ("Name".to_string(), Value::String(name.clone())),
                ("BasePath".to_string(), Value::String(base_path)),
            ])),
        );
        let mut env = FuncEnv {
            rng_state: 7,
            now_unix: 1_700_000_000,
        };
        let text = set
            .execute(name, &Value::Map(ctx), &opts, &mut env)
            .map_err(|e| e.to_string())?;
        // Helm replaces the `<no value>` Go prints for missing values with nothing.
        out.insert(name.clone(), text.replace("<no value>", ""));
    }
    Ok(out)
}

#[test]
fn helmfuncs_engine() {
    let mut tally = Tally::default();
    for case in cases().iter().filter(|c| c["kind"] == "engine") {
        let id = case["id"].as_str().unwrap_or("?").to_string();
        let ok = case["ok"].as_bool().unwrap_or(true);
        let outcome = match (ok, render(case)) {
            (true, Ok(files)) => {
                let want = case["expected_files"]
                    .as_object()
                    .cloned()
                    .unwrap_or_default();
                let bad: Vec<String> = want
                    .iter()
                    .filter(|(k, v)| files.get(*k).map(String::as_str) != v.as_str())
                    .map(|(k, v)| format!("{k}: got {:?}, want {v}", files.get(k)))
                    .collect();
                let count_ok = case["expected_file_count"]
                    .as_u64()
                    .is_none_or(|n| n as usize == files.len());
                if bad.is_empty() && count_ok {
                    Ok(())
                } else {
                    Err(format!("{bad:?} (files: {})", files.len()))
                }
            }
            (true, Err(e)) => Err(format!("unexpected error: {e}")),
            (false, Ok(files)) => Err(format!("expected an error, got {files:?}")),
            (false, Err(e)) => {
                let wants = case["error_contains"]
                    .as_array()
                    .cloned()
                    .unwrap_or_default();
                match wants
                    .iter()
                    .filter_map(Json::as_str)
                    .find(|w| !e.contains(w))
                {
                    Some(w) => Err(format!("error {e:?} lacks {w:?}")),
                    None => Ok(()),
                }
            }
        };
        match outcome {
            Ok(()) => tally.pass(),
            Err(why) => tally.fail(format!("{id}: {why}")),
        }
    }
    tally.finish("helmfuncs/engine", 0.95);
}
