//! An object's change as a tree, field by field: `spec.replicas: 1 → 2`, a list item matched by
//! its merge key (`spec.template.spec.containers[name=app].image`), an item that changed place
//! shown as moved, and a multi-line string (a ConfigMap's file, a dashboard) diffed line by line
//! inside its key. The unified text diff stays the other view of the same change.
//!
//! Lists are matched by the key Kubernetes merges them by where every item of both sides has it
//! and no two items share it: `name` (containers, env, volumes, ports of a Service…), then
//! `containerPort`, `mountPath`, `port`, `key`, `type`, `ip`. Other lists are compared by
//! position. This is for reading a change, not for applying one: nothing here decides a verdict.

use crate::yaml::{resolve_kyaml, scalar_needs_quoting, Node, Resolved, Scalar};

/// The keys a list's items are matched by, in the order tried.
const MERGE_KEYS: [&str; 7] = [
    "name",
    "containerPort",
    "mountPath",
    "port",
    "key",
    "type",
    "ip",
];

/// At most this many field changes are listed for one object; a note says how many more.
const MAX_FIELDS: usize = 200;

#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub enum FieldChangeKind {
    Added,
    Removed,
    Changed,
    /// A list item matched by its key at another position.
    Moved,
}

/// One field that differs.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct FieldChange {
    /// Where: `spec.template.spec.containers[name=app].image`, `data["app.conf"]`, `args[2]`.
    pub path: String,
    pub change: FieldChangeKind,
    /// The value on the base side, on one line (a collection in flow style, cut at 200 bytes).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub before: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub after: Option<String>,
    /// For a multi-line string on both sides, its unified line diff instead of the values.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diff: Option<String>,
    /// For a moved item, its position on each side.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub positions: Option<(usize, usize)>,
}

/// The field changes from `before` to `after` (two versions of one object), in document order;
/// at most [`MAX_FIELDS`], and the number left out.
pub fn compare(before: &Node, after: &Node) -> (Vec<FieldChange>, usize) {
    let mut walk = Walk {
        out: Vec::new(),
        more: 0,
    };
    walk.node("", before, after);
    (walk.out, walk.more)
}

struct Walk {
    out: Vec<FieldChange>,
    more: usize,
}

impl Walk {
    fn push(&mut self, change: FieldChange) {
        if self.out.len() < MAX_FIELDS {
            self.out.push(change);
        } else {
            self.more += 1;
        }
    }

    fn node(&mut self, path: &str, before: &Node, after: &Node) {
        match (before, after) {
            (Node::Mapping(a), Node::Mapping(b)) => {
                // Looked up in tables: a mapping may hold many keys (a ConfigMap's files).
                let in_after: std::collections::HashMap<&str, &Node> = (b.entries.iter())
                    .map(|entry| (entry.key.value.as_str(), &entry.value))
                    .collect();
                let in_before: std::collections::HashSet<&str> = a
                    .entries
                    .iter()
                    .map(|entry| entry.key.value.as_str())
                    .collect();
                for entry in &a.entries {
                    let at = field(path, &entry.key.value);
                    match in_after.get(entry.key.value.as_str()) {
                        Some(value) => self.node(&at, &entry.value, value),
                        None => self.push(removed(at, &entry.value)),
                    }
                }
                for entry in &b.entries {
                    if !in_before.contains(entry.key.value.as_str()) {
                        self.push(added(field(path, &entry.key.value), &entry.value));
                    }
                }
            }
            (Node::Sequence(a), Node::Sequence(b)) => match merge_key(&a.items, &b.items) {
                Some(key) => self.keyed(path, key, &a.items, &b.items),
                None => {
                    for (i, item) in a.items.iter().enumerate() {
                        let at = format!("{path}[{i}]");
                        match b.items.get(i) {
                            Some(other) => self.node(&at, item, other),
                            None => self.push(removed(at, item)),
                        }
                    }
                    for (i, item) in b.items.iter().enumerate().skip(a.items.len()) {
                        self.push(added(format!("{path}[{i}]"), item));
                    }
                }
            },
            (Node::Scalar(a), Node::Scalar(b)) => {
                // The value and its type: `"5550"` and `5550` differ.
                let is_string = |s: &Scalar| resolve_kyaml(s) == Resolved::Str;
                if a.value != b.value || a.is_null() != b.is_null() || is_string(a) != is_string(b)
                {
                    self.push(scalar_change(path, a, b));
                }
            }
            _ => self.push(FieldChange {
                path: shown_path(path),
                change: FieldChangeKind::Changed,
                before: Some(one_line(before)),
                after: Some(one_line(after)),
                diff: None,
                positions: None,
            }),
        }
    }

