//! `cellsafe pareto`: the `[pareto]` section turned into objectives, PBG-EA run on the
//! configured table, and, on request, the exact front with the run's convergence error and
//! representation ratio (paper 003).

use std::time::Instant;

use serde::Serialize;
use serde_json::{Map, Value};

use crate::algorithm::pareto::ea::{pbg_ea, EaSpec};
use crate::algorithm::pareto::measures::{convergence_error, representation_ratio};
use crate::algorithm::pareto::objective::{Evaluator, Objective, Property};
use crate::algorithm::pareto::{exact_front, oriented, Evaluated};
use crate::algorithm::problem::{levels_map, Problem};
use crate::error::{Error, ParetoError, Result};
use crate::framework::dataset::Dataset;
use crate::job::config::{Config, ObjectiveSpec, ParetoSpec};
use crate::metric::MetricSpec;
use crate::observer::Observer;

/// One objective as reported.
#[derive(Debug, Clone, Serialize)]
pub struct ObjectiveReport {
    /// Its name (`k`, `S_k`, `GLM`, ...).
    pub name: String,
    /// `maximize` or `minimize`.
    pub direction: &'static str,
}

/// One node as reported.
#[derive(Debug, Clone, Serialize)]
pub struct NodeReport {
    /// Level per quasi-identifier, by name.
    pub levels: Map<String, Value>,
    /// Value per objective, by name.
    pub values: Map<String, Value>,
    /// The k the budget gave the node.
    pub k: u64,
    /// Rows the budget suppressed.
    pub suppressed_rows: u64,
    /// The command that releases the node: `cellsafe anonymize CONFIG --levels ...`.
    pub release: String,
}

/// What `cellsafe anonymize --levels` of a `[pareto]` config without `[[privacy]]` released:
/// the node under the budget, with the objective values `cellsafe pareto` gives it.
#[derive(Debug, Clone, Serialize)]
pub struct ParetoRelease {
    /// The suppression budget η in rows.
    pub budget_rows: u64,
    /// The k the budget gave the node (the released table is k-anonymous at it).
    pub k: u64,
    /// Rows the budget suppressed.
    pub suppressed_rows: u64,
    /// Value per objective, by name, as `cellsafe pareto` reports them.
    pub values: Map<String, Value>,
}

/// The exact front and how the run compares with it.
#[derive(Debug, Clone, Serialize)]
pub struct ExactReport {
    /// Every minimal PBG.
    pub front: Vec<NodeReport>,
    /// Convergence error of the run's archive.
    pub convergence_error: f64,
    /// Representation ratio of the run's archive.
    pub representation_ratio: f64,
    /// Seconds the exhaustive evaluation took.
    pub seconds: f64,
}

/// The JSON report of `cellsafe pareto`.
#[derive(Debug, Clone, Serialize)]
pub struct ParetoReport {
    /// The input file.
    pub input: String,
    /// Rows in the input.
    pub rows: usize,
    /// The quasi-identifiers.
    pub quasi_identifiers: Vec<String>,
    /// The objectives, in order.
    pub objectives: Vec<ObjectiveReport>,
    /// The suppression budget η in rows.
    pub budget_rows: u64,
    /// The discretization vector.
    pub eps: Vec<f64>,
    /// N_pop.
    pub population: usize,
    /// Iterations.
    pub iterations: usize,
    /// Crossover probability.
    pub p_cross: f64,
    /// Mutation probability per attribute.
    pub p_mut: f64,
    /// The seed the run used.
    pub seed: u64,
    /// The archive: representative minimal PBGs.
    pub front: Vec<NodeReport>,
    /// Distinct nodes the run evaluated.
    pub nodes_evaluated: usize,
    /// Nodes in the lattice.
    pub lattice_size: usize,
    /// Seconds the run took.
    pub seconds: f64,
    /// With `--exhaustive`: the exact front and the run's measures against it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exact: Option<ExactReport>,
}

/// Runs `[pareto]` of `config`: PBG-EA with `seed` (else the config's, else a fresh one),
/// and the exact front when `exhaustive`.
pub fn pareto(
    config: &Config,
    seed: Option<u64>,
    exhaustive: bool,
    observer: &dyn Observer,
) -> Result<ParetoReport> {
    pareto_on(config, None, seed, exhaustive, observer)
}

