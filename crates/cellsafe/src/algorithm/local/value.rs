//! The generalized value of a group of rows on one quasi-identifier, its label and its
//! normalized certainty penalty (NCP, Xu et al.).
//!
//! Each attribute's [`Domain`] fixes how its values are ordered (for median splits) and
//! generalized: numbers by value, to the interval of the group's values; categorical values
//! in hierarchy order (siblings next to each other), to the lowest level at which the
//! group's values share one node when the hierarchy has intermediate levels, else (a flat
//! hierarchy: values and `*`) to the set of values present.

use std::fmt::Write;

use crate::data::number;
use crate::framework::dataset::QuasiIdentifier;

/// How an attribute generalizes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Every value present is a number: intervals.
    Numeric,
    /// Categorical with intermediate hierarchy levels: the lowest common node.
    Hierarchy,
    /// Categorical with a flat hierarchy: the set of values present.
    Set,
}

/// What a group shows on one attribute.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Generalized {
    /// Every row has this leaf.
    Value(u32),
    /// Numbers from leaf `lo` to leaf `hi` (by value).
    Interval {
        /// Leaf of the smallest value.
        lo: u32,
        /// Leaf of the largest value.
        hi: u32,
    },
    /// Hierarchy node `code` of `level`.
    Node {
        /// The level.
        level: u8,
        /// The node at that level.
        code: u32,
    },
    /// These leaves, in the attribute's order.
    Set(Vec<u32>),
}

/// One quasi-identifier's order and generalization rule, precomputed.
#[derive(Debug, Clone)]
pub struct Domain {
    /// How the attribute generalizes.
    pub kind: Kind,
    /// Per leaf, its position in the attribute's order.
    pub(crate) rank: Vec<u32>,
    /// Per leaf, its number (numeric attributes; else empty).
    number: Vec<f64>,
    /// Largest less smallest number present (numeric attributes).
    range: f64,
    /// Distinct values present in the data.
    present: usize,
    /// `present_under[level][code]`: values present under that node (hierarchy kind).
    present_under: Vec<Vec<u32>>,
}

impl Domain {
    /// The domain of `q` over the rows it has.
    pub fn new(q: &QuasiIdentifier) -> Domain {
        let h = &q.hierarchy;
        let leaves = h.leaf_count();
        let present: Vec<u32> = (0..leaves as u32)
            .filter(|&l| q.leaf_rows[l as usize] > 0)
            .collect();
        let numbers: Option<Vec<f64>> = present
            .iter()
            .map(|&l| number::parse(h.label(0, l)))
            .collect();
        let mut order: Vec<u32> = (0..leaves as u32).collect();
        let (kind, number, range) = match numbers {
            Some(values) if !values.is_empty() => {
                // absent leaves need not be numbers: they sort last
                let number: Vec<f64> = (0..leaves as u32)
                    .map(|l| number::parse(h.label(0, l)).unwrap_or(f64::INFINITY))
                    .collect();
                order.sort_by(|&a, &b| {
                    number[a as usize]
                        .total_cmp(&number[b as usize])
                        .then(a.cmp(&b))
                });
                let lo = values.iter().copied().fold(f64::INFINITY, f64::min);
                let hi = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                (Kind::Numeric, number, hi - lo)
            }
            _ => {
                // depth-first hierarchy order: by the node at each level, top down
                let key = |l: u32| -> Vec<u32> {
                    (1..h.levels())
                        .rev()
                        .map(|level| h.code(level, l))
                        .chain(std::iter::once(l))
                        .collect()
                };
                order.sort_by_key(|&l| key(l));
                let kind = if h.levels() > 2 {
                    Kind::Hierarchy
                } else {
                    Kind::Set
                };
                (kind, Vec::new(), 0.0)
            }
        };
        let mut rank = vec![0u32; leaves];
        for (i, &l) in order.iter().enumerate() {
            rank[l as usize] = i as u32;
        }
        let present_under = if kind == Kind::Hierarchy {
            (0..h.levels())
                .map(|level| {
                    let mut under = vec![0u32; h.cardinality(level)];
                    for &l in &present {
                        under[h.code(level, l) as usize] += 1;
                    }
                    under
                })
                .collect()
        } else {
            Vec::new()
        };
        Domain {
            kind,
            rank,
            number,
            range,
            present: present.len(),
            present_under,
        }
    }

