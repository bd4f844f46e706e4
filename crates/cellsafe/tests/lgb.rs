//! LGB (`algorithm = "lgb"`, paper 004) through the job layer on the bundled census
//! extract, each written file checked by a counter written here: no flagged value in the
//! main table, groups of at least k, buckets l-unique (t-close for sex) holding exactly the
//! values of the rows pointing to them, each bucket table named after its attribute; the
//! audit failing on tampered files; config errors named by key.

use crate::common;

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use cellsafe::job::config::Config;
use cellsafe::job::lgb::{anonymize, LgbReport};
use cellsafe::job::Outputs;
use cellsafe::observer::Silent;
use cellsafe::Error;

fn example() -> PathBuf {
    common::examples().join("lgb")
}

/// The example config with `extra` appended, written into `dir` with absolute paths.
fn config(dir: &Path, edit: impl Fn(String) -> String) -> Config {
    let text = std::fs::read_to_string(example().join("lgb.toml")).unwrap();
    let text = text
        .replace(
            "path = \"census.csv\"",
            &format!("path = {:?}", example().join("census.csv")),
        )
        .replace(
            "hierarchy = \"hierarchy_",
            &format!("hierarchy = \"{}/hierarchy_", example().display()),
        );
    let file = dir.join("lgb.toml");
    std::fs::write(&file, edit(text)).unwrap();
    Config::from_file(&file).unwrap()
}

fn run(c: &Config, dir: &Path) -> (LgbReport, PathBuf, PathBuf) {
    let out = dir.join("out.csv");
    let mapping = dir.join("mapping.csv");
    let outputs = Outputs {
        table: Some(out.clone()),
        report: None,
        mapping: Some(mapping.clone()),
    };
    (anonymize(c, &outputs, None, &Silent).unwrap(), out, mapping)
}

#[test]
fn the_example_release_passes_an_independent_count() {
    let dir = tempfile::tempdir().unwrap();
    let c = config(dir.path(), |t| {
        t.replace("[output]\n", "[output]\nseed = 11\n")
    });
    let (report, out, mapping) = run(&c, dir.path());
    assert!(report.found);
    let (header, rows) = common::read_semicolon(&out);
    let (in_header, input) = common::read_semicolon(&example().join("census.csv"));
    let lines: Vec<usize> = common::mapping_rows(&mapping);
    let col = |h: &[String], name: &str| h.iter().position(|x| x == name).unwrap();
    assert!(!header
        .iter()
        .any(|h| h == "salary" || h.ends_with("_sensitive")));
    // (attribute, has a flag)
    let bucketed = [
        ("age", true),
        ("sex", true),
        ("occupation", true),
        ("salary", false),
    ];
    let mut pointed: HashMap<(&str, String), Vec<String>> = HashMap::new();
    for (row, &line) in rows.iter().zip(&lines) {
        let original = &input[line];
        for (a, flagged_attr) in bucketed {
            let bid = &row[col(&header, &format!("{a}.bid"))];
            let value = &original[col(&in_header, a)];
            if flagged_attr {
                let shown = &row[col(&header, a)];
                let flagged = original[col(&in_header, &format!("{a}_sensitive"))] == "1";
                assert!(
                    !flagged || shown.is_empty(),
                    "{a} = {value} shown though flagged"
                );
                assert!(
                    shown.is_empty() != bid.is_empty(),
                    "{a}: `{shown}` and bucket `{bid}`"
                );
            } else {
                assert!(!bid.is_empty());
            }
            if !bid.is_empty() {
                pointed
                    .entry((a, bid.clone()))
                    .or_default()
                    .push(value.clone());
            }
        }
    }
    // groups of at least k, by id and as shown
    assert_groups_of_five(&header, &rows);
    // bucket tables: named after their attribute, l-unique or t-close, exactly the rows' values
    for (a, _) in bucketed {
        let file = dir.path().join(format!("out.{a}.csv"));
        let (h, listed) = common::read_semicolon(&file);
        assert_eq!(h, ["bid", a], "{}", file.display());
        let mut buckets: HashMap<String, Vec<String>> = HashMap::new();
        for r in &listed {
            buckets.entry(r[0].clone()).or_default().push(r[1].clone());
        }
        let total = listed.len() as f64;
        let mut overall: HashMap<&str, f64> = HashMap::new();
        for r in &listed {
            *overall.entry(r[1].as_str()).or_default() += 1.0 / total;
        }
        for (bid, values) in &buckets {
            if a == "sex" {
                let n = values.len() as f64;
                let d: f64 = 0.5
                    * overall
                        .iter()
                        .map(|(v, q)| {
                            (values.iter().filter(|x| x == v).count() as f64 / n - q).abs()
                        })
                        .sum::<f64>();
                assert!(d <= 0.2 + 1e-9, "sex bucket {bid}: {d}");
            } else {
                assert!(values.len() >= 5);
                assert_eq!(
                    values.iter().collect::<HashSet<_>>().len(),
                    values.len(),
                    "{a} {bid}"
                );
            }
            let mut mine = values.clone();
            let mut theirs = pointed.remove(&(a, bid.clone())).unwrap_or_default();
            mine.sort();
            theirs.sort();
            assert_eq!(mine, theirs, "{a} bucket {bid}");
        }
    }
    assert!(pointed.is_empty());
}

