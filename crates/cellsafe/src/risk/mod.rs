//! Re-identification risk of a table as it would be released: how likely an attacker who
//! knows some persons' quasi-identifiers is to pick out their records (ARX's risk
//! analysis, `org.deidentifier.arx.risk`).
//!
//! Everything here reads only the sizes of the equivalence classes (records sharing one
//! generalized quasi-identifier tuple; suppressed records are not in any class), so the
//! same functions judge the original table, any transformation, or a file as written.
//!
//! - [`Histogram`]: how many classes have each size;
//! - [`sample`]: the prosecutor, journalist and marketer risks and sample uniqueness,
//!   computed from the sample itself (and, for the journalist, a population table's
//!   classes when the sample is a research subset of it).

pub mod population;
pub mod sample;
mod special;

use serde::Serialize;

/// How many classes have each size, ascending by size (ARX's `RiskModelHistogram`).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Histogram {
    /// (class size, number of classes of that size), by increasing size; no zero sizes.
    pub sizes: Vec<(u64, u64)>,
    /// Records in all classes.
    pub records: u64,
    /// Number of classes.
    pub classes: u64,
}

impl Histogram {
    /// The histogram of these class sizes (zeros are ignored).
    pub fn from_sizes(sizes: impl IntoIterator<Item = u64>) -> Histogram {
        let mut counts = std::collections::BTreeMap::<u64, u64>::new();
        for s in sizes.into_iter().filter(|&s| s > 0) {
            *counts.entry(s).or_default() += 1;
        }
        let records = counts.iter().map(|(s, c)| s * c).sum();
        let classes = counts.values().sum();
        Histogram {
            sizes: counts.into_iter().collect(),
            records,
            classes,
        }
    }

    /// Classes of exactly `size` records.
    pub fn classes_of_size(&self, size: u64) -> u64 {
        self.sizes
            .iter()
            .find(|&&(s, _)| s == size)
            .map_or(0, |&(_, c)| c)
    }

    /// Records per class on average (0 without records).
    pub fn average_class_size(&self) -> f64 {
        if self.classes == 0 {
            0.0
        } else {
            self.records as f64 / self.classes as f64
        }
    }

    /// Share of the records that are alone in their class (0 without records; ARX's
    /// `RiskModelSampleUniqueness`).
    pub fn sample_uniqueness(&self) -> f64 {
        if self.records == 0 {
            0.0
        } else {
            self.classes_of_size(1) as f64 / self.records as f64
        }
    }
}
