//! Columnar sources: Parquet and Arrow IPC files, and Arrow record batches handed over in
//! memory, dictionary-encoded into the same [`Table`] a CSV file becomes.
//!
//! Everything downstream works on dictionary codes of strings, so each column is read as
//! the strings Arrow's own cast prints for its values (`42`, `3.5`, `2024-01-31`,
//! `12.30` for a decimal of scale 2, `true`); a null becomes the empty string, as an empty
//! CSV cell does. The source's schema is kept with the table, so that a released column
//! that was not generalized can be written back with its type.
//!
//! Types read: booleans, integers, floating-point numbers, decimals, dates, times,
//! timestamps, durations, strings (and dictionaries of any of these). Any other type
//! (lists, structs, maps, binary) is refused with the column's name and type, before any
//! row is read.
//!
//! Errors name the file and, where Arrow says where, the row (as the line: for a columnar
//! file the "line" of a row is its 1-based row number).

use std::fs::File;
use std::io::BufReader;
use std::path::Path;

use arrow_array::{Array, RecordBatch, StringArray};
use arrow_schema::{ArrowError, DataType, SchemaRef};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;

use super::format::{Format, SourceSchema};
use super::{duplicate_name, Dictionary, Table};
use crate::error::{excerpt, Error, Location, Result};
use crate::input::{self, Kind};
use crate::observer::{Observer, Stage, LOADING};

/// Rows per record batch read from a file.
const BATCH_ROWS: usize = 64 * 1024;

/// Whether a column of this type can be read (see the module documentation).
fn readable(data_type: &DataType) -> bool {
    use DataType::*;
    match data_type {
        Boolean | Int8 | Int16 | Int32 | Int64 | UInt8 | UInt16 | UInt32 | UInt64 | Float16
        | Float32 | Float64 | Decimal32(..) | Decimal64(..) | Decimal128(..) | Decimal256(..)
        | Date32 | Date64 | Time32(_) | Time64(_) | Timestamp(..) | Duration(_) | Utf8
        | LargeUtf8 | Utf8View | Null => true,
        Dictionary(_, value) => readable(value),
        _ => false,
    }
}

/// An Arrow error while reading `path`, located at the row where the batch began.
fn arrow_error(path: &Path, row: Option<u64>, e: impl std::fmt::Display) -> Error {
    let at = match row {
        Some(row) => Location::at(path, row, None),
        None => Location::file(path),
    };
    Error::data(at, format!("cannot read this file as {e}"))
}

/// Builds a table from record batches as they come (each column cast to strings, see the
/// module documentation). `source` names the rows in errors and in the mapping; row `i`
/// (0-based) is "line" `i + 1`.
pub(crate) fn from_batches(
    schema: SchemaRef,
    batches: impl Iterator<Item = std::result::Result<RecordBatch, ArrowError>>,
    source: &Path,
    total_rows: Option<u64>,
    observer: &dyn Observer,
) -> Result<Table> {
    let header = checked_header(&schema, source)?;
    let mut columns: Vec<Vec<u32>> = vec![Vec::new(); header.len()];
    let mut dictionaries = vec![Dictionary::default(); header.len()];
    let stage = Stage::start(observer, LOADING, total_rows);
    let mut rows: u64 = 0;
    for batch in batches {
        stage.check()?;
        let batch = batch.map_err(|e| arrow_error(source, Some(rows + 1), e))?;
        if batch.num_columns() != header.len() {
            return Err(arrow_error(
                source,
                Some(rows + 1),
                format!(
                    "a batch of {} columns under a schema of {}",
                    batch.num_columns(),
                    header.len()
                ),
            ));
        }
        for (c, array) in batch.columns().iter().enumerate() {
            intern(
                array.as_ref(),
                &mut dictionaries[c],
                &mut columns[c],
                rows + 1,
            )
            .map_err(|e| arrow_error(source, Some(rows + 1), e))?;
        }
        rows += batch.num_rows() as u64;
        stage.add(batch.num_rows() as u64);
    }
    stage.check_stopped()?;
    Ok(Table {
        source: source.to_owned(),
        header,
        columns,
        dictionaries,
        lines: (1..=rows).collect(),
        schema: Some(SourceSchema(schema)),
        sql_types: None,
    })
}

