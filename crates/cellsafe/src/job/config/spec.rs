//! The config's own sections: `[input]`, `[attributes.NAME]`, `[search]` and `[output]`,
//! with their defaults. (The other sections' types live with what they configure:
//! `[[privacy]]` in `criteria`, `[metric]` in `metric`, `[safety]` in
//! `data::confidentiality::setup`, `[disclose]` in `job::disclosure`, hierarchies in
//! `hierarchy`.)

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::algorithm::genetic::GeneticSpec;
use crate::algorithm::local::LocalSpec;
use crate::algorithm::setbased::SetBasedSpec;
use crate::algorithm::Algorithm;
use crate::data::Role;
use crate::hierarchy::HierarchySpec;
use crate::release::microaggregation::Scale;
use crate::release::SuppressedRows;

fn default_delimiter() -> String {
    ",".into()
}
fn default_quote() -> String {
    "\"".into()
}
fn default_true() -> bool {
    true
}
fn default_hierarchy_delimiter() -> String {
    ";".into()
}

/// `[input]`: the CSV file to anonymize.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InputSpec {
    /// Path of the data file, relative to the config file (or give `url`).
    #[serde(default)]
    pub path: PathBuf,
    /// A database to read instead of a file: `sqlite:///absolute/path.db` or
    /// `sqlite://relative/to/config.db`, with `table` or `query`.
    #[serde(default)]
    pub(crate) url: Option<String>,
    /// The database table to read (with `url`).
    #[serde(default)]
    pub(crate) table: Option<String>,
    /// The `SELECT` whose rows are read (with `url`).
    #[serde(default)]
    pub(crate) query: Option<String>,
    /// Its format: `csv`, `parquet`, `arrow` (an Arrow IPC file) or `arrow-stream`
    /// (default: from the file's extension, `.parquet`, `.arrow`/`.feather`, `.arrows`,
    /// else CSV).
    #[serde(default)]
    pub(crate) format: Option<String>,
    /// Field separator, a single byte (default `,`).
    #[serde(default = "default_delimiter")]
    pub(crate) delimiter: String,
    /// Quote character, a single byte (default `"`).
    #[serde(default = "default_quote")]
    pub(crate) quote: String,
    /// Whether the first record is a header (default true).
    #[serde(default = "default_true")]
    pub(crate) header: bool,
    /// Delimiter of ARX hierarchy files named by `attributes.*.hierarchy`.
    #[serde(default = "default_hierarchy_delimiter")]
    pub(crate) hierarchy_delimiter: String,
    /// Role of columns not listed under `[attributes]`.
    #[serde(default = "default_role")]
    pub(crate) default_role: Role,
    /// Strings that mean "missing" (e.g. `["?", ""]`). In a quasi-identifier they form a
    /// group of their own at every level below the top and need not be in its hierarchy;
    /// builders skip them. Without this, missing markers are values like any other.
    #[serde(default)]
    pub(crate) missing: Vec<String>,
    /// Where the flags of semi-sensitive cells live when not in the data file.
    #[serde(default)]
    pub sensitivity: Option<SensitivitySpec>,
    /// The rows to release, when the input is a population table of which only a research
    /// subset is released (δ-presence).
    #[serde(default)]
    pub subset: Option<SubsetSpec>,
}

/// `[input.subset]`: the input is a population table, and only its rows in the research
/// subset are released. Give either `column` (a flag column of the input: `1`/`0`,
/// `true`/`false` or `yes`/`no`, never released) or `file` and `key` (a file whose column
/// `key` lists the key of each subset row: Parquet or Arrow by its extension, else CSV in
/// the input's layout; each key must name exactly one input row).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SubsetSpec {
    /// The flag column.
    #[serde(default)]
    pub column: Option<String>,
    /// The file of keys, relative to the config file.
    #[serde(default)]
    pub file: Option<PathBuf>,
    /// The key column, in both files.
    #[serde(default)]
    pub key: Option<String>,
}

/// `[input.sensitivity]`: a separate file of per-person flags, one row per key, whose
/// columns the semi-sensitive attributes' `flag` keys name (same CSV format as the input).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SensitivitySpec {
    /// Path of the flags file, relative to the config file.
    pub file: PathBuf,
    /// The key column, in both files (every data row's key must be in the flags file once).
    pub key: String,
}

fn default_role() -> Role {
    Role::Insensitive
}

/// `[attributes.NAME]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AttributeSpec {
    /// The column's role.
    pub role: Role,
    /// Generalization hierarchy of a quasi-identifier: a file, or a builder. Local recoding
    /// (`mondrian`, `lgb`) needs none: it shows intervals of numbers, else sets of values.
    #[serde(default)]
    pub hierarchy: Option<HierarchySpec>,
    /// Measurement scale for microaggregation output. Default: continuous if every value
    /// is a number, ordinal for date hierarchies, nominal otherwise.
    #[serde(default)]
    pub(crate) scale: Option<Scale>,
    /// An insensitive column whose cells a suppressed row still shows (every other cell
    /// of a suppressed row is `*`).
    #[serde(default)]
    pub(crate) public: bool,
    /// For a semi-sensitive column: the column whose cells say whether this one's cell is
    /// sensitive for its person (`1`/`0`, `true`/`false`, `yes`/`no`). Never released.
    #[serde(default)]
    pub(crate) flag: Option<String>,
}

/// What a released quasi-identifier cell shows.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum OutputValues {
    /// The label of the cell's group.
    #[default]
    Generalization,
    /// The mean, median or mode of the cell's group (by the attribute's scale).
    Microaggregation,
}

