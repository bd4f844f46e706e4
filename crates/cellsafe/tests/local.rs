//! Local recoding (`algorithm = "mondrian"`) through the job layer on the bundled Adult
//! data, each written file checked by a counter written here from the definitions: every
//! group id's rows ≥ k (and l-diverse), every group of rows shown alike ≥ k, every shown
//! value covering the input value, every other cell the input's; and the audit failing on
//! a tampered file.

use crate::common;

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use cellsafe::data::table::CsvFormat;
use cellsafe::hierarchy::Hierarchy;
use cellsafe::job::config::Config;
use cellsafe::job::{self, Outputs};
use cellsafe::observer::Silent;
use cellsafe::release::audit::{audit_local, LocalExpected};
use cellsafe::Error;

use common::ADULT_QIS as QUASI;

fn config(extra: &str, dir: &Path) -> Config {
    config_edited(extra, dir, |t| t)
}

/// [`config`] with `edit` applied to the example's text first.
fn config_edited(extra: &str, dir: &Path, edit: impl Fn(String) -> String) -> Config {
    let path = common::examples().join("adult/adult.toml");
    let text = edit(std::fs::read_to_string(&path).unwrap())
        .replace("suppression_limit = 0.01", "suppression_limit = 0")
        .replace("algorithm = \"optimal\"", "algorithm = \"mondrian\"");
    let text = format!("{text}\n{extra}\n");
    // a config beside the examples' data, written into the test's directory
    let file = dir.join("local.toml");
    let text = text
        .replace(
            "path = \"adult.csv\"",
            &format!("path = {:?}", common::examples().join("adult/adult.csv")),
        )
        .replace(
            "hierarchy = \"adult_",
            &format!(
                "hierarchy = \"{}/adult_",
                common::examples().join("adult").display()
            ),
        );
    std::fs::write(&file, &text).unwrap();
    Config::from_file(&file).unwrap()
}

/// The hierarchy rows of `name`: leaf → its ancestors' labels.
fn ancestors(name: &str) -> HashMap<String, Vec<String>> {
    let path = common::examples().join(format!("adult/adult_hierarchy_{name}.csv"));
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| {
            let cells: Vec<String> = l.split(';').map(String::from).collect();
            (cells[0].clone(), cells[1..].to_vec())
        })
        .collect()
}

struct Run {
    report: cellsafe::job::report::Report,
    out: PathBuf,
    mapping: PathBuf,
}

fn run(config: &Config, dir: &Path) -> Run {
    let out = dir.join("out.csv");
    let mapping = dir.join("mapping.csv");
    let outputs = Outputs {
        table: Some(out.clone()),
        report: None,
        mapping: Some(mapping.clone()),
    };
    let report = job::anonymize(config, &outputs, &Silent).unwrap();
    Run {
        report,
        out,
        mapping,
    }
}

/// Checks the written release from the definitions; returns the group sizes by id.
fn check(run: &Run, k: usize, l: Option<usize>) -> HashMap<String, usize> {
    let (header, rows) = common::read_semicolon(&run.out);
    let (in_header, input) = common::read_semicolon(&common::examples().join("adult/adult.csv"));
    let mut want = in_header.clone();
    want.push("gid".into());
    assert_eq!(header, want);
    let lines: Vec<usize> = common::mapping_rows(&run.mapping);
    assert_eq!(lines.len(), input.len());
    assert_eq!(lines.iter().collect::<HashSet<_>>().len(), input.len());
    let hierarchies: HashMap<&str, HashMap<String, Vec<String>>> =
        QUASI.iter().map(|q| (*q, ancestors(q))).collect();
    let gid = header.len() - 1;
    let qi: Vec<usize> = QUASI
        .iter()
        .map(|q| header.iter().position(|h| h == q).unwrap())
        .collect();
    let occupation = header.iter().position(|h| h == "occupation").unwrap();
    let mut by_gid: HashMap<String, (Vec<String>, usize, HashSet<String>)> = HashMap::new();
    let mut by_shown: HashMap<Vec<String>, usize> = HashMap::new();
    for (row, &line) in rows.iter().zip(&lines) {
        let original = &input[line];
        let shown: Vec<String> = qi.iter().map(|&c| row[c].clone()).collect();
        for (&c, name) in qi.iter().zip(QUASI) {
            let (cell, value) = (&row[c], &original[c]);
            let covered = cell == value
                || match (cell.strip_prefix('['), value.parse::<f64>()) {
                    (Some(rest), Ok(v)) => {
                        let (lo, hi) = rest.trim_end_matches(']').split_once(',').unwrap();
                        lo.parse::<f64>().unwrap() <= v && v <= hi.parse::<f64>().unwrap()
                    }
                    _ => false,
                }
                || (cell.starts_with('{')
                    && cell[1..cell.len() - 1].split(',').any(|e| e == value))
                || hierarchies[name][value].contains(cell);
            assert!(covered, "{name}: `{cell}` does not cover `{value}`");
        }
        for c in (0..gid).filter(|c| !qi.contains(c)) {
            assert_eq!(row[c], original[c]);
        }
        let entry = by_gid
            .entry(row[gid].clone())
            .or_insert_with(|| (shown.clone(), 0, HashSet::new()));
        assert_eq!(entry.0, shown, "group {} shows two forms", row[gid]);
        entry.1 += 1;
        entry.2.insert(row[occupation].clone());
        *by_shown.entry(shown).or_default() += 1;
    }
    for (g, (_, n, values)) in &by_gid {
        assert!(*n >= k, "group {g} has {n} rows");
        if let Some(l) = l {
            assert!(
                values.len() >= l,
                "group {g} has {} occupations",
                values.len()
            );
        }
    }
    assert!(by_shown.values().all(|&n| n >= k));
    by_gid.into_iter().map(|(g, (_, n, _))| (g, n)).collect()
}

