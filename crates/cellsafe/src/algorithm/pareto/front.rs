//! Pareto dominance over objective vectors, the exact front, and the box archive of paper
//! 003 (section 5, Algorithm 1).
//!
//! Vectors here are *oriented*: every objective is to be maximized (a loss enters negated),
//! so "better" is "larger" everywhere.

use std::cmp::Ordering;

/// `a` dominates `b`: no worse in every objective and better in one (paper 003, section
/// 4.2).
pub fn dominates(a: &[f64], b: &[f64]) -> bool {
    let mut better = false;
    for (x, y) in a.iter().zip(b) {
        match x.partial_cmp(y) {
            Some(Ordering::Less) | None => return false,
            Some(Ordering::Greater) => better = true,
            Some(Ordering::Equal) => {}
        }
    }
    better
}

/// The indices of the vectors no other vector dominates (the minimal PBGs of paper 003,
/// Definition 4), in increasing order. Equal vectors are all kept.
pub fn non_dominated(points: &[Vec<f64>]) -> Vec<usize> {
    // sorted by the first objective, best first: only an earlier point (or an equal one)
    // can dominate a later one
    let mut order: Vec<usize> = (0..points.len()).collect();
    order.sort_by(|&a, &b| points[b][0].total_cmp(&points[a][0]).then(a.cmp(&b)));
    let mut front: Vec<usize> = Vec::new();
    for &i in &order {
        if !front.iter().any(|&f| dominates(&points[f], &points[i])) {
            front.retain(|&f| !dominates(&points[i], &points[f]));
            front.push(i);
        }
    }
    front.sort_unstable();
    front
}

/// The box of an oriented vector: `⌊v_i / ε_i⌋` per objective.
pub fn box_of(values: &[f64], eps: &[f64]) -> Vec<i64> {
    values
        .iter()
        .zip(eps)
        .map(|(v, e)| (v / e).floor() as i64)
        .collect()
}

/// Dominance between boxes (integer vectors), as [`dominates`].
fn box_dominates(a: &[i64], b: &[i64]) -> bool {
    a.iter().zip(b).all(|(x, y)| x >= y) && a != b
}

/// Box dominance `⪰_box`: between different boxes, the boxes' dominance; within one box,
/// the vectors'.
pub fn box_dominates_values(a: &[f64], b: &[f64], eps: &[f64]) -> bool {
    let (ba, bb) = (box_of(a, eps), box_of(b, eps));
    if ba != bb {
        box_dominates(&ba, &bb)
    } else {
        dominates(a, b)
    }
}

/// One archived solution: an item (a lattice node, say) and its oriented vector.
#[derive(Debug, Clone, PartialEq)]
pub struct Member<T> {
    /// The solution.
    pub item: T,
    /// Its oriented objective values.
    pub values: Vec<f64>,
    cell: Vec<i64>,
}

/// The archive of Algorithm 1: at most one solution per non-dominated box. Theorem 1: it
/// holds only minimal PBGs of everything offered to it; Theorem 2 bounds its size.
#[derive(Debug, Clone)]
pub struct BoxArchive<T> {
    eps: Vec<f64>,
    members: Vec<Member<T>>,
}

impl<T: Clone> BoxArchive<T> {
    /// An empty archive with discretization vector `eps` (every entry positive).
    pub fn new(eps: Vec<f64>) -> BoxArchive<T> {
        BoxArchive {
            eps,
            members: Vec::new(),
        }
    }

    /// Algorithm 1: offers `item` with oriented `values`; returns whether it was kept.
    pub fn offer(&mut self, item: T, values: Vec<f64>) -> bool {
        let cell = box_of(&values, &self.eps);
        let beats = |m: &Member<T>| -> bool {
            if m.cell != cell {
                box_dominates(&cell, &m.cell)
            } else {
                dominates(&values, &m.values)
            }
        };
        // steps 2–3: drop the members the candidate box-dominates
        self.members.retain(|m| !beats(m));
        // steps 4–6: keep it unless a member box-dominates it or holds its box
        let beaten = self.members.iter().any(|m| {
            if m.cell != cell {
                box_dominates(&m.cell, &cell)
            } else {
                true
            }
        });
        if beaten {
            return false;
        }
        self.members.push(Member { item, values, cell });
        true
    }

    /// The archived solutions, in the order they came in.
    pub fn members(&self) -> &[Member<T>] {
        &self.members
    }

    /// Number of solutions held.
    pub fn len(&self) -> usize {
        self.members.len()
    }

    /// Whether it holds nothing.
    pub fn is_empty(&self) -> bool {
        self.members.is_empty()
    }

