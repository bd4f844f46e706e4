//! Helpers shared by the integration tests.
#![allow(dead_code)]

pub mod logical;

use std::path::PathBuf;

use cellsafe::algorithm::problem::Problem;
use cellsafe::criteria::ModelSpec;
use cellsafe::data::Role;
use cellsafe::job::config::Config;
use cellsafe::metric::{Aggregate, MetricKind, MetricSpec};

// how a test says that it did not run, and why (`scripts/test` lists them at the end)
#[allow(unused_imports)] // not every test file skips
pub use cellsafe_testkit::skipped;

/// Adult's eight quasi-identifiers (see `cellsafe_testkit::ADULT_QIS`).
#[allow(unused_imports)] // not every test file uses Adult
pub use cellsafe_testkit::ADULT_QIS;

/// A `;`-separated file's header and rows.
pub fn read_semicolon(path: &std::path::Path) -> (Vec<String>, Vec<Vec<String>>) {
    let mut rdr = csv::ReaderBuilder::new()
        .delimiter(b';')
        .from_path(path)
        .unwrap();
    let header = rdr.headers().unwrap().iter().map(String::from).collect();
    let rows = rdr
        .records()
        .map(|r| r.unwrap().iter().map(String::from).collect())
        .collect();
    (header, rows)
}

/// The 0-based input row of each released row, from a mapping file (input lines count the
/// header as line 1).
pub fn mapping_rows(path: &std::path::Path) -> Vec<usize> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| l.split_once(',').unwrap().1.parse::<usize>().unwrap() - 2)
        .collect()
}

pub fn examples() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples")
}

/// The Adult config with every attribute's role replaced by `roles` overrides.
pub fn adult(
    all_quasi: bool,
    models: Vec<ModelSpec>,
    limit: f64,
    metric: MetricKind,
    aggregate: Option<Aggregate>,
) -> Problem {
    let path = examples().join("adult/adult.toml");
    let mut config = Config::from_file(&path).unwrap();
    if all_quasi {
        let occ = config.attributes.get_mut("occupation").unwrap();
        occ.role = Role::QuasiIdentifying;
    }
    config.privacy = models;
    config.suppression_limit = limit;
    config.metric = MetricSpec {
        name: metric,
        aggregate,
        ..MetricSpec::default()
    };
    config.problem().unwrap()
}

/// Brute force: the acceptable nodes of `all` with no acceptable strict specialization,
/// in the order of `all`.
pub fn minimal_acceptable(all: &[cellsafe::algorithm::problem::Evaluation]) -> Vec<Vec<u8>> {
    let acceptable: Vec<&Vec<u8>> = all
        .iter()
        .filter(|e| e.acceptable)
        .map(|e| &e.levels)
        .collect();
    acceptable
        .iter()
        .filter(|a| {
            !acceptable
                .iter()
                .any(|b| b != *a && cellsafe::framework::lattice::is_generalization(a, b))
        })
        .map(|a| (*a).clone())
        .collect()
}

/// Hierarchy rows of a random QI `j`: leaf `q{j}v{x}`, level l label `g{l}:{x / w_l}`, top `*`.
pub fn hierarchy_rows(j: usize, leaves: u32, widths: &[u32]) -> Vec<Vec<String>> {
    (0..leaves)
        .map(|x| {
            let mut row = vec![format!("q{j}v{x}")];
            for (l, w) in widths.iter().enumerate() {
                row.push(format!("g{}:{}", l + 1, x / w));
            }
            row.push("*".into());
            row
        })
        .collect()
}

/// The Spark Connect server of the test cluster (`CELLSAFE_SPARK_REMOTE`, set by
/// `scripts/test` after it starts one), or None after saying that `test` was skipped.
#[allow(dead_code)] // only the Spark tests ask
pub fn spark_remote(test: &str) -> Option<String> {
    match std::env::var("CELLSAFE_SPARK_REMOTE") {
        Ok(url) if !url.is_empty() => Some(url),
        _ => {
            skipped(&format!(
                "{test}: CELLSAFE_SPARK_REMOTE is not set (scripts/test starts a cluster and \
                 sets it)"
            ));
            None
        }
    }
}

/// Writes `batch` to the Parquet file `path` in row groups of at most `group` rows (so a
/// reader splits it into several partitions).
#[cfg(feature = "arrow")]
#[allow(dead_code)] // only the tests that write Parquet
pub fn write_parquet(path: &std::path::Path, batch: &arrow_array::RecordBatch, group: usize) {
    let props = parquet::file::properties::WriterProperties::builder()
        .set_max_row_group_row_count(Some(group))
        .build();
    let mut writer = parquet::arrow::ArrowWriter::try_new(
        std::fs::File::create(path).unwrap(),
        batch.schema(),
        Some(props),
    )
    .unwrap();
    writer.write(batch).unwrap();
    writer.close().unwrap();
}
