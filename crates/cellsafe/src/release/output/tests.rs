//! Unit tests of the release output: path clashes, transactions, locks, stale-file
//! cleanup and interrupts.

use std::time::SystemTime;

use super::cleanup::{Leftover, Registry};
use super::*;

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
        format!(
            "another cellsafe run is writing {} (it holds the lock {})",
            a.display(),
            dir.path()
                .canonicalize()
                .unwrap()
                .join(".a.csv.cellsafe-lock")
                .display()
        )
    );
    drop(first);
    assert!(names(dir.path()).is_empty());
    let second = Transaction::begin_in(registry(), std::slice::from_ref(&a)).unwrap();
    second.commit().unwrap();
    assert!(names(dir.path()).is_empty());
}

/// Regression: a held lock was tried five times, 20 ms apart, before the run gave up; it
/// must fail at the first try (a lock is held for a whole run, never for an instant: the
/// cleaner locks only lock files old enough to be stale).
#[test]
fn a_held_lock_fails_at_the_first_try() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.csv");
    let _first = Transaction::begin_in(registry(), std::slice::from_ref(&a)).unwrap();
    LOCK_TRIES.with(|t| t.set(0));
    let err = Transaction::begin_in(registry(), std::slice::from_ref(&a))
        .err()
        .unwrap();
    assert!(matches!(err, Error::Busy { .. }), "{err}");
    assert_eq!(LOCK_TRIES.with(|t| t.get()), 1);
}

/// The cleaner never locks a lock file too young to be stale, so it cannot make a run
/// starting beside it fail as busy.
#[test]
fn the_cleaner_leaves_young_lock_files_unlocked() {
    let dir = tempfile::tempdir().unwrap();
    let lock = dir.path().join(".a.csv.cellsafe-lock");
    fs::write(&lock, "").unwrap();
    LOCK_TRIES.with(|t| t.set(0));
    assert_eq!(remove_stale(dir.path()), 0);
    assert_eq!(LOCK_TRIES.with(|t| t.get()), 0);
    assert!(lock.exists());
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
    for i in 0..20 {
        let (_, path) = create_temp(dir.path(), i % 2 == 0).unwrap();
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
    let staged = tx.stage(&a, |w| w.write_all(b"x")).unwrap();
    // owner-only until the commit: a table is staged before its audit
    let staged_mode = fs::metadata(&staged).unwrap().permissions().mode() & 0o777;
    assert_eq!(staged_mode, 0o600);
    tx.commit().unwrap();
    let mode = fs::metadata(&a).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o666 & !umask);
    assert_eq!(fs::read(&a).unwrap(), b"x");
}

/// Regression: an output that was a device or a FIFO was replaced by a regular file (as
/// root, `--report /dev/null` replaced the system's /dev/null). [`check_paths`] and
/// [`Transaction::begin`] refuse any existing output that is not a regular file, naming
/// it, and leave it as it is; a symlink to a regular file and a new path are fine.
#[cfg(unix)]
#[test]
fn outputs_that_are_not_regular_files_are_refused() {
    use std::os::unix::fs::FileTypeExt;
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let fifo = d.join("fifo");
    assert!(std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    let mut odd = vec![(fifo.clone(), "a FIFO")];
    let device = d.join("null");
    // /dev/null's numbers: nothing is written even by code that failed to refuse it
    let made = std::process::Command::new("mknod")
        .arg(&device)
        .args(["c", "1", "3"])
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if made {
        odd.push((device.clone(), "a character device"));
    } else {
        skipped("outputs that are devices (library): a device node cannot be made here");
    }
    std::os::unix::fs::symlink(&fifo, d.join("to-fifo")).unwrap();
    odd.push((d.join("to-fifo"), "a FIFO"));
    for (path, kind) in &odd {
        let err = check_paths(&[], &[pair("the report", path)]).unwrap_err();
        let text = err.to_string();
        assert!(text.contains(&path.display().to_string()), "{text}");
        assert!(text.contains(kind), "{text}");
        let err = Transaction::begin_in(registry(), std::slice::from_ref(path))
            .err()
            .unwrap();
        assert!(err.to_string().contains(kind), "{err}");
    }
    assert!(fs::metadata(&fifo).unwrap().file_type().is_fifo());
    if made {
        assert!(fs::metadata(&device).unwrap().file_type().is_char_device());
    }
    fs::write(d.join("plain"), "x").unwrap();
    std::os::unix::fs::symlink(d.join("plain"), d.join("to-plain")).unwrap();
    for ok in ["plain", "to-plain", "new"] {
        check_paths(&[], &[pair("the report", d.join(ok))]).unwrap();
    }
}

// how a test says that it did not run, and why (`scripts/test` lists them at the end)
use cellsafe_testkit::skipped;