/// Issue 28 item 10: LGB needs no hierarchy either. `hours-per-week` (numbers) and
/// `education` (words) as quasi-identifiers, and the semi-sensitive `occupation`, given
/// none show intervals and sets of values covering the input; every group, by id and as
/// shown, holds at least k = 5 rows, and the audit passes.
#[test]
fn lgb_needs_no_hierarchy() {
    let dir = tempfile::tempdir().unwrap();
    let c = config(dir.path(), |t| {
        t.replace("[output]\n", "[output]\nseed = 12\n")
            .replace(
                "hierarchy = { kind = \"intervals\", widths = [5, 10, 20, 40] }\n",
                "",
            )
            .lines()
            .filter(|l| {
                !l.ends_with("hierarchy_education.csv\"")
                    && !l.ends_with("hierarchy_occupation.csv\"")
            })
            .map(|l| format!("{l}\n"))
            .collect()
    });
    for a in ["hours-per-week", "education", "occupation"] {
        assert!(c.attributes[a].hierarchy.is_none(), "{a}");
    }
    let (report, out, mapping) = run(&c, dir.path());
    assert!(report.found);
    assert!(report.audit.as_ref().is_some_and(|a| a.passed));
    let (header, rows) = common::read_semicolon(&out);
    let (in_header, input) = common::read_semicolon(&example().join("census.csv"));
    let lines: Vec<usize> = common::mapping_rows(&mapping);
    assert_eq!(lines.len(), input.len());
    let col = |h: &[String], name: &str| h.iter().position(|x| x == name).unwrap();
    let covers = |cell: &str, value: &str| {
        cell == value
            || match (cell.strip_prefix('['), value.parse::<f64>()) {
                (Some(rest), Ok(v)) => {
                    let (lo, hi) = rest.trim_end_matches(']').split_once(',').unwrap();
                    lo.parse::<f64>().unwrap() <= v && v <= hi.parse::<f64>().unwrap()
                }
                _ => false,
            }
            || (cell.starts_with('{') && cell[1..cell.len() - 1].split(',').any(|e| e == value))
    };
    let mut intervals = 0;
    let mut sets = 0;
    for (row, &line) in rows.iter().zip(&lines) {
        for a in ["hours-per-week", "education", "occupation"] {
            let cell = &row[col(&header, a)];
            let value = &input[line][col(&in_header, a)];
            // an empty occupation is in a bucket
            if !(a == "occupation" && cell.is_empty()) {
                assert!(
                    covers(cell, value),
                    "{a}: `{cell}` does not cover `{value}`"
                );
                assert_ne!(cell, "*", "{a}");
            }
            intervals += usize::from(cell.starts_with('['));
            sets += usize::from(cell.starts_with('{'));
        }
    }
    assert!(
        intervals > 0 && sets > 0,
        "{intervals} intervals, {sets} sets"
    );
    assert_groups_of_five(&header, &rows);
}

#[test]
fn lgb_ncp_releases_pass_the_audit_with_fewer_ncp_than_mdp() {
    let dir = tempfile::tempdir().unwrap();
    let mdp = run(&config(dir.path(), |t| t), dir.path()).0;
    let ncp = run(
        &config(dir.path(), |t| {
            t.replace("[output]\n", "[search.local]\nmethod = \"ncp\"\n[output]\n")
        }),
        dir.path(),
    )
    .0;
    assert!(ncp.found && ncp.audit.as_ref().is_some_and(|a| a.passed));
    let (m, n) = (mdp.figures.unwrap(), ncp.figures.unwrap());
    // paper 004 section 4.1: NCP's heuristic lowers NCP, Mondrian's even splits lower C_DM
    assert!(n.ncp < m.ncp, "{} >= {}", n.ncp, m.ncp);
    assert!(m.c_dm < n.c_dm, "{} >= {}", m.c_dm, n.c_dm);
}

