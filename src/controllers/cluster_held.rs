//! Objects only the cluster holds, made there by a known operator from an object the run
//! renders: the Secret of an `ExternalSecret`, a `ClusterExternalSecret` (in every namespace it
//! selects), a `SealedSecret`, 1Password's `OnePasswordItem`; the Secret and ConfigMap of an
//! `ObjectBucketClaim` (lib-bucket-provisioner); the `<cluster>-kubeconfig` Secret of a Cluster
//! API `Cluster`; the others of `validate::made_in_cluster_by`, or an object of a kind the user
//! names (`--secret-producer`).
//!
//! The rule: a `substituteFrom`, `valuesFrom` or ResourceSet `dependsOn` ConfigMap or Secret that
//! no Kustomization produces and no repository file defines is taken as present, with unknown
//! keys and a note naming its producer, only when such an object is rendered in the run, in the
//! object's namespace, with the object's name; likewise the `kube-root-ca.crt` ConfigMap
//! Kubernetes puts in every namespace. Anything else stays a failure: an object nothing in Git
//! accounts for may be a typo, and assuming it would be a false PASS.

use std::collections::BTreeMap;

use crate::model::{Object, ResourceId};
use crate::yaml::Node;

/// The rendered object that makes the ConfigMap or Secret `wanted` in the cluster, as
/// `Kind/namespace/name` (the smallest, when several do). `user_kinds` make a Secret of their
/// own name.
pub(crate) fn cluster_producer(
    wanted: &ResourceId,
    rendered: &[&Object],
    user_kinds: &[String],
) -> Option<String> {
    if !wanted.group.is_empty() {
        return None;
    }
    // kube-controller-manager's root CA publisher puts this ConfigMap in every namespace.
    if wanted.kind == "ConfigMap" && wanted.name == "kube-root-ca.crt" {
        return Some("Kubernetes (in every namespace)".to_owned());
    }
    if !matches!(wanted.kind.as_str(), "Secret" | "ConfigMap") {
        return None;
    }
    let mut namespace_labels: Option<BTreeMap<String, String>> = None;
    let mut labels = || {
        namespace_labels
            .get_or_insert_with(|| labels_of_namespace(&wanted.namespace, rendered))
            .clone()
    };
    let mut producers: Vec<String> = Vec::new();
    for object in rendered {
        let made = crate::validate::made_in_cluster_by(object);
        let makes_it = made.iter().any(|(kind, name, everywhere)| {
            *kind == wanted.kind
                && *name == wanted.name
                && if *everywhere {
                    selects_namespace(&object.node, &wanted.namespace, &labels())
                } else {
                    object.id.namespace == wanted.namespace
                }
        }) || (wanted.kind == "Secret"
            && object.id.name == wanted.name
            && object.id.namespace == wanted.namespace
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

/// A Kubernetes `LabelSelector` (`labels::Selector::from_label_selector`); one that cannot be a
/// selector selects nothing.
fn label_selector_matches(selector: &Node, labels: &BTreeMap<String, String>) -> bool {
    crate::labels::Selector::from_label_selector(selector)
        .is_some_and(|selector| selector.matches(|key| labels.get(key).map(String::as_str)))
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
            cluster_producer(&secret("apps", "creds"), &rendered, &[]).as_deref(),
            Some("ExternalSecret/apps/es")
        );
        assert_eq!(
            cluster_producer(&secret("other", "creds"), &rendered, &[]),
            None
        );
        assert_eq!(
            cluster_producer(&secret("apps", "es"), &rendered, &[]),
            None
        );
        let configmap = ResourceId::new("v1", "ConfigMap", "apps", "creds");
        assert_eq!(cluster_producer(&configmap, &rendered, &[]), None);
        let root_ca = ResourceId::new("v1", "ConfigMap", "apps", "kube-root-ca.crt");
        assert!(cluster_producer(&root_ca, &[], &[]).is_some());
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
        assert!(cluster_producer(&secret("anywhere", "shared"), &rendered, &[]).is_some());
        assert!(cluster_producer(&secret("alpha", "labelled"), &rendered, &[]).is_some());
        assert!(cluster_producer(&secret("named", "labelled"), &rendered, &[]).is_some());
        assert_eq!(
            cluster_producer(&secret("beta", "labelled"), &rendered, &[]),
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
        assert!(cluster_producer(&secret("a", "op"), &rendered, &[]).is_some());
        assert!(cluster_producer(&secret("a", "sealed"), &rendered, &[]).is_some());
        assert_eq!(
            cluster_producer(&secret("a", "vault"), &rendered, &[]),
            None
        );
        let kinds = ["VaultSecret".to_owned()];
        assert!(cluster_producer(&secret("a", "vault"), &rendered, &kinds).is_some());
    }

    #[test]
    fn bucket_claims_and_cluster_api_clusters_make_their_objects_in_their_namespace() {
        let rendered = objects(
            "apiVersion: objectbucket.io/v1alpha1\nkind: ObjectBucketClaim\nmetadata: {name: b, namespace: m}\n---\n\
             apiVersion: cluster.x-k8s.io/v1beta2\nkind: Cluster\nmetadata: {name: spoke, namespace: c}\n",
        );
        let rendered: Vec<&Object> = rendered.iter().collect();
        let config_map =
            |namespace: &str, name: &str| ResourceId::new("v1", "ConfigMap", namespace, name);
        assert_eq!(
            cluster_producer(&config_map("m", "b"), &rendered, &[]).as_deref(),
            Some("ObjectBucketClaim/m/b")
        );
        assert!(cluster_producer(&secret("m", "b"), &rendered, &[]).is_some());
        assert_eq!(
            cluster_producer(&config_map("n", "b"), &rendered, &[]),
            None
        );
        assert_eq!(
            cluster_producer(&secret("c", "spoke-kubeconfig"), &rendered, &[]).as_deref(),
            Some("Cluster/c/spoke")
        );
        assert_eq!(
            cluster_producer(&config_map("c", "spoke-kubeconfig"), &rendered, &[]),
            None
        );
        assert_eq!(
            cluster_producer(&secret("c", "spoke"), &rendered, &[]),
            None
        );
    }
}
