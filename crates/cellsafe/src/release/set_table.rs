//! The set-based release (paper 002) as a [`ReleasedTable`]: each generalized cell as the
//! set of values it allows, other columns as they are.

use std::borrow::Cow;

use super::ReleasedTable;
use crate::algorithm::problem::Problem;
use crate::algorithm::setbased::SetTable;

impl ReleasedTable for SetTable<'_> {
    fn problem(&self) -> &Problem {
        self.problem
    }
    fn cells_into<'s>(&'s self, i: usize, out: &mut Vec<Cow<'s, str>>) {
        let data = &self.problem.data;
        out.extend(
            (0..data.roles.len())
                .filter(|&c| data.roles[c] != crate::data::Role::Identifying)
                .map(|c| match self.table_columns.iter().position(|&t| t == c) {
                    Some(j) => Cow::Owned(self.columns[j].render(self.cell(i, j))),
                    None => Cow::Borrowed(data.table.value(i, c)),
                }),
        );
    }
}
