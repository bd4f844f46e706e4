//! The release written into a database table (the `sqlite` feature): all or nothing, and
//! checked back from what the database holds.
//!
//! The audit judges the release's CSV bytes; this module writes exactly those rows into a
//! new *staging* table (`cellsafe_staging_` and random letters) and commits it, reads that
//! table back through a second, read-only connection and compares it cell by cell with the
//! same bytes, and only then, in one transaction, drops the old table (with `[output]
//! replace = true`; without it an existing table is an error) and renames the staging
//! table into place. A failure at any step drops the staging table.
//!
//! A process killed at any moment leaves the target as it was or the whole checked table:
//! the rename and the drop are one SQLite transaction. It may leave a staging table, which
//! the next run writing to the same database drops ([`DatabaseOutput::prepare`]): every
//! run holds the cellsafe lock of the database file (the job's
//! [`Transaction`](super::output::Transaction) locks it as a target it never stages), so a
//! staging table found under the lock belongs to a dead run.
//!
//! **Types.** A column the release keeps as it is (see `job::output`) is declared with its
//! source's type when it has one and every released cell reads back as it: `INTEGER`,
//! `REAL`; every other column is `TEXT`. In a typed column the `*` of a suppressed row and
//! an empty cell are NULL (as in a columnar release); text columns hold the cells as they
//! are.

use std::path::PathBuf;

use rusqlite::types::{Value, ValueRef};
use rusqlite::{Connection, OpenFlags, OptionalExtension, TransactionBehavior};

use crate::data::table::{CsvFormat, SqlType};
use crate::data::SUPPRESSED;
use crate::error::{excerpt, Error, Location, Result};
use crate::observer::{Observer, Stage, WRITING};

#[cfg(feature = "postgres")]
mod postgres;

/// The start of every staging table's name.
pub const STAGING_PREFIX: &str = "cellsafe_staging_";

/// How long a statement waits for another connection's lock on the database.
const BUSY_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

/// Rows between two checks for cancellation.
pub(crate) const CHECK_EVERY: u64 = 4096;

/// `[output] url` and `table`: where the release goes.
#[derive(Debug, Clone)]
pub struct DatabaseOutput {
    /// The url as the config gives it (SQLite urls hold no password).
    pub url: String,
    /// The database file.
    pub path: PathBuf,
    /// The table to create.
    pub table: String,
    /// Whether an existing table of that name is replaced.
    pub replace: bool,
    /// The config file, for messages naming its keys.
    pub config: String,
    /// A PostgreSQL database (`url`), not a SQLite file (`path`).
    #[cfg(feature = "postgres")]
    pub postgres: bool,
}

/// A release written into a staging table and checked, not yet renamed into place;
/// dropped with its staging table unless committed.
pub enum Staged<'a> {
    /// In a SQLite database.
    Sqlite(SqliteStaged<'a>),
    /// In a PostgreSQL database.
    #[cfg(feature = "postgres")]
    Postgres(postgres::PgStaged<'a>),
}

impl Staged<'_> {
    /// In one transaction: drops the old table (when it may be replaced) and renames the
    /// staging table into place.
    pub fn commit(self) -> Result<()> {
        match self {
            Staged::Sqlite(s) => s.commit(),
            #[cfg(feature = "postgres")]
            Staged::Postgres(s) => s.commit(),
        }
    }
}

