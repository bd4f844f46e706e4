//! `[disclose]`: reading a disclosure problem from the job config.
//!
//! ```toml
//! [disclose]
//! check = { type = "recursive-cl", c = 2, l = 2 }
//! method = "auto"          # or "enumeration", "counting", "estimate"
//! samples = 20000          # estimator draws
//! seed = 1
//! [[disclose.generalizations]]
//! name = "decades"
//! groups = [["Alice", "Bob"], ["Clark", "Diana"]]   # by identifier
//! [[disclose.generalizations]]
//! column = "G2"             # rows with equal labels in this column form a group
//! [[disclose.generalizations]]
//! levels = [1, 0]           # a lattice node: its equivalence classes
//! ```

use serde::Deserialize;

use crate::algorithm::disclosure::public::PublicSearch;
use crate::algorithm::disclosure::{
    Check, CheckSpec, Disclosure, Instance, MethodChoice, Options, Partition, Strategy,
};
use crate::data::table::Table;
use crate::data::Role;
use crate::error::{DisclosureError, Error, Result};
use crate::job::config::Config;

fn default_samples() -> u64 {
    Options::default().samples
}
fn default_seed() -> u64 {
    Options::default().seed
}
fn default_confidence() -> f64 {
    Options::default().confidence
}
fn default_budget() -> u64 {
    Options::default().budget
}

/// The `[disclose]` section.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DiscloseSpec {
    /// The property the adversary's beliefs must satisfy.
    pub check: CheckSpec,
    /// Strategy when the command line does not name one (default: exclusive).
    #[serde(default)]
    pub strategy: Option<Strategy>,
    /// The generalizations in the order the algorithm tries them (for `cellsafe disclose`;
    /// `anonymize` takes them from its search and allows none here).
    #[serde(default)]
    pub generalizations: Vec<GeneralizationSpec>,
    /// The method assessing disclosure sets (default `auto`).
    #[serde(default)]
    pub method: MethodChoice,
    /// Draws of the estimator, at most `MAX_SAMPLES`.
    #[serde(default = "default_samples")]
    pub samples: u64,
    /// Seed of the estimator's sampling.
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// Confidence of the estimator's intervals, in (0, 1).
    #[serde(default = "default_confidence")]
    pub confidence: f64,
    /// Most tables enumeration may visit.
    #[serde(default = "default_budget")]
    pub budget: u64,
}

/// One generalization function: exactly one of `groups`, `column` or `levels`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GeneralizationSpec {
    /// Name in reports (default `gK` for the K-th, 1-based; `levels [..]` for a node).
    #[serde(default)]
    pub name: Option<String>,
    /// Groups of persons, by identifier (needs an attribute with role `identifying`).
    #[serde(default)]
    pub groups: Option<Vec<Vec<String>>>,
    /// A column: rows with equal values in it form a group.
    #[serde(default)]
    pub column: Option<String>,
    /// A lattice node: its equivalence classes are the groups.
    #[serde(default)]
    pub levels: Option<Vec<u8>>,
}

/// Most estimator draws `disclose.samples` may ask for.
const MAX_SAMPLES: u64 = 10_000_000;
/// Largest enumeration budget `disclose.budget` may set (the inclusive strategy memoizes
/// what it visits).
const MAX_BUDGET: u64 = 100_000_000;

impl DiscloseSpec {
    /// The options this section sets; errors name the key.
    fn options(&self, file: &str) -> Result<Options> {
        if !(self.confidence > 0.0 && self.confidence < 1.0) {
            return Err(Error::config(
                file,
                "disclose.confidence",
                "must lie in (0, 1)",
            ));
        }
        if !(1..=MAX_SAMPLES).contains(&self.samples) {
            return Err(Error::config(
                file,
                "disclose.samples",
                format!("must be between 1 and {MAX_SAMPLES}, got {}", self.samples),
            ));
        }
        if self.budget > MAX_BUDGET {
            return Err(Error::config(
                file,
                "disclose.budget",
                format!("must be at most {MAX_BUDGET}, got {}", self.budget),
            ));
        }
        Ok(Options {
            method: self.method,
            budget: self.budget,
            samples: self.samples,
            seed: self.seed,
            confidence: self.confidence,
            ..Options::default()
        })
    }
}

/// An error of the configured method (too much work, or counting on generalizations that
/// are not nested), named by the config key that chose it.
pub fn locate(e: Error, file: &str) -> Error {
    match e {
        Error::Intractable(m) => Error::config(file, "disclose.method", m),
        Error::Disclosure(e @ DisclosureError::PublicSearchSuppresses) => {
            Error::config(file, "disclose", e.to_string())
        }
        Error::Disclosure(e @ DisclosureError::LogicalSafetyTest(i)) => {
            Error::config(file, format!("privacy[{i}]"), e.to_string())
        }
        Error::Disclosure(e @ DisclosureError::SensitiveCount(_)) => {
            Error::config(file, "attributes", e.to_string())
        }
        e => e,
    }
}

/// Builds the disclosure problem and options described by `config`'s `[disclose]` section.
pub fn from_config(config: &Config) -> Result<(Disclosure, Options)> {
    from_config_observed(config, &crate::observer::Silent)
}

