//! `helm::repo` against real servers on loopback, started by the tests: a small static HTTP
//! server (a Helm repository, and a fake registry for the bearer-token dance) and a real OCI
//! registry (Debian's `docker-registry`, distribution 2.8). No test touches the internet.

#![allow(
    clippy::print_stderr,
    clippy::disallowed_methods,
    reason = "tests print what they checked and read their settings from the environment"
)]
#![cfg(feature = "network")]

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::sync::{Arc, Mutex};

use crate::common::registry::{start_registry, Registry};
use base64::Engine;
use offlux::helm::repo::{
    fetch, BasicAuth, ChartRequest, FetchErrorKind, FetchOptions, FetchedChart, Repository,
};
use sha2::{Digest, Sha256};

fn digest(bytes: &[u8]) -> String {
    format!("sha256:{}", hex::encode(Sha256::digest(bytes)))
}

/// A chart archive as `helm package` lays it out: `<name>/Chart.yaml`, `<name>/values.yaml`.
fn chart_tgz(name: &str, version: &str) -> Vec<u8> {
    let mut builder = tar::Builder::new(flate2::write::GzEncoder::new(
        Vec::new(),
        flate2::Compression::default(),
    ));
    let files = [
        (
            "Chart.yaml",
            format!("apiVersion: v2\nname: {name}\nversion: {version}\n"),
        ),
        ("values.yaml", "replicas: 1\n".to_string()),
    ];
    for (file, text) in files {
        let mut header = tar::Header::new_gnu();
        header.set_size(text.len() as u64);
        header.set_mode(0o644);
        header.set_cksum();
        builder
            .append_data(&mut header, format!("{name}/{file}"), text.as_bytes())
            .unwrap();
    }
    builder.into_inner().unwrap().finish().unwrap()
}

fn archive_of(found: FetchedChart) -> (String, String, Vec<u8>) {
    match found {
        FetchedChart::Archive {
            version,
            digest,
            bytes,
            ..
        } => (version, digest, bytes),
        other => panic!("expected an archive, got {other:?}"),
    }
}

// ---------------------------------------------------------------------------------------------
// A static HTTP server.

struct Request {
    path: String,
    headers: HashMap<String, String>,
}

struct Response {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Response {
    fn ok(body: impl Into<Vec<u8>>) -> Response {
        Response {
            status: 200,
            headers: Vec::new(),
            body: body.into(),
        }
    }

    fn status(status: u16) -> Response {
        Response {
            status,
            headers: Vec::new(),
            body: Vec::new(),
        }
    }
}

type Handler = dyn Fn(&Request) -> Response + Send + Sync;

/// Serves `handler` on 127.0.0.1 from a thread; counts requests per path.
struct Server {
    base: String,
    hits: Arc<Mutex<HashMap<String, usize>>>,
}

impl Server {
    fn start(handler: Box<Handler>) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let hits = Arc::new(Mutex::new(HashMap::new()));
        let counted = Arc::clone(&hits);
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                let _ = serve_one(stream, &*handler, &counted);
            }
        });
        Server { base, hits }
    }

    fn hits(&self, path: &str) -> usize {
        self.hits.lock().unwrap().get(path).copied().unwrap_or(0)
    }
}

fn serve_one(
    stream: TcpStream,
    handler: &Handler,
    hits: &Mutex<HashMap<String, usize>>,
) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut line = String::new();
    reader.read_line(&mut line)?;
    let mut parts = line.split_whitespace();
    let _method = parts.next();
    let path = parts.next().unwrap_or_default().to_string();
    let mut headers = HashMap::new();
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header)? == 0 || header.trim().is_empty() {
            break;
        }
        if let Some((k, v)) = header.split_once(':') {
            headers.insert(k.trim().to_ascii_lowercase(), v.trim().to_string());
        }
    }
    *hits.lock().unwrap().entry(path.clone()).or_default() += 1;
    let response = handler(&Request { path, headers });
    let mut out = stream;
    write!(
        out,
        "HTTP/1.1 {} X\r\nContent-Length: {}\r\nConnection: close\r\n",
        response.status,
        response.body.len()
    )?;
    for (k, v) in &response.headers {
        write!(out, "{k}: {v}\r\n")?;
    }
    out.write_all(b"\r\n")?;
    out.write_all(&response.body)?;
    out.flush()
}

