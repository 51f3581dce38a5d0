//! Go's printing and reflection vocabulary for template values: `fmt`'s `Sprint`, `Sprintln` and
//! `Sprintf` with Go's verbs, flags, widths and error markers (`%!d(string=x)`, `%!s(MISSING)`,
//! `%!(EXTRA ...)`), `%T` and reflect kinds, Sprig's string coercions and "empty", and
//! `encoding/json`'s encoder and decoder, so that output matches Go byte for byte. `strconv`'s
//! spellings come from `offlux_go`.
//!
//! Not supported: `%p`, `%#v` beyond a close approximation, and Go-only types. Not for: YAML or
//! TOML (see `funcs`).

use std::collections::BTreeMap;
use std::fmt::Write as _;

use offlux_go::{self as golang, can_backquote, json_float, quote_rune, quote_with};
pub(super) use offlux_go::{format_float_g, quote};

use super::value::Value;

/// Go's `fmt.Sprint`: operands printed with `%v`, a space between two operands when neither is a string.
pub fn sprint(args: &[Value]) -> String {
    let mut out = String::new();
    let mut prev_string = false;
    for (i, arg) in args.iter().enumerate() {
        let is_string = matches!(arg, Value::String(_));
        if i > 0 && !is_string && !prev_string {
            out.push(' ');
        }
        out.push_str(&format_v(arg));
        prev_string = is_string;
    }
    out
}

/// Go's `fmt.Sprintln`: operands printed with `%v`, always separated by spaces, newline appended.
pub(crate) fn sprintln(args: &[Value]) -> String {
    let parts: Vec<String> = args.iter().map(format_v).collect();
    let mut out = parts.join(" ");
    out.push('\n');
    out
}

/// Go's `%v` of a value.
pub(crate) fn format_v(v: &Value) -> String {
    let mut out = String::new();
    print_value(&mut out, v, 'v', &Flags::default());
    out
}

#[derive(Default, Clone)]
struct Flags {
    plus: bool,
    minus: bool,
    sharp: bool,
    space: bool,
    zero: bool,
    width: Option<usize>,
    prec: Option<usize>,
}

/// Go's `fmt.Sprintf`.
pub fn sprintf(format: &str, args: &[Value]) -> String {
    let mut out = String::new();
    let chars: Vec<char> = format.chars().collect();
    let mut i = 0;
    let mut arg_num = 0usize;
    let mut reordered = false;
    while i < chars.len() {
        let c = chars[i];
        if c != '%' {
            out.push(c);
            i += 1;
            continue;
        }
        i += 1;
        let mut fl = Flags::default();
        while let Some(&c) = chars.get(i) {
            match c {
                '#' => fl.sharp = true,
                '0' => fl.zero = !fl.minus,
                '+' => fl.plus = true,
                '-' => {
                    fl.minus = true;
                    fl.zero = false;
                }
                ' ' => fl.space = true,
                _ => break,
            }
            i += 1;
        }
        let mut good_arg = true;
        // Argument index `[n]` before the width.
        if let Some((n, next)) = parse_arg_index(&chars, i) {
            reordered = true;
            i = next;
            match n {
                Some(n) if n >= 1 && n <= args.len() => arg_num = n - 1,
                _ => good_arg = false,
            }
        }
        if chars.get(i) == Some(&'*') {
            i += 1;
            match args.get(arg_num) {
                Some(Value::Int(w)) if !too_large(*w) => {
                    let w = *w;
                    if w < 0 {
                        fl.minus = true;
                        fl.zero = false;
                    }
                    fl.width = Some(w.unsigned_abs() as usize);
                }
                _ => out.push_str("%!(BADWIDTH)"),
            }
            arg_num += 1;
        } else {
            let (n, next) = parse_num(&chars, i);
            fl.width = n;
            i = next;
        }
        if chars.get(i) == Some(&'.') {
            i += 1;
            if let Some((n, next)) = parse_arg_index(&chars, i) {
                reordered = true;
                i = next;
                match n {
                    Some(n) if n >= 1 && n <= args.len() => arg_num = n - 1,
                    _ => good_arg = false,
                }
            }
            if chars.get(i) == Some(&'*') {
                i += 1;
                match args.get(arg_num) {
                    // A negative precision "doesn't make sense" to Go either: absent, and said.
                    Some(Value::Int(p)) if *p >= 0 && !too_large(*p) => fl.prec = Some(*p as usize),
                    _ => out.push_str("%!(BADPREC)"),
                }
                arg_num += 1;
            } else {
                let (n, next) = parse_num(&chars, i);
                fl.prec = Some(n.unwrap_or(0));
                i = next;
            }
        }
        if let Some((n, next)) = parse_arg_index(&chars, i) {
            reordered = true;
            i = next;
            match n {
                Some(n) if n >= 1 && n <= args.len() => arg_num = n - 1,
                _ => good_arg = false,
            }
        }
        let Some(&verb) = chars.get(i) else {
            out.push_str("%!(NOVERB)");
            break;
        };
        i += 1;
        if verb == '%' {
            out.push('%');
            continue;
        }
        if !good_arg {
            out.push_str("%!");
            out.push(verb);
            out.push_str("(BADINDEX)");
            continue;
        }
        match args.get(arg_num) {
            None => {
                out.push_str("%!");
                out.push(verb);
                out.push_str("(MISSING)");
            }
            Some(arg) => {
                arg_num += 1;
                if verb == 'T' {
                    pad(&mut out, arg.go_type_name(), &fl);
                } else {
                    print_value(&mut out, arg, verb, &fl);
                }
            }
        }
    }
    if !reordered && arg_num < args.len() {
        out.push_str("%!(EXTRA ");
        let extra: Vec<String> = args[arg_num..]
            .iter()
            .map(|a| match a {
                Value::Nil => "<nil>".to_string(),
                _ => format!("{}={}", a.go_type_name(), format_v(a)),
            })
            .collect();
        out.push_str(&extra.join(", "));
        out.push(')');
    }
    out
}

