//! The index (`.git/index`) as a stat cache: for each file git last saw in the working tree, the
//! blob it held and the file's size, times and inode then. A working file whose metadata still
//! matches its entry holds that blob — what `git status` concludes without reading the file — so
//! only the files that do not match are read and hashed.
//!
//! An entry is trusted only as far as git itself would: not when it is racy (written in the same
//! instant as the index, so a later change may have kept its times), not for a conflict, a sparse
//! or skip-worktree entry, an intent-to-add or an assume-unchanged one. An index this does not
//! understand whole (split or sparse, another hash, an unknown version or required extension, a
//! bad checksum) is not used at all: every file is hashed, as without it.
//!
//! Not for: writing the index, or reading what is staged (the working tree is what is compared).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::objects::ObjectId;

/// The largest index read (a repository of a million files has one of about 100 MiB).
const MAX_INDEX_BYTES: u64 = 512 << 20;
const SHA1_BYTES: usize = 20;

/// What one entry says of its file.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Entry {
    ctime: (u32, u32),
    mtime: (u32, u32),
    ino: u32,
    uid: u32,
    gid: u32,
    size: u32,
    mode: u32,
    id: ObjectId,
}

/// The trusted entries of an index, by path relative to the working tree.
#[derive(Debug)]
pub(crate) struct StatCache {
    entries: HashMap<PathBuf, Entry>,
    /// When the index was written: an entry changed in the same instant or later is racy.
    written: (u32, u32),
}

impl StatCache {
    /// The index of the git directory `git_dir`; `None` when there is none, or one that is not
    /// understood whole (see the module's docs).
    pub(crate) fn read(git_dir: &Path) -> Option<StatCache> {
        if !cfg!(unix) {
            // Without inode and change times, a file's metadata says too little.
            return None;
        }
        let path = git_dir.join("index");
        let written = times(&std::fs::metadata(&path).ok()?).1;
        let bytes = super::read_limited(&path, git_dir, MAX_INDEX_BYTES).ok()?;
        let entries = parse(&bytes)?;
        Some(StatCache { entries, written })
    }

    /// The blob the working file `file` (at `relative`) holds, when its metadata is still what
    /// the index recorded; `None` when it has to be read to know.
    pub(crate) fn blob_of(&self, relative: &Path, file: &Path, mode: u32) -> Option<ObjectId> {
        let entry = self.entries.get(relative)?;
        let meta = std::fs::symlink_metadata(file).ok()?;
        let is_link = |mode: u32| mode & 0o170000 == 0o120000;
        let same_type = is_link(entry.mode) == is_link(mode)
            && is_link(entry.mode) == meta.file_type().is_symlink()
            && (is_link(entry.mode) || meta.is_file());
        // Racy as git decides it on the platforms it compares whole seconds on: changed in the
        // second the index was written, or later.
        let racy = entry.mtime.0 >= self.written.0;
        // git records a racy entry's size as 0 when it writes the index again ("smudged"): such
        // an entry says nothing of the file unless it is the empty blob's.
        let smudged = entry.size == 0 && entry.id != super::objects::blob_id(b"");
        let (ctime, mtime) = times(&meta);
        let (ino, uid, gid) = owner(&meta);
        let unchanged = ctime == entry.ctime
            && mtime == entry.mtime
            && ino == entry.ino
            && uid == entry.uid
            && gid == entry.gid
            && meta.len() as u32 == entry.size;
        (same_type && !racy && !smudged && unchanged).then_some(entry.id)
    }
}

/// A file's change and modification times as the index keeps them (seconds and nanoseconds,
/// truncated to 32 bits).
#[cfg(unix)]
fn times(meta: &std::fs::Metadata) -> ((u32, u32), (u32, u32)) {
    use std::os::unix::fs::MetadataExt;
    (
        (meta.ctime() as u32, meta.ctime_nsec() as u32),
        (meta.mtime() as u32, meta.mtime_nsec() as u32),
    )
}

#[cfg(not(unix))]
fn times(_: &std::fs::Metadata) -> ((u32, u32), (u32, u32)) {
    ((0, 0), (0, 0))
}

/// A file's inode, owner and group, truncated as the index keeps them.
#[cfg(unix)]
fn owner(meta: &std::fs::Metadata) -> (u32, u32, u32) {
    use std::os::unix::fs::MetadataExt;
    (meta.ino() as u32, meta.uid(), meta.gid())
}

#[cfg(not(unix))]
fn owner(_: &std::fs::Metadata) -> (u32, u32, u32) {
    (0, 0, 0)
}

