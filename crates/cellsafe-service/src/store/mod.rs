//! The data center's database: the data table, users and grants, the center's settings,
//! and the audit log. SQLite (`sqlite`, WAL) by default; PostgreSQL (`postgres`) when the
//! config gives a URL, for centers whose data already lives there. Both keep the same
//! tables and answer the same calls.
//!
//! The data table is created from the CSV on first start, with a `_row` column numbering
//! the rows; a column whose values are all plain numbers is stored as a number, so that
//! comparisons in SQL and in the gatekeeper agree. The service then reads the table back
//! into memory in the order of its row key (`_row`, or `[service] row_key` for a table
//! that was already there): the database is the source of truth, and the gatekeeper works
//! on the same values. Conditions are sent as parameters, never spliced into SQL text.
//!
//! The audit log is append-only: triggers refuse any UPDATE or DELETE (and, in
//! PostgreSQL, TRUNCATE), and the service has no statement that would try. Each entry is
//! committed durably (SQLite `synchronous = FULL`, PostgreSQL's synchronous commit)
//! before the answer leaves, so an answer sent is an answer logged, even if the process is
//! killed a moment later. A released answer's entry holds its disclosure: the
//! recipient's knowledge is rebuilt from the log after a restart.

mod postgres;
mod sqlite;

use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::sync::RwLock;

use cellsafe::gatekeeper::{plain_number, Condition, Test};
use cellsafe::Table;
use serde::Serialize;

/// A database failure, with what was being done.
#[derive(Debug, thiserror::Error)]
#[error("database: {0}")]
pub struct StoreError(pub String);

/// A failure of either database, with what was being done.
pub(crate) fn db<E: std::fmt::Display>(what: &str) -> impl Fn(E) -> StoreError + '_ {
    move |e| StoreError(format!("{what}: {e}"))
}

pub(crate) type Result<T> = std::result::Result<T, StoreError>;

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

