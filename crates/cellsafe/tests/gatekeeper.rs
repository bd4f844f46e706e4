//! The gatekeeper's decisions: answers judged together with what their recipient already
//! holds, checked against an independent oracle that enumerates every table the recipient
//! could still believe in after the answers they actually received.

use std::collections::BTreeMap;
use std::path::Path;

use cellsafe::gatekeeper::{Answer, Center, Condition, Knowledge, Outcome, Request, Test};
use cellsafe::job::config::Config;
use cellsafe::Table;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Hierarchies the oracle knows by heart: age 1..4 → low/high → *, zip a,b,c → ab/c → *.
const AGE: &[(&str, &str)] = &[("1", "low"), ("2", "low"), ("3", "high"), ("4", "high")];
const ZIP: &[(&str, &str)] = &[("a", "ab"), ("b", "ab"), ("c", "c")];
const DISEASES: [&str; 3] = ["x", "y", "z"];

fn label(table: &[(&str, &str)], value: &str, level: u8) -> String {
    match level {
        0 => value.to_string(),
        1 => table
            .iter()
            .find(|(v, _)| *v == value)
            .unwrap()
            .1
            .to_string(),
        _ => "*".to_string(),
    }
}

fn write_hierarchy(dir: &Path, name: &str, table: &[(&str, &str)]) {
    let text: String = table.iter().map(|(v, g)| format!("{v};{g};*\n")).collect();
    std::fs::write(dir.join(name), text).unwrap();
}

const CONFIG: &str = r#"
[input]
path = "unused.csv"

[attributes.name]
role = "identifying"

[attributes.zip]
role = "quasi-identifying"
hierarchy = "zip.csv"

[attributes.age]
role = "quasi-identifying"
hierarchy = "age.csv"

[attributes.disease]
role = "sensitive"

[safety]
formulas = { has_x = "disease = x", old_x = "age >= 3 and disease = x" }
domain = { disease = ["x", "y", "z"] }
"#;

/// A center over `rows` of (zip, age, disease), persons named p0, p1, ..., everyone
/// holding `has_x` (disease x) confidential.
fn center(dir: &Path, rows: &[(&str, &str, &str)], extra: &str) -> Center {
    center_holding(dir, rows, "has_x", extra)
}

/// The same, everyone holding formula `con` confidential.
fn center_holding(dir: &Path, rows: &[(&str, &str, &str)], con: &str, extra: &str) -> Center {
    write_hierarchy(dir, "age.csv", AGE);
    write_hierarchy(dir, "zip.csv", ZIP);
    let text = CONFIG.replace("domain = {", &format!("default = [\"{con}\"]\ndomain = {{"));
    let config = Config::parse(&format!("{text}{extra}"), &dir.join("center.toml")).unwrap();
    let header = ["name", "zip", "age", "disease"].map(String::from).to_vec();
    let values: Vec<Vec<String>> = rows
        .iter()
        .enumerate()
        .map(|(i, (z, a, d))| vec![format!("p{i}"), z.to_string(), a.to_string(), d.to_string()])
        .collect();
    let table = Table::from_rows(header, &values).unwrap();
    cellsafe::job::gatekeeper::center(&config, table).unwrap()
}

fn request(columns: &[&str], conditions: Vec<Condition>) -> Request {
    Request {
        columns: columns.iter().map(|c| c.to_string()).collect(),
        conditions,
    }
}

fn cond(column: &str, test: Test) -> Condition {
    Condition {
        column: column.into(),
        test,
    }
}

/// Asks `r` (rows computed in memory, as the database would) and adds what was released
/// to `k`.
fn ask(c: &Center, k: &mut Knowledge, r: &Request, seed: u64) -> Answer {
    let rows = c.matching_rows(&r.conditions).unwrap();
    let a = c.answer(k, r, &rows, seed).unwrap();
    if let Some(d) = &a.disclosure {
        c.apply(k, d);
    }
    a
}

