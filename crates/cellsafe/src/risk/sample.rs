//! Sample-based re-identification risks (ARX's `RiskModelSampleSummary`).
//!
//! A *prosecutor* knows that their target is in the released table: a record of a class
//! of size f is theirs with probability 1/f. A *journalist* does not know that and links
//! against a population table: the risk of a class is 1/F, F the class's size in the
//! population (the sample itself when it is not a research subset of a larger table). A
//! *marketer* re-identifies as many records as possible: the share they expect to get
//! right.
//!
//! Each summary gives the lowest and highest risk of a record, the average risk (the
//! expected share of records re-identified), and the share of records whose risk is above
//! a threshold.

use serde::Serialize;

/// One attacker's risks, each a fraction in [0, 1].
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct RiskSummary {
    /// The lowest risk of a record: 1 / (the largest class).
    pub lowest: f64,
    /// The highest risk of a record: 1 / (the smallest class).
    pub highest: f64,
    /// The average risk of a record.
    pub average: f64,
    /// Share of the records whose risk is strictly above the threshold.
    pub records_at_risk: f64,
}

/// The three attackers' risks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct SampleRisks {
    /// The threshold `records_at_risk` is counted against.
    pub threshold: f64,
    /// An attacker who knows their target is in the table.
    pub prosecutor: RiskSummary,
    /// An attacker who links against the population.
    pub journalist: RiskSummary,
    /// The share of records an attacker linking every record gets right.
    pub marketer: f64,
}

/// The risks of a sample whose classes have sizes `sample`; `population[i]` is the size
/// of class `i` in the population table when the sample is a research subset of it (each
/// at least `sample[i]`), else the sample is its own population. Classes of size 0 are
/// ignored. Empty samples have every risk 0 (as ARX).
pub fn risks(sample: &[u64], population: Option<&[u64]>, threshold: f64) -> SampleRisks {
    let classes: Vec<(f64, f64)> = sample
        .iter()
        .enumerate()
        .filter(|&(_, &s)| s > 0)
        .map(|(i, &s)| {
            let p = population.map_or(s, |p| p[i].max(s));
            (s as f64, p as f64)
        })
        .collect();
    if classes.is_empty() {
        return SampleRisks {
            threshold,
            ..Default::default()
        };
    }
    let records: f64 = classes.iter().map(|c| c.0).sum();
    let count = classes.len() as f64;
    let summary = |size: &dyn Fn(&(f64, f64)) -> f64| {
        let smallest = classes.iter().map(size).fold(f64::INFINITY, f64::min);
        let largest = classes.iter().map(size).fold(f64::NEG_INFINITY, f64::max);
        // folded from +0 (an empty f64 sum is −0, which JSON shows as -0.0)
        let at_risk: f64 = classes
            .iter()
            .filter(|c| 1.0 / size(c) > threshold)
            .fold(0.0, |sum, c| sum + c.0);
        (1.0 / largest, 1.0 / smallest, at_risk / records)
    };
    let (lowest, highest, records_at_risk) = summary(&|c| c.0);
    let prosecutor = RiskSummary {
        lowest,
        highest,
        average: count / records,
        records_at_risk,
    };
    let marketer = classes.iter().map(|&(s, p)| s / p).sum::<f64>() / records;
    let (lowest, highest, records_at_risk) = summary(&|c| c.1);
    let population_records: f64 = classes.iter().map(|c| c.1).sum();
    let journalist = RiskSummary {
        lowest,
        highest,
        // ARX: the larger of (classes / population records) and the marketer's share
        average: (count / population_records).max(marketer),
        records_at_risk,
    };
    SampleRisks {
        threshold,
        prosecutor,
        journalist,
        marketer,
    }
}

