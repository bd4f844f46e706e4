//! Disclosure against an adversary who knows the algorithm (paper 001, Zhang et al.).
//!
//! An anonymizer that tries generalizations g₁, g₂, … in order of utility and releases the
//! first that passes a check leaks through that choice: seeing G_i released, the adversary
//! knows the earlier ones failed and can rule out tables. What remains possible is the
//! *disclosure set* DS_i ⊆ PER(G_i), where PER(G_i) is every table obtained by permuting
//! sensitive values within the groups of G_i (as a set of distinct tables). The check must
//! hold on DS_i, not on PER(G_i).
//!
//! Two strategies are implemented:
//! - *inclusive* (the paper's table 3): release the first G_i whose disclosure set passes;
//!   DS_i excludes every table for which the inclusive algorithm itself would have released
//!   an earlier G_j, which makes it recursive;
//! - *exclusive* (table 5): stop at the first G_i whose PER passes, and release it only if
//!   DS_i passes, where DS_i excludes tables for which PER(g_j) passes for some j < i.
//!
//! Sizes are exponential, so each disclosure set is assessed by one of four methods, named
//! in every report: `closed-form` (when no earlier generalization can ever pass, DS_i =
//! PER(G_i)); `enumeration` (exact, memoized, the reference); `counting` (exact dynamic
//! programming over groups for nested sequences, exclusive strategy); `estimate` (seeded
//! sampling with a Hoeffding bound, exclusive strategy).

mod arith;
mod check;
mod count;
mod enumerate;
mod estimate;
mod instance;
pub mod public;

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::error::{DisclosureError, Error, Result};
use crate::observer::{Observer, Silent, Stage, DISCLOSE};
pub use check::{Check, CheckSpec, Ratio};
pub use instance::{Instance, Partition};

/// The two ways of using a sequence of generalizations (paper 001, tables 3 and 5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Strategy {
    /// Release the first generalization whose disclosure set passes (table 3).
    Inclusive,
    /// Stop at the first generalization whose PER passes; release it only if its disclosure set
    /// passes (table 5).
    Exclusive,
}

/// Which method assessed a disclosure set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Method {
    /// DS_i = PER(G_i), as no earlier generalization can ever pass.
    ClosedForm,
    /// Exact enumeration of the tables in the set, memoized.
    Enumeration,
    /// Exact dynamic programming over groups (nested sequences, exclusive strategy).
    Counting,
    /// Seeded sampling with a Hoeffding bound (exclusive strategy).
    Estimate,
}

/// Which method to use; `auto` takes the cheapest exact one that applies (closed form,
/// enumeration within the budget, counting), else estimates. A named method is used as is.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum MethodChoice {
    /// The cheapest exact method that applies, else the estimate.
    #[default]
    Auto,
    /// Always enumerate.
    Enumeration,
    /// Always count.
    Counting,
    /// Always estimate.
    Estimate,
}

/// Tuning of the methods.
#[derive(Debug, Clone)]
pub struct Options {
    /// The method to use.
    pub method: MethodChoice,
    /// Most tables enumeration may visit (all recursion levels together).
    pub budget: u64,
    /// Most inner steps the counting method may take before giving up.
    pub counting_work: u64,
    /// Sampled tables for the estimator.
    pub samples: u64,
    /// Seed of the estimator's random sampling.
    pub seed: u64,
    /// Confidence of the estimator's intervals, in (0, 1).
    pub confidence: f64,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            method: MethodChoice::Auto,
            budget: 2_000_000,
            counting_work: 400_000_000,
            samples: 20_000,
            seed: 1,
            confidence: 0.95,
        }
    }
}

/// What the adversary can deduce from one release: the disclosure set and its worst fraction.
#[derive(Debug, Clone, Serialize)]
pub struct Assessment {
    /// How the disclosure set was assessed.
    pub method: Method,
    /// Whether the check holds on the disclosure set.
    holds: bool,
    /// Exact size, when known and below 2¹²⁸.
    pub disclosure_set_size: Option<u128>,
    /// Base-10 logarithm of the size (also when the exact size is not kept).
    pub disclosure_set_size_log10: Option<f64>,
    /// The largest fraction of the set giving one person one value, exact (`"11/17"`).
    pub max_fraction: Option<String>,
    /// `max_fraction` as a float.
    pub max_fraction_float: Option<f64>,
    /// Who and which value attain it (first person in row order, then first value).
    pub person: Option<String>,
    /// The sensitive value attaining it.
    pub value: Option<String>,
    /// For `estimate` only: sample sizes and intervals.
    pub estimate: Option<estimate::Summary>,
}

