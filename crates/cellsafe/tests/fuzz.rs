//! Fuzzing the library's front door: mutations of a valid job (TOML config, CSV data, ARX
//! hierarchy) run through `Config::parse`, `Config::problem` and `job::anonymize`.
//!
//! Every case must finish without a panic, within a memory cap, and every error must say
//! where the input went wrong: a config key, or a file with its line. A counting global
//! allocator measures each case's peak; it refuses requests past a hard cap, so a runaway
//! allocation aborts this test binary instead of exhausting the machine. A watchdog aborts
//! a case that hangs.
//!
//! One file, past 600 lines: the mutators, the allocator cap and the watchdog are one
//! harness.

use std::alloc::{GlobalAlloc, Layout, System};
use std::io::Write;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use cellsafe::error::Error;
use cellsafe::job::config::Config;
use cellsafe::job::{self, Outputs};
use proptest::prelude::*;

/// A case may use at most this much memory above what was in use when it started.
const CASE_CAP: usize = 512 << 20;
/// Allocations that would take the process past this are refused.
const HARD_CAP: usize = 1 << 30;
/// A case running longer than this is taken to hang.
const CASE_TIME: Duration = Duration::from_secs(30);

struct Counting;

static CURRENT: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

impl Counting {
    fn grow(size: usize) -> bool {
        let now = CURRENT.fetch_add(size, Ordering::SeqCst) + size;
        if now > HARD_CAP {
            CURRENT.fetch_sub(size, Ordering::SeqCst);
            // no allocation here: a fixed message, then the caller's allocation fails
            let _ = std::io::stderr()
                .write_all(b"fuzz: allocation refused, the case went past the memory cap\n");
            return false;
        }
        PEAK.fetch_max(now, Ordering::SeqCst);
        true
    }
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if !Self::grow(layout.size()) {
            return std::ptr::null_mut();
        }
        let p = unsafe { System.alloc(layout) };
        if p.is_null() {
            CURRENT.fetch_sub(layout.size(), Ordering::SeqCst);
        }
        p
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if !Self::grow(layout.size()) {
            return std::ptr::null_mut();
        }
        let p = unsafe { System.alloc_zeroed(layout) };
        if p.is_null() {
            CURRENT.fetch_sub(layout.size(), Ordering::SeqCst);
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        CURRENT.fetch_sub(layout.size(), Ordering::SeqCst);
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let old = layout.size();
        if new_size > old && !Self::grow(new_size - old) {
            return std::ptr::null_mut();
        }
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if p.is_null() {
            if new_size > old {
                CURRENT.fetch_sub(new_size - old, Ordering::SeqCst);
            }
        } else if new_size < old {
            CURRENT.fetch_sub(old - new_size, Ordering::SeqCst);
        }
        p
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Milliseconds since `epoch()` when the running case started (0: none is running).
static CASE_STARTED: AtomicU64 = AtomicU64::new(0);

fn epoch() -> Instant {
    static EPOCH: OnceLock<Instant> = OnceLock::new();
    *EPOCH.get_or_init(Instant::now)
}

/// Aborts the process when a case runs longer than [`CASE_TIME`].
fn start_watchdog() {
    static WATCHDOG: OnceLock<()> = OnceLock::new();
    WATCHDOG.get_or_init(|| {
        epoch();
        std::thread::spawn(|| loop {
            std::thread::sleep(Duration::from_millis(200));
            let started = CASE_STARTED.load(Ordering::SeqCst);
            let now = epoch().elapsed().as_millis() as u64;
            if started != 0 && now.saturating_sub(started) > CASE_TIME.as_millis() as u64 {
                eprintln!("fuzz: a case ran longer than {CASE_TIME:?}");
                if let Ok(case) = LAST_CASE.try_lock() {
                    eprintln!("{case}");
                }
                std::process::abort();
            }
        });
    });
}

/// The running case, for the watchdog's report.
static LAST_CASE: Mutex<String> = Mutex::new(String::new());
/// One case at a time (the allocator's counts are process-wide).
static SERIAL: Mutex<()> = Mutex::new(());

const DATA: &str = "\
name,zip,age,birth,height,blood,disease
ann,24126,34,24/09/56,160,A,flu
bob,24129,35,06/09/56,167,B,cold
cid,24133,36,12/10/57,175,O,flu
dan,10427,51,01/01/60,181,AB,cancer
eve,10431,52,29/02/60,158,A,flu
fay,10466,53,31/12/59,172,O,cold
gus,24126,34,24/09/56,165,B,cancer
hal,10427,?,06/09/56,170,AB,flu
";

/// Per-person confidential formulas (`[safety] file`).
const CON: &str = "name,formula,damage\nann,ill,2\ndan,ill,1\n";

const ALGORITHMS: &[&str] = &[
    "optimal",
    "exhaustive",
    "minimal",
    "minimal-bfs",
    "minimal-inference",
    "genetic",
    "set-based",
];

const AGE: &str = "34;30-39;*\n35;30-39;*\n36;30-39;*\n51;50-59;*\n52;50-59;*\n53;50-59;*\n";

/// A valid job as sections of lines; mutations work on this structure first. The bits of
/// `variant` pick CON sets from a file, a partitions hierarchy, microaggregated output,
/// logical safety with sf·ql, and (above them) the search algorithm.
fn sections(variant: usize) -> Vec<(String, Vec<String>)> {
    let s = |h: &str, lines: &[&str]| -> (String, Vec<String>) {
        (h.to_owned(), lines.iter().map(|l| l.to_string()).collect())
    };
    let mut out = base_sections(s);
    let find = |out: &Vec<(String, Vec<String>)>, h: &str| {
        out.iter().position(|x| x.0 == h).expect("a base section")
    };
    if variant & 1 != 0 {
        let i = find(&out, "[safety]");
        out[i]
            .1
            .extend(["file = \"con.csv\"".into(), "key = \"name\"".into()]);
    }
    if variant & 2 != 0 {
        out.insert(
            2,
            s(
                "[attributes.blood]",
                &[
                    "role = \"quasi-identifying\"",
                    "hierarchy = { kind = \"partitions\", partitions = { ab = { \"A|B\" = [\"A\", \"B\"], \"O|AB\" = [\"O\", \"AB\"] }, ao = { \"A|O\" = [\"A\", \"O\"], \"B|AB\" = [\"B\", \"AB\"] } } }",
                ],
            ),
        );
    }
    let algorithm = ALGORITHMS[(variant >> 4) % ALGORITHMS.len()];
    // the set-based search releases sets, never microaggregates
    if variant & 4 != 0 && algorithm != "set-based" {
        let i = find(&out, "[output]");
        out[i].1 = vec!["values = \"microaggregation\"".into()];
    }
    if variant & 8 != 0 {
        let i = find(&out, "[metric]");
        out[i].1 = vec!["name = \"sf-ql\"".into()];
        out.push(s("[[privacy]]", &["model = \"logical-safety\""]));
    }
    let i = find(&out, "[search]");
    out[i].1[0] = format!("algorithm = \"{algorithm}\"");
    out
}

type Section = (String, Vec<String>);

fn base_sections(s: impl Fn(&str, &[&str]) -> Section) -> Vec<Section> {
    vec![
        s("", &["suppression_limit = 0.25"]),
        s(
            "[input]",
            &[
                "path = \"data.csv\"",
                "delimiter = \",\"",
                "quote = '\"'",
                "header = true",
                "hierarchy_delimiter = \";\"",
                "missing = [\"?\"]",
            ],
        ),
        s("[attributes.name]", &["role = \"identifying\""]),
        s(
            "[attributes.zip]",
            &[
                "role = \"quasi-identifying\"",
                "hierarchy = { kind = \"mask\" }",
            ],
        ),
        s(
            "[attributes.age]",
            &["role = \"quasi-identifying\"", "hierarchy = \"age.csv\""],
        ),
        s(
            "[attributes.birth]",
            &[
                "role = \"quasi-identifying\"",
                "hierarchy = { kind = \"date\", format = \"%d/%m/%y\" }",
            ],
        ),
        s(
            "[attributes.height]",
            &[
                "role = \"quasi-identifying\"",
                "hierarchy = { kind = \"intervals\", widths = [5, 10, 20] }",
            ],
        ),
        s("[attributes.disease]", &["role = \"sensitive\""]),
        s("[[privacy]]", &["model = \"k-anonymity\"", "k = 2"]),
        s(
            "[[privacy]]",
            &[
                "model = \"distinct-l-diversity\"",
                "attribute = \"disease\"",
                "l = 2",
            ],
        ),
        s(
            "[[privacy]]",
            &[
                "model = \"t-closeness\"",
                "attribute = \"disease\"",
                "t = 0.6",
                "distance = \"ordered\"",
            ],
        ),
        s(
            "[[privacy]]",
            &[
                "model = \"recursive-cl-diversity\"",
                "attribute = \"disease\"",
                "c = 3.0",
                "l = 2",
            ],
        ),
        s(
            "[[privacy]]",
            &[
                "model = \"beta-likeness\"",
                "attribute = \"disease\"",
                "beta = 4.0",
            ],
        ),
        s(
            "[metric]",
            &["name = \"loss\"", "aggregate = \"sum\"", "gs_factor = 0.5"],
        ),
        s("[search]", &["algorithm = \"optimal\"", "threads = 2"]),
        s(
            "[search.genetic]",
            &[
                "population = 8",
                "generations = 4",
                "crossover_rate = 0.8",
                "mutation_rate = 0.1",
                "seed = 3",
            ],
        ),
        s(
            "[safety]",
            &[
                "formulas = { ill = \"disease = cancer\" }",
                "default = [\"ill\"]",
            ],
        ),
        s("[output]", &["values = \"generalization\""]),
    ]
}

/// Numbers at and past the edges of the numeric keys' domains.
const NUMBERS: &[&str] = &[
    "4294967296",
    "18446744073709551615",
    "4294967295",
    "256",
    "1000",
    "1001",
    "-1",
    "0",
    "1",
    "2",
    "7",
    "1e308",
    "-1e308",
    "1e-308",
    "nan",
    "inf",
    "-inf",
    "0.0",
    "0.5",
    "1.0",
    "1.5",
];

/// Values that break numeric and other keys.
const VALUES: &[&str] = &[
    "4294967296",
    "18446744073709551615",
    "-1",
    "0",
    "1",
    "3",
    "1e308",
    "-1e308",
    "nan",
    "inf",
    "-inf",
    "0.5",
    "1.5",
    "\"five\"",
    "true",
    "[]",
    "{}",
    "\"\"",
    "[1e308]",
    "[0.0]",
    "[-5, 5]",
    "[3, 7]",
    "\"exhaustive\"",
    "\"genetic\"",
    "\"set-based\"",
    "\"minimal\"",
    "\"minimal-bfs\"",
    "\"minimal-inference\"",
    "\"microaggregation\"",
    "\"quasi-identifying\"",
    "\"sensitive\"",
    "\"disease\"",
    "\"zip\"",
    "\"entropy-l-diversity\"",
    "\"delta-disclosure\"",
    "\"logical-safety\"",
    "\"confidential\"",
    "\"hierarchical\"",
    "\"discernibility\"",
    "\"sf-ql\"",
    "\"rank\"",
    "{ kind = \"mask\" }",
    "{ kind = \"suppress\" }",
    "{ kind = \"date\", format = \"%m/%y\" }",
    "{ kind = \"date\", format = \"%d/%m/%Y\" }",
    "{ kind = \"intervals\", widths = [0.001] }",
    "{ kind = \"groups\", levels = [{ a = [\"flu\", \"cold\"] }] }",
    "{ kind = \"partitions\", partitions = { p = { x = [\"flu\"] } } }",
    "\"age.csv\"",
    "\"missing.csv\"",
    "\"data.csv\"",
    "\"\\t\"",
    "\";\"",
    "\"ab\"",
    "[\"flu\"]",
    "[\"*\"]",
    "{ type = \"distinct-l\", l = 2 }",
    "{ type = \"max-probability\", p = 1e308 }",
    "\"continuous\"",
    "\"ordinal\"",
    "\"enumeration\"",
    "\"counting\"",
    "\"estimate\"",
    "{ zip = 1e308, age = -1 }",
    "{ ill = \"disease in {flu, cold} and not height > 1e308\" }",
    "{ ill = \"((((\" }",
    "{ height = [\"158\", \"181\"] }",
    "{ ill = 1e308 }",
    "[\"\", \"?\"]",
    "[\"disease\", \"blood\", \"zip\"]",
    "DEEP",
    "CHAIN",
    "ARROWS",
    "WIDE",
];

/// The long values [`VALUES`] names: formulas past the bounds on nesting and size, and a
/// domain with more values than `each_value` takes.
fn expand(value: &str) -> String {
    match value {
        "DEEP" => format!(
            "{{ ill = \"{}disease = flu{}\" }}",
            "(".repeat(3000),
            ")".repeat(3000)
        ),
        "CHAIN" => format!(
            "{{ ill = \"{}\" }}",
            vec!["disease = flu"; 10_000].join(" or ")
        ),
        "ARROWS" => format!(
            "{{ ill = \"{}\" }}",
            vec!["disease = flu"; 200_000].join(" -> ")
        ),
        "WIDE" => {
            let values: Vec<String> = (0..1500).map(|i| format!("\"d{i}\"")).collect();
            format!("{{ disease = [{}] }}", values.join(", "))
        }
        other => other.to_owned(),
    }
}

/// Keys to add to a section.
const KEYS: &[&str] = &[
    "k",
    "l",
    "c",
    "t",
    "delta",
    "beta",
    "values",
    "threads",
    "population",
    "generations",
    "crossover_rate",
    "mutation_rate",
    "suppression_limit",
    "gs_factor",
    "widths",
    "algorithm",
    "hierarchy",
    "delimiter",
    "quote",
    "missing",
    "role",
    "attribute",
    "model",
    "distance",
    "scale",
    "check",
    "budget",
    "max_rounds",
    "weights",
    "method",
    "samples",
    "order",
    "domain",
    "damage",
    "each_value",
    "formulas",
    "default_role",
    "aggregate",
    "name",
    "confidence",
];

/// Whole sections to add.
const EXTRA_SECTIONS: &[&str] = &[
    "[disclose]\ncheck = { type = \"distinct-l\", l = 2 }\n",
    "[disclose]\ncheck = { type = \"recursive-cl\", c = 2, l = 2 }\nbudget = 4294967296\n",
    "[[privacy]]\nmodel = \"logical-safety\"\n",
    "[[privacy]]\nmodel = \"confidential\"\nattribute = \"disease\"\nvalues = [\"cancer\"]\n",
    "[[privacy]]\nmodel = \"entropy-l-diversity\"\nattribute = \"disease\"\nl = 1.5\n",
    "[[privacy]]\nmodel = \"delta-disclosure\"\nattribute = \"disease\"\ndelta = 2.0\n",
    "[search.set_based]\nmax_rounds = 4294967296\n",
    "[disclose]\ncheck = { type = \"max-probability\", p = 0.5 }\nmethod = \"estimate\"\nsamples = 1000\n",
    "[disclose]\ncheck = { type = \"distinct-l\", l = 2 }\nmethod = \"counting\"\n",
    "[search.set_based]\nfamilies = { zip = \"subsets\", height = \"intervals\", birth = \"levels\" }\n",
    "[disclose]\ncheck = { type = \"distinct-l\", l = 2 }\n[[disclose.generalizations]]\nlevels = [1, 1, 1, 1]\n",
    "[attributes.ghost]\nrole = \"sensitive\"\n",
];

#[derive(Debug, Clone)]
enum ConfigOp {
    SetValue(usize, usize, usize),
    DeleteLine(usize, usize),
    DeleteSection(usize),
    DuplicateSection(usize),
    AddLine(usize, usize, usize),
    AddSection(usize),
}

#[derive(Debug, Clone)]
enum TextOp {
    /// Insert a byte at a position (both taken modulo).
    Insert(usize, u8),
    DeleteRange(usize, usize),
    Truncate(usize),
    /// Put a quote at the start of a field (field index modulo), often leaving it open.
    OpenQuote(usize),
    Crlf,
    /// Replace field `0` with value `1` of [`FIELD_VALUES`].
    SetField(usize, usize),
    /// Drop the last field of line `0`.
    Ragged(usize),
    /// Copy the name of one column onto another.
    DuplicateColumn(usize, usize),
    /// Add columns to line `0` (modulo) until it has 300.
    Widen(usize),
}

const FIELD_VALUES: &[&str] = &[
    "4294967296",
    "1e308",
    "-1",
    "nan",
    "inf",
    "31/02/56",
    "29/02/57",
    "00/00/00",
    "?",
    "",
    "\"",
    "\"\"",
    "x\"y",
    "LONG",
    "ñandú",
    "\u{feff}name",
    "50-59",
    "*",
];

fn config_op() -> impl Strategy<Value = ConfigOp> {
    let i = || 0usize..64;
    prop_oneof![
        8 => (i(), i(), 0..VALUES.len()).prop_map(|(s, l, v)| ConfigOp::SetValue(s, l, v)),
        2 => (i(), i()).prop_map(|(s, l)| ConfigOp::DeleteLine(s, l)),
        1 => i().prop_map(ConfigOp::DeleteSection),
        1 => i().prop_map(ConfigOp::DuplicateSection),
        1 => (i(), 0..KEYS.len(), 0..VALUES.len()).prop_map(|(s, k, v)| ConfigOp::AddLine(s, k, v)),
        2 => (0..EXTRA_SECTIONS.len()).prop_map(ConfigOp::AddSection),
    ]
}

fn text_op() -> impl Strategy<Value = TextOp> {
    let i = || 0usize..4096;
    let byte = prop_oneof![
        Just(b'"'),
        Just(b','),
        Just(b';'),
        Just(b'\n'),
        Just(b'\r'),
        Just(0xff),
        Just(0u8),
        any::<u8>(),
    ];
    prop_oneof![
        3 => (i(), byte).prop_map(|(p, b)| TextOp::Insert(p, b)),
        1 => (i(), 0usize..40).prop_map(|(p, n)| TextOp::DeleteRange(p, n)),
        1 => i().prop_map(TextOp::Truncate),
        3 => i().prop_map(TextOp::OpenQuote),
        1 => Just(TextOp::Crlf),
        3 => (i(), 0..FIELD_VALUES.len()).prop_map(|(f, v)| TextOp::SetField(f, v)),
        1 => i().prop_map(TextOp::Ragged),
        1 => (i(), i()).prop_map(|(a, b)| TextOp::DuplicateColumn(a, b)),
        1 => i().prop_map(TextOp::Widen),
    ]
}

#[derive(Debug, Clone)]
struct Case {
    variant: usize,
    config: Vec<ConfigOp>,
    config_bytes: Vec<TextOp>,
    data: Vec<TextOp>,
    hierarchy: Vec<TextOp>,
    con: Vec<TextOp>,
}

fn case() -> impl Strategy<Value = Case> {
    (
        prop::collection::vec(config_op(), 0..3),
        // raw bytes mostly break the TOML syntax, so they are rare
        prop::option::weighted(
            0.1,
            prop_oneof![
                (0usize..4096, any::<u8>()).prop_map(|(p, b)| TextOp::Insert(p, b)),
                (0usize..4096, 0usize..20).prop_map(|(p, n)| TextOp::DeleteRange(p, n)),
                (0usize..4096).prop_map(TextOp::Truncate),
            ],
        ),
        prop::collection::vec(text_op(), 0..2),
        prop::option::weighted(0.3, text_op()),
        0usize..(16 * ALGORITHMS.len()),
        prop::option::weighted(0.2, text_op()),
    )
        .prop_map(
            |(config, config_bytes, data, hierarchy, variant, con)| Case {
                variant,
                config,
                config_bytes: config_bytes.into_iter().collect(),
                data,
                hierarchy: hierarchy.into_iter().collect(),
                con: con.into_iter().collect(),
            },
        )
}

fn mutate_config(variant: usize, ops: &[ConfigOp]) -> String {
    let mut s = sections(variant);
    let mut extra = String::new();
    for op in ops {
        let n = s.len();
        match *op {
            ConfigOp::SetValue(sec, line, v) => {
                let lines = &mut s[sec % n].1;
                if !lines.is_empty() {
                    let l = line % lines.len();
                    let (key, old) = lines[l].split_once('=').unwrap_or(("k", ""));
                    let (key, old) = (key.trim().to_owned(), old.trim());
                    // numbers mostly get other numbers, so that cases get past the types
                    let value = if old.starts_with(|c: char| c.is_ascii_digit()) && v % 4 != 0 {
                        NUMBERS[v % NUMBERS.len()].to_owned()
                    } else {
                        expand(VALUES[v])
                    };
                    lines[l] = format!("{key} = {value}");
                }
            }
            ConfigOp::DeleteLine(sec, line) => {
                let lines = &mut s[sec % n].1;
                if !lines.is_empty() {
                    let l = line % lines.len();
                    lines.remove(l);
                }
            }
            ConfigOp::DeleteSection(sec) => {
                s.remove(sec % n);
                if s.is_empty() {
                    break;
                }
            }
            ConfigOp::DuplicateSection(sec) => {
                let copy = s[sec % n].clone();
                s.insert(sec % n, copy);
            }
            ConfigOp::AddLine(sec, k, v) => {
                s[sec % n]
                    .1
                    .push(format!("{} = {}", KEYS[k], expand(VALUES[v])));
            }
            ConfigOp::AddSection(i) => extra.push_str(EXTRA_SECTIONS[i]),
        }
    }
    let mut text = String::new();
    for (header, lines) in &s {
        if !header.is_empty() {
            text.push_str(header);
            text.push('\n');
        }
        for l in lines {
            text.push_str(l);
            text.push('\n');
        }
    }
    text.push_str(&extra);
    text
}

/// Field boundaries of `text` (byte ranges), naively split on `delimiter` and newlines.
fn fields(text: &[u8], delimiter: u8) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, &b) in text.iter().enumerate() {
        if b == delimiter || b == b'\n' {
            out.push((start, i));
            start = i + 1;
        }
    }
    if start < text.len() {
        out.push((start, text.len()));
    }
    out
}

