//! Where a Flux source's files come from offline. The bootstrap GitRepository is the working tree;
//! so is a GitRepository whose URL is the working tree's own git remote (with a note saying so).
//! A source defined nowhere is not found: reading the working tree in its place would pass a
//! repository that Flux would fail. Anything else cannot be had offline.

pub use crate::discovery::git_remote::{git_remote, same_repository};
use crate::discovery::{Repository, BOOTSTRAP_NAME, BOOTSTRAP_NAMESPACE};
use crate::model::{FluxKind, FluxObject, ResourceId};

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SourceResolution {
    /// Read from the working tree; `note` says why when it is not the bootstrap source itself.
    WorkingTree { note: Option<String> },
    /// Not available offline: what is missing.
    Unavailable(String),
    /// Defined nowhere: neither in the repository nor published by a build.
    NotFound(String),
}

/// What fetching a remote source came to, before the run (`crate::fetch`); a fetched source is
/// also mapped (`RunOptions::source_dirs`) to where its files are.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SourceFetch {
    /// Fetched, or read from the download cache: what its row says (URL and revision).
    Fetched {
        summary: String,
        /// The artifact's revision as Flux spells it.
        revision: String,
    },
    /// What Flux's fetch would also meet: not found, unauthorized, a bad `ref`, a bad artifact.
    Failed(String),
    /// Unknowable from here (offline and not cached, unreachable, credentials offlux cannot use).
    Skipped(String),
}

/// Resolves the source `reference` points at. `git_remote` is the working tree's remote URL, when
/// it has one.
pub fn resolve(
    reference: &ResourceId,
    repository: &Repository,
    git_remote: Option<&str>,
) -> SourceResolution {
    // Discovery sorts its objects by id, whose order starts with kind, namespace and name: the
    // first object of the reference's kind, namespace and name (any group) is found by bisection.
    let key = (&reference.kind, &reference.namespace, &reference.name);
    let objects = &repository.flux_objects;
    let first = objects.partition_point(|f| {
        let id = &f.object.id;
        (&id.kind, &id.namespace, &id.name) < key
    });
    let defined = objects.get(first).filter(|f| {
        f.object.id.kind == reference.kind
            && f.name() == reference.name
            && f.namespace() == reference.namespace
    });
    resolve_with(reference, defined, git_remote)
}

/// Resolves `reference` given its definition, if there is one (written in the repository or
/// published by a build).
pub(crate) fn resolve_with(
    reference: &ResourceId,
    defined: Option<&FluxObject>,
    git_remote: Option<&str>,
) -> SourceResolution {
    let kind = FluxKind::from_kind(&reference.kind);
    if kind == Some(FluxKind::GitRepository)
        && reference.name == BOOTSTRAP_NAME
        && reference.namespace == BOOTSTRAP_NAMESPACE
    {
        return SourceResolution::WorkingTree { note: None };
    }
    let label = format!(
        "{}/{}/{}",
        reference.kind, reference.namespace, reference.name
    );
    match (kind, defined) {
        (Some(FluxKind::GitRepository), Some(flux)) => {
            let url = flux
                .as_source()
                .and_then(|s| s.url.clone())
                .unwrap_or_default();
            if git_remote.is_some_and(|remote| same_repository(remote, &url)) {
                SourceResolution::WorkingTree {
                    note: Some(format!(
                        "{label} points at this repository (`{url}`); using the working tree"
                    )),
                }
            } else {
                SourceResolution::Unavailable(format!("{label} (`{url}`) is not available offline"))
            }
        }
        (_, Some(flux)) => {
            let url = flux.as_source().and_then(|s| s.url.clone());
            SourceResolution::Unavailable(match url {
                Some(url) => format!("{label} (`{url}`) is not available offline"),
                None => format!("{label} is not available offline"),
            })
        }
        (_, None) => SourceResolution::NotFound(format!("source {label} not found")),
    }
}
