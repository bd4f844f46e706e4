//! Classes of evaluated nodes kept for later rollups: a search that jumps around the
//! lattice rolls each node up from the smallest cached node below it instead of from the
//! base.
//!
//! When full, the cache evicts the nodes least recently kept or used as a source, so nodes
//! many others sit above stay.
//!
//! A node far above its source (many level steps) is rolled up in two steps: first to the
//! node one level below it on every attribute that changes, which is kept, then to the
//! node. Searches evaluate nodes near each other, so the next ones start from that step
//! node instead of from the far source again. When nothing but the base (every distinct
//! tuple) lies below a node, the rollup goes through the step node whenever some attribute
//! rises more than one level. (It went through a hub, the node's fully generalized
//! attributes kept and the others at level 0; with many quasi-identifiers few hubs served
//! more than one node: on UCI Adult with 13, 1,726 distinct hubs for 1,856 nodes.)
//!
//! Every node a search rolls up lies at or above the problem's floor: the node whose each
//! level is the lowest at which that attribute alone does not fail (`Problem::floor`).
//! A node no kept node lies below is rolled up from the floor's classes, computed from
//! the base once, rather than from the base: with k = 5 and no suppression on Adult, search
//! 0.903 / 0.965 of the time at 8 / 9 quasi-identifiers.

use crate::algorithm::problem::{Evaluation, Problem};
use crate::framework::classes::{Classes, Pooled};
use crate::framework::lattice::is_generalization;
use crate::hierarchy::Hierarchy;
use crate::metric::Score;

/// Memory the cache may fill with classes (see [`Classes::bytes_per_class`]): a search
/// over many quasi-identifiers evaluates thousands of nodes far apart, and each rolled up
/// from the base instead of a kept node costs a pass over every distinct tuple.
const CACHE_BYTES: usize = 64 << 20;

/// Level steps between a node and its source from which the rollup goes through a kept
/// node just below (see the module docs). Measured on Adult and UCI Adult with 9, 11 and 13
/// quasi-identifiers: 8 read 10-27 % fewer source classes than none. With the cache
/// keeping unacceptable nodes only, 5 against 8 (core time, paired runs): DM 4-6 % faster
/// at 8 and 9, within 4 % either way at 11 to 13 quasi-identifiers and for Loss.
const FAR_STEPS: usize = 5;

/// Whether every node up to `max` packs into a `u128` ([`pack`]): at most 16 levels, each
/// below 128.
fn packs(max: &[u8]) -> bool {
    max.len() <= 16 && max.iter().all(|&l| l < 0x80)
}

/// `levels` a byte each (the caller has checked [`packs`]).
fn pack(levels: &[u8]) -> u128 {
    let mut bytes = [0u8; 16];
    bytes[..levels.len()].copy_from_slice(levels);
    u128::from_le_bytes(bytes)
}

/// Whether packed node `node` is at or above packed node `entry` on every level: each byte
/// of `node` with its top bit set, less `entry`'s byte (below 128), keeps that bit exactly
/// when it is at least `entry`'s, and never borrows from the next byte.
fn covers(node: u128, entry: u128) -> bool {
    const HIGH: u128 = u128::from_le_bytes([0x80; 16]);
    ((node | HIGH) - entry) & HIGH == HIGH
}

/// The cache (see the module docs).
pub(crate) struct ClassCache<'a> {
    problem: &'a Problem,
    hierarchies: Vec<&'a Hierarchy>,
    /// Cached nodes with their classes and when each was last used (a tick).
    entries: Vec<(Vec<u8>, Classes, u64)>,
    /// Each entry's levels a byte each (see [`pack`]), when every node of the lattice fits
    /// in 16 bytes below 128: [`source`](Self::source) then compares all levels at once.
    packed: Option<Vec<u128>>,
    tick: u64,
    /// Classes held, against `budget`.
    held: usize,
    budget: usize,
    /// Whether [`check`](Self::check) asks pair tables (see [`without_pair_tables`]).
    ///
    /// [`without_pair_tables`]: Self::without_pair_tables
    pairs: bool,
    /// Whether [`check`](Self::check) computes every pair table it asks (see
    /// [`with_every_pair_table`](Self::with_every_pair_table)), rather than stopping once
    /// they rarely reject.
    every_pair: bool,
    /// Pair tables computed, and nodes they rejected.
    pair_tables: usize,
    pair_rejections: usize,
    /// Nodes whose rollup stopped at too many classes.
    cut_short: usize,
    /// A node this many level steps or more above its source is rolled up through a
    /// node one step below it on each changed attribute ([`FAR_STEPS`]).
    far_steps: usize,
    /// The problem's floor ([`Problem::floor`]) when above the bottom, and its classes once
    /// a node above it was rolled up: the source, kept apart from the entries, of a node
    /// above it that no entry lies below.
    floor: Option<(Vec<u8>, Option<Classes>)>,
}

