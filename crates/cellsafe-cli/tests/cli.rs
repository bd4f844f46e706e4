//! The command line: exit codes, error messages that locate the problem, and the promise
//! that inputs are never modified and outputs appear whole.
//!
//! One file, past 600 lines, because each test runs the built binary the same way and
//! they share its fixtures; a test per behaviour of the command line.

mod common;

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
    // classes counts suppressed ones too; the audit counts the groups the file shows
    assert_eq!(
        report["released_classes"],
        report["audit"]["released_groups"]
    );
    assert!(report["classes"].as_u64() >= report["released_classes"].as_u64());
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

/// Every output that names an input (or another output) is refused before any work, with
/// exit 2, naming both, however the path is spelled; no file changes and none is added.
#[test]
fn refuses_any_output_that_names_an_input() {
    let dir = fixture(DATA, AGE, &config(&k(3)));
    let d = dir.path();
    std::fs::create_dir(d.join("sub")).unwrap();
    #[cfg(unix)]
    std::fs::hard_link(d.join("data.csv"), d.join("data-link.csv")).unwrap();
    let snapshot = || {
        let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap())
            .filter(|e| e.file_type().unwrap().is_file())
            .map(|e| {
                (
                    e.file_name().into_string().unwrap(),
                    std::fs::read(e.path()).unwrap(),
                )
            })
            .collect();
        files.sort();
        files
    };
    let before = snapshot();
    let cases: Vec<(Vec<(&str, std::path::PathBuf)>, &str)> = vec![
        (vec![("--output", d.join("data.csv"))], "the data file"),
        (
            vec![("--output", d.join("sub/../data.csv"))],
            "the data file",
        ),
        (vec![("--report", d.join("data.csv"))], "the data file"),
        (vec![("--output", d.join("job.toml"))], "the config"),
        (
            vec![("--output", d.join("age.csv"))],
            "the hierarchy of age",
        ),
        (
            vec![
                ("--output", d.join("x.csv")),
                ("--report", d.join("./x.csv")),
            ],
            "the released table",
        ),
        (
            vec![
                ("--output", d.join("x.csv")),
                ("--mapping", d.join("x.csv")),
            ],
            "the released table",
        ),
        #[cfg(unix)]
        (vec![("--output", d.join("data-link.csv"))], "the data file"),
    ];
    for (args, names) in cases {
        let mut cmd = cellsafe();
        cmd.arg("anonymize").arg(d.join("job.toml"));
        for (flag, path) in &args {
            cmd.arg(flag).arg(path);
        }
        cmd.assert()
            .code(2)
            .stderr(predicate::str::contains("is the same file as"))
            .stderr(predicate::str::contains(names));
        assert_eq!(snapshot(), before, "{args:?}");
    }
    for command in ["safety", "disclose"] {
        cellsafe()
            .arg(command)
            .arg(d.join("job.toml"))
            .arg("--report")
            .arg(d.join("data.csv"))
            .assert()
            .code(2)
            .stderr(predicate::str::contains("the data file"));
        assert_eq!(snapshot(), before, "{command}");
    }
}

/// An output's lock file is created and removed by the run, so an input or a report there
/// is refused (exit 2, naming both) and survives; files that only look like cellsafe's
/// temporary or lock files are never cleaned up, however old.
#[test]
fn lock_files_and_look_alikes_are_never_removed() {
    let config_at = |data: &str| config(&k(3)).replace("\"data.csv\"", &format!("\"{data}\""));
    // (a) The data file is the output's lock file.
    let dir = fixture(DATA, AGE, &config_at(".out.csv.cellsafe-lock"));
    let d = dir.path();
    let lock = d.join(".out.csv.cellsafe-lock");
    std::fs::rename(d.join("data.csv"), &lock).unwrap();
    cellsafe()
        .arg("anonymize")
        .arg(d.join("job.toml"))
        .arg("--output")
        .arg(d.join("out.csv"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "the lock file of the released table",
        ))
        .stderr(predicate::str::contains("the data file"))
        .stderr(predicate::str::contains(".out.csv.cellsafe-lock"));
    assert_eq!(std::fs::read_to_string(&lock).unwrap(), DATA);
    assert!(!d.join("out.csv").exists());

    // (c) The report is the table's lock file.
    let dir = fixture(DATA, AGE, &config(&k(3)));
    let d = dir.path();
    cellsafe()
        .arg("anonymize")
        .arg(d.join("job.toml"))
        .arg("--output")
        .arg(d.join("out.csv"))
        .arg("--report")
        .arg(d.join(".out.csv.cellsafe-lock"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("the report"))
        .stderr(predicate::str::contains(
            "the lock file of the released table",
        ));
    let mut names: Vec<String> = std::fs::read_dir(d)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert_eq!(names, ["age.csv", "data.csv", "job.toml"]);

    // (b) Old look-alikes next to the output, one of them the data file: all kept.
    let dir = fixture(DATA, AGE, &config_at(".cellsafe-data.tmp"));
    let d = dir.path();
    std::fs::rename(d.join("data.csv"), d.join(".cellsafe-data.tmp")).unwrap();
    std::fs::write(d.join(".notes.cellsafe-lock"), "my notes").unwrap();
    let past = std::time::SystemTime::now() - std::time::Duration::from_secs(120);
    for name in [".cellsafe-data.tmp", ".notes.cellsafe-lock"] {
        std::fs::File::options()
            .write(true)
            .open(d.join(name))
            .unwrap()
            .set_modified(past)
            .unwrap();
    }
    run_anonymize(d).success();
    assert_eq!(
        std::fs::read_to_string(d.join(".cellsafe-data.tmp")).unwrap(),
        DATA
    );
    assert_eq!(
        std::fs::read_to_string(d.join(".notes.cellsafe-lock")).unwrap(),
        "my notes"
    );
    assert!(d.join("out.csv").exists());
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
    let parent = tempfile::tempdir().unwrap();
    let dir = parent.path().join("new");
    cellsafe()
        .arg("demo")
        .arg("--dir")
        .arg(&dir)
        .assert()
        .success()
        .stdout(predicate::str::contains("released table"));
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("report.json")).unwrap()).unwrap();
    assert_eq!(report["found"], true);
    assert_eq!(report["audit"]["passed"], true);
    assert!(report["suppressed_rows"].as_u64().unwrap() <= 301);
}