/// [`pareto`] on `table` when given (with [`Config::given_table`]), else on the table
/// `[input]` names.
pub fn pareto_on(
    config: &Config,
    table: Option<crate::data::table::Table>,
    seed: Option<u64>,
    exhaustive: bool,
    observer: &dyn Observer,
) -> Result<ParetoReport> {
    let file = config.file_name();
    if config.input.subset.is_some() {
        return Err(Error::config(
            &file,
            "input.subset",
            "the objectives of `cellsafe pareto` do not compare with a population: search a \
             research subset with `cellsafe anonymize` and δ-presence",
        ));
    }
    let Some(spec) = &config.pareto else {
        return Err(Error::config(
            &file,
            "pareto",
            "`cellsafe pareto` needs a [pareto] section with its objectives",
        ));
    };
    let objectives = objectives(spec, &file)?;
    let problem = match table {
        Some(table) => config.problem_of(table)?,
        None => config.problem_observed(observer)?,
    };
    let budget = budget(spec, problem.data.rows() as u64, &file)?;
    let evaluator = Evaluator::new(&problem, &objectives, budget).map_err(|e| at_key(e, &file))?;
    let seed = seed
        .or(spec.seed)
        .unwrap_or_else(crate::release::fresh_seed);
    let ea = EaSpec {
        population: spec.population,
        iterations: spec.iterations,
        p_cross: spec.p_cross,
        p_mut: spec.p_mut,
        eps: spec.eps.clone(),
        seed,
    };
    let clock = Instant::now();
    let run = pbg_ea(&problem, &evaluator, &ea, observer).map_err(|e| at_key(e, &file))?;
    let seconds = clock.elapsed().as_secs_f64();
    let names: Vec<String> = objectives.iter().map(Objective::name).collect();
    let exact = if exhaustive {
        let clock = Instant::now();
        let exact = exact_front(&problem, &evaluator, observer)?;
        let seconds = clock.elapsed().as_secs_f64();
        let front: Vec<&Evaluated> = exact.front.iter().map(|&i| &exact.nodes[i]).collect();
        let raw = |nodes: &[&Evaluated]| -> Vec<Vec<f64>> {
            nodes.iter().map(|n| n.values.values.clone()).collect()
        };
        let directed = |nodes: &[&Evaluated]| -> Vec<Vec<f64>> {
            nodes
                .iter()
                .map(|n| oriented(&evaluator, &n.values.values))
                .collect()
        };
        let found: Vec<&Evaluated> = run.archive.iter().collect();
        Some(ExactReport {
            convergence_error: convergence_error(&raw(&front), &raw(&found)),
            representation_ratio: representation_ratio(
                &directed(&front),
                &directed(&found),
                &run.eps,
            ),
            front: front
                .iter()
                .map(|n| node(&problem, &names, n, &file))
                .collect(),
            seconds,
        })
    } else {
        None
    };
    Ok(ParetoReport {
        input: config.data_source(),
        rows: problem.data.rows(),
        quasi_identifiers: problem.data.quasi.iter().map(|q| q.name.clone()).collect(),
        objectives: objectives
            .iter()
            .zip(&names)
            .map(|(o, name)| ObjectiveReport {
                name: name.clone(),
                direction: if o.maximized() {
                    "maximize"
                } else {
                    "minimize"
                },
            })
            .collect(),
        budget_rows: budget,
        eps: run.eps.clone(),
        population: spec.population,
        iterations: spec.iterations,
        p_cross: spec.p_cross,
        p_mut: spec
            .p_mut
            .unwrap_or(1.0 / problem.data.quasi.len().max(1) as f64),
        seed,
        front: run
            .archive
            .iter()
            .map(|n| node(&problem, &names, n, &file))
            .collect(),
        nodes_evaluated: run.nodes_evaluated,
        lattice_size: problem.lattice.size(),
        seconds,
        exact,
    })
}

/// The objectives of `[pareto]`, errors named by key.
fn objectives(spec: &ParetoSpec, file: &str) -> Result<Vec<Objective>> {
    spec.objectives
        .iter()
        .enumerate()
        .map(|(i, o)| {
            objective(o).map_err(|m| Error::config(file, format!("pareto.objectives[{i}]"), m))
        })
        .collect()
}

/// The suppression budget η of `[pareto]` in rows, for a table of `rows` rows.
fn budget(spec: &ParetoSpec, rows: u64, file: &str) -> Result<u64> {
    Ok(match (spec.budget_rows, spec.budget_fraction) {
        (Some(_), Some(_)) => {
            return Err(Error::config(
                file,
                "pareto.budget_rows",
                "give budget_rows or budget_fraction, not both",
            ))
        }
        (Some(r), None) => r,
        (None, Some(f)) if (0.0..1.0).contains(&f) => (f * rows as f64).floor() as u64,
        (None, Some(f)) => {
            return Err(Error::config(
                file,
                "pareto.budget_fraction",
                format!("must lie in [0, 1), not {f}"),
            ))
        }
        (None, None) => 0,
    })
}

/// Node `levels` of `data` under the `[pareto]` budget of `config`: what `cellsafe pareto`
/// reports for it, computed by the same evaluator, to release it with
/// [`crate::job::anonymize`]. Errors name the key at fault.
pub(crate) fn node_release(
    config: &Config,
    data: &Dataset,
    levels: &[u8],
) -> Result<ParetoRelease> {
    let file = config.file_name();
    let spec = config
        .pareto
        .as_ref()
        .ok_or_else(|| Error::config(&file, "pareto", "no [pareto] section"))?;
    let objectives = objectives(spec, &file)?;
    let problem = Problem::new(data.clone(), &[], 0.0, &config.metric)?;
    let budget = budget(spec, problem.data.rows() as u64, &file)?;
    let evaluator = Evaluator::new(&problem, &objectives, budget).map_err(|e| at_key(e, &file))?;
    problem
        .check_levels(levels)
        .map_err(|e| Error::config(&file, "search.levels", e.to_string()))?;
    let values = evaluator.evaluate(levels, &problem.classes(levels));
    Ok(ParetoRelease {
        budget_rows: budget,
        k: values.k,
        suppressed_rows: values.suppressed_rows,
        values: objectives
            .iter()
            .zip(&values.values)
            .map(|(o, &v)| (o.name(), Value::from(v)))
            .collect(),
    })
}