/// `name` quoted as an SQL identifier.
pub fn quote(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// The value a cell is stored as in a column of type `t`; None when it does not read back
/// as the cell (then the column must be text).
pub(crate) fn stored(cell: &str, t: SqlType) -> Option<Value> {
    if t != SqlType::Text && (cell.is_empty() || cell == SUPPRESSED) {
        return Some(Value::Null);
    }
    match t {
        SqlType::Text => Some(Value::Text(cell.to_owned())),
        SqlType::Integer => cell
            .parse::<i64>()
            .ok()
            .filter(|i| i.to_string() == cell)
            .map(Value::Integer),
        SqlType::Real => cell
            .parse::<f64>()
            .ok()
            .filter(|f| f.is_finite() && format!("{f}") == cell)
            .map(Value::Real),
    }
}

/// Whether `value`, read from a column of type `t`, is `cell`.
fn holds(value: ValueRef<'_>, cell: &str, t: SqlType) -> bool {
    match (value, t) {
        (ValueRef::Text(text), SqlType::Text) => text == cell.as_bytes(),
        (ValueRef::Null, SqlType::Integer | SqlType::Real) => cell.is_empty() || cell == SUPPRESSED,
        (ValueRef::Integer(i), SqlType::Integer) => i.to_string() == cell,
        (ValueRef::Real(f), SqlType::Real) => format!("{f}") == cell,
        _ => false,
    }
}

/// Whether `value`, read as PostgreSQL prints it from a column of type `t`, is `cell`.
#[cfg(feature = "postgres")]
fn holds_text(value: Option<&str>, cell: &str, t: SqlType) -> bool {
    match (value, t) {
        (Some(text), SqlType::Text) => text == cell,
        (None, SqlType::Integer | SqlType::Real) => cell.is_empty() || cell == SUPPRESSED,
        (Some(text), SqlType::Integer) => text == cell,
        // PostgreSQL prints the shortest text that reads back exactly, not always Rust's
        (Some(text), SqlType::Real) => text.parse::<f64>().is_ok_and(|f| format!("{f}") == cell),
        _ => false,
    }
}

pub(crate) fn reader<'a>(csv: &'a [u8], format: &CsvFormat) -> csv::Reader<&'a [u8]> {
    csv::ReaderBuilder::new()
        .delimiter(format.delimiter)
        .quote(format.quote)
        .has_headers(true)
        .from_reader(csv)
}

/// The audited release read alongside a staging table read back from the database: each
/// backend reads its rows in order and hands them here, which compares the declared
/// columns and every cell with the release and names the first difference.
pub(crate) struct ReadBack<'a> {
    output: &'a DatabaseOutput,
    records: csv::Reader<&'a [u8]>,
    header: Vec<String>,
    types: &'a [SqlType],
    record: csv::StringRecord,
    row: u64,
    progress: &'a Stage<'a>,
}

impl<'a> ReadBack<'a> {
    /// The release in `csv` (laid out as `format`), written with `types`.
    pub(crate) fn new(
        output: &'a DatabaseOutput,
        csv: &'a [u8],
        format: &CsvFormat,
        types: &'a [SqlType],
        progress: &'a Stage<'a>,
    ) -> Result<Self> {
        let (records, header) = output.release_reader(csv, format, types)?;
        Ok(ReadBack {
            output,
            records,
            header,
            types,
            record: csv::StringRecord::new(),
            row: 0,
            progress,
        })
    }

    fn differs(&self, what: String) -> Error {
        self.output.error(format_args!(
            "the staging table does not hold the audited release: {what}"
        ))
    }

    /// Checks the staging table's columns as the database `declared` them (name, type)
    /// against the release's header with its types named by `name`.
    pub(crate) fn columns(
        &self,
        declared: Vec<(String, String)>,
        name: impl Fn(SqlType) -> &'static str,
    ) -> Result<()> {
        let wanted: Vec<(String, String)> = self
            .header
            .iter()
            .zip(self.types)
            .map(|(n, &t)| (n.clone(), name(t).to_owned()))
            .collect();
        if declared != wanted {
            return Err(self.differs(format!("its columns are {declared:?}, not {wanted:?}")));
        }
        Ok(())
    }

    /// Compares the next row held with the release's next row: `differs(column, cell,
    /// type)` says what the row holds in `column` when it does not hold `cell`.
    pub(crate) fn row(
        &mut self,
        mut differs: impl FnMut(usize, &str, SqlType) -> Result<Option<String>>,
    ) -> Result<()> {
        let more = self
            .records
            .read_record(&mut self.record)
            .map_err(|e| self.output.error(e))?;
        if !more {
            return Err(self.differs(format!("it has more than the {} released rows", self.row)));
        }
        self.row += 1;
        for (c, (cell, &t)) in self.record.iter().zip(self.types).enumerate() {
            if let Some(value) = differs(c, cell, t)? {
                return Err(self.differs(format!(
                    "row {}, column `{}` holds {value} where the release has `{}`",
                    self.row,
                    excerpt(&self.header[c]),
                    excerpt(cell)
                )));
            }
        }
        if self.row.is_multiple_of(CHECK_EVERY) {
            self.progress.add(CHECK_EVERY);
            self.progress.check()?;
        }
        Ok(())
    }

