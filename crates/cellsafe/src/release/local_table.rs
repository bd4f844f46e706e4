//! A local recoding as a [`ReleasedTable`]: each quasi-identifier cell shows its group's
//! generalized value, other columns are as they are, and a last column holds the group id
//! (GID). Group ids are numbered by first appearance in the written (shuffled) order, so
//! they say nothing about how the partition was built.

use std::borrow::Cow;

use super::ReleasedTable;
use crate::algorithm::local::Recoded;
use crate::algorithm::problem::Problem;
use crate::data::Role;
use crate::framework::classes::prefetch;

/// The released form of a [`Recoded`] partition.
pub struct LocalTable<'a> {
    problem: &'a Problem,
    /// Per group, per quasi-identifier, the label shown.
    labels: Vec<Vec<String>>,
    /// Per input row, its group.
    row_group: Vec<u32>,
    /// Per group, the id written (1-based), as text.
    gid: Vec<String>,
    /// Name of the group id column.
    gid_name: String,
}

impl<'a> LocalTable<'a> {
    /// The table of `recoded`, its group ids numbered along `order` (the rows as written).
    pub fn new(problem: &'a Problem, recoded: &Recoded, order: &[usize]) -> LocalTable<'a> {
        let row_group = recoded.partition.row_groups(problem.data.rows());
        let mut gid = vec![String::new(); recoded.partition.groups.len()];
        let mut next = 0usize;
        for &r in order {
            let g = row_group[r] as usize;
            if gid[g].is_empty() {
                next += 1;
                gid[g] = next.to_string();
            }
        }
        LocalTable {
            problem,
            labels: recoded.labels(problem),
            row_group,
            gid,
            gid_name: gid_column(problem.data.table.header()),
        }
    }

    /// Name of the group id column.
    pub fn gid_name(&self) -> &str {
        &self.gid_name
    }
}

/// `gid`, or with as many leading underscores as it takes to differ from every column.
pub fn gid_column(header: &[String]) -> String {
    let mut name = String::from("gid");
    while header.contains(&name) {
        name.insert(0, '_');
    }
    name
}

impl ReleasedTable for LocalTable<'_> {
    fn problem(&self) -> &Problem {
        self.problem
    }
    fn header(&self) -> Vec<&str> {
        let data = &self.problem.data;
        data.table
            .header()
            .iter()
            .zip(&data.roles)
            .filter(|(_, r)| **r != Role::Identifying)
            .map(|(h, _)| h.as_str())
            .chain(std::iter::once(self.gid_name.as_str()))
            .collect()
    }
    fn row_bytes_bound(&self) -> Option<usize> {
        let data = &self.problem.data;
        let mut bound = 1; // the line end
        let mut qi = 0;
        // a quoted cell: two quotes, each inner quote doubled
        let cell = |longest: usize| 2 * longest + 3;
        for (column, role) in data.roles.iter().enumerate() {
            bound += match role {
                Role::Identifying => continue,
                Role::QuasiIdentifying => {
                    let longest = self.labels.iter().map(|l| l[qi].len()).max()?;
                    qi += 1;
                    cell(longest)
                }
                _ => cell(
                    data.table
                        .dictionary(column)
                        .values()
                        .iter()
                        .map(String::len)
                        .max()?,
                ),
            };
        }
        Some(bound + cell(self.gid.iter().map(String::len).max()?))
    }
    fn prefetch_rows(&self, rows: &[usize]) {
        let data = &self.problem.data;
        for &row in rows {
            prefetch(&self.row_group[row]);
            for column in 0..data.roles.len() {
                prefetch(&data.table.codes(column)[row]);
            }
        }
    }
    fn cells_into<'s>(&'s self, row: usize, out: &mut Vec<Cow<'s, str>>) {
        let data = &self.problem.data;
        let g = self.row_group[row] as usize;
        let mut qi = 0;
        for (column, role) in data.roles.iter().enumerate() {
            match role {
                Role::Identifying => {}
                Role::QuasiIdentifying => {
                    out.push(Cow::Borrowed(&self.labels[g][qi]));
                    qi += 1;
                }
                _ => out.push(Cow::Borrowed(data.table.value(row, column))),
            }
        }
        out.push(Cow::Borrowed(&self.gid[g]));
    }
}
