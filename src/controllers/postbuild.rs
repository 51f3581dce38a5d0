//! Post-build variables of a Flux Kustomization: `substituteFrom` ConfigMaps and Secrets in list
//! order (later wins), then the inline `substitute` map, every value with its newlines removed, as
//! kustomize-controller loads them. Values only the live cluster holds can be supplied by the user;
//! they rank below everything the repository says.

use std::collections::{BTreeMap, BTreeSet};

use base64::Engine as _;

use crate::model::{Object, PostBuild, ResourceId};
use crate::yaml::Node;

/// What a SOPS-encrypted value is replaced by: offlux never decrypts, and never prints ciphertext.
pub(crate) const SOPS_PLACEHOLDER: &str = "offlux-sops-encrypted-value";

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Variables {
    Ready(Collected),
    /// These ConfigMaps or Secrets have not appeared yet (a producer may still emit them).
    Wait(Vec<ResourceId>),
    /// A non-optional ConfigMap or Secret nothing in the run or the repository accounts for:
    /// kustomize-controller's `LoadVariables` fails on it (`substitute from 'Kind/name' error`),
    /// unless the cluster holds it, which offline cannot tell.
    NotFound(String),
}

/// The variables of a Kustomization, and which of them hold a value from a Secret (for
/// `--redact-secret-values`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Collected {
    pub values: BTreeMap<String, String>,
    pub from_secrets: BTreeSet<String>,
}

/// How `collect` finds what a Kustomization substitutes from.
pub struct Lookups<F, D> {
    /// A ConfigMap or Secret by id, as the run has it.
    pub find: F,
    /// The rendered object that makes a Secret in the cluster (an ExternalSecret, a
    /// ClusterExternalSecret, ...; see `cluster_held`), for a Secret the run does not have.
    pub declared: D,
}

/// Collects the variables for a Kustomization in `namespace`. `absent_is_final` says that nothing
/// more can appear, so a missing non-optional object is an error rather than something to wait
/// for, unless a rendered operator object makes it in the cluster: then its variables are unknown
/// and `notes` says so (kustomize-controller reads it from the cluster, where the operator made it).
pub fn collect<'a, F, D>(
    namespace: &str,
    post_build: &PostBuild,
    user_values: &BTreeMap<String, String>,
    lookups: Lookups<F, D>,
    absent_is_final: bool,
    notes: &mut Vec<String>,
) -> Variables
where
    F: Fn(&ResourceId) -> Option<&'a Object>,
    D: Fn(&ResourceId) -> Option<String>,
{
    let lookup = lookups.find;
    let mut variables = user_values.clone();
    let mut from_secrets = BTreeSet::new();
    let mut waiting = Vec::new();
    for reference in &post_build.substitute_from {
        if !matches!(reference.kind.as_str(), "ConfigMap" | "Secret") {
            continue;
        }
        let id = ResourceId::new("v1", &reference.kind, namespace, &reference.name);
        match lookup(&id) {
            Some(object) => {
                let data = data_of(object);
                for name in data.keys() {
                    if object.id.kind == "Secret" {
                        from_secrets.insert(name.clone());
                    } else {
                        from_secrets.remove(name);
                    }
                }
                variables.extend(data);
            }
            // An optional object may still be published by another Kustomization: wait for it
            // until nothing more can arrive, so the result never depends on build order.
            None if reference.optional && absent_is_final => {}
            // Values the user gave (`--substitute`) stand for what the cluster's object holds.
            None if absent_is_final && !user_values.is_empty() => {}
            None if absent_is_final && (lookups.declared)(&id).is_some() => {
                let producer = (lookups.declared)(&id).unwrap_or_default();
                notes.push(format!(
                    "substitute from '{}/{}': {producer} makes it in the cluster; its variables \
                     are unknown offline",
                    reference.kind, reference.name
                ));
            }
            None if absent_is_final => {
                return Variables::NotFound(format!(
                    "substitute from '{kind}/{name}' error: {} \"{name}\" not found; no \
                     Kustomization produces {kind} {namespace}/{name} and no single repository file \
                     defines it (hint: supply it with `--substitute-from FILE`, whose objects \
                     without a namespace match any namespace, or its variables with \
                     `--substitute NAME=VALUE`)",
                    reference.kind.to_lowercase(),
                    kind = reference.kind,
                    name = reference.name,
                ))
            }
            None => waiting.push(id),
        }
    }
    if !waiting.is_empty() {
        return Variables::Wait(waiting);
    }
    for name in post_build.substitute.keys() {
        from_secrets.remove(name);
    }
    variables.extend(post_build.substitute.clone());
    for value in variables.values_mut() {
        value.retain(|c| c != '\n');
    }
    Variables::Ready(Collected {
        values: variables,
        from_secrets,
    })
}

