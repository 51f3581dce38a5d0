//! `ResourceId`: how a Kubernetes object is named.

use compact_str::CompactString;
use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};

use crate::yaml::same_text;

/// Group, version, kind, namespace and name of an object. Identity ignores the version: the same
/// object served under `v1beta2` and `v1` is one object, as the API server sees it.
#[derive(Clone, Debug, Default)]
pub struct ResourceId {
    pub group: CompactString,
    pub version: CompactString,
    pub kind: CompactString,
    /// Empty for cluster-scoped objects and for namespaced objects that have not been given one yet.
    pub namespace: CompactString,
    pub name: CompactString,
}

impl ResourceId {
    /// Builds an id from an `apiVersion` (`group/version` or a core `version`) and the rest.
    pub fn new(api_version: &str, kind: &str, namespace: &str, name: &str) -> Self {
        let (group, version) = split_api_version(api_version);
        ResourceId {
            group: group.into(),
            version: version.into(),
            kind: kind.into(),
            namespace: namespace.into(),
            name: name.into(),
        }
    }

    pub fn api_version(&self) -> String {
        if self.group.is_empty() {
            self.version.to_string()
        } else {
            format!("{}/{}", self.group, self.version)
        }
    }

    fn identity(&self) -> (&str, &str, &str, &str) {
        (&self.group, &self.kind, &self.namespace, &self.name)
    }
}

/// Splits `apps/v1` into (`apps`, `v1`) and `v1` into (``, `v1`).
pub fn split_api_version(api_version: &str) -> (&str, &str) {
    match api_version.rsplit_once('/') {
        Some((group, version)) => (group, version),
        None => ("", api_version),
    }
}

impl PartialEq for ResourceId {
    fn eq(&self, other: &Self) -> bool {
        // Name first: ids that differ mostly differ there.
        same_text(&self.name, &other.name)
            && same_text(&self.kind, &other.kind)
            && same_text(&self.namespace, &other.namespace)
            && same_text(&self.group, &other.group)
    }
}

/// `a.cmp(b)`, deciding on the first bytes where they differ before the library call.
fn text_order(a: &str, b: &str) -> Ordering {
    match (a.as_bytes().first(), b.as_bytes().first()) {
        (Some(x), Some(y)) if x != y => x.cmp(y),
        _ => a.cmp(b),
    }
}

impl Eq for ResourceId {}

impl Hash for ResourceId {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.identity().hash(state);
    }
}

impl PartialOrd for ResourceId {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for ResourceId {
    fn cmp(&self, other: &Self) -> Ordering {
        // Kind first, so sorted listings group objects the way people scan them.
        text_order(&self.kind, &other.kind)
            .then_with(|| text_order(&self.namespace, &other.namespace))
            .then_with(|| text_order(&self.name, &other.name))
            .then_with(|| text_order(&self.group, &other.group))
    }
}

impl fmt::Display for ResourceId {
    /// `Kind/namespace/name`, or `Kind/name` when there is no namespace.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.namespace.is_empty() {
            write!(f, "{}/{}", self.kind, self.name)
        } else {
            write!(f, "{}/{}/{}", self.kind, self.namespace, self.name)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identity_ignores_version() {
        let a = ResourceId::new(
            "kustomize.toolkit.fluxcd.io/v1",
            "Kustomization",
            "flux-system",
            "apps",
        );
        let b = ResourceId::new(
            "kustomize.toolkit.fluxcd.io/v1beta2",
            "Kustomization",
            "flux-system",
            "apps",
        );
        assert_eq!(a, b);
        assert_eq!(a.api_version(), "kustomize.toolkit.fluxcd.io/v1");
        assert_eq!(a.to_string(), "Kustomization/flux-system/apps");
    }

    #[test]
    fn core_group_is_empty() {
        let id = ResourceId::new("v1", "ConfigMap", "", "x");
        assert_eq!((id.group.as_str(), id.version.as_str()), ("", "v1"));
        assert_eq!(id.to_string(), "ConfigMap/x");
    }

    #[test]
    fn group_distinguishes() {
        let flux = ResourceId::new("helm.toolkit.fluxcd.io/v2", "HelmRelease", "a", "b");
        let other = ResourceId::new("example.com/v1", "HelmRelease", "a", "b");
        assert_ne!(flux, other);
    }

    #[test]
    fn ids_order_by_kind_namespace_name_then_group_and_equal_by_all_four() {
        let words = ["", "a", "ab", "b", "B", "é", "a-b"];
        let mut ids = Vec::new();
        for group in ["", "apps"] {
            for kind in words {
                for namespace in words {
                    for name in words {
                        let api_version = if group.is_empty() {
                            "v1".to_owned()
                        } else {
                            format!("{group}/v1")
                        };
                        ids.push(ResourceId::new(&api_version, kind, namespace, name));
                    }
                }
            }
        }
        for a in &ids {
            for b in &ids {
                let by_tuple = (&a.kind, &a.namespace, &a.name, &a.group).cmp(&(
                    &b.kind,
                    &b.namespace,
                    &b.name,
                    &b.group,
                ));
                assert_eq!(a.cmp(b), by_tuple, "{a:?} {b:?}");
                assert_eq!(a == b, by_tuple.is_eq(), "{a:?} {b:?}");
            }
        }
    }
}
