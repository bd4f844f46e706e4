//! Why a privacy model cannot be used, with the model and the configuration key at fault,
//! so that the job layer names `privacy[1].t` and the library the model.

use super::{excerpt, Error};

/// A privacy model that cannot be used: which model, and why.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{kind}")]
pub struct CriteriaError {
    /// The model's name, as [`ModelSpec::name`](crate::criteria::ModelSpec::name) gives it.
    pub(crate) model: String,
    /// What is wrong.
    pub(crate) kind: CriteriaErrorKind,
}

/// What is wrong with a privacy model.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub(crate) enum CriteriaErrorKind {
    /// A parameter lies outside its domain (`t` must be in (0, 1], ...).
    #[error("{parameter} {message}")]
    Parameter {
        /// The parameter's key (`t`, `l`, ...).
        parameter: &'static str,
        /// What its domain is and what it was.
        message: String,
    },
    /// The model names an attribute that is not sensitive.
    #[error("`{0}` is not a sensitive attribute")]
    UnknownAttribute(String),
    /// Hierarchical t-closeness on an attribute without a hierarchy.
    #[error("hierarchical t-closeness needs a hierarchy for `{0}`")]
    NoHierarchy(String),
    /// A confidential value that the attribute never takes.
    #[error("`{}` never occurs in `{attribute}`", excerpt(.value))]
    UnknownValue {
        /// The sensitive attribute.
        attribute: String,
        /// The value, as configured.
        value: String,
    },
    /// Logical safety without a `[safety]` section.
    #[error("logical safety needs a [safety] section stating what persons hold confidential")]
    NoSafety,
    /// δ-presence without a research subset.
    #[error(
        "δ-presence needs a research subset: set [input.subset] (a flag column or a file of keys)"
    )]
    NoSubset,
    /// The population's quasi-identifier values overflow a class key.
    #[error("too many quasi-identifier values to pack a class key into 128 bits")]
    KeyOverflow,
}

impl CriteriaErrorKind {
    /// The key under the model's section whose value is at fault (`t`, `attribute`,
    /// `values`, ...), if one is.
    fn key(&self) -> Option<&'static str> {
        match self {
            CriteriaErrorKind::Parameter { parameter, .. } => Some(parameter),
            CriteriaErrorKind::UnknownAttribute(_) => Some("attribute"),
            CriteriaErrorKind::NoHierarchy(_) => Some("distance"),
            CriteriaErrorKind::UnknownValue { .. } => Some("values"),
            CriteriaErrorKind::NoSafety
            | CriteriaErrorKind::NoSubset
            | CriteriaErrorKind::KeyOverflow => None,
        }
    }
}

impl CriteriaError {
    /// The error of the `index`-th `[[privacy]]` section of config file `file`: key
    /// `privacy[index]`, or `privacy[index].KEY` when one key is at fault.
    pub(crate) fn in_config(self, file: &str, index: usize) -> Error {
        match self.kind {
            CriteriaErrorKind::Parameter { parameter, message } => {
                Error::config(file, format!("privacy[{index}].{parameter}"), message)
            }
            kind => {
                let key = match kind.key() {
                    Some(key) => format!("privacy[{index}].{key}"),
                    None => format!("privacy[{index}]"),
                };
                Error::config(file, key, kind.to_string())
            }
        }
    }
}
