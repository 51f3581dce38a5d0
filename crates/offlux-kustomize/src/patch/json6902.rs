//! JSON patches (RFC 6902) applied to YAML trees, with RFC 6901 pointers, as kustomize applies them
//! (evanphx/json-patch): `add`, `remove`, `replace`, `move`, `copy` and `test`; `-` appends to a
//! list; negative indices count from the end; `~1` and `~0` escape `/` and `~`.
//!
//! Not for: parsing the operations' text (the caller parses YAML or JSON into a node) or choosing
//! targets.

use offlux_yaml::{to_json_kyaml, Node};

use super::PatchError;

/// The largest document a patch may make, by [`weight`]: `copy` can double a document with
/// each operation, so sixty of them would ask for more memory than there is.
pub(crate) const MAX_PATCHED_WEIGHT: u64 = 64 << 20;

/// A tree's size, roughly in bytes: a fixed cost per node and entry plus its scalars' text.
/// Counting stops once past `limit`.
fn weight(node: &Node, limit: u64) -> u64 {
    const NODE: u64 = 64;
    let mut total = 0u64;
    let mut stack = vec![node];
    while let Some(node) = stack.pop() {
        if total > limit {
            break;
        }
        total = total.saturating_add(NODE);
        match node {
            Node::Scalar(s) => total = total.saturating_add(s.value.len() as u64),
            Node::Sequence(s) => stack.extend(s.items.iter()),
            Node::Mapping(m) => {
                for e in &m.entries {
                    total = total.saturating_add(NODE + e.key.value.len() as u64);
                    stack.push(&e.value);
                }
            }
        }
    }
    total
}

/// Applies a list of operations to a copy of `target`. Errors name the operation's index and path.
pub(crate) fn apply_json6902(target: &Node, operations: &Node) -> Result<Node, PatchError> {
    let mut doc = target.clone();
    let mut doc_weight = weight(&doc, MAX_PATCHED_WEIGHT);
    let Some(ops) = operations.as_sequence() else {
        if operations.is_null() {
            return Ok(doc);
        }
        return Err(PatchError::Json6902 {
            index: 0,
            op: String::new(),
            path: String::new(),
            message: format!(
                "a JSON patch must be a list of operations, not a {}",
                operations.kind_name()
            ),
        });
    };
    for (index, op) in ops.items.iter().enumerate() {
        let field = |name: &str| op.get(name).and_then(Node::as_str);
        let name = field("op").unwrap_or("");
        let path = field("path").unwrap_or("");
        let fail = |message: String| PatchError::Json6902 {
            index,
            op: name.to_owned(),
            path: path.to_owned(),
            message,
        };
        if op.as_mapping().is_none() {
            return Err(fail(format!(
                "an operation must be a mapping, not a {}",
                op.kind_name()
            )));
        }
        if op.get("path").is_none() {
            return Err(fail("the operation has no `path`".into()));
        }
        let pointer = parse_pointer(path).map_err(&fail)?;
        let value = || {
            op.get("value")
                .cloned()
                .ok_or_else(|| fail("the operation has no `value`".into()))
        };
        let from = || -> Result<Vec<String>, PatchError> {
            let from = field("from").ok_or_else(|| fail("the operation has no `from`".into()))?;
            parse_pointer(from).map_err(|m| fail(format!("in `from`: {m}")))
        };
        // What an operation adds counts in full; what it takes away is not subtracted, so the
        // bound holds however operations are combined.
        let mut grow = |added: &Node| {
            doc_weight = doc_weight.saturating_add(weight(added, MAX_PATCHED_WEIGHT));
            if doc_weight > MAX_PATCHED_WEIGHT {
                Err(fail(format!(
                    "the patched object would be larger than the {MAX_PATCHED_WEIGHT}-byte limit"
                )))
            } else {
                Ok(())
            }
        };
        match name {
            "add" => {
                let value = value()?;
                grow(&value)?;
                add(&mut doc, &pointer, value).map_err(fail)?
            }
            "remove" => {
                remove(&mut doc, &pointer).map_err(fail)?;
            }
            "replace" => {
                let value = value()?;
                grow(&value)?;
                replace(&mut doc, &pointer, value).map_err(fail)?
            }
            "move" => {
                let from = from()?;
                if pointer.len() > from.len() && pointer.starts_with(&from) {
                    return Err(fail("cannot move a value into itself".into()));
                }
                let moved = remove(&mut doc, &from).map_err(fail)?;
                add(&mut doc, &pointer, moved).map_err(fail)?;
            }
            "copy" => {
                let source = get_mut(&mut doc, &from()?).map_err(&fail)?;
                grow(source)?;
                let copied = source.clone();
                add(&mut doc, &pointer, copied).map_err(fail)?;
            }
            "test" => {
                let expected = value()?;
                // A missing value equals null, as in kustomize (evanphx/json-patch).
                let actual = get_mut(&mut doc, &pointer)
                    .map(|n| to_json_kyaml(n))
                    .unwrap_or(serde_json::Value::Null);
                if actual != to_json_kyaml(&expected) {
                    return Err(fail("test failed: the value differs".into()));
                }
            }
            other => return Err(fail(format!("unknown operation `{other}`"))),
        }
    }
    Ok(doc)
}

