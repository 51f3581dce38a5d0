//! Reconciling every corpus repository: every Flux object ends terminal, the output is identical at
//! concurrency 1 and 8, and the counts of Ready Kustomizations per repository are printed.

use std::path::PathBuf;

use offlux::controllers::runtime::RunReport;
use offlux::orchestrator::{Config, Orchestrator};
use offlux::store::Status;
use offlux::yaml::{canonical_kyaml, emit_stream};

use crate::common::test_data;

fn fingerprint(report: &RunReport) -> String {
    let mut text = String::new();
    for (id, record) in &report.statuses {
        text.push_str(&format!("{id} {} {:?}\n", record.status, record.blocked_by));
    }
    for (producer, objects) in &report.rendered {
        text.push_str(&format!("# {producer}\n"));
        text.push_str(&emit_stream(
            &objects
                .iter()
                .map(|o| canonical_kyaml(&o.node))
                .collect::<Vec<_>>(),
        ));
    }
    text
}

#[test]
fn every_repository_settles_identically_at_any_concurrency() {
    let Some(repos) = test_data::dir("corpus/repos", "reconciling every corpus repository") else {
        return;
    };
    let mut entries: Vec<PathBuf> = std::fs::read_dir(&repos)
        .expect("read")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    entries.sort();
    assert!(entries.len() >= 10);
    // Charts from the corpus's chart directory only: the test never touches the network.
    for root in entries {
        let at = |concurrency| {
            let offlux = Orchestrator::new(Config {
                chart_cache: Some(repos.join("../charts")),
                offline: true,
                concurrency: Some(concurrency),
                ..Config::new(&root)
            });
            offlux.run(Vec::new()).expect("a repository").1
        };
        let one = at(1);
        let eight = at(8);
        assert!(
            one.statuses
                .iter()
                .all(|(_, r)| r.status != Status::Pending),
            "{}: a Flux object did not settle",
            root.display()
        );
        let name = root
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let kustomizations: Vec<_> = one
            .statuses
            .iter()
            .filter(|(id, _)| id.kind == "Kustomization")
            .collect();
        let ready = kustomizations
            .iter()
            .filter(|(_, r)| r.status == Status::ready())
            .count();
        let releases: Vec<_> = one
            .statuses
            .iter()
            .filter(|(id, _)| id.kind == "HelmRelease")
            .collect();
        let rendered = releases
            .iter()
            .filter(|(_, r)| r.status == Status::ready())
            .count();
        println!(
            "{name}: {ready} of {} Kustomizations ready, {rendered} of {} HelmReleases",
            kustomizations.len(),
            releases.len()
        );
        // Flux's own example, including its ArtifactGenerator-built ExternalArtifacts, renders fully.
        if name.starts_with("fluxcd__flux2-kustomize-helm-example") {
            assert_eq!(
                ready,
                kustomizations.len(),
                "{name}: every Kustomization should be ready"
            );
            assert!(ready > 0);
        }
        let (a, b) = (fingerprint(&one), fingerprint(&eight));
        if a != b {
            let first = a
                .lines()
                .zip(b.lines())
                .position(|(x, y)| x != y)
                .unwrap_or(0);
            let show = |t: &str| {
                t.lines()
                    .skip(first.saturating_sub(3))
                    .take(8)
                    .collect::<Vec<_>>()
                    .join("\n")
            };
            panic!("{name}: output differs between concurrency 1 and 8 at line {first}:\n--- 1:\n{}\n--- 8:\n{}", show(&a), show(&b));
        }
    }
}
