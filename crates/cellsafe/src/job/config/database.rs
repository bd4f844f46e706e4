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
        if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            return Err(Error::config(
                &file,
                "output.url",
                "PostgreSQL output is not available yet; write to SQLite or to a file",
            ));
        }
        if url.strip_prefix("sqlite://").is_none_or(str::is_empty) {
            return Err(Error::config(
                &file,
                "output.url",
                format!(
                    "`{}` is not a database url cellsafe writes; give \
                     sqlite:///absolute/path.db or sqlite://path/relative/to/config.db",
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
        let (Some(url), Some(path), Some(table)) = (
            &self.output.url,
            self.output_database_path(),
            &self.output.table,
        ) else {
            return Ok(None);
        };
        Ok(Some(crate::release::database::DatabaseOutput {
            url: url.clone(),
            path,
            table: table.clone(),
            replace: self.output.replace,
            config: self.file_name(),
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
