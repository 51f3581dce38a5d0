//! A small Flux repository under git, built in a directory for tests that run tools against a
//! whole repository (pre-commit, the GitHub Action's script).

use std::path::{Path, PathBuf};
use std::process::Command;

pub fn git(repo: &Path, args: &[&str]) {
    let status = Command::new("git")
        .arg("-C")
        .arg(repo)
        .args([
            "-c",
            "user.name=offlux",
            "-c",
            "user.email=offlux@example.invalid",
        ])
        .args(args)
        .output()
        .expect("git runs");
    assert!(
        status.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&status.stderr)
    );
}

const SYNC: &str = "\
apiVersion: source.toolkit.fluxcd.io/v1
kind: GitRepository
metadata:
  name: flux-system
  namespace: flux-system
spec:
  interval: 10m
  url: https://example.invalid/fleet.git
  ref:
    branch: main
---
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: flux-system
  namespace: flux-system
spec:
  interval: 10m
  path: ./clusters/dev
  prune: true
  sourceRef:
    kind: GitRepository
    name: flux-system
";

/// A Kustomization `apps` applying `./apps` from the bootstrap source.
pub const APPS: &str = "\
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: apps
  namespace: flux-system
spec:
  interval: 10m
  path: ./apps
  prune: true
  sourceRef:
    kind: GitRepository
    name: flux-system
";

/// A small Flux repository under git: the bootstrap sync, and an `apps` Kustomization whose
/// `spec.path` is `apps_path`.
pub fn fixture(dir: &Path, apps_path: &str) -> PathBuf {
    let repo = dir.join("fleet");
    let write = |path: &str, text: &str| {
        let file = repo.join(path);
        std::fs::create_dir_all(file.parent().expect("a parent")).expect("mkdir");
        std::fs::write(file, text).expect("write");
    };
    write("clusters/dev/flux-system/gotk-sync.yaml", SYNC);
    write(
        "clusters/dev/apps.yaml",
        &APPS.replace("path: ./apps", &format!("path: {apps_path}")),
    );
    write(
        "apps/kustomization.yaml",
        "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n- config.yaml\n",
    );
    write(
        "apps/config.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: default\ndata:\n  mode: dev\n",
    );
    git(&repo, &["init", "--quiet", "--initial-branch=main"]);
    git(&repo, &["add", "."]);
    git(&repo, &["commit", "--quiet", "-m", "fixture"]);
    repo
}
