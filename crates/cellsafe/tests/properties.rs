//! Property tests on small random tables: the searches agree with brute force, and every
//! node's classes, suppression and metric values agree with definitions computed directly
//! from the rows' generalized strings.

use crate::common;

use std::collections::HashMap;
use std::path::Path;

use cellsafe::algorithm;
use cellsafe::algorithm::problem::{Evaluation, Problem};
use cellsafe::criteria::{Distance, ModelSpec};
use cellsafe::data::table::Table;
use cellsafe::data::Role;
use cellsafe::framework::dataset::Dataset;
use cellsafe::framework::lattice::{is_generalization, tie_order};
use cellsafe::hierarchy::Hierarchy;
use cellsafe::metric::{Aggregate, MetricKind, MetricSpec};
use cellsafe::observer::Silent;
use cellsafe::release::audit::{group_holds, reference};
use cellsafe::release::{ReleasedTable, RowOrder, SuppressedRows};
use proptest::prelude::*;

/// A random small anonymization problem, as plain data.
#[derive(Debug, Clone)]
struct Case {
    /// Per QI: leaves count and, per level above 0, the group width (leaf / width).
    qis: Vec<(u32, Vec<u32>)>,
    rows: Vec<(Vec<u32>, u32)>,
    models: Vec<ModelSpec>,
    limit: f64,
    metric: MetricKind,
    aggregate: Option<Aggregate>,
    gs: f64,
}

fn qi_strategy() -> impl Strategy<Value = (u32, Vec<u32>)> {
    (2u32..6, prop::collection::vec(2u32..4, 0..3)).prop_map(|(leaves, factors)| {
        // nested widths: each level multiplies the group width
        let mut widths = Vec::new();
        let mut w = 1;
        for f in factors {
            w *= f;
            if w < leaves {
                widths.push(w);
            }
        }
        (leaves, widths)
    })
}

fn model_strategy() -> impl Strategy<Value = ModelSpec> {
    let s = || "s".to_string();
    prop_oneof![
        (1u32..5).prop_map(|k| ModelSpec::KAnonymity { k }),
        (1u32..4).prop_map(move |l| ModelSpec::DistinctLDiversity {
            attribute: s(),
            l: l as f64
        }),
        // l ≥ 1 (the model's domain), fractional too
        (1u32..4).prop_map(move |l| ModelSpec::EntropyLDiversity {
            attribute: s(),
            l: 1.0 + (l - 1) as f64 * 0.8
        }),
        (1u32..4, 1u32..4).prop_map(move |(c, l)| ModelSpec::RecursiveClDiversity {
            attribute: s(),
            c: c as f64,
            l
        }),
        (1u32..7, any::<bool>()).prop_map(move |(t, ordered)| ModelSpec::TCloseness {
            attribute: s(),
            t: t as f64 * 0.1,
            distance: if ordered {
                Distance::Ordered
            } else {
                Distance::Equal
            },
        }),
        (1u32..5).prop_map(move |d| ModelSpec::DeltaDisclosure {
            attribute: s(),
            delta: d as f64 * 0.5
        }),
        (1u32..5, any::<bool>()).prop_map(move |(b, enhanced)| ModelSpec::BetaLikeness {
            attribute: s(),
            beta: b as f64 * 0.5,
            enhanced
        }),
        Just(ModelSpec::Confidential {
            attribute: s(),
            values: vec!["s0".into()]
        }),
    ]
}

fn metric_strategy() -> impl Strategy<Value = MetricKind> {
    // sf-ql needs a [safety] section; tests/logic.rs covers it
    prop::sample::select(
        MetricKind::ALL
            .into_iter()
            .filter(|&m| m != MetricKind::SfQl)
            .collect::<Vec<_>>(),
    )
}

fn case_strategy() -> impl Strategy<Value = Case> {
    (
        prop::collection::vec(qi_strategy(), 1..4),
        2u32..4,
        1usize..30,
    )
        .prop_flat_map(|(qis, sv, n)| {
            let row = (
                qis.iter().map(|(leaves, _)| 0..*leaves).collect::<Vec<_>>(),
                0..sv,
            );
            (
                Just(qis),
                prop::collection::vec(row, n),
                Just(sv),
                prop::collection::vec(model_strategy(), 1..3),
                prop::sample::select(vec![0.0, 0.05, 0.1, 0.3]),
                metric_strategy(),
                prop::option::of(prop::sample::select(vec![
                    Aggregate::Sum,
                    Aggregate::ArithmeticMean,
                    Aggregate::GeometricMean,
                    Aggregate::Maximum,
                    Aggregate::Rank,
                ])),
                prop::sample::select(vec![0.0, 0.3, 0.5, 0.8, 1.0]),
            )
                .prop_map(
                    |(qis, rows, _sensitive_values, models, limit, metric, aggregate, gs)| Case {
                        qis,
                        rows,
                        models,
                        limit,
                        metric,
                        aggregate,
                        gs,
                    },
                )
        })
}

