//! OFX111–OFX114: what the repository holds that nothing applies or reads. Flux reports nothing
//! for a manifest no Kustomization applies (the object simply never reaches the cluster); these
//! checks do.
//!
//! - OFX111: a YAML file that holds Kubernetes objects, which no Kustomization reached from the
//!   entry point applies and which is no kustomize input (a resource, patch, component or
//!   generator file any `kustomization.yaml` names), no chart file and no bootstrap file.
//! - OFX112: a Flux Kustomization, HelmRelease, ResourceSet or source written in such a file: a
//!   forgotten app.
//! - OFX113: a source that the entry point applies and that no object refers to.
//! - OFX114: a ConfigMap or Secret made by a kustomize generator for values or variables (its
//!   name says so) whose name nothing reads.
//!
//! The caller says which files are applied or read (the run knows); this module reads the
//! documents themselves and knows no Store, no discovery and no command line. A file opts out with
//! `offlux.io/ignore` on one of its objects, or by a glob in [`OrphanInput::ignore`].

use std::collections::HashSet;
use std::path::{Component, Path, PathBuf};

use super::{Code, Finding, IGNORE_ANNOTATION};
use crate::model::Object;
use crate::yaml::{Document, Node};

/// What one object the entry point applies is, and who applies it.
pub struct Applied<'a> {
    /// `Kind/namespace/name` of the producer, or the object itself when written in the repository.
    pub producer: &'a str,
    pub object: &'a Object,
    /// Rendered by a Kustomization's build (not a chart's, not as written).
    pub built: bool,
}

/// What the kustomization files of the repository say, whether or not anything applies them:
/// the files they name, and the directories that have one.
pub struct Layout {
    inputs: HashSet<PathBuf>,
    kustomization_dirs: HashSet<PathBuf>,
}

impl Layout {
    pub fn new(files: &[(&Path, &[Document])]) -> Layout {
        Layout {
            inputs: kustomize_inputs(files),
            kustomization_dirs: files
                .iter()
                .filter(|(file, _)| is_kustomization_file(file))
                .filter_map(|(file, _)| file.parent().map(Path::to_path_buf))
                .collect(),
        }
    }

    /// Whether some kustomization file names `file` (as a resource, patch, generator input...).
    pub(crate) fn is_input(&self, file: &Path) -> bool {
        self.inputs.contains(file)
    }

    /// Whether applying `entry` applies `file`, as Flux does a directory without a kustomization
    /// file: every YAML file below it, but those under a directory that has its own (which names
    /// its files itself).
    pub(crate) fn generated_by(&self, entry: &Path, file: &Path) -> bool {
        !self.kustomization_dirs.contains(entry)
            && file.starts_with(entry)
            && !file
                .ancestors()
                .skip(1)
                .take_while(|dir| *dir != entry)
                .any(|dir| self.kustomization_dirs.contains(dir))
    }
}

/// The facts the orphan checks judge.
pub struct OrphanInput<'a> {
    pub layout: &'a Layout,
    /// Every YAML file Flux sees in the repository (relative to its root) with its documents.
    pub files: Vec<(&'a Path, &'a [Document])>,
    /// The objects the entry points apply: rendered, or reconciled as written.
    pub applied: Vec<Applied<'a>>,
    /// Files some reached producer applies or reads (relative), whatever this module finds itself.
    pub used_files: HashSet<PathBuf>,
    /// Directories whose files are judged; `None` judges every file.
    pub judged_dirs: Option<HashSet<PathBuf>>,
    /// Directories whose files are not judged: what a producer that could not be rendered
    /// offline would apply.
    pub unjudged_dirs: HashSet<PathBuf>,
    /// Files that match are never orphans (`validate.orphans.ignore` in `.offlux.yaml`).
    pub ignore: globset::GlobSet,
    /// The entry points' directories (relative). One without a kustomization file is applied
    /// as Flux generates one: every YAML file below it, but those of directories that have
    /// their own kustomization file.
    pub entry_dirs: Vec<PathBuf>,
    /// How the entry point is shown in messages (`clusters/prod`, or a list).
    pub entry: String,
}

/// Flux's producer kinds, by API group.
const PRODUCERS: &[(&str, &str)] = &[
    ("kustomize.toolkit.fluxcd.io", "Kustomization"),
    ("helm.toolkit.fluxcd.io", "HelmRelease"),
    ("fluxcd.controlplane.io", "ResourceSet"),
];

