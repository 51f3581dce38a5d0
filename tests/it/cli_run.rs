//! `offlux test`, `build` and `render` on the example repository and on small broken ones.

use std::path::{Path, PathBuf};

use crate::common::offlux_cli;

use offlux_cli::offlux;

fn example() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/example")
}

fn on_example(args: &[&str]) -> std::process::Output {
    offlux_cli::on_repository(&example(), args)
}

#[test]
fn test_reports_every_flux_object() {
    let output = on_example(&["test"]);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains("PASS    Kustomization  flux-system/apps"),
        "{stdout}"
    );
    assert!(
        stdout.contains("PASS    HelmRelease    hello/hello"),
        "{stdout}"
    );
    assert!(
        stdout.ends_with("5 objects: 5 passed, 0 failed, 0 blocked, 0 skipped\n"),
        "{stdout}"
    );
}

#[test]
fn test_junit_and_json() {
    let output = on_example(&["test", "-o", "junit"]);
    let xml = String::from_utf8_lossy(&output.stdout);
    assert!(xml.starts_with("<?xml"), "{xml}");
    assert!(
        xml.contains("<testsuite name=\"offlux\" tests=\"5\" failures=\"0\" skipped=\"0\">"),
        "{xml}"
    );
    assert!(xml.contains("<testcase classname=\"Kustomization\" name=\"flux-system/apps\" file=\"clusters/dev/apps.yaml\"/>"), "{xml}");
    let output = on_example(&["test", "ks", "-o", "json"]);
    let rows: serde_json::Value = serde_json::from_slice(&output.stdout).expect("json");
    assert_eq!(rows.as_array().map(Vec::len), Some(3));
    assert_eq!(rows[0]["result"], "PASS");
}

#[test]
fn build_shows_patches_substitutions_and_owner_labels() {
    let output = on_example(&["build", "ks", "apps"]);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let yaml = String::from_utf8_lossy(&output.stdout);
    assert!(yaml.contains("greeting: hello from dev"), "{yaml}");
    assert!(yaml.contains("host: hello.dev.example.com"), "{yaml}");
    assert!(yaml.contains("replicas: 2"), "{yaml}");
    assert!(
        yaml.contains("kustomize.toolkit.fluxcd.io/name: apps"),
        "{yaml}"
    );
    let output = on_example(&["build", "ks", "nope"]);
    assert_eq!(output.status.code(), Some(2));
    // Without a name, every Kustomization of flux-system (as flux-local builds them).
    let output = on_example(&["build", "ks"]);
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(output.stdout, on_example(&["build", "all"]).stdout);
}

#[test]
fn render_is_identical_at_every_concurrency() {
    let one = on_example(&["render", "--concurrency", "1"]);
    let eight = on_example(&["render", "--concurrency", "8"]);
    assert_eq!(one.status.code(), Some(0));
    assert!(!one.stdout.is_empty());
    assert_eq!(one.stdout, eight.stdout);
}

#[test]
fn render_out_writes_one_file_per_producer_and_removes_stale_ones() {
    let out = tempfile::tempdir().expect("tempdir");
    let dir = out.path().join("rendered");
    // What an earlier run wrote, for a producer that no longer exists: listed in the manifest.
    std::fs::create_dir_all(dir.join("Kustomization/flux-system")).expect("mkdir");
    std::fs::write(dir.join("Kustomization/flux-system/gone.yaml"), "stale").expect("write");
    std::fs::write(
        dir.join(".offlux-manifest"),
        "# written by offlux\nKustomization/flux-system/gone.yaml\n",
    )
    .expect("write");
    std::fs::write(dir.join("NOTES.md"), "mine").expect("write");
    let root = example();
    let output = offlux()
        .args(["render", "--out"])
        .arg(&dir)
        .arg("--path")
        .arg(root.join("clusters/dev"))
        .arg("--root")
        .arg(&root)
        .output()
        .expect("runs");
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(output.stdout.is_empty());
    let apps = std::fs::read_to_string(dir.join("Kustomization/flux-system/apps.yaml"))
        .expect("apps rendered");
    assert!(apps.contains("kind: HelmRelease"), "{apps}");
    assert!(dir
        .join("Kustomization/flux-system/infrastructure.yaml")
        .is_file());
    assert!(
        !dir.join("Kustomization/flux-system/gone.yaml").exists(),
        "stale producer file removed"
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("NOTES.md")).expect("kept"),
        "mine"
    );
    let leftovers: Vec<_> = std::fs::read_dir(out.path())
        .expect("read")
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert_eq!(
        leftovers.len(),
        1,
        "no staging directory left behind: {leftovers:?}"
    );
}

