//! Both sides of a comparison (`offlux diff`), reconciled: the base (a revision of the git
//! repository, by default the merge base of HEAD with the default branch, or another checkout)
//! and the head (the working tree or another revision). A revision is read from git and mounted
//! in memory behind `fsio` (`gitrev::mount`: nothing is written to disk); both sides are run with
//! the same configuration.
//!
//! At a path holding several clusters, each side finds its clusters and discovers each from its
//! entry point (`Orchestrator::discover_each`), the sides' clusters are paired by entry point
//! (`clusters::pair`), and each cluster is reconciled on each side that holds it. With
//! `changed_only`, the producers the change can affect are selected within each cluster, on
//! either side (`selection::changed`), and both of its sides narrowed to them.
//!
//! Not for: comparing the sides' objects (`crate::diff`) or writing the comparison
//! (`reporting::diff`).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::clusters::{self, Discovered};
use super::{LeftOut, Orchestrator};
use crate::controllers::runtime::RunReport;
use crate::discovery::Repository;
use crate::gitrev;
use crate::reporting::named_opt;
use crate::selection::changed;
use crate::selection::scope::Target;

/// What the base side is read from.
#[derive(Clone, Debug)]
pub enum BaseSide {
    /// A revision of the repository by name; the merge base of HEAD with the default branch
    /// when `None`.
    Revision(Option<String>),
    /// Another checkout of the repository (flux-local's `--path-orig`): its layout the same as
    /// the working tree's, the configured path and root taken relative to it. Needs no git.
    Directory(PathBuf),
}

/// A comparison to make.
#[derive(Clone, Debug)]
pub struct DiffRequest {
    pub base: BaseSide,
    /// The revision compared; the working tree (uncommitted changes included) when `None`.
    pub head: Option<String>,
    /// Only the producers the change can affect are reconciled on either side.
    pub changed_only: bool,
    /// The one producer compared (`diff ks NAME`): only what it depends on is reconciled.
    pub scope: Option<Target>,
}

/// A reconciled side of one cluster and what it was read from.
pub struct Reconciled {
    /// `base (abc1234)`, `working tree`...
    pub name: String,
    pub report: RunReport,
    /// The root the side was read under, to take out of messages.
    pub root: PathBuf,
    pub repository: Repository,
}

/// One cluster on both sides, reconciled (on one side only when the other does not hold it).
pub struct ClusterSides {
    /// Its name when the sides hold several clusters (see `clusters::pair`).
    pub cluster: Option<String>,
    pub base: Option<Reconciled>,
    pub head: Option<Reconciled>,
    /// What `changed_only` left out of this cluster's runs.
    pub left_out: Option<LeftOut>,
}

impl ClusterSides {
    /// The sides that hold the cluster.
    pub fn sides(&self) -> [Option<&Reconciled>; 2] {
        [self.base.as_ref(), self.head.as_ref()]
    }
}

/// Both sides of a comparison, cluster by cluster.
pub struct Sides {
    pub clusters: Vec<ClusterSides>,
    /// The base's name in messages: ``base `main` (abc1234)``, ``base directory `…` ``.
    pub base_name: String,
    /// The head's: `working tree`, ``head `feature` (def5678)``, `directory`.
    pub head_name: String,
    /// The working tree (or the head directory) the comparison was made in.
    pub work_tree: PathBuf,
    /// What reading the sides noted on the way (a revision's file that could not be mounted,
    /// what `changed_only` left out), each in one sentence.
    pub notes: Vec<String>,
    /// The revisions mounted in memory; unmounted when the sides are dropped.
    _mounts: Mounts,
}

