//! YAML for Helm's `toYaml`/`toYamlPretty`/`fromYaml`/`fromYamlArray`: an emitter that prints what
//! `sigs.k8s.io/yaml` (go-yaml v2: natural key order, 80-column folding, indentless sequences)
//! and go-yaml v3 with indent 2 print, and a reader that decodes as `sigs.k8s.io/yaml` does (YAML
//! 1.1 scalars, then JSON, so every number becomes a float).
//!
//! Written here because `crate::yaml` (the kustomize-faithful layer) is not ready on this branch
//! and has a different job; the two could share the scalar resolver later.
//!
//! Not for: comments, anchors on output, or documents beyond the first on input.

use std::borrow::Cow;
use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::fmt::Write as _;

use saphyr_parser::{Event, Parser, ScalarStyle};

use super::super::value::Value;
use super::args::parse_go_int;
use super::gofmt::{format_float_g, json_kind};

/// Which encoder to imitate.
#[derive(Clone, Copy, PartialEq)]
pub enum Flavor {
    /// `sigs.k8s.io/yaml` (go-yaml v2) as `toYaml` uses it.
    V2,
    /// go-yaml v3 with `SetIndent(2)`, as `toYamlPretty` uses it.
    V3Pretty,
}

/// Marshals a value; the result ends with a newline as the Go encoders' does.
pub fn to_yaml(v: &Value, flavor: Flavor) -> Result<String, String> {
    // sigs.k8s.io/yaml goes through JSON (integral floats become integers); go-yaml v3 encodes
    // the Go values directly, so a float stays a float (`1.2345678e+07`).
    let v = match flavor {
        Flavor::V2 => jsonify(v)?,
        Flavor::V3Pretty => v.clone(),
    };
    let mut e = Emitter {
        out: String::new(),
        flavor,
    };
    match &v {
        Value::Map(m) if !m.is_empty() => e.map(m, 0, true),
        Value::List(l) if !l.is_empty() => e.seq(l, 0, true),
        other => e.scalar(other, 2, false),
    }
    if !e.out.ends_with('\n') {
        e.out.push('\n');
    }
    Ok(e.out)
}

/// What a JSON round trip does to a value: non-finite floats are errors and integral floats
/// become integers (`sigs.k8s.io/yaml` marshals through JSON).
fn jsonify(v: &Value) -> Result<Value, String> {
    Ok(match v {
        Value::Float(f) if !f.is_finite() => {
            return Err(format!(
                "error marshaling into JSON: json: unsupported value: {}",
                format_float_g(*f)
            ))
        }
        Value::Float(f) if f.fract() == 0.0 && f.abs() < 1e21 => {
            if f.abs() < 9.2e18 {
                Value::Int(*f as i64)
            } else {
                Value::Float(*f)
            }
        }
        Value::Complex(..) => {
            return Err("error marshaling into JSON: json: unsupported type: complex128".into())
        }
        Value::List(l) => Value::List(l.iter().map(jsonify).collect::<Result<_, _>>()?),
        Value::Map(m) => Value::map(
            m.iter()
                .map(|(k, v)| Ok((k.clone(), jsonify(v)?)))
                .collect::<Result<_, String>>()?,
        ),
        other => other.clone(),
    })
}

/// go-yaml's key order: digit runs compare as numbers, non-letters sort before letters.
pub fn natural_cmp(a: &str, b: &str) -> Ordering {
    let ar: Vec<char> = a.chars().collect();
    let br: Vec<char> = b.chars().collect();
    let mut i = 0;
    while i < ar.len() && i < br.len() {
        if ar[i] == br[i] {
            i += 1;
            continue;
        }
        let al = ar[i].is_alphabetic();
        let bl = br[i].is_alphabetic();
        if al && bl {
            return ar[i].cmp(&br[i]);
        }
        if al || bl {
            return if bl {
                Ordering::Less
            } else {
                Ordering::Greater
            };
        }
        let (mut an, mut bn) = (0i128, 0i128);
        if ar[i] == '0' || br[i] == '0' {
            let mut j = i;
            while j > 0 && ar[j - 1].is_ascii_digit() {
                j -= 1;
                if ar[j] != '0' {
                    an = 1;
                    bn = 1;
                    break;
                }
            }
        }
        let mut ai = i;
        while ai < ar.len() && ar[ai].is_ascii_digit() {
            an = an
                .saturating_mul(10)
                .saturating_add(i128::from(ar[ai] as u8 - b'0'));
            ai += 1;
        }
        let mut bi = i;
        while bi < br.len() && br[bi].is_ascii_digit() {
            bn = bn
                .saturating_mul(10)
                .saturating_add(i128::from(br[bi] as u8 - b'0'));
            bi += 1;
        }
        if an != bn {
            return an.cmp(&bn);
        }
        if ai != bi {
            return ai.cmp(&bi);
        }
        return ar[i].cmp(&br[i]);
    }
    ar.len().cmp(&br.len())
}

