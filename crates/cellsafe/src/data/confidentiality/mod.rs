//! Logical safety: what each person holds confidential, and whether a release lets the
//! recipient know it (papers 000 and 002).
//!
//! A person `u` states a set CON(u) of [formulas](crate::data::formula) over the non-public attributes,
//! with damage weights. After a release, the recipient knows φ of `u` when φ holds in every
//! record `u` cannot be told apart from; the release is *safe* when that happens for no
//! person and no φ ∈ CON(u).
//!
//! For level-based generalization the records `u` cannot be told apart from are `u`'s
//! equivalence class, so safety is a property of classes. Rows are reduced to *profiles*:
//! which catalog formulas the row's record satisfies, and which CON set its person holds.
//! A class is unsafe iff (∧ of its members' satisfied sets) ∩ (∪ of their CON sets) ≠ ∅:
//! some formula holds of every member and someone in the class holds it confidential. Both
//! sides are the paper 000 "characteristic function" and roll up under generalization by ∧
//! and ∪, so the profile becomes one more sensitive histogram in the core's classes and
//! every search of the core works unchanged.
//!
//! - [`crate::data::formula`]: the formula language, its clausal normal form and
//!   three-valued truth;
//! - [`setup`]: the `[safety]` spec, CON sets from the spec, a column or a file;
//! - `crate::algorithm::safety`: the level-based safety test with unsafe persons; the
//!   measure sf is in `crate::metric`.

pub mod setup;

use fixedbitset::FixedBitSet;
use rustc_hash::FxHashMap;

use crate::data::formula::{Cnf, Domain, Formula};
use crate::data::table::Table;
use crate::error::{DataError, Error, Result};

/// The most clauses a formula's clausal normal form may have.
const CLAUSE_LIMIT: usize = 4096;
/// The most formulas in the catalog (`formulas` and those `each_value` adds).
const MAX_FORMULAS: usize = 4096;
/// The most distinct values (in the data and `domain`) of a column in `each_value`.
const MAX_EACH_VALUE: usize = 1000;

/// A formula of the catalog.
#[derive(Debug, Clone)]
pub struct NamedFormula {
    /// Its id in `[safety] formulas` (or `column=value` for `each_value`).
    pub(crate) id: String,
    /// Its text as written.
    pub text: String,
    /// The parsed formula.
    pub(crate) formula: Formula,
    /// Its clausal normal form (three-valued knowledge is decided on it).
    pub(crate) cnf: Cnf,
    /// Share of persons whose record satisfies it: the prior Pr(φ) of sf.
    prior: f64,
}

/// Which person holds what confidential, and the profile of every row.
#[derive(Debug, Clone)]
pub struct Confidentiality {
    /// The columns formulas mention, with their domains.
    pub(crate) vocabulary: Vec<Domain>,
    /// The catalog of formulas; bit `f` of a profile's sets is formula `f`.
    pub formulas: Vec<NamedFormula>,
    /// Distinct CON sets: (formula, damage normalized so the set sums to 1), by formula.
    pub con_sets: Vec<Vec<(u32, f64)>>,
    /// Per row, the index of its person's CON set in `con_sets`.
    pub con_of_row: Vec<u32>,
    /// Column naming persons in reports (`[safety] key`; else persons are named by the
    /// input line their row starts on).
    person_column: Option<usize>,
    /// Rows grouped by what their record satisfies and what their person demands.
    pub(crate) profiles: Profiles,
    /// Things worth a user's attention that are not errors (values no record has).
    pub(crate) warnings: Vec<String>,
    /// Per formula: whether it mentions a public attribute (decided by each person's own
    /// value; only the set-based safety test takes such formulas).
    pub(crate) personal: Vec<bool>,
}

/// Rows grouped by (formulas their record satisfies, CON set of their person).
///
/// The formula sets of all profiles are kept in flat arrays of 64-bit words, `words` per
/// profile, rather than as one set per profile: [`Profiles::safe`] runs for every class of
/// every node a search evaluates and ANDs and ORs a class's rows word by word, with one
/// word and no allocation in the common case of at most 64 formulas. A set handed out on
/// its own ([`Profiles::exposed`]) is a `FixedBitSet`.
#[derive(Debug, Clone)]
pub(crate) struct Profiles {
    /// Profile of each row.
    pub(crate) of_row: Vec<u32>,
    /// 64-bit words per formula bit set.
    pub(crate) words: usize,
    /// `sat[p * words ..]`: formulas profile `p`'s record satisfies.
    sat: Vec<u64>,
    /// `demand[p * words ..]`: formulas profile `p`'s person holds confidential.
    demand: Vec<u64>,
    /// CON set of each profile.
    con: Vec<u32>,
    /// `codes[p * vocabulary ..]`: the record's value code of each vocabulary domain.
    codes: Vec<u32>,
}

impl Profiles {
    /// Distinct profiles.
    pub(crate) fn len(&self) -> usize {
        self.con.len()
    }
    fn sat(&self, p: usize) -> &[u64] {
        &self.sat[p * self.words..(p + 1) * self.words]
    }
    fn demand(&self, p: usize) -> &[u64] {
        &self.demand[p * self.words..(p + 1) * self.words]
    }

