//! Parity with ARX on the Adult data set, values measured by running ARX (see the issue
//! and ../shared/guide/arx-definitions.md).

use crate::common;

use cellsafe::algorithm;
use cellsafe::criteria::ModelSpec;
use cellsafe::metric::{Aggregate, MetricKind};
use cellsafe::observer::Silent;

fn k5() -> Vec<ModelSpec> {
    vec![ModelSpec::KAnonymity { k: 5 }]
}

#[test]
fn nine_qis_k5_no_suppression_dm() {
    let p = common::adult(true, k5(), 0.0, MetricKind::Discernibility, None);
    assert_eq!(p.lattice.size(), 12_960);
    let best = algorithm::optimal(&p, &Silent)
        .unwrap()
        .best
        .expect("a solution");
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
    let best = algorithm::optimal(&p, &Silent)
        .unwrap()
        .best
        .expect("a solution");
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
    let best = algorithm::optimal(&p, &Silent)
        .unwrap()
        .best
        .expect("a solution");
    assert!(
        (best.score.value - 0.36240672301036203).abs() < 1e-8,
        "{} at {:?}",
        best.score.value,
        best.levels
    );
    assert_eq!(best.suppressed_rows, 294);
}

// ARX's own JUnit cases on Adult (TestAnonymizationKAnonymity, -LDiversity, -TCloseness in the
// public ARX repository), the exact-search ones (practical monotonicity off). ARX's
// `createEntropyMetric(true)` is monotonic non-uniform entropy, `createNMEntropyMetric()` the
// non-monotonic one, `createDiscernabilityMetric(true)` DM*.

use cellsafe::criteria::Distance;

fn occupation() -> String {
    "occupation".into()
}

struct Case {
    all_quasi: bool,
    models: Vec<ModelSpec>,
    limit: f64,
    metric: MetricKind,
    score: Option<f64>,
    levels: Vec<u8>,
}

fn check(case: Case) {
    let p = common::adult(
        case.all_quasi,
        case.models.clone(),
        case.limit,
        case.metric,
        None,
    );
    let best = algorithm::optimal(&p, &Silent).unwrap().best;
    match (case.score, best) {
        (None, None) => {}
        (Some(score), Some(best)) => {
            let rel = (best.score.value - score).abs() / score.abs().max(1.0);
            assert!(
                rel < 1e-9,
                "{:?}: score {} at {:?}, ARX {} at {:?}",
                case.models,
                best.score.value,
                best.levels,
                score,
                case.levels
            );
            // ARX compares scores only; equal scores may sit at different nodes
            if best.levels != case.levels {
                let arx = p.evaluate(&case.levels).unwrap();
                assert!(
                    arx.acceptable && (arx.score.value - score).abs() / score.abs().max(1.0) < 1e-9
                );
            }
        }
        (want, got) => panic!("{:?}: ARX {want:?}, cellsafe {got:?}", case.models),
    }
}

#[test]
fn arx_junit_k_anonymity() {
    let models = |k| vec![ModelSpec::KAnonymity { k }];
    for (k, limit, score, levels) in [
        (5, 0.04, 255559.85455731067, vec![1, 0, 1, 1, 3, 2, 2, 0, 1]),
        (
            100,
            0.04,
            379417.3460570988,
            vec![1, 1, 1, 1, 3, 2, 2, 1, 1],
        ),
        (5, 0.0, 407289.5388925293, vec![1, 2, 1, 1, 3, 2, 2, 1, 1]),
        (100, 0.0, 453196.8932458743, vec![0, 4, 1, 1, 3, 2, 2, 1, 1]),
    ] {
        check(Case {
            all_quasi: true,
            models: models(k),
            limit,
            metric: MetricKind::Entropy,
            score: Some(score),
            levels,
        });
    }
}

#[test]
fn arx_junit_entropy_l_diversity() {
    let models = |l| {
        vec![ModelSpec::EntropyLDiversity {
            attribute: occupation(),
            l,
        }]
    };
    for (l, limit, score, levels) in [
        (
            5.0,
            0.04,
            Some(228878.2039109519),
            vec![1, 0, 1, 1, 2, 2, 2, 1],
        ),
        (100.0, 0.04, None, vec![]),
        (
            5.0,
            0.0,
            Some(324620.5269918695),
            vec![1, 1, 1, 1, 3, 2, 2, 1],
        ),
        (100.0, 0.0, None, vec![]),
    ] {
        check(Case {
            all_quasi: false,
            models: models(l),
            limit,
            metric: MetricKind::EntropyNm,
            score,
            levels,
        });
    }
}