    /// Two lists whose items are matched by `key`. An item is moved when the order of the
    /// items both sides hold changed around it (it is off a longest common order), not when an
    /// insertion or a removal only shifted it.
    fn keyed(&mut self, path: &str, key: &str, before: &[Node], after: &[Node]) {
        let id = |item: &Node| item.get(key).map(one_line).unwrap_or_default();
        let at = |item: &Node| format!("{path}[{key}={}]", id(item));
        let before_ids: Vec<String> = before.iter().map(id).collect();
        let after_ids: Vec<String> = after.iter().map(id).collect();
        // Ids are unique on each side (`merge_key`): each side's position by id, in a table, so
        // long lists cost their length, not its square.
        let in_after: std::collections::HashMap<&str, usize> = (after_ids.iter())
            .enumerate()
            .map(|(j, id)| (id.as_str(), j))
            .collect();
        let in_before: std::collections::HashSet<&str> =
            before_ids.iter().map(String::as_str).collect();
        let common_before: Vec<&str> = (before_ids.iter())
            .map(String::as_str)
            .filter(|i| in_after.contains_key(i))
            .collect();
        let common_after: Vec<&str> = (after_ids.iter())
            .map(String::as_str)
            .filter(|i| in_before.contains(i))
            .collect();
        let in_order: std::collections::HashSet<&str> =
            longest_common_order(&common_before, &common_after)
                .into_iter()
                .collect();
        for (i, (item, item_id)) in before.iter().zip(&before_ids).enumerate() {
            let Some(&j) = in_after.get(item_id.as_str()) else {
                self.push(removed(at(item), item));
                continue;
            };
            if !in_order.contains(item_id.as_str()) {
                self.push(FieldChange {
                    path: shown_path(&at(item)),
                    change: FieldChangeKind::Moved,
                    before: None,
                    after: None,
                    diff: None,
                    positions: Some((i, j)),
                });
            }
            if let Some(other) = after.get(j) {
                self.node(&at(item), item, other);
            }
        }
        for (item, item_id) in after.iter().zip(&after_ids) {
            if !in_before.contains(item_id.as_str()) {
                self.push(added(at(item), item));
            }
        }
    }
}

/// The items of a longest subsequence `a` and `b` share (both lists of distinct ids): those
/// whose relative order did not change. Lists longer than 500 items are taken as unchanged in
/// order, which bounds the work.
fn longest_common_order<'a>(a: &[&'a str], b: &[&'a str]) -> Vec<&'a str> {
    if a.len() > 500 || b.len() > 500 {
        return a.to_vec();
    }
    // lengths[i][j]: the longest common subsequence of a[i..] and b[j..].
    let mut lengths = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for i in (0..a.len()).rev() {
        for j in (0..b.len()).rev() {
            lengths[i][j] = if a[i] == b[j] {
                lengths[i + 1][j + 1] + 1
            } else {
                lengths[i + 1][j].max(lengths[i][j + 1])
            };
        }
    }
    let (mut i, mut j, mut out) = (0, 0, Vec::new());
    while i < a.len() && j < b.len() {
        if a[i] == b[j] {
            out.push(a[i]);
            i += 1;
            j += 1;
        } else if lengths[i + 1][j] >= lengths[i][j + 1] {
            i += 1;
        } else {
            j += 1;
        }
    }
    out
}

/// The first of [`MERGE_KEYS`] every item of both lists holds as a scalar, unique on each side.
fn merge_key(before: &[Node], after: &[Node]) -> Option<&'static str> {
    if before.is_empty() && after.is_empty() {
        return None;
    }
    MERGE_KEYS.into_iter().find(|key| {
        [before, after].iter().all(|items| {
            let ids: Option<Vec<&str>> = items
                .iter()
                .map(|item| item.get(key).and_then(Node::as_str))
                .collect();
            ids.is_some_and(|mut ids| {
                let count = ids.len();
                ids.sort_unstable();
                ids.dedup();
                ids.len() == count
            })
        })
    })
}

fn scalar_change(path: &str, before: &Scalar, after: &Scalar) -> FieldChange {
    let multi_line = before.value.contains('\n') && after.value.contains('\n');
    FieldChange {
        path: shown_path(path),
        change: FieldChangeKind::Changed,
        before: (!multi_line).then(|| cut(scalar_text(before))),
        after: (!multi_line).then(|| cut(scalar_text(after))),
        diff: multi_line.then(|| super::unified(&before.value, &after.value, path, 3)),
        positions: None,
    }
}

