//! Our YAML layer: a parser on `saphyr-parser` events into an ordered tree that keeps raw scalar
//! text, quoting style and positions; the two type resolvers (kustomize/kyaml and Helm/YAML 1.1);
//! and the canonical emitter that prints what `kustomize build` prints.
//!
//! Not for: anything Kubernetes- or Flux-specific.

mod node;

pub use node::{
    CollectionStyle, Document, Entry, Mapping, Node, Pos, Scalar, ScalarStyle, Sequence,
};

use std::fmt;

/// Limits that keep a hostile document from exhausting memory.
#[derive(Clone, Debug)]
pub struct ParseOptions {
    /// The most nodes alias expansion may produce in one document (an alias bomb fails with an error).
    pub max_expanded_nodes: usize,
    /// The deepest nesting accepted.
    pub max_depth: usize,
}

impl Default for ParseOptions {
    fn default() -> Self {
        ParseOptions {
            max_expanded_nodes: 1_000_000,
            max_depth: 512,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    pub message: String,
    pub pos: Pos,
    /// A second location that the message refers to, such as the first of two duplicate keys.
    pub related: Option<Pos>,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.pos, self.message)
    }
}

impl std::error::Error for Error {}

/// Parses a multi-document stream. Empty documents (a lone `---`) are kept as null documents so that
/// callers can decide to skip them.
pub fn parse_stream(text: &str, options: &ParseOptions) -> Result<Vec<Document>, Error> {
    let _ = (text, options);
    todo!("yaml::parse_stream")
}

/// Prints one node in the canonical form `kustomize build` uses, ending with a newline.
pub fn emit(node: &Node) -> String {
    let _ = node;
    todo!("yaml::emit")
}

/// Prints documents separated by `---` lines, as `kustomize build` does.
pub fn emit_stream(nodes: &[Node]) -> String {
    let _ = nodes;
    todo!("yaml::emit_stream")
}
