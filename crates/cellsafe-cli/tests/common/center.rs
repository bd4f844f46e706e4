//! The example center of the gatekeeper service, started as `cellsafe serve` and spoken
//! to over plain HTTP/1.1: what the service's integration tests share.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::time::Duration;

use serde_json::{json, Value};

pub const ADMIN: &str = "admin.9f2c4e7a1b8d3f60c5e2a7b94d1f8e3c6a0b5d2e7f4c1a8b3e6d9f2c5a8b1e4d";
pub const ANA: &str = "ana.3b8e1f6a9c2d5e0f7a4b1c8d3e6f9a2b5c8d1e4f7a0b3c6d9e2f5a8b1c4d7e0f";

/// docs/gatekeeper.md's differencing pair: each safe alone, the second refused after the first.
pub const Q1: &str = "SELECT diagnosis FROM patients WHERE age >= 40";
pub const Q2: &str = "SELECT diagnosis FROM patients WHERE age > 40";

pub fn example() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/service")
}

/// A copy of the example center in a fresh directory, with its database there (SQLite)
/// or in a fresh PostgreSQL database.
pub struct Center {
    pub dir: tempfile::TempDir,
    pub backend: &'static str,
    pub postgres: Option<(String, String)>,
}

impl Center {
    pub fn path(&self) -> &Path {
        self.dir.path()
    }
}

impl Drop for Center {
    fn drop(&mut self) {
        if let Some((server, name)) = &self.postgres {
            let _ = psql(
                server,
                &format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"),
            );
        }
    }
}

pub fn psql(server: &str, sql: &str) -> std::process::Output {
    Command::new("psql")
        .args([server, "-v", "ON_ERROR_STOP=1", "-qc", sql])
        .output()
        .unwrap()
}

/// The example center on every backend available: SQLite always; PostgreSQL when
/// `CELLSAFE_TEST_POSTGRES` names a server (`.ci/postgres` starts one).
pub fn centers() -> Vec<Center> {
    let copy = || {
        let dir = tempfile::tempdir().unwrap();
        for f in ["center.csv", "center.toml"] {
            std::fs::copy(example().join(f), dir.path().join(f)).unwrap();
        }
        dir
    };
    let mut out = vec![Center {
        dir: copy(),
        backend: "sqlite",
        postgres: None,
    }];
    match std::env::var("CELLSAFE_TEST_POSTGRES").map(|s| s.trim().to_string()) {
        Ok(server) if !server.is_empty() => {
            let name = format!("cellsafe_cli_{}", std::process::id())
                + &format!(
                    "_{}",
                    COUNTER.fetch_add(1, std::sync::atomic::Ordering::SeqCst)
                );
            let created = psql(&server, &format!("CREATE DATABASE {name}"));
            assert!(created.status.success(), "{created:?}");
            let dir = copy();
            let toml = dir.path().join("center.toml");
            let text = std::fs::read_to_string(&toml).unwrap().replace(
                "database = \"center.db\"",
                &format!("database_url = \"{server} dbname={name}\""),
            );
            std::fs::write(&toml, text).unwrap();
            out.push(Center {
                dir,
                backend: "postgres",
                postgres: Some((server, name)),
            });
        }
        _ => super::skipped("the service on PostgreSQL: CELLSAFE_TEST_POSTGRES is not set"),
    }
    out
}

static COUNTER: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

pub struct Server {
    pub child: Child,
    pub addr: String,
}

impl Server {
    pub fn start(dir: &Path) -> Server {
        let (child, addr) = super::serve(dir);
        Server { child, addr }
    }

    pub fn call(&self, method: &str, path: &str, token: Option<&str>, body: &str) -> (u16, Value) {
        let (status, text) = http(&self.addr, method, path, token, body.as_bytes());
        let value = serde_json::from_str(&text).unwrap_or(Value::String(text));
        (status, value)
    }

    pub fn query(&self, token: &str, sql: &str) -> (u16, Value) {
        self.call(
            "POST",
            "/query",
            Some(token),
            &json!({ "sql": sql }).to_string(),
        )
    }

    pub fn audit(&self) -> Vec<Value> {
        let mut entries = Vec::new();
        let mut after = 0;
        loop {
            let (s, page) = self.call(
                "GET",
                &format!("/admin/audit?after={after}&limit=50"),
                Some(ADMIN),
                "",
            );
            assert_eq!(s, 200, "{page}");
            entries.extend(page["entries"].as_array().unwrap().iter().cloned());
            match page["next_after"].as_i64() {
                Some(a) => after = a,
                None => return entries,
            }
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One HTTP/1.1 request; (status, body).
pub fn http(
    addr: &str,
    method: &str,
    path: &str,
    token: Option<&str>,
    body: &[u8],
) -> (u16, String) {
    let s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(120))).unwrap();
    let mut head = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\n",
        body.len()
    );
    if let Some(t) = token {
        head.push_str(&format!("Authorization: Bearer {t}\r\n"));
    }
    head.push_str("\r\n");
    let (status, _, body) = exchange(s, &head, body);
    (status, body)
}

/// Sends `head` and `body` on `s` and reads the answer to the end: (status, headers, body,
/// unchunked).
pub fn exchange(mut s: TcpStream, head: &str, body: &[u8]) -> (u16, String, String) {
    s.write_all(head.as_bytes()).unwrap();
    let _ = s.write_all(body); // a server refusing an oversize body may close early
    let mut raw = Vec::new();
    let _ = s.read_to_end(&mut raw);
    let text = String::from_utf8_lossy(&raw).into_owned();
    let status = text
        .split(' ')
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or_else(|| panic!("no status in {text:?}"));
    let (headers, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let body = if headers
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        unchunk(body)
    } else {
        body.to_string()
    };
    (status, headers.to_string(), body)
}

pub fn unchunk(mut s: &str) -> String {
    let mut out = String::new();
    while let Some((size, rest)) = s.split_once("\r\n") {
        let n = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
        if n == 0 {
            break;
        }
        out.push_str(&rest[..n]);
        s = &rest[n + 2..];
    }
    out
}
