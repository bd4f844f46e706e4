//! `cellsafe serve` as a recipient and an admin meet it: the example center started on a
//! free port, every endpoint exercised over HTTP, accumulated knowledge across queries and
//! restarts, authorization, the audit log's survival of `kill -9`, and SIGTERM.

#![cfg(feature = "service")]

use std::path::Path;
use std::process::{Child, Command};
use std::time::Duration;

use serde_json::{json, Value};

mod common;

use common::center::*;

#[test]
fn every_endpoint_as_an_analyst_and_an_admin() {
    for center in centers() {
        eprintln!("backend: {}", center.backend);
        every_endpoint(center.path());
    }
}

fn every_endpoint(dir: &Path) {
    let server = Server::start(dir);
    let (s, v) = server.call("GET", "/health", None, "");
    assert_eq!((s, v["status"].as_str()), (200, Some("ok")));
    let (s, v) = server.call("GET", "/openapi.json", None, "");
    assert_eq!(s, 200);
    for p in [
        "/query",
        "/admin/audit",
        "/admin/users",
        "/admin/settings",
        "/tables",
    ] {
        assert!(
            v["paths"][p].is_object(),
            "{p} missing from the OpenAPI description"
        );
    }
    let (s, v) = server.call("GET", "/tables", Some(ANA), "");
    assert_eq!(s, 200);
    let names: Vec<&str> = v[0]["columns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        ["zip", "age", "sex", "diagnosis"],
        "only the granted columns"
    );

    // released as asked, then the differencing pair's second half refused
    let (s, a) = server.query(ANA, Q1);
    assert_eq!(s, 200, "{a}");
    assert_eq!(a["outcome"], "released");
    let released = a["rows"].as_array().unwrap().len();
    assert!(released > 100);
    let (s, r) = server.query(ANA, Q2);
    assert_eq!((s, r["outcome"].as_str()), (403, Some("refused")), "{r}");
    // the admin, who never asked Q1, gets Q2 as asked
    let (s, a) = server.query(ADMIN, Q2);
    assert_eq!((s, a["outcome"].as_str()), (200, Some("released")), "{a}");
    assert_eq!(a["rows"].as_array().unwrap().len(), released - 1);
    // identifying columns are dropped by the filter (the admin may name them)
    let (s, a) = server.query(ADMIN, "SELECT name, sex FROM patients");
    assert_eq!(s, 200, "{a}");
    assert_eq!(a["dropped"], json!(["name"]));
    assert_eq!(a["columns"], json!(["sex"]));

    // bad input: a clear 4xx with a JSON error, and an audit entry naming the reason
    for (token, body, status, text) in [
        (
            Some(ANA),
            json!({"sql": "SELEC x"}).to_string(),
            400,
            "malformed SQL",
        ),
        (
            Some(ANA),
            json!({"sql": "SELECT age FROM patients WHERE age = 1 OR age = 2"}).to_string(),
            400,
            "OR",
        ),
        (
            Some(ANA),
            json!({"sql": "SELECT nope FROM patients"}).to_string(),
            400,
            "unknown column",
        ),
        (
            Some(ANA),
            json!({"sql": "SELECT age FROM others"}).to_string(),
            404,
            "unknown table",
        ),
        (
            Some(ANA),
            json!({"sql": "SELECT name FROM patients"}).to_string(),
            403,
            "not granted",
        ),
        (
            Some(ANA),
            json!({"sql": "SELECT age FROM patients WHERE id = 'P0001'"}).to_string(),
            403,
            "not granted",
        ),
        (
            Some(ADMIN),
            json!({"sql": "SELECT age FROM patients WHERE id = 'P0001'"}).to_string(),
            400,
            "identifying",
        ),
        (
            Some(ANA),
            json!({"sql": "SELECT age FROM patients WHERE sex < 'M'"}).to_string(),
            400,
            "not numeric",
        ),
        (Some(ANA), "{not json".to_string(), 400, ""),
        (Some(ANA), json!({"query": "x"}).to_string(), 422, ""),
        (None, json!({"sql": Q1}).to_string(), 401, "missing token"),
        (
            Some("ana.0000"),
            json!({"sql": Q1}).to_string(),
            401,
            "invalid token",
        ),
        (
            Some("nobody.0000"),
            json!({"sql": Q1}).to_string(),
            401,
            "invalid token",
        ),
        (
            Some("garbage"),
            json!({"sql": Q1}).to_string(),
            401,
            "malformed token",
        ),
    ] {
        let (s, v) = server.call("POST", "/query", token, &body);
        assert_eq!(s, status, "{body}: {v}");
        let error = v["error"]
            .as_str()
            .unwrap_or_else(|| panic!("no JSON error: {v}"));
        assert!(error.contains(text), "{body}: {error}");
        assert_eq!(v["status"], status);
    }
    // an oversize body
    let big = json!({ "sql": format!("SELECT age FROM patients WHERE zip IN ({})", vec!["'1'"; 30_000].join(",")) }).to_string();
    let (s, v) = http(&server.addr, "POST", "/query", Some(ANA), big.as_bytes());
    assert_eq!(s, 413);
    let v: Value = serde_json::from_str(&v).unwrap_or_else(|_| panic!("no JSON error: {v}"));
    assert_eq!(v["status"], 413, "{v}");
    let (s, _) = server.call("GET", "/nothing", None, "");
    assert_eq!(s, 404);

    // an analyst reaches no admin endpoint
    for (method, path) in [
        ("GET", "/admin/audit"),
        ("GET", "/admin/users"),
        ("GET", "/admin/settings"),
        ("PUT", "/admin/settings"),
        ("POST", "/admin/users"),
        ("DELETE", "/admin/users/admin"),
    ] {
        let (s, v) = server.call(method, path, Some(ANA), "{}");
        assert_eq!(s, 403, "{method} {path}: {v}");
    }

    // the audit log: every request of a signed-in user, in order, nothing deleted
    let log = server.audit();
    let outcomes: Vec<&str> = log.iter().map(|e| e["outcome"].as_str().unwrap()).collect();
    assert_eq!(
        &outcomes[..4],
        ["released", "refused", "released", "released"]
    );
    assert_eq!(log[0]["query"], Q1);
    assert_eq!(log[0]["user"], "ana");
    // levels and the verdict are JSON values, read with one parse (not strings of JSON)
    for e in &log[..4] {
        assert!(e["levels"].is_object(), "{e}");
        assert_eq!(e["detail"]["outcome"], e["outcome"], "{e}");
        assert_eq!(e["detail"]["levels"], e["levels"], "{e}");
        assert_eq!(e["detail"]["rows"], e["rows"], "{e}");
    }
    assert_eq!(
        log[1]["reason"].as_str().map(|r| r.contains("safe")),
        Some(true)
    );
    assert!(log.iter().any(|e| e["reason"]
        .as_str()
        .is_some_and(|r| r.contains("not granted"))));
    assert_eq!(
        log.iter().filter(|e| e["outcome"] == "rejected").count(),
        10,
        "each rejected request of a signed-in user is logged (the oversize body is \
         refused before it is read, so before its sender is known)"
    );

    // users: create, use, re-token, grant, delete
    let (s, t) = server.call(
        "POST",
        "/admin/users",
        Some(ADMIN),
        &json!({"name": "bo", "role": "analyst", "grants": {"patients": ["age", "diagnosis"]}})
            .to_string(),
    );
    assert_eq!(s, 201, "{t}");
    let bo = t["token"].as_str().unwrap().to_string();
    let (s, _) = server.query(&bo, "SELECT age, diagnosis FROM patients");
    assert_eq!(s, 200);
    let (s, _) = server.query(&bo, "SELECT zip FROM patients");
    assert_eq!(s, 403);
    let (s, _) = server.call(
        "PUT",
        "/admin/users/bo/grants",
        Some(ADMIN),
        &json!({"table": "patients", "columns": ["zip"]}).to_string(),
    );
    assert_eq!(s, 204);
    assert_eq!(server.query(&bo, "SELECT zip FROM patients").0, 200);
    let (s, _) = server.call(
        "POST",
        "/admin/users",
        Some(ADMIN),
        &json!({"name": "bo", "role": "analyst"}).to_string(),
    );
    assert_eq!(s, 409);
    let (s, _) = server.call(
        "POST",
        "/admin/users",
        Some(ADMIN),
        &json!({"name": "b o", "role": "analyst"}).to_string(),
    );
    assert_eq!(s, 400);
    let (s, t2) = server.call("POST", "/admin/users/bo/token", Some(ADMIN), "");
    assert_eq!(s, 200);
    assert_eq!(
        server.query(&bo, "SELECT zip FROM patients").0,
        401,
        "the old token stops working"
    );
    let bo2 = t2["token"].as_str().unwrap().to_string();
    assert_eq!(server.query(&bo2, "SELECT zip FROM patients").0, 200);
    let (s, users) = server.call("GET", "/admin/users", Some(ADMIN), "");
    assert_eq!(s, 200);
    assert_eq!(users.as_array().unwrap().len(), 3);
    assert!(
        !users.to_string().contains("argon2"),
        "no hash leaves the service"
    );
    assert_eq!(
        server.call("DELETE", "/admin/users/bo", Some(ADMIN), "").0,
        204
    );
    assert_eq!(server.query(&bo2, "SELECT zip FROM patients").0, 401);
    assert_eq!(
        server.call("DELETE", "/admin/users/bo", Some(ADMIN), "").0,
        404
    );

    // settings: read, change (checked before kept), refuse what does not build
    let (s, set) = server.call("GET", "/admin/settings", Some(ADMIN), "");
    assert_eq!(s, 200);
    assert_eq!(set["privacy"][0]["k"], 3);
    let (s, v) = server.call(
        "PUT",
        "/admin/settings",
        Some(ADMIN),
        &json!({"privacy": [{"model": "k-anonymity", "k": 1000}]}).to_string(),
    );
    assert_eq!(s, 200, "{v}");
    assert!(v["toml"].as_str().unwrap().contains("k = 1000"));
    let (s, v) = server.query(ADMIN, "SELECT sex FROM patients WHERE age < 30");
    assert_eq!(
        (s, v["outcome"].as_str()),
        (403, Some("refused")),
        "fewer than 1000 rows: {v}"
    );
    let (s, v) = server.call(
        "PUT",
        "/admin/settings",
        Some(ADMIN),
        &json!({"privacy": [{"model": "distinct-l-diversity", "attribute": "nope", "l": 2}]})
            .to_string(),
    );
    assert_eq!(s, 400, "{v}");
    assert!(v["error"].as_str().unwrap().contains("privacy[0]"), "{v}");
    let (s, v) = server.call(
        "PUT",
        "/admin/settings",
        Some(ADMIN),
        &json!({"input": {}}).to_string(),
    );
    assert_eq!(s, 400, "{v}");
    let (_, set) = server.call("GET", "/admin/settings", Some(ADMIN), "");
    assert_eq!(
        set["privacy"][0]["k"], 1000,
        "a refused change leaves the settings as they were"
    );
}