    /// The discretization vector.
    pub fn eps(&self) -> &[f64] {
        &self.eps
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use proptest::prelude::*;

    use super::*;

    /// Points in (0, K]^r on a coarse grid, so that ties and shared boxes are common.
    fn points() -> impl Strategy<Value = (Vec<Vec<f64>>, Vec<f64>, Vec<f64>)> {
        (2usize..4).prop_flat_map(|r| {
            (
                prop::collection::vec(prop::collection::vec(1u32..=12, r), 1..40),
                prop::collection::vec(prop::sample::select(vec![0.5, 1.0, 2.0, 3.0]), r),
            )
                .prop_map(move |(raw, eps)| {
                    let pts = raw
                        .into_iter()
                        .map(|p| p.into_iter().map(|x| x as f64 * 0.5).collect())
                        .collect();
                    (pts, eps, vec![6.0; r])
                })
        })
    }

    #[test]
    fn dominance_as_defined() {
        assert!(dominates(&[2.0, 1.0], &[1.0, 1.0]));
        assert!(!dominates(&[1.0, 1.0], &[1.0, 1.0]));
        assert!(!dominates(&[2.0, 0.0], &[1.0, 1.0]));
        assert!(!dominates(&[1.0, 1.0], &[2.0, 0.0]));
        assert_eq!(
            non_dominated(&[
                vec![1.0, 3.0],
                vec![2.0, 2.0],
                vec![1.0, 2.0],
                vec![2.0, 2.0]
            ]),
            vec![0, 1, 3]
        );
    }

    /// Theorem 2 as printed (the product of the r − 1 largest K_i / ε_i) misses the box
    /// that holds the upper bound K itself: three mutually non-dominated boxes in (0, 2]²
    /// with ε = 1, where the printed bound is 2.
    #[test]
    fn theorem_2_as_printed_undercounts_the_top_box() {
        let mut archive = BoxArchive::new(vec![1.0, 1.0]);
        for p in [[0.5, 2.0], [1.5, 1.5], [2.0, 0.5]] {
            assert!(archive.offer(p, p.to_vec()));
        }
        assert_eq!(archive.len(), 3);
        let printed: f64 = 2.0 / 1.0;
        let corrected: f64 = (2.0f64 / 1.0).floor() + 1.0;
        assert!(archive.len() as f64 > printed);
        assert!(archive.len() as f64 <= corrected);
    }

    proptest! {
        #[test]
        fn non_dominated_is_the_brute_force_front((pts, _, _) in points()) {
            let want: Vec<usize> = (0..pts.len())
                .filter(|&i| !pts.iter().any(|q| dominates(q, &pts[i])))
                .collect();
            prop_assert_eq!(non_dominated(&pts), want);
        }

        /// Theorem 1, the occupied boxes against brute force, one member per box, and
        /// Theorem 2's bound, for points offered in any order.
        #[test]
        fn box_archive_theorems((pts, eps, k) in points(), seed in any::<u64>()) {
            let mut order: Vec<usize> = (0..pts.len()).collect();
            // a seeded shuffle without a RNG crate in scope: sort by a hash of the index
            order.sort_by_key(|&i| (i as u64 ^ seed).wrapping_mul(0x9E37_79B9_7F4A_7C15));
            let mut archive = BoxArchive::new(eps.clone());
            for &i in &order {
                archive.offer(i, pts[i].clone());
            }
            // Theorem 1: only minimal PBGs of everything offered
            for m in archive.members() {
                prop_assert!(!pts.iter().any(|q| dominates(q, &m.values)));
            }
            // exactly the non-dominated boxes are occupied, each by one member
            let boxes: BTreeSet<Vec<i64>> = pts.iter().map(|p| box_of(p, &eps)).collect();
            let want: BTreeSet<Vec<i64>> = boxes
                .iter()
                .filter(|b| !boxes.iter().any(|c| box_dominates(c, b)))
                .cloned()
                .collect();
            let got: Vec<Vec<i64>> = archive.members().iter().map(|m| box_of(&m.values, &eps)).collect();
            let got_set: BTreeSet<Vec<i64>> = got.iter().cloned().collect();
            prop_assert_eq!(got.len(), got_set.len());
            prop_assert_eq!(got_set, want);
            // Theorem 2, corrected (docs/errata.md): the product of the r − 1 largest
            // ⌊K_i / ε_i⌋ + 1, the box indices a value in (0, K_i] can take
            let mut b: Vec<f64> = k.iter().zip(&eps).map(|(k, e)| (k / e).floor() + 1.0).collect();
            b.sort_by(|x, y| y.total_cmp(x));
            let bound: f64 = b[..b.len() - 1].iter().product();
            prop_assert!(archive.len() as f64 <= bound, "{} > {}", archive.len(), bound);
        }
    }
}
