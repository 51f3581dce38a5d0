use std::path::{Path, PathBuf};

use super::*;

/// The corpus's chart cache; `None` when it is absent (the test skips).
fn corpus_charts(what: &str) -> Option<PathBuf> {
    offlux_test_data::dir("corpus/charts", what)
}

fn offline_from(cache: &Path) -> FetchOptions {
    FetchOptions {
        chart_cache: Some(cache.to_path_buf()),
        offline: true,
        ..FetchOptions::default()
    }
}

fn request(url: &str, chart: &str, version: &str) -> ChartRequest {
    let repository = if url.starts_with("oci://") {
        Repository::Oci {
            url: url.to_string(),
            auth: None,
            insecure_http: false,
        }
    } else {
        Repository::Http {
            url: url.to_string(),
            auth: None,
        }
    };
    ChartRequest {
        repository,
        chart: chart.to_string(),
        version: version.to_string(),
    }
}

fn dir_of(found: &FetchedChart) -> Option<&Path> {
    match found {
        FetchedChart::Directory { path, .. } => Some(path),
        FetchedChart::Archive { .. } => None,
    }
}

#[test]
fn select_version_follows_helm() {
    let vs = ["1.0.0", "1.2.0", "2.0.0-rc.1", "v1.10.0", "latest", "1.9.9"];
    let pick = |req: &str| select_version(vs, req).unwrap().map(|i| vs[i]);
    assert_eq!(pick(""), Some("v1.10.0"));
    assert_eq!(pick("*"), Some("v1.10.0"));
    assert_eq!(pick("1.2.0"), Some("1.2.0"));
    assert_eq!(pick("1.10.0"), Some("v1.10.0"));
    assert_eq!(pick("~1.2"), Some("1.2.0"));
    assert_eq!(pick(">=1.0.0 <1.5"), Some("1.2.0"));
    assert_eq!(pick(">=2.0.0-0"), Some("2.0.0-rc.1"));
    assert_eq!(pick("latest"), Some("latest"));
    assert_eq!(pick("3.x"), None);
    assert!(matches!(
        select_version(vs, "not a version"),
        Err(FetchErrorKind::InvalidVersion(_))
    ));
}

#[test]
fn entry_names_do_not_take_longer_chart_names() {
    assert_eq!(
        version_of("prometheus-node-exporter-4.47.0", "prometheus"),
        None
    );
    assert_eq!(
        version_of(
            "prometheus-node-exporter-4.47.0",
            "prometheus-node-exporter"
        ),
        Some("4.47.0")
    );
    assert_eq!(version_of("rook-ceph-cluster-v1.9.12", "rook-ceph"), None);
    assert_eq!(
        version_of("reloader-v0.0.118", "reloader"),
        Some("v0.0.118")
    );
    assert_eq!(version_of("foo-1.0.0-rc.1+b", "foo"), Some("1.0.0-rc.1+b"));
    assert_eq!(version_of("foo-1-2.0.0", "foo"), None);
}

fn version_of<'a>(stem: &'a str, chart: &str) -> Option<&'a str> {
    cache::version_of_entry(stem, chart)
}

#[test]
fn chart_cache_resolves_exact_versions_and_ranges() {
    let Some(cache) = corpus_charts("chart cache versions and ranges") else {
        return;
    };
    let options = offline_from(&cache);
    let cases = [
        ("app-template", "4.1.1", "app-template-4.1.1"),
        (
            "kube-prometheus-stack",
            ">=75.0.0 <76",
            "kube-prometheus-stack-75.4.0",
        ),
        ("kube-prometheus-stack", "", "kube-prometheus-stack-88.5.3"),
        ("cert-manager", "1.21.1", "cert-manager-v1.21.1"),
        ("reloader", "v0.0.118", "reloader-v0.0.118"),
        ("reloader", "~2.1", "reloader-2.1.4"),
        (
            "prometheus-node-exporter",
            "*",
            "prometheus-node-exporter-4.56.1",
        ),
    ];
    for (chart, version, want) in cases {
        let found = fetch(
            &request("oci://mirror.example/charts", chart, version),
            &options,
        )
        .unwrap_or_else(|e| panic!("{chart} {version}: {e}"));
        assert_eq!(
            dir_of(&found),
            Some(cache.join(want).as_path()),
            "{chart} {version}"
        );
    }
}

