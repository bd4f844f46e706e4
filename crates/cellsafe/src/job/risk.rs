//! `cellsafe risk`: the re-identification risks of a config's table, as it is or under one
//! transformation, and the JSON report.

use serde::Serialize;

use crate::algorithm::problem::{presence_pool, Problem};
use crate::criteria::DeltaPresence;
use crate::error::{JobError, Result};
use crate::release::SuppressedRows;
use crate::risk::population::{self, PopulationUniques};
use crate::risk::sample::{self, RiskSummary};
use crate::risk::Histogram;

/// What `cellsafe risk` reports; every risk is a fraction in [0, 1].
#[derive(Debug, Clone, Serialize)]
pub struct RiskReport {
    /// The quasi-identifiers, in header order.
    pub quasi_identifiers: Vec<String>,
    /// Their levels (all 0: the table as it is).
    pub levels: Vec<u8>,
    /// Rows of the table.
    pub records: u64,
    /// With a research subset: rows of the population table it was drawn from.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub population_records: Option<u64>,
    /// Rows suppressed by the transformation (their classes fail the config's models).
    pub suppressed: u64,
    /// How the suppressed rows count: `"one class"` when they are written with `*` for
    /// every quasi-identifier (a recipient sees them as one class, joined with a class
    /// whose every quasi-identifier reads `*`), `"left out"` when they are not written
    /// (ARX's risk analysis counts them this way whatever is written).
    pub suppressed_rows: &'static str,
    /// With suppressed rows written as `*`: the size of the class that holds them (their
    /// number, plus the rows of a class whose every quasi-identifier reads `*`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub suppressed_class_size: Option<u64>,
    /// Equivalence classes of the rows not suppressed.
    pub classes: u64,
    /// Class sizes: how many classes have each size, by increasing size.
    pub histogram: Vec<SizeCount>,
    /// The threshold of `records_at_risk`.
    pub threshold: f64,
    /// An attacker who knows their target is in the table.
    pub prosecutor: RiskSummary,
    /// An attacker who links against the population: the population table when the table
    /// is a research subset of it (`[input.subset]`; a class's risk is then 1 / its size
    /// in the population), else the table itself.
    pub journalist: RiskSummary,
    /// An attacker who links every record.
    pub marketer: Marketer,
    /// Share of the records alone in their class.
    pub sample_uniques: f64,
    /// The records' prosecutor risks: the share of records at each risk, by increasing risk.
    pub record_risks: Vec<RecordRisk>,
    /// Population uniques by each model, when a population size was given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub population_uniques: Option<PopulationUniques>,
}

/// The population the table was sampled from, for the population-based estimates.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Population {
    /// Its size in records (at least the table's rows).
    Size(u64),
    /// The table's share of it, in (0, 1]: the size is rows / fraction, rounded (as ARX).
    Fraction(f64),
}

/// One line of the class-size histogram.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct SizeCount {
    /// Records in a class.
    pub size: u64,
    /// Classes of that size.
    pub classes: u64,
}

/// The marketer's risk.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Marketer {
    /// The share of records they re-identify on average.
    pub average: f64,
}

/// The share of records at one risk.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct RecordRisk {
    /// 1 / (the records' class size).
    pub risk: f64,
    /// Share of the records with that risk.
    pub records: f64,
}