/// Per record, its prosecutor risk 1/f (f its class's size), summarized as the share of
/// records at each distinct risk, by increasing risk (ARX's
/// `RiskModelSampleRiskDistribution`, without its fixed bins).
pub fn record_risks(sample: &[u64]) -> Vec<(f64, f64)> {
    let histogram = super::Histogram::from_sizes(sample.iter().copied());
    if histogram.records == 0 {
        return Vec::new();
    }
    let records = histogram.records as f64;
    histogram
        .sizes
        .iter()
        .rev()
        .map(|&(size, classes)| (1.0 / size as f64, (size * classes) as f64 / records))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    /// No record above the threshold is a share of +0, not −0 (an empty float sum), which
    /// the JSON report would print as `-0.0`.
    #[test]
    fn no_record_at_risk_is_positive_zero() {
        let r = risks(&[5, 7], Some(&[50, 70]), 0.5);
        assert!(
            r.prosecutor.records_at_risk == 0.0 && r.prosecutor.records_at_risk.is_sign_positive()
        );
        assert!(r.journalist.records_at_risk.is_sign_positive());
    }

    /// The risks recomputed record by record (each record's risk is 1/f or 1/F), on random
    /// class sizes with and without a population.
    #[test]
    fn risks_equal_their_record_by_record_definitions() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(17);
        for _ in 0..500 {
            let n = rng.gen_range(1..12);
            let sample: Vec<u64> = (0..n).map(|_| rng.gen_range(0..6)).collect();
            let population: Vec<u64> = sample.iter().map(|&s| s + rng.gen_range(0..5)).collect();
            let t = [0.0, 0.1, 0.2, 0.5, 1.0][rng.gen_range(0..5)];
            let with = rng.gen_bool(0.5);
            let got = risks(&sample, with.then_some(&population[..]), t);
            // one entry per record: (1/f, 1/F)
            let mut records = Vec::new();
            let mut classes = 0.0;
            let mut population_records = 0.0;
            for (i, &s) in sample.iter().enumerate() {
                if s == 0 {
                    continue;
                }
                let p = if with { population[i] } else { s };
                classes += 1.0;
                population_records += p as f64;
                for _ in 0..s {
                    records.push((1.0 / s as f64, 1.0 / p as f64));
                }
            }
            if records.is_empty() {
                assert_eq!(got.prosecutor, RiskSummary::default());
                assert_eq!(got.marketer, 0.0);
                continue;
            }
            let n = records.len() as f64;
            let close = |a: f64, b: f64| (a - b).abs() < 1e-12;
            let check = |r: &RiskSummary, of: &dyn Fn(&(f64, f64)) -> f64, average: f64| {
                let max = records.iter().map(of).fold(0.0, f64::max);
                let min = records.iter().map(of).fold(1.0, f64::min);
                let at = records.iter().filter(|r| of(r) > t).count() as f64 / n;
                assert!(close(r.highest, max), "{r:?} {sample:?}");
                assert!(close(r.lowest, min), "{r:?} {sample:?}");
                assert!(close(r.records_at_risk, at), "{r:?} {sample:?} t={t}");
                assert!(close(r.average, average), "{r:?} {sample:?}");
            };
            let mean_p = records.iter().map(|r| r.0).sum::<f64>() / n;
            let mean_j = records.iter().map(|r| r.1).sum::<f64>() / n;
            check(&got.prosecutor, &|r| r.0, mean_p);
            check(
                &got.journalist,
                &|r| r.1,
                mean_j.max(classes / population_records),
            );
            assert!(close(got.marketer, mean_j));
            assert!(close(mean_p, classes / n));
            if !with {
                assert_eq!(got.journalist, got.prosecutor);
            }
            // sample uniqueness: records alone in their class
            let h = crate::risk::Histogram::from_sizes(sample.iter().copied());
            let uniques = records.iter().filter(|r| r.0 == 1.0).count() as f64 / n;
            assert!(close(h.sample_uniqueness(), uniques));
            // the distribution of record risks covers every record
            let dist = record_risks(&sample);
            assert!(close(dist.iter().map(|d| d.1).sum::<f64>(), 1.0));
            assert!(dist.windows(2).all(|w| w[0].0 < w[1].0));
        }
    }
}