impl<'a> ClassCache<'a> {
    /// An empty cache for `problem`, holding up to four times the base's classes plus a
    /// million, or [`CACHE_BYTES`] of classes if that is more.
    pub(crate) fn new(problem: &'a Problem) -> ClassCache<'a> {
        let base = problem.snapshot.base();
        ClassCache {
            problem,
            hierarchies: problem.hierarchies(),
            entries: Vec::new(),
            packed: packs(problem.lattice.max_levels()).then(Vec::new),
            tick: 0,
            held: 0,
            budget: (4 * base.len() + 1_000_000).max(CACHE_BYTES / base.bytes_per_class()),
            pairs: true,
            every_pair: false,
            pair_tables: 0,
            pair_rejections: 0,
            cut_short: 0,
            far_steps: FAR_STEPS,
            floor: problem
                .floor()
                .filter(|f| problem.lattice.is_chain() && f.iter().any(|&l| l > 0))
                .map(|f| (f, None)),
        }
    }

    /// The cache with [`check`](Self::check) asking no pair tables
    /// ([`Problem::fails_in_pairs`]), only the single attributes. For the best-first
    /// search: it evaluates few nodes, each near a kept one, so its rollups are cheap, and
    /// a new pair of attributes costs a pass over every distinct tuple. Measured against
    /// the pair tables (core time, 15 paired runs, Loss): 0.95 and 0.85 for k = 5, 0 % at
    /// 8 and 9 quasi-identifiers, 0.96–0.98 with 1 % and 5 %, 0.98–0.99 at 11 to 13
    /// quasi-identifiers. The bottom-up search keeps them: DM at 9, 12 and 13
    /// quasi-identifiers took 1.04, 1.28 and 1.10 times as long without.
    pub(crate) fn without_pair_tables(mut self) -> Self {
        self.pairs = false;
        self
    }

    /// The cache with [`check`](Self::check) computing every pair table it asks, where by
    /// default it stops computing new ones after 32 once fewer than one in four rejected a
    /// node. For the bottom-up search, measured against the default (core time, 1 thread,
    /// DM, k = 5, 1 %): 0.986 and 0.965 of the time on Adult with 8 and 9
    /// quasi-identifiers, 0.914, 0.979 and 0.734 on UCI Adult with 11, 12 and 13. At 13,
    /// 319 tables rejected 178 nodes where 45 rejected 11, and the search evaluated 13,221
    /// nodes instead of 15,597 (docs/performance.md).
    pub(crate) fn with_every_pair_table(mut self) -> Self {
        self.every_pair = true;
        self
    }

    /// The classes of `levels` (a node of a product of chains), rolled up from the smallest
    /// cached node below it, or from the base.
    pub(crate) fn classes(&mut self, levels: &[u8]) -> Classes {
        Classes::clone(&self.classes_capped(levels, usize::MAX).expect("no cap"))
    }

    /// [`classes`](Self::classes), or `None` as soon as there are more than `cap`, in
    /// classes from the thread's pool: the caller copies them out only to keep them.
    fn classes_capped(&mut self, levels: &[u8], cap: usize) -> Option<Pooled> {
        let snapshot = &self.problem.snapshot;
        if !self.problem.lattice.is_chain() {
            // levels that are partitions need not nest (a higher level number is not
            // always coarser): every node from the base
            return snapshot.classes_capped_pooled(&self.hierarchies, levels, cap);
        }
        let bottom = vec![0u8; levels.len()];
        // from the base, through the step node whenever it is not the base itself
        let source = self.source(levels);
        // above the floor, rolled up once from the base, rather than from the base
        let floor = match (&mut self.floor, source) {
            (Some((floor, classes)), None) if is_generalization(levels, floor) => {
                if classes.is_none() {
                    *classes =
                        Some(snapshot.rollup(&self.hierarchies, snapshot.base(), &bottom, floor));
                }
                true
            }
            _ => false,
        };
        let (from_levels, from, far) = match (source, &self.floor) {
            (Some(i), _) => {
                self.tick += 1;
                self.entries[i].2 = self.tick;
                let (l, c, _) = &self.entries[i];
                (l.as_slice(), c, self.far_steps)
            }
            (None, Some((l, Some(c)))) if floor => (l.as_slice(), c, self.far_steps),
            _ => (bottom.as_slice(), snapshot.base(), 0),
        };
        let steps: usize = from_levels
            .iter()
            .zip(levels)
            .map(|(&a, &b)| (b - a) as usize)
            .sum();
        let changed = from_levels
            .iter()
            .zip(levels)
            .filter(|(a, b)| a != b)
            .count();
        // (when every changed attribute moves one level, the step node is the source)
        if steps < far || steps == changed {
            return if source.is_none() && !floor {
                snapshot.classes_capped_pooled(&self.hierarchies, levels, cap)
            } else {
                snapshot.rollup_capped_pooled(&self.hierarchies, from, from_levels, levels, cap)
            };
        }
        // far below: through the node one level below `levels` on every attribute that
        // changes, kept, which the nodes around this one can start from
        let step: Vec<u8> = from_levels
            .iter()
            .zip(levels)
            .map(|(&a, &b)| if b > a { b - 1 } else { b })
            .collect();
        let through = snapshot.rollup(&self.hierarchies, from, from_levels, &step);
        let classes =
            snapshot.rollup_capped_pooled(&self.hierarchies, &through, &step, levels, cap);
        self.keep(&step, through);
        classes
    }

    /// Checks node `levels` for a search: `None` when it fails for one attribute alone or
    /// (unless [`without_pair_tables`](Self::without_pair_tables)) for a pair (see
    /// [`Problem::fails_alone`] and [`Problem::fails_in_pairs`]; no
    /// classes are computed) or has more classes than an acceptable node can (the rollup
    /// stops there, and [`cut_short`](Self::cut_short) counts it), else its evaluation (as
    /// [`Problem::check`]) and the metric's class bound, keeping its classes when it is
    /// unacceptable.
    pub(crate) fn check(&mut self, levels: &[u8]) -> Option<(Evaluation, Option<Score>)> {
        if self.problem.fails_alone(levels) {
            return None;
        }
        if self.pairs {
            // pair tables pay while they reject; once they rarely do, only known ones are
            // asked (unless every table is to be computed)
            let compute = self.every_pair
                || self.pair_tables < 32
                || 4 * self.pair_rejections >= self.pair_tables;
            let (fails, computed) = self.problem.fails_in_pairs_with(levels, compute);
            self.pair_tables += computed;
            if fails {
                self.pair_rejections += 1;
                return None;
            }
        }
        let Some(classes) = self.classes_capped(levels, self.problem.max_classes()) else {
            self.cut_short += 1;
            return None;
        };
        let evaluation = self.problem.check(levels, &classes);
        let bound = self.problem.class_bound(&classes);
        // An acceptable node is seldom a source: the searches evaluate few nodes above
        // one (on Adult and UCI Adult, 2 of the 266, 645 and 522 acceptable nodes kept by
        // the DM searches at 9 and 11 quasi-identifiers and the 1 % Loss search at 9
        // were ever rolled up from), so its classes are not copied into the cache.
        if !evaluation.acceptable {
            // copied out at their exact size: the pooled vectors are sized for the source
            self.keep(levels, Classes::clone(&classes));
        }
        Some((evaluation, bound))
    }

    /// Nodes [`check`](Self::check) rejected part way through their rollup: their classes
    /// were mostly computed, so searches count them as evaluated.
    pub(crate) fn cut_short(&self) -> usize {
        self.cut_short
    }

    /// The smallest cached node below `levels`, by its place in `entries`.
    fn source(&self, levels: &[u8]) -> Option<usize> {
        if let Some(packed) = &self.packed {
            let node = pack(levels);
            return packed
                .iter()
                .enumerate()
                .filter(|&(_, &entry)| covers(node, entry))
                .min_by_key(|&(i, _)| self.entries[i].1.len())
                .map(|(i, _)| i);
        }
        self.entries
            .iter()
            .enumerate()
            .filter(|(_, (l, _, _))| is_generalization(levels, l))
            .min_by_key(|(_, (_, c, _))| c.len())
            .map(|(i, _)| i)
    }

    /// Keeps `classes` of `levels`, evicting the nodes least recently used (kept or used
    /// as a source) while the budget is exceeded.
    pub(crate) fn keep(&mut self, levels: &[u8], classes: Classes) {
        if classes.len() > self.budget {
            return;
        }
        if self.held + classes.len() > self.budget {
            // oldest use first; evict from the front
            self.entries.sort_by_key(|e| e.2);
            let mut drop = 0;
            while self.held + classes.len() > self.budget {
                self.held -= self.entries[drop].1.len();
                drop += 1;
            }
            self.entries.drain(..drop);
            if let Some(packed) = &mut self.packed {
                *packed = self.entries.iter().map(|(l, _, _)| pack(l)).collect();
            }
        }
        self.tick += 1;
        self.held += classes.len();
        self.entries.push((levels.to_vec(), classes, self.tick));
        if let Some(packed) = &mut self.packed {
            packed.push(pack(levels));
        }
    }
}

#[cfg(test)]
mod tests {
    use rand::seq::SliceRandom;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    use super::ClassCache;
    use crate::algorithm::problem::Problem;
    use crate::criteria::ModelSpec;
    use crate::framework::classes::Classes;
    use crate::framework::test_support::dataset;
    use crate::metric::MetricSpec;

