//! The dynamic values templates operate on, modelled on the Go types Helm's data decodes to:
//! `map[string]interface{}`, `[]interface{}`, `string`, `bool`, `int`/`int64`, `float64`, nil.

use std::collections::BTreeMap;

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
    /// Go `map[string]interface{}`.
    Map(BTreeMap<String, Value>),
}

impl Value {
    /// Go's truth: false, 0, nil, and empty strings, slices and maps are false.
    pub fn is_truthy(&self) -> bool {
        match self {
            Value::Nil => false,
            Value::Bool(b) => *b,
            Value::Int(i) => *i != 0,
            Value::Float(f) => *f != 0.0,
            Value::String(s) => !s.is_empty(),
            Value::List(l) => !l.is_empty(),
            Value::Map(m) => !m.is_empty(),
        }
    }
}
