//! The released table: identifying columns removed, quasi-identifiers generalized to the
//! chosen levels (or microaggregated), other columns unchanged, rows in a seeded random
//! order.
//!
//! A suppressed row releases nothing but its existence: every cell becomes `*` except
//! those of insensitive columns explicitly marked public (paper 002's row deletion), or
//! the row is left out. ARX keeps a suppressed row's sensitive values; cellsafe does not,
//! because a recipient who can place every other row knows by elimination whose row it is.
//! Rows are shuffled because the order of a source file (sorted by name, by date of
//! admission) links rows back to persons just as a quasi-identifier does.

pub mod audit;
#[cfg(feature = "arrow")]
pub mod columnar;
#[cfg(feature = "sqlite")]
pub mod database;
mod escaped;
pub mod lgb_table;
pub mod local_table;
pub mod microaggregation;
pub mod output;
mod set_table;

use std::borrow::Cow;
use std::io::Write;
use std::path::Path;

use rand::SeedableRng;
use serde::{Deserialize, Serialize};

use crate::algorithm::problem::Problem;
use crate::data::table::CsvFormat;
use crate::data::{Role, SUPPRESSED};
use crate::error::Result;
use crate::framework::classes::{prefetch, Classes};
use crate::release::microaggregation::{Aggregator, Microaggregated};

/// What the release shows of a suppressed row.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SuppressedRows {
    /// The row is written with `*` in every cell but the public ones.
    #[default]
    Star,
    /// The row is left out.
    Drop,
}

/// The order released rows are written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowOrder {
    /// A random permutation drawn from the seed (ChaCha20).
    Shuffled(u64),
    /// The input's order (which can link rows back to persons).
    Input,
}

/// The largest shuffle seed, 2^53 − 1: every seed up to it is a JSON number that a reader
/// parsing numbers into 64-bit floats (JavaScript, jq) reads exactly, so the report's
/// `layout.seed` undoes the shuffle whatever reads it.
pub const MAX_SEED: u64 = (1 << 53) - 1;

/// A fresh shuffle seed from the operating system's generator, at most [`MAX_SEED`]
/// (53 random bits).
pub fn fresh_seed() -> u64 {
    rand::random::<u64>() & MAX_SEED
}

/// A CSV writer in `format`'s dialect.
fn csv_writer<'w>(w: &'w mut dyn Write, format: &CsvFormat) -> csv::Writer<&'w mut dyn Write> {
    csv::WriterBuilder::new()
        .delimiter(format.delimiter)
        .quote(format.quote)
        .from_writer(w)
}

/// The sort keys of the shuffled order drawn from a seed: input row `r`'s key is the
/// `r`-th 64-bit word of the ChaCha20 stream the seed keys, and rows are released in
/// increasing (key, row). A keyed pseudo-random function of the row number, so that an
/// engine that streams the rows (and sorts them with spilling) releases exactly the order
/// the in-memory engine does, without holding a permutation of every row.
pub struct OrderKeys {
    stream: rand_chacha::ChaCha20Rng,
    next: u64,
}

impl OrderKeys {
    /// The keys of the order drawn from `seed`.
    pub fn new(seed: u64) -> OrderKeys {
        OrderKeys {
            stream: rand_chacha::ChaCha20Rng::seed_from_u64(seed),
            next: 0,
        }
    }

    /// The key of input row `row` (0-based). Cheapest when called for increasing rows.
    pub fn key(&mut self, row: u64) -> u64 {
        use rand::RngCore;
        if row != self.next {
            // two 32-bit words per key
            self.stream.set_word_pos(u128::from(row) * 2);
        }
        self.next = row + 1;
        self.stream.next_u64()
    }
}

/// The input rows `rows` (increasing) in the order they are released.
pub(crate) fn row_order(rows: impl Iterator<Item = usize>, order: RowOrder) -> Vec<usize> {
    match order {
        RowOrder::Input => rows.collect(),
        RowOrder::Shuffled(seed) => {
            let mut keys = OrderKeys::new(seed);
            // sized once: growing a vector of megabytes copies it and touches fresh pages
            let mut keyed = Vec::with_capacity(rows.size_hint().1.unwrap_or(0));
            keyed.extend(rows.map(|r| (keys.key(r as u64), r)));
            sort_keyed(keyed)
        }
    }
}