/// Differencing: two answers without any quasi-identifier, each safe alone; together they
/// give away the disease of the only person aged 3, so the second is refused.
#[test]
fn a_difference_of_two_safe_answers_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let rows = [
        ("a", "1", "y"),
        ("b", "2", "z"),
        ("c", "3", "x"),
        ("a", "4", "y"),
        ("b", "4", "z"),
        ("c", "4", "x"),
    ];
    let c = center(dir.path(), &rows, "");
    let q1 = request(&["disease"], vec![cond("age", Test::Ge("3".into()))]);
    let q2 = request(&["disease"], vec![cond("age", Test::Gt("3".into()))]);
    // each alone, for a recipient who holds nothing
    for q in [&q1, &q2] {
        let a = ask(&c, &mut c.fresh_knowledge(), q, 1);
        assert_eq!(a.verdict.outcome, Outcome::Released, "{q:?}");
    }
    let mut k = c.fresh_knowledge();
    assert_eq!(ask(&c, &mut k, &q1, 1).verdict.outcome, Outcome::Released);
    let before = k.clone();
    let a = ask(&c, &mut k, &q2, 2);
    assert_eq!(a.verdict.outcome, Outcome::Refused);
    assert!(a.rows.is_empty() && a.disclosure.is_none());
    assert!(
        a.verdict.failures[0].contains("logical safety"),
        "{:?}",
        a.verdict
    );
    assert_eq!(k, before, "a refusal adds nothing to the knowledge");
}

/// Two answers that link through a shared column: the second is generalized until the
/// combination is safe.
#[test]
fn a_linking_answer_is_generalized() {
    let dir = tempfile::tempdir().unwrap();
    // zip alone leaves each zip with two diseases; zip and age together single out p0
    let rows = [
        ("a", "1", "x"),
        ("a", "3", "y"),
        ("c", "1", "y"),
        ("c", "3", "x"),
        ("c", "3", "z"),
    ];
    let c = center(dir.path(), &rows, "");
    let q1 = request(&["zip", "disease"], vec![]);
    let q2 = request(&["zip", "age"], vec![]);
    let mut k = c.fresh_knowledge();
    let a1 = ask(&c, &mut k, &q1, 1);
    assert_eq!(a1.verdict.outcome, Outcome::Released);
    assert_eq!(
        ask(&c, &mut c.fresh_knowledge(), &q2, 1).verdict.outcome,
        Outcome::Released,
        "safe alone"
    );
    let a = ask(&c, &mut k, &q2, 2);
    assert_eq!(a.verdict.outcome, Outcome::Generalized, "{:?}", a.verdict);
    assert!(a.verdict.generalized_cells > 0 && a.verdict.loss > 0.0);
    assert_oracle_safe(&rows, &[(q1, a1), (q2, a)]);
}

/// The answer's rows come in an order drawn from the seed: the same seed gives the same
/// order, different seeds (almost always) different orders, and the rows are the same.
#[test]
fn rows_come_in_a_fresh_order_per_seed() {
    let dir = tempfile::tempdir().unwrap();
    let rows: Vec<(&str, &str, &str)> = (0..40)
        .map(|i| (ZIP[i % 3].0, AGE[i % 4].0, DISEASES[i % 3]))
        .collect();
    let c = center(dir.path(), &rows, "");
    let q = request(&["zip", "age", "disease"], vec![]);
    let k = c.fresh_knowledge();
    let all = c.matching_rows(&[]).unwrap();
    let a = c.answer(&k, &q, &all, 7).unwrap();
    let b = c.answer(&k, &q, &all, 7).unwrap();
    let d = c.answer(&k, &q, &all, 8).unwrap();
    assert_eq!(a.rows, b.rows);
    assert_ne!(a.rows, d.rows);
    let (mut x, mut y) = (a.rows.clone(), d.rows.clone());
    x.sort();
    y.sort();
    assert_eq!(x, y);
}

/// The filter drops identifying columns; a condition on one, unknown columns and
/// ordering on text are errors.
#[test]
fn the_filter_and_bad_queries() {
    let dir = tempfile::tempdir().unwrap();
    let rows = [("a", "1", "x"), ("b", "2", "y"), ("c", "3", "z")];
    let c = center(dir.path(), &rows, "");
    let k = c.fresh_knowledge();
    let a = c
        .answer(&k, &request(&["name", "zip"], vec![]), &[0, 1, 2], 1)
        .unwrap();
    assert_eq!(a.columns, ["zip"]);
    assert_eq!(a.verdict.dropped, ["name"]);
    for (r, text) in [
        (request(&["name"], vec![]), "no column"),
        (request(&["nope"], vec![]), "unknown column `nope`"),
        (
            request(&["zip"], vec![cond("name", Test::Eq("p0".into()))]),
            "identifying",
        ),
        (
            request(&["zip"], vec![cond("zip", Test::Lt("b".into()))]),
            "not numeric",
        ),
        (
            request(&["zip"], vec![cond("age", Test::Lt("old".into()))]),
            "not a number",
        ),
    ] {
        let e = c.answer(&k, &r, &[], 1).unwrap_err().to_string();
        assert!(e.contains(text), "{e}");
    }
}

