//! Which files differ between a commit and the working tree, or between two commits: what
//! `--changed-only` attributes to producers. Two commits are compared tree by tree (a subtree
//! with the same id is the same); the working tree is compared file by file with the blobs of the
//! commit's tree, and the files the commit lacks are found by a walk that honours `.gitignore`
//! (an ignored file is not a change). Each changed file comes with its content in the commit,
//! where it had one, so a caller can tell what a deleted or edited file defined.
//!
//! The index serves as a stat cache only (`index`): a file whose metadata its entry still matches
//! is not read. Not for: renames (a rename is a deletion and an addition), what is staged (staged
//! and unstaged changes are the same here), or submodule contents (a submodule's entry is left
//! out).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::objects::{blob_id, Kind, ObjectId};
use super::tree::parse_tree;
use super::{GitError, Repository};

/// Directories nest at most this deep.
const MAX_DEPTH: usize = 256;

/// A file that differs, relative to the working tree's top.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChangedFile {
    pub path: PathBuf,
    /// Its content in the base commit; `None` when it was added, or is too large to read.
    pub base: Option<std::sync::Arc<Vec<u8>>>,
}

const MODE_TREE: u32 = 0o040000;
const MODE_SUBMODULE: u32 = 0o160000;
const MODE_SYMLINK: u32 = 0o120000;

/// The files that differ between `base` and `head` (a commit), or the working tree when `head`
/// is `None`; sorted by path.
pub fn changed_files(
    repository: &Repository,
    base: ObjectId,
    head: Option<ObjectId>,
) -> Result<Vec<ChangedFile>, GitError> {
    let root = Path::new("");
    let base_tree = repository
        .tree_of(base)
        .map_err(|e| repository.at_path(e, root, base))?;
    let mut changed = Vec::new();
    match head {
        Some(head) => {
            let head_tree = repository
                .tree_of(head)
                .map_err(|e| repository.at_path(e, root, head))?;
            let revisions = Revisions { base, head };
            diff_trees(
                repository,
                revisions,
                Some(base_tree),
                Some(head_tree),
                &PathBuf::new(),
                0,
                &mut changed,
            )?;
        }
        None => {
            let mut blobs = BTreeMap::new();
            list_blobs(repository, base, base_tree, &PathBuf::new(), 0, &mut blobs)?;
            let work_tree = &repository.work_tree;
            let mut real_dirs = std::collections::HashSet::new();
            let stat_cache = super::index::StatCache::read(&repository.git_dir);
            for (path, (mode, id)) in &blobs {
                // A working file that is the blob (its index entry says so, or it hashes to the
                // blob's id) is unchanged: only a changed file's blob is read from the object
                // store. A file reached through a symlinked directory is not read (it may lie
                // outside the working tree): changed.
                let file = work_tree.join(path);
                let unchanged = inside_real_dirs(work_tree, path, &mut real_dirs)
                    && match stat_cache
                        .as_ref()
                        .and_then(|c| c.blob_of(path, &file, *mode))
                    {
                        Some(held) => held == *id,
                        None => working_file_is(*id, &file, *mode),
                    };
                if unchanged {
                    continue;
                }
                changed.push(ChangedFile {
                    path: path.clone(),
                    base: read_blob(repository, *id, path, base)?,
                });
            }
            for path in working_files(work_tree) {
                if !blobs.contains_key(&path) {
                    changed.push(ChangedFile { path, base: None });
                }
            }
        }
    }
    changed.sort_by(|a, b| a.path.cmp(&b.path));
    changed.dedup_by(|a, b| a.path == b.path);
    Ok(changed)
}

/// The two revisions [`diff_trees`] compares, for errors that name a path at one of them.
#[derive(Clone, Copy)]
struct Revisions {
    base: ObjectId,
    head: ObjectId,
}

/// The entries of `tree`, the directory `path` of `revision`.
fn tree_entries(
    repository: &Repository,
    tree: ObjectId,
    path: &Path,
    revision: ObjectId,
) -> Result<Vec<super::tree::TreeEntry>, GitError> {
    let object = repository
        .read(tree)
        .map_err(|e| repository.at_path(e, path, revision))?;
    if object.kind != Kind::Tree {
        return Err(GitError::Corrupt {
            id: tree.to_string(),
            message: format!("expected a tree, found a {}", object.kind),
        });
    }
    parse_tree(tree, &object.data)
}

fn too_deep(path: &Path) -> GitError {
    GitError::Unsupported(format!(
        "`{}`: directories nest deeper than {MAX_DEPTH}",
        path.display()
    ))
}

/// Every blob and symlink of `tree`, by path.
fn list_blobs(
    repository: &Repository,
    revision: ObjectId,
    tree: ObjectId,
    prefix: &Path,
    depth: usize,
    out: &mut BTreeMap<PathBuf, (u32, ObjectId)>,
) -> Result<(), GitError> {
    if depth > MAX_DEPTH {
        return Err(too_deep(prefix));
    }
    for entry in tree_entries(repository, tree, prefix, revision)? {
        let path = prefix.join(&entry.name);
        match entry.mode {
            MODE_TREE => list_blobs(repository, revision, entry.id, &path, depth + 1, out)?,
            MODE_SUBMODULE => {}
            mode => {
                out.insert(path, (mode, entry.id));
            }
        }
    }
    Ok(())
}

