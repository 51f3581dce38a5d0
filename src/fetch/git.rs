//! A GitRepository's artifact, as source-controller's `GitRepositoryReconciler` gets it through
//! fluxcd/pkg's `gogit.Client.Clone`: the `ref` read in its precedence (`commit` > `name` > `tag` >
//! `semver` > `branch`, `master` when none), one commit deep; the revision as
//! `commitReference` spells it (`main@sha1:<hex>`, `v1@sha1:<hex>`, the full ref for `name`,
//! `sha1:<hex>` for a bare commit); `sparseCheckout` directories (each must exist); in-tree
//! symlinks replaced by copies of their targets and the rest dropped (`resolveSymlinks`, then
//! the archive's regular files only). Credentials from `secretRef`: `bearerToken`, or `username`
//! and `password`; for `ssh://` URLs an `identity` and `known_hosts` (both required, as
//! `git.AuthOptions.Validate` requires them), reached through OpenSSH's `ssh` (`offlux_git::ssh`).
//! Not fetched, with the reason: passphrase-protected identities, SSH with `--proxy`, cloud and
//! GitHub App `provider`s, `recurseSubmodules` with submodules present. `include`s are read here
//! and applied by the caller once the included GitRepositories are fetched (`super::include`).
//!
//! The bare repository a fetch fills is kept in the download cache by URL, so a pinned commit is
//! read from it without the network; a branch or tag is resolved again on each command, its
//! last resolution remembered for `--offline`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use offlux_sync::MutexExt as _;

use crate::controllers::source::SourceFetch;
use crate::discovery::Repository;
use crate::model::{FluxObject, ResourceId};
use crate::yaml::Node;

use super::{Attempt, FetchSettings, Unpacked};
use offlux_git::{Access, GitError, ObjectId, Remote, RemoteRef, TreeLimits, Want};

/// A tree read from a commit may hold this many entries and bytes, this deep.
const LIMITS: TreeLimits = TreeLimits {
    entries: 100_000,
    bytes: 256 << 20,
    depth: 256,
};
/// The largest answer a Git server may send (a pack of one commit's tree).
const MAX_PACK_BYTES: u64 = 512 << 20;

/// The `ref` of a GitRepository, in source-controller's precedence.
#[derive(Clone, Debug, PartialEq, Eq)]
enum GitRef {
    Commit { id: String, branch: Option<String> },
    Name(String),
    Tag(String),
    Semver(String),
    Branch(String),
}

fn text<'a>(spec: &'a Node, path: &[&str]) -> Option<&'a str> {
    spec.get_path(path)
        .and_then(Node::as_str)
        .filter(|s| !s.is_empty())
}

/// gogit `Client.Clone`'s switch: `commit`, `name`, `tag`, `semver`, then `branch` (default
/// `master`, not the remote's HEAD).
fn git_ref(spec: &Node) -> GitRef {
    let branch = text(spec, &["ref", "branch"]).map(str::to_owned);
    if let Some(id) = text(spec, &["ref", "commit"]) {
        return GitRef::Commit {
            id: id.to_owned(),
            branch,
        };
    }
    if let Some(name) = text(spec, &["ref", "name"]) {
        return GitRef::Name(name.to_owned());
    }
    if let Some(tag) = text(spec, &["ref", "tag"]) {
        return GitRef::Tag(tag.to_owned());
    }
    if let Some(range) = text(spec, &["ref", "semver"]) {
        return GitRef::Semver(range.to_owned());
    }
    GitRef::Branch(branch.unwrap_or_else(|| "master".to_owned()))
}

/// One lock per cached repository: two sources of one URL do not fetch into it at once.
fn lock_for(dir: &Path) -> Arc<Mutex<()>> {
    static LOCKS: Mutex<BTreeMap<PathBuf, Arc<Mutex<()>>>> = Mutex::new(BTreeMap::new());
    LOCKS.locked().entry(dir.to_path_buf()).or_default().clone()
}

/// Where `url`'s bare repository is kept: the download cache, or a directory of this run.
struct Store {
    url: String,
    git_dir: PathBuf,
    /// The download cache, where resolutions are remembered for `--offline`.
    cache: Option<PathBuf>,
    /// Removed when the fetch is done, when there is no cache.
    _scratch: Option<tempfile::TempDir>,
}

