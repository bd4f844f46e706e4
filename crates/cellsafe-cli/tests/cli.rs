//! The command line: exit codes, error messages that locate the problem, and the promise
//! that inputs are never modified and outputs appear whole.

use std::path::Path;

use assert_cmd::Command;
use predicates::prelude::*;

fn cellsafe() -> Command {
    Command::cargo_bin("cellsafe").unwrap()
}

const DATA: &str = "name,zip,age,disease\nann,24126,34,flu\nbob,24129,35,cold\ncid,24133,36,flu\ndan,10427,51,cancer\neve,10431,52,flu\nfay,10466,53,cold\n";
const AGE: &str = "34;30-39;*\n35;30-39;*\n36;30-39;*\n51;50-59;*\n52;50-59;*\n53;50-59;*\n";

fn config(extra: &str) -> String {
    format!(
        r#"suppression_limit = 0.0
[input]
path = "data.csv"
[attributes.name]
role = "identifying"
[attributes.zip]
role = "quasi-identifying"
hierarchy = {{ kind = "mask" }}
[attributes.age]
role = "quasi-identifying"
hierarchy = "age.csv"
[attributes.disease]
role = "sensitive"
{extra}"#
    )
}

fn fixture(data: &str, age: &str, config_text: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("data.csv"), data).unwrap();
    std::fs::write(dir.path().join("age.csv"), age).unwrap();
    std::fs::write(dir.path().join("job.toml"), config_text).unwrap();
    dir
}

fn k(k: u32) -> String {
    format!("[[privacy]]\nmodel = \"k-anonymity\"\nk = {k}\n")
}

fn run_anonymize(dir: &Path) -> assert_cmd::assert::Assert {
    cellsafe()
        .arg("anonymize")
        .arg(dir.join("job.toml"))
        .arg("--output")
        .arg(dir.join("out.csv"))
        .arg("--report")
        .arg(dir.join("report.json"))
        .assert()
}

#[test]
fn anonymize_writes_table_and_report_and_leaves_input_alone() {
    let dir = fixture(DATA, AGE, &config(&k(3)));
    let before = std::fs::read(dir.path().join("data.csv")).unwrap();
    run_anonymize(dir.path()).success();
    assert_eq!(std::fs::read(dir.path().join("data.csv")).unwrap(), before);
    let out = std::fs::read_to_string(dir.path().join("out.csv")).unwrap();
    assert!(
        out.starts_with("zip,age,disease\n"),
        "identifying column removed: {out}"
    );
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("report.json")).unwrap())
            .unwrap();
    assert_eq!(report["found"], true);
    assert_eq!(report["min_class_size"], 3);
    assert_eq!(report["audit"]["passed"], true);
    let keys: Vec<&String> = report["levels"].as_object().unwrap().keys().collect();
    assert_eq!(keys, ["zip", "age"], "levels in header order");
    // nothing but our files: no temporary leftovers
    let mut names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert_eq!(
        names,
        ["age.csv", "data.csv", "job.toml", "out.csv", "report.json"]
    );
}

#[test]
fn refuses_to_overwrite_the_input() {
    let dir = fixture(DATA, AGE, &config(&k(3)));
    let before = std::fs::read(dir.path().join("data.csv")).unwrap();
    cellsafe()
        .arg("anonymize")
        .arg(dir.path().join("job.toml"))
        .arg("--output")
        .arg(dir.path().join("data.csv"))
        .assert()
        .code(1)
        .stderr(predicate::str::contains("refusing to overwrite the input"));
    assert_eq!(std::fs::read(dir.path().join("data.csv")).unwrap(), before);
}

#[test]
fn nothing_found_exits_3_with_found_false() {
    let models = "[[privacy]]\nmodel = \"distinct-l-diversity\"\nattribute = \"disease\"\nl = 4\n";
    let dir = fixture(DATA, AGE, &config(models));
    run_anonymize(dir.path()).code(3);
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("report.json")).unwrap())
            .unwrap();
    assert_eq!(report["found"], false);
    assert!(!dir.path().join("out.csv").exists());
}

#[test]
fn ragged_row_names_file_and_line() {
    let dir = fixture(
        "name,zip,age,disease\nann,24126,34,flu\nbob,24129\n",
        AGE,
        &config(&k(1)),
    );
    run_anonymize(dir.path())
        .code(1)
        .stderr(predicate::str::contains("data.csv:3").and(predicate::str::contains("2 fields")));
}

