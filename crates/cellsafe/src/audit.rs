//! An independent check of a released table.
//!
//! The audit re-reads the released CSV as strings, groups rows by their visible
//! quasi-identifier values, and checks each group against the privacy models from their
//! textbook definitions, with none of the encoding, rollup or model code the search used.
//! Rows whose quasi-identifiers are all `*` are suppressed and not checked.

use std::collections::HashMap;
use std::path::Path;

use serde::Serialize;

use crate::error::{Error, Result};
use crate::logic::setbased::SetTable;
use crate::logic::Confidentiality;
use crate::privacy::{Distance, ModelSpec};
use crate::release::SUPPRESSED;
use crate::table::{CsvFormat, Table};

/// What the audit found.
#[derive(Debug, Clone, Serialize)]
pub struct Audit {
    pub passed: bool,
    pub groups: usize,
    pub suppressed_rows: usize,
    /// Models the audit could not check independently.
    pub unchecked: Vec<String>,
    /// The first violations found (at most 10).
    pub violations: Vec<String>,
}

/// Audits the released file at `path` against `models`. `original` is the input table
/// (for the reference distributions of t-closeness, δ-disclosure and β-likeness).
pub fn audit(
    path: &Path,
    format: &CsvFormat,
    quasi: &[String],
    models: &[ModelSpec],
    original: &Table,
    safety: Option<&Confidentiality>,
) -> Result<Audit> {
    let released = Table::read_csv(path, format)?;
    let qi_cols: Vec<usize> = quasi
        .iter()
        .map(|q| {
            released
                .column_index(q)
                .ok_or_else(|| Error::Invalid(format!("released table has no column `{q}`")))
        })
        .collect::<Result<_>>()?;
    let mut groups: HashMap<Vec<&str>, Vec<usize>> = HashMap::new();
    let mut suppressed_rows = 0;
    for row in 0..released.rows() {
        let key: Vec<&str> = qi_cols.iter().map(|&c| released.value(row, c)).collect();
        if key.iter().all(|v| *v == SUPPRESSED) {
            suppressed_rows += 1;
            continue;
        }
        groups.entry(key).or_default().push(row);
    }
    let mut violations = Vec::new();
    let mut unchecked = Vec::new();
    for model in models {
        if let ModelSpec::LogicalSafety = model {
            match safety {
                Some(c) => logical_violations(&released, original, &groups, c, &mut violations)?,
                None => unchecked.push(model.name()),
            }
            continue;
        }
        if let ModelSpec::TCloseness {
            distance: Distance::Hierarchical,
            ..
        } = model
        {
            unchecked.push(model.name());
            continue;
        }
        let sensitive = match model.attribute() {
            Some(a) => Some((
                released
                    .column_index(a)
                    .ok_or_else(|| Error::Invalid(format!("released table has no column `{a}`")))?,
                reference(original, a)?,
            )),
            None => None,
        };
        for (key, rows) in &groups {
            let ok = match (model, &sensitive) {
                (_, Some((col, reference))) => {
                    let mut freq: HashMap<&str, usize> = HashMap::new();
                    for &r in rows {
                        *freq.entry(released.value(r, *col)).or_default() += 1;
                    }
                    group_holds(model, &freq, rows.len(), reference)
                }
                (_, None) => group_holds(model, &HashMap::new(), rows.len(), &[]),
            };
            if !ok && violations.len() < 10 {
                violations.push(format!(
                    "{} fails for the {} rows with {:?}",
                    model.name(),
                    rows.len(),
                    key
                ));
            }
        }
    }
    Ok(Audit {
        passed: violations.is_empty(),
        groups: groups.len(),
        suppressed_rows,
        unchecked,
        violations,
    })
}

/// Logical safety from its definition: in each group, the formulas that hold on every
/// released row are known of every member; no member may hold one of them confidential.
/// Released rows keep the input's order, so row `r` is person `r`.
fn logical_violations(
    released: &Table,
    original: &Table,
    groups: &HashMap<Vec<&str>, Vec<usize>>,
    c: &Confidentiality,
    violations: &mut Vec<String>,
) -> Result<()> {
    let columns: Vec<usize> = c
        .vocabulary
        .iter()
        .map(|d| {
            released
                .column_index(&d.name)
                .ok_or_else(|| Error::Invalid(format!("released table has no column `{}`", d.name)))
        })
        .collect::<Result<_>>()?;
    let code = |d: usize, r: usize| -> u32 {
        let v = released.value(r, columns[d]);
        c.vocabulary[d]
            .values
            .iter()
            .position(|x| x == v)
            .map_or(u32::MAX, |i| i as u32)
    };
    let mut keys: Vec<&Vec<&str>> = groups.keys().collect();
    keys.sort();
    for key in keys {
        let rows = &groups[key];
        let known: Vec<bool> = c
            .formulas
            .iter()
            .map(|f| {
                rows.iter().all(|&r| {
                    let value = |d: usize| code(d, r);
                    (0..c.vocabulary.len()).all(|d| value(d) != u32::MAX) && f.formula.holds(&value)
                })
            })
            .collect();
        for &r in rows {
            for &(f, _) in &c.con_sets[c.con_of_row[r] as usize] {
                if known[f as usize] && violations.len() < 10 {
                    violations.push(format!(
                        "logical-safety fails for {}: `{}` holds of all {} rows with {:?}",
                        c.person(original, r),
                        c.formulas[f as usize].id,
                        rows.len(),
                        key
                    ));
                }
            }
        }
    }
    Ok(())
}

