//! Building hierarchies: the config's description ([`HierarchySpec`]: a file or a
//! [`Builder`]) and the builders for common kinds (numeric intervals, masking, dates,
//! explicit groups, suppression, and admissible partitions that need not form a chain).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use rustc_hash::FxHashMap;

use serde::Deserialize;

use super::date::{date_fields, date_parts, date_rows};
use super::{Hierarchy, MAX_LEVELS, MAX_MASK_CHARS};
use crate::data::number;
use crate::data::table::Table;
use crate::error::{excerpt, Error, Location, Result};

/// A hierarchy as written in the configuration: a file, or a builder.
#[derive(Debug, Clone)]
pub enum HierarchySpec {
    /// Path of an ARX hierarchy CSV file (`;`-separated), relative to the config file.
    File(PathBuf),
    /// A hierarchy built from the column's values.
    Builder(Builder),
}

/// A string is a file; a table is a builder, whose own error says what is wrong in it (an
/// untagged enum would only say that neither fits).
impl<'de> Deserialize<'de> for HierarchySpec {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct Spec;
        impl<'de> serde::de::Visitor<'de> for Spec {
            type Value = HierarchySpec;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("the path of an ARX hierarchy file, or a table with a `kind`")
            }
            fn visit_str<E: serde::de::Error>(
                self,
                v: &str,
            ) -> std::result::Result<Self::Value, E> {
                Ok(HierarchySpec::File(PathBuf::from(v)))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                map: A,
            ) -> std::result::Result<Self::Value, A::Error> {
                Builder::deserialize(serde::de::value::MapAccessDeserializer::new(map))
                    .map(HierarchySpec::Builder)
            }
        }
        d.deserialize_any(Spec)
    }
}

/// Builders for common hierarchies. The leaves are the distinct values of the column.
#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Builder {
    /// Numeric intervals `[lo, lo+w)` aligned on multiples of `w`, one level per width;
    /// widths must nest (each divides the next). A final `*` level is added.
    Intervals {
        /// Interval width of each level, increasing.
        widths: Vec<f64>,
    },
    /// Masks characters from the right, one per level (24126 → 2412* → ... → *****).
    Mask {},
    /// Dates: day → month → year → `*`. `format` uses `%d`, `%m`, `%y` / `%Y`.
    Date {
        /// How the column writes dates, e.g. `%d/%m/%Y`.
        format: String,
    },
    /// Explicit groupings: each level maps a label to the labels of the level below it.
    /// A final `*` level is added when the last level has more than one group.
    Groups {
        /// Per level, bottom up: group label → the labels (or values) it groups.
        levels: Vec<BTreeMap<String, Vec<String>>>,
    },
    /// A single level `*` above the values: the attribute can only be kept or suppressed.
    Suppress {},
    /// Admissible partitions that need not form a chain (paper 000): partition name →
    /// group label → the values in the group. The values themselves and `*` are added.
    Partitions {
        /// Partition name → group label → the values in the group.
        partitions: BTreeMap<String, BTreeMap<String, Vec<String>>>,
    },
}

impl Builder {
    /// Numeric intervals of the given nested widths, then `*`.
    pub fn intervals(widths: &[f64]) -> Builder {
        Builder::Intervals {
            widths: widths.to_vec(),
        }
    }
    /// Characters masked from the right, one per level.
    pub fn mask() -> Builder {
        Builder::Mask {}
    }
    /// Dates in `format` (`%d`, `%m`, `%y`/`%Y`): day, month, year, `*`.
    pub fn date(format: &str) -> Builder {
        Builder::Date {
            format: format.to_owned(),
        }
    }
    /// Kept or suppressed: one level `*` above the values.
    pub fn suppress() -> Builder {
        Builder::Suppress {}
    }

