//! `--changed-only` against a full run, on corpus repositories with seeded random edits: a
//! HelmRelease value, a file of a kustomization directory, a post-build variable of a
//! `substituteFrom` ConfigMap (or the generator that makes it), a component's file, a deleted
//! file. For each edit, every producer the narrowed run reports has the full run's output (byte
//! for byte, as `render --out` writes it) and status (as `test -o json` reports it), and every
//! producer whose output or status differs between the base and the edited tree in full runs is
//! among them. The `git` binary makes the repositories; offlux reads them itself.
//!
//! A fixed seed and a few edits by default (bounded time); `OFFLUX_CHANGED_CASES=N` runs N edits
//! per repository and `OFFLUX_CHANGED_SEED` picks another seed.

#![allow(
    clippy::disallowed_methods,
    reason = "tests read their settings from the environment"
)]

use crate::common::copy_dir;
use crate::common::fleet;
use crate::common::test_data;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command as Process;

use assert_cmd::Command;

/// Repository, `--path` inside it, edits by default.
const REPOSITORIES: &[(&str, &str, usize)] = &[
    (
        "onedr0p__home-ops__2025-06-23",
        "kubernetes/flux/cluster",
        5,
    ),
    (
        "fluxcd__flux2-kustomize-helm-example",
        "clusters/production",
        3,
    ),
    // Three clusters at one path, `${CLUSTER}` in Kustomization paths.
    ("joryirving__home-ops", ".", 3),
];

/// `git` with a fixed branch name and no signing, whatever the machine's configuration.
fn git(dir: &Path, args: &[&str]) {
    let mut all = vec![
        "-c",
        "init.defaultBranch=main",
        "-c",
        "commit.gpgsign=false",
    ];
    all.extend(args);
    fleet::git(dir, &all);
}

/// xorshift64*: a small seeded generator, so a failing case can be run again.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 33) as usize % n.max(1)
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> Option<&'a T> {
        if items.is_empty() {
            None
        } else {
            items.get(self.below(items.len()))
        }
    }
}

/// Every file of the repository, relative, sorted (`.git` left out).
fn files(root: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("read_dir").flatten() {
            let path = entry.path();
            if entry.file_name() == ".git" {
                continue;
            }
            if path.is_dir() {
                stack.push(path);
            } else if let Ok(relative) = path.strip_prefix(root) {
                out.push(relative.to_path_buf());
            }
        }
    }
    out.sort();
    out
}

/// A one-line plain scalar value (`  key: value`) as (indent, key, value).
fn plain_value(line: &str) -> Option<(usize, &str, &str)> {
    let indent = line.len() - line.trim_start().len();
    let (key, value) = line
        .trim_start()
        .trim_start_matches("- ")
        .split_once(": ")?;
    let value = value.trim_end();
    let plain = !value.is_empty()
        && !value.starts_with(['|', '>', '&', '*', '{', '[', '"', '\'', '#', '!'])
        && !value.contains(" #")
        && !matches!(key, "apiVersion" | "kind" | "name" | "namespace");
    let keyish = !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_-./".contains(c));
    (plain && keyish).then_some((indent, key, value))
}

fn mutated(value: &str) -> String {
    match value {
        "true" => "false".to_owned(),
        "false" => "true".to_owned(),
        _ => match value.parse::<u64>() {
            Ok(n) => (n + 1).to_string(),
            Err(_) => format!("{value}-changed"),
        },
    }
}

/// Changes one plain value among `lines[range]`; the edit, or `None` when there is none.
fn edit_lines(
    rng: &mut Rng,
    text: &str,
    within: &dyn Fn(&[&str], usize) -> bool,
) -> Option<(String, String)> {
    let lines: Vec<&str> = text.lines().collect();
    let candidates: Vec<usize> = (0..lines.len())
        .filter(|&i| within(&lines, i) && plain_value(lines[i]).is_some())
        .collect();
    let &chosen = rng.pick(&candidates)?;
    let (_, key, value) = plain_value(lines[chosen])?;
    let new_line = lines[chosen].replacen(
        &format!("{key}: {value}"),
        &format!("{key}: {}", mutated(value)),
        1,
    );
    let what = format!("`{}` → `{}`", lines[chosen].trim(), new_line.trim());
    let mut out: Vec<String> = lines.iter().map(|l| (*l).to_owned()).collect();
    out[chosen] = new_line;
    let mut joined = out.join("\n");
    if text.ends_with('\n') {
        joined.push('\n');
    }
    Some((joined, what))
}

/// Whether line `i` lies in the block under the first line `header` (by indentation).
fn under(lines: &[&str], i: usize, header: &str) -> bool {
    let Some(start) = lines.iter().position(|l| l.trim_end() == header) else {
        return false;
    };
    let indent = header.len() - header.trim_start().len();
    i > start
        && lines[start + 1..=i]
            .iter()
            .all(|l| l.trim().is_empty() || l.len() - l.trim_start().len() > indent)
}

fn is_yaml(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "yaml" || e == "yml")
}

/// Applies one random edit of `kind` to the repository; says what it did.
fn apply_edit(rng: &mut Rng, repo: &Path, kind: usize) -> Option<String> {
    let all = files(repo);
    let read = |p: &Path| std::fs::read_to_string(repo.join(p)).unwrap_or_default();
    let in_kustomization_dir = |p: &Path| {
        p.parent()
            .is_some_and(|d| repo.join(d).join("kustomization.yaml").is_file())
    };
    // A file with a value to change, among a few of the candidates.
    let edit_one = |rng: &mut Rng, files: &[&PathBuf], within: &dyn Fn(&[&str], usize) -> bool| {
        (0..10).find_map(|_| {
            let file = rng.pick(files)?;
            let (text, what) = edit_lines(rng, &read(file), within)?;
            std::fs::write(repo.join(file), text).expect("write");
            Some(format!("{}: {what}", file.display()))
        })
    };
    match kind {
        // A value of a HelmRelease.
        0 => {
            let releases: Vec<&PathBuf> = all
                .iter()
                .filter(|p| {
                    is_yaml(p)
                        && read(p).contains("kind: HelmRelease")
                        && read(p).contains("\n  values:")
                })
                .collect();
            edit_one(rng, &releases, &|lines, i| under(lines, i, "  values:"))
        }
        // A file of a kustomization directory.
        1 => {
            let candidates: Vec<&PathBuf> = all
                .iter()
                .filter(|p| is_yaml(p) && in_kustomization_dir(p))
                .filter(|p| p.file_name().is_some_and(|n| n != "kustomization.yaml"))
                .collect();
            edit_one(rng, &candidates, &|_, _| true)
        }
        // A post-build variable of a ConfigMap some Kustomization substitutes from.
        2 => {
            let mut names = Vec::new();
            for path in all.iter().filter(|p| is_yaml(p)) {
                let text = read(path);
                let lines: Vec<&str> = text.lines().collect();
                for (i, line) in lines.iter().enumerate() {
                    if line.trim() != "substituteFrom:" {
                        continue;
                    }
                    let block = lines.iter().skip(i + 1).take_while(|l| {
                        l.len() - l.trim_start().len() > line.len() - line.trim_start().len()
                    });
                    let mut config_map = false;
                    for next in block {
                        let item = next.trim().trim_start_matches("- ");
                        if let Some(kind) = item.strip_prefix("kind: ") {
                            config_map = kind.trim() == "ConfigMap";
                        } else if let Some(name) = item.strip_prefix("name: ") {
                            if config_map || next.trim().starts_with("- name:") {
                                names.push(name.trim().to_owned());
                            }
                        }
                    }
                }
            }
            names.sort();
            names.dedup();
            while !names.is_empty() {
                let name = names.remove(rng.below(names.len()));
                if let Some(what) = edit_variable(rng, repo, &all, &name) {
                    return Some(what);
                }
            }
            None
        }
        // A component's file.
        3 => {
            let candidates: Vec<&PathBuf> = all
                .iter()
                .filter(|p| is_yaml(p) && p.components().any(|c| c.as_os_str() == "components"))
                .collect();
            edit_one(rng, &candidates, &|_, _| true)
        }
        // A deleted file.
        _ => {
            let candidates: Vec<&PathBuf> = all
                .iter()
                .filter(|p| is_yaml(p) && p.components().count() > 2)
                .filter(|p| p.file_name().is_some_and(|n| n != "kustomization.yaml"))
                .collect();
            let file = rng.pick(&candidates)?;
            std::fs::remove_file(repo.join(file)).expect("remove");
            Some(format!("{}: deleted", file.display()))
        }
    }
}

