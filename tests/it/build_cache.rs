//! The kustomize build cache (issue 40): a large build is kept under the download cache's
//! `builds/` with every question it asked of the file system, and read back only while each
//! question gets the answer it got. Each kind of input a build reads is changed in turn, and the
//! next run must show the change (a stale entry would show the old objects). An entry edited by
//! hand is how a test tells that a run read it back.

use std::path::{Path, PathBuf};

use crate::common::offlux_cli::offlux;

fn write(root: &Path, file: &str, text: &str) {
    let path = root.join(file);
    std::fs::create_dir_all(path.parent().unwrap_or(root)).expect("mkdir");
    std::fs::write(path, text).expect("write");
}

/// A Flux Kustomization `apps` building `apps/`: forty ConfigMaps from a file discovery parses
/// (in `base/`, a kustomization of its own), a patch file, a generator reading a text file, and
/// (on Unix) a resource through a symlink.
fn fixture(root: &Path) {
    write(
        root,
        "clusters/dev/apps.yaml",
        "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: apps, namespace: flux-system}\nspec:\n  interval: 10m\n  path: ./apps\n  prune: true\n  sourceRef: {kind: GitRepository, name: flux-system}\n",
    );
    let linked = if cfg!(unix) { "  - linked.yaml\n" } else { "" };
    write(
        root,
        "apps/kustomization.yaml",
        &format!(
            "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - base\n{linked}patches:\n  - path: patch.yaml\nconfigMapGenerator:\n  - name: generated\n    files:\n      - data/setting.txt\ngeneratorOptions:\n  disableNameSuffixHash: true\n"
        ),
    );
    let many: String = (0..40)
        .map(|i| format!("---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-{i:02}\n  namespace: apps\ndata:\n  value: value-{i:02}\n"))
        .collect();
    write(root, "apps/base/many.yaml", &many);
    write(
        root,
        "apps/base/kustomization.yaml",
        "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - many.yaml\n",
    );
    write(
        root,
        "apps/patch.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-00\n  namespace: apps\ndata:\n  patched: patched-1\n",
    );
    write(root, "apps/data/setting.txt", "setting-1");
    for target in ["a", "b"] {
        write(
            root,
            &format!("targets/{target}.yaml"),
            &format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: linked\n  namespace: apps\ndata:\n  from: target-{target}\n"),
        );
    }
    #[cfg(unix)]
    std::os::unix::fs::symlink("../targets/a.yaml", root.join("apps/linked.yaml"))
        .expect("symlink");
}

/// `offlux build ks apps` at `root`, with the cache under `cache`: what it printed, and whether
/// it succeeded.
fn build(root: &Path, cache: &Path, extra: &[&str]) -> (bool, String) {
    let output = offlux()
        .env("XDG_CACHE_HOME", cache)
        .args(["build", "ks", "apps", "--path"])
        .arg(root.join("clusters/dev"))
        .arg("--root")
        .arg(root)
        .args(extra)
        .output()
        .expect("runs");
    let printed = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    (output.status.success(), printed)
}

fn built(root: &Path, cache: &Path) -> String {
    let (ok, printed) = build(root, cache, &[]);
    assert!(ok, "{printed}");
    printed
}

fn entries(cache: &Path) -> Vec<PathBuf> {
    let dir = cache.join("offlux/charts/builds");
    let mut found: Vec<_> = std::fs::read_dir(dir)
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    found.sort();
    found
}

/// Rewrites `from` as `to` (the same length) in every entry: a run that then prints `to` read an
/// entry back.
fn tamper(cache: &Path, from: &str, to: &str) {
    assert_eq!(from.len(), to.len());
    for entry in entries(cache) {
        let bytes = std::fs::read(&entry).expect("read");
        let text = bytes
            .windows(from.len())
            .position(|w| w == from.as_bytes())
            .map(|at| [&bytes[..at], to.as_bytes(), &bytes[at + from.len()..]].concat());
        if let Some(text) = text {
            std::fs::write(&entry, text).expect("write");
        }
    }
}

