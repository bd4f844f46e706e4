//! Typed errors of the library.
//!
//! Every error that comes from user input says where the input went wrong: a file with
//! its line and column, or a configuration key. Front ends print the `Display` form as is.
//!
//! [`Error`] is the library's one error type. Each layer's own failures are typed enums
//! wrapped in it: [`DataError`] (data), [`CriteriaError`] (criteria), [`MetricError`]
//! (metric), [`DatasetError`] (framework), [`ProblemError`], [`DisclosureError`] and
//! [`ParetoError`] (algorithm), [`ReleaseError`] (release), [`AnonymizerError`]
//! (anonymizer), [`EngineError`] (engine), [`CenterError`] and [`QueryError`] (gatekeeper), [`JobError`] (job).
//! Errors of input files carry their [`Location`] (`Error::Data`), of the config its key
//! (`Error::Config`); the job layer turns a criteria or metric error into the key of the
//! `[[privacy]]` or `[metric]` entry at fault. The enums live here, below every layer, so
//! that each layer can return them without importing a layer above it.

mod anonymizer;
mod criteria;
mod engine;
mod gatekeeper;
mod job;
mod metric;

pub use anonymizer::AnonymizerError;
pub use criteria::CriteriaError;
pub(crate) use criteria::CriteriaErrorKind;
pub use engine::EngineError;
pub use gatekeeper::CenterError;
pub use job::JobError;
pub use metric::MetricError;

use std::fmt;
use std::path::PathBuf;

/// A place in a user-supplied file: path, and line / column when known (both 1-based).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    /// The file concerned.
    path: PathBuf,
    /// 1-based line, when known.
    pub line: Option<u64>,
    /// 1-based column, when known.
    pub column: Option<u64>,
}

impl Location {
    /// A whole file (no line).
    pub(crate) fn file(path: impl Into<PathBuf>) -> Self {
        Location {
            path: path.into(),
            line: None,
            column: None,
        }
    }
    /// The file concerned.
    pub(crate) fn path(&self) -> &std::path::Path {
        &self.path
    }
    /// A line, and a column when known, of a file.
    pub(crate) fn at(path: impl Into<PathBuf>, line: u64, column: Option<u64>) -> Self {
        Location {
            path: path.into(),
            line: Some(line),
            column,
        }
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.path.display())?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
            if let Some(column) = self.column {
                write!(f, ":{column}")?;
            }
        }
        Ok(())
    }
}

