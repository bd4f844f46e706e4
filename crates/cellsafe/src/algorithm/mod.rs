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
pub(crate) mod flash;
pub mod genetic;
pub mod lgb;
pub mod local;
mod minimal;
mod optimal;
pub mod pareto;
pub mod problem;
pub mod safety;
mod sample_based;
pub mod setbased;
pub mod tagging;

pub use minimal::{bfs as minimal_bfs, by_inference as minimal_by_inference, incognito};
pub use optimal::{best_first, exhaustive, optimal, optimal_walk};
pub(crate) use optimal::{settle, Status};

use serde::{Deserialize, Serialize};

use crate::algorithm::problem::{Evaluation, Problem};
use crate::error::{Error, ProblemError, Result};
use crate::framework::lattice::tie_order;
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
    /// Local recoding by Mondrian (`[search.local]`): each group of rows gets its own
    /// generalization; not a lattice search.
    Mondrian,
    /// Local generalization and bucketization of paper 004 (semi-sensitive attributes;
    /// `[search.local]`); not a lattice search.
    Lgb,
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
    /// The classes of `best`, when the search can hand them over for less than a rollup
    /// from the base costs: the release and the report start from them.
    pub(crate) best_classes: Option<crate::framework::classes::Classes>,
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
            best_classes: None,
        })
    }
}

impl Algorithm {
    /// The name `[search] algorithm` gives it.
    pub fn name(self) -> &'static str {
        match self {
            Algorithm::Exhaustive => "exhaustive",
            Algorithm::Minimal => "minimal",
            Algorithm::MinimalBfs => "minimal-bfs",
            Algorithm::MinimalInference => "minimal-inference",
            Algorithm::Genetic => "genetic",
            Algorithm::SetBased => "set-based",
            Algorithm::Mondrian => "mondrian",
            Algorithm::Lgb => "lgb",
            Algorithm::Optimal => "optimal",
        }
    }

    /// Whether it recodes locally (Mondrian, LGB): each group of rows shows the interval of
    /// its numbers or the set of its values, so a quasi-identifier needs no hierarchy.
    pub fn is_local(self) -> bool {
        matches!(self, Algorithm::Mondrian | Algorithm::Lgb)
    }

    /// The node search this names, the genetic one with parameters `genetic`; `None` for
    /// [`Algorithm::SetBased`] and [`Algorithm::Mondrian`], which are not node searches
    /// (see [`setbased::run`] and [`local::mondrian::mondrian`]).
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
            Algorithm::SetBased | Algorithm::Mondrian | Algorithm::Lgb => return None,
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
                match algorithm {
                    Algorithm::Mondrian => "run algorithm::local::mondrian::mondrian",
                    Algorithm::Lgb => "run algorithm::lgb::lgb",
                    _ => "run algorithm::setbased::run",
                },
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

#[cfg(test)]
mod name_tests {
    use super::Algorithm;

    /// `name` is the config's spelling of every algorithm.
    #[test]
    fn names_are_the_config_spelling() {
        for a in [
            Algorithm::Exhaustive,
            Algorithm::Minimal,
            Algorithm::MinimalBfs,
            Algorithm::MinimalInference,
            Algorithm::Genetic,
            Algorithm::SetBased,
            Algorithm::Mondrian,
            Algorithm::Lgb,
            Algorithm::Optimal,
        ] {
            assert_eq!(serde_json::to_value(a).unwrap(), a.name());
        }
    }
}
