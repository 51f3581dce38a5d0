//! Discovery: walks a repository the way Flux's source-controller would see it, parses every YAML
//! file once, and collects Flux objects, ConfigMaps and Secrets. Starting from `--path`, it follows
//! each Kustomization's `spec.path` until nothing new appears, so the entry may be as narrow as a
//! cluster's directory.
//!
//! Not for: building kustomizations or rendering anything. The objects found here are the ones
//! written in files; what Flux would apply comes from the controllers.

pub mod git_remote;
mod kustomization_refs;
mod load;
mod paths;
mod walk;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::diagnostic::Diagnostic;
use crate::fs_facts::FsFacts;
use crate::model::{FluxKind, FluxObject, Object, ResourceId};
use crate::yaml::ParsedFiles;

use load::Keep;
pub use load::{is_kustomization_file, KUSTOMIZATION_FILE_NAMES};
pub use paths::{apply_variable_defaults, secure_join};

/// The GitRepository Flux bootstraps from; it stands for the working tree.
pub const BOOTSTRAP_NAME: &str = "flux-system";
pub const BOOTSTRAP_NAMESPACE: &str = "flux-system";

#[derive(Clone, Debug)]
pub struct Options {
    /// Where to start: the repository, or a directory inside it.
    pub path: PathBuf,
    /// The repository root; by default the nearest ancestor of `path` holding `.git`, else `path`.
    pub root: Option<PathBuf>,
    /// Files larger than this are reported and not read.
    pub max_file_size: u64,
}

impl Options {
    pub fn new(path: impl Into<PathBuf>) -> Self {
        Options {
            path: path.into(),
            root: None,
            max_file_size: 16 * 1024 * 1024,
        }
    }
}

/// The bootstrap source: defined in the repository, or assumed.
#[derive(Clone, Debug, PartialEq)]
pub enum BootstrapSource {
    Defined(PathBuf),
    Assumed,
}

#[derive(Debug)]
pub struct Repository {
    /// Canonical path of the repository root; every file below is relative to it.
    pub root: PathBuf,
    /// `--path`, relative to the root.
    pub entry: PathBuf,
    /// Flux objects, sorted by id then file.
    pub flux_objects: Vec<FluxObject>,
    /// ConfigMaps and Secrets, sorted by id then file.
    pub data_objects: Vec<Object>,
    /// Objects in files that kustomizations use as patches: partial objects, never applied as such.
    pub patch_fragments: Vec<Object>,
    /// Every YAML file Flux would see under the root (ignore rules applied), absolute, sorted.
    pub yaml_files: Vec<PathBuf>,
    pub bootstrap: BootstrapSource,
    /// The Kustomization that applies each object (keyed by file and id), as far as a static
    /// reading can tell. Objects absent here are applied by nothing in the repository: they are the
    /// entry points. Rendering gives the exact answer.
    pub parents: BTreeMap<(PathBuf, ResourceId), ResourceId>,
    /// Every file discovery parsed, for the builds that read them again.
    pub parsed_files: Arc<ParsedFiles>,
    /// What the walk found each path to be, for the builds that ask again.
    pub fs_facts: Arc<FsFacts>,
    pub stats: Stats,
    pub diagnostics: Vec<Diagnostic>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    pub yaml_files: usize,
    pub unparsable_files: usize,
    pub sops_documents: usize,
    /// Files used only as patches or generator inputs.
    pub patch_files: usize,
}

#[derive(Debug, thiserror::Error)]
pub enum DiscoveryError {
    #[error("cannot open `{path}`: {source}")]
    Path {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("`{path}` is not a directory")]
    NotADirectory { path: PathBuf },
    #[error("`{path}` is not inside the repository root `{root}`")]
    OutsideRoot { path: PathBuf, root: PathBuf },
}

