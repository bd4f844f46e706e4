//! The release as its recipient reads it. A recipient knows every person's public values
//! and identity, the hierarchies and how cellsafe works, and reads the written file: every
//! cell, every suppressed row, the order of the rows. These tests read the files cellsafe
//! writes with oracles of their own (perfect matchings by augmenting paths, formulas
//! evaluated on strings over every completion of a starred cell) and check that no
//! confidential formula of anyone can be deduced, that which rows are suppressed depends on
//! public values only, and that the row order carries nothing.
//!
//! One file, past 600 lines, because its oracles (matching, completions, the recipient's
//! reading of a file) serve every test in it.

use crate::common;

use common::logical::{formula_strategy, DISEASES, F, INCOMES};

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use cellsafe::job::config::Config;
use cellsafe::job::{self, Outputs};
use cellsafe::release::Released;
use proptest::prelude::*;

#[derive(Debug, Clone)]
struct Case {
    /// Per row: two public values, disease, income.
    rows: Vec<(u32, u32, usize, usize)>,
    formulas: Vec<F>,
    /// Formulas in everyone's CON.
    default: Vec<usize>,
    /// Per row, further formulas in that person's CON.
    personal: Vec<Vec<usize>>,
    limit: f64,
    drop: bool,
    seed: u64,
}

fn case_strategy() -> impl Strategy<Value = Case> {
    (
        prop::collection::vec((0..6u32, 0..4u32, 0..3usize, 0..3usize), 2..10),
        prop::collection::vec(formula_strategy(), 1..3),
        prop::sample::select(vec![0.0, 0.1, 0.2, 0.34, 0.5]),
        any::<bool>(),
        0..=cellsafe::release::MAX_SEED,
    )
        .prop_flat_map(|(rows, formulas, limit, drop, seed)| {
            let nf = formulas.len();
            let n = rows.len();
            (
                Just(rows),
                Just(formulas),
                prop::collection::vec(0..nf, 0..2),
                prop::collection::vec(prop::collection::vec(0..nf, 0..2), n),
                Just((limit, drop, seed)),
            )
        })
        .prop_map(
            |(rows, formulas, default, personal, (limit, drop, seed))| Case {
                rows,
                formulas,
                default,
                personal,
                limit,
                drop,
                seed,
            },
        )
}

/// Writes the case as CSV + config under `dir`; returns the config's path.
fn write_case(case: &Case, dir: &Path) -> PathBuf {
    let con: Vec<String> = case
        .personal
        .iter()
        .map(|p| {
            p.iter()
                .map(|f| format!("f{f}"))
                .collect::<Vec<_>>()
                .join("|")
        })
        .collect();
    let top = format!("suppression_limit = {}", case.limit);
    let mode = if case.drop { "drop" } else { "star" };
    let tail = format!("[output]\nseed = {}\nsuppression = \"{mode}\"\n", case.seed);
    common::logical::write_case(
        dir,
        &case.rows,
        &con,
        &case.formulas,
        &case.default,
        2,
        "loss",
        &top,
        &tail,
    )
}

/// Whether public value `v` can lie behind a released cell: `*`, the value itself, or an
/// interval `[lo,hi)` holding it.
fn cell_admits(cell: &str, v: u32) -> bool {
    if cell == "*" || cell == v.to_string() {
        return true;
    }
    let Some(inner) = cell.strip_prefix('[').and_then(|c| c.strip_suffix(')')) else {
        return false;
    };
    let (lo, hi) = inner.split_once(',').unwrap();
    let (lo, hi): (f64, f64) = (lo.parse().unwrap(), hi.parse().unwrap());
    lo <= v as f64 && (v as f64) < hi
}

/// Kuhn's augmenting paths: whether persons can be matched to records one to one, person
/// `fixed.0` to record `fixed.1` if given.
fn perfect(links: &[Vec<bool>], fixed: Option<(usize, usize)>) -> bool {
    let n = links.len();
    let mut owner: Vec<Option<usize>> = vec![None; n];
    fn augment(
        u: usize,
        links: &[Vec<bool>],
        seen: &mut [bool],
        owner: &mut [Option<usize>],
        fixed: Option<(usize, usize)>,
    ) -> bool {
        for r in 0..links.len() {
            let allowed = match fixed {
                Some((fu, fr)) => (u == fu) == (r == fr) && links[u][r],
                None => links[u][r],
            };
            if allowed && !seen[r] {
                seen[r] = true;
                if owner[r].is_none_or(|w| augment(w, links, seen, owner, fixed)) {
                    owner[r] = Some(u);
                    return true;
                }
            }
        }
        false
    }
    (0..n).all(|u| augment(u, links, &mut vec![false; n], &mut owner, fixed))
}

