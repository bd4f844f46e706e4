//! What the CLI's integration tests share: the service started on a free port, and the
//! record of a part not tested.
#![allow(dead_code)]

#[allow(dead_code)]
pub mod browser;
#[allow(dead_code)]
pub mod center;

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};

/// Starts `cellsafe serve DIR/center.toml` on a free port: the child and its address, read
/// from the line it prints once it listens (its other output is drained).
pub fn serve(dir: &Path) -> (Child, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_cellsafe"))
        .arg("serve")
        .arg(dir.join("center.toml"))
        .args(["--listen", "127.0.0.1:0"])
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let addr = loop {
        let line = lines
            .next()
            .expect("the service printed its address")
            .unwrap();
        if let Some(a) = line.strip_prefix("cellsafe: listening on http://") {
            break a.to_string();
        }
        assert!(!line.starts_with("error"), "{line}");
    };
    std::thread::spawn(move || lines.for_each(drop));
    (child, addr)
}

// how a test says that it did not run, and why (`scripts/test` lists them at the end)
#[allow(unused_imports)] // not every test file skips
pub use cellsafe_testkit::skipped;

/// Adult's eight quasi-identifiers (see `cellsafe_testkit::ADULT_QIS`).
#[allow(unused_imports)] // not every test file uses Adult
pub use cellsafe_testkit::ADULT_QIS;
