//! The typed errors that replaced the untyped `Error::Invalid(String)`, reached through the
//! public API from the input a user gives: each is the typed variant, and says what the
//! untyped error said (the CLI and the service print `Display` as is).

use cellsafe::data::formula::{Domain, DomainError};
use cellsafe::error::{
    AnonymizerError, CenterError, DisclosureError, Error, JobError, ProblemError,
};
use cellsafe::gatekeeper::{Center, Decide, GatekeeperSpec};
use cellsafe::job::config::Config;
use cellsafe::job::{self, Outputs};
use cellsafe::observer::Silent;
use cellsafe::{Anonymizer, CsvFormat, ModelSpec, Table};

const DATA: &str = "name,age,disease,study\nann,34,flu,1\nbob,35,cold,1\ncid,36,flu,0\n\
                    dan,51,cancer,1\neve,52,flu,0\nfay,53,cold,1\n";

const BASE: &str = r#"suppression_limit = 0.0
[input]
path = "data.csv"
[attributes.name]
role = "identifying"
[attributes.age]
role = "quasi-identifying"
hierarchy = { kind = "suppress" }
[attributes.disease]
role = "sensitive"
"#;

const SUBSET: &str = "[input.subset]\ncolumn = \"study\"\n";
const PRESENCE: &str =
    "[[privacy]]\nmodel = \"delta-presence\"\ndelta_min = 0.0\ndelta_max = 0.9\n";
const K2: &str = "[[privacy]]\nmodel = \"k-anonymity\"\nk = 2\n";
const AVERAGE_RISK: &str = "[[privacy]]\nmodel = \"average-risk\"\nthreshold = 0.5\n";

/// A job directory: the data and a config of `BASE` with `extra` after `[input]`'s keys
/// (`before`) and at the end (`after`).
struct Job {
    dir: tempfile::TempDir,
}

impl Job {
    fn new(before: &str, after: &str) -> Job {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("data.csv"), DATA).unwrap();
        let text = BASE.replace(
            "path = \"data.csv\"\n",
            &format!("path = \"data.csv\"\n{before}"),
        ) + after;
        std::fs::write(dir.path().join("job.toml"), text).unwrap();
        Job { dir }
    }
    fn config(&self) -> Config {
        Config::from_file(&self.dir.path().join("job.toml")).unwrap()
    }
    fn table(&self) -> Table {
        Table::read_csv(&self.dir.path().join("data.csv"), &CsvFormat::default()).unwrap()
    }
    fn anonymize(&self) -> Result<job::report::Report, Error> {
        let outputs = Outputs {
            table: Some(self.dir.path().join("out.csv")),
            report: Some(self.dir.path().join("report.json")),
            mapping: None,
        };
        job::anonymize(&self.config(), &outputs, &Silent)
    }
}

#[test]
fn anonymizer_settings_that_cannot_run_together() {
    // a budget that would suppress every row
    let job = Job::new("", K2);
    let config = job.config();
    let data = config.dataset(job.table()).unwrap();
    let err = Anonymizer::from_dataset(data)
        .models(config.privacy.clone())
        .suppress_smallest_within(6)
        .attempt()
        .unwrap_err();
    assert!(
        matches!(
            err,
            Error::Anonymizer(AnonymizerError::BudgetTooLarge { budget: 6, rows: 6 })
        ),
        "{err:?}"
    );
    assert_eq!(
        err.to_string(),
        "a budget of 6 rows would suppress the whole table of 6 rows"
    );
    // a research subset in the input's order
    let job = Job::new(SUBSET, PRESENCE);
    let config = job.config();
    let data = config.dataset(job.table()).unwrap();
    let err = Anonymizer::from_dataset(data)
        .models(config.privacy.clone())
        .keep_order()
        .attempt()
        .unwrap_err();
    assert!(
        matches!(err, Error::Anonymizer(AnonymizerError::SubsetInInputOrder)),
        "{err:?}"
    );
    assert_eq!(
        err.to_string(),
        "a research subset is released in a shuffled order: in the input's order its rows are \
         a subsequence of the population a recipient holds, and line up with it"
    );
}

