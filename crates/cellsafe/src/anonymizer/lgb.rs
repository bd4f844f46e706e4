//! LGB in memory: [`release_lgb`] runs local generalization and bucketization on an
//! [`LgbData`], writes the main table and the bucket tables as CSV bytes, reads them back
//! and audits them ([`audit_lgb_tables`]); the [`LgbRelease`] holds exactly the audited
//! bytes, or nothing when the table has fewer than k rows.

use std::path::Path;
use std::time::Instant;

use serde::Serialize;

use super::{check_audit, Timings};
use crate::algorithm::lgb::query::{query_error, QueryError};
use crate::algorithm::lgb::{bucket, column_distribution, lgb, Lgb, LgbData, LgbSpec, Protection};
use crate::data::table::{CsvFormat, Table};
use crate::error::{Error, Result};
use crate::observer::Observer;
use crate::release::audit::{audit_lgb_tables, Audit, LgbColumn, LgbExpected};
use crate::release::lgb_table::LgbTable;
use crate::release::{row_order, RowOrder};

/// One bucketized attribute's buckets, as released.
#[derive(Debug, Clone, Serialize)]
pub struct BucketFigures {
    /// The attribute.
    pub attribute: String,
    /// Buckets.
    pub count: usize,
    /// Cells of the smallest bucket.
    pub min_size: usize,
    /// Fewest distinct sensitive values in a bucket (the l achieved; cells moved there by a
    /// merge do not count).
    pub l: usize,
    /// Under t-closeness: the largest distance of a bucket's sensitive values from the whole
    /// column's distribution (the t achieved).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub t: Option<f64>,
    /// Cells bucketized.
    pub cells: usize,
}

/// An LGB release's figures (paper 004 section 4).
#[derive(Debug, Clone, Serialize)]
pub struct LgbFigures {
    /// Local equivalence groups.
    pub groups: usize,
    /// Rows of the smallest group.
    pub min_group: usize,
    /// Σ |LEG|².
    pub c_dm: u64,
    /// Σ over quasi-identifying cells of their NCP.
    pub ncp: f64,
    /// `ncp` over the quasi-identifying cells, in [0, 1].
    pub ncp_normalized: f64,
    /// Cells bucketized so that a small QI-partition subset could merge.
    pub moved_cells: usize,
    /// Per bucketized attribute.
    pub buckets: Vec<BucketFigures>,
    /// The aggregate-query error, when asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub query_error: Option<QueryError>,
}

/// The audited result of [`release_lgb`].
#[derive(Debug)]
pub struct LgbRelease {
    /// The main table's CSV bytes (empty when nothing was released).
    pub main: Vec<u8>,
    /// Per bucketized attribute, its name and its bucket table's CSV bytes.
    pub buckets: Vec<(String, Vec<u8>)>,
    /// The input row of each main-table row.
    pub rows: Vec<usize>,
    /// The audit of what was written.
    pub audit: Option<Audit>,
    /// The figures.
    pub figures: Option<LgbFigures>,
    /// Where the time went.
    pub timings: Timings,
}

impl LgbRelease {
    /// Whether tables were released.
    pub fn found(&self) -> bool {
        self.audit.is_some()
    }
}

