//! One answer through the pipeline: filter, test, generalize, answer.

use std::collections::BTreeMap;

use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;
use rayon::prelude::*;
use serde::Serialize;

use super::knowledge::{DisclosedColumn, Disclosure, Knowledge};
use super::request::Request;
use super::Center;
use crate::algorithm::problem::Problem;
use crate::algorithm::setbased::SetTable;
use crate::data::Role;
use crate::error::{QueryError, Result};
use crate::framework::dataset::Dataset;
use crate::metric::MetricSpec;

/// What the gatekeeper did with a query.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// Safe as asked: released unchanged.
    Released,
    /// Unsafe as asked: released generalized.
    Generalized,
    /// No generalization tried is safe: nothing released.
    Refused,
}

/// How the released cells were generalized.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Method {
    /// Not at all.
    None,
    /// Hierarchy levels of the selected quasi-identifiers (the lowest safe layer of the
    /// lattice; figure 11 of paper 002).
    Levels,
    /// Set-based: each numeric public cell widened to its r-neighbourhood N(v, r), r
    /// doubling from the data manager's r0 until safe (paper 002 section 4.3).
    Radius,
    /// Set-based: a ⊒-maximal safe generalization, by an exact search over cell
    /// generalizations in order of size (small answers).
    Maximal,
    /// Set-based: the goal-directed merge (section 4.3's fast path): exposed persons'
    /// rows joined with their neighbours', or their confidential cells widened.
    Merge,
}

/// The gatekeeper's verdict on one query.
#[derive(Debug, Clone, Serialize)]
pub struct Verdict {
    /// Released, generalized or refused.
    pub outcome: Outcome,
    /// How cells were generalized.
    pub method: Method,
    /// Level of each selected quasi-identifier (0: as in the data).
    pub levels: BTreeMap<String, u8>,
    /// Released cells that hold more than one value.
    pub generalized_cells: usize,
    /// Mean over released cells of (values it allows − 1) / (values of its column − 1):
    /// 0 as asked, 1 when every cell is `*`. The least among safe candidates is chosen.
    pub loss: f64,
    /// Rows released (0 when refused).
    pub rows: usize,
    /// Generalizations tested.
    pub tested: usize,
    /// Identifying columns the filter dropped.
    pub dropped: Vec<String>,
    /// What the answer as asked failed (for the audit; names no person).
    pub failures: Vec<String>,
    /// Why nothing was released (refused answers).
    pub reason: Option<String>,
}

/// An answer, ready to send.
#[derive(Debug, Clone)]
pub struct Answer {
    /// Released column names.
    pub columns: Vec<String>,
    /// Released rows, in a random order drawn from the seed (empty when refused).
    pub rows: Vec<Vec<String>>,
    /// What was decided.
    pub verdict: Verdict,
    /// What the recipient now also holds (None when refused).
    pub disclosure: Option<Disclosure>,
}

/// The outcome of testing one generalization.
#[derive(Debug, Clone, Default)]
pub(crate) struct Check {
    pub(crate) safe: bool,
    /// Persons whose confidential formulas become known.
    pub(crate) exposed: usize,
    /// Whether the class-based models fail.
    pub(crate) classes_fail: bool,
}

/// Released cells: per selected column (in the plan's order), per released row, the
/// values the cell allows as bits. Each column is one buffer of `words` words per row.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) struct Cells {
    /// Words per cell, per column.
    words: Vec<usize>,
    /// Per column, the rows' cells one after another.
    data: Vec<Vec<u64>>,
}

impl Cells {
    /// Cell `i` of column `c`.
    pub(crate) fn get(&self, c: usize, i: usize) -> &[u64] {
        let w = self.words[c];
        &self.data[c][i * w..(i + 1) * w]
    }

    /// Sets cell `i` of column `c`.
    pub(crate) fn set(&mut self, c: usize, i: usize, cell: &[u64]) {
        let w = self.words[c];
        self.data[c][i * w..(i + 1) * w].copy_from_slice(cell);
    }

    /// The cells of column `c`, row by row.
    pub(crate) fn column(&self, c: usize) -> std::slice::ChunksExact<'_, u64> {
        self.data[c].chunks_exact(self.words[c])
    }

    /// Values allowed, summed over every cell.
    pub(crate) fn size(&self) -> u64 {
        self.data
            .iter()
            .flatten()
            .map(|w| w.count_ones() as u64)
            .sum()
    }

    /// Cells given column by column, row by row (every cell of a column as long).
    #[cfg(test)]
    pub(crate) fn from_nested(nested: &[Vec<Vec<u64>>]) -> Self {
        Cells {
            words: nested
                .iter()
                .map(|col| col.first().map_or(1, |c| c.len()))
                .collect(),
            data: nested.iter().map(|col| col.concat()).collect(),
        }
    }
}

