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
    };
    let mut shown = audit_table(released, &base)?;
    let mut with_gid = quasi.clone();
    with_gid.push(expected.gid.to_owned());
    let by_group = audit_table(
        released,
        &Expected {
            quasi: &with_gid,
            ..base
        },
    )?;
    let mut violations = std::mem::take(&mut shown.violations);
    violations.extend(by_group.violations);
    shown.unchecked.extend(by_group.unchecked);
    shown.unchecked.sort();
    shown.unchecked.dedup();
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
        let mut group_shows: FxHashMap<&str, Vec<&str>> = FxHashMap::default();
        for (i, &input) in expected.rows.iter().enumerate() {
            let shows: Vec<&str> = (0..gid).map(|c| released.value(i, c)).collect();
            for (c, name) in header[..gid].iter().enumerate() {
                let oc = original.column_index(name).expect("a column of the input");
                let value = original.value(input, oc);
                let cell = shows[c];
                match expected.quasi.iter().find(|(n, _)| n == name) {
                    Some((_, h)) if !covers(cell, value, h) => violate(format!(
                        "row {} shows `{cell}` for {name} = `{value}`, which it does not cover",
                        i + 1
                    )),
                    Some(_) => {}
                    None if cell != value => violate(format!(
                        "row {} shows `{cell}` for {name}, the input has `{value}`",
                        i + 1
                    )),
                    None => {}
                }
            }
            let qi_cells: Vec<&str> = header[..gid]
                .iter()
                .zip(&shows)
                .filter(|(n, _)| expected.quasi.iter().any(|(q, _)| q == *n))
                .map(|(_, c)| *c)
                .collect();
            let g = released.value(i, gid);
            match group_shows.get(g) {
                Some(first) if *first != qi_cells => violate(format!(
                    "group {g} shows {first:?} on one row and {qi_cells:?} on row {}",
                    i + 1
                )),
                Some(_) => {}
                None => {
                    group_shows.insert(g, qi_cells);
                }
            }
        }
    }
    shown.passed = violations.is_empty();
    shown.violations = violations;
    Ok(shown)
}

/// Whether the shown cell `cell` covers the input value `value` (see the module docs).
fn covers(cell: &str, value: &str, hierarchy: &Hierarchy) -> bool {
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
