//! Sources read in batches of rows, never whole: the streaming engine's view of its input.
//!
//! A [`RowSource`] hands its rows to a callback in order, a batch at a time, with each
//! row's 0-based number and its line (a CSV file's line where the record starts; a
//! columnar file's 1-based row number), so that an engine can pass over a table larger
//! than memory as many times as it needs. Every source gives the same strings as reading
//! it whole with [`Table::read`] does (the same CSV reader and limits, the same cast of
//! Arrow values to strings, a null as the empty string), which is what lets the streaming
//! engine release exactly what the in-memory one does. A [`Table`] in memory is a source
//! too.
//!
//! A [`Scan`] is a file opened for scanning: a regular file only (it is read once per
//! pass), CSV, Parquet or Arrow IPC.

use std::path::{Path, PathBuf};

use super::{duplicate_name, CsvFormat, Format, Records, SourceSchema, Table};
use crate::error::{excerpt, Error, Location, Result};
use crate::input::{self, Kind};
use crate::observer::{Observer, Stage, LOADING};

/// Rows per batch handed over.
pub const BATCH_ROWS: usize = 16 * 1024;

/// A batch of consecutive rows of a source.
pub struct Batch<'a> {
    first: u64,
    len: usize,
    cells: Cells<'a>,
}

enum Cells<'a> {
    Records {
        records: &'a [csv::StringRecord],
        lines: &'a [u64],
        columns: &'a [usize],
    },
    #[cfg(feature = "arrow")]
    Arrays(&'a [arrow_array::StringArray]),
    Table {
        table: &'a Table,
        columns: &'a [usize],
    },
}

impl<'a> Batch<'a> {
    /// A batch of arrays of strings (one per column scanned).
    #[cfg(feature = "arrow")]
    pub(crate) fn arrays(first: u64, len: usize, arrays: &'a [arrow_array::StringArray]) -> Self {
        Batch {
            first,
            len,
            cells: Cells::Arrays(arrays),
        }
    }
    /// The number of the batch's first row in the source (0-based).
    pub fn first(&self) -> u64 {
        self.first
    }
    /// Rows in the batch.
    pub fn len(&self) -> usize {
        self.len
    }
    /// Whether the batch has no rows.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// The cell of the batch's row `row` in the `column`-th of the columns scanned.
    pub fn value(&self, row: usize, column: usize) -> &str {
        match &self.cells {
            Cells::Records {
                records, columns, ..
            } => &records[row][columns[column]],
            #[cfg(feature = "arrow")]
            Cells::Arrays(arrays) => {
                use arrow_array::Array;
                let a = &arrays[column];
                if a.is_null(row) {
                    ""
                } else {
                    a.value(row)
                }
            }
            Cells::Table { table, columns } => {
                table.value(self.first as usize + row, columns[column])
            }
        }
    }
    /// The line of the batch's row `row` (see the module documentation).
    pub fn line(&self, row: usize) -> u64 {
        match &self.cells {
            Cells::Records { lines, .. } => lines[row],
            #[cfg(feature = "arrow")]
            Cells::Arrays(_) => self.first + row as u64 + 1,
            Cells::Table { table, .. } => table.line(self.first as usize + row),
        }
    }
}

/// Rows handed over a batch at a time.
pub trait RowSource: Sync {
    /// What the rows are read from, for messages.
    fn source(&self) -> &Path;
    /// The column names.
    fn header(&self) -> &[String];
    /// Hands every row, in order, to `each` in batches holding the columns `columns` (by
    /// their index in the header); returns the number of rows. Reports the reading as a
    /// [`LOADING`] stage and stops with [`Error::Cancelled`] when `observer` says so.
    fn batches(
        &self,
        columns: &[usize],
        observer: &dyn Observer,
        each: &mut dyn FnMut(&Batch) -> Result<()>,
    ) -> Result<u64>;
    /// The source's schema, for a columnar one.
    fn schema(&self) -> Option<&SourceSchema> {
        None
    }
    /// The size of the source in bytes, when known (a file's size).
    fn bytes(&self) -> Option<u64> {
        None
    }
}

impl RowSource for Table {
    fn source(&self) -> &Path {
        &self.source
    }
    fn header(&self) -> &[String] {
        &self.header
    }
    fn batches(
        &self,
        columns: &[usize],
        observer: &dyn Observer,
        each: &mut dyn FnMut(&Batch) -> Result<()>,
    ) -> Result<u64> {
        let stage = Stage::start(observer, LOADING, Some(self.rows() as u64));
        for first in (0..self.rows()).step_by(BATCH_ROWS) {
            stage.check()?;
            let len = BATCH_ROWS.min(self.rows() - first);
            each(&Batch {
                first: first as u64,
                len,
                cells: Cells::Table {
                    table: self,
                    columns,
                },
            })?;
            stage.add(len as u64);
        }
        Ok(self.rows() as u64)
    }
    fn schema(&self) -> Option<&SourceSchema> {
        self.source_schema()
    }
}

