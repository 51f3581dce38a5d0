//! Discovery: walks a repository the way Flux's source-controller would see it, parses every YAML
//! file once, and collects Flux objects, ConfigMaps and Secrets. Starting from `--path`, it follows
//! each Kustomization's `spec.path` until nothing new appears, so the entry may be as narrow as a
//! cluster's directory.
//!
//! Not for: building kustomizations or rendering anything. The objects found here are the ones
//! written in files; what Flux would apply comes from the controllers.

mod bootstrap_instance;
pub mod clusters;
pub mod git_remote;
mod implied_bootstrap;
mod kustomization_refs;
mod load;
mod paths;
mod sourceignore;
mod walk;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use offlux_sync::MutexExt as _;

use crate::controllers::source_map::{self, SourceMapping};
use crate::diagnostic::Diagnostic;
use crate::fs_facts::FsFacts;
use crate::model::{FluxKind, FluxObject, Object, ResourceId};
use crate::yaml::{Node, ParsedFiles};

use crate::fs_facts::path_bytes;
pub(crate) use implied_bootstrap::note as implied_bootstrap_note;
use load::Keep;
pub use load::{is_kustomization_file, ParseCache, KUSTOMIZATION_FILE_NAMES};
pub use paths::{apply_variable_defaults, secure_join};
use paths::{BytePath, PathKey};

/// The GitRepository Flux bootstraps from; it stands for the working tree.
pub(crate) const BOOTSTRAP_NAME: &str = "flux-system";
pub(crate) const BOOTSTRAP_NAMESPACE: &str = "flux-system";

#[derive(Clone, Debug)]
pub struct Options {
    /// Where to start: the repository, or a directory inside it.
    pub path: PathBuf,
    /// The repository root; by default the nearest ancestor of `path` holding `.git`, else `path`.
    pub root: Option<PathBuf>,
    /// Files larger than this are reported and not read.
    pub max_file_size: u64,
    /// Sources read from local directories (`--sources`): a Kustomization of a mapped source has
    /// its `spec.path` followed in that directory, when it lies inside the root.
    pub sources: Vec<SourceMapping>,
    /// The run whose budget the files' alias expansion is charged to (`ParseOptions::run`).
    pub budget: Option<Arc<crate::budget::RunBudget>>,
    /// Files already parsed by another discovery of the same trees, and where this one's go.
    pub parse_cache: Option<Arc<load::ParseCache>>,
}

impl Options {
    pub fn new(path: impl Into<PathBuf>) -> Self {
        Options {
            path: path.into(),
            root: None,
            max_file_size: 16 * 1024 * 1024,
            sources: Vec::new(),
            budget: None,
            parse_cache: None,
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
    /// Objects of a Flux kind that are not valid Flux objects (a spec that does not read, an
    /// `apiVersion` the kind's CRD does not serve), sorted by id then file: the run seeds those
    /// nothing applies, so their rows fail with the reason (`diagnostics` has it too).
    pub invalid_flux: Vec<Object>,
    /// ConfigMaps and Secrets written in files no cluster of the repository applies (a
    /// bootstrap's own, under `bootstrap/`): what set up the cluster applied them, so a lookup
    /// nothing in the run answers may read them (see `held_outside_the_run`). Filled by the
    /// caller that knows the clusters; empty from [`discover`].
    pub held_data: Vec<Object>,
    /// Objects in files that kustomizations use as patches: partial objects, never applied as such.
    pub patch_fragments: Vec<Object>,
    /// Every YAML file Flux would see under the root (ignore rules applied), absolute, sorted.
    pub yaml_files: Vec<PathBuf>,
    pub bootstrap: BootstrapSource,
    /// The Kustomization that applies each object (keyed by file and id), as far as a static
    /// reading can tell. Objects absent here are applied by nothing in the repository: they are the
    /// entry points. Rendering gives the exact answer.
    pub parents: foldhash::HashMap<(PathBuf, ResourceId), ResourceId>,
    /// Files (relative to the root) of the objects no Kustomization of the repository applies
    /// that the entry directory's own kustomization file does not list: the Kustomization a
    /// bootstrap makes for the entry builds that file, so they are not applied.
    pub unlisted_at_entry: foldhash::HashSet<PathBuf>,
    /// The bootstrap's Kustomization for the entry directory, added because the repository
    /// writes nothing that applies it, the directory has a kustomization file and holds a
    /// Kustomization of its own (see `implied_bootstrap`); it is among `flux_objects`.
    pub implied_bootstrap: Option<ResourceId>,
    /// What each file leads the walk to, as read from the file itself (never merged by id): a
    /// Flux object's followed `spec.path` (or FluxInstance sync path) and a kustomization's
    /// inputs from elsewhere. Absolute paths, sorted; the cluster entry points are read from it.
    pub applies: Vec<clusters::Applies>,
    /// Every file discovery parsed, for the builds that read them again.
    pub parsed_files: Arc<ParsedFiles>,
    /// What the walk found each path to be, for the builds that ask again.
    pub fs_facts: Arc<FsFacts>,
    /// The run budget the files' alias expansion was charged to (`Options::budget`): the run
    /// over this repository goes on charging it.
    pub budget: Option<Arc<crate::budget::RunBudget>>,
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

/// The repository root discovery would use for `options`: `options.root`, else the nearest
/// ancestor of `options.path` holding `.git`, else `options.path` (all canonical).
pub fn repository_root(options: &Options) -> Result<PathBuf, DiscoveryError> {
    locate(options).map(|(_, root)| root)
}

/// The canonical entry directory and repository root of `options`.
fn locate(options: &Options) -> Result<(PathBuf, PathBuf), DiscoveryError> {
    let canonical = |path: &Path| {
        crate::fsio::canonicalize(path).map_err(|source| DiscoveryError::Path {
            path: path.to_path_buf(),
            source,
        })
    };
    let entry = canonical(&options.path)?;
    if !crate::fsio::backend::kind(&entry).is_ok_and(|k| k == crate::fsio::FileKind::Directory) {
        return Err(DiscoveryError::NotADirectory { path: entry });
    }
    let root = match &options.root {
        Some(root) => canonical(root)?,
        None => find_git_root(&entry).unwrap_or_else(|| entry.clone()),
    };
    if !entry.starts_with(&root) {
        return Err(DiscoveryError::OutsideRoot { path: entry, root });
    }
    Ok((entry, root))
}

/// How discovery reads each file.
fn load_options(options: &Options) -> load::LoadOptions {
    load::LoadOptions {
        max_size: options.max_file_size,
        parse: crate::yaml::ParseOptions {
            run: options.budget.clone(),
            ..crate::yaml::ParseOptions::default()
        },
        cache: options.parse_cache.clone(),
    }
}

pub fn discover(options: &Options) -> Result<Repository, DiscoveryError> {
    // Its threads start while the root is found, not when the first files wait for them.
    crate::parallel::start_pool();
    let (entry, root) = locate(options)?;

    let Walked {
        listing,
        mut loaded,
        mut file_refs,
        fs_facts,
    } = walked(&root, options);
    let mut diagnostics = listing.diagnostics;
    let mut path_not_found = false;
    // Files the walk did not hand over (those in chart templates) are read here if they are
    // needed after all. Each result goes to its file's slot, so nothing downstream depends on
    // the threads' timing.
    let load_all = |files: &[usize], keep: &dyn Fn(&Path) -> Keep, loaded: &mut LoadedFiles| {
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
                &load_options(options),
                keep,
            )
        });
        for ((i, _), file) in missing.into_iter().zip(results) {
            loaded[i] = Some(Arc::new(file));
        }
    };

