//! A whole anonymization job: config → dataset → [`Anonymizer`] → staged files → report.
//! Front ends (the CLI, later a service) call this and only print or serve the result.
//!
//! The job is a layer over the in-memory API: it reads the input and resolves the dataset
//! (so that errors name the config key at fault), runs [`Anonymizer::from_dataset`] with
//! the configured models, search and output options, maps the run's errors back to config
//! keys, and writes what the run audited.
//!
//! The release is all or nothing: the outputs are checked against the inputs and locked
//! before any work; the audited bytes, the mapping and the report are staged next to their
//! targets and renamed into place together only once everything succeeded (see
//! [`crate::release::output`]).
//!
//! Every long step reports to the caller's [`Observer`] and stops with
//! [`Error::Cancelled`] once it says so; the staged files are then removed and nothing is
//! written.

pub mod config;
pub mod disclosure;
pub mod gatekeeper;
pub mod html;
pub mod lgb;
pub mod output;
pub mod pareto;
pub mod pareto_page;
pub mod report;
pub mod risk;
pub mod risk_page;
#[cfg(feature = "spark")]
pub(crate) mod spark;
pub mod stream;
pub mod synth;

use std::path::{Path, PathBuf};
use std::time::Instant;

use serde::Serialize;

use crate::algorithm::problem::{levels_map, partition_names};
use crate::algorithm::problem::{Evaluation, Problem, SuppressionRule};
use crate::algorithm::Algorithm;
use crate::anonymizer::{Anonymizer, Release, ReleaseForm};
use crate::criteria::ModelSpec;
use crate::data::table::Table;
use crate::error::{Error, JobError, ProblemError, Result};
use crate::job::config::{Config, OutputValues};
use crate::job::report::{describe, describe_classes, Report};
use crate::observer::Observer;
use crate::release::output::{check_paths, Transaction};
pub(crate) use crate::release::write_mapping;
use crate::release::{write_atomic, RowOrder, SuppressedRows};

/// Where to write what. A missing table means no release is written (the report alone).
#[derive(Debug, Clone, Default)]
pub struct Outputs {
    /// Where the released table is written.
    pub table: Option<PathBuf>,
    /// Where the JSON report is written.
    pub report: Option<PathBuf>,
    /// Released row → input line, for a custodian who must link back. Never by default.
    pub mapping: Option<PathBuf>,
}

impl Outputs {
    fn named(&self) -> Vec<(String, PathBuf)> {
        [
            ("the released table", &self.table),
            ("the report", &self.report),
            ("the mapping", &self.mapping),
        ]
        .into_iter()
        .filter_map(|(what, p)| p.as_ref().map(|p| (what.to_owned(), p.clone())))
        .collect()
    }
}

/// How the released rows are laid out, for the report.
#[derive(Debug, Clone, Serialize)]
pub struct Layout {
    /// Seed of the row shuffle (None: input order kept).
    pub seed: Option<u64>,
    /// The input order was kept on request: rows can be linked back by position.
    pub keep_order: bool,
    /// `star` or `drop`.
    suppressed_rows: SuppressedRows,
    /// How the suppressed classes were chosen (`violating`: ARX's rule; `smallest`: from
    /// public information only).
    suppression_rule: SuppressionRule,
    /// Whether which rows were suppressed depended on sensitive values.
    pub suppression_read_sensitive_values: bool,
}

/// Runs `config`'s search in a pool of its configured size.
pub fn anonymize(config: &Config, outputs: &Outputs, observer: &dyn Observer) -> Result<Report> {
    refuse_lgb(config)?;
    config.check_release()?;
    in_pool(config.search.threads, || {
        anonymize_here(config, outputs, observer, None, ReleaseForm::Csv).map(|(report, _)| report)
    })
}

/// Runs `work` on the calling thread, made the first of a pool of `config`'s threads, so
/// that [`anonymize`] and its kin called inside it start no pool of their own (one thread
/// fewer to start, none with one thread, and no allocation handed across threads). For a
/// front end that runs one job per thread, such as the CLI: the thread stays in that pool
/// for its life (rayon cannot take it out again), so on a thread already in a pool, or with
/// `threads = 0`, the work runs as it is, and the job makes its own pool if the sizes differ.
pub fn on_this_thread<T: Send>(config: &Config, work: impl FnOnce() -> T + Send) -> Result<T> {
    thread_local! {
        static POOL: std::cell::OnceCell<rayon::ThreadPool> = const { std::cell::OnceCell::new() };
    }
    if config.search.threads == 0 || rayon::current_thread_index().is_some() {
        return Ok(work());
    }
    // never a pool larger than a job may have (the job's own checks come after this)
    config.check_threads()?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(config.search.threads)
        .use_current_thread()
        .build()
        .map_err(Error::Threads)?;
    // kept with the thread, whose pool it now is
    Ok(POOL.with(|kept| kept.get_or_init(|| pool).install(work)))
}

