//! Wall-clock timing for the `cellsafe-bench` reports: medians of repeated runs.

use std::time::Instant;

/// The median of `runs` timed calls of `f`, in milliseconds (`runs` at least 1).
pub fn median_ms(runs: usize, mut f: impl FnMut()) -> f64 {
    median(
        (0..runs.max(1))
            .map(|_| {
                let t = Instant::now();
                f();
                ms(t)
            })
            .collect(),
    )
}

/// Milliseconds since `t`.
pub fn ms(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1e3
}

/// The median of `v` (the upper one of an even count; NaN when empty).
pub fn median(mut v: Vec<f64>) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Peak resident memory of this process in MB (Linux only).
pub fn peak_rss_mb() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_of_odd_and_even_counts() {
        assert_eq!(median(vec![3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(vec![4.0, 1.0, 3.0, 2.0]), 3.0);
        assert!(median(Vec::new()).is_nan());
        let mut calls = 0;
        median_ms(0, || calls += 1);
        assert_eq!(calls, 1);
    }
}
