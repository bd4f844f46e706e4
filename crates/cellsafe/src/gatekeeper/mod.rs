//! The gatekeeper of paper 002 (section 4.4, figure 14): a recipient queries the data
//! center freely, and every answer is filtered, tested, generalized when unsafe, and
//! recorded as what that recipient now holds. The paper's test judges each answer alone;
//! judging it together with everything the recipient received before (their
//! [`Knowledge`]) is cellsafe's extension.
//!
//! A [`Center`] is one table with its roles, hierarchies, confidential formulas and
//! class-based models. [`Center::answer`] takes a [`Request`] (columns and conditions), the
//! rows the database found for it, and the recipient's [`Knowledge`], and returns an
//! [`Answer`]:
//!
//! 1. *filter*: identifying columns are dropped (a condition on one is refused);
//! 2. *test*: the answer is safe when the recipient's knowledge with this answer added is
//!    safe under paper 002's set-based semantics (persons linked to rows through their
//!    public values, links kept only on some perfect matching, confidential formulas known
//!    in three-valued logic), and the answer's own classes satisfy every configured
//!    class-based model;
//! 3. *generalize*: when it is not, the selected quasi-identifiers are generalized by
//!    hierarchy levels, layer by layer of the lattice from the bottom (figure 11), and the
//!    safe answer generalizing the fewest cells in the lowest layer is chosen; when even
//!    the top is unsafe the answer is refused;
//! 4. *answer*: rows in a fresh random order (positions must not link rows across
//!    answers), and the [`Disclosure`] the front end records with its audit entry and
//!    adds to the recipient's knowledge.
//!
//! The front end (the service) owns the database, the query language, users and the audit
//! log; this layer owns the decision.
//!
//! # Public
//!
//! Paper 002's decisions are computed from the confidential values, so a decision can
//! speak: a refusal of the second of two differencing queries says that the rows they
//! differ by hold a confidential value. With `decide = "public"` ([`Decide::Public`]) the
//! decision uses only what the recipient holds or can compute: the public values, the
//! query (its conditions may then test only quasi-identifying columns, so that the
//! recipient can compute every answer's rows), and the recipient's earlier answers. The
//! test is k-anonymity of everything received together: persons are told apart by their
//! *signature* (in which answers they appear, and the public cells each showed), and every
//! person who appears in some answer must share their signature with at least k − 1
//! others, k the largest of the k-anonymity models (the only class-based model allowed
//! in this mode). Rows of different answers may then be linked at will: a row can only
//! belong to a person of its signature. The lowest lattice layer with such a node is
//! released (fewest generalized cells first), else the answer is refused; swapping
//! confidential values between persons changes no decision. What it gives up is attribute
//! protection: a class of k persons who all have the same diagnosis shows it.

pub(crate) mod answer;
mod knowledge;
mod public;
mod request;
mod sets;

use std::collections::BTreeMap;

use rustc_hash::FxHashMap;
use serde::Deserialize;

pub use answer::{Answer, Method, Outcome, Verdict};
pub use knowledge::{DisclosedColumn, Disclosure, Knowledge};
pub use request::{plain_number, Condition, Request, Test};

use crate::algorithm::problem::Problem;
use crate::algorithm::setbased::SetTable;
use crate::criteria::ModelSpec;
use crate::data::Role;
use crate::error::{CenterError, Result};
use crate::framework::dataset::Dataset;
use crate::metric::MetricSpec;

