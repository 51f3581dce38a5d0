//! Template execution on real charts' templates from `../shared/corpus/charts`: every template of
//! the chart and its vendored subcharts, parsed once, then executed with the chart's default values
//! in a Helm-shaped context. The number is the time for one whole render of the chart.
//!
//! This measures the template engine alone (parsing excluded, no values coalescing or manifest
//! sorting); the Helm renderer's own benchmark comes with it.
//!
//! Run with `cargo bench --bench template`.

#![allow(clippy::unwrap_used, clippy::expect_used)]
#![allow(clippy::print_stderr, reason = "a benchmark says what it measured")]

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use criterion::{criterion_group, criterion_main, Criterion};
use offlux::template::funcs::{helm_functions, sprig_methods, FuncEnv};
use offlux::template::{ExecOptions, MissingKey, Set, Value};

const CHARTS: [&str; 3] = ["podinfo-6.14.0", "ingress-nginx-4.15.1", "grafana-9.2.7"];

fn read_yaml(path: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let documents = offlux::yaml::parse_stream(&text, &offlux::yaml::ParseOptions::default())
        .unwrap_or_default();
    documents
        .first()
        .map(|d| offlux::yaml::to_json_helm(&d.root))
        .unwrap_or(serde_json::Value::Null)
}

fn template_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut paths: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    paths.sort();
    for path in paths {
        if path.is_dir() {
            template_files(&path, out);
        } else if matches!(
            path.extension().and_then(|e| e.to_str()),
            Some("yaml" | "yml" | "tpl" | "txt")
        ) {
            out.push(path);
        }
    }
}

/// One chart (and its subcharts) ready to render: the parsed set and, per renderable template,
/// its name and the context it runs with.
struct Prepared {
    set: Set,
    renders: Vec<(String, Value)>,
}

fn context(chart_dir: &Path, values: Value, template: &str) -> Value {
    let chart = read_yaml(&chart_dir.join("Chart.yaml"));
    let text = |key: &str| Value::String(chart[key].as_str().unwrap_or_default().to_owned());
    let map = |entries: Vec<(&str, Value)>| {
        Value::map(
            entries
                .into_iter()
                .map(|(k, v)| (k.to_owned(), v))
                .collect(),
        )
    };
    map(vec![
        ("Values", values),
        (
            "Release",
            map(vec![
                ("Name", Value::String("bench".into())),
                ("Namespace", Value::String("default".into())),
                ("IsInstall", Value::Bool(true)),
                ("IsUpgrade", Value::Bool(false)),
                ("Service", Value::String("Helm".into())),
                ("Revision", Value::Int(1)),
            ]),
        ),
        (
            "Chart",
            map(vec![
                ("Name", text("name")),
                ("Version", text("version")),
                ("AppVersion", text("appVersion")),
            ]),
        ),
        (
            "Capabilities",
            map(vec![
                (
                    "KubeVersion",
                    map(vec![
                        ("Version", Value::String("v1.33.0".into())),
                        ("GitVersion", Value::String("v1.33.0".into())),
                        ("Major", Value::String("1".into())),
                        ("Minor", Value::String("33".into())),
                    ]),
                ),
                ("APIVersions", Value::List(Vec::new())),
            ]),
        ),
        (
            "Template",
            map(vec![
                ("Name", Value::String(template.to_owned())),
                (
                    "BasePath",
                    Value::String(format!(
                        "{}/templates",
                        chart["name"].as_str().unwrap_or_default()
                    )),
                ),
            ]),
        ),
    ])
}

fn prepare(chart_dir: &Path) -> Prepared {
    let funcs: HashMap<_, _> = helm_functions()
        .into_iter()
        .map(|(n, f)| (n.to_owned(), f))
        .collect();
    let mut set = Set::new("chart", funcs)
        .with_helm_builtins()
        .with_methods(sprig_methods);
    let mut renders = Vec::new();
    let top_values = offlux::template::from_serde(read_yaml(&chart_dir.join("values.yaml")));
    let mut charts = vec![(chart_dir.to_path_buf(), top_values.clone())];
    if let Ok(entries) = std::fs::read_dir(chart_dir.join("charts")) {
        let mut subcharts: Vec<PathBuf> = entries
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.is_dir())
            .collect();
        subcharts.sort();
        for sub in subcharts {
            let name = sub
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or_default()
                .to_owned();
            let mut values = match offlux::template::from_serde(read_yaml(&sub.join("values.yaml")))
            {
                Value::Map(m) => std::sync::Arc::unwrap_or_clone(m),
                _ => BTreeMap::new(),
            };
            if let Value::Map(top) = &top_values {
                if let Some(Value::Map(overrides)) = top.get(&name) {
                    values.extend(BTreeMap::clone(overrides));
                }
            }
            charts.push((sub, Value::map(values)));
        }
    }
    for (dir, values) in charts {
        let mut files = Vec::new();
        template_files(&dir.join("templates"), &mut files);
        for file in files {
            let name = file
                .strip_prefix(chart_dir.parent().unwrap_or(chart_dir))
                .unwrap_or(&file)
                .display()
                .to_string();
            let text = std::fs::read_to_string(&file).unwrap_or_default();
            if set.add(&name, &text).is_err() {
                continue;
            }
            let base = file
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or_default();
            if !base.starts_with('_') && !base.ends_with(".txt") {
                renders.push((name.clone(), context(&dir, values.clone(), &name)));
            }
        }
    }
    Prepared { set, renders }
}

fn render(prepared: &Prepared) -> usize {
    let options = ExecOptions {
        missing_key: MissingKey::Zero,
        ..ExecOptions::default()
    };
    let mut env = FuncEnv {
        rng_state: 42,
        now_unix: 1_700_000_000,
        lookups: 0,
        run: None,
    };
    prepared
        .renders
        .iter()
        .map(|(name, data)| {
            prepared
                .set
                .execute(name, data, &options, &mut env)
                .map_or(0, |s| s.len())
        })
        .sum()
}

fn bench(c: &mut Criterion) {
    let charts = offlux_test_data::root().join("corpus/charts");
    assert!(
        charts.is_dir(),
        "corpus charts not found at `{}`",
        charts.display()
    );
    let mut group = c.benchmark_group("template/chart-render");
    for chart in CHARTS {
        let prepared = prepare(&charts.join(chart));
        let bytes = render(&prepared);
        eprintln!(
            "{chart}: {} templates, {bytes} bytes rendered per iteration",
            prepared.renders.len()
        );
        group.bench_function(chart, |b| b.iter(|| render(&prepared)));
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
