//! Writing a release's files: all or nothing, and never over an input.
//!
//! A release is several files (the table, the report, a mapping). A recipient must never
//! get half a table, or a table next to the report of another run, and a run must never
//! destroy the data it reads. This module gives three guarantees:
//!
//! - **Inputs are never destroyed.** [`check_paths`] refuses, before any work, an output
//!   that is the same file as an input or as another output: the same path spelled
//!   differently (`./x`, `dir/../x`), a path through a symlinked directory, a symlink or a
//!   hard link. Paths are compared canonically and, where both files exist, by (device,
//!   inode).
//! - **Only regular files are written.** [`check_paths`] and [`Transaction::begin`] refuse
//!   an output that exists and is not a regular file — a device, a FIFO, a socket, a
//!   directory, or a symlink to one — with [`Error::NotRegularOutput`]: the commit's
//!   rename would replace it (as root, `/dev/null` itself), not write to it.
//! - **All or nothing.** A [`Transaction`] stages each file in full into a temporary file
//!   in its target's directory (buffered and flushed, its writeback to disk started) where
//!   the caller can audit it; [`Transaction::commit`] then fsyncs every staged file, renames
//!   each onto its target and fsyncs the directories. A run that fails, panics or is
//!   dropped before the commit leaves the targets untouched and no temporary files.
//! - **Nothing is readable by others before the commit.** A temporary file is readable
//!   and writable by its owner only (mode `0o600`) until the commit gives it the mode of
//!   any new file (`0o666` less the umask), so a file staged before its audit (as the
//!   table is, to overlap its writing to disk with the audit) is never seen by another
//!   user unless the release goes out.
//! - **One writer per output.** [`Transaction::begin`] takes an exclusive lock per target
//!   through a lock file next to it, so a second cellsafe run on the same output fails at
//!   once (without waiting) with [`Error::Busy`], naming the lock file, instead of
//!   interleaving its files with the first run's.
//!
//! Files this module creates (so a cleaner can recognize them):
//! temporary files `.cellsafe-<pid>-<random>.tmp` (the random part six ASCII letters or
//! digits), locked by their process while it lives, and empty lock files
//! `.<target name>.cellsafe-lock`. Both are removed when the transaction ends. Those of a
//! killed process are removed by a later [`Transaction::begin`] in the same directory
//! ([`remove_stale`]) once they are unlocked and older than 60 s; a file of another name or
//! shape, a lock file with content, and any input or output given to [`check_paths`] are
//! never removed. [`check_paths`] refuses an input or output that is an output's lock file.
//!
//! Interrupts: the CLI's signal handler calls [`interrupted`], which waits for a commit in
//! progress, removes the temporary and lock files of every live transaction of the process
//! and stops any later begin, stage or commit ([`Error::Interrupted`]). The process must
//! exit right after it.
//!
//! Limits: each rename is atomic, the set of them is not. The temporary files already sit
//! in the target directories and [`Transaction::begin`] refuses a target that is not a
//! regular file, so a rename rarely fails; if one does, the targets renamed before it keep
//! their new content and [`Error::Commit`] lists them. A target that is a symlink is
//! replaced by the new file, not written through (a symlink to a file that is not
//! regular is refused). Locks are advisory (`flock`): they
//! exclude other cellsafe runs, not other programs; on a file system without `flock` the
//! runs are not excluded.
//!
//! Layout, by concern: `paths.rs` checks outputs against inputs ([`check_paths`]) and
//! resolves paths for that; `cleanup.rs` keeps the registry of this process's pending
//! files (emptied by [`interrupted`]) and removes files dead processes left behind
//! ([`remove_stale`]); this file names the files and holds the [`Transaction`] that locks,
//! stages and commits; the unit tests are in `tests.rs`.
//!
//! ```no_run
//! # use std::path::PathBuf;
//! # use std::io::Write;
//! # fn main() -> cellsafe::Result<()> {
//! use cellsafe::release::output::{check_paths, Transaction};
//! let (data, out) = (PathBuf::from("data.csv"), PathBuf::from("out.csv"));
//! check_paths(&[("data file".into(), data)], &[("--output".into(), out.clone())])?;
//! let mut tx = Transaction::begin(&[out.clone()])?;
//! let staged = tx.stage(&out, |w| w.write_all(b"a,b\n"))?;
//! // ... audit `staged` ...
//! tx.commit()?;
//! # Ok(()) }
//! ```

mod cleanup;
mod paths;
#[cfg(test)]
mod tests;

