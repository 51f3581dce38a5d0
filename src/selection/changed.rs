//! `--changed-only`: which producers a change between two revisions can affect, so a run
//! reconciles and reports those alone.
//!
//! The changed files come from git (`gitrev::changed_files`: the base commit's tree against the
//! working tree or another commit). Each is attributed, from the files as written, to the
//! producers that read it: a Kustomization reads the kustomization files of its `spec.path`,
//! every path they name (resources, components, bases, patches, generator files, anything a
//! field names), its `components`, and, where Flux generates the kustomization, every YAML file
//! under the path; a HelmRelease reads a chart in the repository and its `valuesFiles`. A file
//! also changes the objects written in it (before or after the change): a changed Flux object is
//! selected itself, a changed ConfigMap or Secret selects its consumers (`substituteFrom`,
//! `valuesFrom`), a changed source the producers that use it.
//!
//! The selection is then closed over what depends on it: a producer whose whole output may
//! change (its kustomization, a patch or a generator input changed, or its own definition)
//! brings in its children and the consumers of the objects it writes or generates; any selected
//! producer brings in the producers that `dependsOn` it (its outcome decides theirs), and the
//! Kustomizations that check its health (`wait`, `healthChecks`: its outcome decides theirs). A file
//! listed as a plain resource changes only the objects written in it. Last, the ancestors of
//! every selected producer are selected: they are what creates it.
//!
//! The run itself is narrowed by `scope` (one way to narrow a run): the selected producers are
//! its targets. A full run is asked for, with the reason, when a change touches what every
//! producer reads (`.offlux.yaml`, ignore files) or a producer whose output is known only once it
//! runs (ResourceSet, FluxInstance, ArtifactGenerator). Names are compared by kind and name, as
//! `scope` does: a namespace a build adds never hides a match.
//!
//! Not for: reading git (that is `gitrev`) or printing (that is `cli`).

use std::collections::{BTreeMap, BTreeSet};
use std::ffi::OsString;
use std::path::{Component, Path, PathBuf};

use super::scope::Target;
use crate::controllers::runtime::RunReport;
use crate::discovery::{Repository, KUSTOMIZATION_FILE_NAMES};
use crate::gitrev::ChangedFile;
use crate::model::{ChartSource, FluxKind, FluxObject, FluxSpec, HelmChartTemplate, ResourceId};
use crate::yaml::Node;

/// Kustomizations nest at most this deep in a static reading.
const MAX_DEPTH: usize = 64;

/// A static reading of one producer enters at most this many directories. Kustomization files
/// that name each other in every field (each reached anew under another group) would otherwise
/// be entered once per path through them, exponentially many; past the bound the producer is
/// taken to read every file of the repository, which only widens what a change selects.
const MAX_DIRECTORY_VISITS: usize = 10_000;

/// Files every producer depends on: a change to one makes the run whole.
const GLOBAL_FILES: &[&str] = &[".offlux.yaml", ".sourceignore", ".krmignore", ".gitignore"];

/// What a change selects in one repository.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Selection {
    /// The producers (and the sources they use) to reconcile and report, as written.
    pub producers: BTreeSet<ResourceId>,
    /// Set when only a full run is faithful: why.
    pub full: Option<String>,
    /// Changed files under the repository root.
    pub changed: usize,
    /// Of those, files no producer reads and that define no object.
    pub unread: usize,
}

impl Selection {
    /// Both selections: what either side of a diff needs.
    pub fn union(mut self, other: Selection) -> Selection {
        self.producers.extend(other.producers);
        self.full = self.full.or(other.full);
        self.changed = self.changed.max(other.changed);
        self.unread = self.unread.min(other.unread);
        self
    }

    /// The scope targets for `repository`: the selected producers written in its files (a
    /// target no file defines would make the scope whole). `None` when nothing is selected there.
    pub fn targets(&self, repository: &Repository) -> Option<Vec<Target>> {
        let written: BTreeSet<KindName> = repository
            .flux_objects
            .iter()
            .map(|f| kind_name(&f.object.id))
            .collect();
        let targets: Vec<Target> = self
            .producers
            .iter()
            .filter(|id| written.contains(&kind_name(id)))
            .map(|id| Target {
                kinds: vec![id.kind.to_string()],
                name: Some(id.name.to_string()),
                namespace: (!id.namespace.is_empty()).then(|| id.namespace.to_string()),
            })
            .collect();
        (!targets.is_empty()).then_some(targets)
    }

    /// Whether `id` (as a run names it) is selected.
    pub fn contains(&self, id: &ResourceId) -> bool {
        self.producers.iter().any(|s| {
            s.kind == id.kind
                && s.name == id.name
                && (s.namespace.is_empty() || s.namespace == id.namespace)
        })
    }
}

/// The files a change touched, read from git.
#[derive(Debug)]
pub struct Changes {
    /// `` `main` (89793243e8ec) ``: the base, for messages.
    pub base_label: String,
    /// The git working tree's top (canonical).
    pub work_tree: PathBuf,
    /// Relative to the working tree's top.
    pub files: Vec<ChangedFile>,
}

impl Changes {
    /// The working tree holding `start` against `base` (default: the merge base of HEAD with the
    /// default branch). The git objects read are charged to `budget`'s bytes extracted, as
    /// `diff`'s are, when there is one.
    pub(crate) fn working_tree(
        start: &Path,
        base: Option<&str>,
        budget: Option<std::sync::Arc<crate::budget::RunBudget>>,
    ) -> Result<Changes, String> {
        let mut repository = crate::gitrev::Repository::discover(start)
            .map_err(|e| format!("--changed-only: {e}"))?;
        if let Some(budget) = budget {
            repository = repository.charge_to(budget);
        }
        let (id, name) = match base {
            Some(name) => repository.resolve(name).map(|id| (id, name.to_owned())),
            None => repository.default_base(),
        }
        .map_err(|e| format!("--changed-only: base: {e}"))?;
        Changes::between(&repository, id, &name, None)
    }

    /// `base` against `head` (a commit, or the working tree when `None`).
    pub fn between(
        repository: &crate::gitrev::Repository,
        base: crate::gitrev::ObjectId,
        base_name: &str,
        head: Option<crate::gitrev::ObjectId>,
    ) -> Result<Changes, String> {
        let files = crate::gitrev::changed_files(repository, base, head)
            .map_err(|e| format!("--changed-only: {e}"))?;
        let short: String = base.to_string().chars().take(12).collect();
        Ok(Changes {
            base_label: format!("`{base_name}` ({short})"),
            work_tree: repository.work_tree.clone(),
            files,
        })
    }

    /// The changed files under `root` (a directory of the working tree), relative to it.
    pub fn under(&self, root: &Path) -> Vec<ChangedFile> {
        match root.strip_prefix(&self.work_tree) {
            Ok(relative) => under_root(&self.files, relative),
            Err(_) => Vec::new(),
        }
    }
}

