//! cellsafe: safe release of microdata.
//!
//! The library is layered; each layer uses only those below it:
//!
//! - [`data`]: tables read from CSV and dictionary-encoded, attribute roles, the formula
//!   language and each person's confidential formulas;
//! - [`hierarchy`]: generalization hierarchies and their builders;
//! - [`framework`]: the lattice of transformations, a table with its roles resolved, and
//!   equivalence classes rolled up from node to node;
//! - [`risk`]: re-identification risks read from the sizes of the classes;
//! - [`criteria`]: the privacy models, each deciding which classes are safe;
//! - [`metric`]: utility and loss measures of a transformation;
//! - [`algorithm`]: the problem (data, models, metric) and the searches that solve it;
//! - [`release`]: the released table, its one writer, and the independent audit;
//! - [`anonymizer`]: the in-memory API over all of them ([`Anonymizer`]);
//! - [`engine`]: the passes of a job over rows kept elsewhere (a file scanned a batch at a
//!   time): frequency set, release plan, audit count;
//! - [`gatekeeper`]: answers to queries judged together with what their recipient already
//!   holds (paper 002's Cellsecu gatekeeper, without the service around it);
//! - [`job`]: a TOML job description turned into calls of the layers above, and the report.
//!
//! [`error`] and [`observer`] (progress reports and cancellation of long work) are shared by
//! every layer.
//!
//! The [`anonymizer`] module shows the API on rows in memory; the README's example is
//! compiled and run as a doctest too.

#![warn(missing_docs)]
pub mod algorithm;
pub mod anonymizer;
pub mod criteria;
pub mod data;
pub mod engine;
pub mod error;
pub mod framework;
pub mod gatekeeper;
pub mod hierarchy;
pub mod input;
pub mod job;
pub mod metric;
pub mod observer;
pub mod release;
pub mod risk;

/// The README, so that its Rust example is compiled and run as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
pub struct ReadmeDoctests;

pub use anonymizer::{Anonymizer, Generalization, Release, ReleaseForm};
pub use criteria::ModelSpec;
pub use data::table::{CsvFormat, Table};
pub use data::Role;
pub use error::{Error, Result};
pub use hierarchy::{Builder, Hierarchy};
pub use metric::{MetricKind, MetricSpec};