/// `demo --dir` needs a new or empty directory: it never writes through a symlink there
/// nor replaces a file (exit 2, nothing changed).
#[cfg(unix)]
#[test]
fn demo_refuses_a_non_empty_dir() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("precious.csv"), "mine").unwrap();
    std::fs::create_dir(d.join("d")).unwrap();
    std::os::unix::fs::symlink("../precious.csv", d.join("d/adult.csv")).unwrap();
    std::fs::write(d.join("d/report.json"), "x").unwrap();
    cellsafe()
        .arg("demo")
        .arg("--dir")
        .arg(d.join("d"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("is not empty"))
        .stderr(predicate::str::contains(d.join("d").display().to_string()));
    assert_eq!(
        std::fs::read_to_string(d.join("precious.csv")).unwrap(),
        "mine"
    );
    assert_eq!(
        std::fs::read_to_string(d.join("d/report.json")).unwrap(),
        "x"
    );
    let mut names: Vec<String> = std::fs::read_dir(d.join("d"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert_eq!(names, ["adult.csv", "report.json"]);
}

#[test]
fn empty_input_is_an_error() {
    // regression: a builder over a column without values used to panic
    let dir = fixture("name,zip,age,disease\n", AGE, &config(&k(2)));
    run_anonymize(dir.path()).code(1).stderr(
        predicate::str::contains("attributes.zip.hierarchy")
            .and(predicate::str::contains("no values")),
    );
    // with file hierarchies only, the empty table itself is the error
    let text = config(&k(2)).replace(
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
    text += &k(2);
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

/// The genetic search is reproducible: the same seed gives the same report section. Asked
/// to, it reports the exhaustive optimum next to its answer; by default it does not.
#[test]
fn genetic_search_is_seeded() {
    let dir = fixture(
        DATA,
        AGE,
        &config(
            "[[privacy]]\nmodel = \"logical-safety\"\n[safety]\nformulas = { flu = \"disease = flu\" }\ndefault = [\"flu\"]\n[metric]\nname = \"sf-ql\"\n[search]\nalgorithm = \"genetic\"\n[search.genetic]\nseed = 9\npopulation = 6\ngenerations = 5\ncompare_with_optimum = true\n",
        ),
    );
    let mut sections = Vec::new();
    for _ in 0..2 {
        run_anonymize(dir.path()).success();
        let report: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir.path().join("report.json")).unwrap())
                .unwrap();
        let g = report["genetic"].clone();
        assert_eq!(g["compared_with_optimum"], true);
        assert!(g["fitness"].as_f64().unwrap() <= g["optimum_fitness"].as_f64().unwrap());
        sections.push(g);
    }
    assert_eq!(sections[0], sections[1]);
    let job = dir.path().join("job.toml");
    let text = std::fs::read_to_string(&job).unwrap();
    std::fs::write(&job, text.replace("compare_with_optimum = true\n", "")).unwrap();
    run_anonymize(dir.path()).success();
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("report.json")).unwrap())
            .unwrap();
    let g = &report["genetic"];
    assert_eq!(g["compared_with_optimum"], false);
    assert!(
        g.get("optimum_fitness").is_none() && g.get("gap").is_none(),
        "{g}"
    );
    assert_eq!(g["fitness"], sections[0]["fitness"]);
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

/// `cellsafe anonymize JOB --output DIR/out.csv --report DIR/report.json`, to start as a
/// process, its standard output discarded.
#[cfg(unix)]
fn anonymize_process(dir: &Path, job: &Path) -> std::process::Command {
    let mut command = std::process::Command::new(assert_cmd::cargo::cargo_bin("cellsafe"));
    command
        .arg("anonymize")
        .arg(job)
        .arg("--output")
        .arg(dir.join("out.csv"))
        .arg("--report")
        .arg(dir.join("report.json"))
        .stdout(std::process::Stdio::null());
    command
}

/// A copy of the Adult example whose genetic search runs for seconds (the tests stop it
/// within milliseconds of its start).
#[cfg(unix)]
fn long_job() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let src = examples().join("../adult");
    for entry in std::fs::read_dir(&src).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), dir.path().join(entry.file_name())).unwrap();
    }
    let text = std::fs::read_to_string(dir.path().join("adult-genetic.toml")).unwrap();
    let text = text
        .replace("population = 30", "population = 1000")
        .replace("generations = 40", "generations = 1000")
        .replace("threads = 0", "threads = 1");
    assert!(text.contains("generations = 1000"));
    let job = dir.path().join("long.toml");
    std::fs::write(&job, text).unwrap();
    (dir, job)
}