    /// The formulas a recipient learns of a class with profile histogram `hist` that some
    /// member holds confidential (empty: the class is safe).
    pub(crate) fn exposed(&self, hist: &[u32]) -> FixedBitSet {
        let words = self.exposed_words(hist);
        let mut exposed = FixedBitSet::with_capacity(64 * self.words);
        for (w, &word) in words.iter().enumerate() {
            let mut bits = word;
            while bits != 0 {
                exposed.insert(64 * w + bits.trailing_zeros() as usize);
                bits &= bits - 1;
            }
        }
        exposed
    }

    /// [`exposed`](Self::exposed) as words of the flat layout.
    fn exposed_words(&self, hist: &[u32]) -> Vec<u64> {
        let mut known = vec![u64::MAX; self.words];
        let mut demand = vec![0u64; self.words];
        for (p, _) in hist.iter().enumerate().filter(|(_, &c)| c > 0) {
            for w in 0..self.words {
                known[w] &= self.sat(p)[w];
                demand[w] |= self.demand(p)[w];
            }
        }
        for w in 0..self.words {
            known[w] &= demand[w];
        }
        known
    }

    /// Whether a group with profile histogram `hist` is safe when the recipient knows of
    /// profile `p`'s record the formulas in `known[p * words ..]` (instead of those it
    /// satisfies).
    pub(crate) fn safe_with(&self, hist: &[u32], known: &[u64]) -> bool {
        let w = self.words;
        let mut k = vec![u64::MAX; w];
        let mut demand = vec![0u64; w];
        for (p, _) in hist.iter().enumerate().filter(|(_, &c)| c > 0) {
            for i in 0..w {
                k[i] &= known[p * w + i];
                demand[i] |= self.demand(p)[i];
            }
        }
        k.iter().zip(&demand).all(|(a, b)| a & b == 0)
    }

    /// Whether a class with profile histogram `hist` is safe for all its members.
    #[inline]
    pub(crate) fn safe(&self, hist: &[u32]) -> bool {
        if self.words == 1 {
            let (mut known, mut demand) = (u64::MAX, 0u64);
            for (p, &c) in hist.iter().enumerate() {
                if c > 0 {
                    known &= self.sat[p];
                    demand |= self.demand[p];
                }
            }
            return known & demand == 0;
        }
        self.exposed_words(hist).iter().all(|&w| w == 0)
    }
}

/// Whether bit `i` is set in `bits`, one set of a flat array of them (a profile's formulas
/// here, a set table's cell in `algorithm::setbased`).
pub(crate) fn has(bits: &[u64], i: usize) -> bool {
    bits[i / 64] >> (i % 64) & 1 == 1
}

fn set(bits: &mut [u64], i: usize) {
    bits[i / 64] |= 1 << (i % 64);
}

