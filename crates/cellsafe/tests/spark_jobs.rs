//! Whole jobs on the Spark engine against a real Spark Connect server
//! (`CELLSAFE_SPARK_REMOTE`, set by `scripts/test` after it starts a standalone cluster of
//! one master and two workers on this machine): the same config on the in-memory engine
//! and on the cluster gives the same transformation, the same suppressed rows and the same
//! released rows (row for row when the input order is kept; as a multiset when shuffled),
//! for k-anonymity, l-diversity and t-closeness, on Adult and on random tables with typed
//! columns and nulls. A job stopped after the cluster wrote its release publishes nothing
//! and leaves no staging directory; an existing destination is refused unless replaced.
#![cfg(feature = "spark")]

mod common;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use cellsafe::job::config::Config;
use cellsafe::job::Outputs;
use cellsafe::observer::{Observer, Silent};
use cellsafe::{CsvFormat, Table};

/// The server's url, or None (the test then says it was skipped).
fn remote(test: &str) -> Option<String> {
    common::spark_remote(&format!("{}::{test}", module_path!()))
}

/// The config `text` written as `name` in `dir`, with `[engine]` for Spark at `remote`
/// when given.
fn config(dir: &Path, name: &str, text: &str, remote: Option<&str>) -> Config {
    let engine = match remote {
        Some(url) => format!("[engine]\nkind = \"spark\"\nremote = \"{url}\"\n\n"),
        None => String::new(),
    };
    // top-level keys first, then the engine's table
    let (top, rest) = text.split_at(text.find('[').unwrap_or(text.len()));
    let full = format!("{top}\n{engine}{rest}");
    let path = dir.join(name);
    std::fs::write(&path, &full).unwrap();
    Config::parse(&full, &path).unwrap()
}

fn outputs(table: &Path) -> Outputs {
    Outputs {
        table: Some(table.to_owned()),
        report: None,
        mapping: None,
    }
}

/// Every row of a Parquet file, or of a directory's part files in name order, as strings.
fn rows(path: &Path) -> (Vec<String>, Vec<Vec<String>>) {
    let files: Vec<PathBuf> = if path.is_dir() {
        let mut parts: Vec<PathBuf> = std::fs::read_dir(path)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "parquet"))
            .collect();
        parts.sort();
        parts
    } else {
        vec![path.to_owned()]
    };
    let mut header = Vec::new();
    let mut all = Vec::new();
    for file in files {
        let table = Table::read(
            &file,
            cellsafe::data::table::Format::Parquet,
            &CsvFormat::default(),
            &Silent,
        )
        .unwrap();
        header = table.header().to_vec();
        for r in 0..table.rows() {
            all.push(
                (0..header.len())
                    .map(|c| table.value(r, c).to_owned())
                    .collect(),
            );
        }
    }
    (header, all)
}

fn sorted(mut rows: Vec<Vec<String>>) -> Vec<Vec<String>> {
    rows.sort();
    rows
}

/// Adult's job (its hierarchies, `occupation` sensitive) with `models`, reading
/// `adult.parquet`.
fn adult_job(models: &str, order: &str) -> String {
    let adult = common::examples().join("adult").canonicalize().unwrap();
    let mut text = format!(
        "suppression_limit = 0.02\n\n[input]\npath = \"{}\"\n\n",
        adult.join("adult.parquet").display()
    );
    for qi in common::ADULT_QIS {
        text.push_str(&format!(
            "[attributes.{qi}]\nrole = \"quasi-identifying\"\nhierarchy = \"{}\"\n\n",
            adult.join(format!("adult_hierarchy_{qi}.csv")).display()
        ));
    }
    text.push_str(&format!(
        "[attributes.occupation]\nrole = \"sensitive\"\nhierarchy = \"{}\"\n\n",
        adult.join("adult_hierarchy_occupation.csv").display()
    ));
    text.push_str(models);
    text.push_str(&format!("\n[output]\n{order}\n"));
    text
}

/// A job's report and released rows.
type Ran = (cellsafe::job::report::Report, Vec<Vec<String>>);

/// Runs `text` in memory and on the cluster; returns both reports and released tables.
fn both(dir: &Path, remote: &str, text: &str) -> (Ran, Ran) {
    let here = dir.join("memory.parquet");
    let there = dir.join("spark.parquet");
    let local = cellsafe::job::anonymize(
        &config(dir, "memory.toml", text, None),
        &outputs(&here),
        &Silent,
    )
    .unwrap();
    let cluster = cellsafe::job::anonymize(
        &config(dir, "spark.toml", text, Some(remote)),
        &outputs(&there),
        &Silent,
    )
    .unwrap();
    let (h1, r1) = rows(&here);
    let (h2, r2) = rows(&there);
    assert_eq!(h1, h2, "the released columns");
    ((local, r1), (cluster, r2))
}

