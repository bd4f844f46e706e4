//! `cellsafe`: the command-line front end. It parses arguments, calls the library, prints
//! results, and maps outcomes to exit codes (0 success, 1 error, 2 usage, an output that
//! would overwrite an input or that exists and is not a regular file, 3 nothing found, not
//! acceptable or unsafe, 130 interrupted, whenever the signal comes).
//! Long work shows progress bars on stderr when it is a terminal, and Ctrl-C stops it
//! through the library's cancellation (see [`Front`]).

/// Prints a line on stdout. A reader that went away (`cellsafe evaluate ... | head`) ends
/// the process quietly instead of a panic.
macro_rules! outln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        if let Err(e) = writeln!(std::io::stdout().lock(), $($arg)*) {
            $crate::stdout_failed(e);
        }
    }};
}

mod demo;
mod studio;

/// mimalloc: the searches allocate and free a class table per node; on Adult k=5 1%
/// (9 QIs) the whole command takes 0.80x the time with the system allocator, for a
/// larger peak (142 against 50 MiB; 354 against 253 MiB at 1,000,000 rows). Its version 2
/// (the `v2` feature) rather than 3: on the kit's configurations with one thread, the whole
/// command took 0.96-0.98x the time (1.02x at 13 QIs, Loss) and peaked lower (30 against
/// 36 MiB at k = 5, 0 %; 141 against 165 MiB at 12 QIs, DM). These figures were taken
/// with transparent huge pages, which [`huge_pages_off`] now turns off.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use cellsafe::job::config::Config;
use cellsafe::job::{self, Outputs};
use cellsafe::observer::{self, Cancel, Observer};
use clap::{Parser, Subcommand};

/// Exit code when no transformation satisfies the privacy models, the evaluated one is not
/// acceptable, or the release is unsafe.
const NOT_FOUND: u8 = 3;
/// Exit code of bad arguments, including an output path that names an input or an
/// existing file that is not a regular file.
const USAGE: u8 = 2;
/// Exit code after Ctrl-C or a termination signal (128 + SIGINT).
const INTERRUPTED: u8 = 130;
/// How long, after Ctrl-C during work that asks for cancellation, the work has to stop and
/// the run to end by itself before the signal handler ends the process.
const GRACE: Duration = Duration::from_secs(3);
/// How long the run has to end once the cancelled work has stopped.
const WIND_DOWN: Duration = Duration::from_millis(200);

