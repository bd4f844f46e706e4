//! Utility metrics: how much a transformation costs the data's users.
//!
//! The ARX metrics reproduce `metric.v2` exactly (same suppression handling, normalization,
//! per-attribute rounding to 10 decimals, aggregate functions). The papers' measures are
//! here too: the entropy quality `ql` of the AOG paper and Iyengar's general loss metric GLM.
//! Every metric is "lower is better", so the quality ql (1 = original data) is optimized as
//! the loss `ql-loss` = 1 − ql; reports give ql itself under `ql` and the metric only under
//! `ql-loss`, so that one name never stands for both.
//!
//! Each metric also gives a lower bound that never decreases under generalization and never
//! exceeds the score of any generalization: the searches prune with it and stay exact.
//!
//! A metric is configured as a [`MetricSpec`] (plain data) and bound to a dataset as a
//! `Metric`: the tables every metric shares (`Basis`) and one family's `Measure`. Each
//! family lives in its own module, so a new metric is a new module, a [`MetricKind`] and its
//! arm in `Metric::bind`.

#![warn(missing_docs)]

mod aecs;
mod discernibility;
mod entropy;
mod glm;
mod height;
mod loss;
mod precision;
mod ql;
mod sf_ql;
mod spec;

use std::cmp::Ordering;
use std::fmt::Debug;
use std::sync::Arc;

use serde::Serialize;

use crate::framework::classes::{Classes, Snapshot};
use crate::framework::dataset::{Dataset, QuasiIdentifier};
use crate::hierarchy::Hierarchy;

pub(crate) use crate::error::MetricError;
pub(crate) use sf_ql::sf;
pub use spec::{Aggregate, MetricKind, MetricSpec};

/// A score: `value`, and for the rank aggregate the sorted per-attribute values compared
/// lexicographically.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Score {
    /// The score (lower is better); for the rank aggregate, the sum.
    pub value: f64,
    /// For the rank aggregate, the weighted per-attribute values in decreasing order.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rank: Option<Vec<f64>>,
}

impl Score {
    /// A score that is one number.
    pub(crate) fn scalar(value: f64) -> Score {
        Score { value, rank: None }
    }
    /// Total order of scores (lower is better).
    pub fn compare(&self, other: &Score) -> Ordering {
        match (&self.rank, &other.rank) {
            (Some(a), Some(b)) => {
                for (x, y) in a.iter().zip(b) {
                    match x.total_cmp(y) {
                        Ordering::Equal => {}
                        o => return o,
                    }
                }
                Ordering::Equal
            }
            _ => self.value.total_cmp(&other.value),
        }
    }
    /// The score with negative zeros made positive (see [`positive_zero`]).
    fn positive_zero(mut self) -> Score {
        self.value = positive_zero(self.value);
        if let Some(rank) = &mut self.rank {
            rank.iter_mut().for_each(|x| *x = positive_zero(*x));
        }
        self
    }
}

/// `x`, with a negative zero made positive. IEEE arithmetic gives −0.0 for −(0·log 1),
/// −0.0 · w and empty sums; reports should never show `-0`.
pub(crate) fn positive_zero(x: f64) -> f64 {
    if x == 0.0 {
        0.0
    } else {
        x
    }
}

/// ARX's `Metric.round`: floor to 10 decimals.
pub fn round10(x: f64) -> f64 {
    (x * 1e10).floor() / 1e10
}

/// What every metric shares, computed once at binding: the normalized attribute weights,
/// the generalization and suppression factors, the aggregate, each attribute's height and
/// domain size, and the entropy-quality table (reports give ql whatever the metric).
#[derive(Debug, Clone)]
struct Basis {
    aggregate: Aggregate,
    /// Per quasi-identifier, its weight divided by the largest one.
    weights: Vec<f64>,
    s_factor: f64,
    g_factor: f64,
    rows: f64,
    heights: Vec<f64>,
    /// Per quasi-identifier, its number of hierarchy leaves.
    domain: Vec<f64>,
    /// `ql[j][level]`: h(π)/log|V| (see [`ql::table`]).
    ql: Vec<Vec<f64>>,
}