/// `[gatekeeper]`: how answers are generalized.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct GatekeeperSpec {
    /// Most generalizations tested by each search for one answer (default 4096).
    pub max_tests: usize,
    /// Most work for each search of one answer, in table rows examined by safety tests
    /// (default 50,000,000: 250 tests of a 200,000-row table); a search stops before it
    /// would spend more, so no query can hold the service for long.
    pub max_work: u64,
    /// Which generalizations are sought when an answer is unsafe as asked (default both;
    /// set-based ones need every class-based model to be k-anonymity).
    pub generalization: Generalization,
    /// The starting radius r0 of the neighbourhoods N_r of a numeric column, by name
    /// (default: the smallest gap between two of its values).
    pub radius: BTreeMap<String, f64>,
    /// Answers of at most this many rows get the exact search for ⊒-maximal set-based
    /// generalizations; larger ones the goal-directed merge (default 8).
    pub max_exact_rows: usize,
    /// Most rounds of the goal-directed merge (default 200).
    pub max_merge_rounds: usize,
    /// What decisions may depend on (default: the data, as paper 002).
    pub decide: Decide,
    /// The columns compared as numbers (ordering tests, numeric equality, radius
    /// neighbourhoods); every value of each must be a plain number. Default: every column
    /// whose values all are. Listed, every other column is text: compared by its exact
    /// text, so a zip code `03067` never equals `3067`.
    pub numeric: Option<Vec<String>>,
}

/// `[gatekeeper] decide`: what the gatekeeper's decisions may depend on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Decide {
    /// Paper 002's gatekeeper: release, generalization and refusal are decided on the
    /// data, confidential values included, so a decision itself can tell the recipient
    /// something about them (see the module docs).
    #[default]
    Data,
    /// Decisions from public information only (the public values, the query, and the
    /// recipient's earlier answers): k-anonymity of everything the recipient received,
    /// decided the same whatever the confidential values are. See [`public`](self#public).
    Public,
}

impl Default for GatekeeperSpec {
    fn default() -> Self {
        GatekeeperSpec {
            max_tests: 4096,
            max_work: 50_000_000,
            generalization: Generalization::Both,
            radius: BTreeMap::new(),
            max_exact_rows: 8,
            max_merge_rounds: 200,
            decide: Decide::Data,
            numeric: None,
        }
    }
}

/// `[gatekeeper] generalization`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Generalization {
    /// Hierarchy levels only.
    Levels,
    /// Set-based only (radius, then the exact search or the merge).
    Sets,
    /// Both; the answer losing least is released.
    Both,
}

/// One column that may be released: a quasi-identifier (public, generalized by levels)
/// or a column formulas may mention (released as it is).
#[derive(Debug, Clone)]
pub(crate) struct CenterColumn {
    pub(crate) name: String,
    /// Index among the dataset's quasi-identifiers, for a public column.
    pub(crate) quasi: Option<usize>,
    /// Values by code: hierarchy leaves (public) or the domain (others).
    pub(crate) values: Vec<String>,
    index: FxHashMap<String, u32>,
    /// Every value is a plain number.
    pub(crate) numeric: bool,
    /// Codes in value order: by number when numeric, else by text.
    pub(crate) order: Vec<u32>,
    /// Position of each code in `order`.
    pub(crate) rank: Vec<u32>,
    pub(crate) words: usize,
}

impl CenterColumn {
    pub(crate) fn all(&self) -> Vec<u64> {
        self.bits_of(0..self.values.len() as u32)
    }
    pub(crate) fn bits_of(&self, codes: impl IntoIterator<Item = u32>) -> Vec<u64> {
        let mut b = vec![0u64; self.words];
        for v in codes {
            b[v as usize / 64] |= 1 << (v % 64);
        }
        b
    }
    pub(crate) fn bits_where(&self, pass: &[bool]) -> Vec<u64> {
        self.bits_of((0..pass.len() as u32).filter(|&v| pass[v as usize]))
    }
    pub(crate) fn code(&self, value: &str) -> Option<u32> {
        self.index.get(value).copied()
    }
    /// The number of value `code` (numeric columns).
    pub(crate) fn number(&self, code: u32) -> f64 {
        plain_number(&self.values[code as usize]).unwrap_or(f64::NAN)
    }
    pub(crate) fn members(&self, cell: &[u64]) -> Vec<u32> {
        (0..self.values.len() as u32)
            .filter(|&v| has(cell, v as usize))
            .collect()
    }
    pub(crate) fn size(&self, cell: &[u64]) -> usize {
        cell.iter().map(|w| w.count_ones() as usize).sum()
    }
    /// How a released set cell is written: the value, `*` (every value), `[lo,hi]` (every
    /// value of a numeric column from lo to hi) or `{a,b}` in value order, with `\`, `,`,
    /// `{` and `}` escaped.
    pub(crate) fn render(&self, cell: &[u64]) -> String {
        let m = self.members(cell);
        if m.len() == 1 {
            return self.values[m[0] as usize].clone();
        }
        if m.len() == self.values.len() {
            return "*".into();
        }
        let mut sorted = m;
        sorted.sort_by_key(|&v| self.rank[v as usize]);
        let contiguous = sorted
            .windows(2)
            .all(|w| self.rank[w[1] as usize] == self.rank[w[0] as usize] + 1);
        if self.numeric && contiguous {
            let (lo, hi) = (sorted[0], sorted[sorted.len() - 1]);
            return format!(
                "[{},{}]",
                self.values[lo as usize], self.values[hi as usize]
            );
        }
        let mut out = String::from("{");
        for (i, &v) in sorted.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            for c in self.values[v as usize].chars() {
                if matches!(c, '\\' | ',' | '{' | '}') {
                    out.push('\\');
                }
                out.push(c);
            }
        }
        out.push('}');
        out
    }
}

