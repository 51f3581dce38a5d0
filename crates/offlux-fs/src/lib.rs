//! The one door through which engines and controllers reach the file system. A repository under
//! review may come from a stranger, so a read here resolves symlinks and checks that the real path
//! lies inside the caller's root *before* opening it, opens only regular files (never a device,
//! FIFO or socket: `/dev/zero` is refused, not read), and stops at a size limit. Every refusal is
//! a [`ReadError`] naming the file.
//!
//! Symlink resolutions come from the run's [`FsFacts`], which discovery's walk has already
//! filled, so a guarded read costs the same system calls as `std::fs::read` (open, fstat, read).
//!
//! A path may lie in an in-memory tree rather than on the disk (a git revision, `diff`'s base,
//! mounted with [`mount`]): every answer here comes through `backend`, which serves such a path
//! from the tree and never from the disk, so engines read a revision as they read a working tree.
//!
//! Not for: deciding which root applies (the caller's load restrictor or repository root).

#![deny(unreachable_pub)]

pub mod archive;
pub mod backend;
pub mod facts;
pub mod mem_tree;

use std::ffi::OsString;
use std::path::{Path, PathBuf};

pub use crate::facts::{is_within, FsFacts};
pub use backend::{canonicalize, charge_as_read, content_id, mount};
pub use backend::{EntryKind, FileKind, Mount};

/// The largest file a guarded read takes, unless the caller asks for less: far above any
/// manifest, values file or generator input a repository holds, far below what would hurt.
pub const MAX_FILE_BYTES: u64 = 64 << 20;

/// A refused or failed read, with the path as the caller spelled it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{}` {kind}", path.display())]
pub struct ReadError {
    pub path: PathBuf,
    pub kind: ReadErrorKind,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReadErrorKind {
    #[error("does not exist")]
    NotFound,
    /// The real path (symlinks resolved) lies outside the root.
    #[error("leads outside `{}` (to `{}`); not read", root.display(), real.display())]
    Outside { root: PathBuf, real: PathBuf },
    #[error("is a directory")]
    Directory,
    #[error("is not a regular file (a device, FIFO or socket); not read")]
    NotRegular,
    #[error("is larger than the {limit}-byte limit; not read")]
    TooLarge { limit: u64 },
    #[error("is not valid UTF-8")]
    NotUtf8,
    #[error("cannot be read: {0}")]
    Io(String),
}

impl ReadError {
    fn new(path: &Path, kind: ReadErrorKind) -> Self {
        ReadError {
            path: path.to_path_buf(),
            kind,
        }
    }
}

/// Where a read may go and how much it may take.
#[derive(Clone, Copy, Debug)]
pub struct Confine<'a> {
    /// The directory the file must really be in (symlinks resolved on both sides); `None` for a
    /// file the user named on the command line, which may be anywhere.
    pub root: Option<&'a Path>,
    pub max_bytes: u64,
}

impl<'a> Confine<'a> {
    pub fn within(root: &'a Path) -> Self {
        Confine {
            root: Some(root),
            max_bytes: MAX_FILE_BYTES,
        }
    }

    /// Any regular file, as for paths given on the command line.
    pub fn anywhere() -> Self {
        Confine {
            root: None,
            max_bytes: MAX_FILE_BYTES,
        }
    }

    pub fn root_or_anywhere(root: Option<&'a Path>) -> Self {
        Confine {
            root,
            max_bytes: MAX_FILE_BYTES,
        }
    }
}

/// Where `path` really is (symlinks resolved), refused when that is outside `root`.
pub fn locate(facts: &FsFacts, path: &Path, root: Option<&Path>) -> Result<PathBuf, ReadError> {
    let real = facts
        .resolve(path)
        .ok_or_else(|| ReadError::new(path, ReadErrorKind::NotFound))?;
    if let Some(root) = root {
        let root = facts.resolve(root).unwrap_or_else(|| root.to_path_buf());
        if !is_within(&real, &root) {
            return Err(ReadError::new(path, ReadErrorKind::Outside { root, real }));
        }
    }
    Ok(real)
}

