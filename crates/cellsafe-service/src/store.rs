//! The data center's database (SQLite, WAL): the data table, users and grants, the
//! center's settings, and the audit log.
//!
//! The data table is created from the CSV on first start, with a `_row` column numbering
//! the rows; a column whose values are all plain numbers is stored as a number, so that
//! comparisons in SQL and in the gatekeeper agree. The service then reads the table back
//! into memory in `_row` order: the database is the source of truth, and the gatekeeper
//! works on the same values.
//!
//! The audit log is append-only: triggers refuse any UPDATE or DELETE, and the service has
//! no statement that would try. Each entry is written in its own transaction with
//! `synchronous = FULL` before the answer leaves, so an answer sent is an answer logged,
//! even if the process is killed a moment later. A released answer's entry holds its
//! disclosure: the recipient's knowledge is rebuilt from the log after a restart.

use std::path::Path;
use std::sync::Mutex;

use cellsafe::gatekeeper::{plain_number, Condition, Test};
use cellsafe::Table;
use rusqlite::{params, params_from_iter, Connection, OptionalExtension};
use serde::Serialize;

/// A database failure, with what was being done.
#[derive(Debug, thiserror::Error)]
#[error("database: {0}")]
pub struct StoreError(pub String);

fn db(what: &str) -> impl Fn(rusqlite::Error) -> StoreError + '_ {
    move |e| StoreError(format!("{what}: {e}"))
}

type Result<T> = std::result::Result<T, StoreError>;

/// One audit entry to append.
#[derive(Debug, Clone)]
pub struct Entry {
    /// Who asked.
    pub user: String,
    /// The query text as received.
    pub query: String,
    /// `released`, `generalized`, `refused` or `rejected`.
    pub outcome: String,
    /// How the answer was generalized.
    pub method: Option<String>,
    /// Levels of the generalization (JSON).
    pub levels: Option<String>,
    /// Rows released.
    pub rows: usize,
    /// Why nothing was released.
    pub reason: Option<String>,
    /// The verdict (JSON).
    pub detail: Option<String>,
    /// The disclosure (JSON), for released answers.
    pub disclosure: Option<String>,
}

/// One audit entry as stored.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct AuditRow {
    /// Entry number, increasing.
    pub id: i64,
    /// When it was written (UTC, RFC 3339).
    pub at: String,
    /// Who asked.
    pub user: String,
    /// The query text as received.
    pub query: String,
    /// `released`, `generalized`, `refused` or `rejected`.
    pub outcome: String,
    /// How the answer was generalized.
    pub method: Option<String>,
    /// Levels of the generalization (JSON text).
    pub levels: Option<String>,
    /// Rows released.
    pub rows: i64,
    /// Why nothing was released.
    pub reason: Option<String>,
    /// The gatekeeper's verdict (JSON text).
    pub detail: Option<String>,
}

/// A user as stored.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct UserRow {
    /// Login name.
    pub name: String,
    /// `admin` or `analyst`.
    pub role: String,
    /// Per table, the columns granted (`*`: all).
    pub grants: std::collections::BTreeMap<String, Vec<String>>,
}

