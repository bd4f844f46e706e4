//! The `cellsafe._cellsafe` extension module: the cellsafe library's job layer, called
//! from Python.
//!
//! Thin on purpose: a job is described by the same keys as a TOML job (the Python package
//! builds them from keyword arguments and hands them over as JSON), the table comes in as
//! Arrow record batches through the Arrow PyCapsule interface, and the release goes back
//! as a `pyarrow.Table` with the job's report as JSON. All the work runs on a thread of its
//! own with the GIL released; the calling thread waits, checking for signals (Ctrl-C
//! cancels the job through the library's observer and raises `KeyboardInterrupt`) and
//! reporting progress to a Python callback when one is given.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::Duration;

use arrow_pyarrow::{FromPyArrow, IntoPyArrow};
use cellsafe::job::config::Config;
use cellsafe::job::{self, Anonymized, Given};
use cellsafe::observer::{Cancel, Observer};
use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyKeyboardInterrupt, PyTypeError};
use pyo3::prelude::*;

create_exception!(cellsafe, Error, PyException, "Any error cellsafe reports.");
create_exception!(
    cellsafe,
    ConfigError,
    Error,
    "A job's settings are wrong: the message names the key."
);
create_exception!(
    cellsafe,
    DataError,
    Error,
    "The data (or a hierarchy file) cannot be read or does not fit the job: the message \
     names the file, line and column."
);
create_exception!(
    cellsafe,
    NothingAcceptable,
    Error,
    "No transformation satisfies the privacy models within the suppression limit."
);
create_exception!(
    cellsafe,
    AuditFailed,
    Error,
    "The independent audit of the release found a violation: nothing is returned."
);

/// The Python exception for a library error, with the message the CLI prints.
fn to_py(e: cellsafe::Error) -> PyErr {
    use cellsafe::Error as E;
    let message = e.to_string();
    match e {
        E::Cancelled => PyKeyboardInterrupt::new_err(message),
        E::Config { .. } | E::ConfigSyntax { .. } | E::Criteria(_) | E::Metric(_) => {
            ConfigError::new_err(message)
        }
        E::Io { .. } | E::Data { .. } | E::DataModel(_) | E::Dataset(_) => {
            DataError::new_err(message)
        }
        E::AuditFailed { .. } => AuditFailed::new_err(message),
        _ => Error::new_err(message),
    }
}

/// Progress as the library's observer reports it, read by the waiting thread.
#[derive(Default)]
struct Progress {
    stage: Mutex<(String, Option<u64>)>,
    position: AtomicU64,
    /// Bumped at every stage start, so the waiting thread sees a new stage.
    stages: AtomicU64,
}

/// Cancellable by Ctrl-C, and recording progress.
struct Watch {
    cancel: Cancel,
    progress: Progress,
}

impl Observer for Watch {
    fn start(&self, stage: &str, total: Option<u64>) {
        if let Ok(mut s) = self.progress.stage.lock() {
            *s = (stage.to_owned(), total);
        }
        self.progress.position.store(0, Ordering::Relaxed);
        self.progress.stages.fetch_add(1, Ordering::Relaxed);
    }
    fn set(&self, position: u64) {
        self.progress.position.store(position, Ordering::Relaxed);
    }
    fn cancelled(&self) -> bool {
        self.cancel.is_cancelled()
    }
}

/// Runs `work` on its own thread with the GIL released; meanwhile checks for signals and
/// calls `progress(stage, position, total)` every tenth of a second when given, and once
/// more with the last state when the work has ended.
fn detached<T: Send>(
    py: Python<'_>,
    progress: Option<&Bound<'_, PyAny>>,
    work: impl FnOnce(&dyn Observer) -> cellsafe::Result<T> + Send,
) -> PyResult<T> {
    let watch = Watch {
        cancel: Cancel::new(),
        progress: Progress::default(),
    };
    let done = (Mutex::new(false), Condvar::new());
    std::thread::scope(|scope| {
        let (watch, done) = (&watch, &done);
        let handle = scope.spawn(move || {
            // set even if `work` panics
            struct Done<'a>(&'a (Mutex<bool>, Condvar));
            impl Drop for Done<'_> {
                fn drop(&mut self) {
                    if let Ok(mut d) = self.0 .0.lock() {
                        *d = true;
                    }
                    self.0 .1.notify_all();
                }
            }
            let _done = Done(done);
            work(watch)
        });
        let mut shown: (u64, u64) = (u64::MAX, u64::MAX);
        // an error here (a signal, or one the callback raised, a KeyboardInterrupt
        // among them) cancels the work and waits for it to stop before it is raised
        let waited: PyResult<()> = (|| loop {
            let finished = py.detach(|| {
                let Ok(d) = done.0.lock() else { return true };
                done.1
                    .wait_timeout_while(d, Duration::from_millis(100), |d| !*d)
                    .map_or(true, |(d, _)| *d)
            });
            if !finished {
                py.check_signals()?;
            }
            if let Some(callback) = progress {
                let now = (
                    watch.progress.stages.load(Ordering::Relaxed),
                    watch.progress.position.load(Ordering::Relaxed),
                );
                if now != shown && now.0 > 0 {
                    shown = now;
                    let (stage, total) = watch
                        .progress
                        .stage
                        .lock()
                        .map(|s| s.clone())
                        .unwrap_or_default();
                    callback.call1((stage, now.1, total))?;
                }
            }
            // the last state is shown once the work has ended
            if finished {
                return Ok(());
            }
        })();
        if let Err(e) = waited {
            watch.cancel.cancel();
            // the work stops at its next check of the observer; the error says how it
            // ended (`cancelled`: it saw the cancellation), which the tests check
            let ended = match py.detach(|| handle.join()) {
                Ok(Err(cellsafe::Error::Cancelled)) => "cancelled",
                Ok(Ok(_)) => "finished",
                _ => "failed",
            };
            let _ = e.value(py).setattr("cellsafe_work", ended);
            return Err(e);
        }
        match handle.join() {
            Ok(result) => result.map_err(to_py),
            Err(_) => Err(Error::new_err("cellsafe's job panicked")),
        }
    })
}

