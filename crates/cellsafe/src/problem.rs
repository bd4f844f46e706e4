//! A prepared anonymization problem: dataset, privacy models, suppression limit, metric,
//! lattice, and the snapshot every node's classes are rolled up from.

use serde::Serialize;

use crate::classes::{Classes, Snapshot};
use crate::dataset::Dataset;
use crate::error::{Error, Result};
use crate::hierarchy::Hierarchy;
use crate::lattice::{Lattice, LevelOrder};
use crate::metrics::{Metric, MetricSpec, Score};
use crate::privacy::{Model, ModelSpec};

/// The largest lattice the searches accept (they keep per-node state).
pub const MAX_LATTICE: usize = 50_000_000;

/// The outcome of checking one transformation.
#[derive(Debug, Clone, Serialize)]
pub struct Evaluation {
    pub levels: Vec<u8>,
    pub classes: usize,
    pub suppressed_classes: usize,
    pub suppressed_rows: u64,
    /// Suppressed rows within the limit (every remaining class satisfies every model).
    pub acceptable: bool,
    pub score: Score,
}

/// Everything the searches need, prepared once.
#[derive(Debug)]
pub struct Problem {
    pub data: Dataset,
    pub models: Vec<Model>,
    /// Suppression limit as a fraction of rows.
    pub suppression_limit: f64,
    /// ⌊limit · N⌋.
    pub max_suppressed: u64,
    pub metric: Metric,
    pub lattice: Lattice,
    pub snapshot: Snapshot,
}

impl Problem {
    /// Binds models and metric to `data`. Errors name the model or metric at fault;
    /// the config layer turns them into key errors.
    pub fn new(
        data: Dataset,
        models: &[ModelSpec],
        suppression_limit: f64,
        metric: &MetricSpec,
    ) -> Result<Problem> {
        if !(0.0..=1.0).contains(&suppression_limit) {
            return Err(Error::Invalid(
                "the suppression limit must lie in [0, 1]".into(),
            ));
        }
        if data.quasi.is_empty() {
            return Err(Error::Invalid(
                "at least one quasi-identifier is required".into(),
            ));
        }
        if data.rows() == 0 {
            return Err(Error::Invalid(format!(
                "{} has no data rows",
                data.table.source().display()
            )));
        }
        let size = data
            .max_levels()
            .iter()
            .try_fold(1usize, |acc, &m| acc.checked_mul(m as usize + 1));
        if size.is_none_or(|n| n > MAX_LATTICE) {
            return Err(Error::Invalid(format!(
                "the generalization lattice has more than {MAX_LATTICE} transformations; \
                 use fewer quasi-identifiers or shorter hierarchies"
            )));
        }
        let models = models
            .iter()
            .map(|m| {
                Model::bind(m, &data).map_err(|e| Error::Invalid(format!("{}: {e}", m.name())))
            })
            .collect::<Result<Vec<_>>>()?;
        let metric =
            Metric::bind(metric, &data).map_err(|e| Error::Invalid(format!("metric: {e}")))?;
        let hierarchies = data.hierarchies();
        let leaves: Vec<&[u32]> = data.quasi.iter().map(|q| q.leaves.as_slice()).collect();
        let sensitive: Vec<(&[u32], usize)> = data
            .sensitive
            .iter()
            .map(|s| (s.codes.as_slice(), s.values.len()))
            .chain(
                data.confidentiality
                    .as_ref()
                    .map(|c| (c.profiles.of_row.as_slice(), c.profiles.len())),
            )
            .collect();
        let snapshot = Snapshot::build(&hierarchies, &leaves, &sensitive, data.rows())?;
        let mut order: Vec<usize> = (0..data.quasi.len()).collect();
        order.sort_by_key(|&j| data.table.dictionary(data.quasi[j].column).len());
        let orders = hierarchies
            .iter()
            .map(|h| LevelOrder {
                refines: (0..h.levels())
                    .map(|a| (0..h.levels()).map(|b| h.refines(a, b)).collect())
                    .collect(),
                covers: (0..h.levels()).map(|a| h.successors(a).to_vec()).collect(),
            })
            .collect();
        let lattice = Lattice::new(data.max_levels())
            .with_tree_order(order)
            .with_orders(orders);
        let max_suppressed = (suppression_limit * data.rows() as f64).floor() as u64;
        Ok(Problem {
            data,
            models,
            suppression_limit,
            max_suppressed,
            metric,
            lattice,
            snapshot,
        })
    }

