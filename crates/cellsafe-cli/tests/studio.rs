//! The studio (`cellsafe studio`) in a real headless browser (Chromium driven through
//! chromedriver), as a person who has never seen TOML would use it:
//! - the whole path on Adult, from uploading the table and its hierarchy files to
//!   downloading the release, which must equal `cellsafe anonymize` on the exported TOML
//!   (and is checked for k-anonymity by a counter of its own);
//! - a table named by its path, a hierarchy built in the page with its live preview, and
//!   bad values shown at their fields;
//! - Cancel stops a long search, and nothing is released;
//! - a node clicked on a Pareto front is released, as the exported job releases it;
//! - over HTTP alone: a Parquet table and an LGB job (its bucket tables too) give the
//!   exported job's release byte for byte;
//! - requests without the token are refused, and the page loads nothing from elsewhere.
//!
//! Skips with a message when chromedriver or Chromium is not installed. With
//! `CELLSAFE_STUDIO_SCREENSHOTS=DIR`, each step's screenshot is saved there (how
//! `docs/studio/` is made).

#![cfg(feature = "studio")]

use std::collections::HashMap;
use std::io::{BufRead, BufReader};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use fantoccini::elements::Element;
use fantoccini::error::CmdError;
use fantoccini::{Client, Locator};

mod common;

use common::browser::{find_soon, Browser, Killed};

/// A running studio: the child, its base address and the URL with the token. Its working
/// directory is made inside a temporary directory of the test's (TMPDIR), removed after
/// the child is killed, so that a killed studio leaves nothing behind.
struct Studio {
    _child: Killed,
    _tmp: tempfile::TempDir,
    base: String,
    url: String,
}

fn start_studio() -> Studio {
    let tmp = tempfile::tempdir().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_cellsafe"))
        .args(["studio", "--listen", "127.0.0.1:0"])
        .env("TMPDIR", tmp.path())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let url = loop {
        let line = lines
            .next()
            .expect("the studio printed its address")
            .unwrap();
        if let Some(u) = line.strip_prefix("cellsafe studio: open ") {
            break u.to_owned();
        }
        assert!(!line.starts_with("error"), "{line}");
    };
    std::thread::spawn(move || lines.for_each(drop));
    let base = url.split("/?token=").next().unwrap().to_owned();
    Studio {
        _child: Killed(child),
        _tmp: tmp,
        base,
        url,
    }
}

fn adult() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/adult")
}

/// The Adult table and its hierarchy files, copied into `dir`.
fn copy_adult(dir: &Path) {
    for e in std::fs::read_dir(adult()).unwrap() {
        let p = e.unwrap().path();
        let name = p.file_name().unwrap().to_str().unwrap().to_owned();
        if name == "adult.csv" || name.starts_with("adult_hierarchy_") {
            std::fs::copy(&p, dir.join(name)).unwrap();
        }
    }
}

use common::ADULT_QIS as QIS;

/// Saves a screenshot of the page as `DIR/NAME.png` when `CELLSAFE_STUDIO_SCREENSHOTS`
/// names a directory, with `at` scrolled to the top first.
async fn shot(client: &Client, at: &str, name: &str) -> Result<(), CmdError> {
    let Some(dir) = std::env::var_os("CELLSAFE_STUDIO_SCREENSHOTS") else {
        return Ok(());
    };
    client
        .execute(
            "document.getElementById(arguments[0]).scrollIntoView()",
            vec![at.into()],
        )
        .await?;
    let png = client.screenshot().await?;
    std::fs::write(Path::new(&dir).join(format!("{name}.png")), png).unwrap();
    Ok(())
}

