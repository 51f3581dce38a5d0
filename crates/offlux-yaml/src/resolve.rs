//! Scalar type resolution for the two readers offlux imitates, and conversion of a tree to JSON
//! data as each of them would see it:
//!
//! - the **kyaml profile** is what kustomize sees (go-yaml v3, YAML 1.2 core schema plus Go's
//!   `ParseInt(s, 0, 64)` quirks: `0644` is octal 420, `0o17` and `1_000` are ints);
//! - the **Helm profile** is what Helm sees through `sigs.k8s.io/yaml` (go-yaml v2, YAML 1.1):
//!   `yes/no/on/off/y/n` are booleans and every number ends up a float64 after the JSON step.
//!
//! Not for: parsing or printing; this module only interprets scalar text.

use serde_json::{Map, Number, Value};

use super::node::{Node, Scalar};

/// What a scalar means to a reader.
#[derive(Clone, Debug, PartialEq)]
pub enum Resolved {
    Null,
    Bool(bool),
    Int(i64),
    /// An integer above `i64::MAX` that still fits 64 unsigned bits.
    Uint(u64),
    Float(f64),
    Str,
}

/// Which reader to imitate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Schema {
    /// go-yaml v3 (kyaml): YAML 1.2 core booleans only.
    V3,
    /// go-yaml v2 (sigs.k8s.io/yaml): YAML 1.1 booleans as well.
    V2,
}

/// Text that every reader imitated here takes for a string and that every emitter prints plain:
/// an ASCII letter, then letters, digits and `-_./`, and not one of YAML 1.1's or 1.2's words for
/// null or a boolean (no number, timestamp or indicator starts with a letter). Most keys and values
/// are such words; callers skip the resolvers and the emitter's analysis for them.
pub fn is_plain_word(text: &str) -> bool {
    const WORD_BYTE: [bool; 256] = {
        let mut table = [false; 256];
        let mut b = 0;
        while b < 256 {
            let c = b as u8;
            table[b] = c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.' | b'/');
            b += 1;
        }
        table
    };
    let bytes = text.as_bytes();
    bytes.first().is_some_and(u8::is_ascii_alphabetic)
        && bytes.iter().all(|&b| WORD_BYTE[usize::from(b)])
        // The null and boolean words are all five letters or fewer.
        && (bytes.len() > 5 || !is_null_or_bool_word(text))
}

fn is_null_or_bool_word(text: &str) -> bool {
    matches!(
        text,
        "null"
            | "Null"
            | "NULL"
            | "true"
            | "True"
            | "TRUE"
            | "false"
            | "False"
            | "FALSE"
            | "y"
            | "Y"
            | "yes"
            | "Yes"
            | "YES"
            | "on"
            | "On"
            | "ON"
            | "n"
            | "N"
            | "no"
            | "No"
            | "NO"
            | "off"
            | "Off"
            | "OFF"
    )
}

/// How kustomize (go-yaml v3) types a scalar.
pub fn resolve_kyaml(scalar: &Scalar) -> Resolved {
    resolve_scalar(scalar, Schema::V3)
}

/// How Helm (go-yaml v2 behind `sigs.k8s.io/yaml`) types a scalar, before the JSON step turns
/// numbers into floats.
pub fn resolve_helm(scalar: &Scalar) -> Resolved {
    resolve_scalar(scalar, Schema::V2)
}

/// True when a go-yaml v2 (YAML 1.1) reader would not read `value`, written plain, back as the same
/// string: it would see a boolean, number, null or timestamp, or it is a base-60 number that v2
/// quotes to be safe. Emitters quote such strings.
pub fn scalar_needs_quoting(value: &str) -> bool {
    resolve_plain(value, Schema::V2) != Resolved::Str
        || is_base60_float(value)
        || is_timestamp(value)
}