fn mutate_text(text: &str, ops: &[TextOp], delimiter: u8) -> Vec<u8> {
    let mut t = text.as_bytes().to_vec();
    for op in ops {
        let len = t.len().max(1);
        match *op {
            TextOp::Insert(p, b) => t.insert(p % (t.len() + 1), b),
            TextOp::DeleteRange(p, n) => {
                let from = p % len;
                let to = (from + n).min(t.len());
                if from < to {
                    t.drain(from..to);
                }
            }
            TextOp::Truncate(p) => t.truncate(p % len),
            TextOp::OpenQuote(f) => {
                let fs = fields(&t, delimiter);
                if !fs.is_empty() {
                    let (start, _) = fs[f % fs.len()];
                    t.insert(start, b'"');
                }
            }
            TextOp::Crlf => {
                let s = String::from_utf8_lossy(&t).replace('\n', "\r\n");
                t = s.into_bytes();
            }
            TextOp::SetField(f, v) => {
                let fs = fields(&t, delimiter);
                if !fs.is_empty() {
                    let (start, end) = fs[f % fs.len()];
                    let value = match FIELD_VALUES[v] {
                        "LONG" => "9".repeat(100_000),
                        other => other.to_owned(),
                    };
                    t.splice(start..end, value.into_bytes());
                }
            }
            TextOp::Ragged(line) => {
                let s = String::from_utf8_lossy(&t).into_owned();
                let mut lines: Vec<String> = s.split('\n').map(str::to_owned).collect();
                let l = line % lines.len();
                if let Some(cut) = lines[l].rfind(delimiter as char) {
                    lines[l].truncate(cut);
                }
                t = lines.join("\n").into_bytes();
            }
            TextOp::DuplicateColumn(a, b) => {
                let s = String::from_utf8_lossy(&t).into_owned();
                let mut lines: Vec<String> = s.split('\n').map(str::to_owned).collect();
                let mut names: Vec<String> = lines[0]
                    .split(delimiter as char)
                    .map(str::to_owned)
                    .collect();
                let n = names.len();
                names[b % n] = names[a % n].clone();
                lines[0] = names.join(&(delimiter as char).to_string());
                t = lines.join("\n").into_bytes();
            }
            TextOp::Widen(line) => {
                let s = String::from_utf8_lossy(&t).into_owned();
                let mut lines: Vec<String> = s.split('\n').map(str::to_owned).collect();
                let l = line % lines.len();
                for i in 0..300 {
                    lines[l].push(delimiter as char);
                    lines[l].push_str(&format!("w{i}"));
                }
                t = lines.join("\n").into_bytes();
            }
        }
    }
    t
}

