//! Parity with ARX's risk analysis on the bundled Adult data. `tests/arx/risk.jsonl` holds
//! what ARX printed (through `tests/arx/RiskDriver.java`, run by `tests/arx/arx.sh risk`) for
//! the original table and transformations of it; cellsafe must give the same numbers to
//! 1e-9. When a JDK and ARX's jar are at hand (`CELLSAFE_ARX_JAR`, else the arx-bench
//! kit's `../shared/arx-bench/arx.jar` beside the checkout), the driver is run again and
//! must print what the file holds, so the file is ARX's output and not a copy typed in.

use crate::common;

use std::path::{Path, PathBuf};

use cellsafe::criteria::ModelSpec;
use cellsafe::metric::MetricKind;
use serde_json::Value;

fn here() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/arx")
}

fn expected() -> Vec<Value> {
    std::fs::read_to_string(here().join("risk.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * b.abs().max(1.0)
}

/// ARX's population estimates of `case` (fractions of the population) against ours: the
/// numbers of population uniques they stand for agree to 1e-6 relative (the accuracy of
/// ARX's solver), or to a millionth of a person when below one (ill-conditioned fits land
/// on different specks of 0).
fn assert_population(case: &Value, p: &cellsafe::risk::population::PopulationUniques, what: &str) {
    let population = p.population as f64;
    // ARX's SNB of 0 with sample uniques is "no fit": ours is then null, with a note
    let snb = match p.snb {
        Some(x) => x,
        None => {
            assert_eq!(case["snb"].as_f64(), Some(0.0), "{what}: SNB without a fit");
            assert!(p.snb_note.is_some(), "{what}");
            0.0
        }
    };
    for (name, ours) in [
        ("zayatz", p.zayatz),
        ("pitman", p.pitman),
        ("snb", snb),
        ("dankar", p.dankar),
    ] {
        let arx = case[name].as_f64().unwrap();
        assert!(
            (ours - arx).abs() * population <= 1e-6 * (arx.abs() * population).max(1.0),
            "{what}: {name} {ours} vs ARX {arx}"
        );
    }
    let model = serde_json::to_value(p.dankar_model).unwrap();
    let arx = case["dankar_model"].as_str().unwrap().to_lowercase();
    assert_eq!(model.as_str().unwrap(), arx, "{what}");
}

/// The class-size histograms alone (seeded random ones, sampling fractions from 1 % to
/// 100 %): every model's estimate, SNB's successful fits included.
#[test]
fn population_uniques_equal_arx_on_random_histograms() {
    let cases: Vec<Value> = expected()
        .into_iter()
        .filter(|c| c.get("k").is_none())
        .collect();
    assert_eq!(cases.len(), 30);
    let mut fitted = [0; 3];
    for case in &cases {
        let flat: Vec<u64> = case["histogram"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_u64().unwrap())
            .collect();
        let sizes = flat
            .chunks(2)
            .flat_map(|sc| std::iter::repeat_n(sc[0], sc[1] as usize));
        let h = cellsafe::risk::Histogram::from_sizes(sizes);
        let population = case["population_size"].as_u64().unwrap();
        let p = cellsafe::risk::population::uniques(&h, population);
        assert_population(
            case,
            &p,
            &format!("histogram {flat:?}, population {population}"),
        );
        for (i, x) in [p.zayatz, p.pitman, p.snb.unwrap_or(0.0)]
            .into_iter()
            .enumerate()
        {
            fitted[i] += (x > 0.0) as usize;
        }
    }
    // every model is exercised where it finds an estimate
    assert!(fitted.iter().all(|&f| f >= 3), "{fitted:?}");
}

#[test]
fn sample_risks_equal_arx() {
    let cases: Vec<Value> = expected()
        .into_iter()
        .filter(|c| c.get("k").is_some())
        .collect();
    assert_eq!(cases.len(), 17);
    for case in &cases {
        let k = case["k"].as_u64().unwrap() as u32;
        let limit = case["suppression"].as_f64().unwrap();
        let threshold = case["threshold"].as_f64().unwrap();
        let problem = common::adult(
            false,
            vec![ModelSpec::KAnonymity { k }],
            limit,
            MetricKind::Loss,
            None,
        );
        let levels: Option<Vec<u8>> = case["levels"]
            .as_array()
            .map(|l| l.iter().map(|x| x.as_u64().unwrap() as u8).collect());
        let population = case["population_size"].as_u64().unwrap();
        let got = cellsafe::job::risk::risk(
            &problem,
            levels.as_deref(),
            threshold,
            Some(cellsafe::job::risk::Population::Size(population)),
            // ARX counts suppressed rows in no class, as if they were not written
            cellsafe::release::SuppressedRows::Drop,
        )
        .unwrap();
        let what = format!("k={k} limit={limit} levels={levels:?}");
        assert_eq!(
            got.records - got.suppressed,
            case["records"].as_f64().unwrap() as u64,
            "{what}"
        );
        assert_eq!(
            got.classes,
            case["classes"].as_f64().unwrap() as u64,
            "{what}"
        );
        let histogram: Vec<u64> = got
            .histogram
            .iter()
            .flat_map(|h| [h.size, h.classes])
            .collect();
        let arx: Vec<u64> = case["histogram"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_u64().unwrap())
            .collect();
        assert_eq!(histogram, arx, "{what}");
        for (name, ours) in [
            ("prosecutor", got.prosecutor),
            ("journalist", got.journalist),
        ] {
            let theirs = &case[name];
            for (field, value) in [
                ("lowest", ours.lowest),
                ("highest", ours.highest),
                ("average", ours.average),
                ("records_at_risk", ours.records_at_risk),
            ] {
                let arx = theirs[field].as_f64().unwrap();
                assert!(
                    close(value, arx),
                    "{what}: {name}.{field} {value} vs ARX {arx}"
                );
            }
        }
        let arx = case["marketer"].as_f64().unwrap();
        assert!(
            close(got.marketer.average, arx),
            "{what}: marketer {} vs {arx}",
            got.marketer.average
        );
        let arx = case["sample_uniques"].as_f64().unwrap();
        assert!(
            close(got.sample_uniques, arx),
            "{what}: sample uniques {} vs {arx}",
            got.sample_uniques
        );
        assert_population(case, &got.population_uniques.unwrap(), &what);
    }
}

/// ARX's jar: `CELLSAFE_ARX_JAR`, else the arx-bench kit beside the checkout.
fn arx_jar() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("CELLSAFE_ARX_JAR") {
        return Some(PathBuf::from(p));
    }
    let kit = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/arx-bench/arx.jar");
    kit.exists().then_some(kit)
}

fn has(program: &str) -> bool {
    std::process::Command::new(program)
        .arg("-version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Every file of ARX's values (`risk`, `models`, `dpresence`) is what the drivers print.
#[test]
fn the_expected_values_are_what_arx_prints() {
    let Some(jar) = arx_jar() else {
        common::skipped("ARX re-run on its own cases: ARX's jar not found (set CELLSAFE_ARX_JAR)");
        return;
    };
    if !has("java") || !has("javac") {
        common::skipped("ARX re-run on its own cases: no JDK (java and javac)");
        return;
    }
    // the three drivers at once (each runs its cases in one JVM): the test takes about as
    // long as the slowest, not the sum (times in docs/performance.md, "CI's own time")
    let runs: Vec<_> = ["risk", "models", "dpresence"]
        .into_iter()
        .map(|mode| {
            let child = std::process::Command::new(here().join("arx.sh"))
                .arg(mode)
                .arg(&jar)
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap();
            (mode, child)
        })
        .collect();
    for (mode, child) in runs {
        let out = child.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "{mode}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let parse = |text: &str| -> Vec<Value> {
            text.lines()
                .map(|l| serde_json::from_str(l).unwrap())
                .collect()
        };
        let kept = std::fs::read_to_string(here().join(format!("{mode}.jsonl"))).unwrap();
        assert_eq!(
            parse(&String::from_utf8(out.stdout).unwrap()),
            parse(&kept),
            "tests/arx/{mode}.jsonl is not what ARX prints now"
        );
    }
}

/// The risk-based privacy models in the optimal search: ARX's optimum (levels, score,
/// suppressed rows) on Adult under average risk, sample uniqueness and population
/// uniqueness, as `tests/arx/ModelDriver.java` printed it (`tests/arx/models.jsonl`).
#[test]
fn risk_based_models_find_arx_optimum() {
    use cellsafe::criteria::Estimator;
    let text = std::fs::read_to_string(here().join("models.jsonl")).unwrap();
    let cases: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(cases.len(), 11);
    for case in &cases {
        let spec = case["model"].as_str().unwrap();
        let (kind, rest) = spec.split_once('=').unwrap();
        let parts: Vec<&str> = rest.split(':').collect();
        let threshold: f64 = parts[0].parse().unwrap();
        let mut models = Vec::new();
        let k = case["k"].as_u64().unwrap() as u32;
        if k > 0 {
            models.push(ModelSpec::KAnonymity { k });
        }
        models.push(match kind {
            "avg" => ModelSpec::AverageRisk {
                threshold,
                highest_risk: parts.get(1).map(|h| h.parse().unwrap()),
                records_at_risk: parts.get(2).map(|r| r.parse().unwrap()),
            },
            "uniq" => ModelSpec::SampleUniqueness { threshold },
            _ => ModelSpec::PopulationUniqueness {
                threshold,
                estimator: match parts[1] {
                    "dankar" => Estimator::Dankar,
                    "zayatz" => Estimator::Zayatz,
                    "pitman" => Estimator::Pitman,
                    _ => Estimator::Snb,
                },
                population_size: Some(parts[2].parse().unwrap()),
                sampling_fraction: None,
            },
        });
        let metric = match case["metric"].as_str().unwrap() {
            "dm" => MetricKind::Discernibility,
            _ => MetricKind::Loss,
        };
        let limit = case["suppression"].as_f64().unwrap();
        let problem = common::adult(false, models, limit, metric, None);
        let best = cellsafe::algorithm::optimal(&problem, &cellsafe::observer::Silent)
            .unwrap()
            .best
            .expect("a solution");
        let arx: Vec<u8> = case["levels"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_u64().unwrap() as u8)
            .collect();
        let score: f64 = case["score"].as_str().unwrap().parse().unwrap();
        let what = format!("{spec} k={k} limit={limit} {metric:?}");
        assert_eq!(
            best.levels, arx,
            "{what}: score {} vs ARX {score}",
            best.score.value
        );
        assert!(
            (best.score.value - score).abs() <= 1e-9 * score.abs().max(1.0),
            "{what}: score {} vs ARX {score}",
            best.score.value
        );
        assert_eq!(
            best.suppressed_rows,
            case["suppressed_rows"].as_u64().unwrap(),
            "{what}"
        );
    }
}
