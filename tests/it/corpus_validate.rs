//! `offlux validate`'s checks on every corpus repository, reconciled from its cluster entry point
//! (charts from the corpus, offline): no finding is an error. Every finding is printed; each was
//! checked by hand (see the README).

use offlux::orchestrator::{Config, Orchestrator};
use offlux::validate::{self, Produced, Severity};

use crate::common::produced;
use crate::common::test_data;

/// Each repository and where its cluster starts.
const ENTRIES: &[(&str, &str)] = &[
    ("bjw-s-labs__home-ops", "kubernetes/flux/cluster"),
    (
        "bjw-s-labs__home-ops__2025-06-23",
        "kubernetes/flux/cluster",
    ),
    ("buroa__k8s-gitops", "kubernetes/flux/cluster"),
    ("controlplaneio-fluxcd__d2-apps", "."),
    (
        "fluxcd__flux2-kustomize-helm-example",
        "clusters/production",
    ),
    (
        "fluxcd__flux2-kustomize-helm-example__2025-10-07",
        "clusters/production",
    ),
    ("fluxcd__flux2-multi-tenancy", "clusters/production"),
    ("joryirving__home-ops", "kubernetes/clusters/main"),
    ("onedr0p__home-ops", "kubernetes/flux/cluster"),
    ("onedr0p__home-ops__2025-06-23", "kubernetes/flux/cluster"),
    ("toboshii__home-ops", "cluster/flux"),
];

#[test]
fn the_corpus_has_no_validation_errors() {
    let Some(shared) = test_data::dir("", "validating the corpus") else {
        return;
    };
    let mut errors = Vec::new();
    let mut unread = Vec::new();
    let mut checked = 0;
    for (name, entry) in ENTRIES {
        let root = shared.join("corpus/repos").join(name);
        let offlux = Orchestrator::new(Config {
            root: Some(root.clone()),
            chart_cache: Some(shared.join("corpus/charts")),
            offline: true,
            allow_missing_sources: true,
            ..Config::new(root.join(entry))
        });
        let (_, report) = offlux.run(Vec::new()).expect("a repository");
        let labels = produced::labels(&report);
        let produced: Vec<Produced<'_>> = produced::produced(&report, &labels)
            .into_iter()
            .map(|(_, object)| object)
            .collect();
        checked += produced.len();
        for (id, values) in &report.unread_values {
            for key in &values.keys {
                unread.push(format!(
                    "{name}: {}/{} {} {}",
                    id.namespace,
                    id.name,
                    values.chart,
                    key.path.join(".")
                ));
            }
        }
        let findings = validate::validate(
            &produced,
            &validate::Options {
                kube_minor: 36,
                fallback_crds: offlux::model::flux_crds().to_vec(),
                ..Default::default()
            },
        );
        for finding in &findings {
            println!(
                "{name}: {} {} {} ({}): {}",
                finding.severity.as_str(),
                finding.code.as_str(),
                finding.object,
                finding.producer,
                finding.message
            );
            if finding.severity == Severity::Error {
                errors.push(format!(
                    "{name}: {} {}",
                    finding.code.as_str(),
                    finding.object
                ));
            }
        }
    }
    println!(
        "corpus validate: {checked} objects, {} errors",
        errors.len()
    );
    assert!(checked > 5000, "only {checked} objects rendered");
    assert!(errors.is_empty(), "{errors:#?}");
    // OFX110: each checked against the chart's templates by hand (see the README).
    assert_eq!(
        unread,
        [
            "bjw-s-labs__home-ops: external-secrets/external-secrets external-secrets 2.9.0 certController.serviceMonitor",
            "bjw-s-labs__home-ops: external-secrets/external-secrets external-secrets 2.9.0 webhook.serviceMonitor",
            "bjw-s-labs__home-ops: observability/smartctl-exporter prometheus-smartctl-exporter 0.17.1 image.registry",
            "bjw-s-labs__home-ops__2025-06-23: external-secrets/external-secrets external-secrets 0.18.0 certController.serviceMonitor",
            "bjw-s-labs__home-ops__2025-06-23: external-secrets/external-secrets external-secrets 0.18.0 webhook.serviceMonitor",
            "bjw-s-labs__home-ops__2025-06-23: monitoring/smartctl-exporter prometheus-smartctl-exporter 0.15.3 image.registry",
            "bjw-s-labs__home-ops__2025-06-23: system/spegel spegel 0.3.0 spegel.appendMirrors",
            "fluxcd__flux2-kustomize-helm-example__2025-10-07: ingress-nginx/ingress-nginx ingress-nginx 4.15.1 admissionWebhooks",
            "onedr0p__home-ops__2025-06-23: external-secrets/external-secrets external-secrets 0.18.0 certController.serviceMonitor",
            "onedr0p__home-ops__2025-06-23: external-secrets/external-secrets external-secrets 0.18.0 webhook.serviceMonitor",
            // toboshii's kube-prometheus-stack is no longer rendered: its Kustomizations read the
            // GitRepository `flux-cluster` (github.com/toboshii/home-ops), which is another
            // repository unless mapped (issue 34, 2: a source's path belongs to that source);
            // mapped, `apps` waits for `crds`, whose remote resources cannot be had offline.
        ]
    );
}
