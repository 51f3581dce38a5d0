//! `.offlux.yaml`, the repository's settings for offlux: read from the repository root and checked
//! whole before anything uses it. A key offlux does not know, or a value of the wrong shape, is an
//! input error (exit 2) at its file and line, naming the nearest key offlux knows: a misspelt
//! setting silently ignored would be a check silently not made.
//!
//! ```yaml
//! sources:                  # NAME or KIND/NAMESPACE/NAME: a directory (`orchestrator`)
//!   flux-system: .
//! validate:
//!   severities:             # per code: error, warning or off (`cli::validate`)
//!     OFX106: off
//!   orphans:                # `cli::orphans`
//!     ignore: [examples/**]
//!     entry-points: [clusters/staging]
//! ```
//!
//! The file's model (its keys and shapes, the check, its JSON Schema) is here; `cli::config`
//! applies a checked file to the command's flags and shows where each setting came from.

use std::path::Path;

use crate::validate::Code;
use crate::yaml::{Node, Pos};

/// The file's name, at the repository root.
pub const FILE: &str = ".offlux.yaml";

/// Why a path the file gives is refused: the file belongs to the repository, so it may only
/// name what lies inside it (a hostile repository's `.offlux.yaml` must not make offlux read the
/// machine's other files; the command line may name anything).
#[derive(Debug, thiserror::Error)]
pub enum PathRefused {
    #[error("must be a path inside the repository, relative to its root")]
    NotRelative,
    #[error("leads out of the repository (to `{}`)", .0.display())]
    LeadsOut(std::path::PathBuf),
}

/// `value` joined to `root` (canonical), when it stays inside the repository: relative, with no
/// `..`, and no link on the way leading out.
pub fn path_inside(root: &Path, value: &str) -> Result<std::path::PathBuf, PathRefused> {
    let relative = Path::new(value);
    let escapes = relative.components().any(|c| {
        !matches!(
            c,
            std::path::Component::Normal(_) | std::path::Component::CurDir
        )
    });
    if escapes || value.is_empty() {
        return Err(PathRefused::NotRelative);
    }
    let joined = root.join(relative);
    match crate::fsio::canonicalize(&joined) {
        Ok(real) if !real.starts_with(root) => Err(PathRefused::LeadsOut(real)),
        _ => Ok(joined),
    }
}