/// What the recipient learns: for each person (input row), the formulas that hold of every
/// record the person can own in some one-to-one assignment, whatever starred cells hold.
/// `released` is the written file's rows (a, b, disease, income); `hidden` records are
/// rows left out of it.
fn recipient_knows(case: &Case, released: &[Vec<String>]) -> Vec<BTreeSet<usize>> {
    let n = case.rows.len();
    let hidden = n - released.len();
    // the domains a starred cell may hold: the values of the data
    let diseases: BTreeSet<&str> = case.rows.iter().map(|r| DISEASES[r.2]).collect();
    let incomes: BTreeSet<&str> = case.rows.iter().map(|r| INCOMES[r.3]).collect();
    let links: Vec<Vec<bool>> = (0..n)
        .map(|u| {
            let (a, b, _, _) = case.rows[u];
            (0..n)
                .map(|r| {
                    r >= released.len()
                        || (cell_admits(&released[r][0], a) && cell_admits(&released[r][1], b))
                })
                .collect()
        })
        .collect();
    assert!(hidden < n || released.is_empty());
    assert!(
        perfect(&links, None),
        "the release is explained by no assignment"
    );
    let holds_in = |f: &F, r: usize| -> bool {
        let (d, i): (Vec<&str>, Vec<&str>) = if r >= released.len() {
            (
                diseases.iter().copied().collect(),
                incomes.iter().copied().collect(),
            )
        } else {
            let pick = |cell: &str, domain: &BTreeSet<&str>| -> Vec<String> {
                if cell == "*" {
                    domain.iter().map(|s| s.to_string()).collect()
                } else {
                    vec![cell.to_string()]
                }
            };
            let d = pick(&released[r][2], &diseases);
            let i = pick(&released[r][3], &incomes);
            return d
                .iter()
                .all(|d| i.iter().all(|i| f.eval(&[d.as_str(), i.as_str()])));
        };
        d.iter().all(|d| i.iter().all(|i| f.eval(&[d, i])))
    };
    (0..n)
        .map(|u| {
            let owned: Vec<usize> = (0..n)
                .filter(|&r| links[u][r] && perfect(&links, Some((u, r))))
                .collect();
            (0..case.formulas.len())
                .filter(|&f| owned.iter().all(|&r| holds_in(&case.formulas[f], r)))
                .collect()
        })
        .collect()
}

fn con_of(case: &Case, u: usize) -> BTreeSet<usize> {
    case.default
        .iter()
        .chain(&case.personal[u])
        .copied()
        .collect()
}

/// Runs `config`'s job writing the table to `out` only.
fn release_to(config: &Config, out: &Path) -> cellsafe::job::report::Report {
    let outputs = Outputs {
        table: Some(out.to_path_buf()),
        report: None,
        mapping: None,
    };
    job::anonymize(config, &outputs, &cellsafe::observer::Silent).unwrap()
}