/// Flux's source kinds (source-controller's group).
const SOURCES: &[&str] = &[
    "GitRepository",
    "OCIRepository",
    "HelmRepository",
    "HelmChart",
    "Bucket",
];
const SOURCE_GROUP: &str = "source.toolkit.fluxcd.io";

/// Files the bootstrap applies by name, whoever points at them.
const BOOTSTRAP_FILES: &[&str] = &[
    "gotk-components.yaml",
    "gotk-sync.yaml",
    "gotk-patches.yaml",
];

/// Every orphan finding, unsorted.
pub fn find(input: &OrphanInput<'_>) -> Vec<Finding> {
    let layout = input.layout;
    let chart_dirs: HashSet<&Path> = input
        .files
        .iter()
        .filter(|(file, _)| file.file_name().is_some_and(|n| n == "Chart.yaml"))
        .filter_map(|(file, _)| file.parent())
        .collect();
    let held = referenced_names(input, false);
    let generated_by_entry = |file: &Path| {
        input
            .entry_dirs
            .iter()
            .any(|entry| layout.generated_by(entry, file))
    };
    let mut findings = Vec::new();
    for (file, documents) in &input.files {
        let file: &Path = file;
        if input.used_files.contains(file)
            || generated_by_entry(file)
            || layout.is_input(file)
            || is_kustomization_file(file)
            || file
                .file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| BOOTSTRAP_FILES.contains(&n))
            || file.ancestors().any(|dir| chart_dirs.contains(dir))
            || under(file, &input.unjudged_dirs)
            || input
                .judged_dirs
                .as_ref()
                .is_some_and(|dirs| !under(file, dirs))
            || input.ignore.is_match(file)
        {
            continue;
        }
        let objects: Vec<&Node> = documents
            .iter()
            .map(|d| &*d.root)
            .filter(|root| is_kubernetes_object(root))
            .collect();
        if objects.is_empty() {
            continue;
        }
        // ConfigMaps and Secrets a reached object reads by name are held by the cluster (the
        // bootstrap applied them): `cluster-settings`, the SOPS key.
        if objects
            .iter()
            .all(|o| is_data(o) && held.contains(name_of(o)))
        {
            continue;
        }
        let silenced = |code: Code| objects.iter().any(|o| ignored(o).contains(&code));
        let mut rest = Vec::new();
        for object in &objects {
            let (group, kind) = group_kind(object);
            let forgotten = PRODUCERS.contains(&(group, kind))
                || (group == SOURCE_GROUP && SOURCES.contains(&kind));
            if !forgotten {
                rest.push(*object);
                continue;
            }
            if ignored(object).contains(&Code::ForgottenProducer) {
                continue;
            }
            let what = if group == SOURCE_GROUP {
                "source"
            } else {
                "app"
            };
            findings.push(orphan_finding(
                Code::ForgottenProducer,
                object,
                file,
                format!(
                    "forgotten {what}: {kind} {} is written here but nothing reached from {} applies this file, so Flux never creates it",
                    name_of(object),
                    input.entry
                ),
            ));
        }
        if rest.is_empty() {
            continue;
        }
        if silenced(Code::OrphanManifest) {
            continue;
        }
        let Some(first) = rest.first() else {
            continue;
        };
        let more = match rest.len() {
            1 => String::new(),
            n => format!(" and {} more", n - 1),
        };
        findings.push(orphan_finding(
            Code::OrphanManifest,
            first,
            file,
            format!(
                "{} {}{more} in this file {} applied by nothing reached from {}: no Kustomization's path holds it and no kustomization.yaml lists it",
                group_kind(first).1,
                name_of(first),
                if rest.len() == 1 { "is" } else { "are" },
                input.entry
            ),
        ));
    }
    unused_sources(input, &mut findings);
    unread_values(input, &referenced_names(input, true), &mut findings);
    findings
}

fn orphan_finding(code: Code, object: &Node, file: &Path, message: String) -> Finding {
    Finding {
        code,
        severity: code.default_severity(),
        object: node_label(object),
        producer: "nothing".into(),
        file: file.to_path_buf(),
        line: object.pos().line,
        path: None,
        message,
    }
}

