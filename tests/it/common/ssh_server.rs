//! OpenSSH's `sshd` on loopback for the tests that fetch Git over SSH: started per test as the
//! current user, with a host key and one authorized client key made by `ssh-keygen`, serving the
//! repositories of a [`GitServer`](super::git_server::GitServer) by path (`git-upload-pack` runs
//! in the login's shell, as on any Git host).

use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub struct SshServer {
    pub port: u16,
    /// The login the server accepts.
    pub user: String,
    /// The authorized client key (OpenSSH private key format) and its `known_hosts` line.
    pub identity: String,
    pub known_hosts: String,
    dir: tempfile::TempDir,
    child: Child,
}

impl Drop for SshServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn sshd() -> Option<PathBuf> {
    let install = "apt-get install -y openssh-server openssh-client";
    super::tools::on_path("ssh", "the Git-over-SSH tests", install)?;
    let keygen = super::tools::on_path("ssh-keygen", "the Git-over-SSH tests", install)?;
    let beside = keygen.with_file_name("sshd");
    if beside.is_file() {
        return Some(beside);
    }
    if Path::new("/usr/sbin/sshd").is_file() {
        return Some(PathBuf::from("/usr/sbin/sshd"));
    }
    super::tools::on_path("sshd", "the Git-over-SSH tests", install)
}

/// A fresh key pair in `dir`: the private key's text and the public key's `TYPE BASE64`.
pub fn key_pair(dir: &Path, name: &str) -> (String, String) {
    let path = dir.join(name);
    let status = Command::new("ssh-keygen")
        .args(["-q", "-t", "ed25519", "-N", "", "-C", "", "-f"])
        .arg(&path)
        .stdin(Stdio::null())
        .status()
        .expect("ssh-keygen runs");
    assert!(status.success(), "ssh-keygen failed");
    let private = std::fs::read_to_string(&path).expect("private key");
    let public = std::fs::read_to_string(path.with_extension("pub")).expect("public key");
    let public = public
        .split_whitespace()
        .take(2)
        .collect::<Vec<_>>()
        .join(" ");
    (private, public)
}

/// Starts `sshd` serving repositories under `root`; `None` (the test skips) without OpenSSH.
pub fn start() -> Option<SshServer> {
    start_forcing(None)
}

/// [`start`], the client key limited to `command` (a server that accepts the key and then runs
/// only that).
pub fn start_forcing(command: Option<&str>) -> Option<SshServer> {
    let sshd = sshd()?;
    let dir = tempfile::tempdir().expect("tempdir");
    let (_, host_public) = key_pair(dir.path(), "host_key");
    let (identity, client_public) = key_pair(dir.path(), "client_key");
    let forced = command.map_or_else(String::new, |c| format!("command=\"{c}\" "));
    std::fs::write(
        dir.path().join("authorized_keys"),
        format!("{forced}{client_public}\n"),
    )
    .expect("authorized_keys");
    let port = {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        listener.local_addr().expect("addr").port()
    };
    let config = format!(
        "Port {port}\nListenAddress 127.0.0.1\nHostKey {}\nAuthorizedKeysFile {}\nPidFile {}\n\
         PasswordAuthentication no\nKbdInteractiveAuthentication no\nUsePAM no\nStrictModes no\n\
         PermitRootLogin prohibit-password\nAcceptEnv GIT_PROTOCOL\n",
        dir.path().join("host_key").display(),
        dir.path().join("authorized_keys").display(),
        dir.path().join("sshd.pid").display(),
    );
    let config_path = dir.path().join("sshd_config");
    std::fs::write(&config_path, config).expect("sshd_config");
    let log = std::fs::File::create(dir.path().join("sshd.log")).expect("log");
    let child = Command::new(&sshd)
        .args(["-D", "-e", "-f"])
        .arg(&config_path)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(log)
        .spawn()
        .expect("sshd starts");
    let user = String::from_utf8(
        Command::new("id")
            .arg("-un")
            .output()
            .expect("id runs")
            .stdout,
    )
    .expect("a user name")
    .trim()
    .to_owned();
    let mut server = SshServer {
        port,
        user,
        identity,
        known_hosts: format!("[127.0.0.1]:{port} {host_public}\n"),
        dir,
        child,
    };
    let started = Instant::now();
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        if let Ok(Some(status)) = server.child.try_wait() {
            panic!(
                "sshd exited ({status}): {} (as root it needs /run/sshd: `mkdir -p /run/sshd`)",
                server.log()
            );
        }
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "sshd did not listen: {}",
            server.log()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    Some(server)
}

impl SshServer {
    /// `ssh://USER@127.0.0.1:PORT/<root>/NAME.git`.
    pub fn url(&self, root: &Path, name: &str) -> String {
        format!(
            "ssh://{}@127.0.0.1:{}{}/{name}.git",
            self.user,
            self.port,
            root.display()
        )
    }

    /// What `sshd` logged.
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("sshd.log")).unwrap_or_default()
    }
}
