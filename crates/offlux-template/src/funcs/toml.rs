//! TOML for Helm's `toToml`/`fromToml`: an encoder laid out as `BurntSushi/toml` lays out a map
//! (plain keys first, then tables with two-space indentation per level), and a reader for the
//! TOML that values files use (tables, arrays of tables, dotted keys, inline tables and arrays,
//! basic and literal strings, numbers, booleans; date-times are kept as strings).
//!
//! Not for: multi-line strings' full escape set, or preserving layout.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::super::value::Value;
use super::gofmt::format_float_g;

/// `toml.NewEncoder(w).Encode(v)` for a map.
pub(crate) fn to_toml(v: &Value) -> Result<String, String> {
    let m = match v {
        Value::Map(m) => m,
        // Anything else is written as a single inline value, as BurntSushi's encoder does.
        other => {
            let mut out = String::new();
            inline(&mut out, other)?;
            return Ok(out);
        }
    };
    let mut out = String::new();
    write_table(&mut out, &[], m)?;
    Ok(out)
}

fn is_table_array(v: &Value) -> bool {
    matches!(v, Value::List(l) if !l.is_empty() && l.iter().all(|i| matches!(i, Value::Map(_))))
}

fn bare_key(k: &str) -> String {
    if !k.is_empty()
        && k.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
    {
        k.to_string()
    } else {
        quote(k)
    }
}

fn quote(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{8}' => out.push_str("\\b"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\u{c}' => out.push_str("\\f"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                let _ = write!(out, "\\u{:04X}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn newline(out: &mut String) {
    if !out.is_empty() {
        out.push('\n');
    }
}

fn indent(path: &[String]) -> String {
    "  ".repeat(path.len().saturating_sub(1))
}

fn dotted(path: &[String]) -> String {
    path.iter()
        .map(|k| bare_key(k))
        .collect::<Vec<_>>()
        .join(".")
}

fn write_table(
    out: &mut String,
    path: &[String],
    m: &BTreeMap<String, Value>,
) -> Result<(), String> {
    for (k, v) in m {
        if matches!(v, Value::Nil | Value::Map(_)) || is_table_array(v) {
            continue;
        }
        let mut key = path.to_vec();
        key.push(k.clone());
        let _ = write!(out, "{}{} = ", indent(&key), bare_key(k));
        inline(out, v)?;
        out.push('\n');
    }
    for (k, v) in m {
        let mut key = path.to_vec();
        key.push(k.clone());
        match v {
            Value::Map(sub) => {
                if key.len() == 1 {
                    newline(out);
                }
                let _ = writeln!(out, "{}[{}]", indent(&key), dotted(&key));
                write_table(out, &key, sub)?;
            }
            Value::List(items) if is_table_array(v) => {
                for item in items {
                    if let Value::Map(sub) = item {
                        newline(out);
                        let _ = writeln!(out, "{}[[{}]]", indent(&key), dotted(&key));
                        write_table(out, &key, sub)?;
                    }
                }
            }
            _ => {}
        }
    }
    Ok(())
}

fn inline(out: &mut String, v: &Value) -> Result<(), String> {
    match v {
        Value::Nil => return Err("toml: cannot encode a nil value".into()),
        Value::Complex(..) => return Err("toml: unsupported type: complex128".into()),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Int(i) => {
            let _ = write!(out, "{i}");
        }
        Value::Float(f) => {
            if f.is_nan() {
                out.push_str("nan");
            } else if f.is_infinite() {
                out.push_str(if *f > 0.0 { "inf" } else { "-inf" });
            } else {
                let s = format_float_g(*f);
                out.push_str(&s);
                if !s.contains(['.', 'e']) {
                    out.push_str(".0");
                }
            }
        }
        Value::String(s) => out.push_str(&quote(s)),
        Value::List(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                inline(out, item)?;
            }
            out.push(']');
        }
        Value::Map(m) => {
            out.push('{');
            for (i, (k, item)) in m.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                let _ = write!(out, "{} = ", bare_key(k));
                inline(out, item)?;
            }
            out.push('}');
        }
    }
    Ok(())
}

