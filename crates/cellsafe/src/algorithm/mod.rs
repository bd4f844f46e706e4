//! Searches of the generalization lattice.
//!
//! - [`exhaustive`] evaluates every node: the reference the others are tested against.
//! - [`minimal`] returns every acceptable node none of whose specializations is acceptable
//!   (the papers' maximally informative safe generalizations), by the papers' breadth-first
//!   search, by Incognito, or by bidirectional inference (`minimal` module).
//! - [`optimal`] finds the acceptable node with the best score. It walks the rollup spanning
//!   tree depth-first (each node's classes come from its parent's) and skips a subtree when
//!   the metric's monotone lower bound shows nothing in it can beat the best node found;
//!   ties go to the lower level sum, then the lexicographically smaller vector.
//!
//! - [`genetic`] is paper 000's genetic algorithm maximizing sf·ql.
//!
//! Each is a [`Search`]: `Exhaustive`, `Optimal`, [`Minimal`] (with its [`MinimalStrategy`]
//! among the three) and `Genetic` (with its [`GeneticSpec`](genetic::GeneticSpec)); [`run`]
//! dispatches a configured [`Algorithm`] to them. Set-based generalization
//! ([`setbased::run`]) changes single cells rather than choosing a lattice node, so it is
//! not a `Search` and `run` refuses it.
//!
//! All run in parallel with rayon; the answers do not depend on the number of threads.
//! Every search reports to an [`Observer`] and stops with [`Error::Cancelled`] once the
//! observer says so (it is asked before each node is evaluated).

mod cache;
pub mod disclosure;
pub mod genetic;
mod minimal;
pub mod problem;
pub mod safety;
pub mod setbased;
pub mod tagging;

pub use minimal::{bfs as minimal_bfs, by_inference as minimal_by_inference, incognito};

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering as AtomicOrdering};
use std::sync::Mutex;

use rayon::prelude::*;
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

use crate::algorithm::cache::ClassCache;
use crate::algorithm::problem::{Evaluation, Problem};
use crate::error::{Error, ProblemError, Result};
use crate::framework::classes::Classes;
use crate::framework::lattice::tie_order;
use crate::hierarchy::Hierarchy;
use crate::metric::Score;
use crate::observer::{Observer, Stage, SEARCH};

/// Which search to run, as `[search] algorithm` names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Algorithm {
    /// Every node is evaluated; the best acceptable one wins.
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
    /// The best acceptable node, with exact pruning (the default).
    #[default]
    Optimal,
}

/// What a search found.
#[derive(Debug, Clone, Default)]
pub struct Outcome {
    /// The best acceptable node, if any.
    pub best: Option<Evaluation>,
    /// For `minimal`: every minimal acceptable node, in lattice index order.
    pub minimal: Vec<Evaluation>,
    /// Nodes the search evaluated.
    pub nodes_evaluated: usize,
    /// For the genetic search: its answer, run parameters and, if asked for, the
    /// exhaustive optimum.
    pub genetic: Option<genetic::GeneticReport>,
}

/// A search of the lattice of `problem` for acceptable nodes. It reports one stage or more
/// to `observer` (a lattice search: one [`SEARCH`] stage of the lattice's size) and returns
/// `Err(Error::Cancelled)`, and no outcome, once `observer` says stop.
pub trait Search {
    /// Runs the search on `problem`, reporting progress to `observer`.
    fn search(&self, problem: &Problem, observer: &dyn Observer) -> Result<Outcome>;
}

/// Every node: [`exhaustive`].
#[derive(Debug, Clone, Copy, Default)]
struct Exhaustive;

/// The best acceptable node: [`optimal`].
#[derive(Debug, Clone, Copy, Default)]
struct Optimal;

/// Every minimal acceptable node, by `strategy`.
#[derive(Debug, Clone, Copy, Default)]
pub struct Minimal {
    /// Which algorithm finds the minimal nodes.
    pub strategy: MinimalStrategy,
}

/// How [`Minimal`] finds the minimal acceptable nodes (the same set each way).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum MinimalStrategy {
    /// [`incognito`].
    #[default]
    Incognito,
    /// [`minimal_bfs`]: the papers' breadth-first search.
    Bfs,
    /// [`minimal_by_inference`].
    Inference,
}

