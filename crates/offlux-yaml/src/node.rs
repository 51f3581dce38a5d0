//! The YAML tree every other module works on: ordered mappings, scalars that keep their raw text and
//! quoting style, and the position each node was read from.
//!
//! This module only defines the data; parsing lives in `parse`, type resolution in `resolve`, output
//! in `emit`.

use std::fmt;

use compact_str::CompactString;

/// A position in a source text. Lines and columns are 1-based, as editors show them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Pos {
    pub line: u32,
    pub column: u32,
}

impl fmt::Display for Pos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.column)
    }
}

/// How a scalar was written in the source, or how it should be written on output.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ScalarStyle {
    #[default]
    Plain,
    SingleQuoted,
    DoubleQuoted,
    Literal,
    Folded,
}

impl ScalarStyle {
    pub fn is_quoted(self) -> bool {
        !matches!(self, ScalarStyle::Plain)
    }
}

/// Block or flow notation of a collection, as read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum CollectionStyle {
    #[default]
    Block,
    Flow,
}

/// An explicit tag such as `!!str` or `!!int`, in its short form when it is a core-schema tag.
/// Boxed once more than a string needs: tags are rare, and an untagged node then pays one word for
/// it, not three (nodes are most of a run's memory).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[allow(clippy::box_collection)] // the extra box is the point: one word in every node
pub struct Tag(Box<String>);

impl Tag {
    pub fn new(text: impl Into<String>) -> Self {
        Tag(Box::new(text.into()))
    }
}

impl std::ops::Deref for Tag {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Tag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Scalar {
    /// The scalar's value after YAML unescaping/folding: `'a''b'` holds `a'b`.
    pub value: CompactString,
    pub style: ScalarStyle,
    pub tag: Option<Tag>,
    pub pos: Pos,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Sequence {
    pub items: Vec<Node>,
    pub style: CollectionStyle,
    pub tag: Option<Tag>,
    pub pos: Pos,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    pub key: Scalar,
    pub value: Node,
}

impl Entry {
    /// Whether the key's text is `key` (see [`same_text`]).
    pub(crate) fn has_key(&self, key: &str) -> bool {
        same_text(&self.key.value, key)
    }
}

/// `a == b`, with the first bytes compared before the library call: runs compare keys and ids
/// hundreds of thousands of times, and most pairs that differ do so at once.
pub fn same_text(a: &str, b: &str) -> bool {
    a.len() == b.len() && a.as_bytes().first() == b.as_bytes().first() && a == b
}

/// An ordered mapping. Keys are scalars (non-scalar keys are rejected by the parser); lookups compare
/// the key's value text.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Mapping {
    pub entries: Vec<Entry>,
    pub style: CollectionStyle,
    pub tag: Option<Tag>,
    pub pos: Pos,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Node {
    Scalar(Scalar),
    Sequence(Sequence),
    Mapping(Mapping),
}

impl Default for Node {
    fn default() -> Self {
        Node::null()
    }
}

impl Scalar {
    pub fn plain(value: impl Into<CompactString>) -> Self {
        Scalar {
            value: value.into(),
            ..Scalar::default()
        }
    }

    /// A scalar that must stay a string whatever its text looks like.
    pub fn string(value: impl Into<CompactString>) -> Self {
        Scalar {
            value: value.into(),
            style: ScalarStyle::DoubleQuoted,
            ..Scalar::default()
        }
    }

    /// True for `~`, `null`, `Null`, `NULL` and the empty plain scalar (YAML core schema).
    pub fn is_null(&self) -> bool {
        self.style == ScalarStyle::Plain
            && self.tag.as_deref().is_none_or(|t| t == "!!null")
            && matches!(self.value.as_str(), "" | "~" | "null" | "Null" | "NULL")
    }
}

impl Mapping {
    pub fn new() -> Self {
        Mapping::default()
    }

    pub fn get(&self, key: &str) -> Option<&Node> {
        self.entries
            .iter()
            .find(|e| e.has_key(key))
            .map(|e| &e.value)
    }

