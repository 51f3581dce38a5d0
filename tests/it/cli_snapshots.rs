//! Snapshots of the CLI's human output on the example repository (stdout, stderr and exit code).
//! Refresh with `INSTA_UPDATE=always cargo test --release --test it cli_snapshots::` and review the diff.

use std::path::Path;

use crate::common::offlux_cli;

fn run(args: &[&str]) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/example");
    let output = offlux_cli::on_repository(&root, args);
    format!(
        "exit: {:?}\n--- stdout\n{}--- stderr\n{}",
        output.status.code(),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

#[test]
fn test_human() {
    insta::assert_snapshot!(run(&["test"]));
}

#[test]
fn get_ks_table() {
    insta::assert_snapshot!(run(&["get", "ks"]));
}

#[test]
fn graph_mermaid() {
    insta::assert_snapshot!(run(&["graph", "-o", "mermaid"]));
}
