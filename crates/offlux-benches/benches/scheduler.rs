//! Scheduler overhead: 100 000 synthetic nodes, each depending on 0-3 earlier nodes, with bodies that
//! only check their dependencies. Seeded in id order, so many nodes run before their dependencies,
//! park, and are woken: the time per node is the scheduler's own cost (registration, dispatch through
//! the pool, parking and waking).
//!
//! Run with `cargo bench --bench scheduler`; divide the time per iteration by 100 000 for ns per node.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use offlux::schedule::{Dispatcher, DrainLevel, Final, Options, Outcome, Scheduler};

const NODES: u32 = 100_000;

struct Synthetic {
    deps: Vec<Vec<u32>>,
    done: Vec<AtomicBool>,
}

impl Synthetic {
    /// A fixed pseudo-random graph (a linear congruential generator, so every run sees the same one).
    fn new(nodes: u32, max_deps: u64) -> Self {
        let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = move || {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            state >> 33
        };
        let deps = (0..nodes)
            .map(|node| {
                if node == 0 {
                    return Vec::new();
                }
                let count = next() % (max_deps + 1);
                (0..count)
                    .map(|_| (next() % u64::from(node)) as u32)
                    .collect()
            })
            .collect();
        let done = (0..nodes).map(|_| AtomicBool::new(false)).collect();
        Synthetic { deps, done }
    }

    fn reset(&self) {
        for flag in &self.done {
            flag.store(false, Ordering::Relaxed);
        }
    }
}

impl Dispatcher<u32> for Synthetic {
    fn dispatch(&self, id: &u32, _: DrainLevel) -> Outcome<u32> {
        let Some(deps) = self.deps.get(*id as usize) else {
            return Outcome::Terminal;
        };
        let waiting: Vec<u32> = deps
            .iter()
            .copied()
            .filter(|dep| {
                !self
                    .done
                    .get(*dep as usize)
                    .is_some_and(|flag| flag.load(Ordering::Acquire))
            })
            .collect();
        if !waiting.is_empty() {
            return Outcome::Blocked(waiting);
        }
        if let Some(flag) = self.done.get(*id as usize) {
            flag.store(true, Ordering::Release);
        }
        Outcome::Terminal
    }
}

fn schedule_all(world: &Synthetic, concurrency: usize) {
    world.reset();
    let scheduler = Scheduler::new(Options {
        concurrency,
        ..Options::default()
    });
    scheduler.handle().seed(0..NODES);
    let report = scheduler.run(world);
    // A bench that stopped scheduling early would measure nothing; check it finished the work.
    assert!(
        report.nodes.len() == NODES as usize
            && report.nodes.iter().all(|(_, end)| *end == Final::Terminal)
    );
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("schedule_100k");
    group.throughput(Throughput::Elements(u64::from(NODES)));
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(5));
    for (name, max_deps) in [("independent", 0), ("fan_in_0_3", 3)] {
        let world = Synthetic::new(NODES, max_deps);
        for concurrency in [1, 2, 4] {
            group.bench_with_input(
                BenchmarkId::new(name, concurrency),
                &concurrency,
                |b, &concurrency| {
                    b.iter(|| schedule_all(&world, concurrency));
                },
            );
        }
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
