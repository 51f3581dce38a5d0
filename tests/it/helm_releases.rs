//! HelmReleases end to end against the reference: every HelmRelease of
//! `onedr0p__home-ops__2025-06-23` and `bjw-s-labs__home-ops__2025-06-23` (reconciled from their
//! cluster entry point, charts from `../shared/corpus/charts` only, offline) is rendered Ready when
//! its chart is there, and its chart rendered with the HelmRelease's final values (`valuesFrom`
//! and `values` as the controller composed them) equals `../shared/oracle/helm-template` with the
//! same values. The others must be skipped with a message naming the missing chart.
//!
//! Prints `conformance helm-releases: N passed, M failed` and each difference.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use offlux::controllers::engine::{fetch_repository_chart, HelmEngine, KustomizeEngine};
use offlux::controllers::helmrelease::{
    ChartLocation, HelmRenderError, HelmRenderRequest, HelmRenderer, RenderedRelease,
};
use offlux::controllers::runtime::{run, RunOptions};
use offlux::discovery::{discover, secure_join, Options};
use offlux::helm::{self, repo::FetchedChart, LoadOptions, RenderOptions};
use offlux::store::{Ready, Status};
use offlux::template::Value;

use crate::common;
use common::helm_oracle::{compare, oracle, shared, truncate, Verdict};

const REPOSITORIES: [&str; 2] = [
    "onedr0p__home-ops__2025-06-23",
    "bjw-s-labs__home-ops__2025-06-23",
];
const FLOOR: f64 = 0.95;

/// The engine, recording each request it was given (by release) and whether it had the chart.
struct Recorder {
    engine: HelmEngine,
    requests: Mutex<BTreeMap<(String, String), HelmRenderRequest>>,
}

impl HelmRenderer for Recorder {
    fn render(&self, request: &HelmRenderRequest) -> Result<RenderedRelease, HelmRenderError> {
        if let Ok(mut requests) = self.requests.lock() {
            requests.insert(
                (request.namespace.clone(), request.release_name.clone()),
                request.clone(),
            );
        }
        self.engine.render(request)
    }
}

fn to_json(value: &Value) -> serde_json::Value {
    use serde_json::Value as J;
    match value {
        Value::Nil | Value::Complex(..) => J::Null,
        Value::Bool(b) => J::Bool(*b),
        Value::Int(i) => J::from(*i),
        Value::Float(f) => serde_json::Number::from_f64(*f).map_or(J::Null, J::Number),
        Value::String(s) => J::String(s.clone()),
        Value::List(items) => J::Array(items.iter().map(to_json).collect()),
        Value::Map(map) => J::Object(map.iter().map(|(k, v)| (k.clone(), to_json(v))).collect()),
    }
}

/// The chart directory a request renders, or why there is none.
fn chart_path(
    request: &HelmRenderRequest,
    engine: &HelmEngine,
    scratch: &Path,
) -> Result<PathBuf, String> {
    match &request.chart {
        ChartLocation::Local { root, path } => Ok(secure_join(root, path)),
        ChartLocation::Repository(chart) => match fetch_repository_chart(chart, engine) {
            Ok(FetchedChart::Directory { path, .. }) => Ok(path),
            Ok(FetchedChart::Archive { name, bytes, .. }) => {
                let file = scratch.join(format!("{name}.tgz"));
                std::fs::write(&file, bytes).map_err(|e| e.to_string())?;
                Ok(file)
            }
            Err(
                HelmRenderError::Unavailable(message)
                | HelmRenderError::DependencyUnavailable(message)
                | HelmRenderError::Failed(message)
                | HelmRenderError::FailedAt { message, .. }
                | HelmRenderError::NeedsCluster(message),
            ) => Err(message),
        },
    }
}

fn ours(chart: &Path, request: &HelmRenderRequest) -> Result<String, String> {
    let loaded = if chart.is_dir() {
        helm::load_dir(chart, &LoadOptions::default())
    } else {
        let bytes = std::fs::read(chart).map_err(|e| e.to_string())?;
        let name = chart
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("chart");
        helm::load_archive(name, &bytes, &LoadOptions::default())
    }
    .map_err(|e| e.to_string())?;
    let mut options = RenderOptions::new(&request.release_name, &request.namespace);
    options.include_crds = request.include_crds;
    options.no_hooks = request.disable_hooks;
    options.skip_tests = true;
    options.validate_schema = !request.disable_schema_validation;
    helm::template(loaded, &request.values, &options)
        .map(|r| r.to_text(&options))
        .map_err(|e| e.to_string())
}