/// What a user received is remembered across a restart (it is rebuilt from the audit
/// log), and so are the admin's settings.
#[test]
fn knowledge_and_settings_survive_a_restart() {
    for center in centers() {
        eprintln!("backend: {}", center.backend);
        restart(center.path());
    }
}

fn restart(dir: &Path) {
    let server = Server::start(dir);
    assert_eq!(server.query(ANA, Q1).0, 200);
    let (s, _) = server.call(
        "PUT",
        "/admin/settings",
        Some(ADMIN),
        &json!({"gatekeeper": {"max_tests": 7}}).to_string(),
    );
    assert_eq!(s, 200);
    drop(server);
    let server = Server::start(dir);
    let (s, r) = server.query(ANA, Q2);
    assert_eq!((s, r["outcome"].as_str()), (403, Some("refused")), "{r}");
    let (_, set) = server.call("GET", "/admin/settings", Some(ADMIN), "");
    assert_eq!(set["gatekeeper"]["max_tests"], 7);
}

fn signal(child: &Child, name: &str) {
    let ok = Command::new("kill")
        .args([name, &child.id().to_string()])
        .status()
        .unwrap()
        .success();
    assert!(ok, "kill {name}");
}

type Answers = std::sync::Arc<std::sync::Mutex<Vec<(i64, String)>>>;