/// The table in `data`: any object with `__arrow_c_stream__` (a table, a reader, a
/// Polars or pandas frame) or `__arrow_c_array__` (a record batch), as Arrow record
/// batches, read into cellsafe's table on the work's thread.
fn table_of(data: &Bound<'_, PyAny>) -> PyResult<Given> {
    let (schema, batches) = if data.hasattr("__arrow_c_stream__")? {
        let table = arrow_pyarrow::Table::from_pyarrow_bound(data)?;
        let (batches, schema) = table.into_inner();
        (schema, batches)
    } else if data.hasattr("__arrow_c_array__")? {
        let batch = arrow_array::RecordBatch::from_pyarrow_bound(data)?;
        (batch.schema(), vec![batch])
    } else {
        return Err(PyTypeError::new_err(format!(
            "cellsafe reads Arrow data: an object with __arrow_c_stream__ or \
             __arrow_c_array__ (a pyarrow, Polars or pandas table), not {}",
            data.get_type().name()?
        )));
    };
    Ok(Given::Arrow(schema, batches))
}

/// TOML text with the keys of `json` (a JSON object); a table's keys come out sorted.
fn toml_of(json: &str, name: &str) -> PyResult<String> {
    let value: serde_json::Value =
        serde_json::from_str(json).map_err(|e| ConfigError::new_err(format!("{name}: {e}")))?;
    let table: toml::Table =
        serde_json::from_value(value).map_err(|e| ConfigError::new_err(format!("{name}: {e}")))?;
    toml::to_string(&table).map_err(|e| ConfigError::new_err(format!("{name}: {e}")))
}

/// The job's TOML text from its keys as JSON (what `cellsafe.Job.to_toml` shows).
#[pyfunction]
fn job_toml(config: &str) -> PyResult<String> {
    toml_of(config, "the job")
}

/// What a run returns to Python: the report as JSON, and the release as a pyarrow table.
fn returned<'py>(
    py: Python<'py>,
    done: Anonymized,
) -> PyResult<(String, Option<Bound<'py, PyAny>>)> {
    let report = serde_json::to_string(&done.report)
        .map_err(|e| Error::new_err(format!("the report: {e}")))?;
    let table = match done.record_batches().map_err(to_py)? {
        Some((schema, batches)) => Some(
            arrow_pyarrow::Table::try_new(batches, schema)
                .map_err(|e| Error::new_err(e.to_string()))?
                .into_pyarrow(py)?,
        ),
        None => None,
    };
    Ok((report, table))
}

/// Runs the job whose keys `config` holds (JSON; relative paths from the working
/// directory) on `data`; `name` names the job in messages. Returns the report (JSON) and
/// the released table (a pyarrow table; None when nothing was acceptable).
#[pyfunction]
#[pyo3(signature = (config, data, name, source, progress=None))]
fn anonymize<'py>(
    py: Python<'py>,
    config: &str,
    data: &Bound<'py, PyAny>,
    name: &str,
    source: &str,
    progress: Option<&Bound<'py, PyAny>>,
) -> PyResult<(String, Option<Bound<'py, PyAny>>)> {
    let config = given_config(config, name, source)?;
    let table = table_of(data)?;
    let done = detached(py, progress, move |observer| {
        job::run_arrow(&config, Some(table), observer)
    })?;
    returned(py, done)
}

