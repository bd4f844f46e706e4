//! Paper 001 (exclusive strategy): the running example and property tests, all against a
//! brute-force oracle that follows Definition 1 and tables 3 and 5 literally: PER as a set of
//! distinct tables built from every permutation, no memoization, no shortcuts.
//!
//! One file, past 600 lines, because the brute-force oracle serves every test in it.

use std::collections::BTreeSet;

use std::sync::Arc;

use cellsafe::algorithm::disclosure::{
    Check, CheckSpec, Disclosure, Instance, Method, MethodChoice, Options, Partition, ReleaseTest,
    Strategy,
};
use proptest::prelude::*;

// ---------------------------------------------------------------- oracle

type Table = Vec<u16>;

/// Every table obtained by permuting values inside the groups (each group's full set of
/// permutations, deduplicated).
fn per(groups: &[Vec<usize>], x: &[u16]) -> BTreeSet<Table> {
    let mut out = BTreeSet::new();
    out.insert(x.to_vec());
    for rows in groups {
        let mut next = BTreeSet::new();
        for t in &out {
            for perm in permutations(rows) {
                let mut y = t.clone();
                for (&to, &from) in rows.iter().zip(&perm) {
                    y[to] = t[from];
                }
                next.insert(y);
            }
        }
        out = next;
    }
    out
}

fn permutations(items: &[usize]) -> Vec<Vec<usize>> {
    if items.len() <= 1 {
        return vec![items.to_vec()];
    }
    let mut out = Vec::new();
    for k in 0..items.len() {
        let mut rest = items.to_vec();
        let first = rest.remove(k);
        for mut p in permutations(&rest) {
            p.insert(0, first);
            out.push(p);
        }
    }
    out
}

#[derive(Clone, Copy, Debug)]
enum OracleCheck {
    /// r₁ < c·(r_l + …), c = num/den.
    Recursive {
        num: u64,
        den: u64,
        l: usize,
    },
    Distinct {
        l: usize,
    },
    /// max ≤ num/den.
    MaxProb {
        num: u64,
        den: u64,
    },
}

impl OracleCheck {
    fn spec(self) -> CheckSpec {
        match self {
            OracleCheck::Recursive { num, den, l } => CheckSpec::RecursiveCl {
                c: num as f64 / den as f64,
                l,
            },
            OracleCheck::Distinct { l } => CheckSpec::DistinctL { l },
            OracleCheck::MaxProb { num, den } => CheckSpec::MaxProbability {
                p: num as f64 / den as f64,
            },
        }
    }
    /// The check on a set of tables, from the fractions' definition.
    fn holds(self, set: &BTreeSet<Table>, values: usize) -> bool {
        if set.is_empty() {
            return false;
        }
        let n = set.iter().next().unwrap().len();
        let total = set.len() as u64;
        (0..n).all(|p| {
            let mut counts = vec![0u64; values];
            for t in set {
                counts[t[p] as usize] += 1;
            }
            counts.sort_unstable_by(|a, b| b.cmp(a));
            match self {
                OracleCheck::Recursive { num, den, l } => {
                    let tail: u64 = counts.iter().skip(l - 1).sum();
                    counts[0] * den < num * tail
                }
                OracleCheck::Distinct { l } => counts.iter().filter(|&&c| c > 0).count() >= l,
                OracleCheck::MaxProb { num, den } => counts[0] * den <= num * total,
            }
        })
    }
}

struct Oracle {
    chain: Vec<Vec<Vec<usize>>>,
    check: OracleCheck,
    values: usize,
    /// The exclusive algorithm's release test on PER (CHK unless set).
    release: Option<OracleCheck>,
}

