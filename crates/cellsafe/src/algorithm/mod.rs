//! Searches of the generalization lattice.
//!
//! - [`exhaustive`] evaluates every node: the reference the others are tested against.
//! - [`minimal`] returns every acceptable node none of whose specializations is acceptable
//!   (the papers' maximally informative safe generalizations), by the papers' breadth-first
//!   search, by Incognito, or by bidirectional inference ([`minimal`](mod@minimal) module).
//! - [`optimal`] finds the acceptable node with the best score. It walks the rollup spanning
//!   tree depth-first (each node's classes come from its parent's) and skips a subtree when
//!   the metric's monotone lower bound shows nothing in it can beat the best node found;
//!   ties go to the lower level sum, then the lexicographically smaller vector.
//!
//! All run in parallel with rayon; the answers do not depend on the number of threads.

pub mod disclosure;
pub mod genetic;
pub mod minimal;
pub mod problem;
pub mod safety;
pub mod setbased;

pub use minimal::{bfs as minimal_bfs, by_inference as minimal_by_inference, incognito};

use std::sync::atomic::{AtomicUsize, Ordering as AtomicOrdering};
use std::sync::Mutex;

use rayon::prelude::*;
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

use crate::algorithm::problem::{Evaluation, Problem};
use crate::framework::classes::Classes;
use crate::framework::lattice::{is_generalization, tie_order};
use crate::hierarchy::Hierarchy;
use crate::metric::Score;
use crate::progress::{Stage, SEARCH};

/// Which search to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Algorithm {
    Exhaustive,
    /// Every minimal acceptable node, by Incognito's subset iteration (paper 000 section 3.4).
    Minimal,
    /// The same set by the papers' breadth-first search (the baseline).
    MinimalBfs,
    /// The same set by bidirectional inference along chains.
    MinimalInference,
    /// The genetic algorithm of paper 000 maximizing sf·ql (`[search.genetic]`).
    Genetic,
    /// Set-based generalization by the goal-directed search of paper 002
    /// (`[search.set_based]`); not a lattice search.
    SetBased,
    #[default]
    Optimal,
}

/// What a search found.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// The best acceptable node, if any.
    pub best: Option<Evaluation>,
    /// For `minimal`: every minimal acceptable node, in lattice index order.
    pub minimal: Vec<Evaluation>,
    pub nodes_evaluated: usize,
}

/// Where a search reports how far it has got: one [`SEARCH`] stage of the lattice's size
/// (see [`crate::progress`]). `None` reports nothing.
pub type Progress<'a> = &'a dyn crate::progress::Progress;

/// The [`SEARCH`] stage of a search of `problem`.
fn search_stage<'a>(problem: &Problem, progress: Option<Progress<'a>>) -> Stage<'a> {
    Stage::start(progress, SEARCH, Some(problem.lattice.size() as u64))
}

/// `a` beats `b`: better score, or equal score and earlier in the tie order. Scores within
/// rounding of each other count as equal (see [`score_order`]), so that two nodes whose
/// scores are equal in exact arithmetic are ranked by the tie order, not by the last bit.
pub fn better(a: &Evaluation, b: &Evaluation) -> bool {
    match score_order(&a.score, &b.score) {
        std::cmp::Ordering::Less => true,
        std::cmp::Ordering::Greater => false,
        std::cmp::Ordering::Equal => tie_order(&a.levels, &b.levels) == std::cmp::Ordering::Less,
    }
}

pub(crate) fn pick_best<'a>(
    evaluations: impl IntoIterator<Item = &'a Evaluation>,
) -> Option<Evaluation> {
    let mut best: Option<&Evaluation> = None;
    for e in evaluations.into_iter().filter(|e| e.acceptable) {
        if best.is_none_or(|b| better(e, b)) {
            best = Some(e);
        }
    }
    best.cloned()
}