/// One generalization of the sequence, as far as the strategy looked at it.
#[derive(Debug, Clone, Serialize)]
pub struct Step {
    /// 1-based position in the sequence (G_index in the paper).
    index: usize,
    /// The generalization's name.
    name: String,
    /// Number of groups it forms.
    groups: usize,
    /// Size of PER(G_index), when it fits in a `u128`.
    per_size: Option<u128>,
    /// Base-10 logarithm of the size of PER(G_index).
    per_size_log10: f64,
    /// Whether the check holds on PER(G_index) itself.
    pub per_holds: bool,
    /// The disclosure set, when the strategy needed it.
    pub disclosure: Option<Assessment>,
}

/// The outcome of running a strategy on the original table.
#[derive(Debug, Clone, Serialize)]
pub struct Decision {
    /// The strategy that was run.
    strategy: Strategy,
    /// The check, as text.
    pub check: String,
    /// 1-based index of the released generalization, or `None` for "nothing".
    pub released: Option<usize>,
    /// Name of the released generalization.
    pub released_name: Option<String>,
    /// The step whose disclosure set decided (the released one, or the last one assessed).
    pub decided_by: Option<usize>,
    /// The decisive step's assessment (flattened into the decision in JSON).
    #[serde(flatten)]
    pub decisive: Option<Assessment>,
    /// Each generalization the strategy looked at, in order.
    pub steps: Vec<Step>,
}

/// Exact per-person counts over a set of tables.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tally {
    /// Number of tables counted.
    pub total: u128,
    /// `counts[person · values + value]`.
    pub counts: Vec<u128>,
}

impl Tally {
    pub(crate) fn new(rows: usize, values: usize) -> Tally {
        Tally {
            total: 0,
            counts: vec![0; rows * values],
        }
    }
    pub(crate) fn add(&mut self, table: &[u16], values: usize) {
        self.total += 1;
        for (p, &v) in table.iter().enumerate() {
            self.counts[p * values + v as usize] += 1;
        }
    }
}

/// The algorithm's own per-group release test, when it is not CHK on PER: called with a
/// group's value counts and size. `anonymize` uses its privacy models here.
#[derive(Clone)]
pub struct ReleaseTest(pub Arc<GroupTest>);

/// A per-group test on (value counts, group size).
type GroupTest = dyn Fn(&[u128], u128) -> bool + Send + Sync;

impl std::fmt::Debug for ReleaseTest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ReleaseTest")
    }
}

/// The original table, the sequence of generalizations and the check.
#[derive(Debug, Clone)]
pub struct Disclosure {
    /// The original table.
    pub instance: Instance,
    /// The generalizations, in the order the algorithm tries them.
    pub chain: Vec<Partition>,
    /// CHK: judged on disclosure sets, and on PER unless `release_test` is set.
    check: Check,
    /// What makes the algorithm release a generalization (default: CHK on its PER).
    pub release_test: Option<ReleaseTest>,
}

impl Disclosure {
    /// Fails when `chain` is empty or a partition does not cover the table's rows.
    pub fn new(instance: Instance, chain: Vec<Partition>, check: Check) -> Result<Self> {
        if chain.is_empty() {
            return Err(DisclosureError::NoGeneralization.into());
        }
        if let Some(p) = chain.iter().find(|p| p.rows() != instance.rows()) {
            return Err(DisclosureError::Rows {
                name: p.name.clone(),
                rows: p.rows(),
                table: instance.rows(),
            }
            .into());
        }
        Ok(Disclosure {
            instance,
            chain,
            check,
            release_test: None,
        })
    }

    /// Whether the algorithm's release test passes on one group's value counts.
    fn group_passes(&self, hist: &[u128], size: u128) -> bool {
        match &self.release_test {
            Some(test) => (test.0)(hist, size),
            None => self.check.holds_counts(hist, size),
        }
    }

