//! Writing a commit's tree into a directory: files, directories and symlinks whose target stays
//! inside the tree. Submodules, unsafe names (`..`, `.git`, a `/` or NUL) and symlinks that lead
//! out are skipped with a note; the run's guarded reads still check every real path.

use std::path::{Component, Path, PathBuf};

use super::objects::{Kind, ObjectId, PackError};
use super::{GitError, Repository};

/// Directories nest at most this deep.
const MAX_DEPTH: usize = 256;
/// At most this many entries are written.
const MAX_ENTRIES: usize = 1_000_000;

/// What `materialise` wrote.
#[derive(Debug, Default)]
pub struct Materialised {
    pub files: usize,
    pub symlinks: usize,
    /// Entries skipped, each with its path and why.
    pub notes: Vec<String>,
}

/// Writes the tree of `commit` under `dest` (an empty directory the caller owns).
pub fn materialise(
    repository: &Repository,
    commit: ObjectId,
    dest: &Path,
) -> Result<Materialised, GitError> {
    let tree = repository.tree_of(commit)?;
    let mut done = Materialised::default();
    let mut stack = vec![(tree, PathBuf::new(), 0usize)];
    while let Some((tree, relative, depth)) = stack.pop() {
        if depth > MAX_DEPTH {
            done.notes.push(format!(
                "`{}`: directories nest deeper than {MAX_DEPTH}; not written",
                relative.display()
            ));
            continue;
        }
        let object = repository.read(tree)?;
        if object.kind != Kind::Tree {
            return Err(GitError::Corrupt {
                id: tree.to_string(),
                message: format!("expected a tree, found a {}", object.kind.name()),
            });
        }
        let dir = dest.join(&relative);
        std::fs::create_dir_all(&dir).map_err(io(&dir))?;
        for entry in parse_tree(tree, &object.data)? {
            if done.files + done.symlinks + stack.len() > MAX_ENTRIES {
                return Err(GitError::Unsupported(format!(
                    "the tree has more than {MAX_ENTRIES} entries"
                )));
            }
            let path = relative.join(&entry.name);
            if !safe_name(&entry.name) {
                done.notes
                    .push(format!("`{}`: unsafe name; not written", path.display()));
                continue;
            }
            match entry.mode {
                0o040000 => stack.push((entry.id, path, depth + 1)),
                0o160000 => done.notes.push(format!(
                    "`{}`: submodule; its contents are not read",
                    path.display()
                )),
                0o120000 => {
                    let target = repository.read(entry.id)?;
                    let target = String::from_utf8_lossy(&target.data).into_owned();
                    if !stays_inside(&relative, &target) {
                        done.notes.push(format!(
                            "`{}`: symlink to `{target}` leads outside the repository; not written",
                            path.display()
                        ));
                        continue;
                    }
                    write_symlink(&target, &dest.join(&path), &mut done)?;
                }
                _ => {
                    let blob = match repository.read(entry.id) {
                        Ok(blob) => blob,
                        Err(GitError::Pack {
                            kind: kind @ PackError::TooLarge,
                            ..
                        }) => {
                            done.notes
                                .push(format!("`{}`: {kind}; not written", path.display()));
                            continue;
                        }
                        Err(error) => return Err(error),
                    };
                    let file = dest.join(&path);
                    std::fs::write(&file, &blob.data[..]).map_err(io(&file))?;
                    done.files += 1;
                }
            }
        }
    }
    done.notes.sort();
    Ok(done)
}

fn write_symlink(target: &str, link: &Path, done: &mut Materialised) -> Result<(), GitError> {
    if crate::platform::symlink::create(target, link).map_err(io(link))? {
        done.symlinks += 1;
    } else {
        done.notes.push(format!(
            "`{}`: symlink to `{target}`; symlinks are only written on Unix",
            link.display()
        ));
    }
    Ok(())
}

fn io(path: &Path) -> impl Fn(std::io::Error) -> GitError + '_ {
    move |e| GitError::Io {
        path: path.to_path_buf(),
        message: e.to_string(),
    }
}

pub(super) struct TreeEntry {
    pub mode: u32,
    pub name: String,
    pub id: ObjectId,
}

/// A tree object's entries: `<octal mode> <name>\0<20-byte id>`, repeated.
pub(super) fn parse_tree(id: ObjectId, data: &[u8]) -> Result<Vec<TreeEntry>, GitError> {
    let corrupt = || GitError::Corrupt {
        id: id.to_string(),
        message: "malformed tree entry".to_owned(),
    };
    let mut entries = Vec::new();
    let mut rest = data;
    while !rest.is_empty() {
        let space = rest.iter().position(|&b| b == b' ').ok_or_else(corrupt)?;
        let mode = std::str::from_utf8(&rest[..space])
            .ok()
            .and_then(|m| u32::from_str_radix(m, 8).ok())
            .ok_or_else(corrupt)?;
        rest = &rest[space + 1..];
        let nul = rest.iter().position(|&b| b == 0).ok_or_else(corrupt)?;
        let name = String::from_utf8_lossy(&rest[..nul]).into_owned();
        let raw = rest.get(nul + 1..nul + 21).ok_or_else(corrupt)?;
        let entry_id = ObjectId(raw.try_into().map_err(|_| corrupt())?);
        rest = &rest[nul + 21..];
        entries.push(TreeEntry {
            mode,
            name,
            id: entry_id,
        });
    }
    Ok(entries)
}

/// A name that is one ordinary path component, and not git's own directory.
fn safe_name(name: &str) -> bool {
    !name.is_empty()
        && name != "."
        && name != ".."
        && !name.contains(['/', '\\', '\0'])
        && !name.eq_ignore_ascii_case(".git")
        && !name.contains(char::REPLACEMENT_CHARACTER)
}

/// Whether a symlink in directory `dir` (relative to the tree's root) pointing at `target` stays
/// inside the tree, judged on the text: relative, and never climbing above the root.
fn stays_inside(dir: &Path, target: &str) -> bool {
    let target = Path::new(target);
    if target.is_absolute() || target.as_os_str().is_empty() {
        return false;
    }
    let mut depth: usize = dir.components().count();
    for component in target.components() {
        match component {
            Component::Normal(_) => depth += 1,
            Component::CurDir => {}
            Component::ParentDir => match depth.checked_sub(1) {
                Some(d) => depth = d,
                None => return false,
            },
            Component::RootDir | Component::Prefix(_) => return false,
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn symlinks_that_climb_out_are_refused() {
        assert!(stays_inside(Path::new("a/b"), "../c"));
        assert!(stays_inside(Path::new("a"), "../c"));
        assert!(!stays_inside(Path::new("a"), "../../c"));
        assert!(!stays_inside(Path::new(""), "../c"));
        assert!(!stays_inside(Path::new(""), "/etc/passwd"));
        assert!(!stays_inside(Path::new("a"), "b/../../../c"));
        assert!(stays_inside(Path::new(""), "./a/./b"));
    }

    #[test]
    fn unsafe_names_are_refused() {
        for name in ["", ".", "..", ".git", ".GIT", "a/b", "a\\b"] {
            assert!(!safe_name(name), "{name:?}");
        }
        assert!(safe_name(".gitignore"));
    }
}
