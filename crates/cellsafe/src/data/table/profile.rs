//! What a table's columns hold, for a person choosing their roles: each column's kind of
//! values, its distinct values with their counts, and the most common ones. The workbench
//! (`cellsafe studio`) shows it when a table is loaded.

use super::Table;
use crate::data::number;

/// The kind of values a column holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValueKind {
    /// Every value is a whole number.
    Integer,
    /// Every value is a number, some not whole.
    Decimal,
    /// Anything else.
    Text,
}

impl ValueKind {
    /// The kind as a word (`integer`, `decimal`, `text`).
    pub fn name(self) -> &'static str {
        match self {
            ValueKind::Integer => "integer",
            ValueKind::Decimal => "decimal",
            ValueKind::Text => "text",
        }
    }
}

/// One column's profile.
#[derive(Debug, Clone)]
pub struct ColumnProfile {
    /// The column's name.
    pub name: String,
    /// The kind of its values, ignoring empty cells and the `missing` markers given.
    pub kind: ValueKind,
    /// The type the source declared (Parquet, Arrow, a database), when it declared one.
    pub declared: Option<String>,
    /// Distinct values.
    pub distinct: usize,
    /// The most common values with their rows, most common first (ties by value).
    pub top: Vec<(String, u64)>,
}

impl Table {
    /// Each distinct value of `column` with its number of rows, in order of first
    /// appearance.
    pub fn value_counts(&self, column: usize) -> Vec<(&str, u64)> {
        let dictionary = self.dictionary(column);
        let mut counts = vec![0u64; dictionary.len()];
        for &code in self.codes(column) {
            counts[code as usize] += 1;
        }
        counts
            .into_iter()
            .enumerate()
            .map(|(code, n)| (dictionary.value(code as u32), n))
            .collect()
    }

    /// The profile of every column, each with its `top` most common values; values in
    /// `missing` (and empty cells) do not decide a column's kind.
    pub fn profile(&self, top: usize, missing: &[String]) -> Vec<ColumnProfile> {
        (0..self.header().len())
            .map(|column| {
                let counts = self.value_counts(column);
                let present = counts
                    .iter()
                    .map(|&(v, _)| v)
                    .filter(|v| !v.is_empty() && !missing.iter().any(|m| m == v));
                let kind = kind_of(present);
                let mut sorted = counts.clone();
                sorted.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
                sorted.truncate(top);
                ColumnProfile {
                    name: self.header()[column].clone(),
                    kind,
                    declared: self.declared_type(column),
                    distinct: counts.len(),
                    top: sorted.into_iter().map(|(v, n)| (v.to_owned(), n)).collect(),
                }
            })
            .collect()
    }

    /// The type a typed source declared for `column`.
    fn declared_type(&self, column: usize) -> Option<String> {
        let name = &self.header()[column];
        if let Some(t) = self.sql_type(name) {
            return Some(t.sql().to_owned());
        }
        #[cfg(feature = "arrow")]
        if let Some(schema) = self.source_schema() {
            return schema
                .arrow()
                .field_with_name(name)
                .ok()
                .map(|f| f.data_type().to_string());
        }
        None
    }
}

/// The kind of `values` (all of them numbers, all whole, or not): `Text` when there are
/// none.
fn kind_of<'a>(values: impl Iterator<Item = &'a str>) -> ValueKind {
    let mut kind = None;
    for v in values {
        match number::parse(v) {
            None => return ValueKind::Text,
            Some(x) if x.fract() == 0.0 && !v.contains(['.', 'e', 'E']) => {
                kind.get_or_insert(ValueKind::Integer);
            }
            Some(_) => kind = Some(ValueKind::Decimal),
        }
    }
    kind.unwrap_or(ValueKind::Text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_kinds_and_common_values() {
        let header = ["age", "zip", "x"].map(String::from).to_vec();
        let rows: Vec<Vec<String>> = [
            ["30", "13053", "?"],
            ["31", "13053", "a"],
            ["30", "1.5", "b"],
            ["", "13068", "?"],
        ]
        .iter()
        .map(|r| r.iter().map(|s| s.to_string()).collect())
        .collect();
        let table = Table::from_rows(header, &rows).unwrap();
        assert_eq!(table.value_counts(0), vec![("30", 2), ("31", 1), ("", 1)]);
        let p = table.profile(2, &["?".to_owned()]);
        assert_eq!(p[0].kind, ValueKind::Integer);
        assert_eq!(p[1].kind, ValueKind::Decimal);
        assert_eq!(p[2].kind, ValueKind::Text);
        assert_eq!(p[0].distinct, 3);
        assert_eq!(p[0].top, vec![("30".to_owned(), 2), ("".to_owned(), 1)]);
        assert_eq!(p[2].top[0], ("?".to_owned(), 2));
        assert_eq!(p[0].declared, None);
    }
}
