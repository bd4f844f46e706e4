//! One answer through the pipeline: filter, test, generalize, answer.
//!
//! This file holds the answer's types (the [`Verdict`] and [`Answer`] returned, and the
//! [`Plan`], [`Cells`] and [`Candidate`] the searches share) and [`Center::answer`], which
//! runs the steps and chooses among the safe candidates by their loss. The steps live in
//! files of their own, so that each can be read alone:
//!
//! - `plan.rs`: resolving a query against the center (filter, conditions, the answer's own
//!   table for the class-based models);
//! - `levels.rs`: the level-based search (testing a node, its cells, the lowest safe layer
//!   of the lattice);
//! - `safety.rs`: the set-based tests of released cells (class sizes, exposed persons);
//! - `render.rs`: the released rows and the disclosure recorded for the recipient.

mod levels;
mod plan;
mod render;
mod safety;

use std::collections::BTreeMap;

use serde::Serialize;

use super::knowledge::{Disclosure, Knowledge};
use super::request::Request;
use super::Center;
use crate::algorithm::problem::Problem;
use crate::error::Result;

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
}
