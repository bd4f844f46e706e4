//! The gatekeeper service on loopback: a bounded load test (concurrent analysts issuing
//! safe small queries: latency percentiles, throughput, errors, and a check that every
//! answer is in the audit log) and, with `--rows`, one query that needs generalization
//! over a large center, timed end to end from a fresh user.
//!
//! The center is the example's (`examples/service`), or for `--rows N` a seeded table of N
//! patients with the same columns and the same config, the first of them aged 95 with HIV
//! (no one else is over 79), so that the full table cannot be released as it is. The
//! `cellsafe` binary is taken from beside this one (`cargo build --release` builds both).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{anyhow, bail, Context, Result};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const ADMIN: &str = "admin.9f2c4e7a1b8d3f60c5e2a7b94d1f8e3c6a0b5d2e7f4c1a8b3e6d9f2c5a8b1e4d";
const ZIPS: [&str; 6] = ["13053", "13068", "13067", "14850", "14853", "14867"];
const DIAGNOSES: [&str; 7] = [
    "flu",
    "asthma",
    "diabetes",
    "hypertension",
    "migraine",
    "HIV",
    "cancer",
];
const WEIGHTS: [u32; 7] = [30, 15, 15, 20, 12, 4, 4];

fn example() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/service")
}

/// Writes `rows` seeded patients with the example's columns.
fn write_patients(path: &Path, rows: usize, seed: u64) -> Result<()> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let total: u32 = WEIGHTS.iter().sum();
    let mut out = String::from("id,name,zip,age,sex,diagnosis\n");
    for i in 0..rows {
        let mut w = rng.gen_range(0..total);
        let d = WEIGHTS
            .iter()
            .position(|&x| {
                if w < x {
                    true
                } else {
                    w -= x;
                    false
                }
            })
            .unwrap_or(0);
        let (zip, age, sex) = (
            ZIPS[rng.gen_range(0..ZIPS.len())],
            rng.gen_range(20..80),
            if rng.gen_bool(0.5) { "F" } else { "M" },
        );
        let (age, diagnosis) = if i == 0 {
            (95, "HIV")
        } else {
            (age, DIAGNOSES[d])
        };
        out.push_str(&format!(
            "P{:07},Person {i},{zip},{age},{sex},{diagnosis}\n",
            i + 1
        ));
    }
    std::fs::write(path, out).with_context(|| format!("writing {}", path.display()))
}

/// The service, killed when dropped.
struct Service {
    child: Child,
    addr: String,
    started: Duration,
}

impl Drop for Service {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start(dir: &Path) -> Result<Service> {
    let binary = std::env::current_exe()?.with_file_name("cellsafe");
    if !binary.exists() {
        bail!(
            "{} not found: build it with `cargo build --release` first",
            binary.display()
        );
    }
    let clock = Instant::now();
    let mut child = Command::new(&binary)
        .arg("serve")
        .arg(dir.join("center.toml"))
        .args(["--listen", "127.0.0.1:0"])
        .stderr(Stdio::piped())
        .spawn()
        .with_context(|| format!("starting {}", binary.display()))?;
    let mut lines = BufReader::new(child.stderr.take().expect("piped")).lines();
    let addr = loop {
        match lines.next() {
            Some(Ok(line)) => {
                if let Some(a) = line.strip_prefix("cellsafe: listening on http://") {
                    break a.to_string();
                }
                if line.starts_with("error") {
                    bail!("the service did not start: {line}");
                }
            }
            _ => bail!("the service stopped before listening"),
        }
    };
    let started = clock.elapsed();
    std::thread::spawn(move || lines.for_each(drop));
    Ok(Service {
        child,
        addr,
        started,
    })
}

/// One HTTP/1.1 request: (status, body).
fn http(
    addr: &str,
    method: &str,
    path: &str,
    token: &str,
    body: &str,
) -> Result<(u16, serde_json::Value)> {
    let (status, raw) = http_raw(addr, method, path, token, body)?;
    let body = raw.split_once("\r\n\r\n").map_or("", |(_, b)| b);
    Ok((status, serde_json::from_str(body).unwrap_or_default()))
}

/// One HTTP/1.1 request: (status, the whole response as received).
fn http_raw(
    addr: &str,
    method: &str,
    path: &str,
    token: &str,
    body: &str,
) -> Result<(u16, String)> {
    let mut s = TcpStream::connect(addr)?;
    s.set_read_timeout(Some(Duration::from_secs(300)))?;
    write!(
        s,
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\
         Content-Type: application/json\r\nAuthorization: Bearer {token}\r\n\
         Content-Length: {}\r\n\r\n{body}",
        body.len()
    )?;
    let mut raw = String::new();
    s.read_to_string(&mut raw)?;
    let status = raw
        .split(' ')
        .nth(1)
        .and_then(|c| c.parse().ok())
        .ok_or_else(|| anyhow!("no HTTP status in the answer"))?;
    Ok((status, raw))
}

fn query(addr: &str, token: &str, sql: &str) -> Result<(u16, serde_json::Value)> {
    http(
        addr,
        "POST",
        "/query",
        token,
        &serde_json::json!({ "sql": sql }).to_string(),
    )
}

fn cpu() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|t| {
            t.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, m)| m.trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".into())
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let i = ((p / 100.0) * (sorted.len() - 1) as f64).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

/// A center in a new directory: the example's patients, or `rows` seeded ones.
fn center(rows: Option<usize>, seed: u64) -> Result<tempfile::TempDir> {
    let dir = tempfile::tempdir()?;
    std::fs::copy(
        example().join("center.toml"),
        dir.path().join("center.toml"),
    )
    .context("copying examples/service/center.toml")?;
    match rows {
        Some(n) => write_patients(&dir.path().join("center.csv"), n, seed)?,
        None => {
            std::fs::copy(example().join("center.csv"), dir.path().join("center.csv"))
                .context("copying examples/service/center.csv")?;
        }
    }
    Ok(dir)
}

/// Runs the load test, then (with `rows`) the large query.
pub fn run(analysts: usize, queries: usize, rows: Option<usize>, seed: u64) -> Result<()> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    outln!("CPU: {} ({cores} cores)", cpu());
    load(analysts, queries, seed)?;
    if let Some(rows) = rows {
        large(rows, seed)?;
    }
    Ok(())
}

