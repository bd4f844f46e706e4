//! The Adult data of `examples/adult`, compiled into the crate so the benchmarks run from
//! anywhere. (The `cellsafe demo` command bundles the same files for its own use.)

use std::io::Write;
use std::path::Path;

use anyhow::{Context, Result};
use cellsafe::data::table::{CsvFormat, Table};
use cellsafe::job::config::Config;

macro_rules! adult_file {
    ($name:literal) => {
        (
            $name,
            include_bytes!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/../../examples/adult/",
                $name
            ))
            .as_slice(),
        )
    };
}

/// The files of `examples/adult`: the data, its job description (k = 5, 1% suppression,
/// Loss) and the hierarchies.
pub const FILES: &[(&str, &[u8])] = &[
    adult_file!("adult.csv"),
    adult_file!("adult.toml"),
    adult_file!("adult_hierarchy_age.csv"),
    adult_file!("adult_hierarchy_education.csv"),
    adult_file!("adult_hierarchy_marital-status.csv"),
    adult_file!("adult_hierarchy_native-country.csv"),
    adult_file!("adult_hierarchy_occupation.csv"),
    adult_file!("adult_hierarchy_race.csv"),
    adult_file!("adult_hierarchy_salary-class.csv"),
    adult_file!("adult_hierarchy_sex.csv"),
    adult_file!("adult_hierarchy_workclass.csv"),
];

/// The bytes of `adult.csv` (`;`-separated, with a header).
pub fn csv_bytes() -> &'static [u8] {
    FILES[0].1
}

/// The job description of the logical-safety benchmarks (`examples/adult/adult-safety.toml`).
pub const SAFETY_TOML: &str = include_str!("../../../examples/adult/adult-safety.toml");

/// Writes the Adult files into `dir` (created if missing) as new files; one already there
/// is an error and is not replaced.
pub fn unpack(dir: &Path) -> Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    for (name, bytes) in FILES {
        let path = dir.join(name);
        std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
            .and_then(|mut file| file.write_all(bytes))
            .with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(())
}

/// The Adult files unpacked into a new temporary directory (removed when the returned
/// guard drops) and the job description read from there.
pub fn config() -> Result<(tempfile::TempDir, Config)> {
    let dir = tempfile::Builder::new()
        .prefix("cellsafe-bench-")
        .tempdir()?;
    unpack(dir.path())?;
    let config = Config::from_file(&dir.path().join("adult.toml"))?;
    Ok((dir, config))
}

/// The Adult table, parsed and dictionary-encoded from the bundled bytes.
pub fn table() -> Result<Table> {
    let format = CsvFormat {
        delimiter: b';',
        ..CsvFormat::default()
    };
    Ok(Table::from_reader(
        csv_bytes(),
        Path::new("adult.csv"),
        &format,
    )?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bundled_files_load() {
        let t = table().unwrap();
        assert_eq!(t.rows(), 30_162);
        let (_dir, config) = config().unwrap();
        assert_eq!(config.problem().unwrap().data.rows(), 30_162);
        Config::parse(SAFETY_TOML, Path::new("adult-safety.toml")).unwrap();
    }

    #[test]
    fn unpack_refuses_existing_files() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("adult.csv"), "mine").unwrap();
        assert!(unpack(dir.path()).is_err());
        assert_eq!(
            std::fs::read_to_string(dir.path().join("adult.csv")).unwrap(),
            "mine"
        );
    }
}
