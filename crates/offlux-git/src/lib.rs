//! Git over smart HTTP and SSH, on gitoxide: the refs a remote advertises ([`list_refs`]), a
//! shallow fetch of one ref or one commit into a bare repository the caller owns ([`fetch`]), and
//! a commit's tree read into memory ([`read_tree`]). HTTP requests go through `offlux_net`'s
//! guarded client; SSH runs OpenSSH's `ssh`, boxed in (see [`ssh`]); repositories are opened
//! isolated (no user or system configuration, no credential helper, no prompt). Not for:
//! submodules, pushing, Flux's ref rules (the caller's).

pub mod ssh;
mod transport;

use std::num::NonZeroU32;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use gix::protocol::handshake::Ref;
use gix::protocol::transport::client::blocking_io::http::connect_http;
use gix::protocol::transport::Protocol;
use gix::remote::fetch::{Shallow, Tags};

pub use gix::ObjectId;

/// A remote repository and how to reach it.
pub struct Remote {
    /// `http://`, `https://` or `ssh://`.
    pub url: String,
    pub access: Access,
}

/// How a remote is reached, by its URL's scheme.
pub enum Access {
    /// `http://` and `https://`: the guarded client, and the `Authorization` header every
    /// request carries, if any.
    Http {
        client: Arc<offlux_net::Client>,
        authorization: Option<String>,
    },
    /// `ssh://`.
    Ssh(ssh::SshAccess),
}

/// One ref a remote advertises.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RemoteRef {
    /// `refs/heads/main`, `refs/tags/v1.0.0`, `HEAD`.
    pub name: String,
    /// The object it names: a commit, or for an annotated tag the tag object.
    pub target: ObjectId,
    /// For an annotated tag, the commit it peels to.
    pub peeled: Option<ObjectId>,
}

impl RemoteRef {
    /// The commit the ref leads to.
    pub fn commit(&self) -> ObjectId {
        self.peeled.unwrap_or(self.target)
    }
}

/// What a fetch is for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Want {
    /// A full ref name (`refs/heads/main`, `refs/tags/v1`, `refs/pull/1/head`).
    Ref(String),
    /// A commit by id (the server must allow fetching it: GitHub, GitLab and `git http-backend`
    /// over protocol v2 do).
    Commit(ObjectId),
}

/// What a fetch got.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fetched {
    pub commit: ObjectId,
}

/// Why a Git operation failed; `message` is gix's own (it names the URL or the object).
#[derive(Debug, thiserror::Error)]
pub enum GitError {
    #[error("{0}")]
    Remote(String),
    /// A URL that cannot be fetched as written (Flux's parse or dial would fail on it too).
    #[error("{0}")]
    InvalidUrl(String),
    /// What `ssh` said, or why offlux stopped it; `unreachable` when the server was never
    /// reached (refused by the egress policy, no route, no `ssh` program here).
    #[error("{message}")]
    Ssh { message: String, unreachable: bool },
    #[error("{what} not found")]
    NotFound { what: String },
    #[error("{path}: {message}")]
    Repository { path: String, message: String },
    #[error("{path}: {message}")]
    Tree { path: String, message: String },
    #[error("the tree holds more than {0} entries (the entry limit)")]
    TooManyEntries(usize),
    #[error("the tree's files hold more than {0} bytes (the size limit)")]
    TooLarge(u64),
}

impl GitError {
    /// Whether the server was never heard from, or stopped answering: this machine's reach, not
    /// the request.
    pub fn is_unreachable(&self) -> bool {
        match self {
            GitError::Remote(message) => {
                !message.contains("HTTP status")
                    && !message.contains("credentials")
                    && !message.contains("does not speak TLS")
                    && !message.contains("certificate is not trusted")
            }
            GitError::Ssh { unreachable, .. } => *unreachable,
            _ => false,
        }
    }
}

fn remote_error(error: impl std::fmt::Display) -> GitError {
    let message = error.to_string();
    // gix asks its credentials callback after a 401 and words an empty answer for a credential
    // helper, which is not what happened here.
    if message.contains("No credentials were returned") {
        return GitError::Remote(
            "HTTP status 401 (unauthorized): the server asks for credentials and none were given"
                .to_owned(),
        );
    }
    GitError::Remote(message)
}