/// A class-based model judges each answer's own classes: with 2-anonymity, an answer of one
/// row cannot be released; one of two rows can when they are generalized alike.
#[test]
fn class_based_models_judge_the_answer() {
    let dir = tempfile::tempdir().unwrap();
    let rows = [
        ("a", "1", "x"),
        ("b", "2", "y"),
        ("c", "3", "z"),
        ("c", "4", "y"),
    ];
    let c = center(
        dir.path(),
        &rows,
        "\n[[privacy]]\nmodel = \"k-anonymity\"\nk = 2\n",
    );
    let k = c.fresh_knowledge();
    let one = request(&["age"], vec![cond("age", Test::Eq("2".into()))]);
    let a = c
        .answer(&k, &one, &c.matching_rows(&one.conditions).unwrap(), 1)
        .unwrap();
    assert_eq!(a.verdict.outcome, Outcome::Refused);
    assert!(
        a.verdict.failures.iter().any(|f| f.contains("2-anonymity")),
        "{:?}",
        a.verdict
    );
    let two = request(&["zip", "age"], vec![cond("age", Test::Le("2".into()))]);
    let a = c
        .answer(&k, &two, &c.matching_rows(&two.conditions).unwrap(), 1)
        .unwrap();
    assert_eq!(a.verdict.outcome, Outcome::Generalized, "{:?}", a.verdict);
    assert_eq!(a.rows.len(), 2);
    assert_eq!(a.rows[0], a.rows[1], "both rows look alike");
}

// ---------------------------------------------------------------------------------------
// The oracle: every assignment of diseases to persons (their public values are known) that
// would have produced exactly the answers received, as multisets of rows.

/// The values a released cell allows, read as the recipient reads it: a hierarchy label at
/// the answer's level, `*`, `[lo,hi]`, `{a,b}` or a value.
fn allowed(column: &str, text: &str, level: u8) -> Vec<String> {
    let (table, domain): (&[(&str, &str)], Vec<&str>) = match column {
        "zip" => (ZIP, ZIP.iter().map(|z| z.0).collect()),
        "age" => (AGE, AGE.iter().map(|a| a.0).collect()),
        _ => (&[], DISEASES.to_vec()),
    };
    let all = || domain.iter().map(|v| v.to_string()).collect();
    if level > 0 {
        return domain
            .iter()
            .filter(|v| label(table, v, level) == text)
            .map(|v| v.to_string())
            .collect();
    }
    if text == "*" {
        return all();
    }
    if let Some(range) = text.strip_prefix('[').and_then(|t| t.strip_suffix(']')) {
        let (lo, hi) = range.split_once(',').unwrap();
        let (lo, hi): (f64, f64) = (lo.parse().unwrap(), hi.parse().unwrap());
        return domain
            .iter()
            .filter(|v| (lo..=hi).contains(&v.parse::<f64>().unwrap()))
            .map(|v| v.to_string())
            .collect();
    }
    if let Some(set) = text.strip_prefix('{').and_then(|t| t.strip_suffix('}')) {
        return set.split(',').map(String::from).collect();
    }
    vec![text.to_string()]
}

/// Whether person `u` passes the request's conditions when the persons' diseases are
/// `world`.
fn passes(rows: &[(&str, &str, &str)], world: &[&str], u: usize, r: &Request) -> bool {
    let value = |column: &str| match column {
        "zip" => rows[u].0.to_string(),
        "age" => rows[u].1.to_string(),
        _ => world[u].to_string(),
    };
    r.conditions.iter().all(|c| {
        let v = value(&c.column);
        let num = |s: &str| s.parse::<f64>().unwrap();
        match &c.test {
            Test::Eq(l) => v == *l,
            Test::Ne(l) => v != *l,
            Test::In(ls) => ls.contains(&v),
            Test::NotIn(ls) => !ls.contains(&v),
            Test::Lt(l) => num(&v) < num(l),
            Test::Le(l) => num(&v) <= num(l),
            Test::Gt(l) => num(&v) > num(l),
            Test::Ge(l) => num(&v) >= num(l),
            Test::Between(lo, hi) => num(lo) <= num(&v) && num(&v) <= num(hi),
            Test::NotBetween(lo, hi) => !(num(lo) <= num(&v) && num(&v) <= num(hi)),
        }
    })
}

