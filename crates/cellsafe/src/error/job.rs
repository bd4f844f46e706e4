//! Why a job cannot run as asked: arguments of the front end's commands that lie outside
//! their domain (`--semi-sensitive`, the risk threshold, the population), and a release of
//! a `[pareto]` node that does not match the front. The enum lives here, below every
//! layer, like the others; the job layer returns it.

use std::path::PathBuf;

/// A job that cannot run as asked (job layer).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum JobError {
    /// The density of the drawn flags (`--semi-sensitive`) is a probability.
    #[error("--semi-sensitive must lie in [0, 1], not {0}")]
    Density(f64),
    /// A column to draw flags for is not in the input.
    #[error("{} has no column `{column}`", .path.display())]
    NoColumn {
        /// The input file.
        path: PathBuf,
        /// The column named.
        column: String,
    },
    /// The input already has the flag column that would be added.
    #[error("{} already has a column `{column}`", .path.display())]
    HasColumn {
        /// The input file.
        path: PathBuf,
        /// The flag column's name.
        column: String,
    },
    /// The risk threshold is a share of records.
    #[error("the risk threshold must lie in [0, 1], not {0}")]
    RiskThreshold(f64),
    /// A population smaller than the table drawn from it.
    #[error("the population ({population} records) must hold at least the table's {rows} rows")]
    Population {
        /// The population's size, as given.
        population: u64,
        /// Rows of the table.
        rows: u64,
    },
    /// The table's share of the population is a fraction in (0, 1].
    #[error("the sampling fraction must lie in (0, 1], not {0}")]
    SamplingFraction(f64),
    /// A node of the `[pareto]` front whose k-anonymity does not fit a `u32`.
    #[error("the node's k = {0} is too large")]
    NodeK(u64),
    /// The release of a `[pareto]` node suppressed other rows than the front's evaluator
    /// counted: it would not be that node (a bug, not bad input).
    #[error(
        "the release of the [pareto] node suppressed {released:?} rows where its budget \
         suppresses {budget}"
    )]
    ParetoSuppressed {
        /// Rows the release suppressed (None: it released nothing).
        released: Option<u64>,
        /// Rows the node's budget suppresses.
        budget: u64,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each variant says what `Error::Invalid` said before it was typed.
    #[test]
    fn messages_are_those_of_the_untyped_errors() {
        let cases = [
            (
                JobError::Density(1.5),
                "--semi-sensitive must lie in [0, 1], not 1.5",
            ),
            (
                JobError::NoColumn {
                    path: "in.csv".into(),
                    column: "age".into(),
                },
                "in.csv has no column `age`",
            ),
            (
                JobError::HasColumn {
                    path: "in.csv".into(),
                    column: "age_flag".into(),
                },
                "in.csv already has a column `age_flag`",
            ),
            (
                JobError::RiskThreshold(-0.5),
                "the risk threshold must lie in [0, 1], not -0.5",
            ),
            (
                JobError::Population {
                    population: 5,
                    rows: 10,
                },
                "the population (5 records) must hold at least the table's 10 rows",
            ),
            (
                JobError::SamplingFraction(0.0),
                "the sampling fraction must lie in (0, 1], not 0",
            ),
            (
                JobError::NodeK(u64::MAX),
                "the node's k = 18446744073709551615 is too large",
            ),
            (
                JobError::ParetoSuppressed {
                    released: Some(3),
                    budget: 4,
                },
                "the release of the [pareto] node suppressed Some(3) rows where its budget \
                 suppresses 4",
            ),
            (
                JobError::ParetoSuppressed {
                    released: None,
                    budget: 4,
                },
                "the release of the [pareto] node suppressed None rows where its budget \
                 suppresses 4",
            ),
        ];
        for (error, message) in cases {
            assert_eq!(error.to_string(), message);
            assert_eq!(super::super::Error::from(error).to_string(), message);
        }
    }
}