#[test]
fn failures_and_blocked_objects_exit_1_with_github_annotations() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    std::fs::write(
        root.join("ks.yaml"),
        "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: app, namespace: flux-system}\nspec:\n  path: ./missing\n  sourceRef: {kind: GitRepository, name: flux-system}\n---\napiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: after, namespace: flux-system}\nspec:\n  path: ./sub\n  dependsOn: [{name: app}]\n  sourceRef: {kind: GitRepository, name: flux-system}\n",
    )
    .expect("write");
    std::fs::create_dir_all(root.join("sub")).expect("mkdir");
    let output = offlux()
        .args(["test", "-o", "github", "--path"])
        .arg(root)
        .output()
        .expect("runs");
    assert_eq!(output.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("::error file=ks.yaml,line=1,title=FAIL Kustomization flux-system/app::kustomization path not found: ./missing"), "{stdout}");
    assert!(stdout.contains("title=BLOCKED Kustomization flux-system/after::blocked by Kustomization/flux-system/app: kustomization path not found: ./missing"), "{stdout}");
}

#[test]
fn values_only_the_cluster_holds_come_from_the_command_line() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    std::fs::create_dir_all(root.join("entry")).expect("mkdir");
    std::fs::create_dir_all(root.join("app")).expect("mkdir");
    std::fs::write(
        root.join("entry/ks.yaml"),
        "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: app, namespace: flux-system}\nspec:\n  path: ./app\n  sourceRef: {kind: GitRepository, name: flux-system}\n  postBuild:\n    substituteFrom:\n      - {kind: ConfigMap, name: cluster-only}\n",
    )
    .expect("write");
    std::fs::write(root.join("app/cm.yaml"), "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x, namespace: default}\ndata:\n  a: ${A}\n  b: ${B}\n").expect("write");
    let values = root.join("values.yaml");
    std::fs::write(&values, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cluster-only, namespace: flux-system}\ndata:\n  A: from-file\n").expect("write");
    let run = |extra: &[&str]| {
        offlux()
            .args(["build", "ks", "app", "--path"])
            .arg(root.join("entry"))
            .arg("--root")
            .arg(root)
            .args(extra)
            .output()
            .expect("runs")
    };
    let missing = run(&[]);
    assert_eq!(missing.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&missing.stderr)
        .contains("substitute from 'ConfigMap/cluster-only' error"));
    let supplied = run(&[
        "--substitute-from",
        values.to_str().unwrap_or_default(),
        "--substitute",
        "B=from-flag",
    ]);
    assert_eq!(
        supplied.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&supplied.stderr)
    );
    let yaml = String::from_utf8_lossy(&supplied.stdout);
    assert!(
        yaml.contains("a: from-file") && yaml.contains("b: from-flag"),
        "{yaml}"
    );
}

#[test]
fn build_hr_renders_the_chart_with_composed_values_and_flux_labels() {
    let output = on_example(&["build", "hr", "hello"]);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    // Values from the chart defaults, the HelmRelease and the parent's substitution all arrive.
    assert!(stdout.contains("value: hello from dev"), "{stdout}");
    assert!(stdout.contains("host: hello.dev.example.com"), "{stdout}");
    assert!(stdout.contains("replicas: 2"), "{stdout}");
    assert!(
        stdout.contains("helm.toolkit.fluxcd.io/name: hello"),
        "{stdout}"
    );
}

#[test]
fn validate_the_example_warns_and_speaks_sarif_and_github() {
    let output = on_example(&["validate"]);
    assert_eq!(output.status.code(), Some(0));
    let stdout = String::from_utf8_lossy(&output.stdout);
    // The one warning: flux-system's namespace, which bootstrap creates. (The `apps`
    // Kustomization's `${CLUSTER_ENV:=dev}` is substituted by flux-system's post-build.)
    assert!(stdout.ends_with("0 errors, 1 warning\n"), "{stdout}");
    assert!(stdout.contains("warning OFX106"), "{stdout}");

    let output = on_example(&["validate", "-o", "sarif"]);
    let log: serde_json::Value = serde_json::from_slice(&output.stdout).expect("sarif is json");
    assert_eq!(log["version"], "2.1.0");
    assert_eq!(log["runs"][0]["tool"]["driver"]["name"], "offlux");
    assert_eq!(log["runs"][0]["results"].as_array().map(Vec::len), Some(1));

    let output = on_example(&["validate", "-o", "github"]);
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(text.contains("::warning file=clusters/dev"), "{text}");
}

