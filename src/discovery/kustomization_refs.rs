//! What discovery reads from `kustomization.yaml` files without building them: which files are
//! patches (so a HelmRelease patch fragment is not taken for a HelmRelease) and which namespace a
//! kustomization gives the files it lists directly.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::yaml::Node;

#[derive(Default)]
pub struct KustomizationRefs {
    /// Files used as patches or generator inputs, never as resources.
    pub non_resource_files: foldhash::HashSet<PathBuf>,
    /// Files a kustomization lists directly under `resources`, with the kustomization's namespace.
    pub namespace_of_file: foldhash::HashMap<PathBuf, String>,
    /// For each kustomization's directory, the local paths (files or directories) it builds from:
    /// `resources`, `components` and legacy `bases`. Remote URLs are left out.
    pub inputs_of_dir: BTreeMap<PathBuf, Vec<PathBuf>>,
}

impl KustomizationRefs {
    /// Records what the kustomization in `dir` (absolute) says about the files it names.
    pub fn read(&mut self, dir: &Path, kustomization: &Node) {
        let files = |key: &str| -> Vec<String> {
            kustomization
                .get(key)
                .and_then(Node::as_sequence)
                .map(|seq| {
                    seq.items
                        .iter()
                        .filter_map(|item| match item {
                            Node::Scalar(s) => Some(s.value.clone()),
                            Node::Mapping(_) => item.get("path")?.as_str().map(str::to_owned),
                            Node::Sequence(_) => None,
                        })
                        .collect()
                })
                .unwrap_or_default()
        };
        for key in ["patches", "patchesStrategicMerge", "patchesJson6902"] {
            for file in files(key) {
                // Inline strategic-merge patches are YAML text, not file names.
                if !file.contains('\n') {
                    self.non_resource_files.insert(normalize(&dir.join(file)));
                }
            }
        }
        for key in ["configMapGenerator", "secretGenerator"] {
            let generators = kustomization.get(key).and_then(Node::as_sequence);
            for generator in generators.into_iter().flat_map(|g| &g.items) {
                for list in ["files", "envs"] {
                    let entries = generator.get(list).and_then(Node::as_sequence);
                    for entry in entries.into_iter().flat_map(|e| &e.items) {
                        if let Some(text) = entry.as_str() {
                            let file = text.split_once('=').map_or(text, |(_, f)| f);
                            self.non_resource_files.insert(normalize(&dir.join(file)));
                        }
                    }
                }
            }
        }
        let inputs = self.inputs_of_dir.entry(normalize(dir)).or_default();
        for key in ["resources", "components", "bases"] {
            for entry in files(key) {
                if !is_remote(&entry) {
                    inputs.push(normalize(&dir.join(entry)));
                }
            }
        }
        if let Some(namespace) = kustomization.get("namespace").and_then(Node::as_str) {
            for file in files("resources") {
                self.namespace_of_file
                    .insert(normalize(&dir.join(file)), namespace.to_owned());
            }
        }
    }
}

/// Kustomize treats URLs and `host/org/repo` forms with a `?ref=` or `//` as remote bases.
fn is_remote(entry: &str) -> bool {
    entry.contains("://")
        || entry.starts_with("git@")
        || entry.contains("?ref=")
        || entry.contains("//")
}

/// Removes `.` and `..` lexically, so paths written differently compare equal.
pub fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}
