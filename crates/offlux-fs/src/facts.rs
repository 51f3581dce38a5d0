//! What builds ask the file system about paths (where a symlink leads, whether a path is a file or
//! a directory), remembered for as long as the caller keeps the table: builds that share one ask
//! about each path once between them. Dozens of builds of one repository include the same
//! components and bases, and each question is a system call.

use std::path::{Component, Path, PathBuf};
use std::sync::Mutex;

use offlux_sync::MutexExt as _;

use crate::backend;
pub use crate::backend::FileKind;

/// Both tables are keyed by the path's bytes: `Path`'s own hash walks its components, which
/// costs more than the lookup. Another spelling of a path (`a/./b`) is only another entry.
#[derive(Debug, Default)]
pub struct FsFacts {
    real_paths: Table<Option<PathBuf>>,
    kinds: Table<Option<FileKind>>,
}

type Table<T> = Mutex<foldhash::HashMap<Box<[u8]>, T>>;

/// `path.starts_with(dir)` for normalised absolute paths (no `.`, `..`, doubled or trailing
/// separators, as `canonicalize` gives them). On Unix, where `/` is the only separator, on their
/// bytes rather than component by component; elsewhere (`C:\a`, `\\?\C:\a`, either separator)
/// by components.
pub fn is_within(path: &Path, dir: &Path) -> bool {
    #[cfg(unix)]
    {
        let (path, dir) = (path_bytes(path), path_bytes(dir));
        path.starts_with(dir)
            && (dir.ends_with(b"/") || path.get(dir.len()).is_none_or(|&b| b == b'/'))
    }
    #[cfg(not(unix))]
    {
        is_within_by_components(path, dir)
    }
}

/// [`is_within`] for any platform's paths.
#[cfg_attr(unix, allow(dead_code))]
fn is_within_by_components(path: &Path, dir: &Path) -> bool {
    path.starts_with(dir)
}

/// `path.strip_prefix(root)`, compared on the bytes where both are plainly spelled (the common
/// case: a file found under the root it is shown relative to) and component by component
/// otherwise.
pub fn strip_root<'p>(path: &'p Path, root: &Path) -> Option<&'p Path> {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        let whole_root = path_bytes(root);
        let root = whole_root.strip_suffix(b"/").unwrap_or(whole_root);
        let rest = path_bytes(path)
            .strip_prefix(root)
            .and_then(|rest| rest.strip_prefix(b"/"));
        let root_plain =
            root.is_empty() || plainly_spelled(root.strip_prefix(b"/").unwrap_or(root));
        let plain = |rest: &&[u8]| !whole_root.is_empty() && root_plain && plainly_spelled(rest);
        if let Some(rest) = rest.filter(plain) {
            return Some(Path::new(std::ffi::OsStr::from_bytes(rest)));
        }
    }
    path.strip_prefix(root).ok()
}

/// A relative path with no empty or `.` components: its components give back its bytes.
#[cfg(unix)]
fn plainly_spelled(relative: &[u8]) -> bool {
    relative
        .split(|&b| b == b'/')
        .all(|part| !part.is_empty() && part != b".")
}

/// A path's bytes, which the tables here (and discovery's) are keyed by.
pub fn path_bytes(path: &Path) -> &[u8] {
    path.as_os_str().as_encoded_bytes()
}

/// The answer `table` holds for `path`, or `find`'s, then remembered. The lock is not held while
/// `find` runs: it may ask the table about other paths.
fn remembered<T: Clone>(table: &Table<T>, path: &Path, find: impl FnOnce() -> T) -> T {
    let known = table.locked().get(path_bytes(path)).cloned();
    if let Some(known) = known {
        return known;
    }
    let answer = find();
    {
        let mut table = table.locked();
        table.insert(path_bytes(path).into(), answer.clone());
    }
    answer
}

impl FsFacts {
    /// `std::fs::metadata(path)`'s answer (or a mounted tree's), remembered: `None` where nothing (readable) is.
    pub fn kind(&self, path: &Path) -> Option<FileKind> {
        remembered(&self.kinds, path, || backend::kind(path).ok())
    }

    /// Notes what `path` is and where it really is, as a walk of its directory found them, so
    /// nobody asks again.
    pub fn record(&self, path: PathBuf, kind: FileKind, real: PathBuf) {
        {
            let mut real_paths = self.real_paths.locked();
            real_paths.insert(path_bytes(&path).into(), Some(real));
        }
        {
            let mut kinds = self.kinds.locked();
            kinds.insert(
                path.into_os_string().into_encoded_bytes().into(),
                Some(kind),
            );
        }
    }