use std::fs::{self, File, TryLockError};
use std::io::{self, BufWriter, ErrorKind, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::error::{Error, ReleaseError, Result};

pub use cleanup::{interrupted, remove_stale};
use cleanup::{remove_stale_except, Registry, State, REGISTRY};
pub use paths::check_paths;
use paths::{lock_name, still_named};

/// Temporary and lock files older than this, and unlocked, are left over by a dead process.
const STALE_AFTER: Duration = Duration::from_secs(60);

/// Number of random characters in a temporary file's name.
const TEMP_RANDOM_LEN: usize = 6;

const TEMP_PREFIX: &str = ".cellsafe-";
const TEMP_SUFFIX: &str = ".tmp";
const LOCK_SUFFIX: &str = ".cellsafe-lock";

/// How often a lock file unlinked between our open and our lock (by a cleaner or the
/// previous holder) is reopened. A lock that is held is never waited for.
const LOCK_REOPENS: u32 = 5;

/// A set of output files written all or nothing; see the module documentation.
///
/// Dropping it without [`commit`](Transaction::commit) removes every staged file and
/// leaves the targets as they were. Either way its lock files are removed at the end.
pub struct Transaction {
    registry: &'static Registry,
    targets: Vec<Target>,
}

struct Target {
    /// As the user gave it: every error names this.
    user: PathBuf,
    /// The canonical directory, where the lock, the temporary file and the target live.
    dir: PathBuf,
    /// `dir` joined with the target's file name.
    path: PathBuf,
    lock_path: PathBuf,
    /// Kept open (and so locked) until the transaction ends; `None` once removed.
    _lock: Option<File>,
    staged: Option<Staged>,
}

struct Staged {
    temp: PathBuf,
    /// Kept open and locked so a cleaner in another process knows the file is live.
    file: File,
    /// The permissions the commit gives the file (owner-only until then), when it was
    /// created owner-only.
    finished: Option<fs::Permissions>,
}

impl Transaction {
    /// Starts a transaction writing `targets` (duplicates are merged): removes stale files
    /// from their directories, then locks each target. Fails with [`Error::Busy`] if
    /// another live process (or another transaction in this one) writes one of them, and
    /// with an I/O error naming the target if its directory does not exist, and with
    /// [`Error::NotRegularOutput`] if the target exists and is not a regular file (a
    /// device, a FIFO, a directory...). Call [`check_paths`] first.
    pub fn begin(targets: &[PathBuf]) -> Result<Transaction> {
        Self::begin_in(&REGISTRY, targets)
    }

    fn begin_in(registry: &'static Registry, targets: &[PathBuf]) -> Result<Transaction> {
        registry.lock().check()?;
        let mut tx = Transaction {
            registry,
            targets: Vec::new(),
        };
        let mut planned: Vec<Target> = Vec::new();
        for user in targets {
            let target = Target::plan(user)?;
            if !planned.iter().any(|t| t.path == target.path) {
                planned.push(target);
            }
        }
        let mut cleaned: Vec<&Path> = Vec::new();
        let keep: Vec<&Path> = planned.iter().map(|t| t.path.as_path()).collect();
        for target in &planned {
            if !cleaned.contains(&target.dir.as_path()) {
                remove_stale_except(&target.dir, &keep);
                cleaned.push(&target.dir);
            }
        }
        for mut target in planned {
            let mut state = registry.lock();
            state.check()?;
            target._lock = Some(acquire(&mut state, &target.user, &target.lock_path)?);
            drop(state);
            // Registered: from here on, dropping `tx` removes the lock file again.
            tx.targets.push(target);
        }
        Ok(tx)
    }

    /// Writes a target's content into a new temporary file in its directory (buffered and
    /// flushed, its writeback started; the commit fsyncs it) and returns that file's path,
    /// so the caller can audit what will be released. `target` must be one given to
    /// [`begin`](Transaction::begin) and not staged yet. The temporary file is readable by
    /// its owner only; the final file gets mode `0o666` less the umask, like any new file.
    /// On error the temporary file is removed and the error names `target`.
    pub fn stage(
        &mut self,
        target: &Path,
        write: impl FnOnce(&mut (dyn Write + Send)) -> io::Result<()>,
    ) -> Result<PathBuf> {
        let resolved = Target::final_path(target).ok();
        let Some(index) = self
            .targets
            .iter()
            .position(|t| t.user == target || Some(&t.path) == resolved.as_ref())
        else {
            return Err(ReleaseError::NotATarget(target.to_owned()).into());
        };
        let t = &mut self.targets[index];
        if t.staged.is_some() {
            return Err(ReleaseError::AlreadyStaged(t.user.clone()).into());
        }
        let staged = {
            let mut state = self.registry.lock();
            state.check()?;
            let finished = ordinary_permissions();
            let (file, temp) =
                create_temp(&t.dir, finished.is_some()).map_err(|e| Error::io(&t.user, e))?;
            state.add(temp.clone());
            if let Err(e) = try_lock(&file) {
                state.remove(&temp);
                return Err(Error::io(&t.user, e));
            }
            // Recorded at once, so a panic in `write` still removes it (on drop).
            t.staged.insert(Staged {
                temp,
                file,
                finished,
            })
        };
        let written = (|| {
            let mut buffered = BufWriter::new(&staged.file);
            write(&mut buffered)?;
            buffered.flush()?;
            drop(buffered);
            start_writeback(&staged.file);
            Ok(())
        })();
        match written {
            Ok(()) => Ok(staged.temp.clone()),
            Err(e) => {
                if let Some(staged) = t.staged.take() {
                    self.registry.lock().remove(&staged.temp);
                }
                Err(Error::io(&t.user, e))
            }
        }
    }

    /// Gives every staged file its final mode and fsyncs it, then renames each onto its
    /// target, in the order the targets were given to [`begin`](Transaction::begin), then
    /// fsyncs their directories. Targets never staged are left alone. If a staged file
    /// cannot be finished, no target is touched and the error names that target; if a
    /// rename fails, the remaining staged files are removed and [`Error::Commit`] names the
    /// target (and any renamed before it).
    pub fn commit(mut self) -> Result<()> {
        // before any rename, so that a failure here leaves every target as it was
        for t in &self.targets {
            if let Some(staged) = &t.staged {
                let finished = match &staged.finished {
                    Some(p) => staged.file.set_permissions(p.clone()),
                    None => Ok(()),
                };
                finished
                    .and_then(|()| staged.file.sync_all())
                    .map_err(|e| Error::io(&t.user, e))?;
            }
        }
        let mut state = self.registry.lock();
        if let Err(e) = state.check() {
            drop(state);
            return Err(e);
        }
        let mut committed = Vec::new();
        for t in &mut self.targets {
            let Some(staged) = &t.staged else { continue };
            if let Err(cause) = fs::rename(&staged.temp, &t.path) {
                drop(state);
                // Dropping `self` removes the staged files not renamed yet.
                return Err(Error::Commit {
                    path: t.user.clone(),
                    cause,
                    committed,
                });
            }
            state.forget(&staged.temp);
            committed.push(t.user.clone());
        }
        drop(state);
        let mut synced: Vec<&Path> = Vec::new();
        for t in &self.targets {
            if t.staged.is_some() && !synced.contains(&t.dir.as_path()) {
                sync_dir(&t.dir).map_err(|e| Error::io(&t.user, e))?;
                synced.push(&t.dir);
            }
        }
        Ok(())
    }
}

impl Drop for Transaction {
    fn drop(&mut self) {
        let mut state = self.registry.lock();
        for t in &mut self.targets {
            if let Some(staged) = t.staged.take() {
                state.remove(&staged.temp); // a no-op once committed
            }
            // Unlinked while still locked; the lock goes with the file handle just after.
            state.remove(&t.lock_path);
            t._lock = None;
        }
    }
}

impl Target {
    fn plan(user: &Path) -> Result<Target> {
        let path = Self::final_path(user)?;
        let (Some(dir), Some(name)) = (path.parent(), path.file_name()) else {
            return Err(ReleaseError::NotAFile(user.to_owned()).into());
        };
        paths::check_regular("the output", user)?;
        Ok(Target {
            user: user.to_owned(),
            dir: dir.to_owned(),
            lock_path: dir.join(lock_name(name)),
            path,
            _lock: None,
            staged: None,
        })
    }

    /// The canonical directory of `user` joined with its file name.
    fn final_path(user: &Path) -> Result<PathBuf> {
        let Some(name) = user.file_name() else {
            return Err(ReleaseError::NotAFile(user.to_owned()).into());
        };
        let dir = match user.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        let dir = fs::canonicalize(dir).map_err(|e| Error::io(user, e))?;
        Ok(dir.join(name))
    }
}

/// Opens and locks the lock file of `user` at `lock_path`, registering it in `state`.
/// A lock another run holds fails at once with [`Error::Busy`]: a run holds it for its
/// whole length, and the cleaner locks only lock files old enough to be stale.
fn acquire(state: &mut State, user: &Path, lock_path: &Path) -> Result<File> {
    for _ in 0..LOCK_REOPENS {
        let file = open_lock(lock_path).map_err(|e| Error::io(user, e))?;
        match try_lock(&file) {
            Ok(()) if still_named(lock_path, &file) => {
                state.add(lock_path.to_owned());
                return Ok(file);
            }
            // Unlinked by a cleaner or the previous holder after we opened it: reopen.
            Ok(()) => {}
            Err(e) if e.kind() == ErrorKind::WouldBlock => break,
            Err(e) => return Err(Error::io(user, e)),
        }
    }
    Err(Error::Busy {
        path: user.to_owned(),
        lock: lock_path.to_owned(),
    })
}

fn open_lock(path: &Path) -> io::Result<File> {
    match fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)
    {
        // Another user's lock file in a shared directory: reading is enough to lock it.
        Err(e) if e.kind() == ErrorKind::PermissionDenied && path.exists() => File::open(path),
        other => other,
    }
}

