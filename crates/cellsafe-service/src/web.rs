//! The admin web page (paper 002's admin/configure tool, figure 14): attribute roles,
//! confidential formulas, models and generalization parameters, users, and the audit log,
//! as server-side HTML (askama templates in `templates/`, no script, nothing fetched from
//! elsewhere) over the same state and checks as the JSON API.
//!
//! An admin signs in with their token; the page then keeps a random session id in a
//! cookie (`HttpOnly`, `SameSite=Strict`, so another site cannot post forms with it). Only
//! admins may sign in. Sessions live in the service's state ([`App::session`]): every
//! request re-checks the session's user against the store, so a session ends when its
//! user is deleted, gets a new token or stops being an admin, after 30 minutes unused and
//! after 8 hours in any case. A settings change goes through the same rebuild-and-check as
//! `PUT /admin/settings`: a change the center cannot take is shown as an error and not
//! kept.

use std::collections::BTreeMap;
use std::sync::Arc;

use askama::Template;
use axum::extract::{Form, Query, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{Html, IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use axum::Router;
use serde::Deserialize;

use crate::app::{App, Failure};
use crate::auth::{self, Role};
use crate::store::AuditRow;

const COOKIE: &str = "cellsafe_session";
/// Entries per page of the audit view.
const PAGE: usize = 50;

/// The web page's routes.
pub fn routes() -> Router<Arc<App>> {
    Router::new()
        .route("/ui", get(|| async { Redirect::to("/ui/settings") }))
        .route("/ui/login", get(login_page).post(login))
        .route("/ui/logout", get(logout))
        .route("/ui/settings", get(settings))
        .route("/ui/settings/roles", post(save_roles))
        .route("/ui/settings/safety", post(save_safety))
        .route("/ui/settings/models", post(save_models))
        .route("/ui/users", get(users).post(create_user))
        .route("/ui/users/delete", post(delete_user))
        .route("/ui/audit", get(audit))
}

#[derive(Template)]
#[template(path = "login.html")]
struct LoginPage {
    signed_in: bool,
    error: String,
    note: String,
}

#[derive(Template)]
#[template(path = "settings.html")]
struct SettingsPage {
    signed_in: bool,
    error: String,
    note: String,
    roles: Vec<(String, String)>,
    role_options: Vec<String>,
    formulas: String,
    default: String,
    k: String,
    generalization: String,
    generalization_options: Vec<String>,
    decide: String,
    decide_options: Vec<String>,
    max_tests: String,
    toml: String,
}

struct UserLine {
    name: String,
    role: String,
    grants: String,
}

#[derive(Template)]
#[template(path = "users.html")]
struct UsersPage {
    signed_in: bool,
    error: String,
    note: String,
    users: Vec<UserLine>,
    token: String,
    table: String,
}

#[derive(Template)]
#[template(path = "audit.html")]
struct AuditPage {
    signed_in: bool,
    error: String,
    note: String,
    entries: Vec<AuditRow>,
    first: i64,
    previous: i64,
    last: i64,
    more: bool,
}

fn html(t: impl Template, status: StatusCode) -> Response {
    match t.render() {
        Ok(body) => (status, Html(body)).into_response(),
        Err(e) => Failure::internal(e).into_response(),
    }
}

/// The session id in the request's cookie.
fn session_id(headers: &HeaderMap) -> Option<String> {
    let cookies = headers.get(header::COOKIE)?.to_str().ok()?;
    cookies
        .split(';')
        .filter_map(|c| c.trim().split_once('='))
        .find(|(k, _)| *k == COOKIE)
        .map(|(_, id)| id.to_string())
}

/// The admin signed in with the request's session cookie, re-checked against the store.
async fn session(app: &Arc<App>, headers: &HeaderMap) -> Option<String> {
    let id = session_id(headers)?;
    let app = app.clone();
    match tokio::task::spawn_blocking(move || app.session(&id)).await {
        Ok(Ok(Some(user))) => Some(user.name),
        _ => None,
    }
}

/// Runs blocking work off the async threads.
async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> T + Send + 'static,
) -> Result<T, Response> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| Failure::internal(e).into_response())
}

fn to_login() -> Response {
    Redirect::to("/ui/login").into_response()
}

async fn login_page() -> Response {
    html(
        LoginPage {
            signed_in: false,
            error: String::new(),
            note: String::new(),
        },
        StatusCode::OK,
    )
}

#[derive(Deserialize)]
struct LoginForm {
    token: String,
}