    /// A problem on a random table: k-anonymity with k in 1..4, the given suppression limit.
    fn random_problem(rng: &mut ChaCha8Rng, limit: f64) -> Problem {
        let k = rng.gen_range(1..4);
        problem_with_k(rng, k, limit)
    }

    fn problem_with_k(rng: &mut ChaCha8Rng, k: u32, limit: f64) -> Problem {
        let data = dataset(rng);
        let models = [ModelSpec::KAnonymity { k }];
        Problem::new(data, &models, limit, &MetricSpec::default()).unwrap()
    }

    fn sorted_counts(classes: &Classes) -> Vec<u32> {
        let mut counts = classes.counts.clone();
        counts.sort_unstable();
        counts
    }

    /// The cache gives `levels` the classes and the verdict computed from the base.
    fn assert_exact(cache: &mut ClassCache<'_>, problem: &Problem, levels: &[u8]) {
        let want = problem.classes(levels);
        assert_eq!(sorted_counts(&cache.classes(levels)), sorted_counts(&want));
        if let Some((evaluation, _)) = cache.check(levels) {
            let direct = problem.check(levels, &want);
            assert_eq!(evaluation.acceptable, direct.acceptable);
            assert_eq!(evaluation.score, direct.score);
        }
    }

    /// The floor is exactly where the nodes that do not fail alone begin (every such node
    /// lies at or above it, and every node at or above it passes alone), and a cache that
    /// rolls nodes above it up from its classes gives each node, in random order, the
    /// classes and verdict computed from the base; its classes are computed once, on the
    /// first node above it.
    #[test]
    fn nodes_above_the_floor_roll_up_from_it_and_stay_exact() {
        let mut rng = ChaCha8Rng::seed_from_u64(29);
        let mut raised = 0;
        for _ in 0..60 {
            let k = rng.gen_range(2..5);
            let limit = [0.0, 0.02, 0.1][rng.gen_range(0..3)];
            let problem = problem_with_k(&mut rng, k, limit);
            let lattice = &problem.lattice;
            let floor = problem.floor();
            for i in 0..lattice.size() {
                let levels = lattice.levels(i);
                let above = floor
                    .as_ref()
                    .is_some_and(|f| crate::framework::lattice::is_generalization(&levels, f));
                assert_eq!(problem.fails_alone(&levels), !above, "{levels:?} {floor:?}");
            }
            let Some(floor) = floor else { continue };
            raised += usize::from(floor.iter().any(|&l| l > 0));
            let mut cache = ClassCache::new(&problem);
            let mut nodes: Vec<usize> = (0..lattice.size()).collect();
            nodes.shuffle(&mut rng);
            for &i in nodes.iter().take(40) {
                assert_exact(&mut cache, &problem, &lattice.levels(i));
                if let Some((f, classes)) = &cache.floor {
                    assert_eq!(f, &floor);
                    if let Some(classes) = classes {
                        assert_eq!(
                            sorted_counts(classes),
                            sorted_counts(&problem.classes(&floor))
                        );
                    }
                }
            }
        }
        assert!(raised >= 20, "{raised}");
    }

