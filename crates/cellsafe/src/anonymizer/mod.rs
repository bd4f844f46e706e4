//! The in-memory API: anonymize a [`Table`] already in memory, without a config file and
//! without touching the file system.
//!
//! [`Anonymizer`] collects what a job needs (attribute roles with their hierarchies,
//! privacy models, suppression limit, metric, search, row order) and [`Anonymizer::run`]
//! takes the same path as a `cellsafe anonymize` job: it binds the problem, searches, builds
//! the released table, writes it as CSV into memory, and audits what was written with the
//! independent audit of [`crate::release::audit`]. The [`Release`] it returns holds exactly
//! the audited bytes, so what [`Release::write_csv`] writes is what was checked. A caller
//! that keeps the release in memory as Arrow asks for `ReleaseForm::Arrow` (with the `arrow`
//! feature) instead: the release is then made as Arrow arrays, which the audit reads, and
//! kept as those.
//!
//! The same builder runs every capability of a job: [`from_dataset`](Anonymizer::from_dataset)
//! takes a table whose roles, hierarchies and confidential formulas are already resolved
//! (how the TOML job uses it), [`set_based`](Anonymizer::set_based) releases set-valued
//! cells, [`public_search`](Anonymizer::public_search) judges the release against a
//! recipient who knows the search, and `microaggregate`
//! shows aggregates instead of group labels.
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
//! assert!(release.audit().is_some_and(|a| a.passed));
//! let mut csv = Vec::new();
//! release.write_csv(&mut csv)?;
//! assert_eq!(csv.iter().filter(|&&b| b == b'\n').count(), 41); // header + 40 rows
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::path::{Path, PathBuf};
use std::time::Instant;

pub mod lgb;
mod release;

use release::{Body, Written};
pub use release::{Release, ReleaseForm, Timings};

use crate::algorithm::disclosure::public::{self, PublicSearch};
use crate::algorithm::genetic::GeneticSpec;
use crate::algorithm::local::mondrian::mondrian;
use crate::algorithm::local::utility::utility;
use crate::algorithm::local::{LocalSpec, Recoded};
use crate::algorithm::problem::Problem;
use crate::algorithm::setbased::{self, SetBasedSpec, SetTable};
use crate::algorithm::{self, Algorithm};
use crate::criteria::ModelSpec;
use crate::data::table::{CsvFormat, Table};
use crate::data::Role;
use crate::error::{AnonymizerError, DatasetError, Error, Result};
use crate::framework::dataset::{Dataset, Population};
use crate::hierarchy::{Builder, Hierarchy};
use crate::metric::MetricSpec;
use crate::observer::{Observer, Silent};
use crate::release::audit::{self, Audit, Expected, LocalExpected};
use crate::release::local_table::LocalTable;
use crate::release::microaggregation::Aggregator;
use crate::release::{Released, ReleasedTable, RowOrder, SuppressedRows};

/// Where the rows of an in-memory table are said to come from, in error messages.
const IN_MEMORY: &str = "<in-memory table>";
/// Largest buffer reserved ahead for the written release (a bound above it is not trusted
/// to be tight; the buffer then grows as needed).
const MAX_RESERVE: usize = u32::MAX as usize;

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

/// The input: a table with roles still to give, or a dataset with roles resolved.
enum Input<'a> {
    Table(&'a Table),
    Dataset(Box<Dataset>),
}

/// Builds and runs an anonymization of an in-memory table (see the module docs).
pub struct Anonymizer<'a> {
    input: Option<Input<'a>>,
    attributes: Vec<Attribute>,
    models: Vec<ModelSpec>,
    suppression_limit: f64,
    metric: MetricSpec,
    algorithm: Algorithm,
    /// A node to release instead of searching.
    levels: Option<Vec<u8>>,
    /// Rows of the smallest classes to suppress instead of the limit's rule (paper 003).
    smallest_within: Option<u64>,
    genetic: GeneticSpec,
    set_based: SetBasedSpec,
    local: LocalSpec,
    public_search: Option<PublicSearch>,
    aggregators: Option<Vec<Aggregator>>,
    observer: &'a dyn Observer,
    order: Option<RowOrder>,
    suppressed: SuppressedRows,
    format: CsvFormat,
    form: ReleaseForm,
    subset: Option<Vec<u32>>,
    before_audit: Option<&'a BeforeAudit<'a>>,
}

