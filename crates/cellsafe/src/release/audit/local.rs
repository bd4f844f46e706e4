//! The audit of a local recoding, from the written file and the input.
//!
//! Besides the models (checked as in [`audit_table`] twice: on the groups a recipient sees
//! by their visible values, where groups shown alike merge, and on each group id's rows),
//! it checks what only the input can tell: the file has exactly the input's
//! non-identifying columns and the group id; every cell outside the quasi-identifiers is
//! the input's; every row of a group shows the same values; and every shown value covers
//! the row's input value (the value itself, an interval `[lo,hi]` around it, a set `{…}`
//! holding it, or a hierarchy node above it).

use rustc_hash::FxHashMap;

use super::{audit_table, Audit, Expected};
use crate::criteria::ModelSpec;
use crate::data::number;
use std::path::Path;

use crate::data::table::{CsvFormat, Table};
use crate::error::Result;
use crate::hierarchy::Hierarchy;

/// What a local release is checked against.
#[derive(Debug, Clone, Copy)]
pub struct LocalExpected<'a> {
    /// Quasi-identifier column names, with their hierarchies.
    pub quasi: &'a [(String, &'a Hierarchy)],
    /// Identifying column names (absent from the release).
    pub identifying: &'a [String],
    /// The privacy models.
    pub models: &'a [ModelSpec],
    /// The input table.
    pub original: &'a Table,
    /// The input row of each released row, in file order.
    pub rows: &'a [usize],
    /// Name of the group id column.
    pub gid: &'a str,
}

/// Audits the local release at `path` (written as `format`) against `expected`.
pub fn audit_local(path: &Path, format: &CsvFormat, expected: &LocalExpected) -> Result<Audit> {
    audit_local_table(&Table::read_csv(path, format)?, expected)
}

/// Audits a local release as read back from what was written.
pub(crate) fn audit_local_table(released: &Table, expected: &LocalExpected) -> Result<Audit> {
    let quasi: Vec<String> = expected.quasi.iter().map(|(n, _)| n.clone()).collect();
    let base = Expected {
        quasi: &quasi,
        models: expected.models,
        original: expected.original,
        safety: None,
        rows: expected.rows,
        public: &[],
        presence: None,
    };
    let mut with_gid = quasi.clone();
    with_gid.push(expected.gid.to_owned());
    let by_gid = Expected {
        quasi: &with_gid,
        ..base
    };
    // three independent checks, in parallel
    let ((shown, by_group), cells) = rayon::join(
        || {
            rayon::join(
                || audit_table(super::ReadBack::whole(released), &base),
                || audit_table(super::ReadBack::whole(released), &by_gid),
            )
        },
        || cells(released, expected),
    );
    let (mut shown, by_group) = (shown?, by_group?);
    let mut violations = std::mem::take(&mut shown.violations);
    violations.extend(by_group.violations);
    violations.extend(cells);
    violations.truncate(super::MAX_VIOLATIONS);
    shown.unchecked.extend(by_group.unchecked);
    shown.unchecked.sort();
    shown.unchecked.dedup();
    shown.passed = violations.is_empty();
    shown.violations = violations;
    Ok(shown)
}

