//! OCI artifacts that are not charts (what `flux push artifact` publishes and an OCIRepository
//! pulls): a tag or a digest resolved to a manifest, one layer chosen by media type (the first
//! layer without one), its blob downloaded and verified by sha256. Manifests and layers are kept
//! in the download cache by digest, and each tag's last resolution is remembered there, so a
//! pinned digest is never fetched twice and `offline` can still answer from the cache.
//!
//! The OCI distribution API is the same as for charts (`oci`: sessions, challenges, tag lists).
//! Not for: what the layer's files mean, semver tag selection (the caller's rules), image
//! indexes, signatures.

use std::path::{Path, PathBuf};

use serde_json::Value;

use offlux_fs::{self as fsio, FsFacts};

use super::cache::DownloadCache;
use super::{is_digest, sha256_digest, BasicAuth, FetchErrorKind, FetchOptions};

/// Where an artifact lives: `oci://host[:port]/path` (no tag), with its credentials.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArtifactRepository {
    pub url: String,
    pub auth: Option<BasicAuth>,
    /// Talk plain HTTP instead of HTTPS (an OCIRepository's `insecure`).
    pub insecure_http: bool,
}

/// Which manifest: a tag (resolved now, or from the cache offline) or a digest.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ArtifactReference {
    Tag(String),
    Digest(String),
}

/// An artifact's layer, as pulled.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PulledArtifact {
    /// `sha256:<hex>` of the manifest (the revision's digest).
    pub manifest_digest: String,
    pub layer_digest: String,
    pub layer_media_type: String,
    /// The layer's blob as stored (compressed when the layer is).
    pub layer: Vec<u8>,
    /// The manifest's annotations (`org.opencontainers.image.source`, `…revision`, ...).
    pub annotations: Vec<(String, String)>,
    /// Set when `offline` answered a tag from the cache: the digest the tag was resolved to when
    /// it was last fetched, which the registry may have moved since.
    pub tag_from_cache: bool,
}

/// The tags of the repository at `repository.url`, in the registry's order.
pub fn list_artifact_tags(
    repository: &ArtifactRepository,
    options: &FetchOptions,
) -> Result<Vec<String>, FetchErrorKind> {
    if options.offline {
        return Err(FetchErrorKind::Offline);
    }
    network::list_tags(repository, options)
}

/// Pulls the artifact `reference` names, choosing the layer of `layer_media_type` (the first
/// layer when `None`, as source-controller's `selectLayer` does).
pub fn pull_artifact(
    repository: &ArtifactRepository,
    reference: &ArtifactReference,
    layer_media_type: Option<&str>,
    options: &FetchOptions,
) -> Result<PulledArtifact, FetchErrorKind> {
    let cache = options
        .download_cache
        .as_deref()
        .map(|root| DownloadCache { root });
    if let ArtifactReference::Digest(digest) = reference {
        if !is_digest(digest) {
            return Err(FetchErrorKind::InvalidVersion(format!(
                "{digest} is not a sha256 digest"
            )));
        }
    }
    if options.offline {
        let Some(cache) = &cache else {
            return Err(FetchErrorKind::Offline);
        };
        let (digest, tag_from_cache) = match reference {
            ArtifactReference::Digest(digest) => (digest.to_ascii_lowercase(), false),
            ArtifactReference::Tag(tag) => {
                let remembered = remembered_tag(cache.root, &repository.url, tag);
                (remembered.ok_or(FetchErrorKind::Offline)?, true)
            }
        };
        let manifest_bytes = cache
            .get(&digest, options.max_bytes)
            .ok_or(FetchErrorKind::Offline)?;
        let manifest = Manifest::parse(&repository.url, &manifest_bytes)?;
        let layer = manifest.layer(&repository.url, layer_media_type)?;
        let bytes = cache
            .get(&layer.digest, options.max_bytes)
            .ok_or(FetchErrorKind::Offline)?;
        return Ok(PulledArtifact {
            manifest_digest: digest,
            layer_digest: layer.digest.clone(),
            layer_media_type: layer.media_type.clone(),
            layer: bytes,
            annotations: manifest.annotations,
            tag_from_cache,
        });
    }
    network::pull(
        repository,
        reference,
        layer_media_type,
        options,
        cache.as_ref(),
    )
}

