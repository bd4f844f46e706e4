//! `[service]`: the service's own settings in the center's config file.
//!
//! ```toml
//! [service]
//! listen = "127.0.0.1:8080"   # address and port (port 0: any free port)
//! database = "center.db"      # SQLite file, relative to the config (created on first start)
//! database_url = "host=/var/run/postgresql user=cellsafe dbname=center"  # PostgreSQL instead
//! row_key = "_row"            # the column ordering the rows (a table already in PostgreSQL
//!                             # names a unique column of its own)
//! table = "patients"          # the table's name in queries (default: the input file's stem)
//! body_limit = 65536          # most bytes of a request body
//! failed_logins = 5           # wrong tokens in a row that lock a user name for one client
//!                             # address (0: never)
//! lockout_seconds = 60        # how long, from the last wrong token
//! header_timeout_seconds = 10 # most time to send a request's head (and to stay idle
//!                             # between requests)
//! body_timeout_seconds = 30   # most time to send a request's body
//! write_timeout_seconds = 30  # most time an answer's write may wait on a client that
//!                             # reads nothing
//! max_connections = 512       # connections open at once
//! max_connections_per_client = 32  # of them from one client address
//! shutdown_seconds = 30       # on SIGTERM, how long answers in flight may take before
//!                             # the connections still open are closed
//! queries_per_minute = 120    # per user; more get 429 and are not logged
//! database_max_bytes = 0      # SQLite: the database grows no larger (0: no cap); then
//!                             # queries are refused, never answered unlogged
//! files = ["/srv/center/hierarchies"]  # directories the admin's settings may read
//!                             # files from, besides the config's own directory
//!
//! [[service.users]]           # created on first start when absent
//! name = "admin"
//! role = "admin"              # or "analyst"
//! token_hash = "$argon2id$..."  # argon2 hash of the token's secret (after `NAME.`)
//! grants = { patients = ["*"] } # per table, the columns it may query
//! ```

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::Deserialize;

use crate::auth::Role;

/// `[service]` as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ServiceSpec {
    /// Address to listen on.
    #[serde(default = "default_listen")]
    pub listen: String,
    /// The SQLite database, relative to the config file.
    #[serde(default)]
    pub database: Option<PathBuf>,
    /// A PostgreSQL connection string (URL or `key=value` pairs): the data center lives
    /// there instead of in SQLite.
    #[serde(default)]
    pub database_url: Option<String>,
    /// The column ordering and naming the rows (default `_row`, which the service creates
    /// when it imports the CSV).
    #[serde(default)]
    pub row_key: Option<String>,
    /// The table's name in queries.
    #[serde(default)]
    pub table: Option<String>,
    /// Most bytes of a request body.
    #[serde(default = "default_body_limit")]
    pub body_limit: usize,
    /// Wrong tokens in a row after which a user name is locked (0: never).
    #[serde(default = "default_failed_logins")]
    pub failed_logins: u32,
    /// How long a locked name stays locked, from its last wrong token.
    #[serde(default = "default_lockout_seconds")]
    pub lockout_seconds: u64,
    /// Most seconds a client may take to send a request's head, or stay idle between
    /// requests.
    #[serde(default = "default_header_timeout")]
    pub header_timeout_seconds: u64,
    /// Most seconds a client may take to send a request's body.
    #[serde(default = "default_body_timeout")]
    pub body_timeout_seconds: u64,
    /// Most seconds a write of an answer may make no progress (a client that reads
    /// nothing) before its connection is closed.
    #[serde(default = "default_body_timeout")]
    pub write_timeout_seconds: u64,
    /// Connections open at once.
    #[serde(default = "default_max_connections")]
    pub max_connections: usize,
    /// Connections open at once from one client address.
    #[serde(default = "default_max_connections_per_client")]
    pub max_connections_per_client: usize,
    /// After SIGTERM, most seconds the answers in flight may take before the open
    /// connections are closed.
    #[serde(default = "default_shutdown_seconds")]
    pub shutdown_seconds: u64,
    /// Queries per user and minute (a burst of as many, refilled evenly).
    #[serde(default = "default_queries_per_minute")]
    pub queries_per_minute: u32,
    /// SQLite: the database's largest size in bytes (0: no cap).
    #[serde(default)]
    pub database_max_bytes: u64,
    /// Directories the admin's settings may read files from (hierarchies, the `[safety]`
    /// file), besides the config file's own directory.
    #[serde(default)]
    pub files: Vec<PathBuf>,
    /// Users created on first start.
    #[serde(default)]
    pub users: Vec<UserSpec>,
}

