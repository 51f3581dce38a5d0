//! Hostile repositories against what offlux writes and how it stops (issue 35): `diff` reads the
//! base revision in memory and writes nothing, whatever its tree holds; `render --out DIR` never
//! writes or removes through a symbolic link under DIR and refuses a DIR inside the repository
//! unless asked; SIGINT and SIGTERM end a `diff` with the signal's status and no comparison.
//! Every fixture is built at run time in a temporary directory.

#![allow(clippy::print_stderr, reason = "tests print what they skipped")]

use std::io::Write;
use std::path::Path;
use std::process::{Command as Process, Output, Stdio};
use std::time::{Duration, Instant};

use assert_cmd::cargo::CommandCargoExt;

fn offlux() -> Process {
    let mut command = Process::cargo_bin("offlux").unwrap_or_else(|e| panic!("{e}"));
    command.env("NO_COLOR", "1");
    command
}

fn write(root: &Path, relative: &str, text: &str) {
    let path = root.join(relative);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).unwrap_or_else(|e| panic!("{e}"));
    }
    std::fs::write(path, text).unwrap_or_else(|e| panic!("{e}"));
}

fn has_git() -> bool {
    let found = Process::new("git").arg("--version").output().is_ok();
    if !found {
        eprintln!("skipped: no `git` binary to make test repositories with");
    }
    found
}

fn git_with_input(dir: &Path, args: &[&str], input: Option<&[u8]>) -> String {
    let mut child = Process::new("git")
        .current_dir(dir)
        .args([
            "-c",
            "init.defaultBranch=main",
            "-c",
            "commit.gpgsign=false",
            "-c",
            "user.name=test",
            "-c",
            "user.email=test@example.com",
            "-c",
            "core.autocrlf=false",
        ])
        .args(args)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("git: {e}"));
    if let Some(mut stdin) = child.stdin.take() {
        stdin
            .write_all(input.unwrap_or_default())
            .unwrap_or_else(|e| panic!("{e}"));
    }
    let output = child.wait_with_output().unwrap_or_else(|e| panic!("{e}"));
    assert!(
        output.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).trim().to_owned()
}

fn git(dir: &Path, args: &[&str]) -> String {
    git_with_input(dir, args, None)
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn kustomization(name: &str, path: &str) -> String {
    format!(
        "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: {name}\n  namespace: flux-system\nspec:\n  interval: 10m\n  path: {path}\n  prune: true\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n"
    )
}

fn config_map(name: &str) -> String {
    format!(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n  namespace: default\ndata:\n  a: b\n"
    )
}

/// A git repository (in `outer/repo`) whose Kustomization `apps` applies one ConfigMap, committed.
fn flux_repository(repo: &Path) {
    write(
        repo,
        "clusters/dev/apps.yaml",
        &kustomization("apps", "./apps"),
    );
    write(repo, "apps/kustomization.yaml", "resources: [cm.yaml]\n");
    write(repo, "apps/cm.yaml", &config_map("settings"));
    git(repo, &["init", "-q"]);
    git(repo, &["add", "-A"]);
    git(repo, &["commit", "-q", "-m", "init"]);
}

/// A tree object written by hand (`git hash-object --literally` takes it as it is, as a
/// stranger's push would): entries `(mode, name, id)` in the order given.
fn raw_tree(repo: &Path, entries: &[(&str, &str, &str)]) -> String {
    let mut bytes = Vec::new();
    for (mode, name, id) in entries {
        bytes.extend_from_slice(format!("{mode} {name}\0").as_bytes());
        let raw: Vec<u8> = (0..id.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&id[i..i + 2], 16).unwrap_or_else(|e| panic!("{e}")))
            .collect();
        bytes.extend_from_slice(&raw);
    }
    git_with_input(
        repo,
        &["hash-object", "-t", "tree", "-w", "--literally", "--stdin"],
        Some(&bytes),
    )
}

