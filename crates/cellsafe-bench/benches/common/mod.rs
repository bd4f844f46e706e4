//! What the benches share: a short criterion configuration (these benches compare
//! versions and methods; they need a stable median, not a long run).

use std::time::Duration;

use criterion::Criterion;

/// 10 samples after 1 s of warm-up, over 3 s.
pub fn quick() -> Criterion {
    Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
}
