//! What the tests of every cellsafe crate share (a dev-dependency only).
//!
//! A test that needs something the machine lacks (a PostgreSQL server, Chromium, ARX's
//! jar, a cargo feature) must not pass as if it had run. It calls [`skipped`], which says
//! so on stderr and appends the reason to the file named by `CELLSAFE_SKIPS`;
//! `./scripts/test` sets that variable and ends the run with the list, so a summary never
//! counts a skipped part as tested.
//!
//! It also holds the Adult quasi-identifiers the tests of several crates name.

use std::io::Write;

/// The environment variable naming the file that collects the reasons of skipped tests.
pub const SKIPS_VAR: &str = "CELLSAFE_SKIPS";

/// Record that `what` was not tested: a `SKIPPED:` line on stderr, and a line in the file
/// `CELLSAFE_SKIPS` names, when it is set.
pub fn skipped(what: &str) {
    eprintln!("SKIPPED: {what}");
    if let Some(path) = std::env::var_os(SKIPS_VAR) {
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path);
        if let Ok(mut file) = file {
            // one write per line, so that tests running at once do not interleave
            let _ = file.write_all(format!("{}\n", what.replace('\n', " ")).as_bytes());
        }
    }
}

/// Adult's eight quasi-identifiers, in the order the bundled jobs name them (each has
/// `examples/adult/adult_hierarchy_NAME.csv`).
pub const ADULT_QIS: [&str; 8] = [
    "sex",
    "age",
    "race",
    "marital-status",
    "education",
    "native-country",
    "workclass",
    "salary-class",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_skip_is_appended_to_the_named_file() {
        let dir = std::env::temp_dir().join(format!("cellsafe-testkit-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("skips");
        // the variable is read per call; this test is the crate's only one that sets it,
        // and it puts back the value a test run gave it
        let before = std::env::var_os(SKIPS_VAR);
        std::env::set_var(SKIPS_VAR, &file);
        skipped("one\nthing");
        skipped("another");
        match before {
            Some(value) => std::env::set_var(SKIPS_VAR, value),
            None => std::env::remove_var(SKIPS_VAR),
        }
        let text = std::fs::read_to_string(&file).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(text, "one thing\nanother\n");
    }
}
