//! The workbench of cellsafe (`cellsafe studio`): a whole job built, run and explored in a
//! browser, for people who do not write TOML.
//!
//! A local web application over the library: a table is loaded (uploaded, or named by its
//! path on this machine) and profiled; each column gets a role and each quasi-identifier a
//! hierarchy, previewed on the column's own values; models, metric, suppression limit and
//! search are chosen; the job runs with progress and can be cancelled; its result is
//! explored (levels, lattice, class sizes and risks before and after, distributions,
//! released rows); the job is exported as TOML and the audited release and its report
//! are downloaded.
//!
//! The browser holds the job as the TOML job's keys (JSON); every check and every run
//! goes through the job layer (`cellsafe::job`): the TOML text a run uses is the one the
//! export gives, so `cellsafe anonymize` on the export makes the same release. The pages
//! are plain HTML, CSS and a little JavaScript compiled into the binary; charts are SVG
//! drawn here; nothing is fetched from another host.
//!
//! Access needs the random token of the URL printed at start ([`auth`]); connections are
//! served by the gatekeeper service's listening loop, under its limits.
//!
//! Modules: [`auth`] (the token and sessions), [`workspace`] (the studio's directory, the
//! loaded table and its profile), [`draft`] (the browser's job keys → TOML → a checked
//! `Config`, errors by key), [`run`] (a job on its own thread with progress and Cancel),
//! [`explore`] (what the result page shows), [`svg`] (the charts), [`routes`] (the HTTP
//! interface).

pub mod auth;
pub mod draft;
pub mod explore;
pub mod routes;
pub mod run;
pub mod svg;
pub mod workspace;

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

pub use routes::router;

/// What can stop the studio from starting.
#[derive(Debug, thiserror::Error)]
pub enum StudioError {
    /// The address cannot be listened on.
    #[error("cannot listen on {address}: {source}")]
    Listen {
        /// The address asked for.
        address: String,
        /// Why not.
        source: std::io::Error,
    },
    /// The studio's working directory (or its runtime) cannot be made.
    #[error("cannot start the studio: {0}")]
    Directory(std::io::Error),
}

/// How the studio runs.
#[derive(Debug, Clone)]
pub struct Options {
    /// Where to listen (`127.0.0.1:0` picks a free port on loopback).
    pub listen: String,
    /// Largest upload accepted, in bytes.
    pub max_upload: u64,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            listen: "127.0.0.1:0".to_owned(),
            max_upload: 2 << 30,
        }
    }
}

/// A studio ready to serve: its state and the token that opens it.
pub struct Studio {
    state: Arc<routes::State>,
}

impl Studio {
    /// A studio with a new random token and a new working directory (removed when the
    /// studio is dropped).
    pub fn new(options: &Options) -> Result<Studio, StudioError> {
        let workspace = workspace::Workspace::new().map_err(StudioError::Directory)?;
        Ok(Studio {
            state: Arc::new(routes::State::new(
                auth::Auth::new(),
                workspace,
                options.max_upload,
            )),
        })
    }

    /// The token the URL carries.
    pub fn token(&self) -> &str {
        self.state.auth.token()
    }

    /// The URL that opens the studio listening on `address`.
    pub fn url(&self, address: SocketAddr) -> String {
        format!("http://{address}/?token={}", self.token())
    }

    /// Serves until `shutdown` completes; `ready` is told first the address listened on,
    /// the URL that opens the studio, and a file that opens it too (an HTML page that
    /// forwards to the URL, readable by its owner alone: a browser opened on it does not
    /// show the token on a command line that other users of the machine can list).
    pub async fn serve(
        self,
        listen: &str,
        ready: impl FnOnce(SocketAddr, &str, &std::path::Path),
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> Result<(), StudioError> {
        let listener = tokio::net::TcpListener::bind(listen)
            .await
            .map_err(|source| StudioError::Listen {
                address: listen.to_owned(),
                source,
            })?;
        let address = listener
            .local_addr()
            .map_err(|source| StudioError::Listen {
                address: listen.to_owned(),
                source,
            })?;
        let url = self.url(address);
        let opener = self.state.opener(&url).map_err(StudioError::Directory)?;
        ready(address, &url, &opener);
        let limits = cellsafe_service::server::Limits {
            header_timeout: Duration::from_secs(30),
            write_timeout: Duration::from_secs(60),
            max_connections: 64,
            max_per_client: 32,
            shutdown: Duration::from_secs(5),
        };
        let state = self.state.clone();
        cellsafe_service::server::serve(listener, router(state.clone()), limits, shutdown).await;
        // a job still running is stopped: its staged files are removed by the job layer
        state.stop();
        Ok(())
    }
}

/// Starts a studio with `options` and serves it until SIGTERM or Ctrl-C, on a runtime of
/// its own; `ready` gets what [`Studio::serve`] gives it.
pub fn run(
    options: &Options,
    ready: impl FnOnce(SocketAddr, &str, &std::path::Path),
) -> Result<(), StudioError> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(StudioError::Directory)?;
    let studio = Studio::new(options)?;
    let served =
        runtime.block_on(studio.serve(&options.listen, ready, cellsafe_service::terminated()));
    runtime.shutdown_timeout(Duration::from_secs(5));
    served
}
