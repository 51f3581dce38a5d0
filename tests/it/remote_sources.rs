//! Remote sources fetched as source-controller fetches them (issue 37): OCIRepository artifacts
//! pushed in `flux push artifact`'s format to a real registry on loopback (Debian's
//! `docker-registry`), consumed by Kustomizations. No test touches the internet.

#![cfg(feature = "network")]

use std::path::Path;

use crate::common::offlux_cli::offlux;
use crate::common::registry::{start_registry, Registry};

const FLUX_CONFIG: &str = "application/vnd.cncf.flux.config.v1+json";
const FLUX_CONTENT: &str = "application/vnd.cncf.flux.content.v1.tar+gzip";

fn write(root: &Path, file: &str, text: &str) {
    let path = root.join(file);
    std::fs::create_dir_all(path.parent().unwrap_or(root)).expect("mkdir");
    std::fs::write(path, text).expect("write");
}

/// A `.tar.gz` of `files` (path, text), as `flux push artifact` builds one; `links` adds symlinks.
fn tgz(files: &[(&str, &str)], links: &[(&str, &str)]) -> Vec<u8> {
    let mut builder = tar::Builder::new(flate2::write::GzEncoder::new(
        Vec::new(),
        flate2::Compression::default(),
    ));
    for (path, text) in files {
        let mut header = tar::Header::new_gnu();
        header.set_size(text.len() as u64);
        header.set_mode(0o644);
        header.set_entry_type(tar::EntryType::Regular);
        // `set_path` refuses `..`; a hostile archive writes the name bytes itself.
        let name = header.as_old_mut().name.as_mut();
        name[..path.len()].copy_from_slice(path.as_bytes());
        header.set_cksum();
        builder.append(&header, text.as_bytes()).expect("append");
    }
    for (path, target) in links {
        let mut header = tar::Header::new_gnu();
        header.set_entry_type(tar::EntryType::Symlink);
        header.set_size(0);
        builder
            .append_link(&mut header, path, target)
            .expect("link");
    }
    builder.into_inner().expect("tar").finish().expect("gzip")
}

/// The artifact `fleet/apps`: `deploy/` holds a kustomization of one ConfigMap named `name`.
fn app_artifact(name: &str) -> Vec<u8> {
    tgz(
        &[
            (
                "deploy/kustomization.yaml",
                "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [cm.yaml]\n",
            ),
            (
                "deploy/cm.yaml",
                &format!("apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: {name}, namespace: default}}\ndata: {{a: '1'}}\n"),
            ),
        ],
        &[("deploy/escape.yaml", "/etc/passwd")],
    )
}

fn push_artifact(registry: &Registry, auth: Option<&str>, tag: &str, layer: Vec<u8>) -> String {
    registry.push(
        auth,
        "fleet/apps",
        tag,
        (FLUX_CONFIG, b"{}"),
        &[(FLUX_CONTENT, layer)],
    )
}

/// A repository whose Kustomization `apps` applies `./deploy` of OCIRepository `apps` at `host`,
/// with `reference` as its `ref` and `extra` added to its spec.
fn fixture(root: &Path, host: &str, reference: &str, extra: &str) {
    write(
        root,
        "clusters/dev/apps.yaml",
        &format!(
            "apiVersion: source.toolkit.fluxcd.io/v1\nkind: OCIRepository\nmetadata: {{name: apps, namespace: flux-system}}\nspec:\n  interval: 10m\n  url: oci://{host}/fleet/apps\n  insecure: true\n  ref: {reference}\n{extra}---\napiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {{name: apps, namespace: flux-system}}\nspec:\n  interval: 10m\n  path: ./deploy\n  prune: true\n  sourceRef: {{kind: OCIRepository, name: apps}}\n"
        ),
    );
}

/// `offlux ARGS` on the fixture at `root`, its download cache under `root/.cache` (never the
/// user's).
fn run(root: &Path, args: &[&str]) -> std::process::Output {
    // A temporary directory of the fixture's own, to see what a run leaves there.
    let tmp = root.join(".tmp");
    std::fs::create_dir_all(&tmp).expect("mkdir");
    offlux()
        .env("XDG_CACHE_HOME", root.join(".cache"))
        .env("TMPDIR", &tmp)
        .args(args)
        .arg("--path")
        .arg(root.join("clusters/dev"))
        .arg("--root")
        .arg(root)
        .output()
        .expect("runs")
}

fn rows(root: &Path, extra: &[&str]) -> (serde_json::Value, String) {
    let mut args = vec!["test", "-o", "json"];
    args.extend_from_slice(extra);
    let output = run(root, &args);
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    let json = serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout}\n{stderr}"));
    (json, stderr)
}

/// `(result, message)` of the row of `kind`/`name`.
fn row(json: &serde_json::Value, kind: &str, name: &str) -> (String, String) {
    let rows = json.as_array().unwrap_or_else(|| panic!("no rows: {json}"));
    let found = rows
        .iter()
        .find(|r| r["kind"] == kind && r["name"] == name)
        .unwrap_or_else(|| panic!("no row {kind}/{name}: {json}"));
    (
        found["result"].as_str().unwrap_or_default().to_owned(),
        found["message"].as_str().unwrap_or_default().to_owned(),
    )
}

