//! Set-based generalization (paper 002 sections 3 and 4.2): any cell, public or
//! confidential, may be replaced by an allowed set of values containing it.
//!
//! A [`SetTable`] holds one value set per cell (bit sets over each column's values). Its
//! safety test builds R_τ (person u may own record i when each of u's public values lies in
//! record i's cell), keeps the links on some perfect matching ([`matching`](crate::criteria::matching)),
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

mod column;
mod safety;
mod table;

pub use column::{Family, SetColumn};
pub(crate) use safety::Persons;
pub use safety::SetSafety;
pub use table::SetTable;

use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

use crate::algorithm::problem::Problem;
use crate::data::confidentiality::has;
use crate::error::{Error, ProblemError, Result};

/// `[search.set_based]`: allowed values per column and a bound on the search.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SetBasedSpec {
    /// Z_j by column name (`subsets`, `intervals`, `levels`); see [`SetTable::new`].
    pub families: std::collections::BTreeMap<String, Family>,
    /// Most rounds of the goal-directed search (default 1000).
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
    /// What the goal-directed search did (flattened in JSON).
    #[serde(flatten)]
    pub search: GoalDirected,
    /// Cells generalized by the level-based transformation with the fewest, among the
    /// minimal safe ones (what the set-based search is compared with).
    pub level_based_cells: Option<usize>,
    /// 0-based levels of that level-based transformation.
    pub level_based_levels: Option<Vec<u8>>,
    /// The first generalized cells: (1-based row, column, released value).
    cells: Vec<(usize, String, String)>,
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
    /// Whether the final table is safe.
    pub safe: bool,
    /// Rounds run (the round in which the table was found safe, else `max_rounds`).
    pub rounds: usize,
    /// Cells generalized (holding more than one original value).
    pub generalized_cells: usize,
    /// Exposed persons fixed by joining their public cells with a neighbour's.
    pub merges: usize,
    /// Exposed persons fixed by widening their own confidential cells.
    pub widenings: usize,
}

/// A new cell value: (row, column, cell).
type Change = (usize, usize, Vec<u64>);

/// Records on each side of a person, in the order of public tuples, that the goal-directed
/// search considers as neighbours.
const NEIGHBOURHOOD: usize = 256;

/// The goal-directed search of section 4.3 (see the module docs). Neighbours are sought
/// among the `NEIGHBOURHOOD` records on either side in the order of public tuples.
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
pub(super) fn value_code(col: &SetColumn, a: &str) -> Result<u32> {
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
pub(super) fn set_based(message: String) -> Error {
    Error::Problem(ProblemError::SetBased(message))
}
