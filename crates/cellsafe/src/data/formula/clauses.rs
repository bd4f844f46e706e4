//! Clausal normal form (paper 002, section 4.2) and the three-valued evaluation on it:
//! whether a formula is known to hold of a record whose values are only known to lie in
//! generalized cells.

use super::{Atom, Formula};

impl Formula {
    /// The clausal normal form of section 4.2 of paper 002: a conjunction of clauses whose
    /// literals are positive atoms, at most one per domain. Negations become complements,
    /// disjuncts on one domain are united, clauses that always hold are dropped. `None`
    /// when the form would exceed `limit` clauses.
    pub(crate) fn clauses(&self, limit: usize) -> Option<Cnf> {
        let mut cnf = cnf(self, true, limit)?;
        cnf.retain(|c| !c.is_tautology());
        cnf.sort_by_key(|c| c.atoms.len());
        Some(Cnf(cnf))
    }
}

/// A disjunction of positive atoms on distinct domains.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Clause {
    /// The disjuncts, at most one per domain.
    pub(crate) atoms: Vec<Atom>,
}

impl Clause {
    fn is_tautology(&self) -> bool {
        self.atoms.iter().any(|a| a.values.iter().all(|&x| x))
    }
    fn or(&self, other: &Clause) -> Clause {
        let mut atoms = self.atoms.clone();
        for b in &other.atoms {
            match atoms.iter_mut().find(|a| a.domain == b.domain) {
                Some(a) => {
                    for (x, &y) in a.values.iter_mut().zip(&b.values) {
                        *x |= y;
                    }
                }
                None => atoms.push(b.clone()),
            }
        }
        atoms.sort_by_key(|a| a.domain);
        Clause { atoms }
    }
}

/// A formula in clausal normal form. The empty conjunction is true; an empty clause is
/// false.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Cnf(pub(crate) Vec<Clause>);

impl Cnf {
    /// Whether the formula holds in every reasonable completion of a record whose value of
    /// domain `d` is only known to lie in the set `cell(d)` (three-valued, paper 002
    /// definition 7): every clause needs an atom that contains its domain's whole cell.
    pub(crate) fn known(
        &self,
        cell: &impl Fn(usize, usize) -> bool,
        size: &impl Fn(usize) -> usize,
    ) -> bool {
        self.0.iter().all(|clause| {
            clause.atoms.iter().any(|a| {
                let n = size(a.domain);
                (0..n).all(|v| !cell(a.domain, v) || a.values[v])
            })
        })
    }
}

/// Clauses of `f` (when `positive`) or of `¬f`.
fn cnf(f: &Formula, positive: bool, limit: usize) -> Option<Vec<Clause>> {
    let product = |a: Vec<Clause>, b: Vec<Clause>| -> Option<Vec<Clause>> {
        if a.len().saturating_mul(b.len()) > limit {
            return None;
        }
        let mut out = Vec::with_capacity(a.len() * b.len());
        for x in &a {
            for y in &b {
                out.push(x.or(y));
            }
        }
        Some(out)
    };
    let concat = |mut a: Vec<Clause>, b: Vec<Clause>| -> Option<Vec<Clause>> {
        a.extend(b);
        (a.len() <= limit).then_some(a)
    };
    match (f, positive) {
        (Formula::Atom(a), true) => Some(vec![Clause {
            atoms: vec![a.clone()],
        }]),
        (Formula::Atom(a), false) => Some(vec![Clause {
            atoms: vec![Atom {
                domain: a.domain,
                values: a.values.iter().map(|&x| !x).collect(),
            }],
        }]),
        (Formula::Not(x), p) => cnf(x, !p, limit),
        (Formula::And(a, b), true) => concat(cnf(a, true, limit)?, cnf(b, true, limit)?),
        (Formula::Or(a, b), false) => concat(cnf(a, false, limit)?, cnf(b, false, limit)?),
        (Formula::Or(a, b), true) => product(cnf(a, true, limit)?, cnf(b, true, limit)?),
        (Formula::And(a, b), false) => product(cnf(a, false, limit)?, cnf(b, false, limit)?),
        // a -> b is ¬a ∨ b; ¬(a -> b) is a ∧ ¬b
        (Formula::Implies(a, b), true) => product(cnf(a, false, limit)?, cnf(b, true, limit)?),
        (Formula::Implies(a, b), false) => concat(cnf(a, true, limit)?, cnf(b, false, limit)?),
    }
    .map(|clauses| {
        // a literal no value satisfies is false: drop it from its clause
        clauses
            .into_iter()
            .map(|c| Clause {
                atoms: c
                    .atoms
                    .into_iter()
                    .filter(|a| a.values.iter().any(|&x| x))
                    .collect(),
            })
            .collect()
    })
}
