//! Hostile archives, git object stores and servers (issue 35, "Archives" and "Network"): inputs
//! that used to cost minutes, gigabytes or a held connection. Each case must end by itself within
//! 10 s of CPU time and 1 GB (measured on the child process with `wait4`: `tests/it/common/measured.rs`,
//! shared with `tests/it/hostile_budget.rs`) with an error naming the limit. Every fixture is built at run time
//! in a temporary directory.

use std::path::Path;
use std::time::Instant;

use crate::common::measured;
use measured::{offlux_in_tmp as offlux, Measured, TEN_SECONDS};

fn write(root: &Path, files: &[(&str, &[u8])]) {
    for (path, bytes) in files {
        let path = root.join(path);
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
        std::fs::write(path, bytes).expect("write");
    }
}

/// A repository (with its own temporary directory for the run) whose bootstrap Kustomization
/// applies `apps/`.
fn repository() -> (tempfile::TempDir, tempfile::TempDir) {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir_all(dir.path().join(".git")).expect("mkdir");
    write(
        dir.path(),
        &[(
            "clusters/dev/apps.yaml",
            b"apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: apps\n  namespace: flux-system\nspec:\n  interval: 10m\n  path: ./apps\n  prune: true\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n",
        )],
    );
    (dir, tempfile::tempdir().expect("tempdir"))
}

fn test_run(root: &Path, tmp: &Path) -> Measured {
    offlux(&["test".as_ref(), "--path".as_ref(), root.as_os_str()], tmp)
}

/// A `.tar.gz` of `count` empty files `f0`, `f1`, ... and then the files in `extra`.
fn tarball(count: usize, extra: &[(&str, &str)]) -> Vec<u8> {
    let encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    let mut tar = tar::Builder::new(encoder);
    for i in 0..count {
        let mut header = tar::Header::new_ustar();
        header.set_size(0);
        header.set_mode(0o644);
        tar.append_data(&mut header, format!("f{i}"), std::io::empty())
            .expect("tar");
    }
    for (name, text) in extra {
        let mut header = tar::Header::new_ustar();
        header.set_size(text.len() as u64);
        header.set_mode(0o644);
        tar.append_data(&mut header, name, text.as_bytes())
            .expect("tar");
    }
    tar.into_inner().and_then(|e| e.finish()).expect("tgz")
}

/// `apps/` holds an ArtifactGenerator extracting `bundles/b.tgz` into its artifact, and a
/// Kustomization that builds the artifact's `unpacked/`.
fn extracting_generator(repo: &Path, tgz: &[u8]) {
    write(
        repo,
        &[
            ("apps/kustomization.yaml", b"resources: [gen.yaml]\n"),
            ("apps/gen.yaml", b"apiVersion: source.extensions.fluxcd.io/v1beta1\nkind: ArtifactGenerator\nmetadata: {name: gen, namespace: flux-system}\nspec:\n  sources:\n    - {alias: repo, kind: GitRepository, name: flux-system}\n  artifacts:\n    - name: bundle\n      copy:\n        - {from: \"@repo/bundles/b.tgz\", to: \"@artifact/unpacked/\", strategy: Extract}\n---\napiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: bundle, namespace: flux-system}\nspec:\n  interval: 10m\n  path: unpacked\n  prune: true\n  sourceRef: {kind: ExternalArtifact, name: bundle}\n"),
            ("bundles/b.tgz", tgz),
        ],
    );
}

// Archives.

#[test]
fn millions_of_empty_gzip_members_stop_at_the_member_limit() {
    let (repo, tmp) = repository();
    // An empty gzip member: header, an empty final deflate block, CRC-32 and size 0.
    const EMPTY_MEMBER: [u8; 20] = [
        0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    ];
    let bomb: Vec<u8> = EMPTY_MEMBER.repeat(3_000_000);
    write(
        repo.path(),
        &[
            ("apps/kustomization.yaml", b"resources: [release.yaml]\n"),
            ("apps/release.yaml", b"apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: bomb\n  namespace: flux-system\nspec:\n  interval: 1h\n  chart:\n    spec:\n      chart: ./charts/bomb-1.0.0.tgz\n      sourceRef:\n        kind: GitRepository\n        name: flux-system\n"),
            ("charts/bomb-1.0.0.tgz", &bomb),
        ],
    );
    test_run(repo.path(), tmp.path())
        .assert_bounded_failure("the gzip stream has more than 16384 members (the member limit)");
}

#[test]
fn an_extracted_tarball_of_many_empty_files_stops_at_the_entry_limit() {
    let (repo, tmp) = repository();
    extracting_generator(repo.path(), &tarball(150_000, &[]));
    let run = test_run(repo.path(), tmp.path());
    run.assert_bounded_failure("the archive holds more than 100000 entries (the entry limit)");
    assert!(
        run.all()
            .contains("ArtifactGenerator/flux-system/gen artifact `bundle`"),
        "the artifact is named: {}",
        run.all()
    );
}

