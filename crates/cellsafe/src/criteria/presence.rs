//! δ-presence (Nergiz, Atzori and Clifton; ARX's `DPresence`): the released table is a
//! research subset of a public population table (a register, a census), and the recipient,
//! who holds the population, must not learn too surely whether a person is in the subset.
//!
//! The recipient generalizes the population as the release is and compares, class by
//! class, the released rows (count) with the population rows (pcount): δ = count / pcount
//! is the share of the class's persons who are in the subset, and it must lie in
//! [δmin, δmax]. A class with no subset rows has δ = 0; as in ARX it cannot be suppressed
//! (there is nothing to suppress), so when δmin > 0 it makes the transformation fail.
//!
//! A class's count is its number of subset rows, which is what every other model and metric
//! of the problem sees (the problem's dataset is the subset); the pcounts come from the
//! population's own snapshot, rolled up to the same node. Both snapshots pack a class's
//! generalized tuple into the same key, so classes are matched by key.

use std::sync::Arc;

use rustc_hash::FxHashMap;

use super::{Criterion, FailureTerms, Monotonicity};
use crate::error::Result;
use crate::framework::classes::{Classes, Snapshot};
use crate::framework::dataset::{Dataset, Population};
use crate::hierarchy::Hierarchy;

/// A bound δ-presence model: the bounds and the population's classes.
#[derive(Debug, Clone)]
pub struct DeltaPresence {
    /// The smallest share of a class's population allowed in the subset.
    pub delta_min: f64,
    /// The largest share.
    pub delta_max: f64,
    population: Arc<Population>,
    snapshot: Snapshot,
}

/// The population's side of one node's classes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PresenceCounts {
    /// Per class of the subset, the population rows it generalizes (its pcount).
    pub pcounts: Vec<u32>,
    /// Population classes with no subset row (δ = 0).
    pub empty_classes: usize,
    /// Population rows in those classes.
    pub empty_rows: u64,
    /// The population rows of each of those classes.
    pub empty_sizes: Vec<u32>,
}

impl DeltaPresence {
    /// Binds the bounds to `data`'s population (None when `data` is no research subset).
    pub(crate) fn new(delta_min: f64, delta_max: f64, data: &Dataset) -> Result<Option<Self>> {
        let Some(population) = data.population.clone() else {
            return Ok(None);
        };
        let hierarchies = data.hierarchies();
        let leaves: Vec<&[u32]> = population.leaves.iter().map(Vec::as_slice).collect();
        let snapshot = Snapshot::build(
            &hierarchies,
            &leaves,
            &[],
            population.rows(),
            population.weights.as_deref().map(Vec::as_slice),
        )?;
        Ok(Some(DeltaPresence {
            delta_min,
            delta_max,
            population,
            snapshot,
        }))
    }

    /// The population this model compares with.
    pub fn population(&self) -> &Population {
        &self.population
    }

    /// δ of a class of `count` subset rows among `pcount` population rows.
    pub fn share(count: u32, pcount: u32) -> f64 {
        if count == 0 {
            0.0
        } else {
            count as f64 / pcount as f64
        }
    }

    /// Whether a class of `count` subset rows among `pcount` population rows satisfies
    /// the bounds.
    pub fn holds_counts(&self, count: u32, pcount: u32) -> bool {
        let d = Self::share(count, pcount);
        d >= self.delta_min && d <= self.delta_max
    }

    /// Whether the population classes without subset rows are allowed (δ = 0 ≥ δmin).
    pub fn allows_empty(&self) -> bool {
        self.delta_min <= 0.0
    }

    /// The pcount of each of `classes` (the subset's classes at `levels`) and the
    /// population classes left without subset rows.
    pub fn counts(
        &self,
        hierarchies: &[&Hierarchy],
        levels: &[u8],
        classes: &Classes,
    ) -> PresenceCounts {
        let population = self.snapshot.classes(hierarchies, levels);
        let index: FxHashMap<u128, usize> = (0..population.len())
            .map(|p| (population.key(p), p))
            .collect();
        let mut matched = vec![false; population.len()];
        let pcounts: Vec<u32> = (0..classes.len())
            .map(|c| {
                // every subset row is a population row, so its class is there
                let p = index[&classes.key(c)];
                matched[p] = true;
                population.counts[p]
            })
            .collect();
        let empty_sizes: Vec<u32> = (0..population.len())
            .filter(|&p| !matched[p])
            .map(|p| population.counts[p])
            .collect();
        PresenceCounts {
            empty_classes: empty_sizes.len(),
            empty_rows: empty_sizes.iter().map(|&p| p as u64).sum(),
            empty_sizes,
            pcounts,
        }
    }
}