    // Kustomization files anywhere decide which files are patches, wherever those are used.
    let mut refs = kustomization_refs::KustomizationRefs::default();
    let kustomization_files: Vec<usize> = (0..listing.yaml_files.len())
        .filter(|&i| is_kustomization_file(&listing.yaml_files[i]))
        .collect();
    load_all(&kustomization_files, &|_| Keep::All, &mut loaded);
    for i in kustomization_files {
        let read_now = || {
            let dir = listing.yaml_files[i].parent()?;
            let node = loaded[i].as_ref()?.kustomization()?;
            Some(kustomization_refs::FileRefs::of(dir, node))
        };
        if let Some(file) = file_refs[i].take().or_else(read_now) {
            refs.add(file);
        }
    }

    // Patch files are kept whole: their partial objects are reported as fragments.
    for BytePath(file) in &refs.non_resource_files {
        if let Ok(i) = listing.yaml_files.binary_search(file) {
            if let (Some(loaded), false) = (loaded[i].as_mut(), is_kustomization_file(file)) {
                let loaded = Arc::make_mut(loaded);
                load::keep_again(loaded, file, &paths::relative_to(file, &root), Keep::All);
            }
        }
    }
    let keep = |file: &Path| {
        if refs.non_resource_files.contains(path_bytes(file)) {
            Keep::All
        } else {
            Keep::FluxAndData
        }
    };

    let working_tree = WorkingTreeSources::read(
        &root,
        &options.sources,
        &listing.yaml_files,
        &loaded,
        &refs,
        &fs_facts,
    );

    // A Flux object in a file no Flux build reads draws no warning about its `spec.path`: its
    // directory has a kustomization file (Flux builds it as written) and no kustomization lists
    // the file (an `apps-old.yaml` kept beside the entry).
    let listed: foldhash::HashSet<&Path> = (refs.inputs_of_dir.values())
        .flatten()
        .map(PathBuf::as_path)
        .collect();
    let never_built = |file: &Path| {
        let kustomized = file.parent().is_some_and(|dir| {
            KUSTOMIZATION_FILE_NAMES
                .iter()
                .any(|name| listing.yaml_files.binary_search(&dir.join(name)).is_ok())
        });
        kustomized && !is_kustomization_file(file) && !listed.contains(file)
    };

    // Directories are walked whole; kustomizations also pull in the files and directories they
    // list from elsewhere (`resources: [../base/app]`), and Kustomizations their `spec.path`.
    // Paths are handled as `PathKey`s: comparing `Path`s component by component was most of this
    // loop's time.
    let mut walked: foldhash::HashSet<PathKey> = foldhash::HashSet::default();
    let mut single_files: foldhash::HashSet<PathKey> = foldhash::HashSet::default();
    let mut included = vec![false; listing.yaml_files.len()];
    // In path order, so a directory comes before what lies under it.
    let mut pending: BTreeMap<PathKey, PathBuf> =
        BTreeMap::from([(PathKey::of(&entry), entry.clone())]);
    // By id, the `spec.path` of the first definition (by file) of each Kustomization, the one the
    // run uses when an id is defined more than once; and that definition's file.
    let mut followed: BTreeMap<ResourceId, (PathBuf, PathBuf)> = BTreeMap::new();
    // FluxInstances a bootstrap installs from a HelmRelease's values: entry points of their own.
    let mut bootstrap_instances: Vec<FluxObject> = Vec::new();
    let mut applies: Vec<clusters::Applies> = Vec::new();
    while let Some((key, target)) = pending.pop_first() {
        if key.self_and_ancestors().any(|k| walked.contains(k)) || single_files.contains(&key) {
            continue;
        }
        if !target.starts_with(&root) {
            continue;
        }
        let files: Vec<usize> = if fs_facts.is_dir(&target) {
            // The listing is sorted by path components, so a directory's files are contiguous.
            let start = listing.yaml_files.partition_point(|f| *f < target);
            let files = (start..listing.yaml_files.len())
                .take_while(|&i| crate::fs_facts::is_within(&listing.yaml_files[i], &target))
                .filter(|&i| !in_chart_templates(&listing.yaml_files[i], &root))
                .collect();
            walked.insert(key);
            files
        } else {
            single_files.insert(key);
            listing
                .yaml_files
                .binary_search(&target)
                .into_iter()
                .collect()
        };
        for &i in &files {
            included[i] = true;
        }
        load_all(&files, &keep, &mut loaded);
        for i in files {
            let file = &listing.yaml_files[i];
            let Some(file_load) = loaded[i].as_ref() else {
                continue;
            };
            for (object, flux) in file_load.objects.iter().zip(&file_load.flux) {
                let Some(flux) = flux.as_ref() else {
                    continue;
                };
                // A HelmRelease of the `flux-instance` chart stands for the FluxInstance a
                // bootstrap installs with its values; that instance's sync is followed.
                let generated = |configmap: &str, key: &str| {
                    generated_values(file, configmap, key, &listing.yaml_files, &loaded)
                };
                let instance = bootstrap_instance::from_helm_release(flux, &generated);
                let (follower, object) = match &instance {
                    Some(instance) => (instance, &instance.object),
                    None => (flux, object),
                };
                let namespace_hint = refs
                    .namespace_of_file
                    .get(path_bytes(file))
                    .map(|n| n.to_string());
                let mut said = Vec::new();
                let mut not_found = false;
                let next = followed_path(
                    follower,
                    namespace_hint.as_deref(),
                    &root,
                    &working_tree,
                    &fs_facts,
                    &mut said,
                    &mut not_found,
                );
                if !never_built(file) {
                    diagnostics.extend(said);
                    path_not_found |= not_found;
                }
                let applied = next
                    .clone()
                    .or_else(|| working_tree.perhaps_here(follower, &fs_facts));
                if let Some(to) = applied {
                    applies.push(clusters::Applies {
                        from: file.clone(),
                        to,
                        via: clusters::via_of(follower),
                    });
                }
                if let Some(next) = next {
                    // The id the object will have: with the namespace its kustomization gives it,
                    // as the objects themselves get it below.
                    let mut id = object.id.clone();
                    if id.namespace.is_empty() {
                        if let Some(namespace) = refs.namespace_of_file.get(path_bytes(file)) {
                            id.namespace = namespace.into();
                        }
                    }
                    let first = followed
                        .get(&id)
                        .is_none_or(|(defined_in, _)| object.file < *defined_in);
                    if first {
                        followed.insert(id, (object.file.clone(), next.clone()));
                    }
                    pending.entry(PathKey::of(&next)).or_insert(next);
                }
                if let Some(instance) = instance {
                    bootstrap_instances.push(instance);
                }
            }
            if file_load.kustomization().is_some() {
                let inputs = file
                    .parent()
                    .and_then(|dir| refs.inputs_of_dir.get(&PathKey::of(dir)));
                for input in inputs.into_iter().flatten() {
                    applies.push(clusters::Applies {
                        from: file.clone(),
                        to: input.clone(),
                        via: clusters::Via::Input,
                    });
                    pending
                        .entry(PathKey::of(input))
                        .or_insert_with(|| input.clone());
                }
            }
        }
    }

