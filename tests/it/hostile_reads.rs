//! Hostile repositories against the guarded door (issue 21): files outside the root, devices,
//! the process environment, nesting and expansion bombs. Every fixture is built at run time in a
//! temporary directory.

use std::path::Path;
use std::time::{Duration, Instant};

use assert_cmd::Command;
use offlux::kustomize::{self, LoadRestrictor, Options};

const SECRET: &str = "TOP-SECRET-OUTSIDE";

fn write(root: &Path, relative: &str, text: &str) {
    let path = root.join(relative);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).unwrap_or_else(|e| panic!("{e}"));
    }
    std::fs::write(path, text).unwrap_or_else(|e| panic!("{e}"));
}

#[cfg(unix)]
fn symlink(target: &Path, link: &Path) {
    std::os::unix::fs::symlink(target, link).unwrap_or_else(|e| panic!("{e}"));
}

fn offlux() -> Command {
    let mut command = Command::cargo_bin("offlux").unwrap_or_else(|e| panic!("{e}"));
    command.env("NO_COLOR", "1");
    command
}

fn build(dir: &Path, restrictor: LoadRestrictor, fs_root: Option<&Path>) -> Result<String, String> {
    let options = Options {
        load_restrictor: restrictor,
        fs_root: fs_root.map(Path::to_path_buf),
        ..Options::default()
    };
    kustomize::build(dir, &options)
        .map(|b| kustomize::to_yaml(&b))
        .map_err(|e| e.to_string())
}

