//! δ-disclosure privacy: in every class, each sensitive value that occurs has a frequency
//! within a factor 2^δ (strictly) of its frequency in the whole input, so that seeing the
//! class shifts no belief by that much.

use super::{Criterion, FailureTerms, Monotonicity, Span};

/// δ-disclosure privacy bound to a sensitive attribute.
#[derive(Debug, Clone)]
pub(crate) struct DeltaDisclosure {
    s: Span,
    /// The reference distribution: each value's share of the whole input.
    q: Vec<f64>,
    delta: f64,
}

impl DeltaDisclosure {
    pub(super) fn new(s: Span, q: Vec<f64>, delta: f64) -> DeltaDisclosure {
        DeltaDisclosure { s, q, delta }
    }
}

impl Criterion for DeltaDisclosure {
    #[inline]
    fn holds(&self, count: u32, hist: &[u32]) -> bool {
        max_log_ratio(self.s.of(hist), count, &self.q) < self.delta
    }
    fn monotonicity(&self) -> Monotonicity {
        Monotonicity::NEVER
    }
    /// The largest |log2 ratio| of a value's share in the class and in the input.
    fn measure(&self, count: u32, hist: &[u32]) -> f64 {
        max_log_ratio(self.s.of(hist), count, &self.q)
    }
    fn achieved_is_min(&self) -> bool {
        false
    }
    fn parameter(&self) -> Option<f64> {
        Some(self.delta)
    }
    fn failure_terms(&self) -> FailureTerms {
        FailureTerms {
            worst: Some("largest |log2 ratio|"),
            op: ">=",
            failing: "at δ or beyond",
        }
    }
}

fn max_log_ratio(h: &[u32], count: u32, q: &[f64]) -> f64 {
    let n = count as f64;
    h.iter()
        .zip(q)
        .filter(|(&c, _)| c > 0)
        .map(|(&c, &qv)| ((c as f64 / n) / qv).log2().abs())
        .fold(0.0, f64::max)
}
