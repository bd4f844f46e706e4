//! Equivalence classes of a transformation, and their rollup.
//!
//! Rows that agree on every generalized quasi-identifier form an equivalence class. A class
//! is stored as plain data: a key (the generalized tuple packed in mixed radix), a
//! representative base tuple, the number of rows, and one frequency histogram per sensitive
//! attribute (flattened). The classes of a coarser node are computed from those of any finer
//! node without touching the rows (Incognito's rollup property): map each class's key to the
//! coarser key and merge counts and histograms.

use crate::error::{DatasetError, Error, Result};
use crate::hierarchy::Hierarchy;

thread_local! {
    static SCRATCH32: std::cell::RefCell<Grouper<u32>> = Default::default();
    static SCRATCH64: std::cell::RefCell<Grouper<u64>> = Default::default();
    static SCRATCH128: std::cell::RefCell<Grouper<u128>> = Default::default();
    /// Classes given back by [`Pooled`], reused by every rollup's output.
    static POOL: std::cell::RefCell<Vec<Classes>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Classes from [`Snapshot::rollup_pooled`]: on drop their vectors go back to this thread's
/// pool, so a walk that rolls up one node after another reuses the same memory instead of
/// allocating (and the kernel zeroing) fresh pages for every node.
pub(crate) struct Pooled(Classes);

impl std::ops::Deref for Pooled {
    type Target = Classes;
    fn deref(&self) -> &Classes {
        &self.0
    }
}

/// Frees the classes pooled on this thread and on every thread of the current rayon pool:
/// a walk calls it when done, so that worker threads, which outlive it, hold nothing.
pub(crate) fn release_pool() {
    let clear = || {
        let _ = POOL.try_with(|pool| pool.borrow_mut().clear());
    };
    clear();
    rayon::broadcast(|_| clear());
}

impl Drop for Pooled {
    fn drop(&mut self) {
        let classes = std::mem::take(&mut self.0);
        // a thread being torn down has no pool left: the classes are simply freed
        let _ = POOL.try_with(|pool| pool.borrow_mut().push(classes));
    }
}

/// A key the grouper can hash: 32 or 64 bits when every key of the snapshot fits, else 128.
pub(crate) trait GroupKey: Copy + Eq + Default + 'static {
    /// A 64-bit hash of the key.
    fn hash64(self) -> u64;
    /// `self + other`, wrapping (key changes are added in two's complement).
    fn wrapping_add(self, other: Self) -> Self;
    /// `self * other`, wrapping.
    fn wrapping_mul(self, other: Self) -> Self;
    /// The low bits of `x`.
    fn truncate(x: u128) -> Self;
    /// `keys` wrapped.
    fn wrap(keys: Vec<Self>) -> Keys;
    /// The vector inside `keys` when it holds keys of this width, else an empty one.
    fn unwrap(keys: Keys) -> Vec<Self>;
    /// Runs `f` with this thread's grouper.
    fn with_scratch<R>(f: impl FnOnce(&mut Grouper<Self>) -> R) -> R;
}
/// [`GroupKey`] for a key type of at most 64 bits held in `Keys::$variant`, with its
/// thread's grouper `$scratch`: hashed by a multiplication by 2^64 / φ (the grouper keeps
/// the top bits).
macro_rules! narrow_group_key {
    ($t:ty, $variant:ident, $scratch:ident) => {
        impl GroupKey for $t {
            #[inline]
            fn hash64(self) -> u64 {
                u64::from(self).wrapping_mul(0x9E37_79B9_7F4A_7C15)
            }
            #[inline]
            fn wrapping_add(self, other: $t) -> $t {
                <$t>::wrapping_add(self, other)
            }
            #[inline]
            fn wrapping_mul(self, other: $t) -> $t {
                <$t>::wrapping_mul(self, other)
            }
            fn truncate(x: u128) -> $t {
                x as $t
            }
            fn wrap(keys: Vec<$t>) -> Keys {
                Keys::$variant(keys)
            }
            fn unwrap(keys: Keys) -> Vec<$t> {
                match keys {
                    Keys::$variant(keys) => keys,
                    _ => Vec::new(),
                }
            }
            fn with_scratch<R>(f: impl FnOnce(&mut Grouper<$t>) -> R) -> R {
                $scratch.with_borrow_mut(f)
            }
        }
    };
}
narrow_group_key!(u32, Short, SCRATCH32);
narrow_group_key!(u64, Narrow, SCRATCH64);
impl GroupKey for u128 {
    #[inline]
    fn hash64(self) -> u64 {
        ((self as u64) ^ ((self >> 64) as u64).rotate_left(29)).wrapping_mul(0x9E37_79B9_7F4A_7C15)
    }
    #[inline]
    fn wrapping_add(self, other: u128) -> u128 {
        u128::wrapping_add(self, other)
    }
    #[inline]
    fn wrapping_mul(self, other: u128) -> u128 {
        u128::wrapping_mul(self, other)
    }
    fn truncate(x: u128) -> u128 {
        x
    }
    fn wrap(keys: Vec<u128>) -> Keys {
        Keys::Wide(keys)
    }
    fn unwrap(keys: Keys) -> Vec<u128> {
        match keys {
            Keys::Wide(keys) => keys,
            _ => Vec::new(),
        }
    }
    fn with_scratch<R>(f: impl FnOnce(&mut Grouper<u128>) -> R) -> R {
        SCRATCH128.with_borrow_mut(f)
    }
}

