//! OFX109: what a pod spec needs from its own namespace — ConfigMaps, Secrets, ServiceAccounts,
//! PersistentVolumeClaims — that no rendered object provides. Only a warning: the cluster may
//! hold it (made by hand, by an operator `GENERATORS` does not know, or by a chart hook).
//!
//! Provided means: a rendered object of that kind and name in the namespace; what Kubernetes
//! makes in every namespace (`EVERY_NAMESPACE`); a claim named by the StatefulSet's own
//! `volumeClaimTemplates`; or a Secret or ConfigMap that a well-known custom resource makes
//! (`GENERATORS`). Not checked: references from Flux objects (`secretRef`,
//! `serviceAccountName`), keys within a ConfigMap or Secret, and CSI or other volume plugins'
//! secret references.

use std::collections::BTreeSet;

use super::{finding, Code, Finding, Produced};
use crate::model::Object;
use crate::yaml::Node;

/// What a pod spec can reference.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Target {
    ConfigMap,
    Secret,
    ServiceAccount,
    PersistentVolumeClaim,
}

impl Target {
    const ALL: [Target; 4] = [
        Target::ConfigMap,
        Target::Secret,
        Target::ServiceAccount,
        Target::PersistentVolumeClaim,
    ];

    fn kind(self) -> &'static str {
        match self {
            Target::ConfigMap => "ConfigMap",
            Target::Secret => "Secret",
            Target::ServiceAccount => "ServiceAccount",
            Target::PersistentVolumeClaim => "PersistentVolumeClaim",
        }
    }

    /// The target a rendered object is, if any (core group only).
    fn of(object: &Object) -> Option<Target> {
        if !object.id.group.is_empty() {
            return None;
        }
        Target::ALL.into_iter().find(|t| t.kind() == object.id.kind)
    }
}

/// Where each workload kind keeps its pod spec, by group and kind.
const POD_SPECS: &[(&str, &str, &[&str])] = &[
    ("", "Pod", &["spec"]),
    ("", "ReplicationController", &["spec", "template", "spec"]),
    ("apps", "Deployment", &["spec", "template", "spec"]),
    ("apps", "ReplicaSet", &["spec", "template", "spec"]),
    ("apps", "StatefulSet", &["spec", "template", "spec"]),
    ("apps", "DaemonSet", &["spec", "template", "spec"]),
    ("extensions", "Deployment", &["spec", "template", "spec"]),
    ("extensions", "ReplicaSet", &["spec", "template", "spec"]),
    ("extensions", "DaemonSet", &["spec", "template", "spec"]),
    ("batch", "Job", &["spec", "template", "spec"]),
    (
        "batch",
        "CronJob",
        &["spec", "jobTemplate", "spec", "template", "spec"],
    ),
];

/// What Kubernetes makes in every namespace.
const EVERY_NAMESPACE: &[(Target, &str)] = &[
    (Target::ServiceAccount, "default"),
    (Target::ConfigMap, "kube-root-ca.crt"),
];

/// A custom resource that makes a Secret or ConfigMap in its namespace.
struct Generator {
    group: &'static str,
    kind: &'static str,
    target: Target,
    name: Name,
    /// A cluster-scoped generator that makes its object in the namespaces it selects, taken
    /// here as every namespace.
    everywhere: bool,
}