#[test]
fn mondrian_releases_pass_an_independent_count() {
    let dir = tempfile::tempdir().unwrap();
    for (extra, k, l) in [
        ("[output]\nseed = 1", 5, None),
        ("[output]\nseed = 2\n[search.local]\nmode = \"relaxed\"", 5, None),
        (
            "[output]\nseed = 3\n[[privacy]]\nmodel = \"distinct-l-diversity\"\nattribute = \"occupation\"\nl = 3",
            5,
            Some(3),
        ),
        (
            "[output]\nseed = 4\n[[privacy]]\nmodel = \"t-closeness\"\nattribute = \"occupation\"\nt = 0.2\ndistance = \"equal\"",
            5,
            None,
        ),
    ] {
        let c = config(extra, dir.path());
        let r = run(&c, dir.path());
        assert!(r.report.found, "{extra}");
        let sizes = check(&r, k, l);
        let local = r.report.local.expect("local figures");
        assert_eq!(local.groups, sizes.len());
        assert_eq!(local.min_group, *sizes.values().min().unwrap());
        let c_dm: u64 = sizes.values().map(|&n| (n as u64).pow(2)).sum();
        assert_eq!(local.c_dm, c_dm);
        assert!((0.0..=1.0).contains(&local.ncp_normalized));
    }
}

/// Issue 28 item 10: local recoding needs no hierarchy. `age` (numbers) and `education`
/// (words) given none show intervals and sets of values, and the release passes its audit
/// and the independent count (which accepts `[lo,hi]` and `{a,b}` covering the input).
#[test]
fn mondrian_needs_no_hierarchy() {
    let dir = tempfile::tempdir().unwrap();
    let c = config_edited("[output]\nseed = 5", dir.path(), |t| {
        t.replace("hierarchy = \"adult_hierarchy_age.csv\"\n", "")
            .replace("hierarchy = \"adult_hierarchy_education.csv\"\n", "")
    });
    assert!(c.attributes["age"].hierarchy.is_none());
    assert!(c.attributes["education"].hierarchy.is_none());
    let r = run(&c, dir.path());
    assert!(r.report.found);
    assert!(r.report.audit.as_ref().is_some_and(|a| a.passed));
    check(&r, 5, None);
    // the columns without a hierarchy show intervals and sets, never a hierarchy's label
    let (header, rows) = common::read_semicolon(&r.out);
    let col = |n: &str| header.iter().position(|h| h == n).unwrap();
    assert!(rows.iter().any(|row| row[col("age")].starts_with('[')));
    assert!(rows.iter().all(|row| row[col("age")] != "*"));
    assert!(rows
        .iter()
        .any(|row| row[col("education")].starts_with('{')));
    assert!(rows.iter().all(|row| row[col("education")] != "*"));
}

/// A full-domain search still needs a hierarchy per quasi-identifier, and says which.
#[test]
fn full_domain_names_the_missing_hierarchy() {
    let dir = tempfile::tempdir().unwrap();
    // the Mondrian config without age's hierarchy, turned back to the optimal search
    config_edited("", dir.path(), |t| {
        t.replace("hierarchy = \"adult_hierarchy_age.csv\"\n", "")
    });
    let text = std::fs::read_to_string(dir.path().join("local.toml"))
        .unwrap()
        .replace("algorithm = \"mondrian\"", "algorithm = \"optimal\"");
    let file = dir.path().join("full.toml");
    std::fs::write(&file, text).unwrap();
    let c = Config::from_file(&file).unwrap();
    let outputs = Outputs {
        table: Some(dir.path().join("x.csv")),
        report: None,
        mapping: None,
    };
    let e = job::anonymize(&c, &outputs, &Silent).unwrap_err();
    assert!(
        matches!(&e, Error::Config { key, .. } if key == "attributes.age.hierarchy"),
        "{e}"
    );
    let message = e.to_string();
    assert!(message.contains("full.toml"), "{message}");
    assert!(message.contains("`age` needs a hierarchy"), "{message}");
    assert!(!dir.path().join("x.csv").exists());
}

