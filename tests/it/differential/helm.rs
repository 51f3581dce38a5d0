//! Every corpus chart (`../shared/corpus/charts`) rendered with values no person wrote: paths of
//! its own `values.yaml` toggled at random (booleans flipped, `enabled`/`create` switches turned
//! on, small numbers changed, strings emptied or set, empty lists, maps and nulls filled with
//! examples of what such a key holds, full lists emptied), under a random release name and
//! namespace, `--kube-version`, `--api-versions` and `--include-crds`. offlux's Helm engine (in
//! process) and the reference (`helm_template.py` of `../shared/oracle`, Helm v4's library) render
//! each case, and the outputs are compared byte for byte. Where they differ, the reference renders
//! the case again: lines that differ between its two runs (random passwords, generated
//! certificates) are masked in all three texts and the rest compared again, byte for byte (or as
//! data, with the values that vary masked, when the random text changes the number of lines). A
//! case both tools refuse is agreement (the messages may differ).
//!
//! The reference renders many cases per process (`helm_batch.py`). Charts that cannot render
//! offline (dependencies absent from the corpus) and library charts are skipped and counted.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use offlux::helm::{self, KubeVersion, LoadOptions, RenderOptions};
use serde_json::{json, Map, Value as Json};

use crate::common::helm_oracle::{as_data, mask_unstable, truncate};
use crate::differential::gen::{self, first_difference, Gen};

/// Cases CI compares (every renderable chart once, the rest by chance).
const CI_CASES: usize = 96;
/// Cases per reference process.
const PER_PROCESS: usize = 12;

/// Release names: short, the longest Helm installs (names built from it are truncated), and now
/// and then one Helm refuses (see [`release`]).
const RELEASES: &[&str] = &[
    "rel",
    "offlux",
    "release-name-of-fifty-three-characters-to-be-truncate",
];
const INVALID_RELEASES: &[&str] = &[
    "a-release-name-longer-than-the-fifty-three-characters-helm-allows",
    "Upper_Case",
];

fn release(g: &mut Gen) -> String {
    if g.chance(0.03) {
        g.pick(INVALID_RELEASES).to_string()
    } else {
        g.pick(RELEASES).to_string()
    }
}
const NAMESPACES: &[&str] = &["ns", "default", "monitoring"];
const KUBE_VERSIONS: &[&str] = &[
    "1.19.0",
    "1.21.5",
    "1.23.0",
    "1.25.3",
    "1.27.0",
    "1.29.2",
    "1.31.0",
    "1.33.1",
    "1.35.0",
    "v1.30.4-gke.1",
];
const API_VERSIONS: &[&str] = &[
    "monitoring.coreos.com/v1",
    "monitoring.coreos.com/v1/ServiceMonitor",
    "monitoring.coreos.com/v1/PrometheusRule",
    "monitoring.coreos.com/v1/PodMonitor",
    "networking.k8s.io/v1/Ingress",
    "networking.k8s.io/v1beta1",
    "policy/v1beta1",
    "policy/v1beta1/PodSecurityPolicy",
    "autoscaling/v2beta2",
    "batch/v1beta1",
    "gateway.networking.k8s.io/v1",
    "gateway.networking.k8s.io/v1/HTTPRoute",
    "cert-manager.io/v1",
    "autoscaling.k8s.io/v1/VerticalPodAutoscaler",
    "keda.sh/v1alpha1",
    "security.openshift.io/v1",
    "route.openshift.io/v1/Route",
];

/// A render's text, or why it failed.
type Render = Result<String, String>;

/// One generated case.
struct Case {
    chart: PathBuf,
    release: String,
    namespace: String,
    /// The values given on top of the chart's own (written as `values` for both tools).
    overlay: Json,
    kube_version: Option<String>,
    api_versions: Vec<String>,
    include_crds: bool,
}

