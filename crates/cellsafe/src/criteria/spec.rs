//! The privacy models as configured: plain data read from the job description, checked
//! for domain errors without any data, and bound to a dataset as a [`Criterion`].

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::beta_likeness::BetaLikeness;
use super::delta_disclosure::DeltaDisclosure;
use super::k_anonymity::KAnonymity;
use super::l_diversity::{DistinctLDiversity, EntropyLDiversity, RecursiveClDiversity};
use super::logical::{ConfidentialValues, LogicalSafety};
use super::presence::DeltaPresence;
use super::risk_based::{Risk, RiskBased};
use super::t_closeness::{self, TCloseness};
use super::{reference, CriteriaError, CriteriaErrorKind, Criterion, Span};
use crate::framework::dataset::{Dataset, SensitiveAttribute};
use crate::risk::population;

/// The ground distance of t-closeness.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Distance {
    /// Every two values are at distance 1.
    Equal,
    /// Values in their natural order, at distance |i − j| / (m − 1).
    Ordered,
    /// The height of the values' lowest common ancestor in the attribute's hierarchy,
    /// divided by the hierarchy's height.
    Hierarchical,
}

/// A privacy model as configured.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "model", rename_all = "kebab-case", deny_unknown_fields)]
pub enum ModelSpec {
    /// Every class has at least `k` rows.
    KAnonymity {
        /// The smallest class size, at least 1.
        k: u32,
    },
    /// Every class has at least ⌈l⌉ distinct values of `attribute`.
    DistinctLDiversity {
        /// The sensitive attribute (a column with role "sensitive").
        attribute: String,
        /// At least 1.
        l: f64,
    },
    /// Every class has at least ⌈l⌉ values and entropy at least ln l.
    EntropyLDiversity {
        /// The sensitive attribute (a column with role "sensitive").
        attribute: String,
        /// At least 1.
        l: f64,
    },
    /// In every class r1 < c·(r_l + … + r_m), r_i being the i-th largest frequency.
    RecursiveClDiversity {
        /// The sensitive attribute (a column with role "sensitive").
        attribute: String,
        /// Positive.
        c: f64,
        /// At least 1.
        l: u32,
    },
    /// Every class's distribution lies within earth mover's distance `t` of the input's.
    TCloseness {
        /// The sensitive attribute (a column with role "sensitive").
        attribute: String,
        /// In (0, 1].
        t: f64,
        /// The ground distance between two values.
        distance: Distance,
    },
    /// Every value's frequency in a class is within a factor 2^δ (strictly) of its overall
    /// frequency.
    DeltaDisclosure {
        /// The sensitive attribute (a column with role "sensitive").
        attribute: String,
        /// Positive.
        delta: f64,
    },
    /// No value's relative frequency gain in a class exceeds `beta` (enhanced: min(β, −ln p)).
    BetaLikeness {
        /// The sensitive attribute (a column with role "sensitive").
        attribute: String,
        /// Positive.
        beta: f64,
        /// The enhanced variant (default: basic).
        #[serde(default)]
        enhanced: bool,
    },
    /// Logical safety (paper 002, definition 5) for the formula `attribute ∈ values` held
    /// confidential by everyone: a class is unsafe when every member satisfies it, because
    /// the recipient then knows it of each of them.
    Confidential {
        /// The sensitive attribute (a column with role "sensitive").
        attribute: String,
        /// The confidential values, each of which must occur.
        values: Vec<String>,
    },
    /// Logical safety (paper 002 definition 5, paper 000 section 3.1) for the formulas and
    /// per-person CON sets of the `[safety]` section: a class is unsafe when some formula
    /// holds of every member and some member holds it confidential.
    LogicalSafety,
    /// ARX's `AverageReidentificationRisk`: the prosecutor's average risk of what is
    /// released, 1 / (average class size), is at most `threshold`.
    AverageRisk {
        /// In [0, 1].
        threshold: f64,
        /// With `records_at_risk`: at most that share of the released records may have a
        /// risk above this one, in (0, 1] (a class size below ⌈1/highest_risk⌉, as ARX
        /// rounds it).
        #[serde(default)]
        highest_risk: Option<f64>,
        /// In [0, 1]; given with `highest_risk`.
        #[serde(default)]
        records_at_risk: Option<f64>,
    },
    /// ARX's `DPresence`: the table is a research subset of a population table
    /// (`[input.subset]`), and in every class the share of the population's rows that are
    /// in the subset lies in [`delta_min`, `delta_max`].
    DeltaPresence {
        /// In [0, 1].
        delta_min: f64,
        /// In [`delta_min`, 1].
        delta_max: f64,
    },
    /// ARX's `SampleUniqueness`: at most a `threshold` share of the released records is
    /// alone in its class.
    SampleUniqueness {
        /// In [0, 1].
        threshold: f64,
    },
    /// ARX's `PopulationUniqueness`: at most a `threshold` share of the population is
    /// estimated unique (by `estimator`, Dankar's rule by default), the table being drawn
    /// from a population of `population_size` records, or `sampling_fraction` of it.
    PopulationUniqueness {
        /// In [0, 1].
        threshold: f64,
        /// The model estimating the population uniques.
        #[serde(default)]
        estimator: Estimator,
        /// Records in the population (at least the table's rows).
        #[serde(default)]
        population_size: Option<u64>,
        /// The table's share of the population, in (0, 1].
        #[serde(default)]
        sampling_fraction: Option<f64>,
    },
}

