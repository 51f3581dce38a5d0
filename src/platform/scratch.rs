//! A memory-backed directory for short-lived files: Linux's shared-memory file system. A
//! revision written out for `offlux diff` is thousands of small files written, read once and
//! removed; on a disk file system creating and removing their inodes costs more than reconciling
//! them. Elsewhere: none, and the caller uses the system's temporary directory.

use std::path::PathBuf;

/// A memory-backed directory that exists on this system, if there is one.
pub(crate) fn memory_backed_dir() -> Option<PathBuf> {
    if !cfg!(target_os = "linux") {
        return None;
    }
    let shm = PathBuf::from("/dev/shm");
    shm.is_dir().then_some(shm)
}