fn chain(error: &(dyn std::error::Error + 'static)) -> String {
    let mut message = error.to_string();
    let mut source = error.source();
    while let Some(inner) = source {
        let text = inner.to_string();
        if !message.contains(&text) {
            message.push_str(": ");
            message.push_str(&text);
        }
        source = inner.source();
    }
    message
}

/// A bare repository at `git_dir`, made when missing, opened without any outside configuration.
fn bare(git_dir: &Path) -> Result<gix::Repository, GitError> {
    let failed = |e: &(dyn std::error::Error + 'static)| GitError::Repository {
        path: git_dir.display().to_string(),
        message: chain(e),
    };
    if git_dir.join("HEAD").is_file() {
        return gix::open_opts(git_dir, gix::open::Options::isolated()).map_err(|e| failed(&e));
    }
    std::fs::create_dir_all(git_dir).map_err(|e| failed(&e))?;
    gix::ThreadSafeRepository::init_opts(
        git_dir,
        gix::create::Kind::Bare,
        gix::create::Options::default(),
        gix::open::Options::isolated(),
    )
    .map(gix::Repository::from)
    .map_err(|e| failed(&e))
}

type AnyTransport = Box<dyn gix::protocol::transport::client::blocking_io::Transport + Send>;

/// The remote of `repo` at `remote.url`, the transport to reach it, and for SSH the session
/// that says why an exchange failed.
fn remote_at<'r>(
    repo: &'r gix::Repository,
    remote: &Remote,
) -> Result<(gix::Remote<'r>, AnyTransport, Option<Arc<ssh::Session>>), GitError> {
    let url = gix::url::parse(gix::bstr::BStr::new(remote.url.as_str()))
        .map_err(|e| GitError::InvalidUrl(e.to_string()))?;
    let (transport, session): (AnyTransport, _) = match (&remote.access, url.scheme.clone()) {
        (
            Access::Http {
                client,
                authorization,
            },
            gix::url::Scheme::Http | gix::url::Scheme::Https,
        ) => {
            let http = transport::GuardedHttp::new(client.clone(), authorization.clone());
            (Box::new(connect_http(http, url, Protocol::V2, false)), None)
        }
        (Access::Ssh(access), gix::url::Scheme::Ssh) => {
            let (transport, session) = ssh::connect(&url, access)?;
            (Box::new(transport), Some(session))
        }
        _ => {
            return Err(GitError::InvalidUrl(format!(
                "{}: only http, https and ssh URLs are fetched, each with its own access",
                remote.url
            )))
        }
    };
    let handle = repo
        .remote_at(remote.url.as_str())
        .map_err(|e| remote_error(chain(&e)))?
        .with_fetch_tags(Tags::None);
    Ok((handle, transport, session))
}

/// The error an exchange failed with: for SSH what `ssh` said, if it said anything.
fn exchange_error(
    session: Option<&Arc<ssh::Session>>,
    error: &(dyn std::error::Error + 'static),
) -> GitError {
    match session {
        Some(session) => session.error(chain(error)),
        None => remote_error(chain(error)),
    }
}

/// Credentials are the `Authorization` header or nothing: never a helper, never a prompt.
#[allow(
    clippy::result_large_err,
    reason = "the signature is gix's credential callback"
)]
fn no_credentials(_: gix::credentials::helper::Action) -> gix::credentials::protocol::Result {
    Ok(None)
}

fn refspec(text: &str) -> Result<gix::refspec::RefSpec, GitError> {
    gix::refspec::parse(text.into(), gix::refspec::parse::Operation::Fetch)
        .map(|spec| spec.to_owned())
        .map_err(|e| GitError::Remote(format!("refspec {text}: {e}")))
}

