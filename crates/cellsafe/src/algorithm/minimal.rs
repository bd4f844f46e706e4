//! All minimal acceptable nodes (the maximally informative safe generalizations of the
//! AOG and database-linking papers), three ways that return the same set:
//!
//! - [`bfs`]: the papers' breadth-first search (paper 000 figure 5, paper 002 figure 11),
//!   which evaluates every unacceptable node below the frontier. Exact for any models.
//! - [`incognito`]: paper 000 section 3.4 — Incognito's iteration over subsets of
//!   quasi-identifiers (a node with the other attributes at their top is the subset's
//!   restriction), with the generalization property (an acceptable node vouches for its
//!   up-set), the subset property (an unacceptable restriction rules out every extension)
//!   and rollup (classes from a finer evaluated node).
//! - [`by_inference`]: bottom-up over the lattice, settling each unknown node by binary
//!   search on a chain to the top, so that one unacceptable node rules out its whole
//!   down-set and one acceptable node vouches for its up-set.
//!
//! On Adult with logical safety Incognito evaluates the fewest nodes (its restrictions have
//! few classes and rule out most of the lattice), so it is what `minimal` runs; see
//! `cellsafe bench --safety` and docs/performance.md.
//!
//! The last two need monotonic models and otherwise run [`bfs`]. All three work on partial
//! orders of partitions too: successors, up-sets, down-sets and chains to the top come from
//! the lattice, which follows each attribute's refinement order.

use std::collections::BTreeMap;

use rayon::prelude::*;
use rustc_hash::FxHashMap;

use super::{pick_best, search_stage, settle, Outcome, Status, CHECK_EVERY};
use crate::algorithm::problem::{Evaluation, Problem};
use crate::error::Result;
use crate::framework::classes::Classes;
use crate::framework::lattice::level_sum;
use crate::hierarchy::Hierarchy;
use crate::observer::{Observer, Stage};

/// All minimal acceptable nodes, by the breadth-first search of the AOG paper (figure 5).
///
/// Nodes are taken in layers of equal level sum; every node not yet known to be a
/// generalization of an acceptable node is evaluated; acceptable ones are output and their
/// generalizations marked; the direct successors of the others are queued. A node's level
/// sum exceeds that of every node it generalizes (on chains and on partial orders of
/// partitions alike), so each node is reached only after everything below it, and the
/// output is exactly the set of minimal acceptable nodes whether or not the models are
/// monotonic. Each node's classes are rolled up from the direct predecessor that queued it.
pub fn bfs(problem: &Problem, observer: &dyn Observer) -> Result<Outcome> {
    let stage = search_stage(problem, observer);
    let lattice = &problem.lattice;
    let hierarchies = problem.hierarchies();
    let mut done = vec![false; lattice.size()];
    // queued nodes by level sum, each with the evaluated predecessor that queued it
    let mut queue: BTreeMap<u32, BTreeMap<usize, Option<usize>>> = BTreeMap::new();
    queue
        .entry(0)
        .or_default()
        .insert(lattice.index(&lattice.bottom()), None);
    // classes of unacceptable nodes, with how many queued nodes still roll up from them
    let mut cache: FxHashMap<usize, (Classes, usize)> = FxHashMap::default();
    let mut found = Vec::new();
    let mut evaluated = 0usize;
    while let Some((_, layer)) = queue.pop_first() {
        let nodes: Vec<(usize, Option<usize>)> = layer
            .iter()
            .map(|(&i, &p)| (i, p))
            .filter(|&(i, _)| !done[i])
            .collect();
        let results: Vec<(usize, Evaluation, Classes)> = nodes
            .par_iter()
            .map(|&(i, parent)| {
                stage.check()?;
                let levels = lattice.levels(i);
                let classes = parent
                    .and_then(|p| cache.get(&p).map(|(c, _)| (lattice.levels(p), c)))
                    .map(|(p, c)| problem.snapshot.rollup(&hierarchies, c, &p, &levels))
                    .unwrap_or_else(|| problem.classes(&levels));
                let (evaluation, _) = problem.assess(&levels, &classes);
                Ok((i, evaluation, classes))
            })
            .collect::<Result<_>>()?;
        for parent in layer.values().flatten() {
            if let Some(entry) = cache.get_mut(parent) {
                entry.1 -= 1;
                if entry.1 == 0 {
                    cache.remove(parent);
                }
            }
        }
        evaluated += results.len();
        let mut settled = 0;
        for (i, evaluation, classes) in results {
            settled += !done[i] as u64;
            done[i] = true;
            if evaluation.acceptable {
                for g in lattice.generalizations_of(&evaluation.levels) {
                    settled += !done[g] as u64;
                    done[g] = true;
                }
                found.push(evaluation);
            } else {
                let mut children = 0;
                for s in lattice.successors(&evaluation.levels) {
                    let index = lattice.index(&s);
                    if done[index] {
                        continue;
                    }
                    let slot = queue.entry(level_sum(&s)).or_default();
                    if let std::collections::btree_map::Entry::Vacant(v) = slot.entry(index) {
                        v.insert(Some(i));
                        children += 1;
                    }
                }
                if children > 0 {
                    cache.insert(i, (classes, children));
                }
            }
        }
        stage.add(settled);
    }
    found.sort_by_key(|e| lattice.index(&e.levels));
    let best = pick_best(&found);
    Ok(Outcome {
        best,
        minimal: found,
        nodes_evaluated: evaluated,
        genetic: None,
        best_classes: None,
    })
}

