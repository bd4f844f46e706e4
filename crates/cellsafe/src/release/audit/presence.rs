//! The audit of δ-presence, as the recipient checks it: the recipient holds the population
//! table and generalizes each of its rows as the release shows it, then compares, class by
//! class, the released rows with the population's. Suppressed (and dropped) rows come from
//! the population classes that show no released row, so their share of those classes'
//! population is checked as one more class.

use rustc_hash::FxHashMap;

use crate::data::table::Table;

/// What the audit of δ-presence needs beside the released file.
#[derive(Debug, Clone)]
pub struct PresenceExpected<'a> {
    /// The population table the released rows were drawn from.
    pub population: &'a Table,
    /// Persons per population row (None: one each), for a frequency set's population.
    pub weights: Option<&'a [u32]>,
    /// Per quasi-identifier (in the order of [`super::Expected::quasi`]), the released label
    /// of each of its values in the population (the hierarchy at the released level).
    pub labels: Vec<FxHashMap<String, String>>,
}

/// The violations of δ-presence with bounds `[dmin, dmax]` in a release whose visible
/// rows have quasi-identifier cells `released` (each tuple with its rows) and whose
/// `hidden` rows are suppressed or left out.
pub(super) fn violations(
    expected: &PresenceExpected,
    quasi: &[String],
    released: &[(Vec<&str>, u64)],
    hidden: usize,
    (dmin, dmax): (f64, f64),
) -> Result<Vec<String>, String> {
    let population = expected.population;
    let columns: Vec<usize> = quasi
        .iter()
        .map(|q| {
            population
                .column_index(q)
                .ok_or_else(|| format!("no column `{q}` in the population table"))
        })
        .collect::<Result<_, _>>()?;
    let mut pcount: FxHashMap<Vec<&str>, u64> = FxHashMap::default();
    for r in 0..population.rows() {
        let key = columns
            .iter()
            .zip(&expected.labels)
            .map(|(&c, labels)| {
                let v = population.value(r, c);
                labels
                    .get(v)
                    .map(String::as_str)
                    .ok_or_else(|| format!("population value `{v}` has no released label"))
            })
            .collect::<Result<Vec<&str>, String>>()?;
        *pcount.entry(key).or_default() += expected.weights.map_or(1, |w| w[r] as u64);
    }
    let mut count: FxHashMap<&[&str], u64> = FxHashMap::default();
    for (row, n) in released {
        *count.entry(row.as_slice()).or_default() += n;
    }
    let within = |d: f64| d >= dmin && d <= dmax;
    let mut out = Vec::new();
    let mut keys: Vec<&&[&str]> = count.keys().collect();
    keys.sort();
    for key in keys {
        let n = count[*key];
        match pcount.get(*key) {
            None => out.push(format!(
                "the {n} released rows with {key:?} match no row of the population"
            )),
            Some(&p) if !within(n as f64 / p as f64) => out.push(format!(
                "({dmin}, {dmax})-presence fails for the {n} rows with {key:?}: {n} of {p} \
                 persons of the population are in the subset"
            )),
            Some(_) => {}
        }
    }
    // the population classes that show no released row: δ = 0, and the suppressed rows'
    let unshown: Vec<(&Vec<&str>, u64)> = pcount
        .iter()
        .filter(|(k, _)| !count.contains_key(k.as_slice()))
        .map(|(k, &p)| (k, p))
        .collect();
    if hidden == 0 && !unshown.is_empty() && !within(0.0) {
        out.push(format!(
            "({dmin}, {dmax})-presence fails for {} population classes with no row in the \
             subset, such as {:?}",
            unshown.len(),
            unshown.iter().map(|u| u.0).min().expect("not empty")
        ));
    }
    if hidden > 0 {
        let population: u64 = unshown.iter().map(|u| u.1).sum();
        if population == 0 || !within(hidden as f64 / population as f64) {
            out.push(format!(
                "({dmin}, {dmax})-presence fails for the {hidden} suppressed rows: they come \
                 from the {population} persons of the population classes with no released row"
            ));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A population of zip codes: 4 in 1111, 4 in 2222, 2 in 3333, released as themselves;
    /// `weights` says how many persons each row stands for.
    fn expected<'a>(population: &'a Table, weights: Option<&'a [u32]>) -> PresenceExpected<'a> {
        let labels = ["1111", "2222", "3333"]
            .iter()
            .map(|v| (v.to_string(), v.to_string()))
            .collect();
        PresenceExpected {
            population,
            weights,
            labels: vec![labels],
        }
    }

    /// The population a person per row, or (`weighted`) a row per zip code with its
    /// persons as weight.
    fn population(weighted: bool) -> (Table, Option<Vec<u32>>) {
        let zips = [("1111", 4), ("2222", 4), ("3333", 2)];
        if weighted {
            let rows: Vec<Vec<String>> = zips.iter().map(|&(z, _)| vec![z.to_string()]).collect();
            let weights = zips.iter().map(|&(_, n)| n).collect();
            return (
                Table::from_rows(vec!["zip".into()], &rows).unwrap(),
                Some(weights),
            );
        }
        let rows: Vec<Vec<String>> = zips
            .iter()
            .flat_map(|&(z, n)| (0..n).map(move |_| vec![z.to_string()]))
            .collect();
        (Table::from_rows(vec!["zip".into()], &rows).unwrap(), None)
    }

    fn check(released: &[&str], hidden: usize, bounds: (f64, f64)) -> Vec<String> {
        let mut verdicts = Vec::new();
        for weighted in [false, true] {
            let (population, weights) = population(weighted);
            // one tuple per row, or each distinct tuple with its rows
            let rows: Vec<(Vec<&str>, u64)> = if weighted {
                let mut distinct: Vec<(Vec<&str>, u64)> = Vec::new();
                for z in released {
                    match distinct.iter_mut().find(|(k, _)| k[0] == *z) {
                        Some(d) => d.1 += 1,
                        None => distinct.push((vec![*z], 1)),
                    }
                }
                distinct
            } else {
                released.iter().map(|z| (vec![*z], 1)).collect()
            };
            verdicts.push(
                violations(
                    &expected(&population, weights.as_deref()),
                    &["zip".into()],
                    &rows,
                    hidden,
                    bounds,
                )
                .unwrap(),
            );
        }
        assert_eq!(
            verdicts[0], verdicts[1],
            "a frequency set's population, weighted"
        );
        verdicts.remove(0)
    }

    #[test]
    fn shares_are_counted_against_the_population() {
        // 1 of 4, 1 of 4, 1 of 2: within [0.2, 0.5]
        assert!(check(&["1111", "2222", "3333"], 0, (0.2, 0.5)).is_empty());
        // 2 of 2 is above 0.5
        let v = check(&["1111", "3333", "3333"], 0, (0.0, 0.5));
        assert!(v.len() == 1 && v[0].contains("2 of 2"), "{v:?}");
        // 3333 shows no row: a share 0 below δmin
        let v = check(&["1111", "2222"], 0, (0.2, 0.5));
        assert!(
            v.len() == 1 && v[0].contains("no row in the subset"),
            "{v:?}"
        );
        // two suppressed rows among the 2 persons of 3333: a share of 1
        let v = check(&["1111", "2222"], 2, (0.0, 0.5));
        assert!(v.len() == 1 && v[0].contains("suppressed rows"), "{v:?}");
        // one among them: 1 of 2, within
        assert!(check(&["1111", "2222"], 1, (0.0, 0.5)).is_empty());
        // a released tuple the population lacks
        let v = check(&["1111", "4444"], 0, (0.0, 1.0));
        assert!(v.len() == 1 && v[0].contains("match no row"), "{v:?}");
    }
}
