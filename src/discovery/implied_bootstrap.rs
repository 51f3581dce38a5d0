//! The Kustomization a bootstrap makes for the entry directory when the repository writes none.
//!
//! `flux bootstrap` (or a FluxInstance kept outside the repository) creates a `flux-system`
//! Kustomization whose `spec.path` is the cluster's directory. When its sync file is not in the
//! repository, that Kustomization still builds the directory with kustomize, and only what the
//! build yields is applied: a kustomization file there that lists a missing file fails the whole
//! cluster, and its patches and `namespace:` shape every object it lists. So where the entry
//! directory has a kustomization file and nothing the repository writes applies it, discovery
//! adds that Kustomization, as bootstrap writes it (`flux-system/flux-system`, the working tree's
//! GitRepository, `prune: true`), and the run builds it like any other.
//!
//! Not for: entry directories without a kustomization file. The bootstrap generates one taking
//! every manifest below, which is what seeding every object nothing else applies already does.

use std::path::{Path, PathBuf};

use super::{BOOTSTRAP_NAME, BOOTSTRAP_NAMESPACE};
use crate::model::{FluxObject, Object};
use crate::yaml::{Mapping, Node, Pos, Scalar};

/// The note on the implied Kustomization's row.
pub(crate) fn note(entry: &Path) -> String {
    let shown = match display_path(entry) {
        path if path.is_empty() => ".".to_owned(),
        path => path,
    };
    format!(
        "not in the repository: the Kustomization a bootstrap makes for `{shown}`, named as `flux bootstrap` names it (if another Kustomization applies that directory, run from that one's)"
    )
}

/// The kustomization file of `entry` among `yaml_files` (absolute, sorted), in kustomize's order
/// of preference, when it is a Kustomization (a Component does not build on its own).
pub(super) fn entry_kustomization_file<'a>(
    entry: &Path,
    yaml_files: &'a [PathBuf],
    kind_of: &dyn Fn(usize) -> Option<String>,
) -> Option<&'a Path> {
    let index = super::KUSTOMIZATION_FILE_NAMES.iter().find_map(|name| {
        let file = entry.join(name);
        yaml_files.binary_search(&file).ok()
    })?;
    let kind = kind_of(index);
    (kind.as_deref() != Some("Component")).then_some(yaml_files[index].as_path())
}

/// The Kustomization `flux bootstrap` writes for `entry` (relative to the root), placed at the
/// start of `file`, the entry's kustomization file (relative to the root).
pub(super) fn kustomization(entry: &Path, file: &Path) -> Option<FluxObject> {
    let text = |s: &str| Node::Scalar(Scalar::string(s));
    let mut metadata = Mapping::new();
    metadata.insert("name", text(BOOTSTRAP_NAME));
    metadata.insert("namespace", text(BOOTSTRAP_NAMESPACE));
    let mut source = Mapping::new();
    source.insert("kind", text("GitRepository"));
    source.insert("name", text(BOOTSTRAP_NAME));
    let mut spec = Mapping::new();
    spec.insert("interval", text("10m0s"));
    spec.insert("path", text(&format!("./{}", display_path(entry))));
    spec.insert("prune", Node::Scalar(Scalar::plain("true")));
    spec.insert("sourceRef", Node::Mapping(source));
    let mut root = Mapping::new();
    root.insert("apiVersion", text("kustomize.toolkit.fluxcd.io/v1"));
    root.insert("kind", text("Kustomization"));
    root.insert("metadata", Node::Mapping(metadata));
    root.insert("spec", Node::Mapping(spec));
    let object = Object::from_node(
        Node::Mapping(root),
        file.to_path_buf(),
        Pos { line: 1, column: 1 },
    )
    .ok()??;
    FluxObject::from_object(&object).ok()?
}

/// `path` with `/` separators on every platform, as `spec.path` is written.
fn display_path(path: &Path) -> String {
    let parts: Vec<String> = path
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    parts.join("/")
}
