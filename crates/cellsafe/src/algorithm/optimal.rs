//! The optimal searches: every node ([`exhaustive`]), and the best acceptable node with
//! exact pruning ([`optimal`], which picks [`best_first`], the bottom-up tagging of
//! [`super::tagging`], or the rollup walk, [`optimal_walk`]).

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering as AtomicOrdering};
use std::sync::Mutex;

use rayon::prelude::*;
use rustc_hash::FxHashMap;

use super::cache::ClassCache;
use super::flash::Flash;
use super::{better, pick_best, score_order, search_stage, tagging, Outcome, CHECK_EVERY};
use crate::algorithm::problem::{Evaluation, Problem};
use crate::error::Result;
use crate::framework::classes::{release_pool, Classes};
use crate::framework::lattice::{tie_order, Lattice};
use crate::hierarchy::Hierarchy;
use crate::metric::Score;
use crate::observer::{Observer, Stage};

/// Classes above this size are worth splitting their children across threads.
const PARALLEL_CLASSES: usize = 512;

struct Walk<'a> {
    problem: &'a Problem,
    hierarchies: Vec<&'a Hierarchy>,
    best: Mutex<Option<Evaluation>>,
    evaluated: AtomicUsize,
    stage: Stage<'a>,
    /// Nodes whose whole up-set a bound has ruled out, by lattice index (ARX's Flash tags
    /// them the same way): the walk reaches a node through one parent only, so a bound
    /// from another parent must be recorded to take effect.
    ruled_out: Vec<AtomicBool>,
}

impl Walk<'_> {
    /// Evaluates `levels` and walks its subtree; returns at once when cancelled (the
    /// caller then asks [`Stage::check_stopped`]).
    fn visit(&self, levels: &[u8], classes: &Classes) {
        if self.stage.cancelled() {
            return;
        }
        // the walk keeps acceptable nodes only, so the others go unscored
        let evaluation = self.problem.check(levels, classes);
        self.evaluated.fetch_add(1, AtomicOrdering::Relaxed);
        self.stage.add(1);
        if evaluation.acceptable {
            let mut best = self.best.lock().expect("search lock");
            if best.as_ref().is_none_or(|b| better(&evaluation, b)) {
                *best = Some(evaluation.clone());
            }
        }
        let metric = &self.problem.metric;
        let class_bound = self.problem.class_bound(classes);
        let mut children: Vec<(Vec<u8>, Option<Score>)> = self
            .problem
            .lattice
            .tree_children(levels)
            .into_iter()
            .map(|(_, child)| {
                let bound = metric.level_bound(&child);
                (child, bound)
            })
            .collect();
        if let Some(bound) = &class_bound {
            self.rule_out_above(levels, bound);
        }
        children.retain(|(child, bound)| {
            !self.ruled_out(child) && !self.prunable(child, bound.as_ref().or(class_bound.as_ref()))
        });
        // most promising first, so that good bests are found early
        children.sort_by(|a, b| match (&a.1, &b.1) {
            (Some(x), Some(y)) => x.compare(y),
            _ => std::cmp::Ordering::Equal,
        });
        let run = |(child, _): &(Vec<u8>, Option<Score>)| {
            if self.stage.was_cancelled()
                || self.ruled_out(child)
                || self.prunable(child, class_bound.as_ref())
            {
                return;
            }
            let child_classes =
                self.problem
                    .snapshot
                    .rollup_pooled(&self.hierarchies, classes, levels, child);
            self.visit(child, &child_classes);
        };
        if classes.len() >= PARALLEL_CLASSES && children.len() > 1 {
            children.par_iter().for_each(run);
        } else {
            children.iter().for_each(run);
        }
    }

    /// Whether a bound recorded earlier rules out `node`.
    fn ruled_out(&self, node: &[u8]) -> bool {
        self.ruled_out[self.problem.lattice.index(node)].load(AtomicOrdering::Relaxed)
    }

    /// Records that nothing strictly above `node` can beat the best found when `bound`
    /// (a lower bound on their scores) is worse than the best's score.
    fn rule_out_above(&self, node: &[u8], bound: &Score) {
        // the best's score is copied only when the bound is worse (marking takes no lock)
        let best = self.best.lock().expect("search lock");
        let worse = best
            .as_ref()
            .filter(|b| score_order(bound, &b.score) == std::cmp::Ordering::Greater)
            .map(|b| b.score.clone());
        drop(best);
        if let Some(best) = worse {
            tagging::rule_out_above(&self.problem.lattice, node, bound, &best, &self.ruled_out);
        }
    }

    /// Nothing at or above `node` can beat the best found, given a lower bound for them all.
    fn prunable(&self, node: &[u8], bound: Option<&Score>) -> bool {
        let Some(bound) = bound else { return false };
        let best = self.best.lock().expect("search lock");
        let Some(best) = best.as_ref() else {
            return false;
        };
        match score_order(bound, &best.score) {
            std::cmp::Ordering::Greater => true,
            std::cmp::Ordering::Equal => tie_order(&best.levels, node) == std::cmp::Ordering::Less,
            std::cmp::Ordering::Less => false,
        }
    }
}