/// `toml.Unmarshal` into a map; errors read `toml: line N: ...` as BurntSushi's do.
pub(crate) fn from_toml(text: &str) -> Result<Value, String> {
    let mut p = Reader {
        s: text.as_bytes(),
        text,
        pos: 0,
        depth: 0,
    };
    let mut root = BTreeMap::new();
    let mut current: Vec<String> = Vec::new();
    let mut defined: Vec<Vec<String>> = Vec::new();
    loop {
        p.skip_ws_comments_newlines();
        if p.pos >= p.s.len() {
            break;
        }
        if p.peek() == Some(b'[') {
            let array = p.s.get(p.pos + 1) == Some(&b'[');
            p.pos += if array { 2 } else { 1 };
            p.skip_ws();
            let key = p.key()?;
            p.skip_ws();
            let close: &[u8] = if array { b"]]" } else { b"]" };
            if !p.s[p.pos..].starts_with(close) {
                return Err(p.error("expected a closing bracket for the table name"));
            }
            p.pos += close.len();
            current = key.clone();
            if array {
                let parent = table_at(&mut root, &key[..key.len() - 1]).map_err(|m| p.error(&m))?;
                let last = key.last().cloned().unwrap_or_default();
                let entry = parent
                    .entry(last)
                    .or_insert_with(|| Value::List(Vec::new()));
                match entry {
                    Value::List(l) => l.push(Value::map(BTreeMap::new())),
                    _ => return Err(p.error("key is not an array of tables")),
                }
            } else {
                if defined.contains(&key) {
                    return Err(
                        p.error(&format!("Key '{}' has already been defined.", dotted(&key)))
                    );
                }
                defined.push(key.clone());
                table_at(&mut root, &key).map_err(|m| p.error(&m))?;
            }
            p.end_of_line()?;
            continue;
        }
        let key = p.key()?;
        p.skip_ws();
        if p.peek() != Some(b'=') {
            if p.pos >= p.s.len() {
                return Err(p.error("unexpected EOF; expected key separator '='"));
            }
            return Err(p.error(&format!(
                "expected key separator '=', but got '{}' instead",
                p.peek().map(char::from).unwrap_or(' ')
            )));
        }
        p.pos += 1;
        p.skip_ws();
        let value = p.value()?;
        let mut full = current.clone();
        full.extend(key.iter().take(key.len() - 1).cloned());
        let table = table_at(&mut root, &full).map_err(|m| p.error(&m))?;
        let last = key.last().cloned().unwrap_or_default();
        if table.contains_key(&last) {
            return Err(p.error(&format!("Key '{last}' has already been defined.")));
        }
        table.insert(last, value);
        p.end_of_line()?;
    }
    Ok(Value::map(root))
}

/// The table at a path, created as needed; the last element of an array of tables is entered.
fn table_at<'a>(
    root: &'a mut BTreeMap<String, Value>,
    path: &[String],
) -> Result<&'a mut BTreeMap<String, Value>, String> {
    let mut cur = root;
    for k in path {
        let entry = cur
            .entry(k.clone())
            .or_insert_with(|| Value::map(BTreeMap::new()));
        cur = match entry {
            Value::Map(m) => std::sync::Arc::make_mut(m),
            Value::List(l) => match l.last_mut() {
                Some(Value::Map(m)) => std::sync::Arc::make_mut(m),
                _ => return Err(format!("key '{k}' is not a table")),
            },
            _ => return Err(format!("key '{k}' is not a table")),
        };
    }
    Ok(cur)
}

struct Reader<'a> {
    s: &'a [u8],
    text: &'a str,
    pos: usize,
    /// Nesting of inline arrays and tables, bounded so hostile input cannot exhaust the stack.
    depth: usize,
}

const MAX_DEPTH: usize = 256;

