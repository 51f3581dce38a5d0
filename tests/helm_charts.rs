//! The Helm engine against the reference (`../shared/oracle/helm-template`: Helm v4's own library)
//! on every chart of `../shared/corpus/charts`, rendered with its default values (and with
//! `--include-crds` where the chart has CRDs). Documents are compared as data (same documents,
//! same order, same values, same `# Source:` templates); byte-identical outputs are counted too.
//! A chart that fails in both is agreement when both name the same template. Values that differ
//! between two runs of the reference itself (`randAlphaNum` passwords, generated certificates) are
//! masked in both outputs before comparing.
//!
//! Prints `conformance helm-charts: N passed, M failed` and each difference.

use std::path::{Path, PathBuf};
use std::process::Command;

use offlux::helm::{self, LoadOptions, RenderOptions};
use offlux::template::Value;
use offlux::yaml::{parse_stream, to_json_kyaml, ParseOptions};

const RELEASE: &str = "offlux";
const NAMESPACE: &str = "apps";
/// The share of cases that must agree with the reference.
const FLOOR: f64 = 0.95;

fn shared() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared")
}

fn oracle(chart: &Path, include_crds: bool) -> Result<String, String> {
    let script = shared().join("oracle/helm-template");
    let mut command = Command::new(&script);
    command.arg(chart).args([RELEASE, NAMESPACE]);
    if include_crds {
        command.arg("--include-crds");
    }
    let output = command.output().unwrap_or_else(|e| {
        panic!(
            "the reference Helm (`{}`) cannot run: {e}",
            script.display()
        )
    });
    if output.status.success() {
        Ok(String::from_utf8_lossy(&output.stdout).into_owned())
    } else {
        Err(String::from_utf8_lossy(&output.stderr).into_owned())
    }
}

fn offlux(chart: &Path, include_crds: bool) -> Result<String, String> {
    let loaded = helm::load_dir(chart, &LoadOptions::default()).map_err(|e| e.to_string())?;
    let mut options = RenderOptions::new(RELEASE, NAMESPACE);
    options.include_crds = include_crds;
    let empty = Value::Map(Default::default());
    helm::template(loaded, &empty, &options)
        .map(|r| r.to_text(&options))
        .map_err(|e| e.to_string())
}

/// Each document as (its `# Source:` template, its data), null documents dropped.
fn as_data(text: &str) -> Vec<(String, serde_json::Value)> {
    helm::split_manifests(text)
        .into_iter()
        .filter_map(|doc| {
            let source = doc
                .lines()
                .find_map(|l| l.strip_prefix("# Source: "))
                .unwrap_or_default()
                .to_string();
            let parsed = parse_stream(doc, &ParseOptions::default()).ok()?;
            let root = parsed.into_iter().next()?.root;
            (!root.is_null()).then(|| (source, to_json_kyaml(&root)))
        })
        .collect()
}

/// The template a Helm error names (`chart/templates/x.yaml`), to compare failures.
fn failing_template(message: &str) -> Option<String> {
    let at = message.find("/templates/")?;
    let start = message[..at]
        .rfind(|c: char| c.is_whitespace() || c == '(' || c == '"')
        .map_or(0, |i| i + 1);
    let end = message[at..]
        .find(|c: char| c == ':' || c.is_whitespace() || c == '"' || c == ')')
        .map_or(message.len(), |i| at + i);
    Some(message[start..end].to_string())
}

enum Verdict {
    Identical,
    SameData,
    BothFail,
    Differ(String),
}

const VARIES: &str = "<varies between runs of the reference>";

/// Replaces, in `ours` and `theirs`, what differs between `theirs` and `again` (a second run of
/// the reference).
fn mask_unstable(
    ours: &mut serde_json::Value,
    theirs: &mut serde_json::Value,
    again: &serde_json::Value,
) {
    use serde_json::Value as J;
    if theirs == again {
        return;
    }
    match (theirs, again) {
        (J::Object(t), J::Object(a)) => {
            for (key, value) in t.iter_mut() {
                let Some(other) = a.get(key) else { continue };
                let mut scratch = J::Null;
                let mine = ours.get_mut(key.as_str()).unwrap_or(&mut scratch);
                mask_unstable(mine, value, other);
            }
        }
        (J::Array(t), J::Array(a)) if t.len() == a.len() => {
            for (i, (value, other)) in t.iter_mut().zip(a).enumerate() {
                let mut scratch = J::Null;
                let mine = ours.get_mut(i).unwrap_or(&mut scratch);
                mask_unstable(mine, value, other);
            }
        }
        (theirs, _) => {
            *theirs = J::String(VARIES.into());
            *ours = J::String(VARIES.into());
        }
    }
}