#[test]
fn relaxed_groups_are_no_larger_than_strict() {
    let dir = tempfile::tempdir().unwrap();
    let strict = run(&config("[output]\nseed = 1", dir.path()), dir.path());
    let relaxed = run(
        &config(
            "[output]\nseed = 1\n[search.local]\nmode = \"relaxed\"",
            dir.path(),
        ),
        dir.path(),
    );
    let (s, r) = (strict.report.local.unwrap(), relaxed.report.local.unwrap());
    assert!(r.groups >= s.groups, "{} < {}", r.groups, s.groups);
    assert!(r.c_dm <= s.c_dm);
}

#[test]
fn same_seed_same_file() {
    let a = tempfile::tempdir().unwrap();
    let b = tempfile::tempdir().unwrap();
    let ra = run(&config("[output]\nseed = 9", a.path()), a.path());
    let rb = run(&config("[output]\nseed = 9", b.path()), b.path());
    assert_eq!(
        std::fs::read(&ra.out).unwrap(),
        std::fs::read(&rb.out).unwrap()
    );
}

#[test]
fn settings_local_recoding_cannot_use_are_named_by_key() {
    let dir = tempfile::tempdir().unwrap();
    let err = |extra: &str| {
        let c = config(extra, dir.path());
        let outputs = Outputs {
            table: Some(dir.path().join("x.csv")),
            report: None,
            mapping: None,
        };
        job::anonymize(&c, &outputs, &Silent).unwrap_err()
    };
    let e = err("[output]\nvalues = \"microaggregation\"");
    assert!(
        matches!(&e, Error::Config { key, .. } if key == "output.values"),
        "{e}"
    );
    let e = err(
        "[[privacy]]\nmodel = \"confidential\"\nattribute = \"occupation\"\nvalues = [\"Sales\"]",
    );
    assert!(
        matches!(&e, Error::Config { key, .. } if key == "privacy"),
        "{e}"
    );
    assert!(!dir.path().join("x.csv").exists());
}

#[test]
fn the_audit_fails_on_a_tampered_release() {
    let dir = tempfile::tempdir().unwrap();
    let c = config("[output]\nseed = 5", dir.path());
    let r = run(&c, dir.path());
    let original = cellsafe::data::table::Table::read_csv(
        &common::examples().join("adult/adult.csv"),
        &CsvFormat {
            delimiter: b';',
            ..CsvFormat::default()
        },
    )
    .unwrap();
    let hierarchies: Vec<(String, Hierarchy)> = QUASI
        .iter()
        .map(|q| {
            let path = common::examples().join(format!("adult/adult_hierarchy_{q}.csv"));
            (q.to_string(), Hierarchy::read_arx(&path, b';').unwrap())
        })
        .collect();
    let quasi: Vec<(String, &Hierarchy)> =
        hierarchies.iter().map(|(n, h)| (n.clone(), h)).collect();
    let rows: Vec<usize> = common::mapping_rows(&r.mapping);
    let models = c.privacy.clone();
    let expected = LocalExpected {
        quasi: &quasi,
        identifying: &[],
        models: &models,
        original: &original,
        rows: &rows,
        gid: "gid",
    };
    let format = CsvFormat {
        delimiter: b';',
        ..CsvFormat::default()
    };
    assert!(audit_local(&r.out, &format, &expected).unwrap().passed);
    let text = std::fs::read_to_string(&r.out).unwrap();
    let tampered = dir.path().join("tampered.csv");
    // (a) one row's age replaced by a value that does not cover it
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    let mut cells: Vec<String> = lines[1].split(';').map(String::from).collect();
    cells[1] = "[200,300]".into();
    lines[1] = cells.join(";");
    std::fs::write(&tampered, lines.join("\n") + "\n").unwrap();
    let audit = audit_local(&tampered, &format, &expected).unwrap();
    assert!(!audit.passed);
    assert!(
        audit
            .violations
            .iter()
            .any(|v| v.contains("does not cover")),
        "{:?}",
        audit.violations
    );
    // (b) one row moved to a group of its own
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    let mut cells: Vec<String> = lines[1].split(';').map(String::from).collect();
    *cells.last_mut().unwrap() = "99999".into();
    lines[1] = cells.join(";");
    std::fs::write(&tampered, lines.join("\n") + "\n").unwrap();
    let audit = audit_local(&tampered, &format, &expected).unwrap();
    assert!(!audit.passed);
}