    /// A cache too small for what it is offered evicts, stays within its budget, and
    /// still gives every node the classes and verdict computed from the base.
    #[test]
    fn a_full_cache_evicts_and_stays_exact() {
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        let mut evictions = 0;
        for _ in 0..40 {
            // (many unacceptable nodes that pass the pair tables: `check` keeps those)
            let k = rng.gen_range(2..6);
            let problem = problem_with_k(&mut rng, k, 0.3);
            let mut cache = ClassCache::new(&problem);
            cache.budget = problem.snapshot.base().len() / 2 + 1;
            let mut evicted = false;
            for _ in 0..30 {
                let levels = problem
                    .lattice
                    .levels(rng.gen_range(0..problem.lattice.size()));
                let oldest = cache.entries.first().map(|(l, _, _)| l.clone());
                assert_exact(&mut cache, &problem, &levels);
                evicted |=
                    oldest.is_some() && cache.entries.first().map(|(l, _, _)| l) != oldest.as_ref();
                assert!(cache.held <= cache.budget);
                assert_eq!(
                    cache.held,
                    cache.entries.iter().map(|(_, c, _)| c.len()).sum::<usize>()
                );
            }
            evictions += evicted as usize;
        }
        assert!(evictions > 10, "{evictions}");
    }

    /// `check` keeps the classes of an unacceptable node, the source of the nodes above it,
    /// and not those of an acceptable one.
    #[test]
    fn check_keeps_unacceptable_nodes_only() {
        let mut rng = ChaCha8Rng::seed_from_u64(17);
        let (mut kept, mut passed_over) = (0, 0);
        for _ in 0..200 {
            let k = rng.gen_range(2..6);
            let problem = problem_with_k(&mut rng, k, 0.3);
            let mut cache = ClassCache::new(&problem);
            for i in 0..problem.lattice.size() {
                let levels = problem.lattice.levels(i);
                let held =
                    |cache: &ClassCache<'_>| cache.entries.iter().any(|(l, _, _)| *l == levels);
                // (a node kept before as a step node stays)
                if held(&cache) {
                    continue;
                }
                let Some((evaluation, _)) = cache.check(&levels) else {
                    continue;
                };
                assert_eq!(held(&cache), !evaluation.acceptable, "{levels:?}");
                if evaluation.acceptable {
                    passed_over += 1;
                } else {
                    kept += 1;
                }
            }
        }
        assert!(
            kept > 50 && passed_over > 50,
            "{kept} kept, {passed_over} passed over"
        );
    }

