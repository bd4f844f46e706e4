//! A table with its attribute roles resolved: quasi-identifiers encoded as hierarchy leaves,
//! sensitive attributes encoded with their overall distribution.

use std::cmp::Ordering;
use std::path::PathBuf;
use std::sync::Arc;

use crate::data::confidentiality::Confidentiality;
use crate::data::table::Table;
use crate::data::{number, Role, SUPPRESSED};
use crate::error::{excerpt, DatasetError, Error, Location, Result};
use crate::hierarchy::Hierarchy;

/// A quasi-identifier: its column, hierarchy, and the leaf code of every row.
#[derive(Debug, Clone)]
pub struct QuasiIdentifier {
    /// Column name.
    pub name: String,
    /// Column index in the table.
    pub(crate) column: usize,
    /// The generalization hierarchy of the column's values.
    pub hierarchy: Hierarchy,
    /// Per row, the leaf code of its value in `hierarchy`.
    pub leaves: Vec<u32>,
    /// Per leaf of `hierarchy`, how many persons have it (rows, weighted).
    pub(crate) leaf_rows: Vec<u64>,
}

impl QuasiIdentifier {
    /// Encodes column `column` of `table` as leaves of `hierarchy` (read from `hpath`,
    /// named in the error when a value is missing from it).
    pub(crate) fn encode(
        table: &Table,
        column: usize,
        hierarchy: Hierarchy,
        hpath: &std::path::Path,
    ) -> Result<QuasiIdentifier> {
        let dict = table.dictionary(column);
        let mut leaf_of_code = Vec::with_capacity(dict.len());
        for (code, value) in dict.values().iter().enumerate() {
            let leaf = hierarchy.leaf(value).ok_or_else(|| {
                Error::data(
                    Location::at(
                        table.source(),
                        dict.first_line(code as u32),
                        Some(column as u64 + 1),
                    ),
                    format!(
                        "value `{}` of column `{}` is not in its hierarchy {}",
                        excerpt(value),
                        excerpt(&table.header()[column]),
                        hpath.display()
                    ),
                )
            })?;
            leaf_of_code.push(leaf);
        }
        let codes = table.codes(column);
        let leaves = codes.iter().map(|&c| leaf_of_code[c as usize]).collect();
        let mut leaf_rows = vec![0u64; hierarchy.leaf_count()];
        for (code, n) in rows_per_code(codes, dict.len()).into_iter().enumerate() {
            leaf_rows[leaf_of_code[code] as usize] += n;
        }
        Ok(QuasiIdentifier {
            name: table.header()[column].clone(),
            column,
            hierarchy,
            leaves,
            leaf_rows,
        })
    }
}

/// Columns of at most this many distinct values are counted in four interleaved counters
/// per value ([`rows_per_code`]); 32 bytes a value, a few kilobytes here.
const INTERLEAVED_CODES: usize = 4096;

/// How many of `codes` (each below `distinct`) hold each code. A column of few values has
/// runs of rows of one value, whose increments of a single counter would each wait on the
/// one before: four counters per code, taken in turn, break the chain. A column of many
/// values has few such runs and is counted plainly.
fn rows_per_code(codes: &[u32], distinct: usize) -> Vec<u64> {
    if distinct > INTERLEAVED_CODES {
        let mut counts = vec![0u64; distinct];
        for &c in codes {
            counts[c as usize] += 1;
        }
        return counts;
    }
    let mut lanes = vec![[0u64; 4]; distinct];
    let mut quads = codes.chunks_exact(4);
    for quad in &mut quads {
        for (lane, &c) in quad.iter().enumerate() {
            lanes[c as usize][lane] += 1;
        }
    }
    for &c in quads.remainder() {
        lanes[c as usize][0] += 1;
    }
    lanes.iter().map(|l| l.iter().sum()).collect()
}

