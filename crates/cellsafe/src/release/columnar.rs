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

use std::io::{self, Read, Write};
use std::path::Path;
use std::sync::Arc;

use arrow_array::builder::StringBuilder;
use arrow_array::{ArrayRef, RecordBatch};
use arrow_cast::{cast_with_options, CastOptions};
use arrow_schema::{DataType, Field, Schema};

use crate::algorithm::problem::Problem;
use crate::data::table::scan::{RowSource, Scan};
use crate::data::table::{CsvFormat, Format, SourceSchema};
use crate::data::{Role, SUPPRESSED};
use crate::error::{Error, Location, ReleaseError, Result};
use crate::release::ReleasedTable;

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
            ColumnType::Source(DataType::Dictionary(_, value)) => {
                ColumnType::Source((**value).clone()).arrow()
            }
            // every string type is written as a string: a suppressed cell shows `*`
            ColumnType::Source(
                DataType::Null | DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View,
            ) => DataType::Utf8,
            // Arrow reads no string back as a duration or interval: written as the strings
            // the source's values printed as
            ColumnType::Source(DataType::Duration(_) | DataType::Interval(_)) => DataType::Utf8,
            ColumnType::Source(t) => t.clone(),
        }
    }
    fn typed(&self) -> bool {
        self.arrow() != DataType::Utf8
    }
}

/// The type each released column in `header` is written with: its source's type (from
/// `schema`) when `kept` says the release keeps the column's values as they are, a string
/// otherwise.
pub fn column_types(
    header: &[String],
    kept: impl Fn(&str) -> bool,
    schema: Option<&SourceSchema>,
) -> Vec<ColumnType> {
    header
        .iter()
        .map(|name| {
            let source = schema.and_then(|s| s.arrow().field_with_name(name).ok());
            match source {
                Some(field) if kept(name) => ColumnType::Source(field.data_type().clone()),
                _ => ColumnType::Text,
            }
        })
        .collect()
}

