//! An ExternalArtifact that an ArtifactGenerator of the repository produces, assembled offline:
//! each alias's source is a directory (the working tree, or a directory the user mapped), the
//! generator's copy operations run through `artifact::build`, and a Kustomization builds the
//! result. When the artifact is exactly a directory of a source (every file in place, nothing
//! left out), the build reads that directory, so findings point at the real files; otherwise the
//! artifact is mounted in memory behind `fsio` (nothing is written to disk) and its files are
//! traced back to their sources.
//!
//! Not for: pathPattern expansion, or sources that are not directories on this machine.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::artifact::{
    self, Artifact, Copy, Entry, EntryKind, Origin, SourceError, SourceTree, Strategy,
};
use crate::fsio::{self, mem_tree, FileKind, FsFacts};
use crate::model::{ArtifactGenerator, FluxKind, FluxObject, FluxSpec, ResourceId};

/// A directory on disk as a source tree: nothing outside it is shown (symlinks that lead out are
/// hidden), and `.git` is left out as source-controller leaves it out of an artifact. Every read of
/// a source file for an artifact goes through here, and here through `fsio`.
#[derive(Clone, Debug)]
pub(crate) struct DirTree {
    root: PathBuf,
    facts: Arc<FsFacts>,
}

impl DirTree {
    /// The directory, resolved.
    pub(crate) fn root(&self) -> &Path {
        &self.root
    }

    /// `root` must exist; it is resolved so containment checks compare like with like.
    pub(crate) fn new(root: &Path, facts: Arc<FsFacts>) -> Option<DirTree> {
        let root = facts.resolve(&fsio::absolute(root))?;
        (facts.kind(&root) == Some(FileKind::Directory)).then_some(DirTree { root, facts })
    }

    fn real(&self, path: &str) -> Option<PathBuf> {
        fsio::locate(&self.facts, &self.root.join(path), Some(&self.root)).ok()
    }
}

impl SourceTree for DirTree {
    fn kind(&self, path: &str) -> Option<EntryKind> {
        if path.split('/').any(|s| s == ".git") {
            return None;
        }
        match self.facts.kind(&self.real(path)?)? {
            FileKind::Directory => Some(EntryKind::Dir),
            FileKind::File => Some(EntryKind::File),
            FileKind::Other => None,
        }
    }

    fn list(&self, path: &str) -> Result<Vec<String>, SourceError> {
        let entries = fsio::read_dir(&self.facts, &self.root.join(path), Some(&self.root))
            .map_err(|e| source_error(path, e))?;
        Ok(entries
            .into_iter()
            .filter_map(|e| e.name.into_string().ok())
            .filter(|name| name != ".git")
            .collect())
    }

    fn read(&self, path: &str) -> Result<Vec<u8>, SourceError> {
        fsio::read(
            &self.facts,
            &self.root.join(path),
            fsio::Confine::within(&self.root),
        )
        .map_err(|e| source_error(path, e))
    }
}

fn source_error(path: &str, error: impl std::fmt::Display) -> SourceError {
    SourceError {
        path: path.to_string(),
        message: error.to_string(),
    }
}

/// Where a Kustomization reads an ExternalArtifact's files from.
#[derive(Clone, Debug)]
pub(crate) struct ArtifactRoot {
    /// The artifact's root directory.
    pub root: PathBuf,
    /// Every file of the artifact under `root`, sorted as paths sort.
    pub files: Vec<PathBuf>,
    /// For a mounted artifact, each file's source file, where it is one.
    pub origins: BTreeMap<PathBuf, PathBuf>,
    /// The in-memory tree `root` names, for an artifact that is not a source directory as it
    /// stands; it is readable while this is held.
    pub _mount: Option<Arc<fsio::Mount>>,
}

/// The ArtifactGenerator (and its artifact's index) that produces `reference`.
pub(crate) fn generator_of<'a>(
    reference: &ResourceId,
    flux_objects: &'a [FluxObject],
) -> Option<(&'a FluxObject, &'a ArtifactGenerator, usize)> {
    flux_objects.iter().find_map(|f| match &f.spec {
        FluxSpec::ArtifactGenerator(generator) if f.namespace() == reference.namespace => generator
            .artifacts
            .iter()
            .position(|a| a.name == reference.name)
            .map(|index| (f, generator, index)),
        _ => None,
    })
}