/// Whether an error says where the input went wrong.
fn located(e: &Error) -> bool {
    let text = e.to_string();
    match e {
        Error::Config { key, .. } => !key.is_empty() && text.contains("config key `"),
        Error::ConfigSyntax { at, .. } | Error::Data { at, .. } => {
            at.line.is_some_and(|l| text.contains(&format!(":{l}")))
        }
        // a file that cannot be read or written is named, and has no line to name
        Error::Io { .. }
        | Error::PathClash { .. }
        | Error::NotRegularOutput { .. }
        | Error::Busy { .. }
        | Error::Commit { .. } => true,
        // the spill directory or the changed source is named
        Error::Engine(e) => match e {
            cellsafe::error::EngineError::Spill { dir, .. } => {
                text.contains(&dir.display().to_string())
            }
            cellsafe::error::EngineError::Changed { path, .. }
            | cellsafe::error::EngineError::TooManyAlike(path) => {
                text.contains(&path.display().to_string())
            }
            _ => false,
        },
        // a failed audit is a bug, not bad input
        Error::AuditFailed { .. }
        | Error::Interrupted
        | Error::NothingAcceptable
        | Error::Cancelled
        | Error::Json(_)
        | Error::Threads(_)
        | Error::Anonymizer(_)
        | Error::Center(_)
        | Error::Job(_)
        | Error::DataModel(_)
        | Error::Dataset(_)
        | Error::Criteria(_)
        | Error::Metric(_)
        | Error::Problem(_)
        | Error::Disclosure(_)
        | Error::Pareto(_)
        | Error::Query(_)
        | Error::Release(_)
        | Error::Intractable(_) => false,
    }
}