impl Reader<'_> {
    fn peek(&self) -> Option<u8> {
        self.s.get(self.pos).copied()
    }

    fn line(&self) -> usize {
        self.s[..self.pos.min(self.s.len())]
            .iter()
            .filter(|&&b| b == b'\n')
            .count()
            + 1
    }

    fn error(&self, msg: &str) -> String {
        format!("toml: line {}: {msg}", self.line())
    }

    fn skip_ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t')) {
            self.pos += 1;
        }
    }

    fn skip_ws_comments_newlines(&mut self) {
        loop {
            match self.peek() {
                Some(b' ' | b'\t' | b'\n' | b'\r') => self.pos += 1,
                Some(b'#') => {
                    while !matches!(self.peek(), None | Some(b'\n')) {
                        self.pos += 1;
                    }
                }
                _ => break,
            }
        }
    }

    fn end_of_line(&mut self) -> Result<(), String> {
        self.skip_ws();
        if self.peek() == Some(b'#') {
            while !matches!(self.peek(), None | Some(b'\n')) {
                self.pos += 1;
            }
        }
        match self.peek() {
            None | Some(b'\n') => Ok(()),
            Some(b'\r') if self.s.get(self.pos + 1) == Some(&b'\n') => Ok(()),
            Some(c) => Err(self.error(&format!(
                "expected a top-level item to end with a newline, comment, or EOF, but got '{}' instead",
                char::from(c)
            ))),
        }
    }

    fn key(&mut self) -> Result<Vec<String>, String> {
        let mut parts = Vec::new();
        loop {
            self.skip_ws();
            let part = match self.peek() {
                Some(b'"') => self.basic_string()?,
                Some(b'\'') => self.literal_string()?,
                _ => {
                    let start = self.pos;
                    while matches!(self.peek(), Some(c) if c.is_ascii_alphanumeric() || c == b'_' || c == b'-')
                    {
                        self.pos += 1;
                    }
                    if start == self.pos {
                        return Err(match self.peek() {
                            None => self.error("unexpected EOF; expected a key"),
                            Some(c) => {
                                self.error(&format!("bare keys cannot contain '{}'", char::from(c)))
                            }
                        });
                    }
                    self.text[start..self.pos].to_string()
                }
            };
            parts.push(part);
            self.skip_ws();
            if self.peek() == Some(b'.') {
                self.pos += 1;
                continue;
            }
            return Ok(parts);
        }
    }

    fn basic_string(&mut self) -> Result<String, String> {
        let multi = self.s[self.pos..].starts_with(b"\"\"\"");
        self.pos += if multi { 3 } else { 1 };
        if multi && self.peek() == Some(b'\n') {
            self.pos += 1;
        }
        let mut out = String::new();
        loop {
            let rest = &self.text[self.pos..];
            let c = rest
                .chars()
                .next()
                .ok_or_else(|| self.error("unexpected EOF in string"))?;
            if multi && rest.starts_with("\"\"\"") {
                self.pos += 3;
                return Ok(out);
            }
            if !multi && c == '"' {
                self.pos += 1;
                return Ok(out);
            }
            if !multi && c == '\n' {
                return Err(self.error("strings cannot contain newlines"));
            }
            self.pos += c.len_utf8();
            if c != '\\' {
                out.push(c);
                continue;
            }
            let e = self
                .peek()
                .ok_or_else(|| self.error("unexpected EOF in string"))?;
            self.pos += 1;
            match e {
                b'b' => out.push('\u{8}'),
                b't' => out.push('\t'),
                b'n' => out.push('\n'),
                b'f' => out.push('\u{c}'),
                b'r' => out.push('\r'),
                b'"' => out.push('"'),
                b'\\' => out.push('\\'),
                b'u' | b'U' => {
                    let n = if e == b'u' { 4 } else { 8 };
                    let hex = self
                        .text
                        .get(self.pos..self.pos + n)
                        .ok_or_else(|| self.error("invalid escape"))?;
                    let cp =
                        u32::from_str_radix(hex, 16).map_err(|_| self.error("invalid escape"))?;
                    out.push(char::from_u32(cp).ok_or_else(|| self.error("invalid escape"))?);
                    self.pos += n;
                }
                b'\n' | b' ' | b'\t' | b'\r' if multi => {
                    while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
                        self.pos += 1;
                    }
                }
                other => {
                    return Err(
                        self.error(&format!("invalid escape character '{}'", char::from(other)))
                    )
                }
            }
        }
    }

    fn literal_string(&mut self) -> Result<String, String> {
        let multi = self.s[self.pos..].starts_with(b"'''");
        let delim = if multi { "'''" } else { "'" };
        self.pos += delim.len();
        if multi && self.peek() == Some(b'\n') {
            self.pos += 1;
        }
        let rest = &self.text[self.pos..];
        let end = rest
            .find(delim)
            .ok_or_else(|| self.error("unexpected EOF in string"))?;
        let body = &rest[..end];
        if !multi && body.contains('\n') {
            return Err(self.error("strings cannot contain newlines"));
        }
        self.pos += end + delim.len();
        Ok(body.to_string())
    }

    fn value(&mut self) -> Result<Value, String> {
        if self.depth >= MAX_DEPTH {
            return Err(self.error("values nest too deeply"));
        }
        self.depth += 1;
        let v = self.value_inner();
        self.depth -= 1;
        v
    }

    fn value_inner(&mut self) -> Result<Value, String> {
        match self.peek() {
            Some(b'"') => Ok(Value::String(self.basic_string()?)),
            Some(b'\'') => Ok(Value::String(self.literal_string()?)),
            Some(b'[') => {
                self.pos += 1;
                let mut items = Vec::new();
                loop {
                    self.skip_ws_comments_newlines();
                    if self.peek() == Some(b']') {
                        self.pos += 1;
                        return Ok(Value::List(items));
                    }
                    items.push(self.value()?);
                    self.skip_ws_comments_newlines();
                    match self.peek() {
                        Some(b',') => self.pos += 1,
                        Some(b']') => {}
                        _ => return Err(self.error("expected a comma or array terminator")),
                    }
                }
            }
            Some(b'{') => {
                self.pos += 1;
                let mut m = BTreeMap::new();
                loop {
                    self.skip_ws();
                    if self.peek() == Some(b'}') {
                        self.pos += 1;
                        return Ok(Value::map(m));
                    }
                    let key = self.key()?;
                    self.skip_ws();
                    if self.peek() != Some(b'=') {
                        return Err(self.error("expected key separator '='"));
                    }
                    self.pos += 1;
                    self.skip_ws();
                    let v = self.value()?;
                    let table =
                        table_at(&mut m, &key[..key.len() - 1]).map_err(|e| self.error(&e))?;
                    table.insert(key.last().cloned().unwrap_or_default(), v);
                    self.skip_ws();
                    match self.peek() {
                        Some(b',') => self.pos += 1,
                        Some(b'}') => {}
                        _ => {
                            return Err(
                                self.error("expected a comma or an inline table terminator '}'")
                            )
                        }
                    }
                }
            }
            _ => {
                let start = self.pos;
                while matches!(self.peek(), Some(c) if !matches!(c, b',' | b']' | b'}' | b'\n' | b'\r' | b'#'))
                {
                    self.pos += 1;
                }
                let raw = self.text[start..self.pos].trim_end();
                self.pos = start + raw.len();
                scalar(raw).ok_or_else(|| {
                    if raw.is_empty() {
                        self.error("unexpected EOF; expected a value")
                    } else {
                        self.error(&format!("invalid value: '{raw}'"))
                    }
                })
            }
        }
    }
}

