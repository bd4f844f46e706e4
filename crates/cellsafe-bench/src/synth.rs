//! Seeded synthetic data for benchmarks and tests: tables shaped like a real one
//! ([`write_synthetic`], [`write_adult`]), nested disclosure instances
//! ([`nested_disclosure`]) and compressed bipartite graphs with a perfect matching
//! ([`bipartite`]).
//!
//! Each synthetic row starts as a copy of a random source row; then each cell is, with
//! probability `mix`, replaced by the same column's value in another random source row.
//! Marginals are kept, every value stays inside the source's domain (so its hierarchies
//! still cover it), and new combinations appear as in larger real populations.
//! Uses ChaCha8 so the same seed gives the same table on every platform and version.

use std::io::Write;
use std::path::Path;

use cellsafe::algorithm::disclosure::{Check, Disclosure, Instance, Partition};
use cellsafe::data::table::Table;
use cellsafe::job::config::Config;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Writes `rows` synthetic rows derived from `source` as CSV (with header) to `out`.
pub fn write_synthetic(
    source: &Table,
    rows: usize,
    seed: u64,
    mix: f64,
    delimiter: u8,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    let mut w = csv::WriterBuilder::new()
        .delimiter(delimiter)
        .from_writer(out);
    w.write_record(source.header())?;
    each_row(source, rows, seed, mix, &mut |record| {
        w.write_record(record).map_err(Into::into)
    })?;
    w.flush()
}

/// Draws `rows` synthetic rows from `source` (see the module docs) and hands each to
/// `emit`; every output format draws through it, so one seed gives the same rows in each.
fn each_row(
    source: &Table,
    rows: usize,
    seed: u64,
    mix: f64,
    emit: &mut dyn FnMut(&[&str]) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let n = source.rows();
    let columns = source.header().len();
    let mut record: Vec<&str> = Vec::with_capacity(columns);
    for _ in 0..rows {
        let base = rng.gen_range(0..n);
        record.clear();
        for c in 0..columns {
            let row = if rng.gen_bool(mix) {
                rng.gen_range(0..n)
            } else {
                base
            };
            record.push(source.value(row, c));
        }
        emit(&record)?;
    }
    Ok(())
}

/// Writes `rows` synthetic rows derived from `source` as Parquet to `path`: the same rows
/// as [`write_synthetic`] for the same seed (see [`write_parquet`] for the types).
#[cfg(feature = "arrow")]
pub fn write_synthetic_parquet(
    source: &Table,
    rows: usize,
    seed: u64,
    mix: f64,
    path: &Path,
) -> anyhow::Result<()> {
    write_parquet(source, path, |emit| each_row(source, rows, seed, mix, emit))
}

