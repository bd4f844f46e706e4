//! Set-based generalization (paper 002 sections 3 and 4.2): any cell, public or
//! confidential, may be replaced by an allowed set of values containing it.
//!
//! A [`SetTable`] holds one value set per cell (bit sets over each column's values). Its
//! safety test builds R_τ (person u may own record i when each of u's public values lies in
//! record i's cell), keeps the links on some perfect matching ([`matching`](super::matching)),
//! and decides knowledge in three-valued logic: φ is known of u when, in every record u may
//! own, every clause of φ's clausal form has an atom containing its attribute's whole cell.
//!
//! Allowed values Z_j ([`Family`]): any non-empty subset (nominal), intervals of the value
//! order (numeric), or the groups of a quasi-identifier's hierarchy levels (dates, codes).
//! Row deletion and column deletion set cells to the whole domain.
//!
//! [`goal_directed`] is the search of section 4.3: from the original table, each unsafe
//! person's record is merged with its nearest neighbour's (their public cells joined) or
//! its own confidential cells are widened, whichever generalizes the fewest cells, until the
//! table is safe.

use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

use crate::algorithm::problem::Problem;
use crate::criteria::matching;
use crate::data::confidentiality::{has, Confidentiality};
use crate::error::{Error, ProblemError, Result};

/// The allowed generalized values Z_j of a column.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Family {
    /// Every non-empty subset.
    Subsets,
    /// Every interval of the value order.
    Intervals,
    /// The groups of the quasi-identifier's hierarchy levels.
    Levels,
}

/// One column of a set table.
#[derive(Debug, Clone)]
pub struct SetColumn {
    pub name: String,
    pub public: bool,
    pub values: Vec<String>,
    pub family: Family,
    /// Values in order (intervals).
    order: Vec<u32>,
    /// `groups[level][value]`: the value's group (levels).
    groups: Vec<Vec<u32>>,
    /// `labels[level][group]`: how the hierarchy names the group.
    labels: Vec<Vec<String>>,
    words: usize,
}