fn compare(chart: &Path, include_crds: bool) -> Verdict {
    match (offlux(chart, include_crds), oracle(chart, include_crds)) {
        (Ok(ours), Ok(theirs)) if ours == theirs => Verdict::Identical,
        (Ok(ours), Ok(theirs)) => {
            let (mut a, mut b) = (as_data(&ours), as_data(&theirs));
            if a != b {
                if let Ok(again) = oracle(chart, include_crds) {
                    let again = as_data(&again);
                    if a.len() == b.len() && b.len() == again.len() {
                        for ((x, y), z) in a.iter_mut().zip(b.iter_mut()).zip(&again) {
                            mask_unstable(&mut x.1, &mut y.1, &z.1);
                        }
                    }
                }
            }
            if a == b {
                return Verdict::SameData;
            }
            let first = a
                .iter()
                .zip(&b)
                .position(|(x, y)| x != y)
                .unwrap_or(a.len().min(b.len()));
            let show = |d: Option<&(String, serde_json::Value)>| {
                d.map(|(s, v)| format!("{s}: {}", truncate(&v.to_string(), 600)))
                    .unwrap_or_else(|| "(none)".into())
            };
            Verdict::Differ(format!(
                "{} vs {} documents; first difference at #{first}:\n    offlux: {}\n    helm:   {}",
                a.len(),
                b.len(),
                show(a.get(first)),
                show(b.get(first))
            ))
        }
        (Err(ours), Err(theirs)) => {
            if failing_template(&ours) == failing_template(&theirs) {
                Verdict::BothFail
            } else {
                Verdict::Differ(format!(
                    "both fail, differently:\n    offlux: {}\n    helm:   {}",
                    truncate(&ours, 400),
                    truncate(theirs.lines().last().unwrap_or(""), 400)
                ))
            }
        }
        (Err(ours), Ok(_)) => Verdict::Differ(format!("offlux fails: {}", truncate(&ours, 600))),
        (Ok(_), Err(theirs)) => Verdict::Differ(format!(
            "helm fails, offlux renders: {}",
            truncate(&theirs, 600)
        )),
    }
}

fn truncate(s: &str, n: usize) -> String {
    match s.char_indices().nth(n) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    }
}

#[test]
fn corpus_charts_render_as_the_reference_does() {
    let charts_dir = shared().join("corpus/charts");
    assert!(
        charts_dir.is_dir(),
        "corpus charts not found at `{}`: ../shared must sit beside the project",
        charts_dir.display()
    );
    let mut cases: Vec<(PathBuf, bool)> = Vec::new();
    let mut charts: Vec<PathBuf> = std::fs::read_dir(&charts_dir)
        .expect("read corpus charts")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("Chart.yaml").is_file())
        .collect();
    charts.sort();
    for chart in charts {
        if chart.join("crds").is_dir() {
            cases.push((chart.clone(), true));
        }
        cases.push((chart, false));
    }
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                let Some((chart, crds)) = cases.get(i) else {
                    break;
                };
                let verdict = compare(chart, *crds);
                if let Ok(mut r) = results.lock() {
                    r.push((i, verdict));
                }
            });
        }
    });
    let mut results = results.into_inner().expect("results");
    results.sort_by_key(|(i, _)| *i);
    let (mut identical, mut same, mut both_fail, mut failed) = (0, 0, 0, Vec::new());
    for (i, verdict) in &results {
        let (chart, crds) = &cases[*i];
        let name = format!(
            "{}{}",
            chart.file_name().and_then(|n| n.to_str()).unwrap_or("?"),
            if *crds { " --include-crds" } else { "" }
        );
        match verdict {
            Verdict::Identical => identical += 1,
            Verdict::SameData => same += 1,
            Verdict::BothFail => both_fail += 1,
            Verdict::Differ(why) => failed.push(format!("  {name}: {why}")),
        }
    }
    let passed = identical + same + both_fail;
    let total = results.len();
    for f in &failed {
        println!("{f}");
    }
    println!(
        "conformance helm-charts: {passed} passed ({identical} byte-identical, {same} same data, {both_fail} failing in both on the same template), {} failed, {total} total",
        failed.len()
    );
    assert!(
        passed as f64 >= FLOOR * total as f64,
        "{passed}/{total} charts agree with the reference; the floor is {FLOOR}"
    );
}