impl Oracle {
    /// Table 3's 𝔾 limited to the first `limit` generalizations: index (0-based) or None.
    fn inclusive(&self, x: &[u16], limit: usize) -> Option<usize> {
        (0..limit).find(|&j| self.check.holds(&self.ds_inclusive(j, x), self.values))
    }
    /// Table 3's 𝔻𝕊.
    fn ds_inclusive(&self, i: usize, x: &[u16]) -> BTreeSet<Table> {
        per(&self.chain[i], x)
            .into_iter()
            .filter(|y| self.inclusive(y, i).is_none())
            .collect()
    }
    fn release(&self) -> OracleCheck {
        self.release.unwrap_or(self.check)
    }
    /// Table 5's DS_e.
    fn ds_exclusive(&self, i: usize, x: &[u16]) -> BTreeSet<Table> {
        per(&self.chain[i], x)
            .into_iter()
            .filter(|y| (0..i).all(|j| !self.release().holds(&per(&self.chain[j], y), self.values)))
            .collect()
    }
    /// Table 5's 𝔾_e: (released, the disclosure set that decided).
    fn exclusive(&self, x: &[u16]) -> (Option<usize>, Option<BTreeSet<Table>>) {
        for i in 0..self.chain.len() {
            if self.release().holds(&per(&self.chain[i], x), self.values) {
                let ds = self.ds_exclusive(i, x);
                let ok = self.check.holds(&ds, self.values);
                return (ok.then_some(i), Some(ds));
            }
        }
        (None, None)
    }
}

/// Largest fraction (num, den) over persons and values, first person then first value.
fn max_fraction(set: &BTreeSet<Table>, values: usize) -> (u64, u64, usize, usize) {
    let n = set.iter().next().unwrap().len();
    let mut best = (0, 1, 0, 0);
    for p in 0..n {
        for v in 0..values {
            let c = set.iter().filter(|t| t[p] as usize == v).count() as u64;
            if c > best.0 {
                best = (c, set.len() as u64, p, v);
            }
        }
    }
    best
}

fn reduced(num: u64, den: u64) -> String {
    fn gcd(a: u64, b: u64) -> u64 {
        if b == 0 {
            a
        } else {
            gcd(b, a % b)
        }
    }
    let g = gcd(num, den).max(1);
    format!("{}/{}", num / g, den / g)
}

// ---------------------------------------------------------------- paper example

const PERSONS: [&str; 10] = ["A", "B", "C", "D", "E", "F", "G", "H", "I", "J"];

/// Table 2's generalizations, as groups of persons (Age intervals of table 1).
fn paper_chain() -> Vec<Vec<Vec<usize>>> {
    vec![
        vec![vec![0, 1], vec![2, 3], vec![4, 5], vec![6, 7], vec![8, 9]],
        vec![vec![0, 1], vec![2, 3, 4], vec![5, 6, 7], vec![8, 9]],
        vec![vec![0, 1, 2], vec![3, 4, 5, 6], vec![7, 8, 9]],
    ]
}

/// Condition codes: c1..c7 → 0..6.
fn g0() -> Vec<u16> {
    vec![0, 1, 2, 1, 3, 3, 5, 4, 5, 6]
}
fn gb() -> Vec<u16> {
    vec![0, 2, 1, 1, 3, 3, 5, 5, 4, 6]
}

fn labels(groups: &[Vec<usize>], n: usize) -> Vec<usize> {
    let mut l = vec![0; n];
    for (g, rows) in groups.iter().enumerate() {
        for &r in rows {
            l[r] = g;
        }
    }
    l
}

fn disclosure(
    x: Vec<u16>,
    chain: &[Vec<Vec<usize>>],
    values: usize,
    check: OracleCheck,
) -> Disclosure {
    let n = x.len();
    let instance = Instance::new(
        (0..n)
            .map(|p| PERSONS.get(p).map_or(format!("p{p}"), |s| s.to_string()))
            .collect(),
        (0..values).map(|v| format!("c{}", v + 1)).collect(),
        x,
    )
    .unwrap();
    let partitions = chain
        .iter()
        .enumerate()
        .map(|(i, g)| Partition::from_labels(format!("g{}", i + 1), &labels(g, n)))
        .collect();
    Disclosure::new(instance, partitions, Check::bind(&check.spec()).unwrap()).unwrap()
}

const TWO_TWO: OracleCheck = OracleCheck::Recursive {
    num: 2,
    den: 1,
    l: 2,
};

fn paper_oracle() -> Oracle {
    Oracle {
        chain: paper_chain(),
        check: TWO_TWO,
        values: 7,
        release: None,
    }
}