/// The trusted entries of an index file's `bytes`; `None` for anything not understood whole.
fn parse(bytes: &[u8]) -> Option<HashMap<PathBuf, Entry>> {
    let body_len = bytes.len().checked_sub(SHA1_BYTES)?;
    let (body, checksum) = bytes.split_at(body_len);
    // `index.skipHash` writes zeros instead of the checksum.
    if checksum.iter().any(|&b| b != 0) && super::objects::sha1(body).as_slice() != checksum {
        return None;
    }
    let mut reader = Reader { bytes: body, at: 0 };
    if reader.take(4)? != b"DIRC" {
        return None;
    }
    let version = reader.u32()?;
    if !(2..=4).contains(&version) {
        return None;
    }
    let count = reader.u32()? as usize;
    // Each entry takes at least 62 bytes: a count beyond that is a corrupt header.
    if count > body.len() / 62 {
        return None;
    }
    let mut entries = HashMap::with_capacity(count);
    let mut previous: Vec<u8> = Vec::new();
    for _ in 0..count {
        let start = reader.at;
        let ctime = (reader.u32()?, reader.u32()?);
        let mtime = (reader.u32()?, reader.u32()?);
        let _dev = reader.u32()?;
        let ino = reader.u32()?;
        let mode = reader.u32()?;
        let uid = reader.u32()?;
        let gid = reader.u32()?;
        let size = reader.u32()?;
        let id = gix_hash::oid::try_from_bytes(reader.take(SHA1_BYTES)?)
            .ok()?
            .to_owned();
        let flags = reader.u16()?;
        let extended = if flags & 0x4000 != 0 {
            if version < 3 {
                return None;
            }
            reader.u16()?
        } else {
            0
        };
        let path = if version == 4 {
            let strip = reader.varint()?;
            let keep = previous.len().checked_sub(strip)?;
            let suffix = reader.until_nul()?;
            previous.truncate(keep);
            previous.extend_from_slice(suffix);
            previous.clone()
        } else {
            let path = reader.until_nul()?.to_vec();
            // Padded with NULs to a multiple of eight bytes, at least one.
            let len = reader.at - start;
            reader.take((8 - len % 8) % 8)?;
            path
        };
        let assume_valid = flags & 0x8000 != 0;
        let stage = (flags >> 12) & 0x3;
        // skip-worktree, intent-to-add
        let not_in_worktree = extended & 0x6000 != 0;
        let file_mode = matches!(mode & 0o170000, 0o100000 | 0o120000);
        if mode & 0o170000 == 0o040000 {
            // A sparse index's directory entry: the files below are not listed.
            return None;
        }
        if stage == 0 && !assume_valid && !not_in_worktree && file_mode {
            let path = path_of(path)?;
            let entry = Entry {
                ctime,
                mtime,
                ino,
                uid,
                gid,
                size,
                mode,
                id,
            };
            entries.insert(path, entry);
        }
    }
    // Extensions: only one whose signature starts with an upper-case letter may be passed over
    // (the others must be understood: `link`, a split index whose entries live elsewhere; `sdir`,
    // a sparse one).
    while reader.at < body.len() {
        let signature = reader.take(4)?;
        let size = reader.u32()? as usize;
        if !signature[0].is_ascii_uppercase() {
            return None;
        }
        reader.take(size)?;
    }
    Some(entries)
}

/// An entry's path, as the bytes git keeps it.
#[cfg(unix)]
fn path_of(bytes: Vec<u8>) -> Option<PathBuf> {
    use std::os::unix::ffi::OsStringExt;
    Some(PathBuf::from(std::ffi::OsString::from_vec(bytes)))
}

#[cfg(not(unix))]
fn path_of(bytes: Vec<u8>) -> Option<PathBuf> {
    String::from_utf8(bytes).ok().map(PathBuf::from)
}

/// Reads an index's fields in order, every read bounded.
struct Reader<'b> {
    bytes: &'b [u8],
    at: usize,
}

