//! Evaluation of parsed expressions, and the string functions behind each operator.
//!
//! The operators follow upstream, which is not bash in several places, and users' manifests depend
//! on the upstream behaviour:
//! - every default-style operator (`=`, `:=`, `:-`, `:+`, `:?`) yields the value when it is non-empty
//!   and the concatenated word otherwise; `:+` does not substitute the word for a set value, `:?`
//!   does not fail;
//! - lengths and substring offsets count bytes, not characters;
//! - `${v/%pat}` (suffix replacement without a replacement) leaves the value unchanged;
//! - arguments are evaluated before the variable is looked up, so in strict mode an unset variable
//!   in a default word fails even when the word is not used.

use super::error::{Error, ErrorKind};
use super::parse::{Expr, Func};
use crate::golang::glob::envsubst::Pattern;

/// Operators that supply their own value when the variable is unset, so strict mode lets them be.
fn is_default_op(op: &str) -> bool {
    matches!(op, "-" | "+" | "=" | "?" | ":-" | ":+" | ":=" | ":?")
}

pub(crate) struct Eval<'a, F> {
    pub src: &'a str,
    pub lookup: &'a F,
    pub strict: bool,
    /// Variables whose values are not to be shown: an expression that reads one, directly or in
    /// an argument, yields `REDACTED` whatever its operator (`${v:0:6}`, `${v^^}` and `${#v}`
    /// would otherwise show part of the value, or something made from it).
    pub redacted: &'a dyn Fn(&str) -> bool,
}

/// What an expression reading a redacted variable yields.
pub(crate) const REDACTED: &str = "offlux-redacted";

impl<F: Fn(&str) -> Option<String>> Eval<'_, F> {
    /// Appends the expansion of `exprs` to `out`; true when a redacted variable was read.
    pub(crate) fn exprs(&self, exprs: &[Expr], out: &mut String) -> Result<bool, Error> {
        let mut redacted = false;
        for expr in exprs {
            match expr {
                Expr::Text(text) => out.push_str(text),
                Expr::Func(func) => redacted |= self.func(func, out)?,
            }
        }
        Ok(redacted)
    }

    fn func(&self, func: &Func, out: &mut String) -> Result<bool, Error> {
        let mut args = Vec::with_capacity(func.args.len());
        let mut redacted = (self.redacted)(&func.param);
        for arg in &func.args {
            let mut value = String::new();
            redacted |= self.exprs(std::slice::from_ref(arg), &mut value)?;
            args.push(value);
        }
        let value = if self.strict {
            (self.lookup)(&func.param)
        } else {
            // Flux's default mapping reports every variable as set, an unknown one as empty.
            Some((self.lookup)(&func.param).unwrap_or_default())
        };
        let value = match value {
            Some(v) => v,
            None if is_default_op(&func.op) => String::new(),
            None => {
                return Err(Error::at(
                    ErrorKind::VariableNotSet {
                        name: func.param.clone(),
                    },
                    self.src,
                    func.offset,
                ))
            }
        };
        if redacted {
            out.push_str(REDACTED);
        } else {
            out.push_str(&apply(&func.op, &value, &args));
        }
        Ok(redacted)
    }
}

fn apply(op: &str, s: &str, args: &[String]) -> String {
    match op {
        "," => map_first(s, lower_char),
        ",," => s.chars().map(lower_char).collect(),
        "^" => map_first(s, upper_char),
        "^^" => s.chars().map(upper_char).collect(),
        "#" if args.is_empty() => s.len().to_string(),
        "#" => trim_prefix(s, args, Longest(false)),
        "##" => trim_prefix(s, args, Longest(true)),
        "%" => trim_suffix(s, args, Longest(false)),
        "%%" => trim_suffix(s, args, Longest(true)),
        ":" => substring(s, args),
        "/#" => replace_prefix(s, args),
        "/%" => replace_suffix(s, args),
        "/" => replace(s, args, Some(1)),
        "//" => replace(s, args, None),
        // `${v}`, every default-style operator, and operators the grammar reads but nothing
        // defines (such as `^,`) all yield the value, or the word when the value is empty.
        _ => {
            if s.is_empty() && !args.is_empty() {
                args.concat()
            } else {
                s.to_owned()
            }
        }
    }
}