struct Emitter {
    out: String,
    flavor: Flavor,
}

const BEST_WIDTH: usize = 80;

impl Emitter {
    fn newline(&mut self, indent: usize) {
        if !self.out.is_empty() && !self.out.ends_with('\n') {
            self.out.push('\n');
        }
        for _ in 0..indent {
            self.out.push(' ');
        }
    }

    fn column(&self) -> usize {
        let line = self.out.rsplit('\n').next().unwrap_or("");
        line.chars().count()
    }

    fn map(&mut self, m: &BTreeMap<String, Value>, indent: usize, inline_first: bool) {
        // go-yaml v2 and v3 share this key order.
        let mut keys: Vec<&String> = m.keys().collect();
        keys.sort_by(|a, b| natural_cmp(a, b));
        for (i, k) in keys.into_iter().enumerate() {
            if i > 0 || !inline_first {
                self.newline(indent);
            }
            // A key longer than 128 characters cannot be a simple key: it is written `? key`.
            if k.chars().count() > 128 {
                self.out.push_str("? ");
                self.scalar(&Value::String(k.clone()), indent + 2, true);
                self.newline_force(indent);
            } else {
                self.scalar(&Value::String(k.clone()), indent + 2, true);
            }
            self.out.push(':');
            let v = &m[k];
            match v {
                Value::Map(sub) if !sub.is_empty() => self.map(sub, indent + 2, false),
                Value::List(items) if !items.is_empty() => {
                    let seq_indent = if self.flavor == Flavor::V2 {
                        indent
                    } else {
                        indent + 2
                    };
                    self.seq(items, seq_indent, false)
                }
                other => {
                    self.out.push(' ');
                    self.scalar(other, indent + 2, false);
                }
            }
        }
    }

    fn seq(&mut self, items: &[Value], indent: usize, inline_first: bool) {
        for (i, item) in items.iter().enumerate() {
            if i > 0 || !inline_first {
                self.newline(indent);
            }
            self.out.push_str("- ");
            match item {
                Value::Map(m) if !m.is_empty() => self.map(m, indent + 2, true),
                Value::List(l) if !l.is_empty() => self.seq(l, indent + 2, true),
                other => self.scalar(other, indent + 2, false),
            }
        }
    }

    /// Writes a scalar (or an empty collection) at the cursor; `indent` is where continuation
    /// lines go.
    fn scalar(&mut self, v: &Value, indent: usize, key: bool) {
        match v {
            Value::Nil => self.out.push_str("null"),
            Value::Bool(b) => self.out.push_str(if *b { "true" } else { "false" }),
            Value::Int(i) => {
                let _ = write!(self.out, "{i}");
            }
            Value::Float(f) => self.out.push_str(&format_float_g(*f)),
            Value::Map(_) => self.out.push_str("{}"),
            Value::List(_) => self.out.push_str("[]"),
            Value::String(s) => self.string(s, indent, key),
            Value::Complex(..) => self.out.push_str(&v.to_string()),
        }
    }

    fn string(&mut self, s: &str, indent: usize, key: bool) {
        let a = analyze(s);
        let can_plain = !needs_quotes(s);
        let multiline = s.contains('\n');
        let folding = self.flavor == Flavor::V2 && !key;
        // go-yaml asks for literal, plain or double-quoted style; libyaml then falls back from
        // styles the text does not allow.
        if multiline {
            if !key && a.block_allowed {
                self.literal(s, indent);
            } else {
                self.double(s, indent, folding);
            }
        } else if can_plain && a.plain_allowed {
            self.plain(s, indent, folding, false);
        } else if can_plain && a.single_allowed {
            self.out.push('\'');
            self.plain(s, indent, folding, true);
            self.out.push('\'');
        } else {
            self.double(s, indent, folding);
        }
    }

