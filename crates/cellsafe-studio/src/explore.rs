//! What the result page shows of a run: the levels and figures of the report, the
//! lattice with each node's status and the optimum, class sizes and re-identification
//! risks before and after (`cellsafe risk`'s figures), each quasi-identifier's values in
//! the source and in the release, and the first released rows.
//!
//! The released values are counted from the audited release's own bytes (what the
//! recipient gets), not from the search's classes. The lattice's statuses are computed
//! here, node by node, with the job's own problem ([`LATTICE_DRAWN`] nodes at most: for a
//! larger lattice, the optimum and the nodes one or two steps from it).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};

use cellsafe::data::table::Table;
use cellsafe::job::config::Config;
use cellsafe::job::risk::{risk, RiskReport};
use cellsafe::job::Anonymized;
use cellsafe::observer::Observer;
use rayon::prelude::*;
use serde::Serialize;

use crate::svg;

/// Most lattice nodes evaluated and drawn whole.
pub const LATTICE_DRAWN: usize = 5000;
/// Released rows shown.
pub const SAMPLE_ROWS: usize = 25;
/// Values shown per quasi-identifier.
pub const VALUES_SHOWN: usize = 12;
/// The risk threshold of `records_at_risk` (a record is at risk above it).
pub const RISK_THRESHOLD: f64 = 0.2;

/// What the result page shows.
#[derive(Debug, Serialize)]
pub struct Explored {
    /// Whether a transformation was found and released.
    pub found: bool,
    /// The job's report, as written.
    pub report: serde_json::Value,
    /// Each quasi-identifier's level (full-domain searches).
    pub levels: Vec<(String, u8)>,
    /// Risks of the table as it is.
    pub risk_before: Option<RiskReport>,
    /// Risks of the release.
    pub risk_after: Option<RiskReport>,
    /// Class sizes before and after, as an SVG chart.
    pub classes_svg: Option<String>,
    /// Per quasi-identifier: its values in the source and in the release.
    pub distributions: Vec<Distribution>,
    /// The release's header, then its first rows.
    pub sample: Vec<Vec<String>>,
    /// The lattice.
    pub lattice: Option<LatticeView>,
    /// For a `[pareto]` job: its front, of which a node is then released.
    pub front: Option<Front>,
    /// Released files beside the main table (an LGB job's bucket tables), by name.
    pub files: Vec<String>,
}

impl Explored {
    /// A result of `report` alone (found or not), to which the caller adds what it shows.
    fn of(found: bool, report: &impl Serialize) -> Explored {
        Explored {
            found,
            report: serde_json::to_value(report).unwrap_or(serde_json::Value::Null),
            levels: Vec::new(),
            risk_before: None,
            risk_after: None,
            classes_svg: None,
            distributions: Vec::new(),
            sample: Vec::new(),
            lattice: None,
            front: None,
            files: Vec::new(),
        }
    }
}

/// What the page shows of an LGB job: its report and its bucket tables' names.
pub fn lgb(report: &cellsafe::job::lgb::LgbReport, files: Vec<String>) -> Explored {
    Explored {
        files,
        ..Explored::of(report.found, report)
    }
}

/// The front of a `[pareto]` job.
#[derive(Debug, Serialize)]
pub struct Front {
    /// The quasi-identifiers, in the order of a node's levels.
    pub quasi_identifiers: Vec<String>,
    /// The objectives' names, in order.
    pub objectives: Vec<String>,
    /// The nodes: levels in `quasi_identifiers` order, the objectives' values, the k and
    /// suppressed rows the budget gives.
    pub nodes: Vec<FrontNode>,
    /// The front drawn (the first two objectives), each node clickable.
    pub svg: String,
}

/// One node of a [`Front`].
#[derive(Debug, Serialize)]
pub struct FrontNode {
    /// Level per quasi-identifier.
    pub levels: Vec<u64>,
    /// Value per objective.
    pub values: Vec<f64>,
    /// The k the budget gives it.
    pub k: u64,
    /// Rows the budget suppresses.
    pub suppressed_rows: u64,
}

