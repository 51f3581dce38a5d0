//! Go's spellings that several engines must reproduce byte for byte: `strconv`'s shortest float
//! form and quoting, `unicode.IsPrint`, and `encoding/json`'s string escapes. One copy for the
//! crate, so that a fix to one of them reaches every output that uses it.
//!
//! `time.Duration`'s text form is in [`duration`].
//!
//! Not for: printing values of any engine (`template` prints its values with these), or parsing.

#![deny(unreachable_pub)]

pub mod duration;
pub mod glob;

use std::fmt::Write as _;

/// The decimal digits and exponent of the shortest representation that round-trips: `d.ddd × 10^exp`
/// (`1234.5` → ("12345", 3)).
pub fn shortest_digits(f: f64) -> (String, i32) {
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

/// `encoding/json`'s spelling of a finite float64: fixed notation unless the magnitude is below
/// 1e-6 or at least 1e21, and then an exponent without a leading zero (`1e-7`). `None` for NaN
/// and the infinities, which Go's encoder refuses.
pub fn json_float(f: f64) -> Option<String> {
    if !f.is_finite() {
        return None;
    }
    let abs = f.abs();
    if abs != 0.0 && !(1e-6..1e21).contains(&abs) {
        let (digits, exp) = shortest_digits(f);
        let mut s = format_exp(if f < 0.0 { "-" } else { "" }, &digits, exp);
        if let Some(pos) = s.find("e-0").or_else(|| s.find("e+0")) {
            s.remove(pos + 2);
        }
        return Some(s);
    }
    Some(format_float_f(f))
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
        let int_len = usize::try_from(exp).unwrap_or(0) + 1;
        match (digits.get(..int_len), digits.get(int_len..)) {
            (Some(int), Some(frac)) if !frac.is_empty() => {
                out.push_str(int);
                out.push('.');
                out.push_str(frac);
            }
            _ => {
                out.push_str(digits);
                for _ in digits.len()..int_len {
                    out.push('0');
                }
            }
        }
    }
    out
}

/// Appends `s` as `encoding/json` (Go 1.22 and later) encodes a string: `\b`, `\f`, `\n`, `\r`
/// and `\t` by name, other control characters, U+2028 and U+2029 as `\u00XX`, and with
/// `escape_html` (Go's default; off for `SetEscapeHTML(false)`) `<`, `>` and `&` too.
pub fn json_string(out: &mut String, s: &str, escape_html: bool) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
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

/// Go's `strconv.Quote`.
pub fn quote(s: &str) -> String {
    quote_with(s, false)
}

/// `strconv.Quote`, or with `ascii_only` `strconv.QuoteToASCII`.
pub fn quote_with(s: &str, ascii_only: bool) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        escape_char(&mut out, c, '"', ascii_only);
    }
    out.push('"');
    out
}

/// `strconv.QuoteRune`.
pub fn quote_rune(c: char) -> String {
    let mut out = String::from("'");
    escape_char(&mut out, c, '\'', false);
    out.push('\'');
    out
}

fn escape_char(out: &mut String, c: char, quote: char, ascii_only: bool) {
    if c == quote || c == '\\' {
        out.push('\\');
        out.push(c);
        return;
    }
    if ascii_only {
        if (c as u32) < 0x80 && is_print(c) {
            out.push(c);
            return;
        }
    } else if is_print(c) {
        out.push(c);
        return;
    }
    match c {
        '\x07' => out.push_str("\\a"),
        '\x08' => out.push_str("\\b"),
        '\x0c' => out.push_str("\\f"),
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        '\x0b' => out.push_str("\\v"),
        c if (c as u32) < 0x20 || c as u32 == 0x7f => out.push_str(&format!("\\x{:02x}", c as u32)),
        c if (c as u32) < 0x10000 => out.push_str(&format!("\\u{:04x}", c as u32)),
        c => out.push_str(&format!("\\U{:08x}", c as u32)),
    }
}

/// An approximation of Go's `unicode.IsPrint`: graphic characters and the ASCII space.
pub fn is_print(c: char) -> bool {
    if c == ' ' {
        return true;
    }
    if c.is_control() || c.is_whitespace() {
        return false;
    }
    let u = c as u32;
    !((0xE000..=0xF8FF).contains(&u)
        // U+FFFC and U+FFFD (the replacement character) are symbols, and printable
        || (0xFFF0..=0xFFFB).contains(&u)
        || u == 0xFFFE
        || u == 0xFFFF
        || (0x200B..=0x200F).contains(&u)
        || (0x2028..=0x202E).contains(&u)
        || (0x2060..=0x206F).contains(&u)
        || u == 0xFEFF
        || u == 0xAD
        // unassigned planes 4 to 13, and the private use planes 15 and 16
        || (0x40000..=0xDFFFF).contains(&u)
        || (0xF0000..=0x10FFFF).contains(&u))
}

/// `strconv.CanBackquote`.
pub fn can_backquote(s: &str) -> bool {
    s.chars()
        .all(|c| c != '`' && c != '\u{FEFF}' && (c == '\t' || !(c.is_control())))
}
