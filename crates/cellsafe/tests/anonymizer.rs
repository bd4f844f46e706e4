//! The in-memory API: the same answer as a config job on the same problem, a release that an
//! independent counter (reading the CSV bytes) finds k-anonymous, safe defaults, and clear
//! errors.

use std::collections::HashMap;
use std::path::Path;

use cellsafe::job::config::Config;
use cellsafe::{algorithm, Anonymizer, Builder, CsvFormat, Error, Hierarchy, ModelSpec, Table};
use proptest::prelude::*;

fn adult_dir() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/adult")
}

/// The Adult job of `examples/adult/adult.toml`, built through the API instead of the config,
/// finds the same transformation with the same score as the config job.
#[test]
fn same_optimum_as_the_config_job_on_adult() {
    let dir = adult_dir();
    let config = Config::from_file(&dir.join("adult.toml")).unwrap();
    let problem = config.problem().unwrap();
    let expected = algorithm::optimal(&problem, &cellsafe::observer::Silent)
        .unwrap()
        .best
        .unwrap();

    let format = CsvFormat {
        delimiter: b';',
        ..CsvFormat::default()
    };
    let table = Table::read_csv(&dir.join("adult.csv"), &format).unwrap();
    let mut anonymizer = Anonymizer::new(&table);
    for q in cellsafe_testkit::ADULT_QIS {
        let path = dir.join(format!("adult_hierarchy_{q}.csv"));
        anonymizer = anonymizer.quasi_identifier(q, Hierarchy::read_arx(&path, b';').unwrap());
    }
    let release = anonymizer
        .sensitive("occupation")
        .model(ModelSpec::KAnonymity { k: 5 })
        .suppression_limit(0.01)
        .seed(1)
        .run()
        .unwrap();
    assert_eq!(release.evaluation().unwrap().levels, expected.levels);
    assert_eq!(release.evaluation().unwrap().score, expected.score);
    assert!(release.nodes_evaluated() > 0);
    assert!(release.audit().unwrap().passed);
}

/// Reads the released CSV as a recipient would and counts each visible quasi-identifier
/// tuple among the rows that are not suppressed.
fn smallest_group(csv: &[u8], quasi: &[&str]) -> Option<usize> {
    let mut reader = csv::Reader::from_reader(csv);
    let header = reader.headers().unwrap().clone();
    let cols: Vec<usize> = quasi
        .iter()
        .map(|q| header.iter().position(|h| h == *q).unwrap())
        .collect();
    let mut groups: HashMap<Vec<String>, usize> = HashMap::new();
    for record in reader.records() {
        let record = record.unwrap();
        if record.iter().all(|c| c == "*") {
            continue;
        }
        let key = cols.iter().map(|&c| record[c].to_owned()).collect();
        *groups.entry(key).or_default() += 1;
    }
    groups.values().copied().min()
}

fn table(rows: &[(u32, u32, u32)]) -> Table {
    let header = ["age", "zip", "disease", "name"].map(String::from).to_vec();
    let rows: Vec<Vec<String>> = rows
        .iter()
        .enumerate()
        .map(|(i, &(a, z, d))| {
            vec![
                (20 + a).to_string(),
                format!("130{z}"),
                format!("d{d}"),
                format!("person {i}"),
            ]
        })
        .collect();
    Table::from_rows(header, &rows).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// Whatever the table, an acceptable release read back from its bytes is k-anonymous,
    /// has one row per input row (suppressed rows starred), and never shows the column left
    /// without a role.
    #[test]
    fn released_bytes_are_k_anonymous(
        rows in prop::collection::vec((0u32..40, 0u32..12, 0u32..4), 1..60),
        k in 2u32..6,
        limit in prop::sample::select(vec![0.0, 0.05, 0.2]),
        seed in any::<u64>(),
    ) {
        let t = table(&rows);
        let result = Anonymizer::new(&t)
            .quasi_identifier("age", Builder::intervals(&[5.0, 10.0, 20.0]))
            .quasi_identifier("zip", Builder::mask())
            .sensitive("disease")
            .model(ModelSpec::KAnonymity { k })
            .suppression_limit(limit)
            .seed(seed)
            .run();
        match result {
            Ok(release) => {
                let csv = release.csv();
                let text = std::str::from_utf8(csv).unwrap();
                prop_assert!(!text.contains("person"), "an unnamed column was released");
                prop_assert_eq!(text.lines().count(), rows.len() + 1);
                if let Some(min) = smallest_group(csv, &["age", "zip"]) {
                    prop_assert!(min >= k as usize, "a group of {} < k = {}", min, k);
                }
                let starred = text.lines().filter(|l| l.split(',').all(|c| c == "*")).count();
                prop_assert!(starred as f64 <= (limit * rows.len() as f64).floor());
                // the mapping is a permutation of the input rows
                let mut m = release.mapping().to_vec();
                m.sort_unstable();
                prop_assert_eq!(m, (0..rows.len()).collect::<Vec<_>>());
            }
            Err(Error::NothingAcceptable) => {
                // only when even full suppression of the QIs leaves fewer than k rows
                // and the limit cannot suppress them
                prop_assert!((rows.len() as u32) < k);
            }
            Err(e) => prop_assert!(false, "unexpected error {}", e),
        }
    }
}