/// The population-uniqueness model of [`ModelSpec::PopulationUniqueness`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Estimator {
    /// Dankar et al.'s decision rule.
    #[default]
    Dankar,
    /// Zayatz's model.
    Zayatz,
    /// Pitman's model.
    Pitman,
    /// The slide negative binomial model.
    Snb,
}

impl Estimator {
    /// The estimator of the risk analysis.
    pub(crate) fn model(self) -> population::Model {
        match self {
            Estimator::Dankar => population::Model::Dankar,
            Estimator::Zayatz => population::Model::Zayatz,
            Estimator::Pitman => population::Model::Pitman,
            Estimator::Snb => population::Model::Snb,
        }
    }
}

impl ModelSpec {
    /// The sensitive attribute the model reads, if it reads one.
    pub(crate) fn attribute(&self) -> Option<&str> {
        match self {
            ModelSpec::KAnonymity { .. } => None,
            ModelSpec::DistinctLDiversity { attribute, .. }
            | ModelSpec::EntropyLDiversity { attribute, .. }
            | ModelSpec::RecursiveClDiversity { attribute, .. }
            | ModelSpec::TCloseness { attribute, .. }
            | ModelSpec::DeltaDisclosure { attribute, .. }
            | ModelSpec::BetaLikeness { attribute, .. }
            | ModelSpec::Confidential { attribute, .. } => Some(attribute),
            ModelSpec::LogicalSafety
            | ModelSpec::DeltaPresence { .. }
            | ModelSpec::AverageRisk { .. }
            | ModelSpec::SampleUniqueness { .. }
            | ModelSpec::PopulationUniqueness { .. } => None,
        }
    }

    /// Short name used in reports.
    pub(crate) fn name(&self) -> String {
        match self {
            ModelSpec::KAnonymity { k } => format!("{k}-anonymity"),
            ModelSpec::DistinctLDiversity { attribute, l } => {
                format!("distinct-{l}-diversity({attribute})")
            }
            ModelSpec::EntropyLDiversity { attribute, l } => {
                format!("entropy-{l}-diversity({attribute})")
            }
            ModelSpec::RecursiveClDiversity { attribute, c, l } => {
                format!("recursive-({c},{l})-diversity({attribute})")
            }
            ModelSpec::TCloseness {
                attribute,
                t,
                distance,
            } => {
                format!("{t}-closeness({attribute}, {distance:?} distance)")
            }
            ModelSpec::DeltaDisclosure { attribute, delta } => {
                format!("{delta}-disclosure({attribute})")
            }
            ModelSpec::Confidential { attribute, values } => {
                format!("confidential({attribute} in {{{}}})", values.join(", "))
            }
            ModelSpec::LogicalSafety => "logical-safety".into(),
            ModelSpec::AverageRisk {
                threshold,
                highest_risk: Some(h),
                records_at_risk: Some(r),
            } => format!("({threshold}, {h}, {r})-average-risk"),
            ModelSpec::AverageRisk { threshold, .. } => format!("({threshold})-average-risk"),
            ModelSpec::DeltaPresence {
                delta_min,
                delta_max,
            } => format!("({delta_min}, {delta_max})-presence"),
            ModelSpec::SampleUniqueness { threshold } => {
                format!("({threshold})-sample-uniqueness")
            }
            ModelSpec::PopulationUniqueness {
                threshold,
                estimator,
                ..
            } => format!("({threshold})-population-uniqueness({estimator:?})"),
            ModelSpec::BetaLikeness {
                attribute,
                beta,
                enhanced,
            } => {
                format!(
                    "{}-{beta}-likeness({attribute})",
                    if *enhanced { "enhanced" } else { "basic" }
                )
            }
        }
    }