#[test]
fn per_sizes_of_table_2() {
    let x = g0();
    let chain = paper_chain();
    let sizes: Vec<usize> = chain.iter().map(|g| per(g, &x).len()).collect();
    // Section 2.1: |PER(G_1)| = 16. The others follow from the groups: 2·6·6·2 and 6·12·6.
    assert_eq!(sizes, vec![16, 144, 432]);
    let d = disclosure(x.clone(), &chain, 7, TWO_TWO);
    for (i, &s) in sizes.iter().enumerate() {
        assert_eq!(d.per_size(i, &x).0, Some(s as u128));
    }
}

#[test]
fn examples_1_to_3_disclosure_set_2() {
    let oracle = paper_oracle();
    let x = g0();
    // Example 1: DS_1 = PER(G_1), which fails (E and F share c4).
    let ds1 = oracle.ds_inclusive(0, &x);
    assert_eq!(ds1, per(&oracle.chain[0], &x));
    assert!(!TWO_TWO.holds(&ds1, 7));
    // Examples 2 and 3: DS_2 keeps exactly the tables with E = F = c4: 2·2·2·2 = 16.
    let ds2 = oracle.ds_inclusive(1, &x);
    assert_eq!(ds2.len(), 16);
    assert!(ds2.iter().all(|t| t[4] == 3 && t[5] == 3));
    assert!(!TWO_TWO.holds(&ds2, 7));
    // Example 3: of the 9 possible g_1(X) restricted to E and F, only G_1's fails.
    let ef: BTreeSet<(u16, u16)> = per(&oracle.chain[1], &x)
        .iter()
        .map(|t| (t[4], t[5]))
        .collect();
    assert_eq!(ef.len(), 9);
    let d = disclosure(x, &oracle.chain, 7, TWO_TWO);
    let tally = d
        .exclusive_tally(1, Method::Enumeration, &Options::default())
        .unwrap();
    assert_eq!(tally.total, 16);
}

#[test]
fn examples_5_and_7_inclusive_ds3() {
    let oracle = paper_oracle();
    let x = g0();
    let ds3 = oracle.ds_inclusive(2, &x);
    // Example 5: G_0 and G_b both lie in DS_3.
    assert!(ds3.contains(&g0()) && ds3.contains(&gb()));
    // Example 5 claims no table of PER(G_3) passes on its DS_2 (condition 2). It is wrong:
    // 20 tables do, e.g. D = c6 and H = c6 let E and F share c4 *or* c6, so DS_2 holds each
    // at 1/2. See docs/errata.md.
    let condition_2: Vec<Table> = per(&oracle.chain[2], &x)
        .into_iter()
        .filter(|y| !TWO_TWO.holds(&per(&oracle.chain[0], y), 7))
        .filter(|y| TWO_TWO.holds(&oracle.ds_inclusive(1, y), 7))
        .collect();
    assert_eq!(condition_2.len(), 20);
    assert!(condition_2.contains(&vec![0, 1, 2, 5, 3, 3, 1, 5, 4, 6]));
    // Example 7 therefore over-counts: 120 tables with E = c4 in 96 (0.8) becomes 100 tables
    // with E = c4 in 76 (0.76); still ≥ 2/3, so the verdict stands.
    assert_eq!(ds3.len(), 100);
    let e_c4 = ds3.iter().filter(|t| t[4] == 3).count();
    assert_eq!(e_c4, 76);
    // The largest fraction over everyone.
    let (num, den, p, v) = max_fraction(&ds3, 7);
    let d = disclosure(x, &oracle.chain, 7, TWO_TWO);
    let decision = d.decide(Strategy::Inclusive, &Options::default()).unwrap();
    assert_eq!(decision.released, None);
    assert_eq!(decision.decided_by, Some(3));
    let a = decision.decisive.as_ref().unwrap();
    assert_eq!(a.disclosure_set_size, Some(100));
    assert_eq!(a.max_fraction.as_deref(), Some("19/25"));
    assert_eq!(a.max_fraction.as_deref(), Some(reduced(num, den).as_str()));
    assert_eq!(a.person.as_deref(), Some(PERSONS[p]));
    assert_eq!(a.value, Some(format!("c{}", v + 1)));
    assert_eq!(a.method, Method::Enumeration);
    let sizes: Vec<Option<u128>> = decision
        .steps
        .iter()
        .map(|s| s.disclosure.as_ref().unwrap().disclosure_set_size)
        .collect();
    assert_eq!(sizes, vec![Some(16), Some(16), Some(100)]);
}

