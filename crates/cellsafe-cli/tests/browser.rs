//! The admin web page in a real headless browser (Chromium driven through chromedriver):
//! sign in, change a setting, let an analyst query over HTTP, and find the query in the
//! audit view. Skips with a message when chromedriver or Chromium is not installed
//! (`apt-get install chromium chromium-driver`; `.ci/run` installs them).

#![cfg(feature = "service")]

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;

use fantoccini::Locator;

mod common;

use common::browser::{find_soon, Browser, Killed};

const ADMIN: &str = "admin.9f2c4e7a1b8d3f60c5e2a7b94d1f8e3c6a0b5d2e7f4c1a8b3e6d9f2c5a8b1e4d";
const ANA: &str = "ana.3b8e1f6a9c2d5e0f7a4b1c8d3e6f9a2b5c8d1e4f7a0b3c6d9e2f5a8b1c4d7e0f";

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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_admin_changes_a_setting_and_sees_an_analysts_query_in_the_audit_view() {
    let Some(browser) = Browser::start("the admin page in a browser", 1200, 900).await else {
        return;
    };
    let client = browser.client.clone();
    let dir = tempfile::tempdir().unwrap();
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/service");
    for f in ["center.csv", "center.toml"] {
        std::fs::copy(example.join(f), dir.path().join(f)).unwrap();
    }
    let (_service, addr) = start_service(dir.path());
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