/// A table of the data center, ready to answer queries.
#[derive(Debug)]
pub struct Center {
    problem: Problem,
    /// The columns that may be released: quasi-identifiers, then those formulas mention.
    pub(crate) columns: Vec<CenterColumn>,
    /// Per column, each row's value code.
    pub(crate) original: Vec<Vec<u32>>,
    /// The class-based models every answer's classes must satisfy.
    models: Vec<ModelSpec>,
    spec: GatekeeperSpec,
}

impl Center {
    /// A center over `data` (its confidential formulas attached; a dataset without them is
    /// judged by the class-based models alone). `models` are the configured models:
    /// `logical-safety` is decided on the recipient's whole knowledge, the others on each
    /// answer's classes.
    pub fn new(data: Dataset, models: &[ModelSpec], spec: GatekeeperSpec) -> Result<Center> {
        let data = if data.confidentiality.is_none() {
            let roles = data.roles.clone();
            let c = crate::data::confidentiality::setup::build(
                &Default::default(),
                &data.table,
                &roles,
                "<gatekeeper>",
                |p| p.to_path_buf(),
            )?;
            data.with_confidentiality(c)
        } else {
            data
        };
        let models: Vec<ModelSpec> = models
            .iter()
            .filter(|m| !matches!(m, ModelSpec::LogicalSafety))
            .cloned()
            .collect();
        if let Some(m) = models
            .iter()
            .find(|m| matches!(m, ModelSpec::DeltaPresence { .. }))
        {
            return Err(CenterError::Presence(m.name()).into());
        }
        if spec.decide == Decide::Public {
            if let Some(m) = models
                .iter()
                .find(|m| !matches!(m, ModelSpec::KAnonymity { .. }))
            {
                return Err(CenterError::PublicModel(m.name()).into());
            }
            if models.is_empty() {
                return Err(CenterError::PublicWithoutK.into());
            }
        }
        for m in &models {
            crate::criteria::Model::bind(m, &data)?;
        }
        if let Some(listed) = &spec.numeric {
            for name in listed {
                let Some(j) = data.table.column_index(name) else {
                    return Err(CenterError::NumericNoColumn(name.clone()).into());
                };
                if let Some(r) =
                    (0..data.table.rows()).find(|&r| plain_number(data.table.value(r, j)).is_none())
                {
                    return Err(CenterError::NumericNotNumber {
                        column: name.clone(),
                        value: data.table.value(r, j).to_owned(),
                        row: r + 1,
                    }
                    .into());
                }
            }
        }
        let problem = Problem::new(data, &[], 0.0, &MetricSpec::default())?;
        let set = SetTable::new(&problem, &FxHashMap::default())?;
        let columns = set
            .columns
            .iter()
            .map(|c| {
                let quasi = problem.data.quasi.iter().position(|q| q.name == c.name);
                let numeric = match &spec.numeric {
                    Some(listed) => listed.contains(&c.name),
                    None => c.values.iter().all(|v| plain_number(v).is_some()),
                };
                let mut order: Vec<u32> = (0..c.values.len() as u32).collect();
                if numeric {
                    let x = |v: u32| plain_number(&c.values[v as usize]).unwrap_or(0.0);
                    order.sort_by(|&a, &b| x(a).total_cmp(&x(b)).then(a.cmp(&b)));
                } else {
                    order.sort_by(|&a, &b| c.values[a as usize].cmp(&c.values[b as usize]));
                }
                let mut rank = vec![0u32; order.len()];
                for (i, &v) in order.iter().enumerate() {
                    rank[v as usize] = i as u32;
                }
                CenterColumn {
                    name: c.name.clone(),
                    quasi: if c.public { quasi } else { None },
                    numeric,
                    order,
                    rank,
                    index: c
                        .values
                        .iter()
                        .enumerate()
                        .map(|(i, v)| (v.clone(), i as u32))
                        .collect(),
                    words: c.values.len().div_ceil(64).max(1),
                    values: c.values.clone(),
                }
            })
            .collect();
        let original = set.original.iter().map(|o| o.to_vec()).collect();
        drop(set);
        if spec.max_tests == 0 {
            return Err(CenterError::MaxTests.into());
        }
        Ok(Center {
            problem,
            columns,
            original,
            models,
            spec,
        })
    }

