//! The set table: one value set per cell, built from a problem's original table, with the
//! operations that generalize cells.

use rustc_hash::FxHashMap;

use super::column::{column, numeric_order, Family, SetColumn};
use super::{set_based, value_code};
use crate::algorithm::problem::Problem;
use crate::data::confidentiality::{has, Confidentiality};
use crate::error::{Error, ProblemError, Result};

/// A data matrix under a set-based generalization: public columns first (the
/// quasi-identifiers), then the columns formulas mention.
#[derive(Debug, Clone)]
pub struct SetTable<'a> {
    /// The problem whose original table this generalizes.
    pub problem: &'a Problem,
    /// The set columns: quasi-identifiers first, then the columns formulas mention.
    pub columns: Vec<SetColumn>,
    /// Original value of each row per column.
    pub original: Vec<&'a [u32]>,
    /// `cells[j][row * words_j ..]`.
    pub(super) cells: Vec<Vec<u64>>,
    /// Table column of each set column.
    pub(crate) table_columns: Vec<usize>,
}

impl<'a> SetTable<'a> {
    /// The original table as a set table (every cell exact). `families` overrides the
    /// default Z_j by column name: levels for quasi-identifiers, intervals for numeric and
    /// subsets for other confidential columns.
    pub fn new(problem: &'a Problem, families: &FxHashMap<String, Family>) -> Result<Self> {
        Self::build(problem, families, None)
    }

    /// [`new`](Self::new) with the cells given (in this table's layout: per column,
    /// row-major words), not computed from the original.
    pub(crate) fn with_cells(
        problem: &'a Problem,
        families: &FxHashMap<String, Family>,
        cells: Vec<Vec<u64>>,
    ) -> Result<Self> {
        Self::build(problem, families, Some(cells))
    }

    fn build(
        problem: &'a Problem,
        families: &FxHashMap<String, Family>,
        cells: Option<Vec<Vec<u64>>>,
    ) -> Result<Self> {
        problem.data.unweighted("set-based generalization")?;
        let c = problem
            .data
            .confidentiality
            .as_deref()
            .ok_or(Error::Problem(ProblemError::NeedsSafety(
                "set-based generalization",
            )))?;
        let n = problem.data.rows();
        let mut columns = Vec::new();
        let mut original = Vec::new();
        let mut table_columns = Vec::new();
        for q in &problem.data.quasi {
            let h = &q.hierarchy;
            let values: Vec<String> = (0..h.leaf_count() as u32)
                .map(|l| h.label(0, l).to_string())
                .collect();
            let family = families.get(&q.name).copied().unwrap_or(Family::Levels);
            let groups = (0..h.levels()).map(|l| h.level_map(l).to_vec()).collect();
            let mut col = column(&q.name, true, values, family, groups)?;
            col.labels = (0..h.levels())
                .map(|l| {
                    (0..h.cardinality(l) as u32)
                        .map(|g| h.label(l, g).to_string())
                        .collect()
                })
                .collect();
            columns.push(col);
            original.push(q.leaves.as_slice());
            table_columns.push(q.column);
        }
        // public domains are the quasi-identifiers' columns above
        for d in c.vocabulary.iter().filter(|d| !d.public) {
            let numeric = numeric_order(&d.values).is_some();
            let default = if numeric {
                Family::Intervals
            } else {
                Family::Subsets
            };
            let family = families.get(&d.name).copied().unwrap_or(default);
            if family == Family::Levels {
                return Err(set_based(format!(
                    "`{}` has no hierarchy, so its cells cannot be generalized by levels",
                    d.name
                )));
            }
            columns.push(column(
                &d.name,
                false,
                d.values.clone(),
                family,
                Vec::new(),
            )?);
            original.push(problem.data.table.codes(d.column));
            table_columns.push(d.column);
        }
        let cells = cells.unwrap_or_else(|| {
            columns
                .iter()
                .zip(&original)
                .map(|(col, orig)| {
                    let mut flat = vec![0u64; n * col.words];
                    for (r, &v) in orig.iter().enumerate() {
                        flat[r * col.words + v as usize / 64] |= 1 << (v % 64);
                    }
                    flat
                })
                .collect()
        });
        Ok(SetTable {
            problem,
            columns,
            original,
            cells,
            table_columns,
        })
    }

