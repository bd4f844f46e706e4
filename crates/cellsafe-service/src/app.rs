//! The service's state and the pipeline of one query: authenticate, parse, check grants,
//! let the database find the rows, let the gatekeeper judge them against the user's
//! knowledge, write the audit entry, then answer.

use std::collections::{BTreeMap, HashMap};
use std::net::IpAddr;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};

use cellsafe::gatekeeper::{Answer, Center, Disclosure, Knowledge, Outcome};
use cellsafe::job::config::Config;
use cellsafe::{Error, Table};
use rand::RngCore;

use crate::auth::{self, Role, Throttle, Verified};
use crate::sql;
use crate::store::{Entry, Store};

/// What went wrong with a request: an HTTP status and a message for the client.
#[derive(Debug, Clone)]
pub struct Failure {
    /// HTTP status code.
    pub status: u16,
    /// Message for the client.
    pub message: String,
    /// The audit entry written for it, if any.
    pub audit_id: Option<i64>,
    /// For a refusal: the outcome.
    pub refused: bool,
}

impl Failure {
    pub(crate) fn new(status: u16, message: impl Into<String>) -> Failure {
        Failure {
            status,
            message: message.into(),
            audit_id: None,
            refused: false,
        }
    }
    pub(crate) fn internal(e: impl std::fmt::Display) -> Failure {
        Failure::new(500, format!("internal error: {e}"))
    }
}

/// A signed-in user.
#[derive(Debug, Clone)]
pub struct User {
    /// Login name.
    pub name: String,
    /// Role.
    pub role: Role,
    /// The stored hash their token was checked against: a session opened with it ends
    /// when the user's hash changes (a new token) or the user is gone.
    pub(crate) token_hash: String,
}

/// How long an admin page session lasts without use.
pub const SESSION_IDLE: Duration = Duration::from_secs(30 * 60);
/// How long an admin page session lasts at most, however often it is used.
pub const SESSION_MAX: Duration = Duration::from_secs(8 * 3600);

/// An admin page session.
struct Session {
    user: String,
    token_hash: String,
    opened: Instant,
    used: Instant,
}

/// The center as currently configured.
pub struct Live {
    /// The gatekeeper.
    pub center: Center,
    /// The config text it was built from (without `[service]`).
    pub text: String,
    /// Bumped at every change: knowledge built under another generation is rebuilt.
    pub generation: u64,
}

/// A user's knowledge, built lazily from their disclosures in the audit log.
#[derive(Default)]
pub struct Held {
    generation: u64,
    knowledge: Option<Knowledge>,
}

/// The whole service state.
pub struct App {
    /// The database.
    pub store: Store,
    /// The table's name in queries.
    pub table_name: String,
    /// The column ordering and naming its rows (`_row` when the service created it).
    pub row_key: String,
    /// The table as loaded from the database.
    pub table: Table,
    /// The config file (relative paths in the center's settings resolve from it).
    pub config_path: PathBuf,
    live: RwLock<Arc<Live>>,
    held: Mutex<HashMap<String, Arc<tokio::sync::Mutex<Held>>>>,
    /// Tokens checked already.
    pub verified: Verified,
    /// Wrong tokens per user name and client address.
    pub throttle: Throttle,
    /// Argon2 checks running at once: as many as the cores, so that a flood of wrong
    /// tokens costs a bounded amount of memory (each check takes its hash's `m`).
    argon2: Arc<tokio::sync::Semaphore>,
    /// The users' token hashes, by name: a token of a name that is no user is checked
    /// against one of them (chosen by a keyed hash of the name), so that both paths cost
    /// the same and the answer's time does not tell which names exist.
    hashes: RwLock<Vec<String>>,
    /// The key choosing that hash.
    hash_key: std::hash::RandomState,
    /// Argon2 checks run so far.
    checks: AtomicU64,
    /// Argon2 checks running now, and the most that ever ran at once.
    pub(crate) running: AtomicU64,
    most_running: AtomicU64,
    /// Admin page sessions by id.
    sessions: Mutex<HashMap<String, Session>>,
    /// Queries per user and minute.
    pub queries_per_minute: u32,
    /// Per user, the queries they may still send now and when that was counted (a token
    /// bucket of `queries_per_minute`).
    rates: Mutex<HashMap<String, (f64, Instant)>>,
    /// The files the admin's settings may read.
    pub files: Files,
}