impl Case {
    fn describe(&self) -> String {
        let mut out = format!(
            "{} release {} namespace {}",
            self.chart
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or("?"),
            self.release,
            self.namespace
        );
        if let Some(v) = &self.kube_version {
            out.push_str(&format!(" --kube-version {v}"));
        }
        if !self.api_versions.is_empty() {
            out.push_str(&format!(" --api-versions {}", self.api_versions.join(",")));
        }
        if self.include_crds {
            out.push_str(" --include-crds");
        }
        out.push_str(&format!(" values {}", self.overlay));
        out
    }
}

/// Values the generator leaves alone in some charts, each for a known disagreement it would hit:
/// (chart directory prefix, a word of the dotted values path, the case under
/// `tests/differential/known/helm/`).
const AVOID: &[(&str, &str, &str)] = &[
    (
        "gateway-helm-",
        "global.images",
        "splitn-missing-index-is-an-empty-string",
    ),
    ("victoria-", "abels", "a-map-changed-through-an-alias"),
];

fn avoided(chart: &Path, path: &[String]) -> bool {
    let name = chart
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default();
    let dotted = path.join(".");
    AVOID
        .iter()
        .any(|(prefix, part, _)| name.starts_with(prefix) && dotted.contains(part))
}

/// A place in a chart's default values: its path and value.
struct Entry {
    path: Vec<String>,
    value: Json,
}

fn entries(value: &Json, path: &mut Vec<String>, out: &mut Vec<Entry>) {
    let Json::Object(map) = value else { return };
    for (key, v) in map {
        path.push(key.clone());
        out.push(Entry {
            path: path.clone(),
            value: v.clone(),
        });
        entries(v, path, out);
        path.pop();
    }
}

