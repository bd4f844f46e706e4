//! Mondrian (LeFevre, DeWitt and Ramakrishnan, 2006): top-down median partitioning.
//!
//! A group is split on the attribute whose values in it span the widest share of the
//! attribute's whole range (numbers: the width of their interval over the data's range;
//! categorical values: how many distinct values over how many the data has; ties go to the
//! earlier attribute). The cut is at the median: with the rows ordered by that attribute
//! (see [`Domain`]), the median is the value at position ⌊(n − 1) / 2⌋. The strict rule
//! sends every row with a value up to the median left, the others right; the relaxed rule
//! sends the first ⌊n / 2⌋ rows left, sharing the median's rows out. A cut is allowed when
//! both halves satisfy every privacy model; when it is not, the next widest attribute is
//! tried, and a group no attribute can cut is final. Each final group therefore holds every
//! model on its own rows, whatever the models are (monotonic or not).

use super::value::{Domain, Kind};
use super::{check_models, holds, LocalSpec, Mode, Partition};
use crate::algorithm::problem::Problem;
use crate::error::Result;
use crate::framework::dataset::QuasiIdentifier;
use crate::observer::{Observer, Stage, LOCAL};

/// Partitions `problem`'s rows by Mondrian. `None` when the whole table, as one group,
/// fails a model (nothing can be released).
pub fn mondrian(
    problem: &Problem,
    spec: &LocalSpec,
    observer: &dyn Observer,
) -> Result<Option<Partition>> {
    problem.data.unweighted("local recoding (Mondrian)")?;
    check_models(problem)?;
    let quasi = &problem.data.quasi;
    let domains: Vec<Domain> = quasi.iter().map(Domain::new).collect();
    let n = problem.data.rows();
    let all: Vec<u32> = (0..n as u32).collect();
    let allowed = |rows: &[u32]| holds(problem, rows, &mut Vec::new());
    if !allowed(&all) {
        return Ok(None);
    }
    let splitter = Splitter {
        quasi,
        domains: &domains,
        dims: (0..quasi.len()).collect(),
        mode: spec.mode,
        allowed: &allowed,
    };
    let stage = Stage::start(observer, LOCAL, Some(n as u64));
    let mut groups = splitter.partition(all, &stage)?;
    groups.sort_unstable_by_key(|g| g[0]);
    Ok(Some(Partition { groups }))
}

/// Groups of at least this many rows have their halves partitioned in parallel.
const PARALLEL_ROWS: usize = 20_000;

/// Mondrian over some attributes with a test of which groups are allowed: the engine of
/// [`mondrian`] and of paper 004's LGB_MDP (within one QI-partition subset).
pub(crate) struct Splitter<'a> {
    /// Every attribute that could be cut, with its domain.
    pub(crate) quasi: &'a [QuasiIdentifier],
    pub(crate) domains: &'a [Domain],
    /// The attributes this partition may cut.
    pub(crate) dims: Vec<usize>,
    pub(crate) mode: Mode,
    /// Whether a group of these rows may be released (both halves of a cut must be).
    pub(crate) allowed: &'a (dyn Fn(&[u32]) -> bool + Sync),
}