fn build_all(root: &Path, extra: &[&str]) -> String {
    let mut args = vec!["build", "all"];
    args.extend_from_slice(extra);
    let output = run(root, &args);
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn an_oci_artifact_is_fetched_by_tag_semver_and_digest_and_applied() {
    let Some(registry) = start_registry(None) else {
        return;
    };
    push_artifact(&registry, None, "1.0.0", app_artifact("from-v1"));
    let v2 = push_artifact(&registry, None, "1.2.0", app_artifact("from-v2"));
    push_artifact(&registry, None, "2.0.0-rc.1", app_artifact("from-rc"));
    push_artifact(&registry, None, "latest", app_artifact("from-latest"));
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    let flags = ["--allow-private-network"];

    for (reference, applied) in [
        ("{tag: 1.0.0}", "from-v1"),
        ("{semver: '>=1.0.0 <2.0.0'}", "from-v2"),
        ("{semver: '>=1.0.0-0'}", "from-rc"),
        (&format!("{{digest: '{v2}'}}"), "from-v2"),
        ("{}", "from-latest"),
    ] {
        fixture(root, &registry.host, reference, "");
        let (json, stderr) = rows(root, &flags);
        let (result, message) = row(&json, "OCIRepository", "apps");
        assert_eq!(result, "PASS", "{reference}: {message}\n{stderr}");
        assert!(
            message.contains(&format!("fetched oci://{}/fleet/apps at", registry.host)),
            "{reference}: {message}"
        );
        assert_eq!(row(&json, "Kustomization", "apps").0, "PASS", "{reference}");
        let built = build_all(root, &flags);
        assert!(
            built.contains(&format!("name: {applied}")),
            "{reference}: {built}"
        );
        // The symlink in the artifact is skipped, as fluxcd/pkg `tar.Untar` skips it.
        assert!(!built.contains("root:"), "{reference}: {built}");
    }
    // A digest's revision is the digest alone; a tag's is `<tag>@<digest>`.
    fixture(root, &registry.host, &format!("{{digest: '{v2}'}}"), "");
    let (json, _) = rows(root, &flags);
    assert!(row(&json, "OCIRepository", "apps")
        .1
        .ends_with(&format!("at {v2}")));
    fixture(root, &registry.host, "{tag: 1.2.0}", "");
    let (json, _) = rows(root, &flags);
    assert!(row(&json, "OCIRepository", "apps")
        .1
        .contains(&format!("at 1.2.0@{v2}")));

    // A tag or a range that is not there fails, naming what there is.
    fixture(root, &registry.host, "{tag: 9.9.9}", "");
    let (json, _) = rows(root, &flags);
    let (result, message) = row(&json, "OCIRepository", "apps");
    assert_eq!(result, "FAIL", "{message}");
    assert!(
        message.contains("not found: tag 9.9.9 in fleet/apps (tags: "),
        "{message}"
    );
    fixture(root, &registry.host, "{semver: '>=3.0.0'}", "");
    let (json, _) = rows(root, &flags);
    let (result, message) = row(&json, "OCIRepository", "apps");
    assert_eq!(result, "FAIL", "{message}");
    assert!(
        message.contains("no match found for semver: >=3.0.0 (tags: "),
        "{message}"
    );

    // With the network off the cache answers: a digest as it is, a tag as last resolved.
    drop(registry);
    let offline = ["--offline"];
    fixture(root, "127.0.0.1:9", &format!("{{digest: '{v2}'}}"), "");
    let (json, stderr) = rows(root, &offline);
    let (result, message) = row(&json, "OCIRepository", "apps");
    assert_eq!(result, "PASS", "{message}\n{stderr}");
    assert!(message.contains("from the download cache"), "{message}");
    assert!(build_all(root, &offline).contains("name: from-v2"));
    // Not in the cache: SKIPPED with the cause, the consumer not applied.
    fixture(root, "127.0.0.1:9", "{tag: never-pushed}", "");
    let (json, _) = rows(root, &offline);
    let (result, message) = row(&json, "OCIRepository", "apps");
    assert_eq!(result, "SKIPPED", "{message}");
    assert!(message.contains("not available offline"), "{message}");
    assert_ne!(row(&json, "Kustomization", "apps").0, "PASS");
}

#[test]
fn registry_credentials_come_from_the_secret_and_bad_ones_fail_the_source() {
    let Some(registry) = start_registry(Some(("flux", "s3cret"))) else {
        return;
    };
    use base64::Engine as _;
    let basic = |user: &str, password: &str| {
        base64::engine::general_purpose::STANDARD.encode(format!("{user}:{password}"))
    };
    let header = format!("Basic {}", basic("flux", "s3cret"));
    push_artifact(&registry, Some(&header), "1.0.0", app_artifact("private"));
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    let secret = |password: &str| {
        let config = format!(
            r#"{{"auths":{{"{}":{{"auth":"{}"}}}}}}"#,
            registry.host,
            basic("flux", password)
        );
        format!(
            "apiVersion: v1\nkind: Secret\nmetadata: {{name: registry, namespace: flux-system}}\ntype: kubernetes.io/dockerconfigjson\nstringData:\n  .dockerconfigjson: '{config}'\n"
        )
    };
    let flags = ["--allow-private-network"];
    fixture(
        root,
        &registry.host,
        "{tag: 1.0.0}",
        "  secretRef: {name: registry}\n",
    );
    write(root, "clusters/dev/secret.yaml", &secret("s3cret"));
    let (json, stderr) = rows(root, &flags);
    let (result, message) = row(&json, "OCIRepository", "apps");
    assert_eq!(result, "PASS", "{message}\n{stderr}");
    assert!(build_all(root, &flags).contains("name: private"));

    write(root, "clusters/dev/secret.yaml", &secret("wrong"));
    let (json, _) = rows(root, &flags);
    let (result, message) = row(&json, "OCIRepository", "apps");
    assert_eq!(result, "FAIL", "{message}");
    assert!(message.contains("401"), "{message}");
    let (result, message) = row(&json, "Kustomization", "apps");
    assert_eq!(result, "BLOCKED", "{message}");
    assert!(
        message.contains("blocked by OCIRepository/flux-system/apps"),
        "{message}"
    );

    // Without credentials at all the registry refuses too.
    fixture(root, &registry.host, "{tag: 1.0.0}", "");
    let (json, _) = rows(root, &flags);
    assert_eq!(row(&json, "OCIRepository", "apps").0, "FAIL");
    // ... unless the user names a docker configuration holding them (never read unasked).
    let config = dir.path().join("docker-config.json");
    std::fs::write(
        &config,
        format!(
            r#"{{"auths":{{"{}":{{"auth":"{}"}}}}}}"#,
            registry.host,
            basic("flux", "s3cret")
        ),
    )
    .expect("write");
    let config = config.to_str().expect("utf-8");
    let (json, stderr) = rows(
        root,
        &["--allow-private-network", "--registry-config", config],
    );
    let (result, message) = row(&json, "OCIRepository", "apps");
    assert_eq!(result, "PASS", "{message}\n{stderr}");
}

#[test]
fn a_private_address_is_refused_without_the_flag_and_cloud_auth_is_not_attempted() {
    let Some(registry) = start_registry(None) else {
        return;
    };
    push_artifact(&registry, None, "1.0.0", app_artifact("x"));
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    fixture(root, &registry.host, "{tag: 1.0.0}", "");
    let (json, _) = rows(root, &[]);
    let (result, message) = row(&json, "OCIRepository", "apps");
    assert_eq!(result, "SKIPPED", "{message}");
    assert!(message.contains("--allow-private-network"), "{message}");

    fixture(root, &registry.host, "{tag: 1.0.0}", "  provider: aws\n");
    let (json, _) = rows(root, &["--allow-private-network"]);
    let (result, message) = row(&json, "OCIRepository", "apps");
    assert_eq!(result, "SKIPPED", "{message}");
    assert!(message.contains("provider: aws"), "{message}");
}

#[test]
fn a_hostile_artifact_fails_its_source_and_writes_nothing() {
    let Some(registry) = start_registry(None) else {
        return;
    };
    let escaping = tgz(&[("../../outside.yaml", "x: 1\n")], &[]);
    push_artifact(&registry, None, "escape", escaping);
    push_artifact(&registry, None, "not-gzip", b"plain bytes".to_vec());
    // A bomb: 300 MiB of zeros in well under a megabyte.
    let zeros = "\0".repeat(300 << 20);
    push_artifact(
        &registry,
        None,
        "bomb",
        tgz(&[("deploy/zeros.yaml", &zeros)], &[]),
    );
    drop(zeros);
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().join("repo");
    for (tag, expected) in [
        ("escape", "leaves the destination"),
        ("not-gzip", "gzip"),
        ("bomb", "unpacks to more than"),
    ] {
        fixture(&root, &registry.host, &format!("{{tag: {tag}}}"), "");
        let (json, _) = rows(&root, &["--allow-private-network"]);
        let (result, message) = row(&json, "OCIRepository", "apps");
        assert_eq!(result, "FAIL", "{tag}: {message}");
        assert!(message.contains(expected), "{tag}: {message}");
        assert_eq!(row(&json, "Kustomization", "apps").0, "BLOCKED", "{tag}");
    }
    assert!(!dir.path().join("outside.yaml").exists());
}

// ---------------------------------------------------------------------------------------------
// GitRepository over smart HTTP: `git http-backend` on loopback.

use crate::common::git_server::{self, GitServer};

/// A repository whose Kustomization `apps` applies `./deploy` of GitRepository `apps` at `url`,
/// with `reference` as its `ref` and `extra` added to its spec.
fn git_fixture(root: &Path, url: &str, reference: &str, extra: &str) {
    write(
        root,
        "clusters/dev/apps.yaml",
        &format!(
            "apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata: {{name: apps, namespace: flux-system}}\nspec:\n  interval: 10m\n  url: {url}\n  ref: {reference}\n{extra}---\napiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {{name: apps, namespace: flux-system}}\nspec:\n  interval: 10m\n  path: ./deploy\n  prune: true\n  sourceRef: {{kind: GitRepository, name: apps}}\n"
        ),
    );
}

fn configmap(name: &str) -> String {
    format!("apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: {name}, namespace: default}}\ndata: {{a: '1'}}\n")
}

/// `fleet`: v1.0.0 (annotated) and v1.1.0 (lightweight) tags, a `dev` branch, `main` ahead.
fn serve_fleet(server: &GitServer) -> (String, String) {
    let kustomization = "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [cm.yaml, shared.yaml]\n";
    server.commit(
        "fleet",
        &[
            ("deploy/kustomization.yaml", kustomization),
            ("deploy/cm.yaml", &configmap("from-v1")),
            ("shared/cm.yaml", &configmap("shared-through-a-link")),
        ],
        "v1",
    );
    let work = server.work_tree("fleet");
    std::os::unix::fs::symlink("../shared/cm.yaml", work.join("deploy/shared.yaml")).expect("link");
    git_server::git(&work, &["add", "-A"]);
    git_server::git(&work, &["commit", "-q", "--amend", "-m", "v1"]);
    // The amended commit is the one the tag names.
    let first = git_server::git(&work, &["rev-parse", "HEAD"]);
    git_server::git(&work, &["tag", "-a", "v1.0.0", "-m", "v1.0.0"]);
    server.commit(
        "fleet",
        &[("deploy/cm.yaml", &configmap("from-v1-1"))],
        "v1.1",
    );
    git_server::git(&work, &["tag", "v1.1.0"]);
    git_server::git(&work, &["branch", "dev"]);
    let head = server.commit(
        "fleet",
        &[("deploy/cm.yaml", &configmap("from-main"))],
        "main",
    );
    server.publish("fleet");
    (first, head)
}

#[test]
fn a_git_repository_is_fetched_at_each_ref_form_and_applied() {
    let Some(server) = git_server::start(None) else {
        return;
    };
    let (first, head) = serve_fleet(&server);
    let url = server.url("fleet");
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    let flags = ["--allow-private-network"];
    for (reference, applied, revision) in [
        ("{branch: main}", "from-main", format!("main@sha1:{head}")),
        ("{branch: dev}", "from-v1-1", "dev@sha1:".to_owned()),
        ("{tag: v1.0.0}", "from-v1", format!("v1.0.0@sha1:{first}")),
        ("{tag: v1.1.0}", "from-v1-1", "v1.1.0@sha1:".to_owned()),
        (
            "{semver: '>=1.0.0'}",
            "from-v1-1",
            "v1.1.0@sha1:".to_owned(),
        ),
        (
            "{semver: '<1.1.0'}",
            "from-v1",
            format!("v1.0.0@sha1:{first}"),
        ),
        (
            &format!("{{commit: {first}}}"),
            "from-v1",
            format!("sha1:{first}"),
        ),
        (
            &format!("{{branch: main, commit: {first}}}"),
            "from-v1",
            format!("main@sha1:{first}"),
        ),
        (
            "{name: refs/heads/main}",
            "from-main",
            format!("refs/heads/main@sha1:{head}"),
        ),
    ] {
        git_fixture(root, &url, reference, "");
        let (json, stderr) = rows(root, &flags);
        let (result, message) = row(&json, "GitRepository", "apps");
        assert_eq!(result, "PASS", "{reference}: {message}\n{stderr}");
        assert!(
            message.contains(&format!("fetched {url} at {revision}")),
            "{reference}: {message}"
        );
        let (result, message) = row(&json, "Kustomization", "apps");
        assert_eq!(result, "PASS", "{reference}: {message}");
        let built = build_all(root, &flags);
        assert!(
            built.contains(&format!("name: {applied}\n")),
            "{reference}: {built}"
        );
        // The in-tree symlink became a copy of its target, as `resolveSymlinks` makes it.
        assert!(
            built.contains("name: shared-through-a-link"),
            "{reference}: {built}"
        );
    }

    // No `ref`: `master`, which this repository does not have.
    git_fixture(root, &url, "{}", "");
    let (json, _) = rows(root, &flags);
    let (result, message) = row(&json, "GitRepository", "apps");
    assert_eq!(result, "FAIL", "{message}");
    assert!(message.contains("refs/heads/master"), "{message}");
    assert_eq!(row(&json, "Kustomization", "apps").0, "BLOCKED");

    // A sparse checkout of a directory that is not there fails as source-controller does.
    git_fixture(
        root,
        &url,
        "{branch: main}",
        "  sparseCheckout: [./nowhere]\n",
    );
    let (json, _) = rows(root, &flags);
    let (result, message) = row(&json, "GitRepository", "apps");
    assert_eq!(result, "FAIL", "{message}");
    assert!(
        message.contains("sparse checkout dir 'nowhere'"),
        "{message}"
    );

    // What the sources hold in memory counts against the run's budget of bytes extracted.
    git_fixture(root, &url, "{branch: main}", "");
    let (json, _) = rows(
        root,
        &["--allow-private-network", "--max-extracted-bytes", "16"],
    );
    let (result, message) = row(&json, "GitRepository", "apps");
    assert_eq!(result, "FAIL", "{message}");
    assert!(message.contains("--max-extracted-bytes"), "{message}");

    // With the network off, the cache answers: a commit it holds, a branch as last resolved.
    drop(server);
    for (reference, applied) in [
        (format!("{{commit: {first}}}"), "from-v1"),
        ("{branch: main}".to_owned(), "from-main"),
    ] {
        git_fixture(root, &url, &reference, "");
        let (json, stderr) = rows(root, &["--offline"]);
        let (result, message) = row(&json, "GitRepository", "apps");
        assert_eq!(result, "PASS", "{reference}: {message}\n{stderr}");
        assert!(message.contains("from the download cache"), "{message}");
        assert!(build_all(root, &["--offline"]).contains(&format!("name: {applied}\n")));
    }
    git_fixture(root, &url, "{branch: never-fetched}", "");
    let (json, _) = rows(root, &["--offline"]);
    assert_eq!(row(&json, "GitRepository", "apps").0, "SKIPPED");
}

#[test]
fn git_credentials_come_from_the_secret_and_private_addresses_need_the_flag() {
    let Some(server) = git_server::start(Some(("flux", "s3cret"))) else {
        return;
    };
    serve_fleet(&server);
    let url = server.url("fleet");
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    let secret = |password: &str| {
        format!("apiVersion: v1\nkind: Secret\nmetadata: {{name: git-auth, namespace: flux-system}}\nstringData:\n  username: flux\n  password: {password}\n")
    };
    let flags = ["--allow-private-network"];
    git_fixture(
        root,
        &url,
        "{branch: main}",
        "  secretRef: {name: git-auth}\n",
    );
    write(root, "clusters/dev/secret.yaml", &secret("s3cret"));
    let (json, stderr) = rows(root, &flags);
    let (result, message) = row(&json, "GitRepository", "apps");
    assert_eq!(result, "PASS", "{message}\n{stderr}");

    write(root, "clusters/dev/secret.yaml", &secret("wrong"));
    let (json, _) = rows(root, &flags);
    let (result, message) = row(&json, "GitRepository", "apps");
    assert_eq!(result, "FAIL", "{message}");
    let (result, message) = row(&json, "Kustomization", "apps");
    assert_eq!(result, "BLOCKED", "{message}");

    // The same fetch without the flag is refused before any request.
    write(root, "clusters/dev/secret.yaml", &secret("s3cret"));
    let (json, _) = rows(root, &[]);
    let (result, message) = row(&json, "GitRepository", "apps");
    assert_eq!(result, "SKIPPED", "{message}");
    assert!(message.contains("--allow-private-network"), "{message}");

    // An SSH URL with no Secret fails as Flux's auth options fail it.
    git_fixture(root, "ssh://git@127.0.0.1/fleet.git", "{branch: main}", "");
    let (json, _) = rows(root, &flags);
    let (result, message) = row(&json, "GitRepository", "apps");
    assert_eq!(result, "FAIL", "{message}");
    assert!(
        message.contains("invalid 'ssh' auth option: 'identity' is required"),
        "{message}"
    );
}

// ---------------------------------------------------------------------------------------------
// GitRepository over SSH: OpenSSH's `sshd` on loopback, the repositories of a `GitServer`.

use crate::common::ssh_server;

fn indented(text: &str) -> String {
    text.lines().map(|l| format!("    {l}\n")).collect()
}

fn ssh_secret(identity: &str, known_hosts: &str, extra: &str) -> String {
    format!(
        "apiVersion: v1\nkind: Secret\nmetadata: {{name: ssh-auth, namespace: flux-system}}\nstringData:\n  identity: |\n{}  known_hosts: |\n{}{extra}",
        indented(identity),
        indented(known_hosts)
    )
}

#[test]
fn a_git_repository_is_fetched_over_ssh_with_the_secrets_identity_and_known_hosts() {
    let Some(server) = git_server::start(None) else {
        return;
    };
    let Some(sshd) = ssh_server::start() else {
        return;
    };
    let (first, head) = serve_fleet(&server);
    let url = sshd.url(&server.root, "fleet");
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    let flags = ["--allow-private-network"];
    let with_secret = "  secretRef: {name: ssh-auth}\n";
    write(
        root,
        "clusters/dev/secret.yaml",
        &ssh_secret(&sshd.identity, &sshd.known_hosts, ""),
    );
    for (reference, applied, revision) in [
        ("{branch: main}", "from-main", format!("main@sha1:{head}")),
        ("{tag: v1.0.0}", "from-v1", format!("v1.0.0@sha1:{first}")),
    ] {
        git_fixture(root, &url, reference, with_secret);
        let (json, stderr) = rows(root, &flags);
        let (result, message) = row(&json, "GitRepository", "apps");
        assert_eq!(
            result,
            "PASS",
            "{reference}: {message}\n{stderr}\n{}",
            sshd.log()
        );
        assert!(message.contains(&revision), "{reference}: {message}");
        let (result, message) = row(&json, "Kustomization", "apps");
        assert_eq!(result, "PASS", "{reference}: {message}");
        assert!(build_all(root, &flags).contains(applied), "{reference}");
    }

    // `get sources` gives the revision fetched.
    git_fixture(root, &url, "{branch: main}", with_secret);
    let listed = run(root, &["get", "sources", "--allow-private-network"]);
    let table = String::from_utf8_lossy(&listed.stdout);
    assert!(table.contains("REVISION"), "{table}");
    assert!(table.contains(&format!("main@sha1:{head}")), "{table}");
    let listed = run(
        root,
        &["get", "sources", "--allow-private-network", "-o", "json"],
    );
    let json: serde_json::Value = serde_json::from_slice(&listed.stdout).expect("json");
    let revisions: Vec<&str> = json
        .as_array()
        .expect("a list")
        .iter()
        .filter_map(|r| r["spec"]["revision"].as_str())
        .collect();
    assert_eq!(revisions, [format!("main@sha1:{head}").as_str()], "{json}");

    // A commit the server does not have, and a URL that cannot be dialled, fail as they fail
    // in Flux: the server answered, or nothing could have reached it.
    let missing = "1111111111111111111111111111111111111111";
    for (url, reference, said) in [
        (url.as_str(), format!("{{commit: {missing}}}"), missing),
        (
            "ssh://-oProxyCommand=x/repo.git",
            "{branch: main}".to_owned(),
            "host",
        ),
    ] {
        git_fixture(root, url, &reference, with_secret);
        let (json, _) = rows(root, &flags);
        let (result, message) = row(&json, "GitRepository", "apps");
        assert_eq!(result, "FAIL", "{url} {reference}: {message}");
        assert!(message.contains(said), "{message}");
    }

    // The cache answers offline, with no credentials and no connection.
    git_fixture(root, &url, "{branch: main}", with_secret);
    let (json, _) = rows(root, &["--offline"]);
    let (result, message) = row(&json, "GitRepository", "apps");
    assert_eq!(result, "PASS", "{message}");
    assert!(message.contains(&head), "{message}");

    // A server key that is not in known_hosts fails the source; its consumer is blocked.
    let other = tempfile::tempdir().expect("tempdir");
    let (stranger, stranger_public) = ssh_server::key_pair(other.path(), "other");
    let wrong_host = format!("[127.0.0.1]:{} {stranger_public}\n", sshd.port);
    write(
        root,
        "clusters/dev/secret.yaml",
        &ssh_secret(&sshd.identity, &wrong_host, ""),
    );
    let (json, _) = rows(root, &flags);
    let (result, message) = row(&json, "GitRepository", "apps");
    assert_eq!(result, "FAIL", "{message}");
    assert!(message.contains("known_hosts"), "{message}");
    let (result, message) = row(&json, "Kustomization", "apps");
    assert_eq!(result, "BLOCKED", "{message}");
    // The server's own key listed without its port is not its key for that port (Go's
    // `knownhosts` matches `[host]:port` off port 22, as OpenSSH does): the message says how to
    // write it.
    let (_, host_key) = sshd
        .known_hosts
        .trim()
        .split_once(' ')
        .expect("a known_hosts line");
    write(
        root,
        "clusters/dev/secret.yaml",
        &ssh_secret(&sshd.identity, &format!("127.0.0.1 {host_key}\n"), ""),
    );
    let (json, _) = rows(root, &flags);
    let (result, message) = row(&json, "GitRepository", "apps");
    assert_eq!(result, "FAIL", "{message}");
    let port = sshd.port;
    assert!(
        message.contains(&format!("under `[127.0.0.1]:{port}` (it lists `127.0.0.1`, which is another port: write the line for `[127.0.0.1]:{port}`)")),
        "{message}"
    );

    // An identity the server does not accept fails the source.
    write(
        root,
        "clusters/dev/secret.yaml",
        &ssh_secret(&stranger, &sshd.known_hosts, ""),
    );
    let (json, _) = rows(root, &flags);
    let (result, message) = row(&json, "GitRepository", "apps");
    assert_eq!(result, "FAIL", "{message}");
    assert!(message.contains("did not accept"), "{message}");

    // Without the flag the loopback server is refused before `ssh` runs.
    write(
        root,
        "clusters/dev/secret.yaml",
        &ssh_secret(&sshd.identity, &sshd.known_hosts, ""),
    );
    let (json, _) = rows(root, &[]);
    let (result, message) = row(&json, "GitRepository", "apps");
    assert_eq!(result, "SKIPPED", "{message}");
    assert!(message.contains("--allow-private-network"), "{message}");

    // Without known_hosts Flux refuses the auth options; a passphrase is not unlocked.
    write(
        root,
        "clusters/dev/secret.yaml",
        &format!(
            "apiVersion: v1\nkind: Secret\nmetadata: {{name: ssh-auth, namespace: flux-system}}\nstringData:\n  identity: |\n{}",
            indented(&sshd.identity)
        ),
    );
    let (json, _) = rows(root, &flags);
    let (result, message) = row(&json, "GitRepository", "apps");
    assert_eq!(result, "FAIL", "{message}");
    assert!(message.contains("'known_hosts' is required"), "{message}");
    write(
        root,
        "clusters/dev/secret.yaml",
        &ssh_secret(&sshd.identity, &sshd.known_hosts, "  password: hunter2\n"),
    );
    // A key that needs no passphrase is used as it is, `password` or not (go-git's
    // `NewPublicKeys`).
    let (json, stderr) = rows(root, &flags);
    let (result, message) = row(&json, "GitRepository", "apps");
    assert_eq!(result, "PASS", "{message}\n{stderr}");
    // A passphrase-protected key without its passphrase fails as Flux's key parsing fails it;
    // with it, offlux does not unlock it.
    let locked = other.path().join("locked");
    let status = std::process::Command::new("ssh-keygen")
        .args(["-q", "-t", "ed25519", "-N", "hunter2", "-f"])
        .arg(&locked)
        .status()
        .expect("ssh-keygen");
    assert!(status.success());
    let locked = std::fs::read_to_string(&locked).expect("key");
    write(
        root,
        "clusters/dev/secret.yaml",
        &ssh_secret(&locked, &sshd.known_hosts, ""),
    );
    let (json, _) = rows(root, &flags);
    let (result, message) = row(&json, "GitRepository", "apps");
    assert_eq!(result, "FAIL", "{message}");
    assert!(message.contains("passphrase protected"), "{message}");
    write(
        root,
        "clusters/dev/secret.yaml",
        &ssh_secret(&locked, &sshd.known_hosts, "  password: hunter2\n"),
    );
    let (json, _) = rows(root, &flags);
    let (result, message) = row(&json, "GitRepository", "apps");
    assert_eq!(result, "SKIPPED", "{message}");
    assert!(message.contains("does not unlock"), "{message}");

    // Windows line ends in the Secret, and `[host]:22`-style entries, read as Flux reads them.
    let crlf = |text: &str| text.replace('\n', "\r\n");
    write(
        root,
        "clusters/dev/secret.yaml",
        &format!(
            "apiVersion: v1\nkind: Secret\nmetadata: {{name: ssh-auth, namespace: flux-system}}\ndata:\n  identity: {}\n  known_hosts: {}\n",
            base64(&crlf(&sshd.identity)),
            base64(&crlf(&sshd.known_hosts))
        ),
    );
    let (json, stderr) = rows(root, &flags);
    let (result, message) = row(&json, "GitRepository", "apps");
    assert_eq!(result, "PASS", "{message}\n{stderr}");

    // Nothing of the keys is left behind.
    let left: Vec<_> = std::fs::read_dir(root.join(".tmp"))
        .expect("tmp")
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert!(left.is_empty(), "left in the temporary directory: {left:?}");
}

/// SIGTERM while `ssh` waits on a server that took the key and says nothing: the command ends,
/// no `ssh` of its outlives it, and the keys it wrote are gone. (Linux: the processes left are
/// looked for in `/proc`.)
#[cfg(target_os = "linux")]
#[test]
fn a_signal_during_an_ssh_fetch_leaves_no_ssh_and_no_keys() {
    let Some(server) = git_server::start(None) else {
        return;
    };
    let Some(sshd) = ssh_server::start_forcing(Some("sleep 600")) else {
        return;
    };
    serve_fleet(&server);
    let url = sshd.url(&server.root, "fleet");
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    git_fixture(
        root,
        &url,
        "{branch: main}",
        "  secretRef: {name: ssh-auth}\n",
    );
    write(
        root,
        "clusters/dev/secret.yaml",
        &ssh_secret(&sshd.identity, &sshd.known_hosts, ""),
    );
    let tmp = root.join(".tmp");
    std::fs::create_dir_all(&tmp).expect("mkdir");
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_offlux"))
        .env("XDG_CACHE_HOME", root.join(".cache"))
        .env("TMPDIR", &tmp)
        .args(["test", "--allow-private-network", "--path"])
        .arg(root.join("clusters/dev"))
        .arg("--root")
        .arg(root)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("runs");
    // `ssh` is running once its keys are written.
    let started = std::time::Instant::now();
    let keys = loop {
        let found = std::fs::read_dir(&tmp)
            .expect("tmp")
            .flatten()
            .find(|e| e.file_name().to_string_lossy().starts_with("offlux-ssh-"));
        if let Some(found) = found {
            break found.path();
        }
        assert!(
            started.elapsed() < std::time::Duration::from_secs(20),
            "ssh never started"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    std::thread::sleep(std::time::Duration::from_millis(300));
    // SAFETY: a signal to our own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let status = child.wait().expect("waits");
    assert!(!status.success(), "{status:?}");
    assert!(!keys.exists(), "the keys are still on disk");
    // No process is left that was given these keys.
    let key_dir = keys.display().to_string();
    let mut left = Vec::new();
    for entry in std::fs::read_dir("/proc").expect("proc").flatten() {
        if let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) {
            if String::from_utf8_lossy(&cmdline).contains(&key_dir) {
                left.push(entry.file_name());
            }
        }
    }
    assert!(left.is_empty(), "processes left with the keys: {left:?}");
}

fn base64(text: &str) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(text)
}

// ---------------------------------------------------------------------------------------------
// The done-when of issue 37: a fleet whose tenants come from two Git repositories (made by a
// ResourceSet) and whose platform comes from an OCI artifact.

#[test]
fn a_fleet_of_git_and_oci_sources_reconciles_online_and_is_skipped_offline() {
    let (Some(server), Some(registry)) = (git_server::start(None), start_registry(None)) else {
        return;
    };
    let kustomization =
        "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [cm.yaml]\n";
    for team in ["team-a", "team-b"] {
        server.commit(
            team,
            &[
                ("deploy/kustomization.yaml", kustomization),
                ("deploy/cm.yaml", &configmap(&format!("{team}-app"))),
            ],
            "first",
        );
    }
    push_artifact(&registry, None, "1.0.0", app_artifact("platform-app"));
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    write(
        root,
        "clusters/dev/platform.yaml",
        &format!(
            "apiVersion: source.toolkit.fluxcd.io/v1\nkind: OCIRepository\nmetadata: {{name: platform, namespace: flux-system}}\nspec:\n  interval: 10m\n  url: oci://{}/fleet/apps\n  insecure: true\n  ref: {{semver: '1.x'}}\n---\napiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {{name: platform, namespace: flux-system}}\nspec:\n  interval: 10m\n  path: ./deploy\n  prune: true\n  sourceRef: {{kind: OCIRepository, name: platform}}\n",
            registry.host
        ),
    );
    write(
        root,
        "clusters/dev/tenants.yaml",
        &format!(
            "apiVersion: fluxcd.controlplane.io/v1\nkind: ResourceSet\nmetadata: {{name: tenants, namespace: flux-system}}\nspec:\n  inputs:\n    - tenant: team-a\n      url: {}\n    - tenant: team-b\n      url: {}\n  resources:\n    - apiVersion: source.toolkit.fluxcd.io/v1\n      kind: GitRepository\n      metadata: {{name: << inputs.tenant >>, namespace: flux-system}}\n      spec:\n        interval: 10m\n        url: << inputs.url >>\n        ref: {{branch: main}}\n    - apiVersion: kustomize.toolkit.fluxcd.io/v1\n      kind: Kustomization\n      metadata: {{name: << inputs.tenant >>, namespace: flux-system}}\n      spec:\n        interval: 10m\n        path: ./deploy\n        prune: true\n        sourceRef: {{kind: GitRepository, name: << inputs.tenant >>}}\n",
            server.url("team-a"),
            server.url("team-b")
        ),
    );
    let (json, stderr) = rows(root, &["--allow-private-network"]);
    let all = json.as_array().expect("rows");
    for r in all {
        assert_eq!(r["result"], "PASS", "{r}\n{stderr}");
    }
    for (kind, name) in [
        ("OCIRepository", "platform"),
        ("GitRepository", "team-a"),
        ("GitRepository", "team-b"),
        ("Kustomization", "team-a"),
        ("Kustomization", "team-b"),
        ("Kustomization", "platform"),
        ("ResourceSet", "tenants"),
    ] {
        row(&json, kind, name);
    }
    assert!(row(&json, "GitRepository", "team-b")
        .1
        .contains(&format!("fetched {} at main@sha1:", server.url("team-b"))));
    let built = build_all(root, &["--allow-private-network"]);
    for name in ["team-a-app", "team-b-app", "platform-app"] {
        assert!(
            built.contains(&format!("name: {name}\n")),
            "{name}: {built}"
        );
    }

    // Offline with an empty cache: every remote source SKIPPED with its cause, nothing guessed.
    let (json, _) = rows(root, &["--offline"]);
    // `offlux cache` knows the Git repositories and remembered refs, and clears them.
    let cache = |args: &[&str]| {
        offlux()
            .env("XDG_CACHE_HOME", root.join(".cache"))
            .args(args)
            .output()
            .expect("runs")
    };
    let listed = cache(&["cache", "list", "-o", "json"]);
    let listed: serde_json::Value = serde_json::from_slice(&listed.stdout).expect("json");
    assert_eq!(
        listed["gitRepositories"].as_array().map(Vec::len),
        Some(2),
        "{listed}"
    );
    let urls: Vec<&str> = listed["gitRepositories"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|r| r["url"].as_str())
        .collect();
    assert!(urls.contains(&server.url("team-a").as_str()), "{listed}");
    assert!(
        listed["archives"].as_array().is_some_and(|a| a.len() >= 2),
        "{listed}"
    );
    let cleared = cache(&["cache", "clear"]);
    assert_eq!(cleared.status.code(), Some(0), "{cleared:?}");
    let listed = cache(&["cache", "list", "-o", "json"]);
    let listed: serde_json::Value = serde_json::from_slice(&listed.stdout).expect("json");
    assert_eq!(
        listed["gitRepositories"].as_array().map(Vec::len),
        Some(0),
        "{listed}"
    );
    let charts = root.join(".cache/offlux/charts");
    for dir in ["sha256", "git", "refs", "tags"] {
        let left = std::fs::read_dir(charts.join(dir)).map_or(0, |d| d.count());
        assert_eq!(left, 0, "{dir} is left with {left} entries");
    }
    let (json_empty, _) = rows(root, &["--offline"]);
    for (kind, name) in [
        ("OCIRepository", "platform"),
        ("GitRepository", "team-a"),
        ("GitRepository", "team-b"),
    ] {
        // With the cache of the online run, the offline run reads what was fetched.
        assert_eq!(row(&json, kind, name).0, "PASS", "{kind}/{name}");
        let (result, message) = row(&json_empty, kind, name);
        assert_eq!(result, "SKIPPED", "{kind}/{name}: {message}");
        assert!(message.contains("not available offline"), "{message}");
    }
    for name in ["team-a", "team-b", "platform"] {
        assert_ne!(row(&json_empty, "Kustomization", name).0, "PASS", "{name}");
    }
}

// ---------------------------------------------------------------------------------------------
// `--proxy`: a forward proxy on loopback (CONNECT tunnels and plain-HTTP requests) that counts
// what it relayed.

/// A proxy at `127.0.0.1:PORT` and how many requests it relayed.
fn start_proxy() -> (String, std::sync::Arc<std::sync::atomic::AtomicUsize>) {
    use std::io::{BufRead, BufReader, Write};
    use std::sync::atomic::{AtomicUsize, Ordering};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let address = listener.local_addr().expect("addr").to_string();
    let relayed = std::sync::Arc::new(AtomicUsize::new(0));
    let counter = relayed.clone();
    std::thread::spawn(move || {
        for client in listener.incoming().flatten() {
            let counter = counter.clone();
            std::thread::spawn(move || {
                let mut reader = BufReader::new(client.try_clone().expect("clone"));
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 {
                    return;
                }
                let mut parts = line.split_whitespace();
                let (method, target) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
                if method == "CONNECT" {
                    // A tunnel: the rest of the exchange is relayed as it is.
                    loop {
                        let mut header = String::new();
                        if reader.read_line(&mut header).unwrap_or(0) == 0
                            || header.trim().is_empty()
                        {
                            break;
                        }
                    }
                    let Ok(server) = std::net::TcpStream::connect(target) else {
                        return;
                    };
                    counter.fetch_add(1, Ordering::SeqCst);
                    let mut client = client;
                    client
                        .write_all(b"HTTP/1.1 200 Connection established\r\n\r\n")
                        .expect("answer");
                    let mut upstream = server.try_clone().expect("clone");
                    std::thread::spawn(move || {
                        let _ = std::io::copy(&mut reader, &mut upstream);
                    });
                    let mut server = server;
                    let _ = std::io::copy(&mut server, &mut client);
                    return;
                }
                let Some(rest) = target.strip_prefix("http://") else {
                    return;
                };
                let (host, path) = rest.split_once('/').unwrap_or((rest, ""));
                let mut head = format!("{method} /{path} HTTP/1.1\r\n");
                loop {
                    let mut header = String::new();
                    if reader.read_line(&mut header).unwrap_or(0) == 0 || header.trim().is_empty() {
                        break;
                    }
                    let name = header.split(':').next().unwrap_or("").to_ascii_lowercase();
                    if name != "connection" && name != "proxy-connection" {
                        head.push_str(&header);
                    }
                }
                head.push_str("Connection: close\r\n\r\n");
                let Ok(mut server) = std::net::TcpStream::connect(host) else {
                    return;
                };
                counter.fetch_add(1, Ordering::SeqCst);
                server.write_all(head.as_bytes()).expect("forward");
                let mut upstream = server.try_clone().expect("clone");
                std::thread::spawn(move || {
                    let _ = std::io::copy(&mut reader, &mut upstream);
                });
                let mut client = client;
                let _ = std::io::copy(&mut server, &mut client);
            });
        }
    });
    (address, relayed)
}

#[test]
fn fetches_go_through_the_proxy_given_and_its_address_is_checked() {
    use std::sync::atomic::Ordering;
    let Some(registry) = start_registry(None) else {
        return;
    };
    push_artifact(&registry, None, "1.0.0", app_artifact("through-the-proxy"));
    let (proxy, relayed) = start_proxy();
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    fixture(root, &registry.host, "{tag: 1.0.0}", "");
    let proxy_url = format!("http://{proxy}");
    let (json, stderr) = rows(root, &["--allow-private-network", "--proxy", &proxy_url]);
    let (result, message) = row(&json, "OCIRepository", "apps");
    assert_eq!(result, "PASS", "{message}\n{stderr}");
    assert!(
        relayed.load(Ordering::SeqCst) >= 1,
        "the proxy relayed the fetch"
    );
    assert!(
        build_all(root, &["--allow-private-network", "--proxy", &proxy_url])
            .contains("name: through-the-proxy")
    );

    // Without the flag, the proxy on loopback is refused like any internal address.
    let before = relayed.load(Ordering::SeqCst);
    let (json, _) = rows(root, &["--proxy", &proxy_url]);
    let (result, message) = row(&json, "OCIRepository", "apps");
    assert_eq!(result, "SKIPPED", "{message}");
    assert!(message.contains("--allow-private-network"), "{message}");
    assert_eq!(relayed.load(Ordering::SeqCst), before);
}

#[test]
fn a_git_repository_includes_another_as_source_controller_does() {
    let Some(server) = git_server::start(None) else {
        return;
    };
    server.commit(
        "app",
        &[
            (
                "deploy/kustomization.yaml",
                "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [cm.yaml, ../shared/common/cm.yaml]\n",
            ),
            ("deploy/cm.yaml", &configmap("app-own")),
        ],
        "app",
    );
    server.commit(
        "common",
        &[
            ("manifests/cm.yaml", &configmap("included-common")),
            ("other/ignored.yaml", &configmap("not-included")),
        ],
        "common",
    );
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    let common = format!(
        "---\napiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata: {{name: common, namespace: flux-system}}\nspec:\n  interval: 10m\n  url: {}\n  ref: {{branch: main}}\n",
        server.url("common")
    );
    git_fixture(
        root,
        &server.url("app"),
        "{branch: main}",
        "  include:\n    - repository: {name: common}\n      fromPath: manifests\n      toPath: shared/common\n",
    );
    let apps = std::fs::read_to_string(root.join("clusters/dev/apps.yaml")).expect("read");
    write(root, "clusters/dev/apps.yaml", &format!("{apps}{common}"));
    let flags = ["--allow-private-network"];
    let (json, stderr) = rows(root, &flags);
    let (result, message) = row(&json, "GitRepository", "apps");
    assert_eq!(result, "PASS", "{message}\n{stderr}");
    assert!(message.contains("including common"), "{message}");
    assert_eq!(row(&json, "Kustomization", "apps").0, "PASS", "{stderr}");
    let built = build_all(root, &flags);
    assert!(built.contains("name: included-common\n"), "{built}");
    assert!(built.contains("name: app-own\n"), "{built}");
    assert!(!built.contains("not-included"), "{built}");

    // An include of a repository that is defined nowhere leaves the includer waiting.
    git_fixture(
        root,
        &server.url("app"),
        "{branch: main}",
        "  include:\n    - repository: {name: nowhere}\n",
    );
    let (json, _) = rows(root, &flags);
    let (result, message) = row(&json, "GitRepository", "apps");
    assert_eq!(result, "SKIPPED", "{message}");
    assert!(
        message.contains("GitRepository/flux-system/nowhere"),
        "{message}"
    );
}

// ---------------------------------------------------------------------------------------------
// Bucket: `moto` in server mode on loopback.

/// A Bucket `apps` (credentials from Secret `s3`) and a Kustomization applying its `./deploy`.
fn bucket_fixture(root: &Path, endpoint: &str, extra: &str) {
    write(
        root,
        "clusters/dev/secret.yaml",
        "apiVersion: v1\nkind: Secret\nmetadata: {name: s3, namespace: flux-system}\nstringData: {accesskey: test, secretkey: test}\n",
    );
    write(
        root,
        "clusters/dev/apps.yaml",
        &format!(
            "apiVersion: source.toolkit.fluxcd.io/v1\nkind: Bucket\nmetadata: {{name: apps, namespace: flux-system}}\nspec:\n  interval: 10m\n  provider: generic\n  endpoint: {endpoint}\n  insecure: true\n  bucketName: fleet\n  secretRef: {{name: s3}}\n{extra}---\napiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {{name: apps, namespace: flux-system}}\nspec:\n  interval: 10m\n  path: ./deploy\n  prune: true\n  sourceRef: {{kind: Bucket, name: apps}}\n"
        ),
    );
}

#[test]
fn a_bucket_is_read_as_source_controller_reads_it() {
    let Some(moto) = crate::common::moto::start() else {
        return;
    };
    moto.bucket(
        "fleet",
        &[
            (
                "deploy/kustomization.yaml",
                "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [cm.yaml]\n",
            ),
            ("deploy/cm.yaml", &configmap("from-the-bucket")),
            ("deploy/ignored.yaml", &configmap("ignored")),
            (".sourceignore", "deploy/ignored.yaml\n"),
            ("other/x.yaml", &configmap("other")),
        ],
    );
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    let flags = ["--allow-private-network"];
    bucket_fixture(root, &moto.endpoint, "");
    let (json, stderr) = rows(root, &flags);
    let (result, message) = row(&json, "Bucket", "apps");
    assert_eq!(result, "PASS", "{message}\n{stderr}");
    // Five objects less the `.sourceignore` key and the key it ignores.
    assert!(message.contains("(3 objects)"), "{message}");
    assert!(message.contains("at sha256:"), "{message}");
    assert_eq!(row(&json, "Kustomization", "apps").0, "PASS", "{stderr}");
    assert!(build_all(root, &flags).contains("name: from-the-bucket\n"));

    // `prefix` narrows the listing; keys keep it.
    bucket_fixture(root, &moto.endpoint, "  prefix: other/\n");
    let (json, _) = rows(root, &flags);
    let (result, message) = row(&json, "Bucket", "apps");
    assert_eq!(result, "PASS", "{message}");
    assert!(message.contains("(1 objects)"), "{message}");
    // ... and the Kustomization's path is not in what it kept.
    assert_eq!(row(&json, "Kustomization", "apps").0, "FAIL");

    // A bucket that does not exist fails the source; a Secret without both keys too.
    write(
        root,
        "clusters/dev/apps.yaml",
        &std::fs::read_to_string(root.join("clusters/dev/apps.yaml"))
            .expect("read")
            .replace("bucketName: fleet", "bucketName: nowhere"),
    );
    let (json, _) = rows(root, &flags);
    let (result, message) = row(&json, "Bucket", "apps");
    assert_eq!(result, "FAIL", "{message}");
    assert!(message.contains("bucket 'nowhere' not found"), "{message}");
    bucket_fixture(root, &moto.endpoint, "");
    write(
        root,
        "clusters/dev/secret.yaml",
        "apiVersion: v1\nkind: Secret\nmetadata: {name: s3, namespace: flux-system}\nstringData: {accesskey: a}\n",
    );
    let (json, _) = rows(root, &flags);
    let (result, message) = row(&json, "Bucket", "apps");
    assert_eq!(result, "FAIL", "{message}");
    assert!(message.contains("'accesskey' and 'secretkey'"), "{message}");

    // Offline, the objects of the last fetch are read back from the cache, with a caveat; a
    // bucket never fetched is not at hand.
    bucket_fixture(root, &moto.endpoint, "");
    let (json, _) = rows(root, &flags);
    assert_eq!(row(&json, "Bucket", "apps").0, "PASS");
    drop(moto);
    let (json, stderr) = rows(root, &["--offline"]);
    let (result, message) = row(&json, "Bucket", "apps");
    assert_eq!(result, "PASS", "{message}\n{stderr}");
    assert!(
        message.contains("the bucket may have changed since"),
        "{message}"
    );
    assert!(build_all(root, &["--offline"]).contains("name: from-the-bucket\n"));
    bucket_fixture(root, "127.0.0.1:9", "");
    let (json, _) = rows(root, &["--offline"]);
    let (result, message) = row(&json, "Bucket", "apps");
    assert_eq!(result, "SKIPPED", "{message}");
}

/// A FluxInstance syncing this repository (its `path` is here) from a URL offlux cannot reach:
/// the sync source is the working tree, online as offline; nothing fetched replaces it.
#[test]
fn a_flux_instance_sync_of_this_repository_is_the_working_tree_online_too() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    write(
        root,
        "clusters/dev/flux-instance.yaml",
        "apiVersion: fluxcd.controlplane.io/v1\nkind: FluxInstance\nmetadata: {name: flux, namespace: flux-system}\nspec:\n  distribution: {version: 2.6.x, registry: ghcr.io/fluxcd}\n  sync:\n    kind: GitRepository\n    name: home\n    url: http://127.0.0.1:9/home.git\n    ref: refs/heads/main\n    path: clusters/dev/apps\n",
    );
    write(
        root,
        "clusters/dev/apps/cm.yaml",
        &configmap("from-the-working-tree"),
    );
    for flags in [
        &[][..],
        &["--allow-private-network"][..],
        &["--offline"][..],
    ] {
        let (json, stderr) = rows(root, flags);
        let (result, message) = row(&json, "GitRepository", "home");
        assert_eq!(result, "PASS", "{flags:?}: {message}\n{stderr}");
        assert!(!message.contains("fetched"), "{flags:?}: {message}");
        assert_eq!(row(&json, "Kustomization", "home").0, "PASS", "{flags:?}");
    }
}

