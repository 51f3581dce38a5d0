//! An OCIRepository's artifact, as source-controller's `OCIRepositoryReconciler` gets it:
//! `getArtifactRef` (a digest before a semver range before a tag, `latest` without a `ref`; a
//! tag in the URL is an error), `getTagBySemver` (the tags fluxcd/pkg `version.ParseVersion`
//! reads, filtered by `semverFilter`, the highest that satisfies the range), `getRevision`
//! (`<tag>@sha256:<manifest>` or `sha256:<manifest>`), `selectLayer` (the first layer of
//! `layerSelector.mediaType`, else the first layer) and the layer unpacked as fluxcd/pkg
//! `tar.Untar` unpacks it (symlinks skipped, paths that leave the root refused, bounded).
//! Credentials: a `secretRef` of type `kubernetes.io/dockerconfigjson`. Cloud `provider`s are
//! not attempted.

use crate::discovery::Repository;
use crate::helm::repo::{
    list_artifact_tags, pull_artifact, ArtifactReference, ArtifactRepository, BasicAuth,
    FetchErrorKind, FetchOptions,
};
use crate::model::{FluxObject, ResourceId};
use crate::yaml::Node;

use super::{Attempt, Unpacked};
use crate::controllers::source::SourceFetch;

/// What `spec` asks for, read as the CRD defines it.
struct Spec<'a> {
    url: &'a str,
    tag: Option<&'a str>,
    semver: Option<&'a str>,
    semver_filter: Option<&'a str>,
    digest: Option<&'a str>,
    media_type: Option<&'a str>,
    operation: Option<&'a str>,
    secret: Option<&'a str>,
    provider: Option<&'a str>,
    insecure: bool,
}

fn text<'a>(spec: &'a Node, path: &[&str]) -> Option<&'a str> {
    spec.get_path(path)
        .and_then(Node::as_str)
        .filter(|s| !s.is_empty())
}

