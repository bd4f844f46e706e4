//! The written form of an LGB release (paper 004, Definitions 8–9): one main table and one
//! table of sensitive values per bucketized attribute.
//!
//! The main table keeps every column but the identifying ones (flag columns included) in
//! input order. A quasi-identifier shows its group's generalized value. A semi-sensitive
//! attribute `a` becomes two columns: `a`, the group's generalized value (empty where the
//! cell is sensitive), and `a.bid`, the cell's bucket (empty where it is not). A sensitive
//! attribute shows only `a.bid`. The last column is the local group id. Each bucket table
//! lists `bid,value` with every bucket's values in value order, never in row order, so
//! that positions do not pair values with rows. Group and bucket ids are numbered by first
//! appearance in the written (shuffled) row order.

use std::io::Write;

use crate::algorithm::lgb::{Lgb, LgbData};
use crate::data::table::CsvFormat;
use crate::data::Role;

/// An LGB result ready to write.
pub struct LgbTable<'a> {
    data: &'a LgbData,
    lgb: &'a Lgb,
    /// Per group, per attribute, the label shown (empty where bucketized).
    labels: Vec<Vec<String>>,
    /// Per row, its group.
    row_group: Vec<u32>,
    /// Per group its written id.
    gid: Vec<String>,
    /// Per bucketized attribute: per row its bucket (`u32::MAX`: none), per bucket its id.
    row_bucket: Vec<Vec<u32>>,
    bid: Vec<Vec<String>>,
    /// The main table's header.
    header: Vec<String>,
}

/// `name`, or with as many leading underscores as it takes to differ from `taken`.
fn fresh(name: String, taken: &[String]) -> String {
    let mut name = name;
    while taken.contains(&name) {
        name.insert(0, '_');
    }
    name
}

