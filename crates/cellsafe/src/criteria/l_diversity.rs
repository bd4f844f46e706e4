//! l-diversity in ARX's three variants, each on the histogram of one sensitive attribute:
//! distinct (at least ⌈l⌉ values), entropy (entropy at least ln l) and recursive (c, l)
//! (the most frequent value rarer than c times the l-th and rarer ones together).

use super::{Criterion, FailureTerms, Monotonicity, Span};

/// Distinct l-diversity: every class has at least ⌈l⌉ distinct sensitive values.
#[derive(Debug, Clone)]
pub struct DistinctLDiversity {
    s: Span,
    /// ⌈l⌉.
    min_distinct: usize,
    l: f64,
}

impl DistinctLDiversity {
    pub(super) fn new(s: Span, l: f64) -> DistinctLDiversity {
        DistinctLDiversity {
            s,
            min_distinct: l.ceil() as usize,
            l,
        }
    }
}

impl Criterion for DistinctLDiversity {
    #[inline]
    fn holds(&self, _count: u32, hist: &[u32]) -> bool {
        distinct(self.s.of(hist)) >= self.min_distinct
    }
    fn monotonicity(&self) -> Monotonicity {
        Monotonicity::ALWAYS
    }
    /// Distinct values.
    fn measure(&self, _count: u32, hist: &[u32]) -> f64 {
        distinct(self.s.of(hist)) as f64
    }
    fn achieved_is_min(&self) -> bool {
        true
    }
    fn parameter(&self) -> Option<f64> {
        Some(self.l)
    }
    fn failure_terms(&self) -> FailureTerms {
        FailureTerms {
            worst: Some("fewest distinct values"),
            op: "<",
            failing: "with fewer than l values",
        }
    }
}

/// Entropy l-diversity: at least ⌈l⌉ distinct values and entropy (natural log) at least
/// ln l, up to 1e-12.
#[derive(Debug, Clone)]
pub struct EntropyLDiversity {
    s: Span,
    l: f64,
}

impl EntropyLDiversity {
    pub(super) fn new(s: Span, l: f64) -> EntropyLDiversity {
        EntropyLDiversity { s, l }
    }
}

impl Criterion for EntropyLDiversity {
    #[inline]
    fn holds(&self, _count: u32, hist: &[u32]) -> bool {
        let h = self.s.of(hist);
        distinct(h) >= self.l.ceil() as usize && entropy(h) >= self.l.ln() - 1e-12
    }
    fn monotonicity(&self) -> Monotonicity {
        Monotonicity::WITHOUT_SUPPRESSION
    }
    /// exp(entropy).
    fn measure(&self, _count: u32, hist: &[u32]) -> f64 {
        entropy(self.s.of(hist)).exp()
    }
    fn achieved_is_min(&self) -> bool {
        true
    }
    fn parameter(&self) -> Option<f64> {
        Some(self.l)
    }
    fn failure_terms(&self) -> FailureTerms {
        FailureTerms {
            worst: Some("smallest exp(entropy)"),
            op: "<",
            failing: "with exp(entropy) below l",
        }
    }
}

/// Recursive (c, l)-diversity: r1 < c·(r_l + … + r_m), r_i being the i-th largest
/// frequency of a sensitive value in the class.
#[derive(Debug, Clone)]
pub struct RecursiveClDiversity {
    s: Span,
    c: f64,
    l: usize,
}

impl RecursiveClDiversity {
    pub(super) fn new(s: Span, c: f64, l: u32) -> RecursiveClDiversity {
        RecursiveClDiversity {
            s,
            c,
            l: l as usize,
        }
    }
}

impl Criterion for RecursiveClDiversity {
    #[inline]
    fn holds(&self, _count: u32, hist: &[u32]) -> bool {
        recursive_ok(self.s.of(hist), self.c, self.l)
    }
    fn monotonicity(&self) -> Monotonicity {
        Monotonicity::WITHOUT_SUPPRESSION
    }
    /// The ratio r1 / (r_l + … + r_m) (infinite with fewer than l values).
    fn measure(&self, _count: u32, hist: &[u32]) -> f64 {
        recursive_ratio(self.s.of(hist), self.l)
    }
    fn achieved_is_min(&self) -> bool {
        false
    }
    fn parameter(&self) -> Option<f64> {
        Some(self.c)
    }
    fn failure_terms(&self) -> FailureTerms {
        FailureTerms {
            worst: Some("largest r1/(r_l+...+r_m)"),
            op: ">=",
            failing: "with r1 >= c·(r_l+...+r_m)",
        }
    }
}

#[inline]
fn distinct(h: &[u32]) -> usize {
    h.iter().filter(|&&c| c > 0).count()
}

/// Shannon entropy (natural log) of a histogram.
fn entropy(h: &[u32]) -> f64 {
    let n: f64 = h.iter().map(|&c| c as f64).sum();
    if n == 0.0 {
        return 0.0;
    }
    let s: f64 = h
        .iter()
        .filter(|&&c| c > 0)
        .map(|&c| c as f64 * (c as f64).ln())
        .sum();
    n.ln() - s / n
}

fn sorted_desc(h: &[u32]) -> Vec<u32> {
    let mut f: Vec<u32> = h.iter().copied().filter(|&c| c > 0).collect();
    f.sort_unstable_by(|a, b| b.cmp(a));
    f
}

fn recursive_ok(h: &[u32], c: f64, l: usize) -> bool {
    let f = sorted_desc(h);
    if f.len() < l {
        return false;
    }
    let tail: u64 = f[l - 1..].iter().map(|&x| x as u64).sum();
    (f[0] as f64) < c * tail as f64
}

fn recursive_ratio(h: &[u32], l: usize) -> f64 {
    let f = sorted_desc(h);
    if f.len() < l {
        return f64::INFINITY;
    }
    let tail: u64 = f[l - 1..].iter().map(|&x| x as u64).sum();
    f[0] as f64 / tail as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recursive_cl_definition() {
        // frequencies 5,3,2: r1=5 < c*(r2+r3) for l=2 iff 5 < c*5
        assert!(!recursive_ok(&[5, 3, 2], 1.0, 2));
        assert!(recursive_ok(&[5, 3, 2], 1.01, 2));
        assert!(!recursive_ok(&[5], 3.0, 2));
    }

    #[test]
    fn entropy_of_uniform() {
        assert!((entropy(&[2, 2]) - 2f64.ln()).abs() < 1e-12);
        assert_eq!(entropy(&[4, 0]), 0.0);
    }
}