/// OFX113: a source the entry point applies that no object refers to by kind and name.
fn unused_sources(input: &OrphanInput<'_>, findings: &mut Vec<Finding>) {
    fn record<'n>(referrer: &'n Node, references: &mut HashSet<(&'n str, &'n str, &'n str)>) {
        let namespace = referrer
            .get_path(&["metadata", "namespace"])
            .and_then(Node::as_str)
            .unwrap_or("");
        if let Some(spec) = referrer.get("spec") {
            source_refs(spec, namespace, references);
        }
    }
    let mut references: HashSet<(&str, &str, &str)> = HashSet::new();
    for applied in &input.applied {
        record(&applied.object.node, &mut references);
    }
    // What the repository writes elsewhere counts too: a producer that could not be rendered,
    // another cluster's files.
    for (_, documents) in &input.files {
        for document in documents.iter() {
            record(&document.root, &mut references);
        }
    }
    for applied in &input.applied {
        let object = applied.object;
        let id = &object.id;
        if id.group != SOURCE_GROUP || !SOURCES.contains(&id.kind.as_str()) {
            continue;
        }
        let used = [id.namespace.as_str(), ""]
            .iter()
            .any(|ns| references.contains(&(id.kind.as_str(), ns, id.name.as_str())));
        if used
            || ignored(&object.node).contains(&Code::UnusedSource)
            || input
                .unjudged_dirs
                .iter()
                .any(|dir| object.file.starts_with(dir))
        {
            continue;
        }
        findings.push(Finding {
            code: Code::UnusedSource,
            severity: Code::UnusedSource.default_severity(),
            object: super::label(object),
            producer: applied.producer.to_string(),
            file: object.file.clone(),
            line: object.pos.line,
            path: None,
            message: format!(
                "{} {} is referred to by no Kustomization, HelmRelease, HelmChart or other object: Flux fetches it for nothing",
                id.kind, id.name
            ),
        });
    }
}

/// The `(kind, namespace, name)` of every mapping under `node` that names a source by kind and
/// name (`sourceRef`, `chartRef`, an ArtifactGenerator's `sources`); a reference without a
/// namespace is in `namespace` (its referrer's).
fn source_refs<'n>(
    node: &'n Node,
    namespace: &'n str,
    out: &mut HashSet<(&'n str, &'n str, &'n str)>,
) {
    match node {
        Node::Mapping(mapping) => {
            let kind = mapping.get("kind").and_then(Node::as_str);
            let name = mapping.get("name").and_then(Node::as_str);
            if let (Some(kind), Some(name)) = (kind, name) {
                if SOURCES.contains(&kind) {
                    let ns = mapping
                        .get("namespace")
                        .and_then(Node::as_str)
                        .unwrap_or(namespace);
                    out.insert((kind, ns, name));
                    // The namespace may come from a transform the file does not show.
                    out.insert((kind, "", name));
                }
            }
            for (_, value) in mapping.iter() {
                source_refs(value, namespace, out);
            }
        }
        Node::Sequence(sequence) => {
            for item in &sequence.items {
                source_refs(item, namespace, out);
            }
        }
        Node::Scalar(_) => {}
    }
}

/// OFX114: a generated ConfigMap or Secret meant as values or variables that nothing reads.
fn unread_values(input: &OrphanInput<'_>, names: &HashSet<&str>, findings: &mut Vec<Finding>) {
    for applied in &input.applied {
        let object = applied.object;
        let id = &object.id;
        if !applied.built
            || !id.group.is_empty()
            || !matches!(id.kind.as_str(), "ConfigMap" | "Secret")
            || !is_kustomization_file(&object.file)
        {
            continue;
        }
        let stem = without_hash(&id.name);
        if !looks_like_values(stem, &object.node)
            || names.contains(id.name.as_str())
            || names.contains(stem)
            || ignored(&object.node).contains(&Code::UnreadValues)
        {
            continue;
        }
        let line = generator_line(input, &object.file, &id.kind, stem).unwrap_or(object.pos.line);
        findings.push(Finding {
            code: Code::UnreadValues,
            severity: Code::UnreadValues.default_severity(),
            object: super::label(object),
            producer: applied.producer.to_string(),
            file: object.file.clone(),
            line,
            path: None,
            message: format!(
                "{} {stem} is generated for values or variables, but no HelmRelease `valuesFrom`, Kustomization `substituteFrom` or other object names it",
                id.kind
            ),
        });
    }
}

