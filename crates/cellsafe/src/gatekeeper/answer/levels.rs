//! The level-based search (figure 11 of paper 002): testing one node of the lattice of the
//! selected quasi-identifiers, the cells it releases, and the lowest layer of the lattice
//! that holds a safe node. The public search (`public.rs`) walks the layers the same way
//! with its own test.

use rayon::prelude::*;

use super::{Candidate, Cells, Check, Method, Plan};
use crate::gatekeeper::Center;

impl Center {
    /// Tests one level-based generalization (levels of the plan's quasi-identifiers).
    /// Logical safety is tested only when the class-based models pass, unless `count`
    /// asks for the exposed persons anyway.
    pub(super) fn check(&self, plan: &Plan, levels: &[u8], count: bool) -> Check {
        if let Some((problem, positions)) = &plan.classes {
            let full: Vec<u8> = positions
                .iter()
                .zip(&problem.data.quasi)
                .map(|(j, q)| match plan.quasi.iter().position(|x| x == j) {
                    Some(i) => levels[i],
                    None => (q.hierarchy.levels() - 1) as u8,
                })
                .collect();
            let acceptable = problem
                .evaluate(&full)
                .map(|e| e.acceptable)
                .unwrap_or(false);
            if !acceptable {
                let exposed = if count {
                    let cells = self.level_cells(plan, levels);
                    self.exposed(plan, &cells, 0).unsafe_persons
                } else {
                    0
                };
                return Check {
                    safe: false,
                    exposed,
                    classes_fail: true,
                };
            }
        }
        let cells = self.level_cells(plan, levels);
        let exposed = self.exposed(plan, &cells, 0).unsafe_persons;
        Check {
            safe: exposed == 0,
            exposed,
            classes_fail: false,
        }
    }

    /// The cells released at `levels`: groups of the hierarchies for the quasi-identifiers,
    /// values for the other columns.
    pub(crate) fn level_cells(&self, plan: &Plan, levels: &[u8]) -> Cells {
        let mut words = Vec::with_capacity(plan.selected.len());
        let mut data = Vec::with_capacity(plan.selected.len());
        for &j in &plan.selected {
            let col = &self.columns[j];
            let w = col.words;
            let mut flat = vec![0u64; plan.rows.len() * w];
            match plan.quasi.iter().position(|&x| x == j) {
                Some(i) => {
                    let l = levels[i];
                    let groups = self.group_bits(j, l);
                    let q = &self.problem.data.quasi[col.quasi.expect("quasi")];
                    for (cell, &r) in flat.chunks_exact_mut(w).zip(&plan.rows) {
                        let g = q.hierarchy.code(l as usize, q.leaves[r as usize]);
                        cell.copy_from_slice(&groups[g as usize]);
                    }
                }
                None => {
                    for (cell, &r) in flat.chunks_exact_mut(w).zip(&plan.rows) {
                        let v = self.original[j][r as usize] as usize;
                        cell[v / 64] |= 1 << (v % 64);
                    }
                }
            }
            words.push(w);
            data.push(flat);
        }
        Cells { words, data }
    }

    pub(crate) fn level_candidate(&self, plan: &Plan, levels: &[u8], method: Method) -> Candidate {
        Candidate {
            method,
            cells: self.level_cells(plan, levels),
            levels: Some(levels.to_vec()),
        }
    }

    /// Per group of column `j`'s hierarchy at `level`: its leaves as bits.
    fn group_bits(&self, j: usize, level: u8) -> Vec<Vec<u64>> {
        let col = &self.columns[j];
        let h = &self.problem.data.quasi[col.quasi.expect("quasi")].hierarchy;
        let mut groups = vec![vec![0u64; col.words]; h.cardinality(level as usize)];
        for leaf in 0..col.values.len() as u32 {
            let g = h.code(level as usize, leaf) as usize;
            groups[g][leaf as usize / 64] |= 1 << (leaf % 64);
        }
        groups
    }

    /// The safe generalization of the lowest layer above the bottom that has one (fewest
    /// generalized cells, then the smallest levels), and the generalizations tested.
    pub(super) fn lowest_safe_layer(&self, plan: &Plan, maxima: &[u8]) -> (Option<Vec<u8>>, usize) {
        self.lowest_layer(plan, maxima, |levels| self.check(plan, levels, false).safe)
    }

    /// The node passing `safe` in the lowest layer above the bottom that has one (fewest
    /// generalized cells, then the smallest levels), and the generalizations tested.
    pub(crate) fn lowest_layer(
        &self,
        plan: &Plan,
        maxima: &[u8],
        safe: impl Fn(&[u8]) -> bool + Sync,
    ) -> (Option<Vec<u8>>, usize) {
        let top: usize = maxima.iter().map(|&m| m as usize).sum();
        let mut tested = 0;
        for sum in 1..top {
            let layer = layer(maxima, sum);
            if tested + layer.len() > self.spec.max_tests || self.spent(tested + layer.len()) {
                return (None, tested);
            }
            tested += layer.len();
            let best = layer
                .par_iter()
                .filter(|levels| safe(levels))
                .map(|levels| {
                    let cells = self.level_cells(plan, levels);
                    (self.generalized_cells(plan, &cells), levels.clone())
                })
                .min();
            if let Some((_, levels)) = best {
                return (Some(levels), tested);
            }
        }
        (None, tested)
    }
}

/// The level vectors below `maxima` whose levels sum to `sum`, in lexicographic order.
fn layer(maxima: &[u8], sum: usize) -> Vec<Vec<u8>> {
    fn fill(maxima: &[u8], sum: usize, prefix: &mut Vec<u8>, out: &mut Vec<Vec<u8>>) {
        let i = prefix.len();
        if i == maxima.len() {
            if sum == 0 {
                out.push(prefix.clone());
            }
            return;
        }
        let rest: usize = maxima[i + 1..].iter().map(|&m| m as usize).sum();
        for l in 0..=maxima[i].min(sum.min(255) as u8) {
            if sum - l as usize <= rest {
                prefix.push(l);
                fill(maxima, sum - l as usize, prefix, out);
                prefix.pop();
            }
        }
    }
    let mut out = Vec::new();
    fill(maxima, sum, &mut Vec::new(), &mut out);
    out
}