/// The column names of `schema`, refused when two are the same or a column has a type
/// cellsafe does not read.
pub(crate) fn checked_header(schema: &SchemaRef, source: &Path) -> Result<Vec<String>> {
    let header: Vec<String> = schema.fields().iter().map(|f| f.name().clone()).collect();
    if let Some(i) = duplicate_name(&header) {
        return Err(Error::data(
            Location::file(source),
            format!(
                "duplicate column name `{}` in the schema",
                excerpt(&header[i])
            ),
        ));
    }
    for field in schema.fields() {
        if !readable(field.data_type()) {
            return Err(Error::data(
                Location::file(source),
                format!(
                    "column `{}` has type {}, which cellsafe does not read: cast it to a \
                     string, number or date first",
                    excerpt(field.name()),
                    field.data_type()
                ),
            ));
        }
    }
    Ok(header)
}

/// The schema of the Parquet or Arrow IPC file at `path`.
pub(crate) fn schema_of(path: &Path, format: Format) -> Result<SchemaRef> {
    match format {
        Format::Parquet => {
            let file = input::open(path, Kind::Seekable)?;
            let builder = ParquetRecordBatchReaderBuilder::try_new(file)
                .map_err(|e| arrow_error(path, None, format_args!("Parquet: {e}")))?;
            Ok(builder.schema().clone())
        }
        Format::ArrowFile => {
            let file: File = input::open(path, Kind::Seekable)?;
            let reader = arrow_ipc::reader::FileReader::try_new(BufReader::new(file), None)
                .map_err(|e| arrow_error(path, None, format_args!("an Arrow IPC file: {e}")))?;
            Ok(reader.schema())
        }
        Format::ArrowStream => {
            let file = input::open(path, Kind::Seekable)?;
            let reader = arrow_ipc::reader::StreamReader::try_new(BufReader::new(file), None)
                .map_err(|e| arrow_error(path, None, format_args!("an Arrow IPC stream: {e}")))?;
            Ok(reader.schema())
        }
        Format::Csv => unreachable!("a CSV file has no Arrow schema"),
    }
}

