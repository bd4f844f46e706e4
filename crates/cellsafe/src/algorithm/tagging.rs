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
//!
//! On more than one thread, or on a large lattice, the lattice is cut by the levels of one
//! or two attributes into parts searched each on its own ([`bottom_up`]), which the threads
//! take one after the other: the best of the parts' bests is the whole lattice's, and the
//! parts, sharing nothing, search alike on any thread.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use rayon::prelude::*;

use super::cache::ClassCache;
use super::flash::{Flash, Places};
use super::optimal::tag_closure;
use super::{better, search_stage, Outcome, Status, CHECK_EVERY};
use crate::algorithm::problem::{Evaluation, Problem};
use crate::error::Result;
use crate::framework::lattice::Lattice;
use crate::metric::Score;
use crate::observer::{Observer, Stage};

/// The optimal acceptable node by bottom-up tagging (see the module docs). The caller
/// ensures the models are monotonic and the lattice is a product of chains.
///
/// With more than one thread in the pool, or a lattice of 100,000 nodes or more, the
/// lattice is cut into parts by the levels of one attribute and a second attribute's (as a
/// grid, the highest parts first, with two threads or more and 100,000 nodes or more), and
/// each part is searched on its own, as a lattice of its own, with its own statuses,
/// bounds and cache: the parts share nothing, so each part's search, and the best of the
/// parts' bests, are the same whichever thread runs which part and when.
pub fn bottom_up(problem: &Problem, observer: &dyn Observer) -> Result<Outcome> {
    let stage = search_stage(problem, observer);
    let parts = parts(problem, rayon::current_num_threads());
    search_parts(problem, &stage, &parts)
}

/// The search of every part of `parts` (the whole lattice when there are none), on the
/// threads of the pool, with the best of their bests.
///
/// Each thread takes the next part not yet taken, in the order of `parts` ([`parts`]
/// lists the ones expected to take longest first, so that such a part starts early rather
/// than last, after light ones). Which thread runs which part changes nothing in its
/// search.
fn search_parts(problem: &Problem, stage: &Stage<'_>, parts: &[Part]) -> Result<Outcome> {
    // the nodes by level sum, with each node's place: made once for every part
    let places = Places::new(problem.lattice.by_level_sum().into_iter());
    if parts.is_empty() {
        return search(problem, stage, &places, None);
    }
    let next = AtomicUsize::new(0);
    let workers = rayon::current_num_threads().clamp(1, parts.len());
    let taken: Vec<Vec<(usize, Result<Outcome>)>> = (0..workers)
        .into_par_iter()
        .with_max_len(1)
        .map(|_| {
            let mut done = Vec::new();
            loop {
                let p = next.fetch_add(1, Ordering::Relaxed);
                let Some(part) = parts.get(p) else {
                    return done;
                };
                done.push((p, search(problem, stage, &places, Some(part))));
            }
        })
        .collect();
    let mut outcomes: Vec<(usize, Result<Outcome>)> = taken.into_iter().flatten().collect();
    outcomes.sort_unstable_by_key(|&(p, _)| p);
    let mut whole = Outcome::default();
    // in the parts' order: the best by score, then the tie order, as one search decides
    for (_, outcome) in outcomes {
        let outcome = outcome?;
        whole.nodes_evaluated += outcome.nodes_evaluated;
        if let Some(best) = outcome.best {
            if whole.best.as_ref().is_none_or(|b| better(&best, b)) {
                whole.best = Some(best);
                whole.best_classes = outcome.best_classes;
            }
        }
    }
    Ok(whole)
}

/// A part of the lattice: the nodes where each attribute `.0` of the list is at level `.1`.
type Part = Vec<(usize, u8)>;

/// Marks every node outside `part` [`Status::Outside`] in `status`.
///
/// Attribute `j`'s level is the lattice index's digit `j` in the lattice's mixed radix: it
/// is constant over runs of `radix[j]` indices and steps through its levels from one run
/// to the next, so the runs are marked whole, without a division per node.
fn mark_outside(lattice: &Lattice, status: &mut [Status], part: &Part) {
    for &(j, l) in part {
        let (radix, base) = (lattice.radix()[j], lattice.max_levels()[j] as usize + 1);
        let mut level = 0;
        for nodes in status.chunks_mut(radix) {
            if level != l as usize {
                nodes.fill(Status::Outside);
            }
            level = if level + 1 == base { 0 } else { level + 1 };
        }
    }
}