impl<'b> Reader<'b> {
    fn take(&mut self, n: usize) -> Option<&'b [u8]> {
        let end = self.at.checked_add(n)?;
        let taken = self.bytes.get(self.at..end)?;
        self.at = end;
        Some(taken)
    }

    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_be_bytes(self.take(4)?.try_into().ok()?))
    }

    fn u16(&mut self) -> Option<u16> {
        Some(u16::from_be_bytes(self.take(2)?.try_into().ok()?))
    }

    fn until_nul(&mut self) -> Option<&'b [u8]> {
        let rest = self.bytes.get(self.at..)?;
        let len = rest.iter().position(|&b| b == 0)?;
        let text = self.take(len)?;
        self.take(1)?;
        Some(text)
    }

    /// Git's offset encoding (each continuation adds one before shifting).
    fn varint(&mut self) -> Option<usize> {
        let mut byte = self.take(1)?[0];
        let mut value = usize::from(byte & 0x7f);
        while byte & 0x80 != 0 {
            byte = self.take(1)?[0];
            value = value.checked_add(1)?.checked_mul(128)? | usize::from(byte & 0x7f);
        }
        Some(value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One v2 entry for `path` with the given times and id.
    fn entry_v2(path: &str, mtime: u32, id: &ObjectId) -> Vec<u8> {
        let mut out = Vec::new();
        for field in [1, 0, mtime, 0, 0, 7, 0o100644, 1000, 1000, 5] {
            out.extend_from_slice(&u32::to_be_bytes(field));
        }
        out.extend_from_slice(id.as_bytes());
        out.extend_from_slice(&u16::to_be_bytes(path.len() as u16));
        out.extend_from_slice(path.as_bytes());
        let len = out.len();
        out.extend(std::iter::repeat_n(0u8, 8 - len % 8));
        out
    }

    fn index(version: u32, entries: &[Vec<u8>], extensions: &[u8]) -> Vec<u8> {
        let mut out = b"DIRC".to_vec();
        out.extend_from_slice(&version.to_be_bytes());
        out.extend_from_slice(&(entries.len() as u32).to_be_bytes());
        for entry in entries {
            out.extend_from_slice(entry);
        }
        out.extend_from_slice(extensions);
        let checksum = super::super::objects::sha1(&out);
        out.extend_from_slice(&checksum);
        out
    }

    #[test]
    fn reads_entries_and_refuses_what_it_does_not_understand() {
        let id = super::super::objects::blob_id(b"hello");
        let bytes = index(2, &[entry_v2("a/b.yaml", 9, &id)], b"TREE\0\0\0\0");
        let entries = parse(&bytes).expect("parses");
        let entry = &entries[Path::new("a/b.yaml")];
        assert_eq!((entry.mtime, entry.size, entry.id), ((9, 0), 5, id));
        // A bad checksum, a split index, an unknown version, a truncated entry: not used.
        let mut corrupt = bytes.clone();
        corrupt[30] ^= 1;
        assert!(parse(&corrupt).is_none());
        assert!(parse(&index(2, &[entry_v2("x", 9, &id)], b"link\0\0\0\0")).is_none());
        assert!(parse(&index(5, &[], b"")).is_none());
        let mut short = index(2, &[entry_v2("x", 9, &id)], b"");
        short.truncate(40);
        assert!(parse(&short).is_none());
        // A conflict's entries are left out, the others kept.
        let mut conflicted = entry_v2("c", 9, &id);
        conflicted[60] |= 0x20;
        let entries = parse(&index(2, &[conflicted, entry_v2("d", 9, &id)], b"")).expect("parses");
        assert!(entries.contains_key(Path::new("d")) && !entries.contains_key(Path::new("c")));
    }

    #[test]
    fn version_4_paths_are_read_from_the_previous_one() {
        let id = super::super::objects::blob_id(b"x");
        let entry = |strip: u8, suffix: &str| {
            let mut out = Vec::new();
            for field in [0u32, 0, 3, 0, 0, 1, 0o100644, 0, 0, 1] {
                out.extend_from_slice(&field.to_be_bytes());
            }
            out.extend_from_slice(id.as_bytes());
            out.extend_from_slice(&0u16.to_be_bytes());
            out.push(strip);
            out.extend_from_slice(suffix.as_bytes());
            out.push(0);
            out
        };
        let bytes = index(4, &[entry(0, "apps/one.yaml"), entry(8, "two.yaml")], b"");
        let entries = parse(&bytes).expect("parses");
        assert!(entries.contains_key(Path::new("apps/one.yaml")));
        assert!(entries.contains_key(Path::new("apps/two.yaml")));
    }

    /// A file's own metadata matches its entry; a smudged entry (size 0, as git writes a racy
    /// one again) and one written in the index's second do not say what the file holds.
    #[cfg(unix)]
    #[test]
    fn an_entry_tells_the_blob_only_when_it_can() {
        use std::os::unix::fs::MetadataExt;
        let dir = tempfile::tempdir().expect("tempdir");
        let file = dir.path().join("a.yaml");
        std::fs::write(&file, "a: 1\n").expect("write");
        let meta = std::fs::metadata(&file).expect("metadata");
        let id = super::super::objects::blob_id(b"a: 1\n");
        let entry = |size: u32| Entry {
            ctime: (meta.ctime() as u32, meta.ctime_nsec() as u32),
            mtime: (meta.mtime() as u32, meta.mtime_nsec() as u32),
            ino: meta.ino() as u32,
            uid: meta.uid(),
            gid: meta.gid(),
            size,
            mode: 0o100644,
            id,
        };
        let cache = |entry: Entry, written: (u32, u32)| StatCache {
            entries: HashMap::from([(PathBuf::from("a.yaml"), entry)]),
            written,
        };
        let later = (meta.mtime() as u32 + 2, 0);
        let blob = |cache: StatCache| cache.blob_of(Path::new("a.yaml"), &file, 0o100644);
        assert_eq!(blob(cache(entry(5), later)), Some(id));
        assert_eq!(blob(cache(entry(0), later)), None, "smudged");
        assert_eq!(blob(cache(entry(6), later)), None, "another size");
        let same_second = (meta.mtime() as u32, 999_999_999);
        assert_eq!(blob(cache(entry(5), same_second)), None, "racy");
    }
}