/// Evaluates nodes, rolling each up from the smallest cached finer node, and keeps the
/// acceptable/unacceptable status of every node with its inferences.
struct Settler<'a> {
    problem: &'a Problem,
    hierarchies: Vec<&'a Hierarchy>,
    status: Vec<Status>,
    cache: Vec<(Vec<u8>, Classes)>,
    cached: usize,
    budget: usize,
    evaluated: usize,
    stage: Stage<'a>,
}

/// Cached class sets scanned per evaluation, at most.
const MAX_CACHED_NODES: usize = 256;

impl<'a> Settler<'a> {
    fn new(problem: &'a Problem, observer: &'a dyn Observer) -> Settler<'a> {
        Settler {
            problem,
            hierarchies: problem.hierarchies(),
            status: vec![Status::Unknown; problem.lattice.size()],
            cache: Vec::new(),
            cached: 0,
            budget: 4 * problem.snapshot.base().len() + 1_000_000,
            evaluated: 0,
            stage: search_stage(problem, observer),
        }
    }

    fn status(&self, levels: &[u8]) -> Status {
        self.status[self.problem.lattice.index(levels)]
    }

    /// Evaluates `levels` and records what it implies for its up-set or down-set.
    fn settle(&mut self, levels: &[u8]) -> Result<Evaluation> {
        self.stage.check()?;
        let lattice = &self.problem.lattice;
        let source = self
            .cache
            .iter()
            .filter(|(l, _)| lattice.generalizes(levels, l))
            .min_by_key(|(_, c)| c.len());
        let classes = match source {
            Some((l, c)) => self
                .problem
                .snapshot
                .rollup(&self.hierarchies, c, l, levels),
            None => self.problem.classes(levels),
        };
        let evaluation = self.problem.assess(levels, &classes).0;
        if self.cache.len() < MAX_CACHED_NODES && self.cached + classes.len() <= self.budget {
            self.cached += classes.len();
            self.cache.push((levels.to_vec(), classes));
        }
        self.evaluated += 1;
        let (tagged, tag) = if evaluation.acceptable {
            (lattice.generalizations_of(levels), Status::Acceptable)
        } else {
            (lattice.specializations_of(levels), Status::Unacceptable)
        };
        self.stage.add(settle(&mut self.status, tagged, tag));
        Ok(evaluation)
    }

    /// The minimal acceptable nodes once every status is known, with their evaluations.
    fn finish(self, mut evaluations: FxHashMap<usize, Evaluation>) -> Result<Outcome> {
        let lattice = &self.problem.lattice;
        let mut found = Vec::new();
        for i in 0..lattice.size() {
            if i.is_multiple_of(CHECK_EVERY) {
                self.stage.check()?;
            }
            if self.status[i] != Status::Acceptable {
                continue;
            }
            let levels = lattice.levels(i);
            let minimal = lattice
                .predecessors(&levels)
                .iter()
                .all(|p| self.status(p) == Status::Unacceptable);
            if minimal {
                let e = match evaluations.remove(&i) {
                    Some(e) => e,
                    // vouched for by a finer node, which then cannot exist: evaluate anyway
                    None => {
                        self.problem
                            .assess(&levels, &self.problem.classes(&levels))
                            .0
                    }
                };
                found.push(e);
            }
        }
        let best = pick_best(&found);
        Ok(Outcome {
            best,
            minimal: found,
            nodes_evaluated: self.evaluated,
            genetic: None,
            best_classes: None,
        })
    }
}

