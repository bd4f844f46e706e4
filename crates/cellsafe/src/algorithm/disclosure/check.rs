//! CHK: a privacy property judged on a set of possible tables.
//!
//! For each person and sensitive value, the adversary's belief is the fraction of possible
//! tables that give the person that value. A property holds on the set when it holds for
//! every person's vector of fractions. Parameters are exact rationals so that verdicts on
//! exact counts are exact; an empty set (a contradiction) never satisfies a property.

use serde::{Deserialize, Serialize};

use super::arith::cmp_products;

/// A non-negative rational parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ratio {
    /// Numerator.
    num: u64,
    /// Denominator, positive.
    den: u64,
}

impl Ratio {
    /// The simplest fraction within 10⁻¹² (relative) of `x`, so that `0.3333333333333333`
    /// reads as 1/3 and `0.6667` as 6667/10000; `None` for negative, huge or non-finite input.
    fn from_decimal(x: f64) -> Option<Ratio> {
        if !(0.0..=1e9).contains(&x) {
            return None;
        }
        let tolerance = 1e-12 * x.max(1.0);
        // Continued-fraction convergents h/k.
        let (mut h0, mut h1, mut k0, mut k1) = (0u64, 1u64, 1u64, 0u64);
        let mut rest = x;
        for _ in 0..64 {
            let a = rest.floor();
            let a_int = a as u64;
            let h = a_int.checked_mul(h1).and_then(|v| v.checked_add(h0))?;
            let k = a_int.checked_mul(k1).and_then(|v| v.checked_add(k0))?;
            if k > 1_000_000_000 {
                break;
            }
            (h0, h1, k0, k1) = (h1, h, k1, k);
            if (x - h as f64 / k as f64).abs() <= tolerance || rest - a < 1e-15 {
                break;
            }
            rest = 1.0 / (rest - a);
        }
        (k1 > 0).then_some(Ratio { num: h1, den: k1 })
    }
    fn as_f64(self) -> f64 {
        self.num as f64 / self.den as f64
    }
}

/// How a property is written in a config file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "kebab-case", deny_unknown_fields)]
pub enum CheckSpec {
    /// Recursive (c,l)-diversity: r₁ < c·(r_l + r_{l+1} + …) for every person, with r the
    /// person's fractions in decreasing order. The paper's (2,2) case means every r < 2/3.
    RecursiveCl {
        /// The factor c, positive.
        c: f64,
        /// The rank l from which fractions are summed, at least 1.
        l: usize,
    },
    /// At least `l` values with a non-zero fraction for every person.
    DistinctL {
        /// Least number of possible values, at least 1.
        l: usize,
    },
    /// No person has a value with fraction above `p`.
    MaxProbability {
        /// Largest allowed fraction, in (0, 1].
        p: f64,
    },
}

/// A bound privacy property.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Check {
    /// Recursive (c,l)-diversity, as [`CheckSpec::RecursiveCl`].
    RecursiveCl {
        /// The factor c, positive.
        c: Ratio,
        /// The rank l from which fractions are summed, at least 1.
        l: usize,
    },
    /// Distinct l-diversity, as [`CheckSpec::DistinctL`].
    DistinctL {
        /// Least number of possible values, at least 1.
        l: usize,
    },
    /// Maximum probability, as [`CheckSpec::MaxProbability`].
    MaxProbability {
        /// Largest allowed fraction, in (0, 1].
        p: Ratio,
    },
}

impl Check {
    /// Validates a spec; the error says which parameter is wrong.
    pub fn bind(spec: &CheckSpec) -> Result<Check, String> {
        match *spec {
            CheckSpec::RecursiveCl { c, l } => {
                if l < 1 {
                    return Err("l must be at least 1".into());
                }
                match Ratio::from_decimal(c) {
                    Some(c) if c.num > 0 => Ok(Check::RecursiveCl { c, l }),
                    _ => Err(format!("c must be a positive number, got {c}")),
                }
            }
            CheckSpec::DistinctL { l } => {
                if l < 1 {
                    return Err("l must be at least 1".into());
                }
                Ok(Check::DistinctL { l })
            }
            CheckSpec::MaxProbability { p } => match Ratio::from_decimal(p) {
                Some(r) if r.num > 0 && r.num <= r.den => Ok(Check::MaxProbability { p: r }),
                _ => Err(format!("p must lie in (0, 1], got {p}")),
            },
        }
    }

    /// A short human-readable name, e.g. `recursive (2,2)-diversity`.
    pub(crate) fn describe(&self) -> String {
        match *self {
            Check::RecursiveCl { c, l } => {
                format!("recursive ({},{l})-diversity", c.as_f64())
            }
            Check::DistinctL { l } => format!("distinct {l}-diversity"),
            Check::MaxProbability { p } => format!("maximum probability {}", p.as_f64()),
        }
    }

