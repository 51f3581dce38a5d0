//! Sprig's dictionary functions, including `merge`/`mergeOverwrite` with `mergo`'s rules and `dig`.
//! Functions Go runs for their effect on the first map return the changed map (see the parent
//! module's note on `mutates_first_arg`).
//!
//! Not for: lists (see `lists`).

use std::collections::BTreeMap;

use super::super::value::Value;
use super::args::{self, at_least, err, exact, Result};
use super::gofmt::{is_empty, strval};
use super::{FuncEnv, Function};

pub(crate) const FUNCTIONS: &[(&str, Function)] = &[
    ("dict", dict),
    ("get", get),
    ("set", set),
    ("unset", unset),
    ("hasKey", has_key),
    ("pluck", pluck),
    ("keys", keys),
    ("pick", pick),
    ("omit", omit),
    ("merge", merge),
    ("mustMerge", merge),
    ("mergeOverwrite", merge_overwrite),
    ("mustMergeOverwrite", merge_overwrite),
    ("values", values),
    ("deepCopy", deep_copy),
    ("mustDeepCopy", must_deep_copy),
    ("dig", dig),
];

fn dict(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    let mut out = BTreeMap::new();
    for pair in a.chunks(2) {
        let key = strval(&pair[0]);
        let value = pair.get(1).cloned().unwrap_or(Value::String(String::new()));
        out.insert(key, value);
    }
    Ok(Value::map(out))
}

fn get(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("get", a, 2)?;
    let d = args::map(&a[0])?;
    let key = args::string(&a[1])?;
    Ok(d.get(key).cloned().unwrap_or(Value::String(String::new())))
}

fn set(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("set", a, 3)?;
    let mut d = args::map(&a[0])?.clone();
    d.insert(args::string(&a[1])?.to_string(), a[2].clone());
    Ok(Value::map(d))
}

fn unset(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("unset", a, 2)?;
    let mut d = args::map(&a[0])?.clone();
    d.remove(args::string(&a[1])?);
    Ok(Value::map(d))
}

fn has_key(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("hasKey", a, 2)?;
    let d = args::map(&a[0])?;
    Ok(Value::Bool(d.contains_key(args::string(&a[1])?)))
}

fn pluck(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    at_least("pluck", a, 1)?;
    let key = args::string(&a[0])?;
    let mut out = Vec::new();
    for d in &a[1..] {
        if let Some(v) = args::map(d)?.get(key) {
            out.push(v.clone());
        }
    }
    Ok(Value::List(out))
}

/// Go returns keys in random order; sorted keys are one of those orders, and deterministic.
fn keys(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    let mut out = Vec::new();
    for d in a {
        out.extend(args::map(d)?.keys().map(|k| Value::String(k.clone())));
    }
    Ok(Value::List(out))
}

fn values(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("values", a, 1)?;
    Ok(Value::List(args::map(&a[0])?.values().cloned().collect()))
}

fn pick(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    at_least("pick", a, 1)?;
    let d = args::map(&a[0])?;
    let mut out = BTreeMap::new();
    for k in &a[1..] {
        let k = args::string(k)?;
        if let Some(v) = d.get(k) {
            out.insert(k.to_string(), v.clone());
        }
    }
    Ok(Value::map(out))
}

fn omit(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    at_least("omit", a, 1)?;
    let d = args::map(&a[0])?;
    let drop = a[1..]
        .iter()
        .map(args::string)
        .collect::<Result<Vec<_>>>()?;
    Ok(Value::map(
        d.iter()
            .filter(|(k, _)| !drop.contains(&k.as_str()))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect(),
    ))
}

/// `mergo.Merge` (and `WithOverride`) on `map[string]interface{}`: nested maps merge key by key;
/// without override a key is only filled when missing or empty in `dst`; with override scalars
/// and lists from `src` replace, while a non-empty `dst` value is never replaced by a map.
pub(crate) fn mergo(
    dst: &mut BTreeMap<String, Value>,
    src: &BTreeMap<String, Value>,
    overwrite: bool,
) {
    for (key, s) in src {
        let d = dst.get_mut(key);
        match (s, d) {
            (Value::Nil, _) => {
                if overwrite {
                    dst.insert(key.clone(), Value::Nil);
                }
            }
            (Value::Map(sm), Some(Value::Map(dm))) if !dm.is_empty() => {
                mergo(std::sync::Arc::make_mut(dm), sm, overwrite)
            }
            (Value::Map(_), Some(d)) if !overwrite && !is_empty(d) => {}
            (Value::List(_), Some(d)) if !is_empty(d) && !overwrite => {}
            (_, Some(d)) if !overwrite && !is_empty(d) => {}
            (s, _) => {
                dst.insert(key.clone(), s.clone());
            }
        }
    }
}

fn merge_with(name: &str, a: &[Value], overwrite: bool) -> Result<Value> {
    at_least(name, a, 1)?;
    let mut dst = args::map(&a[0])?.clone();
    for s in &a[1..] {
        match s {
            Value::Map(m) => mergo(&mut dst, m, overwrite),
            Value::Nil => {}
            _ => return err("src and dst must be of same type"),
        }
    }
    Ok(Value::map(dst))
}

fn merge(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    merge_with("merge", a, false)
}

fn merge_overwrite(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    merge_with("mergeOverwrite", a, true)
}

fn deep_copy(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("deepCopy", a, 1)?;
    Ok(a[0].clone())
}

fn must_deep_copy(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("mustDeepCopy", a, 1)?;
    if matches!(a[0], Value::Nil) {
        return err("copy: Must copy non-nil value");
    }
    Ok(a[0].clone())
}

/// `dig "a" "b" default dict`: walks nested maps, giving the default when a key is missing.
fn dig(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    at_least("dig", a, 3)?;
    let n = a.len();
    let d = args::map(&a[n - 1])?;
    let default = &a[n - 2];
    let path = a[..n - 2]
        .iter()
        .map(args::string)
        .collect::<Result<Vec<_>>>()?;
    let mut cur = d;
    for (i, key) in path.iter().enumerate() {
        match cur.get(*key) {
            None => return Ok(default.clone()),
            Some(v) if i + 1 == path.len() => return Ok(v.clone()),
            Some(Value::Map(m)) => cur = m,
            Some(_) => {
                return err("interface conversion: interface {} is not map[string]interface {}")
            }
        }
    }
    Ok(default.clone())
}