/// Nodes in bottom-up order: by level sum, then index.
fn bottom_up(nodes: &mut [Vec<u8>]) {
    nodes.sort_by_key(|l| (level_sum(l), l.clone()));
}

/// All minimal acceptable nodes by bidirectional inference (see the module docs).
pub fn by_inference(problem: &Problem, observer: &dyn Observer) -> Result<Outcome> {
    if !problem.models_monotonic() {
        return bfs(problem, observer);
    }
    let lattice = &problem.lattice;
    let mut s = Settler::new(problem, observer);
    let mut evaluations = FxHashMap::default();
    let mut nodes: Vec<Vec<u8>> = (0..lattice.size()).map(|i| lattice.levels(i)).collect();
    bottom_up(&mut nodes);
    let top = lattice.top();
    let e = s.settle(&top)?;
    evaluations.insert(lattice.index(&top), e);
    for (n, levels) in nodes.iter().enumerate() {
        if n.is_multiple_of(CHECK_EVERY) {
            s.stage.check()?;
        }
        if s.status(levels) != Status::Unknown {
            continue;
        }
        // binary search on the chain from `levels` to the top: its top end is settled
        let chain = lattice.chain_to_top(levels);
        let (mut lo, mut hi) = (0usize, chain.len() - 1);
        while hi - lo > 1 && s.status(levels) == Status::Unknown {
            let mid = (lo + hi) / 2;
            if s.status(&chain[mid]) == Status::Unknown {
                let e = s.settle(&chain[mid])?;
                evaluations.insert(lattice.index(&chain[mid]), e);
            }
            match s.status(&chain[mid]) {
                Status::Acceptable => hi = mid,
                _ => lo = mid,
            }
        }
        if s.status(levels) == Status::Unknown {
            let e = s.settle(levels)?;
            evaluations.insert(lattice.index(levels), e);
        }
    }
    s.finish(evaluations)
}

/// All minimal acceptable nodes by Incognito's iteration over attribute subsets (paper 000
/// section 3.4; see the module docs).
pub fn incognito(problem: &Problem, observer: &dyn Observer) -> Result<Outcome> {
    if !problem.models_monotonic() {
        return bfs(problem, observer);
    }
    let lattice = &problem.lattice;
    let max = lattice.max_levels().to_vec();
    let d = max.len();
    let free: Vec<usize> = (0..d).filter(|&j| max[j] > 0).collect();
    let mut s = Settler::new(problem, observer);
    let mut evaluations = FxHashMap::default();
    // subsets of the attributes that can be generalized, by size, then lexicographically
    let mut subsets: Vec<Vec<usize>> = (0u64..1 << free.len())
        .map(|mask| {
            (0..free.len())
                .filter(|&b| mask >> b & 1 == 1)
                .map(|b| free[b])
                .collect()
        })
        .collect();
    subsets.sort_by(|a, b| a.len().cmp(&b.len()).then_with(|| a.cmp(b)));
    for subset in subsets {
        // the restriction lattice of `subset`: its attributes below their top, others at top
        let mut nodes = vec![max.clone()];
        for &j in &subset {
            nodes = nodes
                .into_iter()
                .flat_map(|n| {
                    (0..max[j]).map(move |l| {
                        let mut m = n.clone();
                        m[j] = l;
                        m
                    })
                })
                .collect();
        }
        bottom_up(&mut nodes);
        for (n, levels) in nodes.iter().enumerate() {
            if n.is_multiple_of(CHECK_EVERY) {
                s.stage.check()?;
            }
            if s.status(levels) == Status::Unknown {
                let e = s.settle(levels)?;
                evaluations.insert(lattice.index(levels), e);
            }
        }
    }
    s.finish(evaluations)
}