/// Requests answered from several threads, until the test has `stop_after` answers or
/// the service stops answering; returns (audit id, query) of every answer received.
fn burst(addr: &str, threads: usize, stop_after: usize) -> Vec<(i64, String)> {
    burst_into(addr, threads, stop_after, Answers::default())
}

/// [`burst`], each answer added to `got` as it arrives.
fn burst_into(addr: &str, threads: usize, stop_after: usize, got: Answers) -> Vec<(i64, String)> {
    let handles: Vec<_> = (0..threads)
        .map(|t| {
            let (addr, got) = (addr.to_string(), got.clone());
            std::thread::spawn(move || {
                for i in 0.. {
                    if got.lock().unwrap().len() >= stop_after {
                        return;
                    }
                    let sql = format!(
                        "SELECT sex, diagnosis FROM patients WHERE age > {}",
                        20 + (t * 7 + i) % 50
                    );
                    let body = json!({ "sql": sql }).to_string();
                    let result = std::panic::catch_unwind(|| {
                        http(&addr, "POST", "/query", Some(ADMIN), body.as_bytes())
                    });
                    let Ok((_, text)) = result else { return };
                    let Ok(v) = serde_json::from_str::<Value>(&text) else {
                        return;
                    };
                    if let Some(id) = v["audit_id"].as_i64() {
                        got.lock().unwrap().push((id, sql));
                    }
                }
            })
        })
        .collect();
    for h in handles {
        let _ = h.join();
    }
    let got = got.lock().unwrap().clone();
    got
}