/// A safe way to release the answer.
pub(crate) struct Candidate {
    pub(crate) method: Method,
    pub(crate) cells: Cells,
    /// Levels of the plan's quasi-identifiers (level-based candidates).
    pub(crate) levels: Option<Vec<u8>>,
}

/// A query resolved against the center.
pub(crate) struct Plan {
    /// Selected set columns, in the order asked.
    pub(crate) selected: Vec<usize>,
    pub(crate) dropped: Vec<String>,
    /// Released rows, ascending.
    pub(crate) rows: Vec<u32>,
    /// Selected quasi-identifying set columns (the lattice's attributes).
    pub(crate) quasi: Vec<usize>,
    /// Knowledge with this answer's conditions added.
    pub(crate) base: Knowledge,
    /// The answer's own table, for the class-based models.
    classes: Option<(Problem, Vec<usize>)>,
    /// When every class-based model is k-anonymity: the largest k (1 without any);
    /// set-based answers are judged by it. None: set-based answers are not sought.
    pub(crate) k: Option<u32>,
}

impl Center {
    /// Whether a search that has run `tests` safety tests has spent the work budget (each
    /// test examines every row of the table). Each search counts its own tests, so the
    /// searches stop at the same place however they are scheduled.
    pub(crate) fn spent(&self, tests: usize) -> bool {
        (tests as u64).saturating_mul(self.rows() as u64) >= self.spec.max_work
    }
}

impl Center {
    /// Judges `request`, whose rows the database found to be `rows` (0-based table rows),
    /// for a recipient holding `knowledge`; `seed` draws the released row order. See the
    /// module docs for the steps.
    pub fn answer(
        &self,
        knowledge: &Knowledge,
        request: &Request,
        rows: &[u32],
        seed: u64,
    ) -> Result<Answer> {
        let plan = self.plan(knowledge, request, rows)?;
        let maxima: Vec<u8> = plan
            .quasi
            .iter()
            .map(|&j| {
                let q = self.columns[j].quasi.expect("a quasi-identifier");
                (self.problem.data.quasi[q].hierarchy.levels() - 1) as u8
            })
            .collect();
        let mut failures = Vec::new();
        let (candidates, tested) = if self.spec.decide == super::Decide::Public {
            let (found, tested, below) = self.public_search(&plan, &maxima);
            if below > 0 {
                failures.push(format!(
                    "k-anonymity of everything received: {below} person(s) in classes below k"
                ));
            }
            (Vec::from_iter(found), tested)
        } else {
            self.data_search(&plan, &maxima, &mut failures)
        };
        let dropped = plan.dropped.clone();
        let columns: Vec<String> = plan
            .selected
            .iter()
            .map(|&j| self.columns[j].name.clone())
            .collect();
        // the most informative: the least loss, level-based first among equals
        let best = candidates
            .into_iter()
            .map(|c| (self.loss(&plan, &c.cells), c))
            .min_by(|a, b| a.0.total_cmp(&b.0));
        let Some((loss, chosen)) = best else {
            return Ok(Answer {
                columns,
                rows: Vec::new(),
                verdict: Verdict {
                    outcome: Outcome::Refused,
                    method: Method::None,
                    levels: BTreeMap::new(),
                    generalized_cells: 0,
                    loss: 0.0,
                    rows: 0,
                    tested,
                    dropped,
                    failures,
                    reason: Some(
                        "no generalization tried makes this answer safe together with what \
                         you have already received"
                            .into(),
                    ),
                },
                disclosure: None,
            });
        };
        let (rendered, disclosure) = self.render(&plan, &chosen, request, seed);
        let verdict = Verdict {
            outcome: if chosen.method == Method::None {
                Outcome::Released
            } else {
                Outcome::Generalized
            },
            method: chosen.method,
            levels: match &chosen.levels {
                Some(levels) => plan
                    .quasi
                    .iter()
                    .zip(levels)
                    .map(|(&j, &l)| (self.columns[j].name.clone(), l))
                    .collect(),
                None => BTreeMap::new(),
            },
            generalized_cells: self.generalized_cells(&plan, &chosen.cells),
            loss,
            rows: plan.rows.len(),
            tested,
            dropped,
            failures,
            reason: None,
        };
        Ok(Answer {
            columns,
            rows: rendered,
            verdict,
            disclosure: Some(disclosure),
        })
    }

