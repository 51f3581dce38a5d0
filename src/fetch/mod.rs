//! Remote sources fetched as source-controller fetches them, before the run: each GitRepository
//! (`git`), OCIRepository (`oci`) and Bucket (`bucket`) the repository defines, that nothing maps
//! to a local directory and that is not the working tree, is fetched, its files held in memory
//! and mounted, and the source mapped there as `--sources` maps a checkout; discovery then reads
//! it like any mapped source. Sources a run makes (a ResourceSet's) are fetched by the
//! orchestrator in further rounds (`fetch_made_sources`). What was fetched, and why a source was
//! not, is recorded for its row and its consumers (`SourceFetch`).
//!
//! Every request goes through `offlux_net`'s guarded client (no private addresses unless
//! allowed, bounded sizes and time, nothing from the environment); `offline` answers from the
//! download cache only, and a source it cannot answer for is left as it was (not fetched).

mod cache;
pub use cache::{cached_entries, CachedEntry};
#[cfg(feature = "network")]
mod bucket;
#[cfg(feature = "network")]
mod git;
mod include;
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
    /// The proxy every request goes through (`--proxy`).
    pub proxy: Option<String>,
    /// OpenSSH's `ssh`, for `ssh://` Git URLs.
    pub ssh: Option<SshProgram>,
    /// A docker configuration (`{"auths": …}`) the user gave (`--registry-config`): credentials
    /// for OCI sources that name no Secret.
    pub registry_config: Option<Arc<String>>,
}

/// The `ssh` program and the variables of offlux's environment it is given (Windows' sockets
/// need `SystemRoot`; nothing else of the environment reaches it).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SshProgram {
    pub path: PathBuf,
    pub environment: Vec<(std::ffi::OsString, std::ffi::OsString)>,
}

impl FetchSettings {
    /// The guarded HTTP client's settings, with bodies up to `max_bytes`.
    #[cfg(feature = "network")]
    fn client_options(&self, max_bytes: u64) -> offlux_net::ClientOptions {
        let defaults = offlux_net::ClientOptions::default();
        offlux_net::ClientOptions {
            allow_private_network: self.allow_private_network,
            max_bytes,
            timeout_secs: 300,
            idle_timeout_secs: self.idle_timeout_secs.unwrap_or(defaults.idle_timeout_secs),
            deadline: self.deadline.map(|d| offlux_net::Deadline {
                at: d.at,
                secs: d.secs,
            }),
            proxy: self.proxy.clone(),
        }
    }

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
            proxy: self.proxy.clone(),
        }
    }
}

/// A source's files, ready to mount, and what its row says.
pub(crate) struct Unpacked {
    pub(crate) files: Vec<(String, Vec<u8>)>,
    pub(crate) dirs: Vec<String>,
    pub(crate) summary: String,
    /// The artifact's revision as Flux spells it (`main@sha1:…`, `v1@sha256:…`, `sha256:…`).
    pub(crate) revision: String,
    /// A GitRepository's `spec.include`, applied once every source of the batch is fetched.
    pub(crate) includes: Vec<Include>,
}

/// One `spec.include` of a GitRepository.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Include {
    /// The included GitRepository, in the includer's namespace.
    pub(crate) name: String,
    /// The directory of its artifact copied (`""`: all of it).
    pub(crate) from: String,
    /// Where in the includer's artifact it goes.
    pub(crate) to: String,
}

/// Why a source's files are not at hand.
pub(crate) enum Attempt {
    /// Nothing was tried (`--offline` and not in the cache): the source resolves as it would
    /// without fetching.
    NotTried,
    Record(SourceFetch),
}

impl From<SourceFetch> for Attempt {
    fn from(record: SourceFetch) -> Attempt {
        Attempt::Record(record)
    }
}

/// The record of a fetch this machine could not make (no route, no name, an address the egress
/// policy refuses): it says nothing of what the cluster's fetch would do, so the source is
/// SKIPPED, with what works here instead.
fn unreachable(error: impl std::fmt::Display) -> SourceFetch {
    SourceFetch::Skipped(format!(
        "unreachable from here: {error} (`--sources NAME=DIR` reads a local checkout instead; `--offline` makes no request)"
    ))
}

/// Where `key`'s last answer is kept in the download cache at `cache`.
fn remembered_path(cache: &std::path::Path, key: &str) -> PathBuf {
    use sha2::Digest as _;
    cache
        .join("refs")
        .join(hex::encode(sha2::Sha256::digest(key.as_bytes())))
}

