//! The studio's HTTP interface: the page and its assets, the JSON calls the page makes,
//! and the downloads. Every request needs the token ([`auth`]); one without it gets 403.
//!
//! | route | what |
//! |---|---|
//! | `GET /?token=…` | the page (and `/app.js`, `/style.css`, with the token too) |
//! | `POST /api/upload?name=…&kind=table\|hierarchy` | a file, as the request's body |
//! | `POST /api/open` `{path}` | a table on this machine |
//! | `GET`, `POST /api/table` `{delimiter, missing}` | the table's profile; read again |
//! | `POST /api/preview` `{job, column}` | a hierarchy's levels on the column's values |
//! | `POST /api/check` `{job}` | the job's TOML and its errors by key |
//! | `POST /api/run` `{job}`, `GET /api/run`, `POST /api/cancel` | a run |
//! | `GET /api/result` | what the result page shows |
//! | `GET /download/job.toml`, `/download/release`, `/download/report` | the last run's |
//! | `GET /download/file?name=…` | a bucket table of the last (LGB) run, by its name |

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use axum::body::Body;
use axum::extract::{Query, Request, State as Extract};
use axum::http::{header, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use cellsafe::job::config::Config;
use http_body_util::BodyExt;
use serde::Deserialize;
use serde_json::{json, Value};
use tokio::io::AsyncWriteExt;

use crate::auth::Auth;
use crate::draft::{toml_text, uncovered, FieldError};
use crate::run::{Outcome, Run};
use crate::workspace::{self, Loaded, Workspace};

/// Longest wait for the next part of an upload's body.
pub const FRAME_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(30);
/// Values shown by a hierarchy's preview.
pub const PREVIEW_VALUES: usize = 100;
/// Uncovered values listed by a preview.
pub const UNCOVERED_LISTED: usize = 20;

/// The studio's state.
pub struct State {
    /// The token and sessions.
    pub auth: Auth,
    workspace: Workspace,
    max_upload: u64,
    work: Mutex<Work>,
}

#[derive(Default)]
struct Work {
    loaded: Option<Arc<Loaded>>,
    run: Option<Arc<Run>>,
    runs: u64,
    uploads: u64,
}

impl State {
    /// A studio's state.
    pub fn new(auth: Auth, workspace: Workspace, max_upload: u64) -> State {
        State {
            auth,
            workspace,
            max_upload,
            work: Mutex::new(Work::default()),
        }
    }

    fn work(&self) -> std::sync::MutexGuard<'_, Work> {
        self.work.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Writes the page that forwards a browser to `url` into the workspace (its owner's
    /// alone) and gives its path.
    pub fn opener(&self, url: &str) -> std::io::Result<PathBuf> {
        let path = self.workspace.path().join("open.html");
        let page = format!(
            "<!doctype html><meta charset=\"utf-8\"><meta http-equiv=\"refresh\" \
             content=\"0;url={url}\"><title>cellsafe studio</title>\
             <a href=\"{url}\">cellsafe studio</a>\n"
        );
        std::fs::write(&path, page)?;
        Ok(path)
    }

    /// Stops the run in progress, if any.
    pub fn stop(&self) {
        if let Some(run) = &self.work().run {
            run.cancel();
        }
    }
}

type Shared = Arc<State>;

/// The studio's routes over `state`.
pub fn router(state: Shared) -> Router {
    let guarded = Router::new()
        .route("/app.js", get(|| asset("text/javascript", APP_JS)))
        .route("/style.css", get(|| asset("text/css", STYLE_CSS)))
        .route("/api/upload", post(upload))
        .route("/api/open", post(open))
        .route("/api/table", get(table).post(reload))
        .route("/api/preview", post(preview))
        .route("/api/check", post(check))
        .route("/api/run", get(status).post(start))
        .route("/api/cancel", post(cancel))
        .route("/api/result", get(result))
        .route("/download/job.toml", get(download_job))
        .route("/download/release", get(download_release))
        .route("/download/report", get(download_report))
        .route("/download/file", get(download_file))
        .route("/", get(index))
        .route_layer(middleware::from_fn_with_state(state.clone(), guard));
    guarded.with_state(state)
}

const INDEX_HTML: &str = include_str!("../assets/index.html");
const APP_JS: &str = include_str!("../assets/app.js");
const STYLE_CSS: &str = include_str!("../assets/style.css");

/// Headers every answer carries: nothing is loaded from elsewhere, nothing is framed.
fn hardened(mut r: Response) -> Response {
    let h = r.headers_mut();
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        header::HeaderValue::from_static(
            "default-src 'self'; img-src 'self' data:; style-src 'self'; \
             script-src 'self'; connect-src 'self'; frame-ancestors 'none'; form-action 'self'",
        ),
    );
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        header::HeaderValue::from_static("nosniff"),
    );
    h.insert(
        header::CACHE_CONTROL,
        header::HeaderValue::from_static("no-store"),
    );
    h.insert(
        header::REFERRER_POLICY,
        header::HeaderValue::from_static("no-referrer"),
    );
    r
}

