//! The audit of a release known by its counts, for engines that never hold the written
//! table in memory (see `crate::engine`).
//!
//! The engine reads the written file back as a recipient would and counts it: its rows,
//! the rows whose every hidden cell is `*`, and each group of released rows by its visible
//! quasi-identifier and public cells, with the values of each sensitive column in the
//! group ([`Counted`]). This module judges those counts, sharing nothing with the search's
//! encoding: the groups must be exactly the classes the search released, row for row; the
//! suppressed rows as many as it suppressed; and every group must satisfy every model by
//! its textbook definition ([`group_holds`](super::group_holds)), as [`audit_table`]
//! (super::audit_table) checks a table held in memory.

use rustc_hash::FxHashMap;

use super::{group_holds, presence, risk_holds_sizes, Audit, PresenceExpected, MAX_VIOLATIONS};
use crate::criteria::{Distance, ModelSpec};
use crate::data::SUPPRESSED;

/// What a written release holds, counted.
#[derive(Debug, Clone, Default)]
pub struct Counted {
    /// Rows written (the header not counted).
    pub rows: u64,
    /// Rows whose every cell but the public ones is `*`.
    pub suppressed: u64,
    /// Each group of the other rows, by its quasi-identifier cells then its public cells
    /// (in the order [`CountExpected`] names them).
    pub groups: FxHashMap<Vec<String>, Group>,
}

/// One group of released rows.
#[derive(Debug, Clone, Default)]
pub struct Group {
    /// Rows in the group.
    pub rows: u64,
    /// Per sensitive column (in the order [`CountExpected::sensitive`] names them), how
    /// often each value occurs in the group.
    pub values: Vec<FxHashMap<String, u64>>,
}

/// What counted release is judged against.
#[derive(Debug, Clone, Copy)]
pub struct CountExpected<'a> {
    /// Quasi-identifier column names.
    pub quasi: &'a [String],
    /// Public column names (shown by suppressed rows; they split groups as
    /// quasi-identifiers do).
    pub public: &'a [String],
    /// Sensitive column names.
    pub sensitive: &'a [String],
    /// The privacy models.
    pub models: &'a [ModelSpec],
    /// Per sensitive column, its distribution over the whole source, in natural order.
    pub references: &'a [Vec<(String, f64)>],
    /// The classes the search released (not suppressed): their quasi-identifier labels and
    /// rows.
    pub classes: &'a FxHashMap<Vec<String>, u64>,
    /// Rows the search suppressed.
    pub suppressed_rows: u64,
    /// Rows of the source.
    pub source_rows: u64,
    /// Whether suppressed rows are left out of the file (else written with `*`).
    pub dropped: bool,
    /// The population and the released labels, for δ-presence (unchecked without).
    pub presence: Option<&'a PresenceExpected<'a>>,
}

