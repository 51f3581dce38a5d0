//! Where a path's answers come from: the real file system, or an in-memory tree mounted at a path
//! of its own ([`mount`]: a git revision, for `diff`'s base). Everything the door and the run's
//! file facts ask (what a path is, where it really is, what a directory holds, a file's bytes)
//! comes through the few functions here, which send a path under a mount point to the tree and
//! never to the disk, whatever is or appears at that path on the disk.
//!
//! The mount table is the process's, like a kernel's: every `FsFacts` and every guarded read
//! sees it, so an engine that makes its own table of facts (a chart load) reads a revision as it
//! reads a working tree, knowing nothing of either.
//!
//! Not for: containment, size limits and file kinds (the door, `fsio`), nor remembering answers
//! (`fs_facts`).

use std::ffi::OsString;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, RwLock};

use offlux_sync::RwLockExt as _;

use super::mem_tree::{self, MemTree};

/// What a path is, symlinks followed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileKind {
    File,
    Directory,
    /// A socket, device or the like: it exists, but is neither.
    Other,
}

impl FileKind {
    pub fn of(meta: &std::fs::Metadata) -> FileKind {
        if meta.is_file() {
            FileKind::File
        } else if meta.is_dir() {
            FileKind::Directory
        } else {
            FileKind::Other
        }
    }
}

/// What a directory entry is, symlinks not followed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EntryKind {
    File,
    Directory,
    Symlink,
    Other,
}

impl From<mem_tree::Kind> for EntryKind {
    fn from(kind: mem_tree::Kind) -> Self {
        match kind {
            mem_tree::Kind::File => EntryKind::File,
            mem_tree::Kind::Directory => EntryKind::Directory,
            mem_tree::Kind::Symlink => EntryKind::Symlink,
        }
    }
}

struct Mounted {
    at: PathBuf,
    tree: Arc<MemTree>,
}

static MOUNTS: RwLock<Vec<Mounted>> = RwLock::new(Vec::new());
/// How many trees are mounted: with none, no path looks at the table.
static MOUNT_COUNT: AtomicUsize = AtomicUsize::new(0);
static NEXT_MOUNT: AtomicU64 = AtomicU64::new(0);

/// A tree mounted at [`Mount::path`] until this is dropped.
#[derive(Debug)]
pub struct Mount {
    at: PathBuf,
}

impl Mount {
    /// Where the tree's root appears: a path no one else uses, never created on the disk.
    pub fn path(&self) -> &Path {
        &self.at
    }
}

impl Drop for Mount {
    fn drop(&mut self) {
        {
            let mut mounts = MOUNTS.write_locked();
            let before = mounts.len();
            mounts.retain(|m| m.at != self.at);
            MOUNT_COUNT.fetch_sub(before - mounts.len(), Ordering::Release);
        }
    }
}

/// Mounts `tree` at a new path under `parent` (an absolute directory; the mount point is named
/// after `label`, the process and a counter, and is never made on the disk).
pub fn mount(tree: MemTree, parent: &Path, label: &str) -> std::io::Result<Mount> {
    let n = NEXT_MOUNT.fetch_add(1, Ordering::Relaxed);
    let label: String = label
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    let at = parent.join(format!(
        "offlux-revision-{label}-{}-{n}",
        std::process::id()
    ));
    if !at.is_absolute() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "a mount point must be absolute",
        ));
    }
    let mut mounts = MOUNTS.write_locked();
    mounts.push(Mounted {
        at: at.clone(),
        tree: Arc::new(tree),
    });
    MOUNT_COUNT.fetch_add(1, Ordering::Release);
    Ok(Mount { at })
}

/// The tree `path` lies in and the path relative to its root, compared component by component
/// (so `MOUNT/a/../b` is the tree's, and `..` above its root is the tree's to refuse).
fn mounted(path: &Path) -> Option<(Arc<MemTree>, PathBuf, PathBuf)> {
    if MOUNT_COUNT.load(Ordering::Acquire) == 0 {
        return None;
    }
    let mounts = MOUNTS.read_locked();
    mounts.iter().find_map(|m| {
        let relative = path.strip_prefix(&m.at).ok()?;
        Some((m.tree.clone(), m.at.clone(), relative.to_path_buf()))
    })
}

/// `std::fs::metadata(path)`'s kind.
pub fn kind(path: &Path) -> std::io::Result<FileKind> {
    match mounted(path) {
        Some((tree, _, relative)) => match tree.kind(&relative, true) {
            Ok(mem_tree::Kind::Directory) => Ok(FileKind::Directory),
            Ok(_) => Ok(FileKind::File),
            Err(miss) => Err(miss.to_io()),
        },
        None => std::fs::metadata(path).map(|meta| FileKind::of(&meta)),
    }
}

