//! Flux's HelmRelease semantics (helm-controller) on top of the Helm and kustomize engines: the
//! release name and namespace, the values a release is installed with (`valuesFrom` in order,
//! then inline `values`), and what happens to the rendered objects afterwards (`postRenderers`,
//! origin labels, `commonMetadata`, the release namespace on namespaced objects).
//!
//! Chart acquisition and rendering sit behind [`HelmRenderer`], so the reconcile loop is testable
//! with a fake; `engine` plugs the native Helm engine in.
//!
//! Not for: fetching charts, Helm's own rendering, the Store or scheduling.

use std::collections::BTreeMap;
use std::path::PathBuf;

use sha2::{Digest, Sha256};

use super::postbuild::{self, SOPS_PLACEHOLDER};
use crate::helm::values::merge_maps;
use crate::model::{HelmRelease, Object, ResourceId};
use crate::template::Value;
use crate::yaml::{Mapping, Node, Scalar, Sequence};

/// The labels helm-controller's origin post-renderer puts on every object of a release.
pub(crate) const ORIGIN_NAME: &str = "helm.toolkit.fluxcd.io/name";
pub(crate) const ORIGIN_NAMESPACE: &str = "helm.toolkit.fluxcd.io/namespace";

/// Renders a chart as a release. Implementations load (or fetch) the chart; they know nothing of
/// Flux objects.
pub trait HelmRenderer: Sync {
    fn render(&self, request: &HelmRenderRequest) -> Result<RenderedRelease, HelmRenderError>;

    /// Whether `chart` is at hand without the network (a local chart cache holds it): what an
    /// OCIRepository would fetch is known offline.
    fn holds(&self, _chart: &RepositoryChart) -> bool {
        false
    }
}

/// Where a chart comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ChartLocation {
    /// A chart directory (or `.tgz`) at `path` inside a source whose files are under `root` (the
    /// working tree). Values files are relative to `root`, as source-controller reads them.
    Local { root: PathBuf, path: String },
    /// A chart from a Helm repository or an OCI registry. Values files are inside the chart.
    Repository(RepositoryChart),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum RepositoryKind {
    /// A Helm HTTP repository (`index.yaml`): `url` is the repository, `chart` a name in it.
    Http,
    /// An OCI HelmRepository: the chart is `url/chart`, `version` a semver range or tag.
    Oci,
    /// An OCIRepository: `url` is the artifact itself (`chart` its last path segment); `version`
    /// is the tag, the semver range or `@sha256:…` digest of `spec.ref`.
    OciArtifact,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RepositoryChart {
    pub kind: RepositoryKind,
    pub url: String,
    pub chart: String,
    /// A semver constraint (default `*`), a tag or a digest.
    pub version: String,
    /// Credentials from the source's `secretRef` Secret (`username`, `password`).
    pub auth: Option<crate::helm::repo::BasicAuth>,
    /// The source's `spec.insecure`: an OCI registry spoken to over plain HTTP.
    pub insecure: bool,
}

/// Everything a renderer needs for one release.
#[derive(Clone, Debug)]
pub struct HelmRenderRequest {
    pub chart: ChartLocation,
    /// `valuesFiles`: merged in order, they replace the chart's `values.yaml`.
    pub values_files: Vec<String>,
    pub ignore_missing_values_files: bool,
    pub release_name: String,
    pub namespace: String,
    /// The composed user values (`valuesFrom`, then `values`).
    pub values: Value,
    pub include_crds: bool,
    pub disable_hooks: bool,
    pub disable_schema_validation: bool,
    /// `--kube-version`; the engine's default when `None`.
    pub kube_version: Option<String>,
}

/// A rendered release: the chart's CRDs (from `crds/`, applied as they are) and the objects of the
/// release (manifests, then hooks), which post-renderers see.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RenderedRelease {
    pub crds: Vec<Node>,
    pub objects: Vec<Node>,
    /// The chart as reports name it (`name version`).
    pub chart: String,
    /// Keys of the request's values that no template of the chart reads (see
    /// `helm::ValuesUsage`), each the topmost unread key of its branch.
    pub unread_values: Vec<Vec<String>>,
}

