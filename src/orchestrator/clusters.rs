//! Repositories with several clusters: the clusters a path holds (`clusters_of`), and the runs of `test`, `validate`,
//! `render` and each side of `diff` at a path holding several clusters' entry points (`--path .`,
//! as pre-commit hooks run), where each cluster is discovered and reconciled on its own, from its
//! entry point: its own objects, its own `dependsOn` graph, its own "defined more than once"
//! check. What no entry point applies is not reconciled at all (the orphan checks report it).
//! `diff` pairs the two sides' clusters by entry point (`pair`).
//!
//! A path that holds no entry point, or exactly one that is the path itself, runs as it always
//! has; a path holding exactly one elsewhere (the repository root above `clusters/prod`) runs from
//! that entry point, and its output names no cluster. ConfigMaps and Secrets written in files no
//! cluster applies (a bootstrap's own) stay readable to a lookup nothing in a run answers, as the
//! run from the path would have read them (`Repository::held_data`).
//!
//! Not for: finding the entry points (`discovery::clusters`) or formatting rows (`reporting`).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::{LeftOut, Orchestrator, RunError};
use crate::budget::RunBudget;
use crate::controllers::runtime::RunReport;
use crate::diagnostic::Diagnostic;
use crate::discovery::clusters::Cluster;
use crate::discovery::{self, Repository};
use crate::selection::changed;
use crate::selection::scope::Target;

/// One cluster's run.
pub struct ClusterRun {
    /// The cluster's name when the path holds several (every row and finding names it).
    pub cluster: Option<String>,
    pub repository: Repository,
    pub report: RunReport,
    pub left_out: Option<LeftOut>,
}

impl ClusterRun {
    /// Discovery's and the run's diagnostics, each naming the cluster when there are several.
    pub fn diagnostics(&self) -> Vec<Diagnostic> {
        let mut diagnostics = self.repository.diagnostics.clone();
        diagnostics.extend(self.report.diagnostics.iter().cloned());
        if let Some(cluster) = &self.cluster {
            for diagnostic in &mut diagnostics {
                diagnostic.message = named(cluster, &diagnostic.message);
            }
        }
        diagnostics
    }
}

use crate::reporting::named;

/// The clusters `repository` (discovered at `--path`) holds, and whether the path is to be run
/// as it is: it holds no entry point, or exactly one, which is the path itself.
pub fn clusters_of(repository: &Repository) -> (Vec<Cluster>, bool) {
    let clusters = discovery::clusters::find(repository);
    let as_is = match clusters.as_slice() {
        [] => true,
        [only] => only.entry == repository.entry,
        _ => false,
    };
    (clusters, as_is)
}

/// A cluster found at the path and discovered from its entry point, not yet reconciled.
pub struct Discovered {
    /// Its entry directory, relative to the repository root (the path's own when the path
    /// holds no entry point).
    pub entry: PathBuf,
    /// Its name among the clusters the path holds.
    pub name: String,
    /// The runs' configuration, started at the entry point.
    pub orchestrator: Orchestrator,
    pub repository: Repository,
}