impl Splitter<'_> {
    /// The final groups of `rows` (which must be allowed), counted on `stage`: large
    /// groups' halves in parallel, small ones depth-first on this thread.
    pub(crate) fn partition(&self, rows: Vec<u32>, stage: &Stage<'_>) -> Result<Vec<Vec<u32>>> {
        let mut groups = Vec::new();
        let mut scratch = Scratch::new(self.quasi);
        let mut stack = vec![rows];
        while let Some(rows) = stack.pop() {
            stage.check()?;
            match self.split(&rows, &mut scratch) {
                Some((left, right)) if rows.len() >= PARALLEL_ROWS => {
                    let (a, b) = rayon::join(
                        || self.partition(left, stage),
                        || self.partition(right, stage),
                    );
                    groups.extend(a?);
                    groups.extend(b?);
                }
                Some((left, right)) => {
                    stack.push(right);
                    stack.push(left);
                }
                None => {
                    stage.add(rows.len() as u64);
                    groups.push(rows);
                }
            }
        }
        Ok(groups)
    }

    /// The allowed cut of `rows` on the widest attribute that has one.
    fn split(&self, rows: &[u32], scratch: &mut Scratch) -> Option<(Vec<u32>, Vec<u32>)> {
        if rows.len() < 2 {
            return None;
        }
        scratch.stamp = scratch.stamp.wrapping_add(1);
        if scratch.stamp == 0 {
            // the stamps wrapped: clear them so that no stale stamp matches
            for s in &mut scratch.stamps {
                s.fill(0);
            }
            scratch.stamp = 1;
        }
        let mut widths: Vec<(f64, usize)> = self
            .dims
            .iter()
            .map(|&j| {
                let (q, d) = (&self.quasi[j], &self.domains[j]);
                (width(q, d, rows, &mut scratch.stamps[j], scratch.stamp), j)
            })
            .filter(|(w, _)| *w > 0.0)
            .collect();
        widths.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        widths.into_iter().find_map(|(_, j)| {
            cut(&self.quasi[j], &self.domains[j], rows, self.mode)
                .filter(|(left, right)| (self.allowed)(left) && (self.allowed)(right))
        })
    }
}

/// Reused buffers: per attribute a stamp per leaf for counting distinct values.
struct Scratch {
    stamps: Vec<Vec<u32>>,
    stamp: u32,
}

impl Scratch {
    fn new(quasi: &[QuasiIdentifier]) -> Scratch {
        Scratch {
            stamps: quasi
                .iter()
                .map(|q| vec![0; q.hierarchy.leaf_count()])
                .collect(),
            stamp: 0,
        }
    }
}

/// The share of attribute `j`'s range that `rows` span (see the module docs).
fn width(
    q: &QuasiIdentifier,
    domain: &Domain,
    rows: &[u32],
    stamps: &mut [u32],
    stamp: u32,
) -> f64 {
    match domain.kind {
        Kind::Numeric => {
            let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
            for &r in rows {
                let v = domain.number(q.leaves[r as usize]);
                lo = lo.min(v);
                hi = hi.max(v);
            }
            if domain.range() > 0.0 {
                (hi - lo) / domain.range()
            } else {
                0.0
            }
        }
        Kind::Hierarchy | Kind::Set => {
            let mut distinct = 0usize;
            for &r in rows {
                let s = &mut stamps[q.leaves[r as usize] as usize];
                if *s != stamp {
                    *s = stamp;
                    distinct += 1;
                }
            }
            if distinct <= 1 {
                0.0
            } else {
                distinct as f64 / domain.present() as f64
            }
        }
    }
}

/// The median cut of `rows` on one attribute, both halves in row order; `None` when one
/// half would be empty.
pub(crate) fn cut(
    q: &QuasiIdentifier,
    domain: &Domain,
    rows: &[u32],
    mode: Mode,
) -> Option<(Vec<u32>, Vec<u32>)> {
    let rank = |r: u32| domain.rank[q.leaves[r as usize] as usize];
    let mut ranks: Vec<u32> = rows.iter().map(|&r| rank(r)).collect();
    let position = (rows.len() - 1) / 2;
    let median = *ranks.select_nth_unstable(position).1;
    let (mut left, mut right) = (Vec::new(), Vec::new());
    match mode {
        Mode::Strict => {
            for &r in rows {
                if rank(r) <= median {
                    left.push(r);
                } else {
                    right.push(r);
                }
            }
        }
        Mode::Relaxed => {
            let target = rows.len() / 2;
            let below = ranks.iter().filter(|&&x| x < median).count();
            let mut shared = target - below;
            for &r in rows {
                let x = rank(r);
                if x < median || (x == median && shared > 0) {
                    if x == median {
                        shared -= 1;
                    }
                    left.push(r);
                } else {
                    right.push(r);
                }
            }
        }
    }
    (!left.is_empty() && !right.is_empty()).then_some((left, right))
}
