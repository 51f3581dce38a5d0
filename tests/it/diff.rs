//! `offlux diff` on git repositories the tests make: the example repository committed, then edited
//! (a kustomization, a HelmRelease value, a post-build variable that fans out through a
//! component, a moved object, a deleted Kustomization, a Secret). The `git` binary makes the
//! repositories; offlux reads them itself. Without `git` on PATH the tests skip with a message.

#![allow(clippy::print_stderr, reason = "tests print what they checked")]

use std::path::Path;
use std::process::Command as Process;

use crate::common::{copy_dir, offlux_cli};

use offlux_cli::offlux;

fn has_git() -> bool {
    let found = Process::new("git").arg("--version").output().is_ok();
    if !found {
        eprintln!("skipped: no `git` binary to make test repositories with");
    }
    found
}

fn git(dir: &Path, args: &[&str]) -> String {
    let output = Process::new("git")
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
        .output()
        .expect("git runs");
    assert!(
        output.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn write(repo: &Path, file: &str, text: &str) {
    let path = repo.join(file);
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(path, text).expect("write");
}

fn edit(repo: &Path, file: &str, from: &str, to: &str) {
    let path = repo.join(file);
    let text = std::fs::read_to_string(&path).expect("read");
    assert!(text.contains(from), "{file} lacks {from:?}");
    std::fs::write(path, text.replacen(from, to, 1)).expect("write");
}

const COMPONENT: &str = "\
apiVersion: kustomize.config.k8s.io/v1alpha1
kind: Component
resources:
  - cluster-info.yaml
";

const CLUSTER_INFO: &str = "\
apiVersion: v1
kind: ConfigMap
metadata:
  name: cluster-info
  namespace: hello
data:
  cluster: ${CLUSTER_NAME}
  domain: ${DOMAIN}
";

const SECRET: &str = "\
apiVersion: v1
kind: Secret
metadata:
  name: controller-auth
type: Opaque
data:
  password: aHVudGVyMg==
  user: YWRtaW4=
";

const CLUSTER_ROLE: &str = "\
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: reader
rules:
  - apiGroups: [\"\"]
    resources: [pods]
    verbs: [get]
";

/// The example repository with a component, a Secret and a ClusterRole added, committed on
/// `main`. Returns the directory that holds it.
fn repository() -> Option<tempfile::TempDir> {
    if !has_git() {
        return None;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let repo = dir.path();
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/example"),
        repo,
    );
    write(
        repo,
        "components/cluster-info/kustomization.yaml",
        COMPONENT,
    );
    write(
        repo,
        "components/cluster-info/cluster-info.yaml",
        CLUSTER_INFO,
    );
    edit(
        repo,
        "apps/dev/kustomization.yaml",
        "resources:\n  - ../base/hello\n",
        "resources:\n  - ../base/hello\ncomponents:\n  - ../../components/cluster-info\n",
    );
    write(repo, "infrastructure/controllers/secret.yaml", SECRET);
    write(repo, "apps/base/hello/reader.yaml", CLUSTER_ROLE);
    edit(
        repo,
        "infrastructure/controllers/kustomization.yaml",
        "  - ingress.yaml\n",
        "  - ingress.yaml\n  - secret.yaml\n",
    );
    edit(
        repo,
        "apps/base/hello/kustomization.yaml",
        "  - release.yaml\n",
        "  - release.yaml\n  - reader.yaml\n",
    );
    git(repo, &["init", "-q"]);
    git(repo, &["add", "-A"]);
    git(repo, &["commit", "-q", "-m", "base"]);
    Some(dir)
}

fn diff(repo: &Path, args: &[&str]) -> (Option<i32>, String, String) {
    let output = offlux()
        .current_dir(repo)
        .arg("diff")
        .args(["--path", "clusters/dev"])
        .args(args)
        .output()
        .expect("runs");
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// The JSON report's change entries: the whole list, or its `changes` when producers did not
/// render (`notRendered`) or `--changed-only` made it an object.
fn json(repo: &Path, args: &[&str]) -> Vec<serde_json::Value> {
    let value = json_value(repo, args);
    let changes = if value.is_array() {
        &value
    } else {
        &value["changes"]
    };
    changes.as_array().cloned().expect("a list of changes")
}

fn json_value(repo: &Path, args: &[&str]) -> serde_json::Value {
    let mut all = vec!["-o", "json"];
    all.extend_from_slice(args);
    let (code, stdout, stderr) = diff(repo, &all);
    assert!(code == Some(0) || code == Some(1), "{code:?}: {stderr}");
    serde_json::from_str(&stdout).expect("json")
}

/// `(producer kind/name, object kind/name, change)` of each entry.
fn summary(entries: &[serde_json::Value]) -> Vec<(String, String, String)> {
    entries
        .iter()
        .map(|e| {
            let text = |v: &serde_json::Value| v.as_str().unwrap_or_default().to_owned();
            (
                format!(
                    "{}/{}",
                    text(&e["producer"]["kind"]),
                    text(&e["producer"]["name"])
                ),
                format!(
                    "{}/{}",
                    text(&e["object"]["kind"]),
                    text(&e["object"]["name"])
                ),
                text(&e["change"]),
            )
        })
        .collect()
}

fn entry<'a>(entries: &'a [serde_json::Value], kind: &str, name: &str) -> &'a serde_json::Value {
    entries
        .iter()
        .find(|e| e["object"]["kind"] == kind && e["object"]["name"] == name)
        .unwrap_or_else(|| panic!("no {kind}/{name} in {:?}", summary(entries)))
}

fn triple(producer: &str, object: &str, change: &str) -> (String, String, String) {
    (producer.to_owned(), object.to_owned(), change.to_owned())
}

#[test]
fn no_change_is_no_difference() {
    let Some(dir) = repository() else { return };
    let (code, stdout, stderr) = diff(dir.path(), &[]);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(stdout, "");
    assert!(
        stderr.contains("No differences between base `main`"),
        "{stderr}"
    );
    // What was not compared is said even when nothing differs.
    assert!(
        stderr.contains(
            "and working tree (labels and annotations helm.sh/chart, chart, app.kubernetes.io/version, checksum/* left out)."
        ),
        "{stderr}"
    );
    let (_, _, stderr) = diff(dir.path(), &["--no-default-strip"]);
    assert!(stderr.contains("and working tree."), "{stderr}");
    // Everything rendered: no section of producers not rendered, in any format.
    let (_, markdown, _) = diff(dir.path(), &["-o", "markdown"]);
    assert!(markdown.ends_with("\n\nNo differences.\n"), "{markdown}");
    assert!(json_value(dir.path(), &[]).is_array());
    let (_, annotations, _) = diff(dir.path(), &["-o", "github"]);
    assert_eq!(annotations, "");
}

#[test]
fn an_edited_kustomization_changes_its_objects() {
    let Some(dir) = repository() else { return };
    edit(
        dir.path(),
        "infrastructure/controllers/kustomization.yaml",
        "namespace: ingress\n",
        "namespace: ingress\ncommonLabels:\n  tier: edge\n",
    );
    let entries = json(dir.path(), &[]);
    assert_eq!(
        summary(&entries),
        [
            triple(
                "Kustomization/infrastructure",
                "Deployment/ingress-controller",
                "changed"
            ),
            triple(
                "Kustomization/infrastructure",
                "Namespace/ingress",
                "changed"
            ),
            triple(
                "Kustomization/infrastructure",
                "Secret/controller-auth",
                "changed"
            ),
        ]
    );
    let deployment = entry(&entries, "Deployment", "ingress-controller");
    let text = deployment["diff"].as_str().unwrap_or_default();
    assert!(text.contains("+    tier: edge\n"), "{text}");
    assert!(
        text.starts_with("--- base/Deployment.apps/ingress/ingress-controller\n+++ head/"),
        "{text}"
    );
    assert_eq!(deployment["object"]["apiVersion"], "apps/v1");
    // The same change field by field.
    assert!(
        deployment["fields"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|f| f["path"] == "metadata.labels.tier"
                && f["change"] == "added"
                && f["after"] == "edge"),
        "{deployment}"
    );
    assert_eq!(deployment["producer"]["namespace"], "flux-system");
    // The human form says the same, and the exit code says there were differences.
    let (code, stdout, _) = diff(dir.path(), &[]);
    assert_eq!(code, Some(1));
    assert!(
        stdout.contains("Kustomization flux-system/infrastructure\n"),
        "{stdout}"
    );
    assert!(
        stdout.contains("  ~ Deployment ingress/ingress-controller changed\n"),
        "{stdout}"
    );
    assert!(stdout.contains("    +    tier: edge\n"), "{stdout}");
    let (code, _, _) = diff(dir.path(), &["--exit-zero"]);
    assert_eq!(code, Some(0));
    // `--fields`: the same change field by field, in the human and the markdown report.
    let (_, human, _) = diff(dir.path(), &["--fields"]);
    assert!(
        human.contains("    + metadata.labels.tier: edge\n"),
        "{human}"
    );
    assert!(!human.contains("@@"), "{human}");
    let (_, markdown, _) = diff(dir.path(), &["--fields", "-o", "markdown"]);
    assert!(
        markdown.contains("```diff\n+ metadata.labels.tier: edge\n"),
        "{markdown}"
    );
}

#[test]
fn a_helmrelease_value_changes_the_release_and_its_manifests() {
    let Some(dir) = repository() else { return };
    edit(
        dir.path(),
        "apps/dev/hello-values.yaml",
        "replicas: 2",
        "replicas: 3",
    );
    let entries = json(dir.path(), &[]);
    assert_eq!(
        summary(&entries),
        [
            triple("Kustomization/apps", "HelmRelease/hello", "changed"),
            triple("HelmRelease/hello", "Deployment/hello", "changed"),
        ]
    );
    let deployment = entry(&entries, "Deployment", "hello")["diff"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert!(
        deployment.contains("-  replicas: 2\n+  replicas: 3\n"),
        "{deployment}"
    );
    // A markdown comment keeps under its size cap and says what it left out.
    let (_, markdown, _) = diff(dir.path(), &["-o", "markdown", "--max-size", "1200"]);
    assert!(markdown.len() <= 1200, "{} bytes", markdown.len());
    // No column that no row fills (the note).
    assert!(
        markdown.contains(
            "| Change | Kind | Namespace | Name |\n|---|---|---|---|\n| changed | `Deployment` | `hello` | `hello` |\n"
        ),
        "{markdown}"
    );
    assert!(
        markdown.contains("_Cut to stay under 1200 bytes: 1 diff not shown;"),
        "{markdown}"
    );
    let (_, markdown, stderr) = diff(dir.path(), &["-o", "markdown"]);
    assert_eq!(markdown.matches("<details>").count(), 2, "{markdown}");
    assert!(!markdown.contains("_Cut"), "{markdown}");
    assert!(
        markdown.contains("\n\n2 objects differ (2 changed) in 2 producers; 0 status changes.\n"),
        "{markdown}"
    );
    // Everything rendered: nothing is said of producers not rendered.
    assert!(!markdown.contains("Not rendered"), "{markdown}");
    assert_eq!(
        stderr,
        "2 objects differ (2 changed) in 2 producers; 0 status changes.\n"
    );
    assert!(json_value(dir.path(), &[]).is_array());
    // One line of context instead of three.
    let entries = json(dir.path(), &["-U", "1"]);
    let narrow = entry(&entries, "Deployment", "hello")["diff"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert!(
        narrow.lines().count() < deployment.lines().count(),
        "{narrow}"
    );
}

#[test]
fn a_postbuild_variable_fans_out_through_a_component() {
    let Some(dir) = repository() else { return };
    edit(
        dir.path(),
        "clusters/dev/cluster-vars.yaml",
        "DOMAIN: dev.example.com",
        "DOMAIN: dev.example.org",
    );
    let entries = json(dir.path(), &[]);
    assert_eq!(
        summary(&entries),
        [
            triple("Kustomization/apps", "ConfigMap/cluster-info", "changed"),
            triple("Kustomization/apps", "HelmRelease/hello", "changed"),
            triple(
                "Kustomization/flux-system",
                "ConfigMap/cluster-vars",
                "changed"
            ),
            triple("HelmRelease/hello", "Ingress/hello", "changed"),
        ]
    );
    let info = entry(&entries, "ConfigMap", "cluster-info")["diff"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert!(
        info.contains("-  domain: dev.example.com\n+  domain: dev.example.org\n"),
        "{info}"
    );
}

#[test]
fn a_moved_object_names_both_producers() {
    let Some(dir) = repository() else { return };
    let repo = dir.path();
    std::fs::rename(
        repo.join("apps/base/hello/reader.yaml"),
        repo.join("infrastructure/controllers/reader.yaml"),
    )
    .expect("move");
    edit(
        repo,
        "apps/base/hello/kustomization.yaml",
        "  - reader.yaml\n",
        "",
    );
    edit(
        repo,
        "infrastructure/controllers/kustomization.yaml",
        "  - secret.yaml\n",
        "  - secret.yaml\n  - reader.yaml\n",
    );
    let entries = json(repo, &[]);
    assert_eq!(
        summary(&entries),
        [triple(
            "Kustomization/infrastructure",
            "ClusterRole/reader",
            "moved"
        )]
    );
    let moved = &entries[0];
    assert_eq!(moved["from"]["name"], "apps");
    // The same object; only the owner labels Flux adds name the new producer.
    let text = moved["diff"].as_str().unwrap_or_default();
    assert!(
        text.contains(
            "-    kustomize.toolkit.fluxcd.io/name: apps\n+    kustomize.toolkit.fluxcd.io/name: infrastructure\n"
        ),
        "{text}"
    );
    assert_eq!(
        text.lines().filter(|l| l.starts_with(['+', '-'])).count(),
        4,
        "{text}"
    );
    let (_, markdown, _) = diff(repo, &["-o", "markdown"]);
    assert!(
        markdown.contains(
            "| Change | Kind | Name | Note |\n|---|---|---|---|\n| moved | `ClusterRole` | `reader` | from `Kustomization flux-system/apps` |\n"
        ),
        "{markdown}"
    );
}

#[test]
fn a_deleted_kustomization_removes_its_objects_and_blocks_its_dependants() {
    let Some(dir) = repository() else { return };
    let repo = dir.path();
    std::fs::remove_file(repo.join("clusters/dev/infrastructure.yaml")).expect("rm");
    edit(
        repo,
        "clusters/dev/kustomization.yaml",
        "  - infrastructure.yaml\n",
        "",
    );
    let entries = json(repo, &[]);
    let found = summary(&entries);
    for expected in [
        triple(
            "Kustomization/flux-system",
            "Kustomization/infrastructure",
            "removed",
        ),
        triple(
            "Kustomization/infrastructure",
            "Deployment/ingress-controller",
            "removed",
        ),
        triple(
            "Kustomization/infrastructure",
            "Namespace/ingress",
            "removed",
        ),
        triple("Kustomization/apps", "/", "status"),
    ] {
        assert!(found.contains(&expected), "{expected:?} not in {found:?}");
    }
    let apps = entries
        .iter()
        .find(|e| e["change"] == "status" && e["producer"]["name"] == "apps")
        .expect("apps' status");
    assert_eq!(apps["before"], "PASS");
    assert!(
        apps["after"]
            .as_str()
            .unwrap_or_default()
            .contains("infrastructure"),
        "{apps}"
    );
    // apps' objects, and those of the HelmRelease it applies, are unknown on the head side,
    // not removed.
    assert!(
        !found.iter().any(
            |(p, _, c)| (p == "Kustomization/apps" || p == "HelmRelease/hello") && c == "removed"
        ),
        "{found:?}"
    );
    let (_, annotations, _) = diff(repo, &["-o", "github"]);
    assert!(
        annotations.contains("::error file=clusters/dev/apps.yaml,line=1,title=offlux diff%3A Kustomization flux-system/apps::status PASS → "),
        "{annotations}"
    );
}

#[test]
fn a_changed_secret_shows_its_keys_never_its_values() {
    let Some(dir) = repository() else { return };
    let repo = dir.path();
    edit(
        repo,
        "infrastructure/controllers/secret.yaml",
        "password: aHVudGVyMg==",
        "password: c3dvcmRmaXNo\n  token: dG9rZW4=",
    );
    for format in ["human", "markdown", "json", "github"] {
        let (code, stdout, stderr) = diff(repo, &["-o", format]);
        assert_eq!(code, Some(1), "{stderr}");
        for value in ["aHVudGVyMg", "c3dvcmRmaXNo", "dG9rZW4", "YWRtaW4"] {
            assert!(!stdout.contains(value), "{format} shows {value}:\n{stdout}");
        }
    }
    let entries = json(repo, &[]);
    let secret = entry(&entries, "Secret", "controller-auth");
    assert_eq!(secret["change"], "changed");
    assert_eq!(
        secret["secretKeys"]["changed"],
        serde_json::json!(["password"])
    );
    assert_eq!(secret["secretKeys"]["added"], serde_json::json!(["token"]));
    let (_, human, _) = diff(repo, &[]);
    assert!(
        human.contains(
            "Secret ingress/controller-auth changed (keys values changed: password; added: token)"
        ),
        "{human}"
    );
    // `--skip-secrets` leaves them out altogether.
    assert!(json(repo, &["--skip-secrets"]).is_empty());
}

#[test]
fn two_revisions_from_packed_history_and_the_trees_written() {
    let Some(dir) = repository() else { return };
    let repo = dir.path();
    for replicas in 3..8 {
        edit(
            repo,
            "apps/dev/hello-values.yaml",
            &format!("replicas: {}", replicas - 1),
            &format!("replicas: {replicas}"),
        );
        git(
            repo,
            &["commit", "-q", "-am", &format!("replicas {replicas}")],
        );
    }
    // Everything into one pack, with deltas between the versions.
    git(repo, &["gc", "-q", "--aggressive", "--prune=now"]);
    // An uncommitted edit is not seen when both sides are revisions.
    edit(
        repo,
        "apps/dev/hello-values.yaml",
        "replicas: 7",
        "replicas: 9",
    );
    let entries = json(repo, &["--base", "HEAD~2", "--head", "HEAD"]);
    let deployment = entry(&entries, "Deployment", "hello")["diff"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert!(
        deployment.contains("-  replicas: 5\n+  replicas: 7\n"),
        "{deployment}"
    );
    let out = tempfile::tempdir().expect("tempdir");
    let (code, _, stderr) = diff(
        repo,
        &[
            "--base",
            "main~4",
            "--out",
            out.path().to_str().expect("utf-8"),
            "-o",
            "markdown",
        ],
    );
    assert_eq!(code, Some(1), "{stderr}");
    let read = |side: &str| {
        std::fs::read_to_string(out.path().join(side).join("HelmRelease/hello/hello.yaml"))
            .unwrap_or_else(|e| panic!("{side}: {e}"))
    };
    assert!(read("base").contains("replicas: 3\n"));
    assert!(read("head").contains("replicas: 9\n"));
    let infrastructure = std::fs::read_to_string(
        out.path()
            .join("head/Kustomization/flux-system/infrastructure.yaml"),
    )
    .expect("infrastructure's file");
    assert!(
        infrastructure.contains("kind: Deployment"),
        "{infrastructure}"
    );
    assert!(
        !infrastructure.contains("controller-auth"),
        "{infrastructure}"
    );
    // Unknown revisions are usage errors.
    let (code, _, stderr) = diff(repo, &["--base", "no-such-ref"]);
    assert_eq!(code, Some(2));
    assert!(
        stderr.contains("unknown revision `no-such-ref`"),
        "{stderr}"
    );
}

/// Every file of every commit, as offlux reads it from the revision mounted in memory, is what
/// git itself has; a symlink reads as the file it leads to inside the revision, one leading out
/// reads as nothing; and nothing appears on disk at the mount point.
#[test]
fn revision_views_match_git() {
    let Some(dir) = repository() else { return };
    let repo = dir.path();
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(
            "../base/hello/release.yaml",
            repo.join("apps/dev/link.yaml"),
        )
        .expect("symlink");
        std::os::unix::fs::symlink("../../../etc/passwd", repo.join("apps/dev/escape.yaml"))
            .expect("symlink");
    }
    for n in 0..4 {
        edit(
            repo,
            "charts/hello/values.yaml",
            "replicas: 1",
            &format!("replicas: 1\nextra{n}: {n}\nreplicas: 1"),
        );
        git(repo, &["add", "-A"]);
        git(repo, &["commit", "-q", "-m", &format!("edit {n}")]);
    }
    git(repo, &["tag", "-a", "-m", "annotated", "v1", "HEAD~1"]);
    git(repo, &["gc", "-q", "--aggressive", "--prune=now"]);
    let repository = std::sync::Arc::new(offlux::gitrev::Repository::discover(repo).expect("open"));
    for revision in ["HEAD", "HEAD~1", "v1", "main~3", "HEAD^"] {
        let commit = repository.resolve(revision).expect("resolve");
        assert_eq!(
            commit.to_string(),
            git(repo, &["rev-parse", &format!("{revision}^{{commit}}")]).trim(),
            "{revision}"
        );
        let parent = tempfile::tempdir().expect("tempdir");
        let (mount, notes) =
            offlux::gitrev::mount(repository.clone(), commit, parent.path(), "test")
                .expect("mount");
        assert!(notes.is_empty(), "{notes:?}");
        let facts = offlux::fsio::FsFacts::default();
        let read = |file: &str| {
            offlux::fsio::read_to_string(
                &facts,
                &mount.path().join(file),
                offlux::fsio::Confine::within(mount.path()),
            )
        };
        let listing = git(repo, &["ls-tree", "-r", "--name-only", revision]);
        let mut files = 0;
        for file in listing.lines() {
            if file.ends_with("escape.yaml") {
                let refused = read(file);
                assert!(refused.is_err(), "{file}: {refused:?}");
                continue;
            }
            files += 1;
            let shown = if file.ends_with("link.yaml") {
                "apps/base/hello/release.yaml"
            } else {
                file
            };
            let expected = git(repo, &["show", &format!("{revision}:{shown}")]);
            assert_eq!(
                read(file).unwrap_or_else(|e| panic!("{e}")),
                expected,
                "{revision}:{file}"
            );
        }
        assert!(files > 10, "{revision}: {files} files");
        assert!(
            std::fs::read_dir(parent.path())
                .expect("the parent")
                .next()
                .is_none(),
            "something was written under the mount point's parent"
        );
    }
}

/// A `git gc` that packs the loose objects and removes them while a diff has the repository open
/// (`gc --auto` runs detached after a commit) loses nothing: a read that finds an object nowhere
/// looks for new packs once, as git's `reprepare_packed_git` does.
#[test]
fn objects_packed_while_the_repository_is_open_are_found() {
    let Some(dir) = repository() else { return };
    let repo = dir.path();
    let repository = std::sync::Arc::new(offlux::gitrev::Repository::discover(repo).expect("open"));
    let commit = repository.resolve("HEAD").expect("resolve");
    git(repo, &["gc", "-q", "--prune=now"]);
    assert!(
        std::fs::read_dir(repo.join(".git/objects"))
            .expect("objects")
            .flatten()
            .all(|e| e.file_name().len() != 2),
        "loose objects left after gc"
    );
    let parent = tempfile::tempdir().expect("tempdir");
    let (mount, notes) =
        offlux::gitrev::mount(repository, commit, parent.path(), "test").expect("mount");
    assert!(notes.is_empty(), "{notes:?}");
    let facts = offlux::fsio::FsFacts::default();
    let text = offlux::fsio::read_to_string(
        &facts,
        &mount.path().join("clusters/dev/apps.yaml"),
        offlux::fsio::Confine::within(mount.path()),
    )
    .expect("read after gc");
    assert!(text.contains("kind: Kustomization"), "{text}");
}

/// A producer SKIPPED on one side (here a remote kustomize resource, which offline cannot
/// fetch) rendered nothing there: its objects are not compared, never reported as removed.
#[test]
fn a_producer_skipped_on_one_side_removes_nothing() {
    let Some(dir) = repository() else { return };
    edit(
        dir.path(),
        "apps/base/hello/kustomization.yaml",
        "  - reader.yaml\n",
        "  - reader.yaml\n  - https://example.com/remote.yaml\n",
    );
    let value = json_value(dir.path(), &["--offline", "--allow-missing-sources"]);
    let entries = value["changes"].as_array().cloned().expect("changes");
    assert!(
        entries.iter().all(|e| e["change"] != "removed"),
        "{:?}",
        summary(&entries)
    );
    // The Kustomization is listed as not rendered on the head, ahead of the changes, and then
    // the release it no longer applies there.
    let listed = &value["notRendered"];
    assert_eq!(listed[0]["producer"]["name"], "apps", "{listed}");
    assert_eq!(listed[0]["sides"], serde_json::json!(["head"]), "{listed}");
    assert_eq!(listed[0]["verdict"], "skipped", "{listed}");
    assert_eq!(listed[1]["producer"]["name"], "hello", "{listed}");
    assert_eq!(listed[1]["verdict"], "notApplied", "{listed}");
    assert_eq!(
        listed[1]["cause"], "Kustomization/flux-system/apps did not render",
        "{listed}"
    );
    let (_, human, stderr) = diff(dir.path(), &["--offline", "--allow-missing-sources"]);
    assert!(human.contains("SKIPPED"), "{human}\n{stderr}");
    assert!(human.contains("not compared"), "{human}\n{stderr}");
    assert!(
        human.contains("\n  ! Kustomization/flux-system/apps: skipped: "),
        "{human}"
    );
}

const PODINFO: &str = "\
apiVersion: source.toolkit.fluxcd.io/v1
kind: HelmRepository
metadata:
  name: podinfo
  namespace: hello
spec:
  interval: 1h
  url: https://stefanprodan.github.io/podinfo
---
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: podinfo
  namespace: hello
spec:
  interval: 1h
  chart:
    spec:
      chart: podinfo
      version: 6.5.0
      sourceRef:
        kind: HelmRepository
        name: podinfo
  values:
    replicaCount: 1
";

/// [`repository`] with a HelmRelease of a chart no cache holds (offline, it cannot render on
/// either side) committed, then its values edited in the working tree.
fn repository_with_uncached_chart() -> Option<tempfile::TempDir> {
    let dir = repository()?;
    let repo = dir.path();
    write(repo, "apps/base/hello/podinfo.yaml", PODINFO);
    edit(
        repo,
        "apps/base/hello/kustomization.yaml",
        "  - reader.yaml\n",
        "  - reader.yaml\n  - podinfo.yaml\n",
    );
    git(repo, &["add", "-A"]);
    git(repo, &["commit", "-q", "-m", "podinfo"]);
    edit(
        repo,
        "apps/base/hello/podinfo.yaml",
        "replicaCount: 1",
        "replicaCount: 2",
    );
    Some(dir)
}

const NOT_CACHED: &str = "chart podinfo 6.5.0 from https://stefanprodan.github.io/podinfo is not in the chart cache and the network is off (--offline)";

/// Issue 38: a release whose chart cannot be had renders on neither side; its edit is reported
/// as a change whose output is unknown, first, in every format, never as "1 objects differ"
/// alone, and stderr says it once, in its summary line.
#[test]
fn a_release_whose_chart_is_missing_is_named_first_in_every_format() {
    let Some(dir) = repository_with_uncached_chart() else {
        return;
    };
    let repo = dir.path();
    let args = ["--offline", "--allow-missing-sources"];
    let (code, human, stderr) = diff(repo, &args);
    assert_eq!(code, Some(1), "{stderr}");
    let entry = format!(
        "  ! HelmRelease/hello/podinfo: skipped: {NOT_CACHED} (base and head); its definition changed\n"
    );
    let section = human.find(&entry).unwrap_or_else(|| panic!("{human}"));
    let first_producer = human
        .find("\nKustomization flux-system/apps\n")
        .unwrap_or_else(|| panic!("{human}"));
    assert!(section < first_producer, "{human}");
    assert!(
        human.contains("  ~ HelmRelease hello/podinfo changed; what it renders is unknown: not rendered on base and head\n"),
        "{human}"
    );
    // One line on stderr, the summary, and it says what is unknown.
    assert_eq!(
        stderr,
        format!(
            "HelmRelease/hello/podinfo changed; what it renders is unknown: skipped: {NOT_CACHED} (base and head). \
             1 object differs (1 changed) in 1 producer; 0 status changes.\n"
        )
    );

    let mut markdown_args = args.to_vec();
    markdown_args.extend(["-o", "markdown"]);
    let (_, markdown, _) = diff(repo, &markdown_args);
    let summary = markdown.lines().nth(2).unwrap_or_default();
    assert_eq!(
        summary,
        format!(
            "`HelmRelease/hello/podinfo` changed; what it renders is unknown: skipped: `{NOT_CACHED}` (base and head). \
             1 object differs (1 changed) in 1 producer; 0 status changes."
        ),
        "{markdown}"
    );
    let section = markdown
        .find("\n#### Not rendered (1)\n")
        .unwrap_or_else(|| panic!("{markdown}"));
    let first_producer = markdown
        .find("\n#### `Kustomization flux-system/apps`\n")
        .unwrap_or_else(|| panic!("{markdown}"));
    assert!(section < first_producer, "{markdown}");
    assert!(
        markdown.contains(&format!(
            "\n- `HelmRelease/hello/podinfo`: skipped: `{NOT_CACHED}` (base and head); its definition changed.\n"
        )),
        "{markdown}"
    );
    assert!(
        markdown.contains(
            "| changed | `HelmRelease` | `hello` | `podinfo` | what it renders is unknown: not rendered on base and head |"
        ),
        "{markdown}"
    );

    let mut json_args = args.to_vec();
    json_args.extend(["-o", "json"]);
    let (_, text, _) = diff(repo, &json_args);
    assert!(
        text.starts_with("{\n  \"notRendered\": [\n") && text.contains("\n  \"changes\": [\n"),
        "{text}"
    );
    let value = json_value(repo, &args);
    assert_eq!(
        value["notRendered"],
        serde_json::json!([{
            "producer": {"kind": "HelmRelease", "namespace": "hello", "name": "podinfo"},
            "sides": ["base", "head"],
            "verdict": "skipped",
            "cause": NOT_CACHED,
            "changed": true,
            "statusChanged": false,
            "base": {"verdict": "skipped", "cause": NOT_CACHED},
            "head": {"verdict": "skipped", "cause": NOT_CACHED},
        }])
    );
    assert_eq!(
        summary_of(&value["changes"]),
        [triple(
            "Kustomization/apps",
            "HelmRelease/podinfo",
            "changed"
        )]
    );

    // Annotations: the release first, a warning on its file.
    let mut github_args = args.to_vec();
    github_args.extend(["-o", "github"]);
    let (_, annotations, _) = diff(repo, &github_args);
    assert!(
        annotations.starts_with(
            "::warning file=apps/base/hello/podinfo.yaml,line=10,title=offlux diff%3A HelmRelease/hello/podinfo not rendered::what it renders is unknown"
        ),
        "{annotations}"
    );

    // Without `--allow-missing-sources` it is BLOCKED by its HelmRepository, and the roster's
    // words say so; no warning line repeats it on stderr.
    let (_, human, stderr) = diff(repo, &["--offline"]);
    assert!(
        human.contains(&format!(
            "  ! HelmRelease/hello/podinfo: blocked by HelmRepository/hello/podinfo: {NOT_CACHED} (base and head); its definition changed\n"
        )),
        "{human}"
    );
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(!stderr.contains("warning"), "{stderr}");
}

/// Producers the change does not touch that one cause holds back are said once, with their
/// names, in every format: a line in the text and markdown reports, one notice (not one per file)
/// in annotations. The touched release keeps its own line.
#[test]
fn untouched_producers_with_one_cause_are_one_line() {
    let Some(dir) = repository_with_uncached_chart() else {
        return;
    };
    let repo = dir.path();
    // Two more releases of the uncached chart, committed, untouched by the change.
    let release = PODINFO.split("---\n").nth(1).expect("the release document");
    let twins = ["podinfo-a", "podinfo-b"]
        .map(|name| {
            release.replace(
                "metadata:\n  name: podinfo\n",
                &format!("metadata:\n  name: {name}\n"),
            )
        })
        .join("---\n");
    write(repo, "apps/base/hello/twins.yaml", &twins);
    edit(
        repo,
        "apps/base/hello/kustomization.yaml",
        "  - podinfo.yaml\n",
        "  - podinfo.yaml\n  - twins.yaml\n",
    );
    git(
        repo,
        &[
            "add",
            "apps/base/hello/twins.yaml",
            "apps/base/hello/kustomization.yaml",
        ],
    );
    git(repo, &["commit", "-q", "-m", "twins"]);
    let args = ["--offline", "--allow-missing-sources"];

    let (_, human, _) = diff(repo, &args);
    assert!(
        human.contains(&format!(
            "\n  ! 2 producers, definitions and outcomes unchanged: skipped: {NOT_CACHED} (base and head): \
             HelmRelease/hello/podinfo-a, HelmRelease/hello/podinfo-b\n"
        )),
        "{human}"
    );
    assert!(
        human.contains("  ! HelmRelease/hello/podinfo: skipped: "),
        "{human}"
    );
    assert!(
        !human.contains("  ! HelmRelease/hello/podinfo-a:"),
        "{human}"
    );

    let mut markdown_args = args.to_vec();
    markdown_args.extend(["-o", "markdown"]);
    let (_, markdown, _) = diff(repo, &markdown_args);
    assert!(
        markdown.contains(&format!(
            "\n- skipped: `{NOT_CACHED}` (base and head): `HelmRelease/hello/podinfo-a`, \
             `HelmRelease/hello/podinfo-b` (2).\n"
        )),
        "{markdown}"
    );

    let mut github_args = args.to_vec();
    github_args.extend(["-o", "github"]);
    let (_, annotations, _) = diff(repo, &github_args);
    let notices: Vec<&str> = annotations
        .lines()
        .filter(|line| line.contains("not rendered::"))
        .collect();
    assert_eq!(notices.len(), 2, "{annotations}");
    assert!(
        notices[0].starts_with("::notice title=offlux diff%3A 2 producers not rendered::"),
        "{annotations}"
    );
    assert!(
        notices[1].starts_with("::warning file=apps/base/hello/podinfo.yaml,"),
        "{annotations}"
    );
}

/// One comparison, several reports: `--report-markdown`, `--report-json`, `--report-github` and
/// `--report-human` write what `-o` of each format prints, alongside stdout's format.
#[test]
fn one_run_writes_every_report_asked_for() {
    let Some(dir) = repository_with_uncached_chart() else {
        return;
    };
    let repo = dir.path();
    let reports = tempfile::tempdir().expect("tempdir");
    let file = |name: &str| reports.path().join(name);
    let args = ["--offline", "--allow-missing-sources"];
    let mut all = args.to_vec();
    let paths: Vec<String> = ["diff.md", "diff.json", "annotations.txt", "sub/diff.txt"]
        .iter()
        .map(|name| file(name).display().to_string())
        .collect();
    all.extend([
        "-o",
        "github",
        "--report-markdown",
        &paths[0],
        "--report-json",
        &paths[1],
    ]);
    all.extend(["--report-github", &paths[2], "--report-human", &paths[3]]);
    let (code, stdout, stderr) = diff(repo, &all);
    assert_eq!(code, Some(1), "{stderr}");
    for (format, name, printed) in [
        ("markdown", "diff.md", None),
        ("json", "diff.json", None),
        ("github", "annotations.txt", Some(&stdout)),
        ("human", "sub/diff.txt", None),
    ] {
        let mut one = args.to_vec();
        one.extend(["-o", format]);
        let (_, alone, _) = diff(repo, &one);
        let written = std::fs::read_to_string(file(name)).expect("the report is written");
        assert!(!written.is_empty(), "{format}");
        assert_eq!(written, alone, "{format}");
        if let Some(printed) = printed {
            assert_eq!(&written, printed, "{format}");
        }
    }
    // stderr says the summary once, however many reports.
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
}

/// `diff ks NAME` / `diff hr NAME`: the changes of that one producer; a name on neither side is a
/// usage error, and a NAME without `ks`/`hr` too.
#[test]
fn diff_ks_and_hr_narrow_to_one_producer() {
    let Some(dir) = repository() else { return };
    edit(
        dir.path(),
        "apps/dev/hello-values.yaml",
        "replicas: 2",
        "replicas: 3",
    );
    // The release's own definition changed too, where its Kustomization applies it.
    assert_eq!(
        summary(&json(dir.path(), &["hr", "hello"])),
        [
            triple("Kustomization/apps", "HelmRelease/hello", "changed"),
            triple("HelmRelease/hello", "Deployment/hello", "changed")
        ]
    );
    assert_eq!(
        summary(&json(dir.path(), &["ks", "apps", "-n", "flux-system"])),
        [triple("Kustomization/apps", "HelmRelease/hello", "changed")]
    );
    let (code, stdout, _) = diff(dir.path(), &["ks", "infrastructure"]);
    assert_eq!(code, Some(0), "nothing changed there: {stdout}");
    let (code, _, stderr) = diff(dir.path(), &["hr", "nope"]);
    assert_eq!(code, Some(2));
    assert!(
        stderr.contains("no HelmRelease named `nope` on either side"),
        "{stderr}"
    );
    let (code, _, stderr) = diff(dir.path(), &["ks"]);
    assert_eq!(code, Some(2));
    assert!(
        stderr.contains("needs the Kustomization's name"),
        "{stderr}"
    );
}

/// `--base-dir DIR`: the base read from another checkout (flux-local's `--path-orig` workflow)
/// gives the same comparison as that checkout's revision; it does not go with `--base`.
#[test]
fn a_base_directory_compares_like_its_revision() {
    let Some(dir) = repository() else { return };
    let base = tempfile::tempdir().expect("tempdir");
    copy_dir(dir.path(), base.path());
    edit(
        dir.path(),
        "apps/dev/hello-values.yaml",
        "replicas: 2",
        "replicas: 3",
    );
    let base_dir = base.path().display().to_string();
    let from_dir = json(dir.path(), &["--base-dir", &base_dir]);
    let from_revision = json(dir.path(), &["--base", "HEAD"]);
    assert!(!from_dir.is_empty());
    assert_eq!(summary(&from_dir), summary(&from_revision));
    let (_, human, _) = diff(dir.path(), &["--base-dir", &base_dir]);
    assert!(
        human.starts_with(&format!(
            "offlux diff: base directory `{}` → working tree",
            base.path().canonicalize().expect("real").display()
        )),
        "{human}"
    );
    let (code, _, _) = diff(dir.path(), &["--base-dir", &base_dir, "--base", "HEAD"]);
    assert_eq!(code, Some(2));
}

/// Two checkouts, neither a git repository (flux-local's `--path-orig` with two plain
/// directories): the head is read as the directory it is, with the same comparison as when it
/// is a git working tree; what needs git (`--head`, `--changed-only`) says so.
#[test]
fn two_plain_directories_compare_without_git() {
    let Some(dir) = repository() else { return };
    let plain = tempfile::tempdir().expect("tempdir");
    let (base, head) = (plain.path().join("base"), plain.path().join("head"));
    copy_dir(dir.path(), &base);
    edit(
        dir.path(),
        "apps/dev/hello-values.yaml",
        "replicas: 2",
        "replicas: 3",
    );
    copy_dir(dir.path(), &head);
    for side in [&base, &head] {
        std::fs::remove_dir_all(side.join(".git")).expect("no git");
    }
    let base_dir = base.display().to_string();
    let plain_diff = |args: &[&str]| {
        let mut all = vec!["--root", ".", "--base-dir", base_dir.as_str()];
        all.extend_from_slice(args);
        diff(&head, &all)
    };
    let (code, stdout, stderr) = plain_diff(&["-o", "json"]);
    assert_eq!(code, Some(1), "{stderr}");
    let entries: Vec<serde_json::Value> = serde_json::from_str(&stdout).expect("JSON");
    let in_git = json(dir.path(), &["--base-dir", &base_dir]);
    assert!(!entries.is_empty());
    assert_eq!(summary(&entries), summary(&in_git));
    let (_, human, _) = plain_diff(&[]);
    assert!(human.contains("→ directory"), "{human}");
    for needs_git in [&["--head", "HEAD"][..], &["--changed-only"]] {
        let (code, _, stderr) = plain_diff(needs_git);
        assert_eq!(code, Some(2), "{needs_git:?}: {stderr}");
    }
}

fn summary_of(changes: &serde_json::Value) -> Vec<(String, String, String)> {
    summary(changes.as_array().map(Vec::as_slice).unwrap_or_default())
}

/// Issue 38: a release that renders on the base and fails on the head: listed for the head, its
/// definition and outcome changed, and the objects it rendered on the base not compared (not
/// removed).
#[test]
fn a_release_failing_only_on_the_head_is_listed_for_the_head() {
    let Some(dir) = repository() else { return };
    let repo = dir.path();
    edit(
        repo,
        "apps/base/hello/release.yaml",
        "chart: ./charts/hello",
        "chart: ./charts/missing",
    );
    let value = json_value(repo, &[]);
    let listed = value["notRendered"].as_array().cloned().unwrap_or_default();
    assert_eq!(listed.len(), 1, "{value}");
    let entry = &listed[0];
    assert_eq!(entry["producer"]["name"], "hello");
    assert_eq!(entry["sides"], serde_json::json!(["head"]));
    assert_eq!(entry["verdict"], "failed");
    assert_eq!(entry["base"], serde_json::Value::Null);
    assert_eq!(entry["changed"], true);
    assert_eq!(entry["statusChanged"], true);
    let cause = entry["cause"].as_str().unwrap_or_default().to_owned();
    assert!(cause.contains("./charts/missing"), "{cause}");
    let changes = summary_of(&value["changes"]);
    assert!(
        !changes
            .iter()
            .any(|(p, _, c)| p == "HelmRelease/hello" && c == "removed"),
        "{changes:?}"
    );

    let (_, human, stderr) = diff(repo, &[]);
    let section = human
        .find(&format!(
            "  ! HelmRelease/hello/hello: failed: {cause} (head); its definition and outcome changed\n"
        ))
        .unwrap_or_else(|| panic!("{human}"));
    assert!(
        section < human.find("\nHelmRelease hello/hello\n").unwrap_or(0),
        "{human}"
    );
    assert!(human.contains("  2 objects not compared:"), "{human}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.starts_with(&format!(
            "HelmRelease/hello/hello changed; what it renders is unknown: failed: {cause} (head). "
        )),
        "{stderr}"
    );

    let (_, markdown, _) = diff(repo, &["-o", "markdown"]);
    assert!(
        markdown.find("#### Not rendered (1)") < markdown.find("#### `HelmRelease hello/hello`"),
        "{markdown}"
    );
    assert!(
        markdown.contains("1 object differs (1 changed) in 2 producers; 1 status change."),
        "{markdown}"
    );
}

/// What a chart bump changes on every object (`app.kubernetes.io/version`, `checksum/*`…) is left
/// out of the comparison by default and named in the report; `--no-default-strip` compares it,
/// `--strip-attr` leaves out more.
#[test]
fn chart_bump_labels_are_stripped_by_default_and_named() {
    let Some(dir) = repository() else {
        return;
    };
    let repo = dir.path();
    edit(
        repo,
        "infrastructure/controllers/ingress.yaml",
        "    app.kubernetes.io/name: ingress-controller\n",
        "    app.kubernetes.io/name: ingress-controller\n    app.kubernetes.io/version: \"1.2.3\"\n",
    );
    git(repo, &["commit", "-qam", "version label"]);
    edit(
        repo,
        "infrastructure/controllers/ingress.yaml",
        "app.kubernetes.io/version: \"1.2.3\"",
        "app.kubernetes.io/version: \"1.2.4\"\n    team: web",
    );
    let (code, stdout, stderr) = diff(repo, &["--base", "HEAD"]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stdout.contains("+    team: web"), "{stdout}");
    assert!(
        !stdout.contains("app.kubernetes.io/version: \"1.2.4\""),
        "{stdout}"
    );
    assert!(
        stdout.contains("Left out of the comparison: labels and annotations helm.sh/chart, chart, app.kubernetes.io/version, checksum/*"),
        "{stdout}"
    );
    let (_, all, _) = diff(repo, &["--base", "HEAD", "--no-default-strip"]);
    assert!(
        all.contains("app.kubernetes.io/version: 1.2.4")
            || all.contains("app.kubernetes.io/version: \"1.2.4\""),
        "{all}"
    );
    let (code, none, _) = diff(repo, &["--base", "HEAD", "--strip-attr", "team"]);
    assert_eq!(code, Some(0), "only stripped keys changed: {none}");
    let (_, markdown, _) = diff(repo, &["--base", "HEAD", "-o", "markdown"]);
    assert!(
        markdown.contains("_Left out of the comparison: labels and annotations `helm.sh/chart`"),
        "{markdown}"
    );

    // The same settings from `.offlux.yaml`'s `diff` section; a flag still wins.
    std::fs::write(
        repo.join(".offlux.yaml"),
        "diff:\n  strip-attributes: [team]\n",
    )
    .expect("write the settings");
    let (code, none, stderr) = diff(repo, &["--base", "HEAD"]);
    assert_eq!(
        code,
        Some(0),
        "the file's strip set is not taken: {none}{stderr}"
    );
    let (code, _, _) = diff(repo, &["--base", "HEAD", "--strip-attr", "other"]);
    assert_eq!(code, Some(1), "the flag's list replaces the file's");
    std::fs::write(
        repo.join(".offlux.yaml"),
        "diff:\n  strip-attributes: [team]\n  default-strip: false\n",
    )
    .expect("write the settings");
    let (code, all, _) = diff(repo, &["--base", "HEAD"]);
    assert_eq!(code, Some(1), "{all}");
    assert!(all.contains("app.kubernetes.io/version"), "{all}");
    assert!(!all.contains("+    team: web"), "{all}");
}

/// `diff images`: the containers whose image a change adds, removes or changes; nothing when
/// only other fields change.
#[test]
fn diff_images_lists_the_images_a_change_rolls_out() {
    let Some(dir) = repository() else {
        return;
    };
    let repo = dir.path();
    edit(
        repo,
        "infrastructure/controllers/ingress.yaml",
        "ingress-controller:1.2.3",
        "ingress-controller:1.2.4",
    );
    let images = |args: &[&str]| {
        let output = offlux()
            .current_dir(repo)
            .args(["diff", "images", "--path", "clusters/dev", "--base", "main"])
            .args(args)
            .output()
            .expect("runs");
        (
            output.status.code(),
            String::from_utf8_lossy(&output.stdout).into_owned(),
        )
    };
    let (code, json) = images(&["-o", "json"]);
    assert_eq!(code, Some(1));
    let changes: serde_json::Value = serde_json::from_str(&json).expect("JSON");
    assert_eq!(
        changes,
        serde_json::json!([{
            "producer": "Kustomization/flux-system/infrastructure",
            "object": "Deployment/ingress/ingress-controller",
            "container": "controller",
            "base": "registry.example.com/ingress-controller:1.2.3",
            "head": "registry.example.com/ingress-controller:1.2.4"
        }])
    );
    let (_, table) = images(&[]);
    assert!(table.starts_with("CHANGE "), "{table}");
    assert!(
        table.contains("changed  Kustomization/flux-system/infrastructure"),
        "{table}"
    );
    git(repo, &["checkout", "-q", "--", "."]);
    edit(
        repo,
        "infrastructure/controllers/ingress.yaml",
        "ingress-controller:1.2.3",
        "ingress-controller:1.2.3\n          imagePullPolicy: Always",
    );
    let (code, none) = images(&["-o", "json"]);
    assert_eq!((code, none.trim()), (Some(0), "[]"));
    // A release whose chart is not at hand on the head: its images are unknown there, and the
    // command says so rather than leaving it out.
    edit(
        repo,
        "apps/base/hello/release.yaml",
        "chart: ./charts/hello",
        "chart: ./charts/missing",
    );
    let output = offlux()
        .current_dir(repo)
        .args(["diff", "images", "--path", "clusters/dev", "--base", "main"])
        .output()
        .expect("runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("note: the images of 1 producer are unknown on the side where they did not render (1 touched by the change): HelmRelease/hello/hello (its definition"),
        "{stderr}"
    );
    // Only a table or JSON: another format or a report file is a usage error, not ignored.
    for args in [
        &["-o", "html"][..],
        &["--report-html", "x.html"],
        &["--out", "trees"],
    ] {
        let (code, _) = images(args);
        assert_eq!(code, Some(2), "{args:?}");
    }
    assert!(!repo.join("x.html").exists());
}

/// `--report-html FILE`: one self-contained page, from the same comparison as the text report,
/// loaded in a real headless Chromium (Debian's; CI installs it): its script runs without an
/// error, the tree lists the changed objects, `#filter=` hides the others, and a screenshot is
/// kept in `target/test-artifacts/diff-report.png`.
#[test]
fn the_html_report_is_one_page_a_browser_loads_and_filters() {
    let Some(dir) = repository() else { return };
    let repo = dir.path();
    edit(
        repo,
        "infrastructure/controllers/kustomization.yaml",
        "namespace: ingress\n",
        "namespace: ingress\ncommonLabels:\n  tier: edge\n",
    );
    edit(
        repo,
        "infrastructure/controllers/ingress.yaml",
        "ingress-controller:1.2.3",
        "ingress-controller:1.2.4",
    );
    let page = repo.join("report.html");
    let (code, stdout, stderr) = diff(
        repo,
        &["--exit-zero", "--report-html", &page.display().to_string()],
    );
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        stdout.contains("ingress/ingress-controller changed"),
        "{stdout}"
    );
    let html = std::fs::read_to_string(&page).expect("the report");
    assert!(html.starts_with("<!doctype html>"), "{html}");
    assert!(html.trim_end().ends_with("</html>"));
    // Self-contained: nothing is fetched from anywhere.
    for external in ["src=", "<link", "@import", "url(", "http://", "https://"] {
        assert!(!html.contains(external), "the page refers to `{external}`");
    }
    // Both views, with the changed words marked.
    assert!(html.contains("<table class=\"diff unified\">"));
    assert!(html.contains("<table class=\"diff split\">"));
    assert!(
        html.contains("<ins>registry.example.com/ingress-controller:1.2.4</ins>"),
        "{html}"
    );
    assert!(
        html.contains("<table class=\"diff fields\">"),
        "no fields view"
    );
    // `-o html` prints the same page.
    let (_, printed, _) = diff(repo, &["--exit-zero", "-o", "html"]);
    assert_eq!(printed, html);

    let Some(browser) = Browser::find() else {
        return;
    };
    let url = format!("file://{}", page.display());
    let dom = |url: &str| browser.dom(url);
    let tag = |dom: &str, name: &str| {
        dom.match_indices("<article")
            .map(|(at, _)| &dom[at..at + dom[at..].find('>').unwrap_or(0)])
            .find(|tag| tag.contains(name))
            .unwrap_or_else(|| panic!("no article for {name} in {dom}"))
            .to_owned()
    };
    let loaded = dom(&url);
    assert_script_ran(&loaded);
    for object in ["ingress/ingress-controller</a>", "ingress</a>"] {
        assert!(loaded.contains(object), "the tree lacks {object}");
    }
    assert!(!tag(&loaded, "deployment ingress/ingress-controller").contains("hidden"));
    let filtered = dom(&format!("{url}#filter=namespace"));
    assert!(tag(&filtered, "deployment ingress/ingress-controller").contains("hidden"));
    assert!(!tag(&filtered, "namespace ingress").contains("hidden"));
    // The fields view: the image as `path: before → after`, the container found by its name.
    let fields = dom(&format!("{url}#view=fields"));
    assert!(
        fields.contains("data-view=\"fields\""),
        "the view did not switch"
    );
    assert!(
        fields.contains("containers<wbr>[name=controller].<wbr>image"),
        "no field row for the image"
    );
    // An address that is no valid escape is taken as written, and the script still runs.
    let odd = dom(&format!("{url}#filter=100%"));
    let body = &odd[odd.find("<body").expect("a body")..];
    assert!(body[..body.find('>').unwrap_or(0)].contains("data-ready=\"1\""));
    assert!(tag(&odd, "namespace ingress").contains("hidden"));

    let artifacts = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/test-artifacts");
    std::fs::create_dir_all(&artifacts).expect("mkdir");
    let screenshot = artifacts.join("diff-report.png");
    let _ = std::fs::remove_file(&screenshot);
    let shot = browser.run(
        &[
            "--window-size=1280,900",
            &format!("--screenshot={}", screenshot.display()),
        ],
        &url,
    );
    assert!(shot.status.success(), "{:?}", shot.status);
    let png = std::fs::read(&screenshot).expect("the screenshot");
    assert!(png.starts_with(b"\x89PNG"), "not a PNG");
}

/// Headless Chromium with a profile of its own, for the HTML report's tests.
struct Browser {
    chromium: std::path::PathBuf,
    profile: tempfile::TempDir,
}

impl Browser {
    /// `None`, with a note, when Chromium is not installed (CI installs it).
    fn find() -> Option<Browser> {
        let chromium = crate::common::tools::on_path(
            "chromium",
            "the HTML report's browser test",
            "apt-get install -y chromium",
        )?;
        Some(Browser {
            chromium,
            profile: tempfile::tempdir().expect("tempdir"),
        })
    }

    fn run(&self, extra: &[&str], url: &str) -> std::process::Output {
        Process::new(&self.chromium)
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
            ])
            .arg(format!("--user-data-dir={}", self.profile.path().display()))
            .args(extra)
            .arg(url)
            .output()
            .expect("chromium runs")
    }

    /// The page's document after its script ran.
    fn dom(&self, url: &str) -> String {
        let output = self.run(&["--dump-dom"], url);
        assert!(output.status.success(), "{:?}", output.status);
        String::from_utf8_lossy(&output.stdout).into_owned()
    }
}

/// The report's script ran to its end without an error (`data-ready`, no `data-errors`).
fn assert_script_ran(dom: &str) {
    let body = &dom[dom.find("<body").expect("a body")..];
    let body = &body[..body.find('>').unwrap_or(0)];
    assert!(
        body.contains("data-ready=\"1\""),
        "the script did not finish: {body}"
    );
    assert!(!body.contains("data-errors"), "the script failed: {body}");
}

/// The library's entry point makes the same comparison as the command: `Orchestrator::diff`, then
/// `reporting::diff`, give the JSON report `offlux diff -o json` prints.
#[test]
fn the_library_diff_is_the_commands_diff() {
    use offlux::orchestrator::diff::{BaseSide, DiffRequest};
    use offlux::orchestrator::{Config, Orchestrator};
    use offlux::reporting::diff::{compare, CompareOptions, Compared, Format};
    let Some(dir) = repository() else { return };
    edit(
        dir.path(),
        "infrastructure/controllers/kustomization.yaml",
        "namespace: ingress\n",
        "namespace: ingress\ncommonLabels:\n  tier: edge\n",
    );
    let (_, command, stderr) = diff(dir.path(), &["-o", "json", "--no-default-strip"]);
    let offlux = Orchestrator::new(Config {
        offline: true,
        ..Config::new(dir.path().join("clusters/dev"))
    });
    let sides = offlux
        .diff(&DiffRequest {
            base: BaseSide::Revision(Some("main".to_owned())),
            head: None,
            changed_only: false,
            scope: None,
        })
        .expect("both sides reconcile");
    assert_eq!(sides.base_name.split(' ').next(), Some("base"));
    assert_eq!(sides.head_name, "working tree");
    let options = CompareOptions {
        diff: offlux::diff::Options {
            context: 3,
            strip: Vec::new(),
        },
        skip_secrets: false,
        skip_crds: true,
        skip_kinds: Vec::new(),
        scope: None,
        selector: None,
    };
    let reports = compare(&sides.clusters, &options);
    let compared = Compared {
        reports: &reports,
        labels: (&sides.base_name, &sides.head_name),
        stripped: None,
        clusters: &sides.clusters,
        max_size: 60_000,
        full_report: None,
        fields: false,
    };
    let library = compared.formatted(Format::Json, false);
    assert!(library.contains("Deployment"), "{library}");
    assert_eq!(library, command, "{stderr}");
}

/// `diff ks -l SELECTOR`: the Kustomizations whose labels match, on either side, with no name
/// needed; a selector that matches none is a usage error, as a name that names none is.
#[test]
fn diff_ks_with_a_label_selector_keeps_the_matching_producers() {
    let Some(dir) = repository() else { return };
    edit(
        dir.path(),
        "clusters/dev/apps.yaml",
        "  name: apps\n",
        "  name: apps\n  labels:\n    team: web\n",
    );
    git(dir.path(), &["commit", "-q", "-am", "label the apps"]);
    edit(
        dir.path(),
        "apps/dev/hello-values.yaml",
        "replicas: 2",
        "replicas: 3",
    );
    edit(
        dir.path(),
        "infrastructure/controllers/kustomization.yaml",
        "namespace: ingress\n",
        "namespace: ingress\ncommonLabels:\n  tier: edge\n",
    );
    let whole = summary(&json(dir.path(), &[]));
    assert!(
        whole
            .iter()
            .any(|(producer, _, _)| producer == "Kustomization/infrastructure"),
        "{whole:?}"
    );
    assert_eq!(
        summary(&json(dir.path(), &["ks", "-l", "team=web"])),
        [triple("Kustomization/apps", "HelmRelease/hello", "changed")]
    );
    assert_eq!(
        summary(&json(dir.path(), &["ks", "-l", "team notin (db)"])).len(),
        whole
            .iter()
            .filter(|(producer, _, _)| producer.starts_with("Kustomization/"))
            .count()
    );
    let (code, _, stderr) = diff(dir.path(), &["ks", "-l", "team=db"]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("no Kustomization whose labels match `team=db` on either side"),
        "{stderr}"
    );
    let (code, _, stderr) = diff(dir.path(), &["-l", "team=web"]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("go with `diff ks` or `diff hr`"),
        "{stderr}"
    );
}

/// Issue 38's pull request on a copy of a corpus repository (bjw-s-labs__home-ops, charts from the
/// corpus cache, offline): a chart bump (metrics-server 3.12.2 → 3.13.0), an image change
/// (kube-state-metrics' tag), a reordered list (a policy's ports) and an edit to a release whose
/// chart is not cached (atuin). The markdown names the unrendered release first and shows no
/// chart-bump label; the reorder is said to be one; `diff images` shows both image changes; the
/// HTML report of the same run loads in a browser and lists the changed objects.
#[test]
fn a_corpus_pull_request_reads_as_a_reviewer_needs() {
    let Some(corpus) = crate::common::test_data::dir(
        "corpus/repos/bjw-s-labs__home-ops",
        "the diff scenario on a corpus repository",
    ) else {
        return;
    };
    let Some(charts) = crate::common::test_data::dir("corpus/charts", "the corpus charts") else {
        return;
    };
    if !has_git() {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let repo = dir.path();
    copy_dir(&corpus, repo);
    let apps = "kubernetes/apps";
    let metrics = format!("{apps}/kube-system/metrics-server/app/ocirepository.yaml");
    let policy = format!("{apps}/selfhosted/atuin/app/ciliumnetworkpolicy.yaml");
    let one_port = "            - port: \"8888\"\n              protocol: TCP\n";
    let other_port = "            - port: \"9999\"\n              protocol: TCP\n";
    edit(repo, &metrics, "tag: 3.14.0", "tag: 3.12.2");
    edit(repo, &policy, one_port, &format!("{one_port}{other_port}"));
    git(repo, &["init", "-q"]);
    git(repo, &["add", "-A"]);
    git(repo, &["commit", "-q", "-m", "base"]);
    edit(repo, &metrics, "tag: 3.12.2", "tag: 3.13.0");
    edit(
        repo,
        &format!("{apps}/observability/kube-state-metrics/app/helmrelease.yaml"),
        "    fullnameOverride: kube-state-metrics\n",
        "    fullnameOverride: kube-state-metrics\n    image:\n      tag: v2.15.0\n",
    );
    edit(
        repo,
        &policy,
        &format!("{one_port}{other_port}"),
        &format!("{other_port}{one_port}"),
    );
    edit(
        repo,
        &format!("{apps}/selfhosted/atuin/app/helmrelease.yaml"),
        "reloader.stakater.com/auto: \"true\"",
        "reloader.stakater.com/auto: \"false\"",
    );
    let page = dir.path().join("report.html");
    let run = |args: &[&str]| {
        let output = offlux()
            .current_dir(repo)
            .arg("diff")
            .args(args)
            .args([
                "--path",
                "kubernetes/flux/cluster",
                "--offline",
                "--base",
                "HEAD",
            ])
            .arg("--chart-cache")
            .arg(&charts)
            .output()
            .expect("runs");
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        assert_eq!(output.status.code(), Some(1), "differences: {stderr}");
        String::from_utf8_lossy(&output.stdout).into_owned()
    };
    let markdown = run(&[
        "-o",
        "markdown",
        "--report-html",
        page.to_str().expect("utf-8"),
    ]);

    let first_section = markdown.find("\n#### ").expect("sections");
    assert!(
        markdown[first_section..].starts_with("\n#### Not rendered ("),
        "{markdown}"
    );
    let unrendered = markdown
        .find("- `HelmRelease/selfhosted/atuin`")
        .expect("the edited release is listed");
    let first_diff = markdown.find("```diff").expect("diffs");
    assert!(unrendered < first_diff, "named before any diff");
    assert!(
        markdown[unrendered..].starts_with(
            "- `HelmRelease/selfhosted/atuin`: `blocked by OCIRepository/selfhosted/atuin: chart app-template"
        ),
        "{markdown}"
    );
    // The summary names it too, first.
    assert!(
        markdown.contains("\n`HelmRelease/selfhosted/atuin` changed; what it renders is unknown"),
        "{markdown}"
    );
    // The chart bump shows what runs, not the labels every object carries.
    assert!(
        markdown.contains("+        image: registry.k8s.io/metrics-server/metrics-server:v0.8.0")
    );
    for noise in ["helm.sh/chart: ", "app.kubernetes.io/version: "] {
        let diffs = &markdown[first_diff..];
        assert!(!diffs.contains(noise), "{noise} in the diffs: {diffs}");
    }
    assert!(
        markdown.contains("_Left out of the comparison: labels and annotations `helm.sh/chart`")
    );
    // The reorder is said to be one.
    assert!(
        markdown.contains(
            "| changed | `CiliumNetworkPolicy` | `selfhosted` | `atuin` | only reordered: 1 list item moved |"
        ),
        "{markdown}"
    );

    let images: serde_json::Value =
        serde_json::from_str(&run(&["images", "-o", "json"])).expect("json");
    let changed: Vec<(String, String, String)> = images
        .as_array()
        .expect("a list")
        .iter()
        .map(|c| {
            let text = |key: &str| c[key].as_str().unwrap_or_default().to_owned();
            (text("object"), text("base"), text("head"))
        })
        .collect();
    assert_eq!(
        changed,
        [
            (
                "Deployment/kube-system/metrics-server".to_owned(),
                "registry.k8s.io/metrics-server/metrics-server:v0.7.2".to_owned(),
                "registry.k8s.io/metrics-server/metrics-server:v0.8.0".to_owned()
            ),
            (
                "Deployment/observability/kube-state-metrics".to_owned(),
                "registry.k8s.io/kube-state-metrics/kube-state-metrics:v2.20.0".to_owned(),
                "registry.k8s.io/kube-state-metrics/kube-state-metrics:v2.15.0".to_owned()
            ),
        ]
    );

    let Some(browser) = Browser::find() else {
        return;
    };
    let dom = browser.dom(&format!("file://{}", page.display()));
    assert_script_ran(&dom);
    for object in [
        "kube-system/metrics-server</a>",
        "observability/kube-state-metrics</a>",
        "selfhosted/atuin</a>",
    ] {
        assert!(dom.contains(object), "the tree lacks {object}");
    }
}

/// `diff hr NAME` of a release that rendered on neither side (its chart is in no cache) still
/// shows its own definition's change, and exits 1: a changed release is a difference. The
/// failures of producers outside the comparison are not warned about.
#[test]
fn diff_hr_of_an_unrendered_release_shows_its_definition_and_differs() {
    let Some(dir) = repository_with_uncached_chart() else {
        return;
    };
    let (code, stdout, stderr) = diff(dir.path(), &["hr", "podinfo", "--offline"]);
    assert_eq!(code, Some(1), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("~ HelmRelease hello/podinfo changed"),
        "{stdout}"
    );
    assert!(stdout.contains("+    replicaCount: 2"), "{stdout}");
    assert!(!stderr.contains("warning:"), "{stderr}");
}

/// `--changed-only` keeps a change to a Kustomization's own definition when the Kustomization
/// that applies it is made at run time (a FluxInstance's sync): on a copy of
/// mirceanton__home-ops, labelling one Kustomization gives the same comparison with and without
/// `--changed-only`.
#[test]
fn changed_only_keeps_a_change_a_generated_kustomization_applies() {
    let Some(incoming) = crate::common::test_data::dir(
        "corpus/incoming/mirceanton__home-ops",
        "--changed-only on a Flux Operator repository",
    ) else {
        return;
    };
    if !has_git() {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let repo = dir.path();
    copy_dir(&incoming, repo);
    git(repo, &["init", "-q"]);
    git(repo, &["add", "-A"]);
    git(repo, &["commit", "-q", "-m", "base"]);
    edit(
        repo,
        "apps/monitoring-system/blackbox-exporter/app.ks.yaml",
        "  interval: 10m\n",
        "  interval: 30m\n",
    );
    let run = |extra: &[&str]| {
        let output = offlux()
            .current_dir(repo)
            .args(["diff", "--offline", "--base", "HEAD", "-o", "json"])
            .args(extra)
            .output()
            .expect("runs");
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        assert_eq!(output.status.code(), Some(1), "a difference: {stderr}");
        let value: serde_json::Value = serde_json::from_slice(&output.stdout).expect("json");
        let changes = if value.is_array() {
            value
        } else {
            value["changes"].clone()
        };
        summary(changes.as_array().expect("changes"))
    };
    let whole = run(&[]);
    assert_eq!(
        whole,
        [triple(
            "Kustomization/flux-system",
            "Kustomization/blackbox-exporter",
            "changed"
        )]
    );
    assert_eq!(run(&["--changed-only"]), whole);
}

/// A base that names no revision is a usage error whose hint lists the branches there are.
#[test]
fn an_unknown_base_names_the_branches_there_are() {
    let Some(dir) = repository() else { return };
    git(dir.path(), &["branch", "feature/x"]);
    let (code, _, stderr) = diff(dir.path(), &["--base", "nope"]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("error: base: unknown revision `nope`"),
        "{stderr}"
    );
    assert!(
        stderr.contains("branches here: feature/x, main"),
        "{stderr}"
    );
}
