//! SQLite as a source (the `sqlite` feature): a table and a query read cell for cell as an
//! independent oracle prints the values, the same job releasing what it releases from the
//! CSV of the same values, the database never modified, and bad sources named.

#![cfg(feature = "sqlite")]

use std::path::Path;

use cellsafe::data::table::Selection;
use cellsafe::job::config::Config;
use cellsafe::observer::Silent;
use cellsafe::Table;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rusqlite::Connection;

/// A seeded table `people` in a new database at `path`; returns the cells as strings.
fn people(path: &Path, rows: usize) -> Vec<Vec<String>> {
    let mut rng = ChaCha8Rng::seed_from_u64(rows as u64);
    let db = Connection::open(path).unwrap();
    db.execute_batch(
        "CREATE TABLE people (age INTEGER, zip TEXT, score REAL, diagnosis TEXT, note TEXT);",
    )
    .unwrap();
    let mut expected = Vec::new();
    for _ in 0..rows {
        let age: i64 = rng.gen_range(18..90);
        let zip = format!("130{}", rng.gen_range(0..8));
        let score = f64::from(rng.gen_range(0..100)) + 0.5;
        let diagnosis = ["flu", "cold", "ulcer", "asthma"][rng.gen_range(0..4)];
        let note: Option<&str> = rng.gen_bool(0.2).then_some("x");
        db.execute(
            "INSERT INTO people VALUES (?1, ?2, ?3, ?4, ?5)",
            rusqlite::params![age, zip, score, diagnosis, note],
        )
        .unwrap();
        expected.push(vec![
            age.to_string(),
            zip,
            format!("{score}"),
            diagnosis.to_string(),
            note.unwrap_or("").to_string(),
        ]);
    }
    expected
}

#[test]
fn a_table_and_a_query_read_as_the_oracle_prints_and_the_database_is_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.db");
    let expected = people(&path, 700);
    let before = std::fs::read(&path).unwrap();
    let table = Table::read_sqlite(&path, &Selection::Table("people".into()), &Silent).unwrap();
    assert_eq!(table.header(), ["age", "zip", "score", "diagnosis", "note"]);
    assert_eq!(table.rows(), expected.len());
    for (r, row) in expected.iter().enumerate() {
        for (c, want) in row.iter().enumerate() {
            assert_eq!(table.value(r, c), want, "row {r}, column {c}");
        }
    }
    let query = Selection::Query("SELECT zip, age FROM people WHERE age >= 50".into());
    let selected = Table::read_sqlite(&path, &query, &Silent).unwrap();
    let want: Vec<&Vec<String>> = expected
        .iter()
        .filter(|r| r[0].parse::<i64>().unwrap() >= 50)
        .collect();
    assert_eq!(selected.rows(), want.len());
    for (r, row) in want.iter().enumerate() {
        assert_eq!(selected.value(r, 0), row[1]);
        assert_eq!(selected.value(r, 1), row[0]);
    }
    assert_eq!(
        std::fs::read(&path).unwrap(),
        before,
        "the database was modified"
    );
}

#[test]
fn what_cannot_be_read_is_named_and_nothing_is_modified() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.db");
    people(&path, 20);
    Connection::open(&path)
        .unwrap()
        .execute_batch(
            "CREATE TABLE files (id INTEGER, data BLOB); INSERT INTO files VALUES (1, x'00ff');",
        )
        .unwrap();
    let before = std::fs::read(&path).unwrap();
    let cases = [
        (Selection::Table("nobody".into()), "no such table"),
        (
            Selection::Table("files".into()),
            "column `data` holds a BLOB",
        ),
        (
            Selection::Query("DELETE FROM people".into()),
            "would modify the database",
        ),
        (Selection::Query("SELEKT 1".into()), "cannot read the query"),
    ];
    for (selection, message) in cases {
        let err = Table::read_sqlite(&path, &selection, &Silent)
            .unwrap_err()
            .to_string();
        assert!(err.starts_with(&path.display().to_string()), "{err}");
        assert!(err.contains(message), "{selection:?}: {err}");
    }
    assert_eq!(std::fs::read(&path).unwrap(), before);
    assert_eq!(
        Table::read_sqlite(&path, &Selection::Table("people".into()), &Silent)
            .unwrap()
            .rows(),
        20
    );
    // not a database at all
    let text = dir.path().join("text.db");
    std::fs::write(&text, "age,zip\n1,2\n").unwrap();
    let err = Table::read_sqlite(&text, &Selection::Table("people".into()), &Silent)
        .unwrap_err()
        .to_string();
    assert!(err.starts_with(&text.display().to_string()), "{err}");
}