/// How two scores (or a lower bound and a score) compare. Scores of different nodes, and a
/// bound and the score it bounds, are sums taken in different orders, so values within
/// 1e-12 (relative; for ranks, each component) count as equal: otherwise a bound one rounding step above an equal score
/// would prune the node that wins the tie order, and of two nodes with equal scores the one
/// rounded down would win.
pub fn score_order(a: &Score, b: &Score) -> std::cmp::Ordering {
    let near = |x: f64, y: f64| {
        if (x - y).abs() <= 1e-12 * x.abs().max(y.abs()).max(1.0) {
            std::cmp::Ordering::Equal
        } else {
            x.total_cmp(&y)
        }
    };
    match (&a.rank, &b.rank) {
        (None, None) => near(a.value, b.value),
        // ranks compare attribute by attribute, each within the same tolerance
        (Some(x), Some(y)) => x
            .iter()
            .zip(y)
            .map(|(&x, &y)| near(x, y))
            .find(|o| o.is_ne())
            .unwrap_or(std::cmp::Ordering::Equal),
        _ => a.compare(b),
    }
}

/// The largest lattice [`exhaustive`] may enumerate: it keeps every node's evaluation
/// (about 100 bytes each).
pub const MAX_EXHAUSTIVE: usize = 1_000_000;

/// Classes above this size are worth splitting their children across threads.
const PARALLEL_CLASSES: usize = 512;

struct Walk<'a> {
    problem: &'a Problem,
    hierarchies: Vec<&'a Hierarchy>,
    prune: bool,
    best: Mutex<Option<Evaluation>>,
    all: Option<Mutex<Vec<Evaluation>>>,
    evaluated: AtomicUsize,
    stage: Stage<'a>,
}

impl Walk<'_> {
    fn visit(&self, levels: &[u8], classes: &Classes) {
        let (evaluation, _) = self.problem.assess(levels, classes);
        self.evaluated.fetch_add(1, AtomicOrdering::Relaxed);
        self.stage.add(1);
        if evaluation.acceptable {
            let mut best = self.best.lock().expect("search lock");
            if best.as_ref().is_none_or(|b| better(&evaluation, b)) {
                *best = Some(evaluation.clone());
            }
        }
        if let Some(all) = &self.all {
            all.lock().expect("search lock").push(evaluation);
        }
        let metric = &self.problem.metric;
        let class_bound = if self.prune {
            metric.class_bound(classes)
        } else {
            None
        };
        let mut children: Vec<(Vec<u8>, Option<Score>)> = self
            .problem
            .lattice
            .tree_children(levels)
            .into_iter()
            .map(|(_, child)| {
                let bound = if self.prune {
                    metric.level_bound(&child)
                } else {
                    None
                };
                (child, bound)
            })
            .collect();
        if self.prune {
            children.retain(|(child, bound)| {
                !self.prunable(child, bound.as_ref().or(class_bound.as_ref()))
            });
            // most promising first, so that good bests are found early
            children.sort_by(|a, b| match (&a.1, &b.1) {
                (Some(x), Some(y)) => x.compare(y),
                _ => std::cmp::Ordering::Equal,
            });
        }
        let run = |(child, _): &(Vec<u8>, Option<Score>)| {
            if self.prune && self.prunable(child, class_bound.as_ref()) {
                return;
            }
            let child_classes =
                self.problem
                    .snapshot
                    .rollup(&self.hierarchies, classes, levels, child);
            self.visit(child, &child_classes);
        };
        if classes.len() >= PARALLEL_CLASSES && children.len() > 1 {
            children.par_iter().for_each(run);
        } else {
            children.iter().for_each(run);
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

fn walk<'a>(
    problem: &'a Problem,
    prune: bool,
    keep_all: bool,
    progress: Option<Progress<'a>>,
) -> Walk<'a> {
    let w = Walk {
        problem,
        hierarchies: problem.hierarchies(),
        prune,
        best: Mutex::new(None),
        all: keep_all.then(|| Mutex::new(Vec::new())),
        evaluated: AtomicUsize::new(0),
        stage: search_stage(problem, progress),
    };
    let bottom = problem.lattice.bottom();
    w.visit(&bottom, problem.snapshot.base());
    w
}

