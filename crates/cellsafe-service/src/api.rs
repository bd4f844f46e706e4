//! The HTTP API: routes, JSON bodies and errors, and its OpenAPI description.
//!
//! Every error is JSON `{"error": MESSAGE, "status": CODE}` (a refusal adds `"outcome":
//! "refused"`, an audited request its `"audit_id"`). Bodies above `[service] body_limit`
//! get 413, malformed JSON 400, a missing or wrong token 401, a role or grant exceeded 403,
//! a token of a user name locked after too many wrong tokens 429.

use std::collections::BTreeMap;
use std::net::IpAddr;
use std::sync::Arc;

use axum::extract::rejection::JsonRejection;
use axum::extract::{DefaultBodyLimit, Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post, put};
use axum::{Json, Router};
use serde::{Deserialize, Serialize};
use utoipa::{OpenApi, ToSchema};

use crate::app::{App, Failure, Released, User};
use crate::auth::{self, Role};
use crate::store::{AuditRow, Entry, UserRow};

impl IntoResponse for Failure {
    fn into_response(self) -> Response {
        let status = StatusCode::from_u16(self.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        let mut body = serde_json::json!({ "error": cut(&self.message), "status": self.status });
        if let Some(id) = self.audit_id {
            body["audit_id"] = id.into();
        }
        if self.refused {
            body["outcome"] = "refused".into();
        }
        (status, Json(body)).into_response()
    }
}

/// An error, as every endpoint returns it.
#[derive(Serialize, ToSchema)]
pub struct ErrorBody {
    /// What went wrong.
    pub error: String,
    /// The HTTP status.
    pub status: u16,
    /// The audit entry written for the request, if any.
    pub audit_id: Option<i64>,
    /// `refused` when the gatekeeper refused the answer.
    pub outcome: Option<String>,
}

/// `POST /query`.
#[derive(Deserialize, ToSchema)]
pub struct QueryBody {
    /// `SELECT columns FROM table [WHERE conditions]`.
    pub sql: String,
}

/// `POST /admin/users`.
#[derive(Deserialize, ToSchema)]
pub struct NewUser {
    /// Login name: letters, digits, `-`, `_`.
    pub name: String,
    /// `admin` or `analyst`.
    #[schema(value_type = String)]
    pub role: Role,
    /// Per table, the columns granted (`*`: all).
    #[serde(default)]
    pub grants: BTreeMap<String, Vec<String>>,
}

/// A user's new token, shown once.
#[derive(Serialize, ToSchema)]
pub struct Token {
    /// Login name.
    pub name: String,
    /// `NAME.SECRET`, for `Authorization: Bearer`.
    pub token: String,
}

/// `PUT /admin/users/{name}/grants`.
#[derive(Deserialize, ToSchema)]
pub struct Grant {
    /// The table.
    pub table: String,
    /// Columns granted (`*`: all; empty: revoke).
    pub columns: Vec<String>,
}

/// `GET /admin/audit` parameters.
#[derive(Deserialize, utoipa::IntoParams)]
pub struct Page {
    /// Entries with a larger id (default 0).
    pub after: Option<i64>,
    /// Most entries (default 100, at most 1000).
    pub limit: Option<usize>,
}

/// A page of the audit log.
#[derive(Serialize, ToSchema)]
pub struct AuditPage {
    /// Entries, oldest first.
    pub entries: Vec<AuditRow>,
    /// The `after` of the next page (None: this was the last).
    pub next_after: Option<i64>,
}

/// A table an analyst may query.
#[derive(Serialize, ToSchema)]
pub struct TableInfo {
    /// Its name in queries.
    pub name: String,
    /// Granted columns with their roles.
    pub columns: Vec<ColumnInfo>,
}

/// A column and its role.
#[derive(Serialize, ToSchema)]
pub struct ColumnInfo {
    /// Name.
    pub name: String,
    /// `identifying` (never released), `quasi-identifying` (public, generalized),
    /// `sensitive` or `insensitive`.
    pub role: String,
}

#[derive(OpenApi)]
#[openapi(
    info(
        title = "cellsafe gatekeeper",
        description = "Queries over a data center, each answer tested, generalized when unsafe, and audited."
    ),
    paths(
        health,
        query,
        tables,
        users,
        create_user,
        delete_user,
        new_token,
        grant,
        audit,
        settings,
        put_settings
    ),
    components(schemas(
        ErrorBody, QueryBody, Released, NewUser, Token, Grant, AuditPage, AuditRow, UserRow,
        TableInfo, ColumnInfo
    ))
)]
struct ApiDoc;

