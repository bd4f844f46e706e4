//! The optimal search on the bundled Adult data (30,162 rows, eight quasi-identifiers,
//! lattice of 4,320 nodes), the data loaded once: the bundled job (k = 5, at most 1% of
//! rows suppressed, Loss) and the same without suppression.
//! `cargo bench -p cellsafe-bench --bench search`

use std::hint::black_box;

use cellsafe::algorithm;
use cellsafe::observer::Silent;
mod common;

use criterion::{criterion_group, criterion_main, Criterion};

fn optimal(c: &mut Criterion) {
    let config = cellsafe_bench::adult::config().expect("the Adult job");
    let mut group = c.benchmark_group("optimal search, Adult");
    for (name, limit) in [("k=5 1% Loss", 0.01), ("k=5 0% Loss", 0.0)] {
        let mut config = config.clone();
        config.suppression_limit = limit;
        let problem = config.problem().expect("the Adult problem");
        let expected = algorithm::optimal(&problem, &Silent)
            .expect("the optimal search")
            .best
            .map(|b| b.levels);
        assert!(expected.is_some(), "{name}: a transformation is found");
        group.bench_function(name, |b| {
            b.iter(|| black_box(algorithm::optimal(black_box(&problem), &Silent)))
        });
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = common::quick();
    targets = optimal
}
criterion_main!(benches);
