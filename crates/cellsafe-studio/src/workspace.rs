//! The studio's working directory and the table loaded into it.
//!
//! Uploaded files (the table, ARX hierarchy files) are kept in `files/` under their own
//! names (made safe: no directory part), so that the job's TOML can name them relative
//! to itself: the export names them the same way, to be saved beside the files the user
//! uploaded. A table named by its path on this machine is named by that absolute path.
//! Each run writes its release and report into a directory of its own under `runs/`.
//! Everything is removed when the studio stops.
//!
//! A table is read through the job layer (`Config::read` on a job of its `[input]` keys
//! alone), as a run reads it; its profile says each column's kind, distinct values and
//! most common values.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use cellsafe::data::table::Table;
use cellsafe::job::config::Config;
use serde::Serialize;

/// Most common values shown per column.
pub const TOP_VALUES: usize = 8;

/// The name a job's TOML has inside the studio (never written: paths resolve against its
/// directory).
pub const JOB_FILE: &str = "studio.toml";

/// The studio's directory, removed when dropped.
pub struct Workspace {
    dir: tempfile::TempDir,
}

/// A table loaded into the studio.
pub struct Loaded {
    /// The `[input]` keys that read it (`path` relative to `files/` for an upload).
    pub input: toml::Table,
    /// The table.
    pub table: Arc<Table>,
    /// What the page shows of it.
    pub profile: Profile,
}

/// What the page shows of a loaded table.
#[derive(Debug, Clone, Serialize)]
pub struct Profile {
    /// The name shown: the upload's name, or the path.
    pub name: String,
    /// `csv`, `parquet` or `arrow`.
    pub format: String,
    /// The CSV delimiter (empty for other formats).
    pub delimiter: String,
    /// Data rows.
    pub rows: usize,
    /// The columns.
    pub columns: Vec<Column>,
}

/// One column of a [`Profile`].
#[derive(Debug, Clone, Serialize)]
pub struct Column {
    /// Its name.
    pub name: String,
    /// `integer`, `decimal` or `text`, from its values.
    pub kind: &'static str,
    /// The type a typed source declared.
    pub declared: Option<String>,
    /// Distinct values.
    pub distinct: usize,
    /// The most common values with their rows.
    pub top: Vec<(String, u64)>,
}

impl Workspace {
    /// A new directory with `files/` and `runs/`.
    /// Only its owner may enter it (mode 0700 on Unix): it holds the uploaded data.
    pub fn new() -> std::io::Result<Workspace> {
        let mut builder = tempfile::Builder::new();
        builder.prefix("cellsafe-studio-");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            builder.permissions(std::fs::Permissions::from_mode(0o700));
        }
        let dir = builder.tempdir()?;
        for sub in ["files", "runs"] {
            private_dir(&dir.path().join(sub))?;
        }
        Ok(Workspace { dir })
    }

    /// The workspace's own directory.
    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Where uploads are kept, and relative paths of a job resolve.
    pub fn files(&self) -> PathBuf {
        self.dir.path().join("files")
    }

    /// The path a job's TOML has here (see [`JOB_FILE`]).
    pub fn job_path(&self) -> PathBuf {
        self.files().join(JOB_FILE)
    }

    /// A new empty directory for run number `n`.
    pub fn run_dir(&self, n: u64) -> std::io::Result<PathBuf> {
        let dir = self.dir.path().join("runs").join(n.to_string());
        private_dir(&dir)?;
        Ok(dir)
    }
}

/// A new directory only its owner may enter (mode 0700 on Unix).
fn private_dir(path: &Path) -> std::io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(path)
}

/// Whether `path` is a regular file (or a link to one): what the studio reads. A FIFO
/// would block a reader until something writes to it; a device never ends.
pub fn regular(path: &Path) -> std::io::Result<()> {
    if std::fs::metadata(path)?.is_file() {
        Ok(())
    } else {
        Err(std::io::Error::other(
            "not a regular file: the studio reads regular files only",
        ))
    }
}

/// `name` as a file name of `files/`: its last path component, characters other than
/// letters, digits, `.`, `-` and `_` replaced by `_`, at most 100 characters; None for a
/// name that is empty, hidden or the job's own.
pub fn safe_name(name: &str) -> Option<String> {
    let base = name.rsplit(['/', '\\']).next().unwrap_or("");
    let safe: String = base
        .chars()
        .take(100)
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_') {
                c
            } else {
                '_'
            }
        })
        .collect();
    (!safe.is_empty() && !safe.starts_with('.') && safe != JOB_FILE).then_some(safe)
}

