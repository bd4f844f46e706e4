//! Tables: CSV input (and, in `columnar`, Parquet and Arrow), dictionary-encoded into
//! integer columns.
//!
//! Each column keeps a dictionary of its distinct strings (in order of first appearance) and
//! one `u32` code per row. Everything downstream (hierarchies, classes, models) works on the
//! codes; strings come back only when a released table is written.

use std::collections::VecDeque;
use std::io::Read;
use std::path::{Path, PathBuf};

use rustc_hash::FxHashMap;

use crate::error::{excerpt, DataError, Error, Location, Result};
use crate::input::{MAX_FIELD, MAX_LINE};

#[cfg(feature = "arrow")]
mod columnar;
#[cfg(feature = "spark")]
pub(crate) use columnar::as_strings as arrow_strings;
#[cfg(feature = "sqlite")]
mod database;
mod format;
mod plain;
#[cfg(feature = "postgres")]
pub(crate) mod postgres;
pub mod profile;
pub mod scan;

#[cfg(feature = "sqlite")]
pub use database::Selection;
pub use format::{Format, SourceSchema};
/// How a CSV file is laid out.
#[derive(Debug, Clone)]
pub struct CsvFormat {
    /// Field separator byte.
    pub delimiter: u8,
    /// Quote byte.
    pub quote: u8,
    /// Whether the first record is a header. Without one, columns are named `1`, `2`, ...
    pub header: bool,
}

impl Default for CsvFormat {
    fn default() -> Self {
        CsvFormat {
            delimiter: b',',
            quote: b'"',
            header: true,
        }
    }
}

/// The distinct values of one column.
#[derive(Debug, Clone, Default)]
pub(crate) struct Dictionary {
    values: Vec<String>,
    index: FxHashMap<String, u32>,
    /// 1-based file line where each value first occurs (for error messages).
    first_line: Vec<u64>,
}

impl Dictionary {
    /// The code of `value`, added (first met on `line`) if new.
    pub(crate) fn intern(&mut self, value: &str, line: u64) -> u32 {
        if let Some(&code) = self.index.get(value) {
            return code;
        }
        let code = self.values.len() as u32;
        self.values.push(value.to_owned());
        self.index.insert(value.to_owned(), code);
        self.first_line.push(line);
        code
    }
    /// Number of distinct values.
    pub(crate) fn len(&self) -> usize {
        self.values.len()
    }
    /// The value of `code`; panics if `code` is not below [`Dictionary::len`].
    pub(crate) fn value(&self, code: u32) -> &str {
        &self.values[code as usize]
    }
    /// The values, indexed by code (in order of first occurrence).
    pub(crate) fn values(&self) -> &[String] {
        &self.values
    }
    /// The code of `value`, if it occurs.
    pub(crate) fn code(&self, value: &str) -> Option<u32> {
        self.index.get(value).copied()
    }
    /// The file line where `code` first occurs.
    pub(crate) fn first_line(&self, code: u32) -> u64 {
        self.first_line[code as usize]
    }
}

/// A dictionary-encoded table.
#[derive(Debug, Clone)]
pub struct Table {
    source: PathBuf,
    header: Vec<String>,
    columns: Vec<Vec<u32>>,
    dictionaries: Vec<Dictionary>,
    /// 1-based file line where each data row starts (for a columnar source: the 1-based
    /// row number).
    lines: Vec<u64>,
    /// The schema of a columnar source (Parquet, Arrow), kept for writing the release.
    schema: Option<SourceSchema>,
    /// The type of each column of a database source, by name, kept for writing the release.
    sql_types: Option<Vec<(String, SqlType)>>,
}

/// The type a database column's values have: what a release written to a database declares
/// for a column it keeps as it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SqlType {
    /// 64-bit integers.
    Integer,
    /// 64-bit floating-point numbers.
    Real,
    /// Text.
    Text,
}

impl SqlType {
    /// The type as SQL declares it.
    pub fn sql(self) -> &'static str {
        match self {
            SqlType::Integer => "INTEGER",
            SqlType::Real => "REAL",
            SqlType::Text => "TEXT",
        }
    }
}

impl Table {
    /// Reads a CSV file. A ragged row, invalid UTF-8 or an empty file is an error naming the line.
    pub fn read_csv(path: &Path, format: &CsvFormat) -> Result<Table> {
        Self::read_csv_observed(path, format, &crate::observer::Silent)
    }

