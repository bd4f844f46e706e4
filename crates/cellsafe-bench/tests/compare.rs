//! The side-by-side cases kept in `compare/` and the data dir `examples/adult-uci` they run
//! on: every case parses, names columns the data has, and builds its problem through the
//! library (so every hierarchy covers its column), with the lattice the hierarchy files
//! give when counted here independently.

use std::path::{Path, PathBuf};

use cellsafe::job::config::Config;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// One line of a cases file: id, quasi-identifiers, models, suppression, metric.
struct Case {
    id: String,
    qis: Vec<String>,
    models: String,
    suppression: f64,
    metric: String,
}

/// The cases of `file` (TAB-separated, `#` comments), as the ARX kit reads them.
fn cases(file: &str) -> Vec<Case> {
    let path = root().join("crates/cellsafe-bench/compare").join(file);
    let text = std::fs::read_to_string(&path).unwrap();
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
        .map(|l| {
            let cols: Vec<&str> = l.split('\t').filter(|c| !c.trim().is_empty()).collect();
            assert_eq!(cols.len(), 5, "{}: {l}", path.display());
            Case {
                id: cols[0].to_owned(),
                qis: cols[1].split(',').map(|q| q.trim().to_owned()).collect(),
                models: cols[2].to_owned(),
                suppression: cols[3].parse().unwrap(),
                metric: cols[4].to_owned(),
            }
        })
        .collect()
}

/// Levels of a `;`-separated ARX hierarchy file, from its first line.
fn levels(file: &Path) -> usize {
    let text = std::fs::read_to_string(file).unwrap();
    text.lines().next().unwrap().split(';').count()
}

#[test]
fn the_kit_cases_are_the_ten_adult_cases() {
    let ids: Vec<String> = cases("adult-cases.tsv").into_iter().map(|c| c.id).collect();
    assert_eq!(
        ids,
        [
            "k5-0-loss-8qi",
            "k5-1-loss-8qi",
            "k5-5-loss-8qi",
            "k5-1-dm-8qi",
            "l3-5-loss-8qi",
            "t0.2-5-loss-8qi",
            "k5-0-loss-9qi",
            "k5-1-loss-9qi",
            "k5-5-loss-9qi",
            "k5-1-dm-9qi"
        ]
    );
}

#[test]
fn the_many_qi_cases_build_their_problems_on_adult_uci() {
    let dir = root().join("examples/adult-uci");
    let header: Vec<String> = std::fs::read_to_string(dir.join("adult.csv"))
        .unwrap()
        .lines()
        .next()
        .unwrap()
        .split(';')
        .map(str::to_owned)
        .collect();
    let all = cases("adult-uci-cases.tsv");
    let widths: Vec<usize> = all.iter().map(|c| c.qis.len()).collect();
    assert_eq!(widths, [11, 11, 12, 12, 13, 13]);
    let mut lattices = Vec::new();
    for case in &all {
        assert_eq!((case.models.as_str(), case.suppression), ("k=5", 0.01));
        let metric = match case.metric.as_str() {
            "loss" => "loss",
            "dm" => "discernibility",
            other => panic!("{}: metric {other}", case.id),
        };
        let mut toml = format!(
            "suppression_limit = 0.01\n[input]\npath = \"adult.csv\"\ndelimiter = \";\"\n\
             hierarchy_delimiter = \";\"\ndefault_role = \"insensitive\"\n\
             [[privacy]]\nmodel = \"k-anonymity\"\nk = 5\n[metric]\nname = \"{metric}\"\n"
        );
        let mut size = 1usize;
        for q in &case.qis {
            assert!(header.contains(q), "{}: no column {q}", case.id);
            let file = dir.join(format!("adult_hierarchy_{q}.csv"));
            size *= levels(&file);
            toml += &format!(
                "[attributes.\"{q}\"]\nrole = \"quasi-identifying\"\n\
                 hierarchy = \"adult_hierarchy_{q}.csv\"\n"
            );
        }
        let config = Config::parse(&toml, &dir.join(format!("{}.toml", case.id))).unwrap();
        let problem = config.problem().unwrap();
        assert_eq!(problem.data.rows(), 48_842, "{}", case.id);
        assert_eq!(problem.lattice.size(), size, "{}", case.id);
        lattices.push(size);
    }
    assert_eq!(
        lattices,
        [155_520, 155_520, 466_560, 466_560, 1_399_680, 1_399_680]
    );
}
