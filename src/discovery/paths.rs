//! Path arithmetic for `spec.path`: Flux joins it under the source root the way `securejoin` does,
//! so `..` can never climb out and a leading `/` means the root.

use std::path::{Component, Path, PathBuf};

use crate::fs_facts::path_bytes;

/// Joins `relative` under `root`, clamping every `..` at the root. The result is lexical: no
/// file system access, so symlinks are checked separately where files are read.
pub fn secure_join(root: &Path, relative: &str) -> PathBuf {
    let mut parts: Vec<&str> = Vec::new();
    for component in Path::new(relative).components() {
        match component {
            Component::Normal(part) => parts.push(part.to_str().unwrap_or_default()),
            Component::ParentDir => {
                parts.pop();
            }
            Component::CurDir | Component::RootDir | Component::Prefix(_) => {}
        }
    }
    let mut joined = root.to_path_buf();
    joined.extend(parts);
    joined
}

/// Replaces each `${NAME:=default}`/`${NAME:-default}` with its default. Returns the names of
/// variables with no default, which a static reading cannot resolve.
pub fn apply_variable_defaults(text: &str) -> Result<String, Vec<String>> {
    let mut out = String::with_capacity(text.len());
    let mut unresolved = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find('}') else {
            out.push_str(&rest[start..]);
            rest = "";
            break;
        };
        let inner = &after[..end];
        let default = [":=", ":-", "=", "-"]
            .iter()
            .find_map(|op| inner.split_once(op));
        match default {
            Some((_, value)) => out.push_str(value),
            None => unresolved.push(inner.to_owned()),
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    if unresolved.is_empty() {
        Ok(out)
    } else {
        Err(unresolved)
    }
}

/// `path` relative to `root`, for display; falls back to the path itself.
pub(crate) fn relative_to(path: &Path, root: &Path) -> PathBuf {
    crate::fs_facts::strip_root(path, root)
        .unwrap_or(path)
        .to_path_buf()
}

/// A path hashed and compared by its bytes, for tables looked up with `fs_facts::path_bytes`: `Path`'s own
/// `Hash` walks its components, which cost more than the lookup. For paths in one spelling
/// (normalised), where equal bytes and equal components are the same thing.
#[derive(Clone, Debug)]
pub(crate) struct BytePath(pub PathBuf);

impl PartialEq for BytePath {
    fn eq(&self, other: &Self) -> bool {
        path_bytes(&self.0) == path_bytes(&other.0)
    }
}

impl Eq for BytePath {}

impl std::hash::Hash for BytePath {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        path_bytes(&self.0).hash(state);
    }
}

impl std::borrow::Borrow<[u8]> for BytePath {
    fn borrow(&self) -> &[u8] {
        path_bytes(&self.0)
    }
}

/// A normalised absolute path as bytes with every `/` made the lowest byte. Byte order is then
/// `Path`'s component order (a directory sorts just before what lies under it), and comparing or
/// hashing one costs a `memcmp`, not a walk over components.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct PathKey(Box<[u8]>);

impl PathKey {
    pub(super) fn of(path: &Path) -> Self {
        #[cfg(unix)]
        {
            PathKey(
                path.as_os_str()
                    .as_encoded_bytes()
                    .iter()
                    .map(|&b| if b == b'/' { 0 } else { b })
                    .collect(),
            )
        }
        #[cfg(not(unix))]
        {
            PathKey(key_by_components(path))
        }
    }

    pub(crate) fn as_bytes(&self) -> &[u8] {
        &self.0
    }

    /// The path, then each ancestor up to the root, nearest first (as keys' bytes).
    pub(crate) fn self_and_ancestors(&self) -> impl Iterator<Item = &[u8]> {
        let bytes = &self.0[..];
        let ends = (1..bytes.len()).rev().filter(move |&i| bytes[i] == 0);
        std::iter::once(bytes)
            .chain(ends.map(move |i| &bytes[..i]))
            .chain((bytes.len() > 1 && bytes[0] == 0).then(|| &bytes[..1]))
    }

    /// Whether this is `dir` or lies under it (everything lies under a root, whose key ends
    /// with its separator: `/`, `C:\\`).
    pub(super) fn is_within(&self, dir: &PathKey) -> bool {
        self.0.starts_with(&dir.0)
            && (dir.0.last() == Some(&0) || self.0.get(dir.0.len()).is_none_or(|&b| b == 0))
    }
}