#[test]
fn an_extracted_artifact_is_read_in_memory_and_nothing_is_written() {
    let (repo, tmp) = repository();
    let cm = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: packed\n  namespace: default\ndata:\n  z: '9'\n";
    extracting_generator(
        repo.path(),
        &tarball(
            90_000,
            &[
                ("kustomization.yaml", "resources: [cm.yaml]\n"),
                ("cm.yaml", cm),
            ],
        ),
    );
    let run = offlux(
        &[
            "build".as_ref(),
            "ks".as_ref(),
            "bundle".as_ref(),
            "--path".as_ref(),
            repo.path().as_os_str(),
        ],
        tmp.path(),
    );
    assert_eq!(run.code, Some(0), "{}", run.all());
    assert!(run.stdout.contains("name: packed"), "{}", run.all());
    run.assert_bounded();
    let left: Vec<_> = std::fs::read_dir(tmp.path())
        .expect("list TMPDIR")
        .flatten()
        .map(|e| e.path())
        .collect();
    assert!(left.is_empty(), "the run wrote {left:?}");
}

/// The files an `Extract` copy inflates are charged to the run's budget of bytes extracted (the
/// same budget as charts' and git objects'), before each is inflated: a 4 MiB member stops a
/// budget of 1 MB, naming the artifact, the tarball, the member and the flag; raised, it builds.
#[test]
fn an_extracted_tarball_is_charged_to_the_extracted_bytes_budget() {
    let (repo, tmp) = repository();
    let cm = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: packed\n  namespace: default\n";
    let filler = "x".repeat(4 << 20);
    extracting_generator(
        repo.path(),
        &tarball(
            0,
            &[
                ("kustomization.yaml", "resources: [cm.yaml]\n"),
                ("cm.yaml", cm),
                ("filler.txt", &filler),
            ],
        ),
    );
    let run = |limit: &str| {
        offlux(
            &[
                "test".as_ref(),
                "--max-extracted-bytes".as_ref(),
                limit.as_ref(),
                "--path".as_ref(),
                repo.path().as_os_str(),
            ],
            tmp.path(),
        )
    };
    let stopped = run("1000000");
    eprintln!("an extracted tarball over the budget: {}", stopped.cost());
    stopped.assert_bounded_failure(
        "failed to extract tarball 'bundles/b.tgz': member `filler.txt`: bytes extracted from archives and git objects over the run exceed the limit of 1000000 (raise it with `--max-extracted-bytes`)",
    );
    assert!(
        stopped
            .all()
            .contains("ArtifactGenerator/flux-system/gen artifact `bundle`"),
        "the artifact is named: {}",
        stopped.all()
    );
    let raised = run("10000000");
    assert_eq!(raised.code, Some(0), "{}", raised.all());
    raised.assert_bounded();
}

// Git object stores.

fn zlib(bytes: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut encoder = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::fast());
    encoder.write_all(bytes).expect("compress");
    encoder.finish().expect("compress")
}

/// A pack entry's header: its type and size, in git's variable-length form.
fn entry_header(kind: u8, mut size: u64) -> Vec<u8> {
    let mut out = vec![(kind << 4) | (size & 0x0f) as u8];
    size >>= 4;
    while size > 0 {
        if let Some(last) = out.last_mut() {
            *last |= 0x80;
        }
        out.push((size & 0x7f) as u8);
        size >>= 7;
    }
    out
}

/// An offset delta's distance back to its base, in git's encoding.
fn base_distance(mut n: u64) -> Vec<u8> {
    let mut out = vec![(n & 0x7f) as u8];
    n >>= 7;
    while n > 0 {
        n -= 1;
        out.insert(0, 0x80 | (n & 0x7f) as u8);
        n >>= 7;
    }
    out
}

fn varint(mut n: u64) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let byte = (n & 0x7f) as u8;
        n >>= 7;
        if n == 0 {
            out.push(byte);
            return out;
        }
        out.push(byte | 0x80);
    }
}

/// A version-2 pack index of one object, `id` at `offset`.
fn one_object_index(id: [u8; 20], offset: u32) -> Vec<u8> {
    let mut index = vec![0xff, b't', b'O', b'c', 0, 0, 0, 2];
    for bucket in 0..256u32 {
        let count = u32::from(bucket >= u32::from(id[0]));
        index.extend(count.to_be_bytes());
    }
    index.extend(id);
    index.extend([0; 4]); // CRC-32, not checked
    index.extend(offset.to_be_bytes());
    index.extend([0; 40]); // the pack's and the index's checksums
    index
}

