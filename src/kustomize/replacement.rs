//! `replacements`: copies a value from one resource's field (or a static value) into fields of
//! selected resources, with kyaml field paths (`a.b.[name=x].c`, indices, `*`), delimiter/index
//! options for partial strings, and field creation.
//!
//! Not for: legacy `vars` (see `transform`).

use super::resource::{Res, Selector};
use crate::yaml::{resolve_kyaml, Mapping, Node, Resolved, Scalar, Sequence};

/// Splits a kyaml field path on dots outside brackets.
fn split(path: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut depth = 0;
    for c in path.chars() {
        match c {
            '[' => depth += 1,
            ']' => depth -= 1,
            '.' if depth == 0 => {
                out.push(std::mem::take(&mut cur));
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    out.push(cur);
    out
}

enum Seg<'a> {
    Field(&'a str),
    Match(&'a str, &'a str),
    Index(usize),
    Any,
}

fn seg(s: &str) -> Seg<'_> {
    if s == "*" {
        return Seg::Any;
    }
    if let Some(inner) = s.strip_prefix('[').and_then(|x| x.strip_suffix(']')) {
        return match inner.split_once('=') {
            Some((k, v)) => Seg::Match(k, v),
            None => Seg::Field(inner),
        };
    }
    match s.parse::<usize>() {
        Ok(i) => Seg::Index(i),
        Err(_) => Seg::Field(s),
    }
}

fn lookup<'a>(node: &'a Node, segs: &[String]) -> Vec<&'a Node> {
    let Some((first, rest)) = segs.split_first() else {
        return vec![node];
    };
    let next: Vec<&Node> = match (seg(first), node) {
        (Seg::Field(f), Node::Mapping(m)) => m.get(f).into_iter().collect(),
        (Seg::Any, Node::Mapping(m)) => m.entries.iter().map(|e| &e.value).collect(),
        (Seg::Any, Node::Sequence(s)) => s.items.iter().collect(),
        (Seg::Index(i), Node::Sequence(s)) => s.items.get(i).into_iter().collect(),
        (Seg::Match(k, v), Node::Sequence(s)) => s
            .items
            .iter()
            .filter(|i| i.get(k).and_then(Node::as_str) == Some(v))
            .collect(),
        _ => Vec::new(),
    };
    next.into_iter().flat_map(|n| lookup(n, rest)).collect()
}

