//! Path arithmetic for `spec.path`: Flux joins it under the source root the way `securejoin` does,
//! so `..` can never climb out and a leading `/` means the root.

use std::path::{Component, Path, PathBuf};

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
pub fn relative_to(path: &Path, root: &Path) -> PathBuf {
    path.strip_prefix(root)
        .map(Path::to_path_buf)
        .unwrap_or_else(|_| path.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