/// Evaluates every node. Returns the outcome and all evaluations in lattice index order.
pub fn exhaustive(problem: &Problem, progress: Option<Progress>) -> (Outcome, Vec<Evaluation>) {
    let all = if problem.lattice.is_chain() {
        let w = walk(problem, false, true, progress);
        let mut all = w.all.expect("kept").into_inner().expect("search lock");
        all.sort_by_key(|e| problem.lattice.index(&e.levels));
        all
    } else {
        // partitions that do not nest: every node's classes come from the base
        let stage = search_stage(problem, progress);
        (0..problem.lattice.size())
            .into_par_iter()
            .map(|i| {
                let levels = problem.lattice.levels(i);
                let evaluation = problem.assess(&levels, &problem.classes(&levels)).0;
                stage.add(1);
                evaluation
            })
            .collect()
    };
    let best = pick_best(&all);
    let nodes_evaluated = all.len();
    (
        Outcome {
            best,
            minimal: Vec::new(),
            nodes_evaluated,
        },
        all,
    )
}

/// The optimal acceptable node, with exact pruning.
///
/// With monotonic models and a metric whose lower bound needs no classes, nodes are taken
/// best-first in order of (bound, tie order) and the search stops once the bound passes the
/// best score; whether a candidate is acceptable is settled by binary search on a chain from
/// it to the top, so that one unacceptable node rules out its whole down-set and one
/// acceptable node vouches for its up-set (ARX's Flash works on the same principle).
/// Otherwise the rollup tree is walked depth-first, pruning subtrees by their bounds.
///
/// Partial orders of partitions have neither the spanning tree nor monotone bounds that
/// this relies on, so there every node is evaluated ([`exhaustive`]).
pub fn optimal(problem: &Problem, progress: Option<Progress>) -> Outcome {
    if !problem.lattice.is_chain() {
        return exhaustive(problem, progress).0;
    }
    if problem.models_monotonic()
        && problem
            .metric
            .level_bound(&problem.lattice.bottom())
            .is_some()
    {
        return best_first(problem, progress);
    }
    optimal_walk(problem, progress)
}

