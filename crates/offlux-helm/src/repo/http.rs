//! HTTP Helm repositories (`index.yaml` and the archives it points to), and the small HTTP
//! client the OCI client shares: one `ureq` agent, bodies read with a size cap, statuses turned
//! into errors that name the URL. Not for: OCI's protocol (see `oci`).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use base64::Engine;
use offlux_sync::MutexExt as _;

use super::cache::DownloadCache;
use super::{
    select_version, sha256_digest, BasicAuth, FetchErrorKind, FetchOptions, FetchedChart,
    NetworkDeadline,
};
use offlux_yaml::Node;

/// A blocking HTTP client with a body size cap, a per-request timeout, an idle timeout and the
/// run's network deadline.
pub(crate) struct Client {
    agent: ureq::Agent,
    pub(crate) max_bytes: u64,
    timeout: Duration,
    idle_secs: u64,
    deadline: Option<NetworkDeadline>,
}

/// A response whose body has been read in full (within the cap).
pub(crate) struct Reply {
    pub(crate) status: u16,
    pub(crate) headers: Vec<(String, String)>,
    pub(crate) body: Vec<u8>,
}

impl Reply {
    /// The first header named `name` (case-insensitive).
    pub(crate) fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

impl Client {
    pub(crate) fn new(options: &FetchOptions) -> Client {
        Client::with_resolver(
            options,
            super::egress::GuardedResolver::new(options.allow_private_network),
        )
    }

    /// A client whose connections go through `resolver`, which decides the addresses allowed.
    pub(crate) fn with_resolver(
        options: &FetchOptions,
        resolver: super::egress::GuardedResolver,
    ) -> Client {
        let config = ureq::Agent::config_builder()
            .http_status_as_error(false)
            // No proxy from the environment: the address check below is on what is connected to.
            .proxy(None)
            // Every read waits at most this long for bytes; the whole request is bounded per
            // request (`get`), by the per-request timeout and the run's deadline.
            .timeout_per_read(Some(Duration::from_secs(options.idle_timeout_secs.max(1))))
            .max_redirects(10)
            // Credentials follow a redirect to the same host over https, never elsewhere (a
            // registry's blob redirect to object storage must not carry them).
            .redirect_auth_headers(ureq::config::RedirectAuthHeaders::SameHost)
            .build();
        let agent = ureq::Agent::with_parts(
            config,
            ureq::unversioned::transport::DefaultConnector::default(),
            resolver,
        );
        Client {
            agent,
            max_bytes: options.max_bytes,
            timeout: Duration::from_secs(options.timeout_secs.max(1)),
            idle_secs: options.idle_timeout_secs.max(1),
            deadline: options.deadline,
        }
    }

    /// How long a request starting now may take: the per-request timeout, cut at the run's
    /// deadline; an error naming `url` once the deadline has passed.
    fn time_left(&self, url: &str) -> Result<Duration, FetchErrorKind> {
        let Some(deadline) = self.deadline else {
            return Ok(self.timeout);
        };
        match deadline.at.checked_duration_since(Instant::now()) {
            Some(left) if !left.is_zero() => Ok(left.min(self.timeout)),
            _ => Err(FetchErrorKind::Deadline {
                url: url.to_string(),
                secs: deadline.secs,
            }),
        }
    }

    /// A transport error, named for the limit that ended it where one did.
    fn failed(&self, url: &str, error: ureq::Error) -> FetchErrorKind {
        match error {
            ureq::Error::Timeout(ureq::Timeout::PerRead) => FetchErrorKind::Idle {
                url: url.to_string(),
                secs: self.idle_secs,
            },
            // The request was given until the deadline (read a little early: the two clocks
            // were read apart).
            ureq::Error::Timeout(_)
                if self
                    .deadline
                    .is_some_and(|d| Instant::now() + Duration::from_millis(100) >= d.at) =>
            {
                FetchErrorKind::Deadline {
                    url: url.to_string(),
                    secs: self.deadline.map_or(0, |d| d.secs),
                }
            }
            error => transport(url, error),
        }
    }

    /// GET `url` with `headers`, reading at most `max_bytes` of body.
    pub(crate) fn get(
        &self,
        url: &str,
        headers: &[(&str, String)],
    ) -> Result<Reply, FetchErrorKind> {
        let left = self.time_left(url)?;
        let mut request = self.agent.get(url);
        for (name, value) in headers {
            request = request.header(*name, value.as_str());
        }
        let response = request
            .config()
            .timeout_global(Some(left))
            .build()
            .call()
            .map_err(|e| self.failed(url, e))?;
        self.read(url, response)
    }

