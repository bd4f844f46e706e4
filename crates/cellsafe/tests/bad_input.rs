//! Bad input gets a clear answer: every error names the file and line/column or the
//! config key, echoes user values only in short excerpts, and every size a user can set
//! is bounded.

use crate::common;

use cellsafe::error::Error;
use cellsafe::job::config::Config;
use cellsafe::job::{self, Outputs};

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

const K2: &str = "[[privacy]]\nmodel = \"k-anonymity\"\nk = 2\n";

struct Fixture {
    dir: tempfile::TempDir,
}

impl Fixture {
    fn new(data: &str, age: &str, config_text: &str) -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("data.csv"), data).unwrap();
        std::fs::write(dir.path().join("age.csv"), age).unwrap();
        std::fs::write(dir.path().join("job.toml"), config_text).unwrap();
        Fixture { dir }
    }
    fn config(&self) -> Result<Config, Error> {
        Config::from_file(&self.dir.path().join("job.toml"))
    }
    fn anonymize(&self) -> Result<cellsafe::job::report::Report, Error> {
        let outputs = Outputs {
            table: Some(self.dir.path().join("out.csv")),
            report: Some(self.dir.path().join("report.json")),
            mapping: None,
        };
        job::anonymize(&self.config()?, &outputs, &cellsafe::observer::Silent)
    }
    fn path(&self, name: &str) -> String {
        self.dir.path().join(name).display().to_string()
    }
}

fn config_key(err: &Error) -> &str {
    match err {
        Error::Config { key, .. } => key,
        other => panic!("expected a config key error, got {other}"),
    }
}

#[test]
fn long_values_are_cut_in_messages() {
    // the longest field read: a value may be this long (and is then cut in the message)
    let long = "7".repeat(cellsafe::input::MAX_FIELD);
    let data = DATA.replace("bob,24129,35,", &format!("bob,24129,{long},"));
    let f = Fixture::new(&data, AGE, &config(K2));
    let err = f.anonymize().unwrap_err().to_string();
    assert!(err.len() < 300, "{} bytes", err.len());
    assert!(
        err.starts_with(&format!("{}:3:3: ", f.path("data.csv"))),
        "{err}"
    );
    assert!(err.contains(&format!("`{}…`", "7".repeat(40))), "{err}");
}

#[test]
fn model_parameters_outside_their_domain_name_the_key() {
    let cases = [
        ("model = \"k-anonymity\"\nk = 0", "k"),
        (
            "model = \"distinct-l-diversity\"\nattribute = \"disease\"\nl = 0.5",
            "l",
        ),
        (
            "model = \"entropy-l-diversity\"\nattribute = \"disease\"\nl = nan",
            "l",
        ),
        (
            "model = \"entropy-l-diversity\"\nattribute = \"disease\"\nl = inf",
            "l",
        ),
        (
            "model = \"recursive-cl-diversity\"\nattribute = \"disease\"\nc = 0.0\nl = 2",
            "c",
        ),
        (
            "model = \"recursive-cl-diversity\"\nattribute = \"disease\"\nc = 2.0\nl = 0",
            "l",
        ),
        (
            "model = \"recursive-cl-diversity\"\nattribute = \"disease\"\nc = -inf\nl = 2",
            "c",
        ),
        (
            "model = \"t-closeness\"\nattribute = \"disease\"\nt = 0.0\ndistance = \"equal\"",
            "t",
        ),
        (
            "model = \"t-closeness\"\nattribute = \"disease\"\nt = 1.0000001\ndistance = \"equal\"",
            "t",
        ),
        (
            "model = \"t-closeness\"\nattribute = \"disease\"\nt = nan\ndistance = \"ordered\"",
            "t",
        ),
        (
            "model = \"delta-disclosure\"\nattribute = \"disease\"\ndelta = 0.0",
            "delta",
        ),
        (
            "model = \"delta-disclosure\"\nattribute = \"disease\"\ndelta = inf",
            "delta",
        ),
        (
            "model = \"beta-likeness\"\nattribute = \"disease\"\nbeta = -1.0",
            "beta",
        ),
        (
            "model = \"beta-likeness\"\nattribute = \"disease\"\nbeta = nan",
            "beta",
        ),
    ];
    for (model, field) in cases {
        // the bad model comes second, after a valid one
        let text = config(&format!("{K2}[[privacy]]\n{model}\n"));
        let f = Fixture::new(DATA, AGE, &text);
        let err = f.config().unwrap().problem().unwrap_err();
        assert_eq!(
            config_key(&err),
            format!("privacy[1].{field}"),
            "{model}: {err}"
        );
    }
    // the edges of the domains are allowed
    for model in [
        "model = \"t-closeness\"\nattribute = \"disease\"\nt = 1.0\ndistance = \"equal\"",
        "model = \"distinct-l-diversity\"\nattribute = \"disease\"\nl = 1.0",
        "model = \"k-anonymity\"\nk = 1",
    ] {
        let f = Fixture::new(DATA, AGE, &config(&format!("[[privacy]]\n{model}\n")));
        f.config().unwrap().problem().unwrap();
    }
}