/// The key/value data of a ConfigMap (`data`) or Secret (`data` decoded, plus `stringData`, which
/// the API server folds into `data`). SOPS-encrypted values become the placeholder.
pub(crate) fn data_of(object: &Object) -> BTreeMap<String, String> {
    let encrypted = object.is_sops_encrypted();
    let mut data = BTreeMap::new();
    let entries = |key: &str| {
        object
            .node
            .get(key)
            .and_then(Node::as_mapping)
            .map(|m| {
                m.iter()
                    .filter_map(|(k, v)| Some((k.to_owned(), v.as_scalar()?.value.to_string())))
                    .collect::<Vec<_>>()
            })
            .unwrap_or_default()
    };
    let is_secret = object.id.kind == "Secret";
    for (key, value) in entries("data") {
        let value = if encrypted || is_sops_value(&value) {
            SOPS_PLACEHOLDER.to_owned()
        } else if is_secret {
            let compact: String = value.split_whitespace().collect();
            match base64::engine::general_purpose::STANDARD.decode(compact) {
                Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
                Err(_) => value,
            }
        } else {
            value
        };
        data.insert(key, value);
    }
    if is_secret {
        for (key, value) in entries("stringData") {
            let value = if encrypted || is_sops_value(&value) {
                SOPS_PLACEHOLDER.to_owned()
            } else {
                value
            };
            data.insert(key, value);
        }
    }
    data
}

/// Replaces SOPS ciphertext in a built object by the placeholder, as Flux would have decrypted it
/// before applying: offlux never decrypts and never prints ciphertext. The `sops` metadata goes;
/// a Secret's `data` values get the placeholder base64-encoded, as `data` must be.
pub(crate) fn mask_sops(node: &mut Node) {
    let Some(root) = node.as_mapping_mut() else {
        return;
    };
    let encrypted = root.remove("sops").is_some();
    let is_secret = root.get("kind").and_then(Node::as_str) == Some("Secret");
    for entry in &mut root.entries {
        let base64 = is_secret && entry.key.value == "data";
        mask_values(&mut entry.value, encrypted, base64);
    }
}

fn mask_values(node: &mut Node, whole_document_encrypted: bool, base64: bool) {
    match node {
        Node::Scalar(scalar)
            if is_sops_value(&scalar.value) || (whole_document_encrypted && base64) =>
        {
            scalar.value = if base64 {
                base64::engine::general_purpose::STANDARD
                    .encode(SOPS_PLACEHOLDER)
                    .into()
            } else {
                SOPS_PLACEHOLDER.into()
            };
        }
        Node::Scalar(_) => {}
        Node::Sequence(sequence) => {
            for item in &mut sequence.items {
                mask_values(item, whole_document_encrypted, base64);
            }
        }
        Node::Mapping(mapping) => {
            for entry in &mut mapping.entries {
                mask_values(&mut entry.value, whole_document_encrypted, base64);
            }
        }
    }
}