    /// Checks that the release has no row left once the table's rows have all been read.
    pub(crate) fn end(mut self) -> Result<()> {
        let more = self
            .records
            .read_record(&mut self.record)
            .map_err(|e| self.output.error(e))?;
        if more {
            return Err(self.differs(format!("it ends after {} rows", self.row)));
        }
        Ok(())
    }
}

/// The type each column of the released CSV is written as: `wanted` (by column) where
/// every cell reads back as it, else text.
pub fn column_types(csv: &[u8], format: &CsvFormat, wanted: &[SqlType]) -> Vec<SqlType> {
    let mut types = wanted.to_vec();
    let mut records = reader(csv, format);
    let mut record = csv::StringRecord::new();
    while records.read_record(&mut record).unwrap_or(false) {
        for (t, cell) in types.iter_mut().zip(record.iter()) {
            if *t != SqlType::Text && stored(cell, *t).is_none() {
                *t = SqlType::Text;
            }
        }
        if types.iter().all(|&t| t == SqlType::Text) {
            break;
        }
    }
    types
}

impl DatabaseOutput {
    /// The release in `csv` (laid out as `format`) opened for reading, with its header,
    /// which must name one column per type of `types`.
    pub(crate) fn release_reader<'a>(
        &self,
        csv: &'a [u8],
        format: &CsvFormat,
        types: &[SqlType],
    ) -> Result<(csv::Reader<&'a [u8]>, Vec<String>)> {
        let mut records = reader(csv, format);
        let header: Vec<String> = records
            .headers()
            .map_err(|e| self.error(e))?
            .iter()
            .map(str::to_owned)
            .collect();
        if header.len() != types.len() {
            return Err(self.error("the release's columns and their types differ"));
        }
        Ok((records, header))
    }

    /// What the report calls the output: the url and the table.
    pub fn describe(&self) -> String {
        format!("{} table {}", self.url, self.table)
    }

    pub(crate) fn error(&self, what: impl std::fmt::Display) -> Error {
        Error::data(
            Location::file(&self.path),
            format!("table `{}`: {what}", excerpt(&self.table)),
        )
    }

    pub(crate) fn exists_error(&self) -> Error {
        Error::config(
            &self.config,
            "output.table",
            format!(
                "table `{}` exists in {}; set [output] replace = true to replace it (nothing \
                 was written)",
                self.table,
                self.path.display()
            ),
        )
    }

    fn open(&self, create: bool) -> Result<Connection> {
        let mut flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        if create {
            flags |= OpenFlags::SQLITE_OPEN_CREATE;
        }
        let connection = Connection::open_with_flags(&self.path, flags)
            .map_err(|e| self.error(format_args!("cannot open the database: {e}")))?;
        connection
            .busy_timeout(BUSY_TIMEOUT)
            .map_err(|e| self.error(e))?;
        Ok(connection)
    }

    /// What `name` is in the database (`table`, `view`, `index`...), if anything.
    fn kind_of(&self, connection: &Connection, name: &str) -> Result<Option<String>> {
        connection
            .query_row(
                "SELECT type FROM sqlite_master WHERE name = ?1 COLLATE NOCASE",
                [name],
                |row| row.get(0),
            )
            .optional()
            .map_err(|e| self.error(format_args!("cannot read the schema: {e}")))
    }

    /// Before any work, with the database file locked: drops the staging tables of dead
    /// runs and fails (naming `output.table`) if the table exists and may not be replaced.
    /// A database file that does not exist yet is created when the release is written.
    pub fn prepare(&self) -> Result<()> {
        #[cfg(feature = "postgres")]
        if self.postgres {
            return postgres::prepare(self);
        }
        if !self.path.exists() {
            return Ok(());
        }
        drop(crate::input::open(
            &self.path,
            crate::input::Kind::Seekable,
        )?);
        let connection = self.open(false)?;
        let stale: Vec<String> = (|| {
            let mut statement = connection.prepare(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE ?1 \
                 ESCAPE '\\'",
            )?;
            let pattern = format!("{}%", STAGING_PREFIX.replace('_', "\\_"));
            let names = statement
                .query_map([pattern], |row| row.get::<_, String>(0))?
                .collect::<rusqlite::Result<Vec<String>>>();
            names
        })()
        .map_err(|e| self.error(format_args!("cannot read the schema: {e}")))?;
        for name in stale {
            connection
                .execute_batch(&format!("DROP TABLE IF EXISTS {}", quote(&name)))
                .map_err(|e| {
                    self.error(format_args!(
                        "cannot drop the staging table `{name}` a killed run left: {e}"
                    ))
                })?;
        }
        match self.kind_of(&connection, &self.table)? {
            None => Ok(()),
            Some(kind) if kind == "table" && self.replace => Ok(()),
            Some(kind) if kind == "table" => Err(self.exists_error()),
            Some(kind) => Err(Error::config(
                &self.config,
                "output.table",
                format!(
                    "`{}` names a {kind} in {}, which cellsafe does not replace",
                    self.table,
                    self.path.display()
                ),
            )),
        }
    }

    /// Writes the released CSV `csv` (read with `format`) into a new staging table with
    /// column `types`, commits it and reads it back through another connection: it must
    /// hold `csv` cell for cell. The staging table is dropped unless the returned
    /// [`Staged`] is committed.
    pub fn stage(
        &self,
        csv: &[u8],
        format: &CsvFormat,
        types: &[SqlType],
        observer: &dyn Observer,
    ) -> Result<Staged<'_>> {
        #[cfg(feature = "postgres")]
        if self.postgres {
            return postgres::stage(self, csv, format, types, observer).map(Staged::Postgres);
        }
        self.stage_sqlite(csv, format, types, observer)
            .map(Staged::Sqlite)
    }

    fn stage_sqlite(
        &self,
        csv: &[u8],
        format: &CsvFormat,
        types: &[SqlType],
        observer: &dyn Observer,
    ) -> Result<SqliteStaged<'_>> {
        let progress = Stage::start(observer, WRITING, None);
        let created = !self.path.exists();
        let connection = self.open(true)?;
        let name = format!("{STAGING_PREFIX}{}", random_suffix());
        let mut staged = SqliteStaged {
            output: self,
            connection,
            name,
            created,
            done: false,
        };
        staged.write(csv, format, types, &progress)?;
        staged.verify(csv, format, types, &progress)?;
        progress.check()?;
        Ok(staged)
    }
}

