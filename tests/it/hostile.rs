//! Hostile repositories (issue 21): what a stranger's pull request must not be able to make
//! offlux do. Every fixture is built at run time in a temporary directory.

use std::io::{Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use assert_cmd::Command;

fn offlux() -> Command {
    let mut command = Command::cargo_bin("offlux").expect("binary is built");
    command
        .env("NO_COLOR", "1")
        .timeout(Duration::from_secs(60));
    command
}

fn write(root: &Path, files: &[(&str, &str)]) {
    for (path, text) in files {
        let path = root.join(path);
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
        std::fs::write(path, text).expect("write");
    }
}

fn kustomization(name: &str, path: &str, source: &str) -> String {
    format!(
        "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: {name}\n  namespace: flux-system\nspec:\n  interval: 10m\n  path: {path}\n  prune: true\n  sourceRef:\n    kind: GitRepository\n    name: {source}\n"
    )
}

const CONFIG_MAP: &str = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: default\ndata:\n  a: b\n";

/// A repository whose Kustomization `apps` applies one ConfigMap from `apps/`.
fn repository() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir_all(dir.path().join(".git")).expect("mkdir");
    write(
        dir.path(),
        &[
            (
                "clusters/dev/apps.yaml",
                &kustomization("apps", "./apps", "flux-system"),
            ),
            ("apps/kustomization.yaml", "resources: [cm.yaml]\n"),
            ("apps/cm.yaml", CONFIG_MAP),
        ],
    );
    dir
}

fn run(args: &[&str], root: &Path, extra: &[&std::ffi::OsStr]) -> Output {
    offlux()
        .args(args)
        .arg("--path")
        .arg(root)
        .args(extra)
        .output()
        .expect("runs")
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn render_out(root: &Path, out: &Path) -> Output {
    run(&["render"], root, &["--out".as_ref(), out.as_os_str()])
}

const APPS_FILE: &str = "Kustomization/flux-system/apps.yaml";

// Writes: `render --out DIR` owns only what it wrote.

#[test]
fn render_out_refuses_files_it_did_not_write_and_leaves_them() {
    let repo = repository();
    let out = tempfile::tempdir().expect("tempdir");
    let user = out.path().join("notes/mine/keep.yaml");
    write(
        out.path(),
        &[("notes/mine/keep.yaml", "mine\n"), ("README.md", "mine\n")],
    );
    let output = render_out(repo.path(), out.path());
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("was not written by offlux"),
        "{}",
        stderr(&output)
    );
    assert_eq!(std::fs::read_to_string(&user).expect("kept"), "mine\n");
    assert!(!out.path().join(APPS_FILE).exists(), "nothing written");
    // A file outside the layout does not stand in the way.
    std::fs::remove_dir_all(out.path().join("notes")).expect("rm");
    let output = render_out(repo.path(), out.path());
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(out.path().join(APPS_FILE).is_file());
    assert!(out.path().join(".offlux-manifest").is_file());
    assert_eq!(
        std::fs::read_to_string(out.path().join("README.md")).expect("kept"),
        "mine\n"
    );
}

#[test]
fn render_out_refuses_the_repository_and_its_ancestors() {
    let repo = repository();
    for out in [repo.path().to_path_buf(), repo.path().join("..")] {
        let output = render_out(repo.path(), &out);
        assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
        assert!(
            stderr(&output).contains("repository root"),
            "{}",
            stderr(&output)
        );
    }
    assert!(repo.path().join("clusters/dev/apps.yaml").is_file());
    assert!(repo.path().join("apps/cm.yaml").is_file());
    // Inside the repository: refused unless asked for (issue 35), then written with a warning
    // that the next run reads it.
    let output = render_out(repo.path(), &repo.path().join("rendered"));
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("--out-inside-repo"),
        "{}",
        stderr(&output)
    );
    assert!(!repo.path().join("rendered").exists());
    let output = run(
        &["render", "--out-inside-repo"],
        repo.path(),
        &["--out".as_ref(), repo.path().join("rendered").as_os_str()],
    );
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("inside the repository"),
        "{}",
        stderr(&output)
    );
}

