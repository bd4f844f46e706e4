//! Unit tests of the config's parsing: syntax errors located by line and column, long
//! values quoted briefly, and docs/configuration.md's example config parsing as documented.

use super::*;
use crate::release::SuppressedRows;

#[test]
fn syntax_errors_have_line_and_column() {
    let err = Config::parse(
        "[input]\npath = \"a.csv\"\nbogus = 1\n[attributes]\n",
        Path::new("c.toml"),
    )
    .unwrap_err()
    .to_string();
    assert!(err.starts_with("c.toml:3:1"), "{err}");
    assert!(err.contains("bogus"), "{err}");
}

#[test]
fn malformed_number_is_located() {
    let text = "suppression_limit = \"lots\"\n[input]\npath = \"a.csv\"\n[attributes]\n";
    let err = Config::parse(text, Path::new("c.toml"))
        .unwrap_err()
        .to_string();
    assert!(err.starts_with("c.toml:1:"), "{err}");
}

#[test]
fn syntax_errors_quote_long_values_briefly() {
    let long = "x".repeat(1_000_000);
    let text = format!("[input]\npath = \"a.csv\"\ndefault_role = \"{long}\"\n[attributes]\n");
    let err = Config::parse(&text, Path::new("c.toml"))
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with("c.toml:3:") && err.len() < 400,
        "{}",
        err.len()
    );
}

#[test]
fn documented_example_parses() {
    let readme = include_str!("../../../../../docs/configuration.md");
    let start = readme.find("```toml\n").expect("a toml block") + 8;
    let end = start + readme[start..].find("```").expect("closed block");
    let config = Config::parse(&readme[start..end], Path::new("docs/configuration.md")).unwrap();
    assert_eq!(config.privacy.len(), 10);
    assert!(matches!(
        config.privacy[9],
        crate::criteria::ModelSpec::PopulationUniqueness {
            sampling_fraction: Some(f),
            ..
        } if f == 0.1
    ));
    assert_eq!(config.attributes.len(), 10);
    assert!(config.attributes["region"].public);
    assert_eq!(config.output.suppression, SuppressedRows::Star);
    assert_eq!(
        (config.output.seed, config.output.keep_order),
        (Some(42), false)
    );
    assert_eq!(config.suppression_limit, 0.01);
    assert!(matches!(
        config.attributes["blood2"].hierarchy,
        Some(HierarchySpec::Builder(Builder::Partitions { .. }))
    ));
    assert_eq!(config.attributes["sex"].scale, Some(Scale::Nominal));
    assert_eq!(config.output.values, OutputValues::Generalization);
}

#[test]
fn a_bad_hierarchy_builder_says_what_is_wrong_in_it() {
    let job = |hierarchy: &str| {
        let text = format!(
            "[input]\npath = \"t.csv\"\n[attributes.age]\nrole = \"quasi-identifying\"\n\
             hierarchy = {hierarchy}\n"
        );
        Config::parse(&text, Path::new("c.toml"))
            .map(|_| ())
            .map_err(|e| e.to_string())
    };
    let e = job("{ kind = \"intervals\", widths = [5, \"ten\"] }").unwrap_err();
    assert!(
        e.contains("c.toml:5:") && e.contains("invalid type: string \"ten\""),
        "{e}"
    );
    let e = job("{ kind = \"bogus\" }").unwrap_err();
    assert!(
        e.contains("unknown variant `bogus`, expected one of `intervals`"),
        "{e}"
    );
    let e = job("{ kind = \"date\" }").unwrap_err();
    assert!(e.contains("missing field `format`"), "{e}");
    let e = job("5").unwrap_err();
    assert!(
        e.contains("the path of an ARX hierarchy file, or a table"),
        "{e}"
    );
    job("\"h.csv\"").unwrap();
    job("{ kind = \"intervals\", widths = [5, 10] }").unwrap();
}

/// A delimiter or quote that is a line end is refused, naming its key (a quote of `"\n"`
/// was taken, and the fast CSV reader then read what the general reader does not).
#[test]
fn a_line_end_as_delimiter_or_quote_is_refused_by_its_key() {
    for key in ["delimiter", "quote"] {
        for end in ["\\n", "\\r"] {
            let text = format!("[input]\npath = \"a.csv\"\n{key} = \"{end}\"\n[attributes]\n");
            let config = Config::parse(&text, Path::new("c.toml")).unwrap();
            let err = config.csv_format().unwrap_err().to_string();
            assert!(
                err.contains(&format!("input.{key}")) && err.contains("line end"),
                "{err}"
            );
        }
    }
    let tab = "[input]\npath = \"a.csv\"\ndelimiter = \"\\t\"\n[attributes]\n";
    let config = Config::parse(tab, Path::new("c.toml")).unwrap();
    assert_eq!(config.csv_format().unwrap().delimiter, b'\t');
}
