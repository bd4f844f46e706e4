//! A level-based release written by copying bytes: each column's cells escaped once.
//!
//! Under a full-domain transformation a column shows few distinct cells: a quasi-identifier
//! shows its groups' labels at the chosen level (or their statistics), any other column
//! its input values, a suppressed row `*`. So each distinct cell is escaped once, by the
//! same CSV writer the general path uses (it decides the quoting), with the delimiter or
//! line end that follows it, and a row is written by copying its cells' bytes: a cell is
//! found from the row's leaf or code in one step, and a short one is copied as a block
//! of fixed size (no call per cell). Where the classes are few for the rows, each class's
//! quasi-identifier cells are copied once more, into runs between the other columns, and
//! a row of a class not suppressed is written as those runs around its own cells. The
//! bytes are those of
//! [`ReleasedTable::write_rows`](super::ReleasedTable::write_rows)'s general path; a test
//! compares the two on random tables whose values need quoting.

use std::io::Write;

use super::{Released, PREFETCH_ROWS};
use crate::data::table::CsvFormat;
use crate::data::{Role, SUPPRESSED};
use crate::framework::classes::prefetch;

/// Where a cell's bytes are: (start, length) in [`Escaped::bytes`], the delimiter or the
/// line end that follows it included.
type Span = (usize, usize);

/// One released column.
struct Column<'r> {
    /// Per input row, the index of its cell in `spans`: the row's leaf of a
    /// quasi-identifier, or its code of another column.
    rows: &'r [u32],
    /// The cell of each leaf or code.
    spans: Vec<Span>,
    /// `*`.
    star: Span,
    /// Whether a suppressed row shows the cell (a public column) instead of `*`.
    public: bool,
    /// Whether it is a quasi-identifier's (its cell is the same for every row of a class).
    quasi: bool,
}

/// The escaped cells of a release, ready to be copied row by row.
pub(super) struct Escaped<'r> {
    columns: Vec<Column<'r>>,
    /// Every cell, escaped, with what follows it (inside the records the escaper wrote);
    /// then [`COPY`] bytes of padding, so that [`COPY`] bytes can be read from any cell's
    /// start.
    bytes: Vec<u8>,
    /// The bytes each class not suppressed shows in its quasi-identifiers' columns, when
    /// there are few classes for the rows.
    templates: Option<Templates>,
}

/// Each class's cells in the quasi-identifiers' columns, copied once: a row of a class
/// not suppressed is then written as its class's bytes between its own cells (those of
/// the other columns), in as many copies as there are other columns plus one, where it
/// was a copy per column, each from a row's leaf read in every quasi-identifier's column
/// (Adult with 8 of its 9 columns quasi-identifiers: 3 copies a row for 9).
struct Templates {
    /// The columns not quasi-identifiers', in order.
    own: Vec<usize>,
    /// Per class, `own.len() + 1` spans into `bytes`: its bytes before the first own cell,
    /// between each two, after the last.
    spans: Vec<Span>,
    /// The classes' bytes, then [`SEGMENT`] bytes of padding.
    bytes: Vec<u8>,
}

