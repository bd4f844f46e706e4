//! δ-presence against its definition, recomputed from strings: on random population tables
//! with random research subsets, every node's verdict and suppressed rows equal a brute-force
//! count (classes of the subset and of the population, the empty classes and the pool of
//! suppressed rows), the optimal search finds the exhaustive optimum, and a released file
//! holds δ-presence when counted against the population by code that shares nothing with
//! the library's.

use crate::common;

use std::collections::HashMap;
use std::path::Path;

use cellsafe::algorithm::problem::Problem;
use cellsafe::criteria::ModelSpec;
use cellsafe::data::table::Table;
use cellsafe::data::Role;
use cellsafe::framework::dataset::Dataset;
use cellsafe::hierarchy::Hierarchy;
use cellsafe::metric::{MetricKind, MetricSpec};
use cellsafe::observer::Silent;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// A random case: the population's rows (strings), the hierarchies' rows, the members.
struct Case {
    rows: Vec<Vec<String>>,
    hierarchies: Vec<Vec<Vec<String>>>,
    members: Vec<u32>,
    models: Vec<ModelSpec>,
    limit: f64,
}

fn random_case(rng: &mut ChaCha8Rng) -> Case {
    let qis = rng.gen_range(1..=3);
    let shapes: Vec<(u32, Vec<u32>)> = (0..qis)
        .map(|_| {
            let leaves = rng.gen_range(2..=6);
            let widths = match rng.gen_range(0..3) {
                0 => vec![],
                1 => vec![2],
                _ => vec![2, 4],
            };
            (leaves, widths)
        })
        .collect();
    let n = rng.gen_range(4..=40);
    let rows: Vec<Vec<String>> = (0..n)
        .map(|_| {
            shapes
                .iter()
                .enumerate()
                .map(|(j, (leaves, _))| format!("q{j}v{}", rng.gen_range(0..*leaves)))
                .collect()
        })
        .collect();
    let share = rng.gen_range(0.1..0.9);
    let mut members: Vec<u32> = (0..n as u32).filter(|_| rng.gen_bool(share)).collect();
    if members.is_empty() {
        members.push(rng.gen_range(0..n as u32));
    }
    let delta_min = [0.0, 0.0, 0.1, 0.2, 0.3][rng.gen_range(0..5)];
    let delta_max = [0.3, 0.5, 0.6, 0.8, 1.0][rng.gen_range(0..5)];
    let mut models = vec![ModelSpec::DeltaPresence {
        delta_min,
        delta_max: f64::max(delta_min, delta_max),
    }];
    if rng.gen_bool(0.4) {
        models.push(ModelSpec::KAnonymity {
            k: rng.gen_range(1..=3),
        });
    }
    Case {
        rows,
        hierarchies: shapes
            .iter()
            .enumerate()
            .map(|(j, (leaves, widths))| common::hierarchy_rows(j, *leaves, widths))
            .collect(),
        members,
        models,
        limit: [0.0, 0.1, 0.3, 0.6][rng.gen_range(0..4)],
    }
}

fn problem(case: &Case) -> Problem {
    let header: Vec<String> = (0..case.hierarchies.len())
        .map(|j| format!("q{j}"))
        .collect();
    let table = Table::from_rows(header, &case.rows).unwrap();
    let hierarchies = case
        .hierarchies
        .iter()
        .map(|r| {
            (
                Hierarchy::from_rows(r, Path::new("h"), None).unwrap(),
                "h".into(),
            )
        })
        .collect();
    let roles = vec![Role::QuasiIdentifying; case.hierarchies.len()];
    let data = Dataset::new(table, roles, hierarchies, vec![])
        .unwrap()
        .research_subset(case.members.clone())
        .unwrap();
    Problem::new(data, &case.models, case.limit, &MetricSpec::default()).unwrap()
}

/// The label tuple of population row `r` at `levels`.
fn labels(case: &Case, r: usize, levels: &[u8]) -> Vec<String> {
    (0..levels.len())
        .map(|j| {
            let leaf = &case.rows[r][j];
            let row = case.hierarchies[j].iter().find(|h| &h[0] == leaf).unwrap();
            row[levels[j] as usize].clone()
        })
        .collect()
}