async fn asset(kind: &'static str, body: &'static str) -> Response {
    hardened(([(header::CONTENT_TYPE, kind)], body).into_response())
}

fn refused() -> Response {
    hardened(
        (
            StatusCode::FORBIDDEN,
            [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
            "cellsafe studio: open the address `cellsafe studio` printed (it carries the \
             token)\n",
        )
            .into_response(),
    )
}

/// Whether the request carries the token: in its `Authorization` header, or for the
/// page and its assets (GET), in its query.
fn admitted(state: &State, request: &Request) -> bool {
    let header = request
        .headers()
        .get_all(header::AUTHORIZATION)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .any(|v| state.auth.admits_header(v));
    header || (request.method() == axum::http::Method::GET && query_token(state, request))
}

fn query_token(state: &State, request: &Request) -> bool {
    request.uri().query().is_some_and(|q| {
        q.split('&')
            .filter_map(|kv| kv.split_once('='))
            .any(|(k, v)| k == "token" && state.auth.is_token(v))
    })
}

async fn guard(Extract(state): Extract<Shared>, request: Request, next: Next) -> Response {
    if !admitted(&state, &request) {
        return refused();
    }
    hardened(next.run(request).await)
}

/// The page, its assets named with the token it was loaded with.
async fn index(Extract(state): Extract<Shared>) -> Response {
    hardened(
        (
            [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
            INDEX_HTML.replace("{TOKEN}", state.auth.token()),
        )
            .into_response(),
    )
}

/// An error answer: `{"error": {"key", "message"}}`.
fn failed(status: StatusCode, e: FieldError) -> Response {
    (status, Json(json!({ "error": e }))).into_response()
}

fn bad(message: impl Into<String>) -> Response {
    failed(StatusCode::BAD_REQUEST, FieldError::general(message))
}

/// Runs `f` on a blocking thread.
async fn blocking<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    tokio::task::spawn_blocking(f)
        .await
        .expect("a studio task panicked")
}

#[derive(Deserialize)]
struct UploadQuery {
    name: String,
    #[serde(default)]
    kind: Option<String>,
}

async fn upload(
    Extract(state): Extract<Shared>,
    Query(q): Query<UploadQuery>,
    body: Body,
) -> Response {
    let Some(name) = workspace::safe_name(&q.name) else {
        return bad(format!("`{}` cannot be a file name", q.name));
    };
    // the loaded table is replaced only as a table (its profile read again)
    let hierarchy = q.kind.as_deref() == Some("hierarchy");
    let table_name = state.work().loaded.as_ref().and_then(|l| {
        l.input
            .get("path")
            .and_then(|p| p.as_str().map(String::from))
    });
    if hierarchy && table_name.as_deref() == Some(name.as_str()) {
        return bad(format!(
            "`{name}` is the loaded table's name: give the hierarchy file another name"
        ));
    }
    let files = state.workspace.files();
    let part = {
        let mut w = state.work();
        w.uploads += 1;
        files.join(format!(".upload-{}", w.uploads))
    };
    // written as it comes, within the size limit
    let written = async {
        let mut file = tokio::fs::File::create(&part).await?;
        let mut body = body;
        let mut size = 0u64;
        // each part of the body must come within FRAME_TIMEOUT: a client that trickles
        // does not hold a connection and a file open
        while let Some(frame) = tokio::time::timeout(FRAME_TIMEOUT, body.frame())
            .await
            .map_err(|_| std::io::Error::other("the upload stalled"))?
        {
            let frame = frame.map_err(std::io::Error::other)?;
            if let Ok(data) = frame.into_data() {
                size += data.len() as u64;
                if size > state.max_upload {
                    return Err(std::io::Error::other(format!(
                        "the file is larger than the studio takes ({} bytes; start it with a \
                         larger --max-upload)",
                        state.max_upload
                    )));
                }
                file.write_all(&data).await?;
            }
        }
        file.flush().await?;
        tokio::fs::rename(&part, files.join(&name)).await
    }
    .await;
    if let Err(e) = written {
        let _ = tokio::fs::remove_file(&part).await;
        return bad(format!("{name}: {e}"));
    }
    if hierarchy {
        return Json(json!({ "name": name })).into_response();
    }
    let path = files.join(&name);
    let mut input = toml::Table::new();
    input.insert("path".into(), toml::Value::String(name.clone()));
    load_into(state, input, name, Some(path)).await
}

#[derive(Deserialize)]
struct OpenRequest {
    path: String,
}

async fn open(Extract(state): Extract<Shared>, Json(r): Json<OpenRequest>) -> Response {
    let path = PathBuf::from(r.path.trim());
    let path = match std::path::absolute(&path) {
        Ok(p) => p,
        Err(e) => return bad(format!("{}: {e}", path.display())),
    };
    if let Err(e) = workspace::regular(&path) {
        return bad(format!("{}: {e}", path.display()));
    }
    let mut input = toml::Table::new();
    input.insert(
        "path".into(),
        toml::Value::String(path.display().to_string()),
    );
    load_into(state, input, path.display().to_string(), Some(path)).await
}

#[derive(Deserialize)]
struct Reload {
    delimiter: Option<String>,
    #[serde(default)]
    missing: Vec<String>,
}

async fn reload(Extract(state): Extract<Shared>, Json(r): Json<Reload>) -> Response {
    let Some(loaded) = state.work().loaded.clone() else {
        return bad("load a table first");
    };
    let mut input = loaded.input.clone();
    if let Some(d) = r.delimiter.filter(|_| loaded.profile.format == "csv") {
        input.insert("delimiter".into(), toml::Value::String(d));
    }
    let missing: Vec<String> = r.missing.into_iter().filter(|m| !m.is_empty()).collect();
    if missing.is_empty() {
        input.remove("missing");
    } else {
        input.insert(
            "missing".into(),
            toml::Value::Array(missing.into_iter().map(toml::Value::String).collect()),
        );
    }
    load_into(state, input, loaded.profile.name.clone(), None).await
}

/// Reads the table of `input` (its delimiter guessed when `sniff` names a CSV file) and
/// makes it the studio's table.
async fn load_into(
    state: Shared,
    mut input: toml::Table,
    name: String,
    sniff: Option<PathBuf>,
) -> Response {
    let files = state.workspace.files();
    let loaded = blocking(move || {
        if let Some(path) = sniff {
            let csv = cellsafe::data::table::Format::from_extension(&path)
                == cellsafe::data::table::Format::Csv;
            if csv {
                let d = workspace::sniff_delimiter(&path).unwrap_or(',');
                input.insert("delimiter".into(), toml::Value::String(d.to_string()));
            }
        }
        workspace::load(&files, input, name, &cellsafe::observer::Silent)
    })
    .await;
    match loaded {
        Ok(loaded) => {
            let profile = loaded.profile.clone();
            state.work().loaded = Some(Arc::new(loaded));
            Json(json!({ "table": profile })).into_response()
        }
        Err(e) => bad(e.to_string()),
    }
}

async fn table(Extract(state): Extract<Shared>) -> Response {
    let profile = state.work().loaded.as_ref().map(|l| l.profile.clone());
    Json(json!({ "table": profile })).into_response()
}

#[derive(Deserialize)]
struct JobRequest {
    job: Value,
}

/// The job's TOML and config, with the loaded table.
fn config_of(state: &State, job: &Value) -> Result<(Arc<Loaded>, String, Config), FieldError> {
    let loaded = state
        .work()
        .loaded
        .clone()
        .ok_or_else(|| FieldError::general("load a table first"))?;
    let text = toml_text(job, &loaded.input)?;
    let config =
        Config::parse(&text, &state.workspace.job_path()).map_err(|e| FieldError::of(&e, &text))?;
    Ok((loaded, text, config))
}

#[derive(Deserialize)]
struct PreviewRequest {
    job: Value,
    column: String,
}

async fn preview(Extract(state): Extract<Shared>, Json(r): Json<PreviewRequest>) -> Response {
    let (loaded, text, config) = match config_of(&state, &r.job) {
        Ok(x) => x,
        Err(e) => return failed(StatusCode::UNPROCESSABLE_ENTITY, e),
    };
    blocking(move || {
        let table = &loaded.table;
        let Some(column) = table.column_index(&r.column) else {
            return bad(format!("the table has no column `{}`", r.column));
        };
        let hierarchy = match config.attribute_hierarchy(table, &r.column) {
            Ok(Some(h)) => h,
            Ok(None) => {
                return Json(json!({ "levels": 0, "values": 0, "rows": [] })).into_response()
            }
            Err(e) => return failed(StatusCode::UNPROCESSABLE_ENTITY, FieldError::of(&e, &text)),
        };
        let mut counts = table.value_counts(column);
        counts.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
        let uncovered: Vec<&str> = counts
            .iter()
            .filter(|(v, _)| hierarchy.generalize(v, 0).is_none())
            .map(|(v, _)| *v)
            .collect();
        let rows: Vec<Value> = counts
            .iter()
            .take(PREVIEW_VALUES)
            .map(|(v, n)| {
                let labels: Vec<Option<&str>> = (0..hierarchy.levels())
                    .map(|l| hierarchy.generalize(v, l))
                    .collect();
                json!({ "value": v, "rows": n, "labels": labels })
            })
            .collect();
        Json(json!({
            "levels": hierarchy.levels(),
            "values": counts.len(),
            "rows": rows,
            "uncovered": uncovered.iter().take(UNCOVERED_LISTED).collect::<Vec<_>>(),
            "uncovered_count": uncovered.len(),
        }))
        .into_response()
    })
    .await
}

async fn check(Extract(state): Extract<Shared>, Json(r): Json<JobRequest>) -> Response {
    let (loaded, text, config) = match config_of(&state, &r.job) {
        Ok(x) => x,
        Err(e) => return Json(json!({ "errors": [e] })).into_response(),
    };
    blocking(move || {
        let errors: Vec<FieldError> = match uncovered(&config, &loaded.table, &text) {
            Some(e) => vec![e],
            None => match config.check_job((*loaded.table).clone()) {
                Ok(()) => Vec::new(),
                Err(e) => vec![FieldError::of(&e, &text)],
            },
        };
        Json(json!({ "errors": errors, "toml": text })).into_response()
    })
    .await
}

async fn start(Extract(state): Extract<Shared>, Json(r): Json<JobRequest>) -> Response {
    let (loaded, text, config) = match config_of(&state, &r.job) {
        Ok(x) => x,
        Err(e) => return failed(StatusCode::UNPROCESSABLE_ENTITY, e),
    };
    // a value left out of a hierarchy is shown at the hierarchy, not at the data's line
    let (loaded, text, config) =
        match blocking(move || match uncovered(&config, &loaded.table, &text) {
            Some(e) => Err(e),
            None => Ok((loaded, text, config)),
        })
        .await
        {
            Ok(x) => x,
            Err(e) => return failed(StatusCode::UNPROCESSABLE_ENTITY, e),
        };
    let mut work = state.work();
    if let Some(run) = &work.run {
        if matches!(run.outcome(), Outcome::Running) {
            return failed(
                StatusCode::CONFLICT,
                FieldError::general("a job is running: cancel it or wait for it"),
            );
        }
    }
    work.runs += 1;
    let dir = match state.workspace.run_dir(work.runs) {
        Ok(d) => d,
        Err(e) => return bad(format!("cannot make the run's directory: {e}")),
    };
    // the release keeps the input's format; an LGB release is CSV tables
    let extension = match loaded.profile.format.as_str() {
        _ if config.search.algorithm == cellsafe::algorithm::Algorithm::Lgb => "csv",
        "parquet" => "parquet",
        "arrow" => "arrow",
        _ => "csv",
    };
    let run = Run::start(
        work.runs,
        config,
        text,
        dir,
        extension,
        loaded.table.clone(),
    );
    let status = run.status();
    work.run = Some(run);
    Json(json!({ "run": status })).into_response()
}

async fn status(Extract(state): Extract<Shared>) -> Response {
    let status = state.work().run.as_ref().map(|r| r.status());
    Json(json!({ "run": status })).into_response()
}

async fn cancel(Extract(state): Extract<Shared>) -> Response {
    state.stop();
    status(Extract(state)).await
}

async fn result(Extract(state): Extract<Shared>) -> Response {
    match last_done(&state) {
        Some((_, explored)) => Json(json!({ "result": &*explored })).into_response(),
        None => Json(json!({ "result": null })).into_response(),
    }
}

fn last_done(state: &State) -> Option<(Arc<Run>, Arc<crate::explore::Explored>)> {
    let run = state.work().run.clone()?;
    match run.outcome() {
        Outcome::Done(explored) => Some((run, explored)),
        _ => None,
    }
}

fn attachment(kind: &'static str, name: String, body: Vec<u8>) -> Response {
    // a file name from a column's name may hold anything: only safe characters go out
    let name: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_') {
                c
            } else {
                '_'
            }
        })
        .collect();
    (
        [
            (header::CONTENT_TYPE, kind.to_owned()),
            (
                header::CONTENT_DISPOSITION,
                format!("attachment; filename=\"{name}\""),
            ),
        ],
        body,
    )
        .into_response()
}