/// Runs the TOML job at `path` (its `[input]` names the data) without writing anything;
/// returns what [`anonymize`] returns.
#[pyfunction]
#[pyo3(signature = (path, progress=None))]
fn run<'py>(
    py: Python<'py>,
    path: &str,
    progress: Option<&Bound<'py, PyAny>>,
) -> PyResult<(String, Option<Bound<'py, PyAny>>)> {
    let config = Config::from_file(Path::new(path)).map_err(to_py)?;
    let done = detached(py, progress, move |observer| {
        job::run_arrow(&config, None, observer)
    })?;
    returned(py, done)
}

/// Runs the TOML job at `path` as `cellsafe anonymize` does, writing the released table to
/// `output` and the report to `report` (all or nothing; on the Spark engine the cluster
/// writes the release); returns the report as JSON.
#[pyfunction]
#[pyo3(signature = (path, output=None, report=None, progress=None))]
fn write_job<'py>(
    py: Python<'py>,
    path: &str,
    output: Option<PathBuf>,
    report: Option<PathBuf>,
    progress: Option<&Bound<'py, PyAny>>,
) -> PyResult<String> {
    let config = Config::from_file(Path::new(path)).map_err(to_py)?;
    // as the CLI does: the job's own paths, relative to it, unless given
    let named = |p: &Option<PathBuf>| p.as_ref().map(|p| config.resolve(p));
    let outputs = job::Outputs {
        table: output.or_else(|| named(&config.output.path)),
        report: report.or_else(|| named(&config.output.report)),
        mapping: None,
    };
    let done = detached(py, progress, move |observer| {
        job::anonymize(&config, &outputs, observer)
    })?;
    serde_json::to_string(&done).map_err(|e| Error::new_err(format!("the report: {e}")))
}

/// The config of a job on a table handed over: its keys (JSON) as TOML, parsed.
fn given_config(config: &str, name: &str, source: &str) -> PyResult<Config> {
    let text = toml_of(config, name)?;
    Ok(Config::parse(&text, Path::new(name))
        .map_err(to_py)?
        .given_table(source))
}

/// `cellsafe risk` on `data`: the re-identification risks at `levels` (None: the table as
/// it is); returns the report as JSON.
#[pyfunction]
#[pyo3(signature = (config, data, name, source, levels=None, threshold=0.2, population_size=None, sampling_fraction=None))]
#[allow(clippy::too_many_arguments)]
fn risk(
    py: Python<'_>,
    config: &str,
    data: &Bound<'_, PyAny>,
    name: &str,
    source: &str,
    levels: Option<Vec<u8>>,
    threshold: f64,
    population_size: Option<u64>,
    sampling_fraction: Option<f64>,
) -> PyResult<String> {
    use cellsafe::job::risk::Population;
    let config = given_config(config, name, source)?;
    let table = table_of(data)?;
    let population = population_size
        .map(Population::Size)
        .or(sampling_fraction.map(Population::Fraction));
    let report = detached(py, None, move |observer| {
        let problem = config.problem_of(table.into_table(observer)?)?;
        cellsafe::job::risk::risk(
            &problem,
            levels.as_deref(),
            threshold,
            population,
            config.suppressed_rows(),
        )
    })?;
    serde_json::to_string(&report).map_err(|e| Error::new_err(format!("the report: {e}")))
}

/// `cellsafe pareto` on `data`: the Pareto front of the job's `[pareto]` objectives;
/// returns the report as JSON.
#[pyfunction]
#[pyo3(signature = (config, data, name, source, seed=None, exhaustive=false, progress=None))]
#[allow(clippy::too_many_arguments)]
fn pareto<'py>(
    py: Python<'py>,
    config: &str,
    data: &Bound<'py, PyAny>,
    name: &str,
    source: &str,
    seed: Option<u64>,
    exhaustive: bool,
    progress: Option<&Bound<'py, PyAny>>,
) -> PyResult<String> {
    let config = given_config(config, name, source)?;
    let table = table_of(data)?;
    let report = detached(py, progress, move |observer| {
        let table = table.into_table(observer)?;
        cellsafe::job::pareto::pareto_on(&config, Some(table), seed, exhaustive, observer)
    })?;
    serde_json::to_string(&report).map_err(|e| Error::new_err(format!("the report: {e}")))
}

/// The extension module.
#[pymodule]
fn _cellsafe(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("Error", py.get_type::<Error>())?;
    m.add("ConfigError", py.get_type::<ConfigError>())?;
    m.add("DataError", py.get_type::<DataError>())?;
    m.add("NothingAcceptable", py.get_type::<NothingAcceptable>())?;
    m.add("AuditFailed", py.get_type::<AuditFailed>())?;
    m.add_function(wrap_pyfunction!(anonymize, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(write_job, m)?)?;
    m.add_function(wrap_pyfunction!(job_toml, m)?)?;
    m.add_function(wrap_pyfunction!(risk, m)?)?;
    m.add_function(wrap_pyfunction!(pareto, m)?)?;
    Ok(())
}
