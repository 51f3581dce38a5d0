//! Field-level lines: a finding that names a field (`$.spec.replicas`) of an object written in a
//! file points at the line the field was written on, not the object's first line.
//!
//! The object as rendered may differ from what the file holds (patches, substitution, a chart):
//! only a field found at the same path in the same document (same kind and name) is trusted. A
//! field a transform added is not in the file, and the finding keeps the object's line.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::Finding;
use crate::yaml::{parse_stream, Document, Node, ParseOptions};

/// Moves each finding's line to its field's line where the file shows it, then sorts again.
/// `read` gives a file's text by its path relative to the repository root (or nothing).
pub fn refine_lines(findings: &mut [Finding], read: impl Fn(&Path) -> Option<String>) {
    let mut files: HashMap<PathBuf, Option<Vec<Document>>> = HashMap::new();
    for finding in findings.iter_mut() {
        let Some(path) = finding.path.as_deref() else {
            continue;
        };
        if finding.line == 0 {
            continue;
        }
        let documents = files.entry(finding.file.clone()).or_insert_with(|| {
            let text = read(&finding.file)?;
            parse_stream(&text, &ParseOptions::default()).ok()
        });
        let Some(document) = documents.iter().flatten().find(|d| {
            (d.pos.line == finding.line || d.root.pos().line == finding.line)
                && is_object(&d.root, &finding.object)
        }) else {
            continue;
        };
        if let Some(line) = line_of(&document.root, path) {
            finding.line = line;
        }
    }
    super::sort_findings(findings);
}

/// Whether `root` is the object labelled `Kind/namespace/name` (kind and name; the namespace may
/// come from a transform).
fn is_object(root: &Node, label: &str) -> bool {
    let mut parts = label.splitn(3, '/');
    let (Some(kind), Some(_), Some(name)) = (parts.next(), parts.next(), parts.next()) else {
        return false;
    };
    root.get("kind").and_then(Node::as_str) == Some(kind)
        && root.get_path(&["metadata", "name"]).and_then(Node::as_str) == Some(name)
}

/// The line of the field at `path` (`$.a.b[0]["c.d"]`) in `root`: the line of its key, or of the
/// item for an index. `None` when the document has no such field.
fn line_of(root: &Node, path: &str) -> Option<u32> {
    let mut node = root;
    let mut line = None;
    for segment in segments(path.strip_prefix('$')?)? {
        match segment {
            Segment::Field(name) => {
                let entry = node.as_mapping()?.entry(&name)?;
                line = Some(entry.key.pos.line);
                node = &entry.value;
            }
            Segment::Index(index) => {
                node = node.as_sequence()?.items.get(index)?;
                line = Some(node.pos().line);
            }
        }
    }
    line.filter(|line| *line > 0)
}

enum Segment {
    Field(String),
    Index(usize),
}

/// The segments of a JSON path as `schema::json_path` and the other checks write it.
fn segments(mut rest: &str) -> Option<Vec<Segment>> {
    let mut out = Vec::new();
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix('.') {
            let end = after.find(['.', '[']).unwrap_or(after.len());
            out.push(Segment::Field(after[..end].to_string()));
            rest = &after[end..];
        } else if let Some(after) = rest.strip_prefix("[\"") {
            // A quoted name, escaped as a Rust/JSON string.
            let mut end = None;
            let mut escaped = false;
            for (i, c) in after.char_indices() {
                match c {
                    '\\' if !escaped => escaped = true,
                    '"' if !escaped => {
                        end = Some(i);
                        break;
                    }
                    _ => escaped = false,
                }
            }
            let end = end?;
            let name: String = serde_json::from_str(&format!("\"{}\"", &after[..end])).ok()?;
            out.push(Segment::Field(name));
            rest = after[end + 1..].strip_prefix(']')?;
        } else if let Some(after) = rest.strip_prefix('[') {
            let end = after.find(']')?;
            out.push(Segment::Index(after[..end].parse().ok()?));
            rest = &after[end + 1..];
        } else {
            return None;
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::validate::{Code, Severity};

    const FILE: &str = "apiVersion: v1
kind: ConfigMap
metadata:
  name: other
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  annotations:
    example.com/key: v
spec:
  replicas: two
  template:
    spec:
      containers:
        - name: web
          imagePullPolicey: Always
";

    fn finding(object: &str, line: u32, path: &str) -> Finding {
        Finding {
            code: Code::SchemaViolation,
            severity: Severity::Error,
            object: object.into(),
            producer: "Kustomization/flux-system/apps".into(),
            file: PathBuf::from("apps/web.yaml"),
            line,
            path: Some(path.into()),
            message: String::new(),
        }
    }

    fn refined(findings: Vec<Finding>) -> Vec<u32> {
        let mut findings = findings;
        refine_lines(&mut findings, |file| {
            (file == Path::new("apps/web.yaml")).then(|| FILE.to_string())
        });
        findings.iter().map(|f| f.line).collect()
    }

    #[test]
    fn fields_written_in_the_file_get_their_own_line() {
        assert_eq!(
            refined(vec![
                finding("Deployment/apps/web", 6, "$.spec.replicas"),
                finding(
                    "Deployment/apps/web",
                    6,
                    "$.spec.template.spec.containers[0].imagePullPolicey"
                ),
                finding(
                    "Deployment/apps/web",
                    6,
                    "$.metadata.annotations[\"example.com/key\"]"
                ),
            ]),
            [11, 13, 18]
        );
    }

    #[test]
    fn fields_a_transform_added_or_another_object_keep_the_objects_line() {
        assert_eq!(
            refined(vec![
                // Not in the file: a patch added it.
                finding("Deployment/apps/web", 6, "$.spec.selector"),
                // The document at that line is another object (chart output points at its release).
                finding("Service/apps/web", 6, "$.spec.replicas"),
                // No document starts there.
                finding("Deployment/apps/web", 7, "$.spec.replicas"),
            ]),
            [6, 6, 7]
        );
    }
}
