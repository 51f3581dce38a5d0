//! What the source fetches keep in the download cache besides archives: the bare Git repositories
//! (`git/<sha256 of the URL>/`) and the remembered resolutions of refs and tags (`refs/<hex>`,
//! `tags/<hex>`), for `offlux cache`. Only entries named as offlux names them, and of the kind it
//! makes (a directory holding `HEAD`, a regular file), are listed; nothing is followed through a
//! symlink.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use crate::fsio::{self, EntryKind, FsFacts};

/// One entry of the cache that is not an archive.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CachedEntry {
    /// `git` (a bare repository), `ref` (a remembered resolution) or `render` (a rendered
    /// release).
    pub kind: &'static str,
    /// The directory's or file's name: a sha256 in hex.
    pub name: String,
    pub path: PathBuf,
    pub bytes: u64,
    pub stored: Option<SystemTime>,
    /// A Git repository's URL, as its fetch recorded it.
    pub url: Option<String>,
}

impl CachedEntry {
    pub fn is_dir(&self) -> bool {
        self.kind == "git"
    }
}

/// The file in a cached bare repository that names its URL, for `offlux cache list`.
pub(crate) const GIT_URL_FILE: &str = "offlux-url";

/// At most this many files are counted in one repository's size.
const MAX_FILES_COUNTED: usize = 100_000;

fn named(name: &str) -> bool {
    name.len() == 64 && name.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// The bare repositories and remembered resolutions under the cache at `root`, oldest first.
pub fn cached_entries(root: &Path) -> Result<Vec<CachedEntry>, fsio::ReadError> {
    let facts = FsFacts::default();
    let mut out = Vec::new();
    let git = root.join("git");
    if facts.is_dir(&git) {
        for entry in fsio::read_dir(&facts, &git, Some(root))? {
            let Some(name) = entry.name.to_str().filter(|n| named(n)) else {
                continue;
            };
            if entry.kind != EntryKind::Directory || !facts.is_file(&entry.path.join("HEAD")) {
                continue;
            }
            let stored = fsio::file_size_and_time(&entry.path.join("HEAD"))
                .ok()
                .and_then(|(_, t)| t);
            let mut bytes = 0;
            let mut counted = 0;
            size_of(&facts, root, &entry.path, &mut bytes, &mut counted);
            let url = fsio::read_to_string(
                &facts,
                &entry.path.join(GIT_URL_FILE),
                fsio::Confine {
                    root: Some(root),
                    max_bytes: 4096,
                },
            )
            .ok()
            .map(|u| u.trim().to_owned());
            out.push(CachedEntry {
                kind: "git",
                name: name.to_owned(),
                path: entry.path,
                bytes,
                stored,
                url,
            });
        }
    }
    for (dir, kind) in [("refs", "ref"), ("tags", "ref"), ("renders", "render")] {
        let dir = root.join(dir);
        if !facts.is_dir(&dir) {
            continue;
        }
        for entry in fsio::read_dir(&facts, &dir, Some(root))? {
            let Some(name) = entry.name.to_str().filter(|n| named(n)) else {
                continue;
            };
            if entry.kind != EntryKind::File {
                continue;
            }
            let Ok((bytes, stored)) = fsio::file_size_and_time(&entry.path) else {
                continue;
            };
            out.push(CachedEntry {
                kind,
                name: name.to_owned(),
                path: entry.path,
                bytes,
                stored,
                url: None,
            });
        }
    }
    out.sort_by(|a, b| (a.stored, &a.path).cmp(&(b.stored, &b.path)));
    Ok(out)
}

/// Adds the sizes of the regular files under `dir` (no symlink followed) to `bytes`.
fn size_of(facts: &FsFacts, root: &Path, dir: &Path, bytes: &mut u64, counted: &mut usize) {
    let Ok(entries) = fsio::read_dir(facts, dir, Some(root)) else {
        return;
    };
    for entry in entries {
        if *counted >= MAX_FILES_COUNTED {
            return;
        }
        *counted += 1;
        match entry.kind {
            EntryKind::Directory => size_of(facts, root, &entry.path, bytes, counted),
            EntryKind::File => {
                if let Ok((size, _)) = fsio::file_size_and_time(&entry.path) {
                    *bytes += size;
                }
            }
            _ => {}
        }
    }
}