    /// Paper 002's decision: the answer as asked if it passes, else the level-based and
    /// set-based searches side by side; the candidates, the generalizations tested, and
    /// what the answer as asked failed (added to `failures`).
    fn data_search(
        &self,
        plan: &Plan,
        maxima: &[u8],
        failures: &mut Vec<String>,
    ) -> (Vec<Candidate>, usize) {
        let bottom = vec![0u8; maxima.len()];
        let mut candidates = Vec::new();
        let first = self.check(plan, &bottom, true);
        if first.exposed > 0 {
            failures.push(format!(
                "logical safety: {} person(s) would have a confidential formula known",
                first.exposed
            ));
        }
        if first.classes_fail {
            failures.push(format!("class-based models: {}", self.model_names()));
        }
        let mut tested = 1;
        if first.safe {
            candidates.push(self.level_candidate(plan, &bottom, Method::None));
        } else {
            use super::Generalization;
            let g = self.spec.generalization;
            // level-based and set-based searches, side by side
            let (levels, sets) = rayon::join(
                || {
                    // the lowest layer with a safe node, if the top is safe at all
                    let mut found = Vec::new();
                    let mut tested = 0;
                    if g != Generalization::Sets && maxima != bottom {
                        tested += 1;
                        if self.check(plan, maxima, false).safe {
                            let (lowest, t) = self.lowest_safe_layer(plan, maxima);
                            tested += t;
                            let levels = lowest.unwrap_or_else(|| maxima.to_vec());
                            found.push(self.level_candidate(plan, &levels, Method::Levels));
                        }
                    }
                    (found, tested)
                },
                || {
                    // neighbourhoods, and the exact search or the merge, side by side
                    let mut found = Vec::new();
                    let mut tested = 0;
                    if g != Generalization::Levels && plan.k.is_some() {
                        let ((radius, t), (other, u)) = rayon::join(
                            || self.radius_search(plan),
                            || {
                                if plan.rows.len() <= self.spec.max_exact_rows {
                                    self.maximal_search(plan)
                                } else {
                                    self.merge_search(plan)
                                }
                            },
                        );
                        tested += t + u;
                        found.extend(radius);
                        found.extend(other);
                    }
                    (found, tested)
                },
            );
            tested += levels.1 + sets.1;
            candidates.extend(levels.0);
            candidates.extend(sets.0);
        }
        (candidates, tested)
    }

