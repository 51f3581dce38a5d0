//! Loading and accumulation: finds a directory's kustomization, reads its resources (files, nested
//! kustomizations, components) under the load restrictor, runs its generators and transformers in
//! kustomize's order, and at the top finishes the build (content hashes, name references, vars,
//! ordering).
//!
//! Not for: the transformers' field work (see `transform`, `nameref`, `generate`).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::fieldspec::{FieldSpec, NameRef};
use super::patch::PatchSchema;
use super::resource::{Behavior, Origin, Res};
use super::{
    generate, nameref, transform, Build, Error, FileKind, LoadRestrictor, Options, Reorder,
};
use crate::fsio;
use crate::yaml::{parse_stream, Document, Node, ParseOptions};

use super::KUSTOMIZATION_FILE_NAMES as KUSTOMIZATION_FILES;

/// Custom field specs a kustomization adds through `configurations` (they apply to its whole
/// subtree's results, and parents inherit them).
#[derive(Clone, Debug, Default)]
pub struct Config {
    pub common_labels: Vec<FieldSpec>,
    pub common_annotations: Vec<FieldSpec>,
    pub name_prefix: Vec<FieldSpec>,
    pub namespace: Vec<FieldSpec>,
    pub images: Vec<FieldSpec>,
    pub replicas: Vec<FieldSpec>,
    pub var_reference: Vec<FieldSpec>,
    pub name_reference: Vec<NameRef>,
}

impl Config {
    fn merge(&mut self, other: &Config) {
        self.common_labels
            .extend(other.common_labels.iter().cloned());
        self.common_annotations
            .extend(other.common_annotations.iter().cloned());
        self.name_prefix.extend(other.name_prefix.iter().cloned());
        self.namespace.extend(other.namespace.iter().cloned());
        self.images.extend(other.images.iter().cloned());
        self.replicas.extend(other.replicas.iter().cloned());
        self.var_reference
            .extend(other.var_reference.iter().cloned());
        self.name_reference
            .extend(other.name_reference.iter().cloned());
    }
}

/// A legacy `vars` entry.
#[derive(Clone, Debug)]
pub struct Var {
    pub name: String,
    pub kind: String,
    pub api_version: Option<String>,
    pub obj_name: String,
    pub namespace: Option<String>,
    pub field_path: String,
}

#[derive(Default)]
pub struct Target {
    pub resources: Vec<Res>,
    /// `sortOptions.order` of the top kustomization.
    pub sort: Option<String>,
    /// `sortOptions.legacySortOptions` of the top kustomization: the kinds put first and last,
    /// in place of the default lists.
    pub legacy_order: Option<(Vec<String>, Vec<String>)>,
    pub config: Config,
    pub vars: Vec<Var>,
}

pub struct Ctx<'a> {
    pub options: &'a Options,
    /// Patch metadata from an `openapi` field; the outermost kustomization declaring one wins.
    pub schema: Option<std::rc::Rc<PatchSchema>>,
    schema_decided: bool,
    stack: Vec<PathBuf>,
    pub diagnostics: Vec<String>,
    pub env_keys_left_out: Vec<super::EnvKeyLeftOut>,
}

