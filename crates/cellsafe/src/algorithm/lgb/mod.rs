//! Local generalization and bucketization, LGB (paper 004): personalized protection of
//! semi-sensitive cells.
//!
//! A semi-sensitive attribute is a quasi-identifier for the persons who did not flag their
//! value sensitive and a sensitive attribute for those who did. Every sensitive cell (of a
//! semi-sensitive or sensitive attribute) goes to a local bucket of its attribute
//! ([`bucket`]: l-unique buckets, or t-close ones), and the row shows the bucket id in its
//! place. The rows are split by the set of attributes carrying their quasi-identifying
//! values ([`partition`], the QI partition), and each subset is partitioned by Mondrian
//! over exactly those attributes into local equivalence groups of at least k rows, which
//! show each attribute's generalized value (LGB_MDP, Algorithm 3). The two protections are
//! independent (Corollary 3): a person is one of at least k in their group, and a bucketed
//! value is theirs with probability at most 1/l.

pub mod bucket;
mod ncp;
pub mod partition;
pub mod query;

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::algorithm::local::mondrian::Splitter;
use crate::algorithm::local::{Domain, Generalized, Method, Mode};
use crate::data::table::Table;
use crate::data::{number, Role};
use crate::error::{ProblemError, Result};
use crate::framework::dataset::QuasiIdentifier;
use crate::hierarchy::Hierarchy;
use crate::observer::{Observer, Stage, LOCAL};

/// How one attribute's sensitive cells are protected in their buckets.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Protection {
    /// l-unique buckets: at least l cells, no value twice.
    Diversity {
        /// At least 1.
        l: usize,
    },
    /// Buckets whose value distribution is within t of the attribute's.
    Closeness {
        /// In (0, 1].
        t: f64,
        /// The ordered distance (values in order, |i − j| / (m − 1)) rather than the
        /// equal one (every two values at distance 1).
        ordered: bool,
    },
}

/// LGB's parameters (`[search.local]` with `algorithm = "lgb"`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LgbSpec {
    /// Rows per local equivalence group, at least.
    pub k: usize,
    /// Mondrian's split rule within each subset (LGB_MDP).
    pub mode: Mode,
    /// LGB_MDP or LGB_NCP.
    pub method: Method,
}

/// An attribute whose sensitive cells are bucketized.
#[derive(Debug, Clone)]
pub struct Bucketed {
    /// Column name.
    pub name: String,
    /// Column index.
    pub column: usize,
    /// Its index among [`LgbData::attributes`] when semi-sensitive; `None` when sensitive.
    pub attribute: Option<usize>,
    /// Its protection.
    pub protection: Protection,
    /// Per dictionary code of the column, its position in value order (numbers by value,
    /// else by string).
    pub(crate) rank: Vec<u32>,
}

/// A table prepared for LGB: its quasi-identifying and semi-sensitive attributes encoded
/// on their hierarchies, the per-cell flags, and the bucketized attributes.
#[derive(Debug, Clone)]
pub struct LgbData {
    /// The input.
    pub table: Table,
    /// The role of each column (flag columns are identifying: never released).
    pub roles: Vec<Role>,
    /// The quasi-identifiers, then the semi-sensitive attributes.
    pub attributes: Vec<QuasiIdentifier>,
    /// Per attribute, for a semi-sensitive one, whether each row's cell is sensitive.
    pub flags: Vec<Option<Vec<bool>>>,
    /// The semi-sensitive attributes (in attribute order), then the sensitive ones.
    pub bucketed: Vec<Bucketed>,
}

/// One column's description for [`LgbData::new`].
#[derive(Debug, Clone)]
pub struct Column {
    /// Its role.
    pub role: Role,
    /// Its hierarchy (quasi-identifying and semi-sensitive columns) and where it was read.
    pub hierarchy: Option<(Hierarchy, PathBuf)>,
    /// Per row, whether the cell is sensitive (semi-sensitive columns).
    pub flags: Option<Vec<bool>>,
    /// How its sensitive cells are protected (semi-sensitive and sensitive columns).
    pub protection: Option<Protection>,
}