/// The rollup walk with bound pruning (see [`optimal_walk`]).
fn walk<'a>(problem: &'a Problem, observer: &'a dyn Observer) -> Result<Walk<'a>> {
    let w = Walk {
        problem,
        hierarchies: problem.hierarchies(),
        best: Mutex::new(None),
        evaluated: AtomicUsize::new(0),
        stage: search_stage(problem, observer),
        ruled_out: (0..problem.lattice.size())
            .map(|_| AtomicBool::new(false))
            .collect(),
    };
    let bottom = problem.lattice.bottom();
    w.visit(&bottom, problem.snapshot.base());
    release_pool();
    w.stage.check_stopped()?;
    Ok(w)
}

/// Evaluates every node. Returns the outcome and all evaluations in lattice index order.
pub fn exhaustive(
    problem: &Problem,
    observer: &dyn Observer,
) -> Result<(Outcome, Vec<Evaluation>)> {
    let stage = search_stage(problem, observer);
    let found = Mutex::new(Vec::with_capacity(problem.lattice.size()));
    each_node(problem, &stage, &|levels, classes| {
        let evaluation = problem.assess(levels, classes).0;
        found.lock().expect("search lock").push(evaluation);
    })?;
    let mut all = found.into_inner().expect("search lock");
    all.sort_by_key(|e| problem.lattice.index(&e.levels));
    let best = pick_best(&all);
    let nodes_evaluated = all.len();
    Ok((
        Outcome {
            best,
            nodes_evaluated,
            ..Outcome::default()
        },
        all,
    ))
}

/// The optimal acceptable node, with exact pruning.
///
/// With monotonic models and a metric whose lower bound needs no classes, nodes are taken
/// best-first in order of (bound, tie order) and the search stops once the bound passes the
/// best score; whether a candidate is acceptable is settled by Flash's binary phase
/// (`algorithm::flash`: binary search on Flash's path of open nodes above it, and on from the
/// successors of the unacceptable nodes found), so that one unacceptable node rules out its
/// whole down-set and one acceptable node vouches for its up-set.
/// Otherwise the rollup tree is walked depth-first, pruning subtrees by their bounds.
///
/// Partial orders of partitions have neither the spanning tree nor monotone bounds that
/// this relies on, so there every node is evaluated ([`exhaustive`]).
pub fn optimal(problem: &Problem, observer: &dyn Observer) -> Result<Outcome> {
    if !problem.lattice.is_chain() {
        return Ok(exhaustive(problem, observer)?.0);
    }
    if problem.models_monotonic()
        && problem
            .metric
            .level_bound(&problem.lattice.bottom())
            .is_some()
    {
        return best_first(problem, observer);
    }
    if problem.models_monotonic() && problem.class_bound(problem.snapshot.base()).is_some() {
        return tagging::bottom_up(problem, observer);
    }
    optimal_walk(problem, observer)
}