/// `path` as one shell word: as it is when it needs no quoting, else in single quotes.
pub(crate) fn shell_word(path: &str) -> String {
    let plain = !path.is_empty()
        && path
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_-./+,:=@%".contains(c));
    if plain {
        path.to_owned()
    } else {
        format!("'{}'", path.replace('\'', "'\\''"))
    }
}

/// The command that releases node `levels` of the config at `config_path`.
pub fn release_command(config_path: &str, levels: &[u8]) -> String {
    let levels: Vec<String> = levels.iter().map(u8::to_string).collect();
    format!(
        "cellsafe anonymize {} --levels {}",
        shell_word(config_path),
        levels.join(",")
    )
}

/// The objective `o` describes, or what is wrong with it.
fn objective(o: &ObjectiveSpec) -> std::result::Result<Objective, String> {
    match (&o.property, o.metric) {
        (Some(_), Some(_)) => Err("give a property or a metric, not both".into()),
        (None, None) => Err("give a property (with its index) or a metric".into()),
        (None, Some(metric)) => {
            if o.index.is_some() || o.attribute.is_some() {
                return Err("a metric takes no index or attribute".into());
            }
            Ok(Objective::Metric(MetricSpec {
                name: metric,
                ..MetricSpec::default()
            }))
        }
        (Some(p), None) => {
            let attribute = || {
                o.attribute
                    .clone()
                    .ok_or_else(|| format!("property `{p}` needs an attribute"))
            };
            let property = match p.as_str() {
                "class-size" => Property::ClassSize,
                "sensitive-count" => Property::SensitiveCount {
                    attribute: attribute()?,
                },
                "distinct-values" => Property::DistinctValues {
                    attribute: attribute()?,
                },
                "glm" => Property::Glm,
                "classification" => Property::Classification {
                    label: attribute()?,
                },
                other => {
                    return Err(format!(
                        "unknown property `{other}` (class-size, sensitive-count, \
                         distinct-values, glm, classification)"
                    ))
                }
            };
            if matches!(property, Property::ClassSize | Property::Glm) && o.attribute.is_some() {
                return Err(format!("property `{p}` takes no attribute"));
            }
            let index = o
                .index
                .ok_or_else(|| format!("property `{p}` needs an index (min, max or sum)"))?;
            Ok(Objective::Property { property, index })
        }
    }
}

/// A run's typed error, named by the `[pareto]` key that chose what failed.
fn at_key(e: Error, file: &str) -> Error {
    match e {
        Error::Pareto(p) => {
            let key = match &p {
                ParetoError::NotSensitive { objective, .. } => {
                    format!("pareto.objectives[{objective}]")
                }
                ParetoError::Budget { .. } => "pareto.budget_rows".into(),
                ParetoError::Eps { .. } => "pareto.eps".into(),
                ParetoError::NoObjectives => "pareto.objectives".into(),
                ParetoError::Parameter(_) => "pareto".into(),
            };
            Error::config(file, key, p.to_string())
        }
        Error::Metric(m) => Error::config(file, "pareto.objectives", m.to_string()),
        e => e,
    }
}

fn node(problem: &Problem, names: &[String], n: &Evaluated, config: &str) -> NodeReport {
    NodeReport {
        release: release_command(config, &n.levels),
        levels: levels_map(problem, &n.levels),
        values: names
            .iter()
            .zip(&n.values.values)
            .map(|(name, &v)| (name.clone(), Value::from(v)))
            .collect(),
        k: n.values.k,
        suppressed_rows: n.values.suppressed_rows,
    }
}

#[cfg(test)]
mod tests {
    use super::release_command;

    /// The command is one line a shell runs as written: a path with spaces or quotes is
    /// quoted, a plain one left as it is.
    #[test]
    fn release_commands_quote_what_a_shell_would_split() {
        assert_eq!(
            release_command("examples/pbg/pbg.toml", &[0, 6, 1]),
            "cellsafe anonymize examples/pbg/pbg.toml --levels 0,6,1"
        );
        assert_eq!(
            release_command("my jobs/it's.toml", &[2]),
            r"cellsafe anonymize 'my jobs/it'\''s.toml' --levels 2"
        );
        assert_eq!(
            release_command("a;b$c.toml", &[1, 0]),
            "cellsafe anonymize 'a;b$c.toml' --levels 1,0"
        );
    }
}
