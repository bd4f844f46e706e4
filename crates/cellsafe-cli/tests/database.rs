//! `cellsafe anonymize` reading a SQLite table (the `sqlite` feature): the release equals
//! the one the same job makes from a CSV export of that table, with one seed, and the
//! database is not modified.

#![cfg(feature = "sqlite")]

use assert_cmd::Command;
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
