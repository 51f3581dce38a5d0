//! A Bucket's artifact, as source-controller's `BucketReconciler` builds it with the generic
//! provider (minio-go): the bucket must exist ("bucket '%s' not found"); the root `.sourceignore`
//! object (only that one) and `spec.ignore` are the patterns, with no default exclusions
//! (`fetchEtagIndex`); every object under `spec.prefix` is listed, keys ending in `/`, the
//! `.sourceignore` key and ignored keys left out; each object is fetched to its key; the revision
//! is `sha256:` over the sorted `"<key> <etag>\n"` lines (`index.Digest`). Credentials: the
//! `secretRef` Secret's `accesskey` and `secretkey` (both keys required). Other providers
//! (`aws` without a Secret, `gcp`, `azure`) are not attempted. A Bucket's revision is its
//! objects' ETags, which only a listing gives: each fetch keeps the objects in the download cache
//! by content and remembers the index, which `--offline` reads back, saying it may be stale.

use std::collections::BTreeMap;

use offlux_bucket::{BucketError, Credentials, Endpoint};

use super::{Attempt, FetchSettings, Unpacked};
use crate::controllers::source::SourceFetch;
use crate::discovery::{Repository, SpecIgnore};
use crate::model::{FluxObject, ResourceId};
use crate::yaml::Node;

/// Objects and bytes one Bucket may bring.
const MAX_OBJECTS: usize = 10_000;
const MAX_BYTES: u64 = 256 << 20;
/// The largest one object may be.
const MAX_OBJECT_BYTES: u64 = 64 << 20;

fn text<'a>(spec: &'a Node, key: &str) -> Option<&'a str> {
    spec.get(key)
        .and_then(Node::as_str)
        .filter(|s| !s.is_empty())
}

