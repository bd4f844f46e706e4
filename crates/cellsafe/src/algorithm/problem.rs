//! A prepared anonymization problem: dataset, privacy models, suppression limit, metric,
//! lattice, and the snapshot every node's classes are rolled up from.

use std::sync::Mutex;

use rustc_hash::FxHashMap;
use serde::Serialize;
use serde_json::{Map, Value};

use crate::criteria::presence::{unshown_stay_ambiguous, UnshownRule};
use crate::criteria::{DeltaPresence, Model, ModelSpec, PresenceCounts};
use crate::error::{DatasetError, Error, ProblemError, Result};
use crate::framework::classes::{Classes, Snapshot};
use crate::framework::dataset::{Dataset, QuasiIdentifier};
use crate::framework::lattice::{Lattice, LevelOrder};
use crate::hierarchy::Hierarchy;
use crate::metric::{Metric, MetricSpec, Score};

/// The largest lattice the searches accept (they keep per-node state).
pub(crate) const MAX_LATTICE: usize = 50_000_000;

/// How the rows to suppress are chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum SuppressionRule {
    /// ARX's: every class that violates a model is suppressed, and the transformation is
    /// acceptable when those rows stay within the limit. With models that read sensitive
    /// values (l, t, δ, β), which rows are suppressed then depends on those values.
    Violating,
    /// From public information only: every class smaller than a threshold, the largest
    /// whose classes fit within the limit together; the transformation is acceptable when
    /// every released class and the pool of suppressed rows satisfy every model. Used
    /// whenever a model reads confidential values to protect them (logical safety,
    /// confidential values), so that the fact of suppression tells nothing about them.
    Smallest,
}

/// Which classes a transformation suppresses, and whether what it releases is acceptable.
#[derive(Debug, Clone)]
struct Suppression {
    /// Per class: whether it is suppressed.
    suppressed: Vec<bool>,
    /// Rows in the suppressed classes.
    rows: u64,
    /// Whether the transformation is acceptable with these classes suppressed.
    holds: bool,
}

fn suppressed_rows(classes: &Classes, suppressed: &[bool]) -> u64 {
    classes
        .counts
        .iter()
        .zip(suppressed)
        .filter(|(_, &s)| s)
        .map(|(&c, _)| c as u64)
        .sum()
}

/// The largest `t` such that the classes smaller than `t` hold at most `budget` rows
/// together (1 when even the smallest classes do not fit: nothing is suppressed).
pub(crate) fn smallest_threshold(counts: &[u32], budget: u64) -> u32 {
    let mut small: Vec<u32> = counts
        .iter()
        .copied()
        .filter(|&c| c as u64 <= budget)
        .collect();
    small.sort_unstable();
    let mut threshold = 1;
    let mut total = 0u64;
    let mut i = 0;
    while i < small.len() {
        let size = small[i];
        let mut j = i;
        while j < small.len() && small[j] == size {
            total += size as u64;
            j += 1;
        }
        if total > budget {
            break;
        }
        threshold = size + 1;
        i = j;
    }
    threshold
}

/// The outcome of checking one transformation.
#[derive(Debug, Clone, Serialize)]
pub struct Evaluation {
    /// 0-based level of each quasi-identifier, in header order.
    pub levels: Vec<u8>,
    /// Equivalence classes, suppressed ones included.
    pub classes: usize,
    /// Classes suppressed.
    pub(crate) suppressed_classes: usize,
    /// Rows in the suppressed classes.
    pub suppressed_rows: u64,
    /// Suppressed rows within the limit (every remaining class satisfies every model).
    pub acceptable: bool,
    /// The metric's score of the transformation with those classes suppressed.
    pub score: Score,
}

impl Evaluation {
    /// A node rejected without computing its classes (see [`Problem::fails_alone`]).
    pub(crate) fn rejected(levels: &[u8]) -> Evaluation {
        Evaluation {
            levels: levels.to_vec(),
            classes: 0,
            suppressed_classes: 0,
            suppressed_rows: 0,
            acceptable: false,
            score: Score::scalar(f64::INFINITY),
        }
    }
}

