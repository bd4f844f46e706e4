//! What the adversary of paper 001 reasons about: the original table reduced to persons
//! and sensitive codes ([`Instance`]), and each generalization as a partition of its rows
//! ([`Partition`]).

use std::hash::Hash;

use rustc_hash::FxHashMap;

use crate::error::{DisclosureError, Result};

/// The original table, reduced to what the adversary reasons about: who each row is and its
/// sensitive value.
#[derive(Debug, Clone)]
pub struct Instance {
    /// A name per row (the identifier, or the row number).
    pub persons: Vec<String>,
    /// Sensitive values, indexed by code.
    pub values: Vec<String>,
    /// The sensitive value code of each row.
    pub sensitive: Vec<u16>,
}

impl Instance {
    /// Checks that `persons` and `sensitive` have one entry per row, that there are at most
    /// `u16::MAX` values, and that every code indexes `values`.
    pub fn new(persons: Vec<String>, values: Vec<String>, sensitive: Vec<u16>) -> Result<Self> {
        if persons.len() != sensitive.len() {
            return Err(DisclosureError::Lengths {
                persons: persons.len(),
                values: sensitive.len(),
            }
            .into());
        }
        if values.len() > u16::MAX as usize {
            return Err(DisclosureError::TooManyValues {
                values: values.len(),
                max: u16::MAX as usize,
            }
            .into());
        }
        if let Some(&bad) = sensitive.iter().find(|&&v| v as usize >= values.len()) {
            return Err(DisclosureError::Code(bad as usize).into());
        }
        Ok(Instance {
            persons,
            values,
            sensitive,
        })
    }
    /// Number of rows.
    pub fn rows(&self) -> usize {
        self.sensitive.len()
    }
}

/// A generalization function seen as what it does to rows: a partition into groups.
#[derive(Debug, Clone)]
pub struct Partition {
    /// Name shown in reports.
    pub name: String,
    pub(super) group_of: Vec<u32>,
    pub(super) groups: Vec<Vec<u32>>,
}

impl Partition {
    /// Rows with equal labels share a group; groups are numbered by their first row.
    pub fn from_labels<T: Eq + Hash>(name: impl Into<String>, labels: &[T]) -> Partition {
        let mut index: FxHashMap<&T, u32> = FxHashMap::default();
        let mut groups: Vec<Vec<u32>> = Vec::new();
        let group_of = labels
            .iter()
            .enumerate()
            .map(|(row, label)| {
                let g = *index.entry(label).or_insert_with(|| {
                    groups.push(Vec::new());
                    groups.len() as u32 - 1
                });
                groups[g as usize].push(row as u32);
                g
            })
            .collect();
        Partition {
            name: name.into(),
            group_of,
            groups,
        }
    }
    /// Number of rows partitioned.
    pub(crate) fn rows(&self) -> usize {
        self.group_of.len()
    }
    /// The groups, each the list of its rows in increasing order.
    pub fn groups(&self) -> &[Vec<u32>] {
        &self.groups
    }
    /// The group `row` belongs to.
    pub(crate) fn group_of(&self, row: usize) -> usize {
        self.group_of[row] as usize
    }
    /// Whether every group of `self` lies inside one group of `coarser`.
    pub(crate) fn refines(&self, coarser: &Partition) -> bool {
        self.groups.iter().all(|g| {
            let target = coarser.group_of[g[0] as usize];
            g.iter().all(|&r| coarser.group_of[r as usize] == target)
        })
    }
}
