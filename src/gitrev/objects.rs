//! The object database: loose objects (`objects/xx/yyyy…`, zlib) and packfiles (an `.idx`
//! beside each `.pack`, whole objects and offset/reference deltas), one level of alternates.
//! gitoxide parses (loose headers, pack indexes, pack entry headers, commits, tags; trees in
//! `super::tree`); the files are read here, through `fsio` and confined to the object directory,
//! and every size is checked before memory is given to it: delta chains are bounded by the
//! bytes they build, which gix's own object store does not promise. Delta application stays
//! here because gix keeps its own private.

use std::collections::HashMap;
use std::fmt;
use std::io::{BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use offlux_sync::{MutexExt as _, RwLockExt as _};

use super::{read_limited, GitError};
use crate::fsio::{self, FsFacts};

pub use gix_hash::ObjectId;
pub(super) use gix_object::Kind;

/// The largest object read: far above any file a Flux repository holds; a larger blob is not
/// something a run could read anyway (`fsio::MAX_FILE_BYTES`).
pub(crate) const MAX_OBJECT_BYTES: u64 = crate::fsio::MAX_FILE_BYTES;
/// git itself writes chains of at most 50 (4095 with `--depth`); a longer one is refused.
const MAX_DELTA_CHAIN: usize = 10_000;
/// Bytes rebuilding one object may produce, every step of its delta chains together (a chain
/// of small deltas each copying a 64 MiB base would otherwise be 64 MiB of work per step).
const MAX_CHAIN_BYTES: u64 = 1 << 30;
/// Bytes of inflated deltas one rebuild may hold at once.
const MAX_CHAIN_DELTA_BYTES: u64 = 256 << 20;
/// The largest pack index read (an index costs 28 bytes and more per object: this is some
/// eighteen million objects).
const MAX_INDEX_BYTES: u64 = 512 << 20;
/// Resolved delta bases kept for the objects that follow (trees and blobs share bases).
const CACHE_BYTES: usize = 64 << 20;

/// A full 40-digit hexadecimal SHA-1 id (SHA-256 repositories are refused elsewhere).
pub(crate) fn parse_id(text: &str) -> Option<ObjectId> {
    (text.len() == 40)
        .then(|| ObjectId::from_hex(text.as_bytes()).ok())
        .flatten()
}

/// The id git gives `content` stored as a blob: the SHA-1 of `blob LENGTH\0` and the content.
pub(crate) fn blob_id(content: &[u8]) -> ObjectId {
    let mut hasher = BlobHasher::new(content.len() as u64);
    hasher.update(content);
    hasher
        .finish()
        .unwrap_or_else(|| ObjectId::null(gix_hash::Kind::Sha1))
}

/// The SHA-1 of `bytes` (an index file's checksum).
pub(crate) fn sha1(bytes: &[u8]) -> [u8; 20] {
    use sha1::Digest;
    sha1::Sha1::digest(bytes).into()
}

/// [`blob_id`] of content given in pieces, its length known first.
pub(crate) struct BlobHasher {
    sha1: sha1::Sha1,
    expected: u64,
    seen: u64,
}

impl BlobHasher {
    pub(crate) fn new(len: u64) -> BlobHasher {
        use sha1::Digest;
        let mut sha1 = sha1::Sha1::new();
        sha1.update(gix_object::encode::loose_header(Kind::Blob, len));
        BlobHasher {
            sha1,
            expected: len,
            seen: 0,
        }
    }

    pub(crate) fn update(&mut self, piece: &[u8]) {
        use sha1::Digest;
        self.seen = self.seen.saturating_add(piece.len() as u64);
        self.sha1.update(piece);
    }

    /// The id, or `None` when the pieces did not add up to the length given.
    pub(crate) fn finish(self) -> Option<ObjectId> {
        use sha1::Digest;
        (self.seen == self.expected).then(|| ObjectId::Sha1(self.sha1.finalize().into()))
    }
}

#[derive(Clone, Debug)]
pub(super) struct Object {
    pub kind: Kind,
    pub data: Arc<Vec<u8>>,
}

/// The parts of a commit a diff needs.
pub(crate) struct Commit {
    pub tree: ObjectId,
    pub parents: Vec<ObjectId>,
    /// The committer's time, seconds since the epoch.
    pub time: i64,
}

impl Commit {
    pub(super) fn parse(id: ObjectId, data: &[u8]) -> Result<Self, GitError> {
        let corrupt = |e: gix_object::decode::Error| GitError::Corrupt {
            id: id.to_string(),
            message: e.to_string(),
        };
        let commit =
            gix_object::CommitRef::from_bytes(data, gix_hash::Kind::Sha1).map_err(corrupt)?;
        Ok(Commit {
            tree: commit.tree(),
            parents: commit.parents().collect(),
            time: commit.time().map_err(corrupt)?.seconds,
        })
    }
}

/// The object an annotated tag points at.
pub(crate) fn tag_target(id: ObjectId, data: &[u8]) -> Result<ObjectId, GitError> {
    gix_object::TagRef::from_bytes(data, gix_hash::Kind::Sha1)
        .map(|tag| tag.target())
        .map_err(|e| GitError::Corrupt {
            id: id.to_string(),
            message: e.to_string(),
        })
}

/// One packfile and its index (the index read whole, the pack read entry by entry).
struct Pack {
    path: PathBuf,
    file: Mutex<std::fs::File>,
    index: gix_pack::index::File<Vec<u8>>,
}

impl Pack {
    fn open(idx_path: &Path, root: &Path, facts: &FsFacts) -> Result<Self, GitError> {
        let bytes = read_limited(idx_path, root, MAX_INDEX_BYTES)?;
        let index =
            gix_pack::index::File::from_data(bytes, idx_path.to_path_buf(), gix_hash::Kind::Sha1)
                .map_err(|e| GitError::Io {
                path: idx_path.to_path_buf(),
                message: e.to_string(),
            })?;
        let path = idx_path.with_extension("pack");
        let file = fsio::open(facts, &path, Some(root)).map_err(|e| GitError::Io {
            path: path.clone(),
            message: e.kind.to_string(),
        })?;
        Ok(Pack {
            path,
            file: Mutex::new(file),
            index,
        })
    }

    fn find(&self, id: &ObjectId) -> Option<u64> {
        let entry = self.index.lookup(id)?;
        Some(self.index.pack_offset_at_index(entry))
    }

    fn with_prefix(&self, prefix: gix_hash::Prefix, found: &mut Vec<ObjectId>) {
        let mut candidates = 0..0;
        if self
            .index
            .lookup_prefix(prefix, Some(&mut candidates))
            .is_some()
        {
            found.extend(candidates.map(|i| self.index.oid_at_index(i).to_owned()));
        }
    }
}

/// An entry of a pack as its header says.
enum Entry {
    Whole(Kind, u64),
    OffsetDelta { base: u64, size: u64 },
    RefDelta { base: ObjectId, size: u64 },
}

pub(super) struct Store {
    loose: Vec<PathBuf>,
    /// The packs found so far, in the order found: only ever appended to (see
    /// [`Store::rescan_packs`]), so a pack's position names it in the cache.
    packs: std::sync::RwLock<Vec<Arc<Pack>>>,
    cache: Mutex<Cache>,
}

impl fmt::Debug for Store {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Store")
            .field("loose", &self.loose)
            .field("packs", &self.packs().len())
            .finish()
    }
}