#[test]
fn a_build_is_read_back_only_while_every_file_it_read_is_the_same() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (root, cache) = (dir.path().join("repo"), dir.path().join("cache"));
    fixture(&root);
    let first = built(&root, &cache);
    assert!(first.contains("value: value-07") && first.contains("patched: patched-1"));
    assert_eq!(entries(&cache).len(), 1, "one large build, one entry");

    // Read back: an entry changed by hand shows.
    tamper(&cache, "value-07", "VALUE-07");
    assert!(built(&root, &cache).contains("value: VALUE-07"));
    // `--no-cache` neither reads nor writes it.
    let (ok, fresh) = build(&root, &cache, &["--no-cache"]);
    assert!(ok && fresh.contains("value: value-07"), "{fresh}");
    assert_eq!(entries(&cache).len(), 1);

    // Each kind of input, changed in turn: the build is made again.
    // What is changed, how, and what the next build must show.
    type Step<'a> = (&'a str, Box<dyn Fn() + 'a>, &'a str);
    let steps: Vec<Step> = vec![
        (
            "a file discovery parsed",
            Box::new(|| {
                let many = std::fs::read_to_string(root.join("apps/base/many.yaml")).expect("read");
                write(
                    &root,
                    "apps/base/many.yaml",
                    &many.replace("value-39", "value-3x"),
                );
            }),
            "value: value-3x",
        ),
        (
            "a patch file",
            Box::new(|| {
                let patch = std::fs::read_to_string(root.join("apps/patch.yaml")).expect("read");
                write(
                    &root,
                    "apps/patch.yaml",
                    &patch.replace("patched-1", "patched-2"),
                );
            }),
            "patched: patched-2",
        ),
        (
            "a file a generator reads",
            Box::new(|| write(&root, "apps/data/setting.txt", "setting-2")),
            "setting.txt: setting-2",
        ),
        (
            "the Flux Kustomization's spec",
            Box::new(|| {
                let ks =
                    std::fs::read_to_string(root.join("clusters/dev/apps.yaml")).expect("read");
                write(
                    &root,
                    "clusters/dev/apps.yaml",
                    &ks.replace("  prune: true\n", "  prune: true\n  namePrefix: pre-\n"),
                );
            }),
            "name: pre-cm-07",
        ),
        (
            "the kustomization file",
            Box::new(|| {
                let k =
                    std::fs::read_to_string(root.join("apps/kustomization.yaml")).expect("read");
                write(
                    &root,
                    "apps/kustomization.yaml",
                    &k.replace("resources:\n", "commonLabels: {tier: two}\nresources:\n"),
                );
            }),
            "tier: two",
        ),
    ];
    for (what, change, shows) in &steps {
        // The entry the last run kept is tampered with: were it read back, the tamper would show.
        tamper(&cache, "value-07", "VALUE-07");
        change();
        let after = built(&root, &cache);
        assert!(after.contains(shows), "after a change to {what}: {after}");
        assert!(
            after.contains("value: value-07"),
            "after a change to {what}: {after}"
        );
    }

    // A symlink pointed elsewhere.
    #[cfg(unix)]
    {
        assert!(built(&root, &cache).contains("from: target-a"));
        tamper(&cache, "value-07", "VALUE-07");
        std::fs::remove_file(root.join("apps/linked.yaml")).expect("unlink");
        std::os::unix::fs::symlink("../targets/b.yaml", root.join("apps/linked.yaml"))
            .expect("symlink");
        let after = built(&root, &cache);
        assert!(
            after.contains("from: target-b") && after.contains("value: value-07"),
            "{after}"
        );
    }

    // A file appearing where the build looked: kustomize refuses two kustomization files.
    tamper(&cache, "value-07", "VALUE-07");
    write(&root, "apps/base/kustomization.yml", "resources: []\n");
    let (ok, printed) = build(&root, &cache, &[]);
    assert!(
        !ok && printed.contains("Found multiple kustomization files"),
        "{printed}"
    );
    // Gone again: every answer is the kept build's again, so it is read back (tamper and all).
    std::fs::remove_file(root.join("apps/base/kustomization.yml")).expect("rm");
    assert!(built(&root, &cache).contains("value: VALUE-07"));

    // A file the build reads deleted: the build fails as it does without the cache.
    tamper(&cache, "value-07", "VALUE-07");
    std::fs::remove_file(root.join("apps/data/setting.txt")).expect("rm");
    let (ok, printed) = build(&root, &cache, &[]);
    let (fresh_ok, fresh) = build(&root, &cache, &["--no-cache"]);
    assert!(!ok && !fresh_ok, "{printed}");
    assert!(
        printed.contains("setting.txt") && fresh.contains("setting.txt"),
        "{printed}"
    );

    // An entry that does not read is a miss, made again.
    write(&root, "apps/data/setting.txt", "setting-2");
    for entry in entries(&cache) {
        std::fs::write(&entry, b"offlux kustomize build 1\ncut short").expect("write");
    }
    assert!(built(&root, &cache).contains("value: value-07"));
}