fn text(output: &std::process::Output) -> (String, String) {
    (
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// A temporary directory holding `secret.txt` (outside any repository) and `repo/`.
fn outside_and_repo() -> (tempfile::TempDir, std::path::PathBuf) {
    let top = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let top_path = top.path().canonicalize().unwrap_or_else(|e| panic!("{e}"));
    write(&top_path, "secret.txt", SECRET);
    let repo = top_path.join("repo");
    std::fs::create_dir_all(&repo).unwrap_or_else(|e| panic!("{e}"));
    (top, repo)
}

#[cfg(unix)]
#[test]
fn generator_files_outside_the_root_are_refused_under_every_restrictor() {
    let (top, repo) = outside_and_repo();
    let secret = repo.parent().unwrap_or(top.path()).join("secret.txt");
    symlink(&secret, &repo.join("link.txt"));
    let absolute = secret.display().to_string();
    let entries = [
        absolute.clone(),
        format!("x={absolute}"),
        "x=../secret.txt".to_string(),
        "x=../../../../../../../../..".to_string() + &absolute,
        "link.txt".to_string(),
    ];
    for generator in ["configMapGenerator", "secretGenerator"] {
        for field in ["files", "envs"] {
            for entry in &entries {
                if field == "envs" && entry.contains('=') {
                    continue;
                }
                write(
                    &repo,
                    "kustomization.yaml",
                    &format!("{generator}:\n- name: leak\n  {field}:\n  - {entry}\n"),
                );
                for (restrictor, fs_root) in [
                    (LoadRestrictor::RootOnly, None),
                    (LoadRestrictor::None, Some(repo.as_path())),
                ] {
                    let built = build(&repo, restrictor, fs_root);
                    let Err(message) = &built else {
                        panic!("{generator} {field} `{entry}` under {restrictor:?} was read: {built:?}");
                    };
                    assert!(
                        message.contains("security") && !message.contains(SECRET),
                        "{generator} {field} `{entry}` under {restrictor:?}: {message}"
                    );
                }
            }
        }
    }
}

#[cfg(unix)]
#[test]
fn devices_are_refused_not_read() {
    let (_top, repo) = outside_and_repo();
    symlink(Path::new("/dev/null"), &repo.join("null.txt"));
    for entry in ["null.txt", "z=/dev/zero", "/dev/null"] {
        write(
            &repo,
            "kustomization.yaml",
            &format!("configMapGenerator:\n- name: dev\n  files:\n  - {entry}\n"),
        );
        let started = Instant::now();
        let built = build(&repo, LoadRestrictor::None, None);
        assert!(started.elapsed() < Duration::from_secs(5), "{entry}");
        let Err(message) = &built else {
            panic!("`{entry}` was read: {built:?}");
        };
        assert!(message.contains("not a regular file"), "{entry}: {message}");
    }
}

#[test]
fn kustomize_build_refuses_an_absolute_generator_file() {
    let (top, repo) = outside_and_repo();
    let secret = repo.parent().unwrap_or(top.path()).join("secret.txt");
    write(
        &repo,
        "kustomization.yaml",
        &format!(
            "configMapGenerator:\n- name: leak\n  files:\n  - {}\n",
            secret.display()
        ),
    );
    let output = offlux()
        .args(["kustomize", "build"])
        .arg(&repo)
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    let (stdout, stderr) = text(&output);
    assert_eq!(output.status.code(), Some(1), "{stdout}{stderr}");
    assert!(!stdout.contains(SECRET) && !stderr.contains(SECRET));
    assert!(stderr.contains("security"), "{stderr}");
}

#[test]
fn an_env_files_bare_key_is_not_filled_from_the_process_environment_unless_asked() {
    let (_top, repo) = outside_and_repo();
    write(
        &repo,
        "kustomization.yaml",
        "configMapGenerator:\n- name: env\n  envs:\n  - vars.env\n",
    );
    write(&repo, "vars.env", "PLAIN=visible\nOFFLUX_TEST_CI_TOKEN\n");
    let run = |extra: &[&str]| {
        offlux()
            .args(["kustomize", "build"])
            .arg(&repo)
            .args(extra)
            .env("OFFLUX_TEST_CI_TOKEN", "hunter2")
            .output()
            .unwrap_or_else(|e| panic!("{e}"))
    };
    let output = run(&[]);
    let (stdout, stderr) = text(&output);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(stdout.contains("PLAIN: visible"), "{stdout}");
    assert!(!stdout.contains("hunter2"), "{stdout}");
    assert!(
        stderr.contains("vars.env:2") && stderr.contains("`OFFLUX_TEST_CI_TOKEN`"),
        "{stderr}"
    );
    let output = run(&["--env-from-process"]);
    let (stdout, stderr) = text(&output);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(stdout.contains("OFFLUX_TEST_CI_TOKEN: hunter2"), "{stdout}");
}

/// A Flux repository: the bootstrap source and `extra` documents in `flux.yaml`.
fn flux_repository(repo: &Path, extra: &str) {
    write(
        repo,
        "flux.yaml",
        &format!(
            "apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata: {{name: flux-system, namespace: flux-system}}\nspec:\n  url: https://example.invalid/repo.git\n  ref: {{branch: main}}\n---\n{extra}"
        ),
    );
}

fn render(repo: &Path, extra: &[&str]) -> std::process::Output {
    offlux()
        .arg("render")
        .arg("--path")
        .arg(repo)
        .arg("--root")
        .arg(repo)
        .args(extra)
        .env("OFFLUX_TEST_CI_TOKEN", "hunter2")
        .output()
        .unwrap_or_else(|e| panic!("{e}"))
}

const APP_KUSTOMIZATION: &str = "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: app, namespace: flux-system}\nspec:\n  path: ./app\n  sourceRef: {kind: GitRepository, name: flux-system}\n";

#[test]
fn flux_builds_leave_out_bare_env_keys_with_a_located_warning() {
    let (_top, repo) = outside_and_repo();
    flux_repository(&repo, APP_KUSTOMIZATION);
    write(
        &repo,
        "app/kustomization.yaml",
        "configMapGenerator:\n- name: env\n  namespace: default\n  envs:\n  - vars.env\n",
    );
    write(
        &repo,
        "app/vars.env",
        "PLAIN=visible\nOFFLUX_TEST_CI_TOKEN\n",
    );
    let output = render(&repo, &[]);
    let (stdout, stderr) = text(&output);
    assert!(stdout.contains("PLAIN: visible"), "{stdout}{stderr}");
    assert!(!stdout.contains("hunter2"), "{stdout}");
    assert!(
        stderr.contains("app/vars.env:2") && stderr.contains("`OFFLUX_TEST_CI_TOKEN`"),
        "{stderr}"
    );
    let output = render(&repo, &["--env-from-process"]);
    let (stdout, stderr) = text(&output);
    assert!(
        stdout.contains("OFFLUX_TEST_CI_TOKEN: hunter2"),
        "{stdout}{stderr}"
    );
}

#[cfg(unix)]
#[test]
fn a_values_file_symlinked_out_of_the_repository_is_refused() {
    let (top, repo) = outside_and_repo();
    let outside = repo.parent().unwrap_or(top.path()).join("values.yaml");
    std::fs::write(&outside, format!("secret: {SECRET}\n")).unwrap_or_else(|e| panic!("{e}"));
    flux_repository(
        &repo,
        "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {name: hello, namespace: default}\nspec:\n  chart:\n    spec:\n      chart: ./charts/hello\n      sourceRef: {kind: GitRepository, name: flux-system, namespace: flux-system}\n      valuesFiles: [./values/leak.yaml]\n",
    );
    write(
        &repo,
        "charts/hello/Chart.yaml",
        "apiVersion: v2\nname: hello\nversion: 0.1.0\n",
    );
    write(&repo, "charts/hello/values.yaml", "secret: none\n");
    write(
        &repo,
        "charts/hello/templates/cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: hello\ndata:\n  secret: {{ .Values.secret | quote }}\n",
    );
    std::fs::create_dir_all(repo.join("values")).unwrap_or_else(|e| panic!("{e}"));
    symlink(&outside, &repo.join("values/leak.yaml"));
    let output = offlux()
        .args(["build", "hr", "hello", "--path"])
        .arg(&repo)
        .arg("--root")
        .arg(&repo)
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    let (stdout, stderr) = text(&output);
    assert!(
        !stdout.contains(SECRET) && !stderr.contains(SECRET),
        "{stdout}{stderr}"
    );
    assert_ne!(output.status.code(), Some(0), "{stdout}{stderr}");
    assert!(stderr.contains("leads outside"), "{stderr}");
}

#[cfg(unix)]
#[test]
fn a_spec_path_through_an_outside_symlink_is_not_followed_or_read() {
    let (top, repo) = outside_and_repo();
    let outside = repo.parent().unwrap_or(top.path()).join("outside");
    write(
        &outside,
        "kustomization.yaml",
        &format!("configMapGenerator:\n- name: outside\n  literals: [marker={SECRET}]\n"),
    );
    flux_repository(
        &repo,
        &APP_KUSTOMIZATION.replace("path: ./app", "path: ./link"),
    );
    symlink(&outside, &repo.join("link"));
    let output = render(&repo, &[]);
    let (stdout, stderr) = text(&output);
    assert!(
        !stdout.contains(SECRET) && !stderr.contains(SECRET),
        "{stdout}{stderr}"
    );
    assert!(
        stderr.contains("`spec.path` `./link` leads outside the repository"),
        "{stderr}"
    );
}

/// `.offlux.yaml` is the repository's own: its `sources:` may map a source only to a directory
/// inside the repository, as its `path` and `chart-cache` may name only one. A relative path
/// up and out, an absolute path and a link inside leading out are each refused before anything
/// is read (the command line's `--sources`, which the user gives, may name any directory).
#[cfg(unix)]
#[test]
fn offlux_yaml_sources_cannot_map_a_source_outside_the_repository() {
    let (top, repo) = outside_and_repo();
    let outside = repo.parent().unwrap_or(top.path()).join("outside");
    write(
        &outside,
        "app/cm.yaml",
        &format!("apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: leak, namespace: default}}\ndata: {{marker: {SECRET}}}\n"),
    );
    flux_repository(
        &repo,
        "apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata: {name: evil, namespace: flux-system}\nspec: {url: 'https://example.invalid/x.git', ref: {branch: main}}\n---\n\
         apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: steal, namespace: flux-system}\nspec: {path: ./app, sourceRef: {kind: GitRepository, name: evil}}\n",
    );
    symlink(&outside, &repo.join("link"));
    for (mapped, why) in [
        (
            "../outside".to_owned(),
            "must be a path inside the repository",
        ),
        (
            outside.display().to_string(),
            "must be a path inside the repository",
        ),
        ("link".to_owned(), "leads out of the repository"),
    ] {
        write(
            &repo,
            ".offlux.yaml",
            &format!("sources: {{evil: '{mapped}'}}\n"),
        );
        let output = render(&repo, &["--offline"]);
        let (stdout, stderr) = text(&output);
        assert!(
            !stdout.contains(SECRET) && !stderr.contains(SECRET),
            "{mapped}: {stdout}{stderr}"
        );
        assert!(
            stderr.contains("`sources.evil`") && stderr.contains(why),
            "{mapped}: {stderr}"
        );
        assert_eq!(output.status.code(), Some(2), "{mapped}: {stderr}");
    }
    // The user's own flag may map it anywhere.
    std::fs::remove_file(repo.join(".offlux.yaml")).unwrap_or_else(|e| panic!("{e}"));
    let flag = format!("evil={}", outside.display());
    let output = render(&repo, &["--offline", "--sources", &flag]);
    let (stdout, stderr) = text(&output);
    assert!(stdout.contains(SECRET), "{stdout}{stderr}");
}

/// `l0` includes `l1`, which includes `l2`, … down to `l{depth}`, which holds a ConfigMap.
fn nested_bases(root: &Path, depth: usize) {
    for level in 0..depth {
        write(
            root,
            &format!("l{level}/kustomization.yaml"),
            &format!("resources:\n- ../l{}\n", level + 1),
        );
    }
    write(
        root,
        &format!("l{depth}/kustomization.yaml"),
        "resources: [cm.yaml]\n",
    );
    write(
        root,
        &format!("l{depth}/cm.yaml"),
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: deep, namespace: default}\n",
    );
}

#[test]
fn nesting_is_bounded_with_a_located_error() {
    let (_top, repo) = outside_and_repo();
    nested_bases(&repo, 150);
    let built = build(&repo.join("l0"), LoadRestrictor::RootOnly, None);
    let Err(message) = built else {
        panic!("150 nested kustomizations were built");
    };
    assert!(message.contains("nest more than 100 deep"), "{message}");
    // A shallow chain still builds.
    let (_top, shallow) = outside_and_repo();
    nested_bases(&shallow, 20);
    let built = build(&shallow.join("l0"), LoadRestrictor::RootOnly, None);
    assert!(built.is_ok_and(|yaml| yaml.contains("name: deep")));
}

#[test]
fn deep_nesting_in_a_render_fails_instead_of_overflowing_the_stack() {
    let (_top, repo) = outside_and_repo();
    flux_repository(
        &repo,
        &APP_KUSTOMIZATION.replace("path: ./app", "path: ./l0"),
    );
    nested_bases(&repo, 500);
    let output = render(&repo, &[]);
    let (stdout, stderr) = text(&output);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        format!("{stdout}{stderr}").contains("nest more than 100 deep"),
        "{stdout}{stderr}"
    );
}