    fn model_names(&self) -> String {
        self.models
            .iter()
            .map(|m| m.name())
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// Resolves columns and conditions and adds what the answer says regardless of the
    /// generalization (its conditions, its exact confidential cells) to the knowledge.
    pub(crate) fn plan(
        &self,
        knowledge: &Knowledge,
        request: &Request,
        rows: &[u32],
    ) -> Result<Plan> {
        let table = &self.problem.data.table;
        let mut selected = Vec::new();
        let mut dropped = Vec::new();
        let names: Vec<&str> = request
            .columns
            .iter()
            .flat_map(|c| -> Vec<&str> {
                if c == "*" {
                    table.header().iter().map(|h| h.as_str()).collect()
                } else {
                    vec![c.as_str()]
                }
            })
            .collect();
        for name in names {
            if table.column_index(name).is_none() {
                return Err(QueryError::UnknownColumn(name.into()).into());
            }
            match self.set_column(name) {
                Some(j) if !selected.contains(&j) => selected.push(j),
                Some(_) => {}
                None if !dropped.iter().any(|d| d == name) => dropped.push(name.to_string()),
                None => {}
            }
        }
        if selected.is_empty() {
            return Err(QueryError::NoColumns.into());
        }
        let tests = self.tests(&request.conditions)?;
        let n = self.rows();
        let mut rows = rows.to_vec();
        rows.sort_unstable();
        rows.dedup();
        if let Some(&r) = rows.iter().find(|&&r| r as usize >= n) {
            return Err(crate::error::Error::Invalid(format!(
                "row {r} is not a row of the table ({n} rows)"
            )));
        }
        let mut released = vec![false; n];
        for &r in &rows {
            released[r as usize] = true;
        }
        let mut base = knowledge.clone();
        self.narrow_by_conditions(&mut base, &tests, &released);
        let quasi: Vec<usize> = selected
            .iter()
            .copied()
            .filter(|&j| self.columns[j].quasi.is_some())
            .collect();
        let conditioned: Vec<usize> = tests.iter().map(|(j, _)| *j).collect();
        let classes = self.answer_problem(&selected, &conditioned, &rows)?;
        let k = self
            .models
            .iter()
            .all(|m| matches!(m, crate::criteria::ModelSpec::KAnonymity { .. }))
            .then(|| {
                self.models
                    .iter()
                    .filter_map(|m| match m {
                        crate::criteria::ModelSpec::KAnonymity { k } => Some(*k),
                        _ => None,
                    })
                    .max()
                    .unwrap_or(1)
            });
        Ok(Plan {
            selected,
            dropped,
            rows,
            quasi,
            base,
            classes,
            k,
        })
    }

    /// The answer's rows as a table of their own, with the class-based models bound to it:
    /// sensitive columns count when released or tested by a condition. With the answer's
    /// quasi-identifier positions in that table's lattice.
    fn answer_problem(
        &self,
        selected: &[usize],
        conditioned: &[usize],
        rows: &[u32],
    ) -> Result<Option<(Problem, Vec<usize>)>> {
        if self.models.is_empty() || rows.is_empty() {
            return Ok(None);
        }
        let data = &self.problem.data;
        let table = &data.table;
        let keep: Vec<usize> = (0..table.header().len())
            .filter(|&c| data.roles[c] != Role::Identifying)
            .collect();
        let sub = table.select(rows, &keep);
        let header = sub.header().to_vec();
        let released = |name: &str| {
            self.set_column(name)
                .is_some_and(|j| selected.contains(&j) || conditioned.contains(&j))
        };
        let mut roles = Vec::new();
        let mut sensitive_hierarchies = Vec::new();
        for (&c, name) in keep.iter().zip(&header) {
            let role = match data.roles[c] {
                Role::Sensitive if released(name) => {
                    let s = data.sensitive.iter().find(|s| &s.name == name);
                    sensitive_hierarchies.push(s.and_then(|s| s.hierarchy.clone()));
                    Role::Sensitive
                }
                Role::Sensitive => Role::Insensitive,
                r => r,
            };
            roles.push(role);
        }
        let hierarchies = data
            .quasi
            .iter()
            .map(|q| {
                (
                    q.hierarchy.clone(),
                    std::path::PathBuf::from("<gatekeeper>"),
                )
            })
            .collect();
        let sub = Dataset::new(sub, roles, hierarchies, sensitive_hierarchies)?;
        let models: Vec<_> = self
            .models
            .iter()
            .filter(|m| m.attribute().is_none_or(&released))
            .cloned()
            .collect();
        if models.is_empty() {
            return Ok(None);
        }
        let problem = Problem::new(sub, &models, 0.0, &MetricSpec::default())?;
        let positions = data
            .quasi
            .iter()
            .map(|q| self.set_column(&q.name).expect("a released column"))
            .collect();
        Ok(Some((problem, positions)))
    }

    /// Tests one level-based generalization (levels of the plan's quasi-identifiers).
    /// Logical safety is tested only when the class-based models pass, unless `count`
    /// asks for the exposed persons anyway.
    fn check(&self, plan: &Plan, levels: &[u8], count: bool) -> Check {
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

    /// Tests set-based cells: every class of rows released alike holds `plan.k` rows, and
    /// no person's confidential formula becomes known.
    pub(crate) fn check_sets(&self, plan: &Plan, cells: &Cells) -> bool {
        self.small_groups(plan, cells).is_empty()
            && self.exposed(plan, cells, 0).unsafe_persons == 0
    }

    /// Positions (in `plan.rows`) of rows whose released public cells are shared by fewer
    /// than `plan.k` rows.
    pub(crate) fn small_groups(&self, plan: &Plan, cells: &Cells) -> Vec<usize> {
        let k = plan.k.unwrap_or(1) as usize;
        if k <= 1 {
            return Vec::new();
        }
        let public: Vec<usize> = (0..plan.selected.len())
            .filter(|&c| self.columns[plan.selected[c]].quasi.is_some())
            .collect();
        // each row's class: the index of its public cells among the distinct ones
        let mut index: rustc_hash::FxHashMap<Vec<u64>, u32> = Default::default();
        let mut class = Vec::with_capacity(plan.rows.len());
        let mut sizes: Vec<usize> = Vec::new();
        let mut key = Vec::new();
        for i in 0..plan.rows.len() {
            key.clear();
            for &c in &public {
                key.extend_from_slice(cells.get(c, i));
            }
            let g = match index.get(key.as_slice()) {
                Some(&g) => g,
                None => {
                    index.insert(key.clone(), sizes.len() as u32);
                    sizes.push(0);
                    sizes.len() as u32 - 1
                }
            };
            sizes[g as usize] += 1;
            class.push(g);
        }
        (0..plan.rows.len())
            .filter(|&i| sizes[class[i] as usize] < k)
            .collect()
    }

    /// The safety of the recipient's knowledge with `cells` released, listing at most
    /// `limit` exposed persons.
    pub(crate) fn exposed(
        &self,
        plan: &Plan,
        cells: &Cells,
        limit: usize,
    ) -> crate::algorithm::setbased::SetSafety {
        let mut k = plan.base.clone();
        for (c, &j) in plan.selected.iter().enumerate() {
            for (i, &r) in plan.rows.iter().enumerate() {
                self.intersect(&mut k, r as usize, j, cells.get(c, i));
            }
        }
        SetTable::with_cells(&self.problem, &Default::default(), k.cells)
            .expect("the center's table was built the same way")
            .safety(limit)
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
    fn lowest_safe_layer(&self, plan: &Plan, maxima: &[u8]) -> (Option<Vec<u8>>, usize) {
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

    /// Released cells that allow more than one value.
    pub(crate) fn generalized_cells(&self, plan: &Plan, cells: &Cells) -> usize {
        plan.selected
            .iter()
            .enumerate()
            .map(|(c, &j)| {
                cells
                    .column(c)
                    .filter(|cell| self.columns[j].size(cell) > 1)
                    .count()
            })
            .sum()
    }

    /// Mean over released cells of (size − 1) / (domain − 1).
    pub(crate) fn loss(&self, plan: &Plan, cells: &Cells) -> f64 {
        let mut total = 0.0;
        let mut count = 0usize;
        for (c, &j) in plan.selected.iter().enumerate() {
            let d = self.columns[j].values.len();
            for c in cells.column(c) {
                count += 1;
                if d > 1 {
                    total += (self.columns[j].size(c) - 1) as f64 / (d - 1) as f64;
                }
            }
        }
        if count == 0 {
            0.0
        } else {
            total / count as f64
        }
    }

    /// The released rows in a random order drawn from `seed`, and the disclosure.
    fn render(
        &self,
        plan: &Plan,
        chosen: &Candidate,
        request: &Request,
        seed: u64,
    ) -> (Vec<Vec<String>>, Disclosure) {
        let mut columns = Vec::new();
        let mut text: Vec<Vec<String>> = vec![Vec::new(); plan.rows.len()];
        for (c, &j) in plan.selected.iter().enumerate() {
            let col = &self.columns[j];
            let level = chosen.levels.as_ref().and_then(|levels| {
                plan.quasi
                    .iter()
                    .position(|&x| x == j)
                    .map(|i| levels[i] as usize)
            });
            let mut cells: Vec<Vec<String>> = Vec::new();
            let mut index: rustc_hash::FxHashMap<&[u64], u32> = Default::default();
            let mut of_row = Vec::with_capacity(plan.rows.len());
            for (i, &r) in plan.rows.iter().enumerate() {
                let cell = chosen.cells.get(c, i);
                let label = match (level, col.quasi) {
                    (Some(l), Some(q)) => {
                        let h = &self.problem.data.quasi[q].hierarchy;
                        h.label(l, h.code(l, self.original[j][r as usize]))
                            .to_string()
                    }
                    _ => col.render(cell),
                };
                let next = cells.len() as u32;
                let k = *index.entry(cell).or_insert_with(|| {
                    cells.push(
                        col.members(cell)
                            .iter()
                            .map(|&x| col.values[x as usize].clone())
                            .collect(),
                    );
                    next
                });
                of_row.push(k);
                text[i].push(label);
            }
            columns.push(DisclosedColumn {
                name: col.name.clone(),
                cells,
                of_row,
            });
        }
        text.shuffle(&mut ChaCha20Rng::seed_from_u64(seed));
        let disclosure = Disclosure {
            conditions: request.conditions.clone(),
            rows: plan.rows.clone(),
            columns,
        };
        (text, disclosure)
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