/// A sensitive attribute, encoded with its distribution over the whole input.
#[derive(Debug, Clone)]
pub(crate) struct SensitiveAttribute {
    /// Column name.
    pub(crate) name: String,
    /// Per row, the index of its value in `values`.
    pub(crate) codes: Vec<u32>,
    /// The distinct values, indexed by code.
    pub(crate) values: Vec<String>,
    /// Frequency of each value in the whole input (persons: rows, weighted).
    pub(crate) counts: Vec<u32>,
    /// Values in their natural order (numeric if every value is a number, else by string).
    pub(crate) order: Vec<u32>,
    /// Optional hierarchy over the values (hierarchical-distance t-closeness).
    pub(crate) hierarchy: Option<Hierarchy>,
    /// Offset of this attribute's histogram inside a class histogram row.
    pub(crate) offset: usize,
}

/// A table with resolved roles.
#[derive(Debug, Clone)]
pub struct Dataset {
    /// The input table.
    pub table: Table,
    /// The role of each column.
    pub(crate) roles: Vec<Role>,
    /// The quasi-identifiers, in header order.
    pub quasi: Vec<QuasiIdentifier>,
    /// The sensitive attributes, in header order.
    pub(crate) sensitive: Vec<SensitiveAttribute>,
    /// What each person holds confidential (`[safety]`), when logical safety is used.
    pub confidentiality: Option<Arc<Confidentiality>>,
    /// Per column: insensitive and explicitly public, so a suppressed row still shows it.
    pub(crate) public: Vec<bool>,
    /// The population table this table is a research subset of (δ-presence), if it is one.
    pub(crate) population: Option<Arc<Population>>,
    /// Per row, how many identical persons it stands for (a frequency set: the distinct
    /// tuples of a larger table with their counts); `None`: one each.
    pub(crate) weights: Option<Arc<Vec<u32>>>,
}

/// The population a research subset was drawn from: a public table (a register, a census)
/// whose rows the recipient can generalize as the release is, to count how many of its
/// persons share each released class. The dataset holds the subset's rows only.
#[derive(Debug, Clone)]
pub struct Population {
    /// The population table (the dataset's table is a selection of its rows).
    pub table: Table,
    /// `leaves[j][row]`: the leaf code of quasi-identifier `j` in population row `row`,
    /// in the dataset's hierarchies.
    pub(crate) leaves: Vec<Vec<u32>>,
    /// The population row of each dataset row.
    pub members: Vec<u32>,
    /// Persons per population row, when its rows are a frequency set's (each distinct
    /// tuple once); None: a row is a person.
    pub weights: Option<Arc<Vec<u32>>>,
}

impl Population {
    /// Number of population rows.
    pub fn rows(&self) -> usize {
        self.table.rows()
    }
    /// Number of persons: the sum of the weights, or the rows when unweighted.
    pub fn persons(&self) -> u64 {
        match &self.weights {
            Some(w) => w.iter().map(|&w| w as u64).sum(),
            None => self.rows() as u64,
        }
    }
}

