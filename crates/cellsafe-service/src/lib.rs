//! The gatekeeper service (paper 002, section 4.4): analysts query a data center freely,
//! and every answer passes the gatekeeper of [`cellsafe::gatekeeper`], which drops
//! identifying columns, tests the answer together with everything the same analyst
//! received before, generalizes it when unsafe or refuses it, and records who received
//! what before the answer leaves.
//!
//! The center is described by a cellsafe config file (`[input]`, `[attributes]`,
//! `[safety]`, `[[privacy]]`, `[gatekeeper]`) with a `[service]` section of its own
//! ([`config`]). The data lives in a SQLite database ([`store`]), created from the CSV on
//! first start; the database computes each query's rows, and the gatekeeper judges them.
//!
//! Layout: [`sql`] reads the query language, [`auth`] users and tokens, [`store`] the
//! database and the audit log, [`app`] the state and the pipeline of one query, [`api`]
//! the routes and their OpenAPI description. This crate is a thin layer: decisions are the
//! library's.

pub mod api;
pub mod app;
pub mod auth;
pub mod config;
pub mod server;
pub mod sql;
pub mod store;
pub mod web;

use std::future::Future;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use cellsafe::job::config::Config;
use cellsafe::Table;

use crate::app::App;
use crate::config::ServiceSpec;
use crate::store::Store;