/// Why a comparison could not be made.
#[derive(Debug, thiserror::Error)]
pub enum DiffError {
    /// The comparison reads revisions and the path is in no git repository.
    #[error("{message}")]
    NotGit {
        message: String,
        /// The base is a directory, so only `head` or `changed_only` needed git.
        base_is_directory: bool,
    },
    /// The base revision does not resolve.
    #[error("base: {message}")]
    Base {
        message: String,
        /// The repository's local branches (some of them), to pick one from.
        branches: Vec<String>,
    },
    /// A path, a revision or a run could not be read (the message names which).
    #[error("{0}")]
    Setting(String),
    /// A side's run was cancelled: there is nothing whole to compare.
    #[error("interrupted")]
    Cancelled,
    /// Reading the revisions went over the budget of bytes inflated: a file cut off would show
    /// as removed or added.
    #[error("reading the revisions from git: {0}")]
    OverBudget(String),
    /// The producer the comparison is scoped to is on neither side.
    #[error("no {} named `{}` on either side", .0.kinds.join("/"), .0.name.as_deref().unwrap_or_default())]
    NotFound(Target),
}

impl Orchestrator {
    /// Reconciles both sides `request` names, cluster by cluster (see the module's docs).
    pub fn diff(&self, request: &DiffRequest) -> Result<Sides, DiffError> {
        // The files the two sides hold alike are parsed once, and a revision's file that the
        // working tree holds too is not read (`ParseCache::by_content`).
        let this = &self.sharing_parses_by_content();
        let config = &this.config;
        let start = config.root.as_ref().unwrap_or(&config.path);
        // The revisions' objects, read by both sides, share one budget of bytes inflated.
        let git_budget = Arc::new(crate::budget::RunBudget::new(config.limits));
        let base_is_directory = matches!(request.base, BaseSide::Directory(_));
        let repository = match gitrev::Repository::discover(start) {
            Ok(repository) => Some(Arc::new(repository.charge_to(git_budget.clone()))),
            // Two checkouts: the head is read as the directory it is, git or not.
            Err(_) if base_is_directory && request.head.is_none() && !request.changed_only => None,
            Err(error) => {
                return Err(DiffError::NotGit {
                    message: error.to_string(),
                    base_is_directory,
                })
            }
        };
        let work_tree = match &repository {
            Some(repository) => repository.work_tree.clone(),
            None => {
                let mut options = crate::discovery::Options::new(&config.path);
                options.root = config.root.clone();
                crate::discovery::repository_root(&options)
                    .map_err(|e| DiffError::Setting(e.to_string()))?
            }
        };
        let (path, root) = this
            .relative_paths(&work_tree)
            .map_err(DiffError::Setting)?;
        let (base, base_name) = match &request.base {
            BaseSide::Directory(dir) => {
                let dir = dir.canonicalize().map_err(|e| {
                    DiffError::Setting(format!("--base-dir `{}`: {e}", dir.display()))
                })?;
                let name = format!("base directory `{}`", dir.display());
                (Base::Directory(dir), name)
            }
            BaseSide::Revision(name) => {
                let Some(repository) = &repository else {
                    return Err(DiffError::Setting(
                        "a base revision needs a git repository".to_owned(),
                    ));
                };
                let base = match name {
                    Some(name) => repository.resolve(name).map(|id| (id, name.clone())),
                    None => repository.default_base(),
                };
                let (base_id, base_ref) = base.map_err(|e| DiffError::Base {
                    message: e.to_string(),
                    branches: repository.branches(8),
                })?;
                let name = format!("base `{base_ref}` ({})", short(base_id));
                (Base::Revision(base_id, base_ref), name)
            }
        };
        let mut sides = this
            .reconcile_sides(
                (repository.as_ref(), &work_tree),
                (&base, &base_name),
                (&path, &root),
                request,
            )
            .map_err(DiffError::Setting)?;
        let cancelled = (sides.clusters.iter())
            .flat_map(ClusterSides::sides)
            .flatten()
            .any(|side| side.report.cancelled);
        if cancelled {
            return Err(DiffError::Cancelled);
        }
        let extracted = crate::budget::Resource::ExtractedBytes;
        if git_budget.used(extracted) > extracted.limit(git_budget.limits()) {
            let exceeded = crate::budget::Exceeded::new(extracted, git_budget.limits());
            let at = (repository.as_ref())
                .and_then(|repository| repository.over_budget())
                .map_or_else(String::new, |object| format!("{object}: "));
            return Err(DiffError::OverBudget(format!("{at}{exceeded}")));
        }
        if let Some(target) = &request.scope {
            let found = (sides.clusters.iter())
                .flat_map(ClusterSides::sides)
                .flatten()
                .any(|side| {
                    side.report
                        .statuses
                        .iter()
                        .any(|(id, _)| target.matches(id))
                });
            if !found {
                return Err(DiffError::NotFound(target.clone()));
            }
        }
        if sides.clusters.iter().all(|c| c.head.is_none()) {
            sides.head_name = head_label(repository.as_deref(), request.head.as_deref());
        }
        sides.base_name = base_name;
        sides.work_tree = work_tree;
        Ok(sides)
    }