/// Parses `[n]` at `i`; returns the index (None when malformed) and the position after it.
fn parse_arg_index(chars: &[char], i: usize) -> Option<(Option<usize>, usize)> {
    if chars.get(i) != Some(&'[') {
        return None;
    }
    let mut j = i + 1;
    while j < chars.len() && chars[j] != ']' {
        j += 1;
    }
    if j >= chars.len() {
        return Some((None, chars.len()));
    }
    let text: String = chars[i + 1..j].iter().collect();
    Some((text.parse::<usize>().ok(), j + 1))
}

/// fmt's `tooLarge`: a width or precision past a million is refused (`%!(BADWIDTH)`,
/// `%!(BADPREC)`), which also bounds what one verb can print.
fn too_large(n: i64) -> bool {
    const MAX: i64 = 1_000_000;
    !(-MAX..=MAX).contains(&n)
}

/// fmt's `parsenum`: the number written at `i` and the position after it. A number that grows
/// past a million before its last digit is "crazy long": Go takes none and skips to the end of
/// the format.
fn parse_num(chars: &[char], mut i: usize) -> (Option<usize>, usize) {
    let start = i;
    let mut n: i64 = 0;
    while let Some(d) = chars.get(i).and_then(|c| c.to_digit(10)) {
        if too_large(n) {
            return (None, chars.len());
        }
        n = n * 10 + i64::from(d);
        i += 1;
    }
    if i == start {
        (None, i)
    } else {
        (Some(n as usize), i)
    }
}

fn bad_verb(out: &mut String, v: &Value, verb: char) {
    out.push_str("%!");
    out.push(verb);
    out.push('(');
    match v {
        Value::Nil => out.push_str("<nil>"),
        _ => {
            out.push_str(v.go_type_name());
            out.push('=');
            out.push_str(&format_v(v));
        }
    }
    out.push(')');
}

