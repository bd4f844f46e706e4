//! An independent check of a released table.
//!
//! The audit re-reads the released CSV as strings, groups rows by their visible
//! quasi-identifier values, and checks each group against the privacy models from their
//! textbook definitions, with none of the encoding, rollup or model code the search used.
//! Public columns are known to the recipient, so they take part in the grouping as
//! quasi-identifiers do. A row is suppressed when every cell but the public ones is `*`; a suppressed row that
//! shows anything else is a violation. Suppressed (and dropped) rows form one pool, whose
//! persons a recipient can name by elimination: for logical safety the pool is checked
//! like a group whose starred cells may hold any value of their domain.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use serde::Serialize;

use crate::algorithm::setbased::SetTable;
use crate::criteria::{Distance, ModelSpec};
use crate::data::confidentiality::Confidentiality;
use crate::data::number;
use crate::data::table::{CsvFormat, Table};
use crate::data::SUPPRESSED;
use crate::error::{Error, ReleaseError, Result};

/// What the audit found.
#[derive(Debug, Clone, Serialize)]
pub struct Audit {
    pub passed: bool,
    /// Distinct visible quasi-identifier tuples (with the public columns' cells) among the
    /// released rows that are not suppressed: the groups a recipient can link persons to. Fewer than the report's
    /// released classes when two classes are shown alike (e.g. equal microaggregates).
    pub released_groups: usize,
    /// Rows written with every non-public cell `*`.
    pub suppressed_rows: usize,
    /// Input rows left out of the file.
    pub dropped_rows: usize,
    /// Models the audit could not check independently.
    pub unchecked: Vec<String>,
    /// The first violations found (at most 10).
    pub violations: Vec<String>,
}

/// What the audit checks a released file against.
#[derive(Debug, Clone, Copy)]
pub struct Expected<'a> {
    /// Quasi-identifier column names.
    pub quasi: &'a [String],
    pub models: &'a [ModelSpec],
    /// The input table (reference distributions, persons, confidential values).
    pub original: &'a Table,
    /// Persons' confidential formulas, for logical safety.
    pub safety: Option<&'a Confidentiality>,
    /// The input row of each released row, in file order (the mapping).
    pub rows: &'a [usize],
    /// Columns a suppressed row may still show.
    pub public: &'a [String],
}

const MAX_VIOLATIONS: usize = 10;
/// Most completions of one record's starred cells the logical check enumerates.
const COMPLETIONS: usize = 100_000;

/// Audits the released file at `path` (written as `format`) against `expected`.
pub fn audit(path: &Path, format: &CsvFormat, expected: &Expected) -> Result<Audit> {
    audit_table(&Table::read_csv(path, format)?, expected)
}

