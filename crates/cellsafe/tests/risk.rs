//! `cellsafe risk`'s numbers against an independent counter: the Adult CSV and hierarchy
//! files read with plain string splitting, each row's generalized tuple built from the
//! hierarchy's text at the node's levels, classes counted in a map, and every risk computed
//! record by record. And monotonicity: without suppression, generalizing never raises the
//! prosecutor's risks, the marketer's or the share of sample uniques.

use crate::common;

use std::collections::HashMap;
use std::path::Path;

use cellsafe::criteria::ModelSpec;
use cellsafe::metric::MetricKind;
use cellsafe::release::SuppressedRows::Star;
use rand::{Rng, SeedableRng};

use common::ADULT_QIS as QI;

/// Per QI: value → its labels by level, and the highest level.
fn hierarchies(dir: &Path) -> Vec<(HashMap<String, Vec<String>>, u8)> {
    QI.iter()
        .map(|q| {
            let text =
                std::fs::read_to_string(dir.join(format!("adult_hierarchy_{q}.csv"))).unwrap();
            let mut map = HashMap::new();
            let mut top = 0;
            for line in text.lines().filter(|l| !l.is_empty()) {
                let cells: Vec<String> = line.split(';').map(String::from).collect();
                top = cells.len() as u8 - 1;
                map.insert(cells[0].clone(), cells);
            }
            (map, top)
        })
        .collect()
}

/// Class sizes of the rows at `levels`, counted from the files.
fn class_sizes(levels: &[u8]) -> Vec<u64> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/adult");
    let h = hierarchies(&dir);
    let text = std::fs::read_to_string(dir.join("adult.csv")).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(';').collect();
    let columns: Vec<usize> = QI
        .iter()
        .map(|q| header.iter().position(|h| h == q).unwrap())
        .collect();
    let mut classes: HashMap<Vec<String>, u64> = HashMap::new();
    for line in lines.filter(|l| !l.is_empty()) {
        let cells: Vec<&str> = line.split(';').collect();
        let key = columns
            .iter()
            .zip(&h)
            .zip(levels)
            .map(|((&c, (map, _)), &l)| map[cells[c]][l as usize].clone())
            .collect();
        *classes.entry(key).or_default() += 1;
    }
    classes.into_values().collect()
}

fn problem() -> cellsafe::algorithm::problem::Problem {
    common::adult(
        false,
        vec![ModelSpec::KAnonymity { k: 1 }],
        0.0,
        MetricKind::Loss,
        None,
    )
}

fn random_node(rng: &mut impl Rng) -> Vec<u8> {
    let max = [1u8, 4, 1, 2, 3, 2, 2, 1];
    max.iter().map(|&m| rng.gen_range(0..=m)).collect()
}

#[test]
fn risks_equal_an_independent_count_of_the_files() {
    let problem = problem();
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
    for round in 0..12 {
        let levels = if round == 0 {
            vec![0; 8]
        } else {
            random_node(&mut rng)
        };
        let sizes = class_sizes(&levels);
        let t = [0.05, 0.2, 0.5][round % 3];
        let got = cellsafe::job::risk::risk(&problem, Some(&levels), t, None, Star).unwrap();
        let n: u64 = sizes.iter().sum();
        assert_eq!(got.records, n);
        assert_eq!(got.suppressed, 0);
        assert_eq!(got.classes, sizes.len() as u64, "{levels:?}");
        // record by record
        let per_record: Vec<f64> = sizes
            .iter()
            .flat_map(|&s| std::iter::repeat_n(1.0 / s as f64, s as usize))
            .collect();
        let average = per_record.iter().sum::<f64>() / n as f64;
        let highest = per_record.iter().copied().fold(0.0, f64::max);
        let lowest = per_record.iter().copied().fold(1.0, f64::min);
        let at_risk = per_record.iter().filter(|&&r| r > t).count() as f64 / n as f64;
        let uniques = per_record.iter().filter(|&&r| r == 1.0).count() as f64 / n as f64;
        let close = |a: f64, b: f64| (a - b).abs() < 1e-12;
        let p = got.prosecutor;
        assert!(close(p.average, average), "{levels:?}");
        assert!(
            close(p.highest, highest) && close(p.lowest, lowest),
            "{levels:?}"
        );
        assert!(close(p.records_at_risk, at_risk), "{levels:?}");
        assert!(close(got.sample_uniques, uniques), "{levels:?}");
        assert!(close(got.marketer.average, average));
        let mut histogram: HashMap<u64, u64> = HashMap::new();
        for &s in &sizes {
            *histogram.entry(s).or_default() += 1;
        }
        for h in &got.histogram {
            assert_eq!(histogram.get(&h.size), Some(&h.classes), "{levels:?}");
        }
        assert_eq!(got.histogram.len(), histogram.len());
    }
}

