//! Wiring of the patch-like fields (`patchesStrategicMerge`, `patches`, `patchesJson6902`,
//! `replacements` and their plugin configs): reading the patch files, selecting targets, and
//! handing each target to the merge functions of the `patch` module.
//!
//! Not for: the merge and JSON patch algorithms themselves (those live in `patch`).

use std::path::Path;
use std::sync::Arc;

use super::error::Error;
use super::loader::Loader;
use super::patch::{self, patch_meta, strategic_merge, MergeOutcome, PatchSchema};
use super::replacement;
use super::resource::{is_cluster_scoped, Gvk, Res, Selector};
use offlux_yaml::Node;

type Fail<'a> = &'a dyn Fn(Option<String>, String) -> Error;

/// A patch read from a file or given inline.
fn patch_text(loader: &Loader, dir: &Path, entry: &str) -> Result<String, String> {
    if entry.contains('\n')
        || (entry.contains(": ") && !loader.options.fs_facts.exists(&dir.join(entry)))
    {
        return Ok(entry.to_string());
    }
    loader.read_file(dir, entry).map(|(_, text)| text)
}

fn parse_patches(loader: &Loader, text: &str) -> Result<Arc<[Node]>, String> {
    (loader.options.patch_texts).parse(text, loader.options.budget.as_ref())
}

/// Applies one strategic merge patch to one resource; `Ok(false)` means the patch deleted it.
fn apply_smp(res: &mut Res, patch: &Node, schema: Option<&PatchSchema>) -> Result<bool, String> {
    let gvk = res.gvk();
    let meta = patch_meta(schema, &gvk.group, &gvk.version, &gvk.kind);
    let old_name = res.name().to_string();
    let old_ns = res.namespace().to_string();
    let node = std::mem::take(&mut res.node);
    match strategic_merge(node, patch, meta).map_err(|e| e.to_string())? {
        MergeOutcome::Deleted => Ok(false),
        MergeOutcome::Merged(node) => {
            res.node = node;
            let (new_name, new_ns) = (res.name().to_string(), res.namespace().to_string());
            if new_name != old_name || new_ns != old_ns {
                res.prev.push((old_name, old_ns));
            }
            Ok(true)
        }
    }
}

/// Resources a patch without a target selects by its own kind, name and namespace.
fn self_targets(resources: &[Res], patch: &Node) -> Vec<usize> {
    let pg = Gvk::of(patch);
    let name = patch
        .get_path(&["metadata", "name"])
        .and_then(Node::as_str)
        .unwrap_or("");
    let ns = patch
        .get_path(&["metadata", "namespace"])
        .and_then(Node::as_str);
    // a patch without apiVersion names no group; with one, `v1` is the core group
    let any_group = patch.get("apiVersion").is_none();
    let by = |current: bool| -> Vec<usize> {
        resources
            .iter()
            .enumerate()
            .filter(|(_, r)| {
                let g = r.gvk();
                // the patch names either the current id or an earlier one, never a mix of the
                // current kind with an earlier name
                let current_id =
                    g.kind == pg.kind && (any_group || g.group == pg.group) && r.name() == name;
                let earlier_id = !current
                    && r.orig_gvk.kind == pg.kind
                    && (any_group || r.orig_gvk.group == pg.group)
                    && r.prev.iter().any(|p| p.0 == name);
                let kind_name_ok = current_id || earlier_id;
                // a patch without a namespace names the default one, as an unset namespace of
                // a resource does, and a cluster-scoped kind has no namespace to compare
                // (kustomize's `IsNsEquals`)
                let want = ns.unwrap_or("");
                let same_ns = |n: &str| n == want || (is_default_ns(n) && is_default_ns(want));
                let ns_ok = is_cluster_scoped(&g)
                    || same_ns(r.namespace())
                    || r.prev.iter().any(|p| same_ns(&p.1));
                kind_name_ok && ns_ok
            })
            .map(|(i, _)| i)
            .collect()
    };
    let current = by(true);
    if current.len() == 1 {
        return current;
    }
    by(false)
}

