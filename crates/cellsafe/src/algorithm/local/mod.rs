//! Local recoding: every group of rows gets its own, tightest generalization instead of one
//! level per attribute for the whole table.
//!
//! [`mondrian`] partitions the rows top-down (LeFevre et al.'s Mondrian, paper 004's
//! Algorithm 3 within one QI-partition subset): a group is split at the median of the
//! attribute with the widest normalized range while both halves satisfy every privacy
//! model, so each final group holds the models on its own. [`value`] then gives each group
//! its generalized values: numeric attributes the interval `[lo,hi]` of the group's
//! values, categorical ones the lowest hierarchy level at which the group's values
//! coincide (when the hierarchy has intermediate levels) or the set `{a,b}` of the values
//! present. [`utility`] measures the result (discernibility, NCP).
//!
//! Groups are plain lists of row indices; nothing here knows the config or writes files.

pub mod mondrian;
pub mod utility;
pub mod value;

#[cfg(test)]
mod tests;

use serde::{Deserialize, Serialize};

use crate::algorithm::problem::Problem;
use crate::criteria::ModelSpec;
use crate::error::{ProblemError, Result};

pub use value::{Domain, Generalized, Kind};

/// Mondrian's two split rules (LeFevre et al.).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Mode {
    /// Rows with the median value all go left: groups' ranges never overlap.
    #[default]
    Strict,
    /// Rows with the median value are shared out so that the halves are as equal as
    /// possible: smaller groups, but two groups' ranges may overlap at the median.
    Relaxed,
}

/// How LGB generalizes within a QI-partition subset (paper 004).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Method {
    /// Multi-dimensional median partition (Mondrian; Algorithm 3, LGB_MDP).
    #[default]
    Mdp,
    /// Top-down splits minimizing NCP (Xu et al.; Algorithm 4, LGB_NCP).
    Ncp,
}

/// How to recode locally (`[search.local]`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LocalSpec {
    /// Mondrian's split rule.
    #[serde(default)]
    pub mode: Mode,
    /// LGB's generalization method (`algorithm = "lgb"` only).
    #[serde(default)]
    pub method: Method,
}

/// A partition of the rows into groups, each holding every privacy model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Partition {
    /// The rows of each group, ascending; every row is in exactly one group.
    pub groups: Vec<Vec<u32>>,
}

impl Partition {
    /// The group of each row.
    pub fn row_groups(&self, rows: usize) -> Vec<u32> {
        let mut of = vec![0u32; rows];
        for (g, members) in self.groups.iter().enumerate() {
            for &r in members {
                of[r as usize] = g as u32;
            }
        }
        of
    }
}

/// A partition with each group's generalized values: what a local release shows.
#[derive(Debug, Clone)]
pub struct Recoded {
    /// The groups.
    pub partition: Partition,
    /// Per group, per quasi-identifier, what it shows.
    pub values: Vec<Vec<Generalized>>,
    /// Per quasi-identifier, its order and generalization rule.
    pub domains: Vec<Domain>,
}

impl Recoded {
    /// Generalizes every group of `partition` on every quasi-identifier of `problem`.
    pub fn new(problem: &Problem, partition: Partition) -> Recoded {
        let quasi = &problem.data.quasi;
        let domains: Vec<Domain> = quasi.iter().map(Domain::new).collect();
        let values = partition
            .groups
            .iter()
            .map(|rows| {
                quasi
                    .iter()
                    .zip(&domains)
                    .map(|(q, d)| d.generalize(q, rows))
                    .collect()
            })
            .collect();
        Recoded {
            partition,
            values,
            domains,
        }
    }

    /// Per group, per quasi-identifier, the written label.
    pub fn labels(&self, problem: &Problem) -> Vec<Vec<String>> {
        let quasi = &problem.data.quasi;
        self.values
            .iter()
            .map(|values| {
                values
                    .iter()
                    .zip(quasi.iter().zip(&self.domains))
                    .map(|(v, (q, d))| d.label(q, v))
                    .collect()
            })
            .collect()
    }
}

/// Refuses models that a group cannot be checked against on its own rows: logical safety
/// reads the persons' formulas and the suppressed pool, which local recoding does not have;
/// the risk-based models judge the whole release's class sizes.
pub(crate) fn check_models(problem: &Problem) -> Result<()> {
    for model in &problem.models {
        if model.presence().is_some() {
            return Err(ProblemError::Local(format!(
                "{} compares each generalized class with the population, which local \
                 recoding does not (use a level-based search)",
                model.spec.name()
            ))
            .into());
        }
        if model.sample_based().is_some() {
            return Err(ProblemError::Local(format!(
                "{} judges the sizes of all released classes together, which local recoding \
                 does not enforce (use a level-based search)",
                model.spec.name()
            ))
            .into());
        }
        if matches!(
            model.spec,
            ModelSpec::LogicalSafety | ModelSpec::Confidential { .. }
        ) {
            return Err(ProblemError::Local(format!(
                "{} is not available with local recoding (use a level-based search)",
                model.spec.name()
            ))
            .into());
        }
    }
    Ok(())
}

/// Whether the rows `rows` satisfy every model of `problem` as one group; `hist` is a
/// scratch histogram row (resized here).
pub(crate) fn holds(problem: &Problem, rows: &[u32], hist: &mut Vec<u32>) -> bool {
    if rows.is_empty() {
        return false;
    }
    let count = rows.len() as u32;
    if problem
        .models
        .iter()
        .all(|m| m.min_class_size().is_some_and(|k| count >= k))
    {
        return true;
    }
    let data = &problem.data;
    let width = data
        .sensitive
        .iter()
        .map(|s| s.offset + s.values.len())
        .max()
        .unwrap_or(0);
    hist.clear();
    hist.resize(width, 0);
    for s in &data.sensitive {
        for &r in rows {
            hist[s.offset + s.codes[r as usize] as usize] += 1;
        }
    }
    problem.models.iter().all(|m| m.holds(count, hist))
}
