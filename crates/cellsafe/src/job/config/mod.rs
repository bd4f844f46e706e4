//! The TOML job description: input, attribute roles and hierarchies, privacy models,
//! suppression limit, metric and search.
//!
//! Paths are relative to the config file. Unknown keys are errors, and every error names the
//! key (or line and column, for syntax) so a user can fix the file without guessing.
//!
//! Layout: the types of the config's own sections (`[input]`, `[attributes.NAME]`,
//! `[search]`, `[output]`) are in `spec.rs`; this file holds the whole [`Config`], its
//! parsing and the paths and formats it names; `input.rs` reads the input table and the
//! research subset's rows; `check.rs` holds the checks that need no data; `dataset.rs`
//! builds the [`Dataset`] (roles, hierarchies, confidential formulas) the [`Problem`] is
//! made of.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::algorithm::problem::Problem;
use crate::criteria::ModelSpec;
use crate::data::confidentiality::setup::SafetySpec;
use crate::data::table::{CsvFormat, Format};
use crate::data::{number, Role};
use crate::error::{excerpt, Error, Location, Result};
use crate::framework::dataset::Dataset;
use crate::hierarchy::{Builder, HierarchySpec};
use crate::job::disclosure::DiscloseSpec;
use crate::metric::MetricSpec;
use crate::release::microaggregation::{Aggregator, Scale};

mod check;
mod database;
mod dataset;
mod engine;
mod input;
mod spec;
#[cfg(test)]
mod tests;

pub use engine::MIN_MEMORY_LIMIT;
pub use spec::{
    AttributeSpec, EngineKind, EngineSpec, InputSpec, ObjectiveSpec, OutputSpec, OutputValues,
    ParetoSpec, SearchSpec, SensitivitySpec, SubsetSpec,
};

/// A whole job description.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// `[input]`: the CSV file and its format.
    pub input: InputSpec,
    /// `[attributes.NAME]`: the role (and hierarchy) of each column, by name.
    pub attributes: BTreeMap<String, AttributeSpec>,
    /// `[[privacy]]`: the privacy models every released class must satisfy.
    #[serde(default)]
    pub privacy: Vec<ModelSpec>,
    /// Fraction of rows that may be suppressed.
    #[serde(default)]
    pub suppression_limit: f64,
    /// `[metric]`: the utility measure the search minimizes.
    #[serde(default)]
    pub metric: MetricSpec,
    /// `[search]`: which search to run and its parameters.
    #[serde(default)]
    pub search: SearchSpec,
    /// `[output]`: where the table and report go, and what the cells show.
    #[serde(default)]
    pub output: OutputSpec,
    /// `[disclose]`: the adversary-knows-the-algorithm check (`cellsafe disclose`).
    #[serde(default)]
    pub disclose: Option<DiscloseSpec>,
    /// `[safety]`: confidential formulas and who holds them (the `logical-safety` model).
    #[serde(default)]
    pub safety: Option<SafetySpec>,
    /// `[pareto]`: the objectives of `cellsafe pareto` (paper 003).
    #[serde(default)]
    pub pareto: Option<ParetoSpec>,
    /// `[engine]`: where the job's passes run.
    #[serde(default)]
    pub engine: EngineSpec,
    /// `[gatekeeper]`: how the query service generalizes answers.
    #[serde(default)]
    pub gatekeeper: Option<crate::gatekeeper::GatekeeperSpec>,
    /// `[service]`: the query service's own settings (address, database, users), read by
    /// the service itself.
    #[serde(default)]
    pub service: Option<toml::Table>,
    #[serde(skip)]
    file: PathBuf,
    /// What the table is when the caller hands it over in memory instead of `[input]`
    /// naming it (see [`Config::given_table`]).
    #[serde(skip)]
    given: Option<String>,
}

/// The hierarchy local recoding gives a quasi-identifier that has none: every value and
/// `*`, so that a group shows the interval of its numbers, else the set of its values.
pub(crate) const FLAT: HierarchySpec = HierarchySpec::Builder(Builder::Suppress {});

fn line_col(text: &str, offset: usize) -> (u64, u64) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() as u64 + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) as u64 + 1;
    (line, col)
}

fn single_byte(s: &str, file: &str, key: &str) -> Result<u8> {
    let unescaped = if s == "\\t" { "\t" } else { s };
    match unescaped.as_bytes() {
        [b'\n' | b'\r'] => Err(Error::config(
            file,
            key,
            "must be a single ASCII character other than a line end".to_string(),
        )),
        [b] => Ok(*b),
        _ => Err(Error::config(
            file,
            key,
            format!("must be a single ASCII character, got `{s}`"),
        )),
    }
}