/// The distribution of column `name` over the whole original table, in natural order.
pub fn reference(original: &Table, name: &str) -> Result<Vec<(String, f64)>> {
    let c = original
        .column_index(name)
        .ok_or_else(|| Error::Invalid(format!("no column `{name}`")))?;
    let mut freq: HashMap<&str, usize> = HashMap::new();
    for r in 0..original.rows() {
        *freq.entry(original.value(r, c)).or_default() += 1;
    }
    let n = original.rows() as f64;
    let mut values: Vec<(String, f64)> = freq
        .into_iter()
        .map(|(v, f)| (v.to_owned(), f as f64 / n))
        .collect();
    let numeric = values.iter().all(|(v, _)| v.trim().parse::<f64>().is_ok());
    if numeric {
        values.sort_by(|a, b| {
            a.0.trim()
                .parse::<f64>()
                .unwrap()
                .total_cmp(&b.0.trim().parse::<f64>().unwrap())
        });
    } else {
        values.sort_by(|a, b| a.0.cmp(&b.0));
    }
    Ok(values)
}

/// Whether a group of `n` rows whose sensitive values have frequencies `freq` satisfies
/// `model`, from the definitions; `reference` is the overall distribution in natural order.
/// (Hierarchical t-closeness is not covered.)
pub fn group_holds(
    model: &ModelSpec,
    freq: &HashMap<&str, usize>,
    n: usize,
    reference: &[(String, f64)],
) -> bool {
    let size = n;
    let n = n as f64;
    let p = |v: &str| freq.get(v).copied().unwrap_or(0) as f64 / n;
    match model {
        ModelSpec::KAnonymity { k } => size >= *k as usize,
        ModelSpec::DistinctLDiversity { l, .. } => freq.len() as f64 >= l.ceil(),
        ModelSpec::EntropyLDiversity { l, .. } => {
            let h: f64 = freq
                .values()
                .map(|&f| -(f as f64 / n) * (f as f64 / n).ln())
                .sum();
            freq.len() as f64 >= l.ceil() && h >= l.ln() - 1e-9
        }
        ModelSpec::RecursiveClDiversity { c, l, .. } => {
            let mut f: Vec<usize> = freq.values().copied().collect();
            f.sort_unstable_by(|a, b| b.cmp(a));
            let l = *l as usize;
            f.len() >= l && (f[0] as f64) < c * f[l - 1..].iter().sum::<usize>() as f64
        }
        ModelSpec::TCloseness { t, distance, .. } => {
            let emd = match distance {
                Distance::Equal => {
                    0.5 * reference.iter().map(|(v, q)| (p(v) - q).abs()).sum::<f64>()
                }
                _ => {
                    let mut cumulative = 0.0;
                    let mut total = 0.0;
                    for (v, q) in reference {
                        cumulative += p(v) - q;
                        total += cumulative.abs();
                    }
                    if reference.len() > 1 {
                        total / (reference.len() - 1) as f64
                    } else {
                        0.0
                    }
                }
            };
            emd <= t + 1e-9
        }
        ModelSpec::DeltaDisclosure { delta, .. } => reference
            .iter()
            .filter(|(v, _)| freq.contains_key(v.as_str()))
            .all(|(v, q)| (p(v) / q).log2().abs() < *delta),
        ModelSpec::BetaLikeness { beta, enhanced, .. } => reference
            .iter()
            .filter(|(v, _)| freq.contains_key(v.as_str()))
            .all(|(v, q)| {
                let bound = if *enhanced { beta.min(-q.ln()) } else { *beta };
                (p(v) - q) / q <= bound + 1e-9
            }),
        ModelSpec::Confidential { values, .. } => {
            freq.keys().any(|v| !values.iter().any(|x| x == v))
        }
        // checked per person by `audit`, which knows who holds what
        ModelSpec::LogicalSafety => true,
    }
}

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
    use petgraph::graph::{Graph, NodeIndex};

    let released = Table::read_csv(path, format)?;
    let data = &schema.problem.data;
    let c = data
        .confidentiality
        .as_deref()
        .ok_or_else(|| Error::Invalid("the set-based audit needs a [safety] section".into()))?;
    let n = schema.rows();
    let mut audit = Audit {
        passed: false,
        groups: 0,
        suppressed_rows: 0,
        unchecked: Vec::new(),
        violations: Vec::new(),
    };
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
            released.column_index(&col.name).ok_or_else(|| {
                Error::Invalid(format!("released table has no column `{}`", col.name))
            })
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
                        "row {}: `{text}` is not an allowed value of `{}`",
                        r + 1,
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
    audit.groups = records.len();
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
