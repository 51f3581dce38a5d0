//! The options every command that reads a repository shares.

use std::path::PathBuf;

use crate::discovery::{self, DiscoveryError, Repository};

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
