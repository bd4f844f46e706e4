//! Privacy models, checked on equivalence classes.
//!
//! Every model here is class-based: it says whether one class may be released. Classes that
//! violate any model are suppressed; a transformation is acceptable when the suppressed rows
//! stay within the limit. Definitions follow ARX's `criteria` package exactly, including
//! which reference distribution t-closeness uses (the whole input).

pub mod matching;

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::data::confidentiality::Confidentiality;
use crate::framework::dataset::{Dataset, SensitiveAttribute};
use crate::hierarchy::Hierarchy;

/// The ground distance of t-closeness.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Distance {
    Equal,
    Ordered,
    Hierarchical,
}

/// A privacy model as configured.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "model", rename_all = "kebab-case", deny_unknown_fields)]
pub enum ModelSpec {
    KAnonymity {
        k: u32,
    },
    DistinctLDiversity {
        attribute: String,
        l: f64,
    },
    EntropyLDiversity {
        attribute: String,
        l: f64,
    },
    RecursiveClDiversity {
        attribute: String,
        c: f64,
        l: u32,
    },
    TCloseness {
        attribute: String,
        t: f64,
        distance: Distance,
    },
    DeltaDisclosure {
        attribute: String,
        delta: f64,
    },
    BetaLikeness {
        attribute: String,
        beta: f64,
        #[serde(default)]
        enhanced: bool,
    },
    /// Logical safety (paper 002, definition 5) for the formula `attribute ∈ values` held
    /// confidential by everyone: a class is unsafe when every member satisfies it, because
    /// the recipient then knows it of each of them.
    Confidential {
        attribute: String,
        values: Vec<String>,
    },
    /// Logical safety (paper 002 definition 5, paper 000 section 3.1) for the formulas and
    /// per-person CON sets of the `[safety]` section: a class is unsafe when some formula
    /// holds of every member and some member holds it confidential.
    LogicalSafety,
}

impl ModelSpec {
    pub fn attribute(&self) -> Option<&str> {
        match self {
            ModelSpec::KAnonymity { .. } => None,
            ModelSpec::DistinctLDiversity { attribute, .. }
            | ModelSpec::EntropyLDiversity { attribute, .. }
            | ModelSpec::RecursiveClDiversity { attribute, .. }
            | ModelSpec::TCloseness { attribute, .. }
            | ModelSpec::DeltaDisclosure { attribute, .. }
            | ModelSpec::BetaLikeness { attribute, .. }
            | ModelSpec::Confidential { attribute, .. } => Some(attribute),
            ModelSpec::LogicalSafety => None,
        }
    }
    /// Short name used in reports.
    pub fn name(&self) -> String {
        match self {
            ModelSpec::KAnonymity { k } => format!("{k}-anonymity"),
            ModelSpec::DistinctLDiversity { attribute, l } => {
                format!("distinct-{l}-diversity({attribute})")
            }
            ModelSpec::EntropyLDiversity { attribute, l } => {
                format!("entropy-{l}-diversity({attribute})")
            }
            ModelSpec::RecursiveClDiversity { attribute, c, l } => {
                format!("recursive-({c},{l})-diversity({attribute})")
            }
            ModelSpec::TCloseness {
                attribute,
                t,
                distance,
            } => {
                format!("{t}-closeness({attribute}, {distance:?} distance)")
            }
            ModelSpec::DeltaDisclosure { attribute, delta } => {
                format!("{delta}-disclosure({attribute})")
            }
            ModelSpec::Confidential { attribute, values } => {
                format!("confidential({attribute} in {{{}}})", values.join(", "))
            }
            ModelSpec::LogicalSafety => "logical-safety".into(),
            ModelSpec::BetaLikeness {
                attribute,
                beta,
                enhanced,
            } => {
                format!(
                    "{}-{beta}-likeness({attribute})",
                    if *enhanced { "enhanced" } else { "basic" }
                )
            }
        }
    }
    /// Checks that every parameter lies in its domain: k ≥ 1, l ≥ 1, c > 0, t in (0, 1],
    /// δ > 0, β > 0, all finite. On failure returns the parameter's name and the reason.
    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        let finite = |x: f64, name: &'static str, ok: bool, domain: &str| {
            if x.is_finite() && ok {
                Ok(())
            } else {
                Err((name, format!("must be {domain}, got {x}")))
            }
        };
        match self {
            ModelSpec::KAnonymity { k } if *k == 0 => Err(("k", "must be at least 1".into())),
            ModelSpec::DistinctLDiversity { l, .. } | ModelSpec::EntropyLDiversity { l, .. } => {
                finite(*l, "l", *l >= 1.0, "a number ≥ 1")
            }
            ModelSpec::RecursiveClDiversity { l, .. } if *l == 0 => {
                Err(("l", "must be at least 1".into()))
            }
            ModelSpec::RecursiveClDiversity { c, .. } => {
                finite(*c, "c", *c > 0.0, "a positive number")
            }
            ModelSpec::TCloseness { t, .. } => {
                finite(*t, "t", *t > 0.0 && *t <= 1.0, "a number in (0, 1]")
            }
            ModelSpec::DeltaDisclosure { delta, .. } => {
                finite(*delta, "delta", *delta > 0.0, "a positive number")
            }
            ModelSpec::BetaLikeness { beta, .. } => {
                finite(*beta, "beta", *beta > 0.0, "a positive number")
            }
            _ => Ok(()),
        }
    }
    /// ARX's flags: (monotonic with suppression, monotonic with generalization).
    pub fn monotonicity(&self) -> (bool, bool) {
        match self {
            ModelSpec::KAnonymity { .. }
            | ModelSpec::DistinctLDiversity { .. }
            | ModelSpec::Confidential { .. } => (true, true),
            // Merging an unsafe class into a safe one adds its members' CON sets, which
            // can make the union unsafe: monotone with suppression only when everyone
            // holds the same CON (see `Problem::models_monotonic`).
            ModelSpec::LogicalSafety => (false, true),
            ModelSpec::DeltaDisclosure { .. } => (false, false),
            _ => (false, true),
        }
    }
}

