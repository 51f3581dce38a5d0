//! ConfigMaps and Secrets a bootstrap template in the repository defines: a manifest that a
//! bootstrap script renders (1Password's `op inject`, Jinja, a Go template) and applies before
//! Flux starts, such as `bootstrap/secrets.yaml.tpl` or `bootstrap/resources.yaml.j2`. The
//! cluster holds what it defines; its values are placeholders until the bootstrap fills them in,
//! so offline only the object's kind, namespace and name are known.
//!
//! Templates are found by name (`*.yaml.tpl`, `*.yml.j2`, ... see `TEMPLATE_SUFFIXES`) anywhere
//! under the root, whatever `.sourceignore` says (the bootstrap applies them, not Flux). Each
//! `---`-separated document is parsed on its own and the ones that are not YAML (template
//! directives) are passed over. The walk does not follow symlinks and stops at `MAX_ENTRIES`
//! entries and `MAX_DEPTH` levels, so a repository cannot make it unbounded.
//! Not for: manifests Flux applies (discovery reads those) or Helm chart templates.

use std::path::{Path, PathBuf};

use crate::fs_facts::FsFacts;
use crate::fsio::{backend, Confine, EntryKind};
use crate::model::ResourceId;

/// How a bootstrap template file's name ends.
const TEMPLATE_SUFFIXES: &[&str] = &[
    ".yaml.tpl",
    ".yml.tpl",
    ".yaml.j2",
    ".yml.j2",
    ".yaml.jinja",
    ".yaml.jinja2",
    ".yaml.tmpl",
    ".yml.tmpl",
];

/// Directories never holding a bootstrap template of the repository's own.
const SKIPPED_DIRECTORIES: &[&str] = &[".git", "node_modules", ".venv", "vendor"];

const MAX_ENTRIES: usize = 200_000;
const MAX_DEPTH: usize = 24;
/// A bootstrap template is a short manifest; anything larger is not read.
const MAX_TEMPLATE_BYTES: u64 = 1 << 20;

/// A ConfigMap or Secret a bootstrap template defines, with the template (relative to the root).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct TemplateObject {
    pub id: ResourceId,
    pub file: PathBuf,
}

/// Every ConfigMap and Secret the bootstrap templates under `root` define, sorted by id and file.
pub(crate) fn scan(root: &Path, facts: &FsFacts) -> Vec<TemplateObject> {
    let mut files = Vec::new();
    let mut visited = 0usize;
    collect(root, 0, &mut visited, &mut files);
    files.sort();
    let mut objects = Vec::new();
    for file in files {
        let confine = Confine {
            max_bytes: MAX_TEMPLATE_BYTES,
            ..Confine::within(root)
        };
        let Ok(text) = crate::fsio::read_to_string(facts, &file, confine) else {
            continue;
        };
        let shown = file.strip_prefix(root).unwrap_or(&file).to_path_buf();
        for id in defined_objects(&text) {
            objects.push(TemplateObject {
                id,
                file: shown.clone(),
            });
        }
    }
    objects.sort_by(|a, b| (&a.id, &a.file).cmp(&(&b.id, &b.file)));
    objects
}

fn is_template(name: &str) -> bool {
    TEMPLATE_SUFFIXES
        .iter()
        .any(|suffix| name.ends_with(suffix))
}

fn collect(dir: &Path, depth: usize, visited: &mut usize, files: &mut Vec<PathBuf>) {
    if depth > MAX_DEPTH {
        return;
    }
    let Ok(mut entries) = backend::list(dir) else {
        return;
    };
    entries.sort_by(|a, b| a.0.cmp(&b.0));
    for (name, kind) in entries {
        *visited += 1;
        if *visited > MAX_ENTRIES {
            return;
        }
        let Some(text) = name.to_str() else {
            continue;
        };
        match kind {
            EntryKind::Directory if !SKIPPED_DIRECTORIES.contains(&text) => {
                collect(&dir.join(&name), depth + 1, visited, files);
            }
            EntryKind::File if is_template(text) => files.push(dir.join(&name)),
            _ => {}
        }
    }
}

