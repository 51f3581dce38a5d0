//! Building a YAML tree from JSON data (for printing structured output as YAML).

use super::node::{Entry, Mapping, Node, Scalar, ScalarStyle, Sequence};

/// Converts JSON to a tree. Strings are marked quoted so the emitter keeps them strings even when
/// they read like numbers or booleans; the emitter decides how they are actually written.
pub fn from_json(value: &serde_json::Value) -> Node {
    match value {
        serde_json::Value::Null => Node::null(),
        serde_json::Value::Bool(b) => Node::Scalar(Scalar::plain(b.to_string())),
        serde_json::Value::Number(n) => Node::Scalar(Scalar::plain(n.to_string())),
        serde_json::Value::String(s) => Node::Scalar(Scalar {
            value: s.clone(),
            style: ScalarStyle::DoubleQuoted,
            ..Scalar::default()
        }),
        serde_json::Value::Array(items) => Node::Sequence(Sequence {
            items: items.iter().map(from_json).collect(),
            ..Sequence::default()
        }),
        serde_json::Value::Object(map) => Node::Mapping(Mapping {
            entries: map
                .iter()
                .map(|(k, v)| Entry {
                    key: Scalar::plain(k.clone()),
                    value: from_json(v),
                })
                .collect(),
            ..Mapping::default()
        }),
    }
}