impl Templates {
    /// The templates of `released`'s classes, or None when the classes are more than half
    /// as many as the rows (each template then costs about what it saves).
    fn new(released: &Released, columns: &[Column<'_>], cells: &[u8]) -> Option<Templates> {
        let classes = released.suppressed.len();
        let rows = released.row_class.len();
        if classes == 0 || classes * 2 > rows || u32::try_from(rows).is_err() {
            return None;
        }
        // a row of each class: the class's cells are that row's
        let mut first = vec![u32::MAX; classes];
        let mut unseen = classes;
        for (row, &class) in released.row_class.iter().enumerate() {
            let slot = &mut first[class as usize];
            if *slot == u32::MAX {
                *slot = row as u32;
                unseen -= 1;
                if unseen == 0 {
                    break;
                }
            }
        }
        let own: Vec<usize> = (0..columns.len()).filter(|&c| !columns[c].quasi).collect();
        let mut spans = Vec::with_capacity(classes * (own.len() + 1));
        let mut bytes = Vec::new();
        for (class, &row) in first.iter().enumerate() {
            if row == u32::MAX || released.suppressed[class] {
                // never read: no row shows it
                spans.extend(std::iter::repeat_n((0, 0), own.len() + 1));
                continue;
            }
            let mut start = bytes.len();
            for column in columns {
                if column.quasi {
                    let (at, len) = column.spans[column.rows[row as usize] as usize];
                    bytes.extend_from_slice(&cells[at..at + len]);
                } else {
                    spans.push((start, bytes.len() - start));
                    start = bytes.len();
                }
            }
            spans.push((start, bytes.len() - start));
        }
        bytes.extend_from_slice(&[0; SEGMENT]);
        Some(Templates { own, spans, bytes })
    }

    /// Appends the bytes at `span` (a short run copied as [`SEGMENT`] bytes).
    #[inline]
    fn push(&self, out: &mut Vec<u8>, (start, len): Span) {
        push_padded::<SEGMENT>(out, &self.bytes, start, len);
    }
}

/// Escapes strings as `format`'s CSV writer writes them in a record of several fields,
/// into the writer's own buffer, which becomes [`Escaped::bytes`]: each cell is written
/// once and its span points into the record that holds it.
struct Escaper {
    csv: csv::Writer<Vec<u8>>,
    /// The line end's length.
    terminator: usize,
}

impl Escaper {
    fn new(format: &CsvFormat) -> std::io::Result<Escaper> {
        let csv = csv::WriterBuilder::new()
            .delimiter(format.delimiter)
            .quote(format.quote)
            .from_writer(Vec::new());
        let mut escaper = Escaper { csv, terminator: 0 };
        // two empty fields: the delimiter (one byte), then the line end
        let (_, len) = escaper.record(["", ""])?;
        escaper.terminator = len - 1;
        Ok(escaper)
    }

    /// Writes `fields` as a record; returns where it is.
    fn record(&mut self, fields: [&str; 2]) -> std::io::Result<Span> {
        let start = self.csv.get_ref().len();
        self.csv.write_record(fields)?;
        self.csv.flush()?;
        Ok((start, self.csv.get_ref().len() - start))
    }

    /// The cell `value` escaped, with the delimiter after it, or the line end after it
    /// when it is the row's `last`. The record `[value, ""]` holds the escaped value then
    /// the delimiter; `["", value]` the escaped value then the line end. (Whether a field
    /// is quoted depends on its bytes only, not on its place in the record.)
    fn cell(&mut self, value: &str, last: bool) -> std::io::Result<Span> {
        if last {
            let (start, len) = self.record(["", value])?;
            Ok((start + 1, len - 1))
        } else {
            let (start, len) = self.record([value, ""])?;
            Ok((start, len - self.terminator))
        }
    }