/// Depth-first walk of the rollup tree with bound pruning (see [`optimal`]).
pub fn optimal_walk(problem: &Problem, observer: &dyn Observer) -> Result<Outcome> {
    if !problem.lattice.is_chain() {
        return Ok(exhaustive(problem, observer)?.0);
    }
    let w = walk(problem, observer)?;
    Ok(Outcome {
        best: w.best.into_inner().expect("search lock"),
        nodes_evaluated: w.evaluated.into_inner(),
        ..Outcome::default()
    })
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Status {
    Unknown,
    Acceptable,
    Unacceptable,
    /// Outside the part of the lattice searched: never evaluated, tagged or walked.
    Outside,
}

/// Gives `nodes` status `tag`; returns how many were unknown (for progress).
pub(crate) fn settle(
    status: &mut [Status],
    nodes: impl IntoIterator<Item = usize>,
    tag: Status,
) -> u64 {
    let mut settled = 0;
    for i in nodes {
        settled += (status[i] == Status::Unknown) as u64;
        status[i] = tag;
    }
    settled
}

/// Tags node `levels` and its up-set (`Acceptable`) or down-set (`Unacceptable`) in a
/// lattice of chains; returns how many were unknown (for progress). The walk stops at
/// nodes already so tagged: every tag is given with its whole up- or down-set, so theirs
/// are tagged already, and the work is proportional to the nodes newly tagged.
pub(crate) fn tag_closure(
    lattice: &Lattice,
    status: &mut [Status],
    levels: &[u8],
    tag: Status,
) -> u64 {
    let up = tag == Status::Acceptable;
    let mut settled = 0;
    let max = lattice.max_levels();
    if levels.len() <= 16 {
        // each node's levels carried beside its index, a byte each: no division to find
        // its neighbours
        let radix = lattice.radix();
        let packed = levels
            .iter()
            .enumerate()
            .fold(0u128, |p, (j, &l)| p | (u128::from(l) << (8 * j)));
        let mut stack = vec![(lattice.index(levels), packed)];
        while let Some((i, packed)) = stack.pop() {
            if status[i] == tag || status[i] == Status::Outside {
                continue;
            }
            settled += (status[i] == Status::Unknown) as u64;
            status[i] = tag;
            for (j, (&r, &m)) in radix.iter().zip(max).enumerate() {
                let level = (packed >> (8 * j)) as u8;
                let next = if up && level < m {
                    (i + r, packed + (1u128 << (8 * j)))
                } else if !up && level > 0 {
                    (i - r, packed - (1u128 << (8 * j)))
                } else {
                    continue;
                };
                if status[next.0] != tag {
                    stack.push(next);
                }
            }
        }
        return settled;
    }
    let mut stack = vec![lattice.index(levels)];
    let mut next = Vec::new();
    while let Some(i) = stack.pop() {
        if status[i] == tag || status[i] == Status::Outside {
            continue;
        }
        settled += (status[i] == Status::Unknown) as u64;
        status[i] = tag;
        next.clear();
        lattice.neighbors(i, up, &mut next);
        stack.extend(next.iter().copied().filter(|&n| status[n] != tag));
    }
    settled
}

/// Best-first search by class-free lower bound (see [`optimal`]). Its tagging is sound only
/// for monotonic models, and it needs a class-free bound: otherwise it runs
/// [`optimal_walk`].
pub fn best_first(problem: &Problem, observer: &dyn Observer) -> Result<Outcome> {
    if !problem.lattice.is_chain() {
        return Ok(exhaustive(problem, observer)?.0);
    }
    if !problem.models_monotonic()
        || problem
            .metric
            .level_bound(&problem.lattice.bottom())
            .is_none()
    {
        return optimal_walk(problem, observer);
    }
    let stage = search_stage(problem, observer);
    let lattice = &problem.lattice;
    let order = by_bound(problem, &stage)?;
    let mut status = vec![Status::Unknown; lattice.size()];
    let mut scored: FxHashMap<usize, Evaluation> = FxHashMap::default();
    let mut evaluated = 0usize;
    let mut cache = ClassCache::new(problem).without_pair_tables();
    let mut evaluate = |levels: &[u8], status: &mut [Status]| -> Result<Evaluation> {
        stage.check()?;
        let evaluation = match cache.check(levels) {
            Some((evaluation, _)) => {
                evaluated += 1;
                evaluation
            }
            None => Evaluation::rejected(levels),
        };
        let tag = if evaluation.acceptable {
            Status::Acceptable
        } else {
            Status::Unacceptable
        };
        stage.add(tag_closure(lattice, status, levels, tag));
        Ok(evaluation)
    };
    let top = lattice.top();
    let top_eval = evaluate(&top, &mut status)?;
    scored.insert(lattice.index(&top), top_eval);
    let mut best: Option<Evaluation> = None;
    let mut flash = Flash::new((0..order.len()).map(|place| order.node(place)));
    for n in 0..order.len() {
        if n.is_multiple_of(CHECK_EVERY) {
            stage.check()?;
        }
        let (bound, index) = (order.bound(n), order.node(n));
        if let Some(b) = &best {
            match score_order(&bound, &b.score) {
                std::cmp::Ordering::Greater => break,
                std::cmp::Ordering::Equal
                    if tie_order(&b.levels, &lattice.levels(index)) == std::cmp::Ordering::Less =>
                {
                    continue
                }
                _ => {}
            }
        }
        // most nodes are tagged already: their levels are not needed
        if status[index] == Status::Unacceptable {
            continue;
        }
        let levels = &lattice.levels(index);
        if status[index] == Status::Unknown {
            // Flash's binary phase from here; a node whose bound is past the best is not
            // worth settling
            let open = |i: usize, place: usize, status: &[Status]| {
                status[i] == Status::Unknown
                    && best.as_ref().is_none_or(|b| {
                        score_order(&order.bound(place), &b.score) != std::cmp::Ordering::Greater
                    })
            };
            flash.settle(lattice, index, &mut status, open, |l, status| {
                let e = evaluate(l, status)?;
                scored.insert(lattice.index(l), e);
                Ok(())
            })?;
            if status[index] == Status::Unknown {
                let e = evaluate(levels, &mut status)?;
                scored.insert(index, e);
            }
        }
        if status[index] != Status::Acceptable {
            continue;
        }
        let evaluation = match scored.get(&index) {
            Some(e) => e.clone(),
            None => {
                let e = evaluate(levels, &mut status)?;
                scored.insert(index, e.clone());
                e
            }
        };
        if best.as_ref().is_none_or(|b| better(&evaluation, b)) {
            best = Some(evaluation);
        }
    }
    // the best node's classes, rolled up from the nearest node the cache kept below it
    // (the release needs them, and the base is the farthest source)
    let best_classes = best.as_ref().map(|b| cache.classes(&b.levels));
    Ok(Outcome {
        best,
        nodes_evaluated: evaluated + cache.cut_short(),
        best_classes,
        ..Outcome::default()
    })
}

/// Where [`Order::Keys`] finds the node of a key.
enum NodeOf {
    /// In the key's low `bits` bits, below the tie key packed in the next bits (the level
    /// sum above the reading): no read of another table per place, which the search makes
    /// for most of a large lattice's nodes.
    Packed { bits: u32 },
    /// The node of each tie key (the key's low 32 bits), should the packed form not fit.
    /// Every problem's does: below `MAX_LATTICE` nodes, index and reading take at most 26
    /// bits each and the level sum at most 10 (766 at most); the tests read both.
    Table(Vec<u32>),
}

/// Every node of a lattice of chains by increasing class-free bound, ties in
/// [`tie_order`] (see [`by_bound`]).
enum Order {
    /// From a table of level terms: at each place, the bound's bits in total order above
    /// the node's tie key, as one sorted key; and where to find the node of each key.
    /// Nothing else per node: with a score and node kept for each place as well (40 bytes
    /// a node), the Loss search of UCI Adult with 13 quasi-identifiers (1,399,680 nodes)
    /// took 169 MB at its peak, against 141 MB without, and 136 MB with the nodes packed
    /// in the keys (docs/performance.md).
    Keys { keys: Vec<u128>, nodes: NodeOf },
    /// Bound by bound, with each node (a bound that is not one number: the rank aggregate).
    Scores(Vec<(Score, u32)>),
}

impl Order {
    fn len(&self) -> usize {
        match self {
            Order::Keys { keys, .. } => keys.len(),
            Order::Scores(order) => order.len(),
        }
    }

    /// The node at `place` in the order, by lattice index.
    fn node(&self, place: usize) -> usize {
        match self {
            Order::Keys {
                keys,
                nodes: NodeOf::Packed { bits },
            } => (keys[place] as u64 & ((1u64 << bits) - 1)) as usize,
            Order::Keys {
                keys,
                nodes: NodeOf::Table(index_of),
            } => index_of[keys[place] as u32 as usize] as usize,
            Order::Scores(order) => order[place].1 as usize,
        }
    }

    /// The bound of the node at `place`.
    fn bound(&self, place: usize) -> std::borrow::Cow<'_, Score> {
        match self {
            Order::Keys { keys, .. } => {
                std::borrow::Cow::Owned(Score::scalar(from_total_order((keys[place] >> 64) as u64)))
            }
            Order::Scores(order) => std::borrow::Cow::Borrowed(&order[place].0),
        }
    }
}

