//! The level-based safety test (paper 002 figure 12, paper 000 figure 6) of one
//! transformation, naming every unsafe person and formula, and the security measure sf.
//!
//! Sorting τ(T) into classes is the core's rollup; each class's exposed formulas come from
//! its profile histogram (∧ of satisfied sets, ∩ ∪ of CON sets), so the test is linear in
//! the rows once the classes are known, whether or not everyone shares one CON set.

use serde::Serialize;
use serde_json::{Map, Value};

use crate::data::confidentiality::Confidentiality;

use crate::algorithm::problem::{levels_map, Problem};
use crate::error::{Error, ProblemError, Result};
use crate::metric::sf;

/// A person the recipient learns something confidential about.
#[derive(Debug, Clone, Serialize)]
pub struct Exposure {
    /// The key column's value (`[safety] key`), else `line N` (see
    /// `Confidentiality::person`).
    pub person: String,
    /// 1-based data row.
    pub row: usize,
    /// 1-based line of the input file where the row starts.
    line: u64,
    /// Ids of the formulas of CON(u) that hold of every record `u` cannot be told apart from.
    pub formulas: Vec<String>,
    /// Size of `u`'s equivalence class.
    class_size: u32,
}

/// The outcome of the safety test.
#[derive(Debug, Clone, Serialize)]
pub struct SafetyTest {
    /// 0-based level per quasi-identifier, in header order.
    levels: Map<String, Value>,
    /// Partition names per quasi-identifier, when some hierarchy is not a chain.
    #[serde(skip_serializing_if = "Option::is_none")]
    partitions: Option<Map<String, Value>>,
    /// Whether no person is exposed (no class is unsafe).
    pub safe: bool,
    /// Equivalence classes of the transformation.
    pub classes: usize,
    /// Classes whose records together expose some formula.
    pub unsafe_classes: usize,
    /// Persons exposed: in an unsafe class, with a formula of their own CON set exposed.
    pub unsafe_persons: usize,
    /// The first `limit` unsafe persons, in row order.
    pub exposures: Vec<Exposure>,
    /// Security measure sf (paper 000 section 4.1): 1 − mean damage-weighted gain.
    pub sf: f64,
    /// Entropy quality ql (paper 000 section 4.2).
    pub ql: f64,
    /// Warnings from reading `[safety]` (e.g. a formula naming a value no record has).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    warnings: Vec<String>,
}

fn confidentiality(problem: &Problem) -> Result<&Confidentiality> {
    problem
        .data
        .confidentiality
        .as_deref()
        .ok_or(Error::Problem(ProblemError::NeedsSafety("the safety test")))
}

/// Tests transformation `levels`, listing at most `limit` unsafe persons.
pub fn test(problem: &Problem, levels: &[u8], limit: usize) -> Result<SafetyTest> {
    test_observed(problem, levels, limit, &crate::observer::Silent)
}

/// Rows between two progress reports and cancellation checks.
const ROWS_PER_CHECK: usize = 4096;

/// [`test()`], reporting the rows checked as a [`SAFETY`](crate::observer::SAFETY) stage and
/// stopping with [`Error::Cancelled`] when `observer` says so.
pub fn test_observed(
    problem: &Problem,
    levels: &[u8],
    limit: usize,
    observer: &dyn crate::observer::Observer,
) -> Result<SafetyTest> {
    use crate::observer::{Stage, SAFETY};
    problem.check_levels(levels)?;
    let c = confidentiality(problem)?;
    let rows = problem.data.rows() as u64;
    let stage = Stage::start(observer, SAFETY, Some(rows));
    stage.check()?;
    let offset = problem.data.profile_offset();
    let width = c.profiles.len();
    let hierarchies = problem.hierarchies();
    let classes = problem.classes(levels);
    stage.check()?;
    let exposed: Vec<_> = (0..classes.len())
        .map(|k| {
            if k.is_multiple_of(ROWS_PER_CHECK) {
                stage.check()?;
            }
            Ok(c.profiles
                .exposed(&classes.histogram(k)[offset..offset + width]))
        })
        .collect::<Result<_>>()?;
    let unsafe_class: Vec<bool> = exposed.iter().map(|e| !e.is_clear()).collect();
    let unsafe_classes = unsafe_class.iter().filter(|&&u| u).count();
    let mut exposures = Vec::new();
    let mut unsafe_persons = 0;
    if unsafe_classes > 0 {
        let row_class = problem.snapshot.row_classes(&hierarchies, &classes, levels);
        for (r, &k) in row_class.iter().enumerate() {
            if r.is_multiple_of(ROWS_PER_CHECK) {
                stage.set(r as u64);
                stage.check()?;
            }
            if !unsafe_class[k as usize] {
                continue;
            }
            let formulas: Vec<String> = c.con_sets[c.con_of_row[r] as usize]
                .iter()
                .filter(|&&(f, _)| exposed[k as usize].contains(f as usize))
                .map(|&(f, _)| c.formulas[f as usize].id.clone())
                .collect();
            if formulas.is_empty() {
                continue;
            }
            unsafe_persons += 1;
            if exposures.len() < limit {
                exposures.push(Exposure {
                    person: c.person(&problem.data.table, r),
                    row: r + 1,
                    line: problem.data.table.line(r),
                    formulas,
                    class_size: classes.counts[k as usize],
                });
            }
        }
    }
    stage.check()?;
    let sf = sf(c, offset, &classes, None, problem.data.rows());
    stage.check()?;
    stage.set(rows);
    Ok(SafetyTest {
        levels: levels_map(problem, levels),
        partitions: crate::algorithm::problem::partition_names(problem, levels),
        safe: unsafe_classes == 0,
        classes: classes.len(),
        unsafe_classes,
        unsafe_persons,
        exposures,
        sf,
        ql: problem.metric.ql(levels),
        warnings: c.warnings.clone(),
    })
}