    /// Whether one person passes, given how many of `total` possible tables give the person
    /// each value.
    pub fn holds_counts(&self, counts: &[u128], total: u128) -> bool {
        if total == 0 {
            return false;
        }
        match *self {
            Check::RecursiveCl { c, l } => {
                let mut sorted: Vec<u128> = counts.iter().copied().filter(|&x| x > 0).collect();
                if sorted.len() < l {
                    return false;
                }
                sorted.sort_unstable_by(|a, b| b.cmp(a));
                let tail: u128 = sorted[l - 1..].iter().sum();
                cmp_products(sorted[0], c.den as u128, tail, c.num as u128).is_lt()
            }
            Check::DistinctL { l } => counts.iter().filter(|&&x| x > 0).count() >= l,
            Check::MaxProbability { p } => {
                let max = counts.iter().copied().max().unwrap_or(0);
                cmp_products(max, p.den as u128, total, p.num as u128).is_le()
            }
        }
    }

    /// The same test on estimated fractions.
    pub(crate) fn holds_fractions(&self, fractions: &[f64]) -> bool {
        match *self {
            Check::RecursiveCl { c, l } => {
                let mut sorted: Vec<f64> = fractions.iter().copied().filter(|&x| x > 0.0).collect();
                if sorted.len() < l {
                    return false;
                }
                sorted.sort_unstable_by(|a, b| b.total_cmp(a));
                let tail: f64 = sorted[l - 1..].iter().sum();
                sorted[0] < c.as_f64() * tail
            }
            Check::DistinctL { l } => fractions.iter().filter(|&&x| x > 0.0).count() >= l,
            Check::MaxProbability { p } => {
                fractions.iter().copied().fold(0.0, f64::max) <= p.as_f64()
            }
        }
    }

    /// Whether a person who can only take one of `distinct` values fails on *every*
    /// non-empty set of tables: fewer than `l` possible values, or a forced fraction above p.
    pub(crate) fn fails_with_support(&self, distinct: usize) -> bool {
        match *self {
            Check::RecursiveCl { l, .. } | Check::DistinctL { l } => distinct < l,
            // Some value has fraction ≥ 1/distinct.
            Check::MaxProbability { p } => (p.num as u128) * (distinct as u128) < p.den as u128,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn two_two() -> Check {
        Check::bind(&CheckSpec::RecursiveCl { c: 2.0, l: 2 }).unwrap()
    }

    #[test]
    fn recursive_two_two_is_below_two_thirds() {
        let check = two_two();
        // 11/17 < 2/3 holds; 2/3 does not; 4/5 does not.
        assert!(check.holds_counts(&[11, 6], 17));
        assert!(!check.holds_counts(&[2, 1], 3));
        assert!(!check.holds_counts(&[4, 1], 5));
        assert!(!check.holds_counts(&[1], 1));
        assert!(check.holds_counts(&[1, 1], 2));
        assert!(!check.holds_counts(&[], 0));
        assert!(check.holds_fractions(&[0.5, 0.5]));
        assert!(!check.holds_fractions(&[0.8, 0.2]));
    }

    #[test]
    fn other_forms() {
        let distinct = Check::bind(&CheckSpec::DistinctL { l: 3 }).unwrap();
        assert!(distinct.holds_counts(&[5, 1, 1, 0], 7));
        assert!(!distinct.holds_counts(&[5, 2, 0, 0], 7));
        let max = Check::bind(&CheckSpec::MaxProbability { p: 0.5 }).unwrap();
        assert!(max.holds_counts(&[1, 1], 2));
        assert!(!max.holds_counts(&[2, 1], 3));
        assert!(max.fails_with_support(1));
        assert!(!max.fails_with_support(2));
        assert!(two_two().fails_with_support(1));
        assert!(!two_two().fails_with_support(2));
    }

    #[test]
    fn decimals_read_as_simple_fractions() {
        let r = |x: f64| Ratio::from_decimal(x).map(|r| (r.num, r.den));
        assert_eq!(r(1.0 / 3.0), Some((1, 3)));
        assert_eq!(r(2.0 / 3.0), Some((2, 3)));
        assert_eq!(r(0.6667), Some((6667, 10000)));
        assert_eq!(r(2.0), Some((2, 1)));
        assert_eq!(r(0.0), Some((0, 1)));
        assert_eq!(r(1.5), Some((3, 2)));
        assert_eq!(r(-1.0), None);
    }

    #[test]
    fn bad_parameters_are_refused() {
        assert!(Check::bind(&CheckSpec::RecursiveCl { c: 0.0, l: 2 }).is_err());
        assert!(Check::bind(&CheckSpec::RecursiveCl { c: 2.0, l: 0 }).is_err());
        assert!(Check::bind(&CheckSpec::MaxProbability { p: 1.5 }).is_err());
        assert!(Check::bind(&CheckSpec::MaxProbability { p: f64::NAN }).is_err());
    }
}
