//! The binary's behaviour: output streams, formats and exit codes.

#![allow(
    clippy::disallowed_methods,
    reason = "tests read their settings from the environment"
)]

use std::path::{Path, PathBuf};

use crate::common::offlux_cli;

use offlux_cli::offlux;

fn example() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/example")
}

#[test]
fn get_all_json_lists_the_example() {
    let root = example();
    let output = offlux()
        .args(["get", "all", "-o", "json", "--root"])
        .arg(&root)
        .arg("--path")
        .arg(root.join("clusters/dev"))
        .output()
        .expect("runs");
    assert_eq!(
        output.status.code(),
        Some(0),
        "stderr: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let records: serde_json::Value =
        serde_json::from_slice(&output.stdout).expect("stdout is JSON");
    let listed: Vec<String> = records
        .as_array()
        .expect("a list")
        .iter()
        .map(|r| {
            format!(
                "{} {}/{} {}",
                r["kind"].as_str().unwrap_or(""),
                r["namespace"].as_str().unwrap_or(""),
                r["name"].as_str().unwrap_or(""),
                r["file"].as_str().unwrap_or("")
            )
        })
        .collect();
    assert_eq!(
        listed,
        [
            "GitRepository flux-system/flux-system clusters/dev/flux-system/gotk-sync.yaml",
            "HelmRelease hello/hello apps/base/hello/release.yaml",
            "Kustomization flux-system/apps clusters/dev/apps.yaml",
            "Kustomization flux-system/flux-system clusters/dev/flux-system/gotk-sync.yaml",
            "Kustomization flux-system/infrastructure clusters/dev/infrastructure.yaml",
        ]
    );
}

#[test]
fn get_ks_table_filters_by_name_and_namespace() {
    let root = example();
    let output = offlux()
        .args(["get", "ks", "apps", "-n", "flux-system", "--path"])
        .arg(&root)
        .arg("--root")
        .arg(&root)
        .output()
        .expect("runs");
    assert_eq!(output.status.code(), Some(0));
    let stdout = String::from_utf8_lossy(&output.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 2, "{stdout}");
    assert!(lines[0].starts_with("NAMESPACE    NAME  PATH"), "{stdout}");
    // as flux-system applied it: its post-build substitutes `${CLUSTER_ENV:=dev}`
    assert!(lines[1].contains("./apps/dev"), "{stdout}");
    assert!(lines[1].contains("flux-system/infrastructure"), "{stdout}");
    assert!(lines[1].ends_with("clusters/dev/apps.yaml:1"), "{stdout}");
}

#[test]
fn get_yaml_is_parseable_and_selector_filters() {
    let root = example();
    let output = offlux()
        .args(["get", "sources", "-o", "yaml", "--path"])
        .arg(&root)
        .arg("--root")
        .arg(&root)
        .output()
        .expect("runs");
    assert_eq!(output.status.code(), Some(0));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("kind: GitRepository"), "{stdout}");
    assert!(
        stdout.contains("url: https://example.invalid/offlux/example.git"),
        "{stdout}"
    );
    let output = offlux()
        .args(["get", "all", "-l", "team=none", "--path"])
        .arg(&root)
        .arg("--root")
        .arg(&root)
        .output()
        .expect("runs");
    assert_eq!(output.status.code(), Some(0));
    assert!(output.stdout.is_empty());
    assert!(String::from_utf8_lossy(&output.stderr).contains("No matching objects"));
}

#[test]
fn malformed_object_exits_1_with_a_located_diagnostic() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(
        dir.path().join("ks.yaml"),
        "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: broken\nspec:\n  sourceRef:\n    kind: GitRepository\n",
    )
    .expect("write");
    let output = offlux()
        .args(["get", "ks", "--path"])
        .arg(dir.path())
        .output()
        .expect("runs");
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("Kustomization/broken: `spec.sourceRef.name` is required"),
        "{stderr}"
    );
    assert!(stderr.contains("ks.yaml:6:"), "{stderr}");
    // `get` lists what `test` reconciles, and `test` has a (FAIL) row for it; the diagnostic
    // stays on stderr.
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("default    broken"), "{stdout}");
    assert!(
        !stdout.contains("required"),
        "stdout is for data only: {stdout}"
    );
}

