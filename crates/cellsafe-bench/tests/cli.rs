//! The `cellsafe-bench` binary: synthetic tables and argument checks. The benchmark
//! subcommands themselves take seconds to minutes and are not run here; their building
//! blocks are tested in the library.

use assert_cmd::Command;
use predicates::prelude::*;

fn bench() -> Command {
    Command::cargo_bin("cellsafe-bench").unwrap()
}

#[test]
fn synth_is_deterministic() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["a.csv", "b.csv"] {
        bench()
            .args(["synth", "--rows", "500", "--seed", "9", "--output"])
            .arg(dir.path().join(name))
            .assert()
            .success()
            .stderr(predicate::str::contains("wrote 500 rows"));
    }
    let a = std::fs::read(dir.path().join("a.csv")).unwrap();
    assert_eq!(a, std::fs::read(dir.path().join("b.csv")).unwrap());
    let text = String::from_utf8(a).unwrap();
    assert_eq!(text.lines().count(), 501);
    assert!(text.starts_with(
        std::str::from_utf8(&cellsafe_bench::adult::csv_bytes().unwrap())
            .unwrap()
            .lines()
            .next()
            .unwrap()
    ));
    bench()
        .args(["synth", "--rows", "500", "--seed", "10", "--output"])
        .arg(dir.path().join("c.csv"))
        .assert()
        .success();
    assert_ne!(
        std::fs::read(dir.path().join("a.csv")).unwrap(),
        std::fs::read(dir.path().join("c.csv")).unwrap()
    );
}

#[test]
fn synth_refuses_a_mix_outside_0_1() {
    let dir = tempfile::tempdir().unwrap();
    bench()
        .args(["synth", "--rows", "5", "--mix", "1.5", "--output"])
        .arg(dir.path().join("a.csv"))
        .assert()
        .code(1)
        .stderr(predicate::str::contains("[0, 1]"));
    assert!(!dir.path().join("a.csv").exists());
}

#[test]
fn runs_must_be_positive() {
    bench()
        .args(["search", "--runs", "0"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--runs"));
}

#[test]
fn the_subcommands_are_listed() {
    let out = bench().arg("--help").assert().success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    for command in ["search", "safety", "disclosure", "synth"] {
        assert!(text.contains(command), "{command} missing:\n{text}");
    }
}