fn print_value(out: &mut String, v: &Value, verb: char, fl: &Flags) {
    match v {
        Value::Nil => match verb {
            'v' => pad(out, "<nil>", fl),
            _ => bad_verb(out, v, verb),
        },
        Value::Bool(b) => match verb {
            't' | 'v' => pad(out, if *b { "true" } else { "false" }, fl),
            _ => bad_verb(out, v, verb),
        },
        Value::Int(i) => fmt_int(out, *i, verb, fl, v),
        Value::Float(f) => match verb {
            // fmt's `fmtFloat` takes a precision given to `%v` as `%g` does (`%.3v` is `3.14`).
            'v' => fmt_float(out, *f, 'g', fl.prec, fl),
            'b' | 'e' | 'E' | 'f' | 'F' | 'g' | 'G' => fmt_float(out, *f, verb, fl.prec, fl),
            _ => bad_verb(out, v, verb),
        },
        Value::Complex(re, im) => match verb {
            'v' | 'e' | 'E' | 'f' | 'F' | 'g' | 'G' => {
                let (verb, prec) = if verb == 'v' {
                    ('g', None)
                } else {
                    (verb, fl.prec)
                };
                let mut inner = fl.clone();
                inner.width = None;
                let mut s = String::from("(");
                fmt_float(&mut s, *re, verb, prec, &inner);
                inner.plus = true;
                fmt_float(&mut s, *im, verb, prec, &inner);
                s.push_str("i)");
                pad(out, &s, fl);
            }
            _ => bad_verb(out, v, verb),
        },
        Value::String(s) => fmt_string(out, s, verb, fl, v),
        Value::List(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(' ');
                }
                print_element(out, item, verb, fl);
            }
            out.push(']');
        }
        Value::Map(map) => {
            out.push_str("map[");
            for (i, (k, item)) in map.iter().enumerate() {
                if i > 0 {
                    out.push(' ');
                }
                fmt_string(out, k, verb, fl, &Value::String(k.clone()));
                out.push(':');
                print_element(out, item, verb, fl);
            }
            out.push(']');
        }
    }
}

/// An element of a slice or map: the elements are Go interfaces, and fmt prints a nil interface
/// inside a value as `<nil>` whatever the verb (a nil argument itself is a bad verb but for `%v`).
fn print_element(out: &mut String, v: &Value, verb: char, fl: &Flags) {
    match v {
        Value::Nil => pad(out, "<nil>", fl),
        other => print_value(out, other, verb, fl),
    }
}

/// Writes `s` padded to the width, honouring `-` and `0`.
fn pad(out: &mut String, s: &str, fl: &Flags) {
    let len = s.chars().count();
    let Some(width) = fl.width.filter(|w| *w > len) else {
        out.push_str(s);
        return;
    };
    let fill = width - len;
    if fl.minus {
        out.push_str(s);
        out.extend(std::iter::repeat_n(' ', fill));
    } else {
        let c = if fl.zero { '0' } else { ' ' };
        out.extend(std::iter::repeat_n(c, fill));
        out.push_str(s);
    }
}

fn fmt_string(out: &mut String, s: &str, verb: char, fl: &Flags, v: &Value) {
    let truncated: String = match fl.prec {
        Some(p) if matches!(verb, 'v' | 's' | 'q') => s.chars().take(p).collect(),
        _ => s.to_string(),
    };
    match verb {
        'v' | 's' => pad(out, &truncated, fl),
        'q' => {
            let q = if fl.sharp && can_backquote(&truncated) {
                format!("`{truncated}`")
            } else {
                quote_with(&truncated, fl.plus)
            };
            pad(out, &q, fl);
        }
        'x' | 'X' => {
            let bytes = match fl.prec {
                Some(p) => &s.as_bytes()[..p.min(s.len())],
                None => s.as_bytes(),
            };
            let mut h = String::new();
            for (i, b) in bytes.iter().enumerate() {
                if fl.space && i > 0 {
                    h.push(' ');
                }
                if fl.sharp && (fl.space || i == 0) {
                    h.push_str(if verb == 'x' { "0x" } else { "0X" });
                }
                if verb == 'x' {
                    h.push_str(&format!("{b:02x}"));
                } else {
                    h.push_str(&format!("{b:02X}"));
                }
            }
            pad(out, &h, fl);
        }
        _ => bad_verb(out, v, verb),
    }
}