#[derive(Default)]
struct Cache {
    entries: HashMap<(usize, u64), Object>,
    bytes: usize,
}

impl Store {
    pub(super) fn open(objects: &Path) -> Result<Self, GitError> {
        let facts = FsFacts::default();
        let mut loose = vec![objects.to_path_buf()];
        let alternates = objects.join("info").join("alternates");
        if let Ok(text) = super::read_small(&alternates, objects) {
            for line in text.lines().map(str::trim) {
                if !line.is_empty() && !line.starts_with('#') {
                    loose.push(objects.join(line));
                }
            }
        }
        let store = Store {
            loose,
            packs: std::sync::RwLock::new(Vec::new()),
            cache: Mutex::new(Cache::default()),
        };
        store.rescan_packs(&facts)?;
        Ok(store)
    }

    fn packs(&self) -> Vec<Arc<Pack>> {
        self.packs.read_locked().clone()
    }

    /// Opens the packs of the object directories not opened yet; whether there were any. A
    /// `git gc` running beside offlux packs loose objects and removes them: git meets this by
    /// looking for new packs when an object is missing (`reprepare_packed_git`), and so does this.
    fn rescan_packs(&self, facts: &FsFacts) -> Result<bool, GitError> {
        let mut found = Vec::new();
        for dir in &self.loose {
            let Ok(entries) = std::fs::read_dir(dir.join("pack")) else {
                continue;
            };
            let mut indexes: Vec<PathBuf> = entries
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|e| e == "idx"))
                .collect();
            indexes.sort();
            found.extend(indexes.into_iter().map(|index| (index, dir.clone())));
        }
        let Ok(mut packs) = self.packs.write() else {
            return Ok(false);
        };
        let mut added = false;
        for (index, dir) in found {
            let pack_path = index.with_extension("pack");
            if packs.iter().any(|p| p.path == pack_path) {
                continue;
            }
            packs.push(Arc::new(Pack::open(&index, &dir, facts)?));
            added = true;
        }
        Ok(added)
    }

    pub(super) fn read(&self, id: ObjectId) -> Result<Object, GitError> {
        self.read_bounded(id, 0, &mut 0)
    }

    /// `built`: the bytes this read has built so far, across every chain it followed.
    fn read_bounded(
        &self,
        id: ObjectId,
        depth: usize,
        built: &mut u64,
    ) -> Result<Object, GitError> {
        if depth > MAX_DELTA_CHAIN {
            return Err(corrupt(id, "delta chain too long"));
        }
        for rescanned in [false, true] {
            for (n, pack) in self.packs().iter().enumerate() {
                if let Some(offset) = pack.find(&id) {
                    return self.read_packed(n, offset, id, depth, built);
                }
            }
            let hex = id.to_string();
            for dir in &self.loose {
                let path = dir.join(&hex[..2]).join(&hex[2..]);
                if path.is_file() {
                    return read_loose(&path, dir, id);
                }
            }
            if rescanned || !self.rescan_packs(&FsFacts::default())? {
                break;
            }
        }
        Err(GitError::MissingObject(id, ""))
    }

    /// Ids that start with `prefix` (lowercase hexadecimal, four digits or more).
    pub(crate) fn find_prefix(&self, prefix: &str) -> Result<Vec<ObjectId>, GitError> {
        let mut found = Vec::new();
        if let Ok(prefix) = gix_hash::Prefix::from_hex(prefix) {
            for pack in &self.packs() {
                pack.with_prefix(prefix, &mut found);
            }
        }
        if let (Some(dir_name), Some(rest)) = (prefix.get(..2), prefix.get(2..)) {
            for dir in &self.loose {
                let Ok(entries) = std::fs::read_dir(dir.join(dir_name)) else {
                    continue;
                };
                for entry in entries.flatten() {
                    let name = entry.file_name();
                    let name = name.to_string_lossy();
                    if name.starts_with(rest) {
                        if let Some(id) = parse_id(&format!("{dir_name}{name}")) {
                            found.push(id);
                        }
                    }
                }
            }
        }
        found.sort();
        found.dedup();
        Ok(found)
    }

    /// The object at `offset` of pack `n`: its delta chain followed down to a whole object (or a
    /// cached one), then applied back up.
    fn read_packed(
        &self,
        n: usize,
        offset: u64,
        id: ObjectId,
        depth: usize,
        built: &mut u64,
    ) -> Result<Object, GitError> {
        let packs = self.packs();
        let pack = packs
            .get(n)
            .ok_or(GitError::MissingObject(id, ""))?
            .as_ref();
        let mut deltas: Vec<(u64, Vec<u8>)> = Vec::new();
        let mut held = 0u64;
        let mut hold = |size: u64| {
            held = held.saturating_add(size);
            if held > MAX_CHAIN_DELTA_BYTES {
                return Err(pack_error(id, PackError::ChainHoldsTooMuch));
            }
            Ok(())
        };
        let mut at = offset;
        let mut base = loop {
            if let Some(cached) = self.cached(n, at) {
                break cached;
            }
            if deltas.len() > MAX_DELTA_CHAIN {
                return Err(corrupt(id, "delta chain too long"));
            }
            let (entry, data_at) =
                read_entry_header(pack, at).map_err(|kind| pack_error(id, kind))?;
            match entry {
                Entry::Whole(kind, size) => {
                    let data =
                        inflate_at(pack, data_at, size).map_err(|kind| pack_error(id, kind))?;
                    break Object {
                        kind,
                        data: Arc::new(data),
                    };
                }
                Entry::OffsetDelta { base, size } => {
                    hold(size)?;
                    let delta =
                        inflate_at(pack, data_at, size).map_err(|kind| pack_error(id, kind))?;
                    deltas.push((at, delta));
                    at = base;
                }
                Entry::RefDelta { base, size } => {
                    hold(size)?;
                    let delta =
                        inflate_at(pack, data_at, size).map_err(|kind| pack_error(id, kind))?;
                    deltas.push((at, delta));
                    match pack.find(&base) {
                        Some(base_at) => at = base_at,
                        None => break self.read_bounded(base, depth + deltas.len(), built)?,
                    }
                }
            }
        };
        // Each step's target size is in its delta's header, so the whole chain's work is
        // known, and refused, before any of it is done.
        let mut total = built.saturating_add(base.data.len() as u64);
        for (_, delta) in &deltas {
            total = total.saturating_add(delta_target(delta).map_err(|kind| pack_error(id, kind))?);
        }
        if total > MAX_CHAIN_BYTES {
            return Err(pack_error(id, PackError::ChainTooLarge));
        }
        *built = total;
        while let Some((at, delta)) = deltas.pop() {
            let data = apply_delta(&base.data, &delta).map_err(|kind| pack_error(id, kind))?;
            base = Object {
                kind: base.kind,
                data: Arc::new(data),
            };
            // The object asked for is kept only when something else was built on it.
            if !deltas.is_empty() {
                self.remember(n, at, &base);
            }
        }
        Ok(base)
    }

    fn cached(&self, n: usize, offset: u64) -> Option<Object> {
        let cache = self.cache.locked();
        cache.entries.get(&(n, offset)).cloned()
    }

    fn remember(&self, n: usize, offset: u64, object: &Object) {
        let mut cache = self.cache.locked();
        if cache.bytes + object.data.len() > CACHE_BYTES {
            cache.entries.clear();
            cache.bytes = 0;
        }
        if object.data.len() <= CACHE_BYTES {
            cache.bytes += object.data.len();
            cache.entries.insert((n, offset), object.clone());
        }
    }
}