fn config(dir: &Path, input: &str) -> Result<(Table, f64), String> {
    let text = format!(
        "suppression_limit = 0.02\n[input]\n{input}\n[attributes.age]\nrole = \"quasi-identifying\"\n\
         hierarchy = {{ kind = \"intervals\", widths = [5, 10, 20] }}\n[[privacy]]\nmodel = \"k-anonymity\"\nk = 3\n"
    );
    let path = dir.join("job.toml");
    std::fs::write(&path, &text).unwrap();
    let config = Config::from_file(&path).map_err(|e| e.to_string())?;
    config.read(&Silent).map_err(|e| e.to_string())
}

#[test]
fn the_config_names_a_database_source_or_says_what_is_wrong() {
    let dir = tempfile::tempdir().unwrap();
    people(&dir.path().join("c.db"), 50);
    let (table, _) = config(dir.path(), "url = \"sqlite://c.db\"\ntable = \"people\"").unwrap();
    assert_eq!(table.rows(), 50);
    let absolute = format!(
        "url = \"sqlite://{}\"\nquery = \"SELECT age FROM people\"",
        dir.path().join("c.db").display()
    );
    assert_eq!(config(dir.path(), &absolute).unwrap().0.header(), ["age"]);
    for (input, key, message) in [
        ("", "input.path", "missing"),
        (
            "path = \"a.csv\"\nurl = \"sqlite://c.db\"",
            "input.url",
            "not both",
        ),
        ("url = \"sqlite://c.db\"", "input.table", "exactly one of"),
        (
            "url = \"sqlite://c.db\"\ntable = \"people\"\nquery = \"SELECT 1\"",
            "input.table",
            "exactly one of",
        ),
        (
            "path = \"a.csv\"\ntable = \"people\"",
            "input.table",
            "only with a database",
        ),
        (
            "url = \"mysql://h/db\"\ntable = \"people\"",
            "input.url",
            "not a database url",
        ),
    ] {
        let err = config(dir.path(), input).unwrap_err();
        assert!(
            err.contains(&format!("config key `{key}`")),
            "{input}: {err}"
        );
        assert!(err.contains(message), "{input}: {err}");
    }
}

// ---------------------------------------------------------------------------------------
// Output: `[output] url` and `table`
// ---------------------------------------------------------------------------------------

/// A seeded source table `visits` (age and zip quasi-identifying, counts and scores kept
/// as they are, some of them NULL) in a new database at `path`.
fn visits(path: &Path, rows: usize) {
    let mut rng = ChaCha8Rng::seed_from_u64(7 + rows as u64);
    let mut db = Connection::open(path).unwrap();
    db.execute_batch(
        "CREATE TABLE visits (age INTEGER, zip TEXT, count INTEGER, score REAL, diagnosis TEXT);",
    )
    .unwrap();
    let tx = db.transaction().unwrap();
    for _ in 0..rows {
        let age: i64 = rng.gen_range(18..90);
        let zip = format!("130{}", rng.gen_range(0..8));
        let count: Option<i64> = rng.gen_bool(0.9).then(|| rng.gen_range(-5..500));
        let score: Option<f64> = rng
            .gen_bool(0.9)
            .then(|| f64::from(rng.gen_range(0..1000)) / 8.0);
        let diagnosis = ["flu", "cold", "ulcer", "asthma"][rng.gen_range(0..4)];
        tx.execute(
            "INSERT INTO visits VALUES (?1, ?2, ?3, ?4, ?5)",
            rusqlite::params![age, zip, count, score, diagnosis],
        )
        .unwrap();
    }
    tx.commit().unwrap();
}