/// The released file's rows as (a, b, disease, income) strings.
fn read_release(path: &Path) -> Vec<Vec<String>> {
    let mut rdr = csv::Reader::from_path(path).unwrap();
    let header: Vec<String> = rdr.headers().unwrap().iter().map(String::from).collect();
    assert_eq!(header, ["a", "b", "disease", "income"]);
    rdr.records()
        .map(|r| r.unwrap().iter().map(String::from).collect())
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(150))]

    /// Whatever the suppression limit, seed or suppressed-row mode, a recipient who reads
    /// the written file learns no formula of anyone's CON set; suppressed rows show
    /// nothing; the audit passed.
    #[test]
    fn no_confidential_formula_is_learnable_from_the_written_file(case in case_strategy()) {
        let dir = tempfile::tempdir().unwrap();
        let config = Config::from_file(&write_case(&case, dir.path())).unwrap();
        let out = dir.path().join("out.csv");
        let outputs = Outputs { table: Some(out.clone()), report: None, mapping: None };
        let report = job::anonymize(&config, &outputs, &cellsafe::observer::Silent).unwrap();
        if !report.found {
            prop_assert!(!out.exists());
            return Ok(());
        }
        prop_assert!(report.audit.as_ref().unwrap().passed);
        let released = read_release(&out);
        let n = case.rows.len();
        let starred = released.iter().filter(|r| r.iter().all(|c| c == "*")).count();
        if case.drop {
            prop_assert_eq!(starred, 0);
            prop_assert_eq!(released.len() as u64, n as u64 - report.suppressed_rows);
        } else {
            prop_assert_eq!(released.len(), n);
            prop_assert_eq!(starred as u64, report.suppressed_rows);
            // a row is either fully starred or shows its classes' labels and real values
            for r in &released {
                prop_assert!(r.iter().all(|c| c == "*") || (r[2] != "*" && r[3] != "*"), "{:?}", r);
            }
        }
        prop_assert!(report.suppressed_rows as f64 <= (case.limit * n as f64).floor());
        let known = recipient_knows(&case, &released);
        for (u, k) in known.iter().enumerate() {
            let learnt: Vec<usize> = k.intersection(&con_of(&case, u)).copied().collect();
            prop_assert!(learnt.is_empty(), "person p{} is known to satisfy {:?} from {:?}", u, learnt, released);
        }
    }

    /// Which rows a transformation suppresses depends on the public values only: the same
    /// table with other confidential values suppresses the same rows at every node.
    #[test]
    fn suppression_reads_public_values_only(case in case_strategy(), shift in 1..3usize) {
        let dir = tempfile::tempdir().unwrap();
        let p = Config::from_file(&write_case(&case, dir.path())).unwrap().problem().unwrap();
        let mut other = case.clone();
        for (i, row) in other.rows.iter_mut().enumerate() {
            row.2 = (row.2 + shift + i) % 3;
            row.3 = (row.3 + shift * i) % 3;
        }
        let dir2 = tempfile::tempdir().unwrap();
        let q = Config::from_file(&write_case(&other, dir2.path())).unwrap().problem().unwrap();
        for i in 0..p.lattice.size() {
            let levels = p.lattice.levels(i);
            let (a, b) = (Released::new(&p, &levels).unwrap(), Released::new(&q, &levels).unwrap());
            for r in 0..case.rows.len() {
                prop_assert_eq!(a.is_suppressed(r), b.is_suppressed(r), "row {} at {:?}", r, levels);
            }
        }
    }
}

/// The 8-person table of paper 002 with serious illness confidential for everyone and a
/// quarter of the rows suppressible. ARX-style suppression picked the two ill persons and
/// released their health; a recipient who placed the six others learnt they were ill.
fn linking8_with_suppression(dir: &Path) -> Config {
    let src = common::examples().join("papers");
    std::fs::copy(src.join("linking8.csv"), dir.join("linking8.csv")).unwrap();
    let text = std::fs::read_to_string(src.join("linking8.toml")).unwrap();
    let text = text
        .replace(
            "formulas = { ill = \"health = 2\", rich_ill = \"income > 300K and health in {1, 2}\" }",
            "formulas = { ill = \"health = 2\" }",
        )
        .replace("file = \"linking8-con.csv\"\n", "")
        .replace("[input]", "suppression_limit = 0.25\n[input]")
        .replace("algorithm = \"minimal\"", "algorithm = \"optimal\"");
    assert!(text.contains("suppression_limit = 0.25") && !text.contains("rich_ill"));
    let path = dir.join("linking8.toml");
    std::fs::write(&path, text).unwrap();
    Config::from_file(&path).unwrap()
}

/// The issue's reproducer: the release neither shows the suppressed persons' health nor
/// chooses them by it, and no one's illness can be deduced from the file.
#[test]
fn suppressed_rows_do_not_betray_the_ill() {
    let dir = tempfile::tempdir().unwrap();
    let config = linking8_with_suppression(dir.path());
    let problem = config.problem().unwrap();
    // levels (0,0,0): every class has one person; suppressing 2 of 8 singletons would
    // need a choice among equals, so the public rule suppresses none and the node is unsafe
    let e = problem.evaluate(&[0, 0, 0]).unwrap();
    assert_eq!(e.suppressed_rows, 0);
    assert!(!e.acceptable);
    let out = dir.path().join("out.csv");
    let report = release_to(&config, &out);
    assert!(report.found);
    assert!(report.audit.as_ref().unwrap().passed);
    // what the choice of transformation tells is said
    assert!(
        report
            .warnings
            .iter()
            .any(|w| w.contains("every better one failed")),
        "{:?}",
        report.warnings
    );
    let rows: Vec<Vec<String>> = {
        let mut rdr = csv::Reader::from_path(&out).unwrap();
        rdr.records()
            .map(|r| r.unwrap().iter().map(String::from).collect())
            .collect()
    };
    // whoever is suppressed shows nothing; whoever shows health 2 is in a class that also
    // holds someone who is not seriously ill
    let health = 4;
    for row in &rows {
        if row[..3].iter().all(|c| c == "*") {
            assert!(row.iter().all(|c| c == "*"), "{row:?}");
        } else if row[health] == "2" {
            let mates = rows
                .iter()
                .filter(|r| r[..3] == row[..3] && r[health] != "2")
                .count();
            assert!(mates > 0, "{row:?} is alone with its illness");
        }
    }
}

