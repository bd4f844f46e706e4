//! Set-based answers (paper 002 section 4.3): cells generalized one by one rather than
//! column by column.
//!
//! - [`radius`](Center::radius_search): the numeric public columns' neighbourhood family
//!   N_r, from the data manager's r0, the radius doubling until the answer is safe. A cell
//!   shows the r-neighbourhood of its *block*, the values within one width 2r block
//!   counted from the column's least value, not the neighbourhood centred on its own value:
//!   a ball around the true value would give the value away as its centre.
//! - [`maximal`](Center::maximal_search), for small answers: an exact search over cell
//!   generalizations in order of total size (intervals of the value order for numeric
//!   columns, any set for the others), so the first safe one found has no strictly more
//!   specific safe one: a ⊒-maximal (maximally informative) safe generalization.
//! - [`merge`](Center::merge_search), the fast path for large answers: the rows of exposed
//!   persons (and of classes below k) are joined with their neighbours in the order of
//!   public values, cell by cell as value sets (a hull would show both end values, which is
//!   more than the set says), round after round until safe.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashSet};

use super::answer::{Candidate, Cells, Method, Plan};
use super::Center;

impl Center {
    /// The radius search; the candidate (if one is safe) and the generalizations tested.
    pub(crate) fn radius_search(&self, plan: &Plan) -> (Option<Candidate>, usize) {
        let numeric: Vec<usize> = (0..plan.selected.len())
            .filter(|&c| {
                let col = &self.columns[plan.selected[c]];
                col.quasi.is_some() && col.numeric && col.values.len() > 1
            })
            .collect();
        if numeric.is_empty() {
            return (None, 0);
        }
        let exact = self.level_cells(plan, &vec![0; plan.quasi.len()]);
        let mut t = 1.0f64;
        let mut tested = 0;
        let mut last: Option<Cells> = None;
        loop {
            if tested >= self.spec.max_tests || self.spent(tested + 1) {
                return (None, tested);
            }
            let mut cells = exact.clone();
            let mut whole = true;
            for &c in &numeric {
                let j = plan.selected[c];
                let col = &self.columns[j];
                let lo = col.number(col.order[0]);
                let hi = col.number(col.order[col.order.len() - 1]);
                let r = t * self.r0(j);
                let block = |x: f64| ((x - lo) / (2.0 * r)).floor();
                whole &= block(hi) == block(lo);
                let mut by_block: rustc_hash::FxHashMap<i64, Vec<u64>> = Default::default();
                for v in 0..col.values.len() as u32 {
                    let b = block(col.number(v)) as i64;
                    let bits = by_block.entry(b).or_insert_with(|| vec![0; col.words]);
                    bits[v as usize / 64] |= 1 << (v % 64);
                }
                for (i, &row) in plan.rows.iter().enumerate() {
                    let v = self.original[j][row as usize];
                    cells.set(c, i, &by_block[&(block(col.number(v)) as i64)]);
                }
            }
            // a radius below the gaps of the values changes nothing: not worth a test
            let same = last.as_ref() == Some(&cells);
            if !same {
                tested += 1;
            }
            if !same && self.check_sets(plan, &cells) {
                let candidate = Candidate {
                    method: Method::Radius,
                    cells,
                    levels: None,
                };
                return (Some(candidate), tested);
            }
            if whole || !t.is_finite() {
                return (None, tested);
            }
            last = Some(cells);
            t *= 2.0;
        }
    }

    /// The starting radius of numeric column `j`: the configured one, else the smallest
    /// gap between two of its values.
    fn r0(&self, j: usize) -> f64 {
        let col = &self.columns[j];
        if let Some(&r) = self.spec.radius.get(&col.name) {
            return r;
        }
        col.order
            .windows(2)
            .map(|w| col.number(w[1]) - col.number(w[0]))
            .filter(|&d| d > 0.0)
            .fold(f64::INFINITY, f64::min)
            .min(f64::MAX)
    }

    /// The exact search for a ⊒-maximal safe set-based generalization (small answers).
    pub(crate) fn maximal_search(&self, plan: &Plan) -> (Option<Candidate>, usize) {
        if plan.rows.is_empty() {
            return (None, 0);
        }
        let start = self.level_cells(plan, &vec![0; plan.quasi.len()]);
        let mut heap = BinaryHeap::new();
        let mut seen: HashSet<Cells> = HashSet::new();
        seen.insert(start.clone());
        heap.push(Reverse((start.size(), start)));
        let mut tested = 0;
        while let Some(Reverse((_, cells))) = heap.pop() {
            if tested >= self.spec.max_tests || self.spent(tested + 1) {
                return (None, tested);
            }
            tested += 1;
            if self.check_sets(plan, &cells) {
                let candidate = Candidate {
                    method: Method::Maximal,
                    cells,
                    levels: None,
                };
                return (Some(candidate), tested);
            }
            for (c, &j) in plan.selected.iter().enumerate() {
                for i in 0..plan.rows.len() {
                    for wider in self.coarsenings(j, cells.get(c, i)) {
                        let mut next = cells.clone();
                        next.set(c, i, &wider);
                        if seen.insert(next.clone()) {
                            heap.push(Reverse((next.size(), next)));
                        }
                    }
                }
            }
        }
        (None, tested)
    }