/// Paths are kept relative to the repository root: the same files under another root (the base
/// of a diff is mounted at a new path in each run) read the same entry; a build whose objects
/// hold the root's path is not kept.
#[test]
fn a_build_is_shared_by_the_same_files_under_another_root_unless_it_holds_the_root() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cache = dir.path().join("cache");
    let (one, two) = (dir.path().join("one"), dir.path().join("two"));
    fixture(&one);
    fixture(&two);
    built(&one, &cache);
    assert_eq!(entries(&cache).len(), 1);
    tamper(&cache, "value-07", "VALUE-07");
    assert!(built(&two, &cache).contains("value: VALUE-07"));
    assert_eq!(entries(&cache).len(), 1);
    // Another root with a file that differs: a miss, whose build replaces the entry.
    write(&two, "apps/data/setting.txt", "setting-two");
    let after = built(&two, &cache);
    assert!(
        after.contains("setting-two") && after.contains("value: value-07"),
        "{after}"
    );

    let three = dir.path().join("three");
    fixture(&three);
    let root_text = three.to_str().expect("utf-8").to_owned();
    let many = std::fs::read_to_string(three.join("apps/base/many.yaml")).expect("read");
    write(
        &three,
        "apps/base/many.yaml",
        &many.replace("value: value-00", &format!("value: '{root_text}'")),
    );
    let kept = |cache: &Path| -> Vec<Vec<u8>> {
        (entries(cache).iter())
            .map(|e| std::fs::read(e).expect("read"))
            .collect()
    };
    let before = kept(&cache);
    assert!(built(&three, &cache).contains(&root_text));
    assert_eq!(
        kept(&cache),
        before,
        "a build holding its root's path is not kept"
    );
}

/// Two Flux Kustomizations `a` and `b` (forty ConfigMaps each) sharing one patch file whose
/// aliases expand to about 220 YAML nodes: a run parses the text once, whichever build reads it
/// first, and charges it once. Only `b` when `with_a` is false.
fn sharing_a_patch(root: &Path, with_a: bool) {
    let names: &[&str] = if with_a { &["a", "b"] } else { &["b"] };
    let _ = std::fs::remove_dir_all(root.join("clusters"));
    for name in names {
        write(
            root,
            &format!("clusters/dev/{name}.yaml"),
            &format!("apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {{name: {name}, namespace: flux-system}}\nspec:\n  interval: 10m\n  path: ./{name}\n  prune: true\n  sourceRef: {{kind: GitRepository, name: flux-system}}\n"),
        );
        write(
            root,
            &format!("{name}/kustomization.yaml"),
            &format!("apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - many.yaml\npatches:\n  - path: ../shared/patch.yaml\n    target: {{kind: ConfigMap, name: {name}-00}}\n"),
        );
        let many: String = (0..40)
            .map(|i| format!("---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}-{i:02}\n  namespace: apps\ndata:\n  value: value-{i:02}\n"))
            .collect();
        write(root, &format!("{name}/many.yaml"), &many);
    }
    write(
        root,
        "shared/patch.yaml",
        "- op: add\n  path: /extra\n  value:\n    l: &l [a, a, a, a, a, a, a, a, a, a]\n    m: [*l, *l, *l, *l, *l, *l, *l, *l, *l, *l]\n",
    );
}

