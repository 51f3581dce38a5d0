//! Reading a revision of a git repository without a `git` binary and without touching the working
//! tree or the index: refs and revisions resolved (`HEAD`, branches, tags, `origin/HEAD`, full or
//! abbreviated ids, `~N`/`^N` suffixes, the merge base of two commits), and a commit's tree
//! mounted in memory behind `fsio` (`view::mount`), where the ordinary, guarded reads of a run
//! find it: nothing of a revision is written to disk.
//!
//! Objects come from the loose object store and from packfiles (index version 2, offset and
//! reference deltas), over `flate2`; `objects/info/alternates` is followed one level. Linked
//! worktrees (a `.git` file naming the git directory, `commondir`) are understood. Git's formats
//! are parsed by gitoxide (`gix-object`, `gix-pack`, `gix-ref`, `gix-hash`), the Git
//! implementation `offlux-git` fetches with; the files are read here, through `fsio`, bounded
//! (see `objects`).
//!
//! Not for: writing to a repository, SHA-256 repositories (refused with a message), shallow
//! history beyond what is there (a missing object is an error that says the clone may be
//! shallow), submodule contents (skipped with a note), or checking object hashes.

mod index;
mod objects;
mod refs;
mod status;
mod tree;
mod view;

use std::path::{Path, PathBuf};

use offlux_sync::MutexExt as _;

use crate::fsio;

pub(crate) use objects::blob_id;
pub use objects::{ObjectId, PackError};
pub use status::{changed_files, ChangedFile};
pub use view::mount;

/// Why a revision could not be read.
#[derive(Debug, thiserror::Error)]
pub enum GitError {
    #[error("no git repository at or above `{}`", .0.display())]
    NotARepository(PathBuf),
    #[error("`{}`: {message}", path.display())]
    Io { path: PathBuf, message: String },
    #[error("unknown revision `{0}`")]
    UnknownRevision(String),
    #[error("revision `{revision}` is ambiguous ({count} objects start with it)")]
    Ambiguous { revision: String, count: usize },
    #[error("object {0} is not in the repository{1}")]
    MissingObject(ObjectId, &'static str),
    #[error("object {id}: {message}")]
    Corrupt { id: String, message: String },
    #[error("object {id}: {kind}")]
    Pack { id: String, kind: PackError },
    #[error("{0}")]
    Unsupported(String),
    /// A run-wide budget went over while reading `object` (`object ID`, or a path at a
    /// revision where the reader knows it: [`Repository::at_path`]).
    #[error("{object}: {exceeded}")]
    Budget {
        object: String,
        exceeded: crate::budget::Exceeded,
    },
}

/// A git repository opened for reading.
#[derive(Debug)]
pub struct Repository {
    /// The directory holding the working tree (the one with `.git` in it).
    pub work_tree: PathBuf,
    /// The git directory of this worktree (HEAD lives here).
    git_dir: PathBuf,
    /// The git directory shared by all worktrees (objects, refs, packed-refs).
    common_dir: PathBuf,
    store: objects::Store,
    shallow: bool,
    /// The run whose budget of extracted bytes (`Resource::ExtractedBytes`) every object read is
    /// charged to, once set ([`Repository::charge_to`]).
    budget: Option<std::sync::Arc<crate::budget::RunBudget>>,
    /// The first read that went over the budget, by path and revision ([`Repository::at_path`]).
    over_budget: std::sync::Mutex<Option<String>>,
}

/// Whether `git_dir`, which the `.git` file `dot_git` of `work_tree` names, is this working
/// tree's: inside it, a directory that names it back as git does for its own links (a linked
/// worktree's `gitdir` file holds the path of the worktree's `.git` file; a submodule's `config`
/// sets `core.worktree` to the submodule's directory), or a separate git directory that is no
/// other checkout's `.git` and not bare. A `.git` file a repository carries cannot make offlux
/// read another checkout or a bare repository of the machine.
fn git_dir_belongs_to(git_dir: &Path, work_tree: &Path, dot_git: &Path) -> bool {
    let Ok(real) = git_dir.canonicalize() else {
        return false;
    };
    let dot_git = dot_git
        .canonicalize()
        .unwrap_or_else(|_| dot_git.to_path_buf());
    if real.starts_with(work_tree) {
        return true;
    }
    let same = |named: &str, base: &Path, wanted: &Path| {
        let named = base.join(named.trim());
        named.canonicalize().is_ok_and(|named| named == wanted)
    };
    let worktree =
        read_small(&real.join("gitdir"), &real).is_ok_and(|text| same(&text, &real, &dot_git));
    let config = read_small(&real.join("config"), &real).unwrap_or_default();
    let setting = |wanted: &str| {
        config.lines().find_map(|line| {
            let (key, value) = line.trim().split_once('=')?;
            key.trim()
                .eq_ignore_ascii_case(wanted)
                .then(|| value.trim().to_owned())
        })
    };
    let submodule = setting("worktree").is_some_and(|value| same(&value, &real, work_tree));
    // `git clone --separate-git-dir` writes no link back: its git directory is taken when it is
    // no other checkout's `.git` and no bare repository (a server's or a mirror's).
    let separate = real.file_name().is_some_and(|name| name != ".git")
        && setting("bare").is_some_and(|bare| bare.eq_ignore_ascii_case("false"));
    worktree || submodule || separate
}

impl Repository {
    /// Opens the repository whose working tree holds `start` (searching upward for `.git`).
    pub fn discover(start: &Path) -> Result<Self, GitError> {
        let start = start
            .canonicalize()
            .map_err(|_| GitError::NotARepository(start.to_path_buf()))?;
        let mut dir = Some(start.as_path());
        while let Some(candidate) = dir {
            let dot_git = candidate.join(".git");
            if dot_git.is_dir() {
                return Self::open(candidate, &dot_git);
            }
            if dot_git.is_file() {
                let text = read_small(&dot_git, candidate)?;
                let Some(target) = text.trim_end().strip_prefix("gitdir:") else {
                    return Err(GitError::Unsupported(format!(
                        "`{}` does not name a git directory",
                        dot_git.display()
                    )));
                };
                let git_dir = candidate.join(target.trim());
                if !git_dir_belongs_to(&git_dir, candidate, &dot_git) {
                    return Err(GitError::Unsupported(format!(
                        "`{}` names the git directory `{}`, outside the working tree, which does \
                         not name this working tree back (it is neither a worktree nor a \
                         submodule of it); not read",
                        dot_git.display(),
                        git_dir.display()
                    )));
                }
                return Self::open(candidate, &git_dir);
            }
            dir = candidate.parent();
        }
        Err(GitError::NotARepository(start))
    }

