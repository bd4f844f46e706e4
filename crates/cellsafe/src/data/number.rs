//! Numbers in data values and formula literals, read one way everywhere: `12`, `-3.5`,
//! `1e3`, and with a scale suffix `300K`, `2M`, `1G`; surrounding spaces ignored; only
//! finite values count as numbers (`inf`, `NaN` and overflowing literals do not).
//!
//! Orders (natural order of a column, ordered t-closeness, the audit's reference
//! distribution), interval builders, means and formula comparisons all use [`parse`], so a
//! value is a number for one of them exactly when it is for all.

/// The value of `text` as a finite number, if it is one.
pub(crate) fn parse(text: &str) -> Option<f64> {
    let t = text.trim();
    let (digits, scale) = match t.chars().last()? {
        'k' | 'K' => (&t[..t.len() - 1], 1e3),
        'm' | 'M' => (&t[..t.len() - 1], 1e6),
        'g' | 'G' => (&t[..t.len() - 1], 1e9),
        _ => (t, 1.0),
    };
    let x: f64 = digits.trim().parse().ok()?;
    Some(x * scale).filter(|x| x.is_finite())
}

/// Whether every value is a number.
pub(crate) fn all_numbers<'a>(values: impl IntoIterator<Item = &'a str>) -> bool {
    values.into_iter().all(|v| parse(v).is_some())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_plain_scaled_and_refuses_non_finite() {
        assert_eq!(parse(" 12 "), Some(12.0));
        assert_eq!(parse("-3.5"), Some(-3.5));
        assert_eq!(parse("1e3"), Some(1000.0));
        assert_eq!(parse("300K"), Some(300_000.0));
        assert_eq!(parse("2m"), Some(2e6));
        assert_eq!(parse("1G"), Some(1e9));
        for bad in [
            "",
            "K",
            "abc",
            "inf",
            "NaN",
            "-inf",
            "1e400",
            "1e300G",
            "12 apples",
        ] {
            assert_eq!(parse(bad), None, "{bad}");
        }
        assert!(all_numbers(["1", "2K"]));
        assert!(!all_numbers(["1", "x"]));
    }
}
