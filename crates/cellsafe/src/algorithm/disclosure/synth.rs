//! Seeded nested disclosure instances for benchmarks and tests.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::{Check, Disclosure, Instance, Partition};
use crate::error::Result;

/// A seeded nested disclosure instance for benchmarks and tests: `top` blocks of 20 rows,
/// each split into 12 + 8 rows (g₂) and those into 6 + 6 and 8 (g₁), with g₃ the blocks;
/// sensitive values uniform over `values` codes.
pub fn nested_disclosure(top: usize, values: usize, seed: u64, check: Check) -> Result<Disclosure> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let rows = top * 20;
    let sensitive: Vec<u16> = (0..rows).map(|_| rng.gen_range(0..values as u16)).collect();
    let g1: Vec<usize> = (0..rows)
        .map(|r| 3 * (r / 20) + [0, 1, 2][((r % 20) / 6).min(2)])
        .collect();
    let g2: Vec<usize> = (0..rows)
        .map(|r| 2 * (r / 20) + usize::from(r % 20 >= 12))
        .collect();
    let g3: Vec<usize> = (0..rows).map(|r| r / 20).collect();
    let instance = Instance::new(
        (0..rows).map(|r| format!("row {}", r + 1)).collect(),
        (0..values).map(|v| format!("v{v}")).collect(),
        sensitive,
    )?;
    Disclosure::new(
        instance,
        vec![
            Partition::from_labels("6+6+8", &g1),
            Partition::from_labels("12+8", &g2),
            Partition::from_labels("20", &g3),
        ],
        check,
    )
}
