//! Helm's `--set` and `--set-string` parser (`pkg/strvals`): `a.b=c,d[0].e=f`, `{x,y}` lists,
//! backslash escapes, list growth with null fill, and Helm's error messages.
//!
//! Where Go's parser panics on a type assertion and recovers, the error says what Go's recovered
//! panic says (`unable to parse key: interface conversion: ...`). Two limits keep hostile input
//! from exhausting memory or the stack: Helm's index cap (65536) and name nesting cap (30), and
//! our own cap on nested list indexes (`a[0][0]...`), which Helm does not have.

use super::Map;
use offlux_template::{sprintf, Value};

/// Helm's `MaxIndex`.
const MAX_INDEX: i64 = 65536;
/// Helm's `MaxNestedNameLevel`.
const MAX_NESTED_NAME_LEVEL: usize = 30;
/// How deep `a[0][0]...` may nest (ours: Go has no limit but its growable stack).
const MAX_NESTED_INDEXES: usize = 256;

/// Parses `expression` into `data` (Helm's `ParseInto`, or `ParseIntoString` with `as_string`).
pub(super) fn parse_into(expression: &str, data: &mut Map, as_string: bool) -> Result<(), String> {
    let mut parser = Parser {
        chars: expression.chars().collect(),
        pos: 0,
        as_string,
        index_depth: 0,
    };
    loop {
        match parser.key(data, 0) {
            Ok(()) => {}
            Err(Stop::Eof) => return Ok(()),
            Err(Stop::NotList) => return Err("not a list".into()),
            Err(Stop::Error(message)) => return Err(message),
        }
    }
}

/// How parsing stops. `Eof` is Go's `io.EOF`, possibly wrapped: the parse loop ends without an
/// error when it sees one, however deep it came from.
#[derive(Debug)]
enum Stop {
    Eof,
    NotList,
    Error(String),
}

type Step<T> = Result<T, Stop>;

fn error<T>(message: String) -> Step<T> {
    Err(Stop::Error(message))
}

/// Go's `%q`.
fn quote(text: &str) -> String {
    sprintf("%q", &[Value::String(text.to_string())])
}

/// Go's `%q` of a `[]rune`: each rune quoted, in brackets (`['n' 'a']`).
fn quote_runes(text: &str) -> String {
    let runes: Vec<String> = text
        .chars()
        .map(|c| sprintf("%q", &[Value::Int(i64::from(u32::from(c)))]))
        .collect();
    format!("[{}]", runes.join(" "))
}

/// The message of Go's recovered panic when a value is not the list or map an expression needs.
fn conversion_panic(found: &Value, want: &str) -> Stop {
    let found = match found {
        Value::Nil => "nil",
        Value::Bool(_) => "bool",
        Value::Int(_) => "int64",
        Value::Float(_) => "float64",
        Value::Complex(..) => "complex128",
        Value::String(_) => "string",
        Value::List(_) => "[]interface {}",
        Value::Map(_) => "map[string]interface {}",
    };
    Stop::Error(format!(
        "unable to parse key: interface conversion: interface {{}} is {found}, not {want}"
    ))
}

const LIST_TYPE: &str = "[]interface {}";
const MAP_TYPE: &str = "map[string]interface {}";

struct Parser {
    chars: Vec<char>,
    pos: usize,
    as_string: bool,
    index_depth: usize,
}

/// What `runesUntil` read: the text (escapes resolved) and the stop character, or `None` at the
/// end of input.
struct Run {
    text: String,
    last: Option<char>,
}

impl Parser {
    fn read(&mut self) -> Option<char> {
        let c = self.chars.get(self.pos).copied();
        if c.is_some() {
            self.pos += 1;
        }
        c
    }

    fn unread(&mut self) {
        self.pos = self.pos.saturating_sub(1);
    }

    /// `runesUntil`: reads up to (and consuming) one of `stop`; a backslash takes the next
    /// character literally.
    fn runes_until(&mut self, stop: &[char]) -> Run {
        let mut text = String::new();
        loop {
            match self.read() {
                None => return Run { text, last: None },
                Some(c) if stop.contains(&c) => {
                    return Run {
                        text,
                        last: Some(c),
                    }
                }
                Some('\\') => match self.read() {
                    None => return Run { text, last: None },
                    Some(next) => text.push(next),
                },
                Some(c) => text.push(c),
            }
        }
    }

