//! PBG-EA (paper 003, Algorithm 2 and section 6): an evolutionary search for a
//! representative set of minimal PBGs, kept in the box archive of Algorithm 1.
//!
//! Population P_0: the bottom and top nodes and random ones. Each iteration assigns SPEA2
//! fitness in P_t ∪ A (the sum of the dominance counts of a node's dominators: 0 for the
//! non-dominated), selects N_pop nodes by binary tournament in P_t ∪ A, recombines them by
//! single-point crossover (probability p_cross) and single-step mutation (probability
//! p_mut per attribute, clamped to the hierarchy heights), evaluates the new population
//! and offers it to the archive. Every node's values are computed once and cached; the
//! random generator is seeded (ChaCha8), so a seed gives the same archive.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rustc_hash::FxHashMap;

use super::front::{dominates, BoxArchive};
use super::objective::Evaluator;
use super::{oriented, Evaluated};
use crate::algorithm::cache::ClassCache;
use crate::algorithm::problem::Problem;
use crate::error::{ParetoError, Result};
use crate::observer::{Observer, Stage, GENETIC};

/// PBG-EA's parameters (the paper's defaults: 25 nodes, 100 iterations, p_cross 0.8,
/// p_mut 1/|QI|, ε all ones).
#[derive(Debug, Clone, PartialEq)]
pub struct EaSpec {
    /// N_pop, at least 2.
    pub population: usize,
    /// Iterations after the initial population.
    pub iterations: usize,
    /// Probability of crossing a pair, in [0, 1].
    pub p_cross: f64,
    /// Probability of mutating one attribute's level; `None`: 1 / number of QIs.
    pub p_mut: Option<f64>,
    /// The discretization vector, one positive entry per objective; `None`: all ones.
    pub eps: Option<Vec<f64>>,
    /// Seed of the random generator.
    pub seed: u64,
}

impl Default for EaSpec {
    fn default() -> Self {
        EaSpec {
            population: 25,
            iterations: 100,
            p_cross: 0.8,
            p_mut: None,
            eps: None,
            seed: 0,
        }
    }
}

/// What a run found.
#[derive(Debug, Clone)]
pub struct EaOutcome {
    /// The archive at the end: representative minimal PBGs, in the order they came in.
    pub archive: Vec<Evaluated>,
    /// Distinct nodes evaluated.
    pub nodes_evaluated: usize,
    /// Those nodes, in lattice index order.
    pub evaluated: Vec<Evaluated>,
    /// The discretization vector used.
    pub eps: Vec<f64>,
}

