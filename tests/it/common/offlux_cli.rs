//! Running the `offlux` binary on a repository laid out as the test fixtures are (the cluster
//! entry point at `clusters/dev`, the repository root above it), without colour.

use std::path::Path;
use std::process::Output;

use assert_cmd::Command;

/// The binary, with `NO_COLOR` set.
pub fn offlux() -> Command {
    let mut command = Command::cargo_bin("offlux").expect("binary is built");
    command.env("NO_COLOR", "1");
    command
}

/// `offlux ARGS --path ROOT/clusters/dev --root ROOT`.
pub fn on_repository(root: &Path, args: &[&str]) -> Output {
    offlux()
        .args(args)
        .arg("--path")
        .arg(root.join("clusters/dev"))
        .arg("--root")
        .arg(root)
        .output()
        .expect("runs")
}
