//! Properties and quality indices (paper 003, sections 4.1–4.2), and the evaluation of a
//! node under a suppression budget (section 6).
//!
//! A property gives every tuple a value; a quality index turns the vector into one number:
//! its worst case (`min` for a privacy property, `max` for a loss) or its spread, the sum
//! S_P (by the paper's observation, comparing sums is comparing the binary spread index).
//! Every tuple of a class has the same property values, so indices are computed per class.

use serde::{Deserialize, Serialize};

use crate::algorithm::problem::Problem;
use crate::error::{ParetoError, Result};
use crate::framework::classes::Classes;
use crate::metric::{Metric, MetricSpec};

/// A per-tuple property (Definition 1).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "property", rename_all = "kebab-case")]
pub enum Property {
    /// P_equiv: the size of the tuple's class (privacy; worst case k, spread S_k).
    ClassSize,
    /// P_sens: rows of the tuple's class with the tuple's own value of a sensitive
    /// attribute (privacy; spread S_ℓ).
    SensitiveCount {
        /// The sensitive attribute.
        attribute: String,
    },
    /// Distinct values of a sensitive attribute in the tuple's class (privacy; worst case
    /// distinct ℓ).
    DistinctValues {
        /// The sensitive attribute.
        attribute: String,
    },
    /// Iyengar's general loss per tuple (loss): per quasi-identifier (M_g − 1)/(M − 1) for
    /// a categorical value generalized to a group of M_g of M leaves, (U_g − L_g)/(U − L)
    /// when every leaf is a number; a suppressed tuple costs 1 per attribute.
    Glm,
    /// The classification metric (loss): 1 for a suppressed tuple or one whose label is not
    /// its class's majority label.
    Classification {
        /// The class label: a sensitive (not quasi-identifying) attribute.
        label: String,
    },
}

impl Property {
    /// Whether larger values are better (privacy properties) or smaller (losses).
    pub fn maximized(&self) -> bool {
        matches!(
            self,
            Property::ClassSize | Property::SensitiveCount { .. } | Property::DistinctValues { .. }
        )
    }
}

/// How a property vector becomes one number.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Index {
    /// The smallest tuple value.
    Min,
    /// The largest tuple value.
    Max,
    /// The sum over tuples (the spread index).
    Sum,
}

/// One objective: a property with its index, or one of the utility metrics.
#[derive(Debug, Clone, PartialEq)]
pub enum Objective {
    /// A property and its quality index.
    Property {
        /// The property.
        property: Property,
        /// The index.
        index: Index,
    },
    /// A utility metric's score (minimized).
    Metric(MetricSpec),
}

impl Objective {
    /// Whether the objective is maximized.
    pub fn maximized(&self) -> bool {
        match self {
            Objective::Property { property, .. } => property.maximized(),
            Objective::Metric(_) => false,
        }
    }

    /// A short name for reports: `k`, `S_k`, `l`, `S_l`, `GLM`, `CM`, or the metric's.
    pub fn name(&self) -> String {
        match self {
            Objective::Property { property, index } => {
                let base = match property {
                    Property::ClassSize => "k".to_string(),
                    Property::SensitiveCount { attribute } => format!("count({attribute})"),
                    Property::DistinctValues { attribute } => format!("l({attribute})"),
                    Property::Glm => "GLM".to_string(),
                    Property::Classification { label } => format!("CM({label})"),
                };
                match (property, index) {
                    (Property::ClassSize, Index::Min) => "k".into(),
                    (Property::ClassSize, Index::Sum) => "S_k".into(),
                    (Property::SensitiveCount { attribute }, Index::Sum) => {
                        format!("S_l({attribute})")
                    }
                    (Property::DistinctValues { attribute }, Index::Min) => {
                        format!("l({attribute})")
                    }
                    (Property::Glm, Index::Sum) | (Property::Classification { .. }, Index::Sum) => {
                        base
                    }
                    (_, Index::Min) => format!("min {base}"),
                    (_, Index::Max) => format!("max {base}"),
                    (_, Index::Sum) => format!("sum {base}"),
                }
            }
            Objective::Metric(spec) => format!("{:?}", spec.name).to_lowercase(),
        }
    }
}

