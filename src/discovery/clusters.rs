//! The clusters a path holds: the entry points of the repository's apply graph, one per cluster.
//!
//! Flux applies a repository from the directory a bootstrap syncs (`flux bootstrap` writes
//! `clusters/<name>/flux-system/gotk-sync.yaml`, whose `flux-system` Kustomization applies
//! `./clusters/<name>`; a FluxInstance's `spec.sync.path` does the same; home-ops layouts keep a
//! `cluster` Kustomization in `kubernetes/<cluster>/flux`). Everything else is applied because an
//! applier's path leads to it. An *applier* here is a Flux object whose path discovery follows in
//! this working tree (a Kustomization's `spec.path`, a FluxInstance's `spec.sync.path`).
//!
//! An applier covers the files under its path and, through kustomizations' inputs from elsewhere
//! and the appliers found there, everything those lead to (the same walk discovery makes). The
//! roots of that graph are the appliers nothing else covers, or a ring of appliers covering each
//! other (the bootstrap Kustomization applies the directory that defines it). Each root group is
//! one cluster, entered at:
//!
//! - a ring's bootstrap path (a `flux-system` Kustomization's or a FluxInstance's), else the
//!   shortest path among the ring's members;
//! - otherwise the directory of the file that defines the root applier (`kubernetes/flux/cluster`
//!   for a `cluster-apps` Kustomization nothing applies).
//!
//! This mirrors how flux-local's `make_clusters` finds clusters (the Kustomizations no other
//! Kustomization's path holds), with discovery's own walk in place of directory prefixes.
//!
//! Not for: running anything. Files no cluster covers are orphans (see `cli::orphans`).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Component, Path, PathBuf};

use super::paths::PathKey;
use crate::model::{FluxKind, FluxObject};

/// One step of discovery's walk: `from` (a file) leads to `to` (a directory or file).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Applies {
    pub from: PathBuf,
    pub to: PathBuf,
    /// How: a kustomization's input from elsewhere, a Flux object's followed path, or a
    /// bootstrap's (a `flux-system` Kustomization's or a FluxInstance's).
    pub via: Via,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Via {
    Input,
    Applier,
    Bootstrap,
}

/// How `object`'s followed path leads on: a bootstrap's or an ordinary applier's.
pub(crate) fn via_of(object: &FluxObject) -> Via {
    let bootstrap = object.kind == FluxKind::FluxInstance
        || (object.kind == FluxKind::Kustomization && object.name() == super::BOOTSTRAP_NAME);
    if bootstrap {
        Via::Bootstrap
    } else {
        Via::Applier
    }
}

/// A cluster of the repository.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cluster {
    /// Derived from the entry directory (see [`names`]).
    pub name: String,
    /// The entry directory, relative to the repository root (empty: the root).
    pub entry: PathBuf,
}

/// The clusters whose entry points `repository` (discovered at a path) holds, by name. Empty
/// when no applier is written there.
pub fn find(repository: &super::Repository) -> Vec<Cluster> {
    let mut applies = repository.applies.clone();
    applies.extend(bootstrap_files(&repository.yaml_files));
    applies.sort();
    applies.dedup();
    // The Flux objects each file defines, by absolute path: a listing of several clusters'
    // roots names the same objects twice (each cluster's `apps`, `flux-system`).
    let mut defined: BTreeMap<PathBuf, Vec<&crate::model::ResourceId>> = BTreeMap::new();
    for flux in &repository.flux_objects {
        (defined
            .entry(repository.root.join(&flux.object.file))
            .or_default())
        .push(&flux.object.id);
    }
    let defined_in = |file: &Path| defined.get(file).cloned().unwrap_or_default();
    let relative: Vec<PathBuf> = entry_points(&applies, &repository.root, &defined_in)
        .iter()
        .filter(|e| e.starts_with(repository.root.join(&repository.entry)))
        .map(|e| super::paths::relative_to(e, &repository.root))
        .collect();
    let names = names(&relative, &repository.root);
    let mut clusters: Vec<Cluster> = names
        .into_iter()
        .zip(relative)
        .map(|(name, entry)| Cluster { name, entry })
        .collect();
    clusters.sort_by(|a, b| (&a.name, &a.entry).cmp(&(&b.name, &b.entry)));
    clusters
}

