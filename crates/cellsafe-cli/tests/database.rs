//! `cellsafe anonymize` reading a SQLite table (the `sqlite` feature): the release equals
//! the one the same job makes from a CSV export of that table, with one seed, and the
//! database is not modified.

#![cfg(feature = "sqlite")]

use std::path::Path;

use assert_cmd::Command;
#[cfg(feature = "postgres")]
use predicates::prelude::PredicateBooleanExt;
use rusqlite::Connection;

#[test]
fn a_sqlite_job_releases_what_the_csv_job_releases() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("center.db");
    let conn = Connection::open(&db).unwrap();
    conn.execute_batch("CREATE TABLE patients (age INTEGER, zip TEXT, diagnosis TEXT);")
        .unwrap();
    let mut csv = String::from("age,zip,diagnosis\n");
    for i in 0..600u32 {
        let (age, zip, d) = (
            20 + (i * 7) % 61,
            format!("130{}", i % 9),
            ["flu", "cold", "ulcer"][(i % 3) as usize],
        );
        conn.execute(
            "INSERT INTO patients VALUES (?1, ?2, ?3)",
            rusqlite::params![age, zip, d],
        )
        .unwrap();
        csv += &format!("{age},{zip},{d}\n");
    }
    drop(conn);
    std::fs::write(dir.path().join("patients.csv"), csv).unwrap();
    let before = std::fs::read(&db).unwrap();
    let job = |input: &str| {
        format!(
            "suppression_limit = 0.02\n[input]\n{input}\n[attributes.age]\nrole = \"quasi-identifying\"\n\
             hierarchy = {{ kind = \"intervals\", widths = [5, 10, 20] }}\n[attributes.zip]\n\
             role = \"quasi-identifying\"\nhierarchy = {{ kind = \"mask\" }}\n[attributes.diagnosis]\n\
             role = \"sensitive\"\n[[privacy]]\nmodel = \"k-anonymity\"\nk = 4\n[output]\nseed = 77\n"
        )
    };
    std::fs::write(dir.path().join("csv.toml"), job("path = \"patients.csv\"")).unwrap();
    std::fs::write(
        dir.path().join("db.toml"),
        job("url = \"sqlite://center.db\"\ntable = \"patients\""),
    )
    .unwrap();
    let mut released = Vec::new();
    for name in ["csv", "db"] {
        let out = dir.path().join(format!("{name}.out.csv"));
        Command::cargo_bin("cellsafe")
            .unwrap()
            .arg("anonymize")
            .arg(dir.path().join(format!("{name}.toml")))
            .arg("--output")
            .arg(&out)
            .arg("--report")
            .arg(dir.path().join(format!("{name}.json")))
            .assert()
            .success();
        released.push(std::fs::read_to_string(&out).unwrap());
    }
    assert_eq!(released[0].lines().count(), 601);
    assert!(released[0] == released[1], "the two releases differ");
    assert_eq!(
        std::fs::read(&db).unwrap(),
        before,
        "the database was modified"
    );
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("db.json")).unwrap())
            .unwrap();
    assert_eq!(report["audit"]["passed"], true);
    // the default output lies next to the database
    Command::cargo_bin("cellsafe")
        .unwrap()
        .arg("anonymize")
        .arg(dir.path().join("db.toml"))
        .arg("--report")
        .arg(dir.path().join("default.json"))
        .assert()
        .success();
    assert!(dir.path().join("center.anonymized.csv").is_file());
}

// ---------------------------------------------------------------------------------------
// `[output] url` and `table`: the release written into a SQLite table
// ---------------------------------------------------------------------------------------

/// A job on `patients` (CSV `patients.csv` or the database `center.db`) with `[output]`
/// holding `output`.
fn patients_job(input: &str, output: &str) -> String {
    format!(
        "suppression_limit = 0.05\n[input]\n{input}\n[attributes.age]\nrole = \"quasi-identifying\"\n\
         hierarchy = {{ kind = \"intervals\", widths = [5, 10, 20] }}\n[attributes.zip]\n\
         role = \"quasi-identifying\"\nhierarchy = {{ kind = \"mask\" }}\n[attributes.diagnosis]\n\
         role = \"sensitive\"\n[[privacy]]\nmodel = \"k-anonymity\"\nk = 4\n[output]\nseed = 77\n{output}\n"
    )
}