fn build(case: &Case) -> (Problem, Vec<Vec<Vec<String>>>) {
    let mut header: Vec<String> = (0..case.qis.len()).map(|j| format!("q{j}")).collect();
    header.push("s".into());
    let rows: Vec<Vec<String>> = case
        .rows
        .iter()
        .map(|(qs, s)| {
            let mut r: Vec<String> = qs
                .iter()
                .enumerate()
                .map(|(j, x)| format!("q{j}v{x}"))
                .collect();
            r.push(format!("s{s}"));
            r
        })
        .collect();
    let table = Table::from_rows(header, &rows).unwrap();
    let mut roles = vec![Role::QuasiIdentifying; case.qis.len()];
    roles.push(Role::Sensitive);
    let hrows: Vec<Vec<Vec<String>>> = case
        .qis
        .iter()
        .enumerate()
        .map(|(j, (leaves, widths))| common::hierarchy_rows(j, *leaves, widths))
        .collect();
    let hierarchies = hrows
        .iter()
        .map(|r| {
            (
                Hierarchy::from_rows(r, Path::new("h"), None).unwrap(),
                "h".into(),
            )
        })
        .collect();
    let data = Dataset::new(table, roles, hierarchies, vec![]).unwrap();
    // models that cannot bind here (e.g. a value that never occurs) are dropped
    let models: Vec<ModelSpec> = case
        .models
        .iter()
        .filter(|m| cellsafe::criteria::Model::bind(m, &data).is_ok())
        .cloned()
        .collect();
    let metric = MetricSpec {
        name: case.metric,
        aggregate: case.aggregate,
        gs_factor: case.gs,
        ..MetricSpec::default()
    };
    (
        Problem::new(data, &models, case.limit, &metric).unwrap(),
        hrows,
    )
}

/// Brute force from strings: the classes of `levels` as (visible tuple → row indices).
fn groups(
    p: &Problem,
    hrows: &[Vec<Vec<String>>],
    levels: &[u8],
) -> HashMap<Vec<String>, Vec<usize>> {
    let t = &p.data.table;
    let mut g: HashMap<Vec<String>, Vec<usize>> = HashMap::new();
    for r in 0..t.rows() {
        let key = (0..levels.len())
            .map(|j| {
                let leaf = t.value(r, j);
                let row = hrows[j].iter().find(|h| h[0] == leaf).unwrap();
                row[levels[j] as usize].clone()
            })
            .collect();
        g.entry(key).or_default().push(r);
    }
    g
}

/// Suppressed rows, suppressed groups and acceptability from the definitions: ARX's rule
/// (groups failing a model) unless a model protects confidential values, in which case
/// every group smaller than t is suppressed, for the largest t whose groups fit within the
/// limit, and every released group and the starred pool must satisfy every model.
fn brute_suppressed(
    p: &Problem,
    g: &HashMap<Vec<String>, Vec<usize>>,
) -> (u64, Vec<Vec<usize>>, bool) {
    let t = &p.data.table;
    let models: Vec<&ModelSpec> = p.models.iter().map(|m| &m.spec).collect();
    let reference = reference(t, "s").unwrap();
    let budget = (p.suppression_limit * t.rows() as f64).floor() as u64;
    let ok = |members: &Vec<usize>| {
        let mut freq: HashMap<&str, usize> = HashMap::new();
        for &r in members {
            *freq.entry(t.value(r, t.header().len() - 1)).or_default() += 1;
        }
        models
            .iter()
            .all(|m| group_holds(m, &freq, members.len(), &reference))
    };
    let confidential: Vec<&Vec<String>> = models
        .iter()
        .filter_map(|m| match m {
            ModelSpec::Confidential { values, .. } => Some(values),
            _ => None,
        })
        .collect();
    if confidential.is_empty() {
        let suppressed: Vec<Vec<usize>> = g.values().filter(|m| !ok(m)).cloned().collect();
        let rows = suppressed.iter().map(|m| m.len() as u64).sum::<u64>();
        return (rows, suppressed, rows <= budget);
    }
    let below = |th: usize| -> u64 {
        g.values()
            .filter(|m| m.len() < th)
            .map(|m| m.len() as u64)
            .sum()
    };
    let th = (1..=t.rows() + 1)
        .filter(|&th| below(th) <= budget)
        .max()
        .unwrap();
    let suppressed: Vec<Vec<usize>> = g.values().filter(|m| m.len() < th).cloned().collect();
    let rows = suppressed.iter().map(|m| m.len() as u64).sum::<u64>();
    let released_ok = g.values().filter(|m| m.len() >= th).all(ok);
    // the pool's starred value is learnt only if every value of s is confidential
    let pool_ok = rows == 0
        || confidential
            .iter()
            .all(|values| reference.iter().any(|(v, _)| !values.contains(v)));
    (rows, suppressed, released_ok && pool_ok)
}