    /// Every record written, then [`COPY`] bytes of padding.
    fn into_bytes(self) -> std::io::Result<Vec<u8>> {
        let mut bytes = self
            .csv
            .into_inner()
            .map_err(|e| std::io::Error::other(e.to_string()))?;
        bytes.extend_from_slice(&[0; COPY]);
        Ok(bytes)
    }
}

impl<'r> Escaped<'r> {
    /// The escaped cells of `released` in `format`; None when the general path must write
    /// it: a release of one column, whose empty cell the CSV writer quotes (a record of
    /// one empty field would read as a blank line).
    pub(super) fn new(
        released: &'r Released,
        format: &CsvFormat,
    ) -> std::io::Result<Option<Escaped<'r>>> {
        let data = &released.problem.data;
        let shown: Vec<usize> = (0..data.roles.len())
            .filter(|&c| data.roles[c] != Role::Identifying)
            .collect();
        if shown.len() < 2 {
            return Ok(None);
        }
        let mut escaper = Escaper::new(format)?;
        let mut columns = Vec::with_capacity(shown.len());
        for (i, &column) in shown.iter().enumerate() {
            let last = i + 1 == shown.len();
            let mut spans = Vec::new();
            let rows = match data.roles[column] {
                Role::QuasiIdentifying => {
                    let qi = data.roles[..column]
                        .iter()
                        .filter(|r| **r == Role::QuasiIdentifying)
                        .count();
                    let q = &data.quasi[qi];
                    let level = released.levels[qi] as usize;
                    // each group's cell once, then each leaf's: its group's
                    let groups = (0..q.hierarchy.cardinality(level) as u32)
                        .map(|g| {
                            let cell = match &released.aggregated {
                                Some(m) => m.value(qi, g),
                                None => q.hierarchy.label(level, g),
                            };
                            escaper.cell(cell, last)
                        })
                        .collect::<std::io::Result<Vec<Span>>>()?;
                    spans.extend(
                        q.hierarchy
                            .level_map(level)
                            .iter()
                            .map(|&g| groups[g as usize]),
                    );
                    &q.leaves[..]
                }
                _ => {
                    for value in data.table.dictionary(column).values() {
                        spans.push(escaper.cell(value, last)?);
                    }
                    data.table.codes(column)
                }
            };
            let star = escaper.cell(SUPPRESSED, last)?;
            columns.push(Column {
                rows,
                spans,
                star,
                public: data.public[column],
                quasi: data.roles[column] == Role::QuasiIdentifying,
            });
        }
        let bytes = escaper.into_bytes()?;
        let templates = Templates::new(released, &columns, &bytes);
        Ok(Some(Escaped {
            columns,
            bytes,
            templates,
        }))
    }

    /// Writes `released`'s input rows `order` as CSV records (no header).
    pub(super) fn write_rows(
        &self,
        released: &Released,
        w: &mut dyn Write,
        order: &[usize],
    ) -> std::io::Result<()> {
        let mut buffer = Vec::with_capacity(BUFFER + 4096);
        // what the rows below read: whether each is suppressed, and each column's leaf or
        // code that a row of a class not suppressed copies (all of them without templates)
        let read: Vec<&[u32]> = match &self.templates {
            Some(t) => t.own.iter().map(|&c| self.columns[c].rows).collect(),
            None => self.columns.iter().map(|c| c.rows).collect(),
        };
        for block in order.chunks(PREFETCH_ROWS) {
            for &row in block {
                prefetch(&released.row_class[row]);
                for rows in &read {
                    prefetch(&rows[row]);
                }
            }
            for &row in block {
                let class = released.row_class[row] as usize;
                let suppressed = released.suppressed[class];
                match &self.templates {
                    Some(t) if !suppressed => {
                        let spans = &t.spans[class * (t.own.len() + 1)..][..t.own.len() + 1];
                        for (&c, &span) in t.own.iter().zip(spans) {
                            t.push(&mut buffer, span);
                            let column = &self.columns[c];
                            let (start, len) = column.spans[column.rows[row] as usize];
                            self.push_cell(&mut buffer, start, len);
                        }
                        t.push(&mut buffer, spans[t.own.len()]);
                    }
                    _ => {
                        for column in &self.columns {
                            let (start, len) = if suppressed && !column.public {
                                column.star
                            } else {
                                column.spans[column.rows[row] as usize]
                            };
                            self.push_cell(&mut buffer, start, len);
                        }
                    }
                }
                if buffer.len() >= BUFFER {
                    w.write_all(&buffer)?;
                    buffer.clear();
                }
            }
        }
        w.write_all(&buffer)
    }

    /// Appends the cell at `start` of `len` bytes (a short one copied as [`COPY`] bytes).
    #[inline]
    fn push_cell(&self, out: &mut Vec<u8>, start: usize, len: usize) {
        push_padded::<COPY>(out, &self.bytes, start, len);
    }
}

/// Appends the `len` bytes of `bytes` at `start`: when at most `N`, as `N` bytes (a copy of
/// fixed size, without a call; `bytes` holds `N` bytes of padding past its last run), then
/// cut back to `len`.
#[inline(always)]
fn push_padded<const N: usize>(out: &mut Vec<u8>, bytes: &[u8], start: usize, len: usize) {
    if len <= N {
        if let Ok(chunk) = <&[u8; N]>::try_from(&bytes[start..start + N]) {
            out.extend_from_slice(chunk);
            out.truncate(out.len() - (N - len));
            return;
        }
    }
    out.extend_from_slice(&bytes[start..start + len]);
}

