//! kyaml field paths, as replacements (`spec.template.spec.containers.[name=nginx].image`) and
//! field specs (`spec/template/metadata/labels`) write them: get every match, or set/update every
//! match, optionally creating what is missing.
//!
//! Segments: a field name; a list index (`0`); `[key=value]` selects list elements by a field;
//! `[=value]` selects scalar elements; `[some.key]` is a field name that contains dots; `*` is every
//! element or value; `name[]` (field specs) is a list field that is never created. In field specs a
//! field name met at a list applies to each element (`spec/containers/image` reaches every
//! container's image); in dotted paths it is an error, as in kustomize's replacements.
//!
//! Not for: choosing objects, or what a transformer writes at the matched places.

use offlux_yaml::{Mapping, Node, Sequence};

use super::PatchError;

#[derive(Clone, Debug, PartialEq, Eq)]
enum Segment {
    Field(String),
    /// `name[]` in field specs: a list field whose elements the rest of the path applies to; never
    /// created (kustomize adds no `volumeClaimTemplates` to a StatefulSet without them).
    ListField(String),
    /// A list index; on a mapping it is looked up as a key with the same text.
    Index(usize, String),
    Match {
        key: String,
        value: String,
    },
    ScalarMatch(String),
    Wildcard,
}

/// A parsed field path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct FieldPath {
    text: String,
    segments: Vec<Segment>,
    /// Field specs apply a field name met at a list to every element; kyaml's dotted paths fail.
    implicit_lists: bool,
}

/// What [`field_path_set`] and [`field_path_update`] may do beyond changing existing values.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct SetOptions {
    /// Create missing mapping fields, list elements matching a selector, and the element at index
    /// `len` of a list.
    pub(crate) create: bool,
}

impl FieldPath {
    /// Parses a dotted path (replacements, kyaml): `metadata.annotations.[a.b/c]`.
    pub(crate) fn parse(path: &str) -> Result<FieldPath, PatchError> {
        FieldPath::parse_with(path, '.')
    }

    /// Parses a slash-separated field spec path: `spec/template/metadata/labels`; `\/` is a slash
    /// inside a field name.
    // Used by the patch tests; the engine does not need it.
    #[cfg_attr(not(test), allow(dead_code))]
    pub(crate) fn parse_slashed(path: &str) -> Result<FieldPath, PatchError> {
        FieldPath::parse_with(path, '/')
    }

    fn parse_with(path: &str, separator: char) -> Result<FieldPath, PatchError> {
        let fail = |message: &str| PatchError::FieldPath {
            path: path.to_owned(),
            message: message.to_owned(),
        };
        let mut raw: Vec<(String, bool)> = Vec::new();
        let mut current = String::new();
        let mut bracketed = false;
        let mut depth = 0usize;
        let mut chars = path.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '\\' if separator == '/' && chars.peek() == Some(&'/') => {
                    current.push('/');
                    chars.next();
                }
                '[' if depth == 0 && current.is_empty() => {
                    depth = 1;
                    bracketed = true;
                }
                '[' if depth > 0 => {
                    depth += 1;
                    current.push(c);
                }
                ']' if depth == 1 => depth = 0,
                ']' if depth > 1 => {
                    depth -= 1;
                    current.push(c);
                }
                c if c == separator && depth == 0 => {
                    raw.push((std::mem::take(&mut current), bracketed));
                    bracketed = false;
                }
                c => {
                    if bracketed && depth == 0 {
                        return Err(fail("text follows a closing `]` in the same segment"));
                    }
                    current.push(c);
                }
            }
        }
        if depth > 0 {
            return Err(fail("unclosed `[`"));
        }
        raw.push((current, bracketed));
        let mut segments = Vec::with_capacity(raw.len());
        for (text, bracketed) in raw {
            if text.is_empty() && !bracketed {
                return Err(fail("empty segment"));
            }
            segments.push(if bracketed {
                match text.split_once('=') {
                    Some(("", value)) => Segment::ScalarMatch(value.to_owned()),
                    Some((key, value)) => Segment::Match {
                        key: key.to_owned(),
                        value: value.to_owned(),
                    },
                    None => Segment::Field(text),
                }
            } else if let Some(name) = text.strip_suffix("[]").filter(|n| !n.is_empty()) {
                Segment::ListField(name.to_owned())
            } else if text == "*" {
                Segment::Wildcard
            } else if let Some(i) = text
                .parse::<usize>()
                .ok()
                .filter(|_| text.bytes().all(|b| b.is_ascii_digit()))
            {
                Segment::Index(i, text)
            } else {
                Segment::Field(text)
            });
        }
        Ok(FieldPath {
            text: path.to_owned(),
            segments,
            implicit_lists: separator == '/',
        })
    }
}