#[test]
fn example_4_three_conditions() {
    // Table 4: G_a satisfies condition 1 (PER(g_1(G_a)) passes); G_0 and G_b satisfy
    // condition 3, G_b because neither PER(g_1) nor PER(g_2) passes, G_0 because DS_2 fails
    // although PER(g_2(G_0)) passes.
    let oracle = paper_oracle();
    let ga: Table = vec![0, 1, 2, 3, 1, 5, 3, 4, 5, 6];
    assert!(per(&oracle.chain[2], &g0()).contains(&ga));
    assert!(TWO_TWO.holds(&per(&oracle.chain[0], &ga), 7));
    assert_eq!(oracle.inclusive(&ga, 3), Some(0));
    let gb = gb();
    assert!(!TWO_TWO.holds(&per(&oracle.chain[0], &gb), 7));
    assert!(!TWO_TWO.holds(&per(&oracle.chain[1], &gb), 7));
    let g = g0();
    assert!(TWO_TWO.holds(&per(&oracle.chain[1], &g), 7));
    assert!(!TWO_TWO.holds(&oracle.ds_inclusive(1, &g), 7));
    assert_eq!(oracle.inclusive(&g, 2), None);
    // The library agrees on G_a: the inclusive strategy releases G1.
    let d = disclosure(ga, &oracle.chain, 7, TWO_TWO);
    let decision = d.decide(Strategy::Inclusive, &Options::default()).unwrap();
    assert_eq!(decision.released, Some(1));
}

#[test]
fn example_6_exclusive_releases_nothing_for_g0() {
    let oracle = paper_oracle();
    let (released, ds) = oracle.exclusive(&g0());
    assert_eq!(released, None);
    let ds = ds.unwrap();
    assert_eq!(ds.len(), 16);
    let d = disclosure(g0(), &oracle.chain, 7, TWO_TWO);
    let decision = d.decide(Strategy::Exclusive, &Options::default()).unwrap();
    assert_eq!(decision.released, None);
    assert_eq!(decision.decided_by, Some(2));
    let a = decision.decisive.as_ref().unwrap();
    assert_eq!(a.disclosure_set_size, Some(16));
    assert_eq!(a.max_fraction.as_deref(), Some("1/1"));
    assert_eq!(
        (a.person.as_deref(), a.value.as_deref()),
        (Some("E"), Some("c4"))
    );
    assert!(!decision.steps[0].per_holds && decision.steps[1].per_holds);
}

#[test]
fn example_8_exclusive_releases_g3_for_gb() {
    let oracle = paper_oracle();
    // Inclusive: nothing (DS_3 depends only on G_3's groups, the same as for G_0).
    assert_eq!(oracle.inclusive(&gb(), 3), None);
    let (released, ds) = oracle.exclusive(&gb());
    assert_eq!(released, Some(2));
    let ds = ds.unwrap();
    // 20 + 24 + 24 tables, E has c4 in 20 + 12 + 12: 44/68 = 11/17 ≈ 0.647.
    assert_eq!(ds.len(), 68);
    assert_eq!(ds.iter().filter(|t| t[4] == 3).count(), 44);
    let (num, den, p, v) = max_fraction(&ds, 7);
    assert_eq!(reduced(num, den), "11/17");

    let d = disclosure(gb(), &oracle.chain, 7, TWO_TWO);
    let exclusive = d.decide(Strategy::Exclusive, &Options::default()).unwrap();
    assert_eq!(exclusive.released, Some(3));
    assert_eq!(exclusive.released_name.as_deref(), Some("g3"));
    let a = exclusive.decisive.as_ref().unwrap();
    assert_eq!(a.disclosure_set_size, Some(68));
    assert_eq!(a.max_fraction.as_deref(), Some("11/17"));
    assert!((a.max_fraction_float.unwrap() - 11.0 / 17.0).abs() < 1e-15);
    assert_eq!(a.person.as_deref(), Some(PERSONS[p]));
    assert_eq!(a.value, Some(format!("c{}", v + 1)));
    let inclusive = d.decide(Strategy::Inclusive, &Options::default()).unwrap();
    assert_eq!(inclusive.released, None);
}

