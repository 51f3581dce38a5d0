//! The Flux Operator's FluxInstance, as far as it decides what a repository applies: the source
//! and Kustomization `spec.sync` generates (named `spec.sync.name`, by default the instance's
//! namespace, in that namespace), the admission rules on `spec.sync`, and the metadata the
//! operator's build and apply give them (`kustomize.toolkit.fluxcd.io/ssa: Ignore`, the
//! operator's labels, owner labels, then `spec.commonMetadata`). `spec.kustomize.patches` are
//! applied by the caller, between generating and labelling, as the operator's kustomize build
//! does.
//!
//! Not for: the Flux distribution (controllers, CRDs, RBAC), which comes from an artifact that is
//! not available offline; the Store or scheduling.

use serde_json::{json, Map, Value as Json};

use crate::model::{CommonMetadata, FluxSync};
use crate::yaml::{Node, Scalar};

pub(crate) const GROUP_VERSION: &str = "fluxcd.controlplane.io/v1";

/// The kinds `spec.sync.kind` may name.
const SYNC_KINDS: [&str; 3] = ["GitRepository", "OCIRepository", "Bucket"];

/// A Flux version as the operator compares it: major and minor; `None` for the minor of a
/// range such as `2.x`, which resolves to the newest release of the major.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct FluxVersion {
    pub major: u64,
    pub minor: Option<u64>,
}

impl FluxVersion {
    /// Reads `2.3.0`, `v2.3`, `2.7.x`, `2.x`, `>=2.6.0`.
    pub(crate) fn parse(text: &str) -> Result<FluxVersion, String> {
        let trimmed = text
            .trim()
            .trim_start_matches(['>', '<', '=', '~', '^', ' '])
            .trim_start_matches('v');
        let mut parts = trimmed.split('.');
        let error = || format!("failed to parse Flux version '{text}'");
        let major = parts
            .next()
            .and_then(|m| m.parse::<u64>().ok())
            .ok_or_else(error)?;
        let minor = match parts.next() {
            None | Some("x" | "X" | "*") => None,
            Some(minor) => Some(minor.parse::<u64>().map_err(|_| error())?),
        };
        Ok(FluxVersion { major, minor })
    }

    /// Whether this version (the newest of a range) is at least `major.minor`.
    pub(crate) fn at_least(self, major: u64, minor: u64) -> bool {
        self.major > major || (self.major == major && self.minor.is_none_or(|m| m >= minor))
    }

    /// The `app.kubernetes.io/version` label: only an exact version is known offline.
    fn exact(text: &str) -> Option<String> {
        let bare = text.trim().trim_start_matches('v');
        let parts: Vec<&str> = bare.split('.').collect();
        let exact = parts.len() == 3 && parts.iter().all(|p| p.parse::<u64>().is_ok());
        exact.then(|| format!("v{bare}"))
    }
}

/// `spec.sync` admission: the CRD's rules on kind and provider, and the operator's version gate
/// (`provider: aws` on a GitRepository needs Flux 2.9.0). `flux_version` is only read when a
/// rule needs it.
pub fn validate_sync(
    flux_version: Option<&str>,
    kind: &str,
    provider: Option<&str>,
) -> Result<(), String> {
    if !SYNC_KINDS.contains(&kind) {
        return Err(format!(
            "sync.kind '{kind}' must be one of {}",
            SYNC_KINDS.join(", ")
        ));
    }
    match (provider, kind) {
        (Some("gcp"), "GitRepository") => {
            Err("sync.provider 'gcp' is only supported for OCIRepository and Bucket".into())
        }
        (Some("github"), "OCIRepository" | "Bucket") => {
            Err("sync.provider 'github' is only supported for GitRepository".into())
        }
        (Some("aws"), "GitRepository") => {
            let version = FluxVersion::parse(flux_version.unwrap_or("2.x"))?;
            if version.at_least(2, 9) {
                Ok(())
            } else {
                Err(format!(
                    "sync.provider 'aws' for GitRepository requires Flux version >= 2.9.0, got '{}'",
                    flux_version.unwrap_or_default()
                ))
            }
        }
        _ => Ok(()),
    }
}

/// The API version of a generated source: OCIRepository and Bucket are `v1` from Flux 2.6.0 on.
pub(crate) fn source_api_version(kind: &str, flux_version: Option<&str>) -> &'static str {
    let v1 = kind == "GitRepository"
        || flux_version
            .map_or(
                Ok(FluxVersion {
                    major: 2,
                    minor: None,
                }),
                FluxVersion::parse,
            )
            .map_or(true, |v| v.at_least(2, 6));
    if v1 {
        "source.toolkit.fluxcd.io/v1"
    } else {
        "source.toolkit.fluxcd.io/v1beta2"
    }
}

/// The name of the generated objects.
pub(crate) fn sync_name<'a>(sync: &'a FluxSync, namespace: &'a str) -> &'a str {
    sync.name.as_deref().unwrap_or(namespace)
}

/// The interval as the operator prints the `metav1.Duration` it parsed (`time.ParseDuration`, then
/// `Duration.String()`: `5m` is `5m0s`, `90s` is `1m30s`); anything Go cannot parse as written.
pub(crate) fn go_duration(text: &str) -> String {
    use crate::golang::duration::{format_duration, parse_duration};
    parse_duration(text).map_or_else(|_| text.to_string(), format_duration)
}

