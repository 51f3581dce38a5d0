//! `render --out DIR`: a directory of one file per producer (`<Kind>/<namespace>/<name>.<ext>`)
//! that offlux owns only in part. What it wrote is listed in a manifest in DIR
//! ([`MANIFEST`]); a later run replaces or removes only files listed there, refuses a DIR
//! whose layout holds files it did not write, and never follows a symbolic link inside DIR.
//! Files outside the layout (a `README.md` beside the kind directories, a file of another
//! extension) are left alone. Not for: choosing or formatting the objects (see `render`).

use std::collections::BTreeSet;
use std::fmt;
use std::path::{Path, PathBuf};

use crate::model::ResourceId;
use crate::platform::nofollow::{Dir, Kind as NoFollowKind};

/// The manifest's file name in DIR.
pub(super) const MANIFEST: &str = ".offlux-manifest";

const MANIFEST_HEADER: &str =
    "# Files written by `offlux render --out`; its next run may replace or remove exactly these.";

/// The longest file name component written; most file systems allow 255 bytes.
const MAX_COMPONENT: usize = 200;

/// A file of the layout, relative to DIR: three plain components.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct LayoutPath([String; 3]);

impl LayoutPath {
    fn to_path(&self) -> PathBuf {
        self.0.iter().collect()
    }

    /// A manifest line, if it names a file of the layout (anything else is ignored, never removed).
    /// No component of the layout starts with a dot ([`component`] makes sure), so a line that
    /// names a hidden entry (`.git/…`, a dot-named link) is not offlux's.
    fn parse(line: &str) -> Option<LayoutPath> {
        let mut parts = line.split('/');
        let mut take = || {
            parts
                .next()
                .filter(|p| !p.is_empty() && !p.starts_with('.') && !p.contains(['\\', '\0']))
                .map(str::to_owned)
        };
        let path = LayoutPath([take()?, take()?, take()?]);
        parts.next().is_none().then_some(path)
    }
}

impl fmt::Display for LayoutPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}/{}", self.0[0], self.0[1], self.0[2])
    }
}

/// `<Kind>/<namespace>/<name>.<ext>`; names are Kubernetes names, but a path separator or `..` in
/// one must never lead outside the tree, and a name too long for a file name is shortened with a
/// hash of the whole, so distinct names stay distinct files.
pub(crate) fn producer_file(id: &ResourceId, extension: &str) -> LayoutPath {
    // Producers are Flux objects, all namespaced: one without a namespace is in `default`.
    let namespace = component(crate::reporting::verdicts::shown_namespace(id), "");
    LayoutPath([
        component(&id.kind, ""),
        namespace,
        component(&id.name, &format!(".{extension}")),
    ])
}

fn component(part: &str, suffix: &str) -> String {
    let cleaned: String = part
        .chars()
        .map(|c| {
            // A control character (a newline) would also split the manifest's line.
            if c == '/' || c == '\\' || c.is_control() {
                '_'
            } else {
                c
            }
        })
        .collect();
    let cleaned =
        if cleaned.is_empty() || cleaned == "." || cleaned == ".." || cleaned.starts_with('.') {
            format!("_{cleaned}")
        } else {
            cleaned
        };
    if cleaned.len() + suffix.len() <= MAX_COMPONENT {
        return format!("{cleaned}{suffix}");
    }
    use sha2::{Digest, Sha256};
    let hash = hex::encode(Sha256::digest(part.as_bytes()));
    let keep = MAX_COMPONENT - suffix.len() - 17;
    let mut end = keep.min(cleaned.len());
    while !cleaned.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}-{}{suffix}", &cleaned[..end], &hash[..16])
}

/// Why DIR was not written.
#[derive(Debug, thiserror::Error)]
pub(crate) enum OutError {
    #[error("`{dir}` is or contains the repository root `{root}`; offlux writes only to a directory of its own")]
    HoldsRepository { dir: PathBuf, root: PathBuf },
    #[error(
        "`{0}` is a symbolic link inside the output directory; offlux does not follow links there"
    )]
    Symlink(PathBuf),
    #[error("`{0}` was not written by offlux (it is not in `{MANIFEST}`); refusing to replace or remove it")]
    Foreign(PathBuf),
    #[error("{path}: {error}")]
    Io {
        path: PathBuf,
        error: std::io::Error,
    },
}