    // Whether the entry's kustomization file is one the bootstrap's Kustomization builds: no
    // Kustomization or FluxInstance read here applies the entry or a directory above it.
    let entry_applied = followed.values().any(|(_, dir)| entry.starts_with(dir));
    let implied_file = if entry_applied {
        None
    } else {
        let kind_of = |i: usize| {
            let node = loaded[i].as_ref()?.kustomization()?;
            node.get("kind").and_then(Node::as_str).map(str::to_string)
        };
        implied_bootstrap::entry_kustomization_file(&entry, &listing.yaml_files, &kind_of)
            .map(|file| paths::relative_to(file, &root))
    };

    // Sized up front: a Flux object is over 600 bytes, and growing by doubling copied them all.
    let (flux_count, object_count) = loaded.iter().flatten().fold((0, 0), |(f, o), file| {
        (
            f + file.flux.iter().flatten().count(),
            o + file.objects.len(),
        )
    });
    let mut flux_objects = Vec::with_capacity(flux_count);
    let mut data_objects = Vec::with_capacity(object_count - flux_count);
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
        if let Some(documents) = &file.documents {
            parsed_files.insert(path.clone(), documents.clone());
        }
        if !included {
            continue;
        }
        // Shared with the walk the command keeps: its objects copied, as this discovery takes them.
        let file = Arc::try_unwrap(file).unwrap_or_else(|shared| load::LoadedFile::clone(&shared));
        stats.yaml_files += 1;
        // A generator's input is data kustomize reads as text: a values file that is not a
        // Kubernetes object (or not YAML at all) is no finding.
        if refs.generator_inputs.contains(path_bytes(path)) {
            stats.patch_files += 1;
            patch_fragments.extend(file.objects);
            continue;
        }
        diagnostics.extend(file.diagnostics);
        if !file.parsed {
            stats.unparsable_files += 1;
            continue;
        }
        stats.sops_documents += file.sops_documents;
        if refs.non_resource_files.contains(path_bytes(path)) {
            stats.patch_files += 1;
            patch_fragments.extend(file.objects);
            continue;
        }
        let namespace_hint = refs.namespace_of_file.get(path_bytes(path));
        let with_namespace = |id: &mut ResourceId| {
            if id.namespace.is_empty() {
                if let Some(namespace) = namespace_hint {
                    id.namespace = namespace.into();
                }
            }
        };
        for (mut object, flux) in file.objects.into_iter().zip(file.flux) {
            if let Some(mut flux) = flux {
                // Read where the file was parsed; the spec does not depend on the namespace.
                with_namespace(&mut flux.object.id);
                flux_objects.push(flux);
                continue;
            }
            with_namespace(&mut object.id);
            if object.id.group.is_empty()
                && matches!(object.id.kind.as_str(), "ConfigMap" | "Secret")
            {
                data_objects.push(object);
            } else if FluxKind::from_group_kind(&object.id.group, &object.id.kind).is_some() {
                // Read again for its error, which names the object with its namespace.
                others.push(object);
            }
        }
    }
    // Without `.git` the root is a guess: the entry itself. Paths written from the checkout's
    // top then point nowhere, and the warnings above would not say why.
    if path_not_found && options.root.is_none() && find_git_root(&entry).is_none() {
        diagnostics.push(Diagnostic::warning(format!(
            "no `.git` was found at or above `{}`, so it was taken as the repository root that `spec.path` values are read from; if it is part of a larger checkout, pass `--root` with the checkout's top",
            entry.display()
        )));
    }
    let mut invalid_flux = Vec::new();
    for object in others {
        if let Err(error) = FluxObject::from_object(&object) {
            diagnostics.push(error.to_diagnostic());
            invalid_flux.push(object);
        }
    }
    invalid_flux.sort_by(|a, b| (&a.id, &a.file).cmp(&(&b.id, &b.file)));
    flux_objects
        .sort_by(|a, b| (&a.object.id, &a.object.file).cmp(&(&b.object.id, &b.object.file)));
    data_objects.sort_by(|a, b| (&a.id, &a.file).cmp(&(&b.id, &b.file)));
    diagnostics.sort();
    diagnostics.dedup();

    let bootstrap_written = flux_objects.iter().any(|f| {
        f.kind == FluxKind::FluxInstance
            || (f.kind == FluxKind::Kustomization
                && f.name() == BOOTSTRAP_NAME
                && f.namespace() == BOOTSTRAP_NAMESPACE)
    }) || !bootstrap_instances.is_empty();
    // And only at a cluster's directory: one that holds a Kustomization of its own (a directory
    // of releases or manifests is some Kustomization's path, not a bootstrap's).
    let entry_relative = paths::relative_to(&entry, &root);
    let a_cluster = flux_objects
        .iter()
        .any(|f| f.kind == FluxKind::Kustomization && f.object.file.starts_with(&entry_relative));
    let implied = implied_file
        .filter(|_| !bootstrap_written && a_cluster)
        .and_then(|file| implied_bootstrap::kustomization(&entry_relative, &file));
    let implied_bootstrap = implied.as_ref().map(|k| k.object.id.clone());
    if let Some(implied) = implied {
        diagnostics.push(
            Diagnostic::note(implied_bootstrap::note(&entry_relative))
                .at(implied.object.location())
                .object(implied.object.id.to_string()),
        );
        followed.insert(
            implied.object.id.clone(),
            (implied.object.file.clone(), entry.clone()),
        );
        let at = flux_objects.partition_point(|f| {
            (&f.object.id, &f.object.file) < (&implied.object.id, &implied.object.file)
        });
        flux_objects.insert(at, implied);
    }
    let mut followed: BTreeMap<ResourceId, PathBuf> = followed
        .into_iter()
        .map(|(id, (_, dir))| (id, dir))
        .collect();
    let mut parents = parents(
        &flux_objects,
        &data_objects,
        &invalid_flux,
        &followed,
        &refs,
        &root,
    );
    // A namespace-less object takes its Kustomization's `targetNamespace`, as the build gives it;
    // the parents are read again for the ids that changed.
    if take_target_namespaces(
        &mut flux_objects,
        &mut data_objects,
        &parents,
        &mut followed,
    ) {
        flux_objects
            .sort_by(|a, b| (&a.object.id, &a.object.file).cmp(&(&b.object.id, &b.object.file)));
        data_objects.sort_by(|a, b| (&a.id, &a.file).cmp(&(&b.id, &b.file)));
        parents = self::parents(
            &flux_objects,
            &data_objects,
            &invalid_flux,
            &followed,
            &refs,
            &root,
        );
    }
    let unlisted_at_entry = unlisted_at_entry(
        &entry,
        &refs,
        &root,
        (flux_objects.iter().map(|f| &f.object))
            .chain(&data_objects)
            .chain(&invalid_flux)
            .filter(|o| !parents.contains_key(&(o.file.clone(), o.id.clone()))),
    );
    // Added after the parents are known: nothing in the repository applies them.
    for instance in bootstrap_instances {
        if flux_objects
            .iter()
            .any(|f| f.object.id == instance.object.id)
        {
            continue;
        }
        diagnostics.push(
            Diagnostic::note(format!(
                "{} is the FluxInstance a bootstrap installs from this HelmRelease's `values.instance` (the `flux-instance` chart)",
                instance.object.id
            ))
            .at(instance.object.location())
            .object(instance.object.id.to_string()),
        );
        flux_objects.push(instance);
    }
    flux_objects
        .sort_by(|a, b| (&a.object.id, &a.object.file).cmp(&(&b.object.id, &b.object.file)));
    diagnostics.sort();

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
        budget: options.budget.clone(),
        entry: paths::relative_to(&entry, &root),
        root,
        flux_objects,
        data_objects,
        invalid_flux,
        held_data: Vec::new(),
        patch_fragments,
        yaml_files: listing.yaml_files,
        bootstrap,
        parents,
        unlisted_at_entry,
        implied_bootstrap,
        applies: {
            applies.sort();
            applies.dedup();
            applies
        },
        parsed_files: Arc::new(parsed_files),
        fs_facts,
        stats,
        diagnostics,
    })
}

