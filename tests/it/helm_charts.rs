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

use offlux::helm::{self, LoadOptions, RenderOptions};
use offlux::template::Value;

use crate::common;
use common::helm_oracle::{compare, oracle, Verdict};

const RELEASE: &str = "offlux";
const NAMESPACE: &str = "apps";
/// The share of cases that must agree with the reference.
const FLOOR: f64 = 0.95;

fn offlux(chart: &Path, include_crds: bool) -> Result<String, String> {
    let loaded = helm::load_dir(chart, &LoadOptions::default()).map_err(|e| e.to_string())?;
    let mut options = RenderOptions::new(RELEASE, NAMESPACE);
    options.include_crds = include_crds;
    let empty = Value::Map(Default::default());
    helm::template(loaded, &empty, &options)
        .map(|r| r.to_text(&options))
        .map_err(|e| e.to_string())
}

#[test]
fn corpus_charts_render_as_the_reference_does() {
    let Some(charts_dir) =
        common::test_data::dir("corpus/charts", "corpus charts against the reference Helm")
    else {
        return;
    };
    let mut cases: Vec<(PathBuf, bool)> = Vec::new();
    for chart in common::helm_oracle::chart_dirs(&charts_dir) {
        if chart.join("crds").is_dir() {
            cases.push((chart.clone(), true));
        }
        cases.push((chart, false));
    }
    let results: Vec<(usize, Verdict)> =
        common::helm_oracle::on_two_workers(&cases, |i, (chart, crds)| {
            let flags: &[&str] = if *crds { &["--include-crds"] } else { &[] };
            let verdict = compare(offlux(chart, *crds), || {
                oracle(chart, RELEASE, NAMESPACE, None, flags)
            });
            (i, verdict)
        });
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
