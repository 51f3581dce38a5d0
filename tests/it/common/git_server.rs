//! Git's own smart-HTTP server on loopback for the tests that fetch from one: `git http-backend`
//! (CGI) behind a small HTTP/1.1 front started per test, optionally requiring basic auth, and the
//! repositories it serves made with the `git` binary.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// A running server: `base` is `http://127.0.0.1:PORT`; repositories are `{base}/NAME.git`.
pub struct GitServer {
    pub base: String,
    pub root: PathBuf,
    _dir: tempfile::TempDir,
}

/// `git` on PATH with its `http-backend` (see `tools::on_path`: without it the test skips, or
/// fails where the test tools are required).
fn git_available() -> bool {
    if super::tools::on_path("git", "the Git fetch tests", "apt-get install -y git").is_none() {
        return false;
    }
    let backend = Command::new("git")
        .args(["--exec-path"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| PathBuf::from(String::from_utf8_lossy(&o.stdout).trim()))
        .is_some_and(|dir| dir.join("git-http-backend").is_file());
    assert!(backend, "git has no http-backend (apt-get install -y git)");
    backend
}

/// Starts a server over a fresh directory of repositories; with `credentials` (`user`,
/// `password`) every request must carry them.
pub fn start(credentials: Option<(&str, &str)>) -> Option<GitServer> {
    if !git_available() {
        return None;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().join("repos");
    std::fs::create_dir_all(&root).expect("mkdir");
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let base = format!("http://{}", listener.local_addr().expect("addr"));
    let expected = credentials.map(|(u, p)| {
        use base64::Engine as _;
        format!(
            "Basic {}",
            base64::engine::general_purpose::STANDARD.encode(format!("{u}:{p}"))
        )
    });
    let served = root.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let served = served.clone();
            let expected = expected.clone();
            std::thread::spawn(move || serve(stream, &served, expected.as_deref()));
        }
    });
    Some(GitServer {
        base,
        root,
        _dir: dir,
    })
}

fn serve(stream: TcpStream, root: &Path, expected: Option<&str>) {
    let mut reader = BufReader::new(stream.try_clone().expect("clone"));
    let mut line = String::new();
    if reader.read_line(&mut line).unwrap_or(0) == 0 {
        return;
    }
    let mut parts = line.split_whitespace();
    let method = parts.next().unwrap_or_default().to_owned();
    let target = parts.next().unwrap_or_default().to_owned();
    let mut headers = Vec::new();
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header).unwrap_or(0) == 0 || header.trim().is_empty() {
            break;
        }
        if let Some((k, v)) = header.split_once(':') {
            headers.push((k.trim().to_ascii_lowercase(), v.trim().to_owned()));
        }
    }
    let header = |name: &str| {
        headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
    };
    let mut body = Vec::new();
    if let Some(length) = header("content-length").and_then(|l| l.parse::<usize>().ok()) {
        body.resize(length, 0);
        reader.read_exact(&mut body).expect("body");
    } else if header("transfer-encoding").is_some_and(|t| t.eq_ignore_ascii_case("chunked")) {
        loop {
            let mut size = String::new();
            reader.read_line(&mut size).expect("chunk size");
            let size = usize::from_str_radix(size.trim().split(';').next().unwrap_or("0"), 16)
                .unwrap_or(0);
            let mut chunk = vec![0; size + 2];
            reader.read_exact(&mut chunk).expect("chunk");
            if size == 0 {
                break;
            }
            body.extend_from_slice(&chunk[..size]);
        }
    }
    let mut out = stream;
    if let Some(expected) = expected {
        if header("authorization").as_deref() != Some(expected) {
            let _ = out.write_all(
                b"HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Basic realm=\"git\"\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
            );
            return;
        }
    }
    let (path, query) = target.split_once('?').unwrap_or((&target, ""));
    let mut command = Command::new("git");
    command
        .arg("http-backend")
        .env("GIT_PROJECT_ROOT", root)
        .env("GIT_HTTP_EXPORT_ALL", "1")
        .env("REQUEST_METHOD", &method)
        .env("PATH_INFO", path)
        .env("QUERY_STRING", query)
        .env("CONTENT_TYPE", header("content-type").unwrap_or_default())
        .env("CONTENT_LENGTH", body.len().to_string())
        .env("REMOTE_ADDR", "127.0.0.1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    if let Some(protocol) = header("git-protocol") {
        command.env("GIT_PROTOCOL", protocol);
    }
    let mut child = command.spawn().expect("git http-backend");
    let mut stdin = child.stdin.take().expect("stdin");
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&body);
    });
    let output = child.wait_with_output().expect("http-backend output");
    let _ = writer.join();
    let raw = output.stdout;
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .map(|i| (i, 4))
        .or_else(|| raw.windows(2).position(|w| w == b"\n\n").map(|i| (i, 2)));
    let (head, payload) = match split {
        Some((i, n)) => (&raw[..i], &raw[i + n..]),
        None => (&raw[..0], &raw[..]),
    };
    let mut status = "200 OK".to_owned();
    let mut response_headers = String::new();
    for line in String::from_utf8_lossy(head).lines() {
        match line.split_once(':') {
            Some((k, v)) if k.eq_ignore_ascii_case("status") => status = v.trim().to_owned(),
            Some(_) => {
                response_headers.push_str(line.trim());
                response_headers.push_str("\r\n");
            }
            None => {}
        }
    }
    let _ = write!(
        out,
        "HTTP/1.1 {status}\r\n{response_headers}Content-Length: {}\r\nConnection: close\r\n\r\n",
        payload.len()
    );
    let _ = out.write_all(payload);
}

