//! `cellsafe-bench`: timings of cellsafe's searches, disclosure methods and logical-safety
//! searches on the bundled Adult data and seeded synthetic tables, each next to a baseline
//! run side by side, and a writer of synthetic tables. Figures are medians of `--runs`
//! runs; `docs/performance.md` records them. (The criterion benches in `benches/` are run
//! by `cargo bench -p cellsafe-bench`.)

/// Prints a line on stdout. A reader that went away (`cellsafe-bench search | head`) ends
/// the process quietly instead of a panic.
macro_rules! outln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        if let Err(e) = writeln!(std::io::stdout().lock(), $($arg)*) {
            $crate::stdout_failed(e);
        }
    }};
}

mod disclosure;
mod lgb;
mod pareto;
mod safety;
mod search;
mod serve;

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use cellsafe::job::config::Config;
use clap::{Parser, Subcommand};

/// Exit code after Ctrl-C or a termination signal (128 + SIGINT).
const INTERRUPTED: i32 = 130;

#[derive(Parser)]
#[command(
    name = "cellsafe-bench",
    version,
    about = "Benchmarks and synthetic data for cellsafe"
)]
struct Cli {
    /// Worker threads (0: all cores).
    #[arg(long, global = true, default_value_t = 0)]
    threads: usize,
    #[command(subcommand)]
    command: Command,
}

#[derive(clap::Args)]
struct Runs {
    /// Repetitions per scenario (the median is shown).
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u16).range(1..))]
    runs: u16,
}

impl Runs {
    fn get(&self) -> usize {
        self.runs.into()
    }
}