/// The source and the Kustomization `spec.sync` generates, in the instance's namespace, before
/// patches and metadata. `interval` is the source's interval as the operator prints it.
pub(crate) fn sync_objects(
    namespace: &str,
    sync: &FluxSync,
    flux_version: Option<&str>,
    interval: &str,
) -> Vec<Json> {
    let name = sync_name(sync, namespace);
    let mut spec = Map::new();
    spec.insert("interval".into(), json!(interval));
    match sync.kind.as_str() {
        "OCIRepository" => {
            spec.insert("ref".into(), json!({"tag": sync.reference}));
            spec.insert("url".into(), json!(sync.url));
        }
        "Bucket" => {
            spec.insert("bucketName".into(), json!(sync.reference));
            spec.insert("endpoint".into(), json!(sync.url));
        }
        _ => {
            spec.insert("ref".into(), json!({"name": sync.reference}));
            spec.insert("url".into(), json!(sync.url));
        }
    }
    if let Some(secret) = &sync.pull_secret {
        spec.insert("secretRef".into(), json!({"name": secret}));
    }
    if let Some(provider) = &sync.provider {
        spec.insert("provider".into(), json!(provider));
    }
    let source = json!({
        "apiVersion": source_api_version(&sync.kind, flux_version),
        "kind": sync.kind,
        "metadata": {"name": name, "namespace": namespace},
        "spec": spec,
    });
    let kustomization = json!({
        "apiVersion": "kustomize.toolkit.fluxcd.io/v1",
        "kind": "Kustomization",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {
            "interval": "10m0s",
            "path": sync.path,
            "prune": true,
            "sourceRef": {"kind": sync.kind, "name": name},
        },
    });
    vec![source, kustomization]
}

/// What the operator's build and apply add to every generated object, after the patches: the
/// namespace, the `ssa`/`prune` annotations and the operator's labels, the owner labels, then
/// `commonMetadata`, which wins.
fn finish(
    object: &mut Node,
    instance: &str,
    namespace: &str,
    flux_version: Option<&str>,
    common: Option<&CommonMetadata>,
) {
    use super::helmrelease::set_metadata;
    if let Some(metadata) = object
        .as_mapping_mut()
        .and_then(|m| m.get_mut("metadata"))
        .and_then(Node::as_mapping_mut)
    {
        metadata.insert("namespace", Node::Scalar(Scalar::string(namespace)));
    }
    set_metadata(
        object,
        "annotations",
        "kustomize.toolkit.fluxcd.io/ssa",
        "Ignore",
    );
    set_metadata(
        object,
        "annotations",
        "kustomize.toolkit.fluxcd.io/prune",
        "Disabled",
    );
    set_metadata(
        object,
        "labels",
        "app.kubernetes.io/managed-by",
        "flux-operator",
    );
    set_metadata(object, "labels", "app.kubernetes.io/instance", namespace);
    if let Some(version) = flux_version.and_then(FluxVersion::exact) {
        set_metadata(object, "labels", "app.kubernetes.io/version", &version);
    }
    set_metadata(object, "labels", "app.kubernetes.io/part-of", "flux");
    set_metadata(object, "labels", "fluxcd.controlplane.io/name", instance);
    set_metadata(
        object,
        "labels",
        "fluxcd.controlplane.io/namespace",
        namespace,
    );
    if let Some(common) = common {
        for (key, value) in &common.labels {
            set_metadata(object, "labels", key, value);
        }
        for (key, value) in &common.annotations {
            set_metadata(object, "annotations", key, value);
        }
    }
}

/// What one FluxInstance generates from its `spec.sync`.
pub struct Generate<'a> {
    /// The instance's name (`flux`), for the owner labels.
    pub instance: &'a str,
    pub namespace: &'a str,
    pub sync: &'a FluxSync,
    /// `spec.distribution.version`.
    pub version: Option<&'a str>,
    /// The source's interval as the operator prints it (see [`go_duration`]).
    pub interval: &'a str,
    /// `spec.kustomize.patches`.
    pub patches: Option<&'a Node>,
    pub common_metadata: Option<&'a CommonMetadata>,
}

/// The source and Kustomization an instance generates, patched and labelled, in that order.
pub fn generate(request: &Generate) -> Result<Vec<Node>, String> {
    let mut objects: Vec<Node> = sync_objects(
        request.namespace,
        request.sync,
        request.version,
        request.interval,
    )
    .iter()
    .map(crate::yaml::from_json)
    .collect();
    if let Some(patches @ Node::Sequence(_)) = request.patches {
        let mut spec = crate::yaml::Mapping::new();
        spec.insert("patches", patches.clone());
        objects = super::helmrelease::kustomize_post_render(objects, &Node::Mapping(spec))
            .map_err(|message| format!("spec.kustomize.patches: {message}"))?;
    }
    for object in &mut objects {
        finish(
            object,
            request.instance,
            request.namespace,
            request.version,
            request.common_metadata,
        );
    }
    Ok(objects)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intervals_print_as_go_durations() {
        assert_eq!(go_duration("1m"), "1m0s");
        assert_eq!(go_duration("5m"), "5m0s");
        assert_eq!(go_duration("1h"), "1h0m0s");
        assert_eq!(go_duration("90s"), "1m30s");
        assert_eq!(go_duration("30s"), "30s");
        assert_eq!(go_duration("1.5s"), "1.5s");
    }

    #[test]
    fn versions_gate_api_versions() {
        assert_eq!(
            source_api_version("OCIRepository", Some("v2.3.0")),
            "source.toolkit.fluxcd.io/v1beta2"
        );
        assert_eq!(
            source_api_version("Bucket", Some("2.6.0")),
            "source.toolkit.fluxcd.io/v1"
        );
        assert_eq!(
            source_api_version("OCIRepository", Some("2.x")),
            "source.toolkit.fluxcd.io/v1"
        );
        assert!(FluxVersion::parse("not-a-version").is_err());
        assert_eq!(FluxVersion::exact("2.7.x"), None);
        assert_eq!(FluxVersion::exact("2.3.0").as_deref(), Some("v2.3.0"));
    }
}