#[test]
fn same_seed_same_bytes_other_seed_other_order() {
    let rows: Vec<(u32, u32, u32)> = (0..50).map(|i| (i % 37, i % 9, i % 3)).collect();
    let t = table(&rows);
    let run = |seed| {
        Anonymizer::new(&t)
            .quasi_identifier("age", Builder::intervals(&[10.0, 20.0]))
            .quasi_identifier("zip", Builder::mask())
            .sensitive("disease")
            .model(ModelSpec::KAnonymity { k: 3 })
            .seed(seed)
            .run()
            .unwrap()
    };
    assert_eq!(run(5).csv(), run(5).csv());
    assert_ne!(run(5).mapping(), run(6).mapping());
    assert_eq!(run(5).seed(), Some(5));
}

/// `before_audit` is handed exactly the bytes released, once; an error it returns ends the
/// attempt with that error.
#[test]
fn before_audit_sees_the_bytes_released_and_can_stop_the_release() {
    let rows: Vec<(u32, u32, u32)> = (0..50).map(|i| (i % 37, i % 9, i % 3)).collect();
    let t = table(&rows);
    let anonymizer = || {
        Anonymizer::new(&t)
            .quasi_identifier("age", Builder::intervals(&[10.0, 20.0]))
            .quasi_identifier("zip", Builder::mask())
            .sensitive("disease")
            .model(ModelSpec::KAnonymity { k: 3 })
            .seed(9)
    };
    let seen = std::sync::Mutex::new(Vec::new());
    let keep = |bytes: &[u8]| -> cellsafe::Result<()> {
        seen.lock().unwrap().push(bytes.to_vec());
        Ok(())
    };
    let release = anonymizer().before_audit(&keep).run().unwrap();
    let seen = seen.into_inner().unwrap();
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0], release.csv());
    assert_eq!(release.csv(), anonymizer().run().unwrap().csv());
    let refuse = |_: &[u8]| -> cellsafe::Result<()> { Err(Error::Cancelled) };
    let result = anonymizer().before_audit(&refuse).run();
    assert!(
        matches!(result, Err(Error::Cancelled)),
        "{:?}",
        result.err()
    );
}

#[test]
fn errors_name_what_is_wrong() {
    let t = table(&[(1, 1, 1), (2, 2, 2)]);
    let e = Anonymizer::new(&t)
        .quasi_identifier("height", Builder::mask())
        .run()
        .unwrap_err();
    assert!(e.to_string().contains("`height`"), "{e}");

    let e = Anonymizer::new(&t)
        .quasi_identifier("age", Builder::intervals(&[5.0]))
        .model(ModelSpec::KAnonymity { k: 5 })
        .run()
        .unwrap_err();
    assert!(matches!(e, Error::NothingAcceptable), "{e}");

    // a value an interval builder cannot place is named by line and column
    let header = vec!["age".to_string()];
    let t = Table::from_rows(header, &[vec!["40".into()], vec!["old".into()]]).unwrap();
    let e = Anonymizer::new(&t)
        .quasi_identifier("age", Builder::intervals(&[5.0]))
        .run()
        .unwrap_err();
    assert!(
        matches!(&e, Error::Data { at, .. } if at.line == Some(3) && at.column == Some(1)),
        "{e}"
    );
}

