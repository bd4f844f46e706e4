//! Errors of the engines that keep a job's rows outside memory (engine layer).

use std::path::PathBuf;

/// A pass of an engine that failed.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    /// The spill directory could not take or give back the sorted runs (full, gone, not
    /// writable).
    #[error("the spill directory {dir} ([engine] spill_dir) failed while sorting the released rows: {cause}")]
    Spill {
        /// The spill directory.
        dir: PathBuf,
        /// What the system said.
        cause: std::io::Error,
    },
    /// A row holds a value the frequency set did not count: the source was written to
    /// between two passes.
    #[error(
        "{path}: the value `{value}` of column `{column}` was not in the file when it was \
         first read: the file changed during the job (nothing was written)"
    )]
    Changed {
        /// The source.
        path: PathBuf,
        /// The column.
        column: String,
        /// The value (cut to 100 characters).
        value: String,
    },
    /// More identical rows than a frequency set counts.
    #[error("{0}: more than 4294967295 rows share one combination of quasi-identifiers and sensitive values")]
    TooManyAlike(PathBuf),
    /// Writing the release failed.
    #[error("writing the release: {0}")]
    Write(#[source] std::io::Error),
    /// The Spark cluster failed a pass over the source (or could not read it).
    #[error("{}: the Spark cluster said: {message}", path.display())]
    Spark {
        /// The source.
        path: PathBuf,
        /// What the cluster or the client said (its first lines).
        message: String,
    },
    /// What the engine does not do.
    #[error("the {engine} engine does not run {what}: {hint}")]
    Unsupported {
        /// The engine's name.
        engine: &'static str,
        /// What was asked.
        what: String,
        /// What to do instead.
        hint: &'static str,
    },
}
