//! The generalization lattice: one level per quasi-identifier.
//!
//! A node is a vector of levels; node A is a generalization of B when A ≥ B pointwise.
//! Nodes are numbered in mixed radix (first attribute fastest) so per-node state fits in
//! plain vectors. The lattice also fixes a spanning tree used to roll classes up from a
//! finer node: the parent of a node lowers its first non-zero level by one, so the subtree
//! under a node contains only generalizations of it.
//!
//! When some attribute's levels are partitions that form a partial order rather than a
//! chain (paper 000's admissible partitions), the lattice carries each attribute's
//! refinement order: node A generalizes B when every coordinate of A is refined by B's,
//! and the direct successors of a node raise one coordinate to one of its direct
//! successors. Level numbers still grow with coarseness (a level refines only higher
//! ones), so level sums order nodes consistently with generalization either way; the
//! spanning tree and chains to the top, which need nested levels, are used only on chains.

/// The lattice of level vectors `0 ..= max[j]` for each attribute `j`.
#[derive(Debug, Clone)]
pub struct Lattice {
    max: Vec<u8>,
    radix: Vec<usize>,
    size: usize,
    /// Attribute order of the rollup spanning tree (a permutation of `0..dimensions`).
    tree_order: Vec<usize>,
    /// Attribute order in which Flash's path raises levels (a permutation, too).
    path_order: Vec<usize>,
    /// Each attribute's refinement order, when some attribute's levels are not a chain.
    orders: Option<Vec<LevelOrder>>,
}

/// The refinement order of one attribute's levels.
#[derive(Debug, Clone)]
pub(crate) struct LevelOrder {
    /// `refines[a][b]`: level `a` is at least as specific as level `b`.
    pub(crate) refines: Vec<Vec<bool>>,
    /// Direct successors of each level.
    pub(crate) covers: Vec<Vec<u8>>,
}

impl LevelOrder {
    fn covered_by(&self, level: u8) -> impl Iterator<Item = u8> + '_ {
        (0..self.covers.len() as u8).filter(move |&a| self.covers[a as usize].contains(&level))
    }
}