    /// Reads CSV held in memory; `source` is used in error messages. Plain input (no
    /// quotes, carriage returns or blank lines) is split directly; any other goes through
    /// the general reader, [`from_reader`](Self::from_reader), with the same result.
    pub fn from_bytes(bytes: &[u8], source: &Path, format: &CsvFormat) -> Result<Table> {
        match plain::parse(bytes, source, format) {
            Some(table) => Ok(table),
            None => Self::from_reader(bytes, source, format),
        }
    }

    /// [`from_bytes`](Self::from_bytes), but with each distinct line of a plain text read
    /// once: the table's rows are the distinct lines, in order of first occurrence, and the
    /// vector names each line's row (read by the general reader, the table holds every
    /// line and the vector is None). A release reads back so for its audit: it shows few
    /// distinct lines.
    pub(crate) fn from_bytes_lines(
        bytes: &[u8],
        source: &Path,
        format: &CsvFormat,
    ) -> Result<(Table, Option<Vec<u32>>)> {
        match plain::parse_lines(bytes, source, format, true) {
            Some(lines) => Ok(lines),
            None => Ok((Self::from_reader(bytes, source, format)?, None)),
        }
    }

    /// Reads CSV from any reader; `source` is used in error messages.
    pub fn from_reader<R: Read>(reader: R, source: &Path, format: &CsvFormat) -> Result<Table> {
        let mut records = Records::new(reader, source, format.delimiter, format.quote, false);
        let mut header: Option<Vec<String>> = None;
        let mut columns: Vec<Vec<u32>> = Vec::new();
        let mut dictionaries: Vec<Dictionary> = Vec::new();
        let mut record = csv::StringRecord::new();
        let mut lines = Vec::new();
        while let Some(line) = records.read(&mut record)? {
            if header.is_none() {
                let names = scan::csv_header(&record, format.header, source, line)?;
                columns = vec![Vec::new(); names.len()];
                dictionaries = vec![Dictionary::default(); names.len()];
                header = Some(names);
                if format.header {
                    continue;
                }
            }
            for (c, field) in record.iter().enumerate() {
                let code = dictionaries[c].intern(field, line);
                columns[c].push(code);
            }
            lines.push(line);
        }
        let header = header
            .ok_or_else(|| Error::data(Location::at(source, 1, None), "the file is empty"))?;
        Ok(Table {
            source: source.to_owned(),
            header,
            columns,
            dictionaries,
            lines,
            schema: None,
            sql_types: None,
        })
    }

    /// Builds a table from rows of strings in memory. Rows are numbered in errors as if
    /// they were the lines of a CSV file after its header (the first row is line 2).
    pub fn from_rows(header: Vec<String>, rows: &[Vec<String>]) -> Result<Table> {
        if let Some(i) = duplicate_name(&header) {
            return Err(DataError::DuplicateColumn(excerpt(&header[i]).into_owned()).into());
        }
        let mut columns = vec![Vec::with_capacity(rows.len()); header.len()];
        let mut dictionaries = vec![Dictionary::default(); header.len()];
        for (r, row) in rows.iter().enumerate() {
            if row.len() != header.len() {
                return Err(DataError::RowLength {
                    row: r + 1,
                    fields: row.len(),
                    header: header.len(),
                }
                .into());
            }
            for (c, field) in row.iter().enumerate() {
                columns[c].push(dictionaries[c].intern(field, r as u64 + 2));
            }
        }
        Ok(Table {
            source: PathBuf::from("<memory>"),
            header,
            columns,
            dictionaries,
            lines: (0..rows.len() as u64).map(|r| r + 2).collect(),
            schema: None,
            sql_types: None,
        })
    }

    /// A table from its encoded columns: `columns[c][row]` is a code of `dictionaries[c]`,
    /// whose values must be met in code order when the rows are read in order (as
    /// [`Dictionary::intern`] assigns them); row `r` starts on `lines[r]` of `source`.
    pub(crate) fn from_encoded(
        source: &Path,
        header: Vec<String>,
        columns: Vec<Vec<u32>>,
        dictionaries: Vec<Dictionary>,
        lines: Vec<u64>,
    ) -> Table {
        debug_assert!(columns.iter().all(|c| c.len() == lines.len()));
        Table {
            source: source.to_owned(),
            header,
            columns,
            dictionaries,
            lines,
            schema: None,
            sql_types: None,
        }
    }

