//! The optimal search on the bundled Adult data (30,162 rows), the data loaded once, in
//! the seven scenarios of `cellsafe-bench search` (k = 5 with 0, 1 and 5 % suppression
//! under Loss, DM, distinct l = 3, t = 0.2, and nine quasi-identifiers under DM): each
//! search strategy (best-first, tagging, the rollup walk) is timed.
//! `cargo bench -p cellsafe-bench --bench search`

use std::hint::black_box;

use cellsafe::algorithm;
use cellsafe::observer::Silent;
mod common;

use criterion::{criterion_group, criterion_main, Criterion};

fn optimal(c: &mut Criterion) {
    let config = cellsafe_bench::adult::config().expect("the Adult job");
    let mut group = c.benchmark_group("optimal search, Adult");
    for s in cellsafe_bench::scenarios::scenarios() {
        let problem = cellsafe_bench::scenarios::problem(&config, &s).expect("the problem");
        let found = algorithm::optimal(&problem, &Silent).expect("the optimal search");
        assert!(
            found.best.is_some(),
            "{}: a transformation is found",
            s.name
        );
        group.bench_function(s.name, |b| {
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