#[test]
fn generalizing_never_raises_the_risks() {
    let problem = problem();
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(6);
    let max = [1u8, 4, 1, 2, 3, 2, 2, 1];
    for _ in 0..40 {
        let a = random_node(&mut rng);
        // a generalization of a: each level raised by a random amount
        let b: Vec<u8> = a
            .iter()
            .zip(max)
            .map(|(&l, m)| rng.gen_range(l..=m))
            .collect();
        let ra = cellsafe::job::risk::risk(&problem, Some(&a), 0.2, None, Star).unwrap();
        let rb = cellsafe::job::risk::risk(&problem, Some(&b), 0.2, None, Star).unwrap();
        let what = format!("{a:?} ⊑ {b:?}");
        assert!(rb.classes <= ra.classes, "{what}");
        assert!(rb.prosecutor.average <= ra.prosecutor.average, "{what}");
        assert!(rb.prosecutor.highest <= ra.prosecutor.highest, "{what}");
        assert!(rb.prosecutor.lowest <= ra.prosecutor.lowest, "{what}");
        assert!(
            rb.prosecutor.records_at_risk <= ra.prosecutor.records_at_risk,
            "{what}"
        );
        assert!(rb.marketer.average <= ra.marketer.average, "{what}");
        assert!(rb.sample_uniques <= ra.sample_uniques, "{what}");
    }
}

/// Suppressed rows as written: with `*` for every quasi-identifier they are one class a
/// recipient sees (a prosecutor whose target is in no visible class knows it is one of
/// them); left out, they are in no class (ARX's accounting).
#[test]
fn suppressed_rows_written_as_stars_are_one_class() {
    let problem = common::adult(
        false,
        vec![ModelSpec::KAnonymity { k: 5 }],
        0.05,
        MetricKind::Loss,
        None,
    );
    let levels = [0, 2, 0, 1, 2, 1, 1, 0];
    let star = cellsafe::job::risk::risk(&problem, Some(&levels), 0.2, None, Star).unwrap();
    let drop = cellsafe::job::risk::risk(
        &problem,
        Some(&levels),
        0.2,
        None,
        cellsafe::release::SuppressedRows::Drop,
    )
    .unwrap();
    assert_eq!(star.suppressed, 1158);
    assert_eq!(drop.suppressed, 1158);
    assert_eq!(
        (star.suppressed_rows, drop.suppressed_rows),
        ("one class", "left out")
    );
    assert_eq!(star.classes, drop.classes + 1);
    assert!(star
        .histogram
        .iter()
        .any(|h| h.size == 1158 && h.classes == 1));
    let (n, m) = (star.records as f64, (star.records - star.suppressed) as f64);
    assert!((star.prosecutor.average - (drop.classes as f64 + 1.0) / n).abs() < 1e-15);
    assert!((drop.prosecutor.average - drop.classes as f64 / m).abs() < 1e-15);
    // at the top every label is `*`: the suppressed rows join the one class
    let top = [1, 4, 1, 2, 3, 2, 2, 1];
    let r = cellsafe::job::risk::risk(&problem, Some(&top), 0.2, None, Star).unwrap();
    assert_eq!(r.classes, 1);
    assert_eq!(r.histogram[0].size, r.records);
}