/// The keys of a node's classes, at the snapshot's width.
#[derive(Debug, Clone)]
pub(crate) enum Keys {
    /// Every key fits in 32 bits: a quarter less memory per class, and smaller grouping
    /// tables, than 64.
    Short(Vec<u32>),
    /// Every key fits in 64 bits.
    Narrow(Vec<u64>),
    /// Some key needs more.
    Wide(Vec<u128>),
}

impl Default for Keys {
    fn default() -> Keys {
        Keys::Narrow(Vec::new())
    }
}

#[derive(Clone, Copy, Default)]
struct Slot<K> {
    key: K,
    stamp: u32,
    group: u32,
}

/// Up to this many keys a [`Grouper`] is at most a quarter full: linear probing then
/// meets fewer occupied slots (docs/performance.md measures it against half full).
const ROOMY: usize = 1 << 14;

/// An open-addressing map from keys to group numbers, reused across rollups: each use
/// bumps a generation stamp instead of clearing the table.
#[derive(Default)]
pub(crate) struct Grouper<K> {
    slots: Vec<Slot<K>>,
    stamp: u32,
    shift: u32,
    /// Slots in use this round: a power of two sized to the keys, so small rounds stay in cache.
    active: usize,
}

impl<K: GroupKey> Grouper<K> {
    /// Prepares for up to `n` distinct keys: at most a quarter full up to [`ROOMY`] keys,
    /// at most half full beyond (where the table outgrows the caches anyway).
    fn start(&mut self, n: usize) {
        let room = if n <= ROOMY { 4 } else { 2 };
        let want = (n.max(8) * room).next_power_of_two();
        if self.slots.len() < want || self.stamp == u32::MAX {
            self.slots = vec![Slot::default(); want.max(self.slots.len())];
            self.stamp = 0;
        }
        self.stamp += 1;
        self.active = want;
        self.shift = 64 - want.trailing_zeros();
    }

    /// Asks the CPU to start loading the slot `key` hashes to.
    #[inline]
    fn prefetch(&self, key: K) {
        let i = (key.hash64() >> self.shift) as usize;
        prefetch(&self.slots[i]);
    }

    /// The group of `key`, or `None` after registering it as group `next`.
    #[inline]
    fn find_or_insert(&mut self, key: K, next: u32) -> Option<u32> {
        let mask = self.active - 1;
        let mut i = (key.hash64() >> self.shift) as usize;
        loop {
            let slot = &mut self.slots[i];
            if slot.stamp != self.stamp {
                *slot = Slot {
                    key,
                    stamp: self.stamp,
                    group: next,
                };
                return None;
            }
            if slot.key == key {
                return Some(slot.group);
            }
            i = (i + 1) & mask;
        }
    }
}

/// A cache hint: start loading `value`'s cache line.
#[inline(always)]
pub(crate) fn prefetch<T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: prefetching is a hint that never faults, and the pointer comes from a reference.
    unsafe {
        std::arch::x86_64::_mm_prefetch(
            value as *const T as *const i8,
            std::arch::x86_64::_MM_HINT_T0,
        );
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}

/// One rollup: the classes `from` of node `from_levels`, rolled up to node `to_levels`,
/// stopping past `cap` classes.
#[derive(Clone, Copy)]
struct Request<'a> {
    hierarchies: &'a [&'a Hierarchy],
    from: &'a Classes,
    from_levels: &'a [u8],
    to_levels: &'a [u8],
    cap: usize,
}

/// Where a rollup puts its classes: the output's vectors.
struct Sink<'a, K> {
    keys: &'a mut Vec<K>,
    reps: &'a mut Vec<u32>,
    counts: &'a mut Vec<u32>,
    hist: &'a mut Vec<u32>,
}

/// Groups the classes of `from` by `new_key` into `sink`, in order of first occurrence;
/// `false` as soon as there are more than `cap` classes. New keys are computed a batch ahead
/// and their slots prefetched, so the table's cache misses overlap.
#[inline(always)]
fn group_into<K: GroupKey>(
    index: &mut Grouper<K>,
    from: &Classes,
    cap: usize,
    new_key: impl Fn(usize) -> K,
    sink: &mut Sink<'_, K>,
) -> bool {
    let Sink {
        keys,
        reps,
        counts,
        hist,
    } = sink;
    let (n, width) = (from.len(), from.width);
    // never more than `cap` classes: a table sized for them stays in cache when a large
    // input rolls up to few classes
    index.start(n.min(cap));
    // room for as many classes as the input has (at most `cap`): grown by doubling, the
    // pooled vectors were copied at each step (room not written to is not touched)
    let room = n.min(cap);
    keys.reserve(room);
    reps.reserve(room);
    counts.reserve(room);
    hist.reserve(room * width);
    const AHEAD: usize = 8;
    let mut ahead = [K::default(); AHEAD];
    for (c, slot) in ahead.iter_mut().enumerate().take(n) {
        *slot = new_key(c);
        index.prefetch(*slot);
    }
    for c in 0..n {
        let key = ahead[c % AHEAD];
        if c + AHEAD < n {
            let k = new_key(c + AHEAD);
            index.prefetch(k);
            ahead[c % AHEAD] = k;
        }
        let next = counts.len() as u32;
        if let Some(slot) = index.find_or_insert(key, next) {
            let t = slot as usize;
            counts[t] += from.counts[c];
            if width > 0 {
                let dst = t * width;
                for (d, s) in hist[dst..dst + width].iter_mut().zip(from.histogram(c)) {
                    *d += s;
                }
            }
        } else {
            if counts.len() == cap {
                return false;
            }
            keys.push(key);
            reps.push(from.reps[c]);
            counts.push(from.counts[c]);
            hist.extend_from_slice(from.histogram(c));
        }
    }
    true
}