/// One walk of a root and the files it loaded (see [`walk_and_load`]), with what it found each
/// path to be. Kept in the command's [`ParseCache`], so that another discovery of the same root
/// (each cluster after its path) starts from it instead of walking and sorting every file again.
#[derive(Clone)]
pub(crate) struct Walked {
    listing: walk::Listing,
    loaded: LoadedFiles,
    file_refs: Vec<Option<kustomization_refs::FileRefs>>,
    fs_facts: Arc<FsFacts>,
}

/// The files a walk loaded, by listing index; shared with the walk kept in the command's cache,
/// so a discovery copies only the files it changes and the objects of the files it includes.
type LoadedFiles = Vec<Option<Arc<load::LoadedFile>>>;

/// The walk of `root` with its files loaded: the command's earlier one when there is one (this
/// run's budget charged what parsing its files charged that one's; a file that does not fit, or
/// whose parse failed, is read again under this run's), else a new one.
fn walked(root: &Path, options: &Options) -> Walked {
    let limits = load_options(options);
    let cache = options.parse_cache.as_ref();
    if let Some(earlier) = cache.and_then(|cache| cache.walk_of(root, limits.max_size)) {
        let mut walked = Walked::clone(&earlier);
        let files = (walked.listing.yaml_files.iter())
            .zip(&mut walked.loaded)
            .zip(&mut walked.file_refs);
        for ((path, file), refs) in files {
            let Some(file) = file.as_mut() else {
                continue;
            };
            let charged = (file.alias_nodes)
                .is_some_and(|nodes| load::charge_parse(options.budget.as_ref(), nodes));
            if !charged {
                *file = Arc::new(load_one(path, root, &limits));
                *refs = file_refs_of(path, file);
            }
        }
        return walked;
    }
    let fs_facts = FsFacts::default();
    let (listing, loaded, file_refs) = walk_and_load(root, &fs_facts, &limits);
    let walked = Walked {
        listing,
        loaded,
        file_refs,
        fs_facts: Arc::new(fs_facts),
    };
    if let Some(cache) = cache {
        cache.keep_walk(root, limits.max_size, Arc::new(walked.clone()));
    }
    walked
}

/// What the kustomization file at `path` names, when it is one that read.
fn file_refs_of(path: &Path, file: &load::LoadedFile) -> Option<kustomization_refs::FileRefs> {
    let (node, dir) = file.kustomization().zip(path.parent())?;
    Some(kustomization_refs::FileRefs::of(dir, node))
}

/// A file as the walk loads it: a kustomization file whole, any other for its Flux objects and data.
fn load_one(path: &Path, root: &Path, limits: &load::LoadOptions) -> load::LoadedFile {
    let keep = if is_kustomization_file(path) {
        Keep::All
    } else {
        Keep::FluxAndData
    };
    load::load_file(path, paths::relative_to(path, root), limits, keep)
}