#[cfg(unix)]
#[test]
fn render_out_never_follows_a_symlink_inside_dir() {
    let repo = repository();
    let out = tempfile::tempdir().expect("tempdir");
    let outside = tempfile::tempdir().expect("tempdir");
    write(outside.path(), &[("flux-system/victim.yaml", "precious\n")]);
    std::os::unix::fs::symlink(outside.path(), out.path().join("Kustomization")).expect("link");
    let output = render_out(repo.path(), out.path());
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("symbolic link"),
        "{}",
        stderr(&output)
    );
    assert_eq!(
        std::fs::read_to_string(outside.path().join("flux-system/victim.yaml")).expect("kept"),
        "precious\n"
    );
    assert!(!outside.path().join("flux-system/apps.yaml").exists());
}

#[test]
fn a_failed_producer_keeps_its_last_good_file() {
    let repo = repository();
    let out = tempfile::tempdir().expect("tempdir");
    assert_eq!(render_out(repo.path(), out.path()).status.code(), Some(0));
    let good = std::fs::read_to_string(out.path().join(APPS_FILE)).expect("written");
    assert!(good.contains("name: settings"), "{good}");
    write(
        repo.path(),
        &[("apps/kustomization.yaml", "resources: [missing.yaml]\n")],
    );
    let output = render_out(repo.path(), out.path());
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    assert_eq!(
        std::fs::read_to_string(out.path().join(APPS_FILE)).expect("kept"),
        good
    );
    // Once it is gone from the repository, its file goes too (another producer stays: a path
    // holding no Flux object at all is a usage error).
    std::fs::remove_file(repo.path().join("clusters/dev/apps.yaml")).expect("rm");
    write(
        repo.path(),
        &[
            (
                "clusters/dev/other.yaml",
                &kustomization("other", "./other", "flux-system"),
            ),
            ("other/cm.yaml", CONFIG_MAP),
        ],
    );
    let output = render_out(repo.path(), out.path());
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(!out.path().join(APPS_FILE).exists());
}

#[test]
fn a_253_character_name_is_written() {
    let repo = repository();
    let name = format!("a{}", "b".repeat(252));
    write(
        repo.path(),
        &[(
            "clusters/dev/long.yaml",
            &kustomization(&name, "./apps", "flux-system"),
        )],
    );
    let out = tempfile::tempdir().expect("tempdir");
    let output = render_out(repo.path(), out.path());
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let files: Vec<String> = std::fs::read_dir(out.path().join("Kustomization/flux-system"))
        .expect("listed")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(files.len(), 2, "{files:?}");
    assert!(
        files
            .iter()
            .any(|f| f.starts_with("abbb") && f.len() <= 255),
        "{files:?}"
    );
}

// Crashes.

