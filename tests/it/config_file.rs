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

/// The example repository as a git checkout (so its root is found from inside it) with `text` as
/// its `.offlux.yaml`.
fn checkout_with_config(text: &str) -> tempfile::TempDir {
    let repo = example_with_config(text);
    std::fs::create_dir_all(repo.path().join(".git")).expect("a .git directory marks the root");
    repo
}

fn offlux_in(dir: &Path, args: &[&str]) -> std::process::Output {
    crate::common::offlux_cli::offlux()
        .current_dir(dir)
        .args(args)
        .output()
        .expect("runs")
}

#[test]
fn run_settings_come_from_the_file_unless_a_flag_or_the_environment_gives_them() {
    let repo = checkout_with_config("path: clusters/dev\noffline: true\nkube-version: \"1.31\"\n");
    // The path the file gives is taken from the repository root, wherever the command starts.
    let output = offlux_in(&repo.path().join("apps"), &["test"]);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(String::from_utf8_lossy(&output.stdout)
        .ends_with("5 objects: 5 passed, 0 failed, 0 blocked, 0 skipped\n"));

    let shown = offlux_in(repo.path(), &["config", "show", "--allow-missing-sources"]);
    let text = String::from_utf8_lossy(&shown.stdout).into_owned();
    let file = repo.path().join(".offlux.yaml").display().to_string();
    let row = |key: &str| -> Vec<String> {
        text.lines()
            .find(|l| l.split_whitespace().next() == Some(key))
            .unwrap_or_else(|| panic!("{key}: {text}"))
            .split_whitespace()
            .map(str::to_owned)
            .collect()
    };
    assert_eq!(row("path"), ["path", "clusters/dev", &format!("{file}:1")]);
    assert_eq!(row("offline"), ["offline", "true", &format!("{file}:2")]);
    assert_eq!(
        row("kube-version"),
        ["kube-version", "1.31", &format!("{file}:3")]
    );
    assert_eq!(
        row("allow-missing-sources"),
        ["allow-missing-sources", "true", "command", "line"]
    );
    assert_eq!(row("chart-cache"), ["chart-cache", "none", "default"]);

    let from_environment = crate::common::offlux_cli::offlux()
        .current_dir(repo.path())
        .env("OFFLUX_KUBE_VERSION", "1.29")
        .args(["config", "show"])
        .output()
        .expect("runs");
    assert!(String::from_utf8_lossy(&from_environment.stdout)
        .lines()
        .any(|l| l.split_whitespace().collect::<Vec<_>>()
            == ["kube-version", "1.29", "environment", "(OFFLUX_*)"]));
}

#[test]
fn a_path_the_file_gives_stays_inside_the_repository() {
    for (text, expected) in [
        (
            "path: ../elsewhere\n",
            ".offlux.yaml:1: `path` must be a path inside the repository",
        ),
        (
            "chart-cache: /etc\n",
            ".offlux.yaml:1: `chart-cache` must be a path inside the repository",
        ),
    ] {
        let repo = checkout_with_config(text);
        let output = offlux_in(repo.path(), &["test"]);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{stderr}");
        assert!(stderr.contains(expected), "{stderr}");
    }
    #[cfg(unix)]
    {
        let repo = checkout_with_config("chart-cache: charts-link\n");
        std::os::unix::fs::symlink("/etc", repo.path().join("charts-link")).expect("link");
        let output = offlux_in(repo.path(), &["test", "--path", "clusters/dev"]);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{stderr}");
        assert!(
            stderr.contains("`chart-cache` leads out of the repository"),
            "{stderr}"
        );
    }
}