/// Files of `dir` that a run left behind: temporary and lock files.
fn leftovers(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.contains("cellsafe"))
        .collect()
}

/// Starts `cellsafe anonymize JOB --output out.csv --report report.json` and waits until it
/// holds the lock on out.csv.
#[cfg(unix)]
fn start_long(dir: &Path, job: &Path) -> std::process::Child {
    start_long_with(dir, job, std::process::Stdio::null())
}

/// [`start_long`] with its standard error going to `stderr`.
#[cfg(unix)]
fn start_long_with(dir: &Path, job: &Path, stderr: std::process::Stdio) -> std::process::Child {
    let child = anonymize_process(dir, job).stderr(stderr).spawn().unwrap();
    let lock = dir.join(".out.csv.cellsafe-lock");
    let start = std::time::Instant::now();
    while !lock.exists() {
        assert!(
            start.elapsed().as_secs() < 30,
            "the run never locked its output"
        );
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    child
}

#[cfg(unix)]
fn signal(child: &std::process::Child, name: &str) {
    let status = std::process::Command::new("kill")
        .arg(format!("-{name}"))
        .arg(child.id().to_string())
        .status()
        .unwrap();
    assert!(status.success());
}

/// Ctrl-C (and SIGTERM, SIGHUP) end a run with exit 130, no output under the final names and no
/// temporary or lock file; a second run on the same output while one is running fails at
/// once, naming the output.
#[cfg(unix)]
#[test]
fn interrupted_or_concurrent_runs_leave_nothing_behind() {
    use std::os::unix::process::ExitStatusExt;
    let (dir, job) = long_job();
    let d = dir.path();
    for sig in ["INT", "TERM", "HUP"] {
        let mut first = start_long(d, &job);
        cellsafe()
            .arg("anonymize")
            .arg(&job)
            .arg("--output")
            .arg(d.join("out.csv"))
            .arg("--report")
            .arg(d.join("other.json"))
            .assert()
            .code(1)
            .stderr(predicate::str::contains("another cellsafe run is writing"))
            .stderr(predicate::str::contains("out.csv"))
            .stderr(predicate::str::contains(".out.csv.cellsafe-lock"));
        signal(&first, sig);
        let status = first.wait().unwrap();
        assert_eq!(
            status.code(),
            Some(130),
            "{sig}: {status:?} {:?}",
            status.signal()
        );
        assert!(!d.join("out.csv").exists() && !d.join("report.json").exists());
        assert!(!d.join("other.json").exists());
        assert_eq!(leftovers(d), Vec::<String>::new(), "{sig}");
    }
}

/// Regression: an output that was a device or a FIFO was replaced by a regular file, exit 0
/// (as root, `--report /dev/null` replaced the system's /dev/null). Every output path the
/// CLI writes is refused with exit 2, naming it, before any work, and left as it is.
#[cfg(unix)]
#[test]
fn outputs_that_are_not_regular_files_are_refused() {
    use std::os::unix::fs::FileTypeExt;
    let dir = fixture(DATA, AGE, &config(&k(2)));
    let d = dir.path();
    let fifo = d.join("fifo");
    assert!(std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    let device = d.join("null");
    // /dev/null's numbers: nothing is written even by code that failed to refuse it
    let made = std::process::Command::new("mknod")
        .arg(&device)
        .args(["c", "1", "3"])
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !made {
        common::skipped("outputs that are devices: a device node cannot be made here (not root?)");
    }
    let job = d.join("job.toml");
    let s = |p: &Path| p.to_str().unwrap().to_owned();
    let mut cases: Vec<(Vec<String>, &Path)> = vec![
        (
            vec!["anonymize".into(), s(&job), "--report".into(), s(&fifo)],
            &fifo,
        ),
        (
            vec!["anonymize".into(), s(&job), "--mapping".into(), s(&fifo)],
            &fifo,
        ),
        (
            vec!["risk".into(), s(&job), "--html".into(), s(&fifo)],
            &fifo,
        ),
        (
            vec!["safety".into(), s(&job), "--report".into(), s(&fifo)],
            &fifo,
        ),
        (
            vec![
                "synth".into(),
                s(&d.join("data.csv")),
                "--semi-sensitive".into(),
                "0.5".into(),
                "--columns".into(),
                "age".into(),
                "--output".into(),
                s(&fifo),
            ],
            &fifo,
        ),
    ];
    if made {
        cases.push((
            vec!["anonymize".into(), s(&job), "--output".into(), s(&device)],
            &device,
        ));
        cases.push((
            vec!["pareto".into(), s(&job), "--report".into(), s(&device)],
            &device,
        ));
    }
    for (args, path) in cases {
        cellsafe()
            .current_dir(d)
            .args(&args)
            .assert()
            .code(2)
            .stderr(predicate::str::contains(path.display().to_string()))
            .stderr(predicate::str::contains("not a regular file"));
    }
    assert!(std::fs::metadata(&fifo).unwrap().file_type().is_fifo());
    if made {
        assert!(std::fs::metadata(&device)
            .unwrap()
            .file_type()
            .is_char_device());
    }
    assert_eq!(leftovers(d), Vec::<String>::new());
}

/// `--report -` prints the report on stdout (as no `--report` does), also over the
/// config's `[output] report`; no file named `-` is written. `-` for any other output is
/// refused (exit 2): the table is staged and audited before it is written, so it needs a
/// file.
#[test]
fn a_dash_report_goes_to_stdout() {
    let dir = fixture(
        DATA,
        AGE,
        &format!("{}[output]\nreport = \"report.json\"\n", config(&k(2))),
    );
    let d = dir.path();
    let out = cellsafe()
        .current_dir(d)
        .arg("anonymize")
        .arg(d.join("job.toml"))
        .args(["--output", "out.csv", "--report", "-"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let report: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(report["found"], true);
    assert!(d.join("out.csv").exists());
    assert!(!d.join("-").exists() && !d.join("report.json").exists());
    for option in ["--output", "--mapping"] {
        cellsafe()
            .current_dir(d)
            .arg("anonymize")
            .arg(d.join("job.toml"))
            .args([option, "-"])
            .assert()
            .code(2)
            .stderr(predicate::str::contains(option));
    }
    assert!(!d.join("-").exists());
}

/// Regression: a signal that came before the CLI's handler was installed ended the run by
/// the signal instead of with exit 130. The child starts with SIGINT and SIGTERM blocked,
/// so the signal sent right after it starts is held until the CLI unblocks them: it must
/// reach the handler (exit 130, nothing written), not the default action.
#[cfg(unix)]
#[test]
fn a_signal_before_the_handler_is_installed_exits_130() {
    use nix::sys::signal::{kill, SigSet, Signal};
    use nix::unistd::Pid;
    use std::os::unix::process::CommandExt;
    let dir = fixture(DATA, AGE, &config(&k(2)));
    let d = dir.path();
    for sig in [Signal::SIGINT, Signal::SIGTERM] {
        let mut command = anonymize_process(d, &d.join("job.toml"));
        command.stderr(std::process::Stdio::piped());
        // SAFETY: between fork and exec the closure only calls pthread_sigmask, which is
        // async-signal-safe, and allocates nothing.
        unsafe {
            command.pre_exec(|| {
                let mut set = SigSet::empty();
                set.add(Signal::SIGINT);
                set.add(Signal::SIGTERM);
                set.thread_block().map_err(std::io::Error::from)
            });
        }
        let child = command.spawn().unwrap();
        kill(Pid::from_raw(child.id() as i32), sig).unwrap();
        let out = child.wait_with_output().unwrap();
        assert_eq!(
            out.status.code(),
            Some(130),
            "{sig}: {:?} {}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(!d.join("out.csv").exists() && !d.join("report.json").exists());
        assert_eq!(leftovers(d), Vec::<String>::new());
    }
}

/// Ctrl-C during the search cancels it through the library: the run itself ends with exit
/// 130 and says so (the signal handler alone would end it silently), nothing is written and
/// no temporary or lock file is left.
#[cfg(unix)]
#[test]
fn an_interrupt_during_the_search_cancels_it() {
    let (dir, job) = long_job();
    let d = dir.path();
    let mut child = start_long_with(d, &job, std::process::Stdio::piped());
    // reading Adult and building its problem take well under this; the genetic search of
    // a thousand generations of a thousand takes minutes
    std::thread::sleep(std::time::Duration::from_secs(3));
    assert!(
        child.try_wait().unwrap().is_none(),
        "the search ended early"
    );
    signal(&child, "INT");
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(130), "{stderr}");
    assert!(
        stderr.contains("interrupted: no output was written"),
        "{stderr}"
    );
    assert!(!d.join("out.csv").exists() && !d.join("report.json").exists());
    assert_eq!(leftovers(d), Vec::<String>::new());
}

/// After `kill -9` the lock file stays, unlocked; the next run on the same output takes it
/// over, succeeds, and leaves no cellsafe file behind.
#[cfg(unix)]
#[test]
fn a_killed_run_does_not_block_the_next() {
    let (dir, job) = long_job();
    let d = dir.path();
    let mut first = start_long(d, &job);
    signal(&first, "KILL");
    first.wait().unwrap();
    assert!(!d.join("out.csv").exists());
    cellsafe()
        .arg("anonymize")
        .arg(d.join("adult.toml"))
        .arg("--output")
        .arg(d.join("out.csv"))
        .arg("--report")
        .arg(d.join("report.json"))
        .assert()
        .success();
    assert!(d.join("out.csv").exists());
    assert_eq!(leftovers(d), Vec::<String>::new());
}

/// Outputs get ordinary permissions: 0666 less the umask, not a temporary file's 0600.
#[cfg(unix)]
#[test]
fn outputs_respect_the_umask() {
    use std::os::unix::fs::PermissionsExt;
    let Some(umask) = std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("Umask:"))
                .and_then(|v| u32::from_str_radix(v.trim(), 8).ok())
        })
    else {
        return;
    };
    let dir = fixture(DATA, AGE, &config(&k(3)));
    run_anonymize(dir.path()).success();
    for name in ["out.csv", "report.json"] {
        let mode = std::fs::metadata(dir.path().join(name))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o666 & !umask, "{name}");
    }
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

/// The issue's reproducer through the command line: paper 002's 8 persons, serious illness
/// confidential, a quarter of the rows suppressible. The release passes its audit, shows no
/// suppressed person's values, and the mapping appears only when asked for.
#[test]
fn linking8_with_suppression_releases_no_illness() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::copy(examples().join("linking8.csv"), d.join("linking8.csv")).unwrap();
    let text = std::fs::read_to_string(examples().join("linking8.toml"))
        .unwrap()
        .replace(
            "formulas = { ill = \"health = 2\", rich_ill = \"income > 300K and health in {1, 2}\" }",
            "formulas = { ill = \"health = 2\" }",
        )
        .replace("file = \"linking8-con.csv\"\n", "")
        .replace("[input]", "suppression_limit = 0.25\n[input]");
    std::fs::write(d.join("job.toml"), text).unwrap();
    let run = |extra: &[&str]| {
        cellsafe()
            .arg("anonymize")
            .arg(d.join("job.toml"))
            .arg("--output")
            .arg(d.join("out.csv"))
            .arg("--report")
            .arg(d.join("report.json"))
            .args(extra)
            .assert()
    };
    run(&[]).success();
    assert!(!d.join("map.csv").exists());
    let map = d.join("map.csv");
    run(&["--mapping", map.to_str().unwrap()]).success();
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("report.json")).unwrap()).unwrap();
    assert_eq!(report["audit"]["passed"], true, "{report}");
    assert!(report["layout"]["seed"].is_u64(), "{report}");
    assert_eq!(report["layout"]["suppression_rule"], "smallest");
    let out = std::fs::read_to_string(d.join("out.csv")).unwrap();
    let mapping = std::fs::read_to_string(&map).unwrap();
    assert_eq!(mapping.lines().count(), out.lines().count());
    for line in out.lines().skip(1) {
        let cells: Vec<&str> = line.split(',').collect();
        assert!(
            cells[..3].iter().any(|c| *c != "*") || cells.iter().all(|c| *c == "*"),
            "{line}"
        );
    }
}