/// Everything that can go wrong in cellsafe.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A file could not be read or written. The cause is part of the message and is not
    /// also reported as `source()`, so a printed error chain names it once.
    #[error("{path}: {cause}")]
    Io {
        /// The file concerned.
        path: PathBuf,
        /// What the operating system reported.
        cause: std::io::Error,
    },
    /// A data or hierarchy file is malformed or inconsistent.
    #[error("{at}: {message}")]
    Data {
        /// Where in the file.
        at: Location,
        /// What is wrong.
        message: String,
    },
    /// The configuration file does not parse.
    #[error("{at}: {message}")]
    ConfigSyntax {
        /// Where in the file.
        at: Location,
        /// What is wrong.
        message: String,
    },
    /// A configuration key has a value that cannot be used.
    #[error("{file}: config key `{key}`: {message}")]
    Config {
        /// The configuration file.
        file: String,
        /// The key at fault, dotted (`privacy[1].k`).
        key: String,
        /// What is wrong.
        message: String,
    },
    /// A privacy model that cannot be used (criteria layer); outside a config the message
    /// names the model: `5-anonymity: k must be at least 1`.
    #[error("{}: {}", .0.model, .0.kind)]
    Criteria(#[from] CriteriaError),
    /// A metric that cannot be used (metric layer): `metric: gs_factor must lie in [0, 1]`.
    #[error("metric: {0}")]
    Metric(#[from] MetricError),
    /// The data model cannot hold what it was given (data layer).
    #[error(transparent)]
    DataModel(#[from] DataError),
    /// A table, its roles and its hierarchies do not fit together (framework layer).
    #[error(transparent)]
    Dataset(#[from] DatasetError),
    /// A problem cannot be set up or asked this (algorithm layer).
    #[error(transparent)]
    Problem(#[from] ProblemError),
    /// A disclosure instance is malformed (paper 001, algorithm layer).
    #[error(transparent)]
    Disclosure(#[from] DisclosureError),
    /// A release cannot be built or audited as asked (release layer).
    #[error(transparent)]
    Release(#[from] ReleaseError),
    /// A multi-objective search that cannot run as given (paper 003).
    #[error(transparent)]
    Pareto(#[from] ParetoError),
    /// A query to the gatekeeper that it cannot answer as asked (gatekeeper layer).
    #[error(transparent)]
    Query(#[from] QueryError),
    /// Anonymizer settings that cannot run together (anonymizer layer).
    #[error(transparent)]
    Anonymizer(#[from] AnonymizerError),
    /// A gatekeeper center that cannot be set up as given (gatekeeper layer).
    #[error(transparent)]
    Center(#[from] CenterError),
    /// A job that cannot run as asked (job layer).
    #[error(transparent)]
    Job(#[from] JobError),
    /// A pass of an engine that keeps the rows outside memory (engine layer).
    #[error(transparent)]
    Engine(#[from] EngineError),
    /// A value could not be written as JSON. The cause is the message and is not also
    /// reported as `source()`, as for [`Error::Io`].
    #[error("{0}")]
    Json(serde_json::Error),
    /// The pool of worker threads could not be started. The cause is part of the message
    /// and is not also reported as `source()`, as for [`Error::Io`].
    #[error("cannot start worker threads: {0}")]
    Threads(rayon::ThreadPoolBuildError),
    /// An exact method cannot handle an instance this large (a budget was exceeded, or a
    /// count does not fit in 128 bits); another method may.
    #[error("too large for this method: {0}")]
    Intractable(String),
    /// An output path names the same file as an input or as another output, so writing it
    /// would destroy data. `input_what` / `input` is the other output in the second case.
    #[error(
        "{output_what} {output} is the same file as {input_what} {input}; choose another path"
    )]
    PathClash {
        /// What the output is (`the released table`).
        output_what: String,
        /// The output path.
        output: PathBuf,
        /// What the other file is (`the data file`, or another output).
        input_what: String,
        /// The other path.
        input: PathBuf,
    },
    /// An output path names an existing file that is not a regular file (a device, a FIFO,
    /// a socket, a directory, or a symlink to one): it would be replaced, not written to.
    #[error(
        "{what} {path} is {kind}, not a regular file: cellsafe writes only regular files \
         (it would replace this one); choose another path"
    )]
    NotRegularOutput {
        /// What the output is (`the report`).
        what: String,
        /// The output path, as given.
        path: PathBuf,
        /// What the file is (`a FIFO`, `a character device`, ...).
        kind: &'static str,
    },
    /// Another live process holds the lock on an output.
    #[error("another cellsafe run is writing {path} (it holds the lock {lock})")]
    Busy {
        /// The file concerned.
        path: PathBuf,
        /// Its lock file.
        lock: PathBuf,
    },
    /// No transformation satisfies the privacy models within the suppression limit.
    #[error("no transformation satisfies the privacy models within the suppression limit")]
    NothingAcceptable,
    /// An [`Observer`](crate::observer::Observer) asked the work to stop; it stopped
    /// without a result.
    #[error("cancelled")]
    Cancelled,
    /// The run was interrupted; nothing more is written.
    #[error("interrupted: no output was written")]
    Interrupted,
    /// Renaming a staged file onto its target failed. Targets renamed before it keep their
    /// new content and are listed in `committed`.
    #[error("{path}: {cause}{}", incomplete(.committed))]
    Commit {
        /// The file concerned.
        path: PathBuf,
        /// What the operating system reported.
        cause: std::io::Error,
        /// Targets already renamed into place.
        committed: Vec<PathBuf>,
    },
    /// The independent audit of a staged release failed: nothing was written.
    #[error("{path}: the independent audit of the release failed, so nothing was written: {}", .violations.join("; "))]
    AuditFailed {
        /// The file concerned.
        path: PathBuf,
        /// The first violations found.
        violations: Vec<String>,
    },
}

/// Errors of the data layer beyond a located bad value (those are [`Error::Data`]).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum DataError {
    /// A row of an in-memory table with another number of fields than the header.
    #[error("row {row} has {fields} fields, the header has {header}")]
    RowLength {
        /// The row, 1-based.
        row: usize,
        /// Its fields.
        fields: usize,
        /// The header's columns.
        header: usize,
    },
    /// Two columns of an in-memory table share a name (roles are given by name).
    #[error("duplicate column name `{0}` in the header")]
    DuplicateColumn(String),
    /// One CON set per row is required.
    #[error("one CON set per row is required: {rows} rows, {sets} CON sets")]
    ConSets {
        /// Rows.
        rows: usize,
        /// CON sets given.
        sets: usize,
    },
    /// A formula whose clausal normal form is too large.
    #[error("formula `{id}` has more than {limit} clauses in clausal form")]
    TooManyClauses {
        /// The formula id.
        id: String,
        /// The clause limit.
        limit: usize,
    },
}

/// Errors of the framework layer: a table, its roles and its hierarchies.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum DatasetError {
    /// A column named by the caller is not in the table.
    #[error("the table has no column `{0}`")]
    NoColumn(String),
    /// One role per column is required.
    #[error("one role per column is required: {columns} columns, {roles} roles")]
    Roles {
        /// Columns of the table.
        columns: usize,
        /// Roles given.
        roles: usize,
    },
    /// One hierarchy per quasi-identifier is required.
    #[error("one hierarchy per quasi-identifier is required: {quasi} quasi-identifiers, {hierarchies} hierarchies")]
    Hierarchies {
        /// Quasi-identifiers of the table.
        quasi: usize,
        /// Hierarchies given.
        hierarchies: usize,
    },
    /// A quasi-identifier was given no hierarchy.
    #[error("quasi-identifier `{0}` has no hierarchy")]
    NoHierarchy(String),
    /// A role given to a column of a dataset whose roles are already resolved.
    #[error("the dataset's roles are already resolved; no role can be given to `{0}`")]
    RolesResolved(String),
    /// One public flag per column is required.
    #[error("one public flag per column is required: {columns} columns, {flags} flags")]
    PublicFlags {
        /// Columns of the table.
        columns: usize,
        /// Public flags given.
        flags: usize,
    },
    /// Only an insensitive column may be public.
    #[error("column `{0}` is not insensitive, so it cannot be public")]
    PublicNotInsensitive(String),
    /// The quasi-identifiers' value counts overflow a 128-bit class key.
    #[error("too many quasi-identifier values to pack a class key into 128 bits")]
    KeyOverflow,
    /// A research subset's row that is not a row of the table, or is given twice.
    #[error("research subset row {row} is not a row of the table ({rows} rows) or is given twice")]
    SubsetRow {
        /// The 0-based row given.
        row: u32,
        /// Rows of the table.
        rows: usize,
    },
    /// A research subset drawn after confidential formulas were attached.
    #[error(
        "draw the research subset before attaching confidential formulas (they belong to its rows)"
    )]
    SubsetAfterSafety,
    /// A research subset drawn from a research subset.
    #[error("the table is already a research subset of a population")]
    SubsetOfSubset,
    /// A research subset without rows.
    #[error("the research subset of {0} holds no rows")]
    EmptySubset(PathBuf),
    /// A semi-sensitive column outside local generalization and bucketization.
    #[error(
        "column `{0}` is semi-sensitive: only local generalization and bucketization \
         (algorithm = \"lgb\") protects it cell by cell"
    )]
    SemiSensitive(String),
    /// Row weights that are not one per row.
    #[error("one weight per row is required: {rows} rows, {weights} weights")]
    WeightsLength {
        /// Rows of the table.
        rows: usize,
        /// Weights given.
        weights: usize,
    },
    /// A row weight of 0 (every row of a frequency set stands for at least one person).
    #[error("row {0} (0-based) has weight 0: every weight must be at least 1")]
    ZeroWeight(usize),
    /// Row weights adding up to more persons than a class count holds.
    #[error("the row weights add up to {0} persons, more than 4294967295")]
    TooManyPersons(u64),
    /// A feature that needs one row per person, on a weighted dataset (a frequency set).
    #[error(
        "{0} needs one row per person and cannot run on a weighted dataset (a frequency \
         set); use the full table"
    )]
    WeightedUnsupported(&'static str),
}

/// Errors of the algorithm layer: a problem that cannot be set up, or a question a problem
/// cannot answer.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ProblemError {
    /// The suppression limit is a share of rows.
    #[error("the suppression limit must lie in [0, 1], not {0}")]
    SuppressionLimit(f64),
    /// Nothing to generalize.
    #[error("at least one quasi-identifier is required")]
    NoQuasiIdentifier,
    /// The table has a header but no rows.
    #[error("{0} has no data rows")]
    NoRows(PathBuf),
    /// The lattice is larger than the searches accept.
    #[error(
        "the generalization lattice has more than {0} transformations; use fewer \
         quasi-identifiers or shorter hierarchies"
    )]
    LatticeTooLarge(usize),
    /// Levels that are not a node of the lattice.
    #[error(
        "levels {levels:?} are not a transformation: expected {dimensions} levels, one per \
         quasi-identifier in header order: {}",
        names.iter().zip(maxima).map(|(n, m)| format!("{n} (0 to {m})")).collect::<Vec<_>>().join(", ")
    )]
    Levels {
        /// The levels given.
        levels: Vec<u8>,
        /// Quasi-identifiers of the lattice.
        dimensions: usize,
        /// Highest level of each quasi-identifier.
        maxima: Vec<u8>,
        /// The quasi-identifiers, in header order.
        names: Vec<String>,
    },
    /// A setting local recoding cannot use.
    #[error("{0}")]
    Local(String),
    /// The operation needs the persons' confidential formulas (`[safety]`).
    #[error("{0} needs a [safety] section (confidential formulas)")]
    NeedsSafety(&'static str),
    /// An enumerating search (every node's evaluation kept) over too large a lattice.
    #[error(
        "an exhaustive search keeps every transformation's evaluation and accepts at most \
         {max}; this lattice has {size} (use \"optimal\" or \"minimal\" over chains, or \
         shorter hierarchies)"
    )]
    TooManyToEnumerate {
        /// Nodes of the lattice.
        size: usize,
        /// The most accepted.
        max: usize,
    },
    /// The set-based search releases cells, not a node of the lattice.
    #[error("set-based generalization is not a search of the lattice's nodes: {0}")]
    NotANodeSearch(&'static str),
    /// A set-based generalization that the attribute's family cannot express.
    #[error("{0}")]
    SetBased(String),
    /// The goal-directed search cannot make the table safe.
    #[error(
        "the goal-directed search cannot make the table safe: some confidential formula \
         holds whatever the cells"
    )]
    Unsatisfiable,
    /// A search parameter out of its range.
    #[error("{name} {message}")]
    Parameter {
        /// Its name.
        name: String,
        /// What is wrong.
        message: String,
    },
    /// δ-presence (`presence`, by its name) with a model that suppresses the smallest
    /// classes or estimates from the sample (`other`): which classes were suppressed would
    /// tell who is in the subset.
    #[error(
        "{presence} cannot be combined with {other}: it suppresses the smallest classes, and a \
         recipient who holds the population would learn from which ones were suppressed who \
         is in the subset"
    )]
    PresenceCombined {
        /// The δ-presence model's name.
        presence: String,
        /// The other model's name.
        other: String,
    },
}

