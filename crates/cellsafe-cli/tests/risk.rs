//! `cellsafe risk`: the JSON report on a table small enough to check by hand, the HTML page,
//! and bad parameters.

use assert_cmd::Command;
use serde_json::Value;

const DATA: &str = "name,zip,age,disease\nann,24126,34,flu\nbob,24129,35,cold\ncid,24133,36,flu\ndan,10427,51,cancer\neve,10431,52,flu\nfay,10466,53,cold\n";
const AGE: &str = "34;30-39;*\n35;30-39;*\n36;30-39;*\n51;50-59;*\n52;50-59;*\n53;50-59;*\n";
const CONFIG: &str = r#"suppression_limit = 0.0
[input]
path = "data.csv"
[attributes.name]
role = "identifying"
[attributes.zip]
role = "quasi-identifying"
hierarchy = { kind = "mask" }
[attributes.age]
role = "quasi-identifying"
hierarchy = "age.csv"
[attributes.disease]
role = "sensitive"
[[privacy]]
model = "k-anonymity"
k = 3
"#;

fn fixture() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("data.csv"), DATA).unwrap();
    std::fs::write(dir.path().join("age.csv"), AGE).unwrap();
    std::fs::write(dir.path().join("job.toml"), CONFIG).unwrap();
    dir
}

fn risk(dir: &std::path::Path, args: &[&str]) -> Value {
    let out = Command::cargo_bin("cellsafe")
        .unwrap()
        .arg("risk")
        .arg(dir.join("job.toml"))
        .args(args)
        .assert()
        .success();
    serde_json::from_slice(&out.get_output().stdout).unwrap()
}

/// Six persons: as they are, each is alone (risk 1); with zip hidden and age in decades,
/// two classes of three (risk 1/3 each).
#[test]
fn risks_of_a_table_checked_by_hand() {
    let dir = fixture();
    let r = risk(dir.path(), &[]);
    assert_eq!(r["classes"], 6);
    assert_eq!(r["sample_uniques"], 1.0);
    assert_eq!(r["prosecutor"]["highest"], 1.0);
    assert_eq!(r["prosecutor"]["average"], 1.0);
    assert_eq!(r["prosecutor"]["records_at_risk"], 1.0);
    assert_eq!(r["marketer"]["average"], 1.0);
    assert!(r.get("population_uniques").is_none());
    let r = risk(dir.path(), &["--levels", "5,1", "--threshold", "0.3"]);
    assert_eq!(r["classes"], 2);
    assert_eq!(r["suppressed"], 0);
    assert_eq!(
        r["histogram"],
        serde_json::json!([{"size": 3, "classes": 2}])
    );
    let third = 1.0 / 3.0;
    for attacker in ["prosecutor", "journalist"] {
        for field in ["lowest", "highest", "average"] {
            assert!((r[attacker][field].as_f64().unwrap() - third).abs() < 1e-15);
        }
        assert_eq!(r[attacker]["records_at_risk"], 1.0, "1/3 > 0.3");
    }
    assert_eq!(r["sample_uniques"], 0.0);
    let r = risk(dir.path(), &["--levels", "5,1", "--threshold", "0.34"]);
    assert_eq!(r["prosecutor"]["records_at_risk"], 0.0);
    // a population of 60: ten times the sample; no sample uniques, so no population ones
    let r = risk(dir.path(), &["--levels", "5,1", "--population-size", "60"]);
    assert_eq!(r["population_uniques"]["population"], 60);
    assert_eq!(r["population_uniques"]["dankar"], 0.0);
    // levels (0, 1): zip as it is keeps everyone unique; Zayatz's estimate is then
    // c1 · P(a unique is drawn | size 1) / P(...) / f = 6 / 0.1 of a population of 60
    let r = risk(dir.path(), &["--sampling-fraction", "0.1"]);
    let p = &r["population_uniques"];
    assert_eq!(p["population"], 60);
    assert!((p["zayatz"].as_f64().unwrap() - 1.0).abs() < 1e-12, "{p}");
    // six uniques and no pair: SNB, fitted to the classes of size 1 and 2, finds no fit
    // and says so instead of writing 0
    assert!(p["snb"].is_null(), "{p}");
    assert!(p["snb_note"].as_str().unwrap().starts_with("no fit"), "{p}");
}

#[test]
fn the_page_shows_the_table_beside_its_transformation() {
    let dir = fixture();
    let page = dir.path().join("risk.html");
    let r = risk(
        dir.path(),
        &["--levels", "5,1", "--html", page.to_str().unwrap()],
    );
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains("as it is (levels 0,0)"), "{html}");
    assert!(html.contains("transformed (levels 5,1)"));
    assert_eq!(html.matches("<svg").count(), 2);
    for fetched in ["<script", "src=", "href=", "<link"] {
        assert!(!html.contains(fetched), "{fetched}");
    }
    // the headline numbers are the report's
    assert_eq!(r["prosecutor"]["highest"].as_f64().unwrap(), 1.0 / 3.0);
    assert!(html.contains("<td>33.33 %</td>"));
    assert!(html.contains("<td>100.00 %</td>"));
}

#[test]
fn bad_parameters_are_refused_by_name() {
    let dir = fixture();
    for (args, message) in [
        (vec!["--threshold", "1.5"], "threshold"),
        (vec!["--sampling-fraction", "0"], "sampling fraction"),
        (
            vec!["--population-size", "5"],
            "at least the table's 6 rows",
        ),
        (vec!["--levels", "9,9"], "level"),
    ] {
        Command::cargo_bin("cellsafe")
            .unwrap()
            .arg("risk")
            .arg(dir.path().join("job.toml"))
            .args(&args)
            .assert()
            .failure()
            .stderr(predicates::str::contains(message));
    }
    // the page may not overwrite an input
    Command::cargo_bin("cellsafe")
        .unwrap()
        .arg("risk")
        .arg(dir.path().join("job.toml"))
        .args(["--html"])
        .arg(dir.path().join("data.csv"))
        .assert()
        .failure();
    assert!(std::fs::read_to_string(dir.path().join("data.csv")).unwrap() == DATA);
}
