//! The bundled examples as a reader meets them: each config's header says how to run it,
//! and the command it gives names the example itself (a copied header once told the
//! reader of `zhang08-table6.toml` to run the table-1 file).

use std::path::{Path, PathBuf};

fn examples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples")
}

/// Every `.toml` under `dir`, recursively.
fn configs(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            configs(&path, out);
        } else if path.extension().is_some_and(|e| e == "toml") {
            out.push(path);
        }
    }
}

#[test]
fn every_example_header_runs_the_example_itself() {
    let root = examples();
    let mut files = Vec::new();
    configs(&root, &mut files);
    assert!(files.len() > 5, "{files:?}");
    let mut checked = 0;
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        let own = format!(
            "examples/{}",
            file.strip_prefix(&root).unwrap().to_string_lossy()
        );
        // the commands of the header: comment lines before the first key or table
        let commands: Vec<&str> = text
            .lines()
            .take_while(|l| l.trim().is_empty() || l.starts_with('#'))
            .filter_map(|l| l.split_once("cellsafe ").map(|(_, c)| c))
            .filter(|c| c.contains("examples/"))
            .collect();
        if commands.is_empty() {
            continue;
        }
        checked += 1;
        for c in &commands {
            let named = c
                .split_whitespace()
                .find(|w| w.starts_with("examples/"))
                .unwrap();
            assert!(
                root.join("..").join(named).is_file(),
                "{own}: the header names {named}, which does not exist"
            );
        }
        assert!(
            commands
                .iter()
                .any(|c| c.split_whitespace().any(|w| w == own)),
            "{own}: no command of its header runs it: {commands:?}"
        );
    }
    assert!(checked >= 8, "only {checked} headers with commands");
}
