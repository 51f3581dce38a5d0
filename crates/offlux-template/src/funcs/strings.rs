//! Sprig's string functions (Go `strings`, `goutils` and `xstrings` behaviour). Lengths and
//! offsets count bytes, as in Go.
//!
//! Not for: regular expressions (see `regexes`) or random strings (see `random`).

use std::collections::BTreeMap;

use super::super::value::Value;
use super::args::{self, err, exact, Result};
use super::gofmt::{quote as go_quote, strslice, strval};
use super::{FuncEnv, Function};

pub(crate) const FUNCTIONS: &[(&str, Function)] = &[
    ("hello", hello),
    ("abbrev", abbrev),
    ("abbrevboth", abbrevboth),
    ("trunc", trunc),
    ("trim", trim),
    ("upper", upper),
    ("lower", lower),
    ("title", title),
    ("untitle", untitle),
    ("substr", substr),
    ("repeat", repeat),
    ("trimall", trim_all),
    ("trimAll", trim_all),
    ("trimSuffix", trim_suffix),
    ("trimPrefix", trim_prefix),
    ("nospace", nospace),
    ("initials", initials),
    ("swapcase", swapcase),
    ("snakecase", snakecase),
    ("camelcase", camelcase),
    ("kebabcase", kebabcase),
    ("wrap", wrap),
    ("wrapWith", wrap_with),
    ("contains", contains),
    ("hasPrefix", has_prefix),
    ("hasSuffix", has_suffix),
    ("quote", quote),
    ("squote", squote),
    ("cat", cat),
    ("indent", indent),
    ("nindent", nindent),
    ("replace", replace),
    ("plural", plural),
    ("toString", to_string),
    ("split", split),
    ("splitList", split_list),
    ("splitn", splitn),
    ("toStrings", to_strings),
    ("join", join),
    ("sortAlpha", sort_alpha),
];

fn s(v: impl Into<String>) -> Result<Value> {
    Ok(Value::String(v.into()))
}

/// A byte range of a Go string; a cut inside a UTF-8 sequence keeps replacement characters.
fn bytes_of(text: &str, start: usize, end: usize) -> String {
    String::from_utf8_lossy(text.as_bytes().get(start..end).unwrap_or_default()).into_owned()
}

fn hello(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("hello", a, 0)?;
    s("Hello!")
}

/// `goutils.AbbreviateFull`; Sprig returns the input when it reports an error.
fn abbreviate_full(text: &str, offset: i64, width: i64) -> Option<String> {
    let len = text.len() as i64;
    if text.is_empty() {
        return Some(String::new());
    }
    if width < 4 {
        return None;
    }
    if len <= width {
        return Some(text.to_string());
    }
    let mut offset = offset.min(len);
    if len - offset < width - 3 {
        offset = len - (width - 3);
    }
    if offset <= 4 {
        return Some(bytes_of(text, 0, (width - 3) as usize) + "...");
    }
    if width < 7 {
        return None;
    }
    if offset + width - 3 < len {
        let rest = bytes_of(text, offset as usize, text.len());
        let inner = abbreviate_full(&rest, 0, width - 3)?;
        return Some(format!("...{inner}"));
    }
    Some(format!(
        "...{}",
        bytes_of(text, (len - (width - 3)) as usize, text.len())
    ))
}

fn abbrev(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("abbrev", a, 2)?;
    let width = args::int(&a[0])?;
    let text = args::string(&a[1])?;
    s(abbreviate_full(text, 0, width).unwrap_or_else(|| text.to_string()))
}

fn abbrevboth(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("abbrevboth", a, 3)?;
    let left = args::int(&a[0])?;
    let right = args::int(&a[1])?;
    let text = args::string(&a[2])?;
    s(abbreviate_full(text, left, right).unwrap_or_else(|| text.to_string()))
}

fn trunc(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("trunc", a, 2)?;
    let c = args::int(&a[0])?;
    let text = args::string(&a[1])?;
    let len = text.len() as i64;
    if c < 0 && len + c > 0 {
        return s(bytes_of(text, (len + c) as usize, text.len()));
    }
    if c >= 0 && len > c {
        return s(bytes_of(text, 0, c as usize));
    }
    s(text)
}