/// A job on `visits` in `dir/job.toml` with `[output]` holding `output`.
fn visits_job(dir: &Path, input: &str, output: &str, k: u32) -> Config {
    let text = format!(
        "suppression_limit = 0.05\n[input]\n{input}\n[attributes.age]\nrole = \"quasi-identifying\"\n\
         hierarchy = {{ kind = \"intervals\", widths = [5, 10, 20] }}\n[attributes.zip]\n\
         role = \"quasi-identifying\"\nhierarchy = {{ kind = \"mask\" }}\n[attributes.diagnosis]\n\
         role = \"sensitive\"\n[[privacy]]\nmodel = \"k-anonymity\"\nk = {k}\n[output]\nseed = 77\n{output}\n"
    );
    let path = dir.join("job.toml");
    std::fs::write(&path, text).unwrap();
    Config::from_file(&path).unwrap()
}

/// Every table's name in the database at `path` (an independent reader).
fn tables(path: &Path) -> Vec<String> {
    let c = Connection::open_with_flags(path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
    let mut s = c
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        .unwrap();
    let names = s
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<rusqlite::Result<Vec<String>>>()
        .unwrap();
    names
}

/// Table `table` of the database at `path` as its header, declared types and cells as a CSV
/// export prints them (NULL as None), in row order.
#[allow(clippy::type_complexity)]
fn dump(path: &Path, table: &str) -> (Vec<String>, Vec<String>, Vec<Vec<Option<String>>>) {
    use rusqlite::types::ValueRef;
    let c = Connection::open_with_flags(path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
    let mut info = c
        .prepare(&format!("PRAGMA table_info(\"{table}\")"))
        .unwrap();
    let (names, types): (Vec<String>, Vec<String>) = info
        .query_map([], |r| Ok((r.get(1)?, r.get(2)?)))
        .unwrap()
        .map(Result::unwrap)
        .unzip();
    let mut select = c
        .prepare(&format!("SELECT * FROM \"{table}\" ORDER BY rowid"))
        .unwrap();
    let n = names.len();
    let rows = select
        .query_map([], |row| {
            Ok((0..n)
                .map(|i| match row.get_ref(i).unwrap() {
                    ValueRef::Null => None,
                    ValueRef::Integer(v) => Some(v.to_string()),
                    ValueRef::Real(v) => Some(format!("{v}")),
                    ValueRef::Text(t) => Some(String::from_utf8(t.to_vec()).unwrap()),
                    ValueRef::Blob(_) => panic!("a blob"),
                })
                .collect())
        })
        .unwrap()
        .map(Result::unwrap)
        .collect();
    (names, types, rows)
}

fn outputs(report: Option<&Path>) -> cellsafe::job::Outputs {
    cellsafe::job::Outputs {
        table: None,
        report: report.map(Path::to_path_buf),
        mapping: None,
    }
}

#[test]
fn a_release_into_sqlite_holds_the_csv_release_cell_for_cell_typed_and_the_source_is_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let source = dir.path().join("center.db");
    visits(&source, 900);
    let before = std::fs::read(&source).unwrap();
    let input = "url = \"sqlite://center.db\"\ntable = \"visits\"";
    // the same job written as CSV
    let csv_path = dir.path().join("released.csv");
    let config = visits_job(dir.path(), input, "", 4);
    let mut to_csv = outputs(None);
    to_csv.table = Some(csv_path.clone());
    cellsafe::job::anonymize(&config, &to_csv, &Silent).unwrap();
    let config = visits_job(
        dir.path(),
        input,
        "url = \"sqlite://out/release.db\"\ntable = \"released\"",
        4,
    );
    std::fs::create_dir(dir.path().join("out")).unwrap();
    let report_path = dir.path().join("report.json");
    let report = cellsafe::job::anonymize(&config, &outputs(Some(&report_path)), &Silent).unwrap();
    assert!(report.found);
    let out = dir.path().join("out/release.db");
    assert_eq!(tables(&out), ["released"], "one table, no staging table");
    let (names, types, rows) = dump(&out, "released");
    let mut reader = csv::Reader::from_path(&csv_path).unwrap();
    let header: Vec<String> = reader
        .headers()
        .unwrap()
        .iter()
        .map(str::to_owned)
        .collect();
    assert_eq!(names, header);
    // generalized columns are text, kept ones their source's type
    assert_eq!(types, ["TEXT", "TEXT", "INTEGER", "REAL", "TEXT"]);
    let released: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    assert_eq!(rows.len(), released.len());
    let mut nulls = 0;
    let mut stars = 0;
    for (r, (row, record)) in rows.iter().zip(&released).enumerate() {
        for (c, (held, cell)) in row.iter().zip(record.iter()).enumerate() {
            match held {
                Some(v) => assert_eq!(v, cell, "row {r}, column {}", names[c]),
                None => {
                    assert_ne!(types[c], "TEXT", "a NULL in a text column");
                    assert!(cell.is_empty() || cell == "*", "row {r}: NULL for `{cell}`");
                    nulls += 1;
                }
            }
            stars += usize::from(cell == "*");
        }
    }
    assert!(
        nulls > 0 && stars > 0,
        "the fixture has NULLs ({nulls}) and stars ({stars})"
    );
    assert_eq!(
        std::fs::read(&source).unwrap(),
        before,
        "the source was modified"
    );
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report_path).unwrap()).unwrap();
    assert_eq!(json["output"], "sqlite://out/release.db table released");
    assert_eq!(json["audit"]["passed"], true);
    assert_eq!(json["output_schema"][2]["type"], "INTEGER");
}

