//! `[engine]`: which engine runs the job, its memory limit and spill directory, and what a
//! job must not ask of the streaming engine (everything that needs the rows in memory).

use std::path::{Path, PathBuf};

use super::spec::{EngineKind, OutputValues};
use super::Config;
use crate::algorithm::Algorithm;
use crate::criteria::ModelSpec;
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
                if let Some((key, why)) = self.streaming_refusal(false) {
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
            Some(EngineKind::Spark) => {
                if !cfg!(feature = "spark") {
                    return Err(Error::config(
                        self.file_name(),
                        "engine.kind",
                        "the Spark engine needs cellsafe built with the `spark` feature",
                    ));
                }
                if let Some((key, why)) = self.streaming_refusal(true) {
                    return Err(Error::config(
                        self.file_name(),
                        key,
                        format!(
                            "{why} needs the rows on this machine, so it cannot run on the \
                             Spark engine ([engine] kind = \"spark\"): remove it or read the \
                             rows here"
                        ),
                    ));
                }
                if self.engine.remote.is_none() {
                    return Err(Error::config(
                        self.file_name(),
                        "engine.remote",
                        "missing: the Spark engine needs its Spark Connect server \
                         (remote = \"sc://host:15002\")",
                    ));
                }
                Ok(EngineKind::Spark)
            }
            Some(kind) => {
                if self.engine.remote.is_some() {
                    return Err(Error::config(
                        self.file_name(),
                        "engine.remote",
                        "only with kind = \"spark\"",
                    ));
                }
                Ok(kind)
            }
            None => {
                if self.engine.remote.is_some() {
                    return Err(Error::config(
                        self.file_name(),
                        "engine.remote",
                        "only with kind = \"spark\"",
                    ));
                }
                let limit = self.memory_limit()?;
                let large = self.input.url.is_none()
                    && self.given.is_none()
                    && std::fs::metadata(self.data_path()).is_ok_and(|m| m.len() > limit);
                Ok(if large && self.streaming_refusal(false).is_none() {
                    EngineKind::Streaming
                } else {
                    EngineKind::Memory
                })
            }
        }
    }

    /// Whether `[engine] kind` asks for the Spark engine.
    pub(crate) fn on_spark(&self) -> bool {
        self.engine.kind == Some(EngineKind::Spark)
    }

    /// `[input]` on the Spark engine: exactly one of `path` (a Parquet or CSV file or
    /// directory the cluster reads), `table` (of the cluster's catalog) and `query` (Spark
    /// SQL); no database `url`.
    pub(crate) fn check_spark_input(&self) -> Result<()> {
        let file = self.file_name();
        let input = &self.input;
        if input.url.is_some() {
            return Err(Error::config(
                &file,
                "input.url",
                "the Spark engine reads what the cluster reads: give `path`, `table` or \
                 `query`, not a database url",
            ));
        }
        let given = [
            !input.path.as_os_str().is_empty(),
            input.table.is_some(),
            input.query.is_some(),
        ];
        if given.iter().filter(|&&g| g).count() != 1 {
            return Err(Error::config(
                &file,
                "input",
                "on the Spark engine give exactly one of `path` (Parquet or CSV the cluster \
                 reads), `table` (of the cluster's catalog) and `query` (Spark SQL)",
            ));
        }
        if input.format.is_some() && given[0] {
            let format = self.input_format()?;
            if !matches!(
                format,
                crate::data::table::Format::Csv | crate::data::table::Format::Parquet
            ) {
                return Err(Error::config(
                    &file,
                    "input.format",
                    "the Spark engine reads `parquet` or `csv`",
                ));
            }
        } else if input.format.is_some() {
            return Err(Error::config(
                &file,
                "input.format",
                "only with `path` (a table or query has no format)",
            ));
        }
        Ok(())
    }

    /// `[output]` on the Spark engine: the release is a Parquet directory the cluster
    /// writes (`path`, or `--output`) or a table of its catalog (`table`); `replace` lets
    /// an existing one be replaced.
    pub(crate) fn check_spark_output(&self) -> Result<()> {
        let file = self.file_name();
        let output = &self.output;
        if output.url.is_some() {
            return Err(Error::config(
                &file,
                "output.url",
                "the Spark engine writes on the cluster: give `path` (a Parquet directory) \
                 or `table` (of the cluster's catalog), not a database url",
            ));
        }
        if output.path.is_some() && output.table.is_some() {
            return Err(Error::config(
                &file,
                "output.table",
                "give either `path` (a Parquet directory) or `table`, not both",
            ));
        }
        if let Some(format) = &output.format {
            if crate::data::table::Format::from_name(format)
                != Some(crate::data::table::Format::Parquet)
            {
                return Err(Error::config(
                    &file,
                    "output.format",
                    "the Spark engine writes Parquet",
                ));
            }
        }
        Ok(())
    }

    /// The key of what this job asks that the streaming engine (or, `spark`, the Spark
    /// engine) cannot do, and what it is. The Spark engine takes a research subset given
    /// by a flag column of the source, and δ-presence on it.
    pub(crate) fn streaming_refusal(&self, spark: bool) -> Option<(&'static str, String)> {
        let flagged = self
            .input
            .subset
            .as_ref()
            .is_some_and(|s| s.column.is_some() && s.file.is_none());
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
                self.input.subset.is_some() && !(spark && flagged),
                "input.subset",
                if spark {
                    "a research subset given by a file of keys (on the cluster, give it as a \
                     flag column, input.subset.column)"
                        .to_owned()
                } else {
                    "a research subset".to_owned()
                },
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
            (
                presence.is_some() && !spark,
                "privacy",
                "delta-presence".to_owned(),
            ),
        ]
        .into_iter()
        .find_map(|(bad, key, why)| bad.then_some((key, why)))
    }

    /// Each column of `scan`'s header: its role, and whether it is public. Every attribute
    /// named under `[attributes]` must be one of them.
    pub(crate) fn source_roles(
        &self,
        header: &[String],
        source: &Path,
    ) -> Result<(Vec<Role>, Vec<bool>)> {
        if let Some(name) = self.attributes.keys().find(|n| !header.contains(n)) {
            return Err(Error::config(
                self.file_name(),
                format!("attributes.{name}"),
                format!(
                    "no column `{}` in the header of {}",
                    excerpt(name),
                    source.display()
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