#[derive(Subcommand)]
enum Command {
    /// The optimal search on Adult in seven scenarios, each next to the exhaustive search.
    Search {
        #[command(flatten)]
        runs: Runs,
        /// Also load and search a synthetic table of this many rows (k=5, 1% suppression,
        /// Loss), with load time and peak memory.
        #[arg(long)]
        synthetic_rows: Option<usize>,
    },
    /// The minimal-safe searches (papers 000 and 002) next to the papers' breadth-first
    /// search, partial-order granulation, set-based safety and the goal-directed search.
    Safety {
        #[command(flatten)]
        runs: Runs,
        /// Also compare the minimal searches on a synthetic table of this many rows.
        #[arg(long)]
        synthetic_rows: Option<usize>,
    },
    /// The disclosure-set methods (paper 001) at sizes where enumeration is hopeless.
    Disclosure {
        #[command(flatten)]
        runs: Runs,
    },
    /// Paper 003's tables (PBG-EA against the exact front) on examples/pbg.
    Pareto {
        /// Seeded runs per case (the paper's 20).
        #[arg(long, default_value_t = 20)]
        runs: usize,
        /// Only the cases whose name contains this text (e.g. "S_k, S_ℓ").
        #[arg(long)]
        only: Option<String>,
    },
    /// Paper 004's Figures 5-8 (LGB_MDP and LGB_NCP over k and l; density) on examples/lgb.
    Lgb {
        /// Random aggregate queries per release.
        #[arg(long, default_value_t = 1000)]
        queries: usize,
        /// Write one SVG chart per figure into this directory.
        #[arg(long)]
        svg: Option<PathBuf>,
    },
    /// The gatekeeper service on loopback: concurrent analysts issuing safe small queries
    /// (latency, throughput, every answer audited) and, with --rows, one query needing
    /// generalization over a center of that many rows, timed end to end.
    Serve {
        /// Concurrent analysts.
        #[arg(long, default_value_t = 50)]
        analysts: usize,
        /// Queries per analyst.
        #[arg(long, default_value_t = 20)]
        queries: usize,
        /// Also time a query over a seeded center of this many rows (e.g. 200000).
        #[arg(long)]
        rows: Option<usize>,
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
    /// Write a seeded synthetic table with the Adult data's columns (CSV `;`-separated, or Parquet).
    Synth {
        #[arg(long)]
        rows: usize,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Probability that a cell is taken from another random row.
        #[arg(long, default_value_t = 0.2)]
        mix: f64,
        /// `csv` (`;`-separated) or `parquet` (needs the `arrow` feature); the same rows
        /// for the same seed.
        #[arg(long, default_value = "csv")]
        format: String,
        #[arg(long)]
        output: PathBuf,
    },
    /// Paper 004's census extract from the full UCI Adult file (complete rows, a seeded
    /// sample, salary = fnlwgt / 1000): how examples/lgb/census.csv was made.
    LgbExtract {
        /// The UCI file (`adult_uci.csv`, comma-separated).
        #[arg(long)]
        input: PathBuf,
        #[arg(long, default_value_t = 31_055)]
        rows: usize,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        #[arg(long)]
        output: PathBuf,
    },
    /// Convert a CSV table to Parquet, row for row (integer columns as Int64, the others
    /// strings): how examples/adult/adult.parquet was made. Needs `--features arrow`.
    ToParquet {
        /// The CSV file.
        #[arg(long)]
        input: PathBuf,
        /// Its delimiter (one byte).
        #[arg(long, default_value = ";")]
        delimiter: char,
        #[arg(long)]
        output: PathBuf,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    // A synthetic table being staged is removed before exiting.
    let _ = ctrlc::set_handler(|| {
        cellsafe::release::output::interrupted();
        std::process::exit(INTERRUPTED);
    });
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// Ends the process after a failed write to stdout: quietly (exit 0) when the reader closed
/// the pipe, else with the error (exit 1).
fn stdout_failed(e: std::io::Error) -> ! {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        std::process::exit(0);
    }
    eprintln!("error: writing to stdout: {e}");
    std::process::exit(1);
}

fn run(cli: Cli) -> Result<()> {
    let threads = cli.threads;
    match cli.command {
        Command::Search {
            runs,
            synthetic_rows,
        } => on_adult(threads, |config| {
            search::run(runs.get(), config, synthetic_rows)
        }),
        Command::Safety {
            runs,
            synthetic_rows,
        } => on_adult(threads, |config| {
            safety::run(runs.get(), config, synthetic_rows)
        }),
        Command::Disclosure { runs } => {
            on_adult(threads, |config| disclosure::run(runs.get(), config))
        }
        Command::Pareto { runs, only } => {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()?;
            pool.install(|| pareto::run(runs.max(1), only.as_deref()))
        }
        Command::Synth {
            rows,
            seed,
            mix,
            format,
            output,
        } => {
            match format.as_str() {
                "csv" => cellsafe_bench::synth::write_adult(&output, rows, seed, mix)?,
                #[cfg(feature = "arrow")]
                "parquet" => cellsafe_bench::synth::write_adult_parquet(&output, rows, seed, mix)?,
                #[cfg(not(feature = "arrow"))]
                "parquet" => anyhow::bail!(
                    "--format parquet needs cellsafe-bench built with `--features arrow`"
                ),
                other => anyhow::bail!("--format must be csv or parquet, not `{other}`"),
            }
            eprintln!("wrote {rows} rows to {}", output.display());
            Ok(())
        }
        Command::Serve {
            analysts,
            queries,
            rows,
            seed,
        } => serve::run(analysts.max(1), queries.max(1), rows, seed),
        Command::Lgb { queries, svg } => lgb::run(queries.max(1), svg.as_deref()),
        Command::LgbExtract {
            input,
            rows,
            seed,
            output,
        } => {
            cellsafe_bench::synth::write_lgb_extract(&input, &output, rows, seed)?;
            eprintln!("wrote {} from {}", output.display(), input.display());
            Ok(())
        }
        Command::ToParquet {
            input,
            delimiter,
            output,
        } => {
            let delimiter = u8::try_from(delimiter)
                .map_err(|_| anyhow::anyhow!("--delimiter must be one byte"))?;
            #[cfg(feature = "arrow")]
            cellsafe_bench::synth::csv_to_parquet(&input, delimiter, &output)?;
            #[cfg(not(feature = "arrow"))]
            anyhow::bail!(
                "to-parquet needs cellsafe-bench built with `--features arrow` ({} {} {delimiter})",
                input.display(),
                output.display()
            );
            #[cfg(feature = "arrow")]
            {
                eprintln!("wrote {} from {}", output.display(), input.display());
                Ok(())
            }
        }
    }
}

/// Runs `bench` on the Adult job (read from examples/adult) in a pool of
/// `threads` workers (0: all cores).
fn on_adult(threads: usize, bench: impl FnOnce(&Config) -> Result<()> + Send) -> Result<()> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()?;
    let config = cellsafe_bench::adult::config()?;
    pool.install(|| bench(&config))
}