/// The database of one center.
pub struct Store {
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
    user TEXT NOT NULL REFERENCES users(name) ON DELETE CASCADE,
    tbl TEXT NOT NULL,
    columns TEXT NOT NULL,
    PRIMARY KEY (user, tbl)
);
CREATE TABLE IF NOT EXISTS settings (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS audit (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    at TEXT NOT NULL,
    user TEXT NOT NULL,
    query TEXT NOT NULL,
    outcome TEXT NOT NULL,
    method TEXT,
    levels TEXT,
    rows_released INTEGER NOT NULL,
    reason TEXT,
    detail TEXT,
    disclosure TEXT
);
CREATE INDEX IF NOT EXISTS audit_user ON audit(user);
CREATE TRIGGER IF NOT EXISTS audit_no_update BEFORE UPDATE ON audit
BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END;
CREATE TRIGGER IF NOT EXISTS audit_no_delete BEFORE DELETE ON audit
BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END;
";

/// `name` as an SQL identifier.
pub fn quote(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

fn now() -> String {
    jiff::Timestamp::now().to_string()
}

fn connect(path: &Path) -> Result<Connection> {
    let c = Connection::open(path).map_err(db("open"))?;
    c.busy_timeout(std::time::Duration::from_secs(30))
        .map_err(db("busy timeout"))?;
    c.pragma_update(None, "journal_mode", "WAL")
        .map_err(db("WAL"))?;
    c.pragma_update(None, "synchronous", "FULL")
        .map_err(db("synchronous"))?;
    c.pragma_update(None, "foreign_keys", "ON")
        .map_err(db("foreign keys"))?;
    Ok(c)
}

impl Store {
    /// Opens (creating) the database at `path` and its schema.
    pub fn open(path: &Path) -> Result<Store> {
        let writer = connect(path)?;
        writer.execute_batch(SCHEMA).map_err(db("schema"))?;
        let reader = connect(path)?;
        Ok(Store {
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
    pub fn has_table(&self, name: &str) -> Result<bool> {
        let c = self.read();
        c.query_row(
            "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?1",
            [name],
            |r| r.get::<_, i64>(0),
        )
        .map(|n| n > 0)
        .map_err(db("look up the data table"))
    }

    /// Creates the data table `name` from `table`, in one transaction.
    pub fn import(&self, name: &str, table: &Table) -> Result<()> {
        if name.starts_with("sqlite_") || ["users", "grants", "settings", "audit"].contains(&name) {
            return Err(StoreError(format!(
                "`{name}` is reserved; choose another [service] table name"
            )));
        }
        let header = table.header();
        let numeric: Vec<bool> = (0..header.len())
            .map(|c| (0..table.rows()).all(|r| plain_number(table.value(r, c)).is_some()))
            .collect();
        let mut c = self.write();
        let tx = c.transaction().map_err(db("import"))?;
        let columns: Vec<String> = header
            .iter()
            .zip(&numeric)
            .map(|(h, &n)| format!("{} {}", quote(h), if n { "NUMERIC" } else { "TEXT" }))
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
                for (col, &n) in numeric.iter().enumerate() {
                    let v = table.value(r, col);
                    values.push(if n {
                        // integers stay integers, so they read back as written
                        match v.parse::<i64>() {
                            Ok(i) => i.into(),
                            Err(_) => plain_number(v).expect("checked").into(),
                        }
                    } else {
                        v.to_string().into()
                    });
                }
                insert
                    .execute(params_from_iter(values))
                    .map_err(db("import a row"))?;
            }
        }
        tx.commit().map_err(db("import"))
    }

    /// The data table `name` read back in row order, as text.
    pub fn load(&self, name: &str) -> Result<(Vec<String>, Vec<Vec<String>>)> {
        let c = self.read();
        let mut stmt = c
            .prepare(&format!("SELECT * FROM {} ORDER BY _row", quote(name)))
            .map_err(db("read the data table"))?;
        let header: Vec<String> = stmt
            .column_names()
            .iter()
            .skip(1)
            .map(|s| s.to_string())
            .collect();
        let width = header.len();
        let rows = stmt
            .query_map([], |row| {
                (1..=width)
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

    /// The rows (0-based, ascending) of data table `name` passing every condition,
    /// computed by the database. `numeric(column)` says how to bind literals.
    pub fn matching_rows(
        &self,
        name: &str,
        conditions: &[Condition],
        numeric: &dyn Fn(&str) -> bool,
    ) -> Result<Vec<u32>> {
        let mut clauses = Vec::new();
        let mut values: Vec<rusqlite::types::Value> = Vec::new();
        for c in conditions {
            let col = quote(&c.column);
            let num = numeric(&c.column);
            let mut bind = |v: &str| -> String {
                values.push(match (num, plain_number(v)) {
                    (true, Some(x)) => x.into(),
                    _ => v.to_string().into(),
                });
                format!("?{}", values.len())
            };
            let clause = match &c.test {
                Test::Eq(v) => format!("{col} = {}", bind(v)),
                Test::Ne(v) => format!("{col} <> {}", bind(v)),
                Test::Lt(v) => format!("{col} < {}", bind(v)),
                Test::Le(v) => format!("{col} <= {}", bind(v)),
                Test::Gt(v) => format!("{col} > {}", bind(v)),
                Test::Ge(v) => format!("{col} >= {}", bind(v)),
                Test::In(vs) | Test::NotIn(vs) => {
                    let list: Vec<String> = vs.iter().map(|v| bind(v)).collect();
                    let not = if matches!(c.test, Test::NotIn(_)) {
                        "NOT "
                    } else {
                        ""
                    };
                    format!("{col} {not}IN ({})", list.join(", "))
                }
                Test::Between(lo, hi) | Test::NotBetween(lo, hi) => {
                    let (lo, hi) = (bind(lo), bind(hi));
                    let not = if matches!(c.test, Test::NotBetween(..)) {
                        "NOT "
                    } else {
                        ""
                    };
                    format!("{col} {not}BETWEEN {lo} AND {hi}")
                }
            };
            clauses.push(clause);
        }
        let sql = format!(
            "SELECT _row FROM {}{} ORDER BY _row",
            quote(name),
            if clauses.is_empty() {
                String::new()
            } else {
                format!(" WHERE {}", clauses.join(" AND "))
            }
        );
        let c = self.read();
        let mut stmt = c.prepare_cached(&sql).map_err(db("query"))?;
        let rows = stmt
            .query_map(params_from_iter(values), |r| r.get::<_, i64>(0))
            .map_err(db("query"))?
            .map(|r| r.map(|x| x as u32))
            .collect::<rusqlite::Result<Vec<u32>>>()
            .map_err(db("query"))?;
        Ok(rows)
    }

    /// Appends an audit entry and returns its id; durable when this returns.
    pub fn append(&self, e: &Entry) -> Result<i64> {
        let mut c = self.write();
        let tx = c.transaction().map_err(db("audit"))?;
        tx.execute(
            "INSERT INTO audit (at, user, query, outcome, method, levels, rows_released, reason, \
             detail, disclosure) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
            params![
                now(),
                e.user,
                e.query,
                e.outcome,
                e.method,
                e.levels,
                e.rows as i64,
                e.reason,
                e.detail,
                e.disclosure
            ],
        )
        .map_err(db("audit"))?;
        let id = tx.last_insert_rowid();
        tx.commit().map_err(db("audit"))?;
        Ok(id)
    }

    /// Audit entries with id above `after`, oldest first, at most `limit`.
    pub fn audit_page(&self, after: i64, limit: usize) -> Result<Vec<AuditRow>> {
        let c = self.read();
        let mut stmt = c
            .prepare_cached(
                "SELECT id, at, user, query, outcome, method, levels, rows_released, reason, \
                 detail FROM audit WHERE id > ?1 ORDER BY id LIMIT ?2",
            )
            .map_err(db("audit page"))?;
        let rows = stmt
            .query_map(params![after, limit as i64], |r| {
                Ok(AuditRow {
                    id: r.get(0)?,
                    at: r.get(1)?,
                    user: r.get(2)?,
                    query: r.get(3)?,
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
    pub fn disclosures(&self, user: &str) -> Result<Vec<String>> {
        let c = self.read();
        let mut stmt = c
            .prepare_cached(
                "SELECT disclosure FROM audit WHERE user = ?1 AND disclosure IS NOT NULL ORDER BY id",
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
    pub fn create_user(&self, name: &str, role: &str, token_hash: &str) -> Result<()> {
        self.write()
            .execute(
                "INSERT INTO users (name, role, token_hash, created) VALUES (?1, ?2, ?3, ?4)",
                params![name, role, token_hash, now()],
            )
            .map_err(db("create user"))?;
        Ok(())
    }

    /// Replaces a user's token hash; false when there is no such user.
    pub fn set_token(&self, name: &str, token_hash: &str) -> Result<bool> {
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
    pub fn delete_user(&self, name: &str) -> Result<bool> {
        let n = self
            .write()
            .execute("DELETE FROM users WHERE name = ?1", [name])
            .map_err(db("delete user"))?;
        Ok(n > 0)
    }

    /// A user's role and token hash.
    pub fn user(&self, name: &str) -> Result<Option<(String, String)>> {
        self.read()
            .query_row(
                "SELECT role, token_hash FROM users WHERE name = ?1",
                [name],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()
            .map_err(db("look up user"))
    }

    /// Every user with their grants.
    pub fn users(&self) -> Result<Vec<UserRow>> {
        let c = self.read();
        let mut stmt = c
            .prepare("SELECT name, role FROM users ORDER BY name")
            .map_err(db("users"))?;
        let users = stmt
            .query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))
            .map_err(db("users"))?
            .collect::<rusqlite::Result<Vec<_>>>()
            .map_err(db("users"))?;
        drop(stmt);
        drop(c);
        users
            .into_iter()
            .map(|(name, role)| {
                Ok(UserRow {
                    grants: self.grants(&name)?,
                    name,
                    role,
                })
            })
            .collect()
    }

    /// Sets `user`'s grant on `table` (an empty list removes it).
    pub fn set_grant(&self, user: &str, table: &str, columns: &[String]) -> Result<()> {
        let c = self.write();
        if columns.is_empty() {
            c.execute(
                "DELETE FROM grants WHERE user = ?1 AND tbl = ?2",
                params![user, table],
            )
            .map_err(db("grant"))?;
        } else {
            let json = serde_json::to_string(columns).expect("strings serialize");
            c.execute(
                "INSERT INTO grants (user, tbl, columns) VALUES (?1, ?2, ?3) \
                 ON CONFLICT (user, tbl) DO UPDATE SET columns = excluded.columns",
                params![user, table, json],
            )
            .map_err(db("grant"))?;
        }
        Ok(())
    }

    /// A user's grants: per table, the columns (`*`: all).
    pub fn grants(&self, user: &str) -> Result<std::collections::BTreeMap<String, Vec<String>>> {
        let c = self.read();
        let mut stmt = c
            .prepare_cached("SELECT tbl, columns FROM grants WHERE user = ?1")
            .map_err(db("grants"))?;
        let rows = stmt
            .query_map([user], |r| {
                Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?))
            })
            .map_err(db("grants"))?
            .collect::<rusqlite::Result<Vec<_>>>()
            .map_err(db("grants"))?;
        Ok(rows
            .into_iter()
            .map(|(t, c)| (t, serde_json::from_str(&c).unwrap_or_default()))
            .collect())
    }

    /// A stored setting.
    pub fn setting(&self, key: &str) -> Result<Option<String>> {
        self.read()
            .query_row("SELECT value FROM settings WHERE key = ?1", [key], |r| {
                r.get(0)
            })
            .optional()
            .map_err(db("settings"))
    }

    /// Stores a setting.
    pub fn put_setting(&self, key: &str, value: &str) -> Result<()> {
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
        let s = Store::open(&dir.path().join("c.db")).unwrap();
        let id = s
            .append(&Entry {
                user: "u".into(),
                query: "SELECT a FROM t".into(),
                outcome: "released".into(),
                method: None,
                levels: None,
                rows: 1,
                reason: None,
                detail: None,
                disclosure: None,
            })
            .unwrap();
        let c = s.write();
        for sql in ["DELETE FROM audit", "UPDATE audit SET outcome = 'refused'"] {
            let e = c.execute(sql, []).unwrap_err().to_string();
            assert!(e.contains("append-only"), "{e}");
        }
        drop(c);
        assert_eq!(s.audit_page(0, 10).unwrap()[0].id, id);
    }

    #[test]
    fn numbers_are_stored_as_numbers_and_compare_as_numbers() {
        let dir = tempfile::tempdir().unwrap();
        let s = Store::open(&dir.path().join("c.db")).unwrap();
        let header = ["age", "zip"].map(String::from).to_vec();
        let rows: Vec<Vec<String>> = [["9", "a\"b"], ["10", "c"], ["100", "c"]]
            .iter()
            .map(|r| r.iter().map(|s| s.to_string()).collect())
            .collect();
        let t = Table::from_rows(header, &rows).unwrap();
        s.import("t", &t).unwrap();
        let (h, back) = s.load("t").unwrap();
        assert_eq!(h, ["age", "zip"]);
        assert_eq!(back, rows);
        let numeric = |c: &str| c == "age";
        let gt = [Condition {
            column: "age".into(),
            test: Test::Gt("9.5".into()),
        }];
        // as text, "10" < "9.5"; as numbers it is not
        assert_eq!(s.matching_rows("t", &gt, &numeric).unwrap(), [1, 2]);
        let quoted = [Condition {
            column: "zip".into(),
            test: Test::In(vec!["a\"b".into(), "x".into()]),
        }];
        assert_eq!(s.matching_rows("t", &quoted, &numeric).unwrap(), [0]);
        assert!(s.import("audit", &t).is_err());
    }
}