/// A job over `config` in `dir`, writing `out.csv` there; returns the report and the bytes.
fn job(dir: &Path, config: &str) -> (cellsafe::job::report::Report, Vec<u8>) {
    std::fs::write(dir.join("job.toml"), config).unwrap();
    let config = Config::from_file(&dir.join("job.toml")).unwrap();
    let out = dir.join("out.csv");
    let _ = std::fs::remove_file(&out);
    let outputs = cellsafe::job::Outputs {
        table: Some(out.clone()),
        ..Default::default()
    };
    let report = cellsafe::job::anonymize(&config, &outputs, &cellsafe::observer::Silent).unwrap();
    let bytes = std::fs::read(&out).unwrap_or_default();
    (report, bytes)
}

/// A public search (paper 001) built in memory from a table and roles releases the same
/// bytes, with the same decision, as the `[disclose]` job over the same data: the job is a
/// layer over the API, not a second implementation.
#[test]
fn a_public_search_in_memory_matches_the_disclose_job() {
    use cellsafe::algorithm::disclosure::public::PublicSearch;
    use cellsafe::algorithm::disclosure::{Check, CheckSpec, Options, Strategy};

    let dir = tempfile::tempdir().unwrap();
    let mut csv = String::from("age,zip,disease\n");
    for i in 0..24u32 {
        let disease = ["flu", "cold", "cancer"][(i * 7 % 5 % 3) as usize];
        csv += &format!("{},{},{}\n", 20 + i * 3 % 17, 13050 + i % 4, disease);
    }
    std::fs::write(dir.path().join("data.csv"), &csv).unwrap();
    let mut released = 0;
    for (check, strategy) in [
        (CheckSpec::DistinctL { l: 2 }, "exclusive"),
        (CheckSpec::MaxProbability { p: 0.7 }, "inclusive"),
        (CheckSpec::DistinctL { l: 3 }, "inclusive"),
    ] {
        let check_toml = match check {
            CheckSpec::DistinctL { l } => format!("{{ type = \"distinct-l\", l = {l} }}"),
            CheckSpec::MaxProbability { p } => format!("{{ type = \"max-probability\", p = {p} }}"),
            _ => unreachable!(),
        };
        let config = format!(
            "[input]\npath = \"data.csv\"\n\
             [attributes.age]\nrole = \"quasi-identifying\"\nhierarchy = {{ kind = \"intervals\", widths = [5, 10, 20] }}\n\
             [attributes.zip]\nrole = \"quasi-identifying\"\nhierarchy = {{ kind = \"mask\" }}\n\
             [attributes.disease]\nrole = \"sensitive\"\n\
             [[privacy]]\nmodel = \"k-anonymity\"\nk = 2\n\
             [disclose]\ncheck = {check_toml}\nstrategy = \"{strategy}\"\n\
             [output]\nseed = 11\n"
        );
        let (report, bytes) = job(dir.path(), &config);
        let table = Table::read_csv(&dir.path().join("data.csv"), &CsvFormat::default()).unwrap();
        let release = Anonymizer::new(&table)
            .quasi_identifier("age", Builder::intervals(&[5.0, 10.0, 20.0]))
            .quasi_identifier("zip", Builder::mask())
            .sensitive("disease")
            .model(ModelSpec::KAnonymity { k: 2 })
            .public_search(PublicSearch {
                check: Check::bind(&check).unwrap(),
                options: Options::default(),
                strategy: if strategy == "exclusive" {
                    Strategy::Exclusive
                } else {
                    Strategy::Inclusive
                },
            })
            .seed(11)
            .attempt()
            .unwrap();
        let decision = release.disclosure().expect("a decision");
        let reported = report
            .disclosure
            .as_ref()
            .expect("a decision in the report");
        assert_eq!(decision.released, reported.released, "{check:?}");
        assert_eq!(release.found(), report.found);
        assert_eq!(release.csv(), &bytes[..], "{check:?}");
        if release.found() {
            assert!(release.audit().unwrap().passed);
            released += 1;
        }
    }
    assert!(
        released > 0,
        "no case released a table: the comparison would be vacuous"
    );
}

