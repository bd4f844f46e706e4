//! `[output] url`, `table` and `replace`: a release written into a database table instead
//! of a file (see `release::database`). The keys are checked before any data is read.

use std::path::Path;

use super::Config;
use crate::error::{excerpt, Error, Result};

/// The start of the staging tables' names, which a release's table may not take.
const STAGING_PREFIX: &str = "cellsafe_staging_";

impl Config {
    /// Whether the release goes into a database table (`[output] url`).
    pub fn writes_database(&self) -> bool {
        self.output.url.is_some()
    }

    /// Checks the keys of `[output]` that name a database: `url` with `table` (a plain
    /// identifier), `replace` only with them, and neither `path` nor `format` beside them.
    pub(crate) fn check_output(&self) -> Result<()> {
        let file = self.file_name();
        let output = &self.output;
        if self.on_spark() {
            return self.check_spark_output();
        }
        let Some(url) = &output.url else {
            if output.table.is_some() {
                return Err(Error::config(
                    &file,
                    "output.table",
                    "only with a database `url` in [output]",
                ));
            }
            if output.replace {
                return Err(Error::config(
                    &file,
                    "output.replace",
                    "only with a database `url` and `table` in [output]",
                ));
            }
            return Ok(());
        };
        if output.path.is_some() {
            return Err(Error::config(
                &file,
                "output.url",
                "give either `path` (a file) or `url` (a database), not both",
            ));
        }
        if output.format.is_some() {
            return Err(Error::config(
                &file,
                "output.format",
                "a database is written by its `url`; `format` is for files",
            ));
        }
        if is_postgres(url) {
            check_postgres(&file, "output.url", url)?;
        } else if url.strip_prefix("sqlite://").is_none_or(str::is_empty) {
            return Err(Error::config(
                &file,
                "output.url",
                format!(
                    "`{}` is not a database url cellsafe writes; give \
                     sqlite:///absolute/path.db, sqlite://path/relative/to/config.db or \
                     postgres://user@host:port/database",
                    excerpt(url)
                ),
            ));
        }
        if !cfg!(feature = "sqlite") {
            return Err(Error::config(
                &file,
                "output.url",
                "writing a database needs cellsafe built with the `sqlite` feature",
            ));
        }
        let Some(table) = &output.table else {
            return Err(Error::config(
                &file,
                "output.table",
                "missing: with a database `url`, name the table the release becomes",
            ));
        };
        if !plain_identifier(table) {
            return Err(Error::config(
                &file,
                "output.table",
                format!(
                    "`{}` is not a plain table name: a letter or `_`, then letters, digits \
                     and `_`, at most 63 of them",
                    excerpt(table)
                ),
            ));
        }
        let lower = table.to_ascii_lowercase();
        if lower.starts_with(STAGING_PREFIX) || lower.starts_with("sqlite_") {
            return Err(Error::config(
                &file,
                "output.table",
                format!(
                    "`{table}` is reserved: names starting with `{STAGING_PREFIX}` are \
                     cellsafe's staging tables, those starting with `sqlite_` SQLite's"
                ),
            ));
        }
        Ok(())
    }

    /// The database file `[output] url` names (resolved against the config's directory).
    pub fn output_database_path(&self) -> Option<std::path::PathBuf> {
        let file = self.output.url.as_deref()?.strip_prefix("sqlite://")?;
        Some(self.resolve(Path::new(file)))
    }

    /// Where the release goes when `[output] url` names a database (checked).
    #[cfg(feature = "sqlite")]
    pub fn output_database(&self) -> Result<Option<crate::release::database::DatabaseOutput>> {
        self.check_output()?;
        let (Some(url), Some(table)) = (&self.output.url, &self.output.table) else {
            return Ok(None);
        };
        // a PostgreSQL database is named by its url in messages
        let path = self
            .output_database_path()
            .unwrap_or_else(|| url.clone().into());
        Ok(Some(crate::release::database::DatabaseOutput {
            url: url.clone(),
            path,
            table: table.clone(),
            replace: self.output.replace,
            config: self.file_name(),
            #[cfg(feature = "postgres")]
            postgres: is_postgres(url),
        }))
    }
}

/// Whether `name` is a plain identifier: an ASCII letter or `_`, then letters, digits and
/// `_`, at most 63 bytes (PostgreSQL's limit).
fn plain_identifier(name: &str) -> bool {
    let mut bytes = name.bytes();
    matches!(bytes.next(), Some(b) if b.is_ascii_alphabetic() || b == b'_')
        && bytes.all(|b| b.is_ascii_alphanumeric() || b == b'_')
        && name.len() <= 63
}

/// Whether `url` names a PostgreSQL database.
pub(crate) fn is_postgres(url: &str) -> bool {
    url.starts_with("postgres://") || url.starts_with("postgresql://")
}

/// Whether a PostgreSQL url holds a password: in its user part (`user:password@`) or as a
/// `password` parameter.
fn holds_password(url: &str) -> bool {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let (authority, query) = match rest.split_once('?') {
        Some((a, q)) => (a, Some(q)),
        None => (rest, None),
    };
    let authority = authority.split('/').next().unwrap_or("");
    let in_user = authority
        .rsplit_once('@')
        .is_some_and(|(user, _)| user.contains(':'));
    let in_query = query.is_some_and(|q| {
        q.split('&').any(|kv| {
            kv.split('=')
                .next()
                .is_some_and(|k| k.eq_ignore_ascii_case("password"))
        })
    });
    in_user || in_query
}

/// Checks a PostgreSQL url under `key`: no password in it, and a build that speaks
/// PostgreSQL. Messages never repeat the url (it may hold a password).
pub(crate) fn check_postgres(file: &str, key: &str, url: &str) -> Result<()> {
    if holds_password(url) {
        return Err(Error::config(
            file,
            key,
            "holds a password, which a config must never hold: remove it from the url and \
             give it in PGPASSWORD or in a .pgpass-format file named by PGPASSFILE",
        ));
    }
    if !cfg!(feature = "postgres") {
        return Err(Error::config(
            file,
            key,
            "PostgreSQL needs cellsafe built with the `postgres` feature",
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_password_is_found_in_the_user_part_or_a_parameter() {
        for (url, held) in [
            ("postgres://ann@db:5432/center", false),
            ("postgres://ann:secret@db:5432/center", true),
            ("postgresql://ann:@db/center", true),
            ("postgres://ann@db/center?password=x", true),
            ("postgres://ann@db/center?sslmode=disable&PASSWORD=x", true),
            ("postgres://ann@%2Ftmp%2Fpg/center?host=/tmp:x", false),
            ("postgres://db/center", false),
        ] {
            assert_eq!(super::holds_password(url), held, "{url}");
        }
    }
}