    fn values(&self) -> usize {
        self.instance.values.len()
    }

    /// Group histograms of `table` under generalization `i` (0-based), flattened.
    fn histograms(&self, i: usize, table: &[u16]) -> Vec<u128> {
        let m = self.values();
        let part = &self.chain[i];
        let mut hist = vec![0u128; part.groups.len() * m];
        for (row, &v) in table.iter().enumerate() {
            hist[part.group_of[row] as usize * m + v as usize] += 1;
        }
        hist
    }

    /// Whether the algorithm would release g_i(table): by default, whether the check holds
    /// on PER(g_i(table)), where in each group every person's fractions are the group's
    /// value counts over its size.
    pub fn per_holds(&self, i: usize, table: &[u16]) -> bool {
        let m = self.values();
        let hist = self.histograms(i, table);
        self.chain[i]
            .groups
            .iter()
            .enumerate()
            .all(|(g, rows)| self.group_passes(&hist[g * m..(g + 1) * m], rows.len() as u128))
    }

    /// Whether CHK itself holds on PER(g_i(table)).
    fn per_check_holds(&self, i: usize, table: &[u16]) -> bool {
        let m = self.values();
        let hist = self.histograms(i, table);
        self.chain[i].groups.iter().enumerate().all(|(g, rows)| {
            self.check
                .holds_counts(&hist[g * m..(g + 1) * m], rows.len() as u128)
        })
    }

    /// |PER(g_i(table))|: exact when it fits, and its log10.
    pub fn per_size(&self, i: usize, table: &[u16]) -> (Option<u128>, f64) {
        let m = self.values();
        let hist = self.histograms(i, table);
        let mut exact = Some(1u128);
        let mut log10 = 0.0;
        for g in 0..self.chain[i].groups.len() {
            let counts = hist[g * m..(g + 1) * m].iter().map(|&c| c as u64);
            exact = exact
                .and_then(|e| arith::multinomial(counts.clone()).and_then(|x| e.checked_mul(x)));
            log10 += arith::log10_multinomial(counts);
        }
        (exact, log10)
    }

    /// Whether generalization `j` fails on PER(g_j(X)) for every X in PER(g_i(original)),
    /// because some group of g_j can only hold values too few for the check.
    fn always_fails_within(&self, j: usize, i: usize) -> bool {
        if self.release_test.is_some() {
            return false;
        }
        let m = self.values();
        let outer = self.histograms(i, &self.instance.sensitive);
        let outer_part = &self.chain[i];
        self.chain[j].groups.iter().any(|rows| {
            let mut available = vec![false; m];
            let mut seen_outer = rows
                .iter()
                .map(|&r| outer_part.group_of[r as usize])
                .collect::<Vec<_>>();
            seen_outer.sort_unstable();
            seen_outer.dedup();
            for g in seen_outer {
                for v in 0..m {
                    available[v] |= outer[g as usize * m + v] > 0;
                }
            }
            let distinct = available.iter().filter(|&&a| a).count().min(rows.len());
            self.check.fails_with_support(distinct)
        })
    }

    /// Exact assessment of a set of tables from per-person counts.
    fn assess_tally(&self, tally: &Tally, method: Method) -> Assessment {
        let m = self.values();
        let holds = (0..self.instance.rows()).all(|p| {
            self.check
                .holds_counts(&tally.counts[p * m..(p + 1) * m], tally.total)
        });
        let mut best: Option<(u128, usize, usize)> = None;
        if tally.total > 0 {
            for p in 0..self.instance.rows() {
                for v in 0..m {
                    let c = tally.counts[p * m + v];
                    if best.is_none_or(|(b, _, _)| c > b) {
                        best = Some((c, p, v));
                    }
                }
            }
        }
        let log10 = (tally.total > 0).then(|| (tally.total as f64).log10());
        self.assessment(
            method,
            holds,
            Some(tally.total),
            log10,
            best.map(|(c, p, v)| (c, tally.total, p, v)),
        )
    }