/// Paper 000's genetic algorithm with parameters `spec` ([`genetic::genetic_report`]).
#[derive(Debug, Clone, Default)]
struct Genetic {
    /// The run's parameters.
    spec: genetic::GeneticSpec,
}

impl Search for Exhaustive {
    fn search(&self, problem: &Problem, observer: &dyn Observer) -> Result<Outcome> {
        Ok(exhaustive(problem, observer)?.0)
    }
}

impl Search for Optimal {
    fn search(&self, problem: &Problem, observer: &dyn Observer) -> Result<Outcome> {
        optimal(problem, observer)
    }
}

impl Search for Minimal {
    fn search(&self, problem: &Problem, observer: &dyn Observer) -> Result<Outcome> {
        match self.strategy {
            MinimalStrategy::Incognito => incognito(problem, observer),
            MinimalStrategy::Bfs => minimal_bfs(problem, observer),
            MinimalStrategy::Inference => minimal_by_inference(problem, observer),
        }
    }
}

impl Search for Genetic {
    /// The genetic answer as the best node if the models accept it; the whole report in
    /// [`Outcome::genetic`].
    fn search(&self, problem: &Problem, observer: &dyn Observer) -> Result<Outcome> {
        let report = genetic::genetic_report(problem, &self.spec, observer)?;
        let best = if report.outcome.acceptable {
            Some(problem.evaluate(&report.outcome.levels)?)
        } else {
            None
        };
        Ok(Outcome {
            best,
            minimal: Vec::new(),
            nodes_evaluated: report.outcome.nodes_evaluated,
            genetic: Some(report),
        })
    }
}

impl Algorithm {
    /// The node search this names, the genetic one with parameters `genetic`; `None` for
    /// [`Algorithm::SetBased`], which is not a node search (see [`setbased::run`]).
    pub fn node_search(self, genetic: &genetic::GeneticSpec) -> Option<Box<dyn Search>> {
        Some(match self {
            Algorithm::Exhaustive => Box::new(Exhaustive),
            Algorithm::Optimal => Box::new(Optimal),
            Algorithm::Minimal => Box::new(Minimal {
                strategy: MinimalStrategy::Incognito,
            }),
            Algorithm::MinimalBfs => Box::new(Minimal {
                strategy: MinimalStrategy::Bfs,
            }),
            Algorithm::MinimalInference => Box::new(Minimal {
                strategy: MinimalStrategy::Inference,
            }),
            Algorithm::Genetic => Box::new(Genetic {
                spec: genetic.clone(),
            }),
            Algorithm::SetBased => return None,
        })
    }
}

/// The [`SEARCH`] stage of a search of `problem`.
fn search_stage<'a>(problem: &Problem, observer: &'a dyn Observer) -> Stage<'a> {
    Stage::start(observer, SEARCH, Some(problem.lattice.size() as u64))
}

/// Loops that pass over many nodes without evaluating them ask for cancellation once per
/// this many nodes.
pub(crate) const CHECK_EVERY: usize = 4096;