/// The new keys of a rollup that changes `N` attributes, each read without bounds checks:
/// the loop over the attributes unrolls, and the two dependent reads per attribute (the
/// representative's leaf, then its key change) carry no checks.
///
/// [`key`](Self::key) is safe to call because every `Unrolled` carries the promise made
/// to [`new`](Self::new): the type and its fields are private to this module, and `new`
/// is the only place that builds one (a struct literal elsewhere in the module would
/// break that, and must not be written).
struct Unrolled<'a, K, const N: usize> {
    columns: [&'a [u32]; N],
    deltas: [&'a [K]; N],
    reps: &'a [u32],
    keys: &'a [K],
}

impl<'a, K: GroupKey, const N: usize> Unrolled<'a, K, N> {
    /// # Safety
    ///
    /// `deltas` has `N` entries; every representative of `from` is below the length of
    /// every column in `deltas`, and every leaf code in a column is below the length of
    /// the key-change table beside it.
    unsafe fn new(deltas: &'a [(&'a [u32], Vec<K>)], from: &'a Classes, keys: &'a [K]) -> Self {
        Unrolled {
            columns: std::array::from_fn(|i| deltas[i].0),
            deltas: std::array::from_fn(|i| deltas[i].1.as_slice()),
            reps: &from.reps,
            keys,
        }
    }

    /// The new key of class `c`.
    #[inline(always)]
    fn key(&self, c: usize) -> K {
        let rep = self.reps[c] as usize;
        let mut key = self.keys[c];
        for i in 0..N {
            // SAFETY: as promised to `new`, `rep` is below the column's length and the
            // leaf it reads below the table's
            key = key.wrapping_add(unsafe {
                let leaf = *self.columns[i].get_unchecked(rep);
                *self.deltas[i].get_unchecked(leaf as usize)
            });
        }
        key
    }
}

/// Every row's key: its leaves in mixed radix over `strides`, column by column (each pass
/// streams one column). The caller picks `K` wide enough for the product of the domains.
fn row_keys<K: GroupKey>(leaves: &[&[u32]], strides: &[u128], rows: usize) -> Vec<K> {
    let mut keys = vec![K::default(); rows];
    for (leaves, &stride) in leaves.iter().zip(strides) {
        let stride = K::truncate(stride);
        for (key, &leaf) in keys.iter_mut().zip(leaves.iter()) {
            *key = key.wrapping_add(K::truncate(u128::from(leaf)).wrapping_mul(stride));
        }
    }
    keys
}

/// Groups rows by key: per row its group, per group its first row and its key (widened).
fn group_rows<K: GroupKey>(keys: &[K]) -> (Vec<u32>, Vec<u32>, Keys) {
    // room for as many tuples as rows: grown by doubling, the vectors were copied each
    // time, into memory the kernel zeroes afresh
    let mut row_tuple = Vec::with_capacity(keys.len());
    let mut first_rows: Vec<u32> = Vec::with_capacity(keys.len());
    let mut group_keys: Vec<K> = Vec::with_capacity(keys.len());
    let mut index = Grouper::default();
    index.start(keys.len());
    // each key's slot loaded a few rows ahead, as the rollups do, so the misses overlap
    const AHEAD: usize = 8;
    for &key in keys.iter().take(AHEAD) {
        index.prefetch(key);
    }
    for (r, &key) in keys.iter().enumerate() {
        if let Some(&ahead) = keys.get(r + AHEAD) {
            index.prefetch(ahead);
        }
        let next = first_rows.len() as u32;
        match index.find_or_insert(key, next) {
            Some(t) => row_tuple.push(t),
            None => {
                row_tuple.push(next);
                first_rows.push(r as u32);
                group_keys.push(key);
            }
        }
    }
    (row_tuple, first_rows, K::wrap(group_keys))
}

/// The distinct level-0 quasi-identifier tuples of a table: the base every rollup starts from.
#[derive(Debug, Clone)]
pub struct Snapshot {
    dims: usize,
    /// `columns[j][t]`: leaf code of attribute `j` in tuple `t`. Columnar, because a rollup
    /// reads only the attributes it changes.
    columns: Vec<Vec<u32>>,
    /// The base tuple of each row.
    row_tuple: Vec<u32>,
    strides: Vec<u128>,
    /// Per attribute, one more than its largest leaf code (0 without tuples): a rollup
    /// reads its key changes unchecked only from tables at least this long.
    leaf_bounds: Vec<usize>,
    base: Classes,
}

/// Equivalence classes of one node, as parallel vectors.
#[derive(Debug, Clone, Default)]
pub struct Classes {
    /// Per class, the key identifying its tuple of generalized codes (unique within a node).
    keys: Keys,
    /// A base tuple (index into the snapshot) inside each class. Set only in this module,
    /// so that every representative is below `tuples`.
    reps: Vec<u32>,
    /// The number of base tuples of the snapshot these classes come from.
    tuples: usize,
    /// Per class, its number of rows.
    pub counts: Vec<u32>,
    /// `hist[c * width + offset_s + v]`: rows of class `c` with value `v` of sensitive attribute `s`.
    hist: Vec<u32>,
    /// Length of one class's histogram row: the sum of the sensitive domains (and the
    /// logical-safety profile, when there is one).
    pub(crate) width: usize,
}

