//! Engines: where a job's rows are, and the three passes a full-domain job makes over them.
//!
//! The search never needs the rows themselves, only their frequency set: the distinct
//! tuples of quasi-identifiers and sensitive values, each with the number of rows it
//! stands for (a weighted [`Dataset`](crate::framework::dataset::Dataset); the search
//! finds on it what it finds on the full table). So a job runs as
//!
//! 1. **frequency set** ([`Engine::frequency_set`]): one grouping pass over the source;
//! 2. **search**, in memory, on the frequency set, exactly as for a table in memory
//!    ([`Anonymizer::search`](crate::anonymizer::Anonymizer::search));
//! 3. **release** ([`Engine::release`]): each source row mapped through the
//!    [`ReleasePlan`] (labels, suppression by class), in the seeded order of
//!    [`OrderKeys`], written as CSV; then the **audit count**
//!    ([`Engine::audit_count`]): the written file read back and counted, judged by
//!    [`audit_counts`](crate::release::audit::audit_counts) against the search's classes.
//!
//! An engine implements these passes and nothing else, so the search never knows where
//! the rows are. [`Local`] implements them over any [`RowSource`] on this machine: a
//! [`Table`] in memory ([`Memory`]) or a file scanned a batch
//! at a time ([`Streaming`]), whose memory is bounded by the frequency set and the sort's
//! budget whatever the number of rows. Both write exactly what the in-memory
//! [`Anonymizer`](crate::anonymizer::Anonymizer) writes for the same job, byte for byte.
//! `job::stream` chains the passes for a job's config.

pub mod plan;
mod sort;
#[cfg(feature = "spark")]
pub mod spark;

use std::io::Write;
use std::path::{Path, PathBuf};

use rustc_hash::FxHashMap;

pub use plan::ReleasePlan;

use crate::data::table::scan::{Batch, RowSource, Scan};
use crate::data::table::{CsvFormat, Dictionary, Format, Table};
use crate::data::SUPPRESSED;
use crate::error::{EngineError, Error, Result};
use crate::observer::Observer;
use crate::release::audit::{Counted, Group};
use crate::release::{OrderKeys, RowOrder};

/// The distinct tuples of some columns of a source, each with the rows it stands for.
#[derive(Debug, Clone)]
pub struct FrequencySet {
    /// One row per distinct tuple, in the order each first occurs in the source (so each
    /// column's values are met in the source's order too); a row's line is where its
    /// tuple first occurs.
    pub table: Table,
    /// Rows of the source holding each tuple.
    pub weights: Vec<u32>,
    /// Rows of the source.
    pub rows: u64,
    /// Per column asked to hold no `*` (see [`Engine::frequency_set`]): the line where one
    /// first occurs, if any.
    pub stars: Vec<Option<u64>>,
}

/// The passes of a job over rows kept somewhere (see the module documentation).
pub trait Engine {
    /// The engine's name, for messages and the report.
    fn name(&self) -> &'static str;
    /// What the rows are read from, for messages.
    fn source(&self) -> &Path;
    /// The source's column names.
    fn header(&self) -> &[String];
    /// Pass 1: the frequency set of the columns `columns` (indices in the header), and
    /// where the columns `starless` first hold `*` (a released cell that would read as
    /// suppressed).
    fn frequency_set(
        &self,
        columns: &[usize],
        starless: &[usize],
        observer: &dyn Observer,
    ) -> Result<FrequencySet>;
    /// Pass 3: writes the release `plan` as CSV (header first) to `out` and, when asked,
    /// the mapping from released rows to source lines to `mapping`. Returns what it did.
    fn release(
        &self,
        plan: &ReleasePlan,
        out: &mut dyn Write,
        mapping: Option<&mut dyn Write>,
        observer: &dyn Observer,
    ) -> Result<Released>;
    /// The audit count: the written release (CSV with a header row, laid out as the plan
    /// says, opened with [`written`]), read back as a recipient would and counted (see
    /// [`Counted`]).
    fn audit_count(
        &self,
        written: &Scan,
        plan: &ReleasePlan,
        observer: &dyn Observer,
    ) -> Result<Counted>;
}

/// A distinct tuple met by the frequency set pass.
struct Tuple {
    /// Rows holding it.
    rows: u64,
    /// The first of them (0-based) and its line.
    first: u64,
    line: u64,
}