impl Store {
    fn new(settings: &FetchSettings, url: &str) -> Result<Store, String> {
        use sha2::Digest as _;
        let key = hex::encode(sha2::Sha256::digest(url.as_bytes()));
        match &settings.download_cache {
            Some(cache) => Ok(Store {
                url: url.to_owned(),
                git_dir: cache.join("git").join(&key),
                cache: Some(cache.clone()),
                _scratch: None,
            }),
            None => {
                let scratch = tempfile::Builder::new()
                    .prefix("offlux-git-")
                    .tempdir()
                    .map_err(|e| format!("no directory for the fetch: {e}"))?;
                Ok(Store {
                    url: url.to_owned(),
                    git_dir: scratch.path().join("repo.git"),
                    cache: None,
                    _scratch: Some(scratch),
                })
            }
        }
    }

    fn key(&self, what: &str) -> String {
        format!("git\n{}\n{what}", self.url)
    }

    fn remembered(&self, what: &str) -> Option<String> {
        super::remembered(self.cache.as_deref()?, &self.key(what))
    }

    fn remember(&self, what: &str, value: &str) {
        if let Some(cache) = &self.cache {
            super::remember(cache, &self.key(what), value);
        }
    }

    fn remembered_commit(&self, what: &str) -> Option<ObjectId> {
        ObjectId::from_hex(self.remembered(what)?.as_bytes()).ok()
    }
}