/// [`PathKey`]'s bytes from a path's components, for platforms where `/` is not the only
/// separator (Windows takes `\\` and `/`, and a `C:` prefix): each separator becomes the lowest
/// byte, so the key orders and nests as on Unix.
#[cfg_attr(unix, allow(dead_code))]
fn key_by_components(path: &Path) -> Box<[u8]> {
    let mut key: Vec<u8> = Vec::with_capacity(path.as_os_str().len());
    for component in path.components() {
        match component {
            Component::Prefix(prefix) => {
                key.extend_from_slice(prefix.as_os_str().as_encoded_bytes())
            }
            Component::RootDir => key.push(0),
            other => {
                if key.last().is_some_and(|&b| b != 0) {
                    key.push(0);
                }
                key.extend_from_slice(other.as_os_str().as_encoded_bytes());
            }
        }
    }
    key.into()
}

impl std::borrow::Borrow<[u8]> for PathKey {
    fn borrow(&self) -> &[u8] {
        &self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_from_components_are_the_keys_from_bytes() {
        for path in ["/", "/a", "/a/b", "/a/b.yaml", "/a/.b/c", "/ab/c"] {
            let path = Path::new(path);
            let by_bytes: Vec<u8> = path_bytes(path)
                .iter()
                .map(|&b| if b == b'/' { 0 } else { b })
                .collect();
            assert_eq!(
                &*key_by_components(path),
                &by_bytes[..],
                "{}",
                path.display()
            );
        }
        // Containment follows components, not bytes.
        let key = |p: &str| PathKey(key_by_components(Path::new(p)));
        assert!(key("/a/b/c").is_within(&key("/a/b")));
        assert!(!key("/a/bc").is_within(&key("/a/b")));
        assert!(key("/a/b").is_within(&key("/")));
        assert!(key("/").is_within(&key("/")));
    }

    #[test]
    fn secure_join_clamps_at_root() {
        let root = Path::new("/repo");
        assert_eq!(
            secure_join(root, "./apps/prod"),
            Path::new("/repo/apps/prod")
        );
        assert_eq!(secure_join(root, "../../etc"), Path::new("/repo/etc"));
        assert_eq!(
            secure_join(root, "/clusters/x"),
            Path::new("/repo/clusters/x")
        );
        assert_eq!(secure_join(root, "a/../../b"), Path::new("/repo/b"));
        assert_eq!(secure_join(root, ""), Path::new("/repo"));
    }

    #[test]
    fn variable_defaults() {
        assert_eq!(
            apply_variable_defaults("./k8s/${CLUSTER:=main}/apps").as_deref(),
            Ok("./k8s/main/apps")
        );
        assert_eq!(
            apply_variable_defaults("${A:-x}${B=y}").as_deref(),
            Ok("xy")
        );
        assert_eq!(
            apply_variable_defaults("./${CLUSTER}/apps"),
            Err(vec!["CLUSTER".to_owned()])
        );
        assert_eq!(apply_variable_defaults("./plain").as_deref(), Ok("./plain"));
    }

    #[test]
    fn path_keys_sort_as_paths_do_and_know_their_ancestors() {
        let paths = [
            "/r/a",
            "/r/a-b",
            "/r/a.yaml",
            "/r/a/b",
            "/r/a/b/c.yaml",
            "/r/ab",
            "/r",
        ];
        let mut by_path: Vec<&Path> = paths.iter().map(Path::new).collect();
        by_path.sort();
        let mut by_key: Vec<&Path> = paths.iter().map(Path::new).collect();
        by_key.sort_by_key(|p| PathKey::of(p));
        assert_eq!(by_path, by_key);
        let key = PathKey::of(Path::new("/r/a/b"));
        let ancestors: Vec<Vec<u8>> = key.self_and_ancestors().map(<[u8]>::to_vec).collect();
        let expected: Vec<Vec<u8>> = ["/r/a/b", "/r/a", "/r", "/"]
            .iter()
            .map(|p| PathKey::of(Path::new(p)).0.to_vec())
            .collect();
        assert_eq!(ancestors, expected);
        assert!(key.is_within(&PathKey::of(Path::new("/r/a"))));
        assert!(key.is_within(&key));
        assert!(!key.is_within(&PathKey::of(Path::new("/r/a/b/c"))));
        assert!(!PathKey::of(Path::new("/r/ab")).is_within(&PathKey::of(Path::new("/r/a"))));
    }
}
