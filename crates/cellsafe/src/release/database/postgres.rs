//! The release written into a PostgreSQL table (the `postgres` feature): the steps of the
//! SQLite writer (see the parent module) over a PostgreSQL connection.
//!
//! The staging table is filled and committed, read back in its physical order (`ctid`, the
//! order of the inserts into a new table) through a second connection, and renamed into
//! place in one transaction. Its writer holds a session advisory lock keyed by its name, so
//! that a later run drops exactly the staging tables whose writer is gone (the server
//! releases the lock of a dead session). Types: `bigint`, `double precision`, `text`.

use super::{holds_text, stored, DatabaseOutput, ReadBack, CHECK_EVERY, STAGING_PREFIX};
use crate::data::table::postgres::{message, Pg};
use crate::data::table::{CsvFormat, SqlType};
use crate::error::{excerpt, Error, Result};
use crate::observer::{Observer, Stage, WRITING};
use rusqlite::types::Value;

/// Rows per INSERT statement.
const ROWS_PER_INSERT: usize = 1000;

fn pg_type(t: SqlType) -> &'static str {
    match t {
        SqlType::Integer => "bigint",
        SqlType::Real => "double precision",
        SqlType::Text => "text",
    }
}

/// `text` as an SQL string literal (standard_conforming_strings is on).
fn literal(text: &str) -> String {
    format!("'{}'", text.replace('\'', "''"))
}

fn connect(output: &DatabaseOutput) -> Result<Pg> {
    Pg::connect(&output.url, &output.config, "output.url")
}

/// What `name` is in the current schema (`r` a table, `v` a view...), if anything.
fn kind_of(output: &DatabaseOutput, pg: &Pg, name: &str) -> Result<Option<String>> {
    let rows = pg
        .rows(&format!(
            "SELECT c.relkind::text FROM pg_class c WHERE c.relnamespace = \
             current_schema()::regnamespace AND c.relname = {}",
            literal(name)
        ))
        .map_err(|e| output.error(format_args!("cannot read the schema: {}", message(&e))))?;
    Ok(rows.first().and_then(|r| r.get(0)).map(str::to_owned))
}

fn kind_name(kind: &str) -> &str {
    match kind {
        "v" => "view",
        "m" => "materialized view",
        "i" | "I" => "index",
        "S" => "sequence",
        "f" => "foreign table",
        "p" => "partitioned table",
        "c" => "composite type",
        _ => "relation",
    }
}

/// Before any work: drops the staging tables of dead runs and fails (naming
/// `output.table`) if the table exists and may not be replaced.
pub(super) fn prepare(output: &DatabaseOutput) -> Result<()> {
    let pg = connect(output)?;
    let stale = pg
        .rows(
            "SELECT c.relname::text FROM pg_class c WHERE c.relnamespace = \
             current_schema()::regnamespace AND c.relkind = 'r' AND c.relname LIKE \
             'cellsafe\\_staging\\_%'",
        )
        .map_err(|e| output.error(format_args!("cannot read the schema: {}", message(&e))))?;
    for row in stale {
        let Some(name) = row.get(0) else { continue };
        let key = format!("hashtext({})", literal(name));
        let free = pg
            .rows(&format!("SELECT pg_try_advisory_lock({key})::text"))
            .is_ok_and(|r| r.first().and_then(|r| r.get(0)) == Some("true"));
        if free {
            pg.batch(&format!(
                "DROP TABLE IF EXISTS {}; SELECT pg_advisory_unlock({key})",
                super::quote(name)
            ))?;
        }
    }
    match kind_of(output, &pg, &output.table)?.as_deref() {
        None => Ok(()),
        Some("r") if output.replace => Ok(()),
        Some("r") => Err(output.exists_error()),
        Some(kind) => Err(Error::config(
            &output.config,
            "output.table",
            format!(
                "`{}` names a {} in {}, which cellsafe does not replace",
                output.table,
                kind_name(kind),
                output.url
            ),
        )),
    }
}

/// A staging table written into a PostgreSQL database and checked.
pub struct PgStaged<'a> {
    output: &'a DatabaseOutput,
    pg: Pg,
    name: String,
    done: bool,
}

pub(super) fn stage<'a>(
    output: &'a DatabaseOutput,
    csv: &[u8],
    format: &CsvFormat,
    types: &[SqlType],
    observer: &dyn Observer,
) -> Result<PgStaged<'a>> {
    let progress = Stage::start(observer, WRITING, None);
    let pg = connect(output)?;
    let name = format!("{STAGING_PREFIX}{}", super::random_suffix());
    pg.batch(&format!(
        "SELECT pg_advisory_lock(hashtext({}))",
        literal(&name)
    ))?;
    let mut staged = PgStaged {
        output,
        pg,
        name,
        done: false,
    };
    staged.write(csv, format, types, &progress)?;
    staged.verify(csv, format, types, &progress)?;
    progress.check()?;
    Ok(staged)
}

