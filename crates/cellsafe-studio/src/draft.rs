//! The job as the browser holds it, and what the job layer says of it.
//!
//! The page keeps the job as the keys of a TOML job (JSON: `attributes`, `privacy`,
//! `metric`, `search`, `suppression_limit`, `output`), without `[input]`, which the
//! studio fills in from the loaded table. [`toml_text`] prints them as the TOML the export
//! gives and a run parses; [`FieldError`] is an error of the job layer placed at a key:
//! the key it names, or for a syntax error (a value of the wrong type) the key on the line
//! the parser names.

use cellsafe::data::table::Table;
use cellsafe::data::Role;
use cellsafe::error::Error;
use cellsafe::job::config::Config;
use serde::Serialize;

/// An error at a key of the job (`key` empty: of the job as a whole).
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct FieldError {
    /// The dotted key (`privacy[0].k`, `attributes.age.hierarchy`).
    pub key: String,
    /// What is wrong, as the CLI says it.
    pub message: String,
}

impl FieldError {
    /// An error of the job as a whole.
    pub fn general(message: impl Into<String>) -> FieldError {
        FieldError {
            key: String::new(),
            message: message.into(),
        }
    }

    /// The error `e` of the job whose TOML is `text`, placed at its key.
    pub fn of(e: &Error, text: &str) -> FieldError {
        match e {
            Error::Config { key, message, .. } => FieldError {
                key: key.clone(),
                message: message.clone(),
            },
            Error::ConfigSyntax { at, message } => {
                // a table's wrong value is placed at its own line when the message quotes it
                let line = at
                    .line
                    .map(|l| quoted_line(text, l as usize, message).unwrap_or(l as usize));
                FieldError {
                    key: line.and_then(|l| key_at_line(text, l)).unwrap_or_default(),
                    message: message.trim().to_owned(),
                }
            }
            e => FieldError::general(e.to_string()),
        }
    }
}

/// Values shown by [`uncovered`]'s message.
const UNCOVERED_NAMED: usize = 5;

/// The first quasi-identifier (in the job's order) whose hierarchy cannot be made or
/// leaves values of its column out, as an error at `attributes.NAME.hierarchy` naming
/// those values; `text` is the job's TOML. (The job layer refuses such a job too, naming
/// the data file's line instead of the key.)
pub fn uncovered(config: &Config, table: &Table, text: &str) -> Option<FieldError> {
    for (name, spec) in &config.attributes {
        if spec.role != Role::QuasiIdentifying || spec.hierarchy.is_none() {
            continue;
        }
        let hierarchy = match config.attribute_hierarchy(table, name) {
            Ok(Some(h)) => h,
            Ok(None) => continue,
            Err(e) => return Some(FieldError::of(&e, text)),
        };
        let column = table.column_index(name)?;
        let left: Vec<&str> = table
            .value_counts(column)
            .into_iter()
            .map(|(v, _)| v)
            .filter(|v| hierarchy.generalize(v, 0).is_none())
            .collect();
        if !left.is_empty() {
            let named: Vec<String> = left
                .iter()
                .take(UNCOVERED_NAMED)
                .map(|v| format!("`{v}`"))
                .collect();
            return Some(FieldError {
                key: format!("attributes.{name}.hierarchy"),
                message: format!(
                    "{} value(s) of the column are not in this hierarchy: {}{}",
                    left.len(),
                    named.join(", "),
                    if left.len() > UNCOVERED_NAMED {
                        ", …"
                    } else {
                        ""
                    }
                ),
            });
        }
    }
    None
}

/// The TOML text of the job `keys` (a JSON object of TOML keys; nulls are left out) read
/// from the `[input]` given, which replaces any `input` the keys hold.
pub fn toml_text(keys: &serde_json::Value, input: &toml::Table) -> Result<String, FieldError> {
    let serde_json::Value::Object(map) = keys else {
        return Err(FieldError::general("the job must be an object of keys"));
    };
    let mut job = toml::Table::new();
    for (k, v) in map {
        if k == "input" {
            continue;
        }
        if let Some(v) = to_toml(v) {
            job.insert(k.clone(), v);
        }
    }
    job.insert("input".into(), toml::Value::Table(input.clone()));
    // top-level keys print before the tables
    toml::to_string(&job).map_err(|e| FieldError::general(e.to_string()))
}

