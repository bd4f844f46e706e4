//! What the terminal says after `anonymize`: one summary line in the same words whatever
//! the search (what was released, where, how much was suppressed, how it was generalized),
//! and the report's warnings, which used to stay inside the JSON.

use std::path::Path;

use assert_cmd::Command;

const DATA: &str = "name,zip,age,disease\nann,24126,34,flu\nbob,24129,35,cold\ncid,24133,36,flu\n\
dan,10427,51,cancer\neve,10431,52,flu\nfay,10466,53,cold\ngus,10467,54,flu\nhal,99999,90,flu\n";

/// A job over DATA with `extra` appended; runs it and returns (stderr, output path).
fn run(dir: &Path, extra: &str) -> (String, String) {
    std::fs::write(dir.join("data.csv"), DATA).unwrap();
    let config = format!(
        "suppression_limit = 0.3\n[input]\npath = \"data.csv\"\n[attributes.name]\n\
         role = \"identifying\"\n[attributes.zip]\nrole = \"quasi-identifying\"\n\
         hierarchy = {{ kind = \"mask\" }}\n[attributes.age]\nrole = \"quasi-identifying\"\n\
         hierarchy = {{ kind = \"intervals\", widths = [10, 20] }}\n[attributes.disease]\n\
         role = \"sensitive\"\n[[privacy]]\nmodel = \"k-anonymity\"\nk = 3\n{extra}"
    );
    std::fs::write(dir.join("job.toml"), config).unwrap();
    let out = dir.join("out.csv");
    let assert = Command::cargo_bin("cellsafe")
        .unwrap()
        .arg("anonymize")
        .arg(dir.join("job.toml"))
        .arg("--output")
        .arg(&out)
        .arg("--report")
        .arg(dir.join("report.json"))
        .assert()
        .success();
    let stderr = String::from_utf8_lossy(&assert.get_output().stderr).into_owned();
    (stderr, out.display().to_string())
}

/// The rows the written file holds, and how many of them are starred.
fn recount(out: &str) -> (usize, usize) {
    let text = std::fs::read_to_string(out).unwrap();
    let rows: Vec<&str> = text.lines().skip(1).collect();
    let starred = rows
        .iter()
        .filter(|r| r.split(',').all(|c| c == "*"))
        .count();
    (rows.len(), starred)
}

#[test]
fn every_search_ends_with_the_same_summary_and_the_warnings() {
    for (search, extra, generalized) in [
        ("optimal", "[output]\nseed = 7\n", "levels zip "),
        (
            "mondrian",
            "[search]\nalgorithm = \"mondrian\"\n",
            "local recoding into ",
        ),
        (
            "dropped",
            "[output]\nsuppression = \"drop\"\n",
            "levels zip ",
        ),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let (stderr, out) = run(dir.path(), extra);
        let line = stderr
            .lines()
            .find(|l| l.starts_with("released "))
            .unwrap_or_else(|| panic!("{search}: no summary in {stderr}"));
        assert!(line.contains(&format!(" to {out}: ")), "{search}: {line}");
        assert!(line.contains(generalized), "{search}: {line}");
        // the counts are the file's
        let (rows, starred) = recount(&out);
        let report: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir.path().join("report.json")).unwrap())
                .unwrap();
        let suppressed = report["suppressed_rows"].as_u64().unwrap() as usize;
        if search == "dropped" {
            assert_eq!(starred, 0);
            assert!(suppressed > 0, "{search}: nothing was suppressed");
            assert!(
                line.starts_with(&format!("released {rows} of 8 rows")),
                "{search}: {line}"
            );
            assert!(
                line.contains(&format!("{suppressed} rows suppressed (")),
                "{line}"
            );
            assert!(line.contains("left out"), "{line}");
        } else {
            assert_eq!(rows, 8);
            assert!(line.starts_with("released 8 rows"), "{search}: {line}");
            match starred {
                0 => assert!(line.contains("no row suppressed"), "{search}: {line}"),
                n => assert!(
                    line.contains(&format!("{n} rows suppressed ("))
                        && line.contains("written as *"),
                    "{search}: {line}"
                ),
            }
        }
        // every warning of the report reaches the terminal
        let warnings = report["warnings"].as_array().cloned().unwrap_or_default();
        for w in &warnings {
            let w = w.as_str().unwrap();
            assert!(
                stderr.contains(&format!("warning: {w}")),
                "{search}: {w} not in {stderr}"
            );
        }
        if search == "optimal" {
            assert!(!warnings.is_empty(), "a configured seed is warned about");
        }
        assert!(stderr.contains(&format!(
            "report: {}",
            dir.path().join("report.json").display()
        )));
    }
}

/// Runs `cellsafe ARGS` in `dir` on `config` over `data`: (exit code, stderr).
fn fail(dir: &Path, data: &str, config: &str, args: &[&str]) -> (Option<i32>, String) {
    std::fs::write(dir.join("data.csv"), data).unwrap();
    std::fs::write(dir.join("job.toml"), config).unwrap();
    let out = Command::cargo_bin("cellsafe")
        .unwrap()
        .args(args)
        .arg(dir.join("job.toml"))
        .arg("--output")
        .arg(dir.join("out.csv"))
        .arg("--report")
        .arg(dir.join("report.json"))
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

const JOB: &str = "suppression_limit = 0.3\n[input]\npath = \"data.csv\"\n[attributes.name]\n\
role = \"identifying\"\n[attributes.zip]\nrole = \"quasi-identifying\"\n\
hierarchy = { kind = \"mask\" }\n[attributes.age]\nrole = \"quasi-identifying\"\n\
hierarchy = { kind = \"intervals\", widths = [10, 20] }\n[attributes.disease]\n\
role = \"sensitive\"\n[[privacy]]\nmodel = \"k-anonymity\"\nk = 3\n";

/// The messages of the first hour say what would have helped: k above the row count, a
/// wrong delimiter, a top-level key under a table, levels of the wrong length.
#[test]
fn messages_say_what_would_help() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // k larger than the table
    let (code, err) = fail(d, DATA, &JOB.replace("k = 3", "k = 50"), &["anonymize"]);
    assert_eq!(code, Some(3), "{err}");
    assert!(
        err.contains("k = 50 is more than the table's 8 rows"),
        "{err}"
    );
    // the data file is delimited by `;`
    let (code, err) = fail(d, &DATA.replace(',', ";"), JOB, &["anonymize"]);
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.contains("it has 1 column: `name;zip;age;disease`")
            && err.contains("delimiter = \";\""),
        "{err}"
    );
    // a top-level key written under [input]
    let late = JOB.replace("suppression_limit = 0.3\n", "").replace(
        "path = \"data.csv\"\n",
        "path = \"data.csv\"\nsuppression_limit = 0.3\n",
    );
    let (code, err) = fail(d, DATA, &late, &["anonymize"]);
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.contains("`suppression_limit` is a top-level key: write it before the first [table]"),
        "{err}"
    );
    // levels of the wrong length name the quasi-identifiers in order
    let (code, err) = fail(d, DATA, JOB, &["anonymize", "--levels", "1"]);
    assert_ne!(code, Some(0), "{err}");
    assert!(
        err.contains("one per quasi-identifier in header order: zip (0 to 5), age (0 to 3)"),
        "{err}"
    );
}