#[test]
fn presence_with_a_sample_based_model_is_a_problem_error() {
    let job = Job::new(SUBSET, &format!("{PRESENCE}{AVERAGE_RISK}"));
    let err = job.config().problem().unwrap_err();
    let Error::Problem(ProblemError::PresenceCombined { presence, other }) = &err else {
        panic!("{err:?}");
    };
    assert_eq!(
        err.to_string(),
        format!(
            "{presence} cannot be combined with {other}: it suppresses the smallest classes, \
             and a recipient who holds the population would learn from which ones were \
             suppressed who is in the subset"
        )
    );
}

#[test]
fn a_public_search_refuses_a_model_not_decided_by_each_class() {
    let disclose = "[disclose]\ncheck = { type = \"distinct-l\", l = 2 }\n";
    let job = Job::new("", &format!("{AVERAGE_RISK}{disclose}"));
    let err = job.anonymize().unwrap_err();
    let Error::Disclosure(DisclosureError::NotClassLocal(model)) = &err else {
        panic!("{err:?}");
    };
    assert_eq!(
        err.to_string(),
        format!(
            "{model} is not decided by each class's own rows; the disclosure sets of \
             [disclose] test each class alone and cannot take it"
        )
    );
}

#[test]
fn gatekeeper_settings_that_cannot_set_up_a_center() {
    let safety = "[safety]\nformulas = { sick = \"disease = cancer\" }\ndefault = [\"sick\"]\n";
    let center = |gatekeeper: &str| {
        let job = Job::new("", &format!("{K2}{safety}[gatekeeper]\n{gatekeeper}"));
        cellsafe::job::gatekeeper::center(&job.config(), job.table())
    };
    center("").unwrap();
    let err = center("numeric = [\"nope\"]\n").err().unwrap();
    assert!(
        matches!(&err, Error::Center(CenterError::NumericNoColumn(c)) if c == "nope"),
        "{err:?}"
    );
    assert_eq!(err.to_string(), "gatekeeper.numeric: no column `nope`");
    let err = center("numeric = [\"disease\"]\n").err().unwrap();
    assert!(
        matches!(
            &err,
            Error::Center(CenterError::NumericNotNumber { row: 1, .. })
        ),
        "{err:?}"
    );
    assert_eq!(
        err.to_string(),
        "gatekeeper.numeric: column `disease` is listed as numeric, but its value `flu` \
         (data row 1) is not a number"
    );
    // the job layer names the config key of the settings below; the library's own
    // `Center::new` has no config and says what is wrong with the settings it was given
    let job = Job::new("", &format!("{K2}{safety}"));
    let config = job.config();
    let new = |models: &[ModelSpec], spec: GatekeeperSpec| {
        let data = config.dataset(job.table()).unwrap();
        Center::new(data, models, spec)
    };
    let k2 = [ModelSpec::KAnonymity { k: 2 }];
    let spec = GatekeeperSpec {
        max_tests: 0,
        ..GatekeeperSpec::default()
    };
    let err = new(&k2, spec).err().unwrap();
    assert!(
        matches!(err, Error::Center(CenterError::MaxTests)),
        "{err:?}"
    );
    assert_eq!(err.to_string(), "gatekeeper: max_tests must be at least 1");
    let public = GatekeeperSpec {
        decide: Decide::Public,
        ..GatekeeperSpec::default()
    };
    let err = new(&[], public.clone()).err().unwrap();
    assert!(
        matches!(err, Error::Center(CenterError::PublicWithoutK)),
        "{err:?}"
    );
    assert_eq!(
        err.to_string(),
        "decisions from public information need a k-anonymity model"
    );
    let diversity = ModelSpec::DistinctLDiversity {
        attribute: "disease".into(),
        l: 2.0,
    };
    let err = new(&[diversity], public).err().unwrap();
    let Error::Center(CenterError::PublicModel(model)) = &err else {
        panic!("{err:?}");
    };
    assert_eq!(
        err.to_string(),
        format!(
            "decisions from public information allow only k-anonymity: {model} depends on the \
             confidential values"
        )
    );
}