#[test]
fn unknown_column_names_the_config_key() {
    let dir = fixture(
        DATA,
        AGE,
        &config(&format!(
            "{}[attributes.salary]\nrole = \"sensitive\"\n",
            k(2)
        )),
    );
    run_anonymize(dir.path()).code(1).stderr(
        predicate::str::contains("attributes.salary").and(predicate::str::contains("no column")),
    );
}

#[test]
fn value_missing_from_hierarchy_names_line_and_column() {
    let dir = fixture(
        DATA,
        "34;30-39;*\n35;30-39;*\n36;30-39;*\n51;50-59;*\n53;50-59;*\n",
        &config(&k(2)),
    );
    // 52 first appears on line 6, column 3
    run_anonymize(dir.path())
        .code(1)
        .stderr(predicate::str::contains("data.csv:6:3").and(predicate::str::contains("`52`")));
}

#[test]
fn non_coarsening_hierarchy_is_located() {
    let dir = fixture(
        DATA,
        "34;30-39;*\n35;30-39;x\n36;30-39;*\n51;50-59;*\n52;50-59;*\n53;50-59;*\n",
        &config(&k(2)),
    );
    run_anonymize(dir.path()).code(1).stderr(
        predicate::str::contains("age.csv:2:3").and(predicate::str::contains("not a coarsening")),
    );
}

#[test]
fn k_larger_than_rows_finds_nothing() {
    // a valid job without a solution, like any other: exit 3 and "found": false
    let dir = fixture(DATA, AGE, &config(&k(7)));
    run_anonymize(dir.path()).code(3);
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("report.json")).unwrap())
            .unwrap();
    assert_eq!(report["found"], false);
    assert!(!dir.path().join("out.csv").exists());
}

#[test]
fn model_parameter_out_of_domain_names_the_key() {
    let models = "[[privacy]]\nmodel = \"t-closeness\"\nattribute = \"disease\"\nt = 1.5\ndistance = \"equal\"\n";
    let dir = fixture(DATA, AGE, &config(models));
    run_anonymize(dir.path()).code(1).stderr(
        predicate::str::contains("config key `privacy[0].t`")
            .and(predicate::str::contains("(0, 1]")),
    );
}

#[test]
fn malformed_number_points_at_line_and_column() {
    let dir = fixture(
        DATA,
        AGE,
        &config("[[privacy]]\nmodel = \"k-anonymity\"\nk = \"five\"\n"),
    );
    // the [[privacy]] table holding the bad value starts at line 14 (toml reports the table
    // for internally tagged entries)
    run_anonymize(dir.path()).code(1).stderr(
        predicate::str::contains("job.toml:14:1").and(predicate::str::contains("expected u32")),
    );
}

#[test]
fn unreadable_file_is_named() {
    let dir = fixture(DATA, AGE, &config(&k(2)));
    std::fs::remove_file(dir.path().join("age.csv")).unwrap();
    run_anonymize(dir.path())
        .code(1)
        .stderr(predicate::str::contains("age.csv"));
    let out = cellsafe()
        .arg("anonymize")
        .arg(dir.path().join("missing.toml"))
        .assert()
        .code(1)
        .stderr(predicate::str::contains("missing.toml"));
    // regression: the cause was printed twice ("… (os error 2): … (os error 2)")
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    assert_eq!(stderr.matches("os error").count(), 1, "{stderr}");
}

#[test]
fn evaluate_scores_one_transformation() {
    let dir = fixture(DATA, AGE, &config(&k(3)));
    let out = cellsafe()
        .arg("evaluate")
        .arg(dir.path().join("job.toml"))
        .args(["--levels", "2,1"])
        .assert()
        .success();
    let node: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(node["acceptable"], true);
    assert_eq!(node["classes"], 2);
    assert_eq!(node["all_metrics"]["discernibility"], 18.0);
    cellsafe()
        .arg("evaluate")
        .arg(dir.path().join("job.toml"))
        .args(["--levels", "9,1"])
        .assert()
        .code(1);
}