/// The rows of `keyed` in increasing (key, row): the keys are uniform, so their top bits
/// spread the rows over about one bucket each; a counting pass places them by bucket, and
/// one pass of insertion sort then moves each row past the few of its bucket placed before
/// it (a comparison sort of the whole costs more than the rest of the release, and so
/// does sorting each bucket on its own: which buckets hold more than one row is random,
/// and so is every branch on it). Past a budget of moves (keys that are not uniform), a
/// general sort finishes.
fn sort_keyed(keyed: Vec<(u64, usize)>) -> Vec<usize> {
    let n = keyed.len();
    if n < 2 || u32::try_from(n).is_err() {
        let mut keyed = keyed;
        keyed.sort_unstable();
        return keyed.into_iter().map(|(_, r)| r).collect();
    }
    // at most 2^20 buckets (4 MiB of counts); larger tables have several rows a bucket
    let bits = n.next_power_of_two().trailing_zeros().clamp(1, 20);
    let bucket = |key: u64| (key >> (64 - bits)) as usize;
    // (positions fit in 32 bits: half the memory of the counts); each bucket's end, then,
    // as the rows are placed back to front, its start
    let mut bounds = vec![0u32; 1 << bits];
    for &(key, _) in &keyed {
        bounds[bucket(key)] += 1;
    }
    let mut end = 0;
    for b in bounds.iter_mut() {
        end += *b;
        *b = end;
    }
    let mut placed = vec![(0u64, 0usize); n];
    for &(key, row) in keyed.iter().rev() {
        let b = bucket(key);
        bounds[b] -= 1;
        placed[bounds[b] as usize] = (key, row);
    }
    drop(keyed);
    drop(bounds);
    if !insertion_sort(&mut placed, 8 * n) {
        placed.sort_unstable();
    }
    placed.into_iter().map(|(_, r)| r).collect()
}

/// Sorts `items` by insertion, or returns false once it has moved items more than `budget`
/// places in all (`items` is then a permutation of what it was).
fn insertion_sort<T: Ord + Copy>(items: &mut [T], budget: usize) -> bool {
    let mut moves = 0;
    for i in 1..items.len() {
        let item = items[i];
        if items[i - 1] <= item {
            continue;
        }
        let mut j = i;
        while j > 0 && items[j - 1] > item {
            items[j] = items[j - 1];
            j -= 1;
        }
        items[j] = item;
        moves += i - j;
        if moves > budget {
            return false;
        }
    }
    true
}

/// Writes the mapping from released rows to input lines as CSV: `released_row,input_line`,
/// both 1-based (the released row not counting the header; the input line as in the file).
pub(crate) fn write_mapping(
    w: &mut dyn Write,
    order: &[usize],
    table: &crate::data::table::Table,
) -> std::io::Result<()> {
    writeln!(w, "released_row,input_line")?;
    for (i, &r) in order.iter().enumerate() {
        writeln!(w, "{},{}", i + 1, table.line(r))?;
    }
    Ok(())
}

/// Writes one file atomically, locked against other runs (see [`crate::release::output`]).
pub fn write_atomic(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<()> {
    let target = path.to_path_buf();
    let mut tx = crate::release::output::Transaction::begin(std::slice::from_ref(&target))?;
    tx.stage(path, |w| write(w))?;
    tx.commit()
}

/// Refuses to write over the input file.
fn check_not_input(problem: &Problem, output: &Path) -> Result<()> {
    crate::release::output::check_paths(
        &[(
            "the data file".to_owned(),
            problem.data.table.source().to_path_buf(),
        )],
        &[("the released table".to_owned(), output.to_path_buf())],
    )
}

/// Per-row view of a transformation: which class each row falls in, which classes are suppressed.
pub struct Released<'a> {
    problem: &'a Problem,
    levels: Vec<u8>,
    row_class: Vec<u32>,
    suppressed: Vec<bool>,
    /// Statistics shown instead of group labels (microaggregation output).
    aggregated: Option<Microaggregated>,
}

