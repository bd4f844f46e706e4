//! Average equivalence class size (ARX's `MetricSDAECS`): rows over released classes, the
//! suppressed rows counting as one class weighed by the generalization factor. Merging
//! classes only raises it, so the classes bound every generalization.

use super::{Basis, Measure, Node, Score};
use crate::framework::classes::Classes;

/// Average equivalence class size.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Aecs;

impl Measure for Aecs {
    fn score(&self, basis: &Basis, node: &Node<'_>) -> Score {
        let kept = node.suppressed.iter().filter(|&&s| !s).count() as f64;
        let any = if node.suppressed_rows > 0 { 1.0 } else { 0.0 };
        Score::scalar(basis.rows / (basis.s_factor * kept + any * basis.g_factor))
    }
    fn level_bound(&self, _basis: &Basis, _levels: &[u8]) -> Option<Score> {
        None
    }
    fn class_bound(&self, basis: &Basis, classes: &Classes, _released_min: u32) -> Option<Score> {
        Some(Score::scalar(basis.rows / classes.len().max(1) as f64))
    }
}