/// Lattices of at least this many nodes are cut into parts on one thread too. Searched
/// one part after the other (medians of 5 runs, search time), DM on UCI Adult with 11, 12
/// and 13 quasi-identifiers (155,520 to 1,399,680 nodes) took 0.90, 0.85 and 0.82 of the
/// time of one search of the whole; on Adult with 8 and 9 (4,320 and 12,960 nodes), 1.22
/// and 1.26 (11 runs).
const PARTS_ALONE: usize = 100_000;

/// The parts [`bottom_up`] searches side by side on `threads` threads, in the order the
/// threads take them ([`cut`]): none (the whole lattice at once) with one thread and a
/// lattice of fewer than [`PARTS_ALONE`] nodes; a grid with two threads or more and a
/// lattice of at least that many.
fn parts(problem: &Problem, threads: usize) -> Vec<Part> {
    let size = problem.lattice.size();
    if threads < 2 && size < PARTS_ALONE {
        return Vec::new();
    }
    let values: Vec<usize> = (problem.data.quasi.iter())
        .map(|q| q.hierarchy.leaf_count())
        .collect();
    let grid = threads > 1 && size >= PARTS_ALONE;
    cut(problem.lattice.max_levels(), &values, threads, grid)
}

/// The parts of a lattice whose attributes have `max` as top levels and `values[j]`
/// distinct values each, cut for `threads` threads: none with fewer than two attributes.
///
/// Each attribute cut by has more levels than threads (and than two), so that a thread
/// done with a light part takes another, but at most twice as many, as parts share
/// nothing; among those, the one with the most distinct values; failing that, the one
/// with the most levels.
///
/// Without `grid`, the lattice is cut by the levels of one attribute, and the part where
/// that attribute is at its top level, which holds the most acceptable nodes and took the
/// longest to search, is cut again by a second attribute, in that order. With `grid`,
/// every part is cut by the second attribute, and the parts are listed by decreasing sum
/// of their two levels (the highest took the longest), so that the threads take the long
/// ones first. On UCI Adult with 12 and 13 quasi-identifiers (DM, two threads), one part
/// of the first cut still took most of the search: two threads searched in 0.88 and 0.78
/// of the time with the grid, 0.86 with 11 (7 paired runs, docs/performance.md). On
/// Adult's smaller lattices, with 8 and 9, a grid made the search slower (1.11 and 1.04,
/// 9 paired runs): hence a grid only for large lattices.
fn cut(max: &[u8], values: &[usize], threads: usize, grid: bool) -> Vec<Part> {
    if max.len() < 2 {
        return Vec::new();
    }
    let room = threads.max(2);
    let levels = |j: usize| max[j] as usize + 1;
    let pick = |skip: Option<usize>| {
        let dims = (0..max.len()).filter(move |&j| Some(j) != skip);
        dims.clone()
            .filter(|&j| levels(j) > room && levels(j) <= 2 * room)
            .max_by_key(|&j| (values[j], std::cmp::Reverse(j)))
            .or_else(|| {
                dims.filter(|&j| levels(j) > 1)
                    .max_by_key(|&j| (levels(j), values[j], std::cmp::Reverse(j)))
            })
    };
    let Some(first) = pick(None) else {
        return Vec::new();
    };
    let second = pick(Some(first));
    if let (Some(second), true) = (second, grid) {
        let mut parts: Vec<Part> = (0..=max[first])
            .flat_map(|a| (0..=max[second]).map(move |b| vec![(first, a), (second, b)]))
            .collect();
        let height = |part: &Part| part.iter().map(|&(_, l)| usize::from(l)).sum::<usize>();
        parts.sort_by_key(|part| std::cmp::Reverse(height(part)));
        return parts;
    }
    let mut parts: Vec<Part> = (0..max[first]).map(|l| vec![(first, l)]).collect();
    let top = (first, max[first]);
    match second {
        Some(second) => parts.extend((0..=max[second]).map(|l| vec![top, (second, l)])),
        None => parts.push(vec![top]),
    }
    parts
}

