//! How a job stages its released table: as the audited CSV bytes, or, for a Parquet or
//! Arrow output, as a columnar file built from those bytes and read back before it may be
//! renamed into place (see `release::columnar`, with the `arrow` feature).
//!
//! Only this layer knows which columns were generalized (from the roles and the search),
//! and so which keep their source's type in a columnar file.

use std::path::Path;

use serde::Serialize;

use crate::anonymizer::Release;
use crate::data::table::Format;
use crate::error::Result;
use crate::release::output::Transaction;

/// One column of a written columnar file, as the report lists it.
#[derive(Debug, Clone, Serialize)]
pub struct WrittenColumn {
    /// The column's name.
    pub name: String,
    /// Its Arrow type (`Utf8` for a generalized column).
    #[serde(rename = "type")]
    pub data_type: String,
}

/// Fails before any work when the table cannot be written as `format` by this build.
pub(crate) fn check_format(path: &Path, format: Format) -> Result<()> {
    if format == Format::Csv || cfg!(feature = "arrow") {
        return Ok(());
    }
    Err(crate::error::ReleaseError::Format {
        path: path.to_owned(),
        what: "a release (this cellsafe was built without the `arrow` feature)".to_owned(),
        format: format.describe(),
    }
    .into())
}

/// Stages `release` at `path` in `format`; for a columnar format, returns the written
/// schema.
pub(crate) fn stage(
    tx: &mut Transaction,
    path: &Path,
    format: Format,
    release: &Release,
    csv: &crate::data::table::CsvFormat,
) -> Result<Option<Vec<WrittenColumn>>> {
    if format == Format::Csv {
        tx.stage(path, |w| w.write_all(release.csv()))?;
        return Ok(None);
    }
    #[cfg(feature = "arrow")]
    {
        use crate::data::Role;
        use crate::release::columnar::{self, ColumnType};
        let data = &release.problem().data;
        let schema = data.table.source_schema();
        let header =
            columnar::header(release.csv(), csv).map_err(|e| crate::error::Error::io(path, e))?;
        // set-based releases may generalize any cell, so every column is then a string
        let set_based = release.algorithm() == crate::algorithm::Algorithm::SetBased;
        let types: Vec<ColumnType> = header
            .iter()
            .map(|name| {
                let column = data.table.column_index(name);
                let kept = column
                    .is_some_and(|c| matches!(data.roles[c], Role::Sensitive | Role::Insensitive));
                let source = schema.and_then(|s| s.arrow().field_with_name(name).ok());
                match source {
                    Some(field) if kept && !set_based => {
                        ColumnType::Source(field.data_type().clone())
                    }
                    _ => ColumnType::Text,
                }
            })
            .collect();
        let staged = tx.stage(path, |w| {
            columnar::write(w, release.csv(), csv, format, &types)
        })?;
        columnar::verify(&staged, path, format, release.csv(), csv, &types)?;
        Ok(Some(
            columnar::schema_of(&header, &types)
                .into_iter()
                .map(|(name, data_type)| WrittenColumn { name, data_type })
                .collect(),
        ))
    }
    #[cfg(not(feature = "arrow"))]
    {
        let _ = (tx, release, csv);
        check_format(path, format).map(|_| None)
    }
}