#[test]
fn missing_path_and_bad_flags_exit_2() {
    let output = offlux()
        .args(["get", "all", "--path", "/no/such/dir"])
        .output()
        .expect("runs");
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("/no/such/dir"));
    let output = offlux().args(["get", "nonsense"]).output().expect("runs");
    assert_eq!(output.status.code(), Some(2));
}

/// The README's exit-code table holds for every verb: a path that does not exist and a flag
/// that does not exist are usage errors (2), said on stderr with nothing on stdout.
#[test]
fn every_verb_exits_2_for_a_missing_path_and_a_bad_flag() {
    let missing = "/no/such/dir";
    let verbs: &[&[&str]] = &[
        &["get", "all", "--path", missing],
        &["test", "--path", missing],
        &["validate", "--path", missing],
        &["build", "all", "--path", missing],
        &["render", "--path", missing],
        &["graph", "--path", missing],
        &["diff", "--path", missing],
        &["kustomize", "build", missing],
        &["helm", "template", missing],
    ];
    for args in verbs {
        let output = offlux().args(*args).output().expect("runs");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(missing), "{args:?}: {stderr}");
        assert!(
            output.stdout.is_empty(),
            "{args:?}: stdout is for data only"
        );
    }
    let bad_flags: &[&[&str]] = &[
        &["get", "all"],
        &["test"],
        &["validate"],
        &["build", "all"],
        &["render"],
        &["graph"],
        &["diff"],
        &["kustomize", "build", "."],
        &["helm", "template", "."],
        &["explain"],
        &["completions", "bash"],
    ];
    for args in bad_flags {
        let output = offlux()
            .args(*args)
            .arg("--no-such-flag")
            .output()
            .expect("runs");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains("--no-such-flag"), "{args:?}: {stderr}");
    }
}

/// `kustomize build` says its warnings through the same reporter as the other verbs, so
/// `--log-level error` leaves them out; its input errors are usage errors too.
#[test]
fn kustomize_build_warnings_follow_the_log_level() {
    let dir = tempfile::tempdir().expect("tempdir");
    for (name, text) in [
        (
            "kustomization.yaml",
            "commonLabels:\n  app: a\nresources:\n  - cm.yaml\n",
        ),
        (
            "cm.yaml",
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n",
        ),
    ] {
        std::fs::write(dir.path().join(name), text).expect("write");
    }
    let build = |extra: &[&str]| {
        offlux()
            .args(["kustomize", "build"])
            .arg(dir.path())
            .args(extra)
            .env("NO_COLOR", "1")
            .output()
            .expect("runs")
    };
    let output = build(&[]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("warning: ") && stderr.contains("'commonLabels' is deprecated"),
        "{stderr}"
    );
    assert!(String::from_utf8_lossy(&output.stdout).contains("app: a"));
    let output = build(&["--log-level", "error"]);
    assert_eq!(output.status.code(), Some(0));
    assert!(
        output.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let output = build(&["--enable-helm"]);
    assert_eq!(output.status.code(), Some(2));
}

#[test]
fn help_and_version() {
    for args in [
        vec!["--help"],
        vec!["get", "--help"],
        vec!["completions", "--help"],
        vec!["--version"],
    ] {
        let output = offlux().args(&args).output().expect("runs");
        assert_eq!(output.status.code(), Some(0), "{args:?}");
        assert!(!output.stdout.is_empty(), "{args:?}");
    }
}

/// The scripts under `completions/` must match what the binary generates. Refresh them with
/// `OFFLUX_UPDATE_COMPLETIONS=1 cargo test --test it cli::completions`.
#[test]
fn completions_are_current() {
    let committed = Path::new(env!("CARGO_MANIFEST_DIR")).join("completions");
    let fresh = tempfile::tempdir().expect("tempdir");
    let written = offlux::cli::write_all_completions(fresh.path()).expect("generate");
    let update = std::env::var_os("OFFLUX_UPDATE_COMPLETIONS").is_some();
    let mut stale = Vec::new();
    for path in written {
        let name = path.file_name().expect("file name");
        let expected = std::fs::read(&path).expect("read generated");
        let target = committed.join(name);
        if update {
            std::fs::write(&target, &expected).expect("update completions");
        } else if std::fs::read(&target).ok().as_deref() != Some(expected.as_slice()) {
            stale.push(target.display().to_string());
        }
    }
    assert!(
        stale.is_empty(),
        "stale completions (run `OFFLUX_UPDATE_COMPLETIONS=1 cargo test --test it cli::completions`): {stale:?}"
    );
    let bash = offlux()
        .args(["completions", "bash"])
        .output()
        .expect("runs");
    assert_eq!(bash.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&bash.stdout).contains("offlux"));
}