    fn plain(&mut self, s: &str, indent: usize, folding: bool, single: bool) {
        let chars: Vec<char> = s.chars().collect();
        let mut col = self.column();
        let mut spaces = false;
        let mut breaks = false;
        for (i, &c) in chars.iter().enumerate() {
            if c == ' ' {
                let next_space = chars.get(i + 1) == Some(&' ');
                let edge = single && (i == 0 || i + 1 == chars.len());
                if folding && !spaces && col > BEST_WIDTH && !next_space && !edge {
                    self.newline_force(indent);
                    col = indent;
                } else {
                    self.out.push(' ');
                    col += 1;
                }
                spaces = true;
            } else if c == '\n' {
                // Only single-quoted scalars carry breaks: a break is written doubled.
                if !breaks {
                    self.out.push('\n');
                }
                self.out.push('\n');
                breaks = true;
                col = 0;
            } else {
                if breaks {
                    for _ in 0..indent {
                        self.out.push(' ');
                    }
                    col = indent;
                    breaks = false;
                }
                if single && c == '\'' {
                    self.out.push('\'');
                    col += 1;
                }
                self.out.push(c);
                col += 1;
                spaces = false;
            }
        }
    }

    fn newline_force(&mut self, indent: usize) {
        self.out.push('\n');
        for _ in 0..indent {
            self.out.push(' ');
        }
    }

    fn double(&mut self, s: &str, indent: usize, folding: bool) {
        self.out.push('"');
        let chars: Vec<char> = s.chars().collect();
        let mut col = self.column();
        let mut spaces = false;
        for (i, &c) in chars.iter().enumerate() {
            let escaped: Option<Cow<'static, str>> = match c {
                '\0' => Some("\\0".into()),
                '\u{7}' => Some("\\a".into()),
                '\u{8}' => Some("\\b".into()),
                '\t' => Some("\\t".into()),
                '\n' => Some("\\n".into()),
                '\u{b}' => Some("\\v".into()),
                '\u{c}' => Some("\\f".into()),
                '\r' => Some("\\r".into()),
                '\u{1b}' => Some("\\e".into()),
                '"' => Some("\\\"".into()),
                '\\' => Some("\\\\".into()),
                '\u{85}' => Some("\\N".into()),
                '\u{2028}' => Some("\\L".into()),
                '\u{2029}' => Some("\\P".into()),
                '\u{feff}' => Some("\\uFEFF".into()),
                c if !is_printable(c) => Some(
                    if (c as u32) <= 0xff {
                        format!("\\x{:02X}", c as u32)
                    } else if (c as u32) <= 0xffff {
                        format!("\\u{:04X}", c as u32)
                    } else {
                        format!("\\U{:08X}", c as u32)
                    }
                    .into(),
                ),
                _ => None,
            };
            if let Some(e) = escaped {
                col += e.len();
                self.out.push_str(&e);
                spaces = false;
            } else if c == ' ' {
                if folding && !spaces && col > BEST_WIDTH && i != 0 && i + 1 != chars.len() {
                    self.newline_force(indent);
                    col = indent;
                    if chars.get(i + 1) == Some(&' ') {
                        self.out.push('\\');
                        col += 1;
                    }
                } else {
                    self.out.push(' ');
                    col += 1;
                }
                spaces = true;
            } else {
                self.out.push(c);
                col += 1;
                spaces = false;
            }
        }
        self.out.push('"');
    }

    fn literal(&mut self, s: &str, indent: usize) {
        self.out.push('|');
        if s.starts_with([' ', '\n']) {
            self.out.push('2');
        }
        if !s.ends_with('\n') {
            self.out.push('-');
        } else if s == "\n" || s.ends_with("\n\n") {
            self.out.push('+');
        }
        self.out.push('\n');
        let mut at_start = true;
        for c in s.chars() {
            if c == '\n' {
                self.out.push('\n');
                at_start = true;
            } else {
                if at_start {
                    for _ in 0..indent {
                        self.out.push(' ');
                    }
                    at_start = false;
                }
                self.out.push(c);
            }
        }
    }
}