    fn open(work_tree: &Path, git_dir: &Path) -> Result<Self, GitError> {
        let common_dir = match read_small(&git_dir.join("commondir"), git_dir) {
            Ok(text) => git_dir.join(text.trim_end()),
            Err(_) => git_dir.to_path_buf(),
        };
        if let Ok(config) = read_small(&common_dir.join("config"), &common_dir) {
            let format = config
                .lines()
                .map(|l| l.trim().to_ascii_lowercase().replace(' ', ""))
                .find_map(|l| l.strip_prefix("objectformat=").map(str::to_owned));
            if format.is_some_and(|f| f != "sha1") {
                return Err(GitError::Unsupported(
                    "only SHA-1 repositories can be read (this one uses another object format)"
                        .to_owned(),
                ));
            }
        }
        let store = objects::Store::open(&common_dir.join("objects"))?;
        Ok(Repository {
            work_tree: work_tree.to_path_buf(),
            git_dir: git_dir.to_path_buf(),
            shallow: common_dir.join("shallow").is_file(),
            common_dir,
            store,
            budget: None,
            over_budget: std::sync::Mutex::default(),
        })
    }

    /// The commit a revision names: a ref (`HEAD`, `main`, `v1.2`, `origin/main`,
    /// `refs/heads/x`), a full or abbreviated object id, each optionally followed by `~N`, `^` or
    /// `^N`. Tags are peeled to their commit.
    pub fn resolve(&self, revision: &str) -> Result<ObjectId, GitError> {
        let (base, steps) = refs::split_suffixes(revision)
            .ok_or_else(|| GitError::UnknownRevision(revision.to_owned()))?;
        let mut id = self.resolve_base(base, revision)?;
        id = self.peel_to_commit(id)?;
        for step in steps {
            match step {
                refs::Step::Ancestor(n) => {
                    for _ in 0..n {
                        id = self
                            .parents(id)?
                            .first()
                            .copied()
                            .ok_or_else(|| GitError::UnknownRevision(revision.to_owned()))?;
                    }
                }
                refs::Step::Parent(0) => {}
                refs::Step::Parent(n) => {
                    id = self
                        .parents(id)?
                        .get(n - 1)
                        .copied()
                        .ok_or_else(|| GitError::UnknownRevision(revision.to_owned()))?;
                }
            }
        }
        Ok(id)
    }