/// A model bound to a dataset: the sensitive attribute is resolved and its reference
/// distribution precomputed.
#[derive(Debug, Clone)]
pub struct Model {
    pub spec: ModelSpec,
    check: Check,
}

#[derive(Debug, Clone)]
enum Check {
    K(u32),
    Distinct {
        s: Span,
        l: usize,
    },
    Entropy {
        s: Span,
        l: f64,
    },
    Recursive {
        s: Span,
        c: f64,
        l: usize,
    },
    Equal {
        s: Span,
        q: Vec<f64>,
        t: f64,
    },
    Ordered {
        s: Span,
        q: Vec<f64>,
        order: Vec<u32>,
        t: f64,
    },
    Hierarchical {
        s: Span,
        q: Vec<f64>,
        tree: EmdTree,
        t: f64,
    },
    Delta {
        s: Span,
        q: Vec<f64>,
        delta: f64,
    },
    Beta {
        s: Span,
        q: Vec<f64>,
        beta: f64,
        enhanced: bool,
    },
    /// `outside[v]`: value `v` falsifies the confidential formula.
    Confidential {
        s: Span,
        outside: Vec<bool>,
    },
    Logical {
        s: Span,
        confidentiality: Arc<Confidentiality>,
        /// Per profile, the formulas known of its record when suppressed (all but public
        /// cells shown as `*`).
        pool: Vec<u64>,
    },
}

/// Where a sensitive attribute's histogram lies in a class histogram row.
#[derive(Debug, Clone, Copy)]
struct Span {
    offset: usize,
    len: usize,
}

impl Span {
    #[inline]
    fn of<'a>(&self, hist: &'a [u32]) -> &'a [u32] {
        &hist[self.offset..self.offset + self.len]
    }
}

/// A sensitive attribute's hierarchy flattened for the hierarchical EMD.
#[derive(Debug, Clone)]
struct EmdTree {
    /// `leaf_group[level][value]`: group of value at `level` (values indexed as in the histogram).
    groups: Vec<Vec<u32>>,
    cardinality: Vec<usize>,
}