/// What the release pass did.
#[derive(Debug, Clone, Copy, Default, serde::Serialize)]
pub struct Released {
    /// Rows written.
    pub rows: u64,
    /// Bytes of sorted rows spilled to the spill directory.
    pub spilled_bytes: u64,
}

/// The passes run on this machine over a [`RowSource`].
pub struct Local<S> {
    rows: S,
    /// Bytes the sort may hold before spilling.
    sort_budget: usize,
    spill_dir: PathBuf,
    name: &'static str,
}

/// The engine over a table in memory.
pub type Memory = Local<Table>;
/// The engine over a file scanned a batch at a time.
pub type Streaming = Local<Scan>;

impl Local<Table> {
    /// The engine over `table`, sorting in memory.
    pub fn memory(table: Table) -> Memory {
        Local {
            rows: table,
            sort_budget: usize::MAX,
            spill_dir: std::env::temp_dir(),
            name: "memory",
        }
    }
}

impl Local<Scan> {
    /// The engine over the file `scan`, whose sort holds at most `sort_budget` bytes and
    /// spills to `spill_dir` beyond.
    pub fn streaming(scan: Scan, sort_budget: usize, spill_dir: &Path) -> Streaming {
        Local {
            rows: scan,
            sort_budget,
            spill_dir: spill_dir.to_owned(),
            name: "streaming",
        }
    }
}

impl<S: RowSource> Local<S> {
    /// The rows.
    pub fn rows(&self) -> &S {
        &self.rows
    }
}

impl<S: RowSource> Engine for Local<S> {
    fn name(&self) -> &'static str {
        self.name
    }
    fn source(&self) -> &Path {
        self.rows.source()
    }
    fn header(&self) -> &[String] {
        self.rows.header()
    }

    fn frequency_set(
        &self,
        columns: &[usize],
        starless: &[usize],
        observer: &dyn Observer,
    ) -> Result<FrequencySet> {
        // each column's values coded in the order first met, as a table read whole codes
        // them; the tuples sorted by first row then meet the values in that order too
        let mut dictionaries: Vec<Dictionary> = vec![Dictionary::default(); columns.len()];
        let mut groups: FxHashMap<Box<[u32]>, Tuple> = FxHashMap::default();
        let mut key: Vec<u32> = Vec::with_capacity(columns.len());
        let mut stars: Vec<Option<u64>> = vec![None; starless.len()];
        let read: Vec<usize> = columns.iter().chain(starless).copied().collect();
        let n = columns.len();
        let rows = self.rows.batches(&read, observer, &mut |batch: &Batch| {
            for r in 0..batch.len() {
                for (j, star) in stars.iter_mut().enumerate() {
                    if star.is_none() && batch.value(r, n + j) == SUPPRESSED {
                        *star = Some(batch.line(r));
                    }
                }
                key.clear();
                let line = batch.line(r);
                for (c, dictionary) in dictionaries.iter_mut().enumerate() {
                    key.push(dictionary.intern(batch.value(r, c), line));
                }
                match groups.get_mut(&key[..]) {
                    Some(g) => g.rows += 1,
                    None => {
                        let first = batch.first() + r as u64;
                        let tuple = Tuple {
                            rows: 1,
                            first,
                            line,
                        };
                        groups.insert(key.clone().into_boxed_slice(), tuple);
                    }
                }
            }
            Ok(())
        })?;
        let mut tuples: Vec<(Box<[u32]>, Tuple)> = groups.into_iter().collect();
        tuples.sort_unstable_by_key(|(_, t)| t.first);
        let header: Vec<String> = columns
            .iter()
            .map(|&c| self.rows.header()[c].clone())
            .collect();
        let mut weights = Vec::with_capacity(tuples.len());
        let mut lines = Vec::with_capacity(tuples.len());
        let mut codes: Vec<Vec<u32>> = vec![Vec::with_capacity(tuples.len()); columns.len()];
        for (key, tuple) in tuples {
            weights.push(
                u32::try_from(tuple.rows)
                    .map_err(|_| EngineError::TooManyAlike(self.source().into()))?,
            );
            lines.push(tuple.line);
            for (column, &code) in codes.iter_mut().zip(key.iter()) {
                column.push(code);
            }
        }
        let table = Table::from_encoded(self.source(), header, codes, dictionaries, lines);
        Ok(FrequencySet {
            table,
            weights,
            rows,
            stars,
        })
    }

    fn release(
        &self,
        plan: &ReleasePlan,
        out: &mut dyn Write,
        mut mapping: Option<&mut dyn Write>,
        observer: &dyn Observer,
    ) -> Result<Released> {
        use rayon::prelude::*;
        let write = |e: std::io::Error| Error::from(EngineError::Write(e));
        let reads = plan.reads();
        {
            let mut csv = csv_writer(&mut *out, &plan.format);
            csv.write_record(plan.header()).map_err(csv_error)?;
            csv.flush().map_err(write)?;
        }
        if let Some(m) = mapping.as_deref_mut() {
            writeln!(m, "released_row,input_line").map_err(write)?;
        }
        let mut written: u64 = 0;
        let source = self.rows.source().to_owned();
        let mut sorter = match plan.order {
            RowOrder::Shuffled(_) => Some(sort::Sorter::new(self.sort_budget, &self.spill_dir)),
            RowOrder::Input => None,
        };
        let pieces = rayon::current_num_threads() * 2;
        self.rows.batches(&reads, observer, &mut |batch: &Batch| {
            // each piece of the batch mapped and written on its own thread, then kept in
            // order
            let size = batch.len().div_ceil(pieces).max(1);
            let mapped: Vec<Result<Mapped>> = (0..batch.len())
                .step_by(size)
                .collect::<Vec<usize>>()
                .into_par_iter()
                .map(|first| map_rows(plan, batch, first..(first + size).min(batch.len()), &source))
                .collect();
            for piece in mapped {
                let piece = piece?;
                for &(key, row, line, start, end) in &piece.rows {
                    let bytes = &piece.bytes[start..end];
                    match &mut sorter {
                        Some(sorter) => sorter.push(key, row, line, bytes)?,
                        None => {
                            out.write_all(bytes).map_err(write)?;
                            written += 1;
                            if let Some(m) = mapping.as_deref_mut() {
                                writeln!(m, "{written},{line}").map_err(write)?;
                            }
                        }
                    }
                }
            }
            Ok(())
        })?;
        let mut spilled_bytes = 0;
        if let Some(sorter) = sorter {
            spilled_bytes = sorter.finish(&mut |_, line, bytes| {
                out.write_all(bytes)?;
                written += 1;
                if let Some(m) = mapping.as_deref_mut() {
                    writeln!(m, "{written},{line}")?;
                }
                Ok(())
            })?;
        }
        out.flush().map_err(write)?;
        Ok(Released {
            rows: written,
            spilled_bytes,
        })
    }

    fn audit_count(
        &self,
        written: &Scan,
        plan: &ReleasePlan,
        observer: &dyn Observer,
    ) -> Result<Counted> {
        count_written(written, plan, observer)
    }
}