/// The risk-based models as configured: each parses and binds; a parameter out of its
/// domain is named; local recoding refuses them; a release under one passes the audit,
/// whose independent count of the written file finds the model held.
#[test]
fn risk_based_models_from_the_config() {
    let base = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/adult/adult.toml"),
    )
    .unwrap()
    .replace("suppression_limit = 0.01", "suppression_limit = 0.05");
    let k5 = "[[privacy]]\nmodel = \"k-anonymity\"\nk = 5\n";
    assert!(base.contains(k5));
    let with = |model: &str| base.replace(k5, model);
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/adult/adult.toml");
    let parse = |text: &str| cellsafe::job::config::Config::parse(text, &path);
    for good in [
        "[[privacy]]\nmodel = \"average-risk\"\nthreshold = 0.05\n",
        "[[privacy]]\nmodel = \"sample-uniqueness\"\nthreshold = 0.01\n",
        "[[privacy]]\nmodel = \"population-uniqueness\"\nthreshold = 0.01\nsampling_fraction = 0.1\n",
        "[[privacy]]\nmodel = \"population-uniqueness\"\nthreshold = 0.01\nestimator = \"zayatz\"\npopulation_size = 301620\n",
    ] {
        parse(&with(good)).unwrap().problem().unwrap();
    }
    for (bad, key) in [
        ("[[privacy]]\nmodel = \"average-risk\"\nthreshold = 2.0\n", "threshold"),
        (
            "[[privacy]]\nmodel = \"average-risk\"\nthreshold = 0.05\nhighest_risk = 0.2\n",
            "records_at_risk",
        ),
        ("[[privacy]]\nmodel = \"population-uniqueness\"\nthreshold = 0.01\n", "population_size"),
        (
            "[[privacy]]\nmodel = \"population-uniqueness\"\nthreshold = 0.01\npopulation_size = 10\n",
            "population_size",
        ),
    ] {
        let err = parse(&with(bad))
            .and_then(|c| c.problem())
            .unwrap_err()
            .to_string();
        assert!(err.contains(key), "{err}");
    }
    let local = with("[[privacy]]\nmodel = \"average-risk\"\nthreshold = 0.05\n")
        .replace("algorithm = \"optimal\"", "algorithm = \"mondrian\"");
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.csv");
    let outputs = cellsafe::job::Outputs {
        table: Some(out.clone()),
        ..Default::default()
    };
    let run = |c: &cellsafe::job::config::Config| {
        cellsafe::job::anonymize(c, &outputs, &cellsafe::observer::Silent)
    };
    let err = parse(&local)
        .and_then(|c| run(&c).map(|_| ()))
        .unwrap_err()
        .to_string();
    assert!(err.contains("local recoding"), "{err}");
    // a release under the average risk: the audit reads the written file
    let config = parse(&with(
        "[[privacy]]\nmodel = \"average-risk\"\nthreshold = 0.05\n",
    ))
    .unwrap();
    let report = run(&config).unwrap();
    let text = std::fs::read_to_string(&out).unwrap();
    let mut classes: HashMap<String, u64> = HashMap::new();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(';').collect();
    let qi: Vec<usize> = QI
        .iter()
        .map(|q| header.iter().position(|h| h == q).unwrap())
        .collect();
    for line in lines {
        let cells: Vec<&str> = line.split(';').collect();
        let key: Vec<&str> = qi.iter().map(|&c| cells[c]).collect();
        if key.iter().all(|c| *c == "*") {
            continue; // suppressed
        }
        *classes.entry(key.join("|")).or_default() += 1;
    }
    let records: u64 = classes.values().sum();
    assert!(
        classes.len() as f64 / records as f64 <= 0.05,
        "{} / {records}",
        classes.len()
    );
    let _ = report;
}

