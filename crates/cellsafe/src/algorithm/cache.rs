//! Classes of evaluated nodes kept for later rollups: a search that jumps around the
//! lattice rolls each node up from the smallest cached node below it instead of from the
//! base.
//!
//! When nothing but the base lies below a node, its classes are rolled up in two steps
//! through a hub: the node with the same levels on the attributes it generalizes fully and
//! level 0 elsewhere. Searches guided by a metric generalize the same few attributes fully
//! in most nodes they visit, so one hub serves many of them and the base (every distinct
//! tuple) is rolled up rarely.

use crate::algorithm::problem::{Evaluation, Problem};
use crate::framework::classes::Classes;
use crate::framework::lattice::is_generalization;
use crate::hierarchy::Hierarchy;
use crate::metric::Score;

/// The cache (see the module docs).
pub(crate) struct ClassCache<'a> {
    problem: &'a Problem,
    hierarchies: Vec<&'a Hierarchy>,
    entries: Vec<(Vec<u8>, Classes)>,
    /// Classes held, against `budget`.
    held: usize,
    budget: usize,
    /// Pair tables computed, and nodes they rejected.
    pair_tables: usize,
    pair_rejections: usize,
}

impl<'a> ClassCache<'a> {
    /// An empty cache for `problem`, holding up to four times the base's classes plus a
    /// million.
    pub(crate) fn new(problem: &'a Problem) -> ClassCache<'a> {
        ClassCache {
            problem,
            hierarchies: problem.hierarchies(),
            entries: Vec::new(),
            held: 0,
            budget: 4 * problem.snapshot.base().len() + 1_000_000,
            pair_tables: 0,
            pair_rejections: 0,
        }
    }

    /// The classes of `levels` (a node of a product of chains), rolled up from the smallest
    /// cached node below it, or through a hub.
    pub(crate) fn classes(&mut self, levels: &[u8]) -> Classes {
        if let Some((l, c)) = self.source(levels) {
            return self
                .problem
                .snapshot
                .rollup(&self.hierarchies, c, l, levels);
        }
        let max = self.problem.lattice.max_levels();
        let hub: Vec<u8> = levels
            .iter()
            .zip(max)
            .map(|(&l, &m)| if l == m { l } else { 0 })
            .collect();
        if hub == levels || hub.iter().all(|&l| l == 0) {
            return self.problem.classes(levels);
        }
        let through = self.problem.classes(&hub);
        let classes = self
            .problem
            .snapshot
            .rollup(&self.hierarchies, &through, &hub, levels);
        self.keep(&hub, through);
        classes
    }

    /// Checks node `levels` for a search: `None` when it fails for one attribute alone or
    /// for a pair (see [`Problem::fails_alone`] and [`Problem::fails_in_pairs`]; no
    /// classes are computed), else its evaluation (as
    /// [`Problem::check`]) and the metric's class bound, keeping its classes.
    pub(crate) fn check(&mut self, levels: &[u8]) -> Option<(Evaluation, Option<Score>)> {
        if self.problem.fails_alone(levels) {
            return None;
        }
        // pair tables pay while they reject; once they rarely do, only known ones are asked
        let compute = self.pair_tables < 32 || 4 * self.pair_rejections >= self.pair_tables;
        let (fails, computed) = self.problem.fails_in_pairs_with(levels, compute);
        self.pair_tables += computed;
        if fails {
            self.pair_rejections += 1;
            return None;
        }
        let classes = self.classes(levels);
        let evaluation = self.problem.check(levels, &classes);
        let bound = self.problem.metric.class_bound(&classes);
        self.keep(levels, classes);
        Some((evaluation, bound))
    }

    /// The smallest cached node below `levels`, with its classes.
    fn source(&self, levels: &[u8]) -> Option<(&[u8], &Classes)> {
        self.entries
            .iter()
            .filter(|(l, _)| is_generalization(levels, l))
            .min_by_key(|(_, c)| c.len())
            .map(|(l, c)| (l.as_slice(), c))
    }

    /// Keeps `classes` of `levels` while the budget allows.
    pub(crate) fn keep(&mut self, levels: &[u8], classes: Classes) {
        if classes.len() > self.budget {
            return;
        }
        let mut drop = 0;
        while self.held + classes.len() > self.budget {
            self.held -= self.entries[drop].1.len();
            drop += 1;
        }
        self.entries.drain(..drop);
        self.held += classes.len();
        self.entries.push((levels.to_vec(), classes));
    }
}

#[cfg(test)]
mod tests {
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    use super::ClassCache;
    use crate::algorithm::problem::Problem;
    use crate::criteria::ModelSpec;
    use crate::framework::classes::Classes;
    use crate::metric::MetricSpec;
    use crate::test_support::dataset;

    fn sorted_counts(classes: &Classes) -> Vec<u32> {
        let mut counts = classes.counts.clone();
        counts.sort_unstable();
        counts
    }

    /// A cache too small for what it is offered evicts, stays within its budget, and
    /// still gives every node the classes and verdict computed from the base.
    #[test]
    fn a_full_cache_evicts_and_stays_exact() {
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        let mut evictions = 0;
        for _ in 0..40 {
            let data = dataset(&mut rng);
            let models = [ModelSpec::KAnonymity {
                k: rng.gen_range(1..4),
            }];
            let problem = Problem::new(data, &models, 0.2, &MetricSpec::default()).unwrap();
            let mut cache = ClassCache::new(&problem);
            cache.budget = problem.snapshot.base().len() / 2 + 1;
            let mut evicted = false;
            for _ in 0..30 {
                let levels = problem
                    .lattice
                    .levels(rng.gen_range(0..problem.lattice.size()));
                let oldest = cache.entries.first().map(|(l, _)| l.clone());
                let want = problem.classes(&levels);
                assert_eq!(sorted_counts(&cache.classes(&levels)), sorted_counts(&want));
                if let Some((evaluation, _)) = cache.check(&levels) {
                    let direct = problem.check(&levels, &want);
                    assert_eq!(evaluation.acceptable, direct.acceptable);
                    assert_eq!(evaluation.score, direct.score);
                }
                evicted |=
                    oldest.is_some() && cache.entries.first().map(|(l, _)| l) != oldest.as_ref();
                assert!(cache.held <= cache.budget);
                assert_eq!(
                    cache.held,
                    cache.entries.iter().map(|(_, c)| c.len()).sum::<usize>()
                );
            }
            evictions += evicted as usize;
        }
        assert!(evictions > 10, "{evictions}");
    }
}
