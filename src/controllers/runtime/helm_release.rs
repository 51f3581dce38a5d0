//! The HelmRelease body: its chart found (a chart template's source, a `chartRef`, an OCI
//! artifact), its values composed, the chart rendered and the objects published.

use std::path::Path;

use offlux_sync::MutexExt as _;

use super::{label_of, reference_id, Reconcile, Runtime};
use crate::controllers::external_artifact::ArtifactRoot;
use crate::controllers::helmrelease::{self, ComposedValues, HelmRenderError, HelmRenderRequest};
use crate::controllers::helmrelease::{ChartLocation, RepositoryChart, RepositoryKind};
use crate::controllers::postbuild;
use crate::controllers::source::{self, SourceResolution};
use crate::diagnostic::Location;
use crate::model::{
    ChartSource, CrdPolicy, FluxKind, FluxObject, HelmChartTemplate, HelmRelease, Object,
    ResourceId,
};
use crate::schedule::{DrainLevel, Outcome};
use crate::store::{Ready, Status, StatusRecord};
use crate::template::Value;
use crate::yaml::Pos;

pub(super) struct Body;

impl Reconcile for Body {
    fn reconcile(
        &self,
        run: &Runtime<'_>,
        flux: &FluxObject,
        drain: DrainLevel,
    ) -> Outcome<ResourceId> {
        run.reconcile_helm_release(flux, drain)
    }
}