    /// The packed comparison the source search uses is `is_generalization`, on random
    /// nodes of 1 to 16 levels up to 127, equal and unequal levels included.
    #[test]
    fn packed_levels_compare_as_generalizations() {
        use super::{covers, pack, packs};
        use crate::framework::lattice::is_generalization;
        let mut rng = ChaCha8Rng::seed_from_u64(19);
        let (mut above, mut not) = (0, 0);
        for _ in 0..20_000 {
            let dims = rng.gen_range(1..=16);
            let top = [1u8, 3, 127][rng.gen_range(0..3)];
            let a: Vec<u8> = (0..dims).map(|_| rng.gen_range(0..=top)).collect();
            let b: Vec<u8> = if rng.gen_bool(0.5) {
                a.iter()
                    .map(|&x| x.saturating_sub(rng.gen_range(0..2)))
                    .collect()
            } else {
                (0..dims).map(|_| rng.gen_range(0..=top)).collect()
            };
            assert!(packs(&a) && packs(&b));
            let want = is_generalization(&a, &b);
            assert_eq!(covers(pack(&a), pack(&b)), want, "{a:?} {b:?}");
            if want {
                above += 1;
            } else {
                not += 1;
            }
        }
        assert!(above > 5_000 && not > 5_000, "{above} {not}");
        assert!(!packs(&[0; 17]) && !packs(&[128]) && packs(&[127; 16]));
    }