/// Fetches `flux`'s artifact.
pub(super) fn fetch(
    flux: &FluxObject,
    repository: &Repository,
    settings: &FetchSettings,
) -> Result<Unpacked, Attempt> {
    let node = &flux.object.node;
    let Some(spec) = node.get("spec") else {
        return Err(SourceFetch::Failed("`spec` is required".into()).into());
    };
    let Some(url) = text(spec, &["url"]) else {
        return Err(SourceFetch::Failed("`spec.url` is required".into()).into());
    };
    let scheme = url.split_once("://").map(|(s, _)| s);
    if !matches!(scheme, Some("http" | "https" | "ssh")) {
        // The CRD's pattern: the API server refuses anything else.
        return Err(SourceFetch::Failed(format!(
            "spec.url {url:?} should match '^(http|https|ssh)://.*$'"
        ))
        .into());
    }
    if let Some(provider) = text(spec, &["provider"]).filter(|p| *p != "generic") {
        return Err(SourceFetch::Skipped(format!(
            "`provider: {provider}` authenticates with credentials offlux does not obtain"
        ))
        .into());
    }
    // Offline only the cache answers, and it needs no credentials.
    let secret = text(spec, &["secretRef", "name"]);
    let access = if scheme == Some("ssh") {
        if settings.proxy.is_some() && !settings.offline {
            return Err(SourceFetch::Skipped(format!(
                "{url}: SSH connects directly and does not go through --proxy (`--offline` reads \
                 it from the download cache, if a run without --proxy fetched it)"
            ))
            .into());
        }
        let data = match secret {
            Some(name) if !settings.offline => {
                super::secret_data(repository, &flux.object.id, name)?
            }
            _ => BTreeMap::new(),
        };
        let secret = secret.map(|name| format!("Secret {}/{name}: ", flux.namespace()));
        ssh_access(&data, secret.as_deref().unwrap_or(""), settings)?
    } else {
        Access::Http {
            client: Arc::new(offlux_net::Client::new(
                &settings.client_options(MAX_PACK_BYTES),
            )),
            authorization: match secret {
                Some(name) if !settings.offline => {
                    authorization(repository, &flux.object.id, name)?
                }
                _ => None,
            },
        }
    };
    if settings.offline && settings.download_cache.is_none() {
        return Err(Attempt::NotTried);
    }
    let store = Store::new(settings, url).map_err(|e| Attempt::from(SourceFetch::Failed(e)))?;
    let lock = lock_for(&store.git_dir);
    let _held = lock.locked();
    let remote = Remote {
        url: url.to_owned(),
        access,
    };
    let wanted = git_ref(spec);
    let deadline = settings.deadline.map(|d| d.at);
    let (commit, reference) = resolve(&remote, &wanted, &store, settings.offline, deadline)?;
    if store.cache.is_some() {
        // What `offlux cache list` names the repository by. Only a listing misses it if this
        // cannot be written.
        let _ = crate::fsio::write_atomically(
            &store.git_dir.join(super::cache::GIT_URL_FILE),
            url.as_bytes(),
        );
    }
    let revision = match &reference {
        Some(name) => format!("{name}@sha1:{commit}"),
        None => format!("sha1:{commit}"),
    };
    let tree = offlux_git::read_tree(&store.git_dir, commit, LIMITS)
        .map_err(|e| Attempt::from(SourceFetch::Failed(format!("{url} at {revision}: {e}"))))?;
    // What the run holds in memory of its sources counts against its budget of bytes
    // extracted, as an OCI layer's files do: many sources cannot add up past it.
    let held: u64 = tree.files.iter().map(|(_, b)| b.len() as u64).sum();
    if let Some(budget) = &repository.budget {
        budget
            .charge(crate::budget::Resource::ExtractedBytes, held)
            .map_err(|e| Attempt::from(SourceFetch::Failed(format!("{url} at {revision}: {e}"))))?;
    }
    if !tree.submodules.is_empty()
        && spec.get("recurseSubmodules").and_then(Node::as_str) == Some("true")
    {
        return Err(SourceFetch::Skipped(format!(
            "{url} at {revision}: submodules ({}) are not fetched by offlux",
            tree.submodules.join(", ")
        ))
        .into());
    }
    let (mut files, mut dirs) = resolve_symlinks(tree);
    if let Some(sparse) = spec.get("sparseCheckout").and_then(Node::as_sequence) {
        let kept: Vec<String> = sparse
            .items
            .iter()
            .filter_map(Node::as_str)
            .map(|d| d.trim_start_matches("./").trim_matches('/').to_owned())
            .filter(|d| !d.is_empty())
            .collect();
        if !kept.is_empty() {
            for dir in &kept {
                if !dirs.contains(dir) {
                    return Err(SourceFetch::Failed(format!(
                        "sparse checkout dir '{dir}' does not exist in repository"
                    ))
                    .into());
                }
            }
            let inside = |path: &str| {
                kept.iter().any(|d| {
                    path == d
                        || path
                            .strip_prefix(d.as_str())
                            .is_some_and(|r| r.starts_with('/'))
                })
            };
            let ancestor = |path: &str| kept.iter().any(|d| d.starts_with(&format!("{path}/")));
            // go-git's sparse checkout keeps files at the root as well as under the directories.
            files.retain(|(p, _)| !p.contains('/') || inside(p));
            dirs.retain(|d| inside(d) || ancestor(d));
        }
    }
    let mut summary = format!("fetched {url} at {revision}");
    if settings.offline {
        summary.push_str(" from the download cache (--offline)");
        if !matches!(wanted, GitRef::Commit { .. }) {
            summary.push_str(
                "; the ref was resolved when last fetched: the remote may have moved it since",
            );
        }
    }
    Ok(Unpacked {
        files,
        dirs,
        summary,
        revision,
        includes: includes(spec),
    })
}

/// `spec.include`: each GitRepository (of the same namespace) whose artifact's `fromPath` is
/// copied to `toPath` (by default the included repository's name).
fn includes(spec: &Node) -> Vec<super::Include> {
    let Some(list) = spec.get("include").and_then(Node::as_sequence) else {
        return Vec::new();
    };
    list.items
        .iter()
        .filter_map(|item| {
            let name = text(item, &["repository", "name"])?.to_owned();
            let clean = |p: &str| p.trim_start_matches("./").trim_matches('/').to_owned();
            Some(super::Include {
                from: text(item, &["fromPath"]).map(clean).unwrap_or_default(),
                to: text(item, &["toPath"]).map_or_else(|| name.clone(), clean),
                name,
            })
        })
        .collect()
}