/// Keeps in `report` only the selected Flux objects' statuses and outputs; returns how many
/// Flux objects (of the run, or written in `repository`) were left out.
pub fn retain(report: &mut RunReport, selection: &Selection, repository: &Repository) -> usize {
    let mut known: BTreeSet<KindName> = repository
        .flux_objects
        .iter()
        .map(|f| kind_name(&f.object.id))
        .collect();
    known.extend(report.statuses.iter().map(|(id, _)| kind_name(id)));
    // An object the run read from the file a selected one is written in is that object, under
    // the name the build gave it (`namePrefix`, a substituted name: one no file writes) or in
    // another namespace (the file applied twice): selected too.
    let written: BTreeSet<KindName> = (repository.flux_objects.iter())
        .map(|f| kind_name(&f.object.id))
        .collect();
    let mut selected_files: BTreeMap<(&str, &Path), BTreeSet<&str>> = BTreeMap::new();
    for f in (repository.flux_objects.iter()).filter(|f| selection.contains(&f.object.id)) {
        let id = &f.object.id;
        selected_files
            .entry((id.kind.as_str(), f.object.file.as_path()))
            .or_default()
            .insert(id.name.as_str());
    }
    let origins = report.origins.clone();
    let selected = |id: &ResourceId| {
        let from_a_selected_file = || {
            let at = origins.get(id)?;
            let names = selected_files.get(&(id.kind.as_str(), at.file.as_path()))?;
            Some(names.contains(id.name.as_str()) || !written.contains(&kind_name(id)))
        };
        selection.contains(id) || from_a_selected_file().unwrap_or(false)
    };
    // A producer that applies a selected Flux object is kept too, though no file says so: a
    // Kustomization a FluxInstance or ResourceSet made at run time. Its output holds the changed
    // definition, which a diff must show.
    let mut kept: BTreeSet<ResourceId> = BTreeSet::new();
    loop {
        let before = kept.len();
        for (producer, objects) in &report.rendered {
            let applies_kept = objects.iter().any(|object| {
                FluxKind::from_group_kind(&object.id.group, &object.id.kind).is_some()
                    && (selected(&object.id) || kept.contains(&object.id))
            });
            if applies_kept && !selected(producer) {
                kept.insert(producer.clone());
            }
        }
        if kept.len() == before {
            break;
        }
    }
    let keeps = |id: &ResourceId| selected(id) || kept.contains(id);
    let (statuses, left_out) = std::mem::take(&mut report.statuses)
        .into_iter()
        .partition(|(id, _)| keeps(id));
    report.statuses = statuses;
    report.left_out = left_out;
    report.rendered.retain(|id, _| keeps(id));
    report.origins.retain(|id, _| keeps(id));
    report.notes.retain(|id, _| keeps(id));
    report.unread_values.retain(|id, _| keeps(id));
    report.clusters.retain(|id, _| keeps(id));
    for (id, _) in &report.statuses {
        known.remove(&kind_name(id));
    }
    known.len()
}

/// The changed files under `root` (relative to the git working tree), made relative to it.
pub(crate) fn under_root(files: &[ChangedFile], root: &Path) -> Vec<ChangedFile> {
    files
        .iter()
        .filter_map(|file| {
            let path = if root.as_os_str().is_empty() {
                file.path.clone()
            } else {
                file.path.strip_prefix(root).ok()?.to_path_buf()
            };
            Some(ChangedFile {
                path,
                base: file.base.clone(),
            })
        })
        .collect()
}

type KindName = (String, String);

fn kind_name(id: &ResourceId) -> KindName {
    (id.kind.to_string(), id.name.to_string())
}

fn pair(kind: &str, name: &str) -> KindName {
    (kind.to_owned(), name.to_owned())
}

/// How much of a producer's output a file can change.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Reach {
    /// Only the objects written in it (a plain resource).
    Objects,
    /// What one kustomization of the producer's tree outputs (its group).
    Group(usize),
    /// Anything the producer outputs.
    Whole,
}

/// The files one kustomization builds from and the objects its generators make: what a change
/// to its own settings (patches, generators, namespace...) can change.
#[derive(Default)]
struct Group {
    files: BTreeSet<PathBuf>,
    generated: BTreeSet<KindName>,
}

/// What one producer reads, relative to the repository root.
#[derive(Default)]
struct Inputs {
    files: BTreeMap<PathBuf, BTreeSet<Reach>>,
    /// Directories whose files it may read: `(dir, reach, YAML files only)`.
    dirs: Vec<(PathBuf, Reach, bool)>,
    groups: Vec<Group>,
    /// The groups being read, innermost last: a file read now belongs to each.
    active: Vec<usize>,
    /// `dependsOn` entries its kustomizations' patches add to what they output.
    patched_depends_on: Vec<PatchedDependency>,
}

/// A `dependsOn` entry a kustomize patch adds to the objects it targets.
#[derive(Clone, Debug, PartialEq, Eq)]
struct PatchedDependency {
    /// The patch target's kind (`None`: any).
    target_kind: Option<String>,
    /// The dependency's kind when written (else the dependant's own).
    kind: Option<String>,
    /// Its name as written (variables resolved against the producer's post-build in `select`).
    name: String,
}

impl Inputs {
    fn add_file(&mut self, path: PathBuf, reach: Reach) {
        for &g in &self.active {
            if let Some(group) = self.groups.get_mut(g) {
                group.files.insert(path.clone());
            }
        }
        self.files.entry(path).or_default().insert(reach);
    }

    fn add_generated(&mut self, key: KindName) {
        for &g in &self.active {
            if let Some(group) = self.groups.get_mut(g) {
                group.generated.insert(key.clone());
            }
        }
    }

    /// How far `path` reaches into this producer's output, if it reads it.
    fn reach(
        &self,
        path: &Path,
        kustomization_dirs: &foldhash::HashSet<PathBuf>,
    ) -> BTreeSet<Reach> {
        let mut found = self.files.get(path).cloned().unwrap_or_default();
        for (dir, reach, yaml_only) in &self.dirs {
            if !path.starts_with(dir) || (*yaml_only && !is_yaml(path)) {
                continue;
            }
            // A directory Flux generates a kustomization for reads a nested kustomization's
            // directory through that kustomization, whose named files are listed already.
            let nested = *yaml_only
                && path
                    .ancestors()
                    .skip(1)
                    .take_while(|a| a.starts_with(dir) && a != dir)
                    .any(|a| kustomization_dirs.contains(a));
            if !nested {
                found.insert(*reach);
            }
        }
        found
    }
}

fn is_yaml(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "yaml" || e == "yml")
}

/// `entry` (relative, as a kustomization names it) joined to `dir` without touching the file
/// system; `None` when it is absolute or climbs above the root.
fn join_lexically(dir: &Path, entry: &str) -> Option<PathBuf> {
    let mut parts: Vec<&std::ffi::OsStr> = dir
        .components()
        .filter_map(|c| match c {
            Component::Normal(n) => Some(n),
            _ => None,
        })
        .collect();
    for component in Path::new(entry).components() {
        match component {
            Component::Normal(n) => parts.push(n),
            Component::CurDir => {}
            Component::ParentDir => {
                parts.pop()?;
            }
            Component::RootDir | Component::Prefix(_) => return None,
        }
    }
    Some(parts.iter().collect())
}

fn is_remote(entry: &str) -> bool {
    entry.contains("://")
        || entry.starts_with("github.com/")
        || entry.starts_with("git@")
        || entry.starts_with("oci:")
}

/// Every scalar string under `node`.
fn strings<'n>(node: &'n Node, out: &mut Vec<&'n str>) {
    match node {
        Node::Scalar(s) => out.push(s.value.as_str()),
        Node::Sequence(seq) => seq.items.iter().for_each(|item| strings(item, out)),
        Node::Mapping(map) => map.iter().for_each(|(_, value)| strings(value, out)),
    }
}