    fn resolve_base(&self, name: &str, revision: &str) -> Result<ObjectId, GitError> {
        if let Some(id) = objects::parse_id(name) {
            return Ok(id);
        }
        if let Some(id) = refs::lookup(&self.git_dir, &self.common_dir, name)? {
            return Ok(id);
        }
        if name.len() >= 4 && name.len() < 40 && name.bytes().all(|b| b.is_ascii_hexdigit()) {
            let found = self.store.find_prefix(&name.to_ascii_lowercase())?;
            return match found.len() {
                1 => Ok(found[0]),
                0 => Err(GitError::UnknownRevision(revision.to_owned())),
                count => Err(GitError::Ambiguous {
                    revision: revision.to_owned(),
                    count,
                }),
            };
        }
        Err(GitError::UnknownRevision(revision.to_owned()))
    }

    /// The revision a diff compares against by default: the merge base of `HEAD` with the
    /// default branch (`origin/HEAD`, else `main`, `master`, `origin/main`, `origin/master`),
    /// with the name of the branch used.
    /// The local branches' names, sorted, at most `limit` (for a message that helps pick one).
    pub fn branches(&self, limit: usize) -> Vec<String> {
        refs::branches(&self.common_dir, limit)
    }

    pub(crate) fn default_base(&self) -> Result<(ObjectId, String), GitError> {
        let head = self.resolve("HEAD")?;
        for name in [
            "refs/remotes/origin/HEAD",
            "refs/heads/main",
            "refs/heads/master",
            "refs/remotes/origin/main",
            "refs/remotes/origin/master",
        ] {
            if let Some(id) = refs::lookup(&self.git_dir, &self.common_dir, name)? {
                let branch = self.peel_to_commit(id)?;
                let base = self.merge_base(head, branch)?.ok_or_else(|| {
                    GitError::Unsupported(format!("`HEAD` and `{name}` have no common ancestor"))
                })?;
                let short = name
                    .trim_start_matches("refs/heads/")
                    .trim_start_matches("refs/remotes/");
                return Ok((base, short.to_owned()));
            }
        }
        Err(GitError::UnknownRevision(
            "default branch (origin/HEAD, main or master)".to_owned(),
        ))
    }

    /// The best common ancestor of two commits: the most recent (by committer time) ancestor
    /// of `b` that is also an ancestor of `a`. `None` when the histories are unrelated.
    pub(crate) fn merge_base(
        &self,
        a: ObjectId,
        b: ObjectId,
    ) -> Result<Option<ObjectId>, GitError> {
        const MAX_COMMITS: usize = 2_000_000;
        let mut of_a = std::collections::HashSet::new();
        let mut queue = vec![a];
        while let Some(id) = queue.pop() {
            if of_a.len() > MAX_COMMITS {
                return Err(GitError::Unsupported(
                    "history too long to find a merge base".to_owned(),
                ));
            }
            if of_a.insert(id) {
                queue.extend(self.parents(id)?);
            }
        }
        let mut seen = std::collections::HashSet::new();
        let mut heap = std::collections::BinaryHeap::new();
        heap.push((self.commit(b)?.time, b));
        while let Some((_, id)) = heap.pop() {
            if of_a.contains(&id) {
                return Ok(Some(id));
            }
            if !seen.insert(id) || seen.len() > MAX_COMMITS {
                continue;
            }
            for parent in self.parents(id)? {
                heap.push((self.commit(parent)?.time, parent));
            }
        }
        Ok(None)
    }

    /// The tree of a commit.
    pub(crate) fn tree_of(&self, commit: ObjectId) -> Result<ObjectId, GitError> {
        Ok(self.commit(commit)?.tree)
    }

    fn parents(&self, id: ObjectId) -> Result<Vec<ObjectId>, GitError> {
        Ok(self.commit(id)?.parents)
    }