/// Walks the repository and, while the walk goes on, reads and parses each YAML file it finds on
/// the pool's other threads; the walking thread joins in once the walk is done. Kustomization files keep
/// every object, other files their Flux objects, ConfigMaps and Secrets (a patch file is read
/// again for the rest once it is known to be one). The loaded files are by listing index.
fn walk_and_load(
    root: &Path,
    facts: &FsFacts,
    limits: &load::LoadOptions,
) -> (
    walk::Listing,
    LoadedFiles,
    Vec<Option<kustomization_refs::FileRefs>>,
) {
    let load = |index: usize, path: &Path| {
        let file = load_one(path, root, limits);
        let refs = file_refs_of(path, &file);
        (index, file, refs)
    };
    // Files go to the pool a few at a time: a task per file cost more than reading some of them.
    const BATCH: usize = 4;
    // Kept batch by batch, so that no loaded file is moved by a growing vector before its place.
    let results = std::sync::Mutex::new(Vec::new());
    let load_batch = |batch: Vec<(usize, PathBuf)>| {
        let files: Vec<_> = batch
            .into_iter()
            .map(|(index, path)| load(index, &path))
            .collect();
        {
            let mut results = results.locked();
            results.push(files);
        }
    };
    let load_batch = &load_batch;
    let listing = crate::parallel::scope(|scope| {
        let mut batch = Vec::with_capacity(BATCH);
        let listing = walk::list_yaml_files(root, facts, &mut |index, path| {
            batch.push((index, path.to_path_buf()));
            if batch.len() == BATCH {
                let full = std::mem::replace(&mut batch, Vec::with_capacity(BATCH));
                scope.spawn(move |_| load_batch(full));
            }
        });
        scope.spawn(move |_| load_batch(batch));
        listing
    });
    // A poisoned lock means a load panicked, and the scope has passed that panic on already.
    let results = results.into_recovered();
    let mut loaded: LoadedFiles = Vec::new();
    loaded.resize_with(listing.yaml_files.len(), || None);
    let mut file_refs = Vec::new();
    file_refs.resize_with(listing.yaml_files.len(), || None);
    for (index, file, refs) in results.into_iter().flatten() {
        loaded[index] = Some(Arc::new(file));
        file_refs[index] = refs;
    }
    (listing, loaded, file_refs)
}

/// The directory a Kustomization's `spec.path` names in the working tree, when discovery should
/// walk it: the source is a GitRepository (the working tree, or a repository aliased to it) and
/// the path resolves without cluster-only variables.
fn followed_path(
    flux: &FluxObject,
    namespace_hint: Option<&str>,
    root: &Path,
    working_tree: &WorkingTreeSources<'_>,
    fs_facts: &FsFacts,
    diagnostics: &mut Vec<Diagnostic>,
    path_not_found: &mut bool,
) -> Option<PathBuf> {
    let object = &flux.object;
    if let Some(instance) = flux.as_flux_instance() {
        // Followed only when the sync path is in the working tree; a sync from elsewhere is not
        // this repository's concern.
        let path = apply_variable_defaults(&instance.sync.as_ref()?.path).ok()?;
        let dir = secure_join(root, &path);
        crate::fsio::locate(fs_facts, &dir, Some(root)).ok()?;
        return fs_facts.is_dir(&dir).then_some(dir);
    }
    let kustomization = flux.as_kustomization()?;
    // A source's path belongs to that source: one that is not this working tree (or a directory
    // in it the user mapped the source to) applies nothing here, whatever its path says.
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
    let base = working_tree.base_of(flux, namespace_hint, kustomization, &path)?;
    let dir = secure_join(&base, &path);
    if let Err(e) = crate::fsio::locate(fs_facts, &dir, Some(root)) {
        if let crate::fsio::ReadErrorKind::Outside { real, .. } = e.kind {
            diagnostics.push(
                Diagnostic::warning(format!(
                    "`spec.path` `{path}` leads outside the repository (to `{}`); not followed",
                    real.display()
                ))
                .at(object.location())
                .object(object.id.to_string()),
            );
            return None;
        }
    }
    if fs_facts.is_dir(&dir) {
        Some(dir)
    } else {
        let place = if base == root {
            "the repository".to_owned()
        } else {
            format!("`{}`", paths::relative_to(&base, root).display())
        };
        diagnostics.push(
            Diagnostic::warning(format!("`spec.path` `{path}` does not exist in {place}"))
                .at(object.location())
                .object(object.id.to_string()),
        );
        *path_not_found |= base == root;
        None
    }
}

/// Which sources are this working tree, as far as a static reading can tell (the runtime decides
/// the same way, in `controllers::source`): the bootstrap `flux-system` GitRepository; a source
/// mapped with `--sources` to a directory inside the root; a GitRepository whose URL is the
/// working tree's git remote, or, with a path below the root, that no file defines (the run
/// reports it; a sync a FluxInstance or ResourceSet generates is not written).
struct WorkingTreeSources<'a> {
    root: &'a Path,
    mappings: &'a [SourceMapping],
    remote: Option<String>,
    /// GitRepository namespaces and URLs by name, from every file of the repository: a
    /// Kustomization may be met before its source.
    git_urls: BTreeMap<String, Vec<(String, String)>>,
    /// The sources FluxInstances generate that the run reads from the working tree.
    synced: Vec<SyncedSource>,
}

/// A source other than a GitRepository that a FluxInstance's `spec.sync` generates and whose
/// files the run takes from the working tree, as `Runtime::synced_resolution` decides: its URL
/// is this repository's remote, or its sync path is a directory here. (A GitRepository is
/// judged as every GitRepository is, by name and URL: see `base_of`.)
struct SyncedSource {
    kind: String,
    /// The instance's namespace: as written, else its kustomization's, else `flux-system` (the
    /// namespace the run gives an instance written without one).
    namespace: String,
    /// `spec.sync.name`; the instance's namespace when unset (the operator's `sync_name`).
    name: Option<String>,
}

impl SyncedSource {
    /// Whether a `sourceRef` of `kind` to `name` in `namespace` names this source.
    fn is(&self, kind: &str, namespace: &str, name: &str) -> bool {
        self.kind == kind
            && (namespace.is_empty() || namespace == self.namespace)
            && self.name.as_deref().unwrap_or(&self.namespace) == name
    }
}