/// The static reading of a repository's files that attribution needs.
struct Reader<'r> {
    repository: &'r Repository,
    /// Directories (relative) holding a kustomization file.
    kustomization_dirs: foldhash::HashSet<PathBuf>,
    /// YAML files, relative, sorted.
    yaml_files: Vec<PathBuf>,
    /// The directories holding them, at any depth, by their last component: read when a path
    /// holds a variable.
    directories: std::cell::OnceCell<foldhash::HashMap<OsString, Vec<PathBuf>>>,
}

impl<'r> Reader<'r> {
    fn new(repository: &'r Repository) -> Self {
        let yaml_files: Vec<PathBuf> = repository
            .yaml_files
            .iter()
            .filter_map(|f| f.strip_prefix(&repository.root).ok())
            .map(Path::to_path_buf)
            .collect();
        let kustomization_dirs = yaml_files
            .iter()
            .filter(|f| {
                f.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| KUSTOMIZATION_FILE_NAMES.contains(&n))
            })
            .filter_map(|f| f.parent().map(Path::to_path_buf))
            .collect();
        Reader {
            repository,
            kustomization_dirs,
            yaml_files,
            directories: std::cell::OnceCell::new(),
        }
    }

    fn absolute(&self, relative: &Path) -> PathBuf {
        self.repository.root.join(relative)
    }

    fn kustomization_file(&self, dir: &Path) -> Option<PathBuf> {
        KUSTOMIZATION_FILE_NAMES
            .iter()
            .map(|name| dir.join(name))
            .find(|file| self.repository.fs_facts.is_file(&self.absolute(file)))
    }

    fn kustomization_node(&self, file: &Path) -> Option<std::sync::Arc<Node>> {
        self.documents(file)?.first().map(|d| d.root.clone())
    }

    /// The documents of `file` (relative): as discovery parsed them, else read (confined to the
    /// root) and parsed now. `None` when it is missing or does not parse.
    fn documents(&self, file: &Path) -> Option<std::sync::Arc<[crate::yaml::Document]>> {
        let absolute = self.absolute(file);
        if let Some(documents) = self.repository.parsed_files.get(&absolute) {
            return Some(documents.clone());
        }
        let text = crate::fsio::read_to_string(
            &self.repository.fs_facts,
            &absolute,
            crate::fsio::Confine::within(&self.repository.root),
        )
        .ok()?;
        let documents =
            crate::yaml::parse_stream(&text, &crate::yaml::ParseOptions::default()).ok()?;
        Some(documents.into())
    }

    /// What a build of `dir` reads. `component_of` is the reach of the kustomization that
    /// includes `dir` as a component (its patches change what that one outputs); `seen` guards
    /// against cycles.
    fn directory(
        &self,
        dir: &Path,
        component_of: Option<Reach>,
        depth: usize,
        seen: &mut BTreeSet<(PathBuf, Option<Reach>)>,
        out: &mut Inputs,
    ) {
        if seen.len() >= MAX_DIRECTORY_VISITS {
            let everything = (PathBuf::new(), Reach::Whole, false);
            if !out.dirs.contains(&everything) {
                out.dirs.push(everything);
            }
            return;
        }
        if depth > MAX_DEPTH || !seen.insert((dir.to_path_buf(), component_of)) {
            return;
        }
        let Some(file) = self.kustomization_file(dir) else {
            // Flux generates the kustomization: every YAML file below, and each directory
            // below with its own kustomization file, not entered.
            out.dirs.push((dir.to_path_buf(), Reach::Objects, true));
            let start = self.yaml_files.partition_point(|f| f.as_path() < dir);
            let mut nested = BTreeSet::new();
            for yaml in self.yaml_files[start..]
                .iter()
                .take_while(|f| f.starts_with(dir))
            {
                let inner = yaml
                    .ancestors()
                    .skip(1)
                    .take_while(|a| a.starts_with(dir) && *a != dir)
                    .filter(|a| self.kustomization_dirs.contains(*a))
                    .last();
                match inner {
                    Some(inner) => {
                        nested.insert(inner.to_path_buf());
                    }
                    None => out.add_file(yaml.clone(), Reach::Objects),
                }
            }
            for nested in nested {
                self.directory(&nested, None, depth + 1, seen, out);
            }
            return;
        };
        let node = self.kustomization_node(&file);
        let component = node
            .as_ref()
            .and_then(|n| n.get("kind"))
            .and_then(Node::as_str)
            == Some("Component");
        // A component's settings change what the kustomization including it outputs; any
        // other kustomization's, what it outputs itself.
        let own = if component {
            component_of.unwrap_or(Reach::Whole)
        } else {
            let group = out.groups.len();
            out.groups.push(Group::default());
            out.active.push(group);
            Reach::Group(group)
        };
        out.add_file(file, own);
        match node.as_ref().and_then(|n| n.as_mapping()) {
            Some(map) => {
                for (key, value) in map.iter() {
                    self.fields(dir, key, value, own, depth, seen, out);
                }
            }
            // Unreadable: anything in the directory may be what it names.
            None => out.dirs.push((dir.to_path_buf(), own, false)),
        }
        if !component {
            out.active.pop();
        }
    }

    /// The paths one field of the kustomization in `dir` names, and the objects it generates.
    #[allow(clippy::too_many_arguments)]
    fn fields(
        &self,
        dir: &Path,
        key: &str,
        value: &Node,
        own: Reach,
        depth: usize,
        seen: &mut BTreeSet<(PathBuf, Option<Reach>)>,
        out: &mut Inputs,
    ) {
        let resource = matches!(key, "resources" | "bases");
        if matches!(key, "patches" | "patchesStrategicMerge" | "patchesJson6902") {
            self.patched_depends_on(dir, value, out);
        }
        if matches!(key, "configMapGenerator" | "secretGenerator") {
            let kind = if key == "configMapGenerator" {
                "ConfigMap"
            } else {
                "Secret"
            };
            for generator in value.as_sequence().into_iter().flat_map(|s| &s.items) {
                if let Some(name) = generator.get("name").and_then(Node::as_str) {
                    out.add_generated(pair(kind, name));
                }
            }
        }
        let mut named = Vec::new();
        strings(value, &mut named);
        for text in named {
            if text.contains('\n') || is_remote(text) {
                continue;
            }
            let candidates = [Some(text), text.split_once('=').map(|(_, f)| f)];
            for candidate in candidates.into_iter().flatten() {
                let Some(path) = join_lexically(dir, candidate.trim()) else {
                    continue;
                };
                let absolute = self.absolute(&path);
                if self.repository.fs_facts.is_dir(&absolute) {
                    if path != dir {
                        let component_of = (!resource).then_some(own);
                        self.directory(&path, component_of, depth + 1, seen, out);
                    }
                } else {
                    // A file, or a path that is not there (deleted, perhaps): the build reads
                    // it, or fails for want of it.
                    out.add_file(path, if resource { Reach::Objects } else { own });
                }
            }
        }
    }

    fn kustomization(&self, dir: &str, components: &[String]) -> Inputs {
        let mut out = Inputs::default();
        let mut seen = BTreeSet::new();
        // A path holding a variable is known only once the parent's post-build substitutes it
        // (kustomize-controller itself reads `spec.path` as it is, `SecureJoin`ed to the
        // source's root). Whatever the variables become, the path ends with the literal
        // components after the last of them: every directory so ending may be the one built.
        // With none after it, the path is anywhere below its literal part.
        if let Some(variable) = VariablePath::of(dir) {
            match variable.ending() {
                Some(ending) => {
                    for candidate in self.directories_ending_with(&ending) {
                        self.built_with_components(&candidate, components, &mut seen, &mut out);
                    }
                }
                None => {
                    if let Some(prefix) = join_lexically(Path::new(""), &variable.before) {
                        out.dirs.push((prefix, Reach::Whole, false));
                    }
                }
            }
            return out;
        }
        let Some(dir) = join_lexically(Path::new(""), dir) else {
            return out;
        };
        self.built_with_components(&dir, components, &mut seen, &mut out);
        out
    }

    /// Whether `file` (relative) fails every build that reads it here: it is missing, or it is a
    /// kustomization file that does not parse or names a path that is missing (kustomize refuses
    /// the whole build, and Flux applies nothing of it).
    fn fails_builds(&self, file: &Path) -> bool {
        if !self.repository.fs_facts.exists(&self.absolute(file)) {
            return true;
        }
        let is_kustomization = (file.file_name().and_then(|n| n.to_str()))
            .is_some_and(|n| KUSTOMIZATION_FILE_NAMES.contains(&n));
        let Some(dir) = file.parent().filter(|_| is_kustomization) else {
            return false;
        };
        let mut named = Inputs::default();
        self.directory(dir, None, 0, &mut BTreeSet::new(), &mut named);
        let unreadable = named.dirs.iter().any(|(_, _, yaml_only)| !yaml_only);
        let own = named.groups.first().map(|g| &g.files);
        unreadable
            || (own.into_iter().flatten())
                .any(|f| !self.repository.fs_facts.exists(&self.absolute(f)))
    }

    /// The `dependsOn` entries the patches of one kustomization field (`patches`,
    /// `patchesStrategicMerge`, `patchesJson6902`; inline or in a file) add: JSON 6902
    /// operations on a path holding `dependsOn`, strategic merge patches with `spec.dependsOn`.
    fn patched_depends_on(&self, dir: &Path, field: &Node, out: &mut Inputs) {
        let entries: Vec<&Node> = match field.as_sequence() {
            Some(list) => list.items.iter().collect(),
            None => vec![field],
        };
        for entry in entries {
            let target_kind = (entry.get("target").and_then(|t| t.get("kind")))
                .and_then(Node::as_str)
                .map(str::to_owned);
            let inline = |text: &str| {
                let options = crate::yaml::ParseOptions::default();
                (text.contains("dependsOn"))
                    .then(|| crate::yaml::parse_stream(text, &options).ok())
                    .flatten()
                    .map(std::sync::Arc::from)
            };
            let file = |path: &str| self.documents(&join_lexically(dir, path.trim())?);
            let documents = match (entry.as_str(), entry.get("patch").and_then(Node::as_str)) {
                (_, Some(text)) => inline(text),
                (Some(text), None) if text.contains('\n') => inline(text),
                (Some(path), None) => file(path),
                (None, None) => entry.get("path").and_then(Node::as_str).and_then(file),
            };
            for document in documents.iter().flat_map(|d| d.iter()) {
                let root = &document.root;
                let mut values: Vec<&Node> = Vec::new();
                match root.as_sequence() {
                    Some(operations) => {
                        for operation in &operations.items {
                            let path = operation.get("path").and_then(Node::as_str);
                            if path.is_some_and(|p| p.contains("dependsOn")) {
                                values.extend(operation.get("value"));
                            }
                        }
                    }
                    None => values.extend(root.get_path(&["spec", "dependsOn"])),
                }
                let own_kind = root.get("kind").and_then(Node::as_str).map(str::to_owned);
                let target_kind = target_kind.clone().or(own_kind);
                for value in values {
                    let items: Vec<&Node> = match value.as_sequence() {
                        Some(list) => list.items.iter().collect(),
                        None => vec![value],
                    };
                    for item in items {
                        let Some(name) = item.get("name").and_then(Node::as_str) else {
                            continue;
                        };
                        out.patched_depends_on.push(PatchedDependency {
                            target_kind: target_kind.clone(),
                            kind: item.get("kind").and_then(Node::as_str).map(str::to_owned),
                            name: name.to_owned(),
                        });
                    }
                }
            }
        }
    }

    /// What a build of `dir` with the Kustomization's `components` (relative to it) reads.
    fn built_with_components(
        &self,
        dir: &Path,
        components: &[String],
        seen: &mut BTreeSet<(PathBuf, Option<Reach>)>,
        out: &mut Inputs,
    ) {
        self.directory(dir, None, 0, seen, out);
        for component in components {
            if let Some(path) = join_lexically(dir, component) {
                self.directory(&path, Some(Reach::Whole), 0, seen, out);
            }
        }
    }

    /// The directories holding a YAML file (at any depth) whose path ends with `ending`: those
    /// a build can read anything from.
    fn directories_ending_with(&self, ending: &Path) -> Vec<PathBuf> {
        let by_name = self.directories.get_or_init(|| {
            let all: foldhash::HashSet<&Path> = (self.yaml_files.iter())
                .flat_map(|f| f.ancestors().skip(1))
                .filter(|d| !d.as_os_str().is_empty())
                .collect();
            let mut by_name: foldhash::HashMap<OsString, Vec<PathBuf>> = Default::default();
            for dir in all {
                if let Some(name) = dir.file_name() {
                    by_name
                        .entry(name.to_owned())
                        .or_default()
                        .push(dir.to_path_buf());
                }
            }
            by_name.values_mut().for_each(|dirs| dirs.sort());
            by_name
        });
        let Some(last) = ending.file_name() else {
            return Vec::new();
        };
        (by_name.get(last).into_iter().flatten())
            .filter(|d| d.ends_with(ending))
            .cloned()
            .collect()
    }

    /// The Flux objects a build reading `inputs` may apply (kind and name, as written); `None`
    /// when that cannot be told: a directory read whole, or a file that does not parse.
    fn flux_objects_applied(&self, inputs: &Inputs) -> Option<Vec<KindName>> {
        if inputs.dirs.iter().any(|(_, _, yaml_only)| !yaml_only) {
            return None;
        }
        let mut applied = Vec::new();
        for file in inputs.files.keys().filter(|f| is_yaml(f)) {
            if !self.repository.fs_facts.exists(&self.absolute(file)) {
                // Missing: the build fails, and applies nothing.
                continue;
            }
            for document in self.documents(file)?.iter() {
                let root = &document.root;
                let field = |key: &str| root.get(key).and_then(Node::as_str);
                let (Some(api_version), Some(kind)) = (field("apiVersion"), field("kind")) else {
                    continue;
                };
                let group = crate::model::split_api_version(api_version).0;
                if FluxKind::from_group_kind(group, kind).is_some() {
                    let name = root.get_path(&["metadata", "name"]).and_then(Node::as_str);
                    applied.push(pair(kind, name.unwrap_or_default()));
                }
            }
        }
        Some(applied)
    }

    /// A chart in the repository and its values files.
    fn chart(&self, chart: &HelmChartTemplate, out: &mut Inputs) {
        if chart.source_ref.kind == "HelmRepository" {
            return;
        }
        if let Some(dir) = join_lexically(Path::new(""), &chart.chart) {
            out.dirs.push((dir, Reach::Whole, false));
        }
        for file in &chart.values_files {
            if let Some(path) = join_lexically(Path::new(""), file) {
                out.add_file(path, Reach::Whole);
            }
        }
    }
}

