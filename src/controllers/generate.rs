//! Flux's kustomization generator (fluxcd/pkg `kustomize` generator): the kustomization file a
//! Flux Kustomization builds. Where `spec.path` holds none, one is generated from the YAML files
//! below it; either way the Flux spec is merged in: `targetNamespace`, `namePrefix`, `nameSuffix`,
//! `patches` and `components` appended, `images` merged by name.
//!
//! Not for: building. The result is a file the kustomize engine reads in place of the one on disk,
//! so the repository is never written to.

use std::path::{Path, PathBuf};

use crate::fs_facts::FsFacts;
use crate::model::Kustomization;
use crate::yaml::{Mapping, Node, Scalar, Sequence};

use crate::kustomize::KUSTOMIZATION_FILE_NAMES;

/// The kustomization file to build, as a tree, and where it stands in for the one on disk.
#[derive(Clone, Debug, PartialEq)]
pub struct Generated {
    pub file: PathBuf,
    pub kustomization: Node,
    /// True when no kustomization file existed and this one was generated.
    pub generated: bool,
}

/// The existing kustomization file in `dir`, if any, by kustomize's precedence of names.
pub(crate) fn existing_kustomization_file(dir: &Path, facts: &FsFacts) -> Option<PathBuf> {
    KUSTOMIZATION_FILE_NAMES
        .iter()
        .map(|name| dir.join(name))
        .find(|path| facts.is_file(path))
}

/// Generates the resource list Flux would write for `dir`: YAML files (lexical order per
/// directory), and subdirectories that hold their own kustomization as single entries, not entered.
/// `visible` lists the files the source exposes (ignore rules already applied), sorted.
pub(crate) fn generated_resources(dir: &Path, visible: &[PathBuf], facts: &FsFacts) -> Vec<String> {
    let mut resources = Vec::new();
    collect(dir, dir, visible, facts, &mut resources);
    resources
}

fn collect(base: &Path, dir: &Path, visible: &[PathBuf], facts: &FsFacts, out: &mut Vec<String>) {
    // A directory that really lies outside `base` (through a symlink) is not listed.
    let Ok(entries) = crate::fsio::read_dir(facts, dir, Some(base)) else {
        return;
    };
    for path in entries.into_iter().map(|e| e.path) {
        let relative = path.strip_prefix(base).unwrap_or(&path);
        let entry = format!("./{}", relative.display());
        if facts.is_dir(&path) {
            // Sorted by components, a directory's files follow it directly.
            let first_below = visible.partition_point(|f| *f <= path);
            if !visible
                .get(first_below)
                .is_some_and(|f| f.starts_with(&path))
            {
                continue;
            }
            if existing_kustomization_file(&path, facts).is_some() {
                out.push(entry);
            } else {
                collect(base, &path, visible, facts, out);
            }
        } else if visible.binary_search(&path).is_ok()
            && matches!(
                path.extension().and_then(|e| e.to_str()),
                Some("yaml" | "yml")
            )
        {
            out.push(entry);
        }
    }
}

fn text(value: &str) -> Node {
    Node::Scalar(Scalar::string(value))
}

fn sequence(node: Option<&Node>) -> Vec<Node> {
    node.and_then(Node::as_sequence)
        .map(|s| s.items.clone())
        .unwrap_or_default()
}

fn list(items: Vec<Node>) -> Node {
    Node::Sequence(Sequence {
        items,
        ..Sequence::default()
    })
}

/// Merges the Flux spec into `existing` (or into a generated kustomization listing `resources`).
pub fn merge(
    existing: Option<Node>,
    resources: Vec<String>,
    spec: &Kustomization,
) -> Result<Node, String> {
    let generated = existing.is_none();
    let mut root = match existing {
        Some(Node::Mapping(m)) => m,
        Some(other) if other.is_null() => Mapping::new(),
        Some(other) => {
            return Err(format!(
                "the kustomization file must be a mapping, found a {}",
                other.kind_name()
            ))
        }
        None => {
            let mut m = Mapping::new();
            m.insert("apiVersion", text("kustomize.config.k8s.io/v1beta1"));
            m.insert("kind", text("Kustomization"));
            if resources.is_empty() {
                // An empty kustomization is rejected by kustomize; Flux gives it a namespace.
                m.insert("namespace", text("_placeholder"));
            } else {
                m.insert(
                    "resources",
                    list(resources.iter().map(|r| text(r)).collect()),
                );
            }
            m
        }
    };
    let _ = generated;
    if let Some(namespace) = &spec.target_namespace {
        root.insert("namespace", text(namespace));
    }
    if let Some(prefix) = &spec.name_prefix {
        root.insert("namePrefix", text(prefix));
    }
    if let Some(suffix) = &spec.name_suffix {
        root.insert("nameSuffix", text(suffix));
    }
    if let Some(Node::Sequence(patches)) = &spec.patches {
        let mut all = sequence(root.get("patches"));
        all.extend(patches.items.iter().cloned());
        root.insert("patches", list(all));
    }
    if !spec.components.is_empty() {
        let mut all = sequence(root.get("components"));
        for component in &spec.components {
            if !is_local_relative(component) {
                return Err(format!(
                    "component path '{component}' must be local and relative"
                ));
            }
            all.push(text(component));
        }
        root.insert("components", list(all));
    }
    if let Some(Node::Sequence(images)) = &spec.images {
        let mut all = sequence(root.get("images"));
        for image in &images.items {
            let name = image.get("name").and_then(Node::as_str);
            match all
                .iter_mut()
                .find(|i| name.is_some() && i.get("name").and_then(Node::as_str) == name)
            {
                Some(slot) => *slot = image.clone(),
                None => all.push(image.clone()),
            }
        }
        root.insert("images", list(all));
    }
    Ok(Node::Mapping(root))
}

