//! Issue 28 item 9: a node of the `cellsafe pareto` front is released from the pareto
//! config itself with the command its report gives (`release`), and the written file,
//! recounted here from the definitions, has the values the front reports for that node.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::Value;

fn cellsafe() -> Command {
    Command::cargo_bin("cellsafe").unwrap()
}

fn adult() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/adult")
}

const QUASI: [&str; 4] = ["sex", "age", "race", "marital-status"];

/// A pareto config over four of Adult's quasi-identifiers, without `[[privacy]]`.
fn write_config(dir: &Path, extra: &str) -> PathBuf {
    let mut text = format!(
        "[input]\npath = {:?}\ndelimiter = \";\"\n",
        adult().join("adult.csv")
    );
    for q in QUASI {
        text += &format!(
            "[attributes.{q}]\nrole = \"quasi-identifying\"\nhierarchy = {:?}\n",
            adult().join(format!("adult_hierarchy_{q}.csv"))
        );
    }
    text += r#"[attributes.occupation]
role = "sensitive"
[pareto]
budget_fraction = 0.01
population = 10
iterations = 10
seed = 4
objectives = [
  { property = "class-size", index = "min" },
  { property = "distinct-values", attribute = "occupation", index = "min" },
  { property = "glm", index = "sum" },
  { property = "class-size", index = "sum" },
]
"#;
    text += extra;
    let path = dir.join("front.toml");
    std::fs::write(&path, text).unwrap();
    path
}

/// `;`-separated lines, split.
fn read(path: &Path) -> (Vec<String>, Vec<Vec<String>>) {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text
        .lines()
        .map(|l| l.split(';').map(String::from).collect());
    let header = lines.next().unwrap();
    (header, lines.collect())
}

/// Per quasi-identifier and level, each label's leaves; and whether every leaf is a
/// number, with the leaves' range.
struct Loss {
    leaves: Vec<String>,
    under: Vec<HashMap<String, HashSet<String>>>,
}

impl Loss {
    fn read(q: &str) -> Loss {
        let (first, rest) = read(&adult().join(format!("adult_hierarchy_{q}.csv")));
        let rows: Vec<Vec<String>> = std::iter::once(first).chain(rest).collect();
        let mut under = vec![HashMap::<String, HashSet<String>>::new(); rows[0].len()];
        for row in &rows {
            for (level, label) in row.iter().enumerate() {
                under[level]
                    .entry(label.clone())
                    .or_default()
                    .insert(row[0].clone());
            }
        }
        Loss {
            leaves: rows.iter().map(|r| r[0].clone()).collect(),
            under,
        }
    }

    /// Iyengar's loss of `label` at `level`: (U_g − L_g)/(U − L) for numbers, else
    /// (M_g − 1)/(M − 1).
    fn of(&self, level: usize, label: &str) -> f64 {
        let group = &self.under[level][label];
        let numbers: Option<Vec<f64>> = self.leaves.iter().map(|l| l.parse().ok()).collect();
        match numbers {
            Some(all) => {
                let range = |v: &[f64]| {
                    v.iter().copied().fold(f64::NEG_INFINITY, f64::max)
                        - v.iter().copied().fold(f64::INFINITY, f64::min)
                };
                let mine: Vec<f64> = group.iter().map(|l| l.parse().unwrap()).collect();
                range(&mine) / range(&all)
            }
            None => (group.len() as f64 - 1.0) / (self.leaves.len() as f64 - 1.0),
        }
    }
}

/// What the written release shows for the four objectives, counted from its rows.
#[derive(Debug)]
struct Counted {
    k: f64,
    l: f64,
    glm: f64,
    s_k: f64,
    suppressed: u64,
}

