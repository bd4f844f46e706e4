//! Several objectives at once (paper 003): property based generalizations, Pareto
//! dominance, the box archive, and the PBG-EA search.
//!
//! - [`objective`]: properties, quality indices, and a node's values under the suppression
//!   budget η;
//! - [`front`]: dominance, the exact non-dominated set, the box archive (Algorithm 1);
//! - [`exact_front`]: every node of the lattice evaluated, the reference the evolutionary
//!   search is measured against;
//! - [`ea`]: PBG-EA (Algorithm 2), seeded;
//! - [`measures`]: convergence error and representation ratio (section 7).

pub mod ea;
pub mod front;
pub mod measures;
pub mod objective;

use crate::algorithm::optimal::each_node;
use crate::algorithm::problem::Problem;
use crate::error::Result;
use crate::observer::{Observer, Stage, SEARCH};
use objective::{Evaluator, NodeValues};

/// A node with its objective values.
#[derive(Debug, Clone, PartialEq)]
pub struct Evaluated {
    /// The node's levels, one per quasi-identifier.
    pub levels: Vec<u8>,
    /// Its values under the budget.
    pub values: NodeValues,
}

/// `values` oriented for [`front`]: maximized objectives as they are, minimized ones
/// negated.
pub fn oriented(evaluator: &Evaluator<'_>, values: &[f64]) -> Vec<f64> {
    values
        .iter()
        .zip(evaluator.maximized())
        .map(|(&v, max)| if max { v } else { -v })
        .collect()
}

/// Every node evaluated (in lattice index order) and the indices of the non-dominated ones:
/// the set M of minimal PBGs.
#[derive(Debug, Clone)]
pub struct ExactFront {
    /// Every node, in lattice index order.
    pub nodes: Vec<Evaluated>,
    /// Indices into `nodes` of the minimal PBGs, increasing.
    pub front: Vec<usize>,
}

/// Evaluates every node of `problem`'s lattice under `evaluator` and keeps the
/// non-dominated ones. Nodes are computed along the rollup tree (each from its parent's
/// classes), in parallel where a parent has many classes.
pub fn exact_front(
    problem: &Problem,
    evaluator: &Evaluator<'_>,
    observer: &dyn Observer,
) -> Result<ExactFront> {
    let stage = Stage::start(observer, SEARCH, Some(problem.lattice.size() as u64));
    let found = std::sync::Mutex::new(Vec::with_capacity(problem.lattice.size()));
    each_node(problem, &stage, &|levels, classes| {
        let values = evaluator.evaluate(levels, classes);
        found.lock().expect("front lock").push(Evaluated {
            levels: levels.to_vec(),
            values,
        });
    })?;
    let mut nodes = found.into_inner().expect("front lock");
    nodes.sort_by_key(|n| problem.lattice.index(&n.levels));
    let points: Vec<Vec<f64>> = nodes
        .iter()
        .map(|n| oriented(evaluator, &n.values.values))
        .collect();
    let front = front::non_dominated(&points);
    Ok(ExactFront { nodes, front })
}

#[cfg(test)]
mod tests;