#[test]
fn a_json_patch_that_doubles_an_object_stops_at_the_size_limit() {
    let (_top, repo) = outside_and_repo();
    let mut ops = String::new();
    for i in 0..60 {
        ops.push_str(&format!("      - {{op: copy, from: /x, path: /x/k{i}}}\n"));
    }
    write(
        &repo,
        "kustomization.yaml",
        &format!(
            "resources: [cm.yaml]\npatches:\n  - target: {{kind: ConfigMap}}\n    patch: |\n{ops}"
        ),
    );
    write(
        &repo,
        "cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\nx: {a: b}\n",
    );
    let started = Instant::now();
    let built = build(&repo, LoadRestrictor::RootOnly, None);
    assert!(started.elapsed() < Duration::from_secs(30));
    let Err(message) = built else {
        panic!("the doubling patch was applied");
    };
    assert!(message.contains("larger than"), "{message}");
}

#[test]
fn many_generator_literals_build_in_linear_time_and_duplicates_are_still_refused() {
    let (_top, repo) = outside_and_repo();
    let mut kustomization = String::from("configMapGenerator:\n- name: many\n  literals:\n");
    for i in 0..100_000 {
        kustomization.push_str(&format!("  - k{i}=v{i}\n"));
    }
    write(&repo, "kustomization.yaml", &kustomization);
    let started = Instant::now();
    let built = build(&repo, LoadRestrictor::RootOnly, None);
    let elapsed = started.elapsed();
    assert!(
        built
            .as_ref()
            .is_ok_and(|yaml| yaml.contains("k99999: v99999")),
        "{built:?}"
    );
    assert!(elapsed < Duration::from_secs(60), "{elapsed:?}");
    write(
        &repo,
        "kustomization.yaml",
        "configMapGenerator:\n- name: twice\n  literals: [a=1, b=2, a=3]\n",
    );
    let built = build(&repo, LoadRestrictor::RootOnly, None);
    assert!(
        built
            .as_ref()
            .is_err_and(|m| m.contains("illegally repeats the key `a`")),
        "{built:?}"
    );
}