    /// The table of `rows` (in that order) and `columns` of this one, built in memory: the
    /// same as [`from_rows`](Self::from_rows) on their values, without going through text.
    pub(crate) fn select(&self, rows: &[u32], columns: &[usize]) -> Table {
        self.pick(rows, columns, false)
    }

    /// The table of `rows` (in that order) with every column: a research subset of this
    /// table, still naming this table's file and lines in errors and mappings.
    pub(crate) fn subset(&self, rows: &[u32]) -> Table {
        let columns: Vec<usize> = (0..self.header.len()).collect();
        self.pick(rows, &columns, true)
    }

    /// [`select`](Self::select); with `keep_lines`, rows keep their source and line numbers.
    fn pick(&self, rows: &[u32], columns: &[usize], keep_lines: bool) -> Table {
        let line = |i: usize, r: u32| {
            if keep_lines {
                self.lines[r as usize]
            } else {
                i as u64 + 2
            }
        };
        let mut codes = Vec::with_capacity(columns.len());
        let mut dictionaries = Vec::with_capacity(columns.len());
        for &c in columns {
            let old = &self.dictionaries[c];
            let mut recode = vec![u32::MAX; old.len()];
            let mut dictionary = Dictionary::default();
            let column: Vec<u32> = rows
                .iter()
                .enumerate()
                .map(|(i, &r)| {
                    let v = self.columns[c][r as usize];
                    if recode[v as usize] == u32::MAX {
                        recode[v as usize] = dictionary.intern(old.value(v), line(i, r));
                    }
                    recode[v as usize]
                })
                .collect();
            codes.push(column);
            dictionaries.push(dictionary);
        }
        Table {
            source: if keep_lines {
                self.source.clone()
            } else {
                PathBuf::from("<memory>")
            },
            header: columns.iter().map(|&c| self.header[c].clone()).collect(),
            columns: codes,
            dictionaries,
            lines: rows.iter().enumerate().map(|(i, &r)| line(i, r)).collect(),
            // a subset keeps every column, and so its source's schema
            schema: if keep_lines {
                self.schema.clone()
            } else {
                None
            },
            sql_types: if keep_lines {
                self.sql_types.clone()
            } else {
                None
            },
        }
    }

    /// The file the table was read from (`<memory>` for tables built in memory).
    pub(crate) fn source(&self) -> &Path {
        &self.source
    }
    /// The type of column `name` in a database source (None for a file source).
    pub fn sql_type(&self, name: &str) -> Option<SqlType> {
        self.sql_types
            .as_ref()?
            .iter()
            .find(|(n, _)| n == name)
            .map(|&(_, t)| t)
    }
    /// Column names.
    pub fn header(&self) -> &[String] {
        &self.header
    }
    /// Number of data rows.
    pub fn rows(&self) -> usize {
        self.columns.first().map_or(0, Vec::len)
    }
    /// Index of the column named `name`.
    pub fn column_index(&self, name: &str) -> Option<usize> {
        self.header.iter().position(|h| h == name)
    }
    /// The code of each row's value in `column`.
    pub(crate) fn codes(&self, column: usize) -> &[u32] {
        &self.columns[column]
    }
    /// The distinct values of `column`.
    pub(crate) fn dictionary(&self, column: usize) -> &Dictionary {
        &self.dictionaries[column]
    }
    /// The 1-based line of the source file where data row `row` starts (`row + 2` for
    /// tables built in memory, as if under a header line).
    pub(crate) fn line(&self, row: usize) -> u64 {
        self.lines[row]
    }
    /// The string in row `row`, column `column`.
    pub fn value(&self, row: usize, column: usize) -> &str {
        self.dictionaries[column].value(self.columns[column][row])
    }