#[test]
fn arx_junit_t_closeness() {
    let equal = |k| {
        vec![
            ModelSpec::TCloseness {
                attribute: occupation(),
                t: 0.2,
                distance: Distance::Equal,
            },
            ModelSpec::KAnonymity { k },
        ]
    };
    let hierarchical = |k| {
        vec![
            ModelSpec::KAnonymity { k },
            ModelSpec::TCloseness {
                attribute: occupation(),
                t: 0.2,
                distance: Distance::Hierarchical,
            },
        ]
    };
    let cases = [
        (
            equal(5),
            0.04,
            MetricKind::DiscernibilityStar,
            3.11880088E8,
            vec![1, 4, 1, 0, 3, 2, 2, 1],
        ),
        (
            equal(100),
            0.04,
            MetricKind::DiscernibilityStar,
            3.11880088E8,
            vec![1, 4, 1, 0, 3, 2, 2, 1],
        ),
        (
            hierarchical(5),
            0.04,
            MetricKind::Entropy,
            377622.78458729305,
            vec![1, 4, 0, 0, 3, 2, 2, 1],
        ),
        (
            equal(5),
            0.0,
            MetricKind::DiscernibilityStar,
            4.56853172E8,
            vec![1, 4, 1, 1, 3, 2, 2, 1],
        ),
        (
            equal(100),
            0.0,
            MetricKind::DiscernibilityStar,
            4.56853172E8,
            vec![1, 4, 1, 1, 3, 2, 2, 1],
        ),
        (
            hierarchical(5),
            0.0,
            MetricKind::Entropy,
            398400.0741806447,
            vec![0, 4, 1, 1, 3, 2, 2, 1],
        ),
        (
            hierarchical(100),
            0.0,
            MetricKind::Entropy,
            398400.0741806447,
            vec![0, 4, 1, 1, 3, 2, 2, 1],
        ),
    ];
    for (models, limit, metric, score, levels) in cases {
        check(Case {
            all_quasi: false,
            models,
            limit,
            metric,
            score: Some(score),
            levels,
        });
    }
}

/// Monotonic non-uniform entropy of `levels` over the 8 QIs (occupation sensitive), computed
/// from the CSV strings alone: Σ_j -Σ_x c(x)·log2(c(x)/c(g_j(x))).
fn entropy_from_strings(levels: &[u8]) -> f64 {
    use std::collections::HashMap;
    let dir = common::examples().join("adult");
    let data = std::fs::read_to_string(dir.join("adult.csv")).unwrap();
    let mut lines = data.lines();
    let header: Vec<&str> = lines.next().unwrap().split(';').collect();
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(';').collect()).collect();
    let quasi: Vec<&str> = header
        .iter()
        .copied()
        .filter(|h| *h != "occupation")
        .collect();
    let mut total = 0.0;
    for (j, name) in quasi.iter().enumerate() {
        let column = header.iter().position(|h| h == name).unwrap();
        let text =
            std::fs::read_to_string(dir.join(format!("adult_hierarchy_{name}.csv"))).unwrap();
        let general: HashMap<&str, &str> = text
            .lines()
            .map(|l| l.split(';').collect::<Vec<_>>())
            .map(|f| (f[0], f[levels[j] as usize]))
            .collect();
        let mut count: HashMap<&str, f64> = HashMap::new();
        let mut group: HashMap<&str, f64> = HashMap::new();
        for r in &rows {
            *count.entry(r[column]).or_default() += 1.0;
            *group.entry(general[r[column]]).or_default() += 1.0;
        }
        total -= count
            .iter()
            .map(|(x, c)| c * (c / group[general[x]]).log2())
            .sum::<f64>();
    }
    total
}

/// ARX's TestAnonymizationTCloseness case 3 (k=100, hierarchical t=0.2, 4%, monotonic
/// entropy) prints 390436.40440636466 at [1,4,1,0,3,1,2,1]. cellsafe finds the same node but
/// scores it 390765.61326019804, which the definition computed from the strings confirms
/// (docs/errata.md): the test keeps the oracle's value.
#[test]
fn arx_junit_t_closeness_case_3_on_the_oracle() {
    let levels = vec![1, 4, 1, 0, 3, 1, 2, 1];
    let oracle = entropy_from_strings(&levels);
    assert!((oracle - 390765.61326019804).abs() < 1e-6, "{oracle}");
    assert!((oracle - 390436.40440636466).abs() > 100.0);
    let models = vec![
        ModelSpec::KAnonymity { k: 100 },
        ModelSpec::TCloseness {
            attribute: occupation(),
            t: 0.2,
            distance: Distance::Hierarchical,
        },
    ];
    check(Case {
        all_quasi: false,
        models,
        limit: 0.04,
        metric: MetricKind::Entropy,
        score: Some(oracle),
        levels,
    });
}

/// The searches agree on Adult: exhaustive scan, tree walk and best-first give the same node
/// and score, and the minimal search's nodes are exactly the minimal acceptable ones.
#[test]
fn searches_agree_on_adult() {
    for (models, limit, metric) in [
        (k5(), 0.01, MetricKind::Loss),
        (k5(), 0.0, MetricKind::Discernibility),
        (
            vec![ModelSpec::DistinctLDiversity {
                attribute: occupation(),
                l: 3.0,
            }],
            0.05,
            MetricKind::EntropyNm,
        ),
        (
            vec![ModelSpec::TCloseness {
                attribute: occupation(),
                t: 0.2,
                distance: Distance::Ordered,
            }],
            0.05,
            MetricKind::Loss,
        ),
    ] {
        let p = common::adult(false, models.clone(), limit, metric, None);
        let (exhaustive, all) = algorithm::exhaustive(&p, &Silent).unwrap();
        let best = exhaustive.best.expect("a solution");
        for other in [
            algorithm::optimal(&p, &Silent).unwrap(),
            algorithm::optimal_walk(&p, &Silent).unwrap(),
        ] {
            let o = other.best.expect("a solution");
            assert_eq!(
                (o.levels.clone(), o.score.value),
                (best.levels.clone(), best.score.value),
                "{models:?}"
            );
        }
        let b = algorithm::best_first(&p, &Silent)
            .unwrap()
            .best
            .expect("a solution");
        assert_eq!(b.levels, best.levels);
        let want = common::minimal_acceptable(&all);
        let got: Vec<Vec<u8>> = algorithm::minimal(&p, &Silent)
            .unwrap()
            .minimal
            .into_iter()
            .map(|e| e.levels)
            .collect();
        assert_eq!(got, want, "{models:?}");
    }
}
