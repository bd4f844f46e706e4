//! A level-based release written by copying bytes: each column's cells escaped once.
//!
//! Under a full-domain transformation a column shows few distinct cells: a quasi-identifier
//! shows its groups' labels at the chosen level (or their statistics), any other column
//! its input values, a suppressed row `*`. So each distinct cell is escaped once, by the
//! same CSV writer the general path uses (it decides the quoting), and a row is written by
//! copying its cells' bytes. The bytes are those of
//! [`ReleasedTable::write_rows`](super::ReleasedTable::write_rows)'s general path; a test
//! compares the two on random tables whose values need quoting.

use std::io::Write;

use super::{Released, PREFETCH_ROWS};
use crate::data::table::CsvFormat;
use crate::data::{Role, SUPPRESSED};

/// The escaped cells of one column, indexed by code.
struct Cells {
    bytes: Vec<u8>,
    /// `ends[code]`: where cell `code`'s bytes end (each starts where the one before ends).
    ends: Vec<usize>,
}

impl Cells {
    #[inline]
    fn get(&self, code: u32) -> &[u8] {
        let code = code as usize;
        let start = if code == 0 { 0 } else { self.ends[code - 1] };
        &self.bytes[start..self.ends[code]]
    }
}

/// Where a released column's cell comes from.
enum Source {
    /// Quasi-identifier `qi`'s group at `level` (its label or statistic).
    Group { qi: usize, level: usize },
    /// The input's value in table column `column`; `public`: also in a suppressed row.
    Value { column: usize, public: bool },
}

/// The escaped cells of a release, ready to be copied row by row.
pub(super) struct Escaped {
    columns: Vec<(Source, Cells)>,
    /// `*`, escaped.
    star: Vec<u8>,
    delimiter: u8,
    terminator: Vec<u8>,
}

/// Escapes strings as `format`'s CSV writer writes them in a record of several fields.
struct Escaper {
    csv: csv::Writer<Vec<u8>>,
    /// The bytes the writer puts after a field that is not the record's last: the
    /// delimiter, then (as the second, empty field ends the record) the terminator.
    tail: usize,
}

impl Escaper {
    fn new(format: &CsvFormat) -> std::io::Result<(Escaper, Vec<u8>)> {
        let csv = csv::WriterBuilder::new()
            .delimiter(format.delimiter)
            .quote(format.quote)
            .from_writer(Vec::new());
        let mut escaper = Escaper { csv, tail: 0 };
        // an empty field then an empty one: the delimiter and the terminator
        let end = escaper.record("")?;
        let terminator = end[1..].to_vec();
        escaper.tail = end.len();
        Ok((escaper, terminator))
    }

    /// The record `[value, ""]` as written.
    fn record(&mut self, value: &str) -> std::io::Result<&[u8]> {
        let start = self.csv.get_ref().len();
        self.csv.write_record([value, ""])?;
        self.csv.flush()?;
        Ok(&self.csv.get_ref()[start..])
    }

    /// Appends `value` escaped to `out`.
    fn push(&mut self, value: &str, out: &mut Vec<u8>) -> std::io::Result<()> {
        let tail = self.tail;
        let record = self.record(value)?;
        out.extend_from_slice(&record[..record.len() - tail]);
        Ok(())
    }

    fn cells<'v>(&mut self, values: impl Iterator<Item = &'v str>) -> std::io::Result<Cells> {
        let mut cells = Cells {
            bytes: Vec::new(),
            ends: Vec::new(),
        };
        for value in values {
            self.push(value, &mut cells.bytes)?;
            cells.ends.push(cells.bytes.len());
        }
        Ok(cells)
    }
}