/// Hands a class's (tuple value, tuples with it) pairs to the callback.
type PerClass<'a> = dyn Fn(usize, &mut dyn FnMut(f64, f64)) + 'a;

/// What one node came to under the budget: its raw objective values (not oriented), the
/// k the budget gave it, and the rows suppressed.
#[derive(Debug, Clone, PartialEq)]
pub struct NodeValues {
    /// One value per objective, as measured (a loss is not negated here).
    pub values: Vec<f64>,
    /// The smallest released class size, j + 1.
    pub k: u64,
    /// Rows in E_1 … E_j.
    pub suppressed_rows: u64,
}

/// Objectives bound to a problem: attribute offsets resolved, loss tables built.
#[derive(Debug)]
pub struct Evaluator<'p> {
    problem: &'p Problem,
    objectives: Vec<Bound>,
    budget: u64,
    /// Per attribute `j`: `numerators[level][code]` and one denominator, whose quotient is
    /// the general loss of group `code` at `level` (see [`glm_table`]).
    glm: Vec<(Vec<Vec<f64>>, f64)>,
    /// Per attribute `j`: `code_rows[j][level][code]`, the rows whose value generalizes to
    /// group `code` at `level` (the whole table, nothing suppressed).
    code_rows: Vec<Vec<Vec<u64>>>,
}

#[derive(Debug)]
enum Bound {
    ClassSize(Index),
    SensitiveCount(Index, usize, usize),
    DistinctValues(Index, usize, usize),
    Glm(Index),
    Classification(Index, usize, usize),
    Metric(Box<Metric>),
}

impl<'p> Evaluator<'p> {
    /// Binds `objectives` to `problem` with the suppression budget η = `budget` rows.
    /// Fails when there is no objective, an attribute is not sensitive, a metric cannot
    /// bind, or the budget is not below the number of rows.
    pub fn new(problem: &'p Problem, objectives: &[Objective], budget: u64) -> Result<Self> {
        if objectives.is_empty() {
            return Err(ParetoError::NoObjectives.into());
        }
        let rows = problem.data.persons();
        if budget >= rows {
            return Err(ParetoError::Budget { budget, rows }.into());
        }
        let sensitive = |i: usize, name: &str| -> Result<(usize, usize)> {
            problem
                .data
                .sensitive
                .iter()
                .find(|s| s.name == name)
                .map(|s| (s.offset, s.values.len()))
                .ok_or_else(|| {
                    ParetoError::NotSensitive {
                        objective: i,
                        name: name.to_string(),
                    }
                    .into()
                })
        };
        let bound = objectives
            .iter()
            .enumerate()
            .map(|(i, o)| {
                Ok(match o {
                    Objective::Property { property, index } => match property {
                        Property::ClassSize => Bound::ClassSize(*index),
                        Property::SensitiveCount { attribute } => {
                            let (o, w) = sensitive(i, attribute)?;
                            Bound::SensitiveCount(*index, o, w)
                        }
                        Property::DistinctValues { attribute } => {
                            let (o, w) = sensitive(i, attribute)?;
                            Bound::DistinctValues(*index, o, w)
                        }
                        Property::Glm => Bound::Glm(*index),
                        Property::Classification { label } => {
                            let (o, w) = sensitive(i, label)?;
                            Bound::Classification(*index, o, w)
                        }
                    },
                    Objective::Metric(spec) => {
                        Bound::Metric(Box::new(Metric::bind(spec, &problem.data)?))
                    }
                })
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Evaluator {
            problem,
            objectives: bound,
            budget,
            glm: problem
                .data
                .quasi
                .iter()
                .map(|q| glm_table(&q.hierarchy))
                .collect(),
            code_rows: code_rows(problem),
        })
    }

    /// Number of objectives.
    pub fn len(&self) -> usize {
        self.objectives.len()
    }

    /// Per objective, whether it is maximized.
    pub fn maximized(&self) -> impl Iterator<Item = bool> + '_ {
        self.objectives.iter().map(|o| match o {
            Bound::ClassSize(_) | Bound::SensitiveCount(..) | Bound::DistinctValues(..) => true,
            Bound::Glm(_) | Bound::Classification(..) | Bound::Metric(_) => false,
        })
    }

