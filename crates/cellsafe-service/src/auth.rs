//! Users and their tokens.
//!
//! A token reads `NAME.SECRET`: the name says whose hash to check, the secret is 32 random
//! bytes in hex. Only the secret's argon2 hash is stored. Checking a hash takes tens of
//! milliseconds on purpose, so a token checked once is remembered in memory (never on
//! disk) until its user is deleted or given a new token.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::Argon2;
use rand::RngCore;

/// Roles: `admin` configures the center and reads the audit log; `analyst` queries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// Configures the center, manages users, reads the audit log; queries like an analyst.
    Admin,
    /// Queries the tables and columns granted.
    Analyst,
}

impl Role {
    /// As stored.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Admin => "admin",
            Role::Analyst => "analyst",
        }
    }
    /// From storage.
    pub fn parse(s: &str) -> Option<Role> {
        match s {
            "admin" => Some(Role::Admin),
            "analyst" => Some(Role::Analyst),
            _ => None,
        }
    }
}

/// A new random token for `name`: (token, hash of its secret).
pub fn new_token(name: &str) -> (String, String) {
    let mut bytes = [0u8; 32];
    rand::rngs::OsRng.fill_bytes(&mut bytes);
    let secret: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    let hash = hash_secret(&secret);
    (format!("{name}.{secret}"), hash)
}

/// The argon2 hash (PHC string) of `secret`.
pub fn hash_secret(secret: &str) -> String {
    let salt = SaltString::generate(&mut rand::rngs::OsRng);
    Argon2::default()
        .hash_password(secret.as_bytes(), &salt)
        .expect("argon2 with default parameters hashes any input")
        .to_string()
}

/// Whether `secret` matches the PHC string `hash`.
pub fn verify(secret: &str, hash: &str) -> bool {
    PasswordHash::new(hash)
        .map(|h| {
            Argon2::default()
                .verify_password(secret.as_bytes(), &h)
                .is_ok()
        })
        .unwrap_or(false)
}

/// The longest secret checked (ours are 64 hex digits): a longer one is refused without
/// a check, so no client makes argon2 hash a header-sized secret.
pub const MAX_SECRET: usize = 256;

/// A valid user name: 1 to 64 letters, digits, `-` or `_`.
pub fn valid_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// Most tokens remembered as checked, sessions open, and names tracked by the throttle:
/// what clients send never grows these maps further.
pub const MAX_TRACKED: usize = 10_000;

/// Tokens already checked: token → (user name, the hash it was checked against). A token
/// passes from here only while its user's stored hash is still that hash, so a deleted
/// user or a new token ends it whatever the order of events.
#[derive(Default)]
pub struct Verified(Mutex<HashMap<String, (String, String)>>);

impl Verified {
    /// Whether `token` was checked before against `hash`, the hash `user` has now.
    pub fn passes(&self, token: &str, user: &str, hash: &str) -> bool {
        self.0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(token)
            .is_some_and(|(u, h)| u == user && h == hash)
    }
    /// Remembers a checked token.
    pub fn insert(&self, token: &str, user: &str, hash: &str) {
        let mut m = self.0.lock().unwrap_or_else(|p| p.into_inner());
        if m.len() >= MAX_TRACKED {
            m.clear();
        }
        m.insert(token.to_string(), (user.to_string(), hash.to_string()));
    }
    /// Forgets every token of `user`.
    pub fn forget(&self, user: &str) {
        self.0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .retain(|_, (u, _)| u != user);
    }
}

/// Wrong tokens per user name and client address. Each check is counted *before* it runs,
/// so simultaneous guesses cannot slip past the limit; after `limit` in a row, the name is
/// locked for that address for `lockout` from the last: its tokens from there are not
/// checked (a guesser makes no progress and costs no argon2 time), while the same name
/// from any other address is checked as usual, so a guesser cannot lock the token's
/// holder out from elsewhere. A success clears the count. Names that are no user are
/// counted alike, so the lock does not tell which names exist.
pub struct Throttle {
    limit: u32,
    lockout: Duration,
    counts: Mutex<HashMap<(String, IpAddr), (u32, Instant)>>,
}

impl Throttle {
    /// A throttle locking a name for an address for `lockout` after `limit` wrong tokens
    /// in a row (`limit` 0: never).
    pub fn new(limit: u32, lockout: Duration) -> Throttle {
        Throttle {
            limit,
            lockout,
            counts: Mutex::new(HashMap::new()),
        }
    }

    fn lock_ends(&self, last: Instant) -> Option<Instant> {
        last.checked_add(self.lockout)
    }