/// Everything the searches need, prepared once.
#[derive(Debug)]
pub struct Problem {
    /// The input with its roles resolved.
    pub data: Dataset,
    /// The privacy models, bound to `data`.
    pub models: Vec<Model>,
    /// Suppression limit as a fraction of rows.
    pub suppression_limit: f64,
    /// ⌊limit · N⌋.
    pub max_suppressed: u64,
    /// The utility metric, bound to `data`.
    pub(crate) metric: Metric,
    /// The lattice of transformations.
    pub lattice: Lattice,
    /// The distinct level-0 quasi-identifier tuples every rollup starts from.
    pub snapshot: Snapshot,
    /// How the rows to suppress are chosen.
    pub(crate) rule: SuppressionRule,
    /// `small_rows[j][level]`: rows whose value of quasi-identifier `j` at `level` is
    /// shared by fewer than k rows (empty without a k above 1). Those rows lie in classes
    /// smaller than k at every node with that level, whatever the other attributes.
    small_rows: Vec<Vec<u64>>,
    /// The most classes an acceptable node can have: at most N/k classes of k rows or
    /// more, and at most as many smaller (suppressed) ones as rows may be suppressed.
    max_classes: usize,
    /// The same for pairs of quasi-identifiers, computed on demand:
    /// `(j1, level1, j2, level2)` → rows in pair groups smaller than k.
    small_pairs: Mutex<PairTables>,
    /// The persons of set-based safety tests, by type (computed on first use).
    pub(crate) persons: std::sync::OnceLock<std::sync::Arc<crate::algorithm::setbased::Persons>>,
}

/// Largest grid of leaf pairs [`Problem::fails_in_pairs`] counts in (cells).
const PAIR_GRID_MAX: usize = 1 << 22;

/// The distinct (leaf of one attribute, leaf of another) pairs with their rows.
type LeafPairs = Vec<(u32, u32, u64)>;

/// What [`Problem::fails_in_pairs`] has computed so far.
#[derive(Debug, Default)]
struct PairTables {
    /// `(j1, j2)` → the distinct (leaf of j1, leaf of j2) pairs with their rows.
    leaves: FxHashMap<(u8, u8), LeafPairs>,
    /// `(j1, level1, j2, level2)` → rows in pair groups smaller than k.
    counts: FxHashMap<(u8, u8, u8, u8), u64>,
}