#[test]
fn k_above_the_row_count_is_a_job_without_solution() {
    let f = Fixture::new(
        DATA,
        AGE,
        &config("[[privacy]]\nmodel = \"k-anonymity\"\nk = 7\n"),
    );
    let report = f.anonymize().unwrap();
    assert!(!report.found);
    assert!(!f.dir.path().join("out.csv").exists());
}

#[test]
fn anonymize_needs_a_privacy_model_and_evaluate_does_not() {
    let f = Fixture::new(DATA, AGE, &config(""));
    let err = f.anonymize().unwrap_err();
    assert_eq!(config_key(&err), "privacy", "{err}");
    assert!(err.to_string().contains("cellsafe evaluate"), "{err}");
    // a transformation alone is fine for evaluation
    let problem = f.config().unwrap().problem().unwrap();
    assert!(problem.evaluate(&[1, 1]).unwrap().acceptable);
}

#[test]
fn thread_count_is_bounded() {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    for threads in [100_000u64, 4_294_967_295, (4 * cores + 1) as u64] {
        let f = Fixture::new(
            DATA,
            AGE,
            &config(&format!("{K2}[search]\nthreads = {threads}\n")),
        );
        let err = f.anonymize().unwrap_err();
        assert_eq!(config_key(&err), "search.threads", "{err}");
    }
    let f = Fixture::new(
        DATA,
        AGE,
        &config(&format!("{K2}[search]\nthreads = {}\n", 4 * cores)),
    );
    assert!(f.anonymize().unwrap().found);
}

const SAFETY: &str = "[safety]\neach_value = [\"disease\"]\ndefault = [\"*\"]\n";

#[test]
fn genetic_parameters_are_bounded() {
    let cases = [
        ("population = 4294967296", "population"),
        ("population = 1001", "population"),
        ("population = 1", "population"),
        ("generations = 1001", "generations"),
        ("generations = 18446744073709551615", "generations"),
        ("crossover_rate = nan", "crossover_rate"),
        ("mutation_rate = 1.5", "mutation_rate"),
    ];
    for (line, key) in cases {
        let text = config(&format!(
            "{K2}{SAFETY}[search]\nalgorithm = \"genetic\"\n[search.genetic]\n{line}\n"
        ));
        let f = Fixture::new(DATA, AGE, &text);
        let err = f.anonymize().unwrap_err();
        assert_eq!(config_key(&err), format!("search.genetic.{key}"), "{err}");
    }
    let text = config(&format!(
        "{K2}{SAFETY}[search]\nalgorithm = \"genetic\"\n[search.genetic]\npopulation = 1000\ngenerations = 3\n"
    ));
    assert!(Fixture::new(DATA, AGE, &text).anonymize().unwrap().found);
    // the genetic search maximizes sf·ql, so it needs [safety]
    let text = config(&format!("{K2}[search]\nalgorithm = \"genetic\"\n"));
    let err = Fixture::new(DATA, AGE, &text).anonymize().unwrap_err();
    assert_eq!(config_key(&err), "safety", "{err}");
}

#[test]
fn exhaustive_search_lattice_is_bounded() {
    // 7 quasi-identifiers masked over 7 characters: 8^7 = 2,097,152 transformations
    let names: Vec<String> = (0..7).map(|i| format!("q{i}")).collect();
    let data = format!("{}\n{}\n", names.join(","), ["1234567"; 7].join(","));
    let mut text = "[[privacy]]\nmodel = \"k-anonymity\"\nk = 1\n[search]\nalgorithm = \"exhaustive\"\n[input]\npath = \"data.csv\"\n".to_string();
    for n in &names {
        text += &format!(
            "[attributes.{n}]\nrole = \"quasi-identifying\"\nhierarchy = {{ kind = \"mask\" }}\n"
        );
    }
    let f = Fixture::new(&data, AGE, &text);
    let err = f.anonymize().unwrap_err();
    assert_eq!(config_key(&err), "search.algorithm", "{err}");
    assert!(err.to_string().contains("2097152"), "{err}");
    // the same lattice is fine for the optimal search
    let f = Fixture::new(&data, AGE, &text.replace("exhaustive", "optimal"));
    assert!(f.anonymize().unwrap().found);
}