/// What a key may hold.
enum Shape {
    /// A mapping with these keys only.
    Fixed(&'static [Key]),
    /// A mapping whose keys the check accepts (`Err` says why one is refused), each value of one
    /// shape; `pattern` is the keys' JSON Schema pattern, where there is one.
    Keyed {
        accepts: fn(&str) -> Result<(), String>,
        pattern: Option<&'static str>,
        value: &'static Shape,
    },
    /// A list of strings, each one of what it names ("paths").
    List(&'static str),
    /// A string.
    Text,
    /// `true` or `false`.
    Flag,
    /// One of these strings.
    OneOf(&'static [&'static str]),
}

/// A key of a [`Shape::Fixed`] mapping, and what it is for (the JSON Schema's description).
struct Key {
    name: &'static str,
    shape: Shape,
    about: &'static str,
}

const fn key(name: &'static str, shape: Shape, about: &'static str) -> Key {
    Key { name, shape, about }
}

/// Every key the file may hold. The run settings (those of [`RUN_SETTINGS`]) are the flags of the
/// same name; what reaches the network or the process environment (`--allow-private-network`,
/// `--env-from-process`) is never taken from a repository, which may be a stranger's.
const ROOT: Shape = Shape::Fixed(&[
    key(
        "path",
        Shape::Text,
        "The directory to start from, relative to the repository root (`--path`).",
    ),
    key(
        "chart-cache",
        Shape::Text,
        "A directory of charts inside the repository, used before any repository (`--chart-cache`).",
    ),
    key(
        "offline",
        Shape::Flag,
        "Never fetch charts over the network (`--offline`).",
    ),
    key(
        "allow-missing-sources",
        Shape::Flag,
        "Report consumers of sources that cannot be had offline as SKIPPED (`--allow-missing-sources`).",
    ),
    key(
        "strict-substitutions",
        Shape::Flag,
        "An unset `${VAR}` without a default fails the Kustomization (`--strict-substitutions`).",
    ),
    key(
        "kube-version",
        Shape::Text,
        "The Kubernetes version charts are rendered for and objects validated against (`--kube-version`).",
    ),
    key(
        "secret-producers",
        Shape::List("kinds"),
        "Kinds whose objects create a Secret of their own name (`--secret-producer`).",
    ),
    key(
        "sources",
        Shape::Keyed {
            accepts: any_key,
            pattern: None,
            value: &Shape::Text,
        },
        "Sources read from a directory of the repository: `NAME` or `KIND/NAMESPACE/NAME` to a directory (`--sources`).",
    ),
    key(
        "diff",
        Shape::Fixed(&[
            key(
                "strip-attributes",
                Shape::List("keys"),
                "Label and annotation keys (globs: `checksum/*`) left out of `offlux diff`'s comparison besides the default set (`--strip-attr`).",
            ),
            key(
                "default-strip",
                Shape::Flag,
                "`false` compares the labels and annotations a chart bump changes everywhere (`helm.sh/chart`, `chart`, `app.kubernetes.io/version`, `checksum/*`), left out by default (`--no-default-strip`).",
            ),
        ]),
        "`offlux diff`'s comparison.",
    ),
    key(
        "validate",
        Shape::Fixed(&[
            key(
                "severities",
                Shape::Keyed {
                    accepts: configurable_code,
                    pattern: Some("^OFX1[0-9][0-9]$"),
                    value: &Shape::OneOf(&["error", "warning", "off"]),
                },
                "A finding code's severity: error, warning or off (`offlux explain CODE`).",
            ),
            key(
                "orphans",
                Shape::Fixed(&[
                    key(
                        "ignore",
                        Shape::List("paths"),
                        "Globs of files the orphan checks leave alone.",
                    ),
                    key(
                        "entry-points",
                        Shape::List("paths"),
                        "Every cluster's entry point, so that what another cluster applies is no orphan.",
                    ),
                ]),
                "The orphan checks (OFX111-OFX114).",
            ),
        ]),
        "`offlux validate`'s findings.",
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
pub fn read(root: &Path) -> Result<Option<Node>, String> {
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

/// A YAML 1.2 boolean (`true`, `false`, unquoted).
pub(crate) fn flag(node: &Node) -> Option<bool> {
    match crate::yaml::resolve_kyaml(node.as_scalar()?) {
        crate::yaml::Resolved::Bool(value) => Some(value),
        _ => None,
    }
}

/// The strings of a list the check accepted (`Shape::List`).
pub(crate) fn strings(node: &Node) -> Vec<String> {
    node.as_sequence()
        .map(|s| {
            s.items
                .iter()
                .filter_map(|i| i.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

pub(crate) fn is_null(node: &Node) -> bool {
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
                let Some(known) = keys.iter().find(|known| known.name == key) else {
                    let names: Vec<&str> = keys.iter().map(|k| k.name).collect();
                    return Err(at(entry.key.pos, unknown_key(&child(key), key, &names)));
                };
                if !is_null(&entry.value) {
                    check(&entry.value, &known.shape, &child(key), at)?;
                }
            }
            Ok(())
        }
        Shape::Keyed {
            accepts,
            value: inner,
            ..
        } => {
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
        Shape::Flag => match flag(node) {
            Some(_) => Ok(()),
            None => Err(at(
                node.pos(),
                format!("{} must be true or false", shown(path)),
            )),
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

/// The JSON Schema of the file, from the same table the check uses (editors complete and check
/// the file with it through the YAML language server).
pub fn schema() -> serde_json::Value {
    let mut root = shape_schema(&ROOT);
    if let serde_json::Value::Object(fields) = &mut root {
        fields.insert(
            "$schema".into(),
            "https://json-schema.org/draft/2020-12/schema".into(),
        );
        fields.insert("title".into(), "offlux's .offlux.yaml".into());
    }
    root
}

fn shape_schema(shape: &Shape) -> serde_json::Value {
    use serde_json::json;
    match shape {
        Shape::Fixed(keys) => {
            let properties: serde_json::Map<String, serde_json::Value> = keys
                .iter()
                .map(|k| {
                    let mut inner = shape_schema(&k.shape);
                    if let serde_json::Value::Object(fields) = &mut inner {
                        fields.insert("description".into(), k.about.into());
                    }
                    (k.name.to_string(), inner)
                })
                .collect();
            json!({"type": ["object", "null"], "properties": properties, "additionalProperties": false})
        }
        Shape::Keyed { pattern, value, .. } => {
            let mut out =
                json!({"type": ["object", "null"], "additionalProperties": shape_schema(value)});
            if let (Some(pattern), serde_json::Value::Object(fields)) = (pattern, &mut out) {
                fields.insert("propertyNames".into(), json!({"pattern": pattern}));
            }
            out
        }
        Shape::List(_) => json!({"type": ["array", "null"], "items": {"type": "string"}}),
        Shape::Text => json!({"type": "string"}),
        Shape::Flag => json!({"type": ["boolean", "null"]}),
        Shape::OneOf(words) => json!({"enum": words}),
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