/// What a key of this name usually holds, for an empty list, empty map or null of that name.
fn example(key: &str) -> Option<Json> {
    let k = key.to_ascii_lowercase();
    let v = if k.contains("toleration") {
        json!([{"key": "dedicated", "operator": "Equal", "value": "infra", "effect": "NoSchedule"}])
    } else if k.ends_with("env") || k == "extraenvvars" || k == "envvars" {
        json!([{"name": "GEN_VAR", "value": "1"}])
    } else if k.contains("args") {
        json!(["--gen-flag=1"])
    } else if k.contains("pullsecret") {
        json!([{"name": "regcred"}])
    } else if k.ends_with("volumemounts") {
        json!([{"name": "gen-vol", "mountPath": "/gen"}])
    } else if k.ends_with("volumes") {
        json!([{"name": "gen-vol", "emptyDir": {}}])
    } else if k.contains("nodeselector") {
        json!({"kubernetes.io/os": "linux"})
    } else if k.contains("annotations") || k.contains("labels") {
        json!({"gen.example.com/key": "value"})
    } else if k == "resources" {
        json!({"limits": {"cpu": "100m", "memory": "64Mi"}, "requests": {"cpu": "10m"}})
    } else if k.contains("hosts") {
        json!(["gen.example.com"])
    } else if k.contains("securitycontext") {
        json!({"runAsNonRoot": true, "runAsUser": 1000})
    } else if k.contains("affinity") {
        json!({"podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 1, "podAffinityTerm": {"topologyKey": "kubernetes.io/hostname"}}]}})
    } else if k == "image" {
        // a whole reference: `splitn` on a text without `/` differs (see
        // `known/helm/splitn-missing-index-is-an-empty-string`)
        json!("registry.example.com/gen/app:v1")
    } else if k.contains("secret") || k.contains("name") || k.contains("class") {
        json!("gen-name")
    } else if k.contains("tag") || k.contains("version") {
        json!("v9.9.9")
    } else if k.contains("port") {
        json!(9999)
    } else {
        return None;
    };
    Some(v)
}

/// A change to one entry, with its weight (how much it is worth trying), or none. A generated
/// label or annotation key is named after the entry's path: the same key in two maps a template
/// prints together differs (see `known/helm/duplicate-keys-in-a-rendered-manifest`).
fn mutation(g: &mut Gen, entry: &Entry) -> Option<(u32, Json)> {
    let (weight, mut value) = any_mutation(g, entry)?;
    if let Some(map) = value.as_object_mut() {
        if let Some(v) = map.remove("gen.example.com/key") {
            map.insert(format!("gen.example.com/{}", entry.path.join("-")), v);
        }
    }
    Some((weight, value))
}

fn any_mutation(g: &mut Gen, entry: &Entry) -> Option<(u32, Json)> {
    let key = entry.path.last().map(String::as_str).unwrap_or_default();
    let switch = matches!(key, "enabled" | "create" | "enable" | "install");
    match &entry.value {
        Json::Bool(false) if switch => Some((6, json!(true))),
        Json::Bool(b) => Some((if switch { 2 } else { 3 }, json!(!b))),
        Json::Number(n) => {
            let x = n.as_f64().unwrap_or(0.0);
            let new = match g.below(3) {
                0 => x + 1.0,
                1 => 0.0,
                _ => 3.0,
            };
            Some((1, json!(new)))
        }
        Json::String(s) if s.is_empty() => {
            Some((2, example(key).unwrap_or_else(|| json!("gen-value"))))
        }
        Json::String(_) => match example(key) {
            Some(v) if v.is_string() && g.chance(0.5) => Some((1, v)),
            _ => Some((1, json!(""))),
        },
        Json::Null => Some((2, example(key).unwrap_or_else(|| json!("gen-value")))),
        Json::Array(items) if items.is_empty() => {
            example(key).filter(Json::is_array).map(|v| (2, v))
        }
        Json::Array(items) => {
            if g.chance(0.5) {
                Some((1, json!([])))
            } else {
                // the first item again, under another name where items have one
                let mut copy = items.first()?.clone();
                if let Some(Json::String(name)) = copy.get_mut("name") {
                    name.push_str("-gen");
                }
                let mut more = items.clone();
                more.push(copy);
                Some((1, Json::Array(more)))
            }
        }
        Json::Object(map) if map.is_empty() => example(key).filter(Json::is_object).map(|v| (2, v)),
        Json::Object(_) => None,
    }
}

fn set(root: &mut Json, path: &[String], value: Json) {
    let Some((last, parents)) = path.split_last() else {
        return;
    };
    let mut at = root;
    for key in parents {
        if !at.is_object() {
            *at = Json::Object(Map::new());
        }
        let Json::Object(map) = at else { return };
        at = map
            .entry(key.clone())
            .or_insert_with(|| Json::Object(Map::new()));
    }
    if !at.is_object() {
        *at = Json::Object(Map::new());
    }
    if let Json::Object(map) = at {
        map.insert(last.clone(), value);
    }
}

/// A renderable chart: its directory, its default values' entries and whether it has CRDs.
struct Chart {
    dir: PathBuf,
    entries: Vec<Entry>,
    crds: bool,
}

fn generate(g: &mut Gen, chart: &Chart) -> Case {
    let mut overlay = Json::Object(Map::new());
    let weighted: Vec<(u32, &Entry, Json)> = chart
        .entries
        .iter()
        .filter(|e| !avoided(&chart.dir, &e.path))
        .filter_map(|e| mutation(g, e).map(|(w, v)| (w, e, v)))
        .collect();
    let total: u32 = weighted.iter().map(|(w, _, _)| w).sum();
    let mut touched: BTreeSet<Vec<String>> = BTreeSet::new();
    for _ in 0..1 + g.below(6) {
        if total == 0 {
            break;
        }
        let mut at = g.below(total as usize) as u32;
        let Some((_, entry, value)) = weighted.iter().find(|(w, _, _)| {
            if at < *w {
                true
            } else {
                at -= w;
                false
            }
        }) else {
            break;
        };
        // a path inside one already changed would undo or contradict that change
        if touched
            .iter()
            .any(|t| entry.path.starts_with(t) || t.starts_with(&entry.path))
        {
            continue;
        }
        touched.insert(entry.path.clone());
        set(&mut overlay, &entry.path, value.clone());
    }
    let kube_version = g.chance(0.4).then(|| g.pick(KUBE_VERSIONS).to_string());
    let api_versions = if g.chance(0.4) {
        (0..1 + g.below(3))
            .map(|_| g.pick(API_VERSIONS).to_string())
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect()
    } else {
        Vec::new()
    };
    Case {
        chart: chart.dir.clone(),
        release: release(g),
        namespace: g.pick(NAMESPACES).to_string(),
        overlay,
        kube_version,
        api_versions,
        include_crds: chart.crds && g.chance(0.4),
    }
}

/// The corpus charts that can render offline, and how many were skipped (with why).
fn charts(dir: &Path) -> (Vec<Chart>, Vec<String>) {
    let (mut out, mut skipped) = (Vec::new(), Vec::new());
    for dir in crate::common::helm_oracle::chart_dirs(dir) {
        let name = dir
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("?")
            .to_string();
        let chart = match helm::load_dir(&dir, &LoadOptions::default()) {
            Ok(chart) => chart,
            Err(e) => {
                skipped.push(format!("{name}: offlux cannot load it: {e}"));
                continue;
            }
        };
        if chart.metadata.is_library() {
            skipped.push(format!("{name}: a library chart"));
            continue;
        }
        let missing: Vec<&str> = chart
            .metadata
            .dependencies
            .iter()
            .filter(|d| !chart.dependencies.iter().any(|c| c.name() == d.name))
            .map(|d| d.name.as_str())
            .collect();
        if !missing.is_empty() {
            skipped.push(format!(
                "{name}: dependencies absent from the corpus: {}",
                missing.join(", ")
            ));
            continue;
        }
        let text = std::fs::read_to_string(dir.join("values.yaml")).unwrap_or_default();
        let defaults = offlux::yaml::parse_stream(&text, &offlux::yaml::ParseOptions::default())
            .ok()
            .and_then(|docs| docs.into_iter().next())
            .map(|doc| offlux::yaml::to_json_helm(&doc.root))
            .unwrap_or(Json::Null);
        let mut found = Vec::new();
        entries(&defaults, &mut Vec::new(), &mut found);
        out.push(Chart {
            crds: !chart.crd_files().is_empty(),
            dir,
            entries: found,
        });
    }
    (out, skipped)
}

fn values_file(scratch: &Path, n: usize, case: &Case) -> PathBuf {
    let path = scratch.join(format!("values{n}.yaml"));
    // JSON is YAML that both readers type alike
    std::fs::write(
        &path,
        serde_json::to_string_pretty(&case.overlay).unwrap_or_default(),
    )
    .expect("write a values file");
    path
}

fn offlux_render(case: &Case, values: &Path) -> Result<String, String> {
    let chart = helm::load_dir(&case.chart, &LoadOptions::default()).map_err(|e| e.to_string())?;
    let text = std::fs::read_to_string(values).map_err(|e| e.to_string())?;
    let values = helm::values::from_yaml(&text, "values.yaml").map_err(|e| e.to_string())?;
    let mut options = RenderOptions::new(&case.release, &case.namespace);
    if let Some(v) = &case.kube_version {
        options.kube_version = KubeVersion::parse(v).map_err(|e| e.to_string())?;
    }
    options.api_versions = case.api_versions.clone();
    options.include_crds = case.include_crds;
    helm::template(chart, &values, &options)
        .map(|r| r.to_text(&options))
        .map_err(|e| e.to_string())
}

/// The reference's renders of `cases` (with their values files), one process for them all.
fn reference(scratch: &Path, tag: &str, cases: &[(&Case, PathBuf)]) -> Vec<Result<String, String>> {
    let oracle = crate::common::helm_oracle::shared().join("oracle");
    let jobs: Vec<Json> = cases
        .iter()
        .map(|(case, values)| {
            json!({
                "chart": case.chart,
                "release": case.release,
                "namespace": case.namespace,
                "values": values,
                "kube_version": case.kube_version,
                "api_versions": case.api_versions,
                "include_crds": case.include_crds,
            })
        })
        .collect();
    let jobs_file = scratch.join(format!("jobs-{tag}.json"));
    std::fs::write(&jobs_file, Json::Array(jobs).to_string()).expect("write the jobs");
    let python = crate::common::helm_oracle::reference_python();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/differential/helm_batch.py");
    let output = Command::new(python)
        .arg(&script)
        .arg(&oracle)
        .arg(&jobs_file)
        .output()
        .expect("the reference Helm runs");
    let results: Vec<Json> = serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "the reference Helm's batch printed no results ({e}): {}",
            String::from_utf8_lossy(&output.stderr)
        )
    });
    assert_eq!(results.len(), cases.len(), "one result per case");
    results
        .into_iter()
        .map(
            |r| match (r.get("ok").and_then(Json::as_str), r.get("error")) {
                (Some(text), _) => Ok(text.to_string()),
                (None, e) => Err(e.and_then(Json::as_str).unwrap_or("?").to_string()),
            },
        )
        .collect()
}

