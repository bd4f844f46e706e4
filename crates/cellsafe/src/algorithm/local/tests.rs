//! Mondrian against checks written from the definitions: every row in one group, every
//! group holding the models (counted here from the strings), no group that the split rule
//! could still cut, every label covering its rows' values, and the utility by hand.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::mondrian::mondrian;
use super::utility::utility;
use super::{LocalSpec, Mode, Recoded};
use crate::algorithm::problem::Problem;
use crate::criteria::ModelSpec;
use crate::data::table::Table;
use crate::data::Role;
use crate::framework::dataset::Dataset;
use crate::hierarchy::Hierarchy;
use crate::metric::MetricSpec;
use crate::observer::Silent;

/// A random table: `age` numeric (flat hierarchy), `zip` categorical with a two-level
/// hierarchy above it, `sex` flat categorical, and sensitive `disease`.
fn table(rng: &mut ChaCha8Rng) -> Dataset {
    let n = rng.gen_range(1..60);
    let ages = rng.gen_range(1..12);
    let zips = rng.gen_range(1..9);
    let diseases = rng.gen_range(1..5);
    let rows: Vec<Vec<String>> = (0..n)
        .map(|_| {
            vec![
                (20 + 3 * rng.gen_range(0..ages)).to_string(),
                format!("z{}", rng.gen_range(0..zips)),
                ["m", "f"][rng.gen_range(0..2)].to_string(),
                format!("d{}", rng.gen_range(0..diseases)),
            ]
        })
        .collect();
    let header = ["age", "zip", "sex", "disease"].map(String::from).to_vec();
    let table = Table::from_rows(header, &rows).unwrap();
    let flat = |values: Vec<String>| {
        let rows: Vec<Vec<String>> = values.into_iter().map(|v| vec![v, "*".into()]).collect();
        (
            Hierarchy::from_rows(&rows, Path::new("h"), None).unwrap(),
            "h".into(),
        )
    };
    let zip_rows: Vec<Vec<String>> = (0..zips)
        .map(|z| {
            vec![
                format!("z{z}"),
                format!("r{}", z / 2),
                format!("s{}", z / 4),
                "*".into(),
            ]
        })
        .collect();
    let hierarchies = vec![
        flat((0..ages).map(|a| (20 + 3 * a).to_string()).collect()),
        (
            Hierarchy::from_rows(&zip_rows, Path::new("h"), None).unwrap(),
            "h".into(),
        ),
        flat(vec!["m".into(), "f".into()]),
    ];
    let roles = vec![
        Role::QuasiIdentifying,
        Role::QuasiIdentifying,
        Role::QuasiIdentifying,
        Role::Sensitive,
    ];
    Dataset::new(table, roles, hierarchies, vec![]).unwrap()
}

/// Whether rows `rows` hold `models`, from the definitions (k, distinct l).
fn holds_by_hand(data: &Dataset, models: &[ModelSpec], rows: &[u32]) -> bool {
    let disease: HashSet<&str> = rows
        .iter()
        .map(|&r| data.table.value(r as usize, 3))
        .collect();
    !rows.is_empty()
        && models.iter().all(|m| match m {
            ModelSpec::KAnonymity { k } => rows.len() >= *k as usize,
            ModelSpec::DistinctLDiversity { l, .. } => disease.len() as f64 >= *l,
            _ => unreachable!(),
        })
}

/// The median cut of `rows` on column `j` written from LeFevre's rule over the column's
/// strings (numbers by value, categorical values in hierarchy order).
fn cut_by_hand(data: &Dataset, j: usize, rows: &[u32], mode: Mode) -> (Vec<u32>, Vec<u32>) {
    let key = |r: u32| -> (f64, Vec<u32>) {
        let q = &data.quasi[j];
        let v = data.table.value(r as usize, j);
        match v.parse::<f64>() {
            Ok(x) if j == 0 => (x, vec![]),
            _ => {
                let leaf = q.leaves[r as usize];
                let h = &q.hierarchy;
                let path = (1..h.levels()).rev().map(|l| h.code(l, leaf)).chain([leaf]);
                (0.0, path.collect())
            }
        }
    };
    let mut sorted: Vec<u32> = rows.to_vec();
    sorted.sort_by(|&a, &b| {
        let (ka, kb) = (key(a), key(b));
        ka.0.total_cmp(&kb.0).then(ka.1.cmp(&kb.1)).then(a.cmp(&b))
    });
    let median = key(sorted[(rows.len() - 1) / 2]);
    let le = |r: u32| {
        let k = key(r);
        k.0.total_cmp(&median.0).then(k.1.cmp(&median.1)).is_le()
    };
    match mode {
        Mode::Strict => rows.iter().partition(|&&r| le(r)),
        Mode::Relaxed => {
            let lt = |r: u32| {
                let k = key(r);
                k.0.total_cmp(&median.0).then(k.1.cmp(&median.1)).is_lt()
            };
            let mut room = rows.len() / 2 - rows.iter().filter(|&&r| lt(r)).count();
            rows.iter().partition(|&&r| {
                lt(r)
                    || (le(r) && room > 0 && {
                        room -= 1;
                        true
                    })
            })
        }
    }
}

