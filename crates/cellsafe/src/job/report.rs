//! The JSON report of a run: what was released, how safe and how useful it is, and how the
//! search went. Levels are 0-based and listed per quasi-identifier in header order.

mod summary;

use serde::Serialize;
use serde_json::{Map, Value};

use crate::algorithm::problem::{levels_map, Evaluation, Problem};
use crate::algorithm::Algorithm;
use crate::criteria::{DeltaPresence, Model};
use crate::framework::classes::Classes;
use crate::metric::{positive_zero, Metric, MetricKind, MetricSpec, Score};
use crate::release::audit::Audit;

/// A privacy model and the value the released classes achieve (k: smallest class,
/// distinct l: fewest values, entropy l: smallest exp(entropy), recursive: largest
/// r1/(r_l+…+r_m), t: largest distance, δ: largest |log2 ratio|, β: largest gain).
#[derive(Debug, Clone, Serialize)]
pub(crate) struct ModelValue {
    /// The model as named in the job (e.g. `5-anonymity`).
    model: String,
    /// The value the released classes achieve (see above); null when no class is released or
    /// the value is infinite.
    achieved: Option<f64>,
    /// For δ-presence, whose `achieved` is the largest share of a class's population in the
    /// subset: the smallest.
    #[serde(skip_serializing_if = "Option::is_none")]
    lowest: Option<f64>,
}

/// Why a transformation is not acceptable: the classes that fail one model, or (model
/// `all models`, when several fail) the classes that fail some model, i.e. those suppressed.
#[derive(Debug, Clone, Serialize)]
pub struct Failure {
    /// The model as named in `models`, or `all models`.
    model: String,
    /// Number of classes that fail.
    classes: usize,
    /// Rows in those classes.
    rows: u64,
    /// `rows` as a fraction of all rows, to hold against the suppression limit.
    fraction: f64,
    /// Whether `rows` alone exceed the suppression limit.
    over_limit: bool,
    /// The model's measure in its worst failing class (as `achieved` in `models`). Null when
    /// infinite (recursive diversity, a class with fewer than l values) and for
    /// `confidential`, whose failing classes all measure 0.
    worst: Option<f64>,
    /// The model's parameter `worst` is held against (k, l, c, t, δ or β).
    parameter: Option<f64>,
    /// All of the above in one line, e.g. `5-anonymity: smallest class 3 < 5, 412 rows in
    /// 97 classes below k, 1.4% > limit 1%`.
    pub message: String,
}

/// Facts about one transformation.
#[derive(Debug, Clone, Serialize)]
pub struct NodeReport {
    /// The level of each quasi-identifier, by name.
    pub(crate) levels: Map<String, Value>,
    /// Whether the transformation meets every model within the suppression limit.
    pub acceptable: bool,
    /// Equivalence classes, suppressed ones included.
    pub(crate) classes: usize,
    /// Classes suppressed because they fail some model.
    pub(crate) suppressed_classes: usize,
    /// Rows in the suppressed classes.
    pub suppressed_rows: u64,
    /// Size of the smallest class kept; null when every class is suppressed.
    pub(crate) min_class_size: Option<u32>,
    /// The metric `score` is measured with.
    metric: MetricKind,
    /// The metric's score (lower is better).
    pub(crate) score: f64,
    /// For the rank aggregate, the weighted per-attribute values in decreasing order.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) rank: Option<Vec<f64>>,
    /// Each model with the value the kept classes achieve.
    pub(crate) models: Vec<ModelValue>,
    /// Why the transformation is not acceptable (empty when it is): each model some class
    /// fails, then, if several do, the suppressed classes they fail together.
    pub failures: Vec<Failure>,
    /// Entropy quality ql of the AOG paper (1 = original data).
    pub(crate) ql: f64,
    /// Iyengar's general loss metric (0 = original data).
    pub(crate) glm: f64,
    /// Security measure sf of the AOG paper (with a `[safety]` section; 1 = nothing learned).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) sf: Option<f64>,
    /// Every metric, with the configured gs-factor and weights (`evaluate` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    all_metrics: Option<Map<String, Value>>,
}