/// `safety` names persons by the `[safety] key` column, else by the input line their row
/// starts on (here a quoted newline in bob's row puts cid's row on line 5, not 4).
#[test]
fn safety_names_persons_by_key_or_input_line() {
    let data =
        "name,zip,age,disease\nann,24126,34,flu\n\"bob\nsmith\",24129,35,cold\ncid,24133,36,flu\n";
    let safety = "[[privacy]]\nmodel = \"logical-safety\"\n[safety]\nformulas = { flu = \"disease = flu\" }\ndefault = [\"flu\"]\n";
    let persons = |text: &str| -> Vec<String> {
        let dir = fixture(data, AGE, text);
        let out = cellsafe()
            .arg("safety")
            .arg(dir.path().join("job.toml"))
            .assert()
            .code(3)
            .get_output()
            .stdout
            .clone();
        let report: serde_json::Value = serde_json::from_slice(&out).unwrap();
        report["exposures"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["person"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(persons(&config(safety)), ["line 2", "line 5"]);
    let keyed = config(&format!("{safety}key = \"name\"\n"));
    assert_eq!(persons(&keyed), ["ann", "cid"]);
}

/// One quantity, one name: `ql` is the quality (1 = original data) and the metric is
/// `ql-loss` = 1 − ql, in the headline and in `all_metrics` alike; configs may say `ql`.
#[test]
fn evaluate_ql_and_ql_loss_are_complementary() {
    let dir = fixture(
        DATA,
        AGE,
        &config(&format!("{}[metric]\nname = \"ql\"\n", k(3))),
    );
    let out = cellsafe()
        .arg("evaluate")
        .arg(dir.path().join("job.toml"))
        .args(["--levels", "2,1"])
        .assert()
        .success();
    let node: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    let all = node["all_metrics"].as_object().unwrap();
    assert!(!all.contains_key("ql"), "{node}");
    let ql = node["ql"].as_f64().unwrap();
    let loss = all["ql-loss"].as_f64().unwrap();
    assert!(ql > 0.0 && ql < 1.0, "{node}");
    assert!((ql + loss - 1.0).abs() < 1e-12, "{node}");
    assert_eq!(node["metric"], "ql-loss");
    assert_eq!(node["score"], all["ql-loss"]);
}

/// Every number in `v`, recursively.
fn numbers(v: &serde_json::Value, out: &mut Vec<f64>) {
    match v {
        serde_json::Value::Number(n) => out.push(n.as_f64().unwrap()),
        serde_json::Value::Array(a) => a.iter().for_each(|x| numbers(x, out)),
        serde_json::Value::Object(o) => o.values().for_each(|x| numbers(x, out)),
        _ => {}
    }
}

/// Regression: ql of the top node (−Σ 1·ln 1) and the entropy of the original data were
/// −0.0, printed as `-0.0` in JSON and `-0.0000` on stderr; ql of the original data was
/// 0.9999999999999999. It is exactly 1 there and exactly 0 at the top.
#[test]
fn no_negative_zero_is_printed() {
    let safety = "[[privacy]]\nmodel = \"logical-safety\"\n[safety]\nformulas = { flu = \"disease = flu\" }\ndefault = [\"flu\"]\n";
    let dir = fixture(DATA, AGE, &config(safety));
    for (command, levels, ql) in [
        ("evaluate", "0,0", 1.0),
        ("evaluate", "5,2", 0.0),
        ("safety", "0,0", 1.0),
        ("safety", "5,2", 0.0),
    ] {
        let out = cellsafe()
            .arg(command)
            .arg(dir.path().join("job.toml"))
            .args(["--levels", levels])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!stderr.contains("-0.0"), "{command} {levels}: {stderr}");
        let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let mut all = Vec::new();
        numbers(&report, &mut all);
        assert!(
            all.iter().all(|x| !(*x == 0.0 && x.is_sign_negative())),
            "{command} {levels}: {report}"
        );
        assert_eq!(
            report["ql"].as_f64(),
            Some(ql),
            "{command} {levels}: {report}"
        );
    }
}

/// `evaluate` says why a transformation is not acceptable, model by model, and exits 3.
/// By hand: levels 2,1 make classes {ann flu, bob cold, cid flu} and {dan cancer, eve flu,
/// fay cold}; levels 1,1 make {ann, bob} and four singletons. At most 1 row (20%) may go.
#[test]
fn evaluate_names_failing_models_and_exits_3() {
    let diverse = "[[privacy]]\nmodel = \"distinct-l-diversity\"\nattribute = \"disease\"\nl = 3\n";
    let evaluate = |models: &str, levels: &str, code: i32| {
        let text = config(models).replace("suppression_limit = 0.0", "suppression_limit = 0.2");
        let dir = fixture(DATA, AGE, &text);
        let out = cellsafe()
            .arg("evaluate")
            .arg(dir.path().join("job.toml"))
            .args(["--levels", levels])
            .assert()
            .code(code);
        let output = out.get_output();
        let node: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
        (node, String::from_utf8_lossy(&output.stderr).into_owned())
    };
    let (node, stderr) = evaluate(&format!("{}{diverse}", k(3)), "2,1", 3);
    assert_eq!(node["acceptable"], false);
    let failures = node["failures"].as_array().unwrap();
    assert_eq!(failures.len(), 1, "{node}");
    let f = &failures[0];
    assert_eq!(f["model"], "distinct-3-diversity(disease)");
    assert_eq!((&f["classes"], &f["rows"]), (&1.into(), &3.into()));
    assert_eq!(
        (f["fraction"].as_f64(), f["worst"].as_f64()),
        (Some(0.5), Some(2.0))
    );
    assert_eq!(
        (&f["parameter"], &f["over_limit"]),
        (&3.0.into(), &true.into())
    );
    let message = "distinct-3-diversity(disease): fewest distinct values 2 < 3, 3 rows in 1 class with fewer than l values, 50% > limit 20%";
    assert_eq!(f["message"], message);
    assert!(stderr.contains(message), "{stderr}");

    let (node, stderr) = evaluate(&format!("{}{diverse}", k(2)), "1,1", 3);
    let messages: Vec<&str> = node["failures"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["message"].as_str().unwrap())
        .collect();
    assert_eq!(
        messages,
        [
            "2-anonymity: smallest class 1 < 2, 4 rows in 4 classes below k, 67% > limit 20%",
            "distinct-3-diversity(disease): fewest distinct values 1 < 3, 6 rows in 5 classes with fewer than l values, 100% > limit 20%",
            "all models: 6 rows in 5 classes fail some model, 100% > limit 20%",
        ]
    );
    for m in &messages {
        assert!(stderr.contains(m), "{stderr}");
    }

    let (node, _) = evaluate(&k(3), "2,1", 0);
    assert_eq!(node["acceptable"], true);
    assert_eq!(node["failures"], serde_json::json!([]));
}

/// Progress bars go only to a terminal: with stderr piped, and with `--quiet` (a global
/// flag, before or after the command), stderr holds the normal message and nothing else.
#[test]
fn no_progress_output_unless_stderr_is_a_terminal() {
    let dir = fixture(DATA, AGE, &config(&k(3)));
    let mut outputs = Vec::new();
    for quiet in [&[][..], &["--quiet"][..]] {
        for before in [true, false] {
            let mut cmd = cellsafe();
            if before {
                cmd.args(quiet);
            }
            cmd.arg("anonymize");
            if !before {
                cmd.args(quiet);
            }
            let out = cmd
                .arg(dir.path().join("job.toml"))
                .arg("--output")
                .arg(dir.path().join("out.csv"))
                .arg("--report")
                .arg(dir.path().join("report.json"))
                .assert()
                .success();
            let output = out.get_output();
            assert!(output.stdout.is_empty());
            outputs.push(String::from_utf8(output.stderr.clone()).unwrap());
        }
    }
    let report = dir.path().join("report.json").display().to_string();
    for stderr in &outputs {
        assert_eq!(stderr, &outputs[0]);
        // the summary and the report's path, nothing of progress
        assert_eq!(stderr.lines().count(), 2, "{stderr}");
        assert!(stderr.starts_with("released "), "{stderr}");
        assert!(stderr.contains("levels zip "), "{stderr}");
        assert!(stderr.ends_with(&format!("report: {report}\n")), "{stderr}");
        assert!(!stderr.contains(['\r', '\u{1b}']), "{stderr:?}");
    }
    // the other commands take it too
    cellsafe()
        .args(["evaluate", "--quiet"])
        .arg(dir.path().join("job.toml"))
        .args(["--levels", "2,1"])
        .assert()
        .success()
        .stderr("acceptable: 0 rows suppressed, at most 0 allowed\n");
}

/// `cellsafe evaluate ... | head`: a reader that closes the pipe early ends the run quietly,
/// without a panic.
#[cfg(unix)]
#[test]
fn a_closed_stdout_pipe_ends_quietly() {
    let dir = fixture(DATA, AGE, &config(&k(2)));
    for args in [
        vec!["evaluate", "--levels", "2,1"],
        vec!["safety", "--levels", "2,1"],
    ] {
        let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("cellsafe"))
            .arg(args[0])
            .arg(dir.path().join("job.toml"))
            .args(&args[1..])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        drop(child.stdout.take());
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        assert!(
            matches!(out.status.code(), Some(0 | 1 | 3)),
            "{args:?}: {:?}",
            out.status
        );
    }
}

/// Regression: the release was written with `"` whatever `[input] quote` said, so labels
/// holding the delimiter (`[30,40)`) split into two fields when read back in the declared
/// dialect, and the audit refused the release.
#[test]
fn released_cells_are_quoted_in_the_declared_dialect() {
    let text = config(&k(3))
        .replace("path = \"data.csv\"", "path = \"data.csv\"\nquote = \"'\"")
        .replace(
            "hierarchy = \"age.csv\"",
            "hierarchy = { kind = \"intervals\", widths = [10] }",
        );
    let dir = fixture(DATA, AGE, &text);
    run_anonymize(dir.path()).success();
    let out = std::fs::read_to_string(dir.path().join("out.csv")).unwrap();
    assert!(
        out.contains("'[30,40)'") && out.contains("'[50,60)'"),
        "{out}"
    );
    assert!(!out.contains('"'), "{out}");
}

/// `*` marks suppressed cells, so a sensitive or insensitive value `*` would read as one:
/// refused, naming the line and column.
#[test]
fn a_released_value_star_is_refused() {
    let data = DATA.replace("cid,24133,36,flu", "cid,24133,36,*");
    let dir = fixture(&data, AGE, &config(&k(2)));
    run_anonymize(dir.path())
        .code(1)
        .stderr(predicate::str::contains("data.csv:4:4"))
        .stderr(predicate::str::contains("suppressed cell"));
}

/// Ctrl-C while the release is being staged: the run ends with all of its files or none,
/// and no temporary or lock file is left. The test waits until a staged file appears (a
/// 400,000-row table takes a while to write) and then interrupts.
#[cfg(unix)]
#[test]
fn an_interrupt_while_staging_leaves_all_or_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    cellsafe_bench::synth::write_adult(&d.join("big.csv"), 400_000, 1, 0.2).unwrap();
    let src = examples().join("../adult");
    for entry in std::fs::read_dir(&src).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name().into_string().unwrap();
        if name.starts_with("adult_hierarchy_") {
            std::fs::copy(entry.path(), d.join(&name)).unwrap();
        }
    }
    let text = std::fs::read_to_string(src.join("adult.toml"))
        .unwrap()
        .replace("\"adult.csv\"", "\"big.csv\"");
    std::fs::write(d.join("big.toml"), text).unwrap();
    let finals = ["out.csv", "report.json", "map.csv"];
    let mut interrupted_while_staged = 0;
    for _ in 0..5 {
        for f in finals {
            let _ = std::fs::remove_file(d.join(f));
        }
        let mut child = anonymize_process(d, &d.join("big.toml"))
            .arg("--mapping")
            .arg(d.join("map.csv"))
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let start = std::time::Instant::now();
        let staged = loop {
            let temp = std::fs::read_dir(d).unwrap().any(|e| {
                let name = e.unwrap().file_name().into_string().unwrap();
                name.starts_with(".cellsafe-") && name.ends_with(".tmp")
            });
            if temp {
                break true;
            }
            if child.try_wait().unwrap().is_some() || start.elapsed().as_secs() > 60 {
                break false;
            }
        };
        if staged {
            signal(&child, "INT");
        }
        let status = child.wait().unwrap();
        assert_eq!(leftovers(d), Vec::<String>::new());
        let present: Vec<bool> = finals.iter().map(|f| d.join(f).exists()).collect();
        match status.code() {
            Some(130) => assert_eq!(present, [false; 3], "interrupted: nothing"),
            Some(0) => {
                assert_eq!(present, [true; 3], "finished: everything");
                let rows = std::fs::read_to_string(d.join("out.csv"))
                    .unwrap()
                    .lines()
                    .count();
                assert_eq!(rows, 400_001);
            }
            other => panic!("unexpected exit {other:?}"),
        }
        if staged && status.code() == Some(130) {
            interrupted_while_staged += 1;
        }
    }
    assert!(
        interrupted_while_staged > 0,
        "no run was interrupted while a file was staged"
    );
}