impl<'a> Released<'a> {
    /// The rows of `problem` under transformation `levels` (which must be a lattice node), with
    /// the classes `SuppressionRule` picks
    /// suppressed.
    pub fn new(problem: &'a Problem, levels: &[u8]) -> Result<Released<'a>> {
        problem.data.unweighted("releasing rows")?;
        problem.check_levels(levels)?;
        Self::with_classes(problem, levels, &problem.classes(levels))
    }

    /// [`new`](Self::new), given the classes of `levels` (which a search computed).
    pub(crate) fn with_classes(
        problem: &'a Problem,
        levels: &[u8],
        classes: &Classes,
    ) -> Result<Released<'a>> {
        problem.data.unweighted("releasing rows")?;
        problem.check_levels(levels)?;
        let hierarchies = problem.hierarchies();
        let suppressed = problem.suppressed(levels, classes);
        let row_class = problem.snapshot.row_classes(&hierarchies, classes, levels);
        Ok(Released {
            problem,
            levels: levels.to_vec(),
            row_class,
            suppressed,
            aggregated: None,
        })
    }

    /// Shows each quasi-identifier cell as its group's mean, median or mode over the
    /// released rows instead of the group's label.
    pub fn microaggregated(mut self, aggregators: &[Aggregator]) -> Result<Released<'a>> {
        let aggregated = Microaggregated::new(self.problem, &self.levels, aggregators, |row| {
            !self.is_suppressed(row)
        })?;
        self.aggregated = Some(aggregated);
        Ok(self)
    }

    /// Warnings of the microaggregation (groups that got the same value).
    pub fn warnings(&self) -> &[String] {
        self.aggregated.as_ref().map_or(&[], |m| &m.warnings)
    }

    /// Whether data row `row` (0-based) is suppressed.
    pub fn is_suppressed(&self, row: usize) -> bool {
        self.suppressed[self.row_class[row] as usize]
    }

    /// The input rows released, in release order: every row, or with
    /// [`SuppressedRows::Drop`] the rows not suppressed.
    pub fn order(&self, suppressed: SuppressedRows, order: RowOrder) -> Vec<usize> {
        let rows = (0..self.problem.data.rows())
            .filter(|&r| suppressed == SuppressedRows::Star || !self.is_suppressed(r));
        row_order(rows, order)
    }

    /// The released cells of `row`.
    pub fn row(&self, row: usize) -> Vec<&str> {
        let mut out = Vec::with_capacity(self.problem.data.roles.len());
        self.row_each(row, |cell| out.push(cell));
        out
    }

    /// Passes the released cells of `row`, in header order, to `push`.
    fn row_each<'s>(&'s self, row: usize, mut push: impl FnMut(&'s str)) {
        let data = &self.problem.data;
        if self.is_suppressed(row) {
            for (c, role) in data.roles.iter().enumerate() {
                if *role == Role::Identifying {
                    continue;
                }
                push(if data.public[c] {
                    data.table.value(row, c)
                } else {
                    SUPPRESSED
                });
            }
            return;
        }
        let mut qi = 0;
        for (column, role) in data.roles.iter().enumerate() {
            match role {
                Role::Identifying => {}
                Role::QuasiIdentifying => {
                    let q = &data.quasi[qi];
                    let level = self.levels[qi] as usize;
                    let group = q.hierarchy.code(level, q.leaves[row]);
                    push(match &self.aggregated {
                        Some(m) => m.value(qi, group),
                        None => q.hierarchy.label(level, group),
                    });
                    qi += 1;
                }
                _ => push(data.table.value(row, column)),
            }
        }
    }
}

/// A table as released: its header and the cells of each input row. Level-based
/// ([`Released`]) and set-based ([`SetTable`](crate::algorithm::setbased::SetTable)) releases are written by its one writer.
pub trait ReleasedTable: Sync {
    /// The problem released (its input is never overwritten).
    fn problem(&self) -> &Problem;
    /// The released columns' names: every column but the identifying ones.
    fn header(&self) -> Vec<&str> {
        let data = &self.problem().data;
        data.table
            .header()
            .iter()
            .zip(&data.roles)
            .filter(|(_, r)| **r != Role::Identifying)
            .map(|(h, _)| h.as_str())
            .collect()
    }
    /// Appends the released cells of input row `row`, in header order, to `out`.
    fn cells_into<'s>(&'s self, row: usize, out: &mut Vec<Cow<'s, str>>);