fn blob(repo: &Path, text: &str) -> String {
    git_with_input(
        repo,
        &["hash-object", "-w", "--stdin"],
        Some(text.as_bytes()),
    )
}

/// The crafted base: the repository's own tree plus `sub/k -> ..` and
/// `d -> sub/k/sub/k/../../SENTINEL`, a chain whose text stays inside the tree (depth 3) but which
/// leads, resolved, two levels above the revision's root, where a revision written out under
/// `TMPDIR/<dir>` would have put `outer/SENTINEL`; with `duplicate`, also a tree named `d` holding
/// a file, which a checkout would write through the link.
fn crafted_base(repo: &Path, duplicate: bool) -> String {
    let head_tree = git(repo, &["rev-parse", "HEAD^{tree}"]);
    let listing = git(repo, &["ls-tree", &head_tree]);
    let k = blob(repo, "..");
    let sub = raw_tree(repo, &[("120000", "k", &k)]);
    let d_link = blob(repo, "sub/k/sub/k/../../SENTINEL");
    let planted = blob(repo, "planted by the base revision\n");
    let d_tree = raw_tree(repo, &[("100644", "planted.yaml", &planted)]);
    let mut entries: Vec<(String, String, String)> = listing
        .lines()
        .map(|line| {
            let (meta, name) = line.split_once('\t').unwrap_or_else(|| panic!("{line}"));
            let parts: Vec<&str> = meta.split(' ').collect();
            (parts[0].to_owned(), name.to_owned(), parts[2].to_owned())
        })
        .collect();
    entries.push(("120000".to_owned(), "d".to_owned(), d_link));
    if duplicate {
        entries.push(("40000".to_owned(), "d".to_owned(), d_tree));
    }
    entries.push(("40000".to_owned(), "sub".to_owned(), sub));
    let borrowed: Vec<(&str, &str, &str)> = entries
        .iter()
        .map(|(m, n, i)| (m.as_str(), n.as_str(), i.as_str()))
        .collect();
    let tree = raw_tree(repo, &borrowed);
    let head = git(repo, &["rev-parse", "HEAD"]);
    git(repo, &["commit-tree", &tree, "-p", &head, "-m", "crafted"])
}

fn empty(dir: &Path) -> bool {
    std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .next()
        .is_none()
}

fn diff_crafted(duplicate: bool) -> Option<(Output, tempfile::TempDir)> {
    if !has_git() {
        return None;
    }
    let outer = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let repo = outer.path().join("repo");
    let tmp = outer.path().join("tmp");
    for dir in [&repo, &tmp, &outer.path().join("SENTINEL")] {
        std::fs::create_dir_all(dir).unwrap_or_else(|e| panic!("{e}"));
    }
    flux_repository(&repo);
    let base = crafted_base(&repo, duplicate);
    let started = Instant::now();
    let output = offlux()
        .current_dir(&repo)
        .env("TMPDIR", &tmp)
        .args(["diff", "--base", &base])
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(started.elapsed() < Duration::from_secs(10));
    assert!(
        empty(&outer.path().join("SENTINEL")),
        "the base revision wrote outside"
    );
    assert!(empty(&tmp), "the base revision was written to disk");
    Some((output, outer))
}

