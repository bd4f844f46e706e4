//! The formats a table is read from, and the schema a columnar source declared.
//!
//! CSV is always read. Parquet and Arrow IPC files are read by `table::columnar`
//! when cellsafe is built with the `arrow` feature; without it, naming such a file is an
//! error that says so.

use std::path::Path;

use super::{CsvFormat, Table};
use crate::error::Result;
#[cfg(not(feature = "arrow"))]
use crate::error::{Error, Location};
use crate::observer::Observer;

/// The schema a columnar source declared, kept beside the dictionary-encoded table.
#[derive(Debug, Clone)]
pub struct SourceSchema(
    #[cfg(feature = "arrow")] pub(crate) arrow_schema::SchemaRef,
    #[cfg(not(feature = "arrow"))] (),
);

#[cfg(feature = "arrow")]
impl SourceSchema {
    /// The Arrow schema of the source.
    pub fn arrow(&self) -> &arrow_schema::SchemaRef {
        &self.0
    }
}

/// The file formats a table is read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Comma- (or otherwise) separated values.
    Csv,
    /// Apache Parquet.
    Parquet,
    /// The Arrow IPC file format (`.arrow`, `.feather`, Feather version 2).
    ArrowFile,
    /// The Arrow IPC stream format (`.arrows`): may come through a FIFO.
    ArrowStream,
}

impl Format {
    /// The format a file's name says: `.parquet`, `.arrow`/`.feather`, `.arrows`, else CSV.
    pub fn from_extension(path: &Path) -> Format {
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase);
        match ext.as_deref() {
            Some("parquet") | Some("pq") => Format::Parquet,
            Some("arrow") | Some("feather") | Some("ipc") => Format::ArrowFile,
            Some("arrows") => Format::ArrowStream,
            _ => Format::Csv,
        }
    }

    /// The format a config names: `csv`, `parquet`, `arrow` (IPC file) or `arrow-stream`.
    pub fn from_name(name: &str) -> Option<Format> {
        match name {
            "csv" => Some(Format::Csv),
            "parquet" => Some(Format::Parquet),
            "arrow" | "feather" => Some(Format::ArrowFile),
            "arrow-stream" => Some(Format::ArrowStream),
            _ => None,
        }
    }

    /// The names [`from_name`](Self::from_name) takes, for messages.
    pub const NAMES: &'static str = "csv, parquet, arrow, arrow-stream";
}

impl Format {
    /// What a user calls this format in messages.
    pub fn describe(self) -> &'static str {
        match self {
            Format::Csv => "CSV",
            Format::Parquet => "Parquet",
            Format::ArrowFile => "an Arrow IPC file",
            Format::ArrowStream => "an Arrow IPC stream",
        }
    }
}

impl Table {
    /// Reads a table in `format` from `path` (CSV with `csv`'s layout).
    pub fn read(
        path: &Path,
        format: Format,
        csv: &CsvFormat,
        observer: &dyn Observer,
    ) -> Result<Table> {
        #[cfg(feature = "arrow")]
        use super::columnar::{read_ipc, read_parquet};
        match format {
            Format::Csv => Table::read_csv_observed(path, csv, observer),
            #[cfg(feature = "arrow")]
            Format::Parquet => read_parquet(path, observer),
            #[cfg(feature = "arrow")]
            Format::ArrowFile => read_ipc(path, false, observer),
            #[cfg(feature = "arrow")]
            Format::ArrowStream => read_ipc(path, true, observer),
            #[cfg(not(feature = "arrow"))]
            other => Err(Error::data(
                Location::file(path),
                format!(
                    "reading {} needs cellsafe built with the `arrow` feature",
                    other.describe()
                ),
            )),
        }
    }

    /// Builds a table from Arrow record batches in memory (all under `schema`): each
    /// column as the strings Arrow prints for its values, a null as the empty string.
    /// Errors name the rows as `<arrow>:ROW`.
    #[cfg(feature = "arrow")]
    pub fn from_record_batches(
        schema: arrow_schema::SchemaRef,
        batches: &[arrow_array::RecordBatch],
    ) -> Result<Table> {
        super::columnar::from_record_batches(schema, batches)
    }

    /// Builds a table from Arrow record batches in memory (all under `schema`), as
    /// [`from_record_batches`](Self::from_record_batches) does, naming the rows as
    /// `source:ROW` and reporting to `observer`, which may stop it.
    #[cfg(feature = "arrow")]
    pub fn from_arrow(
        schema: arrow_schema::SchemaRef,
        batches: &[arrow_array::RecordBatch],
        source: &std::path::Path,
        observer: &dyn crate::observer::Observer,
    ) -> Result<Table> {
        super::columnar::from_batches(
            schema,
            batches.iter().cloned().map(Ok),
            source,
            Some(batches.iter().map(|b| b.num_rows() as u64).sum()),
            observer,
        )
    }

    /// The schema of the columnar source this table was read from, if it was.
    pub fn source_schema(&self) -> Option<&SourceSchema> {
        self.schema.as_ref()
    }
}