/// Writes the rows `rows` hands over (columns as in `source`) as Parquet to `path`,
/// streamed in row groups (memory holds one batch). A column whose values in `source` are
/// all integers is `Int64`, any other `Utf8`. Written to a temporary file beside `path`
/// and renamed: it appears whole or not at all.
#[cfg(feature = "arrow")]
pub fn write_parquet(
    source: &Table,
    path: &Path,
    rows: impl FnOnce(&mut dyn FnMut(&[&str]) -> std::io::Result<()>) -> std::io::Result<()>,
) -> anyhow::Result<()> {
    use std::sync::Arc;

    use arrow_array::builder::{Int64Builder, StringBuilder};
    use arrow_array::{ArrayRef, RecordBatch};
    use arrow_schema::{DataType, Field, Schema};

    const BATCH: usize = 64 * 1024;
    let columns = source.header().len();
    let integer: Vec<bool> = (0..columns)
        .map(|c| (0..source.rows()).all(|r| source.value(r, c).parse::<i64>().is_ok()))
        .collect();
    let schema = Arc::new(Schema::new(
        source
            .header()
            .iter()
            .zip(&integer)
            .map(|(name, &int)| {
                let t = if int { DataType::Int64 } else { DataType::Utf8 };
                Field::new(name, t, false)
            })
            .collect::<Vec<_>>(),
    ));
    let name = path
        .file_name()
        .ok_or_else(|| anyhow::anyhow!("{} names no file", path.display()))?;
    let temp = path.with_file_name(format!(
        ".{}.{}.tmp",
        name.to_string_lossy(),
        std::process::id()
    ));
    let written = (|| -> anyhow::Result<()> {
        let file = std::fs::File::create_new(&temp)?;
        let mut writer = parquet::arrow::ArrowWriter::try_new(file, schema.clone(), None)?;
        let mut ints: Vec<Int64Builder> = (0..columns).map(|_| Int64Builder::new()).collect();
        let mut strings: Vec<StringBuilder> = (0..columns).map(|_| StringBuilder::new()).collect();
        let mut pending = 0;
        let flush = |ints: &mut Vec<Int64Builder>,
                     strings: &mut Vec<StringBuilder>,
                     writer: &mut parquet::arrow::ArrowWriter<std::fs::File>|
         -> std::io::Result<()> {
            let arrays: Vec<ArrayRef> = (0..columns)
                .map(|c| -> ArrayRef {
                    if integer[c] {
                        Arc::new(ints[c].finish())
                    } else {
                        Arc::new(strings[c].finish())
                    }
                })
                .collect();
            let batch = RecordBatch::try_new(schema.clone(), arrays)
                .map_err(|e| std::io::Error::other(e.to_string()))?;
            writer
                .write(&batch)
                .map_err(|e| std::io::Error::other(e.to_string()))
        };
        rows(&mut |record: &[&str]| {
            for (c, value) in record.iter().enumerate() {
                if integer[c] {
                    let v = value.parse().map_err(|_| {
                        std::io::Error::other(format!("`{value}` is not an integer"))
                    })?;
                    ints[c].append_value(v);
                } else {
                    strings[c].append_value(value);
                }
            }
            pending += 1;
            if pending == BATCH {
                pending = 0;
                flush(&mut ints, &mut strings, &mut writer)?;
            }
            Ok(())
        })?;
        if pending > 0 {
            flush(&mut ints, &mut strings, &mut writer)?;
        }
        let file = writer.into_inner()?;
        file.sync_all()?;
        Ok(())
    })();
    match written.and_then(|()| std::fs::rename(&temp, path).map_err(Into::into)) {
        Ok(()) => Ok(()),
        Err(e) => {
            let _ = std::fs::remove_file(&temp);
            Err(e)
        }
    }
}

/// Converts a CSV table to Parquet, row for row (see [`write_parquet`] for the types).
#[cfg(feature = "arrow")]
pub fn csv_to_parquet(input: &Path, delimiter: u8, output: &Path) -> anyhow::Result<()> {
    let format = cellsafe::data::table::CsvFormat {
        delimiter,
        ..Default::default()
    };
    let table = Table::read_csv(input, &format)?;
    write_parquet(&table, output, |emit| {
        let mut record: Vec<&str> = Vec::with_capacity(table.header().len());
        for r in 0..table.rows() {
            record.clear();
            record.extend((0..table.header().len()).map(|c| table.value(r, c)));
            emit(&record)?;
        }
        Ok(())
    })
}

/// Writes `rows` synthetic rows derived from the bundled Adult table to `path` as a
/// `;`-separated CSV with Adult's header, so `examples/adult/adult.toml` reads it with
/// `path` replaced. The file is staged and renamed: it appears whole or not at all.
pub fn write_adult(path: &Path, rows: usize, seed: u64, mix: f64) -> anyhow::Result<()> {
    if !(0.0..=1.0).contains(&mix) {
        anyhow::bail!("the mix probability must lie in [0, 1], not {mix}");
    }
    let source = crate::adult::table()?;
    cellsafe::release::write_atomic(path, |w| write_synthetic(&source, rows, seed, mix, b';', w))?;
    Ok(())
}

/// [`write_adult`] as Parquet (`age` an `Int64` column, the others strings).
#[cfg(feature = "arrow")]
pub fn write_adult_parquet(path: &Path, rows: usize, seed: u64, mix: f64) -> anyhow::Result<()> {
    if !(0.0..=1.0).contains(&mix) {
        anyhow::bail!("the mix probability must lie in [0, 1], not {mix}");
    }
    let source = crate::adult::table()?;
    write_synthetic_parquet(&source, rows, seed, mix, path)
}