#[test]
fn demo_runs_on_the_bundled_data() {
    let dir = tempfile::tempdir().unwrap();
    cellsafe()
        .arg("demo")
        .arg("--dir")
        .arg(dir.path())
        .assert()
        .success()
        .stdout(predicate::str::contains("released table"));
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("report.json")).unwrap())
            .unwrap();
    assert_eq!(report["found"], true);
    assert_eq!(report["audit"]["passed"], true);
    assert!(report["suppressed_rows"].as_u64().unwrap() <= 301);
}

#[test]
fn synth_is_deterministic() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["a.csv", "b.csv"] {
        cellsafe()
            .args(["synth", "--rows", "500", "--seed", "9", "--output"])
            .arg(dir.path().join(name))
            .assert()
            .success();
    }
    assert_eq!(
        std::fs::read(dir.path().join("a.csv")).unwrap(),
        std::fs::read(dir.path().join("b.csv")).unwrap()
    );
}

#[test]
fn empty_input_is_an_error() {
    // regression: a builder over a column without values used to panic
    let dir = fixture("name,zip,age,disease\n", AGE, &config(&k(1)));
    run_anonymize(dir.path()).code(1).stderr(
        predicate::str::contains("attributes.zip.hierarchy")
            .and(predicate::str::contains("no values")),
    );
    // with file hierarchies only, the empty table itself is the error
    let text = config(&k(1)).replace(
        "role = \"quasi-identifying\"\nhierarchy = { kind = \"mask\" }",
        "role = \"insensitive\"",
    );
    let dir = fixture("name,zip,age,disease\n", AGE, &text);
    run_anonymize(dir.path()).code(1).stderr(
        predicate::str::contains("data.csv:1: ").and(predicate::str::contains("no data rows")),
    );
}

#[test]
fn oversized_lattice_is_an_error() {
    // 12 quasi-identifiers with 8-level hierarchies: 8^12 transformations
    let names: Vec<String> = (0..12).map(|i| format!("q{i}")).collect();
    let mut data = names.join(",") + "\n";
    data += &["12345678"; 12].join(",");
    data += "\n";
    let mut text = format!("{}[input]\npath = \"data.csv\"\n", k(1));
    for n in &names {
        text += &format!(
            "[attributes.{n}]\nrole = \"quasi-identifying\"\nhierarchy = {{ kind = \"mask\" }}\n"
        );
    }
    let dir = fixture(&data, AGE, &text);
    run_anonymize(dir.path()).code(1).stderr(
        predicate::str::contains("config key `attributes`").and(predicate::str::contains(
            "more than 50000000 transformations",
        )),
    );
}

#[test]
fn configured_missing_values_need_no_hierarchy_entry() {
    let data = "name,zip,age,disease\nann,24126,34,flu\nbob,?,35,cold\ncid,24133,?,flu\ndan,10427,51,cancer\n";
    // without configuration, `?` is a value like any other and must be in the age hierarchy
    let dir = fixture(data, AGE, &config(&k(1)));
    run_anonymize(dir.path())
        .code(1)
        .stderr(predicate::str::contains("`?`"));
    let text = config(&k(1)).replace("[input]\n", "[input]\nmissing = [\"?\"]\n");
    let dir = fixture(data, AGE, &text);
    run_anonymize(dir.path()).success();
    let out = std::fs::read_to_string(dir.path().join("out.csv")).unwrap();
    assert!(out.contains("?,cold") || out.contains(",?,"), "{out}");
}

fn examples() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/papers")
}

#[test]
fn disclose_reproduces_paper_001_examples() {
    // Table 6 (G_b): the exclusive strategy releases G3 with 11/17; the inclusive releases
    // nothing. Table 1 (G_0): neither releases.
    let out = cellsafe()
        .args(["disclose", "--strategy", "exclusive"])
        .arg(examples().join("zhang08-table6.toml"))
        .assert()
        .success()
        .stderr(predicate::str::contains("released G3"));
    let report: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(report["released"], 3);
    assert_eq!(report["disclosure_set_size"], 68);
    assert_eq!(report["max_fraction"], "11/17");
    assert_eq!(report["method"], "enumeration");
    assert!((report["max_fraction_float"].as_f64().unwrap() - 11.0 / 17.0).abs() < 1e-12);
    for (table, strategy) in [("6", "inclusive"), ("1", "inclusive"), ("1", "exclusive")] {
        let dir = tempfile::tempdir().unwrap();
        let report = dir.path().join("r.json");
        cellsafe()
            .args(["disclose", "--strategy", strategy])
            .arg(examples().join(format!("zhang08-table{table}.toml")))
            .arg("--report")
            .arg(&report)
            .assert()
            .code(3)
            .stderr(predicate::str::contains("nothing released"));
        let report: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
        assert!(report["released"].is_null());
    }
}

