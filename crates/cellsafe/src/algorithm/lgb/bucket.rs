//! Local bucketization (paper 004, Algorithm 2): the sensitive cells of one attribute are
//! split recursively at their count-weighted median while both halves stay l-eligible
//! (no value in more than 1/l of the cells), so that each bucket's values lie close
//! together; each final set is then dealt into l-unique buckets by Anatomy's assignment
//! (the one m-invariance uses for a first release): repeatedly one cell from each of the l
//! most frequent values, the few cells left over each added to a bucket lacking its value.
//! Every bucket then has at least l cells and no value twice, so no cell's value is known
//! with probability above 1/l (Corollary 2).
//!
//! For attributes with too few values for l-diversity (sex), [`t_buckets`] makes buckets
//! whose value distribution is within t of the whole column's (paper 004 section 4; not of
//! the flagged cells', which may all share one value): the cells in value order are dealt
//! round-robin into as many buckets as the bound allows, and an attribute whose flagged
//! cells are farther than t even all together is refused. Cells moved into buckets by a
//! merge ([`attach`]) hold values the recipient may know and count towards neither.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Whether no value holds more than a 1/l share of `rows` (`value[r]` the code of row r).
pub fn eligible(rows: &[u32], value: &[u32], values: usize, l: usize) -> bool {
    let mut counts = vec![0usize; values];
    for &r in rows {
        counts[value[r as usize] as usize] += 1;
    }
    counts.iter().max().is_none_or(|&m| m * l <= rows.len())
}

/// l-unique buckets of `rows` by Algorithm 2; `value[r]` is row r's value code, `rank`
/// orders the codes (numbers by value). `None` when `rows` are not l-eligible.
pub fn l_buckets(rows: &[u32], value: &[u32], rank: &[u32], l: usize) -> Option<Vec<Vec<u32>>> {
    let values = rank.len();
    if rows.is_empty() {
        return Some(Vec::new());
    }
    if !eligible(rows, value, values, l) {
        return None;
    }
    let mut out = Vec::new();
    let mut stack = vec![rows.to_vec()];
    while let Some(rows) = stack.pop() {
        match median_split(&rows, value, rank) {
            Some((small, big))
                if eligible(&small, value, values, l) && eligible(&big, value, values, l) =>
            {
                stack.push(big);
                stack.push(small);
            }
            _ => out.extend(assign(&rows, value, rank, l)?),
        }
    }
    Some(out)
}

/// The cells with a value up to the count-weighted median (the value at position
/// ⌊(n − 1) / 2⌋ in value order), and the others; `None` when one side is empty.
fn median_split(rows: &[u32], value: &[u32], rank: &[u32]) -> Option<(Vec<u32>, Vec<u32>)> {
    let mut ranks: Vec<u32> = rows
        .iter()
        .map(|&r| rank[value[r as usize] as usize])
        .collect();
    let position = (rows.len() - 1) / 2;
    let median = *ranks.select_nth_unstable(position).1;
    let (small, big): (Vec<u32>, Vec<u32>) = rows
        .iter()
        .partition(|&&r| rank[value[r as usize] as usize] <= median);
    (!small.is_empty() && !big.is_empty()).then_some((small, big))
}

