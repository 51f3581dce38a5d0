//! Git over SSH: OpenSSH's `ssh` program runs `git-upload-pack` on the server and gix speaks the
//! protocol over its pipes, as git itself does. This is the one program offlux runs (an SSH
//! client of its own would be a second cryptography stack to trust); it runs boxed in:
//!
//! - no configuration file, agent, control socket, forwarding, proxy command or prompt; the
//!   process environment is cleared (`HOME` is a private temporary directory), so nothing of the
//!   user's own SSH setup, keys or agent is offered to a server a repository names;
//! - the only identity is the Secret's, the only trusted host keys its `known_hosts`, checked
//!   strictly under the URL's host name (`[host]:port` off port 22, as `known_hosts` spells it);
//! - offlux resolves the host itself and hands `ssh` the address, after the egress policy
//!   (loopback, link-local and private addresses refused unless `--allow-private-network`); the
//!   URL's host, user and path never reach `ssh`'s command line unchecked;
//! - what the server sends is capped in bytes, and the process is killed at the deadline or
//!   when it goes quiet for the idle timeout.

use std::io::{self, Read};
use std::net::{IpAddr, SocketAddr, ToSocketAddrs};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

use gix::protocol::transport::client::git::blocking_io::Connection;
use gix::protocol::transport::client::git::ConnectMode;
use gix::protocol::transport::Protocol;

use crate::GitError;

/// How an SSH remote is reached (fluxcd/pkg `git.AuthOptions` for the `ssh` transport).
#[derive(Clone)]
pub struct SshAccess {
    /// The private key (the Secret's `identity`), OpenSSH or PEM, without a passphrase.
    pub identity: Vec<u8>,
    /// The Secret's `known_hosts`: the server's key must be among them.
    pub known_hosts: Vec<u8>,
    /// The Secret's `username`; when absent the URL's user, else `git` (fluxcd/pkg
    /// `git.NewAuthOptions`).
    pub username: Option<String>,
    pub allow_private_network: bool,
    /// The most the server may send.
    pub max_bytes: u64,
    /// When the whole exchange must be over.
    pub deadline: Instant,
    /// How long the server may stay silent.
    pub idle_timeout: Duration,
    /// The `ssh` program (the caller finds it: the process environment is not read here).
    pub program: PathBuf,
    /// Variables `ssh` is given besides `HOME` and `GIT_PROTOCOL` (Windows' `SystemRoot`).
    pub environment: Vec<(std::ffi::OsString, std::ffi::OsString)>,
}

impl std::fmt::Debug for SshAccess {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SshAccess")
            .field("username", &self.username)
            .field("allow_private_network", &self.allow_private_network)
            .finish_non_exhaustive()
    }
}

/// Where an `ssh://` URL leads, checked.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Target {
    host: String,
    port: u16,
    user: String,
    /// The repository path as `git-upload-pack` takes it.
    path: String,
}

fn plain(text: &str, extra: &[char]) -> bool {
    !text.is_empty()
        && !text.starts_with('-')
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || extra.contains(&c))
}

impl Target {
    pub(crate) fn of(url: &gix::Url, username: Option<&str>) -> Result<Target, GitError> {
        let whole = url.to_bstring().to_string();
        let bad = |what: &str| GitError::InvalidUrl(format!("{whole}: {what}"));
        let host = url.host().ok_or_else(|| bad("the URL names no host"))?;
        let host = host.trim_start_matches('[').trim_end_matches(']');
        if !plain(host, &['.', '-', ':', '_']) {
            return Err(bad("the host is not a host name or address"));
        }
        let user = username
            .filter(|u| !u.is_empty())
            .or(url.user())
            .unwrap_or("git");
        if !plain(user, &['.', '-', '_']) {
            return Err(bad("the user name holds characters ssh would misread"));
        }
        let path = url.path.to_string();
        if path.contains(['\0', '\n', '\r']) || path.trim_matches('/').is_empty() {
            return Err(bad("the repository path is empty or holds a line break"));
        }
        // As git: `ssh://host/~user/repo` is relative to that user's home.
        let path = match path.strip_prefix("/~") {
            Some(rest) => format!("~{rest}"),
            None => path,
        };
        Ok(Target {
            host: host.to_owned(),
            port: url.port.unwrap_or(22),
            user: user.to_owned(),
            path,
        })
    }