    /// [`read_csv`](Self::read_csv), reporting the bytes read as a
    /// [`LOADING`](crate::observer::LOADING) stage and stopping with
    /// [`Error::Cancelled`] when `observer` says so (it is asked before each buffer read).
    pub fn read_csv_observed(
        path: &Path,
        format: &CsvFormat,
        observer: &dyn crate::observer::Observer,
    ) -> Result<Table> {
        use crate::observer::{Reader, Stage, LOADING};
        let file = crate::input::open(path, crate::input::Kind::Table)?;
        // a FIFO has no size: it is streamed
        let size = file
            .metadata()
            .ok()
            .filter(|m| m.is_file())
            .map(|m| m.len());
        let stage = Stage::start(observer, LOADING, size);
        // a file of moderate size is read whole and split directly when plain; a larger
        // one is streamed, so that memory holds the encoded table only
        let table = match size {
            Some(n) if n <= IN_ONE_READ => match read_whole(&file, n, &stage) {
                Ok(bytes) => Self::from_bytes(&bytes, path, format),
                Err(e) => Err(Error::io(path, e)),
            },
            _ => Self::from_reader(Reader::new(file, &stage), path, format),
        };
        // a cancelled read surfaces as some error of the parser: report the cancellation
        stage.check_stopped()?;
        table
    }
}

/// The bytes of `file` (`size` bytes when it was checked, read to its end), reported to
/// `stage`, which may cancel before the read. One `read_to_end` of the file itself reads
/// straight into the buffer's spare capacity, sized from the file, in a single call for a
/// file that did not change: a reader wrapping the file is read in calls that double from
/// 8 KiB, and zeroes the buffer first (at most [`IN_ONE_READ`] bytes come this way, read
/// at page-cache speed, so the stage is not told of them piecewise).
fn read_whole(
    mut file: &std::fs::File,
    size: u64,
    stage: &crate::observer::Stage<'_>,
) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    if stage.cancelled() {
        return Err(std::io::Error::other("cancelled"));
    }
    let mut bytes = Vec::with_capacity(usize::try_from(size).unwrap_or(0));
    let n = file.read_to_end(&mut bytes)?;
    stage.add(n as u64);
    Ok(bytes)
}

/// The index of the first name in `names` that an earlier one repeats (in linear time).
fn duplicate_name(names: &[String]) -> Option<usize> {
    let mut seen = rustc_hash::FxHashSet::default();
    names.iter().position(|name| !seen.insert(name.as_str()))
}

/// Largest file read into memory whole before parsing (larger ones are streamed).
const IN_ONE_READ: u64 = 256 << 20;

/// CSV records with the file line each starts on, read by the csv crate behind a
/// [`Scanner`] that finds those lines and refuses an unterminated quoted field.
pub(crate) struct Records<R: Read> {
    csv: csv::Reader<Scanner<R>>,
    source: PathBuf,
}

impl<R: Read> Records<R> {
    /// `flexible`: records may differ in length (else a ragged record is an error).
    pub(crate) fn new(reader: R, source: &Path, delimiter: u8, quote: u8, flexible: bool) -> Self {
        let csv = csv::ReaderBuilder::new()
            .delimiter(delimiter)
            .quote(quote)
            .has_headers(false)
            .flexible(flexible)
            .from_reader(Scanner::new(reader, delimiter, quote));
        Records {
            csv,
            source: source.to_owned(),
        }
    }

    /// Reads the next record into `record` and returns the line it starts on, or None at
    /// the end of the input.
    pub(crate) fn read(&mut self, record: &mut csv::StringRecord) -> Result<Option<u64>> {
        let result = self.csv.read_record(record);
        let scanner = self.csv.get_mut();
        if let Some(long) = scanner.too_long {
            return Err(long.error(&self.source));
        }
        if let Some((line, field)) = scanner.unterminated() {
            return Err(Error::data(
                Location::at(&self.source, line, Some(field)),
                "quoted field is never closed (the quote opened here has no closing quote \
                 before the end of the file)",
            ));
        }
        let line = match &result {
            Ok(false) => None,
            _ => scanner.starts.pop_front(),
        };
        match result {
            Ok(true) => Ok(Some(line.unwrap_or(0))),
            Ok(false) => Ok(None),
            Err(e) => Err(csv_error(&self.source, line, e)),
        }
    }
}

