//! Exact enumeration of PER sets: the reference method.
//!
//! PER(G) is the product over groups of the distinct permutations of each group's values,
//! visited in lexicographic order. The inclusive strategy's recursion (table 3) memoizes
//! "does the check hold on DS_j" by the multisets of g_j's groups, which is all DS_j
//! depends on.

use rustc_hash::FxHashMap;

use super::{Disclosure, Partition, Tally};
use crate::error::{Error, Result};
use crate::observer::Stage;

/// Tables visited between two cancellation checks.
const TABLES_PER_CHECK: u64 = 1024;

/// Rearranges `s` into the next lexicographic permutation; `false` (and sorted) after the last.
fn next_permutation(s: &mut [u16]) -> bool {
    let Some(i) = s.windows(2).rposition(|w| w[0] < w[1]) else {
        s.reverse();
        return false;
    };
    let j = s.iter().rposition(|&x| x > s[i]).unwrap_or(i);
    s.swap(i, j);
    s[i + 1..].reverse();
    true
}

/// Walks PER(g(x)) one table at a time.
pub(crate) struct Arrangements<'a> {
    partition: &'a Partition,
    current: Vec<Vec<u16>>,
    table: Vec<u16>,
    started: bool,
}

impl<'a> Arrangements<'a> {
    pub(crate) fn new(partition: &'a Partition, x: &[u16]) -> Self {
        let mut table = x.to_vec();
        let current = partition
            .groups()
            .iter()
            .map(|rows| {
                let mut values: Vec<u16> = rows.iter().map(|&r| x[r as usize]).collect();
                values.sort_unstable();
                for (&r, &v) in rows.iter().zip(&values) {
                    table[r as usize] = v;
                }
                values
            })
            .collect();
        Arrangements {
            partition,
            current,
            table,
            started: false,
        }
    }

    /// Moves to the next table; `false` when all have been visited.
    pub(crate) fn advance(&mut self) -> bool {
        if !self.started {
            self.started = true;
            return true;
        }
        for (g, rows) in self.partition.groups().iter().enumerate() {
            let more = next_permutation(&mut self.current[g]);
            for (&r, &v) in rows.iter().zip(&self.current[g]) {
                self.table[r as usize] = v;
            }
            if more {
                return true;
            }
        }
        false
    }

    pub(crate) fn table(&self) -> &[u16] {
        &self.table
    }
}

fn over_budget(budget: u64) -> Error {
    Error::Intractable(format!(
        "enumeration would visit more than {budget} tables; raise the budget or use \
         method \"counting\" or \"estimate\""
    ))
}

/// DS_e,i: tables of PER(G_i) for which PER(g_j) fails the check for every j < i.
pub(crate) fn exclusive(d: &Disclosure, i: usize, budget: u64, stage: &Stage) -> Result<Tally> {
    let m = d.values();
    let mut tally = Tally::new(d.instance.rows(), m);
    let mut it = Arrangements::new(&d.chain[i], &d.instance.sensitive);
    let mut visited = 0u64;
    while it.advance() {
        visited += 1;
        if visited > budget {
            return Err(over_budget(budget));
        }
        if visited.is_multiple_of(TABLES_PER_CHECK) {
            stage.check()?;
        }
        let y = it.table();
        if (0..i).all(|j| !d.per_holds(j, y)) {
            tally.add(y, m);
        }
    }
    Ok(tally)
}

/// The inclusive strategy's recursion, memoized.
pub(crate) struct Inclusive<'a> {
    d: &'a Disclosure,
    stage: &'a Stage<'a>,
    budget: u64,
    visited: u64,
    memo: FxHashMap<(usize, Vec<u16>), bool>,
}

impl<'a> Inclusive<'a> {
    pub(crate) fn new(d: &'a Disclosure, budget: u64, stage: &'a Stage<'a>) -> Self {
        Inclusive {
            d,
            stage,
            budget,
            visited: 0,
            memo: FxHashMap::default(),
        }
    }

    /// The multisets of g_j's groups in `x`: everything DS_j(x) depends on.
    fn signature(&self, j: usize, x: &[u16]) -> Vec<u16> {
        let mut key = Vec::with_capacity(x.len());
        for rows in self.d.chain[j].groups() {
            let start = key.len();
            key.extend(rows.iter().map(|&r| x[r as usize]));
            key[start..].sort_unstable();
        }
        key
    }

    /// Whether the check holds on DS_j(x).
    fn holds(&mut self, j: usize, x: &[u16]) -> Result<bool> {
        let key = (j, self.signature(j, x));
        if let Some(&h) = self.memo.get(&key) {
            return Ok(h);
        }
        let tally = self.disclosure_set(j, x)?;
        let m = self.d.values();
        let h = (0..x.len()).all(|p| {
            self.d
                .check
                .holds_counts(&tally.counts[p * m..(p + 1) * m], tally.total)
        });
        self.memo.insert(key, h);
        Ok(h)
    }

    /// DS_i(x): tables of PER(g_i(x)) on which the inclusive algorithm, limited to g_1..g_{i-1},
    /// releases nothing.
    pub(crate) fn disclosure_set(&mut self, i: usize, x: &[u16]) -> Result<Tally> {
        let d = self.d;
        let m = d.values();
        let mut tally = Tally::new(x.len(), m);
        let mut it = Arrangements::new(&d.chain[i], x);
        while it.advance() {
            self.visited += 1;
            if self.visited > self.budget {
                return Err(over_budget(self.budget));
            }
            if self.visited.is_multiple_of(TABLES_PER_CHECK) {
                self.stage.check()?;
            }
            let y = it.table();
            let mut released_earlier = false;
            for j in 0..i {
                if self.holds(j, y)? {
                    released_earlier = true;
                    break;
                }
            }
            if !released_earlier {
                tally.add(y, m);
            }
        }
        Ok(tally)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arrangements_are_the_distinct_permutations() {
        let p = Partition::from_labels("g", &[0, 0, 0, 1, 1]);
        let x = [2u16, 1, 1, 3, 0];
        let mut it = Arrangements::new(&p, &x);
        let mut seen = Vec::new();
        while it.advance() {
            seen.push(it.table().to_vec());
        }
        // 3!/2! · 2! = 6 distinct tables.
        assert_eq!(seen.len(), 6);
        let mut unique = seen.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), 6);
        assert!(seen.contains(&x.to_vec()));
    }
}
