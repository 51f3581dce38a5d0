//! An S3-compatible server on loopback for the Bucket tests: `moto` in server mode (from PyPI,
//! installed by `.ci/run`), found through `OFFLUX_MOTO_SERVER` or on PATH, started per test
//! without authentication, with buckets and objects made by plain PUTs.

#![allow(
    clippy::disallowed_methods,
    reason = "the tests are told by the environment where moto_server is"
)]

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub struct Moto {
    child: Child,
    /// `127.0.0.1:PORT`, as a Bucket's `spec.endpoint` names it.
    pub endpoint: String,
}

impl Drop for Moto {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

const INSTALL: &str = "python3 -m venv /tmp/motovenv && /tmp/motovenv/bin/pip install 'moto[server]>=5.2.6', then set OFFLUX_MOTO_SERVER=/tmp/motovenv/bin/moto_server";

fn moto_server() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("OFFLUX_MOTO_SERVER").filter(|p| !p.is_empty()) {
        return Some(PathBuf::from(path));
    }
    super::tools::on_path("moto_server", "the Bucket tests", INSTALL)
}

fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .build()
        .into()
}

/// Starts moto, or `None` when it is not installed (the test skips, or fails where the test
/// tools are required).
pub fn start() -> Option<Moto> {
    let server = moto_server()?;
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .expect("bind")
        .local_addr()
        .expect("addr")
        .port();
    let child = Command::new(server)
        .args(["-H", "127.0.0.1", "-p", &port.to_string()])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start moto_server");
    let moto = Moto {
        child,
        endpoint: format!("127.0.0.1:{port}"),
    };
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let answered = agent()
            .get(format!("http://{}/moto-api/", moto.endpoint))
            .call()
            .is_ok();
        if answered {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "moto_server did not answer in 60 s"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    Some(moto)
}

impl Moto {
    /// Makes bucket `name` with `objects` (key, text) in it.
    pub fn bucket(&self, name: &str, objects: &[(&str, &str)]) {
        let put = |path: &str, body: &[u8]| {
            let response = agent()
                .put(format!("http://{}/{path}", self.endpoint))
                .send(body)
                .expect("PUT");
            assert_eq!(response.status().as_u16(), 200, "PUT {path}");
        };
        put(name, b"");
        for (key, text) in objects {
            put(&format!("{name}/{key}"), text.as_bytes());
        }
    }
}
