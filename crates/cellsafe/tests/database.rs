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
        (
            "url = \"postgres://h/db\"\ntable = \"people\"",
            "input.url",
            "PostgreSQL input is not available yet",
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
