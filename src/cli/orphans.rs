//! The facts the orphan checks (`crate::validate`, OFX111–OFX114) judge, gathered from a run:
//! which files the reached producers applied or read, which directories a producer that could not
//! be rendered would apply (not judged), and, with several entry points, the same from each
//! other entry point's run. Configured in `.offlux.yaml`:
//!
//! ```yaml
//! validate:
//!   orphans:
//!     ignore: [archive/**, examples/**]       # globs of files that are never orphans
//!     entry-points: [clusters/prod, clusters/staging]
//! ```

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::run_args::RunArgs;
use crate::controllers::runtime::RunReport;
use crate::discovery::Repository;
use crate::model::ResourceId;
use crate::validate::{self, Applied, Finding, OrphanInput};
use crate::yaml::{Document, Node};

/// How the orphan checks run: `--all-entry-points`.
#[derive(clap::Args, Debug, Default, Clone)]
pub struct OrphanArgs {
    /// Judge every file of the repository for orphans (OFX111, OFX112) against what every entry
    /// point applies: `--path`, the `validate.orphans.entry-points` of `.offlux.yaml`, and each
    /// directory a bootstrap Kustomization (`flux-system`) or FluxInstance syncs.
    #[arg(long)]
    pub all_entry_points: bool,
}

/// `validate.orphans` of `.offlux.yaml`.
#[derive(Debug, Default)]
pub(crate) struct OrphanConfig {
    pub ignore: Vec<String>,
    pub entry_points: Vec<String>,
}

impl OrphanConfig {
    /// Reads the section from the configuration's first document; an absent section is empty.
    pub(super) fn read(config: Option<&Node>) -> Result<OrphanConfig, String> {
        let Some(section) = config.and_then(|c| c.get_path(&["validate", "orphans"])) else {
            return Ok(OrphanConfig::default());
        };
        let list = |key: &str| -> Result<Vec<String>, String> {
            let Some(node) = section.get(key) else {
                return Ok(Vec::new());
            };
            let items = node
                .as_sequence()
                .ok_or_else(|| format!("`validate.orphans.{key}` must be a list of paths"))?;
            items
                .items
                .iter()
                .map(|item| {
                    item.as_str()
                        .map(str::to_string)
                        .ok_or_else(|| format!("`validate.orphans.{key}` must be a list of paths"))
                })
                .collect()
        };
        Ok(OrphanConfig {
            ignore: list("ignore")?,
            entry_points: list("entry-points")?,
        })
    }
}

/// What one run applied and read, as the orphan checks need it.
#[derive(Default)]
struct RunFacts {
    /// The objects reconciled as written that the entry point applies, by id and file.
    roots: Vec<(ResourceId, PathBuf)>,
    /// Every producer reached from the roots.
    reached: BTreeSet<ResourceId>,
    used: HashSet<PathBuf>,
    judged: HashSet<PathBuf>,
    unjudged: HashSet<PathBuf>,
}