/// The branches and tags `remote` advertises (and `HEAD`), each with the commit it leads to.
/// `scratch` is a directory for the bare repository gix needs to hold a remote; it is left as a
/// bare repository (the caller's to keep or remove).
pub fn list_refs(remote: &Remote, scratch: &Path) -> Result<Vec<RemoteRef>, GitError> {
    let repo = bare(scratch)?;
    let (handle, transport, session) = remote_at(&repo, remote)?;
    let connection = handle
        .to_connection_with_transport(transport)
        .with_credentials(no_credentials);
    let options = gix::remote::ref_map::Options {
        extra_refspecs: vec![
            refspec("+refs/heads/*:refs/remotes/origin/*")?,
            refspec("+refs/tags/*:refs/tags/*")?,
        ],
        ..Default::default()
    };
    let (map, _) = connection
        .ref_map(gix::progress::Discard, options)
        .map_err(|e| exchange_error(session.as_ref(), &e))?;
    Ok(map
        .remote_refs
        .iter()
        .filter_map(|r| match r {
            Ref::Peeled {
                full_ref_name,
                tag,
                object,
            } => Some(RemoteRef {
                name: full_ref_name.to_string(),
                target: tag.to_owned(),
                peeled: Some(object.to_owned()),
            }),
            Ref::Direct {
                full_ref_name,
                object,
            }
            | Ref::Symbolic {
                full_ref_name,
                object,
                ..
            } => Some(RemoteRef {
                name: full_ref_name.to_string(),
                target: object.to_owned(),
                peeled: None,
            }),
            Ref::Unborn { .. } => None,
        })
        .collect())
}

/// Whether the bare repository at `git_dir` already holds `commit` (a pinned revision is never
/// fetched twice).
pub fn has_commit(git_dir: &Path, commit: ObjectId) -> bool {
    if !git_dir.join("HEAD").is_file() {
        return false;
    }
    let Ok(repo) = gix::open_opts(git_dir, gix::open::Options::isolated()) else {
        return false;
    };
    let found = repo.find_commit(commit).is_ok();
    found
}

/// Fetches `want` from `remote` into the bare repository at `git_dir` (made when missing), one
/// commit deep, and returns the commit it leads to (an annotated tag peeled). Unpacking what the
/// server sent is interrupted at `deadline` (a pack of deltas can ask for far more work than its
/// bytes show).
pub fn fetch(
    remote: &Remote,
    want: &Want,
    git_dir: &Path,
    deadline: Option<Instant>,
) -> Result<Fetched, GitError> {
    let repo = bare(git_dir)?;
    let (handle, transport, session) = remote_at(&repo, remote)?;
    let connection = handle
        .to_connection_with_transport(transport)
        .with_credentials(no_credentials);
    let spec = match want {
        Want::Ref(name) => refspec(name)?,
        Want::Commit(id) => refspec(&id.to_string())?,
    };
    let options = gix::remote::ref_map::Options {
        extra_refspecs: vec![spec],
        ..Default::default()
    };
    let depth = NonZeroU32::MIN;
    let interrupt = AtomicBool::new(false);
    let done = AtomicBool::new(false);
    let (interrupt, done) = (&interrupt, &done);
    let outcome = std::thread::scope(|scope| {
        if let Some(deadline) = deadline {
            scope.spawn(move || {
                while !done.load(Ordering::Relaxed) {
                    if Instant::now() >= deadline {
                        interrupt.store(true, Ordering::Relaxed);
                        return;
                    }
                    std::thread::sleep(Duration::from_millis(50));
                }
            });
        }
        let outcome = connection
            .prepare_fetch(gix::progress::Discard, options)
            .map_err(|e| exchange_error(session.as_ref(), &e))
            .and_then(|prepared| {
                prepared
                    .with_shallow(Shallow::DepthAtRemote(depth))
                    .receive(gix::progress::Discard, interrupt)
                    .map_err(|e| exchange_error(session.as_ref(), &e))
            });
        done.store(true, Ordering::Relaxed);
        outcome
    });
    if interrupt.load(Ordering::Relaxed) {
        return Err(GitError::Remote(format!(
            "{}: the fetch was cut at the run's network deadline",
            remote.url
        )));
    }
    let outcome = outcome?;
    let what = match want {
        Want::Ref(name) => name.clone(),
        Want::Commit(id) => id.to_string(),
    };
    let id = outcome
        .ref_map
        .mappings
        .first()
        .and_then(|m| m.remote.as_id())
        .map(|id| id.to_owned())
        .ok_or(GitError::NotFound { what: what.clone() })?;
    let commit = repo
        .find_object(id)
        .map_err(|e| GitError::NotFound {
            what: format!("{what} ({e})"),
        })?
        .peel_to_commit()
        .map_err(|e| GitError::NotFound {
            what: format!("a commit for {what} ({e})"),
        })?;
    Ok(Fetched { commit: commit.id })
}

