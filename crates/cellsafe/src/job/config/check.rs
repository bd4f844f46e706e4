//! The checks that need no data: each model's parameters and the suppression limit in
//! their domains, the seeds within what the report can write, and what a release needs
//! beyond a problem (a privacy model, settings the chosen search can use, a bounded thread
//! count). They run before the input is read, so a bad config fails fast.

use super::{Config, OutputValues};
use crate::algorithm::Algorithm;
use crate::error::{AnonymizerError, Error, Result};

/// Most `[search] threads` per available core.
const MAX_THREADS_PER_CORE: usize = 4;

/// The cores this process may use (1 when unknown).
fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

impl Config {
    /// Checks the values that need no data: each model's parameters lie in their domain
    /// (errors name the key, e.g. `privacy[0].t`) and the suppression limit in [0, 1].
    /// `[input]` names one source: a file (`path`), or a database (`url`) with one of
    /// `table` and `query`.
    pub(super) fn check_input(&self) -> Result<()> {
        let file = self.file_name();
        let input = &self.input;
        // the delimiter and quote lay out the release too: checked before any work
        self.csv_format()?;
        let has_path = !input.path.as_os_str().is_empty();
        if let Some(given) = &self.given {
            if has_path || input.url.is_some() {
                return Err(Error::config(
                    &file,
                    if has_path { "input.path" } else { "input.url" },
                    format!("the table is given ({given}): leave `path` and `url` out"),
                ));
            }
            for (key, v) in [
                ("input.table", &input.table),
                ("input.query", &input.query),
                ("input.format", &input.format),
            ] {
                if v.is_some() {
                    return Err(Error::config(
                        &file,
                        key,
                        format!("the table is given ({given}): there is no source to read"),
                    ));
                }
            }
            return Ok(());
        }
        if self.on_spark() {
            return self.check_spark_input();
        }
        match (&input.url, has_path) {
            (None, false) => {
                return Err(Error::config(
                    &file,
                    "input.path",
                    "missing: give the data file's path (or a database `url` with `table` or \
                     `query`)",
                ))
            }
            (Some(_), true) => {
                return Err(Error::config(
                    &file,
                    "input.url",
                    "give either `path` or `url`, not both",
                ))
            }
            (None, true) => {
                for (key, v) in [("input.table", &input.table), ("input.query", &input.query)] {
                    if v.is_some() {
                        return Err(Error::config(
                            &file,
                            key,
                            "only with a database `url` (the data file is `path`)",
                        ));
                    }
                }
            }
            (Some(url), false) => {
                if super::database::is_postgres(url) {
                    super::database::check_postgres(&file, "input.url", url)?;
                } else if url.strip_prefix("sqlite://").is_none_or(str::is_empty) {
                    return Err(Error::config(
                        &file,
                        "input.url",
                        format!(
                            "`{}` is not a database url cellsafe reads; give \
                             sqlite:///absolute/path.db, sqlite://path/relative/to/config.db \
                             or postgres://user@host:port/database",
                            crate::error::excerpt(url)
                        ),
                    ));
                }
                if input.table.is_some() == input.query.is_some() {
                    return Err(Error::config(
                        &file,
                        "input.table",
                        "with a database `url`, give exactly one of `table` and `query`",
                    ));
                }
                if input.format.is_some() {
                    return Err(Error::config(
                        &file,
                        "input.format",
                        "a database is read by its `url`; `format` is for files",
                    ));
                }
            }
        }
        Ok(())
    }

    /// Every check `cellsafe anonymize` makes before its search, on `table` (read by the
    /// caller as [`Config::read`] reads it): the keys, the release's options, the roles,
    /// the hierarchies (every value covered) and the models and metric bound to the data
    /// (for an LGB job, its own data: semi-sensitive attributes and their flags).
    /// Errors name the key at fault; nothing is written.
    pub fn check_job(&self, table: crate::data::table::Table) -> Result<()> {
        self.check_parameters()?;
        // an LGB job has data of its own: semi-sensitive attributes with their flags
        if self.search.algorithm == Algorithm::Lgb {
            return crate::job::lgb::data(self, table).map(|_| ());
        }
        self.check_release()?;
        self.dataset(table).map(|_| ())
    }

    /// `[search] threads` within [`MAX_THREADS_PER_CORE`] per core: checked before any
    /// pool of them is made.
    pub(crate) fn check_threads(&self) -> Result<()> {
        // within the limit on any machine: the cores are not asked for (reading the
        // cgroup's quota takes six file reads, twice a job)
        if self.search.threads <= MAX_THREADS_PER_CORE {
            return Ok(());
        }
        let max_threads = MAX_THREADS_PER_CORE * cores();
        if self.search.threads > max_threads {
            return Err(Error::config(
                self.file_name(),
                "search.threads",
                format!(
                    "must be at most {max_threads} ({MAX_THREADS_PER_CORE} per core), got {}",
                    self.search.threads
                ),
            ));
        }
        Ok(())
    }

    pub(crate) fn check_parameters(&self) -> Result<()> {
        let file = self.file_name();
        for (i, m) in self.privacy.iter().enumerate() {
            m.validate().map_err(|e| e.in_config(&file, i))?;
        }
        self.check_input()?;
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
        self.check_output()?;
        if self.input.subset.is_some() && self.output.keep_order {
            return Err(Error::config(
                &file,
                "output.keep_order",
                AnonymizerError::SubsetInInputOrder.to_string(),
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
        self.check_threads()?;
        self.search.genetic.validate().map_err(|(name, message)| {
            Error::config(&file, format!("search.genetic.{name}"), message)
        })?;
        self.check_parameters()
    }
}