/// Runs `git ARGS` in `dir`, with a fixed identity and dates, failing the test on an error.
pub fn git(dir: &Path, args: &[&str]) -> String {
    let output = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.com")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.com")
        .env("GIT_AUTHOR_DATE", "2026-01-01T00:00:00Z")
        .env("GIT_COMMITTER_DATE", "2026-01-01T00:00:00Z")
        .output()
        .expect("git runs");
    assert!(
        output.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).trim().to_owned()
}

impl GitServer {
    /// A work tree for repository `name`, served (bare) once [`GitServer::publish`] is called.
    pub fn work_tree(&self, name: &str) -> PathBuf {
        let work = self.root.join(format!("{name}.work"));
        if !work.exists() {
            std::fs::create_dir_all(&work).expect("mkdir");
            git(&work, &["init", "-q", "-b", "main"]);
        }
        work
    }

    /// Writes `files` into `name`'s work tree and commits them; returns the commit id.
    pub fn commit(&self, name: &str, files: &[(&str, &str)], message: &str) -> String {
        let work = self.work_tree(name);
        for (path, text) in files {
            let path = work.join(path);
            std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
            std::fs::write(path, text).expect("write");
        }
        git(&work, &["add", "-A"]);
        git(&work, &["commit", "-q", "-m", message]);
        self.publish(name);
        git(&work, &["rev-parse", "HEAD"])
    }

    /// Mirrors `name`'s work tree to the served bare repository `NAME.git`.
    pub fn publish(&self, name: &str) {
        let work = self.work_tree(name);
        let bare = self.root.join(format!("{name}.git"));
        if !bare.exists() {
            git(
                &self.root,
                &["init", "-q", "--bare", &format!("{name}.git")],
            );
            git(&bare, &["config", "uploadpack.allowAnySHA1InWant", "true"]);
        }
        git(
            &work,
            &[
                "push",
                "-q",
                "--force",
                "--mirror",
                bare.to_str().expect("utf-8"),
            ],
        );
    }

    pub fn url(&self, name: &str) -> String {
        format!("{}/{name}.git", self.base)
    }
}
