//! Sources the user maps to local directories, as flux-local's `--sources` does: `NAME=DIR` maps
//! every GitRepository, OCIRepository, Bucket or ExternalArtifact of that name, and
//! `KIND/NAMESPACE/NAME=DIR` exactly one. A mapped source is read like the working tree: its
//! Kustomizations build under that directory and read nothing outside it.

use std::path::PathBuf;

use crate::model::{FluxKind, ResourceId};

/// Whether `kind` is one a mapping applies to: a source whose artifact is a file tree.
fn mappable(kind: &str) -> bool {
    FluxKind::from_kind(kind).is_some_and(FluxKind::is_file_tree_source)
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceMapping {
    /// `None` for a mapping by name alone.
    pub kind: Option<String>,
    pub namespace: Option<String>,
    pub name: String,
    pub dir: PathBuf,
}

impl SourceMapping {
    /// Reads `NAME=DIR[,NAME=DIR...]`, each name optionally `KIND/NAMESPACE/NAME`. A name without
    /// a directory is the repository itself (`repository_root`), as in flux-local's `--sources`.
    pub fn parse_list(
        text: &str,
        repository_root: &std::path::Path,
    ) -> Result<Vec<SourceMapping>, String> {
        text.split(',')
            .filter(|part| !part.trim().is_empty())
            .map(|part| match part.split_once('=') {
                Some((key, dir)) => SourceMapping::new(key.trim(), PathBuf::from(dir.trim())),
                None => SourceMapping::new(part.trim(), repository_root.to_path_buf()),
            })
            .collect()
    }

    /// A mapping of `key` (`NAME` or `KIND/NAMESPACE/NAME`) to `dir`.
    pub fn new(key: &str, dir: PathBuf) -> Result<SourceMapping, String> {
        let parts: Vec<&str> = key.split('/').collect();
        let (kind, namespace, name) = match parts.as_slice() {
            [name] => (None, None, *name),
            [kind, namespace, name] => (Some(kind.to_string()), Some(namespace.to_string()), *name),
            _ => return Err(format!("`{key}` must be NAME or KIND/NAMESPACE/NAME")),
        };
        if name.is_empty() || dir.as_os_str().is_empty() {
            return Err(format!(
                "`{key}={}` needs a name and a directory",
                dir.display()
            ));
        }
        if let Some(kind) = &kind {
            if !mappable(kind) {
                let kinds: Vec<&str> = FluxKind::ALL
                    .into_iter()
                    .filter(|k| k.is_file_tree_source())
                    .map(FluxKind::as_str)
                    .collect();
                return Err(format!(
                    "`{kind}` is not a source kind (one of {})",
                    kinds.join(", ")
                ));
            }
        }
        Ok(SourceMapping {
            kind,
            namespace,
            name: name.to_string(),
            dir,
        })
    }

    fn matches(&self, id: &ResourceId) -> bool {
        id.name == self.name
            && mappable(&id.kind)
            && self.kind.as_deref().is_none_or(|k| k == id.kind)
            && self.namespace.as_deref().is_none_or(|n| n == id.namespace)
    }
}

/// The mapping for `id`: an exact `KIND/NAMESPACE/NAME` one before one by name.
pub(crate) fn mapped<'a>(
    mappings: &'a [SourceMapping],
    id: &ResourceId,
) -> Option<&'a SourceMapping> {
    let mut matching = mappings.iter().filter(|m| m.matches(id));
    let first = matching.clone().next();
    matching.find(|m| m.kind.is_some()).or(first)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_mappings_win_over_names() {
        let root = std::path::Path::new("/repo");
        let mappings =
            SourceMapping::parse_list("apps=/a,OCIRepository/flux-system/apps=/b", root).unwrap();
        let oci = ResourceId::new(
            "source.toolkit.fluxcd.io/v1",
            "OCIRepository",
            "flux-system",
            "apps",
        );
        let git = ResourceId::new("source.toolkit.fluxcd.io/v1", "GitRepository", "x", "apps");
        assert_eq!(
            mapped(&mappings, &oci).map(|m| &m.dir),
            Some(&PathBuf::from("/b"))
        );
        assert_eq!(
            mapped(&mappings, &git).map(|m| &m.dir),
            Some(&PathBuf::from("/a"))
        );
        assert_eq!(
            SourceMapping::parse_list("x", root).unwrap()[0].dir,
            PathBuf::from("/repo"),
            "a name alone is the repository"
        );
        assert!(SourceMapping::parse_list("a/b=/x", root).is_err());
        assert!(SourceMapping::parse_list("ConfigMap/a/b=/x", root).is_err());
    }
}