    pub fn hierarchies(&self) -> Vec<&Hierarchy> {
        self.data.hierarchies()
    }

    /// Checks that `levels` is a node of the lattice.
    pub fn check_levels(&self, levels: &[u8]) -> Result<()> {
        if !self.lattice.contains(levels) {
            return Err(Error::Invalid(format!(
                "levels {levels:?} are not a transformation: expected {} levels with maxima {:?}",
                self.lattice.dimensions(),
                self.lattice.max_levels()
            )));
        }
        Ok(())
    }

    /// The classes of `levels`, rolled up from the base.
    pub fn classes(&self, levels: &[u8]) -> Classes {
        self.snapshot.classes(&self.hierarchies(), levels)
    }

    /// Which classes violate some model (and are therefore suppressed).
    pub fn suppressed(&self, classes: &Classes) -> Vec<bool> {
        (0..classes.len())
            .map(|c| {
                let h = classes.histogram(c);
                !self.models.iter().all(|m| m.holds(classes.counts[c], h))
            })
            .collect()
    }

    /// Checks and scores node `levels` whose classes are `classes`.
    pub fn assess(&self, levels: &[u8], classes: &Classes) -> (Evaluation, Vec<bool>) {
        let mut suppressed_rows = 0u64;
        let mut suppressed_classes = 0usize;
        // k-anonymity is a bound on the class size; the other models read histograms
        let min_size = self.min_class_size();
        let others: Vec<&Model> = self
            .models
            .iter()
            .filter(|m| !matches!(m.spec, ModelSpec::KAnonymity { .. }))
            .collect();
        let suppressed: Vec<bool> = classes
            .counts
            .iter()
            .enumerate()
            .map(|(c, &count)| {
                let s = count < min_size
                    || (!others.is_empty()
                        && !others.iter().all(|m| m.holds(count, classes.histogram(c))));
                suppressed_rows += if s { count as u64 } else { 0 };
                suppressed_classes += s as usize;
                s
            })
            .collect();
        let score = self.metric.score(
            &self.snapshot,
            levels,
            classes,
            &suppressed,
            suppressed_rows,
            &self.hierarchies(),
        );
        let evaluation = Evaluation {
            levels: levels.to_vec(),
            classes: classes.len(),
            suppressed_classes,
            suppressed_rows,
            acceptable: suppressed_rows <= self.max_suppressed,
            score,
        };
        (evaluation, suppressed)
    }

    /// Checks and scores one transformation.
    pub fn evaluate(&self, levels: &[u8]) -> Result<Evaluation> {
        self.check_levels(levels)?;
        Ok(self.assess(levels, &self.classes(levels)).0)
    }

    /// The largest k among the k-anonymity models (1 without any).
    pub fn min_class_size(&self) -> u32 {
        self.models
            .iter()
            .filter_map(|m| match m.spec {
                ModelSpec::KAnonymity { k } => Some(k),
                _ => None,
            })
            .max()
            .unwrap_or(1)
    }

    /// Whether "not acceptable" propagates down and "acceptable" up the lattice.
    pub fn models_monotonic(&self) -> bool {
        self.models.iter().all(|m| {
            let (mut with_suppression, with_generalization) = m.spec.monotonicity();
            if matches!(m.spec, ModelSpec::LogicalSafety) {
                with_suppression = self
                    .data
                    .confidentiality
                    .as_ref()
                    .is_some_and(|c| c.con_sets.len() <= 1);
            }
            if self.max_suppressed == 0 {
                with_generalization
            } else {
                with_suppression
            }
        })
    }
}
