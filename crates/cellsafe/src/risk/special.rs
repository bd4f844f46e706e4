//! Digamma and trigamma as ARX computes them (`org.deidentifier.arx.risk.Gamma`), so that
//! Pitman's estimate follows the same Newton steps. ARX's trigamma adds its asymptotic
//! tail only from 12 on, after reducing the argument to 8 or more: for arguments that the
//! reduction leaves in [8, 12) the tail is missing. The steps it takes are reproduced
//! here as they are (docs/errata.md); they only shape the Newton iteration's path, and
//! its fixed point is the same.

const DIGAMMA_1: f64 = -0.577_215_664_901_532_9;
const TRIGAMMA_1: f64 = std::f64::consts::PI * std::f64::consts::PI / 6.0;
const TETRAGAMMA_1: f64 = -2.0 * 1.202_056_903_159_594_2;
const B2: f64 = 1.0 / 6.0;
const B4: f64 = -1.0 / 30.0;
const B6: f64 = 1.0 / 42.0;
const B8: f64 = -1.0 / 30.0;
const B10: f64 = 5.0 / 66.0;
const S3: f64 = 1.0 / 12.0;
const S4: f64 = 1.0 / 120.0;
const S5: f64 = 1.0 / 252.0;
const S6: f64 = 1.0 / 240.0;
const S7: f64 = 1.0 / 132.0;

/// ψ(x), as ARX computes it (NaN for ±∞ and NaN, −∞ at 0, the reflection formula below
/// 0, the series at 0 up to 10⁻⁶).
pub(crate) fn digamma(mut x: f64) -> f64 {
    if !x.is_finite() {
        return f64::NAN;
    }
    if x == 0.0 {
        return f64::NEG_INFINITY;
    }
    if x < 0.0 {
        let pi = std::f64::consts::PI;
        return digamma(1.0 - x) + pi / (-pi * x).tan();
    }
    if x <= 1e-6 {
        return (DIGAMMA_1 - 1.0 / x) + TRIGAMMA_1 * x;
    }
    let mut result = 0.0;
    while x < 12.0 {
        result -= 1.0 / x;
        x += 1.0;
    }
    let mut r = 1.0 / x;
    result += x.ln() - 0.5 * r;
    r *= r;
    result -= r * (S3 - r * (S4 - r * (S5 - r * (S6 - r * S7))));
    result
}

/// ψ′(x), as ARX computes it (see the module docs).
pub(crate) fn trigamma(mut x: f64) -> f64 {
    if !x.is_finite() {
        return f64::NAN;
    }
    if x == 0.0 {
        return f64::NEG_INFINITY;
    }
    if x < 0.0 {
        let r = std::f64::consts::PI / (-std::f64::consts::PI * x).sin();
        return -trigamma(1.0 - x) + r * r;
    }
    if x <= 1e-4 {
        return 1.0 / (x * x) + TRIGAMMA_1 + TETRAGAMMA_1 * x;
    }
    let mut result = 0.0;
    while x < 8.0 {
        result += 1.0 / (x * x);
        x += 1.0;
    }
    if x >= 12.0 {
        let r = 1.0 / (x * x);
        result += 0.5 * r + (1.0 + r * (B2 + r * (B4 + r * (B6 + r * (B8 + r * B10))))) / x;
    }
    result
}

/// ln Γ(x).
pub(crate) fn ln_gamma(x: f64) -> f64 {
    libm::lgamma(x)
}

/// Γ(x).
pub(crate) fn gamma(x: f64) -> f64 {
    libm::tgamma(x)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digamma_and_trigamma_at_known_points() {
        // ψ(1) = −γ, ψ(1/2) = −γ − 2 ln 2, ψ(n + 1) = ψ(n) + 1/n
        assert!((digamma(1.0) - DIGAMMA_1).abs() < 1e-13);
        assert!((digamma(0.5) - (DIGAMMA_1 - 2.0 * 2f64.ln())).abs() < 1e-13);
        for n in 1..30 {
            let n = n as f64;
            assert!((digamma(n + 1.0) - digamma(n) - 1.0 / n).abs() < 1e-13);
        }
        // ψ′(1) = π²/6 (the reduction reaches 8, the tail is added only from 12: ARX's
        // value misses the tail ψ′(8))
        let reduced: f64 = (1..8).map(|k| 1.0 / (k * k) as f64).sum();
        assert!((trigamma(1.0) - reduced).abs() < 1e-15);
        assert!(TRIGAMMA_1 - reduced > 0.13);
        // from 12 on it is the true value: ψ′(12) = π²/6 − Σ_{k<12} 1/k²
        let exact: f64 = TRIGAMMA_1 - (1..12).map(|k| 1.0 / (k * k) as f64).sum::<f64>();
        assert!((trigamma(12.0) - exact).abs() < 1e-13);
        assert!(digamma(f64::NAN).is_nan() && trigamma(f64::INFINITY).is_nan());
        assert_eq!(digamma(0.0), f64::NEG_INFINITY);
        // below 0, the reflection formulas: ψ(−x) = ψ(1 + x) + π cot(πx) ...
        for x in [0.25, 1.5, 3.1, 722.97] {
            let cot = 1.0 / (std::f64::consts::PI * x).tan();
            let want = digamma(1.0 + x) + std::f64::consts::PI * cot;
            assert!(
                (digamma(-x) - want).abs() < 1e-9 * want.abs().max(1.0),
                "{x}"
            );
        }
        // ... and ψ′(x) + ψ′(1 − x) = π² / sin²(πx)
        let x = -0.3f64;
        let s = (std::f64::consts::PI * x).sin();
        let sum = trigamma(x) + trigamma(1.0 - x);
        assert!((sum - TRIGAMMA_1 * 6.0 / (s * s)).abs() < 1e-9);
    }
}
