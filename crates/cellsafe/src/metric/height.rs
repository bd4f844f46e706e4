//! Height: the levels of a transformation, aggregated (summed by default). Class-free and
//! monotonic, so its bound is the score itself.

use super::{Basis, Measure, Node, Score};

/// The height metric.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Height;

impl Measure for Height {
    fn score(&self, basis: &Basis, node: &Node<'_>) -> Score {
        self.level_bound(basis, node.levels).expect("class-free")
    }
    fn level_term(&self, _basis: &Basis, _j: usize, level: u8) -> Option<f64> {
        Some(level as f64)
    }
}
