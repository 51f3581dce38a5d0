//! `replacements`: copies a value from one resource's field (or a static value) into fields of
//! selected resources (kyaml field paths, from the `patch` module), with delimiter/index options
//! for partial strings and field creation.
//!
//! Not for: legacy `vars` (see `transform`).

use super::kustomization::strings;
use super::patch::{field_path_get, field_path_update, FieldPath, PatchError, SetOptions};
use super::resource::{Res, Selector};
use offlux_yaml::{resolve_kyaml, Node, Resolved, Scalar};

/// kustomize's wording for a target field that cannot be created.
fn target_error(path: &str, e: PatchError) -> String {
    match e {
        PatchError::FieldPath { message, .. } => {
            match message
                .strip_prefix("cannot create index ")
                .and_then(|r| r.split_once(": the list has "))
                .and_then(|(i, r)| Some((i, r.split_once(' ')?.0)))
            {
                Some((i, len)) => format!(
                    "unable to find or create field \"{path}\" in replacement target: index {i} specified but only {len} elements found"
                ),
                None => format!("unable to find or create field \"{path}\" in replacement target: {message}"),
            }
        }
        other => other.to_string(),
    }
}

fn selector_string(sel: &Selector) -> String {
    let or = |v: &Option<String>, d: &str| v.clone().filter(|s| !s.is_empty()).unwrap_or(d.into());
    format!(
        "{}.{}.{}/{}.{}",
        or(&sel.kind, ""),
        or(&sel.version, "[noVer]"),
        or(&sel.group, "[noGrp]"),
        or(&sel.name, "[noName]"),
        or(&sel.namespace, "[noNs]")
    )
}

fn str_opt(node: Option<&Node>, key: &str) -> Option<String> {
    node.and_then(|n| n.get(key))
        .and_then(Node::as_str)
        .map(str::to_string)
}

fn int_opt(node: Option<&Node>, key: &str) -> i64 {
    str_opt(node, key).and_then(|s| s.parse().ok()).unwrap_or(0)
}

/// Applies one replacement to the resources.
pub(super) fn apply(resources: &mut [Res], rep: &Node) -> Result<(), String> {
    let source = rep.get("source").filter(|n| !n.is_null());
    let static_value = rep.get("sourceValue").filter(|n| !n.is_null());
    // kustomize's replacement `Filter`: `r.Source == nil || r.Targets == nil`.
    if (source.is_none() && static_value.is_none()) || rep.get("targets").is_none_or(Node::is_null)
    {
        return Err("replacements must specify a source and at least one target".into());
    }
    let mut value = match (source, static_value) {
        (Some(_), Some(_)) => {
            return Err("value and resource selectors are mutually exclusive".into())
        }
        (None, Some(v)) => v.clone(),
        (Some(src), None) => {
            let sel = Selector::from_node(src);
            // a source's name is a plain name, not a pattern
            let plain = Selector {
                name: None,
                ..sel.clone()
            };
            let found: Vec<&Res> = resources
                .iter()
                .filter(|r| {
                    plain.matches(r)
                        && sel
                            .name
                            .as_deref()
                            .is_none_or(|n| r.all_names().any(|x| x == n))
                })
                .collect();
            let path = str_opt(Some(src), "fieldPath").unwrap_or_else(|| "metadata.name".into());
            let res = match found.as_slice() {
                [one] => *one,
                [] => {
                    return Err(format!(
                        "nothing selected by {}:{}",
                        selector_string(&sel),
                        path
                    ))
                }
                _ => {
                    return Err(format!(
                        "multiple matches for selector {}",
                        selector_string(&sel)
                    ))
                }
            };
            let parsed = FieldPath::parse(&path).map_err(|e| e.to_string())?;
            let found = field_path_get(&res.node, &parsed).map_err(|e| e.to_string())?;
            let Some(v) = found.into_iter().next().cloned() else {
                return Err(format!(
                    "fieldPath `{path}` is missing for replacement source {}",
                    selector_string(&sel)
                ));
            };
            let opts = src.get("options");
            if let Some(delim) = str_opt(opts, "delimiter").filter(|d| !d.is_empty()) {
                let Node::Scalar(s) = &v else {
                    return Err("delimiter option can only be used with scalar nodes".into());
                };
                let parts: Vec<&str> = s.value.split(delim.as_str()).collect();
                let index = int_opt(opts, "index");
                let Some(part) = usize::try_from(index).ok().and_then(|i| parts.get(i)) else {
                    return Err(format!(
                        "options.index {index} is out of bounds for value {}",
                        s.value
                    ));
                };
                Node::Scalar(Scalar {
                    value: (*part).into(),
                    ..s.clone()
                })
            } else {
                v
            }
        }
        (None, None) => {
            return Err("replacements must specify a source and at least one target".into())
        }
    };
    strip_positions(&mut value);
    let Some(targets) = rep.get("targets").and_then(Node::as_sequence) else {
        return Ok(());
    };
    for t in &targets.items {
        let select = t.get("select").map(Selector::from_node).unwrap_or_default();
        let rejects: Vec<Selector> = t
            .get("reject")
            .and_then(Node::as_sequence)
            .map(|s| s.items.iter().map(Selector::from_node).collect())
            .unwrap_or_default();
        let opts = t.get("options");
        let create = str_opt(opts, "create").as_deref() == Some("true");
        let delim = str_opt(opts, "delimiter").filter(|d| !d.is_empty());
        let index = int_opt(opts, "index");
        let paths = strings(t.get("fieldPaths"));
        for res in resources.iter_mut() {
            if !select.matches_any_name(res) || rejects.iter().any(|r| r.matches_any_name(res)) {
                continue;
            }
            for path in &paths {
                let parsed = FieldPath::parse(path).map_err(|e| e.to_string())?;
                let set = |target: &mut Node| -> Result<(), String> {
                    set_value(target, &value, delim.as_deref(), index)
                };
                let n = field_path_update(&mut res.node, &parsed, SetOptions { create }, set)
                    .map_err(|e| target_error(path, e))?;
                if n == 0 && !create {
                    return Err(format!(
                        "unable to find field \"{path}\" in replacement target"
                    ));
                }
            }
        }
    }
    Ok(())
}

