//! `job::run`: a job on a table the caller hands over in memory (`Config::given_table`,
//! what the Python package does) releases what the same job reading the file writes, keeps
//! the release in memory (nothing is written), and refuses a config that also names a
//! source, or asks for the streaming engine, naming the key.

use crate::common;

use std::path::{Path, PathBuf};

use cellsafe::job::config::Config;
use cellsafe::job::{self, Outputs};
use cellsafe::observer::Silent;
use cellsafe::{CsvFormat, Table};

fn adult() -> PathBuf {
    common::examples().join("adult").canonicalize().unwrap()
}

/// The Adult job (eight quasi-identifiers, k = 5, a seed) with `input` as its `[input]`.
fn adult_job(input: &str) -> String {
    let a = adult();
    let mut text =
        format!("suppression_limit = 0.01\n\n[input]\n{input}\nhierarchy_delimiter = \";\"\n\n");
    for qi in common::ADULT_QIS {
        text.push_str(&format!(
            "[attributes.{qi}]\nrole = \"quasi-identifying\"\nhierarchy = '{}'\n\n",
            a.join(format!("adult_hierarchy_{qi}.csv")).display()
        ));
    }
    text.push_str(
        "[attributes.occupation]\nrole = \"sensitive\"\n\n[[privacy]]\nmodel = \
         \"k-anonymity\"\nk = 5\n\n[output]\nseed = 11\n",
    );
    text
}

fn semicolons() -> CsvFormat {
    CsvFormat {
        delimiter: b';',
        ..CsvFormat::default()
    }
}

#[test]
fn a_given_table_releases_what_the_file_job_writes() {
    let dir = tempfile::tempdir().unwrap();
    let csv = adult().join("adult.csv");
    let from_file = Config::parse(
        &adult_job(&format!("path = '{}'\ndelimiter = \";\"", csv.display())),
        &dir.path().join("file.toml"),
    )
    .unwrap();
    let out = dir.path().join("released.csv");
    let written = job::anonymize(
        &from_file,
        &Outputs {
            table: Some(out.clone()),
            ..Outputs::default()
        },
        &Silent,
    )
    .unwrap();
    let given = Config::parse(&adult_job("delimiter = \";\""), Path::new("given"))
        .unwrap()
        .given_table("the test's table");
    let table = Table::read(
        &csv,
        cellsafe::data::table::Format::Csv,
        &semicolons(),
        &Silent,
    )
    .unwrap();
    let before: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    let done = job::run(&given, Some(table.into()), &Silent).unwrap();
    let release = done.release.as_ref().expect("a release");
    assert_eq!(release.csv(), std::fs::read(&out).unwrap().as_slice());
    assert_eq!(done.report.levels, written.levels);
    assert_eq!(done.report.suppressed_rows, written.suppressed_rows);
    assert!(done.report.audit.as_ref().is_some_and(|a| a.passed));
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        before.len(),
        "run wrote nothing"
    );
    // the report names the table as given
    let text = serde_json::to_string(&done.report).unwrap();
    assert!(text.contains("\"input\":\"the test's table\""), "{text}");
}

#[test]
fn a_given_table_with_a_source_or_on_the_streaming_engine_is_refused_naming_the_key() {
    let table = || Table::from_rows(vec!["sex".into()], &[vec!["F".to_owned()]]).unwrap();
    let cases = [
        ("path = 'x.csv'", "", "input.path"),
        ("url = 'sqlite:///x.db'\ntable = 't'", "", "input.url"),
        ("", "\n[engine]\nkind = \"streaming\"\n", "engine.kind"),
        ("table = 't'", "", "input.table"),
        ("query = 'select 1'", "", "input.query"),
        ("format = \"parquet\"", "", "input.format"),
        // checked before the table is read, not after the search
        ("delimiter = \";;\"", "", "input.delimiter"),
        ("quote = \"\"", "", "input.quote"),
    ];
    for (input, rest, key) in cases {
        let text = format!("{}{rest}", adult_job(input));
        let config = Config::parse(&text, Path::new("given"))
            .unwrap()
            .given_table("a frame");
        match job::run(&config, Some(table().into()), &Silent) {
            Err(cellsafe::Error::Config { key: named, .. }) => assert_eq!(named, key),
            Err(e) => panic!("{key}: {e}"),
            Ok(_) => panic!("{key}: ran"),
        }
    }
    // a table handed over to a config that names its own source, and none to one that
    // says it is given
    let plain = Config::parse(&adult_job("path = 'x.csv'"), Path::new("plain")).unwrap();
    assert!(job::run(&plain, Some(table().into()), &Silent).is_err());
    let given = Config::parse(&adult_job(""), Path::new("g"))
        .unwrap()
        .given_table("t");
    assert!(job::run(&given, None, &Silent).is_err());
}

/// A regression test (found in review): `run` wrote a database output and returned a
/// streaming job's report without its release; it refuses both, naming the key.
#[test]
fn run_refuses_a_database_output_and_the_streaming_engine() {
    let dir = tempfile::tempdir().unwrap();
    let csv = adult().join("adult.csv");
    let input = format!("path = '{}'\ndelimiter = \";\"", csv.display());
    let db = dir.path().join("out.db");
    for (rest, key) in [
        (
            format!(
                "\n[output]\nurl = 'sqlite://{}'\ntable = 'rel'\n",
                db.display()
            ),
            "output.url",
        ),
        (
            "\n[engine]\nkind = \"streaming\"\n".to_owned(),
            "engine.kind",
        ),
    ] {
        let text = adult_job(&input).replace("\n[output]\nseed = 11\n", "") + &rest;
        let config = Config::parse(&text, &dir.path().join("job.toml")).unwrap();
        match job::run(&config, None, &Silent) {
            Err(cellsafe::Error::Config { key: named, .. }) => assert_eq!(named, key),
            Err(e) => panic!("{key}: {e}"),
            Ok(_) => panic!("{key}: ran"),
        }
    }
    assert!(!db.exists(), "nothing was written");
}
