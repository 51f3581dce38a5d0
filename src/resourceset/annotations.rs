//! What the operator does to generated objects before applying them: owner labels,
//! `commonMetadata`, and the data-copy annotations (`copyFrom`, `convertKubeConfigFrom`,
//! `checksumFrom`), in that order. Objects from outside the set come through a lookup, so the
//! caller decides what "the cluster" is.

use std::collections::BTreeMap;

use base64::Engine as _;
use serde_json::{Map, Value as Json};
use sha2::{Digest, Sha256};

use super::build::{str_at, yaml_to_json};
use super::Error;

pub const OWNER_NAME: &str = "resourceset.fluxcd.controlplane.io/name";
pub const OWNER_NAMESPACE: &str = "resourceset.fluxcd.controlplane.io/namespace";
pub const COPY_FROM: &str = "fluxcd.controlplane.io/copyFrom";
pub(crate) const CONVERT_KUBECONFIG_FROM: &str = "fluxcd.controlplane.io/convertKubeConfigFrom";
pub(crate) const CHECKSUM_FROM: &str = "fluxcd.controlplane.io/checksumFrom";
pub const CHECKSUM: &str = "fluxcd.controlplane.io/checksum";

/// A ConfigMap or Secret outside the set, by kind, namespace and name.
pub type Lookup<'a> = dyn Fn(&str, &str, &str) -> Option<Map<String, Json>> + 'a;

type Object = Map<String, Json>;

fn metadata_map<'a>(object: &'a mut Object, field: &str) -> Option<&'a mut Map<String, Json>> {
    let metadata = object
        .entry("metadata")
        .or_insert_with(|| Json::Object(Map::new()))
        .as_object_mut()?;
    let map = metadata
        .entry(field)
        .or_insert_with(|| Json::Object(Map::new()));
    if !map.is_object() {
        *map = Json::Object(Map::new());
    }
    map.as_object_mut()
}

/// Sets top-level labels (or annotations), the given values winning.
pub(crate) fn set_metadata(object: &mut Object, field: &str, values: &BTreeMap<String, String>) {
    if values.is_empty() {
        return;
    }
    if let Some(map) = metadata_map(object, field) {
        for (key, value) in values {
            map.insert(key.clone(), Json::String(value.clone()));
        }
    }
}

/// The owner labels the operator puts on everything a ResourceSet generates.
pub(crate) fn owner_labels(name: &str, namespace: &str) -> BTreeMap<String, String> {
    BTreeMap::from([
        (OWNER_NAME.to_owned(), name.to_owned()),
        (OWNER_NAMESPACE.to_owned(), namespace.to_owned()),
    ])
}

/// The decoded data of a ConfigMap (`data` plus `binaryData`) or Secret (`data` with
/// `stringData` laid over it), as bytes.
pub fn decoded_data(object: &Object) -> BTreeMap<String, Vec<u8>> {
    let b64 = base64::engine::general_purpose::STANDARD;
    let mut out = BTreeMap::new();
    let strings = |field: &str| -> Vec<(String, String)> {
        object
            .get(field)
            .and_then(Json::as_object)
            .map(|m| {
                m.iter()
                    .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_owned()))
                    .collect()
            })
            .unwrap_or_default()
    };
    if str_at(object, &["kind"]) == "Secret" {
        for (k, v) in strings("data") {
            out.insert(
                k,
                b64.decode(v.as_bytes()).unwrap_or_else(|_| v.into_bytes()),
            );
        }
        for (k, v) in strings("stringData") {
            out.insert(k, v.into_bytes());
        }
    } else {
        for (k, v) in strings("data") {
            out.insert(k, v.into_bytes());
        }
        for (k, v) in strings("binaryData") {
            out.insert(
                k,
                b64.decode(v.as_bytes()).unwrap_or_else(|_| v.into_bytes()),
            );
        }
    }
    out
}

fn annotation<'a>(object: &'a Object, key: &str) -> Option<&'a str> {
    object
        .get("metadata")?
        .get("annotations")?
        .get(key)?
        .as_str()
}

fn split_ref(value: &str) -> Option<(&str, &str)> {
    let (namespace, name) = value.split_once('/')?;
    (!name.contains('/') && !namespace.is_empty() && !name.is_empty()).then_some((namespace, name))
}

