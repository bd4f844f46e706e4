//! l-diversity in ARX's three variants, each on the histogram of one sensitive attribute:
//! distinct (at least ⌈l⌉ values), entropy (entropy at least ln l) and recursive (c, l)
//! (the most frequent value rarer than c times the l-th and rarer ones together).

use super::{Criterion, FailureTerms, Monotonicity, Span};

/// Distinct l-diversity: every class has at least ⌈l⌉ distinct sensitive values.
#[derive(Debug, Clone)]
pub(crate) struct DistinctLDiversity {
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
pub(crate) struct EntropyLDiversity {
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
pub(crate) struct RecursiveClDiversity {
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

/// Most of the l − 1 largest frequencies that [`largest_sum`] keeps on the stack.
const STACK_TOP: usize = 16;

/// The sum of the `k` largest counts of `h` (`k` at most its number of nonzero counts).
/// Allocates nothing for `k` up to [`STACK_TOP`].
fn largest_sum(h: &[u32], k: usize) -> u64 {
    match k {
        0 => 0,
        1 => h.iter().copied().max().unwrap_or(0) as u64,
        k if k <= STACK_TOP => {
            // the k largest so far, in decreasing order
            let mut top = [0u32; STACK_TOP];
            let mut len = 0;
            for &c in h.iter().filter(|&&c| c > 0) {
                if len == k && c <= top[k - 1] {
                    continue;
                }
                let mut i = len.min(k - 1);
                while i > 0 && top[i - 1] < c {
                    top[i] = top[i - 1];
                    i -= 1;
                }
                top[i] = c;
                len = (len + 1).min(k);
            }
            top[..len].iter().map(|&x| x as u64).sum()
        }
        k => {
            let mut f: Vec<u32> = h.iter().copied().filter(|&c| c > 0).collect();
            f.sort_unstable_by(|a, b| b.cmp(a));
            f[..k].iter().map(|&x| x as u64).sum()
        }
    }
}

/// With the frequencies r1 ≥ r2 ≥ … ≥ r_m of the values in `h`: (r1, r_l + … + r_m), or
/// None when fewer than `l` values occur.
fn recursive_parts(h: &[u32], l: usize) -> Option<(u32, u64)> {
    let (mut distinct, mut total, mut max) = (0usize, 0u64, 0u32);
    for &c in h.iter().filter(|&&c| c > 0) {
        distinct += 1;
        total += c as u64;
        max = max.max(c);
    }
    if distinct < l {
        return None;
    }
    Some((max, total - largest_sum(h, l - 1)))
}

fn recursive_ok(h: &[u32], c: f64, l: usize) -> bool {
    match recursive_parts(h, l) {
        Some((r1, tail)) => (r1 as f64) < c * tail as f64,
        None => false,
    }
}

fn recursive_ratio(h: &[u32], l: usize) -> f64 {
    match recursive_parts(h, l) {
        Some((r1, tail)) => r1 as f64 / tail as f64,
        None => f64::INFINITY,
    }
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

    /// Recursive (c, l)-diversity as first written (frequencies sorted into a vector), the
    /// reference for the allocation-free one.
    fn sorted_parts(h: &[u32], l: usize) -> Option<(u32, u64)> {
        let mut f: Vec<u32> = h.iter().copied().filter(|&c| c > 0).collect();
        f.sort_unstable_by(|a, b| b.cmp(a));
        (f.len() >= l).then(|| (f[0], f[l - 1..].iter().map(|&x| x as u64).sum()))
    }

    #[test]
    fn recursive_parts_match_sorting() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = |m: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % m
        };
        for _ in 0..5000 {
            let len = next(40) as usize;
            let spread = 1 + next(50);
            let h: Vec<u32> = (0..len).map(|_| next(spread) as u32).collect();
            let l = 1 + next(24) as usize;
            assert_eq!(recursive_parts(&h, l), sorted_parts(&h, l), "{h:?} l={l}");
        }
        assert_eq!(recursive_parts(&[0, 0], 1), None);
        assert_eq!(recursive_parts(&[3, 3, 1], 2), Some((3, 4)));
        assert_eq!(recursive_ratio(&[3, 3, 1], 2), 3.0 / 4.0);
        assert_eq!(recursive_ratio(&[3], 2), f64::INFINITY);
    }

    #[test]
    fn entropy_of_uniform() {
        assert!((entropy(&[2, 2]) - 2f64.ln()).abs() < 1e-12);
        assert_eq!(entropy(&[4, 0]), 0.0);
    }
}
