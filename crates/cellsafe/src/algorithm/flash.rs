//! Flash's binary phase (ARX's `FLASHAlgorithmImpl.binarySearch`): how the optimal searches
//! settle whether a node is acceptable.
//!
//! From a node whose status is unknown, a binary search on Flash's path of open nodes above
//! it ([`Lattice::open_path`]) finds the lowest acceptable node on the path; an acceptable
//! node vouches for its up-set and an unacceptable one condemns its down-set. Each
//! unacceptable node the search evaluates puts its direct successors in a queue, and the
//! search goes on from them, in the caller's order, until the queue is empty. So the search
//! follows the border between unacceptable and acceptable nodes where it met it, and the
//! nodes it evaluates next lie near those just evaluated, whose classes the rollups start
//! from (docs/performance.md measures it against a binary search from each node alone).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::Status;
use crate::error::Result;
use crate::framework::lattice::Lattice;

/// Each node's place in an order of every node of a lattice, and the node at each place:
/// made once, and shared by the searches of a lattice's parts.
#[derive(Clone)]
pub(crate) struct Places {
    /// Each node's place, by lattice index.
    rank: Vec<u32>,
    /// The node at each place.
    at: Vec<u32>,
}

impl Places {
    /// The places of `order` (every lattice index once).
    pub(crate) fn new(order: impl ExactSizeIterator<Item = usize>) -> Places {
        let mut rank = vec![0u32; order.len()];
        let mut at = Vec::with_capacity(order.len());
        for (r, i) in order.enumerate() {
            rank[i] = r as u32;
            at.push(i as u32);
        }
        Places { rank, at }
    }

    /// The nodes in order.
    pub(crate) fn order(&self) -> impl ExactSizeIterator<Item = usize> + '_ {
        self.at.iter().map(|&i| i as usize)
    }
}

/// The queue of nodes to search from, ordered by each node's place in the caller's order.
pub(crate) struct Flash<'a> {
    places: std::borrow::Cow<'a, Places>,
    queue: BinaryHeap<Reverse<u32>>,
}

