//! The render cache (issue 40): a rendered release is kept under the download cache's `renders/`
//! and read back for the same inputs by the same build; a change of input is a new entry;
//! `--no-cache` neither reads nor writes it.

use std::path::Path;

use crate::common::offlux_cli::offlux;

fn write(root: &Path, file: &str, text: &str) {
    let path = root.join(file);
    std::fs::create_dir_all(path.parent().unwrap_or(root)).expect("mkdir");
    std::fs::write(path, text).expect("write");
}

fn fixture(root: &Path, replicas: u32) {
    write(
        root,
        "charts/app/Chart.yaml",
        "apiVersion: v2\nname: app\nversion: 1.0.0\n",
    );
    write(
        root,
        "charts/app/templates/cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: rendered-{{ .Values.replicas }}\n",
    );
    write(
        root,
        "clusters/dev/app.yaml",
        &format!(
            "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {{name: app, namespace: flux-system}}\nspec:\n  interval: 10m\n  chart:\n    spec:\n      chart: ./charts/app\n      sourceRef: {{kind: GitRepository, name: flux-system}}\n  values: {{replicas: {replicas}}}\n"
        ),
    );
}

/// `offlux VERB… EXTRA…` on the fixture's cluster, with the cache under `root`.
fn run_in(root: &Path, verb: &[&str], extra: &[&str]) -> std::process::Output {
    offlux()
        .env("XDG_CACHE_HOME", root.join(".cache"))
        .args(verb)
        .arg("--path")
        .arg(root.join("clusters/dev"))
        .arg("--root")
        .arg(root)
        .args(extra)
        .output()
        .expect("runs")
}

fn build(root: &Path, extra: &[&str]) -> String {
    let output = run_in(root, &["build", "hr", "app"], extra);
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn entries(root: &Path) -> Vec<std::path::PathBuf> {
    let dir = root.join(".cache/offlux/charts/renders");
    let mut found: Vec<_> = std::fs::read_dir(dir)
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    found.sort();
    found
}

#[test]
fn a_render_is_read_back_for_the_same_inputs_only() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    fixture(root, 1);
    assert!(build(root, &[]).contains("name: rendered-1"));
    let kept = entries(root);
    assert_eq!(kept.len(), 1, "one release, one entry");

    // The entry is what the next run reads: changed by hand, the change shows (so a hit it is).
    let text = std::fs::read_to_string(&kept[0]).expect("read");
    std::fs::write(&kept[0], text.replace("rendered-1", "from-the-cache")).expect("write");
    assert!(build(root, &[]).contains("name: from-the-cache"));
    // `--no-cache` renders afresh and keeps nothing new.
    assert!(build(root, &["--no-cache"]).contains("name: rendered-1"));
    assert_eq!(entries(root).len(), 1);

    // Other values: another key, a render of its own.
    fixture(root, 2);
    assert!(build(root, &[]).contains("name: rendered-2"));
    assert_eq!(entries(root).len(), 2);
    // A changed template too.
    write(
        root,
        "charts/app/templates/cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: changed-{{ .Values.replicas }}\n",
    );
    assert!(build(root, &[]).contains("name: changed-2"));
    assert_eq!(entries(root).len(), 3);

    // An entry that does not read is a miss, rendered again.
    std::fs::write(&kept[0], "not json").expect("write");
    fixture(root, 1);
    write(
        root,
        "charts/app/templates/cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: rendered-{{ .Values.replicas }}\n",
    );
    assert!(build(root, &[]).contains("name: rendered-1"));

    // `offlux cache` counts them and clears them.
    let cache = |args: &[&str]| {
        offlux()
            .env("XDG_CACHE_HOME", root.join(".cache"))
            .args(args)
            .output()
            .expect("runs")
    };
    let listed = cache(&["cache", "list"]);
    let listed = String::from_utf8_lossy(&listed.stdout);
    assert!(listed.contains("3 rendered releases"), "{listed}");
    assert_eq!(cache(&["cache", "clear"]).status.code(), Some(0));
    assert!(entries(root).is_empty());
}