/// Hands the rows of the Parquet or Arrow IPC file at `path` to `each` in batches of the
/// columns `columns`, each cast to strings (see [`super::scan`]).
pub(crate) fn scan(
    path: &Path,
    format: Format,
    columns: &[usize],
    observer: &dyn Observer,
    each: &mut dyn FnMut(&super::scan::Batch) -> Result<()>,
) -> Result<u64> {
    type Batches = Box<dyn Iterator<Item = std::result::Result<RecordBatch, ArrowError>> + Send>;
    let (batches, total): (Batches, Option<u64>) = match format {
        Format::Parquet => {
            let file = input::open(path, Kind::Seekable)?;
            let builder = ParquetRecordBatchReaderBuilder::try_new(file)
                .map_err(|e| arrow_error(path, None, format_args!("Parquet: {e}")))?;
            let total = u64::try_from(builder.metadata().file_metadata().num_rows()).ok();
            let mask = parquet::arrow::ProjectionMask::roots(
                builder.parquet_schema(),
                columns.iter().copied(),
            );
            let reader = builder
                .with_batch_size(super::scan::BATCH_ROWS)
                .with_projection(mask)
                .build()
                .map_err(|e| arrow_error(path, None, format_args!("Parquet: {e}")))?;
            (Box::new(reader), total)
        }
        Format::ArrowFile => {
            let file: File = input::open(path, Kind::Seekable)?;
            let reader = arrow_ipc::reader::FileReader::try_new(
                BufReader::new(file),
                Some(columns.to_vec()),
            )
            .map_err(|e| arrow_error(path, None, format_args!("an Arrow IPC file: {e}")))?;
            (Box::new(reader), None)
        }
        Format::ArrowStream => {
            let file = input::open(path, Kind::Seekable)?;
            let reader = arrow_ipc::reader::StreamReader::try_new(
                BufReader::new(file),
                Some(columns.to_vec()),
            )
            .map_err(|e| arrow_error(path, None, format_args!("an Arrow IPC stream: {e}")))?;
            (Box::new(reader), None)
        }
        Format::Csv => unreachable!("a CSV file is scanned by its reader"),
    };
    let stage = Stage::start(observer, LOADING, total);
    // a projection keeps the columns in the file's order: find each asked one in it
    let mut sorted: Vec<usize> = columns.to_vec();
    sorted.sort_unstable();
    let position: Vec<usize> = columns
        .iter()
        .map(|c| sorted.binary_search(c).unwrap_or(0))
        .collect();
    // a reader thread decodes and casts the next batch while this one is handed over
    type Message = Result<(u64, usize, Vec<StringArray>)>;
    let (tx, rx) = std::sync::mpsc::sync_channel::<Message>(1);
    let result = std::thread::scope(|scope| {
        let stage = &stage;
        let position = &position;
        let width = sorted.len();
        scope.spawn(move || {
            let mut rows: u64 = 0;
            for batch in batches {
                if stage.cancelled() {
                    let _ = tx.send(Err(Error::Cancelled));
                    return;
                }
                let message = batch
                    .map_err(|e| arrow_error(path, Some(rows + 1), e))
                    .and_then(|batch| {
                        if batch.num_columns() != width {
                            return Err(super::scan::changed(path));
                        }
                        let arrays: Vec<StringArray> = position
                            .iter()
                            .map(|&i| as_strings(batch.column(i).as_ref()))
                            .collect::<std::result::Result<_, _>>()
                            .map_err(|e| arrow_error(path, Some(rows + 1), e))?;
                        Ok((rows, batch.num_rows(), arrays))
                    });
                let failed = message.is_err();
                if let Ok((_, n, _)) = &message {
                    rows += *n as u64;
                }
                if tx.send(message).is_err() || failed {
                    return;
                }
            }
        });
        // owned here, so that it is dropped (and the reader stops) before the scope
        // waits for it, whatever this returns
        let rx = rx;
        let mut rows: u64 = 0;
        while let Ok(message) = rx.recv() {
            let (first, len, arrays) = message?;
            each(&super::scan::Batch::arrays(first, len, &arrays))?;
            rows += len as u64;
            stage.add(len as u64);
        }
        Ok(rows)
    });
    stage.check_stopped()?;
    result
}

/// Appends the code of each value of `array` (as Arrow prints it; a null is the empty
/// string) to `codes`, interning it in `dictionary`; the first value is on line `line`.
/// Strings are read in place, a dictionary's values printed once each, and any other
/// array is cast to strings first.
fn intern(
    array: &dyn Array,
    dictionary: &mut Dictionary,
    codes: &mut Vec<u32>,
    line: u64,
) -> std::result::Result<(), ArrowError> {
    use arrow_array::cast::AsArray;
    fn each<'a>(
        values: impl Iterator<Item = Option<&'a str>>,
        dictionary: &mut Dictionary,
        codes: &mut Vec<u32>,
        line: u64,
    ) {
        for (i, value) in values.enumerate() {
            codes.push(dictionary.intern(value.unwrap_or(""), line + i as u64));
        }
    }
    codes.reserve(array.len());
    match array.data_type() {
        DataType::Utf8 => each(array.as_string::<i32>().iter(), dictionary, codes, line),
        DataType::LargeUtf8 => each(array.as_string::<i64>().iter(), dictionary, codes, line),
        DataType::Utf8View => each(array.as_string_view().iter(), dictionary, codes, line),
        DataType::Dictionary(..) => {
            let keyed = array.as_any_dictionary();
            let values = as_strings(keyed.values().as_ref())?;
            let keys = keyed.normalized_keys();
            // each value's code, interned where it first occurs (a value of the
            // dictionary that no row uses is not a value of the column)
            let mut known = vec![u32::MAX; values.len()];
            for (i, &key) in keys.iter().enumerate() {
                let at = line + i as u64;
                let code = if array.is_null(i) {
                    dictionary.intern("", at)
                } else if known[key] != u32::MAX {
                    known[key]
                } else {
                    let value = if values.is_null(key) {
                        ""
                    } else {
                        values.value(key)
                    };
                    known[key] = dictionary.intern(value, at);
                    known[key]
                };
                codes.push(code);
            }
        }
        _ => each(as_strings(array)?.iter(), dictionary, codes, line),
    }
    Ok(())
}