/// A released answer, as sent.
#[derive(Debug, Clone, serde::Serialize, utoipa::ToSchema)]
pub struct Released {
    /// The audit entry of this answer.
    pub audit_id: i64,
    /// `released` (as asked) or `generalized`.
    pub outcome: String,
    /// `none`, `levels`, `radius`, `maximal` or `merge`.
    pub method: String,
    /// Level of each selected quasi-identifier (0: as in the data).
    pub levels: BTreeMap<String, u8>,
    /// Cells released holding more than one value.
    pub generalized_cells: usize,
    /// Mean over released cells of (values allowed − 1) / (values of the column − 1).
    pub loss: f64,
    /// Identifying columns the filter dropped.
    pub dropped: Vec<String>,
    /// Column names.
    pub columns: Vec<String>,
    /// Rows, in a random order.
    pub rows: Vec<Vec<String>>,
}

fn outcome_name(o: Outcome) -> &'static str {
    match o {
        Outcome::Released => "released",
        Outcome::Generalized => "generalized",
        Outcome::Refused => "refused",
    }
}

impl App {
    pub(crate) fn new(
        store: Store,
        table_name: String,
        row_key: String,
        table: Table,
        config_path: PathBuf,
        center: Center,
        text: String,
    ) -> App {
        App {
            store,
            table_name,
            row_key,
            table,
            config_path,
            live: RwLock::new(Arc::new(Live {
                center,
                text,
                generation: 1,
            })),
            held: Mutex::new(HashMap::new()),
            verified: Verified::default(),
            throttle: Throttle::new(5, std::time::Duration::from_secs(60)),
            argon2: Arc::new(tokio::sync::Semaphore::new(
                std::thread::available_parallelism().map_or(1, |n| n.get()),
            )),
            hashes: RwLock::new(Vec::new()),
            hash_key: std::hash::RandomState::new(),
            checks: AtomicU64::new(0),
            running: AtomicU64::new(0),
            most_running: AtomicU64::new(0),
            sessions: Mutex::new(HashMap::new()),
            queries_per_minute: 120,
            rates: Mutex::new(HashMap::new()),
            files: Files::default(),
        }
    }

    /// Takes one query from `user`'s allowance: Err(seconds until the next) when none is
    /// left. Only signed-in users get here, so the map holds at most one entry per user.
    pub fn take_query(&self, user: &str, now: Instant) -> Result<(), Failure> {
        let per_minute = f64::from(self.queries_per_minute.max(1));
        let mut rates = self.rates.lock().unwrap_or_else(|p| p.into_inner());
        if rates.len() >= auth::MAX_TRACKED && !rates.contains_key(user) {
            rates.retain(|_, (_, at)| now.saturating_duration_since(*at) < Duration::from_secs(60));
        }
        let (left, at) = rates.entry(user.to_string()).or_insert((per_minute, now));
        let refill = now.saturating_duration_since(*at).as_secs_f64() * per_minute / 60.0;
        *left = (*left + refill).min(per_minute);
        *at = now;
        if *left < 1.0 {
            let wait = ((1.0 - *left) * 60.0 / per_minute).ceil();
            return Err(Failure::new(
                429,
                format!(
                    "too many queries: at most {} a minute; try again in {wait} s",
                    self.queries_per_minute
                ),
            ));
        }
        *left -= 1.0;
        Ok(())
    }

    /// Checks the files `config` reads against [`files`](Self::files).
    pub fn check_files(&self, config: &Config) -> Result<(), Failure> {
        self.files.check(config)
    }

    /// Reads the users' token hashes again; call after any change of users or tokens.
    pub fn users_changed(&self) -> Result<(), Failure> {
        let mut hashes = Vec::new();
        for u in self.store.users().map_err(Failure::internal)? {
            if let Some((_, hash)) = self.store.user(&u.name).map_err(Failure::internal)? {
                hashes.push(hash);
            }
        }
        if hashes.is_empty() {
            // no user yet: a hash of the service's own parameters
            hashes.push(auth::hash_secret("no user"));
        }
        *self.hashes.write().unwrap_or_else(|p| p.into_inner()) = hashes;
        Ok(())
    }

