//! Name references: after prefixes, suffixes, namespaces and content hashes changed names, the
//! fields that refer to other objects by name (the builtin nameReference table plus custom
//! configurations) are updated to the referred object's final name.
//!
//! Not for: deciding names (the transformers and generators do that).

use std::sync::LazyLock;

use super::error::Error;
use super::fieldspec::{name_references, walk, Config, FieldSpec, NameRef};
use super::resource::{is_cluster_scoped, Gvk, Res};
use offlux_yaml::{Node, Scalar};

struct Candidate {
    gvk: Gvk,
    names: Vec<String>,
    name: String,
    namespace: String,
    namespaces: Vec<String>,
    cluster_scoped: bool,
    prefixes: Vec<String>,
    suffixes: Vec<String>,
    id: String,
}

struct Referrer<'a> {
    namespace: &'a str,
    /// The reference also names a namespace (RBAC subjects).
    needs_namespace: bool,
    cluster_scoped: bool,
    prefixes: &'a [String],
    suffixes: &'a [String],
}

/// The builtin name reference table, built once.
static BUILTIN_NAME_REFERENCES: LazyLock<Vec<NameRef>> = LazyLock::new(name_references);

pub(super) fn fix(resources: &mut [Res], config: &Config) -> Result<(), Error> {
    let rows: Vec<&NameRef> = BUILTIN_NAME_REFERENCES
        .iter()
        .chain(&config.name_reference)
        .collect();
    let is_referred_to = |gvk: &Gvk| rows.iter().any(|row| row.selects(gvk));
    // Only objects of a kind some row refers to can be renamed in a reference; most objects (a
    // release, a source) are of no such kind, and a candidate costs a dozen strings.
    let candidates: Vec<Candidate> = resources
        .iter()
        .filter_map(|r| {
            let gvk = r.gvk();
            if !is_referred_to(&gvk) {
                return None;
            }
            let cluster_scoped = is_cluster_scoped(&gvk);
            // an unset namespace of a namespaced object is `default`
            let spell = |ns: &str| {
                if ns.is_empty() && !cluster_scoped {
                    "default".to_string()
                } else {
                    ns.to_string()
                }
            };
            let mut namespaces: Vec<String> = r.prev.iter().map(|p| spell(&p.1)).collect();
            namespaces.push(spell(r.namespace()));
            Some(Candidate {
                names: r.all_names().map(str::to_string).collect(),
                name: r.name().to_string(),
                namespace: r.effective_namespace().to_string(),
                namespaces,
                cluster_scoped,
                prefixes: r.prefixes.clone(),
                suffixes: r.suffixes.clone(),
                id: r.id_string(),
                gvk,
            })
        })
        .collect();
    // The objects each row can refer to do not depend on the referrer: find them once.
    let rows: Vec<(&NameRef, Vec<&Candidate>)> = rows
        .into_iter()
        .filter_map(|row| {
            let targets: Vec<&Candidate> =
                candidates.iter().filter(|c| row.selects(&c.gvk)).collect();
            (!targets.is_empty()).then_some((row, targets))
        })
        .collect();
    for res in resources.iter_mut() {
        let gvk = res.gvk();
        let ns = res.effective_namespace().to_string();
        let Res {
            node,
            prefixes,
            suffixes,
            ..
        } = res;
        let mut referrer = Referrer {
            namespace: &ns,
            needs_namespace: false,
            cluster_scoped: is_cluster_scoped(&gvk),
            prefixes,
            suffixes,
        };
        for (row, targets) in &rows {
            let mut seen: Vec<&FieldSpec> = Vec::new();
            for spec in &row.specs {
                if !spec.applies_to(&gvk) || seen.iter().any(|s| s.path == spec.path) {
                    continue;
                }
                seen.push(spec);
                let mut error = None;
                let is_role_ref = spec.path.last().is_some_and(|p| p == "name")
                    && spec.path.len() >= 2
                    && spec.path[spec.path.len() - 2] == "roleRef";
                if is_role_ref {
                    let parent = &spec.path[..spec.path.len() - 1];
                    walk(node, parent, false, &mut |n| {
                        if n.get("kind").and_then(Node::as_str) != Some(row.kind.as_str()) {
                            return;
                        }
                        if let Some(Node::Scalar(s)) =
                            n.as_mapping_mut().and_then(|m| m.get_mut("name"))
                        {
                            if let Err(e) = rename_scalar(s, targets, &referrer, None) {
                                error = Some(e);
                            }
                        }
                    });
                } else {
                    referrer.needs_namespace = row.kind == "ServiceAccount"
                        && spec.path.last().is_some_and(|p| p == "subjects");
                    walk(node, &spec.path, false, &mut |n| {
                        if let Err(e) = rename_node(n, &row.kind, targets, &referrer) {
                            error = Some(e);
                        }
                    });
                }
                if let Some(e) = error {
                    return Err(Error::Finish { message: e });
                }
            }
        }
    }
    Ok(())
}