fn is_default_ns(ns: &str) -> bool {
    ns.is_empty() || ns == "default"
}

fn apply_to(
    resources: &mut Vec<Res>,
    targets: &[usize],
    apply: &dyn Fn(&mut Res) -> Result<bool, String>,
) -> Result<(), String> {
    let mut deleted = Vec::new();
    for &i in targets {
        if let Some(r) = resources.get_mut(i) {
            if !apply(r)? {
                deleted.push(i);
            }
        }
    }
    deleted.sort_unstable();
    for i in deleted.into_iter().rev() {
        resources.remove(i);
    }
    Ok(())
}

fn smp_without_target(
    resources: &mut Vec<Res>,
    patch: &Node,
    schema: Option<&PatchSchema>,
) -> Result<(), String> {
    if patch.as_mapping().is_none_or(|m| m.is_empty()) {
        return Err("patch appears to be empty".into());
    }
    let targets = self_targets(resources, patch);
    if targets.len() > 1 {
        let ids: Vec<String> = targets
            .iter()
            .filter_map(|&i| resources.get(i).map(Res::id_string))
            .collect();
        return Err(format!(
            "multiple matches for patch: {}; failed to find unique target for patch",
            ids.join(", ")
        ));
    }
    if targets.is_empty() {
        let pg = Gvk::of(patch);
        let name = patch
            .get_path(&["metadata", "name"])
            .and_then(Node::as_str)
            .unwrap_or("");
        let namespace = patch
            .get_path(&["metadata", "namespace"])
            .and_then(Node::as_str)
            .filter(|ns| !ns.is_empty())
            .unwrap_or("[noNs]");
        return Err(format!(
            "failed to find unique target for patch {}/{name}.{namespace}",
            pg.id_string(),
        ));
    }
    let patch = strip_identity(patch);
    apply_to(resources, &targets, &|r| apply_smp(r, &patch, schema))
}

/// A patch aimed at a selected resource: its own identity fields are not applied.
fn strip_identity(patch: &Node) -> Node {
    let mut p = patch.clone();
    if let Some(m) = p.as_mapping_mut() {
        m.remove("apiVersion");
        m.remove("kind");
        if let Some(meta) = m.get_mut("metadata").and_then(Node::as_mapping_mut) {
            meta.remove("name");
            meta.remove("namespace");
        }
        if m.get("metadata")
            .and_then(Node::as_mapping)
            .is_some_and(|x| x.is_empty())
        {
            m.remove("metadata");
        }
    }
    p
}

pub(crate) fn strategic_merge_field(
    loader: &Loader,
    schema: Option<&PatchSchema>,
    dir: &Path,
    field: Option<&Node>,
    resources: &mut Vec<Res>,
    fail: Fail,
) -> Result<(), Error> {
    let Some(list) = field.and_then(Node::as_sequence) else {
        return Ok(());
    };
    for (i, entry) in list.items.iter().enumerate() {
        let label = Some(format!("patchesStrategicMerge[{i}]"));
        let text = match entry {
            Node::Scalar(s) => {
                patch_text(loader, dir, &s.value).map_err(|m| fail(label.clone(), m))?
            }
            other => offlux_yaml::emit(other),
        };
        let patches = parse_patches(loader, &text).map_err(|m| fail(label.clone(), m))?;
        if patches.is_empty() {
            return Err(fail(label, "patch appears to be empty".into()));
        }
        for patch in patches.iter() {
            smp_without_target(resources, patch, schema).map_err(|m| fail(label.clone(), m))?;
        }
    }
    Ok(())
}

fn is_json6902(patches: &[Node]) -> bool {
    matches!(patches, [Node::Sequence(_)])
}