/// A query the gatekeeper cannot answer as asked: the front end turns it into a client error.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum QueryError {
    /// The query names a column the table does not have.
    #[error("unknown column `{0}`")]
    UnknownColumn(String),
    /// The query selects no column the recipient may receive.
    #[error("the query selects no column that may be released (identifying columns are dropped)")]
    NoColumns,
    /// A condition tests an identifying column: the answer would tell who each row is.
    #[error("column `{0}` is identifying: a query may not select rows by it")]
    Identifying(String),
    /// With decisions from public information only, a condition tests a column that is
    /// not public: the rows it selects would depend on values the recipient does not hold.
    #[error(
        "column `{0}` is not quasi-identifying: with `decide = \"public\"`, conditions may test only quasi-identifying columns"
    )]
    NotPublic(String),
    /// An ordering comparison on a column whose values are not all numbers.
    #[error("column `{0}` is not numeric: only `=`, `<>`, `IN` and `NOT IN` can test it")]
    NotOrdered(String),
    /// A literal compared with a numeric column is not a number.
    #[error("column `{column}` is numeric, but `{value}` is not a number")]
    NotNumber {
        /// The column tested.
        column: String,
        /// The literal as written.
        value: String,
    },
}

/// Errors of a multi-objective search (paper 003): objectives, budget, discretization.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ParetoError {
    /// No objective was given.
    #[error("at least one objective is required")]
    NoObjectives,
    /// An objective names an attribute the dataset does not have in the needed role.
    #[error("objective {objective}: `{name}` is not a sensitive attribute of the dataset")]
    NotSensitive {
        /// The objective's position (0-based).
        objective: usize,
        /// The attribute named.
        name: String,
    },
    /// The suppression budget leaves nothing to release.
    #[error("the suppression budget ({budget} rows) must be below the number of rows ({rows})")]
    Budget {
        /// Rows that may be suppressed.
        budget: u64,
        /// Rows in the table.
        rows: u64,
    },
    /// The discretization vector does not fit the objectives.
    #[error("the discretization vector needs one positive, finite entry per objective ({objectives}), got {got:?}")]
    Eps {
        /// Objectives.
        objectives: usize,
        /// What was given.
        got: Vec<f64>,
    },
    /// An evolutionary parameter out of its domain.
    #[error("{0}")]
    Parameter(String),
}

