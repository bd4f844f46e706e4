//! Typed errors of the library.
//!
//! Every error that comes from user input says where the input went wrong: a file with
//! its line and column, or a configuration key. Front ends print the `Display` form as is.

use std::fmt;
use std::path::PathBuf;

/// A place in a user-supplied file: path, and line / column when known (both 1-based).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    pub path: PathBuf,
    pub line: Option<u64>,
    pub column: Option<u64>,
}

impl Location {
    pub fn file(path: impl Into<PathBuf>) -> Self {
        Location {
            path: path.into(),
            line: None,
            column: None,
        }
    }
    pub fn at(path: impl Into<PathBuf>, line: u64, column: Option<u64>) -> Self {
        Location {
            path: path.into(),
            line: Some(line),
            column,
        }
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.path.display())?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
            if let Some(column) = self.column {
                write!(f, ":{column}")?;
            }
        }
        Ok(())
    }
}

/// Everything that can go wrong in cellsafe.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A file could not be read or written. The cause is part of the message and is not
    /// also reported as `source()`, so a printed error chain names it once.
    #[error("{path}: {cause}")]
    Io {
        path: PathBuf,
        cause: std::io::Error,
    },
    /// A data or hierarchy file is malformed or inconsistent.
    #[error("{at}: {message}")]
    Data { at: Location, message: String },
    /// The configuration file does not parse.
    #[error("{at}: {message}")]
    ConfigSyntax { at: Location, message: String },
    /// A configuration key has a value that cannot be used.
    #[error("{file}: config key `{key}`: {message}")]
    Config {
        file: String,
        key: String,
        message: String,
    },
    /// The library was called with arguments that do not fit the problem
    /// (for example a level vector of the wrong length).
    #[error("{0}")]
    Invalid(String),
    /// An exact method cannot handle an instance this large (a budget was exceeded, or a
    /// count does not fit in 128 bits); another method may.
    #[error("too large for this method: {0}")]
    Intractable(String),
    /// An output path names the same file as an input or as another output, so writing it
    /// would destroy data. `input_what` / `input` is the other output in the second case.
    #[error(
        "{output_what} {output} is the same file as {input_what} {input}; choose another path"
    )]
    PathClash {
        output_what: String,
        output: PathBuf,
        input_what: String,
        input: PathBuf,
    },
    /// Another live process holds the lock on an output.
    #[error("another cellsafe run is writing {path}")]
    Busy { path: PathBuf },
    /// No transformation satisfies the privacy models within the suppression limit.
    #[error("no transformation satisfies the privacy models within the suppression limit")]
    NothingAcceptable,
    /// An [`Observer`](crate::observer::Observer) asked the work to stop; it stopped
    /// without a result.
    #[error("cancelled")]
    Cancelled,
    /// The run was interrupted; nothing more is written.
    #[error("interrupted: no output was written")]
    Interrupted,
    /// Renaming a staged file onto its target failed. Targets renamed before it keep their
    /// new content and are listed in `committed`.
    #[error("{path}: {cause}{}", incomplete(.committed))]
    Commit {
        path: PathBuf,
        cause: std::io::Error,
        committed: Vec<PathBuf>,
    },
    /// The independent audit of a staged release failed: nothing was written.
    #[error("{path}: the independent audit of the release failed, so nothing was written: {}", .violations.join("; "))]
    AuditFailed {
        path: PathBuf,
        violations: Vec<String>,
    },
}

fn incomplete(committed: &[PathBuf]) -> String {
    if committed.is_empty() {
        return String::new();
    }
    let names: Vec<String> = committed.iter().map(|p| p.display().to_string()).collect();
    format!(
        " (the release is incomplete: already written: {})",
        names.join(", ")
    )
}

impl Error {
    /// The same error naming `user` where it named `internal` (a staged temporary file).
    pub fn with_path(self, internal: &std::path::Path, user: &std::path::Path) -> Error {
        match self {
            Error::Io { path, cause } if path == internal => Error::Io {
                path: user.to_owned(),
                cause,
            },
            Error::Data { mut at, message } if at.path == internal => {
                at.path = user.to_owned();
                Error::Data { at, message }
            }
            other => other,
        }
    }

    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io {
            path: path.into(),
            cause: source,
        }
    }
    pub(crate) fn data(at: Location, message: impl Into<String>) -> Self {
        Error::Data {
            at,
            message: message.into(),
        }
    }
    pub(crate) fn config(
        file: impl Into<String>,
        key: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        Error::Config {
            file: file.into(),
            key: key.into(),
            message: message.into(),
        }
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Most characters of a user value [`excerpt`] echoes into a message.
pub const EXCERPT_CHARS: usize = 40;

/// `value` cut to [`EXCERPT_CHARS`] characters (then `…`), for echoing user data into an
/// error message: a value can be megabytes long.
pub fn excerpt(value: &str) -> std::borrow::Cow<'_, str> {
    cut(value, EXCERPT_CHARS)
}

/// `text` cut to `chars` characters (then `…`), on a char boundary.
pub(crate) fn cut(text: &str, chars: usize) -> std::borrow::Cow<'_, str> {
    match text.char_indices().nth(chars) {
        None => text.into(),
        Some((at, _)) => format!("{}…", &text[..at]).into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn excerpt_cuts_long_values_on_a_char_boundary() {
        assert_eq!(excerpt("short"), "short");
        let exact = "x".repeat(EXCERPT_CHARS);
        assert_eq!(excerpt(&exact), exact);
        let long = "é".repeat(10_000_000);
        let cut = excerpt(&long);
        assert_eq!(cut.chars().count(), EXCERPT_CHARS + 1);
        assert!(cut.ends_with("é…"));
    }
}
