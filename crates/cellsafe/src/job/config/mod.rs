//! The TOML job description: input, attribute roles and hierarchies, privacy models,
//! suppression limit, metric and search.
//!
//! Paths are relative to the config file. Unknown keys are errors, and every error names the
//! key (or line and column, for syntax) so a user can fix the file without guessing.
//!
//! Layout: the types of the config's own sections (`[input]`, `[attributes.NAME]`,
//! `[search]`, `[output]`) are in `spec.rs`; this file holds the whole [`Config`], its
//! parsing, the checks that need no data and the building of the [`Problem`].

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::algorithm::problem::{Problem, MAX_LATTICE};
use crate::algorithm::Algorithm;
use crate::criteria::{Model, ModelSpec};
use crate::data::confidentiality::setup::SafetySpec;
use crate::data::table::{CsvFormat, Table};
use crate::data::{number, Role};
use crate::error::{excerpt, Error, Location, Result};
use crate::framework::dataset::Dataset;
use crate::hierarchy::{Builder, Hierarchy, HierarchySpec};
use crate::job::disclosure::DiscloseSpec;
use crate::metric::{Metric, MetricSpec};
use crate::release::microaggregation::{Aggregator, Scale};

mod spec;

pub use spec::{
    AttributeSpec, InputSpec, ObjectiveSpec, OutputSpec, OutputValues, ParetoSpec, SearchSpec,
    SensitivitySpec, SubsetSpec,
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
    /// `[gatekeeper]`: how the query service generalizes answers.
    #[serde(default)]
    pub gatekeeper: Option<crate::gatekeeper::GatekeeperSpec>,
    /// `[service]`: the query service's own settings (address, database, users), read by
    /// the service itself.
    #[serde(default)]
    pub service: Option<toml::Table>,
    #[serde(skip)]
    file: PathBuf,
}

/// The hierarchy local recoding gives a quasi-identifier that has none: every value and
/// `*`, so that a group shows the interval of its numbers, else the set of its values.
pub(crate) const FLAT: HierarchySpec = HierarchySpec::Builder(Builder::Suppress {});

/// Most `[search] threads` per available core.
const MAX_THREADS_PER_CORE: usize = 4;

/// The cores this process may use (1 when unknown).
fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

fn line_col(text: &str, offset: usize) -> (u64, u64) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() as u64 + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) as u64 + 1;
    (line, col)
}

