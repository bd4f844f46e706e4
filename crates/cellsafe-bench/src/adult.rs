//! The Adult data of the repository's `examples/adult`, read in place: the benchmarks are
//! a tool of this repository and run from its checkout. (The `cellsafe demo` command
//! bundles these files into the CLI, which must run anywhere.)

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use cellsafe::data::table::{CsvFormat, Table};
use cellsafe::job::config::Config;

/// The folder `examples/adult` of this checkout.
pub fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/adult")
}

/// The bytes of `adult.csv` (`;`-separated, with a header).
pub fn csv_bytes() -> Result<Vec<u8>> {
    let path = dir().join("adult.csv");
    std::fs::read(&path).with_context(|| format!("reading {}", path.display()))
}

/// The job description of the logical-safety benchmarks (`adult-safety.toml`).
pub fn safety_config() -> Result<Config> {
    Ok(Config::from_file(&dir().join("adult-safety.toml"))?)
}

/// The job description `adult.toml` (k = 5, 1% suppression, Loss).
pub fn config() -> Result<Config> {
    Ok(Config::from_file(&dir().join("adult.toml"))?)
}

/// The Adult table, parsed and dictionary-encoded.
pub fn table() -> Result<Table> {
    let format = CsvFormat {
        delimiter: b';',
        ..CsvFormat::default()
    };
    Ok(Table::read_csv(&dir().join("adult.csv"), &format)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_examples_load() {
        assert_eq!(table().unwrap().rows(), 30_162);
        assert_eq!(config().unwrap().problem().unwrap().data.rows(), 30_162);
        safety_config().unwrap();
    }
}