/// One layer of a manifest.
#[derive(Clone, Debug)]
struct Layer {
    media_type: String,
    digest: String,
    #[cfg_attr(not(feature = "network"), allow(dead_code))]
    size: u64,
}

/// What an artifact pull needs of an OCI image manifest.
#[derive(Debug)]
struct Manifest {
    layers: Vec<Layer>,
    annotations: Vec<(String, String)>,
}

impl Manifest {
    fn parse(url: &str, body: &[u8]) -> Result<Manifest, FetchErrorKind> {
        let invalid = |message: String| FetchErrorKind::Invalid {
            what: format!("manifest of {url}"),
            message,
        };
        let json: Value = serde_json::from_slice(body).map_err(|e| invalid(e.to_string()))?;
        if json.get("manifests").is_some() {
            return Err(invalid(
                "an image index, not an artifact manifest (pin the artifact's own digest)".into(),
            ));
        }
        let layers = json
            .get("layers")
            .and_then(Value::as_array)
            .ok_or_else(|| invalid("no `layers`".into()))?
            .iter()
            .map(|layer| {
                let digest = layer
                    .get("digest")
                    .and_then(Value::as_str)
                    .filter(|d| is_digest(d))
                    .ok_or_else(|| invalid("a layer without a sha256 digest".into()))?;
                Ok(Layer {
                    media_type: layer
                        .get("mediaType")
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .to_string(),
                    digest: digest.to_ascii_lowercase(),
                    size: layer.get("size").and_then(Value::as_u64).unwrap_or(0),
                })
            })
            .collect::<Result<Vec<_>, FetchErrorKind>>()?;
        let annotations = json
            .get("annotations")
            .and_then(Value::as_object)
            .map(|map| {
                map.iter()
                    .filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_string())))
                    .collect()
            })
            .unwrap_or_default();
        Ok(Manifest {
            layers,
            annotations,
        })
    }

    /// source-controller's `selectLayer`: the first layer of `media_type`, or the first layer.
    fn layer(&self, url: &str, media_type: Option<&str>) -> Result<&Layer, FetchErrorKind> {
        let invalid = |message: String| FetchErrorKind::Invalid {
            what: format!("artifact {url}"),
            message,
        };
        match media_type.filter(|m| !m.is_empty()) {
            None => self
                .layers
                .first()
                .ok_or_else(|| invalid("no layers found in artifact".into())),
            Some(wanted) => self
                .layers
                .iter()
                .find(|l| l.media_type == wanted)
                .ok_or_else(|| invalid(format!("no layer with media type '{wanted}'"))),
        }
    }
}

/// Where the digest tag `tag` of `url` last resolved to is kept.
fn tag_file(root: &Path, url: &str, tag: &str) -> PathBuf {
    let key = sha256_digest(format!("oci\n{url}\n{tag}").as_bytes());
    let hex = key.trim_start_matches("sha256:");
    root.join("tags").join(hex)
}

/// The digest `tag` of `url` resolved to when it was last pulled, if the cache remembers it.
fn remembered_tag(root: &Path, url: &str, tag: &str) -> Option<String> {
    let confine = fsio::Confine {
        root: Some(root),
        max_bytes: 128,
    };
    let bytes = fsio::read(&FsFacts::default(), &tag_file(root, url, tag), confine).ok()?;
    let text = String::from_utf8(bytes).ok()?;
    let digest = text.trim();
    is_digest(digest).then(|| digest.to_string())
}

#[cfg(feature = "network")]
mod network {
    use super::super::http::status_error;
    use super::super::oci::{self, Session, Target, MANIFEST_ACCEPT};
    use super::*;

