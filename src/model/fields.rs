//! Reading typed fields out of a YAML mapping, with errors that name the field path and position.
//! The first stage of the two-stage input model: raw tree in, validated values out.

use std::collections::BTreeMap;

use crate::yaml::{Mapping, Node, Pos, Sequence};

/// A malformed field: what is wrong, at which field path, and where in the file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldError {
    pub path: String,
    pub message: String,
    pub pos: Pos,
}

impl std::fmt::Display for FieldError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "`{}` {}", self.path, self.message)
    }
}

pub(crate) type FieldResult<T> = Result<T, FieldError>;

/// A view of a mapping at a known field path (`spec.sourceRef`).
#[derive(Clone)]
pub struct Fields<'a> {
    map: &'a Mapping,
    path: String,
    /// Where errors about this mapping as a whole point: the key that holds it, when it has one.
    anchor: Pos,
}

/// Joins a field path and a key the way error messages print it.
fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_owned()
    } else {
        format!("{path}.{key}")
    }
}

impl<'a> Fields<'a> {
    pub fn new(map: &'a Mapping, path: &str) -> Self {
        Fields {
            map,
            path: path.to_owned(),
            anchor: map.pos,
        }
    }

    /// The position of the key holding this mapping (or of the mapping itself at the top).
    pub fn pos(&self) -> Pos {
        self.anchor
    }

    pub fn mapping(&self) -> &'a Mapping {
        self.map
    }

    fn error(&self, key: &str, message: impl Into<String>, pos: Pos) -> FieldError {
        FieldError {
            path: join(&self.path, key),
            message: message.into(),
            pos,
        }
    }

    /// The raw node at `key`, with an explicit null treated as absent.
    pub fn node(&self, key: &str) -> Option<&'a Node> {
        self.map.get(key).filter(|node| !node.is_null())
    }

    pub fn str(&self, key: &str) -> FieldResult<Option<String>> {
        match self.node(key) {
            None => Ok(None),
            Some(Node::Scalar(s)) => Ok(Some(s.value.to_string())),
            Some(other) => Err(self.error(
                key,
                format!("must be a string, found a {}", other.kind_name()),
                other.pos(),
            )),
        }
    }

    pub(crate) fn required_str(&self, key: &str) -> FieldResult<String> {
        match self.str(key)? {
            Some(value) if !value.is_empty() => Ok(value),
            _ => Err(self.error(key, "is required", self.anchor)),
        }
    }

    pub fn bool(&self, key: &str) -> FieldResult<Option<bool>> {
        match self.node(key) {
            None => Ok(None),
            Some(Node::Scalar(s)) if !s.style.is_quoted() => match s.value.as_str() {
                "true" | "True" | "TRUE" => Ok(Some(true)),
                "false" | "False" | "FALSE" => Ok(Some(false)),
                _ => Err(self.error(
                    key,
                    format!("must be true or false, found `{}`", s.value),
                    s.pos,
                )),
            },
            Some(other) => Err(self.error(key, "must be true or false", other.pos())),
        }
    }

    pub fn map(&self, key: &str) -> FieldResult<Option<Fields<'a>>> {
        match self.node(key) {
            None => Ok(None),
            Some(Node::Mapping(m)) => Ok(Some(Fields {
                map: m,
                path: join(&self.path, key),
                anchor: self.map.entry(key).map_or(m.pos, |e| e.key.pos),
            })),
            Some(other) => Err(self.error(
                key,
                format!("must be a mapping, found a {}", other.kind_name()),
                other.pos(),
            )),
        }
    }

    pub fn seq(&self, key: &str) -> FieldResult<Option<&'a Sequence>> {
        match self.node(key) {
            None => Ok(None),
            Some(Node::Sequence(s)) => Ok(Some(s)),
            Some(other) => Err(self.error(
                key,
                format!("must be a list, found a {}", other.kind_name()),
                other.pos(),
            )),
        }
    }

    /// Each mapping item of the list at `key`, as fields at `key[i]`.
    pub fn maps(&self, key: &str) -> FieldResult<Vec<Fields<'a>>> {
        let Some(seq) = self.seq(key)? else {
            return Ok(Vec::new());
        };
        seq.items
            .iter()
            .enumerate()
            .map(|(i, item)| match item {
                Node::Mapping(m) => Ok(Fields {
                    map: m,
                    path: join(&self.path, &format!("{key}[{i}]")),
                    anchor: m.pos,
                }),
                other => Err(self.error(
                    &format!("{key}[{i}]"),
                    format!("must be a mapping, found a {}", other.kind_name()),
                    other.pos(),
                )),
            })
            .collect()
    }

    /// The list of strings at `key`.
    pub fn strs(&self, key: &str) -> FieldResult<Vec<String>> {
        let Some(seq) = self.seq(key)? else {
            return Ok(Vec::new());
        };
        seq.items
            .iter()
            .enumerate()
            .map(|(i, item)| match item {
                Node::Scalar(s) => Ok(s.value.to_string()),
                other => Err(self.error(
                    &format!("{key}[{i}]"),
                    format!("must be a string, found a {}", other.kind_name()),
                    other.pos(),
                )),
            })
            .collect()
    }

    /// The string-to-string mapping at `key` (labels, `postBuild.substitute`).
    pub(crate) fn str_map(&self, key: &str) -> FieldResult<BTreeMap<String, String>> {
        let Some(fields) = self.map(key)? else {
            return Ok(BTreeMap::new());
        };
        fields
            .map
            .entries
            .iter()
            .map(|entry| match &entry.value {
                Node::Scalar(s) => Ok((entry.key.value.to_string(), s.value.to_string())),
                other => Err(fields.error(
                    &entry.key.value,
                    format!("must be a string, found a {}", other.kind_name()),
                    other.pos(),
                )),
            })
            .collect()
    }
}