#[test]
fn diff_reads_a_crafted_base_in_memory_and_writes_nothing() {
    let Some((output, _outer)) = diff_crafted(false) else {
        return;
    };
    // The link that leads out of the revision leads nowhere; the rest of the base is read, and
    // it renders what the head renders.
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("No differences"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn diff_refuses_a_base_with_two_entries_of_one_name() {
    let Some((output, _outer)) = diff_crafted(true) else {
        return;
    };
    let text = stderr(&output);
    assert_eq!(output.status.code(), Some(2), "{text}");
    assert!(text.contains("two entries named `d`"), "{text}");
    assert!(!text.contains("No differences"), "{text}");
    assert!(stdout(&output).is_empty(), "{}", stdout(&output));
}

// `render --out DIR`.

#[cfg(unix)]
#[test]
fn render_out_never_removes_or_writes_through_a_dot_named_link() {
    let outer = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let repo = outer.path().join("repo");
    write(&repo, ".git/HEAD", "ref: refs/heads/main\n");
    write(
        &repo,
        "clusters/dev/apps.yaml",
        &kustomization("apps", "./apps"),
    );
    write(&repo, "apps/kustomization.yaml", "resources: [cm.yaml]\n");
    write(&repo, "apps/cm.yaml", &config_map("settings"));
    let victim = outer.path().join("victim");
    write(&victim, "Kustomization/flux-system/apps.yaml", "victim's\n");
    write(&victim, "x/y/z.yaml", "victim's\n");
    let out = outer.path().join("out");
    std::fs::create_dir_all(&out).unwrap_or_else(|e| panic!("{e}"));
    std::os::unix::fs::symlink(&victim, out.join(".evil")).unwrap_or_else(|e| panic!("{e}"));
    // A manifest line through the hidden link, and one whose own file would be replaced.
    write(
        &out,
        ".offlux-manifest",
        "# Files written by `offlux render --out`\n.evil/x/z.yaml\n.evil/x/y/z.yaml\nx/y/z.yaml\n",
    );
    std::os::unix::fs::symlink(victim.join("x"), out.join("x")).unwrap_or_else(|e| panic!("{e}"));
    let output = offlux()
        .args(["render", "--path"])
        .arg(&repo)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    // `x` is a link where the layout has a directory: refused, nothing touched.
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(victim.join("x/y/z.yaml").is_file());
    // Without the visible link, the run writes its files and leaves the hidden one's target alone.
    std::fs::remove_file(out.join("x")).unwrap_or_else(|e| panic!("{e}"));
    let output = offlux()
        .args(["render", "--path"])
        .arg(&repo)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(victim.join("x/y/z.yaml").is_file());
    assert_eq!(
        std::fs::read_to_string(victim.join("Kustomization/flux-system/apps.yaml"))
            .unwrap_or_default(),
        "victim's\n"
    );
    assert!(out.join("Kustomization/flux-system/apps.yaml").is_file());
    let manifest = std::fs::read_to_string(out.join(".offlux-manifest")).unwrap_or_default();
    assert!(!manifest.contains(".evil"), "{manifest}");
    // A link put in place of a namespace directory offlux wrote before is not written through.
    std::fs::remove_dir_all(out.join("Kustomization/flux-system"))
        .unwrap_or_else(|e| panic!("{e}"));
    std::os::unix::fs::symlink(
        victim.join("Kustomization/flux-system"),
        out.join("Kustomization/flux-system"),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let output = offlux()
        .args(["render", "--path"])
        .arg(&repo)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("symbolic link"),
        "{}",
        stderr(&output)
    );
    assert_eq!(
        std::fs::read_to_string(victim.join("Kustomization/flux-system/apps.yaml"))
            .unwrap_or_default(),
        "victim's\n"
    );
}

#[test]
fn render_out_inside_the_repository_is_refused_unless_asked() {
    let outer = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let repo = outer.path().join("repo");
    write(&repo, ".git/HEAD", "ref: refs/heads/main\n");
    write(
        &repo,
        "clusters/dev/apps.yaml",
        &kustomization("apps", "./apps"),
    );
    write(&repo, "apps/kustomization.yaml", "resources: [cm.yaml]\n");
    write(&repo, "apps/cm.yaml", &config_map("settings"));
    let render = |extra: &[&str]| {
        offlux()
            .args(["render", "--path"])
            .arg(&repo)
            .arg("--out")
            .arg(repo.join("rendered"))
            .args(extra)
            .output()
            .unwrap_or_else(|e| panic!("{e}"))
    };
    let refused = render(&[]);
    assert_eq!(refused.status.code(), Some(2), "{}", stderr(&refused));
    assert!(
        stderr(&refused).contains("--out-inside-repo"),
        "{}",
        stderr(&refused)
    );
    assert!(!repo.join("rendered").exists());
    let allowed = render(&["--out-inside-repo"]);
    assert_eq!(allowed.status.code(), Some(0), "{}", stderr(&allowed));
    assert!(repo
        .join("rendered/Kustomization/flux-system/apps.yaml")
        .is_file());
}

// Signals.

/// A committed repository of `count` Kustomizations with ten ConfigMaps each.
fn large_repository(repo: &Path, count: usize) {
    for i in 0..count {
        write(
            repo,
            &format!("clusters/dev/app-{i}.yaml"),
            &kustomization(&format!("app-{i}"), &format!("./apps/app-{i}")),
        );
        let names: Vec<String> = (0..10).map(|j| format!("cm-{j}.yaml")).collect();
        write(
            repo,
            &format!("apps/app-{i}/kustomization.yaml"),
            &format!("resources: [{}]\n", names.join(", ")),
        );
        for j in 0..10 {
            write(
                repo,
                &format!("apps/app-{i}/cm-{j}.yaml"),
                &config_map(&format!("app-{i}-{j}")),
            );
        }
    }
    git(repo, &["init", "-q"]);
    git(repo, &["add", "-A"]);
    git(repo, &["commit", "-q", "-m", "init"]);
}

fn diff_command(repo: &Path) -> Process {
    let mut command = offlux();
    command
        .current_dir(repo)
        .args(["diff", "--base", "HEAD"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    command
}

/// SIGINT and SIGTERM sent to a `diff` a tenth and a quarter of the way through end it with 130
/// and 143, and nothing compared is printed: early, while the sides are still being discovered
/// and no run has started, as well as later. The repository is grown until an uninterrupted diff
/// takes long enough for that to be well inside the run (later runs of the same diff are quicker,
/// their files in the page cache); the head and the base are the same revision, so a diff that
/// ignored the signal would print "No differences" and exit 0.
#[cfg(unix)]
#[test]
fn a_signal_ends_diff_with_its_status_and_no_comparison() {
    if !has_git() {
        return;
    }
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let mut count = 100;
    let (repo, full) = loop {
        let repo = dir.path().join(format!("repo-{count}"));
        large_repository(&repo, count);
        let started = Instant::now();
        let output = diff_command(&repo)
            .output()
            .unwrap_or_else(|e| panic!("{e}"));
        let full = started.elapsed();
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        assert!(stderr(&output).contains("No differences"));
        if full >= Duration::from_millis(1500) || count >= 1600 {
            break (repo, full);
        }
        count *= 2;
    };
    for (name, code, fraction) in [
        ("INT", 130, 10),
        ("TERM", 143, 10),
        ("INT", 130, 4),
        ("TERM", 143, 4),
    ] {
        let child = diff_command(&repo)
            .spawn()
            .unwrap_or_else(|e| panic!("{e}"));
        std::thread::sleep(full / fraction);
        let sent = Process::new("kill")
            .args([&format!("-{name}"), &child.id().to_string()])
            .status()
            .unwrap_or_else(|e| panic!("{e}"));
        let started = Instant::now();
        let output = child.wait_with_output().unwrap_or_else(|e| panic!("{e}"));
        assert!(
            sent.success(),
            "the diff ended before 1/{fraction} of its time"
        );
        assert!(started.elapsed() < Duration::from_secs(10));
        assert_eq!(
            output.status.code(),
            Some(code),
            "SIG{name} at 1/{fraction}: {}",
            stderr(&output)
        );
        assert!(
            !stderr(&output).contains("No differences"),
            "{}",
            stderr(&output)
        );
        assert!(stdout(&output).is_empty(), "{}", stdout(&output));
        assert!(
            stderr(&output).contains("interrupted"),
            "{}",
            stderr(&output)
        );
    }
}
