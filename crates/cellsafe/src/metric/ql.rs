//! The entropy quality ql of the AOG paper (section 4.2): per attribute, the entropy of the
//! partition its generalization makes of the domain over log|V|, weighted; 1 for the
//! original data, 0 when everything is `*`. Optimized as the loss `ql-loss` = 1 − ql.
//! Every metric's reports give ql, so its table is part of [`super::Basis`].

use super::{positive_zero, Basis, Measure, Node, Score};
use crate::hierarchy::Hierarchy;

/// `table(h)[level]`: h(π)/log|V| for the partition of `h`'s leaves at `level`.
pub(super) fn table(h: &Hierarchy) -> Vec<f64> {
    let leaves = h.leaf_count() as f64;
    (0..h.levels())
        .map(|level| {
            // h(π)/log|V| with h(π) = log|V| − Σ_g (|g|/|V|)·log|g|: exactly 1 for the
            // original values and 0 for `*` (−Σ p·log p misses both by a rounding step)
            let spread: f64 = h
                .group_sizes(level)
                .iter()
                .filter(|&&n| n > 0)
                .map(|&n| n as f64 / leaves * (n as f64).ln())
                .sum();
            if leaves > 1.0 {
                positive_zero(1.0 - spread / leaves.ln())
            } else {
                1.0
            }
        })
        .collect()
}

/// `ql-loss` = 1 − ql.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Ql;

impl Measure for Ql {
    fn score(&self, basis: &Basis, node: &Node<'_>) -> Score {
        Score::scalar(1.0 - basis.ql(node.levels))
    }
    /// ql only falls under generalization: the score itself.
    fn level_bound(&self, basis: &Basis, levels: &[u8]) -> Option<Score> {
        Some(Score::scalar(1.0 - basis.ql(levels)))
    }
}
