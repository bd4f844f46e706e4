//! The service's state and the pipeline of one query: authenticate, parse, check grants,
//! let the database find the rows, let the gatekeeper judge them against the user's
//! knowledge, write the audit entry, then answer.

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, RwLock};

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
    /// Wrong tokens per user name.
    pub throttle: Throttle,
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
        }
    }

    /// The center as currently configured.
    pub fn live(&self) -> Arc<Live> {
        self.live.read().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// Rebuilds the center from config `text`; on success stores it and makes it live.
    pub fn reconfigure(&self, text: String) -> Result<Arc<Live>, Failure> {
        let config = Config::parse(&text, &self.config_path)
            .map_err(|e| Failure::new(400, e.to_string()))?;
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

    /// The user a bearer token belongs to.
    pub fn authenticate(&self, header: Option<&str>) -> Result<User, Failure> {
        let unauthorized = |m: &str| Failure::new(401, m);
        let token = header
            .and_then(|h| h.strip_prefix("Bearer "))
            .ok_or_else(|| unauthorized("missing token: send `Authorization: Bearer NAME.SECRET`"))?
            .trim();
        let (name, secret) = token
            .split_once('.')
            .ok_or_else(|| unauthorized("malformed token"))?;
        let found = self.store.user(name).map_err(Failure::internal)?;
        let Some((role, hash)) = found else {
            return Err(unauthorized("invalid token"));
        };
        // a token checked before passes even while its name is locked, so that a guesser
        // cannot lock its holder out
        if self.verified.get(token).as_deref() != Some(name) {
            let now = std::time::Instant::now();
            if let Some(wait) = self.throttle.locked(name, now) {
                return Err(Failure::new(
                    429,
                    format!(
                        "too many wrong tokens for `{name}`: try again in {} s",
                        wait.as_secs() + 1
                    ),
                ));
            }
            if !auth::verify(secret, &hash) {
                self.throttle.failed(name, now);
                return Err(unauthorized("invalid token"));
            }
            self.throttle.succeeded(name);
            self.verified.insert(token, name);
        }
        Ok(User {
            name: name.to_string(),
            role: Role::parse(&role).ok_or_else(|| Failure::internal("a stored role"))?,
        })
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

    /// Forgets what is cached for `user` (after a deletion).
    pub fn forget(&self, user: &str) {
        self.verified.forget(user);
        self.held
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(user);
    }

    fn audit(&self, e: Entry) -> Result<i64, Failure> {
        self.store.append(&e).map_err(Failure::internal)
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
            reason: Some(f.message.clone()),
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

    /// The whole pipeline for one query of `user`, whose knowledge `held` is locked.
    pub fn query(&self, user: &User, text: &str, held: &mut Held) -> Result<Released, Failure> {
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

/// A gatekeeper error as a client failure (bad queries) or an internal one.
fn query_failure(e: Error) -> Failure {
    match e {
        Error::Query(q) => Failure::new(400, q.to_string()),
        e => Failure::internal(e),
    }
}
