//! A bucket on an S3-compatible server, read as Flux source-controller's generic Bucket provider
//! (minio-go) reads it: the bucket's region ([`bucket_region`]), whether it exists
//! ([`bucket_exists`]), its objects under a prefix ([`list_objects`], ListObjectsV2, recursive,
//! every page) and one object's bytes and ETag ([`get_object`]). Requests are path-style
//! (`http(s)://endpoint/bucket/key`), signed with AWS Signature Version 4 when credentials are
//! given and anonymous otherwise, and go through `offlux_net`'s guarded client (egress policy,
//! bounded bodies and time).
//!
//! Not for: Flux's notions (`spec.ignore`, `.sourceignore`, skipping keys that end in `/`, the
//! artifact's layout and revision: the caller's), writing, virtual-host-style addressing (which
//! minio-go picks for AWS, Google and Aliyun endpoints; AWS S3 still answers path-style),
//! ListObjects V1 (minio-go's choice for Google Cloud Storage's endpoint), session tokens, IAM or
//! other ambient credentials, retries.

mod sigv4;
mod xml;

use std::time::{SystemTime, UNIX_EPOCH};

use offlux_net::{Client, NetError, Reply};

/// The region requests are signed for when none is known, as minio-go signs.
pub const DEFAULT_REGION: &str = "us-east-1";

/// Consecutive listing pages without an object after which a server is taken to be looping.
const MAX_EMPTY_PAGES: usize = 100;

/// An S3-compatible server and how to reach it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Endpoint {
    /// `host` or `host:port`, no scheme or path (Flux's `spec.endpoint`).
    pub endpoint: String,
    /// Plain HTTP rather than HTTPS (Flux's `spec.insecure`).
    pub insecure: bool,
    /// The region requests are signed for (Flux's `spec.region`); `None` signs for
    /// [`DEFAULT_REGION`]. Where Flux's is empty, minio-go asks the server ([`bucket_region`]).
    pub region: Option<String>,
    /// `None` for anonymous requests.
    pub credentials: Option<Credentials>,
}

/// A static access key (Flux's Secret keys `accesskey` and `secretkey`).
#[derive(Clone, PartialEq, Eq)]
pub struct Credentials {
    pub access_key: String,
    pub secret_key: String,
}

impl std::fmt::Debug for Credentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Credentials")
            .field("access_key", &self.access_key)
            .field("secret_key", &"<redacted>")
            .finish()
    }
}

/// One object of a listing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ObjectInfo {
    pub key: String,
    /// Without its quotes, as minio-go reports it.
    pub etag: String,
    pub size: u64,
}

/// An object's content.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Object {
    pub data: Vec<u8>,
    /// Without its quotes; empty when the server sent none.
    pub etag: String,
}

/// Why a bucket read failed.
#[derive(Debug, thiserror::Error)]
pub enum BucketError {
    #[error(transparent)]
    Net(#[from] NetError),
    /// The server answered with an error: `code` is its S3 error code (`AccessDenied`,
    /// `SignatureDoesNotMatch`, `NoSuchBucket`, ...), or one named after the status as minio-go
    /// names it when the body held none.
    #[error("{url}: {code} (HTTP {status}){}", colon_before(.message))]
    Server {
        url: String,
        status: u16,
        code: String,
        message: String,
        /// The bucket's region, where the server said (`<Region>`, `x-amz-bucket-region`).
        region: Option<String>,
    },
    /// A success whose body is not what S3 sends.
    #[error("{url}: {message}")]
    Response { url: String, message: String },
    #[error("bucket `{bucket}` holds more than {limit} objects under prefix `{prefix}` (the object limit)")]
    TooManyObjects {
        bucket: String,
        prefix: String,
        limit: usize,
    },
    #[error("endpoint `{endpoint}`: {reason}")]
    Endpoint { endpoint: String, reason: String },
    #[error("bucket name `{bucket}`: {reason}")]
    BucketName { bucket: String, reason: String },
    #[error("object key is empty")]
    EmptyKey,
}

impl BucketError {
    /// Whether the server was never heard from, or stopped answering: this machine's reach, not
    /// the request.
    pub fn is_unreachable(&self) -> bool {
        matches!(
            self,
            BucketError::Net(
                NetError::Transport { .. } | NetError::Idle { .. } | NetError::Deadline { .. }
            )
        )
    }

