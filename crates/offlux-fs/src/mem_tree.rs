//! A read-only directory tree held in memory: directories, files whose bytes come on demand from a
//! [`Blobs`] source (a git revision's object store, for `diff`'s base), and symlinks. Paths are
//! resolved as `realpath` resolves them on a working tree (component by component, a symlink's
//! target spliced in where it stands, `..` taken physically), except that nothing ever leads out:
//! an absolute target, or `..` above the tree's root, ends the resolution with
//! [`Miss::Outside`], never at a real file.
//!
//! Not for: where the tree is mounted or how a path outside it is read (`fsio::backend`), nor how
//! a revision becomes a tree (`gitrev::view`).

use std::collections::VecDeque;
use std::ffi::{OsStr, OsString};
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex};

use offlux_sync::MutexExt as _;

/// Symlinks followed in one resolution, as Linux's `MAXSYMLINKS`: a loop ends here.
const MAX_SYMLINK_HOPS: usize = 40;
/// Bytes of file contents kept after they are read once (builds read some files again).
const CACHE_BYTES: usize = 256 << 20;

/// Where the bytes of the tree's files come from.
pub trait Blobs: Send + Sync {
    /// The bytes of file `blob` (the number the tree's builder gave it), refused past
    /// `max_bytes` without building them where the source can tell.
    fn read(&self, blob: usize, max_bytes: u64) -> Result<Arc<Vec<u8>>, BlobError>;

    /// A name for file `blob`'s bytes that only the same bytes have (git's blob id), known
    /// without reading them; `None` where the source has none.
    fn content_id(&self, _blob: usize) -> Option<Vec<u8>> {
        None
    }

    /// Counts `len` bytes of file `blob` as read without reading them (see
    /// [`MemTree::charge_as_read`]); false when that is over the source's limit.
    fn charge_as_read(&self, _blob: usize, _len: u64) -> bool {
        true
    }
}

#[derive(Debug)]
pub enum BlobError {
    TooLarge,
    Failed(String),
}

pub type NodeId = usize;

#[derive(Debug)]
enum Node {
    /// Entries sorted by name.
    Dir(Vec<(OsString, NodeId)>),
    File(usize),
    Symlink(PathBuf),
}

/// What a path names, the last symlink not followed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    File,
    Directory,
    Symlink,
}

/// Why a path names nothing in the tree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Miss {
    NotFound,
    /// A component is a file, not a directory.
    NotADirectory,
    /// An absolute symlink target, or `..` above the root: the tree holds nothing there.
    Outside,
    /// More than [`MAX_SYMLINK_HOPS`] symlinks.
    Loop,
}

impl Miss {
    pub fn to_io(&self) -> std::io::Error {
        use std::io::{Error, ErrorKind};
        match self {
            Miss::NotFound => Error::from(ErrorKind::NotFound),
            Miss::NotADirectory => Error::from(ErrorKind::NotADirectory),
            Miss::Outside => Error::new(
                ErrorKind::NotFound,
                "a symlink leads outside the revision; not followed",
            ),
            Miss::Loop => Error::other("too many levels of symbolic links"),
        }
    }
}

/// Builds a [`MemTree`]: the root is directory 0; entries are added under directories already
/// made. Names are not checked for duplicates here: the caller refuses what its source refuses.
#[derive(Debug)]
pub struct Builder {
    nodes: Vec<Node>,
}

impl Default for Builder {
    fn default() -> Self {
        Builder {
            nodes: vec![Node::Dir(Vec::new())],
        }
    }
}

impl Builder {
    pub const ROOT: NodeId = 0;

    fn add(&mut self, parent: NodeId, name: OsString, node: Node) -> NodeId {
        let id = self.nodes.len();
        self.nodes.push(node);
        if let Some(Node::Dir(entries)) = self.nodes.get_mut(parent) {
            entries.push((name, id));
        }
        id
    }

    /// A new empty directory `name` in `parent`.
    pub fn dir(&mut self, parent: NodeId, name: OsString) -> NodeId {
        self.add(parent, name, Node::Dir(Vec::new()))
    }

    pub fn file(&mut self, parent: NodeId, name: OsString, blob: usize) {
        self.add(parent, name, Node::File(blob));
    }

    pub fn symlink(&mut self, parent: NodeId, name: OsString, target: PathBuf) {
        self.add(parent, name, Node::Symlink(target));
    }

    pub fn entries(&self) -> usize {
        self.nodes.len()
    }

    pub fn finish(mut self, blobs: Box<dyn Blobs>) -> MemTree {
        for node in &mut self.nodes {
            if let Node::Dir(entries) = node {
                entries.sort_by(|a, b| a.0.cmp(&b.0));
            }
        }
        MemTree {
            nodes: self.nodes,
            blobs,
            cache: Mutex::default(),
        }
    }
}

#[derive(Default)]
struct Cache {
    bytes: usize,
    files: foldhash::HashMap<usize, Arc<Vec<u8>>>,
}

