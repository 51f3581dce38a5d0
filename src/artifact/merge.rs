//! The `Merge` strategy: both files are read as multi-document YAML (or JSON), each file's
//! documents folded into one map, and the incoming map deep-merged over the existing one (maps
//! merge key by key; any other clash, lists included, takes the incoming value, as Helm's
//! `--values` does). The result is printed as sigs.k8s.io/yaml prints it: keys sorted, comments
//! gone.

use serde_json::{Map, Value};

use crate::yaml::{emit, from_json, parse_stream, to_json_helm, ParseOptions};

/// Why two files could not be merged, in the words of the YAML decoder upstream uses.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MergeError {
    #[error("cannot unmarshal YAML document: not UTF-8 text")]
    NotUtf8,
    #[error("cannot unmarshal YAML document: {message}")]
    Yaml { line: u32, message: String },
    /// A document holds a list or a scalar where a map is needed.
    #[error("cannot unmarshal YAML document: a {0} is not a map")]
    NotAMap(&'static str),
}

fn read_map(bytes: &[u8]) -> Result<Map<String, Value>, MergeError> {
    let text = std::str::from_utf8(bytes).map_err(|_| MergeError::NotUtf8)?;
    let documents = parse_stream(text, &ParseOptions::default()).map_err(|e| MergeError::Yaml {
        line: e.pos.line,
        message: e.message,
    })?;
    let mut folded = Map::new();
    for document in documents {
        match to_json_helm(&document.root) {
            Value::Null => {}
            Value::Object(map) => merge_into(&mut folded, map),
            other => return Err(MergeError::NotAMap(kind_of(&other))),
        }
    }
    Ok(folded)
}

fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Array(_) => "list",
        Value::String(_) => "string",
        Value::Number(_) => "number",
        Value::Bool(_) => "boolean",
        _ => "value",
    }
}

fn merge_into(base: &mut Map<String, Value>, incoming: Map<String, Value>) {
    for (key, value) in incoming {
        match (base.get_mut(&key), value) {
            (Some(Value::Object(existing)), Value::Object(value)) => merge_into(existing, value),
            (_, value) => {
                base.insert(key, value);
            }
        }
    }
}

/// `incoming` merged over `existing`, printed.
pub(super) fn merge(existing: &[u8], incoming: &[u8]) -> Result<Vec<u8>, MergeError> {
    let mut base = read_map(existing)?;
    merge_into(&mut base, read_map(incoming)?);
    Ok(emit(&from_json(&Value::Object(base))).into_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_merge_and_lists_are_replaced() {
        let out = merge(
            b"a: {x: 1, list: [1, 2]}\nb: keep\n",
            b"a: {list: [3]}\nc: new\n",
        )
        .unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "a:\n  list:\n  - 3\n  x: 1\nb: keep\nc: new\n"
        );
    }

    #[test]
    fn a_scalar_document_cannot_be_merged() {
        let error = merge(b"a: b\n", b"A=B\n").unwrap_err();
        assert_eq!(error, MergeError::NotAMap("string"));
        assert!(
            error.to_string().contains("cannot unmarshal YAML document"),
            "{error}"
        );
    }
}