/// Whether answer `a` to `r` could have come from the table where the persons' diseases
/// are `world`: the persons passing the conditions can be matched one to one with the
/// released rows, each person's values lying in their row's cells.
fn could_produce(rows: &[(&str, &str, &str)], world: &[&str], r: &Request, a: &Answer) -> bool {
    let persons: Vec<usize> = (0..rows.len())
        .filter(|&u| passes(rows, world, u, r))
        .collect();
    if persons.len() != a.rows.len() {
        return false;
    }
    let cells: Vec<Vec<Vec<String>>> = a
        .rows
        .iter()
        .map(|row| {
            a.columns
                .iter()
                .zip(row)
                .map(|(col, text)| {
                    allowed(col, text, a.verdict.levels.get(col).copied().unwrap_or(0))
                })
                .collect()
        })
        .collect();
    let fits = |u: usize, row: usize| {
        a.columns.iter().enumerate().all(|(c, col)| {
            let v = match col.as_str() {
                "zip" => rows[u].0,
                "age" => rows[u].1,
                _ => world[u],
            };
            cells[row][c].iter().any(|x| x == v)
        })
    };
    // Kuhn's augmenting paths
    fn augment(
        p: usize,
        persons: &[usize],
        fits: &dyn Fn(usize, usize) -> bool,
        owner: &mut Vec<Option<usize>>,
        seen: &mut Vec<bool>,
    ) -> bool {
        for row in 0..owner.len() {
            if !seen[row] && fits(persons[p], row) {
                seen[row] = true;
                if owner[row].is_none_or(|q| augment(q, persons, fits, owner, seen)) {
                    owner[row] = Some(p);
                    return true;
                }
            }
        }
        false
    }
    let mut owner = vec![None; a.rows.len()];
    (0..persons.len()).all(|p| {
        augment(
            p,
            &persons,
            &fits,
            &mut owner,
            &mut vec![false; a.rows.len()],
        )
    })
}

/// Whether person `u` satisfies confidential formula `con` when the diseases are `world`.
fn holds(con: &str, rows: &[(&str, &str, &str)], world: &[&str], u: usize) -> bool {
    match con {
        "has_x" => world[u] == "x",
        "old_x" => rows[u].1.parse::<u32>().unwrap() >= 3 && world[u] == "x",
        _ => unreachable!(),
    }
}

/// Persons of whom `con` holds in every world consistent with the released answers.
fn known_of(rows: &[(&str, &str, &str)], answers: &[(Request, Answer)], con: &str) -> Vec<usize> {
    let n = rows.len();
    // the recipient knows the domain (`[safety] domain`)
    let domain = DISEASES;
    let truth: Vec<&str> = rows.iter().map(|r| r.2).collect();
    let mut always_x = vec![true; n];
    let mut consistent_worlds = 0;
    let mut truth_consistent = false;
    let total = domain.len().pow(n as u32);
    for mut code in 0..total {
        let world: Vec<&str> = (0..n)
            .map(|_| {
                let d = domain[code % domain.len()];
                code /= domain.len();
                d
            })
            .collect();
        let consistent = answers
            .iter()
            .filter(|(_, a)| a.disclosure.is_some())
            .all(|(r, a)| could_produce(rows, &world, r, a));
        if consistent {
            consistent_worlds += 1;
            truth_consistent |= world == truth;
            for (u, always) in always_x.iter_mut().enumerate() {
                *always &= holds(con, rows, &world, u);
            }
        }
    }
    assert!(
        truth_consistent && consistent_worlds > 0,
        "the oracle lost the truth"
    );
    (0..n).filter(|&u| always_x[u]).collect()
}

fn assert_oracle_safe(rows: &[(&str, &str, &str)], answers: &[(Request, Answer)]) {
    assert_oracle_safe_for(rows, answers, "has_x")
}

fn assert_oracle_safe_for(rows: &[(&str, &str, &str)], answers: &[(Request, Answer)], con: &str) {
    let known = known_of(rows, answers, con);
    assert!(
        known.is_empty(),
        "persons {known:?} are known to have x after {:#?}",
        answers
            .iter()
            .map(|(r, a)| (r, &a.verdict.outcome, &a.verdict.levels, &a.rows))
            .collect::<Vec<_>>()
    );
}

fn random_condition(rng: &mut ChaCha8Rng) -> Condition {
    let pick = |rng: &mut ChaCha8Rng, xs: &[&str]| xs[rng.gen_range(0..xs.len())].to_string();
    let ages = ["1", "2", "3", "4"];
    let zips = ["a", "b", "c"];
    match rng.gen_range(0..7) {
        0 => cond("age", Test::Ge(pick(rng, &ages))),
        1 => cond("age", Test::Lt(pick(rng, &ages))),
        2 => cond("age", Test::Eq(pick(rng, &ages))),
        3 => cond("zip", Test::Eq(pick(rng, &zips))),
        4 => cond("zip", Test::NotIn(vec![pick(rng, &zips)])),
        5 => cond("disease", Test::Ne(pick(rng, &DISEASES))),
        _ => cond("disease", Test::Eq(pick(rng, &DISEASES))),
    }
}