/// The bundled δ-presence job: only the study's participants are released (ids dropped),
/// the report gives the population, the audit checks δ-presence, and `cellsafe risk` links
/// the journalist against the register. The register file is left as it was.
#[test]
fn presence_example_releases_the_study_only() {
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/presence");
    let register = std::fs::read(example.join("register.csv")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (out, report) = (dir.path().join("out.csv"), dir.path().join("report.json"));
    cellsafe()
        .arg("anonymize")
        .arg(example.join("presence.toml"))
        .arg("--output")
        .arg(&out)
        .arg("--report")
        .arg(&report)
        .assert()
        .success();
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    assert_eq!(
        (r["rows"].as_u64(), r["population_rows"].as_u64()),
        (Some(500), Some(5000))
    );
    assert_eq!(r["audit"]["passed"], true, "{r}");
    assert!(
        r["audit"]["unchecked"].as_array().unwrap().is_empty(),
        "{r}"
    );
    assert!(r["models"][0]["achieved"].as_f64().unwrap() <= 0.2, "{r}");
    let text = std::fs::read_to_string(&out).unwrap();
    assert_eq!(text.lines().count(), 501);
    assert!(text.starts_with("sex;age;"), "ids are not released: {text}");
    let (risk, html) = (dir.path().join("risk.json"), dir.path().join("risk.html"));
    cellsafe()
        .args(["risk", "--report"])
        .arg(&risk)
        .arg("--html")
        .arg(&html)
        .arg(example.join("presence.toml"))
        .assert()
        .success();
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(
        page.contains("<td>population records</td><td>5000</td>"),
        "{page}"
    );
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&risk).unwrap()).unwrap();
    assert_eq!(r["population_records"], 5000);
    assert!(
        r["journalist"]["average"].as_f64().unwrap() < r["prosecutor"]["average"].as_f64().unwrap(),
        "{r}"
    );
    assert_eq!(
        std::fs::read(example.join("register.csv")).unwrap(),
        register
    );
}