/// `copyFrom`: a v1 ConfigMap takes the source's `data` (and `binaryData`); a v1 Secret takes
/// the source's decoded data as `stringData`, and its type when it has none.
///
/// A source the lookup lacks fails the set, unless `assumed` collects what the cluster is taken
/// to hold: then the object is left without the copied data, and a note says so.
pub(crate) fn copy_from(
    object: &mut Object,
    lookup: &Lookup<'_>,
    assumed: Option<&mut Vec<String>>,
) -> Result<(), Error> {
    let Some(value) = annotation(object, COPY_FROM).map(str::to_owned) else {
        return Ok(());
    };
    let kind = str_at(object, &["kind"]).to_owned();
    if str_at(object, &["apiVersion"]) != "v1" || !matches!(kind.as_str(), "ConfigMap" | "Secret") {
        return Ok(());
    }
    let label = super::build::object_label(object);
    let Some((namespace, name)) = split_ref(&value) else {
        return Err(Error::Copy(format!(
            "{label}: invalid {COPY_FROM} annotation '{value}': must be in the format 'namespace/name'"
        )));
    };
    let Some(source) = lookup(&kind, namespace, name) else {
        if let Some(notes) = assumed {
            notes.push(format!(
                "{label}: {kind}/{namespace}/{name} to copy from is in no repository file; \
                 assumed held by the cluster, its data unknown offline"
            ));
            return Ok(());
        }
        return Err(Error::Copy(format!(
            "{label}: failed to copy data from {kind}/{namespace}/{name}: not found"
        )));
    };
    if kind == "ConfigMap" {
        let data = source
            .get("data")
            .cloned()
            .unwrap_or(Json::Object(Map::new()));
        object.insert("data".into(), data);
        if let Some(binary) = source.get("binaryData") {
            object.insert("binaryData".into(), binary.clone());
        }
    } else {
        let decoded: Map<String, Json> = decoded_data(&source)
            .into_iter()
            .map(|(k, v)| (k, Json::String(String::from_utf8_lossy(&v).into_owned())))
            .collect();
        object.insert("stringData".into(), Json::Object(decoded));
        if !object.contains_key("type") {
            let source_type = str_at(&source, &["type"]);
            let source_type = if source_type.is_empty() {
                "Opaque"
            } else {
                source_type
            };
            object.insert("type".into(), Json::String(source_type.to_owned()));
        }
    }
    Ok(())
}

/// `convertKubeConfigFrom`: a v1 ConfigMap gets `address` and `ca.crt` from the first cluster
/// of a kubeconfig held in a Secret, where it does not set them itself.
pub(crate) fn convert_kubeconfig_from(
    object: &mut Object,
    lookup: &Lookup<'_>,
    assumed: Option<&mut Vec<String>>,
) -> Result<(), Error> {
    let Some(value) = annotation(object, CONVERT_KUBECONFIG_FROM).map(str::to_owned) else {
        return Ok(());
    };
    if str_at(object, &["apiVersion"]) != "v1" || str_at(object, &["kind"]) != "ConfigMap" {
        return Ok(());
    }
    let label = super::build::object_label(object);
    let bad = || {
        Error::Copy(format!(
            "{label}: invalid {CONVERT_KUBECONFIG_FROM} annotation '{value}': must be in the format 'namespace/name' or 'namespace/name:key'"
        ))
    };
    let slash = value.find('/').ok_or_else(bad)?;
    let (reference, key) = match value.rfind(':') {
        Some(colon) if colon > slash => (&value[..colon], Some(&value[colon + 1..])),
        _ => (value.as_str(), None),
    };
    let (namespace, name) = split_ref(reference).ok_or_else(bad)?;
    let Some(secret) = lookup("Secret", namespace, name) else {
        if let Some(notes) = assumed {
            notes.push(format!(
                "{label}: kubeconfig Secret/{namespace}/{name} is in no repository file; \
                 assumed held by the cluster, its address unknown offline"
            ));
            return Ok(());
        }
        return Err(Error::Copy(format!(
            "{label}: failed to get kubeconfig Secret/{namespace}/{name}: not found"
        )));
    };
    let data = decoded_data(&secret);
    let kubeconfig = match key {
        Some(key) => data.get(key).ok_or_else(|| {
            Error::Copy(format!(
                "{label}: kubeconfig Secret/{namespace}/{name} does not have '{key}' field"
            ))
        })?,
        None => data.get("kubeconfig").or_else(|| data.get("value")).ok_or_else(|| {
            Error::Copy(format!(
                "{label}: kubeconfig Secret/{namespace}/{name} does not have 'kubeconfig' or 'value' field"
            ))
        })?,
    };
    let text = String::from_utf8_lossy(kubeconfig);
    let parsed = crate::yaml::parse_stream(&text, &crate::yaml::ParseOptions::default())
        .map_err(|e| Error::Copy(format!("{label}: failed to parse kubeconfig: {e}")))?;
    let config = parsed
        .first()
        .map(|d| yaml_to_json(&d.root))
        .unwrap_or(Json::Null);
    let cluster = config
        .get("clusters")
        .and_then(Json::as_array)
        .and_then(|c| c.first())
        .and_then(|c| c.get("cluster"))
        .ok_or_else(|| Error::Copy(format!("{label}: kubeconfig has no clusters")))?;
    let server = cluster
        .get("server")
        .and_then(Json::as_str)
        .map(str::to_owned);
    let ca = cluster
        .get("certificate-authority-data")
        .and_then(Json::as_str)
        .and_then(|v| base64::engine::general_purpose::STANDARD.decode(v).ok())
        .map(|b| String::from_utf8_lossy(&b).into_owned());
    let data = object
        .entry("data")
        .or_insert_with(|| Json::Object(Map::new()));
    if !data.is_object() {
        *data = Json::Object(Map::new());
    }
    if let Some(data) = data.as_object_mut() {
        if let Some(server) = server {
            data.entry("address").or_insert(Json::String(server));
        }
        if let Some(ca) = ca {
            data.entry("ca.crt").or_insert(Json::String(ca));
        }
    }
    Ok(())
}