/// A build read back charges the run's budget what building it would in that run: a patch text
/// it shares with another build is charged once per run, whichever build reads it first and
/// whatever the cache holds, so a limit stops a warm run exactly where it stops `--no-cache`.
#[test]
fn a_build_read_back_charges_a_shared_patch_once_per_run_as_building_does() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (root, cache) = (dir.path().join("repo"), dir.path().join("cache"));
    let test = |cache: &Path, extra: &[&str]| {
        let output = offlux()
            .env("XDG_CACHE_HOME", cache)
            .args(["test", "--concurrency", "1", "--path"])
            .arg(root.join("clusters/dev"))
            .arg("--root")
            .arg(&root)
            .args(extra)
            .output()
            .expect("runs");
        let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
        (output.status.code(), stdout)
    };
    let over = "exceed the limit of";
    // `b`'s entry is written in a run where `a` read the patch first (`a` is built first).
    sharing_a_patch(&root, true);
    assert_eq!(test(&cache, &[]).0, Some(0));
    assert_eq!(entries(&cache).len(), 2);
    // `a` gone: `b` read back must be charged the patch, as building `b` alone is.
    sharing_a_patch(&root, false);
    let fresh = test(&cache, &["--max-alias-nodes", "100", "--no-cache"]);
    assert!(fresh.1.contains(over), "{}", fresh.1);
    assert_eq!(test(&cache, &["--max-alias-nodes", "100"]), fresh);

    // `a`'s entry written alone, charged the patch; `b` back: the run still parses it once.
    let cache = dir.path().join("cache-two");
    let _ = std::fs::remove_dir_all(root.join("b"));
    sharing_a_patch(&root, true);
    std::fs::remove_file(root.join("clusters/dev/b.yaml")).expect("rm");
    assert_eq!(test(&cache, &[]).0, Some(0));
    sharing_a_patch(&root, true);
    let fresh = test(&cache, &["--max-alias-nodes", "300", "--no-cache"]);
    assert_eq!(fresh.0, Some(0), "{}", fresh.1);
    assert_eq!(test(&cache, &["--max-alias-nodes", "300"]), fresh);
}

/// A key keeps two builds, so the two sides of a diff whose change a build reads each find their
/// own (rather than replacing each other's on every run); a third replaces the one used least
/// lately.
#[test]
fn the_two_sides_of_a_change_keep_a_build_each() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (root, cache) = (dir.path().join("repo"), dir.path().join("cache"));
    fixture(&root);
    let with_setting = |setting: &str| {
        write(&root, "apps/data/setting.txt", setting);
        let printed = built(&root, &cache);
        assert!(printed.contains(setting), "{printed}");
        printed
    };
    with_setting("setting-1");
    with_setting("setting-2");
    assert_eq!(entries(&cache).len(), 2);
    tamper(&cache, "value-07", "VALUE-07");
    assert!(with_setting("setting-1").contains("value: VALUE-07"));
    assert!(with_setting("setting-2").contains("value: VALUE-07"));
    // A third: made, and kept in place of setting-1's, used before setting-2's.
    assert!(with_setting("setting-3").contains("value: value-07"));
    assert_eq!(entries(&cache).len(), 2);
    assert!(with_setting("setting-2").contains("value: VALUE-07"));
    assert!(with_setting("setting-1").contains("value: value-07"));
}
