//! Writing a set-based release (paper 002): each generalized cell as the set of values it
//! allows, through the same CSV writer as level-based releases.

use std::io::Write;
use std::path::Path;

use rustc_hash::FxHashMap;

use super::{check_not_input, csv_writer, write_atomic};
use crate::algorithm::setbased::SetTable;
use crate::data::table::CsvFormat;
use crate::data::Role;
use crate::error::Result;

impl SetTable<'_> {
    /// Writes the released table as CSV: identifying columns dropped, the set columns
    /// rendered, other columns as they are; rows `order` (input rows) in that order.
    pub fn write_to(
        &self,
        w: &mut dyn Write,
        format: &CsvFormat,
        order: &[usize],
    ) -> std::io::Result<()> {
        let data = &self.problem.data;
        let set_of: FxHashMap<usize, usize> = self
            .table_columns
            .iter()
            .enumerate()
            .map(|(j, &c)| (c, j))
            .collect();
        let mut csv = csv_writer(w, format);
        let keep: Vec<usize> = (0..data.roles.len())
            .filter(|&c| data.roles[c] != Role::Identifying)
            .collect();
        csv.write_record(keep.iter().map(|&c| data.table.header()[c].as_str()))?;
        for &i in order {
            let row: Vec<String> = keep
                .iter()
                .map(|&c| match set_of.get(&c) {
                    Some(&j) => self.columns[j].render(self.cell(i, j)),
                    None => data.table.value(i, c).to_string(),
                })
                .collect();
            csv.write_record(&row)?;
        }
        csv.flush()
    }

    /// Writes the released table to `path` atomically, rows in input order.
    pub fn write_csv(&self, path: &Path, delimiter: u8) -> Result<()> {
        check_not_input(self.problem, path)?;
        let order: Vec<usize> = (0..self.rows()).collect();
        let format = CsvFormat {
            delimiter,
            ..Default::default()
        };
        write_atomic(path, |w| self.write_to(w, &format, &order))
    }
}
