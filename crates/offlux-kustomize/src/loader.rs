//! The loader: the one way the engine reaches files. Resolves a kustomization's entries (with
//! kustomize's in-memory root when a display root is set), reads files through `fsio` under the
//! load restrictor and the file-system root, finds and parses kustomization files and resource
//! files, and shows paths as kustomize does in its messages.
//!
//! Not for: what the files mean (the target accumulates them, transformers apply them).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::{FileKind, LoadRestrictor, Options, KUSTOMIZATION_FILE_NAMES};
use offlux_fs as fsio;
use offlux_yaml::{parse_stream, Document, ErrorKind, Node, ParseOptions};

/// Why a directory's kustomization could not be had.
pub(crate) enum KustomizationError {
    /// No kustomization file in the directory (kustomize's message).
    Missing(String),
    /// The file could not be read or parsed.
    Unreadable { file: PathBuf, message: String },
}

/// File access for one build.
pub(crate) struct Loader<'a> {
    pub options: &'a Options,
}

impl<'a> Loader<'a> {
    pub(super) fn new(options: &'a Options) -> Self {
        Loader { options }
    }

    /// The documents of `path` if they were parsed before the build.
    pub(super) fn parsed(&self, path: &Path) -> Option<&Arc<[Document]>> {
        self.options.parsed_files.as_ref()?.get(path)
    }

    /// `path.canonicalize()`, remembered across the builds that share the options.
    pub(crate) fn real_path(&self, path: &Path) -> Option<PathBuf> {
        self.options.fs_facts.resolve(path)
    }

    /// A path as kustomize shows it: relative to the display root, written as absolute.
    pub(super) fn show(&self, path: &Path) -> String {
        if let Some(root) = &self.options.display_root {
            let root = self.real_path(root).unwrap_or_else(|| root.clone());
            let abs = absolutize(path);
            if let Ok(rel) = abs.strip_prefix(&root) {
                return format!("/{}", rel.display());
            }
        }
        path.display().to_string()
    }

    /// Where an entry of a kustomization in `dir` points. With a display root, that directory
    /// is the file system's root: absolute entries start there and `..` stops there, as in
    /// kustomize's in-memory file system.
    pub(super) fn resolve(&self, dir: &Path, entry: &str) -> PathBuf {
        let Some(root) = &self.options.display_root else {
            return dir.join(entry);
        };
        let normalised_root;
        let root = if is_plain_absolute(root) {
            root.as_path()
        } else {
            normalised_root = absolutize(root);
            normalised_root.as_path()
        };
        let joined = match entry.strip_prefix('/') {
            Some(rest) => root.join(rest),
            None => dir.join(entry),
        };
        let abs = absolutize(&joined);
        if offlux_fs::facts::is_within(&abs, root) {
            return abs;
        }
        // climbed above the root: continue from the root with what is left
        let mut out = root.to_path_buf();
        let rel = absolutize(dir)
            .strip_prefix(root)
            .map(Path::to_path_buf)
            .unwrap_or_default();
        let mut parts: Vec<std::path::Component> = rel.components().collect();
        for c in Path::new(entry).components() {
            match c {
                std::path::Component::ParentDir => {
                    parts.pop();
                }
                std::path::Component::Normal(_) => parts.push(c),
                _ => {}
            }
        }
        for p in parts {
            out.push(p);
        }
        out
    }

    /// Reads a file a kustomization in `dir` refers to, under the load restrictor.
    pub(crate) fn read_file(&self, dir: &Path, entry: &str) -> Result<(PathBuf, String), String> {
        let (path, bytes) = self.read_bytes(dir, entry)?;
        String::from_utf8(bytes)
            .map(|text| (path.clone(), text))
            .map_err(|_| format!("reading '{}': not valid UTF-8", self.show(&path)))
    }

    /// The bytes of a file a kustomization in `dir` refers to, read through the guarded door
    /// under the load restrictor (and inside the file system root).
    pub(crate) fn read_bytes(&self, dir: &Path, entry: &str) -> Result<(PathBuf, Vec<u8>), String> {
        let path = self.resolve(dir, entry);
        let root = self.read_root(dir);
        let confine = fsio::Confine::root_or_anywhere(root);
        match fsio::read(&self.options.fs_facts, &path, confine) {
            Ok(bytes) => Ok((path, bytes)),
            Err(e) => Err(self.read_error(e)),
        }
    }