/// A random request: some of the columns (at least one), up to two conditions drawn by
/// `condition`.
fn random_request(rng: &mut ChaCha8Rng, condition: fn(&mut ChaCha8Rng) -> Condition) -> Request {
    let mut columns: Vec<&str> = ["zip", "age", "disease"]
        .into_iter()
        .filter(|_| rng.gen_bool(0.6))
        .collect();
    if columns.is_empty() {
        columns.push("disease");
    }
    let conditions = (0..rng.gen_range(0..=2)).map(|_| condition(rng)).collect();
    request(&columns, conditions)
}

/// Soundness against the oracle: after every answer the gatekeeper releases, on random
/// small tables and random query sequences, no person's confidential formula holds in every
/// table the recipient could still believe in.
#[test]
fn released_answers_never_let_the_recipient_know_a_confidential_formula() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(16);
    let mut outcomes = BTreeMap::new();
    for _ in 0..400 {
        let n = rng.gen_range(3..=6);
        let rows: Vec<(&str, &str, &str)> = (0..n)
            .map(|_| {
                (
                    ZIP[rng.gen_range(0..3)].0,
                    AGE[rng.gen_range(0..4)].0,
                    DISEASES[rng.gen_range(0..3)],
                )
            })
            .collect();
        // every generalization method in turn: the default (levels, radius, the exact
        // search), the merge in place of the exact search, levels alone, radius alone
        let variant = [
            "",
            "\n[gatekeeper]\nmax_exact_rows = 0\n",
            "\n[gatekeeper]\ngeneralization = \"levels\"\n",
            "\n[gatekeeper]\ngeneralization = \"sets\"\nmax_exact_rows = 0\nmax_merge_rounds = 0\n\
             radius = { age = 0.5 }\n",
        ][rng.gen_range(0..4)];
        // the confidential formula: over the disease alone, or also over the public age
        let con = ["has_x", "old_x"][rng.gen_range(0..2)];
        let c = center_holding(dir.path(), &rows, con, variant);
        let mut k = c.fresh_knowledge();
        let mut answers: Vec<(Request, Answer)> = Vec::new();
        for step in 0..rng.gen_range(1..=4) {
            let r = random_request(&mut rng, random_condition);
            let a = ask(&c, &mut k, &r, step);
            *outcomes
                .entry(format!("{:?}", a.verdict.outcome))
                .or_insert(0) += 1;
            *outcomes
                .entry(format!("{:?}", a.verdict.method))
                .or_insert(0) += 1;
            answers.push((r, a));
            assert_oracle_safe_for(&rows, &answers, con);
        }
    }
    // the test exercises every outcome, so it could catch each going wrong
    eprintln!("{outcomes:?}");
    for o in [
        "Released",
        "Generalized",
        "Refused",
        "Levels",
        "Radius",
        "Maximal",
        "Merge",
    ] {
        assert!(outcomes.get(o).copied().unwrap_or(0) >= 5, "{outcomes:?}");
    }
}

/// A formula over a public attribute is decided by each person's own value (paper 002's
/// ν on public attributes): two persons in zip a, both with x, are exposed under "disease
/// x" at any age, under "aged 3 or more with x" only when they are that old.
#[test]
fn public_atoms_are_decided_by_the_persons_own_value() {
    let dir = tempfile::tempdir().unwrap();
    let q = request(&["zip", "disease"], vec![]);
    for (ages, con, outcome) in [
        (["1", "2"], "has_x", Outcome::Generalized),
        (["1", "2"], "old_x", Outcome::Released),
        (["3", "4"], "old_x", Outcome::Generalized),
    ] {
        let rows = [
            ("a", ages[0], "x"),
            ("a", ages[1], "x"),
            ("c", "1", "y"),
            ("c", "2", "z"),
        ];
        let c = center_holding(dir.path(), &rows, con, "");
        let mut k = c.fresh_knowledge();
        let a = ask(&c, &mut k, &q, 1);
        assert_eq!(
            a.verdict.outcome, outcome,
            "{ages:?} {con}: {:?}",
            a.verdict
        );
        assert_oracle_safe_for(&rows, &[(q.clone(), a)], con);
    }
}

