//! Utility metrics: how much a transformation costs the data's users.
//!
//! The ARX metrics reproduce `metric.v2` exactly (same suppression handling, normalization,
//! per-attribute rounding to 10 decimals, aggregate functions). The papers' measures are
//! here too: the entropy quality `ql` of the AOG paper and Iyengar's general loss metric GLM.
//! Every metric is "lower is better", so the quality ql (1 = original data) is optimized as
//! the loss `ql-loss` = 1 − ql; reports give ql itself under `ql` and the metric only under
//! `ql-loss`, so that one name never stands for both.
//!
//! Each metric also gives a lower bound that never decreases under generalization and never
//! exceeds the score of any generalization: the searches prune with it and stay exact.

use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::data::confidentiality::Confidentiality;
use crate::framework::classes::{Classes, Snapshot};
use crate::framework::dataset::Dataset;
use crate::hierarchy::Hierarchy;

/// Which metric.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum MetricKind {
    /// ARX's Loss (`MetricMDNMLoss`), ARX's default.
    Loss,
    /// Non-uniform entropy, monotonic (suppression ignored).
    Entropy,
    /// Non-uniform entropy, non-monotonic (suppressed records cost their own entropy).
    EntropyNm,
    /// Precision, monotonic.
    Precision,
    /// Precision, non-monotonic.
    PrecisionNm,
    /// Sum of levels.
    Height,
    /// Discernibility DM: suppressed rows cost N each.
    Discernibility,
    /// DM*: Σ|E|² over all classes, suppression ignored.
    DiscernibilityStar,
    /// Average equivalence class size.
    Aecs,
    /// `ql-loss` = 1 − ql, ql being the entropy quality of the AOG paper (section 4.2).
    /// Configs may still say `ql`.
    #[serde(rename = "ql-loss", alias = "ql")]
    Ql,
    /// Iyengar's general loss metric (paper 003).
    Glm,
    /// `1 - sf·ql`: the AOG paper's objective (section 4.3), security times quality. Needs
    /// the `[safety]` section.
    SfQl,
}

impl MetricKind {
    /// Every metric.
    pub const ALL: [MetricKind; 12] = [
        MetricKind::Loss,
        MetricKind::Entropy,
        MetricKind::EntropyNm,
        MetricKind::Precision,
        MetricKind::PrecisionNm,
        MetricKind::Height,
        MetricKind::Discernibility,
        MetricKind::DiscernibilityStar,
        MetricKind::Aecs,
        MetricKind::Ql,
        MetricKind::Glm,
        MetricKind::SfQl,
    ];
}

/// Aggregation of per-attribute values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Aggregate {
    Sum,
    ArithmeticMean,
    GeometricMean,
    Maximum,
    Rank,
}

fn default_gs() -> f64 {
    0.5
}

/// A metric as configured.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MetricSpec {
    pub name: MetricKind,
    /// Defaults: geometric mean for Loss, sum for entropy and height, arithmetic mean for precision.
    #[serde(default)]
    pub aggregate: Option<Aggregate>,
    /// Generalization/suppression factor in [0, 1]; 0.5 weighs both equally.
    #[serde(default = "default_gs")]
    pub gs_factor: f64,
    /// Attribute weights by quasi-identifier name (default 1).
    #[serde(default)]
    pub weights: BTreeMap<String, f64>,
}

impl Default for MetricSpec {
    fn default() -> Self {
        MetricSpec {
            name: MetricKind::Loss,
            aggregate: None,
            gs_factor: 0.5,
            weights: BTreeMap::new(),
        }
    }
}

/// A score: `value`, and for the rank aggregate the sorted per-attribute values compared
/// lexicographically.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Score {
    pub value: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rank: Option<Vec<f64>>,
}

impl Score {
    pub fn scalar(value: f64) -> Score {
        Score { value, rank: None }
    }
    /// Total order of scores (lower is better).
    pub fn compare(&self, other: &Score) -> Ordering {
        match (&self.rank, &other.rank) {
            (Some(a), Some(b)) => {
                for (x, y) in a.iter().zip(b) {
                    match x.total_cmp(y) {
                        Ordering::Equal => {}
                        o => return o,
                    }
                }
                Ordering::Equal
            }
            _ => self.value.total_cmp(&other.value),
        }
    }
}

/// `x`, with a negative zero made positive. IEEE arithmetic gives −0.0 for −(0·log 1),
/// −0.0 · w and empty sums; reports should never show `-0`.
pub fn positive_zero(x: f64) -> f64 {
    if x == 0.0 {
        0.0
    } else {
        x
    }
}

