//! The in-memory API: anonymize a [`Table`] already in memory, without a config file and
//! without touching the file system.
//!
//! [`Anonymizer`] collects what a job needs (attribute roles with their hierarchies,
//! privacy models, suppression limit, metric, search, row order) and [`Anonymizer::run`]
//! takes the same path as a `cellsafe anonymize` job: it binds the problem, searches, builds
//! the released table, writes it as CSV into memory, and audits what was written with the
//! independent audit of [`crate::release::audit`]. The [`Release`] it returns holds exactly
//! the audited bytes, so what [`Release::write_csv`] writes is what was checked.
//!
//! Defaults chosen for safety: a column given no role is *identifying* (left out of the
//! release), so nothing is published that the caller did not name; rows are shuffled with
//! a fresh seed drawn from the operating system unless [`Anonymizer::seed`] fixes one;
//! suppressed rows show `*` in every cell.
//!
//! ```
//! use cellsafe::{Anonymizer, Builder, CsvFormat, MetricSpec, ModelSpec, Table};
//!
//! let header = ["age", "zip", "disease"].map(String::from).to_vec();
//! let rows: Vec<Vec<String>> = (0..40)
//!     .map(|i| vec![(20 + i % 30).to_string(), format!("1300{}", i % 5), format!("d{}", i % 3)])
//!     .collect();
//! let table = Table::from_rows(header, &rows)?;
//! let release = Anonymizer::new(&table)
//!     .quasi_identifier("age", Builder::intervals(&[5.0, 10.0, 20.0]))
//!     .quasi_identifier("zip", Builder::mask())
//!     .sensitive("disease")
//!     .model(ModelSpec::KAnonymity { k: 5 })
//!     .suppression_limit(0.0)
//!     .metric(MetricSpec::default())
//!     .seed(7)
//!     .run()?;
//! assert!(release.audit().passed);
//! let mut csv = Vec::new();
//! release.write_csv(&mut csv)?;
//! assert_eq!(csv.iter().filter(|&&b| b == b'\n').count(), 41); // header + 40 rows
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::algorithm::genetic::GeneticSpec;
use crate::algorithm::problem::{levels_map, Evaluation, Problem};
use crate::algorithm::{self, Algorithm};
use crate::criteria::ModelSpec;
use crate::data::table::{CsvFormat, Table};
use crate::data::Role;
use crate::error::{DatasetError, Error, Location, ProblemError, Result};
use crate::framework::dataset::Dataset;
use crate::hierarchy::{Builder, Hierarchy};
use crate::metric::MetricSpec;
use crate::observer::{Observer, Silent};
use crate::release::audit::{self, Audit, Expected};
use crate::release::{Released, ReleasedTable, RowOrder, SuppressedRows};

/// Where the rows of an in-memory table are said to come from, in error messages.
const IN_MEMORY: &str = "<in-memory table>";
/// Where the released CSV is said to be, in audit errors.
const RELEASED: &str = "<in-memory release>";

/// How a quasi-identifier is generalized: a hierarchy built beforehand, or a builder that
/// builds one over the column's values.
#[derive(Debug, Clone)]
pub enum Generalization {
    /// A hierarchy whose leaves cover every value of the column.
    Hierarchy(Hierarchy),
    /// A builder run over the column's distinct values.
    Builder(Builder),
}

impl From<Hierarchy> for Generalization {
    fn from(h: Hierarchy) -> Self {
        Generalization::Hierarchy(h)
    }
}

impl From<Builder> for Generalization {
    fn from(b: Builder) -> Self {
        Generalization::Builder(b)
    }
}

#[derive(Debug, Clone)]
struct Attribute {
    name: String,
    role: Role,
    generalization: Option<Generalization>,
    public: bool,
}

/// Builds and runs an anonymization of an in-memory table (see the module docs).
pub struct Anonymizer<'a> {
    table: &'a Table,
    attributes: Vec<Attribute>,
    models: Vec<ModelSpec>,
    suppression_limit: f64,
    metric: MetricSpec,
    algorithm: Algorithm,
    genetic: GeneticSpec,
    observer: &'a dyn Observer,
    order: Option<RowOrder>,
    suppressed: SuppressedRows,
    format: CsvFormat,
}