fn run_patch_entry(
    loader: &Loader,
    schema: Option<&PatchSchema>,
    dir: &Path,
    entry: &Node,
    resources: &mut Vec<Res>,
) -> Result<(), String> {
    let text = if let Some(path) = entry.get("path").and_then(Node::as_str) {
        loader.read_file(dir, path).map(|(_, t)| t)?
    } else if let Some(p) = entry.get("patch") {
        match p {
            Node::Scalar(s) => s.value.to_string(),
            other => offlux_yaml::emit(other),
        }
    } else {
        return Err("must specify one of patch and path".into());
    };
    let patches = parse_patches(loader, &text)?;
    let options = entry.get("options");
    let flag = |k: &str| options.and_then(|o| o.get(k)).and_then(Node::as_str) == Some("true");
    let (allow_name, allow_kind) = (flag("allowNameChange"), flag("allowKindChange"));
    let target = entry.get("target").map(Selector::from_node);
    if is_json6902(&patches) {
        let Some(sel) = target else {
            return Err("must specify a target for JSON patch".into());
        };
        let ops = patches.first().cloned().unwrap_or_else(Node::null);
        let targets = select(resources, &sel);
        return apply_to(resources, &targets, &|r| apply_json6902(r, &ops));
    }
    for patch in patches.iter() {
        match &target {
            None => smp_without_target(resources, patch, schema)?,
            Some(sel) => {
                let targets = select(resources, sel);
                let mut p = patch.clone();
                if !allow_name {
                    if let Some(meta) = p
                        .as_mapping_mut()
                        .and_then(|m| m.get_mut("metadata"))
                        .and_then(Node::as_mapping_mut)
                    {
                        meta.remove("name");
                    }
                }
                if !allow_kind {
                    if let Some(m) = p.as_mapping_mut() {
                        m.remove("kind");
                        m.remove("apiVersion");
                    }
                }
                if let Some(m) = p.as_mapping_mut() {
                    if let Some(meta) = m.get_mut("metadata").and_then(Node::as_mapping_mut) {
                        meta.remove("namespace");
                    }
                    if m.get("metadata")
                        .and_then(Node::as_mapping)
                        .is_some_and(|x| x.is_empty())
                    {
                        m.remove("metadata");
                    }
                }
                apply_to(resources, &targets, &|r| apply_smp(r, &p, schema))?;
            }
        }
    }
    Ok(())
}

fn select(resources: &[Res], sel: &Selector) -> Vec<usize> {
    resources
        .iter()
        .enumerate()
        .filter(|(_, r)| sel.matches_original_or_current(r))
        .map(|(i, _)| i)
        .collect()
}

/// Applies a JSON 6902 operation list with the `patch` engine, remembering a changed name.
fn apply_json6902(res: &mut Res, ops: &Node) -> Result<bool, String> {
    let old_name = res.name().to_string();
    let old_ns = res.namespace().to_string();
    res.node = patch::apply_json6902(&res.node, ops).map_err(|e| e.to_string())?;
    let (new_name, new_ns) = (res.name().to_string(), res.namespace().to_string());
    if new_name != old_name || new_ns != old_ns {
        res.prev.push((old_name, old_ns));
    }
    Ok(true)
}

pub(crate) fn patches_field(
    loader: &Loader,
    schema: Option<&PatchSchema>,
    dir: &Path,
    field: Option<&Node>,
    resources: &mut Vec<Res>,
    fail: Fail,
) -> Result<(), Error> {
    let Some(list) = field.and_then(Node::as_sequence) else {
        return Ok(());
    };
    for (i, entry) in list.items.iter().enumerate() {
        let label = Some(format!("patches[{i}]"));
        run_patch_entry(loader, schema, dir, entry, resources).map_err(|m| fail(label, m))?;
    }
    Ok(())
}

