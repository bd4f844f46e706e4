//! The release written as Parquet or Arrow IPC, from the audited CSV bytes, and checked
//! back from the file written.
//!
//! The audit judges the release's CSV bytes; this module turns exactly those bytes into a
//! columnar file, then reads the staged file back with the columnar reader of the data
//! layer and compares it cell by cell with the same bytes, so what is renamed into place
//! holds what was audited.
//!
//! **Types.** A released column keeps its source type ([`ColumnType::Source`]) when the
//! caller says it was not generalized (sensitive and insensitive columns of a level-based or
//! Mondrian release whose source was columnar); every other column is a string: labels,
//! intervals `[lo,hi]`, value sets, `*`. In a typed column the `*` of a suppressed row and
//! an empty cell (a null in the source) are written as null, so a suppressed row shows null
//! there; a reader of the file cannot tell the two apart, and needs not: neither shows a
//! value.

use std::io::{self, Write};
use std::path::Path;
use std::sync::Arc;

use arrow_array::builder::StringBuilder;
use arrow_array::{ArrayRef, RecordBatch};
use arrow_cast::{cast_with_options, CastOptions};
use arrow_schema::{DataType, Field, Schema};

use crate::data::table::{CsvFormat, Format, Table};
use crate::data::SUPPRESSED;
use crate::error::{Error, Location, ReleaseError, Result};

/// Rows per record batch (and Parquet row group chunk) written.
const BATCH_ROWS: usize = 64 * 1024;

/// The type a released column is written with.
#[derive(Debug, Clone, PartialEq)]
pub enum ColumnType {
    /// A string.
    Text,
    /// The source column's type (a column that was not generalized).
    Source(DataType),
}

impl ColumnType {
    fn arrow(&self) -> DataType {
        match self {
            ColumnType::Text => DataType::Utf8,
            // a dictionary is written as its values (each batch would need its own)
            ColumnType::Source(DataType::Dictionary(_, value)) => (**value).clone(),
            ColumnType::Source(DataType::Null) => DataType::Utf8,
            ColumnType::Source(t) => t.clone(),
        }
    }
    fn typed(&self) -> bool {
        self.arrow() != DataType::Utf8
    }
}

/// The written schema, as the report lists it: each column's name and type.
pub fn schema_of(header: &[String], types: &[ColumnType]) -> Vec<(String, String)> {
    header
        .iter()
        .zip(types)
        .map(|(name, t)| (name.clone(), t.arrow().to_string()))
        .collect()
}

fn invalid(e: impl std::fmt::Display) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, e.to_string())
}

fn reader<'a>(csv: &'a [u8], format: &CsvFormat) -> csv::Reader<&'a [u8]> {
    csv::ReaderBuilder::new()
        .delimiter(format.delimiter)
        .quote(format.quote)
        .has_headers(true)
        .from_reader(csv)
}

/// The header of the released table in `csv`.
pub fn header(csv: &[u8], format: &CsvFormat) -> io::Result<Vec<String>> {
    Ok(reader(csv, format)
        .headers()
        .map_err(invalid)?
        .iter()
        .map(str::to_owned)
        .collect())
}

/// The released table in `csv` (laid out as `format`) as record batches of `types`.
fn batches(
    csv: &[u8],
    format: &CsvFormat,
    types: &[ColumnType],
) -> io::Result<(Arc<Schema>, Vec<RecordBatch>)> {
    let mut reader = reader(csv, format);
    let header: Vec<String> = reader
        .headers()
        .map_err(invalid)?
        .iter()
        .map(str::to_owned)
        .collect();
    if header.len() != types.len() {
        return Err(invalid(format!(
            "{} columns released, {} types",
            header.len(),
            types.len()
        )));
    }
    let schema = Arc::new(Schema::new(
        header
            .iter()
            .zip(types)
            .map(|(name, t)| Field::new(name, t.arrow(), true))
            .collect::<Vec<_>>(),
    ));
    let mut out = Vec::new();
    let mut builders: Vec<StringBuilder> = types.iter().map(|_| StringBuilder::new()).collect();
    let mut rows = 0;
    let mut record = csv::StringRecord::new();
    let flush = |builders: &mut Vec<StringBuilder>| -> io::Result<RecordBatch> {
        let options = CastOptions {
            safe: false,
            ..Default::default()
        };
        let columns = builders
            .iter_mut()
            .zip(types)
            .map(|(b, t)| {
                let strings: ArrayRef = Arc::new(b.finish());
                if t.typed() {
                    cast_with_options(&strings, &t.arrow(), &options).map_err(invalid)
                } else {
                    Ok(strings)
                }
            })
            .collect::<io::Result<Vec<_>>>()?;
        RecordBatch::try_new(schema.clone(), columns).map_err(invalid)
    };
    while reader.read_record(&mut record).map_err(invalid)? {
        for ((cell, builder), t) in record.iter().zip(&mut builders).zip(types) {
            if t.typed() && (cell == SUPPRESSED || cell.is_empty()) {
                builder.append_null();
            } else {
                builder.append_value(cell);
            }
        }
        rows += 1;
        if rows == BATCH_ROWS {
            out.push(flush(&mut builders)?);
            rows = 0;
        }
    }
    if rows > 0 || out.is_empty() {
        out.push(flush(&mut builders)?);
    }
    Ok((schema, out))
}

