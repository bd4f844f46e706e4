//! Tables read from a PostgreSQL database (the `postgres` feature), and the connection the
//! release's writer (`release::database`) shares.
//!
//! The url is `postgres://user@host:port/database` (or `postgresql://`; a Unix socket's
//! directory percent-encoded as the host, or given as `?host=/dir`). It never holds a
//! password (the config check refuses one): the password comes from `PGPASSWORD`, else
//! from the `.pgpass`-format file `PGPASSFILE` names (lines
//! `host:port:database:user:password`, `*` matching anything, `\:` and `\\` escaped; for a
//! Unix socket the host is `localhost` or the socket's directory). No message prints it.
//!
//! Reading runs in a `READ ONLY` transaction that is rolled back, so neither a table nor a
//! query can modify the database. The query is prepared first (one statement, whose
//! column types say which columns are integers or floats), then run with the simple-query
//! protocol, in which every value is the text PostgreSQL prints; NULL is the empty string.

use std::path::{Path, PathBuf};
use std::time::Duration;

use tokio_postgres::types::Type;
use tokio_postgres::{Client, NoTls, SimpleQueryMessage};

use super::{duplicate_name, Dictionary, Selection, SqlType, Table};
use crate::error::{excerpt, Error, Location, Result};
use crate::observer::{Observer, Stage, LOADING};

/// How long a connection attempt may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// A connection: a single-threaded runtime and the client it drives.
pub(crate) struct Pg {
    runtime: tokio::runtime::Runtime,
    client: Client,
    /// The url, for messages (it holds no password).
    pub(crate) url: String,
}

/// The message of a PostgreSQL error: the server's, else the client's.
pub(crate) fn message(e: &tokio_postgres::Error) -> String {
    match e.as_db_error() {
        Some(db) => db.message().to_owned(),
        None => {
            let mut text = e.to_string();
            let mut source = std::error::Error::source(e);
            while let Some(s) = source {
                text.push_str(&format!(": {s}"));
                source = s.source();
            }
            text
        }
    }
}

/// The password of `user` on `host`:`port`/`database` in `.pgpass`-format `text`.
pub(crate) fn pgpass_lookup(
    text: &str,
    hosts: &[String],
    port: u16,
    database: &str,
    user: &str,
) -> Option<String> {
    for line in text.lines() {
        if line.trim_start().starts_with('#') || line.trim().is_empty() {
            continue;
        }
        // split on unescaped colons, unescaping `\:` and `\\`
        let mut fields = vec![String::new()];
        let mut chars = line.chars();
        while let Some(c) = chars.next() {
            match c {
                '\\' => {
                    if let Some(next) = chars.next() {
                        fields.last_mut()?.push(next);
                    }
                }
                ':' if fields.len() < 5 => fields.push(String::new()),
                c => fields.last_mut()?.push(c),
            }
        }
        let Ok([h, p, d, u, password]) = <[String; 5]>::try_from(fields) else {
            continue;
        };
        let matches = |field: &str, value: &str| field == "*" || field == value;
        if (h == "*" || hosts.iter().any(|host| host == &h))
            && matches(&p, &port.to_string())
            && matches(&d, database)
            && matches(&u, user)
        {
            return Some(password);
        }
    }
    None
}

impl Pg {
    /// Connects to `url` (checked: no password in it), `key` naming it in messages.
    pub(crate) fn connect(url: &str, file: &str, key: &str) -> Result<Pg> {
        let config_error = |m: String| Error::config(file, key, m);
        let mut config: tokio_postgres::Config = url.parse().map_err(|_| {
            config_error(
                "is not a PostgreSQL url: give postgres://user@host:port/database".to_owned(),
            )
        })?;
        if config.get_password().is_some() {
            return Err(config_error(password_in_url()));
        }
        let Some(user) = config.get_user().map(str::to_owned) else {
            return Err(config_error(
                "names no user: give postgres://user@host:port/database".to_owned(),
            ));
        };
        let database = config.get_dbname().unwrap_or(&user).to_owned();
        let port = config.get_ports().first().copied().unwrap_or(5432);
        let hosts: Vec<String> = config
            .get_hosts()
            .iter()
            .flat_map(|h| match h {
                tokio_postgres::config::Host::Tcp(name) => vec![name.clone()],
                #[cfg(unix)]
                tokio_postgres::config::Host::Unix(dir) => {
                    vec!["localhost".to_owned(), dir.display().to_string()]
                }
            })
            .collect();
        let password = match std::env::var("PGPASSWORD") {
            Ok(p) if !p.is_empty() => Some(p),
            _ => match std::env::var_os("PGPASSFILE") {
                Some(path) => {
                    let text = std::fs::read_to_string(&path)
                        .map_err(|e| Error::io(PathBuf::from(&path), e))?;
                    pgpass_lookup(&text, &hosts, port, &database, &user)
                }
                None => None,
            },
        };
        if let Some(password) = password {
            config.password(password);
        }
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(CONNECT_TIMEOUT);
        }
        let at = Location::file(Path::new(url));
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| Error::io(Path::new(url), e))?;
        let (client, connection) = runtime.block_on(config.connect(NoTls)).map_err(|e| {
            Error::data(
                at.clone(),
                format!("cannot connect to the database: {}", message(&e)),
            )
        })?;
        runtime.spawn(connection);
        let pg = Pg {
            runtime,
            client,
            url: url.to_owned(),
        };
        pg.batch("SET standard_conforming_strings = on")?;
        Ok(pg)
    }

    fn error(&self, m: impl std::fmt::Display) -> Error {
        Error::data(Location::file(Path::new(&self.url)), m.to_string())
    }

    /// Runs `sql` (statements without results).
    pub(crate) fn batch(&self, sql: &str) -> std::result::Result<(), Error> {
        self.runtime
            .block_on(self.client.batch_execute(sql))
            .map_err(|e| self.error(message(&e)))
    }

    /// Runs `sql` (statements without results); the error is PostgreSQL's.
    pub(crate) fn batch_raw(&self, sql: &str) -> std::result::Result<(), tokio_postgres::Error> {
        self.runtime.block_on(self.client.batch_execute(sql))
    }

    /// The rows of `sql` (one statement, run with the simple-query protocol) as text.
    pub(crate) fn rows(
        &self,
        sql: &str,
    ) -> std::result::Result<Vec<tokio_postgres::SimpleQueryRow>, tokio_postgres::Error> {
        let messages = self.runtime.block_on(self.client.simple_query(sql))?;
        Ok(messages
            .into_iter()
            .filter_map(|m| match m {
                SimpleQueryMessage::Row(row) => Some(row),
                _ => None,
            })
            .collect())
    }

    /// The column names and types of `sql`, prepared.
    pub(crate) fn describe(
        &self,
        sql: &str,
    ) -> std::result::Result<Vec<(String, Type)>, tokio_postgres::Error> {
        let statement = self.runtime.block_on(self.client.prepare(sql))?;
        Ok(statement
            .columns()
            .iter()
            .map(|c| (c.name().to_owned(), c.type_().clone()))
            .collect())
    }
}

