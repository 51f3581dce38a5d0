//! `git` for tests that make repositories at run time: no user or system configuration.

use std::path::Path;

/// `git` in `repo`, with no user or system configuration. `None` (and a message) without git.
#[allow(
    clippy::print_stderr,
    reason = "a test without git says why it skipped"
)]
pub fn git(repo: &Path, args: &[&str]) -> Option<()> {
    let output = std::process::Command::new("git")
        .current_dir(repo)
        .args([
            "-c",
            "init.defaultBranch=main",
            "-c",
            "commit.gpgsign=false",
            "-c",
            "user.name=test",
            "-c",
            "user.email=test@example.com",
        ])
        .args(args)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .output();
    let Ok(output) = output else {
        eprintln!("skipped: no `git` binary to make test repositories with");
        return None;
    };
    assert!(
        output.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    Some(())
}
