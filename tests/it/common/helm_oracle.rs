//! The reference Helm (`../shared/oracle/helm-template`: Helm v4's own library) and the comparison
//! of its output with offlux's: documents as data (same documents, same order, same values, same
//! `# Source:` templates); values that differ between two runs of the reference itself
//! (`randAlphaNum` passwords, generated certificates) are masked in both outputs.

use std::path::{Path, PathBuf};
use std::process::Command;

use offlux::helm;
use offlux::yaml::{parse_stream, to_json_kyaml, ParseOptions};

pub fn shared() -> PathBuf {
    super::test_data::root()
}

/// The reference Helm's Python, installed by `oracle/setup.sh` once per test process: on a fresh
/// machine the script creates a virtual environment, and two callers at once would race on it
/// ("File exists"), so every use of the reference goes through this.
pub fn reference_python() -> &'static Path {
    static PYTHON: std::sync::OnceLock<Result<PathBuf, String>> = std::sync::OnceLock::new();
    let python = PYTHON.get_or_init(|| {
        let setup = shared().join("oracle/setup.sh");
        let output = Command::new(&setup)
            .output()
            .map_err(|e| format!("`{}` cannot run: {e}", setup.display()))?;
        if !output.status.success() {
            return Err(String::from_utf8_lossy(&output.stderr).into_owned());
        }
        Ok(PathBuf::from(
            String::from_utf8_lossy(&output.stdout).trim(),
        ))
    });
    match python {
        Ok(python) => python,
        Err(e) => panic!("the reference Helm cannot be set up: {e}"),
    }
}

/// The chart directories (those with a `Chart.yaml`) in `dir`, in name order.
pub fn chart_dirs(dir: &Path) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("read the charts directory")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("Chart.yaml").is_file())
        .collect();
    dirs.sort();
    dirs
}

/// `f` on each of `items` (with its index) on two worker threads; the results in the items' order.
pub fn on_two_workers<T: Sync, R: Send>(items: &[T], f: impl Fn(usize, &T) -> R + Sync) -> Vec<R> {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                let Some(item) = items.get(i) else { break };
                let result = f(i, item);
                if let Ok(mut r) = results.lock() {
                    r.push((i, result));
                }
            });
        }
    });
    let mut results = results.into_inner().unwrap_or_default();
    results.sort_by_key(|(i, _)| *i);
    results.into_iter().map(|(_, r)| r).collect()
}

/// `helm template RELEASE CHART -n NAMESPACE [-f VALUES] FLAGS…` by the reference.
pub fn oracle(
    chart: &Path,
    release: &str,
    namespace: &str,
    values: Option<&Path>,
    flags: &[&str],
) -> Result<String, String> {
    let script = shared().join("oracle/helm_template.py");
    let mut command = Command::new(reference_python());
    command.arg(&script).arg(chart).args([release, namespace]);
    if let Some(values) = values {
        command.arg(values);
    }
    command.args(flags);
    let output = command.output().unwrap_or_else(|e| {
        panic!(
            "the reference Helm (`{}`) cannot run: {e}",
            script.display()
        )
    });
    let stderr = String::from_utf8_lossy(&output.stderr);
    if output.status.success() {
        Ok(String::from_utf8_lossy(&output.stdout).into_owned())
    } else if stderr.contains("KeyError: 'manifest'") {
        // The reference's driver reads the install summary's `manifest`, which Helm leaves out
        // when the release renders nothing: an empty render, not a failure.
        Ok(String::new())
    } else {
        Err(stderr.into_owned())
    }
}

/// Each document as (its `# Source:` template, its data), null documents dropped.
pub fn as_data(text: &str) -> Vec<(String, serde_json::Value)> {
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

/// What a failure is about, to compare failures: the template it names, or the dependencies a
/// chart lacks, or the last line of a schema violation.
pub fn failure_key(message: &str) -> Option<String> {
    if let Some(template) = failing_template(message) {
        return Some(template);
    }
    const MISSING: &str = "missing in charts/ directory: ";
    if let Some(at) = message.find(MISSING) {
        let rest = &message[at + MISSING.len()..];
        let list = rest.lines().next().unwrap_or_default();
        let list = list.split(" (").next().unwrap_or(list);
        return Some(format!("missing dependencies: {list}"));
    }
    message
        .lines()
        .rev()
        .map(str::trim)
        .find(|line| line.starts_with("- at '"))
        .map(|line| format!("schema: {line}"))
}

/// The template a Helm error names (`chart/templates/x.yaml`), to compare failures.
pub fn failing_template(message: &str) -> Option<String> {
    let at = message.find("/templates/")?;
    let start = message[..at]
        .rfind(|c: char| c.is_whitespace() || c == '(' || c == '"')
        .map_or(0, |i| i + 1);
    let end = message[at..]
        .find(|c: char| c == ':' || c.is_whitespace() || c == '"' || c == ')')
        .map_or(message.len(), |i| at + i);
    Some(message[start..end].to_string())
}

pub enum Verdict {
    Identical,
    SameData,
    BothFail,
    Differ(String),
}

pub const VARIES: &str = "<varies between runs of the reference>";

/// Replaces, in `ours` and `theirs`, what differs between `theirs` and `again` (a second run of
/// the reference).
pub fn mask_unstable(
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

pub fn compare(
    ours: Result<String, String>,
    reference: impl Fn() -> Result<String, String>,
) -> Verdict {
    match (ours, reference()) {
        (Ok(ours), Ok(theirs)) if ours == theirs => Verdict::Identical,
        (Ok(ours), Ok(theirs)) => {
            let (mut a, mut b) = (as_data(&ours), as_data(&theirs));
            if a != b {
                if let Ok(again) = reference() {
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
            // Helm's CLI checks a chart's dependencies before rendering (`runInstall`); the
            // oracle's SDK renders first, so on a chart that also fails to render it names the
            // template. offlux follows the CLI.
            let missing_first = failure_key(&ours)
                .is_some_and(|key| key.starts_with("missing dependencies: "))
                && failing_template(&theirs).is_some();
            if missing_first
                || (failure_key(&ours).is_some() && failure_key(&ours) == failure_key(&theirs))
            {
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

pub fn truncate(s: &str, n: usize) -> String {
    match s.char_indices().nth(n) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    }
}