/// Audits a released table as read back from what was written (a file or a buffer).
pub fn audit_table(released: &Table, expected: &Expected) -> Result<Audit> {
    let column = |name: &str| {
        released
            .column_index(name)
            .ok_or_else(|| ReleaseError::NoColumn(name.to_owned()).into())
    };
    let public_cols: Vec<usize> = expected
        .public
        .iter()
        .map(|p| column(p))
        .collect::<Result<_>>()?;
    let qi_cols: Vec<usize> = expected
        .quasi
        .iter()
        .map(|q| column(q))
        .collect::<Result<_>>()?;
    let mut violations = Vec::new();
    let mut violate = |v: String| {
        if violations.len() < MAX_VIOLATIONS {
            violations.push(v);
        }
    };
    if released.rows() != expected.rows.len() {
        violate(format!(
            "the file has {} rows, the mapping {}",
            released.rows(),
            expected.rows.len()
        ));
        return Ok(failed(violations));
    }
    let hidden: Vec<usize> = (0..released.header().len())
        .filter(|&c| !expected.public.contains(&released.header()[c]))
        .collect();
    let mut groups: HashMap<Vec<&str>, Vec<usize>> = HashMap::new();
    let mut pool: Vec<usize> = Vec::new();
    for row in 0..released.rows() {
        if hidden.iter().all(|&c| released.value(row, c) == SUPPRESSED) {
            pool.push(row);
            continue;
        }
        // public columns are known to the recipient: they link as quasi-identifiers do
        let key: Vec<&str> = qi_cols
            .iter()
            .chain(&public_cols)
            .map(|&c| released.value(row, c))
            .collect();
        groups.entry(key).or_default().push(row);
    }
    // input rows not released at all (dropped) belong to the pool's persons
    let shown: HashSet<usize> = expected.rows.iter().copied().collect();
    let dropped: Vec<usize> = (0..expected.original.rows())
        .filter(|r| !shown.contains(r))
        .collect();
    let mut unchecked = Vec::new();
    for model in expected.models {
        if let ModelSpec::LogicalSafety = model {
            match expected.safety {
                Some(c) => {
                    // every group, then the pool: (persons, records they own, description)
                    let mut keys: Vec<&Vec<&str>> = groups.keys().collect();
                    keys.sort();
                    let mut parts: Vec<(Vec<usize>, Vec<Record>, String)> = keys
                        .into_iter()
                        .map(|key| {
                            let rows = &groups[key];
                            (
                                rows.iter().map(|&r| expected.rows[r]).collect(),
                                rows.iter().map(|&r| Record::Row(r)).collect(),
                                format!("the {} rows with {key:?}", rows.len()),
                            )
                        })
                        .collect();
                    if !pool.is_empty() || !dropped.is_empty() {
                        parts.push((
                            pool.iter()
                                .map(|&r| expected.rows[r])
                                .chain(dropped.iter().copied())
                                .collect(),
                            pool.iter()
                                .map(|&r| Record::Row(r))
                                .chain(dropped.iter().map(|_| Record::Hidden))
                                .collect(),
                            format!("the {} suppressed rows", pool.len() + dropped.len()),
                        ));
                    }
                    for (persons, records, what) in &parts {
                        logical(
                            released,
                            expected,
                            c,
                            persons,
                            records,
                            what,
                            &mut violate,
                            &mut unchecked,
                        )?;
                    }
                }
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
            Some(a) => Some((column(a)?, reference(expected.original, a)?)),
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
            if !ok {
                violate(format!(
                    "{} fails for the {} rows with {:?}",
                    model.name(),
                    rows.len(),
                    key
                ));
            }
        }
        if let ModelSpec::Confidential { attribute, values } = model {
            // the pool shows nothing of the attribute: it is learnt only if every value is confidential
            if !pool.is_empty() || !dropped.is_empty() {
                let all = reference(expected.original, attribute)?;
                if all.iter().all(|(v, _)| values.contains(v)) {
                    violate(format!("{} fails for the suppressed rows", model.name()));
                }
            }
        }
    }
    Ok(Audit {
        passed: violations.is_empty(),
        released_groups: groups.len(),
        suppressed_rows: pool.len(),
        dropped_rows: dropped.len(),
        unchecked,
        violations,
    })
}

fn failed(violations: Vec<String>) -> Audit {
    Audit {
        passed: false,
        released_groups: 0,
        suppressed_rows: 0,
        dropped_rows: 0,
        unchecked: Vec::new(),
        violations,
    }
}

/// A record a recipient links persons to: a released row, or a row left out of the file.
#[derive(Clone, Copy)]
enum Record {
    Row(usize),
    Hidden,
}

/// Logical safety from its definition for one group: `persons` (input rows) own
/// `records` in some order, so a formula is known of each of them when it holds in every
/// record, whatever the starred or hidden cells are; no person may hold such a formula
/// confidential.
#[allow(clippy::too_many_arguments)]
fn logical(
    released: &Table,
    expected: &Expected,
    c: &Confidentiality,
    persons: &[usize],
    records: &[Record],
    what: &str,
    violate: &mut impl FnMut(String),
    unchecked: &mut Vec<String>,
) -> Result<()> {
    let columns: Vec<usize> = c
        .vocabulary
        .iter()
        .map(|d| {
            released
                .column_index(&d.name)
                .ok_or_else(|| ReleaseError::NoColumn(d.name.clone()).into())
        })
        .collect::<Result<_>>()?;
    // per record and domain: the values its cell may hold
    let options = |record: Record, d: usize| -> Vec<u32> {
        let domain = &c.vocabulary[d];
        let all = || (0..domain.values.len() as u32).collect();
        match record {
            Record::Hidden => all(),
            Record::Row(r) => {
                let v = released.value(r, columns[d]);
                if v == SUPPRESSED && !expected.public.contains(&domain.name) {
                    all()
                } else {
                    // a value outside the domain makes no formula hold
                    domain
                        .values
                        .iter()
                        .position(|x| x == v)
                        .map_or(Vec::new(), |i| vec![i as u32])
                }
            }
        }
    };
    let known: Vec<bool> = c
        .formulas
        .iter()
        .map(|f| {
            let mentioned = mentioned(f);
            records.iter().all(|&record| {
                let choices: Vec<Vec<u32>> = (0..c.vocabulary.len())
                    .map(|d| {
                        if mentioned.contains(&d) {
                            options(record, d)
                        } else {
                            vec![0]
                        }
                    })
                    .collect();
                match every_completion(&choices, |value| f.formula.holds(&value)) {
                    Some(all) => all,
                    None => {
                        unchecked.push(format!("logical-safety of {what} (too many completions)"));
                        false
                    }
                }
            })
        })
        .collect();
    for &u in persons {
        for &(f, _) in &c.con_sets[c.con_of_row[u] as usize] {
            if known[f as usize] {
                violate(format!(
                    "logical-safety fails for {}: `{}` holds of all of {what}",
                    c.person(expected.original, u),
                    c.formulas[f as usize].id,
                ));
            }
        }
    }
    Ok(())
}

/// The vocabulary domains a formula mentions.
fn mentioned(f: &crate::data::confidentiality::NamedFormula) -> Vec<usize> {
    let mut d: Vec<usize> = f
        .cnf
        .0
        .iter()
        .flat_map(|clause| clause.atoms.iter().map(|a| a.domain))
        .collect();
    d.sort_unstable();
    d.dedup();
    d
}

/// Whether `holds` is true for every choice of one value per domain (None: too many).
/// An empty choice list for a domain means no completion exists: not true.
fn every_completion(
    choices: &[Vec<u32>],
    holds: impl Fn(&dyn Fn(usize) -> u32) -> bool,
) -> Option<bool> {
    if choices.iter().any(Vec::is_empty) {
        return Some(false);
    }
    let total = choices
        .iter()
        .try_fold(1usize, |acc, o| acc.checked_mul(o.len()))
        .filter(|&t| t <= COMPLETIONS)?;
    let mut pick = vec![0usize; choices.len()];
    for _ in 0..total {
        let value = |d: usize| choices[d][pick[d]];
        if !holds(&value) {
            return Some(false);
        }
        let mut d = 0;
        while d < pick.len() && pick[d] + 1 == choices[d].len() {
            pick[d] = 0;
            d += 1;
        }
        if d < pick.len() {
            pick[d] += 1;
        }
    }
    Some(true)
}

/// The distribution of column `name` over the whole original table, in natural order.
pub fn reference(original: &Table, name: &str) -> Result<Vec<(String, f64)>> {
    let c = original
        .column_index(name)
        .ok_or_else(|| ReleaseError::NoColumn(name.to_owned()))?;
    let mut freq: HashMap<&str, usize> = HashMap::new();
    for r in 0..original.rows() {
        *freq.entry(original.value(r, c)).or_default() += 1;
    }
    let n = original.rows() as f64;
    let mut values: Vec<(String, f64)> = freq
        .into_iter()
        .map(|(v, f)| (v.to_owned(), f as f64 / n))
        .collect();
    let numbers: Option<Vec<f64>> = values.iter().map(|(v, _)| number::parse(v)).collect();
    if let Some(numbers) = numbers {
        let mut keyed: Vec<(f64, (String, f64))> = numbers.into_iter().zip(values).collect();
        keyed.sort_by(|a, b| a.0.total_cmp(&b.0));
        values = keyed.into_iter().map(|(_, v)| v).collect();
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
