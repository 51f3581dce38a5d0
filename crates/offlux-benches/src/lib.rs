//! Nothing but the benchmarks under `benches/` (see the crate's manifest).
