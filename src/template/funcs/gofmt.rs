//! Go's printing and reflection vocabulary for template values: `fmt`'s `%v`, `%T`, reflect kinds,
//! Sprig's string coercions and "empty", and `encoding/json`'s encoder and decoder.
//!
//! Not for: YAML or TOML (see the sibling modules).

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::super::value::Value;

/// `fmt.Sprint(v)` / `%v` (the executor's `Display`).
pub fn sprint(v: &Value) -> String {
    v.to_string()
}

/// The decimal digits and exponent of the shortest representation that round-trips: `d.ddd × 10^exp`.
fn shortest_digits(f: f64) -> (String, i32) {
    let s = format!("{:e}", f.abs());
    let (mant, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let digits: String = mant.chars().filter(|c| c.is_ascii_digit()).collect();
    (digits, exp.parse().unwrap_or(0))
}

/// `strconv.FormatFloat(f, 'g', -1, 64)`, which is also what `%v` prints.
pub fn format_float_g(f: f64) -> String {
    if f.is_nan() {
        return "NaN".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { "+Inf" } else { "-Inf" }.into();
    }
    if f == 0.0 {
        return if f.is_sign_negative() { "-0" } else { "0" }.into();
    }
    let (digits, exp) = shortest_digits(f);
    let sign = if f < 0.0 { "-" } else { "" };
    // Shortest %g switches to exponent form below 1e-4 and from 1e6 on (hence Helm's "1e+06").
    if !(-4..6).contains(&exp) {
        return format_exp(sign, &digits, exp);
    }
    format_fixed(sign, &digits, exp)
}

fn format_exp(sign: &str, digits: &str, exp: i32) -> String {
    let mut out = String::from(sign);
    let (first, rest) = digits.split_at(1.min(digits.len()));
    out.push_str(first);
    if !rest.is_empty() {
        out.push('.');
        out.push_str(rest);
    }
    out.push('e');
    out.push(if exp < 0 { '-' } else { '+' });
    let _ = write!(out, "{:02}", exp.abs());
    out
}

fn format_fixed(sign: &str, digits: &str, exp: i32) -> String {
    let mut out = String::from(sign);
    if exp < 0 {
        out.push_str("0.");
        for _ in 0..(-exp - 1) {
            out.push('0');
        }
        out.push_str(digits);
    } else {
        let int_len = exp as usize + 1;
        if digits.len() <= int_len {
            out.push_str(digits);
            for _ in digits.len()..int_len {
                out.push('0');
            }
        } else {
            out.push_str(&digits[..int_len]);
            out.push('.');
            out.push_str(&digits[int_len..]);
        }
    }
    out
}

/// `strconv.FormatFloat(f, 'f', -1, 64)`.
pub fn format_float_f(f: f64) -> String {
    if !f.is_finite() {
        return format_float_g(f);
    }
    if f == 0.0 {
        return "0".into();
    }
    let (digits, exp) = shortest_digits(f);
    format_fixed(if f < 0.0 { "-" } else { "" }, &digits, exp)
}

/// Sprig's `strval`: strings as they are, everything else through `%v`.
pub fn strval(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => sprint(other),
    }
}

/// Sprig's `strslice`: a list's elements as strings (nils dropped), a nil as no strings, and any
/// other value as a one-element list.
pub fn strslice(v: &Value) -> Vec<String> {
    match v {
        Value::List(items) => items
            .iter()
            .filter(|i| !matches!(i, Value::Nil))
            .map(strval)
            .collect(),
        Value::Nil => Vec::new(),
        other => vec![strval(other)],
    }
}

/// `fmt.Sprintf("%T", v)`.
pub fn type_name(v: &Value) -> &'static str {
    v.go_type_name()
}

/// `reflect.ValueOf(v).Kind().String()`.
pub fn kind_name(v: &Value) -> &'static str {
    match v {
        Value::Nil => "invalid",
        Value::Bool(_) => "bool",
        Value::Int(_) => "int",
        Value::Float(_) => "float64",
        Value::String(_) => "string",
        Value::List(_) => "slice",
        Value::Map(_) => "map",
        Value::Complex(..) => "complex128",
    }
}

/// Sprig's `empty`: Go's zero values and empty collections.
pub fn is_empty(v: &Value) -> bool {
    !v.is_truthy()
}

/// Options of the JSON encoder.
#[derive(Clone, Copy)]
pub struct JsonStyle {
    /// `<`, `>` and `&` as `\u003c`... (Go's default; off for `toRawJson`).
    pub escape_html: bool,
    /// Two-space indentation, as `json.MarshalIndent(v, "", "  ")`.
    pub pretty: bool,
}

/// `json.Marshal` with Go's key order (sorted) and escaping; NaN and infinities are errors as in Go.
pub fn to_json(v: &Value, style: JsonStyle) -> Result<String, String> {
    let mut out = String::new();
    write_json(&mut out, v, style, 0)?;
    Ok(out)
}

fn newline_indent(out: &mut String, depth: usize) {
    out.push('\n');
    for _ in 0..depth {
        out.push_str("  ");
    }
}