/// Errors of a disclosure instance (paper 001).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum DisclosureError {
    /// One sensitive value per person is required.
    #[error("{persons} persons but {values} sensitive values")]
    Lengths {
        /// Persons given.
        persons: usize,
        /// Values given.
        values: usize,
    },
    /// Too many distinct sensitive values for the counting methods.
    #[error("{values} distinct sensitive values; at most {max} are supported")]
    TooManyValues {
        /// Values given.
        values: usize,
        /// The most supported.
        max: usize,
    },
    /// A sensitive code with no value.
    #[error("sensitive code {0} has no value")]
    Code(usize),
    /// No generalization to decide over.
    #[error("the sequence of generalizations is empty")]
    NoGeneralization,
    /// A generalization over another number of rows than the table's.
    #[error("generalization `{name}` covers {rows} rows, the table has {table}")]
    Rows {
        /// Its name.
        name: String,
        /// Rows.
        rows: usize,
        /// Rows of the table.
        table: usize,
    },
    /// The estimator's confidence is a probability strictly between 0 and 1.
    #[error("confidence must lie in (0, 1), got {0}")]
    Confidence(f64),
    /// The estimator draws at least one sample.
    #[error("the estimator needs at least one sample")]
    NoSamples,
    /// Only the exact methods give exact counts.
    #[error("{0} does not give exact counts")]
    NotExact(String),
    /// A public search with suppression: which rows are suppressed would depend on the
    /// sensitive values.
    #[error(
        "a public search needs suppression_limit = 0: which rows are suppressed would \
         depend on the sensitive values"
    )]
    PublicSearchSuppresses,
    /// Logical safety among the models of a public search (by its index).
    #[error(
        "logical safety cannot be the release test of a public search: the disclosure sets \
         know only the sensitive attribute"
    )]
    LogicalSafetyTest(usize),
    /// A public search is judged on exactly one sensitive attribute.
    #[error("disclosure needs exactly one sensitive attribute, found {0}")]
    SensitiveCount(usize),
    /// A model (by its name) not decided by each class's own rows (sample-based models,
    /// δ-presence): the disclosure sets test each class alone.
    #[error(
        "{0} is not decided by each class's own rows; the disclosure sets of [disclose] test \
         each class alone and cannot take it"
    )]
    NotClassLocal(String),
}