/// `flux bootstrap`'s sync file, `<dir>/flux-system/gotk-sync.yaml`: the bootstrap applies
/// `<dir>`, whether or not the file holds the sync objects (the example repositories keep it as a
/// placeholder). `gotk-components.yaml` alone installs the controllers and applies nothing.
fn bootstrap_files(files: &[PathBuf]) -> Vec<Applies> {
    files
        .iter()
        .filter(|file| file.file_name().is_some_and(|n| n == "gotk-sync.yaml"))
        .filter_map(|file| {
            let flux_system = file.parent()?;
            if flux_system.file_name()? != super::BOOTSTRAP_NAME {
                return None;
            }
            Some(Applies {
                from: file.clone(),
                to: flux_system.parent()?.to_path_buf(),
                via: Via::Bootstrap,
            })
        })
        .collect()
}

/// The entry directories (absolute, sorted, distinct).
fn entry_points<'a>(
    applies: &[Applies],
    root: &Path,
    defined_in: &dyn Fn(&Path) -> Vec<&'a crate::model::ResourceId>,
) -> BTreeSet<PathBuf> {
    // `applies` is sorted by `from`, so a directory's steps are contiguous.
    let appliers: Vec<&Applies> = applies.iter().filter(|a| a.via != Via::Input).collect();
    let steps = Steps::of(applies, &appliers);
    let covered: Vec<BTreeSet<usize>> = appliers
        .iter()
        .map(|applier| steps.covered_appliers(&PathKey::of(&applier.to)))
        .collect();
    let mut entries = BTreeSet::new();
    // Appliers nothing applies: each file's directory, the directories above it whose
    // kustomization files list it, and what it applies.
    let mut unreached: Vec<(&Path, Vec<&Path>, &Path, &Path)> = Vec::new();
    for (index, applier) in appliers.iter().enumerate() {
        let reached_by: Vec<usize> = (0..appliers.len())
            .filter(|&other| covered[other].contains(&index))
            .collect();
        // Covered by an applier it does not cover in turn: not a root.
        if reached_by
            .iter()
            .any(|&other| !covered[index].contains(&other))
        {
            continue;
        }
        if reached_by.is_empty() {
            if let Some(own) = applier.from.parent() {
                unreached.push((
                    own,
                    listing_directories(&applier.from, applies),
                    &applier.to,
                    &applier.from,
                ));
            }
            continue;
        }
        // A ring (reached_by includes the applier itself): every member lists the same ring, so
        // each picks the same representative. A ring is a cluster when a bootstrap is in it or it
        // applies more appliers than its own members (a self-managing `flux-cluster`
        // Kustomization); a Kustomization that applies its own directory and nothing that
        // applies further, which nothing else applies, is an orphan.
        let ring = reached_by.iter().map(|&i| appliers[i]);
        let bootstrap = ring.clone().any(|a| a.via == Via::Bootstrap);
        let applies_beyond = covered[index].iter().any(|i| !reached_by.contains(i));
        if !bootstrap && !applies_beyond {
            continue;
        }
        let chosen = ring.min_by_key(|a| {
            (
                a.via != Via::Bootstrap,
                a.to.components().count(),
                a.to.clone(),
            )
        });
        if let Some(chosen) = chosen {
            entries.insert(chosen.to.clone());
        }
    }
    // A listing is taken as what the bootstrap builds when it is not the repository's top (which
    // kustomization files list for tooling as often as for Flux) and lists one cluster's
    // appliers: those of one directory, or appliers that each apply only what lies under the
    // listing and name distinct objects (a namespace's directory listing its apps'
    // Kustomizations, as `cluster-apps` builds it). A listing of appliers in several directories
    // that apply elsewhere (each cluster's root applying a shared tree), or that define the same
    // object twice (each cluster's `apps`: kustomize refuses such a build), lists clusters: each
    // enters at its own directory.
    let mut listings: BTreeMap<&Path, BTreeSet<&Path>> = BTreeMap::new();
    let mut not_one_cluster: BTreeSet<&Path> = BTreeSet::new();
    let mut defined_under: BTreeMap<&Path, BTreeMap<&crate::model::ResourceId, &Path>> =
        BTreeMap::new();
    for (own, above, to, from) in &unreached {
        let ids = defined_in(from);
        for dir in above {
            listings.entry(dir).or_default().insert(own);
            if !to.starts_with(dir) {
                not_one_cluster.insert(dir);
            }
            let seen = defined_under.entry(dir).or_default();
            for id in &ids {
                if seen.insert(id, own).is_some_and(|other| other != *own) {
                    not_one_cluster.insert(dir);
                }
            }
        }
    }
    for (own, above, _, _) in &unreached {
        let highest = above.iter().find(|dir| {
            **dir != root
                && listings
                    .get(*dir)
                    .is_some_and(|owns| owns.len() == 1 || !not_one_cluster.contains(*dir))
        });
        entries.insert(highest.copied().unwrap_or(own).to_path_buf());
    }
    entries
}