/// `checksumFrom` on every `metadata.annotations` map in every object: references resolved from
/// the set's own objects first, then through `lookup`. Returns the references resolved through
/// `lookup`, sorted.
pub(crate) fn checksum_from(
    objects: &mut [Object],
    lookup: &Lookup<'_>,
) -> Result<Vec<String>, Error> {
    let snapshot: Vec<Object> = objects.to_vec();
    let mut external = std::collections::BTreeSet::new();
    for object in objects.iter_mut() {
        let label = super::build::object_label(object);
        let mut value = Json::Object(std::mem::take(object));
        let result = walk_annotations(&mut value, &mut |annotations| {
            let Some(refs) = annotations.get(CHECKSUM_FROM).and_then(Json::as_str) else {
                return Ok(());
            };
            let digest = checksum(refs, &snapshot, lookup, &mut external).map_err(|kind| {
                Error::Checksum {
                    object: label.clone(),
                    kind,
                }
            })?;
            annotations.insert(CHECKSUM.into(), Json::String(digest));
            Ok(())
        });
        if let Json::Object(map) = value {
            *object = map;
        }
        result?;
    }
    Ok(external.into_iter().collect())
}

/// Called with each `metadata.annotations` map found in an object.
type AnnotationVisitor<'a> = dyn FnMut(&mut Map<String, Json>) -> Result<(), Error> + 'a;

fn walk_annotations(value: &mut Json, visit: &mut AnnotationVisitor<'_>) -> Result<(), Error> {
    match value {
        Json::Object(map) => {
            if let Some(Json::Object(metadata)) = map.get_mut("metadata") {
                if let Some(Json::Object(annotations)) = metadata.get_mut("annotations") {
                    visit(annotations)?;
                }
            }
            for (key, child) in map.iter_mut() {
                if key != "metadata" {
                    walk_annotations(child, visit)?;
                }
            }
        }
        Json::Array(items) => {
            for item in items {
                walk_annotations(item, visit)?;
            }
        }
        _ => {}
    }
    Ok(())
}

/// Why a `checksumFrom` reference could not be honoured, in the operator's words.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ChecksumError {
    #[error("invalid {annotation} reference '{0}': must be in the format 'Kind/namespace/name'", annotation = CHECKSUM_FROM)]
    Malformed(String),
    #[error("invalid {annotation} reference '{0}': only ConfigMap and Secret are allowed", annotation = CHECKSUM_FROM)]
    KindNotAllowed(String),
    #[error("failed to resolve {annotation} reference {0}: not found", annotation = CHECKSUM_FROM)]
    NotFound(String),
}

fn checksum(
    refs: &str,
    own: &[Object],
    lookup: &Lookup<'_>,
    external: &mut std::collections::BTreeSet<String>,
) -> Result<String, ChecksumError> {
    let mut hasher = Sha256::new();
    for reference in refs.split(',').map(str::trim).filter(|r| !r.is_empty()) {
        let parts: Vec<&str> = reference.split('/').collect();
        let [kind, namespace, name] = parts.as_slice() else {
            return Err(ChecksumError::Malformed(reference.to_string()));
        };
        if !matches!(*kind, "ConfigMap" | "Secret") {
            return Err(ChecksumError::KindNotAllowed(reference.to_string()));
        }
        let in_set = own.iter().find(|o| {
            str_at(o, &["apiVersion"]) == "v1"
                && str_at(o, &["kind"]) == *kind
                && str_at(o, &["metadata", "namespace"]) == *namespace
                && str_at(o, &["metadata", "name"]) == *name
        });
        let source = match in_set {
            Some(object) => object.clone(),
            None => {
                let found = lookup(kind, namespace, name)
                    .ok_or_else(|| ChecksumError::NotFound(format!("{kind}/{namespace}/{name}")))?;
                external.insert(format!("{kind}/{namespace}/{name}"));
                found
            }
        };
        hasher.update(format!("{kind}/{namespace}/{name}").as_bytes());
        hasher.update([0]);
        for (key, value) in decoded_data(&source) {
            hasher.update(key.as_bytes());
            hasher.update([0]);
            hasher.update(&value);
            hasher.update([0]);
        }
    }
    Ok(format!("sha256:{}", hex::encode(hasher.finalize())))
}