/// The OpenAPI description, as JSON.
pub fn openapi_json() -> String {
    ApiDoc::openapi()
        .to_pretty_json()
        .expect("the description serializes")
}

/// The longest error message sent or logged, in characters: a message that quotes what
/// a client sent (a 16,000-character column name) is cut to this, with the length it had.
pub const MAX_MESSAGE: usize = 500;

/// `message` cut to [`MAX_MESSAGE`] characters (on a character boundary), saying so.
pub fn cut(message: &str) -> String {
    match message.char_indices().nth(MAX_MESSAGE) {
        None => message.to_string(),
        Some((end, _)) => format!(
            "{}… (cut: {} characters in all)",
            &message[..end],
            message.chars().count()
        ),
    }
}

/// The most bytes of a request's target and header fields together; above it, a JSON 431.
pub const MAX_HEAD_FIELDS: usize = 16 * 1024;

/// Every request passes here first: a head too large is a 431, the body is read whole
/// within `body_timeout` and `body_limit` (408 and 413 otherwise, and the connection
/// closes), and an error answer of the API that is not JSON (a rejection by axum: a bad
/// query string, a method not allowed) becomes the documented JSON error.
async fn guard(
    request: axum::extract::Request,
    next: axum::middleware::Next,
    body_limit: usize,
    body_timeout: std::time::Duration,
) -> Response {
    let head = request.uri().to_string().len()
        + request
            .headers()
            .iter()
            .map(|(k, v)| k.as_str().len() + v.len() + 4)
            .sum::<usize>();
    if head > MAX_HEAD_FIELDS {
        return closing(Failure::new(
            431,
            format!("the request's head is larger than {MAX_HEAD_FIELDS} bytes"),
        ));
    }
    let declared = request
        .headers()
        .get(axum::http::header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    let too_large = || {
        closing(Failure::new(
            413,
            format!("the body is larger than {body_limit} bytes"),
        ))
    };
    if declared.is_some_and(|n| n > body_limit as u64) {
        return too_large();
    }
    let ui = request.uri().path().starts_with("/ui");
    let (parts, body) = request.into_parts();
    let bytes =
        match tokio::time::timeout(body_timeout, axum::body::to_bytes(body, body_limit)).await {
            Err(_) => {
                return closing(Failure::new(
                    408,
                    format!(
                        "the body took longer than {} s to arrive",
                        body_timeout.as_secs()
                    ),
                ))
            }
            Ok(Err(e)) => {
                let mut source: Option<&(dyn std::error::Error + 'static)> = Some(&e);
                while let Some(s) = source {
                    if s.is::<http_body_util::LengthLimitError>() {
                        return too_large();
                    }
                    source = s.source();
                }
                return closing(Failure::new(400, "the body could not be read"));
            }
            Ok(Ok(b)) => b,
        };
    let response = next
        .run(axum::extract::Request::from_parts(
            parts,
            axum::body::Body::from(bytes),
        ))
        .await;
    let json = response
        .headers()
        .get(axum::http::header::CONTENT_TYPE)
        .is_some_and(|t| t.as_bytes().starts_with(b"application/json"));
    if ui || json || response.status().as_u16() < 400 {
        return response;
    }
    let status = response.status();
    let text = axum::body::to_bytes(response.into_body(), MAX_HEAD_FIELDS)
        .await
        .map(|b| String::from_utf8_lossy(&b).trim().to_string())
        .unwrap_or_default();
    let message = if text.is_empty() {
        status.canonical_reason().unwrap_or("error").to_string()
    } else {
        text
    };
    Failure::new(status.as_u16(), message).into_response()
}

/// `failure` as a response that closes the connection (its body may still be arriving).
fn closing(failure: Failure) -> Response {
    let mut r = failure.into_response();
    r.headers_mut().insert(
        axum::http::header::CONNECTION,
        axum::http::HeaderValue::from_static("close"),
    );
    r
}

/// The service's routes, each request read under `body_limit` and `body_timeout`.
pub fn router(app: Arc<App>, body_limit: usize, body_timeout: std::time::Duration) -> Router {
    Router::new()
        .route("/health", get(health))
        .route("/openapi.json", get(openapi))
        .route("/query", post(query))
        .route("/tables", get(tables))
        .route("/admin/users", get(users).post(create_user))
        .route("/admin/users/{name}", axum::routing::delete(delete_user))
        .route("/admin/users/{name}/token", post(new_token))
        .route("/admin/users/{name}/grants", put(grant))
        .route("/admin/audit", get(audit))
        .route("/admin/settings", get(settings).put(put_settings))
        .merge(crate::web::routes())
        .fallback(|| async { Failure::new(404, "no such endpoint") })
        .method_not_allowed_fallback(|| async {
            Failure::new(405, "this endpoint does not take that method")
        })
        .layer(DefaultBodyLimit::max(body_limit))
        .layer(axum::middleware::from_fn(move |request, next| {
            guard(request, next, body_limit, body_timeout)
        }))
        .with_state(app)
}

/// Runs blocking work (argon2, the database, the gatekeeper) off the async threads.
async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, Failure> + Send + 'static,
) -> Result<T, Failure> {
    tokio::task::spawn_blocking(f)
        .await
        .unwrap_or_else(|e| Err(Failure::internal(format!("a worker failed: {e}"))))
}

/// The client's address as the limits count it ([`crate::server::client_key`]: an IPv6
/// client by its /64; unspecified when the server did not record the peer).
#[derive(Debug, Clone, Copy)]
pub struct Peer(pub IpAddr);

impl<S: Send + Sync> axum::extract::FromRequestParts<S> for Peer {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(
        parts: &mut axum::http::request::Parts,
        _: &S,
    ) -> Result<Self, Self::Rejection> {
        Ok(Peer(
            parts
                .extensions
                .get::<axum::extract::ConnectInfo<std::net::SocketAddr>>()
                .map_or(IpAddr::V4(std::net::Ipv4Addr::UNSPECIFIED), |c| {
                    crate::server::client_key(c.0.ip())
                }),
        ))
    }
}

async fn signed_in(app: &Arc<App>, headers: &HeaderMap, peer: Peer) -> Result<User, Failure> {
    let header = headers
        .get(axum::http::header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok());
    app.authenticate(header, peer.0).await
}

async fn admin(app: &Arc<App>, headers: &HeaderMap, peer: Peer) -> Result<User, Failure> {
    let user = signed_in(app, headers, peer).await?;
    if user.role != Role::Admin {
        return Err(Failure::new(403, "this endpoint is for admins"));
    }
    Ok(user)
}

fn json_failure(r: JsonRejection) -> Failure {
    Failure::new(r.status().as_u16(), r.body_text())
}

/// Liveness.
#[utoipa::path(get, path = "/health", responses((status = 200, description = "The service runs")))]
async fn health() -> Json<serde_json::Value> {
    Json(serde_json::json!({ "status": "ok" }))
}

async fn openapi() -> Response {
    (
        [(axum::http::header::CONTENT_TYPE, "application/json")],
        openapi_json(),
    )
        .into_response()
}

/// Asks a query; the answer is tested against everything the user received before.
#[utoipa::path(
    post, path = "/query", request_body = QueryBody,
    responses(
        (status = 200, description = "Released, as asked or generalized", body = Released),
        (status = 400, description = "Malformed or unsupported query", body = ErrorBody),
        (status = 401, description = "Missing or wrong token", body = ErrorBody),
        (status = 403, description = "Refused as unsafe, or beyond the user's grant", body = ErrorBody),
        (status = 413, description = "Body too large", body = ErrorBody),
        (status = 429, description = "Too many wrong tokens for this user name: locked for a while", body = ErrorBody),
    ),
    security(("token" = []))
)]
async fn query(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    peer: Peer,
    body: Result<Json<QueryBody>, JsonRejection>,
) -> Result<Json<Released>, Failure> {
    let user = signed_in(&app, &headers, peer).await?;
    app.take_query(&user.name, std::time::Instant::now())?;
    let body = match body {
        Ok(Json(b)) => b,
        Err(r) => {
            let mut f = json_failure(r);
            let (app, user, message) = (app.clone(), user.clone(), f.message.clone());
            f.audit_id = Some(
                blocking(move || {
                    app.store
                        .append(&Entry {
                            user: user.name,
                            query: String::new(),
                            outcome: "rejected".into(),
                            method: None,
                            levels: None,
                            rows: 0,
                            reason: Some(cut(&message)),
                            detail: None,
                            disclosure: None,
                        })
                        .map_err(crate::app::audit_failure)
                })
                .await?,
            );
            return Err(f);
        }
    };
    // one query at a time per user: each is judged with everything released before it
    let mut held = app.slot(&user.name).lock_owned().await;
    let answer = blocking(move || app.query(&user, &body.sql, &mut held)).await?;
    Ok(Json(answer))
}