/// `v`'s bits as an unsigned number in `f64::total_cmp`'s order.
fn total_order(v: f64) -> u64 {
    let bits = v.to_bits();
    if bits >> 63 == 1 {
        !bits
    } else {
        bits | 1 << 63
    }
}

/// The inverse of [`total_order`].
fn from_total_order(ordered: u64) -> f64 {
    f64::from_bits(if ordered >> 63 == 1 {
        ordered & !(1 << 63)
    } else {
        !ordered
    })
}

/// Every node of `problem`'s lattice of chains with its class-free bound, by increasing
/// bound, ties in [`tie_order`]. From the metric's table of level terms when it has one
/// (a few multiplications per node); else bound by bound.
fn by_bound(problem: &Problem, stage: &Stage<'_>) -> Result<Order> {
    by_bound_packing(problem, stage, true)
}

/// [`by_bound`], with the nodes packed in the keys only when `may_pack` and they fit (so
/// that tests reach the table as well).
fn by_bound_packing(problem: &Problem, stage: &Stage<'_>, may_pack: bool) -> Result<Order> {
    let lattice = &problem.lattice;
    let max = lattice.max_levels();
    // tie_order as one number per node (see `Lattice::tie_keys`), and the table of
    // bounds, side by side with more than one thread in the pool
    let (ties, values) = rayon::join(|| lattice.tie_keys(), || problem.metric.level_bounds(max));
    if let Some(values) = values {
        stage.check()?;
        // one 128-bit key per node: the bound's bits in total order, then the tie; and
        // either the node's index in the key's low bits (when the level sum, the reading
        // and the index fit in 64 bits) or a table from each tie's reading to the node
        let bits = usize::BITS - lattice.size().saturating_sub(1).leading_zeros();
        let top: u64 = max.iter().map(|&m| u64::from(m)).sum();
        let sum_bits = u64::BITS - top.leading_zeros();
        let packed = may_pack && sum_bits + 2 * bits <= 64;
        let total = |v: f64, low: u64| (total_order(v) as u128) << 64 | low as u128;
        let (mut keys, nodes): (Vec<u128>, NodeOf) = if packed {
            let keys = values
                .par_iter()
                .zip(ties.par_iter())
                .enumerate()
                .map(|(i, (&v, &tie))| {
                    total(
                        v,
                        (tie >> 32) << (2 * bits) | (tie & 0xffff_ffff) << bits | i as u64,
                    )
                })
                .collect();
            (keys, NodeOf::Packed { bits })
        } else {
            let mut index_of = vec![0u32; values.len()];
            let mut keys = Vec::with_capacity(values.len());
            for (i, (&v, &tie)) in values.iter().zip(&ties).enumerate() {
                index_of[tie as u32 as usize] = i as u32;
                keys.push(total(v, tie));
            }
            (keys, NodeOf::Table(index_of))
        };
        drop((values, ties));
        stage.check()?;
        // in parallel with more than one thread in the pool; else the standard library's
        // sort, which took 0.78-1.0 of rayon's time on one thread (1.4 M keys)
        if rayon::current_num_threads() > 1 {
            keys.par_sort_unstable();
        } else {
            keys.sort_unstable();
        }
        return Ok(Order::Keys { keys, nodes });
    }
    let mut order: Vec<(Score, u64, u32)> = (0..lattice.size())
        .into_par_iter()
        .map(|i| {
            if i.is_multiple_of(CHECK_EVERY) {
                stage.check()?;
            }
            let bound = problem
                .metric
                .level_bound(&lattice.levels(i))
                .expect("class-free bound");
            Ok((bound, ties[i], i as u32))
        })
        .collect::<Result<_>>()?;
    stage.check()?;
    order.par_sort_by(|a, b| score_order(&a.0, &b.0).then(a.1.cmp(&b.1)));
    Ok(Order::Scores(
        order.into_iter().map(|(s, _, i)| (s, i)).collect(),
    ))
}

