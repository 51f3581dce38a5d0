//! Secrets only the cluster holds, made there by a known operator from an object the run renders:
//! an `ExternalSecret`, a `ClusterExternalSecret` (in every namespace it selects), a
//! `SealedSecret`, 1Password's `OnePasswordItem` and the other operators of
//! `validate::secrets_made_by`, or an object of a kind the user names (`--secret-producer`).
//!
//! The rule: a `substituteFrom` or `valuesFrom` Secret that no Kustomization produces and no
//! repository file defines is taken as present, with unknown keys and a note naming its producer,
//! only when such an object is rendered in the run, in the Secret's namespace, with the Secret's
//! name; likewise the `kube-root-ca.crt` ConfigMap Kubernetes puts in every namespace. Anything
//! else stays a failure: a Secret nothing in Git accounts for may be a typo, and
//! assuming it would be a false PASS. Not for: ConfigMaps, which these operators do not make.

use std::collections::BTreeMap;

use crate::model::{Object, ResourceId};
use crate::yaml::Node;

/// The rendered object that makes the Secret `secret` in the cluster, as `Kind/namespace/name`
/// (the smallest, when several do). `user_kinds` make a Secret of their own name.
pub(crate) fn secret_producer(
    secret: &ResourceId,
    rendered: &[&Object],
    user_kinds: &[String],
) -> Option<String> {
    if !secret.group.is_empty() {
        return None;
    }
    // kube-controller-manager's root CA publisher puts this ConfigMap in every namespace.
    if secret.kind == "ConfigMap" && secret.name == "kube-root-ca.crt" {
        return Some("Kubernetes (in every namespace)".to_owned());
    }
    if secret.kind != "Secret" {
        return None;
    }
    let mut namespace_labels: Option<BTreeMap<String, String>> = None;
    let mut labels = || {
        namespace_labels
            .get_or_insert_with(|| labels_of_namespace(&secret.namespace, rendered))
            .clone()
    };
    let mut producers: Vec<String> = Vec::new();
    for object in rendered {
        let made = crate::validate::secrets_made_by(object);
        let makes_it = made.iter().any(|(name, everywhere)| {
            *name == secret.name
                && if *everywhere {
                    selects_namespace(&object.node, &secret.namespace, &labels())
                } else {
                    object.id.namespace == secret.namespace
                }
        }) || (object.id.name == secret.name
            && object.id.namespace == secret.namespace
            && user_kinds.iter().any(|k| *k == object.id.kind));
        if makes_it {
            producers.push(format!(
                "{}/{}/{}",
                object.id.kind, object.id.namespace, object.id.name
            ));
        }
    }
    producers.sort();
    producers.into_iter().next()
}

/// The labels of the Namespace `name` as rendered, with the `kubernetes.io/metadata.name` label
/// the API server gives every namespace.
fn labels_of_namespace(name: &str, rendered: &[&Object]) -> BTreeMap<String, String> {
    let mut labels = rendered
        .iter()
        .find(|o| o.id.kind == "Namespace" && o.id.group.is_empty() && o.id.name == name)
        .map(|o| o.labels())
        .unwrap_or_default();
    labels.insert("kubernetes.io/metadata.name".to_owned(), name.to_owned());
    labels
}

/// Whether a ClusterExternalSecret makes its ExternalSecret in `namespace`
/// (external-secrets `ClusterExternalSecretReconciler`: the namespaces named in `namespaces`,
/// and those any of `namespaceSelectors`, or the older single `namespaceSelector`, selects).
fn selects_namespace(node: &Node, namespace: &str, labels: &BTreeMap<String, String>) -> bool {
    let spec = |key: &str| node.get_path(&["spec", key]);
    let named = spec("namespaces")
        .and_then(Node::as_sequence)
        .is_some_and(|names| names.items.iter().any(|n| n.as_str() == Some(namespace)));
    let selectors = spec("namespaceSelectors")
        .and_then(Node::as_sequence)
        .map(|s| s.items.iter().collect::<Vec<_>>())
        .unwrap_or_default();
    named
        || selectors
            .into_iter()
            .chain(spec("namespaceSelector"))
            .any(|selector| label_selector_matches(selector, labels))
}

