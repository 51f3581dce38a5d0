//! The kustomize engine in-process: every Flux Kustomization path of one corpus repository that
//! holds a kustomization file, built as Flux builds it (`LoadRestrictionsNone`, input order). Divide
//! the time per iteration by the number of paths (printed first) for the time per build.
//!
//! `scripts/bench-kustomize` compares whole processes with the reference side by side.
//!
//! Run with `cargo bench --bench kustomize`.

#![allow(clippy::unwrap_used, clippy::expect_used)]
#![allow(clippy::print_stderr, reason = "a benchmark says what it measured")]

use std::path::{Path, PathBuf};

use criterion::{criterion_group, criterion_main, Criterion};
use offlux::discovery::{apply_variable_defaults, discover, secure_join, Options};
use offlux::kustomize;

fn paths(root: &Path) -> Vec<PathBuf> {
    let repository = discover(&Options::new(root)).expect("discovery");
    let mut dirs: Vec<PathBuf> = repository
        .flux_objects
        .iter()
        .filter_map(|f| f.as_kustomization())
        .filter(|k| k.source_ref.kind == "GitRepository")
        .filter_map(|k| apply_variable_defaults(&k.path).ok())
        .map(|p| secure_join(&repository.root, &p))
        .filter(|d| {
            kustomize::KUSTOMIZATION_FILE_NAMES
                .iter()
                .any(|n| d.join(n).is_file())
        })
        .collect();
    dirs.sort();
    dirs.dedup();
    dirs
}

fn bench(c: &mut Criterion) {
    let root = offlux_test_data::root().join("corpus/repos/joryirving__home-ops");
    assert!(
        root.is_dir(),
        "corpus repository not found at `{}`",
        root.display()
    );
    let dirs = paths(&root);
    let options = kustomize::Options {
        load_restrictor: kustomize::LoadRestrictor::None,
        reorder: kustomize::Reorder::None,
        ..kustomize::Options::default()
    };
    eprintln!(
        "joryirving__home-ops: {} kustomization paths per iteration",
        dirs.len()
    );
    c.bench_function("kustomize/joryirving-all-paths", |b| {
        b.iter(|| {
            dirs.iter()
                .filter(|d| kustomize::build(d, &options).is_ok())
                .count()
        })
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
