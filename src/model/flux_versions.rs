//! The API versions each Flux CRD serves, as an explicit table: which `apiVersion` of a Flux kind
//! the API server accepts, which it accepts with a deprecation warning, and which only older Flux
//! releases served.
//!
//! The table reflects Flux v2.8 (source-controller v1.8, kustomize-controller v1.8,
//! helm-controller v1.5, notification-controller v1.8, as in the release's `gotk-components.yaml`
//! built from each controller's `config/crd/bases/*.yaml`), image-reflector-controller and
//! image-automation-controller v1.x (Flux v2.7 made the image APIs `v1`, keeping `v1beta2` served
//! and deprecated), flux-operator v0.x (`fluxcd.controlplane.io/v1`) and source-watcher
//! (`source.extensions.fluxcd.io/v1beta1`). Versions Flux v2.8 dropped are `Retired`, with the
//! first release known not to serve them: Flux v2.7 served `v1beta2` of the source and
//! Kustomization APIs and `v2beta2` of HelmRelease (deprecated); Flux v2.3 also served `v1beta1`
//! and `v2beta1`.
//!
//! Not for: kinds of other groups (Kubernetes' own retired APIs are `validate::api_versions`).

/// What a Flux CRD does with one version of its kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Served {
    /// Served and not deprecated.
    Current,
    /// Served, with the CRD's `deprecated: true`; the API server warns on every apply.
    Deprecated { replacement: &'static str },
    /// Not served by Flux from `since` on; earlier releases served it (a cluster on an older Flux
    /// still accepts it).
    Retired {
        since: &'static str,
        replacement: &'static str,
    },
    /// No Flux release served it: the apply fails with `no matches for kind`.
    Unknown { served: &'static [&'static str] },
}

use Served::{Current, Deprecated, Retired};

/// One Flux CRD: its group and kind, and each version it knows of.
struct Crd {
    group: &'static str,
    kind: &'static str,
    /// Versions the current release serves, newest (storage) first.
    served: &'static [&'static str],
    versions: &'static [(&'static str, Served)],
}

const SOURCE: &str = "source.toolkit.fluxcd.io";
const NOTIFICATION: &str = "notification.toolkit.fluxcd.io";
const IMAGE: &str = "image.toolkit.fluxcd.io";

const fn retired(since: &'static str, replacement: &'static str) -> Served {
    Retired { since, replacement }
}

/// `v1`, with `v1beta2` dropped in Flux v2.8 and `v1beta1` by v2.7 (the source APIs that went
/// through both betas).
const SOURCE_V1: &[(&str, Served)] = &[
    ("v1", Current),
    ("v1beta2", retired("v2.8", "v1")),
    ("v1beta1", retired("v2.7", "v1")),
];

const CRDS: &[Crd] = &[
    Crd {
        group: SOURCE,
        kind: "GitRepository",
        served: &["v1"],
        versions: SOURCE_V1,
    },
    Crd {
        group: SOURCE,
        kind: "HelmRepository",
        served: &["v1"],
        versions: SOURCE_V1,
    },
    Crd {
        group: SOURCE,
        kind: "HelmChart",
        served: &["v1"],
        versions: SOURCE_V1,
    },
    Crd {
        group: SOURCE,
        kind: "Bucket",
        served: &["v1"],
        versions: SOURCE_V1,
    },
    Crd {
        group: SOURCE,
        kind: "OCIRepository",
        served: &["v1"],
        versions: &[("v1", Current), ("v1beta2", retired("v2.8", "v1"))],
    },
    Crd {
        group: SOURCE,
        kind: "ExternalArtifact",
        served: &["v1"],
        versions: &[("v1", Current)],
    },
    Crd {
        group: crate::model::KUSTOMIZE_GROUP,
        kind: "Kustomization",
        served: &["v1"],
        versions: SOURCE_V1,
    },
    Crd {
        group: crate::model::HELM_GROUP,
        kind: "HelmRelease",
        served: &["v2"],
        versions: &[
            ("v2", Current),
            ("v2beta2", retired("v2.8", "v2")),
            ("v2beta1", retired("v2.7", "v2")),
        ],
    },
    Crd {
        group: NOTIFICATION,
        kind: "Alert",
        served: &["v1beta3", "v1beta2"],
        versions: &[
            ("v1beta3", Current),
            (
                "v1beta2",
                Deprecated {
                    replacement: "v1beta3",
                },
            ),
            ("v1beta1", retired("v2.7", "v1beta3")),
        ],
    },
    Crd {
        group: NOTIFICATION,
        kind: "Provider",
        served: &["v1beta3", "v1beta2"],
        versions: &[
            ("v1beta3", Current),
            (
                "v1beta2",
                Deprecated {
                    replacement: "v1beta3",
                },
            ),
            ("v1beta1", retired("v2.7", "v1beta3")),
        ],
    },
    Crd {
        group: NOTIFICATION,
        kind: "Receiver",
        served: &["v1", "v1beta2"],
        versions: &[
            ("v1", Current),
            ("v1beta2", Deprecated { replacement: "v1" }),
            ("v1beta1", retired("v2.7", "v1")),
        ],
    },
    Crd {
        group: IMAGE,
        kind: "ImageRepository",
        served: &["v1", "v1beta2"],
        versions: IMAGE_V1,
    },
    Crd {
        group: IMAGE,
        kind: "ImagePolicy",
        served: &["v1", "v1beta2"],
        versions: IMAGE_V1,
    },
    Crd {
        group: IMAGE,
        kind: "ImageUpdateAutomation",
        served: &["v1", "v1beta2"],
        versions: IMAGE_V1,
    },
    Crd {
        group: crate::model::CONTROLPLANE_GROUP,
        kind: "FluxInstance",
        served: &["v1"],
        versions: &[("v1", Current)],
    },
    Crd {
        group: crate::model::CONTROLPLANE_GROUP,
        kind: "ResourceSet",
        served: &["v1"],
        versions: &[("v1", Current)],
    },
    Crd {
        group: crate::model::CONTROLPLANE_GROUP,
        kind: "ResourceSetInputProvider",
        served: &["v1"],
        versions: &[("v1", Current)],
    },
    Crd {
        group: crate::model::SOURCE_EXTENSIONS_GROUP,
        kind: "ArtifactGenerator",
        served: &["v1beta1"],
        versions: &[("v1beta1", Current)],
    },
];