fn scalar(raw: &str) -> Option<Value> {
    match raw {
        "true" => return Some(Value::Bool(true)),
        "false" => return Some(Value::Bool(false)),
        "inf" | "+inf" => return Some(Value::Float(f64::INFINITY)),
        "-inf" => return Some(Value::Float(f64::NEG_INFINITY)),
        "nan" | "+nan" | "-nan" => return Some(Value::Float(f64::NAN)),
        _ => {}
    }
    let clean = raw.replace('_', "");
    for (prefix, radix) in [("0x", 16), ("0o", 8), ("0b", 2)] {
        if let Some(digits) = clean.strip_prefix(prefix) {
            return i64::from_str_radix(digits, radix).ok().map(Value::Int);
        }
    }
    if let Ok(i) = clean.parse::<i64>() {
        return Some(Value::Int(i));
    }
    if clean.bytes().any(|b| matches!(b, b'.' | b'e' | b'E')) {
        if let Ok(f) = clean.parse::<f64>() {
            return Some(Value::Float(f));
        }
    }
    if let Some(t) = offset_datetime(raw) {
        return Some(Value::String(t));
    }
    // Local dates and times stay as their text.
    if raw.len() >= 8
        && raw.as_bytes().first().is_some_and(u8::is_ascii_digit)
        && raw.contains(['-', ':'])
    {
        return Some(Value::String(raw.to_string()));
    }
    None
}

/// An offset date-time as Go prints the `time.Time` it decodes to (`1979-05-27 07:32:00 +0000 UTC`).
fn offset_datetime(raw: &str) -> Option<String> {
    let b = raw.as_bytes();
    if b.len() < 20 || !matches!(b.get(10), Some(b'T' | b't' | b' ')) {
        return None;
    }
    let (date, rest) = raw.split_at(10);
    let rest = &rest[1..];
    let zone_at = rest.find(['Z', 'z', '+', '-'])?;
    let (clock, zone) = rest.split_at(zone_at);
    let ok = |s: &str, pattern: &str| {
        s.len() == pattern.len()
            && s.bytes().zip(pattern.bytes()).all(|(c, p)| {
                if p == b'9' {
                    c.is_ascii_digit()
                } else {
                    c == p
                }
            })
    };
    let (hms, frac) = match clock.split_once('.') {
        Some((h, f)) if !f.is_empty() && f.bytes().all(|c| c.is_ascii_digit()) => {
            (h, f.trim_end_matches('0'))
        }
        Some(_) => return None,
        None => (clock, ""),
    };
    if !ok(date, "9999-99-99") || !ok(hms, "99:99:99") {
        return None;
    }
    let frac = if frac.is_empty() {
        String::new()
    } else {
        format!(".{frac}")
    };
    let zone = match zone {
        "Z" | "z" => "+0000 UTC".to_string(),
        z if ok(&z[1..], "99:99") => {
            let off = format!("{}{}", &z[..3], &z[4..6]);
            format!("{off} {off}")
        }
        _ => return None,
    };
    Some(format!("{date} {hms}{frac} {zone}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_tables() {
        let v =
            from_toml("a = 1\n[t]\nk = \"v\"\n[t.sub]\nx = [1, 2]\n[[arr]]\ny = 'z'\n").unwrap();
        let out = to_toml(&v).unwrap();
        assert_eq!(
            out,
            "a = 1\n\n[[arr]]\n  y = \"z\"\n\n[t]\n  k = \"v\"\n  [t.sub]\n    x = [1, 2]\n"
        );
        assert_eq!(
            from_toml("one").unwrap_err(),
            "toml: line 1: unexpected EOF; expected key separator '='"
        );
    }
}