/// `std::fs::symlink_metadata(path)`'s kind.
pub fn symlink_kind(path: &Path) -> std::io::Result<EntryKind> {
    match mounted(path) {
        Some((tree, _, relative)) => tree
            .kind(&relative, false)
            .map(EntryKind::from)
            .map_err(|miss| miss.to_io()),
        None => std::fs::symlink_metadata(path).map(|meta| {
            let t = meta.file_type();
            if t.is_symlink() {
                EntryKind::Symlink
            } else if t.is_dir() {
                EntryKind::Directory
            } else if t.is_file() {
                EntryKind::File
            } else {
                EntryKind::Other
            }
        }),
    }
}

/// `path.canonicalize()`.
pub fn canonicalize(path: &Path) -> std::io::Result<PathBuf> {
    match mounted(path) {
        Some((tree, at, relative)) => tree
            .resolve(&relative)
            .map(|real| at.join(real))
            .map_err(|miss| miss.to_io()),
        None => path.canonicalize(),
    }
}

/// The entries of directory `dir`, unsorted on the disk, symlinks not followed.
pub fn list(dir: &Path) -> std::io::Result<Vec<(OsString, EntryKind)>> {
    if let Some((tree, _, relative)) = mounted(dir) {
        return tree
            .list(&relative)
            .map(|entries| entries.into_iter().map(|(n, k)| (n, k.into())).collect())
            .map_err(|miss| miss.to_io());
    }
    let mut entries = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let kind = match entry.file_type()? {
            t if t.is_symlink() => EntryKind::Symlink,
            t if t.is_dir() => EntryKind::Directory,
            t if t.is_file() => EntryKind::File,
            _ => EntryKind::Other,
        };
        entries.push((entry.file_name(), kind));
    }
    Ok(entries)
}

/// Why [`read`] gave no bytes.
#[derive(Debug)]
pub enum Unread {
    /// More than the limit: the size if known.
    TooLarge(Option<u64>),
    Directory,
    NotRegular,
    Io(std::io::Error),
}