/// The transformation, the suppressed rows and the information loss of two reports agree.
fn same_search(a: &cellsafe::job::report::Report, b: &cellsafe::job::report::Report, what: &str) {
    assert!(a.found && b.found, "{what}: a release was found");
    assert_eq!(a.levels, b.levels, "{what}: the transformation");
    assert_eq!(
        a.suppressed_rows, b.suppressed_rows,
        "{what}: suppressed rows"
    );
    assert!(
        b.audit.as_ref().is_some_and(|a| a.passed),
        "{what}: the audit passed"
    );
}

#[test]
fn adult_jobs_release_what_the_in_memory_engine_releases() {
    let Some(remote) = remote("adult_jobs_release_what_the_in_memory_engine_releases") else {
        return;
    };
    let cases = [
        (
            "k-anonymity",
            "[[privacy]]\nmodel = \"k-anonymity\"\nk = 5\n",
        ),
        (
            "l-diversity",
            "[[privacy]]\nmodel = \"k-anonymity\"\nk = 3\n\n[[privacy]]\nmodel = \
             \"distinct-l-diversity\"\nattribute = \"occupation\"\nl = 3\n",
        ),
        (
            "t-closeness",
            "[[privacy]]\nmodel = \"t-closeness\"\nattribute = \"occupation\"\nt = 0.3\n\
             distance = \"equal\"\n",
        ),
    ];
    for (what, models) in cases {
        let dir = tempfile::tempdir().unwrap();
        // input order kept: the same rows in the same order
        let ((a, rows_a), (b, rows_b)) =
            both(dir.path(), &remote, &adult_job(models, "keep_order = true"));
        same_search(&a, &b, what);
        assert_eq!(rows_a.len(), 30162, "{what}");
        assert_eq!(rows_a, rows_b, "{what}: the release, row for row");
        assert!(
            a.suppressed_rows > 0 || what != "k-anonymity",
            "{what}: rows suppressed"
        );
    }
}

#[test]
fn shuffled_releases_hold_the_same_rows_and_a_seed_gives_one_order() {
    let Some(remote) = remote("shuffled_releases_hold_the_same_rows_and_a_seed_gives_one_order")
    else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let text = adult_job("[[privacy]]\nmodel = \"k-anonymity\"\nk = 5\n", "seed = 7");
    let ((a, rows_a), (b, rows_b)) = both(dir.path(), &remote, &text);
    same_search(&a, &b, "shuffled");
    assert_eq!(
        sorted(rows_a.clone()),
        sorted(rows_b.clone()),
        "the same rows"
    );
    // the input order is not the written order
    let dir2 = tempfile::tempdir().unwrap();
    let ((_, kept), (_, again)) = both(
        dir2.path(),
        &remote,
        &adult_job(
            "[[privacy]]\nmodel = \"k-anonymity\"\nk = 5\n",
            "keep_order = true",
        ),
    );
    assert_eq!(sorted(kept.clone()), sorted(rows_b.clone()));
    let in_place = kept.iter().zip(&rows_b).filter(|(x, y)| x == y).count();
    assert!(
        in_place < kept.len() / 2,
        "{in_place} rows where the input has them"
    );
    drop(again);
    // the same seed, the same order
    let third = dir.path().join("again.parquet");
    cellsafe::job::anonymize(
        &config(dir.path(), "again.toml", &text, Some(&remote)),
        &outputs(&third),
        &Silent,
    )
    .unwrap();
    assert_eq!(rows(&third).1, rows_b, "a seed gives one order");
}