impl Score {
    /// The score with negative zeros made positive (see [`positive_zero`]).
    fn positive_zero(mut self) -> Score {
        self.value = positive_zero(self.value);
        if let Some(rank) = &mut self.rank {
            rank.iter_mut().for_each(|x| *x = positive_zero(*x));
        }
        self
    }
}

/// ARX's `Metric.round`: floor to 10 decimals.
pub fn round10(x: f64) -> f64 {
    (x * 1e10).floor() / 1e10
}

/// A metric bound to a dataset, with per-attribute, per-level tables precomputed.
#[derive(Debug, Clone)]
pub struct Metric {
    pub spec: MetricSpec,
    aggregate: Aggregate,
    weights: Vec<f64>,
    s_factor: f64,
    g_factor: f64,
    rows: f64,
    /// `share[j][level][code]`: fraction of hierarchy leaves in the group (Loss).
    share: Vec<Vec<Vec<f64>>>,
    /// `loss_nosupp[j][level]`: Σ over rows of share (Loss without suppression).
    loss_nosupp: Vec<Vec<f64>>,
    /// `entropy[j][level]`: -Σ_x c(x)·log2(c(x)/c(g(x))) over input values.
    entropy: Vec<Vec<f64>>,
    /// `glm_nosupp[j][level]`: Σ over rows of (|g|-1)/(M-1).
    glm_nosupp: Vec<Vec<f64>>,
    /// `ql[j][level]`: h(π)/log|V|.
    ql: Vec<Vec<f64>>,
    heights: Vec<f64>,
    domain: Vec<f64>,
    /// For sf: the confidentiality and where its profile histogram starts.
    safety: Option<(Arc<Confidentiality>, usize)>,
}

impl Metric {
    pub fn bind(spec: &MetricSpec, data: &Dataset) -> Result<Metric, String> {
        if !(0.0..=1.0).contains(&spec.gs_factor) {
            return Err("gs_factor must lie in [0, 1]".into());
        }
        let d = data.quasi.len();
        let mut weights = vec![1.0; d];
        for (name, &w) in &spec.weights {
            let j = data
                .quasi
                .iter()
                .position(|q| &q.name == name)
                .ok_or_else(|| format!("weights: `{name}` is not a quasi-identifier"))?;
            if !(w.is_finite() && w >= 0.0) {
                return Err(format!(
                    "weights: weight of `{name}` must be a non-negative number"
                ));
            }
            weights[j] = w;
        }
        let max_w = weights.iter().cloned().fold(0.0, f64::max);
        if max_w > 0.0 {
            for w in &mut weights {
                *w /= max_w;
            }
        }
        let g = spec.gs_factor;
        let s_factor = if g < 0.5 { 2.0 * g } else { 1.0 };
        let g_factor = if g <= 0.5 { 1.0 } else { 1.0 - 2.0 * (g - 0.5) };
        let aggregate = spec.aggregate.unwrap_or(match spec.name {
            MetricKind::Loss => Aggregate::GeometricMean,
            MetricKind::Precision | MetricKind::PrecisionNm => Aggregate::ArithmeticMean,
            _ => Aggregate::Sum,
        });
        let rows = data.rows() as f64;
        let mut share = Vec::with_capacity(d);
        let mut loss_nosupp = Vec::with_capacity(d);
        let mut entropy = Vec::with_capacity(d);
        let mut glm_nosupp = Vec::with_capacity(d);
        let mut ql = Vec::with_capacity(d);
        for q in &data.quasi {
            let h = &q.hierarchy;
            let leaves = h.leaf_count() as f64;
            let mut leaf_counts = vec![0u64; h.leaf_count()];
            for &l in &q.leaves {
                leaf_counts[l as usize] += 1;
            }
            let mut sh = Vec::new();
            let mut ln = Vec::new();
            let mut en = Vec::new();
            let mut gl = Vec::new();
            let mut qv = Vec::new();
            for level in 0..h.levels() {
                let s: Vec<f64> = h
                    .group_sizes(level)
                    .iter()
                    .map(|&n| n as f64 / leaves)
                    .collect();
                let map = h.level_map(level);
                let mut group_counts = vec![0u64; h.cardinality(level)];
                for (leaf, &c) in leaf_counts.iter().enumerate() {
                    group_counts[map[leaf] as usize] += c;
                }
                let mut loss = 0.0;
                let mut ent = 0.0;
                let mut glm = 0.0;
                for (leaf, &c) in leaf_counts.iter().enumerate() {
                    if c == 0 {
                        continue;
                    }
                    let code = map[leaf] as usize;
                    loss += c as f64 * s[code];
                    ent += c as f64 * (c as f64 / group_counts[code] as f64).log2();
                    if leaves > 1.0 {
                        glm += c as f64 * (h.group_size(level, code as u32) as f64 - 1.0)
                            / (leaves - 1.0);
                    }
                }
                // h(π)/log|V| with h(π) = log|V| − Σ_g (|g|/|V|)·log|g|: exactly 1 for the
                // original values and 0 for `*` (−Σ p·log p misses both by a rounding step)
                let spread: f64 = h
                    .group_sizes(level)
                    .iter()
                    .filter(|&&n| n > 0)
                    .map(|&n| n as f64 / leaves * (n as f64).ln())
                    .sum();
                qv.push(if leaves > 1.0 {
                    positive_zero(1.0 - spread / leaves.ln())
                } else {
                    1.0
                });
                sh.push(s);
                ln.push(loss);
                en.push(positive_zero(-ent));
                gl.push(glm);
            }
            share.push(sh);
            loss_nosupp.push(ln);
            entropy.push(en);
            glm_nosupp.push(gl);
            ql.push(qv);
        }
        let heights = data
            .quasi
            .iter()
            .map(|q| q.hierarchy.height() as f64)
            .collect();
        let domain = data
            .quasi
            .iter()
            .map(|q| q.hierarchy.leaf_count() as f64)
            .collect();
        let safety = data
            .confidentiality
            .as_ref()
            .map(|c| (c.clone(), data.profile_offset()));
        if spec.name == MetricKind::SfQl && safety.is_none() {
            return Err("sf-ql needs a [safety] section (confidential formulas)".into());
        }
        Ok(Metric {
            safety,
            spec: spec.clone(),
            aggregate,
            weights,
            s_factor,
            g_factor,
            rows,
            share,
            loss_nosupp,
            entropy,
            glm_nosupp,
            ql,
            heights,
            domain,
        })
    }

