//! Tests of hierarchies and their builders.

use std::collections::BTreeMap;

use super::*;

fn strings(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

fn blood() -> Builder {
    let spec = r#"
        kind = "partitions"
        partitions.split_ab = { "A|B" = ["A", "B"], "O|AB" = ["O", "AB"] }
        partitions.split_ao = { "A|O" = ["A", "O"], "B|AB" = ["B", "AB"] }
    "#;
    toml::from_str(spec).unwrap()
}

#[test]
fn blood_type_partitions_form_a_poset() {
    let h = blood()
        .build(&strings(&["A", "B", "O", "AB"]), "c.toml", "k")
        .unwrap();
    assert_eq!(h.levels(), 4);
    assert!(!h.is_chain());
    let names: Vec<String> = (0..4).map(|l| h.level_name(l)).collect();
    assert_eq!(names, ["values", "split_ab", "split_ao", "*"]);
    assert!(h.refines(0, 1) && h.refines(0, 2) && h.refines(1, 3) && h.refines(2, 3));
    assert!(!h.refines(1, 2) && !h.refines(2, 1));
    assert_eq!(h.successors(0), &[1, 2]);
    assert_eq!(h.successors(1), &[3]);
    assert_eq!(h.successors(2), &[3]);
    assert!(h.successors(3).is_empty());
    let a = h.leaf("A").unwrap();
    assert_eq!(h.label(1, h.code(1, a)), "A|B");
    assert_eq!(h.label(2, h.code(2, a)), "A|O");
    // a missing marker stays apart below the top
    let h = h.with_missing(&strings(&["?"])).unwrap();
    assert!(!h.is_chain());
    let q = h.leaf("?").unwrap();
    assert_eq!(h.group_size(1, h.code(1, q)), 1);
    assert_eq!(h.label(3, h.code(3, q)), "*");
}

#[test]
fn partitions_errors_name_the_key() {
    let err = blood()
        .build(
            &strings(&["A", "B", "O", "AB", "X"]),
            "c.toml",
            "attributes.b.hierarchy",
        )
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("attributes.b.hierarchy.partitions.split_ab"),
        "{err}"
    );
    assert!(err.contains("no group contains `X`"), "{err}");
    let same = r#"
        kind = "partitions"
        partitions.p = { "x" = ["A", "B"], "y" = ["O"] }
        partitions.q = { "u" = ["A", "B"], "v" = ["O"] }
    "#;
    let err = toml::from_str::<Builder>(same)
        .unwrap()
        .build(&strings(&["A", "B", "O"]), "c.toml", "k")
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with("c.toml: config key `k.partitions`: ")
            && err.contains("`p` and `q` group the values identically"),
        "{err}"
    );
    // nested partitions make a chain
    let nested = r#"
        kind = "partitions"
        partitions.p = { "x" = ["A", "B"], "y" = ["O"] }
    "#;
    let h = toml::from_str::<Builder>(nested)
        .unwrap()
        .build(&strings(&["A", "B", "O"]), "c.toml", "k")
        .unwrap();
    assert!(h.is_chain() && h.levels() == 3);
}

#[test]
fn rejects_non_coarsening_with_location() {
    let rows = vec![
        strings(&["a", "x", "*"]),
        strings(&["b", "x", "*"]),
        strings(&["c", "y", "*"]),
    ];
    assert!(Hierarchy::from_rows(&rows, Path::new("h.csv"), None).is_ok());
    let rows = vec![strings(&["a", "x", "p"]), strings(&["b", "x", "q"])];
    let err = Hierarchy::from_rows(&rows, Path::new("h.csv"), None)
        .unwrap_err()
        .to_string();
    assert!(err.starts_with("h.csv:2:3"), "{err}");
    assert!(err.contains("not a coarsening"), "{err}");
}

#[test]
fn rejects_ragged_and_conflicting_rows() {
    let rows = vec![strings(&["a", "x"]), strings(&["b"])];
    assert!(Hierarchy::from_rows(&rows, Path::new("h"), None)
        .unwrap_err()
        .to_string()
        .contains("h:2"));
    let rows = vec![strings(&["a", "x"]), strings(&["a", "y"])];
    assert!(Hierarchy::from_rows(&rows, Path::new("h"), None).is_err());
    let rows = vec![strings(&["a", "x"]), strings(&["a", "x"])];
    assert_eq!(
        Hierarchy::from_rows(&rows, Path::new("h"), None)
            .unwrap()
            .leaf_count(),
        1
    );
}

#[test]
fn intervals_follow_the_papers_height_example() {
    let b = Builder::Intervals {
        widths: vec![5.0, 10.0, 20.0],
    };
    let h = b
        .build(&strings(&["160", "167", "175"]), "c.toml", "h")
        .unwrap();
    assert_eq!(h.levels(), 5);
    let leaf = h.leaf("167").unwrap();
    assert_eq!(h.label(1, h.code(1, leaf)), "[165,170)");
    assert_eq!(h.label(2, h.code(2, leaf)), "[160,170)");
    assert_eq!(h.label(3, h.code(3, leaf)), "[160,180)");
    assert_eq!(h.label(4, h.code(4, leaf)), "*");
    let bad = Builder::Intervals {
        widths: vec![5.0, 7.0],
    };
    assert!(bad.build(&strings(&["1"]), "c.toml", "h").is_err());
    assert!(b.build(&strings(&["tall"]), "c.toml", "h").is_err());
}