/// Errors of the release layer: a release that cannot be built or audited as asked.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ReleaseError {
    /// The released table lacks a column the audit must read.
    #[error("released table has no column `{0}`")]
    NoColumn(String),
    /// The set-based audit needs the persons' confidential formulas.
    #[error("the set-based audit needs a [safety] section")]
    NeedsSafety,
    /// A file staged that was not named when the output transaction began.
    #[error("{0} was not given when the output transaction began")]
    NotATarget(PathBuf),
    /// A file staged twice in one transaction.
    #[error("{0} is already staged for writing")]
    AlreadyStaged(PathBuf),
    /// An output path that names no file (`.`, `/`, a path ending in `..`).
    #[error("{0} does not name a file")]
    NotAFile(PathBuf),
    /// Microaggregation needs one aggregator per quasi-identifier.
    #[error(
        "microaggregation needs one aggregator per quasi-identifier ({quasi}), got {aggregators}"
    )]
    Aggregators {
        /// Quasi-identifiers of the table.
        quasi: usize,
        /// Aggregators given.
        aggregators: usize,
    },
    /// A mean over a value that is not a number.
    #[error("`{column}` is continuous, but value `{value}` is not a number; declare it ordinal or nominal")]
    NotNumeric {
        /// 1-based column, when known.
        column: String,
        /// The value, cut to an excerpt.
        value: String,
    },
    /// A columnar file staged for the release does not read back as the audited release:
    /// nothing was written.
    #[error(
        "{at}: the file written does not hold the audited release, so nothing was written: {what}"
    )]
    Unfaithful {
        /// The output, and the row where they differ.
        at: Location,
        /// What differs.
        what: String,
    },
    /// A release that cannot be written in the format asked.
    #[error("{path}: {what} cannot be written as {format} (yet): write it as CSV")]
    Format {
        /// The output.
        path: PathBuf,
        /// What the release is (`an LGB release`).
        what: String,
        /// The format asked.
        format: &'static str,
    },
}