fn fmt_int(out: &mut String, i: i64, verb: char, fl: &Flags, v: &Value) {
    let neg = i < 0;
    let u = i.unsigned_abs();
    let digits = match verb {
        'v' | 'd' => u.to_string(),
        'b' => format!("{u:b}"),
        'o' | 'O' => format!("{u:o}"),
        'x' => format!("{u:x}"),
        'X' => format!("{u:X}"),
        'c' => {
            let c = u32::try_from(i)
                .ok()
                .and_then(char::from_u32)
                .unwrap_or('\u{FFFD}');
            pad(out, &c.to_string(), fl);
            return;
        }
        'q' => {
            let c = u32::try_from(i)
                .ok()
                .and_then(char::from_u32)
                .unwrap_or('\u{FFFD}');
            let q = if fl.sharp && c != '\'' && !c.is_control() {
                format!("'{c}'")
            } else {
                quote_rune(c)
            };
            pad(out, &q, fl);
            return;
        }
        'U' => {
            let mut s = format!("U+{u:04X}");
            if fl.sharp {
                if let Some(c) = u32::try_from(i).ok().and_then(char::from_u32) {
                    if !c.is_control() {
                        s.push_str(&format!(" '{c}'"));
                    }
                }
            }
            pad(out, &s, fl);
            return;
        }
        _ => {
            bad_verb(out, v, verb);
            return;
        }
    };
    let mut digits = digits;
    if let Some(p) = fl.prec {
        if p == 0 && u == 0 {
            digits.clear();
        }
        if digits.len() < p {
            let mut padded = "0".repeat(p - digits.len());
            padded.push_str(&digits);
            digits = padded;
        }
    }
    let mut prefix = String::new();
    if neg {
        prefix.push('-');
    } else if fl.plus {
        prefix.push('+');
    } else if fl.space {
        prefix.push(' ');
    }
    match verb {
        'b' if fl.sharp => prefix.push_str("0b"),
        'o' if fl.sharp && !digits.starts_with('0') => prefix.push('0'),
        'O' => prefix.push_str("0o"),
        'x' if fl.sharp => prefix.push_str("0x"),
        'X' if fl.sharp => prefix.push_str("0X"),
        _ => {}
    }
    let body_len = prefix.len() + digits.len();
    match fl.width {
        Some(w) if w > body_len && fl.zero && fl.prec.is_none() && !fl.minus => {
            out.push_str(&prefix);
            out.extend(std::iter::repeat_n('0', w - body_len));
            out.push_str(&digits);
        }
        _ => {
            let s = format!("{prefix}{digits}");
            let mut plain = fl.clone();
            plain.zero = false;
            pad(out, &s, &plain);
        }
    }
}

/// Go's `%e`/`%f`/`%g` (and `%v` as shortest `%g`) of a float64, with fmt's sign and padding rules.
fn fmt_float(out: &mut String, f: f64, verb: char, prec: Option<usize>, fl: &Flags) {
    let mut num = if f.is_nan() {
        "NaN".to_string()
    } else if f.is_infinite() {
        if f > 0.0 { "+Inf" } else { "-Inf" }.to_string()
    } else {
        let body = format_float(f.abs(), verb, prec);
        if f.is_sign_negative() {
            format!("-{body}")
        } else {
            format!("+{body}")
        }
    };
    if f.is_nan() {
        if fl.plus {
            num = "+NaN".into();
        } else if fl.space {
            num = " NaN".into();
        }
        let mut plain = fl.clone();
        plain.zero = false;
        pad(out, &num, &plain);
        return;
    }
    if num.starts_with('+') && !fl.plus {
        if fl.space {
            num.replace_range(0..1, " ");
        } else if !f.is_infinite() {
            num.remove(0);
        }
    }
    if f.is_infinite() {
        let mut plain = fl.clone();
        plain.zero = false;
        pad(out, &num, &plain);
        return;
    }
    match fl.width {
        Some(w) if fl.zero && !fl.minus && w > num.chars().count() => {
            let (sign, rest) = match num.chars().next() {
                Some(c @ ('+' | '-' | ' ')) => (c.to_string(), num[1..].to_string()),
                _ => (String::new(), num.clone()),
            };
            out.push_str(&sign);
            out.extend(std::iter::repeat_n('0', w - num.chars().count()));
            out.push_str(&rest);
        }
        _ => pad(out, &num, fl),
    }
}

/// A float64's exact decimal expansion has at most 767 significant digits and 1074 after the
/// point: past these, every digit a precision asks for is a zero. Formatting is asked for no more
/// (Rust's formatter refuses a precision above 65535; a width or precision may be a million).
const EXACT_SIGNIFICANT_DIGITS: usize = 800;
const EXACT_FRACTION_DIGITS: usize = 1100;