/// What the definitions say of node `levels`: (acceptable, suppressed subset rows), and
/// which rule decided a rejection (`empty`: a population class without subset rows below
/// δmin; `pool`: the suppressed rows' share of their population).
fn brute(case: &Case, levels: &[u8]) -> (bool, u64, &'static str) {
    let (mut k, mut dmin, mut dmax) = (1usize, 0.0, 1.0);
    for m in &case.models {
        match m {
            ModelSpec::KAnonymity { k: x } => k = k.max(*x as usize),
            ModelSpec::DeltaPresence {
                delta_min,
                delta_max,
            } => (dmin, dmax) = (*delta_min, *delta_max),
            _ => unreachable!(),
        }
    }
    let mut pcount: HashMap<Vec<String>, usize> = HashMap::new();
    let mut count: HashMap<Vec<String>, usize> = HashMap::new();
    for r in 0..case.rows.len() {
        *pcount.entry(labels(case, r, levels)).or_default() += 1;
    }
    for &r in &case.members {
        *count.entry(labels(case, r as usize, levels)).or_default() += 1;
    }
    let within = |d: f64| d >= dmin && d <= dmax;
    let (mut suppressed, mut hidden_population) = (0usize, 0usize);
    let mut unshown = Vec::new();
    for (key, &p) in &pcount {
        match count.get(key) {
            None => {
                hidden_population += p;
                unshown.push(p);
            }
            Some(&n) if n < k || !within(n as f64 / p as f64) => {
                suppressed += n;
                hidden_population += p;
                unshown.push(p);
            }
            Some(_) => {}
        }
    }
    let budget = (case.limit * case.members.len() as f64).floor() as usize;
    if suppressed > budget {
        return (false, suppressed as u64, "limit");
    }
    if pcount.len() > count.len() && dmin > 0.0 {
        return (false, suppressed as u64, "empty");
    }
    if suppressed > 0 && !within(suppressed as f64 / hidden_population as f64) {
        return (false, suppressed as u64, "pool");
    }
    // the recipient knows which counts leave a class unshown, and their total: no class's
    // share may be pinned above δmax or below δmin by elimination
    if suppressed > 0 {
        let may = |n: usize, p: usize| {
            if n == 0 {
                dmin == 0.0
            } else {
                n < k || !within(n as f64 / p as f64)
            }
        };
        // whether classes `from..` other than `skip` can hold `target` rows
        fn reach(
            sizes: &[usize],
            from: usize,
            skip: usize,
            target: usize,
            may: &dyn Fn(usize, usize) -> bool,
            memo: &mut HashMap<(usize, usize), bool>,
        ) -> bool {
            if from == sizes.len() {
                return target == 0;
            }
            if from == skip {
                return reach(sizes, from + 1, skip, target, may, memo);
            }
            if let Some(&r) = memo.get(&(from, target)) {
                return r;
            }
            let p = sizes[from];
            let r = (0..=p.min(target))
                .any(|n| may(n, p) && reach(sizes, from + 1, skip, target - n, may, memo));
            memo.insert((from, target), r);
            r
        }
        for (i, &p) in unshown.iter().enumerate() {
            let mut memo = HashMap::new();
            let feasible: Vec<usize> = (0..=p.min(suppressed))
                .filter(|&n| may(n, p) && reach(&unshown, 0, i, suppressed - n, &may, &mut memo))
                .collect();
            let (lo, hi) = (feasible[0], feasible[feasible.len() - 1]);
            if lo as f64 / p as f64 > dmax || (hi as f64 / p as f64) < dmin {
                return (false, suppressed as u64, "pinned");
            }
        }
    }
    (true, suppressed as u64, "")
}