    /// Rows of the table.
    pub fn rows(&self) -> usize {
        self.problem.data.rows()
    }

    /// The table's column names, in order.
    pub fn header(&self) -> &[String] {
        self.problem.data.table.header()
    }

    /// The role of column `name`.
    pub fn role(&self, name: &str) -> Option<Role> {
        let c = self.problem.data.table.column_index(name)?;
        Some(self.problem.data.roles[c])
    }

    /// The dataset the center answers from.
    pub fn data(&self) -> &Dataset {
        &self.problem.data
    }

    /// The rows (0-based) passing every condition, computed from the table in memory: the
    /// front end checks the database's result against it.
    pub fn matching_rows(&self, conditions: &[Condition]) -> Result<Vec<u32>> {
        let tests = self.tests(conditions)?;
        Ok((0..self.rows() as u32)
            .filter(|&i| {
                tests
                    .iter()
                    .all(|(j, pass)| has(pass, self.original[*j][i as usize] as usize))
            })
            .collect())
    }

    /// Whether column `name` compares as numbers (every value a plain number).
    pub fn is_numeric(&self, name: &str) -> bool {
        self.set_column(name)
            .is_some_and(|j| self.columns[j].numeric)
    }

    /// Checks a request's columns and conditions without answering it: the errors
    /// [`answer`](Self::answer) would return for them.
    pub fn validate(&self, request: &Request) -> Result<()> {
        let table = &self.problem.data.table;
        let mut releasable = false;
        for c in &request.columns {
            if c == "*" {
                releasable |= !self.columns.is_empty();
                continue;
            }
            if table.column_index(c).is_none() {
                return Err(crate::error::QueryError::UnknownColumn(c.clone()).into());
            }
            releasable |= self.set_column(c).is_some();
        }
        if !releasable {
            return Err(crate::error::QueryError::NoColumns.into());
        }
        self.tests(&request.conditions).map(|_| ())
    }

    pub(crate) fn set_column(&self, name: &str) -> Option<usize> {
        self.columns.iter().position(|c| c.name == name)
    }

    /// Each condition as (set column, bits of the values passing it).
    pub(crate) fn tests(&self, conditions: &[Condition]) -> Result<Vec<(usize, Vec<u64>)>> {
        conditions
            .iter()
            .map(|c| {
                let Some(t) = self.problem.data.table.column_index(&c.column) else {
                    return Err(crate::error::QueryError::UnknownColumn(c.column.clone()).into());
                };
                let Some(j) = self.set_column(&c.column) else {
                    let _ = t;
                    return Err(crate::error::QueryError::Identifying(c.column.clone()).into());
                };
                let col = &self.columns[j];
                if self.spec.decide == Decide::Public && col.quasi.is_none() {
                    return Err(crate::error::QueryError::NotPublic(c.column.clone()).into());
                }
                Ok((j, col.bits_where(&c.passes(&col.values, col.numeric)?)))
            })
            .collect()
    }
}

use crate::data::confidentiality::has;