/// Runs LGB on `data` with `spec`, rows written in `order`, as CSV in `format`; with
/// `queries` = (count, seed), also answers that many random aggregate queries.
pub fn release_lgb(
    data: &LgbData,
    spec: &LgbSpec,
    format: &CsvFormat,
    order: RowOrder,
    queries: Option<(usize, u64)>,
    observer: &dyn Observer,
) -> Result<LgbRelease> {
    let mut timings = Timings::default();
    let clock = Instant::now();
    let found = lgb(data, spec, observer)?;
    timings.search = clock.elapsed().as_secs_f64();
    let mut release = LgbRelease {
        main: Vec::new(),
        buckets: Vec::new(),
        rows: Vec::new(),
        audit: None,
        figures: None,
        timings,
    };
    let Some(found) = found else {
        return Ok(release);
    };
    let clock = Instant::now();
    let rows = row_order(0..data.table.rows(), order);
    let table = LgbTable::new(data, &found, &rows);
    release.timings.release = clock.elapsed().as_secs_f64();
    let clock = Instant::now();
    let io = |e| Error::io(Path::new("the released tables"), e);
    let mut main = Vec::new();
    table.write_main(&mut main, format, &rows).map_err(io)?;
    let mut buckets = Vec::new();
    for (b, bucketed) in data.bucketed.iter().enumerate() {
        let mut bytes = Vec::new();
        table.write_buckets(b, &mut bytes, format).map_err(io)?;
        buckets.push((bucketed.name.clone(), bytes));
    }
    release.timings.write = clock.elapsed().as_secs_f64();
    let clock = Instant::now();
    let main_read = Table::from_bytes(&main, Path::new("the released table"), format)?;
    let bucket_read: Vec<(String, Table)> = buckets
        .iter()
        .map(|(name, bytes)| {
            let path = format!("the bucket table of `{name}`");
            Ok((
                name.clone(),
                Table::from_bytes(bytes, Path::new(&path), format)?,
            ))
        })
        .collect::<Result<_>>()?;
    let columns: Vec<LgbColumn> = (0..data.roles.len())
        .map(|c| {
            let attribute = data.attributes.iter().position(|q| q.column == c);
            LgbColumn {
                role: data.roles[c],
                hierarchy: attribute.map(|a| &data.attributes[a].hierarchy),
                flags: attribute.and_then(|a| data.flags[a].as_deref()),
                protection: data
                    .bucketed
                    .iter()
                    .find(|b| b.column == c)
                    .map(|b| b.protection),
            }
        })
        .collect();
    let audit = audit_lgb_tables(
        &main_read,
        &bucket_read
            .iter()
            .map(|(n, t)| (n.clone(), t))
            .collect::<Vec<_>>(),
        &LgbExpected {
            original: &data.table,
            columns: &columns,
            rows: &rows,
            k: spec.k.max(1),
        },
    )?;
    release.timings.audit = clock.elapsed().as_secs_f64();
    check_audit(&audit)?;
    let mut f = figures(data, &found);
    f.query_error = queries.and_then(|(count, seed)| query_error(data, &found, count, seed));
    release.figures = Some(f);
    release.main = main;
    release.buckets = buckets;
    release.rows = rows;
    release.audit = Some(audit);
    Ok(release)
}

/// The figures of `found`.
fn figures(data: &LgbData, found: &Lgb) -> LgbFigures {
    let sizes: Vec<usize> = found.groups.iter().map(Vec::len).collect();
    let (mut ncp, mut cells) = (0.0, 0usize);
    for (rows, values) in found.groups.iter().zip(&found.values) {
        for (v, d) in values.iter().zip(&found.domains) {
            if let Some(v) = v {
                ncp += d.ncp(v) * rows.len() as f64;
                cells += rows.len();
            }
        }
    }
    let buckets = data
        .bucketed
        .iter()
        .zip(&found.buckets)
        .map(|(b, buckets)| {
            let codes = data.table.codes(b.column);
            let reference = column_distribution(codes, b.rank.len());
            let mut by_rank: Vec<u32> = (0..reference.len() as u32)
                .filter(|&v| reference[v as usize] > 0.0)
                .collect();
            by_rank.sort_by_key(|&v| b.rank[v as usize]);
            // the cells the recipient does not know: flagged, or a sensitive attribute's
            let secret = |r: u32| match b.attribute {
                Some(a) => data.flags[a].as_ref().is_some_and(|f| f[r as usize]),
                None => true,
            };
            let sensitive: Vec<Vec<u32>> = buckets
                .iter()
                .map(|rows| rows.iter().copied().filter(|&r| secret(r)).collect())
                .collect();
            let distinct = |rows: &Vec<u32>| {
                let mut v: Vec<u32> = rows.iter().map(|&r| codes[r as usize]).collect();
                v.sort_unstable();
                v.dedup();
                v.len()
            };
            let closeness = match b.protection {
                Protection::Closeness { ordered, .. } => Some(ordered),
                Protection::Diversity { .. } => None,
            };
            let protected = sensitive.iter().filter(|rows| !rows.is_empty());
            BucketFigures {
                attribute: b.name.clone(),
                count: buckets.len(),
                min_size: buckets.iter().map(Vec::len).min().unwrap_or(0),
                l: protected.clone().map(distinct).min().unwrap_or(0),
                t: closeness.map(|ordered| {
                    protected
                        .map(|rows| bucket::distance(rows, codes, &reference, &by_rank, ordered))
                        .fold(0.0, f64::max)
                }),
                cells: buckets.iter().map(Vec::len).sum(),
            }
        })
        .collect();
    LgbFigures {
        groups: sizes.len(),
        min_group: sizes.iter().copied().min().unwrap_or(0),
        c_dm: sizes.iter().map(|&s| (s as u64).pow(2)).sum(),
        ncp,
        ncp_normalized: if cells > 0 { ncp / cells as f64 } else { 0.0 },
        moved_cells: found.moved_cells,
        buckets,
        query_error: None,
    }
}