    pub(crate) fn read(
        &self,
        url: &str,
        mut response: ureq::http::Response<ureq::Body>,
    ) -> Result<Reply, FetchErrorKind> {
        let status = response.status().as_u16();
        let headers = response
            .headers()
            .iter()
            .filter_map(|(k, v)| Some((k.as_str().to_string(), v.to_str().ok()?.to_string())))
            .collect();
        let body = response
            .body_mut()
            .with_config()
            .limit(self.max_bytes)
            .read_to_vec()
            .map_err(|e| match e {
                ureq::Error::BodyExceedsLimit(limit) => FetchErrorKind::TooLarge {
                    url: url.to_string(),
                    limit,
                },
                e => self.failed(url, e),
            })?;
        Ok(Reply {
            status,
            headers,
            body,
        })
    }
}

pub(crate) fn transport(url: &str, error: ureq::Error) -> FetchErrorKind {
    FetchErrorKind::Http {
        url: url.to_string(),
        message: error.to_string(),
    }
}

pub(crate) fn status_error(url: &str, reply: &Reply) -> FetchErrorKind {
    let reason = match reply.status {
        401 => " (unauthorized)",
        403 => " (forbidden)",
        404 => " (not found)",
        _ => "",
    };
    FetchErrorKind::Status {
        url: url.to_string(),
        status: reply.status,
        reason,
    }
}

pub(crate) fn basic_header(auth: &BasicAuth) -> String {
    let raw = format!("{}:{}", auth.username, auth.password);
    format!(
        "Basic {}",
        base64::engine::general_purpose::STANDARD.encode(raw)
    )
}

/// Fetches `chart` at `version` from the HTTP Helm repository at `repo_url`.
pub(crate) fn fetch_from_index(
    repo_url: &str,
    auth: Option<&BasicAuth>,
    chart: &str,
    version: &str,
    options: &FetchOptions,
) -> Result<FetchedChart, FetchErrorKind> {
    let client = Client::new(options);
    let base = repo_url.trim_end_matches('/');
    let auth_headers: Vec<(&str, String)> = auth
        .map(|a| vec![("Authorization", basic_header(a))])
        .unwrap_or_default();
    let index_url = format!("{base}/index.yaml");
    let memo_key = format!("{index_url} {}", auth.map_or("", |a| a.username.as_str()));
    let index = match memo().get(&memo_key) {
        Some(index) => index,
        None => {
            let reply = client.get(&index_url, &auth_headers)?;
            if reply.status != 200 {
                return Err(status_error(&index_url, &reply));
            }
            let index = Arc::new(parse_index(&index_url, &reply.body)?);
            memo().put(memo_key, Arc::clone(&index));
            index
        }
    };
    let entry = pick_entry(&index, chart, version)?;
    let chart_url = resolve_url(base, &entry.url);
    let download_cache = options
        .download_cache
        .as_deref()
        .map(|root| DownloadCache { root });
    if let (Some(cache), Some(digest)) = (&download_cache, &entry.digest) {
        if let Some(bytes) = cache.get(digest, options.max_bytes) {
            return Ok(archive(chart, entry.version, digest.clone(), bytes));
        }
    }
    // Helm sends the repository's credentials for chart URLs on the repository's own host only.
    let same_host = host_of(&chart_url) == host_of(base);
    let headers = if same_host { &auth_headers[..] } else { &[] };
    let reply = client.get(&chart_url, headers)?;
    if reply.status != 200 {
        return Err(status_error(&chart_url, &reply));
    }
    let actual = sha256_digest(&reply.body);
    if let Some(expected) = &entry.digest {
        if *expected != actual {
            return Err(FetchErrorKind::DigestMismatch {
                url: chart_url,
                expected: expected.clone(),
                actual,
            });
        }
    }
    if let Some(cache) = &download_cache {
        cache.put(&reply.body)?;
    }
    Ok(archive(chart, entry.version, actual, reply.body))
}

fn archive(chart: &str, version: String, digest: String, bytes: Vec<u8>) -> FetchedChart {
    FetchedChart::Archive {
        name: chart.to_string(),
        version,
        digest,
        bytes,
    }
}

/// One chart version of an index: where to download it and its digest (`sha256:<hex>`).
#[derive(Clone, Debug, PartialEq)]
struct Entry {
    version: String,
    url: String,
    digest: Option<String>,
}

/// A repository index: each chart's versions, in the index's order.
type Index = HashMap<String, Vec<Entry>>;

/// Indexes read during this run (a process is one run), so many charts from one repository
/// cost one download of its index. Keyed by the index URL and the user name.
struct Memo(Mutex<HashMap<String, Arc<Index>>>);

impl Memo {
    fn get(&self, key: &str) -> Option<Arc<Index>> {
        self.0.locked().get(key).cloned()
    }

    fn put(&self, key: String, index: Arc<Index>) {
        {
            let mut map = self.0.locked();
            map.insert(key, index);
        }
    }
}

fn memo() -> &'static Memo {
    static MEMO: OnceLock<Memo> = OnceLock::new();
    MEMO.get_or_init(|| Memo(Mutex::new(HashMap::new())))
}

