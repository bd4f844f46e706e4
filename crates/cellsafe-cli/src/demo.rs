//! The bundled Adult data, compiled into the binary so `cellsafe demo` works anywhere.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result};
use cellsafe::table::{CsvFormat, Table};

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

/// The files of `examples/adult`.
pub const ADULT: &[(&str, &[u8])] = &[
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

/// Writes the Adult files into `dir`.
pub fn unpack(dir: &Path) -> Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    for (name, bytes) in ADULT {
        let path = dir.join(name);
        std::fs::write(&path, bytes).with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(())
}

/// The Adult table, parsed from the bundled bytes.
pub fn adult_table() -> Result<Table> {
    let format = CsvFormat {
        delimiter: b';',
        ..CsvFormat::default()
    };
    Ok(Table::from_reader(
        ADULT[0].1,
        Path::new("adult.csv"),
        &format,
    )?)
}

pub fn run(
    dir: Option<PathBuf>,
    progress: Option<&dyn cellsafe::progress::Progress>,
) -> Result<ExitCode> {
    let dir = match dir {
        Some(d) => d,
        None => tempfile::Builder::new()
            .prefix("cellsafe-demo-")
            .tempdir()?
            .keep(),
    };
    unpack(&dir)?;
    let config = dir.join("adult.toml");
    let output = dir.join("adult.anonymized.csv");
    let report = dir.join("report.json");
    let code = crate::anonymize(
        &config,
        Some(output.clone()),
        Some(report.clone()),
        None,
        progress,
    )?;
    outln!("demo: Adult (30,162 rows), k = 5, at most 1% suppressed, Loss metric");
    outln!("released table: {}", output.display());
    outln!("report:         {}", report.display());
    Ok(code)
}