/// `config` reading a seeded synthetic Adult table of `rows` rows (mix 0.2), written into
/// the returned temporary directory: keep it alive while the config is used.
pub fn adult_config(
    config: &Config,
    rows: usize,
    seed: u64,
) -> anyhow::Result<(tempfile::TempDir, Config)> {
    let dir = tempfile::Builder::new()
        .prefix("cellsafe-synthetic-")
        .tempdir()?;
    let path = dir.path().join("synthetic.csv");
    write_adult(&path, rows, seed, 0.2)?;
    let mut synthetic = config.clone();
    synthetic.input.path = path;
    Ok((dir, synthetic))
}

/// A seeded nested disclosure instance for benchmarks and tests: `top` blocks of 20 rows,
/// each split into 12 + 8 rows (g₂) and those into 6 + 6 and 8 (g₁), with g₃ the blocks;
/// sensitive values uniform over `values` codes.
pub fn nested_disclosure(
    top: usize,
    values: usize,
    seed: u64,
    check: Check,
) -> cellsafe::Result<Disclosure> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let rows = top * 20;
    let sensitive: Vec<u16> = (0..rows).map(|_| rng.gen_range(0..values as u16)).collect();
    let g1: Vec<usize> = (0..rows)
        .map(|r| 3 * (r / 20) + [0, 1, 2][((r % 20) / 6).min(2)])
        .collect();
    let g2: Vec<usize> = (0..rows)
        .map(|r| 2 * (r / 20) + usize::from(r % 20 >= 12))
        .collect();
    let g3: Vec<usize> = (0..rows).map(|r| r / 20).collect();
    let instance = Instance::new(
        (0..rows).map(|r| format!("row {}", r + 1)).collect(),
        (0..values).map(|v| format!("v{v}")).collect(),
        sensitive,
    )?;
    Disclosure::new(
        instance,
        vec![
            Partition::from_labels("6+6+8", &g1),
            Partition::from_labels("12+8", &g2),
            Partition::from_labels("20", &g3),
        ],
        check,
    )
}

/// A compressed bipartite graph in the form `cellsafe::criteria::matching::usable` takes:
/// multiplicities of the left and right types and type-to-type edges.
#[derive(Debug, Clone)]
pub struct Bipartite {
    pub left: Vec<u32>,
    pub right: Vec<u32>,
    pub edges: Vec<(u32, u32)>,
}

/// A seeded bipartite workload shaped like set-based safety's person–record graph:
/// `persons` persons, each matched to their own record (so a perfect matching exists),
/// persons in `left_types` types and records in `right_types` types (both drawn uniformly,
/// types left empty are dropped), the planted edges plus `extra` random edges per left
/// type. Edges are distinct and sorted.
pub fn bipartite(
    persons: usize,
    left_types: usize,
    right_types: usize,
    extra: usize,
    seed: u64,
) -> Bipartite {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut left = vec![0u32; left_types.max(1)];
    let mut right = vec![0u32; right_types.max(1)];
    let mut edges = Vec::with_capacity(persons + extra * left.len());
    for _ in 0..persons {
        let (p, q) = (rng.gen_range(0..left.len()), rng.gen_range(0..right.len()));
        left[p] += 1;
        right[q] += 1;
        edges.push((p as u32, q as u32));
    }
    for p in 0..left.len() {
        for _ in 0..extra {
            edges.push((p as u32, rng.gen_range(0..right.len()) as u32));
        }
    }
    // renumber the non-empty types and keep the edges between them
    let renumber = |counts: &[u32]| -> Vec<Option<u32>> {
        let mut next = 0;
        counts
            .iter()
            .map(|&c| {
                (c > 0).then(|| {
                    next += 1;
                    next - 1
                })
            })
            .collect()
    };
    let (new_left, new_right) = (renumber(&left), renumber(&right));
    let mut edges: Vec<(u32, u32)> = edges
        .into_iter()
        .filter_map(|(p, q)| Some((new_left[p as usize]?, new_right[q as usize]?)))
        .collect();
    edges.sort_unstable();
    edges.dedup();
    left.retain(|&c| c > 0);
    right.retain(|&c| c > 0);
    Bipartite { left, right, edges }
}