/// Splits an RFC 6901 pointer into unescaped tokens; `""` is the whole document.
fn parse_pointer(pointer: &str) -> Result<Vec<String>, String> {
    if pointer.is_empty() {
        return Ok(Vec::new());
    }
    let Some(rest) = pointer.strip_prefix('/') else {
        return Err(format!("the pointer `{pointer}` does not start with `/`"));
    };
    Ok(rest
        .split('/')
        .map(|t| t.replace("~1", "/").replace("~0", "~"))
        .collect())
}

/// An index into a list of `len` items; negative indices count from the end.
fn list_index(token: &str, len: usize) -> Result<usize, String> {
    let index: i64 = token
        .parse()
        .map_err(|_| format!("`{token}` is not a list index"))?;
    let len_i = i64::try_from(len).unwrap_or(i64::MAX);
    let resolved = if index < 0 { index + len_i } else { index };
    if resolved < 0 || resolved >= len_i {
        return Err(format!(
            "index {index} is out of bounds (the list has {len} items)"
        ));
    }
    usize::try_from(resolved).map_err(|_| format!("index {index} is out of bounds"))
}

fn child_mut<'n>(node: &'n mut Node, token: &str) -> Result<&'n mut Node, String> {
    let kind = node.kind_name();
    match node {
        Node::Mapping(m) => m
            .get_mut(token)
            .ok_or_else(|| format!("missing key `{token}`")),
        Node::Sequence(s) => {
            let i = list_index(token, s.items.len())?;
            s.items
                .get_mut(i)
                .ok_or_else(|| format!("index {i} is out of bounds"))
        }
        _ => Err(format!("cannot look up `{token}` in a {kind}")),
    }
}

fn get_mut<'n>(doc: &'n mut Node, pointer: &[String]) -> Result<&'n mut Node, String> {
    pointer
        .iter()
        .try_fold(doc, |node, token| child_mut(node, token))
}

fn add(doc: &mut Node, pointer: &[String], value: Node) -> Result<(), String> {
    let Some((last, parent)) = pointer.split_last() else {
        *doc = value;
        return Ok(());
    };
    let parent = get_mut(doc, parent)?;
    let kind = parent.kind_name();
    match parent {
        Node::Mapping(m) => {
            m.insert(last.as_str(), value);
            Ok(())
        }
        Node::Sequence(s) => {
            if last == "-" {
                s.items.push(value);
                return Ok(());
            }
            // An insertion index may equal the length; negative ones count from the new end.
            let len = s.items.len() + 1;
            let i = list_index(last, len)?;
            s.items.insert(i, value);
            Ok(())
        }
        _ => Err(format!("cannot add `{last}` to a {kind}")),
    }
}

/// Replaces an existing value; like kustomize (evanphx/json-patch v5), a missing mapping key is
/// added rather than refused.
fn replace(doc: &mut Node, pointer: &[String], value: Node) -> Result<(), String> {
    if let Some((last, parent)) = pointer.split_last() {
        if let Node::Mapping(m) = get_mut(doc, parent)? {
            m.insert(last.as_str(), value);
            return Ok(());
        }
    }
    *get_mut(doc, pointer)? = value;
    Ok(())
}

fn remove(doc: &mut Node, pointer: &[String]) -> Result<Node, String> {
    let Some((last, parent)) = pointer.split_last() else {
        return Err("cannot remove the whole document".into());
    };
    let parent = get_mut(doc, parent)?;
    let kind = parent.kind_name();
    match parent {
        Node::Mapping(m) => m
            .remove(last)
            .ok_or_else(|| format!("missing key `{last}`")),
        Node::Sequence(s) => {
            let i = list_index(last, s.items.len())?;
            Ok(s.items.remove(i))
        }
        _ => Err(format!("cannot remove `{last}` from a {kind}")),
    }
}