impl Classes {
    /// Per class, a base tuple (an index into the snapshot) inside it.
    pub(crate) fn reps(&self) -> &[u32] {
        &self.reps
    }
    /// Number of classes.
    pub fn len(&self) -> usize {
        self.counts.len()
    }
    /// Whether there are no classes (the table has no rows).
    pub fn is_empty(&self) -> bool {
        self.counts.is_empty()
    }
    /// The key of class `c`: its generalized tuple packed in mixed radix, the same in
    /// every snapshot of tables encoded with the same hierarchies.
    pub(crate) fn key(&self, c: usize) -> u128 {
        match &self.keys {
            Keys::Short(keys) => keys[c] as u128,
            Keys::Narrow(keys) => keys[c] as u128,
            Keys::Wide(keys) => keys[c],
        }
    }
    /// Memory one class takes: its key (4, 8 or 16 bytes), representative and count (4
    /// each), and 4 bytes per histogram cell.
    pub(crate) fn bytes_per_class(&self) -> usize {
        let key = match self.keys {
            Keys::Short(_) => 4,
            Keys::Narrow(_) => 8,
            Keys::Wide(_) => 16,
        };
        key + 8 + 4 * self.width
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
    /// With `weights`, row `r` counts `weights[r]` times in counts and histograms.
    pub(crate) fn build(
        hierarchies: &[&Hierarchy],
        leaves: &[&[u32]],
        sensitive: &[(&[u32], usize)],
        rows: usize,
        weights: Option<&[u32]>,
    ) -> Result<Snapshot> {
        let dims = hierarchies.len();
        let mut strides = Vec::with_capacity(dims);
        let mut stride: u128 = 1;
        for h in hierarchies {
            strides.push(stride);
            stride = stride
                .checked_mul(h.leaf_count() as u128)
                .ok_or(Error::Dataset(DatasetError::KeyOverflow))?;
        }
        let width: usize = sensitive.iter().map(|(_, d)| d).sum();
        // keys column by column (each pass streams one column), then grouped in one pass
        let (row_tuple, first_rows, base_keys) = if stride <= u32::MAX as u128 {
            group_rows(&row_keys::<u32>(leaves, &strides, rows))
        } else if stride <= u64::MAX as u128 {
            group_rows(&row_keys::<u64>(leaves, &strides, rows))
        } else {
            group_rows(&row_keys::<u128>(leaves, &strides, rows))
        };
        let tuples = first_rows.len();
        let columns: Vec<Vec<u32>> = leaves
            .iter()
            .map(|leaves| first_rows.iter().map(|&r| leaves[r as usize]).collect())
            .collect();
        let leaf_bounds = columns
            .iter()
            .map(|column| column.iter().max().map_or(0, |&m| m as usize + 1))
            .collect();
        let mut counts = vec![0u32; tuples];
        let mut hist = vec![0u32; tuples * width];
        // the weighted loops are separate, so that unweighted rows count as before
        match weights {
            None => {
                for &t in &row_tuple {
                    counts[t as usize] += 1;
                }
                if width > 0 {
                    for (r, &t) in row_tuple.iter().enumerate() {
                        let mut offset = t as usize * width;
                        for (codes, domain) in sensitive {
                            hist[offset + codes[r] as usize] += 1;
                            offset += domain;
                        }
                    }
                }
            }
            Some(weights) => {
                for (&t, &w) in row_tuple.iter().zip(weights) {
                    counts[t as usize] += w;
                }
                if width > 0 {
                    for (r, (&t, &w)) in row_tuple.iter().zip(weights).enumerate() {
                        let mut offset = t as usize * width;
                        for (codes, domain) in sensitive {
                            hist[offset + codes[r] as usize] += w;
                            offset += domain;
                        }
                    }
                }
            }
        }
        let base = Classes {
            keys: base_keys,
            reps: (0..tuples as u32).collect(),
            tuples,
            counts,
            hist,
            width,
        };
        Ok(Snapshot {
            dims,
            columns,
            row_tuple,
            strides,
            leaf_bounds,
            base,
        })
    }

    /// The classes of the bottom node: one per distinct level-0 tuple.
    pub fn base(&self) -> &Classes {
        &self.base
    }
    /// Number of quasi-identifiers.
    pub fn dims(&self) -> usize {
        self.dims
    }
    /// Leaf code of attribute `j` in base tuple `t`.
    #[inline]
    pub(crate) fn leaf(&self, j: usize, t: u32) -> u32 {
        self.columns[j][t as usize]
    }
    /// Leaf codes of attribute `j`, indexed by base tuple.
    #[inline]
    pub(crate) fn column(&self, j: usize) -> &[u32] {
        &self.columns[j]
    }
    /// Per row, the index of its base tuple.
    pub fn row_tuple(&self) -> &[u32] {
        &self.row_tuple
    }

    /// Rolls `from` (the classes of node `from_levels`) up to the coarser node `to_levels`.
    pub(crate) fn rollup(
        &self,
        hierarchies: &[&Hierarchy],
        from: &Classes,
        from_levels: &[u8],
        to_levels: &[u8],
    ) -> Classes {
        self.rollup_capped(hierarchies, from, from_levels, to_levels, usize::MAX)
            .expect("no cap")
    }

    /// [`rollup`](Self::rollup), or `None` as soon as there are more than `cap` classes.
    pub(crate) fn rollup_capped(
        &self,
        hierarchies: &[&Hierarchy],
        from: &Classes,
        from_levels: &[u8],
        to_levels: &[u8],
        cap: usize,
    ) -> Option<Classes> {
        // The output is gathered in pooled vectors and copied out at its exact size:
        // vectors sized for the input would hold (and touch) memory the cache keeps.
        self.rollup_capped_pooled(hierarchies, from, from_levels, to_levels, cap)
            .map(|out| Classes::clone(&out))
    }

    /// [`rollup_capped`](Self::rollup_capped) into classes from this thread's pool (see
    /// [`Pooled`]).
    pub(crate) fn rollup_capped_pooled(
        &self,
        hierarchies: &[&Hierarchy],
        from: &Classes,
        from_levels: &[u8],
        to_levels: &[u8],
        cap: usize,
    ) -> Option<Pooled> {
        let (complete, out) = self.rollup_into_pool(hierarchies, from, from_levels, to_levels, cap);
        complete.then_some(out)
    }

    /// [`rollup`](Self::rollup) into classes taken from this thread's pool, which go back
    /// to it when dropped (see [`Pooled`]).
    pub(crate) fn rollup_pooled(
        &self,
        hierarchies: &[&Hierarchy],
        from: &Classes,
        from_levels: &[u8],
        to_levels: &[u8],
    ) -> Pooled {
        self.rollup_capped_pooled(hierarchies, from, from_levels, to_levels, usize::MAX)
            .expect("no cap")
    }

    /// The rollup into classes from this thread's pool, and whether it is complete (no more
    /// than `cap` classes).
    fn rollup_into_pool(
        &self,
        hierarchies: &[&Hierarchy],
        from: &Classes,
        from_levels: &[u8],
        to_levels: &[u8],
        cap: usize,
    ) -> (bool, Pooled) {
        let request = Request {
            hierarchies,
            from,
            from_levels,
            to_levels,
            cap,
        };
        let mut out = POOL.with_borrow_mut(|pool| pool.pop()).unwrap_or_default();
        let complete = match &from.keys {
            Keys::Short(keys) => self.rollup_into(request, keys, &mut out),
            Keys::Narrow(keys) => self.rollup_into(request, keys, &mut out),
            Keys::Wide(keys) => self.rollup_into(request, keys, &mut out),
        };
        (complete, Pooled(out))
    }

    /// The rollup proper, into `out` (whose vectors it reuses), where `from_keys` are the
    /// keys of `request.from`; `false` as soon as there are more than `request.cap`
    /// classes.
    fn rollup_into<K: GroupKey>(
        &self,
        request: Request<'_>,
        from_keys: &[K],
        out: &mut Classes,
    ) -> bool {
        let Request {
            hierarchies,
            from,
            from_levels,
            to_levels,
            cap,
        } = request;
        let mut keys = K::unwrap(std::mem::take(&mut out.keys));
        let mut reps = std::mem::take(&mut out.reps);
        let mut counts = std::mem::take(&mut out.counts);
        let mut hist = std::mem::take(&mut out.hist);
        keys.clear();
        reps.clear();
        counts.clear();
        hist.clear();
        // For each changed attribute, the key change of every leaf (two's complement).
        let mut checked = false;
        let deltas: Vec<(&[u32], Vec<K>)> = (0..self.dims)
            .filter(|&j| from_levels[j] != to_levels[j])
            .map(|j| {
                let h = hierarchies[j];
                let (old, new) = (
                    h.level_map(from_levels[j] as usize),
                    h.level_map(to_levels[j] as usize),
                );
                let stride = self.strides[j];
                let delta: Vec<K> = old
                    .iter()
                    .zip(new)
                    .map(|(&o, &n)| {
                        K::truncate((n as u128 * stride).wrapping_sub(o as u128 * stride))
                    })
                    .collect();
                checked |= delta.len() < self.leaf_bounds[j];
                (self.column(j), delta)
            })
            .collect();
        // every representative a base tuple of this snapshot: it is one of the snapshot
        // `from` comes from, which has no more tuples than this one (so, with a table from
        // the same hierarchies, it is this one)
        checked |= from.tuples > self.base.len();
        let mut sink = Sink {
            keys: &mut keys,
            reps: &mut reps,
            counts: &mut counts,
            hist: &mut hist,
        };
        // Grouped with a per-thread table reused across rollups: fresh tables cost more in
        // first-touch cache misses than the hashing itself. One loop per number of changed
        // attributes up to twelve, unrolled, its reads unchecked (docs/performance.md
        // measures it).
        macro_rules! unrolled {
            ($n:literal) => {{
                // SAFETY: `checked` is false, so every representative of `from` is a base
                // tuple (below the length of every column) and every column's leaf codes
                // are below its key-change table's length
                let new_key = unsafe { Unrolled::<K, $n>::new(&deltas, from, from_keys) };
                K::with_scratch(|index| group_into(index, from, cap, |c| new_key.key(c), &mut sink))
            }};
        }
        let complete = match (checked, deltas.len()) {
            (false, 1) => unrolled!(1),
            (false, 2) => unrolled!(2),
            (false, 3) => unrolled!(3),
            (false, 4) => unrolled!(4),
            (false, 5) => unrolled!(5),
            (false, 6) => unrolled!(6),
            (false, 7) => unrolled!(7),
            (false, 8) => unrolled!(8),
            (false, 9) => unrolled!(9),
            (false, 10) => unrolled!(10),
            (false, 11) => unrolled!(11),
            (false, 12) => unrolled!(12),
            _ => {
                let new_key = |c: usize| {
                    let rep = from.reps[c] as usize;
                    let mut key = from_keys[c];
                    for (column, delta) in &deltas {
                        key = key.wrapping_add(delta[column[rep] as usize]);
                    }
                    key
                };
                K::with_scratch(|index| group_into(index, from, cap, new_key, &mut sink))
            }
        };
        *out = Classes {
            keys: K::wrap(keys),
            reps,
            tuples: from.tuples,
            counts,
            hist,
            width: from.width,
        };
        complete
    }

    /// The classes of `levels`, rolled up directly from the base.
    pub(crate) fn classes(&self, hierarchies: &[&Hierarchy], levels: &[u8]) -> Classes {
        self.classes_capped(hierarchies, levels, usize::MAX)
            .expect("no cap")
    }

    /// [`classes`](Self::classes), or `None` when there are more than `cap`.
    pub(crate) fn classes_capped(
        &self,
        hierarchies: &[&Hierarchy],
        levels: &[u8],
        cap: usize,
    ) -> Option<Classes> {
        self.classes_capped_pooled(hierarchies, levels, cap)
            .map(|out| Classes::clone(&out))
    }

    /// [`classes_capped`](Self::classes_capped) into classes from this thread's pool (see
    /// [`Pooled`]).
    pub(crate) fn classes_capped_pooled(
        &self,
        hierarchies: &[&Hierarchy],
        levels: &[u8],
        cap: usize,
    ) -> Option<Pooled> {
        let bottom = vec![0u8; self.dims];
        if levels == bottom.as_slice() {
            return (self.base.len() <= cap).then(|| Pooled(self.base.clone()));
        }
        self.rollup_capped_pooled(hierarchies, &self.base, &bottom, levels, cap)
    }

    /// The class index of each row, for classes computed at `levels`.
    pub fn row_classes(
        &self,
        hierarchies: &[&Hierarchy],
        classes: &Classes,
        levels: &[u8],
    ) -> Vec<u32> {
        let tuple_class = match (&self.base.keys, &classes.keys) {
            (Keys::Short(base), Keys::Short(keys)) => {
                self.tuple_classes(hierarchies, base, keys, levels)
            }
            (Keys::Narrow(base), Keys::Narrow(keys)) => {
                self.tuple_classes(hierarchies, base, keys, levels)
            }
            (Keys::Wide(base), Keys::Wide(keys)) => {
                self.tuple_classes(hierarchies, base, keys, levels)
            }
            _ => panic!("classes of another snapshot"),
        };
        self.row_tuple
            .iter()
            .map(|&t| tuple_class[t as usize])
            .collect()
    }

    /// The class of each base tuple at `levels`, among classes whose keys are `keys`: each
    /// tuple's key moved from the base's by the key change of every attribute above level
    /// 0 (as a rollup from the base computes it), found in a table of the classes' keys.
    fn tuple_classes<K: GroupKey>(
        &self,
        hierarchies: &[&Hierarchy],
        base_keys: &[K],
        keys: &[K],
        levels: &[u8],
    ) -> Vec<u32> {
        let deltas: Vec<(&[u32], Vec<K>)> = (0..self.dims)
            .filter(|&j| levels[j] != 0)
            .map(|j| {
                let stride = self.strides[j];
                let old = hierarchies[j].level_map(0);
                let new = hierarchies[j].level_map(levels[j] as usize);
                let delta = old
                    .iter()
                    .zip(new)
                    .map(|(&o, &n)| {
                        K::truncate((n as u128 * stride).wrapping_sub(o as u128 * stride))
                    })
                    .collect();
                (self.column(j), delta)
            })
            .collect();
        let mut index = Grouper::default();
        index.start(keys.len());
        for (c, &key) in keys.iter().enumerate() {
            if index.find_or_insert(key, c as u32).is_some() {
                panic!("two classes with one key");
            }
        }
        // the base's representatives are its tuples in order
        base_keys
            .iter()
            .enumerate()
            .map(|(t, &key)| {
                let key = deltas.iter().fold(key, |key, (column, delta)| {
                    key.wrapping_add(delta[column[t] as usize])
                });
                index
                    .find_or_insert(key, u32::MAX)
                    .unwrap_or_else(|| panic!("base tuple {t} is in none of the classes"))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    use super::Snapshot;
    use crate::framework::test_support::hierarchy;
    use crate::hierarchy::Hierarchy;

    /// A random table of 1 to 14 quasi-identifiers and 1 to 199 rows: each attribute's
    /// hierarchy and each row's leaves. Most rounds have small domains (32-bit keys); every
    /// tenth has large ones, so that the keys mostly need 128 bits; and every tenth, five
    /// after those, 9 to 14 attributes whose domains multiply to between 2^34 and 2^62, so
    /// that 64-bit keys meet the unrolled loops of 9 to 12 changed attributes and the
    /// general one.
    fn random_table(rng: &mut ChaCha8Rng, round: usize) -> (Vec<Hierarchy>, Vec<Vec<u32>>) {
        let (big, medium) = (round.is_multiple_of(10), round % 10 == 5);
        let dims: usize = if medium {
            rng.gen_range(9..15)
        } else {
            rng.gen_range(1..15)
        };
        // each domain between 2^(34 / dims) and 2^(62 / dims), rounded inwards
        let (low, high) = (
            2f64.powf(34.0 / dims as f64).ceil() as usize,
            2f64.powf(62.0 / dims as f64).floor() as usize,
        );
        let leaf_counts: Vec<usize> = (0..dims)
            .map(|_| {
                if big {
                    rng.gen_range(100..300)
                } else if medium {
                    rng.gen_range(low..=high)
                } else {
                    rng.gen_range(1..7)
                }
            })
            .collect();
        let hierarchies: Vec<Hierarchy> = leaf_counts
            .iter()
            .enumerate()
            .map(|(j, &n)| hierarchy(j, n, rng.gen_range(1..4)))
            .collect();
        let rows = rng.gen_range(1..200);
        let leaves = leaf_counts
            .iter()
            .map(|&n| (0..rows).map(|_| rng.gen_range(0..n as u32)).collect())
            .collect();
        (hierarchies, leaves)
    }

    /// Rolling up from a random node to a random generalization of it gives, for 1 to 14
    /// quasi-identifiers (so every unrolled loop, 1 to 12 changed attributes, and the
    /// general one), 32-, 64- and 128-bit keys, the classes a brute force over the rows gives:
    /// one per distinct generalized tuple, with its row count, its first base tuple as the
    /// representative, in order of that base tuple.
    #[test]
    fn rollups_group_the_rows_as_a_brute_force_does() {
        let mut rng = ChaCha8Rng::seed_from_u64(3301);
        let mut changed_seen = [0usize; 15];
        let mut widths_seen = [0usize; 3];
        // rollups by key width and by number of changed attributes
        let mut seen = [[0usize; 15]; 3];
        for round in 0..3000 {
            let (hierarchies, leaves) = random_table(&mut rng, round);
            let (dims, rows) = (hierarchies.len(), leaves[0].len());
            let hs: Vec<&Hierarchy> = hierarchies.iter().collect();
            let columns: Vec<&[u32]> = leaves.iter().map(Vec::as_slice).collect();
            let snapshot = Snapshot::build(&hs, &columns, &[], rows, None).unwrap();
            let max: Vec<u8> = hs.iter().map(|h| h.height() as u8).collect();
            // a random number of attributes moves up from a node below the top
            let from: Vec<u8> = max
                .iter()
                .map(|&m| {
                    if m == 0 || rng.gen_bool(0.5) {
                        0
                    } else {
                        rng.gen_range(0..m)
                    }
                })
                .collect();
            let mut movable: Vec<usize> = (0..dims).filter(|&j| from[j] < max[j]).collect();
            movable.sort_by_key(|_| rng.gen::<u32>());
            movable.truncate(rng.gen_range(0..=movable.len()));
            let mut to = from.clone();
            for &j in &movable {
                to[j] = rng.gen_range(from[j] + 1..=max[j]);
            }
            let changed = from.iter().zip(&to).filter(|(a, b)| a != b).count();
            changed_seen[changed] += 1;
            let source = snapshot.classes(&hs, &from);
            let got = snapshot.rollup(&hs, &source, &from, &to);
            widths_seen[width(&got.keys)] += 1;
            seen[width(&got.keys)][changed] += 1;

            // the brute force: base tuples numbered by first occurrence, then rows grouped
            // by their generalized tuple
            let mut base: HashMap<Vec<u32>, u32> = HashMap::new();
            let mut groups: HashMap<Vec<u32>, (u32, u32)> = HashMap::new();
            let tuples = (0..rows).map(|r| leaves.iter().map(|l| l[r]).collect::<Vec<u32>>());
            for tuple in tuples {
                let general: Vec<u32> = (0..dims)
                    .map(|j| hs[j].code(to[j] as usize, tuple[j]))
                    .collect();
                let next = base.len() as u32;
                let t = *base.entry(tuple).or_insert(next);
                let group = groups.entry(general).or_insert((t, 0));
                group.0 = group.0.min(t);
                group.1 += 1;
            }
            let mut want: Vec<(u32, u32)> = groups.into_values().collect();
            want.sort_unstable();
            let have: Vec<(u32, u32)> = got.reps.iter().copied().zip(got.counts.clone()).collect();
            assert_eq!(have, want, "dims {dims}, from {from:?} to {to:?}");
        }
        for (changed, &seen) in changed_seen.iter().enumerate().take(13) {
            assert!(seen > 0, "no rollup changed {changed} attributes");
        }
        assert!(changed_seen[13..].iter().sum::<usize>() > 0);
        assert!(
            widths_seen.iter().all(|&n| n > 20),
            "rollups by key width (32, 64, 128 bits): {widths_seen:?}"
        );
        // at every width, every unrolled loop (1 to 12 changed attributes) and the general
        // one (13 or 14)
        for (w, by_changed) in seen.iter().enumerate() {
            assert!(
                by_changed[1..13].iter().all(|&n| n > 0) && by_changed[13..].iter().sum::<usize>() > 0,
                "rollups of the width {w} (0: 32, 1: 64, 2: 128 bits) by changed attributes: {by_changed:?}"
            );
        }
    }

    /// Keys take 32 bits up to a product of domains of 2^32 - 2^16 and 64 bits from 2^32:
    /// on both sides, rows at the largest and smallest leaves fall, at every node and from
    /// either source, into classes that hold exactly the rows of one generalized tuple.
    #[test]
    fn keys_change_width_at_two_to_the_32() {
        for (a, b, want) in [(65_536usize, 65_535usize, 0usize), (65_536, 65_536, 1)] {
            let hs = [hierarchy(0, a, 2), hierarchy(1, b, 2)];
            let hs: Vec<&Hierarchy> = hs.iter().collect();
            let rows = [
                (a - 1, b - 1),
                (a - 2, b - 1),
                (a - 1, b - 2),
                (0, 0),
                (a - 1, 0),
                (0, b - 1),
                (a - 1, b - 1),
            ];
            let columns: [Vec<u32>; 2] = [
                rows.iter().map(|r| r.0 as u32).collect(),
                rows.iter().map(|r| r.1 as u32).collect(),
            ];
            let snapshot =
                Snapshot::build(&hs, &[&columns[0], &columns[1]], &[], rows.len(), None).unwrap();
            assert_eq!(width(&snapshot.base().keys), want, "domains {a} x {b}");
            for to in [[0u8, 0], [1, 0], [0, 1], [1, 1], [2, 1], [1, 2], [2, 2]] {
                for from in [[0u8, 0], [1, 1]] {
                    if from[0] > to[0] || from[1] > to[1] {
                        continue;
                    }
                    let source = snapshot.classes(&hs, &from);
                    let got = snapshot.rollup(&hs, &source, &from, &to);
                    assert_eq!(width(&got.keys), want);
                    let class = snapshot.row_classes(&hs, &got, &to);
                    let general = |r: usize| {
                        let (x, y) = (columns[0][r], columns[1][r]);
                        (hs[0].code(to[0] as usize, x), hs[1].code(to[1] as usize, y))
                    };
                    for r in 0..rows.len() {
                        for q in 0..rows.len() {
                            assert_eq!(
                                class[r] == class[q],
                                general(r) == general(q),
                                "domains {a} x {b}, {from:?} to {to:?}, rows {r} and {q}"
                            );
                        }
                    }
                    let mut counted = vec![0u32; got.len()];
                    for &c in &class {
                        counted[c as usize] += 1;
                    }
                    assert_eq!(counted, got.counts, "domains {a} x {b}, {from:?} to {to:?}");
                }
            }
        }
    }

    /// Which of the three key widths `keys` has: 0, 1, 2 for 32, 64 and 128 bits.
    fn width(keys: &super::Keys) -> usize {
        match keys {
            super::Keys::Short(_) => 0,
            super::Keys::Narrow(_) => 1,
            super::Keys::Wide(_) => 2,
        }
    }

    /// Classes of another snapshot, whose representatives are not base tuples of this
    /// one, are refused by a bounds check (a panic), never read past a column.
    #[test]
    #[should_panic(expected = "index out of bounds")]
    fn a_rollup_of_another_snapshots_classes_panics() {
        let hs = [hierarchy(0, 4, 2), hierarchy(1, 4, 2)];
        let hs: Vec<&Hierarchy> = hs.iter().collect();
        let wide: [Vec<u32>; 2] = [
            (0..16).map(|r| r % 4).collect(),
            (0..16).map(|r| r / 4).collect(),
        ];
        let narrow: [Vec<u32>; 2] = [vec![0, 1], vec![0, 0]];
        let big = Snapshot::build(&hs, &[&wide[0], &wide[1]], &[], 16, None).unwrap();
        let small = Snapshot::build(&hs, &[&narrow[0], &narrow[1]], &[], 2, None).unwrap();
        let _ = small.rollup(&hs, big.base(), &[0, 0], &[1, 0]);
    }

    /// Every row's class is the class of its generalized tuple at the node: the class's
    /// representative generalizes to the row's tuple on every attribute, and each class
    /// holds as many rows as it counts; for 1 to 14 quasi-identifiers, 32-, 64- and 128-bit
    /// keys, classes rolled up from the base or from a node below.
    #[test]
    fn row_classes_put_each_row_in_the_class_of_its_tuple() {
        let mut rng = ChaCha8Rng::seed_from_u64(3302);
        let mut widths_seen = [0usize; 3];
        for round in 0..1000 {
            let (hierarchies, leaves) = random_table(&mut rng, round);
            let (dims, rows) = (hierarchies.len(), leaves[0].len());
            let hs: Vec<&Hierarchy> = hierarchies.iter().collect();
            let columns: Vec<&[u32]> = leaves.iter().map(Vec::as_slice).collect();
            let snapshot = Snapshot::build(&hs, &columns, &[], rows, None).unwrap();
            let to: Vec<u8> = hs
                .iter()
                .map(|h| rng.gen_range(0..=h.height() as u8))
                .collect();
            let classes = if rng.gen_bool(0.5) {
                snapshot.classes(&hs, &to)
            } else {
                let from: Vec<u8> = to.iter().map(|&l| rng.gen_range(0..=l)).collect();
                let source = snapshot.classes(&hs, &from);
                snapshot.rollup(&hs, &source, &from, &to)
            };
            widths_seen[width(&classes.keys)] += 1;
            let row_class = snapshot.row_classes(&hs, &classes, &to);
            assert_eq!(row_class.len(), rows);
            let mut counted = vec![0u32; classes.len()];
            for (r, &c) in row_class.iter().enumerate() {
                counted[c as usize] += 1;
                let rep = classes.reps()[c as usize];
                for j in 0..dims {
                    let level = to[j] as usize;
                    assert_eq!(
                        hs[j].code(level, leaves[j][r]),
                        hs[j].code(level, snapshot.leaf(j, rep)),
                        "round {round}, row {r}, attribute {j}"
                    );
                }
            }
            assert_eq!(counted, classes.counts, "round {round}");
        }
        assert!(
            widths_seen.iter().all(|&n| n > 20),
            "by key width (32, 64, 128 bits): {widths_seen:?}"
        );
    }
}
