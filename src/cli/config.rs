//! `.offlux.yaml`, the repository's settings for offlux: read from the repository root and checked
//! whole before anything uses it. A key offlux does not know, or a value of the wrong shape, is an
//! input error (exit 2) at its file and line, naming the nearest key offlux knows: a misspelt
//! setting silently ignored would be a check silently not made.
//!
//! ```yaml
//! sources:                  # NAME or KIND/NAMESPACE/NAME: a directory (`cli::run_args`)
//!   flux-system: .
//! validate:
//!   severities:             # per code: error, warning or off (`cli::validate`)
//!     OFX106: off
//!   orphans:                # `cli::orphans`
//!     ignore: [examples/**]
//!     entry-points: [clusters/staging]
//! ```

use std::path::Path;

use crate::validate::Code;
use crate::yaml::{Node, Pos};

/// The file's name, at the repository root.
pub(crate) const FILE: &str = ".offlux.yaml";

/// What a key may hold.
enum Shape {
    /// A mapping with these keys only.
    Fixed(&'static [(&'static str, Shape)]),
    /// A mapping whose keys the check accepts (`Err` says why one is refused), each value of one
    /// shape.
    Keyed(fn(&str) -> Result<(), String>, &'static Shape),
    /// A list of strings, each one of what it names ("paths").
    List(&'static str),
    /// A string.
    Text,
    /// One of these strings.
    OneOf(&'static [&'static str]),
}

const ROOT: Shape = Shape::Fixed(&[
    ("sources", Shape::Keyed(any_key, &Shape::Text)),
    (
        "validate",
        Shape::Fixed(&[
            (
                "severities",
                Shape::Keyed(
                    configurable_code,
                    &Shape::OneOf(&["error", "warning", "off"]),
                ),
            ),
            (
                "orphans",
                Shape::Fixed(&[
                    ("ignore", Shape::List("paths")),
                    ("entry-points", Shape::List("paths")),
                ]),
            ),
        ]),
    ),
]);

fn any_key(_: &str) -> Result<(), String> {
    Ok(())
}

fn configurable_code(key: &str) -> Result<(), String> {
    match Code::parse(key) {
        None => Err(format!(
            "unknown code `{key}` (`offlux explain` lists them)"
        )),
        Some(Code::ProducerFailed) => Err(format!(
            "`{key}` cannot be configured: a producer that fails is always an error"
        )),
        Some(_) => Ok(()),
    }
}

/// The first document of `root/.offlux.yaml`, checked; `None` when there is no such file. `Err`
/// names the file and line and what is wrong there.
pub(crate) fn read(root: &Path) -> Result<Option<Node>, String> {
    let path = root.join(FILE);
    let facts = crate::fsio::FsFacts::default();
    let Ok(text) = crate::fsio::read_to_string(&facts, &path, crate::fsio::Confine::within(root))
    else {
        return Ok(None);
    };
    let at = |pos: Pos, message: String| format!("{}:{}: {message}", path.display(), pos.line);
    let documents = crate::yaml::parse_stream(&text, &crate::yaml::ParseOptions::default())
        .map_err(|e| format!("{}: {e}", path.display()))?;
    if let Some(second) = documents.get(1) {
        return Err(at(
            second.root.pos(),
            "a second YAML document: offlux reads one".into(),
        ));
    }
    let Some(document) = documents.into_iter().next() else {
        return Ok(None);
    };
    let root_node = (*document.root).clone();
    if !is_null(&root_node) {
        check(&root_node, &ROOT, "", &at)?;
    }
    Ok(Some(root_node))
}

fn is_null(node: &Node) -> bool {
    matches!(node, Node::Scalar(s) if s.is_null())
}

/// `node` against `shape`; `path` is the dotted key that holds it (empty at the top).
fn check(
    node: &Node,
    shape: &Shape,
    path: &str,
    at: &dyn Fn(Pos, String) -> String,
) -> Result<(), String> {
    let shown = |path: &str| {
        if path.is_empty() {
            "the file".to_string()
        } else {
            format!("`{path}`")
        }
    };
    let child = |key: &str| {
        if path.is_empty() {
            key.to_string()
        } else {
            format!("{path}.{key}")
        }
    };
    match shape {
        Shape::Fixed(keys) => {
            let mapping = node
                .as_mapping()
                .ok_or_else(|| at(node.pos(), format!("{} must be a mapping", shown(path))))?;
            for entry in &mapping.entries {
                let key = entry.key.value.as_str();
                let Some((_, inner)) = keys.iter().find(|(known, _)| *known == key) else {
                    let known: Vec<&str> = keys.iter().map(|(k, _)| *k).collect();
                    return Err(at(entry.key.pos, unknown_key(&child(key), key, &known)));
                };
                if !is_null(&entry.value) {
                    check(&entry.value, inner, &child(key), at)?;
                }
            }
            Ok(())
        }
        Shape::Keyed(accepts, inner) => {
            let mapping = node
                .as_mapping()
                .ok_or_else(|| at(node.pos(), format!("{} must be a mapping", shown(path))))?;
            for entry in &mapping.entries {
                let key = entry.key.value.as_str();
                accepts(key)
                    .map_err(|why| at(entry.key.pos, format!("`{}`: {why}", child(key))))?;
                check(&entry.value, inner, &child(key), at)?;
            }
            Ok(())
        }
        Shape::List(what) => {
            let wrong = |pos: Pos| at(pos, format!("{} must be a list of {what}", shown(path)));
            let items = node.as_sequence().ok_or_else(|| wrong(node.pos()))?;
            for item in &items.items {
                check(item, &Shape::Text, path, at).map_err(|_| wrong(item.pos()))?;
            }
            Ok(())
        }
        Shape::Text => match node {
            Node::Scalar(s) if !s.is_null() => Ok(()),
            _ => Err(at(node.pos(), format!("{} must be a string", shown(path)))),
        },
        Shape::OneOf(words) => match node.as_str() {
            Some(word) if words.contains(&word) => Ok(()),
            other => Err(at(
                node.pos(),
                format!(
                    "{}: expected {}, found {}",
                    shown(path),
                    words.join(", "),
                    other.map_or("a value that is not a string".into(), |w| format!("`{w}`"))
                ),
            )),
        },
    }
}