#[test]
fn an_existing_table_is_refused_untouched_unless_replace_is_set() {
    let dir = tempfile::tempdir().unwrap();
    visits(&dir.path().join("center.db"), 300);
    let out = dir.path().join("out.db");
    Connection::open(&out)
        .unwrap()
        .execute_batch("CREATE TABLE released (old TEXT); INSERT INTO released VALUES ('kept');")
        .unwrap();
    let input = "url = \"sqlite://center.db\"\ntable = \"visits\"";
    let output = "url = \"sqlite://out.db\"\ntable = \"released\"";
    let config = visits_job(dir.path(), input, output, 3);
    let err = cellsafe::job::anonymize(&config, &outputs(None), &Silent)
        .unwrap_err()
        .to_string();
    assert!(err.contains("config key `output.table`"), "{err}");
    assert!(err.contains("replace = true"), "{err}");
    assert_eq!(tables(&out), ["released"]);
    assert_eq!(dump(&out, "released").2, [[Some("kept".to_owned())]]);
    let config = visits_job(dir.path(), input, &format!("{output}\nreplace = true"), 3);
    cellsafe::job::anonymize(&config, &outputs(None), &Silent).unwrap();
    assert_eq!(tables(&out), ["released"]);
    let (names, _, rows) = dump(&out, "released");
    assert_eq!(names[0], "age");
    assert_eq!(rows.len(), 300);
}

/// Cancels once the release is being written into the database.
struct CancelWhenWriting(std::sync::atomic::AtomicBool);

impl cellsafe::observer::Observer for CancelWhenWriting {
    fn start(&self, stage: &str, _total: Option<u64>) {
        if stage == cellsafe::observer::WRITING {
            self.0.store(true, std::sync::atomic::Ordering::SeqCst);
        }
    }
    fn cancelled(&self) -> bool {
        self.0.load(std::sync::atomic::Ordering::SeqCst)
    }
}

