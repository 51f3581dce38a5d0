//! Opening a file for reading that is meant to be a regular file the caller has already resolved:
//! on Unix the open itself refuses a final symlink (`O_NOFOLLOW`) and does not block on a FIFO or
//! device (`O_NONBLOCK`), so the caller's check of the opened file (`fstat`) is the one that
//! counts. Elsewhere the open is plain, and the caller checks the file's kind before opening.

use std::fs::OpenOptions;

/// Whether [`read_options`] refuses a final symlink and never blocks at open.
pub const GUARDED_OPEN: bool = cfg!(unix);

/// Options that open a file for reading, guarded where the system allows ([`GUARDED_OPEN`]).
pub fn read_options() -> OpenOptions {
    let mut open = OpenOptions::new();
    open.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        open.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
    }
    open
}