/// A multi-line string's lines as a diff of their own (all added or all removed).
fn lines_of(value: &Node, added: bool, path: &str) -> Option<String> {
    let text = value.as_scalar().filter(|s| s.value.contains('\n'))?;
    Some(if added {
        super::unified("", &text.value, path, 3)
    } else {
        super::unified(&text.value, "", path, 3)
    })
}

fn added(path: String, value: &Node) -> FieldChange {
    let diff = lines_of(value, true, &path);
    FieldChange {
        path: shown_path(&path),
        change: FieldChangeKind::Added,
        before: None,
        after: diff.is_none().then(|| one_line(value)),
        diff,
        positions: None,
    }
}

fn removed(path: String, value: &Node) -> FieldChange {
    let diff = lines_of(value, false, &path);
    FieldChange {
        path: shown_path(&path),
        change: FieldChangeKind::Removed,
        before: diff.is_none().then(|| one_line(value)),
        after: None,
        diff,
        positions: None,
    }
}

/// `path.key`, or `path["key"]` when the key is not a plain word (`data["app.conf"]`).
fn field(path: &str, key: &str) -> String {
    let plain = !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    match (path.is_empty(), plain) {
        (true, true) => key.to_owned(),
        (false, true) => format!("{path}.{key}"),
        (_, false) => format!("{path}[{}]", serde_json::Value::from(key)),
    }
}

fn shown_path(path: &str) -> String {
    if path.is_empty() {
        "(the object)".to_owned()
    } else {
        path.to_owned()
    }
}

/// A scalar as YAML would write it: a string that would read as another type (`"true"`,
/// `"5550"`), or with spaces at its ends, in double quotes; anything else as it reads.
fn scalar_text(scalar: &Scalar) -> String {
    if scalar.is_null() {
        return "null".to_owned();
    }
    let text = scalar.value.as_str();
    let string = resolve_kyaml(scalar) == Resolved::Str;
    if string && (text.is_empty() || text.trim() != text || scalar_needs_quoting(text)) {
        serde_json::Value::from(text).to_string()
    } else {
        text.to_owned()
    }
}

/// A value on one line: a scalar as it reads, a collection in flow style, cut at 200 bytes.
fn one_line(node: &Node) -> String {
    fn flow(node: &Node, out: &mut String) {
        match node {
            Node::Scalar(scalar) => out.push_str(&scalar_text(scalar).replace('\n', "\\n")),
            Node::Sequence(sequence) => {
                out.push('[');
                for (i, item) in sequence.items.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    flow(item, out);
                    if out.len() > 200 {
                        break;
                    }
                }
                out.push(']');
            }
            Node::Mapping(mapping) => {
                out.push('{');
                for (i, entry) in mapping.entries.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    out.push_str(&entry.key.value);
                    out.push_str(": ");
                    flow(&entry.value, out);
                    if out.len() > 200 {
                        break;
                    }
                }
                out.push('}');
            }
        }
    }
    let mut out = String::new();
    flow(node, &mut out);
    cut(out)
}

