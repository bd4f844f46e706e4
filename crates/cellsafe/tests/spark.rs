//! The Spark engine against a real Spark Connect server (`CELLSAFE_SPARK_REMOTE`, which
//! `scripts/test` sets after starting a standalone cluster of one master and two workers
//! on this machine): its frequency set is the in-memory engine's, value for value and in
//! the same order, on Adult and on random tables; a server that is down is an error
//! naming `engine.remote`; a token is never taken from the url.
#![cfg(feature = "spark")]

mod common;

use std::path::PathBuf;
use std::sync::Arc;

use cellsafe::engine::spark::{Spark, SparkSource};
use cellsafe::engine::{Engine, FrequencySet, Local};
use cellsafe::observer::Silent;
use cellsafe::{CsvFormat, Table};

/// The server's url, or None (the test then says it was skipped).
fn remote(test: &str) -> Option<String> {
    common::spark_remote(&format!("{}::{test}", module_path!()))
}

fn adult() -> PathBuf {
    common::examples().join("adult").canonicalize().unwrap()
}

/// Every cell of a frequency set's table, its weights, rows and stars.
type Cells = (Vec<Vec<String>>, Vec<u32>, u64, Vec<Option<u64>>);

/// `f`'s cells.
fn cells(f: &FrequencySet) -> Cells {
    let t = &f.table;
    let rows = (0..t.rows())
        .map(|r| {
            (0..t.header().len())
                .map(|c| t.value(r, c).to_owned())
                .collect()
        })
        .collect();
    (rows, f.weights.clone(), f.rows, f.stars.clone())
}

/// The in-memory engine's frequency set of `columns` of `table`.
fn in_memory(table: Table, names: &[&str], starless: &[&str]) -> FrequencySet {
    let index = |n: &&str| table.column_index(n).unwrap();
    let columns: Vec<usize> = names.iter().map(index).collect();
    let stars: Vec<usize> = starless.iter().map(index).collect();
    Local::memory(table)
        .frequency_set(&columns, &stars, &Silent)
        .unwrap()
}

fn on_spark(spark: &Spark, names: &[&str], starless: &[&str]) -> FrequencySet {
    let index = |n: &&str| spark.header().iter().position(|h| h == n).unwrap();
    let columns: Vec<usize> = names.iter().map(index).collect();
    let stars: Vec<usize> = starless.iter().map(index).collect();
    spark.frequency_set(&columns, &stars, &Silent).unwrap().set
}

#[test]
fn adult_frequency_set_is_the_in_memory_one() {
    let Some(remote) = remote("adult_frequency_set_is_the_in_memory_one") else {
        return;
    };
    let path = adult().join("adult.parquet");
    let table = Table::read(
        &path,
        cellsafe::data::table::Format::Parquet,
        &CsvFormat::default(),
        &Silent,
    )
    .unwrap();
    let spark = Spark::connect(&remote, SparkSource::Parquet(path), "job.toml").unwrap();
    assert_eq!(spark.header(), table.header());
    let mut qis = common::ADULT_QIS.to_vec();
    qis.push("occupation");
    let local = in_memory(table, &qis, &["occupation"]);
    let remote = on_spark(&spark, &qis, &["occupation"]);
    assert_eq!(cells(&remote), cells(&local));
    assert!(remote.table.rows() > 1000, "a real frequency set");
}

/// Random tables with a typed column, nulls and `*`, written as Parquet in several row
/// groups (so the cluster reads them in several partitions).
#[test]
fn random_frequency_sets_are_the_in_memory_ones() {
    use arrow_array::{ArrayRef, Float64Array, Int64Array, RecordBatch, StringArray};
    use arrow_schema::{DataType, Field, Schema};
    let Some(remote) = remote("random_frequency_sets_are_the_in_memory_ones") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    for seed in 1..=4u64 {
        let mut state = seed;
        let mut next = move |n: u64| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 33) % n
        };
        let rows = 3000 + next(3000) as usize;
        let zip: Vec<Option<String>> = (0..rows)
            .map(|_| match next(50) {
                0 => None,
                1 => Some("*".to_owned()),
                x => Some(format!("{:05}", 10000 + x * 7)),
            })
            .collect();
        let age: Vec<Option<i64>> = (0..rows)
            .map(|_| (next(30) != 0).then(|| 18 + next(70) as i64))
            .collect();
        let score: Vec<f64> = (0..rows).map(|_| next(40) as f64 / 4.0).collect();
        let sick: Vec<String> = (0..rows)
            .map(|_| ["flu", "*", "cold", "gout"][next(4) as usize].to_owned())
            .collect();
        let schema = Arc::new(Schema::new(vec![
            Field::new("zip", DataType::Utf8, true),
            Field::new("age", DataType::Int64, true),
            Field::new("score", DataType::Float64, false),
            Field::new("sick", DataType::Utf8, false),
        ]));
        let batch = RecordBatch::try_new(
            schema,
            vec![
                Arc::new(StringArray::from(zip)) as ArrayRef,
                Arc::new(Int64Array::from(age)),
                Arc::new(Float64Array::from(score)),
                Arc::new(StringArray::from(sick)),
            ],
        )
        .unwrap();
        let path = dir.path().join(format!("random{seed}.parquet"));
        common::write_parquet(&path, &batch, 700);
        let table = Table::read(
            &path,
            cellsafe::data::table::Format::Parquet,
            &CsvFormat::default(),
            &Silent,
        )
        .unwrap();
        let spark =
            Spark::connect(&remote, SparkSource::Parquet(path.clone()), "job.toml").unwrap();
        let columns = ["zip", "age", "score", "sick"];
        let local = in_memory(table, &columns, &["sick", "score"]);
        let remote = on_spark(&spark, &columns, &["sick", "score"]);
        let (l, r) = (cells(&local), cells(&remote));
        assert_eq!(r.1.iter().map(|&w| u64::from(w)).sum::<u64>(), rows as u64);
        assert_eq!(r.0, l.0, "seed {seed}: tuples");
        assert_eq!(r.1, l.1, "seed {seed}: weights");
        assert_eq!(r.2, l.2, "seed {seed}: rows");
        // where `*` first occurs: the same column found to hold one
        assert_eq!(
            r.3.iter().map(Option::is_some).collect::<Vec<_>>(),
            l.3.iter().map(Option::is_some).collect::<Vec<_>>(),
            "seed {seed}: stars"
        );
    }
}

#[test]
fn a_server_that_is_down_is_an_error_naming_engine_remote() {
    // a port nothing listens on: bound, then closed
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let url = format!("sc://127.0.0.1:{port}");
    let err = Spark::connect(
        &url,
        SparkSource::Parquet(adult().join("adult.parquet")),
        "job.toml",
    )
    .unwrap_err();
    match &err {
        cellsafe::Error::Config { key, message, .. } => {
            assert_eq!(key, "engine.remote");
            assert!(message.contains(&url), "{message}");
        }
        other => panic!("{other}"),
    }
    // a token in the url is refused before any connection, and not repeated
    let err = Spark::connect(
        "sc://127.0.0.1:1/;token=s3cret",
        SparkSource::Table("t".into()),
        "job.toml",
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("engine.remote"), "{err}");
    assert!(!err.contains("s3cret"), "{err}");
}
