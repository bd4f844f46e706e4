//! The PostgreSQL backend (`tokio-postgres`): the same tables as SQLite, for centers whose
//! data already lives in PostgreSQL. Calls block on the service's runtime, from the
//! blocking threads the service runs database work on. Every value is sent and read as
//! text and cast in SQL, so a table created elsewhere, with its own column types, is read
//! the same way.

use cellsafe::gatekeeper::Condition;
use cellsafe::Table;
use tokio::runtime::Handle;
use tokio_postgres::{Client, NoTls};

use super::{now, quote, where_clause, AuditRow, Entry, Result, StoreError};

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
    id BIGSERIAL PRIMARY KEY,
    at TEXT NOT NULL,
    username TEXT NOT NULL,
    query TEXT NOT NULL,
    outcome TEXT NOT NULL,
    method TEXT,
    levels TEXT,
    rows_released BIGINT NOT NULL,
    reason TEXT,
    detail TEXT,
    disclosure TEXT
);
ALTER TABLE audit ADD COLUMN IF NOT EXISTS query_bytes BIGINT;
ALTER TABLE audit ADD COLUMN IF NOT EXISTS query_sha256 TEXT;
CREATE INDEX IF NOT EXISTS audit_user ON audit(username);
CREATE OR REPLACE FUNCTION cellsafe_audit_append_only() RETURNS trigger LANGUAGE plpgsql AS
$$ BEGIN RAISE EXCEPTION 'the audit log is append-only'; END $$;
DROP TRIGGER IF EXISTS audit_append_only ON audit;
CREATE TRIGGER audit_append_only BEFORE UPDATE OR DELETE ON audit
    FOR EACH ROW EXECUTE FUNCTION cellsafe_audit_append_only();
DROP TRIGGER IF EXISTS audit_no_truncate ON audit;
CREATE TRIGGER audit_no_truncate BEFORE TRUNCATE ON audit
    FOR EACH STATEMENT EXECUTE FUNCTION cellsafe_audit_append_only();
";

/// Rows per INSERT statement when importing.
const BATCH: usize = 500;

/// A PostgreSQL failure, with the server's message when there is one.
fn pg(what: &str) -> impl Fn(tokio_postgres::Error) -> StoreError + '_ {
    move |e| {
        let message = e
            .as_db_error()
            .map(|d| d.message().to_string())
            .unwrap_or_else(|| e.to_string());
        StoreError(format!("{what}: {message}"))
    }
}

/// A PostgreSQL database.
pub(super) struct Postgres {
    client: Client,
    runtime: Handle,
}

type Param<'a> = &'a (dyn tokio_postgres::types::ToSql + Sync);

impl Postgres {
    pub(super) fn connect(url: &str, runtime: Handle) -> Result<Postgres> {
        let (client, connection) = runtime
            .block_on(tokio_postgres::connect(url, NoTls))
            .map_err(pg("connect"))?;
        runtime.spawn(async move {
            let _ = connection.await;
        });
        let pg_ = Postgres { client, runtime };
        pg_.runtime
            .block_on(pg_.client.batch_execute(&format!("BEGIN;{SCHEMA}COMMIT;")))
            .map_err(pg("schema"))?;
        Ok(pg_)
    }

    fn rows(&self, what: &str, sql: &str, params: &[Param]) -> Result<Vec<tokio_postgres::Row>> {
        self.runtime
            .block_on(self.client.query(sql, params))
            .map_err(pg(what))
    }

    fn execute(&self, what: &str, sql: &str, params: &[Param]) -> Result<u64> {
        self.runtime
            .block_on(self.client.execute(sql, params))
            .map_err(pg(what))
    }

    pub(super) fn has_table(&self, name: &str) -> Result<bool> {
        let rows = self.rows(
            "look up the data table",
            "SELECT count(*) FROM information_schema.tables \
             WHERE table_schema = current_schema() AND table_name = $1",
            &[&name],
        )?;
        Ok(rows[0].get::<_, i64>(0) > 0)
    }

