//! The built-in kinds' schemas for one Kubernetes minor version, from the table embedded at build
//! time (`scripts/gen-kube-schemas`: the strict schemas of the `kubernetes-validate` wheel).

use std::collections::BTreeMap;
use std::io::Read;
use std::sync::OnceLock;

use serde_json::{Map, Value};

use super::GroupVersionKind;

const EMBEDDED: &[u8] = include_bytes!("../kubernetes-schemas.json.gz");

/// Every definition variant of the embedded table, parsed once per process.
struct Table {
    minors: Vec<u64>,
    /// (name, the minors it belongs to, schema)
    definitions: Vec<(String, Vec<u64>, Value)>,
}

#[allow(
    clippy::expect_used,
    reason = "the table is built into the binary, not read from input; a test reads it whole"
)]
fn table() -> &'static Table {
    static TABLE: OnceLock<Table> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut text = Vec::new();
        flate2::read::GzDecoder::new(EMBEDDED)
            .read_to_end(&mut text)
            .expect("the embedded schema table is valid gzip (built by scripts/gen-kube-schemas)");
        let mut value: Value = serde_json::from_slice(&text)
            .expect("the embedded schema table is valid JSON (built by scripts/gen-kube-schemas)");
        let minors = value["minors"]
            .as_array()
            .map(|m| m.iter().filter_map(Value::as_u64).collect())
            .unwrap_or_default();
        let definitions = match value["definitions"].take() {
            Value::Array(rows) => rows
                .into_iter()
                .filter_map(|row| match row {
                    Value::Array(mut row) if row.len() == 3 => {
                        let schema = row.pop()?;
                        let minors = row.pop()?;
                        let name = row.pop()?;
                        let minors = minors.as_array()?.iter().filter_map(Value::as_u64);
                        Some((name.as_str()?.to_string(), minors.collect(), schema))
                    }
                    _ => None,
                })
                .collect(),
            _ => Vec::new(),
        };
        Table {
            minors,
            definitions,
        }
    })
}

/// The minors the table holds, oldest first.
pub fn supported_minors() -> &'static [u64] {
    &table().minors
}

/// The built-in definitions of one minor version, and which definition each kind is.
pub(crate) struct KubernetesSchemas {
    pub minor: u64,
    definitions: BTreeMap<&'static str, &'static Value>,
    kinds: BTreeMap<GroupVersionKind, &'static str>,
}

impl KubernetesSchemas {
    /// The schemas of `minor`, or of the nearest version the table holds.
    pub(crate) fn for_minor(minor: u64) -> Self {
        let table = table();
        let first = table.minors.first().copied().unwrap_or(0);
        let last = table.minors.last().copied().unwrap_or(0);
        let minor = minor.clamp(first, last);
        let mut definitions = BTreeMap::new();
        let mut kinds = BTreeMap::new();
        for (name, minors, schema) in &table.definitions {
            if !minors.contains(&minor) {
                continue;
            }
            definitions.insert(name.as_str(), schema);
            let Some(gvks) = schema
                .get("x-kubernetes-group-version-kind")
                .and_then(Value::as_array)
            else {
                continue;
            };
            // Options and events types name every kind they may travel with: they are no kind's
            // own schema.
            if gvks.len() != 1 {
                continue;
            }
            let gvk = &gvks[0];
            let text = |key: &str| gvk.get(key).and_then(Value::as_str).unwrap_or_default();
            kinds
                .entry(GroupVersionKind::new(
                    text("group"),
                    text("version"),
                    text("kind"),
                ))
                .or_insert(name.as_str());
        }
        KubernetesSchemas {
            minor,
            definitions,
            kinds,
        }
    }

    /// Whether the group is one of Kubernetes' own (served by the API server itself).
    pub(crate) fn serves_group(&self, group: &str) -> bool {
        self.kinds.keys().any(|gvk| gvk.group == group)
    }

    /// A self-contained schema for `gvk`: its definition and every definition it refers to.
    pub(crate) fn schema_of(&self, gvk: &GroupVersionKind) -> Option<Value> {
        let root = *self.kinds.get(gvk)?;
        let mut needed = BTreeMap::new();
        let mut pending = vec![root];
        while let Some(name) = pending.pop() {
            let Some(schema) = self.definitions.get(name) else {
                continue;
            };
            if needed.insert(name, *schema).is_none() {
                collect_refs(schema, &mut pending);
            }
        }
        let defs: Map<String, Value> = needed
            .into_iter()
            .map(|(name, schema)| (name.to_string(), schema.clone()))
            .collect();
        Some(serde_json::json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "$defs": defs,
            "$ref": format!("#/$defs/{root}"),
        }))
    }
}

/// The definition names `#/$defs/<name>` references in `schema` point at.
fn collect_refs<'a>(schema: &'a Value, out: &mut Vec<&'a str>) {
    match schema {
        Value::Object(map) => {
            for (key, value) in map {
                match (key.as_str(), value) {
                    ("$ref", Value::String(target)) => {
                        if let Some(name) = target.strip_prefix("#/$defs/") {
                            out.push(name);
                        }
                    }
                    _ => collect_refs(value, out),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|item| collect_refs(item, out)),
        _ => {}
    }
}