fn single_byte(s: &str, file: &str, key: &str) -> Result<u8> {
    let unescaped = if s == "\\t" { "\t" } else { s };
    match unescaped.as_bytes() {
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
        let mut files = vec![
            ("the config".to_owned(), self.file.clone()),
            ("the data file".to_owned(), self.resolve(&self.input.path)),
        ];
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

    /// Every attribute named under `[attributes]` must be a column of `table`.
    pub(crate) fn check_attribute_columns(&self, table: &Table) -> Result<()> {
        match self
            .attributes
            .keys()
            .find(|name| table.column_index(name).is_none())
        {
            Some(name) => Err(Error::config(
                self.file_name(),
                format!("attributes.{name}"),
                format!(
                    "no column `{name}` in the header of {}{}",
                    table.source().display(),
                    header_hint(table.header(), &self.input.delimiter)
                ),
            )),
            None => Ok(()),
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

    /// Checks the values that need no data: each model's parameters lie in their domain
    /// (errors name the key, e.g. `privacy[0].t`) and the suppression limit in [0, 1].
    fn check_parameters(&self) -> Result<()> {
        let file = self.file_name();
        for (i, m) in self.privacy.iter().enumerate() {
            m.validate().map_err(|e| e.in_config(&file, i))?;
        }
        if !(0.0..=1.0).contains(&self.suppression_limit) {
            return Err(Error::config(
                &file,
                "suppression_limit",
                format!("must lie in [0, 1], got {}", self.suppression_limit),
            ));
        }
        // the report writes the seed as a JSON number: above 2^53 − 1 a reader parsing
        // numbers into floats (JavaScript, jq) would round it and not undo the shuffle
        for (key, seed) in [
            ("output.seed", self.output.seed),
            ("pareto.seed", self.pareto.as_ref().and_then(|p| p.seed)),
        ] {
            if let Some(seed) = seed.filter(|&s| s > crate::release::MAX_SEED) {
                return Err(Error::config(
                    &file,
                    key,
                    format!(
                        "must be at most 2^53 − 1 = {}, got {seed} (the report writes it as a \
                         JSON number, which JavaScript and jq read as a float)",
                        crate::release::MAX_SEED
                    ),
                ));
            }
        }
        Ok(())
    }

    /// Checks what `anonymize` needs beyond [`Config::problem`], before any data is read:
    /// at least one privacy model (a transformation without one is `evaluate`'s job), a
    /// bounded thread count and bounded genetic parameters.
    pub(crate) fn check_release(&self) -> Result<()> {
        let file = self.file_name();
        if self.input.subset.is_some() && self.output.keep_order {
            return Err(Error::config(
                &file,
                "output.keep_order",
                crate::anonymizer::SUBSET_IN_INPUT_ORDER,
            ));
        }
        if self.releases_pareto_node() {
            // the node's k under the [pareto] budget is the model (see job::anonymize)
            if let Some(key) = [
                (self.disclose.is_some(), "disclose"),
                (self.input.subset.is_some(), "input.subset"),
                (
                    matches!(
                        self.search.algorithm,
                        Algorithm::SetBased | Algorithm::Mondrian | Algorithm::Genetic
                    ),
                    "search.algorithm",
                ),
            ]
            .into_iter()
            .find_map(|(bad, key)| bad.then_some(key))
            {
                return Err(Error::config(
                    &file,
                    key,
                    "a node of the [pareto] front is released as it is, with the budget's \
                     suppression: remove this key, or add a [[privacy]] model",
                ));
            }
        } else if self.privacy.is_empty() {
            return Err(Error::config(
                &file,
                "privacy",
                if self.pareto.is_some() {
                    "no privacy model: a [pareto] config without [[privacy]] releases one node \
                     of its front, so give its levels (`cellsafe anonymize CONFIG --levels \
                     ...`, as each node's `release` in the report of `cellsafe pareto` says)"
                } else {
                    "no privacy model: add a [[privacy]] section (to score one transformation \
                     without models, use `cellsafe evaluate`)"
                },
            ));
        }
        if self.search.algorithm == Algorithm::SetBased
            && self.output.values == OutputValues::Microaggregation
        {
            return Err(Error::config(
                &file,
                "output.values",
                "the set-based search releases sets of values, not microaggregates",
            ));
        }
        if self.search.algorithm == Algorithm::Mondrian {
            let refuse = |key: &str, what: &str| {
                Err(Error::config(
                    &file,
                    key,
                    format!("local recoding (algorithm = \"mondrian\") {what}"),
                ))
            };
            if self.output.values == OutputValues::Microaggregation {
                return refuse(
                    "output.values",
                    "releases generalized values, not microaggregates",
                );
            }
            if self.search.levels.is_some() {
                return refuse("search.levels", "chooses no lattice node: remove `levels`");
            }
            if self.disclose.is_some() {
                return refuse(
                    "disclose",
                    "has no public-search strategy (paper 001): remove [disclose]",
                );
            }
            if self.search.local.method != crate::algorithm::local::Method::Mdp {
                return refuse(
                    "search.local.method",
                    "is Mondrian's median partition; method = \"ncp\" is for algorithm = \"lgb\"",
                );
            }
        }
        if matches!(
            self.search.algorithm,
            Algorithm::Genetic | Algorithm::SetBased
        ) && self.safety.is_none()
        {
            return Err(Error::config(
                &file,
                "safety",
                "the genetic and set-based searches work on logical safety and need a \
                 [safety] section",
            ));
        }
        let max_threads = MAX_THREADS_PER_CORE * cores();
        if self.search.threads > max_threads {
            return Err(Error::config(
                &file,
                "search.threads",
                format!(
                    "must be at most {max_threads} ({MAX_THREADS_PER_CORE} per core), got {}",
                    self.search.threads
                ),
            ));
        }
        self.search.genetic.validate().map_err(|(name, message)| {
            Error::config(&file, format!("search.genetic.{name}"), message)
        })?;
        self.check_parameters()
    }

    /// Reads the input and hierarchies and binds models and metric: a problem ready to search.
    pub fn problem(&self) -> Result<Problem> {
        self.problem_observed(&crate::observer::Silent)
    }

    /// [`problem`](Self::problem), reporting how much of the input has been read and
    /// stopping with [`Error::Cancelled`] when `observer` says so while it is read.
    pub fn problem_observed(&self, observer: &dyn crate::observer::Observer) -> Result<Problem> {
        let (table, _) = self.read(observer)?;
        let data = self.dataset(table)?;
        Problem::new(data, &self.privacy, self.suppression_limit, &self.metric)
    }

    /// Reads the input table, reporting progress to `observer`; returns it with the
    /// seconds it took.
    pub fn read(&self, observer: &dyn crate::observer::Observer) -> Result<(Table, f64)> {
        self.check_parameters()?;
        let clock = std::time::Instant::now();
        let path = self.resolve(&self.input.path);
        let table = Table::read_csv_observed(&path, &self.csv_format()?, observer)?;
        Ok((table, clock.elapsed().as_secs_f64()))
    }

    /// The `[input] hierarchy_delimiter` byte.
    pub(crate) fn hierarchy_delimiter(&self) -> Result<u8> {
        single_byte(
            &self.input.hierarchy_delimiter,
            &self.file_name(),
            "input.hierarchy_delimiter",
        )
    }

    /// The hierarchy `h` of `table`'s column `column` (read from a file or built), with
    /// the configured missing markers as groups of their own, and where it came from.
    pub(crate) fn hierarchy(
        &self,
        table: &Table,
        column: usize,
        h: &HierarchySpec,
        hdelim: u8,
    ) -> Result<(Hierarchy, PathBuf)> {
        let file = self.file_name();
        let name = &table.header()[column];
        let key = format!("attributes.{name}.hierarchy");
        let values = table.dictionary(column).values();
        let missing: Vec<String> = self
            .input
            .missing
            .iter()
            .filter(|m| values.contains(m))
            .cloned()
            .collect();
        let (hierarchy, source) = match h {
            HierarchySpec::File(p) => {
                let p = self.resolve(p);
                (Hierarchy::read_arx(&p, hdelim)?, p)
            }
            HierarchySpec::Builder(b) => {
                let present: Vec<String> = values
                    .iter()
                    .filter(|v| !missing.contains(v))
                    .cloned()
                    .collect();
                b.check_column(table, column, &missing, &key)?;
                let built = if present.is_empty() {
                    Builder::Suppress {}.build(&missing, &file, &key)?
                } else {
                    b.build(&present, &file, &key)?
                };
                (built, PathBuf::from(format!("built by {key}")))
            }
        };
        Ok((hierarchy.with_missing(&missing)?, source))
    }

    /// The rows of `table` in the research subset `spec` (increasing).
    fn subset_rows(&self, spec: &SubsetSpec, table: &Table) -> Result<Vec<u32>> {
        let file = self.file_name();
        let no_column = |key: &str, name: &str, path: &Path| {
            Error::config(
                &file,
                format!("input.subset.{key}"),
                format!("no column `{name}` in {}", path.display()),
            )
        };
        match (&spec.column, &spec.file, &spec.key) {
            (Some(column), None, None) => {
                let c = table
                    .column_index(column)
                    .ok_or_else(|| no_column("column", column, table.source()))?;
                let dict = table.dictionary(c);
                let mut member = Vec::with_capacity(dict.len());
                for (code, v) in dict.values().iter().enumerate() {
                    member.push(match v.trim().to_ascii_lowercase().as_str() {
                        "1" | "true" | "yes" => true,
                        "0" | "false" | "no" => false,
                        _ => {
                            return Err(Error::data(
                                Location::at(
                                    table.source(),
                                    dict.first_line(code as u32),
                                    Some(c as u64 + 1),
                                ),
                                format!(
                                    "`{}` in the subset's flag column `{column}` is not 1/0, \
                                     true/false or yes/no",
                                    excerpt(v)
                                ),
                            ))
                        }
                    });
                }
                Ok((0..table.rows() as u32)
                    .filter(|&r| member[table.codes(c)[r as usize] as usize])
                    .collect())
            }
            (None, Some(keys), Some(key)) => {
                let path = self.resolve(keys);
                let listed = Table::read_csv(&path, &self.csv_format()?)?;
                let dk = table
                    .column_index(key)
                    .ok_or_else(|| no_column("key", key, table.source()))?;
                let lk = listed
                    .column_index(key)
                    .ok_or_else(|| no_column("key", key, listed.source()))?;
                // the input rows of each key value
                let mut rows_of: rustc_hash::FxHashMap<&str, Vec<u32>> = Default::default();
                for r in 0..table.rows() {
                    rows_of
                        .entry(table.value(r, dk))
                        .or_default()
                        .push(r as u32);
                }
                let mut members = Vec::with_capacity(listed.rows());
                for r in 0..listed.rows() {
                    let k = listed.value(r, lk);
                    let at = Location::at(listed.source(), listed.line(r), Some(lk as u64 + 1));
                    match rows_of.get(k).map(Vec::as_slice) {
                        Some(&[row]) => members.push(row),
                        Some(rows) if rows.len() > 1 => {
                            return Err(Error::data(
                                at,
                                format!(
                                    "key `{}` names {} rows of {} (column `{key}`): keys must \
                                     name one row each",
                                    excerpt(k),
                                    rows.len(),
                                    table.source().display()
                                ),
                            ))
                        }
                        _ => {
                            return Err(Error::data(
                                at,
                                format!(
                                    "key `{}` names no row of {} (column `{key}`)",
                                    excerpt(k),
                                    table.source().display()
                                ),
                            ))
                        }
                    }
                }
                members.sort_unstable();
                if let Some(w) = members.windows(2).find(|w| w[0] == w[1]) {
                    let r = w[0] as usize;
                    return Err(Error::config(
                        &file,
                        "input.subset.file",
                        format!(
                            "key `{}` is listed twice in {}",
                            excerpt(table.value(r, dk)),
                            path.display()
                        ),
                    ));
                }
                Ok(members)
            }
            _ => Err(Error::config(
                &file,
                "input.subset",
                "give either `column` (a flag column) or both `file` and `key`",
            )),
        }
    }

    /// Resolves `table`'s roles, builds its hierarchies and confidential formulas, and
    /// checks that the models and metric bind to it: a dataset ready to anonymize. Errors
    /// name the config key at fault.
    pub fn dataset(&self, table: Table) -> Result<Dataset> {
        self.dataset_with(table, false)
    }

    /// [`dataset`](Self::dataset); with `personal`, confidential formulas may mention
    /// quasi-identifiers (decided by each person's own value, as only the gatekeeper does).
    pub(crate) fn dataset_with(&self, table: Table, personal: bool) -> Result<Dataset> {
        let file = self.file_name();
        let hdelim = single_byte(
            &self.input.hierarchy_delimiter,
            &file,
            "input.hierarchy_delimiter",
        )?;
        self.check_attribute_columns(&table)?;
        let mut roles = Vec::new();
        let mut hierarchies = Vec::new();
        let mut sensitive_hierarchies = Vec::new();
        for (column, name) in table.header().iter().enumerate() {
            let spec = self.attributes.get(name);
            let con_column = self
                .safety
                .as_ref()
                .and_then(|s| s.column.as_deref())
                .is_some_and(|c| c == name);
            // the subset's flags say who is in the study: never released either
            let flag_column = self
                .input
                .subset
                .as_ref()
                .and_then(|s| s.column.as_deref())
                .is_some_and(|c| c == name);
            // so does the key column of a file of keys: it names the members
            let key_column = self
                .input
                .subset
                .as_ref()
                .filter(|s| s.file.is_some())
                .and_then(|s| s.key.as_deref())
                .is_some_and(|c| c == name);
            if (flag_column || key_column) && spec.is_some_and(|s| s.role != Role::Identifying) {
                return Err(Error::config(
                    &file,
                    if flag_column {
                        "input.subset.column"
                    } else {
                        "input.subset.key"
                    },
                    format!(
                        "column `{name}` says who is in the research subset, so it must not \
                         be released: give it role \"identifying\" or leave it unlisted"
                    ),
                ));
            }
            let flag_column = flag_column || key_column;
            // the column of CON sets says who holds what confidential: never released
            let role = match spec {
                Some(s) if con_column && s.role != Role::Identifying => {
                    return Err(Error::config(
                        &file,
                        "safety.column",
                        format!(
                            "column `{name}` holds what persons keep confidential, so it must \
                             not be released: give it role \"identifying\" or leave it unlisted"
                        ),
                    ))
                }
                Some(s) => s.role,
                None if con_column || flag_column => Role::Identifying,
                None => self.input.default_role,
            };
            roles.push(role);
            let key = format!("attributes.{name}.hierarchy");
            let build = |h: &HierarchySpec| self.hierarchy(&table, column, h, hdelim);
            match (role, spec.and_then(|s| s.hierarchy.as_ref())) {
                (Role::QuasiIdentifying, Some(h)) => hierarchies.push(build(h)?),
                // local recoding shows intervals of numbers and sets of other values
                (Role::QuasiIdentifying, None) if self.search.algorithm.is_local() => {
                    hierarchies.push(build(&FLAT)?)
                }
                (Role::QuasiIdentifying, None) => {
                    return Err(Error::config(
                        &file,
                        key,
                        format!(
                            "the quasi-identifier `{name}` needs a hierarchy for a \
                             full-domain search (algorithm = \"{}\"); only local recoding \
                             (\"mondrian\", \"lgb\") needs none",
                            self.search.algorithm.name()
                        ),
                    ))
                }
                (Role::Sensitive, h) => {
                    sensitive_hierarchies.push(h.map(build).transpose()?.map(|x| x.0))
                }
                _ => {}
            }
        }
        let members = self
            .input
            .subset
            .as_ref()
            .map(|s| self.subset_rows(s, &table))
            .transpose()?;
        // a research subset: the dataset of the whole population, narrowed to the members
        let (table, population) = match members {
            None => (table, None),
            Some(members) => {
                let population = Dataset::new(
                    table,
                    roles.clone(),
                    hierarchies.clone(),
                    sensitive_hierarchies.clone(),
                )?
                .research_subset(members)?;
                (population.table.clone(), Some(population))
            }
        };
        let confidentiality = self
            .safety
            .as_ref()
            .map(|spec| {
                crate::data::confidentiality::setup::build(spec, &table, &roles, &file, |p| {
                    self.resolve(p)
                })
            })
            .transpose()?;
        if let Some((id, column)) = confidentiality
            .as_ref()
            .filter(|_| !personal)
            .and_then(|c| c.personal_formula())
        {
            return Err(Error::config(
                &file,
                format!("safety.formulas.{id}"),
                format!(
                    "the formula mentions the quasi-identifier `{column}`; formulas over public \
                     attributes are decided by each person's own value, which only the \
                     gatekeeper (`cellsafe serve`) does"
                ),
            ));
        }
        let mut public = Vec::with_capacity(roles.len());
        for (name, role) in table.header().iter().zip(&roles) {
            let marked = self.attributes.get(name).is_some_and(|s| s.public);
            if marked && *role != Role::Insensitive {
                return Err(Error::config(
                    &file,
                    format!("attributes.{name}.public"),
                    "only an insensitive column can be public",
                ));
            }
            public.push(marked);
        }
        let mut data = match population {
            Some(data) => data.with_public(public)?,
            None => Dataset::new(table, roles, hierarchies, sensitive_hierarchies)?
                .with_public(public)?,
        };
        if let Some(c) = confidentiality {
            data = data.with_confidentiality(c);
        }
        if data.quasi.is_empty() {
            return Err(Error::config(
                &file,
                "attributes",
                "no attribute has role \"quasi-identifying\"",
            ));
        }
        if data.rows() == 0 {
            return Err(Error::data(
                Location::at(data.table.source(), 1, None),
                "the file has a header but no data rows",
            ));
        }
        let size = data
            .max_levels()
            .iter()
            .try_fold(1usize, |acc, &m| acc.checked_mul(m as usize + 1));
        if size.is_none_or(|n| n > MAX_LATTICE) {
            return Err(Error::config(
                &file,
                "attributes",
                format!(
                    "the generalization lattice has more than {MAX_LATTICE} transformations; \
                     use fewer quasi-identifiers or shorter hierarchies"
                ),
            ));
        }
        for (i, m) in self.privacy.iter().enumerate() {
            Model::bind(m, &data).map_err(|e| e.in_config(&file, i))?;
        }
        Metric::bind(&self.metric, &data).map_err(|e| e.in_config(&file))?;
        Ok(data)
    }
}

/// The config's keys that stand outside every table.
const TOP_LEVEL: [&str; 1] = ["suppression_limit"];

/// What a reader needs when a configured column is not in `header`: the header as read,
/// and, when it is one column holding another usual delimiter, that delimiter.
fn header_hint(header: &[String], delimiter: &str) -> String {
    let shown: Vec<String> = header
        .iter()
        .take(12)
        .map(|h| format!("`{}`", crate::error::excerpt(h)))
        .collect();
    let more = if header.len() > 12 { ", ..." } else { "" };
    let mut hint = format!(
        " (it has {} column{}: {}{more})",
        header.len(),
        if header.len() == 1 { "" } else { "s" },
        shown.join(", ")
    );
    if let [only] = header {
        // (what to call it, the byte, how TOML writes it)
        let usual = [
            (",", ",", ","),
            (";", ";", ";"),
            ("a tab", "\t", "\\t"),
            ("|", "|", "|"),
        ];
        if let Some((name, _, toml)) = usual
            .iter()
            .find(|(_, d, _)| *d != delimiter && only.contains(d))
        {
            hint.push_str(&format!(
                "; the header holds {name}: is the file delimited by it? set [input] \
                 delimiter = \"{toml}\""
            ));
        }
    }
    hint
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::release::SuppressedRows;

    #[test]
    fn syntax_errors_have_line_and_column() {
        let err = Config::parse(
            "[input]\npath = \"a.csv\"\nbogus = 1\n[attributes]\n",
            Path::new("c.toml"),
        )
        .unwrap_err()
        .to_string();
        assert!(err.starts_with("c.toml:3:1"), "{err}");
        assert!(err.contains("bogus"), "{err}");
    }

    #[test]
    fn malformed_number_is_located() {
        let text = "suppression_limit = \"lots\"\n[input]\npath = \"a.csv\"\n[attributes]\n";
        let err = Config::parse(text, Path::new("c.toml"))
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("c.toml:1:"), "{err}");
    }

    #[test]
    fn syntax_errors_quote_long_values_briefly() {
        let long = "x".repeat(1_000_000);
        let text = format!("[input]\npath = \"a.csv\"\ndefault_role = \"{long}\"\n[attributes]\n");
        let err = Config::parse(&text, Path::new("c.toml"))
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("c.toml:3:") && err.len() < 400,
            "{}",
            err.len()
        );
    }

    #[test]
    fn documented_example_parses() {
        let readme = include_str!("../../../../../docs/configuration.md");
        let start = readme.find("```toml\n").expect("a toml block") + 8;
        let end = start + readme[start..].find("```").expect("closed block");
        let config =
            Config::parse(&readme[start..end], Path::new("docs/configuration.md")).unwrap();
        assert_eq!(config.privacy.len(), 10);
        assert!(matches!(
            config.privacy[9],
            crate::criteria::ModelSpec::PopulationUniqueness {
                sampling_fraction: Some(f),
                ..
            } if f == 0.1
        ));
        assert_eq!(config.attributes.len(), 10);
        assert!(config.attributes["region"].public);
        assert_eq!(config.output.suppression, SuppressedRows::Star);
        assert_eq!(
            (config.output.seed, config.output.keep_order),
            (Some(42), false)
        );
        assert_eq!(config.suppression_limit, 0.01);
        assert!(matches!(
            config.attributes["blood2"].hierarchy,
            Some(HierarchySpec::Builder(Builder::Partitions { .. }))
        ));
        assert_eq!(config.attributes["sex"].scale, Some(Scale::Nominal));
        assert_eq!(config.output.values, OutputValues::Generalization);
    }
}