/// Fetches `flux`'s artifact.
pub(super) fn fetch(
    flux: &FluxObject,
    repository: &Repository,
    settings: &FetchSettings,
) -> Result<Unpacked, Attempt> {
    let Some(spec) = flux.object.node.get("spec") else {
        return Err(SourceFetch::Failed("`spec` is required".into()).into());
    };
    let (Some(endpoint), Some(bucket)) = (text(spec, "endpoint"), text(spec, "bucketName")) else {
        return Err(SourceFetch::Failed(
            "`spec.endpoint` and `spec.bucketName` are required".into(),
        )
        .into());
    };
    let provider = text(spec, "provider").unwrap_or("generic");
    let secret = spec
        .get("secretRef")
        .and_then(|r| r.get("name"))
        .and_then(Node::as_str)
        .filter(|s| !s.is_empty());
    if provider != "generic" && !(provider == "aws" && secret.is_some()) {
        return Err(SourceFetch::Skipped(format!(
            "`provider: {provider}` authenticates with credentials offlux does not obtain"
        ))
        .into());
    }
    let key = format!(
        "bucket\n{endpoint}\n{bucket}\n{}\n{}",
        text(spec, "prefix").unwrap_or_default(),
        text(spec, "ignore").unwrap_or_default()
    );
    if settings.offline {
        return from_cache(settings, &key, &format!("bucket '{bucket}' at {endpoint}"));
    }
    let credentials = match secret {
        None => None,
        Some(name) => credentials(repository, &flux.object.id, name)?,
    };
    let insecure = spec.get("insecure").and_then(Node::as_str) == Some("true");
    let mut target = Endpoint {
        endpoint: endpoint.to_owned(),
        insecure,
        region: text(spec, "region").map(str::to_owned),
        credentials,
    };
    let client = offlux_net::Client::new(&settings.client_options(MAX_OBJECT_BYTES));
    let label = format!("bucket '{bucket}' at {endpoint}");
    let failed = |e: BucketError| -> Attempt {
        if e.is_unreachable() {
            super::unreachable(format!("{label}: {e}")).into()
        } else {
            SourceFetch::Failed(format!("{label}: {e}")).into()
        }
    };
    let not_found = || Attempt::from(SourceFetch::Failed(format!("bucket '{bucket}' not found")));
    if target.region.is_none() {
        // minio-go's `BucketExists` reads a missing bucket in the location lookup as absent.
        let region = offlux_bucket::bucket_region(&client, &target, bucket).map_err(|e| {
            if e.code() == Some("NoSuchBucket") {
                not_found()
            } else {
                failed(e)
            }
        })?;
        target.region = Some(region);
    }
    if !offlux_bucket::bucket_exists(&client, &target, bucket).map_err(failed)? {
        return Err(not_found());
    }
    // Only the root `.sourceignore`, then `spec.ignore`: the last matching pattern decides.
    let root_ignore = offlux_bucket::get_object(&client, &target, bucket, ".sourceignore")
        .map_err(failed)?
        .map(|o| String::from_utf8_lossy(&o.data).into_owned())
        .unwrap_or_default();
    let patterns = format!(
        "{root_ignore}\n{}",
        text(spec, "ignore").unwrap_or_default()
    );
    let ignore = SpecIgnore::parse(&patterns);
    let prefix = text(spec, "prefix").unwrap_or_default();
    let listed = offlux_bucket::list_objects(&client, &target, bucket, prefix, MAX_OBJECTS)
        .map_err(failed)?;
    let mut index: BTreeMap<String, String> = BTreeMap::new();
    for object in listed {
        if object.key.ends_with('/') || object.key == ".sourceignore" {
            continue;
        }
        if ignore.excludes(std::path::Path::new(&object.key)) {
            continue;
        }
        index.insert(object.key, object.etag);
    }
    let mut files = Vec::with_capacity(index.len());
    let mut dirs = Vec::new();
    let mut total: u64 = 0;
    for (key, etag) in &mut index {
        let clean = key
            .split('/')
            .all(|p| !p.is_empty() && p != "." && p != "..");
        if !clean {
            return Err(SourceFetch::Failed(format!(
                "{label}: object key `{key}` is not a relative path"
            ))
            .into());
        }
        let Some(object) =
            offlux_bucket::get_object(&client, &target, bucket, key).map_err(failed)?
        else {
            // Gone since the listing: source-controller drops it from the index.
            etag.clear();
            continue;
        };
        total += object.data.len() as u64;
        // Held in memory with the other sources': counted against the run's budget of bytes
        // extracted, as an OCI layer's files are.
        if let Some(budget) = &repository.budget {
            budget
                .charge(
                    crate::budget::Resource::ExtractedBytes,
                    object.data.len() as u64,
                )
                .map_err(|e| Attempt::from(SourceFetch::Failed(format!("{label}: {e}"))))?;
        }
        if total > MAX_BYTES {
            return Err(SourceFetch::Failed(format!(
                "{label}: the objects hold more than {MAX_BYTES} bytes"
            ))
            .into());
        }
        *etag = object.etag;
        dirs.extend(parents(key));
        files.push((key.clone(), object.data));
    }
    index.retain(|_, etag| !etag.is_empty());
    dirs.sort();
    dirs.dedup();
    let revision = revision(&index);
    if let Some(cache) = &settings.download_cache {
        remember(cache, &key, &index, &files);
    }
    Ok(Unpacked {
        files,
        dirs,
        summary: format!("fetched {label} at {revision} ({} objects)", index.len()),
        revision,
        includes: Vec::new(),
    })
}

/// Keeps the objects by content in the download cache and the index (key, ETag, content digest)
/// under `key`. A cache that cannot be written only costs the next `--offline` run its answer.
fn remember(
    cache: &std::path::Path,
    key: &str,
    index: &BTreeMap<String, String>,
    files: &[(String, Vec<u8>)],
) {
    use sha2::Digest as _;
    let mut entries = Vec::new();
    for (path, bytes) in files {
        let Some(etag) = index.get(path) else {
            continue;
        };
        let hex = hex::encode(sha2::Sha256::digest(bytes));
        let file = cache.join("sha256").join(&hex);
        if crate::fsio::write_atomically(&file, bytes).is_err() {
            return;
        }
        entries.push(serde_json::json!([path, etag, hex]));
    }
    super::remember(cache, key, &serde_json::Value::Array(entries).to_string());
}

