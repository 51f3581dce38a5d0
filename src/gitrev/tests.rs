use super::objects::{apply_delta, Commit, ObjectId};
use super::refs::{split_suffixes, Step};
use super::*;

#[test]
fn a_delta_copies_and_inserts() {
    let base = b"hello, world";
    // source size 12, target size 11; copy 7 bytes from 0 ("hello, "), insert "git!".
    let delta = [12, 11, 0x80 | 0x10, 7, 4, b'g', b'i', b't', b'!'];
    assert_eq!(
        apply_delta(base, &delta).as_deref(),
        Ok(&b"hello, git!"[..])
    );
}

#[test]
fn a_delta_that_reaches_past_its_base_is_refused() {
    let base = b"abc";
    let delta = [3, 10, 0x80 | 0x01 | 0x10, 2, 10];
    assert_eq!(apply_delta(base, &delta), Err(PackError::CopyPastBase));
    assert_eq!(
        apply_delta(base, &[4, 1, 1, b'x']),
        Err(PackError::BaseSize)
    );
    assert_eq!(
        apply_delta(base, &[3, 1, 0]),
        Err(PackError::ReservedInstruction)
    );
    assert_eq!(
        apply_delta(base, &[3, 2, 1, b'x']),
        Err(PackError::Underrun)
    );
    assert_eq!(apply_delta(base, &[3]), Err(PackError::TruncatedDelta));
}

#[test]
fn revision_suffixes() {
    assert_eq!(split_suffixes("main"), Some(("main", vec![])));
    assert_eq!(
        split_suffixes("HEAD~2^2^"),
        Some((
            "HEAD",
            vec![Step::Ancestor(2), Step::Parent(2), Step::Parent(1)]
        ))
    );
    assert_eq!(split_suffixes("~1"), None);
    assert_eq!(split_suffixes("a~x"), None);
    assert_eq!(split_suffixes("a~é"), None);
}

#[test]
fn a_commit_names_its_tree_parents_and_time() {
    let id = ObjectId::null(gix_hash::Kind::Sha1);
    let text = b"tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\n\
parent 0123456789012345678901234567890123456789\n\
author A <a@b> 1700000000 +0000\n\
committer A <a@b> 1700000001 +0100\n\
\n\
message\n";
    let commit = Commit::parse(id, text).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        commit.tree.to_string(),
        "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
    );
    assert_eq!(commit.parents.len(), 1);
    assert_eq!(commit.time, 1_700_000_001);
    assert!(Commit::parse(id, b"parent x\n").is_err());
}

/// This project's own history, when it is a git checkout: packed objects with deltas.
#[test]
fn reads_this_repository() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let Ok(repository) = Repository::discover(root) else {
        eprintln!("skipped: not a git checkout");
        return;
    };
    let head = repository.resolve("HEAD").unwrap_or_else(|e| panic!("{e}"));
    let tree = repository.tree_of(head).unwrap_or_else(|e| panic!("{e}"));
    let object = repository.read(tree).unwrap_or_else(|e| panic!("{e}"));
    let entries = tree::parse_tree(tree, &object.data).unwrap_or_else(|e| panic!("{e}"));
    let cargo = entries
        .iter()
        .find(|e| e.name == "Cargo.toml")
        .unwrap_or_else(|| panic!("no Cargo.toml in HEAD"));
    let blob = repository.read(cargo.id).unwrap_or_else(|e| panic!("{e}"));
    assert!(blob.data.starts_with(b"[package]"));
    // An ancestor, through `~`, and a merge base with itself.
    if let Ok(parent) = repository.resolve("HEAD~1") {
        assert_ne!(parent, head);
        assert_eq!(
            repository
                .merge_base(head, parent)
                .unwrap_or_else(|e| panic!("{e}")),
            Some(parent)
        );
    }
    let head_hex = head.to_string();
    let short = &head_hex[..10];
    assert_eq!(
        repository.resolve(short).unwrap_or_else(|e| panic!("{e}")),
        head
    );
    assert!(matches!(
        repository.resolve("no-such-branch-anywhere"),
        Err(GitError::UnknownRevision(_))
    ));
}

/// A `git gc` beside a run packs the loose objects and removes them after the store was opened:
/// the store looks for the new pack, as git does (`reprepare_packed_git`), instead of calling
/// the object missing.
/// `git ARGS…` in `dir`, as a test makes its fixture; `None` when it fails (or there is no git).
fn git(dir: &Path, args: &[&str]) -> Option<std::process::Output> {
    std::process::Command::new("git")
        .current_dir(dir)
        .args([
            "-c",
            "user.email=t@t",
            "-c",
            "user.name=t",
            "-c",
            "gc.auto=0",
        ])
        .args(args)
        .output()
        .ok()
        .filter(|o| o.status.success())
}

/// A new repository in a temporary directory; `None` (the test is skipped) without git.
fn new_repository() -> Option<tempfile::TempDir> {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    if git(dir.path(), &["init", "-q"]).is_none() {
        eprintln!("skipped: no git");
        return None;
    }
    Some(dir)
}

