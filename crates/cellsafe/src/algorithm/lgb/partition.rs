//! The QI partition (paper 004, Definition 7): rows grouped by the set of attributes that
//! carry their quasi-identifying values, as a bit mask per row.
//!
//! The paper is silent on a subset of fewer than k rows, which no local generalization
//! can make k-anonymous. cellsafe merges it into the subset with the largest attribute set
//! contained in its own (ties: the larger subset, then the smaller mask), and bucketizes
//! the values of the attributes it loses as if those persons had flagged them sensitive:
//! the rows then show exactly what the target subset's rows show (a bucket id in those
//! attributes), so they are indistinguishable from them, and the values they lose are
//! protected rather than published. Subsets are merged largest attribute set first, so a
//! target that is still too small is merged further; the quasi-identifiers alone (every
//! semi-sensitive cell bucketized) are the last resort, and if those rows are too few,
//! the smallest other subsets are merged into them until they reach k.

use std::collections::BTreeMap;

/// Merges subsets of fewer than `k` rows (see the module docs) by clearing bits of
/// `masks`. `base` is the mask of the quasi-identifiers (always set). Returns the number
/// of cells moved to buckets, or `None` when there are fewer than `k` rows in all.
pub fn merge_small(masks: &mut [u64], base: u64, k: usize) -> Option<usize> {
    if masks.len() < k {
        return None;
    }
    let mut moved = 0usize;
    loop {
        let subsets = subsets(masks);
        // the small subset with the most attributes (then the larger mask value)
        let Some((&mask, _)) = subsets
            .iter()
            .filter(|(m, rows)| rows.len() < k && **m != base)
            .max_by_key(|(m, rows)| (m.count_ones(), rows.len(), **m))
        else {
            break;
        };
        let target = subsets
            .iter()
            .filter(|(m, _)| **m != mask && **m & mask == **m)
            .max_by_key(|(m, rows)| (m.count_ones(), rows.len(), std::cmp::Reverse(**m)))
            .map_or(base, |(m, _)| *m);
        for &r in &subsets[&mask] {
            moved += (masks[r as usize] & !target).count_ones() as usize;
            masks[r as usize] = target;
        }
    }
    // the quasi-identifiers alone, if too few: the smallest other subsets join them
    loop {
        let subsets = subsets(masks);
        let at_base = subsets.get(&base).map_or(0, Vec::len);
        if at_base == 0 || at_base >= k {
            break;
        }
        let (_, rows) = subsets
            .iter()
            .filter(|(m, _)| **m != base)
            .min_by_key(|(m, rows)| (rows.len(), **m))?;
        for &r in rows {
            moved += (masks[r as usize] & !base).count_ones() as usize;
            masks[r as usize] = base;
        }
    }
    Some(moved)
}

/// The rows of each mask, ascending.
pub fn subsets(masks: &[u64]) -> BTreeMap<u64, Vec<u32>> {
    let mut out: BTreeMap<u64, Vec<u32>> = BTreeMap::new();
    for (r, &m) in masks.iter().enumerate() {
        out.entry(m).or_default().push(r as u32);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// After merging every subset has at least k rows; bits are only ever cleared, the
        /// base bits never; a row changes only if its subset was small.
        #[test]
        fn merged_subsets_reach_k(
            raw in proptest::collection::vec(0u64..16, 0..60),
            k in 1usize..8,
        ) {
            let base = 0b11u64 << 4;
            let before: Vec<u64> = raw.iter().map(|m| m | base).collect();
            let mut masks = before.clone();
            match merge_small(&mut masks, base, k) {
                None => prop_assert!(before.len() < k),
                Some(moved) => {
                    let mut cleared = 0;
                    for (b, a) in before.iter().zip(&masks) {
                        prop_assert_eq!(a & b, *a);
                        prop_assert_eq!(a & base, base);
                        cleared += (b & !a).count_ones() as usize;
                    }
                    prop_assert_eq!(cleared, moved);
                    for rows in subsets(&masks).values() {
                        prop_assert!(rows.len() >= k);
                    }
                    let sizes = subsets(&before);
                    for (r, (b, a)) in before.iter().zip(&masks).enumerate() {
                        if a != b {
                            prop_assert!(sizes[b].len() < k || a == &base, "row {} moved", r);
                        }
                    }
                }
            }
        }
    }
}