fn one_string<'a>(name: &str, a: &'a [Value]) -> Result<&'a str> {
    exact(name, a, 1)?;
    args::string(&a[0])
}

fn trim(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    s(one_string("trim", a)?.trim())
}

fn upper(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    s(one_string("upper", a)?.to_uppercase())
}

fn lower(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    s(one_string("lower", a)?.to_lowercase())
}

/// `strings.Title`: letters following a separator are upper-cased.
fn title(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    let text = one_string("title", a)?;
    let mut out = String::with_capacity(text.len());
    let mut prev_sep = true;
    for c in text.chars() {
        if prev_sep {
            out.extend(c.to_uppercase());
        } else {
            out.push(c);
        }
        prev_sep = if c.is_ascii() {
            !(c.is_ascii_alphanumeric() || c == '_')
        } else {
            c.is_whitespace()
        };
    }
    s(out)
}

/// `goutils.Uncapitalize`: the first letter of each whitespace-separated word lower-cased.
fn untitle(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    let text = one_string("untitle", a)?;
    let mut out = String::with_capacity(text.len());
    let mut at_start = true;
    for c in text.chars() {
        if c.is_whitespace() {
            at_start = true;
            out.push(c);
        } else if at_start {
            out.extend(c.to_lowercase());
            at_start = false;
        } else {
            out.push(c);
        }
    }
    s(out)
}

fn substr(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("substr", a, 3)?;
    let start = args::int(&a[0])?;
    let end = args::int(&a[1])?;
    let text = args::string(&a[2])?;
    let len = text.len() as i64;
    let (from, to) = if start < 0 {
        (0, end)
    } else if end < 0 || end > len {
        (start, len)
    } else {
        (start, end)
    };
    if from > to || to > len || from < 0 {
        return err(format!(
            "runtime error: slice bounds out of range [{from}:{to}]"
        ));
    }
    s(bytes_of(text, from as usize, to as usize))
}

/// The most bytes one string function may produce, so a template cannot exhaust memory.
const MAX_OUTPUT: usize = 64 << 20;

fn repeat(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("repeat", a, 2)?;
    let count = args::int(&a[0])?;
    let text = args::string(&a[1])?;
    if count < 0 {
        return err("strings: negative Repeat count");
    }
    if (count as u128) * (text.len() as u128) > MAX_OUTPUT as u128 {
        return err("strings: Repeat output length overflow");
    }
    s(text.repeat(count as usize))
}

fn trim_all(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("trimAll", a, 2)?;
    let cutset = args::string(&a[0])?;
    let text = args::string(&a[1])?;
    s(text.trim_matches(|c| cutset.contains(c)))
}

fn trim_suffix(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("trimSuffix", a, 2)?;
    let suffix = args::string(&a[0])?;
    let text = args::string(&a[1])?;
    s(text.strip_suffix(suffix).unwrap_or(text))
}

fn trim_prefix(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("trimPrefix", a, 2)?;
    let prefix = args::string(&a[0])?;
    let text = args::string(&a[1])?;
    s(text.strip_prefix(prefix).unwrap_or(text))
}

/// goutils' `DeleteWhiteSpace`, which works byte by byte: with nothing removed the text comes back
/// as it is, otherwise each byte kept becomes the character of its value (so `é` turns into `Ã©`),
/// and the bytes of a multi-byte character that read as spaces (`0x85`, `0xA0`) are removed too.
fn nospace(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    let text = one_string("nospace", a)?;
    let kept: Vec<u8> = text
        .bytes()
        .filter(|b| !char::from(*b).is_whitespace())
        .collect();
    if kept.len() == text.len() {
        return s(text);
    }
    s(kept.into_iter().map(char::from).collect::<String>())
}

fn initials(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    let text = one_string("initials", a)?;
    s(text
        .split(char::is_whitespace)
        .filter_map(|w| w.chars().next())
        .collect::<String>())
}

