//! Argument handling shared by the function libraries: Go's call rules as `text/template` applies
//! them (argument counts, parameter types) and `spf13/cast`'s lenient conversions used by Sprig.
//!
//! Not for: formatting values (see `gofmt`).

use super::super::value::Value;
use super::gofmt::type_name;
use super::FuncError;

pub(super) type Result<T> = std::result::Result<T, FuncError>;

pub(super) fn err<T>(msg: impl Into<String>) -> Result<T> {
    Err(FuncError(msg.into()))
}

/// Exactly `n` arguments, with `text/template`'s message otherwise.
pub(super) fn exact(name: &str, args: &[Value], n: usize) -> Result<()> {
    if args.len() != n {
        return err(format!(
            "wrong number of args for {name}: want {n} got {}",
            args.len()
        ));
    }
    Ok(())
}

/// At least `n` arguments (a variadic Go function).
pub(crate) fn at_least(name: &str, args: &[Value], n: usize) -> Result<()> {
    if args.len() < n {
        return err(format!(
            "wrong number of args for {name}: want at least {n} got {}",
            args.len()
        ));
    }
    Ok(())
}

fn wrong_type(expected: &str, got: &Value) -> FuncError {
    match got {
        Value::Nil => FuncError(format!("invalid value; expected {expected}")),
        other => FuncError(format!(
            "wrong type for value; expected {expected}; got {}",
            type_name(other)
        )),
    }
}

/// A Go `string` parameter.
pub(super) fn string(v: &Value) -> Result<&str> {
    match v {
        Value::String(s) => Ok(s),
        other => Err(wrong_type("string", other)),
    }
}

/// A Go `int` parameter.
pub(super) fn int(v: &Value) -> Result<i64> {
    match v {
        Value::Int(i) => Ok(*i),
        other => Err(wrong_type("int", other)),
    }
}

/// A Go `float64` parameter (integer constants convert).
pub(crate) fn float(v: &Value) -> Result<f64> {
    match v {
        Value::Float(f) => Ok(*f),
        Value::Int(i) => Ok(*i as f64),
        other => Err(wrong_type("float64", other)),
    }
}

/// A Go `bool` parameter.
pub(super) fn boolean(v: &Value) -> Result<bool> {
    match v {
        Value::Bool(b) => Ok(*b),
        other => Err(wrong_type("bool", other)),
    }
}

/// A Go `map[string]interface{}` parameter.
pub(super) fn map(v: &Value) -> Result<&std::collections::BTreeMap<String, Value>> {
    match v {
        Value::Map(m) => Ok(m),
        other => Err(wrong_type("map[string]interface {}", other)),
    }
}

/// Trims a trailing ".000" as `cast` does before parsing integers.
fn trim_zero_decimal(s: &str) -> &str {
    match s.split_once('.') {
        Some((int, frac)) if !frac.is_empty() && frac.bytes().all(|b| b == b'0') => int,
        _ => s,
    }
}

/// `strconv.ParseInt(s, 0, 64)`: base prefixes, underscores only with a prefix, optional sign.
pub(crate) fn parse_go_int(s: &str) -> Option<i64> {
    let (neg, body) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let lower = body.to_ascii_lowercase();
    let (radix, digits) = if let Some(rest) = lower.strip_prefix("0x") {
        (16, rest.to_string())
    } else if let Some(rest) = lower.strip_prefix("0b") {
        (2, rest.to_string())
    } else if let Some(rest) = lower.strip_prefix("0o") {
        (8, rest.to_string())
    } else if lower.len() > 1 && lower.starts_with('0') {
        (8, lower[1..].to_string())
    } else {
        (10, lower.clone())
    };
    let digits = if radix != 10 || body.len() != digits.len() {
        digits.replace('_', "")
    } else {
        digits
    };
    if digits.is_empty() || digits.starts_with('+') || digits.starts_with('-') {
        return None;
    }
    let magnitude = i128::from_str_radix(&digits, radix).ok()?;
    let value = if neg { -magnitude } else { magnitude };
    i64::try_from(value).ok()
}

/// `cast.ToInt64`: numbers truncate, strings parse (base prefixes allowed), failures give 0.
pub(crate) fn to_int64(v: &Value) -> i64 {
    match v {
        Value::Int(i) => *i,
        // Go's conversion on amd64: a float out of int64's range (or not finite) gives the
        // "integer indefinite" value, the smallest int64
        Value::Float(f) if (-9.223_372_036_854_776e18..9.223_372_036_854_776e18).contains(f) => {
            *f as i64
        }
        Value::Float(_) => i64::MIN,
        Value::Bool(b) => i64::from(*b),
        Value::String(s) => parse_go_int(trim_zero_decimal(s)).unwrap_or(0),
        _ => 0,
    }
}

/// `cast.ToFloat64`: numbers convert, strings parse, failures give 0.
pub(crate) fn to_float64(v: &Value) -> f64 {
    match v {
        Value::Int(i) => *i as f64,
        Value::Float(f) => *f,
        Value::Bool(b) => f64::from(u8::from(*b)),
        Value::String(s) => parse_go_float(s).unwrap_or(0.0),
        _ => 0.0,
    }
}

/// `strconv.ParseFloat(s, 64)` for the forms Go accepts (decimal, exponent, Inf, NaN).
pub(crate) fn parse_go_float(s: &str) -> Option<f64> {
    let lower = s.to_ascii_lowercase();
    let body = lower.trim_start_matches(['+', '-']);
    match body {
        "inf" | "infinity" => {
            return Some(if lower.starts_with('-') {
                f64::NEG_INFINITY
            } else {
                f64::INFINITY
            })
        }
        "nan" => return Some(f64::NAN),
        _ => {}
    }
    if body.is_empty()
        || !body
            .bytes()
            .all(|b| b.is_ascii_digit() || b"._e+-".contains(&b))
    {
        return None;
    }
    s.replace('_', "").parse::<f64>().ok()
}
