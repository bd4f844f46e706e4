//! The genetic algorithm of paper 000 (section 4.3, figures 7 and 8): maximize sf·ql over
//! the admissible granulations.
//!
//! A node is a bit string with ⌈log₂|Πᵢ|⌉ bits per attribute (most significant first, in
//! header order). Each generation selects parents by roulette wheel (probability in
//! proportion to fitness), recombines pairs with one- or two-point crossover at the
//! crossover rate, flips bits at the mutation rate, repairs codes that name no partition
//! by taking them modulo |Πᵢ|, and replaces the population. Fitness is sf·ql for nodes the
//! privacy models accept and 0 for the others. The best node ever seen is the answer.
//! Everything random comes from one ChaCha8 stream seeded by `seed`, and fitness is
//! deterministic, so the same seed gives the same run on any machine and thread count.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

use crate::algorithm::problem::Problem;
use crate::error::{Error, ProblemError, Result};
use crate::metric::{Metric, MetricKind, MetricSpec};
use crate::observer::{Observer, Silent, Stage, GENETIC, OPTIMUM};

/// Which crossover to apply to a pair.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Crossover {
    /// Exchange the genes after one random point.
    OnePoint,
    /// Exchange the genes between two random points.
    TwoPoint,
    /// One- or two-point with equal probability.
    Mixed,
}

/// `[search.genetic]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct GeneticSpec {
    /// Nodes per generation, 2 to `MAX_POPULATION`.
    pub population: usize,
    /// Generations bred after the initial population, at most `MAX_GENERATIONS`.
    pub generations: usize,
    /// Probability that a pair of parents is recombined, in [0, 1].
    pub crossover_rate: f64,
    /// Probability that each bit is flipped, in [0, 1].
    pub mutation_rate: f64,
    /// Which crossover recombines a pair.
    pub crossover: Crossover,
    /// Seed of the random stream; the same seed gives the same run.
    pub seed: u64,
    /// Also find the exhaustive optimum of sf·ql, to report how far the answer is from it
    /// (`GeneticReport::gap`). It evaluates every node of lattices up to
    /// `MAX_COMPARED` nodes (larger ones are not compared), so it is off by default.
    pub compare_with_optimum: bool,
}

impl Default for GeneticSpec {
    fn default() -> Self {
        GeneticSpec {
            population: 30,
            generations: 40,
            crossover_rate: 0.8,
            mutation_rate: 0.02,
            crossover: Crossover::Mixed,
            seed: 1,
            compare_with_optimum: false,
        }
    }
}

/// Largest `population` and `generations`: a run evaluates at most a million nodes, and
/// roulette selection costs population² per generation.
const MAX_POPULATION: usize = 1_000;
/// Largest `generations` (see [`MAX_POPULATION`]).
const MAX_GENERATIONS: usize = 1_000;

impl GeneticSpec {
    /// Checks the parameters' domains; on failure returns the key and the reason.
    pub(crate) fn validate(&self) -> Result<(), (&'static str, String)> {
        if !(2..=MAX_POPULATION).contains(&self.population) {
            return Err((
                "population",
                format!(
                    "must be between 2 and {MAX_POPULATION}, got {}",
                    self.population
                ),
            ));
        }
        if self.generations > MAX_GENERATIONS {
            return Err((
                "generations",
                format!(
                    "must be at most {MAX_GENERATIONS}, got {}",
                    self.generations
                ),
            ));
        }
        for (name, rate) in [
            ("crossover_rate", self.crossover_rate),
            ("mutation_rate", self.mutation_rate),
        ] {
            if !(0.0..=1.0).contains(&rate) {
                return Err((name, format!("must lie in [0, 1], got {rate}")));
            }
        }
        Ok(())
    }
}

/// The binary encoding of a lattice's nodes.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Encoding {
    /// |Πᵢ| per attribute.
    sizes: Vec<u32>,
    /// ⌈log₂|Πᵢ|⌉ per attribute.
    bits: Vec<u32>,
}