impl<'a> WorkingTreeSources<'a> {
    fn read(
        root: &'a Path,
        mappings: &'a [SourceMapping],
        yaml_files: &[PathBuf],
        loaded: &[Option<Arc<load::LoadedFile>>],
        refs: &kustomization_refs::KustomizationRefs,
        fs_facts: &FsFacts,
    ) -> Self {
        let remote = git_remote::git_remote(root);
        let mut git_urls: BTreeMap<String, Vec<(String, String)>> = BTreeMap::new();
        let mut synced = Vec::new();
        for (file, file_load) in yaml_files.iter().zip(loaded) {
            for flux in file_load.iter().flat_map(|l| l.flux.iter().flatten()) {
                let mut namespace = flux.namespace().to_owned();
                if namespace.is_empty() {
                    if let Some(hint) = refs.namespace_of_file.get(path_bytes(file)) {
                        namespace = hint.to_string();
                    }
                }
                let generated = |configmap: &str, key: &str| {
                    generated_values(file, configmap, key, yaml_files, loaded)
                };
                let instance = match flux.kind {
                    FluxKind::FluxInstance => Some(flux.clone()),
                    FluxKind::HelmRelease => {
                        bootstrap_instance::from_helm_release(flux, &generated)
                    }
                    _ => None,
                };
                if let Some(instance) = instance {
                    let sync = instance.as_flux_instance().and_then(|i| i.sync.as_ref());
                    if let Some(sync) = sync {
                        let here = remote
                            .as_deref()
                            .is_some_and(|remote| git_remote::same_repository(remote, &sync.url))
                            || synced_path_here(root, &sync.path, fs_facts);
                        if here && sync.kind != "GitRepository" {
                            let namespace = match (instance.namespace(), namespace.as_str()) {
                                ("", "") => BOOTSTRAP_NAMESPACE.to_owned(),
                                ("", hinted) => hinted.to_owned(),
                                (written, _) => written.to_owned(),
                            };
                            synced.push(SyncedSource {
                                kind: sync.kind.clone(),
                                namespace,
                                name: sync.name.clone(),
                            });
                        }
                    }
                }
                if flux.kind != FluxKind::GitRepository {
                    continue;
                }
                let url = flux
                    .as_source()
                    .and_then(|s| s.url.clone())
                    .unwrap_or_default();
                git_urls
                    .entry(flux.name().to_owned())
                    .or_default()
                    .push((namespace, url));
            }
        }
        WorkingTreeSources {
            root,
            mappings,
            remote,
            git_urls,
            synced,
        }
    }

    /// The directory a Kustomization not followed would apply if its GitRepository were this
    /// repository, when nothing says it is not: the working tree has no git remote to compare
    /// with the source's URL (a copy without `.git`), and `spec.path` names a directory here other
    /// than the root (a source's root is its own, repro c4). Only the cluster entry points are
    /// read from this (what a self-managing `flux-cluster` Kustomization would apply); the walk
    /// does not follow it.
    fn perhaps_here(&self, flux: &FluxObject, fs_facts: &FsFacts) -> Option<PathBuf> {
        let kustomization = flux.as_kustomization()?;
        if self.remote.is_some() || kustomization.source_ref.kind != "GitRepository" {
            return None;
        }
        let path = apply_variable_defaults(&kustomization.path).ok()?;
        let dir = secure_join(self.root, &path);
        let defined_here = self.git_urls.contains_key(&kustomization.source_ref.name);
        if !defined_here || dir == self.root {
            return None;
        }
        crate::fsio::locate(fs_facts, &dir, Some(self.root)).ok()?;
        fs_facts.is_dir(&dir).then_some(dir)
    }

    /// The directory `kustomization`'s `spec.path` is relative to, when its source is read from
    /// the working tree; `None` when the source lies elsewhere.
    fn base_of(
        &self,
        flux: &FluxObject,
        namespace_hint: Option<&str>,
        kustomization: &crate::model::Kustomization,
        path: &str,
    ) -> Option<PathBuf> {
        let reference = &kustomization.source_ref;
        let own = match flux.namespace() {
            "" => namespace_hint.unwrap_or(""),
            namespace => namespace,
        };
        let namespace = if reference.namespace.is_empty() {
            own
        } else {
            &reference.namespace
        };
        let group = FluxKind::from_kind(&reference.kind).map_or("", |k| k.group());
        let id = ResourceId::new(
            &format!("{group}/v1"),
            &reference.kind,
            namespace,
            &reference.name,
        );
        if let Some(mapping) = source_map::mapped(self.mappings, &id) {
            let dir = mapping.dir.canonicalize().ok()?;
            return dir.starts_with(self.root).then_some(dir);
        }
        if (self.synced.iter()).any(|synced| synced.is(&reference.kind, namespace, &reference.name))
        {
            return Some(self.root.to_path_buf());
        }
        if reference.kind != "GitRepository" {
            return None;
        }
        if reference.name == BOOTSTRAP_NAME && namespace == BOOTSTRAP_NAMESPACE {
            return Some(self.root.to_path_buf());
        }
        // A namespace unknown on either side matches any.
        let urls: Vec<&str> = self
            .git_urls
            .get(&reference.name)
            .into_iter()
            .flatten()
            .filter(|(ns, _)| ns.is_empty() || namespace.is_empty() || ns == namespace)
            .map(|(_, url)| url.as_str())
            .collect();
        let here = if urls.is_empty() {
            // Defined nowhere: its root is not this tree's root (repro c4's hazard: the whole
            // repository attributed to another source), but a path inside it may be.
            secure_join(self.root, path).as_path() != self.root
        } else {
            urls.iter().any(|url| {
                self.remote
                    .as_deref()
                    .is_some_and(|remote| git_remote::same_repository(remote, url))
            })
        };
        here.then(|| self.root.to_path_buf())
    }
}

/// Whether a FluxInstance's sync `path` is a directory of the working tree (variables at their
/// defaults), where the run takes the synced source's files from.
fn synced_path_here(root: &Path, path: &str, fs_facts: &FsFacts) -> bool {
    let path = apply_variable_defaults(path).unwrap_or_else(|_| path.to_owned());
    let dir = secure_join(root, &path);
    crate::fsio::locate(fs_facts, &dir, Some(root)).is_ok() && fs_facts.is_dir(&dir)
}