#[test]
fn mask_and_date() {
    let h = Builder::Mask {}
        .build(&strings(&["24126", "24129"]), "c", "z")
        .unwrap();
    assert_eq!(h.levels(), 6);
    assert_eq!(h.label(3, h.code(3, 0)), "24***");
    assert_eq!(h.label(5, h.code(5, 1)), "*****");
    let h = Builder::Date {
        format: "%d/%m/%y".into(),
    }
    .build(&strings(&["24/09/56", "06/09/56"]), "c", "d")
    .unwrap();
    assert_eq!(h.levels(), 4);
    assert_eq!(h.label(1, h.code(1, 0)), "09/56");
    assert_eq!(h.cardinality(1), 1);
    assert_eq!(h.label(2, 0), "56");
    assert!(Builder::Date {
        format: "%d/%m/%y".into()
    }
    .build(&strings(&["31/13/56"]), "c", "d")
    .is_err());
}

#[test]
fn impossible_dates_are_refused() {
    let short = Builder::Date {
        format: "%d/%m/%y".into(),
    };
    let long = Builder::Date {
        format: "%d.%m.%Y".into(),
    };
    for ok in ["29/02/56", "29/02/00", "31/12/99", "1/1/70"] {
        assert_eq!(short.check_value(ok), Ok(()), "{ok}");
    }
    for bad in ["31/02/56", "29/02/57", "31/04/20", "00/01/20", "32/01/20"] {
        let err = short.check_value(bad).unwrap_err();
        assert!(err.contains("not a calendar date"), "{bad}: {err}");
        assert!(short.build(&strings(&[bad]), "c", "d").is_err(), "{bad}");
    }
    assert!(long.check_value("29.02.2000").is_ok());
    assert!(long.check_value("29.02.1900").is_err());
    assert!(long.check_value("01.01.99999").is_err());
    let err = short.check_value("someday").unwrap_err();
    assert!(
        err.contains("does not match the date format `%d/%m/%y`"),
        "{err}"
    );
    // labels are unchanged for valid dates
    let h = short
        .build(&strings(&["29/02/56", "01/03/56"]), "c", "d")
        .unwrap();
    assert_eq!(h.label(1, h.code(1, 0)), "02/56");
    assert_eq!(h.label(2, h.code(2, 1)), "56");
    assert_eq!(date_key("29/02/56", "%d/%m/%y"), Some(560229));
    assert_eq!(date_key("30/02/56", "%d/%m/%y"), None);
}

#[test]
fn groups_need_full_coverage() {
    let mut level = BTreeMap::new();
    level.insert("AB|O".to_string(), strings(&["AB", "O"]));
    level.insert("A|B".to_string(), strings(&["A", "B"]));
    let b = Builder::Groups {
        levels: vec![level],
    };
    let h = b
        .build(&strings(&["A", "B", "O", "AB"]), "c", "blood")
        .unwrap();
    assert_eq!(h.levels(), 3);
    assert_eq!(h.group_size(1, h.code(1, h.leaf("O").unwrap())), 2);
    let err = b
        .build(&strings(&["A", "X"]), "c", "blood")
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("blood.levels[0]") && err.contains("`X`"),
        "{err}"
    );
}

#[test]
fn missing_values_get_their_own_group_below_the_top() {
    let b = Builder::Intervals { widths: vec![10.0] };
    let h = b
        .build(&strings(&["12", "17"]), "c", "age")
        .unwrap()
        .with_missing(&strings(&["?"]))
        .unwrap();
    let m = h.leaf("?").unwrap();
    assert_eq!(h.label(1, h.code(1, m)), "?");
    assert_eq!(h.label(2, h.code(2, m)), "*");
    assert_eq!(h.group_size(1, h.code(1, m)), 1);
    assert_eq!(h.cardinality(2), 1);
}

/// A hierarchy file's rows and lines: read plainly when it is plain, always as the csv
/// crate reads them. The pieces include quotes, lone carriage returns, a byte-order mark,
/// blank lines and multi-byte UTF-8, so that both readers are asked.
#[test]
fn plain_hierarchy_files_read_as_the_csv_crate_reads_them() {
    use proptest::prelude::*;
    use proptest::test_runner::{Config, TestRunner};
    let pieces: [&[u8]; 12] = [
        b"a",
        b"bc",
        b";",
        b",",
        b"\n",
        b"\r\n",
        b"\r",
        b"\"",
        b" ",
        "é".as_bytes(),
        "\u{feff}".as_bytes(),
        b"\n\n",
    ];
    let plain = std::cell::Cell::new(0);
    let mut runner = TestRunner::new(Config {
        cases: 2000,
        ..Config::default()
    });
    runner
        .run(
            &(
                prop::collection::vec(0..pieces.len(), 0..40),
                prop::bool::ANY,
            ),
            |(picked, comma)| {
                let bytes: Vec<u8> = picked.iter().flat_map(|&i| pieces[i].to_vec()).collect();
                let delimiter = if comma { b',' } else { b';' };
                let general = general_rows(&bytes, Path::new("h.csv"), delimiter);
                if let Some(read) = plain_rows(&bytes, delimiter) {
                    plain.set(plain.get() + 1);
                    prop_assert_eq!(
                        Some(read),
                        general.ok(),
                        "{:?}",
                        String::from_utf8_lossy(&bytes)
                    );
                }
                Ok(())
            },
        )
        .unwrap();
    assert!(
        plain.get() > 200,
        "only {} of 2000 files were plain",
        plain.get()
    );
    // the bundled hierarchies are plain
    let dir = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/adult-uci");
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path
            .file_name()
            .unwrap()
            .to_str()
            .unwrap()
            .starts_with("adult_hierarchy_")
        {
            let bytes = std::fs::read(&path).unwrap();
            let read = plain_rows(&bytes, b';').expect("plain");
            assert_eq!(read, general_rows(&bytes, &path, b';').unwrap(), "{path:?}");
            assert!(!read.0.is_empty());
        }
    }
}