/// Calls `visit` once for every node with its classes: down the rollup tree (each node
/// from its parent's classes, children in parallel under a parent with many classes) on a
/// lattice of chains, from the base otherwise. Stops with `Cancelled` when the observer
/// says so; `stage` counts the nodes.
pub(crate) fn each_node(
    problem: &Problem,
    stage: &Stage<'_>,
    visit: &(dyn Fn(&[u8], &Classes) + Sync),
) -> Result<()> {
    if !problem.lattice.is_chain() {
        // partitions that do not nest: every node's classes come from the base
        return (0..problem.lattice.size())
            .into_par_iter()
            .try_for_each(|i| {
                stage.check()?;
                let levels = problem.lattice.levels(i);
                visit(&levels, &problem.classes(&levels));
                stage.add(1);
                Ok(())
            });
    }
    fn down(
        problem: &Problem,
        hierarchies: &[&Hierarchy],
        stage: &Stage<'_>,
        visit: &(dyn Fn(&[u8], &Classes) + Sync),
        levels: &[u8],
        classes: &Classes,
    ) -> Result<()> {
        stage.check()?;
        visit(levels, classes);
        stage.add(1);
        let children = problem.lattice.tree_children(levels);
        let run = |(_, child): &(usize, Vec<u8>)| {
            let next = problem
                .snapshot
                .rollup_pooled(hierarchies, classes, levels, child);
            down(problem, hierarchies, stage, visit, child, &next)
        };
        if classes.len() >= PARALLEL_CLASSES && children.len() > 1 {
            children.par_iter().try_for_each(run)
        } else {
            children.iter().try_for_each(run)
        }
    }
    let hierarchies = problem.hierarchies();
    let bottom = problem.lattice.bottom();
    let done = down(
        problem,
        &hierarchies,
        stage,
        visit,
        &bottom,
        problem.snapshot.base(),
    );
    release_pool();
    done
}

