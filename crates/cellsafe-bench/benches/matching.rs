//! Set-based safety's perfect-matching reduction (`cellsafe::criteria::matching::usable`:
//! one maximum flow plus strongly connected components) on seeded synthetic bipartite
//! workloads (`cellsafe_bench::synth::bipartite`), from sparse to about Adult's size
//! (12,458 person types and 485,542 links for the original table).
//! `cargo bench -p cellsafe-bench --bench matching`

use std::hint::black_box;

use cellsafe::criteria::matching;
mod common;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};

fn usable(c: &mut Criterion) {
    let mut group = c.benchmark_group("perfect-matching reduction");
    // (persons, left types, right types, extra edges per left type)
    for (persons, left, right, extra) in [
        (2_000, 1_000, 1_000, 4),
        (30_000, 12_000, 12_000, 4),
        (30_000, 12_000, 12_000, 40),
    ] {
        let g = cellsafe_bench::synth::bipartite(persons, left, right, extra, 1);
        assert!(
            matching::usable(&g.left, &g.right, &g.edges).is_some(),
            "a perfect matching exists"
        );
        group.throughput(Throughput::Elements(g.edges.len() as u64));
        let id = format!(
            "{persons} persons, {}x{} types, {} edges",
            g.left.len(),
            g.right.len(),
            g.edges.len()
        );
        group.bench_function(BenchmarkId::from_parameter(id), |b| {
            b.iter(|| black_box(matching::usable(&g.left, &g.right, black_box(&g.edges))))
        });
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = common::quick();
    targets = usable
}
criterion_main!(benches);
