//! Discovery on the real repositories of `../shared/corpus/repos`: the counts of Flux
//! Kustomizations and (complete) HelmReleases equal those recorded in its MANIFEST.json.
//!
//! The manifest counts every Flux Kustomization document, patch fragments included, but only
//! complete HelmReleases; discovery keeps fragments apart, so the Kustomization count adds them.

use std::path::PathBuf;

use offlux::discovery::{discover, Options};
use offlux::model::FluxKind;

use crate::common::test_data;

fn corpus_repos(what: &str) -> Option<PathBuf> {
    let dir = test_data::dir("corpus/repos", what)?;
    assert!(
        dir.join("MANIFEST.json").is_file(),
        "the corpus at `{}` has no MANIFEST.json",
        dir.display()
    );
    Some(dir)
}

#[test]
fn flux_object_counts_match_the_manifest() {
    let Some(dir) = corpus_repos("Flux object counts against the corpus manifest") else {
        return;
    };
    let manifest: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("MANIFEST.json")).expect("read manifest"),
    )
    .expect("manifest is JSON");
    let mut checked = 0;
    let mut mismatches = Vec::new();
    for entry in manifest.as_array().expect("manifest is a list") {
        let name = entry["repo"].as_str().expect("repo name");
        let path = dir.join(name);
        if !path.is_dir() {
            continue;
        }
        let repo = discover(&Options::new(&path)).expect("discovery succeeds");
        let count = |kind| repo.flux_objects.iter().filter(|f| f.kind == kind).count() as u64;
        let ks_fragments = repo
            .patch_fragments
            .iter()
            .filter(|o| {
                o.id.kind == "Kustomization" && o.id.group == offlux::model::KUSTOMIZE_GROUP
            })
            .count() as u64;
        let (ks, hr) = (
            count(FluxKind::Kustomization) + ks_fragments,
            count(FluxKind::HelmRelease),
        );
        let expected = (
            entry["ks"].as_u64().unwrap_or(0),
            entry["hr"].as_u64().unwrap_or(0),
        );
        println!("{name}: ks {ks}/{} hr {hr}/{}", expected.0, expected.1);
        if (ks, hr) != expected {
            mismatches.push(format!(
                "{name}: found ks={ks} hr={hr}, manifest ks={} hr={}",
                expected.0, expected.1
            ));
        }
        checked += 1;
    }
    assert!(
        checked >= 10,
        "expected the corpus's repositories, found {checked}"
    );
    assert!(
        mismatches.is_empty(),
        "counts differ:\n{}",
        mismatches.join("\n")
    );
}

/// `offlux graph` succeeds on every corpus repository, in every format, with no cycle.
#[test]
fn graph_succeeds_on_every_repository() {
    let Some(dir) = corpus_repos("`offlux graph` on every corpus repository") else {
        return;
    };
    let mut checked = 0;
    for entry in std::fs::read_dir(&dir).expect("read corpus") {
        let path = entry.expect("entry").path();
        if !path.is_dir() {
            continue;
        }
        let repo = discover(&Options::new(&path)).expect("discovery succeeds");
        let graph = offlux::graph::build(&repo);
        assert!(
            graph.cycles.is_empty(),
            "{}: {:?}",
            path.display(),
            graph.cycles
        );
        assert!(!graph.nodes.is_empty(), "{}: empty graph", path.display());
        let dot = offlux::graph::to_dot(&graph);
        assert_eq!(dot.matches(" -> ").count(), graph.edges.len());
        assert!(offlux::graph::to_mermaid(&graph).lines().count() > graph.nodes.len());
        assert!(offlux::graph::to_json(&graph)["edges"].is_array());
        checked += 1;
    }
    assert!(
        checked >= 10,
        "expected the corpus's repositories, found {checked}"
    );
}