/// A `spec.path` holding a variable (`$`), split around its variables.
#[derive(Debug, PartialEq, Eq)]
struct VariablePath {
    /// The components before the first that holds a variable, joined.
    before: String,
    /// Those after the last that holds one.
    after: Vec<String>,
}

impl VariablePath {
    fn of(path: &str) -> Option<VariablePath> {
        if !path.contains('$') {
            return None;
        }
        let parts: Vec<&str> = path.split('/').collect();
        let first = parts.iter().position(|p| p.contains('$'))?;
        let last = parts.iter().rposition(|p| p.contains('$'))?;
        Some(VariablePath {
            before: parts[..first].join("/"),
            after: parts[last + 1..].iter().map(|p| (*p).to_owned()).collect(),
        })
    }

    /// The literal ending every substituted path has, as a relative path; `None` when it is
    /// empty or climbs (`..` after a variable lands anywhere).
    fn ending(&self) -> Option<PathBuf> {
        let mut ending = PathBuf::new();
        for part in self.after.iter().filter(|p| !p.is_empty() && *p != ".") {
            if part == ".." {
                return None;
            }
            ending.push(part);
        }
        (!ending.as_os_str().is_empty()).then_some(ending)
    }
}

/// Producers whose output is known only once they run (what a ResourceSet or a FluxInstance
/// makes, what an artifact holds): a change to one makes the run whole.
fn opaque(flux: &FluxObject) -> bool {
    let artifact =
        matches!(&flux.spec, FluxSpec::Kustomization(k) if k.source_ref.kind == "ExternalArtifact");
    artifact
        || matches!(
            flux.kind,
            FluxKind::ResourceSet
                | FluxKind::ResourceSetInputProvider
                | FluxKind::FluxInstance
                | FluxKind::ArtifactGenerator
                | FluxKind::ExternalArtifact
        )
}