/// Depth-first walk of the rollup tree with bound pruning (see [`optimal`]).
pub fn optimal_walk(problem: &Problem, progress: Option<Progress>) -> Outcome {
    if !problem.lattice.is_chain() {
        return exhaustive(problem, progress).0;
    }
    let w = walk(problem, true, false, progress);
    Outcome {
        best: w.best.into_inner().expect("search lock"),
        minimal: Vec::new(),
        nodes_evaluated: w.evaluated.into_inner(),
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Status {
    Unknown,
    Acceptable,
    Unacceptable,
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

/// Best-first search by class-free lower bound (see [`optimal`]). Its tagging is sound only
/// for monotonic models, and it needs a class-free bound: otherwise it runs
/// [`optimal_walk`].
pub fn best_first(problem: &Problem, progress: Option<Progress>) -> Outcome {
    if !problem.lattice.is_chain() {
        return exhaustive(problem, progress).0;
    }
    if !problem.models_monotonic()
        || problem
            .metric
            .level_bound(&problem.lattice.bottom())
            .is_none()
    {
        return optimal_walk(problem, progress);
    }
    let stage = search_stage(problem, progress);
    let lattice = &problem.lattice;
    let metric = &problem.metric;
    let mut order: Vec<(Vec<u8>, Score)> = (0..lattice.size())
        .map(|i| {
            let levels = lattice.levels(i);
            let bound = metric.level_bound(&levels).expect("class-free bound");
            (levels, bound)
        })
        .collect();
    order.sort_by(|a, b| a.1.compare(&b.1).then_with(|| tie_order(&a.0, &b.0)));
    let mut status = vec![Status::Unknown; lattice.size()];
    let mut scored: FxHashMap<usize, Evaluation> = FxHashMap::default();
    let mut evaluated = 0usize;
    // Classes of evaluated nodes, to roll later nodes up from the smallest finer one.
    let hierarchies = problem.hierarchies();
    let budget = 4 * problem.snapshot.base().len() + 1_000_000;
    let mut cache: Vec<(Vec<u8>, Classes)> = Vec::new();
    let mut cached = 0usize;
    let mut evaluate = |levels: &[u8], status: &mut Vec<Status>| -> Evaluation {
        let source = cache
            .iter()
            .filter(|(l, _)| is_generalization(levels, l))
            .min_by_key(|(_, c)| c.len());
        let classes = match source {
            Some((l, c)) => problem.snapshot.rollup(&hierarchies, c, l, levels),
            None => problem.classes(levels),
        };
        let evaluation = problem.assess(levels, &classes).0;
        if cached + classes.len() <= budget {
            cached += classes.len();
            cache.push((levels.to_vec(), classes));
        }
        evaluated += 1;
        let (tagged, tag) = if evaluation.acceptable {
            (lattice.generalizations_of(levels), Status::Acceptable)
        } else {
            (lattice.specializations_of(levels), Status::Unacceptable)
        };
        stage.add(settle(status, tagged, tag));
        evaluation
    };
    let top = lattice.top();
    let top_eval = evaluate(&top, &mut status);
    scored.insert(lattice.index(&top), top_eval);
    let mut best: Option<Evaluation> = None;
    for (levels, bound) in &order {
        if let Some(b) = &best {
            match score_order(bound, &b.score) {
                std::cmp::Ordering::Greater => break,
                std::cmp::Ordering::Equal
                    if tie_order(&b.levels, levels) == std::cmp::Ordering::Less =>
                {
                    continue
                }
                _ => {}
            }
        }
        let index = lattice.index(levels);
        if status[index] == Status::Unknown {
            // binary search on the chain from `levels` to the top
            let chain = lattice.chain_to_top(levels);
            let (mut lo, mut hi) = (0usize, chain.len() - 1);
            while hi - lo > 1 && status[index] == Status::Unknown {
                let mid = (lo + hi) / 2;
                let m = lattice.index(&chain[mid]);
                if status[m] == Status::Unknown {
                    let e = evaluate(&chain[mid], &mut status);
                    scored.insert(m, e);
                }
                match status[m] {
                    Status::Acceptable => hi = mid,
                    _ => lo = mid,
                }
            }
            if status[index] == Status::Unknown {
                let e = evaluate(levels, &mut status);
                scored.insert(index, e);
            }
        }
        if status[index] != Status::Acceptable {
            continue;
        }
        let evaluation = match scored.get(&index) {
            Some(e) => e.clone(),
            None => {
                let e = evaluate(levels, &mut status);
                scored.insert(index, e.clone());
                e
            }
        };
        if best.as_ref().is_none_or(|b| better(&evaluation, b)) {
            best = Some(evaluation);
        }
    }
    Outcome {
        best,
        minimal: Vec::new(),
        nodes_evaluated: evaluated,
    }
}

/// The genetic search as an [`Outcome`] (its answer, if the models accept it).
pub fn genetic_outcome(problem: &Problem, spec: &genetic::GeneticSpec) -> Outcome {
    let found = genetic::genetic(problem, spec).ok();
    let best = found
        .as_ref()
        .filter(|g| g.acceptable)
        .and_then(|g| problem.evaluate(&g.levels).ok());
    Outcome {
        best,
        minimal: Vec::new(),
        nodes_evaluated: found.map_or(0, |g| g.nodes_evaluated),
    }
}

/// Every minimal acceptable node ([`incognito`], the fastest of the three on Adult).
pub fn minimal(problem: &Problem, progress: Option<Progress>) -> Outcome {
    incognito(problem, progress)
}

/// Runs `algorithm`.
pub fn run(problem: &Problem, algorithm: Algorithm, progress: Option<Progress>) -> Outcome {
    match algorithm {
        Algorithm::Exhaustive => exhaustive(problem, progress).0,
        Algorithm::Minimal => incognito(problem, progress),
        Algorithm::MinimalBfs => minimal_bfs(problem, progress),
        Algorithm::MinimalInference => minimal_by_inference(problem, progress),
        Algorithm::Genetic => genetic_outcome(problem, &genetic::GeneticSpec::default()),
        // the job runs it (it releases a set table, not a node); here: the minimal nodes
        Algorithm::SetBased => minimal(problem, progress),
        Algorithm::Optimal => optimal(problem, progress),
    }
}