impl Criterion for DeltaPresence {
    /// Decided with the population's counts by the problem (see [`DeltaPresence::counts`]).
    fn holds(&self, _count: u32, _hist: &[u32]) -> bool {
        true
    }

    /// Merging two classes gives a share between theirs (ARX's flags).
    fn monotonicity(&self) -> Monotonicity {
        Monotonicity::WITHOUT_SUPPRESSION
    }

    /// It reads class sizes: the subset's and the population's.
    fn reads_confidential_values(&self) -> bool {
        false
    }

    /// δ cannot be computed from the subset's class alone: reports ask the problem.
    fn measure(&self, _count: u32, _hist: &[u32]) -> f64 {
        f64::NAN
    }

    fn achieved_is_min(&self) -> bool {
        false
    }

    fn parameter(&self) -> Option<f64> {
        Some(self.delta_max)
    }

    fn failure_terms(&self) -> FailureTerms {
        FailureTerms {
            worst: Some("largest share in the subset"),
            op: "vs δmax",
            failing: "with a share of their population outside [δmin, δmax]",
        }
    }

    fn presence(&self) -> Option<&DeltaPresence> {
        Some(self)
    }
}

/// What the recipient knows of why a class shows no released row: it was suppressed
/// because it failed a model, or it has no subset row.
#[derive(Debug, Clone, Copy)]
pub(crate) struct UnshownRule {
    /// The largest k of k-anonymity (1 without).
    pub k: u32,
    /// Whether another model (read from values the recipient lacks) may fail any class.
    pub any_count_fails: bool,
}

/// Whether the suppressed rows keep every population class that shows no released row
/// ambiguous to a recipient who holds the population and knows the rule: `rows` rows are
/// suppressed, the classes have `sizes` persons each. For each class the recipient knows
/// the counts it may hold (those that fail a model, 0 when an empty class is allowed) and
/// that the counts add up to `rows`. It must stay possible that the class's share is at
/// most δmax, and possible that it is at least δmin: otherwise the recipient knows, by
/// elimination, that the share is out of bounds.
pub(crate) fn unshown_stay_ambiguous(
    models: &[&DeltaPresence],
    rule: UnshownRule,
    sizes: &[u32],
    rows: u64,
) -> bool {
    if rows == 0 {
        return true;
    }
    let s = rows as usize;
    let empty_allowed = models.iter().all(|m| m.allows_empty());
    let may_hold = |n: u32, p: u32| {
        if n == 0 {
            empty_allowed
        } else {
            rule.any_count_fails || n < rule.k || models.iter().any(|m| !m.holds_counts(n, p))
        }
    };
    // classes of equal size are alike: grouped, with their number
    let mut groups: std::collections::BTreeMap<u32, usize> = Default::default();
    for &p in sizes {
        *groups.entry(p).or_default() += 1;
    }
    let groups: Vec<(u32, usize, Sums)> = groups
        .into_iter()
        .map(|(p, m)| {
            let mut f = Sums::empty(s);
            for n in 0..=(p as usize).min(s) {
                if may_hold(n as u32, p) {
                    f.insert(n);
                }
            }
            (p, m, f)
        })
        .collect();
    // sums reachable by the groups before and after each one
    let powers: Vec<Sums> = groups.iter().map(|(_, m, f)| f.power(*m)).collect();
    let mut before = vec![Sums::zero(s)];
    for p in &powers {
        before.push(before.last().expect("seeded").add(p));
    }
    let mut after = vec![Sums::zero(s); groups.len() + 1];
    for g in (0..groups.len()).rev() {
        after[g] = after[g + 1].add(&powers[g]);
    }
    groups.iter().enumerate().all(|(g, (p, m, f))| {
        let others = before[g].add(&after[g + 1]).add(&f.power(m - 1));
        let feasible: Vec<usize> = (0..=s).filter(|&n| f.has(n) && others.has(s - n)).collect();
        match (feasible.first(), feasible.last()) {
            (Some(&lo), Some(&hi)) => models.iter().all(|model| {
                let (lo, hi) = (
                    DeltaPresence::share(lo as u32, *p),
                    DeltaPresence::share(hi as u32, *p),
                );
                lo <= model.delta_max && hi >= model.delta_min
            }),
            // the rows cannot be placed: not a state the rule reaches
            _ => false,
        }
    })
}

