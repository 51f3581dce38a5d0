//! Assembles an ExternalArtifact's file tree from an ArtifactGenerator artifact's copy operations,
//! as fluxcd/source-watcher's builder does: each source is a file-tree view (its artifact root),
//! the result is the artifact's file set, each file naming where its bytes come from.
//!
//! Supported: literal files and directories (with and without a trailing `/`), Go globs
//! (`fs.Glob`: `*`, `?`, `[...]`, `**` as one segment, `/**` stripping its prefix), `exclude`
//! (doublestar, against the alias root, the selection base and the file name), the strategies
//! `Overwrite`, `Merge` (YAML/JSON deep merge) and `Extract` (`.tgz`/`.tar.gz`), and the archive's
//! default ignore filter. Not for: fetching sources, `pathPattern` expansion, revisions and digests.
//! Knows nothing of Flux objects, the store or the file system: callers hand in [`SourceTree`]s.

pub(crate) mod extract;
mod merge;

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::golang::glob::doublestar;
use crate::golang::glob::path::{self as go_path, path_match as go_match, BadPattern};
pub use extract::ExtractError;
pub use merge::MergeError;

/// What a path in a source tree is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EntryKind {
    File,
    Dir,
}

/// A read-only view of one source's artifact root. Paths are relative, `/`-separated, with no
/// `.` or `..` segments; `""` is the root.
pub trait SourceTree {
    /// What `path` is; `None` when it does not exist (or the view does not show it).
    fn kind(&self, path: &str) -> Option<EntryKind>;
    /// The names in directory `path`, in byte order.
    fn list(&self, path: &str) -> Result<Vec<String>, SourceError>;
    fn read(&self, path: &str) -> Result<Vec<u8>, SourceError>;
}

/// A source tree could not list or read `path`; `message` is the view's own (a file-system
/// error, say), shown as it is.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct SourceError {
    pub path: String,
    pub message: String,
}

/// How a copy writes over what earlier copies left.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Strategy {
    #[default]
    Overwrite,
    Merge,
    Extract,
}

impl Strategy {
    /// Reads `spec.artifacts[].copy[].strategy`; `None` for an unknown value.
    pub fn parse(text: &str) -> Option<Strategy> {
        match text {
            "" | "Overwrite" => Some(Strategy::Overwrite),
            "Merge" => Some(Strategy::Merge),
            "Extract" => Some(Strategy::Extract),
            _ => None,
        }
    }
}

/// One copy operation: `from` (`@alias/pattern`) to `to` (`@artifact/dest`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Copy {
    pub from: String,
    pub to: String,
    pub exclude: Vec<String>,
    pub strategy: Strategy,
}

/// Where an artifact file's bytes come from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Origin {
    /// A file of a source, unchanged.
    Source { alias: String, path: String },
    /// Bytes made by the build: a merge's result or a tarball member.
    Data(Arc<[u8]>),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Entry {
    Dir,
    File(Origin),
}

/// The artifact's tree: every file and directory by its path relative to the artifact root.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Artifact {
    pub entries: BTreeMap<String, Entry>,
}

/// A failed copy operation, with upstream's wording.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    #[error("copy {index} (`{from}` to `{to}`): {kind}")]
    Copy {
        index: usize,
        from: String,
        to: String,
        #[source]
        kind: CopyError,
    },
}