/// Runs one job; returns the errors met and whether an audit failed.
fn exercise(dir: &Path, config_text: &str) -> (Vec<Error>, Option<String>) {
    let path = dir.join("job.toml");
    let mut errors = Vec::new();
    let config = match Config::parse(config_text, &path) {
        Ok(c) => c,
        Err(e) => return (vec![e], None),
    };
    if let Err(e) = config.problem() {
        errors.push(e);
    }
    let outputs = Outputs {
        table: Some(dir.join("out.csv")),
        report: Some(dir.join("report.json")),
        mapping: None,
    };
    let mut audit = None;
    match job::anonymize(&config, &outputs, &cellsafe::observer::Silent) {
        Ok(report) => {
            if let Some(a) = &report.audit {
                if !a.passed {
                    audit = Some(format!("{:?}", a.violations));
                }
            }
        }
        Err(Error::AuditFailed { violations, .. }) => audit = Some(format!("{violations:?}")),
        Err(e) => errors.push(e),
    }
    (errors, audit)
}

fn run_case(case: &Case) -> Result<(), TestCaseError> {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    start_watchdog();
    let mut config_text = mutate_config(case.variant, &case.config).into_bytes();
    config_text = {
        let text = String::from_utf8_lossy(&config_text).into_owned();
        mutate_text(&text, &case.config_bytes, b'\n')
    };
    let config_text = String::from_utf8_lossy(&config_text).into_owned();
    let data = mutate_text(DATA, &case.data, b',');
    let hierarchy = mutate_text(AGE, &case.hierarchy, b';');
    let con = mutate_text(CON, &case.con, b',');
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("data.csv"), &data).expect("write");
    std::fs::write(dir.path().join("age.csv"), &hierarchy).expect("write");
    std::fs::write(dir.path().join("job.toml"), &config_text).expect("write");
    std::fs::write(dir.path().join("con.csv"), &con).expect("write");
    *LAST_CASE.lock().unwrap_or_else(|e| e.into_inner()) = format!(
        "config:\n{config_text}\ndata:\n{}\nhierarchy:\n{}",
        String::from_utf8_lossy(&data[..data.len().min(2000)]),
        String::from_utf8_lossy(&hierarchy[..hierarchy.len().min(2000)])
    );

    let base = CURRENT.load(Ordering::SeqCst);
    PEAK.store(base, Ordering::SeqCst);
    CASE_STARTED.store(
        epoch().elapsed().as_millis().max(1) as u64,
        Ordering::SeqCst,
    );
    let outcome = catch_unwind(AssertUnwindSafe(|| exercise(dir.path(), &config_text)));
    CASE_STARTED.store(0, Ordering::SeqCst);
    let peak = PEAK.load(Ordering::SeqCst).saturating_sub(base);

    if std::env::var_os("FUZZ_TRACE").is_some() {
        if let Ok((errors, _)) = &outcome {
            let first: Vec<String> = errors
                .iter()
                .map(|e| e.to_string().chars().take(150).collect())
                .collect();
            eprintln!("TRACE {first:?}");
        }
    }
    let Ok((errors, audit)) = outcome else {
        return Err(TestCaseError::fail(format!(
            "panicked on config:\n{config_text}"
        )));
    };
    prop_assert!(
        peak <= CASE_CAP,
        "peak {} MiB over the cap on config:\n{}",
        peak >> 20,
        config_text
    );
    for e in &errors {
        prop_assert!(located(e), "unlocated error: {e}\nconfig:\n{config_text}");
    }
    prop_assert!(
        audit.is_none(),
        "audit failed: {audit:?}\nconfig:\n{config_text}"
    );
    Ok(())
}