/// Bytes gathered before they are handed to the writer.
const BUFFER: usize = 64 << 10;

/// Cells of at most this many bytes are copied as this many.
const COPY: usize = 32;

/// A class's runs of bytes of at most this many are copied as this many.
const SEGMENT: usize = 64;

#[cfg(test)]
mod tests {
    use std::path::Path;

    use proptest::prelude::*;

    use super::Escaped;
    use crate::algorithm::problem::Problem;
    use crate::criteria::ModelSpec;
    use crate::data::table::{CsvFormat, Table};
    use crate::data::Role;
    use crate::framework::dataset::Dataset;
    use crate::hierarchy::Hierarchy;
    use crate::metric::MetricSpec;
    use crate::release::microaggregation::{Aggregator, Scale};
    use crate::release::{write_cells, Released};

    /// Cells a CSV writer must quote or leave alone: delimiters, quotes, line breaks,
    /// empty cells, `*`, leading and trailing spaces, non-ASCII.
    const PIECES: &[&str] = &["a", "7", ",", ";", "\"", "'", "\n", "\r", " ", "*", "é", ""];

    fn cell() -> impl Strategy<Value = String> {
        prop::collection::vec(prop::sample::select(PIECES), 0..4).prop_map(|p| p.concat())
    }

    /// A hierarchy over `leaves` (distinct) with a middle level of `groups` labels and
    /// a top level `top`.
    fn hierarchy(leaves: &[String], groups: &[String], top: &str) -> Hierarchy {
        let rows: Vec<Vec<String>> = leaves
            .iter()
            .enumerate()
            .map(|(i, leaf)| {
                vec![
                    leaf.clone(),
                    groups[i % groups.len()].clone(),
                    top.to_owned(),
                ]
            })
            .collect();
        Hierarchy::from_rows(&rows, Path::new("h"), None).expect("a hierarchy")
    }

    /// k-anonymity on `data` with suppression limit `limit`, under the default metric.
    fn k_anonymous(data: Dataset, k: u32, limit: f64) -> Problem {
        Problem::new(
            data,
            &[ModelSpec::KAnonymity { k }],
            limit,
            &MetricSpec::default(),
        )
        .expect("a problem")
    }

    /// k-anonymity with no suppression on `table`, whose one quasi-identifier has `h`.
    fn one_hierarchy_problem(table: Table, roles: Vec<Role>, h: Hierarchy, k: u32) -> Problem {
        let data = Dataset::new(table, roles, vec![(h, "h".into())], vec![]).expect("a dataset");
        k_anonymous(data, k, 0.0)
    }

    /// k-anonymity (k as given, any row may be suppressed) on `rows` under `header`: two
    /// quasi-identifiers, `qa` and `qb` with hierarchies `ha` and `hb`, around an
    /// insensitive column (public or not), then a sensitive and an identifying one.
    fn two_quasi_problem(
        header: Vec<String>,
        rows: &[Vec<String>],
        (ha, hb): (&Hierarchy, &Hierarchy),
        public: bool,
        k: u32,
    ) -> Problem {
        let table = Table::from_rows(header, rows).expect("a table");
        let roles = vec![
            Role::QuasiIdentifying,
            Role::Insensitive,
            Role::QuasiIdentifying,
            Role::Sensitive,
            Role::Identifying,
        ];
        let data = Dataset::new(
            table,
            roles,
            vec![(ha.clone(), "ha".into()), (hb.clone(), "hb".into())],
            vec![],
        )
        .expect("a dataset")
        .with_public(vec![false, public, false, false, false])
        .expect("public flags");
        k_anonymous(data, k, 1.0)
    }