/// The values of `array` as Arrow prints them (a null stays null).
pub(crate) fn as_strings(array: &dyn Array) -> std::result::Result<StringArray, ArrowError> {
    let cast = arrow_cast::cast(array, &DataType::Utf8)?;
    cast.as_any()
        .downcast_ref::<StringArray>()
        .cloned()
        .ok_or_else(|| ArrowError::CastError("not cast to strings".into()))
}

/// Reads a Parquet file (a regular file: Parquet is read from its end).
pub(crate) fn read_parquet(path: &Path, observer: &dyn Observer) -> Result<Table> {
    let file = input::open(path, Kind::Seekable)?;
    let builder = ParquetRecordBatchReaderBuilder::try_new(file)
        .map_err(|e| arrow_error(path, None, format_args!("Parquet: {e}")))?;
    let schema = builder.schema().clone();
    let total = u64::try_from(builder.metadata().file_metadata().num_rows()).ok();
    let reader = builder
        .with_batch_size(BATCH_ROWS)
        .build()
        .map_err(|e| arrow_error(path, None, format_args!("Parquet: {e}")))?;
    from_batches(schema, reader, path, total, observer)
}

/// Reads an Arrow IPC file (`stream = false`, a regular file) or stream (which may come
/// through a FIFO).
pub(crate) fn read_ipc(path: &Path, stream: bool, observer: &dyn Observer) -> Result<Table> {
    if stream {
        let file = input::open(path, Kind::Table)?;
        let reader = arrow_ipc::reader::StreamReader::try_new(BufReader::new(file), None)
            .map_err(|e| arrow_error(path, None, format_args!("an Arrow IPC stream: {e}")))?;
        let schema = reader.schema();
        from_batches(schema, reader, path, None, observer)
    } else {
        let file: File = input::open(path, Kind::Seekable)?;
        let reader = arrow_ipc::reader::FileReader::try_new(BufReader::new(file), None)
            .map_err(|e| arrow_error(path, None, format_args!("an Arrow IPC file: {e}")))?;
        let schema = reader.schema();
        from_batches(schema, reader, path, None, observer)
    }
}