impl OutError {
    /// Whether the directory itself is unusable (a usage error), not the writing.
    pub(crate) fn is_refusal(&self) -> bool {
        !matches!(self, OutError::Io { .. })
    }
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> OutError + '_ {
    move |error| OutError::Io {
        path: path.to_path_buf(),
        error,
    }
}

/// Refuses a DIR that is, or contains, the repository root. Returns whether DIR lies inside the
/// repository (its files would be read as part of the repository by the next run).
pub(crate) fn check_location(dir: &Path, root: &Path) -> Result<bool, OutError> {
    let Ok(root) = root.canonicalize() else {
        return Ok(false);
    };
    // A DIR not yet made can hold nothing; where it will be is its nearest existing ancestor.
    let mut existing = dir.to_path_buf();
    let mut missing = Vec::new();
    let base = loop {
        match existing.canonicalize() {
            Ok(path) => break path,
            Err(_) => match (existing.file_name(), existing.parent()) {
                (Some(name), Some(parent)) => {
                    missing.push(name.to_owned());
                    existing = if parent.as_os_str().is_empty() {
                        PathBuf::from(".")
                    } else {
                        parent.to_path_buf()
                    };
                }
                _ => return Ok(false),
            },
        }
    };
    let full: PathBuf = missing
        .iter()
        .rev()
        .fold(base, |path, name| path.join(name));
    if root.starts_with(&full) {
        return Err(OutError::HoldsRepository {
            dir: dir.to_path_buf(),
            root,
        });
    }
    Ok(full.starts_with(&root))
}

/// What a write did.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Written {
    pub written: usize,
    pub removed: usize,
    /// Files of failed producers kept from the last run.
    pub kept: usize,
}

