//! The `Extract` strategy's tarball reader (fluxcd/pkg `tar.Untar`, which source-watcher's
//! builder calls): a gzip-compressed tar read in memory through [`crate::archive`], regular files
//! and directories only, member paths that would leave the destination refused, and caps on the
//! entries, the gzip members and the unpacked size. The files' bytes are charged to the run's
//! budget of bytes extracted before each is inflated.

use crate::archive;

/// Unpacked bytes beyond this fail the extraction (a decompression bomb stops here).
const MAX_UNPACKED: u64 = 256 * 1024 * 1024;
/// Entries beyond this fail the extraction: each becomes a node of the artifact's tree, so an
/// archive of empty files costs work and memory its size does not show.
pub(crate) const MAX_ENTRIES: usize = 100_000;

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
    #[error("the archive unpacks to more than {} MiB", .0 >> 20)]
    TooLarge(u64),
    #[error("the archive holds more than {0} entries (the entry limit)")]
    TooManyEntries(usize),
    #[error("the gzip stream has more than {0} members (the member limit)")]
    TooManyMembers(usize),
    /// The run's budget of bytes extracted went over at member `file`.
    #[error("member `{file}`: {exceeded}")]
    Budget {
        file: String,
        exceeded: crate::budget::Exceeded,
    },
}

impl From<archive::Error> for ExtractError {
    fn from(error: archive::Error) -> Self {
        match error {
            archive::Error::TooLarge(max) | archive::Error::FileTooLarge { max, .. } => {
                ExtractError::TooLarge(max)
            }
            archive::Error::TooManyEntries(max) => ExtractError::TooManyEntries(max),
            archive::Error::TooManyMembers(max) => ExtractError::TooManyMembers(max),
            other @ (archive::Error::NotGzip | archive::Error::Read(_)) => {
                ExtractError::Read(other.to_string())
            }
        }
    }
}

/// The members of the tarball `bytes`; their files' bytes are charged to `run`'s budget of
/// bytes extracted (`Resource::ExtractedBytes`), when there is one, before each is inflated.
pub(crate) fn members(
    bytes: &[u8],
    run: Option<&crate::budget::RunBudget>,
) -> Result<Vec<Member>, ExtractError> {
    let limits = archive::Limits {
        members: archive::MAX_MEMBERS,
        entries: MAX_ENTRIES,
        data_bytes: MAX_UNPACKED,
    };
    let reserve = |path: &str, size: u64| match run {
        Some(run) => run
            .charge(crate::budget::Resource::ExtractedBytes, size)
            .map_err(|exceeded| ExtractError::Budget {
                file: path.to_string(),
                exceeded,
            }),
        None => Ok(()),
    };
    let mut out = Vec::new();
    let read = archive::read_tar_gz(bytes, &limits, reserve, |member| {
        let raw = member.path.replace('\\', "/");
        if raw.starts_with('/') {
            return Err(ExtractError::AbsolutePath(raw));
        }
        let Some(path) = super::clean(&raw) else {
            return Err(ExtractError::LeavesDestination(raw));
        };
        match member.kind {
            archive::Kind::Dir if !path.is_empty() => out.push(Member { path, data: None }),
            archive::Kind::File => out.push(Member {
                path,
                data: Some(member.data),
            }),
            // Symlinks, devices and the rest are left out, as the archive filter does.
            archive::Kind::Dir | archive::Kind::Other => {}
        }
        Ok(())
    });
    match read {
        Ok(()) => Ok(out),
        Err(archive::Failure::Visitor(error)) => Err(error),
        Err(archive::Failure::Archive(error)) => Err(error.into()),
    }
}