/// The five tables of two runs are byte for byte the same.
fn same_tables(a: &Path, b: &Path) {
    for f in [
        "out.csv",
        "out.age.csv",
        "out.sex.csv",
        "out.occupation.csv",
        "out.salary.csv",
    ] {
        let (x, y) = (
            std::fs::read_to_string(a.join(f)).unwrap(),
            std::fs::read_to_string(b.join(f)).unwrap(),
        );
        assert!(
            x == y,
            "{f} differs: {:?} / {:?}",
            x.lines().nth(1),
            y.lines().nth(1)
        );
    }
}

#[test]
fn same_seed_same_tables() {
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let edit = |t: String| t.replace("[output]\n", "[output]\nseed = 3\n");
    run(&config(a.path(), edit), a.path());
    run(&config(b.path(), edit), b.path());
    same_tables(a.path(), b.path());
}

#[test]
fn config_errors_are_named_by_key() {
    let dir = tempfile::tempdir().unwrap();
    let err = |edit: &dyn Fn(String) -> String| {
        let c = config(dir.path(), edit);
        let outputs = Outputs {
            table: Some(dir.path().join("x.csv")),
            report: None,
            mapping: None,
        };
        anonymize(&c, &outputs, None, &Silent).unwrap_err()
    };
    let key_of = |e: &Error| match e {
        Error::Config { key, .. } => key.clone(),
        e => panic!("{e}"),
    };
    let e = err(&|t| t.replace("flag = \"age_sensitive\"\n", ""));
    assert_eq!(key_of(&e), "attributes.age.flag");
    let e = err(&|t| {
        t.replace(
            "model = \"distinct-l-diversity\"\nattribute = \"age\"",
            "model = \"entropy-l-diversity\"\nattribute = \"age\"",
        )
    });
    assert!(key_of(&e).starts_with("privacy["), "{e}");
    let e = err(&|t| {
        t.replace(
            "[[privacy]]\nmodel = \"distinct-l-diversity\"\nattribute = \"salary\"\nl = 5\n",
            "",
        )
    });
    assert_eq!(key_of(&e), "attributes.salary");
    let e = err(&|t| t.replace("[[privacy]]\nmodel = \"k-anonymity\"\nk = 5\n", ""));
    assert_eq!(key_of(&e), "privacy");
    // occupation's commonest value holds more than 1/20 of its cells: named by key
    let e = err(&|t| {
        t.replace(
            "attribute = \"occupation\"\nl = 5",
            "attribute = \"occupation\"\nl = 20",
        )
    });
    assert_eq!(key_of(&e), "privacy");
    assert!(e.to_string().contains("occupation"), "{e}");
    // a semi-sensitive column in a level-based search
    let c = config(dir.path(), |t| {
        t.replace("algorithm = \"lgb\"", "algorithm = \"optimal\"")
    });
    let outputs = Outputs {
        table: Some(dir.path().join("x.csv")),
        report: None,
        mapping: None,
    };
    let e = cellsafe::job::anonymize(&c, &outputs, &Silent).unwrap_err();
    assert!(e.to_string().contains("semi-sensitive"), "{e}");
    assert!(!dir.path().join("x.csv").exists());
}

#[test]
fn a_bad_flag_is_located() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(example().join("census.csv")).unwrap();
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    // line 4 of the file: its age flag becomes `maybe`
    let mut cells: Vec<String> = lines[3].split(';').map(String::from).collect();
    let age_flag = lines[0]
        .split(';')
        .position(|h| h == "age_sensitive")
        .unwrap();
    cells[age_flag] = "maybe".into();
    lines[3] = cells.join(";");
    let data = dir.path().join("census.csv");
    std::fs::write(&data, lines.join("\n") + "\n").unwrap();
    let c = config(dir.path(), |t| {
        t.replace(
            &format!("{:?}", example().join("census.csv")),
            &format!("{data:?}"),
        )
    });
    let outputs = Outputs {
        table: Some(dir.path().join("x.csv")),
        report: None,
        mapping: None,
    };
    let e = anonymize(&c, &outputs, None, &Silent)
        .unwrap_err()
        .to_string();
    assert!(e.contains(":4:") && e.contains("maybe"), "{e}");
}