/// Sixteen random lowercase letters and digits.
pub(crate) fn random_suffix() -> String {
    use rand::Rng;
    const CHARS: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789";
    let mut rng = rand::thread_rng();
    (0..16)
        .map(|_| CHARS[rng.gen_range(0..CHARS.len())] as char)
        .collect()
}

/// A staging table written into a SQLite database and checked, not yet renamed into place;
/// dropped with it unless committed.
pub struct SqliteStaged<'a> {
    output: &'a DatabaseOutput,
    connection: Connection,
    name: String,
    /// The database file did not exist before: it is removed again if nothing is committed.
    created: bool,
    done: bool,
}

impl SqliteStaged<'_> {
    fn write(
        &mut self,
        csv: &[u8],
        format: &CsvFormat,
        types: &[SqlType],
        progress: &Stage<'_>,
    ) -> Result<()> {
        let output = self.output;
        let sql = |e: rusqlite::Error| output.error(format_args!("cannot write the release: {e}"));
        let (mut records, header) = output.release_reader(csv, format, types)?;
        let columns: Vec<String> = header
            .iter()
            .zip(types)
            .map(|(name, t)| format!("{} {}", quote(name), t.sql()))
            .collect();
        let tx = self
            .connection
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(sql)?;
        tx.execute_batch(&format!(
            "CREATE TABLE {} ({})",
            quote(&self.name),
            columns.join(", ")
        ))
        .map_err(sql)?;
        {
            let placeholders: Vec<String> = (1..=header.len()).map(|i| format!("?{i}")).collect();
            let mut insert = tx
                .prepare(&format!(
                    "INSERT INTO {} VALUES ({})",
                    quote(&self.name),
                    placeholders.join(", ")
                ))
                .map_err(sql)?;
            let mut record = csv::StringRecord::new();
            let mut row: u64 = 0;
            let mut values: Vec<Value> = Vec::with_capacity(header.len());
            while records
                .read_record(&mut record)
                .map_err(|e| output.error(e))?
            {
                row += 1;
                values.clear();
                for (cell, &t) in record.iter().zip(types) {
                    values.push(stored(cell, t).ok_or_else(|| {
                        output.error(format_args!(
                            "row {row}: `{}` is not a value of type {}",
                            excerpt(cell),
                            t.sql()
                        ))
                    })?);
                }
                insert
                    .execute(rusqlite::params_from_iter(values.iter()))
                    .map_err(sql)?;
                if row.is_multiple_of(CHECK_EVERY) {
                    progress.add(CHECK_EVERY);
                    progress.check()?;
                }
            }
        }
        tx.commit().map_err(sql)
    }

    /// Reads the staging table back through a new read-only connection and compares it
    /// with the released CSV, names and types of the columns, then every cell in row order.
    fn verify(
        &self,
        csv: &[u8],
        format: &CsvFormat,
        types: &[SqlType],
        progress: &Stage<'_>,
    ) -> Result<()> {
        let output = self.output;
        let sql = |e: rusqlite::Error| output.error(format_args!("cannot read it back: {e}"));
        let check = Connection::open_with_flags(
            &output.path,
            OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .map_err(sql)?;
        check.busy_timeout(BUSY_TIMEOUT).map_err(sql)?;
        let mut expected = ReadBack::new(output, csv, format, types, progress)?;
        let declared: Vec<(String, String)> = {
            let mut info = check
                .prepare(&format!("PRAGMA table_info({})", quote(&self.name)))
                .map_err(sql)?;
            let rows = info
                .query_map([], |row| Ok((row.get(1)?, row.get(2)?)))
                .map_err(sql)?;
            rows.collect::<rusqlite::Result<_>>().map_err(sql)?
        };
        expected.columns(declared, |t| t.sql())?;
        let mut select = check
            .prepare(&format!(
                "SELECT * FROM {} ORDER BY rowid",
                quote(&self.name)
            ))
            .map_err(sql)?;
        let mut rows = select.query([]).map_err(sql)?;
        while let Some(held) = rows.next().map_err(sql)? {
            expected.row(|c, cell, t| {
                let value = held.get_ref(c).map_err(sql)?;
                Ok((!holds(value, cell, t)).then(|| format!("{value:?}")))
            })?;
        }
        expected.end()
    }

    /// In one transaction: drops the old table (when it may be replaced) and renames the
    /// staging table into place.
    pub fn commit(mut self) -> Result<()> {
        let output = self.output;
        let sql = |e: rusqlite::Error| {
            output.error(format_args!("cannot rename the release into place: {e}"))
        };
        let tx = self
            .connection
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(sql)?;
        match output.kind_of(&tx, &output.table)? {
            None => {}
            Some(kind) if kind == "table" && output.replace => {
                tx.execute_batch(&format!("DROP TABLE {}", quote(&output.table)))
                    .map_err(sql)?;
            }
            Some(kind) if kind == "table" => return Err(output.exists_error()),
            Some(kind) => return Err(output.error(format_args!("the name is a {kind} now"))),
        }
        tx.execute_batch(&format!(
            "ALTER TABLE {} RENAME TO {}",
            quote(&self.name),
            quote(&output.table)
        ))
        .map_err(sql)?;
        tx.commit().map_err(sql)?;
        self.done = true;
        Ok(())
    }
}