fn incomplete(committed: &[PathBuf]) -> String {
    if committed.is_empty() {
        return String::new();
    }
    let names: Vec<String> = committed.iter().map(|p| p.display().to_string()).collect();
    format!(
        " (the release is incomplete: already written: {})",
        names.join(", ")
    )
}

impl Error {
    /// The same error naming `user` where it named `internal` (a staged temporary file).
    pub fn with_path(self, internal: &std::path::Path, user: &std::path::Path) -> Error {
        match self {
            Error::Io { path, cause } if path == internal => Error::Io {
                path: user.to_owned(),
                cause,
            },
            Error::Data { mut at, message } if at.path == internal => {
                at.path = user.to_owned();
                Error::Data { at, message }
            }
            other => other,
        }
    }

    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io {
            path: path.into(),
            cause: source,
        }
    }
    pub(crate) fn data(at: Location, message: impl Into<String>) -> Self {
        Error::Data {
            at,
            message: message.into(),
        }
    }
    pub(crate) fn config(
        file: impl Into<String>,
        key: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        Error::Config {
            file: file.into(),
            key: key.into(),
            message: message.into(),
        }
    }
}

/// The library's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Most characters of a user value [`excerpt`] echoes into a message.
const EXCERPT_CHARS: usize = 40;

/// `value` cut to [`EXCERPT_CHARS`] characters (then `…`), for echoing user data into an
/// error message: a value can be megabytes long.
pub(crate) fn excerpt(value: &str) -> std::borrow::Cow<'_, str> {
    cut(value, EXCERPT_CHARS)
}

/// `text` cut to `chars` characters (then `…`), on a char boundary.
pub(crate) fn cut(text: &str, chars: usize) -> std::borrow::Cow<'_, str> {
    match text.char_indices().nth(chars) {
        None => text.into(),
        Some((at, _)) => format!("{}…", &text[..at]).into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The variants that replaced `Error::Invalid` say what it said.
    #[test]
    fn typed_messages_are_those_of_the_untyped_errors() {
        let presence = ProblemError::PresenceCombined {
            presence: "(0.1, 0.5)-presence".into(),
            other: "5-anonymity".into(),
        };
        let message = "(0.1, 0.5)-presence cannot be combined with 5-anonymity: it suppresses \
                       the smallest classes, and a recipient who holds the population would \
                       learn from which ones were suppressed who is in the subset";
        assert_eq!(presence.to_string(), message);
        assert_eq!(Error::from(presence).to_string(), message);

        let local = DisclosureError::NotClassLocal("population uniqueness".into());
        let message = "population uniqueness is not decided by each class's own rows; the \
                       disclosure sets of [disclose] test each class alone and cannot take it";
        assert_eq!(local.to_string(), message);
        assert_eq!(Error::from(local).to_string(), message);

        // a map with keys that are not strings has no JSON form
        let cause =
            serde_json::to_string(&std::collections::BTreeMap::from([((1, 2), 3)])).unwrap_err();
        let message = cause.to_string();
        assert_eq!(Error::Json(cause).to_string(), message);

        // the global pool can be built once: one of two attempts fails (the default
        // settings, so the pool other tests find is the one they would have had)
        let first = rayon::ThreadPoolBuilder::new().build_global();
        let second = rayon::ThreadPoolBuilder::new().build_global();
        let cause = first.err().or(second.err()).expect("a second global pool");
        let message = format!("cannot start worker threads: {cause}");
        assert_eq!(Error::Threads(cause).to_string(), message);
    }

    #[test]
    fn excerpt_cuts_long_values_on_a_char_boundary() {
        assert_eq!(excerpt("short"), "short");
        let exact = "x".repeat(EXCERPT_CHARS);
        assert_eq!(excerpt(&exact), exact);
        let long = "é".repeat(10_000_000);
        let cut = excerpt(&long);
        assert_eq!(cut.chars().count(), EXCERPT_CHARS + 1);
        assert!(cut.ends_with("é…"));
    }
}