async fn login(
    State(app): State<Arc<App>>,
    peer: crate::api::Peer,
    Form(form): Form<LoginForm>,
) -> Response {
    let header = format!("Bearer {}", form.token.trim());
    let checked = app.authenticate(Some(&header), peer.0).await;
    let refuse = |message: &str| {
        html(
            LoginPage {
                signed_in: false,
                error: message.into(),
                note: String::new(),
            },
            StatusCode::UNAUTHORIZED,
        )
    };
    match checked {
        Ok(user) if user.role == Role::Admin => {
            let id = app.open_session(&user);
            let cookie = format!("{COOKIE}={id}; HttpOnly; SameSite=Strict; Path=/ui");
            ([(header::SET_COOKIE, cookie)], Redirect::to("/ui/settings")).into_response()
        }
        Ok(_) => refuse("only admins may sign in here"),
        Err(f) => refuse(&f.message),
    }
}

async fn logout(State(app): State<Arc<App>>, headers: HeaderMap) -> Response {
    if let Some(id) = session_id(&headers) {
        app.end_session(&id);
    }
    let cookie = format!("{COOKIE}=; HttpOnly; SameSite=Strict; Path=/ui; Max-Age=0");
    ([(header::SET_COOKIE, cookie)], Redirect::to("/ui/login")).into_response()
}

const ROLES: [&str; 4] = [
    "identifying",
    "quasi-identifying",
    "sensitive",
    "insensitive",
];
const GENERALIZATIONS: [&str; 3] = ["both", "levels", "sets"];
/// `[gatekeeper] decide`: on the data (paper 002), or on public information only.
const DECIDES: [&str; 2] = ["data", "public"];

/// The settings page for the center's current config, with a message.
fn settings_page(app: &App, error: String, note: String, status: StatusCode) -> Response {
    let live = app.live();
    let doc: toml::Table = live.text.parse().unwrap_or_default();
    let attributes = doc.get("attributes").and_then(|a| a.as_table());
    let roles = live
        .center
        .header()
        .iter()
        .map(|h| {
            let role = attributes
                .and_then(|a| a.get(h))
                .and_then(|a| a.get("role"))
                .and_then(|r| r.as_str())
                .unwrap_or("identifying");
            (h.clone(), role.to_string())
        })
        .collect();
    let safety = doc.get("safety").and_then(|s| s.as_table());
    let formulas = safety
        .and_then(|s| s.get("formulas"))
        .and_then(|f| f.as_table())
        .map(|f| {
            f.iter()
                .map(|(id, text)| format!("{id} = {}", text.as_str().unwrap_or_default()))
                .collect::<Vec<_>>()
                .join("\n")
        })
        .unwrap_or_default();
    let default = safety
        .and_then(|s| s.get("default"))
        .and_then(|d| d.as_array())
        .map(|d| {
            d.iter()
                .filter_map(|x| x.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        })
        .unwrap_or_default();
    let k = doc
        .get("privacy")
        .and_then(|p| p.as_array())
        .and_then(|p| {
            p.iter()
                .find(|m| m.get("model").and_then(|x| x.as_str()) == Some("k-anonymity"))
        })
        .and_then(|m| m.get("k"))
        .map(|k| k.to_string())
        .unwrap_or_default();
    let gatekeeper = doc.get("gatekeeper").and_then(|g| g.as_table());
    let generalization = gatekeeper
        .and_then(|g| g.get("generalization"))
        .and_then(|g| g.as_str())
        .unwrap_or("both")
        .to_string();
    let decide = gatekeeper
        .and_then(|g| g.get("decide"))
        .and_then(|g| g.as_str())
        .unwrap_or("data")
        .to_string();
    let max_tests = gatekeeper
        .and_then(|g| g.get("max_tests"))
        .map(|m| m.to_string())
        .unwrap_or_else(|| "4096".into());
    html(
        SettingsPage {
            signed_in: true,
            error,
            note,
            roles,
            role_options: ROLES.iter().map(|r| r.to_string()).collect(),
            formulas,
            default,
            k,
            generalization,
            generalization_options: GENERALIZATIONS.iter().map(|g| g.to_string()).collect(),
            decide,
            decide_options: DECIDES.iter().map(|g| g.to_string()).collect(),
            max_tests,
            toml: live.text.clone(),
        },
        status,
    )
}

async fn settings(State(app): State<Arc<App>>, headers: HeaderMap) -> Response {
    if session(&app, &headers).await.is_none() {
        return to_login();
    }
    settings_page(&app, String::new(), String::new(), StatusCode::OK)
}

/// Applies `edit` to the center's config document, rebuilds the center and shows the
/// settings page with the outcome.
async fn change(
    app: Arc<App>,
    headers: HeaderMap,
    edit: impl FnOnce(&mut toml::Table) -> Result<(), String> + Send + 'static,
) -> Response {
    if session(&app, &headers).await.is_none() {
        return to_login();
    }
    let outcome = blocking({
        let app = app.clone();
        move || {
            let mut doc: toml::Table = app.live().text.parse().map_err(|e| format!("{e}"))?;
            edit(&mut doc)?;
            let text = toml::to_string(&doc).map_err(|e| format!("{e}"))?;
            app.reconfigure(text).map(|_| ()).map_err(|f| f.message)
        }
    })
    .await;
    match outcome {
        Ok(Ok(())) => settings_page(&app, String::new(), "Saved.".into(), StatusCode::OK),
        Ok(Err(message)) => settings_page(&app, message, String::new(), StatusCode::BAD_REQUEST),
        Err(e) => e,
    }
}

fn table_mut<'a>(doc: &'a mut toml::Table, key: &str) -> &'a mut toml::Table {
    let entry = doc
        .entry(key.to_string())
        .or_insert_with(|| toml::Value::Table(toml::Table::new()));
    if !entry.is_table() {
        *entry = toml::Value::Table(toml::Table::new());
    }
    entry.as_table_mut().expect("a table")
}