impl Escaped {
    /// The escaped cells of `released` in `format`; None when the general path must write
    /// it: a release of one column, whose empty cell the CSV writer quotes (a record of
    /// one empty field would read as a blank line).
    pub(super) fn new(released: &Released, format: &CsvFormat) -> std::io::Result<Option<Escaped>> {
        let data = &released.problem.data;
        let shown = data
            .roles
            .iter()
            .filter(|r| **r != Role::Identifying)
            .count();
        if shown < 2 {
            return Ok(None);
        }
        let (mut escaper, terminator) = Escaper::new(format)?;
        let mut star = Vec::new();
        escaper.push(SUPPRESSED, &mut star)?;
        let mut columns = Vec::with_capacity(shown);
        let mut qi = 0;
        for (column, role) in data.roles.iter().enumerate() {
            match role {
                Role::Identifying => {}
                Role::QuasiIdentifying => {
                    let level = released.levels[qi] as usize;
                    let h = &data.quasi[qi].hierarchy;
                    let groups = 0..h.cardinality(level) as u32;
                    let cells = match &released.aggregated {
                        Some(m) => escaper.cells(groups.map(|g| m.value(qi, g)))?,
                        None => escaper.cells(groups.map(|g| h.label(level, g)))?,
                    };
                    columns.push((Source::Group { qi, level }, cells));
                    qi += 1;
                }
                _ => {
                    let values = data.table.dictionary(column).values();
                    let cells = escaper.cells(values.iter().map(String::as_str))?;
                    let public = data.public[column];
                    columns.push((Source::Value { column, public }, cells));
                }
            }
        }
        Ok(Some(Escaped {
            columns,
            star,
            delimiter: format.delimiter,
            terminator,
        }))
    }

    /// Writes `released`'s input rows `order` as CSV records (no header).
    pub(super) fn write_rows(
        &self,
        released: &Released,
        w: &mut dyn Write,
        order: &[usize],
    ) -> std::io::Result<()> {
        let data = &released.problem.data;
        let mut buffer = Vec::with_capacity(BUFFER + 4096);
        for block in order.chunks(PREFETCH_ROWS) {
            super::ReleasedTable::prefetch_rows(released, block);
            for &row in block {
                let suppressed = released.is_suppressed(row);
                for (i, (source, cells)) in self.columns.iter().enumerate() {
                    if i > 0 {
                        buffer.push(self.delimiter);
                    }
                    let cell = match *source {
                        Source::Value { public: false, .. } | Source::Group { .. }
                            if suppressed =>
                        {
                            &self.star[..]
                        }
                        Source::Value { column, .. } => cells.get(data.table.codes(column)[row]),
                        Source::Group { qi, level } => {
                            let q = &data.quasi[qi];
                            cells.get(q.hierarchy.code(level, q.leaves[row]))
                        }
                    };
                    buffer.extend_from_slice(cell);
                }
                buffer.extend_from_slice(&self.terminator);
                if buffer.len() >= BUFFER {
                    w.write_all(&buffer)?;
                    buffer.clear();
                }
            }
        }
        w.write_all(&buffer)
    }
}

/// Bytes gathered before they are handed to the writer.
const BUFFER: usize = 64 << 10;

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
            let table = Table::from_rows(header, &rows).expect("a table");
            let (ha, hb) = (hierarchy(&a, &groups, &top), hierarchy(&b, &groups, &top));
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
            let problem = Problem::new(
                data,
                &[ModelSpec::KAnonymity { k }],
                1.0,
                &MetricSpec::default(),
            )
            .expect("a problem");
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

    /// A release of one column is left to the general writer, which quotes an empty cell
    /// (a record of one empty field would read back as a blank line).
    #[test]
    fn one_column_is_left_to_the_general_writer() {
        let rows = vec![vec![String::new()], vec!["x".to_owned()]];
        let table = Table::from_rows(vec!["q".to_owned()], &rows).expect("a table");
        let h = hierarchy(&[String::new(), "x".to_owned()], &["g".to_owned()], "*");
        let data = Dataset::new(
            table,
            vec![Role::QuasiIdentifying],
            vec![(h, "h".into())],
            vec![],
        )
        .expect("a dataset");
        let problem = Problem::new(
            data,
            &[ModelSpec::KAnonymity { k: 1 }],
            0.0,
            &MetricSpec::default(),
        )
        .expect("a problem");
        let released = Released::new(&problem, &[0]).expect("released");
        let format = CsvFormat::default();
        assert!(Escaped::new(&released, &format).expect("escaped").is_none());
        let mut written = Vec::new();
        crate::release::ReleasedTable::write_rows(&released, &mut written, &format, &[0, 1])
            .expect("written");
        assert_eq!(written, b"\"\"\nx\n");
    }
}