impl LgbData {
    /// Prepares `table` with one [`Column`] per column. Fails when a quasi-identifying or
    /// semi-sensitive column lacks a hierarchy or a value of it, a semi-sensitive one
    /// lacks flags, or a bucketized one lacks a protection.
    pub fn new(table: Table, columns: Vec<Column>) -> Result<LgbData> {
        let header = table.header().to_vec();
        let refuse = |c: usize, what: &str| -> crate::Error {
            ProblemError::Local(format!("column `{}` {what}", header[c])).into()
        };
        if columns.len() != header.len() {
            return Err(ProblemError::Local(format!(
                "one description per column is required: {} columns, {} given",
                header.len(),
                columns.len()
            ))
            .into());
        }
        let mut attributes = Vec::new();
        let mut flags = Vec::new();
        let mut semi = Vec::new();
        let mut sensitive = Vec::new();
        let roles: Vec<Role> = columns.iter().map(|c| c.role).collect();
        // quasi-identifiers first, then semi-sensitive attributes
        for role in [Role::QuasiIdentifying, Role::SemiSensitive] {
            for (c, column) in columns.iter().enumerate().filter(|(_, d)| d.role == role) {
                let (h, path) = column
                    .hierarchy
                    .clone()
                    .ok_or_else(|| refuse(c, "needs a hierarchy"))?;
                if role == Role::SemiSensitive {
                    // an empty cell in the release means "in a bucket"
                    if table.dictionary(c).code("").is_some() {
                        return Err(refuse(
                            c,
                            "has empty cells, which the release could not tell from \
                             bucketized ones: give them a value",
                        ));
                    }
                    let f = column
                        .flags
                        .clone()
                        .ok_or_else(|| refuse(c, "is semi-sensitive but has no flags"))?;
                    if f.len() != table.rows() {
                        return Err(refuse(c, "has flags for another number of rows"));
                    }
                    flags.push(Some(f));
                    semi.push((c, attributes.len()));
                } else {
                    flags.push(None);
                }
                attributes.push(QuasiIdentifier::encode(&table, c, h, &path)?);
            }
        }
        if attributes.len() > 64 {
            return Err(ProblemError::Local(
                "at most 64 quasi-identifying and semi-sensitive attributes".into(),
            )
            .into());
        }
        if attributes.is_empty() {
            return Err(ProblemError::NoQuasiIdentifier.into());
        }
        for (c, column) in columns.iter().enumerate() {
            if column.role == Role::Sensitive {
                sensitive.push(c);
            }
        }
        let bucketed = semi
            .iter()
            .map(|&(c, a)| (c, Some(a)))
            .chain(sensitive.iter().map(|&c| (c, None)))
            .map(|(c, attribute)| {
                let protection = columns[c]
                    .protection
                    .ok_or_else(|| refuse(c, "needs a protection (l-diversity or t-closeness)"))?;
                let values = table.dictionary(c).values();
                let rank = value_order(values);
                Ok(Bucketed {
                    name: header[c].clone(),
                    column: c,
                    attribute,
                    protection,
                    rank,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(LgbData {
            table,
            roles,
            attributes,
            flags,
            bucketed,
        })
    }

    /// The mask of attributes every row shows (the quasi-identifiers).
    fn base_mask(&self) -> u64 {
        self.flags
            .iter()
            .enumerate()
            .filter(|(_, f)| f.is_none())
            .fold(0, |m, (a, _)| m | 1 << a)
    }
}

/// The share of each dictionary code among all rows of a column.
pub fn column_distribution(codes: &[u32], values: usize) -> Vec<f64> {
    let mut counts = vec![0usize; values];
    for &c in codes {
        counts[c as usize] += 1;
    }
    let n = codes.len().max(1) as f64;
    counts.iter().map(|&c| c as f64 / n).collect()
}

/// Per dictionary code its position in value order (numbers by value, else by string).
fn value_order(values: &[String]) -> Vec<u32> {
    let numbers: Option<Vec<f64>> = values.iter().map(|v| number::parse(v)).collect();
    let mut order: Vec<u32> = (0..values.len() as u32).collect();
    match numbers {
        Some(x) => order.sort_by(|&a, &b| {
            x[a as usize]
                .total_cmp(&x[b as usize])
                .then_with(|| values[a as usize].cmp(&values[b as usize]))
        }),
        None => order.sort_by(|&a, &b| values[a as usize].cmp(&values[b as usize])),
    }
    let mut rank = vec![0u32; values.len()];
    for (i, &v) in order.iter().enumerate() {
        rank[v as usize] = i as u32;
    }
    rank
}

/// What LGB made of a table.
#[derive(Debug, Clone)]
pub struct Lgb {
    /// Per row, the attributes (bits of [`LgbData::attributes`]) showing its values.
    pub masks: Vec<u64>,
    /// Cells that were quasi-identifying but went to buckets so that a small subset could
    /// merge (see [`partition`]).
    pub moved_cells: usize,
    /// The local equivalence groups, rows ascending.
    pub groups: Vec<Vec<u32>>,
    /// Per group, per attribute, its shown value (`None` where the group's rows show a
    /// bucket id).
    pub values: Vec<Vec<Option<Generalized>>>,
    /// Per attribute, its order and generalization rule.
    pub domains: Vec<Domain>,
    /// Per bucketized attribute, its buckets (rows ascending).
    pub buckets: Vec<Vec<Vec<u32>>>,
}

/// Runs LGB_MDP or LGB_NCP. `None` when the table has fewer than k rows; an error when a bucketized
/// attribute's sensitive cells cannot be protected as asked (a value in more than 1/l of
/// them).
pub fn lgb(data: &LgbData, spec: &LgbSpec, observer: &dyn Observer) -> Result<Option<Lgb>> {
    let k = spec.k.max(1);
    let n = data.table.rows();
    let base = data.base_mask();
    let mut masks: Vec<u64> = (0..n)
        .map(|r| {
            data.flags
                .iter()
                .enumerate()
                .fold(0u64, |m, (a, f)| match f {
                    Some(f) if f[r] => m,
                    _ => m | 1 << a,
                })
        })
        .collect();
    let Some(moved_cells) = partition::merge_small(&mut masks, base, k) else {
        return Ok(None);
    };
    // buckets, per attribute: built from the sensitive cells (flagged, or every cell of a
    // sensitive attribute); cells moved there by a merge hold values the recipient may
    // know, so they never count towards l or t: they join buckets already protected
    let mut buckets = Vec::with_capacity(data.bucketed.len());
    for b in &data.bucketed {
        let (sensitive, moved): (Vec<u32>, Vec<u32>) = match b.attribute {
            Some(a) => {
                let flagged = data.flags[a].as_ref().expect("semi-sensitive");
                (0..n as u32)
                    .filter(|&r| masks[r as usize] & (1 << a) == 0)
                    .partition(|&r| flagged[r as usize])
            }
            None => ((0..n as u32).collect(), Vec::new()),
        };
        let codes = data.table.codes(b.column);
        let mut made = match b.protection {
            Protection::Diversity { l } => bucket::l_buckets(&sensitive, codes, &b.rank, l.max(1))
                .ok_or_else(|| {
                    ProblemError::Local(format!(
                        "the {} sensitive cells of `{}` cannot form {l}-diverse buckets: \
                         fewer than {l} of them, or one value holds more than 1/{l}",
                        sensitive.len(),
                        b.name
                    ))
                })?,
            Protection::Closeness { t, ordered } => {
                let reference = column_distribution(codes, b.rank.len());
                bucket::t_buckets(&sensitive, codes, &b.rank, t, ordered, &reference).ok_or_else(
                    || {
                        ProblemError::Local(format!(
                            "the {} sensitive cells of `{}` cannot form buckets within t = {t} \
                             of the column's distribution: even all of them together are \
                             farther",
                            sensitive.len(),
                            b.name
                        ))
                    },
                )?
            }
        };
        bucket::attach(&mut made, &moved, codes);
        buckets.push(made);
    }
    // local generalization within each subset of the QI partition
    let domains: Vec<Domain> = data.attributes.iter().map(Domain::new).collect();
    let allowed = |rows: &[u32]| rows.len() >= k;
    let stage = Stage::start(observer, LOCAL, Some(n as u64));
    let mut groups = Vec::new();
    for (mask, rows) in partition::subsets(&masks) {
        let dims: Vec<usize> = (0..data.attributes.len())
            .filter(|a| mask & (1 << a) != 0)
            .collect();
        groups.extend(match spec.method {
            Method::Mdp => Splitter {
                quasi: &data.attributes,
                domains: &domains,
                dims,
                mode: spec.mode,
                allowed: &allowed,
            }
            .partition(rows, &stage)?,
            Method::Ncp => ncp::NcpSplitter {
                quasi: &data.attributes,
                domains: &domains,
                dims,
                k,
            }
            .partition(rows, &stage)?,
        });
    }
    groups.sort_unstable_by_key(|g| g[0]);
    let values = groups
        .iter()
        .map(|rows| {
            let mask = masks[rows[0] as usize];
            data.attributes
                .iter()
                .zip(&domains)
                .enumerate()
                .map(|(a, (q, d))| (mask & (1 << a) != 0).then(|| d.generalize(q, rows)))
                .collect()
        })
        .collect();
    Ok(Some(Lgb {
        masks,
        moved_cells,
        groups,
        values,
        domains,
        buckets,
    }))
}

#[cfg(test)]
mod tests;
