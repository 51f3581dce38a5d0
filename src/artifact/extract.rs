//! The `Extract` strategy's tarball reader: a gzip-compressed tar read in memory, regular files
//! and directories only, member paths that would leave the destination refused, and a cap on the
//! unpacked size.

use std::io::Read;

/// Unpacked bytes beyond this fail the extraction (a decompression bomb stops here).
const MAX_UNPACKED: u64 = 256 * 1024 * 1024;

pub(crate) struct Member {
    /// Relative, cleaned.
    pub path: String,
    /// `None` for a directory.
    pub data: Option<Vec<u8>>,
}

/// Why a tarball could not be unpacked.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ExtractError {
    /// The gzip or tar stream is unreadable (the decoder's message).
    #[error("{0}")]
    Read(String),
    #[error("member `{0}` has an absolute path")]
    AbsolutePath(String),
    #[error("member `{0}` leaves the destination")]
    LeavesDestination(String),
    #[error("the archive unpacks to more than 256 MiB")]
    TooLarge,
}

fn read_error(error: std::io::Error) -> ExtractError {
    ExtractError::Read(error.to_string())
}

pub(super) fn members(bytes: &[u8]) -> Result<Vec<Member>, ExtractError> {
    let decoder = flate2::read::GzDecoder::new(bytes);
    let mut archive = tar::Archive::new(decoder.take(MAX_UNPACKED + 1));
    let mut out = Vec::new();
    let mut total: u64 = 0;
    for entry in archive.entries().map_err(read_error)? {
        let mut entry = entry.map_err(read_error)?;
        let raw = entry.path().map_err(read_error)?.into_owned();
        let raw = raw.to_string_lossy().replace('\\', "/");
        if raw.starts_with('/') {
            return Err(ExtractError::AbsolutePath(raw));
        }
        let Some(path) = super::clean(&raw) else {
            return Err(ExtractError::LeavesDestination(raw));
        };
        let kind = entry.header().entry_type();
        if kind.is_dir() {
            if !path.is_empty() {
                out.push(Member { path, data: None });
            }
        } else if kind.is_file() {
            let mut data = Vec::new();
            entry.read_to_end(&mut data).map_err(read_error)?;
            total += data.len() as u64;
            if total > MAX_UNPACKED {
                return Err(ExtractError::TooLarge);
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