impl<'a> Anonymizer<'a> {
    /// An anonymization of `table` with no attributes named yet, no model, no
    /// suppression, ARX's Loss metric and the optimal search.
    pub fn new(table: &'a Table) -> Anonymizer<'a> {
        Anonymizer {
            table,
            attributes: Vec::new(),
            models: Vec::new(),
            suppression_limit: 0.0,
            metric: MetricSpec::default(),
            algorithm: Algorithm::Optimal,
            genetic: GeneticSpec::default(),
            observer: &Silent,
            order: None,
            suppressed: SuppressedRows::Star,
            format: CsvFormat::default(),
        }
    }

    fn attribute(mut self, name: &str, role: Role, g: Option<Generalization>) -> Self {
        self.attributes.retain(|a| a.name != name);
        self.attributes.push(Attribute {
            name: name.to_owned(),
            role,
            generalization: g,
            public: false,
        });
        self
    }

    /// Column `name` is a quasi-identifier generalized by `generalization`.
    pub fn quasi_identifier(self, name: &str, generalization: impl Into<Generalization>) -> Self {
        self.attribute(name, Role::QuasiIdentifying, Some(generalization.into()))
    }

    /// Column `name` is sensitive: released unchanged, protected by the models.
    pub fn sensitive(self, name: &str) -> Self {
        self.attribute(name, Role::Sensitive, None)
    }

    /// Column `name` is sensitive, with a hierarchy over its values (for t-closeness with
    /// hierarchical distance).
    pub fn sensitive_with(self, name: &str, hierarchy: impl Into<Generalization>) -> Self {
        self.attribute(name, Role::Sensitive, Some(hierarchy.into()))
    }

    /// Column `name` is insensitive: released unchanged, `*` in a suppressed row.
    pub fn insensitive(self, name: &str) -> Self {
        self.attribute(name, Role::Insensitive, None)
    }

    /// Column `name` is insensitive and public: a suppressed row still shows it.
    pub fn public(mut self, name: &str) -> Self {
        self = self.attribute(name, Role::Insensitive, None);
        if let Some(a) = self.attributes.last_mut() {
            a.public = true;
        }
        self
    }

    /// Column `name` identifies persons: left out of the release (also the default of
    /// every column given no role).
    pub fn identifying(self, name: &str) -> Self {
        self.attribute(name, Role::Identifying, None)
    }

    /// Adds a privacy model every released class must satisfy.
    pub fn model(mut self, model: ModelSpec) -> Self {
        self.models.push(model);
        self
    }

    /// The share of rows that may be suppressed, in [0, 1].
    pub fn suppression_limit(mut self, limit: f64) -> Self {
        self.suppression_limit = limit;
        self
    }

    /// The metric the search optimizes.
    pub fn metric(mut self, metric: MetricSpec) -> Self {
        self.metric = metric;
        self
    }

    /// The search (default: optimal; the genetic one with [`genetic`](Self::genetic)'s
    /// parameters, by default [`GeneticSpec::default`]). The set-based search releases
    /// sets, not a node, and is not available here.
    pub fn algorithm(mut self, algorithm: Algorithm) -> Self {
        self.algorithm = algorithm;
        self
    }

    /// The genetic search with parameters `spec`.
    pub fn genetic(mut self, spec: GeneticSpec) -> Self {
        self.algorithm = Algorithm::Genetic;
        self.genetic = spec;
        self
    }

    /// Reports progress to `observer`, and stops with [`Error::Cancelled`] when it says so.
    pub fn observer(mut self, observer: &'a dyn Observer) -> Self {
        self.observer = observer;
        self
    }

    /// Shuffles the released rows with `seed` (a key: whoever knows it recovers the
    /// input order). Without it a fresh seed is drawn from the operating system.
    pub fn seed(mut self, seed: u64) -> Self {
        self.order = Some(RowOrder::Shuffled(seed));
        self
    }

    /// Keeps the input's row order (which can link rows back to persons).
    pub fn keep_order(mut self) -> Self {
        self.order = Some(RowOrder::Input);
        self
    }

    /// Leaves suppressed rows out instead of writing them with `*`.
    pub fn drop_suppressed(mut self) -> Self {
        self.suppressed = SuppressedRows::Drop;
        self
    }

    /// The CSV dialect of the release (default: comma, double quote, a header).
    pub fn csv_format(mut self, format: CsvFormat) -> Self {
        self.format = format;
        self
    }

    /// The table with its roles resolved and hierarchies built.
    fn dataset(&self) -> Result<Dataset> {
        let header = self.table.header();
        if let Some(a) = self.attributes.iter().find(|a| !header.contains(&a.name)) {
            return Err(DatasetError::NoColumn(a.name.clone()).into());
        }
        let mut roles = Vec::with_capacity(header.len());
        let mut public = Vec::with_capacity(header.len());
        let mut hierarchies = Vec::new();
        let mut sensitive_hierarchies = Vec::new();
        for (column, name) in header.iter().enumerate() {
            let attribute = self.attributes.iter().find(|a| a.name == *name);
            let role = attribute.map_or(Role::Identifying, |a| a.role);
            roles.push(role);
            public.push(attribute.is_some_and(|a| a.public));
            let built = attribute
                .and_then(|a| a.generalization.as_ref())
                .map(|g| self.build(column, g))
                .transpose()?;
            match role {
                Role::QuasiIdentifying => hierarchies.push(
                    built.ok_or_else(|| Error::Dataset(DatasetError::NoHierarchy(name.clone())))?,
                ),
                Role::Sensitive => sensitive_hierarchies.push(built.map(|b| b.0)),
                _ => {}
            }
        }
        Dataset::new(
            self.table.clone(),
            roles,
            hierarchies,
            sensitive_hierarchies,
        )?
        .with_public(public)
    }

    fn build(&self, column: usize, g: &Generalization) -> Result<(Hierarchy, PathBuf)> {
        let name = &self.table.header()[column];
        match g {
            Generalization::Hierarchy(h) => Ok((
                h.clone(),
                PathBuf::from(format!("the hierarchy of `{name}`")),
            )),
            Generalization::Builder(b) => {
                let dictionary = self.table.dictionary(column);
                for (code, value) in dictionary.values().iter().enumerate() {
                    if let Err(e) = b.check_value(value) {
                        return Err(Error::data(
                            Location::at(
                                self.table.source(),
                                dictionary.first_line(code as u32),
                                Some(column as u64 + 1),
                            ),
                            format!("{e} (the builder of `{name}`)"),
                        ));
                    }
                }
                let key = format!("quasi_identifier({name})");
                let built = b.build(dictionary.values(), IN_MEMORY, &key)?;
                Ok((built, PathBuf::from(format!("the builder of `{name}`"))))
            }
        }
    }

    /// Runs the search, releases the best acceptable transformation and audits the
    /// written release. Errors: bad roles or hierarchies, no acceptable transformation
    /// ([`Error::NothingAcceptable`]), a failed audit ([`Error::AuditFailed`]), a
    /// cancellation by the observer ([`Error::Cancelled`]).
    pub fn run(self) -> Result<Release> {
        if self.algorithm == Algorithm::SetBased {
            return Err(Error::Problem(ProblemError::NotANodeSearch(
                "the set-based search releases sets of values; use a level-based search here",
            )));
        }
        let data = self.dataset()?;
        let problem = Problem::new(data, &self.models, self.suppression_limit, &self.metric)?;
        let outcome = algorithm::run(&problem, self.algorithm, &self.genetic, self.observer)?;
        let best = outcome.best.ok_or(Error::NothingAcceptable)?;
        let order = self
            .order
            .unwrap_or_else(|| RowOrder::Shuffled(rand::random()));
        let released = Released::new(&problem, &best.levels)?;
        let rows = released.order(self.suppressed, order);
        let mut csv = Vec::new();
        released
            .write_to(&mut csv, &self.format, &rows)
            .map_err(|e| Error::io(Path::new(RELEASED), e))?;
        // the audit reads back what was written, as a recipient would
        let written = Table::from_reader(&csv[..], Path::new(RELEASED), &self.format)?;
        let quasi: Vec<String> = problem.data.quasi.iter().map(|q| q.name.clone()).collect();
        let public: Vec<String> = (0..problem.data.roles.len())
            .filter(|&c| problem.data.public[c])
            .map(|c| problem.data.table.header()[c].clone())
            .collect();
        let audit = audit::audit_table(
            &written,
            &Expected {
                quasi: &quasi,
                models: &self.models,
                original: &problem.data.table,
                safety: problem.data.confidentiality.as_deref(),
                rows: &rows,
                public: &public,
            },
        )?;
        if !audit.passed {
            return Err(Error::AuditFailed {
                path: PathBuf::from(RELEASED),
                violations: audit.violations,
            });
        }
        let levels = levels_map(&problem, &best.levels)
            .into_iter()
            .map(|(name, level)| (name, level.as_u64().unwrap_or(0) as u8))
            .collect();
        Ok(Release {
            levels,
            evaluation: best,
            nodes_evaluated: outcome.nodes_evaluated,
            order,
            rows,
            csv,
            audit,
        })
    }
}

/// An audited release of an in-memory table.
#[derive(Debug, Clone)]
pub struct Release {
    levels: Vec<(String, u8)>,
    evaluation: Evaluation,
    nodes_evaluated: usize,
    order: RowOrder,
    rows: Vec<usize>,
    csv: Vec<u8>,
    audit: Audit,
}

impl Release {
    /// The chosen level of each quasi-identifier, in column order.
    pub fn levels(&self) -> &[(String, u8)] {
        &self.levels
    }
    /// The released transformation: classes, suppressed rows, score.
    pub fn evaluation(&self) -> &Evaluation {
        &self.evaluation
    }
    /// Nodes of the lattice the search evaluated.
    pub fn nodes_evaluated(&self) -> usize {
        self.nodes_evaluated
    }
    /// The seed the rows were shuffled with (a key: keep it secret), or `None` when the
    /// input order was kept.
    pub fn seed(&self) -> Option<u64> {
        match self.order {
            RowOrder::Shuffled(seed) => Some(seed),
            RowOrder::Input => None,
        }
    }
    /// For each released row, the input row (0-based) it comes from: for the custodian
    /// only, as it undoes the shuffle.
    pub fn mapping(&self) -> &[usize] {
        &self.rows
    }
    /// What the independent audit found (it passed, or `run` would have failed).
    pub fn audit(&self) -> &Audit {
        &self.audit
    }
    /// The released table as audited CSV bytes.
    pub fn csv(&self) -> &[u8] {
        &self.csv
    }
    /// Writes the audited CSV to `w`.
    pub fn write_csv(&self, mut w: impl Write) -> std::io::Result<()> {
        w.write_all(&self.csv)?;
        w.flush()
    }
}