fn load(analysts: usize, queries: usize, seed: u64) -> Result<()> {
    let dir = center(None, seed)?;
    let service = start(dir.path())?;
    let addr = service.addr.clone();
    let mut tokens = Vec::new();
    for a in 0..analysts {
        let body = serde_json::json!({
            "name": format!("analyst{a}"),
            "role": "analyst",
            "grants": { "patients": ["zip", "age", "sex", "diagnosis"] }
        });
        let (status, t) = http(&addr, "POST", "/admin/users", ADMIN, &body.to_string())?;
        if status != 201 {
            bail!("creating an analyst: {status} {t}");
        }
        tokens.push(t["token"].as_str().unwrap_or_default().to_string());
    }
    // each analyst asks for sex and diagnosis by zip, one zip after another: small answers
    // the gatekeeper releases as asked
    let results = Arc::new(Mutex::new(Vec::new()));
    let clock = Instant::now();
    let handles: Vec<_> = tokens
        .into_iter()
        .enumerate()
        .map(|(a, token)| {
            let (addr, results) = (addr.clone(), results.clone());
            std::thread::spawn(move || {
                for q in 0..queries {
                    // the first request of each analyst also checks its token (argon2)
                    let sql = format!(
                        "SELECT sex, diagnosis FROM patients WHERE zip = '{}'",
                        ZIPS[(a + q) % ZIPS.len()]
                    );
                    let t = Instant::now();
                    let r = query(&addr, &token, &sql);
                    let ms = t.elapsed().as_secs_f64() * 1e3;
                    results
                        .lock()
                        .expect("not poisoned")
                        .push((sql, ms, r.ok(), q == 0));
                }
            })
        })
        .collect();
    for h in handles {
        h.join().map_err(|_| anyhow!("a client thread panicked"))?;
    }
    let wall = clock.elapsed().as_secs_f64();
    let results = std::mem::take(&mut *results.lock().expect("not poisoned"));
    let mut latencies: Vec<f64> = results.iter().map(|r| r.1).collect();
    latencies.sort_by(f64::total_cmp);
    let mut later: Vec<f64> = results.iter().filter(|r| !r.3).map(|r| r.1).collect();
    later.sort_by(f64::total_cmp);
    let mut outcomes = std::collections::BTreeMap::new();
    let mut errors = 0;
    let mut answered = Vec::new();
    for (sql, _, r, _) in &results {
        match r {
            Some((200, v)) | Some((403, v)) if v["audit_id"].is_i64() => {
                let o = v["outcome"].as_str().unwrap_or("refused").to_string();
                *outcomes.entry(o).or_insert(0) += 1;
                answered.push((v["audit_id"].as_i64().unwrap_or(-1), sql.clone()));
            }
            _ => errors += 1,
        }
    }
    // every answer is in the audit log, with its query
    let mut logged = std::collections::HashMap::new();
    let mut after = 0;
    loop {
        let (status, page) = http(
            &addr,
            "GET",
            &format!("/admin/audit?after={after}&limit=1000"),
            ADMIN,
            "",
        )?;
        if status != 200 {
            bail!("reading the audit log: {status}");
        }
        for e in page["entries"].as_array().into_iter().flatten() {
            logged.insert(
                e["id"].as_i64().unwrap_or(-1),
                e["query"].as_str().unwrap_or_default().to_string(),
            );
        }
        match page["next_after"].as_i64() {
            Some(a) => after = a,
            None => break,
        }
    }
    let missing = answered
        .iter()
        .filter(|(id, sql)| logged.get(id) != Some(sql))
        .count();
    outln!("load test: {analysts} analysts x {queries} queries on the example center (300 rows)");
    outln!("  requests           {}", results.len());
    outln!("  errors             {errors}");
    outln!("  outcomes           {outcomes:?}");
    outln!("  wall time          {wall:.2} s");
    outln!(
        "  throughput         {:.0} requests/s",
        results.len() as f64 / wall
    );
    outln!(
        "  latency ms         p50 {:.1}  p90 {:.1}  p99 {:.1}  max {:.1}",
        percentile(&latencies, 50.0),
        percentile(&latencies, 90.0),
        percentile(&latencies, 99.0),
        latencies.last().copied().unwrap_or(f64::NAN)
    );
    outln!(
        "  without the first  p50 {:.1}  p90 {:.1}  p99 {:.1}  max {:.1} (each analyst's first \
         request checks the token's argon2 hash)",
        percentile(&later, 50.0),
        percentile(&later, 90.0),
        percentile(&later, 99.0),
        later.last().copied().unwrap_or(f64::NAN)
    );
    outln!(
        "  audited            {} of {} answers found in the log with their query",
        answered.len() - missing,
        answered.len()
    );
    if errors > 0 || missing > 0 {
        bail!("{errors} errors, {missing} answers missing from the audit log");
    }
    Ok(())
}