/// Runs `work` in a pool of `threads` threads: the calling thread's own pool when it is
/// already a worker of one that size (a front end that made its thread one, and so saves
/// starting a thread and handing every allocation across to it), else a new pool.
fn in_pool<T: Send>(threads: usize, work: impl FnOnce() -> Result<T> + Send) -> Result<T> {
    if threads != 0
        && rayon::current_thread_index().is_some()
        && rayon::current_num_threads() == threads
    {
        return work();
    }
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(Error::Threads)?
        .install(work)
}

/// [`anonymize`], keeping the audited release in memory too, for a caller that shows it
/// after writing it (the workbench): the same checks, files and report. On an engine that
/// does not hold the release (streaming, Spark) the release is `None`.
pub fn anonymize_kept(
    config: &Config,
    outputs: &Outputs,
    observer: &dyn Observer,
) -> Result<Anonymized> {
    refuse_lgb(config)?;
    config.check_release()?;
    let (report, release) = in_pool(config.search.threads, || {
        anonymize_here(config, outputs, observer, None, ReleaseForm::Csv)
    })?;
    Ok(Anonymized {
        report,
        release: release.filter(|r| r.found()),
        csv: config.csv_format()?,
    })
}

/// An LGB job writes several tables and has its own report (`job::lgb`).
fn refuse_lgb(config: &Config) -> Result<()> {
    if config.search.algorithm == Algorithm::Lgb {
        return Err(Error::config(
            config.file_name(),
            "search.algorithm",
            "an lgb job writes several tables and has its own report: run it with \
             job::lgb::anonymize",
        ));
    }
    Ok(())
}

/// A job run for a caller that keeps the release in memory: its report, as the CLI writes
/// it, and the release itself (see [`run`]).
pub struct Anonymized {
    /// The report.
    pub report: Report,
    /// The release, audited; `None` when no transformation was acceptable.
    pub release: Option<Release>,
    csv: crate::data::table::CsvFormat,
}

impl Anonymized {
    /// How the release's CSV bytes ([`Release::csv`]) are laid out.
    pub fn csv_format(&self) -> &crate::data::table::CsvFormat {
        &self.csv
    }

    /// The released table as Arrow record batches: a column the release keeps as it is
    /// (sensitive or insensitive, from a typed source) has its source's type, every
    /// other column is a string, as in a Parquet output. The batches the audit passed
    /// when the release was made as Arrow ([`run_arrow`]), else read from its CSV bytes.
    #[cfg(feature = "arrow")]
    pub fn record_batches(
        &self,
    ) -> Result<Option<(arrow_schema::SchemaRef, Vec<arrow_array::RecordBatch>)>> {
        let Some(release) = &self.release else {
            return Ok(None);
        };
        if let Some((schema, batches)) = release.record_batches() {
            return Ok(Some((schema.clone(), batches.to_vec())));
        }
        let name = std::path::Path::new("<release>");
        let types = output::release_types(release, &self.csv, name)?;
        crate::release::columnar::record_batches(release.csv(), &self.csv, &types)
            .map(Some)
            .map_err(|e| Error::io(name, e))
    }
}

/// A table handed over in memory to [`run`] (see [`Config::given_table`]).
pub enum Given {
    /// A table already read.
    Table(Table),
    /// Arrow record batches, all under the schema: read into a table as the run's first
    /// step (its `read` time), which the observer may stop; errors name the rows as
    /// `<arrow>:ROW`.
    #[cfg(feature = "arrow")]
    Arrow(arrow_schema::SchemaRef, Vec<arrow_array::RecordBatch>),
}

