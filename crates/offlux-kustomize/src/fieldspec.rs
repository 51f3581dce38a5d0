//! Field specs: which fields of which kinds a builtin transformer touches (kustomize's builtin
//! tables, plus those a kustomization adds through `configurations`), and the walk that visits or
//! creates those fields in a resource.
//!
//! Not for: deciding values (the transformers do that).

use super::resource::Gvk;
use offlux_yaml::{Mapping, Node, Scalar};

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct FieldSpec {
    pub group: String,
    pub version: String,
    pub kind: String,
    pub path: Vec<String>,
    pub create: bool,
}

impl FieldSpec {
    pub(super) fn new(kind: &str, group: &str, path: &str, create: bool) -> FieldSpec {
        FieldSpec {
            group: group.to_string(),
            version: String::new(),
            kind: kind.to_string(),
            path: split_path(path),
            create,
        }
    }

    pub(crate) fn from_node(node: &Node) -> FieldSpec {
        let get = |k: &str| node.get(k).and_then(Node::as_str).unwrap_or("").to_string();
        FieldSpec {
            group: get("group"),
            version: get("version"),
            kind: get("kind"),
            path: split_path(&get("path")),
            create: node.get("create").and_then(Node::as_str) == Some("true"),
        }
    }

    pub(crate) fn applies_to(&self, gvk: &Gvk) -> bool {
        (self.kind.is_empty() || self.kind == gvk.kind)
            && (self.group.is_empty() || self.group == gvk.group)
            && (self.version.is_empty() || self.version == gvk.version)
    }
}

/// Splits `a/b\/c/d` into segments, honouring the `\/` escape.
pub(crate) fn split_path(path: &str) -> Vec<String> {
    if !path.contains('\\') {
        if path.is_empty() {
            return Vec::new();
        }
        return path.split('/').map(str::to_string).collect();
    }
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut chars = path.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&'/') => {
                cur.push('/');
                chars.next();
            }
            '/' => out.push(std::mem::take(&mut cur)),
            _ => cur.push(c),
        }
    }
    if !cur.is_empty() || !out.is_empty() {
        out.push(cur);
    }
    out
}

/// Visits every node at `path`, descending through sequences along the way. With `create`, missing
/// mappings on the way (and the final field, as `null`) are created; `visit` then sees the null.
pub(super) fn walk<S: AsRef<str>>(
    node: &mut Node,
    path: &[S],
    create: bool,
    visit: &mut dyn FnMut(&mut Node),
) {
    let Some((first, rest)) = path.split_first() else {
        visit(node);
        return;
    };
    let first = first.as_ref();
    let key = first.strip_suffix("[]").unwrap_or(first);
    match node {
        Node::Sequence(seq) => {
            for item in &mut seq.items {
                walk(item, path, create, visit);
            }
        }
        Node::Mapping(m) => {
            if !m.contains_key(key) {
                if !create {
                    return;
                }
                let value = if rest.is_empty() {
                    Node::null()
                } else if first.ends_with("[]") {
                    return;
                } else {
                    Node::Mapping(Mapping::new())
                };
                m.insert(key, value);
            }
            if let Some(child) = m.get_mut(key) {
                if child.is_null() && create && !rest.is_empty() {
                    *child = Node::Mapping(Mapping::new());
                }
                if child.is_null() && !create && !rest.is_empty() {
                    return;
                }
                walk(child, rest, create, visit);
            }
        }
        Node::Scalar(_) => {}
    }
}

/// Applies `visit` to the fields named by every spec that applies to the node's kind.
pub(crate) fn apply_specs<'s>(
    node: &mut Node,
    specs: impl IntoIterator<Item = &'s FieldSpec>,
    visit: &mut dyn FnMut(&mut Node),
) {
    let gvk = Gvk::of(node);
    let mut seen: Vec<&Vec<String>> = Vec::new();
    for spec in specs {
        if !spec.applies_to(&gvk) || seen.contains(&&spec.path) {
            continue;
        }
        seen.push(&spec.path);
        walk(node, &spec.path, spec.create, visit);
    }
}

