//! The two caches on disk: the local chart cache (unpacked charts and archives named
//! `<chart>-<version>`, filled by hand or by a mirror job) and the download cache (archives kept
//! by their sha256, written by us). Not for: deciding whether to use the network (see `fetch`).

use std::path::{Path, PathBuf};

use offlux_fs::{self as fsio, FsFacts};

use super::{is_digest, select_version, sha256_digest, FetchErrorKind, FetchedChart};

/// Finds `chart` at `version` among the entries of a chart cache directory. `Ok(None)` when no
/// entry matches; an error when the directory cannot be read or the request is not a version.
///
/// A request pinned by digest (an OCIRepository's `ref.digest`, which source-controller prefers
/// to its `tag`) never matches: entries are named by version, and nothing here proves an entry is
/// the artifact the digest names.
pub fn find_in_chart_cache(
    dir: &Path,
    chart: &str,
    version: &str,
) -> Result<Option<FetchedChart>, FetchErrorKind> {
    let Some(entry) = locate_in_chart_cache(dir, chart, version)? else {
        return Ok(None);
    };
    if entry.is_dir {
        return Ok(Some(FetchedChart::Directory {
            path: entry.path,
            version: entry.version,
        }));
    }
    let facts = FsFacts::default();
    let bytes = fsio::read(&facts, &entry.path, fsio::Confine::anywhere()).map_err(|e| {
        FetchErrorKind::Io {
            path: entry.path.display().to_string(),
            message: e.kind.to_string(),
        }
    })?;
    Ok(Some(FetchedChart::Archive {
        name: chart.to_string(),
        version: entry.version,
        digest: sha256_digest(&bytes),
        bytes,
    }))
}

/// The chart cache's entry for `chart` at `version`: a directory or an archive.
pub struct CacheEntry {
    pub path: PathBuf,
    pub version: String,
    pub is_dir: bool,
}

/// Which entry [`find_in_chart_cache`] would take, without reading it (whether a cache holds a
/// chart is asked far more often than the chart is loaded).
pub fn locate_in_chart_cache(
    dir: &Path,
    chart: &str,
    version: &str,
) -> Result<Option<CacheEntry>, FetchErrorKind> {
    if pinned_by_digest(version) {
        return Ok(None);
    }
    ChartCacheListing::read(dir)?.locate(chart, version)
}

fn pinned_by_digest(version: &str) -> bool {
    let requested = version.trim();
    is_digest(requested.strip_prefix('@').unwrap_or(requested))
}

/// A chart cache directory's entries by name, listed once for many lookups (a run asks whether
/// the cache holds a chart for every source that names one).
#[derive(Debug)]
pub struct ChartCacheListing {
    entries: Vec<(String, PathBuf)>,
}

impl ChartCacheListing {
    pub fn read(dir: &Path) -> Result<ChartCacheListing, FetchErrorKind> {
        let io = |e: fsio::ReadError| FetchErrorKind::Io {
            path: dir.display().to_string(),
            message: e.kind.to_string(),
        };
        let facts = FsFacts::default();
        let entries = fsio::read_dir(&facts, dir, None)
            .map_err(io)?
            .into_iter()
            .filter_map(|entry| Some((entry.name.to_str()?.to_owned(), entry.path)))
            .collect();
        Ok(ChartCacheListing { entries })
    }

    /// [`locate_in_chart_cache`] in this listing.
    pub fn locate(&self, chart: &str, version: &str) -> Result<Option<CacheEntry>, FetchErrorKind> {
        if pinned_by_digest(version) {
            return Ok(None);
        }
        let facts = FsFacts::default();
        let mut entries: Vec<(String, PathBuf, bool)> = Vec::new();
        // The cache is the user's: its entries may be symlinks to anywhere.
        for (file_name, path) in &self.entries {
            // Only an entry named for `chart` is looked at: each look is a path resolved.
            let archive_stem = file_name.strip_suffix(".tgz");
            let named = version_of_entry(file_name, chart).is_some()
                || archive_stem.is_some_and(|stem| version_of_entry(stem, chart).is_some());
            if !named {
                continue;
            }
            let (stem, is_dir) = if facts.is_dir(path) {
                (file_name.as_str(), true)
            } else if let Some(stem) = archive_stem {
                (stem, false)
            } else {
                continue;
            };
            if let Some(v) = version_of_entry(stem, chart) {
                entries.push((v.to_string(), path.clone(), is_dir));
            }
        }
        // Directories before archives, then by name, so the choice does not depend on read order.
        entries.sort_by(|a, b| (!a.2, &a.0).cmp(&(!b.2, &b.0)));
        let Some(i) = select_version(entries.iter().map(|e| e.0.as_str()), version)? else {
            return Ok(None);
        };
        Ok(entries
            .into_iter()
            .nth(i)
            .map(|(version, path, is_dir)| CacheEntry {
                path,
                version,
                is_dir,
            }))
    }
}