/// go-yaml's printable set: as libyaml's, except that it has no characters beyond the BMP.
fn is_printable(c: char) -> bool {
    let u = c as u32;
    u == 0x0a
        || (0x20..=0x7e).contains(&u)
        || u == 0x85
        || (0xa0..=0xd7ff).contains(&u)
        || ((0xe000..=0xfffd).contains(&u) && u != 0xfeff)
}

struct Analysis {
    plain_allowed: bool,
    single_allowed: bool,
    block_allowed: bool,
}

/// libyaml's `yaml_emitter_analyze_scalar`, for block context.
fn analyze(s: &str) -> Analysis {
    if s.is_empty() {
        return Analysis {
            plain_allowed: false,
            single_allowed: true,
            block_allowed: false,
        };
    }
    let chars: Vec<char> = s.chars().collect();
    let mut block_indicators = s.starts_with("---") || s.starts_with("...");
    let (mut leading_space, mut leading_break, mut trailing_space, mut trailing_break) =
        (false, false, false, false);
    let (mut break_space, mut space_break, mut special, mut line_breaks) =
        (false, false, false, false);
    let (mut prev_space, mut prev_break) = (false, false);
    let mut preceded_by_ws = true;
    let is_break = |c: char| matches!(c, '\r' | '\n' | '\u{85}' | '\u{2028}' | '\u{2029}');
    let is_blank = |c: Option<&char>| match c {
        None => true,
        Some(&c) => c == ' ' || c == '\t' || is_break(c),
    };
    for (i, &c) in chars.iter().enumerate() {
        let followed_by_ws = is_blank(chars.get(i + 1));
        if i == 0 {
            if "#,[]{}&*!|>'\"%@`".contains(c) {
                block_indicators = true;
            }
            if (c == '?' || c == ':') && followed_by_ws {
                block_indicators = true;
            }
            if c == '-' && followed_by_ws {
                block_indicators = true;
            }
        } else {
            if c == ':' && followed_by_ws {
                block_indicators = true;
            }
            if c == '#' && preceded_by_ws {
                block_indicators = true;
            }
        }
        if !is_printable(c) {
            special = true;
        }
        if is_break(c) {
            line_breaks = true;
        }
        let last = i + 1 == chars.len();
        if c == ' ' {
            if i == 0 {
                leading_space = true;
            }
            if last {
                trailing_space = true;
            }
            if prev_break {
                break_space = true;
            }
            prev_space = true;
            prev_break = false;
        } else if is_break(c) {
            if i == 0 {
                leading_break = true;
            }
            if last {
                trailing_break = true;
            }
            if prev_space {
                space_break = true;
            }
            prev_break = true;
            prev_space = false;
        } else {
            prev_space = false;
            prev_break = false;
        }
        preceded_by_ws = is_blank(Some(&c));
    }
    let mut plain = true;
    let mut single = true;
    let mut block = true;
    if leading_space || leading_break || trailing_space || trailing_break {
        plain = false;
    }
    if trailing_space {
        block = false;
    }
    if break_space {
        plain = false;
        single = false;
    }
    if space_break || special {
        plain = false;
        single = false;
        block = false;
    }
    if line_breaks || block_indicators {
        plain = false;
    }
    Analysis {
        plain_allowed: plain,
        single_allowed: single,
        block_allowed: block,
    }
}

/// Whether go-yaml v2 would read the plain text back as something other than a string.
fn needs_quotes(s: &str) -> bool {
    !matches!(resolve_plain(s), Value::String(_)) || is_base60_float(s) || is_timestamp(s)
}

fn is_base60_float(s: &str) -> bool {
    let body = s.trim_start_matches(['+', '-']);
    let mut parts = body.split(':');
    let first = parts.next().unwrap_or("");
    if !first.starts_with(|c: char| c.is_ascii_digit())
        || !first.bytes().all(|b| b.is_ascii_digit() || b == b'_')
    {
        return false;
    }
    let rest: Vec<&str> = parts.collect();
    if rest.is_empty() {
        return false;
    }
    for (i, p) in rest.iter().enumerate() {
        let (num, frac) = match p.split_once('.') {
            Some((n, f)) if i + 1 == rest.len() => (n, Some(f)),
            Some(_) => return false,
            None => (*p, None),
        };
        if num.is_empty() || num.len() > 2 || !num.bytes().all(|b| b.is_ascii_digit()) {
            return false;
        }
        if num.len() == 2 && num.as_bytes()[0] > b'5' {
            return false;
        }
        if let Some(f) = frac {
            if !f.bytes().all(|b| b.is_ascii_digit() || b == b'_') {
                return false;
            }
        }
    }
    true
}