/// `name` as an SQL identifier.
pub fn quote(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

pub(crate) fn now() -> String {
    jiff::Timestamp::now().to_string()
}

/// Names the service's own tables use.
const RESERVED: [&str; 4] = ["users", "grants", "settings", "audit"];

/// Checks that a data table may be called `name`.
pub(crate) fn check_name(name: &str) -> Result<()> {
    if name.starts_with("sqlite_") || name.starts_with("pg_") || RESERVED.contains(&name) {
        return Err(StoreError(format!(
            "`{name}` is reserved; choose another [service] table name"
        )));
    }
    Ok(())
}

/// Whether every value of column `c` is a plain number (stored as a number).
pub(crate) fn numeric_columns(table: &Table) -> Vec<bool> {
    (0..table.header().len())
        .map(|c| (0..table.rows()).all(|r| plain_number(table.value(r, c)).is_some()))
        .collect()
}

/// The WHERE clause of `conditions` (empty without any) and its parameters, as text;
/// `placeholder(i)` writes the i-th (1-based) parameter of type `number` or not, and
/// `column(name, number)` the column read as a number or as text.
pub(crate) fn where_clause(
    conditions: &[Condition],
    numeric: &dyn Fn(&str) -> bool,
    placeholder: &dyn Fn(usize, bool) -> String,
    column: &dyn Fn(&str, bool) -> String,
) -> (String, Vec<(String, bool)>) {
    let mut clauses = Vec::new();
    let mut values: Vec<(String, bool)> = Vec::new();
    for c in conditions {
        let num = numeric(&c.column);
        let col = column(&c.column, num);
        let mut bind = |v: &str| -> String {
            let as_number = num && plain_number(v).is_some();
            values.push((v.to_string(), as_number));
            placeholder(values.len(), as_number)
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
    let sql = if clauses.is_empty() {
        String::new()
    } else {
        format!(" WHERE {}", clauses.join(" AND "))
    };
    (sql, values)
}

enum Inner {
    Sqlite(sqlite::Sqlite),
    Postgres(postgres::Postgres),
}

/// The database of one center.
pub struct Store {
    inner: Inner,
    /// Row key (as text) → row index, set by [`Store::load`].
    keys: RwLock<HashMap<String, u32>>,
}

macro_rules! each {
    ($self:ident, $b:ident => $e:expr) => {
        match &$self.inner {
            Inner::Sqlite($b) => $e,
            Inner::Postgres($b) => $e,
        }
    };
}

impl Store {
    /// Opens (creating) the SQLite database at `path` and its schema.
    pub fn open(path: &Path) -> Result<Store> {
        Ok(Store::with(Inner::Sqlite(sqlite::Sqlite::open(path)?)))
    }

    /// Connects to the PostgreSQL database at `url` and creates the service's tables. Call
    /// it from a thread that may block (not from async code): the connection runs on
    /// `runtime`.
    pub fn connect(url: &str, runtime: tokio::runtime::Handle) -> Result<Store> {
        Ok(Store::with(Inner::Postgres(postgres::Postgres::connect(
            url, runtime,
        )?)))
    }

    fn with(inner: Inner) -> Store {
        Store {
            inner,
            keys: RwLock::new(HashMap::new()),
        }
    }

    /// Whether the data table `name` exists.
    pub fn has_table(&self, name: &str) -> Result<bool> {
        each!(self, b => b.has_table(name))
    }

    /// Creates the data table `name` from `table`, in one transaction.
    pub fn import(&self, name: &str, table: &Table) -> Result<()> {
        check_name(name)?;
        each!(self, b => b.import(name, table))
    }

    /// The data table `name` read back as text in the order of column `key` (`_row`: the
    /// synthetic row number, left out of the header). Remembers each key's row.
    pub fn load(&self, name: &str, key: &str) -> Result<(Vec<String>, Vec<Vec<String>>)> {
        let (mut header, mut rows) = each!(self, b => b.load(name, key))?;
        let k = header
            .iter()
            .position(|h| h == key)
            .ok_or_else(|| StoreError(format!("table `{name}` has no column `{key}`")))?;
        let mut keys = HashMap::with_capacity(rows.len());
        for (i, row) in rows.iter().enumerate() {
            if keys.insert(row[k].clone(), i as u32).is_some() {
                return Err(StoreError(format!(
                    "column `{key}` of `{name}` is not a key: `{}` occurs twice",
                    row[k]
                )));
            }
        }
        *self.keys.write().unwrap_or_else(|p| p.into_inner()) = keys;
        if key == "_row" {
            header.remove(k);
            for row in &mut rows {
                row.remove(k);
            }
        }
        Ok((header, rows))
    }

    /// The rows (0-based indices of [`load`](Self::load)'s order, ascending) of data table
    /// `name` passing every condition, computed by the database. `numeric(column)` says
    /// whether a column compares as numbers.
    pub fn matching_rows(
        &self,
        name: &str,
        key: &str,
        conditions: &[Condition],
        numeric: &dyn Fn(&str) -> bool,
    ) -> Result<Vec<u32>> {
        let found = each!(self, b => b.matching_keys(name, key, conditions, numeric))?;
        let keys = self.keys.read().unwrap_or_else(|p| p.into_inner());
        let mut rows = found
            .iter()
            .map(|k| {
                keys.get(k).copied().ok_or_else(|| {
                    StoreError(format!("row `{k}` was not in the table when it was loaded"))
                })
            })
            .collect::<Result<Vec<u32>>>()?;
        rows.sort_unstable();
        Ok(rows)
    }

    /// Appends an audit entry and returns its id; durable when this returns.
    pub fn append(&self, e: &Entry) -> Result<i64> {
        each!(self, b => b.append(e))
    }

    /// Audit entries with id above `after`, oldest first, at most `limit`.
    pub fn audit_page(&self, after: i64, limit: usize) -> Result<Vec<AuditRow>> {
        each!(self, b => b.audit_page(after, limit))
    }

    /// The disclosures released to `user`, oldest first (JSON).
    pub fn disclosures(&self, user: &str) -> Result<Vec<String>> {
        each!(self, b => b.disclosures(user))
    }

    /// Creates a user (an error if the name is taken).
    pub fn create_user(&self, name: &str, role: &str, token_hash: &str) -> Result<()> {
        each!(self, b => b.create_user(name, role, token_hash))
    }

    /// Replaces a user's token hash; false when there is no such user.
    pub fn set_token(&self, name: &str, token_hash: &str) -> Result<bool> {
        each!(self, b => b.set_token(name, token_hash))
    }

    /// Deletes a user and their grants (their audit entries stay); false when absent.
    pub fn delete_user(&self, name: &str) -> Result<bool> {
        each!(self, b => b.delete_user(name))
    }

    /// A user's role and token hash.
    pub fn user(&self, name: &str) -> Result<Option<(String, String)>> {
        each!(self, b => b.user(name))
    }

    /// Every user with their grants.
    pub fn users(&self) -> Result<Vec<UserRow>> {
        let names = each!(self, b => b.user_names())?;
        names
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
        each!(self, b => b.set_grant(user, table, columns))
    }

    /// A user's grants: per table, the columns (`*`: all).
    pub fn grants(&self, user: &str) -> Result<BTreeMap<String, Vec<String>>> {
        let rows = each!(self, b => b.grant_rows(user))?;
        Ok(rows
            .into_iter()
            .map(|(t, c)| (t, serde_json::from_str(&c).unwrap_or_default()))
            .collect())
    }

    /// A stored setting.
    pub fn setting(&self, key: &str) -> Result<Option<String>> {
        each!(self, b => b.setting(key))
    }

    /// Stores a setting.
    pub fn put_setting(&self, key: &str, value: &str) -> Result<()> {
        each!(self, b => b.put_setting(key, value))
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) fn entry() -> Entry {
        Entry {
            user: "u".into(),
            query: "SELECT a FROM t".into(),
            outcome: "released".into(),
            method: None,
            levels: None,
            rows: 1,
            reason: None,
            detail: None,
            disclosure: None,
        }
    }

    /// The stores to test: SQLite always, PostgreSQL when `CELLSAFE_TEST_POSTGRES` names
    /// a server (a URL whose user may create databases).
    pub(crate) fn stores(dir: &Path) -> Vec<(Store, Option<postgres::Scratch>)> {
        let mut out = vec![(Store::open(&dir.join("c.db")).unwrap(), None)];
        if let Some(scratch) = postgres::Scratch::create() {
            let store = std::thread::scope(|s| {
                s.spawn(|| Store::connect(&scratch.url, scratch.runtime.handle().clone()))
                    .join()
                    .unwrap()
            })
            .unwrap();
            out.push((store, Some(scratch)));
        }
        out
    }

    #[test]
    fn numbers_are_stored_as_numbers_and_compare_as_numbers() {
        let dir = tempfile::tempdir().unwrap();
        for (s, _pg) in stores(dir.path()) {
            let header = ["age", "zip"].map(String::from).to_vec();
            let rows: Vec<Vec<String>> = [["9", "a\"b"], ["10", "c"], ["100", "c"]]
                .iter()
                .map(|r| r.iter().map(|s| s.to_string()).collect())
                .collect();
            let t = Table::from_rows(header, &rows).unwrap();
            s.import("t", &t).unwrap();
            assert!(s.has_table("t").unwrap());
            let (h, back) = s.load("t", "_row").unwrap();
            assert_eq!(h, ["age", "zip"]);
            assert_eq!(back, rows);
            let numeric = |c: &str| c == "age";
            let gt = [Condition {
                column: "age".into(),
                test: Test::Gt("9.5".into()),
            }];
            // as text, "10" < "9.5"; as numbers it is not
            assert_eq!(s.matching_rows("t", "_row", &gt, &numeric).unwrap(), [1, 2]);
            let quoted = [Condition {
                column: "zip".into(),
                test: Test::In(vec!["a\"b".into(), "x".into()]),
            }];
            assert_eq!(
                s.matching_rows("t", "_row", &quoted, &numeric).unwrap(),
                [0]
            );
            let between = [Condition {
                column: "age".into(),
                test: Test::NotBetween("9".into(), "10".into()),
            }];
            assert_eq!(
                s.matching_rows("t", "_row", &between, &numeric).unwrap(),
                [2]
            );
            assert!(s.import("audit", &t).is_err());
            // users, grants, settings, the audit log
            s.create_user("ann", "analyst", "h").unwrap();
            assert!(s.create_user("ann", "analyst", "h").is_err());
            s.set_grant("ann", "t", &["age".into()]).unwrap();
            assert_eq!(s.grants("ann").unwrap()["t"], ["age"]);
            assert_eq!(s.users().unwrap()[0].name, "ann");
            assert!(s.set_token("ann", "h2").unwrap());
            assert_eq!(s.user("ann").unwrap().unwrap().1, "h2");
            s.put_setting("center", "x").unwrap();
            s.put_setting("center", "y").unwrap();
            assert_eq!(s.setting("center").unwrap().as_deref(), Some("y"));
            let mut e = entry();
            e.user = "ann".into();
            e.disclosure = Some("{}".into());
            let first = s.append(&e).unwrap();
            let second = s.append(&entry()).unwrap();
            assert!(second > first);
            assert_eq!(s.disclosures("ann").unwrap(), ["{}"]);
            assert_eq!(s.audit_page(first, 10).unwrap()[0].id, second);
            assert!(s.delete_user("ann").unwrap());
            assert!(s.grants("ann").unwrap().is_empty());
            assert_eq!(
                s.audit_page(0, 10).unwrap().len(),
                2,
                "entries outlive their user"
            );
        }
    }
}
