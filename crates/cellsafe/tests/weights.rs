//! Row weights: a search on the frequency set of a table (its distinct (quasi-identifier,
//! sensitive) tuples, each weighted by its count) finds what the search on the full table
//! finds, for every privacy model and metric that can run on weights; the features that
//! need one row per person refuse a weighted dataset with a typed error.

use crate::common;

use std::collections::HashMap;
use std::path::Path;

use cellsafe::algorithm;
use cellsafe::algorithm::problem::{Evaluation, Problem};
use cellsafe::criteria::{Distance, Estimator, ModelSpec};
use cellsafe::data::table::Table;
use cellsafe::data::Role;
use cellsafe::error::{DatasetError, Error};
use cellsafe::framework::dataset::Dataset;
use cellsafe::hierarchy::Hierarchy;
use cellsafe::metric::{MetricKind, MetricSpec};
use cellsafe::observer::Silent;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// A row: its quasi-identifier leaves and its sensitive value.
type Row = (Vec<u32>, u32);

/// A random small table: per QI its leaves and level widths, rows of (QI leaves, sensitive).
#[derive(Debug, Clone)]
struct Case {
    qis: Vec<(u32, Vec<u32>)>,
    /// Values of the sensitive attribute: s0..s{sensitive}.
    sensitive: u32,
    rows: Vec<(Vec<u32>, u32)>,
}

fn random_case(rng: &mut ChaCha8Rng) -> Case {
    let dims = rng.gen_range(1..=3);
    let qis: Vec<(u32, Vec<u32>)> = (0..dims)
        .map(|_| {
            let leaves = rng.gen_range(2..6u32);
            let mut widths = Vec::new();
            let mut w = 1;
            for _ in 0..rng.gen_range(0..3) {
                w *= rng.gen_range(2..4u32);
                if w < leaves {
                    widths.push(w);
                }
            }
            (leaves, widths)
        })
        .collect();
    let sensitive = rng.gen_range(2..5u32);
    // few distinct tuples, many repeats: weights well above 1
    let distinct = rng.gen_range(1..12usize);
    let pool: Vec<(Vec<u32>, u32)> = (0..distinct)
        .map(|_| {
            (
                qis.iter().map(|(l, _)| rng.gen_range(0..*l)).collect(),
                // skewed, so that the sensitive distribution is not uniform
                rng.gen_range(0..sensitive).min(rng.gen_range(0..sensitive)),
            )
        })
        .collect();
    let n = rng.gen_range(1..60usize);
    let rows = (0..n)
        .map(|_| pool[rng.gen_range(0..pool.len())].clone())
        .collect();
    Case {
        qis,
        sensitive,
        rows,
    }
}

fn header(case: &Case) -> Vec<String> {
    let mut header: Vec<String> = (0..case.qis.len()).map(|j| format!("q{j}")).collect();
    header.push("s".into());
    header
}

fn strings(row: &(Vec<u32>, u32)) -> Vec<String> {
    let mut r: Vec<String> = row
        .0
        .iter()
        .enumerate()
        .map(|(j, x)| format!("q{j}v{x}"))
        .collect();
    r.push(format!("s{}", row.1));
    r
}

/// The dataset of `rows`, weighted by `weights` when given.
fn dataset(case: &Case, rows: &[(Vec<u32>, u32)], weights: Option<Vec<u32>>) -> Dataset {
    let table =
        Table::from_rows(header(case), &rows.iter().map(strings).collect::<Vec<_>>()).unwrap();
    let mut roles = vec![Role::QuasiIdentifying; case.qis.len()];
    roles.push(Role::Sensitive);
    let hierarchies = case
        .qis
        .iter()
        .enumerate()
        .map(|(j, (leaves, widths))| {
            let rows = common::hierarchy_rows(j, *leaves, widths);
            (
                Hierarchy::from_rows(&rows, Path::new("h"), None).unwrap(),
                "h".into(),
            )
        })
        .collect();
    // the sensitive values in pairs under one root (hierarchical t-closeness)
    let srows: Vec<Vec<String>> = (0..case.sensitive)
        .map(|v| vec![format!("s{v}"), format!("g{}", v / 2), "*".into()])
        .collect();
    let shierarchy = Hierarchy::from_rows(&srows, Path::new("s"), None).unwrap();
    let data = Dataset::new(table, roles, hierarchies, vec![Some(shierarchy)]).unwrap();
    match weights {
        Some(w) => data.with_weights(w).unwrap(),
        None => data,
    }
}