impl PgStaged<'_> {
    fn write(
        &mut self,
        csv: &[u8],
        format: &CsvFormat,
        types: &[SqlType],
        progress: &Stage<'_>,
    ) -> Result<()> {
        let output = self.output;
        let sql = |e: tokio_postgres::Error| {
            output.error(format_args!("cannot write the release: {}", message(&e)))
        };
        let (mut records, header) = output.release_reader(csv, format, types)?;
        let columns: Vec<String> = header
            .iter()
            .zip(types)
            .map(|(name, &t)| format!("{} {}", super::quote(name), pg_type(t)))
            .collect();
        let table = super::quote(&self.name);
        self.pg
            .batch_raw(&format!(
                "BEGIN; CREATE TABLE {table} ({})",
                columns.join(", ")
            ))
            .map_err(sql)?;
        let mut record = csv::StringRecord::new();
        let mut row: u64 = 0;
        let mut statement = String::new();
        let mut in_statement = 0;
        loop {
            let more = records
                .read_record(&mut record)
                .map_err(|e| output.error(e))?;
            if more {
                row += 1;
                statement.push_str(if in_statement == 0 { "" } else { ", " });
                if in_statement == 0 {
                    statement = format!("INSERT INTO {table} VALUES ");
                }
                statement.push('(');
                for (c, (cell, &t)) in record.iter().zip(types).enumerate() {
                    if c > 0 {
                        statement.push_str(", ");
                    }
                    match stored(cell, t) {
                        Some(Value::Null) => statement.push_str("NULL"),
                        Some(_) => statement.push_str(&literal(cell)),
                        None => {
                            return Err(output.error(format_args!(
                                "row {row}: `{}` is not a value of type {}",
                                excerpt(cell),
                                pg_type(t)
                            )))
                        }
                    }
                }
                statement.push(')');
                in_statement += 1;
                if row.is_multiple_of(CHECK_EVERY) {
                    progress.add(CHECK_EVERY);
                    progress.check()?;
                }
            }
            if in_statement > 0 && (!more || in_statement == ROWS_PER_INSERT) {
                self.pg.batch_raw(&statement).map_err(sql)?;
                in_statement = 0;
            }
            if !more {
                break;
            }
        }
        self.pg.batch_raw("COMMIT").map_err(sql)
    }

    fn verify(
        &self,
        csv: &[u8],
        format: &CsvFormat,
        types: &[SqlType],
        progress: &Stage<'_>,
    ) -> Result<()> {
        let output = self.output;
        let sql = |e: tokio_postgres::Error| {
            output.error(format_args!("cannot read it back: {}", message(&e)))
        };
        let check = connect(output)?;
        let mut expected = ReadBack::new(output, csv, format, types, progress)?;
        let declared: Vec<(String, String)> = check
            .rows(&format!(
                "SELECT attname::text, format_type(atttypid, atttypmod) FROM pg_attribute \
                 WHERE attrelid = {}::regclass AND attnum > 0 AND NOT attisdropped ORDER BY \
                 attnum",
                literal(&super::quote(&self.name))
            ))
            .map_err(sql)?
            .iter()
            .map(|r| {
                (
                    r.get(0).unwrap_or("").to_owned(),
                    r.get(1).unwrap_or("").to_owned(),
                )
            })
            .collect();
        expected.columns(declared, pg_type)?;
        let held = check
            .rows(&format!(
                "SELECT * FROM {} ORDER BY ctid",
                super::quote(&self.name)
            ))
            .map_err(sql)?;
        for values in &held {
            expected.row(|c, cell, t| {
                let value = values.get(c);
                Ok((!holds_text(value, cell, t)).then(|| format!("{value:?}")))
            })?;
        }
        expected.end()
    }

    /// In one transaction: drops the old table (when it may be replaced) and renames the
    /// staging table into place.
    pub fn commit(mut self) -> Result<()> {
        let output = self.output;
        let sql = |e: tokio_postgres::Error| {
            output.error(format_args!(
                "cannot rename the release into place: {}",
                message(&e)
            ))
        };
        self.pg.batch_raw("BEGIN").map_err(sql)?;
        let result = (|| {
            match kind_of(output, &self.pg, &output.table)?.as_deref() {
                None => {}
                Some("r") if output.replace => {
                    self.pg
                        .batch_raw(&format!("DROP TABLE {}", super::quote(&output.table)))
                        .map_err(sql)?;
                }
                Some("r") => return Err(output.exists_error()),
                Some(kind) => {
                    return Err(output.error(format_args!("the name is a {} now", kind_name(kind))))
                }
            }
            self.pg
                .batch_raw(&format!(
                    "ALTER TABLE {} RENAME TO {}; COMMIT",
                    super::quote(&self.name),
                    super::quote(&output.table)
                ))
                .map_err(sql)
        })();
        match result {
            Ok(()) => {
                self.done = true;
                Ok(())
            }
            Err(e) => {
                let _ = self.pg.batch_raw("ROLLBACK");
                Err(e)
            }
        }
    }
}

impl Drop for PgStaged<'_> {
    fn drop(&mut self) {
        if !self.done {
            let _ = self.pg.batch_raw("ROLLBACK");
            let _ = self.pg.batch_raw(&format!(
                "DROP TABLE IF EXISTS {}",
                super::quote(&self.name)
            ));
        }
    }
}
