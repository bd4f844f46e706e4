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
    let order = lattice.by_level_sum();
    let mut status = vec![Status::Unknown; size];
    let ruled_out: Vec<AtomicBool> = (0..size).map(|_| AtomicBool::new(false)).collect();
    let mut done = vec![false; size];
    let mut cache = ClassCache::new(problem).with_every_pair_table();
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
    // the best node's classes, from the nearest node the cache kept below it
    let best_classes = best.as_ref().map(|b| cache.classes(&b.levels));
    Ok(Outcome {
        best,
        nodes_evaluated: evaluated + cache.cut_short(),
        best_classes,
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

#[cfg(test)]
mod tests {
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    use crate::algorithm::problem::Problem;
    use crate::algorithm::score_order;
    use crate::criteria::ModelSpec;
    use crate::framework::lattice::is_generalization;
    use crate::framework::test_support::dataset;
    use crate::metric::{MetricKind, MetricSpec};

    /// The class bound the search rules out by is a lower bound on the score of every
    /// acceptable generalization of the node, the node included: checked against every
    /// such pair of nodes on random tables, for DM, whose bound counts on k, and DM*.
    #[test]
    fn class_bounds_bound_every_acceptable_generalization() {
        let mut rng = ChaCha8Rng::seed_from_u64(33);
        let (mut pairs, mut tighter, mut fewer_than_k) = (0, 0, 0);
        for _ in 0..400 {
            let data = dataset(&mut rng);
            let k = rng.gen_range(1..6);
            let models = [ModelSpec::KAnonymity { k }];
            let limit = [0.0, 0.05, 0.3, 1.0][rng.gen_range(0..4)];
            let name =
                [MetricKind::Discernibility, MetricKind::DiscernibilityStar][rng.gen_range(0..2)];
            let metric = MetricSpec {
                name,
                ..MetricSpec::default()
            };
            // (fewer rows than k: every row is suppressed, at a cost of N < k each)
            let few = data.rows() < k as usize;
            let problem = Problem::new(data, &models, limit, &metric).unwrap();
            let nodes: Vec<_> = (0..problem.lattice.size())
                .map(|i| {
                    let levels = problem.lattice.levels(i);
                    let classes = problem.classes(&levels);
                    let evaluation = problem.check(&levels, &classes);
                    let bound = problem.class_bound(&classes).unwrap();
                    let squares: f64 = classes.counts.iter().map(|&c| (c as f64).powi(2)).sum();
                    tighter += usize::from(bound.value > squares);
                    (levels, evaluation, bound)
                })
                .collect();
            for (below, _, bound) in &nodes {
                for (above, evaluation, _) in &nodes {
                    if evaluation.acceptable && is_generalization(above, below) {
                        pairs += 1;
                        fewer_than_k += usize::from(few);
                        assert_ne!(
                            score_order(bound, &evaluation.score),
                            std::cmp::Ordering::Greater,
                            "{below:?} bounds {above:?} by {bound:?}, which scores {:?}",
                            evaluation.score
                        );
                    }
                }
            }
        }
        assert!(
            pairs > 5_000 && tighter > 100 && fewer_than_k > 0,
            "{pairs} pairs, {tighter} tighter, {fewer_than_k} with fewer rows than k"
        );
    }

    /// The bound asks the models as they are when it is computed: with the k-anonymity
    /// model gone after the problem was built, DM's bound is Σ|E|² again.
    #[test]
    fn dm_bound_follows_the_models_as_they_are() {
        let mut rng = ChaCha8Rng::seed_from_u64(34);
        let mut tighter = 0;
        for _ in 0..40 {
            let data = dataset(&mut rng);
            let metric = MetricSpec {
                name: MetricKind::Discernibility,
                ..MetricSpec::default()
            };
            let models = [ModelSpec::KAnonymity { k: 5 }];
            let mut problem = Problem::new(data, &models, 0.1, &metric).unwrap();
            let classes = problem.classes(&problem.lattice.bottom());
            let squares: f64 = classes.counts.iter().map(|&c| (c as f64).powi(2)).sum();
            let with_k = problem.class_bound(&classes).unwrap().value;
            tighter += usize::from(with_k > squares);
            problem.models.clear();
            assert_eq!(problem.class_bound(&classes).unwrap().value, squares);
        }
        assert!(tighter > 10, "{tighter}");
    }
}
