//! `semver` and `semverCompare` with Masterminds/semver v3 rules: lenient versions (`v1`, `1.2`),
//! constraints with `=`, `!=`, `>`, `<`, `>=`, `<=`, `~`, `~>`, `^`, wildcards (`1.x`, `*`),
//! hyphen ranges (`1 - 2`), AND by comma or space, OR by `||`, and pre-releases only matching
//! constraints that carry a pre-release themselves.
//!
//! Not for: version objects with methods; `semver` returns a map of the version's fields.

use std::cmp::Ordering;
use std::collections::BTreeMap;

use super::super::value::Value;
use super::args::{self, exact, Result};
use super::{FuncEnv, FuncError, Function};

pub(crate) const FUNCTIONS: &[(&str, Function)] =
    &[("semver", semver), ("semverCompare", semver_compare)];

#[derive(Clone, Debug, PartialEq)]
pub struct Version {
    pub major: u64,
    pub minor: u64,
    pub patch: u64,
    pub pre: String,
    pub metadata: String,
}

fn ident_ok(s: &str) -> bool {
    !s.is_empty()
        && s.split('.')
            .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-'))
}

fn parse_num(s: &str) -> Option<u64> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// `semver.NewVersion`.
pub fn parse_version(text: &str) -> std::result::Result<Version, String> {
    let invalid = || "Invalid Semantic Version".to_string();
    let body = text.strip_prefix('v').unwrap_or(text);
    let (body, metadata) = match body.split_once('+') {
        Some((b, m)) if ident_ok(m) => (b, m.to_string()),
        Some(_) => return Err(invalid()),
        None => (body, String::new()),
    };
    let (core, pre) = match body.split_once('-') {
        Some((c, p)) if ident_ok(p) => (c, p.to_string()),
        Some(_) => return Err(invalid()),
        None => (body, String::new()),
    };
    let nums: Vec<&str> = core.split('.').collect();
    if nums.is_empty() || nums.len() > 3 {
        return Err(invalid());
    }
    let mut parsed = [0u64; 3];
    for (i, n) in nums.iter().enumerate() {
        parsed[i] = parse_num(n).ok_or_else(invalid)?;
    }
    Ok(Version {
        major: parsed[0],
        minor: parsed[1],
        patch: parsed[2],
        pre,
        metadata,
    })
}

fn compare_pre(a: &str, b: &str) -> Ordering {
    match (a.is_empty(), b.is_empty()) {
        (true, true) => return Ordering::Equal,
        (true, false) => return Ordering::Greater,
        (false, true) => return Ordering::Less,
        _ => {}
    }
    let (pa, pb): (Vec<&str>, Vec<&str>) = (a.split('.').collect(), b.split('.').collect());
    for (x, y) in pa.iter().zip(pb.iter()) {
        let ord = match (parse_num(x), parse_num(y)) {
            (Some(i), Some(j)) => i.cmp(&j),
            (Some(_), None) => Ordering::Less,
            (None, Some(_)) => Ordering::Greater,
            (None, None) => x.cmp(y),
        };
        if ord != Ordering::Equal {
            return ord;
        }
    }
    pa.len().cmp(&pb.len())
}

pub fn compare(a: &Version, b: &Version) -> Ordering {
    (a.major, a.minor, a.patch)
        .cmp(&(b.major, b.minor, b.patch))
        .then_with(|| compare_pre(&a.pre, &b.pre))
}

#[derive(Clone, Copy, PartialEq)]
enum Op {
    Eq,
    Ne,
    Gt,
    Lt,
    Ge,
    Le,
    Tilde,
    Caret,
}

struct Constraint {
    op: Op,
    con: Version,
    minor_dirty: bool,
    patch_dirty: bool,
    dirty: bool,
}

fn is_x(s: &str) -> bool {
    matches!(s, "x" | "X" | "*")
}

fn parse_constraint(text: &str) -> std::result::Result<Constraint, String> {
    let t = text.trim();
    let ops: [(&str, Op); 12] = [
        ("!=", Op::Ne),
        (">=", Op::Ge),
        ("=>", Op::Ge),
        ("<=", Op::Le),
        ("=<", Op::Le),
        ("~>", Op::Tilde),
        (">", Op::Gt),
        ("<", Op::Lt),
        ("=", Op::Eq),
        ("~", Op::Tilde),
        ("^", Op::Caret),
        ("", Op::Eq),
    ];
    let (op, rest) = ops
        .iter()
        .find_map(|(p, op)| t.strip_prefix(p).map(|r| (*op, r.trim())))
        .unwrap_or((Op::Eq, t));
    let bad = || format!("improper constraint: {text}");
    let body = rest.strip_prefix('v').unwrap_or(rest);
    let (core, tail) = match body.find(['-', '+']) {
        Some(i) => (&body[..i], &body[i..]),
        None => (body, ""),
    };
    let parts: Vec<&str> = core.split('.').collect();
    if parts.is_empty() || parts.len() > 3 || parts.iter().any(|p| p.is_empty()) {
        return Err(bad());
    }
    let (mut minor_dirty, mut patch_dirty, mut dirty) = (false, false, false);
    // A wildcard or a missing part makes the constraint a range ("dirty"), for every operator.
    let ver = if is_x(parts[0]) {
        dirty = true;
        format!("0.0.0{tail}")
    } else if parts.get(1).is_none_or(|p| is_x(p)) {
        dirty = true;
        minor_dirty = true;
        format!("{}.0.0{tail}", parts[0])
    } else if parts.get(2).is_none_or(|p| is_x(p)) {
        dirty = true;
        patch_dirty = true;
        format!("{}.{}.0{tail}", parts[0], parts[1])
    } else {
        body.to_string()
    };
    let con = parse_version(&ver).map_err(|_| bad())?;
    Ok(Constraint {
        op,
        con,
        minor_dirty,
        patch_dirty,
        dirty,
    })
}