/// Anatomy's assignment of l-eligible `rows` into l-unique buckets.
fn assign(rows: &[u32], value: &[u32], rank: &[u32], l: usize) -> Option<Vec<Vec<u32>>> {
    // the rows of each value, taken from the back
    let mut by_value: Vec<Vec<u32>> = vec![Vec::new(); rank.len()];
    for &r in rows.iter().rev() {
        by_value[value[r as usize] as usize].push(r);
    }
    // most rows first; among equals the smaller value
    let mut heap: BinaryHeap<(usize, Reverse<u32>, u32)> = by_value
        .iter()
        .enumerate()
        .filter(|(_, rs)| !rs.is_empty())
        .map(|(v, rs)| (rs.len(), Reverse(rank[v]), v as u32))
        .collect();
    let mut buckets: Vec<Vec<u32>> = Vec::new();
    while heap.len() >= l {
        let picked: Vec<(usize, Reverse<u32>, u32)> = (0..l).filter_map(|_| heap.pop()).collect();
        let mut bucket = Vec::with_capacity(l);
        for (count, order, v) in picked {
            bucket.push(by_value[v as usize].pop().expect("counted"));
            if count > 1 {
                heap.push((count - 1, order, v));
            }
        }
        bucket.sort_unstable();
        buckets.push(bucket);
    }
    // the leftovers: each into the first bucket without its value
    let mut left: Vec<u32> = heap
        .into_iter()
        .flat_map(|(_, _, v)| by_value[v as usize].clone())
        .collect();
    left.sort_unstable();
    for r in left {
        let v = value[r as usize];
        let home = buckets
            .iter_mut()
            .find(|b| b.iter().all(|&o| value[o as usize] != v))?;
        home.push(r);
        home.sort_unstable();
    }
    Some(buckets)
}

/// The distance between a bucket's value distribution and `reference` (shares per code):
/// ordered EMD (cumulative differences over m − 1) when `ordered`, else half the total
/// variation (EMD under equal ground distance). `rank` orders the codes.
pub fn distance(
    bucket: &[u32],
    value: &[u32],
    reference: &[f64],
    by_rank: &[u32],
    ordered: bool,
) -> f64 {
    let mut counts = vec![0usize; reference.len()];
    for &r in bucket {
        counts[value[r as usize] as usize] += 1;
    }
    let n = bucket.len() as f64;
    if ordered {
        let m = by_rank.len();
        if m < 2 {
            return 0.0;
        }
        let mut cumulative = 0.0;
        let mut total = 0.0;
        for &v in by_rank {
            cumulative += counts[v as usize] as f64 / n - reference[v as usize];
            total += cumulative.abs();
        }
        total / (m - 1) as f64
    } else {
        0.5 * counts
            .iter()
            .zip(reference)
            .map(|(&c, &q)| (c as f64 / n - q).abs())
            .sum::<f64>()
    }
}

/// Buckets of `rows` each within distance `t` of `reference` (the whole column's
/// distribution; see [`distance`]): the rows in value order dealt round-robin into B
/// buckets, B the largest tried (from n over the size the bound suggests, down by a tenth)
/// for which every bucket passes. `None` when not even one bucket of all the rows does.
pub fn t_buckets(
    rows: &[u32],
    value: &[u32],
    rank: &[u32],
    t: f64,
    ordered: bool,
    reference: &[f64],
) -> Option<Vec<Vec<u32>>> {
    if rows.is_empty() {
        return Some(Vec::new());
    }
    let n = rows.len();
    let mut by_rank: Vec<u32> = (0..reference.len() as u32)
        .filter(|&v| reference[v as usize] > 0.0)
        .collect();
    by_rank.sort_by_key(|&v| rank[v as usize]);
    let mut sorted = rows.to_vec();
    sorted.sort_by_key(|&r| (rank[value[r as usize] as usize], r));
    let present = by_rank.len().max(1);
    let size = ((present as f64 / (2.0 * t.max(1e-9))).ceil() as usize).max(2);
    let mut b = (n / size).max(1);
    loop {
        let mut buckets: Vec<Vec<u32>> = vec![Vec::with_capacity(n / b + 1); b];
        for (i, &r) in sorted.iter().enumerate() {
            buckets[i % b].push(r);
        }
        if buckets
            .iter()
            .all(|bk| distance(bk, value, reference, &by_rank, ordered) <= t + 1e-12)
        {
            for bk in &mut buckets {
                bk.sort_unstable();
            }
            return Some(buckets);
        }
        if b == 1 {
            return None;
        }
        b = (b * 9 / 10).min(b - 1).max(1);
    }
}

