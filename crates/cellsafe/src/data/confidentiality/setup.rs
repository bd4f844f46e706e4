//! The `[safety]` config section: the formula catalog and who holds which formula
//! confidential.
//!
//! ```toml
//! [safety]
//! formulas = { ill = "health = 2", rich_ill = "income >= 300K and health in {1, 2}" }
//! each_value = ["occupation"]   # adds `occupation=V` := occupation = V for every value V
//! default = ["ill"]             # CON for everyone ("*": every formula)
//! column = "concerns"           # per person: ids separated by `|`, each optionally `id:damage`
//! file = "con.csv"              # per person: rows `KEY,formula[,damage]` with a header
//! key = "id"                    # the identifier column `file` is keyed by, and names persons
//! damage = { ill = 2.0 }        # default damage of a formula (else 1)
//! order = { health = ["0", "1", "2"] }   # an explicit order for comparisons
//! domain = { income = ["250K"] }         # values beyond those in the data
//! ```
//!
//! CON(u) is the union of `default`, the ids in `u`'s `column` cell and `u`'s rows in `file`.
//! A person's damages are normalized to sum to 1 (paper 000 section 4.1).

use std::collections::BTreeMap;
use std::path::PathBuf;

use rustc_hash::FxHashMap;
use serde::Deserialize;

use super::{Confidentiality, MAX_EACH_VALUE, MAX_FORMULAS};
use crate::data::formula::{self, Domain};
use crate::data::table::Table;
use crate::data::Role;
use crate::error::{Error, Location, Result};

/// `[safety]` as written.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SafetySpec {
    /// The formula catalog: formula text by id.
    #[serde(default)]
    pub formulas: BTreeMap<String, String>,
    /// Columns for which a formula `COLUMN=V` (COLUMN = V) is added for every value V.
    #[serde(default)]
    pub each_value: Vec<String>,
    /// Formula ids every person holds confidential (`*`: every formula).
    #[serde(default)]
    pub default: Vec<String>,
    /// Column whose cell lists a person's formula ids, separated by `|`, each optionally
    /// `id:damage`.
    #[serde(default)]
    pub(crate) column: Option<String>,
    /// CSV file of rows `KEY,formula[,damage]` (with a header), relative to the config file.
    #[serde(default)]
    pub file: Option<PathBuf>,
    /// The identifier column `file` is keyed by; its value also names persons in reports.
    #[serde(default)]
    key: Option<String>,
    /// Default damage of a formula by id (else 1).
    #[serde(default)]
    damage: BTreeMap<String, f64>,
    /// An explicit order of an attribute's values for comparisons, by attribute name.
    #[serde(default)]
    order: BTreeMap<String, Vec<String>>,
    /// Values an attribute can take beyond those in the data (the recipient knows the
    /// domain, not only the values present): they matter when cells are generalized.
    #[serde(default)]
    pub domain: BTreeMap<String, Vec<String>>,
}