/// A value SOPS encrypted in place: `ENC[AES256_GCM,data:…]`.
fn is_sops_value(value: &str) -> bool {
    value.starts_with("ENC[") && value.ends_with(']')
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::DataRef;
    use crate::yaml::Pos;

    fn object(text: &str) -> Object {
        crate::model::parse_objects(text, std::path::Path::new("x.yaml"))
            .ok()
            .and_then(|objects| objects.into_iter().next())
            .unwrap_or_else(|| panic!("not an object: {text}"))
    }

    fn reference(kind: &str, name: &str, optional: bool) -> DataRef {
        DataRef {
            kind: kind.into(),
            name: name.into(),
            optional,
            values_key: None,
            target_path: None,
            pos: Pos::default(),
        }
    }

    #[test]
    fn later_sources_win_and_inline_wins_over_all() {
        let cm = object("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: vars, namespace: apps}\ndata:\n  A: from-cm\n  B: \"multi\\nline\"\n");
        let secret = object("apiVersion: v1\nkind: Secret\nmetadata: {name: creds, namespace: apps}\ndata:\n  A: ZnJvbS1zZWNyZXQ=\nstringData:\n  C: plain\n");
        let post_build = PostBuild {
            substitute: BTreeMap::from([("C".to_owned(), "inline".to_owned())]),
            substitute_from: vec![
                reference("ConfigMap", "vars", false),
                reference("Secret", "creds", false),
                reference("ConfigMap", "gone", true),
            ],
        };
        let user = BTreeMap::from([
            ("A".to_owned(), "user".to_owned()),
            ("U".to_owned(), "user-only".to_owned()),
        ]);
        let lookup = |id: &ResourceId| match id.name.as_str() {
            "vars" => Some(&cm),
            "creds" => Some(&secret),
            _ => None,
        };
        assert_eq!(
            plain(&post_build, &user, lookup, false),
            Variables::Wait(vec![ResourceId::new("v1", "ConfigMap", "apps", "gone")]),
            "an optional object may still arrive"
        );
        let Variables::Ready(collected) = plain(&post_build, &user, lookup, true) else {
            panic!("variables are ready");
        };
        // A from the Secret (over the ConfigMap's), C from the inline map (over the Secret's).
        assert_eq!(collected.from_secrets, BTreeSet::from(["A".to_owned()]));
        let vars = collected.values;
        assert_eq!(vars["A"], "from-secret");
        assert_eq!(vars["B"], "multiline");
        assert_eq!(vars["C"], "inline");
        assert_eq!(vars["U"], "user-only");
    }

    /// `collect` with nothing made by an operator.
    fn plain<'a>(
        post_build: &PostBuild,
        user: &BTreeMap<String, String>,
        find: impl Fn(&ResourceId) -> Option<&'a Object>,
        absent_is_final: bool,
    ) -> Variables {
        let lookups = Lookups {
            find,
            declared: |_: &ResourceId| None,
        };
        collect(
            "apps",
            post_build,
            user,
            lookups,
            absent_is_final,
            &mut Vec::new(),
        )
    }

    #[test]
    fn a_secret_an_operator_makes_in_the_cluster_is_assumed_with_a_note() {
        let post_build = PostBuild {
            substitute: BTreeMap::from([("X".to_owned(), "inline".to_owned())]),
            substitute_from: vec![
                reference("Secret", "cluster-secrets", false),
                reference("ConfigMap", "cluster-secrets", false),
            ],
        };
        let none = |_: &ResourceId| None;
        let declared = |id: &ResourceId| {
            (id.kind == "Secret").then(|| "ClusterExternalSecret//cluster-secrets".to_owned())
        };
        let mut notes = Vec::new();
        let lookups = Lookups {
            find: none,
            declared,
        };
        // The ConfigMap of the same name is made by nothing: it still fails.
        let Variables::NotFound(message) = collect(
            "apps",
            &post_build,
            &BTreeMap::new(),
            lookups,
            true,
            &mut notes,
        ) else {
            panic!("a ConfigMap nothing makes fails");
        };
        assert!(message.contains("'ConfigMap/cluster-secrets'"), "{message}");
        let post_build = PostBuild {
            substitute_from: vec![reference("Secret", "cluster-secrets", false)],
            ..post_build
        };
        let mut notes = Vec::new();
        let lookups = Lookups {
            find: none,
            declared,
        };
        let Variables::Ready(vars) = collect(
            "apps",
            &post_build,
            &BTreeMap::new(),
            lookups,
            true,
            &mut notes,
        ) else {
            panic!("a Secret an operator makes is assumed");
        };
        assert_eq!(vars.values["X"], "inline");
        assert_eq!(
            notes,
            [
                "substitute from 'Secret/cluster-secrets': ClusterExternalSecret//cluster-secrets \
              makes it in the cluster; its variables are unknown offline"
            ]
        );
    }

    #[test]
    fn missing_sources_wait_then_fail() {
        let post_build = PostBuild {
            substitute: BTreeMap::new(),
            substitute_from: vec![reference("ConfigMap", "later", false)],
        };
        let none = |_: &ResourceId| None;
        assert_eq!(
            plain(&post_build, &BTreeMap::new(), none, false),
            Variables::Wait(vec![ResourceId::new("v1", "ConfigMap", "apps", "later")])
        );
        let Variables::NotFound(message) = plain(&post_build, &BTreeMap::new(), none, true) else {
            panic!("a missing ConfigMap fails once nothing more can arrive");
        };
        assert!(
            message.starts_with(
                "substitute from 'ConfigMap/later' error: configmap \"later\" not found;"
            ),
            "{message}"
        );
        assert!(message.contains("--substitute-from FILE"), "{message}");
    }

    #[test]
    fn built_objects_lose_their_ciphertext() {
        let mut secret = object("apiVersion: v1\nkind: Secret\nmetadata: {name: s}\ndata:\n  token: ENC[AES256_GCM,data:abc,type:str]\nstringData:\n  plain: ENC[AES256_GCM,data:def,type:str]\nsops:\n  mac: ENC[AES256_GCM,data:x]\n").node.as_ref().clone();
        mask_sops(&mut secret);
        let printed = crate::yaml::emit(&secret);
        assert!(!printed.contains("ENC["), "{printed}");
        assert!(!printed.contains("sops:"), "{printed}");
        assert!(
            printed.contains(&base64::engine::general_purpose::STANDARD.encode(SOPS_PLACEHOLDER)),
            "{printed}"
        );
        assert!(
            printed.contains(&format!("plain: {SOPS_PLACEHOLDER}")),
            "{printed}"
        );
    }

    #[test]
    fn sops_values_become_placeholders() {
        let secret = object("apiVersion: v1\nkind: Secret\nmetadata: {name: s}\nstringData:\n  TOKEN: ENC[AES256_GCM,data:abc,type:str]\nsops:\n  mac: ENC[AES256_GCM,data:x]\n");
        assert_eq!(data_of(&secret)["TOKEN"], SOPS_PLACEHOLDER);
    }
}