#[test]
fn a_cancelled_or_fruitless_run_leaves_no_table_and_no_staging_table() {
    let dir = tempfile::tempdir().unwrap();
    visits(&dir.path().join("center.db"), 5000);
    let input = "url = \"sqlite://center.db\"\ntable = \"visits\"";
    // into a database that exists (it keeps its other table) and one that does not (it is
    // not left behind)
    let existing = dir.path().join("existing.db");
    Connection::open(&existing)
        .unwrap()
        .execute_batch("CREATE TABLE other (a TEXT);")
        .unwrap();
    for name in ["existing.db", "new.db"] {
        let output = format!("url = \"sqlite://{name}\"\ntable = \"released\"");
        let config = visits_job(dir.path(), input, &output, 3);
        let observer = CancelWhenWriting(Default::default());
        let result = cellsafe::job::anonymize(&config, &outputs(None), &observer);
        assert!(
            matches!(result, Err(cellsafe::Error::Cancelled)),
            "{:?}",
            result.err()
        );
        // more than there are rows: nothing found, nothing written
        let config = visits_job(dir.path(), input, &output, 6000);
        let report = cellsafe::job::anonymize(&config, &outputs(None), &Silent).unwrap();
        assert!(!report.found);
    }
    assert_eq!(tables(&existing), ["other"]);
    assert!(!dir.path().join("new.db").exists());
}

#[test]
fn the_input_database_is_never_the_output_and_bad_output_keys_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let source = dir.path().join("center.db");
    visits(&source, 100);
    let before = std::fs::read(&source).unwrap();
    let input = "url = \"sqlite://center.db\"\ntable = \"visits\"";
    let cases = [
        // the same file, however spelled
        (
            "url = \"sqlite://center.db\"\ntable = \"released\"",
            "output.url",
            "is the input database",
        ),
        (
            "url = \"sqlite://./center.db\"\ntable = \"released\"",
            "output.url",
            "is the input database",
        ),
        ("url = \"sqlite://out.db\"", "output.table", "missing"),
        (
            "table = \"released\"",
            "output.table",
            "only with a database",
        ),
        ("replace = true", "output.replace", "only with a database"),
        (
            "url = \"sqlite://out.db\"\ntable = \"a b\"",
            "output.table",
            "not a plain table name",
        ),
        (
            "url = \"sqlite://out.db\"\ntable = \"x\\\"; DROP TABLE visits; --\"",
            "output.table",
            "not a plain table name",
        ),
        (
            "url = \"sqlite://out.db\"\ntable = \"cellsafe_staging_x\"",
            "output.table",
            "reserved",
        ),
        (
            "url = \"sqlite://out.db\"\ntable = \"sqlite_master\"",
            "output.table",
            "reserved",
        ),
        (
            "url = \"sqlite://out.db\"\ntable = \"t\"\npath = \"x.csv\"",
            "output.url",
            "not both",
        ),
        (
            "url = \"sqlite://out.db\"\ntable = \"t\"\nformat = \"csv\"",
            "output.format",
            "for files",
        ),
        (
            "url = \"mysql://h/db\"\ntable = \"t\"",
            "output.url",
            "not a database url",
        ),
        (
            "url = \"sqlite://missing/dir/out.db\"\ntable = \"t\"",
            "",
            "missing/dir",
        ),
    ];
    for (output, key, message) in cases {
        let config = visits_job(dir.path(), input, output, 3);
        let err = cellsafe::job::anonymize(&config, &outputs(None), &Silent)
            .unwrap_err()
            .to_string();
        assert!(
            key.is_empty() || err.contains(&format!("config key `{key}`")),
            "{output}: {err}"
        );
        assert!(err.contains(message), "{output}: {err}");
    }
    // the streaming engine and an lgb release write files only
    std::fs::write(
        dir.path().join("v.csv"),
        "age,zip,count,score,diagnosis\n30,1300,1,2.5,flu\n",
    )
    .unwrap();
    let config = visits_job(
        dir.path(),
        "path = \"v.csv\"",
        "url = \"sqlite://out.db\"\ntable = \"t\"\n[engine]\nkind = \"streaming\"",
        3,
    );
    let err = cellsafe::job::anonymize(&config, &outputs(None), &Silent)
        .unwrap_err()
        .to_string();
    assert!(err.contains("config key `output.url`"), "{err}");
    assert!(err.contains("streaming engine"), "{err}");
    let config = visits_job(
        dir.path(),
        input,
        "url = \"sqlite://out.db\"\ntable = \"t\"",
        3,
    );
    let err = cellsafe::job::lgb::anonymize(&config, &outputs(None), None, &Silent)
        .unwrap_err()
        .to_string();
    assert!(err.contains("config key `output.url`"), "{err}");
    assert!(!dir.path().join("out.db").exists());
    // a view under the name is not replaced, even with replace = true
    let out = dir.path().join("out.db");
    Connection::open(&out)
        .unwrap()
        .execute_batch("CREATE TABLE t (a TEXT); CREATE VIEW v AS SELECT a FROM t;")
        .unwrap();
    let config = visits_job(
        dir.path(),
        input,
        "url = \"sqlite://out.db\"\ntable = \"V\"\nreplace = true",
        3,
    );
    let err = cellsafe::job::anonymize(&config, &outputs(None), &Silent)
        .unwrap_err()
        .to_string();
    assert!(err.contains("names a view"), "{err}");
    // an output file beside the database
    let config = visits_job(
        dir.path(),
        input,
        "url = \"sqlite://out.db\"\ntable = \"r\"",
        3,
    );
    let mut both = outputs(None);
    both.table = Some(dir.path().join("r.csv"));
    let err = cellsafe::job::anonymize(&config, &both, &Silent)
        .unwrap_err()
        .to_string();
    assert!(err.contains("config key `output.url`"), "{err}");
    assert_eq!(tables(&out), ["t"]);
    assert_eq!(std::fs::read(&source).unwrap(), before);
    assert!(!dir.path().join("r.csv").exists());
}

