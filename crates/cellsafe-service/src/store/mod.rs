//! The data center's database: the data table, users and grants, the center's settings,
//! and the audit log. SQLite (`sqlite`, WAL) by default; PostgreSQL (`postgres`) when the
//! config gives a URL, for centers whose data already lives there. Both keep the same
//! tables and answer the same calls.
//!
//! The data table is created from the CSV on first start, with a `_row` column numbering
//! the rows; every column is stored as text, so each value reaches analysts exactly as in
//! the source (`03067` keeps its zero, `40.0` and `4e1` stay apart). A column the
//! gatekeeper compares as numbers ([`Center::is_numeric`](cellsafe::gatekeeper::Center::is_numeric))
//! is cast to a number in the WHERE clause, so comparisons in SQL and in the gatekeeper
//! agree. The service then reads the table back
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

/// The most bytes of a rejected request's text kept in its audit entry; the rest is
/// represented by the text's length and SHA-256, so a flood of oversized requests cannot
/// fill the disk.
pub const KEPT_QUERY: usize = 1024;

/// What the audit log keeps of `e.query`: (text kept, its length in bytes, the SHA-256 of
/// the whole in hex when the text was cut). Queries answered or refused by the gatekeeper
/// were parsed, so they are at most [`crate::sql::MAX_QUERY`] bytes and kept whole; a
/// rejected one is cut to [`KEPT_QUERY`] bytes (on a character boundary).
pub(crate) fn kept_query(e: &Entry) -> (&str, i64, Option<String>) {
    let q = e.query.as_str();
    let bytes = q.len() as i64;
    if e.outcome != "rejected" || q.len() <= KEPT_QUERY {
        return (q, bytes, None);
    }
    let mut end = KEPT_QUERY;
    while !q.is_char_boundary(end) {
        end -= 1;
    }
    use sha2::Digest;
    let hash: String = sha2::Sha256::digest(q.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    (&q[..end], bytes, Some(hash))
}

/// Whether a database error says the database or its disk is full.
pub fn is_full(e: &StoreError) -> bool {
    let m = e.0.to_ascii_lowercase();
    m.contains("database or disk is full") || m.contains("no space left") || m.contains("disk full")
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
    /// The query text as received (a rejected one: its first [`KEPT_QUERY`] bytes).
    pub query: String,
    /// The length of the text received, in bytes (absent in entries written before it
    /// was recorded).
    pub query_bytes: Option<i64>,
    /// The SHA-256 (hex) of the whole text received, when `query` holds only its start.
    pub query_sha256: Option<String>,
    /// `released`, `generalized`, `refused` or `rejected`.
    pub outcome: String,
    /// How the answer was generalized.
    pub method: Option<String>,
    /// Levels of the generalization: stored as JSON text, served as the JSON value it
    /// holds (text that is not JSON is served as a string).
    #[serde(serialize_with = "stored_json")]
    #[schema(value_type = Option<Object>)]
    pub levels: Option<String>,
    /// Rows released.
    pub rows: i64,
    /// Why nothing was released.
    pub reason: Option<String>,
    /// The gatekeeper's verdict: stored as JSON text, served as the JSON value it holds
    /// (text that is not JSON is served as a string).
    #[serde(serialize_with = "stored_json")]
    #[schema(value_type = Option<Object>)]
    pub detail: Option<String>,
}

/// JSON text from the database as the value it holds, so that a reader parses it once;
/// text that does not parse (written by hand, or cut) as the string it is.
fn stored_json<S: serde::Serializer>(
    text: &Option<String>,
    serializer: S,
) -> std::result::Result<S::Ok, S::Error> {
    match text {
        None => serializer.serialize_none(),
        Some(t) => match serde_json::from_str::<serde_json::Value>(t) {
            Ok(value) => value.serialize(serializer),
            Err(_) => serializer.serialize_str(t),
        },
    }
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
    /// Opens (creating) the SQLite database at `path` and its schema; with `max_bytes`
    /// above 0 the database grows no larger (writes then fail as on a full disk).
    pub fn open(path: &Path, max_bytes: u64) -> Result<Store> {
        Ok(Store::with(Inner::Sqlite(sqlite::Sqlite::open(
            path, max_bytes,
        )?)))
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

    /// Appends an audit entry and returns its id; durable when this returns. A rejected
    /// request's text is kept as [`kept_query`] says.
    pub fn append(&self, e: &Entry) -> Result<i64> {
        let kept = kept_query(e);
        each!(self, b => b.append(e, &kept))
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

    // how a test says that it did not run, and why (`scripts/test` lists them at the end)
    pub(crate) use cellsafe_testkit::skipped;

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

    /// `/admin/audit` serves an entry's levels and verdict as JSON values, not strings
    /// holding JSON; text stored that is not JSON is served as the string it is.
    #[test]
    fn audit_rows_serve_levels_and_detail_as_json() {
        let row = |levels: &str, detail: &str| AuditRow {
            id: 1,
            at: "2026-01-01T00:00:00Z".into(),
            user: "u".into(),
            query: "SELECT a FROM t".into(),
            query_bytes: Some(15),
            query_sha256: None,
            outcome: "generalized".into(),
            method: Some("levels".into()),
            levels: Some(levels.into()),
            rows: 3,
            reason: None,
            detail: Some(detail.into()),
        };
        let v = serde_json::to_value(row(
            r#"{"age":2,"zip":1}"#,
            r#"{"outcome":"generalized","rows":3}"#,
        ))
        .unwrap();
        assert_eq!(v["levels"], serde_json::json!({"age": 2, "zip": 1}), "{v}");
        assert_eq!(v["detail"]["outcome"], "generalized", "{v}");
        assert_eq!(v["detail"]["rows"], 3, "{v}");
        let v = serde_json::to_value(row("not json", "{cut")).unwrap();
        assert_eq!(
            (v["levels"].as_str(), v["detail"].as_str()),
            (Some("not json"), Some("{cut"))
        );
        let mut none = row("", "");
        (none.levels, none.detail) = (None, None);
        let v = serde_json::to_value(none).unwrap();
        assert!(v["levels"].is_null() && v["detail"].is_null(), "{v}");
    }

    /// The stores to test: SQLite always, PostgreSQL when `CELLSAFE_TEST_POSTGRES` names
    /// a server (a URL whose user may create databases).
    pub(crate) fn stores(dir: &Path) -> Vec<(Store, Option<postgres::Scratch>)> {
        let mut out = vec![(Store::open(&dir.join("c.db"), 0).unwrap(), None)];
        if std::env::var("CELLSAFE_TEST_POSTGRES").is_ok_and(|s| s.trim().is_empty())
            || std::env::var("CELLSAFE_TEST_POSTGRES").is_err()
        {
            skipped("the store on PostgreSQL: CELLSAFE_TEST_POSTGRES is not set");
        }
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

    /// Values reach the service exactly as in the source: leading zeros, `40.0` and `4e1`
    /// survive the import (SQLite's NUMERIC affinity and PostgreSQL's NUMERIC used to turn
    /// them into `3067` and `40`), while a numeric column still compares as numbers.
    #[test]
    fn values_are_stored_exactly_as_in_the_source() {
        let dir = tempfile::tempdir().unwrap();
        for (s, _pg) in stores(dir.path()) {
            let header = ["zip", "age"].map(String::from).to_vec();
            let rows: Vec<Vec<String>> = [
                ["03067", "40"],
                ["3067", "40.0"],
                ["00000", "4e1"],
                ["12", "-0"],
                ["1.50", "1e-1"],
            ]
            .iter()
            .map(|r| r.iter().map(|s| s.to_string()).collect())
            .collect();
            let t = Table::from_rows(header, &rows).unwrap();
            s.import("t", &t).unwrap();
            let (_, back) = s.load("t", "_row").unwrap();
            assert_eq!(back, rows);
            let zip_text = |c: &str| c == "age";
            let eq = |column: &str, v: &str| {
                [Condition {
                    column: column.into(),
                    test: Test::Eq(v.into()),
                }]
            };
            // zip is text here: `03067` and `3067` are different values
            assert_eq!(
                s.matching_rows("t", "_row", &eq("zip", "3067"), &zip_text)
                    .unwrap(),
                [1]
            );
            // age compares as numbers: 40, 40.0 and 4e1 are one number
            assert_eq!(
                s.matching_rows("t", "_row", &eq("age", "40"), &zip_text)
                    .unwrap(),
                [0, 1, 2]
            );
            let lt = [Condition {
                column: "age".into(),
                test: Test::Lt("0.5".into()),
            }];
            assert_eq!(
                s.matching_rows("t", "_row", &lt, &zip_text).unwrap(),
                [3, 4]
            );
        }
    }

    /// A rejected request's text is kept to its first KEPT_QUERY bytes with its length
    /// and hash; an answered query is kept whole.
    #[test]
    fn a_rejected_text_is_kept_bounded_with_its_length_and_hash() {
        let dir = tempfile::tempdir().unwrap();
        for (s, _pg) in stores(dir.path()) {
            let mut e = entry();
            e.outcome = "rejected".into();
            e.query = "é".repeat(40_000);
            let id = s.append(&e).unwrap();
            let mut short = entry();
            short.query = "SELECT a FROM t".into();
            s.append(&short).unwrap();
            let page = s.audit_page(id - 1, 10).unwrap();
            let (long, kept) = (&page[0], &page[1]);
            assert!(long.query.len() <= KEPT_QUERY && long.query.len() > KEPT_QUERY - 4);
            assert!("é".repeat(40_000).starts_with(&long.query));
            assert_eq!(long.query_bytes, Some(80_000));
            use sha2::Digest;
            let hex: String = sha2::Sha256::digest("é".repeat(40_000).as_bytes())
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect();
            assert_eq!(long.query_sha256.as_deref(), Some(hex.as_str()));
            assert_eq!(kept.query, "SELECT a FROM t");
            assert_eq!(
                (kept.query_bytes, kept.query_sha256.as_deref()),
                (Some(15), None)
            );
        }
    }

    /// A capped SQLite database refuses writes once full, and says it is full.
    #[test]
    fn a_full_database_refuses_audit_entries_and_says_so() {
        let dir = tempfile::tempdir().unwrap();
        let s = Store::open(&dir.path().join("c.db"), 64 * 1024).unwrap();
        let mut e = entry();
        e.detail = Some("x".repeat(4000));
        let mut failed = None;
        for _ in 0..1000 {
            if let Err(err) = s.append(&e) {
                failed = Some(err);
                break;
            }
        }
        let err = failed.expect("a 64 KiB database fills up");
        assert!(is_full(&err), "{err}");
    }

    #[test]
    fn numeric_columns_compare_as_numbers() {
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