/// The image APIs: `v1` since Flux v2.7, `v1beta2` still served and deprecated, `v1beta1` served
/// by releases before the image APIs reached `v1`.
const IMAGE_V1: &[(&str, Served)] = &[
    ("v1", Current),
    ("v1beta2", Deprecated { replacement: "v1" }),
    ("v1beta1", retired("v2.7", "v1")),
];

/// What Flux's CRD for `group`/`kind` does with `version`; `None` when the pair is not a Flux
/// kind the table knows.
pub fn served_version(group: &str, kind: &str, version: &str) -> Option<Served> {
    let crd = CRDS.iter().find(|c| c.group == group && c.kind == kind)?;
    Some(
        crd.versions
            .iter()
            .find(|(name, _)| *name == version)
            .map_or(Served::Unknown { served: crd.served }, |(_, served)| {
                *served
            }),
    )
}

/// The API server's answer to an apply of a kind in a version no CRD serves, as
/// `meta.NoKindMatchError` spells it (what `flux` and kustomize-controller's apply report).
pub fn no_kind_match(kind: &str, group: &str, version: &str) -> String {
    format!("no matches for kind \"{kind}\" in version \"{group}/{version}\"")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_flux_kind_is_in_the_table_with_its_storage_version() {
        for kind in crate::model::FluxKind::ALL {
            let crd = CRDS
                .iter()
                .find(|c| c.group == kind.group() && c.kind == kind.as_str());
            let crd = crd.unwrap_or_else(|| panic!("{kind:?} has no row"));
            assert_eq!(
                served_version(crd.group, crd.kind, crd.served[0]),
                Some(Current)
            );
        }
    }

    #[test]
    fn served_lists_agree_with_the_versions() {
        for crd in CRDS {
            for (version, served) in crd.versions {
                let listed = crd.served.contains(version);
                let serves = matches!(served, Current | Deprecated { .. });
                assert_eq!(listed, serves, "{} {} {version}", crd.group, crd.kind);
            }
        }
    }

    #[test]
    fn unserved_versions_are_unknown_and_retired_ones_name_their_release() {
        assert_eq!(
            served_version("helm.toolkit.fluxcd.io", "HelmRelease", "v2beta9"),
            Some(Served::Unknown { served: &["v2"] })
        );
        assert_eq!(
            served_version("helm.toolkit.fluxcd.io", "HelmRelease", "v2beta2"),
            Some(retired("v2.8", "v2"))
        );
        assert_eq!(
            served_version(NOTIFICATION, "Alert", "v1beta2"),
            Some(Deprecated {
                replacement: "v1beta3"
            })
        );
        assert_eq!(served_version("example.com", "HelmRelease", "v2"), None);
        assert_eq!(
            no_kind_match("HelmRelease", "helm.toolkit.fluxcd.io", "v2beta9"),
            "no matches for kind \"HelmRelease\" in version \"helm.toolkit.fluxcd.io/v2beta9\""
        );
    }
}