    /// A node far above its source is rolled up through a kept step node: the classes and
    /// verdicts are those computed from the base, and the step node is kept.
    #[test]
    fn far_nodes_go_through_a_kept_step_node_and_stay_exact() {
        let mut rng = ChaCha8Rng::seed_from_u64(14);
        let mut stepped = 0;
        for _ in 0..60 {
            let problem = random_problem(&mut rng, 0.1);
            let mut cache = ClassCache::new(&problem);
            cache.far_steps = rng.gen_range(1..4);
            let bottom = problem.lattice.bottom();
            cache.keep(&bottom, problem.snapshot.base().clone());
            for _ in 0..10 {
                let levels = problem
                    .lattice
                    .levels(rng.gen_range(0..problem.lattice.size()));
                let kept = cache.entries.len();
                let far = {
                    let (source, _, _) = &cache.entries[cache.source(&levels).unwrap()];
                    let steps: usize = source
                        .iter()
                        .zip(&levels)
                        .map(|(&a, &b)| (b - a) as usize)
                        .sum();
                    let changed = source.iter().zip(&levels).filter(|(a, b)| a != b).count();
                    steps >= cache.far_steps && steps > changed
                };
                assert_exact(&mut cache, &problem, &levels);
                if far {
                    // the step node is kept, with its own classes
                    let step: &Vec<u8> = &cache.entries[kept].0;
                    assert_ne!(step, &levels);
                    assert!(step
                        .iter()
                        .zip(&levels)
                        .all(|(&s, &l)| s + 1 >= l && s <= l));
                    assert_eq!(
                        sorted_counts(&cache.entries[kept].1),
                        sorted_counts(&problem.classes(step))
                    );
                    stepped += 1;
                }
            }
        }
        assert!(stepped > 50, "{stepped}");
    }

    /// With nothing cached below it, a node is rolled up from the base, through a kept step
    /// node when some attribute rises more than one level: the classes and verdicts are
    /// those computed from the base directly. (k = 1: no attribute fails alone, so there
    /// is no floor to start from; see nodes_above_the_floor_roll_up_from_it_and_stay_exact.)
    #[test]
    fn nodes_above_the_base_alone_go_through_a_kept_step_node_and_stay_exact() {
        let mut rng = ChaCha8Rng::seed_from_u64(15);
        let mut stepped = 0;
        for _ in 0..60 {
            let problem = problem_with_k(&mut rng, 1, 0.1);
            assert!(problem.floor().is_none());
            let levels = problem
                .lattice
                .levels(rng.gen_range(0..problem.lattice.size()));
            let mut cache = ClassCache::new(&problem);
            assert_exact(&mut cache, &problem, &levels);
            if levels.iter().any(|&l| l > 1) {
                let step: Vec<u8> = levels.iter().map(|&l| l.saturating_sub(1)).collect();
                let kept: Vec<&Vec<u8>> = cache.entries.iter().map(|(l, _, _)| l).collect();
                assert_eq!(kept[0], &step, "{levels:?}");
                assert_eq!(
                    sorted_counts(&cache.entries[0].1),
                    sorted_counts(&problem.classes(&step))
                );
                stepped += 1;
            } else {
                // every attribute rises one level at most: straight from the base
                assert!(cache.entries.len() <= 1);
                assert!(cache.entries.iter().all(|(l, _, _)| l == &levels));
            }
        }
        assert!(stepped > 20, "{stepped}");
    }