/// Rows are written in a seeded random order: the same seed gives the same file, another
/// seed another order; `keep_order` keeps the input's and says so; the mapping leads each
/// released row back to its input line.
#[test]
fn row_order_is_seeded_and_the_mapping_leads_back() {
    let src = common::examples().join("adult");
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut config = Config::from_file(&src.join("adult.toml")).unwrap();
    let run = |config: &Config, name: &str, mapping: bool| {
        let outputs = Outputs {
            table: Some(d.join(format!("{name}.csv"))),
            report: None,
            mapping: mapping.then(|| d.join(format!("{name}.map.csv"))),
        };
        let report = job::anonymize(config, &outputs, &cellsafe::observer::Silent).unwrap();
        (
            std::fs::read_to_string(d.join(format!("{name}.csv"))).unwrap(),
            report,
        )
    };
    config.output.seed = Some(7);
    let (a, ra) = run(&config, "a", true);
    let (b, _) = run(&config, "b", false);
    assert_eq!(a, b, "same seed, same file");
    assert_eq!(ra.layout.as_ref().unwrap().seed, Some(7));
    assert!(ra
        .warnings
        .iter()
        .any(|w| w.contains("fixed [output] seed")));
    config.output.seed = Some(8);
    let (c, _) = run(&config, "c", false);
    assert_ne!(a, c, "another seed, another order");
    let sorted = |s: &str| {
        let mut lines: Vec<&str> = s.lines().collect();
        lines.sort();
        lines.join("\n")
    };
    assert_eq!(sorted(&a), sorted(&c), "the same rows");
    config.output.seed = None;
    let (fresh, rf) = run(&config, "fresh", false);
    assert!(rf.layout.as_ref().unwrap().seed.is_some());
    assert!(
        !rf.warnings.iter().any(|w| w.contains("seed")),
        "{:?}",
        rf.warnings
    );
    assert_eq!(sorted(&fresh), sorted(&a));
    config.output.keep_order = true;
    let (kept, rk) = run(&config, "kept", false);
    assert!(rk.layout.as_ref().unwrap().keep_order);
    assert!(rk.warnings.iter().any(|w| w.contains("input order")));
    // the mapping: a permutation of the input lines, each released row showing that line's
    // sensitive value (occupation) unless suppressed
    let input: Vec<String> = std::fs::read_to_string(src.join("adult.csv"))
        .unwrap()
        .lines()
        .map(String::from)
        .collect();
    let occupation_in = input[0].split(';').position(|h| h == "occupation").unwrap();
    let released: Vec<&str> = a.lines().collect();
    let occupation_out = released[0]
        .split(';')
        .position(|h| h == "occupation")
        .unwrap();
    let mapping = std::fs::read_to_string(d.join("a.map.csv")).unwrap();
    let mut lines: Vec<usize> = Vec::new();
    for (i, m) in mapping.lines().skip(1).enumerate() {
        let (row, line) = m.split_once(',').unwrap();
        assert_eq!(row.parse::<usize>().unwrap(), i + 1);
        let line: usize = line.parse().unwrap();
        let shown = released[i + 1].split(';').nth(occupation_out).unwrap();
        let truth = input[line - 1].split(';').nth(occupation_in).unwrap();
        assert!(shown == truth || shown == "*", "row {} line {line}", i + 1);
        lines.push(line);
    }
    lines.sort();
    assert_eq!(lines, (2..=input.len()).collect::<Vec<_>>());
    // kept order: released row i is input line i + 1
    for (i, row) in kept.lines().skip(1).enumerate() {
        let shown = row.split(';').nth(occupation_out).unwrap();
        let truth = input[i + 1].split(';').nth(occupation_in).unwrap();
        assert!(shown == truth || shown == "*");
    }
}