/// The timestamps go-yaml v2 recognises (and so quotes): `2006-1-2`, `2006-1-2 15:4:5.999`, and
/// `2006-1-2T15:4:5.999Z07:00` (also with a lower-case `t`).
fn is_timestamp(s: &str) -> bool {
    fn digits(s: &str, min: usize, max: usize) -> Option<&str> {
        let n = s.bytes().take(max).take_while(u8::is_ascii_digit).count();
        (n >= min).then(|| &s[n..])
    }
    fn date(s: &str) -> Option<&str> {
        let s = digits(s, 4, 4)?.strip_prefix('-')?;
        let s = digits(s, 1, 2)?.strip_prefix('-')?;
        digits(s, 1, 2)
    }
    fn clock(s: &str) -> Option<&str> {
        let s = digits(s, 1, 2)?.strip_prefix(':')?;
        let s = digits(s, 1, 2)?.strip_prefix(':')?;
        let s = digits(s, 1, 2)?;
        match s.strip_prefix('.') {
            Some(frac) => digits(frac, 1, 9),
            None => Some(s),
        }
    }
    let Some(rest) = date(s) else {
        return false;
    };
    if rest.is_empty() {
        return true;
    }
    if let Some(t) = rest.strip_prefix(' ') {
        return clock(t) == Some("");
    }
    let Some(t) = rest.strip_prefix(['T', 't']) else {
        return false;
    };
    match clock(t) {
        Some("Z") => true,
        Some(zone) => {
            let Some(z) = zone.strip_prefix(['+', '-']) else {
                return false;
            };
            digits(z, 2, 2)
                .and_then(|z| z.strip_prefix(':'))
                .and_then(|z| digits(z, 2, 2))
                == Some("")
        }
        None => false,
    }
}

/// go-yaml v2's resolution of a plain scalar (YAML 1.1 booleans, `~`, numbers with `_`).
pub fn resolve_plain(s: &str) -> Value {
    match s {
        "" | "~" | "null" | "Null" | "NULL" => return Value::Nil,
        "y" | "Y" | "yes" | "Yes" | "YES" | "true" | "True" | "TRUE" | "on" | "On" | "ON" => {
            return Value::Bool(true)
        }
        "n" | "N" | "no" | "No" | "NO" | "false" | "False" | "FALSE" | "off" | "Off" | "OFF" => {
            return Value::Bool(false)
        }
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" => {
            return Value::Float(f64::INFINITY)
        }
        "-.inf" | "-.Inf" | "-.INF" => return Value::Float(f64::NEG_INFINITY),
        ".nan" | ".NaN" | ".NAN" => return Value::Float(f64::NAN),
        _ => {}
    }
    let first = s.as_bytes()[0];
    if !(first.is_ascii_digit() || first == b'-' || first == b'+' || first == b'.') {
        return Value::String(s.to_string());
    }
    let plain = s.replace('_', "");
    if let Some(i) = parse_go_int(&plain) {
        return Value::Int(i);
    }
    if is_yaml_float(&plain) {
        if let Ok(f) = plain.parse::<f64>() {
            return Value::Float(f);
        }
    }
    if let Some(bin) = plain
        .strip_prefix("0b")
        .or_else(|| plain.strip_prefix("-0b"))
    {
        if let Ok(i) = i64::from_str_radix(bin, 2) {
            return Value::Int(if plain.starts_with('-') { -i } else { i });
        }
    }
    Value::String(s.to_string())
}