#[test]
fn hierarchy_sizes_are_bounded() {
    // a mask builds one level per character
    let long = "1".repeat(65);
    let data = DATA.replace("24129", &long);
    let f = Fixture::new(&data, AGE, &config(K2));
    let err = f.anonymize().unwrap_err();
    assert_eq!(config_key(&err), "attributes.zip.hierarchy", "{err}");
    // a hierarchy file with more levels than a level number can hold
    let wide: String = AGE
        .lines()
        .map(|l| format!("{l}{}\n", ";*".repeat(300)))
        .collect();
    let f = Fixture::new(DATA, &wide, &config(K2));
    let err = f.anonymize().unwrap_err().to_string();
    assert!(
        err.starts_with(&format!("{}:1:257: ", f.path("age.csv"))),
        "{err}"
    );
    // builders with too many levels name their key
    let text = config(K2).replace(
        "hierarchy = { kind = \"mask\" }",
        &format!(
            "hierarchy = {{ kind = \"intervals\", widths = [{}] }}",
            ["1"; 300].join(", ")
        ),
    );
    let err = Fixture::new(DATA, AGE, &text).anonymize().unwrap_err();
    assert_eq!(config_key(&err), "attributes.zip.hierarchy.widths", "{err}");
}

#[test]
fn oversized_lattice_names_the_attributes() {
    let names: Vec<String> = (0..12).map(|i| format!("q{i}")).collect();
    let data = format!("{}\n{}\n", names.join(","), ["12345678"; 12].join(","));
    let mut text = format!("{K2}[input]\npath = \"data.csv\"\n");
    for n in &names {
        text += &format!(
            "[attributes.{n}]\nrole = \"quasi-identifying\"\nhierarchy = {{ kind = \"mask\" }}\n"
        );
    }
    let err = Fixture::new(&data, AGE, &text).anonymize().unwrap_err();
    assert_eq!(config_key(&err), "attributes", "{err}");
}

#[test]
fn hierarchy_file_errors_have_lines_in_crlf_files() {
    let age = AGE
        .replace('\n', "\r\n")
        .replace("52;50-59;*", "52;\"50-59;*");
    let f = Fixture::new(DATA, &age, &config(K2));
    let err = f.anonymize().unwrap_err().to_string();
    assert!(
        err.starts_with(&format!("{}:5:2: ", f.path("age.csv"))),
        "{err}"
    );
    assert!(err.contains("never closed"), "{err}");
    let age = AGE
        .replace('\n', "\r\n")
        .replace("35;30-39;*", "35;30-39;x");
    let f = Fixture::new(DATA, &age, &config(K2));
    let err = f.anonymize().unwrap_err().to_string();
    assert!(
        err.starts_with(&format!("{}:2:3: ", f.path("age.csv"))),
        "{err}"
    );
}

#[test]
fn impossible_dates_name_line_and_column() {
    let data = "name,birth,disease\nann,24/09/56,flu\nbob,29/02/56,cold\ncid,31/02/56,flu\ndan,31/02/56,flu\n";
    let text = "[input]\npath = \"data.csv\"\n[attributes.name]\nrole = \"identifying\"\n[attributes.birth]\nrole = \"quasi-identifying\"\nhierarchy = { kind = \"date\", format = \"%d/%m/%y\" }\n[attributes.disease]\nrole = \"sensitive\"\n[[privacy]]\nmodel = \"k-anonymity\"\nk = 2\n";
    let f = Fixture::new(data, AGE, text);
    let err = f.anonymize().unwrap_err().to_string();
    assert!(
        err.starts_with(&format!("{}:4:2: ", f.path("data.csv"))),
        "{err}"
    );
    assert!(
        err.contains("`31/02/56` is not a calendar date") && err.contains("attributes.birth"),
        "{err}"
    );
    // in a CRLF file too
    let f = Fixture::new(&data.replace('\n', "\r\n"), AGE, text);
    let err = f.anonymize().unwrap_err().to_string();
    assert!(
        err.starts_with(&format!("{}:4:2: ", f.path("data.csv"))),
        "{err}"
    );
    // a leap day is fine
    let f = Fixture::new(&data.replace("31/02", "28/02"), AGE, text);
    assert!(f.anonymize().unwrap().found);
}

