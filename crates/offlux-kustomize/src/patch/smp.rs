//! Strategic merge patch as `kustomize build` (v5, kyaml's merge2) applies it.
//!
//! Supported: maps merge recursively; `null` deletes a key; lists whose field has patch strategy
//! `merge` merge by their keys (`x-kubernetes-list-map-keys`, else `x-kubernetes-patch-merge-key`),
//! or as a set of scalars when they have no keys (finalizers); other lists are replaced; `$patch:
//! delete|replace|merge` on maps and list elements, `- $patch: replace` as a list element, and a
//! top-level `$patch: delete` (the caller deletes the object). Fields without metadata (custom
//! resources, unknown fields) merge as maps and replace as lists, as kustomize does without a schema.
//!
//! Like kustomize v5.5, and unlike `kubectl patch`, `$setElementOrder/…`, `$retainKeys` and
//! `$deleteFromPrimitiveList/…` are not interpreted: they are ordinary keys and stay in the output.
//!
//! Element order follows kustomize: lists merged by one key give the patch's elements first (merged
//! with their targets), then the target's other elements; lists merged by several keys (ports by
//! port and protocol) keep the target's order and put new elements first; there a patch element
//! that lacks a key its target has (or has one its target lacks) is dropped, as kustomize does.
//!
//! Not for: choosing which objects a patch applies to.

use offlux_yaml::{Mapping, Node, Sequence};

use super::meta::{ListMerge, PatchMetaFor};
use super::PatchError;

const DIRECTIVE: &str = "$patch";

/// The result of a strategic merge.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum MergeOutcome {
    Merged(Node),
    /// The patch said `$patch: delete` at its top: the object is to be removed.
    Deleted,
}

/// Applies `patch` to `target` with the metadata of the target's kind (see `patch_meta`). The
/// target is merged into, not copied: on an error it is gone, as the build that patched it is.
pub(crate) fn strategic_merge(
    target: Node,
    patch: &Node,
    meta: PatchMetaFor<'_>,
) -> Result<MergeOutcome, PatchError> {
    let patch_map = patch.as_mapping().ok_or_else(|| PatchError::Merge {
        path: String::new(),
        message: format!(
            "a strategic merge patch must be a mapping, not a {}",
            patch.kind_name()
        ),
    })?;
    let target_map = match target {
        Node::Mapping(m) => m,
        t if t.is_null() => Mapping::new(),
        t => {
            return Err(PatchError::Merge {
                path: String::new(),
                message: format!(
                    "the patched object must be a mapping, not a {}",
                    t.kind_name()
                ),
            })
        }
    };
    match merge_map(target_map, patch_map, meta, "")? {
        Some(node) => Ok(MergeOutcome::Merged(node)),
        None => Ok(MergeOutcome::Deleted),
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Directive {
    Merge,
    Replace,
    Delete,
}

fn directive(map: &Mapping, path: &str) -> Result<Directive, PatchError> {
    match map.get(DIRECTIVE) {
        None => Ok(Directive::Merge),
        Some(value) => match value.as_str() {
            Some("merge") => Ok(Directive::Merge),
            Some("replace") => Ok(Directive::Replace),
            Some("delete") => Ok(Directive::Delete),
            other => Err(PatchError::Merge {
                path: path.to_owned(),
                message: format!(
                    "unknown `$patch` directive `{}` (expected merge, replace or delete)",
                    other.unwrap_or("null")
                ),
            }),
        },
    }
}

fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_owned()
    } else {
        format!("{path}.{key}")
    }
}