/// A set of sums in [0, cap], as bits.
#[derive(Debug, Clone)]
struct Sums {
    cap: usize,
    bits: Vec<u64>,
}

impl Sums {
    fn empty(cap: usize) -> Sums {
        Sums {
            cap,
            bits: vec![0; cap / 64 + 1],
        }
    }
    /// {0}.
    fn zero(cap: usize) -> Sums {
        let mut z = Sums::empty(cap);
        z.insert(0);
        z
    }
    fn insert(&mut self, n: usize) {
        self.bits[n / 64] |= 1 << (n % 64);
    }
    fn has(&self, n: usize) -> bool {
        n <= self.cap && self.bits[n / 64] >> (n % 64) & 1 == 1
    }
    /// {a + b ≤ cap : a in self, b in other}.
    fn add(&self, other: &Sums) -> Sums {
        let mut out = Sums::empty(self.cap);
        for b in (0..=self.cap).filter(|&b| other.has(b)) {
            // out |= self << b
            let (words, shift) = (b / 64, b % 64);
            for i in (words..out.bits.len()).rev() {
                let lo = self.bits[i - words] << shift;
                let hi = if shift > 0 && i > words {
                    self.bits[i - words - 1] >> (64 - shift)
                } else {
                    0
                };
                out.bits[i] |= lo | hi;
            }
        }
        let extra = out.bits.len() * 64 - (self.cap + 1);
        if extra > 0 {
            let last = out.bits.len() - 1;
            out.bits[last] &= u64::MAX >> extra;
        }
        out
    }
    /// The sums of `m` elements (with repetition), by doubling.
    fn power(&self, mut m: usize) -> Sums {
        let mut result = Sums::zero(self.cap);
        let mut base = self.clone();
        while m > 0 {
            if m & 1 == 1 {
                result = result.add(&base);
            }
            m >>= 1;
            if m > 0 {
                base = base.add(&base);
            }
        }
        result
    }
}

#[cfg(test)]
mod tests {
    use super::Sums;
    use rand::{Rng, SeedableRng};
    use std::collections::BTreeSet;

    /// Sumsets against sets of integers, on random sets.
    #[test]
    fn sums_add_and_power_as_sets_do() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(4);
        for _ in 0..300 {
            let cap = rng.gen_range(0..200);
            let a: BTreeSet<usize> = (0..rng.gen_range(0..6))
                .map(|_| rng.gen_range(0..=cap))
                .collect();
            let b: BTreeSet<usize> = (0..rng.gen_range(0..6))
                .map(|_| rng.gen_range(0..=cap))
                .collect();
            let (mut sa, mut sb) = (Sums::empty(cap), Sums::empty(cap));
            a.iter().for_each(|&x| sa.insert(x));
            b.iter().for_each(|&x| sb.insert(x));
            let sum: BTreeSet<usize> = a
                .iter()
                .flat_map(|x| b.iter().map(move |y| x + y))
                .filter(|&z| z <= cap)
                .collect();
            let got: BTreeSet<usize> = (0..=cap + 70).filter(|&n| sa.add(&sb).has(n)).collect();
            assert_eq!(got, sum);
            let m = rng.gen_range(0..5);
            let mut power: BTreeSet<usize> = [0].into();
            for _ in 0..m {
                power = power
                    .iter()
                    .flat_map(|x| a.iter().map(move |y| x + y))
                    .filter(|&z| z <= cap)
                    .collect();
            }
            let got: BTreeSet<usize> = (0..=cap).filter(|&n| sa.power(m).has(n)).collect();
            assert_eq!(got, power, "{a:?}^{m} cap {cap}");
        }
    }
}
