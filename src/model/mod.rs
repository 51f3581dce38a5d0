//! The object model: `ResourceId`, objects as read from files, and typed views of Flux objects.
//!
//! Not for: fetching, rendering or deciding anything; views only validate and expose fields.

mod fields;
mod flux;
mod flux_crds;
mod flux_versions;
mod id;
mod object;

pub use fields::{FieldError, Fields};
pub use flux::{
    ArtifactCopy, ArtifactGenerator, ChartSource, CommonMetadata, CrdPolicy, CrossRef, DataRef,
    DependsOn, FluxInstance, FluxKind, FluxObject, FluxSpec, FluxSync, GeneratedArtifact,
    HelmChartTemplate, HelmRelease, Kustomization, PostBuild, ResourceSet, SourceSpec,
    CONTROLPLANE_GROUP, HELM_GROUP, KUSTOMIZE_GROUP, SOURCE_EXTENSIONS_GROUP, SOURCE_GROUP,
};
pub use flux_crds::flux_crds;
pub use flux_versions::{no_kind_match, served_version, Served};
pub use id::{split_api_version, ResourceId};
pub use object::{is_sops_document, parse_objects, ModelError, Object};