impl Ctx<'_> {
    /// The documents of `path` if they were parsed before the build.
    fn parsed(&self, path: &Path) -> Option<&Arc<[Document]>> {
        self.options.parsed_files.as_ref()?.get(path)
    }

    /// `path.canonicalize()`, remembered across the builds that share the options.
    fn real_path(&self, path: &Path) -> Option<PathBuf> {
        self.options.fs_facts.resolve(path)
    }

    /// A path as kustomize shows it: relative to the display root, written as absolute.
    pub fn show(&self, path: &Path) -> String {
        if let Some(root) = &self.options.display_root {
            let root = self.real_path(root).unwrap_or_else(|| root.clone());
            let abs = absolutize(path);
            if let Ok(rel) = abs.strip_prefix(&root) {
                return format!("/{}", rel.display());
            }
        }
        path.display().to_string()
    }

    /// Where an entry of a kustomization in `dir` points. With a display root, that directory
    /// is the file system's root: absolute entries start there and `..` stops there, as in
    /// kustomize's in-memory file system.
    pub fn resolve(&self, dir: &Path, entry: &str) -> PathBuf {
        let Some(root) = &self.options.display_root else {
            return dir.join(entry);
        };
        let normalised_root;
        let root = if is_plain_absolute(root) {
            root.as_path()
        } else {
            normalised_root = absolutize(root);
            normalised_root.as_path()
        };
        let joined = match entry.strip_prefix('/') {
            Some(rest) => root.join(rest),
            None => dir.join(entry),
        };
        let abs = absolutize(&joined);
        if crate::fs_facts::is_within(&abs, root) {
            return abs;
        }
        // climbed above the root: continue from the root with what is left
        let mut out = root.to_path_buf();
        let rel = absolutize(dir)
            .strip_prefix(root)
            .map(Path::to_path_buf)
            .unwrap_or_default();
        let mut parts: Vec<std::path::Component> = rel.components().collect();
        for c in Path::new(entry).components() {
            match c {
                std::path::Component::ParentDir => {
                    parts.pop();
                }
                std::path::Component::Normal(_) => parts.push(c),
                _ => {}
            }
        }
        for p in parts {
            out.push(p);
        }
        out
    }

    /// Reads a file a kustomization in `dir` refers to, under the load restrictor.
    pub fn read_file(&self, dir: &Path, entry: &str) -> Result<(PathBuf, String), String> {
        let (path, bytes) = self.read_bytes(dir, entry)?;
        String::from_utf8(bytes)
            .map(|text| (path.clone(), text))
            .map_err(|_| format!("reading '{}': not valid UTF-8", self.show(&path)))
    }

    /// The bytes of a file a kustomization in `dir` refers to, read through the guarded door
    /// under the load restrictor (and inside the file system root).
    pub fn read_bytes(&self, dir: &Path, entry: &str) -> Result<(PathBuf, Vec<u8>), String> {
        let path = self.resolve(dir, entry);
        let root = self.read_root(dir);
        let confine = fsio::Confine::root_or_anywhere(root);
        match fsio::read(&self.options.fs_facts, &path, confine) {
            Ok(bytes) => Ok((path, bytes)),
            Err(e) => Err(self.read_error(e)),
        }
    }

    /// The directory a file read for a kustomization in `dir` must lie in: the kustomization's own
    /// under `LoadRestrictionsRootOnly` (its directory already lies in the file system root), else
    /// the file system root, if any.
    fn read_root<'p>(&'p self, dir: &'p Path) -> Option<&'p Path> {
        match self.options.load_restrictor {
            LoadRestrictor::RootOnly => Some(dir),
            LoadRestrictor::None => self.options.fs_root.as_deref(),
        }
    }

    /// kustomize's words for a refused or failed read.
    fn read_error(&self, error: fsio::ReadError) -> String {
        let shown = self.show(&error.path);
        match error.kind {
            fsio::ReadErrorKind::NotFound => format!("'{shown}' doesn't exist"),
            fsio::ReadErrorKind::Outside { root, real } => self.refusal(&error.path, &root, &real),
            fsio::ReadErrorKind::Directory => format!("'{shown}' is a directory"),
            other => format!("reading '{shown}': {other}"),
        }
    }

    fn refusal(&self, path: &Path, root: &Path, real: &Path) -> String {
        if self.options.load_restrictor == LoadRestrictor::RootOnly {
            format!(
                "security; file '{}' is not in or below '{}'",
                self.show(real),
                self.show(root)
            )
        } else {
            format!(
                "security; file '{}' is outside the repository root",
                path.display()
            )
        }
    }

    /// Refuses paths outside `Options::fs_root`, symlinks resolved.
    fn check_fs_root(&self, path: &Path) -> Result<(), String> {
        let Some(fs_root) = &self.options.fs_root else {
            return Ok(());
        };
        match fsio::locate(&self.options.fs_facts, path, Some(fs_root)) {
            Err(fsio::ReadError {
                kind: fsio::ReadErrorKind::Outside { .. },
                ..
            }) => Err(format!(
                "security; file '{}' is outside the repository root",
                path.display()
            )),
            // Not there: what lexically lies outside is refused all the same.
            Err(_) => {
                let root = self
                    .real_path(fs_root)
                    .unwrap_or_else(|| absolutize(fs_root));
                if crate::fs_facts::is_within(&absolutize(path), &root) {
                    Ok(())
                } else {
                    Err(format!(
                        "security; file '{}' is outside the repository root",
                        path.display()
                    ))
                }
            }
            Ok(_) => Ok(()),
        }
    }

    fn check_restrictor(&self, dir: &Path, path: &Path) -> Result<(), String> {
        self.check_fs_root(path)?;
        let Some(root) = self.read_root(dir) else {
            return Ok(());
        };
        match fsio::locate(&self.options.fs_facts, path, Some(root)) {
            Err(fsio::ReadError {
                kind: fsio::ReadErrorKind::Outside { root, real },
                path,
            }) => Err(self.refusal(&path, &root, &real)),
            _ => Ok(()),
        }
    }
}

fn absolutize(path: &Path) -> PathBuf {
    if path.is_absolute() && is_plain_absolute(path) {
        return path.to_path_buf();
    }
    let abs = if path.is_absolute() {
        path.to_path_buf()
    } else {
        fsio::absolute(path)
    };
    normalise_absolute(&abs)
}

/// `path` (absolute) with `.` and `..` applied and doubled or trailing separators dropped: on the
/// bytes, as a path component by component costs several times more (relative resource entries
/// such as `../../components/x` make this a common case).
#[cfg(unix)]
fn normalise_absolute(path: &Path) -> PathBuf {
    use std::os::unix::ffi::{OsStrExt, OsStringExt};
    let mut out: Vec<u8> = Vec::with_capacity(path.as_os_str().len());
    for part in path.as_os_str().as_bytes().split(|&b| b == b'/') {
        match part {
            b"" | b"." => {}
            b".." => {
                let parent = out.iter().rposition(|&b| b == b'/').unwrap_or(0);
                out.truncate(parent);
            }
            _ => {
                out.push(b'/');
                out.extend_from_slice(part);
            }
        }
    }
    if out.is_empty() {
        out.push(b'/');
    }
    PathBuf::from(std::ffi::OsString::from_vec(out))
}

