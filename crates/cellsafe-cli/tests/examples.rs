//! The bundled examples as a reader meets them: each config's header says how to run it,
//! and the command it gives names the example itself (a copied header once told the
//! reader of `zhang08-table6.toml` to run the table-1 file).

use std::path::{Path, PathBuf};

fn examples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples")
}

/// Every `.toml` under `dir`, recursively.
fn configs(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            configs(&path, out);
        } else if path.extension().is_some_and(|e| e == "toml") {
            out.push(path);
        }
    }
}

#[test]
fn every_example_header_runs_the_example_itself() {
    let root = examples();
    let mut files = Vec::new();
    configs(&root, &mut files);
    assert!(files.len() > 5, "{files:?}");
    let mut checked = 0;
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        let own = format!(
            "examples/{}",
            file.strip_prefix(&root).unwrap().to_string_lossy()
        );
        // the commands of the header: comment lines before the first key or table
        let commands: Vec<&str> = text
            .lines()
            .take_while(|l| l.trim().is_empty() || l.starts_with('#'))
            .filter_map(|l| l.split_once("cellsafe ").map(|(_, c)| c))
            .filter(|c| c.contains("examples/"))
            .collect();
        if commands.is_empty() {
            continue;
        }
        checked += 1;
        for c in &commands {
            let named = c
                .split_whitespace()
                .find(|w| w.starts_with("examples/"))
                .unwrap();
            assert!(
                root.join("..").join(named).is_file(),
                "{own}: the header names {named}, which does not exist"
            );
        }
        assert!(
            commands
                .iter()
                .any(|c| c.split_whitespace().any(|w| w == own)),
            "{own}: no command of its header runs it: {commands:?}"
        );
    }
    assert!(checked >= 8, "only {checked} headers with commands");
}

/// README's local-recoding example runs as README gives it: no quasi-identifier has a
/// hierarchy, `age` is released as intervals and the others as values or value sets, and
/// a recount of the written file finds every group of at least 5 rows with at least 2
/// occupations.
#[test]
fn the_mondrian_example_runs_without_hierarchies() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("mondrian.csv");
    let report = dir.path().join("mondrian.json");
    assert_cmd::Command::cargo_bin("cellsafe")
        .unwrap()
        .arg("anonymize")
        .arg(examples().join("adult/adult-mondrian.toml"))
        .arg("--output")
        .arg(&out)
        .arg("--report")
        .arg(&report)
        .assert()
        .success();
    let config = std::fs::read_to_string(examples().join("adult/adult-mondrian.toml")).unwrap();
    assert!(
        !config.contains("hierarchy ="),
        "the example must need none"
    );
    let text = std::fs::read_to_string(&out).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(';').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let (age, occupation, gid) = (col("age"), col("occupation"), col("gid"));
    let qis: Vec<usize> = [
        "age",
        "sex",
        "race",
        "marital-status",
        "education",
        "native-country",
        "workclass",
    ]
    .iter()
    .map(|n| col(n))
    .collect();
    // the groups as a recipient sees them: rows showing the same quasi-identifiers
    let mut groups: std::collections::HashMap<
        Vec<String>,
        (usize, std::collections::HashSet<String>),
    > = Default::default();
    let mut rows = 0;
    let mut intervals = 0;
    for line in lines {
        let cells: Vec<&str> = line.split(';').collect();
        assert_eq!(cells.len(), header.len(), "{line}");
        assert!(!cells[gid].is_empty());
        let a = cells[age];
        if a.starts_with('[') {
            intervals += 1;
            let (lo, hi) = a[1..a.len() - 1].split_once(',').unwrap();
            assert!(
                lo.parse::<u32>().unwrap() <= hi.parse::<u32>().unwrap(),
                "{a}"
            );
        } else {
            a.parse::<u32>().unwrap();
        }
        let key = qis.iter().map(|&i| cells[i].to_string()).collect();
        let entry = groups.entry(key).or_default();
        entry.0 += 1;
        entry.1.insert(cells[occupation].to_string());
        rows += 1;
    }
    assert_eq!(rows, 30162);
    assert!(intervals > 0);
    for (key, (size, occupations)) in &groups {
        assert!(*size >= 5, "{key:?}: {size} rows");
        assert!(occupations.len() >= 2, "{key:?}: {occupations:?}");
    }
}
