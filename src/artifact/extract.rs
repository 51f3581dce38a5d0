//! The `Extract` strategy's tarball reader: a gzip-compressed tar read in memory, regular files
//! and directories only, member paths that would leave the destination refused, and a cap on the
//! unpacked size.

use std::io::Read;

/// Unpacked bytes beyond this fail the extraction (a decompression bomb stops here).
const MAX_UNPACKED: u64 = 256 * 1024 * 1024;

pub struct Member {
    /// Relative, cleaned.
    pub path: String,
    /// `None` for a directory.
    pub data: Option<Vec<u8>>,
}

pub fn members(bytes: &[u8]) -> Result<Vec<Member>, String> {
    let decoder = flate2::read::GzDecoder::new(bytes);
    let mut archive = tar::Archive::new(decoder.take(MAX_UNPACKED + 1));
    let mut out = Vec::new();
    let mut total: u64 = 0;
    for entry in archive.entries().map_err(|e| e.to_string())? {
        let mut entry = entry.map_err(|e| e.to_string())?;
        let raw = entry.path().map_err(|e| e.to_string())?.into_owned();
        let raw = raw.to_string_lossy().replace('\\', "/");
        if raw.starts_with('/') {
            return Err(format!("member `{raw}` has an absolute path"));
        }
        let Some(path) = super::clean(&raw) else {
            return Err(format!("member `{raw}` leaves the destination"));
        };
        let kind = entry.header().entry_type();
        if kind.is_dir() {
            if !path.is_empty() {
                out.push(Member { path, data: None });
            }
        } else if kind.is_file() {
            let mut data = Vec::new();
            entry.read_to_end(&mut data).map_err(|e| e.to_string())?;
            total += data.len() as u64;
            if total > MAX_UNPACKED {
                return Err("the archive unpacks to more than 256 MiB".into());
            }
            out.push(Member {
                path,
                data: Some(data),
            });
        }
        // Symlinks, devices and the rest are left out, as the archive filter does.
    }
    Ok(out)
}