/// The report of an `anonymize` run.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// Whether an acceptable transformation was found (and, with `[disclose]`, released).
    pub found: bool,
    /// Path of the input table.
    input: String,
    /// Rows in the input table (in the research subset, when there is one).
    rows: usize,
    /// With a research subset (δ-presence): rows of the population table it was drawn from.
    #[serde(skip_serializing_if = "Option::is_none")]
    population_rows: Option<usize>,
    /// Quasi-identifier names in header order.
    quasi_identifiers: Vec<String>,
    /// The released transformation's level of each quasi-identifier; absent when none was found.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub levels: Option<Map<String, Value>>,
    /// Rows suppressed in the release.
    pub suppressed_rows: u64,
    /// Largest fraction of rows that may be suppressed, as configured.
    suppression_limit: f64,
    /// `suppression_limit` as a number of rows.
    max_suppressed_rows: u64,
    /// Equivalence classes of the released transformation, suppressed ones included.
    pub(crate) classes: usize,
    /// Classes released (not suppressed). The audit's `released_groups` counts the
    /// distinct quasi-identifier tuples the file shows, which is fewer when two classes
    /// are shown alike.
    pub(crate) released_classes: usize,
    /// Size of the smallest released class; null when nothing is released.
    pub(crate) min_class_size: Option<u32>,
    /// The metric the search minimizes.
    pub metric: MetricKind,
    /// The released transformation's score (lower is better); null when none was found.
    pub score: Option<f64>,
    /// For the rank aggregate, the weighted per-attribute values in decreasing order.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) rank: Option<Vec<f64>>,
    /// Each model with the value the released classes achieve.
    pub(crate) models: Vec<ModelValue>,
    /// Entropy quality ql of the released transformation (1 = original data).
    pub(crate) ql: Option<f64>,
    /// Iyengar's general loss metric of the released transformation (0 = original data).
    pub(crate) glm: Option<f64>,
    /// The search that was run.
    algorithm: Algorithm,
    /// Transformations the search evaluated.
    pub(crate) nodes_evaluated: usize,
    /// Number of transformations in the lattice.
    lattice_size: usize,
    /// For the `minimal` search: every minimal acceptable transformation.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) minimal: Option<Vec<Map<String, Value>>>,
    /// Wall-clock duration of the run, in seconds.
    pub seconds: f64,
    /// Seconds per phase: `read`, `encode`, `search`, `release`, `write`, `audit`
    /// (`encode + search + release` is the work of ARX's `anonymize()` on loaded data).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timings: Option<crate::anonymizer::Timings>,
    /// Path the released table was written to; absent when none was written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) output: Option<String>,
    /// The columns of a Parquet or Arrow output with their types (a generalized column is
    /// a string; the others keep their source's type).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<Vec<crate::job::output::WrittenColumn>>,
    /// The engine the job ran on, when not the in-memory one: its limits, the frequency
    /// set's size and the seconds per pass.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub engine: Option<crate::job::stream::EngineReport>,
    /// The independent audit of the written table, when one was run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub audit: Option<Audit>,
    /// With `[disclose]`: the exclusive strategy over the search's chain of better nodes
    /// (paper 001). When it releases nothing, `found` is false and no table is written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub disclosure: Option<crate::algorithm::disclosure::Decision>,
    /// Security measure sf of the released classes (with a `[safety]` section).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) sf: Option<f64>,
    /// For the genetic search: its answer, run parameters, and the exhaustive optimum.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) genetic: Option<crate::algorithm::genetic::GeneticReport>,
    /// For the set-based search: cells generalized, against the best level-based
    /// transformation, and the generalized cells.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) set_based: Option<crate::algorithm::setbased::SetBasedReport>,
    /// For local recoding: the groups (count, smallest) and the utility (C_DM, NCP).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub local: Option<crate::algorithm::local::utility::Utility>,
    /// For a node of the `[pareto]` front released from its config: the budget, the node's
    /// k and suppressed rows, and its objective values as `cellsafe pareto` reports them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pareto: Option<crate::job::pareto::ParetoRelease>,
    /// When some hierarchy's partitions form a partial order: the name of the released
    /// partition of each quasi-identifier.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) partitions: Option<Map<String, Value>>,
    /// What the released quasi-identifier cells show.
    pub(crate) values: crate::job::config::OutputValues,
    /// Row order and suppressed rows of the release.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub layout: Option<crate::job::Layout>,
    /// Notes on the configuration or the result that do not stop the run.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

impl Report {
    /// Names the input as `what` (a table handed over in memory has no path).
    pub(crate) fn name_input(&mut self, what: &str) {
        self.input = what.to_owned();
    }