#[test]
fn empty_hierarchy_file_names_its_first_line() {
    let f = Fixture::new(DATA, "", &config(K2));
    let err = f.anonymize().unwrap_err().to_string();
    assert_eq!(
        err,
        format!("{}:1: the hierarchy has no rows", f.path("age.csv"))
    );
}

#[test]
fn disclosure_sizes_are_bounded() {
    for (line, key) in [
        ("samples = 4294967296000", "disclose.samples"),
        ("samples = 0", "disclose.samples"),
        ("budget = 18446744073709551615", "disclose.budget"),
    ] {
        let text = config(&format!(
            "[disclose]\ncheck = {{ type = \"distinct-l\", l = 2 }}\n{line}\n"
        ));
        let f = Fixture::new(DATA, AGE, &text);
        let err = cellsafe::job::disclosure::from_config(&f.config().unwrap()).unwrap_err();
        assert_eq!(config_key(&err), key, "{err}");
    }
}

#[test]
fn public_search_refuses_logical_safety() {
    // regression (fuzz): the release test indexed past the sensitive histogram and panicked
    let text = config(&format!(
        "{K2}[[privacy]]\nmodel = \"logical-safety\"\n[safety]\neach_value = [\"disease\"]\ndefault = []\n[disclose]\ncheck = {{ type = \"distinct-l\", l = 2 }}\n"
    ));
    let err = Fixture::new(DATA, AGE, &text).anonymize().unwrap_err();
    assert_eq!(config_key(&err), "privacy[1]", "{err}");
}

#[test]
fn interval_values_must_be_finite_numbers() {
    let text = config(K2).replace(
        "hierarchy = { kind = \"mask\" }",
        "hierarchy = { kind = \"intervals\", widths = [10] }",
    );
    for bad in ["inf", "NaN", "x"] {
        let data = DATA.replace("10431", bad);
        let f = Fixture::new(&data, AGE, &text);
        let err = f.anonymize().unwrap_err().to_string();
        assert!(
            err.starts_with(&format!("{}:6:2: ", f.path("data.csv")))
                && err.contains("not a finite number"),
            "{bad}: {err}"
        );
    }
}

#[test]
fn con_file_errors_are_located() {
    let safety = |file: &str, names: &str| {
        let data = DATA.replace("eve,", names);
        (
            data,
            config(&format!(
                "{K2}[[privacy]]\nmodel = \"logical-safety\"\n[safety]\nformulas = {{ ill = \"disease = flu\" }}\nkey = \"name\"\nfile = \"{file}\"\n"
            )),
        )
    };
    // an identifier on two rows: named at the second row's line and the key column
    let (data, text) = safety("con.csv", "ann,");
    let f = Fixture::new(&data, AGE, &text);
    std::fs::write(f.dir.path().join("con.csv"), "name,formula\r\nann,ill\r\n").unwrap();
    let err = f.anonymize().unwrap_err().to_string();
    assert!(
        err.starts_with(&format!("{}:6:1: ", f.path("data.csv"))),
        "{err}"
    );
    // an unterminated quote in a CRLF CON file names where it began
    let (data, text) = safety("con.csv", "eve,");
    let f = Fixture::new(&data, AGE, &text);
    std::fs::write(
        f.dir.path().join("con.csv"),
        "name,formula\r\nann,ill\r\nbob,\"ill\r\n",
    )
    .unwrap();
    let err = f.anonymize().unwrap_err().to_string();
    assert!(
        err.starts_with(&format!("{}:3:2: ", f.path("con.csv"))) && err.contains("never closed"),
        "{err}"
    );
}