impl Lattice {
    /// The lattice of nodes with levels `0..=max[j]` for each attribute `j`, all chains.
    pub(crate) fn new(max: Vec<u8>) -> Lattice {
        let mut radix = Vec::with_capacity(max.len());
        let mut size = 1usize;
        for &m in &max {
            radix.push(size);
            size = size.saturating_mul(m as usize + 1);
        }
        let tree_order: Vec<usize> = (0..max.len()).collect();
        Lattice {
            max,
            radix,
            size,
            path_order: tree_order.clone(),
            tree_order,
            orders: None,
        }
    }
    /// Uses each attribute's refinement order (`orders[j]` has `max[j] + 1` levels). Orders
    /// that are all chains leave the lattice as it is.
    pub(crate) fn with_orders(mut self, orders: Vec<LevelOrder>) -> Lattice {
        let chain = |o: &LevelOrder| {
            (0..o.refines.len()).all(|a| (a..o.refines.len()).all(|b| o.refines[a][b]))
        };
        if orders.len() == self.max.len() && !orders.iter().all(chain) {
            self.orders = Some(orders);
        }
        self
    }
    /// Whether every attribute's levels form a chain (the usual generalization lattice).
    pub fn is_chain(&self) -> bool {
        self.orders.is_none()
    }
    /// Whether node `b` generalizes node `a` (or equals it).
    pub fn generalizes(&self, b: &[u8], a: &[u8]) -> bool {
        match &self.orders {
            None => is_generalization(b, a),
            Some(orders) => (0..a.len()).all(|j| orders[j].refines[a[j] as usize][b[j] as usize]),
        }
    }
    /// Sets the attribute order of the rollup spanning tree. Any permutation gives a
    /// spanning tree; putting attributes whose generalization merges few classes first
    /// makes parents barely larger than their children, so rollups are cheap.
    pub(crate) fn with_tree_order(mut self, order: Vec<usize>) -> Lattice {
        if self.is_permutation(&order) {
            self.tree_order = order;
        }
        self
    }
    /// Sets the attribute order in which [`open_path`](Self::open_path) raises levels.
    pub(crate) fn with_path_order(mut self, order: Vec<usize>) -> Lattice {
        if self.is_permutation(&order) {
            self.path_order = order;
        }
        self
    }
    fn is_permutation(&self, order: &[usize]) -> bool {
        let mut check = order.to_vec();
        check.sort_unstable();
        check == (0..self.max.len()).collect::<Vec<_>>()
    }
    /// Number of nodes.
    pub fn size(&self) -> usize {
        self.size
    }
    /// Number of attributes.
    pub(crate) fn dimensions(&self) -> usize {
        self.max.len()
    }
    /// Per attribute, the index step of one level (see [`index`](Self::index)).
    pub(crate) fn radix(&self) -> &[usize] {
        &self.radix
    }
    /// Highest level of each attribute.
    pub(crate) fn max_levels(&self) -> &[u8] {
        &self.max
    }
    /// The node with every level 0 (the original data).
    pub fn bottom(&self) -> Vec<u8> {
        vec![0; self.max.len()]
    }
    /// The node with every level at its maximum.
    pub(crate) fn top(&self) -> Vec<u8> {
        self.max.clone()
    }
    /// Whether `levels` is a node of this lattice.
    pub(crate) fn contains(&self, levels: &[u8]) -> bool {
        levels.len() == self.max.len() && levels.iter().zip(&self.max).all(|(l, m)| l <= m)
    }
    /// The index of node `levels` in `0..size()` (mixed radix, first attribute fastest).
    pub(crate) fn index(&self, levels: &[u8]) -> usize {
        levels
            .iter()
            .zip(&self.radix)
            .map(|(&l, &r)| l as usize * r)
            .sum()
    }
    /// The node with index `index` (inverse of `Lattice::index`).
    pub fn levels(&self, mut index: usize) -> Vec<u8> {
        self.max
            .iter()
            .map(|&m| {
                let base = m as usize + 1;
                let l = index % base;
                index /= base;
                l as u8
            })
            .collect()
    }
    /// Direct generalizations (one attribute raised to a direct successor of its level).
    pub(crate) fn successors(&self, levels: &[u8]) -> Vec<Vec<u8>> {
        if let Some(orders) = &self.orders {
            let mut out = Vec::new();
            for (j, order) in orders.iter().enumerate() {
                for &c in &order.covers[levels[j] as usize] {
                    let mut s = levels.to_vec();
                    s[j] = c;
                    out.push(s);
                }
            }
            return out;
        }
        (0..levels.len())
            .filter(|&j| levels[j] < self.max[j])
            .map(|j| {
                let mut s = levels.to_vec();
                s[j] += 1;
                s
            })
            .collect()
    }
    /// Direct specializations (one attribute lowered to a level it directly succeeds).
    pub(crate) fn predecessors(&self, levels: &[u8]) -> Vec<Vec<u8>> {
        if let Some(orders) = &self.orders {
            let mut out = Vec::new();
            for (j, order) in orders.iter().enumerate() {
                for c in order.covered_by(levels[j]) {
                    let mut s = levels.to_vec();
                    s[j] = c;
                    out.push(s);
                }
            }
            return out;
        }
        (0..levels.len())
            .filter(|&j| levels[j] > 0)
            .map(|j| {
                let mut s = levels.to_vec();
                s[j] -= 1;
                s
            })
            .collect()
    }
    /// Children in the rollup spanning tree: raise attribute `j` for `j` up to the first
    /// non-zero attribute (all attributes at the bottom node).
    pub(crate) fn tree_children(&self, levels: &[u8]) -> Vec<(usize, Vec<u8>)> {
        let limit = levels
            .iter()
            .position(|&l| l > 0)
            .unwrap_or(levels.len().saturating_sub(1));
        (0..=limit.min(levels.len().saturating_sub(1)))
            .filter(|&j| !levels.is_empty() && levels[j] < self.max[j])
            .map(|j| {
                let mut s = levels.to_vec();
                s[j] += 1;
                (j, s)
            })
            .collect()
    }
    /// Every node index of the up-set of `levels` (itself included).
    pub(crate) fn generalizations_of(&self, levels: &[u8]) -> Vec<usize> {
        match &self.orders {
            None => self.nodes_between(levels, &self.max),
            Some(_) => self
                .nodes_between(levels, &self.max)
                .into_iter()
                .filter(|&i| self.generalizes(&self.levels(i), levels))
                .collect(),
        }
    }