fn resolve_scalar(scalar: &Scalar, schema: Schema) -> Resolved {
    match scalar.tag.as_deref() {
        None => {
            if scalar.style.is_quoted() {
                Resolved::Str
            } else {
                resolve_plain(&scalar.value, schema)
            }
        }
        Some("!!str") | Some("!") | Some("!!binary") => Resolved::Str,
        Some("!!null") => Resolved::Null,
        Some("!!bool") => match resolve_plain(&scalar.value, schema) {
            Resolved::Bool(b) => Resolved::Bool(b),
            _ => Resolved::Str,
        },
        Some("!!int") => match resolve_plain(&scalar.value, schema) {
            r @ (Resolved::Int(_) | Resolved::Uint(_)) => r,
            _ => Resolved::Str,
        },
        Some("!!float") => match resolve_plain(&scalar.value, schema) {
            Resolved::Int(i) => Resolved::Float(i as f64),
            Resolved::Uint(u) => Resolved::Float(u as f64),
            r @ Resolved::Float(_) => r,
            _ => Resolved::Str,
        },
        // Unknown and application tags are not resolved by go-yaml: the text stays a string.
        Some(_) => Resolved::Str,
    }
}

/// Resolves plain text the way go-yaml's `resolve("", text)` does for a plain scalar decoded into
/// an `interface{}` (timestamps stay strings there, for backward compatibility).
fn resolve_plain(text: &str, schema: Schema) -> Resolved {
    match text {
        "" | "~" | "null" | "Null" | "NULL" => return Resolved::Null,
        "true" | "True" | "TRUE" => return Resolved::Bool(true),
        "false" | "False" | "FALSE" => return Resolved::Bool(false),
        ".nan" | ".NaN" | ".NAN" => return Resolved::Float(f64::NAN),
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" => {
            return Resolved::Float(f64::INFINITY)
        }
        "-.inf" | "-.Inf" | "-.INF" => return Resolved::Float(f64::NEG_INFINITY),
        _ => {}
    }
    if schema == Schema::V2 {
        match text {
            "y" | "Y" | "yes" | "Yes" | "YES" | "on" | "On" | "ON" => return Resolved::Bool(true),
            "n" | "N" | "no" | "No" | "NO" | "off" | "Off" | "OFF" => return Resolved::Bool(false),
            _ => {}
        }
    }
    let Some(first) = text.bytes().next() else {
        return Resolved::Null;
    };
    match first {
        b'.' => {
            if is_yaml_style_float(text) {
                if let Ok(f) = text.parse::<f64>().map_err(drop).and_then(finite) {
                    return Resolved::Float(f);
                }
            }
            Resolved::Str
        }
        b'0'..=b'9' | b'+' | b'-' => {
            if is_timestamp(text) {
                // Decoded into `interface{}`, go-yaml keeps timestamps as strings.
                return Resolved::Str;
            }
            let plain = without_underscores(text);
            if let Some(n) = go_parse_int(&plain) {
                if let Ok(i) = i64::try_from(n) {
                    return Resolved::Int(i);
                }
                if let Ok(u) = u64::try_from(n) {
                    if !plain.starts_with(['+', '-']) {
                        return Resolved::Uint(u);
                    }
                }
            }
            if is_yaml_style_float(&plain) {
                // Go's ParseFloat fails on overflow (`1e400`), leaving the text a string.
                if let Ok(f) = plain.parse::<f64>().map_err(drop).and_then(finite) {
                    return Resolved::Float(f);
                }
            }
            Resolved::Str
        }
        _ => Resolved::Str,
    }
}

/// `text` with its `_` digit separators removed, as Go's number parsing reads it; most numbers
/// have none, and then nothing is copied.
pub fn without_underscores(text: &str) -> std::borrow::Cow<'_, str> {
    if text.contains('_') {
        std::borrow::Cow::Owned(text.replace('_', ""))
    } else {
        std::borrow::Cow::Borrowed(text)
    }
}