/// Builds the confidentiality of `table`. `file` names the config in errors; `resolve`
/// turns the spec's `file` into a path.
pub(crate) fn build(
    spec: &SafetySpec,
    table: &Table,
    roles: &[Role],
    file: &str,
    resolve: impl Fn(&std::path::Path) -> PathBuf,
) -> Result<Confidentiality> {
    let err = |key: &str, message: String| Error::config(file, key, message);
    let column_of = |name: &str, key: &str| -> Result<usize> {
        table
            .column_index(name)
            .ok_or_else(|| err(key, format!("`{name}` is not a column of the input")))
    };
    // formulas may mention the columns released as they are, then (decided by each
    // person's own value; only the gatekeeper takes such formulas) the quasi-identifiers
    let mut vocabulary = Vec::new();
    let columns = (0..table.header().len())
        .filter(|&c| matches!(roles[c], Role::Sensitive | Role::Insensitive))
        .chain((0..table.header().len()).filter(|&c| roles[c] == Role::QuasiIdentifying));
    for c in columns {
        let name = &table.header()[c];
        {
            let order = spec.order.get(name).map(|o| o.as_slice());
            let mut values = table.dictionary(c).values().to_vec();
            for v in spec.domain.get(name).into_iter().flatten() {
                if !values.contains(v) {
                    values.push(v.clone());
                }
            }
            let mut d = Domain::new(name, c, values, order)
                .map_err(|e| err(&format!("safety.order.{name}"), e.to_string()))?;
            d.public = roles[c] == Role::QuasiIdentifying;
            vocabulary.push(d);
        }
    }
    for name in spec.domain.keys() {
        if !vocabulary.iter().any(|d| &d.name == name) {
            return Err(err(
                &format!("safety.domain.{name}"),
                format!("`{name}` is not a quasi-identifying, confidential or insensitive column"),
            ));
        }
    }
    for name in spec.order.keys() {
        if !vocabulary.iter().any(|d| &d.name == name) {
            return Err(err(
                &format!("safety.order.{name}"),
                format!("`{name}` is not a confidential or insensitive column"),
            ));
        }
    }
    let mut formulas = Vec::new();
    let mut warnings = Vec::new();
    let too_many = |key: &str| {
        err(
            key,
            format!("the formula catalog may hold at most {MAX_FORMULAS} formulas"),
        )
    };
    if spec.formulas.len() > MAX_FORMULAS {
        return Err(too_many("safety.formulas"));
    }
    for (id, text) in &spec.formulas {
        check_id(id).map_err(|m| err(&format!("safety.formulas.{id}"), m))?;
        let (f, absent) = formula::parse_noting_absent(text, &vocabulary)
            .map_err(|e| err(&format!("safety.formulas.{id}"), e.render(text)))?;
        for a in absent {
            warnings.push(format!(
                "{file}: config key `safety.formulas.{id}`: {a}; no record matches it"
            ));
        }
        if f.clauses(super::CLAUSE_LIMIT).is_none() {
            return Err(err(
                &format!("safety.formulas.{id}"),
                format!(
                    "the formula has more than {} clauses in clausal form; split it",
                    super::CLAUSE_LIMIT
                ),
            ));
        }
        formulas.push((id.clone(), text.clone(), f));
    }
    let mut taken: rustc_hash::FxHashSet<String> = spec.formulas.keys().cloned().collect();
    for (i, name) in spec.each_value.iter().enumerate() {
        let key = format!("safety.each_value[{i}]");
        let Some(d) = vocabulary.iter().position(|d| &d.name == name) else {
            return Err(err(
                &key,
                format!("`{name}` is not a confidential or insensitive column"),
            ));
        };
        let count = vocabulary[d].values.len();
        if count > MAX_EACH_VALUE {
            return Err(err(
                &key,
                format!(
                    "`{name}` has {count} distinct values; `each_value` takes columns with at \
                     most {MAX_EACH_VALUE}"
                ),
            ));
        }
        if formulas.len() + count > MAX_FORMULAS {
            return Err(too_many(&key));
        }
        for (code, v) in vocabulary[d].values.iter().enumerate() {
            let id = format!("{name}={v}");
            if !taken.insert(id.clone()) {
                return Err(err(&key, format!("formula id `{id}` is defined twice")));
            }
            let mut values = vec![false; count];
            values[code] = true;
            let text = format!("{name} = \"{v}\"");
            let f = formula::Formula::Atom(formula::Atom { domain: d, values });
            formulas.push((id, text, f));
        }
    }
    let ids: FxHashMap<String, u32> = formulas
        .iter()
        .enumerate()
        .map(|(i, (id, _, _))| (id.clone(), i as u32))
        .collect();
    let lookup = |id: &str, key: &str| -> Result<u32> {
        ids.get(id)
            .copied()
            .ok_or_else(|| err(key, format!("`{id}` is not a formula id")))
    };
    for (id, &w) in &spec.damage {
        lookup(id, &format!("safety.damage.{id}"))?;
        if !(w.is_finite() && w > 0.0) {
            return Err(err(
                &format!("safety.damage.{id}"),
                "a damage must be a positive number".into(),
            ));
        }
    }
    let damage = |f: u32| {
        spec.damage
            .get(&formulas[f as usize].0)
            .copied()
            .unwrap_or(1.0)
    };
    let mut default = Vec::new();
    for (i, id) in spec.default.iter().enumerate() {
        if id == "*" {
            default.extend((0..formulas.len() as u32).map(|f| (f, damage(f))));
        } else {
            let f = lookup(id, &format!("safety.default[{i}]"))?;
            default.push((f, damage(f)));
        }
    }
    let n = table.rows();
    let mut personal: Vec<Vec<(u32, f64)>> = vec![Vec::new(); n];
    if let Some(name) = &spec.column {
        let c = column_of(name, "safety.column")?;
        if roles[c] == Role::QuasiIdentifying {
            return Err(err(
                "safety.column",
                format!("`{name}` is a quasi-identifier; CON sets must not be public"),
            ));
        }
        let dict = table.dictionary(c);
        // parse each distinct cell once
        let mut parsed: Vec<Vec<(u32, f64)>> = Vec::with_capacity(dict.len());
        for (code, cell) in dict.values().iter().enumerate() {
            let at = || {
                Location::at(
                    table.source(),
                    dict.first_line(code as u32),
                    Some(c as u64 + 1),
                )
            };
            let mut set = Vec::new();
            for item in cell.split('|').map(str::trim).filter(|s| !s.is_empty()) {
                let (id, w) = match item.rsplit_once(':') {
                    Some((id, w)) => {
                        let w: f64 = crate::data::number::parse(w)
                            .filter(|w: &f64| *w > 0.0)
                            .ok_or_else(|| {
                                Error::data(at(), format!("`{w}` is not a positive damage"))
                            })?;
                        (id.trim(), Some(w))
                    }
                    None => (item, None),
                };
                let f = *ids.get(id).ok_or_else(|| {
                    Error::data(at(), format!("`{id}` is not a formula id of [safety]"))
                })?;
                set.push((f, w.unwrap_or_else(|| damage(f))));
            }
            parsed.push(set);
        }
        for (r, p) in personal.iter_mut().enumerate() {
            p.extend_from_slice(&parsed[table.codes(c)[r] as usize]);
        }
    }
    let person_column = match &spec.key {
        Some(k) => Some(column_of(k, "safety.key")?),
        None => None,
    };
    if let Some(path) = &spec.file {
        let Some(key_column) = person_column else {
            return Err(err(
                "safety.file",
                "a CON file needs `safety.key`, the identifier column it is keyed by".into(),
            ));
        };
        read_con_file(
            &resolve(path),
            table,
            key_column,
            &ids,
            &damage,
            &mut personal,
        )?;
    }
    if formulas.is_empty() {
        return Err(err(
            "safety.formulas",
            "no formulas: give `formulas` or `each_value`".into(),
        ));
    }
    // intern CON sets: default ∪ personal
    let mut index: FxHashMap<Vec<(u32, u64)>, u32> = FxHashMap::default();
    let mut con_sets = Vec::new();
    let mut con_of_row = Vec::with_capacity(n);
    for p in personal {
        let mut set = default.clone();
        for (f, w) in p {
            // a personal damage overrides the default one
            match set.iter_mut().find(|(g, _)| *g == f) {
                Some(x) => x.1 = w,
                None => set.push((f, w)),
            }
        }
        set.sort_by_key(|&(f, _)| f);
        let key: Vec<(u32, u64)> = set.iter().map(|&(f, w)| (f, w.to_bits())).collect();
        let next = con_sets.len() as u32;
        let id = *index.entry(key).or_insert_with(|| {
            con_sets.push(set);
            next
        });
        con_of_row.push(id);
    }
    // public domains no formula mentions are dropped: they would only split the profiles
    let confidential = vocabulary.iter().filter(|d| !d.public).count();
    let mut keep: Vec<Option<usize>> = (0..vocabulary.len())
        .map(|d| (d < confidential).then_some(d))
        .collect();
    let mut next = confidential;
    for (d, slot) in keep.iter_mut().enumerate().skip(confidential) {
        if formulas.iter().any(|(_, _, f)| f.domains().contains(&d)) {
            *slot = Some(next);
            next += 1;
        }
    }
    for (_, _, f) in &mut formulas {
        f.remap(&keep);
    }
    let vocabulary: Vec<Domain> = vocabulary
        .into_iter()
        .zip(&keep)
        .filter(|(_, k)| k.is_some())
        .map(|(d, _)| d)
        .collect();
    let mut c = Confidentiality::new(
        table,
        vocabulary,
        formulas,
        con_sets,
        con_of_row,
        person_column,
    )?;
    c.warnings = warnings;
    Ok(c)
}