#[derive(Parser)]
#[command(name = "cellsafe", version, about = "Safe release of microdata")]
struct Cli {
    /// Show no progress bars (they are shown only when stderr is a terminal).
    #[arg(long, global = true)]
    quiet: bool,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Search for the best safe transformation, write the released table and a JSON report.
    Anonymize {
        config: PathBuf,
        /// Released CSV (default: [output] path in the config, else INPUT.anonymized.csv).
        #[arg(long)]
        output: Option<PathBuf>,
        /// JSON report (`-`: stdout; default: [output] report in the config, else stdout).
        #[arg(long)]
        report: Option<PathBuf>,
        /// Also write a CSV mapping each released row to its input line (for the
        /// custodian only: it undoes the row shuffle).
        #[arg(long)]
        mapping: Option<PathBuf>,
        /// Release this node instead of searching (one 0-based level per
        /// quasi-identifier, in header order: 1,2,0,...), e.g. one `cellsafe pareto`
        /// reported; exit 3 when it is not acceptable.
        #[arg(long, value_delimiter = ',')]
        levels: Option<Vec<u8>>,
        /// With algorithm = "lgb": also answer N seeded random aggregate queries (paper 004
        /// section 4.2) and report their mean relative error.
        #[arg(long, value_name = "N")]
        query_error: Option<usize>,
    },
    /// Serve the data center of a config as the gatekeeper service (paper 002): every
    /// answer is tested against what its recipient already holds, generalized or refused
    /// when unsafe, and audited. Runs until SIGTERM or Ctrl-C. Needs a cellsafe built
    /// with `--features service`.
    Serve {
        config: PathBuf,
        /// Address to listen on (default: the config's [service] listen).
        #[arg(long)]
        listen: Option<String>,
    },
    /// The workbench: build, run and explore a job in the browser, then download the
    /// release and the job as TOML. Prints the address to open, with a random token made
    /// at start (every request without it is refused). Runs until SIGTERM or Ctrl-C. Needs
    /// a cellsafe built with `--features studio`.
    Studio {
        /// Address to listen on (loopback by default; port 0 picks a free one).
        #[arg(long, default_value = studio::DEFAULT_LISTEN)]
        listen: String,
        /// Open the address in the desktop's browser.
        #[arg(long)]
        open: bool,
        /// Largest file the browser may upload, in bytes.
        #[arg(long, default_value_t = 2 << 30)]
        max_upload: u64,
    },
    /// Add seeded flag columns `COLUMN_sensitive` (1 = the person holds this cell
    /// sensitive) to a table, for semi-sensitive attributes (paper 004).
    Synth {
        /// The table to flag (never modified).
        input: PathBuf,
        /// Share of cells flagged sensitive, in [0, 1].
        #[arg(long)]
        semi_sensitive: f64,
        /// The columns to flag.
        #[arg(long, value_delimiter = ',', required = true)]
        columns: Vec<String>,
        /// Field delimiter of the input (and output).
        #[arg(long, default_value = ",")]
        delimiter: char,
        /// Seed of the generator.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Where the flagged table goes.
        #[arg(long)]
        output: PathBuf,
    },
    /// Decide what to release when the adversary knows the algorithm (paper 001): run the
    /// inclusive or exclusive strategy over the config's [disclose] generalizations.
    Disclose {
        config: PathBuf,
        /// Strategy (default: the config's disclose.strategy, else exclusive).
        #[arg(long, value_enum)]
        strategy: Option<StrategyArg>,
        /// JSON report (default, or `-`: printed to stdout).
        #[arg(long)]
        report: Option<PathBuf>,
    },
    /// Check and score one transformation, without searching.
    Evaluate {
        config: PathBuf,
        /// One 0-based level per quasi-identifier, in header order: 1,2,0,...
        #[arg(long, value_delimiter = ',', required = true)]
        levels: Vec<u8>,
    },
    /// Test one transformation for logical safety (papers 000 and 002): list every person
    /// the recipient would learn a confidential formula of. Exit code 3 when unsafe.
    Safety {
        config: PathBuf,
        /// One 0-based level per quasi-identifier, in header order (default: all 0, the
        /// original data).
        #[arg(long, value_delimiter = ',')]
        levels: Option<Vec<u8>>,
        /// List at most this many unsafe persons.
        #[arg(long, default_value_t = 100)]
        limit: usize,
        /// JSON report (default, or `-`: printed to stdout).
        #[arg(long)]
        report: Option<PathBuf>,
    },
    /// Re-identification risks of the config's table, as it is or under one transformation
    /// (its classes failing the config's models suppressed): prosecutor, journalist and
    /// marketer risks, sample uniques and class sizes, as a JSON report.
    Risk {
        config: PathBuf,
        /// One 0-based level per quasi-identifier, in header order (default: the table as
        /// it is, nothing suppressed).
        #[arg(long, value_delimiter = ',')]
        levels: Option<Vec<u8>>,
        /// Records whose risk is above this count as at risk (in [0, 1]).
        #[arg(long, default_value_t = 0.2)]
        threshold: f64,
        /// Records in the population the table was drawn from: adds the population
        /// uniques estimated by Zayatz's, Pitman's and the SNB models and Dankar's rule.
        #[arg(long, conflicts_with = "sampling_fraction")]
        population_size: Option<u64>,
        /// The table's share of that population, in (0, 1] (instead of its size).
        #[arg(long)]
        sampling_fraction: Option<f64>,
        /// Also write a self-contained HTML page: the headline risks, class sizes and
        /// record risks, the table as it is beside the transformation of `--levels`.
        #[arg(long)]
        html: Option<PathBuf>,
        /// JSON report (default, or `-`: printed to stdout).
        #[arg(long)]
        report: Option<PathBuf>,
    },
    /// Find a representative set of Pareto-optimal transformations for several objectives
    /// at once (paper 003's PBG-EA over the config's [pareto] objectives).
    Pareto {
        config: PathBuf,
        /// Also evaluate every node: report the exact front and the run's convergence
        /// error and representation ratio against it.
        #[arg(long)]
        exhaustive: bool,
        /// Seed of the evolutionary search, at most 2^53 − 1 (default: [pareto] seed, else
        /// a fresh one, reported).
        #[arg(long, value_parser = clap::value_parser!(u64).range(..=cellsafe::release::MAX_SEED))]
        seed: Option<u64>,
        /// JSON report (default, or `-`: printed to stdout).
        #[arg(long)]
        report: Option<PathBuf>,
        /// Also write one self-contained HTML page: the front plotted for each pair of
        /// objectives, the table of front nodes, the parameters.
        #[arg(long)]
        html: Option<PathBuf>,
    },
    /// Run the main job on the bundled Adult data (k=5, 1% suppression, Loss) in a temp dir.
    Demo {
        /// Directory to write into, new or empty (default: a new temporary directory).
        #[arg(long)]
        dir: Option<PathBuf>,
    },
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum StrategyArg {
    Inclusive,
    Exclusive,
}

/// `cellsafe serve`: prints `listening on http://ADDRESS` on stderr once it accepts
/// connections.
#[cfg(feature = "service")]
fn serve(config: &Path, listen: Option<&str>) -> ExitCode {
    let ready = |address: std::net::SocketAddr| {
        eprintln!("cellsafe: listening on http://{address}");
    };
    match cellsafe_service::run(config, listen, ready) {
        Ok(()) => {
            eprintln!("cellsafe: stopped");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

/// `cellsafe serve` in a build without the service: says how to get it, exit 1.
#[cfg(not(feature = "service"))]
fn serve(_config: &Path, _listen: Option<&str>) -> ExitCode {
    eprintln!(
        "error: this cellsafe was built without the gatekeeper service; build it with \
         `cargo install --path crates/cellsafe-cli --features service` (or run \
         `cargo run --release --features service -- serve ...` in the checkout)"
    );
    ExitCode::FAILURE
}

/// Turns transparent huge pages off for this process unless `MIMALLOC_ALLOW_THP` is set,
/// in any case (mimalloc reads it, ignoring case: `1` keeps them, `0` turns them off
/// itself).
///
/// Why: mimalloc asks the kernel for 2 MiB pages. On a VM whose balloon reports free
/// memory to the host in 2 MiB blocks, a fresh huge page is likely one the host has taken
/// back: on Adult, a run after 2 s of idle took 1.15-2.75 times as long with them (whole
/// process, three jobs), and back to back 1.09-1.17 times as long without them (four jobs;
/// `docs/performance.md`).
///
/// It runs as the process starts ([`HUGE_PAGES_OFF`]), before `main`: the runtime's first
/// allocations, before `main`, already fault in mimalloc's first huge page. Processes this
/// one starts inherit the setting; the browser of `studio --open` gets the original back
/// ([`restore_huge_pages`]).
#[cfg(target_os = "linux")]
extern "C" fn huge_pages_off() {
    // SAFETY: the environment is read before any thread exists (nothing can change it
    // meanwhile); PR_SET_THP_DISABLE takes integers only (the kernel reads unsigned longs,
    // and refuses non-zero unused ones) and changes a flag of this process; when it fails
    // (an old kernel), huge pages stay as they were.
    unsafe {
        if mimalloc_allow_thp_set() {
            return;
        }
        let off = libc::c_ulong::from(true);
        let zero = libc::c_ulong::from(false);
        if libc::prctl(libc::PR_GET_THP_DISABLE, zero, zero, zero, zero) == 0
            && libc::prctl(libc::PR_SET_THP_DISABLE, off, zero, zero, zero) == 0
        {
            HUGE_PAGES_TURNED_OFF.store(true, Ordering::Relaxed);
        }
    }
}

/// Whether the environment has `MIMALLOC_ALLOW_THP` in any case, among the first 10,000
/// entries: where mimalloc looks for it (it compares names ignoring case), so that the two
/// agree on whether it is set. Allocates nothing.
///
/// # Safety
///
/// Nothing may change the environment meanwhile (no other thread runs yet).
#[cfg(target_os = "linux")]
unsafe fn mimalloc_allow_thp_set() -> bool {
    extern "C" {
        static environ: *const *const libc::c_char;
    }
    const NAME: &[u8] = b"MIMALLOC_ALLOW_THP=";
    let mut entry = environ;
    if entry.is_null() {
        return false;
    }
    for _ in 0..10_000 {
        if (*entry).is_null() {
            return false;
        }
        let text = std::ffi::CStr::from_ptr(*entry).to_bytes();
        if text.len() >= NAME.len() && text[..NAME.len()].eq_ignore_ascii_case(NAME) {
            return true;
        }
        entry = entry.add(1);
    }
    false
}

/// [`huge_pages_off`] among the functions the C runtime calls before `main`.
#[cfg(target_os = "linux")]
#[used]
#[link_section = ".init_array"]
static HUGE_PAGES_OFF: extern "C" fn() = huge_pages_off;

/// Whether [`huge_pages_off`] turned them off (they were on, and nothing asked to keep
/// them).
#[cfg(target_os = "linux")]
static HUGE_PAGES_TURNED_OFF: AtomicBool = AtomicBool::new(false);

/// Makes `command`'s process start with huge pages as this one found them, when
/// [`huge_pages_off`] turned them off.
#[cfg(all(target_os = "linux", feature = "studio"))]
pub(crate) fn restore_huge_pages(command: &mut std::process::Command) {
    use std::os::unix::process::CommandExt;
    if !HUGE_PAGES_TURNED_OFF.load(Ordering::Relaxed) {
        return;
    }
    // SAFETY: the closure makes one system call, safe between fork and exec; a failure
    // leaves the child as it was
    unsafe {
        command.pre_exec(|| {
            let zero = libc::c_ulong::from(false);
            libc::prctl(libc::PR_SET_THP_DISABLE, zero, zero, zero, zero);
            Ok(())
        });
    }
}

/// Elsewhere nothing is changed.
#[cfg(all(not(target_os = "linux"), feature = "studio"))]
pub(crate) fn restore_huge_pages(_command: &mut std::process::Command) {}

fn main() -> ExitCode {
    // First thing: Ctrl-C and SIGTERM are held until the handler is in place, so one that
    // comes while the arguments are parsed (or that the parent held back) ends the run
    // through the handler, with exit 130, never by the default action.
    signals::hold();
    let cli = Cli::parse();
    // the service handles SIGTERM and Ctrl-C itself: answers in flight complete first
    if let Command::Serve { config, listen } = &cli.command {
        signals::release();
        return serve(config, listen.as_deref());
    }
    if let Command::Studio {
        listen,
        open,
        max_upload,
    } = &cli.command
    {
        signals::release();
        return studio::run(listen, *open, *max_upload);
    }
    let front = Arc::new(Front::new(cli.quiet));
    let handler = Arc::clone(&front);
    // the signals stay held in every thread but the one that waits for them; were that
    // thread not started, they take their default action
    if !signals::answer(move || interrupt(&handler)) {
        signals::release();
    }
    match run(cli, &*front) {
        Ok(code) if code == ExitCode::SUCCESS => exit_now(&front),
        Ok(code) => code,
        Err(e) if stopped(&e) => {
            eprintln!("interrupted: no output was written");
            ExitCode::from(INTERRUPTED)
        }
        Err(e) => {
            eprintln!("error: {e:#}");
            let usage = e.chain().any(|c| {
                c.is::<Usage>()
                    || matches!(
                        c.downcast_ref(),
                        Some(
                            cellsafe::Error::PathClash { .. }
                                | cellsafe::Error::NotRegularOutput { .. }
                        )
                    )
            });
            ExitCode::from(if usage { USAGE } else { 1 })
        }
    }
}

/// Ends a successful run at once, without the C runtime's exit handlers: among them the
/// allocator's, which hands every free page back to the kernel just before the kernel
/// takes the whole process (the whole command took 0.97-0.98x the time at k = 5, 0 %).
/// Everything the run wrote is committed by then (its transaction ended inside `run`);
/// the progress bar is cleared and the standard streams flushed first.
#[cfg(unix)]
fn exit_now(front: &Front) -> ExitCode {
    use std::io::Write;
    if let Some(bar) = front.bar().take() {
        bar.finish_and_clear();
    }
    let _ = std::io::stdout().flush();
    let _ = std::io::stderr().flush();
    // SAFETY: `_exit` ends the process; no code of ours runs after it
    unsafe { libc::_exit(0) }
}

#[cfg(not(unix))]
fn exit_now(_: &Front) -> ExitCode {
    ExitCode::SUCCESS
}

/// The signals the handler answers (Ctrl-C, SIGTERM, SIGHUP: those of `ctrlc` with its
/// `termination` feature), held back while it is installed.
mod signals {
    #[cfg(unix)]
    fn set() -> nix::sys::signal::SigSet {
        use nix::sys::signal::{SigSet, Signal};
        let mut set = SigSet::empty();
        for signal in [Signal::SIGINT, Signal::SIGTERM, Signal::SIGHUP] {
            set.add(signal);
        }
        set
    }

    /// Blocks the signals: one that comes now waits, pending, for [`release`].
    pub(crate) fn hold() {
        #[cfg(unix)]
        let _ = set().thread_block();
    }

    /// Unblocks the signals, also when the parent started this process with them blocked:
    /// one pending is delivered now (by its default action).
    pub(crate) fn release() {
        #[cfg(unix)]
        let _ = set().thread_unblock();
    }

    /// Runs `handler` when one of the signals comes, on a thread that waits for them; they
    /// must be held ([`hold`]) and stay held in this thread, so that every thread started
    /// from it holds them too and that one alone takes them (one pending already is taken
    /// at once). Returns false when the thread could not be started. A signal the process
    /// was started ignoring (SIGHUP under `nohup`) stays ignored: Linux discards it.
    ///
    /// The thread is the C library's, not the standard library's: a Rust thread allocates
    /// as it starts, and the allocator then maps a region of its own for it, which the
    /// kernel zeroes (a run of k = 5, 0 %, 8 QIs took 0.96 of the time with this thread
    /// rather than `ctrlc`'s). This one allocates nothing until a signal comes.
    #[cfg(unix)]
    pub(crate) fn answer(handler: impl Fn() + Send + Sync + 'static) -> bool {
        if HANDLER.set(Box::new(handler)).is_err() {
            return false;
        }
        let mut thread: libc::pthread_t = 0;
        // SAFETY: `wait` has the signature pthread_create expects and takes no argument;
        // the thread is detached at once, so nothing joins it.
        unsafe {
            if libc::pthread_create(&mut thread, std::ptr::null(), wait, std::ptr::null_mut()) != 0
            {
                return false;
            }
            libc::pthread_detach(thread);
        }
        true
    }

    /// As on Unix, through the `ctrlc` crate's handler.
    #[cfg(not(unix))]
    pub(crate) fn answer(handler: impl Fn() + Send + Sync + 'static) -> bool {
        ctrlc::set_handler(handler).is_ok()
    }

    /// What [`answer`] runs.
    #[cfg(unix)]
    static HANDLER: std::sync::OnceLock<Box<dyn Fn() + Send + Sync>> = std::sync::OnceLock::new();

    /// The waiting thread: takes each signal as it comes (`sigwait`) and runs the handler.
    #[cfg(unix)]
    extern "C" fn wait(_: *mut libc::c_void) -> *mut libc::c_void {
        let set = set();
        loop {
            if set.wait().is_ok() {
                if let Some(handler) = HANDLER.get() {
                    // a panic must not cross into the C library's frame
                    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(handler));
                }
            }
        }
    }
}

/// The signal handler (Ctrl-C, SIGTERM). Staged outputs are removed and no commit starts
/// any more, so an interrupted run leaves no files. Work that asks for cancellation (the
/// stages the library reports: loading, the searches, the disclosure strategies, the
/// safety test) is cancelled through `front` and ends the run with [`INTERRUPTED`] by
/// itself; anything else, or work that does not stop within [`GRACE`], ends here.
fn interrupt(front: &Front) {
    cellsafe::release::output::interrupted();
    front.cancel.cancel();
    // the cluster's operations stopped and its staging location removed
    #[cfg(feature = "spark")]
    cellsafe::engine::spark::interrupted();
    if front.in_stage() {
        let deadline = Instant::now() + GRACE;
        while front.in_stage() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(5));
        }
        std::thread::sleep(WIND_DOWN);
    }
    std::process::exit(INTERRUPTED.into());
}

/// Whether `e` says the work was cancelled or interrupted (by [`interrupt`]).
fn stopped(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        matches!(
            c.downcast_ref(),
            Some(cellsafe::Error::Cancelled | cellsafe::Error::Interrupted)
        )
    })
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