impl Basis {
    fn new(spec: &MetricSpec, data: &Dataset) -> Result<Basis, MetricError> {
        if !(0.0..=1.0).contains(&spec.gs_factor) {
            return Err(MetricError::GsFactor);
        }
        let mut weights = vec![1.0; data.quasi.len()];
        for (name, &w) in &spec.weights {
            let j = data
                .quasi
                .iter()
                .position(|q| &q.name == name)
                .ok_or_else(|| MetricError::UnknownWeight(name.clone()))?;
            if !(w.is_finite() && w >= 0.0) {
                return Err(MetricError::BadWeight(name.clone()));
            }
            weights[j] = w;
        }
        let max_w = weights.iter().cloned().fold(0.0, f64::max);
        if max_w > 0.0 {
            for w in &mut weights {
                *w /= max_w;
            }
        }
        let g = spec.gs_factor;
        Ok(Basis {
            aggregate: spec
                .aggregate
                .unwrap_or_else(|| spec.name.default_aggregate()),
            weights,
            s_factor: if g < 0.5 { 2.0 * g } else { 1.0 },
            g_factor: if g <= 0.5 { 1.0 } else { 1.0 - 2.0 * (g - 0.5) },
            rows: data.persons() as f64,
            heights: data
                .quasi
                .iter()
                .map(|q| q.hierarchy.height() as f64)
                .collect(),
            domain: data
                .quasi
                .iter()
                .map(|q| q.hierarchy.leaf_count() as f64)
                .collect(),
            ql: data.quasi.iter().map(|q| ql::table(&q.hierarchy)).collect(),
        })
    }

    /// The per-attribute `values`, weighted and aggregated.
    fn aggregate(&self, values: &[f64]) -> Score {
        if self.aggregate == Aggregate::Rank {
            let w: Vec<f64> = values
                .iter()
                .zip(&self.weights)
                .map(|(v, w)| v * w)
                .collect();
            let mut r = w.clone();
            r.sort_by(|a, b| b.total_cmp(a));
            return Score {
                value: w.iter().sum(),
                rank: Some(r),
            };
        }
        Score::scalar(self.combine(values.iter().enumerate().map(|(j, &v)| self.factor(j, v))))
    }

    /// What attribute `j`'s value `v` enters [`combine`](Self::combine) as: weighed, and
    /// for the geometric mean already raised to its root (not for the rank aggregate).
    fn factor(&self, j: usize, v: f64) -> f64 {
        let x = v * self.weights[j];
        match self.aggregate {
            Aggregate::GeometricMean => (x + 1.0).powf(1.0 / self.weights.len().max(1) as f64),
            _ => x,
        }
    }

    /// The aggregate of the attributes' [`factor`](Self::factor)s, in attribute order (not
    /// for the rank aggregate): folded from [`start`](Self::start) by [`step`](Self::step)
    /// in that order, then [`finish`](Self::finish)ed.
    fn combine(&self, factors: impl Iterator<Item = f64>) -> f64 {
        let step = self.step();
        self.finish(factors.fold(self.start(), step))
    }

    /// What [`combine`](Self::combine) folds from: the standard library's sum or product
    /// of nothing (so that the fold is its sum or product, to the bit), or 0 for the
    /// maximum.
    fn start(&self) -> f64 {
        match self.aggregate {
            Aggregate::Sum | Aggregate::Rank | Aggregate::ArithmeticMean => {
                std::iter::empty::<f64>().sum()
            }
            Aggregate::GeometricMean => std::iter::empty::<f64>().product(),
            Aggregate::Maximum => 0.0,
        }
    }

    /// How [`combine`](Self::combine) folds in the next factor.
    fn step(&self) -> fn(f64, f64) -> f64 {
        match self.aggregate {
            Aggregate::Sum | Aggregate::Rank | Aggregate::ArithmeticMean => |a, b| a + b,
            Aggregate::GeometricMean => |a, b| a * b,
            Aggregate::Maximum => f64::max,
        }
    }

    /// The aggregate from the fold of every factor.
    fn finish(&self, folded: f64) -> f64 {
        match self.aggregate {
            Aggregate::ArithmeticMean => folded / self.weights.len().max(1) as f64,
            Aggregate::GeometricMean => folded - 1.0,
            _ => folded,
        }
    }

    /// `levels`, one value per attribute, aggregated.
    fn aggregate_levels(&self, levels: &[u8], value: impl Fn(usize, u8) -> f64) -> Score {
        self.aggregate(
            &levels
                .iter()
                .enumerate()
                .map(|(j, &l)| value(j, l))
                .collect::<Vec<_>>(),
        )
    }

    /// `level` over the height of attribute `j`'s hierarchy (0 for a flat one).
    fn ratio(&self, j: usize, level: u8) -> f64 {
        if self.heights[j] == 0.0 {
            0.0
        } else {
            level as f64 / self.heights[j]
        }
    }

    /// The entropy quality ql(τ) = Σ w_i·h(π_i)/log|V_i| with weights summing to 1, in
    /// [0, 1] (rounding could otherwise put it a bit above 1, and 1 − ql below 0).
    fn ql(&self, levels: &[u8]) -> f64 {
        let total: f64 = self.weights.iter().sum();
        if total == 0.0 {
            return 0.0;
        }
        let ql: f64 = levels
            .iter()
            .enumerate()
            .map(|(j, &l)| self.weights[j] / total * self.ql[j][l as usize])
            .sum();
        positive_zero(ql.clamp(0.0, 1.0))
    }
}

