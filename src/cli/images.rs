//! `offlux get images`: every container image the render applies, by producer, for pre-pull and
//! security-review workflows: each workload's init, regular and ephemeral containers (the pod
//! specs `validate` knows: Pods, Deployments, StatefulSets, DaemonSets, Jobs, CronJobs…).

use serde::Serialize;

use super::clusters::ClusterRun;

/// One container of one rendered workload.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub(super) struct ImageRecord {
    /// The cluster, when the path holds several.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cluster: Option<String>,
    /// The Kustomization, HelmRelease or ResourceSet that applies the workload.
    pub producer: String,
    /// The workload, `Kind/namespace/name`.
    pub object: String,
    pub container: String,
    pub image: String,
}

/// The images of what `runs` rendered, sorted; `namespace` keeps the workloads of one namespace,
/// `name` the producers of one name.
pub(super) fn records(
    runs: &[ClusterRun],
    namespace: Option<&str>,
    name: Option<&str>,
) -> Vec<ImageRecord> {
    let mut out = Vec::new();
    for run in runs {
        for (producer, objects) in &run.report.rendered {
            if name.is_some_and(|n| producer.name != n) {
                continue;
            }
            for object in objects {
                if namespace.is_some_and(|ns| object.id.namespace != ns) {
                    continue;
                }
                for container in crate::validate::containers(object) {
                    let Some(image) = container.get("image").and_then(|i| i.as_str()) else {
                        continue;
                    };
                    out.push(ImageRecord {
                        cluster: run.cluster.clone(),
                        producer: producer.to_string(),
                        object: object.id.to_string(),
                        container: container
                            .get("name")
                            .and_then(|n| n.as_str())
                            .unwrap_or_default()
                            .to_owned(),
                        image: image.to_owned(),
                    });
                }
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

/// The table of `records`: producer, workload, container, image (and the cluster when several).
pub(super) fn table(records: &[ImageRecord], several: bool) -> String {
    let rows: Vec<Vec<String>> = records
        .iter()
        .map(|r| {
            let mut row = vec![
                r.producer.clone(),
                r.object.clone(),
                r.container.clone(),
                r.image.clone(),
            ];
            if several {
                row.insert(0, r.cluster.clone().unwrap_or_default());
            }
            row
        })
        .collect();
    let headers: &[&str] = if several {
        &["CLUSTER", "PRODUCER", "OBJECT", "CONTAINER", "IMAGE"]
    } else {
        &["PRODUCER", "OBJECT", "CONTAINER", "IMAGE"]
    };
    super::table::render(headers, &rows)
}
