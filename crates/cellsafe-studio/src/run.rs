//! A job run on its own thread: its progress as the library's observer reports it, a
//! Cancel that stops it (the library's `Cancel` flag, asked every few milliseconds), and
//! its outcome.
//!
//! The run is `job::anonymize_kept` on the job's TOML, writing the release and the report
//! into the run's own directory exactly as `cellsafe anonymize` would (all or nothing:
//! audited first), then [`crate::explore`] on what it released. A `[pareto]` job without a
//! chosen node runs `cellsafe pareto`'s search instead: its front, whose nodes the page
//! then releases one at a time (the job with `[search] levels`). An LGB job runs
//! `job::lgb::anonymize`: a main table and a bucket table per bucketized attribute. A
//! cancelled or failed run
//! leaves no release behind.

use std::path::{Path, PathBuf};

use cellsafe::algorithm::Algorithm;
use std::sync::{Arc, Mutex};

use cellsafe::data::table::Table;
use cellsafe::job::config::Config;
use cellsafe::job::{self, Outputs};
use cellsafe::observer::{Cancel, Observer};
use serde::Serialize;

use crate::draft::FieldError;
use crate::explore::{self, Explored};

/// Progress as the observer was told it, and the flag that cancels.
#[derive(Default)]
pub struct Progress {
    now: Mutex<Stage>,
    cancel: Cancel,
}

/// The stage in progress.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Stage {
    /// Its name (`loading`, `search`, …).
    pub name: String,
    /// Units done.
    pub done: u64,
    /// Units in all, when known.
    pub total: Option<u64>,
}

impl Observer for Progress {
    fn start(&self, stage: &str, total: Option<u64>) {
        *self.now.lock().unwrap_or_else(|p| p.into_inner()) = Stage {
            name: stage.to_owned(),
            done: 0,
            total,
        };
    }
    fn set(&self, position: u64) {
        let mut now = self.now.lock().unwrap_or_else(|p| p.into_inner());
        now.done = now.done.max(position);
    }
    fn cancelled(&self) -> bool {
        self.cancel.is_cancelled()
    }
}

/// How a run stands.
#[derive(Clone)]
pub enum Outcome {
    /// Still working.
    Running,
    /// Done: what it released (or that nothing was acceptable).
    Done(Arc<Explored>),
    /// Stopped by an error, placed at its key.
    Failed(FieldError),
    /// Stopped by Cancel: nothing was released.
    Cancelled,
}

/// One run of a job.
pub struct Run {
    /// Its number (runs are numbered from 1).
    pub id: u64,
    /// The job's TOML, as the export gives it.
    pub text: String,
    /// Where its release is written.
    pub release: PathBuf,
    /// Where its report is written.
    pub report: PathBuf,
    progress: Arc<Progress>,
    outcome: Mutex<Outcome>,
}

/// What the page is told of a run.
#[derive(Debug, Serialize)]
pub struct Status {
    /// The run's number.
    pub id: u64,
    /// `running`, `done`, `failed` or `cancelled`.
    pub state: &'static str,
    /// The stage in progress.
    pub stage: Stage,
    /// Why it failed.
    pub error: Option<FieldError>,
}

impl Run {
    /// Starts run `id` of `config` (whose TOML is `text`) into `dir`, writing a release in
    /// the format named by `extension`; `table` is the loaded table, for what the result
    /// page compares.
    pub fn start(
        id: u64,
        config: Config,
        text: String,
        dir: PathBuf,
        extension: &str,
        table: Arc<Table>,
    ) -> Arc<Run> {
        let run = Arc::new(Run {
            id,
            release: dir.join(format!("release.{extension}")),
            report: dir.join("report.json"),
            text,
            progress: Arc::new(Progress::default()),
            outcome: Mutex::new(Outcome::Running),
        });
        let me = run.clone();
        std::thread::spawn(move || {
            let outcome = me.work(&config, &table);
            // a run that did not finish leaves nothing: a release written before Cancel
            // (while the result was explored) is removed with its report
            if !matches!(outcome, Outcome::Done(_)) {
                if let Some(dir) = me.release.parent() {
                    let _ = std::fs::remove_dir_all(dir);
                }
            }
            *me.outcome.lock().unwrap_or_else(|p| p.into_inner()) = outcome;
        });
        run
    }