    /// A report on `problem` with nothing found yet.
    pub(crate) fn empty(problem: &Problem, algorithm: Algorithm) -> Report {
        Report {
            found: false,
            input: problem.data.table.source().display().to_string(),
            rows: problem.data.persons() as usize,
            population_rows: problem
                .data
                .population
                .as_ref()
                .map(|p| p.persons() as usize),
            quasi_identifiers: problem.data.quasi.iter().map(|q| q.name.clone()).collect(),
            levels: None,
            suppressed_rows: 0,
            suppression_limit: problem.suppression_limit,
            max_suppressed_rows: problem.max_suppressed,
            classes: 0,
            released_classes: 0,
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
            timings: None,
            output: None,
            output_schema: None,
            engine: None,
            partitions: None,
            values: crate::job::config::OutputValues::Generalization,
            layout: None,
            warnings: Vec::new(),
            audit: None,
            disclosure: None,
            sf: None,
            genetic: None,
            set_based: None,
            local: None,
            pareto: None,
        }
    }
}

/// Metric `kind` of node `levels`, whose classes and suppressed classes are given (each
/// such score once rolled them up again from the snapshot).
fn extra_metric(
    problem: &Problem,
    kind: MetricKind,
    levels: &[u8],
    (classes, suppressed): (&Classes, &[bool]),
    with: &MetricSpec,
) -> Option<Score> {
    let spec = MetricSpec {
        name: kind,
        aggregate: None,
        ..with.clone()
    };
    let metric = Metric::bind(&spec, &problem.data).ok()?;
    let ns = classes
        .counts
        .iter()
        .zip(suppressed)
        .filter(|(_, s)| **s)
        .map(|(c, _)| *c as u64)
        .sum();
    Some(metric.score(
        &problem.snapshot,
        levels,
        classes,
        suppressed,
        ns,
        &problem.hierarchies(),
    ))
}

/// Describes transformation `levels` (which must be a lattice node).
pub fn describe(problem: &Problem, levels: &[u8], all_metrics: bool) -> NodeReport {
    describe_classes(problem, levels, &problem.classes(levels), all_metrics)
}

