//! LGB_NCP (paper 004, Algorithm 4): local generalization within one QI-partition subset
//! by Xu et al.'s top-down split, which minimizes the normalized certainty penalty.
//!
//! A set of at least 2k rows is split around two seeds far apart in NCP (from the set's
//! first row, the row farthest from it, then the row farthest from that, three rounds, as
//! Xu et al.'s heuristic; first rows win ties, so the split is deterministic): every other
//! row, in row order, joins the seed group whose total loss |G| · NCP(G) grows less (ties:
//! the smaller group, then the first). A split stands when both groups have at least k
//! rows; otherwise, and below 2k rows, the set is final.

use super::super::local::{Domain, Kind};
use crate::error::Result;
use crate::framework::dataset::QuasiIdentifier;
use crate::observer::Stage;

/// How far apart two leaves of one attribute are: the NCP of the pair generalized.
fn pair_cost(q: &QuasiIdentifier, d: &Domain, a: u32, b: u32) -> f64 {
    if a == b {
        return 0.0;
    }
    match d.kind {
        Kind::Numeric => {
            if d.range() > 0.0 {
                (d.number(a) - d.number(b)).abs() / d.range()
            } else {
                0.0
            }
        }
        Kind::Hierarchy => {
            let h = &q.hierarchy;
            (1..h.levels())
                .find(|&l| h.code(l, a) == h.code(l, b))
                .map_or(2.0 / d.present() as f64, |l| {
                    d.present_under(l, h.code(l, a)) as f64 / d.present() as f64
                })
        }
        Kind::Set => 2.0 / d.present() as f64,
    }
}

/// One attribute's generalization of a growing group.
#[derive(Clone)]
struct Gen {
    lo: f64,
    hi: f64,
    /// A member's leaf and the lowest level where every member's leaf meets it (0: all
    /// the same leaf; `levels`: none).
    rep: u32,
    level: usize,
    /// Distinct leaves (categorical).
    seen: Vec<bool>,
    distinct: usize,
}

impl Gen {
    fn new(q: &QuasiIdentifier, d: &Domain, leaf: u32) -> Gen {
        let mut seen = Vec::new();
        if d.kind != Kind::Numeric {
            seen = vec![false; q.hierarchy.leaf_count()];
            seen[leaf as usize] = true;
        }
        let x = if d.kind == Kind::Numeric {
            d.number(leaf)
        } else {
            0.0
        };
        Gen {
            lo: x,
            hi: x,
            rep: leaf,
            level: 0,
            seen,
            distinct: 1,
        }
    }

    /// NCP of one tuple of the group, with `leaf` added when given.
    fn ncp(&self, q: &QuasiIdentifier, d: &Domain, leaf: Option<u32>) -> f64 {
        match d.kind {
            Kind::Numeric => {
                let (mut lo, mut hi) = (self.lo, self.hi);
                if let Some(l) = leaf {
                    lo = lo.min(d.number(l));
                    hi = hi.max(d.number(l));
                }
                if d.range() > 0.0 {
                    (hi - lo) / d.range()
                } else {
                    0.0
                }
            }
            Kind::Hierarchy => {
                let level = leaf.map_or(self.level, |l| self.level_with(q, l));
                let h = &q.hierarchy;
                if level == 0 {
                    0.0
                } else if level >= h.levels() {
                    let extra = leaf.is_some_and(|l| !self.seen[l as usize]) as usize;
                    (self.distinct + extra) as f64 / d.present() as f64
                } else {
                    d.present_under(level, h.code(level, self.rep)) as f64 / d.present() as f64
                }
            }
            Kind::Set => {
                let distinct =
                    self.distinct + leaf.is_some_and(|l| !self.seen[l as usize]) as usize;
                if distinct <= 1 {
                    0.0
                } else {
                    distinct as f64 / d.present() as f64
                }
            }
        }
    }

    /// The common level once `leaf` joins.
    fn level_with(&self, q: &QuasiIdentifier, leaf: u32) -> usize {
        let h = &q.hierarchy;
        if leaf == self.rep && self.level == 0 {
            return 0;
        }
        (self.level.max(1)..h.levels())
            .find(|&l| h.code(l, leaf) == h.code(l, self.rep))
            .unwrap_or(h.levels())
    }