/// Score order as the searches define it: scalar scores (and each component of a rank)
/// within 1e-12 (relative) of each other are equal, since equal scores of different nodes
/// are sums taken in different orders.
fn same_or(a: &cellsafe::metric::Score, b: &cellsafe::metric::Score) -> std::cmp::Ordering {
    let near = |x: f64, y: f64| {
        if (x - y).abs() <= 1e-12 * x.abs().max(y.abs()).max(1.0) {
            std::cmp::Ordering::Equal
        } else {
            x.partial_cmp(&y).unwrap()
        }
    };
    match (&a.rank, &b.rank) {
        (None, None) => near(a.value, b.value),
        (Some(x), Some(y)) => {
            for (&x, &y) in x.iter().zip(y) {
                let o = near(x, y);
                if o != std::cmp::Ordering::Equal {
                    return o;
                }
            }
            std::cmp::Ordering::Equal
        }
        _ => a.compare(b),
    }
}

fn assert_same_best(a: &Option<Evaluation>, b: &Option<Evaluation>) {
    match (a, b) {
        (None, None) => {}
        (Some(a), Some(b)) => {
            assert_eq!(a.levels, b.levels, "scores {:?} vs {:?}", a.score, b.score);
            assert_eq!(same_or(&a.score, &b.score), std::cmp::Ordering::Equal);
        }
        _ => panic!("one search found a node, the other did not: {a:?} vs {b:?}"),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, ..ProptestConfig::default() })]

    #[test]
    fn searches_agree_with_brute_force(case in case_strategy()) {
        let (p, _) = build(&case);
        let (exhaustive, all) = algorithm::exhaustive(&p, &Silent).unwrap();
        prop_assert_eq!(all.len(), p.lattice.size());
        // the searches' shortcut agrees with the full assessment on what it keeps
        for e in &all {
            // the one-attribute test never rejects an acceptable node
            prop_assert!(!(e.acceptable && p.fails_alone(&e.levels)), "{:?}", e.levels);
            prop_assert!(!(e.acceptable && p.fails_in_pairs(&e.levels)), "{:?}", e.levels);
            let checked = p.check(&e.levels, &p.classes(&e.levels));
            prop_assert_eq!(checked.acceptable, e.acceptable);
            if e.acceptable {
                prop_assert_eq!(&checked.score, &e.score);
                prop_assert_eq!(checked.suppressed_rows, e.suppressed_rows);
            } else {
                prop_assert!(checked.suppressed_rows <= e.suppressed_rows);
            }
        }
        // brute-force best: scan every node
        let mut best: Option<&Evaluation> = None;
        for e in all.iter().filter(|e| e.acceptable) {
            let better = best.is_none_or(|b| match same_or(&e.score, &b.score) {
                std::cmp::Ordering::Less => true,
                std::cmp::Ordering::Equal => tie_order(&e.levels, &b.levels) == std::cmp::Ordering::Less,
                _ => false,
            });
            if better { best = Some(e); }
        }
        assert_same_best(&exhaustive.best, &best.cloned());
        assert_same_best(&algorithm::optimal(&p, &Silent).unwrap().best, &exhaustive.best);
        assert_same_best(&algorithm::optimal_walk(&p, &Silent).unwrap().best, &exhaustive.best);
        assert_same_best(&algorithm::best_first(&p, &Silent).unwrap().best, &exhaustive.best);
        if p.models_monotonic() && p.lattice.is_chain() {
            // on one thread the whole lattice at once; on two and three, in parts side by side
            for threads in [1, 2, 3] {
                let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
                let tagged = pool.install(|| algorithm::tagging::bottom_up(&p, &Silent)).unwrap();
                assert_same_best(&tagged.best, &exhaustive.best);
                prop_assert!(tagged.nodes_evaluated <= p.lattice.size());
            }
        }
        // minimal: acceptable nodes with no acceptable strict specialization
        let want: Vec<Vec<u8>> = all
            .iter()
            .filter(|e| e.acceptable)
            .filter(|e| !all.iter().any(|f| f.acceptable && f.levels != e.levels && is_generalization(&e.levels, &f.levels)))
            .map(|e| e.levels.clone())
            .collect();
        let levels = |o: algorithm::Outcome| -> Vec<Vec<u8>> { o.minimal.iter().map(|e| e.levels.clone()).collect() };
        prop_assert_eq!(&levels(algorithm::minimal(&p, &Silent).unwrap()), &want);
        prop_assert_eq!(&levels(algorithm::minimal_bfs(&p, &Silent).unwrap()), &want);
        prop_assert_eq!(&levels(algorithm::minimal_by_inference(&p, &Silent).unwrap()), &want);
    }

    #[test]
    fn released_tables_pass_the_independent_audit(case in case_strategy()) {
        let (p, _) = build(&case);
        if let Some(best) = algorithm::optimal(&p, &Silent).unwrap().best {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("out.csv");
            let released = cellsafe::release::Released::new(&p, &best.levels).unwrap();
            let order = released.order(SuppressedRows::Star, RowOrder::Shuffled(case.rows.len() as u64));
            released.write_csv(&path, b',', &order).unwrap();
            let quasi: Vec<String> = p.data.quasi.iter().map(|q| q.name.clone()).collect();
            let specs: Vec<ModelSpec> = p.models.iter().map(|m| m.spec.clone()).collect();
            let format = cellsafe::data::table::CsvFormat::default();
            let expected = cellsafe::release::audit::Expected {
                quasi: &quasi,
                models: &specs,
                original: &p.data.table,
                safety: None,
                rows: &order,
                public: &[],
                presence: None,
            };
            let audit = cellsafe::release::audit::audit(&path, &format, &expected).unwrap();
            prop_assert!(audit.passed, "{:?}", audit.violations);
            prop_assert_eq!(audit.suppressed_rows as u64, best.suppressed_rows);
        }
    }

    #[test]
    fn classes_and_suppression_match_strings(case in case_strategy()) {
        let (p, hrows) = build(&case);
        let (_, all) = algorithm::exhaustive(&p, &Silent).unwrap();
        for e in &all {
            let g = groups(&p, &hrows, &e.levels);
            prop_assert_eq!(e.classes, g.len(), "classes of {:?}", e.levels);
            let (rows, _, acceptable) = brute_suppressed(&p, &g);
            prop_assert_eq!(e.suppressed_rows, rows, "suppressed rows of {:?}", e.levels);
            prop_assert_eq!(e.acceptable, acceptable, "acceptability of {:?}", e.levels);
        }
    }

    #[test]
    fn metrics_match_definitions(case in case_strategy()) {
        let (p, hrows) = build(&case);
        let (_, all) = algorithm::exhaustive(&p, &Silent).unwrap();
        let n = case.rows.len() as f64;
        let gs = case.gs;
        let sf = if gs < 0.5 { 2.0 * gs } else { 1.0 };
        let gf = if gs <= 0.5 { 1.0 } else { 1.0 - 2.0 * (gs - 0.5) };
        for e in &all {
            let g = groups(&p, &hrows, &e.levels);
            let (ns, suppressed, _) = brute_suppressed(&p, &g);
            let is_supp = |members: &Vec<usize>| suppressed.contains(members);
            let d = e.levels.len();
            // per-attribute values, from definitions
            let per_attr: Vec<f64> = match case.metric {
                MetricKind::Loss => (0..d).map(|j| {
                    let domain = hrows[j].len() as f64;
                    let mut raw = 0.0;
                    for (key, members) in &g {
                        let size = members.len() as f64;
                        let share = hrows[j].iter().filter(|h| h[e.levels[j] as usize] == key[j]).count() as f64 / domain;
                        raw += if is_supp(members) {
                            if sf == 1.0 { size } else { size * share + sf * (size - size * share) }
                        } else { gf * size * share };
                    }
                    let m = gf * n / domain;
                    if n - m <= 0.0 { 0.0 } else { cellsafe::metric::round10(((raw - m) / (n - m)).max(0.0)) }
                }).collect(),
                MetricKind::Entropy | MetricKind::EntropyNm => (0..d).map(|j| {
                    let t = &p.data.table;
                    let mut count: HashMap<&str, f64> = HashMap::new();
                    let mut gcount: HashMap<&str, f64> = HashMap::new();
                    let label = |v: &str| &hrows[j].iter().find(|h| h[0] == v).unwrap()[e.levels[j] as usize];
                    for r in 0..t.rows() {
                        *count.entry(t.value(r, j)).or_default() += 1.0;
                        *gcount.entry(label(t.value(r, j))).or_default() += 1.0;
                    }
                    let first: f64 = count.iter().map(|(v, c)| c * (c / gcount[label(v).as_str()]).log2()).sum();
                    let mut second = 0.0;
                    if case.metric == MetricKind::EntropyNm && ns > 0 {
                        let mut s: HashMap<&str, f64> = HashMap::new();
                        for (key, members) in &g {
                            if is_supp(members) { *s.entry(key[j].as_str()).or_default() += members.len() as f64; }
                        }
                        second = s.values().map(|sy| sy * (sy / ns as f64).log2()).sum();
                    }
                    cellsafe::metric::round10(-(gf * first + sf * second))
                }).collect(),
                MetricKind::Precision | MetricKind::PrecisionNm | MetricKind::Height => (0..d).map(|j| {
                    let h = (hrows[j][0].len() - 1) as f64;
                    let ratio = if h == 0.0 { 0.0 } else { e.levels[j] as f64 / h };
                    match case.metric {
                        MetricKind::Height => e.levels[j] as f64,
                        MetricKind::Precision => gf * ratio,
                        _ => ((n - ns as f64) * ratio * gf + ns as f64 * sf) / n,
                    }
                }).collect(),
                _ => vec![],
            };
            let weights = vec![1.0; d];
            let agg = case.aggregate.unwrap_or(match case.metric {
                MetricKind::Loss => Aggregate::GeometricMean,
                MetricKind::Precision | MetricKind::PrecisionNm => Aggregate::ArithmeticMean,
                _ => Aggregate::Sum,
            });
            let aggregate = |v: &[f64]| -> f64 {
                let w: Vec<f64> = v.iter().zip(&weights).map(|(a, b)| a * b).collect();
                match agg {
                    Aggregate::Sum | Aggregate::Rank => w.iter().sum(),
                    Aggregate::ArithmeticMean => w.iter().sum::<f64>() / d as f64,
                    Aggregate::GeometricMean => w.iter().map(|x| (x + 1.0).powf(1.0 / d as f64)).product::<f64>() - 1.0,
                    Aggregate::Maximum => w.iter().cloned().fold(0.0, f64::max),
                }
            };
            let want = match case.metric {
                MetricKind::Loss | MetricKind::Entropy | MetricKind::EntropyNm | MetricKind::Precision
                | MetricKind::PrecisionNm | MetricKind::Height => aggregate(&per_attr),
                MetricKind::Discernibility => g.values().map(|m| {
                    let s = m.len() as f64;
                    if is_supp(m) { n * s } else { s * s }
                }).sum(),
                MetricKind::DiscernibilityStar => g.values().map(|m| (m.len() * m.len()) as f64).sum(),
                MetricKind::Aecs => {
                    let kept = g.values().filter(|m| !is_supp(m)).count() as f64;
                    n / (sf * kept + if ns > 0 { gf } else { 0.0 })
                }
                MetricKind::Glm => (0..d).map(|j| {
                    let domain = hrows[j].len() as f64;
                    g.iter().map(|(key, members)| {
                        let size = members.len() as f64;
                        if is_supp(members) { size } else if domain > 1.0 {
                            let group = hrows[j].iter().filter(|h| h[e.levels[j] as usize] == key[j]).count() as f64;
                            size * (group - 1.0) / (domain - 1.0)
                        } else { 0.0 }
                    }).sum::<f64>() / n
                }).sum(),
                MetricKind::Ql => {
                    let q: f64 = (0..d).map(|j| {
                        let domain = hrows[j].len() as f64;
                        let mut sizes: HashMap<&str, f64> = HashMap::new();
                        for h in &hrows[j] { *sizes.entry(h[e.levels[j] as usize].as_str()).or_default() += 1.0; }
                        let h: f64 = sizes.values().map(|s| -(s / domain) * (s / domain).ln()).sum();
                        (if domain > 1.0 { h / domain.ln() } else { 1.0 }) / d as f64
                    }).sum();
                    1.0 - q
                }
                MetricKind::SfQl => unreachable!("not generated"),
            };
            let got = e.score.value;
            prop_assert!(got == want || (got - want).abs() <= 1e-9 * want.abs().max(1.0),
                "{:?} at {:?}: got {} want {}", case.metric, e.levels, got, want);
        }
    }
}