pub(crate) fn json6902_field(
    loader: &Loader,
    dir: &Path,
    field: Option<&Node>,
    resources: &mut Vec<Res>,
    fail: Fail,
) -> Result<(), Error> {
    let Some(list) = field.and_then(Node::as_sequence) else {
        return Ok(());
    };
    for (i, entry) in list.items.iter().enumerate() {
        let label = Some(format!("patchesJson6902[{i}]"));
        let run = |resources: &mut Vec<Res>| -> Result<(), String> {
            let text = if let Some(path) = entry.get("path").and_then(Node::as_str) {
                loader.read_file(dir, path).map(|(_, t)| t)?
            } else if let Some(p) = entry.get("patch") {
                match p {
                    Node::Scalar(s) => s.value.to_string(),
                    other => offlux_yaml::emit(other),
                }
            } else {
                return Err("must specify one of patch and path".into());
            };
            let ops = parse_patches(loader, &text)?
                .first()
                .cloned()
                .unwrap_or_else(Node::null);
            let sel = entry
                .get("target")
                .map(Selector::from_node)
                .ok_or("must specify a target")?;
            let targets: Vec<usize> = resources
                .iter()
                .enumerate()
                .filter(|(_, r)| sel.matches_any_name(r))
                .map(|(i, _)| i)
                .collect();
            apply_to(resources, &targets, &|r| apply_json6902(r, &ops))
        };
        run(resources).map_err(|m| fail(label, m))?;
    }
    Ok(())
}

fn run_replacements(
    loader: &Loader,
    dir: &Path,
    list: &[Node],
    resources: &mut [Res],
) -> Result<(), String> {
    for entry in list {
        if let Some(path) = entry.get("path").and_then(Node::as_str) {
            let text = loader.read_file(dir, path).map(|(_, t)| t)?;
            for doc in parse_patches(loader, &text)?.iter() {
                match doc {
                    Node::Sequence(s) => {
                        for r in &s.items {
                            replacement::apply(resources, r)?;
                        }
                    }
                    other => replacement::apply(resources, other)?,
                }
            }
        } else {
            replacement::apply(resources, entry)?;
        }
    }
    Ok(())
}

pub(crate) fn replacements_field(
    loader: &Loader,
    dir: &Path,
    field: Option<&Node>,
    resources: &mut [Res],
    fail: Fail,
) -> Result<(), Error> {
    let Some(list) = field.and_then(Node::as_sequence) else {
        return Ok(());
    };
    run_replacements(loader, dir, &list.items, resources)
        .map_err(|m| fail(Some("replacements".into()), m))
}

/// The patch and replacement transformers given as plugin configs in `transformers`.
pub(crate) fn plugin(
    loader: &Loader,
    schema: Option<&PatchSchema>,
    dir: &Path,
    cfg: &Node,
    resources: &mut Vec<Res>,
    fail: Fail,
) -> Result<(), Error> {
    let kind = cfg.get("kind").and_then(Node::as_str).unwrap_or("");
    let label = Some(format!("transformers: {kind}"));
    let result = match kind {
        "PatchTransformer" => run_patch_entry(loader, schema, dir, cfg, resources),
        "PatchJson6902Transformer" => {
            let mut entry = cfg.clone();
            if let Some(m) = entry.as_mapping_mut() {
                if let Some(op) = m.remove("jsonOp") {
                    m.insert("patch", op);
                }
            }
            run_patch_entry(loader, schema, dir, &entry, resources)
        }
        "PatchStrategicMergeTransformer" => {
            let mut items = Vec::new();
            for key in ["paths", "patches"] {
                match cfg.get(key) {
                    Some(Node::Sequence(s)) => items.extend(s.items.iter().cloned()),
                    Some(n @ Node::Scalar(_)) => items.push(n.clone()),
                    _ => {}
                }
            }
            return strategic_merge_field(
                loader,
                schema,
                dir,
                Some(&Node::Sequence(offlux_yaml::Sequence {
                    items,
                    ..Default::default()
                })),
                resources,
                fail,
            );
        }
        "ReplacementTransformer" => {
            let list = cfg
                .get("replacements")
                .and_then(Node::as_sequence)
                .map(|s| s.items.clone())
                .unwrap_or_default();
            run_replacements(loader, dir, &list, resources)
        }
        other => Err(format!("unable to load builtin {other}")),
    };
    result.map_err(|m| fail(label, m))
}