impl Orchestrator {
    /// Discovers each cluster the configured path holds, from its entry point, in cluster-name
    /// order, with what no cluster applies readable to each (`Repository::held_data`); the path
    /// itself as the only one when it is to be run as it is (see the module's docs).
    pub fn discover_each(&self) -> Result<Vec<Discovered>, RunError> {
        // A file the path's discovery parsed is not parsed again for its cluster.
        let this = self.sharing_parses();
        let repository = this.discover()?;
        let (clusters, as_is) = clusters_of(&repository);
        if as_is {
            let entry = repository.entry.clone();
            let name = match clusters.into_iter().next() {
                Some(only) => only.name,
                None => discovery::clusters::names(std::slice::from_ref(&entry), &repository.root)
                    .pop()
                    .unwrap_or_default(),
            };
            return Ok(vec![Discovered {
                entry,
                name,
                orchestrator: this,
                repository,
            }]);
        }
        let root = repository.root.clone();
        // Every cluster is discovered before any runs: what none of them applies is known only
        // then. They are discovered side by side; the first error in cluster order is reported.
        let found = crate::parallel::map_chunked(&clusters, 1, |cluster| {
            let orchestrator = this.at_entry(&root, &cluster.entry);
            orchestrator.discover().map(|found| (orchestrator, found))
        });
        let mut discovered = Vec::with_capacity(clusters.len());
        for (cluster, found) in clusters.into_iter().zip(found) {
            let (orchestrator, found) = found?;
            discovered.push(Discovered {
                entry: cluster.entry,
                name: cluster.name,
                orchestrator,
                repository: found,
            });
        }
        let held = held_data(&repository, discovered.iter().map(|d| &d.repository));
        for cluster in &mut discovered {
            cluster.repository.held_data = held.clone();
        }
        Ok(discovered)
    }

    /// Reconciles each cluster the path holds on its own (see the module's docs), in cluster-name
    /// order, for a command about `scope` only; one run, naming no cluster, when the path holds at
    /// most one. With `changed_since`, each is narrowed to what a change since that revision can
    /// affect (`Some(None)` for the default base; see [`Orchestrator::run_each_changed`]).
    pub fn run_each(
        &self,
        changed_since: Option<Option<&str>>,
        scope: Vec<Target>,
    ) -> Result<Vec<ClusterRun>, RunError> {
        if let Some(base) = changed_since {
            return self.run_each_changed(base);
        }
        let discovered = self.discover_each()?;
        let several = discovered.len() > 1;
        let mut runs = Vec::with_capacity(discovered.len());
        for cluster in discovered {
            let (repository, report) =
                (cluster.orchestrator).reconcile(cluster.repository, scope.clone())?;
            let cancelled = report.cancelled;
            runs.push(ClusterRun {
                cluster: several.then_some(cluster.name),
                repository,
                report,
                left_out: None,
            });
            if cancelled {
                break;
            }
        }
        Ok(runs)
    }

    /// [`Orchestrator::run_each`] narrowed to what changed since `base`: the changed files are
    /// read from git once, while the clusters are discovered, and each cluster runs what they can
    /// affect (`selection::changed`); the clusters' runs are small, so they go side by side.
    fn run_each_changed(&self, base: Option<&str>) -> Result<Vec<ClusterRun>, RunError> {
        let start = self.config.root.as_ref().unwrap_or(&self.config.path);
        // The git objects read are charged to a budget of their own, as `diff`'s revisions are.
        let git_budget = Arc::new(RunBudget::new(self.config.limits));
        let (changes, discovered) = std::thread::scope(|scope| {
            let changes =
                scope.spawn(|| changed::Changes::working_tree(start, base, Some(git_budget)));
            let discovered = self.discover_each();
            let changes = changes.join().unwrap_or_else(|_| {
                Err("--changed-only: finding the changed files failed".to_owned())
            });
            (changes, discovered)
        });
        let discovered = discovered?;
        let changes = changes.map_err(RunError::Changes)?;
        let several = discovered.len() > 1;
        let run_one = |cluster: Discovered| {
            let files = changes.under(&cluster.repository.root);
            let options = changed::SelectOptions::default();
            let selection = changed::select(&cluster.repository, &files, options);
            let (repository, report, left_out) = (cluster.orchestrator).run_selection(
                cluster.repository,
                &selection,
                &changes.base_label,
            )?;
            Ok(ClusterRun {
                cluster: several.then_some(cluster.name),
                repository,
                report,
                left_out: Some(left_out),
            })
        };
        let results = side_by_side(discovered, run_one, || {
            RunError::Setting("reconciling a cluster failed".to_owned())
        });
        let mut runs = Vec::with_capacity(results.len());
        for result in results {
            let run = result?;
            let cancelled = run.report.cancelled;
            runs.push(run);
            if cancelled {
                break;
            }
        }
        Ok(runs)
    }

