//! Discernibility: each row costs the size of its class, Σ|E|² over released classes.
//! DM charges a suppressed row the number of rows N (ARX's `MetricSDDiscernability`); DM*
//! ignores suppression (`MetricSDNMDiscernability`). Neither is known from the levels
//! alone, but merging classes only raises Σ|E|², which bounds both from the classes. DM's
//! bound is tighter where the models ask every released class for k rows: a row of an
//! acceptable generalization costs the size of its released class (at least k) or, if
//! suppressed, N; either way at least k, and at least the size of its class here.

use super::{Basis, Measure, Node, Score};
use crate::framework::classes::Classes;

/// Σ|E|² over all classes.
fn squares(classes: &Classes) -> f64 {
    classes.counts.iter().map(|&c| c as f64 * c as f64).sum()
}

/// Discernibility DM: suppressed rows cost N each.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Discernibility;

impl Measure for Discernibility {
    fn score(&self, basis: &Basis, node: &Node<'_>) -> Score {
        let n = basis.rows;
        let dm = node
            .classes
            .counts
            .iter()
            .zip(node.suppressed)
            .map(|(&c, &s)| if s { n * c as f64 } else { c as f64 * c as f64 })
            .sum();
        Score::scalar(dm)
    }
    fn level_bound(&self, _basis: &Basis, _levels: &[u8]) -> Option<Score> {
        None
    }
    fn class_bound(&self, basis: &Basis, classes: &Classes, released_min: u32) -> Option<Score> {
        // each row costs at least max(its class's size here, k), k capped by N (a
        // suppressed row costs N)
        let floor = (released_min as f64).min(basis.rows);
        let bound = classes
            .counts
            .iter()
            .map(|&c| c as f64 * (c as f64).max(floor))
            .sum();
        Some(Score::scalar(bound))
    }
}

/// DM*: Σ|E|² over all classes, suppression ignored.
#[derive(Debug, Clone, Copy)]
pub(crate) struct DiscernibilityStar;

impl Measure for DiscernibilityStar {
    fn score(&self, _basis: &Basis, node: &Node<'_>) -> Score {
        Score::scalar(squares(node.classes))
    }
    fn level_bound(&self, _basis: &Basis, _levels: &[u8]) -> Option<Score> {
        None
    }
    fn class_bound(&self, _basis: &Basis, classes: &Classes, _released_min: u32) -> Option<Score> {
        Some(Score::scalar(squares(classes)))
    }
}
