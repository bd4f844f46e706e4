//! `cellsafe pareto` through the job layer on the bundled Adult data: the report, seeded
//! reproducibility, and config errors named by their keys.

mod common;

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
    let page = cellsafe::job::pareto_page::html(&found);
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
