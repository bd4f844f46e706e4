//! A whole anonymization job: config → problem → search → released table → audit → report.
//! Front ends (the CLI, later a service) call this and only print or serve the result.
//!
//! The release is all or nothing: the outputs are checked against the inputs and locked
//! before any work, the table (and mapping) are staged next to their targets, the audit
//! reads the staged table, and only when it passes are the table, mapping and report
//! renamed into place together (see [`crate::release::output`]).
//!
//! Every long step reports to the caller's [`Observer`] and stops with
//! [`Error::Cancelled`] once it says so; the staged files are then removed and nothing is
//! written.

pub mod config;
pub mod disclosure;
pub mod report;

use std::path::{Path, PathBuf};
use std::time::Instant;

use rand::RngCore;
use serde::Serialize;

use crate::algorithm::disclosure::Strategy;
use crate::algorithm::problem::{levels_map, partition_names};
use crate::algorithm::problem::{Problem, SuppressionRule};
use crate::algorithm::{self, Algorithm};
use crate::error::{Error, ProblemError, Result};
use crate::job::config::Config;
use crate::job::report::{describe, Report};
use crate::observer::Observer;
use crate::release::audit::{self, Audit};
use crate::release::output::{check_paths, Transaction};
use crate::release::{
    write_atomic, write_mapping, Released, ReleasedTable, RowOrder, SuppressedRows,
};

/// Where to write what. A missing table means no release is written (the report alone).
#[derive(Debug, Clone, Default)]
pub struct Outputs {
    /// Where the released table is written.
    pub table: Option<PathBuf>,
    /// Where the JSON report is written.
    pub report: Option<PathBuf>,
    /// Released row → input line, for a custodian who must link back. Never by default.
    pub mapping: Option<PathBuf>,
}

impl Outputs {
    fn named(&self) -> Vec<(String, PathBuf)> {
        [
            ("the released table", &self.table),
            ("the report", &self.report),
            ("the mapping", &self.mapping),
        ]
        .into_iter()
        .filter_map(|(what, p)| p.as_ref().map(|p| (what.to_owned(), p.clone())))
        .collect()
    }
}

/// How the released rows are laid out, for the report.
#[derive(Debug, Clone, Serialize)]
pub struct Layout {
    /// Seed of the row shuffle (None: input order kept).
    pub seed: Option<u64>,
    /// The input order was kept on request: rows can be linked back by position.
    pub keep_order: bool,
    /// `star` or `drop`.
    pub suppressed_rows: SuppressedRows,
    /// How the suppressed classes were chosen (`violating`: ARX's rule; `smallest`: from
    /// public information only).
    pub suppression_rule: SuppressionRule,
    /// Whether which rows were suppressed depended on sensitive values.
    pub suppression_read_sensitive_values: bool,
}

/// Runs `config`'s search in a pool of its configured size.
pub fn anonymize(config: &Config, outputs: &Outputs, observer: &dyn Observer) -> Result<Report> {
    config.check_release()?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(config.search.threads)
        .build()
        .map_err(|e| Error::Invalid(format!("cannot start worker threads: {e}")))?;
    pool.install(|| anonymize_here(config, outputs, observer))
}

/// The row order the config asks for: its seed, a fresh one, or the input order.
fn row_order(config: &Config) -> RowOrder {
    if config.output.keep_order {
        RowOrder::Input
    } else {
        RowOrder::Shuffled(
            config
                .output
                .seed
                .unwrap_or_else(|| rand::rngs::OsRng.next_u64()),
        )
    }
}