/// A suppressed row shows nothing but the columns marked public; only an insensitive
/// column may be public. Under k-anonymity (ARX's rule, class sizes only) the report does
/// not flag suppression as reading sensitive values; under l-diversity it does.
#[test]
fn suppressed_rows_show_public_columns_only() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("t.csv"),
        "name,zip,ward,disease\nann,24126,north,flu\nbob,24127,north,cold\ncid,10411,south,flu\n\
         dan,10412,south,cold\neve,99999,east,hiv\n",
    )
    .unwrap();
    let config = |model: &str, disease_public: bool| {
        format!(
            "suppression_limit = 0.2\n[input]\npath = \"t.csv\"\n[attributes.name]\nrole = \"identifying\"\n\
             [attributes.zip]\nrole = \"quasi-identifying\"\nhierarchy = {{ kind = \"mask\" }}\n\
             [attributes.ward]\nrole = \"insensitive\"\npublic = true\n\
             [attributes.disease]\nrole = \"sensitive\"\npublic = {disease_public}\n{model}[output]\nseed = 1\n"
        )
    };
    let k2 = "[[privacy]]\nmodel = \"k-anonymity\"\nk = 2\n";
    std::fs::write(d.join("t.toml"), config(k2, false)).unwrap();
    let c = Config::from_file(&d.join("t.toml")).unwrap();
    let out = d.join("out.csv");
    let report = release_to(&c, &out);
    assert_eq!(report.suppressed_rows, 1, "eve's class of one");
    assert!(
        !report
            .layout
            .as_ref()
            .unwrap()
            .suppression_read_sensitive_values
    );
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(text.lines().any(|l| l == "*,east,*"), "{text}");
    assert!(!text.contains("hiv") && !text.contains("99999"), "{text}");
    // l-diversity: which classes fail depends on the diseases, and the report says so
    let l2 = "[[privacy]]\nmodel = \"distinct-l-diversity\"\nattribute = \"disease\"\nl = 2\n";
    std::fs::write(d.join("t.toml"), config(l2, false)).unwrap();
    let c = Config::from_file(&d.join("t.toml")).unwrap();
    let report = release_to(&c, &out);
    assert_eq!(report.suppressed_rows, 1, "eve's class has one disease");
    assert!(
        report
            .layout
            .as_ref()
            .unwrap()
            .suppression_read_sensitive_values
    );
    assert!(report
        .warnings
        .iter()
        .any(|w| w.contains("sensitive values")));
    // a sensitive column cannot be public
    std::fs::write(d.join("t.toml"), config(k2, true)).unwrap();
    let err = Config::from_file(&d.join("t.toml"))
        .unwrap()
        .problem()
        .unwrap_err()
        .to_string();
    assert!(err.contains("attributes.disease.public"), "{err}");
}

/// The pool of suppressed rows is judged as released: a suppressed row still shows its
/// public cells, so a formula over a public column is learnt of a person suppressed alone.
/// Eve is the only one in ward east and holds `ward = east` confidential; suppressing her
/// singleton class (the smallest, within the limit of one row) still shows `east`.
#[test]
fn the_pool_of_suppressed_rows_is_checked_as_released() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("t.csv"),
        "name,zip,ward,disease,con\nann,24126,north,flu,\nbob,24127,north,cold,\n\
         cid,10411,south,flu,\ndan,10412,south,cold,\neve,99999,east,hiv,east\n",
    )
    .unwrap();
    let text = |public: bool| {
        format!(
            "suppression_limit = 0.2\n[input]\npath = \"t.csv\"\n\
             [attributes.name]\nrole = \"identifying\"\n[attributes.con]\nrole = \"identifying\"\n\
             [attributes.zip]\nrole = \"quasi-identifying\"\nhierarchy = {{ kind = \"mask\" }}\n\
             [attributes.ward]\nrole = \"insensitive\"\npublic = {public}\n\
             [attributes.disease]\nrole = \"sensitive\"\n\
             [[privacy]]\nmodel = \"logical-safety\"\n\
             [safety]\nformulas = {{ east = \"ward = east\", ill = \"disease = hiv\" }}\n\
             default = [\"ill\"]\ncolumn = \"con\"\nkey = \"name\"\n"
        )
    };
    std::fs::write(d.join("t.toml"), text(true)).unwrap();
    let p = Config::from_file(&d.join("t.toml"))
        .unwrap()
        .problem()
        .unwrap();
    // zip level 1: classes 2412*, 1041*, 9999*; eve's is suppressed
    let e = p.evaluate(&[1]).unwrap();
    assert_eq!(e.suppressed_rows, 1);
    assert!(!e.acceptable, "the pool shows `east` of eve");
    // with ward starred in suppressed rows, suppressing eve hides both formulas
    std::fs::write(d.join("t.toml"), text(false)).unwrap();
    let p = Config::from_file(&d.join("t.toml"))
        .unwrap()
        .problem()
        .unwrap();
    let e = p.evaluate(&[1]).unwrap();
    assert_eq!(e.suppressed_rows, 1);
    assert!(e.acceptable);
}

