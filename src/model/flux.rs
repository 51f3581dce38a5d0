//! Typed views of Flux objects: the fields offlux acts on, validated, with the rest kept as data in
//! the object's tree. A kind name under a group that is not Flux's (a foreign CRD that also calls
//! itself `Kustomization`) is not a Flux object.

use std::collections::BTreeMap;

use super::fields::{FieldResult, Fields};
use super::flux_versions::{no_kind_match, served_version, Served};
use super::object::{ModelError, Object};
use crate::yaml::{Node, Pos};

pub const KUSTOMIZE_GROUP: &str = "kustomize.toolkit.fluxcd.io";
pub const HELM_GROUP: &str = "helm.toolkit.fluxcd.io";
pub const SOURCE_GROUP: &str = "source.toolkit.fluxcd.io";
pub const CONTROLPLANE_GROUP: &str = "fluxcd.controlplane.io";
pub const SOURCE_EXTENSIONS_GROUP: &str = "source.extensions.fluxcd.io";

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum FluxKind {
    Kustomization,
    HelmRelease,
    GitRepository,
    OCIRepository,
    HelmRepository,
    HelmChart,
    Bucket,
    ExternalArtifact,
    ResourceSet,
    ResourceSetInputProvider,
    ArtifactGenerator,
    FluxInstance,
}

impl FluxKind {
    pub const ALL: [FluxKind; 12] = [
        FluxKind::Kustomization,
        FluxKind::HelmRelease,
        FluxKind::GitRepository,
        FluxKind::OCIRepository,
        FluxKind::HelmRepository,
        FluxKind::HelmChart,
        FluxKind::Bucket,
        FluxKind::ExternalArtifact,
        FluxKind::ResourceSet,
        FluxKind::ResourceSetInputProvider,
        FluxKind::ArtifactGenerator,
        FluxKind::FluxInstance,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            FluxKind::Kustomization => "Kustomization",
            FluxKind::HelmRelease => "HelmRelease",
            FluxKind::GitRepository => "GitRepository",
            FluxKind::OCIRepository => "OCIRepository",
            FluxKind::HelmRepository => "HelmRepository",
            FluxKind::HelmChart => "HelmChart",
            FluxKind::Bucket => "Bucket",
            FluxKind::ExternalArtifact => "ExternalArtifact",
            FluxKind::ResourceSet => "ResourceSet",
            FluxKind::ResourceSetInputProvider => "ResourceSetInputProvider",
            FluxKind::ArtifactGenerator => "ArtifactGenerator",
            FluxKind::FluxInstance => "FluxInstance",
        }
    }

    pub fn group(self) -> &'static str {
        match self {
            FluxKind::Kustomization => KUSTOMIZE_GROUP,
            FluxKind::HelmRelease => HELM_GROUP,
            FluxKind::ResourceSet | FluxKind::ResourceSetInputProvider | FluxKind::FluxInstance => {
                CONTROLPLANE_GROUP
            }
            FluxKind::ArtifactGenerator => SOURCE_EXTENSIONS_GROUP,
            FluxKind::GitRepository
            | FluxKind::OCIRepository
            | FluxKind::HelmRepository
            | FluxKind::HelmChart
            | FluxKind::Bucket
            | FluxKind::ExternalArtifact => SOURCE_GROUP,
        }
    }

    /// The Flux kind for a group and kind, or None when the pair is not Flux's.
    pub(crate) fn from_group_kind(group: &str, kind: &str) -> Option<FluxKind> {
        FluxKind::ALL
            .into_iter()
            .find(|k| k.as_str() == kind && k.group() == group)
    }

    pub(crate) fn from_kind(kind: &str) -> Option<FluxKind> {
        FluxKind::ALL.into_iter().find(|k| k.as_str() == kind)
    }

    /// Whether this source's artifact is a file tree a Kustomization builds from (its
    /// `sourceRef`), and so one that `--sources` can map to a local directory.
    pub(crate) fn is_file_tree_source(self) -> bool {
        matches!(
            self,
            FluxKind::GitRepository
                | FluxKind::OCIRepository
                | FluxKind::Bucket
                | FluxKind::ExternalArtifact
        )
    }

    pub(crate) fn is_source(self) -> bool {
        matches!(
            self,
            FluxKind::GitRepository
                | FluxKind::OCIRepository
                | FluxKind::HelmRepository
                | FluxKind::HelmChart
                | FluxKind::Bucket
                | FluxKind::ExternalArtifact
                | FluxKind::ArtifactGenerator
        )
    }
}