/// The id of a generator source, its namespace defaulting to the generator's.
pub(crate) fn source_id(flux: &FluxObject, source: &crate::model::CrossRef) -> ResourceId {
    let namespace = if source.namespace.is_empty() {
        flux.namespace()
    } else {
        &source.namespace
    };
    let group = FluxKind::from_kind(&source.kind).map_or("", |k| k.group());
    ResourceId::new(
        &format!("{group}/v1"),
        &source.kind,
        namespace,
        &source.name,
    )
}

/// Assembles the artifact `index` of `generator`. `source_dir` gives each source's directory, or
/// why it has none offline; an artifact that is not a source directory as it stands is mounted
/// in memory under `mount_parent` (an absolute path; nothing is created there). The bytes its
/// `Extract` copies inflate are charged to the run's `budget` of bytes extracted.
pub(crate) fn assemble(
    flux: &FluxObject,
    generator: &ArtifactGenerator,
    index: usize,
    source_dir: &dyn Fn(&ResourceId) -> Result<PathBuf, String>,
    mount_parent: &Path,
    facts: &Arc<FsFacts>,
    budget: &crate::budget::RunBudget,
) -> Result<ArtifactRoot, String> {
    let spec = generator
        .artifacts
        .get(index)
        .ok_or("no such artifact in the generator")?;
    let label = format!(
        "ArtifactGenerator/{}/{} artifact `{}`",
        flux.namespace(),
        flux.name(),
        spec.name
    );
    let mut trees: BTreeMap<String, DirTree> = BTreeMap::new();
    for (alias, source) in &generator.sources {
        let id = source_id(flux, source);
        let dir = source_dir(&id).map_err(|m| format!("{label}: source `{alias}`: {m}"))?;
        let tree = DirTree::new(&dir, facts.clone()).ok_or_else(|| {
            format!(
                "{label}: source `{alias}`: directory `{}` not found",
                dir.display()
            )
        })?;
        trees.insert(alias.clone(), tree);
    }
    let sources: artifact::Sources = trees
        .iter()
        .map(|(alias, tree)| (alias.clone(), tree as &dyn SourceTree))
        .collect();
    let copies: Vec<Copy> = spec
        .copies
        .iter()
        .map(|c| Copy {
            from: c.from.clone(),
            to: c.to.clone(),
            exclude: c.exclude.clone(),
            strategy: Strategy::parse(&c.strategy).unwrap_or_default(),
        })
        .collect();
    if let Some(bad) = spec
        .copies
        .iter()
        .find(|c| Strategy::parse(&c.strategy).is_none())
    {
        return Err(format!("{label}: unknown copy strategy `{}`", bad.strategy));
    }
    let built = artifact::build(&copies, &sources, Some(budget))
        .map_err(|e| format!("{label}: {e}"))?
        .archived();
    if let Some(root) = mirrored_directory(&built, &trees) {
        let files = files_under(&root, &built);
        return Ok(ArtifactRoot {
            root,
            files,
            origins: BTreeMap::new(),
            _mount: None,
        });
    }
    let mount_label = format!("artifact-{}", spec.name);
    mount(&built, &trees, mount_parent, &mount_label).map_err(|e| format!("{label}: {e}"))
}

fn files_under(root: &Path, built: &Artifact) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = built
        .entries
        .iter()
        .filter(|(_, e)| matches!(e, Entry::File(_)))
        .map(|(p, _)| root.join(p))
        .collect();
    files.sort();
    files
}

/// The source directory the artifact is an exact copy of, if it is one: every file comes from
/// the same alias at the same place relative to one directory, and that directory holds no other
/// file (once the archive filter has had its say).
fn mirrored_directory(built: &Artifact, trees: &BTreeMap<String, DirTree>) -> Option<PathBuf> {
    let mut found: Option<(&str, String)> = None;
    let mut count = 0usize;
    for (path, entry) in &built.entries {
        let Entry::File(Origin::Source { alias, path: from }) = entry else {
            if matches!(entry, Entry::Dir) {
                continue;
            }
            return None;
        };
        count += 1;
        let base = if from == path {
            String::new()
        } else {
            from.strip_suffix(path.as_str())?
                .strip_suffix('/')?
                .to_string()
        };
        match &found {
            None => found = Some((alias, base)),
            Some((a, b)) if a == alias && *b == base => {}
            Some(_) => return None,
        }
    }
    let (alias, base) = found?;
    let tree = trees.get(alias)?;
    if count_files(tree, &base) != count {
        return None;
    }
    Some(tree.root.join(base))
}