/// Merges a patch map into a target map; `None` means the map is to be removed.
fn merge_map(
    target: Mapping,
    patch: &Mapping,
    meta: PatchMetaFor<'_>,
    path: &str,
) -> Result<Option<Node>, PatchError> {
    let base = match directive(patch, path)? {
        Directive::Delete => return Ok(None),
        // A replacing map is merged into nothing, which drops its nulls and nested directives.
        Directive::Replace => Mapping {
            pos: patch.pos,
            ..Mapping::new()
        },
        Directive::Merge => target,
    };
    let mut result = base;
    for (key, value) in patch.iter() {
        if key == DIRECTIVE {
            continue;
        }
        let here = join(path, key);
        let current = result.get(key).filter(|n| !n.is_null());
        if let Some(current) = current {
            if !value.is_null() && std::mem::discriminant(current) != std::mem::discriminant(value)
            {
                return Err(PatchError::Merge {
                    path: here,
                    message: format!(
                        "wrong node kind: the target has a {} where the patch has a {}",
                        current.kind_name(),
                        value.kind_name()
                    ),
                });
            }
        }
        let merged = match (value, current) {
            (v, _) if v.is_null() => None,
            // An empty mapping adds nothing where the target has no value (kustomize drops it).
            (Node::Mapping(p), None) if p.is_empty() => continue,
            (Node::Mapping(p), Some(Node::Mapping(_))) => {
                let target = match result.get_mut(key) {
                    Some(Node::Mapping(t)) => std::mem::take(t),
                    _ => Mapping::new(),
                };
                merge_map(target, p, meta.field(key), &here)?
            }
            (Node::Mapping(p), _) => merge_map(Mapping::new(), p, meta.field(key), &here)?,
            (Node::Sequence(p), current) => {
                let empty = Sequence::default();
                let t = match current {
                    Some(Node::Sequence(t)) => t,
                    _ => &empty,
                };
                merge_list(t, p, meta.list_merge(key), meta.field(key), &here)?
            }
            (scalar, _) => Some(scalar.clone()),
        };
        match merged {
            Some(node) => result.insert(key, node),
            None => {
                result.remove(key);
            }
        }
    }
    Ok(Some(Node::Mapping(result)))
}

fn is_replace_marker(node: &Node) -> bool {
    node.as_mapping()
        .is_some_and(|m| m.len() == 1 && m.get(DIRECTIVE).and_then(Node::as_str) == Some("replace"))
}

/// Merges a patch list into a target list (an empty result stays as an empty list).
fn merge_list(
    target: &Sequence,
    patch: &Sequence,
    how: ListMerge<'_>,
    elem_meta: PatchMetaFor<'_>,
    path: &str,
) -> Result<Option<Node>, PatchError> {
    let with_items = |items: Vec<Node>| {
        Some(Node::Sequence(Sequence {
            items,
            ..patch.clone()
        }))
    };
    // Lists without merge metadata are replaced as written, directives included (as kustomize).
    if how != ListMerge::Replace && patch.items.iter().any(is_replace_marker) {
        let mut items = Vec::new();
        for (i, item) in patch.items.iter().enumerate() {
            if is_replace_marker(item) {
                continue;
            }
            items.extend(clean_element(item, elem_meta, &format!("{path}[{i}]"))?);
        }
        return Ok(with_items(items));
    }
    match how {
        ListMerge::Replace => Ok(Some(Node::Sequence(patch.clone()))),
        ListMerge::Primitive => {
            let mut items: Vec<Node> = Vec::new();
            for item in patch.items.iter().chain(&target.items) {
                if item.is_null() || items.iter().any(|seen| same_scalar(seen, item)) {
                    continue;
                }
                items.push(item.clone());
            }
            Ok(with_items(items))
        }
        ListMerge::ByKeys(keys) => {
            merge_by_keys(target, patch, keys, elem_meta, path).map(with_items)
        }
    }
}

fn same_scalar(a: &Node, b: &Node) -> bool {
    match (a, b) {
        (Node::Scalar(x), Node::Scalar(y)) => x.value == y.value,
        _ => a == b,
    }
}

/// A patch element that meets no target element: merged into nothing.
fn clean_element(
    item: &Node,
    elem_meta: PatchMetaFor<'_>,
    path: &str,
) -> Result<Option<Node>, PatchError> {
    match item {
        Node::Mapping(m) => merge_map(Mapping::new(), m, elem_meta, path),
        n if n.is_null() => Ok(None),
        other => Ok(Some(other.clone())),
    }
}

fn key_values<'n>(node: &'n Node, keys: &[String]) -> Option<Vec<Option<&'n str>>> {
    let map = node.as_mapping()?;
    let values: Vec<Option<&str>> = keys
        .iter()
        .map(|k| map.get(k).and_then(Node::as_str))
        .collect();
    // The first key identifies the element; without it the element matches nothing.
    values.first().copied().flatten()?;
    Some(values)
}

