//! Small random datasets for the unit tests.

use std::path::Path;

use rand::Rng;
use rand_chacha::ChaCha8Rng;

use crate::data::table::Table;
use crate::data::Role;
use crate::framework::dataset::Dataset;
use crate::hierarchy::Hierarchy;

/// A random table of three quasi-identifiers with hierarchies of 1 to 3 levels above the
/// leaves (groups of 2, then 4, ...).
pub(crate) fn dataset(rng: &mut ChaCha8Rng) -> Dataset {
    dataset_with(rng, 0)
}

/// [`dataset`] with `sensitive` more columns `s0`, `s1`, ... of 1 to 4 values each, role
/// sensitive.
pub(crate) fn dataset_with(rng: &mut ChaCha8Rng, sensitive: usize) -> Dataset {
    dataset_sized(rng, 2..9, 1..40, sensitive)
}

/// [`dataset_with`] with each quasi-identifier's leaves drawn from `leaves` and the number
/// of rows from `rows`.
pub(crate) fn dataset_sized(
    rng: &mut ChaCha8Rng,
    leaves: std::ops::Range<usize>,
    rows: std::ops::Range<i32>,
    sensitive: usize,
) -> Dataset {
    let dims = 3;
    let leaves: Vec<usize> = (0..dims).map(|_| rng.gen_range(leaves.clone())).collect();
    let rows: Vec<Vec<String>> = (0..rng.gen_range(rows))
        .map(|_| {
            leaves
                .iter()
                .enumerate()
                .map(|(j, &n)| format!("q{j}v{}", rng.gen_range(0..n)))
                .collect()
        })
        .collect();
    let domains: Vec<usize> = (0..sensitive).map(|_| rng.gen_range(1..5)).collect();
    let rows: Vec<Vec<String>> = rows
        .into_iter()
        .map(|mut row| {
            row.extend(
                domains
                    .iter()
                    .enumerate()
                    .map(|(i, &n)| format!("s{i}v{}", rng.gen_range(0..n))),
            );
            row
        })
        .collect();
    let header = (0..dims)
        .map(|j| format!("q{j}"))
        .chain((0..sensitive).map(|i| format!("s{i}")))
        .collect();
    let table = Table::from_rows(header, &rows).unwrap();
    let hierarchies = leaves
        .iter()
        .enumerate()
        .map(|(j, &n)| (hierarchy(j, n, rng.gen_range(1..4u32)), "h".into()))
        .collect();
    let mut roles = vec![Role::QuasiIdentifying; dims];
    roles.extend(vec![Role::Sensitive; sensitive]);
    Dataset::new(table, roles, hierarchies, vec![]).unwrap()
}

/// A hierarchy of attribute `j` with `leaves` leaves `q{j}v0`, `q{j}v1`, ... and `height`
/// levels above them: level `h` below the top groups leaf `v` by `v >> h`, the top is `*`.
pub(crate) fn hierarchy(j: usize, leaves: usize, height: u32) -> Hierarchy {
    let rows: Vec<Vec<String>> = (0..leaves)
        .map(|v| {
            let mut row = vec![format!("q{j}v{v}")];
            row.extend((1..height).map(|h| format!("g{h}-{}", v >> h)));
            row.push("*".into());
            row
        })
        .collect();
    Hierarchy::from_rows(&rows, Path::new("h"), None).unwrap()
}