#[cfg(test)]
thread_local! {
    /// Lock attempts of this thread (acquiring and cleaning), for the tests.
    pub(super) static LOCK_TRIES: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
}

/// Counts a lock attempt (tests only).
pub(super) fn count_lock_try() {
    #[cfg(test)]
    LOCK_TRIES.with(|t| t.set(t.get() + 1));
}

/// An exclusive lock on `file`, without waiting. A file system without locks counts as
/// locked (nothing else can do better there).
fn try_lock(file: &File) -> io::Result<()> {
    count_lock_try();
    match file.try_lock() {
        Ok(()) => Ok(()),
        Err(TryLockError::WouldBlock) => Err(ErrorKind::WouldBlock.into()),
        Err(TryLockError::Error(e)) if e.kind() == ErrorKind::Unsupported => Ok(()),
        Err(TryLockError::Error(e)) => Err(e),
    }
}

/// A new, empty temporary file in `dir`, kept on disk (this module removes it itself):
/// owner-only (tempfile's default, 0o600) when `private`, else with ordinary permissions
/// (0o666 less the umask).
fn create_temp(dir: &Path, private: bool) -> io::Result<(File, PathBuf)> {
    let prefix = format!("{TEMP_PREFIX}{}-", std::process::id());
    let mut builder = tempfile::Builder::new();
    builder
        .prefix(&prefix)
        .suffix(TEMP_SUFFIX)
        .rand_bytes(TEMP_RANDOM_LEN);
    #[cfg(unix)]
    if !private {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(fs::Permissions::from_mode(0o666));
    }
    #[cfg(not(unix))]
    let _ = private;
    let temp = builder.tempfile_in(dir).map_err(without_temp_path)?;
    temp.keep().map_err(|e| without_temp_path(e.error))
}