/// A Kubernetes `LabelSelector` (`matchLabels` and `matchExpressions`, all of which must hold;
/// an empty selector selects everything). An operator it does not know selects nothing.
fn label_selector_matches(selector: &Node, labels: &BTreeMap<String, String>) -> bool {
    let match_labels = selector
        .get("matchLabels")
        .and_then(Node::as_mapping)
        .map(|m| {
            m.iter().all(|(key, value)| {
                value
                    .as_str()
                    .is_some_and(|v| labels.get(key).map(String::as_str) == Some(v))
            })
        })
        .unwrap_or(true);
    let expressions = selector
        .get("matchExpressions")
        .and_then(Node::as_sequence)
        .map(|list| {
            list.items.iter().all(|expression| {
                let key = expression.get("key").and_then(Node::as_str).unwrap_or("");
                let values: Vec<&str> = expression
                    .get("values")
                    .and_then(Node::as_sequence)
                    .map(|v| v.items.iter().filter_map(Node::as_str).collect())
                    .unwrap_or_default();
                let value = labels.get(key).map(String::as_str);
                match expression.get("operator").and_then(Node::as_str) {
                    Some("In") => value.is_some_and(|v| values.contains(&v)),
                    Some("NotIn") => !value.is_some_and(|v| values.contains(&v)),
                    Some("Exists") => value.is_some(),
                    Some("DoesNotExist") => value.is_none(),
                    _ => false,
                }
            })
        })
        .unwrap_or(true);
    match_labels && expressions
}

#[cfg(test)]
mod tests {
    use super::*;

    fn objects(text: &str) -> Vec<Object> {
        crate::model::parse_objects(text, std::path::Path::new("t.yaml")).expect("parses")
    }

    fn secret(namespace: &str, name: &str) -> ResourceId {
        ResourceId::new("v1", "Secret", namespace, name)
    }

    #[test]
    fn an_external_secret_makes_its_target_in_its_namespace() {
        let rendered = objects(
            "apiVersion: external-secrets.io/v1\nkind: ExternalSecret\nmetadata: {name: es, namespace: apps}\n\
             spec: {target: {name: creds}}\n",
        );
        let rendered: Vec<&Object> = rendered.iter().collect();
        assert_eq!(
            secret_producer(&secret("apps", "creds"), &rendered, &[]).as_deref(),
            Some("ExternalSecret/apps/es")
        );
        assert_eq!(
            secret_producer(&secret("other", "creds"), &rendered, &[]),
            None
        );
        assert_eq!(secret_producer(&secret("apps", "es"), &rendered, &[]), None);
        let configmap = ResourceId::new("v1", "ConfigMap", "apps", "creds");
        assert_eq!(secret_producer(&configmap, &rendered, &[]), None);
        let root_ca = ResourceId::new("v1", "ConfigMap", "apps", "kube-root-ca.crt");
        assert!(secret_producer(&root_ca, &[], &[]).is_some());
    }

    #[test]
    fn a_cluster_external_secret_makes_its_secret_where_it_selects() {
        let rendered = objects(
            "apiVersion: external-secrets.io/v1\nkind: ClusterExternalSecret\nmetadata: {name: all}\n\
             spec: {externalSecretName: shared, namespaceSelectors: [{}]}\n---\n\
             apiVersion: external-secrets.io/v1\nkind: ClusterExternalSecret\nmetadata: {name: some}\n\
             spec:\n  externalSecretName: labelled\n  namespaceSelectors:\n  - matchLabels: {team: a}\n\
             \x20 namespaces: [named]\n---\n\
             apiVersion: v1\nkind: Namespace\nmetadata: {name: alpha, labels: {team: a}}\n",
        );
        let rendered: Vec<&Object> = rendered.iter().collect();
        assert!(secret_producer(&secret("anywhere", "shared"), &rendered, &[]).is_some());
        assert!(secret_producer(&secret("alpha", "labelled"), &rendered, &[]).is_some());
        assert!(secret_producer(&secret("named", "labelled"), &rendered, &[]).is_some());
        assert_eq!(
            secret_producer(&secret("beta", "labelled"), &rendered, &[]),
            None
        );
    }

    #[test]
    fn one_password_items_sealed_secrets_and_user_kinds_make_their_own_name() {
        let rendered = objects(
            "apiVersion: onepassword.com/v1\nkind: OnePasswordItem\nmetadata: {name: op, namespace: a}\n---\n\
             apiVersion: bitnami.com/v1alpha1\nkind: SealedSecret\nmetadata: {name: sealed, namespace: a}\n---\n\
             apiVersion: example.com/v1\nkind: VaultSecret\nmetadata: {name: vault, namespace: a}\n",
        );
        let rendered: Vec<&Object> = rendered.iter().collect();
        assert!(secret_producer(&secret("a", "op"), &rendered, &[]).is_some());
        assert!(secret_producer(&secret("a", "sealed"), &rendered, &[]).is_some());
        assert_eq!(secret_producer(&secret("a", "vault"), &rendered, &[]), None);
        let kinds = ["VaultSecret".to_owned()];
        assert!(secret_producer(&secret("a", "vault"), &rendered, &kinds).is_some());
    }
}