/// Waits until `check` holds (it is asked every 100 ms; the test fails after 5 minutes
/// without it, so that a broken page cannot hang the run).
async fn until<F, Fut>(what: &str, mut check: F) -> Result<(), CmdError>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<bool, CmdError>>,
{
    let started = Instant::now();
    loop {
        if check().await? {
            return Ok(());
        }
        assert!(
            started.elapsed() < Duration::from_secs(300),
            "gave up waiting for {what}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

async fn text(client: &Client, id: &str) -> Result<String, CmdError> {
    client.find(Locator::Id(id)).await?.text().await
}

async fn by_css(client: &Client, css: &str) -> Result<Element, CmdError> {
    client.find(Locator::Css(css)).await
}

/// The column's index in the page (its `role-N` select).
async fn column(client: &Client, name: &str) -> Result<String, CmdError> {
    let e = by_css(client, &format!("select[data-column=\"{name}\"]")).await?;
    Ok(e.attr("id")
        .await?
        .unwrap()
        .trim_start_matches("role-")
        .to_owned())
}

/// Opens the table at `path` through the page's path field, and waits for its profile to
/// say `rows`.
async fn open_path(client: &Client, path: &Path, rows: &str) -> Result<(), CmdError> {
    find_soon(client, "path")
        .await?
        .send_keys(&path.display().to_string())
        .await?;
    click(client, "open").await?;
    until("the table's profile", || async {
        Ok(text(client, "table-summary").await?.contains(rows))
    })
    .await
}

/// Clicks the button with id `id` once no hierarchy preview is pending: a preview that
/// arrives moves what follows it on the page, and a click aimed before the move lands
/// elsewhere (the page counts its pending previews in the body's `data-previews`).
async fn click(client: &Client, id: &str) -> Result<(), CmdError> {
    until("the previews", || previewed(client)).await?;
    client.find(Locator::Id(id)).await?.click().await
}

/// Whether the page has shown every hierarchy preview it asked for (a hierarchy file's
/// upload counts as one until it asks for its preview).
async fn previewed(client: &Client) -> Result<bool, CmdError> {
    let pending = client
        .execute("return document.body.dataset.previews || '0'", vec![])
        .await?;
    Ok(pending.as_str() == Some("0"))
}

/// Chooses `value` in the select with id `id`, once the page shows it.
async fn choose(client: &Client, id: &str, value: &str) -> Result<(), CmdError> {
    find_soon(client, id).await?.select_by_value(value).await
}

/// Gives column `name` the role `role`; its index in the page.
async fn set_role(client: &Client, name: &str, role: &str) -> Result<String, CmdError> {
    let i = column(client, name).await?;
    choose(client, &format!("role-{i}"), role).await?;
    Ok(i)
}

/// The run's state as the page shows it (`running`, `done`, `failed`, `cancelled`).
async fn run_state(client: &Client) -> Result<Option<String>, CmdError> {
    client
        .find(Locator::Id("run-state"))
        .await?
        .attr("data-state")
        .await
}

/// GETs `path` from inside the page (with the token of its address) as text.
async fn fetch(client: &Client, path: &str) -> Result<String, CmdError> {
    let v = client
        .execute_async(
            "const done = arguments[arguments.length - 1];
             const token = new URLSearchParams(location.search).get('token');
             fetch(arguments[0], {headers: {Authorization: 'Bearer ' + token}})
               .then(r => r.text()).then(done, e => done('ERROR ' + e));",
            vec![path.into()],
        )
        .await?;
    Ok(v.as_str().unwrap_or_default().to_owned())
}

/// One HTTP GET without a browser, with the header `extra` if any: (status, body).
fn get(base: &str, path: &str, extra: Option<&str>) -> (u16, String) {
    let addr = base.trim_start_matches("http://");
    let s = TcpStream::connect(addr).unwrap();
    let mut head = format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n");
    if let Some(h) = extra {
        head.push_str(&format!("{h}\r\n"));
    }
    head.push_str("\r\n");
    let (status, _, body) = common::center::exchange(s, &head, b"");
    (status, body)
}

/// Rows per released class of the quasi-identifiers, read from the release `csv`
/// (delimiter `;`), leaving out the suppressed rows (every quasi-identifier `*`).
fn class_sizes(csv: &str) -> (usize, Vec<usize>) {
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(';').collect();
    let at: Vec<usize> = QIS
        .iter()
        .map(|q| header.iter().position(|h| h == q).unwrap())
        .collect();
    let mut classes: HashMap<Vec<String>, usize> = HashMap::new();
    let mut suppressed = 0;
    for line in lines {
        let cells: Vec<&str> = line.split(';').collect();
        let key: Vec<String> = at.iter().map(|&i| cells[i].to_owned()).collect();
        if key.iter().all(|c| c == "*") {
            suppressed += 1;
        } else {
            *classes.entry(key).or_insert(0) += 1;
        }
    }
    (suppressed, classes.into_values().collect())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn adult_from_uploading_to_downloading_is_the_release_of_the_exported_job() {
    let Some(browser) = Browser::start("the studio in a browser", 1400, 1000).await else {
        return;
    };
    let client = browser.client.clone();
    let studio = start_studio();
    let data = tempfile::tempdir().unwrap();
    copy_adult(data.path());
    // without the token nothing is served
    let token = studio.url.split("token=").nth(1).unwrap().to_owned();
    for path in [
        "/",
        "/api/table",
        "/app.js",
        "/download/release",
        "/?token=0",
    ] {
        let (status, _) = get(&studio.base, path, None);
        assert_eq!(status, 403, "{path}");
    }
    // the calls take the token in the Authorization header (the page alone in a query)
    for header in [
        format!("Cookie: token={token}"),
        format!("Authorization: {token}"),
    ] {
        let (status, _) = get(&studio.base, "/api/table", Some(&header));
        assert_eq!(status, 403, "{header}");
    }
    let bearer = format!("Authorization: Bearer {token}");
    let (status, _) = get(&studio.base, "/api/table", Some(&bearer));
    assert_eq!(status, 200);
    let (status, _) = get(&studio.base, &format!("/?token={token}"), None);
    assert_eq!(status, 200);
    let result = async {
        client.goto(&studio.url).await?;
        // 1. the table, uploaded
        find_soon(&client, "upload-file")
            .await?
            .send_keys(&data.path().join("adult.csv").display().to_string())
            .await?;
        click(&client, "upload").await?;
        until("the table's profile", || async {
            Ok(text(&client, "table-summary")
                .await?
                .contains("30,162 rows"))
        })
        .await?;
        let columns = text(&client, "columns").await?;
        assert!(columns.contains("Male (20380)"), "{columns}");
        shot(&client, "step-table", "1-table").await?;
        // 2. roles
        for q in QIS {
            set_role(&client, q, "quasi-identifying").await?;
        }
        set_role(&client, "occupation", "sensitive").await?;
        shot(&client, "step-roles", "2-roles").await?;
        // 3. hierarchies: ARX files, uploaded; each previewed
        for q in QIS {
            let i = column(&client, q).await?;
            choose(&client, &format!("hkind-{i}"), "file").await?;
            let file = data.path().join(format!("adult_hierarchy_{q}.csv"));
            client
                .find(Locator::Id(&format!("hfile-{i}")))
                .await?
                .send_keys(&file.display().to_string())
                .await?;
            // the file's preview, not the one of the kind chosen before it
            until("a hierarchy's preview", || async {
                Ok(previewed(&client).await?
                    && text(&client, &format!("preview-{i}"))
                        .await?
                        .contains("level 1"))
            })
            .await?;
        }
        let age = column(&client, "age").await?;
        let preview = text(&client, &format!("preview-{age}")).await?;
        assert!(preview.contains("36 852 35-39 30-39 20-39 *"), "{preview}");
        shot(&client, "step-hierarchies", "3-hierarchies").await?;
        // 4. k = 5 (the page's first model) and 1 % suppression are the defaults
        let k = by_css(&client, "#models .param[data-param=\"k\"]").await?;
        assert_eq!(k.prop("value").await?.as_deref(), Some("5"));
        shot(&client, "step-models", "4-models").await?;
        // 5. run
        click(&client, "run").await?;
        until("the run's end", || async {
            let state = run_state(&client).await?;
            Ok(matches!(
                state.as_deref(),
                Some("done" | "failed" | "cancelled")
            ))
        })
        .await?;
        let state = client.find(Locator::Id("run-state")).await?;
        assert_eq!(
            state.attr("data-state").await?.as_deref(),
            Some("done"),
            "{}",
            text(&client, "general-error").await.unwrap_or_default()
        );
        // 6. the result
        until("the result", || async {
            Ok(text(&client, "summary").await?.contains("Released"))
        })
        .await?;
        let summary = text(&client, "summary").await?;
        assert!(summary.contains("Released 30,162 rows"), "{summary}");
        assert!(
            summary.contains("audit of the written release passed"),
            "{summary}"
        );
        let levels = text(&client, "levels").await?;
        for q in QIS {
            assert!(levels.contains(q), "{levels}");
        }
        let lattice = client
            .find_all(Locator::Css("#lattice circle.node"))
            .await?;
        assert_eq!(lattice.len(), 4320);
        assert_eq!(
            client
                .find_all(Locator::Css("#lattice circle.optimum"))
                .await?
                .len(),
            1
        );
        let risks = text(&client, "risks").await?;
        assert!(
            risks.contains("prosecutor risk, highest 100.00 % 20.00 %"),
            "{risks}"
        );
        assert_eq!(
            client
                .find_all(Locator::Css("#distributions svg"))
                .await?
                .len(),
            8
        );
        assert_eq!(client.find_all(Locator::Css("#sample tr")).await?.len(), 26);
        shot(&client, "step-result", "5-result").await?;
        shot(&client, "lattice", "6-lattice").await?;
        shot(&client, "distributions", "7-distributions").await?;
        // the downloads
        let release = fetch(&client, "/download/release").await?;
        let job = fetch(&client, "/download/job.toml").await?;
        let report = fetch(&client, "/download/report").await?;
        let report: serde_json::Value = serde_json::from_str(&report).unwrap();
        assert_eq!(report["audit"]["passed"], true);
        // nothing was loaded from another host
        let loaded = client
            .execute(
                "return performance.getEntriesByType('resource').map(e => e.name)\
                 .concat([location.href]);",
                vec![],
            )
            .await?;
        for url in loaded.as_array().unwrap() {
            let url = url.as_str().unwrap();
            assert!(url.starts_with(&studio.base), "{url} is not the studio's");
        }
        Ok::<_, CmdError>((release, job, report))
    }
    .await;
    client.close().await.unwrap();
    let (release, job, report) = result.unwrap();
    // the exported job, beside the files the user uploaded, makes the same release
    let toml = data.path().join("job.toml");
    std::fs::write(&toml, &job).unwrap();
    let out = data.path().join("cli.csv");
    let status = Command::new(env!("CARGO_BIN_EXE_cellsafe"))
        .arg("anonymize")
        .arg(&toml)
        .arg("--output")
        .arg(&out)
        .args(["--quiet"])
        .status()
        .unwrap();
    assert!(status.success());
    let cli = std::fs::read_to_string(&out).unwrap();
    assert!(
        cli == release,
        "the studio's release differs from the exported job's"
    );
    // and it is 5-anonymous, by a count of its own, with at most 1 % suppressed
    let (suppressed, sizes) = class_sizes(&release);
    assert_eq!(report["suppressed_rows"].as_u64(), Some(suppressed as u64));
    assert!(suppressed <= 301, "{suppressed}");
    assert!(sizes.iter().all(|&n| n >= 5), "a class smaller than 5");
    assert_eq!(sizes.iter().sum::<usize>() + suppressed, 30162);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bad_hierarchy_and_a_bad_parameter_show_their_errors_at_the_field() {
    let Some(browser) = Browser::start("the studio in a browser", 1400, 1000).await else {
        return;
    };
    let client = browser.client.clone();
    let studio = start_studio();
    let data = tempfile::tempdir().unwrap();
    copy_adult(data.path());
    let result = async {
        client.goto(&studio.url).await?;
        // a table named by its path on this machine
        open_path(&client, &data.path().join("adult.csv"), "30,162 rows").await?;
        let age = set_role(&client, "age", "quasi-identifying").await?;
        // intervals: previewed on the column's values
        let widths = find_soon(&client, &format!("hwidths-{age}")).await?;
        until("the intervals' preview", || async {
            Ok(text(&client, &format!("preview-{age}"))
                .await?
                .contains("[35,40)"))
        })
        .await?;
        // a width that is not a number is shown at the hierarchy
        widths.clear().await?;
        widths.send_keys("5, ten").await?;
        let error = format!("#hier-{age} .error");
        until("the hierarchy's error", || async {
            Ok(!by_css(&client, &error).await?.text().await?.is_empty())
        })
        .await?;
        let message = by_css(&client, &error).await?.text().await?;
        assert!(
            message.contains("invalid type: string \"ten\""),
            "{message}"
        );
        shot(&client, &format!("hier-{age}"), "8-hierarchy-error").await?;
        // groups that leave values out: the error at the hierarchy names one
        let race = set_role(&client, "race", "quasi-identifying").await?;
        choose(&client, &format!("hkind-{race}"), "groups").await?;
        client
            .find(Locator::Id(&format!("hgroups-{race}")))
            .await?
            .send_keys("light: White\ndark: Black")
            .await?;
        let at_race = format!("#hier-{race} .error");
        until("the groups' error", || async {
            let e = by_css(&client, &at_race).await?.text().await?;
            Ok(e.contains("no group contains `Asian-Pac-Islander`"))
        })
        .await?;
        // an ARX file that leaves values out: the preview names them
        let partial = data.path().join("race.csv");
        std::fs::write(&partial, "White;*\nBlack;*\n").unwrap();
        choose(&client, &format!("hkind-{race}"), "file").await?;
        client
            .find(Locator::Id(&format!("hfile-{race}")))
            .await?
            .send_keys(&partial.display().to_string())
            .await?;
        until("the uncovered values", || async {
            let w = client
                .find(Locator::Id(&format!("uncovered-{race}")))
                .await?;
            Ok(w.text()
                .await?
                .contains("3 value(s) of the column are not in this hierarchy"))
        })
        .await?;
        let warning = text(&client, &format!("uncovered-{race}")).await?;
        for v in ["Asian-Pac-Islander", "Amer-Indian-Eskimo", "Other"] {
            assert!(warning.contains(v), "{warning}");
        }
        // a k that is not a number is shown at the model
        widths.clear().await?;
        widths.send_keys("5, 10, 20").await?;
        let k = by_css(&client, "#models .param[data-param=\"k\"]").await?;
        k.clear().await?;
        k.send_keys("zero").await?;
        click(&client, "check").await?;
        let at_k = "#models .param-error[data-param=\"k\"]";
        until("k's error", || async {
            Ok(!by_css(&client, at_k).await?.text().await?.is_empty())
        })
        .await?;
        let message = by_css(&client, at_k).await?.text().await?;
        assert!(message.contains("zero"), "{message}");
        shot(&client, "step-models", "9-parameter-error").await?;
        // with k mended, Run refuses the job at the hierarchy that leaves values out
        k.clear().await?;
        k.send_keys("5").await?;
        click(&client, "run").await?;
        until("the hierarchy's error", || async {
            let e = by_css(&client, &at_race).await?.text().await?;
            Ok(e.contains("3 value(s) of the column are not in this hierarchy"))
        })
        .await?;
        assert!(by_css(&client, at_k).await?.text().await?.is_empty());
        let state = run_state(&client).await?;
        assert_eq!(state, None, "no run started");
        Ok::<_, CmdError>(())
    }
    .await;
    client.close().await.unwrap();
    result.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancel_stops_a_long_search_and_nothing_is_released() {
    let Some(browser) = Browser::start("the studio in a browser", 1400, 1000).await else {
        return;
    };
    let client = browser.client.clone();
    let studio = start_studio();
    // seven six-digit columns, each masked digit by digit: 7^7 = 823,543 nodes, every one
    // evaluated by the exhaustive search on 20,000 distinct rows
    let data = tempfile::tempdir().unwrap();
    // (and two columns whose names are special words of JavaScript objects)
    let mut csv = String::from("a,b,c,d,e,f,g,constructor,__proto__\n");
    let mut x: u64 = 12345;
    for _ in 0..20_000 {
        let row: Vec<String> = (0..7)
            .map(|_| {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                format!("{:06}", (x >> 33) % 1_000_000)
            })
            .collect();
        csv.push_str(&row.join(","));
        csv.push_str(",x,y\n");
    }
    let table = data.path().join("wide.csv");
    std::fs::write(&table, csv).unwrap();
    let result = async {
        client.goto(&studio.url).await?;
        open_path(&client, &table, "20,000 rows").await?;
        for name in ["a", "b", "c", "d", "e", "f", "g"] {
            let i = set_role(&client, name, "quasi-identifying").await?;
            choose(&client, &format!("hkind-{i}"), "mask").await?;
        }
        choose(&client, "algorithm", "exhaustive").await?;
        click(&client, "run").await?;
        // once the search has begun, Cancel
        until("the search", || async {
            Ok(text(&client, "stage").await?.starts_with("search"))
        })
        .await?;
        // a second run while one runs is refused
        let second = client
            .execute_async(
                "const done = arguments[arguments.length - 1];
                 fetch('/api/run', {method: 'POST', headers: {'Content-Type': 'application/json',
                   Authorization: 'Bearer ' + TOKEN},
                   body: JSON.stringify({job: job()})}).then(r => done(r.status));",
                vec![],
            )
            .await?;
        assert_eq!(second.as_u64(), Some(409));
        click(&client, "cancel").await?;
        until("the run's end", || async {
            let state = run_state(&client).await?;
            Ok(state.as_deref().is_some_and(|s| s != "running"))
        })
        .await?;
        let state = run_state(&client).await?;
        assert_eq!(state.as_deref(), Some("cancelled"));
        let release = fetch(&client, "/download/release").await?;
        assert!(release.contains("no run has finished"), "{release}");
        Ok::<_, CmdError>(())
    }
    .await;
    client.close().await.unwrap();
    result.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_node_clicked_on_the_pareto_front_is_released_as_its_exported_job_releases_it() {
    let Some(browser) = Browser::start("the studio in a browser", 1400, 1000).await else {
        return;
    };
    let client = browser.client.clone();
    let studio = start_studio();
    let data = tempfile::tempdir().unwrap();
    copy_adult(data.path());
    let result = async {
        client.goto(&studio.url).await?;
        open_path(&client, &data.path().join("adult.csv"), "30,162 rows").await?;
        // three quasi-identifiers with hierarchies built in the page
        for (name, kind) in [
            ("age", "intervals"),
            ("sex", "suppress"),
            ("race", "suppress"),
        ] {
            let i = set_role(&client, name, "quasi-identifying").await?;
            choose(&client, &format!("hkind-{i}"), kind).await?;
        }
        choose(&client, "algorithm", "pareto").await?;
        assert!(
            client
                .find(Locator::Id("pareto-fields"))
                .await?
                .is_displayed()
                .await?
        );
        click(&client, "run").await?;
        until("the front", || async {
            Ok(!client
                .find_all(Locator::Css("#front circle.front-node"))
                .await?
                .is_empty())
        })
        .await?;
        shot(&client, "step-result", "10-pareto-front").await?;
        // the node with the largest k below every row's: release it by a click on the chart
        let rows = client.find_all(Locator::Css("#front-table tr")).await?;
        let mut best = None;
        for (i, row) in rows.iter().skip(1).enumerate() {
            let cells = row.find_all(Locator::Css("td")).await?;
            let k: u64 = cells[cells.len() - 3].text().await?.parse().unwrap();
            if k < 30162 && best.is_none_or(|(_, b)| k > b) {
                best = Some((i, k));
            }
        }
        let (node, k) = best.expect("a node that generalizes");
        assert!(k >= 2, "k {k}");
        by_css(&client, &format!("#front circle[data-node=\"{node}\"]"))
            .await?
            .click()
            .await?;
        until("the node's release", || async {
            Ok(text(&client, "summary").await?.contains("Released"))
        })
        .await?;
        let summary = text(&client, "summary").await?;
        assert!(
            summary.contains(&format!("the smallest of {k} rows")),
            "{summary}"
        );
        let release = fetch(&client, "/download/release").await?;
        let job = fetch(&client, "/download/job.toml").await?;
        Ok::<_, CmdError>((release, job))
    }
    .await;
    client.close().await.unwrap();
    let (release, job) = result.unwrap();
    assert!(
        job.contains("[pareto]") && job.contains("levels = ["),
        "{job}"
    );
    let toml = data.path().join("node.toml");
    std::fs::write(&toml, &job).unwrap();
    let out = data.path().join("node.csv");
    let status = Command::new(env!("CARGO_BIN_EXE_cellsafe"))
        .arg("anonymize")
        .arg(&toml)
        .arg("--output")
        .arg(&out)
        .arg("--quiet")
        .status()
        .unwrap();
    assert!(status.success());
    assert!(std::fs::read_to_string(&out).unwrap() == release);
}

/// One HTTP/1.1 request with the token `token` (none when empty): (status, headers, body
/// bytes).
fn raw(base: &str, method: &str, path: &str, token: &str, body: &[u8]) -> (u16, String, Vec<u8>) {
    use std::io::{Read, Write};
    let addr = base.trim_start_matches("http://");
    let mut s = TcpStream::connect(addr).unwrap();
    let auth = if token.is_empty() {
        String::new()
    } else {
        format!("Authorization: Bearer {token}\r\n")
    };
    write!(
        s,
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n{auth}\
         Content-Type: application/json\r\nContent-Length: {}\r\n\r\n",
        body.len()
    )
    .unwrap();
    s.write_all(body).unwrap();
    let mut answer = Vec::new();
    s.read_to_end(&mut answer).unwrap();
    let split = answer
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a head");
    let head = String::from_utf8_lossy(&answer[..split]).into_owned();
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    assert!(
        !head
            .to_ascii_lowercase()
            .contains("transfer-encoding: chunked"),
        "{head}"
    );
    (status, head, answer[split + 4..].to_vec())
}

/// The token of `studio`; the page it opens sets no cookie.
fn session(studio: &Studio) -> String {
    let token = studio.url.split("token=").nth(1).unwrap();
    let (status, head, _) = raw(&studio.base, "GET", &format!("/?token={token}"), "", b"");
    assert_eq!(status, 200);
    assert!(!head.to_ascii_lowercase().contains("set-cookie"), "{head}");
    token.to_owned()
}

/// Waits for the run to end: its state and status.
fn finished(studio: &Studio, token: &str) -> (String, serde_json::Value) {
    loop {
        let (_, _, body) = raw(&studio.base, "GET", "/api/run", token, b"");
        let run: serde_json::Value = serde_json::from_slice(&body).unwrap();
        let state = run["run"]["state"].as_str().unwrap().to_owned();
        if state != "running" {
            return (state, run);
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Runs `cellsafe anonymize JOB --output OUT` (the exported job).
fn anonymize(job: &Path, out: &Path) {
    let status = Command::new(env!("CARGO_BIN_EXE_cellsafe"))
        .arg("anonymize")
        .arg(job)
        .arg("--output")
        .arg(out)
        .arg("--quiet")
        .status()
        .unwrap();
    assert!(status.success());
}

#[test]
fn an_lgb_job_over_http_releases_the_exported_jobs_tables() {
    let studio = start_studio();
    let token = session(&studio);
    let post = |path: &str, body: &[u8]| {
        let (status, _, body) = raw(&studio.base, "POST", path, &token, body);
        (
            status,
            serde_json::from_slice::<serde_json::Value>(&body).unwrap(),
        )
    };
    let data = tempfile::tempdir().unwrap();
    let census = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/lgb/census.csv");
    std::fs::copy(&census, data.path().join("census.csv")).unwrap();
    let open = serde_json::json!({ "path": data.path().join("census.csv") }).to_string();
    let (status, table) = post("/api/open", open.as_bytes());
    assert_eq!(status, 200, "{table}");
    let mut job = serde_json::json!({"job": {
        "attributes": {
            "relationship": {"role": "quasi-identifying", "hierarchy": {"kind": "suppress"}},
            "race": {"role": "quasi-identifying", "hierarchy": {"kind": "suppress"}},
            "hours-per-week": {"role": "quasi-identifying"},
            "age": {"role": "semi-sensitive", "flag": "age_sensitive"},
            "salary": {"role": "sensitive"},
            "age_sensitive": {"role": "identifying"}
        },
        "privacy": [{"model": "k-anonymity", "k": 5},
                    {"model": "distinct-l-diversity", "attribute": "age", "l": 3},
                    {"model": "distinct-l-diversity", "attribute": "salary", "l": 3}],
        "search": {"algorithm": "lgb"},
        "output": {"seed": 3}
    }});
    let (_, checked) = post("/api/check", job.to_string().as_bytes());
    assert_eq!(checked["errors"], serde_json::json!([]), "{checked}");
    let (status, _) = post("/api/run", job.to_string().as_bytes());
    assert_eq!(status, 200);
    let (state, run) = finished(&studio, &token);
    assert_eq!(state, "done", "{run}");
    let (_, _, result) = raw(&studio.base, "GET", "/api/result", &token, b"");
    let result: serde_json::Value = serde_json::from_slice(&result).unwrap();
    let files = result["result"]["files"].as_array().unwrap().clone();
    assert_eq!(files.len(), 2, "{result}");
    let (_, _, main) = raw(&studio.base, "GET", "/download/release", &token, b"");
    let (_, _, toml) = raw(&studio.base, "GET", "/download/job.toml", &token, b"");
    let job_path = data.path().join("job.toml");
    std::fs::write(&job_path, &toml).unwrap();
    let out = data.path().join("cli.csv");
    anonymize(&job_path, &out);
    assert!(
        std::fs::read(&out).unwrap() == main,
        "the main tables differ"
    );
    for f in &files {
        let name = f.as_str().unwrap();
        let (status, _, bucket) = raw(
            &studio.base,
            "GET",
            &format!("/download/file?name={name}"),
            &token,
            b"",
        );
        assert_eq!(status, 200);
        // release.age.csv beside release.csv is cli.age.csv beside cli.csv
        let cli = data.path().join(name.replacen("release", "cli", 1));
        assert!(std::fs::read(&cli).unwrap() == bucket, "{name} differs");
    }
    // only the run's own bucket tables are served
    for name in ["..%2Freport.json", "release.csv", "job.toml"] {
        let (status, _, _) = raw(
            &studio.base,
            "GET",
            &format!("/download/file?name={name}"),
            &token,
            b"",
        );
        assert_eq!(status, 404, "{name}");
    }
    // a flag column released as insensitive is refused at its role
    job["job"]["attributes"]["age_sensitive"]["role"] = "insensitive".into();
    let (_, checked) = post("/api/check", job.to_string().as_bytes());
    assert_eq!(
        checked["errors"][0]["key"], "attributes.age_sensitive.role",
        "{checked}"
    );
}

#[test]
fn a_parquet_upload_run_over_http_is_the_release_of_the_exported_job() {
    let studio = start_studio();
    let token = session(&studio);
    let post = |path: &str, body: &[u8]| {
        let (status, _, body) = raw(&studio.base, "POST", path, &token, body);
        (
            status,
            serde_json::from_slice::<serde_json::Value>(&body).unwrap(),
        )
    };
    let data = tempfile::tempdir().unwrap();
    copy_adult(data.path());
    std::fs::copy(
        adult().join("adult.parquet"),
        data.path().join("adult.parquet"),
    )
    .unwrap();
    let parquet = std::fs::read(data.path().join("adult.parquet")).unwrap();
    let (status, table) = post("/api/upload?name=adult.parquet&kind=table", &parquet);
    assert_eq!(status, 200, "{table}");
    // a hierarchy file may not replace the loaded table
    let (status, refused) = post("/api/upload?name=adult.parquet&kind=hierarchy", b"a;*\n");
    assert_eq!(status, 400);
    assert!(refused["error"]["message"]
        .as_str()
        .unwrap()
        .contains("loaded table"));
    assert_eq!(table["table"]["format"], "parquet");
    assert_eq!(table["table"]["rows"], 30162);
    for q in QIS {
        let name = format!("adult_hierarchy_{q}.csv");
        let bytes = std::fs::read(data.path().join(&name)).unwrap();
        let (status, _) = post(&format!("/api/upload?name={name}&kind=hierarchy"), &bytes);
        assert_eq!(status, 200);
    }
    let mut attributes = serde_json::Map::new();
    for q in QIS {
        attributes.insert(
            q.into(),
            serde_json::json!({"role": "quasi-identifying",
                               "hierarchy": format!("adult_hierarchy_{q}.csv")}),
        );
    }
    attributes.insert(
        "occupation".into(),
        serde_json::json!({"role": "sensitive"}),
    );
    let job = serde_json::json!({"job": {
        "suppression_limit": 0.01,
        "attributes": attributes,
        "privacy": [{"model": "k-anonymity", "k": 5}, {"model": "distinct-l-diversity",
                     "attribute": "occupation", "l": 2}],
        "metric": {"name": "loss"},
        "output": {"seed": 12345}
    }});
    let (status, started) = post("/api/run", job.to_string().as_bytes());
    assert_eq!(status, 200, "{started}");
    let state = loop {
        let (_, _, body) = raw(&studio.base, "GET", "/api/run", &token, b"");
        let run: serde_json::Value = serde_json::from_slice(&body).unwrap();
        let state = run["run"]["state"].as_str().unwrap().to_owned();
        if state != "running" {
            break (state, run);
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    assert_eq!(state.0, "done", "{}", state.1);
    let (status, head, release) = raw(&studio.base, "GET", "/download/release", &token, b"");
    assert_eq!(status, 200);
    assert!(head.contains("release.parquet"), "{head}");
    assert_eq!(&release[..4], b"PAR1");
    let (_, _, job) = raw(&studio.base, "GET", "/download/job.toml", &token, b"");
    let toml = data.path().join("job.toml");
    std::fs::write(&toml, &job).unwrap();
    let out = data.path().join("cli.parquet");
    let status = Command::new(env!("CARGO_BIN_EXE_cellsafe"))
        .arg("anonymize")
        .arg(&toml)
        .arg("--output")
        .arg(&out)
        .arg("--quiet")
        .status()
        .unwrap();
    assert!(status.success());
    assert!(
        std::fs::read(&out).unwrap() == release,
        "the releases differ"
    );
    // the downloads need the token
    let (status, _, _) = raw(&studio.base, "GET", "/download/release", "", b"");
    assert_eq!(status, 403);
}