/// The bytes of `path`, through the checks of [`Confine`].
pub fn read(facts: &FsFacts, path: &Path, confine: Confine<'_>) -> Result<Vec<u8>, ReadError> {
    let real = locate(facts, path, confine.root)?;
    read_located(path, &real, confine.max_bytes)
}

/// [`read`], as text.
pub fn read_to_string(
    facts: &FsFacts,
    path: &Path,
    confine: Confine<'_>,
) -> Result<String, ReadError> {
    let bytes = read(facts, path, confine)?;
    String::from_utf8(bytes).map_err(|_| ReadError::new(path, ReadErrorKind::NotUtf8))
}

/// `path` opened for reading through the checks of [`read`] (its real path inside `root`, a
/// regular file), for a caller that seeks in it rather than reading it whole (a git packfile).
pub fn open(facts: &FsFacts, path: &Path, root: Option<&Path>) -> Result<std::fs::File, ReadError> {
    let real = locate(facts, path, root)?;
    backend::open(&real).map_err(|unread| ReadError::new(path, unread_kind(unread, 0)))
}

fn unread_kind(unread: backend::Unread, max_bytes: u64) -> ReadErrorKind {
    use backend::Unread;
    match unread {
        Unread::TooLarge(_) => ReadErrorKind::TooLarge { limit: max_bytes },
        Unread::Directory => ReadErrorKind::Directory,
        Unread::NotRegular => ReadErrorKind::NotRegular,
        Unread::Io(e) if e.kind() == std::io::ErrorKind::NotFound => ReadErrorKind::NotFound,
        Unread::Io(e) => ReadErrorKind::Io(e.to_string()),
    }
}

/// Reads the real path itself (no symlink left to follow, and none followed should one appear
/// meanwhile), if it is a regular file.
fn read_located(shown: &Path, real: &Path, max_bytes: u64) -> Result<Vec<u8>, ReadError> {
    backend::read(real, max_bytes)
        .map_err(|unread| ReadError::new(shown, unread_kind(unread, max_bytes)))
}

/// For a caller with its own limits and messages (discovery): the bytes of `path` as they are,
/// not resolved or confined here (the caller's walk did that), with the size when it is over
/// `max_bytes`.
pub fn read_unconfined(path: &Path, max_bytes: u64) -> Result<Vec<u8>, ReadFailure> {
    use backend::Unread;
    backend::read_walked(path, max_bytes).map_err(|unread| match unread {
        Unread::TooLarge(size) => ReadFailure::TooLarge(size),
        Unread::Directory => {
            ReadFailure::Io(std::io::Error::from(std::io::ErrorKind::IsADirectory))
        }
        Unread::NotRegular => ReadFailure::Io(std::io::Error::other(
            "not a regular file (a device, FIFO or socket)",
        )),
        Unread::Io(e) => ReadFailure::Io(e),
    })
}

/// Why [`read_unconfined`] gave no bytes.
#[derive(Debug)]
pub enum ReadFailure {
    /// Over the limit; the size when the file said it.
    TooLarge(Option<u64>),
    Io(std::io::Error),
}

/// One entry of [`read_dir`].
#[derive(Clone, Debug)]
pub struct Entry {
    pub name: OsString,
    /// The directory as the caller spelled it, joined with the name.
    pub path: PathBuf,
    pub kind: EntryKind,
}

/// The size and modification time of the regular file at `path` itself (a symlink is not
/// followed, and is no regular file): the bookkeeping of a cache offlux keeps (`offlux cache`).
pub fn file_size_and_time(path: &Path) -> std::io::Result<(u64, Option<std::time::SystemTime>)> {
    let meta = std::fs::symlink_metadata(path)?;
    if !meta.is_file() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "not a regular file",
        ));
    }
    Ok((meta.len(), meta.modified().ok()))
}