/// `[[service.users]]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UserSpec {
    /// Login name.
    pub name: String,
    /// `admin` or `analyst`.
    pub role: Role,
    /// The argon2 hash (PHC string) of the token's secret.
    pub token_hash: String,
    /// Per table, the columns granted (`*`: all).
    #[serde(default)]
    pub grants: BTreeMap<String, Vec<String>>,
}

fn default_listen() -> String {
    "127.0.0.1:8080".into()
}

fn default_body_limit() -> usize {
    64 * 1024
}

fn default_failed_logins() -> u32 {
    5
}

fn default_lockout_seconds() -> u64 {
    60
}

fn default_header_timeout() -> u64 {
    10
}

fn default_body_timeout() -> u64 {
    30
}

fn default_max_connections() -> usize {
    512
}

fn default_max_connections_per_client() -> usize {
    32
}

fn default_shutdown_seconds() -> u64 {
    30
}

fn default_queries_per_minute() -> u32 {
    120
}

impl ServiceSpec {
    /// The first setting out of range: (key, why).
    pub fn check(&self) -> Option<(&'static str, String)> {
        let positive: [(&'static str, u64); 7] = [
            ("service.body_limit", self.body_limit as u64),
            (
                "service.header_timeout_seconds",
                self.header_timeout_seconds,
            ),
            ("service.body_timeout_seconds", self.body_timeout_seconds),
            ("service.max_connections", self.max_connections as u64),
            (
                "service.max_connections_per_client",
                self.max_connections_per_client as u64,
            ),
            ("service.shutdown_seconds", self.shutdown_seconds),
            (
                "service.queries_per_minute",
                u64::from(self.queries_per_minute),
            ),
        ];
        if let Some((key, _)) = positive.iter().find(|(_, v)| *v == 0) {
            return Some((key, "must be at least 1".into()));
        }
        // a year: longer is a mistake, and Instant arithmetic stays far from overflow
        const YEAR: u64 = 365 * 24 * 3600;
        let seconds = [
            ("service.lockout_seconds", self.lockout_seconds),
            (
                "service.header_timeout_seconds",
                self.header_timeout_seconds,
            ),
            ("service.body_timeout_seconds", self.body_timeout_seconds),
            ("service.write_timeout_seconds", self.write_timeout_seconds),
            ("service.shutdown_seconds", self.shutdown_seconds),
        ];
        if let Some((key, _)) = seconds.iter().find(|(_, v)| *v > YEAR) {
            return Some((key, format!("must be at most {YEAR} (a year)")));
        }
        if self.body_limit > MAX_BODY_LIMIT {
            return Some((
                "service.body_limit",
                format!("must be at most {MAX_BODY_LIMIT} bytes"),
            ));
        }
        if self.max_connections_per_client > self.max_connections {
            return Some((
                "service.max_connections_per_client",
                "must be at most max_connections".into(),
            ));
        }
        None
    }
}

/// The largest `body_limit` accepted: 64 MiB.
pub const MAX_BODY_LIMIT: usize = 64 << 20;

impl Default for ServiceSpec {
    fn default() -> Self {
        ServiceSpec {
            listen: default_listen(),
            database: None,
            database_url: None,
            row_key: None,
            table: None,
            body_limit: default_body_limit(),
            failed_logins: default_failed_logins(),
            lockout_seconds: default_lockout_seconds(),
            header_timeout_seconds: default_header_timeout(),
            body_timeout_seconds: default_body_timeout(),
            write_timeout_seconds: default_body_timeout(),
            max_connections: default_max_connections(),
            max_connections_per_client: default_max_connections_per_client(),
            shutdown_seconds: default_shutdown_seconds(),
            queries_per_minute: default_queries_per_minute(),
            database_max_bytes: 0,
            files: Vec::new(),
            users: Vec::new(),
        }
    }
}