/// What the page shows of a `[pareto]` job's front.
pub fn front(report: &cellsafe::job::pareto::ParetoReport) -> Explored {
    let objectives: Vec<String> = report.objectives.iter().map(|o| o.name.clone()).collect();
    let nodes: Vec<FrontNode> = report
        .front
        .iter()
        .map(|n| FrontNode {
            levels: report
                .quasi_identifiers
                .iter()
                .map(|q| n.levels.get(q).and_then(|v| v.as_u64()).unwrap_or(0))
                .collect(),
            values: objectives
                .iter()
                .map(|o| n.values.get(o).and_then(|v| v.as_f64()).unwrap_or(f64::NAN))
                .collect(),
            k: n.k,
            suppressed_rows: n.suppressed_rows,
        })
        .collect();
    let svg = svg::front(&objectives, &nodes);
    Explored {
        front: Some(Front {
            quasi_identifiers: report.quasi_identifiers.clone(),
            objectives,
            nodes,
            svg,
        }),
        ..Explored::of(false, report)
    }
}

/// One quasi-identifier's values, source and release.
#[derive(Debug, Serialize)]
pub struct Distribution {
    /// The column.
    pub name: String,
    /// The chart.
    pub svg: String,
}

/// The lattice as drawn.
#[derive(Debug, Serialize)]
pub struct LatticeView {
    /// Nodes in the lattice.
    pub size: usize,
    /// Nodes drawn.
    pub drawn: usize,
    /// Of those, acceptable.
    pub acceptable: usize,
    /// The chart.
    pub svg: String,
}

/// A node as the lattice chart shows it.
#[derive(Debug, Clone)]
pub struct Node {
    /// Its levels.
    pub levels: Vec<u8>,
    /// Whether it satisfies the models within the suppression limit.
    pub acceptable: bool,
    /// Its score, when acceptable.
    pub score: Option<f64>,
    /// Rows it suppresses.
    pub suppressed: u64,
}

/// What the page shows of `done`, the run of `config` on `table`.
pub fn explore(
    config: &Config,
    done: &Anonymized,
    table: &Table,
    observer: &dyn Observer,
) -> cellsafe::Result<Explored> {
    let Some(release) = &done.release else {
        return Ok(Explored::of(false, &done.report));
    };
    let problem = release.problem();
    let local = release.algorithm().is_local();
    let levels = if local { Vec::new() } else { release.levels() };
    let written = config.suppressed_rows();
    let before = risk(problem, None, RISK_THRESHOLD, None, written)?;
    let after = match (local, release.evaluation()) {
        (false, Some(e)) => Some(risk(
            problem,
            Some(&e.levels),
            RISK_THRESHOLD,
            None,
            written,
        )?),
        _ => None,
    };
    let classes_svg = Some(svg::class_sizes(
        &before
            .histogram
            .iter()
            .map(|h| (h.size, h.classes))
            .collect::<Vec<_>>(),
        after
            .as_ref()
            .map(|a| {
                a.histogram
                    .iter()
                    .map(|h| (h.size, h.classes))
                    .collect::<Vec<_>>()
            })
            .as_deref(),
    ));
    // the release as the recipient reads it
    let format = config.csv_format()?;
    let mut reader = csv::ReaderBuilder::new()
        .delimiter(format.delimiter)
        .quote(format.quote)
        .has_headers(false)
        .from_reader(release.csv());
    let mut rows = reader.records();
    let header: Vec<String> = match rows.next() {
        Some(Ok(r)) => r.iter().map(String::from).collect(),
        _ => Vec::new(),
    };
    let qis: Vec<String> = problem.data.quasi.iter().map(|q| q.name.clone()).collect();
    let positions: Vec<Option<usize>> = qis
        .iter()
        .map(|q| header.iter().position(|h| h == q))
        .collect();
    let mut released: Vec<HashMap<String, u64>> = vec![HashMap::new(); qis.len()];
    let mut sample = vec![header.clone()];
    for (i, row) in rows.enumerate() {
        let row = row.map_err(|e| cellsafe::Error::Io {
            path: "<release>".into(),
            cause: std::io::Error::other(e),
        })?;
        if i < SAMPLE_ROWS {
            sample.push(row.iter().map(String::from).collect());
        }
        for (counts, p) in released.iter_mut().zip(&positions) {
            if let Some(v) = p.and_then(|p| row.get(p)) {
                *counts.entry(v.to_owned()).or_insert(0) += 1;
            }
        }
        if i % 4096 == 0 && observer.cancelled() {
            return Err(cellsafe::Error::Cancelled);
        }
    }
    let distributions = qis
        .iter()
        .zip(released)
        .map(|(name, counts)| {
            let source = table
                .column_index(name)
                .map(|c| table.value_counts(c))
                .unwrap_or_default();
            let mut source: Vec<(String, u64)> =
                source.into_iter().map(|(v, n)| (v.to_owned(), n)).collect();
            let mut released: Vec<(String, u64)> = counts.into_iter().collect();
            for v in [&mut source, &mut released] {
                v.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
            }
            Distribution {
                name: name.clone(),
                svg: svg::distribution(name, &source, &released, VALUES_SHOWN),
            }
        })
        .collect();
    let lattice = match (local, release.evaluation()) {
        (false, Some(best)) => Some(lattice(problem, &best.levels, observer)?),
        _ => None,
    };
    Ok(Explored {
        levels,
        risk_before: Some(before),
        risk_after: after,
        classes_svg,
        distributions,
        sample,
        lattice,
        ..Explored::of(true, &done.report)
    })
}

