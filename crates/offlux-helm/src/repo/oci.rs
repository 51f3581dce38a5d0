//! Helm charts in OCI registries, over the distribution API by hand: the tags list for version
//! resolution (a `_` in a tag stands for `+`), the manifest, the Helm chart layer
//! (`application/vnd.cncf.helm.chart.content.v1.tar+gzip`), and the blob, verified by sha256.
//! Authentication: anonymous, basic, and bearer tokens from the realm a `401` names. Not for:
//! pushing, image indexes, signatures, credential helpers.

use serde_json::Value;

use super::cache::DownloadCache;
use super::http::{basic_header, status_error, Client, Reply};
use super::{
    is_digest, select_version, sha256_digest, BasicAuth, FetchErrorKind, FetchOptions, FetchedChart,
};
use offlux_template::funcs::semver_api::parse_version;

pub(crate) const CHART_LAYER: &str = "application/vnd.cncf.helm.chart.content.v1.tar+gzip";
/// The layer type Helm's first OCI support (Helm 3.0 to 3.7) pushed.
const LEGACY_CHART_LAYER: &str = "application/tar+gzip";
pub(super) const MANIFEST_ACCEPT: &str =
    "application/vnd.oci.image.manifest.v1+json, application/vnd.docker.distribution.manifest.v2+json";
/// At most this many pages of tags are read.
const MAX_TAG_PAGES: usize = 100;

/// Where the chart lives.
pub(crate) struct Target<'a> {
    /// `oci://host[:port]/path`, or with an empty `chart` the chart's own reference.
    pub(crate) url: &'a str,
    pub(crate) chart: &'a str,
    pub(crate) auth: Option<&'a BasicAuth>,
    pub(crate) insecure_http: bool,
}

/// A parsed reference: the registry's base URL, the repository name, and a digest if the URL
/// pinned one.
#[derive(Debug, PartialEq)]
pub(super) struct Reference {
    pub(super) base: String,
    pub(super) name: String,
    pub(super) digest: Option<String>,
}

pub(super) fn parse_reference(target: &Target<'_>) -> Result<Reference, FetchErrorKind> {
    let invalid = |why: &str| FetchErrorKind::InvalidUrl(format!("{}: {why}", target.url));
    let rest = target
        .url
        .strip_prefix("oci://")
        .ok_or_else(|| invalid("an OCI URL starts with oci://"))?;
    let (rest, digest) = match rest.split_once('@') {
        Some((r, d)) => (r, Some(d.to_string())),
        None => (rest, None),
    };
    let (host, path) = rest.split_once('/').unwrap_or((rest, ""));
    let path = path.trim_matches('/');
    if host.is_empty() || host.contains(|c: char| c.is_whitespace() || c == '?' || c == '#') {
        return Err(invalid("no registry host"));
    }
    let name = match (path.is_empty(), target.chart.is_empty()) {
        (_, true) => path.to_string(),
        (true, false) => target.chart.to_string(),
        (false, false) => format!("{path}/{}", target.chart),
    };
    let valid_name = !name.is_empty()
        && name.split('/').all(|part| {
            !part.is_empty()
                && part
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b"._-".contains(&b))
        });
    if !valid_name {
        return Err(invalid("not a valid repository name"));
    }
    // Docker Hub's registry answers on another host than its name.
    let host = if host == "docker.io" {
        "registry-1.docker.io"
    } else {
        host
    };
    let scheme = if target.insecure_http {
        "http"
    } else {
        "https"
    };
    Ok(Reference {
        base: format!("{scheme}://{host}"),
        name,
        digest,
    })
}

/// A client for one repository: remembers the authorization a challenge led to.
pub(super) struct Session<'a> {
    pub(super) client: Client,
    pub(super) auth: Option<&'a BasicAuth>,
    pub(super) name: String,
    pub(super) authorization: Option<String>,
}