/// Edits a value of the ConfigMap `name`: written as a ConfigMap, or made by a generator from an
/// env file.
fn edit_variable(rng: &mut Rng, repo: &Path, all: &[PathBuf], name: &str) -> Option<String> {
    let read = |p: &Path| std::fs::read_to_string(repo.join(p)).unwrap_or_default();
    for path in all.iter().filter(|p| is_yaml(p)) {
        let text = read(path);
        let lines: Vec<&str> = text.lines().collect();
        let defines = lines.contains(&"kind: ConfigMap")
            && lines.contains(&"data:")
            && lines.contains(&format!("  name: {name}").as_str());
        if defines {
            let (edited, what) = edit_lines(rng, &text, &|lines, i| under(lines, i, "data:"))?;
            std::fs::write(repo.join(path), edited).expect("write");
            return Some(format!("{}: {what}", path.display()));
        }
    }
    for path in all.iter().filter(|p| p.ends_with("kustomization.yaml")) {
        let text = read(path);
        let Some(at) = text.find(&format!("- name: {name}\n")) else {
            continue;
        };
        let env = text[at..]
            .lines()
            .skip(1)
            .take(4)
            .find_map(|l| {
                let l = l.trim();
                l.strip_prefix("env: ").or(l.strip_prefix("- "))
            })
            .map(str::trim)
            .filter(|f| f.ends_with(".env"))?;
        let env_file = path.parent()?.join(env);
        let text = read(&env_file);
        let lines: Vec<&str> = text
            .lines()
            .filter(|l| l.contains('=') && !l.starts_with('#'))
            .collect();
        let line = *rng.pick(&lines)?;
        let (key, value) = line.split_once('=')?;
        let new = format!("{key}={}", mutated(value));
        std::fs::write(repo.join(&env_file), text.replacen(line, &new, 1)).expect("write");
        return Some(format!("{}: `{line}` → `{new}`", env_file.display()));
    }
    None
}

/// What a run gives per producer: the file `render --out` writes and the row `test -o json`
/// reports (both as text).
#[derive(Debug, Default, PartialEq)]
struct Run {
    outputs: BTreeMap<String, String>,
    statuses: BTreeMap<String, String>,
}

fn offlux(repo: &Path, args: &[&str]) -> std::process::Output {
    Command::cargo_bin("offlux")
        .expect("binary is built")
        .current_dir(repo)
        .env("NO_COLOR", "1")
        .args(args)
        .output()
        .expect("offlux runs")
}

fn run(repo: &Path, flags: &[&str], changed_only: bool) -> Run {
    let out = tempfile::tempdir().expect("tempdir");
    let out_dir = out.path().join("rendered");
    let out_text = out_dir.display().to_string();
    let mut render = vec!["render", "--out", out_text.as_str()];
    let mut test = vec!["test", "-o", "json"];
    if changed_only {
        render.push("--changed-only");
        test.push("--changed-only");
    }
    render.extend(flags);
    test.extend(flags);
    let rendered = offlux(repo, &render);
    assert_ne!(
        rendered.status.code(),
        Some(2),
        "{render:?}: {}",
        String::from_utf8_lossy(&rendered.stderr)
    );
    let tested = offlux(repo, &test);
    assert_ne!(
        tested.status.code(),
        Some(2),
        "{test:?}: {}",
        String::from_utf8_lossy(&tested.stderr)
    );
    let mut result = Run::default();
    if out_dir.is_dir() {
        for file in files(&out_dir) {
            // Each cluster's directory has its manifest of what the run wrote.
            if file.file_name().is_some_and(|n| n == ".offlux-manifest") {
                continue;
            }
            let text = std::fs::read_to_string(out_dir.join(&file)).expect("read");
            // `Kind/namespace/name.yaml`
            let key = file.with_extension("").display().to_string();
            result.outputs.insert(key, text);
        }
    }
    let json: serde_json::Value = serde_json::from_slice(&tested.stdout).expect("test JSON");
    let rows = if changed_only {
        json["rows"].clone()
    } else {
        json
    };
    for row in rows.as_array().expect("rows") {
        let key = format!(
            "{}{}/{}/{}",
            row["cluster"]
                .as_str()
                .map_or_else(String::new, |c| format!("{c}/")),
            row["kind"].as_str().unwrap_or(""),
            row["namespace"].as_str().unwrap_or(""),
            row["name"].as_str().unwrap_or("")
        );
        result.statuses.insert(key, row.to_string());
    }
    result
}

/// The note of a Kustomization whose health checks left out what the change does not reach.
const HEALTH_LEFT_OUT: &str = "(--changed-only; a full run judges";

fn row_json(row: &str) -> serde_json::Value {
    serde_json::from_str(row).expect("row JSON")
}

/// Asserts that a narrowed run's row (`test -o json`) is the full run's. A Kustomization whose
/// health checks left out what the change does not reach says so instead of their notes: its
/// message is not compared. Whether it left some out.
fn assert_full_runs_row(
    narrowed: &serde_json::Value,
    full: Option<&serde_json::Value>,
    what: &str,
) -> bool {
    let left_out = narrowed["message"]
        .as_str()
        .is_some_and(|m| m.contains(HEALTH_LEFT_OUT));
    if !left_out {
        assert_eq!(Some(narrowed), full, "{what}");
        return false;
    }
    let without_message = |row: &serde_json::Value| {
        let mut row = row.clone();
        if let Some(fields) = row.as_object_mut() {
            fields.remove("message");
        }
        row
    };
    assert_eq!(
        Some(without_message(narrowed)),
        full.map(without_message),
        "{what}"
    );
    true
}