    /// The S3 error code of a server's error answer.
    pub fn code(&self) -> Option<&str> {
        match self {
            BucketError::Server { code, .. } => Some(code),
            _ => None,
        }
    }
}

/// The region of `bucket` as minio-go finds it when Flux's `spec.region` is empty:
/// `endpoint.region` when set; otherwise the bucket's `?location` asked (signed for
/// [`DEFAULT_REGION`]), an empty answer meaning `us-east-1` and `EU` `eu-west-1`; an
/// `AccessDenied`, `AuthorizationHeaderMalformed` or `InvalidRegion` answer gives the region it
/// names, or `us-east-1`. A missing bucket is an error with code `NoSuchBucket` (minio-go's
/// `BucketExists` reads that as `false`).
pub fn bucket_region(
    client: &Client,
    endpoint: &Endpoint,
    bucket: &str,
) -> Result<String, BucketError> {
    if let Some(region) = &endpoint.region {
        return Ok(region.clone());
    }
    let (url, reply) = get(
        client,
        endpoint,
        DEFAULT_REGION,
        bucket,
        None,
        &[("location", "")],
    )?;
    if !is_success(reply.status) {
        let error = server_error(url, &reply, None);
        if let BucketError::Server { code, region, .. } = &error {
            if matches!(
                code.as_str(),
                "AccessDenied" | "AuthorizationHeaderMalformed" | "InvalidRegion"
            ) {
                return Ok(region.clone().unwrap_or_else(|| DEFAULT_REGION.to_string()));
            }
        }
        return Err(error);
    }
    let location =
        xml::location(&reply.body).map_err(|message| BucketError::Response { url, message })?;
    Ok(match location.as_str() {
        "" => DEFAULT_REGION.to_string(),
        "EU" => "eu-west-1".to_string(),
        _ => location,
    })
}

/// Whether `bucket` exists: a ListObjectsV2 of one key (it needs the `s3:ListBucket` permission a
/// HEAD of the bucket, minio-go's request, needs; `offlux_net` sends no HEAD). A 404 answer
/// (`NoSuchBucket`) is `false`; any other error is an error.
pub fn bucket_exists(
    client: &Client,
    endpoint: &Endpoint,
    bucket: &str,
) -> Result<bool, BucketError> {
    let (url, reply) = get(
        client,
        endpoint,
        signing_region(endpoint),
        bucket,
        None,
        &[("list-type", "2"), ("max-keys", "1")],
    )?;
    if is_success(reply.status) {
        return Ok(true);
    }
    match server_error(url, &reply, None) {
        BucketError::Server {
            status: 404, code, ..
        } if code == "NoSuchBucket" => Ok(false),
        error => Err(error),
    }
}

/// Every object of `bucket` whose key starts with `prefix`, in the order the server lists them
/// (ListObjectsV2 as minio-go sends it for a recursive listing: `encoding-type=url`, no
/// delimiter, the server's page size, continuation tokens until the listing ends). More than
/// `max_objects` objects is an error.
pub fn list_objects(
    client: &Client,
    endpoint: &Endpoint,
    bucket: &str,
    prefix: &str,
    max_objects: usize,
) -> Result<Vec<ObjectInfo>, BucketError> {
    let region = signing_region(endpoint);
    let mut objects = Vec::new();
    let mut token: Option<String> = None;
    let mut empty_pages = 0;
    loop {
        let mut query = vec![
            ("list-type", "2"),
            ("encoding-type", "url"),
            ("prefix", prefix),
            ("delimiter", ""),
        ];
        if let Some(token) = &token {
            query.push(("continuation-token", token));
        }
        let (url, reply) = get(client, endpoint, region, bucket, None, &query)?;
        if !is_success(reply.status) {
            return Err(server_error(url, &reply, None));
        }
        let left = max_objects.saturating_sub(objects.len());
        let page = xml::list_page(&reply.body, left).map_err(|message| BucketError::Response {
            url: url.clone(),
            message,
        })?;
        if page.objects.len() > left {
            return Err(BucketError::TooManyObjects {
                bucket: bucket.to_string(),
                prefix: prefix.to_string(),
                limit: max_objects,
            });
        }
        empty_pages = if page.objects.is_empty() {
            empty_pages + 1
        } else {
            0
        };
        objects.extend(page.objects.into_iter().map(|o| ObjectInfo {
            key: o.key,
            etag: trim_etag(&o.etag).to_string(),
            size: o.size,
        }));
        if !page.is_truncated {
            return Ok(objects);
        }
        let next = match page.next_continuation_token {
            Some(next) if !next.is_empty() => next,
            _ => {
                return Err(BucketError::Response {
                    url,
                    message: "a truncated listing without <NextContinuationToken>".to_string(),
                })
            }
        };
        if token.as_deref() == Some(next.as_str()) || empty_pages > MAX_EMPTY_PAGES {
            return Err(BucketError::Response {
                url,
                message: "the listing does not advance".to_string(),
            });
        }
        token = Some(next);
    }
}

/// The content and ETag of `key` in `bucket`; `None` when the server answers 404 `NoSuchKey`
/// (Flux skips an object that went away between listing and fetching). The body is bounded by
/// the client's `max_bytes`.
pub fn get_object(
    client: &Client,
    endpoint: &Endpoint,
    bucket: &str,
    key: &str,
) -> Result<Option<Object>, BucketError> {
    if key.is_empty() {
        return Err(BucketError::EmptyKey);
    }
    let (url, reply) = get(
        client,
        endpoint,
        signing_region(endpoint),
        bucket,
        Some(key),
        &[],
    )?;
    if !is_success(reply.status) {
        return match server_error(url, &reply, Some(key)) {
            BucketError::Server {
                status: 404, code, ..
            } if code == "NoSuchKey" => Ok(None),
            error => Err(error),
        };
    }
    let etag = trim_etag(reply.header("etag").unwrap_or_default()).to_string();
    Ok(Some(Object {
        data: reply.body,
        etag,
    }))
}

fn colon_before(message: &str) -> String {
    if message.is_empty() {
        String::new()
    } else {
        format!(": {message}")
    }
}

fn signing_region(endpoint: &Endpoint) -> &str {
    endpoint.region.as_deref().unwrap_or(DEFAULT_REGION)
}

fn is_success(status: u16) -> bool {
    (200..300).contains(&status)
}

/// minio-go's `trimEtag`: one quote off each end.
fn trim_etag(etag: &str) -> &str {
    let etag = etag.strip_prefix('"').unwrap_or(etag);
    etag.strip_suffix('"').unwrap_or(etag)
}

/// GET `bucket` (or `key` in it) with `query`, signed for `region` when the endpoint has
/// credentials; the URL requested and the reply.
fn get(
    client: &Client,
    endpoint: &Endpoint,
    region: &str,
    bucket: &str,
    key: Option<&str>,
    query: &[(&str, &str)],
) -> Result<(String, Reply), BucketError> {
    check_bucket_name(bucket)?;
    let host = host(endpoint)?;
    let scheme = if endpoint.insecure { "http" } else { "https" };
    // Path-style, as minio-go spells it: `/bucket/` for the bucket, `/bucket/key` for an object.
    let mut path = format!("/{}/", sigv4::uri_encode(bucket, false));
    if let Some(key) = key {
        path.push_str(&sigv4::uri_encode(key, true));
    }
    let query = sigv4::canonical_query(query);
    let url = if query.is_empty() {
        format!("{scheme}://{host}{path}")
    } else {
        format!("{scheme}://{host}{path}?{query}")
    };

    let mut headers: Vec<(&str, String)> = Vec::new();
    if let Some(credentials) = &endpoint.credentials {
        let secs = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        let date = sigv4::amz_date(secs);
        let request = sigv4::Request {
            method: "GET",
            path: &path,
            query: &query,
            // `host` as the client sends it: the URL's authority.
            headers: &[
                ("host", &host),
                ("x-amz-content-sha256", sigv4::EMPTY_SHA256),
                ("x-amz-date", &date),
            ],
            payload_sha256: sigv4::EMPTY_SHA256,
        };
        let signer = sigv4::Signer {
            access_key: &credentials.access_key,
            secret_key: &credentials.secret_key,
            region,
            service: "s3",
        };
        let authorization = sigv4::authorization(&request, &signer, &date);
        headers.push(("x-amz-content-sha256", sigv4::EMPTY_SHA256.to_string()));
        headers.push(("x-amz-date", date));
        headers.push(("authorization", authorization));
    }
    let reply = client.get(&url, &headers)?;
    Ok((url, reply))
}

/// The error a non-success reply stands for: the S3 error document's code, or the code minio-go
/// gives the status when the body holds none.
fn server_error(url: String, reply: &Reply, key: Option<&str>) -> BucketError {
    let doc = xml::error_doc(&reply.body).unwrap_or_default();
    let code = if doc.code.is_empty() {
        match reply.status {
            301 => "PermanentRedirect",
            307 => "Redirect",
            400 => "BadRequest",
            403 => "AccessDenied",
            404 if key.is_some() => "NoSuchKey",
            404 => "NoSuchBucket",
            405 => "MethodNotAllowed",
            409 => "Conflict",
            501 => "NotImplemented",
            _ => "",
        }
        .to_string()
    } else {
        doc.code
    };
    let code = if code.is_empty() {
        format!("HTTP{}", reply.status)
    } else {
        code
    };
    let region = Some(doc.region)
        .filter(|r| !r.is_empty())
        .or_else(|| reply.header("x-amz-bucket-region").map(str::to_string))
        .filter(|r| !r.is_empty());
    BucketError::Server {
        url,
        status: reply.status,
        code,
        message: doc.message,
        region,
    }
}

/// The URL authority for `endpoint`: lowercase, the scheme's default port dropped (minio-go drops
/// it too, so the signed `host` is what the client sends).
fn host(endpoint: &Endpoint) -> Result<String, BucketError> {
    let raw = endpoint.endpoint.as_str();
    let invalid = |reason: &str| BucketError::Endpoint {
        endpoint: raw.to_string(),
        reason: reason.to_string(),
    };
    if raw.is_empty() {
        return Err(invalid("empty"));
    }
    if raw.contains("://") {
        return Err(invalid(
            "a host or host:port is expected, without a scheme (`insecure` chooses http)",
        ));
    }
    if raw.chars().any(|c| {
        matches!(c, '/' | '?' | '#' | '@' | '\\' | '%') || c.is_whitespace() || c.is_control()
    }) {
        return Err(invalid(
            "a host or host:port is expected, without a path, query or user",
        ));
    }
    let host = raw.to_ascii_lowercase();
    let default_port = if endpoint.insecure { ":80" } else { ":443" };
    Ok(host
        .strip_suffix(default_port)
        .map(str::to_string)
        .unwrap_or(host))
}

/// minio-go's `CheckValidBucketName` (the lenient one): 3 to 63 of `A-Z a-z 0-9 . - _ :`, a
/// letter or digit at each end, no `..`, `.-` or `-.`, not an IPv4 address.
fn check_bucket_name(bucket: &str) -> Result<(), BucketError> {
    let invalid = |reason: &str| {
        Err(BucketError::BucketName {
            bucket: bucket.to_string(),
            reason: reason.to_string(),
        })
    };
    if bucket.trim().is_empty() {
        return invalid("empty");
    }
    if bucket.len() < 3 {
        return invalid("shorter than 3 characters");
    }
    if bucket.len() > 63 {
        return invalid("longer than 63 characters");
    }
    let parts: Vec<&str> = bucket.split('.').collect();
    if parts.len() == 4
        && parts
            .iter()
            .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
    {
        return invalid("an IP address");
    }
    if bucket.contains("..") || bucket.contains(".-") || bucket.contains("-.") {
        return invalid("contains `..`, `.-` or `-.`");
    }
    let bytes = bucket.as_bytes();
    let ends_ok = bytes.first().is_some_and(u8::is_ascii_alphanumeric)
        && bytes.last().is_some_and(u8::is_ascii_alphanumeric);
    let chars_ok = bytes
        .iter()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'_' | b':'));
    if !ends_ok || !chars_ok {
        return invalid("characters other than letters, digits, `.`, `-`, `_` and `:`, or not a letter or digit at an end");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn endpoint(raw: &str, insecure: bool) -> Endpoint {
        Endpoint {
            endpoint: raw.to_string(),
            insecure,
            region: None,
            credentials: None,
        }
    }

    #[test]
    fn hosts() {
        assert_eq!(
            host(&endpoint("S3.Example.com", false)).unwrap(),
            "s3.example.com"
        );
        assert_eq!(host(&endpoint("minio:443", false)).unwrap(), "minio");
        assert_eq!(host(&endpoint("minio:443", true)).unwrap(), "minio:443");
        assert_eq!(host(&endpoint("minio:80", true)).unwrap(), "minio");
        assert_eq!(
            host(&endpoint("127.0.0.1:9000", true)).unwrap(),
            "127.0.0.1:9000"
        );
        assert_eq!(host(&endpoint("[::1]:9000", true)).unwrap(), "[::1]:9000");
        for bad in [
            "",
            "https://minio",
            "minio/path",
            "user@minio",
            "minio?x",
            "mi nio",
        ] {
            assert!(
                matches!(
                    host(&endpoint(bad, false)),
                    Err(BucketError::Endpoint { .. })
                ),
                "{bad}"
            );
        }
    }

    #[test]
    fn bucket_names() {
        for good in ["abc", "my-bucket.v1", "A_b:c", "a".repeat(63).as_str()] {
            assert!(check_bucket_name(good).is_ok(), "{good}");
        }
        for bad in [
            "",
            "ab",
            "-abc",
            "abc-",
            "a..b",
            "a.-b",
            "a-.b",
            "a/b",
            "a b",
            "192.168.1.1",
            &"a".repeat(64),
            "ab\u{e9}",
        ] {
            assert!(check_bucket_name(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn etags() {
        assert_eq!(trim_etag("\"abc\""), "abc");
        assert_eq!(trim_etag("abc"), "abc");
        assert_eq!(trim_etag("\"abc-2\""), "abc-2");
        assert_eq!(trim_etag("\""), "");
    }

    fn reply(status: u16, body: &str, headers: &[(&str, &str)]) -> Reply {
        Reply {
            status,
            headers: headers
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            body: body.as_bytes().to_vec(),
        }
    }

    #[test]
    fn server_errors() {
        let error = server_error(
            "http://h/b/".into(),
            &reply(
                403,
                "<Error><Code>SignatureDoesNotMatch</Code><Message>The request signature we calculated does not match</Message></Error>",
                &[],
            ),
            None,
        );
        assert_eq!(error.code(), Some("SignatureDoesNotMatch"));
        assert_eq!(
            error.to_string(),
            "http://h/b/: SignatureDoesNotMatch (HTTP 403): The request signature we calculated does not match"
        );
        assert!(!error.is_unreachable());

        // No document: the code minio-go names the status with; the region from the header.
        let error = server_error(
            "http://h/b/k".into(),
            &reply(404, "", &[("X-Amz-Bucket-Region", "eu-west-1")]),
            Some("k"),
        );
        assert!(matches!(
            &error,
            BucketError::Server { code, region: Some(region), .. } if code == "NoSuchKey" && region == "eu-west-1"
        ));
        assert_eq!(error.to_string(), "http://h/b/k: NoSuchKey (HTTP 404)");
        let error = server_error(
            "u".into(),
            &reply(502, "<html>bad gateway</html>", &[]),
            None,
        );
        assert_eq!(error.code(), Some("HTTP502"));
    }

    #[test]
    fn unreachable() {
        let net = |e| BucketError::Net(e);
        assert!(net(NetError::Transport {
            url: "u".into(),
            message: "refused".into()
        })
        .is_unreachable());
        assert!(net(NetError::Idle {
            url: "u".into(),
            secs: 1
        })
        .is_unreachable());
        assert!(net(NetError::Deadline {
            url: "u".into(),
            secs: 1
        })
        .is_unreachable());
        assert!(!net(NetError::TooLarge {
            url: "u".into(),
            limit: 1
        })
        .is_unreachable());
    }

    #[test]
    fn credentials_are_not_printed() {
        let credentials = Credentials {
            access_key: "AKIA".into(),
            secret_key: "hunter2".into(),
        };
        assert!(!format!("{credentials:?}").contains("hunter2"));
    }
}