/// kill -9 during a burst of queries: after a restart, every answer a client received is
/// in the audit log with its query.
#[test]
fn the_audit_log_survives_kill_9() {
    for center in centers() {
        eprintln!("backend: {}", center.backend);
        kill_9(center.path());
    }
}

fn kill_9(dir: &Path) {
    let mut server = Server::start(dir);
    let addr = server.addr.clone();
    let got = Answers::default();
    // the kill comes once five answers have arrived, however long they take
    let killer = {
        let pid = server.child.id();
        let got = got.clone();
        std::thread::spawn(move || {
            let start = std::time::Instant::now();
            while got.lock().unwrap().len() < 5 && start.elapsed() < Duration::from_secs(120) {
                std::thread::sleep(Duration::from_millis(5));
            }
            Command::new("kill")
                .args(["-9", &pid.to_string()])
                .status()
                .unwrap();
        })
    };
    let answered = burst_into(&addr, 6, usize::MAX, got);
    killer.join().unwrap();
    let _ = server.child.wait();
    assert!(
        answered.len() >= 5,
        "only {} answers before the kill",
        answered.len()
    );
    let server = Server::start(dir);
    let log = server.audit();
    for (id, sql) in &answered {
        let e = log
            .iter()
            .find(|e| e["id"].as_i64() == Some(*id))
            .unwrap_or_else(|| panic!("answer {id} is missing from the log"));
        assert_eq!(e["query"].as_str(), Some(sql.as_str()));
    }
}

/// SIGTERM: the service stops cleanly (exit 0), and every answer sent is logged.
#[test]
fn sigterm_stops_after_the_answers_in_flight() {
    for center in centers() {
        eprintln!("backend: {}", center.backend);
        sigterm(center.path());
    }
}

