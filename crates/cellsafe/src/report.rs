//! The JSON report of a run: what was released, how safe and how useful it is, and how the
//! search went. Levels are 0-based and listed per quasi-identifier in header order.

use serde::Serialize;
use serde_json::{Map, Value};

use crate::audit::Audit;
use crate::metrics::{positive_zero, Metric, MetricKind, MetricSpec, Score};
use crate::problem::Problem;
use crate::search::Algorithm;

/// A privacy model and the value the released classes achieve (k: smallest class,
/// distinct l: fewest values, entropy l: smallest exp(entropy), recursive: largest
/// r1/(r_l+…+r_m), t: largest distance, δ: largest |log2 ratio|, β: largest gain).
#[derive(Debug, Clone, Serialize)]
pub struct ModelValue {
    pub model: String,
    pub achieved: Option<f64>,
}

/// Facts about one transformation.
#[derive(Debug, Clone, Serialize)]
pub struct NodeReport {
    pub levels: Map<String, Value>,
    pub acceptable: bool,
    pub classes: usize,
    pub suppressed_classes: usize,
    pub suppressed_rows: u64,
    pub min_class_size: Option<u32>,
    pub metric: MetricKind,
    pub score: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rank: Option<Vec<f64>>,
    pub models: Vec<ModelValue>,
    /// Entropy quality ql of the AOG paper (1 = original data).
    pub ql: f64,
    /// Iyengar's general loss metric (0 = original data).
    pub glm: f64,
    /// Security measure sf of the AOG paper (with a `[safety]` section; 1 = nothing learned).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sf: Option<f64>,
    /// Every metric, with the configured gs-factor and weights (`evaluate` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub all_metrics: Option<Map<String, Value>>,
}

/// The report of an `anonymize` run.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub found: bool,
    pub input: String,
    pub rows: usize,
    pub quasi_identifiers: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub levels: Option<Map<String, Value>>,
    pub suppressed_rows: u64,
    pub suppression_limit: f64,
    pub max_suppressed_rows: u64,
    pub classes: usize,
    pub min_class_size: Option<u32>,
    pub metric: MetricKind,
    pub score: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rank: Option<Vec<f64>>,
    pub models: Vec<ModelValue>,
    pub ql: Option<f64>,
    pub glm: Option<f64>,
    pub algorithm: Algorithm,
    pub nodes_evaluated: usize,
    pub lattice_size: usize,
    /// For the `minimal` search: every minimal acceptable transformation.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub minimal: Option<Vec<Map<String, Value>>>,
    pub seconds: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub audit: Option<Audit>,
    /// With `[disclose]`: the exclusive strategy over the search's chain of better nodes
    /// (paper 001). When it releases nothing, `found` is false and no table is written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub disclosure: Option<crate::disclosure::Decision>,
    /// Security measure sf of the released classes (with a `[safety]` section).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sf: Option<f64>,
    /// For the genetic search: its answer, run parameters, and the exhaustive optimum.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub genetic: Option<crate::search::genetic::GeneticReport>,
    /// For the set-based search: cells generalized, against the best level-based
    /// transformation, and the generalized cells.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub set_based: Option<crate::logic::setbased::SetBasedReport>,
    /// When some hierarchy's partitions form a partial order: the name of the released
    /// partition of each quasi-identifier.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub partitions: Option<Map<String, Value>>,
    /// What the released quasi-identifier cells show.
    pub values: crate::config::OutputValues,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

/// The partition name of each quasi-identifier at `levels`, when the lattice is not a
/// product of chains (else None: levels say it all).
pub fn partition_names(problem: &Problem, levels: &[u8]) -> Option<Map<String, Value>> {
    (!problem.lattice.is_chain()).then(|| {
        problem
            .data
            .quasi
            .iter()
            .zip(levels)
            .map(|(q, &l)| {
                (
                    q.name.clone(),
                    Value::from(q.hierarchy.level_name(l as usize)),
                )
            })
            .collect()
    })
}

