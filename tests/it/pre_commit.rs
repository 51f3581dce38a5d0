//! The pre-commit hooks of `.pre-commit-hooks.yaml`, run for real: `pre-commit` from PyPI in a
//! temporary virtual environment, `pre-commit try-repo` of this project against a fixture
//! repository built here, once clean (the hooks pass) and once broken (they fail, naming the cause).
//! The `-system` hooks are the ones run, with the offlux this build made first on PATH; the `rust`
//! ones share their entries and would build offlux from source first.
//!
//! Skipped, with a line saying so, where `pre-commit` cannot be installed (no `python3 -m venv`,
//! or no way to reach PyPI).

#![allow(
    clippy::print_stderr,
    clippy::disallowed_methods,
    reason = "tests print what they checked and read their settings from the environment"
)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::common::fleet;
use crate::common::test_data;

/// A virtual environment with `pre-commit` installed, or `None` (after saying why) when one
/// cannot be made here.
fn install_pre_commit(dir: &Path) -> Option<PathBuf> {
    let venv = dir.join("venv");
    let made = Command::new("python3")
        .args(["-m", "venv"])
        .arg(&venv)
        .output();
    if !made.is_ok_and(|o| o.status.success()) {
        test_data::skipped("the pre-commit hooks: `python3 -m venv` is not available");
        return None;
    }
    let bin = venv.join(if cfg!(windows) { "Scripts" } else { "bin" });
    let installed = Command::new(bin.join("python"))
        .args([
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            "pre-commit",
        ])
        .output();
    match installed {
        Ok(o) if o.status.success() => Some(bin),
        Ok(o) => {
            test_data::skipped(&format!(
                "the pre-commit hooks: `pip install pre-commit` failed: {}",
                String::from_utf8_lossy(&o.stderr)
                    .lines()
                    .last()
                    .unwrap_or("")
            ));
            None
        }
        Err(e) => {
            test_data::skipped(&format!("the pre-commit hooks: pip did not run: {e}"));
            None
        }
    }
}

fn try_repo(bin: &Path, repo: &Path, hook: &str, home: &Path) -> Output {
    let offlux = PathBuf::from(env!("CARGO_BIN_EXE_offlux"));
    let offlux_dir = offlux.parent().expect("the binary's directory");
    let path = std::env::join_paths(
        [offlux_dir.to_path_buf(), bin.to_path_buf()]
            .into_iter()
            .chain(std::env::split_paths(
                &std::env::var_os("PATH").unwrap_or_default(),
            )),
    )
    .expect("PATH");
    Command::new(bin.join("pre-commit"))
        .current_dir(repo)
        .args(["try-repo", env!("CARGO_MANIFEST_DIR"), hook, "--all-files"])
        .env("PATH", path)
        .env("PRE_COMMIT_HOME", home)
        .env("NO_COLOR", "1")
        .output()
        .expect("pre-commit runs")
}

#[test]
fn hooks_pass_on_a_clean_repository_and_fail_on_a_broken_one() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let Some(bin) = install_pre_commit(dir.path()) else {
        return;
    };
    let home = dir.path().join("pre-commit-home");

    let clean = fleet::fixture(&dir.path().join("clean"), "./apps");
    for hook in ["offlux-test-system", "offlux-validate-system"] {
        let out = try_repo(&bin, &clean, hook, &home);
        assert!(
            out.status.success(),
            "{hook} fails on a clean repository:\n{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }

    // The diff hook shows a staged change against the default branch and never fails the commit.
    let config = clean.join("apps/config.yaml");
    let text = std::fs::read_to_string(&config).expect("config");
    std::fs::write(&config, text.replace("mode: dev", "mode: prod")).expect("edit");
    let staged = Command::new("git")
        .current_dir(&clean)
        .args(["add", "apps/config.yaml"])
        .status()
        .expect("git runs");
    assert!(staged.success());
    let out = try_repo(&bin, &clean, "offlux-diff-system", &home);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "offlux-diff fails the commit:\n{text}"
    );
    assert!(
        text.contains("-  mode: dev") && text.contains("+  mode: prod"),
        "the diff hook does not show the change:\n{text}"
    );

    let broken = fleet::fixture(&dir.path().join("broken"), "./apps/missing");
    let out = try_repo(&bin, &broken, "offlux-test-system", &home);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        !out.status.success(),
        "offlux-test passes a broken repository:\n{text}"
    );
    assert!(
        text.contains("flux-system/apps") && text.contains("./apps/missing"),
        "the hook's output does not name the broken Kustomization and its path:\n{text}"
    );
}
