//! Differences from the reference tools found on fresh repositories (`testdata/fidelity/`, one
//! folder per difference, named as in issue 24), each checked through the binary.

use std::path::{Path, PathBuf};

use crate::common::offlux_cli;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testdata/fidelity")
        .join(name)
}

/// `offlux <args> --path <fixture>/clusters/dev --root <fixture>`: its stdout, after a success.
fn run(name: &str, args: &[&str]) -> String {
    let output = offlux_cli::on_repository(&fixture(name), args);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn b4_hr_block_scalar_newline() {
    // Helm (and helm-controller) end every manifest with a newline, so a block scalar ending a
    // template that chomps its last newline still keeps it: "a: 1\n".
    let yaml = run(
        "b4-hr-block-scalar-newline",
        &["build", "hr", "demo", "-n", "default"],
    );
    assert!(yaml.contains("  config.yaml: |\n    a: 1\n"), "{yaml}");
    let json = run(
        "b4-hr-block-scalar-newline",
        &["build", "hr", "demo", "-n", "default", "-o", "json"],
    );
    assert!(json.contains(r#""config.yaml": "a: 1\n""#), "{json}");
}

#[test]
fn b6_folded_scalar_postbuild() {
    // kustomize-controller: the folded `>-` value with a more-indented line is "[\n\n  {..}\n]"
    // (go-yaml v3 rewrote it), with post-build substitution and in JSON alike.
    let yaml = run(
        "b6-folded-scalar-postbuild",
        &["build", "ks", "with-vars", "-n", "flux-system"],
    );
    assert!(
        yaml.contains("  rules: |-\n    [\n\n      {\"a\": 1}\n    ]\n"),
        "{yaml}"
    );
    let json = run(
        "b6-folded-scalar-postbuild",
        &[
            "build",
            "ks",
            "with-vars",
            "-n",
            "flux-system",
            "-o",
            "json",
        ],
    );
    assert!(
        json.contains(r#""rules": "[\n\n  {\"a\": 1}\n]""#),
        "{json}"
    );
}