/// The bytes of the file at `path` (already resolved and checked by the caller where the caller
/// checks), at most `max_bytes`. On the disk the open follows no final symlink, does not block,
/// and reads only a regular file (`platform::open`).
pub fn read(path: &Path, max_bytes: u64) -> Result<Vec<u8>, Unread> {
    if let Some(read) = read_mounted(path, max_bytes) {
        return read;
    }
    if !offlux_platform::open::GUARDED_OPEN {
        match std::fs::metadata(path).map(|m| FileKind::of(&m)) {
            Ok(FileKind::File) => {}
            Ok(FileKind::Directory) => return Err(Unread::Directory),
            Ok(FileKind::Other) => return Err(Unread::NotRegular),
            Err(e) => return Err(Unread::Io(e)),
        }
    }
    let file = offlux_platform::open::read_options()
        .open(path)
        .map_err(Unread::Io)?;
    let meta = file.metadata().map_err(Unread::Io)?;
    match FileKind::of(&meta) {
        FileKind::File => {}
        FileKind::Directory => return Err(Unread::Directory),
        FileKind::Other => return Err(Unread::NotRegular),
    }
    if meta.len() > max_bytes {
        return Err(Unread::TooLarge(Some(meta.len())));
    }
    // The size said is only a hint (files under /proc say 0): the limit holds on what is read.
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
    file.take(max_bytes.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(Unread::Io)?;
    if bytes.len() as u64 > max_bytes {
        return Err(Unread::TooLarge(None));
    }
    Ok(bytes)
}

/// The file at `path` (already resolved and checked by the caller) opened for reading, as
/// [`read`] opens it (no final symlink followed, no blocking, a regular file only), for a caller
/// that seeks in it rather than reading it whole. A file of a mounted tree cannot be opened.
pub fn open(path: &Path) -> Result<std::fs::File, Unread> {
    if mounted(path).is_some() {
        return Err(Unread::Io(std::io::Error::other(
            "a file of an in-memory tree cannot be opened",
        )));
    }
    if !offlux_platform::open::GUARDED_OPEN {
        match std::fs::metadata(path).map(|m| FileKind::of(&m)) {
            Ok(FileKind::File) => {}
            Ok(FileKind::Directory) => return Err(Unread::Directory),
            Ok(FileKind::Other) => return Err(Unread::NotRegular),
            Err(e) => return Err(Unread::Io(e)),
        }
    }
    let file = offlux_platform::open::read_options()
        .open(path)
        .map_err(Unread::Io)?;
    match FileKind::of(&file.metadata().map_err(Unread::Io)?) {
        FileKind::File => Ok(file),
        FileKind::Directory => Err(Unread::Directory),
        FileKind::Other => Err(Unread::NotRegular),
    }
}

/// [`read`] for a caller whose walk has resolved and confined the path, which may still be
/// spelled through a symlink: the open follows it. No size is asked for first: almost every
/// file fits the first buffer, and a system call per file was a measurable part of discovery.
pub fn read_walked(path: &Path, max_bytes: u64) -> Result<Vec<u8>, Unread> {
    if let Some(read) = read_mounted(path, max_bytes) {
        return read;
    }
    let mut file = std::fs::File::open(path).map_err(Unread::Io)?;
    // The first read's buffer: more than nine in ten repository YAML files fit.
    let mut bytes = Vec::with_capacity(16 << 10);
    (&mut file)
        .take(max_bytes.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(Unread::Io)?;
    if bytes.len() as u64 > max_bytes {
        return Err(Unread::TooLarge(file.metadata().ok().map(|m| m.len())));
    }
    Ok(bytes)
}

/// The content id of a file of a mounted tree ([`mem_tree::Blobs::content_id`]), without reading
/// it; `None` for a path on disk, or a tree whose files have none.
pub fn content_id(path: &Path) -> Option<Vec<u8>> {
    let (tree, _, relative) = mounted(path)?;
    tree.content_id(&relative)
}

/// [`MemTree::charge_as_read`] for a file of a mounted tree; true for a path on disk.
pub fn charge_as_read(path: &Path, len: u64) -> bool {
    mounted(path).is_none_or(|(tree, _, relative)| tree.charge_as_read(&relative, len))
}

fn read_mounted(path: &Path, max_bytes: u64) -> Option<Result<Vec<u8>, Unread>> {
    let (tree, _, relative) = mounted(path)?;
    Some(match tree.read(&relative, max_bytes) {
        Ok(Ok(bytes)) => Ok(bytes.as_ref().clone()),
        Ok(Err(mem_tree::BlobError::TooLarge)) => Err(Unread::TooLarge(None)),
        Ok(Err(mem_tree::BlobError::Failed(_))) if tree.is_dir(&relative) => Err(Unread::Directory),
        Ok(Err(mem_tree::BlobError::Failed(message))) => {
            Err(Unread::Io(std::io::Error::other(message)))
        }
        Err(miss) => Err(Unread::Io(miss.to_io())),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mem_tree::{BlobError, Blobs, Builder};

    struct One;

    impl Blobs for One {
        fn read(&self, _: usize, _: u64) -> Result<Arc<Vec<u8>>, BlobError> {
            Ok(Arc::new(b"inside".to_vec()))
        }
    }

    #[test]
    fn a_mounted_tree_answers_for_its_paths_and_only_while_mounted() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let mut builder = Builder::default();
        builder.file(Builder::ROOT, "a.yaml".into(), 0);
        builder.symlink(Builder::ROOT, "up".into(), "../../etc/passwd".into());
        let mount = mount(builder.finish(Box::new(One)), dir.path(), "test")
            .unwrap_or_else(|e| panic!("{e}"));
        let at = mount.path().to_path_buf();
        // A file on the disk at the mount point is not what is read.
        std::fs::create_dir_all(&at).unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(at.join("a.yaml"), "disk").unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(at.join("b.yaml"), "disk").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(read(&at.join("a.yaml"), 100).ok(), Some(b"inside".to_vec()));
        assert!(read(&at.join("b.yaml"), 100).is_err());
        assert!(read(&at.join("up"), 100).is_err());
        assert!(read(&at.join("../../etc/passwd"), 100).is_err());
        assert_eq!(kind(&at).ok(), Some(FileKind::Directory));
        assert_eq!(
            canonicalize(&at.join("./a.yaml")).ok(),
            Some(at.join("a.yaml"))
        );
        let names: Vec<OsString> = list(&at)
            .unwrap_or_default()
            .into_iter()
            .map(|(n, _)| n)
            .collect();
        assert_eq!(names, [OsString::from("a.yaml"), OsString::from("up")]);
        drop(mount);
        assert_eq!(read(&at.join("a.yaml"), 100).ok(), Some(b"disk".to_vec()));
    }
}