/// One transformation as a metric sees it: its levels, its classes, which of them are
/// suppressed, and where to read each class's leaves.
#[derive(Debug, Clone, Copy)]
struct Node<'a> {
    /// The distinct base tuples, from which each class's leaves are read.
    snapshot: &'a Snapshot,
    /// One level per quasi-identifier.
    levels: &'a [u8],
    /// The node's equivalence classes.
    classes: &'a Classes,
    /// `suppressed[c]`: class `c` is suppressed.
    suppressed: &'a [bool],
    /// Rows in the suppressed classes.
    suppressed_rows: u64,
    /// The quasi-identifiers' hierarchies.
    hierarchies: &'a [&'a Hierarchy],
}

/// A family of metrics bound to a dataset: scores a transformation and bounds the scores of
/// its generalizations. Scores may hold negative zeros: [`Metric`] makes them positive.
trait Measure: Send + Sync + Debug {
    /// The score of `node` (lower is better).
    fn score(&self, basis: &Basis, node: &Node<'_>) -> Score;

    /// Attribute `j`'s term at `level` in the level bound, when the bound aggregates one
    /// class-free term per attribute (the default: it does not). Terms never decrease with
    /// the level.
    fn level_term(&self, _basis: &Basis, _j: usize, _level: u8) -> Option<f64> {
        None
    }

    /// A lower bound on the score of `levels` and of every generalization of it, when it
    /// can be had without the classes (the default: the aggregate of the level terms).
    fn level_bound(&self, basis: &Basis, levels: &[u8]) -> Option<Score> {
        let terms = levels
            .iter()
            .enumerate()
            .map(|(j, &l)| self.level_term(basis, j, l))
            .collect::<Option<Vec<f64>>>()?;
        Some(basis.aggregate(&terms))
    }

    /// A lower bound on the score of every acceptable generalization of a node with these
    /// classes (the node included), when the classes give one (the default: none).
    /// Searches rule out the generalizations of a node whose bound is worse than the best
    /// acceptable score found. Every class an acceptable node releases has at least
    /// `released_min` rows.
    fn class_bound(&self, _basis: &Basis, _classes: &Classes, _released_min: u32) -> Option<Score> {
        None
    }

    /// The information loss of one class of `count` rows whose generalized values are
    /// `codes` at `levels`, when the metric has one per class that differs from its size
    /// (ARX's `getInformationLoss(transformation, entry)`; the default: none).
    fn class_loss(
        &self,
        _basis: &Basis,
        _levels: &[u8],
        _codes: &[u32],
        _count: u32,
    ) -> Option<Score> {
        None
    }
}

/// A metric bound to a dataset, with per-attribute, per-level tables precomputed.
#[derive(Debug, Clone)]
pub(crate) struct Metric {
    /// The metric as configured.
    pub(crate) spec: MetricSpec,
    basis: Basis,
    measure: Arc<dyn Measure>,
}

impl Metric {
    /// The information loss of one class (see `Measure::class_loss`).
    pub(crate) fn class_loss(&self, levels: &[u8], codes: &[u32], count: u32) -> Option<Score> {
        self.measure.class_loss(&self.basis, levels, codes, count)
    }

    /// Binds `spec` to `data`. Fails when the factor or a weight is out of its domain, a
    /// weight names no quasi-identifier, or sf-ql lacks a `[safety]` section.
    pub(crate) fn bind(spec: &MetricSpec, data: &Dataset) -> Result<Metric, MetricError> {
        let basis = Basis::new(spec, data)?;
        let measure: Arc<dyn Measure> = match spec.name {
            MetricKind::Loss => Arc::new(loss::Loss::new(data)),
            MetricKind::Entropy => Arc::new(entropy::Entropy::new(data)),
            MetricKind::EntropyNm => Arc::new(entropy::EntropyNm::new(data)),
            MetricKind::Precision => Arc::new(precision::Precision),
            MetricKind::PrecisionNm => Arc::new(precision::PrecisionNm),
            MetricKind::Height => Arc::new(height::Height),
            MetricKind::Discernibility => Arc::new(discernibility::Discernibility),
            MetricKind::DiscernibilityStar => Arc::new(discernibility::DiscernibilityStar),
            MetricKind::Aecs => Arc::new(aecs::Aecs),
            MetricKind::Ql => Arc::new(ql::Ql),
            MetricKind::Glm => Arc::new(glm::Glm::new(data)),
            MetricKind::SfQl => Arc::new(sf_ql::SfQl::new(data).ok_or(MetricError::NoSafety)?),
        };
        Ok(Metric {
            spec: spec.clone(),
            basis,
            measure,
        })
    }