/// `patients` with `rows` rows into the database `db` (age and count INTEGER, zip and
/// diagnosis TEXT, some counts NULL) and, the same values, into the CSV file `csv`.
fn patients(db: &Path, csv: &Path, rows: u32) {
    let mut conn = Connection::open(db).unwrap();
    conn.execute_batch(
        "CREATE TABLE patients (age INTEGER, zip TEXT, count INTEGER, diagnosis TEXT);",
    )
    .unwrap();
    let mut text = String::from("age,zip,count,diagnosis\n");
    let tx = conn.transaction().unwrap();
    for i in 0..rows {
        let (age, zip, d) = (
            20 + (i * 7) % 61,
            format!("130{}", i % 9),
            ["flu", "cold", "ulcer"][(i % 3) as usize],
        );
        let count = (i % 11 != 0).then_some(i % 97);
        tx.execute(
            "INSERT INTO patients VALUES (?1, ?2, ?3, ?4)",
            rusqlite::params![age, zip, count, d],
        )
        .unwrap();
        text += &format!(
            "{age},{zip},{},{d}\n",
            count.map_or(String::new(), |c| c.to_string())
        );
    }
    tx.commit().unwrap();
    std::fs::write(csv, text).unwrap();
}

/// Every table's name in the database at `path`.
fn tables(path: &Path) -> Vec<String> {
    let c = Connection::open(path).unwrap();
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

/// The cells of `table` in row order as a CSV export prints them (NULL as None).
fn cells(path: &Path, table: &str) -> Vec<Vec<Option<String>>> {
    use rusqlite::types::ValueRef;
    let c = Connection::open(path).unwrap();
    let mut select = c
        .prepare(&format!("SELECT * FROM \"{table}\" ORDER BY rowid"))
        .unwrap();
    let n = select.column_count();
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
    rows
}

fn anonymize(config: &Path) -> assert_cmd::assert::Assert {
    Command::cargo_bin("cellsafe")
        .unwrap()
        .arg("anonymize")
        .arg(config)
        .arg("--report")
        .arg(config.with_extension("json"))
        .assert()
}

#[test]
fn the_config_alone_writes_the_release_into_sqlite_as_the_csv_release_of_the_same_job() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    patients(&d.join("center.db"), &d.join("patients.csv"), 800);
    let source = std::fs::read(d.join("center.db")).unwrap();
    let input = "url = \"sqlite://center.db\"\ntable = \"patients\"";
    std::fs::write(d.join("csv.toml"), patients_job(input, "")).unwrap();
    Command::cargo_bin("cellsafe")
        .unwrap()
        .arg("anonymize")
        .arg(d.join("csv.toml"))
        .arg("--output")
        .arg(d.join("released.csv"))
        .arg("--report")
        .arg(d.join("csv.json"))
        .assert()
        .success();
    let out = "url = \"sqlite://release.db\"\ntable = \"released\"";
    std::fs::write(d.join("db.toml"), patients_job(input, out)).unwrap();
    anonymize(&d.join("db.toml"))
        .success()
        .stderr(predicates::str::contains(
            "to sqlite://release.db table released",
        ));
    assert_eq!(tables(&d.join("release.db")), ["released"]);
    let held = cells(&d.join("release.db"), "released");
    let mut reader = csv::Reader::from_path(d.join("released.csv")).unwrap();
    let released: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    assert_eq!(held.len(), released.len());
    for (r, (row, record)) in held.iter().zip(&released).enumerate() {
        assert_eq!(row.len(), record.len());
        for (held, cell) in row.iter().zip(record.iter()) {
            match held {
                Some(v) => assert_eq!(v, cell, "row {r}"),
                None => assert!(cell.is_empty() || cell == "*", "row {r}: NULL for {cell}"),
            }
        }
    }
    assert_eq!(std::fs::read(d.join("center.db")).unwrap(), source);
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("db.json")).unwrap()).unwrap();
    assert_eq!(report["output"], "sqlite://release.db table released");
    // the default output file is not written beside it
    assert!(!d.join("center.anonymized.csv").exists());
}

