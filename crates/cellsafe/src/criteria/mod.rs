//! Privacy models, checked on equivalence classes.
//!
//! Every model here is class-based: it says whether one class may be released. Classes that
//! violate any model are suppressed; a transformation is acceptable when the suppressed rows
//! stay within the limit. Definitions follow ARX's `criteria` package exactly, including
//! which reference distribution t-closeness uses (the whole input).
//!
//! A model is configured as a [`ModelSpec`] (plain data, read from the job description) and
//! bound to a dataset as a [`Criterion`]: one module per family of models implements the
//! trait, so a new model is a new module, a new `ModelSpec` variant and its arm in
//! `ModelSpec::criterion`. [`Model`] pairs the two for the searches and reports.

#![warn(missing_docs)]

mod beta_likeness;
mod delta_disclosure;
mod k_anonymity;
mod l_diversity;
mod logical;
pub mod matching;
pub(crate) mod presence;
mod risk_based;
mod spec;
mod t_closeness;

use std::fmt::Debug;
use std::ops::Deref;
use std::sync::Arc;

use crate::framework::dataset::{Dataset, SensitiveAttribute};

pub(crate) use crate::error::{CriteriaError, CriteriaErrorKind};
pub use presence::{DeltaPresence, PresenceCounts};
pub use risk_based::RiskBased;
pub(crate) use spec::size_threshold;
pub use spec::{Distance, Estimator, ModelSpec};

/// ARX's monotonicity flags of a model: whether "satisfied" is kept when classes merge.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Monotonicity {
    /// Monotonic when suppressed rows count against a limit (ARX's `isMonotonicWithSuppression`).
    pub(crate) with_suppression: bool,
    /// Monotonic without suppression (ARX's `isMonotonicWithGeneralization`).
    pub(crate) with_generalization: bool,
}

impl Monotonicity {
    /// Monotonic both with and without suppression.
    const ALWAYS: Monotonicity = Monotonicity {
        with_suppression: true,
        with_generalization: true,
    };
    /// Monotonic only without suppression (ARX's flags of most distribution-based models).
    const WITHOUT_SUPPRESSION: Monotonicity = Monotonicity {
        with_suppression: false,
        with_generalization: true,
    };
    /// Never monotonic.
    const NEVER: Monotonicity = Monotonicity {
        with_suppression: false,
        with_generalization: false,
    };
}

/// How a report words the classes that fail a model, e.g. `smallest class 1 < 5, 588 rows
/// in 323 classes below k`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FailureTerms {
    /// What the worst measure of the failing classes is (`smallest class`); `None` when a
    /// report gives no worst value for this model.
    pub(crate) worst: Option<&'static str>,
    /// How the worst value compares with the parameter (`<`).
    pub(crate) op: &'static str,
    /// What the failing classes are (`below k`).
    pub(crate) failing: &'static str,
}

/// A privacy model bound to a dataset: decides whether one equivalence class may be
/// released, from its size and its histogram row.
///
/// `holds` is called for every class of every node a search visits (millions of times):
/// implementations precompute at binding what they can and avoid allocating there.
pub trait Criterion: Send + Sync + Debug {
    /// Whether a class of `count` rows with histogram row `hist` satisfies the model.
    fn holds(&self, count: u32, hist: &[u32]) -> bool;

    /// Whether the pool of suppressed rows satisfies the model, `hist` being the sum of the
    /// suppressed classes' histograms. Suppressed rows are released with every cell but
    /// the public ones as `*` (or not at all), so the recipient, who can tell by
    /// elimination which persons they belong to, learns only what holds whatever the
    /// starred cells are: nothing for the class-based models (the default, true), a
    /// formula only if it is settled without the starred cells for logical safety.
    fn holds_on_suppressed(&self, _hist: &[u32]) -> bool {
        true
    }

    /// ARX's monotonicity flags.
    fn monotonicity(&self) -> Monotonicity;

    /// Whether the model's test reads confidential values (so the choice of rows to
    /// suppress must not depend on it). True unless the model reads class sizes only.
    fn reads_confidential_values(&self) -> bool {
        true
    }

    /// `Some(k)` when the model is exactly "every class has at least `k` rows", so that a
    /// caller may compare class sizes instead of calling [`Criterion::holds`].
    fn min_class_size(&self) -> Option<u32> {
        None
    }

    /// Whether the classes to suppress must be chosen from public information only (the
    /// smallest classes first), the pool of suppressed rows then being checked with
    /// [`Criterion::holds_on_suppressed`]: the logical models. False (the default) keeps
    /// ARX's rule for parity: a class that violates a model is suppressed.
    fn suppresses_smallest(&self) -> bool {
        false
    }

    /// The model's measure on one class, for reports (class size, distinct values, a
    /// distance, ...). Which direction is "better" is given by
    /// [`Criterion::achieved_is_min`].
    fn measure(&self, count: u32, hist: &[u32]) -> f64;

    /// Whether the report's achieved value is the minimum (true) or maximum of the measure.
    fn achieved_is_min(&self) -> bool;

    /// The parameter the measure is held against in reports (k, l, c, t, δ, β), if any.
    fn parameter(&self) -> Option<f64> {
        None
    }

    /// How a report words the classes that fail the model.
    fn failure_terms(&self) -> FailureTerms;

    /// For the risk-based models, which judge the distribution of class sizes rather than
    /// each class (their [`Criterion::holds`] is always true): the bound to enforce.
    fn sample_based(&self) -> Option<&risk_based::RiskBased> {
        None
    }

    /// For δ-presence, which compares each class with the population (its
    /// [`Criterion::holds`] is always true): the bound model.
    fn presence(&self) -> Option<&presence::DeltaPresence> {
        None
    }
}

/// A model bound to a dataset: its configuration and its [`Criterion`], whose methods it
/// offers through `Deref`. Cloning shares the criterion.
#[derive(Debug, Clone)]
pub struct Model {
    /// The model as configured.
    pub spec: ModelSpec,
    criterion: Arc<dyn Criterion>,
}

impl Model {
    /// Binds `spec` to `data`: resolves the sensitive attribute and precomputes its
    /// reference distribution. Fails when a parameter is out of its domain or the model
    /// names something the data lacks.
    pub fn bind(spec: &ModelSpec, data: &Dataset) -> Result<Model, CriteriaError> {
        Ok(Model {
            spec: spec.clone(),
            criterion: spec.criterion(data)?,
        })
    }

    /// The bound criterion, shared.
    pub fn criterion(&self) -> &Arc<dyn Criterion> {
        &self.criterion
    }
}

impl Deref for Model {
    type Target = dyn Criterion;

    #[inline]
    fn deref(&self) -> &Self::Target {
        &*self.criterion
    }
}

/// Where a sensitive attribute's histogram lies in a class histogram row.
#[derive(Debug, Clone, Copy)]
struct Span {
    offset: usize,
    len: usize,
}

impl Span {
    /// The span of `attribute`'s histogram.
    fn of_attribute(attribute: &SensitiveAttribute) -> Span {
        Span {
            offset: attribute.offset,
            len: attribute.values.len(),
        }
    }

    /// This span's part of a class histogram row.
    #[inline]
    fn of<'a>(&self, hist: &'a [u32]) -> &'a [u32] {
        &hist[self.offset..self.offset + self.len]
    }
}

/// The distribution of `attribute`'s values over the whole input (t-closeness, δ-disclosure
/// and β-likeness compare each class with it).
fn reference(attribute: &SensitiveAttribute, data: &Dataset) -> Vec<f64> {
    let n = data.persons() as f64;
    attribute.counts.iter().map(|&c| c as f64 / n).collect()
}