/// Decimal digits (no leading zeros; empty for zero) and the decimal point position, Go's `decimal`.
fn digits_of(x: f64, significant: Option<usize>) -> (Vec<u8>, i32) {
    if x == 0.0 {
        return (Vec::new(), 0);
    }
    let s = match significant {
        None => format!("{x:e}"),
        Some(n) => format!(
            "{:.*e}",
            n.saturating_sub(1).min(EXACT_SIGNIFICANT_DIGITS),
            x
        ),
    };
    let (mant, exp) = s.split_once('e').unwrap_or((s.as_str(), "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let mut digits: Vec<u8> = mant.bytes().filter(u8::is_ascii_digit).collect();
    while digits.last() == Some(&b'0') {
        digits.pop();
    }
    if digits.is_empty() {
        return (Vec::new(), 0);
    }
    (digits, exp + 1)
}

fn push_exp(s: &mut String, exp: i32, e: char) {
    s.push(e);
    s.push(if exp < 0 { '-' } else { '+' });
    let a = exp.unsigned_abs();
    if a < 10 {
        s.push('0');
    }
    s.push_str(&a.to_string());
}

fn fmt_e(digits: &[u8], dp: i32, prec: usize, e: char) -> String {
    let mut s = String::new();
    s.push(digits.first().map(|d| *d as char).unwrap_or('0'));
    if prec > 0 {
        s.push('.');
        for k in 1..=prec {
            s.push(digits.get(k).map(|d| *d as char).unwrap_or('0'));
        }
    }
    let exp = if digits.is_empty() { 0 } else { dp - 1 };
    push_exp(&mut s, exp, e);
    s
}

fn fmt_f(digits: &[u8], dp: i32, prec: usize) -> String {
    let mut s = String::new();
    if dp > 0 {
        for k in 0..dp as usize {
            s.push(digits.get(k).map(|d| *d as char).unwrap_or('0'));
        }
    } else {
        s.push('0');
    }
    if prec > 0 {
        s.push('.');
        for k in 1..=prec as i64 {
            let j = dp as i64 + k - 1;
            let c = if j >= 0 {
                digits.get(j as usize).map(|d| *d as char)
            } else {
                None
            };
            s.push(c.unwrap_or('0'));
        }
    }
    s
}

/// strconv.FormatFloat(x, verb, prec, 64) for a non-negative finite `x`.
pub(crate) fn format_float(x: f64, verb: char, prec: Option<usize>) -> String {
    match verb {
        'e' | 'E' => {
            let p = prec.unwrap_or(6);
            let (d, dp) = digits_of(x, Some(p + 1));
            fmt_e(&d, dp, p, verb)
        }
        'f' | 'F' => {
            let prec = prec.unwrap_or(6);
            let mut text = format!("{:.*}", prec.min(EXACT_FRACTION_DIGITS), x);
            text.extend(std::iter::repeat_n(
                '0',
                prec.saturating_sub(EXACT_FRACTION_DIGITS),
            ));
            text
        }
        'g' | 'G' => {
            let e = if verb == 'g' { 'e' } else { 'E' };
            let shortest = prec.is_none();
            let (d, dp) = match prec {
                None => digits_of(x, None),
                Some(p) => digits_of(x, Some(p.max(1))),
            };
            let nd = d.len() as i32;
            let mut p = match prec {
                None => nd,
                Some(p) => p.max(1) as i32,
            };
            let mut eprec = p;
            if eprec > nd && nd >= dp {
                eprec = nd;
            }
            if shortest {
                eprec = 6;
            }
            let exp = if d.is_empty() { 0 } else { dp - 1 };
            if exp < -4 || exp >= eprec {
                if p > nd {
                    p = nd;
                }
                return fmt_e(&d, dp, (p - 1).max(0) as usize, e);
            }
            if p > dp {
                p = nd;
            }
            fmt_f(&d, dp, (p - dp).max(0) as usize)
        }
        'b' => {
            let bits = x.to_bits();
            let mant = bits & ((1u64 << 52) - 1);
            let exp = ((bits >> 52) & 0x7ff) as i64;
            let (mant, exp) = if exp == 0 {
                (mant, -1074)
            } else {
                (mant | (1u64 << 52), exp - 1075)
            };
            format!("{mant}p{}{}", if exp >= 0 { "+" } else { "" }, exp)
        }
        _ => format!("{x}"),
    }
}

/// Sprig's `strval`: strings as they are, everything else through `%v`.
pub(crate) fn strval(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => format_v(other),
    }
}

/// Sprig's `strslice`: a list's elements as strings (nils dropped), a nil as no strings, and any
/// other value as a one-element list.
pub(crate) fn strslice(v: &Value) -> Vec<String> {
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
pub(crate) fn type_name(v: &Value) -> &'static str {
    v.go_type_name()
}

/// `reflect.ValueOf(v).Kind().String()`.
pub(crate) fn kind_name(v: &Value) -> &'static str {
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
pub(super) fn is_empty(v: &Value) -> bool {
    !v.is_truthy()
}

/// Options of the JSON encoder.
#[derive(Clone, Copy)]
pub(crate) struct JsonStyle {
    /// `<`, `>` and `&` as `\u003c`... (Go's default; off for `toRawJson`).
    pub escape_html: bool,
    /// Two-space indentation, as `json.MarshalIndent(v, "", "  ")`.
    pub pretty: bool,
}

/// `json.Marshal` with Go's key order (sorted) and escaping; NaN and infinities are errors as in Go.
pub(super) fn to_json(v: &Value, style: JsonStyle) -> Result<String, String> {
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
        Value::Float(f) => out.push_str(
            &json_float(*f)
                .ok_or_else(|| format!("json: unsupported value: {}", format_float_g(*f)))?,
        ),
        Value::Complex(..) => return Err("json: unsupported type: complex128".into()),
        Value::String(s) => golang::json_string(out, s, style.escape_html),
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
                golang::json_string(out, k, style.escape_html);
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

/// `json.Unmarshal` into `interface{}`: numbers become float64, as in Go.
pub(super) fn from_json(text: &str) -> Result<Value, String> {
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

/// The JSON data `json.Marshal` makes of a value, as `serde_json` data: NaN, infinities and
/// complex numbers are errors, as in Go.
pub(crate) fn to_serde(v: &Value) -> Result<serde_json::Value, String> {
    use serde_json::Value as Json;
    Ok(match v {
        Value::Nil => Json::Null,
        Value::Bool(b) => Json::Bool(*b),
        Value::Int(i) => Json::Number((*i).into()),
        Value::Float(f) => serde_json::Number::from_f64(*f)
            .map(Json::Number)
            .ok_or_else(|| format!("json: unsupported value: {}", format_float_g(*f)))?,
        Value::Complex(..) => return Err("json: unsupported type: complex128".into()),
        Value::String(s) => Json::String(s.clone()),
        Value::List(items) => Json::Array(items.iter().map(to_serde).collect::<Result<_, _>>()?),
        Value::Map(m) => Json::Object(
            m.iter()
                .map(|(k, item)| Ok((k.clone(), to_serde(item)?)))
                .collect::<Result<_, String>>()?,
        ),
    })
}

/// JSON data as Go's `json.Unmarshal` into `interface{}` gives it: every number a float64.
/// The one converter from serde_json for template data decoded as Go decodes JSON.
pub fn from_serde(v: serde_json::Value) -> Value {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_print_as_go() {
        assert_eq!(format_v(&Value::Float(1e6)), "1e+06");
        assert_eq!(format_v(&Value::Float(12345678.0)), "1.2345678e+07");
        assert_eq!(format_v(&Value::Float(3.5)), "3.5");
        assert_eq!(format_v(&Value::Float(123456.0)), "123456");
        assert_eq!(format_v(&Value::Float(0.0001)), "0.0001");
        assert_eq!(format_v(&Value::Float(0.00001)), "1e-05");
        assert_eq!(format_v(&Value::Float(0.0)), "0");
        assert_eq!(format_v(&Value::Float(-2.5)), "-2.5");
        assert_eq!(format_v(&Value::Float(f64::INFINITY)), "+Inf");
    }

    #[test]
    fn printf_verbs_and_markers() {
        let s = |x: &str| Value::String(x.into());
        assert_eq!(
            sprintf(
                "%5.2f|%-4d|%04x",
                &[Value::Float(4.12567), Value::Int(7), Value::Int(127)]
            ),
            " 4.13|7   |007f"
        );
        assert_eq!(sprintf("%d", &[s("x")]), "%!d(string=x)");
        assert_eq!(sprintf("%s %s", &[s("a")]), "a %!s(MISSING)");
        assert_eq!(sprintf("%s", &[s("a"), Value::Int(1)]), "a%!(EXTRA int=1)");
        assert_eq!(
            sprintf(
                "%q %e %g %.3g",
                &[
                    s("a\"b"),
                    Value::Float(1234.5),
                    Value::Float(1e21),
                    Value::Float(1234.5678)
                ]
            ),
            "\"a\\\"b\" 1.234500e+03 1e+21 1.23e+03"
        );
        assert_eq!(
            sprintf(
                "%v %d",
                &[
                    Value::List(vec![Value::Int(1), Value::Nil]),
                    Value::List(vec![Value::Int(2)])
                ]
            ),
            "[1 <nil>] [2]"
        );
        assert_eq!(
            sprintf(
                "%t %x %X %T",
                &[
                    Value::Bool(true),
                    s("hi"),
                    Value::Int(255),
                    Value::Float(1.0)
                ]
            ),
            "true 6869 FF float64"
        );
    }

    /// fmt's `tooLarge` and `parsenum` (Go's fmt/print.go): widths and precisions past a million
    /// are refused, so one verb prints at most about a million characters, in linear time; a
    /// float's precision past its exact digits is zeros (Rust's formatter would panic past 65535).
    #[test]
    fn huge_widths_and_precisions_are_bounded_as_go_bounds_them() {
        let int = Value::Int;
        assert_eq!(sprintf("%*d", &[int(1_000_001), int(1)]), "%!(BADWIDTH)1");
        assert_eq!(sprintf("%*d", &[int(-1_000_001), int(1)]), "%!(BADWIDTH)1");
        assert_eq!(
            sprintf("%.*d", &[int(1_000_000_000), int(1)]),
            "%!(BADPREC)1"
        );
        assert_eq!(
            sprintf("%99999999d", &[int(1)]),
            "%!(NOVERB)%!(EXTRA int=1)"
        );
        let padded = sprintf("%.999999d", &[int(7)]);
        assert_eq!(padded.len(), 999_999);
        assert!(padded.ends_with("07") && padded.starts_with("000"));
        let fixed = sprintf("%.*f", &[int(100_000), Value::Float(1.0)]);
        assert_eq!(fixed.len(), 100_002);
        assert!(fixed.starts_with("1.000") && fixed.ends_with('0'));
        let tenth = sprintf("%.3000f", &[Value::Float(0.1)]);
        assert_eq!(tenth.len(), 3002);
        assert!(
            tenth.starts_with("0.1000000000000000055511151231257827021181583404541015625000"),
            "{}",
            &tenth[..80]
        );
        let exp = sprintf("%.*e", &[int(100_000), Value::Float(1.5)]);
        assert_eq!(exp.len(), 100_006);
        assert!(
            exp.starts_with("1.5000") && exp.ends_with("0e+00"),
            "{}",
            &exp[exp.len() - 10..]
        );
        assert_eq!(
            sprintf("%.*e", &[int(1_000_001), Value::Float(1.0)]),
            "%!(BADPREC)1.000000e+00"
        );
        assert_eq!(sprintf("%.100000g", &[Value::Float(0.5)]), "0.5");
        assert_eq!(
            sprintf(
                "%.3v|%6.3v|%v",
                &[
                    Value::Float(1.23456),
                    Value::Float(1.23456),
                    Value::Float(1.23456)
                ]
            ),
            "1.23|  1.23|1.23456"
        );
    }

    #[test]
    fn sprint_spacing() {
        assert_eq!(
            sprint(&[
                Value::Int(1),
                Value::Int(2),
                Value::String("a".into()),
                Value::Int(3)
            ]),
            "1 2a3"
        );
        assert_eq!(
            sprintln(&[Value::Int(1), Value::String("a".into())]),
            "1 a\n"
        );
    }
}