    /// Regression: on a lattice of partitions that do not nest (paper 000's blood types),
    /// a node numerically above a cached one is not always a generalization of it, and
    /// rolling up from it merged rows of different classes. Every node, asked in random
    /// orders with everything kept, gets the classes computed from the base.
    #[test]
    fn partitions_that_do_not_nest_are_rolled_up_from_the_base() {
        use crate::data::table::Table;
        use crate::data::Role;
        use crate::framework::dataset::Dataset;
        use crate::hierarchy::{Builder, Hierarchy};
        let mut rng = ChaCha8Rng::seed_from_u64(16);
        let spec = r#"
            kind = "partitions"
            partitions.split_ab = { "A|B" = ["A", "B"], "O|AB" = ["O", "AB"] }
            partitions.split_ao = { "A|O" = ["A", "O"], "B|AB" = ["B", "AB"] }
        "#;
        let types: Vec<String> = ["A", "B", "O", "AB"].map(String::from).to_vec();
        let blood = toml::from_str::<Builder>(spec)
            .unwrap()
            .build(&types, "c.toml", "k")
            .unwrap();
        let ages: Vec<Vec<String>> = (0..6)
            .map(|a| vec![format!("{a}"), format!("{}", a / 2), "*".into()])
            .collect();
        let age = Hierarchy::from_rows(&ages, std::path::Path::new("h"), None).unwrap();
        let mut checked = 0;
        for _ in 0..20 {
            let rows: Vec<Vec<String>> = (0..rng.gen_range(5..40))
                .map(|_| {
                    let t = &types[rng.gen_range(0..4)];
                    vec![t.clone(), format!("{}", rng.gen_range(0..6))]
                })
                .collect();
            let table = Table::from_rows(vec!["blood".into(), "age".into()], &rows).unwrap();
            let hierarchies = vec![(blood.clone(), "b".into()), (age.clone(), "a".into())];
            let roles = vec![Role::QuasiIdentifying; 2];
            let data = Dataset::new(table, roles, hierarchies, vec![]).unwrap();
            let models = [ModelSpec::KAnonymity { k: 2 }];
            let problem = Problem::new(data, &models, 0.2, &MetricSpec::default()).unwrap();
            assert!(!problem.lattice.is_chain());
            let mut cache = ClassCache::new(&problem);
            let mut nodes: Vec<usize> = (0..problem.lattice.size()).collect();
            nodes.sort_by_key(|_| rng.gen::<u32>());
            for i in nodes {
                let levels = problem.lattice.levels(i);
                let classes = cache.classes(&levels);
                assert_eq!(
                    sorted_counts(&classes),
                    sorted_counts(&problem.classes(&levels)),
                    "{levels:?}"
                );
                cache.keep(&levels, classes);
                checked += 1;
            }
        }
        assert!(checked > 100, "{checked}");
    }

    /// When full, the cache evicts the node least recently kept or used as a source: a node
    /// a rollup has just started from stays, an older one no rollup used goes.
    #[test]
    fn eviction_spares_the_source_used_last() {
        let mut rng = ChaCha8Rng::seed_from_u64(13);
        let mut checked = 0;
        for _ in 0..50 {
            let data = dataset(&mut rng);
            let models = [ModelSpec::KAnonymity { k: 1 }];
            let problem = Problem::new(data, &models, 0.0, &MetricSpec::default()).unwrap();
            let (lattice, bottom) = (&problem.lattice, problem.lattice.bottom());
            // two nodes one step above the bottom, on different attributes
            let steps: Vec<Vec<u8>> = (0..bottom.len())
                .filter(|&j| lattice.max_levels()[j] > 0)
                .map(|j| {
                    let mut node = bottom.clone();
                    node[j] = 1;
                    node
                })
                .collect();
            let [a, b, ..] = steps.as_slice() else {
                continue;
            };
            let (classes_a, classes_b) = (problem.classes(a), problem.classes(b));
            let mut cache = ClassCache::new(&problem);
            cache.budget = classes_a.len() + classes_b.len();
            cache.keep(a, classes_a.clone());
            cache.keep(b, classes_b);
            // `a` is the only cached node below itself: the rollup starts from it
            assert_eq!(sorted_counts(&cache.classes(a)), sorted_counts(&classes_a));
            let top = lattice.top();
            cache.keep(&top, problem.classes(&top));
            let kept: Vec<&Vec<u8>> = cache.entries.iter().map(|(l, _, _)| l).collect();
            assert_eq!(kept, [a, &top], "{a:?} {b:?}");
            checked += 1;
        }
        assert!(checked > 20, "{checked}");
    }