    /// The name `known_hosts` lists the server under.
    fn known_as(&self) -> String {
        if self.port == 22 {
            self.host.clone()
        } else {
            format!("[{}]:{}", self.host, self.port)
        }
    }

    /// The command the server runs, quoted for its shell as git quotes it (`sq_quote_buf`).
    fn remote_command(&self) -> String {
        format!("git-upload-pack '{}'", self.path.replace('\'', r"'\''"))
    }
}

/// The first address `host` resolves to that the egress policy allows.
fn permitted_address(target: &Target, allow_private: bool) -> Result<IpAddr, GitError> {
    let unreachable = |message: String| GitError::Ssh {
        message,
        unreachable: true,
    };
    let addresses: Vec<SocketAddr> = (target.host.as_str(), target.port)
        .to_socket_addrs()
        .map_err(|e| unreachable(format!("{}: {e}", target.host)))?
        .collect();
    let refused = addresses
        .iter()
        .find(|a| !allow_private && offlux_net::egress::is_internal(a.ip()));
    match addresses
        .iter()
        .find(|a| allow_private || !offlux_net::egress::is_internal(a.ip()))
    {
        Some(address) => Ok(address.ip()),
        None => Err(unreachable(match refused {
            Some(ip) => format!(
                "refused to connect to {} ({}): a loopback, link-local or private address \
                 (--allow-private-network allows it)",
                target.host,
                ip.ip()
            ),
            None => format!("{}: the name has no address", target.host),
        })),
    }
}

/// What the running `ssh` process shares with its reader and its watchdog.
#[derive(Debug)]
pub(crate) struct Session {
    child: Mutex<Child>,
    /// `ssh`'s standard error, capped, and the thread reading it.
    stderr: Mutex<String>,
    stderr_reader: Mutex<Option<std::thread::JoinHandle<()>>>,
    received: AtomicU64,
    /// Milliseconds since `started` at the last byte received.
    last_heard: AtomicU64,
    started: Instant,
    /// Why the process was killed, and whether that is this machine's reach.
    killed: Mutex<Option<(String, bool)>>,
    finished: AtomicBool,
    /// The temporary directory holding the identity and `known_hosts`, removed as soon as the
    /// exchange is over (not when the last thread lets the session go: the process may have
    /// exited by then).
    keys: Mutex<Option<tempfile::TempDir>>,
    /// How a host key the Secret does not list is reported: the name it was looked up under,
    /// and what to write instead when `known_hosts` lists the host under another port.
    host_key: HostKeyLookup,
}

/// The name a server's key is looked up under in `known_hosts`, and a line of the Secret that
/// lists the host without that name (`host` where the URL's port makes it `[host]:2222`).
#[derive(Debug)]
struct HostKeyLookup {
    known_as: String,
    listed_otherwise: Option<String>,
}

impl HostKeyLookup {
    fn of(target: &Target, known_hosts: &[u8]) -> Self {
        let known_as = target.known_as();
        let text = String::from_utf8_lossy(known_hosts);
        let names = || {
            text.lines()
                .filter_map(|line| line.split_whitespace().next())
                .filter(|hosts| !hosts.starts_with('#') && !hosts.starts_with('|'))
                .flat_map(|hosts| hosts.split(','))
        };
        let listed = names().any(|name| {
            name == known_as || (target.port == 22 && name == format!("[{}]:22", target.host))
        });
        let listed_otherwise = (!listed)
            .then(|| {
                names().find(|name| {
                    *name == target.host || name.starts_with(&format!("[{}]:", target.host))
                })
            })
            .flatten()
            .map(str::to_owned);
        HostKeyLookup {
            known_as,
            listed_otherwise,
        }
    }

    /// Where the key was looked for, and how to list it when the host is there under another name.
    fn explained(&self) -> String {
        let mut text = format!(" under `{}`", self.known_as);
        if let Some(other) = &self.listed_otherwise {
            text.push_str(&format!(
                " (it lists `{other}`, which is another port: write the line for `{}`)",
                self.known_as
            ));
        }
        text
    }
}