/// `unknown key `validate.severites` (did you mean `severities`?)`, or the keys there are.
fn unknown_key(full: &str, key: &str, known: &[&str]) -> String {
    let nearest = known
        .iter()
        .map(|k| (strsim::jaro(key, k), *k))
        .filter(|(score, _)| *score >= 0.7)
        .max_by(|a, b| a.0.total_cmp(&b.0));
    match nearest {
        Some((_, k)) => format!("unknown key `{full}` (did you mean `{k}`?)"),
        None => format!("unknown key `{full}` (offlux knows: {})", known.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_text(text: &str) -> Result<Option<Node>, String> {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(FILE), text).unwrap();
        read(dir.path()).map_err(|e| e.replace(&dir.path().display().to_string(), "ROOT"))
    }

    #[test]
    fn a_valid_file_is_read_whole() {
        let text = "sources:\n  flux-system: .\nvalidate:\n  severities:\n    OFX106: off\n  \
                    orphans:\n    ignore: [examples/**]\n    entry-points: [clusters/a]\n";
        let node = read_text(text).unwrap().unwrap();
        assert!(node.get_path(&["validate", "orphans", "ignore"]).is_some());
    }

    #[test]
    fn an_absent_file_or_an_empty_one_is_no_setting() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(read(dir.path()).unwrap(), None);
        assert!(read_text("").unwrap().is_none_or(|n| is_null(&n)));
        assert!(read_text("validate:\n").is_ok());
    }

    #[test]
    fn a_misspelt_key_names_its_line_and_the_key_meant() {
        assert_eq!(
            read_text("validate:\n  severites:\n    OFX106: off\n").unwrap_err(),
            "ROOT/.offlux.yaml:2: unknown key `validate.severites` (did you mean `severities`?)"
        );
        assert_eq!(
            read_text("sorces:\n  a: b\n").unwrap_err(),
            "ROOT/.offlux.yaml:1: unknown key `sorces` (did you mean `sources`?)"
        );
        assert_eq!(
            read_text("validate:\n  orphans:\n    entrypoints: [a]\n").unwrap_err(),
            "ROOT/.offlux.yaml:3: unknown key `validate.orphans.entrypoints` (did you mean `entry-points`?)"
        );
    }

    #[test]
    fn a_key_nothing_resembles_lists_the_keys_there_are() {
        assert_eq!(
            read_text("x: 1\n").unwrap_err(),
            "ROOT/.offlux.yaml:1: unknown key `x` (offlux knows: sources, validate)"
        );
    }

    #[test]
    fn a_value_of_the_wrong_shape_names_its_line() {
        assert_eq!(
            read_text("validate:\n  severities:\n    OFX106: of\n").unwrap_err(),
            "ROOT/.offlux.yaml:3: `validate.severities.OFX106`: expected error, warning, off, found `of`"
        );
        assert_eq!(
            read_text("validate:\n  orphans:\n    ignore: examples\n").unwrap_err(),
            "ROOT/.offlux.yaml:3: `validate.orphans.ignore` must be a list of paths"
        );
        assert_eq!(
            read_text("sources:\n  a: {dir: x}\n").unwrap_err(),
            "ROOT/.offlux.yaml:2: `sources.a` must be a string"
        );
        assert_eq!(
            read_text("- a\n").unwrap_err(),
            "ROOT/.offlux.yaml:1: the file must be a mapping"
        );
    }

    #[test]
    fn codes_are_checked_where_they_are_written() {
        assert_eq!(
            read_text("validate:\n  severities:\n    OFX999: off\n").unwrap_err(),
            "ROOT/.offlux.yaml:3: `validate.severities.OFX999`: unknown code `OFX999` (`offlux explain` lists them)"
        );
        assert!(read_text("validate:\n  severities:\n    OFX100: off\n")
            .unwrap_err()
            .contains("a producer that fails is always an error"));
    }

    #[test]
    fn one_document_only() {
        assert_eq!(
            read_text("sources: {}\n---\nvalidate: {}\n").unwrap_err(),
            "ROOT/.offlux.yaml:3: a second YAML document: offlux reads one"
        );
    }
}
