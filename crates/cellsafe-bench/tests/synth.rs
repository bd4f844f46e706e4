//! `synth --format parquet` writes the rows `synth` writes as CSV for the same seed, typed
//! (`age` an integer column), read back through cellsafe's own readers.

#![cfg(feature = "arrow")]

use cellsafe::data::table::{CsvFormat, Format, Table};
use cellsafe::observer::Silent;

#[test]
fn parquet_and_csv_hold_the_same_rows_for_one_seed() {
    let dir = tempfile::tempdir().unwrap();
    let (csv, parquet) = (dir.path().join("s.csv"), dir.path().join("s.parquet"));
    // more rows than one batch, so several row groups are written
    let rows = 70_000;
    cellsafe_bench::synth::write_adult(&csv, rows, 5, 0.2).unwrap();
    cellsafe_bench::synth::write_adult_parquet(&parquet, rows, 5, 0.2).unwrap();
    let format = CsvFormat {
        delimiter: b';',
        ..CsvFormat::default()
    };
    let a = Table::read(&csv, Format::Csv, &format, &Silent).unwrap();
    let b = Table::read(&parquet, Format::Parquet, &format, &Silent).unwrap();
    assert_eq!(a.header(), b.header());
    assert_eq!((a.rows(), b.rows()), (rows, rows));
    for c in 0..a.header().len() {
        for r in 0..rows {
            assert_eq!(a.value(r, c), b.value(r, c), "row {r}, column {c}");
        }
    }
    let schema = b.source_schema().unwrap().arrow().clone();
    let age = schema.field_with_name("age").unwrap();
    assert_eq!(age.data_type(), &arrow_schema::DataType::Int64);
    // nothing is left beside the file
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2);
    // a different seed gives other rows
    let other = dir.path().join("o.parquet");
    cellsafe_bench::synth::write_adult_parquet(&other, 100, 6, 0.2).unwrap();
    let o = Table::read(&other, Format::Parquet, &format, &Silent).unwrap();
    assert!((0..100).any(|r| (0..a.header().len()).any(|c| o.value(r, c) != b.value(r, c))));
}