/// A random table (Parquet, several row groups) of a string quasi-identifier with nulls,
/// an integer one with nulls, a float one and a sensitive string, with the hierarchies of
/// the values it holds.
fn random_table(dir: &Path, seed: u64) -> String {
    use arrow_array::{ArrayRef, Float64Array, Int64Array, RecordBatch, StringArray};
    use arrow_schema::{DataType, Field, Schema};
    let mut state = seed;
    let mut next = move |n: u64| {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 33) % n
    };
    let rows = 2000 + next(2000) as usize;
    let zip: Vec<Option<String>> = (0..rows)
        .map(|_| (next(25) != 0).then(|| format!("{}", 10000 + next(12) * 7)))
        .collect();
    let age: Vec<Option<i64>> = (0..rows)
        .map(|_| (next(30) != 0).then(|| 18 + next(60) as i64))
        .collect();
    let score: Vec<f64> = (0..rows).map(|_| next(12) as f64 / 4.0).collect();
    let sick: Vec<String> = (0..rows)
        .map(|_| ["flu", "cold", "gout", "asthma"][next(4) as usize].to_owned())
        .collect();
    let schema = Arc::new(Schema::new(vec![
        Field::new("zip", DataType::Utf8, true),
        Field::new("age", DataType::Int64, true),
        Field::new("score", DataType::Float64, false),
        Field::new("sick", DataType::Utf8, false),
    ]));
    let batch = RecordBatch::try_new(
        schema,
        vec![
            Arc::new(StringArray::from(zip.clone())) as ArrayRef,
            Arc::new(Int64Array::from(age.clone())),
            Arc::new(Float64Array::from(score.clone())),
            Arc::new(StringArray::from(sick)),
        ],
    )
    .unwrap();
    let path = dir.join(format!("random{seed}.parquet"));
    common::write_parquet(&path, &batch, 500);
    // hierarchies as the values print (a null reads as the empty string, a missing marker)
    let mut zips: Vec<String> = zip.into_iter().flatten().collect();
    zips.sort();
    zips.dedup();
    let zip_h: String = zips
        .iter()
        .map(|z| format!("{z};{}**;*\n", &z[..3]))
        .collect();
    let mut ages: Vec<i64> = age.into_iter().flatten().collect();
    ages.sort();
    ages.dedup();
    let age_h: String = ages
        .iter()
        .map(|a| format!("{a};{}-{};*\n", a / 10 * 10, a / 10 * 10 + 9))
        .collect();
    let mut scores: Vec<String> = score.iter().map(|s| format!("{s:?}")).collect();
    scores.sort();
    scores.dedup();
    let score_h: String = scores
        .iter()
        .map(|s| {
            let v: f64 = s.parse().unwrap();
            format!("{s};{};*\n", if v < 1.5 { "low" } else { "high" })
        })
        .collect();
    for (name, text) in [("zip", zip_h), ("age", age_h), ("score", score_h)] {
        std::fs::write(dir.join(format!("{name}{seed}.csv")), text).unwrap();
    }
    let mut job = format!(
        "suppression_limit = 0.05\n\n[input]\npath = \"{}\"\nmissing = [\"\"]\n\n",
        path.display()
    );
    for name in ["zip", "age", "score"] {
        job.push_str(&format!(
            "[attributes.{name}]\nrole = \"quasi-identifying\"\nhierarchy = \"{}\"\n\n",
            dir.join(format!("{name}{seed}.csv")).display()
        ));
    }
    job.push_str("[attributes.sick]\nrole = \"sensitive\"\n\n");
    job
}

#[test]
fn random_tables_release_what_the_in_memory_engine_releases() {
    let Some(remote) = remote("random_tables_release_what_the_in_memory_engine_releases") else {
        return;
    };
    for seed in 1..=3u64 {
        let dir = tempfile::tempdir().unwrap();
        let k = 3 + seed;
        let mut text = random_table(dir.path(), seed);
        text.push_str(&format!(
            "[[privacy]]\nmodel = \"k-anonymity\"\nk = {k}\n\n"
        ));
        if seed == 2 {
            text.push_str(
                "[[privacy]]\nmodel = \"distinct-l-diversity\"\nattribute = \"sick\"\nl = 2\n\n",
            );
        }
        let order = if seed == 3 {
            "keep_order = true\nsuppression = \"drop\""
        } else {
            "keep_order = true"
        };
        text.push_str(&format!("[output]\n{order}\n"));
        let ((a, rows_a), (b, rows_b)) = both(dir.path(), &remote, &text);
        same_search(&a, &b, &format!("seed {seed}"));
        assert_eq!(rows_a, rows_b, "seed {seed}: the release, row for row");
    }
}

/// Cancels the job when the audit starts: the cluster has written the release by then.
struct StopAtAudit;

impl Observer for StopAtAudit {
    fn start(&self, stage: &str, _: Option<u64>) {
        if stage == "audit" {
            STOPPED.store(true, std::sync::atomic::Ordering::SeqCst);
        }
    }
    fn cancelled(&self) -> bool {
        STOPPED.load(std::sync::atomic::Ordering::SeqCst)
    }
}

