//! The safety test of a set table (paper 002 section 4.2): R_τ by person and record types,
//! reduced to the links on some perfect matching, and three-valued knowledge by clausal
//! form.

use rustc_hash::FxHashMap;
use serde::Serialize;

use super::SetTable;
use crate::criteria::matching;
use crate::data::confidentiality::has;

/// Persons by type: their exact public tuples, computed once per problem.
#[derive(Debug)]
pub(crate) struct Persons {
    /// Type of each row's person.
    of: Vec<u32>,
    /// Public tuple (leaf per quasi-identifier) of each type.
    tuples: Vec<Vec<u32>>,
    /// Persons of each type.
    counts: Vec<u32>,
}

impl Persons {
    fn of(table: &SetTable) -> Persons {
        let n = table.rows();
        let m1 = table.problem.data.quasi.len();
        let mut index: FxHashMap<Vec<u32>, u32> = FxHashMap::default();
        let mut of = Vec::with_capacity(n);
        let mut tuples: Vec<Vec<u32>> = Vec::new();
        let mut counts: Vec<u32> = Vec::new();
        // keys are built in one buffer and copied only for a new type
        let mut t: Vec<u32> = Vec::with_capacity(m1);
        for r in 0..n {
            t.clear();
            t.extend((0..m1).map(|j| table.original[j][r]));
            let p = match index.get(t.as_slice()) {
                Some(&p) => p,
                None => {
                    let p = counts.len() as u32;
                    counts.push(0);
                    tuples.push(t.clone());
                    index.insert(t.clone(), p);
                    p
                }
            };
            counts[p as usize] += 1;
            of.push(p);
        }
        Persons { of, tuples, counts }
    }
}

/// The safety verdict on a set table.
#[derive(Debug, Clone, Serialize)]
pub struct SetSafety {
    /// Whether no person is exposed.
    pub safe: bool,
    /// Number of exposed persons.
    pub unsafe_persons: usize,
    /// (1-based row, person, formula ids) of the first unsafe persons.
    pub exposures: Vec<(usize, String, Vec<String>)>,
    /// |R_τ| and |R_τ↓| (person–record links).
    pub links: u64,
    /// Size of R_τ↓.
    pub reduced_links: u64,
    /// Distinct public tuples of persons and of records.
    pub person_types: usize,
    /// Distinct public tuples of records (`person_types` counts those of persons).
    pub record_types: usize,
}