#[derive(Debug, PartialEq)]
enum Verdict {
    Identical,
    /// Identical but for lines that differ between two runs of the reference itself.
    IdenticalUnmasked,
    /// The same data, with the values that vary between runs of the reference masked (random text
    /// that changes the number of lines).
    SameDataUnmasked,
    BothFail,
    Differ(String),
}

/// Compares a case whose outputs differ, knowing a second run of the reference.
fn judge(ours: &str, theirs: &str, again: &Result<String, String>) -> Verdict {
    let Ok(again) = again else {
        return Verdict::Differ("the reference fails on a second run".into());
    };
    let (o, t, a): (Vec<&str>, Vec<&str>, Vec<&str>) = (
        ours.lines().collect(),
        theirs.lines().collect(),
        again.lines().collect(),
    );
    if t != a && o.len() == t.len() && t.len() == a.len() {
        let same = o.iter().zip(&t).zip(&a).all(|((o, t), a)| o == t || t != a);
        if same {
            return Verdict::IdenticalUnmasked;
        }
    }
    let line = first_difference(theirs, ours);
    let show = |text: &[&str]| {
        text.get(line.saturating_sub(3)..(line + 2).min(text.len()))
            .map(|l| l.join("\n      "))
            .unwrap_or_default()
    };
    let why = format!(
        "line {line}\n    helm:\n      {}\n    offlux:\n      {}",
        show(&t),
        show(&o)
    );
    if t == a {
        return Verdict::Differ(why);
    }
    let (mut x, mut y, z) = (as_data(ours), as_data(theirs), as_data(again));
    if x.len() == y.len() && y.len() == z.len() {
        for ((x, y), z) in x.iter_mut().zip(y.iter_mut()).zip(&z) {
            mask_unstable(&mut x.1, &mut y.1, &z.1);
        }
        if x == y {
            return Verdict::SameDataUnmasked;
        }
    }
    Verdict::Differ(why)
}