/// Writes `files` under `dir`, each staged in a hidden directory inside `dir` and then moved into
/// place (a rename, atomic per file); removes the files the last run wrote that are neither
/// written now nor in `keep` (the files of producers that failed this time keep their last good
/// output); then records what `dir` now holds of offlux's in the manifest. Nothing in `dir` is
/// touched when it holds, in the layout, a file offlux did not write or a symbolic link. Below
/// `dir` every step is taken one component at a time without following a link
/// (`platform::nofollow`): no write or removal goes through one, wherever it stands.
pub(crate) fn write_tree(
    dir: &Path,
    files: &[(LayoutPath, String)],
    keep: &BTreeSet<LayoutPath>,
) -> Result<Written, OutError> {
    std::fs::create_dir_all(dir).map_err(io(dir))?;
    let root = Dir::open(dir).map_err(io(dir))?;
    let owned = read_manifest(&root)?;
    check_layout(&root, &owned)?;
    let staging = tempfile::Builder::new()
        .prefix(".offlux-staging-")
        .tempdir_in(dir)
        .map_err(io(dir))?;
    let staging_name = staging
        .path()
        .file_name()
        .and_then(|n| n.to_str())
        .map(str::to_owned)
        .ok_or_else(|| io(dir)(std::io::Error::other("a staging directory without a name")))?;
    let staged = root.open_child(&staging_name).map_err(io(staging.path()))?;
    // Staged flat, one numbered file each: the staging directory is offlux's own, fresh.
    for (n, (_, text)) in files.iter().enumerate() {
        let path = staging.path().join(n.to_string());
        std::fs::write(&path, text).map_err(io(&path))?;
    }
    let wanted: BTreeSet<&LayoutPath> = files.iter().map(|(p, _)| p).collect();
    let mut moved = BTreeSet::new();
    for (n, (relative, _)) in files.iter().enumerate().rev() {
        // The last of two equal paths wins, as with writes in order.
        if !moved.insert(relative) {
            continue;
        }
        let target = dir.join(relative.to_path());
        let namespace = make_dirs(&root, relative)?;
        staged
            .rename(&n.to_string(), &namespace, &relative.0[2])
            .map_err(io(&target))?;
    }
    let mut written = Written {
        written: wanted.len(),
        ..Written::default()
    };
    let mut now: BTreeSet<LayoutPath> = wanted.iter().map(|p| (*p).clone()).collect();
    for stale in owned.iter().filter(|p| !wanted.contains(p)) {
        let path = dir.join(stale.to_path());
        let Some((kind, namespace)) = open_layout_dirs(&root, stale)? else {
            continue;
        };
        let file = &stale.0[2];
        if keep.contains(stale) {
            if namespace.kind(file).ok() == Some(NoFollowKind::File) {
                now.insert(stale.clone());
                written.kept += 1;
            }
            continue;
        }
        match namespace.kind(file) {
            Ok(_) => {
                namespace.remove_file(file).map_err(io(&path))?;
                written.removed += 1;
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(io(&path)(e)),
        }
        // Directories left empty go; one holding anything else stays.
        drop(namespace);
        let _ = kind.remove_empty_dir(&stale.0[1]);
        drop(kind);
        let _ = root.remove_empty_dir(&stale.0[0]);
    }
    let mut text = format!("{MANIFEST_HEADER}\n");
    for path in &now {
        text.push_str(&path.to_string());
        text.push('\n');
    }
    let staged_manifest = staging.path().join(MANIFEST);
    std::fs::write(&staged_manifest, text).map_err(io(&staged_manifest))?;
    let manifest = dir.join(MANIFEST);
    staged
        .rename(MANIFEST, &root, MANIFEST)
        .map_err(io(&manifest))?;
    Ok(written)
}

/// The kind and namespace directories of `relative`, opened without following a link: `None`
/// when either is missing, an error when either is a link or not a directory.
fn open_layout_dirs(root: &Dir, relative: &LayoutPath) -> Result<Option<(Dir, Dir)>, OutError> {
    let mut opened = Vec::with_capacity(2);
    for part in &relative.0[..2] {
        let parent = opened.last().unwrap_or(root);
        let path = parent.path().join(part);
        match parent.kind(part) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(io(&path)(e)),
            Ok(NoFollowKind::Symlink) => return Err(OutError::Symlink(path)),
            Ok(NoFollowKind::Directory) => {}
            Ok(_) => return Ok(None),
        }
        let child = parent
            .open_child(part)
            .map_err(|e| match parent.kind(part) {
                Ok(NoFollowKind::Symlink) => OutError::Symlink(path.clone()),
                _ => io(&path)(e),
            })?;
        opened.push(child);
    }
    let namespace = opened.pop();
    let kind = opened.pop();
    Ok(kind.zip(namespace))
}

