//! t-closeness: every class's distribution of a sensitive attribute lies within earth
//! mover's distance t of the whole input's. One criterion, generic over the ground distance
//! (equal, ordered, hierarchical), so that each class check calls its distance directly.

use std::fmt::Debug;

use super::{Criterion, FailureTerms, Monotonicity, Span};
use crate::framework::dataset::SensitiveAttribute;
use crate::hierarchy::Hierarchy;

/// A ground distance: the earth mover's distance between a class's histogram `h` (of
/// `count` rows) and the reference distribution `q`.
pub(crate) trait Ground: Send + Sync + Debug {
    /// The EMD between `h / count` and `q`.
    fn emd(&self, h: &[u32], count: u32, q: &[f64]) -> f64;
}

/// t-closeness with ground distance `G`.
#[derive(Debug, Clone)]
pub(crate) struct TCloseness<G> {
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
pub(crate) struct Equal;

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
pub(crate) struct Ordered {
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
/// Li et al., with each level's parent-to-children links precomputed so that a class check
/// allocates nothing (for hierarchies of up to [`STACK_GROUPS`] groups a level).
#[derive(Debug, Clone)]
pub(crate) struct Hierarchical {
    /// `base[value]`: the level-0 group of each value (values indexed as in the histogram).
    base: Vec<u32>,
    /// Levels 1 to H: which groups of the level below each group merges.
    levels: Vec<Children>,
    /// The largest number of groups of a level.
    width: usize,
}

/// The groups of one level below each group of the next, in increasing order:
/// `children[start[p]..start[p + 1]]` for group `p`.
#[derive(Debug, Clone)]
struct Children {
    start: Vec<usize>,
    children: Vec<u32>,
}

/// Most groups a level may have for [`Hierarchical`] to work on the stack.
const STACK_GROUPS: usize = 64;

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
        let groups: Vec<Vec<u32>> = (0..h.levels())
            .map(|l| leaves.iter().map(|&leaf| h.code(l, leaf)).collect())
            .collect();
        let cardinality: Vec<usize> = (0..h.levels()).map(|l| h.cardinality(l)).collect();
        let levels = (1..groups.len())
            .map(|level| {
                // child group at level-1 -> parent group at level, via any value in it
                let mut parent = vec![u32::MAX; cardinality[level - 1]];
                for v in 0..values.len() {
                    parent[groups[level - 1][v] as usize] = groups[level][v];
                }
                let mut start = vec![0usize; cardinality[level] + 1];
                for &p in parent.iter().filter(|&&p| p != u32::MAX) {
                    start[p as usize + 1] += 1;
                }
                for p in 0..cardinality[level] {
                    start[p + 1] += start[p];
                }
                let mut fill = start.clone();
                let mut children = vec![0u32; start[cardinality[level]]];
                for (child, &p) in parent.iter().enumerate() {
                    if p != u32::MAX {
                        children[fill[p as usize]] = child as u32;
                        fill[p as usize] += 1;
                    }
                }
                Children { start, children }
            })
            .collect();
        Hierarchical {
            base: groups.first().cloned().unwrap_or_default(),
            levels,
            width: cardinality.iter().copied().max().unwrap_or(0),
        }
    }

    /// The EMD with `buf` (at least twice [`Hierarchical::width`] zeros) as working space.
    fn emd_in(&self, buf: &mut [f64], hist: &[u32], count: u32, q: &[f64]) -> f64 {
        let height = self.levels.len() as f64;
        let (mut net, mut next) = buf.split_at_mut(self.width);
        let n = count as f64;
        // Net extra of each node of the current level (level 0: one node per leaf value group).
        for (v, (&c, &qv)) in hist.iter().zip(q).enumerate() {
            net[self.base[v] as usize] += c as f64 / n - qv;
        }
        let mut cost = 0.0;
        for (i, level) in self.levels.iter().enumerate() {
            let moved: f64 = (0..level.start.len() - 1)
                .map(|p| {
                    let (mut pos, mut neg) = (0.0, 0.0);
                    for &child in &level.children[level.start[p]..level.start[p + 1]] {
                        let e = net[child as usize];
                        if e > 0.0 {
                            pos += e;
                        } else {
                            neg -= e;
                        }
                    }
                    next[p] = pos - neg;
                    f64::min(pos, neg)
                })
                .sum();
            let weight = (i + 1) as f64 / height;
            cost += weight * moved;
            std::mem::swap(&mut net, &mut next);
        }
        cost
    }
}

