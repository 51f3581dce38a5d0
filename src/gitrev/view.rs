//! A commit's tree as an in-memory, read-only view mounted behind `fsio` ([`mount`]): nothing is
//! written to disk. The tree objects are read once, up front (the shape: directories, file and
//! symlink entries); file contents are read from the object store when a run asks for them.
//!
//! Entries follow what a checkout of the commit would give, or are refused:
//! - two entries of one tree with the same name (which `git fsck` calls `duplicateEntries`, and
//!   which git's index cannot hold) make the whole revision unreadable, with an error naming the
//!   path: a checkout's result would depend on the order, so no view is made up;
//! - unsafe names (`..`, `.git`, a `/` or NUL) and submodules are left out, with a note;
//! - symlinks are kept as symlinks and resolved by `fsio` on each read as the working tree's are
//!   resolved: physically, inside the revision; one that leads out of it (an absolute target,
//!   `..` above the root) leads nowhere, never to the real file system.

use std::collections::HashSet;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::objects::{Kind, ObjectId, PackError};
use super::tree::{parse_tree, safe_name};
use super::{GitError, Repository};
use crate::fsio::mem_tree::{BlobError, Blobs, Builder, NodeId};

/// Directories nest at most this deep.
const MAX_DEPTH: usize = 256;
/// A revision holds at most this many entries.
const MAX_ENTRIES: usize = 1_000_000;
/// A symlink's target is at most this long (Linux's `PATH_MAX`).
const MAX_SYMLINK_TARGET: usize = 4096;

/// Mounts the tree of `commit` behind `fsio` under `parent` (a path that is never created), until
/// the returned mount is dropped. Also returns notes on entries left out, sorted.
pub fn mount(
    repository: Arc<Repository>,
    commit: ObjectId,
    parent: &Path,
    label: &str,
) -> Result<(crate::fsio::Mount, Vec<String>), GitError> {
    let (builder, blobs, mut notes) = build(&repository, commit)?;
    notes.sort();
    let tree = builder.finish(Box::new(RevisionBlobs {
        repository,
        commit,
        blobs,
    }));
    let mount = crate::fsio::mount(tree, parent, label).map_err(|e| GitError::Io {
        path: parent.to_path_buf(),
        message: e.to_string(),
    })?;
    Ok((mount, notes))
}

/// Each file's blob and path, by the number `build` gave it.
type FileBlobs = Vec<(ObjectId, PathBuf)>;

fn build(
    repository: &Repository,
    commit: ObjectId,
) -> Result<(Builder, FileBlobs, Vec<String>), GitError> {
    let mut builder = Builder::default();
    let mut blobs = Vec::new();
    let mut notes = Vec::new();
    let root = repository.tree_of(commit)?;
    let mut stack: Vec<(ObjectId, NodeId, PathBuf, usize)> =
        vec![(root, Builder::ROOT, PathBuf::new(), 0)];
    while let Some((tree, node, relative, depth)) = stack.pop() {
        let object = repository
            .read(tree)
            .map_err(|e| repository.at_path(e, &relative, commit))?;
        if object.kind != Kind::Tree {
            return Err(GitError::Corrupt {
                id: tree.to_string(),
                message: format!("expected a tree, found a {}", object.kind),
            });
        }
        let entries = parse_tree(tree, &object.data)?;
        let mut names = HashSet::with_capacity(entries.len());
        for entry in entries {
            let path = relative.join(&entry.name);
            if !names.insert(entry.name.clone()) {
                return Err(GitError::Corrupt {
                    id: tree.to_string(),
                    message: format!(
                        "the tree holds two entries named `{}` (at `{}`); git refuses such a tree \
                         (fsck: duplicateEntries), and so does offlux",
                        entry.name,
                        path.display()
                    ),
                });
            }
            if builder.entries() > MAX_ENTRIES {
                return Err(GitError::Unsupported(format!(
                    "the tree has more than {MAX_ENTRIES} entries"
                )));
            }
            if !safe_name(&entry.name) {
                notes.push(format!("`{}`: unsafe name; not read", path.display()));
                continue;
            }
            let name = OsString::from(&entry.name);
            match entry.mode {
                0o040000 if depth + 1 > MAX_DEPTH => notes.push(format!(
                    "`{}`: directories nest deeper than {MAX_DEPTH}; not read",
                    path.display()
                )),
                0o040000 => {
                    let dir = builder.dir(node, name);
                    stack.push((entry.id, dir, path, depth + 1));
                }
                0o160000 => notes.push(format!(
                    "`{}`: submodule; its contents are not read",
                    path.display()
                )),
                0o120000 => {
                    let target = repository
                        .read(entry.id)
                        .map_err(|e| repository.at_path(e, &path, commit))?;
                    if target.kind != Kind::Blob || target.data.len() > MAX_SYMLINK_TARGET {
                        notes.push(format!(
                            "`{}`: not a symlink git would check out; not read",
                            path.display()
                        ));
                        continue;
                    }
                    let target = String::from_utf8_lossy(&target.data).into_owned();
                    builder.symlink(node, name, PathBuf::from(target));
                }
                _ => {
                    builder.file(node, name, blobs.len());
                    blobs.push((entry.id, path));
                }
            }
        }
    }
    Ok((builder, blobs, notes))
}

/// File contents from the object store, by the number `build` gave each file (with its path,
/// for an error that names it).
struct RevisionBlobs {
    repository: Arc<Repository>,
    commit: ObjectId,
    blobs: FileBlobs,
}

impl Blobs for RevisionBlobs {
    fn read(&self, blob: usize, max_bytes: u64) -> Result<Arc<Vec<u8>>, BlobError> {
        let (id, path) = self
            .blobs
            .get(blob)
            .ok_or_else(|| BlobError::Failed("no such file".to_owned()))?;
        let id = *id;
        let read = self.repository.read(id);
        let read = read.map_err(|e| self.repository.at_path(e, path, self.commit));
        let object = match read {
            Ok(object) => object,
            Err(GitError::Pack {
                kind: PackError::TooLarge,
                ..
            }) => return Err(BlobError::TooLarge),
            Err(error) => return Err(BlobError::Failed(error.to_string())),
        };
        if object.kind != Kind::Blob {
            return Err(BlobError::Failed(format!(
                "object {id} is a {}, not a file's contents",
                object.kind
            )));
        }
        if object.data.len() as u64 > max_bytes {
            return Err(BlobError::TooLarge);
        }
        Ok(object.data)
    }

    fn content_id(&self, blob: usize) -> Option<Vec<u8>> {
        let (id, _) = self.blobs.get(blob)?;
        Some(id.as_bytes().to_vec())
    }

    fn charge_as_read(&self, _blob: usize, len: u64) -> bool {
        self.repository.charge_extracted(len)
    }
}