fn cut(text: String) -> String {
    const MAX: usize = 200;
    if text.len() <= MAX {
        return text;
    }
    let mut end = MAX;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &text[..end])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(text: &str) -> Node {
        let documents =
            crate::yaml::parse_stream(text, &crate::yaml::ParseOptions::default()).expect("YAML");
        (*documents[0].root).clone()
    }

    #[test]
    fn containers_are_matched_by_name_and_scalars_read_old_to_new() {
        let before = node(
            "spec:\n  replicas: 1\n  containers:\n  - name: app\n    image: app:1.0\n  - name: sidecar\n    image: proxy:2\n",
        );
        let after = node(
            "spec:\n  replicas: 2\n  containers:\n  - name: sidecar\n    image: proxy:2\n  - name: app\n    image: app:1.1\n  - name: init\n    image: busybox\n",
        );
        let (fields, more) = compare(&before, &after);
        assert_eq!(more, 0);
        let shown: Vec<String> = fields
            .iter()
            .map(|f| {
                format!(
                    "{:?} {} {} {}",
                    f.change,
                    f.path,
                    f.before.as_deref().unwrap_or("-"),
                    f.after.as_deref().unwrap_or("-")
                )
            })
            .collect();
        assert_eq!(
            shown,
            [
                "Changed spec.replicas 1 2",
                "Moved spec.containers[name=app] - -",
                "Changed spec.containers[name=app].image app:1.0 app:1.1",
                "Added spec.containers[name=init] - {name: init, image: busybox}",
            ]
        );
        assert_eq!(fields[1].positions, Some((0, 1)));
    }

    #[test]
    fn an_insertion_moves_nothing() {
        let before = node("ports:\n- {name: http, port: 80}\n- {name: https, port: 443}\n");
        let after = node(
            "ports:\n- {name: metrics, port: 9090}\n- {name: http, port: 80}\n- {name: https, port: 443}\n",
        );
        let (fields, _) = compare(&before, &after);
        let shown: Vec<(&str, &FieldChangeKind)> = fields
            .iter()
            .map(|f| (f.path.as_str(), &f.change))
            .collect();
        assert_eq!(shown, [("ports[name=metrics]", &FieldChangeKind::Added)]);
    }

    /// Long lists cost their length: 50 000 named items, reversed and one value changed,
    /// compare in well under a second (matching item by item by search took the square of it);
    /// past 500 items moves are not looked for.
    #[test]
    fn long_keyed_lists_compare_in_linear_time() {
        let items = |order: &mut dyn Iterator<Item = usize>, changed: usize| {
            let mut text = String::from("items:\n");
            for i in order {
                let v = if i == changed { 0 } else { i };
                text.push_str(&format!("- {{name: n{i}, v: {v}}}\n"));
            }
            node(&text)
        };
        let before = items(&mut (0..50_000), usize::MAX);
        let after = items(&mut (0..50_000).rev(), 7);
        let started = std::time::Instant::now();
        let (fields, more) = compare(&before, &after);
        assert!(started.elapsed() < std::time::Duration::from_secs(5));
        assert_eq!(more, 0);
        let paths: Vec<&str> = fields.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(paths, ["items[name=n7].v"]);
    }

    #[test]
    fn a_type_change_is_a_change_and_strings_read_as_strings() {
        let before = node("env:\n  PORT: \"5550\"\n  FLAG: \"true\"\n  TZ: Etc/UTC\n");
        let after = node("env:\n  PORT: 5550\n  FLAG: \"false\"\n  TZ: \"Etc/UTC \"\n");
        let (fields, _) = compare(&before, &after);
        let shown: Vec<String> = fields
            .iter()
            .map(|f| {
                format!(
                    "{} {} {}",
                    f.path,
                    f.before.as_deref().unwrap_or("-"),
                    f.after.as_deref().unwrap_or("-")
                )
            })
            .collect();
        assert_eq!(
            shown,
            [
                "env.PORT \"5550\" 5550",
                "env.FLAG \"true\" \"false\"",
                "env.TZ Etc/UTC \"Etc/UTC \"",
            ]
        );
    }

    #[test]
    fn an_added_multi_line_string_has_its_lines() {
        let before = node("data: {}\n");
        let after = node("data:\n  extra.yaml: |\n    a: 1\n    b: 2\n");
        let (fields, _) = compare(&before, &after);
        assert_eq!(fields.len(), 1);
        assert!(fields[0].after.is_none());
        let diff = fields[0].diff.as_deref().unwrap_or_default();
        assert!(diff.contains("+a: 1\n+b: 2\n"), "{diff}");
    }

    #[test]
    fn a_multi_line_string_is_diffed_inside_its_key() {
        let before = node("data:\n  app.conf: |\n    a = 1\n    b = 2\n");
        let after = node("data:\n  app.conf: |\n    a = 1\n    b = 3\n");
        let (fields, _) = compare(&before, &after);
        assert_eq!(fields.len(), 1);
        assert_eq!(fields[0].path, "data[\"app.conf\"]");
        let diff = fields[0].diff.as_deref().unwrap_or_default();
        assert!(diff.contains("-b = 2\n+b = 3\n"), "{diff}");
        assert!(fields[0].before.is_none());
    }

    #[test]
    fn lists_without_a_unique_key_are_compared_by_position() {
        let before =
            node("args: [--a, --b]\nenv:\n- {name: X, value: '1'}\n- {name: X, value: '2'}\n");
        let after =
            node("args: [--a, --c, --d]\nenv:\n- {name: X, value: '1'}\n- {name: X, value: '3'}\n");
        let (fields, _) = compare(&before, &after);
        let paths: Vec<&str> = fields.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(paths, ["args[1]", "args[2]", "env[1].value"]);
    }
}