/// The sessions under way, for [`stop_all`].
static LIVE: Mutex<Vec<Weak<Session>>> = Mutex::new(Vec::new());

/// Stops every `ssh` under way and removes its keys: for a process about to exit on a signal,
/// which would otherwise leave `ssh` running and the identity on disk.
pub fn stop_all() {
    let sessions: Vec<Arc<Session>> = LIVE
        .lock()
        .map(|mut live| live.drain(..).filter_map(|w| w.upgrade()).collect())
        .unwrap_or_default();
    for session in sessions {
        session.kill("the command was interrupted".into(), true);
        session.finish();
    }
}

const STDERR_CAP: usize = 8 << 10;

impl Session {
    fn heard(&self) {
        let now = u64::try_from(self.started.elapsed().as_millis()).unwrap_or(u64::MAX);
        self.last_heard.store(now, Ordering::Relaxed);
    }

    /// Stops `ssh`; `unreachable` when the cause is this machine's reach (the deadline, the
    /// idle timeout, an interruption), not the server's answer.
    fn kill(&self, why: String, unreachable: bool) {
        if let Ok(mut killed) = self.killed.lock() {
            killed.get_or_insert((why, unreachable));
        }
        if let Ok(mut child) = self.child.lock() {
            let _ = child.kill();
        }
    }

    /// The error a failed exchange is reported with (the caller names the URL): why offlux
    /// stopped `ssh`, else what `ssh` (and the server's `git-upload-pack`) said, else gix's own
    /// `fallback`. The server was unreachable only when nothing came back from it.
    pub(crate) fn error(&self, fallback: String) -> GitError {
        if let Some((why, unreachable)) = self.killed.lock().ok().and_then(|k| k.clone()) {
            return GitError::Ssh {
                message: why,
                unreachable,
            };
        }
        // The exchange failed: `ssh` is stopped if it still runs, and all it wrote is read
        // before it is looked at (its last words come last, and the reader may lag).
        self.stop_child();
        if let Some(reader) = self.stderr_reader.lock().ok().and_then(|mut r| r.take()) {
            let _ = reader.join();
        }
        let stderr = self.stderr.lock().map(|s| s.clone()).unwrap_or_default();
        let heard = self.received.load(Ordering::Relaxed) > 0;
        match said(&stderr, &self.host_key) {
            Some((message, unreachable)) => GitError::Ssh {
                message,
                unreachable: unreachable && !heard,
            },
            None => GitError::Ssh {
                message: fallback,
                unreachable: !heard,
            },
        }
    }

    /// Ends `ssh` if it still runs, and reaps it.
    fn stop_child(&self) {
        if let Ok(mut child) = self.child.lock() {
            if !matches!(child.try_wait(), Ok(Some(_))) {
                let _ = child.kill();
            }
            let _ = child.wait();
        }
    }

    fn remove_keys(&self) {
        if let Some(keys) = self.keys.lock().ok().and_then(|mut k| k.take()) {
            let _ = keys.close();
        }
    }

    fn finish(&self) {
        self.finished.store(true, Ordering::Relaxed);
        self.stop_child();
        self.remove_keys();
    }
}

/// The server's output as gix reads it: counted against the cap, each byte resetting the idle
/// clock; the process is stopped when the reader goes.
pub(crate) struct Output {
    stdout: ChildStdout,
    session: Arc<Session>,
    max_bytes: u64,
}

impl Read for Output {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.stdout.read(buf)?;
        self.session.heard();
        let total = self.session.received.fetch_add(n as u64, Ordering::Relaxed) + n as u64;
        if total > self.max_bytes {
            self.session.kill(
                format!(
                    "the server sent more than {} bytes (the size limit)",
                    self.max_bytes
                ),
                false,
            );
            return Err(io::Error::other("the server sent too much"));
        }
        Ok(n)
    }
}

impl Drop for Output {
    fn drop(&mut self) {
        self.session.finish();
    }
}

pub(crate) type SshTransport = Connection<Output, ChildStdin>;

