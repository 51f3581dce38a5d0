//! Sprig's regular-expression functions. The `regex` crate follows RE2 as Go's `regexp` does, and
//! its `$1`/`${name}` expansion takes the longest name as Go's does (`$1W` names group `1W`).
//!
//! Not for: plain string matching (see `strings`).

use regex::Regex;

use super::super::value::Value;
use super::args::{self, exact, Result};
use super::{FuncEnv, FuncError, Function};

pub(crate) const FUNCTIONS: &[(&str, Function)] = &[
    ("regexMatch", regex_match),
    ("mustRegexMatch", must_regex_match),
    ("regexFindAll", regex_find_all),
    ("mustRegexFindAll", must_regex_find_all),
    ("regexFind", regex_find),
    ("mustRegexFind", must_regex_find),
    ("regexReplaceAll", regex_replace_all),
    ("mustRegexReplaceAll", must_regex_replace_all),
    ("regexReplaceAllLiteral", regex_replace_all_literal),
    ("mustRegexReplaceAllLiteral", must_regex_replace_all_literal),
    ("regexSplit", regex_split),
    ("mustRegexSplit", must_regex_split),
    ("regexQuoteMeta", regex_quote_meta),
];

fn compile(pattern: &str) -> Result<Regex> {
    Regex::new(pattern).map_err(|e| {
        FuncError(format!(
            "error parsing regexp: {}",
            e.to_string().lines().last().unwrap_or_default().trim()
        ))
    })
}

/// Runs a regex function; the plain forms turn a bad pattern into `fallback`, as Sprig does.
fn run(
    name: &str,
    a: &[Value],
    n: usize,
    must: bool,
    fallback: impl FnOnce() -> Value,
    f: impl FnOnce(&Regex, &[Value]) -> Result<Value>,
) -> Result<Value> {
    exact(name, a, n)?;
    let pattern = args::string(&a[0])?;
    for v in &a[1..] {
        if !matches!(v, Value::Int(_)) {
            args::string(v)?;
        }
    }
    match compile(pattern) {
        Ok(re) => f(&re, &a[1..]),
        Err(e) if must => Err(e),
        Err(_) => Ok(fallback()),
    }
}

fn strings(items: Vec<&str>) -> Value {
    Value::List(items.into_iter().map(|s| Value::String(s.into())).collect())
}

fn is_match(name: &str, a: &[Value], must: bool) -> Result<Value> {
    run(
        name,
        a,
        2,
        must,
        || Value::Bool(false),
        |re, r| Ok(Value::Bool(re.is_match(args::string(&r[0])?))),
    )
}

fn regex_match(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    is_match("regexMatch", a, false)
}

fn must_regex_match(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    is_match("mustRegexMatch", a, true)
}

fn find_all(name: &str, a: &[Value], must: bool) -> Result<Value> {
    run(
        name,
        a,
        3,
        must,
        || Value::List(Vec::new()),
        |re, r| {
            let text = args::string(&r[0])?;
            let n = args::int(&r[1])?;
            let found = re.find_iter(text).map(|m| m.as_str());
            Ok(strings(if n < 0 {
                found.collect()
            } else {
                found.take(n as usize).collect()
            }))
        },
    )
}

fn regex_find_all(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    find_all("regexFindAll", a, false)
}

fn must_regex_find_all(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    find_all("mustRegexFindAll", a, true)
}

fn find(name: &str, a: &[Value], must: bool) -> Result<Value> {
    run(
        name,
        a,
        2,
        must,
        || Value::String(String::new()),
        |re, r| {
            let text = args::string(&r[0])?;
            Ok(Value::String(
                re.find(text).map(|m| m.as_str()).unwrap_or_default().into(),
            ))
        },
    )
}

fn regex_find(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    find("regexFind", a, false)
}

fn must_regex_find(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    find("mustRegexFind", a, true)
}

fn replace(name: &str, a: &[Value], must: bool, literal: bool) -> Result<Value> {
    run(
        name,
        a,
        3,
        must,
        || Value::String(String::new()),
        |re, r| {
            let text = args::string(&r[0])?;
            let repl = args::string(&r[1])?;
            let out = if literal {
                re.replace_all(text, regex::NoExpand(repl))
            } else {
                re.replace_all(text, repl)
            };
            Ok(Value::String(out.into_owned()))
        },
    )
}

fn regex_replace_all(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    replace("regexReplaceAll", a, false, false)
}

fn must_regex_replace_all(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    replace("mustRegexReplaceAll", a, true, false)
}

fn regex_replace_all_literal(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    replace("regexReplaceAllLiteral", a, false, true)
}

fn must_regex_replace_all_literal(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    replace("mustRegexReplaceAllLiteral", a, true, true)
}

/// `regexp.Regexp.Split`, including its edge cases (an empty input gives one empty string).
fn go_split<'a>(re: &Regex, text: &'a str, n: i64) -> Vec<&'a str> {
    if n == 0 {
        return Vec::new();
    }
    if !re.as_str().is_empty() && text.is_empty() {
        return vec![""];
    }
    let mut out = Vec::new();
    let (mut beg, mut end) = (0, 0);
    for m in re.find_iter(text) {
        if n > 0 && out.len() as i64 == n - 1 {
            break;
        }
        end = m.start();
        if m.end() != 0 {
            out.push(&text[beg..end]);
        }
        beg = m.end();
    }
    if end != text.len() {
        out.push(&text[beg..]);
    }
    out
}

fn split(name: &str, a: &[Value], must: bool) -> Result<Value> {
    run(
        name,
        a,
        3,
        must,
        || Value::List(Vec::new()),
        |re, r| {
            let text = args::string(&r[0])?;
            let n = args::int(&r[1])?;
            Ok(strings(go_split(re, text, n)))
        },
    )
}

fn regex_split(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    split("regexSplit", a, false)
}

fn must_regex_split(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    split("mustRegexSplit", a, true)
}

fn regex_quote_meta(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("regexQuoteMeta", a, 1)?;
    let text = args::string(&a[0])?;
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if "\\.+*?()|[]{}^$".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    Ok(Value::String(out))
}
