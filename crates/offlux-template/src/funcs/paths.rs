//! Sprig's path functions (Go's `path` and, on Unix, `path/filepath`) and URL functions
//! (`urlParse`, `urlJoin`, after Go's `net/url`).
//!
//! Not for: anything touching the file system.

use std::collections::BTreeMap;

use super::super::value::Value;
use super::args::{self, exact, Result};
use super::{FuncEnv, Function};

pub(crate) const FUNCTIONS: &[(&str, Function)] = &[
    ("base", base),
    ("dir", dir),
    ("clean", clean),
    ("ext", ext),
    ("isAbs", is_abs),
    ("osBase", base),
    ("osDir", dir),
    ("osClean", clean),
    ("osExt", ext),
    ("osIsAbs", is_abs),
    ("urlParse", url_parse),
    ("urlJoin", url_join),
];

/// `path.Clean`: lexical simplification of `.`/`..` and repeated slashes.
pub(crate) fn clean_path(p: &str) -> String {
    if p.is_empty() {
        return ".".into();
    }
    let rooted = p.starts_with('/');
    let mut parts: Vec<&str> = Vec::new();
    for seg in p.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                if parts.last().is_some_and(|l| *l != "..") {
                    parts.pop();
                } else if !rooted {
                    parts.push("..");
                }
            }
            s => parts.push(s),
        }
    }
    let joined = parts.join("/");
    match (rooted, joined.is_empty()) {
        (true, _) => format!("/{joined}"),
        (false, true) => ".".into(),
        (false, false) => joined,
    }
}

fn one<'a>(name: &str, a: &'a [Value]) -> Result<&'a str> {
    exact(name, a, 1)?;
    args::string(&a[0])
}

fn base(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    let p = one("base", a)?;
    if p.is_empty() {
        return Ok(Value::String(".".into()));
    }
    let trimmed = p.trim_end_matches('/');
    if trimmed.is_empty() {
        return Ok(Value::String("/".into()));
    }
    Ok(Value::String(
        trimmed.rsplit('/').next().unwrap_or(trimmed).to_string(),
    ))
}

fn dir(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    let p = one("dir", a)?;
    let head = match p.rfind('/') {
        Some(i) => &p[..=i],
        None => "",
    };
    Ok(Value::String(clean_path(head)))
}

fn clean(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    Ok(Value::String(clean_path(one("clean", a)?)))
}

fn ext(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    let p = one("ext", a)?;
    for (i, c) in p.char_indices().rev() {
        if c == '/' {
            break;
        }
        if c == '.' {
            return Ok(Value::String(p[i..].to_string()));
        }
    }
    Ok(Value::String(String::new()))
}

fn is_abs(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    Ok(Value::Bool(one("isAbs", a)?.starts_with('/')))
}

/// The parts of a URL as `net/url.Parse` splits it.
#[derive(Default)]
struct Url {
    scheme: String,
    opaque: String,
    userinfo: String,
    host: String,
    path: String,
    query: String,
    fragment: String,
}

fn parse_url(raw: &str) -> Url {
    let mut u = Url::default();
    let (rest, fragment) = match raw.split_once('#') {
        Some((r, f)) => (r, f.to_string()),
        None => (raw, String::new()),
    };
    u.fragment = fragment;
    let mut rest = rest.to_string();
    if let Some(i) = rest.find(':') {
        let candidate = &rest[..i];
        let valid = candidate
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic())
            && candidate
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c));
        if valid {
            u.scheme = candidate.to_ascii_lowercase();
            rest = rest[i + 1..].to_string();
        }
    }
    if let Some((r, q)) = rest.split_once('?') {
        u.query = q.to_string();
        rest = r.to_string();
    }
    if !u.scheme.is_empty() && !rest.starts_with('/') {
        u.opaque = rest;
        return u;
    }
    if let Some(after) = rest.strip_prefix("//") {
        let (authority, path) = match after.find('/') {
            Some(i) => (&after[..i], &after[i..]),
            None => (after, ""),
        };
        match authority.rsplit_once('@') {
            Some((user, host)) => {
                u.userinfo = user.to_string();
                u.host = host.to_string();
            }
            None => u.host = authority.to_string(),
        }
        u.path = path.to_string();
    } else {
        u.path = rest;
    }
    u
}

fn url_parse(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    let u = parse_url(one("urlParse", a)?);
    let hostname = match u.host.strip_prefix('[') {
        Some(v6) => v6.split(']').next().unwrap_or_default().to_string(),
        None => u.host.split(':').next().unwrap_or_default().to_string(),
    };
    let mut m = BTreeMap::new();
    for (k, v) in [
        ("scheme", u.scheme),
        ("host", u.host),
        ("hostname", hostname),
        ("path", u.path),
        ("query", u.query),
        ("opaque", u.opaque),
        ("fragment", u.fragment),
        ("userinfo", u.userinfo),
    ] {
        m.insert(k.to_string(), Value::String(v));
    }
    Ok(Value::map(m))
}

/// `url.URL.String()` over the parts in a dictionary, as `urlJoin` builds it.
fn url_join(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("urlJoin", a, 1)?;
    let d = args::map(&a[0])?;
    let field = |k: &str| -> String {
        match d.get(k) {
            Some(Value::String(s)) => s.clone(),
            _ => String::new(),
        }
    };
    let mut out = String::new();
    let scheme = field("scheme");
    if !scheme.is_empty() {
        out.push_str(&scheme);
        out.push(':');
    }
    let opaque = field("opaque");
    if !opaque.is_empty() {
        out.push_str(&opaque);
    } else {
        let host = field("host");
        let user = field("userinfo");
        if !scheme.is_empty() || !host.is_empty() || !user.is_empty() {
            out.push_str("//");
            if !user.is_empty() {
                out.push_str(&user);
                out.push('@');
            }
            out.push_str(&host);
        }
        let path = field("path");
        if !path.is_empty() && !path.starts_with('/') && !host.is_empty() {
            out.push('/');
        }
        out.push_str(&path);
    }
    let query = field("query");
    if !query.is_empty() {
        out.push('?');
        out.push_str(&query);
    }
    let fragment = field("fragment");
    if !fragment.is_empty() {
        out.push('#');
        out.push_str(&fragment);
    }
    Ok(Value::String(out))
}