/// Outside the gatekeeper, a formula over a quasi-identifier is refused by key: level-based
/// safety decides formulas on records, not on persons.
#[test]
fn formulas_over_public_attributes_are_the_gatekeepers_only() {
    let dir = tempfile::tempdir().unwrap();
    write_hierarchy(dir.path(), "age.csv", AGE);
    write_hierarchy(dir.path(), "zip.csv", ZIP);
    let text = format!(
        "{}\n[[privacy]]\nmodel = \"logical-safety\"\n",
        CONFIG.replace("domain = {", "default = [\"old_x\"]\ndomain = {")
    );
    let config = Config::parse(&text, &dir.path().join("job.toml")).unwrap();
    let header = ["name", "zip", "age", "disease"].map(String::from).to_vec();
    let values = vec![["p0", "a", "1", "x"].map(String::from).to_vec()];
    let e = config
        .dataset(Table::from_rows(header, &values).unwrap())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("safety.formulas.old_x") && e.contains("`age`"),
        "{e}"
    );
}

/// With no work budget beyond the answer as asked and the top of the lattice, the
/// searches stop at once: the answer is the top generalization (safe), not a finer one.
#[test]
fn the_work_budget_bounds_the_searches() {
    let dir = tempfile::tempdir().unwrap();
    let rows = [
        ("a", "1", "x"),
        ("a", "3", "y"),
        ("c", "1", "y"),
        ("c", "3", "x"),
        ("c", "3", "z"),
    ];
    let q = request(&["zip", "age", "disease"], vec![]);
    let full = center(dir.path(), &rows, "");
    let a = ask(&full, &mut full.fresh_knowledge(), &q, 1);
    assert_eq!(a.verdict.outcome, Outcome::Generalized, "{:?}", a.verdict);
    let bounded = center(dir.path(), &rows, "\n[gatekeeper]\nmax_work = 0\n");
    let b = ask(&bounded, &mut bounded.fresh_knowledge(), &q, 1);
    assert_eq!(b.verdict.outcome, Outcome::Generalized, "{:?}", b.verdict);
    assert!(
        b.verdict.tested < a.verdict.tested,
        "{:?} {:?}",
        a.verdict,
        b.verdict
    );
    assert!(
        b.verdict.levels.values().all(|&l| l == 2),
        "{:?}",
        b.verdict
    );
    assert!(b.verdict.loss >= a.verdict.loss);
}

// ---------------------------------------------------------------------------------------
// Decisions from public information only (`decide = "public"`).

const PUBLIC: &str =
    "\n[[privacy]]\nmodel = \"k-anonymity\"\nk = 2\n\n[gatekeeper]\ndecide = \"public\"\n";

/// A random condition on a public column.
fn random_public_condition(rng: &mut ChaCha8Rng) -> Condition {
    loop {
        let c = random_condition(rng);
        if c.column != "disease" {
            return c;
        }
    }
}

/// The independent counter: reads the answers as received (rows, levels) with the public
/// table, gives each person the signature of which answers hold them and the public labels
/// they showed there, and returns the sizes of the signature classes of persons in some
/// answer. It also checks that each answer's public cells are those of the persons its
/// conditions select.
fn signature_classes(rows: &[(&str, &str, &str)], answers: &[(Request, Answer)]) -> Vec<usize> {
    let mut signature: Vec<Vec<(usize, Vec<String>)>> = vec![Vec::new(); rows.len()];
    for (i, (r, a)) in answers.iter().enumerate() {
        if a.verdict.outcome == Outcome::Refused {
            continue;
        }
        let public: Vec<(usize, &str)> = a
            .columns
            .iter()
            .enumerate()
            .filter(|(_, c)| *c != "disease")
            .map(|(p, c)| (p, c.as_str()))
            .collect();
        let level = |c: &str| a.verdict.levels.get(c).copied().unwrap_or(0);
        let mut expected = Vec::new();
        for (u, row) in rows.iter().enumerate() {
            // conditions on public columns: the recipient computes who passes
            if !passes(rows, &vec!["?"; rows.len()], u, r) {
                continue;
            }
            let labels: Vec<String> = public
                .iter()
                .map(|&(_, c)| match c {
                    "zip" => label(ZIP, row.0, level(c)),
                    _ => label(AGE, row.1, level(c)),
                })
                .collect();
            expected.push(labels.clone());
            signature[u].push((i, labels));
        }
        let mut shown: Vec<Vec<String>> = a
            .rows
            .iter()
            .map(|row| public.iter().map(|&(p, _)| row[p].clone()).collect())
            .collect();
        expected.sort();
        shown.sort();
        assert_eq!(shown, expected, "the answer's public cells: {r:?}");
    }
    let mut classes: BTreeMap<&Vec<(usize, Vec<String>)>, usize> = BTreeMap::new();
    for s in signature.iter().filter(|s| !s.is_empty()) {
        *classes.entry(s).or_default() += 1;
    }
    classes.into_values().collect()
}