impl Config {
    /// Whether `anonymize` releases one node of the `[pareto]` front: a `[pareto]` section,
    /// no `[[privacy]]` model and the node's levels. The node is released with the budget's
    /// suppression (paper 003's η) and k-anonymity at the k that gives it.
    pub fn releases_pareto_node(&self) -> bool {
        self.pareto.is_some() && self.privacy.is_empty() && self.search.levels.is_some()
    }

    /// Reads and parses a config file (syntax and types only).
    pub fn from_file(path: &Path) -> Result<Config> {
        let text = crate::input::read_config(path)?;
        Self::parse(&text, path)
    }

    /// Parses config text; `path` locates relative paths and error messages.
    pub fn parse(text: &str, path: &Path) -> Result<Config> {
        let mut config: Config = toml::from_str(text).map_err(|e| {
            let (line, column) = e.span().map_or((1, 1), |s| line_col(text, s.start));
            let mut message = crate::error::cut(e.message().trim(), 300).into_owned();
            // a top-level key written under a table belongs to that table in TOML
            if let Some(key) = TOP_LEVEL
                .iter()
                .find(|k| message.contains(&format!("unknown field `{k}`")))
            {
                message.push_str(&format!(
                    "; `{key}` is a top-level key: write it before the first [table] (in \
                     TOML, a key after a [table] header belongs to that table)"
                ));
            }
            Error::ConfigSyntax {
                at: Location::at(path, line, Some(column)),
                // the parser quotes offending values whole
                message,
            }
        })?;
        config.file = path.to_owned();
        Ok(config)
    }

    /// Says that the table comes from the caller, in memory (`what` names it in messages
    /// and the report, e.g. `pandas.DataFrame`): `[input]` then gives no `path` or `url`,
    /// only how to read hierarchy files, and the job runs on the in-memory engine.
    pub fn given_table(mut self, what: &str) -> Config {
        self.given = Some(what.to_owned());
        self
    }

    /// The name of a table handed over in memory (see [`Config::given_table`]).
    pub fn given(&self) -> Option<&str> {
        self.given.as_deref()
    }

    /// What a release shows of a suppressed row (`[output] suppression`).
    pub fn suppressed_rows(&self) -> crate::release::SuppressedRows {
        self.output.suppression
    }

    /// The path of the config file, as given (for messages).
    pub fn file_name(&self) -> String {
        self.file.display().to_string()
    }

    /// Resolves a path relative to the config file.
    pub fn resolve(&self, p: &Path) -> PathBuf {
        if p.is_absolute() {
            p.to_owned()
        } else {
            self.file.parent().unwrap_or(Path::new("")).join(p)
        }
    }

    /// Columns of `header` not listed under `[attributes]` that are released as they are
    /// (the default role is insensitive or sensitive), for a warning.
    pub(crate) fn unlisted_released(&self, header: &[String]) -> Vec<String> {
        if matches!(
            self.input.default_role,
            Role::Identifying | Role::QuasiIdentifying
        ) {
            return Vec::new();
        }
        let con = self.safety.as_ref().and_then(|s| s.column.as_deref());
        header
            .iter()
            .filter(|h| !self.attributes.contains_key(*h) && Some(h.as_str()) != con)
            .cloned()
            .collect()
    }

    /// Every file the job reads, as (what, path): the config, the data file, hierarchy
    /// files and the `[safety]` file. No output may be one of them.
    pub fn input_files(&self) -> Vec<(String, PathBuf)> {
        let mut files = vec![("the config".to_owned(), self.file.clone())];
        if !self.reads_server() && self.given.is_none() {
            files.push(("the data file".to_owned(), self.data_path()));
        }
        for (name, spec) in &self.attributes {
            if let Some(HierarchySpec::File(p)) = &spec.hierarchy {
                files.push((format!("the hierarchy of {name}"), self.resolve(p)));
            }
        }
        if let Some(p) = self.safety.as_ref().and_then(|s| s.file.as_ref()) {
            files.push(("the [safety] file".to_owned(), self.resolve(p)));
        }
        if let Some(s) = &self.input.sensitivity {
            files.push(("the flags file".to_owned(), self.resolve(&s.file)));
        }
        if let Some(p) = self.input.subset.as_ref().and_then(|s| s.file.as_ref()) {
            files.push(("the research subset's file".to_owned(), self.resolve(p)));
        }
        files
    }

    /// The CSV format of `[input]`; fails unless delimiter and quote are single bytes.
    pub fn csv_format(&self) -> Result<CsvFormat> {
        let file = self.file_name();
        Ok(CsvFormat {
            delimiter: single_byte(&self.input.delimiter, &file, "input.delimiter")?,
            quote: single_byte(&self.input.quote, &file, "input.quote")?,
            header: self.input.header,
        })
    }

