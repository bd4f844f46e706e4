//! A seeded sampling estimator of the exclusive disclosure set, for instances no exact method
//! can handle (non-nested sequences, large groups, many values).
//!
//! Tables are drawn uniformly from PER(G_i) by shuffling sensitive values within each group
//! (every distinct table arises from the same number of permutations). A draw is kept when
//! every earlier PER(g_j) fails the check; kept draws are uniform over DS_e,i. Persons who
//! share a group in every g_j (j ≤ i) are exchangeable, so their hits are pooled. Each pooled
//! fraction is a mean of per-draw values in [0, 1], bounded by Hoeffding's inequality, with a
//! Bonferroni correction over all (pool, value) pairs so that the interval for the largest
//! fraction holds with the stated confidence. Draws are split into a fixed number of chunks,
//! each with its own ChaCha8 stream, so the result does not depend on the thread count.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use serde::Serialize;

use super::{Assessment, Disclosure, Method, Options, Partition};
use crate::error::{DisclosureError, Result};
use crate::observer::Stage;

/// Draws between two cancellation checks.
const DRAWS_PER_CHECK: u64 = 256;

const CHUNKS: u64 = 64;

/// What the estimator did, and how sure it is.
#[derive(Debug, Clone, Serialize)]
pub struct Summary {
    pub samples: u64,
    /// Draws that fell in the disclosure set.
    pub accepted: u64,
    pub seed: u64,
    pub confidence: f64,
    /// Holds the largest fraction with the stated confidence.
    pub max_fraction_interval: Option<[f64; 2]>,
    /// Estimated share of PER(G_i) that lies in the disclosure set, and its interval.
    pub disclosure_set_share: f64,
    pub disclosure_set_share_interval: [f64; 2],
    /// (pool, value) pairs covered by the Bonferroni correction.
    pairs: u64,
    bound: &'static str,
}

struct Chunk {
    accepted: u64,
    hits: Vec<u64>,
}

fn hoeffding(n: u64, alpha: f64) -> f64 {
    if n == 0 {
        return 1.0;
    }
    ((2.0 / alpha).ln() / (2.0 * n as f64)).sqrt()
}

/// Whether some group of `part` fails the check on table `x`.
fn some_group_fails(d: &Disclosure, part: &Partition, x: &[u16], hist: &mut [u128]) -> bool {
    for rows in part.groups() {
        for &r in rows {
            hist[x[r as usize] as usize] += 1;
        }
        let fails = !d.group_passes(hist, rows.len() as u128);
        for &r in rows {
            hist[x[r as usize] as usize] = 0;
        }
        if fails {
            return true;
        }
    }
    false
}

pub(crate) fn exclusive(
    d: &Disclosure,
    i: usize,
    options: &Options,
    stage: &Stage,
) -> Result<Assessment> {
    if !(options.confidence > 0.0 && options.confidence < 1.0) {
        return Err(DisclosureError::Confidence(options.confidence).into());
    }
    if options.samples == 0 {
        return Err(DisclosureError::NoSamples.into());
    }
    let m = d.values();
    let n = d.instance.rows();
    // Pools: rows in the same group at every level up to i.
    let keys: Vec<Vec<u32>> = (0..n)
        .map(|r| (0..=i).map(|j| d.chain[j].group_of(r) as u32).collect())
        .collect();
    let pools = Partition::from_labels("pools", &keys);
    let pool_of: Vec<u32> = (0..n).map(|r| pools.group_of(r) as u32).collect();
    let pool_count = pools.groups().len();
    let base = &d.instance.sensitive;
    let top = &d.chain[i];

    let run_chunk = |chunk: u64| -> Result<Chunk> {
        let draws = options.samples / CHUNKS + u64::from(chunk < options.samples % CHUNKS);
        let mut rng = ChaCha8Rng::seed_from_u64(options.seed);
        rng.set_stream(chunk);
        let mut x = base.clone();
        let mut hist = vec![0u128; m];
        let mut out = Chunk {
            accepted: 0,
            hits: vec![0; pool_count * m],
        };
        for draw in 0..draws {
            if draw.is_multiple_of(DRAWS_PER_CHECK) {
                stage.check()?;
            }
            for rows in top.groups() {
                for a in (1..rows.len()).rev() {
                    let b = rng.gen_range(0..=a);
                    x.swap(rows[a] as usize, rows[b] as usize);
                }
            }
            if (0..i).all(|j| some_group_fails(d, &d.chain[j], &x, &mut hist)) {
                out.accepted += 1;
                for (r, &v) in x.iter().enumerate() {
                    out.hits[pool_of[r] as usize * m + v as usize] += 1;
                }
            }
        }
        Ok(out)
    };
    let total = (0..CHUNKS).into_par_iter().map(run_chunk).try_reduce(
        || Chunk {
            accepted: 0,
            hits: vec![0; pool_count * m],
        },
        |mut a, b| {
            a.accepted += b.accepted;
            a.hits.iter_mut().zip(&b.hits).for_each(|(x, y)| *x += y);
            Ok(a)
        },
    )?;

    let alpha = 1.0 - options.confidence;
    let k = total.accepted;
    // Pairs whose fraction can be non-zero: values present in the pool's group of G_i.
    let mut present = vec![false; top.groups().len() * m];
    for (r, &v) in base.iter().enumerate() {
        present[top.group_of(r) * m + v as usize] = true;
    }
    let pairs: u64 = pools
        .groups()
        .iter()
        .map(|rows| {
            let g = top.group_of(rows[0] as usize);
            present[g * m..(g + 1) * m].iter().filter(|&&p| p).count() as u64
        })
        .sum();
    let share = k as f64 / options.samples as f64;
    let share_h = hoeffding(options.samples, alpha);
    let (_, per_log10) = d.per_size(i, base);
    let mut assessment = Assessment {
        method: Method::Estimate,
        holds: false,
        disclosure_set_size: None,
        disclosure_set_size_log10: (k > 0).then(|| per_log10 + share.log10()),
        max_fraction: None,
        max_fraction_float: None,
        person: None,
        value: None,
        estimate: None,
    };
    let mut interval = None;
    if k > 0 {
        let h = hoeffding(k, alpha / pairs.max(1) as f64);
        let mut holds = true;
        let mut best: Option<(f64, usize, usize)> = None;
        for (pool, rows) in pools.groups().iter().enumerate() {
            let denom = (k * rows.len() as u64) as f64;
            let fractions: Vec<f64> = (0..m)
                .map(|v| total.hits[pool * m + v] as f64 / denom)
                .collect();
            holds &= d.check.holds_fractions(&fractions);
            for (v, &f) in fractions.iter().enumerate() {
                if best.is_none_or(|(b, _, _)| f > b) {
                    best = Some((f, rows[0] as usize, v));
                }
            }
        }
        assessment.holds = holds;
        if let Some((f, p, v)) = best {
            assessment.max_fraction_float = Some(f);
            assessment.person = Some(d.instance.persons[p].clone());
            assessment.value = Some(d.instance.values[v].clone());
            interval = Some([(f - h).max(0.0), (f + h).min(1.0)]);
        }
    }
    assessment.estimate = Some(Summary {
        samples: options.samples,
        accepted: k,
        seed: options.seed,
        confidence: options.confidence,
        max_fraction_interval: interval,
        disclosure_set_share: share,
        disclosure_set_share_interval: [(share - share_h).max(0.0), (share + share_h).min(1.0)],
        pairs,
        bound: "Hoeffding, Bonferroni over (pool, value) pairs",
    });
    Ok(assessment)
}