/// The census extract of paper 004's experiments from the UCI Adult file at `input`
/// (comma-separated, `?` for missing): the complete rows, `rows` of them drawn by a seeded
/// shuffle (kept in file order), with the paper's nine attributes; salary, which the data
/// lacks, is `fnlwgt` / 1000 (integer division). Written `;`-separated.
pub fn write_lgb_extract(
    input: &Path,
    output: &Path,
    rows: usize,
    seed: u64,
) -> anyhow::Result<()> {
    use rand::seq::SliceRandom;
    let mut reader = csv::ReaderBuilder::new().from_path(input)?;
    let header: Vec<String> = reader.headers()?.iter().map(String::from).collect();
    let col = |name: &str| {
        header
            .iter()
            .position(|h| h == name)
            .ok_or_else(|| anyhow::anyhow!("{} has no column `{name}`", input.display()))
    };
    let wanted = [
        "age",
        "sex",
        "relationship",
        "marital-status",
        "race",
        "education",
        "hours-per-week",
        "occupation",
    ];
    let columns: Vec<usize> = wanted
        .iter()
        .map(|w| col(w))
        .collect::<anyhow::Result<_>>()?;
    let fnlwgt = col("fnlwgt")?;
    let mut complete: Vec<Vec<String>> = Vec::new();
    for record in reader.records() {
        let record = record?;
        if record.iter().any(|v| v == "?") {
            continue;
        }
        let mut row: Vec<String> = columns.iter().map(|&c| record[c].to_string()).collect();
        let weight: u64 = record[fnlwgt].parse()?;
        row.push((weight / 1000).to_string());
        complete.push(row);
    }
    let mut index: Vec<usize> = (0..complete.len()).collect();
    index.shuffle(&mut ChaCha8Rng::seed_from_u64(seed));
    index.truncate(rows.min(complete.len()));
    index.sort_unstable();
    let mut writer = csv::WriterBuilder::new()
        .delimiter(b';')
        .from_path(output)?;
    let mut head: Vec<&str> = wanted.to_vec();
    head.push("salary");
    writer.write_record(&head)?;
    for i in index {
        writer.write_record(&complete[i])?;
    }
    writer.flush()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_table() {
        let header = vec!["a".to_string(), "b".to_string()];
        let rows: Vec<Vec<String>> = (0..20)
            .map(|i| vec![format!("{}", i % 3), format!("{}", i % 7)])
            .collect();
        let t = Table::from_rows(header, &rows).unwrap();
        let make = |seed| {
            let mut out = Vec::new();
            write_synthetic(&t, 100, seed, 0.3, b',', &mut out).unwrap();
            out
        };
        assert_eq!(make(7), make(7));
        assert_ne!(make(7), make(8));
    }

    #[test]
    fn the_bipartite_workload_has_a_perfect_matching() {
        let g = bipartite(2_000, 300, 200, 2, 5);
        let total: u32 = g.left.iter().sum();
        assert_eq!(total, 2_000);
        assert_eq!(g.right.iter().sum::<u32>(), total);
        assert!(g.left.iter().chain(&g.right).all(|&c| c > 0));
        assert!(g.edges.windows(2).all(|w| w[0] < w[1]));
        let usable = cellsafe::criteria::matching::usable(&g.left, &g.right, &g.edges)
            .expect("the planted matching is perfect");
        assert_eq!(usable.len(), g.edges.len());
        assert_eq!(bipartite(2_000, 300, 200, 2, 5).edges, g.edges);
    }

    #[test]
    fn nested_disclosure_has_three_nested_steps() {
        use cellsafe::algorithm::disclosure::CheckSpec;
        let check = Check::bind(&CheckSpec::RecursiveCl { c: 2.0, l: 2 }).unwrap();
        let d = nested_disclosure(2, 3, 1, check).unwrap();
        assert_eq!(d.instance.rows(), 40);
        let sizes: Vec<usize> = d.chain.iter().map(|p| p.groups().len()).collect();
        assert_eq!(sizes, [6, 4, 2]);
    }
}
