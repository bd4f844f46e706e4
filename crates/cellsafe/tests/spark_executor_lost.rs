//! A Spark job whose executor is killed while the cluster writes the release: Spark runs
//! the lost tasks again, and the job either publishes the release the in-memory engine
//! makes, or fails with nothing published and no staging directory left. Needs the test
//! cluster (`CELLSAFE_SPARK_REMOTE`, and `CELLSAFE_SPARK_WORK`, its workers' directory,
//! where the executors run and log: only an executor found there is killed). Alone in its
//! test binary, so no other test shares the cluster while an executor dies.
#![cfg(feature = "spark")]

mod common;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::Arc;

use cellsafe::job::config::Config;
use cellsafe::job::Outputs;
use cellsafe::observer::{Observer, Silent};
use cellsafe::{CsvFormat, Table};

/// The executors of the test cluster: (pid, its stderr log).
fn executors(work: &Path) -> Vec<(u32, PathBuf)> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|s| s.parse::<u32>().ok())
        else {
            continue;
        };
        let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
        if !String::from_utf8_lossy(&cmdline).contains("CoarseGrainedExecutorBackend") {
            continue;
        }
        if let Ok(cwd) = std::fs::read_link(entry.path().join("cwd")) {
            if cwd.starts_with(work) {
                found.push((pid, cwd.join("stderr")));
            }
        }
    }
    found
}

/// Lines of `log` that say a task started.
fn tasks_started(log: &Path) -> usize {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .filter(|l| l.contains("Running task"))
        .count()
}

/// When the release pass starts: waits (on another thread) until an executor of the
/// cluster starts a new task, then kills it (SIGKILL) and records its pid.
struct KillDuringRelease {
    work: PathBuf,
    killed: Arc<AtomicU32>,
    done: Arc<AtomicBool>,
}

impl Observer for KillDuringRelease {
    fn start(&self, stage: &str, _: Option<u64>) {
        if stage != "release" {
            return;
        }
        let (work, killed, done) = (self.work.clone(), self.killed.clone(), self.done.clone());
        let before: Vec<(u32, PathBuf, usize)> = executors(&work)
            .into_iter()
            .map(|(pid, log)| {
                let n = tasks_started(&log);
                (pid, log, n)
            })
            .collect();
        std::thread::spawn(move || {
            while !done.load(Ordering::SeqCst) {
                for (pid, log, n) in &before {
                    if tasks_started(log) > *n {
                        // SAFETY: kill(2) on a pid found above, an executor of the test cluster
                        unsafe { libc::kill(*pid as i32, libc::SIGKILL) };
                        killed.store(*pid, Ordering::SeqCst);
                        return;
                    }
                }
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
        });
    }
}

fn parquet_rows(path: &Path) -> Vec<Vec<String>> {
    let mut files: Vec<PathBuf> = if path.is_dir() {
        std::fs::read_dir(path)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "parquet"))
            .collect()
    } else {
        vec![path.to_owned()]
    };
    files.sort();
    let mut rows = Vec::new();
    for file in files {
        let t = Table::read(
            &file,
            cellsafe::data::table::Format::Parquet,
            &CsvFormat::default(),
            &Silent,
        )
        .unwrap();
        for r in 0..t.rows() {
            rows.push(
                (0..t.header().len())
                    .map(|c| t.value(r, c).to_owned())
                    .collect(),
            );
        }
    }
    rows
}

