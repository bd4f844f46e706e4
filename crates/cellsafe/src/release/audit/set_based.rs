//! The audit of a set-based release (paper 002 sections 3 and 4), from the definitions:
//! cells read back from the released strings, R_τ by containment, usable links by one max
//! flow per link, knowledge by enumerating completions.

use std::collections::HashMap;
use std::path::Path;

use super::{failed, Audit};
use crate::algorithm::setbased::SetTable;
use crate::data::table::{CsvFormat, Table};
use crate::error::{Error, ReleaseError, Result};

/// Largest person-type × record-type product the set-based audit compares cell by cell.
const SET_AUDIT_PAIRS: usize = 50_000_000;
/// Largest number of completions of one record's confidential cells it enumerates.
const SET_AUDIT_COMPLETIONS: usize = 100_000;

/// Audits a set-based release (paper 002 sections 3 and 4) from its definition, sharing
/// nothing with the safety test but the column schema: cells are read back from the
/// released strings; R_τ links each person to every released record whose public cells
/// contain the person's public values; a link is usable iff some perfect matching of
/// persons to records uses it, decided link by link with petgraph's max flow (the
/// paper's own test, not the SCC shortcut); a formula is known of a person iff it holds
/// in every completion of every record the person may own. `schema` is the unmodified
/// set table of the input (row `r` is person `r`).
pub fn audit_set_based(path: &Path, format: &CsvFormat, schema: &SetTable) -> Result<Audit> {
    audit_set_based_table(&Table::read_csv(path, format)?, schema)
}