impl Given {
    /// The table handed over, read (Arrow batches report to `observer`, which may stop
    /// the reading).
    pub fn into_table(self, observer: &dyn Observer) -> Result<Table> {
        #[cfg(not(feature = "arrow"))]
        let _ = observer;
        match self {
            Given::Table(table) => Ok(table),
            #[cfg(feature = "arrow")]
            Given::Arrow(schema, batches) => {
                Table::from_arrow(schema, &batches, Path::new("<arrow>"), observer)
            }
        }
    }
}

impl From<Table> for Given {
    fn from(table: Table) -> Self {
        Given::Table(table)
    }
}

/// Runs `config` as [`anonymize`] does, on the table `given` when there is one (with
/// [`Config::given_table`]) else on the table `[input]` names, and keeps the release in
/// memory as CSV bytes instead of writing it: nothing is written. An LGB job is refused
/// (it has its own report).
pub fn run(config: &Config, given: Option<Given>, observer: &dyn Observer) -> Result<Anonymized> {
    run_as(config, given, observer, ReleaseForm::Csv)
}

/// [`run`], with the release made, audited and kept as Arrow record batches
/// ([`Anonymized::record_batches`]) instead of CSV bytes.
#[cfg(feature = "arrow")]
pub fn run_arrow(
    config: &Config,
    given: Option<Given>,
    observer: &dyn Observer,
) -> Result<Anonymized> {
    run_as(config, given, observer, ReleaseForm::Arrow)
}

fn run_as(
    config: &Config,
    table: Option<Given>,
    observer: &dyn Observer,
    form: ReleaseForm,
) -> Result<Anonymized> {
    refuse_lgb(config)?;
    // the release is kept in memory: refuse what would write it, or not keep it
    if config.writes_database() {
        return Err(Error::config(
            config.file_name(),
            "output.url",
            "this run keeps the release in memory and writes nothing: leave [output] url \
             out, or run the job with `cellsafe anonymize`",
        ));
    }
    if config.engine_kind()? == config::EngineKind::Spark {
        return Err(Error::config(
            config.file_name(),
            "engine.kind",
            "this run keeps the release in memory, so it runs on the in-memory engine: the \
             Spark engine writes its release on the cluster; run the job with `cellsafe \
             anonymize`",
        ));
    }
    if config.engine_kind()? == config::EngineKind::Streaming {
        return Err(Error::config(
            config.file_name(),
            "engine.kind",
            "this run keeps the release in memory, so it runs on the in-memory engine: the \
             streaming engine (asked for, or chosen for an input larger than \
             engine.memory_limit) writes its release to a file; run the job with `cellsafe \
             anonymize`",
        ));
    }
    if table.is_some() != config.given().is_some() {
        return Err(Error::config(
            config.file_name(),
            "input",
            "a table is handed over exactly when the config says it is given",
        ));
    }
    config.check_release()?;
    let (mut report, release) = in_pool(config.search.threads, || {
        anonymize_here(config, &Outputs::default(), observer, table, form)
    })?;
    if let Some(release) = &release {
        report.audit = release.audit().cloned();
    }
    if let Some(given) = config.given() {
        report.name_input(given);
    }
    Ok(Anonymized {
        report,
        release: release.filter(|r| r.found()),
        csv: config.csv_format()?,
    })
}

