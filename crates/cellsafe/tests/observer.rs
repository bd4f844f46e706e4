//! Observers on the paper examples: every long operation reports rising positions within
//! its totals, and stops with `Error::Cancelled` (never a partial result) when its observer
//! says so, wherever that happens.

use crate::common;

use std::sync::atomic::{AtomicU64, Ordering};

use cellsafe::algorithm::disclosure::{
    Check, CheckSpec, Disclosure, MethodChoice, Options, Strategy,
};
use cellsafe::algorithm::genetic::{genetic_report, GeneticSpec};
use cellsafe::algorithm::pareto::ea::{pbg_ea, EaSpec};
use cellsafe::algorithm::pareto::exact_front;
use cellsafe::algorithm::pareto::objective::{Evaluator, Index, Objective, Property};
use cellsafe::algorithm::problem::Problem;
use cellsafe::algorithm::{self, Algorithm};
use cellsafe::data::table::Table;
use cellsafe::error::ProblemError;
use cellsafe::job::config::Config;
use cellsafe::observer::{
    Cancel, Event, Observer, Recorder, Silent, DISCLOSE, GENETIC, LOADING, OPTIMUM, SAFETY, SEARCH,
    SET_BASED,
};
use cellsafe::{Error, Result};
use cellsafe_bench::synth::nested_disclosure;

