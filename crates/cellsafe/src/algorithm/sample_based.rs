//! The risk-based models' enforcement, as ARX does it (`HashGroupifyDistribution`): after
//! the class-based models, the classes still released are ordered smallest first (ties by
//! the metric's loss of the class where the metric has one per class, then by the class's
//! first row), and a binary search finds how many of them to suppress, in that order, for
//! each risk-based model to hold.
//!
//! As in ARX, a class whose every quasi-identifier reads `*` is not in the distribution
//! the models judge, and its rows do not count as suppressed.

use std::cmp::Ordering;
use std::collections::BTreeMap;

use super::problem::Problem;
use crate::framework::classes::Classes;
use crate::risk::Histogram;

/// The sizes of the classes released so far.
#[derive(Default)]
struct Distribution {
    sizes: BTreeMap<u64, u64>,
}

impl Distribution {
    fn add(&mut self, size: u64) {
        *self.sizes.entry(size).or_default() += 1;
    }
    fn remove(&mut self, size: u64) {
        if let Some(n) = self.sizes.get_mut(&size) {
            *n -= 1;
            if *n == 0 {
                self.sizes.remove(&size);
            }
        }
    }
    fn histogram(&self) -> Histogram {
        let records = self.sizes.iter().map(|(s, n)| s * n).sum();
        let classes = self.sizes.values().sum();
        Histogram {
            sizes: self.sizes.iter().map(|(&s, &n)| (s, n)).collect(),
            records,
            classes,
        }
    }
}

#[derive(PartialEq)]
enum State {
    Fulfilled,
    NotFulfilled,
    Abort,
}

impl Problem {
    /// Enforces the risk-based models on the classes of `levels` that `suppressed` leaves
    /// released, marking the classes it suppresses; returns the rows counted as suppressed
    /// (ARX's count), or None when there is no risk-based model.
    pub(crate) fn enforce_sample_based(
        &self,
        levels: &[u8],
        classes: &Classes,
        suppressed: &mut [bool],
    ) -> Option<u64> {
        let models: Vec<_> = self
            .models
            .iter()
            .filter_map(|m| m.sample_based())
            .collect();
        if models.is_empty() {
            return None;
        }
        let hierarchies = self.hierarchies();
        let codes = |c: usize| -> Vec<u32> {
            (0..levels.len())
                .map(|j| {
                    let leaf = self.snapshot.leaf(j, classes.reps()[c]);
                    hierarchies[j].code(levels[j] as usize, leaf)
                })
                .collect()
        };
        let starred = |c: usize| {
            codes(c)
                .iter()
                .enumerate()
                .all(|(j, &g)| hierarchies[j].label(levels[j] as usize, g) == "*")
        };
        let mut internal = 0u64;
        let mut entries: Vec<usize> = Vec::new();
        let mut distribution = Distribution::default();
        for (c, &gone) in suppressed.iter().enumerate() {
            let count = classes.counts[c] as u64;
            let complete = starred(c);
            if !gone && count > 0 && !complete {
                distribution.add(count);
                entries.push(c);
            } else if !complete {
                internal += count;
            }
        }
        // smallest first; ties by the metric's loss of the class, then by its first row
        let mut first_row = vec![u32::MAX; classes.len()];
        for (r, &c) in self
            .snapshot
            .row_classes(&hierarchies, classes, levels)
            .iter()
            .enumerate()
        {
            let f = &mut first_row[c as usize];
            *f = (*f).min(r as u32);
        }
        let loss: Vec<Option<crate::metric::Score>> = entries
            .iter()
            .map(|&c| self.metric.class_loss(levels, &codes(c), classes.counts[c]))
            .collect();
        let mut order: Vec<usize> = (0..entries.len()).collect();
        order.sort_by(|&a, &b| {
            let (ca, cb) = (entries[a], entries[b]);
            classes.counts[ca]
                .cmp(&classes.counts[cb])
                .then_with(|| match (&loss[a], &loss[b]) {
                    (Some(x), Some(y)) => compare_scores(x, y),
                    _ => Ordering::Equal,
                })
                .then_with(|| first_row[ca].cmp(&first_row[cb]))
        });
        let entries: Vec<usize> = order.into_iter().map(|i| entries[i]).collect();
        let size = |i: usize| classes.counts[entries[i]] as u64;
        let mut out = vec![false; entries.len()];
        let limit = self.max_suppressed;
        for model in models {
            if model.fulfilled(&distribution.histogram()) {
                continue;
            }
            let suppress = |i: usize, out: &mut Vec<bool>, d: &mut Distribution, n: &mut u64| {
                if !out[i] {
                    out[i] = true;
                    d.remove(size(i));
                    *n += size(i);
                }
            };
            let condition = |d: &Distribution, n: u64| {
                let fulfilled = model.fulfilled(&d.histogram());
                if !fulfilled && n > limit {
                    State::Abort
                } else if fulfilled {
                    State::Fulfilled
                } else {
                    State::NotFulfilled
                }
            };
            if entries.is_empty() {
                continue;
            }
            // ARX's binary search (int arithmetic, division truncating toward zero)
            let len = entries.len() as isize;
            let (mut low, mut high) = (0isize, len - 1);
            let mut mid = (low + high) / 2;
            let mut state = State::Abort;
            for i in low..=mid {
                suppress(i as usize, &mut out, &mut distribution, &mut internal);
            }
            while low <= high {
                state = condition(&distribution, internal);
                match state {
                    State::Abort => break,
                    State::Fulfilled => {
                        high = mid - 1;
                        mid = (low + high) / 2;
                        let mut i = mid + 1;
                        while i < len && out[i as usize] {
                            out[i as usize] = false;
                            distribution.add(size(i as usize));
                            internal -= size(i as usize);
                            i += 1;
                        }
                    }
                    State::NotFulfilled => {
                        low = mid + 1;
                        mid = (low + high) / 2;
                        for i in low..=mid {
                            suppress(i as usize, &mut out, &mut distribution, &mut internal);
                        }
                    }
                }
            }
            if state != State::Abort {
                state = condition(&distribution, internal);
                let next = mid + 1;
                if state == State::NotFulfilled && next < len && !out[next as usize] {
                    suppress(next as usize, &mut out, &mut distribution, &mut internal);
                }
            }
        }
        for (i, &s) in out.iter().enumerate() {
            if s {
                suppressed[entries[i]] = true;
            }
        }
        Some(internal)
    }
}

/// ARX's order of information losses: the aggregate, or for the rank aggregate the sorted
/// values in turn.
fn compare_scores(a: &crate::metric::Score, b: &crate::metric::Score) -> Ordering {
    match (&a.rank, &b.rank) {
        (Some(x), Some(y)) => x
            .iter()
            .zip(y)
            .map(|(p, q)| p.total_cmp(q))
            .find(|o| *o != Ordering::Equal)
            .unwrap_or(Ordering::Equal),
        _ => a.value.total_cmp(&b.value),
    }
}