/// The violations in the file's columns and cells (see the module docs), at most
/// [`MAX_VIOLATIONS`](super::MAX_VIOLATIONS).
fn cells(released: &Table, expected: &LocalExpected) -> Vec<String> {
    let mut violations = Vec::new();
    let mut violate = |v: String| {
        if violations.len() < super::MAX_VIOLATIONS {
            violations.push(v);
        }
    };
    // the columns: the input's but the identifying ones, then the group id
    let original = expected.original;
    let want: Vec<&str> = original
        .header()
        .iter()
        .filter(|h| !expected.identifying.contains(h))
        .map(String::as_str)
        .chain(std::iter::once(expected.gid))
        .collect();
    let header: Vec<&str> = released.header().iter().map(String::as_str).collect();
    if header != want {
        violate(format!("the columns are {header:?}, expected {want:?}"));
    } else if released.rows() == expected.rows.len() {
        let gid = header.len() - 1;
        // per released column: its input column and, for a quasi-identifier, its hierarchy
        let columns: Vec<(usize, Option<&Hierarchy>)> = header[..gid]
            .iter()
            .map(|name| {
                let oc = original.column_index(name).expect("a column of the input");
                let h = expected
                    .quasi
                    .iter()
                    .find(|(n, _)| n == name)
                    .map(|(_, h)| *h);
                (oc, h)
            })
            .collect();
        let qi: Vec<usize> = (0..gid).filter(|&c| columns[c].1.is_some()).collect();
        // each distinct (shown, input) pair of a column is judged once
        let mut judged: Vec<FxHashMap<(u32, u32), bool>> = vec![FxHashMap::default(); gid];
        let mut group_shows: FxHashMap<u32, Vec<u32>> = FxHashMap::default();
        for (i, &input) in expected.rows.iter().enumerate() {
            for (c, &(oc, h)) in columns.iter().enumerate() {
                let pair = (released.codes(c)[i], original.codes(oc)[input]);
                let ok = *judged[c].entry(pair).or_insert_with(|| {
                    let (cell, value) = (released.value(i, c), original.value(input, oc));
                    match h {
                        Some(h) => covers(cell, value, h),
                        None => cell == value,
                    }
                });
                if !ok {
                    let (cell, value) = (released.value(i, c), original.value(input, oc));
                    let name = header[c];
                    violate(match h {
                        Some(_) => format!(
                            "row {} shows `{cell}` for {name} = `{value}`, which it does not \
                             cover",
                            i + 1
                        ),
                        None => format!(
                            "row {} shows `{cell}` for {name}, the input has `{value}`",
                            i + 1
                        ),
                    });
                }
            }
            let g = released.codes(gid)[i];
            let shows = group_shows
                .entry(g)
                .or_insert_with(|| qi.iter().map(|&c| released.codes(c)[i]).collect());
            if qi
                .iter()
                .zip(shows.iter())
                .any(|(&c, &s)| released.codes(c)[i] != s)
            {
                violate(format!(
                    "group {} does not show the same values on every row (row {})",
                    released.value(i, gid),
                    i + 1
                ));
            }
        }
    }
    violations
}

/// Whether the shown cell `cell` covers the input value `value` (see the module docs).
pub(super) fn covers(cell: &str, value: &str, hierarchy: &Hierarchy) -> bool {
    if cell == value {
        return true;
    }
    if let Some(inner) = cell.strip_prefix('[').and_then(|c| c.strip_suffix(']')) {
        if let (Some((lo, hi)), Some(v)) = (inner.split_once(','), number::parse(value)) {
            if let (Some(lo), Some(hi)) = (number::parse(lo), number::parse(hi)) {
                return lo <= v && v <= hi;
            }
        }
    }
    if let Some(inner) = cell.strip_prefix('{').and_then(|c| c.strip_suffix('}')) {
        if set_elements(inner).iter().any(|e| e == value) {
            return true;
        }
    }
    hierarchy.leaf(value).is_some_and(|leaf| {
        (1..hierarchy.levels())
            .any(|level| hierarchy.label(level, hierarchy.code(level, leaf)) == cell)
    })
}

/// The elements of a set's inside `a,b\,c` (a backslash escapes the next character).
fn set_elements(inner: &str) -> Vec<String> {
    let mut out = vec![String::new()];
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                if let Some(next) = chars.next() {
                    out.last_mut().expect("never empty").push(next);
                }
            }
            ',' => out.push(String::new()),
            c => out.last_mut().expect("never empty").push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::set_elements;

    #[test]
    fn set_elements_unescape() {
        assert_eq!(set_elements("a,b"), ["a", "b"]);
        assert_eq!(set_elements(r"a\,b,c\\,\{d\}"), ["a,b", r"c\", "{d}"]);
    }
}