#[test]
fn a_merging_generator_with_many_keys_builds_in_linear_time() {
    let (_top, repo) = outside_and_repo();
    let mut base = String::from("configMapGenerator:\n- name: many\n  literals:\n");
    let mut overlay = String::from(
        "resources: [../base]\nconfigMapGenerator:\n- name: many\n  behavior: merge\n  literals:\n",
    );
    for i in 0..50_000 {
        base.push_str(&format!("  - k{i}=base\n"));
        overlay.push_str(&format!("  - k{}=overlay\n", i + 25_000));
    }
    write(&repo, "base/kustomization.yaml", &base);
    write(&repo, "overlay/kustomization.yaml", &overlay);
    let started = Instant::now();
    let built = build(&repo.join("overlay"), LoadRestrictor::None, None);
    let elapsed = started.elapsed();
    let yaml = built.unwrap_or_else(|e| panic!("{e}"));
    assert!(
        yaml.contains("k0: base")
            && yaml.contains("k30000: overlay")
            && yaml.contains("k74999: overlay")
    );
    assert!(elapsed < Duration::from_secs(60), "{elapsed:?}");
}

/// Files named on the command line go through the same door: a device given as
/// `--resourceset-inputs` is refused at once with a usage error, not read.
#[cfg(unix)]
#[test]
fn a_device_given_as_resourceset_inputs_is_refused() {
    let (_top, repo) = outside_and_repo();
    let started = Instant::now();
    let output = offlux()
        .args([
            "test",
            "--offline",
            "--resourceset-inputs",
            "flux-system/p=/dev/zero",
            "--path",
        ])
        .arg(&repo)
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("/dev/zero") && stderr.contains("not a regular file"),
        "{stderr}"
    );
}

