//! Why a gatekeeper [`Center`](crate::gatekeeper::Center) cannot be set up as given (its
//! models, its `[gatekeeper]` settings), or was asked about rows it does not hold. A query
//! the gatekeeper cannot answer is a [`QueryError`](super::QueryError) instead: the front
//! end reports that one to the client, these to its operator. The enum lives here, below
//! every layer, like the others; the gatekeeper layer returns it.

use super::excerpt;

/// A center that cannot be set up as given, or a call that does not fit it (gatekeeper
/// layer).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CenterError {
    /// δ-presence (by its name): it compares a release with a population, and the
    /// gatekeeper answers over its whole table.
    #[error(
        "{0} compares a release with its population; the gatekeeper answers queries over its \
         whole table"
    )]
    Presence(String),
    /// With `decide = "public"`, a class-based model (by its name) other than k-anonymity.
    #[error(
        "decisions from public information allow only k-anonymity: {0} depends on the \
         confidential values"
    )]
    PublicModel(String),
    /// With `decide = "public"`, no k-anonymity model.
    #[error("decisions from public information need a k-anonymity model")]
    PublicWithoutK,
    /// `gatekeeper.numeric` lists a column the table does not have.
    #[error("gatekeeper.numeric: no column `{}`", excerpt(.0))]
    NumericNoColumn(String),
    /// `gatekeeper.numeric` lists a column with a value that is not a plain number.
    #[error(
        "gatekeeper.numeric: column `{column}` is listed as numeric, but its value `{}` \
         (data row {row}) is not a number",
        excerpt(.value)
    )]
    NumericNotNumber {
        /// The column listed.
        column: String,
        /// The first value that is not a number.
        value: String,
        /// Its data row, 1-based.
        row: usize,
    },
    /// `gatekeeper.max_tests` is 0: no answer could be tested.
    #[error("gatekeeper: max_tests must be at least 1")]
    MaxTests,
    /// The rows found for a query include one the table does not have (the front end's
    /// database and the center disagree: a fault of the front end, not of the query).
    #[error("row {row} is not a row of the table ({rows} rows)")]
    NoRow {
        /// The 0-based row given.
        row: u32,
        /// Rows of the table.
        rows: usize,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each variant says what `Error::Invalid` said before it was typed.
    #[test]
    fn messages_are_those_of_the_untyped_errors() {
        let long = "x".repeat(100);
        let cases = [
            (
                CenterError::Presence("(0.1, 0.5)-presence".into()),
                "(0.1, 0.5)-presence compares a release with its population; the gatekeeper \
                 answers queries over its whole table"
                    .to_string(),
            ),
            (
                CenterError::PublicModel("2-diversity".into()),
                "decisions from public information allow only k-anonymity: 2-diversity depends \
                 on the confidential values"
                    .into(),
            ),
            (
                CenterError::PublicWithoutK,
                "decisions from public information need a k-anonymity model".into(),
            ),
            (
                CenterError::NumericNoColumn("weight".into()),
                "gatekeeper.numeric: no column `weight`".into(),
            ),
            (
                CenterError::NumericNoColumn(long.clone()),
                format!("gatekeeper.numeric: no column `{}`", excerpt(&long)),
            ),
            (
                CenterError::NumericNotNumber {
                    column: "age".into(),
                    value: "old".into(),
                    row: 3,
                },
                "gatekeeper.numeric: column `age` is listed as numeric, but its value `old` \
                 (data row 3) is not a number"
                    .into(),
            ),
            (
                CenterError::NumericNotNumber {
                    column: "age".into(),
                    value: long.clone(),
                    row: 3,
                },
                format!(
                    "gatekeeper.numeric: column `age` is listed as numeric, but its value `{}` \
                     (data row 3) is not a number",
                    excerpt(&long)
                ),
            ),
            (
                CenterError::MaxTests,
                "gatekeeper: max_tests must be at least 1".into(),
            ),
            (
                CenterError::NoRow { row: 7, rows: 5 },
                "row 7 is not a row of the table (5 rows)".into(),
            ),
        ];
        for (error, message) in cases {
            assert_eq!(error.to_string(), message);
            assert_eq!(super::super::Error::from(error).to_string(), message);
        }
    }
}
