//! The engine's error: the kustomization file, the offending entry and what went wrong.

use std::fmt;
use std::path::PathBuf;

/// A failed build: the kustomization file, the offending entry and what went wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    pub file: Option<PathBuf>,
    pub entry: Option<String>,
    pub message: String,
}

impl Error {
    pub(super) fn msg(message: impl Into<String>) -> Self {
        Error {
            file: None,
            entry: None,
            message: message.into(),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(file) = &self.file {
            write!(f, "in kustomization {}: ", file.display())?;
        }
        if let Some(entry) = &self.entry {
            write!(f, "{entry}: ")?;
        }
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}
