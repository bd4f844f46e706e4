//! Logical safety (papers 000 and 002): a class is unsafe when the recipient learns of a
//! member a formula that member holds confidential, i.e. when the formula holds of every
//! member. Two forms: `confidential` (one formula `attribute ∈ values`, held confidential
//! by everyone) and `logical-safety` (the formulas and per-person CON sets of `[safety]`).
//! Both also judge the pool of suppressed rows, whose persons a recipient can name by
//! elimination, and both want the rows to suppress chosen from class sizes alone.

use std::sync::Arc;

use super::{Criterion, FailureTerms, Monotonicity, Span};
use crate::data::confidentiality::Confidentiality;
use crate::framework::dataset::{Dataset, SensitiveAttribute};

/// `attribute ∈ values` is confidential for everyone: every class needs a member with a
/// value outside `values`.
#[derive(Debug, Clone)]
pub(crate) struct ConfidentialValues {
    s: Span,
    /// `outside[v]`: value `v` falsifies the confidential formula.
    outside: Vec<bool>,
}

impl ConfidentialValues {
    pub(super) fn new(s: Span, a: &SensitiveAttribute, values: &[String]) -> ConfidentialValues {
        ConfidentialValues {
            s,
            outside: a.values.iter().map(|v| !values.contains(v)).collect(),
        }
    }
}

impl Criterion for ConfidentialValues {
    #[inline]
    fn holds(&self, _count: u32, hist: &[u32]) -> bool {
        self.s
            .of(hist)
            .iter()
            .zip(&self.outside)
            .any(|(&c, &o)| c > 0 && o)
    }
    /// The pool shows nothing of the attribute: the formula is learnt of its persons only
    /// when every value is confidential.
    fn holds_on_suppressed(&self, _hist: &[u32]) -> bool {
        self.outside.iter().any(|&o| o)
    }
    fn monotonicity(&self) -> Monotonicity {
        Monotonicity::ALWAYS
    }
    fn suppresses_smallest(&self) -> bool {
        true
    }
    /// Members falsifying the formula (0: the class is unsafe).
    fn measure(&self, _count: u32, hist: &[u32]) -> f64 {
        self.s
            .of(hist)
            .iter()
            .zip(&self.outside)
            .filter(|(_, &o)| o)
            .map(|(&c, _)| c as f64)
            .sum()
    }
    fn achieved_is_min(&self) -> bool {
        true
    }
    fn failure_terms(&self) -> FailureTerms {
        FailureTerms {
            worst: None,
            op: "",
            failing: "whose members all have a confidential value",
        }
    }
}

/// Logical safety for the `[safety]` section: no formula holds of every member of a class
/// while some member holds it confidential. Reads the class's histogram of CON profiles.
#[derive(Debug, Clone)]
pub(crate) struct LogicalSafety {
    s: Span,
    confidentiality: Arc<Confidentiality>,
    /// Per profile, the formulas known of its record when suppressed (all but public
    /// cells shown as `*`).
    pool: Vec<u64>,
}

impl LogicalSafety {
    /// Logical safety on `data`'s `[safety]` section, or None when it has none.
    pub(super) fn new(data: &Dataset) -> Option<LogicalSafety> {
        let c = data.confidentiality.as_ref()?;
        Some(LogicalSafety {
            s: Span {
                offset: data.profile_offset(),
                len: c.profiles.len(),
            },
            confidentiality: c.clone(),
            pool: c.known_when_suppressed(&data.public),
        })
    }
}

impl Criterion for LogicalSafety {
    #[inline]
    fn holds(&self, _count: u32, hist: &[u32]) -> bool {
        self.confidentiality.profiles.safe(self.s.of(hist))
    }
    fn holds_on_suppressed(&self, hist: &[u32]) -> bool {
        self.confidentiality
            .profiles
            .safe_with(self.s.of(hist), &self.pool)
    }
    /// Merging an unsafe class into a safe one adds its members' CON sets, which can make
    /// the union unsafe: monotone with suppression only when everyone holds the same CON
    /// (see `Problem::models_monotonic`).
    fn monotonicity(&self) -> Monotonicity {
        Monotonicity::WITHOUT_SUPPRESSION
    }
    fn suppresses_smallest(&self) -> bool {
        true
    }
    /// Formulas the recipient learns of the class that a member holds confidential.
    fn measure(&self, _count: u32, hist: &[u32]) -> f64 {
        self.confidentiality
            .profiles
            .exposed(self.s.of(hist))
            .count_ones(..) as f64
    }
    fn achieved_is_min(&self) -> bool {
        false
    }
    fn failure_terms(&self) -> FailureTerms {
        FailureTerms {
            worst: Some("most formulas learnt"),
            op: "",
            failing: "where some member's confidential formula holds of all",
        }
    }
}