    /// Rows (one per person).
    pub fn rows(&self) -> usize {
        self.problem.data.rows()
    }
    pub(super) fn confidentiality(&self) -> &'a Confidentiality {
        self.problem
            .data
            .confidentiality
            .as_deref()
            .expect("checked in new")
    }
    /// The cell of row `i`, column `j`.
    pub fn cell(&self, i: usize, j: usize) -> &[u64] {
        let w = self.columns[j].words;
        &self.cells[j][i * w..(i + 1) * w]
    }
    /// Whether cell (i, j) holds more than its original value.
    pub fn is_generalized(&self, i: usize, j: usize) -> bool {
        self.cell(i, j).iter().map(|w| w.count_ones()).sum::<u32>() > 1
    }
    /// Cells that allow more than one value.
    pub fn generalized_cells(&self) -> usize {
        (0..self.rows())
            .map(|i| {
                (0..self.columns.len())
                    .filter(|&j| self.is_generalized(i, j))
                    .count()
            })
            .sum()
    }

    /// The primitive operation (i, j, α) of definition 6, with α given by value names: α
    /// must contain the original value and be in Z_j.
    pub fn generalize(&mut self, i: usize, j: usize, alpha: &[&str]) -> Result<()> {
        let col = &self.columns[j];
        let codes = alpha
            .iter()
            .map(|a| value_code(col, a))
            .collect::<Result<Vec<u32>>>()?;
        let cell = col.bits(codes);
        self.set(i, j, cell)
    }
    /// Generalizes cell (i, j) to the smallest allowed value holding its current values
    /// and `values`.
    pub fn cover(&mut self, i: usize, j: usize, values: &[&str]) -> Result<()> {
        let col = &self.columns[j];
        let mut cell = self.cell(i, j).to_vec();
        for a in values {
            let v = value_code(col, a)? as usize;
            cell[v / 64] |= 1 << (v % 64);
        }
        let closed = col.close(&cell);
        self.set(i, j, closed)
    }
    /// The values of cell (i, j), by name.
    pub fn cell_values(&self, i: usize, j: usize) -> Vec<&str> {
        let col = &self.columns[j];
        col.members(self.cell(i, j))
            .into_iter()
            .map(|v| col.values[v as usize].as_str())
            .collect()
    }
    pub(super) fn set(&mut self, i: usize, j: usize, cell: Vec<u64>) -> Result<()> {
        let col = &self.columns[j];
        let orig = self.original[j][i];
        if !has(&cell, orig as usize) {
            return Err(set_based(format!(
                "row {}: a generalized `{}` must contain the original value `{}`",
                i + 1,
                col.name,
                crate::error::excerpt(&col.values[orig as usize])
            )));
        }
        if !col.allowed(&cell) {
            return Err(set_based(format!(
                "row {}: {} is not an allowed generalized value of `{}` ({:?})",
                i + 1,
                col.render(&cell),
                col.name,
                col.family
            )));
        }
        let w = col.words;
        self.cells[j][i * w..(i + 1) * w].copy_from_slice(&cell);
        Ok(())
    }
    /// Sets every public cell to its group at the level-based transformation `levels`
    /// (public columns must use the levels family).
    pub fn apply_levels(&mut self, levels: &[u8]) -> Result<()> {
        self.problem.check_levels(levels)?;
        for (j, &l) in levels.iter().enumerate() {
            let col = &self.columns[j];
            if col.family != Family::Levels {
                return Err(set_based(format!(
                    "`{}` does not use the levels family",
                    col.name
                )));
            }
            let map = &col.groups[l as usize];
            let cells: Vec<Vec<u64>> = (0..map.len() as u32)
                .map(|g| col.bits((0..map.len() as u32).filter(|&v| map[v as usize] == g)))
                .collect();
            let w = col.words;
            for i in 0..self.rows() {
                let g = map[self.original[j][i] as usize] as usize;
                self.cells[j][i * w..(i + 1) * w].copy_from_slice(&cells[g]);
            }
        }
        Ok(())
    }

    /// The released cells of row `i`, rendered, in set-column order.
    pub fn render_row(&self, i: usize) -> Vec<String> {
        (0..self.columns.len())
            .map(|j| self.columns[j].render(self.cell(i, j)))
            .collect()
    }
}