fn to_toml(v: &serde_json::Value) -> Option<toml::Value> {
    use serde_json::Value as J;
    Some(match v {
        J::Null => return None,
        J::Bool(b) => toml::Value::Boolean(*b),
        J::Number(n) => match n.as_i64() {
            Some(i) => toml::Value::Integer(i),
            None => toml::Value::Float(n.as_f64()?),
        },
        J::String(s) => toml::Value::String(s.clone()),
        J::Array(a) => toml::Value::Array(a.iter().filter_map(to_toml).collect()),
        J::Object(o) => toml::Value::Table(
            o.iter()
                .filter_map(|(k, v)| to_toml(v).map(|v| (k.clone(), v)))
                .collect(),
        ),
    })
}

/// The dotted key set on 1-based `line` of `text` (a TOML file as `toml` prints it:
/// `[table]` and `[[array]]` headers, `key = value` lines); on a header line, the table's.
pub fn key_at_line(text: &str, line: usize) -> Option<String> {
    let mut prefix = String::new();
    let mut arrays: std::collections::HashMap<String, usize> = Default::default();
    for (i, l) in text.lines().enumerate() {
        let t = l.trim();
        if let Some(name) = t.strip_prefix("[[").and_then(|t| t.strip_suffix("]]")) {
            let name = unquote(name);
            let n = arrays.entry(name.clone()).or_insert(0);
            prefix = format!("{name}[{n}]");
            *n += 1;
        } else if let Some(name) = t.strip_prefix('[').and_then(|t| t.strip_suffix(']')) {
            prefix = unquote(name);
        }
        if i + 1 == line {
            // a table whose whole value is wrong is named by its header
            if t.starts_with('[') {
                return Some(prefix);
            }
            let (key, _) = t.split_once('=')?;
            let key = unquote(key.trim());
            return Some(if prefix.is_empty() {
                key
            } else {
                format!("{prefix}.{key}")
            });
        }
    }
    None
}

/// When 1-based `line` of `text` is a table's header (of an array of tables: its first)
/// and `message` says a string value is of the wrong type (`invalid type: string "zero",
/// …`), the line of that table (or array) setting a key to that string.
fn quoted_line(text: &str, line: usize, message: &str) -> Option<usize> {
    let lines: Vec<&str> = text.lines().collect();
    let header = lines.get(line.checked_sub(1)?)?.trim();
    if !header.starts_with('[') {
        return None;
    }
    let value = message.strip_prefix("invalid type: string ")?;
    let value = &value[..value.find("\", ")? + 1];
    // the parser names an array of tables by its first header: search all its tables
    let array = header.starts_with("[[");
    (line..lines.len())
        .take_while(|&i| {
            let t = lines[i].trim();
            !t.starts_with('[') || (array && t == header)
        })
        .find(|&i| {
            lines[i]
                .split_once('=')
                .is_some_and(|(_, v)| v.trim() == value)
        })
        .map(|i| i + 1)
}