#[cfg(test)]
mod tests {
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    use super::{tag_closure, Status};
    use crate::framework::lattice::Lattice;

    /// Tagging a node acceptable tags exactly its up-set, unacceptable exactly its down-set,
    /// and counts the nodes it found unknown: against a brute force over every node, on
    /// random lattices of up to 6 attributes and on one of 17 (past the 16 whose levels
    /// the walk packs into one word).
    #[test]
    fn tags_exactly_the_up_or_down_set_and_counts_the_unknown() {
        let mut rng = ChaCha8Rng::seed_from_u64(2411);
        let mut lattices: Vec<Vec<u8>> = (0..200)
            .map(|_| {
                let dims = rng.gen_range(1..7);
                (0..dims).map(|_| rng.gen_range(0..4)).collect()
            })
            .collect();
        lattices.push(vec![1; 17]);
        for max in lattices {
            let lattice = Lattice::new(max);
            for tag in [Status::Acceptable, Status::Unacceptable] {
                let mut status = vec![Status::Unknown; lattice.size()];
                for _ in 0..3 {
                    let node = lattice.levels(rng.gen_range(0..lattice.size()));
                    let unknown_before = status.clone();
                    let counted = tag_closure(&lattice, &mut status, &node, tag);
                    let mut newly = 0;
                    for i in 0..lattice.size() {
                        let l = lattice.levels(i);
                        let inside = if tag == Status::Acceptable {
                            lattice.generalizes(&l, &node)
                        } else {
                            lattice.generalizes(&node, &l)
                        };
                        if inside {
                            assert!(status[i] == tag, "{l:?} from {node:?}");
                            newly += (unknown_before[i] == Status::Unknown) as u64;
                        } else {
                            assert!(status[i] == unknown_before[i], "{l:?} from {node:?}");
                        }
                    }
                    assert_eq!(counted, newly);
                }
            }
        }
    }

    /// The nodes by their class-free bound, ties in the tie order (level sum, then the
    /// levels with the first attribute most significant): against a sort of every node
    /// by the bound and `tie_order`, on random tables and metrics whose bounds come from a
    /// table of level terms (the keys stepped as an odometer) and one whose do not (the
    /// rank aggregate).
    #[test]
    fn nodes_by_bound_sort_as_the_bounds_and_the_tie_order_do() {
        use crate::criteria::ModelSpec;
        use crate::framework::lattice::tie_order;
        use crate::framework::test_support::dataset;
        use crate::metric::{Aggregate, MetricKind, MetricSpec};
        use crate::observer::Silent;

        let mut rng = ChaCha8Rng::seed_from_u64(2412);
        let (mut tabled, mut packed) = (0, 0);
        for round in 0..120 {
            let data = dataset(&mut rng);
            let (name, aggregate) = [
                (MetricKind::Loss, None),
                (MetricKind::Loss, Some(Aggregate::Sum)),
                (MetricKind::Height, None),
                (MetricKind::Precision, Some(Aggregate::Maximum)),
                (MetricKind::Loss, Some(Aggregate::Rank)),
            ][round % 5];
            let metric = MetricSpec {
                name,
                aggregate,
                ..MetricSpec::default()
            };
            let models = [ModelSpec::KAnonymity { k: 2 }];
            let problem = super::Problem::new(data, &models, 0.1, &metric).unwrap();
            let lattice = &problem.lattice;
            // the bounds as the search takes them: from the table when there is one (its
            // sums run in another order than `level_bound`'s, so the last bit may differ)
            let table = problem.metric.level_bounds(lattice.max_levels());
            tabled += table.is_some() as usize;
            let mut want: Vec<(super::Score, Vec<u8>, u32)> = (0..lattice.size())
                .map(|i| {
                    let levels = lattice.levels(i);
                    let bound = match &table {
                        Some(values) => super::Score::scalar(values[i]),
                        None => problem.metric.level_bound(&levels).unwrap(),
                    };
                    (bound, levels, i as u32)
                })
                .collect();
            // a table's bounds in their exact order (`score_order` allows a relative 1e-9)
            want.sort_by(|a, b| {
                let by_bound = match table {
                    Some(_) => a.0.value.total_cmp(&b.0.value),
                    None => super::score_order(&a.0, &b.0),
                };
                by_bound.then(tie_order(&a.1, &b.1))
            });
            let want_nodes: Vec<u32> = want.iter().map(|&(_, _, i)| i).collect();
            // the nodes packed in the keys, and read from the table
            for may_pack in [true, false] {
                let stage = super::search_stage(&problem, &Silent);
                let got = super::by_bound_packing(&problem, &stage, may_pack).unwrap();
                if let super::Order::Keys { nodes, .. } = &got {
                    packed += matches!(nodes, super::NodeOf::Packed { .. }) as usize;
                }
                let got_nodes: Vec<u32> = (0..got.len()).map(|p| got.node(p) as u32).collect();
                assert_eq!(got_nodes, want_nodes, "round {round}, {may_pack}");
                for (place, (want, _, _)) in want.iter().enumerate() {
                    let bound = got.bound(place);
                    assert_eq!(bound.value.to_bits(), want.value.to_bits(), "round {round}");
                    assert_eq!(bound.rank, want.rank, "round {round}");
                }
            }
        }
        assert!(tabled > 60, "{tabled}");
        // every table of bounds packs its nodes when it may (these lattices are small)
        assert_eq!(packed, tabled);
    }