    /// Every node's tie key, by index: its level sum in the high 32 bits and its levels
    /// read with the first attribute most significant in the low 32, so that keys compare
    /// as [`tie_order`] does. Stepped through the indices as an odometer (the first
    /// attribute fastest), with no division per node. Lattices stay below 2^32 nodes (a
    /// problem's at most `MAX_LATTICE`).
    pub(crate) fn tie_keys(&self) -> Vec<u64> {
        // the weight of each attribute's level in the reading: the sizes of those after it
        let weights: Vec<u64> = (0..self.max.len())
            .map(|j| self.max[j + 1..].iter().map(|&m| m as u64 + 1).product())
            .collect();
        let mut keys = Vec::with_capacity(self.size);
        let mut cur = vec![0u8; self.max.len()];
        let (mut sum, mut reading) = (0u64, 0u64);
        for _ in 0..self.size {
            keys.push(sum << 32 | reading);
            // the next index: the first attribute not at its top goes up, those before reset
            for ((level, &max), &w) in cur.iter_mut().zip(&self.max).zip(&weights) {
                if *level < max {
                    *level += 1;
                    sum += 1;
                    reading += w;
                    break;
                }
                sum -= u64::from(*level);
                reading -= u64::from(*level) * w;
                *level = 0;
            }
        }
        keys
    }

    /// Every node index in order of (level sum, index): a counting sort over the sums of
    /// [`tie_keys`](Self::tie_keys).
    pub(crate) fn by_level_sum(&self) -> Vec<usize> {
        let top: usize = self.max.iter().map(|&m| m as usize).sum();
        let sums: Vec<usize> = self
            .tie_keys()
            .into_iter()
            .map(|key| (key >> 32) as usize)
            .collect();
        let mut starts = vec![0usize; top + 2];
        for &s in &sums {
            starts[s + 1] += 1;
        }
        for s in 1..starts.len() {
            starts[s] += starts[s - 1];
        }
        let mut order = vec![0usize; self.size];
        for (i, &s) in sums.iter().enumerate() {
            order[starts[s]] = i;
            starts[s] += 1;
        }
        order
    }

    /// Appends to `out` the indices of the direct successors (`up`) or predecessors of node
    /// `index`, for a lattice of chains.
    pub(crate) fn neighbors(&self, index: usize, up: bool, out: &mut Vec<usize>) {
        for (&radix, &max) in self.radix.iter().zip(&self.max) {
            let level = (index / radix) % (max as usize + 1);
            if up && level < max as usize {
                out.push(index + radix);
            } else if !up && level > 0 {
                out.push(index - radix);
            }
        }
    }

    /// Every node index of the down-set of `levels` (itself included).
    pub(crate) fn specializations_of(&self, levels: &[u8]) -> Vec<usize> {
        match &self.orders {
            None => self.nodes_between(&vec![0; levels.len()], levels),
            Some(_) => self
                .nodes_between(&vec![0; levels.len()], levels)
                .into_iter()
                .filter(|&i| self.generalizes(levels, &self.levels(i)))
                .collect(),
        }
    }

    /// Every node index `n` with `lo ≤ n ≤ hi` pointwise (an odometer over the box).
    fn nodes_between(&self, lo: &[u8], hi: &[u8]) -> Vec<usize> {
        let mut out = Vec::new();
        let mut cur = lo.to_vec();
        loop {
            out.push(self.index(&cur));
            let mut j = 0;
            loop {
                if j == cur.len() {
                    return out;
                }
                if cur[j] < hi[j] {
                    cur[j] += 1;
                    break;
                }
                cur[j] = lo[j];
                j += 1;
            }
        }
    }
}