#[test]
fn bad_database_outputs_exit_1_naming_the_key_and_write_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    patients(&d.join("center.db"), &d.join("patients.csv"), 200);
    let source = std::fs::read(d.join("center.db")).unwrap();
    Connection::open(d.join("out.db"))
        .unwrap()
        .execute_batch("CREATE TABLE released (old TEXT); INSERT INTO released VALUES ('kept');")
        .unwrap();
    let input = "url = \"sqlite://center.db\"\ntable = \"patients\"";
    for (output, key) in [
        (
            "url = \"sqlite://out.db\"\ntable = \"released\"",
            "output.table",
        ),
        (
            "url = \"sqlite://center.db\"\ntable = \"released\"",
            "output.url",
        ),
        ("url = \"sqlite://out.db\"\ntable = \"1st\"", "output.table"),
        (
            "url = \"postgres://u:pw@localhost:1/db\"\ntable = \"t\"",
            "output.url",
        ),
    ] {
        std::fs::write(d.join("job.toml"), patients_job(input, output)).unwrap();
        anonymize(&d.join("job.toml"))
            .code(1)
            .stderr(predicates::str::contains(format!("config key `{key}`")));
    }
    // --output beside [output] url
    std::fs::write(
        d.join("job.toml"),
        patients_job(input, "url = \"sqlite://new.db\"\ntable = \"t\""),
    )
    .unwrap();
    Command::cargo_bin("cellsafe")
        .unwrap()
        .arg("anonymize")
        .arg(d.join("job.toml"))
        .arg("--output")
        .arg(d.join("x.csv"))
        .assert()
        .code(1)
        .stderr(predicates::str::contains("config key `output.url`"));
    assert_eq!(tables(&d.join("out.db")), ["released"]);
    assert_eq!(
        cells(&d.join("out.db"), "released"),
        [[Some("kept".to_owned())]]
    );
    assert_eq!(std::fs::read(d.join("center.db")).unwrap(), source);
    for name in ["new.db", "x.csv", "job.json"] {
        assert!(!d.join(name).exists(), "{name}");
    }
}

/// `kill -9` of `cellsafe anonymize` while it writes into the database, at two moments
/// found by watching the database (never by the clock): while the staging table is being
/// filled (its rollback journal exists) and once it is committed and being read back. The
/// database holds either no table `released` or the whole one, never a part; the next run
/// drops the staging table left behind and writes the table.
#[cfg(unix)]
#[test]
fn a_run_killed_while_it_writes_leaves_no_table_or_the_whole_one() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let rows = 200_000;
    patients(&d.join("center.db"), &d.join("patients.csv"), rows);
    let input = "path = \"patients.csv\"";
    for moment in ["filling", "checking"] {
        let db = d.join(format!("{moment}.db"));
        let config = d.join(format!("{moment}.toml"));
        let out = format!("url = \"sqlite://{moment}.db\"\ntable = \"released\"\nreplace = true");
        std::fs::write(&config, patients_job(input, &out)).unwrap();
        let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("cellsafe"))
            .arg("anonymize")
            .arg(&config)
            .arg("--report")
            .arg(config.with_extension("json"))
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let journal = d.join(format!("{moment}.db-journal"));
        let reached = |db: &Path| match moment {
            "filling" => journal.exists(),
            _ => staging(db),
        };
        loop {
            if reached(&db) {
                child.kill().unwrap();
                break;
            }
            if let Some(status) = child.try_wait().unwrap() {
                panic!("the run ended ({status}) before the {moment} moment: make it bigger");
            }
            std::thread::yield_now();
        }
        child.wait().unwrap();
        let names = tables(&db);
        assert!(
            !names.contains(&"released".to_owned())
                || cells(&db, "released").len() == rows as usize,
            "{moment}: a part of the table under its name"
        );
        assert!(
            names
                .iter()
                .all(|n| n == "released" || n.starts_with("cellsafe_staging_")),
            "{moment}: {names:?}"
        );
        anonymize(&config).success();
        assert_eq!(tables(&db), ["released"], "{moment}");
        assert_eq!(cells(&db, "released").len(), rows as usize);
    }
}