/// [`audit_set_based`] of a release already read back into a table.
pub fn audit_set_based_table(released: &Table, schema: &SetTable) -> Result<Audit> {
    use petgraph::graph::{Graph, NodeIndex};

    let data = &schema.problem.data;
    let c = data
        .confidentiality
        .as_deref()
        .ok_or(ReleaseError::NeedsSafety)?;
    let n = schema.rows();
    let mut audit = failed(Vec::new());
    if released.rows() != n {
        audit.violations.push(format!(
            "the release has {} rows, the input {n}",
            released.rows()
        ));
        return Ok(audit);
    }
    let columns: Vec<usize> = schema
        .columns
        .iter()
        .map(|col| {
            released
                .column_index(&col.name)
                .ok_or_else(|| Error::Release(ReleaseError::NoColumn(col.name.clone())))
        })
        .collect::<Result<_>>()?;
    // every cell read back as a set of values
    let mut cells: Vec<Vec<Vec<u64>>> = Vec::with_capacity(n);
    for r in 0..n {
        let mut row = Vec::with_capacity(columns.len());
        for (j, &col) in columns.iter().enumerate() {
            let text = released.value(r, col);
            match schema.columns[j].parse(text) {
                Some(cell) => row.push(cell),
                None => {
                    audit.violations.push(format!(
                        "row {}: `{}` is not an allowed value of `{}`",
                        r + 1,
                        crate::error::excerpt(text),
                        schema.columns[j].name
                    ));
                    return Ok(audit);
                }
            }
        }
        cells.push(row);
    }
    let public = data.quasi.len();
    let member = |cell: &[u64], v: u32| cell[v as usize / 64] >> (v % 64) & 1 == 1;
    let domain_size = |j: usize| schema.columns[j].values.len() as u32;
    audit.suppressed_rows = (0..n)
        .filter(|&r| (0..public).all(|j| (0..domain_size(j)).all(|v| member(&cells[r][j], v))))
        .count();
    // persons by public tuple, records by public cells
    let mut person_types: HashMap<Vec<u32>, usize> = HashMap::new();
    let mut person_of = Vec::with_capacity(n);
    let mut persons: Vec<(Vec<u32>, u64)> = Vec::new();
    for r in 0..n {
        let tuple: Vec<u32> = (0..public).map(|j| schema.original[j][r]).collect();
        let next = persons.len();
        let p = *person_types.entry(tuple.clone()).or_insert(next);
        if p == next {
            persons.push((tuple, 0));
        }
        persons[p].1 += 1;
        person_of.push(p);
    }
    let mut record_types: HashMap<&[Vec<u64>], usize> = HashMap::new();
    let mut records: Vec<Vec<usize>> = Vec::new();
    for (r, row) in cells.iter().enumerate() {
        let next = records.len();
        let q = *record_types.entry(&row[..public]).or_insert(next);
        if q == next {
            records.push(Vec::new());
        }
        records[q].push(r);
    }
    audit.released_groups = records.len();
    if persons.len().saturating_mul(records.len()) > SET_AUDIT_PAIRS {
        audit.unchecked.push(format!(
            "logical-safety ({} person types × {} record types is too large to audit)",
            persons.len(),
            records.len()
        ));
        audit.passed = audit.violations.is_empty();
        return Ok(audit);
    }
    let links: Vec<(usize, usize)> = (0..persons.len())
        .flat_map(|p| (0..records.len()).map(move |q| (p, q)))
        .filter(|&(p, q)| {
            let cells = &cells[records[q][0]];
            (0..public).all(|j| member(&cells[j], persons[p].0[j]))
        })
        .collect();
    // a link is usable iff the persons and records left after fixing it still match
    let perfect_without = |fixed: Option<(usize, usize)>| -> bool {
        let mut g: Graph<(), u64> = Graph::new();
        let source = g.add_node(());
        let sink = g.add_node(());
        let p_nodes: Vec<NodeIndex> = persons.iter().map(|_| g.add_node(())).collect();
        let q_nodes: Vec<NodeIndex> = records.iter().map(|_| g.add_node(())).collect();
        let (fp, fq) = fixed.map_or((usize::MAX, usize::MAX), |(p, q)| (p, q));
        for (p, (_, count)) in persons.iter().enumerate() {
            g.add_edge(source, p_nodes[p], count - u64::from(p == fp));
        }
        for (q, rows) in records.iter().enumerate() {
            g.add_edge(q_nodes[q], sink, rows.len() as u64 - u64::from(q == fq));
        }
        for &(p, q) in &links {
            g.add_edge(p_nodes[p], q_nodes[q], n as u64);
        }
        let (flow, _) = petgraph::algo::dinics(&g, source, sink);
        flow == n as u64 - u64::from(fixed.is_some())
    };
    if !perfect_without(None) {
        audit
            .violations
            .push("no person-to-record assignment explains the release".into());
        return Ok(audit);
    }
    let usable: Vec<bool> = links.iter().map(|&l| perfect_without(Some(l))).collect();
    // formulas known of each record: true in every completion of its confidential cells
    let mut known_row: HashMap<&[Vec<u64>], Vec<bool>> = HashMap::new();
    for row in &cells {
        if known_row.contains_key(&row[public..]) {
            continue;
        }
        let options: Vec<Vec<u32>> = (public..columns.len())
            .map(|j| {
                (0..domain_size(j))
                    .filter(|&v| member(&row[j], v))
                    .collect()
            })
            .collect();
        let completions = options
            .iter()
            .try_fold(1usize, |acc, o| acc.checked_mul(o.len()))
            .unwrap_or(usize::MAX);
        if completions > SET_AUDIT_COMPLETIONS {
            audit.unchecked.push(format!(
                "logical-safety (a record has {completions} completions)"
            ));
            audit.passed = audit.violations.is_empty();
            return Ok(audit);
        }
        let mut known = vec![true; c.formulas.len()];
        let mut pick = vec![0usize; options.len()];
        loop {
            let value = |d: usize| options[d][pick[d]];
            for (f, nf) in c.formulas.iter().enumerate() {
                known[f] &= nf.formula.holds(&value);
            }
            let mut d = 0;
            while d < pick.len() && pick[d] + 1 == options[d].len() {
                pick[d] = 0;
                d += 1;
            }
            if d == pick.len() {
                break;
            }
            pick[d] += 1;
        }
        known_row.insert(&row[public..], known);
    }
    let mut known_person = vec![vec![true; c.formulas.len()]; persons.len()];
    for (&(p, q), &ok) in links.iter().zip(&usable) {
        if ok {
            for &r in &records[q] {
                let k = &known_row[&cells[r][public..]];
                for (f, known) in known_person[p].iter_mut().enumerate() {
                    *known &= k[f];
                }
            }
        }
    }
    for (r, &p) in person_of.iter().enumerate() {
        for &(f, _) in &c.con_sets[c.con_of_row[r] as usize] {
            if known_person[p][f as usize] && audit.violations.len() < 10 {
                audit.violations.push(format!(
                    "logical-safety fails for {}: `{}` holds in every record they may own",
                    c.person(&data.table, r),
                    c.formulas[f as usize].id
                ));
            }
        }
    }
    audit.passed = audit.violations.is_empty();
    Ok(audit)
}