    /// Checks that every parameter lies in its domain: k ≥ 1, l ≥ 1, c > 0, t in (0, 1],
    /// δ > 0, β > 0, all finite. On failure the error names the parameter
    /// ([`CriteriaErrorKind::Parameter`]).
    pub(crate) fn validate(&self) -> Result<(), CriteriaError> {
        let at_least_1 = |name: &'static str| Err((name, "must be at least 1".to_string()));
        let finite = |x: f64, name: &'static str, ok: bool, domain: &str| {
            if x.is_finite() && ok {
                Ok(())
            } else {
                Err((name, format!("must be {domain}, got {x}")))
            }
        };
        let checked = match self {
            ModelSpec::KAnonymity { k } if *k == 0 => at_least_1("k"),
            ModelSpec::DistinctLDiversity { l, .. } | ModelSpec::EntropyLDiversity { l, .. } => {
                finite(*l, "l", *l >= 1.0, "a number ≥ 1")
            }
            ModelSpec::RecursiveClDiversity { l, .. } if *l == 0 => at_least_1("l"),
            ModelSpec::RecursiveClDiversity { c, .. } => {
                finite(*c, "c", *c > 0.0, "a positive number")
            }
            ModelSpec::TCloseness { t, .. } => {
                finite(*t, "t", *t > 0.0 && *t <= 1.0, "a number in (0, 1]")
            }
            ModelSpec::DeltaDisclosure { delta, .. } => {
                finite(*delta, "delta", *delta > 0.0, "a positive number")
            }
            ModelSpec::BetaLikeness { beta, .. } => {
                finite(*beta, "beta", *beta > 0.0, "a positive number")
            }
            ModelSpec::AverageRisk {
                threshold,
                highest_risk,
                records_at_risk,
            } => finite(
                *threshold,
                "threshold",
                (0.0..=1.0).contains(threshold),
                "a number in [0, 1]",
            )
            .and_then(|()| match (highest_risk, records_at_risk) {
                (None, None) => Ok(()),
                (Some(h), Some(r)) => finite(
                    *h,
                    "highest_risk",
                    *h > 0.0 && *h <= 1.0,
                    "a number in (0, 1]",
                )
                .and_then(|()| {
                    finite(
                        *r,
                        "records_at_risk",
                        (0.0..=1.0).contains(r),
                        "a number in [0, 1]",
                    )
                }),
                _ => Err((
                    "highest_risk",
                    "give highest_risk and records_at_risk together".into(),
                )),
            }),
            ModelSpec::DeltaPresence {
                delta_min,
                delta_max,
            } => finite(
                *delta_min,
                "delta_min",
                (0.0..=1.0).contains(delta_min),
                "a number in [0, 1]",
            )
            .and_then(|()| {
                finite(
                    *delta_max,
                    "delta_max",
                    *delta_max >= *delta_min && *delta_max <= 1.0,
                    "a number in [delta_min, 1]",
                )
            }),
            ModelSpec::SampleUniqueness { threshold } => finite(
                *threshold,
                "threshold",
                (0.0..=1.0).contains(threshold),
                "a number in [0, 1]",
            ),
            ModelSpec::PopulationUniqueness {
                threshold,
                population_size,
                sampling_fraction,
                ..
            } => finite(
                *threshold,
                "threshold",
                (0.0..=1.0).contains(threshold),
                "a number in [0, 1]",
            )
            .and_then(|()| match (population_size, sampling_fraction) {
                (Some(_), None) => Ok(()),
                (None, Some(f)) => finite(
                    *f,
                    "sampling_fraction",
                    *f > 0.0 && *f <= 1.0,
                    "a number in (0, 1]",
                ),
                _ => Err((
                    "population_size",
                    "give the population's size or the sampling_fraction (one of them)".into(),
                )),
            }),
            _ => Ok(()),
        };
        checked.map_err(|(parameter, message)| {
            self.error(CriteriaErrorKind::Parameter { parameter, message })
        })
    }

    /// Binds the model to `data` (see [`super::Model::bind`]).
    pub(crate) fn criterion(&self, data: &Dataset) -> Result<Arc<dyn Criterion>, CriteriaError> {
        self.validate()?;
        let attribute = |name: &str| -> Result<&SensitiveAttribute, CriteriaError> {
            data.sensitive_index(name)
                .map(|i| &data.sensitive[i])
                .ok_or_else(|| self.error(CriteriaErrorKind::UnknownAttribute(name.into())))
        };
        Ok(match self {
            ModelSpec::KAnonymity { k } => Arc::new(KAnonymity::new(*k)),
            ModelSpec::DistinctLDiversity { attribute: a, l } => {
                Arc::new(DistinctLDiversity::new(span(attribute(a)?), *l))
            }
            ModelSpec::EntropyLDiversity { attribute: a, l } => {
                Arc::new(EntropyLDiversity::new(span(attribute(a)?), *l))
            }
            ModelSpec::RecursiveClDiversity { attribute: a, c, l } => {
                Arc::new(RecursiveClDiversity::new(span(attribute(a)?), *c, *l))
            }
            ModelSpec::TCloseness {
                attribute: a,
                t,
                distance,
            } => {
                let a = attribute(a)?;
                let (s, q) = (span(a), reference(a, data));
                match distance {
                    Distance::Equal => Arc::new(TCloseness::new(s, q, *t, t_closeness::Equal)),
                    Distance::Ordered => {
                        Arc::new(TCloseness::new(s, q, *t, t_closeness::Ordered::new(a)))
                    }
                    Distance::Hierarchical => {
                        let tree = t_closeness::Hierarchical::new(a).ok_or_else(|| {
                            self.error(CriteriaErrorKind::NoHierarchy(a.name.clone()))
                        })?;
                        Arc::new(TCloseness::new(s, q, *t, tree))
                    }
                }
            }
            ModelSpec::DeltaDisclosure {
                attribute: a,
                delta,
            } => {
                let a = attribute(a)?;
                Arc::new(DeltaDisclosure::new(span(a), reference(a, data), *delta))
            }
            ModelSpec::BetaLikeness {
                attribute: a,
                beta,
                enhanced,
            } => {
                let a = attribute(a)?;
                Arc::new(BetaLikeness::new(
                    span(a),
                    reference(a, data),
                    *beta,
                    *enhanced,
                ))
            }
            ModelSpec::Confidential {
                attribute: a,
                values,
            } => {
                let a = attribute(a)?;
                if let Some(v) = values.iter().find(|v| !a.values.contains(v)) {
                    return Err(self.error(CriteriaErrorKind::UnknownValue {
                        attribute: a.name.clone(),
                        value: v.clone(),
                    }));
                }
                Arc::new(ConfidentialValues::new(span(a), a, values))
            }
            ModelSpec::LogicalSafety => Arc::new(
                LogicalSafety::new(data).ok_or_else(|| self.error(CriteriaErrorKind::NoSafety))?,
            ),
            ModelSpec::AverageRisk {
                threshold,
                highest_risk,
                records_at_risk,
            } => Arc::new(RiskBased {
                risk: Risk::Average(
                    highest_risk
                        .zip(*records_at_risk)
                        .map(|(h, r)| (size_threshold(h), r)),
                ),
                threshold: *threshold,
            }),
            ModelSpec::DeltaPresence {
                delta_min,
                delta_max,
            } => Arc::new(
                DeltaPresence::new(*delta_min, *delta_max, data)
                    .map_err(|_| self.error(CriteriaErrorKind::KeyOverflow))?
                    .ok_or_else(|| self.error(CriteriaErrorKind::NoSubset))?,
            ),
            ModelSpec::SampleUniqueness { threshold } => Arc::new(RiskBased {
                risk: Risk::SampleUniques,
                threshold: *threshold,
            }),
            ModelSpec::PopulationUniqueness {
                threshold,
                estimator,
                population_size,
                sampling_fraction,
            } => {
                let rows = data.persons();
                let size = match (population_size, sampling_fraction) {
                    (Some(n), _) => *n,
                    (None, Some(f)) => ((rows as f64 / f).round() as u64).max(rows),
                    (None, None) => rows,
                };
                if size < rows {
                    return Err(self.error(CriteriaErrorKind::Parameter {
                        parameter: "population_size",
                        message: format!("must be at least the table's {rows} rows, got {size}"),
                    }));
                }
                Arc::new(RiskBased {
                    risk: Risk::PopulationUniques(estimator.model(), size),
                    threshold: *threshold,
                })
            }
        })
    }

    /// `kind`, as an error of this model.
    fn error(&self, kind: CriteriaErrorKind) -> CriteriaError {
        CriteriaError {
            model: self.name(),
            kind,
        }
    }
}

/// ARX's class size below which a record's risk exceeds `risk` (`ParameterTranslation.
/// getSizeThreshold`): ⌊1/risk⌋, plus one unless 1/⌊1/risk⌋ is within 1 % of `risk`.
pub(crate) fn size_threshold(risk: f64) -> u64 {
    if risk == 0.0 {
        return i32::MAX as u64;
    }
    let size = 1.0 / risk;
    let mut floor = size.floor();
    if 1.0 / floor - 1.0 / size >= 0.01 * risk {
        floor += 1.0;
    }
    floor as u64
}

fn span(a: &SensitiveAttribute) -> Span {
    Span::of_attribute(a)
}