    /// The allowed cells just above `cell` in column `j`: one more value at either end of
    /// the interval (numeric), or one more value (others).
    fn coarsenings(&self, j: usize, cell: &[u64]) -> Vec<Vec<u64>> {
        let col = &self.columns[j];
        let m = col.members(cell);
        let mut out = Vec::new();
        let mut with = |v: u32| {
            let mut c = cell.to_vec();
            c[v as usize / 64] |= 1 << (v % 64);
            out.push(c);
        };
        if col.numeric {
            let lo = m.iter().map(|&v| col.rank[v as usize]).min().unwrap_or(0);
            let hi = m.iter().map(|&v| col.rank[v as usize]).max().unwrap_or(0);
            if lo > 0 {
                with(col.order[lo as usize - 1]);
            }
            if (hi as usize) + 1 < col.order.len() {
                with(col.order[hi as usize + 1]);
            }
        } else {
            for v in 0..col.values.len() as u32 {
                if !m.contains(&v) {
                    with(v);
                }
            }
        }
        out
    }

    /// The goal-directed merge (large answers).
    pub(crate) fn merge_search(&self, plan: &Plan) -> (Option<Candidate>, usize) {
        let n = plan.rows.len();
        if n == 0 {
            return (None, 0);
        }
        let mut cells = self.level_cells(plan, &vec![0; plan.quasi.len()]);
        let public: Vec<usize> = (0..plan.selected.len())
            .filter(|&c| self.columns[plan.selected[c]].quasi.is_some())
            .collect();
        let joined: Vec<usize> = if public.is_empty() {
            (0..plan.selected.len()).collect()
        } else {
            public.clone()
        };
        // released rows in the order of their public values
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by_cached_key(|&i| {
            public
                .iter()
                .map(|&c| {
                    let j = plan.selected[c];
                    self.columns[j].rank[self.original[j][plan.rows[i] as usize] as usize]
                })
                .collect::<Vec<_>>()
        });
        let mut place = vec![0usize; n];
        for (p, &i) in order.iter().enumerate() {
            place[i] = p;
        }
        let position: rustc_hash::FxHashMap<u32, usize> =
            plan.rows.iter().enumerate().map(|(i, &r)| (r, i)).collect();
        let mut tested = 0;
        for _ in 0..self.spec.max_merge_rounds {
            if tested >= self.spec.max_tests || self.spent(tested + 1) {
                break;
            }
            tested += 1;
            let small = self.small_groups(plan, &cells);
            let safety = self.exposed(plan, &cells, usize::MAX);
            if small.is_empty() && safety.safe {
                let candidate = Candidate {
                    method: Method::Merge,
                    cells,
                    levels: None,
                };
                return (Some(candidate), tested);
            }
            let mut targets: Vec<usize> = safety
                .exposures
                .iter()
                .filter_map(|(row, _, _)| position.get(&((row - 1) as u32)).copied())
                .chain(small)
                .collect();
            targets.sort_unstable();
            targets.dedup();
            let mut touched = vec![false; n];
            let mut progress = false;
            for &i in &targets {
                if touched[i] {
                    continue;
                }
                let p = place[i];
                let neighbour = (1..n)
                    .flat_map(|d| [p.checked_sub(d), Some(p + d)])
                    .flatten()
                    .filter(|&q| q < n)
                    .map(|q| order[q])
                    .find(|&o| {
                        !touched[o] && joined.iter().any(|&c| cells.get(c, o) != cells.get(c, i))
                    });
                let Some(o) = neighbour else { continue };
                for &c in &joined {
                    let (a, b) = (cells.get(c, i).to_vec(), cells.get(c, o).to_vec());
                    let union: Vec<u64> = a.iter().zip(&b).map(|(a, b)| a | b).collect();
                    // rows already sharing one of the two cells take the union too, so
                    // classes stay whole
                    for r in 0..n {
                        let cell = cells.get(c, r);
                        if cell == a.as_slice() || cell == b.as_slice() {
                            cells.set(c, r, &union);
                        }
                    }
                }
                touched[i] = true;
                touched[o] = true;
                progress = true;
            }
            if !progress {
                break;
            }
        }
        (None, tested)
    }
}