impl Problem {
    /// Binds models and metric to `data`. Errors name the model or metric at fault;
    /// the config layer turns them into key errors.
    pub fn new(
        data: Dataset,
        models: &[ModelSpec],
        suppression_limit: f64,
        metric: &MetricSpec,
    ) -> Result<Problem> {
        if !(0.0..=1.0).contains(&suppression_limit) {
            return Err(ProblemError::SuppressionLimit(suppression_limit).into());
        }
        if data.quasi.is_empty() {
            return Err(ProblemError::NoQuasiIdentifier.into());
        }
        if data.rows() == 0 {
            return Err(ProblemError::NoRows(data.table.source().to_path_buf()).into());
        }
        if data.weights.is_some() {
            // `with_weights` refuses these; a dataset's fields are public to the crate
            if data.confidentiality.is_some() {
                return Err(DatasetError::WeightedUnsupported("logical safety ([safety])").into());
            }
            // a frequency set's subset has its population weighted too
            if data
                .population
                .as_ref()
                .is_some_and(|p| p.weights.is_none())
            {
                return Err(DatasetError::WeightedUnsupported("δ-presence").into());
            }
        }
        let size = data
            .max_levels()
            .iter()
            .try_fold(1usize, |acc, &m| acc.checked_mul(m as usize + 1));
        if size.is_none_or(|n| n > MAX_LATTICE) {
            return Err(ProblemError::LatticeTooLarge(MAX_LATTICE).into());
        }
        let models = models
            .iter()
            .map(|m| Model::bind(m, &data).map_err(Error::from))
            .collect::<Result<Vec<_>>>()?;
        let metric = Metric::bind(metric, &data)?;
        let hierarchies = data.hierarchies();
        let leaves: Vec<&[u32]> = data.quasi.iter().map(|q| q.leaves.as_slice()).collect();
        let sensitive: Vec<(&[u32], usize)> = data
            .sensitive
            .iter()
            .map(|s| (s.codes.as_slice(), s.values.len()))
            .chain(
                data.confidentiality
                    .as_ref()
                    .map(|c| (c.profiles.of_row.as_slice(), c.profiles.len())),
            )
            .collect();
        let snapshot = Snapshot::build(
            &hierarchies,
            &leaves,
            &sensitive,
            data.rows(),
            data.weights(),
        )?;
        let mut order: Vec<usize> = (0..data.quasi.len()).collect();
        order.sort_by_key(|&j| data.table.dictionary(data.quasi[j].column).len());
        let orders = hierarchies
            .iter()
            .map(|h| LevelOrder {
                refines: (0..h.levels())
                    .map(|a| (0..h.levels()).map(|b| h.refines(a, b)).collect())
                    .collect(),
                covers: (0..h.levels()).map(|a| h.successors(a).to_vec()).collect(),
            })
            .collect();
        // Flash's paths raise the attribute with the most levels first (each step
        // generalizes it least relative to its height, as ARX's strategy orders successors),
        // then the one with more leaves
        let max = data.max_levels();
        let mut path_order: Vec<usize> = (0..data.quasi.len()).collect();
        path_order.sort_by_key(|&j| {
            (
                std::cmp::Reverse(max[j]),
                std::cmp::Reverse(hierarchies[j].leaf_count()),
            )
        });
        let lattice = Lattice::new(max)
            .with_tree_order(order)
            .with_path_order(path_order)
            .with_orders(orders);
        if let Some(p) = models.iter().find(|m| m.presence().is_some()) {
            if let Some(m) = models
                .iter()
                .find(|m| m.suppresses_smallest() || m.sample_based().is_some())
            {
                return Err(ProblemError::PresenceCombined {
                    presence: p.spec.name(),
                    other: m.spec.name(),
                }
                .into());
            }
        }
        let max_suppressed = (suppression_limit * data.persons() as f64).floor() as u64;
        let rule = if models.iter().any(|m| m.suppresses_smallest()) {
            SuppressionRule::Smallest
        } else {
            SuppressionRule::Violating
        };
        let k = models
            .iter()
            .filter_map(|m| m.min_class_size())
            .max()
            .unwrap_or(1);
        let small_rows = if k > 1 {
            data.quasi
                .iter()
                .map(|q| {
                    let (h, leaf_rows) = (&q.hierarchy, &q.leaf_rows);
                    (0..h.levels())
                        .map(|level| {
                            let mut group_rows = vec![0u64; h.cardinality(level)];
                            for (leaf, &n) in leaf_rows.iter().enumerate() {
                                group_rows[h.code(level, leaf as u32) as usize] += n;
                            }
                            group_rows.iter().filter(|&&n| n < k as u64).sum()
                        })
                        .collect()
                })
                .collect()
        } else {
            Vec::new()
        };
        let max_classes =
            ((data.persons() / k as u64) as usize).saturating_add(max_suppressed as usize);
        Ok(Problem {
            rule,
            small_rows,
            max_classes,
            small_pairs: Mutex::new(PairTables::default()),
            persons: Default::default(),
            data,
            models,
            suppression_limit,
            max_suppressed,
            metric,
            lattice,
            snapshot,
        })
    }

    /// Suppresses, instead of the limit's rule, the smallest classes within `rows` rows
    /// (paper 003's budget η, as [`crate::algorithm::pareto::objective::Evaluator`] does):
    /// every class of a size whose classes, with all smaller ones, hold at most `rows` rows.
    pub(crate) fn suppress_smallest_within(&mut self, rows: u64) {
        self.rule = SuppressionRule::Smallest;
        self.max_suppressed = rows;
        self.suppression_limit = rows as f64 / self.data.persons() as f64;
        self.max_classes = ((self.data.persons() / self.min_class_size() as u64) as usize)
            .saturating_add(rows as usize);
    }

    /// Each quasi-identifier's hierarchy, in header order.
    pub fn hierarchies(&self) -> Vec<&Hierarchy> {
        self.data.hierarchies()
    }