// ---------------------------------------------------------------------------------------
// PostgreSQL in and out (the `postgres` feature; a server when CELLSAFE_TEST_POSTGRES names
// one, as `.ci/postgres` prints it: `host=DIR user=USER dbname=DB`)
// ---------------------------------------------------------------------------------------

#[cfg(feature = "postgres")]
mod postgres {
    use super::*;

    /// `psql` on database `db` of `server`: the output of `sql`, unaligned, `|`-separated,
    /// NULL printed as `<NULL>`.
    fn psql(server: &str, db: &str, sql: &str) -> String {
        let out = std::process::Command::new("psql")
            .arg(format!("{server} dbname={db}"))
            .args([
                "-v",
                "ON_ERROR_STOP=1",
                "-qAt",
                "-F",
                "|",
                "-P",
                "null=<NULL>",
                "-c",
                sql,
            ])
            .output()
            .unwrap();
        assert!(out.status.success(), "{sql}: {out:?}");
        String::from_utf8(out.stdout).unwrap()
    }

    /// A new database on the test server, and its url; None (recorded as a skip) without a
    /// server.
    fn database(what: &str) -> Option<(String, String, String)> {
        let server = match std::env::var("CELLSAFE_TEST_POSTGRES") {
            Ok(s) if !s.trim().is_empty() => s.trim().to_owned(),
            _ => {
                cellsafe_testkit::skipped(&format!(
                    "{what} on PostgreSQL: CELLSAFE_TEST_POSTGRES is not set"
                ));
                return None;
            }
        };
        static COUNTER: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let name = format!(
            "cellsafe_db_{}_{}",
            std::process::id(),
            COUNTER.fetch_add(1, std::sync::atomic::Ordering::SeqCst)
        );
        psql(&server, "postgres", &format!("CREATE DATABASE {name}"));
        let field = |key: &str| {
            server
                .split_whitespace()
                .find_map(|kv| kv.strip_prefix(&format!("{key}=")))
                .map(str::to_owned)
        };
        let host = field("host").unwrap_or_else(|| "localhost".into());
        let user = field("user").unwrap_or_else(|| "postgres".into());
        let host = host.replace('%', "%25").replace('/', "%2F");
        let port = field("port").map_or(String::new(), |p| format!(":{p}"));
        let url = format!("postgres://{user}@{host}{port}/{name}");
        Some((server, name, url))
    }

