//! HTTP Helm repositories (`index.yaml` and the archives it points to), and the small HTTP
//! client the OCI client shares: one `ureq` agent, bodies read with a size cap, statuses turned
//! into errors that name the URL. Not for: OCI's protocol (see `oci`).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

pub(crate) use offlux_net::{Client, Reply};
use offlux_sync::MutexExt as _;

use super::cache::DownloadCache;
use super::{select_version, sha256_digest, BasicAuth, FetchErrorKind, FetchOptions, FetchedChart};
use offlux_yaml::Node;

/// The shared HTTP client, set as `options` say.
pub(crate) fn client(options: &FetchOptions) -> Client {
    Client::new(&offlux_net::ClientOptions {
        allow_private_network: options.allow_private_network,
        max_bytes: options.max_bytes,
        timeout_secs: options.timeout_secs,
        idle_timeout_secs: options.idle_timeout_secs,
        deadline: options.deadline.map(|d| offlux_net::Deadline {
            at: d.at,
            secs: d.secs,
        }),
        proxy: options.proxy.clone(),
    })
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
    offlux_net::basic_header(&auth.username, &auth.password)
}

/// Fetches `chart` at `version` from the HTTP Helm repository at `repo_url`.
pub(crate) fn fetch_from_index(
    repo_url: &str,
    auth: Option<&BasicAuth>,
    chart: &str,
    version: &str,
    options: &FetchOptions,
) -> Result<FetchedChart, FetchErrorKind> {
    let client = client(options);
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