fn anonymize_here(
    config: &Config,
    outputs: &Outputs,
    observer: &dyn Observer,
    given: Option<Given>,
    form: ReleaseForm,
) -> Result<(Report, Option<Release>)> {
    let start = Instant::now();
    let file = config.file_name();
    #[cfg(feature = "spark")]
    if config.engine_kind()? == config::EngineKind::Spark {
        return spark::anonymize(config, outputs, observer, start).map(|report| (report, None));
    }
    let database = database_output(config, outputs)?;
    let mut named = outputs.named();
    named.extend(
        config
            .output_database_path()
            .filter(|_| config.writes_database())
            .map(|p| ("the output database".to_owned(), p)),
    );
    check_paths(&config.input_files(), &named)?;
    let out_format = match &outputs.table {
        Some(path) => {
            let format = config.output_format(path)?;
            output::check_format(path, format)?;
            format
        }
        None => crate::data::table::Format::Csv,
    };
    // the output database is locked as a target that is never staged: one cellsafe run
    // writes into it at a time
    let targets: Vec<PathBuf> = named.into_iter().map(|(_, p)| p).collect();
    let tx = Transaction::begin(&targets)?;
    if config.engine_kind()? == config::EngineKind::Streaming {
        if config.writes_database() {
            return Err(Error::config(
                &file,
                "output.url",
                "the streaming engine writes files; a release into a database runs on the \
                 memory engine ([engine] kind = \"memory\")",
            ));
        }
        return stream::anonymize(config, outputs, observer, tx, out_format, start)
            .map(|report| (report, None));
    }
    #[cfg(feature = "sqlite")]
    if let Some(db) = &database {
        db.prepare()?;
    }
    #[cfg(not(feature = "sqlite"))]
    let _ = database;
    let public = config
        .disclose
        .as_ref()
        .map(|spec| disclosure::public_search(spec, &file))
        .transpose()?;
    let (table, read) = match given {
        Some(given) => {
            config.check_parameters()?;
            let clock = Instant::now();
            let table = given.into_table(observer)?;
            (table, clock.elapsed().as_secs_f64())
        }
        None => config.read(observer)?,
    };
    let clock = Instant::now();
    let data = config.dataset(table)?;
    let aggregators = config.aggregators(&data)?;
    // a node of the [pareto] front: its values under the budget, and k-anonymity at its k
    let pareto = match &config.search.levels {
        Some(levels) if config.releases_pareto_node() => {
            Some(pareto::node_release(config, &data, levels)?)
        }
        _ => None,
    };
    let models: Vec<ModelSpec> = match &pareto {
        Some(node) => vec![ModelSpec::KAnonymity {
            k: u32::try_from(node.k).map_err(|_| JobError::NodeK(node.k))?,
        }],
        None => config.privacy.clone(),
    };
    let prepared = clock.elapsed().as_secs_f64();
    // a CSV table is staged as soon as it is made, so that the disk writes it while the
    // audit runs; the transaction keeps it owner-only, and drops it unless the job ends
    // in a commit
    let early = match &outputs.table {
        Some(path) if out_format == crate::data::table::Format::Csv && form == ReleaseForm::Csv => {
            Some(path)
        }
        _ => None,
    };
    let tx = std::sync::Mutex::new(tx);
    let staged_early = std::sync::atomic::AtomicBool::new(false);
    let stage_early = |bytes: &[u8]| -> Result<()> {
        let Some(path) = early else { return Ok(()) };
        let mut tx = tx.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        tx.stage(path, |w| w.write_all(bytes))?;
        staged_early.store(true, std::sync::atomic::Ordering::Relaxed);
        Ok(())
    };
    let algorithm = config.search.algorithm;
    let mut anonymizer = Anonymizer::from_dataset(data)
        .models(models)
        .suppression_limit(config.suppression_limit)
        .metric(config.metric.clone())
        .algorithm(algorithm)
        .observer(observer)
        .suppressed_rows(config.output.suppression)
        .csv_format(config.csv_format()?)
        .form(form);
    if early.is_some() {
        anonymizer = anonymizer.before_audit(&stage_early);
    }
    // without a seed the anonymizer draws a fresh one
    if config.output.keep_order {
        anonymizer = anonymizer.keep_order();
    } else if let Some(seed) = config.output.seed {
        anonymizer = anonymizer.seed(seed);
    }
    match algorithm {
        Algorithm::Genetic => anonymizer = anonymizer.genetic(config.search.genetic.clone()),
        Algorithm::SetBased => anonymizer = anonymizer.set_based(config.search.set_based.clone()),
        Algorithm::Mondrian => anonymizer = anonymizer.local(config.search.local.clone()),
        _ => {}
    }
    if let Some(public) = public {
        anonymizer = anonymizer.public_search(public);
    }
    if let Some(levels) = &config.search.levels {
        anonymizer = anonymizer.levels(levels.clone());
    }
    if let Some(aggregators) = aggregators {
        anonymizer = anonymizer.microaggregate(aggregators);
    }
    if let Some(node) = &pareto {
        anonymizer = anonymizer.suppress_smallest_within(node.budget_rows);
    }
    let release = anonymizer
        .attempt()
        .map_err(|e| locate(e, &file, outputs.table.as_deref()))?;
    let mut tx = tx
        .into_inner()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let staged_early = staged_early.into_inner();
    let mut report = report(config, &release, release.problem().data.table.header());
    if let Some(node) = pareto {
        // the release suppresses what the front's evaluator does, or it is not that node
        let released = release.evaluation().map(|e| e.suppressed_rows);
        if released != Some(node.suppressed_rows) {
            return Err(JobError::ParetoSuppressed {
                released,
                budget: node.suppressed_rows,
            }
            .into());
        }
        if config.suppression_limit > 0.0 {
            report.warnings.push(
                "suppression_limit is not used for a node of the [pareto] front: its \
                 budget decides which rows are suppressed"
                    .to_owned(),
            );
        }
        report.pareto = Some(node);
    }
    if !report.found {
        report
            .warnings
            .extend(why_nothing(&config.privacy, release.problem().data.rows()));
    }
    let mut timings = *release.timings();
    timings.read = read;
    timings.encode += prepared;
    #[cfg(feature = "sqlite")]
    let mut staged_database = None;
    #[cfg(feature = "sqlite")]
    if let (Some(db), true) = (&database, release.found()) {
        let clock = Instant::now();
        let (staged, columns) =
            output::stage_database(db, &release, &config.csv_format()?, observer)?;
        staged_database = Some(staged);
        report.output_schema = Some(columns);
        if let Some(mapping) = &outputs.mapping {
            let table = &release.problem().data.table;
            tx.stage(mapping, |w| write_mapping(w, release.mapping(), table))?;
        }
        timings.write += clock.elapsed().as_secs_f64();
        report.output = Some(db.describe());
        report.audit = release.audit().cloned();
    }
    if let (Some(path), true) = (&outputs.table, release.found()) {
        let clock = Instant::now();
        if !staged_early {
            report.output_schema =
                output::stage(&mut tx, path, out_format, &release, &config.csv_format()?)?;
        }
        if let Some(mapping) = &outputs.mapping {
            let table = &release.problem().data.table;
            tx.stage(mapping, |w| write_mapping(w, release.mapping(), table))?;
        }
        timings.write += clock.elapsed().as_secs_f64();
        report.output = Some(path.display().to_string());
        report.audit = release.audit().cloned();
    }
    report.timings = Some(timings);
    report.seconds = start.elapsed().as_secs_f64();
    #[cfg(feature = "sqlite")]
    if let Some(staged) = staged_database {
        // the report is staged first: the table is renamed into place only once every
        // file is ready, and the files after it
        if let Some(path) = &outputs.report {
            let text = json(&report)?;
            tx.stage(path, |w| w.write_all(text.as_bytes()))?;
        }
        staged.commit()?;
        return tx.commit().map(|()| (report, Some(release)));
    }
    finish(tx, outputs, &report)?;
    Ok((report, Some(release)))
}