    /// The score of node `levels` whose classes are `classes`, with `suppressed[c]` marking
    /// suppressed classes holding `suppressed_rows` rows in all.
    pub(crate) fn score(
        &self,
        snapshot: &Snapshot,
        levels: &[u8],
        classes: &Classes,
        suppressed: &[bool],
        suppressed_rows: u64,
        hierarchies: &[&Hierarchy],
    ) -> Score {
        let node = Node {
            snapshot,
            levels,
            classes,
            suppressed,
            suppressed_rows,
            hierarchies,
        };
        self.measure.score(&self.basis, &node).positive_zero()
    }

    /// A lower bound on the score of `levels` and of every generalization of it, when it can
    /// be had without the classes.
    pub(crate) fn level_bound(&self, levels: &[u8]) -> Option<Score> {
        self.measure
            .level_bound(&self.basis, levels)
            .map(Score::positive_zero)
    }

    /// The level bound's value of every node of the lattice of chains with highest levels
    /// `max`, by lattice index (first attribute fastest), equal to the bit to
    /// [`level_bound`](Self::level_bound)'s: from a table of per-attribute factors, so a
    /// node costs a few multiplications. `None` where the bound is not an aggregate of
    /// level terms or is a rank.
    pub(crate) fn level_bounds(&self, max: &[u8]) -> Option<Vec<f64>> {
        if self.basis.aggregate == Aggregate::Rank {
            return None;
        }
        let factors = max
            .iter()
            .enumerate()
            .map(|(j, &m)| {
                (0..=m)
                    .map(|l| {
                        Some(
                            self.basis
                                .factor(j, self.measure.level_term(&self.basis, j, l)?),
                        )
                    })
                    .collect::<Option<Vec<f64>>>()
            })
            .collect::<Option<Vec<_>>>()?;
        let size: usize = max.iter().map(|&m| m as usize + 1).product();
        // each node's factors folded in attribute order, as `combine` folds them, with the
        // folds of the first attributes kept: the nodes are taken the last attribute
        // fastest, so most take one step more (a fold per node took 9 at 9 attributes)
        let d = max.len();
        let (start, step) = (self.basis.start(), self.basis.step());
        let finish = |folded: f64| positive_zero(self.basis.finish(folded));
        let mut out = vec![0.0; size];
        let Some(last) = d.checked_sub(1) else {
            out[0] = finish(start);
            return Some(out);
        };
        // lattice indices: the first attribute fastest
        let strides: Vec<usize> = max
            .iter()
            .scan(1usize, |stride, &m| {
                let here = *stride;
                *stride *= m as usize + 1;
                Some(here)
            })
            .collect();
        let mut levels = vec![0u8; d];
        // folds[j]: the fold of the factors of attributes 0 to j
        let mut folds = vec![0.0; d];
        let (mut from, mut index) = (0, 0);
        loop {
            let mut folded = if from == 0 { start } else { folds[from - 1] };
            for j in from..d {
                folded = step(folded, factors[j][levels[j] as usize]);
                folds[j] = folded;
            }
            out[index] = finish(folds[last]);
            // odometer: the last attribute fastest
            let mut j = d;
            loop {
                if j == 0 {
                    return Some(out);
                }
                j -= 1;
                if levels[j] < max[j] {
                    levels[j] += 1;
                    index += strides[j];
                    break;
                }
                index -= levels[j] as usize * strides[j];
                levels[j] = 0;
            }
            from = j;
        }
    }

    /// A lower bound on the score of every acceptable generalization of a node with these
    /// classes, when every class an acceptable node releases has at least `released_min`
    /// rows (k-anonymity's k; 1 when the models ask for no size).
    pub(crate) fn class_bound(&self, classes: &Classes, released_min: u32) -> Option<Score> {
        self.measure
            .class_bound(&self.basis, classes, released_min.max(1))
    }

    /// The entropy quality ql(τ) = Σ w_i·h(π_i)/log|V_i| with weights summing to 1, in
    /// [0, 1] (rounding could otherwise put it a bit above 1, and 1 − ql below 0).
    pub(crate) fn ql(&self, levels: &[u8]) -> f64 {
        self.basis.ql(levels)
    }
}

/// How many persons (rows, weighted) have each leaf of `q`'s hierarchy.
fn leaf_counts(q: &QuasiIdentifier) -> &[u64] {
    &q.leaf_rows
}

#[cfg(test)]
mod tests;