/// The files the last run recorded; none when there is no manifest.
fn read_manifest(root: &Dir) -> Result<BTreeSet<LayoutPath>, OutError> {
    let path = root.path().join(MANIFEST);
    match root.kind(MANIFEST) {
        Ok(NoFollowKind::File) => {}
        Ok(_) => return Err(OutError::Symlink(path)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(BTreeSet::new()),
        Err(e) => return Err(io(&path)(e)),
    }
    let bytes = root.read_file(MANIFEST).map_err(io(&path))?;
    let text = String::from_utf8_lossy(&bytes);
    Ok(text
        .lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(LayoutPath::parse)
        .collect())
}

/// Refuses symbolic links where the layout has directories, and `.yaml`/`.json` files in the
/// layout that the manifest does not list. Hidden entries (the manifest, staging) are outside it.
fn check_layout(root: &Dir, owned: &BTreeSet<LayoutPath>) -> Result<(), OutError> {
    for kind_name in visible_entries(root)? {
        let kind_path = root.path().join(&kind_name);
        match root.kind(&kind_name).map_err(io(&kind_path))? {
            NoFollowKind::Symlink => return Err(OutError::Symlink(kind_path)),
            NoFollowKind::Directory => {}
            _ => continue,
        }
        let kind = root.open_child(&kind_name).map_err(io(&kind_path))?;
        for namespace_name in visible_entries(&kind)? {
            let namespace_path = kind.path().join(&namespace_name);
            match kind.kind(&namespace_name).map_err(io(&namespace_path))? {
                NoFollowKind::Symlink => return Err(OutError::Symlink(namespace_path)),
                NoFollowKind::Directory => {}
                _ => continue,
            }
            let namespace = kind
                .open_child(&namespace_name)
                .map_err(io(&namespace_path))?;
            for file_name in visible_entries(&namespace)? {
                let in_layout = Path::new(&file_name)
                    .extension()
                    .is_some_and(|e| e == "yaml" || e == "json");
                if !in_layout {
                    continue;
                }
                let file = namespace.path().join(&file_name);
                let relative = LayoutPath([kind_name.clone(), namespace_name.clone(), file_name]);
                if !owned.contains(&relative) {
                    return Err(OutError::Foreign(file));
                }
            }
        }
    }
    Ok(())
}

/// Opens (making them when missing) the kind and namespace directories of `relative` under
/// `root`, refusing to pass through a link; returns the namespace directory.
fn make_dirs(root: &Dir, relative: &LayoutPath) -> Result<Dir, OutError> {
    let kind = make_dir(root, &relative.0[0])?;
    make_dir(&kind, &relative.0[1])
}

fn make_dir(parent: &Dir, name: &str) -> Result<Dir, OutError> {
    let path = parent.path().join(name);
    match parent.kind(name) {
        Ok(NoFollowKind::Symlink) => return Err(OutError::Symlink(path)),
        Ok(NoFollowKind::Directory) => {}
        Ok(_) => {
            return Err(io(&path)(std::io::Error::new(
                std::io::ErrorKind::AlreadyExists,
                "a file stands where offlux writes a directory",
            )))
        }
        Err(_) => {}
    }
    parent
        .open_or_create_child(name)
        .map_err(|e| match parent.kind(name) {
            Ok(NoFollowKind::Symlink) => OutError::Symlink(path.clone()),
            _ => io(&path)(e),
        })
}

/// The names in `dir` that do not start with a dot, in order. Names that are not UTF-8 are not
/// offlux's (it writes only UTF-8 names). Listed by path: a read, and each entry is then looked
/// at through `dir` itself without following a link.
fn visible_entries(dir: &Dir) -> Result<Vec<String>, OutError> {
    let mut entries = Vec::new();
    for entry in std::fs::read_dir(dir.path()).map_err(io(dir.path()))? {
        let entry = entry.map_err(io(dir.path()))?;
        let Ok(name) = entry.file_name().into_string() else {
            continue;
        };
        if !name.starts_with('.') {
            entries.push(name);
        }
    }
    entries.sort();
    Ok(entries)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_names_are_shortened_stably_and_stay_distinct() {
        let id = |name: &str| ResourceId {
            kind: "Kustomization".into(),
            namespace: "flux-system".into(),
            name: name.into(),
            ..ResourceId::default()
        };
        let a = producer_file(&id(&"a".repeat(253)), "yaml");
        let b = producer_file(&id(&format!("{}b", "a".repeat(252))), "yaml");
        assert_ne!(a, b);
        assert_eq!(a, producer_file(&id(&"a".repeat(253)), "yaml"));
        assert!(a.0[2].len() <= MAX_COMPONENT && a.0[2].ends_with(".yaml"));
        assert_eq!(
            producer_file(&id("web"), "yaml").to_string(),
            "Kustomization/flux-system/web.yaml"
        );
        assert_eq!(producer_file(&id(".."), "yaml").0[2], "_...yaml");
        // A newline in a name stays inside one manifest line.
        let split = producer_file(&id("x\nvalues"), "yaml");
        assert_eq!(split.0[2], "x_values.yaml");
        assert_eq!(LayoutPath::parse(&split.to_string()), Some(split));
    }

    #[test]
    fn manifest_lines_outside_the_layout_are_ignored() {
        assert!(LayoutPath::parse("a/b/c.yaml").is_some());
        for bad in ["../x/y", "a/b", "a/b/c/d", "/a/b", "a/../b", "a/b/"] {
            assert_eq!(LayoutPath::parse(bad), None, "{bad}");
        }
    }
}