/// `goutils.SwapCase`: upper and title case to lower, lower to upper.
fn swapcase(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    let text = one_string("swapcase", a)?;
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_uppercase() {
            out.extend(c.to_lowercase());
        } else if c.is_lowercase() {
            out.extend(c.to_uppercase());
        } else {
            out.push(c);
        }
    }
    s(out)
}

/// A piece of an identifier, as `xstrings` (v1.5, which Helm v4 uses) sees it.
#[derive(Clone, Copy, PartialEq)]
enum Piece<'a> {
    /// Letters: a lower-case run, a capitalised run, or a run of capitals (`HTTP` in `HTTPServer`).
    Letters(&'a str),
    Digits(&'a str),
    /// A space, `_` or `-`, one per character.
    Connector(char),
    /// Any other character, kept as it is.
    Punct(&'a str),
}

fn pieces(text: &str) -> Vec<Piece<'_>> {
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let end_of = |i: usize| chars.get(i).map(|c| c.0).unwrap_or(text.len());
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(&(start, c)) = chars.get(i) {
        if c == ' ' || c == '_' || c == '-' {
            out.push(Piece::Connector(c));
            i += 1;
        } else if c.is_ascii_digit() {
            let mut j = i;
            while chars.get(j).is_some_and(|(_, d)| d.is_ascii_digit()) {
                j += 1;
            }
            out.push(Piece::Digits(&text[start..end_of(j)]));
            i = j;
        } else if c.is_alphabetic() {
            let mut j = i + 1;
            if c.is_uppercase() && chars.get(j).is_some_and(|(_, d)| d.is_uppercase()) {
                // A run of capitals; its last one starts the next word when a lower-case follows.
                while chars.get(j).is_some_and(|(_, d)| d.is_uppercase()) {
                    j += 1;
                }
                if chars.get(j).is_some_and(|(_, d)| d.is_lowercase()) {
                    j -= 1;
                }
            } else {
                while chars.get(j).is_some_and(|(_, d)| d.is_lowercase()) {
                    j += 1;
                }
            }
            out.push(Piece::Letters(&text[start..end_of(j)]));
            i = j;
        } else {
            out.push(Piece::Punct(&text[start..end_of(i + 1)]));
            i += 1;
        }
    }
    out
}

/// `xstrings.ToSnakeCase`/`ToKebabCase`: words lower-cased and joined by `sep`; every connector
/// becomes one `sep`; a number joins the word before it, unless lower-case letters follow it
/// (`HTTP2xx` gives `http_2xx`).
fn joined_lower(text: &str, sep: char) -> String {
    let ps = pieces(text);
    let mut out = String::with_capacity(text.len() + 4);
    // Whether the output ends inside a word, so that a following word needs a separator.
    let mut in_word = false;
    for (k, p) in ps.iter().enumerate() {
        match p {
            Piece::Connector(_) => {
                out.push(sep);
                in_word = false;
            }
            Piece::Punct(s) => {
                out.push_str(s);
                in_word = false;
            }
            Piece::Letters(w) => {
                let after_digits_joined =
                    matches!(ps.get(k.wrapping_sub(1)), Some(Piece::Digits(_)))
                        && w.chars().next().is_some_and(char::is_lowercase);
                if in_word && !after_digits_joined {
                    out.push(sep);
                }
                out.push_str(&w.to_lowercase());
                in_word = true;
            }
            Piece::Digits(d) => {
                let next_lower = matches!(ps.get(k + 1), Some(Piece::Letters(w)) if w.chars().next().is_some_and(char::is_lowercase));
                if in_word && next_lower {
                    out.push(sep);
                }
                out.push_str(d);
                in_word = true;
            }
        }
    }
    out
}

fn snakecase(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    s(joined_lower(one_string("snakecase", a)?, '_'))
}

fn kebabcase(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    s(joined_lower(one_string("kebabcase", a)?, '-'))
}

/// `xstrings.ToCamelCase`: each word capitalised (`FOO_BAR` gives `FooBar`), connectors dropped
/// except that a run of them keeps all but one, leading connectors kept, and words right after a
/// number or punctuation left as they are.
fn camelcase(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    let text = one_string("camelcase", a)?;
    let ps = pieces(text);
    let mut out = String::with_capacity(text.len());
    let mut seen_word = false;
    let mut run = 0;
    for (k, p) in ps.iter().enumerate() {
        if let Piece::Connector(c) = p {
            if !seen_word {
                out.push(*c);
            } else {
                if run > 0 {
                    out.push(*c);
                }
                run += 1;
            }
            continue;
        }
        run = 0;
        match p {
            Piece::Letters(w) => {
                let keep = matches!(
                    ps.get(k.wrapping_sub(1)),
                    Some(Piece::Digits(_) | Piece::Punct(_))
                );
                if keep {
                    out.push_str(w);
                } else {
                    let mut chars = w.chars();
                    if let Some(first) = chars.next() {
                        out.extend(first.to_uppercase());
                        out.push_str(&chars.as_str().to_lowercase());
                    }
                }
            }
            Piece::Digits(d) | Piece::Punct(d) => out.push_str(d),
            Piece::Connector(_) => {}
        }
        seen_word = true;
    }
    s(out)
}

/// `goutils.WrapCustom`, byte-based like the original.
fn wrap_custom(text: &str, width: i64, newline: &str, wrap_long: bool) -> String {
    if text.is_empty() {
        return String::new();
    }
    let newline = if newline.is_empty() { "\n" } else { newline };
    let width = width.max(1) as usize;
    let b = text.as_bytes();
    let len = b.len();
    let mut offset = 0usize;
    let mut out = String::new();
    while len - offset > width {
        if b.get(offset) == Some(&b' ') {
            offset += 1;
            continue;
        }
        let end = (width + offset + 1).min(len);
        let space = b[offset..end]
            .iter()
            .rposition(|&c| c == b' ')
            .map(|p| p + offset);
        match space {
            Some(at) => {
                out.push_str(&bytes_of(text, offset, at));
                out.push_str(newline);
                offset = at + 1;
            }
            None if wrap_long => {
                out.push_str(&bytes_of(text, offset, width + offset));
                out.push_str(newline);
                offset += width;
            }
            None => {
                let end = width + offset;
                match b[end..].iter().position(|&c| c == b' ') {
                    None => {
                        out.push_str(&bytes_of(text, offset, len));
                        offset = len;
                    }
                    Some(i) => {
                        let at = i + end;
                        out.push_str(&bytes_of(text, offset, at));
                        out.push_str(newline);
                        offset = at + 1;
                    }
                }
            }
        }
    }
    out.push_str(&bytes_of(text, offset, len));
    out
}

fn wrap(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("wrap", a, 2)?;
    let width = args::int(&a[0])?;
    s(wrap_custom(args::string(&a[1])?, width, "\n", false))
}

fn wrap_with(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("wrapWith", a, 3)?;
    let width = args::int(&a[0])?;
    let sep = args::string(&a[1])?;
    s(wrap_custom(args::string(&a[2])?, width, sep, true))
}

fn two_strings<'a>(name: &str, a: &'a [Value]) -> Result<(&'a str, &'a str)> {
    exact(name, a, 2)?;
    Ok((args::string(&a[0])?, args::string(&a[1])?))
}

