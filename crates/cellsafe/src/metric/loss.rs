//! ARX's Loss (`MetricMDNMLoss`, ARX's default metric): per attribute, the share of the
//! domain each released value covers, summed over rows, a suppressed row costing as if
//! generalized to `*` (weighed by the suppression factor), normalized and rounded as ARX
//! does, then aggregated (geometric mean by default).

use super::{leaf_counts, round10, Basis, Measure, Node, Score};
use crate::framework::dataset::Dataset;
use crate::hierarchy::Hierarchy;

/// Loss bound to a dataset.
#[derive(Debug, Clone)]
pub(crate) struct Loss {
    /// `share[j][level][code]`: fraction of hierarchy leaves in the group.
    share: Vec<Vec<Vec<f64>>>,
    /// `nosupp[j][level]`: Σ over rows of share (Loss without suppression).
    nosupp: Vec<Vec<f64>>,
}

impl Loss {
    pub(super) fn new(data: &Dataset) -> Loss {
        let share: Vec<Vec<Vec<f64>>> = data.quasi.iter().map(|q| shares(&q.hierarchy)).collect();
        let nosupp = data
            .quasi
            .iter()
            .zip(&share)
            .map(|(q, share)| {
                let counts = leaf_counts(q);
                share
                    .iter()
                    .enumerate()
                    .map(|(level, s)| {
                        let map = q.hierarchy.level_map(level);
                        let mut loss = 0.0;
                        for (leaf, &c) in counts.iter().enumerate() {
                            if c > 0 {
                                loss += c as f64 * s[map[leaf] as usize];
                            }
                        }
                        loss
                    })
                    .collect()
            })
            .collect();
        Loss { share, nosupp }
    }

    /// ARX's normalization of attribute `j`'s raw loss: the part above the loss of the
    /// original data, over the most there can be, floored to 10 decimals.
    fn value(basis: &Basis, j: usize, raw: f64) -> f64 {
        let m = basis.g_factor * basis.rows / basis.domain[j];
        let denom = basis.rows - m;
        if denom <= 0.0 {
            return 0.0;
        }
        round10(((raw - m) / denom).max(0.0))
    }
}

/// `shares(h)[level][code]`: the fraction of `h`'s leaves in group `code` of `level`.
pub(super) fn shares(h: &Hierarchy) -> Vec<Vec<f64>> {
    let leaves = h.leaf_count() as f64;
    (0..h.levels())
        .map(|level| {
            h.group_sizes(level)
                .iter()
                .map(|&n| n as f64 / leaves)
                .collect()
        })
        .collect()
}

impl Measure for Loss {
    fn class_loss(&self, basis: &Basis, levels: &[u8], codes: &[u32], count: u32) -> Option<Score> {
        let values: Vec<f64> = levels
            .iter()
            .zip(codes)
            .enumerate()
            .map(|(j, (&l, &g))| count as f64 * self.share[j][l as usize][g as usize])
            .collect();
        Some(basis.aggregate(&values))
    }

    fn score(&self, basis: &Basis, node: &Node<'_>) -> Score {
        if node.suppressed_rows == 0 {
            // from the per-level tables: equal to the bound to the bit, so that the
            // best-first search stops at the first acceptable node
            return self
                .level_bound(basis, node.levels)
                .expect("class-free bound");
        }
        // every row as generalized (the per-level table), corrected for the suppressed
        // classes only: they are few, and the rows' sum needs no pass over the classes
        let (gf, sf) = (basis.g_factor, basis.s_factor);
        let classes = node.classes;
        let suppressed: Vec<usize> = (0..classes.len()).filter(|&c| node.suppressed[c]).collect();
        let mut raw = vec![0.0; node.levels.len()];
        for (j, raw) in raw.iter_mut().enumerate() {
            let level = node.levels[j] as usize;
            let (share, map, column) = (
                &self.share[j][level],
                node.hierarchies[j].level_map(level),
                node.snapshot.column(j),
            );
            let mut correction = 0.0;
            for &c in &suppressed {
                let size = classes.counts[c] as f64;
                let share = share[map[column[classes.reps()[c] as usize] as usize] as usize];
                let cost = if sf == 1.0 {
                    size
                } else {
                    size * share + sf * (size - size * share)
                };
                correction += cost - gf * size * share;
            }
            *raw = gf * self.nosupp[j][level] + correction;
        }
        basis.aggregate_levels(node.levels, |j, _| Loss::value(basis, j, raw[j]))
    }

    fn level_term(&self, basis: &Basis, j: usize, level: u8) -> Option<f64> {
        Some(Loss::value(
            basis,
            j,
            basis.g_factor * self.nosupp[j][level as usize],
        ))
    }
}