fn finite(f: f64) -> Result<f64, ()> {
    if f.is_finite() {
        Ok(f)
    } else {
        Err(())
    }
}

/// Go's `strconv.ParseInt(s, 0, 64)` syntax (sign, then `0x`/`0o`/`0b` prefix or a leading `0` for
/// octal), returning a wide value so the caller can decide between int64 and uint64.
fn go_parse_int(s: &str) -> Option<i128> {
    let (negative, digits) = match s.as_bytes().first()? {
        b'+' => (false, s.get(1..)?),
        b'-' => (true, s.get(1..)?),
        _ => (false, s),
    };
    let lower = digits.to_ascii_lowercase();
    let (radix, body) = if let Some(rest) = lower.strip_prefix("0x") {
        (16, rest)
    } else if let Some(rest) = lower.strip_prefix("0o") {
        (8, rest)
    } else if let Some(rest) = lower.strip_prefix("0b") {
        (2, rest)
    } else if lower.len() > 1 && lower.starts_with('0') {
        (8, lower.get(1..)?)
    } else {
        (10, lower.as_str())
    };
    if body.is_empty() || !body.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    let magnitude = u128::from_str_radix(body, radix).ok()?;
    if magnitude > u128::from(u64::MAX) {
        return None;
    }
    let value = i128::try_from(magnitude).ok()?;
    let value = if negative { -value } else { value };
    if value < i128::from(i64::MIN) {
        return None;
    }
    Some(value)
}

/// go-yaml's `^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`.
fn is_yaml_style_float(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    if matches!(b.first(), Some(b'+' | b'-')) {
        i += 1;
    }
    let digits = |i: &mut usize| {
        let start = *i;
        while b.get(*i).is_some_and(u8::is_ascii_digit) {
            *i += 1;
        }
        *i - start
    };
    if b.get(i) == Some(&b'.') {
        i += 1;
        if digits(&mut i) == 0 {
            return false;
        }
    } else {
        if digits(&mut i) == 0 {
            return false;
        }
        if b.get(i) == Some(&b'.') {
            i += 1;
            digits(&mut i);
        }
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        if digits(&mut i) == 0 {
            return false;
        }
    }
    i == b.len()
}

/// go-yaml v2's `^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$`: YAML 1.1 sexagesimal numbers.
/// v2 does not decode them as numbers but quotes such strings on output.
pub(super) fn is_base60_float(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    if matches!(b.first(), Some(b'+' | b'-')) {
        i += 1;
    }
    if !b.get(i).is_some_and(u8::is_ascii_digit) {
        return false;
    }
    while b.get(i).is_some_and(|c| c.is_ascii_digit() || *c == b'_') {
        i += 1;
    }
    let mut groups = 0;
    while b.get(i) == Some(&b':') {
        i += 1;
        let start = i;
        if b.get(i).is_some_and(|c| (b'0'..=b'5').contains(c))
            && b.get(i + 1).is_some_and(u8::is_ascii_digit)
        {
            i += 2;
        } else if b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        if i == start {
            return false;
        }
        groups += 1;
    }
    if groups == 0 {
        return false;
    }
    if b.get(i) == Some(&b'.') {
        i += 1;
        while b.get(i).is_some_and(|c| c.is_ascii_digit() || *c == b'_') {
            i += 1;
        }
    }
    i == b.len()
}

/// A timestamp as go-yaml reads one, broken into its fields.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Timestamp {
    pub year: u32,
    pub month: u32,
    pub day: u32,
    pub hour: u32,
    pub minute: u32,
    pub second: u32,
    /// Fraction-of-second digits as written (may be empty).
    pub fraction: String,
    /// Offset east of UTC in minutes.
    pub offset_minutes: i32,
}