/// Deltas one object may be rebuilt through (git's own `pack.depth` default is 50).
const MAX_DELTA_CHAIN: usize = 1_000;

/// What a tree holds, read into memory.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tree {
    /// Regular files (executable or not): `/`-separated path and bytes.
    pub files: Vec<(String, Vec<u8>)>,
    /// Directories, including empty ones.
    pub dirs: Vec<String>,
    /// Symbolic links: path and target, as stored.
    pub links: Vec<(String, String)>,
    /// Submodules, left out.
    pub submodules: Vec<String>,
}

/// Bounds on a tree read.
#[derive(Clone, Copy, Debug)]
pub struct TreeLimits {
    pub entries: usize,
    pub bytes: u64,
    pub depth: usize,
}

/// The tree of `commit` in the repository at `git_dir`. Names git would not check out (`..`,
/// `.git`, a `/`) fail the read.
pub fn read_tree(git_dir: &Path, commit: ObjectId, limits: TreeLimits) -> Result<Tree, GitError> {
    let repo = gix::open_opts(git_dir, gix::open::Options::isolated()).map_err(|e| {
        GitError::Repository {
            path: git_dir.display().to_string(),
            message: chain(&e),
        }
    })?;
    let failed = tree_error;
    let commit = repo.find_commit(commit).map_err(|e| failed("", &e))?;
    let tree = commit.tree_id().map_err(|e| failed("", &e))?.detach();
    let mut out = Tree::default();
    let mut budget = (limits.entries, limits.bytes);
    walk(&repo, tree, "", 0, limits, &mut budget, &mut out)?;
    Ok(out)
}

/// A tree read's failure at `path` (`.` for the root).
fn tree_error(path: &str, error: &dyn std::fmt::Display) -> GitError {
    GitError::Tree {
        path: if path.is_empty() {
            ".".into()
        } else {
            path.to_owned()
        },
        message: error.to_string(),
    }
}

fn walk(
    repo: &gix::Repository,
    tree: ObjectId,
    prefix: &str,
    depth: usize,
    limits: TreeLimits,
    budget: &mut (usize, u64),
    out: &mut Tree,
) -> Result<(), GitError> {
    use gix::objs::tree::EntryKind;
    let failed = tree_error;
    if depth > limits.depth {
        return Err(failed(
            prefix,
            &format!("deeper than {} directories", limits.depth),
        ));
    }
    let tree = repo.find_tree(tree).map_err(|e| failed(prefix, &e))?;
    for entry in tree.iter() {
        let entry = entry.map_err(|e| failed(prefix, &e))?;
        let name = entry.filename();
        gix::validate::path::component(name, None, Default::default())
            .map_err(|e| failed(&format!("{prefix}{name}"), &e))?;
        let path = format!("{prefix}{name}");
        budget.0 = budget
            .0
            .checked_sub(1)
            .ok_or(GitError::TooManyEntries(limits.entries))?;
        match entry.mode().kind() {
            EntryKind::Tree => {
                out.dirs.push(path.clone());
                walk(
                    repo,
                    entry.object_id(),
                    &format!("{path}/"),
                    depth + 1,
                    limits,
                    budget,
                    out,
                )?;
            }
            EntryKind::Blob | EntryKind::BlobExecutable | EntryKind::Link => {
                // The size and delta depth the object's header declares, checked before it is
                // inflated: a hostile pack may declare far more than it holds.
                let header = repo
                    .find_header(entry.object_id())
                    .map_err(|e| failed(&path, &e))?;
                budget.1 = budget
                    .1
                    .checked_sub(header.size())
                    .ok_or(GitError::TooLarge(limits.bytes))?;
                if header
                    .num_deltas()
                    .is_some_and(|n| n as usize > MAX_DELTA_CHAIN)
                {
                    return Err(failed(
                        &path,
                        &format!("a delta chain longer than {MAX_DELTA_CHAIN}"),
                    ));
                }
                let blob = repo
                    .find_object(entry.object_id())
                    .map_err(|e| failed(&path, &e))?;
                if entry.mode().kind() == EntryKind::Link {
                    out.links
                        .push((path, String::from_utf8_lossy(&blob.data).into_owned()));
                } else {
                    out.files.push((path, blob.data.clone()));
                }
            }
            EntryKind::Commit => out.submodules.push(path),
        }
    }
    Ok(())
}
