//! Conformance: the `gotemplate` suite, Go's own text/template tests as data: execution cases,
//! API-level cases (options, delimiters, sets, error texts) and parser cases.

use std::collections::{BTreeMap, HashMap};
use std::fs;

use offlux::template::funcs::{FuncEnv, FuncError, Function};
use offlux::template::{sprint, ExecOptions, MissingKey, Set, Value};
use serde_json::Value as Json;

use super::common::{suite_dir, suite_present, Tally};

fn to_value(j: &Json) -> Value {
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

fn env() -> FuncEnv {
    FuncEnv {
        rng_state: 1,
        now_unix: 0,
        lookups: 0,
        run: None,
    }
}

fn err(msg: &str) -> FuncError {
    FuncError(msg.to_string())
}

fn string_arg(v: &Value) -> Result<&str, FuncError> {
    match v {
        Value::String(s) => Ok(s),
        other => Err(FuncError(format!(
            "wrong type for value; expected string; got {}",
            other.go_type_name()
        ))),
    }
}

// The test-only functions of Go's exec_test.go, with their Go signatures' type checks.
fn f_add(_: &mut FuncEnv, a: &[Value]) -> Result<Value, FuncError> {
    let mut sum = 0i64;
    for v in a {
        match v {
            Value::Int(i) => sum += i,
            _ => return Err(err("wrong type for value; expected int")),
        }
    }
    Ok(Value::Int(sum))
}
fn f_echo(_: &mut FuncEnv, a: &[Value]) -> Result<Value, FuncError> {
    match a {
        [v] => Ok(v.clone()),
        _ => Err(err("wrong number of args for echo")),
    }
}
fn f_makemap(_: &mut FuncEnv, a: &[Value]) -> Result<Value, FuncError> {
    if a.len() % 2 != 0 {
        return Err(err("bad makemap"));
    }
    let mut m = BTreeMap::new();
    for pair in a.chunks(2) {
        if let [k, v] = pair {
            m.insert(
                string_arg(k)?.to_string(),
                Value::String(string_arg(v)?.to_string()),
            );
        }
    }
    Ok(Value::map(m))
}
fn f_one_arg(_: &mut FuncEnv, a: &[Value]) -> Result<Value, FuncError> {
    match a {
        [v] => Ok(Value::String(format!("oneArg={}", string_arg(v)?))),
        _ => Err(err("wrong number of args for oneArg")),
    }
}
fn f_two_args(_: &mut FuncEnv, a: &[Value]) -> Result<Value, FuncError> {
    match a {
        [x, y] => Ok(Value::String(format!(
            "twoArgs={}{}",
            string_arg(x)?,
            string_arg(y)?
        ))),
        _ => Err(err("wrong number of args for twoArgs")),
    }
}
fn f_zero_args(_: &mut FuncEnv, a: &[Value]) -> Result<Value, FuncError> {
    if !a.is_empty() {
        return Err(err("wrong number of args for zeroArgs"));
    }
    Ok(Value::String("zeroArgs".into()))
}
fn f_ddd_arg(_: &mut FuncEnv, a: &[Value]) -> Result<Value, FuncError> {
    let Some((Value::Int(_), rest)) = a.split_first() else {
        return Err(err("wrong type for value; expected int"));
    };
    let strs: Result<Vec<&str>, FuncError> = rest.iter().map(string_arg).collect();
    let strs = strs?;
    Ok(Value::String(format!("{} {:?}\n", sprint(&a[..1]), strs)))
}
fn f_type_of(_: &mut FuncEnv, a: &[Value]) -> Result<Value, FuncError> {
    match a {
        [v] => Ok(Value::String(v.go_type_name().to_string())),
        _ => Err(err("wrong number of args for typeOf")),
    }
}
fn f_return_int(_: &mut FuncEnv, _: &[Value]) -> Result<Value, FuncError> {
    Ok(Value::Int(7))
}
fn f_map_of_three(_: &mut FuncEnv, _: &[Value]) -> Result<Value, FuncError> {
    Ok(Value::map(BTreeMap::from([(
        "three".to_string(),
        Value::Int(3),
    )])))
}
fn f_value_string(_: &mut FuncEnv, a: &[Value]) -> Result<Value, FuncError> {
    match a {
        [v] => string_arg(v).map(|_| Value::String("value is ignored".into())),
        _ => Err(err("wrong number of args for valueString")),
    }
}
fn f_vfunc(_: &mut FuncEnv, _: &[Value]) -> Result<Value, FuncError> {
    Ok(Value::String("vfunc".into()))
}
fn f_count(_: &mut FuncEnv, a: &[Value]) -> Result<Value, FuncError> {
    match a {
        [Value::Int(0)] => Ok(Value::Nil),
        [Value::Int(n)] => Ok(Value::List(
            (0..*n)
                .map(|i| Value::String(((b'a' + i as u8) as char).to_string()))
                .collect(),
        )),
        _ => Err(err("wrong type for value; expected int")),
    }
}
fn f_die(_: &mut FuncEnv, _: &[Value]) -> Result<Value, FuncError> {
    Err(err("die"))
}
fn f_stringer(_: &mut FuncEnv, _: &[Value]) -> Result<Value, FuncError> {
    Err(err("stringer needs a fmt.Stringer"))
}

fn test_funcs() -> HashMap<String, Function> {
    let list: [(&str, Function); 15] = [
        ("add", f_add),
        ("echo", f_echo),
        ("makemap", f_makemap),
        ("oneArg", f_one_arg),
        ("twoArgs", f_two_args),
        ("zeroArgs", f_zero_args),
        ("dddArg", f_ddd_arg),
        ("typeOf", f_type_of),
        ("returnInt", f_return_int),
        ("mapOfThree", f_map_of_three),
        ("valueString", f_value_string),
        ("vfunc", f_vfunc),
        ("count", f_count),
        ("die", f_die),
        ("stringer", f_stringer),
    ];
    list.into_iter().map(|(n, f)| (n.to_string(), f)).collect()
}

fn lines(file: &str) -> Vec<Json> {
    let path = suite_dir("gotemplate").join(file);
    let text =
        fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("bad case line in {file}: {e}")))
        .collect()
}