    fn key(&mut self, data: &mut Map, nested_level: usize) -> Step<()> {
        let run = self.runes_until(&['=', '[', ',', '.']);
        let key = run.text;
        match run.last {
            None if key.is_empty() => Err(Stop::Eof),
            None => error(format!("key {} has no value", quote(&key))),
            Some('[') => {
                let index = self.key_index()?;
                let list = match data.get(&key) {
                    None => Vec::new(),
                    Some(Value::List(list)) => list.clone(),
                    Some(other) => return Err(conversion_panic(other, LIST_TYPE)),
                };
                let (list, result) = self.list_item(list, index, nested_level);
                set(data, &key, Value::List(list));
                result
            }
            Some('=') => match self.value_list() {
                Ok(list) => {
                    set(data, &key, Value::List(list));
                    Ok(())
                }
                Err(Stop::Eof) => {
                    set(data, &key, Value::String(String::new()));
                    Err(Stop::Eof)
                }
                Err(Stop::NotList) => {
                    let value = self.value();
                    set(data, &key, value);
                    Ok(())
                }
                Err(other) => Err(other),
            },
            Some(',') => {
                set(data, &key, Value::String(String::new()));
                error(format!(
                    "key {} has no value (cannot end with ,)",
                    quote(&key)
                ))
            }
            Some(_) => {
                // '.': a nested map.
                let nested_level = nested_level + 1;
                if nested_level > MAX_NESTED_NAME_LEVEL {
                    return error(format!(
                        "value name nested level is greater than maximum supported nested level of {MAX_NESTED_NAME_LEVEL}"
                    ));
                }
                let mut inner = match data.get(&key) {
                    None => Map::new(),
                    Some(Value::Map(inner)) => Map::clone(inner),
                    Some(other) => return Err(conversion_panic(other, MAP_TYPE)),
                };
                let result = self.key(&mut inner, nested_level);
                if result.is_ok() && inner.is_empty() {
                    return error(format!("key map {} has no value", quote(&key)));
                }
                if !inner.is_empty() {
                    set(data, &key, Value::map(inner));
                }
                result
            }
        }
    }

    /// `keyIndex`: the number up to `]`, as Go's `strconv.Atoi` reads it.
    fn key_index(&mut self) -> Step<i64> {
        let run = self.runes_until(&[']']);
        if run.last.is_none() {
            return Err(Stop::Eof);
        }
        atoi(&run.text).map_err(|e| Stop::Error(format!("error parsing index: {e}")))
    }

    /// `listItem`: what follows `[index]`. Returns the list (changed or not) and the outcome.
    fn list_item(
        &mut self,
        mut list: Vec<Value>,
        index: i64,
        nested_level: usize,
    ) -> (Vec<Value>, Step<()>) {
        if index < 0 {
            return (list, error(format!("negative {index} index not allowed")));
        }
        let run = self.runes_until(&['[', '.', '=']);
        if !run.text.is_empty() {
            let message = format!(
                "unexpected data at end of array index: {}",
                quote_runes(&run.text)
            );
            return (list, error(message));
        }
        match run.last {
            None => (list, Err(Stop::Eof)),
            Some('=') => match self.value_list() {
                Ok(values) => set_index(list, index, Value::List(values)),
                Err(Stop::Eof) => set_index(list, index, Value::String(String::new())),
                Err(Stop::NotList) => {
                    let value = self.value();
                    set_index(list, index, value)
                }
                Err(other) => (list, Err(other)),
            },
            Some('[') => {
                let next = match self.key_index() {
                    Ok(next) => next,
                    Err(stop) => return (list, Err(stop)),
                };
                if self.index_depth >= MAX_NESTED_INDEXES {
                    let message = format!(
                        "list indexes nested deeper than the supported {MAX_NESTED_INDEXES}"
                    );
                    return (list, error(message));
                }
                let current = match usize::try_from(index).ok().and_then(|i| list.get(i)) {
                    None | Some(Value::Nil) => Vec::new(),
                    Some(Value::List(inner)) => inner.clone(),
                    Some(other) => {
                        let stop = conversion_panic(other, LIST_TYPE);
                        return (list, Err(stop));
                    }
                };
                self.index_depth += 1;
                let (inner, result) = self.list_item(current, next, nested_level);
                self.index_depth -= 1;
                if let Err(stop) = result {
                    return (list, Err(stop));
                }
                set_index(list, index, Value::List(inner))
            }
            Some(_) => {
                // '.': a map inside the list.
                let mut inner = Map::new();
                if let Some(slot) = usize::try_from(index).ok().and_then(|i| list.get_mut(i)) {
                    match slot {
                        Value::Map(existing) => inner = Map::clone(existing),
                        // Indices out of order: Go replaces what was there with an empty map.
                        other => *other = Value::map(Map::new()),
                    }
                }
                if let Err(stop) = self.key(&mut inner, nested_level) {
                    return (list, Err(stop));
                }
                set_index(list, index, Value::map(inner))
            }
        }
    }