    /// The configured path and root relative to the working tree, so the same places can be
    /// found in a revision mounted elsewhere.
    fn relative_paths(&self, work_tree: &Path) -> Result<(PathBuf, PathBuf), String> {
        let relative = |path: &Path| -> Result<PathBuf, String> {
            let real = path
                .canonicalize()
                .map_err(|e| format!("`{}`: {e}", path.display()))?;
            real.strip_prefix(work_tree)
                .map(Path::to_path_buf)
                .map_err(|_| {
                    format!(
                        "`{}` is not inside the working tree `{}`",
                        path.display(),
                        work_tree.display()
                    )
                })
        };
        let path = relative(&self.config.path)?;
        let root = match &self.config.root {
            Some(root) => relative(root)?,
            None => PathBuf::new(),
        };
        Ok((path, root))
    }

    /// This configuration with its path and root under `dir` (a mounted revision, another
    /// checkout) instead of the working tree.
    fn under(&self, dir: &Path, (path, root): (&Path, &Path)) -> Orchestrator {
        let mut config = self.config.clone();
        config.path = dir.join(path);
        config.root = Some(dir.join(root));
        self.with_config(config)
    }

    fn reconcile_sides(
        &self,
        (repository, work_tree): (Option<&Arc<gitrev::Repository>>, &Path),
        (base, base_name): (&Base, &str),
        paths: (&Path, &Path),
        request: &DiffRequest,
    ) -> Result<Sides, String> {
        let not_git = || "not a git repository: a revision cannot be read".to_owned();
        let head_id = match &request.head {
            Some(name) => Some((
                repository
                    .ok_or_else(not_git)?
                    .resolve(name)
                    .map_err(|error| format!("head: {error}"))?,
                name,
            )),
            None => None,
        };
        let mut notes = Vec::new();
        // Three things at once: the files changed since the base (for --changed-only), the base
        // mounted and discovered, and the head discovered. They share nothing but the parse cache
        // and the fetch memo, both made for it.
        let (changes, base_side, head) = std::thread::scope(|scope| {
            let changes = scope.spawn(|| match (base, repository) {
                (Base::Revision(base_id, base_ref), Some(repository)) if request.changed_only => {
                    changed::Changes::between(repository, *base_id, base_ref, head_id.map(|h| h.0))
                        .map(Some)
                }
                _ => Ok(None),
            });
            let base_side = scope.spawn(|| {
                let base_dir = match base {
                    Base::Revision(base_id, _) => {
                        let repository = repository.ok_or_else(not_git)?;
                        Some(mount_revision(repository, *base_id, base_name)?)
                    }
                    Base::Directory(_) => None,
                };
                let base_path = match (&base_dir, base) {
                    (Some((mount, _)), _) => mount.path().to_path_buf(),
                    (None, Base::Directory(dir)) => dir.clone(),
                    (None, Base::Revision(..)) => return Err(format!("{base_name}: not read")),
                };
                let found = (self.under(&base_path, paths).discover_each())
                    .map_err(|e| format!("{base_name}: {e}"))?;
                Ok((base_dir, found))
            });
            let head = match head_id.zip(repository) {
                Some(((id, name), repository)) => {
                    let label = format!("head `{name}` ({})", short(id));
                    mount_revision(repository, id, &label).and_then(|(dir, notes)| {
                        let found = (self.under(dir.path(), paths).discover_each())
                            .map_err(|e| format!("{label}: {e}"))?;
                        Ok((Some((dir, notes)), label, found))
                    })
                }
                None => {
                    let label = if repository.is_some() {
                        "working tree"
                    } else {
                        "directory"
                    };
                    self.discover_each()
                        .map(|found| (None, label.to_owned(), found))
                        .map_err(|e| format!("{label}: {e}"))
                }
            };
            let failed = |what: &str| format!("{what} failed");
            let changes = changes
                .join()
                .unwrap_or_else(|_| Err(failed("finding the changed files")));
            let base_side = base_side
                .join()
                .unwrap_or_else(|_| Err(failed(&format!("{base_name}: reading"))));
            (changes, base_side, head)
        });
        let changes = changes?;
        let (head_dir, head_name, head_found) = head?;
        let (base_dir, base_found) = base_side?;
        let (base_mount, head_mount) = (
            base_dir.map(|(mount, read)| {
                notes.extend(read.iter().map(|n| format!("{base_name}: {n}")));
                mount
            }),
            head_dir.map(|(mount, read)| {
                notes.extend(read.iter().map(|n| format!("{head_name}: {n}")));
                mount
            }),
        );
        let files = changes
            .as_ref()
            .map(|changes| changed::under_root(&changes.files, paths.1));
        let naming_root = work_tree.join(paths.1);
        let mut reconciled = Vec::new();
        let base_label = changes.as_ref().map_or("", |c| c.base_label.as_str());
        // One cluster: what changed selected on either side, both sides reconciled at once; a
        // side a signal cut short is reported as such, and the base is dropped when the head was
        // cut (as if never run). Whether a signal cut it.
        let one_cluster = |paired: clusters::Paired| -> Result<(ClusterSides, bool), String> {
            let selection = files.as_ref().and_then(|files| {
                let sides = [&paired.head, &paired.base];
                let failing_on_a_side: BTreeSet<PathBuf> = (sides.iter().copied().flatten())
                    .flat_map(|d| changed::failing_builds(&d.repository, files))
                    .map(Path::to_path_buf)
                    .collect();
                let select = |d: &Option<Discovered>| {
                    d.as_ref().map(|d| {
                        changed::select(
                            &d.repository,
                            files,
                            changed::SelectOptions {
                                base_objects_where_reached: true,
                                failing_on_a_side: Some(&failing_on_a_side),
                            },
                        )
                    })
                };
                match (select(&paired.head), select(&paired.base)) {
                    (Some(head), Some(base)) => Some(head.union(base)),
                    (head, base) => head.or(base),
                }
            });
            let run_side = |found: Discovered, name: &str| {
                let offlux = &found.orchestrator;
                let (repository, report, left_out) = match &selection {
                    Some(selection) => {
                        let (repository, report, left_out) =
                            offlux.run_selection(found.repository, selection, base_label)?;
                        (repository, report, Some(left_out))
                    }
                    None => {
                        let scope = request.scope.iter().cloned().collect();
                        let (repository, report) = offlux.reconcile(found.repository, scope)?;
                        (repository, report, None)
                    }
                };
                Ok::<_, super::RunError>((
                    Reconciled {
                        name: name.to_owned(),
                        report,
                        root: repository.root.clone(),
                        repository,
                    },
                    left_out,
                ))
            };
            let label = |side: &str| named_opt(paired.name.as_deref(), side);
            // The two sides are reconciled at once; a side a signal cut short is reported as
            // such, and the base is dropped when the head was cut (as if never run).
            let (head, base) = std::thread::scope(|scope| {
                let base = (paired.base).map(|found| scope.spawn(|| run_side(found, base_name)));
                let head = (paired.head).map(|found| run_side(found, &head_name));
                let base = base.map(|running| {
                    running.join().unwrap_or_else(|_| {
                        Err(super::RunError::Setting(format!(
                            "{base_name}: the reconcile failed"
                        )))
                    })
                });
                (head, base)
            });
            let (head, head_left_out) = match head {
                Some(result) => {
                    let (side, left_out) =
                        result.map_err(|e| format!("{}: {e}", label(&head_name)))?;
                    (Some(side), left_out)
                }
                None => (None, None),
            };
            let cancelled = head.as_ref().is_some_and(|h| h.report.cancelled);
            let (base, base_left_out) = match base {
                Some(result) if !cancelled => {
                    let (side, left_out) =
                        result.map_err(|e| format!("{}: {e}", label(base_name)))?;
                    (Some(side), left_out)
                }
                _ => (None, None),
            };
            let left_out = head_left_out.or(base_left_out);
            let cancelled = cancelled || base.as_ref().is_some_and(|b| b.report.cancelled);
            Ok((
                ClusterSides {
                    cluster: paired.name,
                    base,
                    head,
                    left_out,
                },
                cancelled,
            ))
        };
        let paired = clusters::pair(base_found, head_found, &naming_root);
        // With --changed-only each cluster's runs are small and partly serial (the selection), so
        // the clusters are reconciled side by side; a whole diff takes them one after another, to
        // hold one cluster's charts and tables at a time.
        let results: Vec<Result<(ClusterSides, bool), String>> = if files.is_some() {
            clusters::side_by_side(paired, one_cluster, || {
                "reconciling a cluster failed".to_owned()
            })
        } else {
            let mut results = Vec::new();
            for paired in paired {
                let result = one_cluster(paired);
                let stop = result.as_ref().map_or(true, |(_, cancelled)| *cancelled);
                results.push(result);
                if stop {
                    break;
                }
            }
            results
        };
        for result in results {
            let (sides, cancelled) = result?;
            if let Some(left_out) = &sides.left_out {
                notes.push(named_opt(sides.cluster.as_deref(), &left_out.sentence()));
            }
            reconciled.push(sides);
            if cancelled {
                break;
            }
        }
        Ok(Sides {
            clusters: reconciled,
            base_name: base_name.to_owned(),
            head_name,
            work_tree: work_tree.to_path_buf(),
            notes,
            _mounts: Mounts {
                _base: base_mount,
                _head: head_mount,
            },
        })
    }
}