/// A file opened for scanning (see the module documentation).
#[derive(Debug, Clone)]
pub struct Scan {
    path: PathBuf,
    format: Format,
    csv: CsvFormat,
    header: Vec<String>,
    schema: Option<SourceSchema>,
    bytes: u64,
    /// A CSV file opened before (see [`Scan::csv_file`]), read instead of `path`.
    handle: Option<std::sync::Arc<std::fs::File>>,
}

impl Scan {
    /// Opens `path` (a regular file in `format`; CSV laid out as `csv`) and reads its
    /// header or schema.
    pub fn open(path: &Path, format: Format, csv: &CsvFormat) -> Result<Scan> {
        let file = input::open(path, Kind::Seekable)?;
        let bytes = file.metadata().map_err(|e| Error::io(path, e))?.len();
        drop(file);
        let mut scan = Scan {
            path: path.to_owned(),
            format,
            csv: csv.clone(),
            header: Vec::new(),
            schema: None,
            bytes,
            handle: None,
        };
        match format {
            Format::Csv => {
                let file = scan.reopen()?;
                let mut records = Records::new(file, path, csv.delimiter, csv.quote, false);
                let mut record = csv::StringRecord::new();
                let Some(line) = records.read(&mut record)? else {
                    return Err(Error::data(
                        Location::at(path, 1, None),
                        "the file is empty",
                    ));
                };
                scan.header = csv_header(&record, csv.header, path, line)?;
            }
            #[cfg(feature = "arrow")]
            _ => {
                let schema = super::columnar::schema_of(path, format)?;
                scan.header = super::columnar::checked_header(&schema, path)?;
                scan.schema = Some(SourceSchema(schema));
            }
            #[cfg(not(feature = "arrow"))]
            other => {
                return Err(Error::data(
                    Location::file(path),
                    format!(
                        "reading {} needs cellsafe built with the `arrow` feature",
                        other.describe()
                    ),
                ))
            }
        }
        Ok(scan)
    }

    /// Opens `file`, a CSV file laid out as `csv` that may have no name (an anonymous
    /// temporary file), for scanning; `name` names it in messages. Every pass reads it
    /// from its start.
    pub(crate) fn csv_file(file: std::fs::File, name: &Path, csv: &CsvFormat) -> Result<Scan> {
        let bytes = file.metadata().map_err(|e| Error::io(name, e))?.len();
        let mut scan = Scan {
            path: name.to_owned(),
            format: Format::Csv,
            csv: csv.clone(),
            header: Vec::new(),
            schema: None,
            bytes,
            handle: Some(std::sync::Arc::new(file)),
        };
        let mut records = Records::new(scan.reopen()?, name, csv.delimiter, csv.quote, false);
        let mut record = csv::StringRecord::new();
        let Some(line) = records.read(&mut record)? else {
            return Err(Error::data(
                Location::at(name, 1, None),
                "the file is empty",
            ));
        };
        scan.header = csv_header(&record, csv.header, name, line)?;
        Ok(scan)
    }

    /// The file's format.
    pub fn format(&self) -> Format {
        self.format
    }

    /// The file opened for a pass, at its start.
    pub(crate) fn reopen(&self) -> Result<std::fs::File> {
        match &self.handle {
            Some(file) => {
                use std::io::{Seek, SeekFrom};
                let mut file = file.try_clone().map_err(|e| Error::io(&self.path, e))?;
                file.seek(SeekFrom::Start(0))
                    .map_err(|e| Error::io(&self.path, e))?;
                Ok(file)
            }
            None => input::open(&self.path, Kind::Seekable),
        }
    }
}

/// The header named by a CSV file's first record (or numbered, without a header row).
pub(super) fn csv_header(
    record: &csv::StringRecord,
    named: bool,
    path: &Path,
    line: u64,
) -> Result<Vec<String>> {
    let names: Vec<String> = if named {
        record
            .iter()
            .map(|s| s.trim_start_matches('\u{feff}').to_owned())
            .collect()
    } else {
        (1..=record.len()).map(|i| i.to_string()).collect()
    };
    if let Some(i) = duplicate_name(&names) {
        return Err(Error::data(
            Location::at(path, line, Some(i as u64 + 1)),
            format!("duplicate column name `{}` in header", excerpt(&names[i])),
        ));
    }
    Ok(names)
}