    /// Whether there are none (never: [`new`](Self::new) refuses that).
    pub fn is_empty(&self) -> bool {
        self.objectives.is_empty()
    }

    /// Which classes the budget suppresses: those smaller than the returned k, the smallest
    /// class size s with more than η rows in classes of size at most s (section 6).
    pub fn suppression(&self, classes: &Classes) -> (u64, Vec<bool>, u64) {
        // rows by class size up to η + 1, and the smallest larger size: a class of more
        // than η rows exceeds the budget alone, so sizes above η + 1 need no count
        let largest = classes.counts.iter().copied().max().unwrap_or(0) as u64;
        let limit = self.budget.saturating_add(1).min(largest) as usize;
        let mut rows_of_size = vec![0u64; limit + 1];
        let mut smallest_above = u64::MAX;
        for &c in &classes.counts {
            if (c as usize) <= limit {
                rows_of_size[c as usize] += c as u64;
            } else {
                smallest_above = smallest_above.min(c as u64);
            }
        }
        let mut cumulative = 0u64;
        let mut k = smallest_above;
        for (size, &rows) in rows_of_size.iter().enumerate().skip(1) {
            cumulative += rows;
            if cumulative > self.budget {
                k = size as u64;
                break;
            }
        }
        // budget < rows, so some size exceeds it
        let suppressed: Vec<bool> = classes.counts.iter().map(|&c| (c as u64) < k).collect();
        let rows = classes
            .counts
            .iter()
            .filter(|&&c| (c as u64) < k)
            .map(|&c| c as u64)
            .sum();
        (k, suppressed, rows)
    }

