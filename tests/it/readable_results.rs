//! Results a person reads: `test` ends with a summary naming what failed and why, the objects one
//! cause blocks counted on one line; `--failures-only` lists only what failed; `validate` counts
//! the Flux objects whose output it could not check, and says each cause once on stderr.

use std::path::Path;

use crate::common::offlux_cli::offlux;

/// A Kustomization whose path is missing (FAIL) and three that depend on it (BLOCKED, one cause),
/// and one that passes.
fn broken_repository(root: &Path) {
    let ks = |name: &str, path: &str, depends: &str| {
        format!(
            "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {{name: {name}, namespace: flux-system}}\nspec:\n  path: {path}\n{depends}  sourceRef: {{kind: GitRepository, name: flux-system}}\n"
        )
    };
    let after = "  dependsOn: [{name: app}]\n";
    let text = [
        ks("app", "./missing", ""),
        ks("after-a", "./sub", after),
        ks("after-b", "./sub", after),
        ks("after-c", "./sub", after),
        ks("fine", "./sub", ""),
    ]
    .join("---\n");
    std::fs::write(root.join("ks.yaml"), text).expect("write");
    std::fs::create_dir_all(root.join("sub")).expect("mkdir");
}

fn run(root: &Path, args: &[&str]) -> (Option<i32>, String, String) {
    let output = offlux()
        .args(args)
        .arg("--path")
        .arg(root)
        .output()
        .expect("runs");
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn the_summary_names_what_failed_and_counts_what_one_cause_blocks() {
    let dir = tempfile::tempdir().expect("tempdir");
    broken_repository(dir.path());
    let (code, stdout, stderr) = run(dir.path(), &["test"]);
    assert_eq!(code, Some(1), "{stderr}");
    let summary = stdout
        .split_once("5 objects: 1 passed, 1 failed, 3 blocked, 0 skipped\n")
        .map(|(_, after)| after)
        .unwrap_or_else(|| panic!("{stdout}"));
    assert_eq!(
        summary,
        "failed:\n  Kustomization/flux-system/app (ks.yaml:1): kustomization path not found: ./missing\n\
         blocked, by cause:\n  3  blocked by Kustomization/flux-system/app: kustomization path not found: ./missing\n"
    );
    assert!(
        stdout.contains("PASS     Kustomization  flux-system/fine"),
        "{stdout}"
    );
}

/// Two Kustomizations that fail alike (the same missing path) are one line of the summary, and
/// what each blocks is counted under that one cause, not once per failed object.
#[test]
fn objects_that_fail_alike_are_one_cause() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    let ks = |name: &str, path: &str, depends: &str| {
        format!(
            "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {{name: {name}, namespace: flux-system}}\nspec:\n  path: {path}\n{depends}  sourceRef: {{kind: GitRepository, name: flux-system}}\n"
        )
    };
    let text = [
        ks("one", "./missing", ""),
        ks("two", "./missing", ""),
        ks("after-one", "./sub", "  dependsOn: [{name: one}]\n"),
        ks("after-two", "./sub", "  dependsOn: [{name: two}]\n"),
    ]
    .join("---\n");
    std::fs::write(root.join("ks.yaml"), text).expect("write");
    std::fs::create_dir_all(root.join("sub")).expect("mkdir");
    let (code, stdout, stderr) = run(root, &["test"]);
    assert_eq!(code, Some(1), "{stderr}");
    let summary = stdout
        .split_once("4 objects: 0 passed, 2 failed, 2 blocked, 0 skipped\n")
        .map(|(_, after)| after)
        .unwrap_or_else(|| panic!("{stdout}"));
    assert_eq!(
        summary,
        "failed:\n  2 objects: kustomization path not found: ./missing \
         (Kustomization/flux-system/one (ks.yaml:1), Kustomization/flux-system/two (ks.yaml:8))\n\
         blocked, by cause:\n  2  blocked by 2 objects with this cause (Kustomization/flux-system/one \
         and 1 more): kustomization path not found: ./missing\n"
    );
}