/// A git directory whose `main` is a commit of one file, `big.yaml`, with blob `blob`; the
/// commit and its tree are loose objects (git checks no hash offlux relies on here).
fn git_with_one_file(repo: &Path, blob: [u8; 20]) {
    let loose = |id: &str, kind: &str, body: &[u8]| {
        let mut object = format!("{kind} {}\0", body.len()).into_bytes();
        object.extend(body);
        let path = format!(".git/objects/{}/{}", &id[..2], &id[2..]);
        write(repo, &[(path.as_str(), &zlib(&object))]);
    };
    let tree_id = "11".repeat(20);
    let commit_id = "22".repeat(20);
    let mut tree = b"100644 big.yaml\0".to_vec();
    tree.extend(blob);
    loose(&tree_id, "tree", &tree);
    let commit = format!(
        "tree {tree_id}\nauthor A <a@b> 1700000000 +0000\ncommitter A <a@b> 1700000000 +0000\n\nbase\n"
    );
    loose(&commit_id, "commit", commit.as_bytes());
    write(
        repo,
        &[
            (".git/HEAD", b"ref: refs/heads/main\n"),
            (".git/refs/heads/main", format!("{commit_id}\n").as_bytes()),
            (".git/config", b"[core]\n\trepositoryformatversion = 0\n"),
        ],
    );
}

fn diff_against_main(repo: &Path, tmp: &Path) -> Measured {
    offlux(
        &[
            "diff".as_ref(),
            "--base".as_ref(),
            "main".as_ref(),
            "--path".as_ref(),
            repo.as_os_str(),
        ],
        tmp,
    )
}

#[test]
fn a_delta_chain_is_bounded_by_the_bytes_it_builds() {
    let (repo, tmp) = repository();
    const SIZE: u64 = 64 << 20;
    const CHAIN: usize = 5_000;
    // A 64 MiB blob, then deltas that each rebuild all of it from the one before (1 024 copies
    // of 64 KiB: a few kilobytes of delta for 64 MiB of work).
    let mut pack = b"PACK\0\0\0\x02".to_vec();
    pack.extend(((CHAIN + 1) as u32).to_be_bytes());
    let mut offsets = vec![pack.len() as u64];
    pack.extend(entry_header(3, SIZE));
    pack.extend(zlib(&vec![b'#'; SIZE as usize]));
    let mut delta = varint(SIZE);
    delta.extend(varint(SIZE));
    for chunk in 0..(SIZE >> 16) {
        // Copy 64 KiB (size bits clear) from offset chunk << 16 (offset bytes 2 and 3).
        delta.extend([0x80 | 0x04 | 0x08, (chunk & 0xff) as u8, (chunk >> 8) as u8]);
    }
    let delta = zlib(&delta);
    let raw_len = {
        let mut d = varint(SIZE);
        d.extend(varint(SIZE));
        d.len() as u64 + (SIZE >> 16) * 3
    };
    for _ in 0..CHAIN {
        let at = pack.len() as u64;
        let previous = *offsets.last().expect("an entry");
        pack.extend(entry_header(6, raw_len));
        pack.extend(base_distance(at - previous));
        pack.extend(&delta);
        offsets.push(at);
    }
    pack.extend([0; 20]);
    let tip = [0x33; 20];
    let tip_at = *offsets.last().expect("an entry") as u32;
    write(
        repo.path(),
        &[
            (".git/objects/pack/pack-1.pack", &pack),
            (
                ".git/objects/pack/pack-1.idx",
                &one_object_index(tip, tip_at),
            ),
        ],
    );
    git_with_one_file(repo.path(), tip);
    // The revision is read as `diff` reads its base: mounted in memory, the file read through
    // `fsio` (a `diff` reports nothing of the base's unreadable files, so this reads directly).
    let started = Instant::now();
    let repository = offlux::gitrev::Repository::discover(repo.path()).expect("a repository");
    let commit = repository.resolve("main").expect("main");
    let (mount, _) = offlux::gitrev::mount(
        std::sync::Arc::new(repository),
        commit,
        &offlux::fsio::absolute(tmp.path()),
        "base",
    )
    .expect("mounted");
    let read = offlux::fsio::read(
        &offlux::fsio::FsFacts::default(),
        &mount.path().join("big.yaml"),
        offlux::fsio::Confine::anywhere(),
    );
    let elapsed = started.elapsed();
    let message = format!("{read:?}");
    assert!(
        message.contains("delta chain builds more than 1073741824 bytes (the chain limit)"),
        "{message}"
    );
    assert!(elapsed < TEN_SECONDS, "took {elapsed:?}");
}

#[test]
#[cfg(unix)]
fn a_pack_index_linked_to_a_device_is_refused_not_read() {
    let (repo, tmp) = repository();
    git_with_one_file(repo.path(), [0x33; 20]);
    write(repo.path(), &[(".git/objects/pack/pack-1.pack", b"PACK")]);
    std::os::unix::fs::symlink(
        "/dev/zero",
        repo.path().join(".git/objects/pack/pack-1.idx"),
    )
    .expect("symlink");
    let run = diff_against_main(repo.path(), tmp.path());
    assert_ne!(run.code, Some(0), "{}", run.all());
    assert!(
        run.all().contains("pack-1.idx") && run.all().contains("leads outside"),
        "{}",
        run.all()
    );
    run.assert_bounded();
}