/// `[output] url` and `table`, checked, and the database prepared (stale staging tables
/// dropped, an existing table refused unless it may be replaced); None when the release
/// goes to a file. The database is opened only after its lock is taken: see the caller.
#[cfg(feature = "sqlite")]
fn database_output(
    config: &Config,
    outputs: &Outputs,
) -> Result<Option<crate::release::database::DatabaseOutput>> {
    let Some(db) = config.output_database()? else {
        return Ok(None);
    };
    refuse_both(config, outputs)?;
    same_database(config, &db.path)?;
    if config.input.url.as_deref() == Some(db.url.as_str())
        && config
            .input
            .table
            .as_deref()
            .is_some_and(|t| t.eq_ignore_ascii_case(&db.table))
    {
        return Err(Error::config(
            config.file_name(),
            "output.table",
            "is the input table: the source is never written; name another table",
        ));
    }
    Ok(Some(db))
}

#[cfg(not(feature = "sqlite"))]
fn database_output(config: &Config, outputs: &Outputs) -> Result<Option<std::convert::Infallible>> {
    config.check_output()?;
    refuse_both(config, outputs)?;
    Ok(None)
}

/// A release goes to a file or into a database, not both.
fn refuse_both(config: &Config, outputs: &Outputs) -> Result<()> {
    if config.writes_database() && outputs.table.is_some() {
        return Err(Error::config(
            config.file_name(),
            "output.url",
            "the release goes into this database: give no output file (--output) beside it",
        ));
    }
    Ok(())
}