impl Model {
    /// Binds `spec` to `data`. Returns an error message when the attribute is unknown.
    pub fn bind(spec: &ModelSpec, data: &Dataset) -> Result<Model, String> {
        let attr = |name: &str| -> Result<&SensitiveAttribute, String> {
            data.sensitive_index(name)
                .map(|i| &data.sensitive[i])
                .ok_or_else(|| format!("`{name}` is not a sensitive attribute"))
        };
        let span = |a: &SensitiveAttribute| Span {
            offset: a.offset,
            len: a.values.len(),
        };
        let dist = |a: &SensitiveAttribute| -> Vec<f64> {
            let n = data.rows() as f64;
            a.counts.iter().map(|&c| c as f64 / n).collect()
        };
        spec.validate()
            .map_err(|(name, message)| format!("{name} {message}"))?;
        let check = match spec {
            ModelSpec::KAnonymity { k } => Check::K(*k),
            ModelSpec::DistinctLDiversity { attribute, l } => Check::Distinct {
                s: span(attr(attribute)?),
                l: l.ceil() as usize,
            },
            ModelSpec::EntropyLDiversity { attribute, l } => Check::Entropy {
                s: span(attr(attribute)?),
                l: *l,
            },
            ModelSpec::RecursiveClDiversity { attribute, c, l } => Check::Recursive {
                s: span(attr(attribute)?),
                c: *c,
                l: *l as usize,
            },
            ModelSpec::TCloseness {
                attribute,
                t,
                distance,
            } => {
                let a = attr(attribute)?;
                match distance {
                    Distance::Equal => Check::Equal {
                        s: span(a),
                        q: dist(a),
                        t: *t,
                    },
                    Distance::Ordered => Check::Ordered {
                        s: span(a),
                        q: dist(a),
                        order: a.order.clone(),
                        t: *t,
                    },
                    Distance::Hierarchical => {
                        let h = a.hierarchy.as_ref().ok_or_else(|| {
                            format!("hierarchical t-closeness needs a hierarchy for `{attribute}`")
                        })?;
                        Check::Hierarchical {
                            s: span(a),
                            q: dist(a),
                            tree: EmdTree::new(h, &a.values),
                            t: *t,
                        }
                    }
                }
            }
            ModelSpec::DeltaDisclosure { attribute, delta } => {
                let a = attr(attribute)?;
                Check::Delta {
                    s: span(a),
                    q: dist(a),
                    delta: *delta,
                }
            }
            ModelSpec::BetaLikeness {
                attribute,
                beta,
                enhanced,
            } => {
                let a = attr(attribute)?;
                Check::Beta {
                    s: span(a),
                    q: dist(a),
                    beta: *beta,
                    enhanced: *enhanced,
                }
            }
            ModelSpec::Confidential { attribute, values } => {
                let a = attr(attribute)?;
                if let Some(v) = values.iter().find(|v| !a.values.contains(v)) {
                    return Err(format!(
                        "`{}` never occurs in `{attribute}`",
                        crate::error::excerpt(v)
                    ));
                }
                let outside = a.values.iter().map(|v| !values.contains(v)).collect();
                Check::Confidential {
                    s: span(a),
                    outside,
                }
            }
            ModelSpec::LogicalSafety => {
                let c = data.confidentiality.as_ref().ok_or(
                    "logical safety needs a [safety] section stating what persons hold \
                     confidential",
                )?;
                Check::Logical {
                    s: Span {
                        offset: data.profile_offset(),
                        len: c.profiles.len(),
                    },
                    confidentiality: c.clone(),
                    pool: c.known_when_suppressed(&data.public),
                }
            }
        };
        Ok(Model {
            spec: spec.clone(),
            check,
        })
    }

    /// Whether a class of `count` rows with histogram row `hist` satisfies the model.
    #[inline]
    pub fn holds(&self, count: u32, hist: &[u32]) -> bool {
        match &self.check {
            Check::K(k) => count >= *k,
            Check::Distinct { s, l } => distinct(s.of(hist)) >= *l,
            Check::Entropy { s, l } => {
                let h = s.of(hist);
                distinct(h) >= l.ceil() as usize && entropy(h) >= l.ln() - 1e-12
            }
            Check::Recursive { s, c, l } => recursive_ok(s.of(hist), *c, *l),
            Check::Equal { s, q, t } => equal_emd(s.of(hist), count, q) <= *t + 1e-12,
            Check::Ordered { s, q, order, t } => {
                ordered_emd(s.of(hist), count, q, order) <= *t + 1e-12
            }
            Check::Hierarchical { s, q, tree, t } => tree.emd(s.of(hist), count, q) <= *t + 1e-12,
            Check::Delta { s, q, delta } => max_log_ratio(s.of(hist), count, q) < *delta,
            Check::Confidential { s, outside } => {
                s.of(hist).iter().zip(outside).any(|(&c, &o)| c > 0 && o)
            }
            Check::Logical {
                s, confidentiality, ..
            } => confidentiality.profiles.safe(s.of(hist)),
            Check::Beta {
                s,
                q,
                beta,
                enhanced,
            } => beta_ok(s.of(hist), count, q, *beta, *enhanced),
        }
    }

    /// Whether the pool of suppressed rows satisfies the model, `hist` being the sum of the
    /// suppressed classes' histograms. Suppressed rows are released with every cell but
    /// the public ones as `*` (or not at all), so the recipient, who can tell by
    /// elimination which persons they belong to, learns only what holds whatever the
    /// starred cells are: nothing for the class-based models, a formula only if it is
    /// settled without the starred cells for logical safety.
    pub fn holds_on_suppressed(&self, hist: &[u32]) -> bool {
        match &self.check {
            Check::Confidential { outside, .. } => outside.iter().any(|&o| o),
            Check::Logical {
                s,
                confidentiality,
                pool,
            } => confidentiality.profiles.safe_with(s.of(hist), pool),
            _ => true,
        }
    }

