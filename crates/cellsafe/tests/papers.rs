//! The papers' running examples.

use crate::common;

use cellsafe::criteria::ModelSpec;
use cellsafe::job::config::Config;
use cellsafe::observer::Silent;
use cellsafe::release::Released;

fn load(name: &str) -> Config {
    Config::from_file(&common::examples().join("papers").join(name)).unwrap()
}

fn confidential(values: &[&str]) -> Vec<ModelSpec> {
    vec![ModelSpec::Confidential {
        attribute: "health".into(),
        values: values.iter().map(|v| v.to_string()).collect(),
    }]
}

/// Paper 002, example 5: τ = (2,4,1) (levels 1,3,0) is unsafe for Daniel (u4) when serious
/// illness is confidential; example 6: τ' = (2,4,3) (levels 1,3,2) is safe.
#[test]
fn linking_examples_5_and_6() {
    let p = load("linking8.toml").problem().unwrap();
    let unsafe_node = p.evaluate(&[1, 3, 0]).unwrap();
    assert!(!unsafe_node.acceptable);
    // no suppression allowed: nothing is suppressed, the node is refused
    assert_eq!(unsafe_node.suppressed_rows, 0);
    let test = cellsafe::algorithm::safety::test(&p, &[1, 3, 0], 10).unwrap();
    let persons: Vec<&str> = test.exposures.iter().map(|e| e.person.as_str()).collect();
    assert_eq!(persons, ["Daniel"], "only Daniel (row 4) is unsafe");
    let released = Released::new(&p, &[1, 3, 0]).unwrap();
    // figure 3: the generalized matrix
    assert_eq!(released.row(0), vec!["09/56", "24***", "160", "400K", "1"]);
    assert_eq!(released.row(6), vec!["10/52", "26***", "175", "100K", "0"]);

    let safe_node = p.evaluate(&[1, 3, 2]).unwrap();
    assert!(safe_node.acceptable);
    assert_eq!(safe_node.suppressed_rows, 0);
    // figure 6
    let released = Released::new(&p, &[1, 3, 2]).unwrap();
    assert_eq!(
        released.row(2),
        vec!["03/56", "10***", "[160,170)", "300K", "0"]
    );
    assert_eq!(
        released.row(4),
        vec!["04/55", "26***", "[170,180)", "400K", "2"]
    );
}

/// Paper 000, section 3.2: ind(τ) for τ = (mm/yy, d1d2***, I10) and the two verdicts.
#[test]
fn aog_section_3_2() {
    let mut config = load("aog11.toml");
    let p = config.problem().unwrap();
    let levels = [1, 3, 2];
    let classes = p.classes(&levels);
    let row_class = p.snapshot.row_classes(&p.hierarchies(), &classes, &levels);
    let mut blocks: Vec<Vec<usize>> = Vec::new();
    for c in 0..classes.len() as u32 {
        blocks.push(
            (0..11)
                .filter(|&r| row_class[r] == c)
                .map(|r| r + 1)
                .collect(),
        );
    }
    blocks.sort();
    assert_eq!(
        blocks,
        vec![vec![1, 2, 3], vec![4, 5, 6], vec![7, 8, 9, 10, 11]]
    );
    // secure for CON(u) = {(Health, 2)}
    assert!(p.evaluate(&levels).unwrap().acceptable);
    // figure 2, the generalized table
    let released = Released::new(&p, &levels).unwrap();
    assert_eq!(released.row(0)[..3], ["09/56", "24***", "[160,170)"]);
    assert_eq!(released.row(3)[..3], ["03/56", "10***", "[160,170)"]);
    assert_eq!(released.row(10)[..3], ["04/55", "26***", "[170,180)"]);
    // insecure for u1 when (Health, 1) is confidential: {u1, u2, u3} are all slightly ill
    config.privacy = confidential(&["1"]);
    let p = config.problem().unwrap();
    assert!(!p.evaluate(&levels).unwrap().acceptable);
    let model = &p.models[0];
    let unsafe_rows: Vec<usize> = (0..11)
        .filter(|&r| {
            let c = row_class[r] as usize;
            !model.holds(classes.counts[c], classes.histogram(c))
        })
        .map(|r| r + 1)
        .collect();
    assert_eq!(unsafe_rows, vec![1, 2, 3]);
}

/// The minimal search on the 8-person table equals a brute-force scan of the lattice.
#[test]
fn linking_minimal_safe_generalizations() {
    let p = load("linking8.toml").problem().unwrap();
    let (_, all) = cellsafe::algorithm::exhaustive(&p, &Silent).unwrap();
    let want = common::minimal_acceptable(&all);
    let got: Vec<Vec<u8>> = cellsafe::algorithm::minimal(&p, &Silent)
        .unwrap()
        .minimal
        .into_iter()
        .map(|e| e.levels)
        .collect();
    assert_eq!(got, want);
    assert!(got.contains(&vec![1, 2, 2]));
}