/// Why one copy operation failed; paths and patterns are the operation's own.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CopyError {
    #[error("invalid exclude pattern '{0}'")]
    InvalidExclude(String),
    #[error("invalid source '{0}': must start with '@'")]
    InvalidSource(String),
    #[error("source alias '{0}' not found")]
    UnknownAlias(String),
    #[error("invalid destination '{0}': must start with '@artifact/'")]
    InvalidDestination(String),
    #[error("destination '{0}' leaves the artifact")]
    DestinationOutside(String),
    #[error("source '{0}' does not exist")]
    SourceMissing(String),
    #[error("extract strategy is not supported for directories")]
    ExtractDirectory,
    #[error("extract strategy requires tarball file: '{0}'")]
    NotATarball(String),
    #[error("invalid pattern '{0}': syntax error in pattern")]
    InvalidPattern(String),
    #[error("no files match pattern '{pattern}' in source '{alias}'")]
    NoMatch { pattern: String, alias: String },
    #[error("all files matching pattern '{pattern}' in source '{alias}' were excluded")]
    AllExcluded { pattern: String, alias: String },
    /// A path of the artifact that must be a directory is a file.
    #[error("`{0}` is a file, not a directory")]
    NotADirectory(String),
    /// A file would replace a directory of the artifact.
    #[error("`{0}` is a directory")]
    IsADirectory(String),
    #[error(transparent)]
    Source(#[from] SourceError),
    /// The `Merge` strategy could not merge onto the artifact's `target`.
    #[error("{kind}")]
    Merge { target: String, kind: MergeError },
    #[error("failed to extract tarball '{path}': {kind}")]
    Extract { path: String, kind: ExtractError },
}

/// The sources of a build, by alias.
pub type Sources<'a> = BTreeMap<String, &'a dyn SourceTree>;

/// Applies `copies` in order to an empty tree. The bytes `Extract` copies inflate are charged to
/// `run`'s budget of bytes extracted, when there is one.
pub fn build(
    copies: &[Copy],
    sources: &Sources,
    run: Option<&crate::budget::RunBudget>,
) -> Result<Artifact, Error> {
    let mut artifact = Artifact::default();
    for (index, copy) in copies.iter().enumerate() {
        apply(copy, sources, run, &mut artifact).map_err(|kind| Error::Copy {
            index,
            from: copy.from.clone(),
            to: copy.to.clone(),
            kind,
        })?;
    }
    Ok(artifact)
}

/// Files the archive leaves out (fluxcd/pkg `sourceignore`'s defaults): the artifact a consumer
/// downloads lacks them even though the staging tree has them.
pub(crate) fn archive_ignores(path: &str) -> bool {
    const DIRS: [&str; 3] = [".git", ".github", ".circleci"];
    const NAMES: [&str; 14] = [
        ".gitignore",
        ".gitmodules",
        ".gitattributes",
        ".travis.yml",
        ".gitlab-ci.yml",
        "appveyor.yml",
        ".drone.yml",
        "cloudbuild.yaml",
        "codeship-services.yml",
        "codeship-steps.yml",
        ".goreleaser.yml",
        ".sops.yaml",
        ".flux.yaml",
        ".git",
    ];
    const SUFFIXES: [&str; 8] = [
        ".jpg", ".jpeg", ".gif", ".png", ".wmv", ".flv", ".tar.gz", ".zip",
    ];
    let segments: Vec<&str> = path.split('/').collect();
    let name = segments.last().copied().unwrap_or_default();
    segments
        .iter()
        .take(segments.len().saturating_sub(1))
        .any(|s| DIRS.contains(s))
        || DIRS.contains(&name)
        || NAMES.contains(&name)
        || SUFFIXES.iter().any(|s| name.ends_with(s))
}

impl Artifact {
    /// The tree as a consumer sees it after downloading the archive.
    pub(crate) fn archived(mut self) -> Artifact {
        self.entries.retain(|path, _| !archive_ignores(path));
        self
    }

    pub fn is_dir(&self, path: &str) -> bool {
        path.is_empty() || matches!(self.entries.get(path), Some(Entry::Dir))
    }

    fn add_dir(&mut self, path: &str) -> Result<(), CopyError> {
        let mut current = String::new();
        for segment in path.split('/').filter(|s| !s.is_empty()) {
            if !current.is_empty() {
                current.push('/');
            }
            current.push_str(segment);
            match self.entries.get(&current) {
                Some(Entry::Dir) => {}
                Some(Entry::File(_)) => return Err(CopyError::NotADirectory(current)),
                None => {
                    self.entries.insert(current.clone(), Entry::Dir);
                }
            }
        }
        Ok(())
    }