fn csv_error(source: &Path, line: Option<u64>, e: csv::Error) -> Error {
    use csv::ErrorKind;
    let mut column = None;
    let message = match e.into_kind() {
        ErrorKind::UnequalLengths {
            expected_len, len, ..
        } => {
            format!("row has {len} fields but the header has {expected_len}")
        }
        ErrorKind::Utf8 { err, .. } => {
            column = Some(err.field() as u64 + 1);
            format!("invalid UTF-8 in field {}", err.field() + 1)
        }
        // the file cannot be read (a directory, a failing disk): no line to name
        ErrorKind::Io(err) => return Error::io(source, err),
        other => format!("{other:?}"),
    };
    let at = match line {
        Some(line) => Location::at(source, line, column),
        None => Location::file(source),
    };
    Error::data(at, message)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ScanState {
    StartRecord,
    StartField,
    InField,
    InQuoted,
    /// A quote inside a quoted field: it closes the field, or doubled is a literal quote.
    QuoteInQuoted,
}

/// A field or line past its limit ([`MAX_FIELD`], [`MAX_LINE`]): where it starts.
#[derive(Debug, Clone, Copy)]
enum TooLong {
    Field { line: u64, field: u64 },
    Line { line: u64 },
}

impl TooLong {
    fn error(self, source: &Path) -> Error {
        match self {
            TooLong::Field { line, field } => Error::data(
                Location::at(source, line, Some(field)),
                format!(
                    "field longer than {} MiB, the most a field may hold",
                    MAX_FIELD >> 20
                ),
            ),
            TooLong::Line { line } => Error::data(
                Location::at(source, line, None),
                format!(
                    "line longer than {} MiB, the most a line may hold",
                    MAX_LINE >> 20
                ),
            ),
        }
    }
}

/// One linear pass over the raw bytes on their way to the csv crate, following its
/// grammar (csv-core: `\r`, `\n` and `\r\n` end records, blank lines are skipped, a quote
/// opens a quoted field only at a field's start, doubled quotes are literal). It records
/// the line each record starts on, because the csv crate reports where it started
/// looking (one line early after `\r\n` or a blank line), and where a quoted field still
/// open at the end of the input began, because the csv crate accepts that silently. It
/// also stops the input at a field longer than [`MAX_FIELD`] or a line (or record) longer
/// than [`MAX_LINE`], so that no endless line is held in memory.
struct Scanner<R> {
    inner: R,
    delimiter: u8,
    quote: u8,
    state: ScanState,
    /// Current line (1-based) and field of the current record (1-based).
    line: u64,
    field: u64,
    /// Start lines of records seen but not yet taken by [`Records::read`].
    starts: VecDeque<u64>,
    /// Line and field where the current quoted field began.
    quote_at: (u64, u64),
    eof: bool,
    /// Offset in the input of the next byte to scan, of the current line's (or record's)
    /// first byte, and of the current field's first byte.
    offset: u64,
    line_start: u64,
    field_start: u64,
    /// Set when a field or line went past its limit: reading stops there.
    too_long: Option<TooLong>,
}

impl<R> Scanner<R> {
    fn new(inner: R, delimiter: u8, quote: u8) -> Self {
        Scanner {
            inner,
            delimiter,
            quote,
            state: ScanState::StartRecord,
            line: 1,
            field: 1,
            starts: VecDeque::new(),
            quote_at: (1, 1),
            eof: false,
            offset: 0,
            line_start: 0,
            field_start: 0,
            too_long: None,
        }
    }

    fn unterminated(&self) -> Option<(u64, u64)> {
        (self.eof && self.state == ScanState::InQuoted).then_some(self.quote_at)
    }

    fn start_field(&mut self, b: u8) -> ScanState {
        if b == self.quote {
            self.quote_at = (self.line, self.field);
            ScanState::InQuoted
        } else {
            self.after_field(b)
        }
    }

    /// The state after a byte outside quotes that does not open a field.
    #[inline]
    fn after_field(&mut self, b: u8) -> ScanState {
        if b == self.delimiter {
            self.field += 1;
            ScanState::StartField
        } else if b == b'\r' || b == b'\n' {
            ScanState::StartRecord
        } else {
            ScanState::InField
        }
    }

    /// Whether the field or line under way at offset `at` (the field's or line's end, or
    /// as far as the input is read) is past its limit; if so records it.
    fn past_limit(&mut self, at: u64) -> bool {
        let in_field = matches!(
            self.state,
            ScanState::InField | ScanState::InQuoted | ScanState::QuoteInQuoted
        );
        if in_field && at - self.field_start > MAX_FIELD as u64 {
            let (line, field) = if self.state == ScanState::InField {
                (self.line, self.field)
            } else {
                self.quote_at
            };
            self.too_long = Some(TooLong::Field { line, field });
        } else if at - self.line_start > MAX_LINE as u64 {
            self.too_long = Some(TooLong::Line { line: self.line });
        }
        self.too_long.is_some()
    }

    /// Scans `bytes`; false if a field or line went past its limit.
    fn scan(&mut self, bytes: &[u8]) -> bool {
        let base = self.offset;
        self.offset += bytes.len() as u64;
        let mut i = 0;
        while i < bytes.len() {
            // inside a field nothing matters but its end; inside quotes, only quotes and
            // newlines (counted): skip to the next such byte
            match self.state {
                ScanState::InField => {
                    match memchr::memchr3(self.delimiter, b'\r', b'\n', &bytes[i..]) {
                        Some(k) => i += k,
                        None => break,
                    }
                }
                ScanState::InQuoted => {
                    let rest = &bytes[i..];
                    let k = memchr::memchr(self.quote, rest).unwrap_or(rest.len());
                    self.line += memchr::memchr_iter(b'\n', &rest[..k]).count() as u64;
                    i += k;
                    if i == bytes.len() {
                        break;
                    }
                }
                _ => {}
            }
            let b = bytes[i];
            let at = base + i as u64;
            if self.past_limit(at) {
                return false;
            }
            i += 1;
            self.state = match self.state {
                ScanState::StartRecord if b == b'\r' || b == b'\n' => ScanState::StartRecord,
                ScanState::StartRecord => {
                    self.starts.push_back(self.line);
                    self.field = 1;
                    self.start_field(b)
                }
                ScanState::StartField => self.start_field(b),
                ScanState::InField => self.after_field(b),
                ScanState::InQuoted if b == self.quote => ScanState::QuoteInQuoted,
                ScanState::InQuoted => ScanState::InQuoted,
                ScanState::QuoteInQuoted if b == self.quote => ScanState::InQuoted,
                ScanState::QuoteInQuoted => self.after_field(b),
            };
            match self.state {
                ScanState::StartField => self.field_start = at + 1,
                ScanState::StartRecord => {
                    self.field_start = at + 1;
                    self.line_start = at + 1;
                }
                _ => {}
            }
            if b == b'\n' {
                self.line += 1;
            }
        }
        !self.past_limit(self.offset)
    }
}

impl<R: Read> Read for Scanner<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.too_long.is_some() {
            return Err(std::io::ErrorKind::InvalidData.into());
        }
        let n = self.inner.read(buf)?;
        if n == 0 && !buf.is_empty() {
            self.eof = true;
        }
        if !self.scan(&buf[..n]) {
            return Err(std::io::ErrorKind::InvalidData.into());
        }
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str, format: &CsvFormat) -> Result<Table> {
        Table::from_reader(text.as_bytes(), Path::new("t.csv"), format)
    }

    #[test]
    fn crlf_and_quotes() {
        let f = CsvFormat {
            delimiter: b';',
            ..Default::default()
        };
        let t = read("a;b\r\n1;\"x;y\"\r\n2;z\r\n", &f).unwrap();
        assert_eq!(t.header(), ["a", "b"]);
        assert_eq!(t.rows(), 2);
        assert_eq!(t.value(0, 1), "x;y");
        assert_eq!(t.value(1, 1), "z");
    }

    /// `select` builds the same table as `from_rows` on the selected values: codes,
    /// dictionaries in order of first occurrence, lines.
    #[test]
    fn select_equals_from_rows_on_random_tables() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        for _ in 0..200 {
            let (n, m) = (rng.gen_range(0..12), rng.gen_range(1..5));
            let header: Vec<String> = (0..m).map(|c| format!("c{c}")).collect();
            let rows: Vec<Vec<String>> = (0..n)
                .map(|_| (0..m).map(|_| rng.gen_range(0..4).to_string()).collect())
                .collect();
            let t = Table::from_rows(header.clone(), &rows).unwrap();
            let picked: Vec<u32> = (0..n as u32).filter(|_| rng.gen_bool(0.6)).collect();
            let columns: Vec<usize> = (0..m).filter(|_| rng.gen_bool(0.7)).collect();
            let got = t.select(&picked, &columns);
            let values: Vec<Vec<String>> = picked
                .iter()
                .map(|&r| {
                    columns
                        .iter()
                        .map(|&c| rows[r as usize][c].clone())
                        .collect()
                })
                .collect();
            let want = Table::from_rows(
                columns.iter().map(|&c| header[c].clone()).collect(),
                &values,
            )
            .unwrap();
            assert_eq!(got.header(), want.header());
            assert_eq!(got.columns, want.columns);
            assert_eq!(got.lines, want.lines);
            for (g, w) in got.dictionaries.iter().zip(&want.dictionaries) {
                assert_eq!(g.values, w.values);
                assert_eq!(g.first_line, w.first_line);
            }
        }
    }

    #[test]
    fn ragged_row_names_line() {
        let err = read("a,b\n1,2\n3\n", &CsvFormat::default())
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("t.csv:3"), "{err}");
        assert!(err.contains("1 fields"), "{err}");
    }

    #[test]
    fn invalid_utf8_is_error() {
        let bytes = b"a,b\n1,\xff\n";
        let err =
            Table::from_reader(&bytes[..], Path::new("t.csv"), &CsvFormat::default()).unwrap_err();
        assert!(err.to_string().contains("t.csv:2"), "{err}");
    }

    #[test]
    fn a_directory_is_refused_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        let err = Table::read_csv(dir.path(), &CsvFormat::default()).unwrap_err();
        let text = err.to_string();
        assert!(matches!(err, Error::Io { .. }), "{err}");
        assert!(text.starts_with(&format!("{}: is a directory", dir.path().display())));
    }

    /// A field or line of exactly the limit is read; one byte more is refused, where it
    /// starts, whether it is plain, quoted or at the end of the input.
    #[test]
    fn fields_and_lines_are_read_up_to_their_limits() {
        let format = CsvFormat::default();
        let at_limit = "x".repeat(MAX_FIELD);
        for quoted in [false, true] {
            let field = |s: &str| {
                if quoted {
                    format!("\"{s}\"")
                } else {
                    s.to_owned()
                }
            };
            let n = if quoted { MAX_FIELD - 2 } else { MAX_FIELD };
            let ok = format!("a,b\n1,{}\n", field(&at_limit[..n]));
            let t = Table::from_bytes(ok.as_bytes(), Path::new("t.csv"), &format).unwrap();
            assert_eq!(t.value(0, 1).len(), n);
            for end in ["\n", ""] {
                let long = format!("a,b\n1,{}{end}", field(&format!("{}x", &at_limit[..n])));
                let err = Table::from_bytes(long.as_bytes(), Path::new("t.csv"), &format)
                    .unwrap_err()
                    .to_string();
                assert!(
                    err.starts_with("t.csv:2:2: field longer than 1 MiB"),
                    "{err}"
                );
            }
        }
        // many fields, each within the limit: the line's limit
        let field = "y".repeat(MAX_FIELD / 2);
        let width = MAX_LINE / field.len() + 1;
        let row = vec![field.as_str(); width].join(",");
        let header: Vec<String> = (0..width).map(|i| i.to_string()).collect();
        let text = format!("{}\n{row}\n", header.join(","));
        let err = Table::from_bytes(text.as_bytes(), Path::new("t.csv"), &format)
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("t.csv:2: line longer than 16 MiB"), "{err}");
    }

    #[test]
    fn empty_file_is_error() {
        for text in ["", "\n\r\n"] {
            let err = read(text, &CsvFormat::default()).unwrap_err().to_string();
            assert_eq!(err, "t.csv:1: the file is empty");
        }
    }

    #[test]
    fn row_lines_count_quoted_newlines() {
        let f = CsvFormat {
            delimiter: b';',
            ..Default::default()
        };
        let t = read("a;b\n1;\"x\ny\"\n2;z\n", &f).unwrap();
        assert_eq!((t.line(0), t.line(1)), (2, 4));
    }

    #[test]
    fn row_lines_are_right_for_crlf_and_blank_lines() {
        let f = CsvFormat {
            delimiter: b';',
            ..Default::default()
        };
        let t = read("a;b\r\n1;x\r\n2;y\r\n", &f).unwrap();
        assert_eq!((t.line(0), t.line(1)), (2, 3));
        let t = read("a;b\r\n1;\"x\r\ny\"\r\n2;z\r\n", &f).unwrap();
        assert_eq!((t.line(0), t.line(1)), (2, 4));
        assert_eq!(t.value(0, 1), "x\r\ny");
        let t = read("a;b\n\n1;x\r\n\r\n\n2;y", &f).unwrap();
        assert_eq!((t.line(0), t.line(1)), (3, 6));
        // the first row a value occurs on, as the dictionary remembers it
        let d = t.dictionary(1);
        assert_eq!(d.first_line(d.code("y").unwrap()), 6);
    }

    #[test]
    fn ragged_row_in_crlf_file_names_its_line() {
        let err = read("a,b\r\n1,2\r\n3\r\n", &CsvFormat::default())
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("t.csv:3:"), "{err}");
        let err = read("a,b\r\n1,\"2\r\n\"\r\n\r\n3\r\n", &CsvFormat::default())
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("t.csv:5:"), "{err}");
    }

    #[test]
    fn unterminated_quote_names_where_the_field_began() {
        for text in [
            "a,b\n1,x\n2,\"open\n3,y\n",
            "a,b\r\n1,x\r\n2,\"open\r\n3,y\r\n",
            "a,b\n1,x\n2,\"open",
        ] {
            let err = read(text, &CsvFormat::default()).unwrap_err().to_string();
            assert!(err.starts_with("t.csv:3:2: "), "{text:?}: {err}");
            assert!(err.contains("never closed"), "{err}");
        }
        // a doubled quote is a literal quote, so this field is still open
        let err = read("a\nok\n\"x\"\"\ny\n", &CsvFormat::default())
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("t.csv:3:1: "), "{err}");
        // the quote opened on line 2 spans lines: the error names where it began
        let err = read("a,b\n1,\"x\ny\n\"\n2,\"z\n", &CsvFormat::default())
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("t.csv:5:2: "), "{err}");
        // the configured quote and delimiter are the ones that count
        let f = CsvFormat {
            delimiter: b';',
            quote: b'\'',
            header: true,
        };
        let t = read("a;b\n\"x;'y;z'\n", &f).unwrap();
        assert_eq!((t.value(0, 0), t.value(0, 1)), ("\"x", "y;z"));
        let err = read("a;b\n1;'x\"\n", &f).unwrap_err().to_string();
        assert!(err.starts_with("t.csv:2:2: "), "{err}");
    }

    #[test]
    fn closed_and_mid_field_quotes_are_accepted() {
        let t = read(
            "a,b\n\"x\"\"y\",p\"q\n\"\",\"multi\nline\"\n",
            &CsvFormat::default(),
        )
        .unwrap();
        assert_eq!((t.value(0, 0), t.value(0, 1)), ("x\"y", "p\"q"));
        assert_eq!((t.value(1, 0), t.value(1, 1)), ("", "multi\nline"));
        assert_eq!((t.line(0), t.line(1)), (2, 3));
    }

    #[test]
    fn wide_header_duplicate_is_found_in_linear_time() {
        let n = 100_000;
        let mut text: String = (0..n).map(|i| format!("c{i},")).collect();
        text.push_str("c5\n");
        let err = read(&text, &CsvFormat::default()).unwrap_err().to_string();
        assert_eq!(
            err,
            format!("t.csv:1:{}: duplicate column name `c5` in header", n + 1)
        );
        let long = "x".repeat(1000);
        let err = read(&format!("{long},{long}\n"), &CsvFormat::default())
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("t.csv:1:2: ") && err.len() < 120, "{err}");
    }

    #[test]
    fn first_line_is_recorded() {
        let t = read("a\nx\ny\nx\n", &CsvFormat::default()).unwrap();
        assert_eq!(
            t.dictionary(0)
                .first_line(t.dictionary(0).code("y").unwrap()),
            3
        );
    }

    #[test]
    fn rows_in_memory_are_checked_like_a_file() {
        let header = |names: &[&str]| names.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let e = Table::from_rows(header(&["a", "a"]), &[]).unwrap_err();
        assert!(
            matches!(e, Error::DataModel(DataError::DuplicateColumn(ref n)) if n == "a"),
            "{e}"
        );
        let e = Table::from_rows(header(&["a", "b"]), &[vec!["1".into()]]).unwrap_err();
        assert!(
            matches!(
                e,
                Error::DataModel(DataError::RowLength {
                    row: 1,
                    fields: 1,
                    header: 2
                })
            ),
            "{e}"
        );
    }
}
