//! Iyengar's general loss metric (paper 003): per attribute, each row costs
//! (|g| − 1)/(|V| − 1) for the group g its value is generalized to, a suppressed row 1;
//! averaged over rows and summed over attributes.

use super::loss::shares;
use super::{leaf_counts, Basis, Measure, Node, Score};
use crate::framework::dataset::Dataset;

/// The general loss metric bound to a dataset.
#[derive(Debug, Clone)]
pub(crate) struct Glm {
    /// `share[j][level][code]`: fraction of hierarchy leaves in the group.
    share: Vec<Vec<Vec<f64>>>,
    /// `nosupp[j][level]`: Σ over rows of (|g|-1)/(M-1).
    nosupp: Vec<Vec<f64>>,
}

impl Glm {
    pub(super) fn new(data: &Dataset) -> Glm {
        let nosupp = data
            .quasi
            .iter()
            .map(|q| {
                let h = &q.hierarchy;
                let leaves = h.leaf_count() as f64;
                let counts = leaf_counts(q);
                (0..h.levels())
                    .map(|level| {
                        let map = h.level_map(level);
                        let mut glm = 0.0;
                        for (leaf, &c) in counts.iter().enumerate() {
                            if c > 0 && leaves > 1.0 {
                                glm += c as f64 * (h.group_size(level, map[leaf]) as f64 - 1.0)
                                    / (leaves - 1.0);
                            }
                        }
                        glm
                    })
                    .collect()
            })
            .collect();
        Glm {
            share: data.quasi.iter().map(|q| shares(&q.hierarchy)).collect(),
            nosupp,
        }
    }
}

impl Measure for Glm {
    fn score(&self, basis: &Basis, node: &Node<'_>) -> Score {
        if node.suppressed_rows == 0 {
            // from the per-level tables: equal to the bound to the bit
            return self
                .level_bound(basis, node.levels)
                .expect("class-free bound");
        }
        let classes = node.classes;
        let mut total = 0.0;
        for (j, &level) in node.levels.iter().enumerate() {
            let m = basis.domain[j];
            let mut loss = 0.0;
            for ((&count, &rep), &s) in classes
                .counts
                .iter()
                .zip(classes.reps())
                .zip(node.suppressed)
            {
                let size = count as f64;
                if s {
                    loss += size;
                } else if m > 1.0 {
                    let leaf = node.snapshot.leaf(j, rep);
                    let code = node.hierarchies[j].code(level as usize, leaf);
                    let g = self.share[j][level as usize][code as usize] * m;
                    loss += size * (g - 1.0) / (m - 1.0);
                }
            }
            total += loss / basis.rows;
        }
        Score::scalar(total)
    }
    fn level_bound(&self, basis: &Basis, levels: &[u8]) -> Option<Score> {
        Some(Score::scalar(
            levels
                .iter()
                .enumerate()
                .map(|(j, &level)| self.nosupp[j][level as usize] / basis.rows)
                .sum(),
        ))
    }
}