impl Session<'_> {
    /// GET with the current authorization; on a `401`, answer the challenge once and retry.
    pub(super) fn get(&mut self, url: &str, accept: Option<&str>) -> Result<Reply, FetchErrorKind> {
        let reply = self.send(url, accept)?;
        if reply.status != 401 {
            return Ok(reply);
        }
        let Some(challenge) = reply.header("www-authenticate").map(str::to_string) else {
            return Ok(reply);
        };
        let Some(authorization) = self.answer(&challenge)? else {
            return Ok(reply);
        };
        self.authorization = Some(authorization);
        self.send(url, accept)
    }

    fn send(&self, url: &str, accept: Option<&str>) -> Result<Reply, FetchErrorKind> {
        let mut headers = Vec::new();
        if let Some(a) = &self.authorization {
            headers.push(("Authorization", a.clone()));
        }
        if let Some(accept) = accept {
            headers.push(("Accept", accept.to_string()));
        }
        Ok(self.client.get(url, &headers)?)
    }

    /// The `Authorization` value that answers a `WWW-Authenticate` challenge, if we have one.
    fn answer(&self, challenge: &str) -> Result<Option<String>, FetchErrorKind> {
        let (scheme, params) = challenge.trim().split_once(' ').unwrap_or((challenge, ""));
        if scheme.eq_ignore_ascii_case("basic") {
            return Ok(self.auth.map(basic_header));
        }
        if !scheme.eq_ignore_ascii_case("bearer") {
            return Ok(None);
        }
        let params = parse_challenge(params);
        let param = |key: &str| {
            params
                .iter()
                .find(|(k, _)| k.eq_ignore_ascii_case(key))
                .map(|(_, v)| v.as_str())
        };
        let Some(realm) = param("realm") else {
            return Ok(None);
        };
        let default_scope = format!("repository:{}:pull", self.name);
        let mut query = Vec::new();
        if let Some(service) = param("service") {
            query.push(format!("service={}", url_encode(service)));
        }
        query.push(format!(
            "scope={}",
            url_encode(param("scope").unwrap_or(&default_scope))
        ));
        let separator = if realm.contains('?') { '&' } else { '?' };
        let token_url = format!("{realm}{separator}{}", query.join("&"));
        let headers: Vec<(&str, String)> = self
            .auth
            .map(|a| vec![("Authorization", basic_header(a))])
            .unwrap_or_default();
        let reply = self.client.get(&token_url, &headers)?;
        if reply.status != 200 {
            return Err(status_error(&token_url, &reply));
        }
        let json: Value =
            serde_json::from_slice(&reply.body).map_err(|e| FetchErrorKind::Invalid {
                what: format!("token from {realm}"),
                message: e.to_string(),
            })?;
        let token = json
            .get("token")
            .or_else(|| json.get("access_token"))
            .and_then(Value::as_str)
            .filter(|t| !t.is_empty());
        Ok(token.map(|t| format!("Bearer {t}")))
    }
}

/// `realm="https://…",service="…",scope="…"` as key-value pairs (quoted values may hold commas).
fn parse_challenge(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut rest = text.trim();
    while let Some((key, after)) = rest.split_once('=') {
        let key = key.trim().trim_start_matches(',').trim().to_string();
        let after = after.trim_start();
        let (value, next) = if let Some(quoted) = after.strip_prefix('"') {
            match quoted.find('"') {
                Some(end) => (&quoted[..end], &quoted[end + 1..]),
                None => (quoted, ""),
            }
        } else {
            match after.find(',') {
                Some(end) => (&after[..end], &after[end..]),
                None => (after, ""),
            }
        };
        out.push((key, value.to_string()));
        rest = next.trim_start().trim_start_matches(',');
    }
    out
}