    fn assessment(
        &self,
        method: Method,
        holds: bool,
        size: Option<u128>,
        size_log10: Option<f64>,
        max: Option<(u128, u128, usize, usize)>,
    ) -> Assessment {
        let (fraction, float, person, value) = match max {
            Some((num, den, p, v)) => {
                let g = arith::gcd(num, den).max(1);
                (
                    Some(format!("{}/{}", num / g, den / g)),
                    Some(num as f64 / den as f64),
                    Some(self.instance.persons[p].clone()),
                    Some(self.instance.values[v].clone()),
                )
            }
            None => (None, None, None, None),
        };
        Assessment {
            method,
            holds,
            disclosure_set_size: size,
            disclosure_set_size_log10: size_log10,
            max_fraction: fraction,
            max_fraction_float: float,
            person,
            value,
            estimate: None,
        }
    }

    /// DS = PER(G_i): fractions are group counts over group sizes.
    fn assess_per(&self, i: usize) -> Assessment {
        let m = self.values();
        let x = &self.instance.sensitive;
        let hist = self.histograms(i, x);
        let part = &self.chain[i];
        let holds = self.per_check_holds(i, x);
        let mut best: Option<(u128, u128, usize, usize)> = None;
        for p in 0..self.instance.rows() {
            let g = part.group_of[p] as usize;
            let size = part.groups[g].len() as u128;
            for v in 0..m {
                let c = hist[g * m + v];
                if best.is_none_or(|(bn, bd, _, _)| arith::cmp_fractions(c, size, bn, bd).is_gt()) {
                    best = Some((c, size, p, v));
                }
            }
        }
        let (size, log10) = self.per_size(i, x);
        self.assessment(Method::ClosedForm, holds, size, Some(log10), best)
    }

    fn nested_up_to(&self, i: usize) -> bool {
        (0..i).all(|j| self.chain[j].refines(&self.chain[j + 1]))
    }

    /// DS_e,i of the exclusive strategy (0-based `i`).
    pub fn assess_exclusive(&self, i: usize, options: &Options) -> Result<Assessment> {
        self.assess_exclusive_in(i, options, &Stage::start(&Silent, DISCLOSE, None))
    }

    /// [`assess_exclusive`](Self::assess_exclusive), stopping with [`Error::Cancelled`]
    /// when `stage` is cancelled.
    fn assess_exclusive_in(
        &self,
        i: usize,
        options: &Options,
        stage: &Stage,
    ) -> Result<Assessment> {
        stage.check()?;
        if options.method == MethodChoice::Auto && (0..i).all(|j| self.always_fails_within(j, i)) {
            return Ok(self.assess_per(i));
        }
        let (per_exact, _) = self.per_size(i, &self.instance.sensitive);
        let small = per_exact.is_some_and(|s| s <= options.budget as u128);
        let method = match options.method {
            MethodChoice::Auto if small => MethodChoice::Enumeration,
            MethodChoice::Auto if self.nested_up_to(i) => MethodChoice::Counting,
            MethodChoice::Auto => MethodChoice::Estimate,
            chosen => chosen,
        };
        match method {
            MethodChoice::Enumeration => {
                let tally = enumerate::exclusive(self, i, options.budget, stage)?;
                Ok(self.assess_tally(&tally, Method::Enumeration))
            }
            MethodChoice::Counting => {
                if !self.nested_up_to(i) {
                    return Err(Error::Intractable(format!(
                        "counting needs nested generalizations (each refining the next) up to `{}`",
                        self.chain[i].name
                    )));
                }
                match count::exclusive(self, i, options.counting_work, stage) {
                    Ok(tally) => Ok(self.assess_tally(&tally, Method::Counting)),
                    // the assessment records that the estimate decided
                    Err(Error::Intractable(_)) if options.method == MethodChoice::Auto => {
                        estimate::exclusive(self, i, options, stage)
                    }
                    Err(e) => Err(e),
                }
            }
            MethodChoice::Estimate | MethodChoice::Auto => {
                estimate::exclusive(self, i, options, stage)
            }
        }
    }

    /// Exact per-person counts of DS_e,i (0-based `i`) by enumeration or counting; other
    /// methods are refused. Meant for tools and tests that compare methods.
    pub fn exclusive_tally(&self, i: usize, method: Method, options: &Options) -> Result<Tally> {
        let stage = Stage::start(&Silent, DISCLOSE, None);
        match method {
            Method::Enumeration => enumerate::exclusive(self, i, options.budget, &stage),
            Method::Counting if self.nested_up_to(i) => {
                count::exclusive(self, i, options.counting_work, &stage)
            }
            Method::Counting => Err(Error::Intractable(
                "counting needs nested generalizations".into(),
            )),
            other => Err(DisclosureError::NotExact(format!("{other:?}")).into()),
        }
    }