    fn distinct(values: Vec<String>, tag: &str) -> Vec<String> {
        // made distinct by their position, so that any piece can occur in them
        values
            .into_iter()
            .enumerate()
            .map(|(i, v)| format!("{v}{tag}{i}"))
            .collect()
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

        /// The escaped writer writes the bytes the CSV writer writes cell by cell, on
        /// releases with suppressed rows, public and identifying columns, microaggregated
        /// cells and cells that need quoting, in several dialects.
        #[test]
        fn escaped_rows_are_the_csv_writers_rows(
            leaves_a in prop::collection::vec(cell(), 1..6),
            leaves_b in prop::collection::vec(cell(), 1..6),
            groups in prop::collection::vec(cell(), 1..3),
            top in cell(),
            others in prop::collection::vec(cell(), 1..5),
            picks in prop::collection::vec((0usize..6, 0usize..6, 0usize..5, 0usize..5), 1..40),
            levels in (0u8..3, 0u8..3),
            k in 1u32..4,
            public in any::<bool>(),
            aggregate in any::<bool>(),
            dialect in 0usize..3,
        ) {
            let a = distinct(leaves_a, "a");
            let b = distinct(leaves_b, "b");
            // a cell `*` of its own would read as suppressed: the dataset refuses it
            let others = distinct(others, "o");
            let header = ["qa", "ins", "qb", "sens", "id"].map(String::from).to_vec();
            let rows: Vec<Vec<String>> = picks
                .iter()
                .map(|&(i, j, o, s)| {
                    vec![
                        a[i % a.len()].clone(),
                        others[o % others.len()].clone(),
                        b[j % b.len()].clone(),
                        others[s % others.len()].clone(),
                        format!("person {i}"),
                    ]
                })
                .collect();
            let (ha, hb) = (hierarchy(&a, &groups, &top), hierarchy(&b, &groups, &top));
            let problem = two_quasi_problem(header, &rows, (&ha, &hb), public, k);
            let mut released = Released::new(&problem, &[levels.0, levels.1]).expect("released");
            if aggregate {
                let aggregators = [
                    Aggregator::new(Scale::Nominal, &ha, None),
                    Aggregator::new(Scale::Ordinal, &hb, None),
                ];
                released = released.microaggregated(&aggregators).expect("aggregated");
            }
            let (delimiter, quote) = [(b',', b'"'), (b';', b'"'), (b';', b'\'')][dialect];
            let format = CsvFormat { delimiter, quote, ..CsvFormat::default() };
            let order: Vec<usize> = (0..rows.len()).rev().collect();
            let mut general = Vec::new();
            write_cells(&released, &mut general, &format, &order).expect("written");
            let escaped = Escaped::new(&released, &format).expect("escaped").expect("two columns or more");
            let mut fast = Vec::new();
            escaped.write_rows(&released, &mut fast, &order).expect("written");
            prop_assert_eq!(String::from_utf8_lossy(&fast), String::from_utf8_lossy(&general));
        }
    }

    /// Rows written from their class's bytes (few classes for the rows): quasi-identifiers
    /// on either side of the other columns, suppressed rows (a public column shown in
    /// them or not), microaggregated cells, cells that need quoting, rows in an order of
    /// their own: the bytes the CSV writer writes cell by cell.
    #[test]
    fn rows_from_their_class_are_the_csv_writers_rows() {
        let a: Vec<String> = ["x", "y,z", "\"q\"", "é"].map(String::from).to_vec();
        let b: Vec<String> = ["1", "2", "3"].map(String::from).to_vec();
        let groups = ["g 1".to_owned(), "g;2".to_owned()];
        let (ha, hb) = (hierarchy(&a, &groups, "*"), hierarchy(&b, &groups, "*"));
        let header = ["qa", "ins", "qb", "sens", "id"].map(String::from).to_vec();
        let rows: Vec<Vec<String>> = (0..300usize)
            .map(|i| {
                // leaf 3 of `a` with leaf 2 of `b` in 2 rows only: a class k = 3 suppresses
                let (x, y) = if i < 2 { (3, 2) } else { (i % 3, i % 2) };
                vec![
                    a[x].clone(),
                    format!("n{}", i % 5),
                    b[y].clone(),
                    format!("s \"{}\"", i % 4),
                    format!("p{i}"),
                ]
            })
            .collect();
        let order: Vec<usize> = (0..rows.len()).map(|i| (i * 7) % rows.len()).collect();
        for public in [false, true] {
            for aggregate in [false, true] {
                let problem = two_quasi_problem(header.clone(), &rows, (&ha, &hb), public, 3);
                let mut released = Released::new(&problem, &[0, 0]).expect("released");
                assert!((0..rows.len()).any(|r| released.is_suppressed(r)));
                if aggregate {
                    let aggregators = [
                        Aggregator::new(Scale::Nominal, &ha, None),
                        Aggregator::new(Scale::Ordinal, &hb, None),
                    ];
                    released = released.microaggregated(&aggregators).expect("aggregated");
                }
                for (delimiter, quote) in [(b',', b'"'), (b';', b'\'')] {
                    let format = CsvFormat {
                        delimiter,
                        quote,
                        ..CsvFormat::default()
                    };
                    let mut general = Vec::new();
                    write_cells(&released, &mut general, &format, &order).expect("written");
                    let escaped = Escaped::new(&released, &format)
                        .expect("escaped")
                        .expect("two columns or more");
                    assert!(escaped.templates.is_some());
                    let mut fast = Vec::new();
                    escaped
                        .write_rows(&released, &mut fast, &order)
                        .expect("written");
                    assert_eq!(
                        String::from_utf8_lossy(&fast),
                        String::from_utf8_lossy(&general),
                        "public {public}, aggregate {aggregate}"
                    );
                }
            }
        }
    }