fn parse_index(index_url: &str, text: &[u8]) -> Result<Index, FetchErrorKind> {
    let invalid = |message: String| FetchErrorKind::Invalid {
        what: format!("repository index {index_url}"),
        message,
    };
    let text = std::str::from_utf8(text).map_err(|e| invalid(e.to_string()))?;
    let docs = offlux_yaml::parse_stream(text, &offlux_yaml::ParseOptions::default())
        .map_err(|e| invalid(e.to_string()))?;
    // The tree, not its JSON form: a version or a digest is read as written (`1.10` stays
    // `1.10`, an all-digit digest stays text).
    let Some(charts) = docs
        .first()
        .and_then(|d| d.root.get("entries"))
        .and_then(Node::as_mapping)
    else {
        return Ok(Index::new());
    };
    let mut index = Index::new();
    for (chart, versions) in charts.iter() {
        let Some(versions) = versions.as_sequence() else {
            continue;
        };
        let entries = versions.items.iter().filter_map(entry).collect();
        index.insert(chart.to_string(), entries);
    }
    Ok(index)
}

fn entry(v: &Node) -> Option<Entry> {
    let version = v.get("version")?.as_str()?.to_string();
    let url = v
        .get("urls")?
        .as_sequence()?
        .items
        .first()?
        .as_str()?
        .to_string();
    let digest = v
        .get("digest")
        .and_then(Node::as_str)
        .filter(|d| !d.is_empty())
        .map(|d| {
            let hex = d.strip_prefix("sha256:").unwrap_or(d);
            format!("sha256:{}", hex.to_ascii_lowercase())
        });
    Some(Entry {
        version,
        url,
        digest,
    })
}

fn pick_entry(index: &Index, chart: &str, version: &str) -> Result<Entry, FetchErrorKind> {
    let Some(entries) = index.get(chart) else {
        return Err(FetchErrorKind::NoSuchChart);
    };
    let chosen = select_version(entries.iter().map(|e| e.version.as_str()), version)?;
    match chosen.and_then(|i| entries.get(i)) {
        Some(entry) => Ok(entry.clone()),
        None => Err(FetchErrorKind::NoMatchingVersion {
            available: available(entries.iter().map(|e| e.version.as_str())),
        }),
    }
}

fn available<'a>(versions: impl Iterator<Item = &'a str>) -> String {
    let mut names: Vec<&str> = versions.take(10).collect();
    if names.is_empty() {
        return "none".to_string();
    }
    if names.len() == 10 {
        names.push("…");
    }
    names.join(", ")
}

/// A chart URL from an index: absolute as is, otherwise relative to the repository URL (as a
/// directory, which is what Helm does).
fn resolve_url(base: &str, url: &str) -> String {
    if url.contains("://") {
        return url.to_string();
    }
    if let Some(path) = url.strip_prefix('/') {
        let origin_end = base
            .find("://")
            .and_then(|i| base[i + 3..].find('/').map(|j| i + 3 + j))
            .unwrap_or(base.len());
        return format!("{}/{path}", &base[..origin_end]);
    }
    format!("{base}/{}", url.strip_prefix("./").unwrap_or(url))
}

fn host_of(url: &str) -> &str {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    rest.split(['/', '?', '#']).next().unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_and_absolute_chart_urls() {
        let base = "https://h.example/charts";
        assert_eq!(
            resolve_url(base, "a-1.tgz"),
            "https://h.example/charts/a-1.tgz"
        );
        assert_eq!(
            resolve_url(base, "./a-1.tgz"),
            "https://h.example/charts/a-1.tgz"
        );
        assert_eq!(
            resolve_url(base, "/x/a-1.tgz"),
            "https://h.example/x/a-1.tgz"
        );
        assert_eq!(
            resolve_url(base, "https://o.example/a.tgz"),
            "https://o.example/a.tgz"
        );
        assert_eq!(host_of("https://h.example:8443/x"), "h.example:8443");
    }

    #[test]
    fn index_entries_follow_helm() {
        let index = b"apiVersion: v1\nentries:\n  demo:\n  - version: 1.2.0\n    urls: [demo-1.2.0.tgz]\n    digest: ABC\n  - version: 1.10.0-rc.1\n    urls: [demo-1.10.0-rc.1.tgz]\n";
        let index = parse_index("u", index).unwrap();
        let entry = pick_entry(&index, "demo", "").unwrap();
        assert_eq!(entry.version, "1.2.0");
        assert_eq!(entry.digest.as_deref(), Some("sha256:abc"));
        assert_eq!(
            pick_entry(&index, "demo", ">=1.3.0-0").unwrap().version,
            "1.10.0-rc.1"
        );
        assert_eq!(
            pick_entry(&index, "other", ""),
            Err(FetchErrorKind::NoSuchChart)
        );
        assert!(matches!(
            pick_entry(&index, "demo", "2.x"),
            Err(FetchErrorKind::NoMatchingVersion { .. })
        ));
        // Versions and digests are read as written, even when YAML would read a number.
        let numeric =
            b"entries:\n  demo:\n  - version: 1.10\n    urls: [a.tgz]\n    digest: 0123\n";
        let entry = pick_entry(&parse_index("u", numeric).unwrap(), "demo", "1.10").unwrap();
        assert_eq!(entry.version, "1.10");
        assert_eq!(entry.digest.as_deref(), Some("sha256:0123"));
        assert!(matches!(
            parse_index("u", b"entries: ["),
            Err(FetchErrorKind::Invalid { .. })
        ));
    }
}
