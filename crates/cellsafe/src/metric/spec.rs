//! The metric as configured: which one, how per-attribute values are aggregated, the
//! generalization/suppression factor and the attribute weights. Plain data, read from the
//! job description and bound by [`super::Metric::bind`].

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

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

    /// The aggregate used when none is configured: geometric mean for Loss, arithmetic
    /// mean for precision, sum for the others (ARX's defaults).
    pub(crate) fn default_aggregate(self) -> Aggregate {
        match self {
            MetricKind::Loss => Aggregate::GeometricMean,
            MetricKind::Precision | MetricKind::PrecisionNm => Aggregate::ArithmeticMean,
            _ => Aggregate::Sum,
        }
    }
}

/// Aggregation of per-attribute values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Aggregate {
    /// The sum.
    Sum,
    /// The mean.
    ArithmeticMean,
    /// ARX's geometric mean: Π (1 + v)^(1/d) − 1.
    GeometricMean,
    /// The largest value.
    Maximum,
    /// The sum, ties broken by the per-attribute values sorted in decreasing order.
    Rank,
}

fn default_gs() -> f64 {
    0.5
}

/// A metric as configured.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MetricSpec {
    /// Which metric.
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
