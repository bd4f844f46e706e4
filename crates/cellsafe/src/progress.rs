//! How far long work has got, for front ends that show it (the CLI draws a bar with an
//! ETA). The library only reports: a long operation starts a *stage* with its total, moves
//! its position forward, and finishes it; a [`Progress`] decides what to do with that.
//!
//! Operations take `Option<&dyn Progress>` (`None`: report nothing; [`Silent`] does the same
//! as a value). Searches count from several threads, so they go through a [`Stage`], which
//! hands positions to the `Progress` in order: within a stage they never decrease and never
//! pass the total, and every started stage is finished, also on errors.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

/// Receives the stages of long work and their positions. Calls come from one thread at a
/// time, though not always the same one.
pub trait Progress: Sync {
    /// A stage begins, of `total` units if known (see the stage names below for units).
    fn start(&self, stage: &str, total: Option<u64>) {
        let _ = (stage, total);
    }
    /// Units of the current stage done so far: never decreasing, at most the total.
    fn set(&self, position: u64) {
        let _ = position;
    }
    /// The current stage is over.
    fn finish(&self) {}
}

/// Reports nothing.
#[derive(Debug, Clone, Copy, Default)]
pub struct Silent;

impl Progress for Silent {}

/// Reading the input CSV; units: bytes (total: the file's size).
pub const LOADING: &str = "loading";
/// A lattice search; units: nodes settled, i.e. evaluated or, for the searches that infer,
/// known acceptable or not (total: the lattice's size).
pub const SEARCH: &str = "search";
/// The genetic search; units: generations, the initial population included.
pub const GENETIC: &str = "genetic";
/// The genetic search's exhaustive comparison; units: nodes (total: the lattice's size).
pub const OPTIMUM: &str = "optimum";
/// The set-based goal-directed search; units: rounds (total: the most rounds allowed).
pub const SET_BASED: &str = "set-based";
/// A disclosure strategy; units: generalizations decided (total: the chain's length).
pub const DISCLOSE: &str = "disclose";
/// The level-based safety test; units: rows checked.
pub const SAFETY: &str = "safety";

/// One stage of work, counted from any thread (see the module docs). Finishes the stage
/// when dropped.
pub struct Stage<'a> {
    progress: Option<&'a dyn Progress>,
    total: Option<u64>,
    count: AtomicU64,
    /// The last position handed on; the lock keeps positions in order.
    reported: Mutex<u64>,
}

impl<'a> Stage<'a> {
    /// Starts stage `name` of `total` units on `progress`.
    pub fn start(progress: Option<&'a dyn Progress>, name: &str, total: Option<u64>) -> Stage<'a> {
        if let Some(p) = progress {
            p.start(name, total);
        }
        Stage {
            progress,
            total,
            count: AtomicU64::new(0),
            reported: Mutex::new(0),
        }
    }

    /// `n` more units are done.
    pub fn add(&self, n: u64) {
        if self.progress.is_some() && n > 0 {
            self.count.fetch_add(n, Ordering::Relaxed);
            self.report(false);
        }
    }

    /// `position` units are done (a position behind the current one is ignored).
    pub fn set(&self, position: u64) {
        if self.progress.is_some() {
            self.count.fetch_max(position, Ordering::Relaxed);
            self.report(false);
        }
    }

    /// Hands the count on if it moved. Busy threads skip it (another one is reporting)
    /// unless `wait`.
    fn report(&self, wait: bool) {
        let Some(p) = self.progress else { return };
        let mut last = if wait {
            match self.reported.lock() {
                Ok(guard) => guard,
                Err(poisoned) => poisoned.into_inner(),
            }
        } else {
            match self.reported.try_lock() {
                Ok(guard) => guard,
                Err(_) => return,
            }
        };
        let now = self.count.load(Ordering::Relaxed);
        let now = self.total.map_or(now, |t| now.min(t));
        if now > *last {
            *last = now;
            p.set(now);
        }
    }
}

impl Drop for Stage<'_> {
    fn drop(&mut self) {
        if let Some(p) = self.progress {
            self.report(true);
            p.finish();
        }
    }
}

/// A reader that reports the bytes read through it to a [`Stage`].
pub struct Reader<'s, 'a, R> {
    inner: R,
    stage: &'s Stage<'a>,
}

impl<'s, 'a, R> Reader<'s, 'a, R> {
    pub fn new(inner: R, stage: &'s Stage<'a>) -> Self {
        Reader { inner, stage }
    }
}

impl<R: std::io::Read> std::io::Read for Reader<'_, '_, R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.stage.add(n as u64);
        Ok(n)
    }
}
