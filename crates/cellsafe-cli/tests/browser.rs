//! The admin web page in a real headless browser (Chromium driven through chromedriver):
//! sign in, change a setting, let an analyst query over HTTP, and find the query in the
//! audit view. Skips with a message when chromedriver or Chromium is not installed
//! (`apt-get install chromium chromium-driver`; `.ci/run` installs them).

#![cfg(feature = "service")]

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use fantoccini::{ClientBuilder, Locator};

mod common;

const ADMIN: &str = "admin.9f2c4e7a1b8d3f60c5e2a7b94d1f8e3c6a0b5d2e7f4c1a8b3e6d9f2c5a8b1e4d";
const ANA: &str = "ana.3b8e1f6a9c2d5e0f7a4b1c8d3e6f9a2b5c8d1e4f7a0b3c6d9e2f5a8b1c4d7e0f";

/// A child process killed when dropped.
struct Killed(Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn found(program: &str) -> Option<String> {
    ["/usr/bin", "/usr/local/bin", "/snap/bin"]
        .iter()
        .map(|d| Path::new(d).join(program))
        .find(|p| p.exists())
        .map(|p| p.display().to_string())
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn start_service(dir: &Path) -> (Killed, String) {
    let (child, addr) = common::serve(dir);
    (Killed(child), addr)
}

fn post_query(addr: &str, token: &str, sql: &str) -> String {
    let body = serde_json::json!({ "sql": sql }).to_string();
    let mut s = TcpStream::connect(addr).unwrap();
    write!(
        s,
        "POST /query HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\
         Content-Type: application/json\r\nAuthorization: Bearer {token}\r\n\
         Content-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut out = String::new();
    s.read_to_string(&mut out).unwrap();
    out
}

/// The element with id `id`, once the page shows it (within 30 s).
async fn find_soon(
    client: &fantoccini::Client,
    id: &str,
) -> Result<fantoccini::elements::Element, fantoccini::error::CmdError> {
    let started = Instant::now();
    loop {
        match client.find(Locator::Id(id)).await {
            Ok(e) => return Ok(e),
            Err(_) if started.elapsed() < Duration::from_secs(30) => {
                tokio::time::sleep(Duration::from_millis(100)).await
            }
            Err(e) => return Err(e),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_admin_changes_a_setting_and_sees_an_analysts_query_in_the_audit_view() {
    let (Some(driver), Some(chromium)) = (
        found("chromedriver"),
        found("chromium").or_else(|| found("chromium-browser")),
    ) else {
        common::skipped(
            "the admin page in a browser: chromedriver or chromium not found \
             (apt-get install chromium chromium-driver)",
        );
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/service");
    for f in ["center.csv", "center.toml"] {
        std::fs::copy(example.join(f), dir.path().join(f)).unwrap();
    }
    let (_service, addr) = start_service(dir.path());
    let port = free_port();
    let _driver = Killed(
        Command::new(driver)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let mut caps = serde_json::Map::new();
    caps.insert(
        "goog:chromeOptions".into(),
        serde_json::json!({
            "binary": chromium,
            "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"]
        }),
    );
    let webdriver = format!("http://127.0.0.1:{port}");
    let started = Instant::now();
    let client = loop {
        let connector = hyper_util::client::legacy::connect::HttpConnector::new();
        match ClientBuilder::new(connector)
            .capabilities(caps.clone())
            .connect(&webdriver)
            .await
        {
            Ok(c) => break c,
            Err(e) if started.elapsed() < Duration::from_secs(30) => {
                let _ = e;
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
            Err(e) => panic!("cannot reach chromedriver: {e}"),
        }
    };
    let base = format!("http://{addr}");
    let result = async {
        // (each step waits for an element of the page it leads to: a click returns before
        // the next page has loaded)
        let wait = |id: &'static str| find_soon(&client, id);
        // a page needs a session
        client.goto(&format!("{base}/ui/audit")).await?;
        wait("token").await?;
        assert!(client.current_url().await?.path().ends_with("/ui/login"));
        // sign in
        wait("token").await?.send_keys(ADMIN).await?;
        client.find(Locator::Id("sign-in")).await?.click().await?;
        wait("save-models").await?;
        assert!(client.current_url().await?.path().ends_with("/ui/settings"));
        // change a setting: k from 3 to 2
        let k = client.find(Locator::Id("k")).await?;
        assert_eq!(k.prop("value").await?.as_deref(), Some("3"));
        k.clear().await?;
        k.send_keys("2").await?;
        client
            .find(Locator::Id("save-models"))
            .await?
            .click()
            .await?;
        let note = wait("note").await?.text().await?;
        assert_eq!(note, "Saved.");
        let toml = client.find(Locator::Id("toml")).await?.text().await?;
        assert!(toml.contains("k = 2"), "{toml}");
        // a setting the center cannot take is shown as an error and not kept
        let k = client.find(Locator::Id("k")).await?;
        k.clear().await?;
        k.send_keys("zero").await?;
        client
            .find(Locator::Id("save-models"))
            .await?
            .click()
            .await?;
        let error = wait("error").await?.text().await?;
        assert!(error.contains("whole number"), "{error}");
        // the analyst queries, over the API
        let sql = "SELECT sex, diagnosis FROM patients WHERE age > 30";
        let answer = post_query(&addr, ANA, sql);
        assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
        // and the admin sees it in the audit view
        client.goto(&format!("{base}/ui/audit")).await?;
        let table = wait("audit").await?.text().await?;
        assert!(table.contains(sql) && table.contains("ana"), "{table}");
        // signed out, the pages are closed again
        client.goto(&format!("{base}/ui/logout")).await?;
        client.goto(&format!("{base}/ui/settings")).await?;
        wait("token").await?;
        assert!(client.current_url().await?.path().ends_with("/ui/login"));
        Ok::<(), fantoccini::error::CmdError>(())
    }
    .await;
    client.close().await.unwrap();
    result.unwrap();
}