/// With `decide = "public"`, on random tables and query sequences: the decisions are the
/// same whatever the diseases are (two worlds differing only in them), and everything a
/// recipient receives is 2-anonymous by the independent counter.
#[test]
fn public_decisions_ignore_confidential_values_and_keep_everything_received_k_anonymous() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(17);
    let mut outcomes = BTreeMap::new();
    for _ in 0..300 {
        let n = rng.gen_range(3..=9);
        let public: Vec<(&str, &str)> = (0..n)
            .map(|_| (ZIP[rng.gen_range(0..3)].0, AGE[rng.gen_range(0..4)].0))
            .collect();
        let world = |rng: &mut ChaCha8Rng| -> Vec<(&str, &str, &str)> {
            public
                .iter()
                .map(|&(z, a)| (z, a, DISEASES[rng.gen_range(0..3)]))
                .collect()
        };
        let (rows1, rows2) = (world(&mut rng), world(&mut rng));
        let c1 = center(dir.path(), &rows1, PUBLIC);
        let c2 = center(dir.path(), &rows2, PUBLIC);
        let (mut k1, mut k2) = (c1.fresh_knowledge(), c2.fresh_knowledge());
        let (mut answers1, mut answers2) = (Vec::new(), Vec::new());
        for step in 0..rng.gen_range(1..=4) {
            let r = random_request(&mut rng, random_public_condition);
            let a1 = ask(&c1, &mut k1, &r, step);
            let a2 = ask(&c2, &mut k2, &r, step);
            let (v1, v2) = (&a1.verdict, &a2.verdict);
            assert_eq!(
                (v1.outcome, v1.method, &v1.levels, v1.rows, v1.tested),
                (v2.outcome, v2.method, &v2.levels, v2.rows, v2.tested),
                "{r:?} on {rows1:?} and {rows2:?}"
            );
            *outcomes.entry(format!("{:?}", v1.outcome)).or_insert(0) += 1;
            answers1.push((r.clone(), a1));
            answers2.push((r, a2));
            for (rows, answers) in [(&rows1, &answers1), (&rows2, &answers2)] {
                let sizes = signature_classes(rows, answers);
                assert!(
                    sizes.iter().all(|&s| s >= 2),
                    "classes {sizes:?} after {answers:?} on {rows:?}"
                );
            }
        }
    }
    eprintln!("{outcomes:?}");
    for o in ["Released", "Generalized", "Refused"] {
        assert!(outcomes.get(o).copied().unwrap_or(0) >= 10, "{outcomes:?}");
    }
}

/// The differencing pair under public decisions: refused when the rows it isolates are
/// fewer than k, whatever their diseases; released when they are k or more.
#[test]
fn public_decisions_refuse_differencing_by_row_counts_alone() {
    let dir = tempfile::tempdir().unwrap();
    let q1 = request(&["disease"], vec![cond("age", Test::Ge("3".into()))]);
    let q2 = request(&["disease"], vec![cond("age", Test::Gt("3".into()))]);
    for disease in DISEASES {
        let one = [
            ("a", "1", "y"),
            ("b", "1", "z"),
            ("c", "3", disease),
            ("a", "4", "y"),
            ("b", "4", "z"),
        ];
        let c = center(dir.path(), &one, PUBLIC);
        let mut k = c.fresh_knowledge();
        assert_eq!(ask(&c, &mut k, &q1, 1).verdict.outcome, Outcome::Released);
        let a = ask(&c, &mut k, &q2, 2);
        assert_eq!(a.verdict.outcome, Outcome::Refused, "{disease}");
        assert!(a.verdict.failures[0].contains("k-anonymity of everything received"));
        let two = [
            ("a", "1", "y"),
            ("b", "1", "z"),
            ("c", "3", disease),
            ("a", "3", "x"),
            ("a", "4", "y"),
            ("b", "4", "z"),
        ];
        let c = center(dir.path(), &two, PUBLIC);
        let mut k = c.fresh_knowledge();
        assert_eq!(ask(&c, &mut k, &q1, 1).verdict.outcome, Outcome::Released);
        assert_eq!(ask(&c, &mut k, &q2, 2).verdict.outcome, Outcome::Released);
    }
}