/// What [`Anonymizer::before_audit`] calls with the release's CSV bytes.
pub type BeforeAudit<'a> = dyn Fn(&[u8]) -> Result<()> + Sync + 'a;

impl<'a> Anonymizer<'a> {
    /// An anonymization of `table` with no attributes named yet, no model, no
    /// suppression, ARX's Loss metric and the optimal search.
    pub fn new(table: &'a Table) -> Anonymizer<'a> {
        Anonymizer::with_input(Input::Table(table))
    }

    /// An anonymization of `data`, whose roles, hierarchies and confidential formulas are
    /// already resolved (naming roles again is refused by [`run`](Self::run)).
    pub fn from_dataset(data: Dataset) -> Anonymizer<'a> {
        Anonymizer::with_input(Input::Dataset(Box::new(data)))
    }

    fn with_input(input: Input<'a>) -> Anonymizer<'a> {
        Anonymizer {
            input: Some(input),
            attributes: Vec::new(),
            models: Vec::new(),
            suppression_limit: 0.0,
            metric: MetricSpec::default(),
            algorithm: Algorithm::Optimal,
            levels: None,
            smallest_within: None,
            genetic: GeneticSpec::default(),
            set_based: SetBasedSpec::default(),
            local: LocalSpec::default(),
            public_search: None,
            aggregators: None,
            observer: &Silent,
            order: None,
            suppressed: SuppressedRows::Star,
            format: CsvFormat::default(),
            form: ReleaseForm::Csv,
            subset: None,
            before_audit: None,
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

    /// Adds every model of `models`.
    pub fn models(mut self, models: impl IntoIterator<Item = ModelSpec>) -> Self {
        self.models.extend(models);
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
    /// parameters, by default [`GeneticSpec::default`]; the set-based one with
    /// [`set_based`](Self::set_based)'s).
    pub fn algorithm(mut self, algorithm: Algorithm) -> Self {
        self.algorithm = algorithm;
        self
    }

    /// Suppresses the smallest classes within `rows` rows (paper 003's budget η: every class
    /// of a size whose classes, with all smaller ones, hold at most `rows` rows) instead of
    /// the suppression limit's rule; the released classes must still satisfy every model.
    pub fn suppress_smallest_within(mut self, rows: u64) -> Self {
        self.smallest_within = Some(rows);
        self
    }

    /// Releases node `levels` (one level per quasi-identifier, in header order) instead of
    /// searching, if it is acceptable; [`Release::found`] is false otherwise. Levels that
    /// are no node of the lattice are an error of [`attempt`](Self::attempt).
    pub fn levels(mut self, levels: Vec<u8>) -> Self {
        self.levels = Some(levels);
        self
    }

    /// The genetic search with parameters `spec`.
    pub fn genetic(mut self, spec: GeneticSpec) -> Self {
        self.algorithm = Algorithm::Genetic;
        self.genetic = spec;
        self
    }

    /// The set-based search of paper 002 with parameters `spec`: cells become sets of
    /// values, and no row is suppressed. It needs confidential formulas (a dataset with
    /// confidentiality, see [`from_dataset`](Self::from_dataset)).
    pub fn set_based(mut self, spec: SetBasedSpec) -> Self {
        self.algorithm = Algorithm::SetBased;
        self.set_based = spec;
        self
    }

    /// Local recoding by Mondrian with parameters `spec`: each group of rows gets its own
    /// generalization, checked against every model; no row is suppressed. The release has
    /// a group id column.
    pub fn local(mut self, spec: LocalSpec) -> Self {
        self.algorithm = Algorithm::Mondrian;
        self.local = spec;
        self
    }

    /// The search is public: release only what `public`'s strategy allows against a
    /// recipient who re-runs the search (paper 001). Needs no suppression.
    pub fn public_search(mut self, public: PublicSearch) -> Self {
        self.public_search = Some(public);
        self
    }

    /// Shows each quasi-identifier cell as its group's aggregate, one aggregator per
    /// quasi-identifier in column order.
    pub fn microaggregate(mut self, aggregators: Vec<Aggregator>) -> Self {
        self.aggregators = Some(aggregators);
        self
    }

    /// Reports progress to `observer`, and stops with [`Error::Cancelled`] when it says so.
    pub fn observer(mut self, observer: &'a dyn Observer) -> Self {
        self.observer = observer;
        self
    }

    /// Shuffles the released rows with `seed` (a key: whoever knows it recovers the
    /// input order). Without it a fresh seed is drawn from the operating system, at most
    /// [`MAX_SEED`](crate::release::MAX_SEED); keep a chosen one at most that too, so that
    /// a reader parsing JSON numbers into floats reads the report's seed exactly.
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

    /// How suppressed rows are written.
    pub fn suppressed_rows(mut self, suppressed: SuppressedRows) -> Self {
        self.suppressed = suppressed;
        self
    }

    /// Releases only `rows` (0-based rows of the input table): a research subset of the
    /// table, which is the population a recipient holds (see [`ModelSpec::DeltaPresence`]).
    pub fn research_subset(mut self, rows: Vec<u32>) -> Self {
        self.subset = Some(rows);
        self
    }

    /// The CSV dialect of the release (default: comma, double quote, a header).
    pub fn csv_format(mut self, format: CsvFormat) -> Self {
        self.format = format;
        self
    }

    /// The form the release is made in, audited and kept (default: CSV bytes).
    pub fn form(mut self, form: ReleaseForm) -> Self {
        self.form = form;
        self
    }

    /// Calls `stage` with the release's CSV bytes (in the CSV form) as soon as they are
    /// made, before the audit reads them back, so that a caller can start writing them to a
    /// file while the audit runs; an error it returns ends the attempt. The bytes are not
    /// audited yet: nobody may see them unless the attempt succeeds (a
    /// [`Transaction`](crate::release::output::Transaction) keeps a staged file
    /// owner-only until its commit, and removes it if dropped without one). The bytes
    /// are those [`Release::csv`] returns afterwards.
    pub fn before_audit(mut self, stage: &'a BeforeAudit<'a>) -> Self {
        self.before_audit = Some(stage);
        self
    }

    /// The input with its roles resolved and hierarchies built (taken: called once).
    fn dataset(&mut self) -> Result<Dataset> {
        let data = self.resolved()?;
        match self.subset.take() {
            Some(rows) => data.research_subset(rows),
            None => Ok(data),
        }
    }

    /// The input with its roles resolved.
    fn resolved(&mut self) -> Result<Dataset> {
        let table = match self.input.take() {
            Some(Input::Dataset(data)) => {
                if let Some(a) = self.attributes.first() {
                    return Err(DatasetError::RolesResolved(a.name.clone()).into());
                }
                return Ok(*data);
            }
            Some(Input::Table(table)) => table,
            None => return Err(DatasetError::RolesResolved(String::new()).into()),
        };
        let header = table.header();
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
                .map(|g| build(table, column, g))
                .transpose()?;
            match role {
                Role::QuasiIdentifying => hierarchies.push(
                    built.ok_or_else(|| Error::Dataset(DatasetError::NoHierarchy(name.clone())))?,
                ),
                Role::Sensitive => sensitive_hierarchies.push(built.map(|b| b.0)),
                _ => {}
            }
        }
        Dataset::new(table.clone(), roles, hierarchies, sensitive_hierarchies)?.with_public(public)
    }

    /// Runs the search, releases the best acceptable transformation and audits the
    /// written release. Errors: bad roles or hierarchies, no acceptable transformation
    /// ([`Error::NothingAcceptable`]), a failed audit ([`Error::AuditFailed`]), a
    /// cancellation by the observer ([`Error::Cancelled`]).
    pub fn run(self) -> Result<Release> {
        let release = self.attempt()?;
        if !release.found() {
            return Err(Error::NothingAcceptable);
        }
        Ok(release)
    }

    /// [`run`](Self::run), except that finding nothing to release is not an error: the
    /// release then holds no table ([`Release::found`] is false) but says what the search
    /// did, for a report.
    pub fn attempt(mut self) -> Result<Release> {
        let start = Instant::now();
        let data = self.dataset()?;
        data.unweighted("the anonymizer (it releases rows)")?;
        let mut problem = Problem::new(data, &self.models, self.suppression_limit, &self.metric)?;
        if let Some(rows) = self.smallest_within {
            if rows >= problem.data.rows() as u64 {
                return Err(AnonymizerError::BudgetTooLarge {
                    budget: rows,
                    rows: problem.data.rows(),
                }
                .into());
            }
            if matches!(self.algorithm, Algorithm::SetBased | Algorithm::Mondrian) {
                return Err(AnonymizerError::BudgetNotLevelBased.into());
            }
            if let Some(m) = problem.models.iter().find(|m| m.presence().is_some()) {
                return Err(AnonymizerError::PresenceWithBudget(m.spec.name()).into());
            }
            problem.suppress_smallest_within(rows);
        }
        self.check_subset(&problem)?;
        if let Some(m) = problem.models.iter().find(|m| m.presence().is_some()) {
            if matches!(self.algorithm, Algorithm::SetBased | Algorithm::Mondrian) {
                return Err(AnonymizerError::PresenceNotLevelBased(m.spec.name()).into());
            }
            if self.aggregators.is_some() {
                return Err(AnonymizerError::PresenceMicroaggregates(m.spec.name()).into());
            }
        }
        let mut release = self.unreleased(problem, start);
        if self.algorithm == Algorithm::SetBased {
            self.release_sets(&mut release)?;
        } else if self.algorithm == Algorithm::Mondrian {
            self.release_local(&mut release)?;
        } else {
            self.release_node(&mut release)?;
        }
        Ok(release)
    }

    /// Runs the full-domain search alone and releases nothing: the [`Release`] says what
    /// was found ([`Release::evaluation`]) but holds no table. This is the search of an
    /// engine that keeps the rows elsewhere ([`crate::engine`]): its dataset may be a
    /// frequency set (rows with weights). What needs the rows themselves is refused:
    /// set-based and local searches, a public search, microaggregation, a research subset,
    /// a suppression budget (a node of a Pareto front) and δ-presence.
    pub fn search(mut self) -> Result<Release> {
        let start = Instant::now();
        let refused = |what: &'static str| Err(AnonymizerError::NeedsRows(what).into());
        if matches!(self.algorithm, Algorithm::SetBased | Algorithm::Mondrian) {
            return refused("a set-based or local search");
        }
        if self.public_search.is_some() {
            return refused("a public search ([disclose])");
        }
        if self.aggregators.is_some() {
            return refused("microaggregation");
        }
        if self.smallest_within.is_some() {
            return refused("a suppression budget (a node of a Pareto front)");
        }
        let data = self.dataset()?;
        let problem = Problem::new(data, &self.models, self.suppression_limit, &self.metric)?;
        // a research subset (δ-presence) as a release of it checks it
        self.check_subset(&problem)?;
        let mut release = self.unreleased(problem, start);
        let clock = Instant::now();
        let outcome = self.search_node(&release.problem)?;
        release.best = outcome.best.clone();
        release.outcome = outcome;
        release.timings.search = clock.elapsed().as_secs_f64();
        Ok(release)
    }

    /// What a release of a research subset needs: not in the input's order (the members'
    /// positions would show), and no public column beside δ-presence (the population the
    /// recipient holds has none).
    fn check_subset(&self, problem: &Problem) -> Result<()> {
        if problem.data.population.is_some() && self.order == Some(RowOrder::Input) {
            return Err(AnonymizerError::SubsetInInputOrder.into());
        }
        if let Some(m) = problem.models.iter().find(|m| m.presence().is_some()) {
            if let Some(c) = (0..problem.data.roles.len()).find(|&c| problem.data.public[c]) {
                return Err(AnonymizerError::PresencePublicColumn {
                    model: m.spec.name(),
                    column: problem.data.table.header()[c].clone(),
                }
                .into());
            }
        }
        Ok(())
    }

    /// A release of `problem` with nothing found or written yet, in the configured order
    /// (a fresh seed when none was given), its encoding timed from `start`.
    fn unreleased(&self, problem: Problem, start: Instant) -> Release {
        Release {
            problem,
            algorithm: self.algorithm,
            outcome: Default::default(),
            best: None,
            disclosure: None,
            set_based: None,
            local: None,
            order: self
                .order
                .unwrap_or_else(|| RowOrder::Shuffled(crate::release::fresh_seed())),
            written: None,
            classes: None,
            timings: Timings {
                encode: start.elapsed().as_secs_f64(),
                ..Timings::default()
            },
        }
    }

    /// The search's outcome, or the configured node's evaluation.
    fn search_node(&self, problem: &Problem) -> Result<algorithm::Outcome> {
        Ok(match &self.levels {
            Some(levels) => {
                problem.check_levels(levels)?;
                let classes = problem.classes(levels);
                let evaluation = problem.check(levels, &classes);
                let acceptable = evaluation.acceptable;
                algorithm::Outcome {
                    best: acceptable.then_some(evaluation),
                    nodes_evaluated: 1,
                    best_classes: acceptable.then_some(classes),
                    ..algorithm::Outcome::default()
                }
            }
            None => algorithm::run(problem, self.algorithm, &self.genetic, self.observer)?,
        })
    }

    /// Searches the lattice and releases the node found (if a public search allows it).
    fn release_node(&self, release: &mut Release) -> Result<()> {
        let problem = &release.problem;
        let clock = Instant::now();
        let outcome = self.search_node(problem)?;
        let mut best = outcome.best.clone();
        if let (Some(public), Some(found)) = (&self.public_search, &outcome.best) {
            let (released, decision) = public::decide(problem, found, public, self.observer)?;
            best = released;
            release.disclosure = Some(decision);
        }
        release.timings.search = clock.elapsed().as_secs_f64();
        release.outcome = outcome;
        let Some(best) = best else {
            return Ok(());
        };
        let clock = Instant::now();
        // the search's classes of the node it found, unless a public search released another
        let classes = match release.outcome.best_classes.take() {
            Some(classes)
                if release
                    .outcome
                    .best
                    .as_ref()
                    .is_some_and(|found| found.levels == best.levels) =>
            {
                classes
            }
            _ => problem.classes(&best.levels),
        };
        let mut released = Released::with_classes(problem, &best.levels, &classes)?;
        if let Some(aggregators) = &self.aggregators {
            released = released.microaggregated(aggregators)?;
        }
        let rows = released.order(self.suppressed, release.order);
        release.timings.release = clock.elapsed().as_secs_f64();
        let (body, written, of_row, clock) =
            self.make_and_read(&released, &rows, true, &mut release.timings)?;
        let data = &problem.data;
        let quasi: Vec<String> = data.quasi.iter().map(|q| q.name.clone()).collect();
        let public: Vec<String> = (0..data.roles.len())
            .filter(|&c| data.public[c])
            .map(|c| data.table.header()[c].clone())
            .collect();
        let presence = match (&data.population, &self.aggregators) {
            (Some(population), None) => Some(presence_expected(problem, population, &best.levels)),
            _ => None,
        };
        let mut audit = audit::audit_table(
            audit::ReadBack::lines(&written, of_row.as_deref()),
            &Expected {
                quasi: &quasi,
                models: &self.models,
                original: &data.table,
                safety: data.confidentiality.as_deref(),
                rows: &rows,
                public: &public,
                presence: presence.as_ref(),
            },
        )?;
        if !audit.passed && !public.is_empty() {
            audit.violations.push(format!(
                "public columns ({}) are known to the recipient and split the classes \
                 they vary in: mark a column that tells persons apart quasi-identifying",
                public.join(", ")
            ));
        }
        release.timings.audit = clock.elapsed().as_secs_f64();
        check_audit(&audit)?;
        let warnings = released.warnings().to_vec();
        release.best = Some(best);
        release.classes = Some(classes);
        release.written = Some(Written {
            rows,
            body,
            audit,
            warnings,
        });
        Ok(())
    }

    /// Runs the set-based search and releases its table of set-valued cells when safe.
    fn release_sets(&self, release: &mut Release) -> Result<()> {
        let problem = &release.problem;
        let clock = Instant::now();
        let (table, found) = setbased::run_observed(problem, &self.set_based, self.observer)?;
        release.timings.search = clock.elapsed().as_secs_f64();
        let safe = found.search.safe;
        release.set_based = Some(found);
        if !safe {
            return Ok(());
        }
        let clock = Instant::now();
        let rows = crate::release::row_order(0..table.rows(), release.order);
        release.timings.release = clock.elapsed().as_secs_f64();
        let (body, written, _, clock) =
            self.make_and_read(&table, &rows, false, &mut release.timings)?;
        let schema = SetTable::new(problem, &self.set_based.families())?;
        let audit = audit::audit_set_based_table(&written, &schema)?;
        keep_audited(release, clock, audit, rows, body)
    }
}

impl Anonymizer<'_> {
    /// Partitions the rows by Mondrian and releases each group's generalized values.
    fn release_local(&self, release: &mut Release) -> Result<()> {
        let problem = &release.problem;
        let clock = Instant::now();
        let partition = mondrian(problem, &self.local, self.observer)?;
        release.timings.search = clock.elapsed().as_secs_f64();
        let Some(partition) = partition else {
            return Ok(());
        };
        let clock = Instant::now();
        let recoded = Recoded::new(problem, partition);
        let rows = crate::release::row_order(0..problem.data.rows(), release.order);
        let table = LocalTable::new(problem, &recoded, &rows);
        release.timings.release = clock.elapsed().as_secs_f64();
        let (body, written, _, clock) =
            self.make_and_read(&table, &rows, false, &mut release.timings)?;
        let data = &problem.data;
        let quasi: Vec<(String, &Hierarchy)> = data
            .quasi
            .iter()
            .map(|q| (q.name.clone(), &q.hierarchy))
            .collect();
        let identifying: Vec<String> = (0..data.roles.len())
            .filter(|&c| data.roles[c] == Role::Identifying)
            .map(|c| data.table.header()[c].clone())
            .collect();
        let audit = audit::audit_local_table(
            &written,
            &LocalExpected {
                quasi: &quasi,
                identifying: &identifying,
                models: &self.models,
                original: &data.table,
                rows: &rows,
                gid: table.gid_name(),
            },
        )?;
        release.local = Some(utility(&recoded));
        keep_audited(release, clock, audit, rows, body)
    }
}

/// `released`'s rows `rows` as CSV bytes.
fn write(released: &dyn ReleasedTable, format: &CsvFormat, rows: &[usize]) -> Result<Vec<u8>> {
    // growing a buffer of megabytes by doubling copies it and touches fresh pages
    let capacity = released
        .row_bytes_bound()
        .and_then(|b| b.checked_mul(rows.len() + 1))
        .filter(|&c| c <= MAX_RESERVE)
        .unwrap_or(0);
    let mut csv = Vec::with_capacity(capacity);
    released
        .write_to(&mut csv, format, rows)
        .map_err(|e| Error::io(Path::new(RELEASED), e))?;
    Ok(csv)
}

impl Anonymizer<'_> {
    /// Makes `released`'s rows `rows` in the release's form (timed as `timings.write`)
    /// and reads them back as a recipient would, for the audit. Returns what was made,
    /// the table read back, with `lines` perhaps of its distinct lines only and each row's
    /// line among them ([`Table::from_bytes_lines`]), and the audit's clock, started
    /// before the reading.
    fn make_and_read(
        &self,
        released: &dyn ReleasedTable,
        rows: &[usize],
        lines: bool,
        timings: &mut Timings,
    ) -> Result<(Body, Table, Option<Vec<u32>>, Instant)> {
        let clock = Instant::now();
        match self.form {
            ReleaseForm::Csv => {
                let csv = write(released, &self.format, rows)?;
                if let Some(stage) = self.before_audit {
                    stage(&csv)?;
                }
                timings.write = clock.elapsed().as_secs_f64();
                let clock = Instant::now();
                // the release names its columns in a header row, whether the input had
                // one or not
                let read_back = CsvFormat {
                    header: true,
                    ..self.format.clone()
                };
                let name = Path::new(RELEASED);
                let (written, of_row) = if lines {
                    Table::from_bytes_lines(&csv, name, &read_back)?
                } else {
                    (Table::from_bytes(&csv, name, &read_back)?, None)
                };
                Ok((Body::Csv(csv), written, of_row, clock))
            }
            #[cfg(feature = "arrow")]
            ReleaseForm::Arrow => {
                use crate::release::columnar;
                let name = Path::new(RELEASED);
                let (schema, strings) =
                    columnar::strings(released, rows).map_err(|e| Error::io(name, e))?;
                let header: Vec<String> =
                    schema.fields().iter().map(|f| f.name().clone()).collect();
                let set_based = self.algorithm == Algorithm::SetBased;
                let types = columnar::release_types(released.problem(), &header, set_based);
                let (typed_schema, typed) =
                    columnar::typed(&strings, &types).map_err(|e| Error::io(name, e))?;
                timings.write = clock.elapsed().as_secs_f64();
                let clock = Instant::now();
                // the audit reads the strings, as a recipient prints the columns
                let written = Table::from_arrow(schema, &strings, name, &Silent)?;
                Ok((Body::Arrow(typed_schema, typed), written, None, clock))
            }
        }
    }
}

/// Times the audit from `clock`, stops on a failed one, and keeps the audited bytes
/// (releases without warnings: set-based and local ones).
fn keep_audited(
    release: &mut Release,
    clock: Instant,
    audit: Audit,
    rows: Vec<usize>,
    body: Body,
) -> Result<()> {
    release.timings.audit = clock.elapsed().as_secs_f64();
    check_audit(&audit)?;
    release.written = Some(Written {
        rows,
        body,
        audit,
        warnings: Vec::new(),
    });
    Ok(())
}

/// A failed audit stops the release.
fn check_audit(audit: &Audit) -> Result<()> {
    if audit.passed {
        return Ok(());
    }
    Err(Error::AuditFailed {
        path: PathBuf::from(RELEASED),
        violations: audit.violations.clone(),
    })
}

/// Builds the hierarchy of `table`'s column `column` from `g`.
fn build(table: &Table, column: usize, g: &Generalization) -> Result<(Hierarchy, PathBuf)> {
    let name = &table.header()[column];
    match g {
        Generalization::Hierarchy(h) => Ok((
            h.clone(),
            PathBuf::from(format!("the hierarchy of `{name}`")),
        )),
        Generalization::Builder(b) => {
            b.check_column(table, column, &[], &format!("the builder of `{name}`"))?;
            let key = format!("quasi_identifier({name})");
            let built = b.build(table.dictionary(column).values(), IN_MEMORY, &key)?;
            Ok((built, PathBuf::from(format!("the builder of `{name}`"))))
        }
    }
}

/// What the audit of δ-presence reads: the population, and the label each of its values
/// is released as at `levels`.
pub(crate) fn presence_expected<'a>(
    problem: &Problem,
    population: &'a Population,
    levels: &[u8],
) -> audit::PresenceExpected<'a> {
    let labels = problem
        .data
        .quasi
        .iter()
        .zip(levels)
        .map(|(q, &level)| {
            let (h, level) = (&q.hierarchy, level as usize);
            let column = population
                .table
                .column_index(&q.name)
                .expect("the population has the dataset's columns");
            population
                .table
                .dictionary(column)
                .values()
                .iter()
                .filter_map(|v| {
                    let leaf = h.leaf(v)?;
                    Some((v.clone(), h.label(level, h.code(level, leaf)).to_owned()))
                })
                .collect()
        })
        .collect();
    audit::PresenceExpected {
        population: &population.table,
        weights: population.weights.as_deref().map(Vec::as_slice),
        labels,
    }
}
