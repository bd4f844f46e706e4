//! The optimal search for monotonic models and a metric bounded by classes only (DM, DM*,
//! AECS): bottom-up with predictive tagging, as ARX's Flash does.
//!
//! Every node ends up in one of three states: evaluated; tagged unacceptable because a
//! generalization of it was found unacceptable (sound for monotonic models); or ruled out
//! because an evaluated specialization's class bound (a lower bound on the score of all its
//! generalizations) is strictly worse than the best found. Nodes are taken in order of level
//! sum, so the minimal acceptable nodes, where the best scores lie, come first; whether a node
//! is acceptable is settled by Flash's binary phase (`algorithm::flash`), so that one
//! unacceptable node tags its whole down-set. The best is the best evaluated
//! acceptable node: ties are never ruled out, so the tie order decides exactly as in an
//! exhaustive search.

use std::sync::atomic::{AtomicBool, Ordering};

use super::cache::ClassCache;
use super::flash::Flash;
use super::optimal::tag_closure;
use super::{better, search_stage, Outcome, Status, CHECK_EVERY};
use crate::algorithm::problem::{Evaluation, Problem};
use crate::error::Result;
use crate::framework::lattice::Lattice;
use crate::metric::Score;
use crate::observer::Observer;

/// The optimal acceptable node by bottom-up tagging (see the module docs). The caller
/// ensures the models are monotonic and the lattice is a product of chains.
pub fn bottom_up(problem: &Problem, observer: &dyn Observer) -> Result<Outcome> {
    let stage = search_stage(problem, observer);
    let lattice = &problem.lattice;
    let size = lattice.size();
    let mut order: Vec<usize> = (0..size).collect();
    let sums: Vec<u32> = (0..size)
        .map(|i| lattice.levels(i).iter().map(|&l| l as u32).sum())
        .collect();
    order.sort_by_key(|&i| (sums[i], i));
    let mut status = vec![Status::Unknown; size];
    let ruled_out: Vec<AtomicBool> = (0..size).map(|_| AtomicBool::new(false)).collect();
    let mut done = vec![false; size];
    let mut cache = ClassCache::new(problem);
    let mut best: Option<Evaluation> = None;
    let mut evaluated = 0usize;
    let mut bounds: Vec<(Vec<u8>, Score)> = Vec::new();

    // Evaluates `levels`: tags by acceptability, rules out the up-set by the class bound,
    // keeps the evaluation and, if acceptable, offers it as the best.
    let mut evaluate = |levels: &[u8],
                        status: &mut [Status],
                        ruled_out: &[AtomicBool],
                        best: &mut Option<Evaluation>|
     -> Result<()> {
        stage.check()?;
        let (evaluation, bound) = match cache.check(levels) {
            Some(checked) => {
                evaluated += 1;
                checked
            }
            None => (Evaluation::rejected(levels), None),
        };
        let tag = if evaluation.acceptable {
            Status::Acceptable
        } else {
            Status::Unacceptable
        };
        stage.add(tag_closure(lattice, status, levels, tag));
        if let Some(bound) = bound {
            bounds.push((levels.to_vec(), bound));
        }
        if evaluation.acceptable && best.as_ref().is_none_or(|b| better(&evaluation, b)) {
            *best = Some(evaluation.clone());
            // a better best makes every bound seen so far stricter
            for (l, bound) in &bounds {
                rule_out_above(lattice, l, bound, &evaluation.score, ruled_out);
            }
        } else if let (Some(b), Some((l, bound))) = (best.as_ref(), bounds.last()) {
            rule_out_above(lattice, l, bound, &b.score, ruled_out);
        }
        Ok(())
    };

    let mut flash = Flash::new(order.iter().copied());
    for (n, &index) in order.iter().enumerate() {
        if n.is_multiple_of(CHECK_EVERY) {
            stage.check()?;
        }
        if ruled_out[index].load(Ordering::Relaxed) || status[index] == Status::Unacceptable {
            continue;
        }
        let levels = lattice.levels(index);
        if status[index] == Status::Unknown {
            // Flash's binary phase from here, through nodes not ruled out
            let open = |i: usize, _: usize, status: &[Status]| {
                status[i] == Status::Unknown && !ruled_out[i].load(Ordering::Relaxed)
            };
            flash.settle(lattice, index, &mut status, open, |l, status| {
                evaluate(l, status, &ruled_out, &mut best)?;
                done[lattice.index(l)] = true;
                Ok(())
            })?;
        }
        if status[index] == Status::Unacceptable || ruled_out[index].load(Ordering::Relaxed) {
            continue;
        }
        if !done[index] {
            evaluate(&levels, &mut status, &ruled_out, &mut best)?;
            done[index] = true;
        }
    }
    Ok(Outcome {
        best,
        nodes_evaluated: evaluated + cache.cut_short(),
        ..Outcome::default()
    })
}

/// Marks every node strictly above `node` when `bound`, a lower bound on their scores, is
/// strictly worse than `best`. A marked node's up-set is always marked, so the work stops
/// early when every direct successor already is. Marks are atomic so that the parallel
/// rollup walk shares them too.
pub(crate) fn rule_out_above(
    lattice: &Lattice,
    node: &[u8],
    bound: &Score,
    best: &Score,
    marks: &[AtomicBool],
) {
    if super::score_order(bound, best) != std::cmp::Ordering::Greater {
        return;
    }
    let marked = |i: usize| marks[i].load(Ordering::Relaxed);
    let max = lattice.max_levels();
    let mut successor = node.to_vec();
    let mut all_marked = true;
    for d in 0..node.len() {
        if node[d] < max[d] {
            successor[d] += 1;
            all_marked &= marked(lattice.index(&successor));
            successor[d] -= 1;
        }
    }
    if all_marked {
        return;
    }
    let own = lattice.index(node);
    for i in lattice.generalizations_of(node) {
        if i != own {
            marks[i].store(true, Ordering::Relaxed);
        }
    }
}
