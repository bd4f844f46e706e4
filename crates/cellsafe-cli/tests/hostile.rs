//! `cellsafe serve` against a hostile client: what a review found open, each closed and
//! kept closed here. Sessions of the admin page end with their user and token; wrong
//! tokens are counted before they are checked and cost bounded memory; a guesser locks a
//! name only for its own address; slow clients are cut off and cannot hold SIGTERM up;
//! connections are capped per client; the audit log grows boundedly and a full database
//! refuses queries; settings cannot read files outside the center; every error is JSON.
//!
//! Clients of other addresses are 127.0.0.2 and 127.0.0.3 (all of 127/8 is loopback on
//! Linux). Every wait here waits on a condition (a socket closing, a process ending), with
//! a generous bound that only a broken service reaches.

#![cfg(feature = "service")]

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

mod common;

use common::center::*;

/// How long a test waits for something a working service does at once or within its
/// configured timeouts of a second or two; reached only when the service is broken.
const BOUND: Duration = Duration::from_secs(60);

/// The example center (SQLite) with `extra` added to its `[service]` section.
fn center_with(extra: &str) -> Center {
    let center = centers().remove(0);
    let toml = center.path().join("center.toml");
    let text = std::fs::read_to_string(&toml).unwrap().replace(
        "table = \"patients\"",
        &format!("table = \"patients\"\n{extra}"),
    );
    std::fs::write(&toml, text).unwrap();
    center
}

/// A TCP connection to `addr` from the loopback address `from`.
fn connect_from(addr: &str, from: &str) -> TcpStream {
    let target: SocketAddr = addr.parse().unwrap();
    let local: SocketAddr = format!("{from}:0").parse().unwrap();
    let socket = socket2::Socket::new(socket2::Domain::IPV4, socket2::Type::STREAM, None).unwrap();
    socket.bind(&local.into()).unwrap();
    socket.connect(&target.into()).unwrap();
    let stream: TcpStream = socket.into();
    stream.set_read_timeout(Some(BOUND)).unwrap();
    stream
}

/// One request over a fresh connection from `from`: (status, headers, body).
fn request_from(addr: &str, from: &str, head: &str, body: &[u8]) -> (u16, String, String) {
    exchange(connect_from(addr, from), head, body)
}