#[test]
fn validate_catches_seeded_defects_and_fails() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    let write = |file: &str, text: &str| {
        let path = root.join(file);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(path, text).expect("write");
    };
    write(
        "clusters/dev/flux.yaml",
        "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: flux-system\n  namespace: flux-system\nspec:\n  interval: 10m\n  prune: true\n  path: ./clusters/dev\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n---\napiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: a\n  namespace: flux-system\nspec:\n  interval: 10m\n  prune: true\n  path: ./a\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n---\napiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: b\n  namespace: flux-system\nspec:\n  interval: 10m\n  prune: true\n  path: ./b\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n",
    );
    write(
        "a/app.yaml",
        "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: apps\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: shared\n  namespace: apps\ndata:\n  from: a\n---\napiVersion: batch/v1beta1\nkind: CronJob\nmetadata:\n  name: nightly\n  namespace: apps\n---\napiVersion: v1\nkind: Service\nmetadata:\n  name: web\n---\napiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata:\n  name: web\n  namespace: apps\nspec:\n  rules:\n  - host: web.${DOMAIN}\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  namespace: apps\nspec:\n  replicas: two\n  selector:\n    matchLabels:\n      app: web\n  template:\n    metadata:\n      labels:\n        app: web\n    spec:\n      containers:\n      - name: web\n        image: nginx:1.27\n        imagePullPolicey: Always\n      volumes:\n      - name: config\n        configMap:\n          name: shared\n      - name: secret\n        secret:\n          secretName: web-secret\n",
    );
    write(
        "b/app.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: shared\n  namespace: apps\ndata:\n  from: b\n",
    );
    let output = offlux()
        .args(["validate", "-o", "json", "--path"])
        .arg(root)
        .output()
        .expect("runs");
    assert_eq!(
        output.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let findings: serde_json::Value = serde_json::from_slice(&output.stdout).expect("json");
    let mut seen: Vec<String> = findings
        .as_array()
        .expect("a list")
        .iter()
        .map(|f| format!("{} {} {}", f["code"], f["severity"], f["object"]).replace('"', ""))
        .collect();
    seen.sort();
    // Findings point at the file and line each object (and, where the file shows it, each field)
    // was written at, not the Kustomization's path.
    let located: Vec<String> = findings
        .as_array()
        .expect("a list")
        .iter()
        .filter(|f| f["object"] == "Deployment/apps/web" || f["object"] == "ConfigMap/apps/shared")
        .map(|f| format!("{} {}:{}", f["code"], f["file"], f["line"]).replace('"', ""))
        .collect();
    assert_eq!(
        located,
        [
            "OFX101 a/app.yaml:6",
            "OFX107 a/app.yaml:40",
            "OFX107 a/app.yaml:52",
            "OFX109 a/app.yaml:59",
            "OFX101 b/app.yaml:1",
        ]
    );
    assert_eq!(
        seen,
        [
            "OFX101 error ConfigMap/apps/shared",
            "OFX101 error ConfigMap/apps/shared",
            "OFX102 error Service//web",
            "OFX103 warning Ingress/apps/web",
            "OFX104 error CronJob/apps/nightly",
            "OFX106 warning Kustomization/flux-system/flux-system",
            "OFX107 error Deployment/apps/web",
            "OFX107 error Deployment/apps/web",
            "OFX109 warning Deployment/apps/web",
        ]
    );

    // The repository's configuration changes severities and turns codes off.
    write(
        ".offlux.yaml",
        "validate:\n  severities:\n    OFX101: warning\n    OFX102: off\n    removed-api-version: off\n    OFX106: off\n    OFX107: warning\n",
    );
    let output = offlux()
        .args(["validate", "--path"])
        .arg(root)
        .output()
        .expect("runs");
    assert_eq!(output.status.code(), Some(0));
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(text.ends_with("0 errors, 6 warnings\n"), "{text}");
    // A misspelled field and a wrong type, each with its JSON path.
    assert!(
        text.contains("$.spec.template.spec.containers[0].imagePullPolicey: apps/v1 Deployment: field `imagePullPolicey` is not declared in the schema"),
        "{text}"
    );
    assert!(
        text.contains("$.spec.replicas: apps/v1 Deployment: \"two\" is not of type"),
        "{text}"
    );
    assert!(
        text.contains("$.spec.template.spec.volumes[1].secret.secretName: Deployment apps/web mounts Secret apps/web-secret"),
        "{text}"
    );
    write(
        ".offlux.yaml",
        "validate:\n  severities:\n    OFX999: off\n",
    );
    let output = offlux()
        .args(["validate", "--path"])
        .arg(root)
        .output()
        .expect("runs");
    // A configuration offlux cannot use is an input error, as with `offlux test --validate`.
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("unknown code `OFX999`"));
}

