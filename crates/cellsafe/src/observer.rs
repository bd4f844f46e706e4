//! Watching and stopping long work, for front ends. The library only reports and asks: a
//! long operation starts a *stage* with its total, moves its position forward, finishes it,
//! and keeps asking whether it should stop; an [`Observer`] decides what to show and when
//! to say stop.
//!
//! Every long operation takes a `&dyn Observer` ([`Silent`]: report nothing, never stop).
//! Searches count from several threads, so they go through a `Stage`, which hands
//! positions to the observer in order: within a stage they never decrease and never pass
//! the total, and every started stage is finished, also on errors and cancellation.
//!
//! **Cancellation.** Each long operation asks [`Observer::cancelled`] at least every few
//! milliseconds of work (once per lattice node, generation, round, disclosure table batch,
//! block of rows or buffer of input) and, once it answers `true`, stops and returns
//! [`Error::Cancelled`]: never a partial result. [`Cancel`] is a ready-made flag that another
//! thread (a signal handler, a server's request handler) sets; wrap an observer that draws
//! progress in [`Cancellable`] to give it one.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use crate::error::{Error, Result};

/// Receives the stages of long work and their positions, and says whether to stop.
/// Progress calls come from one thread at a time, though not always the same one.
pub trait Observer: Sync {
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
    /// Whether the work should stop. Asked often and from any thread, so it must be cheap
    /// (an atomic load); once it has answered `true` it should keep doing so.
    fn cancelled(&self) -> bool {
        false
    }
}

/// Reports nothing and never cancels.
#[derive(Debug, Clone, Copy, Default)]
pub struct Silent;

impl Observer for Silent {}

/// A cancellation flag shared between the work and whoever may stop it: clones share the
/// flag. As an [`Observer`] it reports nothing and is cancelled once [`cancel`] was called.
///
/// [`cancel`]: Cancel::cancel
#[derive(Debug, Clone, Default)]
pub struct Cancel(Arc<AtomicBool>);

impl Cancel {
    /// A flag not yet set.
    pub fn new() -> Cancel {
        Cancel::default()
    }
    /// Asks the work to stop (from any thread, also a signal handler's).
    pub fn cancel(&self) {
        self.0.store(true, Ordering::SeqCst);
    }
    /// Whether [`cancel`](Self::cancel) was called.
    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}

impl Observer for Cancel {
    fn cancelled(&self) -> bool {
        self.is_cancelled()
    }
}

/// An observer that reports through `inner` and is cancelled when `inner` is or `cancel`
/// was set.
#[derive(Debug, Clone, Default)]
pub struct Cancellable<O> {
    /// The observer progress is reported to.
    pub inner: O,
    /// The flag that cancels the work when set.
    pub cancel: Cancel,
}

impl<O: Observer> Observer for Cancellable<O> {
    fn start(&self, stage: &str, total: Option<u64>) {
        self.inner.start(stage, total);
    }
    fn set(&self, position: u64) {
        self.inner.set(position);
    }
    fn finish(&self) {
        self.inner.finish();
    }
    fn cancelled(&self) -> bool {
        self.cancel.is_cancelled() || self.inner.cancelled()
    }
}

/// Reading the input; units: bytes of a CSV file (total: the file's size), rows of a
/// columnar one (total: its row count, when the file says).
pub const LOADING: &str = "loading";
/// A lattice search; units: nodes settled, i.e. evaluated or, for the searches that infer,
/// known acceptable or not (total: the lattice's size).
pub const SEARCH: &str = "search";
/// The genetic searches (the single-objective one and PBG-EA); units: generations, the
/// initial population included.
pub const GENETIC: &str = "genetic";
/// The genetic search's exhaustive comparison, when asked for; units: nodes (total: the
/// lattice's size).
pub const OPTIMUM: &str = "optimum";
/// The set-based goal-directed search; units: rounds (total: the most rounds allowed).
pub const SET_BASED: &str = "set-based";
/// A disclosure strategy; units: generalizations decided (total: the chain's length).
pub const DISCLOSE: &str = "disclose";
/// The level-based safety test; units: rows checked.
pub const SAFETY: &str = "safety";
/// Local recoding (Mondrian); units: rows placed in their final group (total: the rows).
pub const LOCAL: &str = "local";
/// Writing the release into a database table and reading it back; units: rows (total:
/// twice the released rows).
pub const WRITING: &str = "writing";

/// One stage of work, counted and checked for cancellation from any thread (see the module
/// docs). Finishes the stage when dropped.
pub(crate) struct Stage<'a> {
    observer: &'a dyn Observer,
    total: Option<u64>,
    count: AtomicU64,
    /// The last position handed on; the lock keeps positions in order.
    reported: Mutex<u64>,
    /// The observer said stop: remembered, so that it is asked no more and every thread
    /// of the stage sees it with one load.
    cancelled: AtomicBool,
}

