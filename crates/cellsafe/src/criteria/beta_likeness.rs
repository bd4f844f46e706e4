//! β-likeness, basic and enhanced: in every class, no sensitive value's share gains more
//! than β relative to its share p in the whole input (enhanced: more than min(β, −ln p)),
//! bounding what the class teaches about rare values.

use super::{Criterion, FailureTerms, Monotonicity, Span};

/// β-likeness bound to a sensitive attribute.
#[derive(Debug, Clone)]
pub(crate) struct BetaLikeness {
    s: Span,
    /// The reference distribution: each value's share of the whole input.
    q: Vec<f64>,
    beta: f64,
    enhanced: bool,
}

impl BetaLikeness {
    /// For each value present in a class of `count` rows with histogram `hist`: its
    /// relative gain over its overall share, and that share.
    #[inline]
    fn gains<'h>(&'h self, count: u32, hist: &'h [u32]) -> impl Iterator<Item = (f64, f64)> + 'h {
        let n = count as f64;
        self.s
            .of(hist)
            .iter()
            .zip(&self.q)
            .filter(|(&c, _)| c > 0)
            .map(move |(&c, &qv)| ((c as f64 / n - qv) / qv, qv))
    }

    pub(super) fn new(s: Span, q: Vec<f64>, beta: f64, enhanced: bool) -> BetaLikeness {
        BetaLikeness {
            s,
            q,
            beta,
            enhanced,
        }
    }
}

impl Criterion for BetaLikeness {
    #[inline]
    fn holds(&self, count: u32, hist: &[u32]) -> bool {
        self.gains(count, hist).all(|(gain, qv)| {
            let bound = if self.enhanced {
                self.beta.min(-qv.ln())
            } else {
                self.beta
            };
            gain <= bound + 1e-12
        })
    }
    fn monotonicity(&self) -> Monotonicity {
        Monotonicity::WITHOUT_SUPPRESSION
    }
    /// The largest relative gain (enhanced: never below 0).
    fn measure(&self, count: u32, hist: &[u32]) -> f64 {
        self.gains(count, hist)
            .map(|(gain, _)| {
                if self.enhanced {
                    // normalized so that the model holds iff the value is <= beta
                    gain.max(0.0)
                } else {
                    gain
                }
            })
            .fold(f64::NEG_INFINITY, f64::max)
    }
    fn achieved_is_min(&self) -> bool {
        false
    }
    fn parameter(&self) -> Option<f64> {
        Some(self.beta)
    }
    fn failure_terms(&self) -> FailureTerms {
        if self.enhanced {
            FailureTerms {
                worst: Some("largest relative gain"),
                op: "vs β",
                failing: "gaining more than min(β, −ln p)",
            }
        } else {
            FailureTerms {
                worst: Some("largest relative gain"),
                op: ">",
                failing: "gaining more than β",
            }
        }
    }
}