/// `^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`
fn is_yaml_float(s: &str) -> bool {
    let body = s.strip_prefix(['-', '+']).unwrap_or(s);
    let (mant, exp) = match body.find(['e', 'E']) {
        Some(i) => (&body[..i], Some(&body[i + 1..])),
        None => (body, None),
    };
    let mant_ok = match mant.split_once('.') {
        Some(("", frac)) => !frac.is_empty() && frac.bytes().all(|b| b.is_ascii_digit()),
        Some((int, frac)) => {
            !int.is_empty()
                && int.bytes().all(|b| b.is_ascii_digit())
                && frac.bytes().all(|b| b.is_ascii_digit())
        }
        None => !mant.is_empty() && mant.bytes().all(|b| b.is_ascii_digit()),
    };
    let exp_ok = match exp {
        None => true,
        Some(e) => {
            let d = e.strip_prefix(['-', '+']).unwrap_or(e);
            !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit())
        }
    };
    mant_ok && exp_ok
}

/// Decodes the first document as `sigs.k8s.io/yaml.Unmarshal` into `interface{}` would: YAML
/// 1.1 scalars, keys as strings, then JSON's view (numbers as floats).
pub fn from_yaml(text: &str) -> Result<Value, String> {
    let mut parser = Parser::new_from_str(text);
    let mut b = Builder::default();
    let mut started = false;
    let total_chars = text.chars().count();
    while let Some(ev) = parser.next_event() {
        let (mut ev, span) = ev.map_err(|e| {
            format!(
                "error converting YAML to JSON: yaml: line {}: {}",
                e.marker().line(),
                e.info()
            )
        })?;
        if let Event::Scalar(value, ScalarStyle::Literal | ScalarStyle::Folded, _, _) = &mut ev {
            crate::yaml::drop_break_added_at_end(text, total_chars, &span, value);
        }
        match ev {
            Event::DocumentStart(_) => {
                if started {
                    break;
                }
                started = true;
            }
            Event::DocumentEnd => break,
            Event::StreamStart | Event::StreamEnd | Event::Nothing => {}
            other => b.event(other).map_err(|m| {
                format!(
                    "error converting YAML to JSON: yaml: line {}: {m}",
                    span.start.line()
                )
            })?,
        }
    }
    to_json_view(b.root.unwrap_or(Value::Nil))
        .map_err(|e| format!("error converting YAML to JSON: {e}"))
}

/// JSON's view of a decoded document: numbers are float64, and infinities and NaN cannot be
/// represented.
fn to_json_view(v: Value) -> Result<Value, String> {
    Ok(match v {
        Value::Int(i) => Value::Float(i as f64),
        Value::Float(f) if !f.is_finite() => {
            return Err(format!("json: unsupported value: {}", format_float_g(f)))
        }
        Value::List(l) => Value::List(l.into_iter().map(to_json_view).collect::<Result<_, _>>()?),
        Value::Map(m) => Value::map(
            std::sync::Arc::unwrap_or_clone(m)
                .into_iter()
                .map(|(k, v)| Ok((k, to_json_view(v)?)))
                .collect::<Result<_, String>>()?,
        ),
        other => other,
    })
}

enum Frame {
    Seq(Vec<Value>, usize),
    Map(BTreeMap<String, Value>, Option<String>, usize),
}

#[derive(Default)]
struct Builder {
    stack: Vec<Frame>,
    anchors: BTreeMap<usize, Value>,
    root: Option<Value>,
    nodes: usize,
}

const MAX_NODES: usize = 1_000_000;
const MAX_DEPTH: usize = 512;

fn key_string(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Nil => "null".into(),
        Value::Float(f) => format_float_g(*f),
        other => super::gofmt::sprint(other),
    }
}

impl Builder {
    fn event(&mut self, ev: Event<'_>) -> Result<(), String> {
        match ev {
            Event::Scalar(text, style, anchor, tag) => {
                let v = if style == ScalarStyle::Plain {
                    match tag.as_deref() {
                        Some(t) if t.suffix == "str" => Value::String(text.to_string()),
                        _ => resolve_plain(&text),
                    }
                } else {
                    Value::String(text.to_string())
                };
                self.finish(v, anchor)
            }
            Event::SequenceStart(anchor, _) => {
                self.check_depth()?;
                self.stack.push(Frame::Seq(Vec::new(), anchor));
                Ok(())
            }
            Event::MappingStart(anchor, _) => {
                self.check_depth()?;
                self.stack.push(Frame::Map(BTreeMap::new(), None, anchor));
                Ok(())
            }
            Event::SequenceEnd => match self.stack.pop() {
                Some(Frame::Seq(items, anchor)) => self.finish(Value::List(items), anchor),
                _ => Err("unbalanced sequence".into()),
            },
            Event::MappingEnd => match self.stack.pop() {
                Some(Frame::Map(m, _, anchor)) => self.finish(Value::map(m), anchor),
                _ => Err("unbalanced mapping".into()),
            },
            Event::Alias(id) => {
                let v = self
                    .anchors
                    .get(&id)
                    .cloned()
                    .ok_or_else(|| "unknown anchor referenced".to_string())?;
                self.finish(v, 0)
            }
            _ => Ok(()),
        }
    }

