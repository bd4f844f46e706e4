//! `cellsafe pareto` through the job layer on the bundled Adult data: the report, seeded
//! reproducibility, and config errors named by their keys.

use crate::common;

use cellsafe::job::config::Config;
use cellsafe::job::pareto::pareto;
use cellsafe::observer::Silent;

fn config(pareto: &str) -> Config {
    let path = common::examples().join("adult/adult.toml");
    let text = std::fs::read_to_string(&path).unwrap();
    // the nine-attribute job with salary-class as a class label instead of a QI
    let text = text.replace(
        "[attributes.salary-class]\nrole = \"quasi-identifying\"",
        "[attributes.salary-class]\nrole = \"sensitive\"",
    );
    Config::parse(&format!("{text}\n[pareto]\n{pareto}\n"), &path).unwrap()
}

const K_L_GLM: &str = r#"
budget_fraction = 0.01
population = 12
iterations = 20
objectives = [
  { property = "class-size", index = "min" },
  { property = "distinct-values", attribute = "occupation", index = "min" },
  { property = "glm", index = "sum" },
  { property = "classification", attribute = "salary-class", index = "sum" },
]
"#;

#[test]
fn reports_a_front_and_is_reproducible() {
    let c = config(K_L_GLM);
    let a = pareto(&c, Some(7), true, &Silent).unwrap();
    let b = pareto(&c, Some(7), false, &Silent).unwrap();
    assert_eq!(a.budget_rows, 301);
    // levels + 1 of sex, age, race, marital-status, education, native-country, workclass
    assert_eq!(a.lattice_size, 2 * 5 * 2 * 3 * 4 * 3 * 3);
    let directions: Vec<(&str, &str)> = a
        .objectives
        .iter()
        .map(|o| (o.name.as_str(), o.direction))
        .collect();
    assert_eq!(
        directions,
        [
            ("k", "maximize"),
            ("l(occupation)", "maximize"),
            ("GLM", "minimize"),
            ("CM(salary-class)", "minimize")
        ]
    );
    // same seed, same archive
    let levels = |r: &cellsafe::job::pareto::ParetoReport| -> Vec<String> {
        r.front.iter().map(|n| format!("{:?}", n.levels)).collect()
    };
    assert_eq!(levels(&a), levels(&b));
    assert_eq!(a.nodes_evaluated, b.nodes_evaluated);
    assert!(a.nodes_evaluated < a.lattice_size);
    let exact = a.exact.as_ref().unwrap();
    assert!(exact.convergence_error >= 0.0);
    assert!((0.0..=1.0).contains(&exact.representation_ratio));
    // the bottom (least loss) and the top (largest k) are minimal PBGs, found by any run
    for n in [&a.front[0], &a.front[1]] {
        assert!(exact.front.iter().any(|e| e.levels == n.levels));
    }
    // every archived node's values obey its k: the budget left no class below it
    for n in &a.front {
        assert_eq!(n.values["k"].as_f64().unwrap(), n.k as f64);
        assert!(n.suppressed_rows <= 301);
    }
}