/// Rows of a batch as released: per row its order key, row, line and the range of its
/// written bytes in `bytes`.
struct Mapped {
    rows: Vec<(u64, u64, u64, usize, usize)>,
    bytes: Vec<u8>,
}

/// Maps `batch`'s rows `rows` through `plan` and writes each as a CSV record.
fn map_rows(
    plan: &ReleasePlan,
    batch: &Batch,
    rows: std::ops::Range<usize>,
    source: &Path,
) -> Result<Mapped> {
    let mut keys = match plan.order {
        RowOrder::Shuffled(seed) => Some(OrderKeys::new(seed)),
        RowOrder::Input => None,
    };
    let mut record = csv_writer(Vec::with_capacity(rows.len() * 64), &plan.format);
    let mut mapped = Vec::with_capacity(rows.len());
    let mut key = Vec::new();
    let mut cells = Vec::new();
    let mut start = 0;
    for r in rows {
        let suppressed = plan.cells(batch, r, &mut key, &mut cells, source)?;
        if suppressed && plan.dropped {
            continue;
        }
        record.write_record(&cells).map_err(csv_error)?;
        record
            .flush()
            .map_err(|e| Error::from(EngineError::Write(e)))?;
        let end = record.get_ref().len();
        let row = batch.first() + r as u64;
        let order = keys.as_mut().map_or(row, |k| k.key(row));
        mapped.push((order, row, batch.line(r), start, end));
        start = end;
    }
    let bytes = record
        .into_inner()
        .map_err(|e| Error::from(EngineError::Write(e.into_error())))?;
    Ok(Mapped {
        rows: mapped,
        bytes,
    })
}

fn csv_writer<W: Write>(w: W, format: &CsvFormat) -> csv::Writer<W> {
    csv::WriterBuilder::new()
        .delimiter(format.delimiter)
        .quote(format.quote)
        .from_writer(w)
}