impl Report {
    /// A report on `problem` with nothing found yet.
    pub fn empty(problem: &Problem, algorithm: Algorithm) -> Report {
        Report {
            found: false,
            input: problem.data.table.source().display().to_string(),
            rows: problem.data.rows(),
            quasi_identifiers: problem.data.quasi.iter().map(|q| q.name.clone()).collect(),
            levels: None,
            suppressed_rows: 0,
            suppression_limit: problem.suppression_limit,
            max_suppressed_rows: problem.max_suppressed,
            classes: 0,
            min_class_size: None,
            metric: problem.metric.spec.name,
            score: None,
            rank: None,
            models: Vec::new(),
            ql: None,
            glm: None,
            algorithm,
            nodes_evaluated: 0,
            lattice_size: problem.lattice.size(),
            minimal: None,
            seconds: 0.0,
            output: None,
            partitions: None,
            values: crate::config::OutputValues::Generalization,
            warnings: Vec::new(),
            audit: None,
            disclosure: None,
            sf: None,
            genetic: None,
            set_based: None,
        }
    }
}

/// `{name: level}` in header order.
pub fn levels_map(problem: &Problem, levels: &[u8]) -> Map<String, Value> {
    problem
        .data
        .quasi
        .iter()
        .zip(levels)
        .map(|(q, &l)| (q.name.clone(), Value::from(l)))
        .collect()
}

fn extra_metric(
    problem: &Problem,
    kind: MetricKind,
    levels: &[u8],
    with: &MetricSpec,
) -> Option<Score> {
    let spec = MetricSpec {
        name: kind,
        aggregate: None,
        ..with.clone()
    };
    let metric = Metric::bind(&spec, &problem.data).ok()?;
    let classes = problem.classes(levels);
    let suppressed = problem.suppressed(&classes);
    let ns = classes
        .counts
        .iter()
        .zip(&suppressed)
        .filter(|(_, s)| **s)
        .map(|(c, _)| *c as u64)
        .sum();
    Some(metric.score(
        &problem.snapshot,
        levels,
        &classes,
        &suppressed,
        ns,
        &problem.hierarchies(),
    ))
}

/// Describes transformation `levels` (which must be a lattice node).
pub fn describe(problem: &Problem, levels: &[u8], all_metrics: bool) -> NodeReport {
    let classes = problem.classes(levels);
    let (evaluation, suppressed) = problem.assess(levels, &classes);
    let kept: Vec<usize> = (0..classes.len()).filter(|&c| !suppressed[c]).collect();
    let min_class_size = kept.iter().map(|&c| classes.counts[c]).min();
    let models = problem
        .models
        .iter()
        .map(|m| {
            let values = kept
                .iter()
                .map(|&c| m.measure(classes.counts[c], classes.histogram(c)));
            let achieved = if m.achieved_is_min() {
                values.reduce(f64::min)
            } else {
                values.reduce(f64::max)
            };
            ModelValue {
                model: m.spec.name(),
                achieved: achieved.map(positive_zero),
            }
        })
        .collect();
    let spec = &problem.metric.spec;
    let glm = extra_metric(problem, MetricKind::Glm, levels, spec).map_or(f64::NAN, |s| s.value);
    let all = all_metrics.then(|| {
        MetricKind::ALL
            .into_iter()
            .filter_map(|k| {
                let name = serde_json::to_value(k).ok()?.as_str()?.to_owned();
                Some((
                    name,
                    Value::from(extra_metric(problem, k, levels, spec)?.value),
                ))
            })
            .collect()
    });
    NodeReport {
        levels: levels_map(problem, levels),
        acceptable: evaluation.acceptable,
        classes: evaluation.classes,
        suppressed_classes: evaluation.suppressed_classes,
        suppressed_rows: evaluation.suppressed_rows,
        min_class_size,
        metric: spec.name,
        score: evaluation.score.value,
        rank: evaluation.score.rank,
        models,
        ql: problem.metric.ql(levels),
        glm,
        sf: problem.data.confidentiality.as_ref().map(|c| {
            crate::logic::level::sf(
                c,
                problem.data.profile_offset(),
                &classes,
                Some(&suppressed),
                problem.data.rows(),
            )
        }),
        all_metrics: all,
    }
}