/// The API group of kustomize's own configuration (`kustomization.yaml`, components).
const KUSTOMIZE_CONFIG_GROUP: &str = "kustomize.config.k8s.io";

/// Whether `flux` makes Kustomizations when it runs: a FluxInstance (its sync), a ResourceSet
/// (its templates), or a HelmRelease of the Flux Operator's `flux-instance` chart (the instance
/// a bootstrap installs with its values).
fn makes_kustomizations_at_run_time(flux: &FluxObject) -> bool {
    match &flux.spec {
        FluxSpec::HelmRelease(release) => match &release.chart {
            ChartSource::Template(template) => {
                template.chart.rsplit('/').next() == Some("flux-instance")
            }
            ChartSource::Ref(reference) => reference.name == "flux-instance",
        },
        _ => matches!(flux.kind, FluxKind::FluxInstance | FluxKind::ResourceSet),
    }
}

/// The changed `files` (relative to the root) that fail every build reading them in
/// `repository`: missing there, or a kustomization file naming what is missing there.
pub fn failing_builds<'f>(repository: &Repository, files: &'f [ChangedFile]) -> Vec<&'f Path> {
    let reader = Reader::new(repository);
    (files.iter())
        .filter(|file| reader.fails_builds(&file.path))
        .map(|file| file.path.as_path())
        .collect()
}

/// Whether every Flux object the build reading `made` applies, and every one those known
/// Kustomizations apply in turn, is known to the static reading (`known`: its Flux objects,
/// whose reading is `inputs`), so that what they read is attributed to them. A Kustomization
/// made at run time that applies others discovery did not follow (their source is one the run
/// alone maps to the working tree: a FluxInstance's synced OCIRepository) reads what only they
/// know.
fn applies_only_known(
    reader: &Reader,
    made: &Inputs,
    inputs: &[Inputs],
    known: &BTreeMap<KindName, Vec<usize>>,
) -> bool {
    let mut queue: Vec<&Inputs> = vec![made];
    let mut seen: BTreeSet<usize> = BTreeSet::new();
    while let Some(reading) = queue.pop() {
        let Some(applied) = reader.flux_objects_applied(reading) else {
            return false;
        };
        for object in applied {
            let Some(positions) = known.get(&object) else {
                return false;
            };
            for &i in positions {
                if seen.insert(i) {
                    queue.extend(inputs.get(i));
                }
            }
        }
    }
    true
}

/// The `spec.path` of the one Kustomization `flux` makes at run time, where what is written
/// decides it: a FluxInstance's `spec.sync.path` (the operator generates one Kustomization with
/// it, `controllers::flux_instance::sync_objects`), or the `instance.sync.path` of a
/// `flux-instance` HelmRelease's inline values (the chart renders `instance` as that spec; with
/// `valuesFrom` or post-renderers the values are known only once it runs). `None` when the path
/// holds a variable, when one of `spec.kustomize.patches` may select a Kustomization (it may
/// rewrite the path), and for a ResourceSet, whose templates are known only once it runs.
fn made_kustomization_path(flux: &FluxObject) -> Option<&str> {
    let (path, patches) = match &flux.spec {
        FluxSpec::FluxInstance(instance) => (
            instance.sync.as_ref()?.path.as_str(),
            instance.patches.as_ref(),
        ),
        FluxSpec::HelmRelease(release) => {
            if !release.values_from.is_empty() || release.post_renderers.is_some() {
                return None;
            }
            let instance = flux.helm_values()?.get("instance")?;
            let path = instance.get("sync")?.get("path")?.as_str()?;
            let patches = instance.get("kustomize").and_then(|k| k.get("patches"));
            (path, patches)
        }
        _ => return None,
    };
    let selects = patches.is_some_and(|p| !p.is_null() && patches_may_select_kustomization(p));
    (!path.contains('$') && !selects).then_some(path)
}

/// Whether a patch target's `kind` (an anchored regular expression, as kustomize reads it:
/// `types.SelectorRegex.MatchGvk`; `None` or empty: any) may select `kind`.
fn kind_may_match(pattern: Option<&str>, kind: &str) -> bool {
    match pattern.filter(|p| !p.is_empty()) {
        None => true,
        // A plain name (what targets mostly hold) matches only itself: no regex to compile.
        Some(name) if name.chars().all(|c| c.is_ascii_alphanumeric()) => name == kind,
        Some(pattern) => {
            regex::Regex::new(&format!("^(?:{pattern})$")).map_or(true, |re| re.is_match(kind))
        }
    }
}

/// `name` after the post-build substitution of the producer whose output holds it: a variable
/// its `substitute` sets takes that value; one it does not set takes its default, unless a
/// `substituteFrom` may set it. `None` when the name cannot be known (any name).
fn substituted_name(name: &str, post_build: Option<&crate::model::PostBuild>) -> Option<String> {
    if !name.contains('$') {
        return Some(name.to_owned());
    }
    let mut resolved = String::new();
    let mut rest = name;
    while let Some(start) = rest.find("${") {
        resolved.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let end = after.find('}')?;
        let inner = &after[..end];
        let (variable, default) = match [":=", ":-", "=", "-"]
            .iter()
            .find_map(|op| inner.split_once(op))
        {
            Some((variable, default)) => (variable, Some(default)),
            None => (inner, None),
        };
        let set = post_build.and_then(|p| p.substitute.get(variable));
        let may_be_set = post_build.is_some_and(|p| !p.substitute_from.is_empty());
        match (set, default) {
            (Some(value), _) => resolved.push_str(value),
            (None, Some(default)) if !may_be_set => resolved.push_str(default),
            _ => return None,
        }
        rest = &after[end + 1..];
    }
    resolved.push_str(rest);
    (!resolved.contains('$')).then_some(resolved)
}

