//! Parquet and Arrow IPC sources (the `arrow` feature): a typed random table written by
//! arrow-rs's own writers is read back cell for cell as the strings an independent oracle
//! prints for its values, and the same job on it releases exactly what it releases on
//! those strings as CSV. Bad files give errors that name them.

#![cfg(feature = "arrow")]

use std::fs::File;
use std::path::Path;
use std::sync::Arc;

use arrow_array::builder::{ListBuilder, StringBuilder};
use arrow_array::types::Int32Type;
use arrow_array::{
    ArrayRef, BooleanArray, Date32Array, Decimal128Array, DictionaryArray, Float64Array,
    Int32Array, Int64Array, RecordBatch, StringArray,
};
use arrow_schema::{DataType, Field, Schema};
use cellsafe::data::table::{CsvFormat, Format};
use cellsafe::observer::Silent;
use cellsafe::{Anonymizer, Builder, ModelSpec, Table};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The civil date of `days` since 1970-01-01 (Hinnant's algorithm), as `YYYY-MM-DD`.
fn civil(days: i64) -> String {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}

/// A seeded random table: as Arrow batches, and as the strings each cell must read as.
fn random(
    seed: u64,
    rows: usize,
    batch: usize,
) -> (Arc<Schema>, Vec<RecordBatch>, Vec<Vec<String>>) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let schema = Arc::new(Schema::new(vec![
        Field::new("age", DataType::Int64, false),
        Field::new("zip", DataType::Utf8, true),
        Field::new("born", DataType::Date32, false),
        Field::new("income", DataType::Decimal128(9, 2), false),
        Field::new("score", DataType::Float64, false),
        Field::new("smoker", DataType::Boolean, false),
        Field::new(
            "diagnosis",
            DataType::Dictionary(Box::new(DataType::Int32), Box::new(DataType::Utf8)),
            false,
        ),
    ]));
    let mut expected = Vec::new();
    let mut batches = Vec::new();
    let mut start = 0;
    while start < rows {
        let n = batch.min(rows - start);
        let age: Vec<i64> = (0..n).map(|_| rng.gen_range(18..90)).collect();
        let zip: Vec<Option<String>> = (0..n)
            .map(|_| (rng.gen_range(0..10) > 0).then(|| format!("130{}", rng.gen_range(0..8))))
            .collect();
        let born: Vec<i32> = (0..n).map(|_| rng.gen_range(-5000..20000)).collect();
        let income: Vec<i128> = (0..n).map(|_| rng.gen_range(0..10_000_000)).collect();
        let score: Vec<f64> = (0..n)
            .map(|_| f64::from(rng.gen_range(0..400)) + 0.25)
            .collect();
        let smoker: Vec<bool> = (0..n).map(|_| rng.gen_bool(0.3)).collect();
        // one dictionary for every batch (an IPC file holds one per field)
        let names = ["flu", "cold", "ulcer", "asthma"];
        let keys: Vec<i32> = (0..n).map(|_| rng.gen_range(0..4)).collect();
        let diagnosis: Vec<&str> = keys.iter().map(|&k| names[k as usize]).collect();
        for i in 0..n {
            expected.push(vec![
                age[i].to_string(),
                zip[i].clone().unwrap_or_default(),
                civil(i64::from(born[i])),
                format!("{}.{:02}", income[i] / 100, income[i] % 100),
                format!("{}", score[i]),
                smoker[i].to_string(),
                diagnosis[i].to_string(),
            ]);
        }
        let columns: Vec<ArrayRef> = vec![
            Arc::new(Int64Array::from(age)),
            Arc::new(StringArray::from(zip)),
            Arc::new(Date32Array::from(born)),
            Arc::new(
                Decimal128Array::from(income)
                    .with_precision_and_scale(9, 2)
                    .unwrap(),
            ),
            Arc::new(Float64Array::from(score)),
            Arc::new(BooleanArray::from(smoker)),
            Arc::new(
                DictionaryArray::<Int32Type>::try_new(
                    Int32Array::from(keys),
                    Arc::new(StringArray::from(names.to_vec())),
                )
                .unwrap(),
            ),
        ];
        batches.push(RecordBatch::try_new(schema.clone(), columns).unwrap());
        start += n;
    }
    (schema, batches, expected)
}

