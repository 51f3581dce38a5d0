//! The GitHub Action's step (`scripts/action/run.sh`, called by `action.yml`), run here in a fake
//! GitHub environment: an event file, a job summary file, an output file, and the offlux this
//! build made on PATH. A clean fixture repository passes with a summary that says so; a broken one
//! fails with exit 1, an annotation on the file at fault, a summary naming the failure and SARIF
//! that code scanning can read.

#![allow(
    clippy::disallowed_methods,
    reason = "tests read their settings from the environment"
)]
#![cfg(unix)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::common::fleet;

struct Run {
    output: Output,
    summary: String,
    outputs: String,
    sarif: Option<serde_json::Value>,
}

fn run_action(repo: &Path, dir: &Path, command: &str, sarif: bool) -> Run {
    let offlux = PathBuf::from(env!("CARGO_BIN_EXE_offlux"));
    let path = std::env::join_paths(
        std::iter::once(offlux.parent().expect("bin dir").to_path_buf()).chain(
            std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
        ),
    )
    .expect("PATH");
    let summary = dir.join(format!("summary-{command}.md"));
    let outputs = dir.join(format!("outputs-{command}.txt"));
    let sarif_file = dir.join(format!("{command}.sarif"));
    let event = dir.join("event.json");
    std::fs::write(
        &event,
        r#"{"action":"synchronize","pull_request":{"number":7,"head":{"sha":"0000000"}}}"#,
    )
    .expect("event file");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/action/run.sh");
    let output = Command::new("bash")
        .arg(script)
        .current_dir(repo)
        .env("PATH", path)
        .env("GITHUB_ACTIONS", "true")
        .env("GITHUB_EVENT_NAME", "pull_request")
        .env("GITHUB_EVENT_PATH", &event)
        .env("GITHUB_STEP_SUMMARY", &summary)
        .env("GITHUB_OUTPUT", &outputs)
        .env("OFFLUX_INPUT_COMMAND", command)
        .env("OFFLUX_INPUT_BASE", "main")
        .env("RUNNER_TEMP", dir)
        .env("OFFLUX_INPUT_PATH", ".")
        .env("OFFLUX_INPUT_OFFLINE", "true")
        .env("OFFLUX_INPUT_ARGS", "--concurrency 2")
        .env(
            "OFFLUX_INPUT_SARIF",
            if sarif {
                sarif_file.as_os_str()
            } else {
                "".as_ref()
            },
        )
        .output()
        .expect("bash runs");
    Run {
        output,
        summary: std::fs::read_to_string(&summary).unwrap_or_default(),
        outputs: std::fs::read_to_string(&outputs).unwrap_or_default(),
        sarif: sarif.then(|| {
            let text = std::fs::read_to_string(&sarif_file).expect("SARIF written");
            serde_json::from_str(&text).expect("SARIF is JSON")
        }),
    }
}

#[test]
fn the_action_passes_a_clean_repository_with_a_summary() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let repo = fleet::fixture(&dir.path().join("clean"), "./apps");
    let run = run_action(&repo, dir.path(), "test", false);
    assert_eq!(
        run.output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&run.output.stdout)
    );
    assert!(
        run.summary.starts_with("## offlux test: passed\n"),
        "{}",
        run.summary
    );
    assert!(run.summary.contains("flux-system/apps"), "{}", run.summary);
    assert_eq!(run.outputs, "exit-code=0\n");
}

#[test]
fn the_action_fails_a_broken_repository_with_annotations_summary_and_sarif() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let repo = fleet::fixture(&dir.path().join("broken"), "./apps/missing");
    let run = run_action(&repo, dir.path(), "test", true);
    let stdout = String::from_utf8_lossy(&run.output.stdout);
    assert_eq!(run.output.status.code(), Some(1), "{stdout}");
    assert!(
        stdout
            .lines()
            .any(|l| l.starts_with("::error file=clusters/dev/apps.yaml")
                && l.contains("./apps/missing")),
        "no annotation on the Kustomization's file:\n{stdout}"
    );
    assert!(
        run.summary.starts_with("## offlux test: found failures\n")
            && run.summary.contains("./apps/missing"),
        "{}",
        run.summary
    );
    assert_eq!(run.outputs, "exit-code=1\n");
    let sarif = run.sarif.expect("SARIF");
    assert_eq!(sarif["version"], "2.1.0", "{sarif}");
    assert!(sarif["runs"][0]["tool"]["driver"]["name"].is_string());
}