#[test]
fn corpus_helm_releases_render_as_the_reference_does() {
    if common::test_data::dir("corpus", "corpus HelmReleases against the reference Helm").is_none()
    {
        return;
    }
    let scratch = std::env::temp_dir().join(format!("offlux-helm-releases-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).expect("scratch directory");
    let engine = HelmEngine {
        chart_cache: Some(shared().join("corpus/charts")),
        offline: true,
        download_cache: None,
        ..HelmEngine::default()
    };
    let (mut passed, mut failed, mut total, mut skipped, mut not_compared) =
        (0usize, Vec::new(), 0usize, 0usize, Vec::new());
    for name in REPOSITORIES {
        let root = shared().join("corpus/repos").join(name);
        let mut options = Options::new(root.join("kubernetes/flux/cluster"));
        options.root = Some(root.clone());
        let repository = discover(&options).expect("discovery");
        let recorder = Recorder {
            engine: engine.clone(),
            requests: Mutex::new(BTreeMap::new()),
        };
        let report = run(
            &repository,
            &KustomizeEngine::for_repository(&repository),
            &recorder,
            &RunOptions {
                concurrency: Some(1),
                allow_missing_sources: true,
                ..Default::default()
            },
        );
        let releases: Vec<_> = report
            .statuses
            .iter()
            .filter(|(id, _)| id.kind == "HelmRelease")
            .collect();
        assert!(!releases.is_empty(), "{name}: no HelmRelease reconciled");
        for (id, record) in &releases {
            match &record.status {
                Status::Ready(Ready::Reconciled) => {}
                Status::Ready(Ready::Skipped(reason)) if reason.contains("chart ") => skipped += 1,
                // The chart was rendered and failed: the comparison below says whether the
                // reference fails the same way.
                Status::Failed(message) if message.starts_with("Helm install failed") => {}
                other => failed.push(format!("  {name} {id}: not rendered: {other:?}")),
            }
        }
        let requests = recorder.requests.into_inner().expect("requests");
        for ((namespace, release), request) in &requests {
            let label = format!("{name} {namespace}/{release}");
            let chart = match chart_path(request, &engine, &scratch) {
                Ok(chart) => chart,
                Err(_) => continue, // Skipped above, with the message naming the chart.
            };
            if request.disable_schema_validation {
                not_compared.push(format!(
                    "  {label}: disableSchemaValidation (the reference cannot skip schema validation)"
                ));
                continue;
            }
            if !request.values_files.is_empty() {
                not_compared.push(format!("  {label}: valuesFiles replace the chart's values"));
                continue;
            }
            total += 1;
            let values_file = scratch.join(format!("{namespace}-{release}.json"));
            std::fs::write(&values_file, to_json(&request.values).to_string()).expect("values");
            let mut flags = Vec::new();
            if request.include_crds {
                flags.push("--include-crds");
            }
            if request.disable_hooks {
                flags.push("--no-hooks");
            }
            let verdict = compare(ours(&chart, request), || {
                oracle(&chart, release, namespace, Some(&values_file), &flags)
            });
            match verdict {
                Verdict::Identical | Verdict::SameData | Verdict::BothFail => passed += 1,
                Verdict::Differ(why) => failed.push(format!("  {label}: {}", truncate(&why, 1500))),
            }
        }
    }
    let _ = std::fs::remove_dir_all(&scratch);
    for line in failed.iter().chain(&not_compared) {
        println!("{line}");
    }
    println!(
        "conformance helm-releases: {passed} passed, {} failed, {total} total ({skipped} skipped: chart not in the corpus; {} not compared)",
        failed.len(),
        not_compared.len()
    );
    assert!(total > 0);
    assert!(
        passed as f64 >= FLOOR * (total as f64),
        "{passed}/{total} HelmReleases agree with the reference; the floor is {FLOOR}"
    );
}
