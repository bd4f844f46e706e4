//! k-anonymity: every released class has at least k rows. The only model that reads
//! class sizes alone, so the searches test it by size and its suppression reveals nothing
//! confidential.

use super::{Criterion, FailureTerms, Monotonicity};

/// k-anonymity bound to a dataset (it needs nothing of it).
#[derive(Debug, Clone)]
pub(crate) struct KAnonymity {
    k: u32,
}

impl KAnonymity {
    pub(super) fn new(k: u32) -> KAnonymity {
        KAnonymity { k }
    }
}

impl Criterion for KAnonymity {
    #[inline]
    fn holds(&self, count: u32, _hist: &[u32]) -> bool {
        count >= self.k
    }
    fn monotonicity(&self) -> Monotonicity {
        Monotonicity::ALWAYS
    }
    fn reads_confidential_values(&self) -> bool {
        false
    }
    fn min_class_size(&self) -> Option<u32> {
        Some(self.k)
    }
    /// The class size.
    fn measure(&self, count: u32, _hist: &[u32]) -> f64 {
        count as f64
    }
    fn achieved_is_min(&self) -> bool {
        true
    }
    fn parameter(&self) -> Option<f64> {
        Some(self.k as f64)
    }
    fn failure_terms(&self) -> FailureTerms {
        FailureTerms {
            worst: Some("smallest class"),
            op: "<",
            failing: "below k",
        }
    }
}
