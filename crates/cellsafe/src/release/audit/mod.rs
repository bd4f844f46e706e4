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

mod counts;
mod lgb;
mod local;
mod presence;
mod set_based;

pub use counts::{audit_counts, CountExpected, Counted, Group};
pub use lgb::{audit_lgb_tables, LgbColumn, LgbExpected};
pub(crate) use local::audit_local_table;
pub use local::{audit_local, LocalExpected};
pub use presence::PresenceExpected;

pub use set_based::{audit_set_based, audit_set_based_table};

use std::collections::HashMap;

use rustc_hash::FxHashMap;
use std::path::Path;

use serde::Serialize;

use crate::criteria::{Distance, ModelSpec};
use crate::data::confidentiality::Confidentiality;
use crate::data::number;
use crate::data::table::{CsvFormat, Table};
use crate::data::SUPPRESSED;
use crate::error::{ReleaseError, Result};

/// What the audit found.
#[derive(Debug, Clone, Serialize)]
pub struct Audit {
    /// Whether the release holds every model as written.
    pub passed: bool,
    /// Distinct visible quasi-identifier tuples (with the public columns' cells) among the
    /// released rows that are not suppressed: the groups a recipient can link persons to. Fewer than the report's
    /// released classes when two classes are shown alike (e.g. equal microaggregates).
    released_groups: usize,
    /// Rows written with every non-public cell `*`.
    pub suppressed_rows: usize,
    /// Input rows left out of the file.
    dropped_rows: usize,
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
    /// The privacy models, from their definitions.
    pub models: &'a [ModelSpec],
    /// The input table (reference distributions, persons, confidential values).
    pub original: &'a Table,
    /// Persons' confidential formulas, for logical safety.
    pub safety: Option<&'a Confidentiality>,
    /// The input row of each released row, in file order (the mapping).
    pub rows: &'a [usize],
    /// Columns a suppressed row may still show.
    pub public: &'a [String],
    /// The population and the released labels, for δ-presence (unchecked without).
    pub presence: Option<&'a PresenceExpected<'a>>,
}

const MAX_VIOLATIONS: usize = 10;
/// Most completions of one record's starred cells the logical check enumerates.
const COMPLETIONS: usize = 100_000;

/// Audits the released file at `path` (written as `format`) against `expected`.
pub fn audit(path: &Path, format: &CsvFormat, expected: &Expected) -> Result<Audit> {
    audit_table(ReadBack::whole(&Table::read_csv(path, format)?), expected)
}

/// A released table as read back for its audit: a table of its rows, or of its distinct
/// lines with each row's line among them ([`Table::from_bytes_lines`]). Rows alike in
/// every cell are grouped alike, so the audit groups the table's rows once, then puts
/// each released row where its line went.
#[derive(Clone, Copy)]
pub(crate) struct ReadBack<'t> {
    table: &'t Table,
    of_row: Option<&'t [u32]>,
}

impl<'t> ReadBack<'t> {
    /// `table`'s rows, the released rows one by one.
    pub(crate) fn whole(table: &'t Table) -> Self {
        ReadBack {
            table,
            of_row: None,
        }
    }

    /// `table`'s rows read for the released rows `of_row` names (None: one by one).
    pub(crate) fn lines(table: &'t Table, of_row: Option<&'t [u32]>) -> Self {
        ReadBack { table, of_row }
    }

    /// Released rows.
    fn rows(&self) -> usize {
        self.of_row.map_or(self.table.rows(), <[u32]>::len)
    }

    /// The table's row that released row `r` reads as.
    fn row(&self, r: usize) -> usize {
        self.of_row.map_or(r, |of_row| of_row[r] as usize)
    }

    /// The cell of released row `r` in column `c`.
    fn value(&self, r: usize, c: usize) -> &'t str {
        self.table.value(self.row(r), c)
    }
}

