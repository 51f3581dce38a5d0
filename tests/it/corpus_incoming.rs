//! The incoming corpus repositories (`corpus/incoming`, see its README), each reconciled from its
//! entry point with the options it needs (charts from the corpus, offline, missing sources
//! skipped): the same result at concurrency 1 and 4, the recorded PASS/FAIL/BLOCKED/SKIPPED
//! counts, no FAIL but the recorded ones (each with its cause), the recorded validation errors,
//! and a graph without cycles.

use std::collections::BTreeMap;
use std::path::Path;

use offlux::controllers::runtime::RunReport;
use offlux::controllers::source_map::SourceMapping;
use offlux::discovery::{discover, Options, Repository};
use offlux::orchestrator::{Config, Orchestrator};
use offlux::store::{Ready, Status};
use offlux::validate::{self, Produced, Severity};
use offlux::yaml::{canonical_kyaml, emit_stream};

use crate::common::produced;
use crate::common::test_data;

struct Incoming {
    name: &'static str,
    entry: &'static str,
    /// `--sources`, as on the command line.
    sources: &'static str,
    /// PASS, FAIL, BLOCKED, SKIPPED, as `offlux test` counts them.
    counts: [usize; 4],
    /// The FAIL rows, `Kind/namespace/name`, and why each is a true failure offline.
    failures: &'static [&'static str],
    /// Validation errors (`offlux validate`'s error findings).
    validation_errors: usize,
}

const INCOMING: &[Incoming] = &[
    Incoming {
        name: "controlplaneio-fluxcd__d1-fleet",
        entry: "clusters/staging",
        sources: "",
        counts: [6, 0, 0, 14],
        failures: &[],
        validation_errors: 0,
    },
    Incoming {
        name: "fluxcd__flux2-hub-spoke-example",
        entry: "hub",
        sources: "",
        counts: [20, 0, 0, 0],
        failures: &[],
        // The staging and production Kustomizations apply the same objects to two clusters
        // (`spec.kubeConfig`): each cluster is validated on its own, so they are no duplicates.
        validation_errors: 0,
    },
    Incoming {
        name: "kashalls__home-cluster",
        entry: "kubernetes/flux/cluster",
        sources: "home-kubernetes",
        // The cloudflare-tunnel Kustomization substitutes from a Secret that the bootstrap
        // template `bootstrap/secrets.yaml.tpl` defines: held by the cluster, it passes with a
        // note, and its HelmRelease is reconciled (SKIPPED: its chart is not in the cache).
        // An OCIRepository whose artifact the chart cache holds passes.
        counts: [92, 0, 0, 103],
        failures: &[],
        validation_errors: 0,
    },
    Incoming {
        name: "mirceanton__home-ops",
        entry: "apps",
        sources: "",
        // 14 OCIRepositories pass: the chart cache holds their artifacts.
        counts: [138, 0, 0, 170],
        // kube-prometheus-stack's copy in the corpus lacks its dependencies (kube-state-metrics,
        // grafana...), which a packaged chart carries; not all are in the chart cache, so the
        // release is skipped offline, naming the one missing.
        failures: &[],
        // The external-secrets chart and the app's own configMapGenerator both make
        // `external-secrets-dashboard`, differently: two producers fight over it in the cluster too.
        validation_errors: 2,
    },
    Incoming {
        name: "szinn__k8s-homelab",
        entry: "kubernetes/main/cluster/config",
        sources: "",
        counts: [143, 0, 0, 90],
        // As for mirceanton: kube-prometheus-stack's dependencies are not all in the cache.
        failures: &[],
        validation_errors: 0,
    },
];

fn discover_incoming(root: &Path, entry: &str, sources: &str) -> Repository {
    let mut options = Options::new(root.join(entry));
    options.root = Some(root.to_path_buf());
    // As `offlux test --sources` does: a Kustomization of a mapped source is followed there.
    options.sources = SourceMapping::parse_list(sources, root).expect("sources");
    discover(&options).expect("discovery")
}

/// A run of `root` from `entry` as `offlux test --sources SOURCES --allow-missing-sources` makes
/// it, with the corpus's charts and no network.
fn reconcile(
    root: &Path,
    entry: &str,
    sources: &str,
    charts: &Path,
    concurrency: usize,
) -> RunReport {
    let offlux = Orchestrator::new(Config {
        root: Some(root.to_path_buf()),
        chart_cache: Some(charts.to_path_buf()),
        offline: true,
        concurrency: Some(concurrency),
        allow_missing_sources: true,
        sources: vec![sources.to_owned()],
        ..Config::new(root.join(entry))
    });
    offlux.run(Vec::new()).expect("a repository").1
}