/// The frequency set of `case`'s rows, grouped here independently of the crate: the
/// distinct rows and their counts, in order of first occurrence, or shuffled by `rng`.
fn frequency_set(case: &Case, rng: Option<&mut ChaCha8Rng>) -> (Vec<(Vec<u32>, u32)>, Vec<u32>) {
    let mut counts: HashMap<(Vec<u32>, u32), (usize, u32)> = HashMap::new();
    for (r, row) in case.rows.iter().enumerate() {
        counts.entry(row.clone()).or_insert((r, 0)).1 += 1;
    }
    let mut tuples: Vec<(Row, (usize, u32))> = counts.into_iter().collect();
    tuples.sort_by_key(|(_, (first, _))| *first);
    if let Some(rng) = rng {
        tuples.shuffle(rng);
    }
    tuples.into_iter().map(|(t, (_, n))| (t, n)).unzip()
}

fn models() -> Vec<(&'static str, Vec<ModelSpec>)> {
    let s = || "s".to_string();
    let t = |distance| ModelSpec::TCloseness {
        attribute: s(),
        t: 0.2,
        distance,
    };
    vec![
        ("k=2", vec![ModelSpec::KAnonymity { k: 2 }]),
        ("k=5", vec![ModelSpec::KAnonymity { k: 5 }]),
        (
            "distinct-l",
            vec![ModelSpec::DistinctLDiversity {
                attribute: s(),
                l: 2.0,
            }],
        ),
        (
            "entropy-l",
            vec![ModelSpec::EntropyLDiversity {
                attribute: s(),
                l: 1.5,
            }],
        ),
        (
            "recursive-cl",
            vec![ModelSpec::RecursiveClDiversity {
                attribute: s(),
                c: 2.0,
                l: 2,
            }],
        ),
        ("t-equal", vec![t(Distance::Equal)]),
        ("t-ordered", vec![t(Distance::Ordered)]),
        ("t-hierarchical", vec![t(Distance::Hierarchical)]),
        (
            "delta-disclosure",
            vec![ModelSpec::DeltaDisclosure {
                attribute: s(),
                delta: 1.0,
            }],
        ),
        (
            "beta-likeness",
            vec![ModelSpec::BetaLikeness {
                attribute: s(),
                beta: 1.0,
                enhanced: false,
            }],
        ),
        (
            "enhanced-beta-likeness",
            vec![ModelSpec::BetaLikeness {
                attribute: s(),
                beta: 1.0,
                enhanced: true,
            }],
        ),
        (
            "confidential",
            vec![ModelSpec::Confidential {
                attribute: s(),
                values: vec!["s0".into()],
            }],
        ),
        (
            "average-risk",
            vec![ModelSpec::AverageRisk {
                threshold: 0.3,
                highest_risk: None,
                records_at_risk: None,
            }],
        ),
        (
            "average-risk-at-risk",
            vec![ModelSpec::AverageRisk {
                threshold: 0.5,
                highest_risk: Some(0.34),
                records_at_risk: Some(0.2),
            }],
        ),
        (
            "sample-uniqueness",
            vec![ModelSpec::SampleUniqueness { threshold: 0.05 }],
        ),
        (
            "population-uniqueness-dankar",
            vec![ModelSpec::PopulationUniqueness {
                threshold: 0.05,
                estimator: Estimator::Dankar,
                population_size: None,
                sampling_fraction: Some(0.2),
            }],
        ),
        (
            "population-uniqueness-zayatz",
            vec![ModelSpec::PopulationUniqueness {
                threshold: 0.05,
                estimator: Estimator::Zayatz,
                population_size: None,
                sampling_fraction: Some(0.5),
            }],
        ),
        (
            "population-uniqueness-pitman",
            vec![ModelSpec::PopulationUniqueness {
                threshold: 0.1,
                estimator: Estimator::Pitman,
                population_size: None,
                sampling_fraction: Some(0.1),
            }],
        ),
        (
            "k=2 and t-hierarchical",
            vec![ModelSpec::KAnonymity { k: 2 }, t(Distance::Hierarchical)],
        ),
    ]
}