    pub(super) fn import(&self, name: &str, table: &Table) -> Result<()> {
        let header = table.header();
        // every column TEXT: a value reads back exactly as in the source (NUMERIC would
        // turn `03067` into `3067` and `4e1` into `40`)
        let columns: Vec<String> = header
            .iter()
            .map(|h| format!("{} TEXT", quote(h)))
            .collect();
        let casts: Vec<&str> = std::iter::once("bigint")
            .chain(header.iter().map(|_| "text"))
            .collect();
        let create = format!(
            "CREATE TABLE {} (_row BIGINT PRIMARY KEY, {})",
            quote(name),
            columns.join(", ")
        );
        let rows: Vec<Vec<String>> = (0..table.rows())
            .map(|r| {
                std::iter::once(r.to_string())
                    .chain((0..header.len()).map(|c| table.value(r, c).to_string()))
                    .collect()
            })
            .collect();
        // one transaction on the shared connection: the import runs at startup, before
        // anything else uses it
        self.runtime
            .block_on(async {
                self.client.batch_execute("BEGIN").await?;
                let result = async {
                    self.client.batch_execute(&create).await?;
                    for chunk in rows.chunks(BATCH) {
                        let width = casts.len();
                        let tuples: Vec<String> = (0..chunk.len())
                            .map(|i| {
                                let cells: Vec<String> = casts
                                    .iter()
                                    .enumerate()
                                    .map(|(c, cast)| {
                                        format!("${}::text::{cast}", i * width + c + 1)
                                    })
                                    .collect();
                                format!("({})", cells.join(", "))
                            })
                            .collect();
                        let sql =
                            format!("INSERT INTO {} VALUES {}", quote(name), tuples.join(", "));
                        let params: Vec<Param> =
                            chunk.iter().flatten().map(|v| v as Param).collect();
                        self.client.execute(&sql, &params).await?;
                    }
                    Ok::<(), tokio_postgres::Error>(())
                }
                .await;
                match result {
                    Ok(()) => self.client.batch_execute("COMMIT").await,
                    Err(e) => {
                        let _ = self.client.batch_execute("ROLLBACK").await;
                        Err(e)
                    }
                }
            })
            .map_err(pg("import"))
    }

    pub(super) fn load(&self, name: &str, key: &str) -> Result<(Vec<String>, Vec<Vec<String>>)> {
        let header: Vec<String> = self
            .rows(
                "read the data table",
                "SELECT column_name::text FROM information_schema.columns \
                 WHERE table_schema = current_schema() AND table_name = $1 \
                 ORDER BY ordinal_position",
                &[&name],
            )?
            .iter()
            .map(|r| r.get(0))
            .collect();
        let select: Vec<String> = header
            .iter()
            .map(|h| format!("{}::text", quote(h)))
            .collect();
        let sql = format!(
            "SELECT {} FROM {} ORDER BY {}",
            select.join(", "),
            quote(name),
            quote(key)
        );
        let rows = self
            .rows("read the data table", &sql, &[])?
            .iter()
            .map(|r| {
                (0..header.len())
                    .map(|i| r.get::<_, Option<String>>(i).unwrap_or_default())
                    .collect()
            })
            .collect();
        Ok((header, rows))
    }

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
            &|i, number| {
                if number {
                    format!("${i}::text::double precision")
                } else {
                    format!("${i}::text")
                }
            },
            &|column, number| {
                if number {
                    format!("{}::double precision", quote(column))
                } else {
                    format!("{}::text", quote(column))
                }
            },
        );
        let sql = format!("SELECT {}::text FROM {}{clause}", quote(key), quote(name));
        let texts: Vec<String> = values.into_iter().map(|(v, _)| v).collect();
        let params: Vec<Param> = texts.iter().map(|v| v as Param).collect();
        Ok(self
            .rows("query", &sql, &params)?
            .iter()
            .map(|r| r.get::<_, String>(0))
            .collect())
    }

    pub(super) fn append(&self, e: &Entry, kept: &(&str, i64, Option<String>)) -> Result<i64> {
        let rows = e.rows as i64;
        let r = self.rows(
            "audit",
            "INSERT INTO audit (at, username, query, outcome, method, levels, rows_released, \
             reason, detail, disclosure, query_bytes, query_sha256) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) RETURNING id",
            &[
                &now(),
                &e.user,
                &kept.0,
                &e.outcome,
                &e.method,
                &e.levels,
                &rows,
                &e.reason,
                &e.detail,
                &e.disclosure,
                &kept.1,
                &kept.2,
            ],
        )?;
        Ok(r[0].get(0))
    }

    pub(super) fn audit_page(&self, after: i64, limit: usize) -> Result<Vec<AuditRow>> {
        let limit = limit as i64;
        Ok(self
            .rows(
                "audit page",
                "SELECT id, at, username, query, outcome, method, levels, rows_released, \
                 reason, detail, query_bytes, query_sha256 FROM audit WHERE id > $1 \
                 ORDER BY id LIMIT $2",
                &[&after, &limit],
            )?
            .iter()
            .map(|r| AuditRow {
                id: r.get(0),
                at: r.get(1),
                user: r.get(2),
                query: r.get(3),
                query_bytes: r.get(10),
                query_sha256: r.get(11),
                outcome: r.get(4),
                method: r.get(5),
                levels: r.get(6),
                rows: r.get(7),
                reason: r.get(8),
                detail: r.get(9),
            })
            .collect())
    }

    pub(super) fn disclosures(&self, user: &str) -> Result<Vec<String>> {
        Ok(self
            .rows(
                "disclosures",
                "SELECT disclosure FROM audit WHERE username = $1 AND disclosure IS NOT NULL \
                 ORDER BY id",
                &[&user],
            )?
            .iter()
            .map(|r| r.get(0))
            .collect())
    }

    pub(super) fn create_user(&self, name: &str, role: &str, token_hash: &str) -> Result<()> {
        self.execute(
            "create user",
            "INSERT INTO users (name, role, token_hash, created) VALUES ($1, $2, $3, $4)",
            &[&name, &role, &token_hash, &now()],
        )?;
        Ok(())
    }

    pub(super) fn set_token(&self, name: &str, token_hash: &str) -> Result<bool> {
        Ok(self.execute(
            "set token",
            "UPDATE users SET token_hash = $2 WHERE name = $1",
            &[&name, &token_hash],
        )? > 0)
    }

    pub(super) fn delete_user(&self, name: &str) -> Result<bool> {
        Ok(self.execute("delete user", "DELETE FROM users WHERE name = $1", &[&name])? > 0)
    }

    pub(super) fn user(&self, name: &str) -> Result<Option<(String, String)>> {
        Ok(self
            .rows(
                "look up user",
                "SELECT role, token_hash FROM users WHERE name = $1",
                &[&name],
            )?
            .first()
            .map(|r| (r.get(0), r.get(1))))
    }

    pub(super) fn user_names(&self) -> Result<Vec<(String, String)>> {
        Ok(self
            .rows("users", "SELECT name, role FROM users ORDER BY name", &[])?
            .iter()
            .map(|r| (r.get(0), r.get(1)))
            .collect())
    }

    pub(super) fn set_grant(&self, user: &str, table: &str, columns: &[String]) -> Result<()> {
        if columns.is_empty() {
            self.execute(
                "grant",
                "DELETE FROM grants WHERE username = $1 AND tbl = $2",
                &[&user, &table],
            )?;
        } else {
            let json = serde_json::to_string(columns).expect("strings serialize");
            self.execute(
                "grant",
                "INSERT INTO grants (username, tbl, columns) VALUES ($1, $2, $3) \
                 ON CONFLICT (username, tbl) DO UPDATE SET columns = EXCLUDED.columns",
                &[&user, &table, &json],
            )?;
        }
        Ok(())
    }

    pub(super) fn grant_rows(&self, user: &str) -> Result<Vec<(String, String)>> {
        Ok(self
            .rows(
                "grants",
                "SELECT tbl, columns FROM grants WHERE username = $1",
                &[&user],
            )?
            .iter()
            .map(|r| (r.get(0), r.get(1)))
            .collect())
    }

    pub(super) fn setting(&self, key: &str) -> Result<Option<String>> {
        Ok(self
            .rows(
                "settings",
                "SELECT value FROM settings WHERE key = $1",
                &[&key],
            )?
            .first()
            .map(|r| r.get(0)))
    }

    pub(super) fn put_setting(&self, key: &str, value: &str) -> Result<()> {
        self.execute(
            "settings",
            "INSERT INTO settings (key, value) VALUES ($1, $2) \
             ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value",
            &[&key, &value],
        )?;
        Ok(())
    }
}