impl Lattice {
    /// A chain of direct generalizations from `levels` to the top (both included), raising
    /// attributes in tree order (to the first direct successor, on partial orders).
    pub(crate) fn chain_to_top(&self, levels: &[u8]) -> Vec<Vec<u8>> {
        let mut chain = vec![levels.to_vec()];
        let mut cur = levels.to_vec();
        for &j in &self.tree_order {
            while cur[j] < self.max[j] {
                cur[j] = match &self.orders {
                    None => cur[j] + 1,
                    // every level but the top has a direct successor
                    Some(orders) => orders[j].covers[cur[j] as usize][0],
                };
                chain.push(cur.clone());
            }
        }
        chain
    }

    /// A path upward from `levels` through nodes `open` says yes to (Flash's path): each
    /// step raises the first attribute, in the path order, whose raised node (to the first
    /// direct successor of its level, on partial orders) is open; the path ends where none
    /// is. `levels` itself is the path's first node.
    pub(crate) fn open_path(&self, levels: &[u8], open: impl Fn(usize) -> bool) -> Vec<Vec<u8>> {
        let mut path = vec![levels.to_vec()];
        let mut cur = levels.to_vec();
        'step: loop {
            for &j in &self.path_order {
                if cur[j] >= self.max[j] {
                    continue;
                }
                let old = cur[j];
                cur[j] = match &self.orders {
                    None => old + 1,
                    Some(orders) => orders[j].covers[old as usize][0],
                };
                if open(self.index(&cur)) {
                    path.push(cur.clone());
                    continue 'step;
                }
                cur[j] = old;
            }
            return path;
        }
    }
}

/// `a ≤ b` pointwise: `b` is a generalization of `a` (or equal).
pub fn is_generalization(b: &[u8], a: &[u8]) -> bool {
    a.iter().zip(b).all(|(x, y)| x <= y)
}

/// Sum of levels: the height of a node in the lattice.
pub(crate) fn level_sum(levels: &[u8]) -> u32 {
    levels.iter().map(|&l| l as u32).sum()
}