/// The values keys of a release that its chart never reads, with where each was written.
#[derive(Clone, Debug, PartialEq)]
pub struct UnreadValues {
    /// The chart (`name version`).
    pub chart: String,
    pub keys: Vec<UnreadKey>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct UnreadKey {
    pub path: Vec<String>,
    /// The key in the HelmRelease's `spec.values` when it is written there; otherwise (it came
    /// from `valuesFrom`, or a patch) the HelmRelease itself.
    pub location: crate::diagnostic::Location,
    /// Whether the key is in the HelmRelease's inline `spec.values`.
    pub inline: bool,
}

/// Where each unread key is written: in `written`, the HelmRelease as read from its file, when
/// its `spec.values` holds the key, else at the HelmRelease itself.
pub(crate) fn locate_unread(
    chart: &str,
    paths: &[Vec<String>],
    written: &Object,
    inline: Option<&Node>,
) -> UnreadValues {
    let keys = paths
        .iter()
        .map(|path| {
            let in_spec = inline.is_some_and(|values| value_at(values, path).is_some());
            let pos = written
                .node
                .get_path(&["spec", "values"])
                .and_then(|values| value_at(values, path));
            let location = match pos {
                Some(pos) => crate::diagnostic::Location::at(written.file.clone(), pos),
                None => written.location(),
            };
            UnreadKey {
                path: path.clone(),
                location,
                inline: in_spec,
            }
        })
        .collect();
    UnreadValues {
        chart: chart.to_owned(),
        keys,
    }
}

/// The position of the last key of `path` in a values mapping.
fn value_at(values: &Node, path: &[String]) -> Option<crate::yaml::Pos> {
    let (last, parents) = path.split_last()?;
    let mut node = values;
    for key in parents {
        node = node.as_mapping()?.get(key)?;
    }
    node.as_mapping()?.entry(last).map(|e| e.key.pos)
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HelmRenderError {
    /// The chart cannot be had offline: consumers fail, or are skipped with
    /// `--allow-missing-sources`.
    Unavailable(String),
    /// The chart was had, and a dependency it declares from a repository cannot be had offline:
    /// as `Unavailable`, but the release's own source is not to blame.
    DependencyUnavailable(String),
    /// The chart was had, and loading or rendering it failed.
    Failed(String),
    /// A template of a chart directory in the source failed at `line` of `file` (absolute): as
    /// `Failed`, with the place to show.
    FailedAt {
        message: String,
        file: PathBuf,
        line: u32,
    },
    /// Rendering failed after the chart asked the cluster for objects (`lookup`), which offline
    /// answers nothing: whether it fails in the cluster is unknowable here.
    NeedsCluster(String),
}

/// helm-controller's `release.ShortenName`: a name longer than 53 characters becomes its first 40
/// characters, a dash and the first 12 hex digits of the SHA-256 of the whole name.
pub(crate) fn shorten_name(name: &str) -> String {
    const MAX_LENGTH: usize = 53;
    const HASH_LENGTH: usize = 12;
    if name.len() <= MAX_LENGTH {
        return name.to_owned();
    }
    let sum = hex::encode(Sha256::digest(name.as_bytes()));
    let keep = MAX_LENGTH - (HASH_LENGTH + 1);
    // Go slices bytes; a name is ASCII in practice, but never split a character.
    let mut end = keep;
    while !name.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}-{}", &name[..end], &sum[..HASH_LENGTH])
}

/// `spec.releaseName`, or `[targetNamespace-]name`, shortened as helm-controller does.
pub fn release_name(name: &str, spec: &HelmRelease) -> String {
    let full = match (&spec.release_name, &spec.target_namespace) {
        (Some(release), _) if !release.is_empty() => release.clone(),
        (_, Some(target)) if !target.is_empty() => format!("{target}-{name}"),
        _ => name.to_owned(),
    };
    shorten_name(&full)
}

/// `spec.targetNamespace`, or the HelmRelease's own namespace.
pub(crate) fn release_namespace<'a>(namespace: &'a str, spec: &'a HelmRelease) -> &'a str {
    match &spec.target_namespace {
        Some(target) if !target.is_empty() => target,
        // Applied without a namespace, the HelmRelease lands in the cluster's default one, and
        // its release with it.
        _ if namespace.is_empty() => "default",
        _ => namespace,
    }
}

/// The outcome of composing a release's values.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum ComposedValues {
    /// The values, and notes about references that were left out.
    Ready {
        values: Value,
        notes: Vec<String>,
    },
    /// These ConfigMaps or Secrets have not appeared yet.
    Wait(Vec<ResourceId>),
    Failed(String),
}