/// How a generator names what it makes.
enum Name {
    /// The first of these fields that holds a string.
    First(&'static [&'static [&'static str]]),
    /// `metadata.name` and a suffix, for operators that derive several objects from one name.
    Suffixed(&'static str),
    /// Always this name.
    Fixed(&'static str),
}

const METADATA_NAME: &[&str] = &["metadata", "name"];

const fn generator(
    group: &'static str,
    kind: &'static str,
    target: Target,
    name: Name,
) -> Generator {
    Generator {
        group,
        kind,
        target,
        name,
        everywhere: false,
    }
}

/// Custom resources known to make a Secret or ConfigMap of a given name.
const GENERATORS: &[Generator] = &[
    // External Secrets: the target Secret, named after the ExternalSecret by default.
    generator(
        "external-secrets.io",
        "ExternalSecret",
        Target::Secret,
        Name::First(&[&["spec", "target", "name"], METADATA_NAME]),
    ),
    // A ClusterExternalSecret makes an ExternalSecret (named `externalSecretName`, else after
    // itself) in each namespace it selects.
    Generator {
        everywhere: true,
        ..generator(
            "external-secrets.io",
            "ClusterExternalSecret",
            Target::Secret,
            Name::First(&[
                &["spec", "externalSecretSpec", "target", "name"],
                &["spec", "externalSecretName"],
                METADATA_NAME,
            ]),
        )
    },
    // Sealed Secrets: the Secret takes the SealedSecret's name; the template may name it too.
    generator(
        "bitnami.com",
        "SealedSecret",
        Target::Secret,
        Name::First(&[METADATA_NAME]),
    ),
    generator(
        "bitnami.com",
        "SealedSecret",
        Target::Secret,
        Name::First(&[&["spec", "template", "metadata", "name"]]),
    ),
    // cert-manager: the key pair and certificate go to `spec.secretName`.
    generator(
        "cert-manager.io",
        "Certificate",
        Target::Secret,
        Name::First(&[&["spec", "secretName"]]),
    ),
    // 1Password's operator: a Secret named after the item.
    generator(
        "onepassword.com",
        "OnePasswordItem",
        Target::Secret,
        Name::First(&[METADATA_NAME]),
    ),
    // Object bucket claims (Rook, NooBaa): a Secret with the credentials and a ConfigMap with the
    // endpoint, both named after the claim.
    generator(
        "objectbucket.io",
        "ObjectBucketClaim",
        Target::Secret,
        Name::First(&[METADATA_NAME]),
    ),
    generator(
        "objectbucket.io",
        "ObjectBucketClaim",
        Target::ConfigMap,
        Name::First(&[METADATA_NAME]),
    ),
    // Cluster API: the kubeconfig of a workload cluster, `<cluster>-kubeconfig` in the Cluster's
    // namespace (cluster-api `util/secret`: `Name(cluster, Kubeconfig)`).
    generator(
        "cluster.x-k8s.io",
        "Cluster",
        Target::Secret,
        Name::Suffixed("-kubeconfig"),
    ),
    // Flux's Terraform controller writes the outputs to `spec.writeOutputsToSecret.name`.
    generator(
        "infra.contrib.fluxcd.io",
        "Terraform",
        Target::Secret,
        Name::First(&[&["spec", "writeOutputsToSecret", "name"]]),
    ),
    // CloudNativePG: `<cluster>-app` (the application user, unless the bootstrap names its own),
    // `<cluster>-superuser` (with superuser access enabled), and the certificates.
    generator(
        "postgresql.cnpg.io",
        "Cluster",
        Target::Secret,
        Name::Suffixed("-app"),
    ),
    generator(
        "postgresql.cnpg.io",
        "Cluster",
        Target::Secret,
        Name::Suffixed("-superuser"),
    ),
    generator(
        "postgresql.cnpg.io",
        "Cluster",
        Target::Secret,
        Name::Suffixed("-ca"),
    ),
    generator(
        "postgresql.cnpg.io",
        "Cluster",
        Target::Secret,
        Name::Suffixed("-server"),
    ),
    generator(
        "postgresql.cnpg.io",
        "Cluster",
        Target::Secret,
        Name::Suffixed("-replication"),
    ),
    // Rook: the operator keeps the monitors' addresses and the admin keyring of a CephCluster in
    // fixed names in its namespace (the toolbox mounts them).
    generator(
        "ceph.rook.io",
        "CephCluster",
        Target::Secret,
        Name::Fixed("rook-ceph-mon"),
    ),
    generator(
        "ceph.rook.io",
        "CephCluster",
        Target::Secret,
        Name::Fixed("rook-ceph-admin-keyring"),
    ),
    generator(
        "ceph.rook.io",
        "CephCluster",
        Target::ConfigMap,
        Name::Fixed("rook-ceph-mon-endpoints"),
    ),
];

impl Name {
    fn of(&self, object: &Object) -> Option<String> {
        match self {
            Name::First(paths) => paths
                .iter()
                .find_map(|path| object.node.get_path(path).and_then(Node::as_str))
                .map(str::to_string),
            Name::Suffixed(suffix) => Some(format!("{}{suffix}", object.id.name)),
            Name::Fixed(name) => Some(name.to_string()),
        }
    }
}

/// A container (in a chart's hook Job, mostly) that makes Secrets in its own namespace, known by
/// its image and a word of its command line.
struct SecretJob {
    /// Part of the container's image.
    image: &'static str,
    /// A word its command or arguments hold.
    word: &'static str,
    /// The flag whose value names a Secret it makes (`--secret-name=NAME` or `--secret-name NAME`).
    flag: Option<&'static str>,
    /// Secrets it always makes.
    fixed: &'static [&'static str],
}

const SECRET_JOBS: &[SecretJob] = &[
    // kube-webhook-certgen (ingress-nginx, kube-prometheus-stack and many other charts):
    // `create --secret-name=NAME` makes the webhook's certificate.
    SecretJob {
        image: "kube-webhook-certgen",
        word: "create",
        flag: Some("--secret-name"),
        fixed: &[],
    },
    // Envoy Gateway's `envoy-gateway certgen`: the certificates of the control plane, the proxies
    // and the rate limiter, and the OIDC HMAC secret.
    SecretJob {
        image: "envoyproxy/gateway",
        word: "certgen",
        flag: None,
        fixed: &[
            "envoy-gateway",
            "envoy",
            "envoy-rate-limit",
            "envoy-oidc-hmac",
        ],
    },
];

impl SecretJob {
    /// The Secrets this container makes, if it is one of these.
    fn secrets(&self, container: &Node) -> Vec<String> {
        let image = container.get("image").and_then(Node::as_str).unwrap_or("");
        let words: Vec<&str> = ["command", "args"]
            .iter()
            .flat_map(|key| items(container, &[key]))
            .filter_map(|(_, word)| word.as_str())
            .collect();
        if !image.contains(self.image) || !words.contains(&self.word) {
            return Vec::new();
        }
        let mut out: Vec<String> = self.fixed.iter().map(|n| n.to_string()).collect();
        if let Some(flag) = self.flag {
            for (i, word) in words.iter().enumerate() {
                let value = match word.strip_prefix(flag) {
                    Some(rest) if rest.starts_with('=') => Some(&rest[1..]),
                    Some("") => words.get(i + 1).copied(),
                    _ => None,
                };
                out.extend(value.map(str::to_string));
            }
        }
        out
    }
}

/// What the rendered objects provide, by target, namespace and name.
struct Provided {
    here: BTreeSet<(Target, String, String)>,
    everywhere: BTreeSet<(Target, String)>,
}

/// The Secrets and ConfigMaps a known operator makes in the cluster from `object`
/// (`GENERATORS`): each as its kind, name and whether it is made in every namespace the object
/// selects (a ClusterExternalSecret) rather than in the object's own. The one list of such
/// operators: `offlux test` relies on it to take a `substituteFrom`, `valuesFrom` or ResourceSet
/// `dependsOn` object as held by the cluster.
pub(crate) fn made_in_cluster_by(object: &Object) -> Vec<(&'static str, String, bool)> {
    let id = &object.id;
    GENERATORS
        .iter()
        .filter(|g| g.group == id.group && g.kind == id.kind)
        .filter(|g| matches!(g.target, Target::Secret | Target::ConfigMap))
        .filter_map(|g| Some((g.target.kind(), g.name.of(object)?, g.everywhere)))
        .collect()
}

impl Provided {
    fn from_objects(objects: &[Produced<'_>]) -> Provided {
        let mut here = BTreeSet::new();
        let mut everywhere: BTreeSet<(Target, String)> = EVERY_NAMESPACE
            .iter()
            .map(|(target, name)| (*target, name.to_string()))
            .collect();
        for produced in objects {
            let object = produced.object;
            let id = &object.id;
            if let Some(target) = Target::of(object) {
                here.insert((target, id.namespace.to_string(), id.name.to_string()));
            }
            for generator in GENERATORS
                .iter()
                .filter(|g| g.group == id.group && g.kind == id.kind)
            {
                let Some(name) = generator.name.of(object) else {
                    continue;
                };
                if generator.everywhere {
                    everywhere.insert((generator.target, name));
                } else {
                    here.insert((generator.target, id.namespace.to_string(), name));
                }
            }
            for container in containers(object) {
                for name in SECRET_JOBS.iter().flat_map(|job| job.secrets(container)) {
                    here.insert((Target::Secret, id.namespace.to_string(), name));
                }
            }
        }
        Provided { here, everywhere }
    }

    fn contains(&self, target: Target, namespace: &str, name: &str) -> bool {
        self.everywhere.contains(&(target, name.to_string()))
            || self
                .here
                .contains(&(target, namespace.to_string(), name.to_string()))
    }
}

/// One reference out of a pod spec.
struct Reference {
    target: Target,
    name: String,
    /// The JSON path of the name.
    path: String,
    /// How the pod uses it, for the message: "mounts", "runs as".
    verb: &'static str,
}

/// OFX109 for every workload among `objects`: one finding per object and missing reference, at
/// the first place it is referenced.
pub(super) fn missing_references(objects: &[Produced<'_>], findings: &mut Vec<Finding>) {
    let provided = Provided::from_objects(objects);
    for produced in objects {
        let object = produced.object;
        let id = &object.id;
        // Where an object without a namespace lands is not known, so neither is what is there.
        if id.namespace.is_empty() {
            continue;
        }
        let Some((spec_path, spec)) = pod_spec(object) else {
            continue;
        };
        let own_claims = volume_claim_templates(object);
        let base = spec_path
            .iter()
            .fold("$".to_string(), |path, key| format!("{path}.{key}"));
        let mut reported = BTreeSet::new();
        for reference in references(spec, &base) {
            let provided_here = provided.contains(reference.target, &id.namespace, &reference.name)
                || (reference.target == Target::PersistentVolumeClaim
                    && own_claims.contains(reference.name.as_str()));
            if provided_here || !reported.insert((reference.target, reference.name.clone())) {
                continue;
            }
            let message = format!(
                "{} {}/{} {} {} {}/{}, which nothing in the repository provides (the cluster may hold it)",
                id.kind,
                id.namespace,
                id.name,
                reference.verb,
                reference.target.kind(),
                id.namespace,
                reference.name
            );
            findings.push(finding(
                produced,
                Code::MissingReference,
                Some(reference.path),
                message,
            ));
        }
    }
}

/// The pod spec of a workload, and where it is.
fn pod_spec(object: &Object) -> Option<(&'static [&'static str], &Node)> {
    let id = &object.id;
    let (_, _, path) = POD_SPECS
        .iter()
        .find(|(group, kind, _)| *group == id.group && *kind == id.kind)?;
    Some((*path, object.node.get_path(path)?))
}

/// Every container of a workload: init, regular and ephemeral.
pub(crate) fn containers(object: &Object) -> impl Iterator<Item = &Node> {
    let spec = pod_spec(object).map(|(_, spec)| spec);
    CONTAINER_LISTS
        .iter()
        .flat_map(move |list| spec.into_iter().flat_map(move |spec| items(spec, &[list])))
        .map(|(_, container)| container)
}

const CONTAINER_LISTS: [&str; 3] = ["initContainers", "containers", "ephemeralContainers"];

/// The names of a StatefulSet's `volumeClaimTemplates`, whose claims it makes itself.
fn volume_claim_templates(object: &Object) -> BTreeSet<&str> {
    if object.id.kind != "StatefulSet" {
        return BTreeSet::new();
    }
    items(&object.node, &["spec", "volumeClaimTemplates"])
        .filter_map(|(_, template)| template.get_path(METADATA_NAME).and_then(Node::as_str))
        .collect()
}

/// Every reference in a pod spec at `base`, in the order they are written.
fn references(spec: &Node, base: &str) -> Vec<Reference> {
    let mut out = Vec::new();
    let mut push = |target, name: Option<&str>, path: String, verb| {
        if let Some(name) = name.filter(|n| is_literal_name(n)) {
            out.push(Reference {
                target,
                name: name.to_string(),
                path,
                verb,
            });
        }
    };
    // `serviceAccount` is the deprecated spelling; `serviceAccountName` wins when both are set.
    if let Some(key) = ["serviceAccountName", "serviceAccount"]
        .into_iter()
        .find(|key| spec.get(key).and_then(Node::as_str).is_some())
    {
        push(
            Target::ServiceAccount,
            spec.get(key).and_then(Node::as_str),
            format!("{base}.{key}"),
            "runs as",
        );
    }
    for (i, secret) in items(spec, &["imagePullSecrets"]) {
        push(
            Target::Secret,
            secret.get("name").and_then(Node::as_str),
            format!("{base}.imagePullSecrets[{i}].name"),
            "pulls images with",
        );
    }
    for (i, volume) in items(spec, &["volumes"]) {
        let at = format!("{base}.volumes[{i}]");
        push(
            Target::ConfigMap,
            required(volume, &["configMap"], "name"),
            format!("{at}.configMap.name"),
            "mounts",
        );
        push(
            Target::Secret,
            required(volume, &["secret"], "secretName"),
            format!("{at}.secret.secretName"),
            "mounts",
        );
        push(
            Target::PersistentVolumeClaim,
            required(volume, &["persistentVolumeClaim"], "claimName"),
            format!("{at}.persistentVolumeClaim.claimName"),
            "mounts",
        );
        for (j, source) in items(volume, &["projected", "sources"]) {
            let at = format!("{at}.projected.sources[{j}]");
            push(
                Target::ConfigMap,
                required(source, &["configMap"], "name"),
                format!("{at}.configMap.name"),
                "mounts",
            );
            push(
                Target::Secret,
                required(source, &["secret"], "name"),
                format!("{at}.secret.name"),
                "mounts",
            );
        }
    }
    for list in CONTAINER_LISTS {
        for (i, container) in items(spec, &[list]) {
            let at = format!("{base}.{list}[{i}]");
            let verb = "takes environment variables from";
            for (j, from) in items(container, &["envFrom"]) {
                push(
                    Target::ConfigMap,
                    required(from, &["configMapRef"], "name"),
                    format!("{at}.envFrom[{j}].configMapRef.name"),
                    verb,
                );
                push(
                    Target::Secret,
                    required(from, &["secretRef"], "name"),
                    format!("{at}.envFrom[{j}].secretRef.name"),
                    verb,
                );
            }
            for (j, var) in items(container, &["env"]) {
                push(
                    Target::ConfigMap,
                    required(var, &["valueFrom", "configMapKeyRef"], "name"),
                    format!("{at}.env[{j}].valueFrom.configMapKeyRef.name"),
                    verb,
                );
                push(
                    Target::Secret,
                    required(var, &["valueFrom", "secretKeyRef"], "name"),
                    format!("{at}.env[{j}].valueFrom.secretKeyRef.name"),
                    verb,
                );
            }
        }
    }
    out
}

/// The items of the sequence at `path`, with their indexes (none when it is not a sequence).
fn items<'a>(node: &'a Node, path: &[&str]) -> impl Iterator<Item = (usize, &'a Node)> {
    node.get_path(path)
        .and_then(Node::as_sequence)
        .map(|s| s.items.as_slice())
        .unwrap_or_default()
        .iter()
        .enumerate()
}

/// The string `key` of the mapping at `path`, unless that mapping says `optional: true` (the
/// pod then starts without it).
fn required<'a>(node: &'a Node, path: &[&str], key: &str) -> Option<&'a str> {
    let source = node.get_path(path)?;
    let optional = source.get("optional").and_then(Node::as_str) == Some("true");
    if optional {
        return None;
    }
    source.get(key).and_then(Node::as_str)
}

/// A name as written, not one a template or a substitution was meant to fill in.
fn is_literal_name(name: &str) -> bool {
    !name.trim().is_empty()
        && !["{{", "}}", "${", "$(", "<", ">"]
            .iter()
            .any(|marker| name.contains(marker))
        && !name.contains(char::is_whitespace)
}

#[cfg(test)]
mod tests;