/// The deterministic tie order among nodes of equal score: lower level sum, then lexicographic.
pub fn tie_order(a: &[u8], b: &[u8]) -> std::cmp::Ordering {
    level_sum(a).cmp(&level_sum(b)).then_with(|| a.cmp(b))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Nodes by level sum come in the order of sorting every node by (level sum, index).
    #[test]
    fn nodes_by_level_sum_sort_as_the_sums_do() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(2413);
        for _ in 0..200 {
            let dims = rng.gen_range(1..7);
            let max: Vec<u8> = (0..dims).map(|_| rng.gen_range(0..5)).collect();
            let lattice = Lattice::new(max);
            let mut want: Vec<usize> = (0..lattice.size()).collect();
            want.sort_by_key(|&i| (level_sum(&lattice.levels(i)), i));
            assert_eq!(lattice.by_level_sum(), want);
        }
    }

    #[test]
    fn index_roundtrip_and_tree_covers_everything_once() {
        let l = Lattice::new(vec![1, 2, 0, 3]).with_tree_order(vec![2, 0, 3, 1]);
        assert_eq!(l.size(), 2 * 3 * 4);
        let mut seen = vec![0u32; l.size()];
        let mut stack = vec![l.bottom()];
        while let Some(n) = stack.pop() {
            assert_eq!(l.levels(l.index(&n)), n);
            seen[l.index(&n)] += 1;
            for (_, c) in l.tree_children(&n) {
                assert!(is_generalization(&c, &n));
                stack.push(c);
            }
        }
        assert!(seen.iter().all(|&s| s == 1));
    }

    #[test]
    fn upset_matches_brute_force() {
        let l = Lattice::new(vec![2, 1, 2]);
        let node = vec![1, 0, 1];
        let mut got = l.generalizations_of(&node);
        got.sort();
        let want: Vec<usize> = (0..l.size())
            .filter(|&i| is_generalization(&l.levels(i), &node))
            .collect();
        assert_eq!(got, want);
        let mut got = l.specializations_of(&node);
        got.sort();
        let want: Vec<usize> = (0..l.size())
            .filter(|&i| is_generalization(&node, &l.levels(i)))
            .collect();
        assert_eq!(got, want);
    }

    /// The blood-type poset of paper 000 (values < two incomparable splits < `*`) times a
    /// two-level chain.
    fn blood_lattice() -> Lattice {
        let blood = LevelOrder {
            refines: vec![
                vec![true, true, true, true],
                vec![false, true, false, true],
                vec![false, false, true, true],
                vec![false, false, false, true],
            ],
            covers: vec![vec![1, 2], vec![3], vec![3], vec![]],
        };
        let chain = LevelOrder {
            refines: vec![vec![true, true], vec![false, true]],
            covers: vec![vec![1], vec![]],
        };
        Lattice::new(vec![3, 1]).with_orders(vec![blood, chain])
    }

    #[test]
    fn poset_successors_are_direct_and_sets_follow_refinement() {
        let l = blood_lattice();
        assert!(!l.is_chain());
        assert_eq!(
            l.successors(&[0, 0]),
            vec![vec![1, 0], vec![2, 0], vec![0, 1]]
        );
        assert_eq!(l.successors(&[1, 1]), vec![vec![3, 1]]);
        assert_eq!(
            l.predecessors(&[3, 1]),
            vec![vec![1, 1], vec![2, 1], vec![3, 0]]
        );
        let up: Vec<Vec<u8>> = l
            .generalizations_of(&[1, 0])
            .into_iter()
            .map(|i| l.levels(i))
            .collect();
        assert_eq!(up, vec![vec![1, 0], vec![3, 0], vec![1, 1], vec![3, 1]]);
        let down: Vec<Vec<u8>> = l
            .specializations_of(&[2, 1])
            .into_iter()
            .map(|i| l.levels(i))
            .collect();
        assert_eq!(down, vec![vec![0, 0], vec![2, 0], vec![0, 1], vec![2, 1]]);
        let chain = l.chain_to_top(&[0, 0]);
        assert_eq!(chain.last().unwrap(), &l.top());
        for w in chain.windows(2) {
            assert!(l.successors(&w[0]).contains(&w[1]), "{chain:?}");
        }
        // a direct successor has nothing strictly between (brute force over the product)
        for i in 0..l.size() {
            let a = l.levels(i);
            let mut want: Vec<Vec<u8>> = (0..l.size())
                .map(|k| l.levels(k))
                .filter(|b| b != &a && l.generalizes(b, &a))
                .filter(|b| {
                    !(0..l.size())
                        .map(|k| l.levels(k))
                        .any(|c| &c != b && c != a && l.generalizes(&c, &a) && l.generalizes(b, &c))
                })
                .collect();
            let mut got = l.successors(&a);
            want.sort();
            got.sort();
            assert_eq!(got, want, "{a:?}");
        }
    }

    /// Flash's path climbs by direct successors through open nodes only, in tree order,
    /// and ends where no direct successor is open (checked on random up-sets).
    #[test]
    fn open_path_climbs_through_open_nodes_to_a_dead_end() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        for _ in 0..200 {
            let dims = rng.gen_range(1..5);
            let max: Vec<u8> = (0..dims).map(|_| rng.gen_range(0..4)).collect();
            let mut order: Vec<usize> = (0..dims).collect();
            order.sort_by_key(|_| rng.gen::<u32>());
            let l = Lattice::new(max.clone()).with_path_order(order.clone());
            // open: the nodes outside the up-set of a few random nodes
            let closed: Vec<Vec<u8>> = (0..rng.gen_range(0..3))
                .map(|_| l.levels(rng.gen_range(0..l.size())))
                .collect();
            let open = |i: usize| !closed.iter().any(|c| l.generalizes(&l.levels(i), c));
            let start = l.levels(rng.gen_range(0..l.size()));
            let path = l.open_path(&start, open);
            assert_eq!(path[0], start);
            for w in path.windows(2) {
                assert!(l.successors(&w[0]).contains(&w[1]), "{path:?}");
                assert!(open(l.index(&w[1])));
                // the attribute raised is the first in path order whose raise is open
                let raised = (0..dims).find(|&j| w[0][j] != w[1][j]).unwrap();
                for &j in order.iter().take_while(|&&j| j != raised) {
                    if w[0][j] < max[j] {
                        let mut other = w[0].clone();
                        other[j] += 1;
                        assert!(!open(l.index(&other)), "{path:?}");
                    }
                }
            }
            let end = path.last().unwrap();
            assert!(l.successors(end).iter().all(|s| !open(l.index(s))));
        }
    }
}