/// Every unmutated variant is a valid job, so mutations start from working input.
#[test]
fn the_valid_jobs_run() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    for variant in 0..16 * ALGORITHMS.len() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("data.csv"), DATA).unwrap();
        std::fs::write(dir.path().join("age.csv"), AGE).unwrap();
        std::fs::write(dir.path().join("con.csv"), CON).unwrap();
        let text = mutate_config(variant, &[]);
        let (errors, audit) = exercise(dir.path(), &text);
        assert!(errors.is_empty(), "variant {variant}: {errors:?}\n{text}");
        assert!(audit.is_none(), "variant {variant}: {audit:?}");
    }
}

/// Formulas past the bounds on nesting and size, and `each_value` on a column with too many
/// values, fail with an error naming the key (they overflowed the stack, or cost time and
/// memory growing with the square of the values).
#[test]
fn long_safety_values_fail_cleanly() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let formulas = "formulas = { ill = \"disease = cancer\" }";
    for (name, key) in [
        ("DEEP", "safety.formulas.ill"),
        ("CHAIN", "safety.formulas.ill"),
        ("ARROWS", "safety.formulas.ill"),
        ("WIDE", "safety.each_value[0]"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("data.csv"), DATA).unwrap();
        std::fs::write(dir.path().join("age.csv"), AGE).unwrap();
        std::fs::write(dir.path().join("con.csv"), CON).unwrap();
        let base = mutate_config(8, &[]);
        assert!(base.contains(formulas));
        let text = match name {
            "WIDE" => base.replace(
                formulas,
                &format!("each_value = [\"disease\"]\ndomain = {}", expand(name)),
            ),
            _ => base.replace(formulas, &format!("formulas = {}", expand(name))),
        };
        let (errors, audit) = exercise(dir.path(), &text);
        assert!(audit.is_none(), "{name}: {audit:?}");
        assert!(!errors.is_empty(), "{name}");
        for e in &errors {
            assert!(
                matches!(e, Error::Config { key: k, .. } if k == key),
                "{name}: {e}"
            );
        }
    }
}

/// Cases per run: 4000, or `FUZZ_CASES` for a longer search.
fn cases() -> u32 {
    std::env::var("FUZZ_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(4000)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), ..ProptestConfig::default() })]

    #[test]
    fn mutated_jobs_fail_cleanly(case in case()) {
        run_case(&case)?;
    }
}
