//! Loading the bundled Adult data: parsing and dictionary-encoding `adult.csv` (30,162
//! rows, 15 columns) from memory (the plain fast path, and the general reader), and preparing the whole Adult problem from files (CSV,
//! nine hierarchies, the snapshot of distinct quasi-identifier tuples).
//! `cargo bench -p cellsafe-bench --bench load`

use std::hint::black_box;
use std::path::Path;

use cellsafe::data::table::{CsvFormat, Table};

mod common;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};

fn load(c: &mut Criterion) {
    let mut group = c.benchmark_group("load Adult");
    let bytes = cellsafe_bench::adult::csv_bytes().expect("adult.csv");
    let format = CsvFormat {
        delimiter: b';',
        ..CsvFormat::default()
    };
    group.throughput(Throughput::Bytes(bytes.len() as u64));
    group.bench_function("parse and encode adult.csv", |b| {
        b.iter(|| {
            black_box(
                Table::from_bytes(&bytes, Path::new("adult.csv"), &format).expect("adult.csv"),
            )
        })
    });
    group.bench_function("parse and encode adult.csv, general reader", |b| {
        b.iter(|| {
            black_box(
                Table::from_reader(&bytes[..], Path::new("adult.csv"), &format).expect("adult.csv"),
            )
        })
    });
    let config = cellsafe_bench::adult::config().expect("the Adult job");
    group.bench_function("prepare the problem from files", |b| {
        b.iter(|| black_box(config.problem().expect("the Adult problem")))
    });
    group.finish();
}

criterion_group! {
    name = benches;
    config = common::quick();
    targets = load
}
criterion_main!(benches);