fn write_json(out: &mut String, v: &Value, style: JsonStyle, depth: usize) -> Result<(), String> {
    match v {
        Value::Nil => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Int(i) => {
            let _ = write!(out, "{i}");
        }
        Value::Float(f) => out.push_str(&json_float(*f)?),
        Value::Complex(..) => return Err("json: unsupported type: complex128".into()),
        Value::String(s) => json_string(out, s, style.escape_html),
        Value::List(items) => {
            if items.is_empty() {
                out.push_str("[]");
                return Ok(());
            }
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                if style.pretty {
                    newline_indent(out, depth + 1);
                }
                write_json(out, item, style, depth + 1)?;
            }
            if style.pretty {
                newline_indent(out, depth);
            }
            out.push(']');
        }
        Value::Map(map) => {
            if map.is_empty() {
                out.push_str("{}");
                return Ok(());
            }
            out.push('{');
            for (i, (k, item)) in map.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                if style.pretty {
                    newline_indent(out, depth + 1);
                }
                json_string(out, k, style.escape_html);
                out.push(':');
                if style.pretty {
                    out.push(' ');
                }
                write_json(out, item, style, depth + 1)?;
            }
            if style.pretty {
                newline_indent(out, depth);
            }
            out.push('}');
        }
    }
    Ok(())
}

/// Go's float encoding: fixed notation unless the magnitude is below 1e-6 or at least 1e21.
pub fn json_float(f: f64) -> Result<String, String> {
    if !f.is_finite() {
        return Err(format!("json: unsupported value: {}", format_float_g(f)));
    }
    let abs = f.abs();
    if abs != 0.0 && !(1e-6..1e21).contains(&abs) {
        let (digits, exp) = shortest_digits(f);
        let mut s = format_exp(if f < 0.0 { "-" } else { "" }, &digits, exp);
        // Go trims the exponent's leading zero: 1e-07 becomes 1e-7.
        if let Some(pos) = s.find("e-0").or_else(|| s.find("e+0")) {
            s.remove(pos + 2);
        }
        return Ok(s);
    }
    Ok(format_float_f(f))
}

fn json_string(out: &mut String, s: &str, escape_html: bool) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '<' | '>' | '&' if escape_html => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            '\u{2028}' | '\u{2029}' => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// `json.Unmarshal` into `interface{}`: numbers become float64, as in Go.
pub fn from_json(text: &str) -> Result<Value, String> {
    let parsed: serde_json::Value = serde_json::from_str(text).map_err(|e| json_error(text, &e))?;
    Ok(from_serde(parsed))
}

fn json_error(text: &str, e: &serde_json::Error) -> String {
    if text.trim().is_empty() {
        return "unexpected end of JSON input".into();
    }
    if e.is_eof() {
        return "unexpected end of JSON input".into();
    }
    let offset = text
        .lines()
        .take(e.line().saturating_sub(1))
        .map(|l| l.len() + 1)
        .sum::<usize>()
        + e.column().saturating_sub(1);
    let ch = text
        .get(offset.min(text.len())..)
        .and_then(|rest| rest.chars().next())
        .unwrap_or(' ');
    let before = text
        .get(..offset.min(text.len()))
        .and_then(|head| head.trim_end().chars().last());
    let expecting = if before == Some('{') {
        "beginning of object key string"
    } else {
        "beginning of value"
    };
    format!("invalid character '{ch}' looking for {expecting}")
}

fn from_serde(v: serde_json::Value) -> Value {
    match v {
        serde_json::Value::Null => Value::Nil,
        serde_json::Value::Bool(b) => Value::Bool(b),
        serde_json::Value::Number(n) => Value::Float(n.as_f64().unwrap_or(0.0)),
        serde_json::Value::String(s) => Value::String(s),
        serde_json::Value::Array(items) => Value::List(items.into_iter().map(from_serde).collect()),
        serde_json::Value::Object(map) => Value::map(
            map.into_iter()
                .map(|(k, v)| (k, from_serde(v)))
                .collect::<BTreeMap<_, _>>(),
        ),
    }
}

/// The Go type name of a decoded JSON value, for `cannot unmarshal X into Go value of type Y`.
pub fn json_kind(v: &Value) -> &'static str {
    match v {
        Value::Nil => "null",
        Value::Bool(_) => "bool",
        Value::Int(_) | Value::Float(_) | Value::Complex(..) => "number",
        Value::String(_) => "string",
        Value::List(_) => "array",
        Value::Map(_) => "object",
    }
}

/// `strconv.Quote`: Go's double-quoted form with its escapes.
pub fn go_quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{7}' => out.push_str("\\a"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{b}' => out.push_str("\\v"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c if is_go_printable(c) => out.push(c),
            c if (c as u32) < 0x10000 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => {
                let _ = write!(out, "\\U{:08x}", c as u32);
            }
        }
    }
    out.push('"');
    out
}

/// An approximation of `unicode.IsPrint`: graphic characters and the ASCII space.
fn is_go_printable(c: char) -> bool {
    let cp = c as u32;
    if cp < 0x80 {
        return (0x20..0x7f).contains(&cp);
    }
    !(c.is_control()
        || c.is_whitespace()
        || (0xfff9..=0xfffb).contains(&cp)
        || (0xe000..=0xf8ff).contains(&cp)
        || cp == 0xad
        || (0x200b..=0x200f).contains(&cp)
        || (0x2028..=0x202e).contains(&cp)
        || (0x2060..=0x206f).contains(&cp)
        || cp == 0xfeff)
}