fn s<'a>(c: &'a Json, key: &str) -> &'a str {
    c.get(key).and_then(Json::as_str).unwrap_or("")
}

#[test]
fn gotemplate_exec() {
    if !suite_present("gotemplate") {
        return;
    }
    let mut tally = Tally::default();
    for c in lines("cases.jsonl") {
        let id = s(&c, "id");
        let name = s(&c, "name");
        let ok = c.get("ok").and_then(Json::as_bool).unwrap_or(true);
        let expected = s(&c, "expected");
        let mut set = Set::new("root", test_funcs());
        let mut parse = || -> Result<(), offlux::template::Error> {
            if let Some(defs) = c.get("defs").and_then(Json::as_array) {
                for d in defs {
                    set.add("root", d.as_str().unwrap_or(""))?;
                }
            }
            if let Some(named) = c.get("named_templates").and_then(Json::as_object) {
                for (n, t) in named {
                    set.add(n, t.as_str().unwrap_or(""))?;
                }
            }
            set.add(name, s(&c, "template"))
        };
        let result = parse().and_then(|()| {
            set.execute(
                name,
                &to_value(c.get("data").unwrap_or(&Json::Null)),
                &ExecOptions::default(),
                &mut env(),
            )
        });
        match (ok, result) {
            (true, Ok(out)) if out == expected => tally.pass(),
            (false, Err(_)) => tally.pass(),
            (_, r) => tally.fail(
                id,
                format!(
                    "{:?}: want {:?} got {r:?}",
                    s(&c, "template"),
                    if ok { expected } else { "error" }
                ),
            ),
        }
    }
    tally.finish("gotemplate-exec");
}

