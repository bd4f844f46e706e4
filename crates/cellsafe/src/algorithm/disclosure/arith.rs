//! Exact integer helpers: 256-bit products for comparing fractions of `u128` counts,
//! checked binomials, and log-factorials for sizes too large to hold exactly.

use std::cmp::Ordering;

const LOW: u128 = u64::MAX as u128;

/// `a · b` as `(high, low)` 128-bit halves.
pub(crate) fn mul_wide(a: u128, b: u128) -> (u128, u128) {
    let (a1, a0) = (a >> 64, a & LOW);
    let (b1, b0) = (b >> 64, b & LOW);
    let p00 = a0 * b0;
    let p01 = a0 * b1;
    let p10 = a1 * b0;
    let p11 = a1 * b1;
    let mid = (p00 >> 64) + (p01 & LOW) + (p10 & LOW);
    let low = (p00 & LOW) | ((mid & LOW) << 64);
    let high = p11 + (p01 >> 64) + (p10 >> 64) + (mid >> 64);
    (high, low)
}

/// Compares `a · b` with `c · d` exactly.
pub(crate) fn cmp_products(a: u128, b: u128, c: u128, d: u128) -> Ordering {
    mul_wide(a, b).cmp(&mul_wide(c, d))
}

/// Compares the fractions `a / b` and `c / d` (`b`, `d` > 0).
pub(crate) fn cmp_fractions(a: u128, b: u128, c: u128, d: u128) -> Ordering {
    cmp_products(a, d, c, b)
}

pub(crate) fn gcd(mut a: u128, mut b: u128) -> u128 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// `n choose k`, or `None` when it does not fit in 128 bits.
pub(crate) fn binomial(n: u64, k: u64) -> Option<u128> {
    if k > n {
        return Some(0);
    }
    let k = k.min(n - k);
    let mut value: u128 = 1;
    for i in 0..k {
        // value · (n − i) / (i + 1) is an integer. With g = gcd(value, i + 1), (i + 1) / g
        // divides n − i, so dividing first keeps the product small.
        let num = (n - i) as u128;
        let den = (i + 1) as u128;
        let g = gcd(value, den);
        value = (value / g).checked_mul(num / (den / g))?;
    }
    Some(value)
}

/// The number of distinct arrangements of a multiset with these multiplicities.
pub(crate) fn multinomial<I: IntoIterator<Item = u64>>(counts: I) -> Option<u128> {
    let mut total = 0u64;
    let mut value: u128 = 1;
    for c in counts {
        total += c;
        value = value.checked_mul(binomial(total, c)?)?;
    }
    Some(value)
}

/// `log10` of the number of arrangements of a multiset, exact enough for reporting sizes
/// that do not fit in 128 bits.
pub(crate) fn log10_multinomial<I: IntoIterator<Item = u64>>(counts: I) -> f64 {
    let mut total = 0u64;
    let mut ln = 0.0;
    for c in counts {
        for i in 1..=c {
            ln -= (i as f64).ln();
        }
        for i in total + 1..=total + c {
            ln += (i as f64).ln();
        }
        total += c;
    }
    ln / std::f64::consts::LN_10
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wide_products_match_u128_when_small() {
        for (a, b) in [(0u128, 5u128), (3, 7), (u64::MAX as u128, u64::MAX as u128)] {
            assert_eq!(mul_wide(a, b), (0, a * b));
        }
        assert_eq!(mul_wide(u128::MAX, 2), (1, u128::MAX - 1));
        assert_eq!(mul_wide(1 << 64, 1 << 64), (1, 0));
        assert_eq!(mul_wide(u128::MAX, u128::MAX), (u128::MAX - 1, 1));
    }

    #[test]
    fn binomials_match_pascal() {
        let mut row = vec![1u128];
        for n in 1..=130u64 {
            let mut next = vec![1u128; n as usize + 1];
            for k in 1..n as usize {
                next[k] = row[k - 1].saturating_add(row[k]);
            }
            row = next;
            for k in 0..=n {
                let exact = row[k as usize];
                if exact != u128::MAX {
                    assert_eq!(binomial(n, k), Some(exact), "C({n},{k})");
                }
            }
        }
        assert_eq!(multinomial([2, 1, 1]), Some(12));
        assert!((log10_multinomial([2, 1, 1]) - 12f64.log10()).abs() < 1e-12);
    }
}