    /// Whether the model's test reads confidential values (so the choice of rows to
    /// suppress must not depend on it).
    pub fn reads_confidential_values(&self) -> bool {
        !matches!(self.check, Check::K(_))
    }

    /// The model's measure on one class, for reports: class size, distinct values,
    /// exp(entropy), the recursive ratio r1 / (r_l + ... + r_m), EMD, max |log2 ratio|,
    /// max relative gain. Which direction is "better" depends on the model.
    pub fn measure(&self, count: u32, hist: &[u32]) -> f64 {
        match &self.check {
            Check::K(_) => count as f64,
            Check::Distinct { s, .. } => distinct(s.of(hist)) as f64,
            Check::Entropy { s, .. } => entropy(s.of(hist)).exp(),
            Check::Recursive { s, l, .. } => recursive_ratio(s.of(hist), *l),
            Check::Equal { s, q, .. } => equal_emd(s.of(hist), count, q),
            Check::Ordered { s, q, order, .. } => ordered_emd(s.of(hist), count, q, order),
            Check::Hierarchical { s, q, tree, .. } => tree.emd(s.of(hist), count, q),
            Check::Delta { s, q, .. } => max_log_ratio(s.of(hist), count, q),
            Check::Beta { s, q, enhanced, .. } => max_gain(s.of(hist), count, q, *enhanced),
            // members falsifying the formula (0: the class is unsafe)
            Check::Confidential { s, outside } => s
                .of(hist)
                .iter()
                .zip(outside)
                .filter(|(_, &o)| o)
                .map(|(&c, _)| c as f64)
                .sum(),
            // formulas the recipient learns of the class that a member holds confidential
            Check::Logical {
                s, confidentiality, ..
            } => confidentiality
                .profiles
                .exposed(s.of(hist))
                .iter()
                .map(|w| w.count_ones() as f64)
                .sum(),
        }
    }

    /// Whether the report's achieved value is the minimum (true) or maximum of the measure.
    pub fn achieved_is_min(&self) -> bool {
        matches!(
            self.check,
            Check::K(_)
                | Check::Distinct { .. }
                | Check::Entropy { .. }
                | Check::Confidential { .. }
        )
    }
}

#[inline]
fn distinct(h: &[u32]) -> usize {
    h.iter().filter(|&&c| c > 0).count()
}

/// Shannon entropy (natural log) of a histogram.
fn entropy(h: &[u32]) -> f64 {
    let n: f64 = h.iter().map(|&c| c as f64).sum();
    if n == 0.0 {
        return 0.0;
    }
    let s: f64 = h
        .iter()
        .filter(|&&c| c > 0)
        .map(|&c| c as f64 * (c as f64).ln())
        .sum();
    n.ln() - s / n
}

fn sorted_desc(h: &[u32]) -> Vec<u32> {
    let mut f: Vec<u32> = h.iter().copied().filter(|&c| c > 0).collect();
    f.sort_unstable_by(|a, b| b.cmp(a));
    f
}

fn recursive_ok(h: &[u32], c: f64, l: usize) -> bool {
    let f = sorted_desc(h);
    if f.len() < l {
        return false;
    }
    let tail: u64 = f[l - 1..].iter().map(|&x| x as u64).sum();
    (f[0] as f64) < c * tail as f64
}

fn recursive_ratio(h: &[u32], l: usize) -> f64 {
    let f = sorted_desc(h);
    if f.len() < l {
        return f64::INFINITY;
    }
    let tail: u64 = f[l - 1..].iter().map(|&x| x as u64).sum();
    f[0] as f64 / tail as f64
}

fn equal_emd(h: &[u32], count: u32, q: &[f64]) -> f64 {
    let n = count as f64;
    0.5 * h
        .iter()
        .zip(q)
        .map(|(&c, &qv)| (c as f64 / n - qv).abs())
        .sum::<f64>()
}

fn ordered_emd(h: &[u32], count: u32, q: &[f64], order: &[u32]) -> f64 {
    let m = order.len();
    if m <= 1 {
        return 0.0;
    }
    let n = count as f64;
    let mut running = 0.0;
    let mut total = 0.0;
    for &v in order {
        running += h[v as usize] as f64 / n - q[v as usize];
        total += running.abs();
    }
    total / (m - 1) as f64
}