/// The tables and columns the user may query, with their roles.
#[utoipa::path(get, path = "/tables", responses((status = 200, body = [TableInfo])), security(("token" = [])))]
async fn tables(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    peer: Peer,
) -> Result<Json<Vec<TableInfo>>, Failure> {
    let user = signed_in(&app, &headers, peer).await?;
    let store_app = app.clone();
    let grants = blocking(move || {
        store_app
            .store
            .grants(&user.name)
            .map_err(Failure::internal)
    })
    .await?;
    let live = app.live();
    let Some(granted) = grants.get(&app.table_name) else {
        return Ok(Json(Vec::new()));
    };
    let columns = live
        .center
        .header()
        .iter()
        .filter(|h| granted.iter().any(|g| g == "*" || g == *h))
        .map(|h| ColumnInfo {
            name: h.clone(),
            role: live
                .center
                .role(h)
                .map(|r| {
                    serde_json::to_value(r)
                        .ok()
                        .and_then(|v| v.as_str().map(String::from))
                        .unwrap_or_default()
                })
                .unwrap_or_default(),
        })
        .collect();
    Ok(Json(vec![TableInfo {
        name: app.table_name.clone(),
        columns,
    }]))
}

/// Every user and their grants.
#[utoipa::path(get, path = "/admin/users", responses((status = 200, body = [UserRow])), security(("token" = [])))]
async fn users(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    peer: Peer,
) -> Result<Json<Vec<UserRow>>, Failure> {
    admin(&app, &headers, peer).await?;
    Ok(Json(
        blocking(move || app.store.users().map_err(Failure::internal)).await?,
    ))
}