fn check_id(id: &str) -> Result<(), String> {
    if id.is_empty() || id.contains(['|', ':', '*']) {
        return Err("a formula id must be non-empty and free of `|`, `:` and `*`".into());
    }
    Ok(())
}

fn read_con_file(
    path: &std::path::Path,
    table: &Table,
    key_column: usize,
    ids: &FxHashMap<String, u32>,
    damage: &dyn Fn(u32) -> f64,
    personal: &mut [Vec<(u32, f64)>],
) -> Result<()> {
    let mut rows_of: FxHashMap<&str, usize> = FxHashMap::default();
    for r in 0..table.rows() {
        let k = table.value(r, key_column);
        if let Some(first) = rows_of.insert(k, r) {
            return Err(Error::data(
                Location::at(table.source(), table.line(r), Some(key_column as u64 + 1)),
                format!(
                    "identifier `{}` of column `{}` is on data rows {} and {}, so a CON file \
                     cannot name one person",
                    crate::error::excerpt(k),
                    table.header()[key_column],
                    first + 1,
                    r + 1
                ),
            ));
        }
    }
    let file = crate::input::open(path, crate::input::Kind::Auxiliary)?;
    let mut records = crate::data::table::Records::new(file, path, b',', b'"', false);
    let mut record = csv::StringRecord::new();
    let header_line = records.read(&mut record)?.unwrap_or(1);
    if record.len() < 2 || record.len() > 3 {
        return Err(Error::data(
            Location::at(path, header_line, None),
            "expected the columns: identifier, formula, and optionally damage".to_string(),
        ));
    }
    while let Some(line) = records.read(&mut record)? {
        let at = |col: u64| Location::at(path, line, Some(col));
        let who = record.get(0).unwrap_or("").trim();
        let r = *rows_of.get(who).ok_or_else(|| {
            Error::data(
                at(1),
                format!(
                    "`{}` is not an identifier in column `{}`",
                    crate::error::excerpt(who),
                    table.header()[key_column]
                ),
            )
        })?;
        let id = record.get(1).unwrap_or("").trim();
        let f = *ids.get(id).ok_or_else(|| {
            Error::data(
                at(2),
                format!(
                    "`{}` is not a formula id of [safety]",
                    crate::error::excerpt(id)
                ),
            )
        })?;
        let w = match record.get(2).map(str::trim).filter(|s| !s.is_empty()) {
            Some(w) => crate::data::number::parse(w)
                .filter(|w| *w > 0.0)
                .ok_or_else(|| {
                    Error::data(
                        at(3),
                        format!("`{}` is not a positive damage", crate::error::excerpt(w)),
                    )
                })?,
            None => damage(f),
        };
        personal[r].push((f, w));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Regression: `inf` was read as a positive damage (normalized to NaN weights); damages
    /// are read by the one number parser, which refuses non-finite values.
    #[test]
    fn a_damage_must_be_a_finite_positive_number() {
        let header = ["zip", "disease", "con"].map(String::from).to_vec();
        let spec = SafetySpec {
            formulas: [("hiv".to_string(), "disease = hiv".to_string())].into(),
            column: Some("con".into()),
            ..Default::default()
        };
        let roles = [Role::QuasiIdentifying, Role::Sensitive, Role::Identifying];
        let build_with = |cell: &str| {
            let rows = vec![vec!["1".into(), "hiv".into(), cell.to_string()]];
            let table = Table::from_rows(header.clone(), &rows).unwrap();
            build(&spec, &table, &roles, "job.toml", |p| p.to_path_buf())
        };
        assert!(build_with("hiv:2").is_ok());
        assert!(build_with("hiv:2K").is_ok());
        for bad in ["hiv:inf", "hiv:NaN", "hiv:0", "hiv:-1"] {
            let e = build_with(bad).unwrap_err();
            assert!(e.to_string().contains("positive damage"), "{bad}: {e}");
        }
    }
}
