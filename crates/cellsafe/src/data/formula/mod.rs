//! Confidential formulas: sentences of Pawlak's decision logic over the released,
//! non-public attributes.
//!
//! Grammar (keywords are case-insensitive; `¬ ∧ ∨ →` may replace `not and or ->`):
//!
//! ```text
//! formula := or ( "->" formula )?            right-associative implication
//! or      := and ( "or" and )*
//! and     := unary ( "and" unary )*
//! unary   := "not" unary | "(" formula ")" | atom
//! atom    := NAME "in" "{" VALUE ( "," VALUE )* "}"
//!          | NAME ( "=" | "!=" | "<" | "<=" | ">" | ">=" ) VALUE
//! ```
//!
//! NAME and VALUE are bare words (anything but spaces and `{}(),=<>!"`) or double-quoted
//! strings. Every atom compiles to the paper's `(j, α)`: a column and the set α of its
//! dictionary codes that satisfy it, so a comparison `income >= 300K` is just the set of
//! incomes at least 300K. Parse errors carry the character position.
//!
//! A formula nests at most `MAX_NESTING` levels and has at most `MAX_SIZE` atoms and
//! operators, so parsing, evaluating, converting to clausal form and dropping a formula
//! never recurse deeply. Chains of `and` and of `or` are built as balanced trees.
//!
//! Layout, by concern: this file holds the vocabulary ([`Domain`], [`DomainError`]), the
//! formula tree and its two-valued truth on a record; `lex.rs` and `parse.rs` read the
//! language ([`parse()`], [`ParseError`]); `clauses.rs` converts to clausal normal form
//! (`Cnf`) and evaluates three-valued on generalized cells (`Cnf::known`); the unit tests
//! are in `tests.rs`.

mod clauses;
mod lex;
mod parse;
#[cfg(test)]
mod tests;

use crate::data::number;

pub(crate) use clauses::Cnf;
pub use parse::{parse, parse_noting_absent, ParseError};

/// The most levels of nesting in a formula: each parenthesis, `not` and `->` opens one.
const MAX_NESTING: usize = 64;
/// The most atoms and operators (`not`, `and`, `or`, `->`) in a formula.
const MAX_SIZE: usize = 512;

/// Why a [`Domain`] cannot be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DomainError {
    /// An explicit order that does not list every value of the attribute.
    #[error("value `{}` of `{name}` is missing from its order", crate::error::excerpt(.value))]
    MissingFromOrder {
        /// The attribute.
        name: String,
        /// The first value (by dictionary code) the order does not list.
        value: String,
    },
}

/// The domain of one attribute formulas may mention.
#[derive(Debug, Clone)]
pub struct Domain {
    /// Attribute name, as formulas write it.
    pub(crate) name: String,
    /// Table column.
    pub(crate) column: usize,
    /// Values by dictionary code.
    pub(crate) values: Vec<String>,
    /// A number per value when the attribute is ordered (comparisons need it).
    rank: Option<Vec<f64>>,
    /// Whether comparison literals are read as numbers (true) or must be values (false,
    /// an explicit order).
    numeric: bool,
    /// A public attribute (quasi-identifier): an atom over it is decided by the person's
    /// own value, not by a record.
    pub(crate) public: bool,
}

impl Domain {
    /// A domain whose values all read as numbers (`300K` is 300,000) is ordered numerically;
    /// otherwise it is unordered unless `order` lists every value (else
    /// [`DomainError::MissingFromOrder`]).
    pub fn new(
        name: &str,
        column: usize,
        values: Vec<String>,
        order: Option<&[String]>,
    ) -> Result<Domain, DomainError> {
        if let Some(order) = order {
            let mut rank = vec![f64::NAN; values.len()];
            for (i, v) in order.iter().enumerate() {
                if let Some(code) = values.iter().position(|x| x == v) {
                    rank[code] = i as f64;
                }
            }
            if let Some(code) = rank.iter().position(|r| r.is_nan()) {
                return Err(DomainError::MissingFromOrder {
                    name: name.into(),
                    value: values[code].clone(),
                });
            }
            return Ok(Domain {
                name: name.into(),
                column,
                values,
                rank: Some(rank),
                numeric: false,
                public: false,
            });
        }
        let rank: Option<Vec<f64>> = values.iter().map(|v| number::parse(v)).collect();
        Ok(Domain {
            name: name.into(),
            column,
            numeric: rank.is_some(),
            rank,
            values,
            public: false,
        })
    }
}

/// `(j, α)`: the value of domain `domain` lies in `values` (indexed by dictionary code).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Atom {
    /// Index into the vocabulary.
    pub(crate) domain: usize,
    /// Per dictionary code of the domain: whether the value satisfies the atom.
    pub(crate) values: Vec<bool>,
}

/// A parsed formula.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Formula {
    /// The value of one attribute lies in a set.
    Atom(Atom),
    /// Negation.
    Not(Box<Formula>),
    /// Conjunction.
    And(Box<Formula>, Box<Formula>),
    /// Disjunction.
    Or(Box<Formula>, Box<Formula>),
    /// Implication: the first formula implies the second.
    Implies(Box<Formula>, Box<Formula>),
}

impl Formula {
    /// Two-valued truth for a record whose value of domain `d` has code `value(d)`.
    pub(crate) fn holds(&self, value: &impl Fn(usize) -> u32) -> bool {
        match self {
            Formula::Atom(a) => a.values[value(a.domain) as usize],
            Formula::Not(f) => !f.holds(value),
            Formula::And(a, b) => a.holds(value) && b.holds(value),
            Formula::Or(a, b) => a.holds(value) || b.holds(value),
            Formula::Implies(a, b) => !a.holds(value) || b.holds(value),
        }
    }

    /// Renumbers the domains of its atoms: domain `d` becomes `map[d]` (every mentioned
    /// domain must have one).
    pub(crate) fn remap(&mut self, map: &[Option<usize>]) {
        let mut stack = vec![self];
        while let Some(f) = stack.pop() {
            match f {
                Formula::Atom(a) => a.domain = map[a.domain].expect("a kept domain"),
                Formula::Not(x) => stack.push(x),
                Formula::And(a, b) | Formula::Or(a, b) | Formula::Implies(a, b) => {
                    stack.push(a);
                    stack.push(b);
                }
            }
        }
    }

    /// The domains the formula mentions, sorted.
    pub fn domains(&self) -> Vec<usize> {
        fn walk(f: &Formula, out: &mut Vec<usize>) {
            match f {
                Formula::Atom(a) => out.push(a.domain),
                Formula::Not(x) => walk(x, out),
                Formula::And(a, b) | Formula::Or(a, b) | Formula::Implies(a, b) => {
                    walk(a, out);
                    walk(b, out)
                }
            }
        }
        let mut out = Vec::new();
        walk(self, &mut out);
        out.sort_unstable();
        out.dedup();
        out
    }
}