fn tilde(v: &Version, c: &Constraint) -> bool {
    if compare(v, &c.con) == Ordering::Less {
        return false;
    }
    if c.con.major == 0 && c.con.minor == 0 && c.con.patch == 0 && !c.minor_dirty && !c.patch_dirty
    {
        return true;
    }
    if v.major != c.con.major {
        return false;
    }
    if v.minor != c.con.minor && !c.minor_dirty {
        return false;
    }
    true
}

/// One constraint; `include_pre` says whether its AND group admits pre-releases (it does when
/// any constraint of the group names one).
fn check(v: &Version, c: &Constraint, include_pre: bool) -> bool {
    if !v.pre.is_empty() && !include_pre {
        return false;
    }
    let ord = compare(v, &c.con);
    match c.op {
        Op::Eq => {
            if c.dirty {
                tilde(v, c)
            } else {
                ord == Ordering::Equal
            }
        }
        Op::Ne => {
            if c.dirty {
                if c.con.major != v.major {
                    return true;
                }
                if c.minor_dirty {
                    return false;
                }
                if c.con.minor != v.minor {
                    return true;
                }
                if !c.patch_dirty {
                    return c.con.patch != v.patch || ord != Ordering::Equal;
                }
                return compare_pre(&v.pre, &c.con.pre) != Ordering::Equal;
            }
            ord != Ordering::Equal
        }
        Op::Gt => {
            if !c.dirty {
                return ord == Ordering::Greater;
            }
            if v.major != c.con.major {
                return v.major > c.con.major;
            }
            if c.minor_dirty {
                return false;
            }
            if c.patch_dirty {
                return v.minor > c.con.minor;
            }
            ord == Ordering::Greater
        }
        Op::Lt => ord == Ordering::Less,
        Op::Ge => ord != Ordering::Less,
        Op::Le => {
            if !c.dirty {
                return ord != Ordering::Greater;
            }
            if v.major > c.con.major {
                return false;
            }
            !(v.major == c.con.major && v.minor > c.con.minor && !c.minor_dirty)
        }
        Op::Tilde => tilde(v, c),
        Op::Caret => {
            if ord == Ordering::Less {
                return false;
            }
            if c.con.major > 0 || c.minor_dirty {
                return v.major == c.con.major;
            }
            if c.con.minor > 0 || c.patch_dirty {
                return v.major == 0 && v.minor == c.con.minor;
            }
            v.major == 0 && v.minor == 0 && v.patch == c.con.patch
        }
    }
}

/// Splits one `||` alternative into its constraints, joining a lone operator with the version
/// after it and expanding `a - b` into `>= a, <= b`.
fn and_terms(alt: &str) -> std::result::Result<Vec<String>, String> {
    let tokens: Vec<&str> = alt
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter(|t| !t.is_empty())
        .collect();
    let mut terms: Vec<String> = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        let tok = tokens[i];
        if tokens.get(i + 1) == Some(&"-") {
            let upper = tokens
                .get(i + 2)
                .ok_or_else(|| format!("improper constraint: {alt}"))?;
            terms.push(format!(">={tok}"));
            terms.push(format!("<={upper}"));
            i += 3;
            continue;
        }
        if tok.chars().all(|c| "=!<>~^".contains(c)) {
            let next = tokens
                .get(i + 1)
                .ok_or_else(|| format!("improper constraint: {alt}"))?;
            terms.push(format!("{tok}{next}"));
            i += 2;
            continue;
        }
        terms.push(tok.to_string());
        i += 1;
    }
    if terms.is_empty() {
        return Err(format!("improper constraint: {alt}"));
    }
    Ok(terms)
}

/// `semver.NewConstraint(c).Check(v)`.
pub fn satisfies(constraint: &str, version: &Version) -> std::result::Result<bool, String> {
    let mut any = false;
    for alt in constraint.split("||") {
        let group = and_terms(alt)?
            .iter()
            .map(|t| parse_constraint(t))
            .collect::<std::result::Result<Vec<_>, _>>()?;
        let include_pre = group.iter().any(|c| !c.con.pre.is_empty());
        any |= group.iter().all(|c| check(version, c, include_pre));
    }
    Ok(any)
}