/// Whether the database at `path` holds a committed staging table (false while it cannot
/// be read).
fn staging(path: &Path) -> bool {
    let Ok(c) = Connection::open_with_flags(path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
    else {
        return false;
    };
    c.query_row(
        "SELECT count(*) FROM sqlite_master WHERE name LIKE 'cellsafe%'",
        [],
        |r| r.get::<_, i64>(0),
    )
    .is_ok_and(|n| n > 0)
}

/// PostgreSQL through the CLI (the `postgres` feature, a server named by
/// `CELLSAFE_TEST_POSTGRES`): a release from a PostgreSQL table into another PostgreSQL
/// table; a missing table and an unreachable server exit 1 naming the url and write
/// nothing.
#[cfg(feature = "postgres")]
#[test]
fn postgres_in_and_out_through_the_cli() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // without a server: an unreachable one is named, exit 1, nothing written
    let unreachable = "postgres://ann@127.0.0.1:1/center";
    std::fs::write(
        d.join("job.toml"),
        patients_job(
            &format!("url = \"{unreachable}\"\ntable = \"patients\""),
            "",
        ),
    )
    .unwrap();
    anonymize(&d.join("job.toml")).code(1).stderr(
        predicates::str::contains(unreachable).and(predicates::str::contains("cannot connect")),
    );
    assert!(!d.join("job.json").exists());
    // the password of the environment is never printed; a PGPASSFILE that cannot be read
    // is named
    let out = Command::cargo_bin("cellsafe")
        .unwrap()
        .arg("anonymize")
        .arg(d.join("job.toml"))
        .env("PGPASSWORD", "hunter2")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(!String::from_utf8_lossy(&out.stderr).contains("hunter2"));
    let missing = d.join("no-pgpass");
    Command::cargo_bin("cellsafe")
        .unwrap()
        .arg("anonymize")
        .arg(d.join("job.toml"))
        .env_remove("PGPASSWORD")
        .env("PGPASSFILE", &missing)
        .assert()
        .code(1)
        .stderr(predicates::str::contains(missing.display().to_string()));
    let server = match std::env::var("CELLSAFE_TEST_POSTGRES") {
        Ok(s) if !s.trim().is_empty() => s.trim().to_owned(),
        _ => {
            cellsafe_testkit::skipped(
                "cellsafe anonymize on PostgreSQL: CELLSAFE_TEST_POSTGRES is not set",
            );
            return;
        }
    };
    let psql = |db: &str, sql: &str| {
        let out = std::process::Command::new("psql")
            .arg(format!("{server} dbname={db}"))
            .args(["-v", "ON_ERROR_STOP=1", "-qAt", "-c", sql])
            .output()
            .unwrap();
        assert!(out.status.success(), "{sql}: {out:?}");
        String::from_utf8(out.stdout).unwrap()
    };
    let name = format!("cellsafe_cli_db_{}", std::process::id());
    psql("postgres", &format!("CREATE DATABASE {name}"));
    let field = |key: &str| {
        server
            .split_whitespace()
            .find_map(|kv| kv.strip_prefix(&format!("{key}=")))
            .map(str::to_owned)
    };
    let host = field("host")
        .unwrap_or_else(|| "localhost".into())
        .replace('/', "%2F");
    let user = field("user").unwrap_or_else(|| "postgres".into());
    let url = format!("postgres://{user}@{host}/{name}");
    psql(
        &name,
        "CREATE TABLE patients (age bigint, zip text, count bigint, diagnosis text); \
         INSERT INTO patients SELECT 20 + (i * 7) % 61, '130' || (i % 9), \
         CASE WHEN i % 11 = 0 THEN NULL ELSE i % 97 END, (ARRAY['flu','cold','ulcer'])[i % 3 + 1] \
         FROM generate_series(0, 799) i ORDER BY i",
    );
    let source = psql(
        &name,
        "SELECT md5(string_agg(p::text, ',')) FROM patients p",
    );
    // a missing table: exit 1 naming the url and the table
    std::fs::write(
        d.join("job.toml"),
        patients_job(&format!("url = \"{url}\"\ntable = \"nobody\""), ""),
    )
    .unwrap();
    anonymize(&d.join("job.toml"))
        .code(1)
        .stderr(predicates::str::contains(url.as_str()).and(predicates::str::contains("nobody")));
    std::fs::write(
        d.join("job.toml"),
        patients_job(
            &format!("url = \"{url}\"\ntable = \"patients\""),
            &format!("url = \"{url}\"\ntable = \"released\""),
        ),
    )
    .unwrap();
    anonymize(&d.join("job.toml")).success();
    assert_eq!(psql(&name, "SELECT count(*) FROM released").trim(), "800");
    assert_eq!(
        psql(
            &name,
            "SELECT md5(string_agg(p::text, ',')) FROM patients p"
        ),
        source
    );
    // the same job again: the table exists, exit 1 naming output.table
    anonymize(&d.join("job.toml"))
        .code(1)
        .stderr(predicates::str::contains("config key `output.table`"));
    assert_eq!(
        psql(
            &name,
            "SELECT count(*) FROM pg_tables WHERE tablename LIKE 'cellsafe%'"
        )
        .trim(),
        "0"
    );
    // kill -9 once the staging table is committed and being read back: no table `big` or
    // the whole one; the next run drops the staging table (its writer's session is gone)
    let rows = 200_000;
    psql(
        &name,
        &format!(
            "CREATE TABLE many AS SELECT 20 + (i * 7) % 61 AS age, '130' || (i % 9) AS zip, \
             i % 97 AS count, (ARRAY['flu','cold','ulcer'])[i % 3 + 1] AS diagnosis FROM \
             generate_series(1, {rows}) i ORDER BY i"
        ),
    );
    std::fs::write(
        d.join("big.toml"),
        patients_job(
            &format!("url = \"{url}\"\ntable = \"many\""),
            &format!("url = \"{url}\"\ntable = \"big\"\nreplace = true"),
        ),
    )
    .unwrap();
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("cellsafe"))
        .arg("anonymize")
        .arg(d.join("big.toml"))
        .arg("--report")
        .arg(d.join("big.json"))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let staging = "SELECT count(*) FROM pg_tables WHERE tablename LIKE 'cellsafe%'";
    loop {
        if psql(&name, staging).trim() != "0" {
            child.kill().unwrap();
            break;
        }
        if let Some(status) = child.try_wait().unwrap() {
            panic!("the run ended ({status}) before its staging table appeared");
        }
    }
    child.wait().unwrap();
    if psql(&name, "SELECT to_regclass('big') IS NOT NULL").trim() == "t" {
        assert_eq!(
            psql(&name, "SELECT count(*) FROM big").trim(),
            rows.to_string(),
            "a part of the table under its name"
        );
    }
    // the killed run's session ends (its advisory lock with it) before the next run
    while psql(
        &name,
        "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND pid <> \
         pg_backend_pid()",
    )
    .trim()
        != "0"
    {
        std::thread::yield_now();
    }
    anonymize(&d.join("big.toml")).success();
    assert_eq!(
        psql(&name, "SELECT count(*) FROM big").trim(),
        rows.to_string()
    );
    assert_eq!(psql(&name, staging).trim(), "0");
}

