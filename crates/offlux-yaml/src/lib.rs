//! Our YAML layer: a parser on `saphyr-parser` events into an ordered tree that keeps raw scalar
//! text, quoting style and positions (with a quicker line-based reader, `fast`, for the block YAML
//! most files are, which hands anything else to saphyr); the two type resolvers (kustomize/kyaml and Helm/YAML 1.1);
//! and the canonical emitter that prints what `kustomize build` prints.
//!
//! - `parse_stream`: documents with anchors, aliases and `<<` merges expanded, duplicate keys and
//!   non-scalar keys rejected with locations (`ParseOptions::last_key_wins` keeps a repeated
//!   key's later value instead), alias bombs and deep nesting bounded.
//! - `to_json_kyaml` / `to_json_helm`: the data kustomize (go-yaml v3) and Helm (go-yaml v2 through
//!   JSON, numbers as float64) see; `resolve_*` type one scalar; `scalar_needs_quoting` says whether
//!   a YAML 1.1 reader would mistype a plain string.
//! - `emit`/`emit_stream`: kustomize's output form (go-yaml v2 after JSON). For exact
//!   `kustomize build` bytes print `canonical_kyaml(node)` (numbers respelled, keys sorted); for
//!   Helm's `toYaml` print `from_json(value)` with `Dialect::HelmToYaml` (`toYamlPretty`:
//!   `Dialect::HelmToYamlPretty`). `EmitOptions::preserve_style` prints as kyaml's own
//!   encoder does (source quoting and flow style kept).
//!
//! Not for: anything Kubernetes- or Flux-specific; comments are not kept.

#![deny(unreachable_pub)]

// The README's example runs as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeExample;

mod canon;
mod emit;
mod fast;
mod files;
mod node;
mod order;
mod parse;
mod reread;
mod resolve;
#[cfg(test)]
mod tests;

pub use canon::{canonical_kyaml, from_json, reread_folded};
pub use emit::{
    emit_canonical_kyaml, emit_canonical_kyaml_onto, reads_back_as_plain, Dialect, EmitOptions,
};
pub use files::ParsedFiles;
pub use order::{go_yaml_v2_key_order, sort_keys};
pub use reread::{reread, reread_then, reread_value};

pub use node::{
    same_text, CollectionStyle, Document, Entry, Mapping, Node, Pos, Scalar, ScalarStyle, Sequence,
    Tag,
};
pub use resolve::without_underscores;
pub use resolve::{
    is_plain_word, resolve_helm, resolve_kyaml, scalar_needs_quoting, to_json_helm, to_json_kyaml,
    Resolved,
};

use std::fmt;

/// Limits that keep a hostile document from exhausting memory.
#[derive(Clone, Debug)]
pub struct ParseOptions {
    /// The most nodes alias expansion may produce in one document (an alias bomb fails with an error).
    pub max_expanded_nodes: usize,
    /// The deepest nesting accepted.
    pub max_depth: usize,
    /// A key repeated in one mapping replaces the earlier entry (which is dropped; the later one
    /// keeps its place), as Go's YAML-to-JSON readers do, instead of being an error.
    pub last_key_wins: bool,
    /// The run whose budget of alias expansion (`Resource::AliasNodes`) this parse is charged
    /// to: every alias and merge key adds the nodes it copies, so many documents, each under
    /// `max_expanded_nodes`, cannot add up without bound.
    pub run: Option<std::sync::Arc<offlux_budget::RunBudget>>,
}

impl Default for ParseOptions {
    fn default() -> Self {
        ParseOptions {
            max_expanded_nodes: 1_000_000,
            max_depth: 512,
            last_key_wins: false,
            run: None,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    pub kind: ErrorKind,
    pub message: String,
    pub pos: Pos,
    /// A second location that the message refers to, such as the first of two duplicate keys.
    pub related: Option<Pos>,
}

/// What kind of problem a parse [`Error`] is, for callers that treat one kind apart.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum ErrorKind {
    /// A syntax error, a limit reached, an unsupported construct.
    #[default]
    Other,
    /// A key given twice in one mapping (`related` is where the first stands).
    DuplicateKey { key: String },
    /// The run's budget of alias expansion is spent (`ParseOptions::run`).
    Budget,
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
    // The quick reader takes what it can read for certain; saphyr reads the rest.
    if let Some(documents) = fast::parse(text, options) {
        return Ok(documents);
    }
    parse::parse_saphyr(text, options)
}

/// Prints one node in the canonical form `kustomize build` uses, ending with a newline. Keys are
/// printed in the node's order; see [`emit_with`] and [`sort_keys`].
pub fn emit(node: &Node) -> String {
    emit::emit(node, &EmitOptions::default())
}

/// Prints documents separated by `---` lines, as `kustomize build` does.
pub fn emit_stream(nodes: &[Node]) -> String {
    emit::emit_stream(nodes, &EmitOptions::default())
}

/// [`emit`] with options: `sort_keys: true` gives exactly what kustomize and Helm's `toYaml` print
/// for data whose keys came in any order.
pub fn emit_with(node: &Node, options: &EmitOptions) -> String {
    emit::emit(node, options)
}

/// [`emit_stream`] with options.
pub fn emit_stream_with(nodes: &[Node], options: &EmitOptions) -> String {
    emit::emit_stream(nodes, options)
}