/// The delimiter of the CSV file at `path` that its first line suggests: the most frequent
/// of `,`, `;`, tab and `|` outside quotes (`,` when none occurs, or when `path` is not a
/// regular file).
pub fn sniff_delimiter(path: &Path) -> std::io::Result<char> {
    // only a regular file is read here: a FIFO would be consumed, a device never ends
    if !std::fs::metadata(path)?.is_file() {
        return Ok(',');
    }
    let mut head = Vec::new();
    std::fs::File::open(path)?
        .take(64 * 1024)
        .read_to_end(&mut head)?;
    let line = head.split(|&b| b == b'\n').next().unwrap_or(&[]);
    let mut quoted = false;
    let mut counts = [0usize; 4];
    let candidates = [b',', b';', b'\t', b'|'];
    for &b in line {
        if b == b'"' {
            quoted = !quoted;
        } else if !quoted {
            if let Some(i) = candidates.iter().position(|&c| c == b) {
                counts[i] += 1;
            }
        }
    }
    let best = (0..4)
        .max_by_key(|&i| (counts[i], std::cmp::Reverse(i)))
        .unwrap();
    Ok(if counts[best] == 0 {
        ','
    } else {
        candidates[best] as char
    })
}

/// Reads the table `input` names, as a job with those `[input]` keys would, with `files`
/// as the job's directory. Errors name the key or the file, line and column.
pub fn load(
    files: &Path,
    input: toml::Table,
    name: String,
    observer: &dyn cellsafe::observer::Observer,
) -> cellsafe::Result<Loaded> {
    let mut job = toml::Table::new();
    job.insert("input".into(), toml::Value::Table(input.clone()));
    job.insert("attributes".into(), toml::Value::Table(toml::Table::new()));
    let text = toml::to_string(&job).expect("a table of strings prints");
    let config = Config::parse(&text, &files.join(JOB_FILE))?;
    let (table, _) = config.read(observer)?;
    let missing: Vec<String> = input
        .get("missing")
        .and_then(|m| m.as_array())
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default();
    let format = config.input_format()?;
    let profile = Profile {
        name,
        format: match format {
            cellsafe::data::table::Format::Csv => "csv",
            cellsafe::data::table::Format::Parquet => "parquet",
            _ => "arrow",
        }
        .to_owned(),
        delimiter: if format == cellsafe::data::table::Format::Csv {
            input
                .get("delimiter")
                .and_then(|d| d.as_str())
                .unwrap_or(",")
                .to_owned()
        } else {
            String::new()
        },
        rows: table.rows(),
        columns: table
            .profile(TOP_VALUES, &missing)
            .into_iter()
            .map(|c| Column {
                name: c.name,
                kind: c.kind.name(),
                declared: c.declared,
                distinct: c.distinct,
                top: c.top,
            })
            .collect(),
    };
    Ok(Loaded {
        input,
        table: Arc::new(table),
        profile,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn the_workspace_is_its_owners_alone() {
        use std::os::unix::fs::PermissionsExt;
        let w = Workspace::new().unwrap();
        for p in [w.path().to_owned(), w.files(), w.run_dir(1).unwrap()] {
            let mode = std::fs::metadata(&p).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o700, "{}", p.display());
        }
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        assert!(std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success());
        assert!(regular(&fifo).is_err());
        assert!(regular(dir.path()).is_err());
        std::fs::write(dir.path().join("f"), "x").unwrap();
        regular(&dir.path().join("f")).unwrap();
    }

    #[test]
    fn names_are_made_safe() {
        assert_eq!(safe_name("adult.csv").as_deref(), Some("adult.csv"));
        assert_eq!(safe_name("../../etc/passwd").as_deref(), Some("passwd"));
        assert_eq!(
            safe_name("C:\\x\\my data.csv").as_deref(),
            Some("my_data.csv")
        );
        assert_eq!(safe_name(".hidden"), None);
        assert_eq!(safe_name("dir/"), None);
        assert_eq!(safe_name(JOB_FILE), None);
    }

    #[test]
    fn the_delimiter_is_the_most_frequent_outside_quotes() {
        let dir = tempfile::tempdir().unwrap();
        for (text, want) in [
            ("a;b;c\n1;2;3\n", ';'),
            ("\"x;y;z\",b\n", ','),
            ("a\tb\n", '\t'),
            ("one\n", ','),
        ] {
            let p = dir.path().join("t.csv");
            std::fs::write(&p, text).unwrap();
            assert_eq!(sniff_delimiter(&p).unwrap(), want, "{text}");
        }
    }
}