    /// Counts one check of `name`'s token from `from` before it runs: Err(how long the
    /// name stays locked there) when it is locked, and then nothing is counted.
    pub fn attempt(&self, name: &str, from: IpAddr, now: Instant) -> Result<(), Duration> {
        if self.limit == 0 {
            return Ok(());
        }
        let mut m = self.counts.lock().unwrap_or_else(|p| p.into_inner());
        let key = (name.to_string(), from);
        if let Some(&(count, last)) = m.get(&key) {
            if count >= self.limit {
                match self.lock_ends(last) {
                    Some(until) if now < until => return Err(until - now),
                    None => return Err(self.lockout),
                    // the lock has passed: a new count starts
                    Some(_) => {
                        m.remove(&key);
                    }
                }
            }
        }
        if !m.contains_key(&key) && m.len() >= MAX_TRACKED {
            let lockout = self.lockout;
            m.retain(|_, (_, last)| now.saturating_duration_since(*last) < lockout);
            if m.len() >= MAX_TRACKED {
                // still full of recent names: the least recently counted goes
                if let Some(oldest) = m
                    .iter()
                    .min_by_key(|(_, (_, last))| *last)
                    .map(|(k, _)| k.clone())
                {
                    m.remove(&oldest);
                }
            }
        }
        let entry = m.entry(key).or_insert((0, now));
        entry.0 += 1;
        entry.1 = now;
        Ok(())
    }

    /// Clears the count of `name` from `from` after a successful check.
    pub fn succeeded(&self, name: &str, from: IpAddr) {
        if self.limit > 0 {
            self.counts
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .remove(&(name.to_string(), from));
        }
    }

    /// Names and addresses tracked now (for tests of the bound).
    pub fn tracked(&self) -> usize {
        self.counts.lock().unwrap_or_else(|p| p.into_inner()).len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn throttle_locks_a_name_for_one_address_after_the_limit_until_the_lockout_passes() {
        let t = Throttle::new(3, Duration::from_secs(10));
        let t0 = Instant::now();
        let at = |s: u64| t0 + Duration::from_secs(s);
        let (here, there): (IpAddr, IpAddr) =
            ("127.0.0.1".parse().unwrap(), "127.0.0.2".parse().unwrap());
        for s in 0..3 {
            assert_eq!(t.attempt("ann", here, at(s)), Ok(()));
        }
        assert_eq!(t.attempt("ann", here, at(2)), Err(Duration::from_secs(10)));
        assert_eq!(t.attempt("ann", here, at(11)), Err(Duration::from_secs(1)));
        assert_eq!(
            t.attempt("ann", there, at(11)),
            Ok(()),
            "another address is checked"
        );
        assert_eq!(
            t.attempt("bob", here, at(11)),
            Ok(()),
            "names are counted apart"
        );
        // after the lock, a new count starts
        assert_eq!(t.attempt("ann", here, at(12)), Ok(()));
        assert_eq!(t.attempt("ann", here, at(12)), Ok(()));
        t.succeeded("ann", here);
        for _ in 0..3 {
            assert_eq!(
                t.attempt("ann", here, at(13)),
                Ok(()),
                "a success clears the count"
            );
        }
        let never = Throttle::new(0, Duration::from_secs(10));
        for s in 0..100 {
            assert_eq!(never.attempt("ann", here, at(s)), Ok(()));
        }
        let long = Throttle::new(1, Duration::from_secs(u64::MAX));
        assert_eq!(long.attempt("ann", here, at(0)), Ok(()));
        assert!(long.attempt("ann", here, at(1_000_000)).is_err());
    }

    /// Simultaneous checks: each is counted before it runs, so no more than the limit
    /// ever run (the race of the hostile review: 100 at once all got checked).
    #[test]
    fn simultaneous_attempts_never_pass_the_limit() {
        let t = std::sync::Arc::new(Throttle::new(5, Duration::from_secs(60)));
        let here: IpAddr = "127.0.0.1".parse().unwrap();
        let passed = std::sync::atomic::AtomicUsize::new(0);
        std::thread::scope(|s| {
            for _ in 0..16 {
                s.spawn(|| {
                    for _ in 0..10 {
                        if t.attempt("ann", here, Instant::now()).is_ok() {
                            passed.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                        }
                    }
                });
            }
        });
        assert_eq!(passed.into_inner(), 5);
    }

    #[test]
    fn the_throttle_tracks_a_bounded_number_of_names() {
        let t = Throttle::new(5, Duration::from_secs(60));
        let here: IpAddr = "127.0.0.1".parse().unwrap();
        let now = Instant::now();
        for i in 0..MAX_TRACKED + 500 {
            assert!(t.attempt(&format!("n{i}"), here, now).is_ok());
        }
        assert_eq!(t.tracked(), MAX_TRACKED);
    }

    #[test]
    fn tokens_verify_against_their_hash_only() {
        let (token, hash) = new_token("ann");
        let (name, secret) = token.split_once('.').unwrap();
        assert_eq!(name, "ann");
        assert_eq!(secret.len(), 64);
        assert!(verify(secret, &hash));
        assert!(!verify("0".repeat(64).as_str(), &hash));
        assert!(!verify(secret, "not a hash"));
        assert!(!hash.contains(secret));
        assert!(valid_name("ann_2-b") && !valid_name("") && !valid_name("a.b"));
    }
}