impl<'a> LgbTable<'a> {
    /// The release of `lgb`, ids numbered along `order` (the rows as written).
    pub fn new(data: &'a LgbData, lgb: &'a Lgb, order: &[usize]) -> LgbTable<'a> {
        let n = data.table.rows();
        let mut row_group = vec![0u32; n];
        for (g, rows) in lgb.groups.iter().enumerate() {
            for &r in rows {
                row_group[r as usize] = g as u32;
            }
        }
        let ids = |of: &dyn Fn(usize) -> Option<usize>, count: usize| -> Vec<String> {
            let mut id = vec![String::new(); count];
            let mut next = 0usize;
            for &r in order {
                if let Some(x) = of(r) {
                    if id[x].is_empty() {
                        next += 1;
                        id[x] = next.to_string();
                    }
                }
            }
            id
        };
        let gid = ids(&|r| Some(row_group[r] as usize), lgb.groups.len());
        let mut row_bucket = Vec::new();
        let mut bid = Vec::new();
        for buckets in &lgb.buckets {
            let mut of = vec![u32::MAX; n];
            for (b, rows) in buckets.iter().enumerate() {
                for &r in rows {
                    of[r as usize] = b as u32;
                }
            }
            bid.push(ids(
                &|r| (of[r] != u32::MAX).then_some(of[r] as usize),
                buckets.len(),
            ));
            row_bucket.push(of);
        }
        let labels = lgb
            .values
            .iter()
            .map(|values| {
                values
                    .iter()
                    .zip(data.attributes.iter().zip(&lgb.domains))
                    .map(|(v, (q, d))| v.as_ref().map_or(String::new(), |v| d.label(q, v)))
                    .collect()
            })
            .collect();
        let input = data.table.header();
        let mut header: Vec<String> = Vec::new();
        for (c, role) in data.roles.iter().enumerate() {
            match role {
                Role::Identifying => {}
                Role::SemiSensitive => {
                    header.push(input[c].clone());
                    header.push(fresh(format!("{}.bid", input[c]), input));
                }
                Role::Sensitive => header.push(fresh(format!("{}.bid", input[c]), input)),
                _ => header.push(input[c].clone()),
            }
        }
        header.push(fresh("gid".into(), input));
        LgbTable {
            data,
            lgb,
            labels,
            row_group,
            gid,
            row_bucket,
            bid,
            header,
        }
    }

    /// The main table's columns.
    pub fn header(&self) -> &[String] {
        &self.header
    }

    /// Writes the main table: the header, then input rows `order`.
    pub fn write_main(
        &self,
        w: &mut dyn Write,
        format: &CsvFormat,
        order: &[usize],
    ) -> std::io::Result<()> {
        let data = self.data;
        let attribute_of = |c: usize| data.attributes.iter().position(|q| q.column == c);
        let bucketed_of = |c: usize| data.bucketed.iter().position(|b| b.column == c);
        // per column: what it shows
        enum Cell {
            Value,
            Label(usize),
            Bucket(usize),
            Both(usize, usize),
        }
        let cells: Vec<Option<Cell>> = data
            .roles
            .iter()
            .enumerate()
            .map(|(c, role)| match role {
                Role::Identifying => None,
                Role::QuasiIdentifying => attribute_of(c).map(Cell::Label),
                Role::SemiSensitive => Some(Cell::Both(
                    attribute_of(c).expect("an attribute"),
                    bucketed_of(c).expect("bucketized"),
                )),
                Role::Sensitive => bucketed_of(c).map(Cell::Bucket),
                Role::Insensitive => Some(Cell::Value),
            })
            .collect();
        let mut csv = super::csv_writer(w, format);
        csv.write_record(&self.header)?;
        let mut record: Vec<&str> = Vec::with_capacity(self.header.len());
        for &r in order {
            record.clear();
            let g = self.row_group[r] as usize;
            let bucket = |b: usize| -> &str {
                let x = self.row_bucket[b][r];
                if x == u32::MAX {
                    ""
                } else {
                    &self.bid[b][x as usize]
                }
            };
            for (c, cell) in cells.iter().enumerate() {
                match cell {
                    None => {}
                    Some(Cell::Value) => record.push(data.table.value(r, c)),
                    Some(Cell::Label(a)) => record.push(&self.labels[g][*a]),
                    Some(Cell::Bucket(b)) => record.push(bucket(*b)),
                    Some(Cell::Both(a, b)) => {
                        record.push(&self.labels[g][*a]);
                        record.push(bucket(*b));
                    }
                }
            }
            record.push(&self.gid[g]);
            csv.write_record(&record)?;
        }
        csv.flush()
    }

    /// Writes the sensitive values of bucketized attribute `b` (index into
    /// [`LgbData::bucketed`]): `bid,value`, buckets by id, values in value order.
    pub fn write_buckets(
        &self,
        b: usize,
        w: &mut dyn Write,
        format: &CsvFormat,
    ) -> std::io::Result<()> {
        let bucketed = &self.data.bucketed[b];
        let codes = self.data.table.codes(bucketed.column);
        let mut csv = super::csv_writer(w, format);
        csv.write_record(["bid", bucketed.name.as_str()])?;
        let mut by_id: Vec<(usize, &Vec<u32>)> = self.lgb.buckets[b]
            .iter()
            .enumerate()
            .filter(|(x, _)| !self.bid[b][*x].is_empty())
            .map(|(x, rows)| (self.bid[b][x].parse::<usize>().expect("a number"), rows))
            .collect();
        by_id.sort_unstable_by_key(|(id, _)| *id);
        let dict = self.data.table.dictionary(bucketed.column);
        for (id, rows) in by_id {
            let mut values: Vec<u32> = rows.iter().map(|&r| codes[r as usize]).collect();
            values.sort_unstable_by_key(|&v| bucketed.rank[v as usize]);
            let id = id.to_string();
            for v in values {
                csv.write_record([id.as_str(), dict.value(v)])?;
            }
        }
        csv.flush()
    }
}