/// The directories above `file` (a root applier's) whose kustomization files list it, directly
/// or through the kustomizations they list, highest first.
fn listing_directories<'a>(file: &'a Path, applies: &'a [Applies]) -> Vec<&'a Path> {
    let Some(own) = file.parent() else {
        return Vec::new();
    };
    let mut listing: BTreeSet<&Path> = BTreeSet::from([file]);
    let mut pending: Vec<&Path> = vec![file];
    while let Some(listed) = pending.pop() {
        // A kustomization file is listed through its directory.
        let as_directory = super::is_kustomization_file(listed)
            .then(|| listed.parent())
            .flatten();
        let inputs = applies.iter().filter(|step| step.via == Via::Input);
        for step in inputs {
            let leads_here = step.to == listed || as_directory.is_some_and(|d| step.to == d);
            if leads_here && listing.insert(&step.from) {
                pending.push(&step.from);
            }
        }
    }
    let mut above: Vec<&Path> = listing
        .iter()
        .filter(|&&listed| listed != file && super::is_kustomization_file(listed))
        .filter_map(|listed| listed.parent())
        .filter(|dir| *dir != own && own.starts_with(dir))
        .collect();
    above.sort_by_key(|dir| dir.components().count());
    above.dedup();
    above
}

/// The walk's steps with their paths as [`PathKey`]s, which compare as bytes (comparing `Path`s
/// component by component was most of the time of finding a large repository's clusters).
struct Steps {
    /// Each step's `from` and `to`, in `applies`' order (sorted by `from`).
    applies: Vec<(PathKey, PathKey)>,
    /// The appliers' `from`, in their order (sorted too).
    appliers: Vec<PathKey>,
}

impl Steps {
    fn of(applies: &[Applies], appliers: &[&Applies]) -> Self {
        Steps {
            applies: (applies.iter())
                .map(|a| (PathKey::of(&a.from), PathKey::of(&a.to)))
                .collect(),
            appliers: appliers.iter().map(|a| PathKey::of(&a.from)).collect(),
        }
    }

    /// The appliers (by index) whose files `start` (a step's `to`) covers, following the walk.
    fn covered_appliers(&self, start: &PathKey) -> BTreeSet<usize> {
        let mut visited: foldhash::HashSet<&PathKey> = foldhash::HashSet::default();
        let mut pending: Vec<&PathKey> = vec![start];
        let mut covered = BTreeSet::new();
        while let Some(target) = pending.pop() {
            if !visited.insert(target) {
                continue;
            }
            let first = self.applies.partition_point(|(from, _)| from < target);
            for (_, to) in self.applies[first..]
                .iter()
                .take_while(|(from, _)| from.is_within(target))
            {
                if !visited.contains(to) {
                    pending.push(to);
                }
            }
            let first = self.appliers.partition_point(|from| from < target);
            covered.extend(
                (first..self.appliers.len()).take_while(|&i| self.appliers[i].is_within(target)),
            );
        }
        covered
    }
}