async fn save_roles(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    Form(form): Form<BTreeMap<String, String>>,
) -> Response {
    change(app, headers, move |doc| {
        let attributes = table_mut(doc, "attributes");
        for (name, role) in form {
            if !ROLES.contains(&role.as_str()) {
                return Err(format!("`{role}` is not a role"));
            }
            let spec = attributes
                .entry(name)
                .or_insert_with(|| toml::Value::Table(toml::Table::new()));
            if let Some(t) = spec.as_table_mut() {
                t.insert("role".into(), toml::Value::String(role));
            }
        }
        Ok(())
    })
    .await
}

#[derive(Deserialize)]
struct SafetyForm {
    formulas: String,
    default: String,
}

async fn save_safety(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    Form(form): Form<SafetyForm>,
) -> Response {
    change(app, headers, move |doc| {
        let mut formulas = toml::Table::new();
        for (i, line) in form.formulas.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let (id, text) = line
                .split_once('=')
                .ok_or_else(|| format!("line {}: write `id = formula`", i + 1))?;
            formulas.insert(id.trim().into(), toml::Value::String(text.trim().into()));
        }
        let default: Vec<toml::Value> = form
            .default
            .split(',')
            .map(str::trim)
            .filter(|d| !d.is_empty())
            .map(|d| toml::Value::String(d.into()))
            .collect();
        let safety = table_mut(doc, "safety");
        safety.insert("formulas".into(), toml::Value::Table(formulas));
        safety.insert("default".into(), toml::Value::Array(default));
        Ok(())
    })
    .await
}

#[derive(Deserialize)]
struct ModelsForm {
    k: String,
    generalization: String,
    decide: String,
    max_tests: String,
}

async fn save_models(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    Form(form): Form<ModelsForm>,
) -> Response {
    change(app, headers, move |doc| {
        let mut privacy: Vec<toml::Value> = doc
            .get("privacy")
            .and_then(|p| p.as_array())
            .cloned()
            .unwrap_or_default()
            .into_iter()
            .filter(|m| m.get("model").and_then(|x| x.as_str()) != Some("k-anonymity"))
            .collect();
        let k = form.k.trim();
        if !k.is_empty() {
            let k: i64 = k
                .parse()
                .ok()
                .filter(|&k| k >= 1)
                .ok_or_else(|| format!("k must be a whole number of at least 1, not `{k}`"))?;
            let mut model = toml::Table::new();
            model.insert("model".into(), toml::Value::String("k-anonymity".into()));
            model.insert("k".into(), toml::Value::Integer(k));
            privacy.push(toml::Value::Table(model));
        }
        doc.insert("privacy".into(), toml::Value::Array(privacy));
        if !GENERALIZATIONS.contains(&form.generalization.as_str()) {
            return Err(format!("`{}` is not a generalization", form.generalization));
        }
        if !DECIDES.contains(&form.decide.as_str()) {
            return Err(format!("`{}` is not what decisions may use", form.decide));
        }
        let max_tests: i64 = form
            .max_tests
            .trim()
            .parse()
            .ok()
            .filter(|&m| m >= 1)
            .ok_or_else(|| "the most tests must be a whole number of at least 1".to_string())?;
        let gatekeeper = table_mut(doc, "gatekeeper");
        gatekeeper.insert(
            "generalization".into(),
            toml::Value::String(form.generalization),
        );
        gatekeeper.insert("max_tests".into(), toml::Value::Integer(max_tests));
        gatekeeper.insert("decide".into(), toml::Value::String(form.decide));
        Ok(())
    })
    .await
}