#[test]
fn disclose_errors_name_the_key() {
    let disclose = |groups: &str| {
        config(&format!(
            "[disclose]\ncheck = {{ type = \"recursive-cl\", c = 2, l = 2 }}\n\
             [[disclose.generalizations]]\ngroups = {groups}\n"
        ))
    };
    let dir = fixture(
        DATA,
        AGE,
        &disclose(r#"[["ann", "bob", "cid"], ["dan", "eve"]]"#),
    );
    cellsafe()
        .arg("disclose")
        .arg(dir.path().join("job.toml"))
        .assert()
        .code(1)
        .stderr(predicate::str::contains(
            "disclose.generalizations[0].groups",
        ))
        .stderr(predicate::str::contains("`fay` is in no group"));
    let dir = fixture(DATA, AGE, &disclose(r#"[["ann", "zed"]]"#));
    cellsafe()
        .arg("disclose")
        .arg(dir.path().join("job.toml"))
        .assert()
        .code(1)
        .stderr(predicate::str::contains("no row has identifier `zed`"));
    let dir = fixture(
        DATA,
        AGE,
        &config("[disclose]\ncheck = { type = \"max-probability\", p = 2 }\n"),
    );
    cellsafe()
        .arg("disclose")
        .arg(dir.path().join("job.toml"))
        .assert()
        .code(1)
        .stderr(predicate::str::contains("disclose.check"));
}

#[test]
fn disclose_accepts_lattice_nodes_and_columns() {
    // A column (every age distinct), a lattice node (zip masked 1 digit, age to decades) and
    // the top node, as a chain.
    let text = config(
        "[disclose]\ncheck = { type = \"distinct-l\", l = 2 }\n\
         [[disclose.generalizations]]\ncolumn = \"age\"\n\
         [[disclose.generalizations]]\nlevels = [1, 1]\n\
         [[disclose.generalizations]]\nlevels = [5, 2]\n",
    );
    let dir = fixture(DATA, AGE, &text);
    let out = cellsafe()
        .arg("disclose")
        .arg(dir.path().join("job.toml"))
        .assert()
        .success();
    let report: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    // [1,1] groups {ann,bob} {cid} {dan} {eve} {fay}: singletons fail, as do the age column's;
    // the top node's PER passes, and no earlier g can ever pass, so DS = PER in closed form.
    assert_eq!(report["released"], 3);
    assert_eq!(report["method"], "closed-form");
    assert_eq!(report["steps"][0]["groups"], 6);
    assert_eq!(report["steps"][1]["groups"], 5);
    assert_eq!(report["steps"][1]["name"], "levels [1, 1]");
}

#[test]
fn anonymize_with_a_public_search_applies_the_exclusive_strategy() {
    // k=2 and distinct 2-diversity; the adversary's check is max probability.
    let models = "[[privacy]]\nmodel = \"k-anonymity\"\nk = 2\n\
                  [[privacy]]\nmodel = \"distinct-l-diversity\"\nattribute = \"disease\"\nl = 2\n";
    let lenient =
        format!("{models}[disclose]\ncheck = {{ type = \"max-probability\", p = 0.7 }}\n");
    let dir = fixture(DATA, AGE, &config(&lenient));
    run_anonymize(dir.path()).success();
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("report.json")).unwrap()).unwrap();
    assert_eq!(report["found"], true);
    let d = &report["disclosure"];
    assert_eq!(d["strategy"], "exclusive");
    let steps = d["steps"].as_array().unwrap();
    assert_eq!(d["released"], steps.len());
    assert!(dir.path().join("out.csv").exists());

    // A strict check: nothing may be released, and no table is written.
    let strict = format!("{models}[disclose]\ncheck = {{ type = \"max-probability\", p = 0.4 }}\n");
    let dir = fixture(DATA, AGE, &config(&strict));
    run_anonymize(dir.path())
        .code(3)
        .stderr(predicate::str::contains(
            "exclusive strategy releases nothing",
        ));
    assert!(!dir.path().join("out.csv").exists());

    // Suppression would make the groups depend on the sensitive values: refused.
    let suppressing =
        config(&lenient).replace("suppression_limit = 0.0", "suppression_limit = 0.5");
    let dir = fixture(DATA, AGE, &suppressing);
    run_anonymize(dir.path())
        .code(1)
        .stderr(predicate::str::contains("suppression_limit = 0"));
}

/// `safety` names the unsafe person and formula (paper 002 example 5) and exits 3; the
/// safe node of example 6 exits 0.
#[test]
fn safety_lists_unsafe_persons() {
    let config = examples().join("linking8.toml");
    let out = cellsafe()
        .arg("safety")
        .arg(&config)
        .args(["--levels", "1,3,0"])
        .assert()
        .code(3)
        .stderr(predicate::str::contains("unsafe for 1 persons"))
        .get_output()
        .stdout
        .clone();
    let report: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(report["exposures"][0]["person"], "Daniel");
    assert_eq!(report["exposures"][0]["formulas"][0], "ill");
    assert_eq!(report["levels"]["height"], 0);
    cellsafe()
        .arg("safety")
        .arg(&config)
        .args(["--levels", "1,3,2"])
        .assert()
        .success();
}

/// A formula error names the key and points at the character.
#[test]
fn safety_formula_error_points_at_the_character() {
    let dir = fixture(
        DATA,
        AGE,
        &config(
            "[[privacy]]\nmodel = \"logical-safety\"\n[safety]\nformulas = { x = \"disease = flu and (disease = cold\" }\ndefault = [\"x\"]\n",
        ),
    );
    cellsafe()
        .arg("safety")
        .arg(dir.path().join("job.toml"))
        .assert()
        .code(1)
        .stderr(predicate::str::contains("safety.formulas.x"))
        .stderr(predicate::str::contains("at character 34"));
}

/// The genetic search is reproducible: the same seed gives the same report section.
#[test]
fn genetic_search_is_seeded() {
    let dir = fixture(
        DATA,
        AGE,
        &config(
            "[[privacy]]\nmodel = \"logical-safety\"\n[safety]\nformulas = { flu = \"disease = flu\" }\ndefault = [\"flu\"]\n[metric]\nname = \"sf-ql\"\n[search]\nalgorithm = \"genetic\"\n[search.genetic]\nseed = 9\npopulation = 6\ngenerations = 5\n",
        ),
    );
    let mut sections = Vec::new();
    for _ in 0..2 {
        run_anonymize(dir.path()).success();
        let report: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir.path().join("report.json")).unwrap())
                .unwrap();
        let g = report["genetic"].clone();
        assert!(g["fitness"].as_f64().unwrap() <= g["optimum_fitness"].as_f64().unwrap());
        sections.push(g);
    }
    assert_eq!(sections[0], sections[1]);
}

