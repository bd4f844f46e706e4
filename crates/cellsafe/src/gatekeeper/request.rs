//! What a recipient asks: the columns of one table, and the rows whose values pass every
//! condition. The front end parses its query language into a [`Request`]; the database
//! computes the rows, and the same conditions, read here as sets of values per column, say
//! what the answer tells the recipient about every row, the rows left out included.

use serde::{Deserialize, Serialize};

use crate::error::{QueryError, Result};

/// A query: columns to release, and a conjunction of conditions on single columns.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Request {
    /// Column names, in the order asked (identifying ones are dropped by the filter).
    pub columns: Vec<String>,
    /// Every row of the answer passes all of them; every other row fails one.
    pub conditions: Vec<Condition>,
}

/// A test of one column's value.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Condition {
    /// The column tested.
    pub column: String,
    /// The test.
    pub test: Test,
}

/// The tests a condition may apply. On a numeric column (every value a plain number)
/// values compare as numbers; on any other column only equality and membership apply,
/// comparing the text exactly.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Test {
    /// Equal to the literal.
    Eq(String),
    /// Different from the literal.
    Ne(String),
    /// One of the literals.
    In(Vec<String>),
    /// None of the literals.
    NotIn(Vec<String>),
    /// Below (numeric columns).
    Lt(String),
    /// At most (numeric columns).
    Le(String),
    /// Above (numeric columns).
    Gt(String),
    /// At least (numeric columns).
    Ge(String),
    /// Between both bounds, inclusive (numeric columns).
    Between(String, String),
    /// Outside both bounds (numeric columns).
    NotBetween(String, String),
}

/// `text` as a plain number (`-12`, `3.5`, `1e3`; no scale suffix, finite, and not a
/// non-zero number so small that it reads as 0, like `1e-400`, which a database refuses
/// as out of range), the form a database stores as a number. A column is numeric when
/// all its values are.
pub fn plain_number(text: &str) -> Option<f64> {
    let t = text.as_bytes();
    let digits = |b: &u8| b.is_ascii_digit();
    let mut i = usize::from(t.first() == Some(&b'-'));
    let start = i;
    while i < t.len() && digits(&t[i]) {
        i += 1;
    }
    let mut mantissa = i > start;
    if i < t.len() && t[i] == b'.' {
        i += 1;
        let f = i;
        while i < t.len() && digits(&t[i]) {
            i += 1;
        }
        mantissa |= i > f;
    }
    if !mantissa {
        return None;
    }
    if i < t.len() && (t[i] == b'e' || t[i] == b'E') {
        i += 1;
        if i < t.len() && (t[i] == b'-' || t[i] == b'+') {
            i += 1;
        }
        let e = i;
        while i < t.len() && digits(&t[i]) {
            i += 1;
        }
        if i == e {
            return None;
        }
    }
    if i != t.len() {
        return None;
    }
    let mantissa_end = t
        .iter()
        .position(|&b| b == b'e' || b == b'E')
        .unwrap_or(t.len());
    let nonzero = t[..mantissa_end]
        .iter()
        .any(|&b| (b'1'..=b'9').contains(&b));
    text.parse::<f64>()
        .ok()
        .filter(|x| x.is_finite() && (*x != 0.0 || !nonzero))
}

impl Condition {
    /// Per value of `values` (a column's values, `numeric` when all are plain numbers):
    /// whether it passes the test. Errors name the column.
    pub(crate) fn passes(&self, values: &[String], numeric: bool) -> Result<Vec<bool>> {
        let column = &self.column;
        let number = |v: &str| -> Result<f64> {
            plain_number(v).ok_or_else(|| {
                QueryError::NotNumber {
                    column: column.clone(),
                    value: crate::error::excerpt(v).into_owned(),
                }
                .into()
            })
        };
        let ordered = || -> Result<()> {
            if numeric {
                Ok(())
            } else {
                Err(QueryError::NotOrdered(column.clone()).into())
            }
        };
        // equality: numbers by value on a numeric column, else the exact text
        let equal = |lits: &[String]| -> Result<Vec<bool>> {
            if numeric {
                let xs = lits
                    .iter()
                    .map(|l| number(l))
                    .collect::<Result<Vec<f64>>>()?;
                Ok(values
                    .iter()
                    .map(|v| plain_number(v).is_some_and(|x| xs.contains(&x)))
                    .collect())
            } else {
                Ok(values.iter().map(|v| lits.contains(v)).collect())
            }
        };
        let compare = |lit: &str, keep: fn(f64, f64) -> bool| -> Result<Vec<bool>> {
            ordered()?;
            let b = number(lit)?;
            Ok(values
                .iter()
                .map(|v| plain_number(v).is_some_and(|x| keep(x, b)))
                .collect())
        };
        let negate = |v: Vec<bool>| v.into_iter().map(|b| !b).collect();
        match &self.test {
            Test::Eq(l) => equal(std::slice::from_ref(l)),
            Test::Ne(l) => equal(std::slice::from_ref(l)).map(negate),
            Test::In(ls) => equal(ls),
            Test::NotIn(ls) => equal(ls).map(negate),
            Test::Lt(l) => compare(l, |x, b| x < b),
            Test::Le(l) => compare(l, |x, b| x <= b),
            Test::Gt(l) => compare(l, |x, b| x > b),
            Test::Ge(l) => compare(l, |x, b| x >= b),
            Test::Between(lo, hi) | Test::NotBetween(lo, hi) => {
                ordered()?;
                let (lo, hi) = (number(lo)?, number(hi)?);
                let inside: Vec<bool> = values
                    .iter()
                    .map(|v| plain_number(v).is_some_and(|x| lo <= x && x <= hi))
                    .collect();
                Ok(if matches!(self.test, Test::Between(..)) {
                    inside
                } else {
                    negate(inside)
                })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_numbers_are_what_a_database_stores_as_numbers() {
        for (t, x) in [
            ("12", 12.0),
            ("-3.5", -3.5),
            ("1e3", 1000.0),
            (".5", 0.5),
            ("5.", 5.0),
            ("0e-400", 0.0),
            ("-0.000", 0.0),
            ("1e-310", 1e-310),
        ] {
            assert_eq!(plain_number(t), Some(x), "{t}");
        }
        for t in [
            "",
            "-",
            ".",
            "300K",
            " 1",
            "1 ",
            "inf",
            "NaN",
            "1e",
            "1e400",
            "0x10",
            "+1",
            "1e-400",
            "-2.5e-999",
        ] {
            assert_eq!(plain_number(t), None, "{t}");
        }
    }

    #[test]
    fn conditions_compare_numbers_by_value_and_text_exactly() {
        let values: Vec<String> = ["30", "30.0", "41", "7"].map(String::from).to_vec();
        let c = |test| Condition {
            column: "age".into(),
            test,
        };
        assert_eq!(
            c(Test::Eq("30".into())).passes(&values, true).unwrap(),
            [true, true, false, false]
        );
        assert_eq!(
            c(Test::Gt("8".into())).passes(&values, true).unwrap(),
            [true, true, true, false]
        );
        assert_eq!(
            c(Test::NotBetween("8".into(), "40".into()))
                .passes(&values, true)
                .unwrap(),
            [false, false, true, true]
        );
        // as text, "30.0" is not "30", and ordering is refused
        assert_eq!(
            c(Test::In(vec!["30".into()]))
                .passes(&values, false)
                .unwrap(),
            [true, false, false, false]
        );
        assert!(c(Test::Lt("8".into())).passes(&values, false).is_err());
        assert!(c(Test::Eq("old".into())).passes(&values, true).is_err());
    }
}