fn check_grants(app: &App, grants: &BTreeMap<String, Vec<String>>) -> Result<(), Failure> {
    let live = app.live();
    for (table, columns) in grants {
        if table != &app.table_name {
            return Err(Failure::new(404, format!("unknown table `{table}`")));
        }
        if let Some(c) = columns
            .iter()
            .find(|c| *c != "*" && !live.center.header().contains(c))
        {
            return Err(Failure::new(400, format!("unknown column `{c}`")));
        }
    }
    Ok(())
}

/// Creates a user; the token is shown only in this answer.
#[utoipa::path(post, path = "/admin/users", request_body = NewUser,
    responses((status = 201, body = Token), (status = 409, body = ErrorBody)), security(("token" = [])))]
async fn create_user(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    peer: Peer,
    body: Result<Json<NewUser>, JsonRejection>,
) -> Result<(StatusCode, Json<Token>), Failure> {
    admin(&app, &headers, peer).await?;
    let Json(new) = body.map_err(json_failure)?;
    if !auth::valid_name(&new.name) {
        return Err(Failure::new(
            400,
            "a user name has 1 to 64 letters, digits, `-` or `_`",
        ));
    }
    check_grants(&app, &new.grants)?;
    let token = blocking(move || {
        if app
            .store
            .user(&new.name)
            .map_err(Failure::internal)?
            .is_some()
        {
            return Err(Failure::new(409, format!("user `{}` exists", new.name)));
        }
        let (token, hash) = auth::new_token(&new.name);
        app.store
            .create_user(&new.name, new.role.as_str(), &hash)
            .map_err(Failure::internal)?;
        for (table, columns) in &new.grants {
            app.store
                .set_grant(&new.name, table, columns)
                .map_err(Failure::internal)?;
        }
        app.users_changed()?;
        Ok(Token {
            name: new.name,
            token,
        })
    })
    .await?;
    Ok((StatusCode::CREATED, Json(token)))
}

/// Deletes a user and their grants; their audit entries stay.
#[utoipa::path(delete, path = "/admin/users/{name}", params(("name" = String, Path)),
    responses((status = 204), (status = 404, body = ErrorBody)), security(("token" = [])))]
async fn delete_user(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    peer: Peer,
    Path(name): Path<String>,
) -> Result<StatusCode, Failure> {
    let me = admin(&app, &headers, peer).await?;
    if me.name == name {
        return Err(Failure::new(400, "an admin cannot delete themselves"));
    }
    blocking(move || {
        if !app.store.delete_user(&name).map_err(Failure::internal)? {
            return Err(Failure::new(404, format!("no user `{name}`")));
        }
        app.forget(&name);
        Ok(StatusCode::NO_CONTENT)
    })
    .await
}

/// Gives a user a new token (the old one stops working).
#[utoipa::path(post, path = "/admin/users/{name}/token", params(("name" = String, Path)),
    responses((status = 200, body = Token), (status = 404, body = ErrorBody)), security(("token" = [])))]
async fn new_token(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    peer: Peer,
    Path(name): Path<String>,
) -> Result<Json<Token>, Failure> {
    admin(&app, &headers, peer).await?;
    blocking(move || {
        let (token, hash) = auth::new_token(&name);
        if !app
            .store
            .set_token(&name, &hash)
            .map_err(Failure::internal)?
        {
            return Err(Failure::new(404, format!("no user `{name}`")));
        }
        app.forget(&name);
        Ok(Json(Token { name, token }))
    })
    .await
}