/// `a` beats `b`: better score, or equal score and earlier in the tie order. Scores within
/// rounding of each other count as equal (see [`score_order`]), so that two nodes whose
/// scores are equal in exact arithmetic are ranked by the tie order, not by the last bit.
fn better(a: &Evaluation, b: &Evaluation) -> bool {
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
fn score_order(a: &Score, b: &Score) -> std::cmp::Ordering {
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
const MAX_EXHAUSTIVE: usize = 1_000_000;

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
        // a pruning walk keeps acceptable nodes only, so the others go unscored
        let evaluation = if self.all.is_some() {
            self.problem.assess(levels, classes).0
        } else {
            self.problem.check(levels, classes)
        };
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
            if let Some(bound) = &class_bound {
                self.rule_out_above(levels, bound);
            }
            children.retain(|(child, bound)| {
                !self.ruled_out(child)
                    && !self.prunable(child, bound.as_ref().or(class_bound.as_ref()))
            });
            // most promising first, so that good bests are found early
            children.sort_by(|a, b| match (&a.1, &b.1) {
                (Some(x), Some(y)) => x.compare(y),
                _ => std::cmp::Ordering::Equal,
            });
        }
        let run = |(child, _): &(Vec<u8>, Option<Score>)| {
            if self.stage.was_cancelled()
                || (self.prune
                    && (self.ruled_out(child) || self.prunable(child, class_bound.as_ref())))
            {
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

    /// Whether a bound recorded earlier rules out `node`.
    fn ruled_out(&self, node: &[u8]) -> bool {
        self.ruled_out[self.problem.lattice.index(node)].load(AtomicOrdering::Relaxed)
    }

    /// Records that nothing strictly above `node` can beat the best found when `bound`
    /// (a lower bound on their scores) is worse than the best's score.
    fn rule_out_above(&self, node: &[u8], bound: &Score) {
        let worse = {
            let best = self.best.lock().expect("search lock");
            best.as_ref()
                .is_some_and(|b| score_order(bound, &b.score) == std::cmp::Ordering::Greater)
        };
        if !worse {
            return;
        }
        let lattice = &self.problem.lattice;
        // a marked node's up-set is marked: done when every direct successor is
        let max = lattice.max_levels();
        let mut successor = node.to_vec();
        let mut all_marked = true;
        for d in 0..node.len() {
            if node[d] < max[d] {
                successor[d] += 1;
                all_marked &= self.ruled_out(&successor);
                successor[d] -= 1;
            }
        }
        if all_marked {
            return;
        }
        let own = lattice.index(node);
        for i in lattice.generalizations_of(node) {
            if i != own {
                self.ruled_out[i].store(true, AtomicOrdering::Relaxed);
            }
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
    observer: &'a dyn Observer,
) -> Result<Walk<'a>> {
    let w = Walk {
        problem,
        hierarchies: problem.hierarchies(),
        prune,
        best: Mutex::new(None),
        all: keep_all.then(|| Mutex::new(Vec::new())),
        evaluated: AtomicUsize::new(0),
        stage: search_stage(problem, observer),
        ruled_out: if prune {
            (0..problem.lattice.size())
                .map(|_| AtomicBool::new(false))
                .collect()
        } else {
            Vec::new()
        },
    };
    let bottom = problem.lattice.bottom();
    w.visit(&bottom, problem.snapshot.base());
    w.stage.check_stopped()?;
    Ok(w)
}

/// Evaluates every node. Returns the outcome and all evaluations in lattice index order.
pub fn exhaustive(
    problem: &Problem,
    observer: &dyn Observer,
) -> Result<(Outcome, Vec<Evaluation>)> {
    let all = if problem.lattice.is_chain() {
        let w = walk(problem, false, true, observer)?;
        let mut all = w.all.expect("kept").into_inner().expect("search lock");
        all.sort_by_key(|e| problem.lattice.index(&e.levels));
        all
    } else {
        // partitions that do not nest: every node's classes come from the base
        let stage = search_stage(problem, observer);
        (0..problem.lattice.size())
            .into_par_iter()
            .map(|i| {
                stage.check()?;
                let levels = problem.lattice.levels(i);
                let evaluation = problem.assess(&levels, &problem.classes(&levels)).0;
                stage.add(1);
                Ok(evaluation)
            })
            .collect::<Result<Vec<_>>>()?
    };
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
/// best score; whether a candidate is acceptable is settled by binary search on a chain from
/// it to the top, so that one unacceptable node rules out its whole down-set and one
/// acceptable node vouches for its up-set (ARX's Flash works on the same principle).
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
    if problem.models_monotonic()
        && problem
            .metric
            .class_bound(problem.snapshot.base())
            .is_some()
    {
        return tagging::bottom_up(problem, observer);
    }
    optimal_walk(problem, observer)
}

/// Depth-first walk of the rollup tree with bound pruning (see [`optimal`]).
pub fn optimal_walk(problem: &Problem, observer: &dyn Observer) -> Result<Outcome> {
    if !problem.lattice.is_chain() {
        return Ok(exhaustive(problem, observer)?.0);
    }
    let w = walk(problem, true, false, observer)?;
    Ok(Outcome {
        best: w.best.into_inner().expect("search lock"),
        nodes_evaluated: w.evaluated.into_inner(),
        ..Outcome::default()
    })
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
    let metric = &problem.metric;
    let mut order: Vec<(Vec<u8>, Score)> = (0..lattice.size())
        .into_par_iter()
        .map(|i| {
            if i.is_multiple_of(CHECK_EVERY) {
                stage.check()?;
            }
            let levels = lattice.levels(i);
            let bound = metric.level_bound(&levels).expect("class-free bound");
            Ok((levels, bound))
        })
        .collect::<Result<_>>()?;
    stage.check()?;
    order.par_sort_by(|a, b| a.1.compare(&b.1).then_with(|| tie_order(&a.0, &b.0)));
    stage.check()?;
    let mut status = vec![Status::Unknown; lattice.size()];
    let mut scored: FxHashMap<usize, Evaluation> = FxHashMap::default();
    let mut evaluated = 0usize;
    let mut cache = ClassCache::new(problem);
    let mut evaluate = |levels: &[u8], status: &mut Vec<Status>| -> Result<Evaluation> {
        stage.check()?;
        let evaluation = match cache.check(levels) {
            Some((evaluation, _)) => {
                evaluated += 1;
                evaluation
            }
            None => Evaluation::rejected(levels),
        };
        let (tagged, tag) = if evaluation.acceptable {
            (lattice.generalizations_of(levels), Status::Acceptable)
        } else {
            (lattice.specializations_of(levels), Status::Unacceptable)
        };
        stage.add(settle(status, tagged, tag));
        Ok(evaluation)
    };
    let top = lattice.top();
    let top_eval = evaluate(&top, &mut status)?;
    scored.insert(lattice.index(&top), top_eval);
    let mut best: Option<Evaluation> = None;
    for (n, (levels, bound)) in order.iter().enumerate() {
        if n.is_multiple_of(CHECK_EVERY) {
            stage.check()?;
        }
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
                    let e = evaluate(&chain[mid], &mut status)?;
                    scored.insert(m, e);
                }
                match status[m] {
                    Status::Acceptable => hi = mid,
                    _ => lo = mid,
                }
            }
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
    Ok(Outcome {
        best,
        nodes_evaluated: evaluated,
        ..Outcome::default()
    })
}

/// Every minimal acceptable node ([`incognito`], the fastest of the three on Adult).
pub fn minimal(problem: &Problem, observer: &dyn Observer) -> Result<Outcome> {
    incognito(problem, observer)
}

/// Runs the node search `algorithm` names, the genetic one with parameters `genetic` (see
/// [`Algorithm::node_search`]). [`Algorithm::SetBased`] is refused with
/// [`ProblemError::NotANodeSearch`]: it releases a table of set-valued cells, not a node, and is run by
/// [`setbased::run`].
pub fn run(
    problem: &Problem,
    algorithm: Algorithm,
    genetic: &genetic::GeneticSpec,
    observer: &dyn Observer,
) -> Result<Outcome> {
    let search =
        algorithm
            .node_search(genetic)
            .ok_or(Error::Problem(ProblemError::NotANodeSearch(
                "run algorithm::setbased::run",
            )))?;
    check_bounded(problem, algorithm)?;
    search.search(problem, observer)
}

/// Refuses a search that keeps every node's evaluation (`exhaustive`, or `optimal` over
/// partitions that do not nest) on a lattice larger than [`MAX_EXHAUSTIVE`].
fn check_bounded(problem: &Problem, algorithm: Algorithm) -> Result<()> {
    let size = problem.lattice.size();
    let enumerates = match algorithm {
        Algorithm::Exhaustive => true,
        Algorithm::Optimal => !problem.lattice.is_chain(),
        _ => false,
    };
    if enumerates && size > MAX_EXHAUSTIVE {
        return Err(ProblemError::TooManyToEnumerate {
            size,
            max: MAX_EXHAUSTIVE,
        }
        .into());
    }
    Ok(())
}