fn pack_error(id: ObjectId, kind: PackError) -> GitError {
    GitError::Pack {
        id: id.to_string(),
        kind,
    }
}

fn corrupt(id: ObjectId, message: &str) -> GitError {
    GitError::Corrupt {
        id: id.to_string(),
        message: message.to_owned(),
    }
}

fn read_loose(path: &Path, root: &Path, id: ObjectId) -> Result<Object, GitError> {
    let compressed = read_limited(path, root, MAX_OBJECT_BYTES + 4096)?;
    let mut data = Vec::new();
    flate2::read::ZlibDecoder::new(&compressed[..])
        .take(MAX_OBJECT_BYTES + 64)
        .read_to_end(&mut data)
        .map_err(|e| corrupt(id, &e.to_string()))?;
    let (kind, size, header) =
        gix_object::decode::loose_header(&data).map_err(|e| corrupt(id, &e.to_string()))?;
    let body = data.split_off(header);
    if body.len() as u64 != size {
        return Err(corrupt(id, "size does not match its header"));
    }
    Ok(Object {
        kind,
        data: Arc::new(body),
    })
}

/// Why a packed entry could not be read or rebuilt from its delta.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PackError {
    #[error("{}: {message}", path.display())]
    Seek { path: PathBuf, message: String },
    #[error("{0}")]
    Read(String),
    /// The entry's header, as gix's decoder reads it.
    #[error("entry header: {0}")]
    Header(String),
    #[error("object larger than {max} bytes", max = MAX_OBJECT_BYTES)]
    TooLarge,
    #[error("delta base before the pack's start")]
    BaseBeforeStart,
    #[error("inflated size does not match the entry's")]
    InflatedSize,
    #[error("truncated delta")]
    TruncatedDelta,
    #[error("delta size overflows")]
    DeltaSizeOverflows,
    #[error("delta's base size does not match its base")]
    BaseSize,
    #[error("delta copies past its base")]
    CopyPastBase,
    #[error("delta instruction 0 is reserved")]
    ReservedInstruction,
    #[error("delta builds more than its target size")]
    Overrun,
    #[error("delta builds less than its target size")]
    Underrun,
    #[error("delta chain builds more than {max} bytes (the chain limit)", max = MAX_CHAIN_BYTES)]
    ChainTooLarge,
    #[error("delta chain holds more than {max} bytes of deltas (the chain limit)", max = MAX_CHAIN_DELTA_BYTES)]
    ChainHoldsTooMuch,
}

