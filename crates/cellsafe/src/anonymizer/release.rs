//! What [`Anonymizer::run`](super::Anonymizer::run) returns: the audited bytes of the
//! release, what the search found, and where the time went.

use std::io::Write;

use serde::Serialize;

use crate::algorithm::disclosure::Decision;
use crate::algorithm::local::utility::Utility;
use crate::algorithm::problem::{levels_map, Evaluation, Problem};
use crate::algorithm::setbased::SetBasedReport;
use crate::algorithm::{Algorithm, Outcome};
use crate::framework::classes::Classes;
use crate::release::audit::Audit;
use crate::release::RowOrder;

/// Seconds spent in each phase of a run. `read` and the disk part of `write` are filled by
/// front ends that read and write files; the in-memory API leaves `read` at 0 and counts
/// writing into memory under `write`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Timings {
    /// Reading the input: parsing CSV and dictionary-encoding its strings.
    pub read: f64,
    /// Resolving roles, building hierarchies, encoding each row's keys, binding models and
    /// metric: everything between a table and a problem ready to search.
    pub encode: f64,
    /// The search, with the disclosure judgement of a public search.
    pub search: f64,
    /// Building the released table in memory (classes, suppression, aggregates, order).
    pub release: f64,
    /// Writing the release (CSV bytes, then files).
    pub write: f64,
    /// The independent audit of what was written.
    pub audit: f64,
}

impl Timings {
    /// `encode + search + release`: the work of ARX's `anonymize()` on loaded data.
    pub fn core(&self) -> f64 {
        self.encode + self.search + self.release
    }
}

/// The form a release is made in, audited and kept.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ReleaseForm {
    /// CSV bytes, read back by the audit ([`Release::csv`]); what files and databases are
    /// written from.
    #[default]
    Csv,
    /// Arrow record batches ([`Release::record_batches`]), for a caller that keeps the
    /// release in memory: every column's cells made as strings, which the audit reads;
    /// then a column the release keeps as it is (sensitive or insensitive, from a typed
    /// source) typed as its source, checked to print back as the audited strings (a
    /// suppressed or empty cell is a null there).
    #[cfg(feature = "arrow")]
    Arrow,
}

/// What was made: CSV bytes or Arrow record batches.
#[derive(Debug, Clone)]
pub(super) enum Body {
    Csv(Vec<u8>),
    #[cfg(feature = "arrow")]
    Arrow(arrow_schema::SchemaRef, Vec<arrow_array::RecordBatch>),
}

/// The written and audited table.
#[derive(Debug, Clone)]
pub(super) struct Written {
    pub(super) rows: Vec<usize>,
    pub(super) body: Body,
    pub(super) audit: Audit,
    pub(super) warnings: Vec<String>,
}

/// An audited release of a table, or (from [`Anonymizer::attempt`](super::Anonymizer::attempt))
/// the finding that nothing may be released.
#[derive(Debug)]
pub struct Release {
    pub(super) problem: Problem,
    pub(super) algorithm: Algorithm,
    pub(super) outcome: Outcome,
    pub(super) best: Option<Evaluation>,
    pub(super) disclosure: Option<Decision>,
    pub(super) set_based: Option<SetBasedReport>,
    pub(super) local: Option<Utility>,
    pub(super) order: RowOrder,
    pub(super) written: Option<Written>,
    /// The classes of `best`, kept for the report.
    pub(super) classes: Option<Classes>,
    pub(super) timings: Timings,
}

impl Release {
    /// Whether a table was released (always, from [`run`](super::Anonymizer::run)).
    pub fn found(&self) -> bool {
        self.written.is_some()
    }
    /// The problem that was solved: the data with roles resolved, models, metric, lattice.
    pub fn problem(&self) -> &Problem {
        &self.problem
    }
    /// The search that ran.
    pub fn algorithm(&self) -> Algorithm {
        self.algorithm
    }
    /// The chosen level of each quasi-identifier, in column order (empty when nothing was
    /// released or the release is set-based).
    pub fn levels(&self) -> Vec<(String, u8)> {
        self.best.as_ref().map_or_else(Vec::new, |best| {
            levels_map(&self.problem, &best.levels)
                .into_iter()
                .map(|(name, level)| (name, level.as_u64().unwrap_or(0) as u8))
                .collect()
        })
    }
    /// The released transformation (classes, suppressed rows, score), if a node was released.
    pub fn evaluation(&self) -> Option<&Evaluation> {
        self.best.as_ref()
    }
    /// The classes of the released node ([`evaluation`](Self::evaluation)), if one was
    /// released.
    pub(crate) fn classes(&self) -> Option<&Classes> {
        self.classes.as_ref()
    }
    /// What the search reported: nodes evaluated, every minimal node for the minimal
    /// searches, the genetic run's report. Its `best` is the search's answer, which a
    /// public search may have refused ([`disclosure`](Self::disclosure)).
    pub fn outcome(&self) -> &Outcome {
        &self.outcome
    }
    /// Nodes of the lattice the search evaluated.
    pub fn nodes_evaluated(&self) -> usize {
        self.outcome.nodes_evaluated
    }
    /// The decision of a public search, when one was asked for.
    pub fn disclosure(&self) -> Option<&Decision> {
        self.disclosure.as_ref()
    }
    /// The local recoding's groups and utility, when it ran and released.
    pub fn local(&self) -> Option<&Utility> {
        self.local.as_ref()
    }
    /// What the set-based search did (a set-based release).
    pub fn set_based(&self) -> Option<&SetBasedReport> {
        self.set_based.as_ref()
    }
    /// The row order: shuffled with a seed (a key: keep it secret), or the input order.
    pub fn order(&self) -> RowOrder {
        self.order
    }
    /// The seed the rows were shuffled with, or `None` when the input order was kept.
    pub fn seed(&self) -> Option<u64> {
        match self.order {
            RowOrder::Shuffled(seed) => Some(seed),
            RowOrder::Input => None,
        }
    }
    /// For each released row, the input row (0-based) it comes from: for the custodian
    /// only, as it undoes the shuffle. Empty when nothing was released.
    pub fn mapping(&self) -> &[usize] {
        self.written.as_ref().map_or(&[], |w| &w.rows)
    }
    /// What the independent audit found (it passed, or the run would have failed).
    pub fn audit(&self) -> Option<&Audit> {
        self.written.as_ref().map(|w| &w.audit)
    }
    /// Warnings of building the release (microaggregates that coincide).
    pub fn warnings(&self) -> &[String] {
        self.written.as_ref().map_or(&[], |w| &w.warnings)
    }
    /// The released table as audited CSV bytes (empty when nothing was released, or the
    /// release was made as Arrow: see [`ReleaseForm`]).
    pub fn csv(&self) -> &[u8] {
        match self.written.as_ref().map(|w| &w.body) {
            Some(Body::Csv(csv)) => csv,
            _ => &[],
        }
    }
    /// The released table as audited Arrow record batches, when it was made as Arrow (see
    /// [`ReleaseForm`]).
    #[cfg(feature = "arrow")]
    pub fn record_batches(
        &self,
    ) -> Option<(&arrow_schema::SchemaRef, &[arrow_array::RecordBatch])> {
        match self.written.as_ref().map(|w| &w.body) {
            Some(Body::Arrow(schema, batches)) => Some((schema, batches)),
            _ => None,
        }
    }
    /// Writes the audited CSV to `w`.
    pub fn write_csv(&self, mut w: impl Write) -> std::io::Result<()> {
        w.write_all(self.csv())?;
        w.flush()
    }
    /// Seconds per phase.
    pub fn timings(&self) -> &Timings {
        &self.timings
    }
}