#[test]
fn a_killed_executor_gives_the_release_or_nothing() {
    use arrow_array::{ArrayRef, Int64Array, RecordBatch, StringArray};
    use arrow_schema::{DataType, Field, Schema};
    let (Ok(remote), Ok(work)) = (
        std::env::var("CELLSAFE_SPARK_REMOTE"),
        std::env::var("CELLSAFE_SPARK_WORK"),
    ) else {
        common::skipped(
            "spark_executor_lost::a_killed_executor_gives_the_release_or_nothing: \
             CELLSAFE_SPARK_REMOTE or CELLSAFE_SPARK_WORK is not set (scripts/test starts a \
             cluster and sets them)",
        );
        return;
    };
    let work = PathBuf::from(work).canonicalize().unwrap();
    let dir = tempfile::tempdir().unwrap();
    // a million rows in many row groups: the write runs as several tasks per executor
    let rows = 1_000_000usize;
    let mut state = 11u64;
    let mut next = move |n: u64| {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 33) % n
    };
    let age: Vec<i64> = (0..rows).map(|_| 18 + next(70) as i64).collect();
    let towns = ["Aa", "Ab", "Ba", "Bb", "Ca", "Cb", "Da", "Db"];
    let town: Vec<&str> = (0..rows).map(|_| towns[next(8) as usize]).collect();
    let sick: Vec<String> = (0..rows).map(|_| format!("d{}", next(20))).collect();
    let schema = Arc::new(Schema::new(vec![
        Field::new("age", DataType::Int64, false),
        Field::new("town", DataType::Utf8, false),
        Field::new("sick", DataType::Utf8, false),
    ]));
    let batch = RecordBatch::try_new(
        schema,
        vec![
            Arc::new(Int64Array::from(age)) as ArrayRef,
            Arc::new(StringArray::from(town)),
            Arc::new(StringArray::from(sick)),
        ],
    )
    .unwrap();
    let input = dir.path().join("people.parquet");
    common::write_parquet(&input, &batch, 50_000);
    let ages: String = (18..88)
        .map(|a| format!("{a};{}-{};*\n", a / 10 * 10, a / 10 * 10 + 9))
        .collect();
    let places: String = towns
        .iter()
        .map(|t| format!("{t};{}*;*\n", &t[..1]))
        .collect();
    std::fs::write(dir.path().join("age.csv"), ages).unwrap();
    std::fs::write(dir.path().join("town.csv"), places).unwrap();
    let job = |engine: &str| {
        let text = format!(
            "suppression_limit = 0.01\n{engine}\n[input]\npath = \"people.parquet\"\n\n\
             [attributes.age]\nrole = \"quasi-identifying\"\nhierarchy = \"age.csv\"\n\n\
             [attributes.town]\nrole = \"quasi-identifying\"\nhierarchy = \"town.csv\"\n\n\
             [attributes.sick]\nrole = \"sensitive\"\n\n\
             [[privacy]]\nmodel = \"k-anonymity\"\nk = 20\n\n\
             [[privacy]]\nmodel = \"distinct-l-diversity\"\nattribute = \"sick\"\nl = 3\n\n\
             [output]\nkeep_order = true\n"
        );
        let path = dir.path().join("job.toml");
        std::fs::write(&path, &text).unwrap();
        Config::parse(&text, &path).unwrap()
    };
    let here = dir.path().join("memory.parquet");
    let outputs = |p: &Path| Outputs {
        table: Some(p.to_owned()),
        report: None,
        mapping: None,
    };
    cellsafe::job::anonymize(&job(""), &outputs(&here), &Silent).unwrap();
    let out = dir.path().join("out");
    std::fs::create_dir(&out).unwrap();
    let there = out.join("spark.parquet");
    let observer = KillDuringRelease {
        work: work.clone(),
        killed: Arc::new(AtomicU32::new(0)),
        done: Arc::new(AtomicBool::new(false)),
    };
    let spark = job(&format!(
        "\n[engine]\nkind = \"spark\"\nremote = \"{remote}\"\n"
    ));
    let result = cellsafe::job::anonymize(&spark, &outputs(&there), &observer);
    observer.done.store(true, Ordering::SeqCst);
    let killed = observer.killed.load(Ordering::SeqCst);
    assert_ne!(
        killed, 0,
        "an executor was killed while the release was written"
    );
    eprintln!("spark_executor_lost: killed executor {killed}; the job: {result:?}");
    match result {
        Ok(report) => {
            assert!(report.audit.is_some_and(|a| a.passed));
            assert_eq!(
                parquet_rows(&there),
                parquet_rows(&here),
                "the in-memory release"
            );
        }
        Err(e) => {
            eprintln!("spark_executor_lost: the job failed cleanly: {e}");
            let left: Vec<_> = std::fs::read_dir(&out).unwrap().collect();
            assert!(
                left.is_empty(),
                "nothing published, no staging left: {left:?}"
            );
        }
    }
}