impl Dataset {
    /// Resolves roles. `hierarchies[i]` belongs to the `i`-th quasi-identifying column (in
    /// header order); `sensitive_hierarchies` may give a hierarchy to a sensitive column.
    pub fn new(
        table: Table,
        roles: Vec<Role>,
        mut hierarchies: Vec<(Hierarchy, PathBuf)>,
        mut sensitive_hierarchies: Vec<Option<Hierarchy>>,
    ) -> Result<Dataset> {
        if roles.len() != table.header().len() {
            return Err(DatasetError::Roles {
                columns: table.header().len(),
                roles: roles.len(),
            }
            .into());
        }
        if let Some(c) = roles.iter().position(|r| *r == Role::SemiSensitive) {
            return Err(DatasetError::SemiSensitive(table.header()[c].clone()).into());
        }
        let qi_columns: Vec<usize> = (0..roles.len())
            .filter(|&c| roles[c] == Role::QuasiIdentifying)
            .collect();
        // `*` marks what a suppressed row hides: a released value may not be `*` itself
        for (column, role) in roles.iter().enumerate() {
            if matches!(role, Role::Sensitive | Role::Insensitive) {
                let dict = table.dictionary(column);
                if let Some(code) = dict.code(SUPPRESSED) {
                    return Err(Error::data(
                        Location::at(
                            table.source(),
                            dict.first_line(code),
                            Some(column as u64 + 1),
                        ),
                        format!(
                            "`*` in column `{}` would read as a suppressed cell in the release; \
                             recode it",
                            table.header()[column]
                        ),
                    ));
                }
            }
        }
        if hierarchies.len() != qi_columns.len() {
            return Err(DatasetError::Hierarchies {
                quasi: qi_columns.len(),
                hierarchies: hierarchies.len(),
            }
            .into());
        }
        let sens_columns: Vec<usize> = (0..roles.len())
            .filter(|&c| roles[c] == Role::Sensitive)
            .collect();
        sensitive_hierarchies.resize(sens_columns.len(), None);
        let mut quasi = Vec::new();
        for (&column, (hierarchy, hpath)) in qi_columns.iter().zip(hierarchies.drain(..)) {
            quasi.push(QuasiIdentifier::encode(&table, column, hierarchy, &hpath)?);
        }
        let mut sensitive = Vec::new();
        let mut offset = 0;
        for (&column, hierarchy) in sens_columns.iter().zip(sensitive_hierarchies) {
            let dict = table.dictionary(column);
            let values = dict.values().to_vec();
            let codes = table.codes(column).to_vec();
            let mut counts = vec![0u32; values.len()];
            for &c in &codes {
                counts[c as usize] += 1;
            }
            if let Some(h) = &hierarchy {
                for (code, v) in values.iter().enumerate() {
                    if h.leaf(v).is_none() {
                        return Err(Error::data(
                            Location::at(
                                table.source(),
                                dict.first_line(code as u32),
                                Some(column as u64 + 1),
                            ),
                            format!(
                                "value `{}` of column `{}` is not in its hierarchy",
                                excerpt(v),
                                excerpt(&table.header()[column])
                            ),
                        ));
                    }
                }
            }
            let order = natural_order(&values);
            let n = values.len();
            sensitive.push(SensitiveAttribute {
                name: table.header()[column].clone(),
                codes,
                values,
                counts,
                order,
                hierarchy,
                offset,
            });
            offset += n;
        }
        let public = vec![false; roles.len()];
        Ok(Dataset {
            table,
            roles,
            quasi,
            sensitive,
            confidentiality: None,
            public,
            population: None,
            weights: None,
        })
    }

    /// The research subset `members` (0-based rows of this dataset's table, which becomes
    /// the population): the dataset of the member rows, its quasi-identifiers encoded with `self`'s hierarchies (built on the whole
    /// population, so that every population value has a leaf), and the population kept
    /// beside it. `self` must be the dataset of `population` itself, without confidential
    /// formulas (they are attached to the subset's rows afterwards).
    pub fn research_subset(self, mut members: Vec<u32>) -> Result<Dataset> {
        if members.is_empty() {
            return Err(DatasetError::EmptySubset(self.table.source().to_path_buf()).into());
        }
        if self.confidentiality.is_some() {
            return Err(DatasetError::SubsetAfterSafety.into());
        }
        if self.population.is_some() {
            return Err(DatasetError::SubsetOfSubset.into());
        }
        members.sort_unstable();
        let rows = self.rows();
        if let Some(&row) = members
            .windows(2)
            .find(|w| w[0] == w[1])
            .map(|w| &w[0])
            .or(members.last().filter(|&&r| r as usize >= rows))
        {
            return Err(DatasetError::SubsetRow { row, rows }.into());
        }
        let population = self.table;
        let leaves: Vec<Vec<u32>> = self.quasi.iter().map(|q| q.leaves.clone()).collect();
        let table = population.subset(&members);
        let hierarchies = self
            .quasi
            .into_iter()
            .map(|q| (q.hierarchy, PathBuf::from("the population's hierarchy")))
            .collect();
        let sensitive_hierarchies = self.sensitive.into_iter().map(|s| s.hierarchy).collect();
        let mut data = Dataset::new(table, self.roles, hierarchies, sensitive_hierarchies)?
            .with_public(self.public)?;
        // a frequency set's population: each member tuple stands for as many persons
        if let Some(w) = &self.weights {
            data = data.with_weights(members.iter().map(|&r| w[r as usize]).collect())?;
        }
        data.population = Some(Arc::new(Population {
            table: population,
            leaves,
            members,
            weights: self.weights,
        }));
        Ok(data)
    }