fn csv_error(e: csv::Error) -> Error {
    EngineError::Write(e.into()).into()
}

/// The CSV release written at `path` (laid out as `format`), opened for the audit count.
pub fn written(path: &Path, format: &CsvFormat) -> Result<Scan> {
    Scan::open(path, Format::Csv, &read_back(format))
}

/// The CSV release written to `file` (an anonymous temporary file, named `name` in
/// messages), opened for the audit count.
pub fn written_file(file: std::fs::File, name: &Path, format: &CsvFormat) -> Result<Scan> {
    Scan::csv_file(file, name, &read_back(format))
}

/// A release names its columns in a header row, whether the input had one or not.
fn read_back(format: &CsvFormat) -> CsvFormat {
    CsvFormat {
        header: true,
        ..format.clone()
    }
}

/// Reads the CSV release in `scan` (see [`written`]) back as a recipient would (the data
/// layer's CSV reader) and counts it for the audit: rows, suppressed rows (every non-public cell `*`), and the
/// other rows grouped by their quasi-identifier and public cells with their sensitive
/// values.
pub fn count_written(scan: &Scan, plan: &ReleasePlan, observer: &dyn Observer) -> Result<Counted> {
    let header = scan.header().to_vec();
    let expected = plan.expected(&[]);
    let find = |name: &String| -> Result<usize> {
        header
            .iter()
            .position(|h| h == name)
            .ok_or_else(|| crate::error::ReleaseError::NoColumn(name.clone()).into())
    };
    let key_columns: Vec<usize> = expected
        .quasi
        .iter()
        .chain(expected.public)
        .map(find)
        .collect::<Result<_>>()?;
    let sensitive: Vec<usize> = expected.sensitive.iter().map(find).collect::<Result<_>>()?;
    let hidden: Vec<usize> = (0..header.len())
        .filter(|c| !expected.public.contains(&header[*c]))
        .collect();
    let all: Vec<usize> = (0..header.len()).collect();
    // cells counted as codes of their column's values, named once at the end
    let mut keys: Vec<Dictionary> = vec![Dictionary::default(); key_columns.len()];
    let mut values: Vec<Dictionary> = vec![Dictionary::default(); sensitive.len()];
    // per group of key codes: rows, and per sensitive column its value codes' counts
    type Counts = (u64, Vec<FxHashMap<u32, u64>>);
    let mut groups: FxHashMap<Box<[u32]>, Counts> = FxHashMap::default();
    let mut counted = Counted::default();
    let mut key: Vec<u32> = Vec::with_capacity(key_columns.len());
    scan.batches(&all, observer, &mut |batch: &Batch| {
        for r in 0..batch.len() {
            counted.rows += 1;
            if hidden.iter().all(|&c| batch.value(r, c) == SUPPRESSED) {
                counted.suppressed += 1;
                continue;
            }
            key.clear();
            for (dictionary, &c) in keys.iter_mut().zip(&key_columns) {
                key.push(dictionary.intern(batch.value(r, c), 0));
            }
            let group = match groups.get_mut(&key[..]) {
                Some(g) => g,
                None => groups
                    .entry(key.clone().into_boxed_slice())
                    .or_insert_with(|| (0, vec![FxHashMap::default(); sensitive.len()])),
            };
            group.0 += 1;
            for ((counts, dictionary), &c) in group.1.iter_mut().zip(&mut values).zip(&sensitive) {
                *counts
                    .entry(dictionary.intern(batch.value(r, c), 0))
                    .or_default() += 1;
            }
        }
        Ok(())
    })?;
    counted.groups = groups
        .into_iter()
        .map(|(key, (rows, counts))| {
            let key = key
                .iter()
                .zip(&keys)
                .map(|(&code, d)| d.value(code).to_owned())
                .collect();
            let values = counts
                .into_iter()
                .zip(&values)
                .map(|(counts, d)| {
                    counts
                        .into_iter()
                        .map(|(code, n)| (d.value(code).to_owned(), n))
                        .collect()
                })
                .collect();
            (key, Group { rows, values })
        })
        .collect();
    Ok(counted)
}

/// Timings of an engine's job, per pass.
#[derive(Debug, Clone, Copy, Default, serde::Serialize)]
pub struct PassTimings {
    /// Pass 1: the frequency set.
    pub frequency_set: f64,
    /// The search on it.
    pub search: f64,
    /// Pass 3: the release written.
    pub release: f64,
    /// The audit count and its judgement.
    pub audit: f64,
}