fn max_log_ratio(h: &[u32], count: u32, q: &[f64]) -> f64 {
    let n = count as f64;
    h.iter()
        .zip(q)
        .filter(|(&c, _)| c > 0)
        .map(|(&c, &qv)| ((c as f64 / n) / qv).log2().abs())
        .fold(0.0, f64::max)
}

fn max_gain(h: &[u32], count: u32, q: &[f64], enhanced: bool) -> f64 {
    let n = count as f64;
    h.iter()
        .zip(q)
        .filter(|(&c, _)| c > 0)
        .map(|(&c, &qv)| {
            let gain = (c as f64 / n - qv) / qv;
            if enhanced {
                // normalized so that the model holds iff the value is <= beta
                gain.max(0.0)
            } else {
                gain
            }
        })
        .fold(f64::NEG_INFINITY, f64::max)
}

fn beta_ok(h: &[u32], count: u32, q: &[f64], beta: f64, enhanced: bool) -> bool {
    let n = count as f64;
    h.iter().zip(q).filter(|(&c, _)| c > 0).all(|(&c, &qv)| {
        let gain = (c as f64 / n - qv) / qv;
        let bound = if enhanced { beta.min(-qv.ln()) } else { beta };
        gain <= bound + 1e-12
    })
}

impl EmdTree {
    fn new(h: &Hierarchy, values: &[String]) -> EmdTree {
        let leaves: Vec<u32> = values
            .iter()
            .map(|v| h.leaf(v).expect("checked by Dataset::new"))
            .collect();
        let groups = (0..h.levels())
            .map(|l| leaves.iter().map(|&leaf| h.code(l, leaf)).collect())
            .collect();
        let cardinality = (0..h.levels()).map(|l| h.cardinality(l)).collect();
        EmdTree {
            groups,
            cardinality,
        }
    }

    /// Hierarchical EMD (Li et al.): each inner node at height `l` moves
    /// min(positive, negative) extra mass between its children at cost `l / H`.
    fn emd(&self, hist: &[u32], count: u32, q: &[f64]) -> f64 {
        let height = self.groups.len() - 1;
        if height == 0 {
            return 0.0;
        }
        let n = count as f64;
        // Net extra of each node of the current level (level 0: one node per leaf value group).
        let mut net = vec![0.0; self.cardinality[0]];
        for (v, (&c, &qv)) in hist.iter().zip(q).enumerate() {
            net[self.groups[0][v] as usize] += c as f64 / n - qv;
        }
        let mut cost = 0.0;
        for level in 1..=height {
            let mut pos = vec![0.0; self.cardinality[level]];
            let mut neg = vec![0.0; self.cardinality[level]];
            // child group at level-1 -> parent group at level, via any value in it
            let mut parent = vec![u32::MAX; self.cardinality[level - 1]];
            for v in 0..hist.len() {
                parent[self.groups[level - 1][v] as usize] = self.groups[level][v];
            }
            for (child, &e) in net.iter().enumerate() {
                if parent[child] == u32::MAX {
                    continue;
                }
                let p = parent[child] as usize;
                if e > 0.0 {
                    pos[p] += e;
                } else {
                    neg[p] -= e;
                }
            }
            let weight = level as f64 / height as f64;
            cost += weight * pos.iter().zip(&neg).map(|(a, b)| a.min(*b)).sum::<f64>();
            net = pos.iter().zip(&neg).map(|(a, b)| a - b).collect();
        }
        cost
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recursive_cl_definition() {
        // frequencies 5,3,2: r1=5 < c*(r2+r3) for l=2 iff 5 < c*5
        assert!(!recursive_ok(&[5, 3, 2], 1.0, 2));
        assert!(recursive_ok(&[5, 3, 2], 1.01, 2));
        assert!(!recursive_ok(&[5], 3.0, 2));
    }

    #[test]
    fn emd_examples() {
        // class all on value 0, reference uniform over 3 values
        let q = [1.0 / 3.0; 3];
        assert!((equal_emd(&[3, 0, 0], 3, &q) - 2.0 / 3.0).abs() < 1e-12);
        // ordered: cumulative diffs 2/3, 1/3, 0 -> sum 1, / (m-1)=2
        assert!((ordered_emd(&[3, 0, 0], 3, &q, &[0, 1, 2]) - 0.5).abs() < 1e-12);
        assert!(equal_emd(&[1, 1, 1], 3, &q).abs() < 1e-12);
    }

    #[test]
    fn entropy_of_uniform() {
        assert!((entropy(&[2, 2]) - 2f64.ln()).abs() < 1e-12);
        assert_eq!(entropy(&[4, 0]), 0.0);
    }
}
