//! `cellsafe anonymize` on Parquet and Arrow tables (the `arrow` feature), judged by an
//! independent reader: arrow-rs's own Parquet and IPC readers open what cellsafe wrote, and
//! every cell is compared with the CSV release of the same job, same seed, on the same
//! data given as CSV. Generalized columns are strings; the others keep their source type,
//! with null where a suppressed row hides them.

#![cfg(feature = "arrow")]

use std::fs::File;
use std::path::Path;
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::{
    Array, ArrayRef, BooleanArray, Date32Array, Decimal128Array, Int64Array, RecordBatch,
    StringArray,
};
use arrow_schema::{DataType, Field, Schema};
use assert_cmd::Command;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const COLUMNS: [&str; 6] = ["age", "zip", "born", "income", "smoker", "diagnosis"];

/// A seeded table: as Arrow, and as the CSV text of the same values.
fn table(seed: u64, rows: usize) -> (Arc<Schema>, RecordBatch, String) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    // a few rare ages, which the optimum suppresses rather than widen every interval
    let age: Vec<i64> = (0..rows)
        .map(|_| {
            if rng.gen_bool(0.01) {
                rng.gen_range(100..400)
            } else {
                rng.gen_range(18..90)
            }
        })
        .collect();
    let zip: Vec<String> = (0..rows)
        .map(|_| format!("13{:03}", rng.gen_range(0..40)))
        .collect();
    let born: Vec<i32> = (0..rows).map(|_| rng.gen_range(0..20000)).collect();
    let income: Vec<i128> = (0..rows).map(|_| rng.gen_range(100..1_000_000)).collect();
    let smoker: Vec<bool> = (0..rows).map(|_| rng.gen_bool(0.3)).collect();
    let diagnosis: Vec<&str> = (0..rows)
        .map(|_| ["flu", "cold", "ulcer", "asthma"][rng.gen_range(0..4)])
        .collect();
    let schema = Arc::new(Schema::new(vec![
        Field::new("age", DataType::Int64, false),
        Field::new("zip", DataType::Utf8, false),
        Field::new("born", DataType::Date32, false),
        Field::new("income", DataType::Decimal128(9, 2), false),
        Field::new("smoker", DataType::Boolean, false),
        Field::new("diagnosis", DataType::Utf8, false),
    ]));
    let columns: Vec<ArrayRef> = vec![
        Arc::new(Int64Array::from(age.clone())),
        Arc::new(StringArray::from(zip.clone())),
        Arc::new(Date32Array::from(born.clone())),
        Arc::new(
            Decimal128Array::from(income.clone())
                .with_precision_and_scale(9, 2)
                .unwrap(),
        ),
        Arc::new(BooleanArray::from(smoker.clone())),
        Arc::new(StringArray::from(diagnosis.clone())),
    ];
    let batch = RecordBatch::try_new(schema.clone(), columns).unwrap();
    // the CSV twin, its cells as arrow prints them (dates through arrow's own cast)
    let dates = arrow_cast::cast(batch.column(2), &DataType::Utf8).unwrap();
    let dates = dates.as_string::<i32>();
    let mut csv = COLUMNS.join(",") + "\n";
    for i in 0..rows {
        csv += &format!(
            "{},{},{},{}.{:02},{},{}\n",
            age[i],
            zip[i],
            dates.value(i),
            income[i] / 100,
            income[i] % 100,
            smoker[i],
            diagnosis[i]
        );
    }
    (schema, batch, csv)
}

fn config(data: &str) -> String {
    format!(
        r#"suppression_limit = 0.05
[input]
path = "{data}"
[attributes.age]
role = "quasi-identifying"
hierarchy = {{ kind = "intervals", widths = [5, 10, 20, 40] }}
[attributes.zip]
role = "quasi-identifying"
hierarchy = {{ kind = "mask" }}
[attributes.born]
role = "insensitive"
[attributes.income]
role = "insensitive"
[attributes.smoker]
role = "insensitive"
[attributes.diagnosis]
role = "sensitive"
[[privacy]]
model = "k-anonymity"
k = 8
[output]
seed = 99
"#
    )
}

/// Every cell of a columnar file, as strings through arrow's cast (null stays None), with
/// the schema's types.
/// A file read back: its columns with their types, and its cells (None for a null).
type ReadBack = (Vec<(String, DataType)>, Vec<Vec<Option<String>>>);