fn fingerprint(report: &RunReport) -> String {
    let mut text = String::new();
    for (id, record) in &report.statuses {
        text.push_str(&format!("{id} {} {:?}\n", record.status, record.blocked_by));
    }
    for (producer, objects) in &report.rendered {
        text.push_str(&format!("# {producer}\n"));
        let nodes: Vec<_> = objects.iter().map(|o| canonical_kyaml(&o.node)).collect();
        text.push_str(&emit_stream(&nodes));
    }
    text
}

/// PASS, FAIL, BLOCKED, SKIPPED as `offlux test` sorts the statuses, and the FAIL rows.
fn verdicts(report: &RunReport) -> ([usize; 4], Vec<String>) {
    let mut counts = [0; 4];
    let mut failures = Vec::new();
    for (id, record) in &report.statuses {
        let slot = match &record.status {
            Status::Ready(Ready::Reconciled) => 0,
            Status::Failed(_) if record.blocked_by.is_empty() => {
                failures.push(format!("{}/{}/{}", id.kind, id.namespace, id.name));
                1
            }
            Status::Failed(_) | Status::Pending => 2,
            Status::Ready(_) => 3,
        };
        counts[slot] += 1;
    }
    (counts, failures)
}

fn validation_errors(report: &RunReport) -> Vec<String> {
    let labels = produced::labels(report);
    // Grouped by the cluster each producer applies to (`spec.kubeConfig`), as `offlux validate` does.
    let mut by_cluster: BTreeMap<&str, Vec<Produced<'_>>> = BTreeMap::new();
    for (cluster, object) in produced::produced(report, &labels) {
        by_cluster.entry(cluster).or_default().push(object);
    }
    validate::validate_groups(
        by_cluster
            .into_values()
            .map(|objects| validate::Group {
                objects,
                ..Default::default()
            })
            .collect(),
        &validate::Options {
            kube_minor: 36,
            fallback_crds: offlux::model::flux_crds().to_vec(),
            ..Default::default()
        },
    )
    .into_iter()
    .filter(|f| f.severity == Severity::Error)
    .map(|f| format!("{} {} ({})", f.code.as_str(), f.object, f.producer))
    .collect()
}

#[test]
fn incoming_repositories_reconcile_with_their_recorded_outcomes() {
    let Some(shared) = test_data::dir("", "reconciling the incoming corpus") else {
        return;
    };
    let incoming = shared.join("corpus/incoming");
    let Some(incoming) = test_data::located(incoming, "reconciling the incoming corpus") else {
        return;
    };
    let charts = shared.join("corpus/charts");
    let mut mismatches: BTreeMap<&str, String> = BTreeMap::new();
    for repo in INCOMING {
        let root = incoming.join(repo.name);
        let repository = discover_incoming(&root, repo.entry, repo.sources);
        let one = reconcile(&root, repo.entry, repo.sources, &charts, 1);
        let four = reconcile(&root, repo.entry, repo.sources, &charts, 4);
        assert!(
            fingerprint(&one) == fingerprint(&four),
            "{}: the result differs between concurrency 1 and 4",
            repo.name
        );
        let (counts, failures) = verdicts(&one);
        let errors = validation_errors(&one);
        println!(
            "{}: {} passed, {} failed, {} blocked, {} skipped; {} validation errors",
            repo.name,
            counts[0],
            counts[1],
            counts[2],
            counts[3],
            errors.len()
        );
        if counts != repo.counts || failures != repo.failures {
            mismatches.insert(
                repo.name,
                format!(
                    "counts {counts:?} (recorded {:?}), failures {failures:?}",
                    repo.counts
                ),
            );
        }
        if errors.len() != repo.validation_errors {
            mismatches.insert(
                repo.name,
                format!(
                    "{} validation errors (recorded {}): {errors:#?}",
                    errors.len(),
                    repo.validation_errors
                ),
            );
        }
        let graph = offlux::graph::build(&repository);
        assert!(graph.cycles.is_empty(), "{}: {:?}", repo.name, graph.cycles);
    }
    assert!(mismatches.is_empty(), "{mismatches:#?}");
}
