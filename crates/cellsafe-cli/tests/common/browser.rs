//! A headless Chromium driven through chromedriver, for the tests of the web pages (the
//! admin page, the studio). `Browser::start` says the test was skipped, and gives None,
//! when chromedriver or Chromium is not installed.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use fantoccini::{Client, ClientBuilder, Locator};

/// A child process killed when dropped.
pub struct Killed(pub Child);

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

/// chromedriver and the session it drives.
pub struct Browser {
    /// The session.
    pub client: Client,
    _driver: Killed,
}

impl Browser {
    /// A new headless browser (a window of `width` × `height`), or None (the test then
    /// says it was skipped, naming `what`) when chromedriver or Chromium is missing.
    pub async fn start(what: &str, width: u32, height: u32) -> Option<Browser> {
        let (Some(driver), Some(chromium)) = (
            found("chromedriver"),
            found("chromium").or_else(|| found("chromium-browser")),
        ) else {
            super::skipped(&format!(
                "{what}: chromedriver or chromium not found (apt-get install chromium \
                 chromium-driver)"
            ));
            return None;
        };
        let port = free_port();
        let driver = Killed(
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
                "args": ["--headless=new", "--no-sandbox", "--disable-gpu",
                         "--disable-dev-shm-usage", format!("--window-size={width},{height}")]
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
                Err(_) if started.elapsed() < Duration::from_secs(30) => {
                    tokio::time::sleep(Duration::from_millis(200)).await;
                }
                Err(e) => panic!("cannot reach chromedriver: {e}"),
            }
        };
        Some(Browser {
            client,
            _driver: driver,
        })
    }
}

/// The session is closed when the browser is dropped, also when a test panics before its
/// own `close` (killing chromedriver alone would leave Chromium running). The close runs
/// on a thread of its own: the test's runtime keeps driving the session meanwhile.
impl Drop for Browser {
    fn drop(&mut self) {
        let client = self.client.clone();
        let closing = std::thread::spawn(move || {
            if let Ok(runtime) = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
            {
                // an error: the test closed the session already
                let _ = runtime.block_on(client.close());
            }
        });
        let _ = closing.join();
    }
}

/// The element with id `id`, once the page shows it (within 30 s).
pub async fn find_soon(
    client: &Client,
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
