//! Creating a symbolic link, where the system has them as files do (Unix). Elsewhere links need
//! privileges or a choice between file and directory links, and none is made.

use std::path::Path;

/// Makes `link` point at `target`: `Ok(true)` when made, `Ok(false)` where this system makes none.
pub fn create(target: &str, link: &Path) -> std::io::Result<bool> {
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(target, link)?;
        Ok(true)
    }
    #[cfg(not(unix))]
    {
        let _ = (target, link);
        Ok(false)
    }
}
