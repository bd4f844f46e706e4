//! Tables: CSV input, dictionary-encoded into integer columns.
//!
//! Each column keeps a dictionary of its distinct strings (in order of first appearance) and
//! one `u32` code per row. Everything downstream (hierarchies, classes, models) works on the
//! codes; strings come back only when a released table is written.

use std::path::{Path, PathBuf};

use rustc_hash::FxHashMap;

use crate::error::{Error, Location, Result};

/// How a CSV file is laid out.
#[derive(Debug, Clone)]
pub struct CsvFormat {
    pub delimiter: u8,
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
pub struct Dictionary {
    values: Vec<String>,
    index: FxHashMap<String, u32>,
    /// 1-based file line where each value first occurs (for error messages).
    first_line: Vec<u64>,
}

impl Dictionary {
    fn intern(&mut self, value: &str, line: u64) -> u32 {
        if let Some(&code) = self.index.get(value) {
            return code;
        }
        let code = self.values.len() as u32;
        self.values.push(value.to_owned());
        self.index.insert(value.to_owned(), code);
        self.first_line.push(line);
        code
    }
    pub fn len(&self) -> usize {
        self.values.len()
    }
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }
    pub fn value(&self, code: u32) -> &str {
        &self.values[code as usize]
    }
    pub fn values(&self) -> &[String] {
        &self.values
    }
    pub fn code(&self, value: &str) -> Option<u32> {
        self.index.get(value).copied()
    }
    /// The file line where `code` first occurs.
    pub fn first_line(&self, code: u32) -> u64 {
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
    /// 1-based file line where each data row starts.
    lines: Vec<u64>,
}

impl Table {
    /// Reads a CSV file. A ragged row, invalid UTF-8 or an empty file is an error naming the line.
    pub fn read_csv(path: &Path, format: &CsvFormat) -> Result<Table> {
        let file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
        Self::from_reader(file, path, format)
    }

    /// Reads CSV from any reader; `source` is used in error messages.
    pub fn from_reader<R: std::io::Read>(
        reader: R,
        source: &Path,
        format: &CsvFormat,
    ) -> Result<Table> {
        let mut rdr = csv::ReaderBuilder::new()
            .delimiter(format.delimiter)
            .quote(format.quote)
            .has_headers(false)
            .flexible(false)
            .from_reader(reader);
        let mut header: Option<Vec<String>> = None;
        let mut columns: Vec<Vec<u32>> = Vec::new();
        let mut dictionaries: Vec<Dictionary> = Vec::new();
        let mut record = csv::StringRecord::new();
        let mut lines = Vec::new();
        loop {
            match rdr.read_record(&mut record) {
                Ok(false) => break,
                Ok(true) => {}
                Err(e) => return Err(csv_error(source, e)),
            }
            let line = record.position().map(|p| p.line()).unwrap_or(0);
            if header.is_none() {
                let names: Vec<String> = if format.header {
                    record
                        .iter()
                        .map(|s| s.trim_start_matches('\u{feff}').to_owned())
                        .collect()
                } else {
                    (1..=record.len()).map(|i| i.to_string()).collect()
                };
                for (i, name) in names.iter().enumerate() {
                    if names[..i].contains(name) {
                        return Err(Error::data(
                            Location::at(source, line, Some(i as u64 + 1)),
                            format!("duplicate column name `{name}` in header"),
                        ));
                    }
                }
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
        let header =
            header.ok_or_else(|| Error::data(Location::file(source), "the file is empty"))?;
        Ok(Table {
            source: source.to_owned(),
            header,
            columns,
            dictionaries,
            lines,
        })
    }

    /// Builds a table from string rows (used by tests and generators).
    pub fn from_rows(header: Vec<String>, rows: &[Vec<String>]) -> Result<Table> {
        let mut columns = vec![Vec::with_capacity(rows.len()); header.len()];
        let mut dictionaries = vec![Dictionary::default(); header.len()];
        for (r, row) in rows.iter().enumerate() {
            if row.len() != header.len() {
                return Err(Error::Invalid(format!(
                    "row {} has {} fields, header has {}",
                    r + 1,
                    row.len(),
                    header.len()
                )));
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
        })
    }

    pub fn source(&self) -> &Path {
        &self.source
    }
    pub fn header(&self) -> &[String] {
        &self.header
    }
    pub fn rows(&self) -> usize {
        self.columns.first().map_or(0, Vec::len)
    }
    pub fn column_index(&self, name: &str) -> Option<usize> {
        self.header.iter().position(|h| h == name)
    }
    pub fn codes(&self, column: usize) -> &[u32] {
        &self.columns[column]
    }
    pub fn dictionary(&self, column: usize) -> &Dictionary {
        &self.dictionaries[column]
    }
    /// The 1-based line of the source file where data row `row` starts (`row + 2` for
    /// tables built in memory, as if under a header line).
    pub fn line(&self, row: usize) -> u64 {
        self.lines[row]
    }
    /// The string in row `row`, column `column`.
    pub fn value(&self, row: usize, column: usize) -> &str {
        self.dictionaries[column].value(self.columns[column][row])
    }

    /// [`read_csv`](Self::read_csv), reporting the bytes read as a
    /// [`LOADING`](crate::progress::LOADING) stage.
    pub fn read_csv_with_progress(
        path: &Path,
        format: &CsvFormat,
        progress: Option<&dyn crate::progress::Progress>,
    ) -> Result<Table> {
        use crate::progress::{Reader, Stage, LOADING};
        let file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
        let size = file.metadata().ok().map(|m| m.len());
        let stage = Stage::start(progress, LOADING, size);
        Self::from_reader(Reader::new(file, &stage), path, format)
    }
}

fn csv_error(source: &Path, e: csv::Error) -> Error {
    use csv::ErrorKind;
    let line = e.position().map(|p| p.line());
    let message = match e.kind() {
        ErrorKind::UnequalLengths {
            expected_len, len, ..
        } => {
            format!("row has {len} fields but the header has {expected_len}")
        }
        ErrorKind::Utf8 { err, .. } => format!("invalid UTF-8 in field {}", err.field() + 1),
        ErrorKind::Io(err) => format!("read error: {err}"),
        _ => e.to_string(),
    };
    let at = match line {
        Some(line) => Location::at(source, line, None),
        None => Location::file(source),
    };
    Error::data(at, message)
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
    fn empty_file_is_error() {
        assert!(read("", &CsvFormat::default()).is_err());
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
    fn first_line_is_recorded() {
        let t = read("a\nx\ny\nx\n", &CsvFormat::default()).unwrap();
        assert_eq!(
            t.dictionary(0)
                .first_line(t.dictionary(0).code("y").unwrap()),
            3
        );
    }
}