    pub fn get_mut(&mut self, key: &str) -> Option<&mut Node> {
        self.entries
            .iter_mut()
            .find(|e| e.has_key(key))
            .map(|e| &mut e.value)
    }

    pub fn entry(&self, key: &str) -> Option<&Entry> {
        self.entries.iter().find(|e| e.has_key(key))
    }

    pub fn contains_key(&self, key: &str) -> bool {
        self.entries.iter().any(|e| e.has_key(key))
    }

    /// Replaces the value of an existing key in place, or appends a new entry.
    pub fn insert(&mut self, key: impl Into<String>, value: Node) {
        let key = key.into();
        match self.get_mut(&key) {
            Some(slot) => *slot = value,
            None => self.entries.push(Entry {
                key: Scalar::plain(key),
                value,
            }),
        }
    }

    pub fn remove(&mut self, key: &str) -> Option<Node> {
        let index = self.entries.iter().position(|e| e.has_key(key))?;
        Some(self.entries.remove(index).value)
    }

    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.entries.iter().map(|e| e.key.value.as_str())
    }

    pub fn iter(&self) -> impl Iterator<Item = (&str, &Node)> {
        self.entries
            .iter()
            .map(|e| (e.key.value.as_str(), &e.value))
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

impl Node {
    pub fn null() -> Self {
        Node::Scalar(Scalar::plain("null"))
    }

    pub fn string(value: impl Into<CompactString>) -> Self {
        Node::Scalar(Scalar::string(value))
    }

    pub fn pos(&self) -> Pos {
        match self {
            Node::Scalar(s) => s.pos,
            Node::Sequence(s) => s.pos,
            Node::Mapping(m) => m.pos,
        }
    }

    pub fn is_null(&self) -> bool {
        matches!(self, Node::Scalar(s) if s.is_null())
    }

    pub fn as_scalar(&self) -> Option<&Scalar> {
        match self {
            Node::Scalar(s) => Some(s),
            _ => None,
        }
    }

    /// The scalar's text, for any non-null scalar (a number or boolean gives its text too).
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Node::Scalar(s) if !s.is_null() => Some(&s.value),
            _ => None,
        }
    }

    pub fn as_mapping(&self) -> Option<&Mapping> {
        match self {
            Node::Mapping(m) => Some(m),
            _ => None,
        }
    }

    pub fn as_mapping_mut(&mut self) -> Option<&mut Mapping> {
        match self {
            Node::Mapping(m) => Some(m),
            _ => None,
        }
    }

    pub fn as_sequence(&self) -> Option<&Sequence> {
        match self {
            Node::Sequence(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_sequence_mut(&mut self) -> Option<&mut Sequence> {
        match self {
            Node::Sequence(s) => Some(s),
            _ => None,
        }
    }

    /// Looks up `key` when this node is a mapping.
    pub fn get(&self, key: &str) -> Option<&Node> {
        self.as_mapping()?.get(key)
    }

    /// Follows a path of mapping keys: `node.get_path(&["metadata", "name"])`.
    pub fn get_path(&self, path: &[&str]) -> Option<&Node> {
        path.iter().try_fold(self, |node, key| node.get(key))
    }

    /// A short name for the node's kind, for error messages.
    pub fn kind_name(&self) -> &'static str {
        match self {
            Node::Scalar(s) if s.is_null() => "null",
            Node::Scalar(_) => "scalar",
            Node::Sequence(_) => "sequence",
            Node::Mapping(_) => "mapping",
        }
    }
}

/// One document of a YAML stream. The root is shared so that objects read from a parsed file can
/// hold their tree without copying it (discovery keeps both the file's documents and its objects).
#[derive(Clone, Debug, PartialEq)]
pub struct Document {
    pub root: std::sync::Arc<Node>,
    /// Where the document's content starts (after any `---`).
    pub pos: Pos,
}

impl Document {
    pub fn new(root: Node, pos: Pos) -> Self {
        Document {
            root: std::sync::Arc::new(root),
            pos,
        }
    }

    /// The root tree, copied only when another holder still shares it.
    pub fn into_root(self) -> Node {
        std::sync::Arc::unwrap_or_clone(self.root)
    }
}