    /// Whether the score itself never decreases under generalization.
    pub fn is_monotonic(&self) -> bool {
        matches!(
            self.spec.name,
            MetricKind::Entropy
                | MetricKind::Precision
                | MetricKind::Height
                | MetricKind::DiscernibilityStar
                | MetricKind::Ql
        )
    }

    fn aggregate(&self, values: &[f64]) -> Score {
        let w: Vec<f64> = values
            .iter()
            .zip(&self.weights)
            .map(|(v, w)| v * w)
            .collect();
        let d = w.len().max(1) as f64;
        match self.aggregate {
            Aggregate::Sum => Score::scalar(w.iter().sum()),
            Aggregate::ArithmeticMean => Score::scalar(w.iter().sum::<f64>() / d),
            Aggregate::GeometricMean => {
                Score::scalar(w.iter().map(|x| (x + 1.0).powf(1.0 / d)).product::<f64>() - 1.0)
            }
            Aggregate::Maximum => Score::scalar(w.iter().cloned().fold(0.0, f64::max)),
            Aggregate::Rank => {
                let mut r = w.clone();
                r.sort_by(|a, b| b.total_cmp(a));
                Score {
                    value: w.iter().sum(),
                    rank: Some(r),
                }
            }
        }
    }

    fn loss_value(&self, j: usize, raw: f64) -> f64 {
        let m = self.g_factor * self.rows / self.domain[j];
        let denom = self.rows - m;
        if denom <= 0.0 {
            return 0.0;
        }
        round10(((raw - m) / denom).max(0.0))
    }

    fn ratio(&self, j: usize, level: u8) -> f64 {
        if self.heights[j] == 0.0 {
            0.0
        } else {
            level as f64 / self.heights[j]
        }
    }

    /// The score of node `levels` whose classes are `classes`, with `suppressed[c]` marking
    /// suppressed classes holding `suppressed_rows` rows in all.
    pub fn score(
        &self,
        snapshot: &Snapshot,
        levels: &[u8],
        classes: &Classes,
        suppressed: &[bool],
        suppressed_rows: u64,
        hierarchies: &[&Hierarchy],
    ) -> Score {
        self.raw_score(
            snapshot,
            levels,
            classes,
            suppressed,
            suppressed_rows,
            hierarchies,
        )
        .positive_zero()
    }