impl<'a> Spec<'a> {
    fn read(node: &'a Node) -> Option<Spec<'a>> {
        let spec = node.get("spec")?;
        Some(Spec {
            url: text(spec, &["url"])?,
            tag: text(spec, &["ref", "tag"]),
            semver: text(spec, &["ref", "semver"]),
            semver_filter: text(spec, &["ref", "semverFilter"]),
            digest: text(spec, &["ref", "digest"]),
            media_type: text(spec, &["layerSelector", "mediaType"]),
            operation: text(spec, &["layerSelector", "operation"]),
            secret: text(spec, &["secretRef", "name"]),
            provider: text(spec, &["provider"]),
            insecure: spec.get("insecure").and_then(Node::as_str) == Some("true"),
        })
    }
}

/// Fetches `flux`'s artifact.
pub(super) fn fetch(
    flux: &FluxObject,
    repository: &Repository,
    options: &FetchOptions,
    registry_config: Option<&str>,
) -> Result<Unpacked, Attempt> {
    let Some(spec) = Spec::read(&flux.object.node) else {
        return Err(SourceFetch::Failed("`spec.url` is required".into()).into());
    };
    if let Some(provider) = spec.provider.filter(|p| *p != "generic") {
        // source-controller uses the provider only when no secret gives credentials.
        if spec.secret.is_none() {
            return Err(SourceFetch::Skipped(format!(
                "`provider: {provider}` authenticates with the cloud's workload identity, which offlux does not use"
            ))
            .into());
        }
    }
    // The source's own Secret; without one, the registry configuration the user gave.
    // Offline only the cache answers, and it needs no credentials.
    let auth = match spec.secret {
        _ if options.offline => None,
        None => {
            registry_config.and_then(|config| docker_config_auth(config, registry_host(spec.url)))
        }
        Some(name) => Some(credentials(repository, &flux.object.id, name, spec.url)?),
    };
    let registry = ArtifactRepository {
        url: spec.url.to_owned(),
        auth,
        insecure_http: spec.insecure,
    };
    let operation = spec.operation.unwrap_or("extract");
    if operation != "extract" && operation != "copy" {
        return Err(
            SourceFetch::Failed(format!("unsupported layer operation '{operation}'")).into(),
        );
    }
    let (reference, tag) = reference(&spec, &registry, options)?;
    let pulled = pull_artifact(&registry, &reference, spec.media_type, options)
        .map_err(|e| record(spec.url, e))?;
    let revision = match &tag {
        Some(tag) => format!("{tag}@{}", pulled.manifest_digest),
        None => pulled.manifest_digest.clone(),
    };
    let (files, dirs) = unpack(&pulled.layer, repository).map_err(|e| {
        Attempt::from(SourceFetch::Failed(format!(
            "artifact {} at {revision}: {e}",
            spec.url
        )))
    })?;
    let mut summary = format!("fetched {} at {revision}", spec.url);
    if options.offline {
        summary.push_str(" from the download cache (--offline)");
    }
    if pulled.tag_from_cache {
        summary.push_str(
            "; the tag was resolved when last fetched: the registry may have moved it since",
        );
    }
    Ok(Unpacked {
        files,
        dirs,
        summary,
        revision,
        includes: Vec::new(),
    })
}

/// The manifest to pull, and the tag it was named by (for the revision).
fn reference(
    spec: &Spec<'_>,
    registry: &ArtifactRepository,
    options: &FetchOptions,
) -> Result<(ArtifactReference, Option<String>), Attempt> {
    if let Some(digest) = spec.digest {
        return Ok((ArtifactReference::Digest(digest.to_owned()), None));
    }
    if let Some(range) = spec.semver {
        // Offline, the tag the range last picked (and the tag's digest, in the engine's cache).
        let key = format!(
            "oci semver\n{}\n{range}\n{}",
            spec.url,
            spec.semver_filter.unwrap_or_default()
        );
        let cache = options.download_cache.as_deref();
        if options.offline {
            let tag = cache
                .and_then(|c| super::remembered(c, &key))
                .ok_or(Attempt::NotTried)?;
            return Ok((ArtifactReference::Tag(tag.clone()), Some(tag)));
        }
        let tags = list_artifact_tags(registry, options).map_err(|e| record(spec.url, e))?;
        let tag = tag_by_semver(&tags, range, spec.semver_filter)
            .map_err(|e| Attempt::from(SourceFetch::Failed(e)))?;
        if let Some(cache) = cache {
            super::remember(cache, &key, &tag);
        }
        return Ok((ArtifactReference::Tag(tag.clone()), Some(tag)));
    }
    let tag = spec.tag.unwrap_or("latest").to_owned();
    Ok((ArtifactReference::Tag(tag.clone()), Some(tag)))
}

/// source-controller's `getTagBySemver`: tags matching `filter` (a Go regexp, unanchored) that
/// fluxcd/pkg `version.ParseVersion` reads (three dot-separated parts, then Masterminds) and
/// `range` allows; the highest wins, named by its own tag.
fn tag_by_semver(tags: &[String], range: &str, filter: Option<&str>) -> Result<String, String> {
    let filter = filter
        .map(regex::Regex::new)
        .transpose()
        .map_err(|e| format!("failed to compile regex {}: {e}", filter.unwrap_or("")))?;
    let kept = tags
        .iter()
        .map(String::as_str)
        .filter(|tag| filter.as_ref().is_none_or(|f| f.is_match(tag)));
    let best = super::highest_version(kept, range)?;
    best.map(str::to_owned).ok_or_else(|| {
        let shown: Vec<&str> = tags.iter().take(10).map(String::as_str).collect();
        format!(
            "no match found for semver: {range} (tags: {})",
            if shown.is_empty() {
                "none".to_owned()
            } else {
                shown.join(", ")
            }
        )
    })
}

/// The record a failed pull leaves: what the cluster's fetch would also meet fails, what only
/// this machine meets (no network, an address the egress policy refuses) is skipped.
fn record(url: &str, error: FetchErrorKind) -> Attempt {
    match error {
        FetchErrorKind::Offline | FetchErrorKind::NetworkNotCompiled => Attempt::NotTried,
        e if e.is_unreachable() => Attempt::Record(super::unreachable(e)),
        e => Attempt::Record(SourceFetch::Failed(format!("{url}: {e}"))),
    }
}

/// The registry credentials of Secret `name` (type `kubernetes.io/dockerconfigjson`) for `url`'s
/// host, as ggcr's keychain reads them: `auths.<host>.auth` (base64 `user:password`) or its
/// `username` and `password`.
fn credentials(
    repository: &Repository,
    source: &ResourceId,
    name: &str,
    url: &str,
) -> Result<BasicAuth, Attempt> {
    let data = super::secret_data(repository, source, name)?;
    let Some(config) = data.get(".dockerconfigjson") else {
        return Err(SourceFetch::Failed(format!(
            "Secret {}/{name} has no `.dockerconfigjson`",
            source.namespace
        ))
        .into());
    };
    let host = registry_host(url);
    docker_config_auth(config, host).ok_or_else(|| {
        SourceFetch::Failed(format!(
            "Secret {}/{name} holds no credentials for {host}",
            source.namespace
        ))
        .into()
    })
}

/// The registry's `host[:port]` of an `oci://` URL.
fn registry_host(url: &str) -> &str {
    url.strip_prefix("oci://")
        .unwrap_or(url)
        .split('/')
        .next()
        .unwrap_or_default()
}

/// The credentials a docker config (`{"auths": {...}}`) holds for `host`.
pub(crate) fn docker_config_auth(config: &str, host: &str) -> Option<BasicAuth> {
    use base64::Engine as _;
    let json: serde_json::Value = serde_json::from_str(config).ok()?;
    let auths = json.get("auths")?.as_object()?;
    let entry = auths.iter().find_map(|(key, value)| {
        let key = key
            .trim_start_matches("https://")
            .trim_start_matches("http://");
        let key = key.split('/').next().unwrap_or_default();
        (key == host).then_some(value)
    })?;
    if let Some(encoded) = entry.get("auth").and_then(serde_json::Value::as_str) {
        let decoded = base64::engine::general_purpose::STANDARD
            .decode(encoded)
            .ok()?;
        let text = String::from_utf8(decoded).ok()?;
        let (username, password) = text.split_once(':')?;
        return Some(BasicAuth {
            username: username.to_owned(),
            password: password.to_owned(),
        });
    }
    Some(BasicAuth {
        username: entry.get("username")?.as_str()?.to_owned(),
        password: entry.get("password")?.as_str()?.to_owned(),
    })
}

/// The layer's files and directories (fluxcd/pkg `tar.Untar`: regular files and directories,
/// symlinks skipped, no path out of the root), charged to the run's budget of bytes extracted.
type Files = (Vec<(String, Vec<u8>)>, Vec<String>);

fn unpack(layer: &[u8], repository: &Repository) -> Result<Files, String> {
    let members = crate::artifact::extract::members(layer, repository.budget.as_deref())
        .map_err(|e| e.to_string())?;
    let mut files = Vec::new();
    let mut dirs = Vec::new();
    for member in members {
        match member.data {
            Some(data) => files.push((member.path, data)),
            None => dirs.push(member.path),
        }
    }
    // A path that is a file and later a directory (or the reverse) keeps the later one.
    files.retain(|(path, _)| !dirs.iter().any(|d| d == path));
    Ok((files, dirs))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tags(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn semver_tags_are_chosen_as_source_controller_chooses_them() {
        let list = tags(&[
            "1.0.0",
            "v1.2.0",
            "1.10",
            "2.0.0-rc.1",
            "latest",
            "1.3.0-dev",
        ]);
        assert_eq!(tag_by_semver(&list, ">=1.0.0", None), Ok("v1.2.0".into()));
        assert_eq!(
            tag_by_semver(&list, ">=1.0.0-0", None),
            Ok("2.0.0-rc.1".into())
        );
        assert_eq!(
            tag_by_semver(&list, "*", Some("^1\\.0")),
            Ok("1.0.0".into())
        );
        assert_eq!(
            tag_by_semver(&list, ">=3", None),
            Err("no match found for semver: >=3 (tags: 1.0.0, v1.2.0, 1.10, 2.0.0-rc.1, latest, 1.3.0-dev)".into())
        );
        assert!(tag_by_semver(&list, "not a range", None).is_err());
        assert!(tag_by_semver(&list, "*", Some("(")).is_err());
    }

    #[test]
    fn docker_config_credentials_are_found_by_host() {
        let config = r#"{"auths":{"https://ghcr.io/v1/":{"auth":"dXNlcjpwYXNz"},"r.example:5000":{"username":"u","password":"p"}}}"#;
        let ghcr = docker_config_auth(config, "ghcr.io").map(|a| (a.username, a.password));
        assert_eq!(ghcr, Some(("user".into(), "pass".into())));
        let other = docker_config_auth(config, "r.example:5000").map(|a| a.username);
        assert_eq!(other.as_deref(), Some("u"));
        assert!(docker_config_auth(config, "docker.io").is_none());
    }
}