#[test]
fn the_audit_fails_on_tampered_tables() {
    use cellsafe::data::table::{CsvFormat, Table};
    use cellsafe::release::audit::{audit_lgb_tables, LgbColumn, LgbExpected};
    let dir = tempfile::tempdir().unwrap();
    let c = config(dir.path(), |t| {
        t.replace("[output]\n", "[output]\nseed = 5\n")
    });
    let (_, out, mapping) = run(&c, dir.path());
    let format = CsvFormat {
        delimiter: b';',
        ..CsvFormat::default()
    };
    let input = Table::read_csv(&example().join("census.csv"), &format).unwrap();
    let (data, spec) = cellsafe::job::lgb::data(&c, input).unwrap();
    let columns: Vec<LgbColumn> = (0..data.roles.len())
        .map(|col| {
            let a = data
                .attributes
                .iter()
                .position(|q| q.name == data.table.header()[col]);
            LgbColumn {
                role: data.roles[col],
                hierarchy: a.map(|a| &data.attributes[a].hierarchy),
                flags: a.and_then(|a| data.flags[a].as_deref()),
                protection: data
                    .bucketed
                    .iter()
                    .find(|b| b.column == col)
                    .map(|b| b.protection),
            }
        })
        .collect();
    let rows: Vec<usize> = common::mapping_rows(&mapping);
    let expected = LgbExpected {
        original: &data.table,
        columns: &columns,
        rows: &rows,
        k: spec.k,
    };
    let bucket_tables: Vec<(String, Table)> = ["age", "sex", "occupation", "salary"]
        .iter()
        .map(|a| {
            let p = dir.path().join(format!("out.{a}.csv"));
            (a.to_string(), Table::read_csv(&p, &format).unwrap())
        })
        .collect();
    let audit = |main: &Path, buckets: &[(String, Table)]| {
        let main = Table::read_csv(main, &format).unwrap();
        let b: Vec<(String, &Table)> = buckets.iter().map(|(n, t)| (n.clone(), t)).collect();
        audit_lgb_tables(&main, &b, &expected).unwrap()
    };
    assert!(audit(&out, &bucket_tables).passed);
    // (a) a row whose age is flagged shows it instead of its bucket
    let text = std::fs::read_to_string(&out).unwrap();
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    let i = (0..rows.len())
        .find(|&i| {
            data.flags[data
                .attributes
                .iter()
                .position(|q| q.name == "age")
                .unwrap()]
            .as_ref()
            .unwrap()[rows[i]]
        })
        .unwrap();
    let mut cells: Vec<String> = lines[i + 1].split(';').map(String::from).collect();
    cells[0] = data.table.value(rows[i], 0).to_string();
    cells[1] = String::new();
    lines[i + 1] = cells.join(";");
    let tampered = dir.path().join("tampered.csv");
    std::fs::write(&tampered, lines.join("\n") + "\n").unwrap();
    let a = audit(&tampered, &bucket_tables);
    assert!(
        !a.passed && a.violations.iter().any(|v| v.contains("flagged")),
        "{:?}",
        a.violations
    );
    // (b) a salary bucket table that lost a value
    let salary = dir.path().join("out.salary.csv");
    let text = std::fs::read_to_string(&salary).unwrap();
    let cut: Vec<&str> = text
        .lines()
        .enumerate()
        .filter(|(n, _)| *n != 1)
        .map(|(_, l)| l)
        .collect();
    let cut_path = dir.path().join("cut.csv");
    std::fs::write(&cut_path, cut.join("\n") + "\n").unwrap();
    let mut tables = bucket_tables;
    tables[3].1 = Table::read_csv(&cut_path, &format).unwrap();
    let a = audit(&out, &tables);
    assert!(!a.passed, "{:?}", a.violations);
}

