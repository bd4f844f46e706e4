//! The library's layers depend one way: a module may use its own layer and those below it,
//! never one above. This test reads every source file's `crate::` paths (code, not
//! comments) and fails naming each upward one, so a new upward import breaks CI.

use std::path::{Path, PathBuf};

/// Layers from the bottom up; `error`, `observer` and `input` are shared by all.
const LAYERS: &[&[&str]] = &[
    &["error", "observer", "input"],
    &["data"],
    &["hierarchy"],
    &["framework"],
    &["risk"],
    &["criteria"],
    &["metric"],
    &["algorithm"],
    &["release"],
    &["anonymizer"],
    &["engine"],
    &["gatekeeper"],
    &["job"],
];

fn rank(module: &str) -> Option<usize> {
    LAYERS.iter().position(|l| l.contains(&module))
}

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The code of a line: without its `//` comment (strings holding `//` do not occur
/// together with a `crate::` path in this code base).
fn code(line: &str) -> &str {
    line.find("//").map_or(line, |i| &line[..i])
}

/// Every `crate::name` in `text`, and `crate::{a, b}` groups expanded.
fn crate_paths(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find("crate::") {
        let before = rest[..i].chars().next_back();
        rest = &rest[i + "crate::".len()..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue; // e.g. `cellsafe::crate::` does not occur; `foocrate::` is no path
        }
        if let Some(group) = rest.strip_prefix('{') {
            let end = group.find('}').unwrap_or(group.len());
            for item in group[..end].split(',') {
                let name: String = item
                    .trim()
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                found.push(name);
            }
        } else {
            found.push(
                rest.chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect(),
            );
        }
    }
    found
}

#[test]
fn no_module_uses_a_layer_above_its_own() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    files.sort();
    let mut upward = Vec::new();
    let mut unknown = Vec::new();
    for file in &files {
        let relative = file.strip_prefix(&src).unwrap();
        let top = relative.components().next().unwrap().as_os_str();
        let top = top.to_str().unwrap().trim_end_matches(".rs");
        if top == "lib" {
            continue;
        }
        let Some(own) = rank(top) else {
            unknown.push(relative.display().to_string());
            continue;
        };
        let text = std::fs::read_to_string(file).unwrap();
        // `use crate::{...}` groups may span lines: join each statement's lines.
        let mut statement = String::new();
        for (n, line) in text.lines().enumerate() {
            statement.push_str(code(line));
            if statement.contains("crate::{") && !statement.contains('}') {
                continue;
            }
            for name in crate_paths(&statement) {
                match rank(&name) {
                    Some(r) if r > own => upward.push(format!(
                        "{}:{}: `{top}` uses `crate::{name}`, a layer above it",
                        relative.display(),
                        n + 1
                    )),
                    Some(_) => {}
                    None if name == "Error" || name == "Result" => {}
                    None => unknown.push(format!(
                        "{}:{}: `crate::{name}` is in no layer",
                        relative.display(),
                        n + 1
                    )),
                }
            }
            statement.clear();
        }
    }
    assert!(
        unknown.is_empty(),
        "modules outside every layer (add them to LAYERS):\n{}",
        unknown.join("\n")
    );
    assert!(
        upward.is_empty(),
        "{} upward imports:\n{}",
        upward.len(),
        upward.join("\n")
    );
}

#[test]
fn the_check_sees_paths_and_groups() {
    assert_eq!(crate_paths("use crate::job::config::Config;"), ["job"]);
    assert_eq!(
        crate_paths("use crate::{data::Role, metric::sf};"),
        ["data", "metric"]
    );
    assert_eq!(crate_paths("x(crate::algorithm::run(p))"), ["algorithm"]);
    assert_eq!(code("let a = 1; // crate::job"), "let a = 1; ");
    assert!(rank("job") > rank("data"));
}