/// A query with `token` from address `from`: (status, JSON body).
fn query_from(addr: &str, from: &str, token: &str, sql: &str) -> (u16, Value) {
    let body = json!({ "sql": sql }).to_string();
    let head = format!(
        "POST /query HTTP/1.1\r\nHost: x\r\nConnection: close\r\nAuthorization: Bearer {token}\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    let (status, _, text) = request_from(addr, from, &head, body.as_bytes());
    (
        status,
        serde_json::from_str(&text).unwrap_or(Value::String(text)),
    )
}

/// Signs in to the admin page with `token`: the session cookie.
fn sign_in(addr: &str, token: &str) -> String {
    let body = format!("token={token}");
    let head = format!(
        "POST /ui/login HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\
         Content-Type: application/x-www-form-urlencoded\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    let (status, headers, _) = request_from(addr, "127.0.0.1", &head, body.as_bytes());
    assert_eq!(status, 303, "{headers}");
    let cookie = headers
        .lines()
        .find_map(|l| {
            l.to_ascii_lowercase()
                .starts_with("set-cookie:")
                .then(|| l[11..].trim().to_string())
        })
        .expect("a session cookie");
    cookie.split(';').next().unwrap().to_string()
}

/// A page of the admin UI with a session cookie: (status, headers, body).
fn page(addr: &str, cookie: &str, method: &str, path: &str, form: &str) -> (u16, String, String) {
    let head = format!(
        "{method} {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\nCookie: {cookie}\r\n\
         Content-Type: application/x-www-form-urlencoded\r\nContent-Length: {}\r\n\r\n",
        form.len()
    );
    request_from(addr, "127.0.0.1", &head, form.as_bytes())
}

/// A new user made through the admin API: its token.
fn new_user(server: &Server, name: &str, role: &str) -> String {
    let (s, v) = server.call(
        "POST",
        "/admin/users",
        Some(ADMIN),
        &json!({"name": name, "role": role, "grants": {"patients": ["*"]}}).to_string(),
    );
    assert_eq!(s, 201, "{v}");
    v["token"].as_str().unwrap().to_string()
}

/// Item 1: a session of the admin page dies with its user, with its token and is checked
/// against the store at every request (a deleted admin used to keep full power).
#[test]
fn a_page_session_ends_with_its_user_and_its_token() {
    let center = centers().remove(0);
    let server = Server::start(center.path());
    let addr = server.addr.clone();
    // a second admin signs in, then is deleted by the first
    let token = new_user(&server, "deputy", "admin");
    let cookie = sign_in(&addr, &token);
    assert_eq!(page(&addr, &cookie, "GET", "/ui/settings", "").0, 200);
    let (s, _) = server.call("DELETE", "/admin/users/deputy", Some(ADMIN), "");
    assert_eq!(s, 204);
    let (s, headers, _) = page(&addr, &cookie, "GET", "/ui/settings", "");
    assert_eq!(s, 303, "the deleted admin's session is over: {headers}");
    assert!(headers.contains("/ui/login"), "{headers}");
    // nor can it create an admin with the old session
    let (s, _, _) = page(
        &addr,
        &cookie,
        "POST",
        "/ui/users",
        "name=mole&role=admin&columns=*",
    );
    assert_eq!(s, 303);
    let (_, users) = server.call("GET", "/admin/users", Some(ADMIN), "");
    assert!(
        !users.to_string().contains("mole"),
        "no user was created: {users}"
    );
    // a new token ends the sessions opened with the old one
    let token = new_user(&server, "second", "admin");
    let cookie = sign_in(&addr, &token);
    assert_eq!(page(&addr, &cookie, "GET", "/ui/users", "").0, 200);
    let (s, v) = server.call("POST", "/admin/users/second/token", Some(ADMIN), "");
    assert_eq!(s, 200, "{v}");
    assert_eq!(page(&addr, &cookie, "GET", "/ui/users", "").0, 303);
    // and the old token no longer passes the API, though it was checked before
    assert_eq!(server.query(&token, Q1).0, 401);
    let fresh = v["token"].as_str().unwrap();
    let cookie = sign_in(&addr, fresh);
    assert_eq!(page(&addr, &cookie, "GET", "/ui/users", "").0, 200);
}

/// The peak resident memory of process `pid`, in bytes.
fn peak_rss(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let kb: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmHWM in /proc/PID/status");
    kb * 1024
}

/// Item 2: wrong tokens cost bounded memory however many arrive at once (each argon2
/// check takes the hash's 64 MiB; 100 at once used to reach 6 GB), and the failed-login
/// count is taken before each check, so 100 simultaneous wrong tokens get at most
/// `failed_logins` checks and 429 for the rest (they used to get 100 × 401).
#[test]
fn a_flood_of_wrong_tokens_is_counted_first_and_costs_bounded_memory() {
    // no lock: every wrong token is checked, 100 at once
    let center = center_with("failed_logins = 0\nmax_connections_per_client = 200");
    let server = Server::start(center.path());
    let wrong = format!("admin.{}", "0".repeat(64));
    let flood = |server: &Server, n: usize| -> Vec<u16> {
        std::thread::scope(|s| {
            let handles: Vec<_> = (0..n)
                .map(|_| s.spawn(|| server.query(&wrong, "SELECT sex FROM patients").0))
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        })
    };
    let statuses = flood(&server, 100);
    assert!(statuses.iter().all(|&s| s == 401), "{statuses:?}");
    // and 100 more that hang up as soon as they have sent their token
    let body = json!({ "sql": "SELECT sex FROM patients" }).to_string();
    let head = format!(
        "POST /query HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {wrong}\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    for _ in 0..100 {
        let mut s = connect_from(&server.addr, "127.0.0.1");
        s.write_all(head.as_bytes()).unwrap();
        drop(s);
    }
    // a query answered after them: the checks they started have run or wait behind it
    assert_eq!(server.query(ANA, "SELECT sex FROM patients").0, 200);
    let peak = peak_rss(server.child.id());
    // each check takes the example hash's 64 MiB and no more run at once than the cores
    // (the unit test `hung_up_checks_keep_their_place_until_they_end` counts them); the
    // bound leaves room for what the allocator keeps of finished checks, and stays far
    // below the 6 GB that 100 checks at once reached
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get()) as u64;
    let bound = (cores * (64 << 20) * 8).max(3 << 30);
    eprintln!(
        "peak RSS after 200 wrong tokens at once, 100 hung up: {} MiB (bound {} MiB)",
        peak >> 20,
        bound >> 20
    );
    assert!(
        peak < bound,
        "the service's peak RSS reached {} MiB",
        peak >> 20
    );
    drop(server);
    // with the lock: exactly failed_logins checks, then 429
    let center = center_with("failed_logins = 5\nmax_connections_per_client = 200");
    let server = Server::start(center.path());
    let statuses = flood(&server, 100);
    let count = |c: u16| statuses.iter().filter(|&&s| s == c).count();
    assert_eq!((count(401), count(429)), (5, 95), "{statuses:?}");
}

/// Item 3: wrong tokens lock a name only for the address they came from, so a guesser
/// cannot lock the holder out before (or after) their first use; a name that is no user
/// is locked alike, so the lock does not tell which names exist.
#[test]
fn a_guesser_locks_a_name_only_for_its_own_address() {
    let center = center_with("failed_logins = 3\nlockout_seconds = 600");
    let server = Server::start(center.path());
    let addr = server.addr.clone();
    let sql = "SELECT sex FROM patients";
    for name in ["ana", "nobody"] {
        let wrong = format!("{name}.{}", "0".repeat(64));
        for _ in 0..3 {
            assert_eq!(query_from(&addr, "127.0.0.2", &wrong, sql).0, 401);
        }
        let (s, v) = query_from(&addr, "127.0.0.2", &wrong, sql);
        assert_eq!(s, 429, "{name}: {v}");
        assert!(
            v["error"].as_str().unwrap().contains("from your address"),
            "{v}"
        );
    }
    // the guesser's address is locked even for the right token, never checked before
    assert_eq!(query_from(&addr, "127.0.0.2", ANA, sql).0, 429);
    // ana's own token, never used before, from ana's address
    let (s, v) = query_from(&addr, "127.0.0.1", ANA, sql);
    assert_eq!(s, 200, "the holder is not locked out: {v}");
    // once checked, the right token passes from anywhere
    assert_eq!(query_from(&addr, "127.0.0.2", ANA, sql).0, 200);
}

/// Reads from `s` until the peer closes the connection: what was received, or None when
/// the bound passed first.
fn until_closed(mut s: TcpStream) -> Option<String> {
    let start = Instant::now();
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        match s.read(&mut buf) {
            Ok(0) => return Some(String::from_utf8_lossy(&got).into_owned()),
            Ok(n) => got.extend_from_slice(&buf[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => {
                return Some(String::from_utf8_lossy(&got).into_owned())
            }
            Err(_) if start.elapsed() < BOUND => {}
            Err(_) => return None,
        }
    }
}

/// Item 4: a client that sends half a request head, or half a body, is cut off; the
/// connections of one address are capped while other addresses are still served.
#[test]
fn slow_clients_are_cut_off_and_capped() {
    let center = center_with(
        "header_timeout_seconds = 1\nbody_timeout_seconds = 1\nmax_connections_per_client = 3",
    );
    let server = Server::start(center.path());
    let addr = server.addr.clone();
    // half a head
    let mut s = connect_from(&addr, "127.0.0.1");
    s.write_all(b"POST /query HTTP/1.1\r\nHost: x\r\n").unwrap();
    assert!(
        until_closed(s).is_some(),
        "a half-sent head holds its connection"
    );
    // a whole head, half a body: 408 in JSON, and the connection closes
    let mut s = connect_from(&addr, "127.0.0.1");
    s.write_all(
        format!(
            "POST /query HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {ANA}\r\n\
             Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{{\"sql\":"
        )
        .as_bytes(),
    )
    .unwrap();
    let answer = until_closed(s).expect("a half-sent body holds its connection");
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    let body = answer.split_once("\r\n\r\n").unwrap().1;
    let v: Value = serde_json::from_str(body).unwrap_or_else(|_| panic!("{body}"));
    assert_eq!(v["status"], 408);
    // three idle connections fill 127.0.0.1's share: a fourth gets 503, another address
    // is served
    let idle: Vec<TcpStream> = (0..3).map(|_| connect_from(&addr, "127.0.0.1")).collect();
    let health = "GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
    // the idle ones are counted once accepted: retry the check until the server has them
    let refused = (0..200).find_map(|_| {
        let (status, _, body) = request_from(&addr, "127.0.0.1", health, b"");
        if status == 503 {
            Some(body)
        } else {
            std::thread::yield_now();
            None
        }
    });
    let body = refused.expect("a fourth connection from the same address is refused");
    assert_eq!(serde_json::from_str::<Value>(&body).unwrap()["status"], 503);
    assert_eq!(request_from(&addr, "127.0.0.2", health, b"").0, 200);
    drop(idle);
}

/// Item 4: SIGTERM ends the service within `shutdown_seconds` while a client holds a
/// connection with half a request head (the head's own timeout is an hour here, so only
/// the deadline can end it).
#[test]
fn sigterm_ends_the_service_whatever_a_slow_client_does() {
    let center = center_with("header_timeout_seconds = 3600\nshutdown_seconds = 1");
    let mut server = Server::start(center.path());
    let addr = server.addr.clone();
    let mut slow = connect_from(&addr, "127.0.0.3");
    slow.write_all(b"GET /health HTTP/1.1\r\n").unwrap();
    // the service has the connection once it answers another
    let health = "GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
    assert_eq!(request_from(&addr, "127.0.0.1", health, b"").0, 200);
    assert!(Command::new("kill")
        .args(["-TERM", &server.child.id().to_string()])
        .status()
        .unwrap()
        .success());
    let start = Instant::now();
    let status = loop {
        if let Some(status) = server.child.try_wait().unwrap() {
            break status;
        }
        assert!(start.elapsed() < BOUND, "SIGTERM did not end the service");
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(status.success(), "{status}");
    drop(slow);
}

/// Item 4: a client that sends requests and never reads the answers loses its connection
/// once a write has waited `write_timeout_seconds`: its place comes back (one place per
/// address here).
#[test]
fn a_client_that_reads_nothing_loses_its_connection() {
    let center = center_with("write_timeout_seconds = 1\nmax_connections_per_client = 1");
    let server = Server::start(center.path());
    let addr = server.addr.clone();
    let stalled = connect_from(&addr, "127.0.0.1");
    let socket = socket2::SockRef::from(&stalled);
    let _ = socket.set_recv_buffer_size(4096);
    let mut writer = stalled.try_clone().unwrap();
    // pipelined requests, never read, until the server closes the connection
    let sender = std::thread::spawn(move || {
        let request = b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n".repeat(256);
        let start = Instant::now();
        while start.elapsed() < BOUND {
            if writer.write_all(&request).is_err() {
                return true;
            }
        }
        false
    });
    // the place is held while the client stalls; it comes back once the server gives up
    let health = "GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
    let start = Instant::now();
    loop {
        let (status, _, _) = request_from(&addr, "127.0.0.1", health, b"");
        if status == 200 {
            break;
        }
        assert_eq!(status, 503);
        assert!(
            start.elapsed() < BOUND,
            "the stalled connection kept its place"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(
        sender.join().unwrap(),
        "the server never closed the stalled connection"
    );
    drop(stalled);
}

/// Item 5: a rejected request's text is kept bounded in the audit log (a 65,000-character
/// one used to be stored whole), and a user's queries are rate-limited: those over the
/// rate get 429 and add nothing to the log.
#[test]
fn the_audit_log_grows_boundedly() {
    let center = center_with("queries_per_minute = 4");
    let server = Server::start(center.path());
    let long = format!("SELECT {} FROM patients", "x".repeat(65_000));
    let (s, v) = server.query(ANA, &long);
    assert_eq!(s, 400, "{v}");
    let entry = server.audit().pop().unwrap();
    assert_eq!(entry["outcome"], "rejected");
    let kept = entry["query"].as_str().unwrap();
    assert!(
        kept.len() <= 1024 && long.starts_with(kept),
        "{}",
        kept.len()
    );
    assert_eq!(entry["query_bytes"], long.len());
    assert_eq!(entry["query_sha256"].as_str().map(str::len), Some(64));
    assert!(entry["reason"].as_str().unwrap().chars().count() < 700);
    let before = server.audit().len();
    // the long query took one of the four; one comes back every 15 s, so twelve more
    // meet the limit unless the run takes minutes
    let statuses: Vec<u16> = (0..12)
        .map(|_| server.query(ANA, "SELECT sex FROM patients").0)
        .collect();
    assert_eq!(statuses[..3], [200, 200, 200], "{statuses:?}");
    assert!(
        statuses.iter().all(|&s| s == 200 || s == 429),
        "{statuses:?}"
    );
    let answered = statuses.iter().filter(|&&s| s == 200).count();
    assert!(answered < 12, "the rate was never met: {statuses:?}");
    assert_eq!(
        server.audit().len(),
        before + answered,
        "no entry for a query over the rate"
    );
}

/// Item 5: when the database cannot grow (here capped; a full disk alike), queries are
/// refused with 503, never answered without their audit entry; every answer received is
/// in the log.
#[test]
fn a_full_database_refuses_queries() {
    let center = centers().remove(0);
    // the database's size with the table imported and the users made
    drop(Server::start(center.path()));
    let size = std::fs::metadata(center.path().join("center.db"))
        .unwrap()
        .len()
        + std::fs::metadata(center.path().join("center.db-wal")).map_or(0, |m| m.len());
    let toml = center.path().join("center.toml");
    let text = std::fs::read_to_string(&toml).unwrap().replace(
        "table = \"patients\"",
        &format!(
            "table = \"patients\"\nqueries_per_minute = 100000\ndatabase_max_bytes = {}",
            size + 96 * 1024
        ),
    );
    std::fs::write(&toml, text).unwrap();
    let server = Server::start(center.path());
    let mut answered = Vec::new();
    let mut full = None;
    for i in 0..5000 {
        let sql = format!(
            "SELECT sex, diagnosis FROM patients WHERE age > {}",
            20 + i % 50
        );
        let (s, v) = server.query(ADMIN, &sql);
        match s {
            200 | 403 => answered.push(v["audit_id"].as_i64().unwrap()),
            503 => {
                full = Some(v);
                break;
            }
            _ => panic!("{s}: {v}"),
        }
    }
    let v = full.expect("the capped database fills up");
    assert!(
        v["error"]
            .as_str()
            .unwrap()
            .contains("audit log cannot be written"),
        "{v}"
    );
    assert!(v.get("audit_id").is_none(), "{v}");
    let ids: Vec<i64> = server
        .audit()
        .iter()
        .filter_map(|e| e["id"].as_i64())
        .collect();
    assert!(!answered.is_empty());
    for id in &answered {
        assert!(ids.contains(id), "answer {id} is missing from the log");
    }
}

/// Item 7: the admin's settings cannot point a hierarchy or the `[safety]` file at a
/// file outside the center's directory (its contents used to be echoed in the error).
#[test]
fn settings_read_no_file_outside_the_center() {
    let center = centers().remove(0);
    let outside = tempfile::tempdir().unwrap();
    let secret = outside.path().join("secret.csv");
    std::fs::write(&secret, "TOPSECRET-1;x\nTOPSECRET-2;y\n").unwrap();
    let server = Server::start(center.path());
    let relative = format!(
        "../{}/secret.csv",
        outside.path().file_name().unwrap().to_string_lossy()
    );
    let sections = [
        json!({"safety": {"file": secret.display().to_string(), "column": "name"}}),
        json!({"attributes": {"zip": {"role": "quasi-identifying", "hierarchy": secret.display().to_string()}}}),
        json!({"attributes": {"zip": {"role": "quasi-identifying", "hierarchy": relative}}}),
    ];
    // the relative one must escape the center's own directory to reach it
    assert!(outside.path().parent() == center.path().parent());
    for body in sections {
        let (s, v) = server.call("PUT", "/admin/settings", Some(ADMIN), &body.to_string());
        assert_eq!(s, 400, "{body}: {v}");
        let e = v["error"].as_str().unwrap();
        assert!(e.contains("must lie in the center's directory"), "{e}");
        assert!(!e.contains("TOPSECRET"), "{e}");
    }
    // a link inside the center's directory that leads out is followed, and refused, with
    // the same message whether the file behind it exists or not
    std::os::unix::fs::symlink(outside.path(), center.path().join("link")).unwrap();
    for name in ["secret.csv", "missing.csv"] {
        let body = json!({"safety": {"file": format!("link/{name}"), "column": "name"}});
        let (s, v) = server.call("PUT", "/admin/settings", Some(ADMIN), &body.to_string());
        assert_eq!(s, 400, "{v}");
        let e = v["error"].as_str().unwrap();
        assert!(e.contains("must lie in"), "{name}: {e}");
    }
    // the config and the database are never read as settings files
    for name in ["center.toml", "center.db"] {
        let body = json!({"attributes": {"zip": {"role": "quasi-identifying", "hierarchy": name}}});
        let (s, v) = server.call("PUT", "/admin/settings", Some(ADMIN), &body.to_string());
        assert_eq!(s, 400, "{v}");
        assert!(
            v["error"]
                .as_str()
                .unwrap()
                .contains("neither the config nor"),
            "{v}"
        );
    }
    // a file inside the center's directory is read as before
    std::fs::write(
        center.path().join("zip.csv"),
        std::fs::read_to_string(center.path().join("center.csv"))
            .unwrap()
            .lines()
            .skip(1)
            .map(|l| l.split(',').nth(2).unwrap().to_string())
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .map(|z| format!("{z};*\n"))
            .collect::<String>(),
    )
    .unwrap();
    let body =
        json!({"attributes": {"zip": {"role": "quasi-identifying", "hierarchy": "zip.csv"}}});
    let (s, v) = server.call("PUT", "/admin/settings", Some(ADMIN), &body.to_string());
    assert_eq!(s, 200, "{v}");
    drop(server);
    // a directory of [service] files is allowed too
    let toml = center.path().join("center.toml");
    let text = std::fs::read_to_string(&toml).unwrap().replace(
        "table = \"patients\"",
        &format!(
            "table = \"patients\"\nfiles = [{:?}]",
            outside.path().display().to_string()
        ),
    );
    std::fs::write(&toml, text).unwrap();
    std::fs::copy(
        center.path().join("zip.csv"),
        outside.path().join("zip.csv"),
    )
    .unwrap();
    let server = Server::start(center.path());
    let zip = outside.path().join("zip.csv").display().to_string();
    let body = json!({"attributes": {"zip": {"role": "quasi-identifying", "hierarchy": zip}}});
    let (s, v) = server.call("PUT", "/admin/settings", Some(ADMIN), &body.to_string());
    assert_eq!(s, 200, "{v}");
}

/// Item 8: every error of the API is the documented JSON, and echoes what a client sent
/// only cut short; `body_limit = 0` is refused.
#[test]
fn every_error_is_json_and_echoes_little() {
    let center = centers().remove(0);
    let server = Server::start(center.path());
    let addr = server.addr.clone();
    let check = |status: u16, v: &Value, what: &str| {
        assert_eq!(v["status"], status, "{what}: {v}");
        assert!(v["error"].is_string(), "{what}: {v}");
    };
    let (s, v) = server.call("GET", "/admin/audit?after=abc", Some(ADMIN), "");
    assert_eq!(s, 400);
    check(400, &v, "a bad query string");
    let (s, v) = server.call("GET", "/query", Some(ANA), "");
    assert_eq!(s, 405);
    check(405, &v, "a method not allowed");
    let head = format!(
        "GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\nX-Big: {}\r\n\r\n",
        "a".repeat(20_000)
    );
    let (s, _, body) = request_from(&addr, "127.0.0.1", &head, b"");
    assert_eq!(s, 431);
    check(
        431,
        &serde_json::from_str(&body).unwrap_or(Value::String(body.clone())),
        "a head too large",
    );
    // a number too small to be one (the database refuses it as out of range): a 400
    let (s, v) = server.query(ANA, "SELECT sex FROM patients WHERE age = 1e-400");
    assert_eq!(s, 400, "{v}");
    check(400, &v, "a number out of range");
    let column = "c".repeat(16_000);
    let (s, v) = server.query(ANA, &format!("SELECT {column} FROM patients"));
    assert_eq!(s, 400);
    let e = v["error"].as_str().unwrap();
    assert!(e.chars().count() < 700, "{} characters", e.chars().count());
    assert!(e.contains("cut"), "{e}");
    drop(server);
    // a body limit of 0 would refuse every body: a configuration error
    let center = center_with("body_limit = 0");
    let out = Command::new(env!("CARGO_BIN_EXE_cellsafe"))
        .arg("serve")
        .arg(center.path().join("center.toml"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("service.body_limit"), "{err}");
}