/// A HelmRelease's `chartRef` to an OCIRepository on a plain-HTTP registry (`insecure: true`)
/// fetches the chart over HTTP, as Flux does; without `insecure` the TLS failure is a failure
/// Flux would meet too, said plainly.
#[test]
fn a_chart_ref_to_an_insecure_oci_repository_is_fetched_over_http() {
    let Some(registry) = start_registry(None) else {
        return;
    };
    let chart = tgz(
        &[
            (
                "app/Chart.yaml",
                "apiVersion: v2\nname: app\nversion: 1.0.0\n",
            ),
            (
                "app/templates/cm.yaml",
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: from-the-chart\n",
            ),
        ],
        &[],
    );
    registry.push(
        None,
        "charts/app",
        "1.0.0",
        (
            "application/vnd.cncf.helm.config.v1+json",
            br#"{"apiVersion":"v2","name":"app","version":"1.0.0"}"#,
        ),
        &[("application/vnd.cncf.helm.chart.content.v1.tar+gzip", chart)],
    );
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    let release = |insecure: &str| {
        format!(
            "apiVersion: source.toolkit.fluxcd.io/v1\nkind: OCIRepository\nmetadata: {{name: app, namespace: flux-system}}\nspec:\n  interval: 10m\n  url: oci://{}/charts/app\n{insecure}  ref: {{tag: 1.0.0}}\n  layerSelector:\n    mediaType: application/vnd.cncf.helm.chart.content.v1.tar+gzip\n    operation: copy\n---\napiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {{name: app, namespace: flux-system}}\nspec:\n  interval: 10m\n  chartRef: {{kind: OCIRepository, name: app}}\n",
            registry.host
        )
    };
    write(
        root,
        "clusters/dev/app.yaml",
        &release("  insecure: true\n"),
    );
    let flags = ["--allow-private-network"];
    let (json, stderr) = rows(root, &flags);
    let (result, message) = row(&json, "HelmRelease", "app");
    assert_eq!(result, "PASS", "{message}\n{stderr}");
    let built = run(root, &["build", "hr", "app", "--allow-private-network"]);
    let built = String::from_utf8_lossy(&built.stdout);
    assert!(built.contains("name: from-the-chart"), "{built}");

    write(root, "clusters/dev/app.yaml", &release(""));
    let (json, _) = rows(root, &flags);
    let (result, message) = row(&json, "HelmRelease", "app");
    assert_ne!(result, "PASS", "{message}");
    assert!(message.contains("insecure"), "{message}");
}
