//! Where a Flux source's files come from offline. The bootstrap GitRepository is the working tree;
//! so is a GitRepository whose URL is the working tree's own git remote (with a note saying so).
//! A source defined nowhere is not found: reading the working tree in its place would pass a
//! repository that Flux would fail. Anything else cannot be had offline.

pub use crate::discovery::git_remote::{git_remote, same_repository};
use crate::discovery::{Repository, BOOTSTRAP_NAME, BOOTSTRAP_NAMESPACE};
use crate::model::{FluxKind, FluxObject, FluxSpec, ResourceId};

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SourceResolution {
    /// Read from the working tree; `note` says why when it is not the bootstrap source itself.
    WorkingTree { note: Option<String> },
    /// Not available offline: what is missing.
    Unavailable(String),
    /// Defined nowhere: neither in the repository nor published by a build.
    NotFound(String),
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
pub fn resolve_with(
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

/// Where an ExternalArtifact's `path` lies in the working tree, when an ArtifactGenerator in the
/// repository assembles that artifact by copying directories (`@alias/dir/**` to `@artifact/sub/`)
/// from a source that is the working tree. Returns the working-tree path.
pub fn external_artifact_path(
    reference: &ResourceId,
    path: &str,
    repository: &Repository,
    git_remote: Option<&str>,
) -> Result<String, String> {
    let label = format!(
        "ExternalArtifact/{}/{}",
        reference.namespace, reference.name
    );
    let generated = repository.flux_objects.iter().find_map(|f| match &f.spec {
        FluxSpec::ArtifactGenerator(generator) if f.namespace() == reference.namespace => generator
            .artifacts
            .iter()
            .find(|a| a.name == reference.name)
            .map(|artifact| (f, generator, artifact)),
        _ => None,
    });
    let Some((flux, generator, artifact)) = generated else {
        return Err(format!(
            "source {label} not found (no ArtifactGenerator in the repository produces it)"
        ));
    };
    let wanted = path.trim_start_matches("./").trim_matches('/');
    let mut best: Option<(usize, String)> = None;
    for copy in &artifact.copies {
        let to = copy
            .to
            .strip_prefix("@artifact/")
            .unwrap_or(&copy.to)
            .trim_matches('/');
        let rest = if to.is_empty() {
            Some(wanted)
        } else if wanted == to {
            Some("")
        } else {
            wanted.strip_prefix(&format!("{to}/"))
        };
        let Some(rest) = rest else { continue };
        let Some((alias, from)) = copy.from.strip_prefix('@').and_then(|f| f.split_once('/'))
        else {
            continue;
        };
        let Some(from_dir) = from.strip_suffix("**").map(|d| d.trim_end_matches('/')) else {
            return Err(format!(
                "{label}: only directory copies (`@alias/dir/**`) are supported offline, not `{}`",
                copy.from
            ));
        };
        let Some((_, source)) = generator.sources.iter().find(|(a, _)| a == alias) else {
            return Err(format!("{label}: source alias `{alias}` is not declared"));
        };
        let namespace = if source.namespace.is_empty() {
            flux.namespace()
        } else {
            &source.namespace
        };
        let group = FluxKind::from_kind(&source.kind).map_or("", |k| k.group());
        let source_id = ResourceId::new(
            &format!("{group}/v1"),
            &source.kind,
            namespace,
            &source.name,
        );
        if let SourceResolution::Unavailable(message) = resolve(&source_id, repository, git_remote)
        {
            return Err(format!("{label}: {message}"));
        }
        let mapped = [from_dir, rest]
            .iter()
            .filter(|p| !p.is_empty())
            .copied()
            .collect::<Vec<_>>()
            .join("/");
        if best.as_ref().is_none_or(|(len, _)| to.len() > *len) {
            best = Some((to.len(), format!("./{mapped}")));
        }
    }
    best.map(|(_, mapped)| mapped)
        .ok_or_else(|| format!("{label}: no copy of the artifact provides `{path}`"))
}