impl Encoding {
    /// The encoding of a lattice with |Πᵢ| = `sizes[i]` partitions per attribute.
    fn new(sizes: Vec<u32>) -> Encoding {
        let bits = sizes
            .iter()
            .map(|&s| {
                if s <= 1 {
                    0
                } else {
                    32 - (s - 1).leading_zeros()
                }
            })
            .collect();
        Encoding { sizes, bits }
    }
    /// Bits in a node's string.
    fn len(&self) -> usize {
        self.bits.iter().sum::<u32>() as usize
    }
    /// The codes a bit string spells, before repair (may exceed |Πᵢ| − 1).
    fn raw(&self, genes: &[bool]) -> Vec<u32> {
        let mut at = 0;
        self.bits
            .iter()
            .map(|&b| {
                let mut v = 0;
                for _ in 0..b {
                    v = v << 1 | genes[at] as u32;
                    at += 1;
                }
                v
            })
            .collect()
    }
    /// The node of a bit string, repairing illegal codes by modulo (figure 8's example).
    fn decode(&self, genes: &[bool]) -> Vec<u8> {
        self.raw(genes)
            .iter()
            .zip(&self.sizes)
            .map(|(&v, &s)| (v % s.max(1)) as u8)
            .collect()
    }
    /// The bit string of a node (inverse of [`Encoding::decode`] on legal codes).
    fn encode(&self, levels: &[u8]) -> Vec<bool> {
        let mut genes = Vec::with_capacity(self.len());
        for (&l, &b) in levels.iter().zip(&self.bits) {
            for k in (0..b).rev() {
                genes.push((l as u32) >> k & 1 == 1);
            }
        }
        genes
    }
}

/// Renders genes as `0`/`1`.
pub(crate) fn bit_string(genes: &[bool]) -> String {
    genes.iter().map(|&g| if g { '1' } else { '0' }).collect()
}

/// Exchanges the genes of `a` and `b` from position `from` to `to` (exclusive).
pub(crate) fn swap_segment(a: &mut [bool], b: &mut [bool], from: usize, to: usize) {
    for i in from..to.min(a.len()) {
        std::mem::swap(&mut a[i], &mut b[i]);
    }
}

/// What the genetic search found.
#[derive(Debug, Clone, Serialize)]
pub struct GeneticOutcome {
    /// 0-based levels of the answer, in header order.
    pub levels: Vec<u8>,
    /// The answer's bit string, as `0`/`1`.
    genes: String,
    /// sf·ql of the answer (0 if no acceptable node was met).
    pub fitness: f64,
    /// Whether the privacy models accept the answer.
    pub acceptable: bool,
    /// Distinct nodes whose fitness was computed.
    pub nodes_evaluated: usize,
    /// Generations run.
    pub generations: usize,
    /// The seed the run used.
    pub seed: u64,
    /// Best fitness of each generation (index 0: the initial population).
    pub history: Vec<f64>,
}

/// sf·ql of nodes, or 0 where the models reject them.
pub(crate) struct Fitness<'a> {
    problem: &'a Problem,
    metric: Metric,
}