/// The commit `wanted` leads to, fetched into the store, and the ref name its revision carries.
fn resolve(
    remote: &Remote,
    wanted: &GitRef,
    store: &Store,
    offline: bool,
    deadline: Option<std::time::Instant>,
) -> Result<(ObjectId, Option<String>), Attempt> {
    let url = remote.url.as_str();
    let failed = |e: GitError| -> Attempt {
        if e.is_unreachable() {
            // gix's HTTP errors name the URL; what `ssh` says does not.
            match e {
                GitError::Ssh { .. } => super::unreachable(format!("{url}: {e}")).into(),
                e => super::unreachable(e).into(),
            }
        } else if matches!(e, GitError::InvalidUrl(_)) {
            // Its message names the URL already.
            SourceFetch::Failed(e.to_string()).into()
        } else {
            SourceFetch::Failed(format!("{url}: {e}")).into()
        }
    };
    let (want, label) = match wanted {
        GitRef::Commit { id, branch } => {
            let id = ObjectId::from_hex(id.as_bytes()).map_err(|_| {
                Attempt::from(SourceFetch::Failed(format!(
                    "`ref.commit` {id} is not a full commit id"
                )))
            })?;
            if !offlux_git::has_commit(&store.git_dir, id) {
                if offline {
                    return Err(Attempt::NotTried);
                }
                offlux_git::fetch(remote, &Want::Commit(id), &store.git_dir, deadline)
                    .map_err(failed)?;
            }
            return Ok((id, branch.clone()));
        }
        GitRef::Name(name) => (name.clone(), name.clone()),
        GitRef::Tag(tag) => (format!("refs/tags/{tag}"), tag.clone()),
        GitRef::Branch(branch) => (format!("refs/heads/{branch}"), branch.clone()),
        GitRef::Semver(range) => {
            if offline {
                let commit = store.remembered_commit(&format!("semver {range}"));
                let tag = store.remembered(&format!("semver-tag {range}"));
                let (commit, tag) = commit.zip(tag).ok_or(Attempt::NotTried)?;
                return Ok((commit, Some(tag)));
            }
            let refs = offlux_git::list_refs(remote, &store.git_dir).map_err(failed)?;
            let tag =
                tag_by_semver(&refs, range).map_err(|e| Attempt::from(SourceFetch::Failed(e)))?;
            let fetched = offlux_git::fetch(
                remote,
                &Want::Ref(format!("refs/tags/{tag}")),
                &store.git_dir,
                deadline,
            )
            .map_err(failed)?;
            store.remember(&format!("semver {range}"), &fetched.commit.to_string());
            store.remember(&format!("semver-tag {range}"), &tag);
            return Ok((fetched.commit, Some(tag)));
        }
    };
    if offline {
        let commit = store.remembered_commit(&want).ok_or(Attempt::NotTried)?;
        return Ok((commit, Some(label)));
    }
    let fetched = offlux_git::fetch(remote, &Want::Ref(want.clone()), &store.git_dir, deadline)
        .map_err(|e| match e {
            GitError::NotFound { .. } => Attempt::from(SourceFetch::Failed(format!(
                "{url}: couldn't find remote ref '{want}'"
            ))),
            e => failed(e),
        })?;
    store.remember(&want, &fetched.commit.to_string());
    Ok((fetched.commit, Some(label)))
}

/// The tag `range` picks among the remote's tags: those fluxcd/pkg `version.ParseVersion` reads
/// (three dot-separated parts, then Masterminds) that satisfy it, the highest.
fn tag_by_semver(refs: &[RemoteRef], range: &str) -> Result<String, String> {
    let tags = refs
        .iter()
        .filter_map(|r| r.name.strip_prefix("refs/tags/"));
    super::highest_version(tags, range)?
        .map(str::to_owned)
        .ok_or_else(|| format!("no match found for semver: {range}"))
}

/// The `Authorization` header Secret `name` gives (fluxcd/pkg `git.NewAuthOptions`): a
/// `bearerToken`, else `username` and `password`.
fn authorization(
    repository: &Repository,
    source: &ResourceId,
    name: &str,
) -> Result<Option<String>, Attempt> {
    let data = super::secret_data(repository, source, name)?;
    let field = |key: &str| data.get(key).filter(|v| !v.is_empty());
    match (field("bearerToken"), field("username"), field("password")) {
        (Some(_), Some(_), _) => Err(SourceFetch::Failed(format!(
            "Secret {}/{name}: bearerToken and username are both set",
            source.namespace
        ))
        .into()),
        (Some(token), None, _) => Ok(Some(format!("Bearer {token}"))),
        (None, Some(user), password) => Ok(Some(offlux_net::basic_header(
            user,
            password.map_or("", String::as_str),
        ))),
        (None, None, _) => Ok(None),
    }
}