/// How `compose_values` treats what it cannot find and what comes from Secrets.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Composing {
    /// Nothing more can arrive: a missing non-optional object is an error, not a wait.
    pub absent_is_final: bool,
    /// Every value from a Secret becomes `substitute::REDACTED` (`--redact-secret-values`): a
    /// whole values document's every leaf, or the one value a `targetPath` sets.
    pub redact_secret_values: bool,
}

/// Composes the values of a HelmRelease in `namespace`, as helm-controller's
/// `ChartValuesFromReferences`: each `valuesFrom` document merged in order (a `targetPath` sets one
/// value, Helm `--set` style), then the inline `values` merged over them.
///
/// `lookup` finds a ConfigMap or Secret; `declared` names the in-repository producer of a Secret
/// that is not in the repository itself (an ExternalSecret, a SealedSecret).
pub(crate) fn compose_values<'a>(
    namespace: &str,
    spec: &HelmRelease,
    inline_values: Option<&Node>,
    lookup: impl Fn(&ResourceId) -> Option<&'a Object>,
    declared: impl Fn(&ResourceId) -> Option<String>,
    options: Composing,
) -> ComposedValues {
    let Composing {
        absent_is_final,
        redact_secret_values,
    } = options;
    let mut result = Value::map(BTreeMap::new());
    let mut notes = Vec::new();
    let mut waiting = Vec::new();
    for reference in &spec.values_from {
        let key = reference.values_key.as_deref().unwrap_or("values.yaml");
        let describe = |reason: &str| {
            format!(
                "could not resolve{} {} chart values reference '{namespace}/{}' with key '{key}': {reason}",
                if reference.optional { " optional" } else { "" },
                reference.kind,
                reference.name
            )
        };
        if !matches!(reference.kind.as_str(), "ConfigMap" | "Secret") {
            return ComposedValues::Failed(describe("unsupported values reference kind"));
        }
        let id = ResourceId::new("v1", &reference.kind, namespace, &reference.name);
        let Some(object) = lookup(&id) else {
            // An optional object may still be published: wait for it until nothing more can
            // arrive, so the result never depends on build order.
            if !absent_is_final {
                waiting.push(id);
                continue;
            }
            if reference.optional {
                continue;
            }
            if let Some(producer) = declared(&id) {
                notes.push(format!(
                    "values from {} '{namespace}/{}' are left out: {producer} produces it in the cluster",
                    reference.kind, reference.name
                ));
                continue;
            }
            return ComposedValues::Failed(describe(&format!(
                "{}s \"{}\" not found; no Kustomization produces {} {namespace}/{} and no single \
                 repository file defines it (hint: supply it with `--substitute-from FILE`, whose \
                 objects without a namespace match any namespace)",
                reference.kind.to_lowercase(),
                reference.name,
                reference.kind,
                reference.name
            )));
        };
        let data = postbuild::data_of(object);
        let Some(text) = data.get(key) else {
            if reference.optional {
                continue;
            }
            return ComposedValues::Failed(describe("key not found"));
        };
        if text == SOPS_PLACEHOLDER && reference.target_path.is_none() {
            notes.push(format!(
                "values from {} '{namespace}/{}' are SOPS-encrypted and left out",
                reference.kind, reference.name
            ));
            continue;
        }
        let redact = redact_secret_values && reference.kind == "Secret";
        if let Some(path) = &reference.target_path {
            let text = if redact {
                crate::substitute::REDACTED
            } else {
                text
            };
            if let Err(error) = replace_path_value(&mut result, path, text) {
                return ComposedValues::Failed(describe(&format!(
                    "failed to merge value: {error}"
                )));
            }
            continue;
        }
        match crate::helm::values::from_yaml(text, key) {
            Ok(values) if redact => result = merge_maps(result, redacted(values)),
            Ok(values) => result = merge_maps(result, values),
            Err(error) => {
                return ComposedValues::Failed(describe(&format!(
                    "failed to read values data: {error}"
                )))
            }
        }
    }
    if !waiting.is_empty() {
        return ComposedValues::Wait(waiting);
    }
    if let Some(values) = inline_values {
        result = merge_maps(result, node_to_value(values));
    }
    ComposedValues::Ready {
        values: result,
        notes,
    }
}