#[test]
fn objects_packed_after_the_store_opened_are_found() {
    let Some(dir) = new_repository() else {
        return;
    };
    std::fs::write(dir.path().join("a.yaml"), "a: 1\n").unwrap_or_else(|e| panic!("{e}"));
    git(dir.path(), &["add", "-A"]).unwrap_or_else(|| panic!("git add"));
    git(dir.path(), &["commit", "-q", "-m", "one"]).unwrap_or_else(|| panic!("git commit"));
    let repository = Repository::discover(dir.path()).unwrap_or_else(|e| panic!("{e}"));
    let head = repository.resolve("HEAD").unwrap_or_else(|e| panic!("{e}"));
    git(dir.path(), &["repack", "-a", "-d", "-q"]).unwrap_or_else(|| panic!("git repack"));
    git(dir.path(), &["prune-packed"]).unwrap_or_else(|| panic!("git prune-packed"));
    // Refs packed into `packed-refs` (as a fresh clone has them) resolve, and are listed.
    git(dir.path(), &["branch", "feature/x"]).unwrap_or_else(|| panic!("git branch"));
    git(dir.path(), &["tag", "-a", "v1", "-m", "v1"]).unwrap_or_else(|| panic!("git tag"));
    git(dir.path(), &["pack-refs", "--all"]).unwrap_or_else(|| panic!("git pack-refs"));
    assert!(!dir.path().join(".git/refs/heads/feature/x").exists());
    for name in ["feature/x", "refs/heads/feature/x", "v1"] {
        assert_eq!(
            repository
                .resolve(name)
                .unwrap_or_else(|e| panic!("{name}: {e}")),
            head,
            "{name}"
        );
    }
    assert!(repository.branches(10).contains(&"feature/x".to_owned()));
    let tree = repository.tree_of(head).unwrap_or_else(|e| panic!("{e}"));
    let object = repository.read(tree).unwrap_or_else(|e| panic!("{e}"));
    let entries = tree::parse_tree(tree, &object.data).unwrap_or_else(|e| panic!("{e}"));
    let blob = repository
        .read(entries[0].id)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(blob.data.as_slice(), b"a: 1\n");
}

#[test]
fn a_blob_id_is_the_one_git_gives() {
    // `printf 'hello\n' | git hash-object --stdin`; the empty blob's id is git's constant.
    assert_eq!(
        super::objects::blob_id(b"hello\n").to_string(),
        "ce013625030ba8dba906f756967f9e9ca394464a"
    );
    assert_eq!(
        super::objects::blob_id(b"").to_string(),
        "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"
    );
}

/// The index spares reading the files whose metadata its entries still match, and only those:
/// an edit that keeps the size and puts the modification time back is still found (the change
/// time moved), and an entry as new as the index itself (racy) is not trusted.
#[test]
fn the_index_spares_reading_unchanged_files_only() {
    let Some(dir) = new_repository() else {
        return;
    };
    let now = std::time::SystemTime::now();
    let write = |name: &str, text: &str, modified: std::time::SystemTime| {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap_or_else(|e| panic!("{e}"));
        let file = std::fs::File::options()
            .write(true)
            .open(&path)
            .unwrap_or_else(|e| panic!("{e}"));
        file.set_modified(modified)
            .unwrap_or_else(|e| panic!("{e}"));
    };
    let past = now - std::time::Duration::from_secs(60);
    let future = now + std::time::Duration::from_secs(3600);
    write("same.yaml", "a: 1\n", past);
    write("edited.yaml", "b: 1\n", past);
    write("racy.yaml", "c: 1\n", future);
    git(dir.path(), &["add", "-A"]).unwrap_or_else(|| panic!("git add"));
    git(dir.path(), &["commit", "-q", "-m", "one"]).unwrap_or_else(|| panic!("git commit"));
    let repository = Repository::discover(dir.path()).unwrap_or_else(|e| panic!("{e}"));
    let head = repository.resolve("HEAD").unwrap_or_else(|e| panic!("{e}"));
    let cache = index::StatCache::read(&repository.git_dir);
    if !cfg!(unix) {
        // Without inode and change times the index is not used: every file is read.
        assert!(cache.is_none());
        return;
    }
    let cache = cache.unwrap_or_else(|| panic!("the index of a fresh repository is read"));
    let blob_of = |name: &str| cache.blob_of(Path::new(name), &dir.path().join(name), 0o100644);
    assert_eq!(blob_of("same.yaml"), Some(objects::blob_id(b"a: 1\n")));
    assert_eq!(
        blob_of("racy.yaml"),
        None,
        "an entry as new as the index is read"
    );
    // Same size, same modification time: only the change time tells.
    std::thread::sleep(std::time::Duration::from_millis(20));
    write("edited.yaml", "b: 2\n", past);
    assert_eq!(blob_of("edited.yaml"), None);
    let changed: Vec<PathBuf> = changed_files(&repository, head, None)
        .unwrap_or_else(|e| panic!("{e}"))
        .into_iter()
        .map(|file| file.path)
        .collect();
    assert_eq!(changed, [PathBuf::from("edited.yaml")]);
}