impl Timestamp {
    /// Go's `time.Time` JSON form (RFC 3339 with nanoseconds, trailing zeros trimmed).
    pub(crate) fn rfc3339(&self) -> String {
        let mut out = format!(
            "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}",
            self.year, self.month, self.day, self.hour, self.minute, self.second
        );
        let mut fraction: String = self.fraction.chars().take(9).collect();
        while fraction.ends_with('0') {
            fraction.pop();
        }
        if !fraction.is_empty() {
            out.push('.');
            out.push_str(&fraction);
        }
        if self.offset_minutes == 0 {
            out.push('Z');
        } else {
            let sign = if self.offset_minutes < 0 { '-' } else { '+' };
            let m = self.offset_minutes.unsigned_abs();
            out.push_str(&format!("{sign}{:02}:{:02}", m / 60, m % 60));
        }
        out
    }
}

fn is_timestamp(s: &str) -> bool {
    parse_timestamp(s).is_some()
}

/// go-yaml's timestamp layouts, tried as Go's `time.Parse` would: `2006-1-2`,
/// `2006-1-2T15:4:5.999999999Z07:00` (also with `t`) and `2006-1-2 15:4:5.999999999`.
pub(super) fn parse_timestamp(s: &str) -> Option<Timestamp> {
    let b = s.as_bytes();
    let mut i = 0;
    let num = |i: &mut usize, min: usize, max: usize| -> Option<u32> {
        let start = *i;
        while *i - start < max && b.get(*i).is_some_and(u8::is_ascii_digit) {
            *i += 1;
        }
        if *i - start < min {
            return None;
        }
        s.get(start..*i)?.parse().ok()
    };
    let lit = |i: &mut usize, c: u8| -> Option<()> {
        if b.get(*i) == Some(&c) {
            *i += 1;
            Some(())
        } else {
            None
        }
    };
    let year = num(&mut i, 4, 4)?;
    lit(&mut i, b'-')?;
    let month = num(&mut i, 1, 2)?;
    lit(&mut i, b'-')?;
    let day = num(&mut i, 1, 2)?;
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let days = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return None,
    };
    if day < 1 || day > days {
        return None;
    }
    let mut t = Timestamp {
        year,
        month,
        day,
        hour: 0,
        minute: 0,
        second: 0,
        fraction: String::new(),
        offset_minutes: 0,
    };
    if i == b.len() {
        return Some(t);
    }
    let separator = *b.get(i)?;
    if !matches!(separator, b'T' | b't' | b' ') {
        return None;
    }
    i += 1;
    t.hour = num(&mut i, 1, 2)?;
    lit(&mut i, b':')?;
    t.minute = num(&mut i, 1, 2)?;
    lit(&mut i, b':')?;
    t.second = num(&mut i, 1, 2)?;
    if t.hour > 23 || t.minute > 59 || t.second > 59 {
        return None;
    }
    if b.get(i) == Some(&b'.') {
        i += 1;
        let start = i;
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        if i == start {
            return None;
        }
        t.fraction = s.get(start..i)?.to_string();
    }
    if separator == b' ' {
        // The space layout has no zone: the time is UTC.
        return (i == b.len()).then_some(t);
    }
    match b.get(i) {
        Some(b'Z') => (i + 1 == b.len()).then_some(t),
        Some(&sign @ (b'+' | b'-')) => {
            i += 1;
            let h = num(&mut i, 2, 2)?;
            lit(&mut i, b':')?;
            let m = num(&mut i, 2, 2)?;
            if i != b.len() {
                return None;
            }
            let minutes = i32::try_from(h * 60 + m).ok()?;
            t.offset_minutes = if sign == b'-' { -minutes } else { minutes };
            Some(t)
        }
        _ => None,
    }
}

/// The timestamp go-yaml v3 decodes a scalar to, if any: an untagged plain timestamp or one tagged
/// `!!timestamp`. kustomize then prints it in Go's RFC 3339 JSON form.
pub(super) fn kyaml_timestamp(s: &Scalar) -> Option<Timestamp> {
    let eligible = match s.tag.as_deref() {
        None => !s.style.is_quoted(),
        Some(tag) => tag == "!!timestamp",
    };
    if eligible {
        parse_timestamp(&s.value)
    } else {
        None
    }
}