/// The entries of `dir` in byte order of their names, `dir` refused when it really lies outside
/// `root`. Symlinks among the entries are reported as such, not followed: the caller resolves
/// each through [`locate`].
pub fn read_dir(facts: &FsFacts, dir: &Path, root: Option<&Path>) -> Result<Vec<Entry>, ReadError> {
    let real = locate(facts, dir, root)?;
    let io = |e: std::io::Error| ReadError::new(dir, ReadErrorKind::Io(e.to_string()));
    let mut entries: Vec<Entry> = backend::list(&real)
        .map_err(io)?
        .into_iter()
        .map(|(name, kind)| Entry {
            path: dir.join(&name),
            name,
            kind,
        })
        .collect();
    entries.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(entries)
}

/// `path` made absolute against the working directory, without touching the file system.
pub fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

/// Bytes held in memory, one blob per file.
struct HeldBytes(Vec<std::sync::Arc<Vec<u8>>>);

impl mem_tree::Blobs for HeldBytes {
    fn read(
        &self,
        blob: usize,
        max_bytes: u64,
    ) -> Result<std::sync::Arc<Vec<u8>>, mem_tree::BlobError> {
        let bytes = self
            .0
            .get(blob)
            .ok_or_else(|| mem_tree::BlobError::Failed("no such file".into()))?;
        if bytes.len() as u64 > max_bytes {
            return Err(mem_tree::BlobError::TooLarge);
        }
        Ok(bytes.clone())
    }
}

/// A directory of `files` (name and bytes) that exists only in memory, at a path under the
/// standard temporary directory that is never created: engines read it through this module as
/// they read a working tree, and nothing is written to the disk or left after a signal.
pub fn mount_files(label: &str, files: Vec<(String, Vec<u8>)>) -> std::io::Result<Mount> {
    let mut builder = mem_tree::Builder::default();
    let mut blobs = Vec::with_capacity(files.len());
    for (name, bytes) in files {
        builder.file(mem_tree::Builder::ROOT, name.into(), blobs.len());
        blobs.push(std::sync::Arc::new(bytes));
    }
    let parent = absolute(&std::env::temp_dir());
    mount(builder.finish(Box::new(HeldBytes(blobs))), &parent, label)
}

/// A tree of `files` (relative `/`-separated paths and their bytes) and `dirs` (relative paths of
/// directories, which may be empty) that exists only in memory, mounted as [`mount_files`]
/// mounts. Parent directories are made as needed; a path with an empty, `.` or `..` segment, or
/// one naming both a file and a directory, is refused (`InvalidInput`); a later file of the same
/// path replaces an earlier one, as an archive unpacked in order would.
pub fn mount_tree(
    label: &str,
    files: Vec<(String, Vec<u8>)>,
    dirs: &[String],
) -> std::io::Result<Mount> {
    use std::collections::BTreeMap;
    let invalid = |path: &str| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("`{path}` is not a relative path"),
        )
    };
    let segments = |path: &str| -> std::io::Result<Vec<String>> {
        let parts: Vec<String> = path.split('/').map(str::to_owned).collect();
        if parts.iter().any(|p| p.is_empty() || p == "." || p == "..") {
            return Err(invalid(path));
        }
        Ok(parts)
    };
    enum Slot {
        Dir(BTreeMap<String, Slot>),
        File(usize),
    }
    fn dir_at<'a>(
        root: &'a mut BTreeMap<String, Slot>,
        parts: &[String],
        path: &str,
    ) -> std::io::Result<&'a mut BTreeMap<String, Slot>> {
        let mut at = root;
        for part in parts {
            let slot = at
                .entry(part.clone())
                .or_insert_with(|| Slot::Dir(BTreeMap::new()));
            at = match slot {
                Slot::Dir(children) => children,
                Slot::File(_) => {
                    return Err(std::io::Error::new(
                        std::io::ErrorKind::InvalidInput,
                        format!("`{path}` is under a file"),
                    ))
                }
            };
        }
        Ok(at)
    }
    let mut root: BTreeMap<String, Slot> = BTreeMap::new();
    for dir in dirs {
        dir_at(&mut root, &segments(dir)?, dir)?;
    }
    let mut blobs = Vec::with_capacity(files.len());
    for (path, bytes) in files {
        let parts = segments(&path)?;
        let (name, parents) = parts.split_last().ok_or_else(|| invalid(&path))?;
        let parent = dir_at(&mut root, parents, &path)?;
        if matches!(parent.get(name), Some(Slot::Dir(_))) {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!("`{path}` is both a file and a directory"),
            ));
        }
        parent.insert(name.clone(), Slot::File(blobs.len()));
        blobs.push(std::sync::Arc::new(bytes));
    }
    fn add(
        builder: &mut mem_tree::Builder,
        parent: mem_tree::NodeId,
        slots: BTreeMap<String, Slot>,
    ) {
        for (name, slot) in slots {
            match slot {
                Slot::File(blob) => builder.file(parent, name.into(), blob),
                Slot::Dir(children) => {
                    let id = builder.dir(parent, name.into());
                    add(builder, id, children);
                }
            }
        }
    }
    let mut builder = mem_tree::Builder::default();
    add(&mut builder, mem_tree::Builder::ROOT, root);
    let parent = absolute(&std::env::temp_dir());
    mount(builder.finish(Box::new(HeldBytes(blobs))), &parent, label)
}