/// `command: diff` against the fixture's last commit, with one value changed in the working tree:
/// exit 1 (differences), a summary holding the markdown report, and its file as an output.
#[test]
fn the_action_diffs_the_working_tree_against_its_base() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let repo = fleet::fixture(&dir.path().join("diff"), "./apps");
    let config = repo.join("apps/config.yaml");
    let text = std::fs::read_to_string(&config).expect("config");
    std::fs::write(&config, text.replace("mode: dev", "mode: prod")).expect("edit");
    let run = run_action(&repo, dir.path(), "diff", false);
    let stdout = String::from_utf8_lossy(&run.output.stdout);
    assert_eq!(run.output.status.code(), Some(1), "{stdout}");
    assert!(
        run.summary.contains("ConfigMap")
            && run.summary.contains("settings")
            && run.summary.contains("-  mode: dev")
            && run.summary.contains("+  mode: prod"),
        "{}",
        run.summary
    );
    let file = run
        .outputs
        .lines()
        .find_map(|line| line.strip_prefix("diff-file="))
        .expect("diff-file output");
    assert_eq!(
        std::fs::read_to_string(file).ok().as_deref(),
        Some(run.summary.as_str())
    );
    assert!(run.outputs.starts_with("exit-code=1\n"), "{}", run.outputs);
    // The same comparison as one page, for the job's artifact.
    let page = run
        .outputs
        .lines()
        .find_map(|line| line.strip_prefix("diff-html="))
        .expect("diff-html output");
    let page = std::fs::read_to_string(page).expect("the HTML report");
    assert!(page.starts_with("<!doctype html>") && page.contains("<ins>prod</ins>"));
    // One comparison: the comment is offlux's markdown report alone, no diagnostics block.
    assert!(
        run.summary.starts_with("### offlux diff: ")
            && !run.summary.contains("<details><summary>offlux diagnostics"),
        "{}",
        run.summary
    );
}

/// `command: validate` checks once: the annotations, the job summary's report and the SARIF all
/// come from the same run (`--report-human`, `--report-sarif`).
#[test]
fn the_action_validates_once_for_annotations_summary_and_sarif() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let repo = fleet::fixture(&dir.path().join("broken"), "./apps/missing");
    let run = run_action(&repo, dir.path(), "validate", true);
    let stdout = String::from_utf8_lossy(&run.output.stdout);
    assert_eq!(run.output.status.code(), Some(1), "{stdout}");
    assert!(stdout.lines().any(|l| l.starts_with("::error")), "{stdout}");
    assert!(
        run.summary
            .starts_with("## offlux validate: found failures\n")
            && run.summary.contains("objects checked"),
        "{}",
        run.summary
    );
    let sarif = run.sarif.expect("SARIF");
    assert_eq!(sarif["version"], "2.1.0", "{sarif}");
}

#[test]
fn the_action_refuses_an_unknown_command() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let repo = fleet::fixture(&dir.path().join("clean"), "./apps");
    let run = run_action(&repo, dir.path(), "render", false);
    assert_eq!(run.output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&run.output.stdout).starts_with("::error::"));
}

/// Every action the Action calls is pinned by a full commit SHA, with the release it is named
/// beside it: a tag can be moved to other code, a commit cannot.
#[test]
fn the_actions_it_calls_are_pinned_by_commit() {
    let manifest =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("action.yml"))
            .expect("action.yml");
    let mut called = 0;
    for line in manifest.lines() {
        let Some(reference) = line.trim().strip_prefix("uses:") else {
            continue;
        };
        called += 1;
        let (action, rest) = reference.trim().split_once('@').expect("an action@ref");
        let (commit, release) = rest.split_once(" # ").unwrap_or((rest, ""));
        assert!(
            commit.len() == 40 && commit.bytes().all(|b| b.is_ascii_hexdigit()),
            "{action} is called by `{commit}`, not by a commit"
        );
        assert!(
            release.starts_with('v'),
            "{action}@{commit} does not name its release"
        );
    }
    assert_eq!(called, 4, "the steps that call an action");
}