/// How an `ssh://` URL is reached with the Secret's `data` (fluxcd/pkg `git.NewAuthOptions` and
/// `AuthOptions.Validate`: an `identity` and `known_hosts` are required; go-git's
/// `NewPublicKeys`: the identity is used as it is when it needs no passphrase, and one that needs
/// its `password` is not unlocked here). `secret` names the Secret in messages. Offline only the
/// cache answers and nothing is required.
fn ssh_access(
    data: &BTreeMap<String, String>,
    secret: &str,
    settings: &FetchSettings,
) -> Result<Access, Attempt> {
    let field = |key: &str| data.get(key).filter(|v| !v.is_empty());
    let program = match &settings.ssh {
        Some(program) => program.clone(),
        // Offline the program is not run: the cache answers.
        None if settings.offline => super::SshProgram::default(),
        None => {
            return Err(SourceFetch::Skipped(
                "no `ssh` on PATH: SSH URLs are fetched with OpenSSH's client".into(),
            )
            .into())
        }
    };
    if !settings.offline {
        for required in ["identity", "known_hosts"] {
            if field(required).is_none() {
                return Err(SourceFetch::Failed(format!(
                    "{secret}invalid 'ssh' auth option: '{required}' is required"
                ))
                .into());
            }
        }
        let identity = field("identity").map_or("", String::as_str);
        match (field("password").is_some(), passphrase_protected(identity)) {
            (true, true) => {
                return Err(SourceFetch::Skipped(format!(
                    "{secret}the identity is passphrase-protected (`password`), which offlux does not unlock"
                ))
                .into())
            }
            // go-git's `NewPublicKeys` (what fluxcd/pkg's transport calls) tries the key without
            // the passphrase first: a key that needs none is used as it is.
            (true, false) => {}
            (false, true) => {
                return Err(SourceFetch::Failed(format!(
                    "{secret}invalid 'ssh' auth option 'identity': ssh: this private key is passphrase protected"
                ))
                .into())
            }
            (false, false) => {}
        }
    }
    let timeout = std::time::Duration::from_secs(300);
    let idle = std::time::Duration::from_secs(
        settings
            .idle_timeout_secs
            .unwrap_or(offlux_net::ClientOptions::default().idle_timeout_secs),
    );
    let deadline = settings
        .deadline
        .map(|d| d.at)
        .unwrap_or_else(|| std::time::Instant::now() + timeout);
    Ok(Access::Ssh(offlux_git::ssh::SshAccess {
        identity: field("identity").cloned().unwrap_or_default().into_bytes(),
        known_hosts: field("known_hosts")
            .cloned()
            .unwrap_or_default()
            .into_bytes(),
        username: field("username").cloned(),
        allow_private_network: settings.allow_private_network,
        max_bytes: MAX_PACK_BYTES,
        deadline,
        idle_timeout: idle,
        program: program.path,
        environment: program.environment,
    }))
}

/// Whether a private key needs a passphrase: PEM's `ENCRYPTED` markers, or an OpenSSH key
/// (`openssh-key-v1`) whose cipher is not `none`.
fn passphrase_protected(identity: &str) -> bool {
    use base64::Engine as _;
    if identity.contains("ENCRYPTED") {
        return true;
    }
    let Some(body) = identity
        .split_once("-----BEGIN OPENSSH PRIVATE KEY-----")
        .and_then(|(_, rest)| rest.split_once("-----END"))
        .map(|(body, _)| body.split_whitespace().collect::<String>())
    else {
        return false;
    };
    let Ok(bytes) = base64::engine::general_purpose::STANDARD.decode(body) else {
        return false;
    };
    let Some(rest) = bytes.strip_prefix(b"openssh-key-v1\0") else {
        return false;
    };
    let Some(length) = rest
        .get(..4)
        .and_then(|b| <[u8; 4]>::try_from(b).ok())
        .map(u32::from_be_bytes)
    else {
        return false;
    };
    rest.get(4..4 + length as usize)
        .is_some_and(|cipher| cipher != b"none")
}

