//! Refs: loose (`refs/heads/main`), packed (`packed-refs`) and symbolic (`ref: refs/heads/main`),
//! looked up in git's order for a short name, and the `~N`/`^N` suffixes of a revision.

use std::path::Path;

use super::objects::ObjectId;
use super::{read_small, GitError};

/// A step from a commit to one of its ancestors.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Step {
    /// `~N`: the first parent, N times.
    Ancestor(usize),
    /// `^N`: the Nth parent (`^0` is the commit itself).
    Parent(usize),
}

/// Splits `main~2^2` into `main` and its steps; `None` for a malformed suffix.
pub(crate) fn split_suffixes(revision: &str) -> Option<(&str, Vec<Step>)> {
    let cut = revision.find(['~', '^']).unwrap_or(revision.len());
    let (base, mut rest) = revision.split_at(cut);
    if base.is_empty() {
        return None;
    }
    let mut steps = Vec::new();
    while let Some(op) = rest.chars().next() {
        rest = &rest[op.len_utf8()..];
        let digits = rest
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(rest.len());
        let (number, tail) = rest.split_at(digits);
        let n = if number.is_empty() {
            1
        } else {
            number.parse().ok().filter(|&n: &usize| n <= 100_000)?
        };
        steps.push(match op {
            '~' => Step::Ancestor(n),
            '^' => Step::Parent(n),
            _ => return None,
        });
        rest = tail;
    }
    Some((base, steps))
}

/// The object a ref name points at, trying `name`, `refs/name`, `refs/tags/name`,
/// `refs/heads/name`, `refs/remotes/name` and `refs/remotes/name/HEAD` as git does.
pub(super) fn lookup(
    git_dir: &Path,
    common_dir: &Path,
    name: &str,
) -> Result<Option<ObjectId>, GitError> {
    if name.is_empty()
        || name.starts_with('/')
        || name
            .split('/')
            .any(|part| part.is_empty() || part == "." || part == "..")
        || name.contains('\\')
    {
        return Ok(None);
    }
    for candidate in [
        name.to_owned(),
        format!("refs/{name}"),
        format!("refs/tags/{name}"),
        format!("refs/heads/{name}"),
        format!("refs/remotes/{name}"),
        format!("refs/remotes/{name}/HEAD"),
    ] {
        if let Some(id) = follow(git_dir, common_dir, &candidate, 0)? {
            return Ok(Some(id));
        }
    }
    Ok(None)
}

/// A full ref name resolved, following symbolic refs (at most ten).
fn follow(
    git_dir: &Path,
    common_dir: &Path,
    full: &str,
    depth: usize,
) -> Result<Option<ObjectId>, GitError> {
    if depth > 10 {
        return Err(GitError::Unsupported(format!(
            "symbolic ref `{full}` nests too deep"
        )));
    }
    // HEAD and other pseudo-refs belong to the worktree, the rest to the shared directory.
    let dir = if full.starts_with("refs/") {
        common_dir
    } else {
        git_dir
    };
    let path = dir.join(full);
    if path.is_file() {
        let text = read_small(&path, dir)?;
        let text = text.trim();
        if let Some(target) = text.strip_prefix("ref:") {
            return follow(git_dir, common_dir, target.trim(), depth + 1);
        }
        return Ok(super::objects::parse_id(text));
    }
    if !full.starts_with("refs/") {
        return Ok(None);
    }
    packed(common_dir, full)
}

/// `packed-refs`, read through the door and parsed by gix (`None` when there is none).
fn packed_refs(common_dir: &Path) -> Result<Option<gix_ref::packed::Buffer>, GitError> {
    let path = common_dir.join("packed-refs");
    if !path.is_file() {
        return Ok(None);
    }
    let bytes = super::read_limited(&path, common_dir, 256 << 20)?;
    gix_ref::packed::Buffer::from_bytes(&bytes, gix_hash::Kind::Sha1)
        .map(Some)
        .map_err(|e| GitError::Io {
            path,
            message: e.to_string(),
        })
}

/// A ref from `packed-refs` (a tag's peeled `^` line is not needed: tags are peeled later).
fn packed(common_dir: &Path, full: &str) -> Result<Option<ObjectId>, GitError> {
    let Some(buffer) = packed_refs(common_dir)? else {
        return Ok(None);
    };
    let Ok(name) = gix_ref::FullName::try_from(full) else {
        return Ok(None);
    };
    Ok(buffer
        .try_find(name.as_ref())
        .ok()
        .flatten()
        .map(|reference| reference.target()))
}

/// The local branches' names (`refs/heads/…`, loose and packed), sorted; at most `limit`. For
/// messages only: a name that cannot be read is left out.
pub(super) fn branches(common_dir: &Path, limit: usize) -> Vec<String> {
    let mut names = std::collections::BTreeSet::new();
    let heads = common_dir.join("refs/heads");
    // Nothing is followed out of the git directory: a symlinked directory is not read.
    let is_real_dir = |path: &Path| std::fs::symlink_metadata(path).is_ok_and(|meta| meta.is_dir());
    let mut pending = if is_real_dir(&heads) {
        vec![(heads.clone(), 0usize)]
    } else {
        Vec::new()
    };
    let mut seen = 0usize;
    while let Some((dir, depth)) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            seen += 1;
            if seen > 10_000 {
                break;
            }
            let path = entry.path();
            let Ok(meta) = std::fs::symlink_metadata(&path) else {
                continue;
            };
            if meta.is_dir() && depth < 10 {
                pending.push((path, depth + 1));
            } else if meta.is_file() {
                if let Some(name) = path.strip_prefix(&heads).ok().and_then(|p| p.to_str()) {
                    names.insert(name.replace('\\', "/"));
                }
            }
        }
    }
    if let Ok(Some(buffer)) = packed_refs(common_dir) {
        if let Ok(references) = buffer.iter_prefixed("refs/heads/".into()) {
            for reference in references.flatten() {
                if let Some(name) = reference.name.as_bstr().strip_prefix(b"refs/heads/") {
                    names.insert(String::from_utf8_lossy(name).into_owned());
                }
            }
        }
    }
    names.into_iter().take(limit).collect()
}