#[test]
fn gotemplate_api() {
    if !suite_present("gotemplate") {
        return;
    }
    let mut tally = Tally::default();
    for c in lines("cases_api.jsonl") {
        let id = s(&c, "id");
        let execute = s(&c, "execute");
        let parses = c
            .get("parses")
            .and_then(Json::as_array)
            .cloned()
            .unwrap_or_default();
        let set_name = parses
            .first()
            .map(|p| s(p, "name"))
            .unwrap_or(execute)
            .to_string();
        let mut set = Set::new(&set_name, HashMap::new());
        let mut opts = ExecOptions::default();
        for o in c
            .get("options")
            .and_then(Json::as_array)
            .into_iter()
            .flatten()
        {
            opts.missing_key = match o.as_str().unwrap_or("") {
                "missingkey=zero" => MissingKey::Zero,
                "missingkey=error" => MissingKey::Error,
                _ => MissingKey::Default,
            };
        }
        let mut run = || -> Result<String, offlux::template::Error> {
            for p in &parses {
                match p.get("delims").and_then(Json::as_array) {
                    Some(d) => set.delims(
                        d.first().and_then(Json::as_str).unwrap_or(""),
                        d.get(1).and_then(Json::as_str).unwrap_or(""),
                    ),
                    None => set.delims("", ""),
                }
                set.add(s(p, "name"), s(p, "text"))?;
            }
            set.execute(
                execute,
                &to_value(c.get("data").unwrap_or(&Json::Null)),
                &opts,
                &mut env(),
            )
        };
        let result = run();
        let ok = c.get("ok").and_then(Json::as_bool).unwrap_or(true);
        let strs = |k: &str| -> Vec<String> {
            c.get(k)
                .and_then(Json::as_array)
                .into_iter()
                .flatten()
                .filter_map(|v| v.as_str().map(String::from))
                .collect()
        };
        let good = match (&result, ok) {
            (Ok(out), true) => out == s(&c, "expected"),
            (Err(e), false) => {
                let m = e.to_string();
                strs("error_equals").iter().all(|x| m == *x)
                    && strs("error_contains")
                        .iter()
                        .all(|x| m.contains(x.as_str()))
                    && strs("error_suffix").iter().all(|x| m.ends_with(x.as_str()))
            }
            _ => false,
        };
        if good {
            tally.pass();
        } else {
            tally.fail(id, format!("got {result:?}"));
        }
    }
    tally.finish("gotemplate-api");
}

fn dummy(_: &mut FuncEnv, _: &[Value]) -> Result<Value, FuncError> {
    Ok(Value::Nil)
}

#[test]
fn gotemplate_parse() {
    if !suite_present("gotemplate") {
        return;
    }
    let mut tally = Tally::default();
    for c in lines("parse_cases.jsonl") {
        let id = s(&c, "id");
        let name = match s(&c, "name") {
            "" => "t",
            n => n,
        };
        let mut funcs: HashMap<String, Function> = HashMap::new();
        for f in c
            .get("funcs_defined")
            .and_then(Json::as_array)
            .into_iter()
            .flatten()
        {
            funcs.insert(f.as_str().unwrap_or("").to_string(), dummy);
        }
        let mut set = Set::new(name, funcs);
        if let Some(d) = c
            .get("requires")
            .and_then(|r| r.get("max_expression_depth"))
            .and_then(Json::as_u64)
        {
            set.max_expression_depth(d as usize);
        }
        let result = set.add(name, s(&c, "template"));
        let want_ok = c.get("parse_ok").and_then(Json::as_bool).unwrap_or(true);
        let good = match (&result, want_ok) {
            (Ok(()), true) => match c.get("tree").and_then(Json::as_str) {
                Some(tree) => set.tree_string(name).as_deref().unwrap_or("") == tree,
                None => true,
            },
            (Err(e), false) => match c.get("error_contains").and_then(Json::as_str) {
                Some(want) => e.to_string().contains(want),
                None => true,
            },
            _ => false,
        };
        if good {
            tally.pass();
        } else {
            tally.fail(
                id,
                format!(
                    "{:?}: got {result:?} tree {:?}",
                    s(&c, "template"),
                    set.tree_string(name)
                ),
            );
        }
    }
    tally.finish("gotemplate-parse");
}