#[test]
fn a_closed_stdout_ends_quietly() {
    let repo = repository();
    // More than a pipe holds, so the writer meets the closed pipe whatever the timing.
    let big = format!("{CONFIG_MAP}  big: {}\n", "x".repeat(300_000));
    write(repo.path(), &[("apps/cm.yaml", &big)]);
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_offlux"))
        .arg("render")
        .arg("--path")
        .arg(repo.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawns");
    let mut first = [0u8; 1];
    child
        .stdout
        .take()
        .expect("stdout")
        .read_exact(&mut first)
        .expect("one byte");
    let output = child.wait_with_output().expect("ends");
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(!stderr(&output).contains("panicked"), "{}", stderr(&output));
}

#[test]
fn too_many_workers_is_a_usage_error() {
    let repo = repository();
    let output = run(&["test", "--concurrency", "200"], repo.path(), &[]);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(!stderr(&output).contains("panicked"));
    let output = run(&["test", "--concurrency", "0"], repo.path(), &[]);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
}

// Failing where the input is broken.

#[test]
fn validate_fails_when_a_kustomization_does_not_build() {
    let repo = repository();
    write(
        repo.path(),
        &[("apps/kustomization.yaml", "resources: [missing.yaml]\n")],
    );
    let output = run(&["validate"], repo.path(), &[]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("Kustomization/flux-system/apps"),
        "{}",
        stderr(&output)
    );
    // Every machine format carries the failed producer too, at its file and line (OFX100).
    for format in ["json", "sarif", "junit", "github"] {
        let output = run(&["validate", "-o", format], repo.path(), &[]);
        assert_eq!(
            output.status.code(),
            Some(1),
            "{format}: {}",
            stderr(&output)
        );
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(
            stdout.contains("OFX100")
                && stdout.contains("Kustomization/flux-system/apps")
                && stdout.contains("clusters/dev/apps.yaml")
                && stdout.contains("missing.yaml"),
            "{format}: {stdout}"
        );
    }
    let json: serde_json::Value =
        serde_json::from_slice(&run(&["validate", "-o", "json"], repo.path(), &[]).stdout)
            .expect("JSON");
    assert_eq!(json[0]["code"], "OFX100", "{json}");
    assert!(
        json[0]["line"].as_u64().is_some_and(|line| line > 0),
        "{json}"
    );
}

#[test]
fn a_source_defined_nowhere_is_not_found() {
    let repo = repository();
    write(
        repo.path(),
        &[(
            "clusters/dev/apps.yaml",
            &kustomization("apps", "./apps", "elsewhere"),
        )],
    );
    let output = run(&["test"], repo.path(), &[]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains("FAIL") && stdout.contains("GitRepository/flux-system/elsewhere not found"),
        "{stdout}"
    );
    // `--allow-missing-sources` is for sources that exist but cannot be fetched: a source
    // defined nowhere is a typo, which Flux fails on.
    let output = run(&["test", "--allow-missing-sources"], repo.path(), &[]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains("FAIL") && stdout.contains("not found"),
        "{stdout}"
    );
    // The bootstrap source is the working tree.
    let bootstrap = repository();
    let output = run(&["test"], bootstrap.path(), &[]);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stdout)
    );
}

// Network egress.

/// An HTTP server on loopback that counts connections and answers 404, for at most a minute.
struct Server {
    port: u16,
    hits: Arc<AtomicUsize>,
    stop: Arc<AtomicBool>,
}