#[test]
fn corpus_charts_with_generated_values_render_as_helm_does() {
    let Some(charts_dir) = crate::common::test_data::dir(
        "corpus/charts",
        "corpus charts with generated values against the reference Helm",
    ) else {
        return;
    };
    let seed = gen::seed();
    let count = gen::cases(CI_CASES);
    let (charts, skipped) = charts(&charts_dir);
    assert!(!charts.is_empty(), "no renderable chart in the corpus");
    let scratch = tempfile::tempdir().expect("a temporary directory");
    let keep = std::env::var_os("OFFLUX_DIFF_KEEP").map(PathBuf::from);
    let verbose = std::env::var_os("OFFLUX_DIFF_VERBOSE").is_some();
    let cases: Vec<Case> = (0..count)
        .map(|n| {
            let mut g = Gen::new(seed, "helm", n as u64);
            // every chart in turn, so a run of as many cases as charts covers them all
            let chart = &charts[n % charts.len()];
            generate(&mut g, chart)
        })
        .collect();
    let files: Vec<PathBuf> = cases
        .iter()
        .enumerate()
        .map(|(n, c)| values_file(scratch.path(), n, c))
        .collect();
    // (case number, offlux's render, the reference's) in chunks shared by two workers, each
    // rendering its chunk with offlux while the reference's process renders it too
    let chunks: Vec<Vec<usize>> = (0..count)
        .collect::<Vec<_>>()
        .chunks(PER_PROCESS)
        .map(<[usize]>::to_vec)
        .collect();
    let results: Vec<(usize, Render, Render)> =
        crate::common::helm_oracle::on_two_workers(&chunks, |i, chunk| {
            let batch: Vec<(&Case, PathBuf)> = chunk
                .iter()
                .map(|n| (&cases[*n], files[*n].clone()))
                .collect();
            let (ours, theirs) = std::thread::scope(|inner| {
                let handle = inner.spawn(|| reference(scratch.path(), &i.to_string(), &batch));
                let ours: Vec<Result<String, String>> = batch
                    .iter()
                    .map(|(case, values)| offlux_render(case, values))
                    .collect();
                (ours, handle.join().expect("the reference batch"))
            });
            chunk
                .iter()
                .zip(ours)
                .zip(theirs)
                .map(|((n, o), t)| (*n, o, t))
                .collect::<Vec<_>>()
        })
        .into_iter()
        .flatten()
        .collect();
    // the cases whose outputs differ are rendered by the reference a second time
    let differing: Vec<usize> = results
        .iter()
        .filter(|(_, o, t)| matches!((o, t), (Ok(o), Ok(t)) if o != t))
        .map(|(n, _, _)| *n)
        .collect();
    let again: Vec<Result<String, String>> = differing
        .chunks(PER_PROCESS * 4)
        .enumerate()
        .flat_map(|(i, chunk)| {
            let batch: Vec<(&Case, PathBuf)> = chunk
                .iter()
                .map(|n| (&cases[*n], files[*n].clone()))
                .collect();
            reference(scratch.path(), &format!("again{i}"), &batch)
        })
        .collect();
    let (mut identical, mut unmasked, mut data, mut both_fail, mut rendered) = (0, 0, 0, 0, 0);
    let mut differ = Vec::new();
    for (n, ours, theirs) in &results {
        let case = &cases[*n];
        let verdict = match (ours, theirs) {
            (Ok(o), Ok(t)) if o == t => Verdict::Identical,
            (Ok(o), Ok(t)) => {
                let k = differing.iter().position(|d| d == n).unwrap_or(usize::MAX);
                judge(o, t, again.get(k).unwrap_or(&Err("not run again".into())))
            }
            (Err(o), Err(t)) => {
                if verbose {
                    eprintln!(
                        "  both refuse case {n} ({}):\n    offlux: {}\n    helm:   {}",
                        case.describe(),
                        truncate(o, 300),
                        truncate(t.lines().last().unwrap_or_default(), 300)
                    );
                }
                Verdict::BothFail
            }
            (Err(o), Ok(_)) => Verdict::Differ(format!("offlux fails: {}", truncate(o, 600))),
            (Ok(_), Err(t)) => {
                Verdict::Differ(format!("Helm fails, offlux renders: {}", truncate(t, 600)))
            }
        };
        if ours.is_ok() && theirs.is_ok() {
            rendered += 1;
        }
        match verdict {
            Verdict::Identical => identical += 1,
            Verdict::IdenticalUnmasked => unmasked += 1,
            Verdict::SameDataUnmasked => data += 1,
            Verdict::BothFail => both_fail += 1,
            Verdict::Differ(why) => {
                eprintln!(
                    "  DIFF helm seed {seed} case {n}: {}\n    {why}",
                    case.describe()
                );
                if let Some(keep) = &keep {
                    let dest = keep.join(format!("helm-{seed}-{n}"));
                    let _ = std::fs::create_dir_all(&dest);
                    let _ = std::fs::write(dest.join("CASE"), case.describe());
                    let _ = std::fs::copy(&files[*n], dest.join("values.yaml"));
                    let text = |r: &Result<String, String>| match r {
                        Ok(t) => t.clone(),
                        Err(e) => format!("ERROR: {e}"),
                    };
                    let _ = std::fs::write(dest.join("REFERENCE"), text(theirs));
                    let _ = std::fs::write(dest.join("OFFLUX"), text(ours));
                }
                differ.push(*n);
            }
        }
    }
    for why in &skipped {
        eprintln!("  skipped chart {why}");
    }
    println!(
        "differential helm: {} generated chart renders compared (seed {seed}, {} charts, {} skipped): \
         {identical} byte-identical, {unmasked} byte-identical but for lines that vary between \
         Helm's own runs, {data} the same data with Helm's varying values masked, {both_fail} \
         refused by both, {} differ ({rendered} rendered by both)",
        results.len(),
        charts.len(),
        skipped.len(),
        differ.len()
    );
    assert!(
        differ.is_empty(),
        "generated chart renders differ from Helm (seed {seed}): cases {differ:?}"
    );
}