/// Each entry's cluster name. With one entry, its directory's name (the root's for the root).
/// With several, the first component of its path that no other entry has at the same place
/// (`clusters/prod` and `clusters/staging` are `prod` and `staging`; `kubernetes/main/flux` and
/// `kubernetes/utility/flux` are `main` and `utility`), else its whole path.
pub(crate) fn names(entries: &[PathBuf], root: &Path) -> Vec<String> {
    let root_name = || {
        root.file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| ".".to_owned())
    };
    let parts = |p: &Path| -> Vec<String> {
        p.components()
            .filter_map(|c| match c {
                Component::Normal(n) => Some(n.to_string_lossy().into_owned()),
                _ => None,
            })
            .collect()
    };
    let all: Vec<Vec<String>> = entries.iter().map(|e| parts(e)).collect();
    if let [only] = all.as_slice() {
        return vec![only.last().cloned().unwrap_or_else(root_name)];
    }
    let unique_at = |index: usize, at: usize| {
        let part = all[index].get(at);
        part.is_some()
            && all
                .iter()
                .enumerate()
                .all(|(other, p)| other == index || p.get(at) != part)
    };
    let mut names: Vec<String> = (0..all.len())
        .map(|index| {
            (0..all[index].len())
                .find(|&at| unique_at(index, at))
                .map(|at| all[index][at].clone())
                .unwrap_or_else(|| whole(&all[index], &root_name))
        })
        .collect();
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    for name in &names {
        *counts.entry(name.clone()).or_default() += 1;
    }
    for (index, name) in names.iter_mut().enumerate() {
        if counts.get(name.as_str()).copied().unwrap_or(0) > 1 {
            *name = whole(&all[index], &root_name);
        }
    }
    names
}