fn not_yet() -> Response {
    failed(
        StatusCode::NOT_FOUND,
        FieldError::general("no run has finished yet"),
    )
}

async fn download_job(Extract(state): Extract<Shared>) -> Response {
    match last_done(&state) {
        Some((run, _)) => attachment(
            "application/toml",
            "job.toml".to_owned(),
            run.text.clone().into_bytes(),
        ),
        None => not_yet(),
    }
}

async fn download_release(Extract(state): Extract<Shared>) -> Response {
    let Some((run, explored)) = last_done(&state) else {
        return not_yet();
    };
    if !explored.found {
        return failed(
            StatusCode::NOT_FOUND,
            FieldError::general("the last run released nothing"),
        );
    }
    let name = run
        .release
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    match tokio::fs::read(&run.release).await {
        Ok(bytes) => attachment("application/octet-stream", name, bytes),
        Err(e) => bad(format!("cannot read the release: {e}")),
    }
}

async fn download_report(Extract(state): Extract<Shared>) -> Response {
    let Some((run, _)) = last_done(&state) else {
        return not_yet();
    };
    match tokio::fs::read(&run.report).await {
        Ok(bytes) => attachment("application/json", "report.json".to_owned(), bytes),
        Err(e) => bad(format!("cannot read the report: {e}")),
    }
}

#[derive(Deserialize)]
struct FileQuery {
    name: String,
}

/// A file the last run released beside its main table, named in its result (never a path).
async fn download_file(Extract(state): Extract<Shared>, Query(q): Query<FileQuery>) -> Response {
    let Some((run, explored)) = last_done(&state) else {
        return not_yet();
    };
    if !explored.files.contains(&q.name) {
        return failed(
            StatusCode::NOT_FOUND,
            FieldError::general(format!("the last run released no file `{}`", q.name)),
        );
    }
    let Some(dir) = run.release.parent() else {
        return not_yet();
    };
    match tokio::fs::read(dir.join(&q.name)).await {
        Ok(bytes) => attachment("text/csv", q.name, bytes),
        Err(e) => bad(format!("cannot read {}: {e}", q.name)),
    }
}