fn url_encode(text: &str) -> String {
    let mut out = String::new();
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// Fetches the chart `name` at `version` (a version, a constraint, `""`/`*`, or a digest).
pub(crate) fn fetch(
    target: &Target<'_>,
    name: &str,
    version: &str,
    options: &FetchOptions,
) -> Result<FetchedChart, FetchErrorKind> {
    let reference = parse_reference(target)?;
    let mut session = Session {
        client: super::http::client(options),
        auth: target.auth,
        name: reference.name.clone(),
        authorization: None,
    };
    let version = version.trim();
    let pinned = version.strip_prefix('@').unwrap_or(version);
    // What to ask the registry for: a digest, a tag written as a version, or a tag chosen
    // from the list.
    let (mut manifest_ref, mut tag_version) = if let Some(digest) = reference.digest.as_deref() {
        (digest.to_string(), None)
    } else if is_digest(pinned) {
        (pinned.to_string(), None)
    } else if !version.is_empty() && parse_version(version).is_ok() {
        // An exact version is asked for as a tag, as Flux does, without listing tags.
        (version.replace('+', "_"), Some(version.to_string()))
    } else {
        let (tag, v) = tag_from_list(&mut session, &reference, version)?;
        (tag, Some(v))
    };
    if manifest_ref.starts_with("sha256:") && !is_digest(&manifest_ref) {
        return Err(FetchErrorKind::InvalidVersion(format!(
            "{manifest_ref} is not a sha256 digest"
        )));
    }

    let mut manifest_url = manifest_url(&reference, &manifest_ref);
    let mut reply = session.get(&manifest_url, Some(MANIFEST_ACCEPT))?;
    if reply.status == 404 && tag_version.as_deref() == Some(version) {
        // No tag spelled like the version: the list may hold it spelled otherwise
        // (`v1.2.3` for `1.2.3`).
        let (tag, v) = tag_from_list(&mut session, &reference, version)?;
        if tag != manifest_ref {
            manifest_ref = tag;
            tag_version = Some(v);
            manifest_url = self::manifest_url(&reference, &manifest_ref);
            reply = session.get(&manifest_url, Some(MANIFEST_ACCEPT))?;
        }
    }
    if reply.status == 404 {
        return Err(FetchErrorKind::NoMatchingVersion {
            available: format!("no manifest {manifest_ref}"),
        });
    }
    if reply.status != 200 {
        return Err(status_error(&manifest_url, &reply));
    }
    if is_digest(&manifest_ref) {
        let actual = sha256_digest(&reply.body);
        if actual != manifest_ref.to_ascii_lowercase() {
            return Err(FetchErrorKind::DigestMismatch {
                url: manifest_url,
                expected: manifest_ref,
                actual,
            });
        }
    }
    let manifest = Manifest::parse(&manifest_url, &reply.body)?;

    let version = match tag_version {
        Some(v) => v,
        None => manifest_version(&mut session, &reference, &manifest)?,
    };
    let blob_url = format!(
        "{}/v2/{}/blobs/{}",
        reference.base, reference.name, manifest.layer_digest
    );
    let download_cache = options
        .download_cache
        .as_deref()
        .map(|root| DownloadCache { root });
    if let Some(cache) = &download_cache {
        if let Some(bytes) = cache.get(&manifest.layer_digest, options.max_bytes) {
            return Ok(archive(name, version, manifest.layer_digest, bytes));
        }
    }
    let body = get_blob(
        &mut session,
        &blob_url,
        &manifest.layer_digest,
        manifest.layer_size,
        options.max_bytes,
    )?;
    if let Some(cache) = &download_cache {
        cache.put(&body)?;
    }
    Ok(archive(name, version, manifest.layer_digest, body))
}

/// The blob at `url`, declared `size` bytes long, checked against `digest`; refused before the
/// request when the declaration is over `max_bytes`.
pub(super) fn get_blob(
    session: &mut Session<'_>,
    url: &str,
    digest: &str,
    size: u64,
    max_bytes: u64,
) -> Result<Vec<u8>, FetchErrorKind> {
    if size > max_bytes {
        return Err(FetchErrorKind::TooLarge {
            url: url.to_owned(),
            limit: max_bytes,
        });
    }
    let reply = session.get(url, None)?;
    if reply.status != 200 {
        return Err(status_error(url, &reply));
    }
    let actual = sha256_digest(&reply.body);
    if actual != digest {
        return Err(FetchErrorKind::DigestMismatch {
            url: url.to_owned(),
            expected: digest.to_owned(),
            actual,
        });
    }
    Ok(reply.body)
}

pub(super) fn manifest_url(reference: &Reference, manifest_ref: &str) -> String {
    format!(
        "{}/v2/{}/manifests/{manifest_ref}",
        reference.base, reference.name
    )
}

/// The tag (and the version it stands for) that best satisfies `version` among the
/// repository's tags.
fn tag_from_list(
    session: &mut Session<'_>,
    reference: &Reference,
    version: &str,
) -> Result<(String, String), FetchErrorKind> {
    let tags = list_tags(session, reference)?;
    let versions: Vec<String> = tags.iter().map(|t| t.replace('_', "+")).collect();
    let chosen = select_version(versions.iter().map(String::as_str), version)?;
    match chosen.and_then(|i| Some((tags.get(i)?.clone(), versions.get(i)?.clone()))) {
        Some(found) => Ok(found),
        None => {
            let shown: Vec<&str> = tags.iter().take(10).map(String::as_str).collect();
            Err(FetchErrorKind::NoMatchingVersion {
                available: if shown.is_empty() {
                    "no tags".to_string()
                } else {
                    shown.join(", ")
                },
            })
        }
    }
}

fn archive(name: &str, version: String, digest: String, bytes: Vec<u8>) -> FetchedChart {
    FetchedChart::Archive {
        name: name.to_string(),
        version,
        digest,
        bytes,
    }
}

/// All tags of the repository, following `Link: <…>; rel="next"` pages.
pub(super) fn list_tags(
    session: &mut Session<'_>,
    reference: &Reference,
) -> Result<Vec<String>, FetchErrorKind> {
    let mut tags = Vec::new();
    let mut url = format!("{}/v2/{}/tags/list", reference.base, reference.name);
    for _ in 0..MAX_TAG_PAGES {
        let reply = session.get(&url, None)?;
        if reply.status == 404 {
            return Err(FetchErrorKind::NoSuchChart);
        }
        if reply.status != 200 {
            return Err(status_error(&url, &reply));
        }
        let json: Value =
            serde_json::from_slice(&reply.body).map_err(|e| FetchErrorKind::Invalid {
                what: format!("tags list {url}"),
                message: e.to_string(),
            })?;
        if let Some(list) = json.get("tags").and_then(Value::as_array) {
            tags.extend(list.iter().filter_map(Value::as_str).map(str::to_string));
        }
        let next = reply
            .header("link")
            .and_then(|link| link.split_once('<'))
            .and_then(|(_, rest)| rest.split_once('>'))
            .filter(|(_, params)| params.contains("rel=\"next\""))
            .map(|(target, _)| target.to_string());
        match next {
            Some(next) if next.starts_with('/') => url = format!("{}{next}", reference.base),
            Some(next) if next.starts_with(&reference.base) => url = next,
            _ => break,
        }
    }
    Ok(tags)
}

/// What we need of an OCI image manifest.
struct Manifest {
    layer_digest: String,
    layer_size: u64,
    config_digest: Option<String>,
    annotated_version: Option<String>,
}

impl Manifest {
    fn parse(url: &str, body: &[u8]) -> Result<Manifest, FetchErrorKind> {
        let invalid = |message: String| FetchErrorKind::Invalid {
            what: format!("manifest {url}"),
            message,
        };
        let json: Value = serde_json::from_slice(body).map_err(|e| invalid(e.to_string()))?;
        let layers = json
            .get("layers")
            .and_then(Value::as_array)
            .ok_or_else(|| invalid("no layers (not a Helm chart?)".to_string()))?;
        let layer = layers
            .iter()
            .find(|l| l.get("mediaType").and_then(Value::as_str) == Some(CHART_LAYER))
            .or_else(|| {
                layers.iter().find(|l| {
                    l.get("mediaType").and_then(Value::as_str) == Some(LEGACY_CHART_LAYER)
                })
            })
            .ok_or_else(|| {
                invalid(format!(
                    "no layer of type {CHART_LAYER} (not a Helm chart?)"
                ))
            })?;
        let layer_digest = layer
            .get("digest")
            .and_then(Value::as_str)
            .filter(|d| is_digest(d))
            .ok_or_else(|| invalid("the chart layer has no sha256 digest".to_string()))?
            .to_ascii_lowercase();
        Ok(Manifest {
            layer_digest,
            layer_size: layer.get("size").and_then(Value::as_u64).unwrap_or(0),
            config_digest: json
                .pointer("/config/digest")
                .and_then(Value::as_str)
                .filter(|d| is_digest(d))
                .map(str::to_string),
            annotated_version: json
                .pointer("/annotations/org.opencontainers.image.version")
                .and_then(Value::as_str)
                .map(str::to_string),
        })
    }
}

/// The chart version of a manifest fetched by digest: its annotation, or the config blob (the
/// chart's metadata as JSON).
fn manifest_version(
    session: &mut Session<'_>,
    reference: &Reference,
    manifest: &Manifest,
) -> Result<String, FetchErrorKind> {
    if let Some(v) = &manifest.annotated_version {
        return Ok(v.clone());
    }
    let Some(config) = &manifest.config_digest else {
        return Ok(String::new());
    };
    let url = format!("{}/v2/{}/blobs/{config}", reference.base, reference.name);
    let reply = session.get(&url, None)?;
    if reply.status != 200 {
        return Err(status_error(&url, &reply));
    }
    let json: Value = serde_json::from_slice(&reply.body).unwrap_or(Value::Null);
    Ok(json
        .get("version")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn target<'a>(url: &'a str, chart: &'a str) -> Target<'a> {
        Target {
            url,
            chart,
            auth: None,
            insecure_http: false,
        }
    }

    #[test]
    fn references() {
        let r = parse_reference(&target("oci://ghcr.io/org/charts", "podinfo")).unwrap();
        assert_eq!(r.base, "https://ghcr.io");
        assert_eq!(r.name, "org/charts/podinfo");
        let r = parse_reference(&target("oci://docker.io/envoyproxy/gateway-helm", "")).unwrap();
        assert_eq!(r.base, "https://registry-1.docker.io");
        assert_eq!(r.name, "envoyproxy/gateway-helm");
        let pinned = format!("oci://127.0.0.1:5000/c@sha256:{}", "a".repeat(64));
        let r = parse_reference(&Target {
            insecure_http: true,
            ..target(&pinned, "")
        })
        .unwrap();
        assert_eq!(r.base, "http://127.0.0.1:5000");
        assert_eq!(r.name, "c");
        assert_eq!(r.digest, Some(format!("sha256:{}", "a".repeat(64))));
        assert!(parse_reference(&target("https://ghcr.io/x", "y")).is_err());
        assert!(parse_reference(&target("oci://ghcr.io/X", "y")).is_err());
        assert!(parse_reference(&target("oci://ghcr.io", "")).is_err());
    }

    #[test]
    fn challenges() {
        let c = parse_challenge(
            r#"realm="https://auth.example/token",service="registry.example",scope="repository:a/b:pull,push""#,
        );
        assert_eq!(
            c,
            vec![
                (
                    "realm".to_string(),
                    "https://auth.example/token".to_string()
                ),
                ("service".to_string(), "registry.example".to_string()),
                ("scope".to_string(), "repository:a/b:pull,push".to_string()),
            ]
        );
        assert_eq!(
            url_encode("repository:a/b:pull"),
            "repository%3Aa%2Fb%3Apull"
        );
    }
}
