//! Precision (Sweeney's Prec, ARX's `MetricMDPrecision`): per attribute, the level reached
//! over the hierarchy's height, weighed by the generalization factor. The monotonic variant
//! ignores suppression; the non-monotonic one charges each suppressed row the suppression
//! factor.

use super::{Basis, Measure, Node, Score};

/// Precision, monotonic.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Precision;

impl Measure for Precision {
    fn score(&self, basis: &Basis, node: &Node<'_>) -> Score {
        self.level_bound(basis, node.levels).expect("class-free")
    }
    /// Monotonic and class-free: the score itself.
    fn level_term(&self, basis: &Basis, j: usize, level: u8) -> Option<f64> {
        Some(basis.g_factor * basis.ratio(j, level))
    }
}

/// Precision, non-monotonic: a suppressed row costs the suppression factor on every
/// attribute.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PrecisionNm;

impl Measure for PrecisionNm {
    fn score(&self, basis: &Basis, node: &Node<'_>) -> Score {
        let (n, ns) = (basis.rows, node.suppressed_rows as f64);
        basis.aggregate_levels(node.levels, |j, level| {
            ((n - ns) * basis.ratio(j, level) * basis.g_factor + ns * basis.s_factor) / n
        })
    }
    /// Each row costs at least the smaller of its generalization and suppression costs.
    fn level_term(&self, basis: &Basis, j: usize, level: u8) -> Option<f64> {
        Some((basis.g_factor * basis.ratio(j, level)).min(basis.s_factor))
    }
}