impl RowSource for Scan {
    fn source(&self) -> &Path {
        &self.path
    }
    fn header(&self) -> &[String] {
        &self.header
    }
    fn schema(&self) -> Option<&SourceSchema> {
        self.schema.as_ref()
    }
    fn bytes(&self) -> Option<u64> {
        Some(self.bytes)
    }
    fn batches(
        &self,
        columns: &[usize],
        observer: &dyn Observer,
        each: &mut dyn FnMut(&Batch) -> Result<()>,
    ) -> Result<u64> {
        match self.format {
            Format::Csv => self.csv_batches(columns, observer, each),
            #[cfg(feature = "arrow")]
            _ => super::columnar::scan(&self.path, self.format, columns, observer, each),
            #[cfg(not(feature = "arrow"))]
            _ => unreachable!("a columnar scan is refused when opened"),
        }
    }
}

impl Scan {
    fn csv_batches(
        &self,
        columns: &[usize],
        observer: &dyn Observer,
        each: &mut dyn FnMut(&Batch) -> Result<()>,
    ) -> Result<u64> {
        use crate::observer::Reader;
        let file = self.reopen()?;
        let stage = Stage::start(observer, LOADING, Some(self.bytes));
        let reader = Reader::new(file, &stage);
        let mut records = Records::new(
            reader,
            &self.path,
            self.csv.delimiter,
            self.csv.quote,
            false,
        );
        // a reader thread parses the next batch while this one is handed over; two sets
        // of buffers go round between them
        type Buffers = (Vec<csv::StringRecord>, Vec<u64>);
        let (full_tx, full_rx) = std::sync::mpsc::sync_channel::<Result<(Buffers, usize)>>(1);
        let (empty_tx, empty_rx) = std::sync::mpsc::sync_channel::<Buffers>(2);
        for _ in 0..2 {
            let _ = empty_tx.send((
                vec![csv::StringRecord::new(); BATCH_ROWS],
                vec![0; BATCH_ROWS],
            ));
        }
        let width = self.header.len();
        let result = std::thread::scope(|scope| {
            scope.spawn(move || {
                let mut header = self.csv.header;
                while let Ok((mut batch, mut lines)) = empty_rx.recv() {
                    let mut len = 0;
                    let mut failed = None;
                    while len < BATCH_ROWS {
                        match records.read(&mut batch[len]) {
                            Ok(Some(line)) if header => {
                                // the header was read when the file was opened: the file
                                // must not have changed since
                                header = false;
                                match csv_header(&batch[len], true, &self.path, line) {
                                    Ok(names) if names == self.header => {}
                                    Ok(_) => failed = Some(changed(&self.path)),
                                    Err(e) => failed = Some(e),
                                }
                            }
                            Ok(Some(line)) => {
                                lines[len] = line;
                                len += 1;
                            }
                            Ok(None) => break,
                            Err(e) => failed = Some(e),
                        }
                        if failed.is_some() {
                            break;
                        }
                    }
                    if failed.is_none() && batch[..len].iter().any(|r| r.len() != width) {
                        failed = Some(changed(&self.path));
                    }
                    let last = failed.is_some() || len < BATCH_ROWS;
                    let message = match failed {
                        Some(e) => Err(e),
                        None => Ok(((batch, lines), len)),
                    };
                    if full_tx.send(message).is_err() || last {
                        return;
                    }
                }
            });
            // owned here, so that they are dropped (and the reader stops) before the
            // scope waits for it, whatever this returns
            let (full_rx, empty_tx) = (full_rx, empty_tx);
            let mut rows: u64 = 0;
            while let Ok(message) = full_rx.recv() {
                let ((batch, lines), len) = message?;
                if len > 0 {
                    each(&Batch {
                        first: rows,
                        len,
                        cells: Cells::Records {
                            records: &batch[..len],
                            lines: &lines[..len],
                            columns,
                        },
                    })?;
                }
                rows += len as u64;
                // the reader may have stopped after its last batch
                let _ = empty_tx.send((batch, lines));
            }
            Ok(rows)
        });
        stage.check_stopped()?;
        result
    }
}

/// A source that no longer holds what an earlier pass read.
pub(crate) fn changed(path: &Path) -> Error {
    Error::data(
        Location::file(path),
        "the file changed while it was being read: it must not be written to during a job",
    )
}