fn problem(data: Dataset, models: &[ModelSpec], limit: f64, metric: MetricKind) -> Option<Problem> {
    // a model that cannot bind to this table (a value that never occurs) binds to neither
    if models
        .iter()
        .any(|m| cellsafe::criteria::Model::bind(m, &data).is_err())
    {
        return None;
    }
    let metric = MetricSpec {
        name: metric,
        ..MetricSpec::default()
    };
    Some(Problem::new(data, models, limit, &metric).unwrap())
}

fn close(a: f64, b: f64) -> bool {
    a == b || (a - b).abs() <= 1e-9 * a.abs().max(b.abs()) || (a.is_nan() && b.is_nan())
}

/// Per node of the lattice: acceptable, suppressed persons, and with `scores` the score.
fn same_evaluations(full: &[Evaluation], weighted: &[Evaluation], scores: bool, what: &str) {
    assert_eq!(full.len(), weighted.len(), "{what}");
    for (a, b) in full.iter().zip(weighted) {
        assert_eq!(a.levels, b.levels, "{what}");
        assert_eq!(
            a.acceptable, b.acceptable,
            "{what}: acceptable at {:?}",
            a.levels
        );
        assert_eq!(
            a.suppressed_rows, b.suppressed_rows,
            "{what}: suppressed persons at {:?}",
            a.levels
        );
        assert!(
            !scores || close(a.score.value, b.score.value),
            "{what}: score at {:?}: {} vs {}",
            a.levels,
            a.score.value,
            b.score.value
        );
    }
}

fn class_sizes(p: &Problem, levels: &[u8]) -> Vec<u32> {
    let mut sizes = p.classes(levels).counts.clone();
    sizes.sort_unstable();
    sizes
}

/// The optimum of `full` and of `weighted` agree: same levels (or a tie in score), same
/// score, suppressed persons and class sizes.
fn same_optimum(full: &Problem, weighted: &Problem, what: &str) {
    let a = algorithm::optimal(full, &Silent).unwrap().best;
    let b = algorithm::optimal(weighted, &Silent).unwrap().best;
    match (a, b) {
        (None, None) => {}
        (Some(a), Some(b)) => {
            assert!(
                close(a.score.value, b.score.value),
                "{what}: optimal score {} vs {}",
                a.score.value,
                b.score.value
            );
            if a.levels == b.levels {
                assert_eq!(a.suppressed_rows, b.suppressed_rows, "{what}");
                assert_eq!(
                    class_sizes(full, &a.levels),
                    class_sizes(weighted, &b.levels),
                    "{what}: class sizes of the optimum"
                );
            } else {
                // a tie: each optimum is as good on the other side
                let on_weighted = weighted.evaluate(&a.levels).unwrap();
                assert!(on_weighted.acceptable, "{what}");
                assert!(close(on_weighted.score.value, b.score.value), "{what}");
            }
        }
        (a, b) => panic!("{what}: optimum {a:?} vs {b:?}"),
    }
}