    fn commit(&self, id: ObjectId) -> Result<objects::Commit, GitError> {
        let object = self.read(id)?;
        if object.kind != objects::Kind::Commit {
            return Err(GitError::Corrupt {
                id: id.to_string(),
                message: format!("expected a commit, found a {}", object.kind),
            });
        }
        objects::Commit::parse(id, &object.data)
    }

    fn peel_to_commit(&self, mut id: ObjectId) -> Result<ObjectId, GitError> {
        for _ in 0..16 {
            let object = self.read(id)?;
            match object.kind {
                objects::Kind::Commit => return Ok(id),
                objects::Kind::Tag => id = objects::tag_target(id, &object.data)?,
                other => {
                    return Err(GitError::Unsupported(format!(
                        "{id} is a {}, not a commit",
                        other
                    )))
                }
            }
        }
        Err(GitError::Corrupt {
            id: id.to_string(),
            message: "tags nest too deep".to_owned(),
        })
    }

    /// Charges every object read from now on to `budget` (bytes inflated from git objects).
    pub fn charge_to(mut self, budget: std::sync::Arc<crate::budget::RunBudget>) -> Self {
        self.budget = Some(budget);
        self
    }

    /// `error`, naming the file or directory `path` of `revision` that was being read when it is
    /// the run's budget going over; the first such is kept for [`Repository::over_budget`].
    pub(crate) fn at_path(&self, error: GitError, path: &Path, revision: ObjectId) -> GitError {
        let GitError::Budget { object, exceeded } = error else {
            return error;
        };
        let shown = if path.as_os_str().is_empty() {
            Path::new(".")
        } else {
            path
        };
        let short: String = revision.to_string().chars().take(12).collect();
        let named = format!("`{}` at revision {short} ({object})", shown.display());
        {
            let mut first = self.over_budget.locked();
            first.get_or_insert_with(|| named.clone());
        }
        GitError::Budget {
            object: named,
            exceeded,
        }
    }

    /// The first read that went over the run's budget, by path and revision, where a reader
    /// named it ([`Repository::at_path`]).
    pub fn over_budget(&self) -> Option<String> {
        self.over_budget.locked().clone()
    }

    fn read(&self, id: ObjectId) -> Result<objects::Object, GitError> {
        let object = match self.store.read(id) {
            Err(GitError::MissingObject(id, _)) if self.shallow => Err(GitError::MissingObject(
                id,
                " (the clone is shallow: fetch the history the diff needs, e.g. `fetch-depth: 0`)",
            )),
            other => other,
        }?;
        if let Some(budget) = &self.budget {
            let extracted = crate::budget::Resource::ExtractedBytes;
            budget
                .charge(extracted, object.data.len() as u64)
                .map_err(|exceeded| GitError::Budget {
                    object: format!("object {id}"),
                    exceeded,
                })?;
        }
        Ok(object)
    }
}

impl Repository {
    /// Counts `len` bytes as extracted, as reading an object of that size would: for a file's
    /// bytes taken from elsewhere (a working-tree file with the same blob id) in place of reading
    /// its blob. False when that passes the budget.
    pub(crate) fn charge_extracted(&self, len: u64) -> bool {
        self.budget.as_ref().is_none_or(|budget| {
            (budget.charge(crate::budget::Resource::ExtractedBytes, len)).is_ok()
        })
    }
}

/// A small text file of the git directory `root` (a ref, `HEAD`, `config`), through
/// [`read_limited`].
fn read_small(path: &Path, root: &Path) -> Result<String, GitError> {
    let bytes = read_limited(path, root, 1 << 20)?;
    String::from_utf8(bytes).map_err(|_| GitError::Io {
        path: path.to_path_buf(),
        message: "is not UTF-8".to_owned(),
    })
}

/// A whole file of the git directory `root`, through `fsio`'s door as every file a run reads:
/// its real path (symlinks resolved) must lie in `root`, it must be a regular file (a link to
/// `/dev/zero` is refused, not read), and it is refused past `limit` bytes.
fn read_limited(path: &Path, root: &Path, limit: u64) -> Result<Vec<u8>, GitError> {
    let confine = fsio::Confine {
        root: Some(root),
        max_bytes: limit,
    };
    fsio::read(&fsio::FsFacts::default(), path, confine).map_err(|e| GitError::Io {
        path: path.to_path_buf(),
        message: e.kind.to_string(),
    })
}

#[cfg(test)]
mod tests;
