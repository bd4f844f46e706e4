//! Tables read from a SQLite database (the `sqlite` feature): a whole table or the rows of
//! a query, dictionary-encoded into the same [`Table`] a CSV file becomes.
//!
//! The database is opened read-only, so neither a table nor a query can modify it. Each
//! value becomes the string a CSV export would hold: an integer in decimal, a real as Rust
//! prints it (shortest form that reads back exactly), text as is, NULL as the empty string.
//! A BLOB is refused, naming its column and row. In messages the "line" of a row is its
//! 1-based position in the result.

use std::fmt::Write as _;
use std::path::Path;

use rusqlite::types::ValueRef;
use rusqlite::{Connection, OpenFlags};

use super::{duplicate_name, Dictionary, SqlType, Table};
use crate::error::{excerpt, Error, Location, Result};
use crate::observer::{Observer, Stage, LOADING};

/// What to read from the database.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Selection {
    /// Every row of a table (its name, quoted as an identifier when read).
    Table(String),
    /// The rows of a query (a single `SELECT`).
    Query(String),
}

fn db_error(path: &Path, row: Option<u64>, e: impl std::fmt::Display) -> Error {
    let at = match row {
        Some(row) => Location::at(path, row, None),
        None => Location::file(path),
    };
    Error::data(at, e.to_string())
}

/// The SQL that reads `selection`.
fn sql(selection: &Selection) -> String {
    match selection {
        Selection::Table(name) => format!("SELECT * FROM \"{}\"", name.replace('"', "\"\"")),
        Selection::Query(query) => query.clone(),
    }
}

/// Reads `selection` from the SQLite database at `path` (a regular file, opened read-only).
pub(crate) fn read_sqlite(
    path: &Path,
    selection: &Selection,
    observer: &dyn Observer,
) -> Result<Table> {
    // refuses a device, FIFO or directory before SQLite opens it, as every input
    drop(crate::input::open(path, crate::input::Kind::Seekable)?);
    let connection = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .map_err(|e| db_error(path, None, format_args!("cannot open the database: {e}")))?;
    let mut statement = connection.prepare(&sql(selection)).map_err(|e| {
        db_error(
            path,
            None,
            format_args!("cannot read {}: {e}", describe(selection)),
        )
    })?;
    if !statement.readonly() {
        return Err(db_error(
            path,
            None,
            "the query would modify the database; give a SELECT",
        ));
    }
    let header: Vec<String> = statement
        .column_names()
        .into_iter()
        .map(str::to_owned)
        .collect();
    if header.is_empty() {
        return Err(db_error(path, None, "the query returns no columns"));
    }
    if let Some(i) = duplicate_name(&header) {
        return Err(db_error(
            path,
            None,
            format!(
                "duplicate column name `{}` in the result",
                excerpt(&header[i])
            ),
        ));
    }
    let mut columns: Vec<Vec<u32>> = vec![Vec::new(); header.len()];
    let mut dictionaries = vec![Dictionary::default(); header.len()];
    let stage = Stage::start(observer, LOADING, None);
    let mut rows = statement.query([]).map_err(|e| {
        db_error(
            path,
            None,
            format_args!("cannot read {}: {e}", describe(selection)),
        )
    })?;
    let mut line: u64 = 0;
    let mut text = String::new();
    // the storage classes seen in each column (INTEGER, REAL, TEXT as bits 1, 2, 4)
    let mut seen = vec![0u8; header.len()];
    while let Some(row) = rows.next().map_err(|e| db_error(path, Some(line + 1), e))? {
        line += 1;
        if line.is_multiple_of(4096) {
            stage.check()?;
            stage.add(4096);
        }
        for (c, column) in columns.iter_mut().enumerate() {
            let value = row.get_ref(c).map_err(|e| db_error(path, Some(line), e))?;
            seen[c] |= match value {
                ValueRef::Integer(_) => 1,
                ValueRef::Real(_) => 2,
                ValueRef::Text(_) => 4,
                _ => 0,
            };
            let cell: &str = match value {
                ValueRef::Null => "",
                ValueRef::Integer(i) => {
                    text.clear();
                    let _ = write!(text, "{i}");
                    &text
                }
                ValueRef::Real(f) => {
                    text.clear();
                    let _ = write!(text, "{f}");
                    &text
                }
                ValueRef::Text(bytes) => std::str::from_utf8(bytes).map_err(|_| {
                    db_error(
                        path,
                        Some(line),
                        format!("column `{}` is not valid UTF-8 here", excerpt(&header[c])),
                    )
                })?,
                ValueRef::Blob(_) => {
                    return Err(db_error(
                        path,
                        Some(line),
                        format!(
                            "column `{}` holds a BLOB, which cellsafe does not read: cast it \
                             to text in a query",
                            excerpt(&header[c])
                        ),
                    ))
                }
            };
            column.push(dictionaries[c].intern(cell, line));
        }
    }
    stage.check_stopped()?;
    // a column of integers only (or reals only, and NULLs) keeps its type in a release
    // written to a database; any other, text
    let sql_types = header
        .iter()
        .zip(&seen)
        .map(|(name, &classes)| {
            let t = match classes {
                1 => SqlType::Integer,
                2 => SqlType::Real,
                _ => SqlType::Text,
            };
            (name.clone(), t)
        })
        .collect();
    Ok(Table {
        source: path.to_owned(),
        sql_types: Some(sql_types),
        header,
        columns,
        dictionaries,
        lines: (1..=line).collect(),
        schema: None,
    })
}

fn describe(selection: &Selection) -> String {
    match selection {
        Selection::Table(name) => format!("table `{}`", excerpt(name)),
        Selection::Query(_) => "the query".to_owned(),
    }
}

impl Table {
    /// Reads `selection` (a table or a query) from the SQLite database at `path`, opened
    /// read-only (see the module documentation).
    pub fn read_sqlite(
        path: &Path,
        selection: &Selection,
        observer: &dyn Observer,
    ) -> Result<Table> {
        read_sqlite(path, selection, observer)
    }
}