fn options(download_cache: Option<&Path>) -> FetchOptions {
    FetchOptions {
        download_cache: download_cache.map(Path::to_path_buf),
        timeout_secs: 20,
        // The test servers listen on loopback.
        allow_private_network: true,
        ..FetchOptions::default()
    }
}

fn http_request(base: &str, auth: Option<BasicAuth>, chart: &str, version: &str) -> ChartRequest {
    ChartRequest {
        repository: Repository::Http {
            url: format!("{base}/repo/"),
            auth,
        },
        chart: chart.to_string(),
        version: version.to_string(),
    }
}

/// A Helm repository under `/repo/`: demo 1.0.0 (relative URL in a subdirectory), 1.1.0
/// (relative), 2.0.0-rc.1, 3.0.0 (absolute URL), and `bad` whose index digest is wrong.
fn helm_repository(
    require: Option<(&'static str, &'static str)>,
) -> (Server, HashMap<String, Vec<u8>>) {
    let archives: HashMap<String, Vec<u8>> = ["1.0.0", "1.1.0", "2.0.0-rc.1", "3.0.0"]
        .iter()
        .map(|v| (v.to_string(), chart_tgz("demo", v)))
        .collect();
    let listener_archives = archives.clone();
    let index = Arc::new(Mutex::new(String::new()));
    let served_index = Arc::clone(&index);
    let server = Server::start(Box::new(move |request: &Request| {
        if let Some((user, password)) = require {
            let expected = format!(
                "Basic {}",
                base64::engine::general_purpose::STANDARD.encode(format!("{user}:{password}"))
            );
            if request.headers.get("authorization") != Some(&expected) {
                return Response::status(401);
            }
        }
        let a = &listener_archives;
        match request.path.as_str() {
            "/repo/index.yaml" => Response::ok(served_index.lock().unwrap().clone()),
            "/repo/charts/demo-1.0.0.tgz" => Response::ok(a["1.0.0"].clone()),
            "/repo/demo-1.1.0.tgz" => Response::ok(a["1.1.0"].clone()),
            "/repo/demo-2.0.0-rc.1.tgz" => Response::ok(a["2.0.0-rc.1"].clone()),
            "/elsewhere/demo-3.0.0.tgz" => Response::ok(a["3.0.0"].clone()),
            "/repo/bad-1.0.0.tgz" => Response::ok(a["1.0.0"].clone()),
            _ => Response::status(404),
        }
    }));
    let hex = |v: &str| hex::encode(Sha256::digest(&archives[v]));
    *index.lock().unwrap() = format!(
        "apiVersion: v1
entries:
  demo:
  - version: 3.0.0
    urls: [\"{base}/elsewhere/demo-3.0.0.tgz\"]
    digest: {d3}
  - version: 2.0.0-rc.1
    urls: [demo-2.0.0-rc.1.tgz]
  - version: 1.1.0
    urls: [demo-1.1.0.tgz]
    digest: {d11}
  - version: 1.0.0
    urls: [charts/demo-1.0.0.tgz]
    digest: {d10}
  bad:
  - version: 1.0.0
    urls: [bad-1.0.0.tgz]
    digest: {wrong}
",
        base = server.base,
        d3 = hex("3.0.0"),
        d11 = hex("1.1.0"),
        d10 = hex("1.0.0"),
        wrong = "0".repeat(64),
    );
    (server, archives)
}

#[test]
fn http_repository_relative_urls_ranges_and_the_download_cache() {
    let (server, archives) = helm_repository(None);
    let cache = tempfile::tempdir().unwrap();
    let opts = options(Some(cache.path()));

    let (version, found_digest, bytes) =
        archive_of(fetch(&http_request(&server.base, None, "demo", "~1.0"), &opts).unwrap());
    assert_eq!(version, "1.0.0");
    assert_eq!(bytes, archives["1.0.0"]);
    assert_eq!(found_digest, digest(&archives["1.0.0"]));

    let (version, _, bytes) = archive_of(
        fetch(
            &http_request(&server.base, None, "demo", ">=1.0.0 <2"),
            &opts,
        )
        .unwrap(),
    );
    assert_eq!(version, "1.1.0");
    assert_eq!(bytes, archives["1.1.0"]);

    // The latest stable version, whose URL is absolute; and a pre-release when asked for.
    let (version, _, _) =
        archive_of(fetch(&http_request(&server.base, None, "demo", ""), &opts).unwrap());
    assert_eq!(version, "3.0.0");
    assert_eq!(server.hits("/elsewhere/demo-3.0.0.tgz"), 1);
    let (version, found_digest, bytes) = archive_of(
        fetch(
            &http_request(&server.base, None, "demo", ">=2.0.0-0 <3"),
            &opts,
        )
        .unwrap(),
    );
    assert_eq!(version, "2.0.0-rc.1");
    assert_eq!(found_digest, digest(&bytes));

    // A second fetch of a digest already downloaded reads the cache, not the network.
    assert_eq!(server.hits("/repo/demo-1.1.0.tgz"), 1);
    archive_of(fetch(&http_request(&server.base, None, "demo", "1.1.0"), &opts).unwrap());
    assert_eq!(server.hits("/repo/demo-1.1.0.tgz"), 1);
    let stored = cache
        .path()
        .join("sha256")
        .join(hex::encode(Sha256::digest(&archives["1.1.0"])));
    assert_eq!(std::fs::read(stored).unwrap(), archives["1.1.0"]);

    let err = fetch(&http_request(&server.base, None, "demo", "9.x"), &opts).unwrap_err();
    assert!(
        matches!(err.kind(), FetchErrorKind::NoMatchingVersion { .. }),
        "{err}"
    );
    assert!(
        err.to_string().starts_with(&format!(
            "chart demo 9.x from {}/repo/: no version matches",
            server.base
        )),
        "{err}"
    );
    let err = fetch(&http_request(&server.base, None, "nope", ""), &opts).unwrap_err();
    assert_eq!(*err.kind(), FetchErrorKind::NoSuchChart);

    // The index is read once per run.
    assert_eq!(server.hits("/repo/index.yaml"), 1);

    // Bodies are capped while they are read.
    let small = FetchOptions {
        max_bytes: 64,
        ..options(None)
    };
    let err = fetch(&http_request(&server.base, None, "demo", "1.0.0"), &small).unwrap_err();
    assert!(
        matches!(err.kind(), FetchErrorKind::TooLarge { .. }),
        "{err}"
    );
}

#[test]
fn http_repository_digest_mismatch_is_an_error_and_is_not_cached() {
    let (server, _) = helm_repository(None);
    let cache = tempfile::tempdir().unwrap();
    let err = fetch(
        &http_request(&server.base, None, "bad", "1.0.0"),
        &options(Some(cache.path())),
    )
    .unwrap_err();
    match err.kind() {
        FetchErrorKind::DigestMismatch { url, expected, .. } => {
            assert_eq!(url, &format!("{}/repo/bad-1.0.0.tgz", server.base));
            assert_eq!(expected, &format!("sha256:{}", "0".repeat(64)));
        }
        other => panic!("expected a digest mismatch, got {other:?}"),
    }
    assert!(err.to_string().contains("chart bad 1.0.0 from"), "{err}");
    assert!(
        !cache.path().join("sha256").exists()
            || std::fs::read_dir(cache.path().join("sha256"))
                .unwrap()
                .next()
                .is_none()
    );
}

#[test]
fn http_repository_basic_auth() {
    let (server, archives) = helm_repository(Some(("flux", "s3cret")));
    let err = fetch(
        &http_request(&server.base, None, "demo", "1.0.0"),
        &options(None),
    )
    .unwrap_err();
    assert!(err.to_string().contains("HTTP status 401"), "{err}");
    let auth = BasicAuth {
        username: "flux".into(),
        password: "s3cret".into(),
    };
    let (_, _, bytes) = archive_of(
        fetch(
            &http_request(&server.base, Some(auth.clone()), "demo", "1.0.0"),
            &options(None),
        )
        .unwrap(),
    );
    assert_eq!(bytes, archives["1.0.0"]);
    // The password never shows in debug output.
    assert!(!format!("{auth:?}").contains("s3cret"));
}

#[test]
fn offline_never_touches_the_network() {
    let (server, _) = helm_repository(None);
    let opts = FetchOptions {
        offline: true,
        ..options(None)
    };
    let err = fetch(&http_request(&server.base, None, "demo", "1.0.0"), &opts).unwrap_err();
    assert_eq!(*err.kind(), FetchErrorKind::Offline);
    assert_eq!(server.hits("/repo/index.yaml"), 0);
}

/// Issue 21: a repository under review must not make the runner call its own services. By
/// default a loopback address is refused before any connection, for Helm repositories and OCI
/// registries alike.
#[test]
fn loopback_is_refused_unless_allowed() {
    let (server, _) = helm_repository(None);
    let opts = FetchOptions {
        allow_private_network: false,
        ..options(None)
    };
    let err = fetch(&http_request(&server.base, None, "demo", "1.0.0"), &opts).unwrap_err();
    assert!(err.to_string().contains("refused to connect"), "{err}");
    assert!(err.to_string().contains("--allow-private-network"), "{err}");
    let oci = ChartRequest {
        repository: Repository::Oci {
            url: format!("oci://{}/charts", server.base.trim_start_matches("http://")),
            auth: None,
            insecure_http: true,
        },
        chart: "demo".into(),
        version: "1.0.0".into(),
    };
    let err = fetch(&oci, &opts).unwrap_err();
    assert!(err.to_string().contains("refused to connect"), "{err}");
    assert_eq!(server.hits("/repo/index.yaml"), 0);
    assert_eq!(server.hits("/v2/charts/demo/tags/list"), 0);
}

/// A registry that wants a bearer token from its realm, as ghcr.io and Docker Hub do.
#[test]
fn oci_bearer_token_challenge() {
    let layer = chart_tgz("demo", "0.1.0");
    let layer_digest = digest(&layer);
    let manifest = serde_json::json!({
        "schemaVersion": 2,
        "mediaType": "application/vnd.oci.image.manifest.v1+json",
        "config": {"mediaType": "application/vnd.cncf.helm.config.v1+json", "digest": digest(b"{}"), "size": 2},
        "layers": [{"mediaType": "application/vnd.cncf.helm.chart.content.v1.tar+gzip", "digest": layer_digest, "size": layer.len()}],
    })
    .to_string();
    let realm: Arc<Mutex<String>> = Arc::default();
    let served_realm = Arc::clone(&realm);
    let seen_token_query: Arc<Mutex<Vec<String>>> = Arc::default();
    let seen = Arc::clone(&seen_token_query);
    let server = Server::start(Box::new(move |request: &Request| {
        if let Some(query) = request.path.strip_prefix("/token?") {
            seen.lock().unwrap().push(query.to_string());
            let basic = format!(
                "Basic {}",
                base64::engine::general_purpose::STANDARD.encode("robot:pw")
            );
            if request.headers.get("authorization") != Some(&basic) {
                return Response::status(401);
            }
            return Response::ok(r#"{"token":"t0k"}"#);
        }
        if request.headers.get("authorization").map(String::as_str) != Some("Bearer t0k") {
            let mut response = Response::status(401);
            response.headers.push((
                "WWW-Authenticate".into(),
                format!(
                    r#"Bearer realm="{}/token",service="fake.registry",scope="repository:charts/demo:pull""#,
                    served_realm.lock().unwrap()
                ),
            ));
            return response;
        }
        match request.path.as_str() {
            "/v2/charts/demo/tags/list" => {
                Response::ok(r#"{"name":"charts/demo","tags":["0.1.0","latest"]}"#)
            }
            "/v2/charts/demo/manifests/0.1.0" => Response::ok(manifest.clone()),
            p if p == format!("/v2/charts/demo/blobs/{layer_digest}") => {
                Response::ok(layer.clone())
            }
            _ => Response::status(404),
        }
    }));
    *realm.lock().unwrap() = server.base.clone();
    let host = server.base.trim_start_matches("http://");
    let request = ChartRequest {
        repository: Repository::Oci {
            url: format!("oci://{host}/charts"),
            auth: Some(BasicAuth {
                username: "robot".into(),
                password: "pw".into(),
            }),
            insecure_http: true,
        },
        chart: "demo".into(),
        version: "0.x".into(),
    };
    let (version, _, bytes) = archive_of(fetch(&request, &options(None)).unwrap());
    assert_eq!(version, "0.1.0");
    assert_eq!(bytes, chart_tgz("demo", "0.1.0"));
    let queries = seen_token_query.lock().unwrap();
    assert!(
        queries
            .iter()
            .all(|q| q == "service=fake.registry&scope=repository%3Acharts%2Fdemo%3Apull"),
        "{queries:?}"
    );
}

// ---------------------------------------------------------------------------------------------
// A real registry: Debian's `docker-registry` (distribution 2.8).

/// A chart pushed as `helm push` pushes it. Returns the manifest's digest.
fn push(registry: &Registry, auth: Option<&str>, name: &str, tag: &str, version: &str) -> String {
    let config = format!(r#"{{"apiVersion":"v2","name":"demo","version":"{version}"}}"#);
    registry.push(
        auth,
        name,
        tag,
        (
            "application/vnd.cncf.helm.config.v1+json",
            config.as_bytes(),
        ),
        &[(
            "application/vnd.cncf.helm.chart.content.v1.tar+gzip",
            chart_tgz("demo", version),
        )],
    )
}

fn oci_request(
    registry: &Registry,
    url_path: &str,
    chart: &str,
    version: &str,
    auth: Option<BasicAuth>,
) -> ChartRequest {
    ChartRequest {
        repository: Repository::Oci {
            url: format!("oci://{}/{url_path}", registry.host),
            auth,
            insecure_http: true,
        },
        chart: chart.to_string(),
        version: version.to_string(),
    }
}

#[test]
fn oci_registry_tags_ranges_digests_and_the_download_cache() {
    let Some(registry) = start_registry(None) else {
        return;
    };
    push(&registry, None, "charts/demo", "1.0.0", "1.0.0");
    let build_digest = push(
        &registry,
        None,
        "charts/demo",
        "1.2.3_build.1",
        "1.2.3+build.1",
    );
    push(&registry, None, "charts/demo", "2.0.0-rc.1", "2.0.0-rc.1");
    push(&registry, None, "charts/demo", "latest", "1.0.0");
    push(&registry, None, "charts/vtags", "v3.1.0", "3.1.0");

    let cache = tempfile::tempdir().unwrap();
    let opts = options(Some(cache.path()));
    let get = |request: ChartRequest| {
        archive_of(fetch(&request, &opts).unwrap_or_else(|e| panic!("{e}")))
    };

    // By tag, in a HelmRepository of type oci (URL + chart name).
    let (version, d, bytes) = get(oci_request(&registry, "charts", "demo", "1.0.0", None));
    assert_eq!(
        (version.as_str(), bytes.clone()),
        ("1.0.0", chart_tgz("demo", "1.0.0"))
    );
    assert_eq!(d, digest(&bytes));
    // By range: `_` in a tag reads as `+`; pre-releases only when asked; "" is the latest stable.
    let (version, _, bytes) = get(oci_request(&registry, "charts", "demo", ">=1.1 <2", None));
    assert_eq!(version, "1.2.3+build.1");
    assert_eq!(bytes, chart_tgz("demo", "1.2.3+build.1"));
    assert_eq!(
        get(oci_request(&registry, "charts", "demo", "", None)).0,
        "1.2.3+build.1"
    );
    assert_eq!(
        get(oci_request(&registry, "charts", "demo", "^2.0.0-0", None)).0,
        "2.0.0-rc.1"
    );
    // An exact version with build metadata goes straight to its `_` tag.
    assert_eq!(
        get(oci_request(
            &registry,
            "charts",
            "demo",
            "1.2.3+build.1",
            None
        ))
        .0,
        "1.2.3+build.1"
    );
    // An exact version whose tag is spelled otherwise is found in the list.
    let (version, _, bytes) = get(oci_request(&registry, "charts", "vtags", "3.1.0", None));
    assert_eq!(version, "v3.1.0");
    assert_eq!(bytes, chart_tgz("demo", "3.1.0"));
    // By digest: a direct reference, the version read from the chart's config.
    let pinned = format!("charts/demo@{build_digest}");
    let (version, _, bytes) = get(oci_request(&registry, &pinned, "", "", None));
    assert_eq!(version, "1.2.3+build.1");
    assert_eq!(bytes, chart_tgz("demo", "1.2.3+build.1"));
    // ... or as the version of a direct reference.
    assert_eq!(
        get(oci_request(
            &registry,
            "charts/demo",
            "",
            &build_digest,
            None
        ))
        .0,
        "1.2.3+build.1"
    );

    // Errors name the chart, the version and the URL.
    let err = fetch(
        &oci_request(&registry, "charts", "demo", "3.x", None),
        &opts,
    )
    .unwrap_err();
    assert!(
        matches!(err.kind(), FetchErrorKind::NoMatchingVersion { .. }),
        "{err}"
    );
    assert!(
        err.to_string().starts_with(&format!(
            "chart demo 3.x from oci://{}/charts: ",
            registry.host
        )),
        "{err}"
    );
    let err = fetch(
        &oci_request(&registry, "charts", "missing", "", None),
        &opts,
    )
    .unwrap_err();
    assert_eq!(*err.kind(), FetchErrorKind::NoSuchChart, "{err}");
    let err = fetch(
        &oci_request(&registry, "charts", "demo", "9.9.9", None),
        &opts,
    )
    .unwrap_err();
    assert!(
        matches!(err.kind(), FetchErrorKind::NoMatchingVersion { .. }),
        "{err}"
    );

    // The cache: delete the 1.0.0 layer from the registry; a fetch with the download cache still
    // succeeds (so it did not download), one without it cannot.
    let layer_digest = digest(&chart_tgz("demo", "1.0.0"));
    let response = ureq::delete(format!(
        "http://{}/v2/charts/demo/blobs/{layer_digest}",
        registry.host
    ))
    .call();
    assert!(response.is_ok(), "delete blob: {response:?}");
    let (_, _, bytes) = get(oci_request(&registry, "charts", "demo", "1.0.0", None));
    assert_eq!(bytes, chart_tgz("demo", "1.0.0"));
    let err = fetch(
        &oci_request(&registry, "charts", "demo", "1.0.0", None),
        &options(None),
    )
    .unwrap_err();
    assert!(err.to_string().contains("HTTP status 404"), "{err}");
}

#[test]
fn oci_registry_basic_auth() {
    let Some(registry) = start_registry(Some(("flux", "s3cret"))) else {
        return;
    };
    let header = format!(
        "Basic {}",
        base64::engine::general_purpose::STANDARD.encode("flux:s3cret")
    );
    push(&registry, Some(&header), "charts/demo", "1.0.0", "1.0.0");
    let err = fetch(
        &oci_request(&registry, "charts", "demo", "1.x", None),
        &options(None),
    )
    .unwrap_err();
    assert!(err.to_string().contains("HTTP status 401"), "{err}");
    let auth = BasicAuth {
        username: "flux".into(),
        password: "s3cret".into(),
    };
    let (version, _, _) = archive_of(
        fetch(
            &oci_request(&registry, "charts", "demo", "1.x", Some(auth)),
            &options(None),
        )
        .unwrap(),
    );
    assert_eq!(version, "1.0.0");
}