fn contains(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    let (needle, text) = two_strings("contains", a)?;
    Ok(Value::Bool(text.contains(needle)))
}

fn has_prefix(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    let (prefix, text) = two_strings("hasPrefix", a)?;
    Ok(Value::Bool(text.starts_with(prefix)))
}

fn has_suffix(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    let (suffix, text) = two_strings("hasSuffix", a)?;
    Ok(Value::Bool(text.ends_with(suffix)))
}

fn quote(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    let parts: Vec<String> = a
        .iter()
        .filter(|v| !matches!(v, Value::Nil))
        .map(|v| go_quote(&strval(v)))
        .collect();
    s(parts.join(" "))
}

fn squote(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    let parts: Vec<String> = a
        .iter()
        .filter(|v| !matches!(v, Value::Nil))
        .map(|v| format!("'{}'", strval(v)))
        .collect();
    s(parts.join(" "))
}

fn cat(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    let parts: Vec<String> = a
        .iter()
        .filter(|v| !matches!(v, Value::Nil))
        .map(super::gofmt::format_v)
        .collect();
    s(parts.join(" "))
}

fn indent_text(name: &str, a: &[Value]) -> Result<String> {
    exact(name, a, 2)?;
    let spaces = args::int(&a[0])?;
    let text = args::string(&a[1])?;
    if spaces < 0 {
        return err("strings: negative Repeat count");
    }
    let pad = " ".repeat((spaces as usize).min(MAX_OUTPUT));
    if (text.matches('\n').count() + 1).saturating_mul(pad.len()) > MAX_OUTPUT {
        return err("strings: Repeat output length overflow");
    }
    Ok(format!("{pad}{}", text.replace('\n', &format!("\n{pad}"))))
}