    /// `valList`: a `{a,b,c}` list, `NotList` (nothing consumed) for anything else.
    fn value_list(&mut self) -> Step<Vec<Value>> {
        match self.read() {
            None => return Err(Stop::Eof),
            Some('{') => {}
            Some(_) => {
                self.unread();
                return Err(Stop::NotList);
            }
        }
        let mut list = Vec::new();
        loop {
            let run = self.runes_until(&[',', '}']);
            match run.last {
                None => return error("list must terminate with '}'".into()),
                Some('}') => {
                    // A following comma is consumed.
                    if let Some(next) = self.read() {
                        if next != ',' {
                            self.unread();
                        }
                    }
                    list.push(self.typed(&run.text));
                    return Ok(list);
                }
                Some(_) => list.push(self.typed(&run.text)),
            }
        }
    }

    /// `val` and the reader: a scalar up to the next comma, typed.
    fn value(&mut self) -> Value {
        let run = self.runes_until(&[',']);
        self.typed(&run.text)
    }

    /// `typedVal`: with `--set`, `true`/`false`/`null` (any case) and decimal integers without
    /// a leading zero are typed; everything else, and everything with `--set-string`, is a string.
    fn typed(&self, text: &str) -> Value {
        if self.as_string {
            return Value::String(text.to_string());
        }
        if text.eq_ignore_ascii_case("true") {
            return Value::Bool(true);
        }
        if text.eq_ignore_ascii_case("false") {
            return Value::Bool(false);
        }
        if text.eq_ignore_ascii_case("null") {
            return Value::Nil;
        }
        if text == "0" {
            return Value::Int(0);
        }
        if !text.is_empty() && !text.starts_with('0') {
            if let Some(number) = parse_int(text) {
                return Value::Int(number);
            }
        }
        Value::String(text.to_string())
    }
}

/// `set`: an empty key is not set.
fn set(data: &mut Map, key: &str, value: Value) {
    if !key.is_empty() {
        data.insert(key.to_string(), value);
    }
}

/// `setIndex`: grows the list with nulls up to `index`, within Helm's cap.
fn set_index(mut list: Vec<Value>, index: i64, value: Value) -> (Vec<Value>, Step<()>) {
    if index < 0 {
        let message = format!("negative {index} index not allowed");
        return (list, error(message));
    }
    if index > MAX_INDEX {
        let message =
            format!("index of {index} is greater than maximum supported index of {MAX_INDEX}");
        return (list, error(message));
    }
    // Within MAX_INDEX, so the conversion holds.
    let index = usize::try_from(index).unwrap_or(0);
    if list.len() <= index {
        list.resize(index + 1, Value::Nil);
    }
    if let Some(slot) = list.get_mut(index) {
        *slot = value;
    }
    (list, Ok(()))
}

/// Go's `strconv.ParseInt(text, 10, 64)`, `None` on any error.
fn parse_int(text: &str) -> Option<i64> {
    let digits = text.strip_prefix(['+', '-']).unwrap_or(text);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    // Rust's parser accepts the same sign and digits, and fails on overflow as Go does.
    text.parse::<i64>().ok()
}

/// Go's `strconv.Atoi` with its error messages.
fn atoi(text: &str) -> Result<i64, String> {
    let digits = text.strip_prefix(['+', '-']).unwrap_or(text);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!(
            "strconv.Atoi: parsing {}: invalid syntax",
            quote(text)
        ));
    }
    text.parse::<i64>()
        .map_err(|_| format!("strconv.Atoi: parsing {}: value out of range", quote(text)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_integers() {
        assert_eq!(parse_int("+5"), Some(5));
        assert_eq!(parse_int("-7"), Some(-7));
        assert_eq!(parse_int("1_000"), None);
        assert_eq!(parse_int("99999999999999999999"), None);
        assert_eq!(
            atoi("x").unwrap_err(),
            "strconv.Atoi: parsing \"x\": invalid syntax"
        );
        assert_eq!(
            atoi("99999999999999999999").unwrap_err(),
            "strconv.Atoi: parsing \"99999999999999999999\": value out of range"
        );
    }

    #[test]
    fn set_index_grows_and_caps() {
        let (list, result) = set_index(vec![Value::Int(0)], 2, Value::Int(2));
        assert!(result.is_ok());
        assert_eq!(list, vec![Value::Int(0), Value::Nil, Value::Int(2)]);
        let (list, result) = set_index(vec![Value::Int(0)], MAX_INDEX + 1, Value::Int(2));
        assert!(
            matches!(result, Err(Stop::Error(m)) if m == "index of 65537 is greater than maximum supported index of 65536")
        );
        assert_eq!(list, vec![Value::Int(0)]);
        let (_, result) = set_index(Vec::new(), -1, Value::Int(2));
        assert!(matches!(result, Err(Stop::Error(m)) if m == "negative -1 index not allowed"));
    }
}
