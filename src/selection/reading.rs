//! The static reading of a repository's files: which files a Kustomization reads (the
//! kustomization files of its `spec.path`, every path they name, its components, and where Flux
//! generates the kustomization every YAML file under the path) and which a HelmRelease's chart in
//! the repository reads, from the files as written. `--changed-only` attributes changed files
//! with it (`selection::changed`); a scoped run finds the Kustomizations that read an object's
//! file when no static producer applies it (`selection::scope`).
//!
//! Not for: deciding what a change selects (that is `changed`) or reading git.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Component, Path, PathBuf};

use crate::discovery::{Repository, KUSTOMIZATION_FILE_NAMES};
use crate::model::{FluxSpec, HelmChartTemplate, ResourceId};
use crate::yaml::Node;

/// Kustomizations nest at most this deep in a static reading.
const MAX_DEPTH: usize = 64;

/// A kind and a name, as objects are attributed.
pub(super) type KindName = (String, String);

pub(super) fn pair(kind: &str, name: &str) -> KindName {
    (kind.to_owned(), name.to_owned())
}

/// How much of a producer's output a file can change.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Reach {
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
pub(super) struct Group {
    pub(super) files: BTreeSet<PathBuf>,
    pub(super) generated: BTreeSet<KindName>,
}

/// What one producer reads, relative to the repository root.
#[derive(Default)]
pub(super) struct Inputs {
    pub(super) files: BTreeMap<PathBuf, BTreeSet<Reach>>,
    /// Directories whose files it may read: `(dir, reach, YAML files only)`.
    pub(super) dirs: Vec<(PathBuf, Reach, bool)>,
    pub(super) groups: Vec<Group>,
    /// The groups being read, innermost last: a file read now belongs to each.
    pub(super) active: Vec<usize>,
}

impl Inputs {
    pub(super) fn add_file(&mut self, path: PathBuf, reach: Reach) {
        for &g in &self.active {
            if let Some(group) = self.groups.get_mut(g) {
                group.files.insert(path.clone());
            }
        }
        self.files.entry(path).or_default().insert(reach);
    }

    pub(super) fn add_generated(&mut self, key: KindName) {
        for &g in &self.active {
            if let Some(group) = self.groups.get_mut(g) {
                group.generated.insert(key.clone());
            }
        }
    }

    /// How far `path` reaches into this producer's output, if it reads it.
    pub(super) fn reach(
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

pub(super) fn is_yaml(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "yaml" || e == "yml")
}

/// `entry` (relative, as a kustomization names it) joined to `dir` without touching the file
/// system; `None` when it is absolute or climbs above the root.
pub(super) fn join_lexically(dir: &Path, entry: &str) -> Option<PathBuf> {
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

pub(super) fn is_remote(entry: &str) -> bool {
    entry.contains("://")
        || entry.starts_with("github.com/")
        || entry.starts_with("git@")
        || entry.starts_with("oci:")
}

/// Every scalar string under `node`.
pub(super) fn strings<'n>(node: &'n Node, out: &mut Vec<&'n str>) {
    match node {
        Node::Scalar(s) => out.push(s.value.as_str()),
        Node::Sequence(seq) => seq.items.iter().for_each(|item| strings(item, out)),
        Node::Mapping(map) => map.iter().for_each(|(_, value)| strings(value, out)),
    }
}

/// The static reading of a repository's files that attribution needs.
pub(super) struct Reader<'r> {
    pub(super) repository: &'r Repository,
    /// Directories (relative) holding a kustomization file.
    pub(super) kustomization_dirs: foldhash::HashSet<PathBuf>,
    /// YAML files, relative, sorted.
    pub(super) yaml_files: Vec<PathBuf>,
}

