//! Whether a kind is namespaced: the built-in kinds of Kubernetes, and the kinds of the
//! CustomResourceDefinitions among the objects themselves.

use std::collections::BTreeMap;

use crate::model::Object;
use crate::yaml::Node;

/// Built-in kinds by group (`""` is the core group) and whether they are namespaced.
const BUILTIN: &[(&str, &str, bool)] = &[
    ("", "Binding", true),
    ("", "ComponentStatus", false),
    ("", "ConfigMap", true),
    ("", "Endpoints", true),
    ("", "Event", true),
    ("", "LimitRange", true),
    ("", "Namespace", false),
    ("", "Node", false),
    ("", "PersistentVolume", false),
    ("", "PersistentVolumeClaim", true),
    ("", "Pod", true),
    ("", "PodTemplate", true),
    ("", "ReplicationController", true),
    ("", "ResourceQuota", true),
    ("", "Secret", true),
    ("", "Service", true),
    ("", "ServiceAccount", true),
    (
        "admissionregistration.k8s.io",
        "MutatingWebhookConfiguration",
        false,
    ),
    (
        "admissionregistration.k8s.io",
        "ValidatingWebhookConfiguration",
        false,
    ),
    (
        "admissionregistration.k8s.io",
        "ValidatingAdmissionPolicy",
        false,
    ),
    (
        "admissionregistration.k8s.io",
        "ValidatingAdmissionPolicyBinding",
        false,
    ),
    ("apiextensions.k8s.io", "CustomResourceDefinition", false),
    ("apiregistration.k8s.io", "APIService", false),
    ("apps", "ControllerRevision", true),
    ("apps", "DaemonSet", true),
    ("apps", "Deployment", true),
    ("apps", "ReplicaSet", true),
    ("apps", "StatefulSet", true),
    ("autoscaling", "HorizontalPodAutoscaler", true),
    ("batch", "CronJob", true),
    ("batch", "Job", true),
    ("certificates.k8s.io", "CertificateSigningRequest", false),
    ("coordination.k8s.io", "Lease", true),
    ("discovery.k8s.io", "EndpointSlice", true),
    ("events.k8s.io", "Event", true),
    ("flowcontrol.apiserver.k8s.io", "FlowSchema", false),
    (
        "flowcontrol.apiserver.k8s.io",
        "PriorityLevelConfiguration",
        false,
    ),
    ("networking.k8s.io", "Ingress", true),
    ("networking.k8s.io", "IngressClass", false),
    ("networking.k8s.io", "NetworkPolicy", true),
    ("node.k8s.io", "RuntimeClass", false),
    ("policy", "PodDisruptionBudget", true),
    ("policy", "PodSecurityPolicy", false),
    ("rbac.authorization.k8s.io", "ClusterRole", false),
    ("rbac.authorization.k8s.io", "ClusterRoleBinding", false),
    ("rbac.authorization.k8s.io", "Role", true),
    ("rbac.authorization.k8s.io", "RoleBinding", true),
    ("scheduling.k8s.io", "PriorityClass", false),
    ("storage.k8s.io", "CSIDriver", false),
    ("storage.k8s.io", "CSINode", false),
    ("storage.k8s.io", "CSIStorageCapacity", true),
    ("storage.k8s.io", "StorageClass", false),
    ("storage.k8s.io", "VolumeAttachment", false),
];

/// Whether a built-in kind is namespaced; `None` for a kind Kubernetes itself does not serve in
/// `group`.
pub(crate) fn builtin_is_namespaced(group: &str, kind: &str) -> Option<bool> {
    BUILTIN
        .iter()
        .find(|(g, k, _)| *g == group && *k == kind)
        .map(|(_, _, namespaced)| *namespaced)
}

pub(crate) struct Scopes {
    custom: BTreeMap<(String, String), bool>,
}

impl Scopes {
    /// Built-in kinds, and the CRDs found among `objects`.
    pub(crate) fn from_objects<'a>(objects: impl Iterator<Item = &'a Object>) -> Scopes {
        let mut custom = BTreeMap::new();
        for object in objects {
            if object.id.kind != "CustomResourceDefinition" {
                continue;
            }
            let node = &object.node;
            let text = |path: &[&str]| {
                node.get_path(path)
                    .and_then(Node::as_str)
                    .map(str::to_string)
            };
            if let (Some(group), Some(kind), Some(scope)) = (
                text(&["spec", "group"]),
                text(&["spec", "names", "kind"]),
                text(&["spec", "scope"]),
            ) {
                custom.insert((group, kind), scope == "Namespaced");
            }
        }
        Scopes { custom }
    }

    /// `None` when the kind is neither built in nor defined by a CRD among the objects.
    pub(crate) fn is_namespaced(&self, group: &str, kind: &str) -> Option<bool> {
        builtin_is_namespaced(group, kind).or_else(|| {
            self.custom
                .get(&(group.to_string(), kind.to_string()))
                .copied()
        })
    }
}
