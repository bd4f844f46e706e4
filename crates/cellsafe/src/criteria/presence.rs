//! δ-presence (Nergiz, Atzori and Clifton; ARX's `DPresence`): the released table is a
//! research subset of a public population table (a register, a census), and the recipient,
//! who holds the population, must not learn too surely whether a person is in the subset.
//!
//! The recipient generalizes the population as the release is and compares, class by
//! class, the released rows (count) with the population rows (pcount): δ = count / pcount
//! is the share of the class's persons who are in the subset, and it must lie in
//! [δmin, δmax]. A class with no subset rows has δ = 0; as in ARX it cannot be suppressed
//! (there is nothing to suppress), so when δmin > 0 it makes the transformation fail.
//!
//! A class's count is its number of subset rows, which is what every other model and metric
//! of the problem sees (the problem's dataset is the subset); the pcounts come from the
//! population's own snapshot, rolled up to the same node. Both snapshots pack a class's
//! generalized tuple into the same key, so classes are matched by key.

use std::sync::Arc;

use rustc_hash::FxHashMap;

use super::{Criterion, FailureTerms, Monotonicity};
use crate::error::Result;
use crate::framework::classes::{Classes, Snapshot};
use crate::framework::dataset::{Dataset, Population};
use crate::hierarchy::Hierarchy;

/// A bound δ-presence model: the bounds and the population's classes.
#[derive(Debug, Clone)]
pub struct DeltaPresence {
    /// The smallest share of a class's population allowed in the subset.
    pub delta_min: f64,
    /// The largest share.
    pub delta_max: f64,
    population: Arc<Population>,
    snapshot: Snapshot,
}

/// The population's side of one node's classes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PresenceCounts {
    /// Per class of the subset, the population rows it generalizes (its pcount).
    pub pcounts: Vec<u32>,
    /// Population classes with no subset row (δ = 0).
    pub empty_classes: usize,
    /// Population rows in those classes.
    pub empty_rows: u64,
}

impl DeltaPresence {
    /// Binds the bounds to `data`'s population (None when `data` is no research subset).
    pub(crate) fn new(delta_min: f64, delta_max: f64, data: &Dataset) -> Result<Option<Self>> {
        let Some(population) = data.population.clone() else {
            return Ok(None);
        };
        let hierarchies = data.hierarchies();
        let leaves: Vec<&[u32]> = population.leaves.iter().map(Vec::as_slice).collect();
        let snapshot = Snapshot::build(&hierarchies, &leaves, &[], population.rows())?;
        Ok(Some(DeltaPresence {
            delta_min,
            delta_max,
            population,
            snapshot,
        }))
    }

    /// The population this model compares with.
    pub fn population(&self) -> &Population {
        &self.population
    }

    /// δ of a class of `count` subset rows among `pcount` population rows.
    pub fn share(count: u32, pcount: u32) -> f64 {
        if count == 0 {
            0.0
        } else {
            count as f64 / pcount as f64
        }
    }

    /// Whether a class of `count` subset rows among `pcount` population rows satisfies
    /// the bounds.
    pub fn holds_counts(&self, count: u32, pcount: u32) -> bool {
        let d = Self::share(count, pcount);
        d >= self.delta_min && d <= self.delta_max
    }

    /// Whether the population classes without subset rows are allowed (δ = 0 ≥ δmin).
    pub fn allows_empty(&self) -> bool {
        self.delta_min <= 0.0
    }

    /// The pcount of each of `classes` (the subset's classes at `levels`) and the
    /// population classes left without subset rows.
    pub fn counts(
        &self,
        hierarchies: &[&Hierarchy],
        levels: &[u8],
        classes: &Classes,
    ) -> PresenceCounts {
        let population = self.snapshot.classes(hierarchies, levels);
        let index: FxHashMap<u128, u32> = (0..population.len())
            .map(|p| (population.key(p), population.counts[p]))
            .collect();
        let pcounts: Vec<u32> = (0..classes.len())
            .map(|c| {
                // every subset row is a population row, so its class is there
                index
                    .get(&classes.key(c))
                    .copied()
                    .unwrap_or(classes.counts[c])
            })
            .collect();
        let matched: u64 = pcounts.iter().map(|&p| p as u64).sum();
        PresenceCounts {
            empty_classes: population.len().saturating_sub(classes.len()),
            empty_rows: self.population.rows() as u64 - matched.min(self.population.rows() as u64),
            pcounts,
        }
    }
}

impl Criterion for DeltaPresence {
    /// Decided with the population's counts by the problem (see [`DeltaPresence::counts`]).
    fn holds(&self, _count: u32, _hist: &[u32]) -> bool {
        true
    }

    /// Merging two classes gives a share between theirs (ARX's flags).
    fn monotonicity(&self) -> Monotonicity {
        Monotonicity::WITHOUT_SUPPRESSION
    }

    /// It reads class sizes: the subset's and the population's.
    fn reads_confidential_values(&self) -> bool {
        false
    }

    /// δ cannot be computed from the subset's class alone: reports ask the problem.
    fn measure(&self, _count: u32, _hist: &[u32]) -> f64 {
        f64::NAN
    }

    fn achieved_is_min(&self) -> bool {
        false
    }

    fn parameter(&self) -> Option<f64> {
        Some(self.delta_max)
    }

    fn failure_terms(&self) -> FailureTerms {
        FailureTerms {
            worst: Some("largest share in the subset"),
            op: "vs δmax",
            failing: "with a share of their population outside [δmin, δmax]",
        }
    }

    fn presence(&self) -> Option<&DeltaPresence> {
        Some(self)
    }
}