#[test]
fn failures_only_lists_the_failed_and_blocked_rows_and_counts_them_all() {
    let dir = tempfile::tempdir().expect("tempdir");
    broken_repository(dir.path());
    for flag in ["--failures-only", "-q"] {
        let (code, stdout, _) = run(dir.path(), &["test", flag]);
        assert_eq!(code, Some(1));
        let rows: Vec<&str> = stdout.lines().skip(1).take(4).collect();
        assert!(
            rows.iter()
                .all(|r| r.starts_with("FAIL") || r.starts_with("BLOCKED")),
            "{stdout}"
        );
        assert!(!stdout.contains("PASS"), "{stdout}");
        assert!(
            stdout.contains("5 objects: 1 passed, 1 failed, 3 blocked, 0 skipped\n"),
            "{stdout}"
        );
        let (_, json, _) = run(dir.path(), &["test", flag, "-o", "json"]);
        let rows: serde_json::Value = serde_json::from_str(&json).expect("JSON");
        assert_eq!(rows.as_array().map(Vec::len), Some(4), "{json}");
    }
}

#[test]
fn a_clean_run_ends_with_its_count() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/example");
    let (code, stdout, _) = run(
        &root.join("clusters/dev"),
        &["test", "--root", &root.display().to_string()],
    );
    assert_eq!(code, Some(0));
    assert!(
        stdout.ends_with("5 objects: 5 passed, 0 failed, 0 blocked, 0 skipped\n"),
        "{stdout}"
    );
}

#[test]
fn validate_counts_what_it_could_not_check_and_says_each_cause_once() {
    let dir = tempfile::tempdir().expect("tempdir");
    broken_repository(dir.path());
    let (code, stdout, stderr) = run(dir.path(), &["validate"]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stdout.ends_with(
            "; 4 Flux objects failed or are blocked (listed above): what they apply was not checked\n"
        ),
        "{stdout}"
    );
    // They are errors, counted as every other format counts them.
    assert!(stdout.contains(": 4 errors, "), "{stdout}");
    let errors: Vec<&str> = stderr.lines().filter(|l| l.starts_with("error:")).collect();
    assert_eq!(
        errors,
        [
            "error: Kustomization/flux-system/app: kustomization path not found: ./missing",
            "error: 3 Flux objects blocked by Kustomization/flux-system/app: kustomization path not found: ./missing \
             (Kustomization/flux-system/after-a, Kustomization/flux-system/after-b, Kustomization/flux-system/after-c)",
        ],
        "{stderr}"
    );
}

/// A chart of the repository that fails in a template: `validate`'s finding for the HelmRelease
/// is at the template's file and line (for an annotation there), the innermost one when an
/// `include` failed; the message stays Go's, naming the whole chain.
#[test]
fn a_failing_template_of_a_local_chart_is_reported_at_its_line() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    let write = |file: &str, text: &str| {
        let path = root.join(file);
        std::fs::create_dir_all(path.parent().unwrap_or(root)).expect("mkdir");
        std::fs::write(path, text).expect("write");
    };
    write(
        "chart/Chart.yaml",
        "apiVersion: v2\nname: demo\nversion: 1.0.0\n",
    );
    write(
        "chart/templates/_helpers.tpl",
        "{{- define \"demo.name\" -}}\n{{- required \"name is required\" .Values.name -}}\n{{- end -}}\n",
    );
    write(
        "chart/templates/cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ include \"demo.name\" . }}\n",
    );
    write(
        "release.yaml",
        "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {name: demo, namespace: default}\nspec:\n  chart:\n    spec:\n      chart: ./chart\n      sourceRef: {kind: GitRepository, name: flux-system, namespace: flux-system}\n",
    );
    let (code, stdout, _) = run(root, &["validate", "-o", "json"]);
    assert_eq!(code, Some(1));
    let findings: serde_json::Value = serde_json::from_str(&stdout).expect("JSON");
    let finding = &findings[0];
    assert_eq!(finding["code"], "OFX100");
    assert_eq!(finding["object"], "HelmRelease/default/demo");
    assert_eq!(finding["file"], "chart/templates/_helpers.tpl");
    assert_eq!(finding["line"], 2);
    let message = finding["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("demo/templates/cm.yaml:4:11") && message.contains("name is required"),
        "{message}"
    );
    // A report file is what `-o` of its format prints, the human output on stdout or not.
    let report = root.join("findings.json");
    let (code, human, _) = run(
        root,
        &["validate", "--report-json", &report.display().to_string()],
    );
    assert_eq!(code, Some(1));
    assert!(human.contains(": 1 error, "), "{human}");
    let written: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).expect("the report")).expect("JSON");
    assert_eq!(written, findings);
    // Fixed, the release renders and nothing is left to report.
    write(
        "chart/templates/_helpers.tpl",
        "{{- define \"demo.name\" -}}x{{- end -}}\n",
    );
    let (code, _, _) = run(root, &["validate", "-o", "json"]);
    assert_eq!(code, Some(0));
}
