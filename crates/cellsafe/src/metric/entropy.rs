//! Non-uniform entropy (ARX's `MetricMDNUEntropy`): per attribute, the information lost by
//! generalizing, −Σ_x c(x)·log2(c(x)/c(g(x))) over input values x and their groups g(x).
//! The monotonic variant ignores suppression; the non-monotonic one charges suppressed rows
//! the entropy of the suppressed values themselves.

use rustc_hash::FxHashMap;

use super::{leaf_counts, positive_zero, round10, Basis, Measure, Node, Score};
use crate::framework::dataset::{Dataset, QuasiIdentifier};

/// `table[j][level]`: −Σ_x c(x)·log2(c(x)/c(g(x))) over the input values of attribute `j`.
fn table(q: &QuasiIdentifier) -> Vec<f64> {
    let h = &q.hierarchy;
    let counts = leaf_counts(q);
    (0..h.levels())
        .map(|level| {
            let map = h.level_map(level);
            let mut group_counts = vec![0u64; h.cardinality(level)];
            for (leaf, &c) in counts.iter().enumerate() {
                group_counts[map[leaf] as usize] += c;
            }
            let mut ent = 0.0;
            for (leaf, &c) in counts.iter().enumerate() {
                if c > 0 {
                    let code = map[leaf] as usize;
                    ent += c as f64 * (c as f64 / group_counts[code] as f64).log2();
                }
            }
            positive_zero(-ent)
        })
        .collect()
}

/// The generalization part of both variants for attribute `j`: the rounded table entry.
fn generalized(table: &[Vec<f64>], basis: &Basis, j: usize, level: u8) -> f64 {
    round10(basis.g_factor * table[j][level as usize])
}

/// Non-uniform entropy, monotonic: suppressed rows cost nothing.
#[derive(Debug, Clone)]
pub(crate) struct Entropy {
    table: Vec<Vec<f64>>,
}

impl Entropy {
    pub(super) fn new(data: &Dataset) -> Entropy {
        Entropy {
            table: data.quasi.iter().map(table).collect(),
        }
    }
}

impl Measure for Entropy {
    fn score(&self, basis: &Basis, node: &Node<'_>) -> Score {
        self.level_bound(basis, node.levels).expect("class-free")
    }
    /// Monotonic and class-free: the score itself.
    fn level_term(&self, basis: &Basis, j: usize, level: u8) -> Option<f64> {
        Some(generalized(&self.table, basis, j, level))
    }
}

/// Non-uniform entropy, non-monotonic: suppressed rows cost the entropy of their values
/// within the suppressed pool, weighed by the suppression factor.
#[derive(Debug, Clone)]
pub(crate) struct EntropyNm {
    table: Vec<Vec<f64>>,
}

impl EntropyNm {
    pub(super) fn new(data: &Dataset) -> EntropyNm {
        EntropyNm {
            table: data.quasi.iter().map(table).collect(),
        }
    }
}

impl Measure for EntropyNm {
    fn score(&self, basis: &Basis, node: &Node<'_>) -> Score {
        let (gf, sf) = (basis.g_factor, basis.s_factor);
        let classes = node.classes;
        let ns = node.suppressed_rows as f64;
        let mut values = Vec::with_capacity(node.levels.len());
        for (j, &level) in node.levels.iter().enumerate() {
            let mut supp = 0.0;
            if node.suppressed_rows > 0 {
                let mut s: FxHashMap<u32, u64> = Default::default();
                for c in (0..classes.len()).filter(|&c| node.suppressed[c]) {
                    let leaf = node.snapshot.leaf(j, classes.reps()[c]);
                    *s.entry(node.hierarchies[j].code(level as usize, leaf))
                        .or_default() += classes.counts[c] as u64;
                }
                supp = -s
                    .values()
                    .map(|&sy| sy as f64 * (sy as f64 / ns).log2())
                    .sum::<f64>();
            }
            values.push(round10(gf * self.table[j][level as usize] + sf * supp));
        }
        basis.aggregate(&values)
    }
    /// The generalization part alone: suppression only adds to it.
    fn level_term(&self, basis: &Basis, j: usize, level: u8) -> Option<f64> {
        Some(generalized(&self.table, basis, j, level))
    }
}
