//! `.offlux.yaml` is checked whole before a run uses it: a misspelt key or a value of the wrong
//! shape is an input error (exit 2) naming the file, the line and the key meant, in every verb
//! that reads the repository.

use std::path::Path;

use crate::common::{copy_dir, offlux_cli::on_repository};

fn example_with_config(text: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temporary repository");
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/example"),
        dir.path(),
    );
    std::fs::write(dir.path().join(".offlux.yaml"), text).expect("write the configuration");
    dir
}

#[test]
fn a_misspelt_key_is_an_input_error_in_every_verb() {
    let repo = example_with_config("validate:\n  severites:\n    OFX106: off\n");
    let expected = format!(
        "{}:2: unknown key `validate.severites` (did you mean `severities`?)",
        repo.path().join(".offlux.yaml").display()
    );
    for args in [
        &["test"][..],
        &["validate"],
        &["get", "all"],
        &["build", "ks", "apps"],
    ] {
        let output = on_repository(repo.path(), args);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(&expected), "{args:?}: {stderr}");
    }
}

#[test]
fn a_wrong_value_names_its_line() {
    let repo = example_with_config(
        "sources:\n  flux-system: .\nvalidate:\n  orphans:\n    ignore: examples/**\n",
    );
    let output = on_repository(repo.path(), &["validate"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(".offlux.yaml:5: `validate.orphans.ignore` must be a list of paths"),
        "{stderr}"
    );
}

#[test]
fn a_valid_file_is_taken() {
    let repo = example_with_config(
        "validate:\n  severities:\n    OFX106: off\n  orphans:\n    ignore: [\"**/README.md\"]\n",
    );
    let output = on_repository(repo.path(), &["test"]);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}
