//! Input files: which kinds of file are read, and how much of each. Every file the
//! library reads from a path goes through `open` (the config through [`read_config`], a
//! hierarchy file through `read_auxiliary`), so the rules and the limits are here, in one
//! place.
//!
//! - **Kinds.** A regular file (or a symlink to one) is read. A FIFO — a named pipe, or a
//!   shell's `<(zcat data.csv.gz)` — is read only as a CSV table or an Arrow IPC stream
//!   (a Parquet or Arrow IPC file is read from its end, so it must be a regular file) (the data file, a
//!   research subset's file, lgb's mask, `synth`'s input): streamed once, it is given on
//!   purpose. As a config, hierarchy or CON file a FIFO is refused before it is opened
//!   (those files are small, and opening a FIFO with no writer would wait forever). A
//!   device (`/dev/zero`), a socket or a directory is refused as any input, before it is
//!   opened. The refusal names the file and what it is.
//! - **Sizes.** In every CSV file (tables, hierarchies, CON files) a field may hold at most
//!   [`MAX_FIELD`] bytes and a line (a record, with its quoted line breaks) at most
//!   [`MAX_LINE`]; the error names the file, line and column. A config file may be at most
//!   [`MAX_CONFIG`], a hierarchy or CON file at most [`MAX_AUXILIARY`]. A table has no
//!   limit of its own: its rows are the data.

use std::fs::{self, File, FileType};
use std::io::{ErrorKind, Read};
use std::path::Path;

use crate::error::{Error, Result};

/// The most bytes a field of a CSV file may hold: 1 MiB.
pub const MAX_FIELD: usize = 1 << 20;
/// The most bytes a line (a record, quoted line breaks included) of a CSV file may hold:
/// 16 MiB.
pub const MAX_LINE: usize = 16 << 20;
/// The largest config file read: 4 MiB.
pub const MAX_CONFIG: u64 = 4 << 20;
/// The largest hierarchy or CON file read: 256 MiB.
pub const MAX_AUXILIARY: u64 = 256 << 20;

/// What an input file is read as.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A CSV table: a regular file or a FIFO, of any size.
    Table,
    /// A table read from its end (Parquet, an Arrow IPC file): a regular file, of any size.
    Seekable,
    /// The config: a regular file of at most [`MAX_CONFIG`] bytes.
    Config,
    /// A hierarchy or CON file: a regular file of at most [`MAX_AUXILIARY`] bytes.
    Auxiliary,
}

impl Kind {
    fn limit(self) -> Option<(u64, &'static str)> {
        match self {
            Kind::Table | Kind::Seekable => None,
            Kind::Config => Some((MAX_CONFIG, "a config file")),
            Kind::Auxiliary => Some((MAX_AUXILIARY, "a hierarchy or CON file")),
        }
    }
}

/// Opens `path` to be read as `kind`, after checking what it is (and again on the file
/// opened, in case it was replaced in between); see the module documentation.
pub(crate) fn open(path: &Path, kind: Kind) -> Result<File> {
    let metadata = fs::metadata(path).map_err(|e| Error::io(path, e))?;
    check(path, &metadata, kind)?;
    let file = File::open(path).map_err(|e| Error::io(path, e))?;
    let metadata = file.metadata().map_err(|e| Error::io(path, e))?;
    check(path, &metadata, kind)?;
    Ok(file)
}

/// The text of the config file at `path` (a regular file of at most [`MAX_CONFIG`] bytes,
/// in UTF-8).
pub fn read_config(path: &Path) -> Result<String> {
    let bytes = read_bounded(path, Kind::Config, MAX_CONFIG, "a config file")?;
    // the error `read_to_string` gives
    String::from_utf8(bytes).map_err(|_| {
        Error::io(
            path,
            std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                "stream did not contain valid UTF-8",
            ),
        )
    })
}

/// The bytes of the hierarchy (or CON) file at `path` (a regular file of at most
/// [`MAX_AUXILIARY`] bytes, refused if it grew past that since it was checked).
pub(crate) fn read_auxiliary(path: &Path) -> Result<Vec<u8>> {
    read_bounded(
        path,
        Kind::Auxiliary,
        MAX_AUXILIARY,
        "a hierarchy or CON file",
    )
}

/// The bytes of the file at `path`, opened as a `kind`, refused (as `what`) past `max`
/// bytes, also when it grew past them since it was checked. Read in one call into a
/// buffer sized from the file, rather than in calls doubling from 32 bytes.
fn read_bounded(path: &Path, kind: Kind, max: u64, what: &str) -> Result<Vec<u8>> {
    let file = open(path, kind)?;
    let size = file.metadata().map_or(0, |m| m.len().min(max));
    let mut bytes = Vec::with_capacity(usize::try_from(size).unwrap_or(0));
    file.take(max + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Error::io(path, e))?;
    if bytes.len() as u64 > max {
        return Err(too_large(path, max, what));
    }
    Ok(bytes)
}

fn check(path: &Path, metadata: &fs::Metadata, kind: Kind) -> Result<()> {
    let file_type = metadata.file_type();
    let allowed = file_type.is_file() || (kind == Kind::Table && is_fifo(&file_type));
    if !allowed {
        let what = describe(&file_type);
        let message = if is_fifo(&file_type) {
            format!(
                "is {what}, not a regular file: {} must be a regular file (only a CSV \
                 table or an Arrow IPC stream may come through a pipe)",
                if kind == Kind::Seekable {
                    "a Parquet or Arrow IPC file, read from its end,"
                } else {
                    "a config, hierarchy or CON file"
                }
            )
        } else {
            format!("is {what}, not a regular file or a FIFO: cellsafe does not read it")
        };
        return Err(refused(path, message));
    }
    match kind.limit() {
        Some((limit, what)) if file_type.is_file() && metadata.len() > limit => {
            Err(too_large(path, limit, what))
        }
        _ => Ok(()),
    }
}

fn too_large(path: &Path, limit: u64, what: &str) -> Error {
    refused(
        path,
        format!(
            "the file is larger than {} MiB, the most {what} may be",
            limit >> 20
        ),
    )
}

/// A file not read, as an I/O error naming it (it has no line to name).
fn refused(path: &Path, message: String) -> Error {
    Error::io(path, std::io::Error::new(ErrorKind::InvalidInput, message))
}

#[cfg(unix)]
fn is_fifo(file_type: &FileType) -> bool {
    use std::os::unix::fs::FileTypeExt;
    file_type.is_fifo()
}

#[cfg(not(unix))]
fn is_fifo(_: &FileType) -> bool {
    false
}

/// What a file that is not a regular file is, for messages: `a FIFO`, `a directory`, ...
pub(crate) fn describe(file_type: &FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if file_type.is_fifo() {
            return "a FIFO";
        }
        if file_type.is_char_device() {
            return "a character device";
        }
        if file_type.is_block_device() {
            return "a block device";
        }
        if file_type.is_socket() {
            return "a socket";
        }
    }
    if file_type.is_dir() {
        "a directory"
    } else if file_type.is_file() {
        "a regular file"
    } else {
        "a special file"
    }
}