fn anonymize_here(config: &Config, outputs: &Outputs, observer: &dyn Observer) -> Result<Report> {
    let start = Instant::now();
    check_paths(&config.input_files(), &outputs.named())?;
    let targets: Vec<PathBuf> = outputs.named().into_iter().map(|(_, p)| p).collect();
    let mut tx = Transaction::begin(&targets)?;
    let problem = config.problem_observed(observer)?;
    config.check_search(&problem)?;
    let algorithm = config.search.algorithm;
    let order = row_order(config);
    // set-based generalization releases a table of set-valued cells, not a lattice node
    let Some(search) = algorithm.node_search(&config.search.genetic) else {
        return set_based(config, &problem, outputs, tx, order, start, observer);
    };
    let outcome = search.search(&problem, observer)?;
    let mut best = outcome.best.clone();
    let mut disclosure = None;
    if let (Some(spec), Some(found)) = (&config.disclose, &outcome.best) {
        // The search is public: release only what the exclusive strategy allows.
        let (d, options, nodes) = crate::job::disclosure::for_search(
            &problem,
            &found.levels,
            spec,
            &config.file_name(),
            observer,
        )?;
        let strategy = spec.strategy.unwrap_or(Strategy::Exclusive);
        let decision = d
            .decide_observed(strategy, &options, observer)
            .map_err(|e| crate::job::disclosure::locate(e, &config.file_name()))?;
        best = decision
            .released
            .map(|i| problem.evaluate(&nodes[i - 1]))
            .transpose()?;
        disclosure = Some(decision);
    }
    let quasi: Vec<String> = problem.data.quasi.iter().map(|q| q.name.clone()).collect();
    let mut report = Report::empty(&problem, algorithm);
    report.found = best.is_some();
    report.nodes_evaluated = outcome.nodes_evaluated;
    report.minimal = matches!(
        algorithm,
        Algorithm::Minimal | Algorithm::MinimalBfs | Algorithm::MinimalInference
    )
    .then(|| {
        outcome
            .minimal
            .iter()
            .map(|e| levels_map(&problem, &e.levels))
            .collect()
    });
    report.disclosure = disclosure;
    report.genetic = outcome.genetic;
    let unlisted = config.unlisted_released(problem.data.table.header());
    if !unlisted.is_empty() {
        report.warnings.push(format!(
            "columns not listed under [attributes] are released as they are: {}",
            unlisted.join(", ")
        ));
    }
    if let Some(best) = &best {
        let node = describe(&problem, &best.levels, false);
        report.levels = Some(node.levels);
        report.suppressed_rows = node.suppressed_rows;
        report.classes = node.classes;
        report.released_classes = node.classes - node.suppressed_classes;
        report.min_class_size = node.min_class_size;
        report.score = Some(node.score);
        report.rank = node.rank;
        report.models = node.models;
        report.ql = Some(node.ql);
        report.glm = Some(node.glm);
        report.sf = node.sf;
        report.partitions = partition_names(&problem, &best.levels);
        let layout = layout(config, &problem, order, node.suppressed_rows);
        report
            .warnings
            .extend(layout_warnings(config, &problem, &layout));
        report.layout = Some(layout);
        if let Some(path) = &outputs.table {
            let format = config.csv_format()?;
            let mut released = Released::new(&problem, &best.levels)?;
            if let Some(aggregators) = config.aggregators(&problem)? {
                released = released.microaggregated(&aggregators)?;
                report.values = config.output.values;
                report.warnings.extend(released.warnings().iter().cloned());
            }
            let rows = released.order(config.output.suppression, order);
            let staged = tx.stage(path, |w| released.write_to(w, &format, &rows))?;
            if let Some(mapping) = &outputs.mapping {
                tx.stage(mapping, |w| write_mapping(w, &rows, &problem.data.table))?;
            }
            let public: Vec<String> = (0..problem.data.roles.len())
                .filter(|&c| problem.data.public[c])
                .map(|c| problem.data.table.header()[c].clone())
                .collect();
            let expected = audit::Expected {
                quasi: &quasi,
                models: &config.privacy,
                original: &problem.data.table,
                safety: problem.data.confidentiality.as_deref(),
                rows: &rows,
                public: &public,
            };
            let mut audit = audit::audit(&staged, &format, &expected)
                .map_err(|e| e.with_path(&staged, path))?;
            if !audit.passed && !public.is_empty() {
                audit.violations.push(format!(
                    "public columns ({}) are known to the recipient and split the classes \
                     they vary in: mark a column that tells persons apart quasi-identifying",
                    public.join(", ")
                ));
            }
            check_audit(&audit, path)?;
            report.output = Some(path.display().to_string());
            report.audit = Some(audit);
        }
    }
    report.seconds = start.elapsed().as_secs_f64();
    finish(tx, outputs, &report)?;
    Ok(report)
}

fn layout(config: &Config, problem: &Problem, order: RowOrder, suppressed: u64) -> Layout {
    Layout {
        seed: match order {
            RowOrder::Shuffled(seed) => Some(seed),
            RowOrder::Input => None,
        },
        keep_order: order == RowOrder::Input,
        suppressed_rows: config.output.suppression,
        suppression_rule: problem.rule,
        suppression_read_sensitive_values: suppressed > 0 && problem.suppression_reads_sensitive(),
    }
}

