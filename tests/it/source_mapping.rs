//! `--sources NAME=DIR` (flux-local's syntax), `KIND/NAMESPACE/NAME=DIR` and `.offlux.yaml`'s
//! `sources:` map a source to a local directory, read like the working tree. Issue 23, item 6.

use std::path::Path;

use assert_cmd::Command;

fn write(root: &Path, file: &str, text: &str) {
    let path = root.join(file);
    std::fs::create_dir_all(path.parent().unwrap_or(root)).expect("mkdir");
    std::fs::write(path, text).expect("write");
}

/// A repository whose `apps` Kustomization reads `./deploy` of another repository (`platform`,
/// an OCIRepository) and of an ExternalArtifact `bundle`; the other repository lies beside it.
fn fixture(root: &Path) {
    write(
        root,
        "repo/clusters/prod/sync.yaml",
        "apiVersion: source.toolkit.fluxcd.io/v1\nkind: OCIRepository\nmetadata: {name: platform, namespace: flux-system}\nspec:\n  url: oci://ghcr.io/example/platform\n  ref: {tag: latest}\n---\napiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: apps, namespace: flux-system}\nspec:\n  path: ./deploy\n  sourceRef: {kind: OCIRepository, name: platform}\n---\napiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: bundle, namespace: flux-system}\nspec:\n  path: ./\n  sourceRef: {kind: ExternalArtifact, name: bundle}\n",
    );
    write(
        root,
        "platform/deploy/cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: from-platform, namespace: default}\ndata: {a: '1'}\n",
    );
    write(
        root,
        "platform/outside.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: not-applied, namespace: default}\n",
    );
    write(
        root,
        "bundle/cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: from-bundle, namespace: default}\n",
    );
}

fn build(root: &Path, extra: &[&str]) -> std::process::Output {
    Command::cargo_bin("offlux")
        .expect("binary")
        .env("NO_COLOR", "1")
        .current_dir(root)
        .args([
            "build",
            "all",
            "--path",
            "repo/clusters/prod",
            "--root",
            "repo",
        ])
        .args(extra)
        .output()
        .expect("runs")
}

#[test]
fn sources_map_by_name_and_by_kind_namespace_name() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    fixture(root);
    let output = build(
        root,
        &[
            "--sources",
            "platform=platform,ExternalArtifact/flux-system/bundle=bundle",
        ],
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stdout}\n{stderr}");
    assert!(stdout.contains("name: from-platform"), "{stdout}");
    assert!(stdout.contains("name: from-bundle"), "{stdout}");
    assert!(!stdout.contains("not-applied"), "{stdout}");
}

#[test]
fn sources_come_from_the_repository_config_too() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    fixture(root);
    // The file is the repository's: it maps sources to directories inside it only.
    write(
        root,
        "repo/.offlux.yaml",
        "sources:\n  platform: ../platform\n",
    );
    let refused = build(root, &[]);
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("`sources.platform` must be a path inside the repository"),
        "{stderr}"
    );
    for (from, to) in [
        (
            "platform/deploy/cm.yaml",
            "repo/vendor/platform/deploy/cm.yaml",
        ),
        ("bundle/cm.yaml", "repo/vendor/bundle/cm.yaml"),
    ] {
        let text = std::fs::read_to_string(root.join(from)).expect("read");
        write(root, to, &text);
    }
    write(
        root,
        "repo/.offlux.yaml",
        "sources:\n  platform: vendor/platform\n  ExternalArtifact/flux-system/bundle: vendor/bundle\n",
    );
    let output = build(root, &[]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(stdout.contains("name: from-platform"), "{stdout}");
    assert!(stdout.contains("name: from-bundle"), "{stdout}");
}

#[test]
fn an_unmapped_remote_source_still_fails_and_a_bad_mapping_is_a_usage_error() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    fixture(root);
    let output = build(root, &[]);
    assert_ne!(output.status.code(), Some(0));
    let output = build(root, &["--sources", "flux-system/platform=platform"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("KIND/NAMESPACE/NAME"));
}

/// A name alone maps the source to the repository itself, as flux-local's `--sources NAME` does
/// (repositories whose sync source is created outside them, by a FluxInstance or the bootstrap).
#[test]
fn a_name_alone_is_the_repository_itself() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    fixture(root);
    write(
        root,
        "repo/deploy/cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: from-repo, namespace: default}\n",
    );
    let output = build(
        root,
        &["--sources", "platform", "--sources", "bundle=bundle"],
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(stdout.contains("name: from-repo"), "{stdout}");
    assert!(!stdout.contains("from-platform"), "{stdout}");
}