/// The orphan findings of a run (and, when asked, of the repository's other entry points).
pub(super) fn findings(
    repository: &Repository,
    report: &RunReport,
    run: Option<&RunArgs>,
    args: &OrphanArgs,
    config: &OrphanConfig,
) -> Result<Vec<Finding>, String> {
    let root = &repository.root;
    let mut ignore = globset::GlobSetBuilder::new();
    for pattern in &config.ignore {
        let glob = globset::GlobBuilder::new(pattern.trim_start_matches("./"))
            .literal_separator(true)
            .build()
            .map_err(|e| format!("`validate.orphans.ignore`: {e}"))?;
        ignore.add(glob);
        // A directory stands for everything under it.
        if let Ok(glob) = globset::GlobBuilder::new(&format!(
            "{}/**",
            pattern.trim_start_matches("./").trim_end_matches('/')
        ))
        .literal_separator(true)
        .build()
        {
            ignore.add(glob);
        }
    }
    let ignore = ignore
        .build()
        .map_err(|e| format!("`validate.orphans.ignore`: {e}"))?;
    let files: Vec<(PathBuf, Arc<[Document]>)> = repository
        .yaml_files
        .iter()
        .filter_map(|path| {
            let documents = repository.parsed_files.get(path)?.clone();
            let relative = crate::fs_facts::strip_root(path, root).unwrap_or(path);
            Some((relative.to_path_buf(), documents))
        })
        .collect();
    let views: Vec<(&Path, &[Document])> = files
        .iter()
        .map(|(file, documents)| (file.as_path(), &documents[..]))
        .collect();
    let layout = validate::Layout::new(&views);
    let mut facts = run_facts(repository, report, &files, &layout);
    let mut entries = vec![repository.entry.clone()];
    let several = args.all_entry_points || !config.entry_points.is_empty();
    if several {
        let mut others: BTreeSet<PathBuf> = config
            .entry_points
            .iter()
            .filter_map(|p| validate::lexical_join(Path::new(""), p))
            .collect();
        if args.all_entry_points {
            others.extend(detected_entry_points(&files, &repository.entry));
        }
        others.remove(&repository.entry);
        for entry in others {
            let Some(run) = run else { break };
            if !root.join(&entry).is_dir() {
                return Err(format!(
                    "entry point `{}` is not a directory of the repository",
                    entry.display()
                ));
            }
            let mut other = run.clone();
            other.repo.path = root.join(&entry);
            other.repo.root = Some(root.clone());
            let (other_repository, other_report) = other.run()?;
            let more = run_facts(&other_repository, &other_report, &files, &layout);
            facts.used.extend(more.used);
            facts.unjudged.extend(more.unjudged);
            entries.push(entry);
        }
    }
    let labels: BTreeMap<&ResourceId, String> = report
        .rendered
        .keys()
        .chain(repository.flux_objects.iter().map(|f| &f.object.id))
        .map(|id| (id, format!("{}/{}/{}", id.kind, id.namespace, id.name)))
        .collect();
    let label = |id: &ResourceId| labels.get(id).map_or("", String::as_str);
    let mut applied: Vec<Applied<'_>> = Vec::new();
    for (producer, objects) in &report.rendered {
        if !facts.reached.contains(producer) {
            continue;
        }
        let built = producer.kind == "Kustomization";
        for object in objects {
            applied.push(Applied {
                producer: label(producer),
                object,
                built,
            });
        }
    }
    for object in &facts.roots {
        if let Some(flux) = repository
            .flux_objects
            .iter()
            .find(|f| f.object.id == object.0 && f.object.file == object.1)
        {
            applied.push(Applied {
                producer: label(&flux.object.id),
                object: &flux.object,
                built: false,
            });
        }
    }
    let shown: Vec<String> = entries
        .iter()
        .map(|e| match e.as_os_str().is_empty() {
            true => ".".to_string(),
            false => e.display().to_string(),
        })
        .collect();
    let input = OrphanInput {
        layout: &layout,
        files: views,
        applied,
        used_files: facts.used,
        judged_dirs: (!several).then_some(facts.judged),
        unjudged_dirs: facts.unjudged,
        ignore,
        entry_dirs: entries.clone(),
        entry: format!("`{}`", shown.join("`, `")),
    };
    Ok(validate::find_orphans(&input))
}

/// What one run applied, counting only what its entry point reaches: the objects offlux
/// reconciled as written (nothing in the repository applies them) are roots only if the entry
/// directory applies their file (a kustomization file there names it, or the directory has none);
/// from the roots, every producer whose objects a reached producer rendered.
fn run_facts(
    repository: &Repository,
    report: &RunReport,
    files: &[(PathBuf, Arc<[Document]>)],
    layout: &validate::Layout,
) -> RunFacts {
    let entry = &repository.entry;
    let mut facts = RunFacts::default();
    facts.judged.insert(entry.clone());
    let mut nodes: BTreeMap<&ResourceId, &Node> = BTreeMap::new();
    let mut queue: Vec<&ResourceId> = Vec::new();
    for flux in &repository.flux_objects {
        let object = &flux.object;
        let seeded = !repository
            .parents
            .contains_key(&(object.file.clone(), object.id.clone()));
        if seeded
            && object.file.starts_with(entry)
            && (layout.is_input(&object.file) || layout.generated_by(entry, &object.file))
        {
            facts.roots.push((object.id.clone(), object.file.clone()));
            nodes.entry(&object.id).or_insert(&object.node);
            queue.push(&object.id);
        }
    }
    while let Some(producer) = queue.pop() {
        if !facts.reached.insert(producer.clone()) {
            continue;
        }
        let Some(objects) = report.rendered.get(producer) else {
            continue;
        };
        let applies = matches!(producer.kind.as_str(), "Kustomization" | "ResourceSet");
        for object in objects {
            if applies {
                facts.used.insert(object.file.clone());
                if let Some(dir) = object.file.parent() {
                    facts.judged.insert(dir.to_path_buf());
                }
            }
            if is_producer(&object.id) {
                nodes.entry(&object.id).or_insert(&object.node);
                queue.push(&object.id);
            }
        }
    }
    for id in &facts.reached {
        if id.kind != "Kustomization" {
            continue;
        }
        let Some(dir) = nodes
            .get(id)
            .and_then(|node| spec_path(node, &["spec", "path"]))
        else {
            continue;
        };
        if report.rendered.contains_key(id) {
            facts.judged.insert(dir);
        } else {
            facts.unjudged.insert(dir);
        }
    }
    // What a FluxInstance syncs is applied by the instance, which offlux does not follow.
    for (_, documents) in files {
        for document in documents.iter() {
            if document.root.get("kind").and_then(Node::as_str) == Some("FluxInstance") {
                if let Some(dir) = spec_path(&document.root, &["spec", "sync", "path"]) {
                    facts.unjudged.insert(dir);
                }
            }
        }
    }
    facts
}