    /// The directory a file read for a kustomization in `dir` must lie in: the kustomization's own
    /// under `LoadRestrictionsRootOnly` (its directory already lies in the file system root), else
    /// the file system root, if any.
    pub(crate) fn read_root<'p>(&'p self, dir: &'p Path) -> Option<&'p Path> {
        match self.options.load_restrictor {
            LoadRestrictor::RootOnly => Some(dir),
            LoadRestrictor::None => self.options.fs_root.as_deref(),
        }
    }

    /// kustomize's words for a refused or failed read.
    fn read_error(&self, error: fsio::ReadError) -> String {
        let shown = self.show(&error.path);
        match error.kind {
            fsio::ReadErrorKind::NotFound => format!("'{shown}' doesn't exist"),
            fsio::ReadErrorKind::Outside { root, real } => self.refusal(&error.path, &root, &real),
            fsio::ReadErrorKind::Directory => format!("'{shown}' is a directory"),
            other => format!("reading '{shown}': {other}"),
        }
    }

    fn refusal(&self, path: &Path, root: &Path, real: &Path) -> String {
        if self.options.load_restrictor == LoadRestrictor::RootOnly {
            format!(
                "security; file '{}' is not in or below '{}'",
                self.show(real),
                self.show(root)
            )
        } else {
            format!(
                "security; file '{}' is outside the repository root",
                path.display()
            )
        }
    }

    /// Refuses paths outside `Options::fs_root`, symlinks resolved.
    pub(crate) fn check_fs_root(&self, path: &Path) -> Result<(), String> {
        let Some(fs_root) = &self.options.fs_root else {
            return Ok(());
        };
        match fsio::locate(&self.options.fs_facts, path, Some(fs_root)) {
            Err(fsio::ReadError {
                kind: fsio::ReadErrorKind::Outside { .. },
                ..
            }) => Err(format!(
                "security; file '{}' is outside the repository root",
                path.display()
            )),
            // Not there: what lexically lies outside is refused all the same.
            Err(_) => {
                let root = self
                    .real_path(fs_root)
                    .unwrap_or_else(|| absolutize(fs_root));
                if offlux_fs::facts::is_within(&absolutize(path), &root) {
                    Ok(())
                } else {
                    Err(format!(
                        "security; file '{}' is outside the repository root",
                        path.display()
                    ))
                }
            }
            Ok(_) => Ok(()),
        }
    }

    pub(crate) fn check_restrictor(&self, dir: &Path, path: &Path) -> Result<(), String> {
        self.check_fs_root(path)?;
        let Some(root) = self.read_root(dir) else {
            return Ok(());
        };
        match fsio::locate(&self.options.fs_facts, path, Some(root)) {
            Err(fsio::ReadError {
                kind: fsio::ReadErrorKind::Outside { root, real },
                path,
            }) => Err(self.refusal(&path, &root, &real)),
            _ => Ok(()),
        }
    }

