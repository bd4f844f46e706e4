//! `cellsafe anonymize` on the streaming engine (`[engine] kind = "streaming"`), through the
//! binary: the same files as the in-memory engine, byte for byte; the engine chosen by
//! itself for an input larger than the memory limit, spilling its sort; and bad input or a
//! full spill directory named, exit 1, nothing written.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Output;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn examples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/adult")
}

fn cellsafe() -> std::process::Command {
    std::process::Command::new(assert_cmd::cargo::cargo_bin("cellsafe"))
}

/// Runs `cellsafe anonymize CONFIG --output OUT --report REPORT --mapping MAP --quiet`.
fn anonymize(config: &Path, out: &Path) -> Output {
    cellsafe()
        .arg("anonymize")
        .arg(config)
        .arg("--output")
        .arg(out)
        .arg("--report")
        .arg(out.with_extension("json"))
        .arg("--mapping")
        .arg(out.with_extension("map"))
        .arg("--quiet")
        .output()
        .unwrap()
}

fn report(out: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(out.with_extension("json")).unwrap()).unwrap()
}

/// Adult's job with a seed, on `engine` (None: as the config says by default).
fn adult_config(dir: &Path, input: &str, engine: Option<&str>) -> PathBuf {
    for entry in std::fs::read_dir(examples()).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), dir.join(entry.file_name())).unwrap();
    }
    let mut text = std::fs::read_to_string(examples().join("adult.toml"))
        .unwrap()
        .replace("path = \"adult.csv\"", &format!("path = \"{input}\""));
    text.push_str("\n[output]\nseed = 11\n");
    if let Some(kind) = engine {
        write!(text, "\n[engine]\nkind = \"{kind}\"\n").unwrap();
    }
    let name = format!("{}-{}.toml", input, engine.unwrap_or("default"));
    std::fs::write(dir.join(&name), text).unwrap();
    dir.join(name)
}

fn assert_same_files(a: &Path, b: &Path) {
    for ext in ["csv", "map"] {
        let (x, y) = (
            std::fs::read(a.with_extension(ext)).unwrap(),
            std::fs::read(b.with_extension(ext)).unwrap(),
        );
        assert!(x == y, "{} and {} differ", a.display(), b.display());
    }
}

#[test]
fn the_streaming_engine_writes_what_the_memory_engine_writes() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let memory = anonymize(&adult_config(d, "adult.csv", None), &d.join("memory.csv"));
    assert!(memory.status.success(), "{memory:?}");
    let streaming = anonymize(
        &adult_config(d, "adult.csv", Some("streaming")),
        &d.join("streaming.csv"),
    );
    assert!(streaming.status.success(), "{streaming:?}");
    assert_same_files(&d.join("memory.csv"), &d.join("streaming.csv"));
    let (m, s) = (
        report(&d.join("memory.csv")),
        report(&d.join("streaming.csv")),
    );
    assert_eq!(s["engine"]["kind"], "streaming");
    assert!(m.get("engine").is_none());
    for key in [
        "levels",
        "suppressed_rows",
        "classes",
        "min_class_size",
        "score",
        "rows",
    ] {
        assert_eq!(m[key], s[key], "{key}");
    }
    assert_eq!(s["audit"]["passed"], true);
}

#[cfg(feature = "arrow")]
#[test]
fn a_parquet_input_streams_to_the_same_release() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let memory = anonymize(&adult_config(d, "adult.csv", None), &d.join("memory.csv"));
    assert!(memory.status.success(), "{memory:?}");
    let streaming = anonymize(
        &adult_config(d, "adult.parquet", Some("streaming")),
        &d.join("streaming.csv"),
    );
    assert!(streaming.status.success(), "{streaming:?}");
    let read = |name: &str| std::fs::read(d.join(name)).unwrap();
    assert!(read("memory.csv") == read("streaming.csv"));
    // a Parquet row's "line" is its 1-based row number; a CSV row's, its line (after the
    // header)
    let lines = |name: &str| -> Vec<u64> {
        String::from_utf8(read(name))
            .unwrap()
            .lines()
            .skip(1)
            .map(|l| l.split(',').nth(1).unwrap().parse().unwrap())
            .collect()
    };
    let parquet: Vec<u64> = lines("streaming.map");
    let csv: Vec<u64> = lines("memory.map").into_iter().map(|l| l - 1).collect();
    assert_eq!(parquet, csv);
}