impl SetColumn {
    fn bits(&self, values: impl IntoIterator<Item = u32>) -> Vec<u64> {
        let mut b = vec![0u64; self.words];
        for v in values {
            b[v as usize / 64] |= 1 << (v % 64);
        }
        b
    }
    fn members(&self, cell: &[u64]) -> Vec<u32> {
        (0..self.values.len() as u32)
            .filter(|&v| has(cell, v as usize))
            .collect()
    }
    /// Whether `cell` is in Z_j.
    pub fn allowed(&self, cell: &[u64]) -> bool {
        let m = self.members(cell);
        if m.is_empty() {
            return false;
        }
        match self.family {
            Family::Subsets => true,
            Family::Intervals => {
                let pos: Vec<usize> = m
                    .iter()
                    .map(|&v| self.order.iter().position(|&o| o == v).expect("ordered"))
                    .collect();
                let (lo, hi) = (pos.iter().min().unwrap(), pos.iter().max().unwrap());
                hi - lo + 1 == m.len()
            }
            Family::Levels => self.smallest_group(&m).is_some_and(|g| g == cell),
        }
    }
    /// The smallest group of some level that holds all of `m` (levels may be partitions
    /// that do not nest, so every level is tried).
    fn smallest_group(&self, m: &[u32]) -> Option<Vec<u64>> {
        self.groups
            .iter()
            .filter_map(|map| {
                let g = map[m[0] as usize];
                m.iter().all(|&v| map[v as usize] == g).then(|| {
                    let members: Vec<u32> = (0..self.values.len() as u32)
                        .filter(|&v| map[v as usize] == g)
                        .collect();
                    (members.len(), self.bits(members))
                })
            })
            .min_by_key(|(size, _)| *size)
            .map(|(_, bits)| bits)
    }
    /// The smallest allowed value containing `cell`.
    pub fn close(&self, cell: &[u64]) -> Vec<u64> {
        let m = self.members(cell);
        match self.family {
            Family::Subsets => cell.to_vec(),
            Family::Intervals => {
                let pos: Vec<usize> = m
                    .iter()
                    .map(|&v| self.order.iter().position(|&o| o == v).expect("ordered"))
                    .collect();
                let (lo, hi) = (*pos.iter().min().unwrap(), *pos.iter().max().unwrap());
                self.bits(self.order[lo..=hi].iter().copied())
            }
            Family::Levels => self
                .smallest_group(&m)
                .unwrap_or_else(|| self.bits(0..self.values.len() as u32)),
        }
    }
    /// The smallest allowed value strictly containing `cell` and some value outside
    /// `inside` (None: impossible).
    fn widen_outside(&self, cell: &[u64], inside: &[bool]) -> Option<Vec<u64>> {
        let outside: Vec<u32> = (0..self.values.len() as u32)
            .filter(|&v| !inside[v as usize])
            .collect();
        let m = self.members(cell);
        outside
            .iter()
            .map(|&o| {
                let mut c = cell.to_vec();
                c[o as usize / 64] |= 1 << (o % 64);
                self.close(&c)
            })
            .min_by_key(|c| (self.members(c).len(), self.members(c)))
            .filter(|c| self.members(c).len() > m.len())
    }
    /// How a cell is shown in a released table.
    pub fn render(&self, cell: &[u64]) -> String {
        let m = self.members(cell);
        match m.len() {
            1 => self.values[m[0] as usize].clone(),
            n if n == self.values.len() => "*".into(),
            _ => match self.family {
                Family::Levels => {
                    let level = self.groups.iter().position(|map| {
                        let g = map[m[0] as usize];
                        (0..self.values.len()).all(|v| (map[v] == g) == m.contains(&(v as u32)))
                    });
                    match level {
                        Some(l) => self.labels[l][self.groups[l][m[0] as usize] as usize].clone(),
                        None => self.render_set(&m),
                    }
                }
                Family::Intervals => {
                    let first = self.order.iter().find(|&&o| m.contains(&o)).unwrap();
                    let last = self.order.iter().rev().find(|&&o| m.contains(&o)).unwrap();
                    format!(
                        "[{},{}]",
                        self.values[*first as usize], self.values[*last as usize]
                    )
                }
                _ => self.render_set(&m),
            },
        }
    }
    /// `{a,b,...}`: every member, in the column's order.
    fn render_set(&self, m: &[u32]) -> String {
        let names: Vec<&str> = self
            .order
            .iter()
            .filter(|o| m.contains(o))
            .map(|&v| self.values[v as usize].as_str())
            .collect();
        format!("{{{}}}", names.join(","))
    }
    /// Reads a released cell back into its set of values (the inverse of [`render`]), or
    /// None when `text` names no allowed value of this column.
    ///
    /// [`render`]: SetColumn::render
    pub fn parse(&self, text: &str) -> Option<Vec<u64>> {
        let index = |v: &str| self.values.iter().position(|x| x == v).map(|i| i as u32);
        if let Some(v) = index(text) {
            return Some(self.bits([v]));
        }
        if text == "*" {
            return Some(self.bits(0..self.values.len() as u32));
        }
        if self.family == Family::Levels {
            for (labels, map) in self.labels.iter().zip(&self.groups) {
                if let Some(g) = labels.iter().position(|l| l == text) {
                    let members =
                        (0..self.values.len() as u32).filter(|&v| map[v as usize] == g as u32);
                    return Some(self.bits(members));
                }
            }
        }
        if let Some(inner) = text.strip_prefix('[').and_then(|t| t.strip_suffix(']')) {
            let (lo, hi) = inner.split_once(',')?;
            let at = |v: &str| self.order.iter().position(|&o| Some(o) == index(v));
            let (lo, hi) = (at(lo)?, at(hi)?);
            return (lo <= hi).then(|| self.bits(self.order[lo..=hi].iter().copied()));
        }
        let inner = text.strip_prefix('{')?.strip_suffix('}')?;
        let members: Option<Vec<u32>> = inner.split(',').map(index).collect();
        members.filter(|m| !m.is_empty()).map(|m| self.bits(m))
    }
}

/// A data matrix under a set-based generalization: public columns first (the
/// quasi-identifiers), then the columns formulas mention.
#[derive(Debug, Clone)]
pub struct SetTable<'a> {
    pub problem: &'a Problem,
    pub columns: Vec<SetColumn>,
    /// Original value of each row per column.
    pub original: Vec<Vec<u32>>,
    /// `cells[j][row * words_j ..]`.
    cells: Vec<Vec<u64>>,
    /// Table column of each set column.
    pub table_columns: Vec<usize>,
}