    fn session<'a>(
        repository: &'a ArtifactRepository,
        options: &FetchOptions,
    ) -> Result<(Session<'a>, oci::Reference), FetchErrorKind> {
        if let Some((_, rest)) = repository.url.rsplit_once('/') {
            if rest.contains(':') || rest.contains('@') {
                return Err(FetchErrorKind::InvalidUrl(format!(
                    "{}: the URL must not contain a tag or digest; use `ref`",
                    repository.url
                )));
            }
        }
        let reference = oci::parse_reference(&Target {
            url: &repository.url,
            chart: "",
            auth: repository.auth.as_ref(),
            insecure_http: repository.insecure_http,
        })?;
        let session = Session {
            client: super::super::http::client(options),
            auth: repository.auth.as_ref(),
            name: reference.name.clone(),
            authorization: None,
        };
        Ok((session, reference))
    }

    pub(super) fn list_tags(
        repository: &ArtifactRepository,
        options: &FetchOptions,
    ) -> Result<Vec<String>, FetchErrorKind> {
        let (mut session, reference) = session(repository, options)?;
        oci::list_tags(&mut session, &reference).map_err(|e| match e {
            FetchErrorKind::NoSuchChart => FetchErrorKind::NotFound(repository.url.clone()),
            e => e,
        })
    }

    pub(super) fn pull(
        repository: &ArtifactRepository,
        reference: &ArtifactReference,
        layer_media_type: Option<&str>,
        options: &FetchOptions,
        cache: Option<&DownloadCache<'_>>,
    ) -> Result<PulledArtifact, FetchErrorKind> {
        let (mut session, parsed) = session(repository, options)?;
        let (manifest_digest, manifest_bytes) = match reference {
            ArtifactReference::Digest(digest) => {
                let digest = digest.to_ascii_lowercase();
                match cache.and_then(|c| c.get(&digest, options.max_bytes)) {
                    Some(bytes) => (digest, bytes),
                    None => {
                        let bytes = get_manifest(&mut session, &parsed, &digest)?;
                        let actual = sha256_digest(&bytes);
                        if actual != digest {
                            return Err(FetchErrorKind::DigestMismatch {
                                url: oci::manifest_url(&parsed, &digest),
                                expected: digest,
                                actual,
                            });
                        }
                        (digest, bytes)
                    }
                }
            }
            ArtifactReference::Tag(tag) => {
                let bytes = get_manifest(&mut session, &parsed, tag)?;
                (sha256_digest(&bytes), bytes)
            }
        };
        let manifest = Manifest::parse(&repository.url, &manifest_bytes)?;
        let layer = manifest.layer(&repository.url, layer_media_type)?.clone();
        let blob_url = format!("{}/v2/{}/blobs/{}", parsed.base, parsed.name, layer.digest);
        let bytes = match cache.and_then(|c| c.get(&layer.digest, options.max_bytes)) {
            Some(bytes) => bytes,
            None => oci::get_blob(
                &mut session,
                &blob_url,
                &layer.digest,
                layer.size,
                options.max_bytes,
            )?,
        };
        if let Some(cache) = cache {
            cache.put(&manifest_bytes)?;
            cache.put(&bytes)?;
            if let ArtifactReference::Tag(tag) = reference {
                let path = tag_file(cache.root, &repository.url, tag);
                fsio::write_atomically(&path, manifest_digest.as_bytes()).map_err(|e| {
                    FetchErrorKind::Io {
                        path: path.display().to_string(),
                        message: e.to_string(),
                    }
                })?;
            }
        }
        Ok(PulledArtifact {
            manifest_digest,
            layer_digest: layer.digest,
            layer_media_type: layer.media_type,
            layer: bytes,
            annotations: manifest.annotations,
            tag_from_cache: false,
        })
    }

    fn get_manifest(
        session: &mut Session<'_>,
        reference: &oci::Reference,
        manifest_ref: &str,
    ) -> Result<Vec<u8>, FetchErrorKind> {
        let url = oci::manifest_url(reference, manifest_ref);
        let reply = session.get(&url, Some(MANIFEST_ACCEPT))?;
        match reply.status {
            200 => Ok(reply.body),
            404 => {
                // Which is missing, the tag or the repository: the tags list says (one more
                // request, on the way to an error only).
                let noun = if is_digest(manifest_ref) {
                    "manifest"
                } else {
                    "tag"
                };
                let what = match oci::list_tags(session, reference) {
                    Ok(tags) if tags.is_empty() => {
                        format!(
                            "{noun} {manifest_ref} in {} (it has no tags)",
                            reference.name
                        )
                    }
                    Ok(tags) => {
                        let shown: Vec<&str> = tags.iter().take(10).map(String::as_str).collect();
                        let more = if tags.len() > shown.len() {
                            ", ..."
                        } else {
                            ""
                        };
                        format!(
                            "{noun} {manifest_ref} in {} (tags: {}{more})",
                            reference.name,
                            shown.join(", ")
                        )
                    }
                    Err(_) => format!("repository {} at {}", reference.name, reference.base),
                };
                Err(FetchErrorKind::NotFound(what))
            }
            _ => Err(status_error(&url, &reply)),
        }
    }
}

