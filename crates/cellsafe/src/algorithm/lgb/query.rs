//! Aggregate query answering on an LGB release (paper 004 section 4.2, after Zhang et al.):
//! `SELECT SUM(s) WHERE pred(A1) AND … AND pred(A4)` over random quasi-identifying or
//! semi-sensitive attributes, answered with bounds from what the release shows.
//!
//! A row matches a predicate on attribute A with the probability that a value drawn
//! uniformly from what it shows there satisfies it: the values its group's generalized
//! value covers (an interval's values present in the data, a node's values, a set), or the
//! values of its bucket. A row matches the query with the product over the four
//! attributes. Per bucket of `s`, the rows' probabilities summed and rounded down and up
//! bound how many of the bucket's values count; the smallest and the largest that many
//! values bound the bucket's share of the sum. The relative error of a query is
//! (upper − lower) / exact; queries whose exact answer is 0 are drawn again.
//!
//! Categorical predicates are `A ∈ {v1, …, vm}` with m uniform in 1..=⌈|D|/2⌉ distinct
//! values of the attribute's domain D; numeric ones compare with a random value of D by
//! one of `<`, `<=`, `=`, `>=`, `>`, `!=`. Queries are drawn from a seeded ChaCha8
//! generator.

use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Serialize;

use super::{Lgb, LgbData};
use crate::algorithm::local::{Generalized, Kind};
use crate::data::number;

/// A predicate on one attribute: which of its leaves satisfy it.
struct Predicate {
    attribute: usize,
    holds: Vec<bool>,
}

/// The mean relative error of a batch of queries.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct QueryError {
    /// Queries answered.
    pub queries: usize,
    /// The summed attribute.
    pub attribute: String,
    /// Mean of (upper − lower) / exact.
    pub mean: f64,
    /// Median of (upper − lower) / exact (the mean is dominated by the most selective
    /// queries, whose exact answers are smallest).
    pub median: f64,
}