/// Dynamic completion through the real bash registration script: `build hr <TAB>` offers the
/// repository's HelmReleases, `build ks in<TAB>` its Kustomizations starting so (with `--path`
/// taken from the line), `explain OFX10<TAB>` the codes.
#[test]
fn dynamic_completion_offers_the_names_in_the_repository() {
    let bash_found = std::process::Command::new("bash")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !bash_found {
        crate::common::test_data::skipped("dynamic completion: no bash here");
        return;
    }
    let binary = PathBuf::from(env!("CARGO_BIN_EXE_offlux"));
    let complete = |words: &[&str]| -> Vec<String> {
        let quoted: Vec<String> = words.iter().map(|w| format!("'{w}'")).collect();
        let cursor = words.len() - 1;
        let script = format!(
            "source <(COMPLETE=bash '{}'); COMP_WORDS=({}); COMP_CWORD={cursor}; COMP_TYPE=9; \
             _clap_complete_offlux offlux {} {}; printf '%s\\n' \"${{COMPREPLY[@]}}\"",
            binary.display(),
            quoted.join(" "),
            quoted[cursor],
            quoted[cursor - 1],
        );
        let out = std::process::Command::new("bash")
            .args(["-c", &script])
            .current_dir(example())
            .env_remove("COMPLETE")
            .output()
            .expect("bash runs");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter(|line| !line.starts_with('-'))
            .map(str::to_owned)
            .collect()
    };
    assert_eq!(complete(&["offlux", "build", "hr", ""]), ["hello"]);
    assert_eq!(complete(&["offlux", "diff", "hr", ""]), ["hello"]);
    assert_eq!(
        complete(&["offlux", "build", "ks", ""]),
        ["apps", "flux-system", "infrastructure"]
    );
    assert_eq!(
        complete(&["offlux", "build", "ks", "--path", "clusters/dev", "in"]),
        ["infrastructure"]
    );
    assert_eq!(
        complete(&["offlux", "build", "ks", "--path", "no/such/dir", ""]),
        Vec::<String>::new()
    );
    let codes = complete(&["offlux", "explain", "OFX10"]);
    assert_eq!(codes.len(), 10, "{codes:?}");
    assert!(
        codes.iter().all(|code| code.starts_with("OFX10")),
        "{codes:?}"
    );
}

/// `validate`'s summary says how many Flux objects were SKIPPED (a chart that needs the network,
/// offline), whose output it could not check: "0 errors" alone would read as all clear.
#[test]
fn validate_counts_what_it_could_not_check() {
    let repo = tempfile::tempdir().expect("tempdir");
    crate::common::copy_dir(&example(), repo.path());
    std::fs::create_dir_all(repo.path().join(".git")).expect("a .git directory marks the root");
    std::fs::write(
        repo.path().join("apps/dev/remote.yaml"),
        "apiVersion: source.toolkit.fluxcd.io/v1\nkind: HelmRepository\nmetadata:\n  name: podinfo\n  namespace: hello\n\
         spec:\n  interval: 1h\n  url: https://stefanprodan.github.io/podinfo\n---\n\
         apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: podinfo\n  namespace: hello\n\
         spec:\n  interval: 1h\n  chart:\n    spec:\n      chart: podinfo\n      version: 6.5.0\n      sourceRef:\n        kind: HelmRepository\n        name: podinfo\n",
    )
    .expect("write");
    let kustomization = repo.path().join("apps/dev/kustomization.yaml");
    let text = std::fs::read_to_string(&kustomization).expect("read");
    std::fs::write(
        &kustomization,
        text.replace(
            "  - ../base/hello\n",
            "  - ../base/hello\n  - remote.yaml\n",
        ),
    )
    .expect("write");
    let out = offlux()
        .args(["validate", "--offline", "--allow-missing-sources", "--path"])
        .arg(repo.path().join("clusters/dev"))
        .arg("--root")
        .arg(repo.path())
        .output()
        .expect("runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.ends_with(
            "; 1 Flux object SKIPPED (`offlux test` says why): what it applies was not checked\n"
        ),
        "{stdout}"
    );
}