/// Adds `rows` (cells whose values the recipient may know) to `buckets`, each to the first
/// bucket without its value, else the first bucket; a bucket of their own when there is
/// none. They count towards no protection, and take none away.
pub fn attach(buckets: &mut Vec<Vec<u32>>, rows: &[u32], value: &[u32]) {
    if rows.is_empty() {
        return;
    }
    if buckets.is_empty() {
        buckets.push(rows.to_vec());
        return;
    }
    for &r in rows {
        let v = value[r as usize];
        let home = buckets
            .iter()
            .position(|b| b.iter().all(|&o| value[o as usize] != v))
            .unwrap_or(0);
        buckets[home].push(r);
    }
    for b in buckets.iter_mut() {
        b.sort_unstable();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// l-eligible cells always come out in l-unique buckets of at least l cells, every
        /// cell in exactly one; non-eligible ones are refused.
        #[test]
        fn l_buckets_are_l_unique(values in proptest::collection::vec(0u32..6, 0..80), l in 1usize..5) {
            let rows: Vec<u32> = (0..values.len() as u32).collect();
            let rank: Vec<u32> = (0..6).collect();
            match l_buckets(&rows, &values, &rank, l) {
                None => prop_assert!(!eligible(&rows, &values, 6, l)),
                Some(buckets) => {
                    prop_assert!(eligible(&rows, &values, 6, l));
                    let mut seen = vec![0; rows.len()];
                    for b in &buckets {
                        prop_assert!(b.len() >= l);
                        let mut vs: Vec<u32> = b.iter().map(|&r| values[r as usize]).collect();
                        vs.sort_unstable();
                        vs.dedup();
                        prop_assert_eq!(vs.len(), b.len());
                        for &r in b { seen[r as usize] += 1; }
                    }
                    prop_assert!(seen.iter().all(|&s| s == 1));
                }
            }
        }

        /// t-buckets partition the cells and each is within t.
        #[test]
        fn t_buckets_are_t_close(values in proptest::collection::vec(0u32..4, 1..120), t in 0.05f64..0.5, ordered in any::<bool>()) {
            let rows: Vec<u32> = (0..values.len() as u32).collect();
            let rank: Vec<u32> = (0..4).collect();
            let n = rows.len() as f64;
            let reference: Vec<f64> = (0..4).map(|v| values.iter().filter(|&&x| x == v).count() as f64 / n).collect();
            let buckets = t_buckets(&rows, &values, &rank, t, ordered, &reference).unwrap();
            let by_rank: Vec<u32> = (0..4).filter(|&v| reference[v as usize] > 0.0).collect();
            let mut seen = vec![0; rows.len()];
            for b in &buckets {
                prop_assert!(distance(b, &values, &reference, &by_rank, ordered) <= t + 1e-9);
                for &r in b { seen[r as usize] += 1; }
            }
            prop_assert!(seen.iter().all(|&s| s == 1));
        }
    }

    /// Ten ages, l = 2: the median split keeps both halves eligible, and pairs follow.
    #[test]
    fn ages_split_at_the_median_then_pair() {
        // values are ranks of ages 20..=29, one each
        let value: Vec<u32> = (0..10).collect();
        let rows: Vec<u32> = (0..10).collect();
        let rank: Vec<u32> = (0..10).collect();
        let mut buckets = l_buckets(&rows, &value, &rank, 2).unwrap();
        buckets.sort();
        // 10 -> 5 + 5 -> (3 + 2) + (3 + 2) -> ...: every bucket of 2 or 3 adjacent values
        for b in &buckets {
            assert!(b.len() == 2 || b.len() == 3, "{buckets:?}");
            assert!(b[b.len() - 1] - b[0] < b.len() as u32 + 1, "{buckets:?}");
        }
        assert_eq!(buckets.iter().map(Vec::len).sum::<usize>(), 10);
    }
}