/// `docs/offlux.schema.json` is what `offlux config schema` prints; refresh it with
/// `OFFLUX_UPDATE_SCHEMA=1 cargo test --release --test it config_file::`.
#[test]
fn the_shipped_schema_is_current() {
    let output = crate::common::offlux_cli::offlux()
        .args(["config", "schema"])
        .output()
        .expect("runs");
    assert_eq!(output.status.code(), Some(0));
    let printed = String::from_utf8_lossy(&output.stdout).into_owned();
    let schema: serde_json::Value = serde_json::from_str(&printed).expect("JSON");
    assert_eq!(schema["additionalProperties"], false);
    assert!(schema["properties"]["validate"]["properties"]["severities"].is_object());
    let shipped = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/offlux.schema.json");
    #[allow(clippy::disallowed_methods, reason = "a test reads its refresh switch")]
    if std::env::var_os("OFFLUX_UPDATE_SCHEMA").is_some() {
        std::fs::write(&shipped, &printed).expect("write the schema");
    }
    assert_eq!(
        std::fs::read_to_string(&shipped).unwrap_or_default(),
        printed,
        "stale docs/offlux.schema.json (run `OFFLUX_UPDATE_SCHEMA=1 cargo test --release --test it config_file::`)"
    );
}

/// `offlux init` writes a configuration offlux then runs with (the one cluster's path), a
/// workflow and a pre-commit configuration that are YAML, and never replaces a file unasked.
#[test]
fn init_writes_a_configuration_offlux_runs_with() {
    let repo = tempfile::tempdir().expect("tempdir");
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/example"),
        repo.path(),
    );
    std::fs::create_dir_all(repo.path().join(".git")).expect("a .git directory marks the root");
    let init = offlux_in(repo.path(), &["init", "--github-workflow", "--pre-commit"]);
    assert_eq!(
        init.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&init.stderr)
    );
    let config = std::fs::read_to_string(repo.path().join(".offlux.yaml")).expect("written");
    assert!(config.contains("\npath: clusters/dev\n"), "{config}");
    for file in [".github/workflows/offlux.yml", ".pre-commit-config.yaml"] {
        let text = std::fs::read_to_string(repo.path().join(file)).expect("written");
        offlux::yaml::parse_stream(&text, &offlux::yaml::ParseOptions::default())
            .unwrap_or_else(|e| panic!("{file}: {e}\n{text}"));
    }
    let test = offlux_in(&repo.path().join("apps"), &["test"]);
    assert_eq!(test.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&test.stdout)
        .ends_with("5 objects: 5 passed, 0 failed, 0 blocked, 0 skipped\n"));

    let again = offlux_in(repo.path(), &["init"]);
    assert_eq!(again.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&again.stderr).contains("` already there"));

    // A file already there (the repository's own pre-commit configuration) is kept; what is
    // missing is still written.
    let own_hooks = "repos: []  # the repository's own hooks\n";
    std::fs::write(repo.path().join(".pre-commit-config.yaml"), own_hooks).expect("write");
    std::fs::remove_file(repo.path().join(".github/workflows/offlux.yml")).expect("remove");
    let partial = offlux_in(repo.path(), &["init", "--github-workflow", "--pre-commit"]);
    assert_eq!(partial.status.code(), Some(0));
    let said = String::from_utf8_lossy(&partial.stdout);
    assert!(
        said.contains("kept ") && said.contains(".pre-commit-config.yaml (already there"),
        "{said}"
    );
    assert_eq!(
        std::fs::read_to_string(repo.path().join(".pre-commit-config.yaml")).expect("kept"),
        own_hooks
    );
    assert!(repo.path().join(".github/workflows/offlux.yml").exists());
    assert_eq!(
        offlux_in(repo.path(), &["init", "--force"]).status.code(),
        Some(0)
    );
}

#[cfg(unix)]
#[test]
fn init_writes_nothing_through_a_link() {
    let repo = tempfile::tempdir().expect("tempdir");
    let elsewhere = tempfile::tempdir().expect("tempdir");
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/example"),
        repo.path(),
    );
    std::fs::create_dir_all(repo.path().join(".git")).expect("a .git directory marks the root");
    std::os::unix::fs::symlink(elsewhere.path(), repo.path().join(".github")).expect("link");
    let init = offlux_in(repo.path(), &["init", "--github-workflow"]);
    assert_eq!(init.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&init.stderr).contains("is a link"));
    assert!(std::fs::read_dir(elsewhere.path())
        .expect("read")
        .next()
        .is_none());
    assert!(
        !repo.path().join(".offlux.yaml").exists(),
        "nothing written"
    );
}