/// The revisions mounted in memory for the comparison: unmounted when dropped.
struct Mounts {
    _base: Option<crate::fsio::Mount>,
    _head: Option<crate::fsio::Mount>,
}

/// The base side, resolved.
enum Base {
    /// A revision of the repository, and the name it was given by.
    Revision(gitrev::ObjectId, String),
    /// Another checkout.
    Directory(PathBuf),
}

/// The head's name in messages, when no cluster of it was reconciled.
fn head_label(repository: Option<&gitrev::Repository>, head: Option<&str>) -> String {
    match (head, repository) {
        (None, None) => "directory".to_owned(),
        (Some(name), None) => format!("head `{name}`"),
        (Some(name), Some(repository)) => match repository.resolve(name) {
            Ok(id) => format!("head `{name}` ({})", short(id)),
            Err(_) => format!("head `{name}`"),
        },
        (None, Some(_)) => "working tree".to_owned(),
    }
}

fn short(id: gitrev::ObjectId) -> String {
    id.to_string().chars().take(12).collect()
}

/// Mounts a revision in memory behind `fsio` (`gitrev::mount`), at a path under the standard
/// temporary directory that is never created: nothing of the revision is written. Returns what
/// reading it noted too.
fn mount_revision(
    repository: &Arc<gitrev::Repository>,
    commit: gitrev::ObjectId,
    name: &str,
) -> Result<(crate::fsio::Mount, Vec<String>), String> {
    let parent = crate::fsio::absolute(&std::env::temp_dir());
    gitrev::mount(repository.clone(), commit, &parent, &short(commit))
        .map_err(|e| format!("{name}: {e}"))
}