/// What a recipient who knows the algorithm may still infer from this release, and other
/// things the custodian should know before handing it over.
fn layout_warnings(config: &Config, problem: &Problem, layout: &Layout) -> Vec<String> {
    let mut warnings = Vec::new();
    if layout.keep_order {
        warnings.push(
            "rows are in input order ([output] keep_order): a recipient who knows the \
             source's order can link rows back by position"
                .to_owned(),
        );
    } else if config.output.seed.is_some() {
        warnings.push(
            "the row order comes from the fixed [output] seed: it is a key, and a recipient \
             who guesses it (a small number, a date) recovers the input order; keep it \
             secret, or leave it out to draw a fresh one each run"
                .to_owned(),
        );
    }
    if layout.suppression_read_sensitive_values {
        warnings.push(
            "which classes were suppressed depended on sensitive values (ARX's class \
             suppression): a recipient who knows the algorithm can infer that the \
             suppressed persons' classes failed the model"
                .to_owned(),
        );
    }
    let reads = problem.models.iter().any(|m| m.reads_confidential_values());
    if config.search.algorithm == Algorithm::SetBased {
        warnings.push(
            "the set-based search widens the cells of exactly the persons who would \
             otherwise be exposed: a recipient who knows the algorithm can infer from a \
             widened cell what it hides"
                .to_owned(),
        );
    } else if reads && config.disclose.is_none() {
        warnings.push(
            "the released transformation was chosen because every better one failed a \
             model that reads confidential values: a recipient who knows the algorithm can \
             reason about that (paper 001); a [disclose] section judges the release \
             against such a recipient"
                .to_owned(),
        );
    }
    warnings
}

/// A failed audit stops the release: nothing is written.
fn check_audit(audit: &Audit, path: &Path) -> Result<()> {
    if audit.passed {
        return Ok(());
    }
    Err(Error::AuditFailed {
        path: path.to_owned(),
        violations: audit.violations.clone(),
    })
}

/// Stages the report and renames every staged file into place.
fn finish(mut tx: Transaction, outputs: &Outputs, report: &Report) -> Result<()> {
    if let Some(path) = &outputs.report {
        let text = json(report)?;
        tx.stage(path, |w| w.write_all(text.as_bytes()))?;
    }
    tx.commit()
}

/// The set-based search: release the goal-directed search's set table.
fn set_based(
    config: &Config,
    problem: &Problem,
    outputs: &Outputs,
    mut tx: Transaction,
    order: RowOrder,
    start: Instant,
    observer: &dyn Observer,
) -> Result<Report> {
    let (table, found) =
        algorithm::setbased::run_observed(problem, &config.search.set_based, observer).map_err(
            |e| match e {
                // a family the column cannot take: the config chose it
                Error::Problem(ProblemError::SetBased(m)) => {
                    Error::config(config.file_name(), "search.set_based.families", m)
                }
                e => e,
            },
        )?;
    let mut report = Report::empty(problem, Algorithm::SetBased);
    report.found = found.search.safe;
    let layout = layout(config, problem, order, 0);
    report
        .warnings
        .extend(layout_warnings(config, problem, &layout));
    if config.suppression_limit > 0.0 {
        report.warnings.push(
            "suppression_limit is not used by the set-based search: it deletes no rows".to_owned(),
        );
    }
    report.layout = Some(layout);
    if found.search.safe {
        if let Some(path) = &outputs.table {
            let format = config.csv_format()?;
            let rows = crate::release::row_order(0..table.rows(), order);
            let staged = tx.stage(path, |w| table.write_to(w, &format, &rows))?;
            if let Some(mapping) = &outputs.mapping {
                tx.stage(mapping, |w| write_mapping(w, &rows, &problem.data.table))?;
            }
            let schema = crate::algorithm::setbased::SetTable::new(
                problem,
                &config.search.set_based.families(),
            )?;
            let audit = audit::audit_set_based(&staged, &format, &schema)
                .map_err(|e| e.with_path(&staged, path))?;
            check_audit(&audit, path)?;
            report.output = Some(path.display().to_string());
            report.audit = Some(audit);
        }
    }
    report.set_based = Some(found);
    report.seconds = start.elapsed().as_secs_f64();
    finish(tx, outputs, &report)?;
    Ok(report)
}

fn json<T: serde::Serialize>(value: &T) -> Result<String> {
    let mut text =
        serde_json::to_string_pretty(value).map_err(|e| Error::Invalid(e.to_string()))?;
    text.push('\n');
    Ok(text)
}

/// Writes `value` as pretty JSON, atomically.
pub fn write_json<T: serde::Serialize>(path: &Path, value: &T) -> Result<()> {
    let text = json(value)?;
    write_atomic(path, |w| w.write_all(text.as_bytes()))
}
