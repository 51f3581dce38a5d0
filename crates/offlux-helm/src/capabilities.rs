//! `.Capabilities` for an offline render: the Kubernetes version, the API versions a default
//! Helm v4 client knows (what `helm template` assumes with no cluster), and Helm's own version.

use super::KubeVersion;
use offlux_template::Value;

/// `chartutil.DefaultVersionSet` of Helm v4.2 (Kubernetes 1.36 client libraries), in its order,
/// read from the reference Helm. Group/versions only: `Has "policy/v1/PodDisruptionBudget"` is
/// false unless `--api-versions` adds it.
pub(crate) const DEFAULT_API_VERSIONS: &[&str] = &[
    "v1",
    "admissionregistration.k8s.io/v1",
    "admissionregistration.k8s.io/v1alpha1",
    "admissionregistration.k8s.io/v1beta1",
    "internal.apiserver.k8s.io/v1alpha1",
    "apps/v1",
    "apps/v1beta1",
    "apps/v1beta2",
    "authentication.k8s.io/v1",
    "authentication.k8s.io/v1alpha1",
    "authentication.k8s.io/v1beta1",
    "authorization.k8s.io/v1",
    "authorization.k8s.io/v1beta1",
    "autoscaling/v1",
    "autoscaling/v2",
    "batch/v1",
    "batch/v1beta1",
    "certificates.k8s.io/v1",
    "certificates.k8s.io/v1beta1",
    "certificates.k8s.io/v1alpha1",
    "coordination.k8s.io/v1alpha2",
    "coordination.k8s.io/v1beta1",
    "coordination.k8s.io/v1",
    "discovery.k8s.io/v1",
    "discovery.k8s.io/v1beta1",
    "events.k8s.io/v1",
    "events.k8s.io/v1beta1",
    "extensions/v1beta1",
    "flowcontrol.apiserver.k8s.io/v1",
    "flowcontrol.apiserver.k8s.io/v1beta1",
    "flowcontrol.apiserver.k8s.io/v1beta2",
    "flowcontrol.apiserver.k8s.io/v1beta3",
    "networking.k8s.io/v1",
    "networking.k8s.io/v1beta1",
    "node.k8s.io/v1",
    "node.k8s.io/v1alpha1",
    "node.k8s.io/v1beta1",
    "policy/v1",
    "policy/v1beta1",
    "rbac.authorization.k8s.io/v1",
    "rbac.authorization.k8s.io/v1beta1",
    "rbac.authorization.k8s.io/v1alpha1",
    "resource.k8s.io/v1",
    "resource.k8s.io/v1beta2",
    "resource.k8s.io/v1beta1",
    "resource.k8s.io/v1alpha3",
    "scheduling.k8s.io/v1alpha2",
    "scheduling.k8s.io/v1beta1",
    "scheduling.k8s.io/v1",
    "storage.k8s.io/v1beta1",
    "storage.k8s.io/v1",
    "storage.k8s.io/v1alpha1",
    "storagemigration.k8s.io/v1beta1",
    "apiextensions.k8s.io/v1beta1",
    "apiextensions.k8s.io/v1",
];

/// The Helm version templates see (`.Capabilities.HelmVersion`), as the reference reports it.
const HELM_VERSION: &str = "v4.2";
const HELM_GO_VERSION: &str = "go1.26.6";

/// `.Capabilities` as template data.
pub(crate) fn template_data(kube: &KubeVersion, extra_api_versions: &[String]) -> Value {
    let mut apis: Vec<Value> = DEFAULT_API_VERSIONS
        .iter()
        .map(|v| Value::String((*v).to_string()))
        .collect();
    apis.extend(extra_api_versions.iter().cloned().map(Value::String));
    let helm = Value::map(
        [
            ("Version", HELM_VERSION.to_string()),
            ("GitCommit", String::new()),
            ("GitTreeState", String::new()),
            ("GoVersion", HELM_GO_VERSION.to_string()),
            (
                "KubeClientVersion",
                format!("v{}.{}", kube.major, kube.minor),
            ),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), Value::String(v)))
        .collect(),
    );
    Value::map(
        [
            ("APIVersions".to_string(), Value::List(apis)),
            ("KubeVersion".to_string(), kube.template_data()),
            ("HelmVersion".to_string(), helm),
        ]
        .into_iter()
        .collect(),
    )
}