    /// The kustomization of `dir`: its file (where the file would be, for an override standing
    /// in for a missing one) and its root node.
    pub(crate) fn read_kustomization(
        &self,
        dir: &Path,
    ) -> Result<(PathBuf, Node), KustomizationError> {
        let overridden = self
            .options
            .kustomization_override
            .as_ref()
            .filter(|(over, _)| {
                self.real_path(over).unwrap_or_else(|| absolutize(over))
                    == self.real_path(dir).unwrap_or_else(|| dir.to_path_buf())
            });
        let kfile = match overridden {
            Some(_) => self
                .find_kustomization(dir)
                .unwrap_or_else(|_| dir.join("kustomization.yaml")),
            None => self
                .find_kustomization(dir)
                .map_err(KustomizationError::Missing)?,
        };
        let fail = |message: String| KustomizationError::Unreadable {
            file: kfile.clone(),
            message,
        };
        // kustomize's `LoadKustFile`: one recognised name only.
        let present = KUSTOMIZATION_FILE_NAMES
            .iter()
            .filter(|name| self.options.fs_facts.is_file(&dir.join(name)))
            .count();
        if overridden.is_none() && present > 1 {
            return Err(fail(format!(
                "Found multiple kustomization files under: {}",
                self.show(dir)
            )));
        }
        let root = match overridden {
            Some((_, node)) => node.clone(),
            None => match self.parsed(&kfile) {
                Some(docs) => docs
                    .first()
                    .map(|d| Node::clone(&d.root))
                    .unwrap_or_else(Node::null),
                None => {
                    let text = fsio::read_to_string(
                        &self.options.fs_facts,
                        &kfile,
                        fsio::Confine::root_or_anywhere(self.read_root(dir)),
                    )
                    .map_err(|e| fail(format!("reading: {e}")))?;
                    // kustomize reads the file with a YAML reader where a repeated key replaces
                    // the earlier one
                    let options = ParseOptions {
                        last_key_wins: true,
                        ..ParseOptions::default()
                    };
                    parse_stream(&text, &options)
                        .map_err(|e| fail(format!("{}: {}", e.pos, e.message)))?
                        .into_iter()
                        .next()
                        .map(|d| d.into_root())
                        .unwrap_or_else(Node::null)
                }
            },
        };
        Ok((kfile, root))
    }

    /// The resources of the file `path`, the resource entry `entry` of a kustomization in `dir`.
    pub(crate) fn load_file(
        &self,
        dir: &Path,
        entry: &str,
        path: &Path,
    ) -> Result<Vec<Node>, String> {
        let shown = || self.show(&absolutize(path));
        if let Err(security) = self.check_restrictor(dir, path) {
            let shown = shown();
            let tail = if Path::new(entry).is_absolute() {
                format!("new root '{shown}' cannot be absolute")
            } else {
                format!("must build at directory: '{shown}': file is not directory")
            };
            return Err(format!(
                "accumulation err='accumulating resources from '{entry}': {security}': {tail}"
            ));
        }
        if let Some(documents) = self.parsed(path) {
            return resources_of(documents.iter().map(|d| Node::clone(&d.root)))
                .map_err(|m| format!("accumulating resources from '{entry}': {m}"));
        }
        let confine = fsio::Confine::root_or_anywhere(self.read_root(dir));
        let text = fsio::read_to_string(&self.options.fs_facts, path, confine)
            .map_err(|e| format!("reading '{}': {}", shown(), e.kind))?;
        let options = ParseOptions {
            run: self.options.budget.clone(),
            ..ParseOptions::default()
        };
        parse_resources_with(&text, &options)
            .map_err(|m| format!("accumulating resources from '{entry}': {m}"))
    }

    /// What is at `path`, if anything.
    pub(super) fn kind(&self, path: &Path) -> Option<FileKind> {
        self.options.fs_facts.kind(path)
    }

    pub(crate) fn find_kustomization(&self, dir: &Path) -> Result<PathBuf, String> {
        for name in KUSTOMIZATION_FILE_NAMES {
            let p = dir.join(name);
            if self.options.fs_facts.is_file(&p) {
                return Ok(p);
            }
        }
        Err(format!(
            "unable to find one of 'kustomization.yaml', 'kustomization.yml' or 'Kustomization' in directory '{}'",
            self.show(dir)
        ))
    }
}

pub(crate) fn absolutize(path: &Path) -> PathBuf {
    if path.is_absolute() && is_plain_absolute(path) {
        return path.to_path_buf();
    }
    let abs = if path.is_absolute() {
        path.to_path_buf()
    } else {
        fsio::absolute(path)
    };
    normalise_absolute(&abs)
}

/// `path` (absolute) with `.` and `..` applied and doubled or trailing separators dropped: on the
/// bytes, as a path component by component costs several times more (relative resource entries
/// such as `../../components/x` make this a common case).
#[cfg(unix)]
fn normalise_absolute(path: &Path) -> PathBuf {
    use std::os::unix::ffi::{OsStrExt, OsStringExt};
    let mut out: Vec<u8> = Vec::with_capacity(path.as_os_str().len());
    for part in path.as_os_str().as_bytes().split(|&b| b == b'/') {
        match part {
            b"" | b"." => {}
            b".." => {
                let parent = out.iter().rposition(|&b| b == b'/').unwrap_or(0);
                out.truncate(parent);
            }
            _ => {
                out.push(b'/');
                out.extend_from_slice(part);
            }
        }
    }
    if out.is_empty() {
        out.push(b'/');
    }
    PathBuf::from(std::ffi::OsString::from_vec(out))
}