impl<'a> Stage<'a> {
    /// Starts stage `name` of `total` units on `observer`.
    pub(crate) fn start(observer: &'a dyn Observer, name: &str, total: Option<u64>) -> Stage<'a> {
        observer.start(name, total);
        Stage {
            observer,
            total,
            count: AtomicU64::new(0),
            reported: Mutex::new(0),
            cancelled: AtomicBool::new(false),
        }
    }

    /// `n` more units are done.
    pub(crate) fn add(&self, n: u64) {
        if n > 0 {
            self.count.fetch_add(n, Ordering::Relaxed);
            self.report(false);
        }
    }

    /// `position` units are done (a position behind the current one is ignored).
    pub(crate) fn set(&self, position: u64) {
        self.count.fetch_max(position, Ordering::Relaxed);
        self.report(false);
    }

    /// Whether the work should stop: asks the observer until it says so, then answers
    /// `true` from memory (one atomic load).
    pub(crate) fn cancelled(&self) -> bool {
        if self.cancelled.load(Ordering::Relaxed) {
            return true;
        }
        if self.observer.cancelled() {
            self.cancelled.store(true, Ordering::Relaxed);
            return true;
        }
        false
    }

    /// `Err(Error::Cancelled)` if the work should stop (see [`cancelled`](Self::cancelled)).
    pub(crate) fn check(&self) -> Result<()> {
        if self.cancelled() {
            return Err(Error::Cancelled);
        }
        Ok(())
    }

    /// Whether [`cancelled`](Self::cancelled) has answered `true`, without asking the
    /// observer again: for work that stopped early to tell why.
    pub(crate) fn was_cancelled(&self) -> bool {
        self.cancelled.load(Ordering::Relaxed)
    }

    /// `Err(Error::Cancelled)` if [`was_cancelled`](Self::was_cancelled).
    pub(crate) fn check_stopped(&self) -> Result<()> {
        if self.was_cancelled() {
            return Err(Error::Cancelled);
        }
        Ok(())
    }

    /// Hands the count on if it moved. Busy threads skip it (another one is reporting)
    /// unless `wait`.
    fn report(&self, wait: bool) {
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
            self.observer.set(now);
        }
    }
}

impl Drop for Stage<'_> {
    fn drop(&mut self) {
        self.report(true);
        self.observer.finish();
    }
}

/// A reader that reports the bytes read through it to a [`Stage`] and fails once the
/// stage is cancelled (the caller then returns [`Error::Cancelled`]: see
/// [`Stage::was_cancelled`]).
pub(crate) struct Reader<'s, 'a, R> {
    inner: R,
    stage: &'s Stage<'a>,
}

impl<'s, 'a, R> Reader<'s, 'a, R> {
    /// Wraps `inner`, reporting to `stage`.
    pub(crate) fn new(inner: R, stage: &'s Stage<'a>) -> Self {
        Reader { inner, stage }
    }
}

impl<R: std::io::Read> std::io::Read for Reader<'_, '_, R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.stage.cancelled() {
            return Err(std::io::Error::other("cancelled"));
        }
        let n = self.inner.read(buf)?;
        self.stage.add(n as u64);
        Ok(n)
    }
}

/// One call an [`Observer`] received.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// [`Observer::start`]: a stage and its total.
    Start(String, Option<u64>),
    /// [`Observer::set`]: a position.
    Set(u64),
    /// [`Observer::finish`].
    Finish,
}

/// An observer that records every call, in order (for tests, logs and replays); it never
/// cancels.
#[derive(Debug, Default)]
pub struct Recorder(Mutex<Vec<Event>>);

impl Recorder {
    /// The calls received so far.
    pub fn events(&self) -> Vec<Event> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
    fn push(&self, e: Event) {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).push(e);
    }
}

impl Observer for Recorder {
    fn start(&self, stage: &str, total: Option<u64>) {
        self.push(Event::Start(stage.into(), total));
    }
    fn set(&self, position: u64) {
        self.push(Event::Set(position));
    }
    fn finish(&self) {
        self.push(Event::Finish);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stages_report_in_order_from_many_threads() {
        use rayon::prelude::*;
        let recorder = Recorder::default();
        {
            let stage = Stage::start(&recorder, SEARCH, Some(1000));
            (0..2000).into_par_iter().for_each(|_| stage.add(1));
            stage.set(10);
        }
        let events = recorder.events();
        assert_eq!(events[0], Event::Start(SEARCH.into(), Some(1000)));
        assert_eq!(events.last(), Some(&Event::Finish));
        let positions: Vec<u64> = events
            .iter()
            .filter_map(|e| match e {
                Event::Set(p) => Some(*p),
                _ => None,
            })
            .collect();
        assert!(positions.windows(2).all(|w| w[0] < w[1]), "{positions:?}");
        assert_eq!(positions.last(), Some(&1000), "the end is reported, capped");
        // nothing at all to a silent observer, and no cancellation
        let stage = Stage::start(&Silent, SEARCH, Some(3));
        stage.add(5);
        assert!(stage.check().is_ok());
    }

    /// The stage asks the observer until it says stop, then remembers; a cancelled reader
    /// fails.
    #[test]
    fn a_stage_remembers_cancellation() {
        use std::io::Read;
        struct Asked(AtomicU64, Cancel);
        impl Observer for Asked {
            fn cancelled(&self) -> bool {
                self.0.fetch_add(1, Ordering::Relaxed);
                self.1.cancelled()
            }
        }
        let asked = Asked(AtomicU64::new(0), Cancel::new());
        let stage = Stage::start(&asked, LOADING, None);
        let mut buf = [0u8; 4];
        let mut reader = Reader::new(&b"abcdefgh"[..], &stage);
        assert_eq!(reader.read(&mut buf).unwrap(), 4);
        assert!(stage.check().is_ok() && !stage.was_cancelled());
        asked.1.clone().cancel();
        assert!(matches!(stage.check(), Err(Error::Cancelled)));
        assert!(stage.was_cancelled() && stage.cancelled());
        assert!(reader.read(&mut buf).is_err());
        assert_eq!(
            asked.0.load(Ordering::Relaxed),
            3,
            "asked no more once cancelled"
        );
        let both = Cancellable {
            inner: Silent,
            cancel: Cancel::new(),
        };
        assert!(!both.cancelled());
        both.cancel.cancel();
        assert!(both.cancelled());
    }
}