#[test]
fn a_method_that_cannot_decide_names_its_key() {
    // regression (fuzz): counting over generalizations that are not nested was an
    // unlocated "too large for this method" error
    let text = config(
        "[disclose]\ncheck = { type = \"distinct-l\", l = 2 }\nmethod = \"counting\"\n\
         [[disclose.generalizations]]\ngroups = [[\"ann\", \"cid\", \"eve\"], [\"bob\", \"dan\", \"fay\"]]\n\
         [[disclose.generalizations]]\ngroups = [[\"ann\", \"bob\", \"dan\"], [\"cid\", \"eve\", \"fay\"]]\n",
    );
    let fixture = Fixture::new(DATA, AGE, &text);
    let config = fixture.config().unwrap();
    let (d, options) = cellsafe::job::disclosure::from_config(&config).unwrap();
    let err = d
        .decide(
            cellsafe::algorithm::disclosure::Strategy::Exclusive,
            &options,
        )
        .map_err(|e| cellsafe::job::disclosure::locate(e, &config.file_name()))
        .unwrap_err();
    assert_eq!(config_key(&err), "disclose.method", "{err}");
    assert!(err.to_string().contains("nested"), "{err}");
}

#[test]
fn a_set_based_family_a_column_cannot_take_names_its_key() {
    // regression (fuzz): "`age` has no hierarchy, so its cells cannot be generalized by
    // levels" was an unlocated error
    let text = config(&format!(
        "{K2}[[privacy]]\nmodel = \"logical-safety\"\n[safety]\neach_value = [\"disease\"]\n\
         default = []\n[search]\nalgorithm = \"set-based\"\n\
         [search.set_based]\nfamilies = {{ disease = \"levels\" }}\n"
    ));
    let err = Fixture::new(DATA, AGE, &text).anonymize().unwrap_err();
    assert_eq!(config_key(&err), "search.set_based.families", "{err}");
}

