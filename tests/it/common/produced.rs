//! The rendered objects of a run as `validate` takes them (`Produced`), labelled by producer, as
//! `offlux validate` labels them; shared by the corpus tests that validate what a run rendered.

use offlux::controllers::runtime::RunReport;
use offlux::validate::Produced;

/// Each producer's label (`Kind/namespace/name`), in `report.rendered`'s order.
pub fn labels(report: &RunReport) -> Vec<String> {
    report
        .rendered
        .keys()
        .map(|id| format!("{}/{}/{}", id.kind, id.namespace, id.name))
        .collect()
}

/// Every rendered object with the cluster its producer applies it to (`""` for offlux's own),
/// in `report.rendered`'s order; `labels` is `labels(report)`.
pub fn produced<'a>(report: &'a RunReport, labels: &'a [String]) -> Vec<(&'a str, Produced<'a>)> {
    report
        .rendered
        .iter()
        .zip(labels)
        .flat_map(|((id, objects), label)| {
            let cluster = report.clusters.get(id).map_or("", String::as_str);
            objects.iter().map(move |object| {
                (
                    cluster,
                    Produced {
                        producer: label,
                        object,
                        from_chart: id.kind == "HelmRelease",
                        namespace_known: !id.namespace.is_empty(),
                    },
                )
            })
        })
        .collect()
}