    /// The seeded `visits` of a SQLite database at `sqlite`, copied into PostgreSQL.
    fn copy_visits(sqlite: &Path, server: &str, db: &str) {
        let (_, _, rows) = dump(sqlite, "visits");
        let values: Vec<String> = rows
            .iter()
            .map(|row| {
                let cells: Vec<String> = row
                    .iter()
                    .map(|c| c.as_ref().map_or("NULL".into(), |v| format!("'{v}'")))
                    .collect();
                format!("({})", cells.join(", "))
            })
            .collect();
        psql(
            server,
            db,
            &format!(
                "CREATE TABLE visits (age bigint, zip text, count bigint, score double \
                 precision, diagnosis text); INSERT INTO visits VALUES {};",
                values.join(", ")
            ),
        );
    }

    #[test]
    fn a_postgres_job_releases_into_postgres_what_the_sqlite_job_releases_as_csv() {
        let Some((server, db, url)) = database("reading and writing a table") else {
            return;
        };
        let dir = tempfile::tempdir().unwrap();
        visits(&dir.path().join("center.db"), 600);
        copy_visits(&dir.path().join("center.db"), &server, &db);
        let source = psql(
            &server,
            &db,
            "SELECT md5(string_agg(v::text, ',')) FROM visits v",
        );
        // the same job from SQLite, as CSV
        let csv_path = dir.path().join("released.csv");
        let config = visits_job(
            dir.path(),
            "url = \"sqlite://center.db\"\ntable = \"visits\"",
            "",
            4,
        );
        let mut to_csv = outputs(None);
        to_csv.table = Some(csv_path.clone());
        cellsafe::job::anonymize(&config, &to_csv, &Silent).unwrap();
        let input = format!("url = \"{url}\"\ntable = \"visits\"");
        let output = format!("url = \"{url}\"\ntable = \"released\"");
        let config = visits_job(dir.path(), &input, &output, 4);
        let report_path = dir.path().join("report.json");
        cellsafe::job::anonymize(&config, &outputs(Some(&report_path)), &Silent).unwrap();
        let json: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&report_path).unwrap()).unwrap();
        assert_eq!(json["output"], format!("{url} table released"));
        let types = psql(
            &server,
            &db,
            "SELECT string_agg(format_type(atttypid, atttypmod), ',' ORDER BY attnum) FROM \
             pg_attribute WHERE attrelid = 'released'::regclass AND attnum > 0",
        );
        assert_eq!(types.trim(), "text,text,bigint,double precision,text");
        let held = psql(&server, &db, "SELECT * FROM released ORDER BY ctid");
        let mut reader = csv::Reader::from_path(&csv_path).unwrap();
        let released: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
        let held: Vec<&str> = held.lines().collect();
        assert_eq!(held.len(), released.len());
        for (r, (line, record)) in held.iter().zip(&released).enumerate() {
            for (value, cell) in line.split('|').zip(record.iter()) {
                if value == "<NULL>" {
                    assert!(cell.is_empty() || cell == "*", "row {r}: NULL for `{cell}`");
                } else {
                    assert_eq!(value, cell, "row {r}");
                }
            }
        }
        let tables = psql(
            &server,
            &db,
            "SELECT string_agg(tablename, ',' ORDER BY tablename) FROM pg_tables WHERE \
             schemaname = 'public'",
        );
        assert_eq!(tables.trim(), "released,visits", "no staging table is left");
        // an existing table is refused, untouched, unless replace = true
        psql(
            &server,
            &db,
            "UPDATE released SET age = 'marked' WHERE ctid = '(0,1)'",
        );
        let err = cellsafe::job::anonymize(&config, &outputs(None), &Silent)
            .unwrap_err()
            .to_string();
        assert!(err.contains("config key `output.table`"), "{err}");
        assert_eq!(
            psql(
                &server,
                &db,
                "SELECT count(*) FROM released WHERE age = 'marked'"
            )
            .trim(),
            "1"
        );
        let config = visits_job(dir.path(), &input, &format!("{output}\nreplace = true"), 4);
        cellsafe::job::anonymize(&config, &outputs(None), &Silent).unwrap();
        assert_eq!(
            psql(
                &server,
                &db,
                "SELECT count(*) FROM released WHERE age = 'marked'"
            )
            .trim(),
            "0"
        );
        assert_eq!(
            psql(&server, &db, "SELECT count(*) FROM released").trim(),
            "600"
        );
        // the input table is never the output; the source was never written
        let config = visits_job(
            dir.path(),
            &input,
            &format!("url = \"{url}\"\ntable = \"visits\"\nreplace = true"),
            4,
        );
        let err = cellsafe::job::anonymize(&config, &outputs(None), &Silent)
            .unwrap_err()
            .to_string();
        assert!(err.contains("is the input table"), "{err}");
        assert_eq!(
            psql(
                &server,
                &db,
                "SELECT md5(string_agg(v::text, ',')) FROM visits v"
            ),
            source
        );
        // a cancelled run leaves no table and no staging table
        let config = visits_job(
            dir.path(),
            &input,
            &format!("url = \"{url}\"\ntable = \"other\""),
            4,
        );
        let observer = CancelWhenWriting(Default::default());
        let result = cellsafe::job::anonymize(&config, &outputs(None), &observer);
        assert!(
            matches!(result, Err(cellsafe::Error::Cancelled)),
            "{:?}",
            result.err()
        );
        let tables = psql(
            &server,
            &db,
            "SELECT string_agg(tablename, ',' ORDER BY tablename) FROM pg_tables WHERE \
             schemaname = 'public'",
        );
        assert_eq!(tables.trim(), "released,visits");
    }

    #[test]
    fn bad_postgres_sources_are_named_and_never_written() {
        let Some((server, db, url)) = database("bad sources") else {
            return;
        };
        let dir = tempfile::tempdir().unwrap();
        visits(&dir.path().join("center.db"), 50);
        copy_visits(&dir.path().join("center.db"), &server, &db);
        let before = psql(&server, &db, "SELECT count(*) FROM visits");
        for (input, message) in [
            (
                format!("url = \"{url}\"\ntable = \"nobody\""),
                "cannot read table `nobody`",
            ),
            (
                format!("url = \"{url}\"\nquery = \"DELETE FROM visits RETURNING *\""),
                "read-only",
            ),
            (
                format!("url = \"{url}\"\nquery = \"SELEKT 1\""),
                "cannot read the query",
            ),
        ] {
            let err = super::config(dir.path(), &input).unwrap_err();
            assert!(err.starts_with(&url), "{err}");
            assert!(err.contains(message), "{input}: {err}");
        }
        assert_eq!(psql(&server, &db, "SELECT count(*) FROM visits"), before);
        let (table, _) = super::config(
            dir.path(),
            &format!("url = \"{url}\"\nquery = \"SELECT age, zip FROM visits WHERE age >= 50\""),
        )
        .unwrap();
        assert_eq!(table.header(), ["age", "zip"]);
    }
}