/// Writes the released table in `csv` as `out` (Parquet or Arrow IPC) with `types`.
pub fn write(
    w: &mut dyn Write,
    csv: &[u8],
    format: &CsvFormat,
    out: Format,
    types: &[ColumnType],
) -> io::Result<()> {
    let (schema, batches) = batches(csv, format, types)?;
    match out {
        Format::Parquet => {
            // the writer wants an owned `Send` sink: the file is built in memory, as the
            // CSV release already is, then written out
            let mut bytes = Vec::new();
            let mut writer =
                parquet::arrow::ArrowWriter::try_new(&mut bytes, schema, None).map_err(invalid)?;
            for b in &batches {
                writer.write(b).map_err(invalid)?;
            }
            writer.close().map_err(invalid)?;
            w.write_all(&bytes)
        }
        Format::ArrowFile => {
            let mut writer = arrow_ipc::writer::FileWriter::try_new(w, &schema).map_err(invalid)?;
            for b in &batches {
                writer.write(b).map_err(invalid)?;
            }
            writer.finish().map_err(invalid)
        }
        Format::ArrowStream => {
            let mut writer =
                arrow_ipc::writer::StreamWriter::try_new(w, &schema).map_err(invalid)?;
            for b in &batches {
                writer.write(b).map_err(invalid)?;
            }
            writer.finish().map_err(invalid)
        }
        Format::Csv => w.write_all(csv),
    }
}

/// Reads the staged file at `staged` back (with the data layer's columnar reader) and
/// checks it holds the release in `csv` cell for cell: the same header, rows in the same
/// order, every cell the same string, but for a typed column's nulls, which stand for `*`
/// or an empty cell. `target` names the file in the error.
pub fn verify(
    staged: &Path,
    target: &Path,
    out: Format,
    csv: &[u8],
    format: &CsvFormat,
    types: &[ColumnType],
) -> Result<()> {
    let written = Table::read(staged, out, format, &crate::observer::Silent)?;
    let released = Table::from_bytes(csv, target, format)?;
    let fail = |row: Option<u64>, what: String| -> Error {
        Error::from(ReleaseError::Unfaithful {
            at: match row {
                Some(r) => Location::at(target, r, None),
                None => Location::file(target),
            },
            what,
        })
    };
    if written.header() != released.header() {
        return Err(fail(
            None,
            "the header differs from the audited release".into(),
        ));
    }
    if written.rows() != released.rows() {
        return Err(fail(
            None,
            format!(
                "{} rows written, {} audited",
                written.rows(),
                released.rows()
            ),
        ));
    }
    for (c, t) in types.iter().enumerate() {
        for r in 0..released.rows() {
            let (got, want) = (written.value(r, c), released.value(r, c));
            let null_for = t.typed() && got.is_empty() && (want == SUPPRESSED || want.is_empty());
            if got != want && !null_for {
                return Err(fail(
                    Some(r as u64 + 1),
                    format!(
                        "column `{}` reads `{}` where the audited release has `{}`",
                        released.header()[c],
                        crate::error::excerpt(got),
                        crate::error::excerpt(want)
                    ),
                ));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn staged(dir: &Path, name: &str, csv: &[u8], types: &[ColumnType]) -> std::path::PathBuf {
        let path = dir.join(name);
        let mut file = std::fs::File::create(&path).unwrap();
        write(
            &mut file,
            csv,
            &CsvFormat::default(),
            Format::Parquet,
            types,
        )
        .unwrap();
        path
    }

    #[test]
    fn a_file_that_differs_from_the_audited_release_is_refused_at_the_row() {
        let dir = tempfile::tempdir().unwrap();
        let types = [ColumnType::Source(DataType::Int64), ColumnType::Text];
        let audited = b"a,b\n1,x\n*,*\n2,y\n";
        // the same release: the star of the typed column is a null
        let same = staged(dir.path(), "same.parquet", audited, &types);
        let target = dir.path().join("out.parquet");
        verify(
            &same,
            &target,
            Format::Parquet,
            audited,
            &CsvFormat::default(),
            &types,
        )
        .unwrap();
        // one cell differs
        let other = staged(dir.path(), "other.parquet", b"a,b\n1,x\n*,*\n3,y\n", &types);
        let err = verify(
            &other,
            &target,
            Format::Parquet,
            audited,
            &CsvFormat::default(),
            &types,
        )
        .unwrap_err()
        .to_string();
        assert!(
            err.starts_with(&format!("{}:3:", target.display())),
            "{err}"
        );
        assert!(
            err.contains("reads `3` where the audited release has `2`"),
            "{err}"
        );
        // a row missing
        let short = staged(dir.path(), "short.parquet", b"a,b\n1,x\n*,*\n", &types);
        let err = verify(
            &short,
            &target,
            Format::Parquet,
            audited,
            &CsvFormat::default(),
            &types,
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains("2 rows written, 3 audited"), "{err}");
        // a string column's star is not a null
        let texts = [ColumnType::Text, ColumnType::Text];
        let starred = staged(dir.path(), "text.parquet", audited, &texts);
        verify(
            &starred,
            &target,
            Format::Parquet,
            audited,
            &CsvFormat::default(),
            &texts,
        )
        .unwrap();
        let (_, batches) = batches(audited, &CsvFormat::default(), &texts).unwrap();
        assert_eq!(batches[0].column(0).null_count(), 0);
    }

    #[test]
    fn a_typed_cell_that_does_not_parse_is_an_error_not_a_null() {
        let types = [ColumnType::Source(DataType::Int64)];
        let mut out = Vec::new();
        let err = write(
            &mut out,
            b"a\n1\nx\n",
            &CsvFormat::default(),
            Format::Parquet,
            &types,
        )
        .unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidData);
    }
}