    fn add_file(&mut self, path: &str, origin: Origin) -> Result<(), CopyError> {
        if let Some((parent, _)) = path.rsplit_once('/') {
            self.add_dir(parent)?;
        }
        if matches!(self.entries.get(path), Some(Entry::Dir)) || path.is_empty() {
            return Err(CopyError::IsADirectory(path.to_string()));
        }
        self.entries.insert(path.to_string(), Entry::File(origin));
        Ok(())
    }
}

/// `path.Clean` for relative paths; `None` for a path that climbs out (`..` above the root).
fn clean(path: &str) -> Option<String> {
    let mut out: Vec<&str> = Vec::new();
    for segment in path.split('/') {
        match segment {
            "" | "." => {}
            ".." => {
                out.pop()?;
            }
            s => out.push(s),
        }
    }
    Some(out.join("/"))
}

fn join(a: &str, b: &str) -> String {
    match (a.is_empty(), b.is_empty()) {
        (true, _) => b.to_string(),
        (_, true) => a.to_string(),
        _ => format!("{a}/{b}"),
    }
}

fn basename(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

fn is_tarball(path: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    lower.ends_with(".tar.gz") || lower.ends_with(".tgz")
}

struct Excludes<'a> {
    patterns: &'a [String],
    /// The selection base: the literal directory before the first glob segment, the copied
    /// directory, or the alias root (`""`).
    base: String,
}

impl Excludes<'_> {
    fn excludes(&self, path: &str) -> bool {
        let relative_to_base = if self.base.is_empty() {
            None
        } else {
            path.strip_prefix(self.base.as_str())
                .and_then(|rest| rest.strip_prefix('/'))
        };
        self.patterns.iter().any(|pattern| {
            doublestar::matches(pattern, path)
                || relative_to_base.is_some_and(|rel| doublestar::matches(pattern, rel))
                || (!pattern.contains('/') && doublestar::matches(pattern, basename(path)))
        })
    }
}

fn apply(
    copy: &Copy,
    sources: &Sources,
    run: Option<&crate::budget::RunBudget>,
    artifact: &mut Artifact,
) -> Result<(), CopyError> {
    if let Some(bad) = copy.exclude.iter().find(|p| !doublestar::is_valid(p)) {
        return Err(CopyError::InvalidExclude(bad.clone()));
    }
    let from = copy
        .from
        .strip_prefix('@')
        .ok_or_else(|| CopyError::InvalidSource(copy.from.clone()))?;
    let (alias, pattern) = from.split_once('/').unwrap_or((from, ""));
    let source = *sources
        .get(alias)
        .ok_or_else(|| CopyError::UnknownAlias(alias.to_string()))?;
    let to = copy
        .to
        .strip_prefix("@artifact/")
        .or_else(|| (copy.to == "@artifact").then_some(""))
        .ok_or_else(|| CopyError::InvalidDestination(copy.to.clone()))?;
    let to_is_dir = to.is_empty() || to.ends_with('/');
    let dest = clean(to).ok_or_else(|| CopyError::DestinationOutside(to.to_string()))?;
    let copier = Copier {
        alias,
        source,
        sources,
        strategy: copy.strategy,
        run,
    };
    if is_glob(pattern) {
        copier.glob(pattern, &dest, &copy.exclude, artifact)
    } else {
        copier.literal(pattern, &dest, to_is_dir, &copy.exclude, artifact)
    }
}

struct Copier<'a> {
    alias: &'a str,
    source: &'a dyn SourceTree,
    sources: &'a Sources<'a>,
    strategy: Strategy,
    run: Option<&'a crate::budget::RunBudget>,
}

