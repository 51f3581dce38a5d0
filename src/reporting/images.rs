//! `offlux get images`: every container image the render applies, by producer, for pre-pull and
//! security-review workflows: each workload's init, regular and ephemeral containers (the pod
//! specs `validate` knows: Pods, Deployments, StatefulSets, DaemonSets, Jobs, CronJobs…).

use serde::Serialize;

use crate::controllers::runtime::RunReport;
use crate::orchestrator::clusters::ClusterRun;

/// One container of one rendered workload.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct ImageRecord {
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
pub fn records(
    runs: &[ClusterRun],
    namespace: Option<&str>,
    name: Option<&str>,
) -> Vec<ImageRecord> {
    let reports: Vec<(Option<&str>, &RunReport)> = runs
        .iter()
        .map(|run| (run.cluster.as_deref(), &run.report))
        .collect();
    of_reports(&reports, namespace, name)
}

/// [`records`] of run reports, each with the cluster it is of.
pub fn of_reports(
    reports: &[(Option<&str>, &RunReport)],
    namespace: Option<&str>,
    name: Option<&str>,
) -> Vec<ImageRecord> {
    let mut out = Vec::new();
    for (cluster, report) in reports {
        for (producer, objects) in &report.rendered {
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
                        cluster: cluster.map(str::to_owned),
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
pub fn table(records: &[ImageRecord], several: bool) -> String {
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

/// One container whose image a change adds, removes or changes.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct ImageChange {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cluster: Option<String>,
    pub producer: String,
    pub object: String,
    pub container: String,
    /// The image on the base side (none: added).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub base: Option<String>,
    /// The image on the head side (none: removed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub head: Option<String>,
}

/// The containers whose image differs between `base` and `head` (keyed by cluster, producer,
/// workload and container), in that order.
pub fn changes(base: &[ImageRecord], head: &[ImageRecord]) -> Vec<ImageChange> {
    use std::collections::BTreeMap;
    type Key = (Option<String>, String, String, String);
    let index = |records: &[ImageRecord]| -> BTreeMap<Key, String> {
        records
            .iter()
            .map(|r| {
                (
                    (
                        r.cluster.clone(),
                        r.producer.clone(),
                        r.object.clone(),
                        r.container.clone(),
                    ),
                    r.image.clone(),
                )
            })
            .collect()
    };
    let (before, after) = (index(base), index(head));
    let keys: std::collections::BTreeSet<&Key> = before.keys().chain(after.keys()).collect();
    keys.into_iter()
        .filter_map(|key| {
            let (old, new) = (before.get(key), after.get(key));
            (old != new).then(|| ImageChange {
                cluster: key.0.clone(),
                producer: key.1.clone(),
                object: key.2.clone(),
                container: key.3.clone(),
                base: old.cloned(),
                head: new.cloned(),
            })
        })
        .collect()
}

/// The table of `changes`: added, removed or changed, with the images.
pub fn changes_table(changes: &[ImageChange], several: bool) -> String {
    let rows: Vec<Vec<String>> = changes
        .iter()
        .map(|c| {
            let (change, image) = match (&c.base, &c.head) {
                (None, Some(new)) => ("added", new.clone()),
                (Some(old), None) => ("removed", old.clone()),
                (Some(old), Some(new)) => ("changed", format!("{old} → {new}")),
                (None, None) => ("", String::new()),
            };
            let mut row = vec![
                change.to_owned(),
                c.producer.clone(),
                c.object.clone(),
                c.container.clone(),
                image,
            ];
            if several {
                row.insert(0, c.cluster.clone().unwrap_or_default());
            }
            row
        })
        .collect();
    let headers: &[&str] = if several {
        &[
            "CLUSTER",
            "CHANGE",
            "PRODUCER",
            "OBJECT",
            "CONTAINER",
            "IMAGE",
        ]
    } else {
        &["CHANGE", "PRODUCER", "OBJECT", "CONTAINER", "IMAGE"]
    };
    super::table::render(headers, &rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(object: &str, image: &str) -> ImageRecord {
        ImageRecord {
            cluster: None,
            producer: "HelmRelease/a/app".into(),
            object: object.into(),
            container: "main".into(),
            image: image.into(),
        }
    }

    #[test]
    fn added_removed_and_changed_images() {
        let base = [
            record("Deployment/a/kept", "x:1"),
            record("Deployment/a/old", "y:1"),
            record("Deployment/a/same", "z:1"),
        ];
        let head = [
            record("Deployment/a/kept", "x:2"),
            record("Deployment/a/new", "w:1"),
            record("Deployment/a/same", "z:1"),
        ];
        let found: Vec<(String, Option<String>, Option<String>)> = changes(&base, &head)
            .into_iter()
            .map(|c| (c.object, c.base, c.head))
            .collect();
        assert_eq!(
            found,
            [
                (
                    "Deployment/a/kept".into(),
                    Some("x:1".into()),
                    Some("x:2".into())
                ),
                ("Deployment/a/new".into(), None, Some("w:1".into())),
                ("Deployment/a/old".into(), Some("y:1".into()), None),
            ]
        );
    }
}