    pub fn is_file(&self, path: &Path) -> bool {
        self.kind(path) == Some(FileKind::File)
    }

    pub fn is_dir(&self, path: &Path) -> bool {
        self.kind(path) == Some(FileKind::Directory)
    }

    pub fn exists(&self, path: &Path) -> bool {
        self.kind(path).is_some()
    }

    /// `path.canonicalize()`, remembered. A path whose last component is no symlink resolves
    /// through its parent, so a directory's files cost one `lstat` each.
    pub fn resolve(&self, path: &Path) -> Option<PathBuf> {
        remembered(&self.real_paths, path, || {
            let plain = path.is_absolute()
                && path
                    .components()
                    .all(|c| matches!(c, Component::RootDir | Component::Normal(_)));
            match (path.parent(), path.file_name()) {
                (Some(parent), Some(name)) if plain => match backend::symlink_kind(path) {
                    Ok(kind) if kind != backend::EntryKind::Symlink => {
                        self.resolve(parent).map(|p| p.join(name))
                    }
                    Ok(_) => backend::canonicalize(path).ok(),
                    Err(_) => None,
                },
                _ => backend::canonicalize(path).ok(),
            }
        })
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn containment_of_normalised_paths_is_decided_as_path_starts_with_decides_it() {
        use std::path::Path;
        for (path, dir, within) in [
            ("/a/b", "/a", true),
            ("/a/b", "/a/b", true),
            ("/a/bc", "/a/b", false),
            ("/a", "/a/b", false),
            ("/a/b", "/", true),
        ] {
            assert_eq!(
                super::is_within(Path::new(path), Path::new(dir)),
                within,
                "{path} in {dir}"
            );
            assert_eq!(Path::new(path).starts_with(dir), within);
            assert_eq!(
                super::is_within_by_components(Path::new(path), Path::new(dir)),
                within
            );
        }
    }

    #[test]
    fn a_root_is_stripped_as_path_strip_prefix_strips_it() {
        use std::path::Path;
        let paths = [
            "/",
            "/a",
            "/a/",
            "/a/b",
            "/a/b/",
            "/a//b",
            "/a/./b",
            "/a/b/.",
            "/a/../b",
            "/ab/c",
            "/a/.b",
            "/a/b/c.yaml",
            "a",
            "a/b",
            "./a/b",
            "a/./b",
            "",
        ];
        for path in paths {
            for root in paths {
                assert_eq!(
                    super::strip_root(Path::new(path), Path::new(root)),
                    Path::new(path).strip_prefix(root).ok(),
                    "{path} from {root}"
                );
            }
        }
    }

    use super::{FileKind, FsFacts};

    #[test]
    fn resolves_as_canonicalize_does_through_symlinks() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let real = dir.path().join("real");
        std::fs::create_dir_all(real.join("sub")).unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(real.join("sub/a.yaml"), "a: 1\n").unwrap_or_else(|e| panic!("{e}"));
        #[cfg(unix)]
        std::os::unix::fs::symlink(&real, dir.path().join("link"))
            .unwrap_or_else(|e| panic!("{e}"));
        let paths = FsFacts::default();
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

    #[test]
    fn kinds_follow_symlinks_and_are_remembered() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let real = dir.path().join("real");
        std::fs::create_dir_all(&real).unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(real.join("a.yaml"), "a: 1\n").unwrap_or_else(|e| panic!("{e}"));
        #[cfg(unix)]
        std::os::unix::fs::symlink(&real, dir.path().join("link"))
            .unwrap_or_else(|e| panic!("{e}"));
        let facts = FsFacts::default();
        assert_eq!(facts.kind(&real), Some(FileKind::Directory));
        assert!(facts.is_file(&dir.path().join("link/a.yaml")));
        assert!(facts.is_file(&real.join("a.yaml")));
        assert!(facts.is_dir(&dir.path().join("link")));
        assert!(!facts.exists(&real.join("missing.yaml")));
        // The answer is the one given first, as for the rest of a run.
        std::fs::remove_file(real.join("a.yaml")).unwrap_or_else(|e| panic!("{e}"));
        assert!(facts.is_file(&real.join("a.yaml")));
    }
}