    /// The objectives' values at node `levels` with classes `classes`.
    pub fn evaluate(&self, levels: &[u8], classes: &Classes) -> NodeValues {
        let (k, suppressed, suppressed_rows) = self.suppression(classes);
        let released = || {
            (0..classes.len())
                .filter(|&c| !suppressed[c])
                .map(|c| (c, classes.counts[c] as f64))
        };
        // per class, `per_class` hands each (tuple value, tuples with it) to `emit`
        let fold = |index: Index, per_class: &PerClass<'_>| -> f64 {
            let mut acc = match index {
                Index::Min => f64::INFINITY,
                Index::Max => f64::NEG_INFINITY,
                Index::Sum => 0.0,
            };
            let mut emit = |v: f64, n: f64| match index {
                Index::Min => acc = acc.min(v),
                Index::Max => acc = acc.max(v),
                Index::Sum => acc += v * n,
            };
            for (c, _) in released() {
                per_class(c, &mut emit);
            }
            acc
        };
        let values = self
            .objectives
            .iter()
            .map(|o| match o {
                Bound::ClassSize(index) => fold(*index, &|c, emit| {
                    let n = classes.counts[c] as f64;
                    emit(n, n)
                }),
                Bound::SensitiveCount(index, offset, width) => fold(*index, &|c, emit| {
                    for &h in &classes.histogram(c)[*offset..offset + width] {
                        if h > 0 {
                            emit(h as f64, h as f64);
                        }
                    }
                }),
                Bound::DistinctValues(index, offset, width) => fold(*index, &|c, emit| {
                    let d = classes.histogram(c)[*offset..offset + width]
                        .iter()
                        .filter(|&&h| h > 0)
                        .count();
                    emit(d as f64, classes.counts[c] as f64)
                }),
                Bound::Glm(Index::Sum) => {
                    self.glm_sum(levels, classes, &suppressed, suppressed_rows)
                }
                Bound::Glm(index) => {
                    let d = levels.len() as f64;
                    let released_value = fold(*index, &|c, emit| {
                        emit(self.class_glm(levels, classes, c), classes.counts[c] as f64)
                    });
                    with_suppressed(*index, released_value, d, suppressed_rows)
                }
                Bound::Classification(index, offset, width) => {
                    let released_value = fold(*index, &|c, emit| {
                        let h = &classes.histogram(c)[*offset..offset + width];
                        let majority = h.iter().copied().max().unwrap_or(0);
                        let n = classes.counts[c];
                        emit(0.0, majority as f64);
                        if n > majority {
                            emit(1.0, (n - majority) as f64);
                        }
                    });
                    with_suppressed(*index, released_value, 1.0, suppressed_rows)
                }
                Bound::Metric(metric) => {
                    metric
                        .score(
                            &self.problem.snapshot,
                            levels,
                            classes,
                            &suppressed,
                            suppressed_rows,
                            &self.problem.hierarchies(),
                        )
                        .value
                }
            })
            .collect();
        NodeValues {
            values,
            k,
            suppressed_rows,
        }
    }

    /// The summed general loss: per attribute, the released rows counted per generalized
    /// value (all rows less the suppressed classes'), their numerators added in value order
    /// and divided once. The sum depends only on those counts, so equal releases give equal
    /// sums to the bit whatever the classes, and it costs the suppressed classes and the
    /// number of values, not the number of classes. Suppressed tuples cost 1 per attribute.
    fn glm_sum(
        &self,
        levels: &[u8],
        classes: &Classes,
        suppressed: &[bool],
        suppressed_rows: u64,
    ) -> f64 {
        let suppressed: Vec<usize> = if suppressed_rows == 0 {
            Vec::new()
        } else {
            (0..classes.len()).filter(|&c| suppressed[c]).collect()
        };
        let mut total = 0.0;
        for (j, &level) in levels.iter().enumerate() {
            let (numerators, denominator) = &self.glm[j];
            if *denominator <= 0.0 {
                continue;
            }
            let h = &self.problem.data.quasi[j].hierarchy;
            let mut rows = self.code_rows[j][level as usize].clone();
            for &c in &suppressed {
                let leaf = self.problem.snapshot.leaf(j, classes.reps()[c]);
                rows[h.code(level as usize, leaf) as usize] -= classes.counts[c] as u64;
            }
            let sum: f64 = numerators[level as usize]
                .iter()
                .zip(&rows)
                .map(|(&n, &r)| n * r as f64)
                .sum();
            total += sum / denominator;
        }
        total + (levels.len() as u64 * suppressed_rows) as f64
    }

    /// The general loss of one tuple of class `c`.
    fn class_glm(&self, levels: &[u8], classes: &Classes, c: usize) -> f64 {
        let rep = classes.reps()[c];
        levels
            .iter()
            .enumerate()
            .map(|(j, &level)| {
                let leaf = self.problem.snapshot.leaf(j, rep);
                let code = self.problem.data.quasi[j]
                    .hierarchy
                    .code(level as usize, leaf);
                let (numerators, denominator) = &self.glm[j];
                if *denominator > 0.0 {
                    numerators[level as usize][code as usize] / denominator
                } else {
                    0.0
                }
            })
            .sum()
    }
}

/// Per attribute and level, the rows per generalized value, from the base classes.
fn code_rows(problem: &Problem) -> Vec<Vec<Vec<u64>>> {
    let base = problem.snapshot.base();
    problem
        .data
        .quasi
        .iter()
        .enumerate()
        .map(|(j, q)| {
            let h = &q.hierarchy;
            (0..h.levels())
                .map(|level| {
                    let mut rows = vec![0u64; h.cardinality(level)];
                    for (c, &n) in base.counts.iter().enumerate() {
                        let leaf = problem.snapshot.leaf(j, base.reps()[c]);
                        rows[h.code(level, leaf) as usize] += n as u64;
                    }
                    rows
                })
                .collect()
        })
        .collect()
}