#[cfg(not(unix))]
fn normalise_absolute(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// True when `path` has no `.` or `..` component, no doubled or trailing `/`: component-wise
/// normalisation would give it back unchanged.
fn is_plain_absolute(path: &Path) -> bool {
    match path.as_os_str().as_encoded_bytes().split_first() {
        Some((b'/', rest)) => {
            !rest.is_empty()
                && rest
                    .split(|&b| b == b'/')
                    .all(|part| part.first().is_some_and(|&b| b != b'.'))
        }
        _ => false,
    }
}

pub fn build(dir: &Path, options: &Options) -> Result<Build, Error> {
    let mut ctx = Ctx {
        options,
        schema: None,
        schema_decided: false,
        stack: Vec::new(),
        diagnostics: Vec::new(),
        env_keys_left_out: Vec::new(),
    };
    if !options.fs_facts.exists(dir) {
        let shown = ctx.show(dir);
        // kustomize names the missing root as it was given, relative to where it runs
        let shown = shown.strip_prefix('/').unwrap_or(&shown).to_string();
        return Err(Error::msg(format!("'{shown}' doesn't exist")));
    }
    let target = ctx.accumulate(dir, None, false)?;
    let mut resources = target.resources;
    generate::add_hashes(&mut resources);
    nameref::fix(&mut resources, &target.config)?;
    transform::resolve_vars(&mut resources, &target.vars, &target.config)?;
    if options.add_managed_by_label {
        for r in &mut resources {
            transform::set_map_field(
                &mut r.node,
                &["metadata", "labels"],
                "app.kubernetes.io/managed-by",
                &options.managed_by,
            );
        }
    }
    for r in &mut resources {
        stringify_metadata_maps(&mut r.node);
    }
    let legacy = match target.sort.as_deref() {
        Some(order) => order == "legacy",
        None => options.reorder == Reorder::Legacy,
    };
    if legacy {
        legacy_sort(&mut resources, target.legacy_order.as_ref());
    }
    let origins = resources
        .iter()
        .map(|r| match &r.origin {
            Some(Origin::File(file)) => Some(file.clone()),
            Some(Origin::Generator { configured_in, .. }) => Some(configured_in.clone()),
            Some(Origin::Transformer { .. }) | None => None,
        })
        .collect();
    Ok(Build {
        objects: resources.into_iter().map(|r| r.node).collect(),
        origins,
        diagnostics: ctx.diagnostics,
        env_keys_left_out: ctx.env_keys_left_out,
    })
}

/// Parses a kustomization file. kustomize decodes it with a YAML reader where a repeated key
/// silently replaces the earlier one; our parser refuses duplicates, so each earlier definition
/// (the key's line and the lines nested under it) is dropped and the text parsed again.
fn parse_kustomization(text: &str) -> Result<Vec<crate::yaml::Document>, crate::yaml::Error> {
    let mut text = text.to_string();
    for _ in 0..64 {
        match parse_stream(&text, &ParseOptions::default()) {
            Err(e) if e.message.starts_with("duplicate mapping key") => {
                let Some(first) = e.related else {
                    return Err(e);
                };
                match drop_block(&text, first.line as usize, first.column as usize) {
                    Some(t) => text = t,
                    None => return Err(e),
                }
            }
            other => return other,
        }
    }
    parse_stream(&text, &ParseOptions::default())
}

/// Removes the mapping entry whose key starts at 1-based `line`/`column`.
fn drop_block(text: &str, line: usize, column: usize) -> Option<String> {
    let lines: Vec<&str> = text.split('\n').collect();
    let start = line.checked_sub(1)?;
    if start >= lines.len() {
        return None;
    }
    let indent = column.saturating_sub(1);
    let mut end = start + 1;
    while let Some(l) = lines.get(end) {
        let trimmed = l.trim_start();
        let ind = l.len() - trimmed.len();
        let nested = trimmed.is_empty()
            || trimmed.starts_with('#')
            || ind > indent
            || (ind == indent && (trimmed.starts_with("- ") || trimmed == "-"));
        if !nested {
            break;
        }
        end += 1;
    }
    // a key that opens a sequence item (`- name: x`) is left alone: the error stands
    let prefix = lines[start].get(..indent)?;
    if !prefix.trim().is_empty() {
        return None;
    }
    let mut out: Vec<&str> = Vec::with_capacity(lines.len());
    out.extend(&lines[..start]);
    out.extend(&lines[end..]);
    Some(out.join("\n"))
}

/// Fields kustomize v5 warns about, with their replacements.
const DEPRECATED: &[(&str, &str)] = &[
    ("bases", "resources"),
    ("commonLabels", "labels"),
    ("imageTags", "images"),
    ("patchesJson6902", "patches"),
    ("patchesStrategicMerge", "patches"),
    ("vars", "replacements"),
];

const FIELDS: &[&str] = &[
    "apiVersion",
    "kind",
    "metadata",
    "resources",
    "bases",
    "components",
    "namespace",
    "namePrefix",
    "nameSuffix",
    "commonLabels",
    "labels",
    "commonAnnotations",
    "images",
    "imageTags",
    "replicas",
    "patches",
    "patchesStrategicMerge",
    "patchesJson6902",
    "replacements",
    "vars",
    "configMapGenerator",
    "secretGenerator",
    "generatorOptions",
    "generators",
    "transformers",
    "validators",
    "configurations",
    "crds",
    "openapi",
    "buildMetadata",
    "sortOptions",
    "helmCharts",
    "helmGlobals",
    "helmChartInflationGenerator",
];

/// kustomize reads the kustomization through Go's JSON decoder, which matches field names
/// without regard to case (`nameprefix` is `namePrefix`).
fn normalize_field_names(k: &mut Node) {
    if let Some(m) = k.as_mapping_mut() {
        for e in &mut m.entries {
            if FIELDS.contains(&e.key.value.as_str()) {
                continue;
            }
            if let Some(f) = FIELDS.iter().find(|f| f.eq_ignore_ascii_case(&e.key.value)) {
                e.key.value = (*f).into();
            }
        }
    }
}

const ORIGIN: &str = "config.kubernetes.io/origin";

/// `to` relative to the directory `from`, with `..` steps.
fn relative(to: &Path, from: &Path) -> String {
    let to: Vec<_> = to.components().collect();
    let from: Vec<_> = from.components().collect();
    let common = to.iter().zip(&from).take_while(|(a, b)| a == b).count();
    let mut parts: Vec<String> = vec!["..".to_string(); from.len().saturating_sub(common)];
    parts.extend(
        to.iter()
            .skip(common)
            .map(|c| c.as_os_str().to_string_lossy().into_owned()),
    );
    parts.join("/")
}

fn origin_text(origin: &Origin, dir: &Path) -> String {
    match origin {
        Origin::File(path) => format!("path: {}\n", relative(path, dir)),
        Origin::Generator {
            configured_in,
            kind,
            name,
        }
        | Origin::Transformer {
            configured_in,
            kind,
            name,
            ..
        } => {
            let mut out = format!(
                "configuredIn: {}\nconfiguredBy:\n  apiVersion: builtin\n  kind: {kind}\n",
                relative(configured_in, dir)
            );
            if let Some(n) = name {
                out.push_str(&format!("  name: {n}\n"));
            }
            if let Origin::Transformer {
                namespace: Some(ns),
                ..
            } = origin
            {
                out.push_str(&format!("  namespace: {ns}\n"));
            }
            out
        }
    }
}

/// Labels and annotations are string maps in kustomize's typed object metadata: values that
/// read as numbers or booleans come out quoted.
fn stringify_metadata_maps(node: &mut Node) {
    let Some(meta) = node
        .as_mapping_mut()
        .and_then(|m| m.get_mut("metadata"))
        .and_then(Node::as_mapping_mut)
    else {
        return;
    };
    for key in ["labels", "annotations"] {
        if let Some(Node::Mapping(m)) = meta.get_mut(key) {
            for e in &mut m.entries {
                if let Node::Scalar(s) = &mut e.value {
                    if s.is_null() {
                        *s = crate::yaml::Scalar::string("");
                    } else if !s.style.is_quoted() {
                        s.style = crate::yaml::ScalarStyle::DoubleQuoted;
                        s.tag = None;
                    }
                }
            }
        }
    }
}

fn kind_rank(kind: &str) -> i32 {
    const FIRST: [&str; 22] = [
        "Namespace",
        "ResourceQuota",
        "StorageClass",
        "CustomResourceDefinition",
        "ServiceAccount",
        "PodSecurityPolicy",
        "Role",
        "ClusterRole",
        "RoleBinding",
        "ClusterRoleBinding",
        "ConfigMap",
        "Secret",
        "Endpoints",
        "Service",
        "LimitRange",
        "PriorityClass",
        "PersistentVolume",
        "PersistentVolumeClaim",
        "Deployment",
        "StatefulSet",
        "CronJob",
        "PodDisruptionBudget",
    ];
    const LAST: [&str; 2] = [
        "MutatingWebhookConfiguration",
        "ValidatingWebhookConfiguration",
    ];
    if let Some(i) = FIRST.iter().position(|k| *k == kind) {
        return i as i32 - 100;
    }
    if let Some(i) = LAST.iter().position(|k| *k == kind) {
        return 100 + i as i32;
    }
    0
}

fn or_tilde(ns: &str) -> &str {
    if ns.is_empty() {
        "~X"
    } else {
        ns
    }
}

/// kustomize's legacy order: kind rank, then the group/version/kind string, then namespace and
/// name.
fn legacy_sort(resources: &mut [Res], order: Option<&(Vec<String>, Vec<String>)>) {
    // kustomize ranks the kinds of `orderFirst` below zero and those of `orderLast` above it
    let rank = |kind: &str| match order {
        None => kind_rank(kind),
        Some((first, last)) => {
            if let Some(i) = first.iter().position(|k| k == kind) {
                i as i32 - first.len() as i32
            } else if let Some(i) = last.iter().position(|k| k == kind) {
                1 + i as i32
            } else {
                0
            }
        }
    };
    let gvk_key = |g: &super::resource::Gvk| {
        let group = if g.group.is_empty() { "~G" } else { &g.group };
        let version = if g.version.is_empty() {
            "~V"
        } else {
            &g.version
        };
        format!("{group}_{version}_{}", g.kind)
    };
    resources.sort_by(|a, b| {
        let (ga, gb) = (a.gvk(), b.gvk());
        rank(&ga.kind)
            .cmp(&rank(&gb.kind))
            .then_with(|| gvk_key(&ga).cmp(&gvk_key(&gb)))
            // an unset namespace spells `~X` in kustomize's id string, after any real namespace
            .then_with(|| or_tilde(a.namespace()).cmp(or_tilde(b.namespace())))
            .then_with(|| a.name().cmp(b.name()))
    });
}

fn seq_strings(k: &Node, key: &str) -> Vec<String> {
    k.get(key)
        .and_then(Node::as_sequence)
        .map(|s| {
            s.items
                .iter()
                .filter_map(|i| i.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

fn is_remote(entry: &str) -> bool {
    entry.contains("://")
        || entry.starts_with("git@")
        || entry.starts_with("github.com/")
        || entry.starts_with("gitlab.com/")
        || entry.starts_with("bitbucket.org/")
        || entry.contains("?ref=")
}

/// Parses YAML text into resources, flattening `List` kinds.
pub fn parse_resources(text: &str) -> Result<Vec<Node>, String> {
    let docs = parse_stream(text, &ParseOptions::default()).map_err(|e| {
        // go-yaml's wording for a repeated key, which kustomize passes on
        let message = match e.message.strip_prefix("duplicate mapping key `") {
            Some(rest) => {
                let key = rest.split('`').next().unwrap_or("");
                format!("mapping key \"{key}\" already defined")
            }
            None => e.message.clone(),
        };
        format!("MalformedYAMLError: {message} at {}", e.pos)
    })?;
    resources_of(docs.into_iter().map(|d| d.into_root()))
}

/// The resources of a file's documents: empty documents skipped, `List` kinds flattened.
fn resources_of(docs: impl Iterator<Item = Node>) -> Result<Vec<Node>, String> {
    let mut out = Vec::new();
    for root in docs {
        if root.is_null() {
            continue;
        }
        match &root {
            Node::Mapping(m) if m.is_empty() => continue,
            Node::Mapping(_) => {}
            _ => return Err("MalformedYAMLError: a resource must be a mapping".into()),
        }
        let kind = root.get("kind").and_then(Node::as_str).unwrap_or("");
        if kind.ends_with("List") && root.get("items").is_some() {
            if let Some(items) = root.get("items").and_then(Node::as_sequence) {
                out.extend(items.items.iter().cloned());
            }
            continue;
        }
        if root.get("kind").is_none() {
            return Err("missing Resource metadata: kind not set".into());
        }
        out.push(root);
    }
    Ok(out)
}

impl Ctx<'_> {
    fn find_kustomization(&self, dir: &Path) -> Result<PathBuf, String> {
        for name in KUSTOMIZATION_FILES {
            let p = dir.join(name);
            if self.options.fs_facts.is_file(&p) {
                return Ok(p);
            }
        }
        Err(format!(
            "unable to find one of 'kustomization.yaml', 'kustomization.yml' or 'Kustomization' in directory '{}'",
            self.show(dir)
        ))
    }

    /// Builds the kustomization in `dir`. A component receives the resources accumulated so far
    /// by its parent in `input` and returns them transformed along with its own.
    pub fn accumulate(
        &mut self,
        dir: &Path,
        input: Option<Vec<Res>>,
        component: bool,
    ) -> Result<Target, Error> {
        let dir = absolutize(dir);
        if self.stack.contains(&dir) {
            return Err(Error::msg(format!(
                "cycle detected: '{}' includes itself",
                self.show(&dir)
            )));
        }
        if self.stack.len() >= super::MAX_DEPTH {
            return Err(Error::msg(format!(
                "kustomizations nest more than {} deep at '{}' (included from '{}')",
                super::MAX_DEPTH,
                self.show(&dir),
                self.stack
                    .last()
                    .map(|parent| self.show(parent))
                    .unwrap_or_default()
            )));
        }
        self.check_fs_root(&dir).map_err(Error::msg)?;
        let overridden = self
            .options
            .kustomization_override
            .as_ref()
            .filter(|(over, _)| {
                self.real_path(over).unwrap_or_else(|| absolutize(over))
                    == self.real_path(&dir).unwrap_or_else(|| dir.clone())
            });
        let kfile = match overridden {
            Some(_) => self
                .find_kustomization(&dir)
                .unwrap_or_else(|_| dir.join("kustomization.yaml")),
            None => self.find_kustomization(&dir).map_err(Error::msg)?,
        };
        let shown = PathBuf::from(self.show(&kfile));
        let fail = |entry: Option<String>, message: String| Error {
            file: Some(shown.clone()),
            entry,
            message,
        };
        let k = match overridden {
            Some((_, node)) => node.clone(),
            None if self.parsed(&kfile).is_some() => self
                .parsed(&kfile)
                .and_then(|docs| docs.first())
                .map(|d| Node::clone(&d.root))
                .unwrap_or_else(Node::null),
            None => {
                let text = fsio::read_to_string(
                    &self.options.fs_facts,
                    &kfile,
                    fsio::Confine::root_or_anywhere(self.read_root(&dir)),
                )
                .map_err(|e| fail(None, format!("reading: {e}")))?;
                let docs = parse_kustomization(&text)
                    .map_err(|e| fail(None, format!("{}: {}", e.pos, e.message)))?;
                docs.into_iter()
                    .next()
                    .map(|d| d.into_root())
                    .unwrap_or_else(Node::null)
            }
        };
        let mut k = if k.is_null() {
            Node::Mapping(Default::default())
        } else {
            k
        };
        normalize_field_names(&mut k);
        for (field, instead) in DEPRECATED {
            if k.get(field).is_some() {
                self.diagnostics.push(format!(
                    "{}: '{field}' is deprecated. Please use '{instead}' instead.",
                    shown.display()
                ));
            }
        }
        let kind = k
            .get("kind")
            .and_then(Node::as_str)
            .unwrap_or("Kustomization");
        if component && kind != "Component" {
            return Err(fail(
                None,
                format!(
                    "accumulating components: accumulateDirectory: \"expected kind 'Component' for path '{}' but got '{}'\"",
                    self.show(&dir),
                    kind
                ),
            ));
        }
        if kind == "Component" {
            let api = k.get("apiVersion").and_then(Node::as_str).unwrap_or("");
            if api != "kustomize.config.k8s.io/v1alpha1" {
                return Err(fail(
                    None,
                    "apiVersion for Component should be kustomize.config.k8s.io/v1alpha1".into(),
                ));
            }
        }
        for field in ["helmCharts", "helmChartInflationGenerator", "helmGlobals"] {
            if k.get(field).is_some() {
                return Err(fail(
                    Some(field.into()),
                    "Helm chart inflation is not supported (kustomize --enable-helm)".into(),
                ));
            }
        }
        if let Some(openapi) = k.get("openapi") {
            if !self.schema_decided {
                let schema = self
                    .load_openapi(&dir, openapi)
                    .map_err(|m| fail(Some("openapi".into()), m))?;
                self.schema = schema.map(std::rc::Rc::new);
                self.schema_decided = true;
            }
        }
        self.stack.push(dir.clone());
        let result = self.accumulate_k(&dir, &k, input, &fail);
        self.stack.pop();
        result
    }

    fn accumulate_k(
        &mut self,
        dir: &Path,
        k: &Node,
        input: Option<Vec<Res>>,
        fail: &dyn Fn(Option<String>, String) -> Error,
    ) -> Result<Target, Error> {
        let mut target = Target {
            resources: input.unwrap_or_default(),
            ..Target::default()
        };
        // resources (and the legacy `bases`)
        let mut entries = seq_strings(k, "resources");
        entries.extend(seq_strings(k, "bases"));
        let mut appender = Appender::new(&target.resources);
        for (i, entry) in entries.iter().enumerate() {
            let label = Some(format!("resources[{i}] `{entry}`"));
            let sub = self
                .load_resource(dir, entry)
                .map_err(|m| fail(label.clone(), format!("accumulating resources: {m}")))?;
            match sub {
                Loaded::Files(nodes) => {
                    let file = absolutize(&self.resolve(dir, entry));
                    for node in nodes {
                        let mut res = Res::new(node);
                        res.origin = Some(Origin::File(file.clone()));
                        appender
                            .append(&mut target.resources, res)
                            .map_err(|m| fail(label.clone(), m))?;
                    }
                }
                Loaded::Target(t) => {
                    let t = *t;
                    for r in t.resources {
                        appender
                            .append(&mut target.resources, r)
                            .map_err(|m| fail(label.clone(), m))?;
                    }
                    target.config.merge(&t.config);
                    for v in t.vars {
                        if target.vars.iter().any(|x| x.name == v.name) {
                            return Err(fail(
                                label.clone(),
                                format!("var '{}' already encountered", v.name),
                            ));
                        }
                        target.vars.push(v);
                    }
                }
            }
        }
        // configurations (custom field specs)
        for (i, entry) in seq_strings(k, "configurations").iter().enumerate() {
            let label = Some(format!("configurations[{i}] `{entry}`"));
            let (_, text) = self
                .read_file(dir, entry)
                .map_err(|m| fail(label.clone(), m))?;
            let config = transform::parse_config(&text).map_err(|m| fail(label.clone(), m))?;
            target.config.merge(&config);
        }
        if let Some(crds) = k.get("crds").and_then(Node::as_sequence) {
            for (i, c) in crds.items.iter().enumerate() {
                let Some(entry) = c.as_str() else { continue };
                let label = Some(format!("crds[{i}] `{entry}`"));
                let (_, text) = self
                    .read_file(dir, entry)
                    .map_err(|m| fail(label.clone(), m))?;
                let config =
                    transform::parse_crd_config(&text).map_err(|m| fail(label.clone(), m))?;
                target.config.merge(&config);
            }
        }
        // generators
        let gen_options = k.get("generatorOptions");
        let kfile = self
            .find_kustomization(dir)
            .unwrap_or_else(|_| dir.join("kustomization.yaml"));
        generate::run(
            self,
            dir,
            k,
            gen_options,
            &kfile,
            &mut target.resources,
            fail,
        )?;
        if let Some(gens) = k.get("generators").and_then(Node::as_sequence) {
            for (i, g) in gens.items.iter().enumerate() {
                let label = Some(format!("generators[{i}]"));
                let configs = self
                    .plugin_configs(dir, g)
                    .map_err(|m| fail(label.clone(), m))?;
                let configured_in = match g.as_str() {
                    Some(name)
                        if !name.contains('\n')
                            && self.options.fs_facts.is_file(&dir.join(name)) =>
                    {
                        absolutize(&dir.join(name))
                    }
                    _ => self
                        .find_kustomization(dir)
                        .unwrap_or_else(|_| dir.join("kustomization.yaml")),
                };
                for cfg in configs {
                    generate::run_plugin(
                        self,
                        dir,
                        &cfg,
                        &configured_in,
                        &mut target.resources,
                        fail,
                    )?;
                }
            }
        }
        // components run after the generators and before the transformers (kustomize v5.1+)
        for (i, entry) in seq_strings(k, "components").iter().enumerate() {
            let label = Some(format!("components[{i}] `{entry}`"));
            if is_remote(entry) {
                return Err(fail(label, "remote components are not supported".into()));
            }
            let path = self.resolve(dir, entry);
            if !self.options.fs_facts.is_dir(&path) {
                return Err(fail(
                    label,
                    format!(
                        "accumulating components: '{}' must be a directory holding a Component",
                        self.show(&path)
                    ),
                ));
            }
            let resources = std::mem::take(&mut target.resources);
            let t = self.accumulate(&path, Some(resources), true)?;
            target.resources = t.resources;
            target.config.merge(&t.config);
            target.vars.extend(t.vars);
        }
        // builtin transformers
        transform::run_builtin(self, dir, k, &mut target, fail)?;
        let kfile_for = kfile.clone();
        let builtin_kinds: Vec<&str> = [
            ("patchesStrategicMerge", "PatchStrategicMergeTransformer"),
            ("patches", "PatchTransformer"),
            ("namespace", "NamespaceTransformer"),
            ("namePrefix", "PrefixTransformer"),
            ("nameSuffix", "SuffixTransformer"),
            ("labels", "LabelTransformer"),
            ("commonLabels", "LabelTransformer"),
            ("commonAnnotations", "AnnotationsTransformer"),
            ("patchesJson6902", "PatchJson6902Transformer"),
            ("replicas", "ReplicaCountTransformer"),
            ("images", "ImageTagTransformer"),
            ("replacements", "ReplacementTransformer"),
        ]
        .iter()
        .filter(|(field, _)| {
            k.get(field)
                .is_some_and(|v| !v.is_null() && v.as_str() != Some(""))
        })
        .map(|(_, kind)| *kind)
        .collect();
        let mut recorded: Vec<&str> = Vec::new();
        for kind in builtin_kinds {
            if recorded.contains(&kind) {
                continue;
            }
            recorded.push(kind);
            for r in &mut target.resources {
                r.transformations.push(Origin::Transformer {
                    configured_in: kfile_for.clone(),
                    kind: kind.to_string(),
                    name: None,
                    namespace: None,
                });
            }
        }
        if let Some(ts) = k.get("transformers").and_then(Node::as_sequence) {
            for (i, t) in ts.items.iter().enumerate() {
                let label = Some(format!("transformers[{i}]"));
                let configs = self
                    .plugin_configs(dir, t)
                    .map_err(|m| fail(label.clone(), m))?;
                let configured_in = match t.as_str() {
                    Some(name)
                        if !name.contains('\n')
                            && self.options.fs_facts.is_file(&dir.join(name)) =>
                    {
                        absolutize(&dir.join(name))
                    }
                    _ => kfile.clone(),
                };
                for cfg in configs {
                    transform::run_plugin(self, dir, &cfg, &mut target, fail)?;
                    let meta = |key: &str| {
                        cfg.get_path(&["metadata", key])
                            .and_then(Node::as_str)
                            .map(str::to_string)
                    };
                    for r in &mut target.resources {
                        r.transformations.push(Origin::Transformer {
                            configured_in: configured_in.clone(),
                            kind: cfg
                                .get("kind")
                                .and_then(Node::as_str)
                                .unwrap_or("")
                                .to_string(),
                            name: meta("name"),
                            namespace: meta("namespace"),
                        });
                    }
                }
            }
        }
        if let Some(validators) = k.get("validators").and_then(Node::as_sequence) {
            if !validators.items.is_empty() {
                return Err(fail(
                    Some("validators".into()),
                    "validator plugins are not supported".into(),
                ));
            }
        }
        // vars
        if let Some(vars) = k.get("vars").and_then(Node::as_sequence) {
            for v in &vars.items {
                let name = v
                    .get("name")
                    .and_then(Node::as_str)
                    .unwrap_or("")
                    .to_string();
                if target.vars.iter().any(|x| x.name == name) {
                    return Err(fail(
                        Some("vars".into()),
                        format!("var '{name}' already encountered"),
                    ));
                }
                let objref = v.get("objref");
                let get = |k: &str| objref.and_then(|o| o.get(k)).and_then(Node::as_str);
                let mut var = Var {
                    name,
                    kind: get("kind").unwrap_or("").to_string(),
                    api_version: get("apiVersion").map(str::to_string),
                    obj_name: get("name").unwrap_or("").to_string(),
                    namespace: get("namespace").map(str::to_string),
                    field_path: v
                        .get_path(&["fieldref", "fieldpath"])
                        .and_then(Node::as_str)
                        .unwrap_or("metadata.name")
                        .to_string(),
                };
                // pin the var to the one object it names here, before outer prefixes make
                // several objects answer to the same original name
                let here: Vec<&Res> = target
                    .resources
                    .iter()
                    .filter(|r| transform::var_matches(&var, r))
                    .collect();
                if let [one] = here.as_slice() {
                    var.obj_name = one.name().to_string();
                }
                target.vars.push(var);
            }
        }
        if let Some(sort) = k.get("sortOptions") {
            transform::check_sort_options(sort).map_err(|m| fail(Some("sortOptions".into()), m))?;
            // Only the kustomization being built decides the output order.
            if self.stack.len() == 1 {
                target.sort = sort.get("order").and_then(Node::as_str).map(str::to_string);
                target.legacy_order = sort
                    .get("legacySortOptions")
                    .filter(|o| !o.is_null())
                    .map(|o| (seq_strings(o, "orderFirst"), seq_strings(o, "orderLast")));
            }
        }
        if let Some(bm) = k.get("buildMetadata").and_then(Node::as_sequence) {
            let wants = |s: &str| bm.items.iter().any(|i| i.as_str() == Some(s));
            if wants("originAnnotations") {
                for r in &mut target.resources {
                    let already = r
                        .node
                        .get_path(&["metadata", "annotations", ORIGIN])
                        .is_some();
                    if let (false, Some(origin)) = (already, &r.origin) {
                        let text = origin_text(origin, dir);
                        transform::set_map_field(
                            &mut r.node,
                            &["metadata", "annotations"],
                            ORIGIN,
                            &text,
                        );
                    }
                }
            }
            if wants("transformerAnnotations") {
                for r in &mut target.resources {
                    if r.transformations.is_empty() {
                        continue;
                    }
                    let mut text = String::new();
                    for t in &r.transformations {
                        let entry = origin_text(t, dir);
                        for (i, line) in entry.lines().enumerate() {
                            text.push_str(if i == 0 { "- " } else { "  " });
                            text.push_str(line);
                            text.push('\n');
                        }
                    }
                    transform::set_map_field(
                        &mut r.node,
                        &["metadata", "annotations"],
                        "alpha.config.kubernetes.io/transformations",
                        &text,
                    );
                }
            }
            if wants("managedByLabel") {
                for r in &mut target.resources {
                    transform::set_map_field(
                        &mut r.node,
                        &["metadata", "labels"],
                        "app.kubernetes.io/managed-by",
                        &self.options.managed_by,
                    );
                }
            }
        }
        Ok(target)
    }

    fn load_openapi(&self, dir: &Path, openapi: &Node) -> Result<Option<PatchSchema>, String> {
        let path = openapi.get("path").and_then(Node::as_str);
        let version = openapi.get("version").and_then(Node::as_str);
        if path.is_some() && version.is_some() {
            return Err("builtin version and custom schema provided, cannot use both".into());
        }
        if let Some(v) = version {
            if v != "v1.21.2" {
                return Err(format!(
                    "the specified OpenAPI version is not built in: {v}"
                ));
            }
            return Ok(None);
        }
        let Some(path) = path else { return Ok(None) };
        let (_, text) = self.read_file(dir, path)?;
        let doc = if path.ends_with(".json") {
            let value: serde_json::Value =
                serde_json::from_str(&text).map_err(|e| format!("{path}: {e}"))?;
            crate::yaml::from_json(&value)
        } else {
            parse_stream(&text, &ParseOptions::default())
                .map_err(|e| format!("{path}: {e}"))?
                .into_iter()
                .next()
                .map(|d| d.into_root())
                .unwrap_or_else(Node::null)
        };
        PatchSchema::from_openapi(&doc)
            .map(Some)
            .map_err(|e| e.to_string())
    }

    /// The plugin configurations of a `generators`/`transformers` entry: a file (one or more
    /// documents), a directory holding a kustomization whose output are the configs, or inline.
    fn plugin_configs(&mut self, dir: &Path, entry: &Node) -> Result<Vec<Node>, String> {
        if let Some(name) = entry.as_str() {
            if name.contains('\n') || name.contains(": ") {
                return parse_resources(name);
            }
            let path = dir.join(name);
            if self.options.fs_facts.is_dir(&path) {
                let t = self
                    .accumulate(&path, None, false)
                    .map_err(|e| e.to_string())?;
                return Ok(t.resources.into_iter().map(|r| r.node).collect());
            }
            let (_, text) = self.read_file(dir, name)?;
            return parse_resources(&text);
        }
        Ok(vec![entry.clone()])
    }

    fn load_resource(&mut self, dir: &Path, entry: &str) -> Result<Loaded, String> {
        if is_remote(entry) {
            return Err(format!(
                "accumulation err='accumulating resources from '{entry}': remote resources are not supported offline'"
            ));
        }
        let path = self.resolve(dir, entry);
        // Only messages show the path, and most resources load.
        let shown = || self.show(&absolutize(&path));
        let kind = self.options.fs_facts.kind(&path);
        if kind == Some(FileKind::Directory) {
            return self
                .accumulate(&path, None, false)
                .map(|t| Loaded::Target(Box::new(t)))
                // the inner error keeps its own file and entry
                .map_err(|e| {
                    format!("accumulation err='accumulating resources from '{entry}': {e}'")
                });
        }
        if kind == Some(FileKind::File) {
            if let Err(security) = self.check_restrictor(dir, &path) {
                let shown = shown();
                let tail = if Path::new(entry).is_absolute() {
                    format!("new root '{shown}' cannot be absolute")
                } else {
                    format!("must build at directory: '{shown}': file is not directory")
                };
                return Err(format!(
                    "accumulation err='accumulating resources from '{entry}': {security}': {tail}"
                ));
            }
            if let Some(documents) = self.parsed(&path) {
                return resources_of(documents.iter().map(|d| Node::clone(&d.root)))
                    .map(Loaded::Files)
                    .map_err(|m| format!("accumulating resources from '{entry}': {m}"));
            }
            let confine = fsio::Confine::root_or_anywhere(self.read_root(dir));
            let text = fsio::read_to_string(&self.options.fs_facts, &path, confine)
                .map_err(|e| format!("reading '{}': {}", shown(), e.kind))?;
            return parse_resources(&text)
                .map(Loaded::Files)
                .map_err(|m| format!("accumulating resources from '{entry}': {m}"));
        }
        let shown = shown();
        Err(format!(
            "accumulation err='accumulating resources from '{entry}': evalsymlink failure on '{shown}' : lstat {shown}: no such file or directory': must build at directory: not a valid directory: evalsymlink failure on '{shown}' : lstat {shown}: no such file or directory"
        ))
    }
}

enum Loaded {
    Files(Vec<Node>),
    Target(Box<Target>),
}

/// Adds a resource, refusing a second one with the same id.
pub fn append(resources: &mut Vec<Res>, res: Res) -> Result<(), String> {
    let name = res.name();
    let existing = resources
        .iter()
        .find(|r| r.name() == name && r.same_id(&res));
    refuse_duplicate(existing, &res)?;
    resources.push(res);
    Ok(())
}

fn refuse_duplicate(existing: Option<&Res>, res: &Res) -> Result<(), String> {
    match existing {
        Some(existing) if existing.behavior.is_none() || res.behavior.is_none() => Err(format!(
            "may not add resource with an already registered id: {}",
            res.id_string()
        )),
        _ => Ok(()),
    }
}

/// `append` for many resources into one list: the list's resources by name, so that each new one
/// is checked against those of its name only, not against every resource (reading each one's
/// name again).
struct Appender {
    by_name: foldhash::HashMap<String, Vec<usize>>,
}

impl Appender {
    fn new(resources: &[Res]) -> Self {
        let mut by_name: foldhash::HashMap<String, Vec<usize>> = foldhash::HashMap::default();
        for (i, r) in resources.iter().enumerate() {
            by_name.entry(r.name().to_owned()).or_default().push(i);
        }
        Appender { by_name }
    }

    /// `append(resources, res)`, for the `resources` this was made for and added to since.
    fn append(&mut self, resources: &mut Vec<Res>, res: Res) -> Result<(), String> {
        let same_name = self.by_name.entry(res.name().to_owned()).or_default();
        let existing = same_name
            .iter()
            .map(|&i| &resources[i])
            .find(|r| r.same_id(&res));
        refuse_duplicate(existing, &res)?;
        same_name.push(resources.len());
        resources.push(res);
        Ok(())
    }
}

/// Adds a generated resource according to its behaviour.
pub fn absorb(
    resources: &mut Vec<Res>,
    res: Res,
    merge: &dyn Fn(&mut Res, &Res),
) -> Result<(), String> {
    let behavior = res.behavior.unwrap_or(Behavior::Create);
    let name = res.name().to_string();
    let gvk = res.gvk();
    let ns = res.effective_namespace().to_string();
    let found: Vec<usize> = resources
        .iter()
        .enumerate()
        .filter(|(_, r)| {
            r.gvk().kind == gvk.kind
                && (r.name() == name || r.original_name() == name)
                && (r.effective_namespace() == ns || r.original_namespace() == res.namespace())
        })
        .map(|(i, _)| i)
        .collect();
    match (behavior, found.as_slice()) {
        (Behavior::Create, []) => {
            resources.push(res);
            Ok(())
        }
        (Behavior::Create, _) => Err(format!(
            "may not add resource with an already registered id: {}; behavior must be merge or replace",
            res.id_string()
        )),
        (_, [i]) => {
            if let Some(existing) = resources.get_mut(*i) {
                merge(existing, &res);
            }
            Ok(())
        }
        (_, []) => Err(format!(
            "id {} does not exist; cannot merge or replace",
            res.id_string()
        )),
        (_, _) => Err(format!(
            "found multiple objects {} that could accept merge of {}",
            found.len(),
            res.id_string()
        )),
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    #[test]
    fn absolutize_normalises_whatever_the_plain_path_shortcut_lets_through() {
        for (path, expected) in [
            ("/a/b", "/a/b"),
            ("/a/.hidden/b", "/a/.hidden/b"),
            ("/a/./b", "/a/b"),
            ("/a/x/../b", "/a/b"),
            ("/a//b", "/a/b"),
            ("/a/b/", "/a/b"),
            ("/", "/"),
            ("/..", "/"),
            ("/a/../../b", "/b"),
            ("/a/b/..", "/a"),
            ("/a/..hidden/.../b", "/a/..hidden/.../b"),
        ] {
            assert_eq!(
                super::absolutize(Path::new(path)),
                Path::new(expected),
                "{path}"
            );
        }
        assert!(super::is_plain_absolute(Path::new("/a/b")));
        assert!(!super::is_plain_absolute(Path::new("/a/./b")));
        assert!(!super::is_plain_absolute(Path::new("/a/b/")));
        for path in ["/", "", "a/b", "/a//b", "/a/.b", "/a/..", "//a"] {
            assert!(!super::is_plain_absolute(Path::new(path)), "{path}");
        }
    }
}