impl Ground for Hierarchical {
    /// Each inner node at height `l` moves min(positive, negative) extra mass between its
    /// children at cost `l / H`.
    fn emd(&self, hist: &[u32], count: u32, q: &[f64]) -> f64 {
        if self.levels.is_empty() {
            return 0.0;
        }
        if self.width <= STACK_GROUPS {
            let mut buf = [0.0; 2 * STACK_GROUPS];
            self.emd_in(&mut buf[..2 * self.width], hist, count, q)
        } else {
            self.emd_in(&mut vec![0.0; 2 * self.width], hist, count, q)
        }
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

    /// The hierarchical EMD as first written (vectors allocated per level), the reference
    /// for the allocation-free one.
    fn emd_allocating(
        h: &Hierarchy,
        values: &[String],
        hist: &[u32],
        count: u32,
        q: &[f64],
    ) -> f64 {
        let leaves: Vec<u32> = values.iter().map(|v| h.leaf(v).unwrap()).collect();
        let groups: Vec<Vec<u32>> = (0..h.levels())
            .map(|l| leaves.iter().map(|&leaf| h.code(l, leaf)).collect())
            .collect();
        let cardinality: Vec<usize> = (0..h.levels()).map(|l| h.cardinality(l)).collect();
        let height = groups.len() - 1;
        if height == 0 {
            return 0.0;
        }
        let n = count as f64;
        let mut net = vec![0.0; cardinality[0]];
        for (v, (&c, &qv)) in hist.iter().zip(q).enumerate() {
            net[groups[0][v] as usize] += c as f64 / n - qv;
        }
        let mut cost = 0.0;
        for level in 1..=height {
            let mut pos = vec![0.0; cardinality[level]];
            let mut neg = vec![0.0; cardinality[level]];
            let mut parent = vec![u32::MAX; cardinality[level - 1]];
            for v in 0..hist.len() {
                parent[groups[level - 1][v] as usize] = groups[level][v];
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

    #[test]
    fn hierarchical_emd_matches_the_allocating_definition_bit_for_bit() {
        let rows: Vec<Vec<String>> = [
            "a,ab,abcd,*",
            "b,ab,abcd,*",
            "c,cd,abcd,*",
            "d,cd,abcd,*",
            "e,ef,efgh,*",
            "f,ef,efgh,*",
            "g,g,efgh,*",
            "h,h,efgh,*",
        ]
        .iter()
        .map(|r| r.split(',').map(String::from).collect())
        .collect();
        let h = Hierarchy::from_rows(&rows, std::path::Path::new("h.csv"), None).unwrap();
        // values in another order than the leaves, two leaves never occurring
        let values: Vec<String> = ["h", "a", "c", "e", "b", "g"].map(String::from).to_vec();
        let tree = Hierarchical::of(&h, &values);
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = |m: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % m
        };
        for _ in 0..2000 {
            let weights: Vec<f64> = (0..values.len()).map(|_| 1.0 + next(9) as f64).collect();
            let total: f64 = weights.iter().sum();
            let q: Vec<f64> = weights.iter().map(|w| w / total).collect();
            let hist: Vec<u32> = (0..values.len()).map(|_| next(5) as u32).collect();
            let count: u32 = hist.iter().sum();
            if count == 0 {
                continue;
            }
            let expected = emd_allocating(&h, &values, &hist, count, &q);
            assert_eq!(
                tree.emd(&hist, count, &q).to_bits(),
                expected.to_bits(),
                "{hist:?}"
            );
            // the heap path for wide hierarchies gives the same
            let mut buf = vec![0.0; 2 * tree.width];
            assert_eq!(
                tree.emd_in(&mut buf, &hist, count, &q).to_bits(),
                expected.to_bits()
            );
        }
    }
}
