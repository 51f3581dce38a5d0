//! Sprig's defaults, reflection and JSON functions: `default`, `empty`, `coalesce`, `all`, `any`,
//! `ternary`, `fail`, `typeOf`/`kindOf`/`typeIs`/`kindIs`/`deepEqual`, and `toJson`/`fromJson`.
//!
//! Not for: Helm's JSON functions, which differ in how they report errors (see `helm`).

use super::super::value::Value;
use super::args::{self, err, exact, Result};
use super::gofmt::{self, is_empty, kind_name, type_name, JsonStyle};
use super::{FuncEnv, Function};

pub(crate) const FUNCTIONS: &[(&str, Function)] = &[
    ("default", default),
    ("empty", empty),
    ("coalesce", coalesce),
    ("all", all),
    ("any", any),
    ("ternary", ternary),
    ("fail", fail),
    ("typeOf", type_of),
    ("typeIs", type_is),
    ("typeIsLike", type_is_like),
    ("kindOf", kind_of),
    ("kindIs", kind_is),
    ("deepEqual", deep_equal),
    ("fromJson", from_json),
    ("mustFromJson", must_from_json),
    ("toJson", to_json),
    ("mustToJson", must_to_json),
    ("toPrettyJson", to_pretty_json),
    ("mustToPrettyJson", must_to_pretty_json),
    ("toRawJson", to_raw_json),
    ("mustToRawJson", must_to_raw_json),
];

fn default(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    args::at_least("default", a, 1)?;
    match a.get(1) {
        Some(given) if !is_empty(given) => Ok(given.clone()),
        _ => Ok(a[0].clone()),
    }
}

fn empty(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("empty", a, 1)?;
    Ok(Value::Bool(is_empty(&a[0])))
}

fn coalesce(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    Ok(a.iter().find(|v| !is_empty(v)).cloned().unwrap_or_default())
}

fn all(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    Ok(Value::Bool(a.iter().all(|v| !is_empty(v))))
}

fn any(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    Ok(Value::Bool(a.iter().any(|v| !is_empty(v))))
}

fn ternary(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("ternary", a, 3)?;
    Ok(if args::boolean(&a[2])? {
        a[0].clone()
    } else {
        a[1].clone()
    })
}

fn fail(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("fail", a, 1)?;
    err(args::string(&a[0])?)
}

fn type_of(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("typeOf", a, 1)?;
    Ok(Value::String(type_name(&a[0]).into()))
}

fn type_is(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("typeIs", a, 2)?;
    Ok(Value::Bool(args::string(&a[0])? == type_name(&a[1])))
}

fn type_is_like(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("typeIsLike", a, 2)?;
    let target = args::string(&a[0])?;
    let t = type_name(&a[1]);
    Ok(Value::Bool(target == t || target == format!("*{t}")))
}

fn kind_of(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("kindOf", a, 1)?;
    Ok(Value::String(kind_name(&a[0]).into()))
}

fn kind_is(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("kindIs", a, 2)?;
    Ok(Value::Bool(args::string(&a[0])? == kind_name(&a[1])))
}

fn deep_equal(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("deepEqual", a, 2)?;
    Ok(Value::Bool(a[0] == a[1]))
}

fn from_json(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("fromJson", a, 1)?;
    Ok(gofmt::from_json(args::string(&a[0])?).unwrap_or_default())
}

fn must_from_json(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("mustFromJson", a, 1)?;
    gofmt::from_json(args::string(&a[0])?).map_err(super::FuncError)
}

const PLAIN: JsonStyle = JsonStyle {
    escape_html: true,
    pretty: false,
};
const PRETTY: JsonStyle = JsonStyle {
    escape_html: true,
    pretty: true,
};
const RAW: JsonStyle = JsonStyle {
    escape_html: false,
    pretty: false,
};

fn json_lenient(name: &str, a: &[Value], style: JsonStyle) -> Result<Value> {
    exact(name, a, 1)?;
    Ok(Value::String(
        gofmt::to_json(&a[0], style).unwrap_or_default(),
    ))
}

fn json_strict(name: &str, a: &[Value], style: JsonStyle) -> Result<Value> {
    exact(name, a, 1)?;
    gofmt::to_json(&a[0], style)
        .map(Value::String)
        .map_err(super::FuncError)
}

fn to_json(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    json_lenient("toJson", a, PLAIN)
}

fn must_to_json(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    json_strict("mustToJson", a, PLAIN)
}

fn to_pretty_json(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    json_lenient("toPrettyJson", a, PRETTY)
}

fn must_to_pretty_json(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    json_strict("mustToPrettyJson", a, PRETTY)
}

fn to_raw_json(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    json_lenient("toRawJson", a, RAW)
}

fn must_to_raw_json(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    json_strict("mustToRawJson", a, RAW)
}