/// Audits a released table as read back from what was written (a file or a buffer).
pub(crate) fn audit_table(released: ReadBack<'_>, expected: &Expected) -> Result<Audit> {
    let table = released.table;
    let column = |name: &str| {
        table
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
    let hidden: Vec<usize> = (0..table.header().len())
        .filter(|&c| !expected.public.contains(&table.header()[c]))
        .collect();
    // rows are grouped by the codes of their visible cells in the file read back (equal
    // codes, equal strings), then each group is named by its strings
    let star: Vec<Option<u32>> = hidden
        .iter()
        .map(|&c| table.dictionary(c).code(SUPPRESSED))
        .collect();
    let key_cols: Vec<usize> = qi_cols.iter().chain(&public_cols).copied().collect();
    // a row's key codes packed in one number, each column's code times the product of the
    // dictionary sizes before it, when every such number fits in 64 bits; else the codes
    let strides: Option<Vec<u64>> = key_cols
        .iter()
        .try_fold((Vec::new(), 1u64), |(mut strides, stride), &c| {
            strides.push(stride);
            let next = stride.checked_mul(table.dictionary(c).len() as u64)?;
            Some((strides, next))
        })
        .map(|(strides, _)| strides);
    let mut packed_index: FxHashMap<u64, usize> = FxHashMap::default();
    let mut index: FxHashMap<Box<[u32]>, usize> = FxHashMap::default();
    let mut members: Vec<(usize, Vec<usize>)> = Vec::new();
    let mut pool: Vec<usize> = Vec::new();
    let mut key: Vec<u32> = Vec::with_capacity(key_cols.len());
    let hidden_codes: Vec<&[u32]> = hidden.iter().map(|&c| table.codes(c)).collect();
    let key_codes: Vec<&[u32]> = key_cols.iter().map(|&c| table.codes(c)).collect();
    // each row of the table read back: its group, or POOL when every hidden cell is `*`
    const POOL: usize = usize::MAX;
    let mut group_of = Vec::with_capacity(table.rows());
    for row in 0..table.rows() {
        let all_star = hidden_codes
            .iter()
            .zip(&star)
            .all(|(codes, s)| Some(codes[row]) == *s);
        if all_star {
            group_of.push(POOL);
            continue;
        }
        // public columns are known to the recipient: they link as quasi-identifiers do
        let next = members.len();
        let group = match &strides {
            Some(strides) => {
                let packed = key_codes
                    .iter()
                    .zip(strides)
                    .map(|(codes, &stride)| u64::from(codes[row]) * stride)
                    .sum();
                *packed_index.entry(packed).or_insert(next)
            }
            None => {
                key.clear();
                key.extend(key_codes.iter().map(|codes| codes[row]));
                match index.get(&key[..]) {
                    Some(&g) => g,
                    None => {
                        index.insert(key.clone().into_boxed_slice(), next);
                        next
                    }
                }
            }
        };
        if group == next {
            members.push((row, Vec::new()));
        }
        group_of.push(group);
    }
    // each released row where its row of the table went
    for r in 0..released.rows() {
        match group_of[released.row(r)] {
            POOL => pool.push(r),
            group => members[group].1.push(r),
        }
    }
    let groups: FxHashMap<Vec<&str>, Vec<usize>> = members
        .into_iter()
        .map(|(first, rows)| {
            let key = key_cols.iter().map(|&c| table.value(first, c)).collect();
            (key, rows)
        })
        .collect();
    // input rows not released at all (dropped) belong to the pool's persons
    let mut shown = vec![false; expected.original.rows()];
    for &r in expected.rows {
        if let Some(s) = shown.get_mut(r) {
            *s = true;
        }
    }
    let dropped: Vec<usize> = (0..expected.original.rows())
        .filter(|&r| !shown[r])
        .collect();
    // groups in order of their cells, so that the violations listed (at most ten) are the
    // same whatever the hashing and whoever counted them
    let mut sorted: Vec<(&Vec<&str>, &Vec<usize>)> = groups.iter().collect();
    sorted.sort_unstable_by(|a, b| a.0.cmp(b.0));
    let mut unchecked = Vec::new();
    for model in expected.models {
        if let Some(ok) = risk_holds(model, &groups, expected.original.rows()) {
            if !ok {
                violate(format!(
                    "{} fails for the {} released groups",
                    model.name(),
                    groups.len()
                ));
            }
            continue;
        }
        if let ModelSpec::DeltaPresence {
            delta_min,
            delta_max,
        } = model
        {
            match expected.presence {
                Some(p) => {
                    let shown: Vec<(Vec<&str>, u64)> = (0..released.rows())
                        .filter(|r| pool.binary_search(r).is_err())
                        .map(|r| (qi_cols.iter().map(|&c| released.value(r, c)).collect(), 1))
                        .collect();
                    let hidden = pool.len() + dropped.len();
                    match presence::violations(
                        p,
                        expected.quasi,
                        &shown,
                        hidden,
                        (*delta_min, *delta_max),
                    ) {
                        Ok(found) => found.into_iter().for_each(&mut violate),
                        Err(why) => violate(format!("{}: {why}", model.name())),
                    }
                }
                None => unchecked.push(model.name()),
            }
            continue;
        }
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
        for &(key, rows) in &sorted {
            let ok = match (model, &sensitive) {
                (_, Some((col, reference))) => {
                    let mut freq: FxHashMap<&str, usize> = FxHashMap::default();
                    for &r in rows {
                        *freq.entry(released.value(r, *col)).or_default() += 1;
                    }
                    group_holds(model, &freq, rows.len(), reference)
                }
                (_, None) => group_holds(model, &FxHashMap::default(), rows.len(), &[]),
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
    released: ReadBack<'_>,
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
                .table
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

/// For the risk-based models, whether the released groups (as written; like ARX, a group
/// whose every quasi-identifier reads `*` counts as suppressed) satisfy the model, from
/// their sizes; None for the other models.
fn risk_holds(
    model: &ModelSpec,
    groups: &FxHashMap<Vec<&str>, Vec<usize>>,
    rows: usize,
) -> Option<bool> {
    let sizes: Vec<u64> = groups
        .iter()
        .filter(|(key, _)| !key.iter().all(|c| *c == "*"))
        .map(|(_, r)| r.len() as u64)
        .collect();
    risk_holds_sizes(model, &sizes, rows)
}

/// [`risk_holds`] on the sizes of the released groups.
fn risk_holds_sizes(model: &ModelSpec, sizes: &[u64], rows: usize) -> Option<bool> {
    let records: u64 = sizes.iter().sum();
    let uniques = sizes.iter().filter(|&&s| s == 1).count() as f64;
    let unique_share = if records == 0 {
        0.0
    } else {
        uniques / records as f64
    };
    Some(match model {
        ModelSpec::AverageRisk {
            threshold,
            highest_risk,
            records_at_risk,
        } => {
            let average = sizes.len() as f64 / records.max(1) as f64 <= *threshold + 1e-12;
            let bounded = match (highest_risk, records_at_risk) {
                (Some(h), Some(r)) => {
                    let smallest = crate::criteria::size_threshold(*h);
                    let at_risk: u64 = sizes.iter().filter(|&&s| s < smallest).sum();
                    at_risk as f64 / records.max(1) as f64 <= r + 1e-12
                }
                _ => true,
            };
            records == 0 || (average && bounded)
        }
        ModelSpec::SampleUniqueness { threshold } => unique_share <= *threshold + 1e-12,
        ModelSpec::PopulationUniqueness {
            threshold,
            estimator,
            population_size,
            sampling_fraction,
        } => {
            if records == 0 {
                return Some(true);
            }
            let size = population_size.unwrap_or_else(|| {
                ((rows as f64 / sampling_fraction.unwrap_or(1.0)).round() as u64).max(rows as u64)
            });
            let h = crate::risk::Histogram::from_sizes(sizes.iter().copied());
            let u = crate::risk::population::share(&h, size, estimator.model(), false);
            (u > 0.0 && u <= *threshold + 1e-12) || (u == 0.0 && unique_share == 0.0)
        }
        _ => return None,
    })
}

/// The distribution of column `name` over the whole original table, in natural order.
pub fn reference(original: &Table, name: &str) -> Result<Vec<(String, f64)>> {
    let c = original
        .column_index(name)
        .ok_or_else(|| ReleaseError::NoColumn(name.to_owned()))?;
    let mut freq: HashMap<&str, u64> = HashMap::new();
    for r in 0..original.rows() {
        *freq.entry(original.value(r, c)).or_default() += 1;
    }
    Ok(distribution(freq))
}

/// The distribution of a column whose values occur `freq` times, in natural order.
pub(crate) fn distribution<S: AsRef<str>>(
    freq: impl IntoIterator<Item = (S, u64)>,
) -> Vec<(String, f64)> {
    let freq: Vec<(S, u64)> = freq.into_iter().collect();
    let n = freq.iter().map(|(_, f)| f).sum::<u64>() as f64;
    let mut values: Vec<(String, f64)> = freq
        .into_iter()
        .map(|(v, f)| (v.as_ref().to_owned(), f as f64 / n))
        .collect();
    let numbers: Option<Vec<f64>> = values.iter().map(|(v, _)| number::parse(v)).collect();
    if let Some(numbers) = numbers {
        let mut keyed: Vec<(f64, (String, f64))> = numbers.into_iter().zip(values).collect();
        keyed.sort_by(|a, b| a.0.total_cmp(&b.0));
        values = keyed.into_iter().map(|(_, v)| v).collect();
    } else {
        values.sort_by(|a, b| a.0.cmp(&b.0));
    }
    values
}

/// Whether a group of `n` rows whose sensitive values have frequencies `freq` satisfies
/// `model`, from the definitions; `reference` is the overall distribution in natural order.
/// (Hierarchical t-closeness is not covered.)
pub fn group_holds<S: std::hash::BuildHasher>(
    model: &ModelSpec,
    freq: &HashMap<&str, usize, S>,
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
        // checked on the whole release by `audit`
        ModelSpec::DeltaPresence { .. }
        | ModelSpec::AverageRisk { .. }
        | ModelSpec::SampleUniqueness { .. }
        | ModelSpec::PopulationUniqueness { .. } => true,
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;
    use std::path::Path;

    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    use super::{audit_table, Expected, ReadBack};
    use crate::criteria::ModelSpec;
    use crate::data::table::{CsvFormat, Table};

    /// A release read back as its distinct lines, each row pointing at its own, is audited
    /// as read back row by row: the same verdict, groups, suppressed rows and violations,
    /// on random releases of few or many distinct lines (the reader stops looking for
    /// repeats after a trial of distinct ones), with suppressed rows, a public column that
    /// splits the groups, and a sensitive column for l-diversity, passing or not.
    #[test]
    fn distinct_lines_audit_as_every_row() {
        let mut rng = ChaCha8Rng::seed_from_u64(43);
        let mut read_once = 0;
        for round in 0..40 {
            let rows = if round % 4 == 0 {
                6_000
            } else {
                rng.gen_range(1..3_000)
            };
            let values = if round % 4 == 0 {
                5_000
            } else {
                rng.gen_range(1..6)
            };
            let mut text = String::from("q0;pub;q1;sens\n");
            for _ in 0..rows {
                let suppressed = rng.gen_bool(0.05);
                let public = format!("p{}", rng.gen_range(0..2));
                let sens = format!("s{}", rng.gen_range(0..3));
                if suppressed {
                    text.push_str(&format!("*;{public};*;*\n"));
                } else {
                    let (a, b) = (rng.gen_range(0..values), rng.gen_range(0..3));
                    text.push_str(&format!("v{a};{public};w{b};{sens}\n"));
                }
            }
            let format = CsvFormat {
                delimiter: b';',
                ..CsvFormat::default()
            };
            let every = Table::from_bytes(text.as_bytes(), Path::new("t.csv"), &format).unwrap();
            let (distinct, of_row) =
                Table::from_bytes_lines(text.as_bytes(), Path::new("t.csv"), &format).unwrap();
            let of_row = of_row.expect("plain text: read line by line");
            assert_eq!(of_row.len(), rows);
            read_once += usize::from(distinct.rows() < rows);
            let quasi = ["q0".to_owned(), "q1".to_owned()];
            let order: Vec<usize> = (0..rows).collect();
            for public in [&[][..], &["pub".to_owned()][..]] {
                for models in [
                    vec![ModelSpec::KAnonymity {
                        k: rng.gen_range(1..6),
                    }],
                    vec![ModelSpec::DistinctLDiversity {
                        attribute: "sens".into(),
                        l: f64::from(rng.gen_range(1u8..4)),
                    }],
                ] {
                    let expected = Expected {
                        quasi: &quasi,
                        models: &models,
                        original: &every,
                        safety: None,
                        rows: &order,
                        public,
                        presence: None,
                    };
                    let a = audit_table(ReadBack::whole(&every), &expected).unwrap();
                    let b =
                        audit_table(ReadBack::lines(&distinct, Some(&of_row)), &expected).unwrap();
                    assert_eq!(
                        serde_json::to_string(&a).unwrap(),
                        serde_json::to_string(&b).unwrap(),
                        "round {round}"
                    );
                }
            }
        }
        assert!(read_once > 20, "{read_once}");
    }

    /// The audit's groups are the distinct tuples of visible cells, counted here from the
    /// strings: on tables whose codes pack into 64 bits and on tables of many columns of
    /// many values, whose codes do not (the audit then groups by the codes themselves),
    /// with suppressed rows; and k-anonymity holds exactly when the smallest group has k.
    #[test]
    fn groups_are_the_distinct_visible_tuples_packed_or_not() {
        let mut rng = ChaCha8Rng::seed_from_u64(41);
        let (mut wide, mut failed) = (0, 0);
        for round in 0..60 {
            // every third table: 12 columns of about 100 values each, 100^12 > 2^64
            let many = round % 3 == 0;
            let columns = if many { 12 } else { rng.gen_range(1..5) };
            let values = if many { 200 } else { rng.gen_range(1..6) };
            let rows = if many {
                rng.gen_range(200..400)
            } else {
                rng.gen_range(1..400)
            };
            let names: Vec<String> = (0..columns).map(|c| format!("q{c}")).collect();
            let mut text = format!("{},other\n", names.join(","));
            let mut cells: Vec<Vec<String>> = Vec::new();
            for r in 0..rows {
                let suppressed = rng.gen_bool(0.1);
                let row: Vec<String> = (0..columns)
                    .map(|_| {
                        if suppressed {
                            "*".to_owned()
                        } else if many && r % 2 == 0 {
                            // half the rows alike, so that groups of several form
                            "v0".to_owned()
                        } else {
                            format!("v{}", rng.gen_range(0..values))
                        }
                    })
                    .collect();
                let other = if suppressed { "*" } else { "x" };
                text.push_str(&format!("{},{other}\n", row.join(",")));
                if !suppressed {
                    cells.push(row);
                }
            }
            let table =
                Table::from_bytes(text.as_bytes(), Path::new("t.csv"), &CsvFormat::default())
                    .unwrap();
            let product: f64 = (0..columns)
                .map(|c| table.dictionary(c).len() as f64)
                .product();
            wide += usize::from(product > u64::MAX as f64);
            let mut groups: HashMap<&Vec<String>, usize> = HashMap::new();
            for row in &cells {
                *groups.entry(row).or_default() += 1;
            }
            let smallest = groups.values().copied().min().unwrap_or(usize::MAX);
            let k = rng.gen_range(1..4);
            let order: Vec<usize> = (0..rows).collect();
            let audit = audit_table(
                ReadBack::whole(&table),
                &Expected {
                    quasi: &names,
                    models: &[ModelSpec::KAnonymity { k }],
                    original: &table,
                    safety: None,
                    rows: &order,
                    public: &[],
                    presence: None,
                },
            )
            .unwrap();
            assert_eq!(audit.released_groups, groups.len(), "round {round}");
            assert_eq!(audit.suppressed_rows, rows - cells.len(), "round {round}");
            assert_eq!(audit.passed, smallest >= k as usize, "round {round}");
            failed += usize::from(!audit.passed);
        }
        assert!(wide >= 15 && failed > 5, "{wide} {failed}");
    }
}