/// The set-based search releases a safe set table and compares it with level-based.
#[test]
fn set_based_search_releases_a_safe_table() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.csv");
    let report = dir.path().join("report.json");
    cellsafe()
        .arg("anonymize")
        .arg(examples().join("linking8-setbased.toml"))
        .arg("--output")
        .arg(&out)
        .arg("--report")
        .arg(&report)
        .assert()
        .success();
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    assert_eq!(r["set_based"]["safe"], true);
    assert_eq!(r["audit"]["passed"], true, "{r}");
    assert!(
        r["audit"]["unchecked"].as_array().unwrap().is_empty(),
        "{r}"
    );
    let cells = r["set_based"]["generalized_cells"].as_u64().unwrap();
    assert!(cells < r["set_based"]["level_based_cells"].as_u64().unwrap());
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(text.starts_with("dob,zip,height,income,health\n"), "{text}");
    assert_eq!(text.lines().count(), 9);
}

/// Partitions that form a partial order: the report names the released partitions and
/// lists both incomparable minimal nodes; cells show the partition's group labels.
#[test]
fn partial_order_granulation_names_the_partitions() {
    let dir = tempfile::tempdir().unwrap();
    let (out, report) = (dir.path().join("out.csv"), dir.path().join("report.json"));
    cellsafe()
        .arg("anonymize")
        .arg(examples().join("blood.toml"))
        .arg("--output")
        .arg(&out)
        .arg("--report")
        .arg(&report)
        .assert()
        .success();
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    assert_eq!(r["minimal"].as_array().unwrap().len(), 2);
    assert_eq!(r["partitions"]["blood"], "split_ab");
    assert_eq!(r["audit"]["passed"], true, "{r}");
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(text.contains("\"{A,B}\",\"[30,40)\",hiv"), "{text}");
    // the other split is safe too; the values themselves with ages unknown are not
    let safe = cellsafe()
        .args([
            "safety",
            examples().join("blood.toml").to_str().unwrap(),
            "--levels",
            "2,1",
        ])
        .assert()
        .success();
    let s: serde_json::Value = serde_json::from_slice(&safe.get_output().stdout).unwrap();
    assert_eq!(s["partitions"]["blood"], "split_ao");
    cellsafe()
        .args([
            "safety",
            examples().join("blood.toml").to_str().unwrap(),
            "--levels",
            "0,2",
        ])
        .assert()
        .code(3);
}