#[test]
fn paper_example_by_every_exact_method_and_the_estimator() {
    // The paper's chain is not nested (E and F split between g_2's groups), so counting
    // refuses it; enumeration is exact; the estimator's interval must hold 11/17.
    let d = disclosure(gb(), &paper_chain(), 7, TWO_TWO);
    let options = Options::default();
    assert!(d.exclusive_tally(2, Method::Counting, &options).is_err());
    let estimate = d
        .assess_exclusive(
            2,
            &Options {
                method: MethodChoice::Estimate,
                samples: 50_000,
                ..Options::default()
            },
        )
        .unwrap();
    assert_eq!(estimate.method, Method::Estimate);
    let summary = estimate.estimate.unwrap();
    let [low, high] = summary.max_fraction_interval.unwrap();
    assert!(low <= 11.0 / 17.0 && 11.0 / 17.0 <= high, "{low} {high}");
    let [s_low, s_high] = summary.disclosure_set_share_interval;
    assert!(s_low <= 68.0 / 432.0 && 68.0 / 432.0 <= s_high);
}

// ---------------------------------------------------------------- random instances

fn random_chain(n: usize, nested: bool, seeds: &[Vec<usize>]) -> Vec<Vec<Vec<usize>>> {
    let mut chain: Vec<Vec<usize>> = Vec::new();
    for (j, s) in seeds.iter().enumerate() {
        let labels: Vec<usize> = if nested && j > 0 {
            // Merge groups of the previous level: label = map[previous label].
            chain[j - 1].iter().map(|&l| s[l % s.len()]).collect()
        } else {
            (0..n).map(|r| s[r % s.len()]).collect()
        };
        chain.push(labels);
    }
    chain
        .iter()
        .map(|labels| {
            let mut groups: Vec<Vec<usize>> = Vec::new();
            let mut seen: Vec<usize> = Vec::new();
            for (r, &l) in labels.iter().enumerate() {
                match seen.iter().position(|&x| x == l) {
                    Some(g) => groups[g].push(r),
                    None => {
                        seen.push(l);
                        groups.push(vec![r]);
                    }
                }
            }
            groups
        })
        .collect()
}

fn check_strategy() -> impl Strategy_<Value = OracleCheck> {
    prop_oneof![
        (1u64..=4, 1u64..=2, 1usize..=3).prop_map(|(num, den, l)| OracleCheck::Recursive {
            num,
            den,
            l
        }),
        (1usize..=3).prop_map(|l| OracleCheck::Distinct { l }),
        (1u64..=3, 2u64..=4).prop_map(|(num, den)| OracleCheck::MaxProb {
            num: num.min(den),
            den
        }),
    ]
}
use proptest::strategy::Strategy as Strategy_;