/// The files of two trees that differ; a subtree with the same id on both sides is skipped.
fn diff_trees(
    repository: &Repository,
    revisions: Revisions,
    base: Option<ObjectId>,
    head: Option<ObjectId>,
    prefix: &Path,
    depth: usize,
    out: &mut Vec<ChangedFile>,
) -> Result<(), GitError> {
    if base == head {
        return Ok(());
    }
    if depth > MAX_DEPTH {
        return Err(too_deep(prefix));
    }
    let entries = |tree: Option<ObjectId>,
                   revision: ObjectId|
     -> Result<BTreeMap<String, (u32, ObjectId)>, GitError> {
        Ok(match tree {
            Some(tree) => tree_entries(repository, tree, prefix, revision)?
                .into_iter()
                .map(|e| (e.name, (e.mode, e.id)))
                .collect(),
            None => BTreeMap::new(),
        })
    };
    let base_entries = entries(base, revisions.base)?;
    let head_entries = entries(head, revisions.head)?;
    let mut names: Vec<&String> = base_entries.keys().chain(head_entries.keys()).collect();
    names.sort();
    names.dedup();
    for name in names {
        let path = prefix.join(name);
        let before = base_entries.get(name).copied();
        let after = head_entries.get(name).copied();
        if before == after {
            continue;
        }
        let tree_of = |side: Option<(u32, ObjectId)>| side.filter(|(m, _)| *m == MODE_TREE);
        let file_of = |side: Option<(u32, ObjectId)>| {
            side.filter(|(m, _)| *m != MODE_TREE && *m != MODE_SUBMODULE)
        };
        let (base_tree, head_tree) = (tree_of(before), tree_of(after));
        if base_tree.is_some() || head_tree.is_some() {
            diff_trees(
                repository,
                revisions,
                base_tree.map(|(_, id)| id),
                head_tree.map(|(_, id)| id),
                &path,
                depth + 1,
                out,
            )?;
        }
        let (base_file, head_file) = (file_of(before), file_of(after));
        if (base_file.is_some() || head_file.is_some()) && base_file != head_file {
            let base = match base_file {
                Some((_, id)) => read_blob(repository, id, &path, revisions.base)?,
                None => None,
            };
            out.push(ChangedFile { path, base });
        }
    }
    Ok(())
}

/// The contents of blob `id`, the file `path` of `revision`; `None` when it cannot be read (the
/// file then counts as changed). The run's budget going over is an error, naming the file: a
/// change set read short of its files would leave out what changed.
fn read_blob(
    repository: &Repository,
    id: ObjectId,
    path: &Path,
    revision: ObjectId,
) -> Result<Option<std::sync::Arc<Vec<u8>>>, GitError> {
    match repository.read(id) {
        Ok(object) => Ok((object.kind == Kind::Blob).then_some(object.data)),
        Err(error @ GitError::Budget { .. }) => Err(repository.at_path(error, path, revision)),
        Err(_) => Ok(None),
    }
}

/// Whether every directory on the way from `work_tree` to `path` (relative) is a real directory,
/// not a symlink; `checked` holds the directories already found real.
fn inside_real_dirs(
    work_tree: &Path,
    path: &Path,
    checked: &mut std::collections::HashSet<PathBuf>,
) -> bool {
    let mut dir = work_tree.to_path_buf();
    let Some(parent) = path.parent() else {
        return true;
    };
    for component in parent.components() {
        let std::path::Component::Normal(name) = component else {
            return false;
        };
        dir.push(name);
        if checked.contains(&dir) {
            continue;
        }
        if !std::fs::symlink_metadata(&dir).is_ok_and(|meta| meta.is_dir()) {
            return false;
        }
        checked.insert(dir.clone());
    }
    true
}

/// Whether the working tree's `file` is the blob `id` (a symlink: its target, as git stores it).
/// A file larger than any object offlux reads counts as changed.
fn working_file_is(id: ObjectId, file: &Path, mode: u32) -> bool {
    let Ok(meta) = std::fs::symlink_metadata(file) else {
        return false;
    };
    if mode == MODE_SYMLINK {
        return meta.file_type().is_symlink()
            && std::fs::read_link(file)
                .is_ok_and(|target| blob_id(target.as_os_str().as_encoded_bytes()) == id);
    }
    meta.is_file()
        && meta.len() <= super::objects::MAX_OBJECT_BYTES
        && hash_file(file, meta.len()).is_some_and(|hashed| hashed == id)
}

/// The blob id of `file`, read in pieces (`len` bytes, as its metadata said; a file that grew or
/// shrank since gives another id).
fn hash_file(file: &Path, len: u64) -> Option<ObjectId> {
    use std::io::Read;
    let mut reader = std::fs::File::open(file).ok()?;
    let mut hasher = super::objects::BlobHasher::new(len);
    let mut buffer = vec![0u8; 64 * 1024];
    loop {
        let n = reader.read(&mut buffer).ok()?;
        if n == 0 {
            break;
        }
        hasher.update(buffer.get(..n)?);
    }
    hasher.finish()
}

/// The files of the working tree that git would see (ignored files and `.git` left out),
/// relative to its top.
fn working_files(work_tree: &Path) -> Vec<PathBuf> {
    let walk = ignore::WalkBuilder::new(work_tree)
        .hidden(false)
        .parents(false)
        .git_global(false)
        .ignore(false)
        .filter_entry(|entry| entry.file_name() != ".git")
        .build();
    walk.filter_map(Result::ok)
        .filter(|entry| entry.file_type().is_some_and(|t| !t.is_dir()))
        .filter_map(|entry| {
            entry
                .path()
                .strip_prefix(work_tree)
                .ok()
                .map(Path::to_path_buf)
        })
        .collect()
}