    /// Each quasi-identifier with its level in `levels`.
    pub(crate) fn quasi_at<'s>(
        &'s self,
        levels: &'s [u8],
    ) -> impl Iterator<Item = (&'s QuasiIdentifier, usize)> + 's {
        self.data
            .quasi
            .iter()
            .zip(levels)
            .map(|(q, &l)| (q, l as usize))
    }

    /// Whether `levels` is unacceptable for one attribute alone: some quasi-identifier's
    /// values at its level leave more rows in groups smaller than k than may be
    /// suppressed. Such rows are in classes smaller than k at this node, which either rule
    /// must suppress or release, so the node fails without computing its classes.
    pub fn fails_alone(&self, levels: &[u8]) -> bool {
        self.small_rows
            .iter()
            .zip(levels)
            .any(|(small, &l)| small[l as usize] > self.max_suppressed)
    }

    /// The lowest node every node that does not [`fail alone`](Self::fails_alone) lies at or
    /// above: per attribute, its lowest level that leaves no more rows in groups smaller
    /// than k than may be suppressed (those rows only lessen as the level rises, groups
    /// merging). None when every node fails alone, or when none does (no k above 1).
    pub(crate) fn floor(&self) -> Option<Vec<u8>> {
        if self.small_rows.is_empty() {
            return None;
        }
        self.small_rows
            .iter()
            .map(|small| {
                let level = small.iter().position(|&rows| rows <= self.max_suppressed)?;
                u8::try_from(level).ok()
            })
            .collect()
    }

    /// [`fails_alone`](Self::fails_alone) for pairs of attributes: whether the values of
    /// two quasi-identifiers together, at their levels in `levels`, leave more rows in
    /// groups smaller than k than may be suppressed. Only the pairs most likely to fail
    /// are tried (the attributes with the most groups at their levels), each computed once
    /// from the distinct tuples and kept.
    pub fn fails_in_pairs(&self, levels: &[u8]) -> bool {
        self.fails_in_pairs_with(levels, true).0
    }

    /// [`fails_in_pairs`](Self::fails_in_pairs); with `compute` false only tables computed
    /// before are asked (a search stops computing new ones when they rarely reject).
    /// Returns the verdict and how many tables were computed.
    pub(crate) fn fails_in_pairs_with(&self, levels: &[u8], compute: bool) -> (bool, usize) {
        const PAIRS: [(usize, usize); 3] = [(0, 1), (0, 2), (1, 2)];
        if self.small_rows.is_empty() || levels.len() < 2 {
            return (false, 0);
        }
        let mut by_groups: Vec<usize> = (0..levels.len()).collect();
        let groups = |j: usize| self.data.quasi[j].hierarchy.cardinality(levels[j] as usize);
        by_groups.sort_by_key(|&j| std::cmp::Reverse(groups(j)));
        let mut computed = 0;
        for &(a, b) in PAIRS.iter().filter(|&&(_, b)| b < by_groups.len()) {
            let (j1, j2) = (
                by_groups[a].min(by_groups[b]),
                by_groups[a].max(by_groups[b]),
            );
            let small = match self.pair_small_rows(j1, levels[j1], j2, levels[j2], compute) {
                Some((small, new)) => {
                    computed += new as usize;
                    small
                }
                None => continue,
            };
            if small > self.max_suppressed {
                return (true, computed);
            }
        }
        (false, computed)
    }

    /// Rows whose values of quasi-identifiers `j1` at `l1` and `j2` at `l2` are shared by
    /// fewer than k rows (memoized; computed from the pair's distinct leaf pairs, which are
    /// found once per pair from the distinct tuples).
    /// Returns the count and whether it was computed now; `None` when it is not known and
    /// `compute` is false.
    fn pair_small_rows(
        &self,
        j1: usize,
        l1: u8,
        j2: usize,
        l2: u8,
        compute: bool,
    ) -> Option<(u64, bool)> {
        let key = (j1 as u8, l1, j2 as u8, l2);
        let mut memo = self.small_pairs.lock().expect("pair table lock");
        if let Some(&n) = memo.counts.get(&key) {
            return Some((n, false));
        }
        if !compute {
            return None;
        }
        let (h1, h2) = (
            &self.data.quasi[j1].hierarchy,
            &self.data.quasi[j2].hierarchy,
        );
        // a dense grid of leaf pairs; too large a one is not worth it: no verdict
        if h1
            .leaf_count()
            .checked_mul(h2.leaf_count())
            .is_none_or(|cells| cells > PAIR_GRID_MAX)
        {
            memo.counts.insert(key, 0);
            return Some((0, true));
        }
        let leaves = memo.leaves.entry((j1 as u8, j2 as u8)).or_insert_with(|| {
            let width = h2.leaf_count();
            let mut grid = vec![0u64; h1.leaf_count() * width];
            let base = self.snapshot.base();
            let (c1, c2) = (self.snapshot.column(j1), self.snapshot.column(j2));
            for t in 0..base.len() {
                let rep = base.reps()[t] as usize;
                grid[c1[rep] as usize * width + c2[rep] as usize] += base.counts[t] as u64;
            }
            grid.iter()
                .enumerate()
                .filter(|(_, &n)| n > 0)
                .map(|(i, &n)| ((i / width) as u32, (i % width) as u32, n))
                .collect()
        });
        let k = self.min_class_size() as u64;
        let width = h2.cardinality(l2 as usize);
        let mut grid = vec![0u64; h1.cardinality(l1 as usize) * width];
        for &(a, b, n) in leaves.iter() {
            let g1 = h1.code(l1 as usize, a) as usize;
            let g2 = h2.code(l2 as usize, b) as usize;
            grid[g1 * width + g2] += n;
        }
        let n = grid.iter().filter(|&&n| n < k).sum();
        memo.counts.insert(key, n);
        Some((n, true))
    }

    /// Checks that `levels` is a node of the lattice.
    pub fn check_levels(&self, levels: &[u8]) -> Result<()> {
        if !self.lattice.contains(levels) {
            return Err(ProblemError::Levels {
                levels: levels.to_vec(),
                dimensions: self.lattice.dimensions(),
                maxima: self.lattice.max_levels().to_vec(),
                names: self.data.quasi.iter().map(|q| q.name.clone()).collect(),
            }
            .into());
        }
        Ok(())
    }

    /// The classes of `levels`, rolled up from the base.
    pub fn classes(&self, levels: &[u8]) -> Classes {
        self.snapshot.classes(&self.hierarchies(), levels)
    }

    /// More classes than this mean the node is unacceptable (see `max_classes`): rollups
    /// for a verdict may stop there.
    pub(crate) fn max_classes(&self) -> usize {
        self.max_classes
    }

    /// Which classes of node `levels` are suppressed (see [`SuppressionRule`]), the
    /// risk-based models enforced after the class-based ones.
    pub(crate) fn suppressed(&self, levels: &[u8], classes: &Classes) -> Vec<bool> {
        let presence = self.presence_counts(levels, classes);
        let Suppression {
            mut suppressed,
            holds,
            ..
        } = self.suppression_until(classes, false, presence.as_ref());
        if holds {
            self.enforce_sample_based(levels, classes, &mut suppressed);
        }
        suppressed
    }

    /// The δ-presence models of the problem (all compare with the same population).
    pub(crate) fn presence_models(&self) -> impl Iterator<Item = &DeltaPresence> + '_ {
        self.models.iter().filter_map(|m| m.presence())
    }

    /// The population's counts for the classes of node `levels`, when a δ-presence model
    /// needs them.
    pub fn presence_counts(&self, levels: &[u8], classes: &Classes) -> Option<PresenceCounts> {
        self.presence_models()
            .next()
            .map(|p| p.counts(&self.hierarchies(), levels, classes))
    }

    /// Whether class `c` of `classes` satisfies every δ-presence model.
    fn presence_holds(&self, classes: &Classes, c: usize, counts: &PresenceCounts) -> bool {
        self.presence_models()
            .all(|p| p.holds_counts(classes.counts[c], counts.pcounts[c]))
    }

    /// Whether what the recipient sees of the population satisfies every δ-presence model
    /// beyond the released classes: the population classes with no subset row (δ = 0,
    /// which no suppression changes), and the pool of suppressed rows. Suppression takes
    /// whole classes, so the recipient knows the suppressed rows come from the population
    /// classes that show no released row: their share of those classes' population must
    /// lie within the bounds too, or a recipient learns by elimination who is in the
    /// subset (ARX checks neither the pool nor, beside k-anonymity, the empty classes).
    /// And since the recipient knows which counts make a class fail, each of those classes
    /// must stay ambiguous: see [`unshown_stay_ambiguous`].
    fn presence_beyond_classes(
        &self,
        classes: &Classes,
        suppressed: &[bool],
        counts: &PresenceCounts,
    ) -> bool {
        let mut models = self.presence_models().peekable();
        if models.peek().is_none() {
            return true;
        }
        let (rows, population) = presence_pool(classes, suppressed, counts);
        let pooled = models.all(|m| {
            (counts.empty_classes == 0 || m.allows_empty())
                && (rows == 0 || {
                    let share = rows as f64 / population as f64;
                    share >= m.delta_min && share <= m.delta_max
                })
        });
        if !pooled || rows == 0 {
            return pooled;
        }
        {
            let sizes: Vec<u32> = (0..classes.len())
                .filter(|&c| suppressed[c])
                .map(|c| counts.pcounts[c])
                .chain(counts.empty_sizes.iter().copied())
                .collect();
            let rule = UnshownRule {
                k: self.min_class_size(),
                any_count_fails: self.models.iter().any(|m| {
                    m.min_class_size().is_none()
                        && m.presence().is_none()
                        && m.sample_based().is_none()
                }),
            };
            let models: Vec<&DeltaPresence> = self.presence_models().collect();
            unshown_stay_ambiguous(&models, rule, &sizes, rows)
        }
    }

    /// Chooses the classes to suppress by the problem's rule and checks
    /// what is released; with `stop`, the ARX rule stops at the first class that takes the
    /// suppressed rows past the limit (the node is then unacceptable, and the counts and
    /// flags cover the classes seen so far). `presence` holds the population's counts when
    /// a δ-presence model needs them.
    fn suppression_until(
        &self,
        classes: &Classes,
        stop: bool,
        presence: Option<&PresenceCounts>,
    ) -> Suppression {
        match self.rule {
            SuppressionRule::Violating => {
                // k-anonymity is a bound on the class size; the other models read histograms
                let min_size = self.min_class_size();
                let others: Vec<&Model> = self
                    .models
                    .iter()
                    .filter(|m| m.min_class_size().is_none())
                    .collect();
                let mut suppressed = vec![false; classes.len()];
                let mut rows = 0u64;
                if others.is_empty() && presence.is_none() {
                    // k alone: each class's verdict without a branch, the limit asked per
                    // block of classes; the block that passes it is done again class by
                    // class, to stop where the loop below stops
                    let blocks = classes.counts.chunks(64).zip(suppressed.chunks_mut(64));
                    for (counts, flags) in blocks {
                        let before = rows;
                        for (&count, flag) in counts.iter().zip(flags.iter_mut()) {
                            let small = count < min_size;
                            *flag = small;
                            rows += u64::from(small) * u64::from(count);
                        }
                        if stop && rows > self.max_suppressed {
                            flags.fill(false);
                            rows = before;
                            for (&count, flag) in counts.iter().zip(flags.iter_mut()) {
                                if count < min_size {
                                    *flag = true;
                                    rows += u64::from(count);
                                    if rows > self.max_suppressed {
                                        break;
                                    }
                                }
                            }
                            break;
                        }
                    }
                    return Suppression {
                        holds: rows <= self.max_suppressed,
                        suppressed,
                        rows,
                    };
                }
                for (c, &count) in classes.counts.iter().enumerate() {
                    let fails = count < min_size
                        || (!others.is_empty()
                            && !others.iter().all(|m| m.holds(count, classes.histogram(c))))
                        || presence.is_some_and(|p| !self.presence_holds(classes, c, p));
                    if fails {
                        suppressed[c] = true;
                        rows += count as u64;
                        if stop && rows > self.max_suppressed {
                            break;
                        }
                    }
                }
                Suppression {
                    holds: rows <= self.max_suppressed,
                    suppressed,
                    rows,
                }
            }
            SuppressionRule::Smallest => {
                let below = smallest_threshold(&classes.counts, self.max_suppressed);
                let suppressed: Vec<bool> = classes.counts.iter().map(|&c| c < below).collect();
                let rows = suppressed_rows(classes, &suppressed);
                let released_hold = (0..classes.len()).filter(|&c| !suppressed[c]).all(|c| {
                    self.models
                        .iter()
                        .all(|m| m.holds(classes.counts[c], classes.histogram(c)))
                        && presence.is_none_or(|p| self.presence_holds(classes, c, p))
                });
                let pool_holds = rows == 0 || {
                    let mut pool = vec![0u32; classes.width];
                    for c in (0..classes.len()).filter(|&c| suppressed[c]) {
                        for (p, &h) in pool.iter_mut().zip(classes.histogram(c)) {
                            *p += h;
                        }
                    }
                    self.models.iter().all(|m| m.holds_on_suppressed(&pool))
                };
                Suppression {
                    holds: released_hold && pool_holds,
                    suppressed,
                    rows,
                }
            }
        }
    }

    /// Checks and scores node `levels` whose classes are `classes`.
    pub(crate) fn assess(&self, levels: &[u8], classes: &Classes) -> (Evaluation, Vec<bool>) {
        self.assess_with(levels, classes, true)
    }

    /// The assessment of node `levels` for a search that needs the score of acceptable nodes
    /// only: an unacceptable node's score is left uncomputed, as +∞, and its suppressed
    /// counts stop where the limit was passed.
    pub fn check(&self, levels: &[u8], classes: &Classes) -> Evaluation {
        self.assess_with(levels, classes, false).0
    }

    fn assess_with(
        &self,
        levels: &[u8],
        classes: &Classes,
        score_unacceptable: bool,
    ) -> (Evaluation, Vec<bool>) {
        let presence = self.presence_counts(levels, classes);
        let Suppression {
            mut suppressed,
            rows: mut suppressed_rows,
            mut holds,
        } = self.suppression_until(classes, !score_unacceptable, presence.as_ref());
        let mut flagged_rows = suppressed_rows;
        if holds {
            // the risk-based models, on what the class-based ones release (ARX's order)
            if let Some(rows) = self.enforce_sample_based(levels, classes, &mut suppressed) {
                suppressed_rows = rows;
                holds = rows <= self.max_suppressed;
                flagged_rows = self::suppressed_rows(classes, &suppressed);
            }
        }
        if let Some(counts) = &presence {
            holds = holds && self.presence_beyond_classes(classes, &suppressed, counts);
        }
        let suppressed_classes = suppressed.iter().filter(|&&s| s).count();
        let score = if !holds && !score_unacceptable {
            Score::scalar(f64::INFINITY)
        } else {
            self.metric.score(
                &self.snapshot,
                levels,
                classes,
                &suppressed,
                flagged_rows,
                &self.hierarchies(),
            )
        };
        let evaluation = Evaluation {
            levels: levels.to_vec(),
            classes: classes.len(),
            suppressed_classes,
            suppressed_rows,
            acceptable: holds,
            score,
        };
        (evaluation, suppressed)
    }

    /// Checks and scores one transformation.
    pub fn evaluate(&self, levels: &[u8]) -> Result<Evaluation> {
        self.check_levels(levels)?;
        Ok(self.assess(levels, &self.classes(levels)).0)
    }

    /// The largest k among the k-anonymity models (1 without any).
    pub(crate) fn min_class_size(&self) -> u32 {
        self.models
            .iter()
            .filter_map(|m| m.min_class_size())
            .max()
            .unwrap_or(1)
    }

    /// The metric's lower bound on the score of every acceptable generalization of a node
    /// with these classes, counting on the models' smallest released class as they are now.
    pub(crate) fn class_bound(&self, classes: &Classes) -> Option<Score> {
        self.metric.class_bound(classes, self.min_class_size())
    }

    /// Whether "not acceptable" propagates down and "acceptable" up the lattice.
    pub fn models_monotonic(&self) -> bool {
        if self.max_suppressed > 0 && self.rule == SuppressionRule::Smallest {
            // generalizing changes which classes are smallest
            return false;
        }
        self.models.iter().all(|m| {
            let monotonicity = m.monotonicity();
            if self.max_suppressed == 0 {
                monotonicity.with_generalization
            } else {
                monotonicity.with_suppression
            }
        })
    }

    /// Whether which rows are suppressed can depend on sensitive values (ARX's rule with a
    /// model that reads them).
    pub(crate) fn suppression_reads_sensitive(&self) -> bool {
        self.rule == SuppressionRule::Violating
            && self.max_suppressed > 0
            && self.models.iter().any(|m| m.reads_confidential_values())
    }
}