/// Under each risk-based model, the optimal search (which prunes by the models'
/// monotonicity flags) finds the score of the exhaustive search, which evaluates every node.
#[test]
fn the_optimal_search_under_risk_based_models_equals_the_exhaustive_one() {
    use cellsafe::criteria::Estimator;
    for model in [
        ModelSpec::AverageRisk {
            threshold: 0.05,
            highest_risk: None,
            records_at_risk: None,
        },
        ModelSpec::SampleUniqueness { threshold: 0.01 },
        ModelSpec::PopulationUniqueness {
            threshold: 0.005,
            estimator: Estimator::Zayatz,
            population_size: None,
            sampling_fraction: Some(0.1),
        },
    ] {
        let problem = common::adult(false, vec![model.clone()], 0.05, MetricKind::Loss, None);
        let silent = &cellsafe::observer::Silent;
        let optimal = cellsafe::algorithm::optimal(&problem, silent)
            .unwrap()
            .best
            .unwrap();
        let (all, evaluations) = cellsafe::algorithm::exhaustive(&problem, silent).unwrap();
        let best = all.best.unwrap();
        assert_eq!(optimal.score.value, best.score.value, "{model:?}");
        // and the best is the least score among the acceptable nodes
        let least = evaluations
            .iter()
            .filter(|e| e.acceptable)
            .map(|e| e.score.value)
            .fold(f64::INFINITY, f64::min);
        assert_eq!(best.score.value, least, "{model:?}");
    }
}

/// The texts of the page's `<text ... text-anchor="end">` elements: the value axis' ticks.
fn tick_labels(svg: &str) -> Vec<f64> {
    svg.split("text-anchor=\"end\">")
        .skip(1)
        .map(|t| {
            let label = &t[..t.find("</text>").unwrap()];
            label.trim_end_matches(" %").parse::<f64>().unwrap()
        })
        .collect()
}

/// Ticks start at 0, are evenly spaced by 1, 2 or 5 times a power of ten, and each is a
/// whole number of steps: no 77.52 %.
fn assert_round(ticks: &[f64], what: &str) {
    assert!(ticks.len() >= 3, "{what}: {ticks:?}");
    assert_eq!(ticks[0], 0.0, "{what}: {ticks:?}");
    let step = ticks[1] - ticks[0];
    let mantissa = step / 10f64.powf(step.log10().floor());
    assert!(
        [1.0, 2.0, 5.0, 10.0]
            .iter()
            .any(|m| (mantissa - m).abs() < 1e-9),
        "{what}: step {step} in {ticks:?}"
    );
    for (i, t) in ticks.iter().enumerate() {
        assert!(
            (t - i as f64 * step).abs() < 1e-9 * step.max(1.0),
            "{what}: {ticks:?}"
        );
    }
}

/// The shares each series' bars give in one chart, by series name, in percent.
fn bar_shares(svg: &str) -> HashMap<String, f64> {
    let mut sums = HashMap::new();
    for t in svg.split("<title>").skip(1) {
        let title = &t[..t.find("</title>").unwrap()];
        let (series, rest) = title.split_once(": ").unwrap();
        let share = rest.rsplit(": ").next().unwrap();
        let value = if share == "0 %" {
            0.0
        } else {
            share.trim_end_matches(" %").parse::<f64>().unwrap()
        };
        *sums.entry(series.to_string()).or_insert(0.0) += value;
    }
    sums
}

