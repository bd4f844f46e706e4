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
    /// 1 / (average class size), the prosecutor's average risk; with (s, r), also at most
    /// a share r of the records in classes smaller than s.
    Average(Option<(u64, f64)>),
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
            Risk::Average(bound) => {
                if h.records == 0 {
                    return true;
                }
                let average = 1.0 / h.average_class_size() <= self.threshold;
                match bound {
                    Some((smallest, records_at_risk)) if average => {
                        // ARX adds the shares size by size
                        let n = h.records as f64;
                        let at_risk: f64 = h
                            .sizes
                            .iter()
                            .filter(|&&(s, _)| s < smallest)
                            .map(|&(s, c)| (c * s) as f64 / n)
                            .sum();
                        at_risk <= records_at_risk
                    }
                    _ => average,
                }
            }
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
            Risk::Average(_) | Risk::SampleUniques => Monotonicity::ALWAYS,
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

#[cfg(test)]
mod tests {
    use crate::criteria::size_threshold;

    /// ARX's rounding: ⌊1/r⌋, plus one unless 1/⌊1/r⌋ is within 1 % of r.
    #[test]
    fn size_thresholds_as_arx_rounds_them() {
        assert_eq!(size_threshold(0.2), 5);
        assert_eq!(size_threshold(0.34), 3);
        assert_eq!(size_threshold(0.333), 3);
        assert_eq!(size_threshold(0.5), 2);
        assert_eq!(size_threshold(1.0), 1);
        assert_eq!(size_threshold(0.0), i32::MAX as u64);
    }
}