/// `values` with every leaf (a string, number or boolean) replaced by `substitute::REDACTED`;
/// maps and lists keep their shape, so a chart still finds the keys it reads.
fn redacted(values: Value) -> Value {
    match values {
        Value::Map(map) => Value::map(
            std::sync::Arc::unwrap_or_clone(map)
                .into_iter()
                .map(|(key, value)| (key, redacted(value)))
                .collect(),
        ),
        Value::List(items) => Value::List(items.into_iter().map(redacted).collect()),
        Value::Nil => Value::Nil,
        _ => Value::String(crate::substitute::REDACTED.to_owned()),
    }
}

/// helm-controller's `ReplacePathValue`: `path=value` parsed as Helm's `--set` does, or as
/// `--set-string` (quotes trimmed) when the value is quoted.
fn replace_path_value(values: &mut Value, path: &str, value: &str) -> Result<(), String> {
    let quoted = |q: char| value.len() >= 2 && value.starts_with(q) && value.ends_with(q);
    let (value, as_string) = if quoted('\'') || quoted('"') {
        (value.trim_matches(|c| c == '\'' || c == '"'), true)
    } else {
        (value, false)
    };
    crate::helm::values::apply_set(&format!("{path}={value}"), values, as_string)
        .map_err(|e| e.to_string())
}

/// Inline `values` as helm-controller sees them: the object went to the API server as JSON
/// (kustomize's typing), and comes back through `json.Unmarshal` (numbers as float64).
pub(crate) fn node_to_value(node: &Node) -> Value {
    crate::template::from_serde(crate::yaml::to_json_kyaml(node))
}

/// Kinds that are not namespaced: a namespace is never defaulted onto them.
const CLUSTER_SCOPED: &[&str] = &[
    "APIService",
    "CSIDriver",
    "CSINode",
    "CertificateSigningRequest",
    "ClusterIssuer",
    "ClusterPolicy",
    "ClusterRole",
    "ClusterRoleBinding",
    "ClusterSecretStore",
    "ComponentStatus",
    "CustomResourceDefinition",
    "FlowSchema",
    "GatewayClass",
    "IngressClass",
    "MutatingAdmissionPolicy",
    "MutatingAdmissionPolicyBinding",
    "MutatingWebhookConfiguration",
    "Namespace",
    "Node",
    "PersistentVolume",
    "PodSecurityPolicy",
    "PriorityClass",
    "PriorityLevelConfiguration",
    "RuntimeClass",
    "StorageClass",
    "ValidatingAdmissionPolicy",
    "ValidatingAdmissionPolicyBinding",
    "ValidatingWebhookConfiguration",
    "VolumeAttachment",
];

pub(crate) fn is_cluster_scoped(kind: &str) -> bool {
    CLUSTER_SCOPED.contains(&kind)
}

/// The objects a release applies, after helm-controller's post-rendering: each kustomize
/// post-renderer in order, then origin labels and `commonMetadata`; then, as Helm's kube client
/// does when applying, the release namespace on namespaced objects that name none. CRDs from the
/// chart's `crds/` directory are applied as they are.
pub(crate) fn post_process(
    rendered: RenderedRelease,
    spec: &HelmRelease,
    name: &str,
    namespace: &str,
) -> Result<Vec<Node>, String> {
    // The origin labels name the HelmRelease where it is applied: `default` when it has no
    // namespace (as `release_namespace` says).
    let namespace = if namespace.is_empty() {
        "default"
    } else {
        namespace
    };
    let mut objects = rendered.objects;
    if let Some(Node::Sequence(renderers)) = &spec.post_renderers {
        for (index, renderer) in renderers.items.iter().enumerate() {
            if let Some(kustomize) = renderer.get("kustomize") {
                objects = kustomize_post_render(objects, kustomize)
                    .map_err(|e| format!("post-renderer {index}: {e}"))?;
            }
        }
    }
    let target = release_namespace(namespace, spec);
    for object in &mut objects {
        set_metadata(object, "labels", ORIGIN_NAME, name);
        set_metadata(object, "labels", ORIGIN_NAMESPACE, namespace);
        if let Some(common) = &spec.common_metadata {
            for (key, value) in &common.labels {
                set_metadata(object, "labels", key, value);
            }
            for (key, value) in &common.annotations {
                set_metadata(object, "annotations", key, value);
            }
        }
    }
    let mut all = rendered.crds;
    all.extend(objects);
    for object in &mut all {
        default_namespace(object, target);
    }
    Ok(all)
}