#[test]
fn frequency_set_searches_as_the_full_table() {
    let mut rng = ChaCha8Rng::seed_from_u64(0x5eed_3e19);
    // the cases drawn in turn from one generator (so always the same ones), then compared
    // on two threads: each case is compared on its own, and the sums do not depend on
    // which thread compared it
    let drawn: Vec<Drawn> = (0..60)
        .map(|_| {
            let case = random_case(&mut rng);
            let in_order = frequency_set(&case, None);
            let shuffled = frequency_set(&case, Some(&mut rng));
            (case, in_order, shuffled)
        })
        .collect();
    let (cases, weights_matter) = std::thread::scope(|scope| {
        let halves: Vec<_> = [0, 1]
            .into_iter()
            .map(|half| {
                let drawn = &drawn;
                scope.spawn(move || {
                    let models = models();
                    drawn
                        .iter()
                        .skip(half)
                        .step_by(2)
                        .map(|d| compare_weighted(d, &models))
                        .fold((0, 0), |(a, b), (c, d)| (a + c, b + d))
                })
            })
            .collect();
        halves
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
            .fold((0, 0), |(a, b), (c, d)| (a + c, b + d))
    });
    assert!(cases > 10_000, "{cases} cases compared");
    // most comparisons differ without the weights: the test would see them ignored
    assert!(weights_matter * 2 > cases, "{weights_matter} of {cases}");
}

/// A random case with its frequency set in order of first occurrence and shuffled.
type Drawn = (Case, (Vec<Row>, Vec<u32>), (Vec<Row>, Vec<u32>));