fn producers_of(run: &Run) -> std::collections::BTreeSet<String> {
    run.statuses.keys().cloned().collect()
}

#[test]
fn changed_only_gives_the_full_runs_result_for_what_it_reconciles() {
    let Some(repos) = test_data::dir("corpus/repos", "--changed-only on the corpus") else {
        return;
    };
    let Some(charts) = test_data::dir("corpus/charts", "--changed-only on the corpus") else {
        return;
    };
    if Process::new("git").arg("--version").output().is_err() {
        test_data::skipped("--changed-only on the corpus: no `git` binary");
        return;
    }
    let cases: Option<usize> = std::env::var("OFFLUX_CHANGED_CASES")
        .ok()
        .and_then(|v| v.parse().ok());
    let seed: u64 = std::env::var("OFFLUX_CHANGED_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(25);
    let charts_text = charts.display().to_string();
    let mut narrowed = 0;
    let mut checked = 0;
    let mut health_left_out = 0;
    for (name, path, default_cases) in REPOSITORIES {
        let source = repos.join(name);
        assert!(source.is_dir(), "{} is missing", source.display());
        let dir = tempfile::tempdir().expect("tempdir");
        let repo = dir.path().join("repo");
        copy_dir(&source, &repo);
        git(&repo, &["init", "-q"]);
        git(&repo, &["add", "-A"]);
        git(&repo, &["commit", "-q", "-m", "base"]);
        let flags = [
            "--path",
            path,
            "--chart-cache",
            charts_text.as_str(),
            "--offline",
            "--allow-missing-sources",
            "--concurrency",
            "2",
        ];
        let base = run(&repo, &flags, false);
        assert!(
            !base.statuses.is_empty(),
            "{name}: the base reports nothing"
        );
        let mut rng = Rng(seed ^ 0x9E37_79B9_7F4A_7C15);
        for case in 0..cases.unwrap_or(*default_cases) {
            let kind = case % 5;
            let Some(what) = apply_edit(&mut rng, &repo, kind) else {
                eprintln!("{name}: edit kind {kind}: nothing to edit");
                continue;
            };
            let full = run(&repo, &flags, false);
            let changed = run(&repo, &flags, true);
            let context = format!("{name}, seed {seed}, case {case}: {what}");
            // What it reconciles is what a full run gives.
            for (producer, status) in &changed.statuses {
                let full_status = full.statuses.get(producer).map(|s| row_json(s));
                if assert_full_runs_row(
                    &row_json(status),
                    full_status.as_ref(),
                    &format!("{context}: status of {producer}"),
                ) {
                    health_left_out += 1;
                }
            }
            for (producer, output) in &changed.outputs {
                assert_eq!(
                    Some(output),
                    full.outputs.get(producer),
                    "{context}: output of {producer}"
                );
            }
            // Nothing that changed is missed.
            let reported = producers_of(&changed);
            for producer in producers_of(&full).union(&producers_of(&base)) {
                let status_differs = full.statuses.get(producer) != base.statuses.get(producer);
                let file = producer.clone();
                let output_differs = full.outputs.get(&file) != base.outputs.get(&file);
                if (status_differs || output_differs) && full.statuses.contains_key(producer) {
                    assert!(
                        reported.contains(producer),
                        "{context}: {producer} differs from the base but was left out"
                    );
                }
            }
            for file in base.outputs.keys().chain(full.outputs.keys()) {
                if base.outputs.get(file) != full.outputs.get(file)
                    && full.statuses.contains_key(file)
                {
                    assert!(
                        changed.outputs.contains_key(file) || changed.statuses.contains_key(file),
                        "{context}: the output of {file} differs from the base but was left out"
                    );
                }
            }
            checked += 1;
            if changed.statuses.len() < full.statuses.len() {
                narrowed += 1;
            }
            eprintln!(
                "{context}: {} of {} Flux objects reconciled",
                changed.statuses.len(),
                full.statuses.len()
            );
            git(&repo, &["checkout", "-q", "--", "."]);
            git(&repo, &["clean", "-q", "-fd"]);
        }
    }
    assert!(checked > 0, "no edit was checked");
    // joryirving's `cluster-apps` waits for all it applies.
    assert!(
        health_left_out > 0,
        "no Kustomization left out the health checks of what a change does not reach"
    );
    assert!(
        narrowed > 0,
        "--changed-only never reconciled less than the full run"
    );
}

/// The files git sees changed: an edit, an addition, a deletion and an edit under a new
/// directory count; an ignored file and an untouched one do not. Against another commit, the
/// same files.
#[test]
fn changed_files_are_what_git_sees_changed() {
    if Process::new("git").arg("--version").output().is_err() {
        test_data::skipped("changed files: no `git` binary");
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let repo = dir.path();
    for (file, text) in [
        ("a.yaml", "a: 1\n"),
        ("b.yaml", "b: 1\n"),
        ("same.yaml", "same: 1\n"),
        ("sub/c.yaml", "c: 1\n"),
        (".gitignore", "ignored/\n"),
    ] {
        std::fs::create_dir_all(repo.join(file).parent().expect("parent")).expect("mkdir");
        std::fs::write(repo.join(file), text).expect("write");
    }
    git(repo, &["init", "-q"]);
    git(repo, &["add", "-A"]);
    git(repo, &["commit", "-q", "-m", "base"]);
    std::fs::write(repo.join("a.yaml"), "a: 2\n").expect("write");
    std::fs::remove_file(repo.join("b.yaml")).expect("remove");
    std::fs::write(repo.join("sub/c.yaml"), "c: 2\n").expect("write");
    std::fs::create_dir_all(repo.join("new")).expect("mkdir");
    std::fs::write(repo.join("new/d.yaml"), "d: 1\n").expect("write");
    std::fs::create_dir_all(repo.join("ignored")).expect("mkdir");
    std::fs::write(repo.join("ignored/e.yaml"), "e: 1\n").expect("write");
    let repository = offlux::gitrev::Repository::discover(repo).expect("repository");
    let base = repository.resolve("HEAD").expect("HEAD");
    let changed = offlux::gitrev::changed_files(&repository, base, None).expect("changed");
    let paths: Vec<String> = changed
        .iter()
        .map(|f| f.path.display().to_string())
        .collect();
    assert_eq!(paths, ["a.yaml", "b.yaml", "new/d.yaml", "sub/c.yaml"]);
    let base_of = |path: &str| {
        changed
            .iter()
            .find(|f| f.path == Path::new(path))
            .and_then(|f| f.base.as_ref())
            .map(|b| String::from_utf8_lossy(b).into_owned())
    };
    assert_eq!(base_of("a.yaml").as_deref(), Some("a: 1\n"));
    assert_eq!(base_of("b.yaml").as_deref(), Some("b: 1\n"));
    assert_eq!(base_of("new/d.yaml"), None);
    git(repo, &["add", "-A"]);
    git(repo, &["commit", "-q", "-m", "head"]);
    let head = repository.resolve("HEAD").expect("HEAD");
    let between = offlux::gitrev::changed_files(&repository, base, Some(head)).expect("changed");
    let paths: Vec<String> = between
        .iter()
        .map(|f| f.path.display().to_string())
        .collect();
    assert_eq!(paths, ["a.yaml", "b.yaml", "new/d.yaml", "sub/c.yaml"]);
    assert!(offlux::gitrev::changed_files(&repository, head, None)
        .expect("changed")
        .is_empty());
}

/// On a small repository: nothing changed, nothing reconciled; a changed ConfigMap file brings
/// in the Kustomization that applies it and the ones that create that one, and the JSON says
/// what was left out.
#[test]
fn changed_only_reports_what_it_left_out() {
    if Process::new("git").arg("--version").output().is_err() {
        test_data::skipped("--changed-only: no `git` binary");
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let repo = fleet::fixture(dir.path(), "./apps");
    let args = [
        "test",
        "--changed-only",
        "--path",
        "clusters/dev",
        "-o",
        "json",
    ];
    let quiet = offlux(&repo, &args);
    assert_eq!(
        quiet.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&quiet.stderr)
    );
    let json: serde_json::Value = serde_json::from_slice(&quiet.stdout).expect("JSON");
    assert_eq!(json["changedOnly"]["changedFiles"], 0);
    assert_eq!(json["changedOnly"]["reconciled"], 0);
    assert_eq!(json["rows"], serde_json::json!([]));
    let stderr = String::from_utf8_lossy(&quiet.stderr);
    assert!(
        stderr.contains("note: --changed-only: 0 files changed since `main`"),
        "{stderr}"
    );

    let config = repo.join("apps/config.yaml");
    let text = std::fs::read_to_string(&config).expect("read");
    std::fs::write(&config, text.replace("mode: dev", "mode: prod")).expect("write");
    std::fs::write(repo.join("README.md"), "notes\n").expect("write");
    let edited = offlux(&repo, &args);
    assert_eq!(
        edited.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&edited.stderr)
    );
    let json: serde_json::Value = serde_json::from_slice(&edited.stdout).expect("JSON");
    assert_eq!(json["changedOnly"]["changedFiles"], 2);
    assert_eq!(json["changedOnly"]["unreadFiles"], 1);
    let names: Vec<&str> = json["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .filter_map(|r| r["name"].as_str())
        .collect();
    assert!(names.contains(&"apps"), "{names:?}");
    let whole = offlux(&repo, &["test", "--path", "clusters/dev", "-o", "json"]);
    let all: serde_json::Value = serde_json::from_slice(&whole.stdout).expect("JSON");
    let total = all.as_array().expect("rows").len();
    assert_eq!(
        json["changedOnly"]["leftOut"].as_u64(),
        Some((total - names.len()) as u64)
    );
}

/// Whether `git` runs here; the test says it skipped when not.
fn has_git() -> bool {
    let found = Process::new("git").arg("--version").output().is_ok();
    if !found {
        test_data::skipped("--changed-only: no `git` binary");
    }
    found
}

/// Everything in `repo` committed as the base of a change.
fn commit_all(repo: &Path) {
    git(repo, &["init", "-q"]);
    git(repo, &["add", "-A"]);
    git(repo, &["commit", "-q", "-m", "base"]);
}

/// `testdata/example` copied to `dir/repo`, edited by `prepare`, and committed.
fn committed_example(dir: &Path, prepare: impl FnOnce(&Path)) -> PathBuf {
    let repo = dir.join("repo");
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/example"),
        &repo,
    );
    prepare(&repo);
    commit_all(&repo);
    repo
}

/// `file`'s text replaced by what `change` makes of it.
fn edit(file: &Path, change: impl FnOnce(String) -> String) {
    let text = std::fs::read_to_string(file).expect("read");
    std::fs::write(file, change(text)).expect("write");
}

/// `offlux COMMAND --path clusters/dev -o json EXTRA…` in `repo`: its rows (`test`) or changes
/// (`diff`), without the `changedOnly` summary.
fn listed(repo: &Path, command: &str, extra: &[&str]) -> serde_json::Value {
    let mut args = vec![command, "--path", "clusters/dev", "-o", "json"];
    args.extend(extra);
    let output = offlux(repo, &args);
    let json: serde_json::Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&output.stderr)));
    (json.get("rows").or_else(|| json.get("changes")))
        .cloned()
        .unwrap_or(json)
}