/// Starts `ssh` for `url` and returns gix's transport over its pipes, with the session to ask
/// why an exchange failed.
pub(crate) fn connect(
    url: &gix::Url,
    access: &SshAccess,
) -> Result<(SshTransport, Arc<Session>), GitError> {
    let whole = url.to_bstring().to_string();
    let target = Target::of(url, access.username.as_deref())?;
    let address = permitted_address(&target, access.allow_private_network)?;
    let local = |what: &str, e: io::Error| GitError::Ssh {
        message: format!("{what}: {e}"),
        unreachable: true,
    };
    let mut keys = tempfile::Builder::new();
    keys.prefix("offlux-ssh-");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        keys.permissions(std::fs::Permissions::from_mode(0o700));
    }
    let keys = keys
        .tempdir()
        .map_err(|e| local("a private directory for the key", e))?;
    let identity = keys.path().join("identity");
    let known_hosts = keys.path().join("known_hosts");
    write_private(
        &identity,
        &with_final_newline(&unix_lines(&access.identity)),
    )
    .map_err(|e| local("writing the identity", e))?;
    write_private(&known_hosts, &known_hosts_for_openssh(&access.known_hosts))
        .map_err(|e| local("writing known_hosts", e))?;
    let connect_secs = access
        .deadline
        .saturating_duration_since(Instant::now())
        .as_secs()
        .clamp(1, 60);
    let option = |name: &str, value: &str| ["-o".to_owned(), format!("{name}={value}")];
    let program = &access.program;
    let mut command = Command::new(program);
    command
        .args(["-F", "none", "-T", "-x", "-a"])
        .args(option("BatchMode", "yes"))
        .args(option("IdentitiesOnly", "yes"))
        .args(option("IdentityAgent", "none"))
        .args(option("IdentityFile", &quoted(&identity)))
        .args(option("UserKnownHostsFile", &quoted(&known_hosts)))
        .args(option("GlobalKnownHostsFile", "none"))
        .args(option("StrictHostKeyChecking", "yes"))
        .args(option("HostKeyAlias", &target.known_as()))
        .args(option("CheckHostIP", "no"))
        .args(option("UpdateHostKeys", "no"))
        .args(option("PreferredAuthentications", "publickey"))
        .args(option("ProxyCommand", "none"))
        .args(option("ControlMaster", "no"))
        .args(option("ControlPath", "none"))
        .args(option("PermitLocalCommand", "no"))
        .args(option("ClearAllForwardings", "yes"))
        .args(option("SendEnv", "GIT_PROTOCOL"))
        .args(option("ConnectTimeout", &connect_secs.to_string()))
        .args(option("ServerAliveInterval", "15"))
        .args(option("LogLevel", "ERROR"))
        .args(["-p", &target.port.to_string(), "-l", &target.user])
        .arg(address.to_string())
        .arg(target.remote_command())
        .env_clear()
        .env("HOME", keys.path())
        .env("GIT_PROTOCOL", "version=2")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    command.envs(access.environment.iter().map(|(k, v)| (k, v)));
    let mut child = command.spawn().map_err(|e| GitError::Ssh {
        message: format!(
            "could not start `{}` (OpenSSH's client, which SSH URLs need): {e}",
            program.display()
        ),
        unreachable: true,
    })?;
    let (Some(stdin), Some(stdout), Some(mut stderr)) =
        (child.stdin.take(), child.stdout.take(), child.stderr.take())
    else {
        let _ = child.kill();
        return Err(GitError::Remote(format!(
            "{whole}: ssh's pipes were not set up"
        )));
    };
    let session = Arc::new(Session {
        child: Mutex::new(child),
        stderr: Mutex::new(String::new()),
        stderr_reader: Mutex::new(None),
        received: AtomicU64::new(0),
        last_heard: AtomicU64::new(0),
        started: Instant::now(),
        killed: Mutex::new(None),
        finished: AtomicBool::new(false),
        keys: Mutex::new(Some(keys)),
        host_key: HostKeyLookup::of(&target, &access.known_hosts),
    });
    if let Ok(mut live) = LIVE.lock() {
        live.retain(|w| w.strong_count() > 0);
        live.push(Arc::downgrade(&session));
    }
    let errors = session.clone();
    let reader = std::thread::spawn(move || {
        let mut buffer = [0u8; 1024];
        while let Ok(n) = stderr.read(&mut buffer) {
            if n == 0 {
                break;
            }
            if let Ok(mut text) = errors.stderr.lock() {
                if text.len() < STDERR_CAP {
                    text.push_str(&String::from_utf8_lossy(&buffer[..n]));
                }
            }
        }
    });
    if let Ok(mut slot) = session.stderr_reader.lock() {
        *slot = Some(reader);
    }
    let watched = session.clone();
    let (deadline, idle) = (access.deadline, access.idle_timeout);
    std::thread::spawn(move || {
        while !watched.finished.load(Ordering::Relaxed) {
            let quiet = watched
                .started
                .elapsed()
                .saturating_sub(Duration::from_millis(
                    watched.last_heard.load(Ordering::Relaxed),
                ));
            if Instant::now() >= deadline {
                watched.kill(
                    "the exchange was cut at the run's network deadline".into(),
                    true,
                );
                return;
            }
            if quiet >= idle {
                watched.kill(
                    format!(
                        "the server sent nothing for {} s (the idle timeout)",
                        idle.as_secs()
                    ),
                    true,
                );
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    });
    let output = Output {
        stdout,
        session: session.clone(),
        max_bytes: access.max_bytes,
    };
    let transport = Connection::new(
        output,
        stdin,
        Protocol::V2,
        target.path.clone(),
        None::<(String, Option<u16>)>,
        ConnectMode::Process,
        false,
    )
    .custom_url(Some(whole.into()));
    Ok((transport, session))
}

/// What `ssh` wrote, shortened to its cause, and whether that cause is this machine's reach.
/// OpenSSH's host-key warnings point at a temporary file and give advice that does not apply:
/// they become the key's fingerprint and where it must be listed.
fn said(stderr: &str, host_key: &HostKeyLookup) -> Option<(String, bool)> {
    let lines: Vec<&str> = stderr
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.chars().all(|c| c == '@'))
        .collect();
    if lines.is_empty() {
        return None;
    }
    let text = lines.join(" ");
    if text.contains("Host key verification failed")
        || text.contains("REMOTE HOST IDENTIFICATION HAS CHANGED")
        || text.contains("host key is known for")
    {
        let fingerprint = lines
            .iter()
            .find_map(|l| l.split_whitespace().find(|w| w.starts_with("SHA256:")))
            .map(|f| format!(" (its key: {})", f.trim_end_matches('.')))
            .unwrap_or_default();
        return Some((
            format!(
                "the server's host key{fingerprint} is not in the Secret's known_hosts{}",
                host_key.explained()
            ),
            false,
        ));
    }
    let cause = text.strip_prefix("ssh: ").unwrap_or(&text).to_owned();
    if text.contains("Load key") {
        return Some((
            format!("{cause} (the Secret's identity could not be read as a private key)"),
            false,
        ));
    }
    if text.contains("Permission denied") {
        return Some((
            format!("{cause} (the server did not accept the Secret's identity)"),
            false,
        ));
    }
    let unreachable = [
        "Connection refused",
        "Connection timed out",
        "No route to host",
        "Network is unreachable",
        "Could not resolve hostname",
        "Connection reset",
        "Connection closed by remote host",
        "timed out during banner exchange",
    ]
    .iter()
    .any(|m| text.contains(m));
    Some((cause, unreachable))
}

