//! The Spark engine's connection and its first pass: a job's rows stay on an Apache Spark
//! cluster, reached through Spark Connect (`apache-spark-connect`, the official Rust
//! client), and only what the search needs comes to this machine.
//!
//! **Frequency set.** One `GROUP BY` on the cluster over the quasi-identifiers and
//! sensitive columns, fetched as Arrow: per distinct tuple, its rows and the first row
//! holding it (Spark's `monotonically_increasing_id`, which grows with the source's order).
//! The tuples' values come back in their Spark types and are printed here by Arrow's cast,
//! as every other source is read ([`crate::data::table`]), so the same value reads as the
//! same string whatever engine counts it; the tuples are ordered by their first row, so
//! each column's values are coded in the order they first occur, as a table read whole
//! codes them. Bytes moved here: the frequency set, never the rows.
//!
//! **Where a row is.** Spark numbers rows with `monotonically_increasing_id`: the row's
//! position within its partition plus the partition's index times 2³³. A "line" in this
//! engine's messages is that id + 1; for a source read as one partition it is the row's
//! 1-based position.
//!
//! The release plan and the audit count on the cluster come next (issue 31); until then
//! this module serves the frequency set and the connection's checks.

use std::path::{Path, PathBuf};

use arrow_array::cast::AsArray;
use arrow_array::{Array, RecordBatch};
use spark_connect::SparkSession;

use crate::data::table::{Dictionary, Table};
use crate::engine::FrequencySet;
use crate::error::{EngineError, Error, Result};
use crate::observer::{Observer, Stage};

/// The environment variable a Spark Connect token is read from (never from the url).
pub const TOKEN_VARIABLE: &str = "CELLSAFE_SPARK_TOKEN";

/// Where the rows are on the cluster.
#[derive(Debug, Clone, PartialEq)]
pub enum SparkSource {
    /// A table of the cluster's catalog.
    Table(String),
    /// A Parquet file or directory the cluster can read.
    Parquet(PathBuf),
    /// A CSV file or directory the cluster can read, with a header row.
    Csv {
        /// The file or directory.
        path: PathBuf,
        /// The field separator.
        delimiter: u8,
    },
    /// The rows of a SQL query run by the cluster.
    Query(String),
}

impl SparkSource {
    /// The source as a relation in Spark SQL.
    fn relation(&self) -> String {
        match self {
            SparkSource::Table(name) => name.split('.').map(quoted).collect::<Vec<_>>().join("."),
            SparkSource::Parquet(path) => {
                format!("parquet.{}", quoted(&path.display().to_string()))
            }
            SparkSource::Csv { path, delimiter } => format!(
                "(SELECT * FROM read_files({}, format => 'csv', header => true, sep => {}, \
                 inferSchema => true))",
                literal(&path.display().to_string()),
                literal(&(*delimiter as char).to_string())
            ),
            SparkSource::Query(sql) => format!("({sql})"),
        }
    }
    /// The source's name in messages.
    fn name(&self) -> PathBuf {
        match self {
            SparkSource::Table(name) => PathBuf::from(format!("spark table {name}")),
            SparkSource::Parquet(path) | SparkSource::Csv { path, .. } => path.clone(),
            SparkSource::Query(_) => PathBuf::from("spark query"),
        }
    }
}

/// `name` as a Spark SQL identifier: in backquotes, each backquote doubled.
fn quoted(name: &str) -> String {
    format!("`{}`", name.replace('`', "``"))
}

/// `text` as a Spark SQL string literal.
fn literal(text: &str) -> String {
    format!("'{}'", text.replace('\\', "\\\\").replace('\'', "\\'"))
}

/// The name of the row id column the passes add; refused as a source column's name.
const ROW_ID: &str = "cellsafe_spark_row_id";

/// A connection to a Spark Connect server and the source it reads.
pub struct Spark {
    session: SparkSession,
    remote: String,
    source: SparkSource,
    name: PathBuf,
    header: Vec<String>,
}

impl std::fmt::Debug for Spark {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Spark")
            .field("remote", &self.remote)
            .field("source", &self.source)
            .finish()
    }
}

/// An error of the server or the client, as a message.
fn message(e: impl std::fmt::Display) -> String {
    let text = e.to_string();
    // the server's messages can run to a stack trace: the first lines say what happened
    let lines: Vec<&str> = text.lines().take(4).collect();
    lines.join(" ")
}