/// `[output] values = "microaggregation"`: cells show their group's median or mean, the
/// audit still passes, and a continuous scale on dates is a key error.
#[test]
fn microaggregation_output_and_scale_errors() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(examples().join("aog11.csv"), dir.path().join("aog11.csv")).unwrap();
    let base = std::fs::read_to_string(examples().join("aog11.toml")).unwrap();
    let job = dir.path().join("job.toml");
    std::fs::write(
        &job,
        format!("{base}\n[output]\nvalues = \"microaggregation\"\n"),
    )
    .unwrap();
    let (out, report) = (dir.path().join("out.csv"), dir.path().join("report.json"));
    cellsafe()
        .arg("anonymize")
        .arg(&job)
        .arg("--output")
        .arg(&out)
        .arg("--report")
        .arg(&report)
        .assert()
        .success();
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    assert_eq!(r["values"], "microaggregation");
    assert_eq!(r["audit"]["passed"], true, "{r}");
    let text = std::fs::read_to_string(&out).unwrap();
    for line in text.lines().skip(1) {
        let record: Vec<&str> = line.split(',').collect();
        // dates stay dates (a median), heights are numbers (a mean), never labels
        assert_eq!(record[0].len(), 8, "{line}");
        assert!(record[2].parse::<f64>().is_ok(), "{line}");
    }
    let bad = base.replace(
        "hierarchy = { kind = \"date\", format = \"%d/%m/%y\" }",
        "hierarchy = { kind = \"date\", format = \"%d/%m/%y\" }\nscale = \"continuous\"",
    );
    std::fs::write(
        &job,
        format!("{bad}\n[output]\nvalues = \"microaggregation\"\n"),
    )
    .unwrap();
    cellsafe()
        .arg("anonymize")
        .arg(&job)
        .arg("--output")
        .arg(&out)
        .assert()
        .failure()
        .stderr(predicate::str::contains("attributes.dob.scale"));
}

#[test]
fn anonymize_without_models_is_refused_but_evaluate_works() {
    let dir = fixture(DATA, AGE, &config(""));
    run_anonymize(dir.path()).code(1).stderr(
        predicate::str::contains("config key `privacy`")
            .and(predicate::str::contains("cellsafe evaluate")),
    );
    assert!(!dir.path().join("out.csv").exists());
    cellsafe()
        .arg("evaluate")
        .arg(dir.path().join("job.toml"))
        .args(["--levels", "2,1"])
        .assert()
        .success();
}

#[test]
fn oversized_settings_name_their_key() {
    for (extra, key) in [
        ("[search]\nthreads = 100000\n", "search.threads"),
        (
            "[search]\nalgorithm = \"genetic\"\n[search.genetic]\npopulation = 4294967296\n[safety]\ndefault = []\n",
            "search.genetic.population",
        ),
    ] {
        let dir = fixture(DATA, AGE, &config(&format!("{}{extra}", k(2))));
        run_anonymize(dir.path())
            .code(1)
            .stderr(predicate::str::contains(format!("config key `{key}`")));
    }
}