/// Mondrian written from its definition: the widest attribute first (numbers: the span
/// over the data's span; categorical: distinct values over the data's), cut by hand.
fn mondrian_by_hand(
    data: &Dataset,
    models: &[ModelSpec],
    rows: Vec<u32>,
    mode: Mode,
    out: &mut Vec<Vec<u32>>,
) {
    let all: Vec<u32> = (0..data.rows() as u32).collect();
    let span = |j: usize, rows: &[u32]| -> f64 {
        let values: Vec<&str> = rows
            .iter()
            .map(|&r| data.table.value(r as usize, j))
            .collect();
        if j == 0 {
            let x: Vec<f64> = values.iter().map(|v| v.parse().unwrap()).collect();
            x.iter().copied().fold(f64::MIN, f64::max) - x.iter().copied().fold(f64::MAX, f64::min)
        } else {
            let distinct = values.iter().collect::<HashSet<_>>().len();
            if distinct < 2 {
                0.0
            } else {
                distinct as f64
            }
        }
    };
    let mut order: Vec<(f64, usize)> = (0..3)
        .map(|j| {
            let whole = span(j, &all);
            (
                if whole > 0.0 {
                    span(j, &rows) / whole
                } else {
                    0.0
                },
                j,
            )
        })
        .filter(|(w, _)| *w > 0.0)
        .collect();
    order.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    for (_, j) in order {
        let (left, right) = cut_by_hand(data, j, &rows, mode);
        if holds_by_hand(data, models, &left) && holds_by_hand(data, models, &right) {
            mondrian_by_hand(data, models, left, mode, out);
            mondrian_by_hand(data, models, right, mode, out);
            return;
        }
    }
    out.push(rows);
}

fn models(rng: &mut ChaCha8Rng) -> Vec<ModelSpec> {
    let mut models = vec![ModelSpec::KAnonymity {
        k: rng.gen_range(1..6),
    }];
    if rng.gen_bool(0.5) {
        models.push(ModelSpec::DistinctLDiversity {
            attribute: "disease".into(),
            l: rng.gen_range(1..4) as f64,
        });
    }
    models
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// On random tables: a partition of every row; each group holds the models; no group
    /// can be cut by the rule on any attribute with both halves holding them; each label
    /// covers its rows' values.
    #[test]
    fn mondrian_follows_its_rule(seed in any::<u64>(), relaxed in any::<bool>()) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let data = table(&mut rng);
        let models = models(&mut rng);
        let mode = if relaxed { Mode::Relaxed } else { Mode::Strict };
        let problem = Problem::new(data, &models, 0.0, &MetricSpec::default()).unwrap();
        let data = &problem.data;
        let n = data.rows() as u32;
        let all: Vec<u32> = (0..n).collect();
        let spec = LocalSpec { mode, ..LocalSpec::default() };
        let found = mondrian(&problem, &spec, &Silent).unwrap();
        let Some(partition) = found else {
            prop_assert!(!holds_by_hand(data, &models, &all));
            return Ok(());
        };
        let mut seen = vec![0; n as usize];
        for g in &partition.groups {
            prop_assert!(g.windows(2).all(|w| w[0] < w[1]));
            for &r in g {
                seen[r as usize] += 1;
            }
            prop_assert!(holds_by_hand(data, &models, g));
            for j in 0..3 {
                let distinct: HashSet<&str> =
                    g.iter().map(|&r| data.table.value(r as usize, j)).collect();
                if distinct.len() < 2 {
                    continue;
                }
                let (left, right) = cut_by_hand(data, j, g, mode);
                prop_assert!(
                    left.is_empty()
                        || right.is_empty()
                        || !holds_by_hand(data, &models, &left)
                        || !holds_by_hand(data, &models, &right),
                    "group {:?} could still be cut on {}", g, j
                );
            }
        }
        prop_assert!(seen.iter().all(|&s| s == 1));
        let mut by_hand = Vec::new();
        mondrian_by_hand(data, &models, all, mode, &mut by_hand);
        by_hand.sort_by_key(|g| g[0]);
        prop_assert_eq!(&partition.groups, &by_hand);
        let recoded = Recoded::new(&problem, partition);
        let labels = recoded.labels(&problem);
        for (g, labels) in recoded.partition.groups.iter().zip(&labels) {
            for &r in g {
                let age: f64 = data.table.value(r as usize, 0).parse().unwrap();
                let shown = &labels[0];
                let covered = match shown.strip_prefix('[') {
                    Some(rest) => {
                        let (lo, hi) = rest.trim_end_matches(']').split_once(',').unwrap();
                        lo.parse::<f64>().unwrap() <= age && age <= hi.parse::<f64>().unwrap()
                    }
                    None => shown.parse::<f64>().unwrap() == age,
                };
                prop_assert!(covered, "{} does not cover {}", shown, age);
                let zip = data.table.value(r as usize, 1);
                let z: u32 = zip[1..].parse().unwrap();
                let ancestors =
                    [zip.to_string(), format!("r{}", z / 2), format!("s{}", z / 4), "*".into()];
                prop_assert!(ancestors.contains(&labels[1]), "{} covers {}", labels[1], zip);
                let sex = data.table.value(r as usize, 2);
                let sexes = [sex, "{m,f}", "{f,m}"];
                prop_assert!(sexes.contains(&labels[2].as_str()), "{} covers {}", labels[2], sex);
            }
        }
    }
}