/// Whether one of kustomize `patches` (`[{patch, target}]`) may apply to a Flux Kustomization.
/// kustomize matches a target's group and kind as anchored regular expressions
/// (`types.SelectorRegex.MatchGvk`), and a patch without a target by the kind its body names.
fn patches_may_select_kustomization(patches: &Node) -> bool {
    const GROUP: &str = "kustomize.toolkit.fluxcd.io";
    const KIND: &str = "Kustomization";
    let may_match = kind_may_match;
    let Some(patches) = patches.as_sequence() else {
        return true;
    };
    patches.items.iter().any(|entry| match entry.get("target") {
        Some(target) => {
            let field = |key: &str| target.get(key).and_then(Node::as_str);
            may_match(field("group"), GROUP) && may_match(field("kind"), KIND)
        }
        None => {
            let body = entry.get("patch").and_then(Node::as_str).and_then(|text| {
                crate::yaml::parse_stream(text, &crate::yaml::ParseOptions::default()).ok()
            });
            let kinds: Option<Vec<Option<String>>> = body.map(|documents| {
                (documents.iter())
                    .map(|d| d.root.get("kind").and_then(Node::as_str).map(str::to_owned))
                    .collect()
            });
            // Unreadable, or a document without a kind: it may be anything.
            kinds.is_none_or(|kinds| kinds.iter().any(|k| k.as_deref().is_none_or(|k| k == KIND)))
        }
    })
}

/// How [`select`] reads a changed file.
#[derive(Clone, Copy, Debug, Default)]
pub struct SelectOptions<'a> {
    /// The objects a changed file defined at the base count only where `repository` reaches the
    /// file. Set when the base revision's repository is selected from too (`diff`): it reaches
    /// what the file held there, so a file of another cluster (which defines objects of the same
    /// names) selects nothing here. Unset, a deleted file's objects select their consumers by
    /// name wherever they are, which is all a run with no base repository can do.
    pub base_objects_where_reached: bool,
    /// The changed files that fail a build on a side of a diff ([`fails_builds`]): everything
    /// their readers output may change, on both sides (the side holding a deleted file would
    /// read it as a plain resource).
    pub failing_on_a_side: Option<&'a BTreeSet<PathBuf>>,
}