#[test]
fn test_with_validate_fails_on_an_error_finding() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    std::fs::create_dir_all(root.join("cluster")).expect("mkdir");
    std::fs::write(
        root.join("cluster/flux.yaml"),
        "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: flux-system\n  namespace: flux-system\nspec:\n  path: ./cluster\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n---\napiVersion: v1\nkind: Service\nmetadata:\n  name: web\n",
    )
    .expect("write");
    let plain = offlux()
        .args(["test", "--path"])
        .arg(root)
        .output()
        .expect("runs");
    assert_eq!(plain.status.code(), Some(0));
    let output = offlux()
        .args(["test", "--validate", "--path"])
        .arg(root)
        .output()
        .expect("runs");
    assert_eq!(output.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains("FAIL    Service        /web") && stdout.contains("OFX102"),
        "{stdout}"
    );
    assert!(String::from_utf8_lossy(&output.stderr)
        .contains("validate: 1 warning (`offlux validate` lists it)"));
}

#[test]
fn validate_reports_values_keys_no_template_reads() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/unused-values");
    let output = offlux()
        .args(["validate", "-o", "json", "--path"])
        .arg(root.join("clusters/dev"))
        .arg("--root")
        .arg(&root)
        .output()
        .expect("runs");
    assert_eq!(output.status.code(), Some(0));
    let findings: serde_json::Value = serde_json::from_slice(&output.stdout).expect("json");
    let unused: Vec<String> = findings
        .as_array()
        .expect("a list")
        .iter()
        .filter(|f| f["code"] == "OFX110")
        .map(|f| {
            format!(
                "{} {} {} {}:{} {} | {}",
                f["severity"],
                f["object"],
                f["producer"],
                f["file"],
                f["line"],
                f["path"],
                f["message"]
            )
            .replace('"', "")
        })
        .collect();
    assert_eq!(
        unused,
        [
            "warning HelmRelease/web/web Kustomization/flux-system/apps apps/release.yaml:21 $.spec.values.replicaCount | values key `replicaCount` is read by no template of chart web 1.2.3 (Helm ignores it)",
            "warning HelmRelease/web/web Kustomization/flux-system/apps apps/release.yaml:26 $.spec.values.ingress.hostss | values key `ingress.hostss` is read by no template of chart web 1.2.3 (Helm ignores it)",
        ]
    );
}

#[test]
fn validate_takes_crds_the_repository_does_not_install() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().join("repo");
    let crds = dir.path().join("crds");
    let write = |path: &Path, text: &str| {
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(path, text).expect("write");
    };
    write(
        &root.join("clusters/dev/flux.yaml"),
        "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: flux-system\n  namespace: flux-system\nspec:\n  interval: 10m\n  prune: true\n  path: ./clusters/dev\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n",
    );
    write(
        &root.join("clusters/dev/widget.yaml"),
        "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\n  namespace: flux-system\nspec:\n  size: 3\n  colour: red\n",
    );
    write(
        &crds.join("example/widgets.yaml"),
        "# not a CRD: passed over\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n---\napiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: widgets.example.com\nspec:\n  group: example.com\n  scope: Namespaced\n  names:\n    kind: Widget\n    plural: widgets\n  versions:\n  - name: v1\n    served: true\n    storage: true\n    schema:\n      openAPIV3Schema:\n        type: object\n        properties:\n          spec:\n            type: object\n            properties:\n              size:\n                type: integer\n",
    );
    let validate = |extra: &[&str]| {
        offlux()
            .args(["validate", "--path"])
            .arg(&root)
            .args(extra)
            .output()
            .expect("runs")
    };
    let output = validate(&[]);
    assert_eq!(output.status.code(), Some(0));
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(
        text.contains("warning OFX108 Widget/flux-system/w"),
        "{text}"
    );

    let output = validate(&["--strict-schemas"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&output.stdout).contains("error OFX108"));

    let output = validate(&["--crds", &crds.to_string_lossy()]);
    assert_eq!(output.status.code(), Some(1));
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(
        text.contains("error OFX107 Widget/flux-system/w (Kustomization/flux-system/flux-system) at clusters/dev/widget.yaml:8 $.spec.colour: example.com/v1 Widget: field `colour` is not declared in the schema"),
        "{text}"
    );

    let broken = dir.path().join("broken.yaml");
    write(&broken, "kind: CustomResourceDefinition\nspec: [unclosed\n");
    let output = validate(&["--crds", &broken.to_string_lossy()]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("broken.yaml:"), "{stderr}");

    let output = validate(&["--crds", "/nonexistent/crds"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("`--crds /nonexistent/crds`"));
    let output = offlux()
        .args(["test", "--crds", "x", "--path"])
        .arg(&root)
        .output()
        .expect("runs");
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("need `--validate`"));
}
