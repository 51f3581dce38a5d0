//! The options every command that reads a repository shares.

use std::path::{Path, PathBuf};

use super::exit::CliError;
use crate::discovery::{self, DiscoveryError, Repository};
use crate::model::FluxKind;

#[derive(clap::Args, Debug, Clone)]
pub struct RepoArgs {
    /// The repository, or a directory inside it to start from (such as a cluster's directory).
    #[arg(long, default_value = ".")]
    pub path: PathBuf,
    /// The repository root that `spec.path` values are relative to [default: the nearest ancestor
    /// of `--path` holding `.git`, else `--path`].
    #[arg(long)]
    pub root: Option<PathBuf>,
}

impl RepoArgs {
    pub fn discover(&self) -> Result<Repository, DiscoveryError> {
        let mut options = discovery::Options::new(&self.path);
        options.root = self.root.clone();
        discovery::discover(&options)
    }
}

/// A Flux verb (`test`, `validate`, `render`, `build`, `get`, `graph`) at a `--path` that holds no
/// Flux object has nothing to reconcile: most likely the path is wrong, so it is a usage error
/// rather than "0 objects" and success. (`diff` is not asked: a revision before Flux was added
/// is a fair side of a diff.)
pub(crate) fn require_flux_objects(repository: &Repository, path: &Path) -> Result<(), CliError> {
    // A Flux object too malformed to keep has its own located error, which says more.
    let malformed = repository
        .diagnostics
        .iter()
        .any(|d| d.severity == crate::diagnostic::Severity::Error);
    if !repository.flux_objects.is_empty() || malformed {
        return Ok(());
    }
    let kinds: Vec<&str> = FluxKind::ALL.iter().map(|k| k.as_str()).collect();
    // A file that did not read may be where the objects were: say so first (a duplicate key, a
    // tab in indentation), as the run would have.
    let unread: Vec<String> = repository
        .diagnostics
        .iter()
        .filter(|d| d.severity == crate::diagnostic::Severity::Warning && d.location.is_some())
        .take(3)
        .map(ToString::to_string)
        .collect();
    let unread = if unread.is_empty() {
        String::new()
    } else {
        format!("; what did not read there: {}", unread.join("; "))
    };
    Err(CliError::usage(
        format!(
            "no Flux object under `{}` (looked for {} in every YAML file Flux would read there){unread}",
            path.display(),
            kinds.join(", ")
        ),
        Some("point `--path` at a cluster's directory (the one holding its `flux-system` Kustomization) or at the repository root"),
    ))
}