pub struct MemTree {
    nodes: Vec<Node>,
    blobs: Box<dyn Blobs>,
    cache: Mutex<Cache>,
}

impl std::fmt::Debug for MemTree {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MemTree")
            .field("entries", &self.nodes.len())
            .finish_non_exhaustive()
    }
}

/// A resolved path: the node and its symlink-free path from the root.
struct Found {
    node: NodeId,
    path: Vec<OsString>,
}

impl MemTree {
    fn child(&self, dir: NodeId, name: &OsStr) -> Result<NodeId, Miss> {
        match self.nodes.get(dir) {
            Some(Node::Dir(entries)) => entries
                .binary_search_by(|(n, _)| n.as_os_str().cmp(name))
                .map(|i| entries[i].1)
                .map_err(|_| Miss::NotFound),
            _ => Err(Miss::NotADirectory),
        }
    }

    /// Resolves `relative` (a path under the root) as `realpath` would, the last component's
    /// symlink followed only when `follow_last`.
    fn walk(&self, relative: &Path, follow_last: bool) -> Result<Found, Miss> {
        let mut pending: VecDeque<OsString> = VecDeque::new();
        if !push_components(&mut pending, relative, false)? {
            return Err(Miss::Outside);
        }
        let mut stack: Vec<(NodeId, OsString)> = Vec::new();
        let mut hops = 0;
        while let Some(name) = pending.pop_front() {
            if name == ".." {
                if stack.pop().is_none() {
                    return Err(Miss::Outside);
                }
                continue;
            }
            let dir = stack.last().map_or(Builder::ROOT, |(id, _)| *id);
            let id = self.child(dir, &name)?;
            match &self.nodes[id] {
                Node::Symlink(target) if follow_last || !pending.is_empty() => {
                    hops += 1;
                    if hops > MAX_SYMLINK_HOPS {
                        return Err(Miss::Loop);
                    }
                    let mut spliced = VecDeque::new();
                    if !push_components(&mut spliced, target, true)? {
                        return Err(Miss::Outside);
                    }
                    spliced.extend(pending.drain(..));
                    pending = spliced;
                }
                _ => stack.push((id, name)),
            }
        }
        Ok(Found {
            node: stack.last().map_or(Builder::ROOT, |(id, _)| *id),
            path: stack.into_iter().map(|(_, name)| name).collect(),
        })
    }

    /// What `relative` is, its last symlink followed (`follow`) or not.
    pub fn kind(&self, relative: &Path, follow: bool) -> Result<Kind, Miss> {
        let found = self.walk(relative, follow)?;
        Ok(match &self.nodes[found.node] {
            Node::Dir(_) => Kind::Directory,
            Node::File(_) => Kind::File,
            Node::Symlink(_) => Kind::Symlink,
        })
    }

    /// `relative` with every symlink resolved, relative to the root.
    pub fn resolve(&self, relative: &Path) -> Result<PathBuf, Miss> {
        Ok(self.walk(relative, true)?.path.iter().collect())
    }

    /// The entries of directory `relative`, in name order, symlinks among them not followed.
    pub fn list(&self, relative: &Path) -> Result<Vec<(OsString, Kind)>, Miss> {
        let found = self.walk(relative, true)?;
        let Node::Dir(entries) = &self.nodes[found.node] else {
            return Err(Miss::NotADirectory);
        };
        Ok(entries
            .iter()
            .map(|(name, id)| {
                let kind = match &self.nodes[*id] {
                    Node::Dir(_) => Kind::Directory,
                    Node::File(_) => Kind::File,
                    Node::Symlink(_) => Kind::Symlink,
                };
                (name.clone(), kind)
            })
            .collect())
    }

    /// [`Blobs::content_id`] of the file at `relative` (symlinks followed), without reading it.
    pub fn content_id(&self, relative: &Path) -> Option<Vec<u8>> {
        let found = self.walk(relative, true).ok()?;
        match &self.nodes[found.node] {
            Node::File(blob) => self.blobs.content_id(*blob),
            _ => None,
        }
    }

    /// Charges the file at `relative` (symlinks followed) to what its source counts of bytes
    /// read, as reading its `len` bytes would have ([`Blobs::charge_as_read`]): for bytes
    /// taken from elsewhere by [`MemTree::content_id`]. False when that is over the source's
    /// limit (the file is then read, and refused, as any other).
    pub fn charge_as_read(&self, relative: &Path, len: u64) -> bool {
        match self
            .walk(relative, true)
            .map(|found| &self.nodes[found.node])
        {
            Ok(Node::File(blob)) => self.blobs.charge_as_read(*blob, len),
            _ => false,
        }
    }

