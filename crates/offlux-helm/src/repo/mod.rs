//! Chart sources: finds a chart archive (or an unpacked chart directory) for a chart name and a
//! version request, from a local chart cache first, then from an HTTP Helm repository or an OCI
//! registry. Knows nothing of Flux objects, the Store or the CLI; does not load charts (see
//! [`crate::load_archive`] and [`crate::load_dir`]): the output is bytes or a path.
//!
//! Supported:
//! - a local chart cache (`<chart>-<version>/` directories or `<chart>-<version>.tgz` files,
//!   matched by chart name and version whatever URL the repository uses, so a mirror serves any
//!   source); versions may carry a leading `v`;
//! - version requests as Helm reads them: an exact version (looked up as written first), a
//!   Masterminds constraint (`>=1.0.0 <2`, `~4.1`, `1.x`), or `""`/`*` for the latest stable;
//! - HTTP Helm repositories (`index.yaml`, chart URLs absolute or relative to the repository,
//!   basic auth, the index digest verified when present);
//! - OCI registries over the distribution API (tags list with `_` read as `+`, manifests, the
//!   Helm chart layer, sha256 verified, bearer-token and basic auth, `sha256:` digests);
//! - a content-addressed download cache (`<download_cache>/sha256/<hex>`), written atomically;
//! - `offline`: no network at all, and an error naming what is missing;
//! - no connection to loopback, link-local or private addresses unless `allow_private_network`.
//!
//! Not supported: provenance files (`.prov`) and signatures, TLS client certificates and custom
//! CAs, credential helpers, index caching across runs.
//!
//! Network code sits behind the `network` cargo feature (on by default); without it a chart that
//! is not in a local cache is reported as unavailable.

mod artifact;
pub use artifact::{
    list_artifact_tags, pull_artifact, ArtifactReference, ArtifactRepository, PulledArtifact,
};
mod cache;
pub use cache::{
    cached_archives, find_in_chart_cache, locate_in_chart_cache, CacheEntry, CachedArchive,
    ChartCacheListing,
};
#[cfg(feature = "network")]
mod http;
#[cfg(feature = "network")]
mod oci;

use std::cmp::Ordering;
use std::fmt;
use std::path::PathBuf;

use offlux_template::funcs::semver_api::{compare, parse_version, satisfies};

/// Credentials for HTTP basic auth (and for the token endpoint of an OCI registry).
#[derive(Clone, PartialEq, Eq)]
pub struct BasicAuth {
    pub username: String,
    pub password: String,
}

impl fmt::Debug for BasicAuth {
    // The password never appears in debug output.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BasicAuth")
            .field("username", &self.username)
            .field("password", &"<redacted>")
            .finish()
    }
}

/// Where a chart comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Repository {
    /// An HTTP(S) Helm repository: `url` is the directory holding `index.yaml`.
    Http {
        url: String,
        auth: Option<BasicAuth>,
    },
    /// An OCI registry. `url` is `oci://host[:port]/path`: with a chart name in the request, the
    /// chart is `path/<chart>` (a HelmRepository of `type: oci`); with an empty chart name, `url`
    /// is the chart's own reference (`oci://host/path/chart`, optionally `@sha256:<hex>`).
    Oci {
        url: String,
        auth: Option<BasicAuth>,
        /// Talk plain HTTP instead of HTTPS (local registries and tests only).
        insecure_http: bool,
    },
}

impl Repository {
    /// The repository's URL, as given.
    pub fn url(&self) -> &str {
        match self {
            Repository::Http { url, .. } | Repository::Oci { url, .. } => url,
        }
    }
}

/// One chart to find.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChartRequest {
    pub repository: Repository,
    /// The chart name; may be empty for a direct OCI reference (see [`Repository::Oci`]).
    pub chart: String,
    /// An exact version, a Masterminds constraint, `""` or `"*"` for the latest stable version,
    /// or (OCI only) a digest `sha256:<hex>`.
    pub version: String,
}

impl ChartRequest {
    /// The chart's name: `chart`, or the last path segment of a direct OCI reference.
    pub(crate) fn chart_name(&self) -> String {
        if !self.chart.is_empty() {
            return self.chart.clone();
        }
        let url = self.repository.url();
        let url = url.split_once('@').map_or(url, |(u, _)| u);
        url.trim_end_matches('/')
            .rsplit('/')
            .next()
            .unwrap_or_default()
            .to_string()
    }
}

/// A chart found: an unpacked directory from the local chart cache, or an archive's bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FetchedChart {
    Directory {
        path: PathBuf,
        version: String,
    },
    Archive {
        name: String,
        version: String,
        /// `sha256:<hex>` of `bytes`.
        digest: String,
        bytes: Vec<u8>,
    },
}