/// Eight ages, k = 2: Mondrian halves at the medians down to pairs.
#[test]
fn eight_ages_split_into_pairs() {
    let rows: Vec<Vec<String>> = [35, 21, 28, 50, 42, 23, 30, 47]
        .iter()
        .map(|a| vec![a.to_string(), "d".into()])
        .collect();
    let table = Table::from_rows(vec!["age".into(), "disease".into()], &rows).unwrap();
    let h: Vec<Vec<String>> = rows
        .iter()
        .map(|r| vec![r[0].clone(), "*".into()])
        .collect();
    let data = Dataset::new(
        table,
        vec![Role::QuasiIdentifying, Role::Sensitive],
        vec![(
            Hierarchy::from_rows(&h, Path::new("h"), None).unwrap(),
            "h".into(),
        )],
        vec![],
    )
    .unwrap();
    let problem = Problem::new(
        data,
        &[ModelSpec::KAnonymity { k: 2 }],
        0.0,
        &MetricSpec::default(),
    )
    .unwrap();
    let partition = mondrian(&problem, &LocalSpec::default(), &Silent)
        .unwrap()
        .unwrap();
    let recoded = Recoded::new(&problem, partition);
    let mut labels: Vec<String> = recoded
        .labels(&problem)
        .into_iter()
        .map(|l| l[0].clone())
        .collect();
    labels.sort();
    assert_eq!(labels, ["[21,23]", "[28,30]", "[35,42]", "[47,50]"]);
    let u = utility(&recoded);
    assert_eq!((u.groups, u.min_group, u.c_dm), (4, 2, 16));
    // per tuple (hi - lo) / 29, twice per group
    let by_hand = 2.0 * (2.0 + 2.0 + 7.0 + 3.0) / 29.0;
    assert!((u.ncp - by_hand).abs() < 1e-12, "{}", u.ncp);
    assert!((u.ncp_normalized - by_hand / 8.0).abs() < 1e-12);
}

/// NCP of categorical values: 0 for a value, the values under a node or in a set over the
/// values present.
#[test]
fn categorical_ncp_by_hand() {
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    // find a table whose zip column has all 8 values
    let data = loop {
        let d = table(&mut rng);
        let distinct: HashMap<&str, ()> =
            (0..d.rows()).map(|r| (d.table.value(r, 1), ())).collect();
        if distinct.len() == 8 && d.rows() > 20 {
            break d;
        }
    };
    let q = &data.quasi[1];
    let domain = super::Domain::new(q);
    let rows_with = |z: &str| -> Vec<u32> {
        (0..data.rows() as u32)
            .filter(|&r| data.table.value(r as usize, 1) == z)
            .collect()
    };
    let one = domain.generalize(q, &rows_with("z3"));
    assert_eq!(domain.ncp(&one), 0.0);
    let pair: Vec<u32> = rows_with("z2").into_iter().chain(rows_with("z3")).collect();
    let g = domain.generalize(q, &pair);
    assert_eq!(domain.label(q, &g), "r1");
    assert_eq!(domain.ncp(&g), 2.0 / 8.0);
    let four: Vec<u32> = rows_with("z1").into_iter().chain(rows_with("z2")).collect();
    let g = domain.generalize(q, &four);
    assert_eq!(domain.label(q, &g), "s0");
    assert_eq!(domain.ncp(&g), 4.0 / 8.0);
}
