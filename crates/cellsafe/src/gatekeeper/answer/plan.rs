//! Resolving a query against the center: the columns it selects (identifying ones
//! dropped), the tests of its conditions, the rows it releases, and the answer's own table
//! with the class-based models bound to it. Kept apart from the searches, which only read
//! the [`Plan`] it returns.

use super::Plan;
use crate::algorithm::problem::Problem;
use crate::data::Role;
use crate::error::{CenterError, QueryError, Result};
use crate::framework::dataset::Dataset;
use crate::gatekeeper::{Center, Knowledge, Request};
use crate::metric::MetricSpec;

impl Center {
    /// Resolves columns and conditions and adds what the answer says regardless of the
    /// generalization (its conditions, its exact confidential cells) to the knowledge.
    pub(crate) fn plan(
        &self,
        knowledge: &Knowledge,
        request: &Request,
        rows: &[u32],
    ) -> Result<Plan> {
        let table = &self.problem.data.table;
        let mut selected = Vec::new();
        let mut dropped = Vec::new();
        let names: Vec<&str> = request
            .columns
            .iter()
            .flat_map(|c| -> Vec<&str> {
                if c == "*" {
                    table.header().iter().map(|h| h.as_str()).collect()
                } else {
                    vec![c.as_str()]
                }
            })
            .collect();
        for name in names {
            if table.column_index(name).is_none() {
                return Err(QueryError::UnknownColumn(name.into()).into());
            }
            match self.set_column(name) {
                Some(j) if !selected.contains(&j) => selected.push(j),
                Some(_) => {}
                None if !dropped.iter().any(|d| d == name) => dropped.push(name.to_string()),
                None => {}
            }
        }
        if selected.is_empty() {
            return Err(QueryError::NoColumns.into());
        }
        let tests = self.tests(&request.conditions)?;
        let n = self.rows();
        let mut rows = rows.to_vec();
        rows.sort_unstable();
        rows.dedup();
        if let Some(&r) = rows.iter().find(|&&r| r as usize >= n) {
            return Err(CenterError::NoRow { row: r, rows: n }.into());
        }
        let mut released = vec![false; n];
        for &r in &rows {
            released[r as usize] = true;
        }
        let mut base = knowledge.clone();
        self.narrow_by_conditions(&mut base, &tests, &released);
        let quasi: Vec<usize> = selected
            .iter()
            .copied()
            .filter(|&j| self.columns[j].quasi.is_some())
            .collect();
        let conditioned: Vec<usize> = tests.iter().map(|(j, _)| *j).collect();
        let classes = self.answer_problem(&selected, &conditioned, &rows)?;
        let k = self
            .models
            .iter()
            .all(|m| matches!(m, crate::criteria::ModelSpec::KAnonymity { .. }))
            .then(|| {
                self.models
                    .iter()
                    .filter_map(|m| match m {
                        crate::criteria::ModelSpec::KAnonymity { k } => Some(*k),
                        _ => None,
                    })
                    .max()
                    .unwrap_or(1)
            });
        Ok(Plan {
            selected,
            dropped,
            rows,
            quasi,
            base,
            classes,
            k,
        })
    }

    /// The answer's rows as a table of their own, with the class-based models bound to it:
    /// sensitive columns count when released or tested by a condition. With the answer's
    /// quasi-identifier positions in that table's lattice.
    fn answer_problem(
        &self,
        selected: &[usize],
        conditioned: &[usize],
        rows: &[u32],
    ) -> Result<Option<(Problem, Vec<usize>)>> {
        if self.models.is_empty() || rows.is_empty() {
            return Ok(None);
        }
        let data = &self.problem.data;
        let table = &data.table;
        let keep: Vec<usize> = (0..table.header().len())
            .filter(|&c| data.roles[c] != Role::Identifying)
            .collect();
        let sub = table.select(rows, &keep);
        let header = sub.header().to_vec();
        let released = |name: &str| {
            self.set_column(name)
                .is_some_and(|j| selected.contains(&j) || conditioned.contains(&j))
        };
        let mut roles = Vec::new();
        let mut sensitive_hierarchies = Vec::new();
        for (&c, name) in keep.iter().zip(&header) {
            let role = match data.roles[c] {
                Role::Sensitive if released(name) => {
                    let s = data.sensitive.iter().find(|s| &s.name == name);
                    sensitive_hierarchies.push(s.and_then(|s| s.hierarchy.clone()));
                    Role::Sensitive
                }
                Role::Sensitive => Role::Insensitive,
                r => r,
            };
            roles.push(role);
        }
        let hierarchies = data
            .quasi
            .iter()
            .map(|q| {
                (
                    q.hierarchy.clone(),
                    std::path::PathBuf::from("<gatekeeper>"),
                )
            })
            .collect();
        let sub = Dataset::new(sub, roles, hierarchies, sensitive_hierarchies)?;
        let models: Vec<_> = self
            .models
            .iter()
            .filter(|m| m.attribute().is_none_or(&released))
            .cloned()
            .collect();
        if models.is_empty() {
            return Ok(None);
        }
        let problem = Problem::new(sub, &models, 0.0, &MetricSpec::default())?;
        let positions = data
            .quasi
            .iter()
            .map(|q| self.set_column(&q.name).expect("a released column"))
            .collect();
        Ok(Some((problem, positions)))
    }
}