/// The suppressed rows of `classes` and the population they hide among: the persons of the
/// population classes that show no released row (the suppressed ones and those without
/// subset rows).
pub(crate) fn presence_pool(
    classes: &Classes,
    suppressed: &[bool],
    counts: &PresenceCounts,
) -> (u64, u64) {
    (0..classes.len())
        .filter(|&c| suppressed[c])
        .fold((0u64, counts.empty_rows), |(r, p), c| {
            (r + classes.counts[c] as u64, p + counts.pcounts[c] as u64)
        })
}

/// The partition name of each quasi-identifier at `levels`, when the lattice is not a
/// product of chains (else None: levels say it all).
pub(crate) fn partition_names(problem: &Problem, levels: &[u8]) -> Option<Map<String, Value>> {
    (!problem.lattice.is_chain()).then(|| {
        problem
            .quasi_at(levels)
            .map(|(q, l)| (q.name.clone(), Value::from(q.hierarchy.level_name(l))))
            .collect()
    })
}

/// `{name: level}` in header order.
pub(crate) fn levels_map(problem: &Problem, levels: &[u8]) -> Map<String, Value> {
    problem
        .quasi_at(levels)
        .map(|(q, l)| (q.name.clone(), Value::from(l)))
        .collect()
}

#[cfg(test)]
mod tests {
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    use super::{smallest_threshold, Problem};
    use crate::criteria::ModelSpec;
    use crate::framework::test_support::dataset_sized;
    use crate::metric::MetricSpec;