fn default_namespace(node: &mut Node, namespace: &str) {
    let kind = node.get("kind").and_then(Node::as_str).unwrap_or("");
    if is_cluster_scoped(kind) {
        return;
    }
    let present = node
        .get_path(&["metadata", "namespace"])
        .and_then(Node::as_str)
        .is_some_and(|n| !n.is_empty());
    if present {
        return;
    }
    if let Some(metadata) = node
        .as_mapping_mut()
        .and_then(|m| m.get_mut("metadata"))
        .and_then(Node::as_mapping_mut)
    {
        metadata.insert("namespace", Node::Scalar(Scalar::string(namespace)));
    }
}

/// One kustomize post-renderer: the rendered objects as the only resource of an in-memory
/// kustomization with the renderer's `patches`, `patchesStrategicMerge`, `patchesJson6902` and
/// `images`, built with no load restriction and in input order.
pub(crate) fn kustomize_post_render(objects: Vec<Node>, spec: &Node) -> Result<Vec<Node>, String> {
    const INPUT: &str = "helm-output.yaml";
    let mut kustomization = Mapping::new();
    let text = |s: &str| Node::Scalar(Scalar::string(s));
    kustomization.insert("apiVersion", text("kustomize.config.k8s.io/v1beta1"));
    kustomization.insert("kind", text("Kustomization"));
    kustomization.insert(
        "resources",
        Node::Sequence(Sequence {
            items: vec![text(INPUT)],
            ..Sequence::default()
        }),
    );
    for key in [
        "patches",
        "patchesStrategicMerge",
        "patchesJson6902",
        "images",
    ] {
        if let Some(value @ Node::Sequence(_)) = spec.get(key) {
            kustomization.insert(key, value.clone());
        }
    }
    // The rendered manifests are the build's only file, held in memory: nothing is written.
    let manifests = crate::yaml::emit_stream(&objects);
    let mount =
        crate::fsio::mount_files("post-render", vec![(INPUT.into(), manifests.into_bytes())])
            .map_err(|e| format!("holding the rendered manifests: {e}"))?;
    let dir = mount.path();
    let options = crate::kustomize::Options {
        load_restrictor: crate::kustomize::LoadRestrictor::None,
        reorder: crate::kustomize::Reorder::None,
        display_root: Some(dir.to_path_buf()),
        fs_root: Some(dir.to_path_buf()),
        kustomization_override: Some((dir.to_path_buf(), Node::Mapping(kustomization))),
        ..crate::kustomize::Options::default()
    };
    crate::kustomize::build(dir, &options)
        .map(|build| build.objects)
        .map_err(|e| e.to_string())
}