fn sigterm(dir: &Path) {
    let mut server = Server::start(dir);
    let addr = server.addr.clone();
    let pid_child = &server.child;
    let answered = std::thread::scope(|s| {
        let h = s.spawn(|| burst(&addr, 4, usize::MAX));
        std::thread::sleep(Duration::from_millis(800));
        signal(pid_child, "-TERM");
        h.join().unwrap()
    });
    let status = server.child.wait().unwrap();
    assert!(status.success(), "{status}");
    assert!(!answered.is_empty());
    let server = Server::start(dir);
    let ids: Vec<i64> = server
        .audit()
        .iter()
        .filter_map(|e| e["id"].as_i64())
        .collect();
    for (id, _) in &answered {
        assert!(ids.contains(id), "answer {id} is missing from the log");
    }
}

#[test]
fn a_bad_service_section_is_named() {
    let center = &centers()[0];
    let path = center.path().join("center.toml");
    let text = std::fs::read_to_string(&path)
        .unwrap()
        .replace("table = \"patients\"", "tabel = \"patients\"");
    std::fs::write(&path, text).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_cellsafe"))
        .arg("serve")
        .arg(&path)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("config key `service`") && err.contains("tabel"),
        "{err}"
    );
}

/// Wrong tokens in a row lock a user name for a while: even the right token waits, unless
/// it was checked before the lock; other users are not affected.
#[test]
fn wrong_tokens_lock_a_name_for_a_while() {
    let center = centers().remove(0);
    let toml = center.path().join("center.toml");
    let text = std::fs::read_to_string(&toml).unwrap().replace(
        "table = \"patients\"",
        "table = \"patients\"\nfailed_logins = 2\nlockout_seconds = 2",
    );
    std::fs::write(&toml, text).unwrap();
    let server = Server::start(center.path());
    let sql = "SELECT sex FROM patients";
    // the admin's token is checked (and remembered) before the lock
    assert_eq!(server.query(ADMIN, sql).0, 200);
    let wrong_admin = "admin.0000";
    let wrong_ana = "ana.0000";
    for _ in 0..2 {
        assert_eq!(server.query(wrong_ana, sql).0, 401);
        assert_eq!(server.query(wrong_admin, sql).0, 401);
    }
    let (s, v) = server.query(ANA, sql);
    assert_eq!(s, 429, "{v}");
    assert!(
        v["error"]
            .as_str()
            .unwrap()
            .contains("too many wrong tokens"),
        "{v}"
    );
    assert_eq!(server.query(wrong_ana, sql).0, 429, "no check while locked");
    assert_eq!(
        server.query(ADMIN, sql).0,
        200,
        "a token checked before the lock still passes"
    );
    // the lock passes after lockout_seconds: wait for it, not for the clock
    let start = std::time::Instant::now();
    while server.query(ANA, sql).0 == 429 {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "the lock never passed"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    assert_eq!(server.query(ANA, sql).0, 200, "the lock has passed");
}

/// `decide = "public"` set through the admin API: the differencing pair is refused because
/// one patient is aged 40 (fewer than k), which the analyst can count without any
/// diagnosis; a condition on the diagnosis is a 400.
#[test]
fn public_decisions_through_the_admin_api() {
    let center = centers().remove(0);
    let server = Server::start(center.path());
    let (s, v) = server.call(
        "PUT",
        "/admin/settings",
        Some(ADMIN),
        &json!({"gatekeeper": {"decide": "public"}}).to_string(),
    );
    assert_eq!(s, 200, "{v}");
    assert_eq!(server.query(ANA, Q1).0, 200);
    let (s, r) = server.query(ANA, Q2);
    assert_eq!((s, r["outcome"].as_str()), (403, Some("refused")), "{r}");
    let last = server.audit().pop().unwrap();
    assert!(
        last.to_string()
            .contains("k-anonymity of everything received"),
        "{last}"
    );
    let (s, r) = server.query(ANA, "SELECT age FROM patients WHERE diagnosis = 'HIV'");
    assert_eq!(s, 400, "{r}");
    assert!(
        r["error"]
            .as_str()
            .unwrap()
            .contains("not quasi-identifying"),
        "{r}"
    );
}
