//! A column of a set table: its allowed generalized values Z_j ([`Family`]) and the
//! algebra of its cells (bit sets over the column's values): allowed, closure, widening,
//! rendering and parsing.

use serde::{Deserialize, Serialize};

use super::set_based;
use crate::data::confidentiality::has;
use crate::error::Result;

/// The allowed generalized values Z_j of a column.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Family {
    /// Every non-empty subset.
    Subsets,
    /// Every interval of the value order.
    Intervals,
    /// The groups of the quasi-identifier's hierarchy levels.
    Levels,
}

/// One column of a set table.
#[derive(Debug, Clone)]
pub struct SetColumn {
    /// Column name.
    pub(crate) name: String,
    /// Whether the column is a quasi-identifier (public) rather than a confidential domain.
    pub public: bool,
    /// The column's distinct values, indexed by code (bit `x` of a cell means value `x`).
    pub values: Vec<String>,
    /// The allowed generalized values Z_j.
    pub(crate) family: Family,
    /// Values in order (intervals).
    pub(super) order: Vec<u32>,
    /// `groups[level][value]`: the value's group (levels).
    pub(super) groups: Vec<Vec<u32>>,
    /// `labels[level][group]`: how the hierarchy names the group.
    pub(super) labels: Vec<Vec<String>>,
    pub(super) words: usize,
}

impl SetColumn {
    pub(super) fn bits(&self, values: impl IntoIterator<Item = u32>) -> Vec<u64> {
        let mut b = vec![0u64; self.words];
        for v in values {
            b[v as usize / 64] |= 1 << (v % 64);
        }
        b
    }
    pub(super) fn members(&self, cell: &[u64]) -> Vec<u32> {
        (0..self.values.len() as u32)
            .filter(|&v| has(cell, v as usize))
            .collect()
    }
    /// Whether `cell` is in Z_j.
    pub(crate) fn allowed(&self, cell: &[u64]) -> bool {
        let m = self.members(cell);
        if m.is_empty() {
            return false;
        }
        match self.family {
            Family::Subsets => true,
            Family::Intervals => {
                let pos: Vec<usize> = m
                    .iter()
                    .map(|&v| self.order.iter().position(|&o| o == v).expect("ordered"))
                    .collect();
                let (lo, hi) = (pos.iter().min().unwrap(), pos.iter().max().unwrap());
                hi - lo + 1 == m.len()
            }
            Family::Levels => self.smallest_group(&m).is_some_and(|g| g == cell),
        }
    }
    /// The smallest group of some level that holds all of `m` (levels may be partitions
    /// that do not nest, so every level is tried).
    pub(super) fn smallest_group(&self, m: &[u32]) -> Option<Vec<u64>> {
        self.groups
            .iter()
            .filter_map(|map| {
                let g = map[m[0] as usize];
                m.iter().all(|&v| map[v as usize] == g).then(|| {
                    let members: Vec<u32> = (0..self.values.len() as u32)
                        .filter(|&v| map[v as usize] == g)
                        .collect();
                    (members.len(), self.bits(members))
                })
            })
            .min_by_key(|(size, _)| *size)
            .map(|(_, bits)| bits)
    }
    /// The smallest allowed value containing `cell`.
    pub(crate) fn close(&self, cell: &[u64]) -> Vec<u64> {
        let m = self.members(cell);
        match self.family {
            Family::Subsets => cell.to_vec(),
            Family::Intervals => {
                let pos: Vec<usize> = m
                    .iter()
                    .map(|&v| self.order.iter().position(|&o| o == v).expect("ordered"))
                    .collect();
                let (lo, hi) = (*pos.iter().min().unwrap(), *pos.iter().max().unwrap());
                self.bits(self.order[lo..=hi].iter().copied())
            }
            Family::Levels => self
                .smallest_group(&m)
                .unwrap_or_else(|| self.bits(0..self.values.len() as u32)),
        }
    }
    /// The smallest allowed value strictly containing `cell` and some value outside
    /// `inside` (None: impossible).
    pub(super) fn widen_outside(&self, cell: &[u64], inside: &[bool]) -> Option<Vec<u64>> {
        let outside: Vec<u32> = (0..self.values.len() as u32)
            .filter(|&v| !inside[v as usize])
            .collect();
        let m = self.members(cell);
        outside
            .iter()
            .map(|&o| {
                let mut c = cell.to_vec();
                c[o as usize / 64] |= 1 << (o % 64);
                self.close(&c)
            })
            .min_by_key(|c| (self.members(c).len(), self.members(c)))
            .filter(|c| self.members(c).len() > m.len())
    }
    /// How a cell is shown in a released table.
    pub(crate) fn render(&self, cell: &[u64]) -> String {
        let m = self.members(cell);
        match m.len() {
            1 => self.values[m[0] as usize].clone(),
            n if n == self.values.len() => "*".into(),
            _ => match self.family {
                Family::Levels => {
                    let level = self.groups.iter().position(|map| {
                        let g = map[m[0] as usize];
                        (0..self.values.len()).all(|v| (map[v] == g) == m.contains(&(v as u32)))
                    });
                    match level {
                        Some(l) => self.labels[l][self.groups[l][m[0] as usize] as usize].clone(),
                        None => self.render_set(&m),
                    }
                }
                Family::Intervals => {
                    let first = self.order.iter().find(|&&o| m.contains(&o)).unwrap();
                    let last = self.order.iter().rev().find(|&&o| m.contains(&o)).unwrap();
                    format!(
                        "[{},{}]",
                        self.values[*first as usize], self.values[*last as usize]
                    )
                }
                _ => self.render_set(&m),
            },
        }
    }
    /// `{a,b,...}`: every member, in the column's order.
    pub(super) fn render_set(&self, m: &[u32]) -> String {
        let names: Vec<&str> = self
            .order
            .iter()
            .filter(|o| m.contains(o))
            .map(|&v| self.values[v as usize].as_str())
            .collect();
        format!("{{{}}}", names.join(","))
    }
    /// Reads a released cell back into its set of values (the inverse of [`render`]), or
    /// None when `text` names no allowed value of this column.
    ///
    /// [`render`]: SetColumn::render
    pub(crate) fn parse(&self, text: &str) -> Option<Vec<u64>> {
        let index = |v: &str| self.values.iter().position(|x| x == v).map(|i| i as u32);
        if let Some(v) = index(text) {
            return Some(self.bits([v]));
        }
        if text == "*" {
            return Some(self.bits(0..self.values.len() as u32));
        }
        if self.family == Family::Levels {
            for (labels, map) in self.labels.iter().zip(&self.groups) {
                if let Some(g) = labels.iter().position(|l| l == text) {
                    let members =
                        (0..self.values.len() as u32).filter(|&v| map[v as usize] == g as u32);
                    return Some(self.bits(members));
                }
            }
        }
        if let Some(inner) = text.strip_prefix('[').and_then(|t| t.strip_suffix(']')) {
            let (lo, hi) = inner.split_once(',')?;
            let at = |v: &str| self.order.iter().position(|&o| Some(o) == index(v));
            let (lo, hi) = (at(lo)?, at(hi)?);
            return (lo <= hi).then(|| self.bits(self.order[lo..=hi].iter().copied()));
        }
        let inner = text.strip_prefix('{')?.strip_suffix('}')?;
        let members: Option<Vec<u32>> = inner.split(',').map(index).collect();
        members.filter(|m| !m.is_empty()).map(|m| self.bits(m))
    }
}

