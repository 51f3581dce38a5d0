//! The source kinds' bodies (GitRepository, OCIRepository, Bucket, ExternalArtifact,
//! HelmRepository, HelmChart, ArtifactGenerator): whether their artifact is at hand offline.

use super::helm_release::oci_artifact_chart;
use super::{Reconcile, Runtime};
use crate::controllers::source::{SourceFetch, SourceResolution};
use crate::controllers::source_map;
use crate::model::{FluxKind, FluxObject, ResourceId};
use crate::schedule::{DrainLevel, Outcome};
use crate::store::{Ready, Status};

impl Runtime<'_> {
    /// Whether `flux` is an OCIRepository whose artifact, a chart, the chart cache holds (at the
    /// tag or semver range of its `ref`); the row then says where its artifact came from.
    fn artifact_in_chart_cache(&self, flux: &FluxObject) -> bool {
        if flux.kind != FluxKind::OCIRepository {
            return false;
        }
        let Some(spec) = flux.as_source() else {
            return false;
        };
        let chart = oci_artifact_chart(spec, None);
        if !self.helm.holds(&chart) {
            return false;
        }
        self.note_row(
            &flux.object.id,
            format!(
                "not fetched offline: the chart cache holds its artifact (chart {} {})",
                chart.chart, chart.version
            ),
        );
        true
    }
}

/// GitRepository, OCIRepository, Bucket and ExternalArtifact: Ready when their files are at hand
/// (the working tree, a `--sources` directory, or for an OCIRepository a chart the chart cache
/// holds); a remote source is no failure by itself, only not fetched: what needs its files fails
/// or is skipped with the reason.
pub(super) struct ArtifactSourceBody;

impl Reconcile for ArtifactSourceBody {
    fn reconcile(
        &self,
        run: &Runtime<'_>,
        flux: &FluxObject,
        _: DrainLevel,
    ) -> Outcome<ResourceId> {
        let id = &flux.object.id;
        let fetched = run.options.fetched.get(id);
        if let Some(SourceFetch::Fetched { summary, .. }) = fetched {
            run.note_row(id, summary.clone());
        }
        let status = if let Some(SourceFetch::Failed(message)) = fetched {
            Status::failed(message.clone())
        } else if let Some(SourceFetch::Skipped(message)) = fetched {
            Status::Ready(Ready::Skipped(format!("not fetched: {message}")))
        } else if source_map::mapped(&run.options.source_dirs, id).is_some() {
            match run.mapped_source(id) {
                Some(Err(message)) => Status::failed(message),
                _ => Status::ready(),
            }
        } else {
            match run.resolve_defined(id, flux) {
                SourceResolution::WorkingTree { .. } => Status::ready(),
                // An OCIRepository whose artifact (a chart) the chart cache holds is at hand
                // offline, as source-controller would have fetched it.
                SourceResolution::Unavailable(_) if run.artifact_in_chart_cache(flux) => {
                    Status::ready()
                }
                // Online, the one OCIRepository left unfetched is a HelmRelease's chart: fetched
                // with the release, whose row says what came of it.
                SourceResolution::Unavailable(_)
                    if !run.options.offline && flux.kind == FluxKind::OCIRepository =>
                {
                    Status::Ready(Ready::Skipped(
                        "not fetched as a source: a HelmRelease takes it as its chart, fetched with the release (the release's row says what came of it)".to_owned(),
                    ))
                }
                SourceResolution::Unavailable(message) | SourceResolution::NotFound(message) => {
                    Status::Ready(Ready::Skipped(format!("not fetched: {message}")))
                }
            }
        };
        run.store.set(id.clone(), status);
        Outcome::Terminal
    }
}

/// HelmRepository and HelmChart: read by the HelmReleases that use them, through the renderer.
pub(super) struct ChartSourceBody;

/// ArtifactGenerator: its ExternalArtifacts are assembled when a consumer reads them.
pub(super) struct GeneratorBody;

impl Reconcile for ChartSourceBody {
    fn reconcile(
        &self,
        run: &Runtime<'_>,
        flux: &FluxObject,
        _: DrainLevel,
    ) -> Outcome<ResourceId> {
        // Offline, no index or chart is fetched: nothing says the repository serves what its
        // releases ask for but the chart cache.
        if run.options.offline {
            let note = match flux.kind {
                FluxKind::HelmChart => "not fetched offline: the releases that use it take its chart from the chart cache (their rows say what came of it)",
                _ => "not fetched offline: its releases take their charts from the chart cache (their rows say what came of it)",
            };
            run.note_row(&flux.object.id, note.to_owned());
        }
        run.store.set(flux.object.id.clone(), Status::ready());
        Outcome::Terminal
    }
}

impl Reconcile for GeneratorBody {
    fn reconcile(
        &self,
        run: &Runtime<'_>,
        flux: &FluxObject,
        _: DrainLevel,
    ) -> Outcome<ResourceId> {
        run.store.set(flux.object.id.clone(), Status::ready());
        Outcome::Terminal
    }
}