fn write_parquet(path: &Path, schema: &Arc<Schema>, batches: &[RecordBatch]) {
    let file = File::create(path).unwrap();
    let mut writer = parquet::arrow::ArrowWriter::try_new(file, schema.clone(), None).unwrap();
    for b in batches {
        writer.write(b).unwrap();
    }
    writer.close().unwrap();
}

fn write_ipc(path: &Path, schema: &Arc<Schema>, batches: &[RecordBatch], stream: bool) {
    let file = File::create(path).unwrap();
    if stream {
        let mut w = arrow_ipc::writer::StreamWriter::try_new(file, schema).unwrap();
        for b in batches {
            w.write(b).unwrap();
        }
        w.finish().unwrap();
    } else {
        let mut w = arrow_ipc::writer::FileWriter::try_new(file, schema).unwrap();
        for b in batches {
            w.write(b).unwrap();
        }
        w.finish().unwrap();
    }
}

fn header() -> Vec<String> {
    [
        "age",
        "zip",
        "born",
        "income",
        "score",
        "smoker",
        "diagnosis",
    ]
    .map(String::from)
    .to_vec()
}

fn assert_cells(table: &Table, expected: &[Vec<String>], what: &str) {
    assert_eq!(table.header(), header().as_slice(), "{what}");
    assert_eq!(table.rows(), expected.len(), "{what}");
    for (r, row) in expected.iter().enumerate() {
        for (c, want) in row.iter().enumerate() {
            assert_eq!(table.value(r, c), want, "{what}: row {r}, column {c}");
        }
    }
}

#[test]
fn every_columnar_format_reads_as_the_oracle_prints() {
    let dir = tempfile::tempdir().unwrap();
    for (seed, rows, batch) in [(1, 1, 1), (2, 500, 64), (3, 3000, 1000)] {
        let (schema, batches, expected) = random(seed, rows, batch);
        let files = [
            ("t.parquet", Format::Parquet),
            ("t.arrow", Format::ArrowFile),
            ("t.arrows", Format::ArrowStream),
        ];
        for (name, format) in files {
            let path = dir.path().join(name);
            match format {
                Format::Parquet => write_parquet(&path, &schema, &batches),
                Format::ArrowFile => write_ipc(&path, &schema, &batches, false),
                _ => write_ipc(&path, &schema, &batches, true),
            }
            assert_eq!(Format::from_extension(&path), format);
            let table = Table::read(&path, format, &CsvFormat::default(), &Silent).unwrap();
            assert_cells(&table, &expected, name);
            assert!(table.source_schema().is_some());
        }
        let table = Table::from_record_batches(schema, &batches).unwrap();
        assert_cells(&table, &expected, "in memory");
    }
}

/// The same job on the Parquet file and on the oracle's strings (as CSV rows) releases
/// the same bytes.
#[test]
fn a_job_on_parquet_releases_what_it_releases_on_the_same_csv() {
    let dir = tempfile::tempdir().unwrap();
    let (schema, batches, expected) = random(7, 4000, 512);
    let path = dir.path().join("t.parquet");
    write_parquet(&path, &schema, &batches);
    let parquet = Table::read(&path, Format::Parquet, &CsvFormat::default(), &Silent).unwrap();
    let strings = Table::from_rows(header(), &expected).unwrap();
    let run = |table: &Table| {
        Anonymizer::new(table)
            .quasi_identifier("age", Builder::intervals(&[5.0, 10.0, 20.0, 40.0]))
            .quasi_identifier("zip", Builder::mask())
            .sensitive("diagnosis")
            .insensitive("smoker")
            .model(ModelSpec::KAnonymity { k: 5 })
            .suppression_limit(0.02)
            .seed(11)
            .run()
            .unwrap()
    };
    let (a, b) = (run(&parquet), run(&strings));
    assert_eq!(a.levels(), b.levels());
    assert_eq!(a.csv(), b.csv());
    assert!(a.audit().is_some_and(|x| x.passed));
}