/// The type each column in `header` of a release of `problem` is written with: its
/// source's type for a sensitive or insensitive column, which a level-based or Mondrian
/// release keeps as it is; a string for every other column, and for every column of a
/// set-based release, which may generalize any cell.
pub fn release_types(problem: &Problem, header: &[String], set_based: bool) -> Vec<ColumnType> {
    let data = &problem.data;
    column_types(
        header,
        |name| {
            !set_based
                && data
                    .table
                    .column_index(name)
                    .is_some_and(|c| matches!(data.roles[c], Role::Sensitive | Role::Insensitive))
        },
        data.table.source_schema(),
    )
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

fn reader<R: Read>(csv: R, format: &CsvFormat) -> csv::Reader<R> {
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

/// The released table read from CSV, turned into record batches of given types one at a
/// time.
struct Batches<'t, R: Read> {
    reader: csv::Reader<R>,
    types: &'t [ColumnType],
    schema: Arc<Schema>,
    builders: Vec<StringBuilder>,
    record: csv::StringRecord,
    /// Whether a batch was made (an empty table still makes one).
    made: bool,
}

impl<'t, R: Read> Batches<'t, R> {
    fn new(csv: R, format: &CsvFormat, types: &'t [ColumnType]) -> io::Result<Self> {
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
        Ok(Batches {
            reader,
            types,
            schema,
            builders: types.iter().map(|_| StringBuilder::new()).collect(),
            record: csv::StringRecord::new(),
            made: false,
        })
    }

    /// The next batch of at most [`BATCH_ROWS`] rows, `None` after the last.
    fn next_batch(&mut self) -> io::Result<Option<RecordBatch>> {
        let mut rows = 0;
        while rows < BATCH_ROWS && self.reader.read_record(&mut self.record).map_err(invalid)? {
            for ((cell, builder), t) in self.record.iter().zip(&mut self.builders).zip(self.types) {
                if t.typed() && (cell == SUPPRESSED || cell.is_empty()) {
                    builder.append_null();
                } else {
                    builder.append_value(cell);
                }
            }
            rows += 1;
        }
        if rows == 0 && self.made {
            return Ok(None);
        }
        self.made = true;
        let options = CastOptions {
            safe: false,
            ..Default::default()
        };
        let columns = self
            .builders
            .iter_mut()
            .zip(self.types)
            .map(|(b, t)| {
                let strings: ArrayRef = Arc::new(b.finish());
                if t.typed() {
                    cast_with_options(&strings, &t.arrow(), &options).map_err(invalid)
                } else {
                    Ok(strings)
                }
            })
            .collect::<io::Result<Vec<_>>>()?;
        RecordBatch::try_new(self.schema.clone(), columns)
            .map(Some)
            .map_err(invalid)
    }
}

/// The released table read from `csv` (laid out as `format`) as record batches of
/// `types`, in memory.
pub fn record_batches(
    csv: impl Read,
    format: &CsvFormat,
    types: &[ColumnType],
) -> io::Result<(Arc<Schema>, Vec<RecordBatch>)> {
    let mut batches = Batches::new(csv, format, types)?;
    let mut all = Vec::new();
    while let Some(b) = batches.next_batch()? {
        all.push(b);
    }
    Ok((batches.schema, all))
}

/// The released table made as Arrow straight from its cells, without CSV: the header,
/// then input rows `order`, every column's cells as strings, in batches of at most
/// 65,536 rows. This is what the audit reads back, as a recipient reads the
/// strings, and what [`typed`] turns into the columns handed over.
pub fn strings(
    released: &dyn ReleasedTable,
    order: &[usize],
) -> io::Result<(Arc<Schema>, Vec<RecordBatch>)> {
    let header = released.header();
    let schema = Arc::new(Schema::new(
        header
            .iter()
            .map(|name| Field::new(*name, DataType::Utf8, false))
            .collect::<Vec<_>>(),
    ));
    let mut batches = Vec::new();
    let mut cells = Vec::new();
    // an empty release is still one batch
    let blocks: Vec<&[usize]> = if order.is_empty() {
        vec![&[]]
    } else {
        order.chunks(BATCH_ROWS).collect()
    };
    for block in blocks {
        // a column at a time where the table can (its cells gathered, then copied into
        // an array of the exact size), else row by row
        let mut cells_of: Vec<&str> = Vec::with_capacity(block.len());
        let mut columns: Vec<ArrayRef> = Vec::with_capacity(header.len());
        for c in 0..header.len() {
            cells_of.clear();
            if !released.column_each(c, block, &mut |cell| cells_of.push(cell)) {
                break;
            }
            let bytes = cells_of.iter().map(|cell| cell.len()).sum();
            let mut builder = StringBuilder::with_capacity(cells_of.len(), bytes);
            for cell in &cells_of {
                builder.append_value(cell);
            }
            columns.push(Arc::new(builder.finish()));
        }
        if columns.len() == header.len() {
            batches.push(RecordBatch::try_new(schema.clone(), columns).map_err(invalid)?);
            continue;
        }
        let mut builders: Vec<StringBuilder> = header
            .iter()
            .map(|_| StringBuilder::with_capacity(block.len(), block.len() * 8))
            .collect();
        for rows in block.chunks(PREFETCH_ROWS) {
            released.prefetch_rows(rows);
            for &row in rows {
                cells.clear();
                released.cells_into(row, &mut cells);
                if cells.len() != builders.len() {
                    return Err(invalid(format!(
                        "{} cells released in a row of {} columns",
                        cells.len(),
                        builders.len()
                    )));
                }
                for (builder, cell) in builders.iter_mut().zip(&cells) {
                    builder.append_value(cell);
                }
            }
        }
        let columns: Vec<ArrayRef> = builders
            .iter_mut()
            .map(|b| Arc::new(b.finish()) as ArrayRef)
            .collect();
        batches.push(RecordBatch::try_new(schema.clone(), columns).map_err(invalid)?);
    }
    Ok((schema, batches))
}

/// Rows whose data [`strings`] asks the CPU to load ahead (as the CSV writer does).
const PREFETCH_ROWS: usize = 512;

/// The release made by [`strings`] with each column of `types` typed: a typed column's
/// `*` (a suppressed row) and empty cells (a null in the source) become nulls, every other
/// cell is parsed as the type, and printed back must give the string the audit read, or
/// the release is refused (`InvalidData`, naming the column and the 1-based row). A
/// string column is the very array the audit read.
pub fn typed(
    strings: &[RecordBatch],
    types: &[ColumnType],
) -> io::Result<(Arc<Schema>, Vec<RecordBatch>)> {
    let Some(first) = strings.first() else {
        return Err(invalid("a release of no batch"));
    };
    let header = first.schema();
    if header.fields().len() != types.len() {
        return Err(invalid(format!(
            "{} columns released, {} types",
            header.fields().len(),
            types.len()
        )));
    }
    let schema = Arc::new(Schema::new(
        header
            .fields()
            .iter()
            .zip(types)
            .map(|(f, t)| Field::new(f.name(), t.arrow(), true))
            .collect::<Vec<_>>(),
    ));
    let options = CastOptions {
        safe: false,
        ..Default::default()
    };
    let mut out = Vec::with_capacity(strings.len());
    let mut first_row = 0;
    for batch in strings {
        let mut columns = Vec::with_capacity(types.len());
        for (c, t) in types.iter().enumerate() {
            let column = batch.column(c);
            if !t.typed() {
                columns.push(column.clone());
                continue;
            }
            let cells = column
                .as_any()
                .downcast_ref::<arrow_array::StringArray>()
                .ok_or_else(|| invalid("a released column is not made of strings"))?;
            let shown: arrow_array::StringArray = cells
                .iter()
                .map(|v| v.filter(|v| *v != SUPPRESSED && !v.is_empty()))
                .collect();
            let cast = cast_with_options(&shown, &t.arrow(), &options)
                .map_err(|e| invalid(format!("column `{}`: {e}", header.field(c).name())))?;
            // printed back, every value is the string the audit read
            let back = cast_with_options(&cast, &DataType::Utf8, &options).map_err(invalid)?;
            let back = back
                .as_any()
                .downcast_ref::<arrow_array::StringArray>()
                .ok_or_else(|| invalid("a typed column not printed as strings"))?;
            for (r, (got, want)) in back.iter().zip(shown.iter()).enumerate() {
                if got != want {
                    return Err(invalid(format!(
                        "column `{}`, row {}: `{}` reads back as `{}`",
                        header.field(c).name(),
                        first_row + r + 1,
                        crate::error::excerpt(want.unwrap_or("")),
                        crate::error::excerpt(got.unwrap_or(""))
                    )));
                }
            }
            columns.push(cast);
        }
        out.push(RecordBatch::try_new(schema.clone(), columns).map_err(invalid)?);
        first_row += batch.num_rows();
    }
    Ok((schema, out))
}

/// Writes the released table read from `csv` (laid out as `format`) as `out` (Parquet or
/// Arrow IPC) with `types`, a batch at a time.
pub fn write(
    w: &mut (dyn Write + Send),
    mut csv: impl Read,
    format: &CsvFormat,
    out: Format,
    types: &[ColumnType],
) -> io::Result<()> {
    if out == Format::Csv {
        return io::copy(&mut csv, w).map(|_| ());
    }
    let mut batches = Batches::new(csv, format, types)?;
    let schema = batches.schema.clone();
    match out {
        Format::Parquet => {
            let mut writer =
                parquet::arrow::ArrowWriter::try_new(w, schema, None).map_err(invalid)?;
            while let Some(b) = batches.next_batch()? {
                writer.write(&b).map_err(invalid)?;
            }
            writer.close().map(|_| ()).map_err(invalid)
        }
        Format::ArrowFile => {
            let mut writer = arrow_ipc::writer::FileWriter::try_new(w, &schema).map_err(invalid)?;
            while let Some(b) = batches.next_batch()? {
                writer.write(&b).map_err(invalid)?;
            }
            writer.finish().map_err(invalid)
        }
        Format::ArrowStream => {
            let mut writer =
                arrow_ipc::writer::StreamWriter::try_new(w, &schema).map_err(invalid)?;
            while let Some(b) = batches.next_batch()? {
                writer.write(&b).map_err(invalid)?;
            }
            writer.finish().map_err(invalid)
        }
        Format::Csv => unreachable!("a CSV release is copied above"),
    }
}

/// Reads the staged file at `staged` back (with the data layer's columnar reader, a
/// batch at a time) and checks it holds the release read from `csv` cell for cell: the
/// same header, rows in the same order, every cell the same string, but for a typed
/// column's nulls, which stand for `*` or an empty cell. `target` names the file in the
/// error.
pub fn verify(
    staged: &Path,
    target: &Path,
    out: Format,
    csv: impl Read,
    format: &CsvFormat,
    types: &[ColumnType],
) -> Result<()> {
    let fail = |row: Option<u64>, what: String| -> Error {
        Error::from(ReleaseError::Unfaithful {
            at: match row {
                Some(r) => Location::at(target, r, None),
                None => Location::file(target),
            },
            what,
        })
    };
    let written = Scan::open(staged, out, format)?;
    let mut audited = reader(csv, format);
    let header: Vec<String> = audited
        .headers()
        .map_err(|e| Error::io(target, invalid(e)))?
        .iter()
        .map(str::to_owned)
        .collect();
    if written.header() != header.as_slice() {
        return Err(fail(
            None,
            "the header differs from the audited release".into(),
        ));
    }
    let all: Vec<usize> = (0..header.len()).collect();
    let mut record = csv::StringRecord::new();
    let mut audited_rows: u64 = 0;
    let mut exhausted = false;
    let written_rows = written.batches(&all, &crate::observer::Silent, &mut |batch| {
        for r in 0..batch.len() {
            if exhausted {
                continue;
            }
            if !audited
                .read_record(&mut record)
                .map_err(|e| Error::io(target, invalid(e)))?
            {
                exhausted = true;
                continue;
            }
            audited_rows += 1;
            for (c, t) in types.iter().enumerate() {
                let (got, want) = (batch.value(r, c), record.get(c).unwrap_or(""));
                let null_for =
                    t.typed() && got.is_empty() && (want == SUPPRESSED || want.is_empty());
                if got != want && !null_for {
                    return Err(fail(
                        Some(audited_rows),
                        format!(
                            "column `{}` reads `{}` where the audited release has `{}`",
                            header[c],
                            crate::error::excerpt(got),
                            crate::error::excerpt(want)
                        ),
                    ));
                }
            }
        }
        Ok(())
    })?;
    while audited
        .read_record(&mut record)
        .map_err(|e| Error::io(target, invalid(e)))?
    {
        audited_rows += 1;
    }
    if written_rows != audited_rows {
        return Err(fail(
            None,
            format!("{written_rows} rows written, {audited_rows} audited"),
        ));
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
            &audited[..],
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
            &audited[..],
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
            &audited[..],
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
            &audited[..],
            &CsvFormat::default(),
            &texts,
        )
        .unwrap();
        let batch = Batches::new(&audited[..], &CsvFormat::default(), &texts)
            .unwrap()
            .next_batch()
            .unwrap()
            .unwrap();
        assert_eq!(batch.column(0).null_count(), 0);
    }

    /// A regression test: a large or view string column (as pandas and Polars hand over)
    /// was taken for a typed one, and its suppressed cells written as nulls, not `*`.
    #[test]
    fn every_string_type_keeps_its_stars() {
        for t in [
            DataType::Utf8,
            DataType::LargeUtf8,
            DataType::Utf8View,
            DataType::Dictionary(Box::new(DataType::Int32), Box::new(DataType::LargeUtf8)),
        ] {
            let types = [ColumnType::Source(t.clone())];
            let (schema, batches) =
                record_batches(&b"a\nx\n*\n\n"[..], &CsvFormat::default(), &types).unwrap();
            assert_eq!(schema.field(0).data_type(), &DataType::Utf8, "{t}");
            let column = batches[0].column(0);
            assert_eq!(column.null_count(), 0, "{t}");
            let strings = column
                .as_any()
                .downcast_ref::<arrow_array::StringArray>()
                .unwrap();
            assert_eq!(strings.value(1), "*", "{t}");
        }
    }

    /// A regression test (found in review): a duration column (a pandas timedelta) kept
    /// its type, and the release failed at the end, as no string casts to a duration.
    #[test]
    fn a_duration_is_written_as_the_strings_it_printed() {
        let types = [ColumnType::Source(DataType::Duration(
            arrow_schema::TimeUnit::Second,
        ))];
        let (schema, batches) =
            record_batches(&b"a\n5\n*\n"[..], &CsvFormat::default(), &types).unwrap();
        assert_eq!(schema.field(0).data_type(), &DataType::Utf8);
        assert_eq!(batches[0].column(0).null_count(), 0);
    }

    /// `typed` turns a typed column's `*` and empty cells into nulls, keeps a string
    /// column as the very array the audit read, and refuses a cell that does not print
    /// back as the string audited, naming the column and the row.
    #[test]
    fn typed_columns_print_back_as_the_audited_strings() {
        let schema = Arc::new(Schema::new(vec![
            Field::new("n", DataType::Utf8, false),
            Field::new("s", DataType::Utf8, false),
        ]));
        let strings = |n: Vec<&str>, s: Vec<&str>| {
            RecordBatch::try_new(
                schema.clone(),
                vec![
                    Arc::new(arrow_array::StringArray::from(n)) as ArrayRef,
                    Arc::new(arrow_array::StringArray::from(s)) as ArrayRef,
                ],
            )
            .unwrap()
        };
        let types = [ColumnType::Source(DataType::Float64), ColumnType::Text];
        let audited = strings(vec!["1.5", "*", "", "2.0"], vec!["a", "*", "", "b"]);
        let (out_schema, out) = typed(std::slice::from_ref(&audited), &types).unwrap();
        assert_eq!(out_schema.field(0).data_type(), &DataType::Float64);
        let n = out[0].column(0);
        assert_eq!(n.null_count(), 2);
        assert!(n.is_null(1) && n.is_null(2));
        assert!(Arc::ptr_eq(out[0].column(1), audited.column(1)));
        // `1.50` is the number 1.5, which prints as `1.5`: not what was audited
        let other = strings(vec!["1.0", "1.50"], vec!["a", "b"]);
        let err = typed(&[audited, other], &types).unwrap_err().to_string();
        assert!(err.contains("column `n`, row 6"), "{err}");
        assert!(err.contains("`1.50` reads back as `1.5`"), "{err}");
    }

    #[test]
    fn a_typed_cell_that_does_not_parse_is_an_error_not_a_null() {
        let types = [ColumnType::Source(DataType::Int64)];
        let mut out = Vec::new();
        let err = write(
            &mut out,
            &b"a\n1\nx\n"[..],
            &CsvFormat::default(),
            Format::Parquet,
            &types,
        )
        .unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidData);
    }
}