    /// Marks insensitive columns as public: a suppressed row keeps their cells (every other
    /// cell becomes `*`). `public` has one flag per column; only insensitive columns may be
    /// public.
    pub(crate) fn with_public(mut self, public: Vec<bool>) -> Result<Dataset> {
        if public.len() != self.roles.len() {
            return Err(DatasetError::PublicFlags {
                columns: self.roles.len(),
                flags: public.len(),
            }
            .into());
        }
        if let Some(c) =
            (0..public.len()).find(|&c| public[c] && self.roles[c] != Role::Insensitive)
        {
            return Err(DatasetError::PublicNotInsensitive(self.table.header()[c].clone()).into());
        }
        self.public = public;
        Ok(self)
    }

    /// Makes the table a frequency set: row `r` stands for `weights[r]` identical persons
    /// (the `GROUP BY … COUNT(*)` of a larger table), for the search only. A search on it
    /// finds what it finds on the table with each row repeated by its weight; releasing
    /// rows, logical safety, δ-presence, set-based and local recoding refuse it. One
    /// difference remains with the risk-based models: they suppress the smallest classes,
    /// ties broken by each class's first row (as ARX does), so the same scores need the
    /// tuples in order of first occurrence in the full table (in another order, verdicts
    /// and suppressed persons are the same, but another class of a tied size may go).
    /// Errors: not one weight per row, a weight of 0, more than `u32::MAX` persons in all,
    /// or a dataset that is a research subset or has confidential formulas.
    pub fn with_weights(mut self, weights: Vec<u32>) -> Result<Dataset> {
        if weights.len() != self.rows() {
            return Err(DatasetError::WeightsLength {
                rows: self.rows(),
                weights: weights.len(),
            }
            .into());
        }
        if let Some(row) = weights.iter().position(|&w| w == 0) {
            return Err(DatasetError::ZeroWeight(row).into());
        }
        let total: u64 = weights.iter().map(|&w| w as u64).sum();
        if total > u32::MAX as u64 {
            return Err(DatasetError::TooManyPersons(total).into());
        }
        if self.population.is_some() {
            return Err(DatasetError::WeightedUnsupported("a research subset (δ-presence)").into());
        }
        if self.confidentiality.is_some() {
            return Err(
                DatasetError::WeightedUnsupported("confidential formulas ([safety])").into(),
            );
        }
        for q in &mut self.quasi {
            q.leaf_rows.iter_mut().for_each(|n| *n = 0);
            for (&leaf, &w) in q.leaves.iter().zip(&weights) {
                q.leaf_rows[leaf as usize] += w as u64;
            }
        }
        for s in &mut self.sensitive {
            s.counts.iter_mut().for_each(|n| *n = 0);
            for (&c, &w) in s.codes.iter().zip(&weights) {
                s.counts[c as usize] += w;
            }
        }
        self.weights = Some(Arc::new(weights));
        Ok(self)
    }

