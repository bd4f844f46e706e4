//! Loading the bundled Adult data: parsing and dictionary-encoding `adult.csv` (30,162
//! rows, 15 columns) from memory, and preparing the whole Adult problem from files (CSV,
//! nine hierarchies, the snapshot of distinct quasi-identifier tuples).
//! `cargo bench -p cellsafe-bench --bench load`

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};

fn load(c: &mut Criterion) {
    let mut group = c.benchmark_group("load Adult");
    group.throughput(Throughput::Bytes(
        cellsafe_bench::adult::csv_bytes().len() as u64
    ));
    group.bench_function("parse and encode adult.csv", |b| {
        b.iter(|| black_box(cellsafe_bench::adult::table().expect("adult.csv")))
    });
    let (_dir, config) = cellsafe_bench::adult::config().expect("the Adult job");
    group.bench_function("prepare the problem from files", |b| {
        b.iter(|| black_box(config.problem().expect("the Adult problem")))
    });
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    targets = load
}
criterion_main!(benches);
