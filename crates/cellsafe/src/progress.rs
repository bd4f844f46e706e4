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

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// What a [`Progress`] was told.
    #[derive(Debug, Clone, PartialEq)]
    pub enum Event {
        Start(String, Option<u64>),
        Set(u64),
        Finish,
    }

    /// Records every call.
    #[derive(Default)]
    pub struct Recorder(pub Mutex<Vec<Event>>);

    impl Progress for Recorder {
        fn start(&self, stage: &str, total: Option<u64>) {
            self.0
                .lock()
                .unwrap()
                .push(Event::Start(stage.into(), total));
        }
        fn set(&self, position: u64) {
            self.0.lock().unwrap().push(Event::Set(position));
        }
        fn finish(&self) {
            self.0.lock().unwrap().push(Event::Finish);
        }
    }

    impl Recorder {
        /// The stages seen, each with its total and positions, after checking that stages
        /// do not nest, every one finishes, and positions rise and stay within the total.
        pub fn stages(&self) -> Vec<(String, Option<u64>, Vec<u64>)> {
            let mut out: Vec<(String, Option<u64>, Vec<u64>)> = Vec::new();
            let mut open = false;
            for e in self.0.lock().unwrap().iter() {
                match e {
                    Event::Start(name, total) => {
                        assert!(!open, "{name} starts inside another stage");
                        open = true;
                        out.push((name.clone(), *total, Vec::new()));
                    }
                    Event::Set(p) => {
                        assert!(open, "position {p} outside a stage");
                        let (name, total, positions) = out.last_mut().unwrap();
                        assert!(
                            positions.last().is_none_or(|last| last < p),
                            "{name}: {p} after {positions:?}"
                        );
                        assert!(total.is_none_or(|t| *p <= t), "{name}: {p} > {total:?}");
                        positions.push(*p);
                    }
                    Event::Finish => {
                        assert!(open, "finish outside a stage");
                        open = false;
                    }
                }
            }
            assert!(!open, "a stage never finished");
            out
        }
    }

    #[test]
    fn stages_report_in_order_from_many_threads() {
        use rayon::prelude::*;
        let recorder = Recorder::default();
        {
            let stage = Stage::start(Some(&recorder), SEARCH, Some(1000));
            (0..2000).into_par_iter().for_each(|_| stage.add(1));
            stage.set(10);
        }
        let stages = recorder.stages();
        assert_eq!(stages.len(), 1);
        assert_eq!(
            stages[0].2.last(),
            Some(&1000),
            "the end is reported, capped"
        );
        // nothing at all without a Progress
        let stage = Stage::start(None, SEARCH, Some(3));
        stage.add(5);
    }

    fn example(name: &str) -> crate::job::config::Config {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../examples/papers")
            .join(name);
        crate::job::config::Config::from_file(&path).unwrap()
    }

    /// Every long operation on the paper examples: positions rise within their totals,
    /// stages finish, loading counts the input's bytes, and the searches that settle every
    /// node end at the lattice's size.
    #[test]
    fn operations_report_rising_positions_within_their_totals() {
        use crate::algorithm::{self, Algorithm};
        let config = example("linking8.toml");
        let input = config.resolve(&config.input.path);
        let bytes = std::fs::metadata(&input).unwrap().len();
        let recorder = Recorder::default();
        let problem = config.problem_with_progress(Some(&recorder)).unwrap();
        let size = problem.lattice.size() as u64;
        assert_eq!(
            recorder.stages(),
            [(LOADING.to_owned(), Some(bytes), vec![bytes])]
        );
        for algorithm in [
            Algorithm::Exhaustive,
            Algorithm::Optimal,
            Algorithm::Minimal,
            Algorithm::MinimalBfs,
            Algorithm::MinimalInference,
        ] {
            let recorder = Recorder::default();
            algorithm::run(&problem, algorithm, Some(&recorder));
            let stages = recorder.stages();
            assert_eq!(stages.len(), 1, "{algorithm:?}");
            let (name, total, positions) = &stages[0];
            assert_eq!(
                (name.as_str(), *total),
                (SEARCH, Some(size)),
                "{algorithm:?}"
            );
            if algorithm != Algorithm::Optimal {
                assert_eq!(positions.last(), Some(&size), "{algorithm:?}");
            }
        }
        let recorder = Recorder::default();
        algorithm::best_first(&problem, Some(&recorder));
        algorithm::optimal_walk(&problem, Some(&recorder));
        assert_eq!(recorder.stages().len(), 2);

        let recorder = Recorder::default();
        let spec = algorithm::genetic::GeneticSpec {
            generations: 5,
            ..Default::default()
        };
        algorithm::genetic::genetic_with_optimum_and_progress(&problem, &spec, Some(&recorder))
            .unwrap();
        let stages = recorder.stages();
        assert_eq!(stages[0], (GENETIC.to_owned(), Some(6), (1..=6).collect()));
        assert_eq!((stages[1].0.as_str(), stages[1].1), (OPTIMUM, Some(size)));
        assert_eq!(stages[1].2.last(), Some(&size));

        let recorder = Recorder::default();
        crate::algorithm::safety::test_with_progress(&problem, &[1, 3, 0], 10, Some(&recorder))
            .unwrap();
        let rows = problem.data.rows() as u64;
        assert_eq!(
            recorder.stages(),
            [(SAFETY.to_owned(), Some(rows), vec![rows])]
        );

        let config = example("linking8-setbased.toml");
        let problem = config.problem().unwrap();
        let recorder = Recorder::default();
        crate::algorithm::setbased::run_with_progress(
            &problem,
            &config.search.set_based,
            Some(&recorder),
        )
        .unwrap();
        let stages = recorder.stages();
        let names: Vec<&str> = stages.iter().map(|s| s.0.as_str()).collect();
        assert_eq!(names, [SET_BASED, SEARCH]);

        let config = example("zhang08-table6.toml");
        let (disclosure, options) = crate::job::disclosure::from_config(&config).unwrap();
        let recorder = Recorder::default();
        let decision = disclosure
            .decide_with_progress(
                crate::algorithm::disclosure::Strategy::Exclusive,
                &options,
                Some(&recorder),
            )
            .unwrap();
        let steps = decision.steps.len() as u64;
        let stages = recorder.stages();
        assert_eq!(stages[0].0, DISCLOSE);
        assert_eq!(stages[0].2, (1..=steps).collect::<Vec<_>>());
    }
}