/// `[search]`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SearchSpec {
    /// Which search to run.
    #[serde(default)]
    pub algorithm: Algorithm,
    /// Worker threads; 0 uses every core.
    #[serde(default)]
    pub(crate) threads: usize,
    /// Parameters of `algorithm = "genetic"`.
    #[serde(default)]
    pub(crate) genetic: GeneticSpec,
    /// Parameters of `algorithm = "set-based"`.
    #[serde(default)]
    pub set_based: SetBasedSpec,
    /// Parameters of `algorithm = "mondrian"`.
    #[serde(default)]
    pub(crate) local: LocalSpec,
    /// Release this node (one level per quasi-identifier, in header order) instead of
    /// searching, if it is acceptable: e.g. a node `cellsafe pareto` reported.
    #[serde(default)]
    pub levels: Option<Vec<u8>>,
}

/// `[output]`: default output paths (relative to the config file) and how rows are written.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OutputSpec {
    /// Where the released table is written.
    pub path: Option<PathBuf>,
    /// A database to write the released table into instead of a file:
    /// `sqlite:///absolute/path.db` or `sqlite://relative/to/config.db`, with `table`.
    #[serde(default)]
    pub(crate) url: Option<String>,
    /// The table the release becomes (a plain identifier; with `url`).
    #[serde(default)]
    pub(crate) table: Option<String>,
    /// Whether an existing table of that name is replaced (default false: it is an error).
    #[serde(default)]
    pub(crate) replace: bool,
    /// Its format, as `[input] format` (default: from the output's extension).
    #[serde(default)]
    pub(crate) format: Option<String>,
    /// Where the JSON report is written.
    pub report: Option<PathBuf>,
    /// What released quasi-identifier cells show.
    #[serde(default)]
    pub values: OutputValues,
    /// Suppressed rows: `star` (every non-public cell `*`) or `drop` (left out).
    #[serde(default)]
    pub(crate) suppression: SuppressedRows,
    /// Seed of the row shuffle (default: drawn afresh each run, and reported).
    pub seed: Option<u64>,
    /// Keep the input's row order (the report flags it: the order can link rows back).
    #[serde(default)]
    pub keep_order: bool,
}

/// `[pareto]`: the objectives and parameters of `cellsafe pareto` (paper 003).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ParetoSpec {
    /// `[[pareto.objectives]]`: each a property with its index, or a metric.
    pub objectives: Vec<ObjectiveSpec>,
    /// The discretization vector ε, one entry per objective (default all ones).
    #[serde(default)]
    pub eps: Option<Vec<f64>>,
    /// The suppression budget η in rows (default 0; or give `budget_fraction`).
    #[serde(default)]
    pub budget_rows: Option<u64>,
    /// The suppression budget η as a share of the rows, ⌊share · N⌋.
    #[serde(default)]
    pub budget_fraction: Option<f64>,
    /// N_pop.
    #[serde(default = "default_population")]
    pub population: usize,
    /// Iterations.
    #[serde(default = "default_iterations")]
    pub iterations: usize,
    /// Crossover probability.
    #[serde(default = "default_p_cross")]
    pub p_cross: f64,
    /// Mutation probability per attribute (default 1 / number of quasi-identifiers).
    #[serde(default)]
    pub p_mut: Option<f64>,
    /// Seed (default: drawn afresh and reported).
    #[serde(default)]
    pub seed: Option<u64>,
}

fn default_population() -> usize {
    25
}
fn default_iterations() -> usize {
    100
}
fn default_p_cross() -> f64 {
    0.8
}

/// One objective as the config writes it: `{ property = "...", index = "min" | "max" |
/// "sum", attribute = "..." }` or `{ metric = "loss" }`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ObjectiveSpec {
    /// `class-size`, `sensitive-count`, `distinct-values`, `glm` or `classification`.
    #[serde(default)]
    pub property: Option<String>,
    /// The sensitive attribute (`sensitive-count`, `distinct-values`) or the class label
    /// (`classification`).
    #[serde(default)]
    pub attribute: Option<String>,
    /// `min`, `max` or `sum`.
    #[serde(default)]
    pub index: Option<crate::algorithm::pareto::objective::Index>,
    /// A utility metric instead of a property (minimized).
    #[serde(default)]
    pub metric: Option<crate::metric::MetricKind>,
}

/// `[engine]`: where a full-domain job's passes run (see [`crate::engine`]).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EngineSpec {
    /// `memory` (the table is read whole) or `streaming` (the file is read a batch at a
    /// time, once per pass). Default: `streaming` when the input file is larger than
    /// `memory_limit` and the job can stream, else `memory`.
    #[serde(default)]
    pub kind: Option<EngineKind>,
    /// What the streaming engine may hold in memory: bytes, or a size with a unit (`3GB`,
    /// `512MiB`). Default: half the machine's memory.
    #[serde(default)]
    pub(crate) memory_limit: Option<toml::Value>,
    /// Where the streaming engine's sort spills (relative to the config). Default: the
    /// released table's directory.
    #[serde(default)]
    pub spill_dir: Option<PathBuf>,
    /// The Spark Connect server of `kind = "spark"`: `sc://host:port` (a token, if the
    /// server needs one, comes from the environment variable `CELLSAFE_SPARK_TOKEN`).
    #[serde(default)]
    pub remote: Option<String>,
}

/// `[engine] kind`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum EngineKind {
    /// The table is read into memory.
    Memory,
    /// The file is scanned a batch at a time (see [`crate::engine`]).
    Streaming,
    /// The rows stay on an Apache Spark cluster, reached through Spark Connect (see
    /// [`crate::engine`]; needs the `spark` feature).
    Spark,
}
