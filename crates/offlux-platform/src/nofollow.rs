//! Working inside a directory one component at a time without following a symbolic link: a
//! [`Dir`] is an open directory, and every step below it (opening a subdirectory, making one,
//! removing or renaming an entry, reading a file) names one entry of it and never follows a link
//! there. On Unix each step is a system call relative to the open directory (`openat` with
//! `O_NOFOLLOW | O_DIRECTORY`, `mkdirat`, `unlinkat`, `renameat`, `fstatat` with
//! `AT_SYMLINK_NOFOLLOW`), so a link swapped in between two steps is not followed either.
//! Elsewhere a `Dir` is a path, and each step first checks the entry with `symlink_metadata`:
//! what remains racy there is a link put in place between that check and the step itself.

use std::io::{Error, ErrorKind};
use std::path::{Path, PathBuf};

/// What an entry is, links not followed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    File,
    Directory,
    Symlink,
    Other,
}

/// An open directory (Unix) or a checked path (elsewhere).
#[derive(Debug)]
pub struct Dir {
    path: PathBuf,
    #[cfg(unix)]
    fd: std::os::fd::OwnedFd,
}

/// `name` as one plain component, or an error: steps never take a path.
fn one_component(name: &str) -> std::io::Result<&str> {
    if name.is_empty() || name == "." || name == ".." || name.contains(['/', '\\', '\0']) {
        return Err(Error::new(
            ErrorKind::InvalidInput,
            format!("`{name}` is not one path component"),
        ));
    }
    Ok(name)
}

#[cfg(unix)]
mod sys {
    use std::ffi::CString;
    use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

    pub(super) fn c_name(name: &str) -> std::io::Result<CString> {
        CString::new(super::one_component(name)?)
            .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e))
    }

    pub(super) fn check(result: libc::c_int) -> std::io::Result<libc::c_int> {
        if result < 0 {
            Err(std::io::Error::last_os_error())
        } else {
            Ok(result)
        }
    }

    pub(super) fn open_at(
        dir: &OwnedFd,
        name: &str,
        flags: libc::c_int,
    ) -> std::io::Result<OwnedFd> {
        let name = c_name(name)?;
        // SAFETY: a valid directory descriptor and a NUL-terminated name; the descriptor
        // returned is owned by the `OwnedFd` made from it.
        let fd = check(unsafe {
            libc::openat(
                dir.as_raw_fd(),
                name.as_ptr(),
                flags | libc::O_NOFOLLOW | libc::O_CLOEXEC,
            )
        })?;
        // SAFETY: `fd` was just opened and is owned by nothing else.
        Ok(unsafe { OwnedFd::from_raw_fd(fd) })
    }
}

impl Dir {
    /// Opens the directory `path` itself (which the caller named: a link there is followed).
    pub fn open(path: &Path) -> std::io::Result<Dir> {
        #[cfg(unix)]
        {
            let file = std::fs::File::open(path)?;
            if !file.metadata()?.is_dir() {
                return Err(Error::from(ErrorKind::NotADirectory));
            }
            Ok(Dir {
                path: path.to_path_buf(),
                fd: file.into(),
            })
        }
        #[cfg(not(unix))]
        {
            if !std::fs::metadata(path)?.is_dir() {
                return Err(Error::from(ErrorKind::NotADirectory));
            }
            Ok(Dir {
                path: path.to_path_buf(),
            })
        }
    }

    /// The path this directory was reached by, for messages.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// What entry `name` is, a link not followed; `NotFound` when there is none.
    pub fn kind(&self, name: &str) -> std::io::Result<Kind> {
        #[cfg(unix)]
        {
            use std::os::fd::AsRawFd;
            let c_name = sys::c_name(name)?;
            // SAFETY: `stat` is plain data that fstatat fills; the name is NUL-terminated.
            let mode = unsafe {
                let mut stat: libc::stat = std::mem::zeroed();
                sys::check(libc::fstatat(
                    self.fd.as_raw_fd(),
                    c_name.as_ptr(),
                    &mut stat,
                    libc::AT_SYMLINK_NOFOLLOW,
                ))?;
                stat.st_mode
            };
            Ok(match mode & libc::S_IFMT {
                libc::S_IFLNK => Kind::Symlink,
                libc::S_IFDIR => Kind::Directory,
                libc::S_IFREG => Kind::File,
                _ => Kind::Other,
            })
        }
        #[cfg(not(unix))]
        {
            let meta = std::fs::symlink_metadata(self.path.join(one_component(name)?))?;
            let t = meta.file_type();
            Ok(if t.is_symlink() {
                Kind::Symlink
            } else if t.is_dir() {
                Kind::Directory
            } else if t.is_file() {
                Kind::File
            } else {
                Kind::Other
            })
        }
    }

    /// Opens subdirectory `name`, refusing a link there (an error naming it).
    pub fn open_child(&self, name: &str) -> std::io::Result<Dir> {
        let path = self.path.join(one_component(name)?);
        #[cfg(unix)]
        {
            match sys::open_at(&self.fd, name, libc::O_RDONLY | libc::O_DIRECTORY) {
                Ok(fd) => Ok(Dir { path, fd }),
                // O_NOFOLLOW on a link gives ELOOP (or ENOTDIR with O_DIRECTORY on some
                // systems): say what it is.
                Err(error) if self.kind(name).ok() == Some(Kind::Symlink) => {
                    let _ = error;
                    Err(symlink_refused(&path))
                }
                Err(error) => Err(error),
            }
        }
        #[cfg(not(unix))]
        {
            match self.kind(name)? {
                Kind::Symlink => Err(symlink_refused(&path)),
                Kind::Directory => Ok(Dir { path }),
                _ => Err(Error::from(ErrorKind::NotADirectory)),
            }
        }
    }

