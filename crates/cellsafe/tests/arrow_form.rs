//! A release made as Arrow (`job::run_arrow`, what the Python package returns) is the
//! release made as CSV (`job::run`, what files are written from) cell for cell and type for
//! type: for level-based releases (with `*` and with dropped rows, microaggregated),
//! Mondrian and set-based releases, and for a typed source handed over as Arrow batches of
//! every string layout, with a public column, whose kept columns keep their types.
#![cfg(feature = "arrow")]

use crate::common;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::{
    ArrayRef, DictionaryArray, Float64Array, Int64Array, LargeStringArray, RecordBatch,
    StringArray, StringViewArray,
};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use cellsafe::job::config::Config;
use cellsafe::job::{self, Anonymized, Given};
use cellsafe::observer::Silent;

fn adult() -> PathBuf {
    common::examples().join("adult").canonicalize().unwrap()
}

/// The Adult job (eight quasi-identifiers, k = 5, 1 %, a seed), with `extra` appended to
/// its `[output]` and `more` after it.
fn adult_job(extra: &str, more: &str) -> String {
    let a = adult();
    let mut text = format!(
        "suppression_limit = 0.01\n\n[input]\npath = '{}'\ndelimiter = \";\"\n\
         hierarchy_delimiter = \";\"\n\n",
        a.join("adult.csv").display()
    );
    for qi in common::ADULT_QIS {
        text.push_str(&format!(
            "[attributes.{qi}]\nrole = \"quasi-identifying\"\nhierarchy = '{}'\n\n",
            a.join(format!("adult_hierarchy_{qi}.csv")).display()
        ));
    }
    text.push_str(&format!(
        "[attributes.occupation]\nrole = \"sensitive\"\n\n[[privacy]]\nmodel = \
         \"k-anonymity\"\nk = 5\n\n[output]\nseed = 11\n{extra}\n{more}"
    ));
    text
}

/// Both forms of the job's release, as record batches.
fn both(config: &Config, given: impl Fn() -> Option<Given>) -> [(SchemaRef, Vec<RecordBatch>); 2] {
    let batches = |done: Anonymized| {
        assert!(done.report.audit.as_ref().is_some_and(|a| a.passed));
        done.record_batches().unwrap().expect("a release")
    };
    let csv = job::run(config, given(), &Silent).unwrap();
    assert!(!csv.release.as_ref().unwrap().csv().is_empty());
    let arrow = job::run_arrow(config, given(), &Silent).unwrap();
    assert!(arrow.release.as_ref().unwrap().csv().is_empty());
    assert_eq!(csv.report.suppressed_rows, arrow.report.suppressed_rows);
    assert_eq!(csv.report.levels, arrow.report.levels);
    [batches(csv), batches(arrow)]
}

fn assert_same(forms: &[(SchemaRef, Vec<RecordBatch>); 2], what: &str) {
    let [(csv_schema, csv), (arrow_schema, arrow)] = forms;
    assert_eq!(csv_schema, arrow_schema, "{what}: schema");
    assert_eq!(csv.len(), arrow.len(), "{what}: batches");
    let rows: usize = csv.iter().map(RecordBatch::num_rows).sum();
    assert!(rows > 0, "{what}: rows");
    for (i, (a, b)) in csv.iter().zip(arrow).enumerate() {
        assert_eq!(a, b, "{what}: batch {i}");
    }
}

#[test]
fn adult_releases_are_the_same_in_both_forms() {
    let a = adult();
    let cases = [
        ("level-based", adult_job("", "")),
        ("dropped rows", adult_job("suppression = \"drop\"", "")),
        (
            "microaggregated",
            adult_job("values = \"microaggregation\"", ""),
        ),
        (
            "mondrian",
            adult_job("", "[search]\nalgorithm = \"mondrian\"\n"),
        ),
    ];
    for (what, text) in cases {
        let config = Config::parse(&text, &a.join("job.toml")).unwrap();
        assert_same(&both(&config, || None), what);
    }
}

#[test]
fn a_set_based_release_is_the_same_in_both_forms() {
    let path = common::examples()
        .join("papers")
        .join("linking8-setbased.toml")
        .canonicalize()
        .unwrap();
    let text = std::fs::read_to_string(&path).unwrap() + "\n[output]\nseed = 3\n";
    let config = Config::parse(&text, &path).unwrap();
    assert_same(&both(&config, || None), "set-based");
}