fn indent(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    s(indent_text("indent", a)?)
}

fn nindent(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    s(format!("\n{}", indent_text("nindent", a)?))
}

fn replace(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("replace", a, 3)?;
    let old = args::string(&a[0])?;
    let new = args::string(&a[1])?;
    let text = args::string(&a[2])?;
    s(text.replace(old, new))
}

fn plural(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("plural", a, 3)?;
    let one = args::string(&a[0])?;
    let many = args::string(&a[1])?;
    let count = args::int(&a[2])?;
    s(if count == 1 { one } else { many })
}

fn to_string(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("toString", a, 1)?;
    s(strval(&a[0]))
}

/// `strings.Split`/`SplitN`: an empty separator splits into UTF-8 characters.
fn go_split(text: &str, sep: &str, n: i64) -> Vec<String> {
    if n == 0 {
        return Vec::new();
    }
    if sep.is_empty() {
        let chars: Vec<String> = text.chars().map(String::from).collect();
        if n > 0 && (n as usize) < chars.len() {
            let head = n as usize - 1;
            let rest_start: usize = chars.iter().take(head).map(String::len).sum();
            let mut out: Vec<String> = chars.into_iter().take(head).collect();
            out.push(text[rest_start..].to_string());
            return out;
        }
        return chars;
    }
    if n < 0 {
        text.split(sep).map(String::from).collect()
    } else {
        text.splitn(n as usize, sep).map(String::from).collect()
    }
}

fn indexed_map(parts: Vec<String>) -> Value {
    Value::map(
        parts
            .into_iter()
            .enumerate()
            .map(|(i, p)| (format!("_{i}"), Value::String(p)))
            .collect::<BTreeMap<_, _>>(),
    )
}

fn split(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    let (sep, text) = two_strings("split", a)?;
    Ok(indexed_map(go_split(text, sep, -1)))
}

fn split_list(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    let (sep, text) = two_strings("splitList", a)?;
    Ok(Value::List(
        go_split(text, sep, -1)
            .into_iter()
            .map(Value::String)
            .collect(),
    ))
}

fn splitn(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("splitn", a, 3)?;
    let sep = args::string(&a[0])?;
    let n = args::int(&a[1])?;
    let text = args::string(&a[2])?;
    Ok(indexed_map(go_split(text, sep, n)))
}

fn to_strings(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("toStrings", a, 1)?;
    Ok(Value::List(
        strslice(&a[0]).into_iter().map(Value::String).collect(),
    ))
}

fn join(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("join", a, 2)?;
    let sep = args::string(&a[0])?;
    s(strslice(&a[1]).join(sep))
}

fn sort_alpha(_: &mut FuncEnv, a: &[Value]) -> Result<Value> {
    exact("sortAlpha", a, 1)?;
    let mut items = match &a[0] {
        Value::List(_) => strslice(&a[0]),
        other => vec![strval(other)],
    };
    items.sort();
    Ok(Value::List(items.into_iter().map(Value::String).collect()))
}