/// Sets string entries into a map node (creating the mapping when the field was null).
pub(crate) fn merge_string_map(target: &mut Node, pairs: &[(String, String)]) {
    if !matches!(target, Node::Mapping(_)) {
        if !target.is_null() {
            return;
        }
        *target = Node::Mapping(Mapping::new());
    }
    if let Some(m) = target.as_mapping_mut() {
        for (k, v) in pairs {
            m.insert(k.clone(), Node::Scalar(Scalar::string(v.clone())));
        }
    }
}

const WORKLOADS_TEMPLATE: &[(&str, &str)] = &[
    ("ReplicationController", ""),
    ("Deployment", ""),
    ("ReplicaSet", ""),
    ("DaemonSet", ""),
    ("StatefulSet", "apps"),
    ("Job", "batch"),
];

/// `metadata/labels` of everything and the pod template labels of workloads.
pub(crate) fn template_labels(field: &str) -> Vec<FieldSpec> {
    let mut out = Vec::new();
    for (kind, group) in WORKLOADS_TEMPLATE {
        out.push(FieldSpec::new(
            kind,
            group,
            &format!("spec/template/metadata/{field}"),
            true,
        ));
    }
    out.push(FieldSpec::new(
        "CronJob",
        "batch",
        &format!("spec/jobTemplate/metadata/{field}"),
        true,
    ));
    out.push(FieldSpec::new(
        "CronJob",
        "batch",
        &format!("spec/jobTemplate/spec/template/metadata/{field}"),
        true,
    ));
    out
}

pub(crate) fn metadata_labels() -> Vec<FieldSpec> {
    let mut out = vec![FieldSpec::new("", "", "metadata/labels", true)];
    out.extend(template_labels("labels"));
    out
}

pub(crate) fn common_annotations() -> Vec<FieldSpec> {
    let mut out = vec![FieldSpec::new("", "", "metadata/annotations", true)];
    out.extend(template_labels("annotations"));
    out
}

/// Selector fields commonLabels (and `labels` with includeSelectors) reach.
pub(crate) fn selector_labels() -> Vec<FieldSpec> {
    let mut out = vec![
        FieldSpec {
            version: "v1".into(),
            ..FieldSpec::new("Service", "", "spec/selector", true)
        },
        FieldSpec {
            version: "v1".into(),
            ..FieldSpec::new("ReplicationController", "", "spec/selector", true)
        },
        FieldSpec::new("Deployment", "", "spec/selector/matchLabels", true),
    ];
    let affinity = [
        "spec/template/spec/affinity/podAffinity/preferredDuringSchedulingIgnoredDuringExecution/podAffinityTerm/labelSelector/matchLabels",
        "spec/template/spec/affinity/podAffinity/requiredDuringSchedulingIgnoredDuringExecution/labelSelector/matchLabels",
        "spec/template/spec/affinity/podAntiAffinity/preferredDuringSchedulingIgnoredDuringExecution/podAffinityTerm/labelSelector/matchLabels",
        "spec/template/spec/affinity/podAntiAffinity/requiredDuringSchedulingIgnoredDuringExecution/labelSelector/matchLabels",
        "spec/template/spec/topologySpreadConstraints/labelSelector/matchLabels",
    ];
    for p in affinity {
        out.push(FieldSpec::new("Deployment", "apps", p, false));
    }
    out.push(FieldSpec::new(
        "ReplicaSet",
        "",
        "spec/selector/matchLabels",
        true,
    ));
    out.push(FieldSpec::new(
        "DaemonSet",
        "",
        "spec/selector/matchLabels",
        true,
    ));
    out.push(FieldSpec::new(
        "StatefulSet",
        "apps",
        "spec/selector/matchLabels",
        true,
    ));
    out.push(FieldSpec::new(
        "StatefulSet",
        "apps",
        "spec/volumeClaimTemplates[]/metadata/labels",
        true,
    ));
    for p in affinity {
        out.push(FieldSpec::new("StatefulSet", "apps", p, false));
    }
    out.push(FieldSpec::new(
        "Job",
        "batch",
        "spec/selector/matchLabels",
        false,
    ));
    out.push(FieldSpec::new(
        "CronJob",
        "batch",
        "spec/jobTemplate/spec/selector/matchLabels",
        false,
    ));
    out.push(FieldSpec::new(
        "PodDisruptionBudget",
        "policy",
        "spec/selector/matchLabels",
        false,
    ));
    for p in [
        "spec/podSelector/matchLabels",
        "spec/ingress/from/podSelector/matchLabels",
        "spec/egress/to/podSelector/matchLabels",
    ] {
        out.push(FieldSpec::new(
            "NetworkPolicy",
            "networking.k8s.io",
            p,
            false,
        ));
    }
    out
}