impl Server {
    fn start() -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        listener.set_nonblocking(true).expect("nonblocking");
        let port = listener.local_addr().expect("addr").port();
        let hits = Arc::new(AtomicUsize::new(0));
        let stop = Arc::new(AtomicBool::new(false));
        let (count, done) = (Arc::clone(&hits), Arc::clone(&stop));
        std::thread::spawn(move || {
            let deadline = Instant::now() + Duration::from_secs(60);
            while !done.load(Ordering::Relaxed) && Instant::now() < deadline {
                match listener.accept() {
                    Ok((mut stream, _)) => {
                        count.fetch_add(1, Ordering::Relaxed);
                        let _ = stream.set_nonblocking(false);
                        let _ = stream.set_read_timeout(Some(Duration::from_secs(2)));
                        let mut buffer = [0u8; 4096];
                        let _ = stream.read(&mut buffer);
                        let _ = stream.write_all(
                            b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
                        );
                    }
                    Err(_) => std::thread::sleep(Duration::from_millis(20)),
                }
            }
        });
        Server { port, hits, stop }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

fn helm_release_from(repo: &Path, url: &str) {
    write(
        repo,
        &[
            ("apps/kustomization.yaml", "resources: [repo.yaml, release.yaml]\n"),
            ("apps/repo.yaml", &format!("apiVersion: source.toolkit.fluxcd.io/v1\nkind: HelmRepository\nmetadata:\n  name: internal\n  namespace: flux-system\nspec:\n  interval: 1h\n  url: {url}\n")),
            ("apps/release.yaml", "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: demo\n  namespace: flux-system\nspec:\n  interval: 1h\n  chart:\n    spec:\n      chart: demo\n      version: 1.0.0\n      sourceRef:\n        kind: HelmRepository\n        name: internal\n"),
        ],
    );
}

#[cfg(feature = "network")]
#[test]
fn no_request_reaches_a_private_address_unless_allowed() {
    let server = Server::start();
    let repo = repository();
    helm_release_from(
        repo.path(),
        &format!("http://127.0.0.1:{}/charts", server.port),
    );
    let cache = tempfile::tempdir().expect("tempdir");
    let isolated = |args: &[&str]| {
        offlux()
            .args(args)
            .arg("--path")
            .arg(repo.path())
            .env("XDG_CACHE_HOME", cache.path())
            .output()
            .expect("runs")
    };
    let output = isolated(&["test"]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("refused to connect"), "{stdout}");
    assert_eq!(server.hits.load(Ordering::Relaxed), 0, "no connection made");
    let output = isolated(&["test", "--offline"]);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(server.hits.load(Ordering::Relaxed), 0, "--offline is off");
    let output = isolated(&["test", "--allow-private-network"]);
    assert_eq!(output.status.code(), Some(1), "the server has no chart");
    assert!(
        server.hits.load(Ordering::Relaxed) > 0,
        "allowed: the server was asked"
    );
}

// Bounded work.

fn chart_release(repo: &Path, template: &str) {
    write(
        repo,
        &[
            ("apps/kustomization.yaml", "resources: [release.yaml]\n"),
            ("apps/release.yaml", "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: bomb\n  namespace: flux-system\nspec:\n  interval: 1h\n  chart:\n    spec:\n      chart: ./charts/bomb\n      sourceRef:\n        kind: GitRepository\n        name: flux-system\n"),
            ("charts/bomb/Chart.yaml", "apiVersion: v2\nname: bomb\nversion: 1.0.0\n"),
            ("charts/bomb/templates/cm.yaml", template),
        ],
    );
}

fn ends_quickly_with_a_located_error(template: &str, message: &str) {
    ends_within_with_a_located_error(template, message, Duration::from_secs(30));
}

fn ends_within_with_a_located_error(template: &str, message: &str, limit: Duration) {
    let repo = repository();
    chart_release(repo.path(), template);
    let started = Instant::now();
    let output = run(&["test"], repo.path(), &[]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "{stdout}{}", stderr(&output));
    assert!(stdout.contains(message), "{stdout}");
    assert!(stdout.contains("cm.yaml:1:"), "located: {stdout}");
    assert!(started.elapsed() < limit, "{:?}", started.elapsed());
}

#[test]
fn a_template_doubling_a_string_is_capped() {
    ends_quickly_with_a_located_error(
        "{{ $s := \"0123456789abcdef\" }}{{ range until 40 }}{{ $s = print $s $s }}{{ end }}{{ len $s }}\n",
        "exceeds the limit",
    );
}

#[test]
fn a_deeply_nested_dict_is_capped() {
    ends_quickly_with_a_located_error(
        "{{ $d := dict }}{{ range until 100000 }}{{ $d = dict \"a\" $d }}{{ end }}{{ len $d }}\n",
        "nests deeper than the limit",
    );
}

/// A map holding itself twice doubles with each step; the cap counts what it takes in memory, so
/// the run ends in seconds instead of allocating gigabytes first.
#[test]
fn a_template_doubling_a_map_is_capped() {
    ends_within_with_a_located_error(
        "{{ $d := dict }}{{ range until 40 }}{{ $d = dict \"a\" $d \"b\" $d }}{{ end }}{{ len $d }}\n",
        "exceeds the limit",
        Duration::from_secs(8),
    );
}

#[test]
fn deeply_nested_directories_are_walked_in_time() {
    let repo = repository();
    let mut deep: PathBuf = repo.path().join("deep");
    for _ in 0..1900 {
        deep.push("d");
    }
    std::fs::create_dir_all(&deep).expect("mkdir");
    let started = Instant::now();
    let output = run(&["get", "ks"], repo.path(), &[]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "{:?}",
        started.elapsed()
    );
}