/// A reference to another object (`sourceRef`, `chartRef`). An empty namespace means "the
/// referrer's own namespace".
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct CrossRef {
    pub api_version: Option<String>,
    pub kind: String,
    pub name: String,
    pub namespace: String,
}

/// One `dependsOn` entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DependsOn {
    /// Set when the entry names another kind (`kind:`); otherwise the referrer's own kind.
    pub kind: Option<String>,
    pub api_version: Option<String>,
    pub name: String,
    pub namespace: String,
    /// A CEL expression deciding readiness (Flux `readyExpr`).
    pub ready_expr: Option<String>,
}

/// A `substituteFrom` or `valuesFrom` reference to a ConfigMap or Secret.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DataRef {
    pub kind: String,
    pub name: String,
    pub optional: bool,
    /// `valuesKey` of a HelmRelease `valuesFrom` (default `values.yaml`).
    pub values_key: Option<String>,
    /// `targetPath` of a HelmRelease `valuesFrom`.
    pub target_path: Option<String>,
    pub pos: Pos,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct PostBuild {
    pub substitute: BTreeMap<String, String>,
    pub substitute_from: Vec<DataRef>,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct CommonMetadata {
    pub labels: BTreeMap<String, String>,
    pub annotations: BTreeMap<String, String>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Kustomization {
    pub path: String,
    pub source_ref: CrossRef,
    pub depends_on: Vec<DependsOn>,
    pub target_namespace: Option<String>,
    pub name_prefix: Option<String>,
    pub name_suffix: Option<String>,
    pub suspend: bool,
    pub post_build: Option<PostBuild>,
    pub components: Vec<String>,
    pub common_metadata: Option<CommonMetadata>,
    pub patches: Option<Node>,
    pub images: Option<Node>,
    pub decryption: bool,
    /// `spec.wait`: every object applied is health-checked.
    pub wait: bool,
    /// `spec.healthChecks`: the objects health-checked when `wait` is off.
    pub health_checks: Vec<CrossRef>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct HelmChartTemplate {
    pub chart: String,
    pub version: Option<String>,
    pub source_ref: CrossRef,
    pub values_files: Vec<String>,
    /// `ignoreMissingValuesFiles`: a values file that does not exist is skipped, not an error.
    pub ignore_missing_values_files: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ChartSource {
    /// `spec.chart.spec`: a chart from a HelmRepository, GitRepository or Bucket.
    Template(HelmChartTemplate),
    /// `spec.chartRef`: an OCIRepository or HelmChart.
    Ref(CrossRef),
}

/// `spec.install.crds`: what an install does with the chart's `crds/` directory.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CrdPolicy {
    Skip,
    #[default]
    Create,
    CreateReplace,
}

#[derive(Clone, Debug, PartialEq)]
pub struct HelmRelease {
    pub chart: ChartSource,
    pub release_name: Option<String>,
    pub target_namespace: Option<String>,
    pub storage_namespace: Option<String>,
    pub depends_on: Vec<DependsOn>,
    pub values_from: Vec<DataRef>,
    pub suspend: bool,
    pub post_renderers: Option<Node>,
    pub common_metadata: Option<CommonMetadata>,
    /// `spec.install.crds` (offline every render is a first install, so `upgrade.crds` is moot).
    pub install_crds: CrdPolicy,
    /// `spec.install.disableHooks`: hooks are left out of the release.
    pub disable_hooks: bool,
    /// `spec.install.disableSchemaValidation`: `values.schema.json` is not checked.
    pub disable_schema_validation: bool,
    /// `spec.install.disableOpenAPIValidation`: nothing to switch off offline; kept for reports.
    pub disable_openapi_validation: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub struct SourceSpec {
    /// `spec.url` (GitRepository, OCIRepository, HelmRepository), `spec.endpoint` for a Bucket.
    pub url: Option<String>,
    /// A human summary of the revision asked for: `branch main`, `tag v1`, `semver >=1.0`.
    pub reference: Option<String>,
    /// HelmRepository `spec.type` (`default` or `oci`).
    pub repository_type: Option<String>,
    /// HelmChart: the chart, its version and the source it comes from.
    pub chart: Option<HelmChartTemplate>,
    /// GitRepository `spec.ignore`.
    pub ignore: Option<String>,
    /// `spec.secretRef.name`: the Secret holding the repository's credentials.
    pub secret_ref: Option<String>,
    pub suspend: bool,
    /// `spec.insecure`: plain HTTP (an OCIRepository's or OCI HelmRepository's registry).
    pub insecure: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ResourceSet {
    pub depends_on: Vec<DependsOn>,
    pub inputs_from: Vec<CrossRef>,
}

/// One `copy` of an ArtifactGenerator artifact: `from` (`@alias/path`) to `to` (`@artifact/dir/`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArtifactCopy {
    pub from: String,
    pub to: String,
    /// Glob patterns (doublestar) of files and directories left out.
    pub exclude: Vec<String>,
    /// `Overwrite` (the default, also when empty), `Merge` or `Extract`.
    pub strategy: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GeneratedArtifact {
    pub name: String,
    pub copies: Vec<ArtifactCopy>,
}

/// An ArtifactGenerator (source.extensions.fluxcd.io): ExternalArtifacts assembled from sources.
#[derive(Clone, Debug, PartialEq)]
pub struct ArtifactGenerator {
    /// `alias` → the source it names.
    pub sources: Vec<(String, CrossRef)>,
    pub artifacts: Vec<GeneratedArtifact>,
}

/// A FluxInstance's `spec.sync`: the source and Kustomization the operator generates.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FluxSync {
    /// `GitRepository`, `OCIRepository` or `Bucket` (checked when the instance reconciles).
    pub kind: String,
    pub url: String,
    /// A Git reference, an OCI tag or a bucket name, by kind.
    pub reference: String,
    pub path: String,
    /// The generated objects' name; the instance's namespace when unset.
    pub name: Option<String>,
    pub interval: Option<String>,
    pub pull_secret: Option<String>,
    pub provider: Option<String>,
}

/// A FluxInstance (fluxcd.controlplane.io): offline, only its `spec.sync` is acted on.
#[derive(Clone, Debug, PartialEq)]
pub struct FluxInstance {
    pub sync: Option<FluxSync>,
    /// `spec.distribution.version`, which decides the generated sources' API versions.
    pub version: Option<String>,
    /// `spec.kustomize.patches`: kustomize patches applied to everything the instance generates.
    pub patches: Option<Node>,
    pub common_metadata: Option<CommonMetadata>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum FluxSpec {
    Kustomization(Kustomization),
    HelmRelease(HelmRelease),
    Source(SourceSpec),
    ResourceSet(ResourceSet),
    ResourceSetInputProvider,
    ArtifactGenerator(ArtifactGenerator),
    FluxInstance(FluxInstance),
}

/// A Flux object: the object as read, its kind, and its validated spec.
#[derive(Clone, Debug, PartialEq)]
pub struct FluxObject {
    pub object: Object,
    pub kind: FluxKind,
    pub spec: FluxSpec,
}

impl FluxObject {
    /// Validates a Flux object's spec. `Ok(None)` when the object is not a Flux object.
    pub fn from_object(object: &Object) -> Result<Option<FluxObject>, ModelError> {
        let Some(kind) = FluxKind::from_group_kind(&object.id.group, &object.id.kind) else {
            return Ok(None);
        };
        // The label is only spelled out for an error: most objects read cleanly.
        let label = || Some(object.id.to_string());
        let err = |e| ModelError::from_field(object.file.clone(), label(), e);
        if object.id.name.is_empty() {
            return Err(ModelError {
                file: object.file.clone(),
                pos: object.pos,
                object: Some(format!("{}/?", kind.as_str())),
                message: "`metadata.name` is required".into(),
            });
        }
        let version = object.id.version.as_str();
        if let Some(Served::Unknown { served }) =
            served_version(&object.id.group, &object.id.kind, version)
        {
            // The API server refuses the apply before any controller sees the object.
            let pos = object
                .node
                .get("apiVersion")
                .map_or(object.pos, |node| node.pos());
            return Err(ModelError {
                file: object.file.clone(),
                pos,
                object: label(),
                message: format!(
                    "{} (the CRD serves {})",
                    no_kind_match(&object.id.kind, &object.id.group, version),
                    served
                        .iter()
                        .map(|v| format!("`{}/{v}`", object.id.group))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            });
        }
        let empty = crate::yaml::Mapping::new();
        let root = object.node.as_mapping().unwrap_or(&empty);
        let top = Fields::new(root, "");
        let spec_fields = match top.map("spec").map_err(err)? {
            Some(spec) => spec,
            None if kind == FluxKind::ResourceSetInputProvider => Fields::new(&empty, "spec"),
            None => {
                return Err(ModelError {
                    file: object.file.clone(),
                    pos: object.pos,
                    object: label(),
                    message: "`spec` is required".into(),
                })
            }
        };
        let spec = match kind {
            FluxKind::Kustomization => {
                FluxSpec::Kustomization(read_kustomization(&spec_fields).map_err(err)?)
            }
            FluxKind::HelmRelease => {
                FluxSpec::HelmRelease(read_helm_release(&spec_fields).map_err(err)?)
            }
            FluxKind::ResourceSet => {
                FluxSpec::ResourceSet(read_resource_set(&spec_fields).map_err(err)?)
            }
            FluxKind::ResourceSetInputProvider => FluxSpec::ResourceSetInputProvider,
            FluxKind::ArtifactGenerator => {
                FluxSpec::ArtifactGenerator(read_artifact_generator(&spec_fields).map_err(err)?)
            }
            FluxKind::FluxInstance => {
                FluxSpec::FluxInstance(read_flux_instance(&spec_fields).map_err(err)?)
            }
            _ => FluxSpec::Source(read_source(kind, &spec_fields).map_err(err)?),
        };
        Ok(Some(FluxObject {
            object: object.clone(),
            kind,
            spec,
        }))
    }

    pub fn name(&self) -> &str {
        &self.object.id.name
    }

    pub fn namespace(&self) -> &str {
        &self.object.id.namespace
    }

    pub fn as_kustomization(&self) -> Option<&Kustomization> {
        match &self.spec {
            FluxSpec::Kustomization(k) => Some(k),
            _ => None,
        }
    }

    /// A HelmRelease's inline `spec.values`, read in place: they can be large, and most readings
    /// of a spec never look at them.
    pub(crate) fn helm_values(&self) -> Option<&Node> {
        self.as_helm_release()?;
        self.object
            .node
            .as_mapping()?
            .get("spec")?
            .as_mapping()?
            .get("values")
            .filter(|values| !values.is_null())
    }

    pub(crate) fn as_helm_release(&self) -> Option<&HelmRelease> {
        match &self.spec {
            FluxSpec::HelmRelease(h) => Some(h),
            _ => None,
        }
    }

    pub(crate) fn as_flux_instance(&self) -> Option<&FluxInstance> {
        match &self.spec {
            FluxSpec::FluxInstance(f) => Some(f),
            _ => None,
        }
    }

    pub(crate) fn as_source(&self) -> Option<&SourceSpec> {
        match &self.spec {
            FluxSpec::Source(s) => Some(s),
            _ => None,
        }
    }

    /// The `dependsOn` entries of a Kustomization, HelmRelease or ResourceSet.
    pub fn depends_on(&self) -> &[DependsOn] {
        match &self.spec {
            FluxSpec::Kustomization(k) => &k.depends_on,
            FluxSpec::HelmRelease(h) => &h.depends_on,
            FluxSpec::ResourceSet(r) => &r.depends_on,
            _ => &[],
        }
    }
}

fn read_cross_ref(fields: &Fields) -> FieldResult<CrossRef> {
    Ok(CrossRef {
        api_version: fields.str("apiVersion")?,
        kind: fields.required_str("kind")?,
        name: fields.required_str("name")?,
        namespace: fields.str("namespace")?.unwrap_or_default(),
    })
}

fn read_depends_on(spec: &Fields) -> FieldResult<Vec<DependsOn>> {
    spec.maps("dependsOn")?
        .iter()
        .map(|entry| {
            Ok(DependsOn {
                kind: entry.str("kind")?,
                api_version: entry.str("apiVersion")?,
                name: entry.required_str("name")?,
                namespace: entry.str("namespace")?.unwrap_or_default(),
                ready_expr: entry.str("readyExpr")?,
            })
        })
        .collect()
}

fn read_data_refs(spec: &Fields, key: &str) -> FieldResult<Vec<DataRef>> {
    spec.maps(key)?
        .iter()
        .map(|entry| {
            Ok(DataRef {
                kind: entry.required_str("kind")?,
                name: entry.required_str("name")?,
                optional: entry.bool("optional")?.unwrap_or(false),
                values_key: entry.str("valuesKey")?,
                target_path: entry.str("targetPath")?,
                pos: entry.pos(),
            })
        })
        .collect()
}

fn read_common_metadata(spec: &Fields) -> FieldResult<Option<CommonMetadata>> {
    let Some(meta) = spec.map("commonMetadata")? else {
        return Ok(None);
    };
    Ok(Some(CommonMetadata {
        labels: meta.str_map("labels")?,
        annotations: meta.str_map("annotations")?,
    }))
}

fn read_kustomization(spec: &Fields) -> FieldResult<Kustomization> {
    let source_ref = match spec.map("sourceRef")? {
        Some(r) => read_cross_ref(&r)?,
        None => {
            return Err(super::fields::FieldError {
                path: "spec.sourceRef".into(),
                message: "is required".into(),
                pos: spec.pos(),
            })
        }
    };
    let post_build = match spec.map("postBuild")? {
        Some(pb) => Some(PostBuild {
            substitute: pb.str_map("substitute")?,
            substitute_from: read_data_refs(&pb, "substituteFrom")?,
        }),
        None => None,
    };
    Ok(Kustomization {
        path: spec.str("path")?.unwrap_or_else(|| "./".into()),
        source_ref,
        depends_on: read_depends_on(spec)?,
        target_namespace: spec.str("targetNamespace")?,
        name_prefix: spec.str("namePrefix")?,
        name_suffix: spec.str("nameSuffix")?,
        suspend: spec.bool("suspend")?.unwrap_or(false),
        post_build,
        components: spec.strs("components")?,
        common_metadata: read_common_metadata(spec)?,
        patches: spec.node("patches").cloned(),
        images: spec.node("images").cloned(),
        decryption: spec.node("decryption").is_some(),
        wait: spec.bool("wait")?.unwrap_or(false),
        health_checks: spec
            .maps("healthChecks")?
            .iter()
            .map(read_cross_ref)
            .collect::<FieldResult<_>>()?,
    })
}

fn read_chart_template(template: &Fields) -> FieldResult<HelmChartTemplate> {
    let source_ref = match template.map("sourceRef")? {
        Some(r) => read_cross_ref(&r)?,
        None => {
            return Err(super::fields::FieldError {
                path: "spec.chart.spec.sourceRef".into(),
                message: "is required".into(),
                pos: template.pos(),
            })
        }
    };
    let mut values_files = template.strs("valuesFiles")?;
    if let Some(single) = template.str("valuesFile")? {
        values_files.insert(0, single);
    }
    Ok(HelmChartTemplate {
        chart: template.required_str("chart")?,
        version: template.str("version")?,
        source_ref,
        values_files,
        ignore_missing_values_files: template.bool("ignoreMissingValuesFiles")?.unwrap_or(false),
    })
}

fn read_helm_release(spec: &Fields) -> FieldResult<HelmRelease> {
    let chart = match (spec.map("chart")?, spec.map("chartRef")?) {
        (Some(chart), None) => match chart.map("spec")? {
            Some(template) => ChartSource::Template(read_chart_template(&template)?),
            None => {
                return Err(super::fields::FieldError {
                    path: "spec.chart.spec".into(),
                    message: "is required".into(),
                    pos: chart.pos(),
                })
            }
        },
        (None, Some(chart_ref)) => ChartSource::Ref(read_cross_ref(&chart_ref)?),
        (Some(chart), Some(_)) => {
            return Err(super::fields::FieldError {
                path: "spec.chart".into(),
                message: "and `spec.chartRef` are mutually exclusive".into(),
                pos: chart.pos(),
            })
        }
        (None, None) => {
            return Err(super::fields::FieldError {
                path: "spec.chart".into(),
                message: "or `spec.chartRef` is required".into(),
                pos: spec.pos(),
            })
        }
    };
    let install = spec.map("install")?;
    let install_flag = |key: &str| -> FieldResult<bool> {
        Ok(match &install {
            Some(install) => install.bool(key)?.unwrap_or(false),
            None => false,
        })
    };
    let install_crds = match install
        .as_ref()
        .map(|i| i.str("crds"))
        .transpose()?
        .flatten()
    {
        None => CrdPolicy::Create,
        Some(policy) => match policy.as_str() {
            "Skip" => CrdPolicy::Skip,
            "Create" => CrdPolicy::Create,
            "CreateReplace" => CrdPolicy::CreateReplace,
            other => {
                return Err(super::fields::FieldError {
                    path: "spec.install.crds".into(),
                    message: format!(
                        "must be one of `Skip`, `Create`, `CreateReplace`, not `{other}`"
                    ),
                    pos: install.as_ref().map_or_else(|| spec.pos(), |i| i.pos()),
                })
            }
        },
    };
    Ok(HelmRelease {
        chart,
        release_name: spec.str("releaseName")?,
        target_namespace: spec.str("targetNamespace")?,
        storage_namespace: spec.str("storageNamespace")?,
        depends_on: read_depends_on(spec)?,
        values_from: read_data_refs(spec, "valuesFrom")?,
        suspend: spec.bool("suspend")?.unwrap_or(false),
        post_renderers: spec.node("postRenderers").cloned(),
        common_metadata: read_common_metadata(spec)?,
        install_crds,
        disable_hooks: install_flag("disableHooks")?,
        disable_schema_validation: install_flag("disableSchemaValidation")?,
        disable_openapi_validation: install_flag("disableOpenAPIValidation")?,
    })
}

fn read_source(kind: FluxKind, spec: &Fields) -> FieldResult<SourceSpec> {
    let url = match kind {
        FluxKind::Bucket => spec.str("endpoint")?,
        FluxKind::HelmChart | FluxKind::ExternalArtifact => None,
        _ => Some(spec.required_str("url")?),
    };
    let reference = match spec.map("ref")? {
        Some(r) => ["commit", "digest", "name", "semver", "tag", "branch"]
            .iter()
            .map(|key| Ok(r.str(key)?.map(|v| format!("{key} {v}"))))
            .collect::<FieldResult<Vec<_>>>()?
            .into_iter()
            .flatten()
            .next(),
        None => None,
    };
    let chart = match kind {
        FluxKind::HelmChart => Some(read_chart_template(spec)?),
        _ => None,
    };
    Ok(SourceSpec {
        url,
        reference,
        repository_type: spec.str("type")?,
        chart,
        ignore: spec.str("ignore")?,
        secret_ref: match spec.map("secretRef")? {
            Some(r) => r.str("name")?,
            None => None,
        },
        suspend: spec.bool("suspend")?.unwrap_or(false),
        insecure: spec.bool("insecure")?.unwrap_or(false),
    })
}

fn read_resource_set(spec: &Fields) -> FieldResult<ResourceSet> {
    let inputs_from = spec
        .maps("inputsFrom")?
        .iter()
        .map(|entry| {
            Ok(CrossRef {
                api_version: entry.str("apiVersion")?,
                kind: entry
                    .str("kind")?
                    .unwrap_or_else(|| "ResourceSetInputProvider".into()),
                name: entry.str("name")?.unwrap_or_default(),
                namespace: String::new(),
            })
        })
        .collect::<FieldResult<Vec<_>>>()?;
    Ok(ResourceSet {
        depends_on: read_depends_on(spec)?,
        inputs_from,
    })
}

fn read_artifact_generator(spec: &Fields) -> FieldResult<ArtifactGenerator> {
    let sources = spec
        .maps("sources")?
        .iter()
        .map(|entry| {
            Ok((
                entry.required_str("alias")?,
                CrossRef {
                    api_version: None,
                    kind: entry.required_str("kind")?,
                    name: entry.required_str("name")?,
                    namespace: entry.str("namespace")?.unwrap_or_default(),
                },
            ))
        })
        .collect::<FieldResult<Vec<_>>>()?;
    let artifacts = spec
        .maps("artifacts")?
        .iter()
        .map(|artifact| {
            let copies = artifact
                .maps("copy")?
                .iter()
                .map(|copy| {
                    Ok(ArtifactCopy {
                        from: copy.required_str("from")?,
                        to: copy.required_str("to")?,
                        exclude: copy.strs("exclude")?,
                        strategy: copy.str("strategy")?.unwrap_or_default(),
                    })
                })
                .collect::<FieldResult<Vec<_>>>()?;
            Ok(GeneratedArtifact {
                name: artifact.required_str("name")?,
                copies,
            })
        })
        .collect::<FieldResult<Vec<_>>>()?;
    Ok(ArtifactGenerator { sources, artifacts })
}

fn read_flux_instance(spec: &Fields) -> FieldResult<FluxInstance> {
    let sync = match spec.map("sync")? {
        Some(sync) => Some(FluxSync {
            kind: sync.str("kind")?.unwrap_or_else(|| "GitRepository".into()),
            url: sync.required_str("url")?,
            reference: sync.required_str("ref")?,
            path: sync.required_str("path")?,
            name: sync.str("name")?.filter(|n| !n.is_empty()),
            interval: sync.str("interval")?.filter(|i| !i.is_empty()),
            pull_secret: sync.str("pullSecret")?.filter(|s| !s.is_empty()),
            provider: sync.str("provider")?.filter(|p| !p.is_empty()),
        }),
        None => None,
    };
    let version = match spec.map("distribution")? {
        Some(distribution) => distribution.str("version")?,
        None => None,
    };
    let patches = match spec.map("kustomize")? {
        Some(kustomize) => kustomize.node("patches").cloned(),
        None => None,
    };
    Ok(FluxInstance {
        sync,
        version,
        patches,
        common_metadata: read_common_metadata(spec)?,
    })
}