/// The objects the last fetch under `key` kept, read back from the download cache.
fn from_cache(settings: &FetchSettings, key: &str, label: &str) -> Result<Unpacked, Attempt> {
    use sha2::Digest as _;
    let cache = settings
        .download_cache
        .as_deref()
        .ok_or(Attempt::NotTried)?;
    let remembered = super::remembered_text(cache, key, 16 << 20).ok_or(Attempt::NotTried)?;
    let entries: Vec<(String, String, String)> =
        serde_json::from_str(&remembered).map_err(|_| Attempt::NotTried)?;
    let mut index = BTreeMap::new();
    let mut files = Vec::new();
    let mut dirs = Vec::new();
    for (path, etag, hex) in entries {
        let file = cache.join("sha256").join(&hex);
        let confine = crate::fsio::Confine {
            root: Some(cache),
            max_bytes: MAX_OBJECT_BYTES,
        };
        let bytes = crate::fsio::read(&crate::fsio::FsFacts::default(), &file, confine)
            .map_err(|_| Attempt::NotTried)?;
        // A cache entry is used only while its content is what was stored.
        if hex::encode(sha2::Sha256::digest(&bytes)) != hex
            || !path
                .split('/')
                .all(|p| !p.is_empty() && p != "." && p != "..")
        {
            return Err(Attempt::NotTried);
        }
        dirs.extend(parents(&path));
        index.insert(path.clone(), etag);
        files.push((path, bytes));
    }
    dirs.sort();
    dirs.dedup();
    Ok(Unpacked {
        summary: format!(
            "fetched {label} at {} ({} objects) from the download cache (--offline); the objects were listed when last fetched: the bucket may have changed since",
            revision(&index),
            index.len()
        ),
        revision: revision(&index),
        files,
        dirs,
        includes: Vec::new(),
    })
}

/// The directories above the object at `key` (`a`, `a/b` for `a/b/c.yaml`).
fn parents(key: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut at = 0;
    while let Some(slash) = key[at..].find('/') {
        at += slash;
        out.push(key[..at].to_owned());
        at += 1;
    }
    out
}

/// source-controller's `index.Digest(sha256)`: the keys in order, each line `<key> <etag>\n`.
fn revision(index: &BTreeMap<String, String>) -> String {
    use sha2::Digest as _;
    let mut hasher = sha2::Sha256::new();
    for (key, etag) in index {
        hasher.update(format!("{key} {etag}\n").as_bytes());
    }
    format!("sha256:{}", hex::encode(hasher.finalize()))
}

/// The static keys of Secret `name` (`accesskey` and `secretkey`, both required, as
/// source-controller's `ValidateSecret` has them); anonymous when both are empty.
fn credentials(
    repository: &Repository,
    source: &ResourceId,
    name: &str,
) -> Result<Option<Credentials>, Attempt> {
    let data = super::secret_data(repository, source, name)?;
    match (data.get("accesskey"), data.get("secretkey")) {
        (Some(access), Some(secret)) if !access.is_empty() && !secret.is_empty() => {
            Ok(Some(Credentials {
                access_key: access.clone(),
                secret_key: secret.clone(),
            }))
        }
        (Some(_), Some(_)) => Ok(None),
        _ => Err(SourceFetch::Failed(format!(
            "Secret {}/{name}: invalid '{name}' secret data: required fields 'accesskey' and 'secretkey'",
            source.namespace
        ))
        .into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_object_key_has_its_directories_above_it() {
        assert_eq!(parents("a/b/c.yaml"), ["a", "a/b"]);
        assert!(parents("top.yaml").is_empty());
    }

    /// The revision is the digest of the sorted index lines, as `index.Digest` makes it.
    #[test]
    fn the_revision_is_the_digest_of_the_etag_index() {
        let index: BTreeMap<String, String> = [("b.yaml", "2"), ("a.yaml", "1")]
            .into_iter()
            .map(|(k, v)| (k.to_owned(), v.to_owned()))
            .collect();
        use sha2::Digest as _;
        let expected = hex::encode(sha2::Sha256::digest(b"a.yaml 1\nb.yaml 2\n"));
        assert_eq!(revision(&index), format!("sha256:{expected}"));
    }
}