    fn add(&mut self, q: &QuasiIdentifier, d: &Domain, leaf: u32) {
        match d.kind {
            Kind::Numeric => {
                self.lo = self.lo.min(d.number(leaf));
                self.hi = self.hi.max(d.number(leaf));
            }
            _ => {
                if d.kind == Kind::Hierarchy {
                    self.level = self.level_with(q, leaf);
                }
                if !self.seen[leaf as usize] {
                    self.seen[leaf as usize] = true;
                    self.distinct += 1;
                }
            }
        }
    }
}

/// The attributes a subset generalizes, with their domains.
pub(crate) struct NcpSplitter<'a> {
    pub(crate) quasi: &'a [QuasiIdentifier],
    pub(crate) domains: &'a [Domain],
    pub(crate) dims: Vec<usize>,
    pub(crate) k: usize,
}

impl NcpSplitter<'_> {
    fn distance(&self, a: u32, b: u32) -> f64 {
        self.dims
            .iter()
            .map(|&j| {
                let q = &self.quasi[j];
                pair_cost(
                    q,
                    &self.domains[j],
                    q.leaves[a as usize],
                    q.leaves[b as usize],
                )
            })
            .sum()
    }

    /// The row of `rows` farthest from `from` (the first on ties).
    fn farthest(&self, rows: &[u32], from: u32) -> u32 {
        let mut best = (rows[0], f64::NEG_INFINITY);
        for &r in rows {
            let d = self.distance(from, r);
            if d > best.1 {
                best = (r, d);
            }
        }
        best.0
    }

    /// Splits `rows` around two far seeds (see the module docs).
    fn divide(&self, rows: &[u32]) -> (Vec<u32>, Vec<u32>) {
        let mut u = rows[0];
        let mut v = self.farthest(rows, u);
        for _ in 0..2 {
            u = v;
            v = self.farthest(rows, u);
        }
        if u == v {
            // every row alike: halves by position
            let half = rows.len() / 2;
            return (rows[..half].to_vec(), rows[half..].to_vec());
        }
        let leaf = |j: usize, r: u32| self.quasi[j].leaves[r as usize];
        let start = |s: u32| -> Vec<Gen> {
            self.dims
                .iter()
                .map(|&j| Gen::new(&self.quasi[j], &self.domains[j], leaf(j, s)))
                .collect()
        };
        let (mut g1, mut g2) = (start(u), start(v));
        let (mut m1, mut m2) = (vec![u], vec![v]);
        let ncp = |g: &[Gen], r: Option<u32>| -> f64 {
            self.dims
                .iter()
                .zip(g)
                .map(|(&j, x)| x.ncp(&self.quasi[j], &self.domains[j], r.map(|r| leaf(j, r))))
                .sum()
        };
        for &r in rows {
            if r == u || r == v {
                continue;
            }
            let grow =
                |g: &[Gen], n: usize| (n + 1) as f64 * ncp(g, Some(r)) - n as f64 * ncp(g, None);
            let (c1, c2) = (grow(&g1, m1.len()), grow(&g2, m2.len()));
            let first = c1 < c2 || (c1 == c2 && m1.len() <= m2.len());
            let (g, m) = if first {
                (&mut g1, &mut m1)
            } else {
                (&mut g2, &mut m2)
            };
            for (x, &j) in g.iter_mut().zip(&self.dims) {
                x.add(&self.quasi[j], &self.domains[j], leaf(j, r));
            }
            m.push(r);
        }
        m1.sort_unstable();
        m2.sort_unstable();
        (m1, m2)
    }

    /// The final groups of `rows` (at least k of them), counted on `stage`.
    pub(crate) fn partition(&self, rows: Vec<u32>, stage: &Stage<'_>) -> Result<Vec<Vec<u32>>> {
        let mut out = Vec::new();
        let mut stack = vec![rows];
        while let Some(rows) = stack.pop() {
            stage.check()?;
            if rows.len() >= 2 * self.k && !self.dims.is_empty() {
                let (a, b) = self.divide(&rows);
                if a.len() >= self.k && b.len() >= self.k {
                    stack.push(b);
                    stack.push(a);
                    continue;
                }
            }
            stage.add(rows.len() as u64);
            out.push(rows);
        }
        Ok(out)
    }
}
