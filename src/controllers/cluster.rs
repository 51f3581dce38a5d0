//! Which cluster each Flux object applies to. A Kustomization or HelmRelease with
//! `spec.kubeConfig` applies its objects to another cluster, named by the Secret (`secretRef`, with
//! its `key` when given) or ConfigMap (`configMapRef`) in the object's own namespace; what it
//! applies there (Flux objects included) belongs to that cluster, and so does what those apply in
//! turn unless they name yet another one.
//!
//! Not for: reading the kubeconfig itself (offline there is nothing to connect to).

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::model::{Object, ResourceId};
use crate::yaml::Node;

/// How deep clusters may nest through kubeConfigs before the chain is cut (a producer that
/// applies its own ancestor is a cycle, which the run reports elsewhere).
const MAX_DEPTH: usize = 32;

/// The cluster `object`'s `spec.kubeConfig` names, relative to the cluster it lives in:
/// `Secret/<namespace>/<name>` (with `[<key>]` when a key is given) or
/// `ConfigMap/<namespace>/<name>`.
pub(crate) fn kube_config_target(object: &Object) -> Option<String> {
    let config = object.node.get_path(&["spec", "kubeConfig"])?;
    let namespace = object.id.namespace.as_str();
    let name_of = |reference: &Node| {
        reference
            .get("name")
            .and_then(Node::as_str)
            .filter(|n| !n.is_empty())
            .map(str::to_owned)
    };
    if let Some(reference) = config.get("secretRef") {
        let name = name_of(reference)?;
        let key = reference
            .get("key")
            .and_then(Node::as_str)
            .filter(|k| !k.is_empty())
            .map(|k| format!("[{k}]"))
            .unwrap_or_default();
        return Some(format!("Secret/{namespace}/{name}{key}"));
    }
    if let Some(reference) = config.get("configMapRef") {
        return Some(format!("ConfigMap/{namespace}/{}", name_of(reference)?));
    }
    None
}

/// For each of `ids` that applies to a cluster other than the one offlux starts in, that
/// cluster: the kubeConfig targets from the outermost in, joined by ` > `. `rendered` says who
/// applied what; `published` gives a Flux object as the run ended (with its `spec`).
pub(crate) fn target_clusters<'a>(
    ids: impl IntoIterator<Item = &'a ResourceId>,
    rendered: &BTreeMap<ResourceId, Vec<Object>>,
    published: &dyn Fn(&ResourceId) -> Option<Arc<Object>>,
) -> BTreeMap<ResourceId, String> {
    // Whoever applied each producer: the smallest producer that rendered it, as the Store keeps.
    let mut applied_by: BTreeMap<&ResourceId, &ResourceId> = BTreeMap::new();
    for (producer, objects) in rendered {
        for object in objects {
            applied_by.entry(&object.id).or_insert(producer);
        }
    }
    let mut clusters = BTreeMap::new();
    for producer in ids {
        // The chain from this object up to one nothing applies.
        let mut chain = vec![producer];
        while let Some(up) = chain.last().and_then(|last| applied_by.get(last)).copied() {
            if chain.len() >= MAX_DEPTH || chain.contains(&up) {
                break;
            }
            chain.push(up);
        }
        let targets: Vec<String> = chain
            .iter()
            .rev()
            .filter_map(|id| published(id).and_then(|o| kube_config_target(&o)))
            .collect();
        if !targets.is_empty() {
            clusters.insert(producer.clone(), targets.join(" > "));
        }
    }
    clusters
}

/// A warning for each Flux object that producers apply to different clusters: the run holds one
/// object per kind, namespace and name, so it reconciles only the copy its smallest producer
/// applied (the `claims` winner), and the other clusters' copy has no row of its own. `claims`
/// are the run's: per object, who applied which version (the repository's own seeds, claimed by
/// no Kustomization, are left out).
pub(crate) fn claimed_in_several_clusters(
    claims: &BTreeMap<ResourceId, BTreeMap<ResourceId, Object>>,
    rendered: &BTreeMap<ResourceId, Vec<Object>>,
    published: &dyn Fn(&ResourceId) -> Option<Arc<Object>>,
) -> Vec<crate::diagnostic::Diagnostic> {
    let by_producer = |by: &BTreeMap<ResourceId, Object>| {
        by.keys()
            .filter(|p| crate::model::FluxKind::from_group_kind(&p.group, &p.kind).is_some())
            .count()
    };
    let contested: Vec<(&ResourceId, &BTreeMap<ResourceId, Object>)> = claims
        .iter()
        .filter(|(id, by)| {
            crate::model::FluxKind::from_group_kind(&id.group, &id.kind).is_some()
                && by_producer(by) > 1
        })
        .collect();
    if contested.is_empty() {
        return Vec::new();
    }
    let producers: std::collections::BTreeSet<&ResourceId> =
        contested.iter().flat_map(|(_, by)| by.keys()).collect();
    let clusters = target_clusters(producers, rendered, published);
    let own = String::new();
    let mut warnings = Vec::new();
    for (id, by) in contested {
        let of = |producer: &ResourceId| clusters.get(producer).unwrap_or(&own);
        let is_producer =
            |p: &&ResourceId| crate::model::FluxKind::from_group_kind(&p.group, &p.kind).is_some();
        let distinct: std::collections::BTreeSet<&String> =
            by.keys().filter(is_producer).map(of).collect();
        let Some((winner, object)) = by.iter().next() else {
            continue;
        };
        if distinct.len() < 2 {
            continue;
        }
        let named = |cluster: &String| {
            if cluster.is_empty() {
                "offlux's own".to_owned()
            } else {
                cluster.clone()
            }
        };
        let listed: Vec<String> = by
            .keys()
            .filter(is_producer)
            .map(|p| format!("{p} (cluster {})", named(of(p))))
            .collect();
        warnings.push(
            crate::diagnostic::Diagnostic::warning(format!(
                "applied to several clusters by {}; offlux holds one object per name, so only the copy {winner} applies (cluster {}) is reconciled and reported",
                listed.join(", "),
                named(of(winner))
            ))
            .at(object.location())
            .object(id.to_string()),
        );
    }
    warnings
}

#[cfg(test)]
mod tests {
    use super::*;

    fn object(text: &str) -> Object {
        crate::model::parse_objects(text, std::path::Path::new("f.yaml"))
            .ok()
            .and_then(|mut o| o.pop())
            .unwrap_or_else(|| panic!("one object in {text}"))
    }

    #[test]
    fn secret_and_config_map_references_name_the_cluster() {
        let ks = object(
            "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: a, namespace: staging}\nspec:\n  kubeConfig:\n    secretRef: {name: kc}\n",
        );
        assert_eq!(
            kube_config_target(&ks).as_deref(),
            Some("Secret/staging/kc")
        );
        let hr = object(
            "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {name: a, namespace: p}\nspec:\n  kubeConfig:\n    secretRef: {name: kc, key: value.yaml}\n",
        );
        assert_eq!(
            kube_config_target(&hr).as_deref(),
            Some("Secret/p/kc[value.yaml]")
        );
        let cm = object(
            "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: a, namespace: p}\nspec:\n  kubeConfig:\n    configMapRef: {name: spoke}\n",
        );
        assert_eq!(
            kube_config_target(&cm).as_deref(),
            Some("ConfigMap/p/spoke")
        );
        let plain = object(
            "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: a, namespace: p}\nspec: {}\n",
        );
        assert_eq!(kube_config_target(&plain), None);
    }
}