/// The lattice's nodes evaluated (all of them, or those near `best` in a lattice of more
/// than [`LATTICE_DRAWN`]), drawn with `best` marked.
fn lattice(
    problem: &cellsafe::algorithm::problem::Problem,
    best: &[u8],
    observer: &dyn Observer,
) -> cellsafe::Result<LatticeView> {
    let size = problem.lattice.size();
    let levels: Vec<Vec<u8>> = if size <= LATTICE_DRAWN {
        (0..size).map(|i| problem.lattice.levels(i)).collect()
    } else {
        near(problem, best)
    };
    observer.start("lattice", Some(levels.len() as u64));
    let done = AtomicU64::new(0);
    let nodes: Vec<Node> = levels
        .par_iter()
        .map(|l| {
            if observer.cancelled() {
                return Err(cellsafe::Error::Cancelled);
            }
            let e = problem.evaluate(l)?;
            observer.set(done.fetch_add(1, Ordering::Relaxed) + 1);
            Ok(Node {
                levels: l.clone(),
                acceptable: e.acceptable,
                score: e.acceptable.then_some(e.score.value),
                suppressed: e.suppressed_rows,
            })
        })
        .collect::<cellsafe::Result<_>>()?;
    observer.finish();
    let acceptable = nodes.iter().filter(|n| n.acceptable).count();
    Ok(LatticeView {
        size,
        drawn: nodes.len(),
        acceptable,
        svg: svg::lattice(&nodes, best),
    })
}

/// `best` and the nodes one or two steps of one level from it.
fn near(problem: &cellsafe::algorithm::problem::Problem, best: &[u8]) -> Vec<Vec<u8>> {
    let tops = problem.data.max_levels();
    let step = |from: &Vec<u8>| -> Vec<Vec<u8>> {
        let mut out = Vec::new();
        for j in 0..from.len() {
            for up in [false, true] {
                let mut n = from.clone();
                match up {
                    true if n[j] < tops[j] => n[j] += 1,
                    false if n[j] > 0 => n[j] -= 1,
                    _ => continue,
                }
                out.push(n);
            }
        }
        out
    };
    let mut all = vec![best.to_vec()];
    for n in step(&best.to_vec()) {
        all.extend(step(&n));
        all.push(n);
    }
    all.sort();
    all.dedup();
    all.truncate(LATTICE_DRAWN);
    all
}