/// The stages `recorder` saw, each with its total and positions, after checking that
/// stages do not nest, every one finishes, and positions rise and stay within the total.
fn stages_of(recorder: &Recorder) -> Vec<(String, Option<u64>, Vec<u64>)> {
    let mut out: Vec<(String, Option<u64>, Vec<u64>)> = Vec::new();
    let mut open = false;
    for e in recorder.events().iter() {
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

fn example(name: &str) -> Config {
    Config::from_file(&common::examples().join("papers").join(name)).unwrap()
}

const ALGORITHMS: [Algorithm; 6] = [
    Algorithm::Exhaustive,
    Algorithm::Optimal,
    Algorithm::Minimal,
    Algorithm::MinimalBfs,
    Algorithm::MinimalInference,
    Algorithm::Genetic,
];

/// Every long operation on the paper examples: positions rise within their totals,
/// stages finish, loading counts the input's bytes, and the searches that settle every
/// node end at the lattice's size.
#[test]
fn operations_report_rising_positions_within_their_totals() {
    let config = example("linking8.toml");
    let input = config.resolve(&config.input.path);
    let bytes = std::fs::metadata(&input).unwrap().len();
    let recorder = Recorder::default();
    let problem = config.problem_observed(&recorder).unwrap();
    let size = problem.lattice.size() as u64;
    assert_eq!(
        stages_of(&recorder),
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
        algorithm::run(&problem, algorithm, &GeneticSpec::default(), &recorder).unwrap();
        let stages = stages_of(&recorder);
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
    algorithm::best_first(&problem, &recorder).unwrap();
    algorithm::optimal_walk(&problem, &recorder).unwrap();
    assert_eq!(stages_of(&recorder).len(), 2);

    // the genetic search, and its comparison with the optimum when asked for
    let spec = GeneticSpec {
        generations: 5,
        ..Default::default()
    };
    let recorder = Recorder::default();
    genetic_report(&problem, &spec, &recorder).unwrap();
    let stages = stages_of(&recorder);
    assert_eq!(stages, [(GENETIC.to_owned(), Some(6), (1..=6).collect())]);
    let compare = GeneticSpec {
        compare_with_optimum: true,
        ..spec
    };
    let recorder = Recorder::default();
    genetic_report(&problem, &compare, &recorder).unwrap();
    let stages = stages_of(&recorder);
    assert_eq!(stages[0], (GENETIC.to_owned(), Some(6), (1..=6).collect()));
    assert_eq!((stages[1].0.as_str(), stages[1].1), (OPTIMUM, Some(size)));
    assert_eq!(stages[1].2.last(), Some(&size));

    // PBG-EA counts generations, the exact front nodes
    let evaluator = Evaluator::new(&problem, &pareto_objectives(), 1).unwrap();
    let ea = EaSpec {
        iterations: 4,
        population: 6,
        ..Default::default()
    };
    let recorder = Recorder::default();
    pbg_ea(&problem, &evaluator, &ea, &recorder).unwrap();
    assert_eq!(
        stages_of(&recorder),
        [(GENETIC.to_owned(), Some(5), (1..=5).collect())]
    );
    let recorder = Recorder::default();
    exact_front(&problem, &evaluator, &recorder).unwrap();
    let stages = stages_of(&recorder);
    assert_eq!((stages[0].0.as_str(), stages[0].1), (SEARCH, Some(size)));
    assert_eq!(stages[0].2.last(), Some(&size));

    let recorder = Recorder::default();
    algorithm::safety::test_observed(&problem, &[1, 3, 0], 10, &recorder).unwrap();
    let rows = problem.data.rows() as u64;
    assert_eq!(
        stages_of(&recorder),
        [(SAFETY.to_owned(), Some(rows), vec![rows])]
    );

    let config = example("linking8-setbased.toml");
    let problem = config.problem().unwrap();
    let recorder = Recorder::default();
    algorithm::setbased::run_observed(&problem, &config.search.set_based, &recorder).unwrap();
    let stages = stages_of(&recorder);
    let names: Vec<&str> = stages.iter().map(|s| s.0.as_str()).collect();
    assert_eq!(names, [SET_BASED, SEARCH]);

    let config = example("zhang08-table6.toml");
    let (disclosure, options) = cellsafe::job::disclosure::from_config(&config).unwrap();
    let recorder = Recorder::default();
    let decision = disclosure
        .decide_observed(Strategy::Exclusive, &options, &recorder)
        .unwrap();
    let steps = decision.steps.len() as u64;
    let stages = stages_of(&recorder);
    assert_eq!(stages[0].0, DISCLOSE);
    assert_eq!(stages[0].2, (1..=steps).collect::<Vec<_>>());
}

/// Two objectives for the Pareto searches: worst-case k and the summed general loss.
fn pareto_objectives() -> Vec<Objective> {
    vec![
        Objective::Property {
            property: Property::ClassSize,
            index: Index::Min,
        },
        Objective::Property {
            property: Property::Glm,
            index: Index::Sum,
        },
    ]
}

/// Says stop from its question number `after + 1` on, and counts the questions.
struct StopAfter {
    after: u64,
    asked: AtomicU64,
}

impl StopAfter {
    fn new(after: u64) -> StopAfter {
        StopAfter {
            after,
            asked: AtomicU64::new(0),
        }
    }
    fn asked(&self) -> u64 {
        self.asked.load(Ordering::SeqCst)
    }
}

impl Observer for StopAfter {
    fn cancelled(&self) -> bool {
        self.asked.fetch_add(1, Ordering::SeqCst) >= self.after
    }
}

/// Runs `work` to the end with an observer that never stops, counting how often it asks;
/// then requires `Err(Error::Cancelled)`, and nothing else, from observers that say stop
/// at its first question, halfway, and at its last one (on one thread, where the
/// questions come in the same order every run), and from a flag set beforehand and a
/// stop at the first question on every thread.
/// Reading the input asks whether to stop before it reads, and a read stopped so ends in
/// [`Error::Cancelled`], not in an I/O error.
#[test]
fn loading_stops_when_cancelled() {
    let config = example("linking8.toml");
    let cancel = Cancel::new();
    cancel.cancel();
    let result = config.problem_observed(&cancel).map(drop);
    assert!(matches!(result, Err(Error::Cancelled)), "{result:?}");
}

fn stops_wherever_cancelled(name: &str, work: impl Fn(&dyn Observer) -> Result<()> + Sync) {
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    one.install(|| {
        let never = StopAfter::new(u64::MAX);
        work(&never).unwrap_or_else(|e| panic!("{name}: {e}"));
        let asked = never.asked();
        assert!(asked > 0, "{name} never asks whether to stop");
        for after in [0, asked / 2, asked - 1] {
            let observer = StopAfter::new(after);
            let result = work(&observer);
            assert!(
                matches!(result, Err(Error::Cancelled)),
                "{name}, stopped at question {} of {asked}: {result:?}",
                after + 1
            );
        }
    });
    let cancel = Cancel::new();
    cancel.cancel();
    let result = work(&cancel);
    assert!(
        matches!(result, Err(Error::Cancelled)),
        "{name}, cancelled beforehand: {result:?}"
    );
    let result = work(&StopAfter::new(0));
    assert!(
        matches!(result, Err(Error::Cancelled)),
        "{name}, on every thread: {result:?}"
    );
}

/// A lattice search, through the `Search` each algorithm is.
fn searched(problem: &Problem, algorithm: Algorithm, observer: &dyn Observer) -> Result<()> {
    let spec = GeneticSpec {
        generations: 5,
        compare_with_optimum: true,
        ..Default::default()
    };
    let search = algorithm.node_search(&spec).expect("a node search");
    search.search(problem, observer).map(drop)
}

#[test]
fn every_search_stops_when_cancelled() {
    // linking8: chains, monotonic models and a class-free bound (optimal runs best-first)
    let problem = example("linking8.toml").problem().unwrap();
    for algorithm in ALGORITHMS {
        stops_wherever_cancelled(&format!("{algorithm:?}"), |o| {
            searched(&problem, algorithm, o)
        });
    }
    stops_wherever_cancelled("best_first", |o| {
        algorithm::best_first(&problem, o).map(drop)
    });
    stops_wherever_cancelled("optimal_walk", |o| {
        algorithm::optimal_walk(&problem, o).map(drop)
    });
    stops_wherever_cancelled("exhaustive", |o| {
        algorithm::exhaustive(&problem, o).map(drop)
    });
    stops_wherever_cancelled("tagging", |o| {
        algorithm::tagging::bottom_up(&problem, o).map(drop)
    });
    let evaluator = Evaluator::new(&problem, &pareto_objectives(), 1).unwrap();
    stops_wherever_cancelled("pbg_ea", |o| {
        pbg_ea(&problem, &evaluator, &EaSpec::default(), o).map(drop)
    });
    stops_wherever_cancelled("exact_front", |o| {
        exact_front(&problem, &evaluator, o).map(drop)
    });
    // the same under DM, which bounds by classes only: optimal runs the tagging search
    let mut config = example("linking8.toml");
    config.metric.name = cellsafe::metric::MetricKind::Discernibility;
    let dm = config.problem().unwrap();
    stops_wherever_cancelled("optimal under DM", |o| searched(&dm, Algorithm::Optimal, o));
    // blood: partitions that do not nest (every node from the base)
    let problem = example("blood.toml").problem().unwrap();
    for algorithm in ALGORITHMS {
        stops_wherever_cancelled(&format!("{algorithm:?} over partitions"), |o| {
            searched(&problem, algorithm, o)
        });
    }
}

#[test]
fn set_based_search_stops_when_cancelled() {
    let config = example("linking8-setbased.toml");
    let problem = config.problem().unwrap();
    let spec = &config.search.set_based;
    stops_wherever_cancelled("set-based", |o| {
        algorithm::setbased::run_observed(&problem, spec, o).map(drop)
    });
    stops_wherever_cancelled("goal-directed", |o| {
        let mut table = algorithm::setbased::SetTable::new(&problem, &spec.families())?;
        algorithm::setbased::goal_directed_observed(&mut table, spec.max_rounds, o).map(drop)
    });
    // not a node search: the dispatch says so instead of running another search
    let err = algorithm::run(
        &problem,
        Algorithm::SetBased,
        &GeneticSpec::default(),
        &Silent,
    )
    .unwrap_err();
    assert!(
        matches!(err, Error::Problem(ProblemError::NotANodeSearch(_))),
        "{err}"
    );
    assert!(Algorithm::SetBased
        .node_search(&GeneticSpec::default())
        .is_none());
}

#[test]
fn the_safety_test_and_loading_stop_when_cancelled() {
    let config = example("linking8.toml");
    let problem = config.problem().unwrap();
    stops_wherever_cancelled("safety test", |o| {
        algorithm::safety::test_observed(&problem, &[1, 3, 0], 10, o).map(drop)
    });
    let path = config.resolve(&config.input.path);
    let format = config.csv_format().unwrap();
    stops_wherever_cancelled("loading", |o| {
        Table::read_csv_observed(&path, &format, o).map(drop)
    });
    stops_wherever_cancelled("problem", |o| config.problem_observed(o).map(drop));
}

/// Both strategies with every method, on the paper's table 6 and on nested instances
/// large enough for each method's own checks (enumeration, counting and estimation ask
/// as they go, not only between generalizations).
#[test]
fn disclosure_strategies_stop_when_cancelled() {
    use MethodChoice::{Auto, Counting, Enumeration, Estimate};
    let config = example("zhang08-table6.toml");
    let (table6, _) = cellsafe::job::disclosure::from_config(&config).unwrap();
    let two_two = Check::bind(&CheckSpec::RecursiveCl { c: 2.0, l: 2 }).unwrap();
    let nested = nested_disclosure(1, 2, 1, two_two).unwrap();
    // every earlier generalization fails, so counting reaches the third one's groups
    let at_most = Check::bind(&CheckSpec::MaxProbability { p: 0.3 }).unwrap();
    let counted = nested_disclosure(2, 5, 1, at_most).unwrap();
    let all = [Auto, Enumeration, Counting, Estimate];
    let instances: [(&str, &Disclosure, &[MethodChoice]); 3] = [
        ("table 6", &table6, &all),
        ("nested", &nested, &all),
        ("nested, counted", &counted, &[Counting, Estimate]),
    ];
    let mut decided = 0;
    for (name, d, methods) in instances {
        for strategy in [Strategy::Exclusive, Strategy::Inclusive] {
            for &method in methods {
                let options = Options {
                    method,
                    samples: 5_000,
                    ..Options::default()
                };
                if d.decide(strategy, &options).is_err() {
                    continue; // a method that does not apply here
                }
                decided += 1;
                stops_wherever_cancelled(&format!("{name} {strategy:?} {method:?}"), |o| {
                    d.decide_observed(strategy, &options, o).map(drop)
                });
            }
        }
    }
    assert!(decided >= 12, "only {decided} combinations apply");
}

/// A cancelled job writes nothing: no table, report or mapping, no temporary or lock file.
/// The jobs: a minimal search, the set-based search, and a public search judged by the
/// exclusive strategy (`[disclose]`).
#[test]
fn a_cancelled_job_writes_nothing() {
    let table6 = common::examples().join("papers/zhang08-table6.csv");
    let public = format!(
        "[input]\npath = {:?}\n[attributes]\nName = {{ role = \"identifying\" }}\n\
         Age = {{ role = \"quasi-identifying\", hierarchy = {{ kind = \"intervals\", widths = [10] }} }}\n\
         Condition = {{ role = \"sensitive\" }}\n[[privacy]]\nmodel = \"k-anonymity\"\nk = 2\n\
         [disclose]\ncheck = {{ type = \"recursive-cl\", c = 2, l = 2 }}\n",
        table6.to_str().unwrap()
    );
    let public = Config::parse(&public, &common::examples().join("papers/public.toml")).unwrap();
    assert!(public.disclose.is_some());
    let jobs = [
        ("linking8.toml", example("linking8.toml")),
        ("linking8-setbased.toml", example("linking8-setbased.toml")),
        ("public search", public),
    ];
    for (name, config) in jobs {
        stops_wherever_cancelled(name, |o| {
            let dir = tempfile::tempdir().unwrap();
            let outputs = cellsafe::job::Outputs {
                table: Some(dir.path().join("out.csv")),
                report: Some(dir.path().join("report.json")),
                mapping: Some(dir.path().join("map.csv")),
            };
            let result = cellsafe::job::anonymize(&config, &outputs, o);
            let left: Vec<String> = std::fs::read_dir(dir.path())
                .unwrap()
                .map(|e| e.unwrap().file_name().into_string().unwrap())
                .collect();
            match &result {
                Ok(report) if report.found => assert_eq!(left.len(), 3, "{name}: {left:?}"),
                Ok(_) => assert_eq!(left, ["report.json"], "{name}"),
                Err(_) => assert_eq!(left, Vec::<String>::new(), "{name}: no file"),
            }
            result.map(drop)
        });
    }
}

/// The in-memory API stops too.
#[test]
fn the_in_memory_api_stops_when_cancelled() {
    use cellsafe::{Anonymizer, Builder, ModelSpec};
    let header = ["age", "zip", "disease"].map(String::from).to_vec();
    let rows: Vec<Vec<String>> = (0..40)
        .map(|i| {
            vec![
                (20 + i % 30).to_string(),
                format!("1300{}", i % 5),
                format!("d{}", i % 3),
            ]
        })
        .collect();
    let table = Table::from_rows(header, &rows).unwrap();
    stops_wherever_cancelled("anonymizer", |o| {
        Anonymizer::new(&table)
            .quasi_identifier("age", Builder::intervals(&[5.0, 10.0, 20.0]))
            .quasi_identifier("zip", Builder::mask())
            .sensitive("disease")
            .model(ModelSpec::KAnonymity { k: 5 })
            .seed(7)
            .observer(o)
            .run()
            .map(drop)
    });
}

/// The dispatch runs what is configured: the genetic search with the given parameters
/// (not the defaults), and the optimum only when asked for.
#[test]
fn the_dispatch_runs_the_configured_genetic_search() {
    let problem = example("linking8.toml").problem().unwrap();
    let spec = GeneticSpec {
        population: 4,
        generations: 3,
        seed: 11,
        ..Default::default()
    };
    for compare in [false, true] {
        let spec = GeneticSpec {
            compare_with_optimum: compare,
            ..spec.clone()
        };
        let outcome = algorithm::run(&problem, Algorithm::Genetic, &spec, &Silent).unwrap();
        let report = outcome.genetic.expect("the genetic report");
        assert_eq!((report.outcome.generations, report.outcome.seed), (3, 11));
        assert_eq!(report.outcome.history.len(), 4);
        assert_eq!(report.compared_with_optimum, compare);
        assert_eq!(report.optimum_fitness.is_some(), compare);
        let direct = genetic_report(&problem, &spec, &Silent).unwrap();
        assert_eq!(direct.outcome.levels, report.outcome.levels);
    }
}

/// The threads a job's stages start on.
#[derive(Default)]
struct StartedOn(std::sync::Mutex<Vec<std::thread::ThreadId>>);

impl Observer for StartedOn {
    fn start(&self, _: &str, _: Option<u64>) {
        self.0.lock().unwrap().push(std::thread::current().id());
    }
}

/// `job::on_this_thread` runs the job on the calling thread (its stages start there, where
/// a job called plainly runs in a pool of its own) and releases the same bytes, with one
/// thread and with two.
#[test]
fn a_job_on_this_thread_runs_there_and_releases_the_same() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("in.csv");
    let mut text = String::from("age,zip,disease\n");
    for i in 0..300u32 {
        let mix = i.wrapping_mul(2_654_435_761);
        text += &format!("{},{},d{}\n", 20 + mix % 47, 13_000 + mix % 23, mix % 5);
    }
    std::fs::write(&csv, text).unwrap();
    for threads in [1, 2] {
        let toml = format!(
            "[input]\npath = {:?}\n[attributes]\n\
             age = {{ role = \"quasi-identifying\", hierarchy = {{ kind = \"intervals\", widths = [5, 10, 20] }} }}\n\
             zip = {{ role = \"quasi-identifying\", hierarchy = {{ kind = \"mask\" }} }}\n\
             disease = {{ role = \"sensitive\" }}\n[[privacy]]\nmodel = \"k-anonymity\"\nk = 4\n\
             [output]\nseed = 7\n[search]\nthreads = {threads}\n",
            csv.to_str().unwrap()
        );
        let config = Config::parse(&toml, &dir.path().join("job.toml")).unwrap();
        let run = |name: &str, observer: &StartedOn, here: bool| {
            let outputs = cellsafe::job::Outputs {
                table: Some(dir.path().join(format!("{name}.csv"))),
                report: None,
                mapping: None,
            };
            let report = if here {
                cellsafe::job::on_this_thread(&config, || {
                    cellsafe::job::anonymize(&config, &outputs, observer)
                })
                .unwrap()
            } else {
                cellsafe::job::anonymize(&config, &outputs, observer)
            };
            assert!(report.unwrap().found, "{name}");
            std::fs::read(dir.path().join(format!("{name}.csv"))).unwrap()
        };
        // each on a fresh thread: a thread stays in the pool it was made part of
        std::thread::scope(|scope| {
            scope.spawn(|| {
                let me = std::thread::current().id();
                let (plain, here) = (StartedOn::default(), StartedOn::default());
                let released = run(&format!("plain{threads}"), &plain, false);
                let released_here = run(&format!("here{threads}"), &here, true);
                // twice: the thread's pool is kept and used again
                let again = StartedOn::default();
                let released_again = run(&format!("again{threads}"), &again, true);
                let [plain, here, again] = [plain, here, again].map(|s| s.0.into_inner().unwrap());
                assert!(
                    !plain.is_empty() && plain.iter().all(|t| *t != me),
                    "{threads}"
                );
                assert!(
                    !here.is_empty() && here.iter().all(|t| *t == me),
                    "{threads}"
                );
                assert!(
                    !again.is_empty() && again.iter().all(|t| *t == me),
                    "{threads}"
                );
                assert_eq!(released, released_here, "{threads} threads");
                assert_eq!(released, released_again, "{threads} threads");
            });
        });
    }
}

/// `job::on_this_thread` refuses too many threads before making a pool of them (the
/// job's own check came too late: 100,000 threads exhausted memory first).
#[test]
fn on_this_thread_refuses_too_many_threads_before_making_them() {
    let dir = tempfile::tempdir().unwrap();
    let toml = "[input]\npath = \"in.csv\"\n[attributes]\nage = { role = \"quasi-identifying\", hierarchy = { kind = \"mask\" } }\n[[privacy]]\nmodel = \"k-anonymity\"\nk = 2\n[search]\nthreads = 100000\n";
    let config = Config::parse(toml, &dir.path().join("job.toml")).unwrap();
    std::thread::scope(|scope| {
        scope.spawn(|| {
            let ran = std::sync::atomic::AtomicBool::new(false);
            let result =
                cellsafe::job::on_this_thread(&config, || ran.store(true, Ordering::SeqCst));
            let message = result.unwrap_err().to_string();
            assert!(message.contains("search.threads"), "{message}");
            assert!(!ran.load(Ordering::SeqCst));
        });
    });
}

/// A DM job (the bottom-up search, which cuts the lattice into parts on more than one
/// thread) releases the same bytes and reports the same levels and score on one, two and
/// three threads; on the same number of threads, twice, it evaluates the same nodes.
#[test]
fn a_dm_job_releases_the_same_on_one_two_and_three_threads() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("in.csv");
    let mut text = String::from("age,zip,sex,job,disease\n");
    for i in 0..600u32 {
        let mix = i.wrapping_mul(2_654_435_761);
        text += &format!(
            "{},{},{},j{},d{}\n",
            20 + mix % 47,
            13_000 + (mix >> 7) % 23,
            ["f", "m"][(mix >> 3) as usize % 2],
            (mix >> 11) % 9,
            mix % 5
        );
    }
    std::fs::write(&csv, text).unwrap();
    let run = |threads: usize, name: &str| {
        let toml = format!(
            "suppression_limit = 0.02\n[input]\npath = {:?}\n[attributes]\n\
             age = {{ role = \"quasi-identifying\", hierarchy = {{ kind = \"intervals\", widths = [5, 10, 20] }} }}\n\
             zip = {{ role = \"quasi-identifying\", hierarchy = {{ kind = \"mask\" }} }}\n\
             sex = {{ role = \"quasi-identifying\", hierarchy = {{ kind = \"mask\" }} }}\n\
             job = {{ role = \"quasi-identifying\", hierarchy = {{ kind = \"mask\" }} }}\n\
             disease = {{ role = \"sensitive\" }}\n[[privacy]]\nmodel = \"k-anonymity\"\nk = 4\n\
             [metric]\nname = \"discernibility\"\n\
             [output]\nseed = 7\n[search]\nthreads = {threads}\n",
            csv.to_str().unwrap()
        );
        let config = Config::parse(&toml, &dir.path().join("job.toml")).unwrap();
        let outputs = cellsafe::job::Outputs {
            table: Some(dir.path().join(format!("{name}.csv"))),
            report: Some(dir.path().join(format!("{name}.json"))),
            mapping: None,
        };
        let report = cellsafe::job::anonymize(&config, &outputs, &Silent).unwrap();
        assert!(report.found, "{name}");
        let released = std::fs::read(dir.path().join(format!("{name}.csv"))).unwrap();
        let written = std::fs::read(dir.path().join(format!("{name}.json"))).unwrap();
        let written: serde_json::Value = serde_json::from_slice(&written).unwrap();
        (
            released,
            (report, written["nodes_evaluated"].as_u64().unwrap()),
        )
    };
    let (one, one_report) = run(1, "one");
    for threads in [2, 3] {
        let (released, report) = run(threads, &format!("t{threads}"));
        let (again, again_report) = run(threads, &format!("t{threads}again"));
        assert_eq!(released, one, "{threads} threads");
        assert_eq!(again, one, "{threads} threads, again");
        assert_eq!(report.0.levels, one_report.0.levels);
        assert_eq!(report.0.score, one_report.0.score);
        assert_eq!(
            report.1, again_report.1,
            "{threads} threads: nodes evaluated"
        );
    }
}