    /// This configuration started at `entry` (relative to `root`) instead of its path.
    fn at_entry(&self, root: &Path, entry: &Path) -> Orchestrator {
        let mut config = self.config.clone();
        config.path = root.join(entry);
        config.root = Some(root.to_path_buf());
        self.with_config(config)
    }
}

/// `run` on each of `items` at once, each on a thread of its own, the results in the items'
/// order; `failed()` for one whose thread panicked. For clusters' narrowed runs, which are small
/// and partly serial.
pub(super) fn side_by_side<I: Send, T: Send, E: Send>(
    items: Vec<I>,
    run: impl Fn(I) -> Result<T, E> + Sync,
    failed: impl Fn() -> E,
) -> Vec<Result<T, E>> {
    std::thread::scope(|scope| {
        let running: Vec<_> = (items.into_iter())
            .map(|item| scope.spawn(|| run(item)))
            .collect();
        (running.into_iter())
            .map(|handle| handle.join().unwrap_or_else(|_| Err(failed())))
            .collect()
    })
}

/// One cluster on the two sides of a comparison (`diff`): on both, or on one only.
pub struct Paired {
    /// Its name, when either side holds several clusters (named over both sides' entry points,
    /// so a cluster keeps its name when another is added or removed).
    pub name: Option<String>,
    pub base: Option<Discovered>,
    pub head: Option<Discovered>,
}

/// Pairs the clusters of two sides by entry directory, in name order. When neither side holds
/// more than one, their single clusters are compared as one, naming none (whatever their entry
/// points: the comparison is as it was before clusters were told apart). `root` names a cluster
/// entered at the repository root.
pub fn pair(base: Vec<Discovered>, head: Vec<Discovered>, root: &Path) -> Vec<Paired> {
    if base.len() <= 1 && head.len() <= 1 {
        let (base, head) = (base.into_iter().next(), head.into_iter().next());
        if base.is_none() && head.is_none() {
            return Vec::new();
        }
        return vec![Paired {
            name: None,
            base,
            head,
        }];
    }
    let mut by_entry: std::collections::BTreeMap<
        PathBuf,
        (Option<Discovered>, Option<Discovered>),
    > = std::collections::BTreeMap::new();
    for cluster in base {
        let entry = cluster.entry.clone();
        by_entry.entry(entry).or_default().0 = Some(cluster);
    }
    for cluster in head {
        let entry = cluster.entry.clone();
        by_entry.entry(entry).or_default().1 = Some(cluster);
    }
    let entries: Vec<PathBuf> = by_entry.keys().cloned().collect();
    let names = discovery::clusters::names(&entries, root);
    let mut paired: Vec<Paired> = names
        .into_iter()
        .zip(by_entry.into_values())
        .map(|(name, (base, head))| Paired {
            name: Some(name),
            base,
            head,
        })
        .collect();
    paired.sort_by(|a, b| a.name.cmp(&b.name));
    paired
}

/// The ConfigMaps and Secrets `whole` (discovered at the path) holds in files that none of
/// `clusters` (each discovered at its entry point) reaches: a bootstrap's own, which whoever set
/// up the cluster applied.
fn held_data<'a>(
    whole: &Repository,
    clusters: impl Iterator<Item = &'a Repository>,
) -> Vec<crate::model::Object> {
    let mut reached: std::collections::BTreeSet<&Path> = std::collections::BTreeSet::new();
    for cluster in clusters {
        reached.extend(cluster.flux_objects.iter().map(|f| f.object.file.as_path()));
        reached.extend(cluster.data_objects.iter().map(|o| o.file.as_path()));
        reached.extend(cluster.patch_fragments.iter().map(|o| o.file.as_path()));
    }
    whole
        .data_objects
        .iter()
        .filter(|o| !reached.contains(o.file.as_path()))
        .cloned()
        .collect()
}
