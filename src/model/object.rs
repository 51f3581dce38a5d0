//! `Object`: one Kubernetes object as read from a file, with its id and where it came from.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::fields::{FieldError, Fields};
use super::id::ResourceId;
use crate::diagnostic::{Diagnostic, Location};
use crate::yaml::{Node, Pos};

/// An object whose top level is well formed: `apiVersion`, `kind` and `metadata.name` are strings.
#[derive(Clone, Debug, PartialEq)]
pub struct Object {
    pub id: ResourceId,
    pub node: Arc<Node>,
    /// The file it was read from, relative to the repository root.
    pub file: PathBuf,
    /// Where the document starts in that file.
    pub pos: Pos,
}

/// Why a document is not a usable object, with where it happened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModelError {
    pub file: PathBuf,
    pub pos: Pos,
    /// The object concerned, when its kind and name could be read.
    pub object: Option<String>,
    pub message: String,
}

impl ModelError {
    pub(crate) fn from_field(file: PathBuf, object: Option<String>, error: FieldError) -> Self {
        ModelError {
            file,
            pos: error.pos,
            object,
            message: error.to_string(),
        }
    }

    pub(crate) fn to_diagnostic(&self) -> Diagnostic {
        let mut diagnostic =
            Diagnostic::error(self.message.clone()).at(Location::at(self.file.clone(), self.pos));
        if let Some(object) = &self.object {
            diagnostic = diagnostic.object(object.clone());
        }
        diagnostic
    }
}

impl std::fmt::Display for ModelError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}: ", self.file.display(), self.pos)?;
        if let Some(object) = &self.object {
            write!(f, "{object}: ")?;
        }
        f.write_str(&self.message)
    }
}

impl std::error::Error for ModelError {}

impl Object {
    /// Reads the identifying fields of a document. Returns `Ok(None)` for documents that are not
    /// Kubernetes objects at all (no `kind`), such as a values file or a `Chart.yaml`.
    pub(crate) fn from_node(
        node: Node,
        file: PathBuf,
        pos: Pos,
    ) -> Result<Option<Object>, ModelError> {
        Object::from_shared(Arc::new(node), file, pos)
    }

    /// [`Object::from_node`] for a tree others may hold too.
    pub fn from_shared(
        node: Arc<Node>,
        file: PathBuf,
        pos: Pos,
    ) -> Result<Option<Object>, ModelError> {
        let Some(id) = Object::identify(&node, &file, pos)? else {
            return Ok(None);
        };
        Ok(Some(Object {
            id,
            node,
            file,
            pos,
        }))
    }

    /// The id [`Object::from_node`] would give the document, with the same errors, without taking
    /// the document: for readers that keep only some objects.
    pub(crate) fn identify(
        node: &Node,
        file: &Path,
        pos: Pos,
    ) -> Result<Option<ResourceId>, ModelError> {
        let Node::Mapping(map) = node else {
            return Ok(None);
        };
        let top = Fields::new(map, "");
        let field_error = |e: FieldError| ModelError::from_field(file.to_path_buf(), None, e);
        let api_version = top.str("apiVersion").map_err(field_error)?;
        let kind = top.str("kind").map_err(field_error)?;
        let (api_version, kind) = match (api_version, kind) {
            // Without a kind this is not an object (a Chart.yaml, a values file).
            (_, None) => return Ok(None),
            (Some(a), Some(k)) if !a.is_empty() && !k.is_empty() => (a, k),
            (_, _) => {
                return Err(ModelError {
                    file: file.to_path_buf(),
                    pos,
                    object: None,
                    message: "a Kubernetes object needs a non-empty `apiVersion` and `kind`".into(),
                })
            }
        };
        let label = |name: &str| Some(format!("{kind}/{name}"));
        let metadata = top
            .map("metadata")
            .map_err(|e| ModelError::from_field(file.to_path_buf(), label("?"), e))?;
        let (name, namespace) = match &metadata {
            Some(meta) => (
                meta.str("name")
                    .map_err(|e| ModelError::from_field(file.to_path_buf(), label("?"), e))?,
                meta.str("namespace")
                    .map_err(|e| ModelError::from_field(file.to_path_buf(), label("?"), e))?,
            ),
            None => (None, None),
        };
        // List kinds and kustomize's own config kinds have no name; they are still objects.
        let name = name.unwrap_or_default();
        Ok(Some(ResourceId::new(
            &api_version,
            &kind,
            namespace.as_deref().unwrap_or(""),
            &name,
        )))
    }

    pub fn location(&self) -> Location {
        Location::at(self.file.clone(), self.pos)
    }

    pub fn labels(&self) -> BTreeMap<String, String> {
        self.metadata_map("labels")
    }

    pub fn annotations(&self) -> BTreeMap<String, String> {
        self.metadata_map("annotations")
    }

    fn metadata_map(&self, key: &str) -> BTreeMap<String, String> {
        self.node
            .get_path(&["metadata", key])
            .and_then(Node::as_mapping)
            .map(|m| {
                m.iter()
                    .filter_map(|(k, v)| Some((k.to_owned(), v.as_scalar()?.value.to_string())))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// True for a document that SOPS encrypted: it carries a top-level `sops` mapping with a `mac`.
    pub fn is_sops_encrypted(&self) -> bool {
        is_sops_document(&self.node)
    }
}

/// Parses a YAML stream into the objects it holds (documents without a `kind` are skipped). A YAML
/// error or a malformed object is an error with the file and position.
pub fn parse_objects(text: &str, file: &std::path::Path) -> Result<Vec<Object>, ModelError> {
    let documents = crate::yaml::parse_stream(text, &crate::yaml::ParseOptions::default())
        .map_err(|e| ModelError {
            file: file.to_path_buf(),
            pos: e.pos,
            object: None,
            message: format!("invalid YAML: {}", e.message),
        })?;
    let mut objects = Vec::new();
    for document in documents {
        if let Some(object) = Object::from_shared(document.root, file.to_path_buf(), document.pos)?
        {
            objects.push(object);
        }
    }
    Ok(objects)
}

pub fn is_sops_document(node: &Node) -> bool {
    node.get("sops")
        .and_then(Node::as_mapping)
        .is_some_and(|sops| sops.contains_key("mac") || sops.contains_key("lastmodified"))
}