/// The JSON data kustomize works on for this node (go-yaml v3 decoding into `interface{}`;
/// timestamps become RFC 3339 strings as Go's `time.Time` marshals). Non-finite floats, which Go's
/// JSON encoder refuses, become `null`.
pub fn to_json_kyaml(node: &Node) -> Value {
    to_json(node, &|s| match resolve_kyaml(s) {
        Resolved::Str if kyaml_timestamp(s).is_some() => {
            Value::String(kyaml_timestamp(s).map(|t| t.rfc3339()).unwrap_or_default())
        }
        Resolved::Null => Value::Null,
        Resolved::Bool(b) => Value::Bool(b),
        Resolved::Int(i) => Value::Number(Number::from(i)),
        Resolved::Uint(u) => Value::Number(Number::from(u)),
        Resolved::Float(f) => Number::from_f64(f).map_or(Value::Null, Value::Number),
        Resolved::Str => Value::String(s.value.to_string()),
    })
}

/// The JSON data Helm works on for this node: go-yaml v2 typing, then JSON, where every number
/// becomes a float64. Non-finite floats, which Go's JSON encoder refuses, become `null`.
pub fn to_json_helm(node: &Node) -> Value {
    to_json(node, &|s| match resolve_helm(s) {
        Resolved::Null => Value::Null,
        Resolved::Bool(b) => Value::Bool(b),
        Resolved::Int(i) => float(i as f64),
        Resolved::Uint(u) => float(u as f64),
        Resolved::Float(f) => float(f),
        Resolved::Str => Value::String(s.value.to_string()),
    })
}

fn float(f: f64) -> Value {
    Number::from_f64(f).map_or(Value::Null, Value::Number)
}

fn to_json(node: &Node, scalar: &dyn Fn(&Scalar) -> Value) -> Value {
    match node {
        Node::Scalar(s) => scalar(s),
        Node::Sequence(seq) => Value::Array(seq.items.iter().map(|i| to_json(i, scalar)).collect()),
        Node::Mapping(m) => {
            let mut out = Map::new();
            for entry in &m.entries {
                out.insert(json_key(&entry.key, scalar), to_json(&entry.value, scalar));
            }
            Value::Object(out)
        }
    }
}

/// Keys become strings the way `sigs.k8s.io/yaml` stringifies non-string keys (`yes:` under the
/// Helm profile is the key `"true"`).
fn json_key(key: &Scalar, scalar: &dyn Fn(&Scalar) -> Value) -> String {
    match scalar(key) {
        Value::String(s) => s,
        Value::Bool(b) => b.to_string(),
        Value::Null => "null".to_string(),
        Value::Number(n) => match (n.as_i64(), n.as_f64()) {
            (Some(i), _) => i.to_string(),
            (None, Some(f)) if f.fract() == 0.0 && f.abs() < 1e21 => format!("{f:.0}"),
            _ => key.value.to_string(),
        },
        _ => key.value.to_string(),
    }
}

#[cfg(test)]
mod plain_word_tests {
    #[test]
    fn plain_words_are_strings_to_every_reader_and_nothing_else_is() {
        for word in [
            "nginx",
            "app.kubernetes.io/name",
            "a-b_c",
            "Yesterday",
            "nulls",
            "x1",
        ] {
            assert!(super::is_plain_word(word), "{word}");
        }
        for not_word in [
            "", "yes", "No", "ON", "off", "y", "N", "null", "NULL", "true", "False", "1a", "-a",
            ".a", "a b", "a:b", "a#b", "é", "a,b", "${X}",
        ] {
            assert!(!super::is_plain_word(not_word), "{not_word}");
        }
    }
}
