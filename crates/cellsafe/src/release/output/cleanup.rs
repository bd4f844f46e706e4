//! This process's pending files and the files of dead ones. The [`Registry`] records every
//! temporary and lock file a live transaction would leave behind, so [`interrupted`] (the
//! signal handler's call) can remove them; [`remove_stale`] removes those of killed
//! processes, recognized by name, age, lock and emptiness.

use std::fs::{self, File};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::SystemTime;

use super::paths::{is_protected, still_named};
#[cfg(doc)]
use super::{check_paths, create_temp, Transaction};
use super::{LOCK_SUFFIX, STALE_AFTER, TEMP_PREFIX, TEMP_RANDOM_LEN, TEMP_SUFFIX};
use crate::error::{Error, Result};

/// Every temporary and lock file this process would have to remove if interrupted, and
/// whether it was. Its mutex is also the commit mutex: a commit renames under it, so an
/// interrupt waits for a commit in progress, and after an interrupt no commit starts.
/// Files are created and registered, and unregistered and removed, under the mutex, so
/// an interrupt never misses one and a path is never removed twice (it could by then name
/// another process's file).
pub(super) struct Registry {
    state: Mutex<State>,
}

pub(super) struct State {
    pending: Vec<PathBuf>,
    stopped: bool,
}

pub(super) static REGISTRY: Registry = Registry::new();

impl Registry {
    pub(super) const fn new() -> Self {
        Registry {
            state: Mutex::new(State {
                pending: Vec::new(),
                stopped: false,
            }),
        }
    }

    /// The state; a panic elsewhere while it was held does not stop the clean-up.
    pub(super) fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Removes every pending file and stops all later work; returns how many were removed.
    pub(super) fn interrupt(&self) -> usize {
        let mut state = self.lock();
        state.stopped = true;
        let mut removed = 0;
        // Newest first: temporary files before the locks that guard their targets.
        while let Some(path) = state.pending.pop() {
            if fs::remove_file(&path).is_ok() {
                removed += 1;
            }
        }
        removed
    }
}

impl State {
    pub(super) fn check(&self) -> Result<()> {
        if self.stopped {
            return Err(Error::Interrupted);
        }
        Ok(())
    }

    pub(super) fn add(&mut self, path: PathBuf) {
        self.pending.push(path);
    }

    /// Unregisters `path`; false if it was not registered (already removed or committed).
    pub(super) fn forget(&mut self, path: &Path) -> bool {
        match self.pending.iter().position(|p| p == path) {
            Some(i) => {
                self.pending.swap_remove(i);
                true
            }
            None => false,
        }
    }

    /// Unregisters and removes `path` if it is registered.
    pub(super) fn remove(&mut self, path: &Path) {
        if self.forget(path) {
            let _ = fs::remove_file(path);
        }
    }
}

/// For a signal handler: waits for a commit in progress to finish, then removes the
/// staged-but-uncommitted temporary files and the lock files of every live transaction in
/// this process. Every later [`Transaction::begin`], [`Transaction::stage`] and
/// [`Transaction::commit`] fails with [`Error::Interrupted`]. The process must exit after
/// calling it (the CLI exits with 130).
pub fn interrupted() {
    REGISTRY.interrupt();
}

// ---------------------------------------------------------------------------------------
// Stale files
// ---------------------------------------------------------------------------------------

/// Removes from `dir` the files this module creates that dead processes left behind, and
/// nothing else: temporary files named exactly `.cellsafe-<pid>-<random>.tmp` (the pid in
/// digits, the random part `TEMP_RANDOM_LEN` ASCII letters or digits) and empty lock
/// files named `.<name>.cellsafe-lock`; of those, only regular files whose exclusive lock
/// can be taken, that were last modified more than `STALE_AFTER` ago and that were not
/// given to [`check_paths`] in this process (an input or output of the current run is
/// never removed, whatever its name). Returns how many it removed; files it cannot read or
/// lock are kept.
pub fn remove_stale(dir: &Path) -> usize {
    remove_stale_except(dir, &[])
}

/// [`remove_stale`], also keeping the files at `keep` (canonical paths).
pub(super) fn remove_stale_except(dir: &Path, keep: &[&Path]) -> usize {
    let Ok(entries) = fs::read_dir(dir) else {
        return 0;
    };
    let now = SystemTime::now();
    let mut removed = 0;
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(kind) = name.to_str().and_then(Leftover::of) else {
            continue;
        };
        let path = entry.path();
        if !keep.contains(&path.as_path()) && remove_if_stale(&path, kind, now) {
            removed += 1;
        }
    }
    removed
}

/// What a file left behind by this module is, judged by its name.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Leftover {
    Temp,
    Lock,
}

impl Leftover {
    /// `Temp` for `.cellsafe-<digits>-<random>.tmp` as [`create_temp`] names them, `Lock`
    /// for `.<name>.cellsafe-lock`, else `None`.
    pub(super) fn of(name: &str) -> Option<Leftover> {
        if let Some(middle) = name
            .strip_prefix(TEMP_PREFIX)
            .and_then(|rest| rest.strip_suffix(TEMP_SUFFIX))
        {
            let (pid, random) = middle.split_once('-')?;
            let ours = (1..=10).contains(&pid.len())
                && pid.bytes().all(|b| b.is_ascii_digit())
                && random.len() == TEMP_RANDOM_LEN
                && random.bytes().all(|b| b.is_ascii_alphanumeric());
            return ours.then_some(Leftover::Temp);
        }
        let target = name.strip_prefix('.')?.strip_suffix(LOCK_SUFFIX)?;
        (!target.is_empty()).then_some(Leftover::Lock)
    }
}

fn remove_if_stale(path: &Path, kind: Leftover, now: SystemTime) -> bool {
    // Judged by name, type and age before it is locked: a young file is never locked here,
    // so a run starting beside the cleaner never finds its lock held by it.
    match fs::symlink_metadata(path) {
        Ok(m) if m.is_file() && old_enough(&m, now) && !is_protected(path, &m) => {}
        _ => return false,
    }
    let Ok(file) = File::open(path) else {
        return false;
    };
    super::count_lock_try();
    if file.try_lock().is_err() {
        return false; // a live process holds it, or locks do not work here
    }
    let Ok(metadata) = file.metadata() else {
        return false;
    };
    // This module never writes into a lock file.
    if kind == Leftover::Lock && metadata.len() != 0 {
        return false;
    }
    // Unlink while holding the lock: whoever locks the old inode next sees it unnamed.
    old_enough(&metadata, now) && still_named(path, &file) && fs::remove_file(path).is_ok()
}

/// Last modified more than `STALE_AFTER` before `now`.
fn old_enough(metadata: &fs::Metadata, now: SystemTime) -> bool {
    metadata
        .modified()
        .ok()
        .and_then(|modified| now.duration_since(modified).ok())
        .is_some_and(|age| age > STALE_AFTER)
}
