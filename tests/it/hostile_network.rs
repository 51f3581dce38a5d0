//! Hostile chart servers (issue 35, "Network"): a server that stops sending, or trickles bytes
//! to hold every request for its whole timeout, ends the run's fetches within bounds, with an
//! error naming the URL and the flag that raises the limit. The servers run on loopback for the
//! test's lifetime (hence `--allow-private-network`); fixtures are built at run time.
#![cfg(feature = "network")]

use std::io::{Read, Write};
use std::net::TcpListener;
use std::path::Path;
use std::process::Output;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How a test server answers a request.
#[derive(Clone, Copy)]
enum Behaviour {
    /// Reads the request, then sends nothing.
    Silent,
    /// Sends a status line and then one header byte every 200 ms, never ending.
    Trickle,
}

/// A loopback HTTP server, stopped when dropped (and after a minute in any case).
struct Server {
    port: u16,
    stop: Arc<AtomicBool>,
}

impl Server {
    fn start(behaviour: Behaviour) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        listener.set_nonblocking(true).expect("nonblocking");
        let port = listener.local_addr().expect("addr").port();
        let stop = Arc::new(AtomicBool::new(false));
        let done = Arc::clone(&stop);
        std::thread::spawn(move || {
            let deadline = Instant::now() + Duration::from_secs(60);
            while !done.load(Ordering::Relaxed) && Instant::now() < deadline {
                let Ok((mut stream, _)) = listener.accept() else {
                    std::thread::sleep(Duration::from_millis(20));
                    continue;
                };
                let done = Arc::clone(&done);
                std::thread::spawn(move || {
                    let _ = stream.set_nonblocking(false);
                    let _ = stream.set_read_timeout(Some(Duration::from_secs(2)));
                    let mut buffer = [0u8; 4096];
                    let _ = stream.read(&mut buffer);
                    let ends = Instant::now() + Duration::from_secs(60);
                    if let Behaviour::Trickle = behaviour {
                        let _ = stream.write_all(b"HTTP/1.1 200 OK\r\nX-Slow: ");
                    }
                    while !done.load(Ordering::Relaxed) && Instant::now() < ends {
                        std::thread::sleep(Duration::from_millis(200));
                        if let Behaviour::Trickle = behaviour {
                            if stream.write_all(b"a").is_err() {
                                return;
                            }
                        }
                    }
                });
            }
        });
        Server { port, stop }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

fn write(root: &Path, files: &[(&str, &str)]) {
    for (path, text) in files {
        let path = root.join(path);
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
        std::fs::write(path, text).expect("write");
    }
}

/// A repository whose `apps/` holds one HelmRelease per URL, each from its own HelmRepository.
fn releases_from(urls: &[String]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir_all(dir.path().join(".git")).expect("mkdir");
    write(
        dir.path(),
        &[(
            "clusters/dev/apps.yaml",
            "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: apps\n  namespace: flux-system\nspec:\n  interval: 10m\n  path: ./apps\n  prune: true\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n",
        )],
    );
    let mut resources = Vec::new();
    for (i, url) in urls.iter().enumerate() {
        let file = format!("apps/r{i}.yaml");
        write(
            dir.path(),
            &[(file.as_str(), &format!("apiVersion: source.toolkit.fluxcd.io/v1\nkind: HelmRepository\nmetadata:\n  name: repo{i}\n  namespace: flux-system\nspec:\n  interval: 1h\n  url: {url}\n---\napiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: demo{i}\n  namespace: flux-system\nspec:\n  interval: 1h\n  chart:\n    spec:\n      chart: demo\n      version: 1.0.0\n      sourceRef:\n        kind: HelmRepository\n        name: repo{i}\n"))],
        );
        resources.push(format!("r{i}.yaml"));
    }
    write(
        dir.path(),
        &[(
            "apps/kustomization.yaml",
            &format!("resources: [{}]\n", resources.join(", ")),
        )],
    );
    dir
}

fn test_run(repo: &Path, extra: &[&str]) -> (Output, Duration) {
    let cache = tempfile::tempdir().expect("tempdir");
    let started = Instant::now();
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_offlux"))
        .args(["test", "--allow-private-network"])
        .args(extra)
        .arg("--path")
        .arg(repo)
        .env("NO_COLOR", "1")
        .env("XDG_CACHE_HOME", cache.path())
        .output()
        .expect("runs");
    (output, started.elapsed())
}

#[test]
fn a_silent_server_ends_at_the_idle_timeout() {
    let server = Server::start(Behaviour::Silent);
    let url = format!("http://127.0.0.1:{}/charts", server.port);
    let repo = releases_from(std::slice::from_ref(&url));
    let (output, elapsed) = test_run(repo.path(), &["--network-idle-timeout", "1"]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains(&format!("{url}/index.yaml: no data for 1 s"))
            && stdout.contains("--network-idle-timeout"),
        "{stdout}"
    );
    assert!(elapsed < Duration::from_secs(10), "took {elapsed:?}");
}

#[test]
fn trickling_servers_end_at_the_runs_network_deadline() {
    let server = Server::start(Behaviour::Trickle);
    // Three repositories on the one trickling server: each would hold its request for the
    // whole per-request timeout (60 s); the run's deadline ends them all.
    let urls: Vec<String> = (0..3)
        .map(|i| format!("http://127.0.0.1:{}/charts{i}", server.port))
        .collect();
    let repo = releases_from(&urls);
    let (output, elapsed) = test_run(
        repo.path(),
        &["--network-deadline", "2", "--concurrency", "1"],
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "{stdout}");
    for url in &urls {
        assert!(
            stdout.contains(&format!(
                "{url}/index.yaml: the run's network time of 2 s is used up (raise it with `--network-deadline`)"
            )),
            "{url} in {stdout}"
        );
    }
    assert!(elapsed < Duration::from_secs(10), "took {elapsed:?}");
}