#[cfg(not(feature = "network"))]
mod network {
    use super::*;

    pub(super) fn list_tags(
        _: &ArtifactRepository,
        _: &FetchOptions,
    ) -> Result<Vec<String>, FetchErrorKind> {
        Err(FetchErrorKind::NetworkNotCompiled)
    }

    pub(super) fn pull(
        _: &ArtifactRepository,
        _: &ArtifactReference,
        _: Option<&str>,
        _: &FetchOptions,
        _: Option<&DownloadCache<'_>>,
    ) -> Result<PulledArtifact, FetchErrorKind> {
        Err(FetchErrorKind::NetworkNotCompiled)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn manifest(layers: &[(&str, &str)]) -> Vec<u8> {
        let layers: Vec<Value> = layers
            .iter()
            .map(|(media_type, hex)| {
                serde_json::json!({"mediaType": media_type, "digest": format!("sha256:{}", hex.repeat(64)), "size": 3})
            })
            .collect();
        serde_json::json!({"schemaVersion": 2, "layers": layers, "annotations": {"org.opencontainers.image.revision": "main@sha1:abc"}})
            .to_string()
            .into_bytes()
    }

    /// source-controller's `selectLayer`: the first layer without a media type, else the first of
    /// that type; none of it is an error.
    #[test]
    fn the_layer_is_chosen_as_source_controller_chooses_it() {
        let m = Manifest::parse("u", &manifest(&[("a/x", "1"), ("b/y", "2"), ("b/y", "3")]))
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(m.layer("u", None).map(|l| l.media_type.as_str()), Ok("a/x"));
        assert_eq!(
            m.layer("u", Some("b/y")).map(|l| l.digest.clone()),
            Ok(format!("sha256:{}", "2".repeat(64)))
        );
        assert!(m.layer("u", Some("c/z")).is_err());
        let empty = Manifest::parse("u", &manifest(&[])).unwrap_or_else(|e| panic!("{e}"));
        assert!(empty.layer("u", None).is_err());
        assert_eq!(
            m.annotations,
            vec![(
                "org.opencontainers.image.revision".to_string(),
                "main@sha1:abc".to_string()
            )]
        );
        assert!(Manifest::parse("u", br#"{"manifests": []}"#).is_err());
    }

    #[test]
    fn offline_answers_only_from_the_cache() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let options = FetchOptions {
            offline: true,
            download_cache: Some(dir.path().to_path_buf()),
            ..FetchOptions::default()
        };
        let repository = ArtifactRepository {
            url: "oci://registry.example/app".into(),
            auth: None,
            insecure_http: false,
        };
        let cache = DownloadCache { root: dir.path() };
        let layer = b"tgz".to_vec();
        let layer_digest = cache.put(&layer).unwrap_or_else(|e| panic!("{e}"));
        let manifest =
            serde_json::json!({"layers": [{"mediaType": "m", "digest": layer_digest, "size": 3}]})
                .to_string();
        let manifest_digest = cache
            .put(manifest.as_bytes())
            .unwrap_or_else(|e| panic!("{e}"));
        let by_digest = pull_artifact(
            &repository,
            &ArtifactReference::Digest(manifest_digest.clone()),
            None,
            &options,
        )
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!((by_digest.layer, by_digest.tag_from_cache), (layer, false));
        let tag = ArtifactReference::Tag("latest".into());
        assert_eq!(
            pull_artifact(&repository, &tag, None, &options),
            Err(FetchErrorKind::Offline)
        );
        fsio::write_atomically(
            &tag_file(dir.path(), &repository.url, "latest"),
            manifest_digest.as_bytes(),
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let by_tag =
            pull_artifact(&repository, &tag, None, &options).unwrap_or_else(|e| panic!("{e}"));
        assert!(by_tag.tag_from_cache);
        assert_eq!(by_tag.manifest_digest, manifest_digest);
    }
}