    /// A release of one column is left to the general writer, which quotes an empty cell
    /// (a record of one empty field would read back as a blank line).
    #[test]
    fn one_column_is_left_to_the_general_writer() {
        let rows = vec![vec![String::new()], vec!["x".to_owned()]];
        let table = Table::from_rows(vec!["q".to_owned()], &rows).expect("a table");
        let h = hierarchy(&[String::new(), "x".to_owned()], &["g".to_owned()], "*");
        let problem = one_hierarchy_problem(table, vec![Role::QuasiIdentifying], h, 1);
        let released = Released::new(&problem, &[0]).expect("released");
        let format = CsvFormat::default();
        assert!(Escaped::new(&released, &format).expect("escaped").is_none());
        let mut written = Vec::new();
        crate::release::ReleasedTable::write_rows(&released, &mut written, &format, &[0, 1])
            .expect("written");
        assert_eq!(written, b"\"\"\nx\n");
        let mut table = Vec::new();
        crate::release::ReleasedTable::write_to(&released, &mut table, &format, &[0, 1])
            .expect("written");
        assert_eq!(table, b"q\n\"\"\nx\n");
    }

    /// A release large enough to be written in parallel blocks (its cells escaped once for
    /// all of them) comes out as the cell-by-cell writer writes it in one go.
    #[test]
    fn parallel_blocks_of_escaped_rows_are_the_csv_writers_rows() {
        let n = crate::release::PARALLEL_WRITE_ROWS + 1_234;
        let header = ["age", "note", "id"].map(String::from).to_vec();
        let rows: Vec<Vec<String>> = (0..n)
            .map(|i| {
                vec![
                    (i % 90).to_string(),
                    format!("n \"{}\", x", i % 7),
                    i.to_string(),
                ]
            })
            .collect();
        let table = Table::from_rows(header, &rows).expect("a table");
        let ages: Vec<String> = (0..90).map(|a| a.to_string()).collect();
        let h = hierarchy(&ages, &["young".to_owned(), "old".to_owned()], "*");
        let problem = one_hierarchy_problem(
            table,
            vec![Role::QuasiIdentifying, Role::Insensitive, Role::Identifying],
            h,
            2,
        );
        let released = Released::new(&problem, &[1]).expect("released");
        let format = CsvFormat::default();
        let order = crate::release::row_order(0..n, crate::release::RowOrder::Shuffled(5));
        let mut parallel = Vec::new();
        crate::release::ReleasedTable::write_to(&released, &mut parallel, &format, &order)
            .expect("written");
        let mut general = b"age,note\n".to_vec();
        write_cells(&released, &mut general, &format, &order).expect("written");
        assert!(parallel == general);
    }
}