/// The line of the generator entry named `name` in the kustomization `file`.
fn generator_line(input: &OrphanInput<'_>, file: &Path, kind: &str, name: &str) -> Option<u32> {
    let field = match kind {
        "Secret" => "secretGenerator",
        _ => "configMapGenerator",
    };
    let (_, documents) = input.files.iter().find(|(f, _)| *f == file)?;
    documents.iter().find_map(|document| {
        items(document.root.get(field))
            .find(|item| item.get("name").and_then(Node::as_str) == Some(name))
            .map(|item| item.pos().line)
    })
}

/// A generated name without kustomize's content hash (`name-5c8h9kfm7t`).
fn without_hash(name: &str) -> &str {
    match name.rsplit_once('-') {
        Some((stem, hash))
            if hash.len() == 10 && hash.bytes().all(|b| b.is_ascii_alphanumeric()) =>
        {
            stem
        }
        _ => name,
    }
}

/// Whether a generated object is meant as Helm values or post-build variables: its name says so,
/// or it holds a `values.yaml`.
fn looks_like_values(stem: &str, node: &Node) -> bool {
    let stem = stem.to_ascii_lowercase();
    ["values", "vars", "variables", "substitut", "settings"]
        .iter()
        .any(|word| stem.contains(word))
        || ["data", "stringData"].iter().any(|field| {
            node.get(field)
                .and_then(Node::as_mapping)
                .is_some_and(|m| m.iter().any(|(key, _)| key.ends_with("values.yaml")))
        })
}

/// Every value of a `name` field (or a field whose name ends in `Name`) in an applied object,
/// and with `everywhere` in every repository document too, but an object's own name: what a
/// reference could name.
fn referenced_names<'a>(input: &'a OrphanInput<'_>, everywhere: bool) -> HashSet<&'a str> {
    fn walk<'n>(node: &'n Node, depth: usize, out: &mut HashSet<&'n str>) {
        match node {
            Node::Mapping(mapping) => {
                for (key, value) in mapping.iter() {
                    // An object's own name is no reference.
                    if depth == 1 && key == "name" {
                        continue;
                    }
                    if key == "name" || key.ends_with("Name") {
                        if let Some(text) = value.as_str() {
                            out.insert(text);
                        }
                    }
                    walk(value, depth + 1, out);
                }
            }
            Node::Sequence(sequence) => {
                for item in &sequence.items {
                    walk(item, depth + 1, out);
                }
            }
            Node::Scalar(_) => {}
        }
    }
    let mut out = HashSet::new();
    for applied in &input.applied {
        walk(&applied.object.node, 0, &mut out);
    }
    if !everywhere {
        return out;
    }
    for (_, documents) in &input.files {
        for document in documents.iter() {
            // A generator's own `name` is no reference to what it makes.
            let api_version = document.root.get("apiVersion").and_then(Node::as_str);
            if !api_version.is_some_and(|v| v.starts_with("kustomize.config.k8s.io/")) {
                walk(&document.root, 0, &mut out);
            }
        }
    }
    out
}

/// Every file any kustomization file names as a resource, component, patch, generator input or
/// configuration (relative to the root, `..` resolved), whether or not that kustomization is
/// applied: a kustomize input is never an orphan of its own.
fn kustomize_inputs(files: &[(&Path, &[Document])]) -> HashSet<PathBuf> {
    let mut out = HashSet::new();
    for (file, documents) in files {
        let (true, Some(dir)) = (is_kustomization_file(file), file.parent()) else {
            continue;
        };
        for document in documents.iter() {
            let mut add = |entry: &str| {
                // `key=path` in generators; remote URLs are not files of the repository.
                let entry = entry.rsplit_once('=').map_or(entry, |(_, path)| path);
                if entry.contains("://") || entry.starts_with("git@") {
                    return;
                }
                if let Some(path) = lexical_join(dir, entry) {
                    out.insert(path);
                }
            };
            let root = &document.root;
            for field in [
                "resources",
                "bases",
                "components",
                "crds",
                "configurations",
                "transformers",
                "generators",
                "validators",
                "patchesStrategicMerge",
            ] {
                for item in items(root.get(field)) {
                    if let Some(text) = item.as_str() {
                        add(text);
                    }
                }
            }
            for field in ["patches", "patchesJson6902", "replacements"] {
                for item in items(root.get(field)) {
                    if let Some(path) = item.get("path").and_then(Node::as_str) {
                        add(path);
                    }
                }
            }
            for field in ["configMapGenerator", "secretGenerator"] {
                for generator in items(root.get(field)) {
                    for list in ["files", "envs"] {
                        for item in items(generator.get(list)) {
                            if let Some(text) = item.as_str() {
                                add(text);
                            }
                        }
                    }
                    if let Some(env) = generator.get("env").and_then(Node::as_str) {
                        add(env);
                    }
                }
            }
            for chart in items(root.get("helmCharts")) {
                for key in ["valuesFile", "additionalValuesFiles"] {
                    if let Some(text) = chart.get(key).and_then(Node::as_str) {
                        add(text);
                    }
                    for item in items(chart.get(key)) {
                        if let Some(text) = item.as_str() {
                            add(text);
                        }
                    }
                }
            }
            if let Some(path) = root.get_path(&["openapi", "path"]).and_then(Node::as_str) {
                add(path);
            }
        }
    }
    out
}

