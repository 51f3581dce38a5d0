//! Sprig's list functions. The plain forms report Go's panics as errors too (text/template turns a
//! panicking function into an error), so a plain form and its `must` form behave alike here.
//!
//! Not for: dictionaries (see `dicts`).

use super::super::value::Value;
use super::args::{self, at_least, err, exact, Result};
use super::gofmt::{is_empty, kind_name};
use super::{FuncEnv, Function};

pub(crate) const FUNCTIONS: &[(&str, Function)] = &[
    ("list", list),
    ("tuple", list),
    ("append", push),
    ("push", push),
    ("mustAppend", push),
    ("mustPush", push),
    ("prepend", prepend),
    ("mustPrepend", prepend),
    ("first", first),
    ("mustFirst", first),
    ("rest", rest),
    ("mustRest", rest),
    ("last", last),
    ("mustLast", last),
    ("initial", initial),
    ("mustInitial", initial),
    ("reverse", reverse),
    ("mustReverse", reverse),
    ("uniq", uniq),
    ("mustUniq", uniq),
    ("without", without),
    ("mustWithout", without),
    ("has", has),
    ("mustHas", has),
    ("slice", slice),
    ("mustSlice", slice),
    ("concat", concat),
    ("compact", compact),
    ("mustCompact", compact),
    ("chunk", chunk),
    ("mustChunk", chunk),
];

fn list(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    Ok(Value::List(a.to_vec()))
}

/// The list argument of a list function; other kinds fail with Sprig's message.
fn items<'a>(v: &'a Value, verb: &str) -> Result<&'a [Value]> {
    match v {
        Value::List(l) => Ok(l),
        other => err(format!("Cannot {verb} type {}", kind_name(other))),
    }
}

fn push(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("append", a, 2)?;
    let mut out = items(&a[0], "push on")?.to_vec();
    out.push(a[1].clone());
    Ok(Value::List(out))
}

fn prepend(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("prepend", a, 2)?;
    let mut out = vec![a[1].clone()];
    out.extend_from_slice(items(&a[0], "prepend")?);
    Ok(Value::List(out))
}

fn first(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("first", a, 1)?;
    Ok(items(&a[0], "find first on")?
        .first()
        .cloned()
        .unwrap_or_default())
}

fn last(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("last", a, 1)?;
    Ok(items(&a[0], "find last on")?
        .last()
        .cloned()
        .unwrap_or_default())
}

fn rest(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("rest", a, 1)?;
    let l = items(&a[0], "find rest on")?;
    Ok(Value::List(l.get(1..).unwrap_or_default().to_vec()))
}

fn initial(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("initial", a, 1)?;
    let l = items(&a[0], "find initial on")?;
    Ok(Value::List(l[..l.len().saturating_sub(1)].to_vec()))
}

fn reverse(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("reverse", a, 1)?;
    let mut l = items(&a[0], "find reverse on")?.to_vec();
    l.reverse();
    Ok(Value::List(l))
}

fn uniq(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("uniq", a, 1)?;
    let mut out: Vec<Value> = Vec::new();
    for v in items(&a[0], "find uniq on")? {
        if !out.contains(v) {
            out.push(v.clone());
        }
    }
    Ok(Value::List(out))
}

fn without(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    at_least("without", a, 1)?;
    let omit = &a[1..];
    let l = items(&a[0], "find without on")?;
    Ok(Value::List(
        l.iter().filter(|v| !omit.contains(v)).cloned().collect(),
    ))
}

fn has(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("has", a, 2)?;
    match &a[1] {
        Value::Nil => Ok(Value::Bool(false)),
        other => Ok(Value::Bool(items(other, "find has on")?.contains(&a[0]))),
    }
}

fn slice(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    at_least("slice", a, 1)?;
    let l = items(&a[0], "slice")?;
    // Sprig converts the indices with `cast.ToInt`, so "1" and 1.0 work too.
    let idx: Vec<i64> = a[1..].iter().map(args::to_int64).collect();
    let len = l.len() as i64;
    let (start, end) = match idx.as_slice() {
        [] => (0, len),
        [s] => (*s, len),
        [s, e, ..] => (*s, *e),
    };
    if start < 0 || end < start || end > len {
        return err(format!("reflect: slice index out of range [{start}:{end}]"));
    }
    Ok(Value::List(l[start as usize..end as usize].to_vec()))
}

fn concat(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    let mut out = Vec::new();
    for v in a {
        match v {
            Value::List(l) => out.extend_from_slice(l),
            other => return err(format!("Cannot concat type {} as list", kind_name(other))),
        }
    }
    Ok(Value::List(out))
}

fn compact(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("compact", a, 1)?;
    let l = items(&a[0], "compact")?;
    Ok(Value::List(
        l.iter().filter(|v| !is_empty(v)).cloned().collect(),
    ))
}

fn chunk(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("chunk", a, 2)?;
    let size = args::int(&a[0])?;
    let l = items(&a[1], "chunk")?;
    if size <= 0 {
        return err("runtime error: integer divide by zero");
    }
    Ok(Value::List(
        l.chunks(size as usize)
            .map(|c| Value::List(c.to_vec()))
            .collect(),
    ))
}