impl<'a> Fitness<'a> {
    fn new(problem: &'a Problem) -> Result<Fitness<'a>> {
        let spec = MetricSpec {
            name: MetricKind::SfQl,
            ..problem.metric.spec.clone()
        };
        let metric = Metric::bind(&spec, &problem.data)?;
        Ok(Fitness { problem, metric })
    }
    /// (fitness, acceptable).
    fn of(&self, levels: &[u8]) -> (f64, bool) {
        let p = self.problem;
        let classes = p.classes(levels);
        let (evaluation, suppressed) = p.assess(levels, &classes);
        if !evaluation.acceptable {
            return (0.0, false);
        }
        let score = self.metric.score(
            &p.snapshot,
            levels,
            &classes,
            &suppressed,
            evaluation.suppressed_rows,
            &p.hierarchies(),
        );
        ((1.0 - score.value).max(0.0), true)
    }
}

/// The genetic answer and, when [`GeneticSpec::compare_with_optimum`] is set, the
/// exhaustive optimum of sf·ql over the acceptable nodes next to it.
#[derive(Debug, Clone, Serialize)]
pub struct GeneticReport {
    /// The genetic search's answer and run parameters (flattened in JSON).
    #[serde(flatten)]
    pub outcome: GeneticOutcome,
    /// Whether the optimum was computed (asked for, and the lattice has at most
    /// `MAX_COMPARED` nodes); the three fields below are absent otherwise.
    pub compared_with_optimum: bool,
    /// 0-based levels of the best acceptable node by exhaustive evaluation (ties: the
    /// lower level sum, then the smaller vector), if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub optimum_levels: Option<Vec<u8>>,
    /// sf·ql of the optimum.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub optimum_fitness: Option<f64>,
    /// optimum − found (0: the genetic search found an optimum).
    #[serde(skip_serializing_if = "Option::is_none")]
    gap: Option<f64>,
}

/// The largest lattice the exhaustive comparison evaluates.
const MAX_COMPARED: usize = 200_000;

/// Runs [`genetic`] and, if `spec` asks for it ([`GeneticSpec::compare_with_optimum`]) and
/// the lattice has at most `MAX_COMPARED` nodes, finds the exhaustive optimum. Reports a
/// [`GENETIC`] stage, then an [`OPTIMUM`] one when comparing; stops with
/// [`Error::Cancelled`] when `observer` says so.
pub fn genetic_report(
    problem: &Problem,
    spec: &GeneticSpec,
    observer: &dyn Observer,
) -> Result<GeneticReport> {
    let outcome = genetic_observed(problem, spec, observer)?;
    let lattice = &problem.lattice;
    if !spec.compare_with_optimum || lattice.size() > MAX_COMPARED {
        return Ok(GeneticReport {
            compared_with_optimum: false,
            optimum_levels: None,
            optimum_fitness: None,
            gap: None,
            outcome,
        });
    }
    let fitness = Fitness::new(problem)?;
    let stage = Stage::start(observer, OPTIMUM, Some(lattice.size() as u64));
    let scored: Vec<(Vec<u8>, (f64, bool))> = (0..lattice.size())
        .into_par_iter()
        .map(|i| {
            stage.check()?;
            let l = lattice.levels(i);
            let f = fitness.of(&l);
            stage.add(1);
            Ok((l, f))
        })
        .collect::<Result<_>>()?;
    drop(stage);
    let best = scored.iter().filter(|(_, (_, ok))| *ok).max_by(|a, b| {
        a.1 .0
            .total_cmp(&b.1 .0)
            .then_with(|| crate::framework::lattice::tie_order(&b.0, &a.0))
    });
    let optimum_fitness = best.map_or(0.0, |b| b.1 .0);
    Ok(GeneticReport {
        compared_with_optimum: true,
        optimum_levels: best.map(|b| b.0.clone()),
        optimum_fitness: Some(optimum_fitness),
        gap: Some(optimum_fitness - outcome.fitness),
        outcome,
    })
}

/// Runs the genetic algorithm on `problem`.
pub fn genetic(problem: &Problem, spec: &GeneticSpec) -> Result<GeneticOutcome> {
    genetic_observed(problem, spec, &Silent)
}

/// [`genetic`], reporting the generations done as a [`GENETIC`] stage and stopping with
/// [`Error::Cancelled`] when `observer` says so (it is asked before each node's fitness).
fn genetic_observed(
    problem: &Problem,
    spec: &GeneticSpec,
    observer: &dyn Observer,
) -> Result<GeneticOutcome> {
    spec.validate()
        .map_err(|(name, message)| ProblemError::Parameter {
            name: name.to_string(),
            message: message.to_string(),
        })?;
    let fitness = Fitness::new(problem)?;
    let sizes: Vec<u32> = problem
        .lattice
        .max_levels()
        .iter()
        .map(|&m| m as u32 + 1)
        .collect();
    let encoding = Encoding::new(sizes.clone());
    let stage = Stage::start(
        observer,
        GENETIC,
        Some((spec.generations as u64).saturating_add(1)),
    );
    let mut rng = ChaCha8Rng::seed_from_u64(spec.seed);
    let mut memo: FxHashMap<Vec<u8>, (f64, bool)> = FxHashMap::default();
    let evaluate = |population: &[Vec<bool>], memo: &mut FxHashMap<Vec<u8>, (f64, bool)>| {
        let nodes: Vec<Vec<u8>> = population.iter().map(|g| encoding.decode(g)).collect();
        let mut fresh: Vec<Vec<u8>> = nodes
            .iter()
            .filter(|n| !memo.contains_key(*n))
            .cloned()
            .collect();
        fresh.sort();
        fresh.dedup();
        let scored: Vec<(Vec<u8>, (f64, bool))> = fresh
            .into_par_iter()
            .map(|n| {
                stage.check()?;
                let f = fitness.of(&n);
                Ok((n, f))
            })
            .collect::<Result<_>>()?;
        memo.extend(scored);
        Ok::<_, Error>(nodes.iter().map(|n| memo[n]).collect::<Vec<_>>())
    };
    // initial population: uniformly random admissible nodes, encoded
    let mut population: Vec<Vec<bool>> = (0..spec.population)
        .map(|_| {
            let levels: Vec<u8> = sizes.iter().map(|&s| rng.gen_range(0..s) as u8).collect();
            encoding.encode(&levels)
        })
        .collect();
    let mut best: Option<(Vec<bool>, f64, bool)> = None;
    let mut history = Vec::with_capacity(spec.generations + 1);
    let n_genes = encoding.len();
    for generation in 0..=spec.generations {
        stage.check()?;
        let scores = evaluate(&population, &mut memo)?;
        stage.set(generation as u64 + 1);
        for (g, &(f, ok)) in population.iter().zip(&scores) {
            let better = match &best {
                None => true,
                Some((bg, bf, _)) => {
                    f > *bf || (f == *bf && encoding.decode(g) < encoding.decode(bg))
                }
            };
            if better {
                best = Some((g.clone(), f, ok));
            }
        }
        history.push(scores.iter().map(|s| s.0).fold(0.0, f64::max));
        if generation == spec.generations || n_genes == 0 {
            break;
        }
        // roulette-wheel selection of a mating pool
        let total: f64 = scores.iter().map(|s| s.0).sum();
        let pick = |rng: &mut ChaCha8Rng| -> usize {
            if total <= 0.0 {
                return rng.gen_range(0..population.len());
            }
            let mut x = rng.gen::<f64>() * total;
            for (i, s) in scores.iter().enumerate() {
                x -= s.0;
                if x < 0.0 {
                    return i;
                }
            }
            scores.iter().rposition(|s| s.0 > 0.0).unwrap_or(0)
        };
        let pool: Vec<Vec<bool>> = (0..spec.population)
            .map(|_| population[pick(&mut rng)].clone())
            .collect();
        let mut next = Vec::with_capacity(spec.population);
        for pair in pool.chunks(2) {
            let mut a = pair[0].clone();
            let mut b = pair.get(1).cloned().unwrap_or_else(|| pair[0].clone());
            if n_genes > 1 && rng.gen::<f64>() < spec.crossover_rate {
                let two = match spec.crossover {
                    Crossover::OnePoint => false,
                    Crossover::TwoPoint => true,
                    Crossover::Mixed => rng.gen::<bool>(),
                };
                let p = rng.gen_range(1..n_genes);
                if two {
                    let q = rng.gen_range(1..n_genes);
                    swap_segment(&mut a, &mut b, p.min(q), p.max(q));
                } else {
                    swap_segment(&mut a, &mut b, p, n_genes);
                }
            }
            for g in [&mut a, &mut b] {
                for bit in g.iter_mut() {
                    if rng.gen::<f64>() < spec.mutation_rate {
                        *bit = !*bit;
                    }
                }
                // repair: store the legal code the string decodes to
                *g = encoding.encode(&encoding.decode(g));
            }
            next.push(a);
            if next.len() < spec.population {
                next.push(b);
            }
        }
        population = next;
    }
    let (genes, fitness_value, acceptable) = best.expect("a non-empty population");
    Ok(GeneticOutcome {
        levels: encoding.decode(&genes),
        genes: bit_string(&genes),
        fitness: fitness_value,
        acceptable,
        nodes_evaluated: memo.len(),
        generations: spec.generations,
        seed: spec.seed,
        history,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn genes(s: &str) -> Vec<bool> {
        s.chars().map(|c| c == '1').collect()
    }

    /// Paper 000 section 4.3: 4, 6 and 5 admissible partitions need 2 + 3 + 3 bits;
    /// 01011010 is (mm/yy, d1d2***, I10) = codes (1, 3, 2); the one-point crossover after
    /// bit 3 of 01011010 and 00100101 yields (1, 0, 5) and (0, 7, 2), repaired to
    /// 01000000 and 00001010.
    #[test]
    fn paper_encoding_example() {
        let e = Encoding::new(vec![4, 6, 5]);
        assert_eq!(e.bits, vec![2, 3, 3]);
        assert_eq!(e.decode(&genes("01011010")), vec![1, 3, 2]);
        assert_eq!(bit_string(&e.encode(&[1, 3, 2])), "01011010");
        let (mut a, mut b) = (genes("01011010"), genes("00100101"));
        swap_segment(&mut a, &mut b, 3, 8);
        assert_eq!(bit_string(&a), "01000101");
        assert_eq!(bit_string(&b), "00111010");
        assert_eq!(e.raw(&a), vec![1, 0, 5]);
        assert_eq!(e.raw(&b), vec![0, 7, 2]);
        assert_eq!(bit_string(&e.encode(&e.decode(&a))), "01000000");
        assert_eq!(bit_string(&e.encode(&e.decode(&b))), "00001010");
    }

    /// Figure 8's two-point crossover: 010|0111|001 and 100|0100|111.
    #[test]
    fn two_point_crossover_of_figure_8() {
        let (mut a, mut b) = (genes("0100111001"), genes("1000100111"));
        swap_segment(&mut a, &mut b, 3, 7);
        assert_eq!(bit_string(&a), "0100100001");
        assert_eq!(bit_string(&b), "1000111111");
    }
}