/// Writes `bytes` to `path` through a temporary file in the same directory renamed into place (a
/// reader never sees a partial file), creating the directory first. For caches offlux owns.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let mut builder = tempfile::Builder::new();
    // Made as any new file is (0666 less the process's umask), not private as a temporary file
    // is: a report or a rendered tree is read by others (an artifact upload, a reviewer).
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(std::fs::Permissions::from_mode(0o666));
    }
    let mut temp = builder.tempfile_in(dir)?;
    temp.write_all(bytes)?;
    temp.as_file().sync_all()?;
    temp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        std::fs::create_dir_all(dir.path().join("root/sub")).unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(dir.path().join("root/sub/a.txt"), "a").unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(dir.path().join("secret.txt"), "s").unwrap_or_else(|e| panic!("{e}"));
        dir
    }

    /// A written file has the mode any new file gets (the umask applied), as `touch` makes it.
    #[cfg(unix)]
    #[test]
    fn a_file_written_atomically_is_not_private() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tree();
        let made = dir.path().join("made-by-std");
        std::fs::write(&made, "x").unwrap_or_else(|e| panic!("{e}"));
        let written = dir.path().join("report.md");
        write_atomically(&written, b"report").unwrap_or_else(|e| panic!("{e}"));
        let mode = |path: &Path| {
            std::fs::metadata(path)
                .unwrap_or_else(|e| panic!("{e}"))
                .permissions()
                .mode()
                & 0o777
        };
        assert_eq!(mode(&written), mode(&made));
        assert_eq!(
            std::fs::read(&written).ok().as_deref(),
            Some(&b"report"[..])
        );
    }

    #[test]
    fn a_mounted_tree_reads_as_directories_and_refuses_escaping_paths() {
        let files = vec![
            ("apps/a.yaml".to_string(), b"a".to_vec()),
            ("apps/sub/b.yaml".to_string(), b"b".to_vec()),
            ("top.yaml".to_string(), b"t".to_vec()),
        ];
        let mount =
            mount_tree("t", files, &["empty".to_string()]).unwrap_or_else(|e| panic!("{e}"));
        let facts = FsFacts::default();
        let root = mount.path().to_path_buf();
        let confine = Confine::within(&root);
        assert_eq!(
            read(&facts, &root.join("apps/sub/b.yaml"), confine).as_deref(),
            Ok(&b"b"[..])
        );
        let names: Vec<String> = read_dir(&facts, &root, Some(&root))
            .unwrap_or_else(|e| panic!("{e}"))
            .into_iter()
            .map(|e| e.name.to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, ["apps", "empty", "top.yaml"]);
        for bad in ["../x", "a//b", "/abs", "a/./b"] {
            assert!(
                mount_tree("t", vec![(bad.to_string(), Vec::new())], &[]).is_err(),
                "{bad}"
            );
        }
        let clash = vec![
            ("a".to_string(), Vec::new()),
            ("a/b".to_string(), Vec::new()),
        ];
        assert!(mount_tree("t", clash, &[]).is_err());
    }

    #[test]
    fn reads_inside_and_refuses_outside_the_root() {
        let dir = tree();
        let facts = FsFacts::default();
        let root = dir.path().join("root");
        let confine = Confine::within(&root);
        assert_eq!(
            read(&facts, &root.join("sub/a.txt"), confine).as_deref(),
            Ok(&b"a"[..])
        );
        let outside = read(&facts, &root.join("../secret.txt"), confine);
        assert!(
            matches!(
                outside,
                Err(ReadError {
                    kind: ReadErrorKind::Outside { .. },
                    ..
                })
            ),
            "{outside:?}"
        );
        let missing = read(&facts, &root.join("nothing"), confine).map_err(|e| e.kind);
        assert_eq!(missing, Err(ReadErrorKind::NotFound));
        let directory = read(&facts, &root.join("sub"), confine).map_err(|e| e.kind);
        assert_eq!(directory, Err(ReadErrorKind::Directory));
    }

    #[cfg(unix)]
    #[test]
    fn a_symlink_out_of_the_root_is_refused_before_it_is_opened() {
        let dir = tree();
        let root = dir.path().join("root");
        std::os::unix::fs::symlink(dir.path().join("secret.txt"), root.join("link"))
            .unwrap_or_else(|e| panic!("{e}"));
        let facts = FsFacts::default();
        let refused = read(&facts, &root.join("link"), Confine::within(&root));
        assert!(
            matches!(&refused, Err(e) if matches!(e.kind, ReadErrorKind::Outside { .. })),
            "{refused:?}"
        );
        // Without a root the same link is read.
        assert_eq!(
            read(&facts, &root.join("link"), Confine::anywhere()).as_deref(),
            Ok(&b"s"[..])
        );
    }

    #[cfg(unix)]
    #[test]
    fn devices_and_fifos_are_refused_and_sizes_capped() {
        let facts = FsFacts::default();
        let zero = read(&facts, Path::new("/dev/zero"), Confine::anywhere()).map_err(|e| e.kind);
        assert_eq!(zero, Err(ReadErrorKind::NotRegular));
        let dir = tree();
        let big = dir.path().join("root/big");
        std::fs::write(&big, vec![b'x'; 100]).unwrap_or_else(|e| panic!("{e}"));
        let capped = Confine {
            root: None,
            max_bytes: 99,
        };
        assert_eq!(
            read(&facts, &big, capped).map_err(|e| e.kind),
            Err(ReadErrorKind::TooLarge { limit: 99 })
        );
    }

    #[test]
    fn lists_a_directory_in_name_order() {
        let dir = tree();
        std::fs::write(dir.path().join("root/b"), "").unwrap_or_else(|e| panic!("{e}"));
        let facts = FsFacts::default();
        let root = dir.path().join("root");
        let names: Vec<(OsString, EntryKind)> = read_dir(&facts, &root, Some(&root))
            .unwrap_or_else(|e| panic!("{e}"))
            .into_iter()
            .map(|e| (e.name, e.kind))
            .collect();
        assert_eq!(
            names,
            [
                (OsString::from("b"), EntryKind::File),
                (OsString::from("sub"), EntryKind::Directory)
            ]
        );
        assert!(read_dir(&facts, dir.path(), Some(&root)).is_err());
    }
}
