//! Microaggregation output (paper 000 section 3.2, figure 4).
//!
//! A transformation fixes one partition per quasi-identifier. Generalization releases each
//! cell as the label of its group; microaggregation releases a statistic of the group
//! instead, computed over the values of that attribute in the released rows of the group
//! (the attribute's own partition, not the equivalence class of the whole tuple): the mean
//! for continuous attributes, the median for ordinal ones, the mode for nominal ones. Two
//! cells share a released value iff they share a group, so the released table has the
//! same classes as the generalized one and the same safety.
//!
//! Choices the paper leaves open: the median of an even number of values is the lower of
//! the two middle ones (a value that occurs, as ordinal data needs); a tied mode goes to
//! the value first in the attribute's order; a mean is printed with at most four decimals.
//! Rows suppressed by the release do not contribute, so nothing of theirs is published. If
//! two groups happen to get the same mean, the release cannot tell them apart: it is then
//! coarser than the transformation (never less safe), and a warning says so.

use serde::{Deserialize, Serialize};

use crate::algorithm::problem::Problem;
use crate::data::number;
use crate::error::{Error, ReleaseError, Result};
use crate::framework::dataset::natural_order;
use crate::hierarchy::{date_key, Hierarchy};

/// The measurement scale of an attribute, which picks its statistic.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Scale {
    /// Mean.
    Continuous,
    /// Median, in the attribute's order.
    Ordinal,
    /// Mode.
    Nominal,
}

/// How one quasi-identifier is aggregated: its scale and the rank of each leaf in the
/// attribute's order (used by the median and to break ties of the mode).
#[derive(Debug, Clone)]
pub struct Aggregator {
    /// Which statistic represents a group.
    scale: Scale,
    /// Per leaf code, its rank in the attribute's order.
    rank: Vec<u32>,
}

impl Aggregator {
    /// An aggregator of the quasi-identifier generalized by `hierarchy` (the one it is
    /// given to the anonymizer with). Orders the leaves chronologically when `date_format`
    /// is given, else numerically if every value is a number, else by string.
    pub fn new(scale: Scale, hierarchy: &Hierarchy, date_format: Option<&str>) -> Aggregator {
        let values: Vec<String> = (0..hierarchy.leaf_count() as u32)
            .map(|leaf| hierarchy.label(0, leaf).to_owned())
            .collect();
        let order: Vec<u32> = match date_format {
            Some(format) if values.iter().all(|v| date_key(v, format).is_some()) => {
                let mut order: Vec<u32> = (0..values.len() as u32).collect();
                order.sort_by_key(|&v| (date_key(&values[v as usize], format), v));
                order
            }
            _ => natural_order(&values),
        };
        let mut rank = vec![0u32; values.len()];
        for (r, &leaf) in order.iter().enumerate() {
            rank[leaf as usize] = r as u32;
        }
        Aggregator { scale, rank }
    }
}

/// The released value of every group of every quasi-identifier at one transformation.
#[derive(Debug, Clone)]
pub(crate) struct Microaggregated {
    /// `values[j][group]`: the statistic of group `group` of quasi-identifier `j`
    /// (empty for groups with no released row).
    values: Vec<Vec<String>>,
    /// Groups that got the same value as another group of the same attribute.
    pub(crate) warnings: Vec<String>,
}

impl Microaggregated {
    /// Aggregates the rows for which `released(row)` holds, at `levels`.
    pub(crate) fn new(
        problem: &Problem,
        levels: &[u8],
        aggregators: &[Aggregator],
        released: impl Fn(usize) -> bool,
    ) -> Result<Microaggregated> {
        problem.check_levels(levels)?;
        let data = &problem.data;
        if aggregators.len() != data.quasi.len() {
            return Err(Error::Release(ReleaseError::Aggregators {
                quasi: data.quasi.len(),
                aggregators: aggregators.len(),
            }));
        }
        let mut values = Vec::with_capacity(data.quasi.len());
        let mut warnings = Vec::new();
        for ((q, aggregator), &level) in data.quasi.iter().zip(aggregators).zip(levels) {
            let h = &q.hierarchy;
            let level = level as usize;
            // leaf frequencies per group, over released rows
            let mut members: Vec<Vec<(u32, u32)>> = vec![Vec::new(); h.cardinality(level)];
            let mut count = vec![0u32; h.leaf_count()];
            for (row, &leaf) in q.leaves.iter().enumerate() {
                if released(row) {
                    count[leaf as usize] += 1;
                }
            }
            for (leaf, &c) in count.iter().enumerate() {
                if c > 0 {
                    members[h.code(level, leaf as u32) as usize].push((leaf as u32, c));
                }
            }
            let mut group_values = Vec::with_capacity(members.len());
            for group in &mut members {
                group.sort_by_key(|&(leaf, _)| aggregator.rank[leaf as usize]);
                let value = statistic(h, aggregator.scale, group).map_err(|v| {
                    Error::Release(ReleaseError::NotNumeric {
                        column: q.name.clone(),
                        value: crate::error::excerpt(&v).into_owned(),
                    })
                })?;
                group_values.push(value);
            }
            let mut seen: std::collections::HashMap<&str, usize> = Default::default();
            for (g, v) in group_values.iter().enumerate() {
                if v.is_empty() {
                    continue;
                }
                if let Some(&other) = seen.get(v.as_str()) {
                    warnings.push(format!(
                        "`{}`: groups `{}` and `{}` both release {}, so the release merges them",
                        q.name,
                        crate::error::excerpt(h.label(level, other as u32)),
                        crate::error::excerpt(h.label(level, g as u32)),
                        crate::error::excerpt(v)
                    ));
                } else {
                    seen.insert(v, g);
                }
            }
            values.push(group_values);
        }
        Ok(Microaggregated { values, warnings })
    }