/// Public decisions take conditions on public columns only, and k-anonymity as the only
/// class-based model; both errors name what is wrong.
#[test]
fn public_decisions_refuse_what_depends_on_confidential_values() {
    let dir = tempfile::tempdir().unwrap();
    let rows = [("a", "1", "y"), ("b", "2", "z"), ("c", "3", "x")];
    let c = center(dir.path(), &rows, PUBLIC);
    let r = request(&["age"], vec![cond("disease", Test::Eq("x".into()))]);
    let err = c.validate(&r).unwrap_err().to_string();
    assert!(err.contains("`disease` is not quasi-identifying"), "{err}");
    let err = c
        .answer(&c.fresh_knowledge(), &r, &[2], 1)
        .unwrap_err()
        .to_string();
    assert!(err.contains("decide = \"public\""), "{err}");
    write_hierarchy(dir.path(), "age.csv", AGE);
    write_hierarchy(dir.path(), "zip.csv", ZIP);
    let table = Table::from_rows(
        ["name", "zip", "age", "disease"].map(String::from).to_vec(),
        &[vec!["p".into(), "a".into(), "1".into(), "x".into()]],
    )
    .unwrap();
    for (extra, key) in [
        (
            "\n[[privacy]]\nmodel = \"distinct-l-diversity\"\nattribute = \"disease\"\nl = 2\n\n[gatekeeper]\ndecide = \"public\"\n",
            "privacy[0]",
        ),
        ("\n[gatekeeper]\ndecide = \"public\"\n", "gatekeeper.decide"),
    ] {
        let config = Config::parse(&format!("{CONFIG}{extra}"), &dir.path().join("c.toml")).unwrap();
        let err = cellsafe::job::gatekeeper::center(&config, table.clone())
            .unwrap_err()
            .to_string();
        assert!(err.contains(key) && err.contains("public"), "{err}");
    }
}

/// `[gatekeeper] numeric` names the columns compared as numbers: a code column of digits
/// stays text when unlisted (so `3067` does not match `03067`), a listed one compares by
/// value, and a listed column with a value that is no number is an error naming it.
#[test]
fn listed_numeric_columns_and_text_columns_compare_as_configured() {
    let dir = tempfile::tempdir().unwrap();
    let base = r#"
[input]
path = "center.csv"

[attributes.name]
role = "identifying"

[attributes.code]
role = "quasi-identifying"
hierarchy = { kind = "suppress" }

[attributes.age]
role = "quasi-identifying"
hierarchy = { kind = "suppress" }

[safety]
formulas = { old = "age >= 50" }
default = ["old"]
"#;
    let header = ["name", "code", "age"].map(String::from).to_vec();
    let rows: Vec<Vec<String>> = [
        ["p0", "03067", "40"],
        ["p1", "3067", "40.0"],
        ["p2", "12", "4e1"],
    ]
    .iter()
    .map(|r| r.iter().map(|s| s.to_string()).collect())
    .collect();
    let table = Table::from_rows(header, &rows).unwrap();
    let build = |extra: &str| {
        let config = Config::parse(&format!("{base}{extra}"), &dir.path().join("c.toml")).unwrap();
        cellsafe::job::gatekeeper::center(&config, table.clone())
    };
    let code_is = |c: &Center| {
        c.matching_rows(&[cond("code", Test::Eq("3067".into()))])
            .unwrap()
    };
    let age_is_40 = |c: &Center| {
        c.matching_rows(&[cond("age", Test::Eq("40".into()))])
            .unwrap()
    };
    // inferred: both columns are all plain numbers
    let inferred = build("").unwrap();
    assert!(inferred.is_numeric("code") && inferred.is_numeric("age"));
    assert_eq!(code_is(&inferred), [0, 1]);
    // listed: only age
    let listed = build("\n[gatekeeper]\nnumeric = [\"age\"]\n").unwrap();
    assert!(!listed.is_numeric("code") && listed.is_numeric("age"));
    assert_eq!(code_is(&listed), [1], "`3067` is not `03067` as text");
    assert_eq!(age_is_40(&listed), [0, 1, 2]);
    let e = listed
        .matching_rows(&[cond("code", Test::Lt("5000".into()))])
        .unwrap_err()
        .to_string();
    assert!(e.contains("not numeric"), "{e}");
    // mistakes are named
    let e = build("\n[gatekeeper]\nnumeric = [\"nope\"]\n")
        .err()
        .unwrap()
        .to_string();
    assert!(
        e.contains("gatekeeper.numeric") && e.contains("nope"),
        "{e}"
    );
    let e = build("\n[gatekeeper]\nnumeric = [\"name\"]\n")
        .err()
        .unwrap()
        .to_string();
    assert!(
        e.contains("gatekeeper.numeric") && e.contains("`p0`") && e.contains("row 1"),
        "{e}"
    );
}