impl Copier<'_> {
    fn origin(&self, path: &str) -> Origin {
        Origin::Source {
            alias: self.alias.to_string(),
            path: path.to_string(),
        }
    }

    fn literal(
        &self,
        pattern: &str,
        dest: &str,
        to_is_dir: bool,
        exclude: &[String],
        artifact: &mut Artifact,
    ) -> Result<(), CopyError> {
        let missing = || CopyError::SourceMissing(pattern.to_string());
        let path = clean(pattern).ok_or_else(missing)?;
        match self.source.kind(&path).ok_or_else(missing)? {
            EntryKind::Dir => {
                if self.strategy == Strategy::Extract {
                    return Err(CopyError::ExtractDirectory);
                }
                let target = if path.is_empty() {
                    dest.to_string()
                } else {
                    join(dest, basename(&path))
                };
                let excludes = Excludes {
                    patterns: exclude,
                    base: path.clone(),
                };
                self.directory(&path, &target, &excludes, artifact)
            }
            EntryKind::File => {
                let excludes = Excludes {
                    patterns: exclude,
                    base: String::new(),
                };
                if excludes.excludes(&path) {
                    return Ok(());
                }
                if self.strategy == Strategy::Extract {
                    if !is_tarball(&path) {
                        return Err(CopyError::NotATarball(path));
                    }
                    return self.extract(&path, dest, artifact);
                }
                let target = if to_is_dir || artifact.is_dir(dest) {
                    join(dest, basename(&path))
                } else {
                    dest.to_string()
                };
                self.file(&path, &target, artifact)
            }
        }
    }

    fn glob(
        &self,
        pattern: &str,
        dest: &str,
        exclude: &[String],
        artifact: &mut Artifact,
    ) -> Result<(), CopyError> {
        let base = pattern
            .split('/')
            .take_while(|segment| !is_glob(segment))
            .collect::<Vec<_>>()
            .join("/");
        let excludes = Excludes {
            patterns: exclude,
            base,
        };
        let no_match = || CopyError::NoMatch {
            pattern: pattern.to_string(),
            alias: self.alias.to_string(),
        };
        let invalid = || CopyError::InvalidPattern(pattern.to_string());
        if self.strategy == Strategy::Extract {
            if !doublestar::is_valid(pattern) {
                return Err(invalid());
            }
            let matches = doublestar_glob(self.source, pattern)?;
            if matches.is_empty() {
                return Err(no_match());
            }
            for path in matches {
                let is_file = self.source.kind(&path) == Some(EntryKind::File);
                if is_file && is_tarball(&path) && !excludes.excludes(&path) {
                    self.extract(&path, dest, artifact)?;
                }
            }
            return Ok(());
        }
        let matches = go_glob(self.source, pattern).map_err(|_| invalid())?;
        let matches: Vec<String> = matches
            .into_iter()
            .filter(|m| m != "." && m != "..")
            .collect();
        if matches.is_empty() {
            return Err(no_match());
        }
        let kept: Vec<&String> = matches.iter().filter(|m| !excludes.excludes(m)).collect();
        if kept.is_empty() {
            return Err(CopyError::AllExcluded {
                pattern: pattern.to_string(),
                alias: self.alias.to_string(),
            });
        }
        let strip = pattern.strip_suffix("/**");
        for path in kept {
            let relative = strip
                .and_then(|prefix| path.strip_prefix(prefix))
                .and_then(|rest| rest.strip_prefix('/'))
                .unwrap_or(path);
            let target = join(dest, relative);
            match self.source.kind(path) {
                Some(EntryKind::Dir) => self.directory(path, &target, &excludes, artifact)?,
                Some(EntryKind::File) => self.file(path, &target, artifact)?,
                None => {}
            }
        }
        Ok(())
    }

    /// Copies directory `path` to `target`, file by file (never merged); every directory is made,
    /// even one whose contents are all excluded.
    fn directory(
        &self,
        path: &str,
        target: &str,
        excludes: &Excludes,
        artifact: &mut Artifact,
    ) -> Result<(), CopyError> {
        artifact.add_dir(target)?;
        for name in self.source.list(path)? {
            let child = join(path, &name);
            if excludes.excludes(&child) {
                continue;
            }
            let child_target = join(target, &name);
            match self.source.kind(&child) {
                Some(EntryKind::Dir) => {
                    self.directory(&child, &child_target, excludes, artifact)?
                }
                Some(EntryKind::File) => artifact.add_file(&child_target, self.origin(&child))?,
                None => {}
            }
        }
        Ok(())
    }

    /// Copies file `path` to `target`; with `Merge`, onto the file already there.
    fn file(&self, path: &str, target: &str, artifact: &mut Artifact) -> Result<(), CopyError> {
        let existing = match artifact.entries.get(target) {
            Some(Entry::File(origin)) if self.strategy == Strategy::Merge => Some(origin.clone()),
            _ => None,
        };
        let origin = match existing {
            Some(existing) => {
                let base = read_origin(&existing, self.sources)?;
                let incoming = self.source.read(path)?;
                let merged = merge::merge(&base, &incoming).map_err(|kind| CopyError::Merge {
                    target: target.to_string(),
                    kind,
                })?;
                Origin::Data(merged.into())
            }
            None => self.origin(path),
        };
        artifact.add_file(target, origin)
    }

    fn extract(&self, path: &str, dest: &str, artifact: &mut Artifact) -> Result<(), CopyError> {
        let bytes = self.source.read(path)?;
        artifact.add_dir(dest)?;
        for member in extract::members(&bytes, self.run).map_err(|kind| CopyError::Extract {
            path: path.to_string(),
            kind,
        })? {
            let target = join(dest, &member.path);
            match member.data {
                None => artifact.add_dir(&target)?,
                Some(data) => artifact.add_file(&target, Origin::Data(data.into()))?,
            }
        }
        Ok(())
    }
}