/// Without a server: a password in the url is refused naming the key (and not printed),
/// an unreachable server is named by its url.
#[cfg(feature = "postgres")]
#[test]
fn a_password_in_a_postgres_url_is_refused_and_an_unreachable_server_named() {
    let dir = tempfile::tempdir().unwrap();
    for url in [
        "postgres://ann:hunter2@db.example:5432/center",
        "postgres://ann@db.example/center?password=hunter2",
    ] {
        let err = config(dir.path(), &format!("url = \"{url}\"\ntable = \"t\"")).unwrap_err();
        assert!(err.contains("config key `input.url`"), "{err}");
        assert!(err.contains("PGPASSWORD"), "{err}");
        assert!(!err.contains("hunter2"), "{err}");
        let job = visits_job(
            dir.path(),
            "path = \"x.csv\"",
            &format!("url = \"{url}\"\ntable = \"t\""),
            3,
        );
        let err = cellsafe::job::anonymize(&job, &outputs(None), &Silent)
            .unwrap_err()
            .to_string();
        assert!(err.contains("config key `output.url`"), "{err}");
        assert!(!err.contains("hunter2"), "{err}");
    }
    // nothing listens on port 1
    let url = "postgres://ann@127.0.0.1:1/center";
    let err = config(dir.path(), &format!("url = \"{url}\"\ntable = \"t\"")).unwrap_err();
    assert!(err.starts_with(url), "{err}");
    assert!(err.contains("cannot connect"), "{err}");
}