pub(crate) fn set_metadata(node: &mut Node, map: &str, key: &str, value: &str) {
    let Some(root) = node.as_mapping_mut() else {
        return;
    };
    if !root.contains_key("metadata") {
        root.insert("metadata", Node::Mapping(Mapping::default()));
    }
    let Some(metadata) = root.get_mut("metadata").and_then(Node::as_mapping_mut) else {
        return;
    };
    if metadata.get(map).is_none_or(|n| n.as_mapping().is_none()) {
        metadata.insert(map, Node::Mapping(Mapping::default()));
    }
    if let Some(target) = metadata.get_mut(map).and_then(Node::as_mapping_mut) {
        target.insert(key, Node::Scalar(Scalar::string(value)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nodes(text: &str) -> Vec<Node> {
        crate::yaml::parse_stream(text, &crate::yaml::ParseOptions::default())
            .unwrap_or_else(|e| panic!("{e}"))
            .into_iter()
            .map(|d| (*d.root).clone())
            .collect()
    }

    /// A kustomize post-renderer patches what the chart rendered, read from memory: nothing is
    /// written, and the patch, the image override and the untouched objects come out as kustomize
    /// builds them.
    #[test]
    fn a_kustomize_post_renderer_patches_the_rendered_objects_in_memory() {
        let rendered = nodes("apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: exporter, namespace: obs}\nspec:\n  template:\n    spec:\n      containers: [{name: app, image: ghcr.io/x/exporter:1.0}]\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings, namespace: obs}\n");
        let spec = nodes("patches:\n- target: {kind: DaemonSet, name: exporter}\n  patch: |\n    - op: add\n      path: /spec/template/spec/hostPID\n      value: true\nimages:\n- name: ghcr.io/x/exporter\n  newTag: '2.0'\n");
        let out = kustomize_post_render(rendered, &spec[0]).unwrap_or_else(|e| panic!("{e}"));
        let text = crate::yaml::emit_stream(&out);
        assert!(text.contains("hostPID: true"), "{text}");
        assert!(text.contains("image: ghcr.io/x/exporter:2.0"), "{text}");
        assert!(text.contains("name: settings"), "{text}");
    }

    fn spec(extra: &str) -> HelmRelease {
        let text = format!("apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {{name: app, namespace: apps}}\nspec:\n  chart:\n    spec:\n      chart: ./charts/app\n      sourceRef: {{kind: GitRepository, name: flux-system, namespace: flux-system}}\n{extra}");
        let object = crate::model::parse_objects(&text, std::path::Path::new("hr.yaml"))
            .ok()
            .and_then(|objects| objects.into_iter().next())
            .unwrap_or_else(|| panic!("object"));
        crate::model::FluxObject::from_object(&object)
            .ok()
            .flatten()
            .and_then(|f| f.as_helm_release().cloned())
            .unwrap_or_else(|| panic!("helm release"))
    }

    #[test]
    fn long_release_names_are_shortened_as_helm_controller_does() {
        assert_eq!(shorten_name("short"), "short");
        let exact = "a".repeat(53);
        assert_eq!(shorten_name(&exact), exact);
        let long = "some-front-appended-namespace-release-with-a-very-long-name";
        let short = shorten_name(long);
        assert_eq!(short.len(), 53);
        let sum = hex::encode(Sha256::digest(long.as_bytes()));
        assert_eq!(short, format!("{}-{}", &long[..40], &sum[..12]));
    }

    #[test]
    fn release_name_and_namespace_follow_target_namespace() {
        let plain = spec("");
        assert_eq!(release_name("app", &plain), "app");
        assert_eq!(release_namespace("apps", &plain), "apps");
        let targeted = spec("  targetNamespace: prod\n");
        assert_eq!(release_name("app", &targeted), "prod-app");
        assert_eq!(release_namespace("apps", &targeted), "prod");
        let named = spec("  targetNamespace: prod\n  releaseName: mine\n");
        assert_eq!(release_name("app", &named), "mine");
    }

    #[test]
    fn flux_merge_replaces_lists_and_merges_maps() {
        let base = node_to_value(
            &crate::yaml::parse_stream("a: {b: 1, c: [1]}\nd: x\n", &Default::default())
                .unwrap_or_default()
                .remove(0)
                .root,
        );
        let over = node_to_value(
            &crate::yaml::parse_stream("a: {c: [2], e: true}\n", &Default::default())
                .unwrap_or_default()
                .remove(0)
                .root,
        );
        let Value::Map(merged) = merge_maps(base, over) else {
            panic!("a map");
        };
        let Some(Value::Map(a)) = merged.get("a") else {
            panic!("a");
        };
        assert_eq!(a.get("b"), Some(&Value::Float(1.0)));
        assert_eq!(a.get("c"), Some(&Value::List(vec![Value::Float(2.0)])));
        assert_eq!(a.get("e"), Some(&Value::Bool(true)));
        assert_eq!(merged.get("d"), Some(&Value::String("x".into())));
    }

    #[test]
    fn namespaces_default_on_namespaced_objects_only() {
        let docs = crate::yaml::parse_stream(
            "kind: ConfigMap\nmetadata: {name: a}\n---\nkind: ClusterRole\nmetadata: {name: b}\n---\nkind: Service\nmetadata: {name: c, namespace: other}\n",
            &Default::default(),
        )
        .unwrap_or_default();
        let rendered = RenderedRelease {
            crds: Vec::new(),
            objects: docs.into_iter().map(|d| d.into_root()).collect(),
            ..RenderedRelease::default()
        };
        let out = post_process(rendered, &spec("  targetNamespace: prod\n"), "app", "apps")
            .unwrap_or_else(|e| panic!("{e}"));
        let namespaces: Vec<Option<&str>> = out
            .iter()
            .map(|n| {
                n.get_path(&["metadata", "namespace"])
                    .and_then(Node::as_str)
            })
            .collect();
        assert_eq!(namespaces, [Some("prod"), None, Some("other")]);
        let label = out[1]
            .get_path(&["metadata", "labels", ORIGIN_NAMESPACE])
            .and_then(Node::as_str);
        assert_eq!(label, Some("apps"));
    }
}