/// The answer last remembered for `key` (a ref a remote resolved), for `--offline`.
fn remembered(cache: &std::path::Path, key: &str) -> Option<String> {
    remembered_text(cache, key, 4096)
}

/// What was last remembered for `key`, up to `max_bytes`.
fn remembered_text(cache: &std::path::Path, key: &str, max_bytes: u64) -> Option<String> {
    let text = crate::fsio::read_to_string(
        &crate::fsio::FsFacts::default(),
        &remembered_path(cache, key),
        crate::fsio::Confine {
            root: Some(cache),
            max_bytes,
        },
    )
    .ok()?;
    Some(text.trim().to_owned()).filter(|t| !t.is_empty())
}

/// Remembers `value` for `key`. A cache that cannot be written only costs the next `--offline`
/// run its answer.
fn remember(cache: &std::path::Path, key: &str, value: &str) {
    let _ = crate::fsio::write_atomically(&remembered_path(cache, key), value.as_bytes());
}

/// The highest of `tags` that `range` allows, among those fluxcd/pkg `version.ParseVersion`
/// reads (three dot-separated parts, then Masterminds: a leading `v` and zero-padded numbers
/// pass); `Err` for a range that does not read.
fn highest_version<'a>(
    tags: impl IntoIterator<Item = &'a str>,
    range: &str,
) -> Result<Option<&'a str>, String> {
    use crate::template::funcs::semver_api::{compare, parse_version, satisfies, Version};
    satisfies(range, &parse_version("0.0.0").map_err(|e| e.to_string())?)
        .map_err(|e| format!("semver '{range}' parse error: {e}"))?;
    let mut best: Option<(Version, &str)> = None;
    for tag in tags {
        if tag.splitn(3, '.').count() != 3 {
            continue;
        }
        let Ok(version) = parse_version(tag) else {
            continue;
        };
        if !satisfies(range, &version).unwrap_or(false) {
            continue;
        }
        let better = best
            .as_ref()
            .is_none_or(|(b, _)| compare(&version, b) == std::cmp::Ordering::Greater);
        if better {
            best = Some((version, tag));
        }
    }
    Ok(best.map(|(_, tag)| tag))
}