/// Why the service could not start or stopped.
#[derive(Debug, thiserror::Error)]
pub enum ServiceError {
    /// The config, its data or its center is unusable (the message names the key or
    /// file and line).
    #[error(transparent)]
    Center(#[from] cellsafe::Error),
    /// The `[service]` section is unusable.
    #[error("{file}: config key `{key}`: {message}")]
    Config {
        /// The config file.
        file: String,
        /// The key at fault.
        key: String,
        /// What is wrong.
        message: String,
    },
    /// The database failed.
    #[error(transparent)]
    Store(#[from] store::StoreError),
    /// The address could not be bound, or the server failed.
    #[error("{0}")]
    Net(String),
}

/// A configured service, its database open and its center built, not yet listening.
pub struct Service {
    app: Arc<App>,
    spec: ServiceSpec,
}

/// The `[service]` section of `config`.
fn service_spec(config: &Config) -> Result<ServiceSpec, ServiceError> {
    let file = config.file_name();
    match &config.service {
        None => Ok(ServiceSpec::default()),
        Some(t) => toml::Value::Table(t.clone())
            .try_into()
            .map_err(|e: toml::de::Error| ServiceError::Config {
                file,
                key: "service".into(),
                message: e.message().to_string(),
            }),
    }
}

/// The config text without its `[service]` section: the center's settings.
fn center_text(text: &str) -> Result<String, ServiceError> {
    let mut doc: toml::Table = text
        .parse()
        .map_err(|e: toml::de::Error| ServiceError::Net(e.to_string()))?;
    doc.remove("service");
    toml::to_string(&doc).map_err(|e| ServiceError::Net(e.to_string()))
}

impl Service {
    /// Reads `config_path`, opens (creating) the database, imports the CSV on first start,
    /// loads the table, builds the center and creates the configured users. A PostgreSQL
    /// connection runs on `runtime`; call this from outside async code.
    pub fn open(
        config_path: &Path,
        runtime: &tokio::runtime::Handle,
    ) -> Result<Service, ServiceError> {
        let config = Config::from_file(config_path)?;
        let file = config.file_name();
        let spec = service_spec(&config)?;
        if let Some((key, message)) = spec.check() {
            return Err(ServiceError::Config {
                file,
                key: key.into(),
                message,
            });
        }
        let key_error = |key: &str, message: String| ServiceError::Config {
            file: file.clone(),
            key: key.into(),
            message,
        };
        let database = config.resolve(&spec.database.clone().unwrap_or_else(|| {
            PathBuf::from(format!(
                "{}.db",
                config_path
                    .file_stem()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_else(|| "center".into())
            ))
        }));
        let table_name = match &spec.table {
            Some(t) => t.clone(),
            None => config
                .input
                .path
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_else(|| "center".into()),
        };
        if table_name.is_empty() || !table_name.chars().all(|c| c.is_alphanumeric() || c == '_') {
            return Err(key_error(
                "service.table",
                format!("`{table_name}` is not a table name (letters, digits, `_`)"),
            ));
        }
        let store = match &spec.database_url {
            Some(url) => Store::connect(url, runtime.clone())?,
            None => Store::open(&database, spec.database_max_bytes)?,
        };
        let row_key = spec.row_key.clone().unwrap_or_else(|| "_row".into());
        if !store.has_table(&table_name)? {
            if row_key != "_row" {
                return Err(key_error(
                    "service.row_key",
                    format!("table `{table_name}` does not exist, so it has no column `{row_key}`"),
                ));
            }
            let (table, _) = config.read(&cellsafe::observer::Silent)?;
            store.import(&table_name, &table)?;
        }
        let (header, rows) = store.load(&table_name, &row_key)?;
        let table = Table::from_rows(header, &rows)?;
        // the directories an admin's settings may read files from, and the service's own
        // files, which they may never read
        let center_dir = config_path
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        let files = app::Files {
            roots: std::iter::once(center_dir.to_path_buf())
                .chain(spec.files.iter().map(|f| config.resolve(f)))
                .filter_map(|d| std::fs::canonicalize(d).ok())
                .collect(),
            private: std::iter::once(config_path.to_path_buf())
                .chain(
                    ["", "-wal", "-shm", "-journal"]
                        .iter()
                        .map(|s| PathBuf::from(format!("{}{s}", database.display()))),
                )
                .filter_map(|p| app::locate(&p))
                .collect(),
        };
        // the admin's settings, once changed, live in the database; they are held to the
        // directories allowed now
        let stored = store.setting("center")?;
        let text = match &stored {
            Some(t) => t.clone(),
            None => center_text(&cellsafe::input::read_config(config_path)?)?,
        };
        let center_config = Config::parse(&text, config_path)?;
        if stored.is_some() {
            files
                .check(&center_config)
                .map_err(|f| ServiceError::Config {
                    file: file.clone(),
                    key: "the settings an admin stored".into(),
                    message: f.message,
                })?;
        }
        let center = cellsafe::job::gatekeeper::center(&center_config, table.clone())?;
        for (i, u) in spec.users.iter().enumerate() {
            let key = format!("service.users[{i}]");
            if !auth::valid_name(&u.name) {
                return Err(key_error(
                    &format!("{key}.name"),
                    "a user name has 1 to 64 letters, digits, `-` or `_`".into(),
                ));
            }
            if argon2::password_hash::PasswordHash::new(&u.token_hash).is_err() {
                return Err(key_error(
                    &format!("{key}.token_hash"),
                    "not an argon2 hash (PHC string)".into(),
                ));
            }
            for (t, columns) in &u.grants {
                if t != &table_name {
                    return Err(key_error(
                        &format!("{key}.grants.{t}"),
                        format!("unknown table `{t}`"),
                    ));
                }
                if let Some(c) = columns
                    .iter()
                    .find(|c| *c != "*" && !table.header().contains(c))
                {
                    return Err(key_error(
                        &format!("{key}.grants.{t}"),
                        format!("unknown column `{c}`"),
                    ));
                }
            }
            if store.user(&u.name)?.is_none() {
                store.create_user(&u.name, u.role.as_str(), &u.token_hash)?;
                for (t, columns) in &u.grants {
                    store.set_grant(&u.name, t, columns)?;
                }
            }
        }
        let mut app = App::new(
            store,
            table_name,
            row_key,
            table,
            config_path.to_path_buf(),
            center,
            text,
        );
        app.throttle = auth::Throttle::new(
            spec.failed_logins,
            std::time::Duration::from_secs(spec.lockout_seconds),
        );
        app.queries_per_minute = spec.queries_per_minute;
        app.files = files;
        app.users_changed()
            .map_err(|f| ServiceError::Net(f.message))?;
        Ok(Service {
            app: Arc::new(app),
            spec,
        })
    }

    /// Listens on `listen` (default: the config's), calls `ready` with the bound address,
    /// and serves until `shutdown` completes; answers in flight then complete (and are
    /// logged) before this returns, for at most `[service] shutdown_seconds`, after which
    /// the connections still open are closed.
    pub async fn serve(
        self,
        listen: Option<&str>,
        ready: impl FnOnce(SocketAddr),
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> Result<(), ServiceError> {
        let address = listen.unwrap_or(&self.spec.listen);
        let listener = tokio::net::TcpListener::bind(address)
            .await
            .map_err(|e| ServiceError::Net(format!("cannot listen on {address}: {e}")))?;
        let local = listener
            .local_addr()
            .map_err(|e| ServiceError::Net(e.to_string()))?;
        ready(local);
        let seconds = std::time::Duration::from_secs;
        let router = api::router(
            self.app.clone(),
            self.spec.body_limit,
            seconds(self.spec.body_timeout_seconds),
        );
        let limits = server::Limits {
            header_timeout: seconds(self.spec.header_timeout_seconds),
            write_timeout: seconds(self.spec.write_timeout_seconds),
            max_connections: self.spec.max_connections,
            max_per_client: self.spec.max_connections_per_client,
            shutdown: seconds(self.spec.shutdown_seconds),
        };
        server::serve(listener, router, limits, shutdown).await;
        Ok(())
    }
}

/// Completes on SIGTERM or Ctrl-C.
pub async fn terminated() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        _ = ctrl_c => {},
        _ = term => {},
    }
}

/// Opens the service of `config_path` and serves it until SIGTERM or Ctrl-C, on a
/// runtime of its own; `ready` gets the bound address.
pub fn run(
    config_path: &Path,
    listen: Option<&str>,
    ready: impl FnOnce(SocketAddr),
) -> Result<(), ServiceError> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| ServiceError::Net(format!("cannot start the runtime: {e}")))?;
    let service = Service::open(config_path, runtime.handle())?;
    let deadline = std::time::Duration::from_secs(service.spec.shutdown_seconds);
    let served = runtime.block_on(service.serve(listen, ready, terminated()));
    // work still running on the blocking threads (a long query, a database waiting on a
    // lock) gets no more than the deadline either: an answer's entry is committed before
    // the answer is sent, so nothing sent goes unlogged
    runtime.shutdown_timeout(deadline);
    served
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The example center in a fresh directory, opened on a runtime of its own.
    fn example() -> (tempfile::TempDir, tokio::runtime::Runtime, Service) {
        let dir = tempfile::tempdir().unwrap();
        let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/service");
        for f in ["center.csv", "center.toml"] {
            std::fs::copy(examples.join(f), dir.path().join(f)).unwrap();
        }
        let runtime = tokio::runtime::Runtime::new().unwrap();
        let service = Service::open(&dir.path().join("center.toml"), runtime.handle()).unwrap();
        (dir, runtime, service)
    }

    /// A token of a name that is no user costs what a wrong token of a user costs: one
    /// argon2 check, against one of the users' own hashes (their parameters, their
    /// memory), and the same 401. (The review measured 0.6 ms for an unknown name and
    /// about 100 ms for a known one.)
    #[test]
    fn an_unknown_name_costs_one_check_against_a_users_hash() {
        let (_dir, runtime, service) = example();
        let app = service.app.clone();
        let from: std::net::IpAddr = "127.0.0.1".parse().unwrap();
        let wrong = |name: &str| format!("Bearer {name}.{}", "0".repeat(64));
        let hashes: Vec<String> = ["admin", "ana"]
            .iter()
            .map(|n| app.store.user(n).unwrap().unwrap().1)
            .collect();
        for (name, known) in [
            ("ana", true),
            ("nobody", false),
            ("admin", true),
            ("zed-9", false),
        ] {
            let before = app.argon2_checks();
            let header = wrong(name);
            let failure = runtime
                .block_on(app.authenticate(Some(&header), from))
                .unwrap_err();
            assert_eq!(
                (failure.status, failure.message.as_str()),
                (401, "invalid token")
            );
            assert_eq!(app.argon2_checks(), before + 1, "{name}: one check");
            if !known {
                assert!(
                    hashes.contains(&app.stand_in(name)),
                    "{name}: a user's hash"
                );
            }
        }
        // a name no user can have is refused without a look-up or a check
        let before = app.argon2_checks();
        let failure = runtime
            .block_on(app.authenticate(Some("Bearer a/b.x"), from))
            .unwrap_err();
        assert_eq!(failure.status, 401);
        assert_eq!(app.argon2_checks(), before);
    }

    /// Clients that hang up while their wrong token is checked free no place before the
    /// check ends: no more checks run at once than the cores (the permit used to be
    /// dropped with the request, while argon2 went on on its thread).
    #[test]
    fn hung_up_checks_keep_their_place_until_they_end() {
        let (_dir, runtime, service) = example();
        let app = service.app.clone();
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get()) as u64;
        let from: std::net::IpAddr = "127.0.0.1".parse().unwrap();
        runtime.block_on(async {
            for round in 0..4u64 {
                let before = app.argon2_checks();
                let tasks: Vec<_> = (0..12)
                    .map(|i| {
                        let app = app.clone();
                        tokio::spawn(async move {
                            let header = format!("Bearer u{round}x{i}.{}", "0".repeat(64));
                            let _ = app.authenticate(Some(&header), from).await;
                        })
                    })
                    .collect();
                // once a check runs, every client hangs up
                while app.argon2_checks() == before {
                    tokio::task::yield_now().await;
                }
                for t in &tasks {
                    t.abort();
                }
            }
            while app.running.load(std::sync::atomic::Ordering::SeqCst) > 0 {
                tokio::task::yield_now().await;
            }
        });
        let most = app.most_argon2_at_once();
        assert!(
            most >= 1 && most <= cores,
            "{most} checks at once on {cores} cores"
        );
    }

    /// A page session lasts 30 minutes unused and 8 hours in all, and ends when its user
    /// is no longer an admin (changed in the database: no endpoint changes a role).
    #[test]
    fn page_sessions_expire_and_end_with_the_admin_role() {
        let (dir, runtime, service) = example();
        let app = service.app.clone();
        let from: std::net::IpAddr = "127.0.0.1".parse().unwrap();
        let admin = "Bearer admin.9f2c4e7a1b8d3f60c5e2a7b94d1f8e3c6a0b5d2e7f4c1a8b3e6d9f2c5a8b1e4d";
        let user = runtime
            .block_on(app.authenticate(Some(admin), from))
            .unwrap();
        let id = app.open_session(&user);
        assert_eq!(
            app.session(&id).unwrap().map(|u| u.name),
            Some("admin".into())
        );
        // the clock, moved by hand
        let shift = |idle: std::time::Duration, age: std::time::Duration| {
            let now = std::time::Instant::now();
            app::tests_support::age_session(&app, &id, now - idle, now - age);
        };
        shift(
            app::SESSION_IDLE - std::time::Duration::from_secs(5),
            std::time::Duration::ZERO,
        );
        assert!(app.session(&id).unwrap().is_some(), "used 29 minutes ago");
        shift(
            app::SESSION_IDLE + std::time::Duration::from_secs(1),
            std::time::Duration::ZERO,
        );
        assert!(app.session(&id).unwrap().is_none(), "unused for 30 minutes");
        let id = app.open_session(&user);
        let now = std::time::Instant::now();
        app::tests_support::age_session(&app, &id, now, now - app::SESSION_MAX);
        assert!(app.session(&id).unwrap().is_none(), "8 hours after sign-in");
        let id = app.open_session(&user);
        assert!(app.session(&id).unwrap().is_some());
        let db = rusqlite::Connection::open(dir.path().join("center.db")).unwrap();
        db.execute("UPDATE users SET role = 'analyst' WHERE name = 'admin'", [])
            .unwrap();
        assert!(app.session(&id).unwrap().is_none(), "no longer an admin");
    }
}