    /// An upper bound on the bytes of one written row, when cheap to know (the default:
    /// none). Writers reserve their buffer with it instead of growing it by doubling.
    fn row_bytes_bound(&self) -> Option<usize> {
        None
    }

    /// Asks the CPU to start loading what the cells of `rows` read (a hint; the default
    /// does nothing). Rows are written in shuffled order, so each row's data is a cache
    /// miss; hinting a block of rows ahead lets the misses overlap.
    fn prefetch_rows(&self, _rows: &[usize]) {}

    /// Passes the released cells of column `column` (in header order) of input rows
    /// `order` to `push`, and says true, when the table can give them a column at a time
    /// (the default: it cannot, says false and passes nothing; a reader then asks
    /// [`cells_into`](Self::cells_into) row by row). The cells are those of
    /// [`cells_into`](Self::cells_into).
    fn column_each<'s>(
        &'s self,
        _column: usize,
        _order: &[usize],
        _push: &mut dyn FnMut(&'s str),
    ) -> bool {
        false
    }

    /// The released cells of input row `row`, in header order.
    fn cells(&self, row: usize) -> Vec<Cow<'_, str>> {
        let mut out = Vec::new();
        self.cells_into(row, &mut out);
        out
    }

    /// Writes the table as CSV in `format`'s dialect (delimiter and quote, so it reads
    /// back as written): the header, then input rows `order`.
    fn write_to(
        &self,
        w: &mut dyn Write,
        format: &CsvFormat,
        order: &[usize],
    ) -> std::io::Result<()> {
        write_table(self, w, format, order, &|w, block| {
            self.write_rows(w, format, block)
        })
    }

    /// Writes input rows `order` as CSV records (no header).
    fn write_rows(
        &self,
        w: &mut dyn Write,
        format: &CsvFormat,
        order: &[usize],
    ) -> std::io::Result<()> {
        write_cells(self, w, format, order)
    }

    /// Writes the table as CSV to `path`, atomically and never over the input, rows in
    /// `order`.
    fn write_csv(&self, path: &Path, delimiter: u8, order: &[usize]) -> Result<()> {
        check_not_input(self.problem(), path)?;
        let format = CsvFormat {
            delimiter,
            ..CsvFormat::default()
        };
        write_atomic(path, |w| self.write_to(w, &format, order))
    }
}

/// How a table's rows are written: input rows `block` as CSV records (no header) to `w`.
type WriteRows<'f> = dyn Fn(&mut dyn Write, &[usize]) -> std::io::Result<()> + Sync + 'f;

/// Writes `table` as CSV in `format`'s dialect: the header, then input rows `order`, by
/// `rows`; a large table in blocks written to buffers in parallel, then in order.
fn write_table(
    table: &(impl ReleasedTable + ?Sized),
    w: &mut dyn Write,
    format: &CsvFormat,
    order: &[usize],
    rows: &WriteRows<'_>,
) -> std::io::Result<()> {
    {
        let mut csv = csv_writer(w, format);
        csv.write_record(table.header())?;
        csv.flush()?;
    }
    if order.len() < PARALLEL_WRITE_ROWS {
        return rows(w, order);
    }
    use rayon::prelude::*;
    let blocks: Vec<std::io::Result<Vec<u8>>> = order
        .par_chunks(PARALLEL_WRITE_ROWS / 2)
        .map(|block| {
            let mut buffer = Vec::new();
            rows(&mut buffer, block)?;
            Ok(buffer)
        })
        .collect();
    for block in blocks {
        w.write_all(&block?)?;
    }
    Ok(())
}

/// Writes `table`'s input rows `order` as CSV records (no header), cell by cell through
/// the CSV writer: [`ReleasedTable::write_rows`]'s general path.
fn write_cells(
    table: &(impl ReleasedTable + ?Sized),
    w: &mut dyn Write,
    format: &CsvFormat,
    order: &[usize],
) -> std::io::Result<()> {
    let mut csv = csv_writer(w, format);
    let mut cells = Vec::new();
    for block in order.chunks(PREFETCH_ROWS) {
        table.prefetch_rows(block);
        for &row in block {
            cells.clear();
            table.cells_into(row, &mut cells);
            csv.write_record(cells.iter().map(|c| c.as_bytes()))?;
        }
    }
    csv.flush()
}