/// The set-based job of paper 002's running example writes exactly the bytes the
/// in-memory API releases from the same dataset.
#[test]
fn the_set_based_job_writes_what_the_api_releases() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/papers");
    let mut config = Config::from_file(&dir.join("linking8-setbased.toml")).unwrap();
    config.output.seed = Some(5);
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out.csv");
    let outputs = cellsafe::job::Outputs {
        table: Some(out.clone()),
        ..Default::default()
    };
    let report = cellsafe::job::anonymize(&config, &outputs, &cellsafe::observer::Silent).unwrap();
    assert!(report.found);
    let (table, _) = config.read(&cellsafe::observer::Silent).unwrap();
    let release = Anonymizer::from_dataset(config.dataset(table).unwrap())
        .models(config.privacy.iter().cloned())
        .metric(config.metric.clone())
        .set_based(config.search.set_based.clone())
        .seed(5)
        .run()
        .unwrap();
    assert!(release.set_based().unwrap().search.safe);
    assert_eq!(release.csv(), &std::fs::read(&out).unwrap()[..]);
    assert!(release.audit().unwrap().passed);
    // roles of a resolved dataset cannot be given again
    let (table, _) = config.read(&cellsafe::observer::Silent).unwrap();
    let err = Anonymizer::from_dataset(config.dataset(table).unwrap())
        .sensitive("income")
        .run()
        .unwrap_err();
    assert!(err.to_string().contains("already resolved"), "{err}");
}

/// Timings are reported per phase, each a finite non-negative number of seconds, and
/// their sum does not exceed the run's wall time.
#[test]
fn the_report_times_each_phase() {
    let config = Config::from_file(&adult_dir().join("adult.toml")).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let outputs = cellsafe::job::Outputs {
        table: Some(tmp.path().join("out.csv")),
        ..Default::default()
    };
    let report = cellsafe::job::anonymize(&config, &outputs, &cellsafe::observer::Silent).unwrap();
    let t = report.timings.expect("timings");
    let json = serde_json::to_value(t).unwrap();
    for key in ["read", "encode", "search", "release", "write", "audit"] {
        let v = json[key].as_f64().unwrap_or(-1.0);
        assert!(v.is_finite() && v >= 0.0, "{key} = {v}");
    }
    assert!(t.read > 0.0 && t.search > 0.0 && t.audit > 0.0);
    let sum = t.read + t.encode + t.search + t.release + t.write + t.audit;
    assert!(sum <= report.seconds + 1e-6, "{sum} > {}", report.seconds);
}

/// The builder reaches the other searches and microaggregation from outside the crate:
/// the minimal search reports its minimal nodes, and microaggregated ages are group
/// means (numbers, not the hierarchy's interval labels) in an audited release.
#[test]
fn other_searches_and_microaggregation_are_reachable_in_memory() {
    use cellsafe::algorithm::Algorithm;
    use cellsafe::release::microaggregation::{Aggregator, Scale};

    let dir = adult_dir();
    let format = CsvFormat {
        delimiter: b';',
        ..CsvFormat::default()
    };
    let table = Table::read_csv(&dir.join("adult.csv"), &format).unwrap();
    let age = Hierarchy::read_arx(&dir.join("adult_hierarchy_age.csv"), b';').unwrap();
    let sex = Hierarchy::read_arx(&dir.join("adult_hierarchy_sex.csv"), b';').unwrap();
    let base = || {
        Anonymizer::new(&table)
            .quasi_identifier("sex", sex.clone())
            .quasi_identifier("age", age.clone())
            .sensitive("occupation")
            .model(ModelSpec::KAnonymity { k: 200 })
            .suppression_limit(0.01)
            .seed(3)
    };
    let minimal = base().algorithm(Algorithm::Minimal).run().unwrap();
    assert!(!minimal.outcome().minimal.is_empty());
    assert!(minimal.timings().core() >= 0.0);

    let aggregated = base()
        .microaggregate(vec![
            Aggregator::new(Scale::Nominal, &sex, None),
            Aggregator::new(Scale::Continuous, &age, None),
        ])
        .run()
        .unwrap();
    assert!(aggregated.audit().unwrap().passed);
    // age is generalized, so without aggregation its cells would be interval labels
    assert!(aggregated
        .levels()
        .iter()
        .any(|(q, l)| q == "age" && *l > 0));
    let written =
        Table::from_bytes(aggregated.csv(), Path::new("r.csv"), &CsvFormat::default()).unwrap();
    let column = written.column_index("age").unwrap();
    let ages: Vec<&str> = (0..written.rows())
        .map(|r| written.value(r, column))
        .collect();
    assert!(
        ages.iter().all(|v| *v == "*" || v.parse::<f64>().is_ok()),
        "{:?}",
        &ages[..5]
    );
}
