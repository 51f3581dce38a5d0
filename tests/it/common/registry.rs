//! A real OCI registry on loopback for the tests that fetch from one: Debian's `docker-registry`
//! (distribution 2.8), started per test, and a minimal push (monolithic blob uploads, then the
//! manifest), as `helm push` and `flux push artifact` push.

use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use sha2::{Digest, Sha256};

pub fn digest(bytes: &[u8]) -> String {
    format!("sha256:{}", hex::encode(Sha256::digest(bytes)))
}

pub struct Registry {
    child: Child,
    pub host: String,
    _dir: tempfile::TempDir,
}

impl Drop for Registry {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The `docker-registry` binary on PATH (see `common::tools::on_path`).
fn find_docker_registry() -> Option<PathBuf> {
    crate::common::tools::on_path(
        "docker-registry",
        "the OCI registry tests",
        "apt-get install -y docker-registry",
    )
}

pub fn start_registry(htpasswd: Option<(&str, &str)>) -> Option<Registry> {
    let binary = find_docker_registry()?;
    let dir = tempfile::tempdir().unwrap();
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut config = format!(
        "version: 0.1\nlog:\n  level: error\nstorage:\n  filesystem:\n    rootdirectory: {}\n  delete:\n    enabled: true\nhttp:\n  addr: 127.0.0.1:{port}\n",
        dir.path().join("data").display()
    );
    if let Some((user, password)) = htpasswd {
        let hash = bcrypt::hash_with_salt(password, 4, [7u8; 16])
            .unwrap()
            .to_string();
        let file = dir.path().join("htpasswd");
        std::fs::write(&file, format!("{user}:{hash}\n")).unwrap();
        config.push_str(&format!(
            "auth:\n  htpasswd:\n    realm: test\n    path: {}\n",
            file.display()
        ));
    }
    let config_path = dir.path().join("config.yml");
    std::fs::write(&config_path, config).unwrap();
    let child = Command::new(binary)
        .arg("serve")
        .arg(&config_path)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start docker-registry");
    let host = format!("127.0.0.1:{port}");
    let registry = Registry {
        child,
        host,
        _dir: dir,
    };
    let deadline = Instant::now() + Duration::from_secs(20);
    while TcpStream::connect(&registry.host).is_err() {
        assert!(
            Instant::now() < deadline,
            "docker-registry did not start on {}",
            registry.host
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    Some(registry)
}

impl Registry {
    /// Pushes a manifest of `config` (media type, bytes) and `layers` (media type, bytes) as
    /// `name:tag`, with `auth` as the `Authorization` header. Returns the manifest's digest.
    pub fn push(
        &self,
        auth: Option<&str>,
        name: &str,
        tag: &str,
        config: (&str, &[u8]),
        layers: &[(&str, Vec<u8>)],
    ) -> String {
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .build()
            .into();
        let base = format!("http://{}", self.host);
        let with_auth = |r: ureq::RequestBuilder<ureq::typestate::WithBody>| match auth {
            Some(a) => r.header("Authorization", a),
            None => r,
        };
        let upload = |bytes: &[u8]| -> String {
            let d = digest(bytes);
            let response = with_auth(agent.post(format!("{base}/v2/{name}/blobs/uploads/")))
                .send_empty()
                .unwrap();
            assert_eq!(response.status().as_u16(), 202, "start upload");
            let location = response.headers()["location"].to_str().unwrap().to_string();
            let location = if location.starts_with('/') {
                format!("{base}{location}")
            } else {
                location
            };
            let separator = if location.contains('?') { '&' } else { '?' };
            let response = with_auth(agent.put(format!("{location}{separator}digest={d}")))
                .header("Content-Type", "application/octet-stream")
                .send(bytes)
                .unwrap();
            assert_eq!(response.status().as_u16(), 201, "finish upload");
            d
        };
        let config_digest = upload(config.1);
        let layers: Vec<serde_json::Value> = layers
            .iter()
            .map(|(media_type, bytes)| {
                serde_json::json!({"mediaType": media_type, "digest": upload(bytes), "size": bytes.len()})
            })
            .collect();
        let manifest = serde_json::json!({
            "schemaVersion": 2,
            "mediaType": "application/vnd.oci.image.manifest.v1+json",
            "config": {"mediaType": config.0, "digest": config_digest, "size": config.1.len()},
            "layers": layers,
        })
        .to_string();
        let response = with_auth(agent.put(format!("{base}/v2/{name}/manifests/{tag}")))
            .header("Content-Type", "application/vnd.oci.image.manifest.v1+json")
            .send(manifest.as_bytes())
            .unwrap();
        assert_eq!(response.status().as_u16(), 201, "push manifest");
        digest(manifest.as_bytes())
    }
}
