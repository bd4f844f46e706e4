//! Outputs checked against inputs: [`check_paths`] refuses an output that is the same file
//! as an input, another output or an output's lock file, however the paths are spelled
//! (canonical paths, and (device, inode) where files exist). The paths it is given are
//! remembered as protected, so the stale-file cleaner never removes one of them.

use std::ffi::{OsStr, OsString};
use std::fs::{self, File};
use std::path::{Component, Path, PathBuf};
use std::sync::{Mutex, PoisonError};

use super::LOCK_SUFFIX;
#[cfg(doc)]
use super::{remove_stale, Transaction};
use crate::error::{Error, Result};

/// Refuses (with [`Error::NotRegularOutput`]) any output that exists and is not a regular
/// file (a device, a FIFO, a socket, a directory; through symlinks), then (with
/// [`Error::PathClash`]) any output that is the same file as an input or as
/// an earlier output, and any input or output that is the lock file of an output (a run
/// creates that file and removes it when it ends). Each entry is (what, path) as the user
/// gave it, e.g. `("--output", path)` or `("hierarchy for age", path)`; the error names
/// both sides so. Call it before any work.
///
/// Every path given is also remembered for the life of the process: [`remove_stale`] never
/// removes one of them, whatever its name.
pub fn check_paths(inputs: &[(String, PathBuf)], outputs: &[(String, PathBuf)]) -> Result<()> {
    for (what, path) in outputs {
        check_regular(what, path)?;
    }
    let inputs: Vec<Resolved> = inputs.iter().map(Resolved::new).collect();
    let outputs: Vec<Resolved> = outputs.iter().map(Resolved::new).collect();
    protect(inputs.iter().chain(&outputs));
    for (i, output) in outputs.iter().enumerate() {
        let other = inputs
            .iter()
            .chain(&outputs[..i])
            .find(|other| output.same_file(other));
        if let Some(other) = other {
            return Err(clash(output, other));
        }
    }
    // "the lock file of the released table out.csv, .out.csv.cellsafe-lock"
    let locks: Vec<(String, PathBuf)> = outputs
        .iter()
        .filter_map(|output| {
            let what = format!(
                "the lock file of {} {},",
                output.what,
                output.path.display()
            );
            Some((what, lock_path(output.path)?))
        })
        .collect();
    for entry in &locks {
        let lock = Resolved::new(entry);
        if let Some(input) = inputs.iter().find(|input| lock.same_file(input)) {
            return Err(clash(&lock, input));
        }
        if let Some(output) = outputs.iter().find(|output| lock.same_file(output)) {
            return Err(clash(output, &lock));
        }
    }
    Ok(())
}

/// Refuses (with [`Error::NotRegularOutput`]) an existing `path` that is not a regular
/// file, through symlinks: a device, a FIFO, a socket or a directory would be replaced by
/// the rename that commits the output. A path that does not exist yet is fine.
pub(super) fn check_regular(what: &str, path: &Path) -> Result<()> {
    match fs::metadata(path) {
        Ok(m) if !m.is_file() => Err(Error::NotRegularOutput {
            what: what.to_owned(),
            path: path.to_owned(),
            kind: crate::input::describe(&m.file_type()),
        }),
        _ => Ok(()),
    }
}

fn clash(output: &Resolved, other: &Resolved) -> Error {
    Error::PathClash {
        output_what: output.what.to_owned(),
        output: output.path.to_owned(),
        input_what: other.what.to_owned(),
        input: other.path.to_owned(),
    }
}

/// The lock file [`Transaction::begin`] creates for `target`: `.<name>.cellsafe-lock` in
/// its directory. `None` if `target` does not end in a file name.
fn lock_path(target: &Path) -> Option<PathBuf> {
    Some(target.with_file_name(lock_name(target.file_name()?)))
}

pub(super) fn lock_name(target_name: &OsStr) -> OsString {
    let mut name = OsString::from(".");
    name.push(target_name);
    name.push(LOCK_SUFFIX);
    name
}

/// The canonical form of every path given to [`check_paths`] in this process.
static PROTECTED: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

fn protect<'a>(paths: impl Iterator<Item = &'a Resolved<'a>>) {
    let mut protected = PROTECTED.lock().unwrap_or_else(PoisonError::into_inner);
    for path in paths {
        if !protected.contains(&path.canonical) {
            protected.push(path.canonical.clone());
        }
    }
}

/// Whether the file at `path` (with `metadata`) is one given to [`check_paths`]: the same
/// path, or a hard link to the file that path names now.
pub(super) fn is_protected(path: &Path, metadata: &fs::Metadata) -> bool {
    let canonical = resolve(path);
    let id = file_id(metadata);
    PROTECTED
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .iter()
        .any(|p| {
            *p == canonical
                || (id.is_some() && fs::metadata(p).ok().and_then(|m| file_id(&m)) == id)
        })
}

/// A user path with what it resolves to.
struct Resolved<'a> {
    what: &'a str,
    path: &'a Path,
    canonical: PathBuf,
    id: Option<(u64, u64)>,
}

impl<'a> Resolved<'a> {
    fn new((what, path): &'a (String, PathBuf)) -> Self {
        Resolved {
            what,
            path,
            canonical: resolve(path),
            id: fs::metadata(path).ok().and_then(|m| file_id(&m)),
        }
    }

    fn same_file(&self, other: &Resolved) -> bool {
        self.canonical == other.canonical || (self.id.is_some() && self.id == other.id)
    }
}

/// The canonical form of `path`; for a file that does not exist yet, its nearest existing
/// ancestor canonicalized and the rest appended.
fn resolve(path: &Path) -> PathBuf {
    if let Ok(canonical) = fs::canonicalize(path) {
        return canonical;
    }
    match (path.parent(), path.file_name()) {
        (Some(parent), Some(name)) => {
            let parent = if parent.as_os_str().is_empty() {
                Path::new(".")
            } else {
                parent
            };
            resolve(parent).join(name)
        }
        // Ends in `..` (or is a root): normalize, then resolve what that names.
        _ => {
            let normal = lexical(path);
            if normal == path {
                normal
            } else {
                resolve(&normal)
            }
        }
    }
}

/// `path` made absolute and normalized without touching the file system.
fn lexical(path: &Path) -> PathBuf {
    let absolute = match std::env::current_dir() {
        Ok(cwd) if path.is_relative() => cwd.join(path),
        _ => path.to_owned(),
    };
    let mut out = PathBuf::new();
    for component in absolute.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

#[cfg(unix)]
fn file_id(metadata: &fs::Metadata) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    Some((metadata.dev(), metadata.ino()))
}

#[cfg(not(unix))]
fn file_id(_: &fs::Metadata) -> Option<(u64, u64)> {
    None
}

/// Whether `path` still names the file open as `file` (it was not unlinked or replaced).
/// Without file ids (not unix) this cannot be told and is assumed.
pub(super) fn still_named(path: &Path, file: &File) -> bool {
    match (fs::symlink_metadata(path), file.metadata()) {
        (Ok(a), Ok(b)) => match (file_id(&a), file_id(&b)) {
            (Some(a), Some(b)) => a == b,
            _ => true,
        },
        _ => false,
    }
}