impl SetTable<'_> {
    /// Formulas known of any person who may own record `i`: those whose clausal form holds
    /// in every reasonable completion of the record's confidential cells.
    pub(super) fn known_in_record(&self, i: usize) -> Vec<u64> {
        let c = self.confidentiality();
        let first = self.problem.data.quasi.len();
        let mut bits = vec![0u64; c.profiles.words];
        for (f, nf) in c.formulas.iter().enumerate() {
            if c.personal[f] {
                continue; // decided per person in `safety`
            }
            let cell = |d: usize, v: usize| has(self.cell(i, first + d), v);
            let size = |d: usize| c.vocabulary[d].values.len();
            if nf.cnf.known(&cell, &size) {
                bits[f / 64] |= 1 << (f % 64);
            }
        }
        bits
    }

    /// The safety test of section 4.2, listing at most `limit` unsafe persons.
    pub fn safety(&self, limit: usize) -> SetSafety {
        let c = self.confidentiality();
        let n = self.rows();
        let m1 = self.problem.data.quasi.len();
        // person types: exact public tuples (the same for every set table of the problem)
        let persons = self
            .problem
            .persons
            .get_or_init(|| std::sync::Arc::new(Persons::of(self)))
            .clone();
        let (person_of, person_tuples, a) = (&persons.of, &persons.tuples, &persons.counts);
        // record types: generalized public tuples
        let mut record_index: FxHashMap<Vec<u64>, u32> = FxHashMap::default();
        let mut record_of = Vec::with_capacity(n);
        let mut record_rows: Vec<Vec<usize>> = Vec::new();
        let mut key: Vec<u64> = Vec::new();
        for r in 0..n {
            key.clear();
            for j in 0..m1 {
                key.extend_from_slice(self.cell(r, j));
            }
            let q = match record_index.get(key.as_slice()) {
                Some(&q) => q,
                None => {
                    let q = record_rows.len() as u32;
                    record_rows.push(Vec::new());
                    record_index.insert(key.clone(), q);
                    q
                }
            };
            record_rows[q as usize].push(r);
            record_of.push(q);
        }
        let b: Vec<u32> = record_rows.iter().map(|rows| rows.len() as u32).collect();
        // compatibility edges, indexed by the columns where a record's cell is exact
        let mut by_pattern: FxHashMap<Vec<usize>, FxHashMap<Vec<u32>, Vec<u32>>> =
            FxHashMap::default();
        let mut edges: Vec<(u32, u32)> = Vec::new();
        for (q, rows) in record_rows.iter().enumerate() {
            let r = rows[0];
            let exact: Vec<usize> = (0..m1).filter(|&j| !self.is_generalized(r, j)).collect();
            let index = by_pattern.entry(exact.clone()).or_insert_with(|| {
                let mut index: FxHashMap<Vec<u32>, Vec<u32>> = FxHashMap::default();
                for (p, t) in person_tuples.iter().enumerate() {
                    index
                        .entry(exact.iter().map(|&j| t[j]).collect())
                        .or_default()
                        .push(p as u32);
                }
                index
            });
            let key: Vec<u32> = exact.iter().map(|&j| self.original[j][r]).collect();
            for &p in index.get(&key).map(|v| v.as_slice()).unwrap_or(&[]) {
                let t = &person_tuples[p as usize];
                if (0..m1).all(|j| has(self.cell(r, j), t[j] as usize)) {
                    edges.push((p, q as u32));
                }
            }
        }
        let usable = matching::usable(a, &b, &edges).expect("the identity is a perfect matching");
        let links: u64 = edges
            .iter()
            .map(|&(p, q)| a[p as usize] as u64 * b[q as usize] as u64)
            .sum();
        let reduced_links: u64 = edges
            .iter()
            .zip(&usable)
            .filter(|(_, &u)| u)
            .map(|(&(p, q), _)| a[p as usize] as u64 * b[q as usize] as u64)
            .sum();
        // knowledge: ∧ over the records of each record type, then over usable edges
        let words = c.profiles.words;
        let mut known_record: FxHashMap<Vec<u64>, Vec<u64>> = FxHashMap::default();
        let mut key: Vec<u64> = Vec::new();
        let known_q: Vec<Vec<u64>> = record_rows
            .iter()
            .map(|rows| {
                let mut k = vec![u64::MAX; words];
                for &r in rows {
                    key.clear();
                    for j in m1..self.columns.len() {
                        key.extend_from_slice(self.cell(r, j));
                    }
                    if !known_record.contains_key(key.as_slice()) {
                        known_record.insert(key.clone(), self.known_in_record(r));
                    }
                    let kr = &known_record[key.as_slice()];
                    for w in 0..words {
                        k[w] &= kr[w];
                    }
                }
                k
            })
            .collect();
        let mut known_p = vec![vec![u64::MAX; words]; a.len()];
        for (&(p, q), &u) in edges.iter().zip(&usable) {
            if u {
                for w in 0..words {
                    known_p[p as usize][w] &= known_q[q as usize][w];
                }
            }
        }
        self.personal_knowledge(person_tuples, &edges, &usable, &record_rows, &mut known_p);
        let mut exposures = Vec::new();
        let mut unsafe_persons = 0;
        for (r, &p) in person_of.iter().enumerate() {
            let formulas: Vec<String> = c.con_sets[c.con_of_row[r] as usize]
                .iter()
                .filter(|&&(f, _)| has(&known_p[p as usize], f as usize))
                .map(|&(f, _)| c.formulas[f as usize].id.clone())
                .collect();
            if !formulas.is_empty() {
                unsafe_persons += 1;
                if exposures.len() < limit {
                    exposures.push((r + 1, c.person(&self.problem.data.table, r), formulas));
                }
            }
        }
        let _ = record_of;
        SetSafety {
            safe: unsafe_persons == 0,
            unsafe_persons,
            exposures,
            links,
            reduced_links,
            person_types: a.len(),
            record_types: record_rows.len(),
        }
    }

    /// The formulas mentioning public attributes, known of each person type: an atom over
    /// a public attribute is decided by the person's own value (paper 002: ν((u, i), (j, α))
    /// = 1 iff ι(u)_j ∈ α), the others three-valued on each record the person may own.
    fn personal_knowledge(
        &self,
        person_tuples: &[Vec<u32>],
        edges: &[(u32, u32)],
        usable: &[bool],
        record_rows: &[Vec<usize>],
        known_p: &mut [Vec<u64>],
    ) {
        let c = self.confidentiality();
        let personal: Vec<usize> = (0..c.formulas.len()).filter(|&f| c.personal[f]).collect();
        if personal.is_empty() {
            return;
        }
        let first = self.problem.data.quasi.len();
        // per public domain: its quasi-identifier, and each leaf's code in the domain
        let public: Vec<Option<(usize, Vec<Option<u32>>)>> = c
            .vocabulary
            .iter()
            .map(|d| {
                if !d.public {
                    return None;
                }
                let j = self
                    .problem
                    .data
                    .quasi
                    .iter()
                    .position(|q| q.column == d.column)?;
                let h = &self.problem.data.quasi[j].hierarchy;
                let codes = (0..h.leaf_count() as u32)
                    .map(|leaf| {
                        let label = h.label(0, leaf);
                        d.values.iter().position(|v| v == label).map(|x| x as u32)
                    })
                    .collect();
                Some((j, codes))
            })
            .collect();
        let size = |d: usize| c.vocabulary[d].values.len();
        let mut known = vec![vec![true; personal.len()]; person_tuples.len()];
        for (&(p, q), _) in edges.iter().zip(usable).filter(|(_, &u)| u) {
            let t = &person_tuples[p as usize];
            for &r in &record_rows[q as usize] {
                for (k, &f) in personal.iter().enumerate() {
                    if !known[p as usize][k] {
                        continue;
                    }
                    let cell = |d: usize, v: usize| match &public[d] {
                        Some((j, codes)) => codes[t[*j] as usize] == Some(v as u32),
                        None => has(self.cell(r, first + d), v),
                    };
                    if !c.formulas[f].cnf.known(&cell, &size) {
                        known[p as usize][k] = false;
                    }
                }
            }
        }
        for (p, bits) in known_p.iter_mut().enumerate() {
            for (k, &f) in personal.iter().enumerate() {
                if known[p][k] {
                    bits[f / 64] |= 1 << (f % 64);
                } else {
                    bits[f / 64] &= !(1 << (f % 64));
                }
            }
        }
    }
}