impl Confidentiality {
    /// Evaluates every formula on every distinct record and builds the profiles.
    /// `con_sets` hold raw damages; they are normalized here.
    fn new(
        table: &Table,
        vocabulary: Vec<Domain>,
        formulas: Vec<(String, String, Formula)>,
        mut con_sets: Vec<Vec<(u32, f64)>>,
        con_of_row: Vec<u32>,
        person_column: Option<usize>,
    ) -> Result<Confidentiality> {
        let n = table.rows();
        if con_of_row.len() != n {
            return Err(DataError::ConSets {
                rows: n,
                sets: con_of_row.len(),
            }
            .into());
        }
        for set in &mut con_sets {
            set.sort_by_key(|&(f, _)| f);
            set.dedup_by_key(|&mut (f, _)| f);
            let total: f64 = set.iter().map(|&(_, w)| w).sum();
            if total > 0.0 {
                for (_, w) in set.iter_mut() {
                    *w /= total;
                }
            }
        }
        let words = formulas.len().div_ceil(64).max(1);
        let columns: Vec<usize> = vocabulary.iter().map(|d| d.column).collect();
        let mut index: FxHashMap<(u32, Vec<u32>), u32> = FxHashMap::default();
        let mut profiles = Profiles {
            of_row: Vec::with_capacity(n),
            words,
            sat: Vec::new(),
            demand: Vec::new(),
            con: Vec::new(),
            codes: Vec::new(),
        };
        let mut satisfied = vec![0u64; formulas.len()];
        for (r, &con) in con_of_row.iter().enumerate() {
            let codes: Vec<u32> = columns.iter().map(|&c| table.codes(c)[r]).collect();
            let value = |d: usize| codes[d];
            let next = profiles.con.len() as u32;
            let p = *index.entry((con, codes.clone())).or_insert_with(|| {
                let mut sat = vec![0u64; words];
                for (i, (_, _, f)) in formulas.iter().enumerate() {
                    if f.holds(&value) {
                        set(&mut sat, i);
                    }
                }
                let mut demand = vec![0u64; words];
                for &(f, _) in &con_sets[con as usize] {
                    set(&mut demand, f as usize);
                }
                profiles.sat.extend(sat);
                profiles.demand.extend(demand);
                profiles.con.push(con);
                profiles.codes.extend_from_slice(&codes);
                next
            });
            profiles.of_row.push(p);
        }
        let mut count = vec![0u64; profiles.len()];
        for &p in &profiles.of_row {
            count[p as usize] += 1;
        }
        for (p, &c) in count.iter().enumerate() {
            for (i, s) in satisfied.iter_mut().enumerate() {
                if has(profiles.sat(p), i) {
                    *s += c;
                }
            }
        }
        let formulas = formulas
            .into_iter()
            .zip(satisfied)
            .map(|((id, text, formula), s)| {
                let cnf = formula.clauses(CLAUSE_LIMIT).ok_or_else(|| {
                    Error::DataModel(DataError::TooManyClauses {
                        id: id.clone(),
                        limit: CLAUSE_LIMIT,
                    })
                })?;
                Ok(NamedFormula {
                    id,
                    text,
                    formula,
                    cnf,
                    prior: s as f64 / n.max(1) as f64,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        let personal = formulas
            .iter()
            .map(|f| {
                f.formula
                    .domains()
                    .into_iter()
                    .any(|d| vocabulary[d].public)
            })
            .collect();
        Ok(Confidentiality {
            vocabulary,
            formulas,
            con_sets,
            con_of_row,
            person_column,
            profiles,
            warnings: Vec::new(),
            personal,
        })
    }

    /// Per profile (`words` 64-bit words each, the flat layout of [`Profiles`] that
    /// [`Profiles::safe_with`] reads), the formulas a recipient knows of a suppressed
    /// record: every cell is released as `*` except those of the columns marked
    /// `public` (by table column), so a formula is known only if it holds in every
    /// completion of the starred cells over their domains (a tautology, or one settled by
    /// the public cells).
    pub(crate) fn known_when_suppressed(&self, public: &[bool]) -> Vec<u64> {
        let p = &self.profiles;
        let d = self.vocabulary.len();
        let mut out = vec![0u64; p.len() * p.words];
        for q in 0..p.len() {
            let codes = &p.codes[q * d..(q + 1) * d];
            let cell = |dom: usize, v: usize| {
                !public
                    .get(self.vocabulary[dom].column)
                    .copied()
                    .unwrap_or(false)
                    || codes[dom] as usize == v
            };
            let size = |dom: usize| self.vocabulary[dom].values.len();
            for (f, nf) in self.formulas.iter().enumerate() {
                if nf.cnf.known(&cell, &size) {
                    set(&mut out[q * p.words..(q + 1) * p.words], f);
                }
            }
        }
        out
    }

    /// The first formula mentioning a public attribute, with that attribute: (formula id,
    /// column name).
    pub(crate) fn personal_formula(&self) -> Option<(String, String)> {
        self.formulas.iter().find_map(|f| {
            f.formula
                .domains()
                .into_iter()
                .find(|&d| self.vocabulary[d].public)
                .map(|d| (f.id.clone(), self.vocabulary[d].name.clone()))
        })
    }

    /// How person (row) `r` is named in reports: by the key column, else as `line N`, the
    /// 1-based line of the input file where the row starts (what a user can look up; data
    /// row numbers are off by the header and by quoted newlines).
    pub(crate) fn person(&self, table: &Table, r: usize) -> String {
        match self.person_column {
            Some(c) => table.value(r, c).to_string(),
            None => format!("line {}", table.line(r)),
        }
    }

    /// Σ over the members of a class of ri(τ, u), paper 000 section 4.1: for each φ ∈ CON(u)
    /// the damage-weighted information gain max(1 − log Prτ(φ|u) / log Pr(φ), 0).
    pub(crate) fn class_risk(&self, hist: &[u32], count: u32) -> f64 {
        let p = &self.profiles;
        let mut holding: FxHashMap<u32, u32> = FxHashMap::default();
        let mut risk = 0.0;
        let members: Vec<(usize, u32)> = hist
            .iter()
            .enumerate()
            .filter(|(_, &c)| c > 0)
            .map(|(q, &c)| (q, c))
            .collect();
        for &(q, c) in &members {
            for &(f, w) in &self.con_sets[p.con[q] as usize] {
                let k = *holding.entry(f).or_insert_with(|| {
                    members
                        .iter()
                        .filter(|&&(x, _)| has(p.sat(x), f as usize))
                        .map(|&(_, m)| m)
                        .sum()
                });
                risk += c as f64 * w * gain(self.formulas[f as usize].prior, k, count);
            }
        }
        risk
    }
}

/// max(1 − log(k/n) / log(prior), 0), with no gain when the prior is 0 or 1 or k = 0.
fn gain(prior: f64, k: u32, n: u32) -> f64 {
    if k == 0 || n == 0 || prior <= 0.0 || prior >= 1.0 {
        return 0.0;
    }
    let posterior = k as f64 / n as f64;
    (1.0 - posterior.ln() / prior.ln()).max(0.0)
}
