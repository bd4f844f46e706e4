//! The audit of an LGB release, from the written tables, the input and its flags.
//!
//! It checks Corollary 3 on what was written, with none of the algorithm's code: the main
//! table has the expected columns (no identifying or flag column, no value column for a
//! sensitive attribute); no row shows a value its person flagged sensitive; every other
//! cell is the input's or, for a quasi-identifying cell, covers it; every group id's rows
//! show the same values and are at least k, and so is every set of rows shown alike; and
//! each bucket table lists, per bucket, exactly the values of the rows pointing to it, in
//! value order (not row order), and that the bucket's sensitive values (its flagged
//! cells, or all of a sensitive attribute's: cells moved there by a merge hold values the
//! recipient may know) are at least l, all different, or within t of the whole column's
//! distribution.

use std::collections::HashMap;

use rustc_hash::FxHashMap;

use super::local::covers;
use super::Audit;
use crate::algorithm::lgb::Protection;
use crate::data::number;
use crate::data::table::Table;
use crate::data::Role;
use crate::error::Result;
use crate::hierarchy::Hierarchy;

/// One input column as the audit sees it.
#[derive(Debug, Clone, Copy)]
pub struct LgbColumn<'a> {
    /// Its role (flag columns: identifying).
    pub role: Role,
    /// Its hierarchy (quasi-identifying and semi-sensitive columns).
    pub hierarchy: Option<&'a Hierarchy>,
    /// Per input row, whether the cell is flagged sensitive (semi-sensitive columns).
    pub flags: Option<&'a [bool]>,
    /// Its protection (semi-sensitive and sensitive columns).
    pub protection: Option<Protection>,
}

/// What an LGB release is checked against.
#[derive(Debug, Clone, Copy)]
pub struct LgbExpected<'a> {
    /// The input.
    pub original: &'a Table,
    /// One entry per input column.
    pub columns: &'a [LgbColumn<'a>],
    /// The input row of each main-table row, in file order.
    pub rows: &'a [usize],
    /// Rows per local group, at least.
    pub k: usize,
}

/// `name`, or with leading underscores until it is no input column.
fn fresh(name: String, taken: &[String]) -> String {
    let mut name = name;
    while taken.contains(&name) {
        name.insert(0, '_');
    }
    name
}