/// A typed source in every string layout, handed over as Arrow batches (as pandas,
/// Polars and PyArrow hand them over): the kept columns keep their types in both forms,
/// a suppressed row's typed cells are nulls, its string cells `*`.
#[test]
fn a_typed_source_handed_over_as_arrow_is_the_same_in_both_forms() {
    let rows = 600usize;
    let mut state = 9u64;
    let mut next = move |n: u64| {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 33) % n
    };
    let (mut zip, mut age, mut income, mut score, mut note, mut tag, mut kind) =
        (vec![], vec![], vec![], vec![], vec![], vec![], vec![]);
    for i in 0..rows {
        zip.push(format!("{:05}", 10000 + next(40) * 7));
        age.push(20 + next(60) as i64);
        income.push((i % 17 != 0).then(|| 1000 + next(9000) as i64));
        score.push(next(1000) as f64 / 8.0);
        note.push(format!("n{}", next(5)));
        tag.push((i % 13 != 0).then(|| format!("t{}", next(4))));
        kind.push((i % 11 != 0).then(|| next(3) as i32));
    }
    let schema = Arc::new(Schema::new(vec![
        Field::new("zip", DataType::LargeUtf8, false),
        Field::new("age", DataType::Int64, false),
        Field::new("income", DataType::Int64, true),
        Field::new("score", DataType::Float64, false),
        Field::new("note", DataType::Utf8View, false),
        Field::new("tag", DataType::Utf8, true),
        Field::new(
            "kind",
            DataType::Dictionary(Box::new(DataType::Int32), Box::new(DataType::Utf8)),
            true,
        ),
        Field::new("wave", DataType::LargeUtf8, false),
    ]));
    let kinds = DictionaryArray::<arrow_array::types::Int32Type>::try_new(
        kind.into(),
        Arc::new(StringArray::from(vec!["x", "y", "z", "never used"])),
    )
    .unwrap();
    let columns: Vec<ArrayRef> = vec![
        Arc::new(LargeStringArray::from(zip)),
        Arc::new(Int64Array::from(age)),
        Arc::new(Int64Array::from(income)),
        Arc::new(Float64Array::from(score)),
        Arc::new(StringViewArray::from_iter_values(note)),
        Arc::new(StringArray::from(tag)),
        Arc::new(kinds),
        Arc::new(LargeStringArray::from(vec!["2024"; rows])),
    ];
    let batch = RecordBatch::try_new(schema.clone(), columns).unwrap();
    // two batches, as a stream hands them over
    let batches = vec![batch.slice(0, 250), batch.slice(250, rows - 250)];
    let text = "suppression_limit = 0.2\n\n[input]\n\n\
         [attributes.zip]\nrole = \"quasi-identifying\"\nhierarchy = { kind = \"mask\" }\n\n\
         [attributes.age]\nrole = \"quasi-identifying\"\nhierarchy = { kind = \"intervals\", widths = [5, 10, 20] }\n\n\
         [attributes.income]\nrole = \"sensitive\"\n\n\
         [attributes.score]\nrole = \"insensitive\"\n\n\
         [attributes.note]\nrole = \"insensitive\"\n\n\
         [attributes.tag]\nrole = \"insensitive\"\n\n\
         [attributes.kind]\nrole = \"insensitive\"\n\n\
         [attributes.wave]\nrole = \"insensitive\"\npublic = true\n\n\
         [[privacy]]\nmodel = \"k-anonymity\"\nk = 3\n\n[output]\nseed = 5\n";
    let config = Config::parse(text, Path::new("typed.toml"))
        .unwrap()
        .given_table("batches");
    let forms = both(&config, || {
        Some(Given::Arrow(schema.clone(), batches.clone()))
    });
    assert_same(&forms, "typed");
    let (out_schema, out) = &forms[1];
    let type_of = |name: &str| {
        out_schema
            .field_with_name(name)
            .unwrap()
            .data_type()
            .clone()
    };
    assert_eq!(type_of("income"), DataType::Int64);
    assert_eq!(type_of("score"), DataType::Float64);
    for name in ["zip", "age", "note", "tag", "kind", "wave"] {
        assert_eq!(type_of(name), DataType::Utf8, "{name}");
    }
    // some rows were suppressed: their typed cells are nulls, their string cells `*`,
    // but for the public column's
    let (mut starred, mut suppressed) = (0, 0);
    for b in out {
        let zip = b.column(0).as_any().downcast_ref::<StringArray>().unwrap();
        let score = b.column(3);
        let note = b.column(4).as_any().downcast_ref::<StringArray>().unwrap();
        let wave = b.column(7).as_any().downcast_ref::<StringArray>().unwrap();
        for r in 0..b.num_rows() {
            if zip.value(r) == "*" {
                suppressed += 1;
                assert!(score.is_null(r));
                starred += usize::from(note.value(r) == "*");
                assert_eq!(wave.value(r), "2024");
            }
        }
    }
    assert!(suppressed > 0, "the job suppresses rows");
    assert_eq!(starred, suppressed);
    let done = job::run_arrow(
        &config,
        Some(Given::Arrow(schema.clone(), batches.clone())),
        &Silent,
    )
    .unwrap();
    assert_eq!(done.report.suppressed_rows as usize, suppressed);
    // the given table's reading is the run's `read` time
    assert!(done.report.timings.unwrap().read > 0.0);
}