/// A dotted key with its quoted parts unquoted (`attributes."my col"` → `attributes.my col`).
fn unquote(key: &str) -> String {
    let mut out = String::new();
    let mut quoted = false;
    for c in key.trim().chars() {
        match c {
            '"' => quoted = !quoted,
            ' ' if !quoted => {}
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn input() -> toml::Table {
        toml::from_str("path = \"t.csv\"\ndelimiter = \";\"").unwrap()
    }

    #[test]
    fn keys_print_as_a_job_the_job_layer_reads() {
        let keys = serde_json::json!({
            "suppression_limit": 0.01,
            "input": {"path": "/etc/passwd"},
            "attributes": {"age": {"role": "quasi-identifying",
                "hierarchy": {"kind": "intervals", "widths": [5, 10]}},
                "my col": {"role": "sensitive", "hierarchy": null}},
            "privacy": [{"model": "k-anonymity", "k": 5}],
            "metric": {"name": "loss"}
        });
        let text = toml_text(&keys, &input()).unwrap();
        let config = Config::parse(&text, Path::new("studio.toml")).unwrap();
        assert_eq!(config.suppression_limit, 0.01);
        assert_eq!(config.input.path, Path::new("t.csv"));
        assert!(!text.contains("passwd"));
    }

    #[test]
    fn values_a_hierarchy_leaves_out_are_named_at_it() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("h.csv"), "a;*\nb;*\n").unwrap();
        let header = ["x", "y"].map(String::from).to_vec();
        let rows: Vec<Vec<String>> = ["a", "b", "c", "d", "?"]
            .iter()
            .map(|v| vec![v.to_string(), "1".to_owned()])
            .collect();
        let table = Table::from_rows(header, &rows).unwrap();
        let keys = |missing: &str| {
            let text = format!(
                "[input]\npath = \"t.csv\"\nmissing = [{missing}]\n\
                 [attributes.x]\nrole = \"quasi-identifying\"\nhierarchy = \"h.csv\"\n\
                 [attributes.y]\nrole = \"quasi-identifying\"\n\
                 hierarchy = {{ kind = \"suppress\" }}\n"
            );
            let config = Config::parse(&text, &dir.path().join("job.toml")).unwrap();
            uncovered(&config, &table, &text)
        };
        let e = keys("").unwrap();
        assert_eq!(e.key, "attributes.x.hierarchy");
        assert!(e.message.starts_with("3 value(s)"), "{}", e.message);
        assert!(e.message.contains("`c`, `d`, `?`"), "{}", e.message);
        // a missing marker is covered
        let e = keys("\"?\"").unwrap();
        assert!(e.message.starts_with("2 value(s)"), "{}", e.message);
        std::fs::write(dir.path().join("h.csv"), "a;*\nb;*\nc;*\nd;*\n").unwrap();
        assert_eq!(keys("\"?\""), None);
    }

    #[test]
    fn a_value_of_the_wrong_type_is_placed_at_its_key() {
        let keys = serde_json::json!({
            "attributes": {"my col": {"role": "quasi-identifying",
                "hierarchy": {"kind": "intervals", "widths": "five"}}},
            "privacy": [{"model": "k-anonymity", "k": 5}, {"model": "k-anonymity", "k": "two"}],
        });
        let text = toml_text(&keys, &input()).unwrap();
        let e = Config::parse(&text, Path::new("studio.toml")).unwrap_err();
        let f = FieldError::of(&e, &text);
        assert_eq!(f.key, "attributes.my col.hierarchy.widths", "{f:?}\n{text}");
        let keys = serde_json::json!({
            "attributes": {},
            "privacy": [{"model": "k-anonymity", "k": 5}, {"model": "k-anonymity", "k": "two"}],
        });
        let text = toml_text(&keys, &input()).unwrap();
        let e = Config::parse(&text, Path::new("studio.toml")).unwrap_err();
        let f = FieldError::of(&e, &text);
        assert_eq!(f.key, "privacy[1].k", "{f:?}\n{text}");
        assert!(f.message.contains("\"two\""), "{f:?}");
        assert_eq!(
            key_at_line("a = 1\n[x.\"y z\"]\nb = 2\n[[p]]\n[[p]]\nk = 3\n", 6).as_deref(),
            Some("p[1].k")
        );
        let text = "a = 1\n[x.\"y z\"]\nb = 2\n";
        assert_eq!(key_at_line(text, 1).as_deref(), Some("a"));
        assert_eq!(key_at_line(text, 2).as_deref(), Some("x.y z"));
        assert_eq!(key_at_line(text, 3).as_deref(), Some("x.y z.b"));
        assert_eq!(key_at_line(text, 9), None);
    }
}