/// Elements match when every key has the same value on both sides, a missing key matching only a
/// missing key.
fn keys_match(a: &[Option<&str>], b: &[Option<&str>]) -> bool {
    a == b
}

/// Elements overlap when the keys they both have agree but one lacks a key the other has. kustomize
/// then drops the patch element: a `port: 80` patch element leaves a `port: 80, protocol: TCP`
/// target alone and is not added either (checked with `kubectl kustomize` v5.5.0).
fn keys_overlap(a: &[Option<&str>], b: &[Option<&str>]) -> bool {
    a.iter()
        .zip(b)
        .all(|(x, y)| x.is_none() || y.is_none() || x == y)
}

fn element_path(path: &str, keys: &[String], values: Option<&[Option<&str>]>, i: usize) -> String {
    match values {
        Some(values) => {
            let sel: Vec<String> = keys
                .iter()
                .zip(values)
                .filter_map(|(k, v)| v.map(|v| format!("{k}={v}")))
                .collect();
            format!("{path}[{}]", sel.join(","))
        }
        None => format!("{path}[{i}]"),
    }
}

fn merge_by_keys(
    target: &Sequence,
    patch: &Sequence,
    keys: &[String],
    elem_meta: PatchMetaFor<'_>,
    path: &str,
) -> Result<Vec<Node>, PatchError> {
    enum Slot {
        Target(usize),
        Fresh(Node),
    }
    let target_keys: Vec<Option<Vec<Option<&str>>>> =
        target.items.iter().map(|t| key_values(t, keys)).collect();
    // For each target element: untouched (`None`), merged (`Some(Some)`) or deleted (`Some(None)`).
    let mut outcome: Vec<Option<Option<Node>>> = vec![None; target.items.len()];
    let mut order: Vec<Slot> = Vec::new();
    for (i, item) in patch.items.iter().enumerate() {
        let values = key_values(item, keys);
        let here = element_path(path, keys, values.as_deref(), i);
        let matched = values.as_ref().and_then(|v| {
            target_keys.iter().enumerate().position(|(j, tk)| {
                outcome.get(j).is_some_and(Option::is_none)
                    && tk.as_ref().is_some_and(|tk| keys_match(v, tk))
            })
        });
        if matched.is_none() {
            let overlaps = values.as_ref().is_some_and(|v| {
                target_keys
                    .iter()
                    .any(|tk| tk.as_ref().is_some_and(|tk| keys_overlap(v, tk)))
            });
            if overlaps {
                continue;
            }
        }
        let (Some(j), Node::Mapping(p)) = (matched, item) else {
            if let Some(node) = clean_element(item, elem_meta, &here)? {
                order.push(Slot::Fresh(node));
            }
            continue;
        };
        let merged = match target.items.get(j) {
            // kustomize leaves a matched element alone when the patch element says `replace`.
            Some(t) if directive(p, &here)? == Directive::Replace => Some(t.clone()),
            Some(Node::Mapping(t)) => merge_map(t.clone(), p, elem_meta, &here)?,
            _ => merge_map(Mapping::new(), p, elem_meta, &here)?,
        };
        if let Some(slot) = outcome.get_mut(j) {
            *slot = Some(merged);
        }
        order.push(Slot::Target(j));
    }
    let mut items = Vec::with_capacity(target.items.len() + order.len());
    if keys.len() == 1 {
        // Patch order first, then the target's untouched elements.
        for slot in order {
            match slot {
                Slot::Fresh(node) => items.push(node),
                Slot::Target(j) => {
                    if let Some(Some(node)) = outcome.get_mut(j).and_then(|o| o.replace(None)) {
                        items.push(node);
                    }
                }
            }
        }
        let untouched = target.items.iter().zip(&outcome);
        items.extend(
            untouched
                .filter(|(_, o)| o.is_none())
                .map(|(t, _)| t.clone()),
        );
    } else {
        // Target order, new elements first.
        for slot in order {
            if let Slot::Fresh(node) = slot {
                items.push(node);
            }
        }
        for (t, o) in target.items.iter().zip(outcome) {
            match o {
                Some(Some(node)) => items.push(node),
                Some(None) => {}
                None => items.push(t.clone()),
            }
        }
    }
    Ok(items)
}
