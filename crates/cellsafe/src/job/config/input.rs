//! Reading the input: the table of `[input]` (CSV, Parquet or Arrow), the check that every configured
//! attribute is one of its columns (with a hint when the delimiter looks wrong), and the
//! rows of the research subset (`[input.subset]`, a flag column or a file of keys).

use std::path::Path;

use super::{Config, SubsetSpec};
use crate::data::table::Table;
use crate::error::{excerpt, Error, Location, Result};

impl Config {
    /// Reads the input table, reporting progress to `observer`; returns it with the
    /// seconds it took.
    pub fn read(&self, observer: &dyn crate::observer::Observer) -> Result<(Table, f64)> {
        self.check_parameters()?;
        let clock = std::time::Instant::now();
        let table = match &self.input.url {
            Some(_) => self.read_database(observer)?,
            None => {
                let path = self.resolve(&self.input.path);
                Table::read(&path, self.input_format()?, &self.csv_format()?, observer)?
            }
        };
        Ok((table, clock.elapsed().as_secs_f64()))
    }

    /// The table or query of `[input] url` (checked by `check_input`).
    #[cfg(feature = "sqlite")]
    fn read_database(&self, observer: &dyn crate::observer::Observer) -> Result<Table> {
        use crate::data::table::Selection;
        let selection = match (&self.input.table, &self.input.query) {
            (Some(t), _) => Selection::Table(t.clone()),
            (None, Some(q)) => Selection::Query(q.clone()),
            (None, None) => unreachable!("check_input asks for one"),
        };
        #[cfg(feature = "postgres")]
        if let Some(url) = self
            .input
            .url
            .as_deref()
            .filter(|u| super::database::is_postgres(u))
        {
            return Table::read_postgres(url, &self.file_name(), &selection, observer);
        }
        Table::read_sqlite(&self.data_path(), &selection, observer)
    }

    #[cfg(not(feature = "sqlite"))]
    fn read_database(&self, _observer: &dyn crate::observer::Observer) -> Result<Table> {
        Err(Error::config(
            self.file_name(),
            "input.url",
            "reading a database needs cellsafe built with the `sqlite` feature",
        ))
    }

    /// Every attribute named under `[attributes]` must be a column of `table`.
    pub(crate) fn check_attribute_columns(&self, table: &Table) -> Result<()> {
        match self
            .attributes
            .keys()
            .find(|name| table.column_index(name).is_none())
        {
            Some(name) => Err(Error::config(
                self.file_name(),
                format!("attributes.{name}"),
                format!(
                    "no column `{name}` in the header of {}{}",
                    table.source().display(),
                    header_hint(table.header(), &self.input.delimiter)
                ),
            )),
            None => Ok(()),
        }
    }

    /// The rows of `table` in the research subset `spec` (increasing).
    pub(super) fn subset_rows(&self, spec: &SubsetSpec, table: &Table) -> Result<Vec<u32>> {
        let file = self.file_name();
        let no_column = |key: &str, name: &str, path: &Path| {
            Error::config(
                &file,
                format!("input.subset.{key}"),
                format!("no column `{name}` in {}", path.display()),
            )
        };
        match (&spec.column, &spec.file, &spec.key) {
            (Some(column), None, None) => {
                let c = table
                    .column_index(column)
                    .ok_or_else(|| no_column("column", column, table.source()))?;
                let dict = table.dictionary(c);
                let mut member = Vec::with_capacity(dict.len());
                for (code, v) in dict.values().iter().enumerate() {
                    member.push(match v.trim().to_ascii_lowercase().as_str() {
                        "1" | "true" | "yes" => true,
                        "0" | "false" | "no" => false,
                        _ => {
                            return Err(Error::data(
                                Location::at(
                                    table.source(),
                                    dict.first_line(code as u32),
                                    Some(c as u64 + 1),
                                ),
                                format!(
                                    "`{}` in the subset's flag column `{column}` is not 1/0, \
                                     true/false or yes/no",
                                    excerpt(v)
                                ),
                            ))
                        }
                    });
                }
                Ok((0..table.rows() as u32)
                    .filter(|&r| member[table.codes(c)[r as usize] as usize])
                    .collect())
            }
            (None, Some(keys), Some(key)) => {
                let path = self.resolve(keys);
                let listed = Table::read(
                    &path,
                    crate::data::table::Format::from_extension(&path),
                    &self.csv_format()?,
                    &crate::observer::Silent,
                )?;
                let dk = table
                    .column_index(key)
                    .ok_or_else(|| no_column("key", key, table.source()))?;
                let lk = listed
                    .column_index(key)
                    .ok_or_else(|| no_column("key", key, listed.source()))?;
                // the input rows of each key value
                let mut rows_of: rustc_hash::FxHashMap<&str, Vec<u32>> = Default::default();
                for r in 0..table.rows() {
                    rows_of
                        .entry(table.value(r, dk))
                        .or_default()
                        .push(r as u32);
                }
                let mut members = Vec::with_capacity(listed.rows());
                for r in 0..listed.rows() {
                    let k = listed.value(r, lk);
                    let at = Location::at(listed.source(), listed.line(r), Some(lk as u64 + 1));
                    match rows_of.get(k).map(Vec::as_slice) {
                        Some(&[row]) => members.push(row),
                        Some(rows) if rows.len() > 1 => {
                            return Err(Error::data(
                                at,
                                format!(
                                    "key `{}` names {} rows of {} (column `{key}`): keys must \
                                     name one row each",
                                    excerpt(k),
                                    rows.len(),
                                    table.source().display()
                                ),
                            ))
                        }
                        _ => {
                            return Err(Error::data(
                                at,
                                format!(
                                    "key `{}` names no row of {} (column `{key}`)",
                                    excerpt(k),
                                    table.source().display()
                                ),
                            ))
                        }
                    }
                }
                members.sort_unstable();
                if let Some(w) = members.windows(2).find(|w| w[0] == w[1]) {
                    let r = w[0] as usize;
                    return Err(Error::config(
                        &file,
                        "input.subset.file",
                        format!(
                            "key `{}` is listed twice in {}",
                            excerpt(table.value(r, dk)),
                            path.display()
                        ),
                    ));
                }
                Ok(members)
            }
            _ => Err(Error::config(
                &file,
                "input.subset",
                "give either `column` (a flag column) or both `file` and `key`",
            )),
        }
    }
}

/// What a reader needs when a configured column is not in `header`: the header as read,
/// and, when it is one column holding another usual delimiter, that delimiter.
fn header_hint(header: &[String], delimiter: &str) -> String {
    let shown: Vec<String> = header
        .iter()
        .take(12)
        .map(|h| format!("`{}`", crate::error::excerpt(h)))
        .collect();
    let more = if header.len() > 12 { ", ..." } else { "" };
    let mut hint = format!(
        " (it has {} column{}: {}{more})",
        header.len(),
        if header.len() == 1 { "" } else { "s" },
        shown.join(", ")
    );
    if let [only] = header {
        // (what to call it, the byte, how TOML writes it)
        let usual = [
            (",", ",", ","),
            (";", ";", ";"),
            ("a tab", "\t", "\\t"),
            ("|", "|", "|"),
        ];
        if let Some((name, _, toml)) = usual
            .iter()
            .find(|(_, d, _)| *d != delimiter && only.contains(d))
        {
            hint.push_str(&format!(
                "; the header holds {name}: is the file delimited by it? set [input] \
                 delimiter = \"{toml}\""
            ));
        }
    }
    hint
}