/// Tables of at least this many rows are written in blocks on every worker thread.
pub(crate) const PARALLEL_WRITE_ROWS: usize = 200_000;

/// Rows whose data the writer asks the CPU to load ahead (about 9 cache lines a row).
const PREFETCH_ROWS: usize = 512;

impl ReleasedTable for Released<'_> {
    fn problem(&self) -> &Problem {
        self.problem
    }
    fn row_bytes_bound(&self) -> Option<usize> {
        let data = &self.problem.data;
        let mut bound = 1; // the line end
        let mut qi = 0;
        for (column, role) in data.roles.iter().enumerate() {
            let longest = match role {
                Role::Identifying => continue,
                Role::QuasiIdentifying => {
                    let level = self.levels[qi] as usize;
                    let h = &data.quasi[qi].hierarchy;
                    let groups = h.cardinality(level) as u32;
                    let longest = (0..groups)
                        .map(|g| match &self.aggregated {
                            Some(m) => m.value(qi, g).len(),
                            None => h.label(level, g).len(),
                        })
                        .max();
                    qi += 1;
                    longest?
                }
                _ => data
                    .table
                    .dictionary(column)
                    .values()
                    .iter()
                    .map(String::len)
                    .max()?,
            };
            // a quoted cell: two quotes, each inner quote doubled
            bound += 2 * longest.max(SUPPRESSED.len()) + 3;
        }
        Some(bound)
    }
    fn prefetch_rows(&self, rows: &[usize]) {
        let data = &self.problem.data;
        for &row in rows {
            prefetch(&self.row_class[row]);
            for q in &data.quasi {
                prefetch(&q.leaves[row]);
            }
            for column in 0..data.roles.len() {
                prefetch(&data.table.codes(column)[row]);
            }
        }
    }
    fn cells_into<'s>(&'s self, row: usize, out: &mut Vec<Cow<'s, str>>) {
        self.row_each(row, |cell| out.push(Cow::Borrowed(cell)));
    }
    fn write_to(
        &self,
        w: &mut dyn Write,
        format: &CsvFormat,
        order: &[usize],
    ) -> std::io::Result<()> {
        // each distinct cell escaped once (for every block of a large table), then rows
        // copied: the bytes the cell-by-cell writer writes
        match escaped::Escaped::new(self, format)? {
            Some(escaped) => write_table(self, w, format, order, &|w, block| {
                escaped.write_rows(self, w, block)
            }),
            None => write_table(self, w, format, order, &|w, block| {
                write_cells(self, w, format, block)
            }),
        }
    }
    fn column_each<'s>(
        &'s self,
        column: usize,
        order: &[usize],
        push: &mut dyn FnMut(&'s str),
    ) -> bool {
        // the cells `row_each` passes, a column at a time
        let data = &self.problem.data;
        let Some(c) = (0..data.roles.len())
            .filter(|&c| data.roles[c] != Role::Identifying)
            .nth(column)
        else {
            return false;
        };
        let shown = |row: usize| -> Option<&'s str> {
            match (self.is_suppressed(row), data.public[c]) {
                (true, true) => Some(data.table.value(row, c)),
                (true, false) => Some(SUPPRESSED),
                (false, _) => None,
            }
        };
        if data.roles[c] != Role::QuasiIdentifying {
            for &row in order {
                push(shown(row).unwrap_or_else(|| data.table.value(row, c)));
            }
            return true;
        }
        let qi = data.roles[..c]
            .iter()
            .filter(|r| **r == Role::QuasiIdentifying)
            .count();
        let q = &data.quasi[qi];
        let level = self.levels[qi] as usize;
        let labels: Vec<&'s str> = (0..q.hierarchy.cardinality(level) as u32)
            .map(|group| match &self.aggregated {
                Some(m) => m.value(qi, group),
                None => q.hierarchy.label(level, group),
            })
            .collect();
        for &row in order {
            push(
                shown(row)
                    .unwrap_or_else(|| labels[q.hierarchy.code(level, q.leaves[row]) as usize]),
            );
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::{ReleasedTable, PARALLEL_WRITE_ROWS};
    use crate::algorithm::local::mondrian::mondrian;
    use crate::algorithm::local::{LocalSpec, Recoded};
    use crate::algorithm::problem::Problem;
    use crate::criteria::ModelSpec;
    use crate::data::table::{CsvFormat, Table};
    use crate::data::Role;
    use crate::framework::dataset::Dataset;
    use crate::hierarchy::Hierarchy;
    use crate::metric::MetricSpec;
    use crate::observer::Silent;
    use crate::release::local_table::LocalTable;
    use std::path::Path;

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig { cases: 64, ..Default::default() })]

        /// The shuffled order is the rows sorted by (key, row), for any set of rows: few,
        /// many (buckets of several rows), and keys that share their top bits.
        #[test]
        fn shuffled_rows_are_sorted_by_key(
            seed in 0u64..1000,
            rows in proptest::collection::btree_set(0usize..5_000_000, 0..1500),
            clash in proptest::prelude::any::<bool>(),
        ) {
            let rows: Vec<usize> = rows.into_iter().collect();
            let mut keys = super::OrderKeys::new(seed);
            let mut keyed: Vec<(u64, usize)> =
                rows.iter().map(|&r| (keys.key(r as u64), r)).collect();
            if clash {
                // every key in a few buckets, ties between keys too
                for (key, _) in &mut keyed {
                    *key = (*key >> 61) << 61 | (*key & 3);
                }
            }
            let mut expected = keyed.clone();
            expected.sort_unstable();
            let expected: Vec<usize> = expected.into_iter().map(|(_, r)| r).collect();
            proptest::prop_assert_eq!(super::sort_keyed(keyed), expected.clone());
            if !clash {
                let order = super::row_order(rows.iter().copied(), super::RowOrder::Shuffled(seed));
                proptest::prop_assert_eq!(order, expected);
            }
        }
    }

    /// A table large enough to be written in parallel blocks comes out byte for byte as
    /// the one sequential writer writes it.
    #[test]
    fn parallel_blocks_write_the_same_bytes() {
        let n = PARALLEL_WRITE_ROWS + 12_345;
        let rows: Vec<Vec<String>> = (0..n)
            .map(|i| {
                vec![
                    (i % 97).to_string(),
                    format!("a \"q\", {}", i % 5),
                    (i % 3).to_string(),
                ]
            })
            .collect();
        let header = ["age", "text", "s"].map(String::from).to_vec();
        let table = Table::from_rows(header, &rows).unwrap();
        let ages: Vec<Vec<String>> = (0..97).map(|a| vec![a.to_string(), "*".into()]).collect();
        let data = Dataset::new(
            table,
            vec![Role::QuasiIdentifying, Role::Insensitive, Role::Sensitive],
            vec![(
                Hierarchy::from_rows(&ages, Path::new("h"), None).unwrap(),
                "h".into(),
            )],
            vec![],
        )
        .unwrap();
        let problem = Problem::new(
            data,
            &[ModelSpec::KAnonymity { k: 3 }],
            0.0,
            &MetricSpec::default(),
        )
        .unwrap();
        let partition = mondrian(&problem, &LocalSpec::default(), &Silent)
            .unwrap()
            .unwrap();
        let recoded = Recoded::new(&problem, partition);
        let order = super::row_order(0..n, super::RowOrder::Shuffled(3));
        let table = LocalTable::new(&problem, &recoded, &order);
        let format = CsvFormat::default();
        let mut parallel = Vec::new();
        table.write_to(&mut parallel, &format, &order).unwrap();
        let mut sequential = Vec::new();
        {
            let mut csv = super::csv_writer(&mut sequential, &format);
            csv.write_record(table.header()).unwrap();
            csv.flush().unwrap();
        }
        table.write_rows(&mut sequential, &format, &order).unwrap();
        assert_eq!(parallel.len(), sequential.len());
        assert!(parallel == sequential);
    }
}