/// The safety verdict on a set table.
#[derive(Debug, Clone, Serialize)]
pub struct SetSafety {
    pub safe: bool,
    pub unsafe_persons: usize,
    /// (1-based row, person, formula ids) of the first unsafe persons.
    pub exposures: Vec<(usize, String, Vec<String>)>,
    /// |R_τ| and |R_τ↓| (person–record links).
    pub links: u64,
    pub reduced_links: u64,
    /// Distinct public tuples of persons and of records.
    pub person_types: usize,
    pub record_types: usize,
}

fn numeric_order(values: &[String]) -> Option<Vec<u32>> {
    let x: Option<Vec<f64>> = values
        .iter()
        .map(|v| crate::data::number::parse(v))
        .collect();
    let x = x?;
    let mut order: Vec<u32> = (0..values.len() as u32).collect();
    order.sort_by(|&a, &b| x[a as usize].total_cmp(&x[b as usize]));
    Some(order)
}

impl<'a> SetTable<'a> {
    /// The original table as a set table (every cell exact). `families` overrides the
    /// default Z_j by column name: levels for quasi-identifiers, intervals for numeric and
    /// subsets for other confidential columns.
    pub fn new(problem: &'a Problem, families: &FxHashMap<String, Family>) -> Result<Self> {
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
            original.push(q.leaves.clone());
            table_columns.push(q.column);
        }
        for d in &c.vocabulary {
            let numeric = numeric_order(&d.values).is_some();
            let default = if numeric {
                Family::Intervals
            } else {
                Family::Subsets
            };
            let family = families.get(&d.name).copied().unwrap_or(default);
            if family == Family::Levels {
                return Err(Error::Invalid(format!(
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
            original.push(problem.data.table.codes(d.column).to_vec());
            table_columns.push(d.column);
        }
        let cells = columns
            .iter()
            .zip(&original)
            .map(|(col, orig)| {
                let mut flat = vec![0u64; n * col.words];
                for (r, &v) in orig.iter().enumerate() {
                    flat[r * col.words + v as usize / 64] |= 1 << (v % 64);
                }
                flat
            })
            .collect();
        Ok(SetTable {
            problem,
            columns,
            original,
            cells,
            table_columns,
        })
    }

    pub fn rows(&self) -> usize {
        self.problem.data.rows()
    }
    fn confidentiality(&self) -> &'a Confidentiality {
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
    fn set(&mut self, i: usize, j: usize, cell: Vec<u64>) -> Result<()> {
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

    /// Formulas known of any person who may own record `i`: those whose clausal form holds
    /// in every reasonable completion of the record's confidential cells.
    fn known_in_record(&self, i: usize) -> Vec<u64> {
        let c = self.confidentiality();
        let first = self.problem.data.quasi.len();
        let mut bits = vec![0u64; c.profiles.words];
        for (f, nf) in c.formulas.iter().enumerate() {
            let cell = |d: usize, v: usize| has(self.cell(i, first + d), v);
            let size = |d: usize| c.vocabulary[d].values.len();
            if nf.cnf.known(&cell, &size) {
                bits[f / 64] |= 1 << (f % 64);
            }
        }
        bits
    }

    /// The safety test of section 4.2, listing at most `limit` unsafe persons.
    pub fn safety(&self, limit: usize) -> SetSafety {
        let c = self.confidentiality();
        let n = self.rows();
        let m1 = self.problem.data.quasi.len();
        // person types: exact public tuples
        let mut person_index: FxHashMap<Vec<u32>, u32> = FxHashMap::default();
        let mut person_of = Vec::with_capacity(n);
        let mut person_tuples: Vec<Vec<u32>> = Vec::new();
        let mut a: Vec<u32> = Vec::new();
        for r in 0..n {
            let t: Vec<u32> = (0..m1).map(|j| self.original[j][r]).collect();
            let next = a.len() as u32;
            let p = *person_index.entry(t.clone()).or_insert_with(|| {
                a.push(0);
                person_tuples.push(t);
                next
            });
            a[p as usize] += 1;
            person_of.push(p);
        }
        // record types: generalized public tuples
        let mut record_index: FxHashMap<Vec<u64>, u32> = FxHashMap::default();
        let mut record_of = Vec::with_capacity(n);
        let mut record_rows: Vec<Vec<usize>> = Vec::new();
        for r in 0..n {
            let key: Vec<u64> = (0..m1).flat_map(|j| self.cell(r, j).to_vec()).collect();
            let next = record_rows.len() as u32;
            let q = *record_index.entry(key).or_insert_with(|| {
                record_rows.push(Vec::new());
                next
            });
            record_rows[q as usize].push(r);
            record_of.push(q);
        }
        let b: Vec<u32> = record_rows.iter().map(|rows| rows.len() as u32).collect();
        // compatibility edges, indexed by the columns where a record's cell is exact
        let mut by_pattern: FxHashMap<Vec<usize>, FxHashMap<Vec<u32>, Vec<u32>>> =
            FxHashMap::default();
        let mut edges: Vec<(u32, u32)> = Vec::new();
        for (q, rows) in record_rows.iter().enumerate() {
            let r = rows[0];
            let exact: Vec<usize> = (0..m1).filter(|&j| !self.is_generalized(r, j)).collect();
            let index = by_pattern.entry(exact.clone()).or_insert_with(|| {
                let mut index: FxHashMap<Vec<u32>, Vec<u32>> = FxHashMap::default();
                for (p, t) in person_tuples.iter().enumerate() {
                    index
                        .entry(exact.iter().map(|&j| t[j]).collect())
                        .or_default()
                        .push(p as u32);
                }
                index
            });
            let key: Vec<u32> = exact.iter().map(|&j| self.original[j][r]).collect();
            for &p in index.get(&key).map(|v| v.as_slice()).unwrap_or(&[]) {
                let t = &person_tuples[p as usize];
                if (0..m1).all(|j| has(self.cell(r, j), t[j] as usize)) {
                    edges.push((p, q as u32));
                }
            }
        }
        let usable = matching::usable(&a, &b, &edges).expect("the identity is a perfect matching");
        let links: u64 = edges
            .iter()
            .map(|&(p, q)| a[p as usize] as u64 * b[q as usize] as u64)
            .sum();
        let reduced_links: u64 = edges
            .iter()
            .zip(&usable)
            .filter(|(_, &u)| u)
            .map(|(&(p, q), _)| a[p as usize] as u64 * b[q as usize] as u64)
            .sum();
        // knowledge: ∧ over the records of each record type, then over usable edges
        let words = c.profiles.words;
        let mut known_record: FxHashMap<Vec<u64>, Vec<u64>> = FxHashMap::default();
        let known_q: Vec<Vec<u64>> = record_rows
            .iter()
            .map(|rows| {
                let mut k = vec![u64::MAX; words];
                for &r in rows {
                    let key: Vec<u64> = (m1..self.columns.len())
                        .flat_map(|j| self.cell(r, j).to_vec())
                        .collect();
                    let kr = known_record
                        .entry(key)
                        .or_insert_with(|| self.known_in_record(r));
                    for w in 0..words {
                        k[w] &= kr[w];
                    }
                }
                k
            })
            .collect();
        let mut known_p = vec![vec![u64::MAX; words]; a.len()];
        for (&(p, q), &u) in edges.iter().zip(&usable) {
            if u {
                for w in 0..words {
                    known_p[p as usize][w] &= known_q[q as usize][w];
                }
            }
        }
        let mut exposures = Vec::new();
        let mut unsafe_persons = 0;
        for (r, &p) in person_of.iter().enumerate() {
            let formulas: Vec<String> = c.con_sets[c.con_of_row[r] as usize]
                .iter()
                .filter(|&&(f, _)| has(&known_p[p as usize], f as usize))
                .map(|&(f, _)| c.formulas[f as usize].id.clone())
                .collect();
            if !formulas.is_empty() {
                unsafe_persons += 1;
                if exposures.len() < limit {
                    exposures.push((r + 1, c.person(&self.problem.data.table, r), formulas));
                }
            }
        }
        let _ = record_of;
        SetSafety {
            safe: unsafe_persons == 0,
            unsafe_persons,
            exposures,
            links,
            reduced_links,
            person_types: a.len(),
            record_types: record_rows.len(),
        }
    }
}

fn column(
    name: &str,
    public: bool,
    values: Vec<String>,
    family: Family,
    groups: Vec<Vec<u32>>,
) -> Result<SetColumn> {
    let order = match family {
        Family::Intervals => numeric_order(&values).ok_or_else(|| {
            set_based(format!(
                "`{name}` is not numeric, so its cells cannot be generalized to intervals"
            ))
        })?,
        _ => numeric_order(&values).unwrap_or_else(|| {
            let mut o: Vec<u32> = (0..values.len() as u32).collect();
            o.sort_by(|&x, &y| values[x as usize].cmp(&values[y as usize]));
            o
        }),
    };
    Ok(SetColumn {
        name: name.into(),
        public,
        words: values.len().div_ceil(64).max(1),
        values,
        family,
        order,
        groups,
        labels: Vec::new(),
    })
}

/// `[search.set_based]`: allowed values per column and a bound on the search.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SetBasedSpec {
    /// Z_j by column name (`subsets`, `intervals`, `levels`); see [`SetTable::new`].
    pub families: std::collections::BTreeMap<String, Family>,
    pub max_rounds: usize,
}

impl SetBasedSpec {
    /// Z_j by column name, as [`SetTable::new`] takes them.
    pub fn families(&self) -> FxHashMap<String, Family> {
        self.families.iter().map(|(k, v)| (k.clone(), *v)).collect()
    }
}

impl Default for SetBasedSpec {
    fn default() -> Self {
        SetBasedSpec {
            families: Default::default(),
            max_rounds: 1000,
        }
    }
}

/// The set-based search's part of a report.
#[derive(Debug, Clone, Serialize)]
pub struct SetBasedReport {
    #[serde(flatten)]
    pub search: GoalDirected,
    /// Cells generalized by the level-based transformation with the fewest, among the
    /// minimal safe ones (what the set-based search is compared with).
    pub level_based_cells: Option<usize>,
    pub level_based_levels: Option<Vec<u8>>,
    /// The first generalized cells: (1-based row, column, released value).
    pub cells: Vec<(usize, String, String)>,
}

/// Cells a level-based transformation generalizes (quasi-identifier cells whose group holds
/// more than one value).
pub fn level_based_cells(problem: &Problem, levels: &[u8]) -> usize {
    problem
        .quasi_at(levels)
        .map(|(q, l)| {
            let h = &q.hierarchy;
            q.leaves
                .iter()
                .filter(|&&leaf| h.group_size(l, h.code(l, leaf)) > 1)
                .count()
        })
        .sum()
}

/// Runs the goal-directed search from the original table and compares it with the best
/// minimal safe level-based transformation. Returns the table and the report.
pub fn run<'a>(
    problem: &'a Problem,
    spec: &SetBasedSpec,
) -> Result<(SetTable<'a>, SetBasedReport)> {
    run_observed(problem, spec, &crate::observer::Silent)
}

/// [`run`], reporting a [`SET_BASED`](crate::observer::SET_BASED) stage, then the minimal
/// search's, and stopping with [`Error::Cancelled`] when `observer` says so.
pub fn run_observed<'a>(
    problem: &'a Problem,
    spec: &SetBasedSpec,
    observer: &dyn crate::observer::Observer,
) -> Result<(SetTable<'a>, SetBasedReport)> {
    let mut table = SetTable::new(problem, &spec.families())?;
    let search = goal_directed_observed(&mut table, spec.max_rounds, observer)?;
    let level_based = crate::algorithm::minimal(problem, observer)?
        .minimal
        .iter()
        .map(|e| (level_based_cells(problem, &e.levels), e.levels.clone()))
        .min();
    let mut cells = Vec::new();
    'rows: for i in 0..table.rows() {
        for j in 0..table.columns.len() {
            if table.is_generalized(i, j) {
                if cells.len() == 1000 {
                    break 'rows;
                }
                cells.push((
                    i + 1,
                    table.columns[j].name.clone(),
                    table.columns[j].render(table.cell(i, j)),
                ));
            }
        }
    }
    Ok((
        table,
        SetBasedReport {
            search,
            level_based_cells: level_based.as_ref().map(|x| x.0),
            level_based_levels: level_based.map(|x| x.1),
            cells,
        },
    ))
}

