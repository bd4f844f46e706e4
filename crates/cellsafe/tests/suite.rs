//! The library's integration tests, one module per file of this folder, in one test
//! binary: each file its own binary meant some thirty release links of the whole library
//! per build. Left out, each a binary of its own: `fuzz.rs` (it counts the process's
//! allocations with its own global allocator) and the three Spark files (one stops an
//! executor of the shared cluster, which the others must not meet mid-job; binaries run
//! one after another).

mod common;

mod anonymizer;
mod arrow_form;
mod arx_parity;
mod arx_presence;
mod arx_risk;
mod bad_input;
mod columnar;
mod database;
mod disclosure;
mod engines;
mod gatekeeper;
mod given;
mod granulation;
mod layers;
mod lgb;
mod local;
mod logic;
mod observer;
mod papers;
mod pareto;
mod presence;
mod properties;
mod release;
mod risk;
mod typed_errors;
mod weights;

/// With `autotests = false`, a new file of `tests/` is built only if it is named here or
/// in Cargo.toml: one left out would never run, and nothing would say so.
#[test]
fn every_test_file_is_built() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let suite = std::fs::read_to_string(root.join("tests/suite.rs")).unwrap();
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).unwrap();
    let mut missing = Vec::new();
    for entry in std::fs::read_dir(root.join("tests")).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        let Some(stem) = name.strip_suffix(".rs") else {
            continue;
        };
        let in_suite = suite.lines().any(|l| l == format!("mod {stem};"));
        let own_binary = manifest.contains(&format!("path = \"tests/{name}\""));
        if !in_suite && !own_binary {
            missing.push(name);
        }
    }
    assert!(
        missing.is_empty(),
        "tests/ files neither a module of tests/suite.rs nor a [[test]] of Cargo.toml: {missing:?}"
    );
}