    /// Nesting is bounded so that the recursive walks over the result cannot exhaust the stack.
    fn check_depth(&self) -> Result<(), String> {
        if self.stack.len() >= MAX_DEPTH {
            return Err(format!("document nests deeper than {MAX_DEPTH} levels"));
        }
        Ok(())
    }

    fn finish(&mut self, v: Value, anchor: usize) -> Result<(), String> {
        self.nodes += 1 + count_nodes(&v).min(MAX_NODES);
        if self.nodes > MAX_NODES {
            return Err("document is too large (alias expansion)".into());
        }
        if anchor > 0 {
            self.anchors.insert(anchor, v.clone());
        }
        match self.stack.last_mut() {
            None => self.root = Some(v),
            Some(Frame::Seq(items, _)) => items.push(v),
            Some(Frame::Map(m, key, _)) => match key.take() {
                None => *key = Some(key_string(&v)),
                Some(k) if k == "<<" => match v {
                    Value::Map(src) => merge_missing(m, std::sync::Arc::unwrap_or_clone(src)),
                    Value::List(maps) => {
                        for item in maps {
                            if let Value::Map(src) = item {
                                merge_missing(m, std::sync::Arc::unwrap_or_clone(src));
                            }
                        }
                    }
                    other => {
                        m.insert(k, other);
                    }
                },
                Some(k) => {
                    m.insert(k, v);
                }
            },
        }
        Ok(())
    }
}

fn merge_missing(dst: &mut BTreeMap<String, Value>, src: BTreeMap<String, Value>) {
    for (k, v) in src {
        dst.entry(k).or_insert(v);
    }
}

fn count_nodes(v: &Value) -> usize {
    match v {
        Value::List(l) => l.iter().map(count_nodes).sum::<usize>() + 1,
        Value::Map(m) => m.values().map(count_nodes).sum::<usize>() + 1,
        _ => 1,
    }
}

/// `json: cannot unmarshal X into Go value of type T` for a decoded value of the wrong shape.
pub fn unmarshal_type_error(v: &Value, go_type: &str) -> String {
    format!(
        "json: cannot unmarshal {} into Go value of type {go_type}",
        json_kind(v)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(pairs: &[(&str, Value)]) -> Value {
        Value::map(
            pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.clone()))
                .collect(),
        )
    }

    #[test]
    fn emits_like_go_yaml_v2() {
        let v = map(&[
            ("name", Value::String("web".into())),
            ("on", Value::String("true".into())),
            (
                "list",
                Value::List(vec![
                    Value::Int(1),
                    map(&[("a", Value::String("x: y".into()))]),
                ]),
            ),
            ("text", Value::String("a\nb\n".into())),
            ("item10", Value::Nil),
            ("item9", Value::Float(1.5)),
        ]);
        let out = to_yaml(&v, Flavor::V2).unwrap();
        assert_eq!(
            out,
            "item9: 1.5\nitem10: null\nlist:\n- 1\n- a: 'x: y'\nname: web\n\"on\": \"true\"\ntext: |\n  a\n  b\n"
        );
    }

    #[test]
    fn reads_like_sigs_yaml() {
        let v = from_yaml("a: 1\nb: [yes, ~, 'x']\nc: &x {d: 2}\ne: *x\n").unwrap();
        let expected = map(&[
            ("a", Value::Float(1.0)),
            (
                "b",
                Value::List(vec![
                    Value::Bool(true),
                    Value::Nil,
                    Value::String("x".into()),
                ]),
            ),
            ("c", map(&[("d", Value::Float(2.0))])),
            ("e", map(&[("d", Value::Float(2.0))])),
        ]);
        assert_eq!(v, expected);
    }
}