#[test]
fn delta_presence_equals_its_definition_on_random_populations() {
    let mut rng = ChaCha8Rng::seed_from_u64(2026);
    let mut decided: HashMap<&str, usize> = HashMap::new();
    for case_no in 0..500 {
        let case = random_case(&mut rng);
        let p = problem(&case);
        let (outcome, all) = cellsafe::algorithm::exhaustive(&p, &Silent).unwrap();
        for e in &all {
            let (acceptable, suppressed, why) = brute(&case, &e.levels);
            *decided.entry(why).or_default() += 1;
            assert_eq!(
                (e.acceptable, e.suppressed_rows),
                (acceptable, suppressed),
                "case {case_no} levels {:?} ({why}): models {:?} limit {}",
                e.levels,
                case.models,
                case.limit
            );
        }
        // the journalist links against the population: a class's risk is 1 / its pcount
        let bottom = vec![0u8; case.hierarchies.len()];
        let mut pcount: HashMap<Vec<String>, usize> = HashMap::new();
        for r in 0..case.rows.len() {
            *pcount.entry(labels(&case, r, &bottom)).or_default() += 1;
        }
        let sizes: Vec<f64> = case
            .members
            .iter()
            .map(|&r| pcount[&labels(&case, r as usize, &bottom)] as f64)
            .collect();
        let risk =
            cellsafe::job::risk::risk(&p, None, 0.2, None, cellsafe::release::SuppressedRows::Star)
                .unwrap();
        let highest = sizes.iter().map(|s| 1.0 / s).fold(0.0, f64::max);
        let lowest = sizes.iter().map(|s| 1.0 / s).fold(1.0, f64::min);
        assert_eq!(risk.journalist.highest, highest, "case {case_no}");
        assert_eq!(risk.journalist.lowest, lowest, "case {case_no}");
        assert_eq!(risk.population_records, Some(case.rows.len() as u64));
        let best = cellsafe::algorithm::optimal(&p, &Silent).unwrap().best;
        assert_eq!(
            best.map(|b| b.score.value),
            outcome.best.map(|b| b.score.value),
            "case {case_no}: the optimal search's best against the exhaustive one"
        );
    }
    // every rule decided some nodes, so none of them goes untested
    for why in ["", "limit", "empty", "pool", "pinned"] {
        assert!(decided.get(why).copied().unwrap_or(0) >= 10, "{decided:?}");
    }
}

/// The released Adult subset, counted against the flagged population file with this
/// file's own CSV and hierarchy reading: every released class's share of its population,
/// the classes showing no released row, and the suppressed rows' share.
#[test]
fn released_subset_holds_delta_presence_by_an_independent_count() {
    let dir = tempfile::tempdir().unwrap();
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/adult");
    let population = std::fs::read_to_string(examples.join("adult.csv")).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let mut flagged = String::new();
    let mut in_subset = Vec::new();
    for (i, line) in population.lines().enumerate() {
        let member = i > 0 && rng.gen_bool(0.15);
        if i > 0 {
            in_subset.push(member);
        }
        flagged += &format!(
            "{line};{}\n",
            match (i, member) {
                (0, _) => "in_study",
                (_, true) => "yes",
                _ => "no",
            }
        );
    }
    let csv = dir.path().join("population.csv");
    std::fs::write(&csv, &flagged).unwrap();
    let members = in_subset.iter().filter(|&&m| m).count();
    for (dmin, dmax, limit) in [(0.0, 0.25, 0.02), (0.08, 0.3, 0.05)] {
        let mut config =
            cellsafe::job::config::Config::from_file(&examples.join("adult.toml")).unwrap();
        config.input.path = csv.clone();
        config.input.subset = Some(cellsafe::job::config::SubsetSpec {
            column: Some("in_study".into()),
            file: None,
            key: None,
        });
        config.privacy = vec![
            ModelSpec::DeltaPresence {
                delta_min: dmin,
                delta_max: dmax,
            },
            ModelSpec::KAnonymity { k: 3 },
        ];
        config.suppression_limit = limit;
        config.metric = MetricSpec {
            name: MetricKind::Loss,
            ..MetricSpec::default()
        };
        let out = dir.path().join("released.csv");
        let outputs = cellsafe::job::Outputs {
            table: Some(out.clone()),
            ..Default::default()
        };
        let report = cellsafe::job::anonymize(&config, &outputs, &Silent).unwrap();
        assert!(report.found);
        let text = std::fs::read_to_string(&out).unwrap();
        let mut lines = text.lines();
        let header: Vec<&str> = lines.next().unwrap().split(';').collect();
        assert!(!header.contains(&"in_study"), "the flags are not released");
        let released: Vec<Vec<&str>> = lines.map(|l| l.split(';').collect()).collect();
        assert_eq!(released.len(), members, "only the subset is released");
        // the recipient's view: generalize the population by the released levels
        let levels: HashMap<String, u8> = report
            .levels
            .unwrap()
            .into_iter()
            .map(|(q, l)| (q, l.as_u64().unwrap() as u8))
            .collect();
        let mut pcount: HashMap<Vec<String>, usize> = HashMap::new();
        let qi: Vec<&str> = header
            .iter()
            .copied()
            .filter(|h| levels.contains_key(*h))
            .collect();
        let maps: Vec<HashMap<String, String>> = qi
            .iter()
            .map(|q| {
                let h = std::fs::read_to_string(examples.join(format!("adult_hierarchy_{q}.csv")))
                    .unwrap();
                h.lines()
                    .map(|l| {
                        let cells: Vec<&str> = l.split(';').collect();
                        (cells[0].to_owned(), cells[levels[*q] as usize].to_owned())
                    })
                    .collect()
            })
            .collect();
        let pheader: Vec<&str> = population.lines().next().unwrap().split(';').collect();
        for line in population.lines().skip(1) {
            let cells: Vec<&str> = line.split(';').collect();
            let key = qi
                .iter()
                .zip(&maps)
                .map(|(q, m)| m[cells[pheader.iter().position(|h| h == q).unwrap()]].clone())
                .collect();
            *pcount.entry(key).or_default() += 1;
        }
        let mut count: HashMap<Vec<String>, usize> = HashMap::new();
        let mut starred = 0;
        for row in &released {
            let key: Vec<String> = qi
                .iter()
                .map(|q| row[header.iter().position(|h| h == q).unwrap()].to_owned())
                .collect();
            if row.iter().all(|c| *c == "*") {
                starred += 1;
            } else {
                *count.entry(key).or_default() += 1;
            }
        }
        let within = |d: f64| d >= dmin && d <= dmax;
        for (key, &n) in &count {
            let p = pcount[key];
            assert!(within(n as f64 / p as f64), "{key:?}: {n} of {p}");
        }
        let hidden: usize = pcount
            .iter()
            .filter(|(k, _)| !count.contains_key(*k))
            .map(|(_, &p)| p)
            .sum();
        if dmin > 0.0 {
            assert!(starred > 0 || hidden == 0, "classes with no subset row");
        }
        if starred > 0 {
            assert!(within(starred as f64 / hidden as f64));
        }
        assert!(starred as f64 <= limit * members as f64);
    }
}