/// The column of CON sets tells who holds what confidential: left unlisted it is removed,
/// listed as anything but identifying it is refused. Other unlisted columns are released
/// with a warning naming them.
#[test]
fn the_con_column_is_never_released() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("t.csv"),
        "name,zip,note,disease,con\nann,24126,a,flu,\nbob,24127,b,cold,\n\
         cid,10411,c,flu,\ndan,10412,d,cold,\neve,10413,e,hiv,ill\n",
    )
    .unwrap();
    let text = |con: &str| {
        format!(
            "[input]\npath = \"t.csv\"\n[attributes.name]\nrole = \"identifying\"\n{con}\
             [attributes.zip]\nrole = \"quasi-identifying\"\nhierarchy = {{ kind = \"mask\" }}\n\
             [attributes.disease]\nrole = \"sensitive\"\n\
             [[privacy]]\nmodel = \"logical-safety\"\n\
             [safety]\nformulas = {{ ill = \"disease = hiv\" }}\ncolumn = \"con\"\nkey = \"name\"\n"
        )
    };
    std::fs::write(d.join("t.toml"), text("")).unwrap();
    let config = Config::from_file(&d.join("t.toml")).unwrap();
    let out = d.join("out.csv");
    let report = release_to(&config, &out);
    let header = std::fs::read_to_string(&out)
        .unwrap()
        .lines()
        .next()
        .unwrap()
        .to_owned();
    assert_eq!(header, "zip,note,disease");
    assert!(
        report
            .warnings
            .iter()
            .any(|w| w.contains("released as they are: note")),
        "{:?}",
        report.warnings
    );
    std::fs::write(
        d.join("t.toml"),
        text("[attributes.con]\nrole = \"insensitive\"\n"),
    )
    .unwrap();
    let err = Config::from_file(&d.join("t.toml"))
        .unwrap()
        .problem()
        .unwrap_err()
        .to_string();
    assert!(err.contains("safety.column"), "{err}");
}

/// A public column is known to the recipient. One that tells persons apart inside a class
/// (a region per person) links every row to its person, so the audit, which groups rows by
/// public cells too, refuses the release and nothing is written.
#[test]
fn a_public_column_that_singles_persons_out_fails_the_audit() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("d.csv"),
        "name,age,region,disease\nAnn,21,north,hiv\nBob,22,south,flu\nCat,23,east,hiv\n\
         Dan,24,west,cold\nEve,31,nw,flu\nFay,32,ne,hiv\n",
    )
    .unwrap();
    for model in [
        "[[privacy]]\nmodel = \"logical-safety\"\n[safety]\nformulas = { hiv = \"disease = hiv\" }\ndefault = [\"hiv\"]\n",
        "[[privacy]]\nmodel = \"k-anonymity\"\nk = 2\n",
    ] {
        std::fs::write(
            d.join("j.toml"),
            format!(
                "[input]\npath = \"d.csv\"\n[attributes.name]\nrole = \"identifying\"\n\
                 [attributes.age]\nrole = \"quasi-identifying\"\nhierarchy = {{ kind = \"intervals\", widths = [10, 20] }}\n\
                 [attributes.region]\nrole = \"insensitive\"\npublic = true\n\
                 [attributes.disease]\nrole = \"sensitive\"\n{model}"
            ),
        )
        .unwrap();
        let config = Config::from_file(&d.join("j.toml")).unwrap();
        let out = d.join("out.csv");
        let outputs = Outputs {
            table: Some(out.clone()),
            report: Some(d.join("r.json")),
            mapping: None,
        };
        let err = job::anonymize(&config, &outputs, &cellsafe::observer::Silent).unwrap_err().to_string();
        assert!(err.contains("audit") && err.contains("public columns (region)"), "{err}");
        assert!(!out.exists() && !d.join("r.json").exists());
    }
}

