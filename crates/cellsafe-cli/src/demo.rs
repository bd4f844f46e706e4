//! The bundled Adult data, compiled into the binary so `cellsafe demo` works anywhere.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result};

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

/// Writes the Adult files into `dir` (created if missing) as new files: a file already
/// there under one of their names, or a symlink (even a dangling one), is an error and is
/// neither replaced nor written through.
pub fn unpack(dir: &Path) -> Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    for (name, bytes) in ADULT {
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

/// Creates `dir` if it is missing; whether it is empty (a new one is).
fn new_or_empty(dir: &Path) -> Result<bool> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let mut entries =
        std::fs::read_dir(dir).with_context(|| format!("reading {}", dir.display()))?;
    Ok(entries.next().is_none())
}

pub fn run(dir: Option<PathBuf>, observer: &dyn cellsafe::observer::Observer) -> Result<ExitCode> {
    let dir = match dir {
        Some(d) => {
            if !new_or_empty(&d)? {
                eprintln!(
                    "error: {} is not empty; `demo --dir` writes the Adult files, the released \
                     table and the report there and needs a new or empty directory",
                    d.display()
                );
                return Ok(ExitCode::from(crate::USAGE));
            }
            d
        }
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
        None,
        None,
        observer,
    )?;
    outln!("demo: Adult (30,162 rows), k = 5, at most 1% suppressed, Loss metric");
    outln!("released table: {}", output.display());
    outln!("report:         {}", report.display());
    Ok(code)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn demo_dir_must_be_new_or_empty() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        assert!(new_or_empty(d).unwrap());
        assert!(new_or_empty(&d.join("a/b")).unwrap());
        assert!(d.join("a/b").is_dir());
        std::fs::write(d.join("a/b/report.json"), "x").unwrap();
        assert!(!new_or_empty(&d.join("a/b")).unwrap());
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(d.join("nowhere"), d.join("a/dangling")).unwrap();
            std::fs::remove_dir_all(d.join("a/b")).unwrap();
            assert!(!new_or_empty(&d.join("a")).unwrap());
        }
    }

    #[cfg(unix)]
    #[test]
    fn unpack_never_writes_through_a_symlink() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::write(d.join("precious.csv"), "mine").unwrap();
        std::fs::create_dir(d.join("demo")).unwrap();
        std::os::unix::fs::symlink("../precious.csv", d.join("demo/adult.csv")).unwrap();
        let err = unpack(&d.join("demo")).unwrap_err();
        assert!(format!("{err:#}").contains("adult.csv"), "{err:#}");
        assert_eq!(
            std::fs::read_to_string(d.join("precious.csv")).unwrap(),
            "mine"
        );
        std::fs::remove_file(d.join("demo/adult.csv")).unwrap();
        unpack(&d.join("demo")).unwrap();
        assert_eq!(std::fs::read(d.join("demo/adult.csv")).unwrap(), ADULT[0].1);
    }
}
