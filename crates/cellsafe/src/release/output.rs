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
//! - **All or nothing.** A [`Transaction`] stages each file in full into a temporary file
//!   in its target's directory (buffered, flushed, fsynced) where the caller can audit it;
//!   [`Transaction::commit`] then renames every staged file onto its target and fsyncs the
//!   directories. A run that fails, panics or is dropped before the commit leaves the
//!   targets untouched and no temporary files.
//! - **One writer per output.** [`Transaction::begin`] takes an exclusive lock per target
//!   through a lock file next to it, so a second cellsafe run on the same output fails at
//!   once with [`Error::Busy`] instead of interleaving its files with the first run's.
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
//! in the target directories and [`Transaction::begin`] refuses a target that is a
//! directory, so a rename rarely fails; if one does, the targets renamed before it keep
//! their new content and [`Error::Commit`] lists them. A target that is a symlink is
//! replaced by the new file, not written through. Locks are advisory (`flock`): they
//! exclude other cellsafe runs, not other programs; on a file system without `flock` the
//! runs are not excluded.
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

use std::ffi::{OsStr, OsString};
use std::fs::{self, File, TryLockError};
use std::io::{self, BufWriter, ErrorKind, Write};
use std::path::{Component, Path, PathBuf};
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::{Duration, SystemTime};

use crate::error::{Error, Result};

/// Temporary and lock files older than this, and unlocked, are left over by a dead process.
pub const STALE_AFTER: Duration = Duration::from_secs(60);

const TEMP_PREFIX: &str = ".cellsafe-";
const TEMP_SUFFIX: &str = ".tmp";
const LOCK_SUFFIX: &str = ".cellsafe-lock";

/// How often a lock that is held is tried again before giving up: a cleaner holds a stale
/// lock file's lock only for an instant, a live run holds it for the whole run.
const LOCK_ATTEMPTS: u32 = 5;
const LOCK_PAUSE: Duration = Duration::from_millis(20);

// ---------------------------------------------------------------------------------------
// Path clashes
// ---------------------------------------------------------------------------------------