/// Go maps case one character to one character; a character whose mapping is longer
/// (`ß` → `SS`) is left as it is.
fn upper_char(c: char) -> char {
    single(c.to_uppercase()).unwrap_or(c)
}

fn lower_char(c: char) -> char {
    single(c.to_lowercase()).unwrap_or(c)
}

fn single(mut it: impl Iterator<Item = char>) -> Option<char> {
    let c = it.next()?;
    it.next().is_none().then_some(c)
}

fn map_first(s: &str, f: fn(char) -> char) -> String {
    let mut chars = s.chars();
    match chars.next() {
        Some(c) => {
            let mut out = String::with_capacity(s.len());
            out.push(f(c));
            out.push_str(chars.as_str());
            out
        }
        None => String::new(),
    }
}

/// Parses an offset the way Go's `strconv.Atoi` does: optional sign, decimal digits, no spaces.
fn atoi(s: &str) -> Option<i64> {
    let digits = s.strip_prefix(['+', '-']).unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// `${v:pos}` and `${v:pos:len}` over bytes; an unparsable number yields the value unchanged.
fn substring(s: &str, args: &[String]) -> String {
    let bytes = s.as_bytes();
    let len = i64::try_from(bytes.len()).unwrap_or(i64::MAX);
    let slice = |from: i64, to: i64| -> String {
        let from = usize::try_from(from).unwrap_or(0);
        let to = usize::try_from(to).unwrap_or(0);
        // Byte offsets may split a character; Go would emit the raw bytes, we emit U+FFFD.
        bytes
            .get(from..to)
            .map(|b| String::from_utf8_lossy(b).into_owned())
            .unwrap_or_default()
    };
    let Some(first) = args.first() else {
        return s.to_owned();
    };
    let Some(mut pos) = atoi(first) else {
        return s.to_owned();
    };
    if pos < 0 {
        pos = (len + pos).max(0);
    }
    let Some(second) = args.get(1) else {
        return if pos < len {
            slice(pos, len)
        } else {
            String::new()
        };
    };
    let Some(length) = atoi(second) else {
        return s.to_owned();
    };
    if length < 0 {
        let end = len + length;
        return if end < pos {
            String::new()
        } else {
            slice(pos, end)
        };
    }
    match pos.checked_add(length) {
        Some(end) if end < len => slice(pos, end),
        _ if pos < len => slice(pos, len),
        _ => String::new(),
    }
}

/// Go's `strings.Replace` with `n` replacements (`None` for all). An empty pattern matches before
/// every character and at the end, as in Go (and Rust).
fn go_replace(s: &str, from: &str, to: &str, n: Option<usize>) -> String {
    match n {
        Some(n) => s.replacen(from, to, n),
        None => s.replace(from, to),
    }
}

fn replace(s: &str, args: &[String], n: Option<usize>) -> String {
    match args {
        [] => s.to_owned(),
        [from] => go_replace(s, from, "", n),
        [from, to, ..] => go_replace(s, from, to, n),
    }
}

fn replace_prefix(s: &str, args: &[String]) -> String {
    match args {
        [from, to] if s.starts_with(from.as_str()) => go_replace(s, from, to, Some(1)),
        _ => s.to_owned(),
    }
}

fn replace_suffix(s: &str, args: &[String]) -> String {
    match args {
        [from, to] => match s.strip_suffix(from.as_str()) {
            Some(rest) => format!("{rest}{to}"),
            None => s.to_owned(),
        },
        _ => s.to_owned(),
    }
}

#[derive(Clone, Copy)]
struct Longest(bool);

fn trim_prefix(s: &str, args: &[String], longest: Longest) -> String {
    let Some(pattern) = args.first() else {
        return s.to_owned();
    };
    let chars: Vec<char> = s.chars().collect();
    let pat: Vec<char> = pattern.chars().collect();
    trim_front(&chars, &pat, longest).into_iter().collect()
}

/// Suffix removal is prefix removal on the reversed value with the reversed pattern, as upstream
/// does it (so a class or escape in the pattern is read backwards too).
fn trim_suffix(s: &str, args: &[String], longest: Longest) -> String {
    let Some(pattern) = args.first() else {
        return s.to_owned();
    };
    let chars: Vec<char> = s.chars().rev().collect();
    let pat: Vec<char> = pattern.chars().rev().collect();
    let mut out = trim_front(&chars, &pat, longest);
    out.reverse();
    out.into_iter().collect()
}

/// Removes the shortest or longest non-empty prefix of `s` matching `pattern`; a malformed pattern
/// or no match leaves `s` unchanged.
fn trim_front(s: &[char], pattern: &[char], longest: Longest) -> Vec<char> {
    let pattern: String = pattern.iter().collect();
    let Ok(pattern) = Pattern::compile(&pattern) else {
        return s.to_vec();
    };
    let mut lengths: Box<dyn Iterator<Item = usize>> = if longest.0 {
        Box::new((1..=s.len()).rev())
    } else {
        Box::new(1..=s.len())
    };
    match lengths.find(|&n| s.get(..n).is_some_and(|p| pattern.matches(p))) {
        Some(n) => s.get(n..).unwrap_or_default().to_vec(),
        None => s.to_vec(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn default_operators_use_the_word_only_for_an_empty_value() {
        assert_eq!(apply(":+", "set", &args(&["alt"])), "set");
        assert_eq!(apply(":+", "", &args(&["alt"])), "alt");
        assert_eq!(apply(":-", "", &args(&["a", "b"])), "ab");
        assert_eq!(apply("", "v", &[]), "v");
    }

    #[test]
    fn substring_edges() {
        let s = "0123456789";
        assert_eq!(substring(s, &args(&["3"])), "3456789");
        assert_eq!(substring(s, &args(&["-3"])), "789");
        assert_eq!(substring(s, &args(&["-30"])), s);
        assert_eq!(substring(s, &args(&["1", "-1"])), "12345678");
        assert_eq!(substring(s, &args(&["8", "-5"])), "");
        assert_eq!(substring(s, &args(&["8", "50"])), "89");
        assert_eq!(substring(s, &args(&["20"])), "");
        assert_eq!(substring(s, &args(&[" 2"])), s);
        assert_eq!(substring(s, &args(&["2", "x"])), s);
    }

    #[test]
    fn trims() {
        let f = "a.b.c";
        assert_eq!(apply("#", f, &args(&["*."])), "b.c");
        assert_eq!(apply("##", f, &args(&["*."])), "c");
        assert_eq!(apply("%", f, &args(&[".*"])), "a.b");
        assert_eq!(apply("%%", f, &args(&[".*"])), "a");
        assert_eq!(apply("#", f, &args(&["x"])), f);
        assert_eq!(apply("#", f, &args(&["["])), f);
        assert_eq!(apply("#", f, &[]), "5");
    }

    #[test]
    fn replacements() {
        assert_eq!(apply("/", "aXbXc", &args(&["X", "-"])), "a-bXc");
        assert_eq!(apply("//", "aXbXc", &args(&["X", "-"])), "a-b-c");
        assert_eq!(apply("//", "aXbXc", &args(&["X"])), "abc");
        assert_eq!(apply("/#", "aXa", &args(&["a", "-"])), "-Xa");
        assert_eq!(apply("/#", "aXa", &args(&["X", "-"])), "aXa");
        assert_eq!(apply("/%", "aXa", &args(&["a", "-"])), "aX-");
        assert_eq!(apply("/%", "aXa", &args(&["a"])), "aXa");
        assert_eq!(apply("/#", "ab", &args(&["", "-"])), "-ab");
        assert_eq!(apply("//", "ab", &args(&["", "-"])), "-a-b-");
    }

    #[test]
    fn casing_maps_single_characters() {
        assert_eq!(apply("^", "éa", &[]), "Éa");
        assert_eq!(apply("^^", "straße", &[]), "STRAßE");
        assert_eq!(apply(",,", "ABC", &[]), "abc");
        assert_eq!(apply("^,", "abc", &[]), "abc");
    }
}