/// The first document of the file a `configMapGenerator` named `configmap`, in the kustomization
/// beside `file`, puts under `key`.
fn generated_values(
    file: &Path,
    configmap: &str,
    key: &str,
    yaml_files: &[PathBuf],
    loaded: &[Option<Arc<load::LoadedFile>>],
) -> Option<crate::yaml::Node> {
    let dir = file.parent()?;
    let loaded_at = |path: &Path| {
        let index = yaml_files.binary_search(&path.to_path_buf()).ok()?;
        loaded.get(index)?.as_ref()
    };
    let kustomization = KUSTOMIZATION_FILE_NAMES
        .iter()
        .find_map(|name| loaded_at(&dir.join(name))?.kustomization())?;
    let generators = kustomization.get("configMapGenerator")?.as_sequence()?;
    let generator = generators
        .items
        .iter()
        .find(|g| g.get("name").and_then(Node::as_str) == Some(configmap))?;
    let entries = generator.get("files")?.as_sequence()?;
    let input = entries
        .items
        .iter()
        .filter_map(Node::as_str)
        .find_map(|entry| {
            let (name, path) = match entry.split_once('=') {
                Some((name, path)) => (name.to_string(), path),
                None => (
                    Path::new(entry).file_name()?.to_string_lossy().into_owned(),
                    entry,
                ),
            };
            (name == key).then_some(path)
        })?;
    let values = loaded_at(&dir.join(input))?;
    values
        .documents
        .as_ref()?
        .first()
        .map(|document| (*document.root).clone())
}

/// Files under a Helm chart's `templates/` are Go templates, not YAML; they are read when the
/// chart is rendered.
fn in_chart_templates(file: &Path, root: &Path) -> bool {
    if !file
        .as_os_str()
        .as_encoded_bytes()
        .windows(b"/templates/".len())
        .any(|w| w == b"/templates/")
    {
        return false;
    }
    // `file` lies under `root`, so its ancestors down to `root` are those at least as long; a
    // length test spares comparing every ancestor with `root` component by component.
    let root_length = root.as_os_str().len();
    file.ancestors()
        .skip(1)
        .take_while(|dir| dir.as_os_str().len() >= root_length)
        .any(|dir| {
            dir.file_name().is_some_and(|n| n == "templates")
                && dir.parent().is_some_and(|p| {
                    crate::fsio::backend::kind(&p.join("Chart.yaml"))
                        .is_ok_and(|k| k == crate::fsio::FileKind::File)
                })
        })
}

fn find_git_root(start: &Path) -> Option<PathBuf> {
    start
        .ancestors()
        .find(|dir| crate::fsio::backend::kind(&dir.join(".git")).is_ok())
        .map(Path::to_path_buf)
}

/// The Kustomization that applies each object: among the Kustomizations whose
/// `spec.path` (and what its kustomization files pull in, transitively) covers the file, the one
/// that covers it most narrowly. Ties go to the smallest id, so the answer never depends on order.
fn parents(
    flux_objects: &[FluxObject],
    data_objects: &[Object],
    invalid_flux: &[Object],
    followed: &BTreeMap<ResourceId, PathBuf>,
    refs: &kustomization_refs::KustomizationRefs,
    root: &Path,
) -> foldhash::HashMap<(PathBuf, ResourceId), ResourceId> {
    // Every path some Kustomization covers, with the Kustomizations covering it. A Kustomization
    // of another repository is not followed (`followed_path`): it covers nothing here.
    // Each with the depth of its own path: where several reach the same file, the one whose
    // `spec.path` lies deepest applies it most narrowly (a Kustomization over a directory does
    // not apply what a sub-directory's kustomization lists unless it lists that directory).
    let mut covering: foldhash::HashMap<PathKey, Vec<(usize, &ResourceId)>> =
        foldhash::HashMap::default();
    for (id, dir) in followed {
        let depth = dir.components().count();
        for path in reachable(dir, refs) {
            covering.entry(path).or_default().push((depth, id));
        }
    }
    let mut parents = foldhash::HashMap::default();
    let objects = flux_objects.iter().map(|f| &f.object);
    for object in objects.chain(data_objects).chain(invalid_flux) {
        let file = PathKey::of(&root.join(&object.file));
        // The nearest covered ancestor (or the file itself) decides, then the deepest path; ties
        // go to the smallest id.
        let parent = file.self_and_ancestors().find_map(|path| {
            covering
                .get(path)?
                .iter()
                .filter(|(_, id)| **id != object.id)
                .min_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(b.1)))
                .map(|(_, id)| *id)
        });
        if let Some(parent) = parent {
            parents.insert((object.file.clone(), object.id.clone()), parent.clone());
        }
    }
    parents
}

/// Gives each namespace-less object the `targetNamespace` of the Kustomization that applies it
/// (kustomize-controller's generator sets the kustomization's `namespace` to it, so the build
/// puts the object there), so that it is known by the id it will have, once. A Kustomization
/// whose id changes keeps its followed path under the new id. Returns whether any id changed.
fn take_target_namespaces(
    flux_objects: &mut [FluxObject],
    data_objects: &mut [Object],
    parents: &foldhash::HashMap<(PathBuf, ResourceId), ResourceId>,
    followed: &mut BTreeMap<ResourceId, PathBuf>,
) -> bool {
    let target_namespace = |parent: &ResourceId| {
        let first = flux_objects.partition_point(|f| f.object.id < *parent);
        let flux = flux_objects.get(first).filter(|f| f.object.id == *parent)?;
        let namespace = flux.as_kustomization()?.target_namespace.as_deref()?;
        let namespace = apply_variable_defaults(namespace).ok()?;
        (!namespace.is_empty()).then_some(namespace)
    };
    let namespace_for = |object: &Object| {
        if !object.id.namespace.is_empty() {
            return None;
        }
        target_namespace(parents.get(&(object.file.clone(), object.id.clone()))?)
    };
    let flux_changes: Vec<(usize, String)> = flux_objects
        .iter()
        .enumerate()
        .filter_map(|(i, f)| Some((i, namespace_for(&f.object)?)))
        .collect();
    let data_changes: Vec<(usize, String)> = data_objects
        .iter()
        .enumerate()
        .filter_map(|(i, o)| Some((i, namespace_for(o)?)))
        .collect();
    for (i, namespace) in &flux_changes {
        let object = &mut flux_objects[*i].object;
        let old = object.id.clone();
        object.id.namespace = namespace.as_str().into();
        if let Some(dir) = followed.remove(&old) {
            followed.entry(object.id.clone()).or_insert(dir);
        }
    }
    for (i, namespace) in &data_changes {
        data_objects[*i].id.namespace = namespace.as_str().into();
    }
    !(flux_changes.is_empty() && data_changes.is_empty())
}