/// The risks of `problem`'s table at `levels` as a release writes it (None: as it is,
/// nothing suppressed; else the classes failing the problem's models are suppressed, as a
/// release at that node would, and `written` says whether the suppressed rows are in the
/// file). `threshold` must lie in [0, 1]; with `population`, the population-based
/// estimates are added.
pub fn risk(
    problem: &Problem,
    levels: Option<&[u8]>,
    threshold: f64,
    population: Option<Population>,
    written: SuppressedRows,
) -> Result<RiskReport> {
    if !(0.0..=1.0).contains(&threshold) {
        return Err(JobError::RiskThreshold(threshold).into());
    }
    // persons, not rows: a frequency set's row stands for as many persons as its weight
    let rows = problem.data.persons();
    let population_table = problem.data.population.as_ref().map(|p| p.persons());
    let population = match population {
        // a research subset's population is known
        None => population_table,
        Some(Population::Size(n)) if n >= rows && n > 0 => Some(n),
        Some(Population::Size(n)) => {
            return Err(JobError::Population {
                population: n,
                rows,
            }
            .into())
        }
        Some(Population::Fraction(f)) if f > 0.0 && f <= 1.0 => {
            Some(((rows as f64 / f).round() as u64).max(rows))
        }
        Some(Population::Fraction(f)) => return Err(JobError::SamplingFraction(f).into()),
    };
    let bottom = problem.lattice.bottom();
    let at = levels.unwrap_or(&bottom);
    problem.check_levels(at)?;
    let classes = problem.classes(at);
    let suppressed = match levels {
        Some(_) => problem.suppressed(at, &classes),
        None => vec![false; classes.len()],
    };
    let mut sizes: Vec<u64> = classes
        .counts
        .iter()
        .zip(&suppressed)
        .map(|(&c, &s)| if s { 0 } else { c as u64 })
        .collect();
    let starred: u64 = classes
        .counts
        .iter()
        .zip(&suppressed)
        .filter(|(_, &s)| s)
        .map(|(&c, _)| c as u64)
        .sum();
    // with a research subset, each class's size in the population
    let counts = match &problem.data.population {
        Some(_) => DeltaPresence::new(0.0, 1.0, &problem.data)?
            .map(|p| p.counts(&problem.hierarchies(), at, &classes)),
        None => None,
    };
    let mut pops: Option<Vec<u64>> = counts
        .as_ref()
        .map(|c| c.pcounts.iter().map(|&p| p as u64).collect());
    let mut suppressed_class_size = None;
    if written == SuppressedRows::Star && starred > 0 {
        // the suppressed rows read `*` for every quasi-identifier: one class, the same as
        // a class whose every label is `*`; in the population they hide among the persons
        // of the classes that show no released row
        let all_stars = problem.data.quasi.iter().zip(at).all(|(q, &l)| {
            (0..q.hierarchy.cardinality(l as usize) as u32)
                .all(|g| q.hierarchy.label(l as usize, g) == "*")
        });
        let pool = counts
            .as_ref()
            .map_or(0, |c| presence_pool(&classes, &suppressed, c).1);
        match sizes.iter().position(|s| all_stars && *s > 0) {
            Some(i) => {
                sizes[i] += starred;
                suppressed_class_size = Some(sizes[i]);
                if let Some(p) = pops.as_mut() {
                    p[i] += pool;
                }
            }
            None => {
                sizes.push(starred);
                suppressed_class_size = Some(starred);
                if let Some(p) = pops.as_mut() {
                    p.push(pool);
                }
            }
        }
    }
    let records = problem.data.persons();
    let histogram = Histogram::from_sizes(sizes.iter().copied());
    let risks = sample::risks(&sizes, pops.as_deref(), threshold);
    Ok(RiskReport {
        quasi_identifiers: problem.data.quasi.iter().map(|q| q.name.clone()).collect(),
        levels: at.to_vec(),
        records,
        population_records: population_table,
        suppressed: starred,
        suppressed_rows: match written {
            SuppressedRows::Star => "one class",
            SuppressedRows::Drop => "left out",
        },
        suppressed_class_size,
        classes: histogram.classes,
        histogram: histogram
            .sizes
            .iter()
            .map(|&(size, classes)| SizeCount { size, classes })
            .collect(),
        threshold,
        prosecutor: risks.prosecutor,
        journalist: risks.journalist,
        marketer: Marketer {
            average: risks.marketer,
        },
        sample_uniques: histogram.sample_uniqueness(),
        record_risks: sample::record_risks(&sizes)
            .into_iter()
            .map(|(risk, records)| RecordRisk { risk, records })
            .collect(),
        population_uniques: population.map(|n| population::uniques(&histogram, n)),
    })
}