/// Audits the main table `main` and the bucket tables `buckets` (attribute name, table).
pub fn audit_lgb_tables(
    main: &Table,
    buckets: &[(String, &Table)],
    expected: &LgbExpected,
) -> Result<Audit> {
    let mut violations = Vec::new();
    let mut violate = |v: String| {
        if violations.len() < super::MAX_VIOLATIONS {
            violations.push(v);
        }
    };
    let original = expected.original;
    let input = original.header();
    // the expected columns: (input column, shows a value, shows a bucket id)
    let mut want: Vec<String> = Vec::new();
    let mut layout: Vec<(usize, bool)> = Vec::new();
    for (c, col) in expected.columns.iter().enumerate() {
        match col.role {
            Role::Identifying => {}
            Role::SemiSensitive => {
                want.push(input[c].clone());
                layout.push((c, false));
                want.push(fresh(format!("{}.bid", input[c]), input));
                layout.push((c, true));
            }
            Role::Sensitive => {
                want.push(fresh(format!("{}.bid", input[c]), input));
                layout.push((c, true));
            }
            _ => {
                want.push(input[c].clone());
                layout.push((c, false));
            }
        }
    }
    want.push(fresh("gid".into(), input));
    if main.header() != want.as_slice() {
        violate(format!(
            "the main table's columns are {:?}, expected {want:?}",
            main.header()
        ));
        return Ok(finish(violations, 0));
    }
    if main.rows() != expected.rows.len() {
        violate(format!(
            "the main table has {} rows, the mapping {}",
            main.rows(),
            expected.rows.len()
        ));
        return Ok(finish(violations, 0));
    }
    let gid = want.len() - 1;
    // the value columns a recipient links with
    let shown_cols: Vec<usize> = layout
        .iter()
        .enumerate()
        .filter(|(_, (c, bid))| {
            !bid && matches!(
                expected.columns[*c].role,
                Role::QuasiIdentifying | Role::SemiSensitive
            )
        })
        .map(|(i, _)| i)
        .collect();
    let mut groups: FxHashMap<&str, (Vec<&str>, usize)> = FxHashMap::default();
    let mut alike: FxHashMap<Vec<&str>, usize> = FxHashMap::default();
    // per input column with buckets: bid → the input values of the rows pointing to it
    let mut pointed: HashMap<usize, FxHashMap<&str, Vec<&str>>> = HashMap::new();
    // the same for the rows whose cell is sensitive (flagged, or a sensitive attribute's):
    // only those values are unknown to the recipient, so only they count towards l and t
    let mut secret: HashMap<usize, FxHashMap<&str, Vec<&str>>> = HashMap::new();
    for (i, &r) in expected.rows.iter().enumerate() {
        for (out, &(c, is_bid)) in layout.iter().enumerate() {
            let col = &expected.columns[c];
            let cell = main.value(i, out);
            let value = original.value(r, c);
            let flagged = col.flags.is_some_and(|f| f[r]);
            if is_bid {
                if !cell.is_empty() {
                    pointed
                        .entry(c)
                        .or_default()
                        .entry(cell)
                        .or_default()
                        .push(value);
                    if flagged || col.role == Role::Sensitive {
                        secret
                            .entry(c)
                            .or_default()
                            .entry(cell)
                            .or_default()
                            .push(value);
                    }
                }
                let shown = col.role == Role::SemiSensitive && !main.value(i, out - 1).is_empty();
                if cell.is_empty() == shown {
                    continue;
                }
                violate(format!(
                    "row {}: `{}` shows {}",
                    i + 1,
                    input[c],
                    if shown {
                        "both a value and a bucket"
                    } else {
                        "neither a value nor a bucket"
                    }
                ));
                continue;
            }
            match col.role {
                Role::SemiSensitive if cell.is_empty() => {}
                Role::SemiSensitive if flagged => violate(format!(
                    "row {} shows `{}` for {}, which its person flagged sensitive",
                    i + 1,
                    cell,
                    input[c]
                )),
                Role::QuasiIdentifying | Role::SemiSensitive => {
                    let h = col.hierarchy.expect("a hierarchy");
                    if !covers(cell, value, h) {
                        violate(format!(
                            "row {} shows `{cell}` for {} = `{value}`, which it does not cover",
                            i + 1,
                            input[c]
                        ));
                    }
                }
                _ if cell != value => violate(format!(
                    "row {} shows `{cell}` for {}, the input has `{value}`",
                    i + 1,
                    input[c]
                )),
                _ => {}
            }
        }
        let shows: Vec<&str> = shown_cols.iter().map(|&o| main.value(i, o)).collect();
        let entry = groups
            .entry(main.value(i, gid))
            .or_insert_with(|| (shows.clone(), 0));
        if entry.0 != shows {
            violate(format!(
                "group {} shows {:?} and {shows:?}",
                main.value(i, gid),
                entry.0
            ));
        }
        entry.1 += 1;
        *alike.entry(shows).or_default() += 1;
    }
    for (g, (_, n)) in &groups {
        if *n < expected.k {
            violate(format!(
                "group {g} has {n} rows, fewer than k = {}",
                expected.k
            ));
        }
    }
    for (shows, n) in &alike {
        if *n < expected.k {
            violate(format!(
                "{n} rows show {shows:?}, fewer than k = {}",
                expected.k
            ));
        }
    }
    // the bucket tables
    for (c, col) in expected.columns.iter().enumerate() {
        let Some(protection) = col.protection else {
            continue;
        };
        let name = &input[c];
        let Some((_, table)) = buckets.iter().find(|(n, _)| n == name) else {
            violate(format!("no bucket table for `{name}`"));
            continue;
        };
        if table.header() != ["bid".to_string(), name.clone()].as_slice() {
            violate(format!(
                "the bucket table of `{name}` has columns {:?}",
                table.header()
            ));
            continue;
        }
        let mut listed: Vec<(&str, Vec<&str>)> = Vec::new();
        for row in 0..table.rows() {
            let (bid, value) = (table.value(row, 0), table.value(row, 1));
            match listed.last_mut() {
                Some((b, values)) if *b == bid => values.push(value),
                _ => listed.push((bid, vec![value])),
            }
        }
        // value order and the reference distribution: the whole input column's
        let column: Vec<&str> = (0..original.rows()).map(|r| original.value(r, c)).collect();
        let numeric = column.iter().all(|v| number::parse(v).is_some());
        let order = |a: &&str, b: &&str| {
            if numeric {
                number::parse(a)
                    .unwrap_or(0.0)
                    .total_cmp(&number::parse(b).unwrap_or(0.0))
                    .then_with(|| a.cmp(b))
            } else {
                a.cmp(b)
            }
        };
        let mut distribution: Vec<(&str, f64)> = Vec::new();
        {
            let mut sorted = column.clone();
            sorted.sort_by(order);
            for v in sorted {
                match distribution.last_mut() {
                    Some((x, n)) if *x == v => *n += 1.0,
                    _ => distribution.push((v, 1.0)),
                }
            }
            for (_, n) in &mut distribution {
                *n /= column.len().max(1) as f64;
            }
        }
        let mut unknown = secret.remove(&c).unwrap_or_default();
        let mut from_rows = pointed.remove(&c).unwrap_or_default();
        let mut seen = std::collections::HashSet::new();
        for (bid, values) in &listed {
            if !seen.insert(*bid) {
                violate(format!("bucket {bid} of `{name}` is listed in two places"));
            }
            if values.windows(2).any(|w| order(&w[0], &w[1]).is_gt()) {
                violate(format!("bucket {bid} of `{name}` is not in value order"));
            }
            let mut rows_values = from_rows.remove(bid).unwrap_or_default();
            let mut mine = values.clone();
            rows_values.sort_by(order);
            mine.sort_by(order);
            if rows_values != mine {
                violate(format!(
                    "bucket {bid} of `{name}` lists {} values, its rows hold {} others",
                    values.len(),
                    rows_values.len()
                ));
            }
            // what the recipient does not know: the sensitive cells' values
            let mut values = unknown.remove(bid).unwrap_or_default();
            values.sort_by(order);
            if values.is_empty() {
                continue;
            }
            match protection {
                Protection::Diversity { l } => {
                    let mut distinct = values.clone();
                    distinct.dedup();
                    if values.len() < l || distinct.len() != values.len() {
                        violate(format!(
                            "bucket {bid} of `{name}` has {} sensitive values, {} different: \
                             not {l}-unique",
                            values.len(),
                            distinct.len()
                        ));
                    }
                }
                Protection::Closeness { t, ordered } => {
                    let n = values.len() as f64;
                    let share = |v: &str| values.iter().filter(|x| **x == v).count() as f64 / n;
                    let d = if ordered {
                        let m = distribution.len();
                        let mut cumulative = 0.0;
                        let mut total = 0.0;
                        for (v, q) in &distribution {
                            cumulative += share(v) - q;
                            total += cumulative.abs();
                        }
                        if m > 1 {
                            total / (m - 1) as f64
                        } else {
                            0.0
                        }
                    } else {
                        0.5 * distribution
                            .iter()
                            .map(|(v, q)| (share(v) - q).abs())
                            .sum::<f64>()
                    };
                    if d > t + 1e-9 {
                        violate(format!(
                            "bucket {bid} of `{name}` is {d:.4} from the column's distribution, \
                             more than t = {t}"
                        ));
                    }
                }
            }
        }
        for bid in from_rows.keys() {
            violate(format!(
                "rows point to bucket {bid} of `{name}`, which is not listed"
            ));
        }
    }
    Ok(finish(violations, groups.len()))
}

fn finish(violations: Vec<String>, groups: usize) -> Audit {
    Audit {
        passed: violations.is_empty(),
        released_groups: groups,
        suppressed_rows: 0,
        dropped_rows: 0,
        unchecked: Vec::new(),
        violations,
    }
}
