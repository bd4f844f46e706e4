//! `[engine]`: which engine runs the job, its memory limit and spill directory, and what a
//! job must not ask of the streaming engine (everything that needs the rows in memory).

use std::path::{Path, PathBuf};

use super::spec::{EngineKind, OutputValues};
use super::Config;
use crate::algorithm::Algorithm;
use crate::criteria::ModelSpec;
use crate::data::table::scan::Scan;
use crate::data::Role;
use crate::error::{excerpt, Error, Result};

/// The machine's memory when the system does not say (bytes).
const UNKNOWN_MEMORY: u64 = 4 << 30;

/// The machine's memory in bytes, from `/proc/meminfo`.
fn machine_memory() -> u64 {
    std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|text| {
            let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
            let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
            kib.checked_mul(1024)
        })
        .unwrap_or(UNKNOWN_MEMORY)
}

/// Bytes in a size such as `3GB`, `512MiB`, `1.5 GB` or `1000000`.
pub(crate) fn parse_size(text: &str) -> Option<u64> {
    let text = text.trim();
    let split = text
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let number: f64 = number.parse().ok()?;
    let scale: f64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1.0,
        "kb" | "k" => 1e3,
        "mb" | "m" => 1e6,
        "gb" | "g" => 1e9,
        "tb" | "t" => 1e12,
        "kib" => 1024.0,
        "mib" => 1024.0 * 1024.0,
        "gib" => 1024.0 * 1024.0 * 1024.0,
        "tib" => 1024.0 * 1024.0 * 1024.0 * 1024.0,
        _ => return None,
    };
    let bytes = number * scale;
    (bytes.is_finite() && bytes >= 1.0 && bytes < u64::MAX as f64).then_some(bytes as u64)
}

/// The least memory limit taken (the streaming engine needs room for its buffers).
pub const MIN_MEMORY_LIMIT: u64 = 64 << 20;

impl Config {
    /// `[engine] memory_limit` in bytes (default: half the machine's memory).
    pub fn memory_limit(&self) -> Result<u64> {
        let key = "engine.memory_limit";
        let bytes = match &self.engine.memory_limit {
            None => return Ok(machine_memory() / 2),
            Some(toml::Value::Integer(n)) => u64::try_from(*n).ok(),
            Some(toml::Value::String(s)) => parse_size(s),
            Some(_) => None,
        };
        match bytes {
            Some(n) if n >= MIN_MEMORY_LIMIT => Ok(n),
            Some(n) => Err(Error::config(
                self.file_name(),
                key,
                format!("{n} bytes is too little: give at least 64MiB"),
            )),
            None => Err(Error::config(
                self.file_name(),
                key,
                "not a size: give bytes (1000000000) or a number with a unit (\"3GB\", \
                 \"512MiB\")",
            )),
        }
    }

    /// Where the streaming engine spills: `[engine] spill_dir`, else the directory of the
    /// released table (or the config's, without one).
    pub fn spill_dir(&self, table: Option<&Path>) -> PathBuf {
        match &self.engine.spill_dir {
            Some(dir) => self.resolve(dir),
            None => table
                .and_then(Path::parent)
                .map(|p| {
                    if p.as_os_str().is_empty() {
                        Path::new(".")
                    } else {
                        p
                    }
                })
                .map(Path::to_path_buf)
                .unwrap_or_else(|| self.resolve(Path::new("."))),
        }
    }

    /// The engine this job runs on: `[engine] kind`, else the streaming engine when the
    /// input file is larger than the memory limit and the job can stream.
    pub fn engine_kind(&self) -> Result<EngineKind> {
        match self.engine.kind {
            Some(EngineKind::Streaming) => {
                if let Some((key, why)) = self.streaming_refusal() {
                    return Err(Error::config(
                        self.file_name(),
                        key,
                        format!(
                            "{why} needs the rows in memory, so it cannot run on the \
                             streaming engine ([engine] kind = \"streaming\"): remove it or \
                             use the in-memory engine"
                        ),
                    ));
                }
                Ok(EngineKind::Streaming)
            }
            Some(kind) => Ok(kind),
            None => {
                let limit = self.memory_limit()?;
                let large = self.input.url.is_none()
                    && self.given.is_none()
                    && std::fs::metadata(self.data_path()).is_ok_and(|m| m.len() > limit);
                Ok(if large && self.streaming_refusal().is_none() {
                    EngineKind::Streaming
                } else {
                    EngineKind::Memory
                })
            }
        }
    }

    /// The key of what this job asks that the streaming engine cannot do, and what it is.
    pub(crate) fn streaming_refusal(&self) -> Option<(&'static str, String)> {
        let presence = self
            .privacy
            .iter()
            .find(|m| matches!(m, ModelSpec::DeltaPresence { .. }));
        [
            (
                self.given.is_some(),
                "engine.kind",
                format!(
                    "a table given in memory ({})",
                    self.given.as_deref().unwrap_or_default()
                ),
            ),
            (
                self.input.url.is_some(),
                "input.url",
                "a database input".to_owned(),
            ),
            (
                self.input.subset.is_some(),
                "input.subset",
                "a research subset".to_owned(),
            ),
            (self.safety.is_some(), "safety", "logical safety".to_owned()),
            (
                self.disclose.is_some(),
                "disclose",
                "a public search".to_owned(),
            ),
            (
                self.releases_pareto_node(),
                "pareto",
                "a node of the Pareto front".to_owned(),
            ),
            (
                matches!(
                    self.search.algorithm,
                    Algorithm::SetBased | Algorithm::Mondrian | Algorithm::Lgb
                ),
                "search.algorithm",
                format!("the {} search", self.search.algorithm.name()),
            ),
            (
                self.output.values == OutputValues::Microaggregation,
                "output.values",
                "microaggregation".to_owned(),
            ),
            (presence.is_some(), "privacy", "delta-presence".to_owned()),
        ]
        .into_iter()
        .find_map(|(bad, key, why)| bad.then_some((key, why)))
    }

    /// Each column of `scan`'s header: its role, and whether it is public. Every attribute
    /// named under `[attributes]` must be one of them.
    pub(crate) fn source_roles(&self, scan: &Scan) -> Result<(Vec<Role>, Vec<bool>)> {
        use crate::data::table::scan::RowSource;
        let header = scan.header();
        if let Some(name) = self.attributes.keys().find(|n| !header.contains(n)) {
            return Err(Error::config(
                self.file_name(),
                format!("attributes.{name}"),
                format!(
                    "no column `{}` in the header of {}",
                    excerpt(name),
                    scan.source().display()
                ),
            ));
        }
        Ok(header
            .iter()
            .map(|name| {
                let spec = self.attributes.get(name);
                (
                    spec.map_or(self.input.default_role, |s| s.role),
                    spec.is_some_and(|s| s.public),
                )
            })
            .unzip())
    }
}

#[cfg(test)]
mod tests {
    use super::parse_size;

    #[test]
    fn sizes_take_decimal_and_binary_units() {
        assert_eq!(parse_size("3GB"), Some(3_000_000_000));
        assert_eq!(parse_size("512MiB"), Some(512 << 20));
        assert_eq!(parse_size("1.5 gb"), Some(1_500_000_000));
        assert_eq!(parse_size("1000"), Some(1000));
        for bad in ["", "GB", "3 parsecs", "-1GB", "0", "1e99TB", "1.2.3MB"] {
            assert_eq!(parse_size(bad), None, "{bad}");
        }
    }
}