/// Builds a table from Arrow record batches in memory (all under `schema`); errors name
/// the batches' rows as `<arrow>:ROW`.
pub(crate) fn from_record_batches(schema: SchemaRef, batches: &[RecordBatch]) -> Result<Table> {
    from_batches(
        schema,
        batches.iter().cloned().map(Ok),
        Path::new("<arrow>"),
        Some(batches.iter().map(|b| b.num_rows() as u64).sum()),
        &crate::observer::Silent,
    )
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use arrow_array::types::{Int8Type, UInt16Type};
    use arrow_array::{
        ArrayRef, DictionaryArray, Int64Array, LargeStringArray, RecordBatch, StringArray,
        StringViewArray,
    };
    use arrow_schema::{DataType, Field, Schema};

    use super::*;

    /// The reference: every column cast to strings by Arrow (a null is the empty
    /// string), then read as rows.
    fn by_cast(batches: &[RecordBatch]) -> Table {
        let schema = batches[0].schema();
        let header: Vec<String> = schema.fields().iter().map(|f| f.name().clone()).collect();
        let mut rows = Vec::new();
        for batch in batches {
            let columns: Vec<StringArray> = batch
                .columns()
                .iter()
                .map(|a| as_strings(a.as_ref()).unwrap())
                .collect();
            for r in 0..batch.num_rows() {
                rows.push(
                    columns
                        .iter()
                        .map(|c| {
                            if c.is_null(r) {
                                String::new()
                            } else {
                                c.value(r).to_owned()
                            }
                        })
                        .collect(),
                );
            }
        }
        Table::from_rows(header, &rows).unwrap()
    }

    /// Strings read in place and dictionaries read by key give the table Arrow's cast
    /// gives: the same cells, the same values in the same order (a dictionary value no
    /// row uses is not a value of the column), first met on the same rows; nulls in keys
    /// and in a dictionary's values are empty cells.
    #[test]
    fn every_string_and_dictionary_layout_reads_as_its_cast() {
        let mut state = 3u64;
        let mut next = move |n: u64| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 33) % n
        };
        let schema = Arc::new(Schema::new(vec![
            Field::new("utf8", DataType::Utf8, true),
            Field::new("large", DataType::LargeUtf8, true),
            Field::new("view", DataType::Utf8View, true),
            Field::new(
                "dict",
                DataType::Dictionary(Box::new(DataType::Int8), Box::new(DataType::Utf8)),
                true,
            ),
            Field::new(
                "dict_large",
                DataType::Dictionary(Box::new(DataType::UInt16), Box::new(DataType::LargeUtf8)),
                true,
            ),
            Field::new(
                "dict_int",
                DataType::Dictionary(Box::new(DataType::Int8), Box::new(DataType::Int64)),
                true,
            ),
            Field::new("int", DataType::Int64, true),
        ]));
        let words = ["a", "bb", "", "a long value past twelve bytes", "é"];
        let mut batches = Vec::new();
        for _ in 0..3 {
            let n = 50;
            let word = |x: u64| (!x.is_multiple_of(7)).then(|| words[(x % 5) as usize]);
            let cells: Vec<Vec<Option<&str>>> = (0..3)
                .map(|_| (0..n).map(|_| word(next(100))).collect())
                .collect();
            // dictionaries with values no row uses, a null value, and null keys
            let values = StringArray::from(vec![Some("x"), None, Some("unused"), Some("y")]);
            let keys: Vec<Option<i8>> = (0..n)
                .map(|_| [Some(0), Some(1), Some(3), None][next(4) as usize])
                .collect();
            let dict = DictionaryArray::<Int8Type>::try_new(keys.into(), Arc::new(values)).unwrap();
            let large_values = LargeStringArray::from(vec!["p", "never", "q"]);
            let large_keys: Vec<Option<u16>> = (0..n)
                .map(|_| [Some(0), Some(2), None][next(3) as usize])
                .collect();
            let dict_large =
                DictionaryArray::<UInt16Type>::try_new(large_keys.into(), Arc::new(large_values))
                    .unwrap();
            let int_values = Int64Array::from(vec![Some(7), None, Some(-3), Some(99)]);
            let int_keys: Vec<Option<i8>> =
                (0..n).map(|_| Some([0, 1, 2][next(3) as usize])).collect();
            let dict_int =
                DictionaryArray::<Int8Type>::try_new(int_keys.into(), Arc::new(int_values))
                    .unwrap();
            let ints: Int64Array = (0..n)
                .map(|_| (next(5) != 0).then(|| next(20) as i64 - 5))
                .collect();
            let columns: Vec<ArrayRef> = vec![
                Arc::new(StringArray::from(cells[0].clone())),
                Arc::new(LargeStringArray::from(cells[1].clone())),
                Arc::new(StringViewArray::from(cells[2].clone())),
                Arc::new(dict),
                Arc::new(dict_large),
                Arc::new(dict_int),
                Arc::new(ints),
            ];
            batches.push(RecordBatch::try_new(schema.clone(), columns).unwrap());
        }
        let read = from_record_batches(schema, &batches).unwrap();
        let want = by_cast(&batches);
        assert_eq!(read.rows(), want.rows());
        for c in 0..want.header().len() {
            assert_eq!(
                read.dictionary(c).values(),
                want.dictionary(c).values(),
                "column {c}"
            );
            assert_eq!(read.codes(c), want.codes(c), "column {c}");
            for code in 0..want.dictionary(c).len() as u32 {
                // from_rows counts lines from 2 (a header line), batches from 1
                assert_eq!(
                    read.dictionary(c).first_line(code) + 1,
                    want.dictionary(c).first_line(code),
                    "column {c}, value {code}"
                );
            }
        }
        assert!(!read.dictionary(3).values().iter().any(|v| v == "unused"));
    }
}
