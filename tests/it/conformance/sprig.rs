//! Conformance: the `sprig` suite, Sprig's own tests as data, run through our executor with
//! `sprig_functions()` as `template.New("test").Funcs(sprig.TxtFuncMap())` would.

use std::collections::HashMap;
use std::fs;

use offlux::template::funcs::{sprig_functions, sprig_methods, FuncEnv};
use offlux::template::{ExecOptions, Set, Value};
use serde_json::Value as Json;

use super::common::{suite_dir, suite_present, Tally};

/// JSON data as the suite's Go runner decodes it: numbers without `.`/`e` are ints.
pub fn to_value(j: &Json) -> Value {
    match j {
        Json::Null => Value::Nil,
        Json::Bool(b) => Value::Bool(*b),
        Json::Number(n) => match n.as_i64() {
            Some(i) => Value::Int(i),
            None => Value::Float(n.as_f64().unwrap_or(0.0)),
        },
        Json::String(s) => Value::String(s.clone()),
        Json::Array(a) => Value::List(a.iter().map(to_value).collect()),
        Json::Object(o) => Value::map(o.iter().map(|(k, v)| (k.clone(), to_value(v))).collect()),
    }
}

/// Runs one template case and checks it; returns a failure description.
pub fn check_case(
    funcs: &HashMap<String, offlux::template::funcs::Function>,
    helm: bool,
    case: &Json,
) -> Result<(), String> {
    let template = case["template"].as_str().unwrap_or_default();
    let data = match &case["data"] {
        Json::Null => Value::Map(Default::default()),
        other => to_value(other),
    };
    let mut set = Set::new("test", funcs.clone()).with_methods(sprig_methods);
    if helm {
        set = set.with_helm_builtins();
    }
    let mut env = FuncEnv {
        rng_state: 7,
        now_unix: 1_700_000_000,
        lookups: 0,
        run: None,
    };
    let result = set
        .add("test", template)
        .and_then(|()| set.execute("test", &data, &ExecOptions::default(), &mut env));
    let ok = case["ok"].as_bool().unwrap_or(true);
    match (ok, result) {
        (true, Ok(out)) => {
            let expected = case["expected"].as_str().unwrap_or_default();
            if out == expected {
                Ok(())
            } else {
                Err(format!("got {out:?}, want {expected:?}"))
            }
        }
        (true, Err(e)) => Err(format!("unexpected error: {e}")),
        (false, Ok(out)) => Err(format!("expected an error, got {out:?}")),
        (false, Err(e)) => {
            let msg = e.to_string();
            let wants = case["error_contains"]
                .as_array()
                .cloned()
                .unwrap_or_default();
            match wants
                .iter()
                .filter_map(Json::as_str)
                .find(|w| !msg.contains(w))
            {
                Some(w) => Err(format!("error {msg:?} lacks {w:?}")),
                None => Ok(()),
            }
        }
    }
}

#[test]
fn sprig() {
    if !suite_present("sprig") {
        return;
    }
    let dir = suite_dir("sprig");
    let text = fs::read_to_string(dir.join("cases.jsonl")).expect("read sprig cases");
    let funcs: HashMap<_, _> = sprig_functions()
        .into_iter()
        .map(|(n, f)| (n.to_string(), f))
        .collect();
    let mut tally = Tally::default();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let case: Json = serde_json::from_str(line).expect("case is JSON");
        let id = case["id"].as_str().unwrap_or("?").to_string();
        match check_case(&funcs, false, &case) {
            Ok(()) => tally.pass(),
            Err(why) => tally.fail(
                id,
                format!("{}: {why}", case["template"].as_str().unwrap_or_default()),
            ),
        }
    }
    tally.finish("sprig");
}