/// README's database example runs as given (on a copy of the examples): the table it
/// writes holds the rows adult.toml releases as CSV (each run draws its own seed, so the
/// rows are compared as a multiset), read by rusqlite.
#[test]
fn the_readme_database_example_writes_the_adult_release_into_sqlite() {
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../README.md"))
            .unwrap();
    assert!(readme.contains("anonymize examples/adult/adult-sqlite.toml"));
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/adult");
    for entry in std::fs::read_dir(&examples).unwrap() {
        let entry = entry.unwrap();
        if entry.path().extension().is_some_and(|e| e != "db") {
            std::fs::copy(entry.path(), d.join(entry.file_name())).unwrap();
        }
    }
    let run = |args: &[&str]| {
        let output = Command::cargo_bin("cellsafe")
            .unwrap()
            .current_dir(d)
            .args(args)
            .arg("--quiet")
            .output()
            .unwrap();
        assert!(output.status.success(), "{output:?}");
    };
    run(&["anonymize", "adult-sqlite.toml", "--report", "sqlite.json"]);
    run(&[
        "anonymize",
        "adult.toml",
        "--output",
        "adult.out.csv",
        "--report",
        "csv.json",
    ]);
    let db = rusqlite::Connection::open(d.join("adult-released.db")).unwrap();
    // adult.toml writes `;`-separated CSV, so the cells are joined the same way
    let mut statement = db.prepare("SELECT * FROM adult_released").unwrap();
    let width = statement.column_count();
    let mut from_db: Vec<String> = statement
        .query_map([], |row| {
            (0..width)
                .map(|i| row.get::<_, String>(i))
                .collect::<rusqlite::Result<Vec<String>>>()
        })
        .unwrap()
        .map(|r| r.unwrap().join(";"))
        .collect();
    let mut from_csv: Vec<String> = std::fs::read_to_string(d.join("adult.out.csv"))
        .unwrap()
        .lines()
        .skip(1)
        .map(String::from)
        .collect();
    from_db.sort();
    from_csv.sort();
    assert_eq!(from_db.len(), 30162);
    assert!(from_db == from_csv, "the same rows");
}