/// The library's builder: a research subset named by rows releases those rows only, and
/// rows outside the table, or given twice, are refused.
#[test]
fn the_builder_releases_a_research_subset() {
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let case = loop {
        let case = random_case(&mut rng);
        let p = problem(&case);
        if cellsafe::algorithm::optimal(&p, &Silent)
            .unwrap()
            .best
            .is_some()
        {
            break case;
        }
    };
    let header: Vec<String> = (0..case.hierarchies.len())
        .map(|j| format!("q{j}"))
        .collect();
    let table = Table::from_rows(header.clone(), &case.rows).unwrap();
    let anonymizer = || {
        let mut a = cellsafe::anonymizer::Anonymizer::new(&table);
        for (name, rows) in header.iter().zip(&case.hierarchies) {
            a = a.quasi_identifier(
                name,
                Hierarchy::from_rows(rows, Path::new("h"), None).unwrap(),
            );
        }
        a.models(case.models.clone())
            .suppression_limit(case.limit)
            .seed(3)
    };
    let release = anonymizer()
        .research_subset(case.members.clone())
        .run()
        .unwrap();
    let text = String::from_utf8(release.csv().to_vec()).unwrap();
    assert_eq!(text.lines().count(), 1 + case.members.len(), "{text}");
    assert!(release.audit().unwrap().passed);
    let population = case.rows.len() as u32;
    for rows in [vec![0, population], vec![0, 0]] {
        let err = anonymizer().research_subset(rows).run().unwrap_err();
        assert!(err.to_string().contains("research subset row"), "{err}");
    }
}

/// A recipient who knows the rule pins a suppressed class by elimination: a register of
/// 2 a's, 20 b's and 100 c's, a study of both a's and 10 c's, δ ≤ 0.2. At the bottom, the
/// a's (share 1) are suppressed and b has no participant; the pool's share (2 of 22) is
/// within bounds, but had a starred row been a b, b's share (1 or 2 of 20) would have been
/// released, so both starred rows are a's: the node must be rejected.
#[test]
fn suppressed_rows_are_not_pinned_by_elimination() {
    let mut rows = Vec::new();
    for (leaf, n) in [(0, 2), (1, 20), (2, 100)] {
        rows.extend((0..n).map(|_| vec![format!("q0v{leaf}")]));
    }
    let case = Case {
        rows,
        hierarchies: vec![common::hierarchy_rows(0, 3, &[])],
        members: (0..2).chain(22..32).collect(),
        models: vec![ModelSpec::DeltaPresence {
            delta_min: 0.0,
            delta_max: 0.2,
        }],
        limit: 0.2,
    };
    assert_eq!(brute(&case, &[0]), (false, 2, "pinned"));
    let e = problem(&case).evaluate(&[0]).unwrap();
    assert!(!e.acceptable && e.suppressed_rows == 2, "{e:?}");
}
