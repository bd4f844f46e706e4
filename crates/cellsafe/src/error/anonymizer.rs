//! Why an [`Anonymizer`](crate::anonymizer::Anonymizer) cannot run as built: settings of
//! the builder that do not fit together or do not fit the table (a budget of suppressed
//! rows, a research subset, δ-presence). The enum lives here, below every layer, like the
//! others; the anonymizer layer returns it.

/// Builder settings that cannot run together (anonymizer layer).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum AnonymizerError {
    /// What needs the rows in memory, asked of a search that has only their frequency set
    /// (an engine that keeps the rows elsewhere).
    #[error(
        "{0} needs the rows in memory: run this job with the in-memory engine \
         ([engine] kind = \"memory\")"
    )]
    NeedsRows(&'static str),
    /// A budget of suppressed rows that leaves no row to release.
    #[error("a budget of {budget} rows would suppress the whole table of {rows} rows")]
    BudgetTooLarge {
        /// Rows the budget suppresses.
        budget: u64,
        /// Rows of the table.
        rows: usize,
    },
    /// A budget of suppressed rows with a search that suppresses no rows.
    #[error(
        "a budget of suppressed rows is for a level-based release: local recoding and the \
         set-based search suppress no rows"
    )]
    BudgetNotLevelBased,
    /// δ-presence (by its name) with a budget that suppresses the smallest classes.
    #[error(
        "{0} cannot be combined with suppressing the smallest classes: which ones were \
         suppressed tells a recipient holding the population who is in the subset"
    )]
    PresenceWithBudget(String),
    /// A research subset released in the input's order.
    #[error(
        "a research subset is released in a shuffled order: in the input's order its rows are \
         a subsequence of the population a recipient holds, and line up with it"
    )]
    SubsetInInputOrder,
    /// δ-presence with a public column, which splits classes where the recipient sees it.
    #[error(
        "{model} compares classes of the quasi-identifiers with the population; the public \
         column `{column}` splits them where the recipient can see it: make it \
         quasi-identifying"
    )]
    PresencePublicColumn {
        /// The model's name.
        model: String,
        /// The public column.
        column: String,
    },
    /// δ-presence (by its name) with a search that releases no lattice node.
    #[error("{0} compares generalized classes with the population: use a level-based search")]
    PresenceNotLevelBased(String),
    /// δ-presence (by its name) with microaggregated values.
    #[error(
        "{0} compares released classes with the population, which a recipient matches by \
         their generalized values: release generalized values, not microaggregates"
    )]
    PresenceMicroaggregates(String),
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each variant says what `Error::Invalid` said before it was typed.
    #[test]
    fn messages_are_those_of_the_untyped_errors() {
        let cases = [
            (
                AnonymizerError::BudgetTooLarge {
                    budget: 12,
                    rows: 10,
                },
                "a budget of 12 rows would suppress the whole table of 10 rows".to_string(),
            ),
            (
                AnonymizerError::BudgetNotLevelBased,
                "a budget of suppressed rows is for a level-based release: local recoding and \
                 the set-based search suppress no rows"
                    .into(),
            ),
            (
                AnonymizerError::PresenceWithBudget("(0.1, 0.5)-presence".into()),
                "(0.1, 0.5)-presence cannot be combined with suppressing the smallest classes: \
                 which ones were suppressed tells a recipient holding the population who is in \
                 the subset"
                    .into(),
            ),
            (
                AnonymizerError::SubsetInInputOrder,
                "a research subset is released in a shuffled order: in the input's order its \
                 rows are a subsequence of the population a recipient holds, and line up with it"
                    .into(),
            ),
            (
                AnonymizerError::PresencePublicColumn {
                    model: "(0.1, 0.5)-presence".into(),
                    column: "region".into(),
                },
                "(0.1, 0.5)-presence compares classes of the quasi-identifiers with the \
                 population; the public column `region` splits them where the recipient can see \
                 it: make it quasi-identifying"
                    .into(),
            ),
            (
                AnonymizerError::PresenceNotLevelBased("(0.1, 0.5)-presence".into()),
                "(0.1, 0.5)-presence compares generalized classes with the population: use a \
                 level-based search"
                    .into(),
            ),
            (
                AnonymizerError::PresenceMicroaggregates("(0.1, 0.5)-presence".into()),
                "(0.1, 0.5)-presence compares released classes with the population, which a \
                 recipient matches by their generalized values: release generalized values, not \
                 microaggregates"
                    .into(),
            ),
        ];
        for (error, message) in cases {
            assert_eq!(error.to_string(), message);
            assert_eq!(super::super::Error::from(error).to_string(), message);
        }
    }
}