/// `validate --report-sarif FILE --report-json FILE ...`: one check, every report, each equal to
/// what `-o` of its format prints.
#[test]
fn validate_writes_every_report_asked_for_from_one_check() {
    let root = example();
    let reports = tempfile::tempdir().expect("tempdir");
    let validate = |extra: &[&std::ffi::OsStr]| {
        let out = offlux()
            .args(["validate", "--path"])
            .arg(root.join("clusters/dev"))
            .arg("--root")
            .arg(&root)
            .args(extra)
            .output()
            .expect("runs");
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let formats = ["sarif", "json", "junit", "human"];
    let files: Vec<PathBuf> = formats
        .iter()
        .map(|format| reports.path().join(format!("report.{format}")))
        .collect();
    let mut args: Vec<&std::ffi::OsStr> = vec!["-o".as_ref(), "github".as_ref()];
    let flags: Vec<String> = formats.iter().map(|f| format!("--report-{f}")).collect();
    for (flag, file) in flags.iter().zip(&files) {
        args.push(flag.as_ref());
        args.push(file.as_os_str());
    }
    validate(&args);
    for (format, file) in formats.iter().zip(&files) {
        let alone = validate(&["-o".as_ref(), format.as_ref()]);
        let written = std::fs::read_to_string(file).expect("the report is written");
        assert_eq!(written, alone, "{format}");
    }
}

/// `offlux explain CODE` prints the code's meaning, why it matters and how to fix or silence it;
/// an unknown code is a usage error that lists the known ones.
#[test]
fn explain_prints_each_code_and_refuses_unknown_ones() {
    let out = offlux().args(["explain", "ofx101"]).output().expect("runs");
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.starts_with("OFX101 (duplicate-object, error by default)"),
        "{text}"
    );
    assert!(
        text.contains("Why it matters:") && text.contains("How to fix it:"),
        "{text}"
    );
    assert!(text.contains("offlux.io/ignore: OFX101"), "{text}");

    let list = offlux().arg("explain").output().expect("runs");
    assert_eq!(
        String::from_utf8_lossy(&list.stdout)
            .lines()
            .filter(|l| l.starts_with("OFX1"))
            .count(),
        offlux::validate::Code::ALL.len()
    );

    let unknown = offlux().args(["explain", "OFX999"]).output().expect("runs");
    assert_eq!(unknown.status.code(), Some(2));
    let err = String::from_utf8_lossy(&unknown.stderr);
    assert!(
        err.contains("unknown finding code `OFX999`") && err.contains("OFX110"),
        "{err}"
    );
}

/// `--version` names the build (commit, date) and what the binary embeds: the Kubernetes schema
/// versions and Flux's CRDs.
#[test]
fn long_version_lists_the_build_and_the_embedded_schemas() {
    let out = offlux().arg("--version").output().expect("runs");
    let text = String::from_utf8_lossy(&out.stdout);
    let first = text.lines().next().unwrap_or_default();
    let build = first
        .strip_prefix(&format!("offlux {} (commit ", env!("CARGO_PKG_VERSION")))
        .and_then(|rest| rest.strip_suffix(')'))
        .and_then(|rest| rest.split_once(", built "))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(
        build.0 == "unknown"
            || build.0.len() == 12 && build.0.bytes().all(|b| b.is_ascii_hexdigit()),
        "{text}"
    );
    assert!(
        build.1.len() == 10 && build.1.as_bytes()[4] == b'-' && build.1.as_bytes()[7] == b'-',
        "{text}"
    );
    assert!(text.contains("Kubernetes schemas: v1."), "{text}");
    assert!(
        text.contains("Kustomization.kustomize.toolkit.fluxcd.io v1"),
        "{text}"
    );
    let short = offlux().arg("-V").output().expect("runs");
    assert_eq!(
        String::from_utf8_lossy(&short.stdout).lines().count(),
        1,
        "-V stays one line"
    );
}

