//! How a job stages its released table: as the audited CSV bytes, or, for a Parquet or
//! Arrow output, as a columnar file built from those bytes and read back before it may be
//! renamed into place (see `release::columnar`, with the `arrow` feature).
//!
//! Which columns keep their source's type in a columnar file follows from the roles and
//! the search (`release::columnar::release_types`).

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
        let header = crate::release::columnar::header(release.csv(), csv)
            .map_err(|e| crate::error::Error::io(path, e))?;
        let types = release_types(release, csv, path)?;
        let bytes = release.csv();
        stage_columnar(tx, path, format, csv, &header, &types, || Ok(bytes)).map(Some)
    }
    #[cfg(not(feature = "arrow"))]
    {
        let _ = (tx, release, csv);
        check_format(path, format).map(|_| None)
    }
}

/// The type each column of `release` (laid out as `csv`) is written with in a columnar
/// file (see [`crate::release::columnar::release_types`]); `path` names the release in an
/// error.
#[cfg(feature = "arrow")]
pub(crate) fn release_types(
    release: &Release,
    csv: &crate::data::table::CsvFormat,
    path: &Path,
) -> Result<Vec<crate::release::columnar::ColumnType>> {
    let header = crate::release::columnar::header(release.csv(), csv)
        .map_err(|e| crate::error::Error::io(path, e))?;
    let set_based = release.algorithm() == crate::algorithm::Algorithm::SetBased;
    Ok(crate::release::columnar::release_types(
        release.problem(),
        &header,
        set_based,
    ))
}

/// Stages at `path` in the columnar `format` the audited CSV release that `csv` opens
/// (laid out as `layout`, with `header`), then reads the staged file back against it;
/// returns the written schema.
#[cfg(feature = "arrow")]
pub(crate) fn stage_columnar<R: std::io::Read>(
    tx: &mut Transaction,
    path: &Path,
    format: Format,
    layout: &crate::data::table::CsvFormat,
    header: &[String],
    types: &[crate::release::columnar::ColumnType],
    csv: impl Fn() -> Result<R>,
) -> Result<Vec<WrittenColumn>> {
    use crate::release::columnar;
    let mut opened = Some(csv()?);
    let staged = tx.stage(path, |w| {
        let input = opened.take().expect("staged once");
        columnar::write(w, input, layout, format, types)
    })?;
    columnar::verify(&staged, path, format, csv()?, layout, types)?;
    Ok(columnar::schema_of(header, types)
        .into_iter()
        .map(|(name, data_type)| WrittenColumn { name, data_type })
        .collect())
}

/// Writes `release` into a staging table of `db` and checks it back (see
/// `release::database`); returns it, not yet renamed into place, with the written columns.
/// A column the release keeps as it is has its source's type: the database column's, or a
/// Parquet or Arrow integer or float; every other column is text.
#[cfg(feature = "sqlite")]
pub(crate) fn stage_database<'a>(
    db: &'a crate::release::database::DatabaseOutput,
    release: &Release,
    csv: &crate::data::table::CsvFormat,
    observer: &dyn crate::observer::Observer,
) -> Result<(crate::release::database::Staged<'a>, Vec<WrittenColumn>)> {
    use crate::data::table::SqlType;
    use crate::data::Role;
    use crate::release::database;
    let data = &release.problem().data;
    let header: Vec<String> = {
        let mut reader = csv::ReaderBuilder::new()
            .delimiter(csv.delimiter)
            .quote(csv.quote)
            .has_headers(true)
            .from_reader(release.csv());
        reader
            .headers()
            .map_err(|e| crate::error::Error::io(&db.path, std::io::Error::other(e.to_string())))?
            .iter()
            .map(str::to_owned)
            .collect()
    };
    // set-based releases may generalize any cell, so every column is then text
    let set_based = release.algorithm() == crate::algorithm::Algorithm::SetBased;
    let wanted: Vec<SqlType> = header
        .iter()
        .map(|name| {
            let kept = data
                .table
                .column_index(name)
                .is_some_and(|c| matches!(data.roles[c], Role::Sensitive | Role::Insensitive));
            if !kept || set_based {
                return SqlType::Text;
            }
            data.table
                .sql_type(name)
                .or_else(|| columnar_sql_type(data.table.source_schema(), name))
                .unwrap_or(SqlType::Text)
        })
        .collect();
    let types = database::column_types(release.csv(), csv, &wanted);
    let staged = db.stage(release.csv(), csv, &types, observer)?;
    let columns = header
        .into_iter()
        .zip(&types)
        .map(|(name, t)| WrittenColumn {
            name,
            data_type: t.sql().to_owned(),
        })
        .collect();
    Ok((staged, columns))
}

/// The SQL type of a Parquet or Arrow source column: integers that fit 64 bits and floats.
#[cfg(feature = "sqlite")]
fn columnar_sql_type(
    schema: Option<&crate::data::table::SourceSchema>,
    name: &str,
) -> Option<crate::data::table::SqlType> {
    #[cfg(feature = "arrow")]
    {
        use crate::data::table::SqlType;
        use arrow_schema::DataType;
        let field = schema?.arrow().field_with_name(name).ok()?;
        let mut data_type = field.data_type();
        if let DataType::Dictionary(_, value) = data_type {
            data_type = value;
        }
        match data_type {
            DataType::Int8
            | DataType::Int16
            | DataType::Int32
            | DataType::Int64
            | DataType::UInt8
            | DataType::UInt16
            | DataType::UInt32 => Some(SqlType::Integer),
            DataType::Float16 | DataType::Float32 | DataType::Float64 => Some(SqlType::Real),
            _ => None,
        }
    }
    #[cfg(not(feature = "arrow"))]
    {
        let _ = (schema, name);
        None
    }
}