/// Line ends as OpenSSH reads keys (a Secret written on Windows has `\r\n`; Go's parser takes
/// either).
fn unix_lines(bytes: &[u8]) -> Vec<u8> {
    String::from_utf8_lossy(bytes)
        .replace("\r\n", "\n")
        .into_bytes()
}

/// `known_hosts` as OpenSSH matches it under `HostKeyAlias`: `[host]:22`, which Go's matcher
/// takes for `host`, written as `host`.
fn known_hosts_for_openssh(bytes: &[u8]) -> Vec<u8> {
    let text = String::from_utf8_lossy(&unix_lines(bytes)).into_owned();
    let mut out = String::new();
    for line in text.lines() {
        let (hosts, rest) = line.split_once([' ', '\t']).unwrap_or((line, ""));
        if hosts.starts_with('#') || hosts.starts_with('|') || rest.is_empty() {
            out.push_str(line);
        } else {
            let hosts: Vec<&str> = hosts
                .split(',')
                .map(|h| {
                    h.strip_prefix('[')
                        .and_then(|h| h.strip_suffix("]:22"))
                        .unwrap_or(h)
                })
                .collect();
            out.push_str(&hosts.join(","));
            out.push(' ');
            out.push_str(rest);
        }
        out.push('\n');
    }
    out.into_bytes()
}