/// All fields commonLabels reaches.
pub(crate) fn common_labels() -> Vec<FieldSpec> {
    let mut out = selector_labels();
    out.extend(metadata_labels());
    out
}

pub(super) fn replicas() -> Vec<FieldSpec> {
    vec![
        FieldSpec::new("Deployment", "", "spec/replicas", true),
        FieldSpec::new("ReplicationController", "", "spec/replicas", true),
        FieldSpec::new("ReplicaSet", "", "spec/replicas", true),
        FieldSpec::new("StatefulSet", "", "spec/replicas", true),
    ]
}

/// One row of the name reference table: fields of referrers that hold the name of a `kind`.
#[derive(Clone, Debug)]
pub(crate) struct NameRef {
    pub kind: String,
    pub group: String,
    /// Empty selects every version (and an empty group every group), as a kustomize selector.
    pub version: String,
    pub specs: Vec<FieldSpec>,
}

impl NameRef {
    /// Whether an object of `gvk` is a target of this row.
    pub(super) fn selects(&self, gvk: &Gvk) -> bool {
        gvk.kind == self.kind
            && (self.group.is_empty() || gvk.group == self.group)
            && (self.version.is_empty() || gvk.version == self.version)
    }
}

/// Custom field specs a kustomization adds through `configurations` (they apply to its whole
/// subtree's results, and parents inherit them).
#[derive(Clone, Debug, Default)]
pub(crate) struct Config {
    pub common_labels: Vec<FieldSpec>,
    pub common_annotations: Vec<FieldSpec>,
    pub name_prefix: Vec<FieldSpec>,
    pub namespace: Vec<FieldSpec>,
    pub images: Vec<FieldSpec>,
    pub replicas: Vec<FieldSpec>,
    pub var_reference: Vec<FieldSpec>,
    pub name_reference: Vec<NameRef>,
}

impl Config {
    pub(super) fn merge(&mut self, other: &Config) {
        self.common_labels
            .extend(other.common_labels.iter().cloned());
        self.common_annotations
            .extend(other.common_annotations.iter().cloned());
        self.name_prefix.extend(other.name_prefix.iter().cloned());
        self.namespace.extend(other.namespace.iter().cloned());
        self.images.extend(other.images.iter().cloned());
        self.replicas.extend(other.replicas.iter().cloned());
        self.var_reference
            .extend(other.var_reference.iter().cloned());
        self.name_reference
            .extend(other.name_reference.iter().cloned());
    }
}

const POD_PARENTS: &[(&str, &str)] = &[
    ("Deployment", "spec/template/spec"),
    ("ReplicaSet", "spec/template/spec"),
    ("DaemonSet", "spec/template/spec"),
    ("StatefulSet", "spec/template/spec"),
    ("Job", "spec/template/spec"),
    ("CronJob", "spec/jobTemplate/spec/template/spec"),
    ("Pod", "spec"),
    ("PodTemplate", "template/spec"),
];

fn pod_specs(leaves: &[&str], parents: &[(&str, &str)]) -> Vec<FieldSpec> {
    let mut out = Vec::new();
    for (kind, prefix) in parents {
        for leaf in leaves {
            out.push(FieldSpec::new(kind, "", &format!("{prefix}/{leaf}"), false));
        }
    }
    out
}