/// Reads the header of the entry at `offset`: its type and size, and the base of a delta.
/// Returns the entry and where its compressed data starts.
fn read_entry_header(pack: &Pack, offset: u64) -> Result<(Entry, u64), PackError> {
    use gix_pack::data::entry::Header;
    let mut file = pack.file.locked();
    file.seek(SeekFrom::Start(offset))
        .map_err(|e| PackError::Seek {
            path: pack.path.clone(),
            message: e.to_string(),
        })?;
    let mut header = [0u8; 32];
    let got = read_up_to(&mut *file, &mut header).map_err(|e| PackError::Read(e.to_string()))?;
    let decoded = gix_pack::data::Entry::from_bytes(&header[..got], offset, gix_hash::Kind::Sha1)
        .map_err(|e| PackError::Header(e.to_string()))?;
    let size = decoded.decompressed_size;
    if size > MAX_OBJECT_BYTES {
        return Err(PackError::TooLarge);
    }
    let entry = match decoded.header {
        Header::OfsDelta { base_distance } => Entry::OffsetDelta {
            base: decoded
                .checked_base_pack_offset(base_distance)
                .filter(|_| base_distance > 0)
                .ok_or(PackError::BaseBeforeStart)?,
            size,
        },
        Header::RefDelta { base_id } => Entry::RefDelta {
            base: base_id,
            size,
        },
        Header::Commit => Entry::Whole(Kind::Commit, size),
        Header::Tree => Entry::Whole(Kind::Tree, size),
        Header::Blob => Entry::Whole(Kind::Blob, size),
        Header::Tag => Entry::Whole(Kind::Tag, size),
    };
    Ok((entry, decoded.data_offset))
}

