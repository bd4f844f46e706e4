//! The table of level bounds against the bounds computed node by node.

use std::collections::BTreeMap;
use std::path::Path;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::{Aggregate, Metric, MetricKind, MetricSpec};
use crate::data::table::Table;
use crate::data::Role;
use crate::framework::dataset::Dataset;
use crate::framework::lattice::Lattice;
use crate::hierarchy::Hierarchy;

/// A random table of three quasi-identifiers with hierarchies of 1 to 3 levels above the
/// leaves (groups of 2, then 4, ...).
fn dataset(rng: &mut ChaCha8Rng) -> Dataset {
    let dims = 3;
    let leaves: Vec<usize> = (0..dims).map(|_| rng.gen_range(2..9)).collect();
    let rows: Vec<Vec<String>> = (0..rng.gen_range(1..40))
        .map(|_| {
            leaves
                .iter()
                .enumerate()
                .map(|(j, &n)| format!("q{j}v{}", rng.gen_range(0..n)))
                .collect()
        })
        .collect();
    let header = (0..dims).map(|j| format!("q{j}")).collect();
    let table = Table::from_rows(header, &rows).unwrap();
    let hierarchies = leaves
        .iter()
        .enumerate()
        .map(|(j, &n)| {
            let height = rng.gen_range(1..4u32);
            let rows: Vec<Vec<String>> = (0..n)
                .map(|v| {
                    let mut row = vec![format!("q{j}v{v}")];
                    row.extend((1..height).map(|h| format!("g{h}-{}", v >> h)));
                    row.push("*".into());
                    row
                })
                .collect();
            (
                Hierarchy::from_rows(&rows, Path::new("h"), None).unwrap(),
                "h".into(),
            )
        })
        .collect();
    Dataset::new(
        table,
        vec![Role::QuasiIdentifying; dims],
        hierarchies,
        vec![],
    )
    .unwrap()
}

#[test]
fn table_of_level_bounds_equals_each_bound_to_the_bit() {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let aggregates = [
        Aggregate::Sum,
        Aggregate::ArithmeticMean,
        Aggregate::GeometricMean,
        Aggregate::Maximum,
        Aggregate::Rank,
    ];
    let mut tables = 0;
    for _ in 0..30 {
        let data = dataset(&mut rng);
        let max = data.max_levels();
        let lattice = Lattice::new(max.clone());
        for kind in MetricKind::ALL
            .into_iter()
            .filter(|&k| k != MetricKind::SfQl)
        {
            for aggregate in aggregates {
                let weights: BTreeMap<String, f64> = data
                    .quasi
                    .iter()
                    .map(|q| (q.name.clone(), rng.gen_range(0..4) as f64 * 0.5))
                    .collect();
                let spec = MetricSpec {
                    name: kind,
                    aggregate: Some(aggregate),
                    gs_factor: [0.0, 0.3, 0.5, 1.0][rng.gen_range(0..4)],
                    weights,
                };
                let metric = Metric::bind(&spec, &data).unwrap();
                let Some(values) = metric.level_bounds(&max) else {
                    // only ranks and bounds that are not sums of level terms go without
                    let term_metric = matches!(
                        kind,
                        MetricKind::Loss
                            | MetricKind::Entropy
                            | MetricKind::EntropyNm
                            | MetricKind::Precision
                            | MetricKind::PrecisionNm
                            | MetricKind::Height
                    );
                    assert!(!term_metric || aggregate == Aggregate::Rank, "{spec:?}");
                    continue;
                };
                tables += 1;
                assert_eq!(values.len(), lattice.size());
                for (i, value) in values.iter().enumerate() {
                    let levels = lattice.levels(i);
                    let bound = metric.level_bound(&levels).unwrap();
                    assert_eq!(
                        value.to_bits(),
                        bound.value.to_bits(),
                        "{spec:?} {levels:?}"
                    );
                }
            }
        }
    }
    assert!(tables > 100);
}