    /// Builds the hierarchy for `values`; `key` names the config entry in errors.
    pub(crate) fn build(&self, values: &[String], file: &str, key: &str) -> Result<Hierarchy> {
        if values.is_empty() {
            return Err(Error::config(
                file,
                key,
                "the column has no values to build a hierarchy from",
            ));
        }
        let (levels, what) = match self {
            Builder::Intervals { widths } => (widths.len(), "widths"),
            Builder::Groups { levels } => (levels.len(), "levels"),
            Builder::Partitions { partitions } => (partitions.len(), "partitions"),
            _ => (0, ""),
        };
        if levels + 2 > MAX_LEVELS {
            return Err(Error::config(
                file,
                format!("{key}.{what}"),
                format!("{levels} levels, at most {} are allowed", MAX_LEVELS - 2),
            ));
        }
        if let Builder::Partitions { partitions } = self {
            return partition_hierarchy(values, partitions, file, key);
        }
        let rows: Vec<Vec<String>> = match self {
            Builder::Partitions { .. } => unreachable!("handled above"),
            Builder::Intervals { widths } => interval_rows(values, widths, file, key)?,
            Builder::Mask {} => mask_rows(values, file, key)?,
            Builder::Date { format } => date_rows(values, format, file, key)?,
            Builder::Groups { levels } => group_rows(values, levels, file, key)?,
            Builder::Suppress {} => values.iter().map(|v| vec![v.clone(), "*".into()]).collect(),
        };
        if rows.is_empty() {
            return Err(Error::config(
                file,
                key,
                "the column has no values to build a hierarchy from",
            ));
        }
        let source = PathBuf::from(format!("{file} ({key})"));
        Hierarchy::from_rows(&rows, &source, None)
    }
}

impl Builder {
    /// Checks that the builder can place every value of `table`'s column `column` but
    /// those in `skip` (missing-value markers); a bad value is named by its line and
    /// column, with `what` (the config key or the builder's name) in the message.
    pub(crate) fn check_column(
        &self,
        table: &Table,
        column: usize,
        skip: &[String],
        what: &str,
    ) -> Result<()> {
        let dictionary = table.dictionary(column);
        for (code, value) in dictionary.values().iter().enumerate() {
            if skip.contains(value) {
                continue;
            }
            if let Err(e) = self.check_value(value) {
                return Err(Error::data(
                    Location::at(
                        table.source(),
                        dictionary.first_line(code as u32),
                        Some(column as u64 + 1),
                    ),
                    format!("{e} ({what})"),
                ));
            }
        }
        Ok(())
    }

    /// Whether the builder can place `value`: a date builder needs a calendar date in its
    /// format, an interval builder a number. Front ends check each value with this first
    /// to name the line and column of a bad one; [`Builder::build`] refuses it too.
    pub(crate) fn check_value(&self, value: &str) -> std::result::Result<(), String> {
        match self {
            Builder::Date { format } => match date_fields(format) {
                // a bad format is the config key's error, reported by `build`
                Err(_) => Ok(()),
                Ok((fields, _)) => date_parts(value, &fields).map(|_| ()).map_err(|e| {
                    if e.ends_with("format") {
                        format!("{e} `{format}`")
                    } else {
                        e
                    }
                }),
            },
            Builder::Intervals { .. } => match number::parse(value) {
                Some(_) => Ok(()),
                None => Err(format!(
                    "value `{}` is not a finite number, so interval levels cannot be built",
                    excerpt(value)
                )),
            },
            _ => Ok(()),
        }
    }
}

/// Adds a final `*` level when `always`, or when the last level has more than one group.
pub(super) fn with_top(mut rows: Vec<Vec<String>>, always: bool) -> Vec<Vec<String>> {
    let last = rows[0].len() - 1;
    if always || rows.iter().any(|r| r[last] != rows[0][last]) {
        for r in &mut rows {
            r.push("*".into());
        }
    }
    rows
}

fn format_number(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        format!("{}", x as i64)
    } else {
        format!("{x}")
    }
}

fn interval_rows(
    values: &[String],
    widths: &[f64],
    file: &str,
    key: &str,
) -> Result<Vec<Vec<String>>> {
    for (i, &w) in widths.iter().enumerate() {
        if !(w.is_finite() && w > 0.0) {
            return Err(Error::config(
                file,
                format!("{key}.widths[{i}]"),
                "width must be a positive number",
            ));
        }
        if i > 0 {
            let ratio = w / widths[i - 1];
            if ratio < 1.0 || (ratio - ratio.round()).abs() > 1e-9 {
                return Err(Error::config(
                    file,
                    format!("{key}.widths[{i}]"),
                    format!(
                        "width {w} is not a multiple of the previous width {}",
                        widths[i - 1]
                    ),
                ));
            }
        }
    }
    let mut rows = Vec::with_capacity(values.len());
    for v in values {
        let x = number::parse(v).ok_or_else(|| {
            Error::config(
                file,
                key,
                format!(
                    "value `{}` is not a finite number, so interval levels cannot be built",
                    excerpt(v)
                ),
            )
        })?;
        let mut row = vec![v.clone()];
        for &w in widths {
            let lo = (x / w).floor() * w;
            row.push(format!("[{},{})", format_number(lo), format_number(lo + w)));
        }
        rows.push(row);
    }
    Ok(with_top(rows, true))
}