/// A Flux kind whose reconciliation applies or renders objects.
fn is_producer(id: &ResourceId) -> bool {
    matches!(
        (id.group.as_str(), id.kind.as_str()),
        ("kustomize.toolkit.fluxcd.io", "Kustomization")
            | ("helm.toolkit.fluxcd.io", "HelmRelease")
            | ("fluxcd.controlplane.io", "ResourceSet")
    )
}

/// A `spec.path`-like field as a directory relative to the root (defaults of `${VAR:=x}` taken).
fn spec_path(node: &Node, field: &[&str]) -> Option<PathBuf> {
    let text = node.get_path(field).and_then(Node::as_str).unwrap_or("");
    let text = crate::discovery::apply_variable_defaults(text).ok()?;
    validate::lexical_join(Path::new(""), text.trim_start_matches('/'))
}

/// The directories a bootstrap applies: the `spec.path` of each `flux-system` Kustomization and
/// the `spec.sync.path` of each FluxInstance written in the repository; each directory with a
/// `flux-system` directory of bootstrap files (`gotk-sync.yaml`); and the entry point's
/// counterparts for other clusters: directories that differ from `entry` in one component
/// (`clusters/staging` for `clusters/prod`, `kubernetes/staging/cluster` for
/// `kubernetes/main/cluster`) and hold a Flux Kustomization of their own.
fn detected_entry_points(files: &[(PathBuf, Arc<[Document]>)], entry: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let entry_parts: Vec<_> = entry.components().collect();
    let counterpart = |dir: &Path| {
        let parts: Vec<_> = dir.components().collect();
        parts.len() == entry_parts.len()
            && parts
                .iter()
                .zip(&entry_parts)
                .filter(|(a, b)| a != b)
                .count()
                == 1
    };
    for (file, documents) in files {
        let dir = file.parent().unwrap_or(Path::new(""));
        if dir.file_name().is_some_and(|n| n == "flux-system")
            && file
                .file_name()
                .is_some_and(|n| n == "gotk-sync.yaml" || n == "gotk-components.yaml")
        {
            out.extend(dir.parent().map(Path::to_path_buf));
        }
        for document in documents.iter() {
            let root = &document.root;
            let api_version = root.get("apiVersion").and_then(Node::as_str).unwrap_or("");
            let kind = root.get("kind").and_then(Node::as_str);
            let name = root.get_path(&["metadata", "name"]).and_then(Node::as_str);
            let is_kustomization = kind == Some("Kustomization")
                && api_version.starts_with("kustomize.toolkit.fluxcd.io/");
            if is_kustomization && counterpart(dir) {
                out.push(dir.to_path_buf());
            }
            let path = match kind {
                Some("Kustomization")
                    if is_kustomization && name == Some(crate::discovery::BOOTSTRAP_NAME) =>
                {
                    spec_path(root, &["spec", "path"])
                }
                Some("FluxInstance") => spec_path(root, &["spec", "sync", "path"]),
                _ => None,
            };
            out.extend(path);
        }
    }
    out
}