pub fn discover(options: &Options) -> Result<Repository, DiscoveryError> {
    let canonical = |path: &Path| {
        path.canonicalize().map_err(|source| DiscoveryError::Path {
            path: path.to_path_buf(),
            source,
        })
    };
    let entry = canonical(&options.path)?;
    if !entry.is_dir() {
        return Err(DiscoveryError::NotADirectory { path: entry });
    }
    let root = match &options.root {
        Some(root) => canonical(root)?,
        None => find_git_root(&entry).unwrap_or_else(|| entry.clone()),
    };
    if !entry.starts_with(&root) {
        return Err(DiscoveryError::OutsideRoot { path: entry, root });
    }

    let fs_facts = FsFacts::default();
    let listing = walk::list_yaml_files(&root, &fs_facts);
    let mut diagnostics = listing.diagnostics;
    // What each file of the listing held, by its index there: indexes, not paths, because hashing
    // and comparing long paths cost more than reading the files' trees.
    let mut loaded: Vec<Option<load::LoadedFile>> = Vec::new();
    loaded.resize_with(listing.yaml_files.len(), || None);
    // Files are read and parsed in parallel, a batch at a time; each result goes to its file's
    // slot, so nothing downstream depends on the threads' timing.
    let load_all = |files: &[usize],
                    keep: &dyn Fn(&Path) -> Keep,
                    loaded: &mut Vec<Option<load::LoadedFile>>| {
        let missing: Vec<(usize, Keep)> = files
            .iter()
            .copied()
            .filter(|&i| loaded[i].is_none())
            .map(|i| (i, keep(&listing.yaml_files[i])))
            .collect();
        let results = crate::parallel::map(&missing, |&(i, keep)| {
            let path = &listing.yaml_files[i];
            load::load_file(
                path,
                paths::relative_to(path, &root),
                options.max_file_size,
                keep,
            )
        });
        for ((i, _), file) in missing.into_iter().zip(results) {
            loaded[i] = Some(file);
        }
    };

    // Kustomization files anywhere decide which files are patches, wherever those are used.
    let mut refs = kustomization_refs::KustomizationRefs::default();
    let kustomization_files: Vec<usize> = (0..listing.yaml_files.len())
        .filter(|&i| is_kustomization_file(&listing.yaml_files[i]))
        .collect();
    load_all(&kustomization_files, &|_| Keep::All, &mut loaded);
    for i in kustomization_files {
        if let (Some(dir), Some(node)) = (
            listing.yaml_files[i].parent(),
            loaded[i].as_ref().and_then(|l| l.kustomization.as_ref()),
        ) {
            refs.read(dir, node);
        }
    }

    // Directories are walked whole; kustomizations also pull in the files and directories they
    // list from elsewhere (`resources: [../base/app]`), and Kustomizations their `spec.path`.
    let mut walked: Vec<PathBuf> = Vec::new();
    let mut single_files: foldhash::HashSet<PathBuf> = foldhash::HashSet::default();
    let mut included = vec![false; listing.yaml_files.len()];
    // Each target remembers the Kustomization whose `spec.path` led to it: that Kustomization is
    // the parent of the objects found there.
    let mut pending: BTreeMap<PathBuf, Option<ResourceId>> =
        BTreeMap::from([(entry.clone(), None)]);
    // By id, the `spec.path` of the first definition (by file) of each Kustomization, the one the
    // run uses when an id is defined more than once; and that definition's file.
    let mut followed: BTreeMap<ResourceId, (PathBuf, PathBuf)> = BTreeMap::new();
    while let Some((target, origin)) = pending.pop_first() {
        if walked.iter().any(|w| target.starts_with(w)) || single_files.contains(&target) {
            continue;
        }
        if !target.starts_with(&root) {
            continue;
        }
        let files: Vec<usize> = if target.is_dir() {
            walked.push(target.clone());
            // The listing is sorted by path components, so a directory's files are contiguous.
            let start = listing.yaml_files.partition_point(|f| *f < target);
            (start..listing.yaml_files.len())
                .take_while(|&i| listing.yaml_files[i].starts_with(&target))
                .filter(|&i| !in_chart_templates(&listing.yaml_files[i], &root))
                .collect()
        } else {
            single_files.insert(target.clone());
            listing
                .yaml_files
                .binary_search(&target)
                .into_iter()
                .collect()
        };
        for &i in &files {
            included[i] = true;
        }
        // Patch files are kept whole: their partial objects are reported as fragments.
        let keep = |file: &Path| {
            if refs.non_resource_files.contains(file) {
                Keep::All
            } else {
                Keep::FluxAndData
            }
        };
        load_all(&files, &keep, &mut loaded);
        for i in files {
            let file = &listing.yaml_files[i];
            let Some(file_load) = loaded[i].as_ref() else {
                continue;
            };
            for object in &file_load.objects {
                if let Some(next) = followed_path(object, &root, &mut diagnostics) {
                    // The id the object will have: with the namespace its kustomization gives it,
                    // as the objects themselves get it below.
                    let mut id = object.id.clone();
                    if id.namespace.is_empty() {
                        if let Some(namespace) = refs.namespace_of_file.get(file) {
                            id.namespace = namespace.clone();
                        }
                    }
                    let first = followed
                        .get(&id)
                        .is_none_or(|(defined_in, _)| object.file < *defined_in);
                    if first {
                        followed.insert(id.clone(), (object.file.clone(), next.clone()));
                    }
                    pending.entry(next).or_insert_with(|| Some(id));
                }
            }
            if file_load.kustomization.is_some() {
                if let Some(inputs) = file.parent().and_then(|d| refs.inputs_of_dir.get(d)) {
                    for input in inputs {
                        pending
                            .entry(input.clone())
                            .or_insert_with(|| origin.clone());
                    }
                }
            }
        }
    }

    let mut flux_objects = Vec::new();
    let mut data_objects = Vec::new();
    let mut patch_fragments = Vec::new();
    let mut others = Vec::new();
    let mut stats = Stats {
        yaml_files: 0,
        ..Stats::default()
    };
    let mut parsed_files = ParsedFiles::with_capacity(listing.yaml_files.len());
    for ((path, file), included) in listing.yaml_files.iter().zip(loaded).zip(included) {
        let Some(file) = file else {
            continue;
        };
        if let Some(documents) = file.documents {
            parsed_files.insert(path.clone(), documents);
        }
        if !included {
            continue;
        }
        stats.yaml_files += 1;
        diagnostics.extend(file.diagnostics);
        if !file.parsed {
            stats.unparsable_files += 1;
            continue;
        }
        stats.sops_documents += file.sops_documents;
        if refs.non_resource_files.contains(path) {
            stats.patch_files += 1;
            patch_fragments.extend(file.objects);
            continue;
        }
        let namespace_hint = refs.namespace_of_file.get(path);
        for mut object in file.objects {
            if object.id.namespace.is_empty() {
                if let Some(namespace) = namespace_hint {
                    object.id.namespace = namespace.clone();
                }
            }
            if object.id.group.is_empty()
                && matches!(object.id.kind.as_str(), "ConfigMap" | "Secret")
            {
                data_objects.push(object);
            } else {
                others.push(object);
            }
        }
    }
    // Reading a Flux object's spec copies its parts (a HelmRelease's values); on all cores.
    for read in crate::parallel::map(&others, FluxObject::from_object) {
        match read {
            Ok(Some(flux)) => flux_objects.push(flux),
            Ok(None) => {}
            Err(error) => diagnostics.push(error.to_diagnostic()),
        }
    }
    flux_objects
        .sort_by(|a, b| (&a.object.id, &a.object.file).cmp(&(&b.object.id, &b.object.file)));
    data_objects.sort_by(|a, b| (&a.id, &a.file).cmp(&(&b.id, &b.file)));
    diagnostics.sort();
    diagnostics.dedup();

    let followed: BTreeMap<ResourceId, PathBuf> = followed
        .into_iter()
        .map(|(id, (_, dir))| (id, dir))
        .collect();
    let parents = parents(&flux_objects, &data_objects, &followed, &refs, &root);

    let bootstrap = flux_objects
        .iter()
        .find(|f| {
            f.kind == FluxKind::GitRepository
                && f.name() == BOOTSTRAP_NAME
                && matches!(f.namespace(), BOOTSTRAP_NAMESPACE | "")
        })
        .map(|f| BootstrapSource::Defined(f.object.file.clone()))
        .unwrap_or(BootstrapSource::Assumed);

    Ok(Repository {
        entry: paths::relative_to(&entry, &root),
        root,
        flux_objects,
        data_objects,
        patch_fragments,
        yaml_files: listing.yaml_files,
        bootstrap,
        parents,
        parsed_files: Arc::new(parsed_files),
        fs_facts: Arc::new(fs_facts),
        stats,
        diagnostics,
    })
}