/// How to fetch.
#[derive(Clone, Debug)]
pub struct FetchOptions {
    /// A directory of `<chart>-<version>/` directories and `<chart>-<version>.tgz` files,
    /// searched before any network access.
    pub chart_cache: Option<PathBuf>,
    /// Where downloads are kept by content (`sha256/<hex>`) and reused across runs.
    pub download_cache: Option<PathBuf>,
    /// No network access at all.
    pub offline: bool,
    /// Connect to loopback, link-local and private addresses too (refused by default, checked on
    /// the address connected to, after DNS and on every redirect).
    pub allow_private_network: bool,
    /// The largest body read from the network (an index, a manifest, a chart archive).
    pub max_bytes: u64,
    /// Per-request timeout in seconds.
    pub timeout_secs: u64,
    /// Seconds a request may wait for its next bytes (a server that stops sending).
    pub idle_timeout_secs: u64,
    /// When the run's network time ends: no request starts after it, and one in flight is cut
    /// there (a server that trickles bytes holds no run longer than this).
    pub deadline: Option<NetworkDeadline>,
    /// The proxy every request goes through (`--proxy`); none from the environment.
    pub proxy: Option<String>,
}

/// The end of the run's network time, and the seconds it was set to (for the message).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NetworkDeadline {
    pub at: std::time::Instant,
    pub secs: u64,
}

impl NetworkDeadline {
    /// `secs` from now.
    pub fn after(secs: u64) -> NetworkDeadline {
        NetworkDeadline {
            at: std::time::Instant::now() + std::time::Duration::from_secs(secs),
            secs,
        }
    }
}

/// The idle timeout's default, in seconds: `--network-idle-timeout`.
pub const DEFAULT_IDLE_TIMEOUT_SECS: u64 = 15;
/// The run's network time's default, in seconds: `--network-deadline`.
pub const DEFAULT_NETWORK_DEADLINE_SECS: u64 = 300;

impl Default for FetchOptions {
    fn default() -> Self {
        FetchOptions {
            chart_cache: None,
            download_cache: None,
            offline: false,
            allow_private_network: false,
            max_bytes: 64 << 20,
            timeout_secs: 60,
            idle_timeout_secs: DEFAULT_IDLE_TIMEOUT_SECS,
            deadline: None,
            proxy: None,
        }
    }
}

/// Why a chart could not be fetched: the chart, the version requested and the repository URL,
/// and what went wrong. Boxed so a `Result` stays small.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FetchError(Box<ErrorInner>);

#[derive(Clone, Debug, PartialEq, Eq)]
struct ErrorInner {
    chart: String,
    version: String,
    url: String,
    kind: FetchErrorKind,
}

impl FetchError {
    /// The chart's name.
    pub fn chart(&self) -> &str {
        &self.0.chart
    }

    /// The version requested, as written (`""` for the latest).
    pub fn version(&self) -> &str {
        &self.0.version
    }

    /// The repository URL, as given.
    pub fn url(&self) -> &str {
        &self.0.url
    }

    /// What went wrong.
    pub fn kind(&self) -> &FetchErrorKind {
        &self.0.kind
    }
}

/// What went wrong while fetching.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FetchErrorKind {
    #[error("is not in the chart cache and the network is off (--offline)")]
    Offline,
    #[error(
        "is not in the chart cache and network support is not compiled in (feature `network`)"
    )]
    NetworkNotCompiled,
    #[error("invalid version request: {0}")]
    InvalidVersion(String),
    #[error("invalid repository URL: {0}")]
    InvalidUrl(String),
    #[error("no such chart in the repository")]
    NoSuchChart,
    #[error("not found: {0}")]
    NotFound(String),
    #[error("no version matches (available: {available})")]
    NoMatchingVersion { available: String },
    /// The request did not complete: no connection (DNS, refused, TLS, an address the egress
    /// policy refuses) or the transfer broke off.
    #[error("{url}: {message}")]
    Http { url: String, message: String },
    /// The TLS handshake failed (a plain-HTTP server, an untrusted certificate).
    #[error("{url}: {message}")]
    Tls { url: String, message: String },
    /// The server answered with an error status.
    #[error("{url}: HTTP status {status}{reason}")]
    Status {
        url: String,
        status: u16,
        reason: &'static str,
    },
    #[error("{url}: body larger than {limit} bytes")]
    TooLarge { url: String, limit: u64 },
    #[error(
        "{url}: no data for {secs} s (the idle timeout; raise it with `--network-idle-timeout`)"
    )]
    Idle { url: String, secs: u64 },
    #[error(
        "{url}: the run's network time of {secs} s is used up (raise it with `--network-deadline`)"
    )]
    Deadline { url: String, secs: u64 },
    #[error("invalid {what}: {message}")]
    Invalid { what: String, message: String },
    #[error("digest mismatch for {url}: expected {expected}, got {actual}")]
    DigestMismatch {
        url: String,
        expected: String,
        actual: String,
    },
    #[error("{path}: {message}")]
    Io { path: String, message: String },
}

#[cfg(feature = "network")]
impl From<offlux_net::NetError> for FetchErrorKind {
    fn from(error: offlux_net::NetError) -> Self {
        use offlux_net::NetError;
        match error {
            NetError::Transport { url, message } => FetchErrorKind::Http { url, message },
            NetError::Tls { url, message } => FetchErrorKind::Tls { url, message },
            NetError::TooLarge { url, limit } => FetchErrorKind::TooLarge { url, limit },
            NetError::Idle { url, secs } => FetchErrorKind::Idle { url, secs },
            NetError::Deadline { url, secs } => FetchErrorKind::Deadline { url, secs },
        }
    }
}