/// A database of its own on the server `CELLSAFE_TEST_POSTGRES` names (a connection string
/// such as `host=/var/run/postgresql user=postgres`), dropped afterwards.
#[cfg(test)]
pub(crate) struct Scratch {
    pub(crate) url: String,
    pub(crate) runtime: tokio::runtime::Runtime,
    admin: Client,
    name: String,
}

#[cfg(test)]
impl Scratch {
    pub(crate) fn create() -> Option<Scratch> {
        let server = std::env::var("CELLSAFE_TEST_POSTGRES")
            .ok()
            .filter(|s| !s.trim().is_empty())?;
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .ok()?;
        let (admin, connection) = runtime
            .block_on(tokio_postgres::connect(&server, NoTls))
            .expect("CELLSAFE_TEST_POSTGRES names a server");
        runtime.spawn(async move {
            let _ = connection.await;
        });
        let name = format!("cellsafe_unit_{}", rand::random::<u64>());
        runtime
            .block_on(admin.batch_execute(&format!("CREATE DATABASE {name}")))
            .expect("the test user may create databases");
        Some(Scratch {
            url: format!("{server} dbname={name}"),
            runtime,
            admin,
            name,
        })
    }
}

#[cfg(test)]
impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = self.runtime.block_on(self.admin.batch_execute(&format!(
            "DROP DATABASE IF EXISTS {} WITH (FORCE)",
            self.name
        )));
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_audit_log_refuses_updates_deletes_and_truncation() {
        let Some(scratch) = super::Scratch::create() else {
            super::super::tests::skipped(
                "the audit log's triggers on PostgreSQL: CELLSAFE_TEST_POSTGRES is not set",
            );
            return;
        };
        let handle = scratch.runtime.handle().clone();
        let url = scratch.url.clone();
        std::thread::spawn(move || {
            let p = super::Postgres::connect(&url, handle).unwrap();
            let id = p
                .append(&super::super::tests::entry(), &("q", 1, None))
                .unwrap();
            for sql in [
                "DELETE FROM audit",
                "UPDATE audit SET outcome = 'refused'",
                "TRUNCATE audit",
            ] {
                let e = p.execute("test", sql, &[]).unwrap_err().to_string();
                assert!(e.contains("append-only"), "{e}");
            }
            assert_eq!(p.audit_page(0, 10).unwrap()[0].id, id);
        })
        .join()
        .unwrap();
    }
}
