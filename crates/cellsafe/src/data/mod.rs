//! The data model: tables read from CSV and dictionary-encoded, attribute roles, the
//! formula language of confidential properties and each person's CON set.

pub mod confidentiality;
pub mod formula;
pub(crate) mod number;
pub mod table;

use serde::{Deserialize, Serialize};

/// The label of every hidden cell of a suppressed row (so no released value may be it).
pub(crate) const SUPPRESSED: &str = "*";

/// What an attribute is, for release.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Role {
    /// Identifies a person directly: removed from the output.
    Identifying,
    /// Public and linkable: generalized.
    QuasiIdentifying,
    /// Confidential: protected by the privacy models, released unchanged.
    Sensitive,
    /// Neither: released unchanged.
    Insensitive,
    /// Sensitive for the persons who say so (a flag per cell), a quasi-identifier for
    /// the others (paper 004): only local generalization and bucketization takes it.
    SemiSensitive,
}