/// The decoded data of Secret `name` in `source`'s namespace, as the repository defines it.
fn secret_data(
    repository: &Repository,
    source: &ResourceId,
    name: &str,
) -> Result<BTreeMap<String, String>, Attempt> {
    let secret = repository
        .data_objects
        .iter()
        .find(|o| o.id.kind == "Secret" && o.id.namespace == source.namespace && o.id.name == name);
    let Some(secret) = secret else {
        return Err(SourceFetch::Skipped(format!(
            "its credentials, Secret {}/{name}, are not in the repository (the cluster may hold them; `--sources NAME=DIR` reads a local checkout instead)",
            source.namespace
        ))
        .into());
    };
    if secret.is_sops_encrypted() {
        return Err(SourceFetch::Skipped(format!(
            "its credentials, Secret {}/{name}, are encrypted (SOPS; `--sources NAME=DIR` reads a local checkout instead)",
            source.namespace
        ))
        .into());
    }
    Ok(crate::controllers::postbuild::data_of(secret))
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

/// The sources among `candidates` this run should fetch: OCIRepositories and GitRepositories
/// that no mapping (`mapped`) covers and that are not the working tree, not suspended
/// (source-controller does not reconcile a suspended source), and that no HelmRelease of
/// `releases` takes as its chart (those are fetched as charts).
fn wanted<'a>(
    candidates: &'a [FluxObject],
    releases: &[&FluxObject],
    repository: &Repository,
    mapped: &[SourceMapping],
) -> Vec<&'a FluxObject> {
    let git_remote = crate::controllers::source::git_remote(&repository.root);
    // A chartRef without a namespace is in the HelmRelease's.
    let chart_refs: std::collections::HashSet<(&str, &str, &str)> = releases
        .iter()
        .filter_map(|f| match &f.as_helm_release()?.chart {
            ChartSource::Ref(r) => {
                let namespace = if r.namespace.is_empty() {
                    f.namespace()
                } else {
                    &r.namespace
                };
                Some((r.kind.as_str(), namespace, r.name.as_str()))
            }
            ChartSource::Template(_) => None,
        })
        .collect();
    candidates
        .iter()
        .filter(|f| {
            matches!(
                f.kind,
                FluxKind::OCIRepository | FluxKind::GitRepository | FluxKind::Bucket
            )
        })
        .filter(|f| source_map::mapped(mapped, &f.object.id).is_none())
        .filter(|f| !f.as_source().is_some_and(|s| s.suspend))
        .filter(|f| {
            matches!(
                resolve_with(&f.object.id, Some(f), git_remote.as_deref()),
                SourceResolution::Unavailable(_)
            )
        })
        .filter(|f| {
            let id = &f.object.id;
            !chart_refs.contains(&(id.kind.as_str(), id.namespace.as_str(), id.name.as_str()))
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
    let releases: Vec<&FluxObject> = repository.flux_objects.iter().collect();
    let wanted = wanted(&repository.flux_objects, &releases, repository, mapped);
    fetch_wanted(wanted, repository, settings, memo)
}

/// Fetches the sources among `made` (objects a run's producers made) that the repository does
/// not define and that `mapped` does not cover.
pub fn fetch_made_sources(
    repository: &Repository,
    made: &[crate::model::Object],
    mapped: &[SourceMapping],
    settings: &FetchSettings,
    memo: &Memo,
) -> FetchedSources {
    let made: Vec<FluxObject> = made
        .iter()
        .filter_map(|o| FluxObject::from_object(o).ok().flatten())
        .filter(|f| {
            let id = &f.object.id;
            !repository.flux_objects.iter().any(|d| {
                d.object.id.kind == id.kind
                    && d.object.id.namespace == id.namespace
                    && d.object.id.name == id.name
            })
        })
        .collect();
    let releases: Vec<&FluxObject> = repository.flux_objects.iter().chain(&made).collect();
    let wanted = wanted(&made, &releases, repository, mapped);
    fetch_wanted(wanted, repository, settings, memo)
}

fn fetch_wanted(
    wanted: Vec<&FluxObject>,
    repository: &Repository,
    settings: &FetchSettings,
    memo: &Memo,
) -> FetchedSources {
    use rayon::prelude::*;
    let options = settings.options();
    let keyed: Vec<((ResourceId, String), &FluxObject)> = wanted
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
    let unpacked: Vec<((ResourceId, String), Result<Unpacked, Attempt>)> = missing
        .par_iter()
        .map(|(key, flux)| (key.clone(), fetch_one(flux, repository, settings, &options)))
        .collect();
    let unpacked = include::apply(unpacked);
    let results: Vec<((ResourceId, String), Fetched)> = unpacked
        .into_iter()
        .map(|(key, result)| {
            let fetched = mounted(&key.0, result);
            (key, fetched)
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

/// Fetches one source by its kind.
fn fetch_one(
    flux: &FluxObject,
    repository: &Repository,
    settings: &FetchSettings,
    options: &FetchOptions,
) -> Result<Unpacked, Attempt> {
    match flux.kind {
        #[cfg(feature = "network")]
        FluxKind::GitRepository => git::fetch(flux, repository, settings),
        #[cfg(feature = "network")]
        FluxKind::Bucket => bucket::fetch(flux, repository, settings),
        #[cfg(not(feature = "network"))]
        FluxKind::GitRepository | FluxKind::Bucket => {
            let _ = settings;
            Err(Attempt::NotTried)
        }
        _ => oci::fetch(
            flux,
            repository,
            options,
            settings.registry_config.as_deref().map(String::as_str),
        ),
    }
}

/// An artifact's files mounted in memory; a failure kept as it is.
fn mounted(id: &ResourceId, result: Result<Unpacked, Attempt>) -> Fetched {
    let unpacked = match result {
        Ok(unpacked) => unpacked,
        Err(Attempt::NotTried) => {
            return Fetched {
                record: None,
                mount: None,
            }
        }
        Err(Attempt::Record(record)) => {
            return Fetched {
                record: Some(record),
                mount: None,
            }
        }
    };
    let label = format!("{}-{}-{}", id.kind, id.namespace, id.name);
    match crate::fsio::mount_tree(&label, unpacked.files, &unpacked.dirs) {
        Ok(mount) => Fetched {
            record: Some(SourceFetch::Fetched {
                summary: unpacked.summary,
                revision: unpacked.revision,
            }),
            mount: Some(mount),
        },
        Err(e) => Fetched {
            record: Some(SourceFetch::Failed(format!("artifact not unpacked: {e}"))),
            mount: None,
        },
    }
}