fn read_back(path: &Path) -> ReadBack {
    let batches: Vec<RecordBatch> = match path.extension().unwrap().to_str().unwrap() {
        "parquet" => parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(
            File::open(path).unwrap(),
        )
        .unwrap()
        .build()
        .unwrap()
        .map(Result::unwrap)
        .collect(),
        "arrow" => arrow_ipc::reader::FileReader::try_new(File::open(path).unwrap(), None)
            .unwrap()
            .map(Result::unwrap)
            .collect(),
        _ => arrow_ipc::reader::StreamReader::try_new(File::open(path).unwrap(), None)
            .unwrap()
            .map(Result::unwrap)
            .collect(),
    };
    let schema = batches[0].schema();
    let fields = schema
        .fields()
        .iter()
        .map(|f| (f.name().clone(), f.data_type().clone()))
        .collect();
    let mut rows = Vec::new();
    for b in &batches {
        let strings: Vec<ArrayRef> = b
            .columns()
            .iter()
            .map(|c| arrow_cast::cast(c, &DataType::Utf8).unwrap())
            .collect();
        for r in 0..b.num_rows() {
            rows.push(
                strings
                    .iter()
                    .map(|c| {
                        let c = c.as_string::<i32>();
                        (!c.is_null(r)).then(|| c.value(r).to_string())
                    })
                    .collect(),
            );
        }
    }
    (fields, rows)
}

/// `cellsafe anonymize CONFIG --output OUTPUT --report REPORT`, for its verdict.
fn run(config: &Path, output: &Path, report: &Path) -> assert_cmd::assert::Assert {
    Command::cargo_bin("cellsafe")
        .unwrap()
        .arg("anonymize")
        .arg(config)
        .arg("--output")
        .arg(output)
        .arg("--report")
        .arg(report)
        .assert()
}

fn anonymize(config: &Path, output: &Path, report: &Path) {
    run(config, output, report).success();
}

#[test]
fn columnar_outputs_hold_the_csv_release_with_their_types() {
    let dir = tempfile::tempdir().unwrap();
    let (schema, batch, csv) = table(3, 3000);
    std::fs::write(dir.path().join("t.csv"), &csv).unwrap();
    let file = File::create(dir.path().join("t.parquet")).unwrap();
    let mut w = parquet::arrow::ArrowWriter::try_new(file, schema, None).unwrap();
    w.write(&batch).unwrap();
    w.close().unwrap();
    std::fs::write(dir.path().join("csv.toml"), config("t.csv")).unwrap();
    std::fs::write(dir.path().join("parquet.toml"), config("t.parquet")).unwrap();
    let csv_out = dir.path().join("r.csv");
    anonymize(
        &dir.path().join("csv.toml"),
        &csv_out,
        &dir.path().join("r.json"),
    );
    let mut reader = csv::Reader::from_path(&csv_out).unwrap();
    assert_eq!(reader.headers().unwrap(), COLUMNS.as_slice());
    let expected: Vec<Vec<String>> = reader
        .records()
        .map(|r| r.unwrap().iter().map(String::from).collect())
        .collect();
    let suppressed = expected.iter().filter(|r| r[0] == "*").count();
    assert!(suppressed > 0, "the job is meant to suppress some rows");
    for name in ["out.parquet", "out.arrow", "out.arrows"] {
        let out = dir.path().join(name);
        let report = dir.path().join(format!("{name}.json"));
        anonymize(&dir.path().join("parquet.toml"), &out, &report);
        let (fields, rows) = read_back(&out);
        let types: Vec<&DataType> = fields.iter().map(|(_, t)| t).collect();
        assert_eq!(
            types,
            [
                &DataType::Utf8, // generalized
                &DataType::Utf8,
                &DataType::Date32, // kept
                &DataType::Decimal128(9, 2),
                &DataType::Boolean,
                &DataType::Utf8,
            ],
            "{name}"
        );
        assert_eq!(rows.len(), expected.len(), "{name}");
        for (r, (got, want)) in rows.iter().zip(&expected).enumerate() {
            for c in 0..COLUMNS.len() {
                let typed = !matches!(fields[c].1, DataType::Utf8);
                match &got[c] {
                    Some(v) => assert_eq!(v, &want[c], "{name}: row {r} column {c}"),
                    None => assert!(typed && want[c] == "*", "{name}: row {r} column {c}"),
                }
            }
        }
        let report: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
        assert_eq!(report["output_schema"][2]["type"], "Date32", "{name}");
        assert_eq!(report["output_schema"][0]["type"], "Utf8", "{name}");
        assert_eq!(report["audit"]["passed"], true, "{name}");
    }
    // the default output keeps the input's format
    let config_path = dir.path().join("parquet.toml");
    Command::cargo_bin("cellsafe")
        .unwrap()
        .arg("anonymize")
        .arg(&config_path)
        .arg("--report")
        .arg(dir.path().join("default.json"))
        .assert()
        .success();
    let (_, rows) = read_back(&dir.path().join("t.anonymized.parquet"));
    assert_eq!(rows.len(), expected.len());
}