/// What the goal-directed search did.
#[derive(Debug, Clone, Serialize)]
pub struct GoalDirected {
    pub safe: bool,
    pub rounds: usize,
    pub generalized_cells: usize,
    pub merges: usize,
    pub widenings: usize,
}

/// A new cell value: (row, column, cell).
type Change = (usize, usize, Vec<u64>);

/// Records on each side of a person, in the order of public tuples, that the goal-directed
/// search considers as neighbours.
pub const NEIGHBOURHOOD: usize = 256;

/// The goal-directed search of section 4.3 (see the module docs). Neighbours are sought
/// among the [`NEIGHBOURHOOD`] records on either side in the order of public tuples.
pub fn goal_directed(table: &mut SetTable, max_rounds: usize) -> Result<GoalDirected> {
    goal_directed_observed(table, max_rounds, &crate::observer::Silent)
}

/// [`goal_directed`], reporting the rounds done as a [`SET_BASED`](crate::observer::SET_BASED)
/// stage and stopping with [`Error::Cancelled`] when `observer` says so (it is asked each
/// round and for each exposed person; the table is then partly generalized and should be
/// dropped).
pub fn goal_directed_observed(
    table: &mut SetTable,
    max_rounds: usize,
    observer: &dyn crate::observer::Observer,
) -> Result<GoalDirected> {
    use crate::observer::{Stage, SET_BASED};
    let stage = Stage::start(observer, SET_BASED, Some(max_rounds as u64));
    let c = table.confidentiality();
    let n = table.rows();
    let m1 = table.problem.data.quasi.len();
    let mut sorted: Vec<usize> = (0..n).collect();
    sorted.sort_by_key(|&r| (0..m1).map(|j| table.original[j][r]).collect::<Vec<_>>());
    let mut place = vec![0usize; n];
    for (k, &r) in sorted.iter().enumerate() {
        place[r] = k;
    }
    let (mut merges, mut widenings) = (0, 0);
    for round in 0..max_rounds {
        stage.set(round as u64);
        stage.check()?;
        let verdict = table.safety(usize::MAX);
        if verdict.safe {
            return Ok(GoalDirected {
                safe: true,
                rounds: round,
                generalized_cells: table.generalized_cells(),
                merges,
                widenings,
            });
        }
        let mut touched = vec![false; n];
        let mut progress = false;
        stage.check()?;
        let known: Vec<Vec<u64>> = (0..n).map(|r| table.known_in_record(r)).collect();
        for (row, _, formulas) in &verdict.exposures {
            stage.check()?;
            let u = row - 1;
            if touched[u] {
                continue;
            }
            let f = c
                .formulas
                .iter()
                .position(|x| x.id == formulas[0])
                .expect("a catalog formula");
            // option A: join u's public cells with those of the nearest record not knowing f
            let mut best: Option<(usize, Vec<Change>)> = None;
            let window = &sorted
                [place[u].saturating_sub(NEIGHBOURHOOD)..(place[u] + NEIGHBOURHOOD + 1).min(n)];
            for &v in window
                .iter()
                .filter(|&&v| v != u && !touched[v] && !has(&known[v], f))
            {
                let mut changes = Vec::new();
                for j in 0..m1 {
                    let (cu, cv) = (table.cell(u, j), table.cell(v, j));
                    if cu == cv {
                        continue;
                    }
                    let joined: Vec<u64> = cu.iter().zip(cv).map(|(x, y)| x | y).collect();
                    let joined = table.columns[j].close(&joined);
                    if joined != cu {
                        changes.push((u, j, joined.clone()));
                    }
                    if joined != cv {
                        changes.push((v, j, joined));
                    }
                }
                if best.as_ref().is_none_or(|b| changes.len() < b.1.len()) {
                    best = Some((v, changes));
                }
            }
            // option B: widen u's confidential cells so one clause of f is no longer known
            let mut widen: Option<Vec<Change>> = None;
            for clause in &c.formulas[f].cnf.0 {
                let mut changes = Vec::new();
                let mut possible = true;
                for atom in &clause.atoms {
                    let j = m1 + atom.domain;
                    let cell = table.cell(u, j);
                    let covered = table.columns[j]
                        .members(cell)
                        .iter()
                        .all(|&x| atom.values[x as usize]);
                    if covered {
                        match table.columns[j].widen_outside(cell, &atom.values) {
                            Some(w) => changes.push((u, j, w)),
                            None => possible = false,
                        }
                    }
                }
                if possible && widen.as_ref().is_none_or(|w| changes.len() < w.len()) {
                    widen = Some(changes);
                }
            }
            let choice = match (best, widen) {
                (Some((v, a)), Some(b)) if a.len() <= b.len() => Some((Some(v), a)),
                (_, Some(b)) => Some((None, b)),
                (Some((v, a)), None) => Some((Some(v), a)),
                (None, None) => None,
            };
            let Some((v, changes)) = choice else { continue };
            if changes.is_empty() {
                continue;
            }
            for (i, j, cell) in changes {
                table.set(i, j, cell)?;
            }
            touched[u] = true;
            match v {
                Some(v) => {
                    touched[v] = true;
                    merges += 1;
                }
                None => widenings += 1,
            }
            progress = true;
        }
        if !progress {
            return Err(ProblemError::Unsatisfiable.into());
        }
    }
    stage.check()?;
    let safe = table.safety(0).safe;
    Ok(GoalDirected {
        safe,
        rounds: max_rounds,
        generalized_cells: table.generalized_cells(),
        merges,
        widenings,
    })
}