/// Every node the path reaches, in document order. A dotted path that names a field of a list fails,
/// as in kustomize (`spec.containers.image` must be `spec.containers.*.image`).
pub(crate) fn field_path_get<'n>(
    node: &'n Node,
    path: &FieldPath,
) -> Result<Vec<&'n Node>, PatchError> {
    let mut out = Vec::new();
    get_into(node, &path.segments, path.implicit_lists, &mut out).map_err(|message| {
        PatchError::FieldPath {
            path: path.text.clone(),
            message,
        }
    })?;
    Ok(out)
}

fn list_field_error(name: &str) -> String {
    format!("`{name}` names a field, but here is a list (select elements with `*`, `[key=value]` or an index)")
}

fn get_into<'n>(
    node: &'n Node,
    segments: &[Segment],
    implicit_lists: bool,
    out: &mut Vec<&'n Node>,
) -> Result<(), String> {
    let Some((first, rest)) = segments.split_first() else {
        out.push(node);
        return Ok(());
    };
    match (first, node) {
        (
            Segment::Field(name) | Segment::Index(_, name) | Segment::ListField(name),
            Node::Mapping(m),
        ) => {
            if let Some(child) = m.get(name) {
                get_into(child, rest, implicit_lists, out)?;
            }
        }
        (Segment::Field(name), Node::Sequence(s)) => {
            if !implicit_lists {
                return Err(list_field_error(name));
            }
            for item in &s.items {
                get_into(item, segments, implicit_lists, out)?;
            }
        }
        (Segment::Index(i, _), Node::Sequence(s)) => {
            if let Some(child) = s.items.get(*i) {
                get_into(child, rest, implicit_lists, out)?;
            }
        }
        (Segment::Match { .. } | Segment::ScalarMatch(_), Node::Sequence(s)) => {
            for item in s.items.iter().filter(|item| selects(first, item)) {
                get_into(item, rest, implicit_lists, out)?;
            }
        }
        (Segment::Wildcard, Node::Sequence(s)) => {
            for item in &s.items {
                get_into(item, rest, implicit_lists, out)?;
            }
        }
        (Segment::Wildcard, Node::Mapping(m)) => {
            for (_, value) in m.iter() {
                get_into(value, rest, implicit_lists, out)?;
            }
        }
        _ => {}
    }
    Ok(())
}

fn selects(segment: &Segment, item: &Node) -> bool {
    match segment {
        Segment::Match { key, value } => {
            item.get(key).and_then(Node::as_str) == Some(value.as_str())
        }
        Segment::ScalarMatch(value) => item.as_str() == Some(value.as_str()),
        _ => false,
    }
}

/// Sets every match to `value`; returns how many places were set.
// Used by the patch tests; the engine does not need it.
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) fn field_path_set(
    node: &mut Node,
    path: &FieldPath,
    value: &Node,
    options: SetOptions,
) -> Result<usize, PatchError> {
    field_path_update(node, path, options, |slot| {
        *slot = value.clone();
        Ok(())
    })
}

/// Calls `update` on every match (a created place starts as null); returns how many places it was
/// called on. An error from `update` is reported with the path.
pub(crate) fn field_path_update(
    node: &mut Node,
    path: &FieldPath,
    options: SetOptions,
    mut update: impl FnMut(&mut Node) -> Result<(), String>,
) -> Result<usize, PatchError> {
    let mut count = 0;
    let walk = Walk {
        options,
        implicit_lists: path.implicit_lists,
    };
    update_at(node, &path.segments, walk, &mut update, &mut count).map_err(|message| {
        PatchError::FieldPath {
            path: path.text.clone(),
            message,
        }
    })?;
    Ok(count)
}