impl Runtime<'_> {
    fn reconcile_helm_release(&self, flux: &FluxObject, drain: DrainLevel) -> Outcome<ResourceId> {
        let id = &flux.object.id;
        let Some(spec) = flux.as_helm_release() else {
            return Outcome::Terminal;
        };
        if let Some(outcome) = self.suspend_or_gate(flux, spec.suspend, drain) {
            return outcome;
        }
        let chart = match self.chart_of(flux, spec, drain) {
            Ok(chart) => chart,
            Err(outcome) => return outcome,
        };
        let (values, left_out) = match self.values_of(flux, spec, drain) {
            Ok(composed) => composed,
            Err(outcome) => return outcome,
        };
        let request = HelmRenderRequest {
            chart: chart.location,
            values_files: chart.values_files,
            ignore_missing_values_files: chart.ignore_missing_values_files,
            release_name: helmrelease::release_name(flux.name(), spec),
            namespace: helmrelease::release_namespace(flux.namespace(), spec).to_owned(),
            values,
            include_crds: spec.install_crds != CrdPolicy::Skip,
            disable_hooks: spec.disable_hooks,
            disable_schema_validation: spec.disable_schema_validation,
            kube_version: self.options.kube_version.clone(),
        };
        let rendered = self.helm.render(&request);
        // The site of this render's failure, if a template of the repository's own files failed
        // (not one of an artifact mounted in memory, or of a source mapped from elsewhere).
        let site = match &rendered {
            Err(HelmRenderError::FailedAt { file, line, .. }) => {
                (file.strip_prefix(&self.repository.root)).ok().map(|file| {
                    Location::at(
                        file,
                        Pos {
                            line: *line,
                            column: 0,
                        },
                    )
                })
            }
            _ => None,
        };
        match site {
            Some(at) => self.failure_sites.locked().insert(id.clone(), at),
            None => self.failure_sites.locked().remove(id),
        };
        let rendered = match rendered {
            Ok(rendered) => rendered,
            Err(HelmRenderError::Unavailable(message)) => {
                self.withdraw_output(id);
                self.store.set_status(
                    id.clone(),
                    StatusRecord::new(self.unavailable_for(id, message), chart.source),
                );
                return Outcome::Terminal;
            }
            // The source gave the chart; what is missing is a dependency's repository, which is
            // no object of the run.
            Err(HelmRenderError::DependencyUnavailable(message)) => {
                self.withdraw_output(id);
                let status = self.unavailable_for(id, message);
                self.store.set(id.clone(), status);
                return Outcome::Terminal;
            }
            // helm-controller's render asks the cluster for what `lookup` names; offline the
            // answer is empty, and a failure after it cannot be judged here.
            Err(HelmRenderError::NeedsCluster(message)) => {
                return self.depends_on_cluster(
                    id,
                    format!(
                        "the chart looks objects up in the cluster (`lookup`), which offline \
                         returns nothing, and then fails, so the result depends on the \
                         cluster: {message}"
                    ),
                );
            }
            // helm-controller renders with every `valuesFrom` resolved from the cluster. When
            // some were left out offline, a failed render may be the want of them: what Flux
            // would do is unknowable here, so the row says so instead of failing.
            Err(HelmRenderError::Failed(message) | HelmRenderError::FailedAt { message, .. })
                if !left_out.is_empty() =>
            {
                return self.depends_on_cluster(
                    id,
                    format!(
                        "{}; without them the render fails, so the result depends on the \
                         cluster: {message}",
                        left_out.join("; ")
                    ),
                );
            }
            Err(HelmRenderError::Failed(message) | HelmRenderError::FailedAt { message, .. }) => {
                return self.fail(id, message)
            }
        };
        let unread = (!rendered.unread_values.is_empty()).then(|| {
            let written = self.written(&flux.object).unwrap_or(&flux.object);
            helmrelease::locate_unread(
                &rendered.chart,
                &rendered.unread_values,
                written,
                flux.helm_values(),
            )
        });
        let nodes = match helmrelease::post_process(rendered, spec, flux.name(), flux.namespace()) {
            Ok(nodes) => nodes,
            Err(message) => return self.fail(id, format!("post-rendering failed: {message}")),
        };
        let mut children = Vec::with_capacity(nodes.len());
        for node in nodes {
            match Object::from_node(node, flux.object.file.clone(), Default::default()) {
                Ok(Some(object)) if !object.id.name.is_empty() => children.push(object),
                _ => {
                    return self.fail(
                        id,
                        "failed to decode Kubernetes apiVersion, kind and name from a rendered manifest",
                    )
                }
            }
        }
        if self.publish(id, &flux.object, &children) {
            {
                let mut all = self.unread_values.locked();
                match unread {
                    Some(unread) => all.insert(id.clone(), unread),
                    None => all.remove(id),
                };
            }
            self.store.set(id.clone(), Status::ready());
        }
        Outcome::Terminal
    }

    /// Where a HelmRelease's chart comes from. `Err` holds the outcome when the release waits for
    /// its source or ends without one.
    fn chart_of(
        &self,
        flux: &FluxObject,
        spec: &HelmRelease,
        drain: DrainLevel,
    ) -> Result<ResolvedChart, Outcome<ResourceId>> {
        match &spec.chart {
            ChartSource::Template(template) => {
                self.chart_from_template(flux, template, flux.namespace(), drain)
            }
            ChartSource::Ref(reference) => {
                let ref_id = reference_id(reference, flux.namespace());
                if ref_id.kind == FluxKind::ExternalArtifact.as_str() {
                    return self.chart_from_external_artifact(flux, ref_id, drain);
                }
                let Some(object) = self.store.get(&ref_id) else {
                    return Err(self.source_missing(flux, ref_id, drain));
                };
                let source = match FluxObject::from_object(&object) {
                    Ok(Some(source)) => source,
                    _ => {
                        return Err(self.fail(
                            &flux.object.id,
                            format!("chartRef {} is not a valid source", label_of(&ref_id)),
                        ))
                    }
                };
                let Some(source_spec) = source.as_source() else {
                    return Err(self.fail(&flux.object.id, "chartRef is not a source"));
                };
                match source.kind {
                    FluxKind::HelmChart => match &source_spec.chart {
                        Some(template) => {
                            self.chart_from_template(flux, template, source.namespace(), drain)
                        }
                        None => Err(self.fail(&flux.object.id, "HelmChart has no chart")),
                    },
                    FluxKind::OCIRepository => {
                        let auth = self.credentials(Some(source_spec), &ref_id, drain)?;
                        Ok(ResolvedChart {
                            location: ChartLocation::Repository(oci_artifact_chart(
                                source_spec,
                                auth,
                            )),
                            values_files: Vec::new(),
                            ignore_missing_values_files: false,
                            source: vec![ref_id],
                        })
                    }
                    other => Err(self.fail(
                        &flux.object.id,
                        format!(
                            "chartRef kind {} is not supported: use OCIRepository or HelmChart",
                            other.as_str()
                        ),
                    )),
                }
            }
        }
    }

    /// The credentials of a chart repository from its `secretRef` Secret (`username` and
    /// `password`), waiting for the Secret while it may still be published. A Secret that is
    /// nowhere in the repository, or whose values are SOPS-encrypted, gives none: anonymous
    /// access, whose failure names the repository.
    fn credentials(
        &self,
        source: Option<&crate::model::SourceSpec>,
        source_id: &ResourceId,
        drain: DrainLevel,
    ) -> Result<Option<crate::helm::repo::BasicAuth>, Outcome<ResourceId>> {
        let Some(name) = source.and_then(|s| s.secret_ref.as_deref()) else {
            return Ok(None);
        };
        let secret_id = ResourceId::new("v1", "Secret", &source_id.namespace, name);
        let Some(secret) = self.store.get(&secret_id) else {
            return match drain {
                DrainLevel::None => Err(Outcome::Blocked(vec![secret_id])),
                _ => Ok(None),
            };
        };
        let data = postbuild::data_of(&secret);
        let field = |key: &str| {
            data.get(key)
                .filter(|v| v.as_str() != postbuild::SOPS_PLACEHOLDER)
                .cloned()
        };
        Ok(match (field("username"), field("password")) {
            (Some(username), Some(password)) => {
                Some(crate::helm::repo::BasicAuth { username, password })
            }
            _ => None,
        })
    }

    fn chart_from_template(
        &self,
        flux: &FluxObject,
        template: &HelmChartTemplate,
        namespace: &str,
        drain: DrainLevel,
    ) -> Result<ResolvedChart, Outcome<ResourceId>> {
        let source_id = reference_id(&template.source_ref, namespace);
        let resolved = |location| ResolvedChart {
            location,
            values_files: template.values_files.clone(),
            ignore_missing_values_files: template.ignore_missing_values_files,
            source: vec![source_id.clone()],
        };
        if source_id.kind == FluxKind::HelmRepository.as_str() {
            let Some(object) = self.store.get(&source_id) else {
                return Err(self.source_missing(flux, source_id, drain));
            };
            let source = FluxObject::from_object(&object).ok().flatten();
            let source_spec = source.as_ref().and_then(FluxObject::as_source);
            let url = source_spec.and_then(|s| s.url.clone()).unwrap_or_default();
            let oci = source_spec.and_then(|s| s.repository_type.as_deref()) == Some("oci")
                || url.starts_with("oci://");
            let auth = self.credentials(source_spec, &source_id, drain)?;
            return Ok(resolved(ChartLocation::Repository(RepositoryChart {
                auth,
                insecure: source_spec.is_some_and(|s| s.insecure),
                kind: if oci {
                    RepositoryKind::Oci
                } else {
                    RepositoryKind::Http
                },
                url,
                chart: template.chart.clone(),
                version: template
                    .version
                    .clone()
                    .filter(|v| !v.is_empty())
                    .unwrap_or_else(|| "*".to_owned()),
            })));
        }
        match self.resolve_source(&source_id, drain) {
            None => Err(Outcome::Blocked(vec![source_id])),
            Some(SourceResolution::Unavailable(message)) => {
                self.withdraw_output(&flux.object.id);
                self.store.set_status(
                    flux.object.id.clone(),
                    StatusRecord::new(
                        self.unavailable_for(&flux.object.id, message),
                        vec![source_id],
                    ),
                );
                Err(Outcome::Terminal)
            }
            Some(SourceResolution::NotFound(message)) => {
                self.withdraw_output(&flux.object.id);
                self.store.set(
                    flux.object.id.clone(),
                    self.source_not_found(&flux.object.id, message),
                );
                Err(Outcome::Terminal)
            }
            Some(SourceResolution::WorkingTree { .. }) => Ok(resolved(ChartLocation::Local {
                root: self.repository.root.clone(),
                path: template.chart.clone(),
            })),
        }
    }

    /// A `chartRef` to an ExternalArtifact (helm-controller v1.4+, `getSource` /
    /// `HelmReleaseReconciler.reconcileRelease`): the artifact an ArtifactGenerator assembles is
    /// the chart, its `Chart.yaml` at the artifact's root, found as a Kustomization's
    /// `sourceRef` to the same artifact finds it.
    fn chart_from_external_artifact(
        &self,
        flux: &FluxObject,
        ref_id: ResourceId,
        drain: DrainLevel,
    ) -> Result<ResolvedChart, Outcome<ResourceId>> {
        match self.external_artifact(&ref_id, drain) {
            None => Err(Outcome::Blocked(vec![ref_id])),
            Some(Ok(artifact)) => Ok(ResolvedChart {
                location: ChartLocation::Local {
                    root: artifact.root.clone(),
                    path: chart_dir_in_artifact(&artifact),
                },
                values_files: Vec::new(),
                ignore_missing_values_files: false,
                source: vec![ref_id],
            }),
            Some(Err(message)) => {
                self.withdraw_output(&flux.object.id);
                self.store.set_status(
                    flux.object.id.clone(),
                    StatusRecord::new(self.unavailable_for(&flux.object.id, message), vec![ref_id]),
                );
                Err(Outcome::Terminal)
            }
        }
    }

    /// A chart source that has not arrived: wait while it may, then fail (or skip) naming it.
    fn source_missing(
        &self,
        flux: &FluxObject,
        source_id: ResourceId,
        drain: DrainLevel,
    ) -> Outcome<ResourceId> {
        if drain == DrainLevel::None {
            return Outcome::Blocked(vec![source_id]);
        }
        let message = format!("source {} not found", label_of(&source_id));
        self.withdraw_output(&flux.object.id);
        // One the repository writes under a producer that did not render (failed, skipped,
        // blocked) may exist: it is unavailable, not a typo. One written where nothing in this
        // run applies it (a file its kustomization leaves out, another cluster's tree) is not
        // found, as in the cluster.
        let defined = source::resolve(&source_id, self.repository, None);
        let withheld = self.producers.of(&source_id).iter().any(|producer| {
            self.store.status(producer).is_none_or(|record| {
                !matches!(
                    record.status,
                    Status::Ready(Ready::Reconciled | Ready::Suspended)
                )
            })
        });
        let status = if matches!(defined, SourceResolution::NotFound(_)) || !withheld {
            StatusRecord::new(self.source_not_found(&flux.object.id, message), Vec::new())
        } else {
            StatusRecord::new(
                self.unavailable_for(&flux.object.id, message),
                vec![source_id],
            )
        };
        self.store.set_status(flux.object.id.clone(), status);
        Outcome::Terminal
    }

    /// The composed values of a HelmRelease, with what was left out of them (values only the
    /// cluster holds: a Secret an in-repository producer makes, SOPS-encrypted data), or the
    /// outcome when it waits or fails.
    fn values_of(
        &self,
        flux: &FluxObject,
        spec: &HelmRelease,
        drain: DrainLevel,
    ) -> Result<(Value, Vec<String>), Outcome<ResourceId>> {
        let namespace = flux.namespace();
        let data = self.data_objects(flux, &spec.values_from, drain);
        let lookup =
            |wanted: &ResourceId| data.iter().find(|o| &o.id == wanted).map(|o| o.as_ref());
        let declared = |wanted: &ResourceId| self.cluster_producer(wanted);
        match helmrelease::compose_values(
            namespace,
            spec,
            flux.helm_values(),
            lookup,
            declared,
            helmrelease::Composing {
                absent_is_final: drain != DrainLevel::None,
                redact_secret_values: self.options.redact_secret_values,
            },
        ) {
            ComposedValues::Ready { values, notes } => {
                self.assumed(flux, notes.clone());
                Ok((values, notes))
            }
            ComposedValues::Wait(ids) => Err(Outcome::Blocked(ids)),
            ComposedValues::Failed(message) => Err(self.fail(&flux.object.id, message)),
        }
    }
}