/// [`frequency_set_searches_as_the_full_table`] on one case: the number of weighted
/// searches compared with the full table's, and of those where the weights mattered.
fn compare_weighted(
    (case, (tuples, counts), (shuffled, shuffled_counts)): &Drawn,
    models: &[(&'static str, Vec<ModelSpec>)],
) -> (usize, usize) {
    let mut cases = 0;
    let mut weights_matter = 0;
    for (name, specs) in models {
        // the risk-based models suppress the smallest classes, ties broken by the first
        // row (as ARX does): in another order of tuples, another class of a tied size
        // may go, which changes scores but not the verdicts or persons suppressed
        let order_free = !specs.iter().any(|m| {
            matches!(
                m,
                ModelSpec::AverageRisk { .. }
                    | ModelSpec::SampleUniqueness { .. }
                    | ModelSpec::PopulationUniqueness { .. }
            )
        });
        for limit in [0.0, 0.1, 0.4] {
            for metric in MetricKind::ALL
                .into_iter()
                .filter(|&m| m != MetricKind::SfQl)
            {
                let what = format!("{name}, limit {limit}, {metric:?}, {case:?}");
                let Some(full) = problem(dataset(case, &case.rows, None), specs, limit, metric)
                else {
                    continue;
                };
                let (_, all_full) = algorithm::exhaustive(&full, &Silent).unwrap();
                for (tuples, counts, in_order) in
                    [(tuples, counts, true), (shuffled, shuffled_counts, false)]
                {
                    let what = format!("{what}, first-occurrence order {in_order}");
                    let weighted = problem(
                        dataset(case, tuples, Some(counts.clone())),
                        specs,
                        limit,
                        metric,
                    )
                    .expect("binds as the full table");
                    assert_eq!(weighted.data.persons(), case.rows.len() as u64);
                    assert_eq!(weighted.data.rows(), tuples.len());
                    assert_eq!(weighted.max_suppressed, full.max_suppressed, "{what}");
                    let (_, all_weighted) = algorithm::exhaustive(&weighted, &Silent).unwrap();
                    let scores = in_order || order_free;
                    same_evaluations(&all_full, &all_weighted, scores, &what);
                    if scores {
                        same_optimum(&full, &weighted, &what);
                    }
                    cases += 1;
                }
                // the distinct tuples without their weights: weights must matter somewhere
                if counts.iter().any(|&c| c > 1) {
                    let distinct = problem(dataset(case, tuples, None), specs, limit, metric);
                    if let Some(distinct) = distinct {
                        let (_, all_distinct) = algorithm::exhaustive(&distinct, &Silent).unwrap();
                        if all_distinct.iter().zip(&all_full).any(|(a, b)| {
                            a.acceptable != b.acceptable
                                || a.suppressed_rows != b.suppressed_rows
                                || !close(a.score.value, b.score.value)
                        }) {
                            weights_matter += 2;
                        }
                    }
                }
            }
        }
    }
    (cases, weights_matter)
}

/// One case by hand, where the weights decide the answer: two distinct tuples, one of
/// them three persons; 2-anonymity holds at the bottom only with the weights.
#[test]
fn weights_change_the_answer() {
    let case = Case {
        qis: vec![(2, vec![])],
        sensitive: 2,
        rows: vec![(vec![0], 0), (vec![0], 0), (vec![1], 1), (vec![1], 1)],
    };
    let tuples = vec![(vec![0], 0), (vec![1], 1)];
    let k2 = [ModelSpec::KAnonymity { k: 2 }];
    let full = problem(dataset(&case, &case.rows, None), &k2, 0.0, MetricKind::Loss).unwrap();
    let weighted = problem(
        dataset(&case, &tuples, Some(vec![2, 2])),
        &k2,
        0.0,
        MetricKind::Loss,
    )
    .unwrap();
    let distinct = problem(dataset(&case, &tuples, None), &k2, 0.0, MetricKind::Loss).unwrap();
    let best = |p: &Problem| algorithm::optimal(p, &Silent).unwrap().best.unwrap().levels;
    assert_eq!(best(&full), vec![0]);
    assert_eq!(best(&weighted), vec![0]);
    assert_eq!(best(&distinct), vec![1]);
    assert_eq!(class_sizes(&weighted, &[0]), vec![2, 2]);
}

fn weighted_error(e: Error) -> &'static str {
    match e {
        Error::Dataset(DatasetError::WeightedUnsupported(what)) => what,
        e => panic!("not a weighted-dataset error: {e}"),
    }
}

#[test]
fn bad_weights_are_refused() {
    let case = Case {
        qis: vec![(2, vec![])],
        sensitive: 2,
        rows: vec![(vec![0], 0), (vec![1], 1)],
    };
    let data = || dataset(&case, &case.rows, None);
    let dataset_error = |e: Error| match e {
        Error::Dataset(e) => e,
        e => panic!("not a dataset error: {e}"),
    };
    assert_eq!(
        dataset_error(data().with_weights(vec![1]).unwrap_err()),
        DatasetError::WeightsLength {
            rows: 2,
            weights: 1
        }
    );
    assert_eq!(
        dataset_error(data().with_weights(vec![1, 0]).unwrap_err()),
        DatasetError::ZeroWeight(1)
    );
    assert_eq!(
        dataset_error(data().with_weights(vec![u32::MAX, 1]).unwrap_err()),
        DatasetError::TooManyPersons(u32::MAX as u64 + 1)
    );
    let unweighted = data();
    assert_eq!(unweighted.weights(), None);
    assert_eq!(unweighted.persons(), 2);
    let weighted = data().with_weights(vec![3, 4]).unwrap();
    assert_eq!(weighted.weights(), Some(&[3, 4][..]));
    assert_eq!((weighted.rows(), weighted.persons()), (2, 7));
}

#[test]
fn features_needing_one_row_per_person_refuse_weights() {
    let case = Case {
        qis: vec![(4, vec![2])],
        sensitive: 2,
        rows: vec![(vec![0], 0), (vec![1], 1), (vec![2], 0), (vec![3], 1)],
    };
    let weighted = || dataset(&case, &case.rows, Some(vec![2, 2, 3, 3]));
    let k2 = [ModelSpec::KAnonymity { k: 2 }];
    let problem =
        || Problem::new(weighted(), &k2, 0.0, &MetricSpec::default()).expect("the search runs");
    // releasing rows: the anonymizer, and a released table
    let e = cellsafe::Anonymizer::from_dataset(weighted())
        .models(k2.clone())
        .run()
        .unwrap_err();
    assert!(weighted_error(e).contains("releases rows"));
    let p = problem();
    let e = cellsafe::release::Released::new(&p, &[1]).err().unwrap();
    assert_eq!(weighted_error(e), "releasing rows");
    // microaggregation releases rows too: the anonymizer refuses before it
    let e = cellsafe::Anonymizer::from_dataset(weighted())
        .models(k2.clone())
        .microaggregate(vec![])
        .run()
        .unwrap_err();
    assert!(weighted_error(e).contains("releases rows"));
    // local recoding
    let e = algorithm::local::mondrian::mondrian(&p, &Default::default(), &Silent).unwrap_err();
    assert_eq!(weighted_error(e), "local recoding (Mondrian)");
    // set-based generalization
    let e = algorithm::setbased::run(&p, &Default::default())
        .err()
        .unwrap();
    assert_eq!(weighted_error(e), "set-based generalization");
    // δ-presence: a research subset of an unweighted table is not weighted afterwards
    // (a weighted table's subset keeps its weights: `research_subsets_of_weighted_tables`)
    let subset = dataset(&case, &case.rows, None)
        .research_subset(vec![0, 2])
        .unwrap();
    let e = subset.with_weights(vec![1, 1]).unwrap_err();
    assert!(weighted_error(e).contains("δ-presence"));
}

#[test]
fn logical_safety_refuses_weights() {
    let config = cellsafe::job::config::Config::from_file(
        &common::examples().join("papers").join("linking8.toml"),
    )
    .unwrap();
    let data = config.problem().unwrap().data;
    let rows = data.rows();
    let e = data.with_weights(vec![1; rows]).unwrap_err();
    assert!(weighted_error(e).contains("[safety]"));
}

/// A research subset of a frequency set (its tuples weighted by their rows, the members
/// whole tuples) is the subset of the table it counts: the same persons, the same
/// population, and the same risks and δ-presence verdicts at every node (the journalist
/// risk reads each class's population count).
#[test]
fn research_subsets_of_weighted_tables() {
    use cellsafe::job::risk::{risk, Population};
    let case = Case {
        qis: vec![(6, vec![2, 4]), (4, vec![2])],
        sensitive: 3,
        rows: vec![
            (vec![0, 0], 0),
            (vec![1, 1], 1),
            (vec![2, 0], 2),
            (vec![3, 3], 0),
            (vec![4, 2], 1),
            (vec![5, 1], 2),
            (vec![0, 3], 1),
        ],
    };
    let weights = vec![3, 1, 4, 2, 5, 1, 2];
    let members = vec![0u32, 2, 3, 5];
    // the table the frequency set counts: each tuple as many times as its weight
    let mut expanded = Vec::new();
    let mut expanded_members = Vec::new();
    for (t, row) in case.rows.iter().enumerate() {
        for _ in 0..weights[t] {
            if members.contains(&(t as u32)) {
                expanded_members.push(expanded.len() as u32);
            }
            expanded.push(row.clone());
        }
    }
    let whole = dataset(&case, &expanded, None)
        .research_subset(expanded_members)
        .unwrap();
    let counted = dataset(&case, &case.rows, Some(weights))
        .research_subset(members)
        .unwrap();
    assert_eq!(counted.persons(), whole.persons());
    assert_eq!(
        counted.population().unwrap().persons(),
        whole.population().unwrap().persons()
    );
    let models = [
        ModelSpec::KAnonymity { k: 2 },
        ModelSpec::DeltaPresence {
            delta_min: 0.2,
            delta_max: 0.8,
        },
    ];
    let problem = |d| Problem::new(d, &models, 0.3, &MetricSpec::default()).unwrap();
    let (a, b) = (problem(whole), problem(counted));
    let written = cellsafe::release::SuppressedRows::Star;
    for levels in [[0, 0], [1, 0], [0, 1], [1, 1], [2, 1], [2, 0]] {
        for population in [None, Some(Population::Size(100))] {
            let here = risk(&a, Some(&levels), 0.3, population, written).unwrap();
            let there = risk(&b, Some(&levels), 0.3, population, written).unwrap();
            assert_eq!(
                serde_json::to_value(&there).unwrap(),
                serde_json::to_value(&here).unwrap(),
                "levels {levels:?}"
            );
        }
        let (x, y) = (a.evaluate(&levels).unwrap(), b.evaluate(&levels).unwrap());
        assert_eq!(
            (x.suppressed_rows, x.acceptable),
            (y.suppressed_rows, y.acceptable),
            "levels {levels:?}: the δ-presence verdict"
        );
    }
}
