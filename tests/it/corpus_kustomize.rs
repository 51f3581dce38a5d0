//! The kustomize engine against the reference (`../shared/oracle/kustomize-build`, kubectl's
//! kustomize v5.5.0) on every Flux Kustomization path of the corpus that holds a kustomization
//! file, built as Flux builds it (`LoadRestrictionsNone`, input order). Documents are compared as
//! data (same documents, same order, same values); byte-identical outputs are counted too.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use offlux::discovery::{apply_variable_defaults, discover, secure_join, Options};
use offlux::kustomize;
use offlux::yaml::{canonical_kyaml, emit_stream, parse_stream, to_json_kyaml, ParseOptions};

use crate::common::kustomize_oracle;
use crate::common::test_data;

use kustomize_oracle::kustomize_build;

fn shared() -> PathBuf {
    test_data::root()
}

fn oracle(dir: &Path) -> Result<String, String> {
    kustomize_build(&shared(), dir, true)
}

fn as_data(text: &str) -> Vec<serde_json::Value> {
    parse_stream(text, &ParseOptions::default())
        .unwrap_or_default()
        .iter()
        .filter(|d| !d.root.is_null())
        .map(|d| to_json_kyaml(&d.root))
        .collect()
}

#[test]
fn corpus_kustomization_paths_match_the_reference() {
    let Some(repos) = test_data::dir(
        "corpus/repos",
        "the corpus's kustomizations against the reference",
    ) else {
        return;
    };
    let mut dirs: BTreeSet<PathBuf> = BTreeSet::new();
    for entry in std::fs::read_dir(&repos).expect("read corpus").flatten() {
        let root = entry.path();
        if !root.is_dir() {
            continue;
        }
        let repository = discover(&Options::new(&root)).expect("discovery");
        for flux in &repository.flux_objects {
            let Some(spec) = flux.as_kustomization() else {
                continue;
            };
            if spec.source_ref.kind != "GitRepository" {
                continue;
            }
            let Ok(path) = apply_variable_defaults(&spec.path) else {
                continue;
            };
            let dir = secure_join(&repository.root, &path);
            if kustomize::KUSTOMIZATION_FILE_NAMES
                .iter()
                .any(|n| dir.join(n).is_file())
            {
                dirs.insert(dir);
            }
        }
    }
    let options = kustomize::Options {
        load_restrictor: kustomize::LoadRestrictor::None,
        reorder: kustomize::Reorder::None,
        ..kustomize::Options::default()
    };
    let (mut same, mut exact, mut both_fail) = (0, 0, 0);
    let mut differences = Vec::new();
    for dir in &dirs {
        let ours = kustomize::build(dir, &options);
        let reference = oracle(dir);
        match (ours, reference) {
            (Ok(build), Ok(expected)) => {
                let printed = emit_stream(
                    &build
                        .objects
                        .iter()
                        .map(canonical_kyaml)
                        .collect::<Vec<_>>(),
                );
                if printed == expected {
                    exact += 1;
                }
                if as_data(&printed) == as_data(&expected) {
                    same += 1;
                } else {
                    differences.push(format!("{}: output differs", dir.display()));
                }
            }
            (Err(_), Err(_)) => both_fail += 1,
            (Err(error), Ok(_)) => {
                differences.push(format!("{}: offlux failed: {error}", dir.display()))
            }
            (Ok(_), Err(error)) => differences.push(format!(
                "{}: only the reference failed: {}",
                dir.display(),
                error.lines().next().unwrap_or("")
            )),
        }
    }
    for difference in &differences {
        eprintln!("  DIFF {difference}");
    }
    println!(
        "corpus kustomize: {same} equal ({exact} byte-identical), {both_fail} fail in both, {} differ, of {} paths",
        differences.len(),
        dirs.len()
    );
    assert!(
        dirs.len() > 300,
        "expected the corpus's Kustomization paths, found {}",
        dirs.len()
    );
    let agreeing = same + both_fail;
    assert!(
        agreeing as f64 >= 0.95 * dirs.len() as f64,
        "only {agreeing} of {} corpus paths agree with the reference",
        dirs.len()
    );
}