/// Diagnostics of one cause are grouped: the first three with a snippet of their file, the rest
/// one line each under a count; a diagnostic reported twice is printed once.
#[test]
fn diagnostics_of_one_cause_are_grouped() {
    let dir = tempfile::tempdir().expect("tempdir");
    for n in 0..6 {
        std::fs::write(
            dir.path().join(format!("ks-{n}.yaml")),
            format!(
                "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: app-{n}\n  namespace: flux-system\nspec:\n  path: ./missing-{n}\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n"
            ),
        )
        .expect("write");
    }
    let out = offlux()
        .args(["get", "ks", "--no-color", "--path"])
        .arg(dir.path())
        .output()
        .expect("runs");
    let err = String::from_utf8_lossy(&out.stderr);
    let snippets = err.matches("╭─[").count();
    assert_eq!(snippets, 3, "{err}");
    assert!(err.contains("warning: 3 more like this:\n"), "{err}");
    for n in 3..6 {
        assert!(
            err.contains(&format!(
                "  ks-{n}.yaml:1:1: Kustomization/flux-system/app-{n}: `spec.path` `./missing-{n}`"
            )),
            "{err}"
        );
    }
    for n in 0..6 {
        assert_eq!(err.matches(&format!("./missing-{n}`")).count(), 1, "{err}");
    }
}

/// Every long flag of every command can be set from `OFFLUX_<FLAG>`, and `--help` says so.
#[test]
fn every_flag_reads_its_environment_variable() {
    fn walk(command: &clap::Command, path: &str, missing: &mut Vec<String>) {
        for arg in command.get_arguments() {
            let Some(long) = arg.get_long() else { continue };
            if arg.is_positional() || matches!(long, "help" | "version") {
                continue;
            }
            let expected = offlux::cli::flag_environment_name(long);
            let actual = arg.get_env().and_then(|name| name.to_str());
            if actual != Some(expected.as_str()) {
                missing.push(format!("{path} --{long}: {actual:?}, expected {expected}"));
            }
        }
        for sub in command.get_subcommands() {
            walk(sub, &format!("{path} {}", sub.get_name()), missing);
        }
    }
    let command = offlux::cli::command();
    let mut missing = Vec::new();
    walk(&command, "offlux", &mut missing);
    assert!(
        missing.is_empty(),
        "flags without their variable:\n{}",
        missing.join("\n")
    );

    let help = offlux().args(["test", "--help"]).output().expect("runs");
    let help = String::from_utf8_lossy(&help.stdout);
    let unwrapped = help.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(unwrapped.contains("[env: OFFLUX_OFFLINE=]"), "{help}");
}

#[test]
fn flags_set_in_the_environment_take_effect_and_the_command_line_wins() {
    let root = example();
    let run = |env: &[(&str, &str)], args: &[&str]| {
        let mut command = offlux();
        command.args(["get", "all", "--root"]).arg(&root);
        command.arg("--path").arg(root.join("clusters/dev"));
        command.args(args);
        for (name, value) in env {
            command.env(name, value);
        }
        command.output().expect("runs")
    };
    let from_env = run(&[("OFFLUX_OUTPUT", "json")], &[]);
    assert_eq!(from_env.status.code(), Some(0));
    let records: serde_json::Value =
        serde_json::from_slice(&from_env.stdout).expect("OFFLUX_OUTPUT=json gives JSON");
    assert!(records.as_array().is_some_and(|list| !list.is_empty()));

    let overridden = run(&[("OFFLUX_OUTPUT", "json")], &["-o", "yaml"]);
    assert_eq!(overridden.status.code(), Some(0));
    assert!(
        serde_json::from_slice::<serde_json::Value>(&overridden.stdout).is_err(),
        "the command line overrides the environment"
    );

    let bad = run(&[("OFFLUX_OUTPUT", "xml")], &[]);
    assert_eq!(
        bad.status.code(),
        Some(2),
        "a bad value from the environment is a usage error"
    );
    assert!(String::from_utf8_lossy(&bad.stderr).contains("xml"));
}

