//! The SQLite backend (WAL, `synchronous = FULL`).

use std::path::Path;
use std::sync::Mutex;

use cellsafe::gatekeeper::{plain_number, Condition};
use cellsafe::Table;
use rusqlite::{params, params_from_iter, Connection, OptionalExtension};

use super::{db, now, quote, where_clause, AuditRow, Entry, Result};

/// A SQLite database.
pub(super) struct Sqlite {
    /// Writes: audit entries, users, settings.
    writer: Mutex<Connection>,
    /// Reads: the rows of answers, users, the audit pages.
    reader: Mutex<Connection>,
}

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS users (
    name TEXT PRIMARY KEY,
    role TEXT NOT NULL CHECK (role IN ('admin', 'analyst')),
    token_hash TEXT NOT NULL,
    created TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS grants (
    username TEXT NOT NULL REFERENCES users(name) ON DELETE CASCADE,
    tbl TEXT NOT NULL,
    columns TEXT NOT NULL,
    PRIMARY KEY (username, tbl)
);
CREATE TABLE IF NOT EXISTS settings (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS audit (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    at TEXT NOT NULL,
    username TEXT NOT NULL,
    query TEXT NOT NULL,
    outcome TEXT NOT NULL,
    method TEXT,
    levels TEXT,
    rows_released INTEGER NOT NULL,
    reason TEXT,
    detail TEXT,
    disclosure TEXT
);
CREATE INDEX IF NOT EXISTS audit_user ON audit(username);
CREATE TRIGGER IF NOT EXISTS audit_no_update BEFORE UPDATE ON audit
BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END;
CREATE TRIGGER IF NOT EXISTS audit_no_delete BEFORE DELETE ON audit
BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END;
";

/// Columns the audit table gained after its first release, added to an older database
/// when it is opened.
const AUDIT_ADDED: [(&str, &str); 2] = [("query_bytes", "INTEGER"), ("query_sha256", "TEXT")];

fn connect(path: &Path, max_bytes: u64) -> Result<Connection> {
    let c = Connection::open(path).map_err(db("open"))?;
    c.busy_timeout(std::time::Duration::from_secs(30))
        .map_err(db("busy timeout"))?;
    c.pragma_update(None, "journal_mode", "WAL")
        .map_err(db("WAL"))?;
    c.pragma_update(None, "synchronous", "FULL")
        .map_err(db("synchronous"))?;
    c.pragma_update(None, "foreign_keys", "ON")
        .map_err(db("foreign keys"))?;
    if max_bytes > 0 {
        let page: i64 = c
            .pragma_query_value(None, "page_size", |r| r.get(0))
            .map_err(db("page size"))?;
        let pages = (max_bytes / page.max(512) as u64).max(1);
        c.pragma_update(None, "max_page_count", pages as i64)
            .map_err(db("max_page_count"))?;
    }
    Ok(c)
}

impl Sqlite {
    /// Opens (creating) the database at `path` and its schema.
    pub(super) fn open(path: &Path, max_bytes: u64) -> Result<Sqlite> {
        let writer = connect(path, max_bytes)?;
        writer.execute_batch(SCHEMA).map_err(db("schema"))?;
        let have: Vec<String> = writer
            .prepare("SELECT name FROM pragma_table_info('audit')")
            .and_then(|mut s| s.query_map([], |r| r.get(0))?.collect())
            .map_err(db("schema"))?;
        for (column, kind) in AUDIT_ADDED {
            if !have.iter().any(|h| h == column) {
                writer
                    .execute_batch(&format!("ALTER TABLE audit ADD COLUMN {column} {kind}"))
                    .map_err(db("schema"))?;
            }
        }
        let reader = connect(path, max_bytes)?;
        Ok(Sqlite {
            writer: Mutex::new(writer),
            reader: Mutex::new(reader),
        })
    }

    fn write(&self) -> std::sync::MutexGuard<'_, Connection> {
        self.writer.lock().unwrap_or_else(|p| p.into_inner())
    }
    fn read(&self) -> std::sync::MutexGuard<'_, Connection> {
        self.reader.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Whether the data table `name` exists.
    pub(super) fn has_table(&self, name: &str) -> Result<bool> {
        let c = self.read();
        c.query_row(
            "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?1",
            [name],
            |r| r.get::<_, i64>(0),
        )
        .map(|n| n > 0)
        .map_err(db("look up the data table"))
    }

    /// Creates the data table `name` from `table`, in one transaction. Every column is
    /// TEXT (declared so, which SQLite keeps as written): a value reads back exactly as in
    /// the source, `03067` and `4e1` included.
    pub(super) fn import(&self, name: &str, table: &Table) -> Result<()> {
        let header = table.header();
        let mut c = self.write();
        let tx = c.transaction().map_err(db("import"))?;
        let columns: Vec<String> = header
            .iter()
            .map(|h| format!("{} TEXT", quote(h)))
            .collect();
        tx.execute_batch(&format!(
            "CREATE TABLE {} (_row INTEGER PRIMARY KEY, {})",
            quote(name),
            columns.join(", ")
        ))
        .map_err(db("create the data table"))?;
        {
            let placeholders: Vec<String> =
                (0..=header.len()).map(|i| format!("?{}", i + 1)).collect();
            let mut insert = tx
                .prepare(&format!(
                    "INSERT INTO {} VALUES ({})",
                    quote(name),
                    placeholders.join(", ")
                ))
                .map_err(db("import"))?;
            for r in 0..table.rows() {
                let mut values: Vec<rusqlite::types::Value> = vec![(r as i64).into()];
                for col in 0..header.len() {
                    values.push(table.value(r, col).to_string().into());
                }
                insert
                    .execute(params_from_iter(values))
                    .map_err(db("import a row"))?;
            }
        }
        tx.commit().map_err(db("import"))
    }

    /// The data table `name` read back in row order, as text.
    pub(super) fn load(&self, name: &str, key: &str) -> Result<(Vec<String>, Vec<Vec<String>>)> {
        let c = self.read();
        let mut stmt = c
            .prepare(&format!(
                "SELECT * FROM {} ORDER BY {}",
                quote(name),
                quote(key)
            ))
            .map_err(db("read the data table"))?;
        let header: Vec<String> = stmt.column_names().iter().map(|s| s.to_string()).collect();
        let width = header.len();
        let rows = stmt
            .query_map([], |row| {
                (0..width)
                    .map(|i| {
                        Ok(match row.get_ref(i)? {
                            rusqlite::types::ValueRef::Null => String::new(),
                            rusqlite::types::ValueRef::Integer(i) => i.to_string(),
                            rusqlite::types::ValueRef::Real(x) => x.to_string(),
                            rusqlite::types::ValueRef::Text(t) => {
                                String::from_utf8_lossy(t).into_owned()
                            }
                            rusqlite::types::ValueRef::Blob(b) => {
                                String::from_utf8_lossy(b).into_owned()
                            }
                        })
                    })
                    .collect::<rusqlite::Result<Vec<String>>>()
            })
            .map_err(db("read the data table"))?
            .collect::<rusqlite::Result<Vec<_>>>()
            .map_err(db("read the data table"))?;
        Ok((header, rows))
    }

    /// The keys of the rows of data table `name` passing every condition.
    pub(super) fn matching_keys(
        &self,
        name: &str,
        key: &str,
        conditions: &[Condition],
        numeric: &dyn Fn(&str) -> bool,
    ) -> Result<Vec<String>> {
        let (clause, values) = where_clause(
            conditions,
            numeric,
            &|i, _| format!("?{i}"),
            // stored as text: a numeric column is compared as the number it writes
            &|column, number| {
                if number {
                    format!("CAST({} AS REAL)", quote(column))
                } else {
                    quote(column)
                }
            },
        );
        let sql = format!("SELECT {} FROM {}{clause}", quote(key), quote(name));
        let values: Vec<rusqlite::types::Value> = values
            .into_iter()
            .map(|(v, number)| match (number, plain_number(&v)) {
                (true, Some(x)) => x.into(),
                _ => v.into(),
            })
            .collect();
        let c = self.read();
        let mut stmt = c.prepare_cached(&sql).map_err(db("query"))?;
        let rows = stmt
            .query_map(params_from_iter(values), |r| {
                Ok(match r.get_ref(0)? {
                    rusqlite::types::ValueRef::Integer(i) => i.to_string(),
                    rusqlite::types::ValueRef::Real(x) => x.to_string(),
                    rusqlite::types::ValueRef::Text(t) => String::from_utf8_lossy(t).into_owned(),
                    rusqlite::types::ValueRef::Blob(b) => String::from_utf8_lossy(b).into_owned(),
                    rusqlite::types::ValueRef::Null => String::new(),
                })
            })
            .map_err(db("query"))?
            .collect::<rusqlite::Result<Vec<String>>>()
            .map_err(db("query"))?;
        Ok(rows)
    }

    /// Appends an audit entry and returns its id; durable when this returns.
    pub(super) fn append(&self, e: &Entry, kept: &(&str, i64, Option<String>)) -> Result<i64> {
        let mut c = self.write();
        let tx = c.transaction().map_err(db("audit"))?;
        tx.execute(
            "INSERT INTO audit (at, username, query, outcome, method, levels, rows_released, reason, \
             detail, disclosure, query_bytes, query_sha256) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
            params![
                now(),
                e.user,
                kept.0,
                e.outcome,
                e.method,
                e.levels,
                e.rows as i64,
                e.reason,
                e.detail,
                e.disclosure,
                kept.1,
                kept.2
            ],
        )
        .map_err(db("audit"))?;
        let id = tx.last_insert_rowid();
        tx.commit().map_err(db("audit"))?;
        Ok(id)
    }

    /// Audit entries with id above `after`, oldest first, at most `limit`.
    pub(super) fn audit_page(&self, after: i64, limit: usize) -> Result<Vec<AuditRow>> {
        let c = self.read();
        let mut stmt = c
            .prepare_cached(
                "SELECT id, at, username, query, outcome, method, levels, rows_released, reason, \
                 detail, query_bytes, query_sha256 FROM audit WHERE id > ?1 ORDER BY id LIMIT ?2",
            )
            .map_err(db("audit page"))?;
        let rows = stmt
            .query_map(params![after, limit as i64], |r| {
                Ok(AuditRow {
                    id: r.get(0)?,
                    at: r.get(1)?,
                    user: r.get(2)?,
                    query: r.get(3)?,
                    query_bytes: r.get(10)?,
                    query_sha256: r.get(11)?,
                    outcome: r.get(4)?,
                    method: r.get(5)?,
                    levels: r.get(6)?,
                    rows: r.get(7)?,
                    reason: r.get(8)?,
                    detail: r.get(9)?,
                })
            })
            .map_err(db("audit page"))?
            .collect::<rusqlite::Result<Vec<_>>>()
            .map_err(db("audit page"))?;
        Ok(rows)
    }

    /// The disclosures released to `user`, oldest first (JSON).
    pub(super) fn disclosures(&self, user: &str) -> Result<Vec<String>> {
        let c = self.read();
        let mut stmt = c
            .prepare_cached(
                "SELECT disclosure FROM audit WHERE username = ?1 AND disclosure IS NOT NULL \
                 ORDER BY id",
            )
            .map_err(db("disclosures"))?;
        let rows = stmt
            .query_map([user], |r| r.get::<_, String>(0))
            .map_err(db("disclosures"))?
            .collect::<rusqlite::Result<Vec<_>>>()
            .map_err(db("disclosures"))?;
        Ok(rows)
    }

    /// Creates a user (an error if the name is taken).
    pub(super) fn create_user(&self, name: &str, role: &str, token_hash: &str) -> Result<()> {
        self.write()
            .execute(
                "INSERT INTO users (name, role, token_hash, created) VALUES (?1, ?2, ?3, ?4)",
                params![name, role, token_hash, now()],
            )
            .map_err(db("create user"))?;
        Ok(())
    }

    /// Replaces a user's token hash; false when there is no such user.
    pub(super) fn set_token(&self, name: &str, token_hash: &str) -> Result<bool> {
        let n = self
            .write()
            .execute(
                "UPDATE users SET token_hash = ?2 WHERE name = ?1",
                params![name, token_hash],
            )
            .map_err(db("set token"))?;
        Ok(n > 0)
    }

    /// Deletes a user and their grants (their audit entries stay); false when absent.
    pub(super) fn delete_user(&self, name: &str) -> Result<bool> {
        let n = self
            .write()
            .execute("DELETE FROM users WHERE name = ?1", [name])
            .map_err(db("delete user"))?;
        Ok(n > 0)
    }

    /// A user's role and token hash.
    pub(super) fn user(&self, name: &str) -> Result<Option<(String, String)>> {
        self.read()
            .query_row(
                "SELECT role, token_hash FROM users WHERE name = ?1",
                [name],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()
            .map_err(db("look up user"))
    }

    /// Every user's name and role, by name.
    pub(super) fn user_names(&self) -> Result<Vec<(String, String)>> {
        let c = self.read();
        let mut stmt = c
            .prepare("SELECT name, role FROM users ORDER BY name")
            .map_err(db("users"))?;
        let users = stmt
            .query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))
            .map_err(db("users"))?
            .collect::<rusqlite::Result<Vec<_>>>()
            .map_err(db("users"))?;
        Ok(users)
    }

    /// Sets `user`'s grant on `table` (an empty list removes it).
    pub(super) fn set_grant(&self, user: &str, table: &str, columns: &[String]) -> Result<()> {
        let c = self.write();
        if columns.is_empty() {
            c.execute(
                "DELETE FROM grants WHERE username = ?1 AND tbl = ?2",
                params![user, table],
            )
            .map_err(db("grant"))?;
        } else {
            let json = serde_json::to_string(columns).expect("strings serialize");
            c.execute(
                "INSERT INTO grants (username, tbl, columns) VALUES (?1, ?2, ?3) \
                 ON CONFLICT (username, tbl) DO UPDATE SET columns = excluded.columns",
                params![user, table, json],
            )
            .map_err(db("grant"))?;
        }
        Ok(())
    }

    /// A user's grants: (table, columns as JSON).
    pub(super) fn grant_rows(&self, user: &str) -> Result<Vec<(String, String)>> {
        let c = self.read();
        let mut stmt = c
            .prepare_cached("SELECT tbl, columns FROM grants WHERE username = ?1")
            .map_err(db("grants"))?;
        let rows = stmt
            .query_map([user], |r| {
                Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?))
            })
            .map_err(db("grants"))?
            .collect::<rusqlite::Result<Vec<_>>>()
            .map_err(db("grants"))?;
        Ok(rows)
    }

    /// A stored setting.
    pub(super) fn setting(&self, key: &str) -> Result<Option<String>> {
        self.read()
            .query_row("SELECT value FROM settings WHERE key = ?1", [key], |r| {
                r.get(0)
            })
            .optional()
            .map_err(db("settings"))
    }

    /// Stores a setting.
    pub(super) fn put_setting(&self, key: &str, value: &str) -> Result<()> {
        self.write()
            .execute(
                "INSERT INTO settings (key, value) VALUES (?1, ?2) \
                 ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                params![key, value],
            )
            .map_err(db("settings"))?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_audit_log_refuses_updates_and_deletes() {
        let dir = tempfile::tempdir().unwrap();
        let s = Sqlite::open(&dir.path().join("c.db"), 0).unwrap();
        let id = s
            .append(&super::super::tests::entry(), &("q", 1, None))
            .unwrap();
        let c = s.write();
        for sql in ["DELETE FROM audit", "UPDATE audit SET outcome = 'refused'"] {
            let e = c.execute(sql, []).unwrap_err().to_string();
            assert!(e.contains("append-only"), "{e}");
        }
        drop(c);
        assert_eq!(s.audit_page(0, 10).unwrap()[0].id, id);
    }

    /// A database written before the audit table had `query_bytes` and `query_sha256`
    /// gains them when opened, its entries kept.
    #[test]
    fn an_older_audit_table_gains_the_new_columns() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("old.db");
        let old = SCHEMA.replace("    disclosure TEXT\n);", "    disclosure TEXT\n);\n");
        {
            let c = Connection::open(&path).unwrap();
            c.execute_batch(&old).unwrap();
            c.execute(
                "INSERT INTO audit (at, username, query, outcome, rows_released) \
                 VALUES ('t', 'u', 'SELECT a FROM t', 'released', 1)",
                [],
            )
            .unwrap();
            let n: i64 = c
                .query_row(
                    "SELECT count(*) FROM pragma_table_info('audit') WHERE name = 'query_bytes'",
                    [],
                    |r| r.get(0),
                )
                .unwrap();
            assert_eq!(n, 0, "the old schema has no query_bytes");
        }
        let s = Sqlite::open(&path, 0).unwrap();
        s.append(&super::super::tests::entry(), &("q", 1, None))
            .unwrap();
        let page = s.audit_page(0, 10).unwrap();
        assert_eq!(page.len(), 2);
        assert_eq!((page[0].query_bytes, page[1].query_bytes), (None, Some(1)));
    }
}