/// A recorded case (`case.json` beside `expected.yaml` or `expected_error.txt`): the chart (a
/// `chart/` directory beside it, or a corpus chart by name), release, namespace, values and flags.
fn recorded_case(dir: &Path) -> Option<Case> {
    let text = std::fs::read_to_string(dir.join("case.json"))
        .unwrap_or_else(|e| panic!("{}: {e}", dir.join("case.json").display()));
    let case: Json = serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("{}/case.json is not JSON: {e}", dir.display()));
    let field = |k: &str| case.get(k).and_then(Json::as_str).map(str::to_string);
    let chart = match field("chart") {
        Some(name) if !dir.join(&name).is_dir() => crate::common::test_data::located(
            crate::common::helm_oracle::shared()
                .join("corpus/charts")
                .join(&name),
            "a recorded Helm case's corpus chart",
        )?,
        Some(name) => dir.join(name),
        None => panic!("{}/case.json names no chart", dir.display()),
    };
    Some(Case {
        chart,
        release: field("release").unwrap_or_else(|| "rel".into()),
        namespace: field("namespace").unwrap_or_else(|| "ns".into()),
        overlay: case.get("values").cloned().unwrap_or(json!({})),
        kube_version: field("kube_version"),
        api_versions: case
            .get("api_versions")
            .and_then(Json::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(Json::as_str)
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default(),
        include_crds: case
            .get("include_crds")
            .and_then(Json::as_bool)
            .unwrap_or(false),
    })
}

