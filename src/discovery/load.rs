//! Reading one YAML file into objects, with every problem reported against the file and line.

use std::path::{Path, PathBuf};

use crate::diagnostic::{Diagnostic, Location};
use crate::model::{is_sops_document, Object};
use crate::yaml::{self, Node, ParseOptions, Pos};

/// What one file held.
pub struct LoadedFile {
    /// Every document that is a Kubernetes object (has `apiVersion` and `kind`).
    pub objects: Vec<Object>,
    /// The documents that are kustomize configuration (`kustomization.yaml`), kept for the
    /// patch-fragment and namespace readings.
    pub kustomization: Option<Node>,
    pub sops_documents: usize,
    pub diagnostics: Vec<Diagnostic>,
    /// False when the file could not be read or parsed.
    pub parsed: bool,
}

pub use crate::kustomize::KUSTOMIZATION_FILE_NAMES;

pub fn is_kustomization_file(path: &Path) -> bool {
    path.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| KUSTOMIZATION_FILE_NAMES.contains(&n))
}

pub fn load_file(absolute: &Path, relative: PathBuf, max_size: u64) -> LoadedFile {
    let mut loaded = LoadedFile {
        objects: Vec::new(),
        kustomization: None,
        sops_documents: 0,
        diagnostics: Vec::new(),
        parsed: false,
    };
    let at_file = || Location::file(relative.clone());
    match std::fs::metadata(absolute) {
        Ok(meta) if meta.len() > max_size => {
            loaded.diagnostics.push(
                Diagnostic::warning(format!(
                    "file is {} bytes, over the {max_size}-byte limit; not read",
                    meta.len()
                ))
                .at(at_file()),
            );
            return loaded;
        }
        Ok(_) => {}
        Err(error) => {
            loaded
                .diagnostics
                .push(Diagnostic::warning(format!("cannot read file: {error}")).at(at_file()));
            return loaded;
        }
    }
    let bytes = match std::fs::read(absolute) {
        Ok(bytes) => bytes,
        Err(error) => {
            loaded
                .diagnostics
                .push(Diagnostic::warning(format!("cannot read file: {error}")).at(at_file()));
            return loaded;
        }
    };
    let text = match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(error) => {
            loaded.diagnostics.push(
                Diagnostic::warning(format!(
                    "file is not valid UTF-8 (at byte {}); not read",
                    error.utf8_error().valid_up_to()
                ))
                .at(at_file()),
            );
            return loaded;
        }
    };
    let documents = match yaml::parse_stream(&text, &ParseOptions::default()) {
        Ok(documents) => documents,
        Err(error) => {
            loaded.diagnostics.push(
                Diagnostic::warning(format!("invalid YAML: {}", error.message))
                    .at(Location::at(relative.clone(), error.pos)),
            );
            return loaded;
        }
    };
    loaded.parsed = true;
    let is_kustomization = is_kustomization_file(absolute);
    for document in documents {
        if document.root.is_null() {
            continue;
        }
        if is_sops_document(&document.root) {
            loaded.sops_documents += 1;
        }
        if is_kustomization && loaded.kustomization.is_none() {
            loaded.kustomization = Some(document.root);
            continue;
        }
        load_document(document.root, document.pos, &relative, &mut loaded);
    }
    loaded
}

fn load_document(root: Node, pos: Pos, relative: &Path, loaded: &mut LoadedFile) {
    match Object::from_node(root, relative.to_path_buf(), pos) {
        Ok(Some(object)) => {
            if object.id.kind == "List" && object.id.group.is_empty() {
                flatten_list(&object, relative, loaded);
            } else {
                loaded.objects.push(object);
            }
        }
        Ok(None) => {}
        Err(error) => loaded.diagnostics.push(error.to_diagnostic()),
    }
}

fn flatten_list(list: &Object, relative: &Path, loaded: &mut LoadedFile) {
    let Some(items) = list.node.get("items").and_then(Node::as_sequence) else {
        return;
    };
    for item in &items.items {
        load_document(item.clone(), item.pos(), relative, loaded);
    }
}