impl Spark {
    /// Connects to the Spark Connect server at `remote` (`sc://host:port`; a token comes
    /// from [`TOKEN_VARIABLE`], never from the url) and reads `source`'s columns. `file`
    /// names the config in errors, which name `engine.remote` when the server cannot be
    /// reached.
    pub fn connect(remote: &str, source: SparkSource, file: &str) -> Result<Spark> {
        let key = "engine.remote";
        // checked first, so that no message repeats it
        if remote.to_ascii_lowercase().contains("token=") {
            return Err(Error::config(
                file,
                key,
                format!(
                    "a token in the url would be written into reports and logs: give it in \
                     the environment variable {TOKEN_VARIABLE}"
                ),
            ));
        }
        if !remote.starts_with("sc://") {
            return Err(Error::config(
                file,
                key,
                format!("`{remote}` is not a Spark Connect url (sc://host:port)"),
            ));
        }
        let mut url = remote.trim_end_matches('/').to_owned();
        if let Ok(token) = std::env::var(TOKEN_VARIABLE) {
            if !token.is_empty() {
                url.push_str(if url.contains(";") { ";" } else { "/;" });
                url.push_str(&format!("token={token}"));
            }
        }
        let unreachable = |e: String| {
            Error::config(
                file,
                key,
                format!("cannot reach the Spark Connect server at {remote}: {e}"),
            )
        };
        // the client retries a refused connection without end: the server is reached
        // first, within a few seconds
        reachable(remote).map_err(unreachable)?;
        let session = SparkSession::builder()
            .remote(&url)
            .get_or_create()
            .map_err(|e| unreachable(message(e)))?;
        session.version().map_err(|e| unreachable(message(e)))?;
        let name = source.name();
        let header = session
            .sql(&format!("SELECT * FROM {}", source.relation()))
            .map_err(|e| spark_error(&name, e))?
            .columns()
            .map_err(|e| spark_error(&name, e))?;
        if header.iter().any(|h| h == ROW_ID) {
            return Err(EngineError::Spark {
                path: name,
                message: format!(
                    "a column may not be named {ROW_ID}: the engine numbers rows under that name"
                ),
            }
            .into());
        }
        Ok(Spark {
            session,
            remote: remote.to_owned(),
            source,
            name,
            header,
        })
    }

    /// The source's column names, as the cluster reads them.
    pub fn header(&self) -> &[String] {
        &self.header
    }

    /// What the rows are read from, for messages.
    pub fn source(&self) -> &Path {
        &self.name
    }

    /// The server this engine runs on (`engine.remote`, without a token).
    pub fn remote(&self) -> &str {
        &self.remote
    }

    /// Runs `sql` on the cluster and fetches its result as Arrow record batches.
    fn fetch(&self, sql: &str) -> Result<Vec<RecordBatch>> {
        let bytes = self
            .session
            .sql(sql)
            .map_err(|e| spark_error(&self.name, e))?
            .to_arrow()
            .map_err(|e| spark_error(&self.name, e))?;
        if bytes.is_empty() {
            return Ok(Vec::new());
        }
        let reader = arrow_ipc::reader::FileReader::try_new(std::io::Cursor::new(bytes), None)
            .map_err(|e| spark_error(&self.name, e))?;
        reader
            .collect::<std::result::Result<Vec<_>, _>>()
            .map_err(|e| spark_error(&self.name, e))
    }