/// Refuses (with [`Error::PathClash`]) any output that is the same file as an input or as
/// an earlier output, and any input or output that is the lock file of an output (a run
/// creates that file and removes it when it ends). Each entry is (what, path) as the user
/// gave it, e.g. `("--output", path)` or `("hierarchy for age", path)`; the error names
/// both sides so. Call it before any work.
///
/// Every path given is also remembered for the life of the process: [`remove_stale`] never
/// removes one of them, whatever its name.
pub fn check_paths(inputs: &[(String, PathBuf)], outputs: &[(String, PathBuf)]) -> Result<()> {
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

fn lock_name(target_name: &OsStr) -> OsString {
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
fn is_protected(path: &Path, metadata: &fs::Metadata) -> bool {
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
fn still_named(path: &Path, file: &File) -> bool {
    match (fs::symlink_metadata(path), file.metadata()) {
        (Ok(a), Ok(b)) => match (file_id(&a), file_id(&b)) {
            (Some(a), Some(b)) => a == b,
            _ => true,
        },
        _ => false,
    }
}

// ---------------------------------------------------------------------------------------
// The registry of this process's pending files
// ---------------------------------------------------------------------------------------

/// Every temporary and lock file this process would have to remove if interrupted, and
/// whether it was. Its mutex is also the commit mutex: a commit renames under it, so an
/// interrupt waits for a commit in progress, and after an interrupt no commit starts.
/// Files are created and registered, and unregistered and removed, under the mutex, so
/// an interrupt never misses one and a path is never removed twice (it could by then name
/// another process's file).
struct Registry {
    state: Mutex<State>,
}

struct State {
    pending: Vec<PathBuf>,
    stopped: bool,
}

static REGISTRY: Registry = Registry::new();

impl Registry {
    const fn new() -> Self {
        Registry {
            state: Mutex::new(State {
                pending: Vec::new(),
                stopped: false,
            }),
        }
    }

    /// The state; a panic elsewhere while it was held does not stop the clean-up.
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Removes every pending file and stops all later work; returns how many were removed.
    fn interrupt(&self) -> usize {
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
    fn check(&self) -> Result<()> {
        if self.stopped {
            return Err(Error::Interrupted);
        }
        Ok(())
    }

    fn add(&mut self, path: PathBuf) {
        self.pending.push(path);
    }

    /// Unregisters `path`; false if it was not registered (already removed or committed).
    fn forget(&mut self, path: &Path) -> bool {
        match self.pending.iter().position(|p| p == path) {
            Some(i) => {
                self.pending.swap_remove(i);
                true
            }
            None => false,
        }
    }

    /// Unregisters and removes `path` if it is registered.
    fn remove(&mut self, path: &Path) {
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
/// digits, the random part [`TEMP_RANDOM_LEN`] ASCII letters or digits) and empty lock
/// files named `.<name>.cellsafe-lock`; of those, only regular files whose exclusive lock
/// can be taken, that were last modified more than [`STALE_AFTER`] ago and that were not
/// given to [`check_paths`] in this process (an input or output of the current run is
/// never removed, whatever its name). Returns how many it removed; files it cannot read or
/// lock are kept.
pub fn remove_stale(dir: &Path) -> usize {
    remove_stale_except(dir, &[])
}

/// [`remove_stale`], also keeping the files at `keep` (canonical paths).
fn remove_stale_except(dir: &Path, keep: &[&Path]) -> usize {
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

/// Number of random characters in a temporary file's name.
pub const TEMP_RANDOM_LEN: usize = 6;

/// What a file left behind by this module is, judged by its name.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Leftover {
    Temp,
    Lock,
}

impl Leftover {
    /// `Temp` for `.cellsafe-<digits>-<random>.tmp` as [`create_temp`] names them, `Lock`
    /// for `.<name>.cellsafe-lock`, else `None`.
    fn of(name: &str) -> Option<Leftover> {
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
    match fs::symlink_metadata(path) {
        Ok(m) if m.is_file() && !is_protected(path, &m) => {}
        _ => return false,
    }
    let Ok(file) = File::open(path) else {
        return false;
    };
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
    let old = metadata
        .modified()
        .ok()
        .and_then(|modified| now.duration_since(modified).ok())
        .is_some_and(|age| age > STALE_AFTER);
    // Unlink while holding the lock: whoever locks the old inode next sees it unnamed.
    old && still_named(path, &file) && fs::remove_file(path).is_ok()
}

// ---------------------------------------------------------------------------------------
// Transactions
// ---------------------------------------------------------------------------------------

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
}

impl Transaction {
    /// Starts a transaction writing `targets` (duplicates are merged): removes stale files
    /// from their directories, then locks each target. Fails with [`Error::Busy`] if
    /// another live process (or another transaction in this one) writes one of them, and
    /// with an I/O error naming the target if its directory does not exist or the target
    /// is a directory. Call [`check_paths`] first.
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

    /// Writes a target's content into a new temporary file in its directory (buffered,
    /// flushed and fsynced) and returns that file's path, so the caller can audit what will
    /// be released. `target` must be one given to [`begin`](Transaction::begin) and not
    /// staged yet. The final file gets mode `0o666` less the umask, like any new file. On
    /// error the temporary file is removed and the error names `target`.
    pub fn stage(
        &mut self,
        target: &Path,
        write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
    ) -> Result<PathBuf> {
        let resolved = Target::final_path(target).ok();
        let Some(index) = self
            .targets
            .iter()
            .position(|t| t.user == target || Some(&t.path) == resolved.as_ref())
        else {
            return Err(Error::Invalid(format!(
                "{} was not given when the output transaction began",
                target.display()
            )));
        };
        let t = &mut self.targets[index];
        if t.staged.is_some() {
            return Err(Error::Invalid(format!(
                "{} is already staged for writing",
                t.user.display()
            )));
        }
        let staged = {
            let mut state = self.registry.lock();
            state.check()?;
            let (file, temp) = create_temp(&t.dir).map_err(|e| Error::io(&t.user, e))?;
            state.add(temp.clone());
            if let Err(e) = try_lock(&file) {
                state.remove(&temp);
                return Err(Error::io(&t.user, e));
            }
            // Recorded at once, so a panic in `write` still removes it (on drop).
            t.staged.insert(Staged { temp, file })
        };
        let written = (|| {
            let mut buffered = BufWriter::new(&staged.file);
            write(&mut buffered)?;
            buffered.flush()?;
            drop(buffered);
            staged.file.sync_all()
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

    /// Renames every staged file onto its target, in the order the targets were given to
    /// [`begin`](Transaction::begin), then fsyncs their directories. Targets never staged
    /// are left alone. If a rename fails, the remaining staged files are removed and
    /// [`Error::Commit`] names the target (and any renamed before it).
    pub fn commit(mut self) -> Result<()> {
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
            return Err(Error::Invalid(format!(
                "{} does not name a file",
                user.display()
            )));
        };
        if fs::metadata(&path).is_ok_and(|m| m.is_dir()) {
            return Err(Error::io(
                user,
                io::Error::new(ErrorKind::IsADirectory, "is a directory"),
            ));
        }
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
            return Err(Error::Invalid(format!(
                "{} does not name a file",
                user.display()
            )));
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
fn acquire(state: &mut State, user: &Path, lock_path: &Path) -> Result<File> {
    for attempt in 1..=LOCK_ATTEMPTS {
        let file = open_lock(lock_path).map_err(|e| Error::io(user, e))?;
        match try_lock(&file) {
            Ok(()) if still_named(lock_path, &file) => {
                state.add(lock_path.to_owned());
                return Ok(file);
            }
            // Unlinked by a cleaner or the previous holder after we opened it: reopen.
            Ok(()) => {}
            Err(e) if e.kind() == ErrorKind::WouldBlock => {
                if attempt < LOCK_ATTEMPTS {
                    std::thread::sleep(LOCK_PAUSE);
                }
            }
            Err(e) => return Err(Error::io(user, e)),
        }
    }
    Err(Error::Busy {
        path: user.to_owned(),
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

/// An exclusive lock on `file`, without waiting. A file system without locks counts as
/// locked (nothing else can do better there).
fn try_lock(file: &File) -> io::Result<()> {
    match file.try_lock() {
        Ok(()) => Ok(()),
        Err(TryLockError::WouldBlock) => Err(ErrorKind::WouldBlock.into()),
        Err(TryLockError::Error(e)) if e.kind() == ErrorKind::Unsupported => Ok(()),
        Err(TryLockError::Error(e)) => Err(e),
    }
}

/// A new, empty temporary file in `dir` with ordinary permissions (0o666 less the umask;
/// tempfile's default is 0o600), kept on disk: this module removes it itself.
fn create_temp(dir: &Path) -> io::Result<(File, PathBuf)> {
    let prefix = format!("{TEMP_PREFIX}{}-", std::process::id());
    let mut builder = tempfile::Builder::new();
    builder
        .prefix(&prefix)
        .suffix(TEMP_SUFFIX)
        .rand_bytes(TEMP_RANDOM_LEN);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(fs::Permissions::from_mode(0o666));
    }
    let temp = builder.tempfile_in(dir).map_err(without_temp_path)?;
    temp.keep().map_err(|e| without_temp_path(e.error))
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn registry() -> &'static Registry {
        Box::leak(Box::new(Registry::new()))
    }

    fn names(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    fn pair(what: &str, path: impl Into<PathBuf>) -> (String, PathBuf) {
        (what.to_owned(), path.into())
    }

    fn clash(input: &Path, output: &Path) -> bool {
        match check_paths(&[pair("data file", input)], &[pair("--output", output)]) {
            Ok(()) => false,
            Err(Error::PathClash { .. }) => true,
            Err(e) => panic!("unexpected error {e}"),
        }
    }

    #[test]
    fn clash_same_path_and_spellings() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        fs::write(d.join("x"), "1").unwrap();
        fs::create_dir(d.join("a")).unwrap();
        assert!(clash(&d.join("x"), &d.join("x")));
        assert!(clash(&d.join("x"), &d.join("./x")));
        assert!(clash(&d.join("x"), &d.join("a/../x")));
        assert!(!clash(&d.join("x"), &d.join("y")));
        // Relative to the working directory: `./x` against `x`, neither existing.
        assert!(clash(
            Path::new("./no-such-cellsafe-file"),
            Path::new("no-such-cellsafe-file")
        ));
        // An output not existing yet under a missing directory still compares lexically.
        assert!(clash(&d.join("nope/y"), &d.join("nope/../nope/y")));
    }

    #[cfg(unix)]
    #[test]
    fn clash_through_links() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        fs::write(d.join("x"), "1").unwrap();
        fs::create_dir(d.join("real")).unwrap();
        std::os::unix::fs::symlink(d.join("x"), d.join("link")).unwrap();
        std::os::unix::fs::symlink(d.join("real"), d.join("dirlink")).unwrap();
        fs::hard_link(d.join("x"), d.join("hard")).unwrap();
        assert!(clash(&d.join("x"), &d.join("link")));
        assert!(clash(&d.join("x"), &d.join("hard")));
        // Through a symlinked directory, to a file that does not exist yet.
        assert!(clash(&d.join("real/new"), &d.join("dirlink/new")));
    }

    #[test]
    fn clash_between_outputs_names_both() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let outputs = [
            pair("--output", d.join("out.csv")),
            pair("--report", d.join("r.json")),
            pair("--mapping", d.join("./out.csv")),
        ];
        let err = check_paths(&[pair("config", d.join("job.toml"))], &outputs).unwrap_err();
        let text = err.to_string();
        assert!(
            text.contains("--mapping") && text.contains("--output"),
            "{text}"
        );
        assert!(
            text.contains(&d.join("./out.csv").display().to_string()),
            "{text}"
        );
        assert!(check_paths(&[pair("config", d.join("job.toml"))], &outputs[..2]).is_ok());
    }

    #[test]
    fn commit_renames_all_and_leaves_no_temp() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a.csv"), dir.path().join("b.json"));
        fs::write(&a, "old").unwrap();
        let mut tx = Transaction::begin_in(registry(), &[a.clone(), b.clone()]).unwrap();
        let temp = tx.stage(&a, |w| w.write_all(b"new a")).unwrap();
        assert_eq!(fs::read_to_string(&temp).unwrap(), "new a");
        assert!(temp
            .file_name()
            .unwrap()
            .to_str()
            .unwrap()
            .starts_with(".cellsafe-"));
        tx.stage(&b, |w| w.write_all(b"new b")).unwrap();
        assert_eq!(fs::read_to_string(&a).unwrap(), "old");
        tx.commit().unwrap();
        assert_eq!(fs::read_to_string(&a).unwrap(), "new a");
        assert_eq!(fs::read_to_string(&b).unwrap(), "new b");
        assert_eq!(names(dir.path()), ["a.csv", "b.json"]);
    }

    #[test]
    fn drop_without_commit_leaves_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a.csv"), dir.path().join("b.json"));
        fs::write(&b, "old").unwrap();
        let mut tx = Transaction::begin_in(registry(), &[a.clone(), b.clone()]).unwrap();
        tx.stage(&a, |w| w.write_all(b"new a")).unwrap();
        tx.stage(&b, |w| w.write_all(b"new b")).unwrap();
        drop(tx);
        assert_eq!(names(dir.path()), ["b.json"]);
        assert_eq!(fs::read_to_string(&b).unwrap(), "old");
    }

    #[test]
    fn failed_write_names_target_and_removes_temp() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.csv");
        let mut tx = Transaction::begin_in(registry(), std::slice::from_ref(&a)).unwrap();
        let err = tx
            .stage(&a, |w| {
                w.write_all(b"partial")?;
                Err(io::Error::other("disk full"))
            })
            .unwrap_err();
        let text = err.to_string();
        assert!(text.contains(&a.display().to_string()) && text.contains("disk full"));
        assert!(!text.contains(".cellsafe-"), "{text}");
        assert_eq!(names(dir.path()), [".a.csv.cellsafe-lock"]);
        drop(tx);
        assert!(names(dir.path()).is_empty());
    }

    #[test]
    fn panic_while_staging_leaves_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.csv");
        let mut tx = Transaction::begin_in(registry(), std::slice::from_ref(&a)).unwrap();
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            tx.stage(&a, |w| {
                w.write_all(b"partial")?;
                panic!("writer failed")
            })
        }));
        assert!(result.is_err());
        drop(tx);
        assert!(names(dir.path()).is_empty());
    }

    #[test]
    fn errors_name_the_target_not_the_temp() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("no-dir/out.csv");
        let err = Transaction::begin_in(registry(), std::slice::from_ref(&missing))
            .err()
            .unwrap();
        assert!(
            err.to_string().contains(&missing.display().to_string()),
            "{err}"
        );

        // A rename that fails: the target became a directory after staging.
        let (a, b) = (dir.path().join("a.csv"), dir.path().join("b.csv"));
        let mut tx = Transaction::begin_in(registry(), &[a.clone(), b.clone()]).unwrap();
        tx.stage(&a, |w| w.write_all(b"a")).unwrap();
        tx.stage(&b, |w| w.write_all(b"b")).unwrap();
        fs::create_dir(&b).unwrap();
        fs::write(b.join("keep"), "x").unwrap();
        let err = tx.commit().unwrap_err();
        let text = err.to_string();
        assert!(matches!(err, Error::Commit { .. }), "{text}");
        assert!(text.contains(&b.display().to_string()), "{text}");
        assert!(text.contains("incomplete") && text.contains(&a.display().to_string()));
        assert!(!text.contains(".cellsafe-"), "{text}");
        assert_eq!(names(dir.path()), ["a.csv", "b.csv"]);
    }

    #[test]
    fn temp_creation_error_names_the_target() {
        let dir = tempfile::tempdir().unwrap();
        let sub = dir.path().join("sub");
        fs::create_dir(&sub).unwrap();
        let a = sub.join("a.csv");
        let mut tx = Transaction::begin_in(registry(), std::slice::from_ref(&a)).unwrap();
        fs::remove_dir_all(&sub).unwrap();
        let text = tx.stage(&a, |_| Ok(())).unwrap_err().to_string();
        assert!(text.starts_with(&a.display().to_string()), "{text}");
        assert!(
            !text.contains(".cellsafe-") && !text.contains("at path"),
            "{text}"
        );
    }

    #[test]
    fn target_must_be_given_and_staged_once() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.csv");
        let mut tx = Transaction::begin_in(registry(), std::slice::from_ref(&a)).unwrap();
        assert!(tx.stage(&dir.path().join("b"), |_| Ok(())).is_err());
        tx.stage(&dir.path().join("./a.csv"), |_| Ok(())).unwrap();
        assert!(tx.stage(&a, |_| Ok(())).is_err());
        assert!(Transaction::begin_in(registry(), &[dir.path().to_owned()]).is_err());
    }

    #[test]
    fn second_begin_is_busy_until_the_first_ends() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.csv");
        let first = Transaction::begin_in(registry(), std::slice::from_ref(&a)).unwrap();
        let err = Transaction::begin_in(registry(), std::slice::from_ref(&a))
            .err()
            .unwrap();
        assert!(matches!(err, Error::Busy { .. }));
        assert_eq!(
            err.to_string(),
            format!("another cellsafe run is writing {}", a.display())
        );
        drop(first);
        assert!(names(dir.path()).is_empty());
        let second = Transaction::begin_in(registry(), std::slice::from_ref(&a)).unwrap();
        second.commit().unwrap();
        assert!(names(dir.path()).is_empty());
    }

    #[test]
    fn stale_files_are_removed_live_ones_kept() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let past = SystemTime::now() - Duration::from_secs(120);
        let make = |name: &str, old: bool| {
            let file = File::create(d.join(name)).unwrap();
            if old {
                file.set_modified(past).unwrap();
            }
            file
        };
        make(".cellsafe-1-stal3X.tmp", true);
        make(".x.csv.cellsafe-lock", true);
        make(".cellsafe-2-fresh0.tmp", false);
        let locked = make(".cellsafe-3-locked.tmp", true);
        locked.lock().unwrap();
        make("data.csv", true);
        make(".cellsafe-4-other0.bak", true);

        let a = d.join("a.csv");
        let tx = Transaction::begin_in(registry(), std::slice::from_ref(&a)).unwrap();
        assert_eq!(
            names(d),
            [
                ".a.csv.cellsafe-lock",
                ".cellsafe-2-fresh0.tmp",
                ".cellsafe-3-locked.tmp",
                ".cellsafe-4-other0.bak",
                "data.csv"
            ]
        );
        drop(tx);
        drop(locked);
        assert_eq!(remove_stale(d), 1);
    }

    /// Files whose names only resemble this module's, lock files with content, and the
    /// inputs and outputs of the run are never removed, however old and unlocked.
    #[test]
    fn stale_cleanup_removes_only_its_own_files() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let past = SystemTime::now() - Duration::from_secs(120);
        let make = |name: &str, content: &str| {
            fs::write(d.join(name), content).unwrap();
            File::options()
                .write(true)
                .open(d.join(name))
                .unwrap()
                .set_modified(past)
                .unwrap();
        };
        let theirs = [
            ".cellsafe-data.tmp",       // no pid
            ".cellsafe-12-abc.tmp",     // random part too short
            ".cellsafe-12-abcdefg.tmp", // too long
            ".cellsafe-12-abc_ef.tmp",  // not alphanumeric
            ".cellsafe-x1-abcdef.tmp",  // pid not digits
            ".cellsafe--abcdef.tmp",    // empty pid
            ".notes.cellsafe-lock",     // a lock file's name, but with content
            "..cellsafe-lock",          // no target name
        ];
        for name in theirs {
            make(name, "user data");
        }
        make(".cellsafe-12-abcDE9.tmp", "staged by a dead run");
        make(".gone.csv.cellsafe-lock", "");
        assert_eq!(remove_stale(d), 2);
        let mut expected: Vec<String> = theirs.iter().map(|n| n.to_string()).collect();
        expected.sort();
        assert_eq!(names(d), expected);

        // Shaped like ours, but an input and an output of this run: kept.
        make(".cellsafe-7-input0.tmp", "the data");
        make(".data.csv.cellsafe-lock", "");
        make(".cellsafe-7-outpt0.tmp", "old release");
        make(".cellsafe-7-reall0.tmp", "");
        let input = d.join(".cellsafe-7-input0.tmp");
        let hierarchy = d.join(".data.csv.cellsafe-lock");
        let output = d.join(".cellsafe-7-outpt0.tmp");
        check_paths(
            &[pair("data file", &input), pair("hierarchy", &hierarchy)],
            &[pair("--output", &output)],
        )
        .unwrap();
        let tx = Transaction::begin_in(registry(), std::slice::from_ref(&output)).unwrap();
        assert!(input.exists() && hierarchy.exists() && output.exists());
        assert!(!d.join(".cellsafe-7-reall0.tmp").exists());
        drop(tx);
        assert_eq!(fs::read_to_string(&input).unwrap(), "the data");
        assert_eq!(fs::read_to_string(&output).unwrap(), "old release");
    }

    #[test]
    fn temp_files_have_the_shape_the_cleaner_removes() {
        let dir = tempfile::tempdir().unwrap();
        for _ in 0..20 {
            let (_, path) = create_temp(dir.path()).unwrap();
            let name = path.file_name().unwrap().to_str().unwrap();
            assert_eq!(Leftover::of(name), Some(Leftover::Temp), "{name}");
        }
        assert_eq!(Leftover::of(".out.csv.cellsafe-lock"), Some(Leftover::Lock));
    }

    /// An output's lock file is created and removed by the run: an input or another output
    /// there is refused, naming both.
    #[test]
    fn clash_with_an_outputs_lock_file() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let lock = d.join(".out.csv.cellsafe-lock");
        fs::write(&lock, "a,b\n1,2\n").unwrap();
        let out = pair("--output", d.join("out.csv"));
        let err = check_paths(&[pair("data file", &lock)], std::slice::from_ref(&out)).unwrap_err();
        assert!(matches!(err, Error::PathClash { .. }));
        let text = err.to_string();
        assert!(text.contains("the lock file of --output"), "{text}");
        assert!(text.contains("data file") && text.contains(&lock.display().to_string()));

        // Spelled differently, and not existing yet.
        let lock = d.join("sub/../.new.csv.cellsafe-lock");
        fs::create_dir(d.join("sub")).unwrap();
        let err = check_paths(
            &[pair("config", d.join("job.toml"))],
            &[pair("--output", d.join("new.csv")), pair("--report", &lock)],
        )
        .unwrap_err();
        let text = err.to_string();
        assert!(
            text.starts_with(&format!(
                "--report {} is the same file as the lock file of --output",
                lock.display()
            )),
            "{text}"
        );
        // Whichever output comes first.
        let err = check_paths(
            &[],
            &[pair("--report", &lock), pair("--output", d.join("new.csv"))],
        )
        .unwrap_err();
        assert!(
            err.to_string().contains("the lock file of --output"),
            "{err}"
        );
        // An unrelated lock-like name is fine.
        assert!(check_paths(
            &[pair("data file", d.join(".other.csv.cellsafe-lock"))],
            &[out]
        )
        .is_ok());
    }

    #[test]
    fn interrupt_removes_pending_files_and_stops_commits() {
        let reg = registry();
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a.csv"), dir.path().join("b.csv"));
        fs::write(&a, "old").unwrap();
        let mut done = Transaction::begin_in(reg, std::slice::from_ref(&b)).unwrap();
        done.stage(&b, |w| w.write_all(b"b")).unwrap();
        done.commit().unwrap();
        let mut tx = Transaction::begin_in(reg, std::slice::from_ref(&a)).unwrap();
        tx.stage(&a, |w| w.write_all(b"new")).unwrap();
        assert_eq!(reg.interrupt(), 2); // the staged file and the lock file
        assert_eq!(names(dir.path()), ["a.csv", "b.csv"]);
        assert!(matches!(tx.commit(), Err(Error::Interrupted)));
        assert_eq!(fs::read_to_string(&a).unwrap(), "old");
        assert!(matches!(
            Transaction::begin_in(reg, std::slice::from_ref(&a)),
            Err(Error::Interrupted)
        ));
        // Other registries (processes) are unaffected.
        let other = Transaction::begin_in(registry(), std::slice::from_ref(&a)).unwrap();
        drop(other);
    }

    #[test]
    fn interrupt_waits_for_a_commit_in_progress() {
        let reg = registry();
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.csv");
        let mut tx = Transaction::begin_in(reg, std::slice::from_ref(&a)).unwrap();
        tx.stage(&a, |w| w.write_all(b"new")).unwrap();
        let held = reg.lock(); // as a commit holds it
        let waiter = std::thread::spawn(move || reg.interrupt());
        std::thread::sleep(Duration::from_millis(50));
        assert!(!waiter.is_finished());
        drop(held);
        assert_eq!(waiter.join().unwrap(), 2);
        assert!(names(dir.path()).is_empty());
    }

    #[cfg(unix)]
    #[test]
    fn final_file_respects_the_umask() {
        use std::os::unix::fs::PermissionsExt;
        let Some(umask) = fs::read_to_string("/proc/self/status").ok().and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("Umask:"))
                .and_then(|v| u32::from_str_radix(v.trim(), 8).ok())
        }) else {
            return;
        };
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.csv");
        let mut tx = Transaction::begin_in(registry(), std::slice::from_ref(&a)).unwrap();
        tx.stage(&a, |w| w.write_all(b"x")).unwrap();
        tx.commit().unwrap();
        let mode = fs::metadata(&a).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o666 & !umask);
    }
}
