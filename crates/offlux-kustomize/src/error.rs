//! The engine's error: what kind of failure, where (the kustomization file and its entry, or the
//! directory), in kustomize's words where kustomize has them.

use std::path::{Path, PathBuf};

use super::options::MAX_DEPTH;

/// A failed build.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// The directory to build is not there (shown as it was given).
    #[error("'{dir}' doesn't exist")]
    MissingRoot { dir: String },
    /// A directory used as a kustomization holds no kustomization file.
    #[error("{message}")]
    NoKustomization { dir: PathBuf, message: String },
    /// A kustomization includes itself, directly or through others.
    #[error("cycle detected: '{dir}' includes itself")]
    Cycle { dir: String },
    /// Kustomizations nest deeper than [`MAX_DEPTH`].
    #[error(
        "kustomizations nest more than {MAX_DEPTH} deep at '{dir}' (included from '{parent}')"
    )]
    TooDeep { dir: String, parent: String },
    /// A kustomization directory outside the file system root.
    #[error("{message}")]
    Outside { dir: PathBuf, message: String },
    /// A problem with a kustomization file or what one of its entries names: the file (as
    /// kustomize shows it), the entry (`patches[2]`) where known.
    #[error("in kustomization {}: {}{message}", file.display(), EntryPrefix(entry.as_deref()))]
    Kustomization {
        file: PathBuf,
        entry: Option<String>,
        message: String,
    },
    /// Name references and vars, resolved once every kustomization is accumulated.
    #[error("{message}")]
    Finish { message: String },
    /// A kustomization lists a remote resource or component (a URL or a git repository), which
    /// this engine does not fetch: `kustomization` is the file that lists `url` (absolute), and
    /// `message` the build's error in kustomize's words.
    #[error("{message}")]
    Remote {
        kustomization: PathBuf,
        url: String,
        message: String,
    },
}

/// `entry: `, or nothing.
struct EntryPrefix<'a>(Option<&'a str>);

impl std::fmt::Display for EntryPrefix<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0 {
            Some(entry) => write!(f, "{entry}: "),
            None => Ok(()),
        }
    }
}

impl Error {
    /// The kustomization file the error is in, where there is one.
    pub fn file(&self) -> Option<&Path> {
        match self {
            Error::Kustomization { file, .. } => Some(file),
            _ => None,
        }
    }

    /// The remote resource the build needed, and the kustomization file that lists it, when
    /// that is why it failed.
    pub fn remote(&self) -> Option<(&Path, &str)> {
        match self {
            Error::Remote {
                kustomization, url, ..
            } => Some((kustomization, url)),
            _ => None,
        }
    }

    /// The entry of the kustomization file (`resources[0] \`base\``), where known.
    pub fn entry(&self) -> Option<&str> {
        match self {
            Error::Kustomization { entry, .. } => entry.as_deref(),
            _ => None,
        }
    }
}