/// The permissions of a new file (0o666 less the process's umask), which a file staged
/// owner-only gets at the commit; None where the umask cannot be read without changing it
/// (it is read once, from `/proc/self/status`, on Linux 4.7 and later), and then files
/// are staged with these permissions from the start. Created owner-only, a staged file is
/// never open to others before the commit: one opened by another user while it was still
/// empty could be read through that descriptor after it was filled.
fn ordinary_permissions() -> Option<fs::Permissions> {
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::fs::PermissionsExt;
        static UMASK: std::sync::OnceLock<Option<u32>> = std::sync::OnceLock::new();
        let umask = *UMASK.get_or_init(|| {
            use std::io::Read;
            // the line is near the top (the second since Linux 4.7)
            let mut status = String::with_capacity(1024);
            File::open("/proc/self/status")
                .ok()?
                .take(1024)
                .read_to_string(&mut status)
                .ok()?;
            let value = status.lines().find_map(|l| l.strip_prefix("Umask:"))?;
            u32::from_str_radix(value.trim(), 8).ok()
        });
        umask.map(|u| fs::Permissions::from_mode(0o666 & !u))
    }
    #[cfg(not(target_os = "linux"))]
    None
}

/// Starts writing `file`'s dirty pages to disk without waiting, so that the fsync in
/// [`Transaction::commit`] finds them written or on their way (on the kit's 1.3 MB
/// release, an fsync 1.2 ms after the start took 0.11 ms against 0.66 ms without it). Only
/// a hint: the commit's fsync is what makes the file durable, so a failure is ignored.
fn start_writeback(file: &File) {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        // SAFETY: sync_file_range reads no memory of ours; the descriptor is open (it is
        // borrowed from `file` for the call), and a failure only returns an error code.
        unsafe {
            libc::sync_file_range(file.as_raw_fd(), 0, 0, libc::SYNC_FILE_RANGE_WRITE);
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = file;
}

/// tempfile's errors end in "at path <temporary file>"; the user never sees that name.
fn without_temp_path(e: io::Error) -> io::Error {
    let message = e.to_string();
    match message.rsplit_once(" at path ") {
        Some((cause, _)) => io::Error::new(e.kind(), cause.to_owned()),
        None => e,
    }
}

#[cfg(unix)]
fn sync_dir(dir: &Path) -> io::Result<()> {
    File::open(dir)?.sync_all()
}

#[cfg(not(unix))]
fn sync_dir(_: &Path) -> io::Result<()> {
    Ok(())
}