/// The search of `part` (the whole lattice when None), as [`bottom_up`] describes: the
/// nodes outside it are never evaluated, tagged or walked through.
fn search(
    problem: &Problem,
    stage: &Stage<'_>,
    places: &Places,
    part: Option<&Part>,
) -> Result<Outcome> {
    let lattice = &problem.lattice;
    let size = lattice.size();
    let mut status = vec![Status::Unknown; size];
    if let Some(part) = part {
        mark_outside(lattice, &mut status, part);
    }
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

    let mut flash = Flash::with_places(places);
    for (n, index) in places.order().enumerate() {
        if n.is_multiple_of(CHECK_EVERY) {
            stage.check()?;
        }
        if ruled_out[index].load(Ordering::Relaxed)
            || matches!(status[index], Status::Unacceptable | Status::Outside)
        {
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

    /// Marking a part's outside by runs of indices marks exactly the nodes whose levels
    /// differ from the part's, read off each node's levels (random parts fixing one to four
    /// attributes, on random lattices).
    #[test]
    fn the_outside_of_a_part_is_every_node_at_other_levels() {
        use crate::algorithm::Status;
        let mut rng = ChaCha8Rng::seed_from_u64(37);
        let mut marked = 0;
        for _ in 0..100 {
            let data = dataset(&mut rng);
            let models = [ModelSpec::KAnonymity { k: 2 }];
            let problem = Problem::new(data, &models, 0.0, &MetricSpec::default()).unwrap();
            let lattice = &problem.lattice;
            let max = lattice.max_levels();
            let fixed = rng.gen_range(1..=max.len().clamp(1, 4));
            let mut part = Vec::new();
            for (j, &top) in max.iter().enumerate() {
                if part.len() < fixed && rng.gen_bool(0.7) {
                    part.push((j, rng.gen_range(0..=top)));
                }
            }
            let mut status = vec![Status::Unknown; lattice.size()];
            super::mark_outside(lattice, &mut status, &part);
            for (i, s) in status.iter().enumerate() {
                let levels = lattice.levels(i);
                let inside = part.iter().all(|&(j, l)| levels[j] == l);
                assert_eq!(*s == Status::Unknown, inside, "{levels:?} and {part:?}");
                marked += usize::from(!inside);
            }
        }
        assert!(marked > 1000, "{marked}");
    }

    /// The parts cut every node of the lattice into exactly one part, on two to four
    /// threads; one thread leaves a small lattice whole.
    #[test]
    fn parts_hold_every_node_once() {
        let mut rng = ChaCha8Rng::seed_from_u64(36);
        let mut cut = 0;
        for _ in 0..100 {
            let data = dataset(&mut rng);
            let models = [ModelSpec::KAnonymity { k: 2 }];
            let problem = Problem::new(data, &models, 0.0, &MetricSpec::default()).unwrap();
            let lattice = &problem.lattice;
            assert!(lattice.size() < super::PARTS_ALONE);
            assert!(super::parts(&problem, 1).is_empty());
            for threads in 2..5 {
                let parts = super::parts(&problem, threads);
                let max = lattice.max_levels();
                if max.len() < 2 || max.iter().all(|&m| m == 0) {
                    assert!(parts.is_empty());
                    continue;
                }
                assert!(parts.len() > 1, "{:?}", lattice.max_levels());
                for i in 0..lattice.size() {
                    let levels = lattice.levels(i);
                    let holding = parts
                        .iter()
                        .filter(|p| p.iter().all(|&(j, l)| levels[j] == l))
                        .count();
                    assert_eq!(holding, 1, "{levels:?} in {parts:?}");
                }
                cut += 1;
            }
        }
        assert!(cut > 100, "{cut}");
    }

    /// Whatever the top levels, the distinct values and the threads, every node of the
    /// lattice lies in exactly one part, with or without a grid, and a grid lists its parts
    /// by decreasing sum of their levels: the order the threads take them in.
    #[test]
    fn cuts_hold_every_node_once_and_list_the_highest_grid_parts_first() {
        let mut rng = ChaCha8Rng::seed_from_u64(37);
        let (mut cut, mut grids) = (0, 0);
        for _ in 0..300 {
            let dims = rng.gen_range(1..6);
            let max: Vec<u8> = (0..dims).map(|_| rng.gen_range(0..7)).collect();
            let values: Vec<usize> = (0..dims).map(|_| rng.gen_range(1..50)).collect();
            let threads = rng.gen_range(1..6);
            for grid in [false, true] {
                let parts = super::cut(&max, &values, threads, grid);
                if dims < 2 || max.iter().all(|&m| m == 0) {
                    assert!(parts.is_empty());
                    continue;
                }
                let moving = max.iter().filter(|&&m| m > 0).count();
                assert!(parts.len() > 1, "{max:?}");
                if grid && moving > 1 {
                    assert!(parts.iter().all(|p| p.len() == 2), "{parts:?}");
                    let heights: Vec<usize> = (parts.iter())
                        .map(|p| p.iter().map(|&(_, l)| usize::from(l)).sum())
                        .collect();
                    assert!(heights.windows(2).all(|w| w[0] >= w[1]), "{parts:?}");
                    grids += 1;
                }
                // every node, by its levels in the lattice's mixed radix
                let size: usize = max.iter().map(|&m| usize::from(m) + 1).product();
                let mut levels = vec![0u8; dims];
                for _ in 0..size {
                    let holding = (parts.iter())
                        .filter(|p| p.iter().all(|&(j, l)| levels[j] == l))
                        .count();
                    assert_eq!(holding, 1, "{levels:?} in {parts:?}");
                    for (l, &m) in levels.iter_mut().zip(&max) {
                        if *l < m {
                            *l += 1;
                            break;
                        }
                        *l = 0;
                    }
                }
                cut += 1;
            }
        }
        assert!(cut > 300 && grids > 100, "{cut} cuts, {grids} grids");
    }

    /// Each part is searched as a lattice of its own: searching the parts in either order,
    /// on one thread or side by side on two, evaluates the same nodes and finds the same
    /// best, with its own classes, and that best is the whole lattice's. A part that read
    /// what another left (statuses, nodes ruled out, bounds, the best) would search
    /// differently after it than before it.
    #[test]
    fn parts_search_alike_in_any_order_on_any_threads() {
        use crate::observer::{Silent, Stage};
        let mut rng = ChaCha8Rng::seed_from_u64(35);
        let pool = |n| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(n)
                .build()
                .unwrap()
        };
        let (one, two) = (pool(1), pool(2));
        let (mut cut, mut found) = (0, 0);
        for _ in 0..150 {
            let data = dataset(&mut rng);
            let models = [ModelSpec::KAnonymity {
                k: rng.gen_range(2..5),
            }];
            let limit = [0.0, 0.05, 0.3][rng.gen_range(0..3)];
            let name =
                [MetricKind::Discernibility, MetricKind::DiscernibilityStar][rng.gen_range(0..2)];
            let metric = MetricSpec {
                name,
                ..MetricSpec::default()
            };
            let problem = Problem::new(data, &models, limit, &metric).unwrap();
            let stage = Stage::start(&Silent, "search", None);
            let whole = super::search_parts(&problem, &stage, &[]).unwrap();
            let max = problem.lattice.max_levels().to_vec();
            let cuts = max.iter().enumerate().filter(|&(_, &m)| m > 0);
            for ((j, &m), other) in cuts.clone().zip(cuts.skip(1).map(Some).chain([None])) {
                // by j's levels, and by another attribute's where j is at its top; and as
                // a grid of both attributes' levels
                let mut parts: Vec<super::Part> = (0..m).map(|l| vec![(j, l)]).collect();
                let mut ways = Vec::new();
                match other {
                    Some((o, &n)) => {
                        parts.extend((0..=n).map(|l| vec![(j, m), (o, l)]));
                        let grid = (0..=m).flat_map(|a| (0..=n).map(move |b| vec![(j, a), (o, b)]));
                        ways.push(grid.collect::<Vec<super::Part>>());
                    }
                    None => parts.push(vec![(j, m)]),
                }
                ways.push(parts);
                for parts in ways {
                    let reversed: Vec<super::Part> = parts.iter().rev().cloned().collect();
                    let runs = [
                        one.install(|| super::search_parts(&problem, &stage, &parts)),
                        one.install(|| super::search_parts(&problem, &stage, &reversed)),
                        two.install(|| super::search_parts(&problem, &stage, &parts)),
                        two.install(|| super::search_parts(&problem, &stage, &reversed)),
                    ]
                    .map(|r| r.unwrap());
                    for run in &runs {
                        assert_eq!(run.nodes_evaluated, runs[0].nodes_evaluated, "{parts:?}");
                        let (got, want) = (run.best.as_ref(), whole.best.as_ref());
                        assert_eq!(got.map(|b| &b.levels), want.map(|b| &b.levels), "{parts:?}");
                        assert_eq!(got.map(|b| b.score.value), want.map(|b| b.score.value));
                        if let Some(best) = got {
                            let classes = run.best_classes.as_ref().unwrap();
                            let from_base = problem.classes(&best.levels);
                            assert_eq!(classes.counts, from_base.counts);
                            assert_eq!(classes.reps(), from_base.reps());
                            found += 1;
                        }
                    }
                    cut += 1;
                }
            }
        }
        assert!(cut > 200 && found > 200, "{cut} cuts, {found} found");
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