/// Why a url with a password is refused.
pub(crate) fn password_in_url() -> String {
    "holds a password, which a config must never hold: remove it from the url and give it \
     in PGPASSWORD or in a .pgpass-format file named by PGPASSFILE"
        .to_owned()
}

/// The type a release keeps for a column of PostgreSQL type `t`.
fn sql_type(t: &Type) -> SqlType {
    if [Type::INT2, Type::INT4, Type::INT8].contains(t) {
        SqlType::Integer
    } else if [Type::FLOAT4, Type::FLOAT8].contains(t) {
        SqlType::Real
    } else {
        SqlType::Text
    }
}

/// Reads `selection` from the PostgreSQL database at `url` (see the module documentation);
/// errors name `input.url` of `file` or the url.
pub(crate) fn read_postgres(
    url: &str,
    file: &str,
    selection: &Selection,
    observer: &dyn Observer,
) -> Result<Table> {
    let source = PathBuf::from(url);
    let stage = Stage::start(observer, LOADING, None);
    let pg = Pg::connect(url, file, "input.url")?;
    let what = match selection {
        Selection::Table(name) => format!("table `{}`", excerpt(name)),
        Selection::Query(_) => "the query".to_owned(),
    };
    let sql = match selection {
        Selection::Table(name) => {
            format!("SELECT * FROM \"{}\"", name.replace('"', "\"\""))
        }
        Selection::Query(query) => query.clone(),
    };
    let cannot = |e: tokio_postgres::Error| {
        Error::data(
            Location::file(&source),
            format!("cannot read {what}: {}", message(&e)),
        )
    };
    pg.batch("START TRANSACTION READ ONLY")?;
    let columns = pg.describe(&sql).map_err(cannot)?;
    let header: Vec<String> = columns.iter().map(|(n, _)| n.clone()).collect();
    if header.is_empty() {
        return Err(Error::data(
            Location::file(&source),
            "the query returns no columns",
        ));
    }
    if let Some(i) = duplicate_name(&header) {
        return Err(Error::data(
            Location::file(&source),
            format!(
                "duplicate column name `{}` in the result",
                excerpt(&header[i])
            ),
        ));
    }
    let rows = pg.rows(&sql).map_err(cannot)?;
    // nothing was written, and nothing may be
    let _ = pg.batch("ROLLBACK");
    let mut codes: Vec<Vec<u32>> = vec![Vec::with_capacity(rows.len()); header.len()];
    let mut dictionaries = vec![Dictionary::default(); header.len()];
    for (r, row) in rows.iter().enumerate() {
        let line = r as u64 + 1;
        if line.is_multiple_of(4096) {
            stage.check()?;
            stage.add(4096);
        }
        for (c, column) in codes.iter_mut().enumerate() {
            let cell = row.get(c).unwrap_or("");
            column.push(dictionaries[c].intern(cell, line));
        }
    }
    stage.check_stopped()?;
    Ok(Table {
        source,
        sql_types: Some(
            columns
                .iter()
                .map(|(name, t)| (name.clone(), sql_type(t)))
                .collect(),
        ),
        header,
        columns: codes,
        dictionaries,
        lines: (1..=rows.len() as u64).collect(),
        schema: None,
    })
}

impl Table {
    /// Reads `selection` (a table or a query) from the PostgreSQL database at `url`, in a
    /// read-only transaction (see the module documentation); `file` is the config, whose
    /// key `input.url` messages about the url name.
    pub fn read_postgres(
        url: &str,
        file: &str,
        selection: &Selection,
        observer: &dyn Observer,
    ) -> Result<Table> {
        read_postgres(url, file, selection, observer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pgpass_file_is_matched_field_by_field_with_wildcards_and_escapes() {
        let text = "# comment\n\
                    db.example:5432:other:ann:wrong\n\
                    db.example:5432:center:ann:s\\:cr\\\\et\n\
                    *:*:*:bob:any\n";
        let hosts = ["db.example".to_owned()];
        assert_eq!(
            pgpass_lookup(text, &hosts, 5432, "center", "ann").as_deref(),
            Some("s:cr\\et")
        );
        assert_eq!(pgpass_lookup(text, &hosts, 5433, "center", "ann"), None);
        assert_eq!(
            pgpass_lookup(text, &["h".to_owned()], 1, "x", "bob").as_deref(),
            Some("any")
        );
    }
}