#[test]
fn job_arguments_out_of_their_domain() {
    let job = Job::new("", K2);
    let input = job.dir.path().join("data.csv");
    let output = job.dir.path().join("flagged.csv");
    let flag = |columns: &[&str], density: f64| {
        let columns: Vec<String> = columns.iter().map(|c| c.to_string()).collect();
        job::synth::write_flagged(&input, &CsvFormat::default(), &columns, density, 1, &output)
    };
    let err = flag(&["age"], 1.5).unwrap_err();
    assert!(
        matches!(err, Error::Job(JobError::Density(d)) if d == 1.5),
        "{err:?}"
    );
    assert_eq!(
        err.to_string(),
        "--semi-sensitive must lie in [0, 1], not 1.5"
    );
    let err = flag(&["height"], 0.5).unwrap_err();
    assert!(
        matches!(&err, Error::Job(JobError::NoColumn { column, .. }) if column == "height"),
        "{err:?}"
    );
    assert_eq!(
        err.to_string(),
        format!("{} has no column `height`", input.display())
    );
    flag(&["age"], 0.5).unwrap();
    let err = job::synth::write_flagged(
        &output,
        &CsvFormat::default(),
        &["age".to_string()],
        0.5,
        1,
        &job.dir.path().join("twice.csv"),
    )
    .unwrap_err();
    let Error::Job(JobError::HasColumn { column, .. }) = &err else {
        panic!("{err:?}");
    };
    assert_eq!(
        err.to_string(),
        format!("{} already has a column `{column}`", output.display())
    );
    // the risk report's threshold and population
    let problem = job.config().problem().unwrap();
    let risk = |threshold: f64, population| {
        job::risk::risk(
            &problem,
            None,
            threshold,
            population,
            cellsafe::release::SuppressedRows::Star,
        )
    };
    let err = risk(2.0, None).unwrap_err();
    assert!(
        matches!(err, Error::Job(JobError::RiskThreshold(t)) if t == 2.0),
        "{err:?}"
    );
    assert_eq!(
        err.to_string(),
        "the risk threshold must lie in [0, 1], not 2"
    );
    let err = risk(0.5, Some(job::risk::Population::Size(3))).unwrap_err();
    assert!(
        matches!(
            err,
            Error::Job(JobError::Population {
                population: 3,
                rows: 6
            })
        ),
        "{err:?}"
    );
    assert_eq!(
        err.to_string(),
        "the population (3 records) must hold at least the table's 6 rows"
    );
    let err = risk(0.5, Some(job::risk::Population::Fraction(1.5))).unwrap_err();
    assert!(
        matches!(err, Error::Job(JobError::SamplingFraction(f)) if f == 1.5),
        "{err:?}"
    );
    assert_eq!(
        err.to_string(),
        "the sampling fraction must lie in (0, 1], not 1.5"
    );
}

#[test]
fn a_formula_domain_whose_order_misses_a_value() {
    let values = ["flu", "cold", "cancer"].map(String::from).to_vec();
    let order = ["cold", "flu"].map(String::from);
    let err = Domain::new("disease", 2, values, Some(&order)).unwrap_err();
    assert_eq!(
        err,
        DomainError::MissingFromOrder {
            name: "disease".into(),
            value: "cancer".into()
        }
    );
    // in a config, the key of the order names where
    let job = Job::new(
        "",
        &format!(
            "{K2}[safety]\nformulas = {{ sick = \"disease = cancer\" }}\ndefault = [\"sick\"]\n\
             order = {{ disease = [\"cold\", \"flu\"] }}\n"
        ),
    );
    let err = job.config().problem().unwrap_err();
    assert!(
        matches!(&err, Error::Config { key, .. } if key == "safety.order.disease"),
        "{err:?}"
    );
    assert_eq!(
        err.to_string(),
        format!(
            "{}: config key `safety.order.disease`: value `cancer` of `disease` is missing \
             from its order",
            job.dir.path().join("job.toml").display()
        )
    );
}