    fn work(&self, config: &Config, table: &Table) -> Outcome {
        let outputs = Outputs {
            table: Some(self.release.clone()),
            report: Some(self.report.clone()),
            mapping: None,
        };
        let progress: &Progress = &self.progress;
        // a [pareto] job without a node chosen: its front, whose nodes the page releases
        let result = if config.pareto.is_some() && config.search.levels.is_none() {
            job::pareto::pareto(config, None, false, progress).and_then(|front| {
                job::write_json(&self.report, &front)?;
                Ok(explore::front(&front))
            })
        } else if config.search.algorithm == Algorithm::Lgb {
            // several tables: the main one and a bucket table per bucketized attribute
            job::lgb::anonymize(config, &outputs, None, progress).map(|report| {
                let files = report
                    .bucket_tables
                    .iter()
                    .filter_map(|b| {
                        Path::new(&b.path)
                            .file_name()
                            .map(|n| n.to_string_lossy().into_owned())
                    })
                    .collect();
                explore::lgb(&report, files)
            })
        } else {
            job::anonymize_kept(config, &outputs, progress)
                .and_then(|done| explore::explore(config, &done, table, progress))
        };
        match result {
            Ok(explored) => Outcome::Done(Arc::new(explored)),
            Err(cellsafe::Error::Cancelled) => Outcome::Cancelled,
            Err(e) => Outcome::Failed(FieldError::of(&e, &self.text)),
        }
    }

    /// Asks the run to stop.
    pub fn cancel(&self) {
        self.progress.cancel.cancel();
    }

    /// How the run stands.
    pub fn outcome(&self) -> Outcome {
        self.outcome
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// What the page is told.
    pub fn status(&self) -> Status {
        let outcome = self.outcome();
        let stage = self
            .progress
            .now
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone();
        let (state, error) = match outcome {
            Outcome::Running => ("running", None),
            Outcome::Done(_) => ("done", None),
            Outcome::Failed(e) => ("failed", Some(e)),
            Outcome::Cancelled => ("cancelled", None),
        };
        Status {
            id: self.id,
            state,
            stage,
            error,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cancelled_run_leaves_no_file() {
        let workspace = crate::workspace::Workspace::new().unwrap();
        let rows: Vec<Vec<String>> = (0..20_000)
            .map(|i| vec![format!("{}", 100_000 + (i * 7919) % 900_000), "x".into()])
            .collect();
        let table = Table::from_rows(vec!["a".into(), "b".into()], &rows).unwrap();
        let csv = workspace.files().join("t.csv");
        let mut text = String::from("a,b\n");
        for r in &rows {
            text.push_str(&format!("{},{}\n", r[0], r[1]));
        }
        std::fs::write(&csv, text).unwrap();
        let job = "[input]\npath = \"t.csv\"\n[attributes.a]\nrole = \"quasi-identifying\"\n\
                   hierarchy = { kind = \"mask\" }\n[[privacy]]\nmodel = \"k-anonymity\"\nk = 2\n";
        let config = Config::parse(job, &workspace.job_path()).unwrap();
        let dir = workspace.run_dir(1).unwrap();
        let run = Run::start(1, config, job.into(), dir.clone(), "csv", Arc::new(table));
        run.cancel();
        // the outcome is set after the directory is removed
        while matches!(run.outcome(), Outcome::Running) {
            std::thread::yield_now();
        }
        assert!(matches!(run.outcome(), Outcome::Cancelled));
        assert!(!dir.exists());
    }
}