impl<'r> Reader<'r> {
    pub(super) fn new(repository: &'r Repository) -> Self {
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
        }
    }

    pub(super) fn absolute(&self, relative: &Path) -> PathBuf {
        self.repository.root.join(relative)
    }

    pub(super) fn kustomization_file(&self, dir: &Path) -> Option<PathBuf> {
        KUSTOMIZATION_FILE_NAMES
            .iter()
            .map(|name| dir.join(name))
            .find(|file| self.repository.fs_facts.is_file(&self.absolute(file)))
    }

    pub(super) fn kustomization_node(&self, file: &Path) -> Option<std::sync::Arc<Node>> {
        let absolute = self.absolute(file);
        if let Some(documents) = self.repository.parsed_files.get(&absolute) {
            return documents.first().map(|d| d.root.clone());
        }
        let text = crate::fsio::read_to_string(
            &self.repository.fs_facts,
            &absolute,
            crate::fsio::Confine::within(&self.repository.root),
        )
        .ok()?;
        let documents =
            crate::yaml::parse_stream(&text, &crate::yaml::ParseOptions::default()).ok()?;
        documents.into_iter().next().map(|d| d.root)
    }

    /// What a build of `dir` reads. `component_of` is the reach of the kustomization that
    /// includes `dir` as a component (its patches change what that one outputs); `seen` guards
    /// against cycles.
    pub(super) fn directory(
        &self,
        dir: &Path,
        component_of: Option<Reach>,
        depth: usize,
        seen: &mut BTreeSet<(PathBuf, Option<Reach>)>,
        out: &mut Inputs,
    ) {
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
    pub(super) fn fields(
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

    pub(super) fn kustomization(&self, dir: &str, components: &[String]) -> Inputs {
        let mut out = Inputs::default();
        let mut seen = BTreeSet::new();
        // A path holding a variable is known only once the parent's post-build substitutes it
        // (kustomize-controller itself reads `spec.path` as it is): whatever it becomes, it is
        // below its literal part, so every file there may change the output.
        if let Some(literal) = before_variable(dir) {
            if let Some(prefix) = join_lexically(Path::new(""), &literal) {
                out.dirs.push((prefix, Reach::Whole, false));
            }
            return out;
        }
        let Some(dir) = join_lexically(Path::new(""), dir) else {
            return out;
        };
        self.directory(&dir, None, 0, &mut seen, &mut out);
        for component in components {
            if let Some(path) = join_lexically(&dir, component) {
                self.directory(&path, Some(Reach::Whole), 0, &mut seen, &mut out);
            }
        }
        out
    }

    /// A chart in the repository and its values files.
    pub(super) fn chart(&self, chart: &HelmChartTemplate, out: &mut Inputs) {
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

/// The path components of `path` before the first that holds a variable (`$`), when one does.
pub(super) fn before_variable(path: &str) -> Option<String> {
    if !path.contains('$') {
        return None;
    }
    let literal: Vec<&str> = path
        .split('/')
        .take_while(|part| !part.contains('$'))
        .collect();
    Some(literal.join("/"))
}

/// What the Kustomizations written in a repository read and write, from their kustomization
/// trees as written, each tree read once and let go: which of them read each of some files (the
/// seeds a scoped run asks about), and the kinds and names of the objects each one's tree writes
/// or generates. Kept compact (names interned): a repository of many Kustomizations over many
/// files costs their product in small integers, not in paths. Only the Kustomizations a scoped
/// run may defer are read: a GitRepository's, with a path that holds no variable.
pub(crate) struct KustomizationTrees {
    readers: BTreeMap<PathBuf, Vec<ResourceId>>,
    /// Per Kustomization (by kind and name), the interned names its tree writes, sorted.
    writes: BTreeMap<KindName, Vec<u32>>,
    names: foldhash::HashMap<KindName, u32>,
}

impl KustomizationTrees {
    /// The trees of `repository`'s Kustomizations, with the readers of each of `files`
    /// (relative to the repository root).
    pub(crate) fn of(repository: &Repository, files: &BTreeSet<PathBuf>) -> Self {
        let reader = Reader::new(repository);
        let mut trees = KustomizationTrees {
            readers: BTreeMap::new(),
            writes: BTreeMap::new(),
            names: foldhash::HashMap::default(),
        };
        for flux in &repository.flux_objects {
            let FluxSpec::Kustomization(k) = &flux.spec else {
                continue;
            };
            // Only those a scoped run may defer: the others are built in every run.
            if k.source_ref.kind != "GitRepository" || k.path.contains('$') {
                continue;
            }
            let tree = reader.kustomization(&k.path, &k.components);
            let mut read: BTreeSet<&Path> = tree.files.keys().map(PathBuf::as_path).collect();
            for (dir, _, yaml_only) in &tree.dirs {
                let start = reader
                    .yaml_files
                    .partition_point(|f| f.as_path() < dir.as_path());
                read.extend(
                    reader.yaml_files[start..]
                        .iter()
                        .take_while(|f| f.starts_with(dir))
                        .map(PathBuf::as_path),
                );
                if !yaml_only {
                    read.extend(
                        (files.range(dir.to_path_buf()..))
                            .take_while(|f| f.starts_with(dir))
                            .map(PathBuf::as_path),
                    );
                }
            }
            let mut written: Vec<u32> = Vec::new();
            for file in &read {
                if files.contains(*file) {
                    (trees.readers.entry(file.to_path_buf()).or_default())
                        .push(flux.object.id.clone());
                }
                let documents = repository.parsed_files.get(&reader.absolute(file));
                for document in documents.into_iter().flat_map(|d| d.iter()) {
                    if let Some(name) = object_name(&document.root) {
                        written.push(trees.intern(name));
                    }
                }
            }
            for group in &tree.groups {
                for name in &group.generated {
                    written.push(trees.intern(name.clone()));
                }
            }
            written.sort_unstable();
            written.dedup();
            let key = (
                flux.object.id.kind.to_string(),
                flux.object.id.name.to_string(),
            );
            let entry = trees.writes.entry(key).or_default();
            entry.extend(written);
            entry.sort_unstable();
            entry.dedup();
        }
        for readers in trees.readers.values_mut() {
            readers.sort();
            readers.dedup();
        }
        trees
    }

    fn intern(&mut self, name: KindName) -> u32 {
        let next = u32::try_from(self.names.len()).unwrap_or(u32::MAX);
        *self.names.entry(name).or_insert(next)
    }

    /// The Kustomizations whose trees may read `file` (one of those asked about), sorted.
    pub(crate) fn readers_of(&self, file: &Path) -> &[ResourceId] {
        self.readers.get(file).map_or(&[], Vec::as_slice)
    }

    /// Whether the tree of the Kustomization `kustomization` (kind and name) writes or
    /// generates an object of one of `names`, its own name aside.
    pub(crate) fn writes_any(&self, kustomization: &KindName, names: &BTreeSet<KindName>) -> bool {
        let Some(written) = self.writes.get(kustomization) else {
            return false;
        };
        names
            .iter()
            .filter(|name| *name != kustomization)
            .any(|name| {
                self.names
                    .get(name)
                    .is_some_and(|id| written.binary_search(id).is_ok())
            })
    }
}

/// The kind and `metadata.name` of a document, when it has both.
fn object_name(root: &Node) -> Option<KindName> {
    let kind = root.get("kind")?.as_str()?;
    let name = root.get("metadata")?.get("name")?.as_str()?;
    Some(pair(kind, name))
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
    fn a_path_with_a_variable_reads_everything_below_its_literal_part() {
        assert_eq!(before_variable("./apps/base"), None);
        assert_eq!(
            before_variable("./apps/${CLUSTER:=dev}").as_deref(),
            Some("./apps")
        );
        assert_eq!(before_variable("${ROOT}/apps").as_deref(), Some(""));
        assert_eq!(
            before_variable("./k/$CLUSTER/x").as_deref(),
            Some("./k"),
            "the unbraced form too"
        );
    }
}