    /// The bytes of file `relative`; `Ok(Err(kind))` when it is something else.
    pub fn read(
        &self,
        relative: &Path,
        max_bytes: u64,
    ) -> Result<Result<Arc<Vec<u8>>, BlobError>, Miss> {
        let found = self.walk(relative, true)?;
        let blob = match &self.nodes[found.node] {
            Node::File(blob) => *blob,
            _ => return Ok(Err(BlobError::Failed("is a directory".to_owned()))),
        };
        let cached = self.cache.locked().files.get(&blob).cloned();
        if let Some(bytes) = cached {
            return Ok(if bytes.len() as u64 > max_bytes {
                Err(BlobError::TooLarge)
            } else {
                Ok(bytes)
            });
        }
        let bytes = match self.blobs.read(blob, max_bytes) {
            Ok(bytes) => bytes,
            Err(error) => return Ok(Err(error)),
        };
        {
            let mut cache = self.cache.locked();
            if cache.bytes + bytes.len() <= CACHE_BYTES {
                cache.bytes += bytes.len();
                cache.files.insert(blob, bytes.clone());
            }
        }
        Ok(Ok(bytes))
    }

    /// Whether `relative` names a directory (following symlinks).
    pub fn is_dir(&self, relative: &Path) -> bool {
        self.kind(relative, true) == Ok(Kind::Directory)
    }
}

/// Appends `path`'s components to `out` as names and `..`; `Ok(false)` when the path is absolute
/// (a symlink target that names the real file system). `.` components go.
fn push_components(
    out: &mut VecDeque<OsString>,
    path: &Path,
    is_target: bool,
) -> Result<bool, Miss> {
    if is_target && path.as_os_str().is_empty() {
        return Err(Miss::NotFound);
    }
    for component in path.components() {
        match component {
            Component::Normal(name) => out.push_back(name.to_owned()),
            Component::ParentDir => out.push_back(OsString::from("..")),
            Component::CurDir => {}
            Component::RootDir | Component::Prefix(_) => return Ok(false),
        }
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Texts(Vec<&'static str>);

    impl Blobs for Texts {
        fn read(&self, blob: usize, max_bytes: u64) -> Result<Arc<Vec<u8>>, BlobError> {
            let text = self.0[blob];
            if text.len() as u64 > max_bytes {
                return Err(BlobError::TooLarge);
            }
            Ok(Arc::new(text.as_bytes().to_vec()))
        }
    }

    /// `a/b/file`, `a/up -> ..`, `a/b/chain -> ../up/b/file`, `a/out -> ../../x`,
    /// `abs -> /etc/passwd`, `loop -> loop`, `dirlink -> a/b`.
    fn tree() -> MemTree {
        let mut b = Builder::default();
        let a = b.dir(Builder::ROOT, "a".into());
        let ab = b.dir(a, "b".into());
        b.file(ab, "file".into(), 0);
        b.symlink(a, "up".into(), "..".into());
        b.symlink(ab, "chain".into(), "../up/a/b/file".into());
        b.symlink(a, "out".into(), "../../x".into());
        b.symlink(Builder::ROOT, "abs".into(), "/etc/passwd".into());
        b.symlink(Builder::ROOT, "loop".into(), "loop".into());
        b.symlink(Builder::ROOT, "dirlink".into(), "a/b".into());
        b.finish(Box::new(Texts(vec!["content"])))
    }

    #[test]
    fn symlinks_resolve_physically_and_never_lead_out() {
        let t = tree();
        let p = Path::new;
        assert_eq!(t.resolve(p("a/b/chain")), Ok(PathBuf::from("a/b/file")));
        assert_eq!(t.resolve(p("dirlink/file")), Ok(PathBuf::from("a/b/file")));
        // `..` after a symlinked directory is the parent of where the link leads.
        assert_eq!(t.resolve(p("dirlink/..")), Ok(PathBuf::from("a")));
        assert_eq!(t.resolve(p("a/out")), Err(Miss::Outside));
        assert_eq!(t.resolve(p("abs")), Err(Miss::Outside));
        assert_eq!(t.resolve(p("..")), Err(Miss::Outside));
        assert_eq!(t.resolve(p("loop")), Err(Miss::Loop));
        assert_eq!(t.resolve(p("a/b/file/x")), Err(Miss::NotADirectory));
        assert_eq!(t.resolve(p("a/missing")), Err(Miss::NotFound));
        assert_eq!(t.kind(p("a/out"), false), Ok(Kind::Symlink));
        assert_eq!(t.kind(p("dirlink"), true), Ok(Kind::Directory));
    }

    #[test]
    fn files_are_read_lists_are_sorted_and_sizes_capped() {
        let t = tree();
        let bytes = t.read(Path::new("a/b/chain"), 100);
        assert!(matches!(bytes, Ok(Ok(ref b)) if b.as_slice() == b"content"));
        assert!(matches!(
            t.read(Path::new("a/b/file"), 3),
            Ok(Err(BlobError::TooLarge))
        ));
        let names: Vec<_> = t
            .list(Path::new(""))
            .unwrap_or_default()
            .into_iter()
            .map(|(n, k)| (n.into_string().unwrap_or_default(), k))
            .collect();
        assert_eq!(
            names,
            [
                ("a".to_owned(), Kind::Directory),
                ("abs".to_owned(), Kind::Symlink),
                ("dirlink".to_owned(), Kind::Symlink),
                ("loop".to_owned(), Kind::Symlink),
            ]
        );
    }
}