/// The users page, with a message and, after a creation, the new token.
async fn users_page(app: Arc<App>, error: String, note: String, token: String) -> Response {
    let table = app.table_name.clone();
    let listed = match blocking(move || app.store.users()).await {
        Ok(Ok(u)) => u,
        Ok(Err(e)) => return Failure::internal(e).into_response(),
        Err(e) => return e,
    };
    let status = if error.is_empty() {
        StatusCode::OK
    } else {
        StatusCode::BAD_REQUEST
    };
    let users = listed
        .into_iter()
        .map(|u| UserLine {
            grants: u
                .grants
                .iter()
                .map(|(t, c)| format!("{t}: {}", c.join(", ")))
                .collect::<Vec<_>>()
                .join("; "),
            name: u.name,
            role: u.role,
        })
        .collect();
    html(
        UsersPage {
            signed_in: true,
            error,
            note,
            users,
            token,
            table,
        },
        status,
    )
}

async fn users(State(app): State<Arc<App>>, headers: HeaderMap) -> Response {
    if session(&app, &headers).await.is_none() {
        return to_login();
    }
    users_page(app, String::new(), String::new(), String::new()).await
}

#[derive(Deserialize)]
struct NewUserForm {
    name: String,
    role: String,
    columns: String,
}

async fn create_user(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    Form(form): Form<NewUserForm>,
) -> Response {
    if session(&app, &headers).await.is_none() {
        return to_login();
    }
    let name = form.name.trim().to_string();
    let columns: Vec<String> = form
        .columns
        .split(',')
        .map(|c| c.trim().to_string())
        .filter(|c| !c.is_empty())
        .collect();
    let worker = app.clone();
    let created = blocking(move || -> Result<String, String> {
        if !auth::valid_name(&name) {
            return Err("a user name has 1 to 64 letters, digits, `-` or `_`".into());
        }
        let role = Role::parse(&form.role).ok_or("the role is admin or analyst")?;
        let header = worker.live().center.header().to_vec();
        if let Some(c) = columns.iter().find(|c| *c != "*" && !header.contains(c)) {
            return Err(format!("unknown column `{c}`"));
        }
        if worker
            .store
            .user(&name)
            .map_err(|e| e.to_string())?
            .is_some()
        {
            return Err(format!("user `{name}` exists"));
        }
        let (token, hash) = auth::new_token(&name);
        worker
            .store
            .create_user(&name, role.as_str(), &hash)
            .map_err(|e| e.to_string())?;
        if !columns.is_empty() {
            worker
                .store
                .set_grant(&name, &worker.table_name, &columns)
                .map_err(|e| e.to_string())?;
        }
        worker.users_changed().map_err(|f| f.message)?;
        Ok(token)
    })
    .await;
    match created {
        Ok(Ok(token)) => users_page(app, String::new(), "User created.".into(), token).await,
        Ok(Err(message)) => users_page(app, message, String::new(), String::new()).await,
        Err(e) => e,
    }
}

#[derive(Deserialize)]
struct DeleteForm {
    name: String,
}

async fn delete_user(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    Form(form): Form<DeleteForm>,
) -> Response {
    let Some(me) = session(&app, &headers).await else {
        return to_login();
    };
    if me == form.name {
        return users_page(
            app,
            "an admin cannot delete themselves".into(),
            String::new(),
            String::new(),
        )
        .await;
    }
    let worker = app.clone();
    let name = form.name.clone();
    let deleted = blocking(move || {
        let gone = worker.store.delete_user(&name);
        worker.forget(&name);
        gone
    })
    .await;
    match deleted {
        Ok(Ok(true)) => {
            users_page(
                app,
                String::new(),
                format!("Deleted {}.", form.name),
                String::new(),
            )
            .await
        }
        Ok(Ok(false)) => {
            users_page(
                app,
                format!("no user `{}`", form.name),
                String::new(),
                String::new(),
            )
            .await
        }
        Ok(Err(e)) => Failure::internal(e).into_response(),
        Err(e) => e,
    }
}

#[derive(Deserialize)]
struct AuditQuery {
    after: Option<i64>,
}

async fn audit(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    Query(q): Query<AuditQuery>,
) -> Response {
    if session(&app, &headers).await.is_none() {
        return to_login();
    }
    let after = q.after.unwrap_or(0).max(0);
    let entries = match blocking(move || app.store.audit_page(after, PAGE + 1)).await {
        Ok(Ok(e)) => e,
        Ok(Err(e)) => return Failure::internal(e).into_response(),
        Err(e) => return e,
    };
    let more = entries.len() > PAGE;
    let entries: Vec<AuditRow> = entries.into_iter().take(PAGE).collect();
    let first = entries.first().map_or(after, |e| e.id);
    let last = entries.last().map_or(after, |e| e.id);
    html(
        AuditPage {
            signed_in: true,
            error: String::new(),
            note: String::new(),
            entries,
            first: after,
            previous: (first - 1 - PAGE as i64).max(0),
            last,
            more,
        },
        StatusCode::OK,
    )
}