#[test]
fn config_errors_name_their_keys() {
    let err = |p: &str| {
        pareto(&config(p), Some(1), false, &Silent)
            .unwrap_err()
            .to_string()
    };
    let e = err(r#"objectives = [{ property = "colour", index = "min" }]"#);
    assert!(
        e.contains("pareto.objectives[0]") && e.contains("unknown property `colour`"),
        "{e}"
    );
    let e = err(r#"objectives = [{ property = "class-size" }]"#);
    assert!(
        e.contains("pareto.objectives[0]") && e.contains("needs an index"),
        "{e}"
    );
    let e = err(
        r#"objectives = [{ property = "class-size", index = "min" }, { property = "distinct-values", attribute = "age", index = "min" }]"#,
    );
    assert!(
        e.contains("pareto.objectives[1]") && e.contains("not a sensitive attribute"),
        "{e}"
    );
    let e = err(r#"budget_rows = 5
budget_fraction = 0.1
objectives = [{ property = "glm", index = "sum" }]"#);
    assert!(
        e.contains("pareto.budget_rows") && e.contains("not both"),
        "{e}"
    );
    let e = err(r#"budget_rows = 30162
objectives = [{ property = "glm", index = "sum" }]"#);
    assert!(e.contains("pareto.budget_rows"), "{e}");
    let e = err(r#"eps = [1, 2]
objectives = [{ property = "glm", index = "sum" }]"#);
    assert!(e.contains("pareto.eps"), "{e}");
    let e = err(r#"objectives = [{ metric = "loss", index = "sum" }]"#);
    assert!(e.contains("takes no index"), "{e}");
}

/// A front node reported by `cellsafe pareto` is released by `anonymize` with its levels,
/// k-anonymity at the node's k and the budget as the suppression limit: the same rows are
/// suppressed, and the release passes the audit.
#[test]
fn a_front_node_is_released_as_reported() {
    let c = config(K_L_GLM);
    let found = pareto(&c, Some(3), false, &Silent).unwrap();
    let node = found
        .front
        .iter()
        .find(|n| n.k >= 5 && n.suppressed_rows > 0)
        .expect("a front node with k >= 5 that suppresses rows");
    let levels: Vec<u8> = found
        .quasi_identifiers
        .iter()
        .map(|q| node.levels[q].as_u64().unwrap() as u8)
        .collect();
    let mut job = c.clone();
    job.privacy = vec![cellsafe::criteria::ModelSpec::KAnonymity { k: node.k as u32 }];
    job.suppression_limit = (found.budget_rows as f64 + 0.5) / found.rows as f64;
    job.search.levels = Some(levels.clone());
    let dir = tempfile::tempdir().unwrap();
    let outputs = cellsafe::job::Outputs {
        table: Some(dir.path().join("released.csv")),
        ..Default::default()
    };
    let report = cellsafe::job::anonymize(&job, &outputs, &Silent).unwrap();
    let report = serde_json::to_value(&report).unwrap();
    assert_eq!(report["found"], true);
    assert_eq!(report["nodes_evaluated"], 1);
    assert_eq!(report["suppressed_rows"], node.suppressed_rows);
    assert_eq!(report["min_class_size"], node.k);
    assert_eq!(report["audit"]["passed"], true);
}

/// Issue 28 item 9, in the library: a pareto config without `[[privacy]]` releases node
/// `--levels` with the budget's suppression; settings that cannot go with it, or levels
/// that are no node, are named by key, and nothing is written.
#[test]
fn releasing_a_front_node_refuses_what_does_not_fit_by_key() {
    let dir = tempfile::tempdir().unwrap();
    let mut base = config(K_L_GLM);
    base.privacy.clear();
    let found = pareto(&base, Some(3), false, &Silent).unwrap();
    let node = found
        .front
        .iter()
        .find(|n| n.suppressed_rows > 0)
        .expect("a node that suppresses rows");
    let levels: Vec<u8> = node
        .release
        .rsplit(' ')
        .next()
        .unwrap()
        .split(',')
        .map(|l| l.parse().unwrap())
        .collect();
    let table = dir.path().join("released.csv");
    let outputs = cellsafe::job::Outputs {
        table: Some(table.clone()),
        ..Default::default()
    };
    let mut job = base.clone();
    job.search.levels = Some(levels.clone());
    let report = cellsafe::job::anonymize(&job, &outputs, &Silent).unwrap();
    let report = serde_json::to_value(&report).unwrap();
    assert_eq!(
        report["pareto"]["values"],
        serde_json::to_value(&node.values).unwrap()
    );
    assert_eq!(report["pareto"]["budget_rows"], 301);
    assert_eq!(report["suppressed_rows"], node.suppressed_rows);
    assert_eq!(report["audit"]["passed"], true);
    std::fs::remove_file(&table).unwrap();
    let refused = |edit: &dyn Fn(&mut Config), key: &str| {
        let mut c = job.clone();
        edit(&mut c);
        let e = cellsafe::job::anonymize(&c, &outputs, &Silent).unwrap_err();
        assert!(
            matches!(&e, cellsafe::Error::Config { key: k, .. } if k == key),
            "{key}: {e}"
        );
        assert!(!table.exists());
    };
    refused(&|c| c.search.levels = None, "privacy");
    refused(&|c| c.search.levels = Some(vec![0, 0]), "search.levels");
    refused(
        &|c| c.search.algorithm = cellsafe::algorithm::Algorithm::Mondrian,
        "search.algorithm",
    );
    refused(
        &|c| {
            let p = c.pareto.as_mut().unwrap();
            p.budget_fraction = None;
            p.budget_rows = Some(30162);
        },
        "pareto.budget_rows",
    );
}

/// The HTML page: one plot per pair of objectives, one table row per front node, names
/// escaped, nothing to fetch and no script.
#[test]
fn html_page_is_self_contained() {
    let c = config(K_L_GLM);
    let found = pareto(&c, Some(2), true, &Silent).unwrap();
    let page = cellsafe::job::pareto_page::html(&found, "adult.toml");
    assert_eq!(page.matches("<svg").count(), 6); // 4 objectives: 6 pairs
    assert_eq!(page.matches("</svg>").count(), 6);
    assert!(!page.contains("<script"));
    assert!(!page
        .replace("http://www.w3.org/2000/svg", "")
        .contains("http"));
    // header row + one per node in the front table, one per parameter in the other
    assert_eq!(page.matches("<tr>").count(), 1 + found.front.len() + 7);
    assert!(page.contains("CM(salary-class) ↓") && page.contains("k ↑"));
    // rings for the exact front, dots for the archive, in every plot
    let rings = page.matches("fill=\"none\" stroke=\"#999\"").count();
    assert_eq!(rings, 6 * found.exact.as_ref().unwrap().front.len());
    assert_eq!(
        page.matches("fill=\"#1f5fa8\"").count(),
        6 * found.front.len()
    );
}

/// The cells of the HTML table rows in `html` (tags inside a cell dropped), header first.
fn table_rows(html: &str) -> Vec<Vec<String>> {
    html.split("<tr")
        .skip(1)
        .map(|row| {
            let row = &row[..row.find("</tr>").unwrap()];
            row.split("<t")
                .skip(1)
                .filter(|c| c.starts_with('d') || c.starts_with('h'))
                .map(|c| {
                    let inner = &c[c.find('>').unwrap() + 1..];
                    let inner = &inner[..inner.find("</t").unwrap_or(inner.len())];
                    let mut text = String::new();
                    let mut in_tag = false;
                    for ch in inner.chars() {
                        match ch {
                            '<' => in_tag = true,
                            '>' => in_tag = false,
                            c if !in_tag => text.push(c),
                            _ => {}
                        }
                    }
                    text.replace("&#39;", "'").replace("&amp;", "&")
                })
                .collect()
        })
        .collect()
}

/// The texts of the `<text class="CLASS"...>` elements of `svg`.
fn texts<'a>(svg: &'a str, class: &str) -> Vec<&'a str> {
    svg.split(&format!("<text class=\"{class}\""))
        .skip(1)
        .map(|t| &t[t.find('>').unwrap() + 1..t.find("</text>").unwrap()])
        .collect()
}

/// Tick values on one axis are round: evenly spaced by 1, 2 or 5 times a power of ten, or
/// (a log scale) successive powers of ten.
fn assert_round_ticks(labels: &[&str], what: &str) {
    let v: Vec<f64> = labels.iter().map(|l| l.parse().unwrap()).collect();
    assert!(v.len() >= 3, "{what}: ticks {labels:?}");
    let step = v[1] - v[0];
    let even = v
        .windows(2)
        .all(|w| ((w[1] - w[0]) - step).abs() <= 1e-9 * step.abs());
    let round = |x: f64| {
        let m = x / 10f64.powf(x.log10().floor());
        [1.0, 2.0, 5.0, 10.0].iter().any(|r| (m - r).abs() < 1e-6)
    };
    let decades = v
        .iter()
        .all(|&x| x > 0.0 && (x.log10() - x.log10().round()).abs() < 1e-9)
        && v.windows(2).all(|w| ((w[1] / w[0]) - 10.0).abs() < 1e-9);
    assert!(
        decades
            || (even
                && round(step)
                && v.iter()
                    .all(|x| ((x / step) - (x / step).round()).abs() < 1e-6)),
        "{what}: ticks {labels:?}"
    );
}

/// The page can be read against its table: k once, one number format per objective, the
/// rows sorted by the first objective (best first), every point numbered as its row, round
/// ticks on both axes of every plot, and per node the command that releases it.
#[test]
fn the_pareto_page_matches_its_table() {
    let c = config(K_L_GLM);
    let found = pareto(&c, Some(2), false, &Silent).unwrap();
    let n = found.front.len();
    assert!(n >= 4, "{n}");
    let page = cellsafe::job::pareto_page::html(&found, "jobs/adult pareto.toml");
    let front =
        &page[page.find("<h2>Front</h2>").unwrap()..page.find("<h2>Parameters</h2>").unwrap()];
    let rows = table_rows(front);
    let (header, body) = (&rows[0], &rows[1..]);
    assert_eq!(body.len(), n);
    let col = |name: &str| {
        header
            .iter()
            .position(|h| h == name)
            .unwrap_or_else(|| panic!("{name} in {header:?}"))
    };
    // k once: the objective's column, no other
    assert_eq!(
        header
            .iter()
            .filter(|h| *h == "k" || h.starts_with("k "))
            .count(),
        1,
        "{header:?}"
    );
    // numbered 1..n in order
    let numbers: Vec<String> = body.iter().map(|r| r[col("#")].clone()).collect();
    let expected: Vec<String> = (1..=n).map(|i| i.to_string()).collect();
    assert_eq!(numbers, expected);
    // sorted by k, best (largest) first, as the page says
    assert!(page.contains("sorted by k"), "{page}");
    let k: Vec<f64> = body
        .iter()
        .map(|r| r[col("k ↑")].parse().unwrap())
        .collect();
    assert!(k.windows(2).all(|w| w[0] >= w[1]), "{k:?}");
    // one number format per objective: the same shape in every row
    for o in &found.objectives {
        let arrow = if o.direction == "maximize" {
            "↑"
        } else {
            "↓"
        };
        let i = col(&format!("{} {arrow}", o.name));
        let shape = |s: &str| {
            (
                s.contains('e'),
                s.split_once('.')
                    .map(|(_, d)| d.split('e').next().unwrap().len()),
            )
        };
        let shapes: std::collections::BTreeSet<_> = body.iter().map(|r| shape(&r[i])).collect();
        assert_eq!(
            shapes.len(),
            1,
            "{}: {:?}",
            o.name,
            body.iter().map(|r| &r[i]).collect::<Vec<_>>()
        );
    }
    // the command that releases each node, its levels in header order
    let commands: Vec<&String> = body.iter().map(|r| r.last().unwrap()).collect();
    for node in &found.front {
        let levels: Vec<String> = found
            .quasi_identifiers
            .iter()
            .map(|q| node.levels[q].to_string())
            .collect();
        let command = format!(
            "cellsafe anonymize 'jobs/adult pareto.toml' --levels {}",
            levels.join(",")
        );
        assert_eq!(
            commands.iter().filter(|c| ***c == command).count(),
            1,
            "{command} in {commands:?}"
        );
    }
    // every plot numbers each point as its table row, and ticks both axes on round values
    let plots: Vec<&str> = page.split("<svg").skip(1).collect();
    assert_eq!(plots.len(), 6);
    for plot in plots {
        let mut labels: Vec<usize> = texts(plot, "pt")
            .iter()
            .map(|l| l.parse().unwrap())
            .collect();
        labels.sort();
        assert_eq!(labels, (1..=n).collect::<Vec<_>>());
        assert_round_ticks(&texts(plot, "xt"), plot);
        assert_round_ticks(&texts(plot, "yt"), plot);
    }
}