    /// A bound's key orders as `f64::total_cmp` does and gives the bound back bit for bit:
    /// random bit patterns (negative numbers, zeros, infinities, NaNs among them).
    #[test]
    fn bound_keys_order_and_read_back_every_bit_pattern() {
        let mut rng = ChaCha8Rng::seed_from_u64(2413);
        let special = [
            0.0,
            -0.0,
            1.0,
            -1.0,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
        ];
        let mut values: Vec<f64> = (0..2000).map(|_| f64::from_bits(rng.gen())).collect();
        values.extend(special);
        for &a in &values {
            let key = super::total_order(a);
            assert_eq!(super::from_total_order(key).to_bits(), a.to_bits());
            for &b in special.iter().chain(&values[..50]) {
                assert_eq!(key.cmp(&super::total_order(b)), a.total_cmp(&b), "{a} {b}");
            }
        }
    }

    /// The order at the edges of the packing: lattices of 1, 2, 5, 17, 256, 65,536 and
    /// 131,072 nodes (levels up to 255, level sums up to 511), read packed and through the
    /// table, on pools of one and three threads, against a sort of every node by its bound
    /// and the tie order. Packed, each node takes the fewest bits that hold every index.
    #[test]
    fn the_order_packs_lattices_of_every_width() {
        use std::path::{Path, PathBuf};

        use crate::criteria::ModelSpec;
        use crate::data::table::Table;
        use crate::data::Role;
        use crate::framework::dataset::Dataset;
        use crate::framework::lattice::tie_order;
        use crate::hierarchy::Hierarchy;
        use crate::metric::{MetricKind, MetricSpec};
        use crate::observer::Silent;

        // six leaves; level 1 pairs them, each level above has one group, the top `*`
        fn chain(j: usize, height: usize) -> (Hierarchy, PathBuf) {
            let rows: Vec<Vec<String>> = (0..6usize)
                .map(|v| {
                    let mut row = vec![format!("q{j}v{v}")];
                    row.extend((1..=height).map(|h| match h {
                        h if h == height => "*".to_string(),
                        1 => format!("g1-{}", v >> 1),
                        h => format!("g{h}"),
                    }));
                    row
                })
                .collect();
            (
                Hierarchy::from_rows(&rows, Path::new("h"), None).unwrap(),
                "h".into(),
            )
        }
        let mut rng = ChaCha8Rng::seed_from_u64(2414);
        let shapes: [&[usize]; 7] = [
            &[0],
            &[1],
            &[4],
            &[16],
            &[1; 8],
            &[255, 255],
            &[255, 1, 255],
        ];
        for heights in shapes {
            for name in [MetricKind::Loss, MetricKind::Height] {
                let header = (0..heights.len()).map(|j| format!("q{j}")).collect();
                let rows: Vec<Vec<String>> = (0..30)
                    .map(|_| {
                        (0..heights.len())
                            .map(|j| format!("q{j}v{}", rng.gen_range(0..6)))
                            .collect()
                    })
                    .collect();
                let data = Dataset::new(
                    Table::from_rows(header, &rows).unwrap(),
                    vec![Role::QuasiIdentifying; heights.len()],
                    heights
                        .iter()
                        .enumerate()
                        .map(|(j, &h)| chain(j, h))
                        .collect(),
                    vec![],
                )
                .unwrap();
                let metric = MetricSpec {
                    name,
                    ..MetricSpec::default()
                };
                let models = [ModelSpec::KAnonymity { k: 2 }];
                let problem = super::Problem::new(data, &models, 0.1, &metric).unwrap();
                let lattice = &problem.lattice;
                let size = lattice.size();
                assert_eq!(size, heights.iter().map(|&h| h + 1).product::<usize>());
                let table = problem.metric.level_bounds(lattice.max_levels()).unwrap();
                let mut want: Vec<(f64, Vec<u8>, u32)> = (0..size)
                    .map(|i| (table[i], lattice.levels(i), i as u32))
                    .collect();
                want.sort_by(|a, b| a.0.total_cmp(&b.0).then(tie_order(&a.1, &b.1)));
                let want: Vec<u32> = want.into_iter().map(|(_, _, i)| i).collect();
                for may_pack in [true, false] {
                    for threads in [1, 3] {
                        let pool = rayon::ThreadPoolBuilder::new()
                            .num_threads(threads)
                            .build()
                            .unwrap();
                        let got = pool.install(|| {
                            let stage = super::search_stage(&problem, &Silent);
                            super::by_bound_packing(&problem, &stage, may_pack).unwrap()
                        });
                        match &got {
                            super::Order::Keys {
                                nodes: super::NodeOf::Packed { bits },
                                ..
                            } => {
                                assert!(may_pack, "{heights:?}");
                                assert!(*bits == 0 || size > 1 << (bits - 1), "{heights:?}");
                                assert!(size <= 1 << bits, "{heights:?} {bits}");
                            }
                            super::Order::Keys {
                                nodes: super::NodeOf::Table(_),
                                ..
                            } => assert!(!may_pack, "{heights:?}"),
                            super::Order::Scores(_) => panic!("a table of bounds"),
                        }
                        let got: Vec<u32> = (0..got.len()).map(|p| got.node(p) as u32).collect();
                        assert!(got == want, "{heights:?} {name:?} {may_pack} {threads}");
                    }
                }
            }
        }
    }

