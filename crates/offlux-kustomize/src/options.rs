//! The build's options and its result: what a caller hands `build` and what it gets back.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use super::PatchTexts;
use offlux_fs::facts::FsFacts;
use offlux_yaml::{Node, ParsedFiles};

/// The names a kustomization file may have, in kustomize's order of precedence.
pub const KUSTOMIZATION_FILE_NAMES: [&str; 3] =
    ["kustomization.yaml", "kustomization.yml", "Kustomization"];

/// Which files a kustomization may read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LoadRestrictor {
    /// Files (resources, patches, generator inputs) must lie in or below the kustomization's own
    /// directory; symlinks are resolved before the check.
    #[default]
    RootOnly,
    /// Any file may be read.
    None,
}

/// The order of the output.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Reorder {
    /// kustomize's legacy order: by kind (namespaces first, webhooks last), then by id.
    #[default]
    Legacy,
    /// Input order.
    None,
}

/// Build options (the flags of `kustomize build` that matter offline).
#[derive(Clone, Debug)]
pub struct Options {
    pub load_restrictor: LoadRestrictor,
    pub reorder: Reorder,
    /// Adds `app.kubernetes.io/managed-by: <managed_by>` to every object.
    pub add_managed_by_label: bool,
    /// The value of the managed-by label (`kustomize-v5.5.0`, as the kustomize we follow).
    pub managed_by: String,
    /// A directory that stands for the file system's root, as kustomize's in-memory file system:
    /// paths in error messages are shown relative to it as absolute paths (`/base/x.yaml`),
    /// absolute entries start there and `..` does not climb above it.
    pub display_root: Option<PathBuf>,
    /// No file outside this directory is read, whatever the load restrictor says (Flux builds with
    /// `LoadRestrictionsNone` but never outside the source's root). Symlinks are resolved first.
    pub fs_root: Option<PathBuf>,
    /// A kustomization to use for one directory in place of the file on disk (or where there is
    /// none): how a caller builds a generated or rewritten kustomization without writing it.
    pub kustomization_override: Option<(PathBuf, Node)>,
    /// Files already parsed (by absolute path), read from here instead of from disk. The load
    /// restrictor and the file system root are checked all the same.
    pub parsed_files: Option<Arc<ParsedFiles>>,
    /// Symlink resolutions and file kinds; builds that share one table ask about each path once.
    pub fs_facts: Arc<FsFacts>,
    /// Patch texts already parsed; builds that share one table parse each text once.
    pub patch_texts: Arc<PatchTexts>,
    /// Values for an env file's bare keys (a line `KEY` with no `=`), which kustomize takes from
    /// its own process environment. `None`: no value comes from any environment; such keys are
    /// left out and listed in [`Build::env_keys_left_out`].
    pub process_env: Option<Arc<BTreeMap<String, String>>>,
    /// The run whose budget of alias expansion the files a build reads itself are charged to.
    pub budget: Option<Arc<offlux_budget::RunBudget>>,
}

/// How deep kustomizations may nest (resources, components, generator directories): far deeper
/// than any repository goes, shallow enough that the recursion stays well inside a thread's stack.
pub const MAX_DEPTH: usize = 100;

/// An env file's bare key left out because no process environment was given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EnvKeyLeftOut {
    /// The env file, as the build resolved it.
    pub file: PathBuf,
    /// 1-based.
    pub line: usize,
    pub key: String,
}

/// The result of a build.
#[derive(Clone, Debug, Default)]
pub struct Build {
    pub objects: Vec<Node>,
    /// For each object, the file it was read from, or the file whose generator made it (absolute,
    /// as the build resolved it), where known.
    pub origins: Vec<Option<PathBuf>>,
    /// Warnings that do not stop the build (deprecated fields), in the order met.
    pub diagnostics: Vec<String>,
    /// Env file keys that would have taken their value from the process environment.
    pub env_keys_left_out: Vec<EnvKeyLeftOut>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            load_restrictor: LoadRestrictor::default(),
            reorder: Reorder::default(),
            add_managed_by_label: false,
            managed_by: "kustomize-v5.5.0".into(),
            display_root: None,
            fs_root: None,
            kustomization_override: None,
            parsed_files: None,
            fs_facts: Arc::default(),
            patch_texts: Arc::default(),
            process_env: None,
            budget: None,
        }
    }
}