fn instance_strategy(
    max_rows: usize,
    nested: bool,
) -> impl Strategy_<Value = (Vec<u16>, Vec<Vec<Vec<usize>>>, usize, OracleCheck)> {
    (3usize..=max_rows, 1usize..=3, 1usize..=3).prop_flat_map(move |(n, values, levels)| {
        (
            proptest::collection::vec(0u16..values as u16, n),
            proptest::collection::vec(proptest::collection::vec(0usize..n, 1..=n), levels),
            Just(values),
            check_strategy(),
        )
            .prop_map(move |(x, seeds, values, check)| {
                let chain = random_chain(x.len(), nested, &seeds);
                (x, chain, values, check)
            })
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// Both strategies decide as the literal algorithms do, with the same disclosure set
    /// size and worst fraction.
    #[test]
    fn strategies_match_the_oracle((x, chain, values, check) in instance_strategy(7, false)) {
        let oracle = Oracle { chain: chain.clone(), check, values, release: None };
        let d = disclosure(x.clone(), &chain, values, check);
        let options = Options { method: MethodChoice::Enumeration, ..Options::default() };

        let inclusive = d.decide(Strategy::Inclusive, &options).unwrap();
        prop_assert_eq!(inclusive.released.map(|i| i - 1), oracle.inclusive(&x, chain.len()));
        let last = inclusive.decided_by.unwrap() - 1;
        let ds = oracle.ds_inclusive(last, &x);
        let a = inclusive.decisive.as_ref().unwrap();
        prop_assert_eq!(a.disclosure_set_size, Some(ds.len() as u128));
        let (num, den, p, v) = max_fraction(&ds, values);
        prop_assert_eq!(a.max_fraction.clone(), Some(reduced(num, den)));
        prop_assert_eq!(a.person.clone(), Some(d.instance.persons[p].clone()));
        prop_assert_eq!(a.value.clone(), Some(d.instance.values[v].clone()));

        let exclusive = d.decide(Strategy::Exclusive, &options).unwrap();
        let (released, ds) = oracle.exclusive(&x);
        prop_assert_eq!(exclusive.released.map(|i| i - 1), released);
        match ds {
            None => prop_assert!(exclusive.decisive.is_none()),
            Some(ds) => {
                let a = exclusive.decisive.as_ref().unwrap();
                prop_assert_eq!(a.disclosure_set_size, Some(ds.len() as u128));
                let (num, den, _, _) = max_fraction(&ds, values);
                prop_assert_eq!(a.max_fraction.clone(), Some(reduced(num, den)));
            }
        }
        // The automatic choice (closed form where it applies) agrees.
        let auto = d.decide(Strategy::Exclusive, &Options::default()).unwrap();
        prop_assert_eq!(auto.released, exclusive.released);
        prop_assert_eq!(
            auto.decisive.map(|a| (a.disclosure_set_size, a.max_fraction)),
            exclusive.decisive.map(|a| (a.disclosure_set_size, a.max_fraction))
        );
    }

    /// With a release test other than CHK (as `anonymize` uses its models), the exclusive
    /// strategy still matches the literal algorithm, by every method.
    #[test]
    fn separate_release_test_matches_the_oracle(
        (x, chain, values, check) in instance_strategy(7, true),
        release in check_strategy(),
    ) {
        let oracle = Oracle { chain: chain.clone(), check, values, release: Some(release) };
        let mut d = disclosure(x.clone(), &chain, values, check);
        let bound = Check::bind(&release.spec()).unwrap();
        d.release_test = Some(ReleaseTest(Arc::new(move |h: &[u128], n: u128| bound.holds_counts(h, n))));
        let (released, ds) = oracle.exclusive(&x);
        for method in [MethodChoice::Enumeration, MethodChoice::Counting, MethodChoice::Auto] {
            let options = Options { method, ..Options::default() };
            let decision = d.decide(Strategy::Exclusive, &options).unwrap();
            prop_assert_eq!(decision.released.map(|i| i - 1), released);
            prop_assert_eq!(
                decision.decisive.and_then(|a| a.disclosure_set_size),
                ds.as_ref().map(|s| s.len() as u128)
            );
        }
    }

    /// Counting equals enumeration, person by person, on nested sequences.
    #[test]
    fn counting_equals_enumeration((x, chain, values, check) in instance_strategy(9, true)) {
        let d = disclosure(x, &chain, values, check);
        let options = Options::default();
        for i in 0..chain.len() {
            let counted = d.exclusive_tally(i, Method::Counting, &options).unwrap();
            let enumerated = d.exclusive_tally(i, Method::Enumeration, &options).unwrap();
            prop_assert_eq!(counted, enumerated);
        }
    }
}

/// The estimator's interval holds the exact largest fraction at least at the stated rate.
#[test]
fn estimator_intervals_cover_the_exact_value() {
    use rand::{Rng, SeedableRng};
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
    let mut trials = 0;
    let mut covered = 0;
    while trials < 200 {
        let n = rng.gen_range(4..=8);
        let values = rng.gen_range(2..=3);
        let x: Vec<u16> = (0..n).map(|_| rng.gen_range(0..values as u16)).collect();
        let levels = rng.gen_range(2..=3);
        let seeds: Vec<Vec<usize>> = (0..levels)
            .map(|_| {
                (0..rng.gen_range(1..=n))
                    .map(|_| rng.gen_range(0..n))
                    .collect()
            })
            .collect();
        let chain = random_chain(n, rng.gen_bool(0.5), &seeds);
        let d = disclosure(x, &chain, values, TWO_TWO);
        let i = chain.len() - 1;
        let exact = d
            .exclusive_tally(i, Method::Enumeration, &Options::default())
            .unwrap();
        if exact.total == 0 {
            continue;
        }
        let max = *exact.counts.iter().max().unwrap() as f64 / exact.total as f64;
        let options = Options {
            method: MethodChoice::Estimate,
            samples: 2_000,
            seed: trials,
            confidence: 0.9,
            ..Options::default()
        };
        let a = d.assess_exclusive(i, &options).unwrap();
        if a.method != Method::Estimate {
            continue; // closed form: nothing to estimate
        }
        let Some([low, high]) = a.estimate.unwrap().max_fraction_interval else {
            continue;
        };
        trials += 1;
        if low <= max + 1e-12 && max <= high + 1e-12 {
            covered += 1;
        }
    }
    assert!(covered >= 180, "covered {covered} of 200 at 90% confidence");
}

#[test]
fn estimates_are_reproducible() {
    let d = disclosure(gb(), &paper_chain(), 7, TWO_TWO);
    let options = Options {
        method: MethodChoice::Estimate,
        samples: 5_000,
        seed: 42,
        ..Options::default()
    };
    let a = d.assess_exclusive(2, &options).unwrap();
    let b = d.assess_exclusive(2, &options).unwrap();
    assert_eq!(a.max_fraction_float, b.max_fraction_float);
    assert_eq!(a.estimate.unwrap().accepted, b.estimate.unwrap().accepted);
    let c = d
        .assess_exclusive(
            2,
            &Options {
                seed: 43,
                ..options
            },
        )
        .unwrap();
    assert!(c.estimate.unwrap().samples == 5_000);
}

#[test]
fn counting_matches_enumeration_on_a_20_row_block() {
    let check = Check::bind(&CheckSpec::RecursiveCl { c: 2.0, l: 2 }).unwrap();
    let d = cellsafe_bench::synth::nested_disclosure(1, 2, 3, check).unwrap();
    let options = Options::default();
    for i in 0..3 {
        let a = d.exclusive_tally(i, Method::Enumeration, &options).unwrap();
        let b = d.exclusive_tally(i, Method::Counting, &options).unwrap();
        assert_eq!(a, b, "G{}", i + 1);
    }
}

#[test]
fn counting_scales_past_enumeration() {
    // 60 rows, 4 values: |PER(G3)| > 10^15. Invariants: every person's counts sum to |DS|,
    // |DS| ≤ |PER|, and persons in the same g1 group have equal counts.
    let check = Check::bind(&CheckSpec::RecursiveCl { c: 2.0, l: 2 }).unwrap();
    let d = cellsafe_bench::synth::nested_disclosure(3, 4, 1, check).unwrap();
    let (per, _) = d.per_size(2, &d.instance.sensitive);
    assert!(per.unwrap() > 1_000_000_000_000_000);
    let t = d
        .exclusive_tally(2, Method::Counting, &Options::default())
        .unwrap();
    assert!(t.total > 0 && t.total <= per.unwrap());
    for p in 0..60 {
        assert_eq!(t.counts[p * 4..p * 4 + 4].iter().sum::<u128>(), t.total);
    }
    for rows in d.chain[0].groups() {
        let first = rows[0] as usize;
        for &r in rows {
            assert_eq!(
                t.counts[r as usize * 4..r as usize * 4 + 4],
                t.counts[first * 4..first * 4 + 4]
            );
        }
    }
    // Enumeration refuses politely.
    let small_budget = Options {
        budget: 1000,
        ..Options::default()
    };
    let err = d
        .exclusive_tally(2, Method::Enumeration, &small_budget)
        .unwrap_err();
    assert!(err.to_string().contains("too large"), "{err}");
}