/// Bad arguments the CLI itself finds (exit [`USAGE`]).
#[derive(Debug)]
struct Usage(String);

impl std::fmt::Display for Usage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Usage {}

/// Whether `path` is `-`: standard output.
fn is_stdout(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// A `--report` option: `-` is stdout, as no option is.
fn report_arg(path: Option<PathBuf>) -> Option<PathBuf> {
    path.filter(|p| !is_stdout(p))
}

/// Refuses `-` for an output that must be a file (the table is staged and audited before
/// it is written; the others go beside it).
fn file_only(option: &str, path: &Option<PathBuf>) -> Result<()> {
    if path.as_deref().is_some_and(is_stdout) {
        return Err(Usage(format!(
            "{option} -: only --report can go to stdout; name a file (./- for a file named -)"
        ))
        .into());
    }
    Ok(())
}

/// Refuses a `--report` that would overwrite one of the config's inputs.
fn check_report(config: &Config, report: &Option<PathBuf>) -> Result<()> {
    if let Some(path) = report {
        cellsafe::release::output::check_paths(
            &config.input_files(),
            &[("the report".to_owned(), path.clone())],
        )?;
    }
    Ok(())
}

fn run(cli: Cli, observer: &dyn Observer) -> Result<ExitCode> {
    match cli.command {
        Command::Anonymize {
            config,
            output,
            report,
            mapping,
            levels,
            query_error,
        } => {
            file_only("--output", &output)?;
            file_only("--mapping", &mapping)?;
            anonymize(
                &config,
                output,
                report,
                mapping,
                levels,
                query_error,
                observer,
            )
        }
        Command::Serve { config, listen } => Ok(serve(&config, listen.as_deref())),
        Command::Studio {
            listen,
            open,
            max_upload,
        } => Ok(studio::run(&listen, open, max_upload)),
        Command::Synth {
            input,
            semi_sensitive,
            columns,
            delimiter,
            seed,
            output,
        } => {
            file_only("--output", &Some(output.clone()))?;
            let delimiter = u8::try_from(delimiter)
                .ok()
                .filter(u8::is_ascii)
                .ok_or_else(|| anyhow::anyhow!("--delimiter must be one ASCII character"))?;
            let format = cellsafe::data::table::CsvFormat {
                delimiter,
                ..Default::default()
            };
            job::synth::write_flagged(&input, &format, &columns, semi_sensitive, seed, &output)?;
            eprintln!(
                "flagged {} at density {semi_sensitive} (seed {seed}) into {}",
                columns.join(", "),
                output.display()
            );
            Ok(ExitCode::SUCCESS)
        }
        Command::Disclose {
            config,
            strategy,
            report,
        } => disclose(&config, strategy, report_arg(report), observer),
        Command::Evaluate { config, levels } => {
            let config = Config::from_file(&config)?;
            let problem = config.problem_observed(observer)?;
            problem.check_levels(&levels)?;
            let node = cellsafe::job::report::describe(&problem, &levels, true);
            outln!("{}", serde_json::to_string_pretty(&node)?);
            if node.acceptable {
                eprintln!(
                    "acceptable: {} rows suppressed, at most {} allowed",
                    node.suppressed_rows, problem.max_suppressed
                );
                return Ok(ExitCode::SUCCESS);
            }
            eprintln!("not acceptable:");
            for failure in &node.failures {
                eprintln!("  {}", failure.message);
            }
            Ok(ExitCode::from(NOT_FOUND))
        }
        Command::Safety {
            config,
            levels,
            limit,
            report,
        } => safety(&config, levels, limit, report_arg(report), observer),
        Command::Risk {
            config,
            levels,
            threshold,
            population_size,
            sampling_fraction,
            html,
            report,
        } => {
            use job::risk::Population;
            file_only("--html", &html)?;
            let report = report_arg(report);
            let population = population_size
                .map(Population::Size)
                .or(sampling_fraction.map(Population::Fraction));
            let config = Config::from_file(&config)?;
            check_report(&config, &report)?;
            check_report(&config, &html)?;
            let problem = config.problem_observed(observer)?;
            let written = config.suppressed_rows();
            let risk =
                job::risk::risk(&problem, levels.as_deref(), threshold, population, written)?;
            if let Some(path) = &html {
                let before = match levels {
                    Some(_) => Some(job::risk::risk(
                        &problem, None, threshold, population, written,
                    )?),
                    None => None,
                };
                let page = match &before {
                    Some(b) => job::risk_page::html(b, Some(&risk)),
                    None => job::risk_page::html(&risk, None),
                };
                cellsafe::release::write_atomic(path, |w| w.write_all(page.as_bytes()))?;
            }
            match &report {
                Some(path) => job::write_json(path, &risk)?,
                None => outln!("{}", serde_json::to_string_pretty(&risk)?),
            }
            eprintln!(
                "{} classes, {} records ({} suppressed); prosecutor risk: highest {:.4}, average {:.4}; {:.2}% sample uniques",
                risk.classes,
                risk.records,
                risk.suppressed,
                risk.prosecutor.highest,
                risk.prosecutor.average,
                100.0 * risk.sample_uniques
            );
            Ok(ExitCode::SUCCESS)
        }
        Command::Pareto {
            config,
            exhaustive,
            seed,
            report,
            html,
        } => {
            file_only("--html", &html)?;
            let report = report_arg(report);
            // the page names the config as given, in the command that releases a node
            let config_text = config.display().to_string();
            let config = Config::from_file(&config)?;
            check_report(&config, &report)?;
            check_report(&config, &html)?;
            let found = job::pareto::pareto(&config, seed, exhaustive, observer)?;
            match &report {
                Some(path) => job::write_json(path, &found)?,
                None => outln!("{}", serde_json::to_string_pretty(&found)?),
            }
            if let Some(path) = &html {
                let page = job::pareto_page::html(&found, &config_text);
                cellsafe::release::write_atomic(path, |w| w.write_all(page.as_bytes()))?;
            }
            eprintln!(
                "{} representative minimal PBGs from {} of {} nodes (seed {}){}",
                found.front.len(),
                found.nodes_evaluated,
                found.lattice_size,
                found.seed,
                found.exact.as_ref().map_or(String::new(), |e| format!(
                    "; exact front {} nodes, CE {:.3e}, RR {:.3}",
                    e.front.len(),
                    e.convergence_error,
                    e.representation_ratio
                ))
            );
            Ok(ExitCode::SUCCESS)
        }
        Command::Demo { dir } => demo::run(dir, observer),
    }
}

/// Default output next to the input: `NAME.anonymized.csv`, or for a Parquet or Arrow
/// input the same format (`NAME.anonymized.parquet`, ...).
fn default_output(config: &Config) -> PathBuf {
    use cellsafe::data::table::Format;
    if config.reads_server() {
        // a PostgreSQL table: beside the config
        return PathBuf::from(config.file_name()).with_file_name("release.anonymized.csv");
    }
    let input = config.data_path();
    let stem = input
        .file_stem()
        .map_or("output".into(), |s| s.to_string_lossy().into_owned());
    let extension = match config.input_format() {
        Ok(Format::Parquet) => "parquet",
        Ok(Format::ArrowFile) => "arrow",
        Ok(Format::ArrowStream) => "arrows",
        _ => "csv",
    };
    input.with_file_name(format!("{stem}.anonymized.{extension}"))
}

pub(crate) fn anonymize(
    config_path: &Path,
    output: Option<PathBuf>,
    report: Option<PathBuf>,
    mapping: Option<PathBuf>,
    levels: Option<Vec<u8>>,
    query_error: Option<usize>,
    observer: &dyn Observer,
) -> Result<ExitCode> {
    let mut config = Config::from_file(config_path)?;
    if levels.is_some() {
        config.search.levels = levels;
    }
    // `[output] url`: the release goes into a database table (an --output beside it is
    // refused by the job, naming the key)
    let table = if config.writes_database() && output.is_none() {
        None
    } else {
        Some(
            output
                .or_else(|| config.output.path.as_ref().map(|p| config.resolve(p)))
                .unwrap_or_else(|| default_output(&config)),
        )
    };
    // `--report -`: stdout, over the config's [output] report
    let report_path = match report {
        Some(p) if is_stdout(&p) => None,
        report => report.or_else(|| config.output.report.as_ref().map(|p| config.resolve(p))),
    };
    let outputs = Outputs {
        table,
        report: report_path.clone(),
        mapping,
    };
    if config.search.algorithm == cellsafe::algorithm::Algorithm::Lgb {
        let report = job::lgb::anonymize(&config, &outputs, query_error, observer)
            .with_context(|| format!("anonymizing with {}", config_path.display()))?;
        if report_path.is_none() {
            outln!("{}", serde_json::to_string_pretty(&report)?);
        } else if let Some(f) = &report.figures {
            eprintln!(
                "{} local groups (smallest {}); buckets: {}; tables {} and {}",
                f.groups,
                f.min_group,
                f.buckets
                    .iter()
                    .map(|b| match b.t {
                        Some(t) => format!("{} {} (t {t:.3})", b.attribute, b.count),
                        None => format!("{} {} (l {})", b.attribute, b.count, b.l),
                    })
                    .collect::<Vec<_>>()
                    .join(", "),
                report.output.as_deref().unwrap_or(""),
                report
                    .bucket_tables
                    .iter()
                    .map(|b| b.path.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
        if !report.found {
            eprintln!("the table has fewer than k = {} rows", report.k);
            return Ok(ExitCode::from(NOT_FOUND));
        }
        return Ok(ExitCode::SUCCESS);
    }
    // this thread does the work: the job starts no pool of its own
    let report = job::on_this_thread(&config, || job::anonymize(&config, &outputs, observer))
        .and_then(|report| report)
        .with_context(|| format!("anonymizing with {}", config_path.display()))?;
    if report_path.is_none() {
        outln!("{}", serde_json::to_string_pretty(&report)?);
    }
    // what was released, where and how, whatever the search; then the warnings
    for line in report.summary() {
        eprintln!("{line}");
    }
    if let Some(node) = &report.pareto {
        eprintln!(
            "a node of the [pareto] front: k = {} within the budget of {} rows; {}",
            node.k,
            node.budget_rows,
            node.values
                .iter()
                .map(|(name, v)| format!("{name} = {v}"))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    if let Some(path) = &report_path {
        eprintln!("report: {}", path.display());
    }
    if !report.found {
        match &report.disclosure {
            Some(d) => eprintln!(
                "the search is public and the exclusive strategy releases nothing: the disclosure set of G{} fails {}",
                d.decided_by.unwrap_or(0),
                d.check
            ),
            None => match &config.search.levels {
                Some(levels) => eprintln!(
                    "the transformation {levels:?} does not satisfy the privacy models within \
                     the suppression limit (`cellsafe evaluate --levels` says why)"
                ),
                None if config.search.algorithm == cellsafe::algorithm::Algorithm::Mondrian => {
                    eprintln!(
                        "the whole table, as one group, fails the privacy models: nothing can \
                         be released"
                    )
                }
                None => eprintln!(
                    "no transformation satisfies the privacy models within the suppression limit"
                ),
            },
        }
        return Ok(ExitCode::from(NOT_FOUND));
    }
    Ok(ExitCode::SUCCESS)
}

fn disclose(
    config_path: &Path,
    strategy: Option<StrategyArg>,
    report: Option<PathBuf>,
    observer: &dyn Observer,
) -> Result<ExitCode> {
    use cellsafe::algorithm::disclosure::Strategy;
    use cellsafe::job::disclosure as setup;
    let config = Config::from_file(config_path)?;
    check_report(&config, &report)?;
    let (problem, options) = setup::from_config_observed(&config, observer)?;
    let strategy = match strategy {
        Some(StrategyArg::Inclusive) => Strategy::Inclusive,
        Some(StrategyArg::Exclusive) => Strategy::Exclusive,
        None => config
            .disclose
            .as_ref()
            .and_then(|d| d.strategy)
            .unwrap_or(Strategy::Exclusive),
    };
    let decision = problem
        .decide_observed(strategy, &options, observer)
        .map_err(|e| setup::locate(e, &config.file_name()))
        .with_context(|| format!("deciding with {}", config_path.display()))?;
    match &report {
        Some(path) => job::write_json(path, &decision)?,
        None => outln!("{}", serde_json::to_string_pretty(&decision)?),
    }
    let what = match (&decision.released, &decision.released_name) {
        (Some(i), Some(name)) => format!("released G{i} ({name})"),
        _ => "nothing released".to_owned(),
    };
    match &decision.decisive {
        Some(a) => eprintln!(
            "{what}: disclosure set of G{} {}; largest fraction {} ({} has {}) [{}]",
            decision.decided_by.unwrap_or(0),
            a.disclosure_set_size
                .map(|s| format!("has {s} tables"))
                .or(a
                    .disclosure_set_size_log10
                    .map(|l| format!("has about 10^{l:.1} tables")))
                .unwrap_or_else(|| "is empty in every sample".into()),
            a.max_fraction
                .clone()
                .or(a.max_fraction_float.map(|f| format!("~{f:.4}")))
                .unwrap_or_else(|| "-".into()),
            a.person.as_deref().unwrap_or("-"),
            a.value.as_deref().unwrap_or("-"),
            serde_json::to_string(&a.method)?.trim_matches('"'),
        ),
        None => eprintln!("{what}: no generalization passes {}", decision.check),
    }
    Ok(if decision.released.is_some() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(NOT_FOUND)
    })
}

fn safety(
    config_path: &Path,
    levels: Option<Vec<u8>>,
    limit: usize,
    report: Option<PathBuf>,
    observer: &dyn Observer,
) -> Result<ExitCode> {
    let config = Config::from_file(config_path)?;
    check_report(&config, &report)?;
    let problem = config.problem_observed(observer)?;
    let levels = levels.unwrap_or_else(|| problem.lattice.bottom());
    let test = cellsafe::algorithm::safety::test_observed(&problem, &levels, limit, observer)
        .with_context(|| format!("testing with {}", config_path.display()))?;
    match &report {
        Some(path) => job::write_json(path, &test)?,
        None => outln!("{}", serde_json::to_string_pretty(&test)?),
    }
    if test.safe {
        eprintln!(
            "safe: no one's confidential formula holds throughout their class ({} classes; sf = {:.4}, ql = {:.4})",
            test.classes, test.sf, test.ql
        );
        Ok(ExitCode::SUCCESS)
    } else {
        eprintln!(
            "unsafe for {} persons in {} of {} classes",
            test.unsafe_persons, test.unsafe_classes, test.classes
        );
        Ok(ExitCode::from(NOT_FOUND))
    }
}

/// What the library reports and asks, for the terminal: its stages as indicatif bars on
/// stderr (one bar per stage, with its position, total and ETA, cleared when the stage
/// finishes; only when stderr is a terminal and not `--quiet`), and the cancellation flag
/// that Ctrl-C sets (see [`interrupt`]).
struct Front {
    /// Whether to draw bars.
    draw: bool,
    bar: Mutex<Option<indicatif::ProgressBar>>,
    cancel: Cancel,
    /// A stage is under way: the work asks for cancellation.
    in_stage: AtomicBool,
}

impl Front {
    /// Bars unless `quiet` or stderr is not a terminal (then nothing but the messages).
    fn new(quiet: bool) -> Front {
        Front {
            draw: !quiet && std::io::stderr().is_terminal(),
            bar: Mutex::new(None),
            cancel: Cancel::new(),
            in_stage: AtomicBool::new(false),
        }
    }

    fn bar(&self) -> std::sync::MutexGuard<'_, Option<indicatif::ProgressBar>> {
        self.bar.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn in_stage(&self) -> bool {
        self.in_stage.load(Ordering::SeqCst)
    }
}

/// What a stage counts (see `cellsafe::observer`).
fn unit(stage: &str) -> &'static str {
    match stage {
        observer::LOADING => "bytes",
        observer::SEARCH | observer::OPTIMUM => "nodes",
        observer::GENETIC => "generations",
        observer::SET_BASED => "rounds",
        observer::DISCLOSE => "generalizations",
        observer::SAFETY | observer::LOCAL | observer::WRITING => "rows",
        _ => "",
    }
}

impl Observer for Front {
    fn start(&self, stage: &str, total: Option<u64>) {
        self.in_stage.store(true, Ordering::SeqCst);
        if !self.draw {
            return;
        }
        let (bar, template) = match total {
            Some(total) if stage == observer::LOADING => (
                indicatif::ProgressBar::new(total),
                "{msg:>9} [{bar:30}] {bytes}/{total_bytes} ({eta})".to_owned(),
            ),
            Some(total) => (
                indicatif::ProgressBar::new(total),
                format!(
                    "{{msg:>9}} [{{bar:30}}] {{pos}}/{{len}} {} ({{eta}})",
                    unit(stage)
                ),
            ),
            None => (
                indicatif::ProgressBar::new_spinner(),
                format!("{{spinner}} {{msg}} {{pos}} {} ({{elapsed}})", unit(stage)),
            ),
        };
        if let Ok(style) = indicatif::ProgressStyle::with_template(&template) {
            bar.set_style(style.progress_chars("=> "));
        }
        bar.set_message(stage.to_owned());
        bar.enable_steady_tick(Duration::from_millis(200));
        if let Some(old) = self.bar().replace(bar) {
            old.finish_and_clear();
        }
    }

    fn set(&self, position: u64) {
        if let Some(bar) = self.bar().as_ref() {
            bar.set_position(position);
        }
    }

    fn finish(&self) {
        self.in_stage.store(false, Ordering::SeqCst);
        if let Some(bar) = self.bar().take() {
            bar.finish_and_clear();
        }
    }

    fn cancelled(&self) -> bool {
        self.cancel.is_cancelled()
    }
}

#[cfg(all(test, target_os = "linux", feature = "studio"))]
mod tests {
    use super::*;

    /// The `THP_enabled:` value a process started by `command` (`grep` reading its own
    /// status) shows.
    fn child_thp(mut command: std::process::Command) -> String {
        let out = command
            .args(["THP_enabled", "/proc/self/status"])
            .output()
            .unwrap();
        String::from_utf8(out.stdout).unwrap().trim().to_owned()
    }

    /// This test binary turned huge pages off too, as it started: a process it starts
    /// inherits that, unless started through [`restore_huge_pages`] (as the browser is).
    #[test]
    fn a_started_browser_gets_the_huge_pages_found() {
        if !HUGE_PAGES_TURNED_OFF.load(Ordering::Relaxed) {
            cellsafe_testkit::skipped(
                "huge pages given back to a browser: they were not on (or MIMALLOC_ALLOW_THP \
                 is set), so nothing was turned off",
            );
            return;
        }
        let inherited = std::process::Command::new("grep");
        assert_eq!(child_thp(inherited), "THP_enabled:\t0");
        let mut restored = std::process::Command::new("grep");
        restore_huge_pages(&mut restored);
        assert_eq!(child_thp(restored), "THP_enabled:\t1");
    }
}