impl Drop for SqliteStaged<'_> {
    fn drop(&mut self) {
        if self.done {
            return;
        }
        let _ = self
            .connection
            .execute_batch(&format!("DROP TABLE IF EXISTS {}", quote(&self.name)));
        if self.created {
            // a database this run created and that holds nothing: removed again
            let empty = self
                .connection
                .query_row("SELECT count(*) FROM sqlite_master", [], |r| {
                    r.get::<_, i64>(0)
                })
                .is_ok_and(|n| n == 0);
            if empty {
                let _ = std::fs::remove_file(&self.output.path);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::observer::Silent;

    fn output(dir: &std::path::Path) -> DatabaseOutput {
        DatabaseOutput {
            url: "sqlite://out.db".into(),
            path: dir.join("out.db"),
            table: "released".into(),
            replace: false,
            config: "job.toml".into(),
            #[cfg(feature = "postgres")]
            postgres: false,
        }
    }

    fn tables(path: &std::path::Path) -> Vec<String> {
        let c = Connection::open(path).unwrap();
        let mut s = c
            .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
            .unwrap();
        let names = s
            .query_map([], |r| r.get(0))
            .unwrap()
            .collect::<rusqlite::Result<Vec<String>>>()
            .unwrap();
        names
    }

    const CSV: &[u8] = b"age,n,x\n[20-30[,1,0.5\n*,*,*\n[30-40[,,2.25\n";
    const TYPES: [SqlType; 3] = [SqlType::Text, SqlType::Integer, SqlType::Real];

    #[test]
    fn a_staging_table_that_does_not_hold_the_release_is_refused_and_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let out = output(dir.path());
        Connection::open(&out.path)
            .unwrap()
            .execute_batch("CREATE TABLE other (a TEXT)")
            .unwrap();
        let format = CsvFormat::default();
        let progress = Stage::start(&Silent, WRITING, None);
        let mut staged = SqliteStaged {
            output: &out,
            connection: out.open(true).unwrap(),
            name: format!("{STAGING_PREFIX}test"),
            created: false,
            done: false,
        };
        staged.write(CSV, &format, &TYPES, &progress).unwrap();
        staged.verify(CSV, &format, &TYPES, &progress).unwrap();
        // another writer changes one cell between the write and the check
        Connection::open(&out.path)
            .unwrap()
            .execute_batch("UPDATE cellsafe_staging_test SET n = 7 WHERE rowid = 3")
            .unwrap();
        let err = staged
            .verify(CSV, &format, &TYPES, &progress)
            .unwrap_err()
            .to_string();
        assert!(err.contains("does not hold the audited release"), "{err}");
        assert!(err.contains("row 3, column `n`"), "{err}");
        drop(staged);
        assert_eq!(tables(&out.path), ["other"]);
    }

    #[test]
    fn cells_are_typed_where_they_read_back_and_text_elsewhere() {
        let format = CsvFormat::default();
        let csv = b"a,b,c,d\n1,1.5,007,x\n*,,2,\n-3,1e3,4,y\n";
        let wanted = [
            SqlType::Integer,
            SqlType::Real,
            SqlType::Integer,
            SqlType::Integer,
        ];
        assert_eq!(
            column_types(csv, &format, &wanted),
            [
                SqlType::Integer,
                SqlType::Text,
                SqlType::Text,
                SqlType::Text
            ]
        );
        assert_eq!(stored("*", SqlType::Real), Some(Value::Null));
        assert_eq!(stored("", SqlType::Text), Some(Value::Text(String::new())));
        assert!(holds(ValueRef::Null, "*", SqlType::Integer));
        assert!(!holds(ValueRef::Null, "*", SqlType::Text));
        assert!(!holds(ValueRef::Integer(1), "1", SqlType::Text));
    }

    #[test]
    fn a_commit_renames_in_one_step_and_a_dropped_stage_leaves_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let mut out = output(dir.path());
        let format = CsvFormat::default();
        // a database that did not exist is removed again with the dropped stage
        drop(out.stage(CSV, &format, &TYPES, &Silent).unwrap());
        assert!(!out.path.exists());
        out.stage(CSV, &format, &TYPES, &Silent)
            .unwrap()
            .commit()
            .unwrap();
        assert_eq!(tables(&out.path), ["released"]);
        // an existing table: refused at prepare and at commit, replaced when allowed
        assert!(out
            .prepare()
            .unwrap_err()
            .to_string()
            .contains("output.table"));
        let staged = out.stage(CSV, &format, &TYPES, &Silent).unwrap();
        assert!(staged
            .commit()
            .unwrap_err()
            .to_string()
            .contains("output.table"));
        assert_eq!(tables(&out.path), ["released"]);
        out.replace = true;
        out.prepare().unwrap();
        out.stage(CSV, &format, &TYPES, &Silent)
            .unwrap()
            .commit()
            .unwrap();
        assert_eq!(tables(&out.path), ["released"]);
        // a staging table a killed run left is dropped by the next prepare
        Connection::open(&out.path)
            .unwrap()
            .execute_batch("CREATE TABLE cellsafe_staging_dead (a TEXT)")
            .unwrap();
        out.prepare().unwrap();
        assert_eq!(tables(&out.path), ["released"]);
    }
}
