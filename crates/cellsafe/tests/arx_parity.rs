//! Parity with ARX on the Adult data set, values measured by running ARX (see the issue
//! and ../shared/guide/arx-definitions.md).

mod common;

use cellsafe::metrics::{Aggregate, MetricKind};
use cellsafe::privacy::ModelSpec;
use cellsafe::search;

fn k5() -> Vec<ModelSpec> {
    vec![ModelSpec::KAnonymity { k: 5 }]
}

#[test]
fn nine_qis_k5_no_suppression_dm() {
    let p = common::adult(true, k5(), 0.0, MetricKind::Discernibility, None);
    assert_eq!(p.lattice.size(), 12_960);
    let best = search::optimal(&p, None).best.expect("a solution");
    assert_eq!(best.score.value, 33_627_534.0);
    assert_eq!(best.levels, vec![1, 1, 1, 2, 3, 2, 2, 1, 1]);
}

#[test]
fn nine_qis_k5_no_suppression_loss() {
    let p = common::adult(
        true,
        k5(),
        0.0,
        MetricKind::Loss,
        Some(Aggregate::GeometricMean),
    );
    let best = search::optimal(&p, None).best.expect("a solution");
    assert!(
        (best.score.value - 0.5731509655590044).abs() < 1e-8,
        "{}",
        best.score.value
    );
}

#[test]
fn nine_qis_k5_one_percent_loss() {
    let p = common::adult(
        true,
        k5(),
        0.01,
        MetricKind::Loss,
        Some(Aggregate::GeometricMean),
    );
    let best = search::optimal(&p, None).best.expect("a solution");
    assert!(
        (best.score.value - 0.36240672301036203).abs() < 1e-8,
        "{} at {:?}",
        best.score.value,
        best.levels
    );
    assert_eq!(best.suppressed_rows, 294);
}
