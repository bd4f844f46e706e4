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
use rustc_hash::FxHashMap;
use spark_connect::row::{Row, Value};
use spark_connect::{DataType, SparkSession};

use crate::data::table::{Dictionary, Table};
use crate::engine::{FrequencySet, ReleasePlan};
use crate::error::{EngineError, Error, Result};
use crate::observer::{Observer, Stage};
use crate::release::audit::{Counted, Group};
use crate::release::RowOrder;

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

/// The prefix of the names the passes give their own columns and views; refused as the
/// start of a source column's name.
const RESERVED: &str = "cellsafe_spark_";

/// Rows of a release per partition the cluster sorts and writes (one part file each).
const ROWS_PER_PART: u64 = 2_000_000;

/// The most partitions a release is written in.
const MAX_PARTS: u64 = 10_000;

/// The row id column the passes add.
const ROW_ID: &str = "cellsafe_spark_row_id";

/// A connection to a Spark Connect server and the source it reads.
pub struct Spark {
    session: SparkSession,
    remote: String,
    source: SparkSource,
    name: PathBuf,
    header: Vec<String>,
    /// Per column: whether it holds strings.
    text: Vec<bool>,
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
        let schema = session
            .sql(&format!("SELECT * FROM {}", source.relation()))
            .map_err(|e| spark_error(&name, e))?
            .schema()
            .map_err(|e| spark_error(&name, e))?;
        let DataType::Struct { fields } = schema else {
            return Err(spark_error(&name, "the source is not a table of columns"));
        };
        let header: Vec<String> = fields.iter().map(|f| f.name.clone()).collect();
        let text = fields
            .iter()
            .map(|f| {
                matches!(
                    f.data_type,
                    DataType::String { .. } | DataType::Char { .. } | DataType::Varchar { .. }
                )
            })
            .collect();
        if let Some(h) = header
            .iter()
            .find(|h| h.to_ascii_lowercase().starts_with(RESERVED))
        {
            return Err(EngineError::Spark {
                path: name,
                message: format!(
                    "a column may not be named `{}`: names starting with {RESERVED} are the \
                     engine's own",
                    crate::error::excerpt(h)
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
            text,
        })
    }

    /// Whether each column of the header holds strings (else its cells are printed by
    /// Spark's `CAST(… AS STRING)` to meet the hierarchies).
    fn is_text(&self, column: usize) -> bool {
        self.text[column]
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
        self.fetch_sized(sql).map(|(batches, _)| batches)
    }

    /// [`fetch`](Self::fetch), with the bytes of Arrow IPC that came to this machine.
    fn fetch_sized(&self, sql: &str) -> Result<(Vec<RecordBatch>, u64)> {
        let bytes = self
            .session
            .sql(sql)
            .map_err(|e| spark_error(&self.name, e))?
            .to_arrow()
            .map_err(|e| spark_error(&self.name, e))?;
        let size = bytes.len() as u64;
        if bytes.is_empty() {
            return Ok((Vec::new(), 0));
        }
        let reader = arrow_ipc::reader::FileReader::try_new(std::io::Cursor::new(bytes), None)
            .map_err(|e| spark_error(&self.name, e))?;
        let batches = reader
            .collect::<std::result::Result<Vec<_>, _>>()
            .map_err(|e| spark_error(&self.name, e))?;
        Ok((batches, size))
    }

    /// Pass 1 (see the module documentation): the frequency set of the columns
    /// `columns` (indices in the header), and where the columns `starless` first hold `*`.
    pub fn frequency_set(
        &self,
        columns: &[usize],
        starless: &[usize],
        observer: &dyn Observer,
    ) -> Result<SparkSet> {
        let stage = Stage::start(observer, "frequency set", None);
        let mut select: Vec<String> = Vec::new();
        let mut keys: Vec<String> = Vec::new();
        for (i, &c) in columns.iter().enumerate() {
            select.push(format!("{} AS c{i}", quoted(&self.header[c])));
            keys.push(format!("c{i}"));
            if !self.is_text(c) {
                select.push(format!(
                    "CAST({} AS STRING) AS t{i}",
                    quoted(&self.header[c])
                ));
                keys.push(format!("t{i}"));
            }
        }
        select.push("count(*) AS n".into());
        select.push(format!("min({ROW_ID}) AS first"));
        for (j, &c) in starless.iter().enumerate() {
            select.push(format!(
                "min(CASE WHEN CAST({} AS STRING) = '*' THEN {ROW_ID} END) AS s{j}",
                quoted(&self.header[c])
            ));
        }
        let sql = format!(
            "SELECT {} FROM {} GROUP BY {}",
            select.join(", "),
            self.numbered(),
            if keys.is_empty() {
                "()".to_owned()
            } else {
                keys.join(", ")
            }
        );
        let (batches, bytes) = self.fetch_sized(&sql)?;
        stage.check()?;
        let named = |batch: &RecordBatch, name: &str| -> Result<arrow_array::ArrayRef> {
            batch
                .column_by_name(name)
                .cloned()
                .ok_or_else(|| spark_error(&self.name, format!("no column {name} in the result")))
        };
        let int64 = |a: &arrow_array::ArrayRef| -> Result<arrow_array::Int64Array> {
            a.as_primitive_opt::<arrow_array::types::Int64Type>()
                .cloned()
                .ok_or_else(|| spark_error(&self.name, "a count is not a 64-bit integer"))
        };
        // per batch: the tuples' values as strings, Spark's own strings, count, first row
        struct Part {
            values: Vec<arrow_array::StringArray>,
            spark: Vec<Option<arrow_array::StringArray>>,
            n: arrow_array::Int64Array,
            first: arrow_array::Int64Array,
        }
        let mut parts = Vec::with_capacity(batches.len());
        for batch in &batches {
            let mut values = Vec::with_capacity(columns.len());
            let mut spark = Vec::with_capacity(columns.len());
            for (i, &c) in columns.iter().enumerate() {
                let typed = named(batch, &format!("c{i}"))?;
                values.push(
                    crate::data::table::arrow_strings(typed.as_ref())
                        .map_err(|e| spark_error(&self.name, e))?,
                );
                spark.push(if self.is_text(c) {
                    None
                } else {
                    Some(
                        crate::data::table::arrow_strings(named(batch, &format!("t{i}"))?.as_ref())
                            .map_err(|e| spark_error(&self.name, e))?,
                    )
                });
            }
            parts.push(Part {
                values,
                spark,
                n: int64(&named(batch, "n")?)?,
                first: int64(&named(batch, "first")?)?,
            });
        }
        // the tuples in the order of their first rows
        let mut tuples: Vec<(i64, usize, usize)> = Vec::new(); // (first, batch, row)
        for (b, part) in parts.iter().enumerate() {
            for r in 0..part.first.len() {
                tuples.push((part.first.value(r), b, r));
            }
        }
        tuples.sort_unstable();
        let mut dictionaries = vec![Dictionary::default(); columns.len()];
        let mut codes: Vec<Vec<u32>> = vec![Vec::with_capacity(tuples.len()); columns.len()];
        let mut spark_keys: Vec<FxHashMap<String, Vec<Option<String>>>> =
            vec![FxHashMap::default(); columns.len()];
        let mut weights = Vec::with_capacity(tuples.len());
        let mut lines = Vec::with_capacity(tuples.len());
        let mut rows: u64 = 0;
        let cell = |a: &arrow_array::StringArray, r: usize| -> Option<String> {
            (!a.is_null(r)).then(|| a.value(r).to_owned())
        };
        for &(first, b, r) in &tuples {
            let line = first as u64 + 1;
            let part = &parts[b];
            for (c, dictionary) in dictionaries.iter_mut().enumerate() {
                let own = cell(&part.values[c], r);
                let value = own.clone().unwrap_or_default();
                let key = match &part.spark[c] {
                    Some(spark) => cell(spark, r),
                    None => own,
                };
                let known = spark_keys[c].entry(value.clone()).or_default();
                if !known.contains(&key) {
                    known.push(key);
                }
                codes[c].push(dictionary.intern(&value, line));
            }
            let n = part.n.value(r) as u64;
            rows += n;
            weights
                .push(u32::try_from(n).map_err(|_| EngineError::TooManyAlike(self.name.clone()))?);
            lines.push(line);
        }
        let mut stars: Vec<Option<u64>> = vec![None; starless.len()];
        for batch in &batches {
            for (j, star) in stars.iter_mut().enumerate() {
                let at = int64(&named(batch, &format!("s{j}"))?)?;
                for r in 0..at.len() {
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
        Ok(SparkSet {
            set: FrequencySet {
                table,
                weights,
                rows,
                stars,
            },
            bytes,
            keys: columns.iter().copied().zip(spark_keys).collect(),
        })
    }

    /// The source with its rows numbered (column `ROW_ID`), as a relation.
    fn numbered(&self) -> String {
        format!(
            "(SELECT *, monotonically_increasing_id() AS {ROW_ID} FROM {})",
            self.source.relation()
        )
    }

    /// Sends `rows` (of the columns `fields`, all nullable) to the cluster as the
    /// temporary view `view` of this session.
    fn send(&self, view: &str, fields: &[(&str, DataType)], rows: Vec<Row>) -> Result<()> {
        let schema = DataType::Struct {
            fields: fields
                .iter()
                .map(|(name, data_type)| spark_connect::StructField {
                    name: (*name).to_owned(),
                    data_type: data_type.clone(),
                    nullable: true,
                    metadata: Default::default(),
                })
                .collect(),
        };
        let frame = self
            .session
            .create_dataframe(rows, schema)
            .map_err(|e| spark_error(&self.name, e))?;
        frame
            .create_or_replace_temp_view(view)
            .map_err(|e| spark_error(&self.name, e))
    }

    /// Pass 3 (see the module documentation): the release `plan` written by the cluster
    /// to `target`'s staging location; `set` is the frequency set the plan was searched
    /// on. With `members` (a column, by its index in the header, and the values of it, as
    /// the set holds them, that mark a row of the research subset), only those rows are
    /// released. Returns the rows written.
    pub fn release(
        &self,
        plan: &ReleasePlan,
        set: &SparkSet,
        members: Option<(usize, &[String])>,
        target: &Staging,
        observer: &dyn Observer,
    ) -> Result<u64> {
        let stage = Stage::start(observer, "release", None);
        let text = DataType::String {
            collation: "UTF8_BINARY".to_owned(),
        };
        // a view per quasi-identifier: each of its values as Spark prints it, the value's
        // group and the group's label
        let mut joins = String::new();
        // whether a row is suppressed: its class key is one of the suppressed classes'
        // (joined below, after the groups it is keyed by)
        let generalized = plan.released_columns().filter(|c| c.2.is_some()).count();
        let suppressed = if generalized > 0 {
            format!("x.{RESERVED}flag IS NOT NULL")
        } else if plan.suppressed_classes().next().is_some() {
            "true".to_owned()
        } else {
            "false".to_owned()
        };
        let mut cells = Vec::new();
        let mut quasi = 0;
        for (source, public, generalized) in plan.released_columns() {
            let name = quoted(&self.header[source]);
            let hidden = |cell: String| -> String {
                if public {
                    cell
                } else if self.is_text(source) || generalized.is_some() {
                    format!("CASE WHEN {suppressed} THEN '*' ELSE {cell} END")
                } else {
                    format!("CASE WHEN {suppressed} THEN NULL ELSE {cell} END")
                }
            };
            match generalized {
                None => cells.push(format!("{} AS {name}", hidden(format!("s.{name}")))),
                Some((groups, labels)) => {
                    let keys = set.keys.get(&source).ok_or_else(|| {
                        spark_error(&self.name, "a quasi-identifier is not in the frequency set")
                    })?;
                    let mut rows = Vec::new();
                    let fields = vec!["k".to_owned(), "g".to_owned(), "l".to_owned()];
                    for (value, &group) in groups {
                        for key in keys.get(value).into_iter().flatten() {
                            rows.push(Row::new(
                                fields.clone(),
                                vec![
                                    key.clone().map_or(Value::Null, Value::String),
                                    Value::Integer(group as i32),
                                    Value::String(labels[group as usize].clone()),
                                ],
                            ));
                        }
                    }
                    let view = format!("{RESERVED}map_{quasi}");
                    self.send(
                        &view,
                        &[
                            ("k", text.clone()),
                            ("g", DataType::Integer),
                            ("l", text.clone()),
                        ],
                        rows,
                    )?;
                    joins.push_str(&format!(
                        " LEFT JOIN {view} m{quasi} ON CAST(s.{name} AS STRING) <=> m{quasi}.k"
                    ));
                    cells.push(format!("{} AS {name}", hidden(format!("m{quasi}.l"))));
                    quasi += 1;
                }
            }
        }
        // the suppressed classes, by their groups
        if quasi > 0 {
            let fields: Vec<String> = (0..quasi).map(|q| format!("g{q}")).collect();
            let rows = plan
                .suppressed_classes()
                .map(|key| {
                    Row::new(
                        fields.clone(),
                        key.iter().map(|&g| Value::Integer(g as i32)).collect(),
                    )
                })
                .collect();
            let types: Vec<(&str, DataType)> = fields
                .iter()
                .map(|f| (f.as_str(), DataType::Integer))
                .collect();
            let view = format!("{RESERVED}suppressed");
            self.send(&view, &types, rows)?;
            joins.push_str(&format!(
                " LEFT JOIN (SELECT *, true AS {RESERVED}flag FROM {view}) x ON {}",
                (0..quasi)
                    .map(|q| format!("m{q}.g = x.g{q}"))
                    .collect::<Vec<_>>()
                    .join(" AND ")
            ));
        }
        // the written order: the source's (`keep_order`), or that of a keyed hash of each
        // row's number (60 bits of SHA-256 of the seed and the number), which tells nothing
        // of the source's. Shuffled rows are spread over `parts` partitions by their key and
        // sorted by it within each: written in partition order, that is one seeded
        // permutation, with no sampling pass over the rows as a global sort would make.
        let parts = (set.set.rows / ROWS_PER_PART).clamp(1, MAX_PARTS);
        let (key, order) = match plan.order {
            RowOrder::Input => (String::new(), format!("ORDER BY {RESERVED}row")),
            RowOrder::Shuffled(seed) => (
                format!(
                    ", CAST(conv(substring(sha2(concat('cellsafe-order-{seed}-', \
                     CAST({ROW_ID} AS STRING)), 256), 1, 15), 16, 10) AS BIGINT) AS \
                     {RESERVED}key"
                ),
                format!(
                    "DISTRIBUTE BY pmod({RESERVED}key, {parts}) SORT BY {RESERVED}key, \
                     {RESERVED}row"
                ),
            ),
        };
        // the research subset's rows: those whose flag Spark prints as a member's
        let subset = match members {
            None => "true".to_owned(),
            Some((column, values)) => {
                let keys = set.keys.get(&column).ok_or_else(|| {
                    spark_error(&self.name, "the subset's flag is not in the frequency set")
                })?;
                let mut printed: Vec<String> = Vec::new();
                let mut null = false;
                for value in values {
                    for key in keys.get(value).into_iter().flatten() {
                        match key {
                            Some(k) => printed.push(literal(k)),
                            None => null = true,
                        }
                    }
                }
                let name = quoted(&self.header[column]);
                let mut test = if printed.is_empty() {
                    "false".to_owned()
                } else {
                    format!("CAST(s.{name} AS STRING) IN ({})", printed.join(", "))
                };
                if null {
                    test = format!("({test} OR s.{name} IS NULL)");
                }
                test
            }
        };
        let names: Vec<String> = plan.header().iter().map(|h| quoted(h)).collect();
        let sql = format!(
            "SELECT {} FROM (SELECT {}, {ROW_ID} AS {RESERVED}row{key}, {suppressed} AS \
             {RESERVED}suppressed FROM {} s{joins} WHERE {subset}) WHERE {} {order}",
            names.join(", "),
            cells.join(", "),
            self.numbered(),
            if plan.dropped {
                format!("NOT {RESERVED}suppressed")
            } else {
                "true".to_owned()
            },
        );
        let frame = self
            .session
            .sql(&sql)
            .map_err(|e| spark_error(&self.name, e))?;
        let writer = frame.write().mode("errorifexists").format("parquet");
        match target {
            Staging::Path(path) => writer.save(Some(&path.display().to_string())),
            Staging::Table(name) => writer.save_as_table(name),
        }
        .map_err(|e| spark_error(&self.name, e))?;
        stage.check()?;
        let rows = self.count(&format!("SELECT count(*) AS n FROM {}", target.relation()))?;
        stage.add(rows);
        Ok(rows)
    }

    /// The one number `sql` selects.
    fn count(&self, sql: &str) -> Result<u64> {
        let batches = self.fetch(sql)?;
        let value = batches
            .iter()
            .find(|b| b.num_rows() > 0)
            .and_then(|b| {
                b.column(0)
                    .as_primitive_opt::<arrow_array::types::Int64Type>()
                    .map(|a| a.value(0))
            })
            .ok_or_else(|| spark_error(&self.name, "a count came back empty"))?;
        Ok(value as u64)
    }

    /// The audit count: the release written to `written`, read back by the cluster and
    /// counted by one `GROUP BY` over its quasi-identifier, public and sensitive cells (see
    /// [`Counted`]). Returns it with the bytes of Arrow fetched.
    pub fn audit_count(
        &self,
        written: &Staging,
        plan: &ReleasePlan,
        observer: &dyn Observer,
    ) -> Result<(Counted, u64)> {
        let stage = Stage::start(observer, "audit", None);
        let expected = plan.expected(&[]);
        let header = plan.header();
        let source_of =
            |name: &str| -> Option<usize> { self.header.iter().position(|h| h == name) };
        // a hidden cell reads as suppressed when it is `*` (a string) or null (a typed
        // column, which cannot hold `*`)
        let hidden: Vec<String> = header
            .iter()
            .filter(|h| !expected.public.contains(h))
            .map(|h| {
                let string =
                    expected.quasi.contains(h) || source_of(h).is_none_or(|c| self.is_text(c));
                if string {
                    format!("coalesce({} = '*', false)", quoted(h))
                } else {
                    format!("({} IS NULL)", quoted(h))
                }
            })
            .collect();
        let all_hidden = if hidden.is_empty() {
            "true".to_owned()
        } else {
            hidden.join(" AND ")
        };
        let relation = written.relation();
        let (totals, total_bytes) = self.fetch_sized(&format!(
            "SELECT count(*) AS n, count_if({all_hidden}) AS s FROM {relation}"
        ))?;
        let mut counted = Counted::default();
        for batch in &totals {
            for (c, into) in [(0, &mut counted.rows), (1, &mut counted.suppressed)] {
                if let Some(a) = batch
                    .column(c)
                    .as_primitive_opt::<arrow_array::types::Int64Type>()
                {
                    if !a.is_empty() && !a.is_null(0) {
                        *into = a.value(0) as u64;
                    }
                }
            }
        }
        let keys: Vec<&String> = expected.quasi.iter().chain(expected.public).collect();
        let mut select: Vec<String> = keys
            .iter()
            .chain(expected.sensitive.iter().collect::<Vec<_>>().iter())
            .enumerate()
            .map(|(i, h)| format!("{} AS v{i}", quoted(h)))
            .collect();
        let grouped: Vec<String> = (0..select.len()).map(|i| format!("v{i}")).collect();
        select.push("count(*) AS n".into());
        let sql = format!(
            "SELECT {} FROM {relation} WHERE NOT ({all_hidden}) GROUP BY {}",
            select.join(", "),
            if grouped.is_empty() {
                "()".to_owned()
            } else {
                grouped.join(", ")
            }
        );
        let (batches, bytes) = self.fetch_sized(&sql)?;
        stage.check()?;
        let bytes = bytes + total_bytes;
        let k = keys.len();
        let sensitive = expected.sensitive.len();
        for batch in &batches {
            let strings: Vec<arrow_array::StringArray> = (0..k + sensitive)
                .map(|i| crate::data::table::arrow_strings(batch.column(i).as_ref()))
                .collect::<std::result::Result<_, _>>()
                .map_err(|e| spark_error(&self.name, e))?;
            let n = batch
                .column(k + sensitive)
                .as_primitive_opt::<arrow_array::types::Int64Type>()
                .ok_or_else(|| spark_error(&self.name, "a count is not a 64-bit integer"))?;
            let cell = |a: &arrow_array::StringArray, r: usize| -> String {
                if a.is_null(r) {
                    String::new()
                } else {
                    a.value(r).to_owned()
                }
            };
            for r in 0..batch.num_rows() {
                let key: Vec<String> = strings[..k].iter().map(|a| cell(a, r)).collect();
                let rows = n.value(r) as u64;
                let group = counted.groups.entry(key).or_insert_with(|| Group {
                    rows: 0,
                    values: vec![FxHashMap::default(); sensitive],
                });
                group.rows += rows;
                for (values, a) in group.values.iter_mut().zip(&strings[k..]) {
                    *values.entry(cell(a, r)).or_default() += rows;
                }
            }
        }
        stage.add(counted.rows);
        Ok((counted, bytes))
    }
}

/// A frequency set counted on the cluster, with what the release needs to find its values
/// again there.
#[derive(Debug, Clone)]
pub struct SparkSet {
    /// The frequency set.
    pub set: FrequencySet,
    /// Bytes of Arrow IPC fetched for it (what came to this machine).
    pub bytes: u64,
    /// Per column counted (its index in the header): each value as the set holds it, and
    /// the cells Spark prints for it (`CAST(… AS STRING)`; none for a null).
    keys: FxHashMap<usize, FxHashMap<String, Vec<Option<String>>>>,
}

/// Where the cluster writes a release before it is audited and moved into place.
#[derive(Debug, Clone, PartialEq)]
pub enum Staging {
    /// A Parquet directory.
    Path(PathBuf),
    /// A table of the catalog.
    Table(String),
}

impl Staging {
    /// The staging location as a relation in Spark SQL.
    fn relation(&self) -> String {
        match self {
            Staging::Path(path) => format!("parquet.{}", quoted(&path.display().to_string())),
            Staging::Table(name) => name.split('.').map(quoted).collect::<Vec<_>>().join("."),
        }
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

/// Where a release on the cluster goes.
#[derive(Debug, Clone, PartialEq)]
pub enum Destination {
    /// A Parquet directory, on a file system both the cluster and this machine see (the
    /// audited release is moved into place from here).
    Path(PathBuf),
    /// A table of the cluster's catalog.
    Table(String),
}

impl Destination {
    /// The destination as the report names it.
    pub fn describe(&self) -> String {
        match self {
            Destination::Path(p) => p.display().to_string(),
            Destination::Table(t) => format!("spark table {t}"),
        }
    }
}

/// The staging locations of this process not yet published or removed, each with its
/// session, for [`interrupted`].
static PENDING: std::sync::Mutex<Vec<(SparkSession, Staging)>> = std::sync::Mutex::new(Vec::new());

fn pending() -> std::sync::MutexGuard<'static, Vec<(SparkSession, Staging)>> {
    PENDING
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// For a signal handler: stops this process's operations on the cluster and removes every
/// staging location not yet published (a Parquet directory, or a table). The process must
/// exit right after it.
pub fn interrupted() {
    let staged: Vec<(SparkSession, Staging)> = std::mem::take(&mut *pending());
    for (session, staging) in staged {
        let _ = session.interrupt_all();
        remove_staging(&session, &staging);
    }
}

/// Removes a staging location (what this process created, and only that).
fn remove_staging(session: &SparkSession, staging: &Staging) {
    match staging {
        Staging::Path(path) => {
            if path.is_dir() {
                let _ = std::fs::remove_dir_all(path);
            }
        }
        Staging::Table(_) => {
            let _ = execute(
                session,
                &format!("DROP TABLE IF EXISTS {}", staging.relation()),
            );
        }
    }
}

/// Runs the statement `sql` on the cluster; an error as a message.
fn execute(session: &SparkSession, sql: &str) -> std::result::Result<(), String> {
    let frame = session.sql(sql).map_err(message)?;
    frame.collect_record_batches().map_err(message)?;
    Ok(())
}

/// A name no other run takes: this process's id and the clock's nanoseconds.
fn unique() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    format!("{}_{nanos}", std::process::id())
}

/// A release staged on the cluster: removed when dropped unless published.
pub struct Staged<'a> {
    spark: &'a Spark,
    destination: Destination,
    staging: Staging,
    replace: bool,
}

impl Spark {
    /// Whether `destination` exists; an error if it does and `replace` is false.
    pub fn check_destination(&self, destination: &Destination, replace: bool) -> Result<()> {
        let exists = match destination {
            Destination::Path(path) => {
                let parent = path
                    .parent()
                    .filter(|p| !p.as_os_str().is_empty())
                    .unwrap_or(Path::new("."));
                if !parent.is_dir() {
                    return Err(Error::io(
                        path,
                        std::io::Error::new(
                            std::io::ErrorKind::NotFound,
                            "its directory is not on this machine: the Spark engine moves \
                             the audited release into place from here, so give a path on a \
                             file system both this machine and the cluster see, or \
                             [output] table",
                        ),
                    ));
                }
                path.symlink_metadata().is_ok()
            }
            Destination::Table(name) => self
                .session
                .catalog()
                .table_exists(name)
                .map_err(|e| spark_error(&self.name, e))?,
        };
        if exists && !replace {
            return Err(Error::io(
                destination.describe(),
                std::io::Error::new(
                    std::io::ErrorKind::AlreadyExists,
                    "exists: remove it, or set [output] replace = true",
                ),
            ));
        }
        Ok(())
    }

    /// A staging location beside `destination`, removed on failure and on interrupt.
    pub fn stage(&self, destination: &Destination, replace: bool) -> Result<Staged<'_>> {
        let staging = match destination {
            Destination::Path(path) => {
                let name = path
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default();
                Staging::Path(path.with_file_name(format!("{name}.{RESERVED}staging_{}", unique())))
            }
            Destination::Table(name) => {
                Staging::Table(format!("{name}_{RESERVED}staging_{}", unique()))
            }
        };
        pending().push((self.session.clone(), staging.clone()));
        Ok(Staged {
            spark: self,
            destination: destination.clone(),
            staging,
            replace,
        })
    }
}

impl Staged<'_> {
    /// Where the release is staged.
    pub fn location(&self) -> &Staging {
        &self.staging
    }

    /// Moves the staged release onto its destination (replacing what is there, when
    /// allowed): a directory by two renames on this machine, a table by `DROP TABLE` and
    /// `ALTER TABLE … RENAME TO` on the cluster.
    pub fn publish(self) -> Result<()> {
        let spark = self.spark;
        match (&self.destination, &self.staging) {
            (Destination::Path(target), Staging::Path(staged)) => {
                let old = target.with_file_name(format!(
                    "{}.{RESERVED}old_{}",
                    target
                        .file_name()
                        .map(|n| n.to_string_lossy().into_owned())
                        .unwrap_or_default(),
                    unique()
                ));
                let moved = target.symlink_metadata().is_ok();
                if moved {
                    if !self.replace {
                        return Err(Error::io(
                            target,
                            std::io::Error::new(
                                std::io::ErrorKind::AlreadyExists,
                                "appeared while the job ran: nothing was replaced",
                            ),
                        ));
                    }
                    std::fs::rename(target, &old).map_err(|e| Error::io(target, e))?;
                }
                if let Err(e) = std::fs::rename(staged, target) {
                    if moved {
                        let _ = std::fs::rename(&old, target);
                    }
                    return Err(Error::io(target, e));
                }
                self.forget();
                if moved {
                    if old.is_dir() {
                        let _ = std::fs::remove_dir_all(&old);
                    } else {
                        let _ = std::fs::remove_file(&old);
                    }
                }
            }
            (Destination::Table(target), staging @ Staging::Table(_)) => {
                let run = |sql: String| -> Result<()> {
                    execute(&spark.session, &sql).map_err(|e| spark_error(&spark.name, e))
                };
                let target = Staging::Table(target.clone());
                if self.replace {
                    run(format!("DROP TABLE IF EXISTS {}", target.relation()))?;
                }
                run(format!(
                    "ALTER TABLE {} RENAME TO {}",
                    staging.relation(),
                    target.relation()
                ))?;
                self.forget();
            }
            _ => unreachable!("a staging location is of its destination's kind"),
        }
        Ok(())
    }

    /// Unregisters the staging location, which is published.
    fn forget(&self) {
        pending().retain(|(_, s)| *s != self.staging);
    }
}

impl Drop for Staged<'_> {
    fn drop(&mut self) {
        let mut pending = pending();
        if let Some(i) = pending.iter().position(|(_, s)| *s == self.staging) {
            pending.swap_remove(i);
            drop(pending);
            remove_staging(&self.spark.session, &self.staging);
        }
    }
}