pub(crate) fn name_references() -> Vec<NameRef> {
    let scale = |k: &str| NameRef {
        kind: k.into(),
        group: String::new(),
        version: String::new(),
        specs: vec![FieldSpec::new(
            "HorizontalPodAutoscaler",
            "",
            "spec/scaleTargetRef/name",
            false,
        )],
    };
    let mut cm = pod_specs(
        &[
            "volumes/configMap/name",
            "containers/env/valueFrom/configMapKeyRef/name",
            "initContainers/env/valueFrom/configMapKeyRef/name",
            "containers/envFrom/configMapRef/name",
            "initContainers/envFrom/configMapRef/name",
            "volumes/projected/sources/configMap/name",
        ],
        POD_PARENTS,
    );
    cm.extend([
        FieldSpec::new("Node", "", "spec/configSource/configMap", false),
        FieldSpec::new("Role", "", "rules/resourceNames", false),
        FieldSpec::new("ClusterRole", "", "rules/resourceNames", false),
        FieldSpec::new(
            "Ingress",
            "",
            "metadata/annotations/nginx.ingress.kubernetes.io\\/fastcgi-params-configmap",
            false,
        ),
    ]);
    let mut secret = pod_specs(
        &[
            "volumes/secret/secretName",
            "containers/env/valueFrom/secretKeyRef/name",
            "initContainers/env/valueFrom/secretKeyRef/name",
            "containers/envFrom/secretRef/name",
            "initContainers/envFrom/secretRef/name",
            "imagePullSecrets/name",
            "volumes/projected/sources/secret/name",
        ],
        POD_PARENTS,
    );
    secret.extend([
        FieldSpec::new("Ingress", "", "spec/tls/secretName", false),
        FieldSpec::new(
            "Ingress",
            "",
            "metadata/annotations/ingress.kubernetes.io\\/auth-secret",
            false,
        ),
        FieldSpec::new(
            "Ingress",
            "",
            "metadata/annotations/nginx.ingress.kubernetes.io\\/auth-secret",
            false,
        ),
        FieldSpec::new(
            "Ingress",
            "",
            "metadata/annotations/nginx.ingress.kubernetes.io\\/auth-tls-secret",
            false,
        ),
        FieldSpec::new("ServiceAccount", "", "imagePullSecrets/name", false),
        FieldSpec::new("StorageClass", "", "parameters/secretName", false),
        FieldSpec::new("StorageClass", "", "parameters/adminSecretName", false),
        FieldSpec::new("StorageClass", "", "parameters/userSecretName", false),
        FieldSpec::new("StorageClass", "", "parameters/secretRef", false),
        FieldSpec::new("Role", "", "rules/resourceNames", false),
        FieldSpec::new("ClusterRole", "", "rules/resourceNames", false),
        FieldSpec {
            version: "v1".into(),
            ..FieldSpec::new(
                "Service",
                "serving.knative.dev",
                "spec/template/spec/containers/env/valueFrom/secretKeyRef/name",
                false,
            )
        },
        FieldSpec::new("PersistentVolume", "", "spec/azureFile/secretName", false),
    ]);
    let service = vec![
        FieldSpec::new("StatefulSet", "apps", "spec/serviceName", false),
        FieldSpec::new(
            "Ingress",
            "",
            "spec/rules/http/paths/backend/serviceName",
            false,
        ),
        FieldSpec::new("Ingress", "", "spec/backend/serviceName", false),
        FieldSpec::new(
            "Ingress",
            "",
            "spec/rules/http/paths/backend/service/name",
            false,
        ),
        FieldSpec::new("Ingress", "", "spec/defaultBackend/service/name", false),
        FieldSpec::new(
            "APIService",
            "apiregistration.k8s.io",
            "spec/service/name",
            false,
        ),
        FieldSpec::new(
            "ValidatingWebhookConfiguration",
            "admissionregistration.k8s.io",
            "webhooks/clientConfig/service",
            false,
        ),
        FieldSpec::new(
            "MutatingWebhookConfiguration",
            "admissionregistration.k8s.io",
            "webhooks/clientConfig/service",
            false,
        ),
        FieldSpec::new("HTTPRoute", "", "spec/rules/backendRefs/name", false),
    ];
    let rbac = "rbac.authorization.k8s.io";
    let sa_parents: Vec<(&str, &str)> = vec![
        ("Pod", "spec"),
        ("StatefulSet", "spec/template/spec"),
        ("Deployment", "spec/template/spec"),
        ("ReplicationController", "spec/template/spec"),
        ("CronJob", "spec/jobTemplate/spec/template/spec"),
        ("Job", "spec/template/spec"),
        ("DaemonSet", "spec/template/spec"),
    ];
    let mut sa = vec![
        FieldSpec::new("RoleBinding", rbac, "subjects", false),
        FieldSpec::new("ClusterRoleBinding", rbac, "subjects", false),
    ];
    sa.extend(pod_specs(&["serviceAccountName"], &sa_parents));
    let pvc = pod_specs(&["volumes/persistentVolumeClaim/claimName"], &sa_parents);
    let priority = pod_specs(&["priorityClassName"], &sa_parents);
    vec![
        scale("Deployment"),
        scale("ReplicationController"),
        scale("ReplicaSet"),
        scale("StatefulSet"),
        NameRef {
            kind: "ConfigMap".into(),
            group: String::new(),
            version: "v1".into(),
            specs: cm,
        },
        NameRef {
            kind: "Secret".into(),
            group: String::new(),
            version: "v1".into(),
            specs: secret,
        },
        NameRef {
            kind: "Service".into(),
            group: String::new(),
            version: "v1".into(),
            specs: service,
        },
        NameRef {
            kind: "Role".into(),
            group: rbac.into(),
            version: String::new(),
            specs: vec![FieldSpec::new("RoleBinding", rbac, "roleRef/name", false)],
        },
        NameRef {
            kind: "ClusterRole".into(),
            group: rbac.into(),
            version: String::new(),
            specs: vec![
                FieldSpec::new("RoleBinding", rbac, "roleRef/name", false),
                FieldSpec::new("ClusterRoleBinding", rbac, "roleRef/name", false),
            ],
        },
        NameRef {
            kind: "ServiceAccount".into(),
            group: String::new(),
            version: "v1".into(),
            specs: sa,
        },
        NameRef {
            kind: "PersistentVolumeClaim".into(),
            group: String::new(),
            version: "v1".into(),
            specs: pvc,
        },
        NameRef {
            kind: "PersistentVolume".into(),
            group: String::new(),
            version: "v1".into(),
            specs: vec![
                FieldSpec::new("PersistentVolumeClaim", "", "spec/volumeName", false),
                FieldSpec::new("ClusterRole", "", "rules/resourceNames", false),
            ],
        },
        NameRef {
            kind: "StorageClass".into(),
            group: "storage.k8s.io".into(),
            version: String::new(),
            specs: vec![
                FieldSpec::new("PersistentVolume", "", "spec/storageClassName", false),
                FieldSpec::new("PersistentVolumeClaim", "", "spec/storageClassName", false),
                FieldSpec::new(
                    "StatefulSet",
                    "",
                    "spec/volumeClaimTemplates/spec/storageClassName",
                    false,
                ),
            ],
        },
        NameRef {
            kind: "PriorityClass".into(),
            group: "scheduling.k8s.io".into(),
            version: String::new(),
            specs: priority,
        },
        NameRef {
            kind: "ValidatingAdmissionPolicy".into(),
            group: "admissionregistration.k8s.io".into(),
            version: String::new(),
            specs: vec![FieldSpec::new(
                "ValidatingAdmissionPolicyBinding",
                "admissionregistration.k8s.io",
                "spec/policyName",
                false,
            )],
        },
        NameRef {
            kind: "IngressClass".into(),
            group: "networking.k8s.io".into(),
            version: String::new(),
            specs: vec![FieldSpec::new(
                "Ingress",
                "",
                "spec/ingressClassName",
                false,
            )],
        },
    ]
}
