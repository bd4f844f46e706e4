//! Why a metric cannot be used, with the configuration key at fault, so that the job layer
//! names `metric.gs_factor` and the library the metric.

use super::Error;

/// A metric that cannot be bound to a dataset.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum MetricError {
    /// The generalization/suppression factor lies outside [0, 1].
    #[error("gs_factor must lie in [0, 1]")]
    GsFactor,
    /// A weight names no quasi-identifier.
    #[error("weights: `{0}` is not a quasi-identifier")]
    UnknownWeight(String),
    /// A weight is negative or not finite.
    #[error("weights: weight of `{0}` must be a non-negative number")]
    BadWeight(String),
    /// sf-ql without a `[safety]` section.
    #[error("sf-ql needs a [safety] section (confidential formulas)")]
    NoSafety,
}

impl MetricError {
    /// The key under `[metric]` whose value is at fault.
    fn key(&self) -> &'static str {
        match self {
            MetricError::GsFactor => "gs_factor",
            MetricError::UnknownWeight(_) | MetricError::BadWeight(_) => "weights",
            MetricError::NoSafety => "name",
        }
    }

    /// The error as one of config file `file`: key `metric.KEY`, and the message without
    /// the key.
    pub(crate) fn in_config(self, file: &str) -> Error {
        let message = match &self {
            MetricError::GsFactor => "must lie in [0, 1]".to_string(),
            MetricError::UnknownWeight(name) => format!("`{name}` is not a quasi-identifier"),
            MetricError::BadWeight(name) => {
                format!("weight of `{name}` must be a non-negative number")
            }
            MetricError::NoSafety => self.to_string(),
        };
        Error::config(file, format!("metric.{}", self.key()), message)
    }
}