fn strip_positions(node: &mut Node) {
    match node {
        Node::Scalar(s) => s.pos = Default::default(),
        Node::Sequence(s) => s.items.iter_mut().for_each(strip_positions),
        Node::Mapping(m) => m
            .entries
            .iter_mut()
            .for_each(|e| strip_positions(&mut e.value)),
    }
}

fn set_value(
    target: &mut Node,
    value: &Node,
    delim: Option<&str>,
    index: i64,
) -> Result<(), String> {
    if let Some(d) = delim {
        let (Node::Scalar(t), Node::Scalar(v)) = (&mut *target, value) else {
            return Err("delimiter option can only be used with scalar nodes".into());
        };
        if t.is_null() {
            // a created field starts empty
            *t = Scalar::plain("");
        }
        let mut parts: Vec<String> = t.value.split(d).map(str::to_string).collect();
        if index < 0 {
            parts.insert(0, v.value.to_string());
        } else if let Some(slot) = usize::try_from(index).ok().and_then(|i| parts.get_mut(i)) {
            *slot = v.value.to_string();
        } else {
            parts.push(v.value.to_string());
        }
        t.value = parts.join(d).into();
        return Ok(());
    }
    match (&mut *target, value) {
        (Node::Scalar(t), Node::Scalar(v)) if !t.is_null() => {
            // kyaml keeps the target's resolved tag: a string stays a string, a number takes the
            // new text and is typed again.
            let was_string = matches!(resolve_kyaml(t), Resolved::Str);
            t.value = v.value.clone();
            if was_string && !t.style.is_quoted() {
                t.style = offlux_yaml::ScalarStyle::DoubleQuoted;
            }
            if t.value.contains('\n') && !t.style.is_quoted() {
                t.style = v.style;
            }
        }
        (Node::Scalar(t), Node::Scalar(v)) => {
            // a created field: the value keeps its text, typed afresh
            t.value = v.value.clone();
            t.style = if v.value.is_empty() {
                v.style
            } else {
                offlux_yaml::ScalarStyle::Plain
            };
            t.tag = None;
        }
        (t, v) => *t = v.clone(),
    }
    Ok(())
}