fn mask_rows(values: &[String], file: &str, key: &str) -> Result<Vec<Vec<String>>> {
    if let Some(v) = values
        .iter()
        .find(|v| v.chars().nth(MAX_MASK_CHARS).is_some())
    {
        return Err(Error::config(
            file,
            key,
            format!(
                "value `{}` is longer than {MAX_MASK_CHARS} characters, the most a mask \
                 hierarchy masks",
                excerpt(v)
            ),
        ));
    }
    let max_len = values.iter().map(|v| v.chars().count()).max().unwrap_or(0);
    let rows = values
        .iter()
        .map(|v| {
            let chars: Vec<char> = v.chars().collect();
            let mut row = vec![v.clone()];
            for masked in 1..=max_len {
                let keep = chars.len().saturating_sub(masked);
                let mut s: String = chars[..keep].iter().collect();
                s.extend(std::iter::repeat_n('*', chars.len() - keep));
                row.push(s);
            }
            row
        })
        .collect();
    Ok(with_top(rows, false))
}

fn group_rows(
    values: &[String],
    levels: &[BTreeMap<String, Vec<String>>],
    file: &str,
    key: &str,
) -> Result<Vec<Vec<String>>> {
    let mut rows: Vec<Vec<String>> = values.iter().map(|v| vec![v.clone()]).collect();
    for (l, groups) in levels.iter().enumerate() {
        let parent = group_of(groups, file, &format!("{key}.levels[{l}]"))?;
        for row in &mut rows {
            let below = row.last().expect("non-empty row").clone();
            let label = parent.get(below.as_str()).ok_or_else(|| {
                Error::config(
                    file,
                    format!("{key}.levels[{l}]"),
                    format!("no group contains `{}`", excerpt(&below)),
                )
            })?;
            row.push((*label).to_owned());
        }
    }
    Ok(with_top(rows, false))
}

/// Each member's group label, from `label → members`; a member in two groups is an error
/// at config key `at`.
fn group_of<'g>(
    groups: &'g BTreeMap<String, Vec<String>>,
    file: &str,
    at: &str,
) -> Result<FxHashMap<&'g str, &'g str>> {
    let mut group_of: FxHashMap<&str, &str> = FxHashMap::default();
    for (label, members) in groups {
        for m in members {
            if let Some(other) = group_of.insert(m, label) {
                return Err(Error::config(
                    file,
                    at,
                    format!(
                        "`{}` is in both groups `{}` and `{}`",
                        excerpt(m),
                        excerpt(other),
                        excerpt(label)
                    ),
                ));
            }
        }
    }
    Ok(group_of)
}

fn partition_hierarchy(
    values: &[String],
    partitions: &BTreeMap<String, BTreeMap<String, Vec<String>>>,
    file: &str,
    key: &str,
) -> Result<Hierarchy> {
    let mut rows: Vec<Vec<String>> = values.iter().map(|v| vec![v.clone()]).collect();
    let mut names = Vec::with_capacity(partitions.len());
    for (name, groups) in partitions {
        let at = format!("{key}.partitions.{name}");
        let group_of = group_of(groups, file, &at)?;
        for row in &mut rows {
            let label = group_of.get(row[0].as_str()).ok_or_else(|| {
                Error::config(
                    file,
                    &at,
                    format!("no group contains `{}`", excerpt(&row[0])),
                )
            })?;
            row.push((*label).to_owned());
        }
        names.push(name.clone());
    }
    Hierarchy::from_partitions(&rows, &names, Path::new(file)).map_err(|e| match e {
        Error::Data { message, .. } => Error::config(file, format!("{key}.partitions"), message),
        other => other,
    })
}