/// The bytes `origin` stands for.
pub fn read_origin(origin: &Origin, sources: &Sources) -> Result<Vec<u8>, CopyError> {
    match origin {
        Origin::Data(data) => Ok(data.to_vec()),
        Origin::Source { alias, path } => Ok(sources
            .get(alias)
            .ok_or_else(|| CopyError::UnknownAlias(alias.clone()))?
            .read(path)?),
    }
}

/// `fs.Glob`: matches per segment, directories read only where the pattern needs them; the
/// matches in byte order.
/// Whether a copy pattern is a glob, as source-watcher's builder decides it (`* ? [ ]`).
fn is_glob(text: &str) -> bool {
    text.contains(['*', '?', '[', ']'])
}

fn go_glob(source: &dyn SourceTree, pattern: &str) -> Result<Vec<String>, BadPattern> {
    go_match(pattern, "")?;
    if !go_path::has_meta(pattern) {
        let path = clean(pattern).unwrap_or_default();
        return Ok(if source.kind(&path).is_some() {
            vec![pattern.to_string()]
        } else {
            Vec::new()
        });
    }
    let (dir, file) = match pattern.rsplit_once('/') {
        Some((dir, file)) => (dir, file),
        None => ("", pattern),
    };
    let dirs = if go_path::has_meta(dir) {
        go_glob(source, dir)?
    } else {
        vec![dir.to_string()]
    };
    let mut matches = Vec::new();
    for dir in dirs {
        let dir_clean = clean(&dir).unwrap_or_default();
        if source.kind(&dir_clean) != Some(EntryKind::Dir) {
            continue;
        }
        for name in source.list(&dir_clean).unwrap_or_default() {
            if go_match(file, &name)? {
                matches.push(join(&dir_clean, &name));
            }
        }
    }
    matches.sort();
    Ok(matches)
}

/// Doublestar's `Glob`: every path under the root whose relative path matches, in byte order.
fn doublestar_glob(source: &dyn SourceTree, pattern: &str) -> Result<Vec<String>, SourceError> {
    let mut matches = Vec::new();
    let mut stack = vec![String::new()];
    while let Some(dir) = stack.pop() {
        if source.kind(&dir) != Some(EntryKind::Dir) {
            continue;
        }
        for name in source.list(&dir)? {
            let path = join(&dir, &name);
            if doublestar::matches(pattern, &path) {
                matches.push(path.clone());
            }
            if source.kind(&path) == Some(EntryKind::Dir) {
                stack.push(path);
            }
        }
    }
    matches.sort();
    Ok(matches)
}