    /// The released value of group `group` of quasi-identifier `j`.
    pub(crate) fn value(&self, j: usize, group: u32) -> &str {
        &self.values[j][group as usize]
    }
}

/// The statistic of `group` (leaves with their frequencies, in the attribute's order), or
/// the offending value when a mean meets a non-number. Empty groups give "".
fn statistic(
    h: &Hierarchy,
    scale: Scale,
    group: &[(u32, u32)],
) -> std::result::Result<String, String> {
    let total: u64 = group.iter().map(|&(_, c)| c as u64).sum();
    if total == 0 {
        return Ok(String::new());
    }
    let value = |leaf: u32| h.label(0, leaf);
    Ok(match scale {
        Scale::Continuous => {
            let mut sum = 0.0;
            for &(leaf, c) in group {
                let x = number::parse(value(leaf)).ok_or_else(|| value(leaf).to_owned())?;
                sum += x * c as f64;
            }
            format_mean(sum / total as f64)
        }
        Scale::Ordinal => {
            // the lower median: the value at position ⌊(n−1)/2⌋ of the sorted multiset
            let target = (total - 1) / 2;
            let mut seen = 0u64;
            let mut median = group[0].0;
            for &(leaf, c) in group {
                if seen + c as u64 > target {
                    median = leaf;
                    break;
                }
                seen += c as u64;
            }
            value(median).to_owned()
        }
        Scale::Nominal => {
            let mut best = group[0];
            for &(leaf, c) in group {
                if c > best.1 {
                    best = (leaf, c);
                }
            }
            value(best.0).to_owned()
        }
    })
}

/// A mean with at most four decimals, trailing zeros dropped.
fn format_mean(x: f64) -> String {
    let s = format!("{x:.4}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" {
        "0".into()
    } else {
        s.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hierarchy(values: &[&str]) -> Hierarchy {
        let rows: Vec<Vec<String>> = values
            .iter()
            .map(|v| vec![v.to_string(), "*".into()])
            .collect();
        Hierarchy::from_rows(&rows, std::path::Path::new("t"), None).unwrap()
    }

    #[test]
    fn statistics_follow_the_stated_rules() {
        let h = hierarchy(&["1", "2", "10", "4"]);
        let a = Aggregator::new(Scale::Ordinal, &h, None);
        assert_eq!(a.rank, [0, 1, 3, 2]);
        // leaves with counts, in the attribute's order: 1×1, 2×1, 4×1, 10×1
        let sorted = |mut g: Vec<(u32, u32)>| {
            g.sort_by_key(|&(l, _)| a.rank[l as usize]);
            g
        };
        let all = sorted(vec![(0, 1), (1, 1), (2, 1), (3, 1)]);
        // even count: the lower of the two middle values
        assert_eq!(statistic(&h, Scale::Ordinal, &all).unwrap(), "2");
        assert_eq!(statistic(&h, Scale::Continuous, &all).unwrap(), "4.25");
        // a tied mode goes to the first value in order
        assert_eq!(statistic(&h, Scale::Nominal, &all).unwrap(), "1");
        let weighted = sorted(vec![(0, 1), (1, 1), (2, 3), (3, 1)]);
        assert_eq!(statistic(&h, Scale::Nominal, &weighted).unwrap(), "10");
        // 1, 2, 4, 10, 10, 10: lower median at position 2
        assert_eq!(statistic(&h, Scale::Ordinal, &weighted).unwrap(), "4");
        assert_eq!(statistic(&h, Scale::Ordinal, &[]).unwrap(), "");
        let words = hierarchy(&["x", "y"]);
        assert_eq!(
            statistic(&words, Scale::Continuous, &[(0, 1)]).unwrap_err(),
            "x"
        );
        // dates order chronologically, not as strings
        let dates = hierarchy(&["01/05/56", "30/04/56", "15/01/57"]);
        let a = Aggregator::new(Scale::Ordinal, &dates, Some("%d/%m/%y"));
        assert_eq!(a.rank, [1, 0, 2]);
    }

    #[test]
    fn means_print_short() {
        assert_eq!(format_mean(164.0), "164");
        assert_eq!(format_mean(164.5), "164.5");
        assert_eq!(format_mean(1.0 / 3.0), "0.3333");
        assert_eq!(format_mean(-0.00001), "0");
    }
}
