//! What one recipient holds about the persons of a table, kept across answers.
//!
//! A recipient combines everything they were given. [`Knowledge`] keeps, for every row of
//! the table and every column that may be released, the set of values the row's cell can
//! still have: the intersection of what each answer said about it. An answer says three
//! things: the released cells of its rows (a value, a hierarchy group), that those rows pass
//! every condition of the query, and that every other row fails one. The last is a
//! disjunction; the knowledge keeps the condition the row actually fails, which is more
//! than the recipient can know, so judging with it errs on the safe side. So does linking
//! the rows of different answers, which a recipient can only do where values coincide: the
//! knowledge assumes they always can.
//!
//! A [`Disclosure`] is one answer in a form that outlives the process (values by name, rows
//! by number), so the knowledge of a recipient is rebuilt from their disclosures after a
//! restart or a change of settings.

use serde::{Deserialize, Serialize};

use super::request::Condition;
use super::Center;
use crate::data::confidentiality::has;

/// Per column that may be released (the center's set columns) and row: the values the
/// recipient cannot yet rule out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Knowledge {
    /// `cells[j][row * words_j ..]`: bit `v` set when value `v` is still possible.
    pub(crate) cells: Vec<Vec<u64>>,
    /// Per row, its person's signature class: persons in the same class appeared in the
    /// same answers showing the same public cells (0: in no answer yet).
    pub(crate) signature: Vec<u32>,
}

/// One released answer, as stored: what it showed and what its conditions implied.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Disclosure {
    /// The query's conditions: every released row passes them all, every other row fails
    /// one.
    pub conditions: Vec<Condition>,
    /// The table rows released (0-based), in the table's order.
    pub rows: Vec<u32>,
    /// The released cells, column by column.
    pub columns: Vec<DisclosedColumn>,
}

/// The released cells of one column.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DisclosedColumn {
    /// Column name.
    pub name: String,
    /// The distinct cells released, each as the values it allows.
    pub cells: Vec<Vec<String>>,
    /// Per released row (as in [`Disclosure::rows`]), its cell's index in `cells`.
    pub of_row: Vec<u32>,
}

impl Knowledge {
    /// Cells that still allow more than one value, over all rows and columns.
    pub fn uncertain_cells(&self, center: &Center) -> usize {
        let cols = &center.columns;
        (0..center.rows())
            .map(|i| {
                cols.iter()
                    .enumerate()
                    .filter(|(j, c)| {
                        let w = c.words;
                        self.cells[*j][i * w..(i + 1) * w]
                            .iter()
                            .map(|x| x.count_ones())
                            .sum::<u32>()
                            > 1
                    })
                    .count()
            })
            .sum()
    }
}

impl Center {
    /// A recipient who has received nothing: every cell allows its column's whole domain.
    pub fn fresh_knowledge(&self) -> Knowledge {
        let n = self.rows();
        Knowledge {
            cells: self
                .columns
                .iter()
                .map(|c| {
                    let all = c.all();
                    let mut flat = Vec::with_capacity(n * c.words);
                    for _ in 0..n {
                        flat.extend_from_slice(&all);
                    }
                    flat
                })
                .collect(),
            signature: vec![0; n],
        }
    }

    /// The knowledge of a recipient who received `disclosures`, in any order.
    pub fn knowledge<'d>(
        &self,
        disclosures: impl IntoIterator<Item = &'d Disclosure>,
    ) -> Knowledge {
        let mut k = self.fresh_knowledge();
        for d in disclosures {
            self.apply(&mut k, d);
        }
        k
    }

    /// Adds one disclosure to `k`. Whatever no longer fits the center (a column renamed or
    /// now identifying, a value no longer in a domain) is skipped; a cell never loses its
    /// row's true value.
    pub fn apply(&self, k: &mut Knowledge, d: &Disclosure) {
        let n = self.rows();
        let mut released = vec![false; n];
        for &r in &d.rows {
            if let Some(x) = released.get_mut(r as usize) {
                *x = true;
            }
        }
        let tests: Vec<(usize, Vec<u64>)> = d
            .conditions
            .iter()
            .filter_map(|c| {
                let j = self.set_column(&c.column)?;
                let col = &self.columns[j];
                let pass = c.passes(&col.values, col.numeric).ok()?;
                Some((j, col.bits_where(&pass)))
            })
            .collect();
        self.narrow_by_conditions(k, &tests, &released);
        // signatures: the public cells shown, by each column's index of distinct cells
        let public: Vec<&DisclosedColumn> = d
            .columns
            .iter()
            .filter(|dc| {
                self.set_column(&dc.name)
                    .is_some_and(|j| self.columns[j].quasi.is_some())
            })
            .collect();
        let shown: Vec<(u32, Vec<u32>)> = d
            .rows
            .iter()
            .enumerate()
            .filter(|&(_, &r)| (r as usize) < n)
            .map(|(i, &r)| {
                let cells = public
                    .iter()
                    .map(|dc| dc.of_row.get(i).copied().unwrap_or(u32::MAX))
                    .collect();
                (r, cells)
            })
            .collect();
        k.signature = super::public::refine(&k.signature, &shown);
        for dc in &d.columns {
            let Some(j) = self.set_column(&dc.name) else {
                continue;
            };
            let col = &self.columns[j];
            let cells: Vec<Vec<u64>> = dc
                .cells
                .iter()
                .map(|vals| col.bits_of(vals.iter().filter_map(|v| col.code(v))))
                .collect();
            for (&r, &c) in d.rows.iter().zip(&dc.of_row) {
                if let Some(cell) = cells.get(c as usize) {
                    if (r as usize) < n {
                        self.intersect(k, r as usize, j, cell);
                    }
                }
            }
        }
    }

    /// What conditions `tests` (a set column and the bits of the values that pass) say
    /// about every row: a released row passes them all; any other row fails one, taken to
    /// be the first it fails.
    pub(crate) fn narrow_by_conditions(
        &self,
        k: &mut Knowledge,
        tests: &[(usize, Vec<u64>)],
        released: &[bool],
    ) {
        if tests.is_empty() {
            return;
        }
        let complements: Vec<Vec<u64>> = tests
            .iter()
            .map(|(j, pass)| {
                let all = self.columns[*j].all();
                all.iter().zip(pass).map(|(a, p)| a & !p).collect()
            })
            .collect();
        for (i, &inside) in released.iter().enumerate() {
            if inside {
                for (j, pass) in tests {
                    self.intersect(k, i, *j, pass);
                }
            } else if let Some(t) = tests
                .iter()
                .position(|(j, pass)| !has(pass, self.original[*j][i] as usize))
            {
                self.intersect(k, i, tests[t].0, &complements[t]);
            }
        }
    }

    /// `k`'s cell (i, j) ∩= `cell`, keeping the row's true value.
    pub(crate) fn intersect(&self, k: &mut Knowledge, i: usize, j: usize, cell: &[u64]) {
        let w = self.columns[j].words;
        let v = self.original[j][i] as usize;
        let target = &mut k.cells[j][i * w..(i + 1) * w];
        for (t, c) in target.iter_mut().zip(cell) {
            *t &= c;
        }
        target[v / 64] |= 1 << (v % 64);
    }
}