/// Each recorded case under `root` and whether offlux renders what the reference did (`None`) or
/// how it differs.
fn recorded_cases(root: &str) -> Vec<(String, Option<String>)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join(root);
    let Ok(entries) = std::fs::read_dir(&root) else {
        return Vec::new();
    };
    let mut dirs: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("case.json").is_file())
        .collect();
    dirs.sort();
    let scratch = tempfile::tempdir().expect("a temporary directory");
    let mut out = Vec::new();
    for (n, dir) in dirs.iter().enumerate() {
        let name = dir
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        let Some(case) = recorded_case(dir) else {
            continue;
        };
        let got = offlux_render(&case, &values_file(scratch.path(), n, &case));
        out.push((name, gen::recorded_verdict(dir, &got)));
    }
    out
}

/// Disagreements the generator found and that were fixed, kept with Helm's output
/// (`tests/differential/regressions/helm/`): offlux must agree.
#[test]
fn helm_regressions_render_as_helm_did() {
    gen::assert_regressions_agree(recorded_cases("tests/differential/regressions/helm"));
}

/// Disagreements the generator found and that are not fixed (`tests/differential/known/helm/`,
/// each with Helm's output and a `CAUSE`). Each must still differ: one that agrees now is to be
/// moved to the regressions.
#[test]
fn known_helm_disagreements_still_differ() {
    let root = "tests/differential/known/helm";
    for (_, _, case) in AVOID {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(root).join(case);
        assert!(
            dir.is_dir(),
            "the generator avoids {case}, which {root} lacks"
        );
    }
    gen::assert_known_still_differ(root, recorded_cases(root));
}