/// The empty node to create before `next` is applied to it.
fn placeholder(next: Option<&Segment>) -> Node {
    match next {
        None => Node::null(),
        Some(Segment::Field(_) | Segment::Wildcard) => Node::Mapping(Mapping::new()),
        Some(_) => Node::Sequence(Sequence::default()),
    }
}

#[derive(Clone, Copy)]
struct Walk {
    options: SetOptions,
    implicit_lists: bool,
}

type Update<'f> = dyn FnMut(&mut Node) -> Result<(), String> + 'f;

fn update_at(
    node: &mut Node,
    segments: &[Segment],
    walk: Walk,
    update: &mut Update<'_>,
    count: &mut usize,
) -> Result<(), String> {
    let options = walk.options;
    let Some((first, rest)) = segments.split_first() else {
        *count += 1;
        return update(node);
    };
    if node.is_null() && options.create {
        *node = match first {
            Segment::Field(_) | Segment::Wildcard => Node::Mapping(Mapping::new()),
            _ => Node::Sequence(Sequence::default()),
        };
    }
    match (first, node) {
        (Segment::ListField(name), Node::Mapping(m)) => match m.get_mut(name) {
            Some(child) => update_at(child, rest, walk, update, count),
            None => Ok(()),
        },
        (Segment::Field(name) | Segment::Index(_, name), Node::Mapping(m)) => {
            if !m.contains_key(name) {
                if !options.create {
                    return Ok(());
                }
                m.insert(name.as_str(), placeholder(rest.first()));
            }
            match m.get_mut(name) {
                Some(child) => update_at(child, rest, walk, update, count),
                None => Ok(()),
            }
        }
        (Segment::Field(name), Node::Sequence(s)) => {
            if !walk.implicit_lists {
                return Err(list_field_error(name));
            }
            for item in &mut s.items {
                update_at(item, segments, walk, update, count)?;
            }
            Ok(())
        }
        (Segment::Index(i, _), Node::Sequence(s)) => {
            let len = s.items.len();
            if *i == len && options.create {
                s.items.push(placeholder(rest.first()));
            } else if *i > len && options.create {
                return Err(format!(
                    "cannot create index {i}: the list has {len} items, so only index {len} can be added"
                ));
            }
            match s.items.get_mut(*i) {
                Some(child) => update_at(child, rest, walk, update, count),
                None => Ok(()),
            }
        }
        (Segment::Match { .. } | Segment::ScalarMatch(_), Node::Sequence(s)) => {
            if options.create && !s.items.iter().any(|item| selects(first, item)) {
                s.items.push(match first {
                    Segment::Match { key, value } => {
                        let mut m = Mapping::new();
                        m.insert(
                            key.as_str(),
                            Node::Scalar(offlux_yaml::Scalar::plain(value.as_str())),
                        );
                        Node::Mapping(m)
                    }
                    Segment::ScalarMatch(value) => {
                        Node::Scalar(offlux_yaml::Scalar::plain(value.as_str()))
                    }
                    _ => Node::null(),
                });
            }
            for item in s.items.iter_mut().filter(|item| selects(first, item)) {
                update_at(item, rest, walk, update, count)?;
            }
            Ok(())
        }
        (Segment::Wildcard, Node::Sequence(s)) => {
            for item in &mut s.items {
                update_at(item, rest, walk, update, count)?;
            }
            Ok(())
        }
        (Segment::Wildcard, Node::Mapping(m)) => {
            for entry in &mut m.entries {
                update_at(&mut entry.value, rest, walk, update, count)?;
            }
            Ok(())
        }
        (_, other) if options.create && !other.is_null() && other.as_scalar().is_some() => {
            Err(format!(
                "cannot descend into a scalar (`{}`)",
                other.as_str().unwrap_or_default()
            ))
        }
        _ => Ok(()),
    }
}