/// The directory a Kustomization's `spec.path` names in the working tree, when discovery should
/// walk it: the source is a GitRepository (the working tree, or a repository aliased to it) and
/// the path resolves without cluster-only variables.
fn followed_path(
    object: &Object,
    root: &Path,
    diagnostics: &mut Vec<Diagnostic>,
) -> Option<PathBuf> {
    if object.id.group != crate::model::KUSTOMIZE_GROUP || object.id.kind != "Kustomization" {
        return None;
    }
    let flux = FluxObject::from_object(object).ok()??;
    let kustomization = flux.as_kustomization()?;
    if kustomization.source_ref.kind != "GitRepository" {
        return None;
    }
    let path = match apply_variable_defaults(&kustomization.path) {
        Ok(path) => path,
        Err(names) => {
            diagnostics.push(
                Diagnostic::note(format!(
                    "`spec.path` `{}` uses {} with no default; not followed",
                    kustomization.path,
                    names
                        .iter()
                        .map(|n| format!("`${{{n}}}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ))
                .at(object.location())
                .object(object.id.to_string()),
            );
            return None;
        }
    };
    let dir = secure_join(root, &path);
    if dir.is_dir() {
        Some(dir)
    } else {
        diagnostics.push(
            Diagnostic::warning(format!(
                "`spec.path` `{path}` does not exist in the repository"
            ))
            .at(object.location())
            .object(object.id.to_string()),
        );
        None
    }
}

/// Files under a Helm chart's `templates/` are Go templates, not YAML; they are read when the
/// chart is rendered.
fn in_chart_templates(file: &Path, root: &Path) -> bool {
    // `file` lies under `root`, so its ancestors down to `root` are those at least as long; a
    // length test spares comparing every ancestor with `root` component by component.
    let root_length = root.as_os_str().len();
    file.ancestors()
        .skip(1)
        .take_while(|dir| dir.as_os_str().len() >= root_length)
        .any(|dir| {
            dir.file_name().is_some_and(|n| n == "templates")
                && dir.parent().is_some_and(|p| p.join("Chart.yaml").is_file())
        })
}

fn find_git_root(start: &Path) -> Option<PathBuf> {
    start
        .ancestors()
        .find(|dir| dir.join(".git").exists())
        .map(Path::to_path_buf)
}

/// The Kustomization that applies each object: among the Kustomizations whose
/// `spec.path` (and what its kustomization files pull in, transitively) covers the file, the one
/// that covers it most narrowly. Ties go to the smallest id, so the answer never depends on order.
fn parents(
    flux_objects: &[FluxObject],
    data_objects: &[Object],
    followed: &BTreeMap<ResourceId, PathBuf>,
    refs: &kustomization_refs::KustomizationRefs,
    root: &Path,
) -> BTreeMap<(PathBuf, ResourceId), ResourceId> {
    // Every path some Kustomization covers, with the Kustomizations covering it. A Kustomization
    // of another repository applies none of the working tree's files, whatever its path says.
    let foreign = other_repository_kustomizations(flux_objects, root);
    let mut covering: foldhash::HashMap<PathBuf, Vec<&ResourceId>> = foldhash::HashMap::default();
    for (id, dir) in followed.iter().filter(|(id, _)| !foreign.contains(*id)) {
        for path in reachable(dir, refs) {
            covering.entry(path).or_default().push(id);
        }
    }
    let mut parents = BTreeMap::new();
    for object in flux_objects.iter().map(|f| &f.object).chain(data_objects) {
        let file = root.join(&object.file);
        // The nearest covered ancestor (or the file itself) decides; ties go to the smallest id.
        let parent = file.ancestors().find_map(|path| {
            covering
                .get(path)?
                .iter()
                .filter(|id| ***id != object.id)
                .min()
                .copied()
        });
        if let Some(parent) = parent {
            parents.insert((object.file.clone(), object.id.clone()), parent.clone());
        }
    }
    parents
}

/// Kustomizations whose source is a GitRepository defined in the repository with a URL that is
/// not the working tree's own remote.
fn other_repository_kustomizations(
    flux_objects: &[FluxObject],
    root: &Path,
) -> BTreeSet<ResourceId> {
    let remote = git_remote::git_remote(root);
    let elsewhere = |kind: &str, name: &str, namespace: &str| {
        if kind != "GitRepository" || (name == BOOTSTRAP_NAME && namespace == BOOTSTRAP_NAMESPACE) {
            return false;
        }
        flux_objects.iter().any(|f| {
            f.object.id.kind == "GitRepository"
                && f.name() == name
                && f.namespace() == namespace
                && f.as_source()
                    .and_then(|s| s.url.as_deref())
                    .is_some_and(|url| {
                        !remote
                            .as_deref()
                            .is_some_and(|r| git_remote::same_repository(r, url))
                    })
        })
    };
    flux_objects
        .iter()
        .filter(|f| {
            f.as_kustomization().is_some_and(|k| {
                let namespace = if k.source_ref.namespace.is_empty() {
                    f.namespace()
                } else {
                    &k.source_ref.namespace
                };
                elsewhere(&k.source_ref.kind, &k.source_ref.name, namespace)
            })
        })
        .map(|f| f.object.id.clone())
        .collect()
}

/// `dir` and every local path its kustomization files pull in, transitively.
fn reachable(dir: &Path, refs: &kustomization_refs::KustomizationRefs) -> BTreeSet<PathBuf> {
    let mut seen = BTreeSet::new();
    let mut queue = vec![dir.to_path_buf()];
    while let Some(path) = queue.pop() {
        if !seen.insert(path.clone()) {
            continue;
        }
        for (kustomization_dir, inputs) in refs.inputs_of_dir.range(path.clone()..) {
            if !kustomization_dir.starts_with(&path) {
                break;
            }
            queue.extend(inputs.iter().cloned());
        }
    }
    seen
}