/// Judges the counts of a written release.
pub fn audit_counts(counted: &Counted, expected: &CountExpected) -> Audit {
    let mut violations = Vec::new();
    let mut violate = |v: String| {
        if violations.len() < MAX_VIOLATIONS {
            violations.push(v);
        }
    };
    let dropped = if expected.dropped {
        expected.suppressed_rows
    } else {
        0
    };
    let rows = expected.source_rows.saturating_sub(dropped);
    if counted.rows != rows {
        violate(format!(
            "the file has {} rows; the source has {} and {} were left out",
            counted.rows, expected.source_rows, dropped
        ));
    }
    let shown_suppressed = expected.suppressed_rows - dropped;
    // a released class whose every label is `*` reads as suppressed when the file has no
    // other hidden column (no value is `*` elsewhere): then its rows are all counted so
    let stars = expected
        .classes
        .iter()
        .find(|(key, _)| key.iter().all(|v| v == SUPPRESSED))
        .map(|(key, &n)| (key, n));
    let stars_read_as_suppressed = stars.is_some_and(|(key, n)| {
        counted.suppressed == shown_suppressed + n
            && !counted
                .groups
                .keys()
                .any(|k| k[..expected.quasi.len()] == key[..])
    });
    if counted.suppressed != shown_suppressed && !stars_read_as_suppressed {
        violate(format!(
            "the file has {} suppressed rows; the search suppressed {}",
            counted.suppressed, shown_suppressed
        ));
    }
    // the groups by their quasi-identifiers alone are the classes released
    let q = expected.quasi.len();
    let mut classes: FxHashMap<&[String], u64> = FxHashMap::default();
    for (key, group) in &counted.groups {
        *classes.entry(&key[..q]).or_default() += group.rows;
    }
    for (key, &rows) in &classes {
        match expected.classes.get(*key) {
            Some(&n) if n == rows => {}
            Some(&n) => violate(format!(
                "the class {key:?} has {rows} rows in the file; the search released {n}"
            )),
            None => violate(format!(
                "the class {key:?} is in the file ({rows} rows) but the search released no \
                 such class"
            )),
        }
    }
    for (key, n) in expected.classes {
        let read_as_suppressed = stars_read_as_suppressed && key.iter().all(|v| v == SUPPRESSED);
        if !classes.contains_key(&key[..]) && !read_as_suppressed {
            violate(format!(
                "the search released the class {key:?} ({n} rows), which is not in the file"
            ));
        }
    }
    let sizes: Vec<u64> = counted.groups.values().map(|g| g.rows).collect();
    // groups in order of their cells, so that the violations listed (at most ten) are the
    // same whatever the hashing and whoever counted them
    let mut sorted: Vec<(&Vec<String>, &Group)> = counted.groups.iter().collect();
    sorted.sort_unstable_by(|a, b| a.0.cmp(b.0));
    let mut unchecked = Vec::new();
    for model in expected.models {
        if let Some(ok) = risk_holds_sizes(model, &sizes, expected.source_rows as usize) {
            if !ok {
                violate(format!(
                    "{} fails for the {} released groups",
                    model.name(),
                    counted.groups.len()
                ));
            }
            continue;
        }
        if let (
            ModelSpec::DeltaPresence {
                delta_min,
                delta_max,
            },
            Some(p),
        ) = (model, expected.presence)
        {
            // each group's quasi-identifier cells with its rows; the suppressed rows, shown
            // with `*` or left out, come from the population classes showing no row
            let shown: Vec<(Vec<&str>, u64)> = counted
                .groups
                .iter()
                .map(|(key, g)| (key[..q].iter().map(String::as_str).collect(), g.rows))
                .collect();
            match presence::violations(
                p,
                expected.quasi,
                &shown,
                expected.suppressed_rows as usize,
                (*delta_min, *delta_max),
            ) {
                Ok(found) => found.into_iter().for_each(&mut violate),
                Err(why) => violate(format!("{}: {why}", model.name())),
            }
            continue;
        }
        if matches!(
            model,
            ModelSpec::LogicalSafety
                | ModelSpec::DeltaPresence { .. }
                | ModelSpec::TCloseness {
                    distance: Distance::Hierarchical,
                    ..
                }
        ) {
            unchecked.push(model.name());
            continue;
        }
        let sensitive = match model.attribute() {
            Some(a) => match expected.sensitive.iter().position(|s| s == a) {
                Some(i) => Some(i),
                None => {
                    violate(format!(
                        "{}: no sensitive column `{a}` counted",
                        model.name()
                    ));
                    continue;
                }
            },
            None => None,
        };
        let empty: &[(String, f64)] = &[];
        let reference = sensitive.map_or(empty, |i| &expected.references[i][..]);
        for &(key, group) in &sorted {
            let mut freq: FxHashMap<&str, usize> = FxHashMap::default();
            if let Some(i) = sensitive {
                for (value, &n) in &group.values[i] {
                    freq.insert(value, n as usize);
                }
            }
            if !group_holds(model, &freq, group.rows as usize, reference) {
                violate(format!(
                    "{} fails for the {} rows with {:?}",
                    model.name(),
                    group.rows,
                    key
                ));
            }
        }
        if let ModelSpec::Confidential { values, .. } = model {
            // the suppressed rows show nothing of the attribute: it is learnt only if every
            // value is confidential
            if expected.suppressed_rows > 0 && reference.iter().all(|(v, _)| values.contains(v)) {
                violate(format!("{} fails for the suppressed rows", model.name()));
            }
        }
    }
    Audit {
        passed: violations.is_empty(),
        released_groups: counted.groups.len(),
        suppressed_rows: counted.suppressed as usize,
        dropped_rows: dropped as usize,
        unchecked,
        violations,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|x| x.to_string()).collect()
    }

    fn group(rows: u64, values: &[(&str, u64)]) -> Group {
        Group {
            rows,
            values: vec![values.iter().map(|(v, n)| (v.to_string(), *n)).collect()],
        }
    }

    /// A release whose counts match the search's classes and satisfy the models passes;
    /// each kind of mismatch is found.
    #[test]
    fn counts_are_judged_against_the_classes_and_the_models() {
        let quasi = s(&["age"]);
        let sensitive = s(&["d"]);
        let models = [
            ModelSpec::KAnonymity { k: 2 },
            ModelSpec::DistinctLDiversity {
                attribute: "d".into(),
                l: 2.0,
            },
        ];
        let references = vec![vec![("a".to_owned(), 0.5), ("b".to_owned(), 0.5)]];
        let classes: FxHashMap<Vec<String>, u64> =
            [(s(&["1-5"]), 2), (s(&["6-9"]), 3)].into_iter().collect();
        let expected = CountExpected {
            quasi: &quasi,
            public: &[],
            sensitive: &sensitive,
            models: &models,
            references: &references,
            classes: &classes,
            suppressed_rows: 1,
            source_rows: 6,
            presence: None,
            dropped: false,
        };
        let good = Counted {
            rows: 6,
            suppressed: 1,
            groups: [
                (s(&["1-5"]), group(2, &[("a", 1), ("b", 1)])),
                (s(&["6-9"]), group(3, &[("a", 2), ("b", 1)])),
            ]
            .into_iter()
            .collect(),
        };
        let audit = audit_counts(&good, &expected);
        assert!(audit.passed, "{:?}", audit.violations);
        // a class one row short, an l-diversity failure, a missing suppressed row
        let mut bad = good.clone();
        bad.groups.insert(s(&["6-9"]), group(3, &[("a", 3)]));
        let audit = audit_counts(&bad, &expected);
        assert!(!audit.passed);
        assert!(
            audit.violations[0].contains("distinct-2-diversity(d) fails for the 3 rows"),
            "{:?}",
            audit.violations
        );
        let mut bad = good.clone();
        bad.groups.insert(s(&["1-5"]), group(1, &[("a", 1)]));
        bad.rows = 5;
        let audit = audit_counts(&bad, &expected);
        assert!(audit
            .violations
            .iter()
            .any(|v| v.contains("has 1 rows in the file")));
        assert!(audit
            .violations
            .iter()
            .any(|v| v.contains("the file has 5 rows")));
        let mut bad = good.clone();
        bad.suppressed = 0;
        let audit = audit_counts(&bad, &expected);
        assert!(audit
            .violations
            .iter()
            .any(|v| v.contains("0 suppressed rows")));
        // a class the search never released
        let mut bad = good.clone();
        bad.groups
            .insert(s(&["10-19"]), group(2, &[("a", 1), ("b", 1)]));
        let audit = audit_counts(&bad, &expected);
        assert!(audit
            .violations
            .iter()
            .any(|v| v.contains("released no such class")));
        // dropped suppressed rows: one fewer row, none starred
        let dropped = CountExpected {
            dropped: true,
            ..expected
        };
        let mut ok = good.clone();
        ok.rows = 5;
        ok.suppressed = 0;
        assert!(audit_counts(&ok, &dropped).passed);
    }
}