#[test]
fn a_column_of_an_unsupported_type_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let mut list = ListBuilder::new(StringBuilder::new());
    list.values().append_value("a");
    list.append(true);
    let schema = Arc::new(Schema::new(vec![
        Field::new("id", DataType::Int64, false),
        Field::new(
            "codes",
            DataType::List(Arc::new(Field::new_list_field(DataType::Utf8, true))),
            true,
        ),
    ]));
    let batch = RecordBatch::try_new(
        schema.clone(),
        vec![Arc::new(Int64Array::from(vec![1])), Arc::new(list.finish())],
    )
    .unwrap();
    let path = dir.path().join("l.parquet");
    write_parquet(&path, &schema, &[batch]);
    let err = Table::read(&path, Format::Parquet, &CsvFormat::default(), &Silent)
        .unwrap_err()
        .to_string();
    assert!(err.starts_with(&path.display().to_string()), "{err}");
    assert!(err.contains("column `codes` has type List"), "{err}");
}

#[test]
fn truncated_and_foreign_files_are_refused_naming_them() {
    let dir = tempfile::tempdir().unwrap();
    let (schema, batches, _) = random(5, 2000, 300);
    let good = dir.path().join("good.parquet");
    write_parquet(&good, &schema, &batches);
    let bytes = std::fs::read(&good).unwrap();
    let cases: Vec<(&str, Vec<u8>, Format)> = vec![
        (
            "cut.parquet",
            bytes[..bytes.len() / 2].to_vec(),
            Format::Parquet,
        ),
        (
            "tail.parquet",
            bytes[..bytes.len() - 3].to_vec(),
            Format::Parquet,
        ),
        ("empty.parquet", Vec::new(), Format::Parquet),
        ("csv.parquet", b"a,b\n1,2\n".to_vec(), Format::Parquet),
        ("csv.arrow", b"a,b\n1,2\n".to_vec(), Format::ArrowFile),
        ("csv.arrows", b"a,b\n1,2\n".to_vec(), Format::ArrowStream),
        ("parquet.arrow", bytes.clone(), Format::ArrowFile),
    ];
    for (name, content, format) in cases {
        let path = dir.path().join(name);
        std::fs::write(&path, &content).unwrap();
        let err = Table::read(&path, format, &CsvFormat::default(), &Silent)
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with(&path.display().to_string()),
            "{name}: {err}"
        );
        // the input is never modified
        assert_eq!(std::fs::read(&path).unwrap(), content, "{name}");
    }
    // a page corrupted in the middle: an error, never a panic
    let mut corrupt = bytes.clone();
    for b in &mut corrupt[bytes.len() / 3..bytes.len() / 3 + 64] {
        *b ^= 0x5a;
    }
    let path = dir.path().join("corrupt.parquet");
    std::fs::write(&path, &corrupt).unwrap();
    match Table::read(&path, Format::Parquet, &CsvFormat::default(), &Silent) {
        Err(e) => assert!(
            e.to_string().starts_with(&path.display().to_string()),
            "{e}"
        ),
        // a flip inside compressed data may still decode: then it reads as some table
        Ok(t) => assert_eq!(t.rows(), 2000),
    }
}

#[cfg(unix)]
#[test]
fn a_parquet_file_must_be_a_regular_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("pipe.parquet");
    assert!(std::process::Command::new("mkfifo")
        .arg(&path)
        .status()
        .unwrap()
        .success());
    // refused before it is opened (opening a FIFO with no writer would wait)
    let err = Table::read(&path, Format::Parquet, &CsvFormat::default(), &Silent)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("FIFO") && err.contains("regular file"),
        "{err}"
    );
}