/// A seeded CSV of `rows` rows with a wide insensitive column, so that its release is
/// larger than the sort's share of the smallest memory limit (64 MiB / 2).
fn wide_table(path: &Path, rows: usize) {
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let mut text = String::with_capacity(rows * 96);
    text.push_str("age,zip,diagnosis,note\n");
    for _ in 0..rows {
        writeln!(
            text,
            "{},{},{},{}",
            rng.gen_range(18..90),
            rng.gen_range(10_000..10_400),
            ["flu", "cold", "ulcer", "asthma"][rng.gen_range(0..4)],
            (0..60)
                .map(|_| char::from(b'a' + rng.gen_range(0..26)))
                .collect::<String>()
        )
        .unwrap();
    }
    std::fs::write(path, text).unwrap();
}

fn wide_config(dir: &Path, engine: &str) -> PathBuf {
    let text = format!(
        r#"suppression_limit = 0.02
[input]
path = "wide.csv"
[attributes.age]
role = "quasi-identifying"
hierarchy = {{ kind = "intervals", widths = [5, 10, 20, 40] }}
[attributes.zip]
role = "quasi-identifying"
hierarchy = {{ kind = "mask" }}
[attributes.diagnosis]
role = "sensitive"
[attributes.note]
role = "insensitive"
[[privacy]]
model = "k-anonymity"
k = 5
[output]
seed = 5
{engine}"#
    );
    let path = dir.join(format!("wide-{}.toml", engine.len()));
    std::fs::write(&path, text).unwrap();
    path
}

const WIDE_ROWS: usize = 900_000;

/// An input larger than `memory_limit` runs on the streaming engine without being told,
/// its sort spills, and it still writes the memory engine's bytes.
#[test]
fn a_large_input_streams_by_itself_and_spills_its_sort() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    wide_table(&d.join("wide.csv"), WIDE_ROWS);
    assert!(std::fs::metadata(d.join("wide.csv")).unwrap().len() > 64 << 20);
    let memory = anonymize(
        &wide_config(d, "[engine]\nkind = \"memory\"\n"),
        &d.join("memory.csv"),
    );
    assert!(memory.status.success(), "{memory:?}");
    let auto = anonymize(
        &wide_config(d, "[engine]\nmemory_limit = \"64MiB\"\n"),
        &d.join("auto.csv"),
    );
    assert!(auto.status.success(), "{auto:?}");
    let r = report(&d.join("auto.csv"));
    assert_eq!(r["engine"]["kind"], "streaming");
    assert!(r["engine"]["spilled_bytes"].as_u64().unwrap() > 0, "{r}");
    assert_same_files(&d.join("memory.csv"), &d.join("auto.csv"));
}

/// Files in `dir`, sorted.
fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// A spill directory that cannot take the sorted runs (here: files limited to 8 MB by
/// RLIMIT_FSIZE, so every write past it fails as on a full disk) fails the run naming it,
/// exit 1, and leaves neither output nor spilled file behind.
#[cfg(target_os = "linux")]
#[test]
fn a_full_spill_directory_fails_naming_it_and_writes_nothing() {
    use std::os::unix::process::CommandExt;
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    wide_table(&d.join("wide.csv"), WIDE_ROWS);
    let spill = d.join("spill");
    std::fs::create_dir(&spill).unwrap();
    let config = wide_config(
        d,
        "[engine]\nkind = \"streaming\"\nmemory_limit = \"64MiB\"\nspill_dir = \"spill\"\n",
    );
    let before = listing(d);
    let mut command = cellsafe();
    command
        .arg("anonymize")
        .arg(&config)
        .arg("--output")
        .arg(d.join("out.csv"))
        .arg("--report")
        .arg(d.join("out.json"))
        .arg("--quiet");
    // SAFETY: only async-signal-safe calls between fork and exec
    unsafe {
        command.pre_exec(|| {
            use nix::sys::resource::{setrlimit, Resource};
            use nix::sys::signal::{signal, SigHandler, Signal};
            signal(Signal::SIGXFSZ, SigHandler::SigIgn).map_err(std::io::Error::from)?;
            setrlimit(Resource::RLIMIT_FSIZE, 8_000_000, 8_000_000)
                .map_err(std::io::Error::from)?;
            Ok(())
        });
    }
    let output = command.output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("spill_dir"), "{stderr}");
    assert!(stderr.contains(&spill.display().to_string()), "{stderr}");
    assert_eq!(listing(d), before, "nothing written beside the input");
    assert!(listing(&spill).is_empty(), "no spilled run left behind");
}

#[test]
fn a_spill_dir_that_is_not_a_directory_is_refused_naming_the_key() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let config = adult_config(d, "adult.csv", Some("streaming"));
    let mut text = std::fs::read_to_string(&config).unwrap();
    text.push_str("spill_dir = \"adult.csv\"\n");
    std::fs::write(&config, text).unwrap();
    let before = listing(d);
    let output = anonymize(&config, &d.join("out.csv"));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("engine.spill_dir"), "{stderr}");
    assert_eq!(listing(d), before);
}