/// A research subset, `[input.subset]`: every mistake names its key, or the file, line
/// and column of the value at fault.
#[test]
fn research_subset_mistakes_are_located() {
    const PRESENCE: &str =
        "[[privacy]]\nmodel = \"delta-presence\"\ndelta_min = 0.0\ndelta_max = 0.5\n";
    let flagged = |flags: [&str; 6]| {
        let mut out = String::new();
        for (i, line) in DATA.lines().enumerate() {
            out += line;
            out += &if i == 0 {
                ",study".to_owned()
            } else {
                format!(",{}", flags[i - 1])
            };
            out.push('\n');
        }
        out
    };
    let with = |subset: &str, extra: &str| {
        config(&format!("{PRESENCE}{extra}")).replace(
            "path = \"data.csv\"\n",
            &format!("path = \"data.csv\"\n[input.subset]\n{subset}\n"),
        )
    };
    let good = flagged(["1", "yes", "0", "TRUE", "no", "false"]);
    // flags: a value that is no flag is located; the flag column is never released
    let f = Fixture::new(
        &flagged(["1", "yes", "maybe", "1", "0", "0"]),
        AGE,
        &with("column = \"study\"", ""),
    );
    let err = f.config().unwrap().problem().unwrap_err().to_string();
    assert!(
        err.starts_with(&format!("{}:4:5: ", f.path("data.csv"))),
        "{err}"
    );
    assert!(err.contains("`maybe`"), "{err}");
    let f = Fixture::new(&good, AGE, &with("column = \"study\"", ""));
    f.anonymize().unwrap();
    let out = std::fs::read_to_string(f.dir.path().join("out.csv")).unwrap();
    assert_eq!(out.lines().count(), 1 + 3, "{out}");
    assert!(!out.lines().next().unwrap().contains("study"), "{out}");
    let f = Fixture::new(
        &good,
        AGE,
        &with(
            "column = \"study\"",
            "[attributes.study]\nrole = \"insensitive\"\n",
        ),
    );
    assert_eq!(
        config_key(&f.config().unwrap().problem().unwrap_err()),
        "input.subset.column"
    );
    let f = Fixture::new(&good, AGE, &with("column = \"nope\"", ""));
    assert_eq!(
        config_key(&f.config().unwrap().problem().unwrap_err()),
        "input.subset.column"
    );
    // the input's order would line the subset up with the population
    let f = Fixture::new(
        &good,
        AGE,
        &format!(
            "{}[output]\nkeep_order = true\n",
            with("column = \"study\"", "")
        ),
    );
    assert_eq!(config_key(&f.anonymize().unwrap_err()), "output.keep_order");
    // the commands that judge the whole table refuse a subset
    let f = Fixture::new(&good, AGE, &with("column = \"study\"", ""));
    let c = f.config().unwrap();
    let err = cellsafe::job::disclosure::from_config(&c).unwrap_err();
    assert_eq!(config_key(&err), "input.subset");
    let err = cellsafe::job::pareto::pareto(&c, None, false, &cellsafe::observer::Silent);
    assert_eq!(config_key(&err.unwrap_err()), "input.subset");
    // a subset without δ-presence is released with a warning
    let f = Fixture::new(
        &good,
        AGE,
        &config(K2).replace(
            "path = \"data.csv\"\n",
            "path = \"data.csv\"\n[input.subset]\ncolumn = \"study\"\n",
        ),
    );
    let report = f.anonymize().unwrap();
    assert!(
        report
            .warnings
            .iter()
            .any(|w| w.contains("no delta-presence")),
        "{:?}",
        report.warnings
    );
    // neither or both ways of naming the subset
    for subset in [
        "",
        "column = \"study\"\nfile = \"keys.csv\"\nkey = \"name\"",
    ] {
        let f = Fixture::new(&good, AGE, &with(subset, ""));
        assert_eq!(
            config_key(&f.config().unwrap().problem().unwrap_err()),
            "input.subset",
            "{subset}"
        );
    }
    // keys: one row each, all known, none twice
    let keyed = |keys: &str| {
        let f = Fixture::new(DATA, AGE, &with("file = \"keys.csv\"\nkey = \"name\"", ""));
        std::fs::write(f.dir.path().join("keys.csv"), keys).unwrap();
        f
    };
    let f = keyed("name\nbob\neve\n");
    assert_eq!(f.config().unwrap().problem().unwrap().data.rows(), 2);
    // the key names the members: never released, whatever the default role
    let text = with("file = \"keys.csv\"\nkey = \"zip\"", "").replace(
        "path = \"data.csv\"\n",
        "path = \"data.csv\"\ndefault_role = \"insensitive\"\n",
    );
    let f = Fixture::new(DATA, AGE, &text);
    std::fs::write(f.dir.path().join("keys.csv"), "zip\n24126\n").unwrap();
    assert_eq!(
        config_key(&f.config().unwrap().problem().unwrap_err()),
        "input.subset.key",
        "a quasi-identifier as key"
    );
    let text = config(PRESENCE)
        .replace("[attributes.name]\nrole = \"identifying\"\n", "")
        .replace(
            "path = \"data.csv\"\n",
            "path = \"data.csv\"\n[input.subset]\nfile = \"keys.csv\"\nkey = \"name\"\n",
        );
    let f = Fixture::new(DATA, AGE, &text);
    std::fs::write(f.dir.path().join("keys.csv"), "name\nann\neve\n").unwrap();
    assert!(f.anonymize().unwrap().found);
    let out = std::fs::read_to_string(f.dir.path().join("out.csv")).unwrap();
    assert!(!out.contains("name") && !out.contains("ann"), "{out}");
    assert_eq!(out.lines().count(), 3, "{out}");
    let f = keyed("name\nbob\nzed\n");
    let err = f.config().unwrap().problem().unwrap_err().to_string();
    assert!(
        err.starts_with(&format!("{}:3:1: ", f.path("keys.csv"))),
        "{err}"
    );
    assert!(err.contains("`zed`"), "{err}");
    let f = keyed("name\nbob\nbob\n");
    assert_eq!(
        config_key(&f.config().unwrap().problem().unwrap_err()),
        "input.subset.file"
    );
    let f = keyed("id\nbob\n");
    assert_eq!(
        config_key(&f.config().unwrap().problem().unwrap_err()),
        "input.subset.key"
    );
    let f = keyed("name\n");
    assert!(f.config().unwrap().problem().is_err(), "an empty subset");
    // δ-presence needs a subset, and δmin ≤ δmax
    let f = Fixture::new(DATA, AGE, &config(PRESENCE));
    assert_eq!(
        config_key(&f.config().unwrap().problem().unwrap_err()),
        "privacy[0]"
    );
    let bad = with("column = \"study\"", "").replace("delta_max = 0.5", "delta_max = 0.0");
    let bad = bad.replace("delta_min = 0.0", "delta_min = 0.2");
    let f = Fixture::new(&good, AGE, &bad);
    assert_eq!(
        config_key(&f.config().unwrap().problem().unwrap_err()),
        "privacy[0].delta_max"
    );
}

// ---------------------------------------------------------------------------------------
// Files that are not regular, and inputs of unbounded size (issue 27, items 10)
// ---------------------------------------------------------------------------------------