fn whole(parts: &[String], root_name: &dyn Fn() -> String) -> String {
    if parts.is_empty() {
        root_name()
    } else {
        parts.join("/")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(from: &str, to: &str, via: Via) -> Applies {
        Applies {
            from: PathBuf::from("/r").join(from),
            to: PathBuf::from("/r").join(to),
            via,
        }
    }

    fn entries(applies: Vec<Applies>) -> Vec<String> {
        entries_defining(applies, &|_| Vec::new())
    }

    fn entries_defining(
        mut applies: Vec<Applies>,
        defined_in: &dyn Fn(&Path) -> Vec<&'static crate::model::ResourceId>,
    ) -> Vec<String> {
        applies.sort();
        let entries: Vec<PathBuf> = entry_points(&applies, Path::new("/r"), defined_in)
            .iter()
            .map(|e| super::super::paths::relative_to(e, Path::new("/r")))
            .collect();
        names(&entries, Path::new("/r"))
            .into_iter()
            .zip(&entries)
            .map(|(name, entry)| format!("{name}={}", entry.display()))
            .collect()
    }

    #[test]
    fn bootstrap_layouts_are_one_cluster_each() {
        let applies = vec![
            step(
                "clusters/prod/flux-system/gotk-sync.yaml",
                "clusters/prod",
                Via::Bootstrap,
            ),
            step("clusters/prod/apps.yaml", "apps/prod", Via::Applier),
            step("apps/prod/kustomization.yaml", "apps/base", Via::Input),
            step(
                "apps/base/podinfo/ks.yaml",
                "apps/base/podinfo/app",
                Via::Applier,
            ),
            step(
                "clusters/staging/flux-system/gotk-sync.yaml",
                "clusters/staging",
                Via::Bootstrap,
            ),
            step("clusters/staging/apps.yaml", "apps/staging", Via::Applier),
        ];
        assert_eq!(
            entries(applies),
            ["prod=clusters/prod", "staging=clusters/staging"]
        );
    }

    #[test]
    fn a_flux_instance_ring_enters_at_its_sync_path() {
        // kubernetes/clusters/main/flux-instance.yaml applies the directory holding the
        // HelmRelease whose FluxInstance syncs kubernetes/clusters/main (joryirving's layout).
        let applies = vec![
            step(
                "kubernetes/clusters/main/flux-instance.yaml",
                "kubernetes/clusters/main/flux-instance",
                Via::Applier,
            ),
            step(
                "kubernetes/clusters/main/flux-instance/helmrelease.yaml",
                "kubernetes/clusters/main",
                Via::Bootstrap,
            ),
            step(
                "kubernetes/clusters/main/apps.yaml",
                "kubernetes/apps/main",
                Via::Applier,
            ),
        ];
        assert_eq!(entries(applies), ["main=kubernetes/clusters/main"]);
    }

    #[test]
    fn a_kustomization_file_listing_the_root_applier_is_the_entry() {
        // clusters/prod/kustomization.yaml lists flux/ (whose kustomization file lists the
        // applier): the bootstrap builds clusters/prod. One beside the root, listing nothing
        // of it, is not an entry.
        let applies = vec![
            step("clusters/prod/flux/apps.yaml", "apps", Via::Applier),
            step(
                "clusters/prod/flux/kustomization.yaml",
                "clusters/prod/flux/apps.yaml",
                Via::Input,
            ),
            step(
                "clusters/prod/kustomization.yaml",
                "clusters/prod/flux",
                Via::Input,
            ),
            step("kustomization.yaml", "docs", Via::Input),
        ];
        assert_eq!(entries(applies.clone()), ["prod=clusters/prod"]);

        // A listing of two clusters, or the repository's top, is tooling's: each cluster enters
        // where it would without it.
        let mut more = applies;
        more.extend([
            step("clusters/staging/apps.yaml", "apps", Via::Applier),
            step(
                "clusters/kustomization.yaml",
                "clusters/prod/flux",
                Via::Input,
            ),
            step(
                "clusters/kustomization.yaml",
                "clusters/staging/apps.yaml",
                Via::Input,
            ),
            step(
                "kustomization.yaml",
                "clusters/staging/apps.yaml",
                Via::Input,
            ),
        ]);
        assert_eq!(
            entries(more),
            ["prod=clusters/prod", "staging=clusters/staging"]
        );
    }

    #[test]
    fn a_namespace_directory_listing_its_apps_is_one_entry() {
        // `--path kubernetes/apps/network` (szinn): its kustomization file lists each app's
        // Kustomization, and each applies only what lies under the directory; what the
        // directory's own kustomization adds (a component's source) is part of it.
        let mut applies = Vec::new();
        for app in ["echo", "multus"] {
            applies.push(step(
                &format!("apps/network/{app}/ks.yaml"),
                &format!("apps/network/{app}/app"),
                Via::Applier,
            ));
            applies.push(step(
                "apps/network/kustomization.yaml",
                &format!("apps/network/{app}/ks.yaml"),
                Via::Input,
            ));
        }
        assert_eq!(entries(applies.clone()), ["network=apps/network"]);

        // One of them applying a tree elsewhere makes the listing one of clusters.
        applies.push(step("apps/network/edge/ks.yaml", "shared", Via::Applier));
        applies.push(step(
            "apps/network/kustomization.yaml",
            "apps/network/edge/ks.yaml",
            Via::Input,
        ));
        assert_eq!(
            entries(applies),
            [
                "echo=apps/network/echo",
                "edge=apps/network/edge",
                "multus=apps/network/multus"
            ]
        );
    }

    #[test]
    fn a_listing_of_clusters_defining_the_same_objects_is_not_one_entry() {
        // clusters/kustomization.yaml lists prod and staging, each a directory whose
        // kustomization lists its own `flux-system/apps` applying a subtree of it: kustomize
        // refuses to build the listing (the same object twice), so each is a cluster.
        static APPS: std::sync::LazyLock<crate::model::ResourceId> =
            std::sync::LazyLock::new(|| {
                crate::model::ResourceId::new(
                    "kustomize.toolkit.fluxcd.io/v1",
                    "Kustomization",
                    "flux-system",
                    "apps",
                )
            });
        let mut applies = Vec::new();
        for cluster in ["prod", "staging"] {
            applies.push(step(
                &format!("clusters/{cluster}/ks.yaml"),
                &format!("clusters/{cluster}/apps"),
                Via::Applier,
            ));
            applies.push(step(
                &format!("clusters/{cluster}/kustomization.yaml"),
                &format!("clusters/{cluster}/ks.yaml"),
                Via::Input,
            ));
            applies.push(step(
                "clusters/kustomization.yaml",
                &format!("clusters/{cluster}"),
                Via::Input,
            ));
        }
        let defining = |file: &Path| {
            if file.ends_with("ks.yaml") {
                vec![&*APPS]
            } else {
                Vec::new()
            }
        };
        assert_eq!(
            entries_defining(applies.clone(), &defining),
            ["prod=clusters/prod", "staging=clusters/staging"]
        );
        // Distinct objects (a namespace's apps) make one entry.
        assert_eq!(entries(applies), ["clusters=clusters"]);
    }

    #[test]
    fn a_kustomization_applying_its_own_directory_alone_is_an_orphan() {
        let applies = vec![
            step(
                "clusters/prod/flux-system/gotk-sync.yaml",
                "clusters/prod",
                Via::Bootstrap,
            ),
            step("bootstrap/extra/ks.yaml", "bootstrap/extra", Via::Applier),
        ];
        assert_eq!(entries(applies), ["prod=clusters/prod"]);
    }

    #[test]
    fn a_self_managing_kustomization_under_any_name_is_a_cluster() {
        // toboshii: `flux-cluster` applies cluster/flux, which defines it and the others.
        let applies = vec![
            step(
                "cluster/flux/flux-system/flux-cluster.yaml",
                "cluster/flux",
                Via::Applier,
            ),
            step("cluster/flux/apps.yaml", "cluster/apps", Via::Applier),
        ];
        assert_eq!(entries(applies), ["flux=cluster/flux"]);
    }

    #[test]
    fn an_applier_nothing_applies_enters_at_its_directory() {
        let applies = vec![
            step(
                "kubernetes/flux/cluster/ks.yaml",
                "kubernetes/apps",
                Via::Applier,
            ),
            step(
                "kubernetes/apps/x/ks.yaml",
                "kubernetes/apps/x/app",
                Via::Applier,
            ),
        ];
        assert_eq!(entries(applies), ["cluster=kubernetes/flux/cluster"]);
    }

    #[test]
    fn names_come_from_the_first_differing_component() {
        let names = |e: &[&str]| {
            names(
                &e.iter().map(PathBuf::from).collect::<Vec<_>>(),
                Path::new("/r/repo"),
            )
        };
        assert_eq!(
            names(&["kubernetes/main/flux", "kubernetes/utility/flux"]),
            ["main", "utility"]
        );
        assert_eq!(names(&["a/x/flux", "b/x/flux"]), ["a", "b"]);
        assert_eq!(
            names(&["k/main/flux", "k/main/cluster", "k/test"]),
            ["flux", "cluster", "test"]
        );
        assert_eq!(
            names(&["k/bootstrap/x", "k/clusters/c-101", "k/clusters/c-102"]),
            ["bootstrap", "c-101", "c-102"]
        );
        assert_eq!(names(&[""]), ["repo"]);
        assert_eq!(names(&["clusters/prod"]), ["prod"]);
    }
}
