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
//! failed_logins = 5           # wrong tokens in a row that lock a user name (0: never)
//! lockout_seconds = 60        # how long, from the last wrong token
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
            users: Vec::new(),
        }
    }
}