/// [`from_config`], reporting how much of the input has been read and stopping with
/// [`Error::Cancelled`] when `observer` says so while it is read.
pub fn from_config_observed(
    config: &Config,
    observer: &dyn crate::observer::Observer,
) -> Result<(Disclosure, Options)> {
    let file = config.file_name();
    if config.input.subset.is_some() {
        return Err(Error::config(
            &file,
            "input.subset",
            "`cellsafe disclose` judges the whole table; a research subset (δ-presence) is \
             released by `cellsafe anonymize`",
        ));
    }
    let spec = config
        .disclose
        .as_ref()
        .ok_or_else(|| Error::config(&file, "disclose", "the config has no [disclose] section"))?;
    let check = Check::bind(&spec.check).map_err(|e| Error::config(&file, "disclose.check", e))?;
    let options = spec.options(&file)?;
    let (table, _) = config.read(observer)?;
    let role_of = |column: usize| {
        config
            .attributes
            .get(&table.header()[column])
            .map_or(config.input.default_role, |a| a.role)
    };
    config.check_attribute_columns(&table)?;
    let sensitive: Vec<usize> = (0..table.header().len())
        .filter(|&c| role_of(c) == Role::Sensitive)
        .collect();
    let &[sensitive] = sensitive.as_slice() else {
        return Err(Error::config(
            &file,
            "attributes",
            format!(
                "disclosure needs exactly one sensitive attribute, found {}",
                sensitive.len()
            ),
        ));
    };
    let identifier = (0..table.header().len()).find(|&c| role_of(c) == Role::Identifying);
    let persons: Vec<String> = (0..table.rows())
        .map(|r| match identifier {
            Some(c) => table.value(r, c).to_owned(),
            None => format!("line {}", table.line(r)),
        })
        .collect();
    let dictionary = table.dictionary(sensitive);
    let codes: Vec<u16> = table
        .codes(sensitive)
        .iter()
        .map(|&c| u16::try_from(c))
        .collect::<Result<_, _>>()
        .map_err(|_| {
            Error::config(
                &file,
                "attributes",
                "more than 65,535 distinct sensitive values",
            )
        })?;
    let instance = Instance::new(persons, dictionary.values().to_vec(), codes)?;

    if spec.generalizations.is_empty() {
        return Err(Error::config(
            &file,
            "disclose.generalizations",
            "list at least one generalization",
        ));
    }
    let mut problem = None;
    let mut chain = Vec::new();
    for (k, g) in spec.generalizations.iter().enumerate() {
        let key = format!("disclose.generalizations[{k}]");
        let default_name = format!("g{}", k + 1);
        let name = g.name.clone().unwrap_or(default_name);
        let partition = match (&g.groups, &g.column, &g.levels) {
            (Some(groups), None, None) => {
                let Some(id) = identifier else {
                    return Err(Error::config(
                        &file,
                        format!("{key}.groups"),
                        "groups list identifiers, but no attribute has role \"identifying\"",
                    ));
                };
                let labels = group_labels(&table, id, groups)
                    .map_err(|e| Error::config(&file, format!("{key}.groups"), e))?;
                Partition::from_labels(name, &labels)
            }
            (None, Some(column), None) => {
                let c = table.column_index(column).ok_or_else(|| {
                    Error::config(
                        &file,
                        format!("{key}.column"),
                        format!("no column `{column}`"),
                    )
                })?;
                Partition::from_labels(name, table.codes(c))
            }
            (None, None, Some(levels)) => {
                if problem.is_none() {
                    problem = Some(config.problem_observed(observer)?);
                }
                let p = problem.as_ref().expect("just built");
                p.check_levels(levels)
                    .map_err(|e| Error::config(&file, format!("{key}.levels"), e.to_string()))?;
                let classes = p.classes(levels);
                let rows = p.snapshot.row_classes(&p.hierarchies(), &classes, levels);
                let name = g
                    .name
                    .clone()
                    .unwrap_or_else(|| format!("levels {levels:?}"));
                Partition::from_labels(name, &rows)
            }
            _ => {
                return Err(Error::config(
                    &file,
                    key,
                    "give exactly one of `groups`, `column` or `levels`",
                ))
            }
        };
        chain.push(partition);
    }
    Ok((Disclosure::new(instance, chain, check)?, options))
}

/// Group label per row from lists of identifiers; every row exactly once.
fn group_labels(table: &Table, id: usize, groups: &[Vec<String>]) -> Result<Vec<usize>, String> {
    let mut label = vec![usize::MAX; table.rows()];
    let dictionary = table.dictionary(id);
    let mut row_of = vec![usize::MAX; dictionary.len()];
    for (r, &code) in table.codes(id).iter().enumerate() {
        if row_of[code as usize] != usize::MAX {
            return Err(format!(
                "identifier `{}` names more than one row",
                crate::error::excerpt(dictionary.value(code))
            ));
        }
        row_of[code as usize] = r;
    }
    for (g, names) in groups.iter().enumerate() {
        for name in names {
            let row = dictionary
                .code(name)
                .map(|c| row_of[c as usize])
                .ok_or_else(|| {
                    format!(
                        "group {g}: no row has identifier `{}`",
                        crate::error::excerpt(name)
                    )
                })?;
            if label[row] != usize::MAX {
                return Err(format!(
                    "`{}` is in more than one group",
                    crate::error::excerpt(name)
                ));
            }
            label[row] = g;
        }
    }
    if let Some(r) = label.iter().position(|&l| l == usize::MAX) {
        return Err(format!(
            "`{}` is in no group; every row must be in exactly one",
            crate::error::excerpt(table.value(r, id))
        ));
    }
    Ok(label)
}

/// The public search `[disclose]` describes for `anonymize`: the check, the options, and
/// the strategy (exclusive unless the section names one). Errors name the key.
pub(crate) fn public_search(spec: &DiscloseSpec, file: &str) -> Result<PublicSearch> {
    if !spec.generalizations.is_empty() {
        return Err(Error::config(
            file,
            "disclose.generalizations",
            "anonymize takes its chain from the search; list no generalizations",
        ));
    }
    Ok(PublicSearch {
        check: Check::bind(&spec.check).map_err(|e| Error::config(file, "disclose.check", e))?,
        options: spec.options(file)?,
        strategy: spec.strategy.unwrap_or(Strategy::Exclusive),
    })
}