    /// Opens subdirectory `name`, making it first when there is none.
    pub fn open_or_create_child(&self, name: &str) -> std::io::Result<Dir> {
        match self.kind(name) {
            Err(error) if error.kind() == ErrorKind::NotFound => self.create_dir(name)?,
            Err(error) => return Err(error),
            Ok(_) => {}
        }
        self.open_child(name)
    }

    fn create_dir(&self, name: &str) -> std::io::Result<()> {
        #[cfg(unix)]
        {
            use std::os::fd::AsRawFd;
            let c_name = sys::c_name(name)?;
            // SAFETY: a valid directory descriptor and a NUL-terminated name.
            match sys::check(unsafe { libc::mkdirat(self.fd.as_raw_fd(), c_name.as_ptr(), 0o777) })
            {
                Ok(_) => Ok(()),
                Err(error) if error.kind() == ErrorKind::AlreadyExists => Ok(()),
                Err(error) => Err(error),
            }
        }
        #[cfg(not(unix))]
        {
            match std::fs::create_dir(self.path.join(one_component(name)?)) {
                Err(error) if error.kind() == ErrorKind::AlreadyExists => Ok(()),
                other => other,
            }
        }
    }

    /// Removes entry `name` (a file, or a link itself: never what a link points at).
    pub fn remove_file(&self, name: &str) -> std::io::Result<()> {
        #[cfg(unix)]
        {
            use std::os::fd::AsRawFd;
            let c_name = sys::c_name(name)?;
            // SAFETY: a valid directory descriptor and a NUL-terminated name.
            sys::check(unsafe { libc::unlinkat(self.fd.as_raw_fd(), c_name.as_ptr(), 0) })
                .map(|_| ())
        }
        #[cfg(not(unix))]
        {
            std::fs::remove_file(self.path.join(one_component(name)?))
        }
    }

    /// Removes subdirectory `name` if it is empty.
    pub fn remove_empty_dir(&self, name: &str) -> std::io::Result<()> {
        #[cfg(unix)]
        {
            use std::os::fd::AsRawFd;
            let c_name = sys::c_name(name)?;
            // SAFETY: a valid directory descriptor and a NUL-terminated name.
            sys::check(unsafe {
                libc::unlinkat(self.fd.as_raw_fd(), c_name.as_ptr(), libc::AT_REMOVEDIR)
            })
            .map(|_| ())
        }
        #[cfg(not(unix))]
        {
            match self.kind(name)? {
                Kind::Directory => std::fs::remove_dir(self.path.join(name)),
                _ => Err(Error::from(ErrorKind::NotADirectory)),
            }
        }
    }

    /// Moves entry `name` of this directory to `to_name` in `to`, replacing what is there (a link
    /// there is replaced, not followed).
    pub fn rename(&self, name: &str, to: &Dir, to_name: &str) -> std::io::Result<()> {
        #[cfg(unix)]
        {
            use std::os::fd::AsRawFd;
            let (from, target) = (sys::c_name(name)?, sys::c_name(to_name)?);
            // SAFETY: valid directory descriptors and NUL-terminated names.
            sys::check(unsafe {
                libc::renameat(
                    self.fd.as_raw_fd(),
                    from.as_ptr(),
                    to.fd.as_raw_fd(),
                    target.as_ptr(),
                )
            })
            .map(|_| ())
        }
        #[cfg(not(unix))]
        {
            std::fs::rename(
                self.path.join(one_component(name)?),
                to.path.join(one_component(to_name)?),
            )
        }
    }

    /// The bytes of file `name`, refusing a link there.
    pub fn read_file(&self, name: &str) -> std::io::Result<Vec<u8>> {
        use std::io::Read;
        #[cfg(unix)]
        let mut file = std::fs::File::from(sys::open_at(
            &self.fd,
            name,
            libc::O_RDONLY | libc::O_NONBLOCK,
        )?);
        #[cfg(not(unix))]
        let mut file = match self.kind(name)? {
            Kind::File => std::fs::File::open(self.path.join(name))?,
            _ => return Err(Error::from(ErrorKind::InvalidInput)),
        };
        if !file.metadata()?.is_file() {
            return Err(Error::new(ErrorKind::InvalidInput, "not a regular file"));
        }
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes)?;
        Ok(bytes)
    }
}

fn symlink_refused(path: &Path) -> Error {
    Error::new(
        ErrorKind::InvalidInput,
        format!("`{}` is a symbolic link; not followed", path.display()),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn no_step_follows_a_link() {
        let outer = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let victim = outer.path().join("victim");
        std::fs::create_dir_all(victim.join("x")).unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(victim.join("x/y"), "keep").unwrap_or_else(|e| panic!("{e}"));
        let dir = outer.path().join("dir");
        std::fs::create_dir(&dir).unwrap_or_else(|e| panic!("{e}"));
        std::os::unix::fs::symlink(&victim, dir.join("link")).unwrap_or_else(|e| panic!("{e}"));
        let open = Dir::open(&dir).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(open.kind("link").ok(), Some(Kind::Symlink));
        assert!(open.open_child("link").is_err());
        assert!(open.open_or_create_child("link").is_err());
        assert!(open.read_file("link").is_err());
        assert!(open.remove_empty_dir("link").is_err());
        assert!(open.open_child("../victim").is_err());
        // Removing the link removes the link alone.
        open.remove_file("link").unwrap_or_else(|e| panic!("{e}"));
        assert!(victim.join("x/y").is_file());
    }
}