/// A path as an `-o` value (ssh splits an unquoted value at spaces).
fn quoted(path: &std::path::Path) -> String {
    format!("\"{}\"", path.display())
}

/// OpenSSH refuses a key file without a final newline.
fn with_final_newline(bytes: &[u8]) -> Vec<u8> {
    let mut bytes = bytes.to_vec();
    if !bytes.ends_with(b"\n") {
        bytes.push(b'\n');
    }
    bytes
}

/// Writes a file only this user may read (OpenSSH refuses an identity others can read).
fn write_private(path: &std::path::Path, bytes: &[u8]) -> io::Result<()> {
    use std::io::Write as _;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        options.mode(0o600);
    }
    options.open(path)?.write_all(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn target(url: &str, username: Option<&str>) -> Result<Target, GitError> {
        Target::of(
            &gix::url::parse(gix::bstr::BStr::new(url)).expect("a URL"),
            username,
        )
    }

    #[test]
    fn the_user_is_the_secrets_then_the_urls_then_git() {
        let t = target("ssh://alice@example.org/org/repo.git", Some("bob")).unwrap();
        assert_eq!(t.user, "bob");
        let t = target("ssh://alice@example.org/org/repo.git", None).unwrap();
        assert_eq!(t.user, "alice");
        let t = target("ssh://example.org:2222/org/repo.git", None).unwrap();
        assert_eq!((t.user.as_str(), t.port), ("git", 2222));
        assert_eq!(t.known_as(), "[example.org]:2222");
        assert_eq!(
            target("ssh://example.org/org/repo.git", None)
                .unwrap()
                .known_as(),
            "example.org"
        );
    }

    #[test]
    fn hosts_users_and_paths_that_ssh_or_a_shell_would_misread_are_refused() {
        for (url, user) in [
            ("ssh://-oProxyCommand=touch%20x/repo", None),
            ("ssh://example.org/repo", Some("-oProxyCommand=x")),
            ("ssh://example.org/repo", Some("a b")),
            ("ssh://example.org/", None),
        ] {
            assert!(
                target(url, user).is_err(),
                "{url} with user {user:?} was accepted"
            );
        }
    }

    #[test]
    fn the_remote_command_quotes_the_path_as_git_does() {
        let t = target("ssh://example.org/it's/repo.git", None).unwrap();
        assert_eq!(t.remote_command(), r"git-upload-pack '/it'\''s/repo.git'");
        let t = target("ssh://example.org/~alice/repo.git", None).unwrap();
        assert_eq!(t.remote_command(), "git-upload-pack '~alice/repo.git'");
    }

    #[test]
    fn keys_and_known_hosts_are_written_as_openssh_reads_them() {
        assert_eq!(unix_lines(b"a\r\nb\r\n"), b"a\nb\n");
        let known = known_hosts_for_openssh(
            b"[example.org]:22,[other]:2222 ssh-ed25519 AAAA\r\n# note\n|1|hashed ssh-rsa BBBB\n",
        );
        assert_eq!(
            String::from_utf8_lossy(&known),
            "example.org,[other]:2222 ssh-ed25519 AAAA\n# note\n|1|hashed ssh-rsa BBBB\n"
        );
    }

    #[test]
    fn what_ssh_says_is_shortened_to_its_cause() {
        let changed = "@@@@@@@@@@@\n@    WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED!     @\n@@@@@@@@@@@\nThe fingerprint for the ED25519 key sent by the remote host is\nSHA256:abcDEF.\nAdd correct host key in /tmp/x/known_hosts to get rid of this message.\nHost key verification failed.\n";
        let lookup = |port: u16, known_hosts: &str| {
            let target = Target {
                host: "example.org".into(),
                port,
                user: "git".into(),
                path: "/repo.git".into(),
            };
            HostKeyLookup::of(&target, known_hosts.as_bytes())
        };
        let listed = lookup(22, "example.org ssh-ed25519 AAAA\n");
        let (message, unreachable) = said(changed, &listed).unwrap();
        assert_eq!(
            message,
            "the server's host key (its key: SHA256:abcDEF) is not in the Secret's known_hosts under `example.org`"
        );
        // Listed under another port (or none, off port 22): the message says how to write it.
        let (message, _) = said(changed, &lookup(2222, "example.org ssh-ed25519 AAAA\n")).unwrap();
        assert!(message.ends_with("under `[example.org]:2222` (it lists `example.org`, which is another port: write the line for `[example.org]:2222`)"), "{message}");
        let (message, _) = said(
            changed,
            &lookup(22, "[example.org]:2222 ssh-ed25519 AAAA\n"),
        )
        .unwrap();
        assert!(message.ends_with("(it lists `[example.org]:2222`, which is another port: write the line for `example.org`)"), "{message}");
        for listed in [
            "[example.org]:22 ssh-ed25519 AAAA",
            "other,example.org ssh-ed25519 AAAA",
        ] {
            assert!(lookup(22, listed).listed_otherwise.is_none(), "{listed}");
        }
        assert!(!unreachable);
        let (message, unreachable) = said(
            "ssh: connect to host 127.0.0.1 port 1: Connection refused\n",
            &listed,
        )
        .unwrap();
        assert_eq!(
            message,
            "connect to host 127.0.0.1 port 1: Connection refused"
        );
        assert!(unreachable);
        let (message, _) = said("Load key \"/tmp/x/identity\": error in libcrypto\nroot@h: Permission denied (publickey).\n", &listed).unwrap();
        assert!(
            message.contains("could not be read as a private key"),
            "{message}"
        );
        assert_eq!(said("\n \n", &listed), None);
    }

    /// An `ssh` that never ends (a script standing in for it) is stopped by [`stop_all`], and
    /// the directory holding the identity is gone with it.
    #[cfg(unix)]
    #[test]
    fn stop_all_ends_ssh_and_removes_the_keys() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = tempfile::tempdir().expect("tempdir");
        let program = dir.path().join("ssh");
        std::fs::write(&program, "#!/bin/sh\nexec sleep 30\n").expect("script");
        std::fs::set_permissions(&program, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        let access = SshAccess {
            identity: b"key".to_vec(),
            known_hosts: b"host ssh-ed25519 AAAA".to_vec(),
            username: None,
            allow_private_network: true,
            max_bytes: 1 << 20,
            deadline: Instant::now() + Duration::from_secs(60),
            idle_timeout: Duration::from_secs(60),
            program,
            environment: Vec::new(),
        };
        let url = gix::url::parse(gix::bstr::BStr::new("ssh://127.0.0.1:1/repo.git")).unwrap();
        let (transport, session) = connect(&url, &access).expect("started");
        let keys = session
            .keys
            .lock()
            .unwrap()
            .as_ref()
            .map(|k| k.path().to_path_buf())
            .unwrap();
        assert!(keys.join("identity").is_file());
        let started = Instant::now();
        stop_all();
        assert!(!keys.exists(), "the keys are still on disk");
        assert!(matches!(
            session.child.lock().unwrap().try_wait(),
            Ok(Some(_))
        ));
        assert!(started.elapsed() < Duration::from_secs(5));
        match session.error(String::new()) {
            GitError::Ssh { unreachable, .. } => assert!(unreachable),
            other => panic!("{other}"),
        }
        drop(transport);
    }

    #[test]
    fn a_private_address_is_refused_without_the_flag() {
        let t = target("ssh://127.0.0.1:2222/repo.git", None).unwrap();
        let error = permitted_address(&t, false).unwrap_err();
        assert!(
            error.to_string().contains("--allow-private-network"),
            "{error}"
        );
        assert_eq!(
            permitted_address(&t, true).unwrap(),
            IpAddr::from([127, 0, 0, 1])
        );
    }
}