    /// Runs a strategy on the original table.
    pub fn decide(&self, strategy: Strategy, options: &Options) -> Result<Decision> {
        self.decide_observed(strategy, options, &Silent)
    }

    /// [`decide`](Self::decide), reporting the generalizations decided as a
    /// [`DISCLOSE`] stage and stopping with [`Error::Cancelled`] when `observer` says so
    /// (every method asks it as it goes: enumeration and estimation every few thousand
    /// tables, counting every few thousand steps).
    pub fn decide_observed(
        &self,
        strategy: Strategy,
        options: &Options,
        observer: &dyn Observer,
    ) -> Result<Decision> {
        let stage = Stage::start(observer, DISCLOSE, Some(self.chain.len() as u64));
        let mut steps = Vec::new();
        let mut released = None;
        let mut inclusive = enumerate::Inclusive::new(self, options.budget, &stage);
        for i in 0..self.chain.len() {
            stage.check()?;
            let x = &self.instance.sensitive;
            let (per_size, per_size_log10) = self.per_size(i, x);
            let per_holds = self.per_holds(i, x);
            let disclosure = match strategy {
                Strategy::Exclusive if per_holds => {
                    Some(self.assess_exclusive_in(i, options, &stage)?)
                }
                Strategy::Exclusive => None,
                Strategy::Inclusive => {
                    Some(self.assess_inclusive(i, options, &mut inclusive, &stage)?)
                }
            };
            let stop = match (strategy, &disclosure) {
                (Strategy::Exclusive, Some(_)) => true,
                (Strategy::Inclusive, Some(a)) => a.holds,
                _ => false,
            };
            if let Some(a) = &disclosure {
                if a.holds {
                    released = Some(i + 1);
                }
            }
            steps.push(Step {
                index: i + 1,
                name: self.chain[i].name.clone(),
                groups: self.chain[i].groups.len(),
                per_size,
                per_size_log10,
                per_holds,
                disclosure,
            });
            stage.set(i as u64 + 1);
            if stop {
                break;
            }
        }
        stage.check()?;
        drop(stage);
        let decisive_step = steps.iter().rev().find(|s| s.disclosure.is_some());
        Ok(Decision {
            strategy,
            check: self.check.describe(),
            released,
            released_name: released.map(|i| self.chain[i - 1].name.clone()),
            decided_by: decisive_step.map(|s| s.index),
            decisive: decisive_step.and_then(|s| s.disclosure.clone()),
            steps,
        })
    }

    /// DS_i of the inclusive strategy: closed form for the first generalization, enumeration
    /// when it fits the budget, and for the second the exclusive methods (the sets coincide:
    /// both exclude exactly the tables whose PER(g₁) passes).
    fn assess_inclusive(
        &self,
        i: usize,
        options: &Options,
        inclusive: &mut enumerate::Inclusive,
        stage: &Stage,
    ) -> Result<Assessment> {
        if options.method == MethodChoice::Auto && (0..i).all(|j| self.always_fails_within(j, i)) {
            return Ok(self.assess_per(i));
        }
        let (per_exact, _) = self.per_size(i, &self.instance.sensitive);
        let small = per_exact.is_some_and(|s| s <= options.budget as u128);
        let enumerate = match options.method {
            MethodChoice::Enumeration => true,
            MethodChoice::Auto => small || i >= 2,
            _ => i >= 2,
        };
        if enumerate {
            let tally = inclusive
                .disclosure_set(i, &self.instance.sensitive)
                .map_err(|e| match e {
                    Error::Intractable(m) => Error::Intractable(format!(
                        "the inclusive strategy is recursive and exact only by enumeration \
                         from its third generalization on ({m}); the exclusive strategy is not"
                    )),
                    other => other,
                })?;
            Ok(self.assess_tally(&tally, Method::Enumeration))
        } else {
            self.assess_exclusive_in(i, options, stage)
        }
    }
}