/// Whether `file` lies in one of `dirs` (the root is the empty path).
fn under(file: &Path, dirs: &HashSet<PathBuf>) -> bool {
    file.ancestors().skip(1).any(|dir| dirs.contains(dir))
}

fn is_kustomization_file(file: &Path) -> bool {
    crate::kustomize::KUSTOMIZATION_FILE_NAMES
        .iter()
        .any(|n| file.file_name().is_some_and(|f| f == *n))
}

fn items(node: Option<&Node>) -> impl Iterator<Item = &Node> {
    node.and_then(Node::as_sequence)
        .into_iter()
        .flat_map(|s| s.items.iter())
}

/// `dir/entry` with `.` and `..` resolved without the file system; `None` above the root.
pub fn lexical_join(dir: &Path, entry: &str) -> Option<PathBuf> {
    let joined = dir.join(entry);
    let mut parts: Vec<&std::ffi::OsStr> = Vec::new();
    for component in joined.components() {
        match component {
            Component::Normal(part) => parts.push(part),
            Component::ParentDir => {
                parts.pop()?;
            }
            Component::CurDir => {}
            Component::RootDir | Component::Prefix(_) => return None,
        }
    }
    Some(parts.iter().collect())
}

/// A document with an apiVersion, a kind and a name, that is no kustomize configuration.
fn is_kubernetes_object(node: &Node) -> bool {
    let api_version = node.get("apiVersion").and_then(Node::as_str);
    let kind = node.get("kind").and_then(Node::as_str);
    let name = node.get_path(&["metadata", "name"]).and_then(Node::as_str);
    match (api_version, kind, name) {
        (Some(api_version), Some(kind), Some(name)) => {
            !api_version.starts_with("kustomize.config.k8s.io/")
                && !kind.is_empty()
                && !name.is_empty()
                // A template for a script or a tool (`${NAME}`, `{{ .name }}`), not a manifest.
                && !["${", "{{", "<<"].iter().any(|mark| name.contains(mark))
        }
        _ => false,
    }
}

fn group_kind(node: &Node) -> (&str, &str) {
    let api_version = node.get("apiVersion").and_then(Node::as_str).unwrap_or("");
    let group = api_version.rsplit_once('/').map_or("", |(group, _)| group);
    (group, node.get("kind").and_then(Node::as_str).unwrap_or(""))
}

fn name_of(node: &Node) -> &str {
    node.get_path(&["metadata", "name"])
        .and_then(Node::as_str)
        .unwrap_or("")
}

fn is_data(node: &Node) -> bool {
    matches!(group_kind(node), ("", "ConfigMap" | "Secret"))
}

fn node_label(node: &Node) -> String {
    let namespace = node
        .get_path(&["metadata", "namespace"])
        .and_then(Node::as_str)
        .unwrap_or("");
    format!("{}/{namespace}/{}", group_kind(node).1, name_of(node))
}

/// The codes a document opts out of with the ignore annotation.
fn ignored(node: &Node) -> Vec<Code> {
    node.get_path(&["metadata", "annotations", IGNORE_ANNOTATION])
        .and_then(Node::as_str)
        .map(|codes| codes.split(',').filter_map(Code::parse).collect())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_names_lose_their_hash_only() {
        assert_eq!(without_hash("app-values-5c8h9kfm7t"), "app-values");
        assert_eq!(without_hash("app-values"), "app-values");
        assert_eq!(without_hash("cluster-settings"), "cluster-settings");
    }

    #[test]
    fn joins_stay_under_the_root() {
        assert_eq!(
            lexical_join(Path::new("apps/base"), "../x/./y.yaml"),
            Some(PathBuf::from("apps/x/y.yaml"))
        );
        assert_eq!(lexical_join(Path::new("a"), "../../y.yaml"), None);
    }
}