/// Makes a character device node at `path` with the numbers of /dev/null (1, 3), so that
/// nothing is read even by code that failed to refuse it. False (and says so) when this
/// process may not make device nodes.
#[cfg(unix)]
fn null_device(path: &std::path::Path) -> bool {
    let made = std::process::Command::new("mknod")
        .arg(path)
        .args(["c", "1", "3"])
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !made {
        common::skipped("input refusals: a device node cannot be made here (not root?)");
    }
    made
}

#[cfg(unix)]
fn fifo(path: &std::path::Path) {
    let status = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .unwrap();
    assert!(status.success(), "mkfifo {}", path.display());
}

/// A thread that writes `content` into the FIFO at `path` once a reader opens it. If the
/// code under test refuses the FIFO without opening it, [`release_writer`] opens it
/// without blocking so the writer ends.
#[cfg(unix)]
fn fifo_writer(path: &std::path::Path, content: Vec<u8>) -> std::thread::JoinHandle<()> {
    let path = path.to_owned();
    std::thread::spawn(move || {
        use std::io::Write;
        let mut w = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
        let _ = w.write_all(&content); // the reader may stop early: a broken pipe
    })
}

#[cfg(unix)]
fn release_writer(path: &std::path::Path, writer: std::thread::JoinHandle<()>) {
    use std::io::Read;
    use std::os::unix::fs::OpenOptionsExt;
    // A non-blocking reader: lets a writer still waiting in `open` go on, then drains.
    let mut r = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
        .unwrap();
    let mut sink = [0u8; 65536];
    while !writer.is_finished() {
        match r.read(&mut sink) {
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => std::thread::yield_now(),
            Err(e) => panic!("{e}"),
        }
    }
    writer.join().unwrap();
}

/// Regression: a device given as the data, hierarchy or config file was read (`/dev/zero`
/// grew the process until the OOM killer ended it). A device, a socket or a directory is
/// refused before it is opened, naming the file.
#[cfg(unix)]
#[test]
fn device_and_directory_inputs_are_refused_naming_the_file() {
    for name in ["data.csv", "age.csv", "job.toml"] {
        let f = Fixture::new(DATA, AGE, &config(K2));
        let path = f.dir.path().join(name);
        std::fs::remove_file(&path).unwrap();
        if !null_device(&path) {
            continue;
        }
        let err = f.anonymize().unwrap_err().to_string();
        assert!(err.contains(&f.path(name)), "{name}: {err}");
        assert!(err.contains("is a character device"), "{name}: {err}");
    }
    let f = Fixture::new(DATA, AGE, &config(K2));
    let path = f.dir.path().join("age.csv");
    std::fs::remove_file(&path).unwrap();
    std::fs::create_dir(&path).unwrap();
    let err = f.anonymize().unwrap_err().to_string();
    assert!(err.contains(&f.path("age.csv")), "{err}");
    assert!(err.contains("is a directory"), "{err}");
}

/// A FIFO is read as the data file (a pipe given on purpose, e.g. `<(zcat data.csv.gz)`),
/// but refused, without opening it, as a hierarchy or config file.
#[cfg(unix)]
#[test]
fn a_fifo_is_read_as_data_and_refused_as_a_hierarchy_or_config() {
    let f = Fixture::new(DATA, AGE, &config(K2));
    let data = f.dir.path().join("data.csv");
    std::fs::remove_file(&data).unwrap();
    fifo(&data);
    let writer = fifo_writer(&data, DATA.as_bytes().to_vec());
    let found = f.anonymize();
    release_writer(&data, writer);
    assert!(found.unwrap().found);
    for name in ["age.csv", "job.toml"] {
        let f = Fixture::new(DATA, AGE, &config(K2));
        let path = f.dir.path().join(name);
        std::fs::remove_file(&path).unwrap();
        fifo(&path);
        let content = if name == "age.csv" { AGE } else { "" };
        let writer = fifo_writer(&path, content.as_bytes().to_vec());
        let result = f.anonymize();
        release_writer(&path, writer);
        let err = result.unwrap_err().to_string();
        assert!(err.contains(&f.path(name)), "{name}: {err}");
        assert!(err.contains("is a FIFO"), "{name}: {err}");
    }
}