/// A release read back from the cache charges the run's budget what rendering it did: a run with
/// a budget too small for the render stops as it does with `--no-cache`, whatever an earlier run
/// with a larger budget kept. One with room for it passes on the entry.
#[test]
fn a_render_read_back_charges_the_budget_its_render_did() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    fixture(root, 1);
    // About 2 000 template steps.
    write(
        root,
        "charts/app/templates/cm.yaml",
        "{{- range until 500 }}{{ $x := . }}{{- end }}\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: rendered-{{ .Values.replicas }}\n",
    );
    let run = |extra: &[&str]| {
        let output = run_in(root, &["test"], extra);
        let all = format!(
            "{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        (output.status.code(), all)
    };
    let (code, all) = run(&["--max-template-steps", "100000"]);
    assert_eq!(code, Some(0), "{all}");
    assert_eq!(entries(root).len(), 1);
    let over = "template execution steps exceed the limit of 100";
    let (fresh_code, fresh) = run(&["--max-template-steps", "100", "--no-cache"]);
    assert_eq!(fresh_code, Some(1), "{fresh}");
    assert!(fresh.contains(over), "{fresh}");
    let (code, all) = run(&["--max-template-steps", "100"]);
    assert_eq!((code, all), (fresh_code, fresh));
    // Room for it: the entry is read back (changed by hand, the change shows).
    let kept = &entries(root)[0];
    let text = std::fs::read_to_string(kept).expect("read");
    std::fs::write(kept, text.replace("rendered-1", "from-the-cache")).expect("write");
    let built = build(root, &["--max-template-steps", "100000"]);
    assert!(built.contains("name: from-the-cache"), "{built}");
    // An entry that does not say what its render charged is a miss.
    let (_, rendered) = text.split_once('\n').expect("two parts");
    std::fs::write(kept, rendered.replace("rendered-1", "from-the-cache")).expect("write");
    let built = build(root, &["--max-template-steps", "100000"]);
    assert!(built.contains("name: rendered-1"), "{built}");

    // The run's own budget (objects rendered over the run), charged by a render read back too.
    write(
        root,
        "charts/app/templates/cm.yaml",
        "{{- range until 30 }}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-{{ . }}\n{{- end }}\n",
    );
    let (code, all) = run(&["--max-rendered-objects", "1000"]);
    assert_eq!(code, Some(0), "{all}");
    let over = "rendered objects exceed the limit of 10";
    let (fresh_code, fresh) = run(&["--max-rendered-objects", "10", "--no-cache"]);
    assert!(fresh.contains(over), "{fresh}");
    let (code, all) = run(&["--max-rendered-objects", "10"]);
    assert_eq!((code, all), (fresh_code, fresh));
    let (code, all) = run(&["--max-rendered-objects", "1000"]);
    assert_eq!(code, Some(0), "{all}");
}

/// The values keys a chart does not read (OFX110) are kept with its render: a run that reads the
/// render back reports the same findings as one that renders, without reading the chart's
/// templates again.
#[test]
fn a_render_read_back_keeps_the_values_keys_its_chart_does_not_read() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    fixture(root, 1);
    let app = std::fs::read_to_string(root.join("clusters/dev/app.yaml")).expect("read");
    write(
        root,
        "clusters/dev/app.yaml",
        &app.replace("values: {replicas: 1}", "values: {replicas: 1, unused: x}"),
    );
    let validate = |extra: &[&str]| {
        let output = run_in(root, &["validate", "-o", "json"], extra);
        let findings: serde_json::Value =
            serde_json::from_slice(&output.stdout).expect("a JSON list");
        let unread: Vec<String> = (findings.as_array().expect("a list").iter())
            .filter(|f| f["code"] == "OFX110")
            .map(|f| format!("{} {}", f["path"], f["message"]))
            .collect();
        unread
    };
    let fresh = validate(&["--no-cache"]);
    assert_eq!(fresh.len(), 1, "{fresh:?}");
    assert!(
        fresh[0].starts_with("\"$.spec.values.unused\""),
        "{fresh:?}"
    );
    assert!(entries(root).is_empty());
    assert_eq!(validate(&[]), fresh, "rendered and kept");
    let kept = entries(root);
    assert_eq!(kept.len(), 1);
    // Read back (changed by hand, the change shows), with the same finding.
    let text = std::fs::read_to_string(&kept[0]).expect("read");
    std::fs::write(&kept[0], text.replace("\"unused\"", "\"other\"")).expect("write");
    let read_back = validate(&[]);
    assert_eq!(read_back.len(), 1, "{read_back:?}");
    assert!(read_back[0].contains("other"), "{read_back:?}");
}