    /// With k-anonymity alone, the classes suppressed and the rows they hold are those of
    /// a class-by-class count (every class under k, or, stopping once the limit is passed,
    /// those up to the class that passes it): on random tables of up to hundreds of
    /// classes, at every node, with limits that stop in the middle of a block of classes.
    #[test]
    fn k_alone_suppresses_as_counted_class_by_class() {
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let (mut stopped, mut wide) = (0, 0);
        for _ in 0..80 {
            let data = dataset_sized(&mut rng, 4..16, 100..1500, 0);
            let k = rng.gen_range(2..6);
            let limit = [0.0, 0.01, 0.05, 0.3][rng.gen_range(0..4)];
            let models = [ModelSpec::KAnonymity { k }];
            let problem = Problem::new(data, &models, limit, &MetricSpec::default()).unwrap();
            for i in 0..problem.lattice.size() {
                let classes = problem.classes(&problem.lattice.levels(i));
                wide += usize::from(classes.len() > 128);
                for stop in [false, true] {
                    let (mut flags, mut rows) = (vec![false; classes.len()], 0u64);
                    for (c, &count) in classes.counts.iter().enumerate() {
                        if count < k {
                            flags[c] = true;
                            rows += u64::from(count);
                            if stop && rows > problem.max_suppressed {
                                stopped += usize::from(c > 64 && c % 64 != 63);
                                break;
                            }
                        }
                    }
                    let got = problem.suppression_until(&classes, stop, None);
                    assert_eq!(got.suppressed, flags);
                    assert_eq!(got.rows, rows);
                    assert_eq!(got.holds, rows <= problem.max_suppressed);
                }
            }
        }
        assert!(stopped > 50 && wide > 50, "{stopped} {wide}");
    }

    #[test]
    fn smallest_classes_up_to_the_budget() {
        // sizes 1,1,2,2,5: with 6 rows allowed, the classes of 1 and 2 (6 rows) go
        assert_eq!(smallest_threshold(&[5, 2, 1, 2, 1], 6), 3);
        // with 5, the two 2s do not fit beside the 1s: only the 1s go
        assert_eq!(smallest_threshold(&[5, 2, 1, 2, 1], 5), 2);
        // no room even for the smallest: nothing
        assert_eq!(smallest_threshold(&[5, 2, 1, 2, 1], 1), 1);
        assert_eq!(smallest_threshold(&[5, 2, 1, 2, 1], 0), 1);
        // all of it
        assert_eq!(smallest_threshold(&[5, 2, 1, 2, 1], 11), 6);
        assert_eq!(smallest_threshold(&[], 3), 1);
    }
}
