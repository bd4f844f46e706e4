//! A whole anonymization job: config → problem → search → released table → audit → report.
//! Front ends (the CLI, later a service) call this and only print or serve the result.

use std::path::{Path, PathBuf};
use std::time::Instant;

use crate::audit;
use crate::config::Config;
use crate::disclosure::{setup, Strategy};
use crate::error::{Error, Result};
use crate::release::{write_atomic, Released};
use crate::report::{describe, levels_map, partition_names, Report};
use crate::search::{self, Progress};

/// Where to write what.
#[derive(Debug, Clone, Default)]
pub struct Outputs {
    pub table: Option<PathBuf>,
    pub report: Option<PathBuf>,
}

/// Runs `config`'s search in a pool of its configured size.
pub fn anonymize(config: &Config, outputs: &Outputs, progress: Option<Progress>) -> Result<Report> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(config.search.threads)
        .build()
        .map_err(|e| Error::Invalid(format!("cannot start worker threads: {e}")))?;
    pool.install(|| anonymize_here(config, outputs, progress))
}

fn anonymize_here(
    config: &Config,
    outputs: &Outputs,
    progress: Option<Progress>,
) -> Result<Report> {
    let start = Instant::now();
    let problem = config.problem_with_progress(progress)?;
    let algorithm = config.search.algorithm;
    if algorithm == search::Algorithm::SetBased {
        return set_based(config, &problem, outputs, start, progress);
    }
    let mut genetic = None;
    let outcome = if algorithm == search::Algorithm::Genetic {
        let g = search::genetic::genetic_with_optimum_and_progress(
            &problem,
            &config.search.genetic,
            progress,
        )?;
        let best = if g.outcome.acceptable {
            Some(problem.evaluate(&g.outcome.levels)?)
        } else {
            None
        };
        let nodes_evaluated = g.outcome.nodes_evaluated;
        genetic = Some(g);
        search::Outcome {
            best,
            minimal: Vec::new(),
            nodes_evaluated,
        }
    } else {
        search::run(&problem, algorithm, progress)
    };
    let mut best = outcome.best.clone();
    let mut disclosure = None;
    if let (Some(spec), Some(found)) = (&config.disclose, &outcome.best) {
        // The search is public: release only what the exclusive strategy allows.
        let (d, options, nodes) =
            setup::for_search(&problem, &found.levels, spec, &config.file_name())?;
        let strategy = spec.strategy.unwrap_or(Strategy::Exclusive);
        let decision = d.decide_with_progress(strategy, &options, progress)?;
        best = decision
            .released
            .map(|i| problem.evaluate(&nodes[i - 1]))
            .transpose()?;
        disclosure = Some(decision);
    }
    let seconds = start.elapsed().as_secs_f64();
    let quasi: Vec<String> = problem.data.quasi.iter().map(|q| q.name.clone()).collect();
    let mut report = Report::empty(&problem, algorithm);
    report.found = best.is_some();
    report.nodes_evaluated = outcome.nodes_evaluated;
    report.minimal = matches!(
        algorithm,
        search::Algorithm::Minimal
            | search::Algorithm::MinimalBfs
            | search::Algorithm::MinimalInference
    )
    .then(|| {
        outcome
            .minimal
            .iter()
            .map(|e| levels_map(&problem, &e.levels))
            .collect()
    });
    report.seconds = seconds;
    report.disclosure = disclosure;
    report.genetic = genetic;
    if let Some(best) = &best {
        let node = describe(&problem, &best.levels, false);
        report.levels = Some(node.levels);
        report.suppressed_rows = node.suppressed_rows;
        report.classes = node.classes;
        report.min_class_size = node.min_class_size;
        report.score = Some(node.score);
        report.rank = node.rank;
        report.models = node.models;
        report.ql = Some(node.ql);
        report.glm = Some(node.glm);
        report.sf = node.sf;
        report.partitions = partition_names(&problem, &best.levels);
        if let Some(path) = &outputs.table {
            let format = config.csv_format()?;
            let mut released = Released::new(&problem, &best.levels)?;
            if let Some(aggregators) = config.aggregators(&problem)? {
                released = released.microaggregated(&aggregators)?;
                report.values = config.output.values;
                report.warnings.extend(released.warnings().iter().cloned());
            }
            released.write_csv(path, format.delimiter)?;
            report.output = Some(path.display().to_string());
            report.audit = Some(audit::audit(
                path,
                &format,
                &quasi,
                &config.privacy,
                &problem.data.table,
                problem.data.confidentiality.as_deref(),
            )?);
        }
    }
    if let Some(path) = &outputs.report {
        write_json(path, &report)?;
    }
    Ok(report)
}

/// The set-based search: release the goal-directed search's set table.
fn set_based(
    config: &Config,
    problem: &crate::problem::Problem,
    outputs: &Outputs,
    start: Instant,
    progress: Option<Progress>,
) -> Result<Report> {
    let (table, found) =
        crate::logic::setbased::run_with_progress(problem, &config.search.set_based, progress)?;
    let mut report = Report::empty(problem, search::Algorithm::SetBased);
    report.found = found.search.safe;
    if found.search.safe {
        if let Some(path) = &outputs.table {
            let format = config.csv_format()?;
            table.write_csv(path, format.delimiter)?;
            report.output = Some(path.display().to_string());
            let schema = crate::logic::setbased::SetTable::new(
                problem,
                &config.search.set_based.families(),
            )?;
            report.audit = Some(audit::audit_set_based(path, &format, &schema)?);
        }
    }
    report.set_based = Some(found);
    report.seconds = start.elapsed().as_secs_f64();
    if let Some(path) = &outputs.report {
        write_json(path, &report)?;
    }
    Ok(report)
}

/// Writes `value` as pretty JSON, atomically.
pub fn write_json<T: serde::Serialize>(path: &Path, value: &T) -> Result<()> {
    let text = serde_json::to_string_pretty(value).map_err(|e| Error::Invalid(e.to_string()))?;
    write_atomic(path, |w| {
        w.write_all(text.as_bytes())?;
        w.write_all(b"\n")
    })
}