    /// The file the data is read from: `[input] path`, or the SQLite file of `[input] url`
    /// (resolved against the config's directory).
    pub fn data_path(&self) -> PathBuf {
        match self
            .input
            .url
            .as_deref()
            .and_then(|u| u.strip_prefix("sqlite://"))
        {
            Some(file) => self.resolve(Path::new(file)),
            None => self.resolve(&self.input.path),
        }
    }

    /// Whether the data comes from a database server (a PostgreSQL `[input] url`), not a
    /// file.
    pub fn reads_server(&self) -> bool {
        self.input.url.as_deref().is_some_and(database::is_postgres)
    }

    /// Where the data comes from, as the report names it: the data file, or the url.
    pub fn data_source(&self) -> String {
        if let Some(given) = &self.given {
            return given.clone();
        }
        match &self.input.url {
            Some(url) => url.clone(),
            None => self.resolve(&self.input.path).display().to_string(),
        }
    }

    /// The format of the data file: `[input] format`, else the file's extension.
    pub fn input_format(&self) -> Result<Format> {
        self.format_of(
            "input.format",
            self.input.format.as_deref(),
            &self.input.path,
        )
    }

    /// The format the released table is written in to `path`: `[output] format`, else
    /// the path's extension.
    pub fn output_format(&self, path: &Path) -> Result<Format> {
        self.format_of("output.format", self.output.format.as_deref(), path)
    }

    fn format_of(&self, key: &str, named: Option<&str>, path: &Path) -> Result<Format> {
        match named {
            None => Ok(Format::from_extension(path)),
            Some(name) => Format::from_name(name).ok_or_else(|| {
                Error::config(
                    self.file_name(),
                    key,
                    format!(
                        "unknown format `{}`; one of {}",
                        excerpt(name),
                        Format::NAMES
                    ),
                )
            }),
        }
    }

    /// One aggregator per quasi-identifier of `data` when `[output] values` asks for
    /// microaggregation, else None.
    pub fn aggregators(&self, data: &Dataset) -> Result<Option<Vec<Aggregator>>> {
        if self.output.values != OutputValues::Microaggregation {
            return Ok(None);
        }
        let file = self.file_name();
        let mut out = Vec::with_capacity(data.quasi.len());
        for q in &data.quasi {
            let spec = self.attributes.get(&q.name);
            let date_format = match spec.and_then(|s| s.hierarchy.as_ref()) {
                Some(HierarchySpec::Builder(Builder::Date { format })) => Some(format.as_str()),
                _ => None,
            };
            let values = data.table.dictionary(q.column).values();
            let numeric = number::all_numbers(values.iter().map(String::as_str));
            let scale = match spec.and_then(|s| s.scale) {
                Some(scale) => scale,
                None if date_format.is_some() => Scale::Ordinal,
                None if numeric => Scale::Continuous,
                None => Scale::Nominal,
            };
            if scale == Scale::Continuous && !numeric {
                let v = values
                    .iter()
                    .find(|v| number::parse(v).is_none())
                    .expect("a non-number");
                return Err(Error::config(
                    &file,
                    format!("attributes.{}.scale", q.name),
                    format!(
                        "a continuous attribute needs numbers, but `{}` is not one",
                        excerpt(v)
                    ),
                ));
            }
            out.push(Aggregator::new(scale, &q.hierarchy, date_format));
        }
        Ok(Some(out))
    }

    /// Reads the input and hierarchies and binds models and metric: a problem ready to search.
    pub fn problem(&self) -> Result<Problem> {
        self.problem_observed(&crate::observer::Silent)
    }

    /// [`problem`](Self::problem), reporting how much of the input has been read and
    /// stopping with [`Error::Cancelled`] when `observer` says so while it is read.
    /// On the Spark engine the problem is the frequency set the cluster counts, whose rows
    /// are weighted by the persons they stand for.
    pub fn problem_observed(&self, observer: &dyn crate::observer::Observer) -> Result<Problem> {
        if self.on_spark() {
            self.engine_kind()?;
            #[cfg(feature = "spark")]
            return crate::job::spark::problem(self, observer);
        }
        let (table, _) = self.read(observer)?;
        self.problem_of(table)
    }

    /// The problem on `table`, handed over instead of read (see
    /// [`given_table`](Self::given_table)).
    pub fn problem_of(&self, table: crate::data::table::Table) -> Result<Problem> {
        self.check_parameters()?;
        let data = self.dataset(table)?;
        Problem::new(data, &self.privacy, self.suppression_limit, &self.metric)
    }
}

/// The config's keys that stand outside every table.
const TOP_LEVEL: [&str; 1] = ["suppression_limit"];
