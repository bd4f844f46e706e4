//! The progress a library operation reports: stages in order from many threads, and every
//! long operation on the paper examples (positions rise within their totals, stages finish).

use std::sync::Mutex;

use cellsafe::progress::{
    Progress, Stage, DISCLOSE, GENETIC, LOADING, OPTIMUM, SAFETY, SEARCH, SET_BASED,
};

/// What a [`Progress`] was told.
#[derive(Debug, Clone, PartialEq)]
enum Event {
    Start(String, Option<u64>),
    Set(u64),
    Finish,
}

/// Records every call.
#[derive(Default)]
struct Recorder(Mutex<Vec<Event>>);

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
    fn stages(&self) -> Vec<(String, Option<u64>, Vec<u64>)> {
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

fn example(name: &str) -> cellsafe::job::config::Config {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/papers")
        .join(name);
    cellsafe::job::config::Config::from_file(&path).unwrap()
}

/// Every long operation on the paper examples: positions rise within their totals,
/// stages finish, loading counts the input's bytes, and the searches that settle every
/// node end at the lattice's size.
#[test]
fn operations_report_rising_positions_within_their_totals() {
    use cellsafe::algorithm::{self, Algorithm};
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
        compare_with_optimum: true,
        ..Default::default()
    };
    algorithm::genetic::genetic_with_optimum_and_progress(&problem, &spec, Some(&recorder))
        .unwrap();
    let stages = recorder.stages();
    assert_eq!(stages[0], (GENETIC.to_owned(), Some(6), (1..=6).collect()));
    assert_eq!((stages[1].0.as_str(), stages[1].1), (OPTIMUM, Some(size)));
    assert_eq!(stages[1].2.last(), Some(&size));

    let recorder = Recorder::default();
    cellsafe::algorithm::safety::test_with_progress(&problem, &[1, 3, 0], 10, Some(&recorder))
        .unwrap();
    let rows = problem.data.rows() as u64;
    assert_eq!(
        recorder.stages(),
        [(SAFETY.to_owned(), Some(rows), vec![rows])]
    );

    let config = example("linking8-setbased.toml");
    let problem = config.problem().unwrap();
    let recorder = Recorder::default();
    cellsafe::algorithm::setbased::run_with_progress(
        &problem,
        &config.search.set_based,
        Some(&recorder),
    )
    .unwrap();
    let stages = recorder.stages();
    let names: Vec<&str> = stages.iter().map(|s| s.0.as_str()).collect();
    assert_eq!(names, [SET_BASED, SEARCH]);

    let config = example("zhang08-table6.toml");
    let (disclosure, options) = cellsafe::job::disclosure::from_config(&config).unwrap();
    let recorder = Recorder::default();
    let decision = disclosure
        .decide_with_progress(
            cellsafe::algorithm::disclosure::Strategy::Exclusive,
            &options,
            Some(&recorder),
        )
        .unwrap();
    let steps = decision.steps.len() as u64;
    let stages = recorder.stages();
    assert_eq!(stages[0].0, DISCLOSE);
    assert_eq!(stages[0].2, (1..=steps).collect::<Vec<_>>());
}