/// `get images`: every container image the render applies, by producer and workload, in a table
/// or JSON; `-n` keeps one namespace's workloads and NAME one producer's.
#[test]
fn get_images_lists_what_the_render_applies() {
    let root = example();
    let run = |extra: &[&str]| {
        let output = offlux()
            .args(["get", "images", "--root"])
            .arg(&root)
            .arg("--path")
            .arg(root.join("clusters/dev"))
            .args(extra)
            .output()
            .expect("runs");
        assert_eq!(
            output.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8_lossy(&output.stdout).into_owned()
    };
    let json: serde_json::Value = serde_json::from_str(&run(&["-o", "json"])).expect("JSON");
    assert_eq!(
        json,
        serde_json::json!([
            {"producer": "HelmRelease/hello/hello", "object": "Deployment/hello/hello",
             "container": "hello", "image": "registry.example.com/hello:1.0.0"},
            {"producer": "Kustomization/flux-system/infrastructure",
             "object": "Deployment/ingress/ingress-controller", "container": "controller",
             "image": "registry.example.com/ingress-controller:1.2.3"}
        ])
    );
    let table = run(&["-n", "hello"]);
    assert_eq!(table.lines().count(), 2, "{table}");
    assert!(table.starts_with("PRODUCER "), "{table}");
    assert!(
        table.contains("registry.example.com/hello:1.0.0"),
        "{table}"
    );
    let one = run(&["infrastructure"]);
    assert!(
        one.contains("ingress-controller:1.2.3") && !one.contains("hello:1.0.0"),
        "{one}"
    );
}

/// `offlux cache`: lists the archives offlux stored under `$XDG_CACHE_HOME/offlux/charts`, `gc`
/// removes the oldest over the size asked for, `clear` the rest; a file offlux did not store there
/// (another name, a symlink) is never listed nor removed.
#[test]
fn the_cache_verb_lists_prunes_and_clears_only_what_offlux_stored() {
    let home = tempfile::tempdir().expect("tempdir");
    let dir = home.path().join("offlux/charts/sha256");
    std::fs::create_dir_all(&dir).expect("mkdir");
    let stored = |hex: char, bytes: usize| {
        let name: String = std::iter::repeat_n(hex, 64).collect();
        std::fs::write(dir.join(&name), vec![b'x'; bytes]).expect("write");
        // One second apart, so the oldest is known.
        std::thread::sleep(std::time::Duration::from_millis(1100));
        name
    };
    let old = stored('a', 300);
    let new = stored('b', 200);
    std::fs::write(dir.join("notes.txt"), "mine").expect("write");
    #[cfg(unix)]
    std::os::unix::fs::symlink(dir.join("notes.txt"), dir.join("c".repeat(64))).expect("symlink");
    let cache = |args: &[&str]| {
        let output = offlux()
            .arg("cache")
            .args(args)
            .env("XDG_CACHE_HOME", home.path())
            .env("NO_COLOR", "1")
            .output()
            .expect("runs");
        assert_eq!(output.status.code(), Some(0), "{output:?}");
        (
            String::from_utf8_lossy(&output.stdout).into_owned(),
            String::from_utf8_lossy(&output.stderr).into_owned(),
        )
    };
    let (listed, _) = cache(&["list", "-o", "json"]);
    let listed: serde_json::Value = serde_json::from_str(&listed).expect("json");
    let digests: Vec<&str> = listed["archives"]
        .as_array()
        .expect("archives")
        .iter()
        .filter_map(|a| a["digest"].as_str())
        .collect();
    assert_eq!(digests, [format!("sha256:{old}"), format!("sha256:{new}")]);
    let (table, _) = cache(&["list"]);
    assert!(table.contains("2 archives, 500 bytes"), "{table}");

    let (_, said) = cache(&["gc", "--max-size", "250"]);
    assert!(
        said.contains("Removed 1 archives (300 bytes); 200 bytes kept"),
        "{said}"
    );
    assert!(!dir.join(&old).exists() && dir.join(&new).exists());

    let (_, said) = cache(&["clear"]);
    assert!(said.contains("Removed 1 archives"), "{said}");
    assert!(!dir.join(&new).exists());
    assert!(dir.join("notes.txt").exists(), "not offlux's: kept");
    #[cfg(unix)]
    assert!(
        std::fs::symlink_metadata(dir.join("c".repeat(64))).is_ok(),
        "a symlink: kept"
    );
}