/// Refuses an output database that is the input's database file: the source is never
/// written, and a release handed over as a database file must not carry the source.
#[cfg(feature = "sqlite")]
fn same_database(config: &Config, output: &Path) -> Result<()> {
    if config.input.url.is_none()
        || config.reads_server()
        || config.output_database_path().is_none()
    {
        return Ok(());
    }
    let clash = check_paths(
        &[("the input database".to_owned(), config.data_path())],
        &[("the output database".to_owned(), output.to_owned())],
    );
    match clash {
        Err(Error::PathClash { .. }) => Err(Error::config(
            config.file_name(),
            "output.url",
            format!(
                "{} is the input database: write the release into another database file (the                  source is never written, and a database handed over must not hold it)",
                output.display()
            ),
        )),
        other => other,
    }
}

/// An error of the in-memory run, named by the config key that chose what failed, and a
/// failed audit by the file it would have been written to.
fn locate(e: Error, file: &str, table: Option<&Path>) -> Error {
    match e {
        // a family the column cannot take: the config chose it
        Error::Problem(ProblemError::SetBased(m)) => {
            Error::config(file, "search.set_based.families", m)
        }
        Error::Problem(ProblemError::Local(m)) => Error::config(file, "privacy", m),
        Error::Problem(e @ ProblemError::TooManyToEnumerate { .. }) => {
            Error::config(file, "search.algorithm", e.to_string())
        }
        Error::AuditFailed { path, violations } => Error::AuditFailed {
            path: table.map_or(path, Path::to_path_buf),
            violations,
        },
        e => disclosure::locate(e, file),
    }
}

/// The report of `release` (of a source with columns `header`), without its output, audit
/// and timings.
fn report(config: &Config, release: &Release, header: &[String]) -> Report {
    let problem = release.problem();
    let algorithm = release.algorithm();
    let mut report = Report::empty(problem, algorithm);
    let layout = layout(config, problem, release.order(), release.evaluation());
    if let Some(found) = release.set_based() {
        report.found = found.search.safe;
        report
            .warnings
            .extend(layout_warnings(config, problem, &layout));
        if config.suppression_limit > 0.0 {
            report.warnings.push(
                "suppression_limit is not used by the set-based search: it deletes no rows"
                    .to_owned(),
            );
        }
        report.layout = Some(layout);
        report.set_based = Some(found.clone());
        return report;
    }
    if algorithm == Algorithm::Mondrian {
        report.found = release.found();
        report
            .warnings
            .extend(layout_warnings(config, problem, &layout));
        if config.suppression_limit > 0.0 {
            report.warnings.push(
                "suppression_limit is not used by local recoding: it deletes no rows".to_owned(),
            );
        }
        report.layout = Some(layout);
        report.local = release.local().copied();
        return report;
    }
    let outcome = release.outcome();
    report.found = release.evaluation().is_some();
    report.nodes_evaluated = outcome.nodes_evaluated;
    report.minimal = matches!(
        algorithm,
        Algorithm::Minimal | Algorithm::MinimalBfs | Algorithm::MinimalInference
    )
    .then(|| {
        outcome
            .minimal
            .iter()
            .map(|e| levels_map(problem, &e.levels))
            .collect()
    });
    report.disclosure = release.disclosure().cloned();
    report.genetic = outcome.genetic.clone();
    let unlisted = config.unlisted_released(header);
    if !unlisted.is_empty() {
        report.warnings.push(format!(
            "columns not listed under [attributes] are released as they are: {}",
            unlisted.join(", ")
        ));
    }
    if let Some(best) = release.evaluation() {
        let node = match release.classes() {
            Some(classes) => describe_classes(problem, &best.levels, classes, false),
            None => describe(problem, &best.levels, false),
        };
        report.levels = Some(node.levels);
        report.suppressed_rows = node.suppressed_rows;
        report.classes = node.classes;
        report.released_classes = node.classes - node.suppressed_classes;
        report.min_class_size = node.min_class_size;
        report.score = Some(node.score);
        report.rank = node.rank;
        report.models = node.models;
        report.ql = Some(node.ql);
        report.glm = Some(node.glm);
        report.sf = node.sf;
        report.partitions = partition_names(problem, &best.levels);
        report
            .warnings
            .extend(layout_warnings(config, problem, &layout));
        report.layout = Some(layout);
        if config.output.values == OutputValues::Microaggregation {
            report.values = config.output.values;
            report.warnings.extend(release.warnings().iter().cloned());
        }
    }
    report
}