    fn raw_score(
        &self,
        snapshot: &Snapshot,
        levels: &[u8],
        classes: &Classes,
        suppressed: &[bool],
        suppressed_rows: u64,
        hierarchies: &[&Hierarchy],
    ) -> Score {
        let n = self.rows;
        let ns = suppressed_rows as f64;
        let d = levels.len();
        let (gf, sf) = (self.g_factor, self.s_factor);
        match self.spec.name {
            MetricKind::SfQl => {
                let (c, offset) = self.safety.as_ref().expect("bound with a [safety] section");
                let security = self::sf(c, *offset, classes, Some(suppressed), self.rows as usize);
                Score::scalar(1.0 - security * self.ql(levels))
            }
            MetricKind::Height => {
                self.aggregate(&levels.iter().map(|&l| l as f64).collect::<Vec<_>>())
            }
            MetricKind::Precision => self.aggregate(
                &(0..d)
                    .map(|j| gf * self.ratio(j, levels[j]))
                    .collect::<Vec<_>>(),
            ),
            MetricKind::PrecisionNm => self.aggregate(
                &(0..d)
                    .map(|j| ((n - ns) * self.ratio(j, levels[j]) * gf + ns * sf) / n)
                    .collect::<Vec<_>>(),
            ),
            MetricKind::Entropy => self.aggregate(
                &(0..d)
                    .map(|j| round10(gf * self.entropy[j][levels[j] as usize]))
                    .collect::<Vec<_>>(),
            ),
            MetricKind::EntropyNm => {
                let mut values = Vec::with_capacity(d);
                for j in 0..d {
                    let mut supp = 0.0;
                    if suppressed_rows > 0 {
                        let mut s: rustc_hash::FxHashMap<u32, u64> = Default::default();
                        for c in (0..classes.len()).filter(|&c| suppressed[c]) {
                            let leaf = snapshot.leaf(j, classes.reps[c]);
                            *s.entry(hierarchies[j].code(levels[j] as usize, leaf))
                                .or_default() += classes.counts[c] as u64;
                        }
                        supp = -s
                            .values()
                            .map(|&sy| sy as f64 * (sy as f64 / ns).log2())
                            .sum::<f64>();
                    }
                    values.push(round10(
                        gf * self.entropy[j][levels[j] as usize] + sf * supp,
                    ));
                }
                self.aggregate(&values)
            }
            // Without suppression, score from the per-level tables: equal to the bound to
            // the bit, so that the best-first search stops at the first acceptable node.
            MetricKind::Loss | MetricKind::Glm if suppressed_rows == 0 => {
                self.level_bound(levels).expect("class-free bound")
            }
            MetricKind::Loss => {
                let mut raw = vec![0.0; d];
                for (j, raw) in raw.iter_mut().enumerate() {
                    let level = levels[j] as usize;
                    let (share, map, column) = (
                        &self.share[j][level],
                        hierarchies[j].level_map(level),
                        snapshot.column(j),
                    );
                    for c in 0..classes.len() {
                        let size = classes.counts[c] as f64;
                        let share = share[map[column[classes.reps[c] as usize] as usize] as usize];
                        *raw += if !suppressed[c] {
                            gf * size * share
                        } else if sf == 1.0 {
                            size
                        } else {
                            size * share + sf * (size - size * share)
                        };
                    }
                }
                self.aggregate(
                    &(0..d)
                        .map(|j| self.loss_value(j, raw[j]))
                        .collect::<Vec<_>>(),
                )
            }
            MetricKind::Discernibility => {
                let dm = classes
                    .counts
                    .iter()
                    .zip(suppressed)
                    .map(|(&c, &s)| if s { n * c as f64 } else { c as f64 * c as f64 })
                    .sum();
                Score::scalar(dm)
            }
            MetricKind::DiscernibilityStar => {
                Score::scalar(classes.counts.iter().map(|&c| c as f64 * c as f64).sum())
            }
            MetricKind::Aecs => {
                let kept = suppressed.iter().filter(|&&s| !s).count() as f64;
                let any = if suppressed_rows > 0 { 1.0 } else { 0.0 };
                Score::scalar(n / (sf * kept + any * gf))
            }
            MetricKind::Ql => Score::scalar(1.0 - self.ql(levels)),
            MetricKind::Glm => {
                let mut total = 0.0;
                for j in 0..d {
                    let m = self.domain[j];
                    let mut loss = 0.0;
                    for ((&count, &rep), &s) in
                        classes.counts.iter().zip(&classes.reps).zip(suppressed)
                    {
                        let size = count as f64;
                        if s {
                            loss += size;
                        } else if m > 1.0 {
                            let leaf = snapshot.leaf(j, rep);
                            let code = hierarchies[j].code(levels[j] as usize, leaf);
                            let g = self.share[j][levels[j] as usize][code as usize] * m;
                            loss += size * (g - 1.0) / (m - 1.0);
                        }
                    }
                    total += loss / n;
                }
                Score::scalar(total)
            }
        }
    }

