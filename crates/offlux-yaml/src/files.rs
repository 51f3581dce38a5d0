//! Parsed YAML files by path, filled once and then shared read-only across threads, so a file that
//! discovery read is not parsed again by every kustomize build that includes it.
//!
//! Only files that parsed cleanly with the default limits are kept: a reader that finds nothing
//! here reads and parses the file itself, and reports its own errors in its own words.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::node::Document;

/// Keyed by the path's bytes: `Path`'s own hash walks its components, which cost more than the
/// lookup itself. Paths are looked up as they were recorded (absolute, normalised); another
/// spelling of the same path only misses, and the reader then parses the file itself.
#[derive(Debug, Default)]
pub struct ParsedFiles {
    by_path: foldhash::HashMap<Box<[u8]>, Arc<[Document]>>,
}

impl ParsedFiles {
    /// A table with room for `files` files.
    pub fn with_capacity(files: usize) -> Self {
        ParsedFiles {
            by_path: foldhash::HashMap::with_capacity_and_hasher(files, Default::default()),
        }
    }

    /// Records the documents of `path` (an absolute path, as it will be looked up).
    pub fn insert(&mut self, path: PathBuf, documents: Arc<[Document]>) {
        self.by_path
            .insert(path.into_os_string().into_encoded_bytes().into(), documents);
    }

    /// The documents of `path`, as parsed with the default [`super::ParseOptions`].
    pub fn get(&self, path: &Path) -> Option<&Arc<[Document]>> {
        self.by_path.get(path.as_os_str().as_encoded_bytes())
    }

    pub fn len(&self) -> usize {
        self.by_path.len()
    }

    pub fn is_empty(&self) -> bool {
        self.by_path.is_empty()
    }
}