    /// Per row, the persons it stands for, when the dataset is weighted.
    pub fn weights(&self) -> Option<&[u32]> {
        self.weights.as_deref().map(Vec::as_slice)
    }

    /// An error naming `feature` when the dataset is weighted (`feature` needs one row per
    /// person).
    pub(crate) fn unweighted(&self, feature: &'static str) -> Result<()> {
        match self.weights {
            Some(_) => Err(DatasetError::WeightedUnsupported(feature).into()),
            None => Ok(()),
        }
    }

    /// Number of persons: the sum of the weights, or the rows when unweighted.
    pub fn persons(&self) -> u64 {
        match &self.weights {
            Some(w) => w.iter().map(|&w| w as u64).sum(),
            None => self.rows() as u64,
        }
    }

    /// Attaches the persons' confidential formulas.
    pub(crate) fn with_confidentiality(mut self, c: Confidentiality) -> Dataset {
        self.confidentiality = Some(Arc::new(c));
        self
    }
    /// Where the logical-safety profile histogram starts in a class histogram row: after
    /// every sensitive attribute's.
    pub(crate) fn profile_offset(&self) -> usize {
        self.sensitive.iter().map(|s| s.values.len()).sum()
    }
    /// Number of table rows (of distinct tuples, when weighted: see [`persons`](Self::persons)).
    pub fn rows(&self) -> usize {
        self.table.rows()
    }
    /// The population this table is a research subset of, if it is one.
    pub fn population(&self) -> Option<&Population> {
        self.population.as_deref()
    }
    /// Each quasi-identifier's hierarchy, in header order.
    pub(crate) fn hierarchies(&self) -> Vec<&Hierarchy> {
        self.quasi.iter().map(|q| &q.hierarchy).collect()
    }
    /// Index in `sensitive` of the attribute named `name`.
    pub(crate) fn sensitive_index(&self, name: &str) -> Option<usize> {
        self.sensitive.iter().position(|s| s.name == name)
    }
    /// Maximum level of each quasi-identifier.
    pub fn max_levels(&self) -> Vec<u8> {
        self.quasi
            .iter()
            .map(|q| q.hierarchy.height().min(u8::MAX as usize) as u8)
            .collect()
    }
}

/// Value indices sorted by the attribute's natural order.
pub(crate) fn natural_order(values: &[String]) -> Vec<u32> {
    let numbers: Option<Vec<f64>> = values.iter().map(|v| number::parse(v)).collect();
    let mut order: Vec<u32> = (0..values.len() as u32).collect();
    match numbers {
        Some(x) => order.sort_by(|&a, &b| {
            x[a as usize]
                .partial_cmp(&x[b as usize])
                .unwrap_or(Ordering::Equal)
        }),
        None => order.sort_by(|&a, &b| values[a as usize].cmp(&values[b as usize])),
    }
    order
}

#[cfg(test)]
mod tests {
    use rand::{Rng, SeedableRng};

    /// Rows per code against a plain count, for columns of few values (four interleaved
    /// counters) and of many, and row counts that are and are not multiples of four.
    #[test]
    fn rows_per_code_counts_each_code() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(4);
        for distinct in [
            1,
            2,
            7,
            super::INTERLEAVED_CODES,
            super::INTERLEAVED_CODES + 1,
            20_000,
        ] {
            for rows in [0, 1, 3, 4, 5, 1_001, 50_003] {
                let codes: Vec<u32> = (0..rows)
                    .map(|i| {
                        // runs of one value, and scattered values
                        if i % 7 < 3 {
                            (i / 7) as u32 % distinct as u32
                        } else {
                            rng.gen_range(0..distinct as u32)
                        }
                    })
                    .collect();
                let mut want = vec![0u64; distinct];
                codes.iter().for_each(|&c| want[c as usize] += 1);
                assert_eq!(
                    super::rows_per_code(&codes, distinct),
                    want,
                    "{distinct} {rows}"
                );
            }
        }
    }
}
