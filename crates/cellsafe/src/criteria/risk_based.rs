//! ARX's risk-based privacy models (`AverageReidentificationRisk`, `SampleUniqueness`,
//! `PopulationUniqueness`): they judge the distribution of class sizes of what is
//! released, not each class. A search enforces them after the class-based models by
//! suppressing the smallest classes, as few as a binary search finds enough (see
//! `algorithm::problem`).

use super::{Criterion, FailureTerms, Monotonicity};
use crate::risk::population::{self, Model as Estimator};
use crate::risk::Histogram;

/// Which risk the model bounds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Risk {
    /// 1 / (average class size), the prosecutor's average risk.
    Average,
    /// The share of records alone in their class.
    SampleUniques,
    /// The share of the population estimated unique, by the estimator, for a population
    /// of the given size.
    PopulationUniques(Estimator, u64),
}

/// A bound on one risk of the released classes (a bound risk-based model).
#[derive(Debug, Clone)]
pub struct RiskBased {
    pub(crate) risk: Risk,
    pub(crate) threshold: f64,
}

impl RiskBased {
    /// Whether the classes of sizes `h` (the released ones) satisfy the bound, as ARX
    /// decides it.
    pub fn fulfilled(&self, h: &Histogram) -> bool {
        match self.risk {
            Risk::Average => h.records == 0 || 1.0 / h.average_class_size() <= self.threshold,
            Risk::SampleUniques => h.sample_uniqueness() <= self.threshold,
            Risk::PopulationUniques(estimator, size) => {
                if h.records == 0 {
                    return true;
                }
                // ARX's Dankar rule here has no Zayatz fallback (an unusable Pitman fit
                // leaves the estimate negative: not fulfilled)
                let u = population::share(h, size, estimator, false);
                (u > 0.0 && u <= self.threshold) || (u == 0.0 && h.sample_uniqueness() == 0.0)
            }
        }
    }
}

impl Criterion for RiskBased {
    fn holds(&self, _count: u32, _hist: &[u32]) -> bool {
        true
    }

    fn monotonicity(&self) -> Monotonicity {
        match self.risk {
            Risk::Average | Risk::SampleUniques => Monotonicity::ALWAYS,
            Risk::PopulationUniques(Estimator::Zayatz, _) => Monotonicity::WITHOUT_SUPPRESSION,
            Risk::PopulationUniques(..) => Monotonicity::NEVER,
        }
    }

    fn reads_confidential_values(&self) -> bool {
        false
    }

    fn sample_based(&self) -> Option<&RiskBased> {
        Some(self)
    }

    fn measure(&self, count: u32, _hist: &[u32]) -> f64 {
        count as f64
    }

    fn achieved_is_min(&self) -> bool {
        true
    }

    fn parameter(&self) -> Option<f64> {
        Some(self.threshold)
    }

    fn failure_terms(&self) -> FailureTerms {
        FailureTerms {
            worst: None,
            op: ">",
            failing: "suppressed to lower the risk",
        }
    }
}