/// Built without `--features service`, the gatekeeper's own tests (`service`, `hostile`,
/// `browser`) are not compiled; the run says so rather than passing without them.
#[cfg(not(feature = "service"))]
#[test]
fn the_service_tests_need_the_service_feature() {
    common::skipped(
        "the gatekeeper service's tests (service, hostile, browser): built without \
         `--features service` (./scripts/test builds every feature)",
    );
}

/// The `THP_enabled` line of `/proc/PID/status` (`self` for this process): None when the
/// kernel does not show it.
#[cfg(target_os = "linux")]
fn thp_enabled(pid: &str) -> Option<bool> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("THP_enabled:"))?;
    Some(line.split_whitespace().nth(1)? == "1")
}

/// The kB of process `pid`'s memory in huge pages (`AnonHugePages` of
/// `/proc/PID/smaps_rollup`).
#[cfg(target_os = "linux")]
fn huge_kb(pid: u32) -> u64 {
    let rollup = std::fs::read_to_string(format!("/proc/{pid}/smaps_rollup")).unwrap();
    let line = rollup
        .lines()
        .find(|l| l.starts_with("AnonHugePages:"))
        .unwrap();
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

/// Kills the child when the test ends early (a failed assertion), so that it does not
/// wait on its FIFO for ever.
#[cfg(target_os = "linux")]
struct KillOnDrop(std::process::Child);

#[cfg(target_os = "linux")]
impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Transparent huge pages are off in a run, from before its first allocation, unless
/// `MIMALLOC_ALLOW_THP=1` keeps them (`0` is mimalloc's own switch). The run reads its
/// table from a FIFO, so the test looks at the process while it waits there, after `main`
/// began: it waits on the FIFO's reader, not on a clock (a bound of 30 s only ends a
/// hung test).
#[cfg(target_os = "linux")]
#[test]
fn huge_pages_are_off_unless_asked_for() {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    // children inherit the flag: with huge pages off for the tests themselves, every run
    // would show them off whatever cellsafe does
    match thp_enabled("self") {
        None => {
            common::skipped("huge pages: this kernel's /proc/PID/status has no THP_enabled line");
            return;
        }
        Some(false) => {
            common::skipped("huge pages: they are off for the tests themselves (inherited)");
            return;
        }
        Some(true) => {}
    }
    // mimalloc reads its variables ignoring case: so does the switch
    let cases: &[(Option<(&str, &str)>, bool)] = &[
        (None, false),
        (Some(("MIMALLOC_ALLOW_THP", "0")), false),
        (Some(("MIMALLOC_ALLOW_THP", "1")), true),
        (Some(("mimalloc_allow_thp", "1")), true),
    ];
    for &(allow, expected) in cases {
        let dir = fixture(DATA, AGE, &config(&k(2)).replace("data.csv", "data.fifo"));
        let d = dir.path();
        let fifo = d.join("data.fifo");
        assert!(std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success());
        let mut command = anonymize_process(d, &d.join("job.toml"));
        command.stderr(std::process::Stdio::null());
        for name in ["MIMALLOC_ALLOW_THP", "mimalloc_allow_thp"] {
            command.env_remove(name);
        }
        if let Some((name, value)) = allow {
            command.env(name, value);
        }
        let mut child = KillOnDrop(command.spawn().unwrap());
        // a FIFO opens for writing without blocking once it has a reader
        let start = std::time::Instant::now();
        let mut writer = loop {
            match std::fs::OpenOptions::new()
                .write(true)
                .custom_flags(libc::O_NONBLOCK)
                .open(&fifo)
            {
                Ok(w) => break w,
                Err(e) if e.raw_os_error() == Some(libc::ENXIO) => {
                    assert!(
                        child.0.try_wait().unwrap().is_none(),
                        "the run ended before it read its table"
                    );
                    assert!(
                        start.elapsed().as_secs() < 30,
                        "the run never read its table"
                    );
                    std::thread::sleep(std::time::Duration::from_millis(10));
                }
                Err(e) => panic!("{e}"),
            }
        };
        let pid = child.0.id();
        let seen = thp_enabled(&pid.to_string());
        // none of its memory so far in huge pages: the switch came before mimalloc's
        // first allocation, not in `main` after the runtime's
        let huge = huge_kb(pid);
        writer.write_all(DATA.as_bytes()).unwrap();
        drop(writer);
        assert!(child.0.wait().unwrap().success());
        assert_eq!(seen, Some(expected), "MIMALLOC_ALLOW_THP {allow:?}");
        if !expected {
            assert_eq!(huge, 0, "MIMALLOC_ALLOW_THP {allow:?}");
        }
    }
}