fn count_files(tree: &DirTree, dir: &str) -> usize {
    let mut count = 0;
    let mut stack = vec![dir.to_string()];
    while let Some(dir) = stack.pop() {
        for name in tree.list(&dir).unwrap_or_default() {
            let path = if dir.is_empty() {
                name
            } else {
                format!("{dir}/{name}")
            };
            match tree.kind(&path) {
                Some(EntryKind::Dir) => stack.push(path),
                Some(EntryKind::File) if !artifact::archive_ignores(&path) => count += 1,
                _ => {}
            }
        }
    }
    count
}

/// Mounts the artifact in memory behind `fsio` at a path under `parent` that is never created
/// (`fsio::mount`, as a `diff` mounts a revision): the build reads it through the door like any
/// directory, and nothing of it is written to disk. Files are read from their sources when asked.
fn mount(
    built: &Artifact,
    trees: &BTreeMap<String, DirTree>,
    parent: &Path,
    label: &str,
) -> Result<ArtifactRoot, String> {
    let mut builder = mem_tree::Builder::default();
    let mut dirs: BTreeMap<&str, mem_tree::NodeId> = BTreeMap::new();
    let mut blobs = Vec::new();
    let mut sources = Vec::new();
    for (path, entry) in &built.entries {
        let (dir, name) = match path.rsplit_once('/') {
            Some((dir, name)) => (dir, name),
            None => ("", path.as_str()),
        };
        let parent_node = if dir.is_empty() {
            mem_tree::Builder::ROOT
        } else {
            *dirs
                .get(dir)
                .ok_or_else(|| format!("the artifact's `{path}` has no parent directory"))?
        };
        match entry {
            Entry::Dir => {
                let node = builder.dir(parent_node, name.into());
                dirs.insert(path, node);
            }
            Entry::File(origin) => {
                builder.file(parent_node, name.into(), blobs.len());
                let blob = match origin {
                    Origin::Data(data) => Blob::Data(data.clone()),
                    Origin::Source { alias, path: from } => {
                        let tree = trees
                            .get(alias)
                            .ok_or_else(|| format!("source alias `{alias}` not found"))?;
                        sources.push((path.as_str(), tree.root.join(from)));
                        Blob::Source(tree.clone(), from.clone())
                    }
                };
                blobs.push(blob);
            }
        }
    }
    let tree = builder.finish(Box::new(ArtifactBlobs(blobs)));
    let mount = fsio::mount(tree, parent, label)
        .map_err(|e| format!("mounting the artifact in memory: {e}"))?;
    let root = mount.path().to_path_buf();
    let origins = sources
        .into_iter()
        .map(|(path, source)| (root.join(path), source))
        .collect();
    let files = files_under(&root, built);
    Ok(ArtifactRoot {
        root,
        files,
        origins,
        _mount: Some(Arc::new(mount)),
    })
}

/// Where an in-memory artifact file's bytes come from.
enum Blob {
    /// Made by the build: a merge's result or a tarball member.
    Data(Arc<[u8]>),
    /// A source's file, read through its view (and so through `fsio`) when asked for.
    Source(DirTree, String),
}

struct ArtifactBlobs(Vec<Blob>);

impl mem_tree::Blobs for ArtifactBlobs {
    fn read(&self, blob: usize, max_bytes: u64) -> Result<Arc<Vec<u8>>, mem_tree::BlobError> {
        let bytes = match self.0.get(blob) {
            Some(Blob::Data(data)) => data.to_vec(),
            Some(Blob::Source(tree, path)) => tree
                .read(path)
                .map_err(|e| mem_tree::BlobError::Failed(e.to_string()))?,
            None => return Err(mem_tree::BlobError::Failed("no such file".to_owned())),
        };
        if bytes.len() as u64 > max_bytes {
            return Err(mem_tree::BlobError::TooLarge);
        }
        Ok(Arc::new(bytes))
    }
}

/// A whole directory read as a source: every file under it (`.git` aside).
pub(crate) fn whole_directory(tree: &DirTree) -> ArtifactRoot {
    let mut files = Vec::new();
    let mut stack = vec![String::new()];
    while let Some(dir) = stack.pop() {
        for name in tree.list(&dir).unwrap_or_default() {
            let path = if dir.is_empty() {
                name
            } else {
                format!("{dir}/{name}")
            };
            match tree.kind(&path) {
                Some(EntryKind::Dir) => stack.push(path),
                Some(EntryKind::File) => files.push(tree.root.join(path)),
                None => {}
            }
        }
    }
    files.sort();
    ArtifactRoot {
        root: tree.root.clone(),
        files,
        origins: BTreeMap::new(),
        _mount: None,
    }
}