/// Sets a user's grant on a table.
#[utoipa::path(put, path = "/admin/users/{name}/grants", params(("name" = String, Path)), request_body = Grant,
    responses((status = 204), (status = 404, body = ErrorBody)), security(("token" = [])))]
async fn grant(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    peer: Peer,
    Path(name): Path<String>,
    body: Result<Json<Grant>, JsonRejection>,
) -> Result<StatusCode, Failure> {
    admin(&app, &headers, peer).await?;
    let Json(g) = body.map_err(json_failure)?;
    check_grants(
        &app,
        &BTreeMap::from([(g.table.clone(), g.columns.clone())]),
    )?;
    blocking(move || {
        if app.store.user(&name).map_err(Failure::internal)?.is_none() {
            return Err(Failure::new(404, format!("no user `{name}`")));
        }
        app.store
            .set_grant(&name, &g.table, &g.columns)
            .map_err(Failure::internal)?;
        Ok(StatusCode::NO_CONTENT)
    })
    .await
}

/// Pages through the audit log, oldest first.
#[utoipa::path(get, path = "/admin/audit", params(Page),
    responses((status = 200, body = AuditPage)), security(("token" = [])))]
async fn audit(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    peer: Peer,
    page: Result<Query<Page>, axum::extract::rejection::QueryRejection>,
) -> Result<Json<AuditPage>, Failure> {
    admin(&app, &headers, peer).await?;
    let Query(page) = page.map_err(|r| Failure::new(400, r.body_text()))?;
    let limit = page.limit.unwrap_or(100).clamp(1, 1000);
    let after = page.after.unwrap_or(0);
    let entries = blocking(move || {
        app.store
            .audit_page(after, limit)
            .map_err(Failure::internal)
    })
    .await?;
    let next_after = (entries.len() == limit)
        .then(|| entries.last().map(|e| e.id))
        .flatten();
    Ok(Json(AuditPage {
        entries,
        next_after,
    }))
}

/// The sections of the center's config an admin may change.
pub const SECTIONS: [&str; 4] = ["attributes", "safety", "privacy", "gatekeeper"];

fn sections(text: &str) -> Result<serde_json::Value, Failure> {
    let doc: toml::Table = text.parse().map_err(Failure::internal)?;
    let mut out = serde_json::Map::new();
    for key in SECTIONS {
        if let Some(v) = doc.get(key) {
            out.insert(
                key.into(),
                serde_json::to_value(v).map_err(Failure::internal)?,
            );
        }
    }
    out.insert("toml".into(), text.into());
    Ok(serde_json::Value::Object(out))
}

/// The center's settings: attribute roles, formulas, models, generalization parameters.
#[utoipa::path(get, path = "/admin/settings",
    responses((status = 200, description = "The sections and the whole TOML text")), security(("token" = [])))]
async fn settings(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    peer: Peer,
) -> Result<Json<serde_json::Value>, Failure> {
    admin(&app, &headers, peer).await?;
    Ok(Json(sections(&app.live().text)?))
}

/// Replaces sections of the center's settings (`attributes`, `safety`, `privacy`,
/// `gatekeeper`); the center is rebuilt and checked before the change is kept.
#[utoipa::path(put, path = "/admin/settings",
    responses((status = 200, description = "The new settings"), (status = 400, body = ErrorBody)), security(("token" = [])))]
async fn put_settings(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    peer: Peer,
    body: Result<Json<serde_json::Value>, JsonRejection>,
) -> Result<Json<serde_json::Value>, Failure> {
    admin(&app, &headers, peer).await?;
    let Json(body) = body.map_err(json_failure)?;
    let serde_json::Value::Object(changes) = body else {
        return Err(Failure::new(
            400,
            "the body must be a JSON object of sections",
        ));
    };
    blocking(move || {
        let mut doc: toml::Table = app.live().text.parse().map_err(Failure::internal)?;
        for (key, value) in changes {
            if !SECTIONS.contains(&key.as_str()) {
                return Err(Failure::new(
                    400,
                    format!(
                        "`{key}` cannot be changed here; sections: {}",
                        SECTIONS.join(", ")
                    ),
                ));
            }
            let value = toml::Value::try_from(value).map_err(|e| {
                Failure::new(400, format!("`{key}` cannot be written as TOML: {e}"))
            })?;
            doc.insert(key, value);
        }
        let text = toml::to_string(&doc).map_err(Failure::internal)?;
        let live = app.reconfigure(text)?;
        Ok(Json(sections(&live.text)?))
    })
    .await
}