static STOPPED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

#[test]
fn a_job_stopped_after_the_write_publishes_nothing_and_an_existing_release_needs_replace() {
    let Some(remote) = remote(
        "a_job_stopped_after_the_write_publishes_nothing_and_an_existing_release_needs_replace",
    ) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let text = adult_job("[[privacy]]\nmodel = \"k-anonymity\"\nk = 5\n", "seed = 3");
    let target = dir.path().join("out").join("release.parquet");
    std::fs::create_dir(dir.path().join("out")).unwrap();
    let spark = config(dir.path(), "spark.toml", &text, Some(&remote));
    let err = cellsafe::job::anonymize(&spark, &outputs(&target), &StopAtAudit).unwrap_err();
    assert!(matches!(err, cellsafe::Error::Cancelled), "{err}");
    let left: Vec<_> = std::fs::read_dir(dir.path().join("out")).unwrap().collect();
    assert!(
        left.is_empty(),
        "nothing published, no staging left: {left:?}"
    );
    // published, then refused over, then replaced
    cellsafe::job::anonymize(&spark, &outputs(&target), &Silent).unwrap();
    let first = rows(&target).1;
    let err = cellsafe::job::anonymize(&spark, &outputs(&target), &Silent)
        .unwrap_err()
        .to_string();
    assert!(err.contains("replace = true"), "{err}");
    assert_eq!(rows(&target).1, first, "the release is untouched");
    let replacing = config(
        dir.path(),
        "replace.toml",
        &text.replace("seed = 3", "seed = 4\nreplace = true"),
        Some(&remote),
    );
    cellsafe::job::anonymize(&replacing, &outputs(&target), &Silent).unwrap();
    let second = rows(&target).1;
    assert_ne!(second, first, "another seed, another order");
    assert_eq!(sorted(second), sorted(first));
    let names: Vec<String> = std::fs::read_dir(dir.path().join("out"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["release.parquet"], "no staging or old release left");
}

/// A risk analysis (`cellsafe risk`) of Adult on the cluster's frequency set: the in-memory
/// analysis, figure for figure, as the table is, under a transformation, and with a
/// population size.
#[test]
fn risk_analyses_are_the_in_memory_ones() {
    use cellsafe::job::risk::{risk, Population};
    let Some(remote) = remote("risk_analyses_are_the_in_memory_ones") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let text = adult_job("[[privacy]]\nmodel = \"k-anonymity\"\nk = 5\n", "");
    let here = config(dir.path(), "memory.toml", &text, None)
        .problem()
        .unwrap();
    let there = config(dir.path(), "spark.toml", &text, Some(&remote))
        .problem()
        .unwrap();
    assert_eq!(there.data.persons(), 30162);
    assert!(
        there.data.rows() < 30162,
        "the cluster's frequency set, weighted"
    );
    let written = cellsafe::release::SuppressedRows::Star;
    for (levels, population) in [
        (None, None),
        (Some(vec![0, 3, 0, 2, 3, 1, 1, 0]), None),
        (
            Some(vec![1, 2, 1, 1, 2, 1, 1, 0]),
            Some(Population::Size(1_000_000)),
        ),
        (None, Some(Population::Fraction(0.1))),
    ] {
        let a = risk(&here, levels.as_deref(), 0.1, population, written).unwrap();
        let b = risk(&there, levels.as_deref(), 0.1, population, written).unwrap();
        assert_eq!(
            serde_json::to_value(&b).unwrap(),
            serde_json::to_value(&a).unwrap(),
            "levels {levels:?}, population {population:?}"
        );
    }
}

/// A register (Parquet) of a string and an integer quasi-identifier, a sensitive column
/// and a Boolean flag column naming a research subset of about `share` percent, with the
/// hierarchies of the values it holds; returns the job's text without models.
fn register(dir: &Path, seed: u64, share: u64) -> String {
    use arrow_array::{ArrayRef, BooleanArray, Int64Array, RecordBatch, StringArray};
    use arrow_schema::{DataType, Field, Schema};
    let mut state = seed;
    let mut next = move |n: u64| {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 33) % n
    };
    let rows = 3000 + next(2000) as usize;
    let zip: Vec<String> = (0..rows).map(|_| format!("{}", 100 + next(9))).collect();
    let age: Vec<i64> = (0..rows).map(|_| 20 + next(50) as i64).collect();
    let sick: Vec<String> = (0..rows)
        .map(|_| ["flu", "cold", "gout"][next(3) as usize].to_owned())
        .collect();
    let member: Vec<bool> = (0..rows).map(|_| next(100) < share).collect();
    let schema = Arc::new(Schema::new(vec![
        Field::new("zip", DataType::Utf8, false),
        Field::new("age", DataType::Int64, false),
        Field::new("sick", DataType::Utf8, false),
        Field::new("member", DataType::Boolean, false),
    ]));
    let batch = RecordBatch::try_new(
        schema,
        vec![
            Arc::new(StringArray::from(zip.clone())) as ArrayRef,
            Arc::new(Int64Array::from(age.clone())),
            Arc::new(StringArray::from(sick)),
            Arc::new(BooleanArray::from(member)),
        ],
    )
    .unwrap();
    let path = dir.join(format!("register{seed}.parquet"));
    common::write_parquet(&path, &batch, 1000);
    let mut zips = zip;
    zips.sort();
    zips.dedup();
    let zip_h: String = zips
        .iter()
        .map(|z| format!("{z};{}*;*\n", &z[..2]))
        .collect();
    let age_h: String = (20..70)
        .map(|a| format!("{a};{}-{};*\n", a / 10 * 10, a / 10 * 10 + 9))
        .collect();
    std::fs::write(dir.join("zip.csv"), zip_h).unwrap();
    std::fs::write(dir.join("age.csv"), age_h).unwrap();
    format!(
        "suppression_limit = 0.1\n\n[input]\npath = \"{}\"\n\n[input.subset]\ncolumn = \
         \"member\"\n\n[attributes.zip]\nrole = \"quasi-identifying\"\nhierarchy = \"{}\"\n\n\
         [attributes.age]\nrole = \"quasi-identifying\"\nhierarchy = \"{}\"\n\n\
         [attributes.sick]\nrole = \"sensitive\"\n\n",
        path.display(),
        dir.join("zip.csv").display(),
        dir.join("age.csv").display()
    )
}