fn layout(
    config: &Config,
    problem: &Problem,
    order: RowOrder,
    released: Option<&Evaluation>,
) -> Layout {
    let suppressed = released.map_or(0, |e| e.suppressed_rows);
    Layout {
        seed: match order {
            RowOrder::Shuffled(seed) => Some(seed),
            RowOrder::Input => None,
        },
        keep_order: order == RowOrder::Input,
        suppressed_rows: config.output.suppression,
        suppression_rule: problem.rule,
        suppression_read_sensitive_values: suppressed > 0 && problem.suppression_reads_sensitive(),
    }
}

/// Why no transformation can satisfy `models` on a table of `rows` rows, when the models
/// alone say so (a class needs more rows than the table has).
pub(super) fn why_nothing(models: &[ModelSpec], rows: usize) -> Option<String> {
    models.iter().find_map(|m| match m {
        ModelSpec::KAnonymity { k } if *k as usize > rows => Some(format!(
            "k = {k} is more than the table's {rows} rows: no transformation can make a class \
             of {k}"
        )),
        _ => None,
    })
}

/// What a recipient who knows the algorithm may still infer from this release, and other
/// things the custodian should know before handing it over.
fn layout_warnings(config: &Config, problem: &Problem, layout: &Layout) -> Vec<String> {
    let mut warnings = Vec::new();
    if layout.keep_order {
        warnings.push(
            "rows are in input order ([output] keep_order): a recipient who knows the \
             source's order can link rows back by position"
                .to_owned(),
        );
    } else if config.output.seed.is_some() {
        warnings.push(
            "the row order comes from the fixed [output] seed: it is a key, and a recipient \
             who guesses it (a small number, a date) recovers the input order; keep it \
             secret, or leave it out to draw a fresh one each run"
                .to_owned(),
        );
    }
    if layout.suppression_read_sensitive_values {
        warnings.push(
            "which classes were suppressed depended on sensitive values (ARX's class \
             suppression): a recipient who knows the algorithm can infer that the \
             suppressed persons' classes failed the model"
                .to_owned(),
        );
    }
    if problem.data.population.is_some() && problem.presence_models().next().is_none() {
        warnings.push(
            "only the research subset ([input.subset]) is released, but no delta-presence \
             model bounds what it tells about who is in it: a recipient holding the \
             population can count, class by class, how many of its persons took part"
                .to_owned(),
        );
    }
    if problem.presence_models().next().is_some() {
        let released: Vec<&str> = problem
            .data
            .roles
            .iter()
            .zip(problem.data.table.header())
            .filter(|(r, _)| {
                matches!(
                    r,
                    crate::data::Role::Sensitive | crate::data::Role::Insensitive
                )
            })
            .map(|(_, name)| name.as_str())
            .collect();
        if !released.is_empty() {
            warnings.push(format!(
                "delta-presence compares the quasi-identifiers with the population: the \
                 columns released as they are ({}) must not be in the population the \
                 recipient holds, or a combination of them can single out who took part",
                released.join(", ")
            ));
        }
    }
    let reads = problem.models.iter().any(|m| m.reads_confidential_values());
    if config.search.algorithm == Algorithm::SetBased {
        warnings.push(
            "the set-based search widens the cells of exactly the persons who would \
             otherwise be exposed: a recipient who knows the algorithm can infer from a \
             widened cell what it hides"
                .to_owned(),
        );
    } else if reads && config.disclose.is_none() {
        warnings.push(
            "the released transformation was chosen because every better one failed a \
             model that reads confidential values: a recipient who knows the algorithm can \
             reason about that (paper 001); a [disclose] section judges the release \
             against such a recipient"
                .to_owned(),
        );
    }
    warnings
}

/// Stages the report and renames every staged file into place.
fn finish(mut tx: Transaction, outputs: &Outputs, report: &Report) -> Result<()> {
    if let Some(path) = &outputs.report {
        let text = json(report)?;
        tx.stage(path, |w| w.write_all(text.as_bytes()))?;
    }
    tx.commit()
}

fn json<T: serde::Serialize>(value: &T) -> Result<String> {
    let mut text = serde_json::to_string_pretty(value).map_err(Error::Json)?;
    text.push('\n');
    Ok(text)
}

/// Writes `value` as pretty JSON, atomically.
pub fn write_json<T: serde::Serialize>(path: &Path, value: &T) -> Result<()> {
    let text = json(value)?;
    write_atomic(path, |w| w.write_all(text.as_bytes()))
}