    /// A lower bound on the score of `levels` and of every generalization of it, when it can
    /// be had without the classes.
    pub fn level_bound(&self, levels: &[u8]) -> Option<Score> {
        self.raw_level_bound(levels).map(Score::positive_zero)
    }

    fn raw_level_bound(&self, levels: &[u8]) -> Option<Score> {
        let d = levels.len();
        let gf = self.g_factor;
        Some(match self.spec.name {
            MetricKind::Height | MetricKind::Precision | MetricKind::Entropy | MetricKind::Ql => {
                // monotonic and class-free: the score itself
                return Some(self.level_only_score(levels));
            }
            // sf ≤ 1 and ql only falls under generalization
            MetricKind::SfQl => Score::scalar(1.0 - self.ql(levels)),
            MetricKind::PrecisionNm => self.aggregate(
                &(0..d)
                    .map(|j| (gf * self.ratio(j, levels[j])).min(self.s_factor))
                    .collect::<Vec<_>>(),
            ),
            MetricKind::EntropyNm => self.aggregate(
                &(0..d)
                    .map(|j| round10(gf * self.entropy[j][levels[j] as usize]))
                    .collect::<Vec<_>>(),
            ),
            MetricKind::Loss => self.aggregate(
                &(0..d)
                    .map(|j| self.loss_value(j, gf * self.loss_nosupp[j][levels[j] as usize]))
                    .collect::<Vec<_>>(),
            ),
            MetricKind::Glm => Score::scalar(
                (0..d)
                    .map(|j| self.glm_nosupp[j][levels[j] as usize] / self.rows)
                    .sum(),
            ),
            MetricKind::Discernibility | MetricKind::DiscernibilityStar | MetricKind::Aecs => {
                return None
            }
        })
    }

    /// A lower bound on the score of every generalization of a node with these classes.
    pub fn class_bound(&self, classes: &Classes) -> Option<Score> {
        match self.spec.name {
            MetricKind::Discernibility | MetricKind::DiscernibilityStar => Some(Score::scalar(
                classes.counts.iter().map(|&c| c as f64 * c as f64).sum(),
            )),
            MetricKind::Aecs => Some(Score::scalar(self.rows / classes.len().max(1) as f64)),
            _ => None,
        }
    }

    fn level_only_score(&self, levels: &[u8]) -> Score {
        let d = levels.len();
        match self.spec.name {
            MetricKind::Height => {
                self.aggregate(&levels.iter().map(|&l| l as f64).collect::<Vec<_>>())
            }
            MetricKind::Precision => self.aggregate(
                &(0..d)
                    .map(|j| self.g_factor * self.ratio(j, levels[j]))
                    .collect::<Vec<_>>(),
            ),
            MetricKind::Entropy => self.aggregate(
                &(0..d)
                    .map(|j| round10(self.g_factor * self.entropy[j][levels[j] as usize]))
                    .collect::<Vec<_>>(),
            ),
            _ => Score::scalar(1.0 - self.ql(levels)),
        }
    }

    /// The entropy quality ql(τ) = Σ w_i·h(π_i)/log|V_i| with weights summing to 1, in
    /// [0, 1] (rounding could otherwise put it a bit above 1, and 1 − ql below 0).
    pub fn ql(&self, levels: &[u8]) -> f64 {
        let total: f64 = self.weights.iter().sum();
        if total == 0.0 {
            return 0.0;
        }
        let ql: f64 = levels
            .iter()
            .enumerate()
            .map(|(j, &l)| self.weights[j] / total * self.ql[j][l as usize])
            .sum();
        positive_zero(ql.clamp(0.0, 1.0))
    }
}
/// sf(τ) = 1 − Σ_u ri(τ, u) / |U| over classes whose profile histograms start at `offset`;
/// suppressed classes (released as nothing) carry no risk. In [0, 1].
pub fn sf(
    c: &Confidentiality,
    offset: usize,
    classes: &Classes,
    suppressed: Option<&[bool]>,
    rows: usize,
) -> f64 {
    let width = c.profiles.len();
    let risk: f64 = (0..classes.len())
        .filter(|&k| suppressed.is_none_or(|s| !s[k]))
        .map(|k| {
            c.class_risk(
                &classes.histogram(k)[offset..offset + width],
                classes.counts[k],
            )
        })
        .sum();
    // at most 1 per person, but rounding may carry the mean a bit past 1
    (1.0 - risk / rows.max(1) as f64).max(0.0)
}