/// Runs PBG-EA on `problem` with the objectives of `evaluator`.
pub fn pbg_ea(
    problem: &Problem,
    evaluator: &Evaluator<'_>,
    spec: &EaSpec,
    observer: &dyn Observer,
) -> Result<EaOutcome> {
    let dims = problem.lattice.dimensions();
    let p_mut = spec.p_mut.unwrap_or(1.0 / dims.max(1) as f64);
    let eps = spec
        .eps
        .clone()
        .unwrap_or_else(|| vec![1.0; evaluator.len()]);
    if eps.len() != evaluator.len() || eps.iter().any(|e| !(e.is_finite() && *e > 0.0)) {
        return Err(ParetoError::Eps {
            objectives: evaluator.len(),
            got: eps,
        }
        .into());
    }
    let probability = |name: &str, p: f64| -> Result<()> {
        if (0.0..=1.0).contains(&p) {
            Ok(())
        } else {
            Err(ParetoError::Parameter(format!("{name} must lie in [0, 1], not {p}")).into())
        }
    };
    probability("p_cross", spec.p_cross)?;
    probability("p_mut", p_mut)?;
    if spec.population < 2 {
        return Err(ParetoError::Parameter(format!(
            "the population needs at least 2 nodes, not {}",
            spec.population
        ))
        .into());
    }
    let stage = Stage::start(observer, GENETIC, Some(spec.iterations as u64 + 1));
    let max = problem.lattice.max_levels().to_vec();
    let mut rng = ChaCha8Rng::seed_from_u64(spec.seed);
    let mut cache = ClassCache::new(problem);
    let mut seen: FxHashMap<usize, (Evaluated, Vec<f64>)> = FxHashMap::default();
    let mut archive: BoxArchive<usize> = BoxArchive::new(eps.clone());

    // evaluates (once) and offers each node of `population` to the archive
    let mut evaluate = |population: &[Vec<u8>],
                        archive: &mut BoxArchive<usize>,
                        seen: &mut FxHashMap<usize, (Evaluated, Vec<f64>)>|
     -> Result<()> {
        for levels in population {
            stage.check()?;
            let index = problem.lattice.index(levels);
            let point = match seen.get(&index) {
                Some((_, point)) => point.clone(),
                None => {
                    let classes = cache.classes(levels);
                    let values = evaluator.evaluate(levels, &classes);
                    // later nodes above this one roll up from it
                    cache.keep(levels, classes);
                    let point = oriented(evaluator, &values.values);
                    let node = Evaluated {
                        levels: levels.clone(),
                        values,
                    };
                    seen.insert(index, (node, point.clone()));
                    point
                }
            };
            archive.offer(index, point);
        }
        stage.add(1);
        Ok(())
    };

    let mut population: Vec<Vec<u8>> = vec![problem.lattice.bottom(), max.clone()];
    while population.len() < spec.population {
        population.push(max.iter().map(|&m| rng.gen_range(0..=m)).collect());
    }
    population.truncate(spec.population);
    evaluate(&population, &mut archive, &mut seen)?;
    for _ in 0..spec.iterations {
        // P_t ∪ A with the oriented values
        let union: Vec<(Vec<u8>, Vec<f64>)> = population
            .iter()
            .map(|l| (l.clone(), seen[&problem.lattice.index(l)].1.clone()))
            .chain(
                archive
                    .members()
                    .iter()
                    .map(|m| (seen[&m.item].0.levels.clone(), m.values.clone())),
            )
            .collect();
        let fitness = spea2_fitness(&union.iter().map(|(_, v)| v.clone()).collect::<Vec<_>>());
        let selected: Vec<Vec<u8>> = (0..spec.population)
            .map(|_| {
                let (a, b) = (rng.gen_range(0..union.len()), rng.gen_range(0..union.len()));
                let winner = if fitness[b] < fitness[a] { b } else { a };
                union[winner].0.clone()
            })
            .collect();
        population = recombine(selected, &max, spec.p_cross, p_mut, &mut rng);
        evaluate(&population, &mut archive, &mut seen)?;
    }
    let outcome = EaOutcome {
        archive: archive
            .members()
            .iter()
            .map(|m| seen[&m.item].0.clone())
            .collect(),
        nodes_evaluated: seen.len(),
        evaluated: {
            let mut all: Vec<(usize, Evaluated)> =
                seen.into_iter().map(|(i, (node, _))| (i, node)).collect();
            all.sort_by_key(|(i, _)| *i);
            all.into_iter().map(|(_, node)| node).collect()
        },
        eps,
    };
    Ok(outcome)
}

/// SPEA2's raw fitness: per point, the sum over the points dominating it of how many
/// points each of those dominates (0 for a non-dominated point; lower is better).
pub fn spea2_fitness(points: &[Vec<f64>]) -> Vec<u64> {
    let n = points.len();
    let dominated: Vec<u64> = (0..n)
        .map(|i| {
            (0..n)
                .filter(|&j| dominates(&points[i], &points[j]))
                .count() as u64
        })
        .collect();
    (0..n)
        .map(|i| {
            (0..n)
                .filter(|&j| dominates(&points[j], &points[i]))
                .map(|j| dominated[j])
                .sum()
        })
        .collect()
}

/// The next population: pairs taken in a random order, crossed at a random point with
/// probability `p_cross`, then each level moved one step up or down with probability
/// `p_mut` (kept within 0..=max).
fn recombine(
    mut selected: Vec<Vec<u8>>,
    max: &[u8],
    p_cross: f64,
    p_mut: f64,
    rng: &mut ChaCha8Rng,
) -> Vec<Vec<u8>> {
    // a Fisher–Yates shuffle: pairs drawn without replacement
    for i in (1..selected.len()).rev() {
        let j = rng.gen_range(0..=i);
        selected.swap(i, j);
    }
    let dims = max.len();
    let mut next = Vec::with_capacity(selected.len());
    let mut pairs = selected.chunks(2);
    for pair in &mut pairs {
        match pair {
            [a, b] => {
                let (mut a, mut b) = (a.clone(), b.clone());
                if dims > 1 && rng.gen_bool(p_cross) {
                    let point = rng.gen_range(1..dims);
                    for j in point..dims {
                        std::mem::swap(&mut a[j], &mut b[j]);
                    }
                }
                next.push(a);
                next.push(b);
            }
            [a] => next.push(a.clone()),
            _ => {}
        }
    }
    for node in &mut next {
        for (l, &m) in node.iter_mut().zip(max) {
            if rng.gen_bool(p_mut) {
                *l = if rng.gen_bool(0.5) {
                    l.saturating_add(1).min(m)
                } else {
                    l.saturating_sub(1)
                };
            }
        }
    }
    next
}