pub(super) fn numeric_order(values: &[String]) -> Option<Vec<u32>> {
    let x: Option<Vec<f64>> = values
        .iter()
        .map(|v| crate::data::number::parse(v))
        .collect();
    let x = x?;
    let mut order: Vec<u32> = (0..values.len() as u32).collect();
    order.sort_by(|&a, &b| x[a as usize].total_cmp(&x[b as usize]));
    Some(order)
}

pub(super) fn column(
    name: &str,
    public: bool,
    values: Vec<String>,
    family: Family,
    groups: Vec<Vec<u32>>,
) -> Result<SetColumn> {
    let order = match family {
        Family::Intervals => numeric_order(&values).ok_or_else(|| {
            set_based(format!(
                "`{name}` is not numeric, so its cells cannot be generalized to intervals"
            ))
        })?,
        _ => numeric_order(&values).unwrap_or_else(|| {
            let mut o: Vec<u32> = (0..values.len() as u32).collect();
            o.sort_by(|&x, &y| values[x as usize].cmp(&values[y as usize]));
            o
        }),
    };
    Ok(SetColumn {
        name: name.into(),
        public,
        words: values.len().div_ceil(64).max(1),
        values,
        family,
        order,
        groups,
        labels: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Regression: subsets of more than 64 values were rendered truncated, so the release
    /// showed fewer candidates than the safety test had assumed.
    #[test]
    fn large_subsets_render_whole_and_parse_back() {
        let values: Vec<String> = (0..100).map(|i| format!("v{i}")).collect();
        let col = column("c", false, values, Family::Subsets, Vec::new()).unwrap();
        let cell = col.bits((0..100).filter(|&v| v != 7));
        let text = col.render(&cell);
        assert!(text.contains("v99") && !text.contains("v7,"), "{text}");
        assert_eq!(col.parse(&text), Some(cell));
        let all = col.bits(0..100);
        assert_eq!(col.render(&all), "*");
        assert_eq!(col.parse("*"), Some(all));
        assert_eq!(col.parse("{v1,nope}"), None);
        let numbers: Vec<String> = ["10", "2", "30"].iter().map(|s| s.to_string()).collect();
        let col = column("n", false, numbers, Family::Intervals, Vec::new()).unwrap();
        let cell = col.bits([0, 1]);
        assert_eq!(col.render(&cell), "[2,10]");
        assert_eq!(col.parse("[2,10]"), Some(cell));
        assert_eq!(col.parse("[10,2]"), None);
    }

    /// Regression: with partitions that do not nest, the first level holding a cell is not
    /// always the one with the smallest group; closing {1,2} must give {1,2}, not {1,2,3,4}.
    #[test]
    fn levels_close_to_the_smallest_group_of_any_partition() {
        let values: Vec<String> = (1..=6).map(|v| v.to_string()).collect();
        let groups = vec![
            vec![0, 1, 2, 3, 4, 5],
            vec![0, 0, 0, 0, 1, 2], // {1,2,3,4} {5} {6}
            vec![0, 0, 1, 1, 1, 1], // {1,2} {3,4,5,6}
            vec![0; 6],
        ];
        let col = column("c", true, values, Family::Levels, groups).unwrap();
        assert_eq!(col.close(&col.bits([0, 1])), col.bits([0, 1]));
        assert_eq!(col.close(&col.bits([0, 2])), col.bits([0, 1, 2, 3]));
        assert_eq!(col.close(&col.bits([0, 4])), col.bits(0..6));
    }
}
