//! Remote sources fetched as source-controller fetches them, before the run: each OCIRepository
//! the repository defines (and nothing maps to a local directory) is pulled, its layer unpacked
//! into a tree held in memory and mounted, and the source mapped there as `--sources` maps a
//! checkout; discovery then reads it like any mapped source. What was fetched, and why a source
//! was not, is recorded for its row and its consumers.
//!
//! Fetching follows the egress policy of chart downloads (no private addresses unless allowed,
//! bounded sizes and time, nothing from the environment); `offline` answers from the download
//! cache only. Sources made at run time (by a ResourceSet, say) are not fetched.

mod oci;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use offlux_sync::MutexExt as _;

use crate::controllers::source::{resolve_with, SourceFetch, SourceResolution};
use crate::controllers::source_map::{self, SourceMapping};
use crate::discovery::Repository;
use crate::fsio::Mount;
use crate::helm::repo::{FetchOptions, NetworkDeadline};
use crate::model::{ChartSource, FluxKind, FluxObject, ResourceId};

/// How sources are fetched: the run's network settings.
#[derive(Clone, Debug)]
pub struct FetchSettings {
    pub offline: bool,
    pub allow_private_network: bool,
    /// Where artifacts are kept by digest across runs; nothing is kept when unset.
    pub download_cache: Option<PathBuf>,
    pub idle_timeout_secs: Option<u64>,
    pub deadline: Option<NetworkDeadline>,
}

impl FetchSettings {
    fn options(&self) -> FetchOptions {
        let defaults = FetchOptions::default();
        FetchOptions {
            chart_cache: None,
            download_cache: self.download_cache.clone(),
            offline: self.offline,
            allow_private_network: self.allow_private_network,
            max_bytes: defaults.max_bytes,
            timeout_secs: defaults.timeout_secs,
            idle_timeout_secs: self.idle_timeout_secs.unwrap_or(defaults.idle_timeout_secs),
            deadline: self.deadline,
        }
    }
}

/// The sources fetched for one repository: what became of each and where the fetched ones are
/// mapped.
#[derive(Clone, Debug, Default)]
pub struct FetchedSources {
    pub records: BTreeMap<ResourceId, SourceFetch>,
    pub mappings: Vec<SourceMapping>,
}

/// The sources one command fetched, by id and spec, so a source is fetched once however many
/// discoveries (clusters, a diff's two sides) define it; it holds the mounts their files live in.
#[derive(Debug, Default)]
pub struct Memo(Mutex<BTreeMap<(ResourceId, String), Arc<Fetched>>>);

#[derive(Debug)]
struct Fetched {
    /// `None` when nothing was tried (offline, not cached).
    record: Option<SourceFetch>,
    mount: Option<Mount>,
}

/// The sources of `repository` this run should fetch: OCIRepositories it defines that no
/// mapping (`mapped`) covers, that are not suspended (source-controller does not reconcile a
/// suspended source), and that no HelmRelease takes as its chart (those are fetched as charts).
fn wanted<'a>(repository: &'a Repository, mapped: &[SourceMapping]) -> Vec<&'a FluxObject> {
    // A chartRef without a namespace is in the HelmRelease's.
    let chart_refs: Vec<(String, String, String)> = repository
        .flux_objects
        .iter()
        .filter_map(|f| match &f.as_helm_release()?.chart {
            ChartSource::Ref(r) => {
                let namespace = if r.namespace.is_empty() {
                    f.namespace()
                } else {
                    &r.namespace
                };
                Some((r.kind.clone(), namespace.to_owned(), r.name.clone()))
            }
            ChartSource::Template(_) => None,
        })
        .collect();
    repository
        .flux_objects
        .iter()
        .filter(|f| f.kind == FluxKind::OCIRepository)
        .filter(|f| source_map::mapped(mapped, &f.object.id).is_none())
        .filter(|f| !f.as_source().is_some_and(|s| s.suspend))
        .filter(|f| {
            matches!(
                resolve_with(&f.object.id, Some(f), None),
                SourceResolution::Unavailable(_)
            )
        })
        .filter(|f| {
            let id = &f.object.id;
            !chart_refs
                .iter()
                .any(|(k, ns, n)| *k == *id.kind && *ns == *id.namespace && *n == *id.name)
        })
        .collect()
}

/// Fetches the sources of `repository` that `mapped` does not cover (each once per `memo`).
pub fn fetch_sources(
    repository: &Repository,
    mapped: &[SourceMapping],
    settings: &FetchSettings,
    memo: &Memo,
) -> FetchedSources {
    use rayon::prelude::*;
    let options = settings.options();
    let keyed: Vec<((ResourceId, String), &FluxObject)> = wanted(repository, mapped)
        .into_iter()
        .map(|flux| {
            let spec = flux.object.node.get("spec").map(|s| format!("{s:?}"));
            ((flux.object.id.clone(), spec.unwrap_or_default()), flux)
        })
        .collect();
    let missing: Vec<&((ResourceId, String), &FluxObject)> = {
        let known = memo.0.locked();
        keyed
            .iter()
            .filter(|(key, _)| !known.contains_key(key))
            .collect()
    };
    let results: Vec<((ResourceId, String), Fetched)> = missing
        .par_iter()
        .map(|(key, flux)| {
            (
                key.clone(),
                mounted(&key.0, oci::fetch(flux, repository, &options)),
            )
        })
        .collect();
    let mut known = memo.0.locked();
    for (key, fetched) in results {
        known.entry(key).or_insert_with(|| Arc::new(fetched));
    }
    let mut out = FetchedSources::default();
    for (key, _) in &keyed {
        let Some(fetched) = known.get(key) else {
            continue;
        };
        let id = &key.0;
        if let Some(mount) = &fetched.mount {
            out.mappings.push(SourceMapping {
                kind: Some(id.kind.to_string()),
                namespace: Some(id.namespace.to_string()),
                name: id.name.to_string(),
                dir: mount.path().to_path_buf(),
            });
        }
        if let Some(record) = &fetched.record {
            out.records.insert(id.clone(), record.clone());
        }
    }
    out
}

/// An artifact's files mounted in memory; a failure kept as it is.
fn mounted(id: &ResourceId, result: Result<oci::Unpacked, Option<SourceFetch>>) -> Fetched {
    let unpacked = match result {
        Ok(unpacked) => unpacked,
        Err(record) => {
            return Fetched {
                record,
                mount: None,
            }
        }
    };
    let label = format!("{}-{}-{}", id.kind, id.namespace, id.name);
    match crate::fsio::mount_tree(&label, unpacked.files, &unpacked.dirs) {
        Ok(mount) => Fetched {
            record: Some(SourceFetch::Fetched(unpacked.summary)),
            mount: Some(mount),
        },
        Err(e) => Fetched {
            record: Some(SourceFetch::Failed(format!("artifact not unpacked: {e}"))),
            mount: None,
        },
    }
}