/// Flux accepts `foo.yaml`, `./foo`, `file://foo`; not absolute paths or remote URLs.
fn is_local_relative(path: &str) -> bool {
    let path = path.strip_prefix("file://").unwrap_or(path);
    !(path.starts_with('/')
        || path.contains("://")
        || path.starts_with("git@")
        || path.starts_with("github.com/"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml::{emit, parse_stream, ParseOptions};

    fn spec(text: &str) -> Kustomization {
        let object = crate::model::parse_objects(text, std::path::Path::new("ks.yaml"))
            .ok()
            .and_then(|objects| objects.into_iter().next())
            .unwrap_or_else(|| panic!("object"));
        let flux = crate::model::FluxObject::from_object(&object)
            .ok()
            .flatten()
            .unwrap_or_else(|| panic!("flux object"));
        flux.as_kustomization()
            .cloned()
            .unwrap_or_else(|| panic!("kustomization"))
    }

    const HEADER: &str = "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: apps, namespace: flux-system}\nspec:\n  sourceRef: {kind: GitRepository, name: flux-system}\n";

    #[test]
    fn generated_kustomization_lists_files_and_kustomization_dirs() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let root = dir.path();
        for file in [
            "b.yaml",
            "a.yml",
            "notes.txt",
            "sub/c.yaml",
            "sub/deeper/d.yaml",
            "base/kustomization.yaml",
            "base/e.yaml",
            "hidden/x.yaml",
        ] {
            let path = root.join(file);
            std::fs::create_dir_all(path.parent().unwrap_or(root))
                .unwrap_or_else(|e| panic!("{e}"));
            std::fs::write(&path, "a: 1\n").unwrap_or_else(|e| panic!("{e}"));
        }
        // Sorted, as the repository lists its files.
        let visible: std::collections::BTreeSet<PathBuf> = [
            "b.yaml",
            "a.yml",
            "notes.txt",
            "sub/c.yaml",
            "sub/deeper/d.yaml",
            "base/kustomization.yaml",
            "base/e.yaml",
        ]
        .iter()
        .map(|f| root.join(f))
        .collect();
        assert_eq!(
            generated_resources(
                root,
                &visible.into_iter().collect::<Vec<_>>(),
                &FsFacts::default()
            ),
            [
                "./a.yml",
                "./b.yaml",
                "./base",
                "./sub/c.yaml",
                "./sub/deeper/d.yaml"
            ]
        );
    }

    #[test]
    fn flux_spec_is_merged_into_an_existing_file() {
        let existing = parse_stream(
            "resources: [app.yaml]\nnamespace: old\ncomponents: [../a]\nimages:\n- name: nginx\n  newTag: '1'\n- name: redis\n  newTag: '2'\n",
            &ParseOptions::default(),
        )
        .unwrap_or_default()
        .into_iter()
        .next()
        .map(|d| d.into_root());
        let spec = spec(&format!(
            "{HEADER}  targetNamespace: apps\n  namePrefix: p-\n  components: [../b]\n  images:\n  - name: nginx\n    newName: mirror/nginx\n  - name: busybox\n    newTag: '3'\n  patches:\n  - patch: |\n      - op: remove\n        path: /x\n    target: {{kind: Deployment}}\n"
        ));
        let merged = merge(existing, Vec::new(), &spec).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(merged.get("namespace").and_then(Node::as_str), Some("apps"));
        assert_eq!(merged.get("namePrefix").and_then(Node::as_str), Some("p-"));
        let printed = emit(&merged);
        assert!(
            printed.contains("components:\n- ../a\n- ../b\n"),
            "{printed}"
        );
        assert!(
            printed.contains("- name: nginx\n  newName: mirror/nginx\n- name: redis"),
            "{printed}"
        );
        assert!(
            printed.contains("- name: busybox\n  newTag: \"3\""),
            "{printed}"
        );
        assert!(
            printed.contains("target:\n    kind: Deployment"),
            "{printed}"
        );
    }

    #[test]
    fn empty_directory_gets_a_placeholder_namespace_and_remote_components_are_refused() {
        let merged = merge(None, Vec::new(), &spec(HEADER)).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            merged.get("namespace").and_then(Node::as_str),
            Some("_placeholder")
        );
        let error = merge(
            None,
            vec!["./a.yaml".into()],
            &spec(&format!("{HEADER}  components: [https://example.com/c]\n")),
        )
        .expect_err("remote component");
        assert_eq!(
            error,
            "component path 'https://example.com/c' must be local and relative"
        );
    }
}