impl FetchErrorKind {
    /// Whether the server was never heard from (or stopped answering): what went wrong is this
    /// machine's reach, not the request, so it says nothing of what a cluster's fetch would do.
    pub fn is_unreachable(&self) -> bool {
        matches!(
            self,
            FetchErrorKind::Http { .. }
                | FetchErrorKind::Idle { .. }
                | FetchErrorKind::Deadline { .. }
        )
    }
}

impl fmt::Display for FetchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let e = &self.0;
        let version = if e.version.is_empty() {
            "*"
        } else {
            &e.version
        };
        match e.kind {
            FetchErrorKind::Offline | FetchErrorKind::NetworkNotCompiled => {
                write!(f, "chart {} {version} from {} {}", e.chart, e.url, e.kind)
            }
            _ => write!(f, "chart {} {version} from {}: {}", e.chart, e.url, e.kind),
        }
    }
}

impl std::error::Error for FetchError {}

/// Finds the chart: the local chart cache first, then (unless `offline`) the repository, with
/// downloads kept in and reused from the download cache.
pub fn fetch(request: &ChartRequest, options: &FetchOptions) -> Result<FetchedChart, FetchError> {
    let name = request.chart_name();
    let error = |kind| {
        FetchError(Box::new(ErrorInner {
            chart: name.clone(),
            version: request.version.clone(),
            url: request.repository.url().to_string(),
            kind,
        }))
    };
    if let Some(dir) = &options.chart_cache {
        if let Some(found) =
            cache::find_in_chart_cache(dir, &name, &request.version).map_err(error)?
        {
            return Ok(found);
        }
    }
    if options.offline {
        return Err(error(FetchErrorKind::Offline));
    }
    remote(request, &name, options).map_err(error)
}

#[cfg(feature = "network")]
fn remote(
    request: &ChartRequest,
    name: &str,
    options: &FetchOptions,
) -> Result<FetchedChart, FetchErrorKind> {
    match &request.repository {
        Repository::Http { url, auth } => {
            http::fetch_from_index(url, auth.as_ref(), name, &request.version, options)
        }
        Repository::Oci {
            url,
            auth,
            insecure_http,
        } => oci::fetch(
            &oci::Target {
                url,
                chart: &request.chart,
                auth: auth.as_ref(),
                insecure_http: *insecure_http,
            },
            name,
            &request.version,
            options,
        ),
    }
}

#[cfg(not(feature = "network"))]
fn remote(_: &ChartRequest, _: &str, _: &FetchOptions) -> Result<FetchedChart, FetchErrorKind> {
    Err(FetchErrorKind::NetworkNotCompiled)
}

/// Whether `text` is an OCI content digest (`sha256:` and 64 hex digits), as an OCIRepository's
/// `ref.digest` pins an artifact.
pub(super) fn is_digest(text: &str) -> bool {
    text.strip_prefix("sha256:")
        .is_some_and(|hex| hex.len() == 64 && hex.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// Picks a version as Helm's repository index does: a version written exactly as requested wins;
/// otherwise the highest version satisfying the constraint (`""` and `*` mean the latest stable
/// version; pre-releases only when the constraint names one). Versions that are not semver are
/// only ever matched exactly. Returns the index of the chosen candidate.
pub(crate) fn select_version<'a>(
    candidates: impl IntoIterator<Item = &'a str>,
    request: &str,
) -> Result<Option<usize>, FetchErrorKind> {
    let candidates: Vec<&str> = candidates.into_iter().collect();
    let request = request.trim();
    if !request.is_empty() {
        if let Some(i) = candidates.iter().position(|c| *c == request) {
            return Ok(Some(i));
        }
    }
    let constraint = if request.is_empty() { "*" } else { request };
    // Reject a bad constraint even when there is nothing to match it against.
    satisfies(
        constraint,
        &parse_version("0.0.0").map_err(FetchErrorKind::InvalidVersion)?,
    )
    .map_err(FetchErrorKind::InvalidVersion)?;
    let mut best: Option<(usize, offlux_template::funcs::semver_api::Version)> = None;
    for (i, candidate) in candidates.iter().enumerate() {
        let Ok(version) = parse_version(candidate) else {
            continue;
        };
        if !satisfies(constraint, &version).unwrap_or(false) {
            continue;
        }
        let better = match &best {
            None => true,
            // Ties (`1.0.0` and `v1.0.0`, build metadata) go to the first in a sorted list.
            Some((j, b)) => match compare(&version, b) {
                Ordering::Greater => true,
                Ordering::Equal => *candidate < candidates[*j],
                Ordering::Less => false,
            },
        };
        if better {
            best = Some((i, version));
        }
    }
    Ok(best.map(|(i, _)| i))
}

/// `sha256:<hex>` of `bytes`.
pub(crate) fn sha256_digest(bytes: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    format!("sha256:{}", hex::encode(Sha256::digest(bytes)))
}

#[cfg(test)]
mod tests;