/// Answers `queries` random queries (seeded by `seed`) on `lgb`, summing the first
/// sensitive attribute whose values are all numbers. `None` when there is none, or the
/// table has fewer than 4 attributes to query.
pub fn query_error(data: &LgbData, lgb: &Lgb, queries: usize, seed: u64) -> Option<QueryError> {
    let target = data.bucketed.iter().position(|b| {
        b.attribute.is_none()
            && data
                .table
                .dictionary(b.column)
                .values()
                .iter()
                .all(|v| number::parse(v).is_some())
    })?;
    let attributes = data.attributes.len();
    if attributes < 4 || queries == 0 {
        return None;
    }
    let n = data.table.rows();
    let s = &data.bucketed[target];
    let dict = data.table.dictionary(s.column).values();
    let salary: Vec<f64> = data
        .table
        .codes(s.column)
        .iter()
        .map(|&c| number::parse(&dict[c as usize]).expect("numbers"))
        .collect();
    // per attribute, the leaves present
    let present: Vec<Vec<u32>> = data
        .attributes
        .iter()
        .map(|q| {
            let mut seen = vec![false; q.hierarchy.leaf_count()];
            for &l in &q.leaves {
                seen[l as usize] = true;
            }
            (0..seen.len() as u32)
                .filter(|&l| seen[l as usize])
                .collect()
        })
        .collect();
    // per row its group; per semi-sensitive attribute per row its bucket
    let mut group_of = vec![0usize; n];
    for (g, rows) in lgb.groups.iter().enumerate() {
        for &r in rows {
            group_of[r as usize] = g;
        }
    }
    let bucket_of: Vec<Option<Vec<usize>>> = (0..attributes)
        .map(|a| {
            let b = data.bucketed.iter().position(|b| b.attribute == Some(a))?;
            let mut of = vec![usize::MAX; n];
            for (x, rows) in lgb.buckets[b].iter().enumerate() {
                for &r in rows {
                    of[r as usize] = x;
                }
            }
            Some(of)
        })
        .collect();
    let semi_bucketed: Vec<Option<usize>> = (0..attributes)
        .map(|a| data.bucketed.iter().position(|b| b.attribute == Some(a)))
        .collect();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut errors: Vec<f64> = Vec::with_capacity(queries);
    let mut answered = 0;
    let mut attempts = 0;
    while answered < queries && attempts < 100 * queries {
        attempts += 1;
        let mut chosen: Vec<usize> = (0..attributes).collect();
        chosen.shuffle(&mut rng);
        chosen.truncate(4);
        let predicates: Vec<Predicate> = chosen
            .iter()
            .map(|&a| draw(data, lgb, a, &present[a], &mut rng))
            .collect();
        let exact: f64 = (0..n)
            .filter(|&r| {
                predicates
                    .iter()
                    .all(|p| p.holds[data.attributes[p.attribute].leaves[r] as usize])
            })
            .map(|r| salary[r])
            .sum();
        if exact <= 0.0 {
            continue;
        }
        // per predicate: the share of a group's or a bucket's values that satisfy it
        let share = |p: &Predicate, values: &mut dyn Iterator<Item = u32>| -> f64 {
            let (mut yes, mut all) = (0usize, 0usize);
            for l in values {
                all += 1;
                yes += p.holds[l as usize] as usize;
            }
            if all == 0 {
                0.0
            } else {
                yes as f64 / all as f64
            }
        };
        let by_group: Vec<Vec<Option<f64>>> = predicates
            .iter()
            .map(|p| {
                let a = p.attribute;
                let q = &data.attributes[a];
                let d = &lgb.domains[a];
                lgb.values
                    .iter()
                    .map(|vals| {
                        vals[a].as_ref().map(|g| {
                            let covered: Vec<u32> = match g {
                                Generalized::Value(l) => vec![*l],
                                Generalized::Interval { lo, hi } => present[a]
                                    .iter()
                                    .copied()
                                    .filter(|&l| {
                                        d.kind == Kind::Numeric
                                            && d.number(l) >= d.number(*lo)
                                            && d.number(l) <= d.number(*hi)
                                    })
                                    .collect(),
                                Generalized::Node { level, code } => present[a]
                                    .iter()
                                    .copied()
                                    .filter(|&l| q.hierarchy.code(*level as usize, l) == *code)
                                    .collect(),
                                Generalized::Set(leaves) => leaves.clone(),
                            };
                            share(p, &mut covered.into_iter())
                        })
                    })
                    .collect()
            })
            .collect();
        let by_bucket: Vec<Option<Vec<f64>>> = predicates
            .iter()
            .map(|p| {
                let b = semi_bucketed[p.attribute]?;
                let q = &data.attributes[p.attribute];
                Some(
                    lgb.buckets[b]
                        .iter()
                        .map(|rows| share(p, &mut rows.iter().map(|&r| q.leaves[r as usize])))
                        .collect(),
                )
            })
            .collect();
        let (mut lower, mut upper) = (0.0, 0.0);
        for rows in &lgb.buckets[target] {
            let expected: f64 = rows
                .iter()
                .map(|&r| {
                    let r = r as usize;
                    predicates
                        .iter()
                        .enumerate()
                        .map(|(i, p)| match by_group[i][group_of[r]] {
                            Some(x) => x,
                            None => {
                                let x = bucket_of[p.attribute].as_ref().expect("bucketized")[r];
                                by_bucket[i].as_ref().expect("bucketized")[x]
                            }
                        })
                        .product::<f64>()
                })
                .sum();
            let mut values: Vec<f64> = rows.iter().map(|&r| salary[r as usize]).collect();
            values.sort_by(f64::total_cmp);
            // rounding guards against sums like 2.9999999
            let low = ((expected + 1e-9).floor() as usize).min(values.len());
            let high = ((expected - 1e-9).ceil().max(0.0) as usize).min(values.len());
            lower += values[..low].iter().sum::<f64>();
            upper += values[values.len() - high..].iter().sum::<f64>();
        }
        errors.push((upper - lower) / exact);
        answered += 1;
    }
    if errors.is_empty() {
        return None;
    }
    let mean = errors.iter().sum::<f64>() / errors.len() as f64;
    errors.sort_by(f64::total_cmp);
    Some(QueryError {
        queries: answered,
        attribute: s.name.clone(),
        mean,
        median: errors[errors.len() / 2],
    })
}

/// A random predicate on attribute `a` (see the module docs).
fn draw(data: &LgbData, lgb: &Lgb, a: usize, present: &[u32], rng: &mut ChaCha8Rng) -> Predicate {
    let q = &data.attributes[a];
    let d = &lgb.domains[a];
    let mut holds = vec![false; q.hierarchy.leaf_count()];
    if d.kind == Kind::Numeric {
        let v = d.number(present[rng.gen_range(0..present.len())]);
        let op = rng.gen_range(0..6);
        for &l in present {
            let x = d.number(l);
            holds[l as usize] = match op {
                0 => x < v,
                1 => x <= v,
                2 => x == v,
                3 => x >= v,
                4 => x > v,
                _ => x != v,
            };
        }
    } else {
        let m = rng.gen_range(1..=present.len().div_ceil(2).max(1));
        let mut values = present.to_vec();
        values.shuffle(rng);
        for &l in &values[..m] {
            holds[l as usize] = true;
        }
    }
    Predicate {
        attribute: a,
        holds,
    }
}