/// The row of `rows` (a `test -o json` listing) for the object of `kind` named `name`.
fn row_of(rows: &serde_json::Value, kind: &str, name: &str) -> Option<serde_json::Value> {
    (rows.as_array().expect("rows").iter())
        .find(|r| r["kind"] == kind && r["name"] == name)
        .cloned()
}

/// A Kustomization whose `spec.path` holds a variable (`./apps/${CLUSTER_ENV:=dev}`) is selected
/// when a file under the path's literal part changes: the static reading cannot know the path, so
/// it must not miss what the path may become. (`diff --changed-only` reported "No differences"
/// for this edit, which a full diff shows.)
#[test]
fn a_path_with_a_variable_is_selected_by_a_change_below_it() {
    if !has_git() {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let repo = committed_example(dir.path(), |_| {});
    edit(&repo.join("apps/dev/hello-values.yaml"), |text| {
        assert!(text.contains("replicas: 2"), "{text}");
        text.replace("replicas: 2", "replicas: 3")
    });
    assert_narrowed_diff_shows(&repo, "replicas");
}

/// An object a build renames (`namePrefix` in the kustomization that lists its file, a name a
/// post-build substitution makes) is the object its file defines: when that one is selected, the
/// renamed one is rendered and reported, as a full run has it. (`test --changed-only` left the
/// renamed HelmRelease out, and `diff --changed-only` what it renders.)
#[test]
fn an_object_a_build_renames_is_reported_under_its_new_name() {
    if !has_git() {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let repo = committed_example(dir.path(), |_| {});
    edit(&repo.join("apps/base/hello/kustomization.yaml"), |text| {
        format!("{text}namePrefix: edge-\n")
    });
    let renamed = |rows: serde_json::Value| row_of(&rows, "HelmRelease", "edge-hello");
    let full = renamed(listed(&repo, "test", &[]));
    assert!(full.is_some());
    assert_eq!(renamed(listed(&repo, "test", &["--changed-only"])), full);
    let full = listed(&repo, "diff", &[]);
    assert!(
        full.to_string()
            .contains("Deployment.apps/hello/edge-hello"),
        "{full}"
    );
    assert_eq!(listed(&repo, "diff", &["--changed-only"]), full);
}

/// A row blocked through an object the narrowed report leaves out names the same root cause as
/// the full run's row: `blocked by <missing> (via <the one left out>)`, not the one left out.
#[test]
fn a_blocked_row_names_the_full_runs_root_cause() {
    if !has_git() {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let repo = committed_example(dir.path(), |repo| {
        edit(&repo.join("clusters/dev/infrastructure.yaml"), |text| {
            text.replace("spec:\n", "spec:\n  dependsOn:\n    - name: missing\n")
        });
    });
    edit(&repo.join("apps/dev/hello-values.yaml"), |text| {
        text.replace("replicas: 2", "replicas: 3")
    });
    let apps = |rows: serde_json::Value| {
        row_of(&rows, "Kustomization", "apps").unwrap_or_else(|| panic!("no apps row: {rows}"))
    };
    let full = apps(listed(&repo, "test", &[]));
    assert_eq!(full["result"], "BLOCKED", "{full}");
    let message = full["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("missing")
            && message.contains("(via Kustomization/flux-system/infrastructure)"),
        "{full}"
    );
    assert_eq!(apps(listed(&repo, "test", &["--changed-only"])), full);
}

/// A file that only a Kustomization made at run time reads (a FluxInstance's sync path; a
/// ResourceSet's templated one; the instance a bootstrap installs from a `flux-instance`
/// HelmRelease) is attributed to nothing written in the repository: the run is made whole rather
/// than left empty. (`test --changed-only` reconciled nothing for this edit.)
#[test]
fn a_file_only_a_run_time_kustomization_reads_makes_the_run_whole() {
    if !has_git() {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let repo = dir.path().join("repo");
    let write = |file: &str, text: &str| write_file(&repo, file, text);
    write(
        "clusters/dev/flux-instance.yaml",
        &flux_instance(GIT_SYNC, ""),
    );
    write(
        "apps/kustomization.yaml",
        "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - cm.yaml\n",
    );
    write(
        "apps/cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings, namespace: default}\ndata: {mode: dev}\n",
    );
    commit_all(&repo);
    edit(&repo.join("apps/kustomization.yaml"), |text| {
        format!("{text}commonLabels:\n  team: a\n")
    });
    let full = listed(&repo, "test", &[]);
    assert!(full.to_string().contains("flux-system"), "{full}");
    assert_eq!(listed(&repo, "test", &["--changed-only"]), full);
    let narrowed = offlux(&repo, &["test", "--changed-only", "--path", "clusters/dev"]);
    let stderr = String::from_utf8_lossy(&narrowed.stderr);
    assert!(
        stderr.contains("`apps/kustomization.yaml` changed, which the Kustomization FluxInstance flux makes reads"),
        "{stderr}"
    );
}

/// The Kustomization a FluxInstance's `spec.sync` makes reads its `spec.sync.path`: a changed
/// file outside it, which no written Kustomization reads either, is read by nothing and the run
/// stays narrow. A `spec.kustomize.patches` entry that may select that Kustomization may rewrite
/// its path, which is then known only once it runs: the run is whole. (joryirving's `test` and
/// `utility` clusters were reconciled whole for a change to an app of `main` only.)
#[test]
fn a_file_the_sync_kustomization_cannot_read_leaves_the_run_narrow_unless_a_patch_may_move_it() {
    if !has_git() {
        return;
    }
    let narrowed_stderr = |patches: &str| {
        let dir = tempfile::tempdir().expect("tempdir");
        let repo = dir.path().join("repo");
        let write = |file: &str, text: &str| write_file(&repo, file, text);
        write(
            "clusters/dev/flux-instance.yaml",
            &flux_instance(GIT_SYNC, patches),
        );
        for dir in ["apps", "other"] {
            write(
                &format!("{dir}/kustomization.yaml"),
                &kustomize_listing("cm.yaml"),
            );
            write(
                &format!("{dir}/cm.yaml"),
                "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings, namespace: default}\ndata: {mode: dev}\n",
            );
        }
        commit_all(&repo);
        edit(&repo.join("other/cm.yaml"), |text| {
            text.replace("dev", "prod")
        });
        let narrowed = offlux(&repo, &["diff", "--changed-only", "--path", "clusters/dev"]);
        assert_eq!(narrowed.status.code(), Some(0), "{narrowed:?}");
        String::from_utf8_lossy(&narrowed.stderr).into_owned()
    };
    let patch = |target: &str| {
        format!("  kustomize:\n    patches:\n      - patch: |\n          - op: add\n            path: /metadata/labels/x\n            value: y\n        target: {{{target}}}\n")
    };
    for patches in [String::new(), patch("kind: Deployment, name: flux")] {
        let stderr = narrowed_stderr(&patches);
        assert!(
            stderr.contains("(1 read by no producer); 0 Flux objects reconciled"),
            "{patches}: {stderr}"
        );
    }
    for target in [
        "kind: Kustomization",
        "kind: \"Kust.*\"",
        "name: flux-system",
    ] {
        let stderr = narrowed_stderr(&patch(target));
        assert!(
            stderr.contains("makes Kustomizations whose paths are known only once it runs, so everything was reconciled"),
            "{target}: {stderr}"
        );
    }
}

/// The sync Kustomization's build may apply Kustomizations a static reading does not follow (a
/// FluxInstance syncing an OCIRepository, which only the run reads from the working tree, as
/// tyriis__home-ops's `devenv` does): a file only those read may be theirs, and the run is
/// whole. (Found by `scripts/compare-changed-diffs`: the first version of the sync-path rule
/// reported no difference where the full diff has one.)
#[test]
fn a_file_kustomizations_the_sync_applies_may_read_makes_the_run_whole() {
    if !has_git() {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let repo = dir.path().join("repo");
    let write = |file: &str, text: &str| write_file(&repo, file, text);
    write(
        "clusters/dev/flux-instance.yaml",
        &flux_instance(
            "{kind: OCIRepository, url: \"oci://registry.example.com/fleet\", ref: latest, path: ./flux}",
            "",
        ),
    );
    write("flux/kustomization.yaml", &kustomize_listing("sync.yaml"));
    let kustomization = |name: &str, path: &str| {
        format!("apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {{name: {name}, namespace: flux-system}}\nspec:\n  interval: 1h\n  path: {path}\n  prune: true\n  sourceRef: {{kind: OCIRepository, name: flux-system}}\n")
    };
    write("flux/sync.yaml", &kustomization("apps", "./apps"));
    write("apps/kustomization.yaml", &kustomize_listing("web.yaml"));
    write("apps/web.yaml", &kustomization("web", "./apps/web"));
    write("apps/web/kustomization.yaml", &kustomize_listing("cm.yaml"));
    write(
        "apps/web/cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: web, namespace: default}\ndata: {mode: dev}\n",
    );
    commit_all(&repo);
    edit(&repo.join("apps/web/cm.yaml"), |text| {
        text.replace("dev", "prod")
    });
    assert_narrowed_diff_shows(&repo, "ConfigMap/default/web");
}

/// A Kustomization whose `spec.path` holds a variable followed by literal components
/// (`./apps/${CLUSTER}/config`) builds a directory ending with them, whatever the variable
/// becomes: a change elsewhere under `apps` does not select it, a change to a component its
/// path names (outside `apps`) does.
#[test]
fn a_path_with_a_variable_reads_the_directories_ending_as_it_does() {
    if !has_git() {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let repo = dir.path().join("repo");
    let write = |file: &str, text: &str| write_file(&repo, file, text);
    let kustomization = |name: &str, path: &str, extra: &str| {
        format!("apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {{name: {name}, namespace: flux-system}}\nspec:\n  interval: 1h\n  path: {path}\n  prune: true\n  sourceRef: {{kind: GitRepository, name: flux-system}}\n{extra}")
    };
    let config_map = |name: &str| {
        format!("apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: {name}, namespace: default}}\ndata: {{mode: dev}}\n")
    };
    write(
        "clusters/dev/apps.yaml",
        &kustomization(
            "apps",
            "./apps/dev",
            "  postBuild:\n    substitute: {CLUSTER: dev}\n",
        ),
    );
    write(
        "apps/dev/kustomization.yaml",
        &kustomize_listing("config.yaml, web.yaml"),
    );
    write(
        "apps/dev/config.yaml",
        &kustomization(
            "config",
            "./apps/${CLUSTER}/config",
            "  components: [../../../components/extra]\n",
        ),
    );
    write(
        "apps/dev/web.yaml",
        &kustomization("web", "./apps/base/web", ""),
    );
    write(
        "apps/dev/config/kustomization.yaml",
        &kustomize_listing("cm.yaml"),
    );
    write("apps/dev/config/cm.yaml", &config_map("settings"));
    write(
        "apps/base/web/kustomization.yaml",
        &kustomize_listing("cm.yaml"),
    );
    write("apps/base/web/cm.yaml", &config_map("web"));
    write(
        "components/extra/kustomization.yaml",
        "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\nresources: [extra.yaml]\n",
    );
    write("components/extra/extra.yaml", &config_map("extra"));
    commit_all(&repo);
    let names = |rows: &serde_json::Value| -> Vec<String> {
        (rows.as_array().expect("rows").iter())
            .map(|r| {
                format!(
                    "{}/{}",
                    r["kind"].as_str().unwrap_or(""),
                    r["name"].as_str().unwrap_or("")
                )
            })
            .collect()
    };
    edit(&repo.join("apps/base/web/cm.yaml"), |text| {
        text.replace("dev", "prod")
    });
    let narrowed = names(&listed(&repo, "test", &["--changed-only"]));
    assert!(
        narrowed.contains(&"Kustomization/web".to_owned()),
        "{narrowed:?}"
    );
    assert!(
        !narrowed.contains(&"Kustomization/config".to_owned()),
        "{narrowed:?}"
    );
    git(&repo, &["checkout", "-q", "--", "."]);
    edit(&repo.join("components/extra/extra.yaml"), |text| {
        text.replace("dev", "prod")
    });
    let narrowed = names(&listed(&repo, "test", &["--changed-only"]));
    assert!(
        narrowed.contains(&"Kustomization/config".to_owned()),
        "{narrowed:?}"
    );
    let full = listed(&repo, "diff", &[]);
    assert!(
        full.to_string().contains("ConfigMap/default/extra"),
        "{full}"
    );
    assert_eq!(listed(&repo, "diff", &["--changed-only"]), full);
}

/// A deleted file that a kustomization names fails that build: everything its Kustomization
/// applies may change, not only the objects the file held, and so may what depends on those.
/// (Found by a seeded edit, `OFFLUX_CHANGED_SEED=1` case 4: deleting one app's `ks.yaml` from
/// joryirving__home-ops's main cluster left out a HelmRelease whose row the full run changes.)
#[test]
fn a_deleted_file_a_kustomization_names_selects_all_it_applies() {
    let Some(repos) = test_data::dir("corpus/repos", "--changed-only, a deleted file") else {
        return;
    };
    let Some(charts) = test_data::dir("corpus/charts", "--changed-only, a deleted file") else {
        return;
    };
    if !has_git() {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let repo = dir.path().join("repo");
    copy_dir(&repos.join("joryirving__home-ops"), &repo);
    commit_all(&repo);
    std::fs::remove_file(repo.join("kubernetes/apps/main/media/komga.yaml")).expect("remove");
    let charts = charts.display().to_string();
    let rows = |extra: &[&str]| -> BTreeMap<String, serde_json::Value> {
        let mut args = vec![
            "test",
            "-o",
            "json",
            "--offline",
            "--allow-missing-sources",
            "--chart-cache",
            charts.as_str(),
        ];
        args.extend(extra);
        let output = offlux(&repo, &args);
        let json: serde_json::Value = serde_json::from_slice(&output.stdout)
            .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&output.stderr)));
        let rows = json.get("rows").cloned().unwrap_or(json);
        (rows.as_array().expect("rows").iter())
            .map(|r| {
                let key = format!(
                    "{}/{}/{}/{}",
                    r["cluster"], r["kind"], r["namespace"], r["name"]
                );
                (key, r.clone())
            })
            .collect()
    };
    let full = rows(&[]);
    let narrowed = rows(&["--changed-only"]);
    let flux_instance = "\"main\"/\"HelmRelease\"/\"flux-system\"/\"flux-instance\"";
    assert!(full.contains_key(flux_instance), "{:?}", full.keys());
    assert_eq!(narrowed.get(flux_instance), full.get(flux_instance));
    for (key, row) in &narrowed {
        assert_full_runs_row(row, full.get(key), key);
    }
}

/// What `dependsOn` an object a change deletes is selected on the side that lacks it: its
/// dependency is now missing. (A HelmRelease that depends on a deleted one was left out.)
#[test]
fn what_depends_on_a_deleted_object_is_selected() {
    if !has_git() {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let repo = committed_example(dir.path(), |repo| {
        std::fs::write(
            repo.join("infrastructure/controllers/after-hello.yaml"),
            "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: after-hello\nspec:\n  interval: 1h\n  dependsOn:\n    - name: hello\n      namespace: hello\n  chart:\n    spec:\n      chart: ./charts/hello\n      sourceRef: {kind: GitRepository, name: flux-system, namespace: flux-system}\n",
        )
        .expect("write");
        edit(
            &repo.join("infrastructure/controllers/kustomization.yaml"),
            |text| {
                text.replace(
                    "  - ingress.yaml\n",
                    "  - ingress.yaml\n  - after-hello.yaml\n",
                )
            },
        );
    });
    std::fs::remove_file(repo.join("apps/base/hello/release.yaml")).expect("remove");
    edit(&repo.join("apps/base/hello/kustomization.yaml"), |text| {
        text.replace("  - release.yaml\n", "")
    });
    let after_hello = |rows: serde_json::Value| row_of(&rows, "HelmRelease", "after-hello");
    let full = after_hello(listed(&repo, "test", &[]));
    assert!(
        full.as_ref().is_some_and(|row| row["result"] == "BLOCKED"),
        "{full:?}"
    );
    assert_eq!(
        after_hello(listed(&repo, "test", &["--changed-only"])),
        full
    );
}

/// Kustomization files that name the next layer's two directories in every field (read as
/// paths) make a static reading enter 2^depth paths. The reading stops at a bound and takes such
/// a producer to read everything: `--changed-only` ends in a fraction of a second (at depth 19
/// it took 16 s and 1.5 GB, doubling with each layer), and what it reports for the changed
/// producer is the full run's.
#[test]
fn kustomization_files_naming_each_other_are_read_in_bounded_time() {
    if !has_git() {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let repo = committed_example(dir.path(), |repo| {
        let depth = 19;
        for layer in 0..=depth {
            for side in ["a", "b"] {
                let at = repo.join(format!("dag/l{layer}{side}"));
                std::fs::create_dir_all(&at).expect("mkdir");
                let next = layer + 1;
                let names = if layer < depth {
                    format!("commonAnnotations:\n  x: ../l{next}a\n  y: ../l{next}b\n")
                } else {
                    String::new()
                };
                std::fs::write(
                    at.join("kustomization.yaml"),
                    format!("apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n{names}resources:\n- cm.yaml\n"),
                )
                .expect("write");
                std::fs::write(
                    at.join("cm.yaml"),
                    format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c{layer}{side}\n  namespace: default\n"),
                )
                .expect("write");
            }
        }
        std::fs::write(
            repo.join("clusters/dev/dag.yaml"),
            "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: dag\n  namespace: flux-system\nspec:\n  interval: 1h\n  path: ./dag/l0a\n  prune: true\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n",
        )
        .expect("write");
        edit(&repo.join("clusters/dev/kustomization.yaml"), |text| {
            format!("{text}  - dag.yaml\n")
        });
    });
    edit(&repo.join("dag/l0a/cm.yaml"), |text| {
        format!("{text}data:\n  edited: \"yes\"\n")
    });
    let started = std::time::Instant::now();
    let narrowed = listed(&repo, "test", &["--changed-only"]);
    assert!(
        started.elapsed() < std::time::Duration::from_secs(5),
        "took {:?}",
        started.elapsed()
    );
    let full = listed(&repo, "test", &[]);
    let dag = row_of(&narrowed, "Kustomization", "dag").expect("`dag` is reconciled");
    assert_eq!(Some(dag), row_of(&full, "Kustomization", "dag"));
}

/// `test --changed-only` rows of the scoped fixture with `apps` waiting for all it applies
/// (`wait: true`, failing on `broken`), after `web`'s values changed: (the narrowed rows, the
/// full run's).
fn waiting_rows(late: bool) -> (serde_json::Value, serde_json::Value) {
    let dir = crate::scoped_commands::waiting_fixture(late);
    let repo = dir.path();
    commit_all(repo);
    edit(&repo.join("apps/web/release.yaml"), |text| {
        text.replace("greeting: web", "greeting: changed")
    });
    let rows = |extra: &[&str]| {
        let mut args = vec!["test", "--path", "clusters/main", "-o", "json"];
        args.extend(extra);
        let output = offlux(repo, &args);
        let json: serde_json::Value = serde_json::from_slice(&output.stdout)
            .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&output.stderr)));
        json.get("rows").cloned().unwrap_or(json)
    };
    (rows(&["--changed-only"]), rows(&[]))
}

/// A reported Kustomization that checks the health of what it applies (`wait`) and whose outcome
/// nothing reads checks what the run needed (`web`, changed, and `db`, its dependency) and names
/// what it did not check (the rest is the same on both sides of the change: those releases are not
/// rendered); one whose outcome another object reads (`dependsOn`) checks everything, so its
/// dependants end as in the full run.
#[test]
fn health_checks_leave_out_what_the_change_does_not_reach_unless_a_dependant_reads_them() {
    if !has_git() {
        return;
    }
    let (narrowed, full) = waiting_rows(false);
    let apps = row_of(&narrowed, "Kustomization", "apps").expect("apps is reconciled");
    assert_eq!(apps["result"], "PASS", "{apps}");
    assert_eq!(
        apps["message"],
        "health check of 2 checked objects not made: the change does not reach them (--changed-only; a full run judges them): HelmRelease/apps/broken, HelmRelease/apps/other"
    );
    let full_apps = row_of(&full, "Kustomization", "apps").expect("apps");
    assert_eq!(full_apps["result"], "FAIL", "{full_apps}");
    assert!(row_of(&narrowed, "HelmRelease", "broken").is_none());
    assert_eq!(
        row_of(&narrowed, "HelmRelease", "web"),
        row_of(&full, "HelmRelease", "web")
    );

    let (narrowed, full) = waiting_rows(true);
    for name in ["apps", "late"] {
        let row = row_of(&narrowed, "Kustomization", name);
        assert!(row.is_some(), "{name} is reconciled: {narrowed}");
        assert_eq!(row, row_of(&full, "Kustomization", name), "{name}");
    }
    assert_eq!(
        row_of(&full, "Kustomization", "late").expect("late")["result"],
        "BLOCKED"
    );
}

/// A file of a fixture, a text in it, and what replaces it.
type Edit = (&'static str, &'static str, &'static str);

/// Where a reported Kustomization's outcome is read by another object — a `dependsOn` under a
/// name a build gives (`namePrefix`, a substitution), a `healthChecks` entry naming what another
/// Kustomization applies — its health checks are made in full, so every row the narrowed run
/// reports is the full run's (a review found dependants PASS where the full run blocks them, and
/// a checker of a changed release left out).
#[test]
fn health_checks_another_object_reads_end_as_in_the_full_run() {
    if !has_git() {
        return;
    }
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/changed-health");
    let cases: &[(&str, &[Edit], &[&str])] = &[
        (
            "pdep",
            &[("apps/all.yaml", "v: web", "v: webX")],
            &["pre-apps", "pre-infra"],
        ),
        (
            "subst",
            &[("infra-sub/good.yaml", "v: sub-good", "v: sub-goodX")],
            &["apps", "infra", "sub-x"],
        ),
        (
            "hc",
            &[
                ("infra-sub/good.yaml", "v: sub-good", "v: sub-goodX"),
                ("late/all.yaml", "v: latehr", "v: latehrX"),
            ],
            &["late"],
        ),
        (
            "hc2",
            &[(
                "infra-sub/good.yaml",
                "chart: ./charts/good",
                "chart: ./charts/fail",
            )],
            &["platform", "late"],
        ),
    ];
    for (fixture, edits, reported) in cases {
        let dir = tempfile::tempdir().expect("tempdir");
        let repo = dir.path().join("repo");
        copy_dir(&fixtures.join(fixture), &repo);
        commit_all(&repo);
        for (file, from, to) in *edits {
            edit(&repo.join(file), |text| {
                assert!(text.contains(from), "{fixture}/{file}");
                text.replacen(from, to, 1)
            });
        }
        let rows = |extra: &[&str]| {
            let mut args = vec!["test", "--path", "clusters/main", "-o", "json"];
            args.extend(extra);
            let output = offlux(&repo, &args);
            let json: serde_json::Value = serde_json::from_slice(&output.stdout)
                .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&output.stderr)));
            json.get("rows").cloned().unwrap_or(json)
        };
        let (narrowed, full) = (rows(&["--changed-only"]), rows(&[]));
        for name in *reported {
            assert!(
                row_of(&narrowed, "Kustomization", name).is_some(),
                "{fixture}: {name} is reported: {narrowed:#}"
            );
        }
        for row in narrowed.as_array().expect("rows") {
            let kind = row["kind"].as_str().unwrap_or_default();
            let name = row["name"].as_str().unwrap_or_default();
            let full_row = row_of(&full, kind, name);
            assert_eq!(Some(row), full_row.as_ref(), "{fixture}: {kind} {name}");
        }
    }
}

/// Changes that fail a build and so change everything it applies, or change it through
/// relations the written objects do not show (found by `scripts/compare-changed-diffs` on
/// joryirving__home-ops, allenporter__k8s-gitops and tyriis__home-ops): a release failing whose
/// dependants get their `dependsOn` from a component's patch (they are BLOCKED), a nested kustomization
/// edited to name a missing file (kustomize refuses the whole build), a file listed as a resource
/// and as a patch at once (discovery keeps it as a patch, so its HelmRelease is nobody's child),
/// and a file deleted under a FluxInstance's OCIRepository sync (which only the run reads from the
/// working tree; the base side read the file as a plain resource). Each shows what the whole diff
/// does.
#[test]
fn a_change_failing_a_build_or_reaching_unknown_flux_objects_shows_the_whole_diff() {
    if !has_git() {
        return;
    }
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/changed-diffs");
    type Change<'a> = &'a dyn Fn(&Path);
    let remove_db_config: Change =
        &|repo| std::fs::remove_file(repo.join("apps/db/config.yaml")).expect("rm");
    let cases: [(&str, Change); 7] = [
        ("dependency-a-component-patches-in", remove_db_config),
        // From a strategic merge patch file the component names.
        ("dependency-a-patch-file-adds", remove_db_config),
        // The name is `${DB:=postgres}`, and the Kustomization substitutes `DB: db`.
        (
            "dependency-named-by-a-substituted-variable",
            remove_db_config,
        ),
        // The Flux Kustomization's own `spec.patches` add it.
        (
            "dependency-the-kustomizations-own-patches-add",
            remove_db_config,
        ),
        ("kustomization-naming-a-missing-file", &|repo| {
            edit(&repo.join("apps/b/kustomization.yaml"), |text| {
                text.replace("cm.yaml", "cm.yaml-x")
            })
        }),
        ("resource-and-patch", &|repo| {
            edit(&repo.join("clusters/prod/apps.yaml"), |text| {
                text.replace("10.0.0.5", "10.0.0.6")
            })
        }),
        ("deleted-under-oci-sync", &|repo| {
            std::fs::remove_file(repo.join("oci/apps/flux-system/extra/cm.yaml")).expect("rm")
        }),
    ];
    for (name, change) in cases {
        assert_narrowed_diff_is_whole(&fixtures.join(name), change);
    }
}

/// Edits of incoming repositories where `scripts/compare-changed-diffs` found `diff
/// --changed-only` short of the whole diff during session 31 (each a status change left out:
/// a kustomization naming a patch file a side lacks, a `configMapGenerator` file deleted): the
/// narrowed diff shows the same changes.
#[test]
fn the_edits_the_diff_comparison_found_give_the_whole_diffs_changes() {
    let Some(incoming) = test_data::dir("corpus/incoming", "--changed-only, found edits") else {
        return;
    };
    if !has_git() {
        return;
    }
    let harbor =
        "kubernetes/main/apps/atlantis-system/techtales-io/terraform-harbor/kustomization.yaml";
    let spigot =
        "kubernetes/main/apps/gaming/minecraft-java/private-survival-world/config/spigot.yaml";
    type Change<'a> = &'a dyn Fn(&Path);
    let cases: [(&str, Change); 2] = [
        ("tyriis__home-ops", &|repo| {
            edit(&repo.join(harbor), |text| {
                text.replace(
                    "./external-secret.patch.yaml",
                    "./external-secret.patch.yaml-x",
                )
            })
        }),
        ("tyriis__home-ops", &|repo| {
            std::fs::remove_file(repo.join(spigot)).expect("rm")
        }),
    ];
    for (name, change) in cases {
        assert_narrowed_diff_is_whole(&incoming.join(name), change);
    }
}

/// `source` copied and committed, then changed by `change`: `diff --changed-only` (offline)
/// gives the whole diff's changes, and there are some.
fn assert_narrowed_diff_is_whole(source: &Path, change: &dyn Fn(&Path)) {
    let dir = tempfile::tempdir().expect("tempdir");
    let repo = dir.path().join("repo");
    copy_dir(source, &repo);
    commit_all(&repo);
    change(&repo);
    let name = source.display();
    let changes = |extra: &[&str]| {
        let mut args = vec!["diff", "-o", "json", "--offline", "--allow-missing-sources"];
        args.extend(extra);
        let output = offlux(&repo, &args);
        let json: serde_json::Value = serde_json::from_slice(&output.stdout)
            .unwrap_or_else(|e| panic!("{name}: {e}: {output:?}"));
        json.get("changes").cloned().unwrap_or(json)
    };
    let full = changes(&[]);
    assert!(
        full.as_array().is_some_and(|c| !c.is_empty()),
        "{name}: {full}"
    );
    assert_eq!(changes(&["--changed-only"]), full, "{name}");
}

/// `text` written to `file` (relative to `repo`), its directories made.
fn write_file(repo: &Path, file: &str, text: &str) {
    let path = repo.join(file);
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(path, text).expect("write");
}

/// A kustomization file listing `files` as its resources.
fn kustomize_listing(files: &str) -> String {
    format!(
        "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [{files}]\n"
    )
}

/// The whole `diff --path clusters/dev` shows `needle`, and `--changed-only` gives its changes.
fn assert_narrowed_diff_shows(repo: &Path, needle: &str) {
    let full = listed(repo, "diff", &[]);
    assert!(full.to_string().contains(needle), "{full}");
    assert_eq!(listed(repo, "diff", &["--changed-only"]), full);
}

/// A FluxInstance `flux` in `flux-system` syncing `sync` (a flow mapping), then `rest` of its spec.
fn flux_instance(sync: &str, rest: &str) -> String {
    format!("apiVersion: fluxcd.controlplane.io/v1\nkind: FluxInstance\nmetadata: {{name: flux, namespace: flux-system}}\nspec:\n  distribution: {{version: \"2.x\", registry: ghcr.io/fluxcd}}\n  sync: {sync}\n{rest}")
}

/// The sync of the FluxInstances above that read `apps` from the working tree's repository.
const GIT_SYNC: &str =
    "{kind: GitRepository, url: \"https://github.com/example/fleet.git\", ref: refs/heads/main, path: apps}";
