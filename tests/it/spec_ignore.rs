//! A GitRepository's `spec.ignore` shapes its artifact when the source is read from the working
//! tree or from a directory (mapped or fetched): source-controller's `reconcileArtifact` appends those patterns (domain: the root) after
//! every `.sourceignore`'s and archives with `SourceIgnoreFilter`, so the last matching pattern
//! decides, a `spec.ignore` one included (issue 34, item 4).

use std::path::Path;

use assert_cmd::Command;

fn write(root: &Path, file: &str, text: &str) {
    let path = root.join(file);
    std::fs::create_dir_all(path.parent().unwrap_or(root)).expect("mkdir");
    std::fs::write(path, text).expect("write");
}

fn build(root: &Path) -> (String, String) {
    let output = Command::cargo_bin("offlux")
        .expect("binary")
        .env("NO_COLOR", "1")
        .current_dir(root)
        .args([
            "build",
            "ks",
            "apps",
            "-n",
            "flux-system",
            "--path",
            "clusters/a",
        ])
        .args(["--root", "."])
        .output()
        .expect("runs");
    (
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// `apps/` has no kustomization.yaml, so kustomize-controller builds every YAML file the artifact
/// holds there: `spec.ignore` takes `apps/drafts/` out, and brings back `apps/legacy.yaml`, which
/// `.sourceignore` excludes (the `spec.ignore` patterns are judged last).
#[test]
fn spec_ignore_patterns_decide_after_sourceignore() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    write(
        root,
        "clusters/a/sync.yaml",
        "apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata: {name: flux-system, namespace: flux-system}\n\
         spec:\n  url: https://example.com/repo\n  ref: {branch: main}\n  ignore: |\n    # drafts are not deployed\n    /apps/drafts/\n    !/apps/legacy.yaml\n---\n\
         apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: apps, namespace: flux-system}\n\
         spec:\n  path: ./apps\n  sourceRef: {kind: GitRepository, name: flux-system}\n",
    );
    write(root, ".sourceignore", "/apps/legacy.yaml\n");
    let config_map = |name: &str| {
        format!("apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: {name}, namespace: default}}\n")
    };
    write(root, "apps/web.yaml", &config_map("web"));
    write(root, "apps/legacy.yaml", &config_map("legacy"));
    write(root, "apps/drafts/draft.yaml", &config_map("draft"));
    let (stdout, stderr) = build(root);
    assert!(stdout.contains("name: web"), "{stdout}\n{stderr}");
    assert!(stdout.contains("name: legacy"), "{stdout}\n{stderr}");
    assert!(!stdout.contains("name: draft"), "{stdout}\n{stderr}");

    // Without `spec.ignore`, the `.sourceignore` alone decides.
    let text = std::fs::read_to_string(root.join("clusters/a/sync.yaml")).expect("read");
    let without: String = text
        .lines()
        .filter(|l| !l.contains("ignore") && !l.contains("drafts") && !l.contains("legacy"))
        .map(|l| format!("{l}\n"))
        .collect();
    write(root, "clusters/a/sync.yaml", &without);
    let (stdout, stderr) = build(root);
    assert!(stdout.contains("name: draft"), "{stdout}\n{stderr}");
    assert!(!stdout.contains("name: legacy"), "{stdout}\n{stderr}");
}

/// A GitRepository mapped to a directory with `--sources NAME=DIR` (or fetched: a fetch is mapped
/// the same way) holds what source-controller archives of that checkout: less what its own
/// `.sourceignore` files exclude, then what its `spec.ignore` excludes.
#[test]
fn spec_ignore_applies_to_a_source_mapped_to_a_directory() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    write(
        root,
        "clusters/a/sync.yaml",
        "apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata: {name: platform, namespace: flux-system}\n\
         spec:\n  url: https://example.com/platform\n  ref: {branch: main}\n  ignore: /apps/drafts/\n---\n\
         apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: apps, namespace: flux-system}\n\
         spec:\n  path: ./apps\n  sourceRef: {kind: GitRepository, name: platform}\n",
    );
    let other = tempfile::tempdir().expect("tempdir");
    let config_map = |name: &str| {
        format!("apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: {name}, namespace: default}}\n")
    };
    write(other.path(), "apps/web.yaml", &config_map("web"));
    write(other.path(), "apps/drafts/draft.yaml", &config_map("draft"));
    write(other.path(), "apps/local.yaml", &config_map("local"));
    write(other.path(), "apps/.sourceignore", "local.yaml\n");
    let output = Command::cargo_bin("offlux")
        .expect("binary")
        .env("NO_COLOR", "1")
        .current_dir(root)
        .args([
            "build",
            "ks",
            "apps",
            "-n",
            "flux-system",
            "--path",
            "clusters/a",
        ])
        .args(["--root", "."])
        .arg(format!("--sources=platform={}", other.path().display()))
        .output()
        .expect("runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stdout.contains("name: web"), "{stdout}\n{stderr}");
    assert!(!stdout.contains("name: draft"), "{stdout}\n{stderr}");
    assert!(!stdout.contains("name: local"), "{stdout}\n{stderr}");
}