#[test]
fn an_unknown_output_format_is_named_by_its_key_and_nothing_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let (_, _, csv) = table(4, 200);
    std::fs::write(dir.path().join("t.csv"), &csv).unwrap();
    let text = config("t.csv").replace("[output]\n", "[output]\nformat = \"xlsx\"\n");
    std::fs::write(dir.path().join("c.toml"), text).unwrap();
    let out = dir.path().join("r.bin");
    run(&dir.path().join("c.toml"), &out, &dir.path().join("r.json"))
        .code(1)
        .stderr(predicates::str::contains("config key `output.format`"));
    assert!(!out.exists());
    assert!(!dir.path().join("r.json").exists());
}

#[test]
fn an_lgb_release_is_refused_as_parquet_before_any_work() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("lgb.parquet");
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/lgb/lgb.toml");
    run(&examples, &out, &dir.path().join("r.json"))
        .code(1)
        .stderr(predicates::str::contains(
            "an LGB release (a main table and bucket tables) cannot be written as Parquet",
        ));
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

/// README's Parquet job: examples/adult/adult-parquet.toml releases, byte for byte, what
/// adult.toml releases from the CSV (both with one seed, both written as CSV), and as
/// Parquet the same rows.
#[test]
fn the_bundled_parquet_job_releases_what_the_csv_job_releases() {
    let dir = tempfile::tempdir().unwrap();
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/adult");
    let mut outputs = Vec::new();
    for name in ["adult.toml", "adult-parquet.toml"] {
        let text = std::fs::read_to_string(examples.join(name)).unwrap();
        let config = dir.path().join(name);
        // the copy reads the bundled data where it is, with one shuffle seed
        let text =
            text.replace(
                "path = \"adult",
                &format!("path = \"{}/adult", examples.display()),
            )
            .replace(
                "hierarchy = \"adult_",
                &format!("hierarchy = \"{}/adult_", examples.display()),
            ) + "\n[output]\nseed = 12345\n";
        std::fs::write(&config, text).unwrap();
        let out = dir.path().join(format!("{name}.csv"));
        anonymize(&config, &out, &dir.path().join(format!("{name}.json")));
        // the CSV job writes with its input's `;`, the Parquet job with the default `,`
        let delimiter = if name == "adult.toml" { b';' } else { b',' };
        let records: Vec<Vec<String>> = csv::ReaderBuilder::new()
            .delimiter(delimiter)
            .has_headers(false)
            .from_path(&out)
            .unwrap()
            .records()
            .map(|r| r.unwrap().iter().map(String::from).collect())
            .collect();
        outputs.push(records);
    }
    assert_eq!(outputs[0].len(), outputs[1].len());
    for (i, (a, b)) in outputs[0].iter().zip(&outputs[1]).enumerate() {
        assert_eq!(a, b, "line {}", i + 1);
    }
    let out = dir.path().join("released.parquet");
    anonymize(
        &dir.path().join("adult-parquet.toml"),
        &out,
        &dir.path().join("p.json"),
    );
    let (_, rows) = read_back(&out);
    assert_eq!(rows.len() + 1, outputs[0].len());
    for (r, row) in rows.iter().enumerate() {
        let want: Vec<Option<String>> = outputs[0][r + 1].iter().cloned().map(Some).collect();
        assert_eq!(row, &want, "row {r}");
    }
}

/// A corrupt Parquet input through the CLI: exit 1, a message naming the file, no output,
/// and the input left as it was.
#[test]
fn a_corrupt_parquet_input_exits_1_naming_it_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let (schema, batch, _) = table(9, 500);
    let good = dir.path().join("good.parquet");
    let mut w =
        parquet::arrow::ArrowWriter::try_new(File::create(&good).unwrap(), schema, None).unwrap();
    w.write(&batch).unwrap();
    w.close().unwrap();
    let bytes = std::fs::read(&good).unwrap();
    let input = dir.path().join("t.parquet");
    std::fs::write(&input, &bytes[..bytes.len() / 2]).unwrap();
    std::fs::write(dir.path().join("c.toml"), config("t.parquet")).unwrap();
    let out = dir.path().join("r.parquet");
    let report = dir.path().join("r.json");
    run(&dir.path().join("c.toml"), &out, &report)
        .code(1)
        .stderr(predicates::str::contains(input.display().to_string()));
    assert!(!out.exists() && !report.exists());
    assert_eq!(std::fs::read(&input).unwrap(), &bytes[..bytes.len() / 2]);
    // nothing staged is left beside the outputs
    let left: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.'))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}
