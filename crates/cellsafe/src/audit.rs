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