    /// The optimal searches hand over the classes of the node they found, rolled up from a
    /// node they kept: the same classes (keys, representatives, counts, histograms, in the
    /// same order) as a rollup from the base, on random tables with sensitive columns,
    /// k = 2 to 4, 0 to 20 % suppression, and Loss (the best-first search) or DM (the
    /// bottom-up one).
    #[test]
    fn the_optimal_searches_hand_over_the_classes_of_their_best_node() {
        use crate::criteria::ModelSpec;
        use crate::framework::test_support::dataset_sized;
        use crate::metric::{MetricKind, MetricSpec};
        use crate::observer::Silent;

        let mut rng = ChaCha8Rng::seed_from_u64(2413);
        let (mut found, mut handed_over) = (0, [0usize; 2]);
        for round in 0..240 {
            let data = dataset_sized(&mut rng, 2..9, 20..120, 2);
            let k = rng.gen_range(2..5);
            let suppression = [0.0, 0.05, 0.2][round % 3];
            let models = [ModelSpec::KAnonymity { k }];
            let metric = MetricSpec {
                name: [MetricKind::Loss, MetricKind::Discernibility][round / 3 % 2],
                ..MetricSpec::default()
            };
            let problem = super::Problem::new(data, &models, suppression, &metric).unwrap();
            let outcome = super::optimal(&problem, &Silent).unwrap();
            let Some(best) = &outcome.best else {
                assert!(outcome.best_classes.is_none(), "round {round}");
                continue;
            };
            found += 1;
            handed_over[round / 3 % 2] += 1;
            let got = outcome.best_classes.as_ref().expect("classes handed over");
            let want = problem.classes(&best.levels);
            assert_eq!(got.len(), want.len(), "round {round}");
            assert_eq!(got.reps(), want.reps(), "round {round}");
            assert_eq!(got.counts, want.counts, "round {round}");
            for c in 0..want.len() {
                assert_eq!(got.key(c), want.key(c), "round {round}, class {c}");
                assert_eq!(
                    got.histogram(c),
                    want.histogram(c),
                    "round {round}, class {c}"
                );
            }
        }
        assert!(found > 150, "{found}");
        assert!(handed_over.iter().all(|&n| n > 50), "{handed_over:?}");
    }
}
