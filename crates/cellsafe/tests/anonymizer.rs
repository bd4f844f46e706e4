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
    for q in [
        "sex",
        "age",
        "race",
        "marital-status",
        "education",
        "native-country",
        "workclass",
        "salary-class",
    ] {
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
    assert_eq!(release.evaluation().levels, expected.levels);
    assert_eq!(release.evaluation().score, expected.score);
    assert!(release.nodes_evaluated() > 0);
    assert!(release.audit().passed);
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