#[cfg(not(unix))]
fn normalise_absolute(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// True when `path` has no `.` or `..` component, no doubled or trailing `/`: component-wise
/// normalisation would give it back unchanged.
fn is_plain_absolute(path: &Path) -> bool {
    match path.as_os_str().as_encoded_bytes().split_first() {
        Some((b'/', rest)) => {
            !rest.is_empty()
                && rest
                    .split(|&b| b == b'/')
                    .all(|part| part.first().is_some_and(|&b| b != b'.'))
        }
        _ => false,
    }
}

pub(crate) fn is_remote(entry: &str) -> bool {
    entry.contains("://")
        || entry.starts_with("git@")
        || entry.starts_with("github.com/")
        || entry.starts_with("gitlab.com/")
        || entry.starts_with("bitbucket.org/")
        || entry.contains("?ref=")
}

/// Parses YAML text into resources, flattening `List` kinds.
pub(crate) fn parse_resources(text: &str) -> Result<Vec<Node>, String> {
    parse_resources_with(text, &ParseOptions::default())
}

/// [`parse_resources`] with the YAML reader's options.
fn parse_resources_with(text: &str, options: &ParseOptions) -> Result<Vec<Node>, String> {
    let docs = parse_stream(text, options).map_err(|e| {
        // go-yaml's wording for a repeated key, which kustomize passes on
        let message = match &e.kind {
            ErrorKind::DuplicateKey { key } => format!("mapping key \"{key}\" already defined"),
            ErrorKind::Other | ErrorKind::Budget => e.message.clone(),
        };
        format!("MalformedYAMLError: {message} at {}", e.pos)
    })?;
    resources_of(docs.into_iter().map(|d| d.into_root()))
}

/// The resources of a file's documents: empty documents skipped, `List` kinds flattened.
fn resources_of(docs: impl Iterator<Item = Node>) -> Result<Vec<Node>, String> {
    let mut out = Vec::new();
    for root in docs {
        if root.is_null() {
            continue;
        }
        match &root {
            Node::Mapping(m) if m.is_empty() => continue,
            Node::Mapping(_) => {}
            _ => return Err("MalformedYAMLError: a resource must be a mapping".into()),
        }
        let kind = root.get("kind").and_then(Node::as_str).unwrap_or("");
        if kind.ends_with("List") && root.get("items").is_some() {
            if let Some(items) = root.get("items").and_then(Node::as_sequence) {
                out.extend(items.items.iter().cloned());
            }
            continue;
        }
        if root.get("kind").is_none() {
            return Err("missing Resource metadata: kind not set".into());
        }
        out.push(root);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    #[test]
    fn absolutize_normalises_whatever_the_plain_path_shortcut_lets_through() {
        for (path, expected) in [
            ("/a/b", "/a/b"),
            ("/a/.hidden/b", "/a/.hidden/b"),
            ("/a/./b", "/a/b"),
            ("/a/x/../b", "/a/b"),
            ("/a//b", "/a/b"),
            ("/a/b/", "/a/b"),
            ("/", "/"),
            ("/..", "/"),
            ("/a/../../b", "/b"),
            ("/a/b/..", "/a"),
            ("/a/..hidden/.../b", "/a/..hidden/.../b"),
        ] {
            assert_eq!(
                super::absolutize(Path::new(path)),
                Path::new(expected),
                "{path}"
            );
        }
        assert!(super::is_plain_absolute(Path::new("/a/b")));
        assert!(!super::is_plain_absolute(Path::new("/a/./b")));
        assert!(!super::is_plain_absolute(Path::new("/a/b/")));
        for path in ["/", "", "a/b", "/a//b", "/a/.b", "/a/..", "//a"] {
            assert!(!super::is_plain_absolute(Path::new(path)), "{path}");
        }
    }
}