/// `--changed-only` compares working files with the base by their content; a directory of the
/// working tree replaced by a symlink to elsewhere is not read through (what lies there may be
/// outside the repository): its files count as changed, whatever the outside files hold.
#[cfg(unix)]
#[test]
fn changed_only_reads_no_file_through_a_symlinked_directory() {
    let git_found = std::process::Command::new("git")
        .arg("--version")
        .output()
        .is_ok();
    if !git_found {
        eprintln!("skipped: no `git` binary to make test repositories with");
        return;
    }
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let (repo, outside) = (dir.path().join("repo"), dir.path().join("outside"));
    let data = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: data\n  namespace: default\n";
    write(
        &repo,
        "clusters/dev/apps.yaml",
        "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: apps\n  namespace: flux-system\nspec:\n  interval: 10m\n  path: ./apps\n  prune: true\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n",
    );
    write(&repo, "apps/data.yaml", data);
    let git = |args: &[&str]| {
        let output = std::process::Command::new("git")
            .current_dir(&repo)
            .args([
                "-c",
                "user.name=t",
                "-c",
                "user.email=t@e",
                "-c",
                "commit.gpgsign=false",
            ])
            .args(args)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .output()
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(output.status.success(), "{output:?}");
    };
    git(&["init", "-q"]);
    git(&["add", "-A"]);
    git(&["commit", "-q", "-m", "base"]);
    // The same file, outside, and the directory made a symlink to it.
    write(&outside, "data.yaml", data);
    std::fs::remove_dir_all(repo.join("apps")).unwrap_or_else(|e| panic!("{e}"));
    symlink(&outside, &repo.join("apps"));
    let output = Command::cargo_bin("offlux")
        .unwrap_or_else(|e| panic!("{e}"))
        .current_dir(&repo)
        .args([
            "test",
            "--changed-only",
            "--base",
            "HEAD",
            "--path",
            "clusters/dev",
        ])
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    let stderr = String::from_utf8_lossy(&output.stderr);
    // `apps/data.yaml` (behind the symlink: changed, unread) and the symlink `apps` itself.
    assert!(
        stderr.contains("--changed-only: 2 files changed since"),
        "the file behind the symlink counts as changed, unread: {stderr}"
    );
}