impl<'a> Flash<'a> {
    /// A queue for nodes taken in `order` (every lattice index once).
    pub(crate) fn new(order: impl ExactSizeIterator<Item = usize>) -> Flash<'static> {
        Flash {
            places: std::borrow::Cow::Owned(Places::new(order)),
            queue: BinaryHeap::new(),
        }
    }

    /// A queue for nodes taken in the order of `places`.
    pub(crate) fn with_places(places: &'a Places) -> Flash<'a> {
        Flash {
            places: std::borrow::Cow::Borrowed(places),
            queue: BinaryHeap::new(),
        }
    }

    /// Settles `start` (see the module docs). `open` says whether a node is still to be
    /// settled, given it, its place in the order and the statuses; `evaluate` evaluates a
    /// node and tags it and its up- or down-set in the statuses. Afterwards `start` is
    /// evaluated, or tagged unacceptable, or no longer open.
    pub(crate) fn settle(
        &mut self,
        lattice: &Lattice,
        start: usize,
        status: &mut [Status],
        open: impl Fn(usize, usize, &[Status]) -> bool,
        mut evaluate: impl FnMut(&[u8], &mut [Status]) -> Result<()>,
    ) -> Result<()> {
        let Places { rank, at } = &*self.places;
        self.queue.clear();
        self.queue.push(Reverse(rank[start]));
        while let Some(Reverse(r)) = self.queue.pop() {
            let head = at[r as usize] as usize;
            if !open(head, r as usize, status) {
                continue;
            }
            let path =
                lattice.open_path(&lattice.levels(head), |i| open(i, rank[i] as usize, status));
            // path[..lo] is unacceptable; path[hi..] is acceptable, no longer open, or past
            // the end
            let (mut lo, mut hi) = (0usize, path.len());
            while lo < hi {
                let mid = (lo + hi - 1) / 2;
                let m = lattice.index(&path[mid]);
                if !open(m, rank[m] as usize, status) {
                    // settled since the path was made (tagged acceptable, or ruled out by
                    // a bound): look below it
                    hi = mid;
                    continue;
                }
                evaluate(&path[mid], status)?;
                if status[m] == Status::Acceptable {
                    hi = mid;
                } else {
                    for successor in lattice.successors(&path[mid]) {
                        let s = lattice.index(&successor);
                        if open(s, rank[s] as usize, status) {
                            self.queue.push(Reverse(rank[s]));
                        }
                    }
                    lo = mid + 1;
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algorithm::optimal::tag_closure;
    use rand::{Rng, SeedableRng};

    /// On random lattices with a random monotone acceptability (the up-set of a few random
    /// nodes), settling every node in level-sum order evaluates each node at most once and
    /// only while its status is unknown, leaves every node settled, and every tag true.
    #[test]
    fn settles_every_node_truly_and_evaluates_each_once() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(33);
        for _ in 0..300 {
            let dims = rng.gen_range(1..5);
            let max: Vec<u8> = (0..dims).map(|_| rng.gen_range(0..4)).collect();
            let mut order: Vec<usize> = (0..dims).collect();
            order.sort_by_key(|_| rng.gen::<u32>());
            let lattice = Lattice::new(max).with_path_order(order);
            let minimal: Vec<Vec<u8>> = (0..rng.gen_range(0..4))
                .map(|_| lattice.levels(rng.gen_range(0..lattice.size())))
                .collect();
            let acceptable = |l: &[u8]| minimal.iter().any(|m| lattice.generalizes(l, m));
            let nodes = lattice.by_level_sum();
            let mut flash = Flash::new(nodes.iter().copied());
            let mut status = vec![Status::Unknown; lattice.size()];
            let mut evaluated = vec![0u32; lattice.size()];
            for &start in &nodes {
                if status[start] != Status::Unknown {
                    continue;
                }
                let open = |i: usize, _: usize, status: &[Status]| status[i] == Status::Unknown;
                flash
                    .settle(&lattice, start, &mut status, open, |l, status| {
                        let i = lattice.index(l);
                        assert_eq!(status[i], Status::Unknown, "{l:?} evaluated when settled");
                        evaluated[i] += 1;
                        let tag = if acceptable(l) {
                            Status::Acceptable
                        } else {
                            Status::Unacceptable
                        };
                        tag_closure(&lattice, status, l, tag);
                        Ok(())
                    })
                    .unwrap();
                assert_ne!(
                    status[start],
                    Status::Unknown,
                    "{:?}",
                    lattice.levels(start)
                );
            }
            for i in 0..lattice.size() {
                let l = lattice.levels(i);
                assert!(evaluated[i] <= 1, "{l:?}");
                let want = if acceptable(&l) {
                    Status::Acceptable
                } else {
                    Status::Unacceptable
                };
                assert!(status[i] == want, "{l:?}");
            }
        }
    }

    /// With some nodes closed for another reason (the up-set of a few random nodes, and the
    /// strict up-set of some nodes once evaluated, as a class bound rules nodes out during
    /// a search), only open nodes are evaluated, and after settling a node it is
    /// evaluated, tagged unacceptable, or closed; every node not closed ends settled and
    /// every tag is true.
    #[test]
    fn closed_nodes_are_never_evaluated_and_the_start_is_settled() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(34);
        let (mut closed_met, mut ruled_met) = (0, 0);
        for _ in 0..300 {
            let dims = rng.gen_range(1..5);
            let max: Vec<u8> = (0..dims).map(|_| rng.gen_range(0..4)).collect();
            let lattice = Lattice::new(max);
            let pick = |rng: &mut rand_chacha::ChaCha8Rng| -> Vec<Vec<u8>> {
                (0..rng.gen_range(0..4))
                    .map(|_| lattice.levels(rng.gen_range(0..lattice.size())))
                    .collect()
            };
            let (minimal, closing) = (pick(&mut rng), pick(&mut rng));
            let acceptable = |l: &[u8]| minimal.iter().any(|m| lattice.generalizes(l, m));
            let ruled = std::cell::RefCell::new(vec![false; lattice.size()]);
            let closed = |i: usize| {
                let l = lattice.levels(i);
                ruled.borrow()[i] || closing.iter().any(|c| lattice.generalizes(&l, c))
            };
            let nodes = lattice.by_level_sum();
            let mut flash = Flash::new(nodes.iter().copied());
            let mut status = vec![Status::Unknown; lattice.size()];
            let mut evaluated = vec![false; lattice.size()];
            let open =
                |i: usize, _: usize, status: &[Status]| status[i] == Status::Unknown && !closed(i);
            for &start in &nodes {
                if !open(start, 0, &status) {
                    closed_met += closed(start) as usize;
                    continue;
                }
                flash
                    .settle(&lattice, start, &mut status, open, |l, status| {
                        let i = lattice.index(l);
                        assert!(!closed(i), "{l:?} evaluated while closed");
                        assert!(!evaluated[i], "{l:?} evaluated twice");
                        evaluated[i] = true;
                        let tag = if acceptable(l) {
                            Status::Acceptable
                        } else {
                            Status::Unacceptable
                        };
                        tag_closure(&lattice, status, l, tag);
                        if i.is_multiple_of(3) {
                            let mut ruled = ruled.borrow_mut();
                            for g in lattice.generalizations_of(l) {
                                ruled[g] |= g != i;
                            }
                            ruled_met += 1;
                        }
                        Ok(())
                    })
                    .unwrap();
                assert!(
                    evaluated[start] || status[start] == Status::Unacceptable || closed(start),
                    "{:?}",
                    lattice.levels(start)
                );
            }
            for (i, &got) in status.iter().enumerate() {
                let l = lattice.levels(i);
                if got == Status::Unknown {
                    assert!(closed(i), "{l:?} left unknown");
                    continue;
                }
                let want = if acceptable(&l) {
                    Status::Acceptable
                } else {
                    Status::Unacceptable
                };
                assert!(got == want, "{l:?}");
            }
        }
        assert!(
            closed_met > 100 && ruled_met > 50,
            "{closed_met} {ruled_met}"
        );
    }
}