/// `dir` and every local path its kustomization files pull in, transitively.
/// The files of `unapplied` (objects nothing in the repository applies) that the kustomization
/// file of `entry` does not list, directly or through the kustomizations it lists; none when the
/// entry has no kustomization file (the bootstrap's generated one takes every file).
fn unlisted_at_entry<'a>(
    entry: &Path,
    refs: &kustomization_refs::KustomizationRefs,
    root: &Path,
    unapplied: impl Iterator<Item = &'a Object>,
) -> foldhash::HashSet<PathBuf> {
    let Some(inputs) = refs.inputs_of_dir.get(&PathKey::of(entry)) else {
        return foldhash::HashSet::default();
    };
    // Files listed, and directories taken whole (one without a kustomization file).
    let mut listed: foldhash::HashSet<Vec<u8>> = foldhash::HashSet::default();
    let mut seen: foldhash::HashSet<PathKey> = foldhash::HashSet::default();
    let mut queue: Vec<&PathBuf> = inputs.iter().collect();
    while let Some(input) = queue.pop() {
        let key = PathKey::of(input);
        if !seen.insert(key.clone()) {
            continue;
        }
        match refs.inputs_of_dir.get(&key) {
            Some(more) => queue.extend(more),
            None => {
                listed.insert(key.as_bytes().to_vec());
            }
        }
    }
    unapplied
        .filter(|object| {
            let file = PathKey::of(&root.join(&object.file));
            file.is_within(&PathKey::of(entry))
                && !file.self_and_ancestors().any(|path| listed.contains(path))
        })
        .map(|object| object.file.clone())
        .collect()
}

fn reachable(dir: &Path, refs: &kustomization_refs::KustomizationRefs) -> Vec<PathKey> {
    let mut seen: foldhash::HashSet<PathKey> = foldhash::HashSet::default();
    let mut queue = vec![PathKey::of(dir)];
    while let Some(path) = queue.pop() {
        if seen.contains(&path) {
            continue;
        }
        for (kustomization_dir, inputs) in refs.inputs_of_dir.range(path.clone()..) {
            if !kustomization_dir.is_within(&path) {
                break;
            }
            queue.extend(inputs.iter().map(|input| PathKey::of(input)));
        }
        seen.insert(path);
    }
    seen.into_iter().collect()
}

/// The YAML files of the working tree at `root` as the artifact of a GitRepository whose
/// `spec.ignore` is `ignore` holds them (source-controller `reconcileArtifact`: the `.sourceignore`
/// patterns, then `spec.ignore`'s with the root as their domain; see `walk`).
pub fn yaml_files_ignoring(root: &Path, facts: &FsFacts, ignore: &str) -> Vec<PathBuf> {
    let patterns = sourceignore::read_patterns(ignore, &[]);
    walk::list_yaml_files_ignoring(root, facts, patterns, &mut |_, _| {}).yaml_files
}

/// A GitRepository's `spec.ignore` patterns, with the artifact's root as their domain
/// (fluxcd/pkg `sourceignore.ReadPatterns`), for a source read from a directory as a whole.
pub struct SpecIgnore(Vec<sourceignore::Pattern>);

impl SpecIgnore {
    pub fn parse(text: &str) -> SpecIgnore {
        SpecIgnore(sourceignore::read_patterns(text, &[]))
    }

    /// Whether the file at `relative` (to the artifact's root) is left out of the artifact: the
    /// last matching pattern decides (go-git's matcher, as `SourceIgnoreFilter` uses it).
    pub fn excludes(&self, relative: &Path) -> bool {
        let owned: Vec<String> = relative
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        let segments: Vec<&str> = owned.iter().map(String::as_str).collect();
        sourceignore::matches(&self.0, &segments, false) == sourceignore::MatchResult::Exclude
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data_values(repository: &Repository) -> Vec<String> {
        (repository.data_objects.iter())
            .map(|object| {
                let value = object.node.get("data").and_then(|d| d.get("v"));
                format!(
                    "{}={}",
                    object.id.name,
                    value.and_then(crate::yaml::Node::as_str).unwrap_or("?")
                )
            })
            .collect()
    }

    #[test]
    fn a_second_discovery_of_a_root_takes_the_first_walk_and_is_charged_for_its_aliases() {
        let dir = tempfile::tempdir().expect("tempdir");
        let write =
            |name: &str, text: &str| std::fs::write(dir.path().join(name), text).expect("write");
        let plain = |v: &str| {
            format!("apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: plain}}\ndata: {{v: \"{v}\"}}\n")
        };
        let aliased = |v: &str| {
            format!("apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: aliased}}\ndata: {{v: &v \"{v}\", w: *v}}\n")
        };
        write("plain.yaml", &plain("1"));
        write("aliased.yaml", &aliased("1"));
        let run = || {
            Arc::new(crate::budget::RunBudget::new(
                crate::budget::Limits::default(),
            ))
        };
        let alias_nodes = crate::budget::Resource::AliasNodes;
        let mut options = Options::new(dir.path());
        options.root = Some(dir.path().to_path_buf());
        options.parse_cache = Some(Arc::default());
        let first_run = run();
        options.budget = Some(first_run.clone());
        let first = discover(&options).expect("discovers");
        assert_eq!(data_values(&first), ["aliased=1", "plain=1"]);
        assert!(first_run.used(alias_nodes) > 0);
        // The command's second discovery of the root: every file as the walk read it, its run
        // charged what parsing them charged the first.
        write("plain.yaml", &plain("2"));
        write("aliased.yaml", &aliased("2"));
        let second_run = run();
        options.budget = Some(second_run.clone());
        let second = discover(&options).expect("discovers");
        assert_eq!(data_values(&second), ["aliased=1", "plain=1"]);
        assert_eq!(second_run.used(alias_nodes), first_run.used(alias_nodes));
        assert!(Arc::ptr_eq(&first.fs_facts, &second.fs_facts));
        // A run with no room for it reads the file again, under its own budget, which stops it.
        let full = Arc::new(crate::budget::RunBudget::new(crate::budget::Limits {
            alias_nodes: 0,
            ..crate::budget::Limits::default()
        }));
        options.budget = Some(full.clone());
        let stopped = discover(&options).expect("discovers");
        assert_eq!(data_values(&stopped), ["plain=1"]);
        assert!(stopped
            .diagnostics
            .iter()
            .any(|d| d.message.contains("--max-alias-nodes")));
        // Without the command's cache, each discovery walks and reads for itself.
        options.parse_cache = None;
        options.budget = Some(run());
        let alone = discover(&options).expect("discovers");
        assert_eq!(data_values(&alone), ["aliased=2", "plain=2"]);
    }
}