/// A `.git` file naming a git directory outside the working tree is followed only when that
/// directory names the working tree back, as git's own links do, or is a separate git directory
/// (no other checkout's `.git`, not bare): a linked worktree (`git worktree add`) and a
/// `--separate-git-dir` clone open, while a `.git` file a repository carries that points at
/// another checkout of the machine (a tarball's, an artifact's) is refused before anything of
/// the other repository is read.
#[test]
fn a_git_file_is_followed_only_to_a_git_directory_that_names_the_tree_back() {
    use crate::common::git::git;
    let top = tempfile::tempdir().expect("tempdir");
    let main = top.path().join("main");
    std::fs::create_dir_all(&main).expect("mkdir");
    if git(&main, &["init", "-q"]).is_none() {
        return;
    }
    std::fs::write(main.join("a.yaml"), "a: 1\n").expect("write");
    git(&main, &["add", "."]);
    git(&main, &["commit", "-qm", "first"]);
    let linked = top.path().join("linked");
    git(
        &main,
        &[
            "worktree",
            "add",
            "-q",
            linked.to_str().expect("utf-8"),
            "-b",
            "other",
        ],
    );
    let repository =
        offlux::gitrev::Repository::discover(&linked).expect("a linked worktree opens");
    assert!(repository.resolve("main").is_ok());

    // `git clone --separate-git-dir` links nothing back, and its git directory is no `.git`.
    let separate = top.path().join("separate");
    git(
        top.path(),
        &[
            "clone",
            "-q",
            "--separate-git-dir",
            top.path().join("separate.git").to_str().expect("utf-8"),
            main.to_str().expect("utf-8"),
            separate.to_str().expect("utf-8"),
        ],
    );
    let repository =
        offlux::gitrev::Repository::discover(&separate).expect("a separate git dir opens");
    assert!(repository.resolve("HEAD").is_ok());

    let stranger = top.path().join("stranger");
    std::fs::create_dir_all(&stranger).expect("mkdir");
    std::fs::write(
        stranger.join(".git"),
        format!("gitdir: {}\n", main.join(".git").display()),
    )
    .expect("write");
    let error = offlux::gitrev::Repository::discover(&stranger).expect_err("refused");
    assert!(
        error
            .to_string()
            .contains("does not name this working tree back"),
        "{error}"
    );
}
