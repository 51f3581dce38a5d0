//! The dynamic values templates operate on, modelled on the Go types Helm's data decodes to:
//! `map[string]interface{}`, `[]interface{}`, `string`, `bool`, `int`/`int64`, `float64`, nil.
//! `Display` prints a value as Go's `fmt` does with `%v`.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

/// The entries of a [`Value::Map`].
pub type Map = BTreeMap<String, Value>;

/// A template value. Maps are sorted by key, as Go's template and fmt print them.
#[derive(Clone, Debug, PartialEq, Default)]
pub enum Value {
    /// Go's untyped nil (a missing value, a nil interface).
    #[default]
    Nil,
    Bool(bool),
    /// Go `int`/`int64`.
    Int(i64),
    /// Go `float64`. Numbers decoded from YAML or JSON values are floats, as in Helm.
    Float(f64),
    String(String),
    /// Go `[]interface{}` (also stands for `[]string` and other slices).
    List(Vec<Value>),
    /// Go `map[string]interface{}`. Shared, and copied only when changed: Go's maps are
    /// references, and templates pass whole contexts (`dict "root" $`, `include "x" .`) around
    /// thousands of times a render, which deep copies made the bulk of a render's work.
    Map(Arc<Map>),
    /// Go `complex128` (real, imaginary): only template literals such as `1+2i` produce it.
    Complex(f64, f64),
}

impl Value {
    /// A map value holding `entries`.
    pub fn map(entries: Map) -> Value {
        Value::Map(Arc::new(entries))
    }

    /// An empty map value.
    pub fn empty_map() -> Value {
        Value::Map(Arc::default())
    }

    /// Go's truth: false, 0, nil, and empty strings, slices and maps are false.
    pub(crate) fn is_truthy(&self) -> bool {
        match self {
            Value::Nil => false,
            Value::Bool(b) => *b,
            Value::Int(i) => *i != 0,
            Value::Float(f) => *f != 0.0,
            Value::String(s) => !s.is_empty(),
            Value::List(l) => !l.is_empty(),
            Value::Map(m) => !m.is_empty(),
            Value::Complex(re, im) => *re != 0.0 || *im != 0.0,
        }
    }

    /// The Go type name `fmt`'s `%T` prints for this value (`int`, `float64`, `[]interface {}`, ...).
    pub fn go_type_name(&self) -> &'static str {
        match self {
            Value::Nil => "<nil>",
            Value::Bool(_) => "bool",
            Value::Int(_) => "int",
            Value::Float(_) => "float64",
            Value::String(_) => "string",
            Value::List(_) => "[]interface {}",
            Value::Map(_) => "map[string]interface {}",
            Value::Complex(..) => "complex128",
        }
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&super::gofmt::format_v(self))
    }
}