fn large(rows: usize, seed: u64) -> Result<()> {
    let dir = center(Some(rows), seed)?;
    let service = start(dir.path())?;
    let sql = "SELECT zip, age, sex, diagnosis FROM patients";
    // end to end: from sending the query to holding the whole response (not parsed)
    let body = serde_json::json!({ "sql": sql }).to_string();
    let timed = || -> Result<(f64, u16, serde_json::Value)> {
        let t = Instant::now();
        let (status, raw) = http_raw(&service.addr, "POST", "/query", ADMIN, &body)?;
        let seconds = t.elapsed().as_secs_f64();
        let json = raw.split_once("\r\n\r\n").map_or("", |(_, b)| b);
        Ok((
            seconds,
            status,
            serde_json::from_str(json).unwrap_or_default(),
        ))
    };
    let (first, status, v) = timed()?;
    let (second, _, again) = timed()?;
    outln!("large center: {rows} seeded rows");
    outln!(
        "  start (CSV into SQLite, load, center)  {:.2} s",
        service.started.as_secs_f64()
    );
    outln!("  query      {sql}");
    outln!(
        "  answer     {status} {} by {} levels {} ({} rows)",
        v["outcome"],
        v["method"],
        v["levels"],
        v["rows"].as_array().map_or(0, |r| r.len())
    );
    outln!(
        "  end to end {first:.3} s (fresh user), {second:.3} s (same query again, {})",
        again["outcome"]
    );
    let (start, answer) = library(dir.path(), 3)?;
    outln!("  library alone: center built in {start:.3} s; the same query answered in {answer:.3} s (median of 3, no HTTP or database)");
    Ok(())
}

/// The center of `dir` built in process, and the large query answered by the library for a
/// fresh recipient: seconds to build, median seconds to answer.
fn library(dir: &Path, runs: usize) -> Result<(f64, f64)> {
    use cellsafe::gatekeeper::Request;
    let t = Instant::now();
    let config = cellsafe::job::config::Config::from_file(&dir.join("center.toml"))?;
    let (table, _) = config.read(&cellsafe::observer::Silent)?;
    let n = table.rows() as u32;
    let center = cellsafe::job::gatekeeper::center(&config, table)?;
    let start = t.elapsed().as_secs_f64();
    let request = Request {
        columns: ["zip", "age", "sex", "diagnosis"]
            .map(String::from)
            .to_vec(),
        conditions: Vec::new(),
    };
    let rows: Vec<u32> = (0..n).collect();
    let fresh = center.fresh_knowledge();
    let mut outcome = Ok(());
    let ms = cellsafe_bench::timing::median_ms(runs, || {
        if let Err(e) = center.answer(&fresh, &request, &rows, 1) {
            outcome = Err(e);
        }
    });
    outcome?;
    Ok((start, ms / 1e3))
}
