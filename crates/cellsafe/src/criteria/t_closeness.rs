//! t-closeness: every class's distribution of a sensitive attribute lies within earth
//! mover's distance t of the whole input's. One criterion, generic over the ground distance
//! (equal, ordered, hierarchical), so that each class check calls its distance directly.

use std::fmt::Debug;

use super::{Criterion, FailureTerms, Monotonicity, Span};
use crate::framework::dataset::SensitiveAttribute;
use crate::hierarchy::Hierarchy;

/// A ground distance: the earth mover's distance between a class's histogram `h` (of
/// `count` rows) and the reference distribution `q`.
pub trait Ground: Send + Sync + Debug {
    /// The EMD between `h / count` and `q`.
    fn emd(&self, h: &[u32], count: u32, q: &[f64]) -> f64;
}

/// t-closeness with ground distance `G`.
#[derive(Debug, Clone)]
pub struct TCloseness<G> {
    s: Span,
    /// The reference distribution: each value's share of the whole input.
    q: Vec<f64>,
    t: f64,
    ground: G,
}

impl<G: Ground> TCloseness<G> {
    pub(super) fn new(s: Span, q: Vec<f64>, t: f64, ground: G) -> TCloseness<G> {
        TCloseness { s, q, t, ground }
    }
}

impl<G: Ground> Criterion for TCloseness<G> {
    #[inline]
    fn holds(&self, count: u32, hist: &[u32]) -> bool {
        self.ground.emd(self.s.of(hist), count, &self.q) <= self.t + 1e-12
    }
    fn monotonicity(&self) -> Monotonicity {
        Monotonicity::WITHOUT_SUPPRESSION
    }
    /// The EMD to the input's distribution.
    fn measure(&self, count: u32, hist: &[u32]) -> f64 {
        self.ground.emd(self.s.of(hist), count, &self.q)
    }
    fn achieved_is_min(&self) -> bool {
        false
    }
    fn parameter(&self) -> Option<f64> {
        Some(self.t)
    }
    fn failure_terms(&self) -> FailureTerms {
        FailureTerms {
            worst: Some("largest distance"),
            op: ">",
            failing: "farther than t",
        }
    }
}

/// Equal ground distance: half the L1 distance (total variation).
#[derive(Debug, Clone, Copy)]
pub struct Equal;

impl Ground for Equal {
    #[inline]
    fn emd(&self, h: &[u32], count: u32, q: &[f64]) -> f64 {
        let n = count as f64;
        0.5 * h
            .iter()
            .zip(q)
            .map(|(&c, &qv)| (c as f64 / n - qv).abs())
            .sum::<f64>()
    }
}

/// Ordered ground distance: values in their natural order, |i − j| / (m − 1) apart.
#[derive(Debug, Clone)]
pub struct Ordered {
    /// Value indices (as in the histogram) in natural order.
    order: Vec<u32>,
}

impl Ordered {
    pub(super) fn new(a: &SensitiveAttribute) -> Ordered {
        Ordered {
            order: a.order.clone(),
        }
    }
}

impl Ground for Ordered {
    fn emd(&self, h: &[u32], count: u32, q: &[f64]) -> f64 {
        let m = self.order.len();
        if m <= 1 {
            return 0.0;
        }
        let n = count as f64;
        let mut running = 0.0;
        let mut total = 0.0;
        for &v in &self.order {
            running += h[v as usize] as f64 / n - q[v as usize];
            total += running.abs();
        }
        total / (m - 1) as f64
    }
}

/// Hierarchical ground distance: a sensitive attribute's hierarchy flattened for the EMD of
/// Li et al.
#[derive(Debug, Clone)]
pub struct Hierarchical {
    /// `groups[level][value]`: group of value at `level` (values indexed as in the histogram).
    groups: Vec<Vec<u32>>,
    cardinality: Vec<usize>,
}

impl Hierarchical {
    /// The attribute's hierarchy flattened, or None when it has none.
    pub(super) fn new(a: &SensitiveAttribute) -> Option<Hierarchical> {
        a.hierarchy.as_ref().map(|h| Hierarchical::of(h, &a.values))
    }

    fn of(h: &Hierarchy, values: &[String]) -> Hierarchical {
        let leaves: Vec<u32> = values
            .iter()
            .map(|v| h.leaf(v).expect("checked by Dataset::new"))
            .collect();
        let groups = (0..h.levels())
            .map(|l| leaves.iter().map(|&leaf| h.code(l, leaf)).collect())
            .collect();
        let cardinality = (0..h.levels()).map(|l| h.cardinality(l)).collect();
        Hierarchical {
            groups,
            cardinality,
        }
    }
}

impl Ground for Hierarchical {
    /// Each inner node at height `l` moves min(positive, negative) extra mass between its
    /// children at cost `l / H`.
    fn emd(&self, hist: &[u32], count: u32, q: &[f64]) -> f64 {
        let height = self.groups.len() - 1;
        if height == 0 {
            return 0.0;
        }
        let n = count as f64;
        // Net extra of each node of the current level (level 0: one node per leaf value group).
        let mut net = vec![0.0; self.cardinality[0]];
        for (v, (&c, &qv)) in hist.iter().zip(q).enumerate() {
            net[self.groups[0][v] as usize] += c as f64 / n - qv;
        }
        let mut cost = 0.0;
        for level in 1..=height {
            let mut pos = vec![0.0; self.cardinality[level]];
            let mut neg = vec![0.0; self.cardinality[level]];
            // child group at level-1 -> parent group at level, via any value in it
            let mut parent = vec![u32::MAX; self.cardinality[level - 1]];
            for v in 0..hist.len() {
                parent[self.groups[level - 1][v] as usize] = self.groups[level][v];
            }
            for (child, &e) in net.iter().enumerate() {
                if parent[child] == u32::MAX {
                    continue;
                }
                let p = parent[child] as usize;
                if e > 0.0 {
                    pos[p] += e;
                } else {
                    neg[p] -= e;
                }
            }
            let weight = level as f64 / height as f64;
            cost += weight * pos.iter().zip(&neg).map(|(a, b)| a.min(*b)).sum::<f64>();
            net = pos.iter().zip(&neg).map(|(a, b)| a - b).collect();
        }
        cost
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn emd_examples() {
        // class all on value 0, reference uniform over 3 values
        let q = [1.0 / 3.0; 3];
        assert!((Equal.emd(&[3, 0, 0], 3, &q) - 2.0 / 3.0).abs() < 1e-12);
        // ordered: cumulative diffs 2/3, 1/3, 0 -> sum 1, / (m-1)=2
        let ordered = Ordered {
            order: vec![0, 1, 2],
        };
        assert!((ordered.emd(&[3, 0, 0], 3, &q) - 0.5).abs() < 1e-12);
        assert!(Equal.emd(&[1, 1, 1], 3, &q).abs() < 1e-12);
    }
}
