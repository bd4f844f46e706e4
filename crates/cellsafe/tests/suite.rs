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