fn semver(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("semver", a, 1)?;
    let text = args::string(&a[0])?;
    let v = parse_version(text).map_err(FuncError)?;
    let mut m = BTreeMap::new();
    m.insert("Major".into(), Value::Int(v.major as i64));
    m.insert("Minor".into(), Value::Int(v.minor as i64));
    m.insert("Patch".into(), Value::Int(v.patch as i64));
    m.insert("Prerelease".into(), Value::String(v.pre));
    m.insert("Metadata".into(), Value::String(v.metadata));
    m.insert("Original".into(), Value::String(text.into()));
    Ok(Value::map(m))
}

fn semver_compare(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("semverCompare", a, 2)?;
    let constraint = args::string(&a[0])?;
    let version = args::string(&a[1])?;
    // Go parses the constraint first, so a bad constraint is reported before a bad version.
    satisfies(constraint, &parse_version("0.0.0").map_err(FuncError)?).map_err(FuncError)?;
    let v = parse_version(version).map_err(FuncError)?;
    satisfies(constraint, &v)
        .map(Value::Bool)
        .map_err(FuncError)
}

/// The version a `semver` result stands for, when `v` is one.
fn version_of(v: &Value) -> Option<Version> {
    let Value::Map(m) = v else {
        return None;
    };
    let num = |k: &str| match m.get(k) {
        Some(Value::Int(i)) => u64::try_from(*i).ok(),
        _ => None,
    };
    let text = |k: &str| match m.get(k) {
        Some(Value::String(s)) => Some(s.clone()),
        _ => None,
    };
    text("Original")?;
    Some(Version {
        major: num("Major")?,
        minor: num("Minor")?,
        patch: num("Patch")?,
        pre: text("Prerelease")?,
        metadata: text("Metadata")?,
    })
}

fn version_string(v: &Version) -> String {
    let mut out = format!("{}.{}.{}", v.major, v.minor, v.patch);
    if !v.pre.is_empty() {
        out.push('-');
        out.push_str(&v.pre);
    }
    if !v.metadata.is_empty() {
        out.push('+');
        out.push_str(&v.metadata);
    }
    out
}

/// Methods of Masterminds' `*semver.Version` on what `semver` returns (`Compare`, `Equal`,
/// `LessThan`, `GreaterThan`, `String`), for the executor's method hook.
pub(crate) fn version_method(recv: &Value, name: &str, args: &[Value]) -> Option<Result<Value>> {
    let v = version_of(recv)?;
    let other = || -> Result<Version> {
        exact(name, args, 1)?;
        version_of(&args[0]).ok_or_else(|| {
            FuncError(format!(
                "wrong type for value; expected *semver.Version; got {}",
                super::gofmt::type_name(&args[0])
            ))
        })
    };
    let result = match name {
        "Compare" => other().map(|o| {
            Value::Int(match compare(&v, &o) {
                Ordering::Less => -1,
                Ordering::Equal => 0,
                Ordering::Greater => 1,
            })
        }),
        "Equal" => other().map(|o| Value::Bool(compare(&v, &o) == Ordering::Equal)),
        "LessThan" => other().map(|o| Value::Bool(compare(&v, &o) == Ordering::Less)),
        "GreaterThan" => other().map(|o| Value::Bool(compare(&v, &o) == Ordering::Greater)),
        "String" => exact(name, args, 0).map(|()| Value::String(version_string(&v))),
        _ => return None,
    };
    Some(result)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sat(c: &str, v: &str) -> bool {
        satisfies(c, &parse_version(v).unwrap()).unwrap()
    }

    #[test]
    fn constraints_follow_masterminds_v3() {
        assert!(sat(">=1.19-0", "1.20.3-gke.1"));
        assert!(!sat(">=1.19", "1.20.3-gke.1"));
        assert!(sat("^1.2.0", "1.9.9"));
        assert!(!sat("^1.2.0", "2.2.3"));
        assert!(sat("~1.2", "1.2.7"));
        assert!(!sat("~1.2", "1.3.0"));
        assert!(sat("1.x", "1.5.0"));
        assert!(sat(">= 1.2, < 2", "1.5.0"));
        assert!(sat("<1 || >=3", "3.1.0"));
        assert!(sat("1.0 - 2.0", "1.5.0"));
        assert!(!sat("!=1.5.0", "1.5.0"));
        assert!(sat("*", "4.0.0"));
        assert!(sat("1.2", "1.2.9"));
        assert!(!sat("!=1.2", "1.2.9"));
        assert!(sat("<=1.2", "1.2.9"));
        assert!(sat(">=1.0.0-0 <2", "1.5.0-rc.1"));
        assert!(parse_constraint("badConstraint").is_err());
        assert!(satisfies("", &parse_version("1.0.0").unwrap()).is_err());
        assert!(parse_version("badVersion").is_err());
    }
}