/// Visits (creating when asked) the nodes at `segs`. Errors name the path.
fn visit_mut(
    node: &mut Node,
    segs: &[String],
    create: bool,
    path: &str,
    f: &mut dyn FnMut(&mut Node) -> Result<(), String>,
) -> Result<usize, String> {
    let Some((first, rest)) = segs.split_first() else {
        f(node)?;
        return Ok(1);
    };
    let fresh = |rest: &[String]| -> Node {
        match rest.first().map(|s| seg(s)) {
            None => Node::Scalar(Scalar::plain("")),
            Some(Seg::Match(..)) | Some(Seg::Index(_)) => Node::Sequence(Sequence::default()),
            Some(_) => Node::Mapping(Mapping::new()),
        }
    };
    let mut count = 0;
    match seg(first) {
        Seg::Field(key) => {
            if node.is_null() && create {
                *node = Node::Mapping(Mapping::new());
            }
            if let Node::Mapping(m) = node {
                if !m.contains_key(key) {
                    if !create {
                        return Ok(0);
                    }
                    m.insert(key, fresh(rest));
                }
                if let Some(child) = m.get_mut(key) {
                    if child.is_null() && create && !rest.is_empty() {
                        *child = fresh(rest);
                    }
                    count += visit_mut(child, rest, create, path, f)?;
                }
            }
        }
        Seg::Any => match node {
            Node::Mapping(m) => {
                for e in &mut m.entries {
                    count += visit_mut(&mut e.value, rest, create, path, f)?;
                }
            }
            Node::Sequence(s) => {
                for i in &mut s.items {
                    count += visit_mut(i, rest, create, path, f)?;
                }
            }
            Node::Scalar(_) => {}
        },
        Seg::Index(i) => {
            if node.is_null() && create {
                *node = Node::Sequence(Sequence::default());
            }
            if let Node::Sequence(s) = node {
                if i >= s.items.len() {
                    if !create {
                        return Ok(0);
                    }
                    if i > s.items.len() {
                        return Err(format!(
                            "unable to find or create field \"{path}\" in replacement target: index {i} specified but only {} elements found",
                            s.items.len()
                        ));
                    }
                    s.items.push(fresh(rest));
                }
                if let Some(child) = s.items.get_mut(i) {
                    count += visit_mut(child, rest, create, path, f)?;
                }
            }
        }
        Seg::Match(k, v) => {
            if node.is_null() && create {
                *node = Node::Sequence(Sequence::default());
            }
            if let Node::Sequence(s) = node {
                let mut any = false;
                for item in &mut s.items {
                    if item.get(k).and_then(Node::as_str) == Some(v) {
                        any = true;
                        count += visit_mut(item, rest, create, path, f)?;
                    }
                }
                if !any && create {
                    let mut m = Mapping::new();
                    m.insert(k, Node::Scalar(Scalar::plain(v)));
                    s.items.push(Node::Mapping(m));
                    if let Some(item) = s.items.last_mut() {
                        count += visit_mut(item, rest, create, path, f)?;
                    }
                }
            }
        }
    }
    Ok(count)
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
pub fn apply(resources: &mut [Res], rep: &Node) -> Result<(), String> {
    let source = rep.get("source");
    let static_value = rep.get("sourceValue");
    let mut value = match (source, static_value) {
        (Some(_), Some(_)) => {
            return Err("value and resource selectors are mutually exclusive".into())
        }
        (None, Some(v)) => v.clone(),
        (Some(src), None) => {
            let sel = Selector::from_node(src);
            let found: Vec<&Res> = resources
                .iter()
                .filter(|r| sel.matches_any_name(r))
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
            let segs = split(&path);
            let Some(v) = lookup(&res.node, &segs).into_iter().next().cloned() else {
                return Err(format!(
                    "fieldPath `{path}` is missing for replacement source {}",
                    res.id_string()
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
                    value: part.to_string(),
                    ..s.clone()
                })
            } else {
                v
            }
        }
        (None, None) => return Err("either source or sourceValue must be set".into()),
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
        let paths: Vec<String> = t
            .get("fieldPaths")
            .and_then(Node::as_sequence)
            .map(|s| {
                s.items
                    .iter()
                    .filter_map(|i| i.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default();
        for res in resources.iter_mut() {
            if !select.matches_any_name(res) || rejects.iter().any(|r| r.matches_any_name(res)) {
                continue;
            }
            for path in &paths {
                let segs = split(path);
                let mut set = |target: &mut Node| -> Result<(), String> {
                    set_value(target, &value, delim.as_deref(), index)
                };
                let n = visit_mut(&mut res.node, &segs, create, path, &mut set)?;
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
        let mut parts: Vec<String> = t.value.split(d).map(str::to_string).collect();
        if index < 0 {
            parts.insert(0, v.value.clone());
        } else if let Some(slot) = usize::try_from(index).ok().and_then(|i| parts.get_mut(i)) {
            *slot = v.value.clone();
        } else {
            parts.push(v.value.clone());
        }
        t.value = parts.join(d);
        return Ok(());
    }
    match (&mut *target, value) {
        (Node::Scalar(t), Node::Scalar(v)) if !t.is_null() || !t.value.is_empty() => {
            // kyaml keeps the target's resolved tag: a string stays a string, a number takes the
            // new text and is typed again.
            let was_string = matches!(resolve_kyaml(t), Resolved::Str);
            t.value = v.value.clone();
            if was_string && !t.style.is_quoted() {
                t.style = crate::yaml::ScalarStyle::DoubleQuoted;
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
                crate::yaml::ScalarStyle::Plain
            };
            t.tag = None;
        }
        (t, v) => *t = v.clone(),
    }
    Ok(())
}