fn count(path: &Path, levels: &BTreeMap<&str, usize>, losses: &HashMap<&str, Loss>) -> Counted {
    let (header, rows) = read(path);
    let col = |n: &str| header.iter().position(|h| h == n).unwrap();
    let occupation = col("occupation");
    let mut classes: HashMap<Vec<&str>, (u64, HashSet<&str>)> = HashMap::new();
    let mut glm = 0.0;
    let mut suppressed = 0;
    for row in &rows {
        // a suppressed row shows `*` in every cell, its occupation too
        if row.iter().all(|c| c == "*") {
            suppressed += 1;
            glm += QUASI.len() as f64;
            continue;
        }
        assert_ne!(row[occupation], "*");
        let key: Vec<&str> = QUASI.iter().map(|q| row[col(q)].as_str()).collect();
        let class = classes.entry(key).or_default();
        class.0 += 1;
        class.1.insert(row[occupation].as_str());
        for q in QUASI {
            glm += losses[q].of(levels[q], &row[col(q)]);
        }
    }
    Counted {
        k: classes.values().map(|c| c.0).min().unwrap() as f64,
        l: classes.values().map(|c| c.1.len()).min().unwrap() as f64,
        glm,
        s_k: classes.values().map(|c| (c.0 * c.0) as f64).sum(),
        suppressed,
    }
}

#[test]
fn every_front_node_is_released_from_the_pareto_config_with_its_values() {
    let dir = tempfile::tempdir().unwrap();
    let config = write_config(dir.path(), "");
    let front_json = dir.path().join("front.json");
    cellsafe()
        .arg("pareto")
        .arg(&config)
        .arg("--report")
        .arg(&front_json)
        .assert()
        .success();
    let front: Value = serde_json::from_slice(&std::fs::read(&front_json).unwrap()).unwrap();
    let names: Vec<&str> = front["objectives"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["k", "l(occupation)", "GLM", "S_k"]);
    let nodes = front["front"].as_array().unwrap();
    assert!(nodes.len() >= 3, "{} nodes", nodes.len());
    assert!(
        nodes
            .iter()
            .any(|n| n["suppressed_rows"].as_u64() > Some(0)),
        "no node suppresses rows"
    );
    let losses: HashMap<&str, Loss> = QUASI.iter().map(|q| (*q, Loss::read(q))).collect();
    for (i, node) in nodes.iter().enumerate() {
        let levels: BTreeMap<&str, usize> = QUASI
            .iter()
            .map(|q| (*q, node["levels"][q].as_u64().unwrap() as usize))
            .collect();
        let command = node["release"].as_str().unwrap();
        let in_order: Vec<String> = QUASI.iter().map(|q| levels[q].to_string()).collect();
        assert_eq!(
            command,
            format!(
                "cellsafe anonymize {} --levels {}",
                config.display(),
                in_order.join(",")
            )
        );
        let out = dir.path().join(format!("node{i}.csv"));
        let report = dir.path().join(format!("node{i}.json"));
        let args: Vec<&str> = command.split_whitespace().skip(1).collect();
        cellsafe()
            .args(&args)
            .arg("--output")
            .arg(&out)
            .arg("--report")
            .arg(&report)
            .assert()
            .success();
        let report: Value = serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
        assert_eq!(report["found"], true);
        assert_eq!(report["audit"]["passed"], true, "{}", report["audit"]);
        assert_eq!(report["layout"]["suppression_rule"], "smallest");
        assert_eq!(report["pareto"]["values"], node["values"], "{command}");
        assert_eq!(report["pareto"]["k"], node["k"]);
        assert_eq!(report["suppressed_rows"], node["suppressed_rows"]);
        // the file, recounted
        let counted = count(&out, &levels, &losses);
        let value = |name: &str| node["values"][name].as_f64().unwrap();
        assert_eq!(counted.k, value("k"), "{command}: {counted:?}");
        assert_eq!(counted.k, node["k"].as_f64().unwrap());
        assert_eq!(counted.l, value("l(occupation)"), "{command}");
        assert_eq!(counted.s_k, value("S_k"), "{command}");
        assert_eq!(
            counted.suppressed,
            node["suppressed_rows"].as_u64().unwrap()
        );
        let glm = value("GLM");
        assert!(
            (counted.glm - glm).abs() <= 1e-9 * glm.max(1.0),
            "{command}: GLM {} against {glm}",
            counted.glm
        );
    }
}

#[test]
fn a_pareto_config_without_levels_asks_for_them() {
    let dir = tempfile::tempdir().unwrap();
    let config = write_config(dir.path(), "");
    cellsafe()
        .arg("anonymize")
        .arg(&config)
        .arg("--output")
        .arg(dir.path().join("x.csv"))
        .assert()
        .failure()
        .stderr(predicates::str::contains("front.toml"))
        .stderr(predicates::str::contains("`privacy`"))
        .stderr(predicates::str::contains("--levels"));
    assert!(!dir.path().join("x.csv").exists());
}