/// δ-presence on the cluster: the register's frequency set (with its flag column) is the
/// population, the flagged rows the subset; the same transformation, suppressed rows and
/// released rows as in memory, the audit of δ-presence passed on the cluster's counts,
/// and a risk analysis with the register as population gives the in-memory figures.
#[test]
fn delta_presence_releases_what_the_in_memory_engine_releases() {
    let Some(remote) = remote("delta_presence_releases_what_the_in_memory_engine_releases") else {
        return;
    };
    for (seed, share, bounds) in [
        (1u64, 40u64, (0.0, 0.6)),
        (2, 25, (0.05, 0.5)),
        (3, 60, (0.3, 0.9)),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let mut text = register(dir.path(), seed, share);
        text.push_str(&format!(
            "[[privacy]]\nmodel = \"k-anonymity\"\nk = 3\n\n[[privacy]]\nmodel = \
             \"delta-presence\"\ndelta_min = {}\ndelta_max = {}\n\n[output]\nseed = 5\n",
            bounds.0, bounds.1
        ));
        let what = format!("seed {seed}");
        let ((a, rows_a), (b, rows_b)) = both(dir.path(), &remote, &text);
        same_search(&a, &b, &what);
        let (ja, jb) = (
            serde_json::to_value(&a).unwrap(),
            serde_json::to_value(&b).unwrap(),
        );
        assert_eq!(ja["population_rows"], jb["population_rows"], "{what}");
        assert_eq!(ja["rows"], jb["rows"], "{what}: the subset's rows");
        assert!(
            ja["rows"].as_u64().unwrap() < ja["population_rows"].as_u64().unwrap(),
            "{what}: a subset"
        );
        assert_eq!(sorted(rows_a), sorted(rows_b), "{what}: the same rows");
        let audit = b.audit.as_ref().unwrap();
        assert!(
            audit.unchecked.is_empty(),
            "{what}: δ-presence audited: {audit:?}"
        );
        // the risks of the subset against its register
        let here = config(dir.path(), "m.toml", &text, None).problem().unwrap();
        let there = config(dir.path(), "s.toml", &text, Some(&remote))
            .problem()
            .unwrap();
        let written = cellsafe::release::SuppressedRows::Star;
        let risk = |p| cellsafe::job::risk::risk(p, Some(&[1, 1]), 0.1, None, written).unwrap();
        assert_eq!(
            serde_json::to_value(risk(&there)).unwrap(),
            serde_json::to_value(risk(&here)).unwrap(),
            "{what}: risks"
        );
    }
}