/// The code of value `a` in column `col`, or an error naming both.
fn value_code(col: &SetColumn, a: &str) -> Result<u32> {
    col.values
        .iter()
        .position(|x| x == a)
        .map(|v| v as u32)
        .ok_or_else(|| {
            set_based(format!(
                "`{}` is not a value of `{}`",
                crate::error::excerpt(a),
                col.name
            ))
        })
}

/// A set-based generalization its attribute's family cannot express.
fn set_based(message: String) -> Error {
    Error::Problem(ProblemError::SetBased(message))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Regression: subsets of more than 64 values were rendered truncated, so the release
    /// showed fewer candidates than the safety test had assumed.
    #[test]
    fn large_subsets_render_whole_and_parse_back() {
        let values: Vec<String> = (0..100).map(|i| format!("v{i}")).collect();
        let col = column("c", false, values, Family::Subsets, Vec::new()).unwrap();
        let cell = col.bits((0..100).filter(|&v| v != 7));
        let text = col.render(&cell);
        assert!(text.contains("v99") && !text.contains("v7,"), "{text}");
        assert_eq!(col.parse(&text), Some(cell));
        let all = col.bits(0..100);
        assert_eq!(col.render(&all), "*");
        assert_eq!(col.parse("*"), Some(all));
        assert_eq!(col.parse("{v1,nope}"), None);
        let numbers: Vec<String> = ["10", "2", "30"].iter().map(|s| s.to_string()).collect();
        let col = column("n", false, numbers, Family::Intervals, Vec::new()).unwrap();
        let cell = col.bits([0, 1]);
        assert_eq!(col.render(&cell), "[2,10]");
        assert_eq!(col.parse("[2,10]"), Some(cell));
        assert_eq!(col.parse("[10,2]"), None);
    }

    /// Regression: with partitions that do not nest, the first level holding a cell is not
    /// always the one with the smallest group; closing {1,2} must give {1,2}, not {1,2,3,4}.
    #[test]
    fn levels_close_to_the_smallest_group_of_any_partition() {
        let values: Vec<String> = (1..=6).map(|v| v.to_string()).collect();
        let groups = vec![
            vec![0, 1, 2, 3, 4, 5],
            vec![0, 0, 0, 0, 1, 2], // {1,2,3,4} {5} {6}
            vec![0, 0, 1, 1, 1, 1], // {1,2} {3,4,5,6}
            vec![0; 6],
        ];
        let col = column("c", true, values, Family::Levels, groups).unwrap();
        assert_eq!(col.close(&col.bits([0, 1])), col.bits([0, 1]));
        assert_eq!(col.close(&col.bits([0, 2])), col.bits([0, 1, 2, 3]));
        assert_eq!(col.close(&col.bits([0, 4])), col.bits(0..6));
    }
}