/// The ConfigMaps and Secrets with a literal namespace and name among `text`'s documents.
fn defined_objects(text: &str) -> Vec<ResourceId> {
    let mut documents = vec![String::new()];
    for line in text.lines() {
        let trimmed = line.trim();
        // A line that is only a template directive (`{% for %}`, `{{- if }}`, `{# #}`) holds
        // no YAML of the manifest.
        let directive = [("{%", "%}"), ("{#", "#}"), ("{{", "}}")]
            .iter()
            .any(|(open, close)| trimmed.starts_with(open) && trimmed.ends_with(close));
        if directive {
            continue;
        }
        if line.trim_end() == "---" {
            documents.push(String::new());
        } else if let Some(current) = documents.last_mut() {
            current.push_str(line);
            current.push('\n');
        }
    }
    let literal = |value: Option<&str>| {
        value
            .filter(|v| !v.is_empty() && !v.contains(['{', '}', '%', '$', '<', '>']))
            .map(str::to_owned)
    };
    let mut ids = Vec::new();
    for document in documents {
        let Ok(parsed) =
            crate::yaml::parse_stream(&document, &crate::yaml::ParseOptions::default())
        else {
            continue;
        };
        for root in parsed.into_iter().map(|d| d.into_root()) {
            let kind = root.get("kind").and_then(crate::yaml::Node::as_str);
            let api_version = root.get("apiVersion").and_then(crate::yaml::Node::as_str);
            let name = literal(
                root.get_path(&["metadata", "name"])
                    .and_then(|n| n.as_str()),
            );
            let namespace = literal(
                root.get_path(&["metadata", "namespace"])
                    .and_then(|n| n.as_str()),
            );
            if let (
                Some(kind @ ("ConfigMap" | "Secret")),
                Some("v1"),
                Some(name),
                Some(namespace),
            ) = (kind, api_version, name, namespace)
            {
                ids.push(ResourceId::new("v1", kind, &namespace, &name));
            }
        }
    }
    ids
}

/// The template defining `wanted`, if any (the first by path).
pub(crate) fn defining<'a>(objects: &'a [TemplateObject], wanted: &ResourceId) -> Option<&'a Path> {
    if !wanted.group.is_empty() {
        return None;
    }
    objects
        .iter()
        .find(|o| {
            o.id.kind == wanted.kind
                && o.id.namespace == wanted.namespace
                && o.id.name == wanted.name
        })
        .map(|o| o.file.as_path())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn documents_with_literal_names_are_found_and_directives_passed_over() {
        let text = "{% for namespace in [\"a\", \"network\"] %}\n---\napiVersion: v1\nkind: Namespace\n\
                    metadata:\n  name: {{ namespace }}\n{% endfor %}\n---\napiVersion: v1\nkind: Secret\n\
                    metadata:\n  name: tunnel\n  namespace: network\nstringData:\n  ID: op://k/c/ID\n---\n\
                    apiVersion: v1\nkind: ConfigMap\nmetadata: {name: '{{ .name }}', namespace: network}\n---\n\
                    apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings, namespace: flux-system}\n";
        assert_eq!(
            defined_objects(text),
            vec![
                ResourceId::new("v1", "Secret", "network", "tunnel"),
                ResourceId::new("v1", "ConfigMap", "flux-system", "settings"),
            ]
        );
        assert!(is_template("secrets.yaml.tpl") && is_template("resources.yaml.j2"));
        assert!(!is_template("_helpers.tpl") && !is_template("values.yaml"));
    }

    #[test]
    fn templates_are_found_below_the_root_without_following_symlinks() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path().canonicalize().expect("canonical");
        std::fs::create_dir_all(root.join("bootstrap")).expect("mkdir");
        std::fs::write(
            root.join("bootstrap/secrets.yaml.tpl"),
            "apiVersion: v1\nkind: Secret\nmetadata: {name: s, namespace: n}\n",
        )
        .expect("write");
        std::fs::write(
            root.join("bootstrap/other.yaml"),
            "apiVersion: v1\nkind: Secret\nmetadata: {name: t, namespace: n}\n",
        )
        .expect("write");
        // A symlink to a directory outside the root is not followed.
        let outside = tempfile::tempdir().expect("tempdir");
        std::fs::write(
            outside.path().join("elsewhere.yaml.tpl"),
            "apiVersion: v1\nkind: Secret\nmetadata: {name: u, namespace: n}\n",
        )
        .expect("write");
        #[cfg(unix)]
        std::os::unix::fs::symlink(outside.path(), root.join("bootstrap/outside"))
            .expect("symlink");
        let facts = FsFacts::default();
        let found = scan(&root, &facts);
        assert_eq!(
            found,
            vec![TemplateObject {
                id: ResourceId::new("v1", "Secret", "n", "s"),
                file: PathBuf::from("bootstrap/secrets.yaml.tpl"),
            }]
        );
        let wanted = ResourceId::new("v1", "Secret", "n", "s");
        assert_eq!(
            defining(&found, &wanted),
            Some(Path::new("bootstrap/secrets.yaml.tpl"))
        );
        assert_eq!(
            defining(&found, &ResourceId::new("v1", "Secret", "m", "s")),
            None
        );
    }
}
