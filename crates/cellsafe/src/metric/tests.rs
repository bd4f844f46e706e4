//! The table of level bounds against the bounds computed node by node.

use std::collections::BTreeMap;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::{Aggregate, Metric, MetricKind, MetricSpec};
use crate::framework::lattice::Lattice;
use crate::framework::test_support::dataset;

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