fn rename_node(
    node: &mut Node,
    kind: &str,
    targets: &[&Candidate],
    referrer: &Referrer,
) -> Result<(), String> {
    match node {
        Node::Scalar(s) => rename_scalar(s, targets, referrer, None).map(|_| ()),
        Node::Sequence(seq) => {
            for item in &mut seq.items {
                rename_node(item, kind, targets, referrer)?;
            }
            Ok(())
        }
        Node::Mapping(m) => {
            // subjects and webhook services: {kind?, name, namespace}
            if let Some(k) = m.get("kind").and_then(Node::as_str) {
                if k != kind {
                    return Ok(());
                }
            }
            let blank = m
                .get("namespace")
                .is_some_and(|n| n.as_str().is_none_or(str::is_empty));
            if kind == "ServiceAccount" && blank {
                return Err("Invalid Input: namespace is blank for resource".into());
            }
            let ns = m
                .get("namespace")
                .and_then(Node::as_str)
                .map(str::to_string);
            let (old, found) = match m.get_mut("name") {
                Some(Node::Scalar(s)) => (
                    s.value.to_string(),
                    rename_scalar(s, targets, referrer, ns.as_deref())?,
                ),
                _ => (String::new(), None),
            };
            if let Some(c) = found {
                // a subject without a namespace gains one only when its object moved or was renamed
                let changed = c.name != old || c.namespaces.iter().any(|n| *n != c.namespace);
                if (ns.is_some() || (kind == "ServiceAccount" && changed))
                    && !c.cluster_scoped
                    && (ns.is_some() || c.namespace != "default")
                {
                    m.insert(
                        "namespace",
                        Node::Scalar(Scalar::plain(c.namespace.clone())),
                    );
                }
            }
            Ok(())
        }
    }
}

/// One list is the tail of the other (the layers both went through last).
fn same_ending(a: &[String], b: &[String], allow_empty: bool) -> bool {
    if a.is_empty() || b.is_empty() {
        return allow_empty || a.is_empty() == b.is_empty();
    }
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    long.ends_with(short)
}

fn rename_scalar<'a>(
    s: &mut Scalar,
    targets: &[&'a Candidate],
    referrer: &Referrer,
    explicit_ns: Option<&str>,
) -> Result<Option<&'a Candidate>, String> {
    let mut found: Vec<&Candidate> = targets
        .iter()
        .copied()
        .filter(|c| c.names.iter().any(|n| *n == s.value))
        .collect();
    if found.is_empty() {
        return Ok(None);
    }
    let old = s.value.clone();
    if let Some(ns) = explicit_ns {
        found.retain(|c| c.namespaces.iter().any(|x| x == ns) || c.namespace == ns);
    } else if !referrer.cluster_scoped {
        found.retain(|c| c.cluster_scoped || c.namespace == referrer.namespace);
    }
    if found.len() > 1 {
        // prefer objects renamed by the same layers as the referrer; an object without prefixes
        // (or suffixes) is compatible with any
        for allow_empty in [false, true] {
            let same: Vec<&Candidate> = found
                .iter()
                .copied()
                .filter(|c| {
                    same_ending(&c.prefixes, referrer.prefixes, allow_empty)
                        && same_ending(&c.suffixes, referrer.suffixes, allow_empty)
                })
                .collect();
            if !same.is_empty() {
                found = same;
                break;
            }
        }
    }
    if found.len() > 1 {
        let current: Vec<&Candidate> = found.iter().copied().filter(|c| c.name == old).collect();
        if current.len() == 1 {
            found = current;
        }
    }
    match found.as_slice() {
        [] => Ok(None),
        [c] => {
            s.value = c.name.as_str().into();
            Ok(Some(c))
        }
        many => {
            // nothing to rename when every candidate kept the name; a subject also needs the
            // namespace, so it must still be unique
            if explicit_ns.is_none()
                && !referrer.needs_namespace
                && many.iter().all(|c| c.name == old)
            {
                return Ok(None);
            }
            let ids: Vec<String> = many.iter().map(|c| c.id.clone()).collect();
            Err(format!(
                "found multiple possible referrals: {}",
                ids.join(", ")
            ))
        }
    }
}