#[test]
fn what_needs_the_rows_in_memory_is_refused_by_the_streaming_engine() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let config = adult_config(d, "adult.csv", Some("streaming"));
    let text = std::fs::read_to_string(&config)
        .unwrap()
        .replace("algorithm = \"optimal\"", "algorithm = \"mondrian\"");
    assert!(text.contains("mondrian"));
    std::fs::write(&config, &text).unwrap();
    let before = listing(d);
    let output = anonymize(&config, &d.join("out.csv"));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("search.algorithm"), "{stderr}");
    assert!(stderr.contains("in memory"), "{stderr}");
    assert_eq!(listing(d), before);
}

/// A Parquet column of a type cellsafe does not read (a list) and a truncated Parquet file
/// each exit 1 naming the file (and the column), writing nothing, on either engine; the
/// input is left as it was.
#[cfg(feature = "arrow")]
#[test]
fn an_unsupported_column_or_a_truncated_file_exits_1_on_either_engine() {
    use std::sync::Arc;

    use arrow_array::builder::{Int32Builder, ListBuilder};
    use arrow_array::{ArrayRef, Int64Array, RecordBatch, StringArray};

    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut tags = ListBuilder::new(Int32Builder::new());
    for i in 0..50 {
        tags.values().append_value(i);
        tags.append(true);
    }
    let columns: Vec<ArrayRef> = vec![
        Arc::new(Int64Array::from_iter_values(0..50)),
        Arc::new(StringArray::from_iter_values(
            (0..50).map(|i| format!("z{}", i % 3)),
        )),
        Arc::new(tags.finish()),
    ];
    let batch =
        RecordBatch::try_from_iter(["age", "zip", "tags"].into_iter().zip(columns)).unwrap();
    let file = std::fs::File::create(d.join("listy.parquet")).unwrap();
    let mut writer = parquet::arrow::ArrowWriter::try_new(file, batch.schema(), None).unwrap();
    writer.write(&batch).unwrap();
    writer.close().unwrap();
    // Adult's Parquet cut in half: its footer is gone
    let whole = std::fs::read(examples().join("adult.parquet")).unwrap();
    for kind in ["memory", "streaming"] {
        for (input, named) in [("listy.parquet", "tags"), ("cut.parquet", "cut.parquet")] {
            std::fs::write(d.join("cut.parquet"), &whole[..whole.len() / 2]).unwrap();
            let config = d.join(format!("{kind}-{input}.toml"));
            std::fs::write(
                &config,
                format!(
                    r#"[input]
path = "{input}"
[attributes.age]
role = "quasi-identifying"
hierarchy = {{ kind = "intervals", widths = [5, 10] }}
[[privacy]]
model = "k-anonymity"
k = 2
[engine]
kind = "{kind}"
"#
                ),
            )
            .unwrap();
            let before = listing(d);
            let input_bytes = std::fs::read(d.join(input)).unwrap();
            let output = anonymize(&config, &d.join("out.csv"));
            let stderr = String::from_utf8_lossy(&output.stderr);
            assert_eq!(output.status.code(), Some(1), "{kind} {input}: {stderr}");
            assert!(stderr.contains(input), "{kind} {input}: {stderr}");
            assert!(stderr.contains(named), "{kind} {input}: {stderr}");
            assert_eq!(listing(d), before, "{kind} {input}");
            assert!(std::fs::read(d.join(input)).unwrap() == input_bytes);
        }
    }
}

/// README's streaming example runs as given and releases the rows adult.toml releases (the
/// same multiset of rows and the same levels; each draws its own seed).
#[test]
fn the_streaming_example_releases_what_the_adult_job_releases() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let readme = std::fs::read_to_string(examples().join("../../README.md")).unwrap();
    assert!(readme.contains("anonymize examples/adult/adult-streaming.toml"));
    let run = |name: &str| {
        let out = d.join(format!("{name}.csv"));
        let output = cellsafe()
            .arg("anonymize")
            .arg(examples().join(format!("{name}.toml")))
            .arg("--output")
            .arg(&out)
            .arg("--report")
            .arg(out.with_extension("json"))
            .arg("--quiet")
            .output()
            .unwrap();
        assert!(output.status.success(), "{output:?}");
        let mut rows: Vec<String> = std::fs::read_to_string(&out)
            .unwrap()
            .lines()
            .map(String::from)
            .collect();
        rows.sort();
        (rows, report(&out))
    };
    let (streamed, s) = run("adult-streaming");
    let (memory, m) = run("adult");
    assert_eq!(s["engine"]["kind"], "streaming");
    assert_eq!(s["levels"], m["levels"]);
    assert_eq!(s["suppressed_rows"], m["suppressed_rows"]);
    assert!(streamed == memory, "the same rows");
}