/// What a change of `files` (relative to the repository root) selects in `repository`.
pub fn select(
    repository: &Repository,
    files: &[ChangedFile],
    options: SelectOptions<'_>,
) -> Selection {
    let mut selection = Selection {
        changed: files.len(),
        ..Selection::default()
    };
    if let Some(file) = files.iter().find(|f| {
        f.path
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| GLOBAL_FILES.contains(&n))
    }) {
        selection.full = Some(format!(
            "`{}` changed, which every producer depends on",
            file.path.display()
        ));
        return selection;
    }
    let reader = Reader::new(repository);
    let objects: Vec<&FluxObject> = repository.flux_objects.iter().collect();
    let helm_charts: BTreeMap<KindName, &HelmChartTemplate> = objects
        .iter()
        .filter_map(|f| Some((kind_name(&f.object.id), f.as_source()?.chart.as_ref()?)))
        .collect();
    let inputs: Vec<Inputs> = objects
        .iter()
        .map(|f| match &f.spec {
            // An artifact's files are copied from anywhere in the working tree.
            FluxSpec::Kustomization(k) if k.source_ref.kind == "ExternalArtifact" => Inputs {
                dirs: vec![(PathBuf::new(), Reach::Whole, false)],
                ..Inputs::default()
            },
            FluxSpec::Kustomization(k) => {
                let mut read = reader.kustomization(&k.path, &k.components);
                // Its own `spec.patches` may add a `dependsOn` to what it applies.
                if let Some(patches) = &k.patches {
                    reader.patched_depends_on(Path::new(""), patches, &mut read);
                }
                read
            }
            FluxSpec::HelmRelease(h) => {
                let mut out = Inputs::default();
                match &h.chart {
                    ChartSource::Template(chart) => reader.chart(chart, &mut out),
                    ChartSource::Ref(r) => {
                        if let Some(chart) = helm_charts.get(&pair(&r.kind, &r.name)) {
                            reader.chart(chart, &mut out);
                        }
                    }
                }
                out
            }
            _ => Inputs::default(),
        })
        .collect();

    // What each producer uses by name: sources, data, dependencies.
    let mut uses: BTreeMap<KindName, BTreeSet<usize>> = BTreeMap::new();
    let mut dependants: BTreeMap<KindName, BTreeSet<usize>> = BTreeMap::new();
    let mut checkers: BTreeMap<KindName, BTreeSet<usize>> = BTreeMap::new();
    for (i, flux) in objects.iter().enumerate() {
        let mut used = Vec::new();
        match &flux.spec {
            FluxSpec::Kustomization(k) => {
                used.push(pair(&k.source_ref.kind, &k.source_ref.name));
                for data in k.post_build.iter().flat_map(|p| &p.substitute_from) {
                    used.push(pair(&data.kind, &data.name));
                }
            }
            FluxSpec::HelmRelease(h) => {
                match &h.chart {
                    ChartSource::Template(chart) => {
                        used.push(pair(&chart.source_ref.kind, &chart.source_ref.name));
                    }
                    ChartSource::Ref(r) => {
                        used.push(pair(&r.kind, &r.name));
                        if let Some(chart) = helm_charts.get(&pair(&r.kind, &r.name)) {
                            used.push(pair(&chart.source_ref.kind, &chart.source_ref.name));
                        }
                    }
                }
                for data in &h.values_from {
                    used.push(pair(&data.kind, &data.name));
                }
            }
            _ => {}
        }
        for key in used {
            uses.entry(key).or_default().insert(i);
        }
        // A Kustomization's `healthChecks` read the outcome of what they name, applied by it
        // or not.
        for checked in flux
            .as_kustomization()
            .into_iter()
            .flat_map(|k| &k.health_checks)
        {
            checkers
                .entry(pair(&checked.kind, &checked.name))
                .or_default()
                .insert(i);
        }
        for dependency in flux.depends_on() {
            let kind = dependency
                .kind
                .clone()
                .unwrap_or_else(|| flux.object.id.kind.to_string());
            dependants
                .entry(pair(&kind, &dependency.name))
                .or_default()
                .insert(i);
        }
    }
    let index: BTreeMap<KindName, Vec<usize>> =
        objects
            .iter()
            .enumerate()
            .fold(BTreeMap::new(), |mut index, (i, f)| {
                index.entry(kind_name(&f.object.id)).or_default().push(i);
                index
            });
    // Parents and children, from discovery's static reading.
    let mut parents: BTreeMap<KindName, BTreeSet<KindName>> = BTreeMap::new();
    let mut children: BTreeMap<KindName, BTreeSet<KindName>> = BTreeMap::new();
    // Objects each producer writes (applies from a file).
    let mut writes: BTreeMap<KindName, BTreeSet<KindName>> = BTreeMap::new();
    for ((_, id), parent) in &repository.parents {
        let (child, parent) = (kind_name(id), kind_name(parent));
        writes
            .entry(parent.clone())
            .or_default()
            .insert(child.clone());
        if FluxKind::from_group_kind(&id.group, &id.kind).is_some() {
            parents
                .entry(child.clone())
                .or_default()
                .insert(parent.clone());
            children.entry(parent).or_default().insert(child);
        }
    }
    // The `dependsOn` entries a producer's patches add to the Flux objects it writes (a
    // component adding a dependency to every HelmRelease of the apps using it): those objects
    // depend on what they name, or, for a variable without a default, on any of its kind.
    let mut any_name_dependants: BTreeMap<String, BTreeSet<usize>> = BTreeMap::new();
    for (i, flux) in objects.iter().enumerate() {
        let added = inputs.get(i).map_or(&[][..], |x| &x.patched_depends_on[..]);
        if added.is_empty() {
            continue;
        }
        let post_build = flux.as_kustomization().and_then(|k| k.post_build.as_ref());
        for written in writes
            .get(&kind_name(&flux.object.id))
            .into_iter()
            .flatten()
        {
            for &o in index.get(written).into_iter().flatten() {
                for dependency in added {
                    if !kind_may_match(dependency.target_kind.as_deref(), &written.0) {
                        continue;
                    }
                    let kind = dependency.kind.clone().unwrap_or_else(|| written.0.clone());
                    match substituted_name(&dependency.name, post_build) {
                        Some(name) => dependants.entry(pair(&kind, &name)).or_default(),
                        None => any_name_dependants.entry(kind).or_default(),
                    }
                    .insert(o);
                }
            }
        }
    }

    // Where each object is written (ConfigMaps and Secrets only a bootstrap applies included:
    // a lookup of this run may read them).
    let mut written_in: BTreeMap<&Path, Vec<KindName>> = BTreeMap::new();
    for object in repository
        .flux_objects
        .iter()
        .map(|f| &f.object)
        .chain(&repository.data_objects)
        .chain(&repository.held_data)
    {
        written_in
            .entry(object.file.as_path())
            .or_default()
            .push(kind_name(&object.id));
    }

    // Direct effects of each file: producers that read it, and objects whose content may change.
    let mut whole: BTreeSet<usize> = BTreeSet::new();
    let mut partial: BTreeSet<usize> = BTreeSet::new();
    let mut changed_objects: BTreeSet<KindName> = BTreeSet::new();
    // The changed files no producer written in the repository reads, that a build may read.
    let mut unattributed: Vec<&Path> = Vec::new();
    for file in files {
        let mut read = false;
        // A file this side lacks (deleted, or not yet added), or a kustomization that names
        // what this side lacks, fails the build that reads it: everything its readers output may
        // change, not only its objects.
        let absent = reader.fails_builds(&file.path)
            || (options.failing_on_a_side).is_some_and(|a| a.contains(&file.path));
        for (i, input) in inputs.iter().enumerate() {
            for reach in input.reach(&file.path, &reader.kustomization_dirs) {
                read = true;
                match reach {
                    Reach::Whole => {
                        whole.insert(i);
                    }
                    Reach::Objects if absent => {
                        whole.insert(i);
                    }
                    Reach::Objects => {
                        partial.insert(i);
                    }
                    Reach::Group(g) => {
                        // What the group outputs changes whether the build fails or not: its
                        // objects are named here, where one side's static reading may lack them.
                        if absent {
                            whole.insert(i);
                        }
                        partial.insert(i);
                        if let Some(group) = input.groups.get(g) {
                            changed_objects.extend(group.generated.iter().cloned());
                            for path in &group.files {
                                changed_objects.extend(
                                    written_in
                                        .get(path.as_path())
                                        .into_iter()
                                        .flatten()
                                        .cloned(),
                                );
                            }
                        }
                    }
                }
            }
        }
        let mut defined: BTreeSet<KindName> = written_in
            .get(file.path.as_path())
            .into_iter()
            .flatten()
            .cloned()
            .collect();
        let reached = !defined.is_empty() || read;
        if let Some(text) = file
            .base
            .as_ref()
            .filter(|_| is_yaml(&file.path))
            .filter(|_| reached || !options.base_objects_where_reached)
            .and_then(|b| std::str::from_utf8(b).ok())
        {
            if let Ok(before) = crate::model::parse_objects(text, &file.path) {
                // A kustomization file's own `kind: Kustomization` is kustomize's configuration,
                // not an object anything applies.
                let objects = before
                    .iter()
                    .filter(|o| o.id.group != KUSTOMIZE_CONFIG_GROUP);
                defined.extend(objects.map(|o| kind_name(&o.id)));
            }
        }
        if !read && defined.is_empty() {
            selection.unread += 1;
            let may_be_input = is_yaml(&file.path)
                || (file.path.parent()).is_some_and(|dir| reader.kustomization_dirs.contains(dir));
            if may_be_input {
                unattributed.push(file.path.as_path());
            }
        }
        changed_objects.extend(defined);
    }
    // Kustomizations made at run time (a FluxInstance's sync, a ResourceSet's templates, the
    // instance a bootstrap installs from a `flux-instance` HelmRelease) read paths the static
    // reading knows only where what is written decides them: such a file may be one of theirs.
    if !unattributed.is_empty() {
        let makers: Vec<(&FluxObject, Option<Inputs>)> = (objects.iter())
            .filter(|f| makes_kustomizations_at_run_time(f))
            .map(|f| {
                let inputs = made_kustomization_path(f)
                    .map(|p| reader.kustomization(p, &[]))
                    .filter(|made| applies_only_known(&reader, made, &inputs, &index));
                (*f, inputs)
            })
            .collect();
        for file in &unattributed {
            let reached = makers.iter().find(|(_, inputs)| {
                (inputs.as_ref())
                    .is_none_or(|i| !i.reach(file, &reader.kustomization_dirs).is_empty())
            });
            if let Some((maker, inputs)) = reached {
                let id = &maker.object.id;
                selection.full = Some(match inputs {
                    None => format!(
                        "`{}` changed, which no Kustomization written in the repository reads, and {} {} makes Kustomizations whose paths are known only once it runs",
                        file.display(),
                        id.kind,
                        id.name
                    ),
                    Some(_) => format!(
                        "`{}` changed, which the Kustomization {} {} makes reads, known only once it runs",
                        file.display(),
                        id.kind,
                        id.name
                    ),
                });
                return selection;
            }
        }
    }
    for key in &changed_objects {
        for &i in index.get(key).into_iter().flatten() {
            whole.insert(i);
        }
        for &i in uses.get(key).into_iter().flatten() {
            whole.insert(i);
        }
        // What `dependsOn` it, here even where the object is not (deleted on this side).
        for &i in dependants.get(key).into_iter().flatten() {
            partial.insert(i);
        }
    }
    // Closure: children and consumers of what a producer may change whole; dependants of any.
    let mut queue: Vec<usize> = whole.iter().copied().collect();
    let mut dependants_done: BTreeSet<usize> = BTreeSet::new();
    queue.extend(partial.iter().copied());
    let mut selected: BTreeSet<usize> = whole.union(&partial).copied().collect();
    while let Some(i) = queue.pop() {
        let Some(flux) = objects.get(i) else { continue };
        let key = kind_name(&flux.object.id);
        let mut next: BTreeSet<usize> = BTreeSet::new();
        if whole.contains(&i) {
            let mut made: BTreeSet<KindName> = writes.get(&key).cloned().unwrap_or_default();
            made.extend(
                inputs
                    .get(i)
                    .into_iter()
                    .flat_map(|x| &x.groups)
                    .flat_map(|g| g.generated.iter().cloned()),
            );
            for object in made.iter().chain(children.get(&key).into_iter().flatten()) {
                next.extend(index.get(object).into_iter().flatten());
                next.extend(uses.get(object).into_iter().flatten());
            }
        }
        if dependants_done.insert(i) {
            next.extend(dependants.get(&key).into_iter().flatten());
            next.extend(any_name_dependants.get(&key.0).into_iter().flatten());
            // A Kustomization that checks the health of what it applies (`wait`,
            // `healthChecks`) ends as its children do: its outcome, and so its dependants', may
            // change with theirs.
            let checking_parents = (parents.get(&key).into_iter().flatten())
                .flat_map(|parent| index.get(parent).into_iter().flatten())
                .copied()
                .filter(|&p| {
                    objects
                        .get(p)
                        .and_then(|f| f.as_kustomization())
                        .is_some_and(|k| k.wait || !k.health_checks.is_empty())
                })
                .chain(checkers.get(&key).into_iter().flatten().copied());
            for p in checking_parents.collect::<Vec<_>>() {
                if selected.insert(p) || !dependants_done.contains(&p) {
                    queue.push(p);
                }
            }
        }
        for n in next {
            let fresh = whole.insert(n);
            selected.insert(n);
            if fresh {
                queue.push(n);
            }
        }
    }
    // A Kustomization whose whole output may change brings in its children, as far as the
    // static reading knows them: one applying Flux objects it does not know (their source is one
    // only the run maps to the working tree, a file read as a patch and a resource at once) would
    // change them unseen.
    for &i in &whole {
        let applied = (objects.get(i).and_then(|f| f.as_kustomization()))
            .and_then(|_| reader.flux_objects_applied(inputs.get(i)?));
        let unknown = applied
            .into_iter()
            .flatten()
            .find(|object| !index.contains_key(object));
        if let (Some((kind, name)), Some(flux)) = (unknown, objects.get(i)) {
            selection.full = Some(format!(
                "{} {} may change whole, and it applies {kind} {name}, which the static reading does not know",
                flux.object.id.kind, flux.object.id.name
            ));
            return selection;
        }
    }

    // Ancestors, and the sources the selected producers use.
    let mut keys: BTreeSet<KindName> = selected
        .iter()
        .filter_map(|&i| objects.get(i))
        .map(|f| kind_name(&f.object.id))
        .collect();
    let mut up: Vec<KindName> = keys.iter().cloned().collect();
    while let Some(key) = up.pop() {
        for parent in parents.get(&key).into_iter().flatten() {
            if keys.insert(parent.clone()) {
                up.push(parent.clone());
            }
        }
    }
    let used_sources: Vec<KindName> = uses
        .iter()
        .filter(|(key, users)| {
            FluxKind::from_kind(&key.0).is_some_and(FluxKind::is_source)
                && users.iter().any(|i| selected.contains(i))
        })
        .map(|(key, _)| key.clone())
        .collect();
    keys.extend(used_sources);
    for key in &keys {
        for &i in index.get(key).into_iter().flatten() {
            if let Some(flux) = objects.get(i) {
                // An ancestor runs as in a full run; only a changed one makes what is unknown.
                if opaque(flux) && selected.contains(&i) && selection.full.is_none() {
                    selection.full = Some(format!(
                        "{} {} is affected, and what it makes is known only once it runs",
                        flux.object.id.kind, flux.object.id.name
                    ));
                }
                selection.producers.insert(flux.object.id.clone());
            }
        }
    }
    selection
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn joining_never_climbs_above_the_root() {
        assert_eq!(
            join_lexically(Path::new("a/b"), "../c/./d.yaml"),
            Some(PathBuf::from("a/c/d.yaml"))
        );
        assert_eq!(join_lexically(Path::new("a"), "../../c"), None);
        assert_eq!(join_lexically(Path::new("a"), "/etc/passwd"), None);
    }

    #[test]
    fn a_path_with_a_variable_is_read_around_its_variables() {
        assert_eq!(VariablePath::of("./apps/base"), None);
        let dev = VariablePath::of("./apps/${CLUSTER:=dev}").unwrap();
        assert_eq!(dev.before, "./apps");
        assert_eq!(dev.ending(), None, "nothing literal after it");
        let root = VariablePath::of("${ROOT}/apps").unwrap();
        assert_eq!(root.before, "");
        assert_eq!(root.ending(), Some(PathBuf::from("apps")));
        let unbraced = VariablePath::of("./k/$CLUSTER/x/${APP}/./y/").unwrap();
        assert_eq!(unbraced.before, "./k", "the unbraced form too");
        assert_eq!(
            unbraced.ending(),
            Some(PathBuf::from("y")),
            "after the last variable"
        );
        let climbing = VariablePath::of("./k/${CLUSTER}/../x").unwrap();
        assert_eq!(
            climbing.ending(),
            None,
            "`..` after a variable lands anywhere"
        );
    }

    #[test]
    fn a_patch_target_kind_is_an_anchored_regex() {
        assert!(kind_may_match(None, "HelmRelease"));
        assert!(kind_may_match(Some(""), "HelmRelease"));
        assert!(kind_may_match(Some("HelmRelease"), "HelmRelease"));
        assert!(!kind_may_match(Some("Helm"), "HelmRelease"), "anchored");
        assert!(kind_may_match(Some("Helm.*"), "HelmRelease"));
        assert!(kind_may_match(
            Some("(Deployment|HelmRelease)"),
            "HelmRelease"
        ));
        assert!(!kind_may_match(
            Some("Deployment|StatefulSet"),
            "HelmRelease"
        ));
        assert!(
            kind_may_match(Some("("), "HelmRelease"),
            "unreadable: may match"
        );
    }

    #[test]
    fn a_patched_dependency_name_takes_the_kustomizations_substitution() {
        let post_build = |substitute: &[(&str, &str)], from: bool| crate::model::PostBuild {
            substitute: (substitute.iter())
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .collect(),
            substitute_from: if from {
                vec![crate::model::DataRef {
                    kind: "ConfigMap".into(),
                    name: "vars".into(),
                    optional: false,
                    values_key: None,
                    target_path: None,
                    pos: Default::default(),
                }]
            } else {
                Vec::new()
            },
        };
        assert_eq!(substituted_name("db", None).as_deref(), Some("db"));
        assert_eq!(substituted_name("${DB:=pg}", None).as_deref(), Some("pg"));
        let set = post_build(&[("DB", "db")], true);
        assert_eq!(
            substituted_name("${DB:=pg}-x", Some(&set)).as_deref(),
            Some("db-x")
        );
        let from = post_build(&[], true);
        assert_eq!(
            substituted_name("${DB:=pg}", Some(&from)),
            None,
            "a substituteFrom may set it"
        );
        assert_eq!(
            substituted_name("${DB}", None),
            None,
            "no default: any name"
        );
    }

    #[test]
    fn a_namespace_written_nowhere_matches_any() {
        let selection = Selection {
            producers: [ResourceId::new("v1", "HelmRelease", "", "app")].into(),
            ..Selection::default()
        };
        assert!(selection.contains(&ResourceId::new("v1", "HelmRelease", "media", "app")));
        assert!(!selection.contains(&ResourceId::new("v1", "HelmRelease", "media", "other")));
        assert!(!selection.contains(&ResourceId::new("v1", "Kustomization", "media", "app")));
    }
}