#[test]
fn offline_miss_names_what_is_missing() {
    let cache = tempfile::tempdir().expect("temporary directory");
    let err = fetch(
        &request("https://stefanprodan.github.io/podinfo", "podinfo", "6.5.x"),
        &offline_from(cache.path()),
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "chart podinfo 6.5.x from https://stefanprodan.github.io/podinfo is not in the chart \
         cache and the network is off (--offline)"
    );
    let err = fetch(
        &request("oci://ghcr.io/x/prometheus", "", ""),
        &offline_from(cache.path()),
    )
    .unwrap_err();
    assert_eq!(err.chart(), "prometheus");
    assert_eq!(*err.kind(), FetchErrorKind::Offline);
}

/// An OCIRepository pinned by digest is never matched by a cache entry named by version (nothing
/// proves the entry is that artifact): offline, it is a chart not in the cache, not a bad request.
#[test]
fn a_digest_request_is_not_in_a_chart_cache_named_by_version() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("demo-1.0.0")).unwrap();
    let digest = format!("sha256:{}", "ab".repeat(32));
    for version in [digest.clone(), format!("@{digest}")] {
        let err = fetch(
            &request("oci://ghcr.io/x/demo", "demo", &version),
            &offline_from(dir.path()),
        )
        .unwrap_err();
        assert_eq!(*err.kind(), FetchErrorKind::Offline, "{version}");
        assert!(
            err.to_string()
                .ends_with("is not in the chart cache and the network is off (--offline)"),
            "{err}"
        );
    }
}

#[test]
fn chart_cache_archives_are_read_with_their_digest() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("demo-1.0.0.tgz"), b"not really gzip").unwrap();
    std::fs::write(dir.path().join("demo-1.1.0.txt"), b"ignored").unwrap();
    let found = fetch(
        &request("https://x.example", "demo", ">=1"),
        &offline_from(dir.path()),
    )
    .unwrap();
    assert_eq!(
        found,
        FetchedChart::Archive {
            name: "demo".into(),
            version: "1.0.0".into(),
            digest: sha256_digest(b"not really gzip"),
            bytes: b"not really gzip".to_vec(),
        }
    );
}

#[test]
fn download_cache_round_trips_and_ignores_corruption() {
    let dir = tempfile::tempdir().unwrap();
    let cache = cache::DownloadCache { root: dir.path() };
    let digest = cache.put(b"chart bytes").unwrap();
    assert_eq!(
        cache.get(&digest, 1 << 20).as_deref(),
        Some(&b"chart bytes"[..])
    );
    assert_eq!(cache.get(&digest, 3), None);
    let hex = digest.strip_prefix("sha256:").unwrap();
    std::fs::write(dir.path().join("sha256").join(hex), b"tampered").unwrap();
    assert_eq!(cache.get(&digest, 1 << 20), None);
    assert_eq!(cache.get("sha256:../../etc/passwd", 1 << 20), None);
}

/// Every entry of the corpus's chart index resolves, offline, to the directory it names, and
/// every entry without one is reported missing.
#[test]
fn corpus_chart_index_resolves_from_the_chart_cache() {
    let Some(root) = offlux_test_data::dir("corpus", "the corpus's chart index") else {
        return;
    };
    let text = std::fs::read_to_string(root.join("chart-index.json")).unwrap();
    let entries: Vec<serde_json::Value> = serde_json::from_str(&text).unwrap();
    let options = offline_from(&root.join("charts"));
    let mut failures = Vec::new();
    for entry in &entries {
        let chart = entry["chart"].as_str().unwrap_or_default();
        let url = entry["source_url"]
            .as_str()
            .unwrap_or("https://unknown.example");
        // The index writes a HelmRelease without a version as the string "None".
        let version = match entry["requested"].as_str() {
            None | Some("None") => "",
            Some(v) => v,
        };
        let got = fetch(&request(url, chart, version), &options);
        match (entry["path"].as_str(), &got) {
            (Some(want), Ok(found)) if dir_of(found) == Some(root.join(want).as_path()) => {}
            (None, Err(e)) if *e.kind() == FetchErrorKind::Offline => {}
            (want, got) => failures.push(format!(
                "{url} {chart} {version:?}: want {want:?}, got {got:?}"
            )),
        }
    }
    assert!(entries.len() > 100);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[cfg(not(feature = "network"))]
#[test]
fn without_the_network_feature_remote_charts_are_unavailable() {
    let err = fetch(
        &request("https://charts.example", "demo", "1.0.0"),
        &FetchOptions::default(),
    )
    .unwrap_err();
    assert_eq!(*err.kind(), FetchErrorKind::NetworkNotCompiled);
    assert_eq!(
        err.to_string(),
        "chart demo 1.0.0 from https://charts.example is not in the chart cache and network \
         support is not compiled in (feature `network`)"
    );
}
