//! Paths with symlinks resolved, remembered for as long as the caller keeps the table: builds
//! that share one resolve the repository's directories once between them.

use std::path::{Component, Path, PathBuf};
use std::sync::Mutex;

#[derive(Debug, Default)]
pub struct RealPaths {
    known: Mutex<foldhash::HashMap<PathBuf, Option<PathBuf>>>,
}

impl RealPaths {
    /// `path.canonicalize()`, remembered. A path whose last component is no symlink resolves
    /// through its parent, so a directory's files cost one `lstat` each.
    pub fn resolve(&self, path: &Path) -> Option<PathBuf> {
        if let Some(known) = self.known.lock().ok().and_then(|k| k.get(path).cloned()) {
            return known;
        }
        let plain = path.is_absolute()
            && path
                .components()
                .all(|c| matches!(c, Component::RootDir | Component::Normal(_)));
        let real = match (path.parent(), path.file_name()) {
            (Some(parent), Some(name)) if plain => match std::fs::symlink_metadata(path) {
                Ok(meta) if !meta.file_type().is_symlink() => {
                    self.resolve(parent).map(|p| p.join(name))
                }
                Ok(_) => path.canonicalize().ok(),
                Err(_) => None,
            },
            _ => path.canonicalize().ok(),
        };
        if let Ok(mut known) = self.known.lock() {
            known.insert(path.to_path_buf(), real.clone());
        }
        real
    }
}

#[cfg(test)]
mod tests {
    use super::RealPaths;

    #[test]
    fn resolves_as_canonicalize_does_through_symlinks() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let real = dir.path().join("real");
        std::fs::create_dir_all(real.join("sub")).unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(real.join("sub/a.yaml"), "a: 1\n").unwrap_or_else(|e| panic!("{e}"));
        #[cfg(unix)]
        std::os::unix::fs::symlink(&real, dir.path().join("link"))
            .unwrap_or_else(|e| panic!("{e}"));
        let paths = RealPaths::default();
        for path in [
            real.join("sub/a.yaml"),
            dir.path().join("link/sub/a.yaml"),
            dir.path().join("link/sub"),
        ] {
            assert_eq!(
                paths.resolve(&path),
                path.canonicalize().ok(),
                "{}",
                path.display()
            );
            // Remembered answers are the same.
            assert_eq!(
                paths.resolve(&path),
                path.canonicalize().ok(),
                "{}",
                path.display()
            );
        }
        assert_eq!(paths.resolve(&real.join("missing.yaml")), None);
    }
}