    /// No acceptable node has more classes than `max_classes`, and a capped rollup gives
    /// the classes exactly when there are no more than the cap.
    #[test]
    fn class_cap_is_sound_and_exact() {
        let mut rng = ChaCha8Rng::seed_from_u64(12);
        let mut capped = 0;
        for _ in 0..60 {
            let data = dataset(&mut rng);
            let models = [ModelSpec::KAnonymity {
                k: rng.gen_range(1..5),
            }];
            let limit = [0.0, 0.05, 0.3][rng.gen_range(0..3)];
            let problem = Problem::new(data, &models, limit, &MetricSpec::default()).unwrap();
            let hierarchies = problem.hierarchies();
            for i in 0..problem.lattice.size() {
                let levels = problem.lattice.levels(i);
                let classes = problem.classes(&levels);
                if problem.check(&levels, &classes).acceptable {
                    assert!(classes.len() <= problem.max_classes(), "{levels:?}");
                }
                let cap = rng.gen_range(0..classes.len() + 2);
                match problem.snapshot.classes_capped(&hierarchies, &levels, cap) {
                    Some(c) => {
                        assert!(c.len() <= cap);
                        assert_eq!(sorted_counts(&c), sorted_counts(&classes));
                    }
                    None => {
                        assert!(classes.len() > cap);
                        capped += 1;
                    }
                }
            }
        }
        assert!(capped > 50, "{capped}");
    }

    /// Once its pair tables rarely reject (here: a thousand computed, none rejecting), a
    /// cache computes no new one and rolls up a node that a new table would reject; with
    /// every pair table, it computes that table and rejects the node without a rollup.
    #[test]
    fn with_every_pair_table_new_tables_are_computed_after_the_default_stops() {
        let mut rng = ChaCha8Rng::seed_from_u64(20);
        let (mut rolled, mut rejected) = (0, 0);
        for _ in 0..60 {
            let k = rng.gen_range(2..6);
            let limit = [0.0, 0.05][rng.gen_range(0..2)];
            // three copies of one problem: each computes its own tables
            let start = rng.clone();
            let once = problem_with_k(&mut rng, k, limit);
            let twice = problem_with_k(&mut start.clone(), k, limit);
            let third = problem_with_k(&mut start.clone(), k, limit);
            let mut default = ClassCache::new(&once);
            let mut every = ClassCache::new(&twice).with_every_pair_table();
            for cache in [&mut default, &mut every] {
                cache.pair_tables = 1000;
            }
            for _ in 0..20 {
                let levels = once.lattice.levels(rng.gen_range(0..once.lattice.size()));
                let (d, e) = (default.check(&levels), every.check(&levels));
                // a node the pairs reject, judged by the third copy's tables
                let by_pairs = !once.fails_alone(&levels) && third.fails_in_pairs(&levels);
                if by_pairs {
                    assert!(e.is_none(), "{levels:?}");
                    rolled += d.is_some() as usize;
                    rejected += 1;
                } else {
                    assert_eq!(d.is_some(), e.is_some(), "{levels:?}");
                }
            }
        }
        assert!(rejected > 20 && rolled > 20, "{rejected} {rolled}");
    }

    /// Without pair tables, `check` computes none and rolls up the nodes a pair table
    /// rejects (then they are unacceptable, and not cut short or failing alone), with the
    /// verdict computed from the base; with them, the same node sequence meets rejections.
    #[test]
    fn without_pair_tables_every_node_past_the_single_attributes_is_rolled_up() {
        let mut rng = ChaCha8Rng::seed_from_u64(19);
        let (mut rejected, mut rolled_instead) = (0, 0);
        for _ in 0..60 {
            let k = rng.gen_range(2..6);
            let limit = [0.0, 0.05][rng.gen_range(0..2)];
            let problem = problem_with_k(&mut rng, k, limit);
            let mut with = ClassCache::new(&problem);
            let mut without = ClassCache::new(&problem).without_pair_tables();
            for _ in 0..20 {
                let levels = problem
                    .lattice
                    .levels(rng.gen_range(0..problem.lattice.size()));
                let by_pairs = with.check(&levels).is_none()
                    && !problem.fails_alone(&levels)
                    && problem.fails_in_pairs(&levels);
                let direct = problem.check(&levels, &problem.classes(&levels));
                match without.check(&levels) {
                    Some((evaluation, _)) => {
                        assert_eq!(evaluation.acceptable, direct.acceptable, "{levels:?}");
                        rolled_instead += by_pairs as usize;
                    }
                    None => assert!(!direct.acceptable, "{levels:?}"),
                }
                if by_pairs {
                    rejected += 1;
                    assert!(!direct.acceptable, "{levels:?}");
                }
            }
            assert_eq!(without.pair_tables, 0);
            assert_eq!(without.pair_rejections, 0);
        }
        assert!(
            rejected > 20 && rolled_instead > 20,
            "{rejected} {rolled_instead}"
        );
    }
}