    /// Pass 1 (see the module documentation): the frequency set of the columns
    /// `columns` (indices in the header), and where the columns `starless` first hold `*`.
    /// Returns it with the bytes of Arrow fetched.
    pub fn frequency_set(
        &self,
        columns: &[usize],
        starless: &[usize],
        observer: &dyn Observer,
    ) -> Result<(FrequencySet, u64)> {
        let stage = Stage::start(observer, "frequency set", None);
        let mut select: Vec<String> = columns
            .iter()
            .enumerate()
            .map(|(i, &c)| format!("{} AS c{i}", quoted(&self.header[c])))
            .collect();
        let keys: Vec<String> = (0..columns.len()).map(|i| format!("c{i}")).collect();
        select.push("count(*) AS n".into());
        select.push(format!("min({ROW_ID}) AS first"));
        for (j, &c) in starless.iter().enumerate() {
            select.push(format!(
                "min(CASE WHEN CAST({} AS STRING) = '*' THEN {ROW_ID} END) AS s{j}",
                quoted(&self.header[c])
            ));
        }
        let sql = format!(
            "SELECT {} FROM (SELECT *, monotonically_increasing_id() AS {ROW_ID} FROM {}) \
             GROUP BY {}",
            select.join(", "),
            self.source.relation(),
            if keys.is_empty() {
                "()".to_owned()
            } else {
                keys.join(", ")
            }
        );
        let batches = self.fetch(&sql)?;
        stage.check()?;
        let fetched: u64 = batches
            .iter()
            .map(|b| b.get_array_memory_size() as u64)
            .sum();
        // the tuples in the order of their first rows
        let mut tuples: Vec<(i64, usize, usize)> = Vec::new(); // (first, batch, row)
        for (b, batch) in batches.iter().enumerate() {
            let first = batch
                .column(columns.len() + 1)
                .as_primitive::<arrow_array::types::Int64Type>();
            for r in 0..batch.num_rows() {
                tuples.push((first.value(r), b, r));
            }
        }
        tuples.sort_unstable();
        let strings: Vec<Vec<arrow_array::StringArray>> = batches
            .iter()
            .map(|batch| {
                (0..columns.len())
                    .map(|c| crate::data::table::arrow_strings(batch.column(c).as_ref()))
                    .collect::<std::result::Result<Vec<_>, _>>()
            })
            .collect::<std::result::Result<_, _>>()
            .map_err(|e| spark_error(&self.name, e))?;
        let mut dictionaries = vec![Dictionary::default(); columns.len()];
        let mut codes: Vec<Vec<u32>> = vec![Vec::with_capacity(tuples.len()); columns.len()];
        let mut weights = Vec::with_capacity(tuples.len());
        let mut lines = Vec::with_capacity(tuples.len());
        let mut rows: u64 = 0;
        for &(first, b, r) in &tuples {
            let line = first as u64 + 1;
            for (c, dictionary) in dictionaries.iter_mut().enumerate() {
                let cells = &strings[b][c];
                let value = if cells.is_null(r) { "" } else { cells.value(r) };
                codes[c].push(dictionary.intern(value, line));
            }
            let n = batches[b]
                .column(columns.len())
                .as_primitive::<arrow_array::types::Int64Type>()
                .value(r) as u64;
            rows += n;
            weights
                .push(u32::try_from(n).map_err(|_| EngineError::TooManyAlike(self.name.clone()))?);
            lines.push(line);
        }
        let mut stars: Vec<Option<u64>> = vec![None; starless.len()];
        for batch in &batches {
            for (j, star) in stars.iter_mut().enumerate() {
                let at = batch
                    .column(columns.len() + 2 + j)
                    .as_primitive::<arrow_array::types::Int64Type>();
                for r in 0..batch.num_rows() {
                    if !at.is_null(r) {
                        let line = at.value(r) as u64 + 1;
                        *star = Some(star.map_or(line, |s: u64| s.min(line)));
                    }
                }
            }
        }
        let header: Vec<String> = columns.iter().map(|&c| self.header[c].clone()).collect();
        stage.add(rows);
        let table = Table::from_encoded(&self.name, header, codes, dictionaries, lines);
        Ok((
            FrequencySet {
                table,
                weights,
                rows,
                stars,
            },
            fetched,
        ))
    }
}

/// Whether the host and port of the Spark Connect url `remote` accept a connection
/// within five seconds (the port defaults to 15002, as Spark Connect's).
fn reachable(remote: &str) -> std::result::Result<(), String> {
    use std::net::ToSocketAddrs;
    let rest = remote.trim_start_matches("sc://");
    let authority = rest.split(['/', ';']).next().unwrap_or("");
    let authority = if authority
        .rsplit_once(':')
        .is_some_and(|(_, p)| p.parse::<u16>().is_ok())
    {
        authority.to_owned()
    } else {
        format!("{authority}:15002")
    };
    let addresses = authority
        .to_socket_addrs()
        .map_err(|e| format!("cannot resolve {authority}: {e}"))?;
    let mut last = format!("{authority} has no address");
    for address in addresses {
        match std::net::TcpStream::connect_timeout(&address, std::time::Duration::from_secs(5)) {
            Ok(_) => return Ok(()),
            Err(e) => last = format!("{address}: {e}"),
        }
    }
    Err(last)
}

/// An error of the cluster while reading `source`.
fn spark_error(source: &Path, e: impl std::fmt::Display) -> Error {
    EngineError::Spark {
        path: source.to_owned(),
        message: message(e),
    }
    .into()
}