fn read_up_to(reader: &mut impl Read, buffer: &mut [u8]) -> std::io::Result<usize> {
    let mut filled = 0;
    while filled < buffer.len() {
        match reader.read(&mut buffer[filled..])? {
            0 => break,
            n => filled += n,
        }
    }
    Ok(filled)
}

/// Inflates the zlib stream at `offset`, which must give exactly `size` bytes.
fn inflate_at(pack: &Pack, offset: u64, size: u64) -> Result<Vec<u8>, PackError> {
    let mut file = pack.file.locked();
    file.seek(SeekFrom::Start(offset))
        .map_err(|e| PackError::Seek {
            path: pack.path.clone(),
            message: e.to_string(),
        })?;
    let mut data = Vec::with_capacity(size as usize);
    flate2::bufread::ZlibDecoder::new(BufReader::new(&mut *file))
        .take(size + 1)
        .read_to_end(&mut data)
        .map_err(|e| PackError::Read(e.to_string()))?;
    if data.len() as u64 != size {
        return Err(PackError::InflatedSize);
    }
    Ok(data)
}

/// A size in a delta's header: little-endian groups of seven bits.
fn delta_size(delta: &[u8], at: &mut usize) -> Result<u64, PackError> {
    let mut size = 0u64;
    let mut shift = 0;
    loop {
        let byte = *delta.get(*at).ok_or(PackError::TruncatedDelta)?;
        *at += 1;
        if shift > 63 {
            return Err(PackError::DeltaSizeOverflows);
        }
        size |= u64::from(byte & 0x7f) << shift;
        shift += 7;
        if byte & 0x80 == 0 {
            return Ok(size);
        }
    }
}

/// The size of the object `delta` builds (the second size of its header).
fn delta_target(delta: &[u8]) -> Result<u64, PackError> {
    let mut at = 0;
    delta_size(delta, &mut at)?;
    delta_size(delta, &mut at)
}

/// Builds an object from its base and a delta (copy and insert instructions).
pub(super) fn apply_delta(base: &[u8], delta: &[u8]) -> Result<Vec<u8>, PackError> {
    let mut at = 0;
    let source = delta_size(delta, &mut at)?;
    let target = delta_size(delta, &mut at)?;
    if source != base.len() as u64 {
        return Err(PackError::BaseSize);
    }
    if target > MAX_OBJECT_BYTES {
        return Err(PackError::TooLarge);
    }
    let mut out = Vec::with_capacity(target as usize);
    while let Some(&op) = delta.get(at) {
        at += 1;
        if op & 0x80 != 0 {
            let mut offset = 0usize;
            let mut size = 0usize;
            for bit in 0..4 {
                if op & (1 << bit) != 0 {
                    offset |=
                        usize::from(*delta.get(at).ok_or(PackError::TruncatedDelta)?) << (8 * bit);
                    at += 1;
                }
            }
            for bit in 0..3 {
                if op & (0x10 << bit) != 0 {
                    size |=
                        usize::from(*delta.get(at).ok_or(PackError::TruncatedDelta)?) << (8 * bit);
                    at += 1;
                }
            }
            if size == 0 {
                size = 0x10000;
            }
            let piece = offset
                .checked_add(size)
                .and_then(|end| base.get(offset..end))
                .ok_or(PackError::CopyPastBase)?;
            out.extend_from_slice(piece);
        } else if op != 0 {
            let piece = delta
                .get(at..at + usize::from(op))
                .ok_or(PackError::TruncatedDelta)?;
            out.extend_from_slice(piece);
            at += usize::from(op);
        } else {
            return Err(PackError::ReservedInstruction);
        }
        if out.len() as u64 > target {
            return Err(PackError::Overrun);
        }
    }
    if out.len() as u64 != target {
        return Err(PackError::Underrun);
    }
    Ok(out)
}