/// A resolved chart: where it is, its values files, and the source objects it came through.
struct ResolvedChart {
    location: ChartLocation,
    values_files: Vec<String>,
    ignore_missing_values_files: bool,
    source: Vec<ResourceId>,
}

/// The chart an OCIRepository's artifact is: `url` itself, named by its last path segment, at
/// the `ref`'s tag or semver range (`@sha256:…` for a digest, `latest` without a ref).
pub(super) fn oci_artifact_chart(
    spec: &crate::model::SourceSpec,
    auth: Option<crate::helm::repo::BasicAuth>,
) -> RepositoryChart {
    let url = spec.url.clone().unwrap_or_default();
    let chart = url
        .trim_end_matches('/')
        .rsplit('/')
        .next()
        .unwrap_or_default()
        .to_owned();
    let version = match spec.reference.as_deref().and_then(|r| r.split_once(' ')) {
        Some(("digest", digest)) => format!("@{digest}"),
        Some((_, version)) => version.to_owned(),
        None => "latest".to_owned(),
    };
    RepositoryChart {
        auth,
        insecure: spec.insecure,
        kind: RepositoryKind::OciArtifact,
        url,
        chart,
        version,
    }
}

/// Where the chart lies in an artifact: its root when `Chart.yaml` is there, else the one
/// top-level directory holding a `Chart.yaml` (a copy of `@repo/charts/app` to `@artifact/`
/// keeps the directory, and Helm's archive loader takes the top directory as the chart).
fn chart_dir_in_artifact(artifact: &ArtifactRoot) -> String {
    let relative: Vec<&Path> = artifact
        .files
        .iter()
        .filter_map(|f| f.strip_prefix(&artifact.root).ok())
        .collect();
    if relative.iter().any(|f| *f == Path::new("Chart.yaml")) {
        return ".".to_owned();
    }
    let mut dirs = relative.iter().filter_map(|f| {
        let mut parts = f.components();
        let top = parts.next()?;
        (parts.as_path() == Path::new("Chart.yaml")).then(|| top.as_os_str().to_string_lossy())
    });
    match (dirs.next(), dirs.next()) {
        (Some(dir), None) => dir.into_owned(),
        _ => ".".to_owned(),
    }
}
