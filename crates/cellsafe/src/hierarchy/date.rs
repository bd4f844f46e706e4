//! Dates in a configured format (`%d`, `%m`, `%y`/`%Y`): the date builder's levels (day,
//! month, year) and a sortable key for medians of dates. Calendar validity is checked with
//! `jiff`.

use super::builder::with_top;
use crate::error::{excerpt, Error, Result};

/// The fields of a date format (`%d`, `%m`, `%y`/`%Y`, in order) and its first separator.
pub(crate) fn date_fields(format: &str) -> std::result::Result<(Vec<char>, char), String> {
    let mut fields = Vec::new();
    let mut sep = None;
    let mut chars = format.chars();
    while let Some(c) = chars.next() {
        if c == '%' {
            match chars.next() {
                Some(f @ ('d' | 'm' | 'y' | 'Y')) => fields.push(f),
                other => {
                    return Err(format!(
                        "unknown date field `%{}` (use %d, %m, %y or %Y)",
                        other.unwrap_or(' ')
                    ))
                }
            }
        } else {
            sep.get_or_insert(c);
        }
    }
    if !(fields.contains(&'d')
        && fields.contains(&'m')
        && (fields.contains(&'y') || fields.contains(&'Y')))
    {
        return Err("date format needs %d, %m and %y or %Y".into());
    }
    Ok((fields, sep.unwrap_or('/')))
}

/// Day, month and year digits of `value` read with `fields`. An error says why it is not
/// a date: it does not match the format, or names no day of the calendar (31/02).
pub(crate) fn date_parts<'v>(
    value: &'v str,
    fields: &[char],
) -> std::result::Result<(u32, u32, &'v str), String> {
    let parts: Vec<&str> = value
        .split(|c: char| !c.is_ascii_digit())
        .filter(|p| !p.is_empty())
        .collect();
    let no_match = || format!("value `{}` does not match the date format", excerpt(value));
    if parts.len() != fields.len() {
        return Err(no_match());
    }
    let (mut day, mut month, mut year, mut two_digit) = ("", "", "", false);
    for (f, p) in fields.iter().zip(&parts) {
        match f {
            'd' => day = p,
            'm' => month = p,
            f => {
                year = p;
                two_digit = *f == 'y' && p.len() <= 2;
            }
        }
    }
    let (Ok(d), Ok(m), Ok(y)) = (
        day.parse::<u32>(),
        month.parse::<u32>(),
        year.parse::<i16>(),
    ) else {
        return Err(no_match());
    };
    // two-digit years name 1969-2068, as strftime's %y does
    let full_year = match (two_digit, y) {
        (true, 0..=68) => 2000 + y,
        (true, _) => 1900 + y,
        (false, _) => y,
    };
    let (Ok(d8), Ok(m8)) = (i8::try_from(d), i8::try_from(m)) else {
        return Err(no_match());
    };
    if jiff::civil::Date::new(full_year, m8, d8).is_err() {
        return Err(format!(
            "`{}` is not a calendar date (day {d} of month {m} of {full_year})",
            excerpt(value)
        ));
    }
    Ok((d, m, year))
}

/// A chronological sort key of `value` in date `format` (year as written, so two-digit
/// years order within one century), or None when the format or value is not a date.
pub(crate) fn date_key(value: &str, format: &str) -> Option<u64> {
    let (fields, _) = date_fields(format).ok()?;
    let (d, m, year) = date_parts(value, &fields).ok()?;
    let y: u64 = year.parse().ok()?;
    Some(y * 10_000 + m as u64 * 100 + d as u64)
}

pub(crate) fn date_rows(
    values: &[String],
    format: &str,
    file: &str,
    key: &str,
) -> Result<Vec<Vec<String>>> {
    let (fields, sep) =
        date_fields(format).map_err(|e| Error::config(file, format!("{key}.format"), e))?;
    let mut rows = Vec::with_capacity(values.len());
    for v in values {
        let (_, m, year) = date_parts(v, &fields)
            .map_err(|e| Error::config(file, key, format!("{e} `{format}`")))?;
        rows.push(vec![
            v.clone(),
            format!("{m:02}{sep}{year}"),
            year.to_owned(),
        ]);
    }
    Ok(with_top(rows, true))
}
