//! What discovery reads from `kustomization.yaml` files without building them: which files are
//! patches (so a HelmRelease patch fragment is not taken for a HelmRelease) and which namespace a
//! kustomization gives the files it lists directly.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::paths::{BytePath, PathKey};
use crate::yaml::Node;

#[derive(Default)]
pub(crate) struct KustomizationRefs {
    /// Files used as patches or generator inputs, never as resources.
    pub non_resource_files: foldhash::HashSet<BytePath>,
    /// Files a `configMapGenerator` or `secretGenerator` reads: data, whatever they look like.
    pub generator_inputs: foldhash::HashSet<BytePath>,
    /// Files a kustomization lists directly under `resources`, with the kustomization's namespace.
    pub namespace_of_file: foldhash::HashMap<BytePath, String>,
    /// For each kustomization's directory, the local paths (files or directories) it builds from:
    /// `resources`, `components` and legacy `bases`. Remote URLs are left out.
    pub inputs_of_dir: BTreeMap<PathKey, Vec<PathBuf>>,
}

/// What one kustomization file says about the files it names, read on its own so that files can
/// be read on any thread; [`KustomizationRefs::add`] gathers them.
#[derive(Clone)]
pub(crate) struct FileRefs {
    non_resource_files: Vec<PathBuf>,
    generator_inputs: Vec<PathBuf>,
    dir: PathKey,
    inputs: Vec<PathBuf>,
    namespaced_files: Option<(String, Vec<PathBuf>)>,
}

impl FileRefs {
    /// Reads the kustomization in `dir` (absolute).
    pub(super) fn of(dir: &Path, kustomization: &Node) -> Self {
        let files = |key: &str| {
            kustomization
                .get(key)
                .and_then(Node::as_sequence)
                .into_iter()
                .flat_map(|seq| &seq.items)
                .filter_map(|item| match item {
                    Node::Scalar(s) => Some(s.value.as_str()),
                    Node::Mapping(_) => item.get("path")?.as_str(),
                    Node::Sequence(_) => None,
                })
        };
        let mut non_resource_files = Vec::new();
        let mut generator_inputs = Vec::new();
        for key in ["patches", "patchesStrategicMerge", "patchesJson6902"] {
            for file in files(key) {
                // Inline strategic-merge patches are YAML text, not file names.
                if !file.contains('\n') {
                    non_resource_files.push(normalize(&dir.join(file)));
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
                            generator_inputs.push(normalize(&dir.join(file)));
                        }
                    }
                }
            }
        }
        let inputs = ["resources", "components", "bases"]
            .into_iter()
            .flat_map(files)
            .filter(|entry| !is_remote(entry))
            .map(|entry| normalize(&dir.join(entry)))
            .collect();
        let namespaced_files =
            kustomization
                .get("namespace")
                .and_then(Node::as_str)
                .map(|namespace| {
                    let listed = files("resources")
                        .map(|file| normalize(&dir.join(file)))
                        .collect();
                    (namespace.to_owned(), listed)
                });
        non_resource_files.extend(generator_inputs.iter().cloned());
        FileRefs {
            non_resource_files,
            generator_inputs,
            dir: PathKey::of(&normalize(dir)),
            inputs,
            namespaced_files,
        }
    }
}

impl KustomizationRefs {
    /// Records what one kustomization file says; a later file's namespace for a file wins.
    pub(super) fn add(&mut self, refs: FileRefs) {
        self.non_resource_files
            .extend(refs.non_resource_files.into_iter().map(BytePath));
        self.generator_inputs
            .extend(refs.generator_inputs.into_iter().map(BytePath));
        self.inputs_of_dir
            .entry(refs.dir)
            .or_default()
            .extend(refs.inputs);
        if let Some((namespace, files)) = refs.namespaced_files {
            for file in files {
                self.namespace_of_file
                    .insert(BytePath(file), namespace.clone());
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
pub(crate) fn normalize(path: &Path) -> PathBuf {
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