    /// The number of leaf `leaf` (numeric attributes).
    pub(crate) fn number(&self, leaf: u32) -> f64 {
        self.number[leaf as usize]
    }

    /// Distinct values present in the data.
    pub(crate) fn present(&self) -> usize {
        self.present
    }

    /// Largest less smallest number present (0 for categorical attributes).
    pub(crate) fn range(&self) -> f64 {
        self.range
    }

    /// Values present under node `code` of `level` (hierarchy kind).
    pub(crate) fn present_under(&self, level: usize, code: u32) -> u32 {
        self.present_under[level][code as usize]
    }

    /// What the rows `rows` show on `q`.
    pub fn generalize(&self, q: &QuasiIdentifier, rows: &[u32]) -> Generalized {
        let mut leaves: Vec<u32> = rows.iter().map(|&r| q.leaves[r as usize]).collect();
        leaves.sort_unstable_by_key(|&l| self.rank[l as usize]);
        leaves.dedup();
        if leaves.len() <= 1 {
            return Generalized::Value(leaves.first().copied().unwrap_or(0));
        }
        match self.kind {
            Kind::Numeric => Generalized::Interval {
                lo: leaves[0],
                hi: leaves[leaves.len() - 1],
            },
            Kind::Hierarchy => {
                let h = &q.hierarchy;
                (1..h.levels())
                    .find(|&level| {
                        let code = h.code(level, leaves[0]);
                        leaves.iter().all(|&l| h.code(level, l) == code)
                    })
                    .map_or(Generalized::Set(leaves.clone()), |level| {
                        Generalized::Node {
                            level: level as u8,
                            code: h.code(level, leaves[0]),
                        }
                    })
            }
            Kind::Set => Generalized::Set(leaves),
        }
    }

    /// The written form of `g`: a value, `[lo,hi]`, a hierarchy label, or `{a,b}` (with
    /// `\`, `,`, `{` and `}` inside a value escaped by a backslash).
    pub fn label(&self, q: &QuasiIdentifier, g: &Generalized) -> String {
        let h = &q.hierarchy;
        match g {
            Generalized::Value(l) => h.label(0, *l).to_owned(),
            Generalized::Interval { lo, hi } => {
                format!("[{},{}]", h.label(0, *lo), h.label(0, *hi))
            }
            Generalized::Node { level, code } => h.label(*level as usize, *code).to_owned(),
            Generalized::Set(leaves) => {
                let mut out = String::from("{");
                for (i, &l) in leaves.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    for c in h.label(0, l).chars() {
                        if matches!(c, '\\' | ',' | '{' | '}') {
                            out.push('\\');
                        }
                        let _ = out.write_char(c);
                    }
                }
                out.push('}');
                out
            }
        }
    }

    /// Xu et al.'s NCP of one tuple showing `g`: 0 for a value; the interval's width over
    /// the attribute's range; the values under a node, or in a set, over the values present.
    pub fn ncp(&self, g: &Generalized) -> f64 {
        match g {
            Generalized::Value(_) => 0.0,
            Generalized::Interval { lo, hi } => {
                if self.range > 0.0 {
                    (self.number(*hi) - self.number(*lo)) / self.range
                } else {
                    0.0
                }
            }
            Generalized::Node { level, code } => {
                self.present_under[*level as usize][*code as usize] as f64 / self.present as f64
            }
            Generalized::Set(leaves) => leaves.len() as f64 / self.present as f64,
        }
    }
}