/// Flags in a separate file keyed by an id give the same release as flag columns in the
/// data; a data row whose key the file lacks, and a key listed twice, are located.
#[test]
fn a_flags_file_keyed_by_id_gives_the_same_release() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(example().join("census.csv")).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let header: Vec<&str> = lines[0].split(';').collect();
    let flag_cols: Vec<usize> = (0..header.len())
        .filter(|&c| header[c].ends_with("_sensitive"))
        .collect();
    let keep: Vec<usize> = (0..header.len())
        .filter(|c| !flag_cols.contains(c))
        .collect();
    let mut data = vec![format!(
        "id;{}",
        keep.iter()
            .map(|&c| header[c])
            .collect::<Vec<_>>()
            .join(";")
    )];
    let mut flags = vec![format!(
        "id;{}",
        flag_cols
            .iter()
            .map(|&c| header[c])
            .collect::<Vec<_>>()
            .join(";")
    )];
    for (i, line) in lines[1..].iter().enumerate() {
        let cells: Vec<&str> = line.split(';').collect();
        data.push(format!(
            "p{i};{}",
            keep.iter().map(|&c| cells[c]).collect::<Vec<_>>().join(";")
        ));
        flags.push(format!(
            "p{i};{}",
            flag_cols
                .iter()
                .map(|&c| cells[c])
                .collect::<Vec<_>>()
                .join(";")
        ));
    }
    // the flags file in another order
    flags[1..].reverse();
    let data_path = dir.path().join("data.csv");
    let flags_path = dir.path().join("flags.csv");
    std::fs::write(&data_path, data.join("\n") + "\n").unwrap();
    std::fs::write(&flags_path, flags.join("\n") + "\n").unwrap();
    let keyed = |t: String| {
        t.replace(
            &format!("{:?}", example().join("census.csv")),
            &format!("{data_path:?}"),
        )
        .replace(
            "delimiter = \";\"\n",
            &format!(
                "delimiter = \";\"\n[input.sensitivity]\nfile = {flags_path:?}\nkey = \"id\"\n"
            ),
        )
        .replace("[output]\n", "[output]\nseed = 8\n")
    };
    let a = tempfile::tempdir().unwrap();
    let b = tempfile::tempdir().unwrap();
    run(
        &config(a.path(), |t| {
            t.replace("[output]\n", "[output]\nseed = 8\n")
        }),
        a.path(),
    );
    run(&config(b.path(), keyed), b.path());
    same_tables(a.path(), b.path());
    // the key is never released
    let main = std::fs::read_to_string(b.path().join("out.csv")).unwrap();
    let header: Vec<&str> = main.lines().next().unwrap().split(';').collect();
    assert!(
        !main.contains("p1") && !header.contains(&"id"),
        "{header:?}"
    );
    // a key the flags file lacks
    let short: Vec<&str> = flags
        .iter()
        .map(String::as_str)
        .filter(|l| !l.starts_with("p7;"))
        .collect();
    std::fs::write(&flags_path, short.join("\n") + "\n").unwrap();
    let c = config(b.path(), keyed);
    let outputs = Outputs {
        table: Some(b.path().join("x.csv")),
        report: None,
        mapping: None,
    };
    let e = anonymize(&c, &outputs, None, &Silent)
        .unwrap_err()
        .to_string();
    assert!(e.contains("data.csv:9:") && e.contains("p7"), "{e}");
    // a key listed twice
    let mut twice = flags.clone();
    twice.push(flags[1].clone());
    std::fs::write(&flags_path, twice.join("\n") + "\n").unwrap();
    let e = anonymize(&c, &outputs, None, &Silent)
        .unwrap_err()
        .to_string();
    assert!(e.contains("flags.csv") && e.contains("twice"), "{e}");
}

/// Every group of the released census rows holds at least 5 rows, counted by group id and
/// by the quasi-identifier cells as shown.
fn assert_groups_of_five(header: &[String], rows: &[Vec<String>]) {
    let col = |h: &[String], name: &str| h.iter().position(|x| x == name).unwrap();
    let gid = col(header, "gid");
    let shown: Vec<usize> = [
        "age",
        "sex",
        "relationship",
        "marital-status",
        "race",
        "education",
        "hours-per-week",
        "occupation",
    ]
    .iter()
    .map(|n| col(header, n))
    .collect();
    let mut by_gid: HashMap<&str, usize> = HashMap::new();
    let mut alike: HashMap<Vec<&str>, usize> = HashMap::new();
    for row in rows {
        *by_gid.entry(&row[gid]).or_default() += 1;
        *alike
            .entry(shown.iter().map(|&c| row[c].as_str()).collect())
            .or_default() += 1;
    }
    assert!(by_gid.values().all(|&n| n >= 5));
    assert!(alike.values().all(|&n| n >= 5));
}
