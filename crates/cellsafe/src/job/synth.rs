//! `cellsafe synth --semi-sensitive D`: adds to a table one flag column per named column,
//! each cell flagged sensitive (`1`) with probability D from a seeded generator (ChaCha8),
//! so that experiments with semi-sensitive attributes (paper 004) can set the density of
//! sensitive values reproducibly. The input is never modified.

use std::path::Path;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::data::table::{CsvFormat, Table};
use crate::error::{JobError, Result};
use crate::release::output::{check_paths, Transaction};

/// The flag column of `column`: `COLUMN_sensitive`.
pub fn flag_name(column: &str) -> String {
    format!("{column}_sensitive")
}

/// Per named column, per row, whether the cell is flagged: column by column, row by row,
/// one draw each from one generator seeded with `seed`.
pub fn flags(rows: usize, columns: usize, density: f64, seed: u64) -> Vec<Vec<bool>> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (0..columns)
        .map(|_| (0..rows).map(|_| rng.gen_bool(density)).collect())
        .collect()
}

/// Writes `input` (read as `format`) with a flag column after it for each of `columns`,
/// to `output`, atomically. Fails when a column is missing or already has a flag column,
/// the density is outside [0, 1], or `output` is `input`.
pub fn write_flagged(
    input: &Path,
    format: &CsvFormat,
    columns: &[String],
    density: f64,
    seed: u64,
    output: &Path,
) -> Result<()> {
    if !(0.0..=1.0).contains(&density) {
        return Err(JobError::Density(density).into());
    }
    check_paths(
        &[("the input".to_owned(), input.to_path_buf())],
        &[("the output".to_owned(), output.to_path_buf())],
    )?;
    let table = Table::read_csv(input, format)?;
    let mut header = table.header().to_vec();
    for c in columns {
        if table.column_index(c).is_none() {
            return Err(JobError::NoColumn {
                path: input.to_path_buf(),
                column: c.clone(),
            }
            .into());
        }
        if header.contains(&flag_name(c)) {
            return Err(JobError::HasColumn {
                path: input.to_path_buf(),
                column: flag_name(c),
            }
            .into());
        }
        header.push(flag_name(c));
    }
    let drawn = flags(table.rows(), columns.len(), density, seed);
    let mut tx = Transaction::begin(&[output.to_path_buf()])?;
    tx.stage(output, |w| {
        let mut csv = csv::WriterBuilder::new()
            .delimiter(format.delimiter)
            .quote(format.quote)
            .from_writer(w);
        csv.write_record(&header)?;
        let width = table.header().len();
        for r in 0..table.rows() {
            let mut record: Vec<&str> = (0..width).map(|c| table.value(r, c)).collect();
            record.extend(drawn.iter().map(|f| if f[r] { "1" } else { "0" }));
            csv.write_record(&record)?;
        }
        csv.flush()
    })?;
    tx.commit()
}