/// The risk page says what the data it draws is: with `*` rows the suppressed records are
/// one class (in the histogram, the charts and as the lowest risk), left out they are in
/// none; the bars of the released file's records add up to all of them; the value axes
/// tick on round numbers.
#[test]
fn the_risk_page_says_what_it_draws() {
    let problem = common::adult(
        false,
        vec![ModelSpec::KAnonymity { k: 5 }],
        0.05,
        MetricKind::Loss,
        None,
    );
    let levels = [0, 2, 0, 1, 2, 1, 1, 0];
    let before = cellsafe::job::risk::risk(&problem, None, 0.2, None, Star).unwrap();
    let star = cellsafe::job::risk::risk(&problem, Some(&levels), 0.2, None, Star).unwrap();
    let drop = cellsafe::job::risk::risk(
        &problem,
        Some(&levels),
        0.2,
        None,
        cellsafe::release::SuppressedRows::Drop,
    )
    .unwrap();
    assert_eq!(star.suppressed_class_size, Some(1158));
    assert_eq!(drop.suppressed_class_size, None);
    let star_page = cellsafe::job::risk_page::html(&before, Some(&star));
    let drop_page = cellsafe::job::risk_page::html(&before, Some(&drop));
    // the sentence about suppressed records matches the data
    assert!(!star_page.contains("in no class"), "{star_page}");
    assert!(
        star_page.contains("form one class of 1158 records"),
        "{star_page}"
    );
    assert!(star_page.contains("<tr class=\"suppressed\"><td>1158</td><td>1</td>"));
    assert!(drop_page.contains("left out of the released file"));
    assert!(drop_page.contains("in no class and no bar"));
    assert!(!drop_page.contains("class=\"suppressed\""));
    // with nothing suppressed, nothing is said of suppressed records being anywhere
    let alone = cellsafe::job::risk_page::html(&before, None);
    assert!(alone.contains("No record is suppressed"), "{alone}");
    for (page, released) in [
        (&star_page, star.records),
        (&drop_page, drop.records - 1158),
    ] {
        let charts: Vec<&str> = page.split("<svg").skip(1).collect();
        assert_eq!(charts.len(), 2);
        for chart in &charts {
            assert_round(&tick_labels(chart), chart);
            // every record of the released file is in one bar of each chart
            for (series, sum) in bar_shares(chart) {
                assert!((sum - 100.0).abs() < 0.1, "{series}: {sum} % in {chart}");
            }
        }
        assert!(page.contains(&format!("of the {released} records in the released file")));
    }
}

/// SNB without a fit is `null` with a reason in the JSON, not 0 (a share that would read
/// as "no population uniques"); a fit, and the true 0 of a sample without uniques, are
/// numbers without a note.
#[test]
fn snb_without_a_fit_is_null_with_a_reason() {
    let estimate = |flat: &[u64], population: u64| {
        let sizes = flat
            .chunks(2)
            .flat_map(|sc| std::iter::repeat_n(sc[0], sc[1] as usize));
        let h = cellsafe::risk::Histogram::from_sizes(sizes);
        serde_json::to_value(cellsafe::risk::population::uniques(&h, population)).unwrap()
    };
    // ARX finds no SNB fit here (tests/arx/risk.jsonl); Zayatz does give one
    let none = estimate(&[1, 3, 2, 1, 4, 1], 180);
    assert!(none["snb"].is_null(), "{none}");
    assert!(
        none["snb_note"].as_str().unwrap().contains("no fit"),
        "{none}"
    );
    assert!(none["zayatz"].as_f64().unwrap() > 0.0);
    // no sample uniques: every estimate is truly 0
    let zero = estimate(&[2, 1, 3, 1, 4, 1], 135);
    assert_eq!(zero["snb"], 0.0, "{zero}");
    assert!(zero.get("snb_note").is_none(), "{zero}");
    // a fit: the first histogram on which ARX found one
    let arx =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/arx/risk.jsonl"))
            .unwrap();
    let case: serde_json::Value = arx
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .find(|c| c.get("k").is_none() && c["snb"].as_f64().unwrap() > 0.0)
        .unwrap();
    let flat: Vec<u64> = case["histogram"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_u64().unwrap())
        .collect();
    let fit = estimate(&flat, case["population_size"].as_u64().unwrap());
    assert!(fit["snb"].as_f64().unwrap() > 0.0, "{fit}");
    assert!(fit.get("snb_note").is_none(), "{fit}");
}