/// The tree as source-controller archives it after `resolveSymlinks`: a symlink to a file or
/// directory of the tree becomes a copy of it; one that leaves the tree or leads nowhere is left
/// out (the archive keeps only regular files and directories).
fn resolve_symlinks(tree: offlux_git::Tree) -> (Vec<(String, Vec<u8>)>, Vec<String>) {
    let offlux_git::Tree {
        mut files,
        mut dirs,
        links,
        ..
    } = tree;
    let links: BTreeMap<String, String> = links.into_iter().collect();
    let file_index: BTreeMap<String, usize> = files
        .iter()
        .enumerate()
        .map(|(i, (p, _))| (p.clone(), i))
        .collect();
    let mut copies = Vec::new();
    let mut copied_dirs = Vec::new();
    for link in links.keys() {
        let Some(target) = follow(link, &links) else {
            continue;
        };
        if let Some(&i) = file_index.get(&target) {
            copies.push((link.clone(), files[i].1.clone()));
        } else if dirs.contains(&target) {
            copied_dirs.push(link.clone());
            let prefix = format!("{target}/");
            for (path, bytes) in files.iter() {
                if let Some(rest) = path.strip_prefix(&prefix) {
                    copies.push((format!("{link}/{rest}"), bytes.clone()));
                }
            }
            for dir in dirs.iter() {
                if let Some(rest) = dir.strip_prefix(&prefix) {
                    copied_dirs.push(format!("{link}/{rest}"));
                }
            }
        }
    }
    files.extend(copies);
    dirs.extend(copied_dirs);
    (files, dirs)
}

/// Where symlink `link` leads inside the tree, following links up to 16 deep; `None` when it
/// leaves the tree, loops or names nothing.
fn follow(link: &str, links: &BTreeMap<String, String>) -> Option<String> {
    let mut at = link.to_owned();
    for _ in 0..16 {
        let Some(target) = links.get(&at) else {
            return Some(at);
        };
        if target.starts_with('/') {
            return None;
        }
        let parent = at.rsplit_once('/').map_or("", |(p, _)| p);
        let mut parts: Vec<&str> = parent.split('/').filter(|p| !p.is_empty()).collect();
        for part in target.split('/') {
            match part {
                "" | "." => {}
                ".." => {
                    parts.pop()?;
                }
                part => parts.push(part),
            }
        }
        at = parts.join("/");
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ref_is_read_in_gogit_precedence() {
        let spec = |text: &str| {
            let documents = crate::yaml::parse_stream(text, &Default::default())
                .unwrap_or_else(|e| panic!("{e}"));
            documents[0].root.as_ref().clone()
        };
        assert_eq!(
            git_ref(&spec("ref: {branch: dev, tag: v1, commit: abc}")),
            GitRef::Commit {
                id: "abc".into(),
                branch: Some("dev".into())
            }
        );
        assert_eq!(
            git_ref(&spec("ref: {tag: v1, semver: '*', name: refs/pull/1/head}")),
            GitRef::Name("refs/pull/1/head".into())
        );
        assert_eq!(
            git_ref(&spec("ref: {tag: v1, semver: '*'}")),
            GitRef::Tag("v1".into())
        );
        assert_eq!(
            git_ref(&spec("ref: {semver: '*', branch: x}")),
            GitRef::Semver("*".into())
        );
        assert_eq!(git_ref(&spec("url: x")), GitRef::Branch("master".into()));
    }

    #[test]
    fn symlinks_in_the_tree_become_copies_and_the_rest_are_dropped() {
        let tree = offlux_git::Tree {
            files: vec![
                ("base/a.yaml".into(), b"a".to_vec()),
                ("top.yaml".into(), b"t".to_vec()),
            ],
            dirs: vec!["base".into(), "apps".into()],
            links: vec![
                ("apps/a.yaml".into(), "../base/a.yaml".into()),
                ("apps/base".into(), "../base".into()),
                ("apps/out".into(), "../../etc/passwd".into()),
                ("apps/abs".into(), "/etc/passwd".into()),
                ("apps/loop".into(), "loop".into()),
                ("apps/none".into(), "missing".into()),
            ],
            submodules: Vec::new(),
        };
        let (files, dirs) = resolve_symlinks(tree);
        let names: Vec<&str> = files.iter().map(|(p, _)| p.as_str()).collect();
        assert_eq!(
            names,
            ["base/a.yaml", "top.yaml", "apps/a.yaml", "apps/base/a.yaml"]
        );
        assert!(dirs.contains(&"apps/base".to_owned()));
    }
}