/// Bytes of a line longer than any the readers accept (`cellsafe::input::MAX_LINE`,
/// 16 MiB), and of a field longer than any (`MAX_FIELD`, 1 MiB).
const TOO_LONG_LINE: usize = 17 << 20;
const TOO_LONG_FIELD: usize = 2 << 20;
const _: () = assert!(TOO_LONG_LINE > cellsafe::input::MAX_LINE);
const _: () = assert!(TOO_LONG_FIELD > cellsafe::input::MAX_FIELD);
const _: () = assert!(TOO_LONG_FIELD < cellsafe::input::MAX_LINE);
/// Bytes of a config file past the limit (`cellsafe::input::MAX_CONFIG`).
const TOO_LARGE_CONFIG: usize = 5 << 20;
const _: () = assert!(TOO_LARGE_CONFIG as u64 > cellsafe::input::MAX_CONFIG);

/// Regression: a line or field of unbounded length (an endless line from a pipe) was read
/// into memory whole. A line past the limit is refused naming the file and line, a field
/// past it naming the line and column, whether the file is read whole or streamed.
#[test]
fn overlong_lines_and_fields_are_refused_with_their_place() {
    let long_line = format!("{DATA}{}\n", "a".repeat(TOO_LONG_LINE));
    let f = Fixture::new(&long_line, AGE, &config(K2));
    let err = f.anonymize().unwrap_err().to_string();
    assert!(
        err.contains(&format!("{}:8", f.path("data.csv"))),
        "{err:.300}"
    );
    assert!(err.contains("longer than"), "{err:.300}");

    let long_field = format!("{DATA}gil,24126,{},flu\n", "3".repeat(TOO_LONG_FIELD));
    for text in [long_field.clone(), long_field.replace('\n', "\r\n")] {
        // the plain reader declines a long field, and the general one says where it is
        let f = Fixture::new(&text, AGE, &config(K2));
        let err = f.anonymize().unwrap_err().to_string();
        assert!(
            err.contains(&format!("{}:8:3", f.path("data.csv"))),
            "{err:.300}"
        );
        assert!(err.contains("longer than"), "{err:.300}");
    }

    let long_label = format!("34;{};*\n{AGE}", "x".repeat(TOO_LONG_FIELD));
    let f = Fixture::new(DATA, &long_label, &config(K2));
    let err = f.anonymize().unwrap_err().to_string();
    assert!(
        err.contains(&format!("{}:1:2", f.path("age.csv"))),
        "{err:.300}"
    );
    assert!(err.contains("longer than"), "{err:.300}");
}

/// The same through a pipe: the data file streamed from a FIFO stops at the limit.
#[cfg(unix)]
#[test]
fn an_overlong_line_from_a_fifo_is_refused() {
    let f = Fixture::new(DATA, AGE, &config(K2));
    let data = f.dir.path().join("data.csv");
    std::fs::remove_file(&data).unwrap();
    fifo(&data);
    let mut content = DATA.as_bytes().to_vec();
    content.resize(content.len() + TOO_LONG_LINE, 0);
    let writer = fifo_writer(&data, content);
    let result = f.anonymize();
    release_writer(&data, writer);
    let err = result.unwrap_err().to_string();
    assert!(
        err.contains(&format!("{}:8", f.path("data.csv"))),
        "{err:.300}"
    );
    assert!(err.contains("longer than"), "{err:.300}");
}

/// Regression: a config file of any size was read whole. Past the limit
/// (`cellsafe::input::MAX_CONFIG`, 4 MiB) it is refused, naming the file.
#[test]
fn an_oversized_config_is_refused() {
    let padding = "# padding\n".repeat(TOO_LARGE_CONFIG / 10);
    let f = Fixture::new(DATA, AGE, &format!("{}{padding}", config(K2)));
    let err = f.anonymize().unwrap_err().to_string();
    assert!(err.contains(&f.path("job.toml")), "{err:.300}");
    assert!(err.contains("larger than"), "{err:.300}");
}

/// A config file that is not UTF-8 is an I/O error naming the file, and one past the size
/// limit is refused as too large, naming it too.
#[test]
fn a_config_not_in_utf8_or_too_large_names_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("job.toml");
    std::fs::write(&path, b"suppression_limit = 0.0\n# caf\xe9\n").unwrap();
    let err = Config::from_file(&path).unwrap_err();
    assert!(matches!(err, Error::Io { .. }), "{err:?}");
    let text = err.to_string();
    assert!(
        text.contains("job.toml") && text.contains("UTF-8"),
        "{text}"
    );
    let big = vec![b'#'; (cellsafe::input::MAX_CONFIG + 1) as usize];
    std::fs::write(&path, big).unwrap();
    let text = Config::from_file(&path).unwrap_err().to_string();
    assert!(
        text.contains("job.toml") && text.contains("config file"),
        "{text}"
    );
}
