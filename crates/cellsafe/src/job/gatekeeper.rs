//! The gatekeeper's center from a config: `[input]`'s roles and hierarchies
//! (`[attributes]`), `[safety]`, `[[privacy]]` and `[gatekeeper]` over a table the front end
//! loaded (from its database). Errors name the config key at fault.

use crate::criteria::{Model, ModelSpec};
use crate::data::table::Table;
use crate::error::{Error, Result};
use crate::gatekeeper::Center;
use crate::job::config::Config;

/// The center `config` describes over `table`.
pub fn center(config: &Config, table: Table) -> Result<Center> {
    let file = config.file_name();
    if config.input.subset.is_some() {
        return Err(Error::config(
            &file,
            "input.subset",
            "the gatekeeper answers queries over its whole table; a research subset \
             (δ-presence) is for releases",
        ));
    }
    let data = config.dataset_with(table, true)?;
    for (i, m) in config.privacy.iter().enumerate() {
        if !matches!(m, ModelSpec::LogicalSafety) {
            Model::bind(m, &data)
                .map_err(|e| Error::config(&file, format!("privacy[{i}]"), e.to_string()))?;
        }
    }
    let spec = config.gatekeeper.clone().unwrap_or_default();
    if spec.max_tests == 0 {
        return Err(Error::config(
            &file,
            "gatekeeper.max_tests",
            "must be at least 1",
        ));
    }
    for (name, &r) in &spec.radius {
        if !(r.is_finite() && r > 0.0) {
            return Err(Error::config(
                &file,
                format!("gatekeeper.radius.{name}"),
                "a radius must be a positive number",
            ));
        }
    }
    if spec.decide == crate::gatekeeper::Decide::Public {
        for (i, m) in config.privacy.iter().enumerate() {
            if !matches!(m, ModelSpec::KAnonymity { .. }) {
                return Err(Error::config(
                    &file,
                    format!("privacy[{i}]"),
                    format!(
                        "{} depends on the confidential values; with gatekeeper.decide = \
                         \"public\" only k-anonymity may be used",
                        m.name()
                    ),
                ));
            }
        }
        if config.privacy.is_empty() {
            return Err(Error::config(
                &file,
                "gatekeeper.decide",
                "\"public\" needs a k-anonymity model in [[privacy]]",
            ));
        }
    }
    let radius: Vec<String> = spec.radius.keys().cloned().collect();
    let center = Center::new(data, &config.privacy, spec)?;
    for name in radius {
        let public_number = center.role(&name) == Some(crate::data::Role::QuasiIdentifying)
            && center.is_numeric(&name);
        if !public_number {
            return Err(Error::config(
                &file,
                format!("gatekeeper.radius.{name}"),
                format!("`{name}` is not a numeric quasi-identifier"),
            ));
        }
    }
    Ok(center)
}

#[cfg(test)]
mod tests {
    use crate::data::table::Table;
    use crate::gatekeeper::answer::Cells;
    use crate::gatekeeper::{Condition, Request, Test};
    use crate::job::config::Config;

    /// The exact set-based search returns a generalization of least total size among the
    /// safe ones: every generalization of the answer's cells with fewer values in all
    /// (enumerated here in full) is unsafe.
    #[test]
    fn the_exact_search_finds_a_least_safe_generalization() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("age.csv"),
            "1;low;*\n2;low;*\n3;high;*\n4;high;*\n",
        )
        .unwrap();
        let text = r#"
[input]
path = "unused.csv"
[attributes.name]
role = "identifying"
[attributes.age]
role = "quasi-identifying"
hierarchy = "age.csv"
[attributes.disease]
role = "sensitive"
[safety]
formulas = { has_x = "disease = x" }
default = ["has_x"]
domain = { disease = ["x", "y", "z"] }
[[privacy]]
model = "k-anonymity"
k = 1
"#;
        let config = Config::parse(text, &dir.path().join("c.toml")).unwrap();
        let rows: Vec<Vec<String>> = [
            ["p0", "1", "x"],
            ["p1", "2", "x"],
            ["p2", "3", "y"],
            ["p3", "4", "z"],
        ]
        .iter()
        .map(|r| r.iter().map(|s| s.to_string()).collect())
        .collect();
        let header = ["name", "age", "disease"].map(String::from).to_vec();
        let center = super::center(&config, Table::from_rows(header, &rows).unwrap()).unwrap();
        let request = Request {
            columns: vec!["age".into(), "disease".into()],
            conditions: vec![Condition {
                column: "age".into(),
                test: Test::Le("3".into()),
            }],
        };
        let matched = center.matching_rows(&request.conditions).unwrap();
        let plan = center
            .plan(&center.fresh_knowledge(), &request, &matched)
            .unwrap();
        assert!(!center.check_sets(&plan, &center.level_cells(&plan, &[0])));
        let (found, _) = center.maximal_search(&plan);
        let found = found.expect("some generalization is safe");
        let size = |cells: &Cells| cells.size();
        assert!(center.check_sets(&plan, &found.cells));
        // every cell option: age intervals of 1..4 holding the value, disease supersets
        let age_col = &center.columns[plan.selected[0]];
        let dis_col = &center.columns[plan.selected[1]];
        let options = |col: &crate::gatekeeper::CenterColumn, v: u32| -> Vec<Vec<u64>> {
            let n = col.values.len() as u32;
            let mut out = Vec::new();
            if col.numeric {
                let r = col.rank[v as usize];
                for lo in 0..=r {
                    for hi in r..n {
                        out.push(col.bits_of(col.order[lo as usize..=hi as usize].iter().copied()));
                    }
                }
            } else {
                for mask in 0u32..(1 << n) {
                    if mask & (1 << v) != 0 {
                        out.push(col.bits_of((0..n).filter(|b| mask & (1 << b) != 0)));
                    }
                }
            }
            out
        };
        let original = |j: usize, i: usize| center.original[j][plan.rows[i] as usize];
        let (ja, jd) = (plan.selected[0], plan.selected[1]);
        let per_row: Vec<Vec<(Vec<u64>, Vec<u64>)>> = (0..plan.rows.len())
            .map(|i| {
                let mut v = Vec::new();
                for a in options(age_col, original(ja, i)) {
                    for d in options(dis_col, original(jd, i)) {
                        v.push((a.clone(), d));
                    }
                }
                v
            })
            .collect();
        let best = size(&found.cells);
        let mut checked = 0;
        for x in &per_row[0] {
            for y in &per_row[1] {
                for z in &per_row[2] {
                    let cells = Cells::from_nested(&[
                        vec![x.0.clone(), y.0.clone(), z.0.clone()],
                        vec![x.1.clone(), y.1.clone(), z.1.clone()],
                    ]);
                    if size(&cells) < best {
                        checked += 1;
                        assert!(
                            !center.check_sets(&plan, &cells),
                            "a smaller safe one: {cells:?}"
                        );
                    }
                }
            }
        }
        assert!(checked > 0, "{checked}");
    }
}