/// A loss index with the suppressed tuples, each costing `cost`, added in.
fn with_suppressed(index: Index, released: f64, cost: f64, suppressed_rows: u64) -> f64 {
    if suppressed_rows == 0 {
        return released;
    }
    match index {
        Index::Min => released.min(cost),
        Index::Max => released.max(cost),
        Index::Sum => released + cost * suppressed_rows as f64,
    }
}

/// Iyengar's loss of a value generalized to group `code` of `level`, as
/// `numerators[level][code] / denominator`: M_g − 1 over M − 1 for categorical values,
/// U_g − L_g over U − L when every leaf is a number (a denominator of 0: no loss).
fn glm_table(h: &crate::hierarchy::Hierarchy) -> (Vec<Vec<f64>>, f64) {
    let leaves = h.leaf_count();
    let numbers: Option<Vec<f64>> = (0..leaves as u32)
        .map(|l| {
            h.label(0, l)
                .trim()
                .parse::<f64>()
                .ok()
                .filter(|x| x.is_finite())
        })
        .collect();
    match numbers {
        Some(x) => {
            let (lo, hi) = x
                .iter()
                .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &v| {
                    (a.min(v), b.max(v))
                });
            let numerators = (0..h.levels())
                .map(|level| {
                    let mut range = vec![(f64::INFINITY, f64::NEG_INFINITY); h.cardinality(level)];
                    for (leaf, &v) in x.iter().enumerate() {
                        let g = h.code(level, leaf as u32) as usize;
                        range[g] = (range[g].0.min(v), range[g].1.max(v));
                    }
                    range.iter().map(|&(l, u)| u - l).collect()
                })
                .collect();
            (numerators, hi - lo)
        }
        None => {
            let numerators = (0..h.levels())
                .map(|level| {
                    h.group_sizes(level)
                        .iter()
                        .map(|&m| m as f64 - 1.0)
                        .collect()
                })
                .collect();
            (numerators, leaves as f64 - 1.0)
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::glm_table;
    use crate::hierarchy::Hierarchy;

    fn hierarchy(rows: &[[&str; 3]]) -> Hierarchy {
        let rows: Vec<Vec<String>> = rows
            .iter()
            .map(|r| r.iter().map(|s| s.to_string()).collect())
            .collect();
        Hierarchy::from_rows(&rows, Path::new("h"), None).unwrap()
    }

    /// Hand-computed: numbers lose (U_g − L_g)/(U − L), categories (M_g − 1)/(M − 1).
    #[test]
    fn general_loss_by_hand() {
        let ages = hierarchy(&[
            ["20", "20-30", "*"],
            ["30", "20-30", "*"],
            ["40", "40-60", "*"],
            ["60", "40-60", "*"],
        ]);
        let (num, den) = glm_table(&ages);
        assert_eq!(den, 40.0);
        assert_eq!(num[0], vec![0.0; 4]);
        // 20-30 covers 10 of 40, 40-60 covers 20 of 40, * all
        assert_eq!(num[1], vec![10.0, 20.0]);
        assert_eq!(num[2], vec![40.0]);
        let colours = hierarchy(&[
            ["red", "warm", "*"],
            ["orange", "warm", "*"],
            ["yellow", "warm", "*"],
            ["blue", "cold", "*"],
        ]);
        let (num, den) = glm_table(&colours);
        assert_eq!(den, 3.0);
        // warm holds 3 leaves (loss 2/3), cold 1 (loss 0), * all 4 (loss 1)
        assert_eq!(num[1], vec![2.0, 0.0]);
        assert_eq!(num[2], vec![3.0]);
    }
}