/// The version part of a cache entry's name `<chart>-<version>`, when the entry is for `chart`.
/// The rest after `<chart>-` must look like a version (`1.2.3…` or `v1.2.3…`), so chart
/// `prometheus` does not take `prometheus-node-exporter-4.47.0`.
pub(super) fn version_of_entry<'a>(stem: &'a str, chart: &str) -> Option<&'a str> {
    let rest = stem.strip_prefix(chart)?.strip_prefix('-')?;
    let digits = rest.strip_prefix('v').unwrap_or(rest);
    let core_end = digits.find(['-', '+']).unwrap_or(digits.len());
    let core = digits.get(..core_end)?;
    let parts: Vec<&str> = core.split('.').collect();
    let numeric = parts.len() == 3
        && parts
            .iter()
            .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()));
    numeric.then_some(rest)
}

/// The download cache: archives stored under `sha256/<hex>`.
// Only the network code stores downloads.
#[cfg_attr(not(feature = "network"), allow(dead_code))]
pub(crate) struct DownloadCache<'a> {
    pub(crate) root: &'a Path,
}

#[cfg_attr(not(feature = "network"), allow(dead_code))]
impl DownloadCache<'_> {
    fn path(&self, digest: &str) -> Option<PathBuf> {
        let hex = digest.strip_prefix("sha256:")?;
        let valid = hex.len() == 64 && hex.bytes().all(|b| b.is_ascii_hexdigit());
        valid.then(|| self.root.join("sha256").join(hex.to_ascii_lowercase()))
    }

    /// The stored bytes for `digest` (`sha256:<hex>`), if present and intact. A file whose
    /// content no longer matches its name is ignored (and replaced by the next download).
    pub(crate) fn get(&self, digest: &str, max_bytes: u64) -> Option<Vec<u8>> {
        let path = self.path(digest)?;
        let confine = fsio::Confine {
            root: Some(self.root),
            max_bytes,
        };
        let bytes = fsio::read(&FsFacts::default(), &path, confine).ok()?;
        (sha256_digest(&bytes) == digest.to_ascii_lowercase()).then_some(bytes)
    }

    /// Stores `bytes` under their digest: a temporary file in the same directory, renamed into
    /// place, so a reader never sees a partial file.
    pub(crate) fn put(&self, bytes: &[u8]) -> Result<String, FetchErrorKind> {
        let digest = sha256_digest(bytes);
        let Some(path) = self.path(&digest) else {
            return Ok(digest);
        };
        fsio::write_atomically(&path, bytes).map_err(|e| FetchErrorKind::Io {
            path: self.root.join("sha256").display().to_string(),
            message: e.to_string(),
        })?;
        Ok(digest)
    }
}

/// One archive of the download cache.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CachedArchive {
    /// `sha256:<hex>`, the name it is stored under.
    pub digest: String,
    pub path: PathBuf,
    pub bytes: u64,
    /// When it was stored (its modification time), when the file system says.
    pub stored: Option<std::time::SystemTime>,
}

/// The archives of the download cache at `root`, oldest first (then by digest). Only files
/// named as offlux stores them (`sha256/<64 hex digits>`, regular files) are listed: whatever
/// else the directory holds is not offlux's and is never touched.
pub fn cached_archives(root: &Path) -> Result<Vec<CachedArchive>, fsio::ReadError> {
    let dir = root.join("sha256");
    let facts = FsFacts::default();
    if !facts.is_dir(&dir) {
        return Ok(Vec::new());
    }
    let mut archives = Vec::new();
    for entry in fsio::read_dir(&facts, &dir, Some(root))? {
        let Some(name) = entry.name.to_str() else {
            continue;
        };
        let named =
            name.len() == 64 && name.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'));
        // A symlink or a directory here was not written by offlux.
        if !named || entry.kind != fsio::EntryKind::File {
            continue;
        }
        let Ok((bytes, stored)) = fsio::file_size_and_time(&entry.path) else {
            continue;
        };
        archives.push(CachedArchive {
            digest: format!("sha256:{name}"),
            path: entry.path,
            bytes,
            stored,
        });
    }
    archives.sort_by(|a, b| (a.stored, &a.digest).cmp(&(b.stored, &b.digest)));
    Ok(archives)
}
