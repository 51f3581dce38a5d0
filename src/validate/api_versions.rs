//! Kubernetes API versions that a release no longer serves, or has deprecated (the Kubernetes
//! deprecated API migration guide, v1.16 to v1.32).

/// One group/version of some kinds: deprecated from `deprecated_in`, not served from `removed_in`
/// (minor versions of 1.x).
pub struct RetiredApi {
    pub api_version: &'static str,
    /// The kinds concerned: a group/version gains kinds after older ones of it are retired
    /// (admission policies in `admissionregistration.k8s.io/v1beta1`), so never the whole of it.
    pub kinds: &'static [&'static str],
    pub deprecated_in: u64,
    pub removed_in: u64,
    pub replacement: &'static str,
}

const fn api(
    api_version: &'static str,
    kinds: &'static [&'static str],
    deprecated_in: u64,
    removed_in: u64,
    replacement: &'static str,
) -> RetiredApi {
    RetiredApi {
        api_version,
        kinds,
        deprecated_in,
        removed_in,
        replacement,
    }
}

pub(crate) const RETIRED: &[RetiredApi] = &[
    api(
        "extensions/v1beta1",
        &["Ingress"],
        14,
        22,
        "networking.k8s.io/v1",
    ),
    api(
        "extensions/v1beta1",
        &["Deployment", "DaemonSet", "ReplicaSet"],
        9,
        16,
        "apps/v1",
    ),
    api(
        "extensions/v1beta1",
        &["NetworkPolicy"],
        9,
        16,
        "networking.k8s.io/v1",
    ),
    api(
        "extensions/v1beta1",
        &["PodSecurityPolicy"],
        10,
        16,
        "policy/v1beta1",
    ),
    api(
        "apps/v1beta1",
        &["Deployment", "StatefulSet", "ControllerRevision"],
        9,
        16,
        "apps/v1",
    ),
    api(
        "apps/v1beta2",
        &[
            "Deployment",
            "StatefulSet",
            "DaemonSet",
            "ReplicaSet",
            "ControllerRevision",
        ],
        9,
        16,
        "apps/v1",
    ),
    api(
        "networking.k8s.io/v1beta1",
        &["Ingress", "IngressClass"],
        19,
        22,
        "networking.k8s.io/v1",
    ),
    api(
        "admissionregistration.k8s.io/v1beta1",
        &[
            "MutatingWebhookConfiguration",
            "ValidatingWebhookConfiguration",
        ],
        16,
        22,
        "admissionregistration.k8s.io/v1",
    ),
    api(
        "apiextensions.k8s.io/v1beta1",
        &["CustomResourceDefinition"],
        16,
        22,
        "apiextensions.k8s.io/v1",
    ),
    api(
        "apiregistration.k8s.io/v1beta1",
        &["APIService"],
        19,
        22,
        "apiregistration.k8s.io/v1",
    ),
    api(
        "authentication.k8s.io/v1beta1",
        &["TokenReview"],
        19,
        22,
        "authentication.k8s.io/v1",
    ),
    api(
        "authorization.k8s.io/v1beta1",
        &[
            "SubjectAccessReview",
            "LocalSubjectAccessReview",
            "SelfSubjectAccessReview",
            "SelfSubjectRulesReview",
        ],
        19,
        22,
        "authorization.k8s.io/v1",
    ),
    api(
        "certificates.k8s.io/v1beta1",
        &["CertificateSigningRequest"],
        19,
        22,
        "certificates.k8s.io/v1",
    ),
    api(
        "coordination.k8s.io/v1beta1",
        &["Lease"],
        19,
        22,
        "coordination.k8s.io/v1",
    ),
    api(
        "rbac.authorization.k8s.io/v1beta1",
        &["ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding"],
        17,
        22,
        "rbac.authorization.k8s.io/v1",
    ),
    api(
        "scheduling.k8s.io/v1beta1",
        &["PriorityClass"],
        17,
        22,
        "scheduling.k8s.io/v1",
    ),
    api(
        "storage.k8s.io/v1beta1",
        &["CSIDriver", "CSINode", "StorageClass", "VolumeAttachment"],
        19,
        22,
        "storage.k8s.io/v1",
    ),
    api("batch/v1beta1", &["CronJob"], 21, 25, "batch/v1"),
    api(
        "discovery.k8s.io/v1beta1",
        &["EndpointSlice"],
        21,
        25,
        "discovery.k8s.io/v1",
    ),
    api(
        "events.k8s.io/v1beta1",
        &["Event"],
        19,
        25,
        "events.k8s.io/v1",
    ),
    api(
        "autoscaling/v2beta1",
        &["HorizontalPodAutoscaler"],
        22,
        25,
        "autoscaling/v2",
    ),
    api(
        "policy/v1beta1",
        &["PodDisruptionBudget"],
        21,
        25,
        "policy/v1",
    ),
    api(
        "policy/v1beta1",
        &["PodSecurityPolicy"],
        21,
        25,
        "Pod Security Admission",
    ),
    api(
        "node.k8s.io/v1beta1",
        &["RuntimeClass"],
        20,
        25,
        "node.k8s.io/v1",
    ),
    api(
        "autoscaling/v2beta2",
        &["HorizontalPodAutoscaler"],
        23,
        26,
        "autoscaling/v2",
    ),
    api(
        "flowcontrol.apiserver.k8s.io/v1beta1",
        &["FlowSchema", "PriorityLevelConfiguration"],
        23,
        26,
        "flowcontrol.apiserver.k8s.io/v1",
    ),
    api(
        "storage.k8s.io/v1beta1",
        &["CSIStorageCapacity"],
        24,
        27,
        "storage.k8s.io/v1",
    ),
    api(
        "flowcontrol.apiserver.k8s.io/v1beta2",
        &["FlowSchema", "PriorityLevelConfiguration"],
        26,
        29,
        "flowcontrol.apiserver.k8s.io/v1",
    ),
    api(
        "flowcontrol.apiserver.k8s.io/v1beta3",
        &["FlowSchema", "PriorityLevelConfiguration"],
        29,
        32,
        "flowcontrol.apiserver.k8s.io/v1",
    ),
];

/// The retired API an object of `api_version` and `kind` uses, if any.
pub fn retired(api_version: &str, kind: &str) -> Option<&'static RetiredApi> {
    RETIRED
        .iter()
        .find(|r| r.api_version == api_version && r.kinds.contains(&kind))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn b3_vap_v1beta1_retirements_are_per_kind() {
        let webhook = retired(
            "admissionregistration.k8s.io/v1beta1",
            "ValidatingWebhookConfiguration",
        );
        assert_eq!(webhook.map(|r| r.removed_in), Some(22));
        // kinds a group/version gained after its older kinds were retired
        for (api_version, kind) in [
            (
                "admissionregistration.k8s.io/v1beta1",
                "ValidatingAdmissionPolicy",
            ),
            (
                "admissionregistration.k8s.io/v1beta1",
                "ValidatingAdmissionPolicyBinding",
            ),
            (
                "admissionregistration.k8s.io/v1beta1",
                "MutatingAdmissionPolicy",
            ),
            (
                "admissionregistration.k8s.io/v1beta1",
                "MutatingAdmissionPolicyBinding",
            ),
            ("authentication.k8s.io/v1beta1", "SelfSubjectReview"),
            ("certificates.k8s.io/v1beta1", "ClusterTrustBundle"),
            ("coordination.k8s.io/v1beta1", "LeaseCandidate"),
        ] {
            assert!(retired(api_version, kind).is_none(), "{api_version} {kind}");
        }
        assert!(RETIRED.iter().all(|r| !r.kinds.is_empty()));
    }
}
