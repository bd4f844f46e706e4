//! Decisions from public information only (`[gatekeeper] decide = "public"`): see
//! [the module docs](super#public).
//!
//! The recipient's signatures are a partition of the persons, kept in
//! [`Knowledge::signature`](super::Knowledge): an answer refines it by whether each person
//! is in the answer and, if so, the public cells shown for them. An answer is safe when,
//! after refining by it, every class of persons who appeared in some answer holds at least
//! k persons. Everything used (which rows an answer holds, computed from conditions on
//! public columns; the public cells, computed from the public values and the levels) is
//! something the recipient can compute, so the decision tells them nothing new.

use rustc_hash::FxHashMap;

use super::answer::{Candidate, Method, Plan};
use super::Center;

/// `signature` refined by one answer: `shown` lists each released row with the public
/// cells it showed (any stable ids, equal ids for equal cells). Class 0 stays the class of
/// persons in no answer; the other classes are numbered in order of first row.
pub(crate) fn refine(signature: &[u32], shown: &[(u32, Vec<u32>)]) -> Vec<u32> {
    let mut cells_of: FxHashMap<u32, &[u32]> = FxHashMap::default();
    for (r, cells) in shown {
        cells_of.insert(*r, cells);
    }
    let mut ids: FxHashMap<(u32, Option<&[u32]>), u32> = FxHashMap::default();
    ids.insert((0, None), 0);
    signature
        .iter()
        .enumerate()
        .map(|(r, &old)| {
            let key = (old, cells_of.get(&(r as u32)).copied());
            let next = ids.len() as u32;
            *ids.entry(key).or_insert(next)
        })
        .collect()
}

/// Persons in a class (other than 0) of fewer than `k` persons.
pub(crate) fn below_k(signature: &[u32], k: usize) -> usize {
    let mut sizes: FxHashMap<u32, usize> = FxHashMap::default();
    for &s in signature.iter().filter(|&&s| s != 0) {
        *sizes.entry(s).or_default() += 1;
    }
    sizes.values().filter(|&&n| n < k).sum()
}

impl Center {
    /// The largest k of the k-anonymity models (the only models allowed when deciding
    /// from public information).
    pub(crate) fn public_k(&self) -> usize {
        self.models
            .iter()
            .filter_map(|m| match m {
                crate::criteria::ModelSpec::KAnonymity { k } => Some(*k as usize),
                _ => None,
            })
            .max()
            .unwrap_or(1)
    }

    /// Persons left in classes below k when the answer is released at `levels` (of the
    /// plan's quasi-identifiers).
    pub(crate) fn public_check(&self, plan: &Plan, levels: &[u8]) -> usize {
        let shown: Vec<(u32, Vec<u32>)> = plan
            .rows
            .iter()
            .map(|&r| {
                let cells = plan
                    .quasi
                    .iter()
                    .zip(levels)
                    .map(|(&j, &l)| {
                        let q = &self.problem.data.quasi[self.columns[j].quasi.expect("quasi")];
                        q.hierarchy.code(l as usize, q.leaves[r as usize])
                    })
                    .collect();
                (r, cells)
            })
            .collect();
        below_k(&refine(&plan.base.signature, &shown), self.public_k())
    }

    /// The public decision's candidate: the plan's quasi-identifiers as asked if safe,
    /// else the lowest safe lattice layer's node generalizing fewest cells; with the
    /// generalizations tested and the persons below k as asked.
    pub(crate) fn public_search(
        &self,
        plan: &Plan,
        maxima: &[u8],
    ) -> (Option<Candidate>, usize, usize) {
        let bottom = vec![0u8; maxima.len()];
        let first = self.public_check(plan, &bottom);
        if first == 0 {
            return (
                Some(self.level_candidate(plan, &bottom, Method::None)),
                1,
                0,
            );
        }
        let mut tested = 1;
        if maxima == bottom.as_slice() {
            return (None, tested, first);
        }
        tested += 1;
        if self.public_check(plan, maxima) > 0 {
            return (None, tested, first);
        }
        let (lowest, t) =
            self.lowest_layer(plan, maxima, |levels| self.public_check(plan, levels) == 0);
        tested += t;
        let levels = lowest.unwrap_or_else(|| maxima.to_vec());
        (
            Some(self.level_candidate(plan, &levels, Method::Levels)),
            tested,
            first,
        )
    }
}
