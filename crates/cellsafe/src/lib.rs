//! cellsafe: safe release of microdata.
//!
//! Data flows through the modules in this order:
//! [`table`] reads and dictionary-encodes a CSV file; [`hierarchy`] holds generalization
//! hierarchies; [`dataset`] resolves attribute roles; [`classes`] groups rows into
//! equivalence classes and rolls them up along the [`lattice`]; [`privacy`] models decide
//! which classes must be suppressed; [`metrics`] score a transformation; [`search`] finds
//! the best acceptable transformation of a [`problem`]; [`release`] writes the released
//! table (group labels, or [`microaggregation`] statistics), [`audit`] re-checks it independently, and [`report`] describes the run.
//! [`config`] reads the TOML job description that ties them together.

pub mod classes;
pub mod dataset;
pub mod error;
pub mod hierarchy;
pub mod lattice;
pub mod logic;
pub mod metrics;
pub mod microaggregation;
pub mod privacy;
pub mod problem;
pub mod progress;
pub mod search;
pub mod table;

pub use error::{Error, Result};
pub mod audit;
pub mod config;
pub mod disclosure;
pub mod job;
pub mod output;
pub mod release;
pub mod report;
pub mod synth;