/// The set-based search says what its widened cells tell a recipient who knows it, and
/// refuses microaggregated output, which it cannot produce.
#[test]
fn set_based_releases_say_what_widening_tells() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let src = common::examples().join("papers");
    for f in ["linking8.csv", "linking8-con.csv", "linking8-setbased.toml"] {
        std::fs::copy(src.join(f), d.join(f)).unwrap();
    }
    let config = Config::from_file(&d.join("linking8-setbased.toml")).unwrap();
    let report = release_to(&config, &d.join("out.csv"));
    assert!(report.found);
    assert!(
        report
            .warnings
            .iter()
            .any(|w| w.contains("widens the cells")),
        "{:?}",
        report.warnings
    );
    let text = std::fs::read_to_string(d.join("linking8-setbased.toml")).unwrap();
    std::fs::write(
        d.join("micro.toml"),
        format!("{text}\n[output]\nvalues = \"microaggregation\"\n"),
    )
    .unwrap();
    let config = Config::from_file(&d.join("micro.toml")).unwrap();
    let outputs = Outputs {
        table: Some(d.join("out.csv")),
        ..Outputs::default()
    };
    let err = job::anonymize(&config, &outputs, &cellsafe::observer::Silent)
        .unwrap_err()
        .to_string();
    assert!(err.contains("output.values"), "{err}");
}

/// The report's shuffle seed undoes the shuffle when read as JavaScript or jq read a JSON
/// number (into a 64-bit float): a fresh seed is drawn below 2^53, and a configured one at
/// or above it is refused by name.
#[test]
fn the_reported_seed_survives_a_float_reader() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut data = String::from("id,zip,age\n");
    for i in 0..60 {
        data.push_str(&format!("{i},{},{}\n", 10000 + i % 7, 20 + i % 11));
    }
    std::fs::write(d.join("data.csv"), data).unwrap();
    let text = r#"suppression_limit = 0.0
[input]
path = "data.csv"
[attributes.id]
role = "insensitive"
[attributes.zip]
role = "quasi-identifying"
hierarchy = { kind = "mask" }
[attributes.age]
role = "quasi-identifying"
hierarchy = { kind = "mask" }
[[privacy]]
model = "k-anonymity"
k = 2
"#;
    let mut config = Config::parse(text, &d.join("job.toml")).unwrap();
    let run = |config: &Config, name: &str| -> (String, serde_json::Value) {
        let outputs = Outputs {
            table: Some(d.join(format!("{name}.csv"))),
            report: Some(d.join(format!("{name}.json"))),
            mapping: None,
        };
        job::anonymize(config, &outputs, &cellsafe::observer::Silent).unwrap();
        let report = std::fs::read_to_string(d.join(format!("{name}.json"))).unwrap();
        (
            std::fs::read_to_string(d.join(format!("{name}.csv"))).unwrap(),
            serde_json::from_str(&report).unwrap(),
        )
    };
    for round in 0..4 {
        config.output.seed = None;
        let (fresh, report) = run(&config, "fresh");
        // what JavaScript's JSON.parse gives: the nearest double
        let seed = report["layout"]["seed"].as_f64().unwrap();
        assert!(seed < 9007199254740992.0, "round {round}: {seed}");
        config.output.seed = Some(seed as u64);
        let (again, report) = run(&config, "again");
        assert_eq!(report["layout"]["seed"].as_f64(), Some(seed));
        assert_eq!(
            fresh, again,
            "round {round}: the float seed gives the same order"
        );
    }
    // a configured seed a float cannot hold is refused, named by its key
    let big = format!("{text}[output]\nseed = 9007199254740993\n");
    let e = Config::parse(&big, &d.join("job.toml"))
        .and_then(|c| job::anonymize(&c, &Outputs::default(), &cellsafe::observer::Silent))
        .unwrap_err()
        .to_string();
    assert!(e.contains("output.seed") && e.contains("2^53"), "{e}");
    let top = format!("{text}[output]\nseed = 9007199254740991\n");
    let c = Config::parse(&top, &d.join("job.toml")).unwrap();
    assert_eq!(c.output.seed, Some((1 << 53) - 1));
}