    /// Argon2 checks run so far (the same for a name that is a user and one that is not).
    pub fn argon2_checks(&self) -> u64 {
        self.checks.load(Ordering::SeqCst)
    }

    /// The most argon2 checks that ever ran at once (at most the cores).
    pub fn most_argon2_at_once(&self) -> u64 {
        self.most_running.load(Ordering::SeqCst)
    }

    /// The hash a token of `name`, which is no user, is checked against.
    pub(crate) fn stand_in(&self, name: &str) -> String {
        use std::hash::BuildHasher;
        let hashes = self.hashes.read().unwrap_or_else(|p| p.into_inner());
        if hashes.is_empty() {
            return String::new();
        }
        hashes[(self.hash_key.hash_one(name) % hashes.len() as u64) as usize].clone()
    }

    /// The center as currently configured.
    pub fn live(&self) -> Arc<Live> {
        self.live.read().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// Rebuilds the center from config `text`; on success stores it and makes it live.
    pub fn reconfigure(&self, text: String) -> Result<Arc<Live>, Failure> {
        let config = Config::parse(&text, &self.config_path)
            .map_err(|e| Failure::new(400, e.to_string()))?;
        self.check_files(&config)?;
        let center = cellsafe::job::gatekeeper::center(&config, self.table.clone())
            .map_err(|e| Failure::new(400, e.to_string()))?;
        let mut live = self.live.write().unwrap_or_else(|p| p.into_inner());
        self.store
            .put_setting("center", &text)
            .map_err(Failure::internal)?;
        let next = Arc::new(Live {
            center,
            text,
            generation: live.generation + 1,
        });
        *live = next.clone();
        Ok(next)
    }

    /// The user a bearer token (`Authorization` header) from client address `from`
    /// belongs to. Argon2 checks wait for one of a few permits; a name locked for `from`
    /// after wrong tokens gets 429 without a check.
    pub async fn authenticate(
        self: &Arc<Self>,
        header: Option<&str>,
        from: IpAddr,
    ) -> Result<User, Failure> {
        let unauthorized = |m: &str| Failure::new(401, m);
        let token = header
            .and_then(|h| h.strip_prefix("Bearer "))
            .ok_or_else(|| unauthorized("missing token: send `Authorization: Bearer NAME.SECRET`"))?
            .trim()
            .to_string();
        let (name, secret) = token
            .split_once('.')
            .ok_or_else(|| unauthorized("malformed token"))?;
        // a name no user can have, or a secret of another length than ours, is refused
        // without a look-up: no name is told apart from another by it
        if !auth::valid_name(name) || secret.len() > auth::MAX_SECRET {
            return Err(unauthorized("invalid token"));
        }
        let (name, secret) = (name.to_string(), secret.to_string());
        let app = self.clone();
        let lookup = name.clone();
        let found = tokio::task::spawn_blocking(move || app.store.user(&lookup))
            .await
            .map_err(Failure::internal)?
            .map_err(Failure::internal)?;
        let user = |role: &str, hash: &str| -> Result<User, Failure> {
            Ok(User {
                name: name.clone(),
                role: Role::parse(role).ok_or_else(|| Failure::internal("a stored role"))?,
                token_hash: hash.to_string(),
            })
        };
        if let Some((role, hash)) = &found {
            if self.verified.passes(&token, &name, hash) {
                return user(role, hash);
            }
        }
        if let Err(wait) = self.throttle.attempt(&name, from, Instant::now()) {
            return Err(Failure::new(
                429,
                format!(
                    "too many wrong tokens for `{name}` from your address: try again in {} s",
                    wait.as_secs() + 1
                ),
            ));
        }
        // the permit goes with the check onto its thread: a client that hangs up frees
        // its place only when its check has finished, so no more checks run than permits
        let permit = self
            .argon2
            .clone()
            .acquire_owned()
            .await
            .map_err(Failure::internal)?;
        let hash = match &found {
            Some((_, hash)) => hash.clone(),
            None => self.stand_in(&name),
        };
        let app = self.clone();
        let right = tokio::task::spawn_blocking(move || {
            let _permit = permit;
            let running = app.running.fetch_add(1, Ordering::SeqCst) + 1;
            app.most_running.fetch_max(running, Ordering::SeqCst);
            app.checks.fetch_add(1, Ordering::SeqCst);
            let right = auth::verify(&secret, &hash);
            app.running.fetch_sub(1, Ordering::SeqCst);
            right
        })
        .await
        .map_err(Failure::internal)?;
        match found {
            Some((role, stored)) if right => {
                self.throttle.succeeded(&name, from);
                self.verified.insert(&token, &name, &stored);
                user(&role, &stored)
            }
            _ => Err(unauthorized("invalid token")),
        }
    }

    /// Opens an admin page session for `user` (signed in with their token): its id.
    pub fn open_session(&self, user: &User) -> String {
        let mut bytes = [0u8; 32];
        rand::rngs::OsRng.fill_bytes(&mut bytes);
        let id: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        let now = Instant::now();
        let mut sessions = self.sessions.lock().unwrap_or_else(|p| p.into_inner());
        sessions.retain(|_, s| live_session(s, now));
        if sessions.len() >= auth::MAX_TRACKED {
            if let Some(oldest) = sessions
                .iter()
                .min_by_key(|(_, s)| s.used)
                .map(|(k, _)| k.clone())
            {
                sessions.remove(&oldest);
            }
        }
        sessions.insert(
            id.clone(),
            Session {
                user: user.name.clone(),
                token_hash: user.token_hash.clone(),
                opened: now,
                used: now,
            },
        );
        id
    }

    /// The admin of session `id`, re-checked against the store at every request: the
    /// session ends when it expires, or when its user is deleted, gets a new token or is
    /// no longer an admin. Blocking (reads the store).
    pub fn session(&self, id: &str) -> Result<Option<User>, Failure> {
        let now = Instant::now();
        let (name, token_hash) = {
            let mut sessions = self.sessions.lock().unwrap_or_else(|p| p.into_inner());
            let Some(s) = sessions.get_mut(id) else {
                return Ok(None);
            };
            if !live_session(s, now) {
                sessions.remove(id);
                return Ok(None);
            }
            s.used = now;
            (s.user.clone(), s.token_hash.clone())
        };
        let stored = self.store.user(&name).map_err(Failure::internal)?;
        match stored {
            Some((role, hash)) if role == Role::Admin.as_str() && hash == token_hash => {
                Ok(Some(User {
                    name,
                    role: Role::Admin,
                    token_hash,
                }))
            }
            _ => {
                self.end_session(id);
                Ok(None)
            }
        }
    }

    /// Ends session `id`.
    pub fn end_session(&self, id: &str) {
        self.sessions
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(id);
    }

    /// Ends every session of `user`.
    pub fn end_sessions_of(&self, user: &str) {
        self.sessions
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .retain(|_, s| s.user != user);
    }

    /// The slot holding `user`'s knowledge (its lock serializes the user's queries).
    pub fn slot(&self, user: &str) -> Arc<tokio::sync::Mutex<Held>> {
        self.held
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .entry(user.to_string())
            .or_default()
            .clone()
    }

    /// Forgets what is cached for `user` (after a deletion or a new token): checked
    /// tokens, sessions, the stand-in hashes.
    pub fn forget(&self, user: &str) {
        self.verified.forget(user);
        self.end_sessions_of(user);
        let _ = self.users_changed();
        self.held
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(user);
    }

    fn audit(&self, e: Entry) -> Result<i64, Failure> {
        self.store.append(&e).map_err(audit_failure)
    }

    /// Writes a `rejected` entry and returns the failure with its id.
    fn reject(&self, user: &User, query: &str, mut f: Failure) -> Failure {
        match self.audit(Entry {
            user: user.name.clone(),
            query: query.to_string(),
            outcome: "rejected".into(),
            method: None,
            levels: None,
            rows: 0,
            reason: Some(crate::api::cut(&f.message)),
            detail: None,
            disclosure: None,
        }) {
            Ok(id) => {
                f.audit_id = Some(id);
                f
            }
            Err(e) => e,
        }
    }

    /// The whole pipeline for one query of `user`, whose knowledge `held` is locked. Every
    /// failure is in the audit log: one that wrote no entry of its own (the database or
    /// the gatekeeper failed) gets a `rejected` entry, best effort.
    pub fn query(&self, user: &User, text: &str, held: &mut Held) -> Result<Released, Failure> {
        match self.answer_query(user, text, held) {
            Err(f) if f.audit_id.is_none() && f.status != 503 => Err(self.reject(user, text, f)),
            other => other,
        }
    }

    fn answer_query(&self, user: &User, text: &str, held: &mut Held) -> Result<Released, Failure> {
        let live = self.live();
        let parsed = match sql::parse(text) {
            Ok(p) => p,
            Err(reason) => return Err(self.reject(user, text, Failure::new(400, reason))),
        };
        if parsed.table != self.table_name {
            let f = Failure::new(404, format!("unknown table `{}`", parsed.table));
            return Err(self.reject(user, text, f));
        }
        let mut request = parsed.request;
        if let Err(f) = self.check_grants(user, &live.center, &mut request) {
            return Err(self.reject(user, text, f));
        }
        let center = &live.center;
        // columns and conditions are checked against the center before the database runs
        if let Err(e) = center.validate(&request) {
            return Err(self.reject(user, text, query_failure(e)));
        }
        let numeric = |c: &str| center.is_numeric(c);
        let rows = self
            .store
            .matching_rows(
                &self.table_name,
                &self.row_key,
                &request.conditions,
                &numeric,
            )
            .map_err(Failure::internal)?;
        let expected = center
            .matching_rows(&request.conditions)
            .map_err(Failure::internal)?;
        if rows != expected {
            return Err(Failure::internal(
                "the database and the gatekeeper disagree on the rows of this query",
            ));
        }
        if held.generation != live.generation || held.knowledge.is_none() {
            let stored = self
                .store
                .disclosures(&user.name)
                .map_err(Failure::internal)?;
            let disclosures = stored
                .iter()
                .map(|s| serde_json::from_str::<Disclosure>(s))
                .collect::<Result<Vec<_>, _>>()
                .map_err(Failure::internal)?;
            held.knowledge = Some(center.knowledge(&disclosures));
            held.generation = live.generation;
        }
        let knowledge = held.knowledge.as_mut().expect("built above");
        let seed = rand::rngs::OsRng.next_u64();
        let answer: Answer = match center.answer(knowledge, &request, &rows, seed) {
            Ok(a) => a,
            Err(e) => return Err(self.reject(user, text, query_failure(e))),
        };
        let v = &answer.verdict;
        let detail = serde_json::to_string(v).map_err(Failure::internal)?;
        let disclosure = answer
            .disclosure
            .as_ref()
            .map(serde_json::to_string)
            .transpose()
            .map_err(Failure::internal)?;
        let id = self.audit(Entry {
            user: user.name.clone(),
            query: text.to_string(),
            outcome: outcome_name(v.outcome).into(),
            method: Some(format!("{:?}", v.method).to_lowercase()),
            levels: Some(serde_json::to_string(&v.levels).map_err(Failure::internal)?),
            rows: v.rows,
            reason: v.reason.clone(),
            detail: Some(detail),
            disclosure,
        })?;
        // the entry is durable: only now does the knowledge grow and the answer leave
        if let Some(d) = &answer.disclosure {
            center.apply(knowledge, d);
        }
        if v.outcome == Outcome::Refused {
            return Err(Failure {
                status: 403,
                message: v.reason.clone().unwrap_or_else(|| "refused".into()),
                audit_id: Some(id),
                refused: true,
            });
        }
        Ok(Released {
            audit_id: id,
            outcome: outcome_name(v.outcome).into(),
            method: format!("{:?}", v.method).to_lowercase(),
            levels: v.levels.clone(),
            generalized_cells: v.generalized_cells,
            loss: v.loss,
            dropped: v.dropped.clone(),
            columns: answer.columns,
            rows: answer.rows,
        })
    }

    /// Checks that every column the request names is granted to `user`, and expands `*`
    /// to the granted columns.
    fn check_grants(
        &self,
        user: &User,
        center: &Center,
        request: &mut cellsafe::gatekeeper::Request,
    ) -> Result<(), Failure> {
        let grants = self.store.grants(&user.name).map_err(Failure::internal)?;
        let Some(granted) = grants.get(&self.table_name) else {
            return Err(Failure::new(
                403,
                format!("table `{}` is not granted to you", self.table_name),
            ));
        };
        let all = granted.iter().any(|c| c == "*");
        let header = center.header();
        let allowed = |c: &str| all || granted.iter().any(|g| g == c);
        let mut columns = Vec::new();
        for c in &request.columns {
            if c == "*" {
                columns.extend(header.iter().filter(|h| allowed(h)).cloned());
            } else {
                columns.push(c.clone());
            }
        }
        let named = columns
            .iter()
            .chain(request.conditions.iter().map(|c| &c.column));
        for c in named {
            if !header.contains(c) {
                return Err(Failure::new(400, format!("unknown column `{c}`")));
            }
            if !allowed(c) {
                return Err(Failure::new(
                    403,
                    format!("column `{c}` is not granted to you"),
                ));
            }
        }
        request.columns = columns;
        Ok(())
    }
}

/// An audit entry that could not be written: nothing is answered. A full database or
/// disk is a 503 (the service refuses queries until there is room), anything else a 500.
pub fn audit_failure(e: crate::store::StoreError) -> Failure {
    if crate::store::is_full(&e) {
        Failure::new(
            503,
            "the audit log cannot be written (its database or disk is full): no query is \
             answered until there is room",
        )
    } else {
        Failure::internal(e)
    }
}

/// The files an admin's settings may read: those under one of `roots` (canonical
/// directories: the config file's own and `[service] files`), except `private` (the
/// config file and the database's files).
#[derive(Debug, Clone, Default)]
pub struct Files {
    /// Directories, canonical.
    pub roots: Vec<PathBuf>,
    /// Files never read, canonical.
    pub private: Vec<PathBuf>,
}

impl Files {
    /// Checks that every file `config` reads besides the config and its data (the
    /// operator's own) is allowed: an admin's settings cannot read, and so echo in an
    /// error, any other file the server can read. The message is the same whether the
    /// file exists or not.
    pub fn check(&self, config: &Config) -> Result<(), Failure> {
        let data = config.resolve(&config.input.path);
        for (what, path) in config.input_files() {
            if what == "the config" || path == data {
                continue;
            }
            let allowed = locate(&path).is_some_and(|p| {
                self.roots.iter().any(|r| p.starts_with(r)) && !self.private.contains(&p)
            });
            if !allowed {
                return Err(Failure::new(
                    400,
                    format!(
                        "{what}: a file the settings read must lie in the center's directory \
                         or a directory of [service] files, and be neither the config nor \
                         the database; `{}` is not such a file",
                        crate::api::cut(&path.display().to_string())
                    ),
                ));
            }
        }
        Ok(())
    }
}

/// Where `path` leads: its longest existing ancestor resolved as the system resolves it
/// (symbolic links, `..`), and the rest of the path appended and read as text. The same
/// whether or not the file itself exists.
pub fn locate(path: &std::path::Path) -> Option<PathBuf> {
    let absolute = std::path::absolute(path).ok()?;
    let mut base = absolute.as_path();
    let mut rest = Vec::new();
    let resolved = loop {
        if let Ok(c) = std::fs::canonicalize(base) {
            break c;
        }
        rest.push(base.file_name()?.to_os_string());
        base = base.parent()?;
    };
    let mut out = resolved;
    for part in rest.iter().rev() {
        if part == ".." {
            out.pop();
        } else if part != "." {
            out.push(part);
        }
    }
    Some(out)
}

/// Whether session `s` is still open at `now`.
fn live_session(s: &Session, now: Instant) -> bool {
    now.saturating_duration_since(s.used) < SESSION_IDLE
        && now.saturating_duration_since(s.opened) < SESSION_MAX
}

/// A gatekeeper error as a client failure (bad queries) or an internal one.
fn query_failure(e: Error) -> Failure {
    match e {
        Error::Query(q) => Failure::new(400, q.to_string()),
        e => Failure::internal(e),
    }
}

#[cfg(test)]
pub(crate) mod tests_support {
    use super::*;

    /// Sets session `id`'s last use and sign-in to `used` and `opened`.
    pub(crate) fn age_session(app: &App, id: &str, used: Instant, opened: Instant) {
        let mut sessions = app.sessions.lock().unwrap();
        let s = sessions.get_mut(id).unwrap();
        s.used = used;
        s.opened = opened;
    }
}
