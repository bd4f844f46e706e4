//! Equivalence classes of a transformation, and their rollup.
//!
//! Rows that agree on every generalized quasi-identifier form an equivalence class. A class
//! is stored as plain data: a key (the generalized tuple packed in mixed radix), a
//! representative base tuple, the number of rows, and one frequency histogram per sensitive
//! attribute (flattened). The classes of a coarser node are computed from those of any finer
//! node without touching the rows (Incognito's rollup property): map each class's key to the
//! coarser key and merge counts and histograms.

use rustc_hash::FxHashMap;

use crate::error::{Error, Result};
use crate::hierarchy::Hierarchy;

/// The distinct level-0 quasi-identifier tuples of a table: the base every rollup starts from.
#[derive(Debug, Clone)]
pub struct Snapshot {
    dims: usize,
    /// `tuples[t * dims + j]`: leaf code of attribute `j` in tuple `t`.
    tuples: Vec<u32>,
    /// The base tuple of each row.
    row_tuple: Vec<u32>,
    strides: Vec<u128>,
    base: Classes,
}

/// Equivalence classes of one node, as parallel vectors.
#[derive(Debug, Clone, Default)]
pub struct Classes {
    pub keys: Vec<u128>,
    /// A base tuple (index into the snapshot) inside each class.
    pub reps: Vec<u32>,
    pub counts: Vec<u32>,
    /// `hist[c * width + offset_s + v]`: rows of class `c` with value `v` of sensitive attribute `s`.
    pub hist: Vec<u32>,
    pub width: usize,
}

impl Classes {
    pub fn len(&self) -> usize {
        self.counts.len()
    }
    pub fn is_empty(&self) -> bool {
        self.counts.is_empty()
    }
    /// The histogram row of class `c`.
    #[inline]
    pub fn histogram(&self, c: usize) -> &[u32] {
        &self.hist[c * self.width..(c + 1) * self.width]
    }
}

impl Snapshot {
    /// Groups rows by their leaf tuple. `leaves[j][row]` is the leaf code of attribute `j`;
    /// `sensitive[s][row]` the code of sensitive attribute `s` among `domain[s]` values.
    pub fn build(
        hierarchies: &[&Hierarchy],
        leaves: &[&[u32]],
        sensitive: &[(&[u32], usize)],
        rows: usize,
    ) -> Result<Snapshot> {
        let dims = hierarchies.len();
        let mut strides = Vec::with_capacity(dims);
        let mut stride: u128 = 1;
        for h in hierarchies {
            strides.push(stride);
            stride = stride.checked_mul(h.leaf_count() as u128).ok_or_else(|| {
                Error::Invalid(
                    "too many quasi-identifier values to pack a class key into 128 bits".into(),
                )
            })?;
        }
        let width: usize = sensitive.iter().map(|(_, d)| d).sum();
        let mut index: FxHashMap<u128, u32> = FxHashMap::default();
        let mut tuples = Vec::new();
        let mut row_tuple = Vec::with_capacity(rows);
        let mut base = Classes {
            width,
            ..Default::default()
        };
        for r in 0..rows {
            let key: u128 = (0..dims).map(|j| leaves[j][r] as u128 * strides[j]).sum();
            let t = *index.entry(key).or_insert_with(|| {
                let t = base.counts.len() as u32;
                tuples.extend((0..dims).map(|j| leaves[j][r]));
                base.keys.push(key);
                base.reps.push(t);
                base.counts.push(0);
                base.hist.resize(base.hist.len() + width, 0);
                t
            });
            row_tuple.push(t);
            base.counts[t as usize] += 1;
            let mut offset = t as usize * width;
            for (codes, domain) in sensitive {
                base.hist[offset + codes[r] as usize] += 1;
                offset += domain;
            }
        }
        Ok(Snapshot {
            dims,
            tuples,
            row_tuple,
            strides,
            base,
        })
    }

    pub fn base(&self) -> &Classes {
        &self.base
    }
    pub fn dims(&self) -> usize {
        self.dims
    }
    #[inline]
    pub fn tuple(&self, t: u32) -> &[u32] {
        &self.tuples[t as usize * self.dims..(t as usize + 1) * self.dims]
    }
    pub fn row_tuple(&self) -> &[u32] {
        &self.row_tuple
    }

    /// Rolls `from` (the classes of node `from_levels`) up to the coarser node `to_levels`.
    pub fn rollup(
        &self,
        hierarchies: &[&Hierarchy],
        from: &Classes,
        from_levels: &[u8],
        to_levels: &[u8],
    ) -> Classes {
        let changed: Vec<(usize, &[u32], &[u32], u128)> = (0..self.dims)
            .filter(|&j| from_levels[j] != to_levels[j])
            .map(|j| {
                let h = hierarchies[j];
                (
                    j,
                    h.level_map(from_levels[j] as usize),
                    h.level_map(to_levels[j] as usize),
                    self.strides[j],
                )
            })
            .collect();
        let width = from.width;
        let mut index: FxHashMap<u128, u32> = FxHashMap::default();
        index.reserve(from.len() / 2);
        let mut out = Classes {
            width,
            ..Default::default()
        };
        for c in 0..from.len() {
            let tuple = self.tuple(from.reps[c]);
            let mut key = from.keys[c];
            for &(j, old, new, stride) in &changed {
                let leaf = tuple[j] as usize;
                key = key - old[leaf] as u128 * stride + new[leaf] as u128 * stride;
            }
            let next = out.counts.len() as u32;
            let target = *index.entry(key).or_insert(next);
            if target == next {
                out.keys.push(key);
                out.reps.push(from.reps[c]);
                out.counts.push(from.counts[c]);
                out.hist.extend_from_slice(from.histogram(c));
            } else {
                out.counts[target as usize] += from.counts[c];
                let dst = target as usize * width;
                for (d, s) in out.hist[dst..dst + width].iter_mut().zip(from.histogram(c)) {
                    *d += s;
                }
            }
        }
        out
    }

    /// The classes of `levels`, rolled up directly from the base.
    pub fn classes(&self, hierarchies: &[&Hierarchy], levels: &[u8]) -> Classes {
        let bottom = vec![0u8; self.dims];
        if levels == bottom.as_slice() {
            return self.base.clone();
        }
        self.rollup(hierarchies, &self.base, &bottom, levels)
    }

    /// The class index of each row, for classes computed at `levels`.
    pub fn row_classes(
        &self,
        hierarchies: &[&Hierarchy],
        classes: &Classes,
        levels: &[u8],
    ) -> Vec<u32> {
        let index: FxHashMap<u128, u32> = classes
            .keys
            .iter()
            .enumerate()
            .map(|(c, &k)| (k, c as u32))
            .collect();
        let tuple_class: Vec<u32> = (0..self.base.len())
            .map(|t| {
                let tuple = self.tuple(t as u32);
                let key: u128 = (0..self.dims)
                    .map(|j| {
                        hierarchies[j].code(levels[j] as usize, tuple[j]) as u128 * self.strides[j]
                    })
                    .sum();
                index[&key]
            })
            .collect();
        self.row_tuple
            .iter()
            .map(|&t| tuple_class[t as usize])
            .collect()
    }
}