/// [`describe`], given the classes of `levels`.
pub(crate) fn describe_classes(
    problem: &Problem,
    levels: &[u8],
    classes: &Classes,
    all_metrics: bool,
) -> NodeReport {
    let (evaluation, suppressed) = problem.assess(levels, classes);
    let kept: Vec<usize> = (0..classes.len()).filter(|&c| !suppressed[c]).collect();
    let min_class_size = kept.iter().map(|&c| classes.counts[c]).min();
    let presence = problem.presence_counts(levels, classes);
    let models = problem
        .models
        .iter()
        .map(|m| {
            if let (Some(_), Some(counts)) = (m.presence(), &presence) {
                let shares = kept
                    .iter()
                    .map(|&c| DeltaPresence::share(classes.counts[c], counts.pcounts[c]));
                let (lowest, achieved) = shares.fold((None, None), |(lo, hi), d| {
                    (
                        Some(lo.map_or(d, |x: f64| x.min(d))),
                        Some(hi.map_or(d, |x: f64| x.max(d))),
                    )
                });
                return ModelValue {
                    model: m.spec.name(),
                    achieved,
                    lowest,
                };
            }
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
                lowest: None,
            }
        })
        .collect();
    let spec = &problem.metric.spec;
    let suppressed = problem.suppressed(levels, classes);
    let node = (classes, &suppressed[..]);
    let glm =
        extra_metric(problem, MetricKind::Glm, levels, node, spec).map_or(f64::NAN, |s| s.value);
    let all = all_metrics.then(|| {
        MetricKind::ALL
            .into_iter()
            .filter_map(|k| {
                let name = serde_json::to_value(k).ok()?.as_str()?.to_owned();
                Some((
                    name,
                    Value::from(extra_metric(problem, k, levels, node, spec)?.value),
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
        failures: if evaluation.acceptable {
            Vec::new()
        } else {
            failures(problem, classes, &evaluation)
        },
        rank: evaluation.score.rank,
        models,
        ql: problem.metric.ql(levels),
        glm,
        sf: problem.data.confidentiality.as_ref().map(|c| {
            crate::metric::sf(
                c,
                problem.data.profile_offset(),
                classes,
                Some(&suppressed),
                problem.data.rows(),
            )
        }),
        all_metrics: all,
    }
}

/// The worst measure of `model` over the classes in `failing`.
fn worst(model: &Model, classes: &Classes, failing: &[usize]) -> Option<f64> {
    let values = failing
        .iter()
        .map(|&c| model.measure(classes.counts[c], classes.histogram(c)));
    if model.achieved_is_min() {
        values.reduce(f64::min)
    } else {
        values.reduce(f64::max)
    }
}

/// Why node `evaluation` (whose classes are `classes`) is not acceptable, model by model
/// (see [`Failure`]); empty when no class fails any model.
fn failures(problem: &Problem, classes: &Classes, evaluation: &Evaluation) -> Vec<Failure> {
    let rows = problem.data.rows().max(1) as f64;
    let limit = problem.suppression_limit;
    let tally = |failing: &[usize]| -> (u64, f64, bool) {
        let n: u64 = failing.iter().map(|&c| classes.counts[c] as u64).sum();
        (n, n as f64 / rows, n > problem.max_suppressed)
    };
    let mut out = Vec::new();
    let presence = problem.presence_counts(&evaluation.levels, classes);
    for model in &problem.models {
        if let (Some(p), Some(counts)) = (model.presence(), &presence) {
            let share = |c: usize| DeltaPresence::share(classes.counts[c], counts.pcounts[c]);
            let failing: Vec<usize> = (0..classes.len())
                .filter(|&c| !p.holds_counts(classes.counts[c], counts.pcounts[c]))
                .collect();
            let empty = counts.empty_classes > 0 && !p.allows_empty();
            let (pool_rows, pool_population) = crate::algorithm::problem::presence_pool(
                classes,
                &problem.suppressed(&evaluation.levels, classes),
                counts,
            );
            let pool_share = pool_rows as f64 / pool_population.max(1) as f64;
            let pool = pool_rows > 0 && !(p.delta_min..=p.delta_max).contains(&pool_share);
            if failing.is_empty() && !empty && !pool {
                continue;
            }
            let (n, fraction, over_limit) = tally(&failing);
            let mut message = format!("{}: ", model.spec.name());
            if !failing.is_empty() {
                let (lo, hi) = failing
                    .iter()
                    .map(|&c| share(c))
                    .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), d| {
                        (lo.min(d), hi.max(d))
                    });
                message += &format!(
                    "shares of the population in the subset from {} to {}, {} in {} outside \
                     [{}, {}], {}",
                    number(lo),
                    number(hi),
                    plural(n as usize, "row"),
                    plural(failing.len(), "class"),
                    number(p.delta_min),
                    number(p.delta_max),
                    against_limit(fraction, limit, over_limit)
                );
            }
            if empty {
                if !failing.is_empty() {
                    message += "; ";
                }
                message += &format!(
                    "{} of the population ({}) with no row in the subset, a share 0 below \
                     δmin that no suppression changes",
                    plural(counts.empty_classes, "class"),
                    plural(counts.empty_rows as usize, "person")
                );
            }
            if pool {
                if !message.ends_with(": ") {
                    message += "; ";
                }
                message += &format!(
                    "the {} suppressed are {} of the {} persons in the population classes \
                     showing no released row, outside [{}, {}]",
                    plural(pool_rows as usize, "row"),
                    number(pool_share),
                    pool_population,
                    number(p.delta_min),
                    number(p.delta_max)
                );
            }
            out.push(Failure {
                model: model.spec.name(),
                classes: failing.len(),
                rows: n,
                fraction,
                over_limit: over_limit || empty || pool,
                worst: None,
                parameter: model.parameter(),
                message,
            });
            continue;
        }
        if model.sample_based().is_some() {
            // judged on all released classes together: it fails when the suppression it
            // needs passes the limit
            let n = evaluation.suppressed_rows;
            let over_limit = n > problem.max_suppressed;
            if over_limit {
                let fraction = n as f64 / rows;
                out.push(Failure {
                    model: model.spec.name(),
                    classes: evaluation.suppressed_classes,
                    rows: n,
                    fraction,
                    over_limit,
                    worst: None,
                    parameter: model.parameter(),
                    message: format!(
                        "{}: holding it needs more suppressed rows than the limit allows \
                         ({} when the search for them stopped, {})",
                        model.spec.name(),
                        plural(n as usize, "row"),
                        against_limit(fraction, limit, over_limit)
                    ),
                });
            }
            continue;
        }
        let failing: Vec<usize> = (0..classes.len())
            .filter(|&c| !model.holds(classes.counts[c], classes.histogram(c)))
            .collect();
        if failing.is_empty() {
            continue;
        }
        let (n, fraction, over_limit) = tally(&failing);
        let terms = model.failure_terms();
        let worst = terms
            .worst
            .and_then(|_| worst(model, classes, &failing))
            .map(positive_zero);
        let parameter = model.parameter();
        let (what, op, failing_are) = (terms.worst.unwrap_or(""), terms.op, terms.failing);
        let mut message = format!("{}: ", model.spec.name());
        match (worst, parameter) {
            (Some(w), Some(_)) if w.is_infinite() => {
                message += &format!("{what} {} (fewer than l values), ", number(w))
            }
            (Some(w), Some(p)) => message += &format!("{what} {} {op} {}, ", number(w), number(p)),
            (Some(w), None) if !what.is_empty() => message += &format!("{what} {}, ", number(w)),
            _ => {}
        }
        message += &format!(
            "{} in {} {failing_are}, {}",
            plural(n as usize, "row"),
            plural(failing.len(), "class"),
            against_limit(fraction, limit, over_limit)
        );
        out.push(Failure {
            model: model.spec.name(),
            classes: failing.len(),
            rows: n,
            fraction,
            over_limit,
            worst: worst.filter(|w| w.is_finite()),
            parameter,
            message,
        });
    }
    if out.len() > 1 {
        let n = evaluation.suppressed_rows;
        let fraction = n as f64 / rows;
        let over_limit = n > problem.max_suppressed;
        out.push(Failure {
            model: "all models".into(),
            classes: evaluation.suppressed_classes,
            rows: n,
            fraction,
            over_limit,
            worst: None,
            parameter: None,
            message: format!(
                "all models: {} in {} fail some model, {}",
                plural(n as usize, "row"),
                plural(evaluation.suppressed_classes, "class"),
                against_limit(fraction, limit, over_limit)
            ),
        });
    }
    out
}

fn plural(n: usize, what: &str) -> String {
    match (n, what.ends_with('s')) {
        (1, _) => format!("1 {what}"),
        (_, true) => format!("{n} {what}es"),
        _ => format!("{n} {what}s"),
    }
}

/// `1.4% > limit 1%`, with as many digits as it takes to tell a fraction over the limit
/// from the limit.
fn against_limit(fraction: f64, limit: f64, over: bool) -> String {
    let mut digits = 2;
    let (mut a, mut b) = (percent(fraction, digits), percent(limit, digits));
    while a == b && fraction != limit && digits < 12 {
        digits += 1;
        (a, b) = (percent(fraction, digits), percent(limit, digits));
    }
    format!("{a} {} limit {b}", if over { ">" } else { "<=" })
}

/// `x` as a percentage with `digits` significant digits: `1.4%`, `0.0033%`, `67%`.
fn percent(x: f64, digits: i32) -> String {
    let p = x * 100.0;
    if p == 0.0 {
        return "0%".into();
    }
    let decimals = (digits - 1 - p.abs().log10().floor() as i32).max(0) as usize;
    format!("{}%", trim(format!("{p:.decimals$}")))
}

/// A measure or parameter for people: `3`, `0.35`, `1.4142`, `∞`.
fn number(x: f64) -> String {
    if x.is_infinite() {
        return if x > 0.0 { "∞".into() } else { "-∞".into() };
    }
    if x.fract() == 0.0 && x.abs() < 1e15 {
        return format!("{}", x as i64);
    }
    let text = trim(format!("{x:.4}"));
    if text == "0" || text == "-0" {
        format!("{x:.3e}")
    } else {
        text
    }
}

/// Trailing zeros (and a trailing point) of a decimal removed.
fn trim(text: String) -> String {
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_owned()
    } else {
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentages_tell_the_fraction_from_the_limit() {
        assert_eq!(against_limit(0.014, 0.01, true), "1.4% > limit 1%");
        assert_eq!(against_limit(2.0 / 3.0, 0.2, true), "67% > limit 20%");
        assert_eq!(
            against_limit(1.0 / 30162.0, 0.0, true),
            "0.0033% > limit 0%"
        );
        assert_eq!(
            against_limit(302.0 / 30162.0, 0.01, true),
            "1.001% > limit 1%"
        );
        assert_eq!(against_limit(0.005, 0.01, false), "0.5% <= limit 1%");
    }

    #[test]
    fn numbers_for_people() {
        assert_eq!(number(3.0), "3");
        assert_eq!(number(0.35), "0.35");
        assert_eq!(number(2f64.sqrt()), "1.4142");
        assert_eq!(number(f64::INFINITY), "∞");
        assert_eq!(number(1e-7), "1.000e-7");
        assert_eq!(plural(1, "class"), "1 class");
        assert_eq!(plural(2, "class"), "2 classes");
        assert_eq!(plural(2, "row"), "2 rows");
    }
}
